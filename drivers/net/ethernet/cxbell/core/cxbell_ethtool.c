// SPDX-License-Identifier: GPL-2.0
/* cxbell: ethtool operations. */
#include <linux/ethtool.h>
#include <linux/linkmode.h>
#include <linux/netdevice.h>
#include <linux/pci.h>

#include "cxbell.h"

struct cxb_stat_desc {
	char name[ETH_GSTRING_LEN];
	size_t offset;
};

#define CXB_STAT(type, n, f)	{ n, offsetof(type, f) }
#define CXB_TX_XSTAT(n)	CXB_STAT(struct cxb_tx_stats, #n, x.n)
#define CXB_TX_CSTAT(n)	CXB_STAT(struct cxb_tx_stats, #n, c.n)
#define CXB_TX_STAT(n)	CXB_STAT(struct cxb_tx_stats, #n, n)
#define CXB_RX_STAT(n)	CXB_STAT(struct cxb_rx_stats, #n, n)

static const struct cxb_stat_desc cxb_tx_stats_desc[] = {
	CXB_TX_XSTAT(packets),
	CXB_TX_XSTAT(bytes),
	CXB_TX_XSTAT(xmit_more),
	CXB_TX_XSTAT(doorbells),
	CXB_TX_XSTAT(blueflame),
	CXB_STAT(struct cxb_tx_stats, "inline", x.inlined),
	CXB_TX_XSTAT(bounced),
	CXB_TX_XSTAT(tso_packets),
	CXB_TX_XSTAT(tso_bytes),
	CXB_TX_XSTAT(doorbell_on_stop),
	CXB_TX_XSTAT(doorbell_deferred),
	CXB_TX_CSTAT(doorbell_by_completion),
	CXB_TX_XSTAT(doorbell_forced),
	CXB_TX_XSTAT(doorbell_kick),
	CXB_TX_XSTAT(nop),
	CXB_TX_XSTAT(queue_stopped),
	CXB_TX_CSTAT(wake_queue),
	CXB_TX_XSTAT(dropped),
	CXB_TX_CSTAT(cqes),
	CXB_TX_CSTAT(err_cqe),
	CXB_TX_XSTAT(mpwqe_blks),
	CXB_TX_XSTAT(mpwqe_pkts),
	CXB_TX_STAT(xdp_xmit),
	CXB_TX_STAT(xdp_xmit_err),
	CXB_TX_STAT(xdp_doorbells),
	CXB_TX_STAT(xdp_cqes),
	CXB_TX_STAT(xdp_err_cqe),
};

static const struct cxb_stat_desc cxb_rx_stats_desc[] = {
	CXB_RX_STAT(packets),
	CXB_RX_STAT(bytes),
	CXB_RX_STAT(dropped),
	CXB_RX_STAT(err_cqe),
	CXB_RX_STAT(crc_errors),
	CXB_RX_STAT(cqes),
	CXB_RX_STAT(csum_unnecessary),
	CXB_RX_STAT(csum_none),
	CXB_RX_STAT(alloc_fail),
	CXB_RX_STAT(xdp_drop),
	CXB_RX_STAT(xdp_pass),
	CXB_RX_STAT(xdp_tx),
	CXB_RX_STAT(xdp_tx_full),
	CXB_RX_STAT(xdp_redirect),
	CXB_RX_STAT(xdp_aborted),
	CXB_RX_STAT(xdp_tx_polls),
};

static const char cxb_dev_stats_names[][ETH_GSTRING_LEN] = {
	"napi_polls",
	"irqs",
	"tx_timeout",
	"rx_port_dropped",
	"tx_recover",
	"tx_dropped_no_ring",
	"uc_filter_overflow",
	"mc_filter_overflow",
	"tx_tso_fallback",
};

/* tx_mpwqe is offered on CXB_GEN_CX5 ports only (the last entry). */
static const char cxb_priv_flags[][ETH_GSTRING_LEN] = {
	"blueflame",
	"tx_mpwqe",
};

#define CXB_PRIV_FLAG_BF	BIT(0)
#define CXB_PRIV_FLAG_MPWQE	BIT(1)

static unsigned int cxb_num_priv_flags(const struct cxb_priv *priv)
{
	return priv->cadev->gen == CXB_GEN_CX5 ? ARRAY_SIZE(cxb_priv_flags) :
	       ARRAY_SIZE(cxb_priv_flags) - 1;
}

