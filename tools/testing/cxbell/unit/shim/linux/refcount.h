/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for linux/refcount.h and the other kernel objects
 * struct mlx5_core_cq embeds (host unit tests only).
 */
#ifndef _CXB_SHIM_REFCOUNT_H
#define _CXB_SHIM_REFCOUNT_H

#include <stdio.h>
#include <linux/types.h>

struct cxb_shim_refcount {
	int refs;
};

#define refcount_t	struct cxb_shim_refcount

struct completion {
	unsigned int done;
};

struct list_head {
	struct list_head *next, *prev;
};

static inline void refcount_inc(refcount_t *r)
{
	r->refs++;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	return --r->refs == 0;
}

static inline void complete(struct completion *c)
{
	c->done++;
}

#define KERN_WARNING		""
#define DUMP_PREFIX_OFFSET	1
#define print_hex_dump(...)	do { } while (0)

#endif
