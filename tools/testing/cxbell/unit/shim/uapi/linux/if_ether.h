/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the kernel's if_ether.h (host unit tests only). */
#ifndef _CXB_SHIM_IF_ETHER_H
#define _CXB_SHIM_IF_ETHER_H

#define ETH_ALEN	6
#define ETH_HLEN	14
#define ETH_FCS_LEN	4
#define ETH_DATA_LEN	1500

#endif
