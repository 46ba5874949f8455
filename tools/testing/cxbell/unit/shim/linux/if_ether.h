/* SPDX-License-Identifier: GPL-2.0 */
#include <uapi/linux/if_ether.h>
