// SPDX-License-Identifier: GPL-2.0
/*
 * dropcap: run a program without one capability, for the cxbell VM tests
 * (busybox setpriv cannot drop a capability from the bounding set, and
 * the guest has no capsh or util-linux setpriv).
 *
 *   dropcap CAP PROG [ARGS...]
 *
 * CAP is a number or one of the names below (without "cap_"). The
 * capability is dropped from the bounding set (so the exec of PROG as
 * root cannot regain it), the ambient set is cleared, and it is removed
 * from the effective, permitted and inheritable sets; then PROG is
 * executed (searched in PATH). Exit status 127 if that fails.
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static), like
 * tcpblast.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	int cap;
} caps[] = {
	{ "net_admin", CAP_NET_ADMIN },
	{ "net_raw", CAP_NET_RAW },
	{ "sys_admin", CAP_SYS_ADMIN },
};

static int parse_cap(const char *s)
{
	unsigned int i;
	char *end;
	long n;

	if (!strncasecmp(s, "cap_", 4))
		s += 4;
	for (i = 0; i < ARRAY_SIZE(caps); i++)
		if (!strcasecmp(s, caps[i].name))
			return caps[i].cap;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 0 || n > 63)
		return -1;
	return n;
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int cap, w;
	__u32 bit;

	if (argc < 3) {
		fprintf(stderr, "usage: dropcap CAP PROG [ARGS...]\n");
		return 2;
	}
	cap = parse_cap(argv[1]);
	if (cap < 0) {
		fprintf(stderr, "dropcap: unknown capability %s\n", argv[1]);
		return 2;
	}
	w = cap / 32;
	bit = 1u << (cap % 32);

	if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
		perror("dropcap: PR_CAPBSET_DROP");
		return 1;
	}
	/* EINVAL on kernels without ambient capabilities: nothing to clear */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL) {
		perror("dropcap: PR_CAP_AMBIENT_CLEAR_ALL");
		return 1;
	}
	if (syscall(SYS_capget, &hdr, data)) {
		perror("dropcap: capget");
		return 1;
	}
	data[w].effective &= ~bit;
	data[w].permitted &= ~bit;
	data[w].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data)) {
		perror("dropcap: capset");
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "dropcap: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