#define CXB_NUM_TX_STATS	ARRAY_SIZE(cxb_tx_stats_desc)
#define CXB_NUM_RX_STATS	ARRAY_SIZE(cxb_rx_stats_desc)
#define CXB_NUM_DEV_STATS	ARRAY_SIZE(cxb_dev_stats_names)

static void cxb_get_drvinfo(struct net_device *dev,
			    struct ethtool_drvinfo *info)
{
	struct cxb_priv *priv = netdev_priv(dev);

	struct device *parent = priv->cadev->adev.dev.parent;

	strscpy(info->driver, CXB_DRV_NAME, sizeof(info->driver));
	strscpy(info->fw_version, priv->cadev->fw_version,
		sizeof(info->fw_version));
	/* on a PCI function its address, as mlx4_en reports it (both ports
	 * of an adapter share it); else the port's auxiliary device
	 */
	if (parent && dev_is_pci(parent))
		strscpy(info->bus_info, pci_name(to_pci_dev(parent)),
			sizeof(info->bus_info));
	else
		strscpy(info->bus_info, dev_name(&priv->cadev->adev.dev),
			sizeof(info->bus_info));
}

static int cxb_get_sset_count(struct net_device *dev, int sset)
{
	struct cxb_priv *priv = netdev_priv(dev);

	if (sset == ETH_SS_PRIV_FLAGS)
		return cxb_num_priv_flags(priv);
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return (1 + priv->num_ch) * (CXB_NUM_TX_STATS + CXB_NUM_RX_STATS) +
	       CXB_NUM_DEV_STATS;
}

static void cxb_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct cxb_priv *priv = netdev_priv(dev);
	unsigned int i, q;

	if (sset == ETH_SS_PRIV_FLAGS) {
		memcpy(data, cxb_priv_flags,
		       cxb_num_priv_flags(priv) * ETH_GSTRING_LEN);
		return;
	}
	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < CXB_NUM_TX_STATS; i++)
		ethtool_sprintf(&data, "tx_%s", cxb_tx_stats_desc[i].name);
	for (i = 0; i < CXB_NUM_RX_STATS; i++)
		ethtool_sprintf(&data, "rx_%s", cxb_rx_stats_desc[i].name);
	for (i = 0; i < CXB_NUM_DEV_STATS; i++)
		ethtool_sprintf(&data, "%s", cxb_dev_stats_names[i]);
	for (q = 0; q < priv->num_ch; q++)
		for (i = 0; i < CXB_NUM_TX_STATS; i++)
			ethtool_sprintf(&data, "tx%u_%s", q,
					cxb_tx_stats_desc[i].name);
	for (q = 0; q < priv->num_ch; q++)
		for (i = 0; i < CXB_NUM_RX_STATS; i++)
			ethtool_sprintf(&data, "rx%u_%s", q,
					cxb_rx_stats_desc[i].name);
}

static u64 cxb_stat(const void *s, const struct cxb_stat_desc *d)
{
	return *(const u64 *)((const u8 *)s + d->offset);
}

static void cxb_get_ethtool_stats(struct net_device *dev,
				  struct ethtool_stats *estats, u64 *data)
{
	struct cxb_priv *priv = netdev_priv(dev);
	unsigned int nq = priv->num_ch, i, q;
	struct cxb_tx_stats *tx, tx_sum;
	struct cxb_rx_stats *rx, rx_sum;
	struct cxb_port_stats ps;
	u64 polls, irqs;

	tx = kcalloc(nq, sizeof(*tx), GFP_KERNEL);
	rx = kcalloc(nq, sizeof(*rx), GFP_KERNEL);
	if (!tx || !rx)
		goto out;

	spin_lock_bh(&priv->ch_lock);
	tx_sum = priv->tx_base;
	rx_sum = priv->rx_base;
	polls = priv->polls_base;
	irqs = priv->irqs_base;
	for (q = 0; priv->ch && q < nq; q++) {
		struct cxb_channel *ch = priv->ch[q];

		cxb_get_tx_stats(&ch->tx, &tx[q]);
		cxb_get_xdpsq_stats(&ch->xdpsq, &tx[q]);
		cxb_get_rx_stats(&ch->rx, &rx[q]);
		polls += READ_ONCE(ch->polls);
		irqs += READ_ONCE(ch->tx_cq.irqs) + READ_ONCE(ch->rx_cq.irqs) +
			READ_ONCE(ch->xdp_cq.irqs);
	}
	spin_unlock_bh(&priv->ch_lock);
	/* Drops no ring counted are in the summed tx_dropped too, and
	 * frames a cx5 port dropped for their FCS in rx_crc_errors.
	 */
	tx_sum.x.dropped += cxb_port_tx_dropped(priv);
	cxb_port_stats(priv, &ps);
	rx_sum.crc_errors += ps.rx_crc_errors;

