/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for linux/kernel.h (host unit tests only). */
#ifndef _CXB_SHIM_KERNEL_H
#define _CXB_SHIM_KERNEL_H

#include <linux/types.h>

#define BIT(n)			(1UL << (n))
#define DIV_ROUND_UP(n, d)	\
	({ typeof(d) d_ = (d); ((n) + d_ - 1) / d_; })
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#endif
