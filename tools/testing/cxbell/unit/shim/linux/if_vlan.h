/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for linux/if_vlan.h (host unit tests only). */
#ifndef _CXB_SHIM_IF_VLAN_H
#define _CXB_SHIM_IF_VLAN_H

#define VLAN_HLEN	4

#endif
