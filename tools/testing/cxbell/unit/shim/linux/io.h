/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for linux/io.h: the "MMIO" of a host unit test is
 * plain memory, stored to as the CPU would (host unit tests only).
 */
#ifndef _CXB_SHIM_IO_H
#define _CXB_SHIM_IO_H

#include <string.h>
#include <linux/types.h>

/* A full barrier stands in for the write barrier before MMIO. */
#define wmb()	__sync_synchronize()

static inline void __raw_writeq(u64 v, void *p)
{
	memcpy(p, &v, sizeof(v));
}

static inline void __raw_writel(u32 v, void *p)
{
	memcpy(p, &v, sizeof(v));
}

#endif