	for (i = 0; i < CXB_NUM_TX_STATS; i++) {
		u64 v = cxb_stat(&tx_sum, &cxb_tx_stats_desc[i]);

		for (q = 0; q < nq; q++)
			v += cxb_stat(&tx[q], &cxb_tx_stats_desc[i]);
		*data++ = v;
	}
	for (i = 0; i < CXB_NUM_RX_STATS; i++) {
		u64 v = cxb_stat(&rx_sum, &cxb_rx_stats_desc[i]);

		for (q = 0; q < nq; q++)
			v += cxb_stat(&rx[q], &cxb_rx_stats_desc[i]);
		*data++ = v;
	}
	*data++ = polls;
	*data++ = irqs;
	*data++ = READ_ONCE(priv->tx_timeouts);
	*data++ = ps.rx_dropped;
	*data++ = READ_ONCE(priv->tx_recovers);
	*data++ = cxb_port_tx_dropped(priv);
	*data++ = READ_ONCE(priv->uc_filter_overflow);
	*data++ = READ_ONCE(priv->mc_filter_overflow);
	*data++ = atomic64_read(&priv->tso_fallback);
	for (q = 0; q < nq; q++)
		for (i = 0; i < CXB_NUM_TX_STATS; i++)
			*data++ = cxb_stat(&tx[q], &cxb_tx_stats_desc[i]);
	for (q = 0; q < nq; q++)
		for (i = 0; i < CXB_NUM_RX_STATS; i++)
			*data++ = cxb_stat(&rx[q], &cxb_rx_stats_desc[i]);
out:
	kfree(tx);
	kfree(rx);
}

/* The link mode of a port at a speed on a connector, as mlx4_en reports
 * one without the PTYS register (en_ethtool.c, ethtool_get_default_
 * settings()): the family member of the cable type. A backend reports
 * speed and connector only (QUERY_PORT on a ConnectX-3).
 */
static const struct {
	u32 speed;
	u8 port;
	u8 mode;
} cxb_link_modes[] = {
	{ SPEED_1000, PORT_TP, ETHTOOL_LINK_MODE_1000baseT_Full_BIT },
	{ SPEED_10000, PORT_TP, ETHTOOL_LINK_MODE_10000baseT_Full_BIT },
	{ SPEED_10000, PORT_DA, ETHTOOL_LINK_MODE_10000baseCR_Full_BIT },
	{ SPEED_10000, PORT_FIBRE, ETHTOOL_LINK_MODE_10000baseSR_Full_BIT },
	{ SPEED_25000, PORT_DA, ETHTOOL_LINK_MODE_25000baseCR_Full_BIT },
	{ SPEED_25000, PORT_FIBRE, ETHTOOL_LINK_MODE_25000baseSR_Full_BIT },
	{ SPEED_40000, PORT_DA, ETHTOOL_LINK_MODE_40000baseCR4_Full_BIT },
	{ SPEED_40000, PORT_FIBRE, ETHTOOL_LINK_MODE_40000baseSR4_Full_BIT },
	{ SPEED_50000, PORT_DA, ETHTOOL_LINK_MODE_50000baseCR2_Full_BIT },
	{ SPEED_50000, PORT_FIBRE, ETHTOOL_LINK_MODE_50000baseSR2_Full_BIT },
	{ SPEED_56000, PORT_DA, ETHTOOL_LINK_MODE_56000baseCR4_Full_BIT },
	{ SPEED_56000, PORT_FIBRE, ETHTOOL_LINK_MODE_56000baseSR4_Full_BIT },
	{ SPEED_100000, PORT_DA, ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT },
	{ SPEED_100000, PORT_FIBRE, ETHTOOL_LINK_MODE_100000baseSR4_Full_BIT },
};

/* The connector's port type among the supported and advertised modes */
static void cxb_link_port_fill(struct ethtool_link_ksettings *ks, u8 port)
{
	if (port == PORT_TP) {
		ethtool_link_ksettings_add_link_mode(ks, supported, TP);
		ethtool_link_ksettings_add_link_mode(ks, advertising, TP);
	} else if (port == PORT_DA || port == PORT_FIBRE) {
		/* mlx4_en: FIBRE for direct-attach copper too */
		ethtool_link_ksettings_add_link_mode(ks, supported, FIBRE);
		ethtool_link_ksettings_add_link_mode(ks, advertising, FIBRE);
	}
}

