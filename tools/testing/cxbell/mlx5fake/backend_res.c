// SPDX-License-Identifier: GPL-2.0
/* cxbell_mlx5's device objects, unchanged, in the fake's module. */
#include "mlx5/cxbell_mlx5_res.c"
