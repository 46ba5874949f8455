/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal KTAP output for the host unit tests. A test case is a function
 * returning 0 on success; CHECK() fails the running case (and prints a
 * diagnostic, the first few per case) without leaving it.
 */
#ifndef _CXB_UNIT_KTAP_H
#define _CXB_UNIT_KTAP_H

#include <stdarg.h>
#include <stdio.h>

static int ktap_errors;

static inline
int ktap_check(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return 0;
	if (ktap_errors++ < 5) {
		printf("# %s:%d: ", file, line);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	return 1;
}

#define CHECK(cond, fmt, ...)						\
	ktap_check(!!(cond), __FILE__, __LINE__, "%s: " fmt, #cond,	\
		   ##__VA_ARGS__)

struct ktap_case {
	const char *name;
	int (*fn)(void);
};

/* Run @n cases, print KTAP, return the number of failures. */
static inline int ktap_run(const char *suite, const struct ktap_case *c,
			   int n)
{
	int i, failed = 0;

	printf("KTAP version 1\n# %s\n1..%d\n", suite, n);
	for (i = 0; i < n; i++) {
		int bad;

		ktap_errors = 0;
		bad = c[i].fn() || ktap_errors;

		printf("%sok %d %s\n", bad ? "not " : "", i + 1, c[i].name);
		failed += !!bad;
	}
	fflush(stdout);
	return failed;
}

#endif
