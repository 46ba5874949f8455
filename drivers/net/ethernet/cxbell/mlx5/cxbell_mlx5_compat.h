/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell_mlx5: what differs between the kernels' mlx5_core APIs.
 *
 * The completion vectors' EQ numbers: mlx5_vector2eqn() and
 * mlx5_comp_vectors_count() in 6.1, mlx5_comp_eqn_get() and
 * mlx5_comp_vectors_max() in later kernels, 6.12 among them (Kbuild
 * looks for the former: CXB_MLX5_HAVE_COMP_EQN_GET).
 */
#ifndef _CXBELL_MLX5_COMPAT_H
#define _CXBELL_MLX5_COMPAT_H

#include <linux/mlx5/driver.h>

static inline unsigned int cxb_mlx5_comp_vectors(struct mlx5_core_dev *mdev)
{
#ifdef CXB_MLX5_HAVE_COMP_EQN_GET
	return mlx5_comp_vectors_max(mdev);
#else
	return mlx5_comp_vectors_count(mdev);
#endif
}

static inline int cxb_mlx5_vector_eqn(struct mlx5_core_dev *mdev,
				      unsigned int vector, int *eqn)
{
#ifdef CXB_MLX5_HAVE_COMP_EQN_GET
	return mlx5_comp_eqn_get(mdev, vector, eqn);
#else
	return mlx5_vector2eqn(mdev, vector, eqn);
#endif
}

#endif /* _CXBELL_MLX5_COMPAT_H */