static void cxb_link_modes_fill(struct ethtool_link_ksettings *ks,
				const struct cxb_link_info *li)
{
	unsigned int i;

	cxb_link_port_fill(ks, li->port);
	for (i = 0; i < ARRAY_SIZE(cxb_link_modes); i++) {
		if (cxb_link_modes[i].speed != li->speed ||
		    cxb_link_modes[i].port != li->port)
			continue;
		__set_bit(cxb_link_modes[i].mode, ks->link_modes.supported);
		__set_bit(cxb_link_modes[i].mode, ks->link_modes.advertising);
	}
}

/* Link settings: full duplex (a ConnectX port has no other mode); speed
 * and duplex only while the port has carrier, unknown otherwise, as
 * mlx4_en reports. A backend that reports link modes (the PTYS register
 * of mlx4_en_get_link_ksettings()) gives supported, advertised and the
 * link partner's modes and whether it negotiates; one that reports speed
 * and connector only gets the one mode they imply, no autonegotiation.
 */
static int cxb_get_link_ksettings(struct net_device *dev,
				  struct ethtool_link_ksettings *ks)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_link_info li = {
		.speed = SPEED_UNKNOWN,
		.port = PORT_OTHER,
		.autoneg = AUTONEG_DISABLE,
	};

	if (!priv->ops->get_link_info)
		return -EOPNOTSUPP;
	priv->ops->get_link_info(priv->cadev, &li);
	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ethtool_link_ksettings_zero_link_mode(ks, lp_advertising);
	if (li.modes) {
		linkmode_copy(ks->link_modes.supported, li.supported);
		linkmode_copy(ks->link_modes.advertising, li.advertising);
		ethtool_link_ksettings_add_link_mode(ks, supported, Autoneg);
		if (li.autoneg == AUTONEG_ENABLE)
			ethtool_link_ksettings_add_link_mode(ks, advertising,
							     Autoneg);
		if (li.lp_autoneg) {
			linkmode_copy(ks->link_modes.lp_advertising,
				      li.lp_advertising);
			ethtool_link_ksettings_add_link_mode(ks, lp_advertising,
							     Autoneg);
		}
		cxb_link_port_fill(ks, li.port);
	} else {
		cxb_link_modes_fill(ks, &li);
	}
	ks->base.port = li.port;
	ks->base.autoneg = li.autoneg;
	if (netif_carrier_ok(dev)) {
		ks->base.speed = li.speed;
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

/* Whether one of the link modes @modes runs at @speed. */
static bool cxb_link_speed_in(const unsigned long *modes, u32 speed)
{
	struct ethtool_link_ksettings ks = {};
	unsigned int bit;

	for_each_set_bit(bit, modes, __ETHTOOL_LINK_MODE_MASK_NBITS) {
		ethtool_params_from_link_mode(&ks, bit);
		if (ks.base.speed == speed)
			return true;
	}
	return false;
}

/* ethtool -s: autonegotiation on (the advertised modes, limited to the
 * supported ones as mlx4_en_set_link_ksettings() limits them to the PTYS
 * eth_proto_cap) or off (a forced speed that one of the supported modes
 * runs at), full duplex only. set_link_ksettings has no extack: refusals
 * are logged, as mlx4_en logs them, and ethtool says "link settings
 * update failed".
 */
static int cxb_set_link_ksettings(struct net_device *dev,
				  const struct ethtool_link_ksettings *ks)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_link_info li = {
		.speed = SPEED_UNKNOWN,
		.port = PORT_OTHER,
		.autoneg = AUTONEG_DISABLE,
	};
	struct cxb_link_cfg cfg = {
		.autoneg = ks->base.autoneg,
		.speed = ks->base.speed,
	};

	if (!priv->ops->get_link_info || !priv->ops->set_link)
		return -EOPNOTSUPP;
	priv->ops->get_link_info(priv->cadev, &li);
	if (!li.modes)
		return -EOPNOTSUPP;
	if (ks->base.duplex == DUPLEX_HALF) {
		netdev_err(dev, "half duplex is not supported\n");
		return -EINVAL;
	}
	if (ks->base.port != li.port) {
		netdev_err(dev, "the port's connector cannot be changed\n");
		return -EINVAL;
	}
	if (cfg.autoneg != AUTONEG_ENABLE && cfg.autoneg != AUTONEG_DISABLE) {
		netdev_err(dev, "autoneg %u is neither on nor off\n",
			   cfg.autoneg);
		return -EINVAL;
	}
	/* kept while the speed is forced, for the next autonegotiation */
	linkmode_and(cfg.advertising, ks->link_modes.advertising,
		     li.supported);
	if (linkmode_empty(cfg.advertising)) {
		netdev_err(dev, "none of the advertised link modes is supported\n");
		return -EINVAL;
	}
	if (cfg.autoneg == AUTONEG_DISABLE &&
	    !cxb_link_speed_in(li.supported, cfg.speed)) {
		netdev_err(dev, "speed %d is not supported\n", (int)cfg.speed);
		return -EINVAL;
	}
	return priv->ops->set_link(priv->cadev, &cfg);
}

