/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for rdma/ib_verbs.h: the two objects the kernel's
 * linux/mlx5 headers embed (host unit tests only). struct ib_grh is the
 * 40-byte IBA global route header, the size union mlx5_ext_cqe relies on.
 */
#ifndef _CXB_SHIM_IB_VERBS_H
#define _CXB_SHIM_IB_VERBS_H

#include <linux/types.h>

struct ib_grh {
	__be32 version_tclass_flow;
	__be16 paylen;
	u8 next_hdr;
	u8 hop_limit;
	u8 sgid[16];
	u8 dgid[16];
};

struct ib_ah {
	void *device;
};

#endif
