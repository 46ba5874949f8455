/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for linux/mlx4/device.h: only the objects the
 * inline functions of the kernel's qp.h, cq.h and doorbell.h touch, with
 * the members they use (host unit tests only). The formats under test
 * (QP context, CQE, WQE segments, doorbell offsets) come from the real
 * qp.h/cq.h/doorbell.h of the kernel headers, unmodified.
 */
#ifndef _CXB_SHIM_MLX4_DEVICE_H
#define _CXB_SHIM_MLX4_DEVICE_H

#include <linux/types.h>

enum mlx4_event {
	MLX4_EVENT_TYPE_COMP = 0x00,
};

struct mlx4_uar {
	void __iomem *map;
};

struct mlx4_cq {
	u32 cons_index;
	__be32 *set_ci_db;
	__be32 *arm_db;
	int arm_sn;
	int cqn;
	struct mlx4_uar *uar;
};

struct mlx4_qp {
	int qpn;
};

struct mlx4_dev {
	struct {
		int num_qps;
	} caps;
	int qp_table_tree;
};

struct mlx4_mtt;

#define radix_tree_lookup(tree, idx)	((void)(tree), (void)(idx), NULL)

#endif