static void cxb_get_ringparam(struct net_device *dev,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct cxb_priv *priv = netdev_priv(dev);

	ring->rx_max_pending = CXB_MAX_RING_SIZE;
	ring->tx_max_pending = CXB_MAX_RING_SIZE;
	ring->rx_pending = priv->rx_ring_size;
	ring->tx_pending = priv->tx_ring_size;
	kring->tx_push = priv->bf_on;
}

/* BlueFlame on/off: the "blueflame" private flag and tx-push are one. */
static int cxb_set_bf(struct cxb_priv *priv, bool on,
		      struct netlink_ext_ack *extack)
{
	if (on == priv->bf_on)
		return 0;
	if (on && priv->cadev->bf_size < CXB_MLX4_TXBB_SIZE) {
		NL_SET_ERR_MSG_MOD(extack, "port has no BlueFlame registers");
		return -EOPNOTSUPP;
	}
	priv->bf_on = on;
	cxb_apply_tx_policy(priv);
	return 0;
}

/* A requested ring size as mlx4_en takes it (en_ethtool.c,
 * mlx4_en_set_ringparam()): up to the next power of two, at least the
 * minimum. More than the maximum the ethtool core refuses already.
 */
static int cxb_ring_size(u32 n, u32 *size, struct netlink_ext_ack *extack)
{
	if (n > CXB_MAX_RING_SIZE) {
		NL_SET_ERR_MSG_MOD(extack, "ring size must be at most 8192");
		return -EINVAL;
	}
	*size = n <= CXB_MIN_RING_SIZE ? CXB_MIN_RING_SIZE :
					 roundup_pow_of_two(n);
	return 0;
}

static int cxb_set_ringparam(struct net_device *dev,
			     struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			     struct netlink_ext_ack *extack)
{
	struct cxb_priv *priv = netdev_priv(dev);
	u32 tx, rx;
	int err;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "mini and jumbo rings are not supported");
		return -EINVAL;
	}
	err = cxb_ring_size(ring->tx_pending, &tx, extack);
	if (!err)
		err = cxb_ring_size(ring->rx_pending, &rx, extack);
	if (err)
		return err;
	err = cxb_set_bf(priv, kring->tx_push, extack);
	if (err)
		return err;
	if (tx == priv->tx_ring_size && rx == priv->rx_ring_size)
		return 0;
	/* on failure the extack says which step failed */
	return cxb_reconfigure(priv, priv->num_ch, tx, rx, extack);
}

static u32 cxb_max_channels(const struct cxb_priv *priv)
{
	return min(priv->cadev->max_channels, CXB_MAX_CHANNELS);
}

static void cxb_get_channels(struct net_device *dev,
			     struct ethtool_channels *ch)
{
	struct cxb_priv *priv = netdev_priv(dev);

	ch->max_combined = cxb_max_channels(priv);
	ch->combined_count = priv->num_ch;
}

static int cxb_set_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct cxb_priv *priv = netdev_priv(dev);

	/* The core already rejects counts above the maxima we report. No
	 * extack here (6.1 API): the log, rate limited.
	 */
	if (!ch->combined_count || ch->rx_count || ch->tx_count ||
	    ch->other_count) {
		if (net_ratelimit())
			netdev_info(dev, "channels: only 1..%u combined channels\n",
				    cxb_max_channels(priv));
		return -EINVAL;
	}
	if (ch->combined_count == priv->num_ch)
		return 0;
	return cxb_reconfigure(priv, ch->combined_count, priv->tx_ring_size,
			       priv->rx_ring_size, NULL);
}

/* ---- RSS (ethtool -x/-X, -n rx-flow-hash) ---------------------------- */

