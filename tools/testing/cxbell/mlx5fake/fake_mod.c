// SPDX-License-Identifier: GPL-2.0
/* cxbell_mlx5_fake: cxbell_mlx5 linked with a command-level model of the
 * mlx5_core functions it calls (fake_fw.c). Test only: never installed.
 */
#include <linux/module.h>

#include "fake.h"

static int __init cxb_mlx5_fake_mod_init(void)
{
	cxb_mlx5_fake_init();
	return cxb_mlx5_backend_init();
}

static void __exit cxb_mlx5_fake_mod_exit(void)
{
	/* the functions go first: cxbell_mlx5 is removed from each */
	cxb_mlx5_fake_exit();
	cxb_mlx5_backend_exit();
}

module_init(cxb_mlx5_fake_mod_init);
module_exit(cxb_mlx5_fake_mod_exit);

MODULE_DESCRIPTION("cxbell_mlx5 on a command-level model of mlx5_core (test only)");
