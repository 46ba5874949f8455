// SPDX-License-Identifier: GPL-2.0
/* cxbell_mlx5's probe and remove, unchanged, in the fake's module: its
 * module init and exit become functions fake_mod.c calls (aliases).
 */
#include <linux/module.h>

#include "fake.h"

#undef module_init
#undef module_exit
#define module_init(fn)	int cxb_mlx5_backend_init(void) __cold __alias(fn)
#define module_exit(fn)	void cxb_mlx5_backend_exit(void) __cold __alias(fn)
#undef MODULE_DESCRIPTION
#define MODULE_DESCRIPTION(d)

#include "mlx5/cxbell_mlx5_main.c"