static u32 cxb_get_rxfh_key_size(struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);

	return priv->has_rss ? CXB_RSS_KEY_SIZE : 0;
}

static u32 cxb_get_rxfh_indir_size(struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);

	return priv->has_rss ? CXB_RSS_TABLE_SIZE : 0;
}

static int cxb_rxfh_get(struct cxb_priv *priv, u32 *indir, u8 *key,
			u8 *hfunc)
{
	unsigned int i;

	if (!priv->has_rss)
		return -EOPNOTSUPP;
	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	if (indir)
		for (i = 0; i < CXB_RSS_TABLE_SIZE; i++)
			indir[i] = priv->rss.table[i];
	if (key)
		memcpy(key, priv->rss.key, CXB_RSS_KEY_SIZE);
	return 0;
}

/* ethtool -X: a new key and/or table. The ethtool core has checked the
 * sizes (a key of another size than CXB_RSS_KEY_SIZE, a table of another
 * size than CXB_RSS_TABLE_SIZE: EINVAL) and, against ETHTOOL_GRXRINGS,
 * the queues the table names; checked here again (a queue beyond the
 * channels) and for what the port can express (cxb_adev.rss_pow2). The
 * refusal's reason goes to the extack (6.8+) and, before 6.8 where
 * set_rxfh has none, to the kernel log. An open port gets the setting
 * at once (mlx4_en_set_rxfh() restarts the port for it; the backend
 * reprograms the RSS context in place), a closed one at open.
 */
static int cxb_rxfh_set(struct net_device *dev, const u32 *indir,
			const u8 *key, u8 hfunc,
			struct netlink_ext_ack *extack)
{
	struct cxb_priv *priv = netdev_priv(dev);
	const char *why = NULL;
	struct cxb_rss old;
	unsigned int i;
	int err;

	if (!priv->has_rss)
		return -EOPNOTSUPP;
	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP) {
		why = "RSS: only the Toeplitz hash function (toeplitz)";
		err = -EOPNOTSUPP;
		goto refuse;
	}
	if (indir) {
		err = cxb_rss_check_table(priv, indir, priv->num_ch, &why);
		if (err)
			goto refuse;
	}
	old = priv->rss;
	if (indir)
		for (i = 0; i < CXB_RSS_TABLE_SIZE; i++)
			priv->rss.table[i] = indir[i];
	if (key)
		memcpy(priv->rss.key, key, CXB_RSS_KEY_SIZE);
	if (!priv->port_open)
		return 0;
	err = cxb_rss_apply(priv);
	if (err) {
		priv->rss = old;
		why = "RSS: the device refused the setting; the old one stays";
		goto refuse;
	}
	return 0;

refuse:
#ifdef CXB_HAVE_RXFH_PARAM
	NL_SET_ERR_MSG_FMT_MOD(extack, "%s", why);
#endif
	netdev_info(dev, "%s (%d)\n", why, err);
	return err;
}

#ifdef CXB_HAVE_RXFH_PARAM
static int cxb_get_rxfh(struct net_device *dev,
			struct ethtool_rxfh_param *rxfh)
{
	return cxb_rxfh_get(netdev_priv(dev), rxfh->indir, rxfh->key,
			    &rxfh->hfunc);
}

static int cxb_set_rxfh(struct net_device *dev,
			struct ethtool_rxfh_param *rxfh,
			struct netlink_ext_ack *extack)
{
	if (rxfh->rss_context || rxfh->rss_delete) {
		NL_SET_ERR_MSG_MOD(extack, "RSS: no additional contexts");
		return -EOPNOTSUPP;
	}
	return cxb_rxfh_set(dev, rxfh->indir, rxfh->key, rxfh->hfunc, extack);
}
#else
static int cxb_get_rxfh(struct net_device *dev, u32 *indir, u8 *key,
			u8 *hfunc)
{
	return cxb_rxfh_get(netdev_priv(dev), indir, key, hfunc);
}

static int cxb_set_rxfh(struct net_device *dev, const u32 *indir,
			const u8 *key, const u8 hfunc)
{
	return cxb_rxfh_set(dev, indir, key, hfunc, NULL);
}
#endif

/* The fields hashed per flow type (struct cxb_rss), as ethtool -n
 * rx-flow-hash shows them.
 */
