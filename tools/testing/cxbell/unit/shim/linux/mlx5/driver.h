/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for linux/mlx5/driver.h: only what the kernel's
 * qp.h, cq.h and device.h name from it, with the members their inline
 * functions and the MLX5_CAP_*() macros touch (host unit tests only).
 * The formats under test (WQE segments, CQEs, doorbell offsets, the
 * mlx5_ifc.h layouts) come from the real headers, unmodified.
 */
#ifndef _CXB_SHIM_MLX5_DRIVER_H
#define _CXB_SHIM_MLX5_DRIVER_H

#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/refcount.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/doorbell.h>

struct mlx5_rsc_debug;
struct mlx5_eq_comp;

struct mlx5_uars_page {
	void __iomem *map;
};

struct mlx5_core_rsc_common {
	int res;
};

/* What MLX5_CAP_GEN() and friends read: the current and maximum
 * capability pages of each capability type, as QUERY_HCA_CAP returns
 * them (mlx5_ifc.h layouts).
 */
struct mlx5_hca_cap {
	u32 cur[MLX5_UN_SZ_DW(hca_cap_union)];
	u32 max[MLX5_UN_SZ_DW(hca_cap_union)];
};

struct mlx5_core_dev {
	struct {
		struct mlx5_hca_cap *hca[MLX5_CAP_NUM];
	} caps;
	int roce_state;
};

static inline bool mlx5_get_roce_state(struct mlx5_core_dev *dev)
{
	return dev->roce_state;
}

#endif
