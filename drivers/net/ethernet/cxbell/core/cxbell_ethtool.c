// SPDX-License-Identifier: GPL-2.0
/* cxbell: ethtool operations. */
#include <linux/ethtool.h>
#include <linux/netdevice.h>

#include "cxbell.h"

struct cxb_stat_desc {
	char name[ETH_GSTRING_LEN];
	size_t offset;
};

#define CXB_TX_STAT(n)	{ #n, offsetof(struct cxb_tx_stats, n) }
#define CXB_RX_STAT(n)	{ #n, offsetof(struct cxb_rx_stats, n) }

static const struct cxb_stat_desc cxb_tx_stats_desc[] = {
	CXB_TX_STAT(packets),
	CXB_TX_STAT(bytes),
	CXB_TX_STAT(xmit_more),
	CXB_TX_STAT(doorbells),
	CXB_TX_STAT(doorbell_on_stop),
	CXB_TX_STAT(queue_stopped),
	CXB_TX_STAT(wake_queue),
	CXB_TX_STAT(dropped),
	CXB_TX_STAT(cqes),
};

static const struct cxb_stat_desc cxb_rx_stats_desc[] = {
	CXB_RX_STAT(packets),
	CXB_RX_STAT(bytes),
	CXB_RX_STAT(dropped),
	CXB_RX_STAT(cqes),
};

static const char cxb_dev_stats_names[][ETH_GSTRING_LEN] = {
	"napi_polls",
	"irqs",
	"tx_timeout",
};

#define CXB_NUM_TX_STATS	ARRAY_SIZE(cxb_tx_stats_desc)
#define CXB_NUM_RX_STATS	ARRAY_SIZE(cxb_rx_stats_desc)
#define CXB_NUM_DEV_STATS	ARRAY_SIZE(cxb_dev_stats_names)

static void cxb_get_drvinfo(struct net_device *dev,
			    struct ethtool_drvinfo *info)
{
	struct cxb_priv *priv = netdev_priv(dev);

	strscpy(info->driver, CXB_DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(&priv->cadev->adev.dev),
		sizeof(info->bus_info));
}

static int cxb_get_sset_count(struct net_device *dev, int sset)
{
	struct cxb_priv *priv = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return (1 + priv->num_ch) * (CXB_NUM_TX_STATS + CXB_NUM_RX_STATS) +
	       CXB_NUM_DEV_STATS;
}

static void cxb_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct cxb_priv *priv = netdev_priv(dev);
	unsigned int i, q;

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
	u64 polls, irqs;

	tx = kcalloc(nq, sizeof(*tx), GFP_KERNEL);
	rx = kcalloc(nq, sizeof(*rx), GFP_KERNEL);
	if (!tx || !rx)
		goto out;

	spin_lock_bh(&priv->stats_lock);
	tx_sum = priv->tx_base;
	rx_sum = priv->rx_base;
	polls = priv->polls_base;
	irqs = priv->irqs_base;
	for (q = 0; priv->ch && q < nq; q++) {
		struct cxb_channel *ch = priv->ch[q];

		cxb_get_tx_stats(&ch->tx, &tx[q]);
		cxb_get_rx_stats(&ch->rx, &rx[q]);
		polls += READ_ONCE(ch->polls);
		irqs += READ_ONCE(ch->tx_cq.irqs) + READ_ONCE(ch->rx_cq.irqs);
	}
	spin_unlock_bh(&priv->stats_lock);

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
}

static int cxb_check_ring_size(u32 n, struct netlink_ext_ack *extack)
{
	if (n < CXB_MIN_RING_SIZE || n > CXB_MAX_RING_SIZE) {
		NL_SET_ERR_MSG_MOD(extack, "ring size must be 64..8192");
		return -EINVAL;
	}
	if (!is_power_of_2(n)) {
		NL_SET_ERR_MSG_MOD(extack, "ring size must be a power of two");
		return -EINVAL;
	}
	return 0;
}

static int cxb_set_ringparam(struct net_device *dev,
			     struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			     struct netlink_ext_ack *extack)
{
	struct cxb_priv *priv = netdev_priv(dev);
	int err;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "mini and jumbo rings are not supported");
		return -EINVAL;
	}
	err = cxb_check_ring_size(ring->tx_pending, extack);
	if (!err)
		err = cxb_check_ring_size(ring->rx_pending, extack);
	if (err)
		return err;
	if (ring->tx_pending == priv->tx_ring_size &&
	    ring->rx_pending == priv->rx_ring_size)
		return 0;
	err = cxb_reconfigure(priv, priv->num_ch, ring->tx_pending,
			      ring->rx_pending);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate rings of that size");
	return err;
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

	/* The core already rejects counts above the maxima we report. */
	if (!ch->combined_count || ch->rx_count || ch->tx_count ||
	    ch->other_count)
		return -EINVAL;
	if (ch->combined_count == priv->num_ch)
		return 0;
	return cxb_reconfigure(priv, ch->combined_count, priv->tx_ring_size,
			       priv->rx_ring_size);
}

const struct ethtool_ops cxb_ethtool_ops = {
	.get_drvinfo		= cxb_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= cxb_get_sset_count,
	.get_strings		= cxb_get_strings,
	.get_ethtool_stats	= cxb_get_ethtool_stats,
	.get_ringparam		= cxb_get_ringparam,
	.set_ringparam		= cxb_set_ringparam,
	.get_channels		= cxb_get_channels,
	.set_channels		= cxb_set_channels,
};