static u64 cxb_rxfh_fields(const struct cxb_priv *priv, u32 flow_type)
{
	switch (flow_type) {
	case UDP_V4_FLOW:
	case UDP_V6_FLOW:
		if (!priv->cadev->rss_udp)
			return RXH_IP_SRC | RXH_IP_DST;
		fallthrough;
	case TCP_V4_FLOW:
	case TCP_V6_FLOW:
		return RXH_IP_SRC | RXH_IP_DST | RXH_L4_B_0_1 | RXH_L4_B_2_3;
	case IPV4_FLOW:
	case IPV6_FLOW:
	case SCTP_V4_FLOW:
	case SCTP_V6_FLOW:
	case AH_ESP_V4_FLOW:
	case AH_ESP_V6_FLOW:
		return RXH_IP_SRC | RXH_IP_DST;
	default:
		return 0;
	}
}

static int cxb_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc,
			 u32 *rule_locs)
{
	struct cxb_priv *priv = netdev_priv(dev);

	switch (nfc->cmd) {
	case ETHTOOL_GRXRINGS:
		nfc->data = priv->num_ch;
		return 0;
	case ETHTOOL_GRXFH:
		if (!priv->has_rss)
			return -EOPNOTSUPP;
		nfc->data = cxb_rxfh_fields(priv, nfc->flow_type);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static u32 cxb_get_priv_flags(struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);

	return (priv->bf_on ? CXB_PRIV_FLAG_BF : 0) |
	       (priv->mpwqe_on ? CXB_PRIV_FLAG_MPWQE : 0);
}

/* Multi-packet WQEs on/off, under traffic: the next packet the flag
 * makes ineligible closes an open session.
 */
static int cxb_set_mpwqe(struct cxb_priv *priv, bool on)
{
	if (on == priv->mpwqe_on)
		return 0;
	if (!cxb_mpwqe_usable(priv->cadev))
		return -EOPNOTSUPP;
	priv->mpwqe_on = on;
	cxb_apply_tx_policy(priv);
	return 0;
}

static int cxb_set_priv_flags(struct net_device *dev, u32 flags)
{
	struct cxb_priv *priv = netdev_priv(dev);
	int err;

	/* No extack here (6.1 API): say it in the log, rate limited. */
	err = cxb_set_bf(priv, flags & CXB_PRIV_FLAG_BF, NULL);
	if (err) {
		if (net_ratelimit())
			netdev_info(dev, "blueflame: port has no BlueFlame registers\n");
		return err;
	}
	err = cxb_set_mpwqe(priv, flags & CXB_PRIV_FLAG_MPWQE);
	if (err && net_ratelimit())
		netdev_info(dev, "tx_mpwqe: needs a ConnectX-5+ port with no minimum inline mode\n");
	return err;
}

static int cxb_get_tunable(struct net_device *dev,
			   const struct ethtool_tunable *tuna, void *data)
{
	struct cxb_priv *priv = netdev_priv(dev);

	if (tuna->id != ETHTOOL_TX_COPYBREAK)
		return -EOPNOTSUPP;
	*(u32 *)data = priv->tx_copybreak;
	return 0;
}

static int cxb_set_tunable(struct net_device *dev,
			   const struct ethtool_tunable *tuna,
			   const void *data)
{
	struct cxb_priv *priv = netdev_priv(dev);
	u32 val;

	if (tuna->id != ETHTOOL_TX_COPYBREAK)
		return -EOPNOTSUPP;
	val = *(const u32 *)data;
	if (val > CXB_MLX4_INLINE_MAX) {
		/* No extack here (6.1 API): the log, rate limited. */
		if (net_ratelimit())
			netdev_info(dev, "tx-copybreak: %u is above the inline limit %u\n",
				    val, CXB_MLX4_INLINE_MAX);
		return -EINVAL;
	}
	if (val != priv->tx_copybreak) {
		priv->tx_copybreak = val;
		cxb_apply_tx_policy(priv);
	}
	return 0;
}

static int cxb_get_coalesce(struct net_device *dev,
			    struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec,
			    struct netlink_ext_ack *extack)
{
	struct cxb_priv *priv = netdev_priv(dev);

	ec->rx_coalesce_usecs = priv->rx_usecs;
	ec->rx_max_coalesced_frames = priv->rx_frames;
	ec->tx_coalesce_usecs = priv->tx_usecs;
	ec->tx_max_coalesced_frames = priv->tx_frames;
	return 0;
}

/* CQ moderation, as mlx4_en's: the CQ raises its event after
 * rx/tx-frames CQEs or rx/tx-usecs after the first, whichever comes
 * first; 0 frames: no count limit, 0 usecs: an event per CQE.
 */
static int cxb_set_coalesce(struct net_device *dev,
			    struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec,
			    struct netlink_ext_ack *extack)
{
	struct cxb_priv *priv = netdev_priv(dev);
	u16 old[4];
	int err;

	if (ec->rx_coalesce_usecs > CXB_MAX_COAL ||
	    ec->tx_coalesce_usecs > CXB_MAX_COAL) {
		NL_SET_ERR_MSG_MOD(extack, "rx-usecs and tx-usecs must be 0..65535");
		return -ERANGE;
	}
	if (ec->rx_max_coalesced_frames > CXB_MAX_COAL ||
	    ec->tx_max_coalesced_frames > CXB_MAX_COAL) {
		NL_SET_ERR_MSG_MOD(extack, "rx-frames and tx-frames must be 0..65535");
		return -ERANGE;
	}
	if (ec->rx_coalesce_usecs == priv->rx_usecs &&
	    ec->rx_max_coalesced_frames == priv->rx_frames &&
	    ec->tx_coalesce_usecs == priv->tx_usecs &&
	    ec->tx_max_coalesced_frames == priv->tx_frames)
		return 0;
	old[0] = priv->rx_usecs;
	old[1] = priv->rx_frames;
	old[2] = priv->tx_usecs;
	old[3] = priv->tx_frames;
	priv->rx_usecs = ec->rx_coalesce_usecs;
	priv->rx_frames = ec->rx_max_coalesced_frames;
	priv->tx_usecs = ec->tx_coalesce_usecs;
	priv->tx_frames = ec->tx_max_coalesced_frames;
	err = cxb_apply_coalesce(priv);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "the device refused the CQ moderation");
		priv->rx_usecs = old[0];
		priv->rx_frames = old[1];
		priv->tx_usecs = old[2];
		priv->tx_frames = old[3];
		cxb_apply_coalesce(priv);
	}
	return err;
}

