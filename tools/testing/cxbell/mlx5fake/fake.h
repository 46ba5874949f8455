/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell_mlx5_fake: what its parts call of each other. */
#ifndef _CXBELL_MLX5_FAKE_H
#define _CXBELL_MLX5_FAKE_H

/* cxbell_mlx5's module init and exit (backend_main.c) */
int cxb_mlx5_backend_init(void);
void cxb_mlx5_backend_exit(void);
/* the model's debugfs, and the removal of its functions (fake_fw.c) */
int cxb_mlx5_fake_init(void);
void cxb_mlx5_fake_exit(void);

#endif /* _CXBELL_MLX5_FAKE_H */
