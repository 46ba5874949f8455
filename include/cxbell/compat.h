/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel API differences between the kernels cxbell builds for (Debian
 * 12's 6.1, Debian 13's 6.12), in one place. Kbuild
 * (drivers/net/ethernet/cxbell/Kbuild) finds out which the kernel has,
 * from its headers, and defines the CXB_HAVE_* below.
 */
#ifndef _CXBELL_COMPAT_H
#define _CXBELL_COMPAT_H

/* 6.6: <net/page_pool.h> split into page_pool/types.h and helpers.h */
#ifdef CXB_HAVE_PAGE_POOL_HELPERS
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

/* 6.12: <asm/unaligned.h> moved to <linux/unaligned.h> */
#ifdef CXB_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* 6.4: bus attribute methods take a const struct bus_type * */
#ifdef CXB_HAVE_CONST_BUS_ATTR
#define CXB_BUS_CONST const
#else
#define CXB_BUS_CONST
#endif

/* 6.3: a device says which XDP actions it supports, and one without
 * NETDEV_XDP_ACT_NDO_XMIT refuses the frames redirected to it (devmap).
 * Before, every device with ndo_xdp_xmit took them.
 */
#ifdef CXB_HAVE_XDP_FEATURES
#include <net/xdp.h>

static inline void cxb_set_xdp_features(struct net_device *dev, bool ndo_xmit)
{
	xdp_features_t f = NETDEV_XDP_ACT_BASIC | NETDEV_XDP_ACT_REDIRECT;

	if (ndo_xmit)
		f |= NETDEV_XDP_ACT_NDO_XMIT;
	xdp_set_features_flag(dev, f);
}
#else
struct net_device;

static inline void cxb_set_xdp_features(struct net_device *dev, bool ndo_xmit)
{
}
#endif

/* 6.9: per-queue counters through the netdev netlink family (qstats-get,
 * "ynl --family netdev --dump qstats-get"), from the driver's struct
 * netdev_stat_ops. Before, ethtool -S alone showed them. The ops exist
 * only where the kernel has them, so the macro drops its argument on the
 * others.
 */
#ifdef CXB_HAVE_NETDEV_STAT_OPS
#include <net/netdev_queues.h>
#define cxb_set_stat_ops(dev, ops)	((dev)->stat_ops = (ops))
#else
#define cxb_set_stat_ops(dev, ops)	do { } while (0)
#endif

/* 6.8: get_rxfh/set_rxfh take a struct ethtool_rxfh_param, set_rxfh an
 * extack (cxbell_ethtool.c has both forms).
 */

#endif /* _CXBELL_COMPAT_H */