static void cxb_get_pauseparam(struct net_device *dev,
			       struct ethtool_pauseparam *pp)
{
	struct cxb_priv *priv = netdev_priv(dev);
	bool rx = false, tx = false;

	if (priv->ops->get_pause)
		priv->ops->get_pause(priv->cadev, &rx, &tx);
	pp->autoneg = AUTONEG_DISABLE;
	pp->rx_pause = rx;
	pp->tx_pause = tx;
}

/* Global pause only: no autonegotiation of it (as mlx4_en). */
static int cxb_set_pauseparam(struct net_device *dev,
			      struct ethtool_pauseparam *pp)
{
	struct cxb_priv *priv = netdev_priv(dev);

	if (!priv->ops->set_pause)
		return -EOPNOTSUPP;
	if (pp->autoneg)
		return -EINVAL;
	return priv->ops->set_pause(priv->cadev, pp->rx_pause, pp->tx_pause);
}

const struct ethtool_ops cxb_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES,
	.supported_ring_params	= ETHTOOL_RING_USE_TX_PUSH,
	.get_drvinfo		= cxb_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	/* software timestamps: both send paths call skb_tx_timestamp() */
	.get_ts_info		= ethtool_op_get_ts_info,
	.get_link_ksettings	= cxb_get_link_ksettings,
	.set_link_ksettings	= cxb_set_link_ksettings,
	.get_sset_count		= cxb_get_sset_count,
	.get_strings		= cxb_get_strings,
	.get_ethtool_stats	= cxb_get_ethtool_stats,
	.get_ringparam		= cxb_get_ringparam,
	.set_ringparam		= cxb_set_ringparam,
	.get_channels		= cxb_get_channels,
	.set_channels		= cxb_set_channels,
	.get_priv_flags		= cxb_get_priv_flags,
	.set_priv_flags		= cxb_set_priv_flags,
	.get_tunable		= cxb_get_tunable,
	.set_tunable		= cxb_set_tunable,
	.get_coalesce		= cxb_get_coalesce,
	.set_coalesce		= cxb_set_coalesce,
	.get_pauseparam		= cxb_get_pauseparam,
	.get_rxfh_key_size	= cxb_get_rxfh_key_size,
	.get_rxfh_indir_size	= cxb_get_rxfh_indir_size,
	.get_rxfh		= cxb_get_rxfh,
	.set_rxfh		= cxb_set_rxfh,
	.get_rxnfc		= cxb_get_rxnfc,
	.set_pauseparam		= cxb_set_pauseparam,
};
