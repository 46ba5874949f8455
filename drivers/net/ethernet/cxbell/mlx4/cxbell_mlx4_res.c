// SPDX-License-Identifier: GPL-2.0
/* cxbell_mlx4: hardware objects behind the backend operations.
 *
 * What mlx4_en sets up for a port, with mlx4_core's exported calls: a PD,
 * a memory region and a UAR page per adapter; per port a reserved range of
 * receive QPNs, the MAC registration, an RSS indirection QP over the live
 * receive QPs, unicast and broadcast steering to it, SET_PORT (QPN
 * calculation, MTU) and INIT_PORT/CLOSE_PORT; per channel CQs on EQ
 * vectors, a send QP with a BlueFlame register and a receive QP, all
 * taken RST -> INIT -> RTR -> RTS over the core's ring memory.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/io.h>
#include <linux/mlx4/cmd.h>
#include <linux/slab.h>

#include "cxbell_mlx4.h"

/* ---- Adapter ----------------------------------------------------------- */

int cxb_mlx4_dev_res_init(struct cxb_mlx4_dev *mdev)
{
	struct mlx4_dev *dev = mdev->dev;
	int err;

	err = mlx4_pd_alloc(dev, &mdev->pdn);
	if (err)
		return err;
	err = mlx4_uar_alloc(dev, &mdev->uar);
	if (err)
		goto err_pd;
	mdev->uar_map = ioremap(mdev->uar.pfn << PAGE_SHIFT, PAGE_SIZE);
	if (!mdev->uar_map) {
		err = -ENOMEM;
		goto err_uar;
	}
	err = mlx4_mr_alloc(dev, mdev->pdn, 0, ~0ULL,
			    MLX4_PERM_LOCAL_WRITE | MLX4_PERM_LOCAL_READ, 0, 0,
			    &mdev->mr);
	if (err)
		goto err_map;
	err = mlx4_mr_enable(dev, &mdev->mr);
	if (err)
		goto err_mr;
	return 0;

err_mr:
	mlx4_mr_free(dev, &mdev->mr);
err_map:
	iounmap(mdev->uar_map);
err_uar:
	mlx4_uar_free(dev, &mdev->uar);
err_pd:
	mlx4_pd_free(dev, mdev->pdn);
	return err;
}

void cxb_mlx4_dev_res_cleanup(struct cxb_mlx4_dev *mdev)
{
	struct mlx4_dev *dev = mdev->dev;

	mlx4_mr_free(dev, &mdev->mr);
	iounmap(mdev->uar_map);
	mlx4_uar_free(dev, &mdev->uar);
	mlx4_pd_free(dev, mdev->pdn);
}

/* ---- Port -------------------------------------------------------------- */

int cxb_mlx4_port_res_init(struct cxb_mlx4_port *port)
{
	struct mlx4_dev *dev = port->mdev->dev;
	int err;

	netdev_rss_key_fill(port->rss_key, sizeof(port->rss_key));
	err = mlx4_alloc_hwq_res(dev, &port->res, PAGE_SIZE);
	if (err)
		return err;
	err = mlx4_qp_reserve_range(dev, CXB_MLX4_MAX_CHANNELS,
				    CXB_MLX4_MAX_CHANNELS, &port->rx_base, 0,
				    MLX4_RES_USAGE_DRIVER);
	if (err)
		mlx4_free_hwq_res(dev, &port->res, PAGE_SIZE);
	return err;
}

void cxb_mlx4_port_res_cleanup(struct cxb_mlx4_port *port)
{
	mlx4_qp_release_range(port->mdev->dev, port->rx_base,
			      CXB_MLX4_MAX_CHANNELS);
	mlx4_free_hwq_res(port->mdev->dev, &port->res, PAGE_SIZE);
}

/* The port's link state as the firmware reports it (QUERY_PORT). */
static bool cxb_mlx4_query_link(struct cxb_mlx4_port *port)
{
	struct mlx4_dev *dev = port->mdev->dev;
	struct mlx4_cmd_mailbox *mailbox;
	bool up = false;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return false;
	if (!mlx4_cmd_box(dev, 0, mailbox->dma, port->num, 0,
			  MLX4_CMD_QUERY_PORT, MLX4_CMD_TIME_CLASS_B,
			  MLX4_CMD_WRAPPED))
		up = cxb_mlx4_query_port_link_up(mailbox->buf);
	mlx4_free_cmd_mailbox(dev, mailbox);
	return up;
}

/* QUERY_PORT's link speed byte (5) and transceiver type (24), decoded as
 * mlx4_en_QUERY_PORT() and mlx4_en's legacy link settings do (en_port.c,
 * en_ethtool.c): SPEED_* and PORT_* of uapi ethtool.h.
 */
#define CXB_MLX4_QUERY_PORT_SPEED	5
#define CXB_MLX4_QUERY_PORT_SPEED_MASK	0x6fU
#define CXB_MLX4_QUERY_PORT_TRANSCEIVER	24

static inline u32 cxb_mlx4_query_port_speed(const void *port_ctx)
{
	switch (((const u8 *)port_ctx)[CXB_MLX4_QUERY_PORT_SPEED] &
		CXB_MLX4_QUERY_PORT_SPEED_MASK) {
	case 0x04:
		return SPEED_100;
	case 0x02:
		return SPEED_1000;
	case 0x00:	/* XAUI */
	case 0x01:	/* XFI */
		return SPEED_10000;
	case 0x08:
		return SPEED_20000;
	case 0x40:
		return SPEED_40000;
	case 0x20:
		return SPEED_56000;
	default:
		return SPEED_UNKNOWN;
	}
}

static inline u8 cxb_mlx4_query_port_connector(const void *port_ctx)
{
	u8 t = ((const u8 *)port_ctx)[CXB_MLX4_QUERY_PORT_TRANSCEIVER];

	if (t > 0 && t <= 0xc)
		return PORT_FIBRE;
	if (t == 0 || t == 0x80)
		return PORT_TP;
	return PORT_OTHER;
}

static void cxb_mlx4_get_link_info(struct cxb_adev *cadev,
				   struct cxb_link_info *li)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	struct mlx4_dev *dev = port->mdev->dev;
	struct mlx4_cmd_mailbox *mailbox;

	mailbox = mlx4_alloc_cmd_mailbox(dev);
	if (IS_ERR(mailbox))
		return;
	if (!mlx4_cmd_box(dev, 0, mailbox->dma, port->num, 0,
			  MLX4_CMD_QUERY_PORT, MLX4_CMD_TIME_CLASS_B,
			  MLX4_CMD_WRAPPED)) {
		li->speed = cxb_mlx4_query_port_speed(mailbox->buf);
		li->port = cxb_mlx4_query_port_connector(mailbox->buf);
	}
	mlx4_free_cmd_mailbox(dev, mailbox);
}

void cxb_mlx4_port_link_event(struct cxb_mlx4_port *port, bool up)
{
	unsigned long flags;

	spin_lock_irqsave(&port->link_lock, flags);
	port->link_up = up;
	if (port->link_cb)
		port->link_cb(port->link_ctx);
	spin_unlock_irqrestore(&port->link_lock, flags);
}

static void cxb_mlx4_qp_event(struct mlx4_qp *qp, enum mlx4_event type)
{
	pr_warn_ratelimited(CXB_MLX4_DRV ": QP 0x%x: async event %d\n",
			    qp->qpn, type);
}

static void cxb_mlx4_qpc_cfg_init(struct cxb_mlx4_port *port,
				  struct cxb_mlx4_qpc_cfg *cfg, u32 qpn,
				  u32 cqn)
{
	struct mlx4_dev *dev = port->mdev->dev;

	memset(cfg, 0, sizeof(*cfg));
	cfg->qpn = qpn;
	cfg->cqn = cqn;
	cfg->pdn = port->mdev->pdn;
	cfg->uar_index = mlx4_to_hw_uar_index(dev, port->mdev->uar.index);
	cfg->port = port->num;
	cfg->counter_index = mlx4_get_default_counter_index(dev, port->num);
	cfg->db_dma = port->res.db.dma;
}

/* Register the core's contiguous ring at @dma (@size bytes) with an MTT. */
static int cxb_mlx4_mtt_map(struct mlx4_dev *dev, struct mlx4_mtt *mtt,
			    dma_addr_t dma, size_t size)
{
	unsigned int n = cxb_mlx4_mtt_npages(size, PAGE_SHIFT);
	u64 *list;
	int err;

	list = kcalloc(n, sizeof(*list), GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cxb_mlx4_mtt_fill(list, dma, size, PAGE_SHIFT);
	err = mlx4_mtt_init(dev, n, PAGE_SHIFT, mtt);
	if (!err) {
		err = mlx4_write_mtt(dev, mtt, 0, n, list);
		if (err)
			mlx4_mtt_cleanup(dev, mtt);
	}
	kfree(list);
	return err;
}

static void cxb_mlx4_qp_destroy(struct mlx4_dev *dev, struct mlx4_qp *qp,
				enum mlx4_qp_state *state)
{
	if (*state != MLX4_QP_STATE_RST)
		mlx4_qp_modify(dev, NULL, *state, MLX4_QP_STATE_RST, NULL, 0, 0,
			       qp);
	*state = MLX4_QP_STATE_RST;
	mlx4_qp_remove(dev, qp);
	mlx4_qp_free(dev, qp);
}

/* Point the RSS QP at the receive QPs that exist now (channels 0..n-1,
 * the largest power of two of them, at most @rss_rings) with @rss_key.
 * Port lock held, port open.
 */
static int cxb_mlx4_rss_apply(struct cxb_mlx4_port *port)
{
	struct mlx4_dev *dev = port->mdev->dev;
	struct mlx4_qp_context *ctx;
	struct cxb_mlx4_qpc_cfg cfg;
	unsigned int live = 0;
	int err;

	while (live < CXB_MLX4_MAX_CHANNELS && port->rq[live])
		live++;
	if (port->rss_rings && live > port->rss_rings)
		live = port->rss_rings;
	if (port->rss_state != MLX4_QP_STATE_RST) {
		mlx4_qp_modify(dev, NULL, port->rss_state, MLX4_QP_STATE_RST,
			       NULL, 0, 0, &port->rss_qp);
		port->rss_state = MLX4_QP_STATE_RST;
	}
	if (!live)
		return 0;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	cxb_mlx4_qpc_cfg_init(port, &cfg, port->rss_qpn, port->rq[0]->cqn);
	cxb_mlx4_rss_qpc(ctx, &cfg, port->rx_base, cxb_mlx4_rss_log_n(live),
			 port->rss_key,
			 !!(dev->caps.flags & MLX4_DEV_CAP_FLAG_UDP_RSS));
	err = mlx4_qp_to_ready(dev, &port->res.mtt, ctx, &port->rss_qp,
			       &port->rss_state);
	kfree(ctx);
	if (err) {
		dev_err(&port->cadev.adev.dev,
			"RSS QP 0x%x to ready failed: %d\n", port->rss_qpn, err);
		if (port->rss_state != MLX4_QP_STATE_RST)
			mlx4_qp_modify(dev, NULL, port->rss_state,
				       MLX4_QP_STATE_RST, NULL, 0, 0,
				       &port->rss_qp);
		port->rss_state = MLX4_QP_STATE_RST;
	}
	return err;
}

/* Unicast steering of @mac to the RSS QP (B0 or device-managed; A0
 * steers by the MAC table's own QPN), as mlx4_en_uc_steer_add().
 */
static int cxb_mlx4_uc_steer_add(struct cxb_mlx4_port *port, const u8 *mac,
				 u64 *reg_id)
{
	struct mlx4_dev *dev = port->mdev->dev;
	struct mlx4_spec_list spec = {};
	struct mlx4_net_trans_rule rule = {
		.queue_mode = MLX4_NET_TRANS_Q_FIFO,
		.exclusive = 0,
		.allow_loopback = 1,
		.promisc_mode = MLX4_FS_REGULAR,
		.priority = MLX4_DOMAIN_NIC,
	};
	u8 gid[16];

	switch (dev->caps.steering_mode) {
	case MLX4_STEERING_MODE_B0:
		cxb_mlx4_steer_gid(gid, mac, port->num);
		return mlx4_unicast_attach(dev, &port->rss_qp, gid, 0,
					   MLX4_PROT_ETH);
	case MLX4_STEERING_MODE_DEVICE_MANAGED:
		rule.port = port->num;
		rule.qpn = port->rss_qpn;
		INIT_LIST_HEAD(&rule.list);
		spec.id = MLX4_NET_TRANS_RULE_ID_ETH;
		ether_addr_copy(spec.eth.dst_mac, mac);
		eth_broadcast_addr(spec.eth.dst_mac_msk);
		list_add_tail(&spec.list, &rule.list);
		return mlx4_flow_attach(dev, &rule, reg_id);
	default:
		return 0;
	}
}

static void cxb_mlx4_uc_steer_del(struct cxb_mlx4_port *port, const u8 *mac,
				  u64 reg_id)
{
	struct mlx4_dev *dev = port->mdev->dev;
	u8 gid[16];

	switch (dev->caps.steering_mode) {
	case MLX4_STEERING_MODE_B0:
		cxb_mlx4_steer_gid(gid, mac, port->num);
		mlx4_unicast_detach(dev, &port->rss_qp, gid, MLX4_PROT_ETH);
		break;
	case MLX4_STEERING_MODE_DEVICE_MANAGED:
		mlx4_flow_detach(dev, reg_id);
		break;
	default:
		break;
	}
}

/* The steering target: the MAC's QPN in A0 mode, else a reserved one. */
static int cxb_mlx4_rss_qpn_get(struct cxb_mlx4_port *port)
{
	struct mlx4_dev *dev = port->mdev->dev;

	port->rss_qpn_reserved = false;
	if (dev->caps.steering_mode == MLX4_STEERING_MODE_A0) {
		port->rss_qpn = mlx4_get_base_qpn(dev, port->num) +
				port->mac_index;
		return 0;
	}
	port->rss_qpn_reserved = true;
	return mlx4_qp_reserve_range(dev, 1, 1, &port->rss_qpn,
				     MLX4_RESERVE_A0_QP, MLX4_RES_USAGE_DRIVER);
}

static void cxb_mlx4_rss_qpn_put(struct cxb_mlx4_port *port)
{
	if (port->rss_qpn_reserved)
		mlx4_qp_release_range(port->mdev->dev, port->rss_qpn, 1);
	port->rss_qpn_reserved = false;
}

/* MTU and global pause; never per-priority pause (PFC). */
static int cxb_mlx4_set_port_general(struct cxb_mlx4_port *port)
{
	return mlx4_SET_PORT_general(port->mdev->dev, port->num,
				     cxb_mlx4_port_mtu(port->mtu),
				     port->pause_tx, 0, port->pause_rx, 0);
}

/* ---- Receive filter ------------------------------------------------------ */

/* An extra unicast address: registered in the port's MAC table and
 * steered to the RSS QP, as mlx4_en_do_uc_filter() adds one.
 */
static int cxb_mlx4_uc_add(struct cxb_mlx4_port *port, struct cxb_mlx4_addr *a)
{
	struct mlx4_dev *dev = port->mdev->dev;
	u64 mac = ether_addr_to_u64(a->mac);
	int err;

	err = mlx4_register_mac(dev, port->num, mac);
	if (err < 0)
		return err;
	err = cxb_mlx4_uc_steer_add(port, a->mac, &a->reg_id);
	if (err)
		mlx4_unregister_mac(dev, port->num, mac);
	return err;
}

static void cxb_mlx4_uc_del(struct cxb_mlx4_port *port,
			    const struct cxb_mlx4_addr *a)
{
	cxb_mlx4_uc_steer_del(port, a->mac, a->reg_id);
	mlx4_unregister_mac(port->mdev->dev, port->num,
			    ether_addr_to_u64(a->mac));
}

/* A multicast group attached to the RSS QP, as mlx4_en_do_multicast()
 * attaches one (the port in byte 5 of the GID for B0 steering).
 */
static int cxb_mlx4_mc_add(struct cxb_mlx4_port *port, struct cxb_mlx4_addr *a)
{
	u8 gid[16];

	cxb_mlx4_steer_gid(gid, a->mac, port->num);
	return mlx4_multicast_attach(port->mdev->dev, &port->rss_qp, gid,
				     port->num, 0, MLX4_PROT_ETH, &a->reg_id);
}

static void cxb_mlx4_mc_del(struct cxb_mlx4_port *port,
			    const struct cxb_mlx4_addr *a)
{
	u8 gid[16];

	cxb_mlx4_steer_gid(gid, a->mac, port->num);
	mlx4_multicast_detach(port->mdev->dev, &port->rss_qp, gid,
			      MLX4_PROT_ETH, a->reg_id);
}

static bool cxb_mlx4_addr_listed(const u8 (*list)[ETH_ALEN], unsigned int n,
				 const u8 *mac)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ether_addr_equal(list[i], mac))
			return true;
	return false;
}

static bool cxb_mlx4_addr_held(const struct cxb_mlx4_addr *t, unsigned int n,
			       const u8 *mac)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ether_addr_equal(t[i].mac, mac))
			return true;
	return false;
}

/* Remove the entries of table @t (@mc: the multicast one) that @want
 * does not list.
 */
static void cxb_mlx4_table_trim(struct cxb_mlx4_port *port,
				struct cxb_mlx4_addr *t, unsigned int *n,
				const u8 (*want)[ETH_ALEN], unsigned int n_want,
				bool mc)
{
	unsigned int i = 0;

	while (i < *n) {
		if (cxb_mlx4_addr_listed(want, n_want, t[i].mac)) {
			i++;
			continue;
		}
		if (mc)
			cxb_mlx4_mc_del(port, &t[i]);
		else
			cxb_mlx4_uc_del(port, &t[i]);
		t[i] = t[--*n];
	}
}

/* Add what @want lists and table @t lacks; after cxb_mlx4_table_trim()
 * the table has room. The first error stops it.
 */
static int cxb_mlx4_table_fill(struct cxb_mlx4_port *port,
			       struct cxb_mlx4_addr *t, unsigned int *n,
			       const u8 (*want)[ETH_ALEN], unsigned int n_want,
			       bool mc)
{
	unsigned int i;
	int err;

	for (i = 0; i < n_want; i++) {
		struct cxb_mlx4_addr *a = &t[*n];

		if (cxb_mlx4_addr_held(t, *n, want[i]))
			continue;
		ether_addr_copy(a->mac, want[i]);
		a->reg_id = 0;
		err = mc ? cxb_mlx4_mc_add(port, a) : cxb_mlx4_uc_add(port, a);
		if (err)
			return err;
		(*n)++;
	}
	return 0;
}

/* The port's own address becomes @mac: registered and steered before
 * the old one goes (mlx4_en_replace_mac(), B0 and device-managed), so a
 * failure leaves the old one in place.
 */
static int cxb_mlx4_replace_mac(struct cxb_mlx4_port *port, const u8 *mac)
{
	struct mlx4_dev *dev = port->mdev->dev;
	u64 reg_id = 0;
	int idx, err;

	idx = mlx4_register_mac(dev, port->num, ether_addr_to_u64(mac));
	if (idx < 0)
		return idx;
	err = cxb_mlx4_uc_steer_add(port, mac, &reg_id);
	if (err) {
		mlx4_unregister_mac(dev, port->num, ether_addr_to_u64(mac));
		return err;
	}
	cxb_mlx4_uc_steer_del(port, port->mac, port->uc_reg_id);
	mlx4_unregister_mac(dev, port->num, ether_addr_to_u64(port->mac));
	ether_addr_copy(port->mac, mac);
	port->mac_index = idx;
	port->uc_reg_id = reg_id;
	return 0;
}

/* Unicast (@uc) or multicast promiscuous steering to the RSS QP, as
 * mlx4_en_set_promisc_mode() and mlx4_en_do_multicast() switch them.
 */
static int cxb_mlx4_promisc(struct cxb_mlx4_port *port, bool uc, bool on)
{
	struct mlx4_dev *dev = port->mdev->dev;
	enum mlx4_net_trans_promisc_mode mode;

	switch (dev->caps.steering_mode) {
	case MLX4_STEERING_MODE_DEVICE_MANAGED:
		mode = uc ? MLX4_FS_ALL_DEFAULT : MLX4_FS_MC_DEFAULT;
		if (on)
			return mlx4_flow_steer_promisc_add(dev, port->num,
							   port->rss_qpn,
							   mode);
		return mlx4_flow_steer_promisc_remove(dev, port->num, mode);
	case MLX4_STEERING_MODE_B0:
		if (uc && on)
			return mlx4_unicast_promisc_add(dev, port->rss_qpn,
							port->num);
		if (uc)
			return mlx4_unicast_promisc_remove(dev, port->rss_qpn,
							   port->num);
		if (on)
			return mlx4_multicast_promisc_add(dev, port->rss_qpn,
							  port->num);
		return mlx4_multicast_promisc_remove(dev, port->rss_qpn,
						     port->num);
	default:
		return -EOPNOTSUPP;
	}
}

static int cxb_mlx4_promisc_set(struct cxb_mlx4_port *port, bool uc,
				bool on)
{
	bool *state = uc ? &port->uc_promisc : &port->mc_promisc;
	int err;

	if (*state == on)
		return 0;
	err = cxb_mlx4_promisc(port, uc, on);
	if (err) {
		dev_err(&port->cadev.adev.dev, "%s promiscuous mode %s failed: %d\n",
			uc ? "unicast" : "multicast", on ? "on" : "off", err);
		return err;
	}
	*state = on;
	return 0;
}

/* The port's multicast filter (SET_MCAST_FLTR), as mlx4_en_do_multicast()
 * programs it: off in multicast promiscuous mode, else flushed, the
 * broadcast address and each group configured, and on.
 */
static void cxb_mlx4_mcast_fltr(struct cxb_mlx4_port *port)
{
	struct mlx4_dev *dev = port->mdev->dev;
	unsigned int i;

	mlx4_SET_MCAST_FLTR(dev, port->num, 0, 0, CXB_MLX4_MCAST_DISABLE);
	if (port->mc_promisc)
		return;
	mlx4_SET_MCAST_FLTR(dev, port->num, CXB_MLX4_ETH_BCAST, 1,
			    CXB_MLX4_MCAST_CONFIG);
	for (i = 0; i < port->n_mc; i++)
		mlx4_SET_MCAST_FLTR(dev, port->num,
				    ether_addr_to_u64(port->mc[i].mac), 0,
				    CXB_MLX4_MCAST_CONFIG);
	mlx4_SET_MCAST_FLTR(dev, port->num, 0, 0, CXB_MLX4_MCAST_ENABLE);
}

/* Everything set_rx_filter added goes (close); the next open starts
 * from nothing whatever failed here. Port lock held.
 */
static void cxb_mlx4_filter_clear(struct cxb_mlx4_port *port)
{
	cxb_mlx4_promisc_set(port, true, false);
	cxb_mlx4_promisc_set(port, false, false);
	port->uc_promisc = false;
	port->mc_promisc = false;
	cxb_mlx4_table_trim(port, port->mc, &port->n_mc, NULL, 0, true);
	cxb_mlx4_table_trim(port, port->uc, &port->n_uc, NULL, 0, false);
}

/* ---- Backend operations ------------------------------------------------- */

static int cxb_mlx4_open(struct cxb_adev *cadev, cxb_link_fn link_cb,
			 void *ctx)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	struct mlx4_dev *dev = port->mdev->dev;
	struct device *d = &cadev->adev.dev;
	unsigned long flags;
	u8 gid[16];
	int err;

	mutex_lock(&port->lock);
	err = mlx4_register_mac(dev, port->num, ether_addr_to_u64(port->mac));
	if (err < 0) {
		dev_err(d, "MAC %pM registration failed: %d\n", port->mac, err);
		goto out;
	}
	port->mac_index = err;
	err = cxb_mlx4_rss_qpn_get(port);
	if (err)
		goto err_mac;
	err = mlx4_qp_alloc(dev, port->rss_qpn, &port->rss_qp);
	if (err)
		goto err_qpn;
	port->rss_qp.event = cxb_mlx4_qp_event;
	port->rss_state = MLX4_QP_STATE_RST;
	port->open = true;
	err = cxb_mlx4_rss_apply(port);
	if (err)
		goto err_qp;
	err = cxb_mlx4_uc_steer_add(port, port->mac, &port->uc_reg_id);
	if (err) {
		dev_err(d, "unicast steering failed: %d\n", err);
		goto err_qp;
	}
	err = mlx4_SET_PORT_qpn_calc(dev, port->num, port->rss_qpn, 0);
	if (err)
		goto err_uc;
	err = cxb_mlx4_set_port_general(port);
	if (err) {
		dev_err(d, "SET_PORT general failed: %d\n", err);
		goto err_uc;
	}
	err = mlx4_INIT_PORT(dev, port->num);
	if (err) {
		dev_err(d, "INIT_PORT failed: %d\n", err);
		goto err_uc;
	}
	cxb_mlx4_steer_gid(gid, port->cadev.mac, port->num);
	eth_broadcast_addr(&gid[10]);
	err = mlx4_multicast_attach(dev, &port->rss_qp, gid, port->num, 0,
				    MLX4_PROT_ETH, &port->bcast_reg_id);
	if (err) {
		dev_err(d, "broadcast steering failed: %d\n", err);
		goto err_port;
	}
	/* Events report changes from now on; the link may be up already
	 * (another function or RoCE keeps the port initialised).
	 */
	spin_lock_irqsave(&port->link_lock, flags);
	port->link_cb = link_cb;
	port->link_ctx = ctx;
	spin_unlock_irqrestore(&port->link_lock, flags);
	cxb_mlx4_port_link_event(port, cxb_mlx4_query_link(port));
	mutex_unlock(&port->lock);
	return 0;

err_port:
	mlx4_CLOSE_PORT(dev, port->num);
err_uc:
	cxb_mlx4_uc_steer_del(port, port->mac, port->uc_reg_id);
err_qp:
	port->open = false;
	cxb_mlx4_qp_destroy(dev, &port->rss_qp, &port->rss_state);
err_qpn:
	cxb_mlx4_rss_qpn_put(port);
err_mac:
	mlx4_unregister_mac(dev, port->num, ether_addr_to_u64(port->mac));
out:
	mutex_unlock(&port->lock);
	return err;
}

static void cxb_mlx4_close(struct cxb_adev *cadev)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	struct mlx4_dev *dev = port->mdev->dev;
	unsigned long flags;
	u8 gid[16];

	spin_lock_irqsave(&port->link_lock, flags);
	port->link_cb = NULL;
	port->link_ctx = NULL;
	spin_unlock_irqrestore(&port->link_lock, flags);

	mutex_lock(&port->lock);
	cxb_mlx4_filter_clear(port);
	cxb_mlx4_steer_gid(gid, port->cadev.mac, port->num);
	eth_broadcast_addr(&gid[10]);
	mlx4_multicast_detach(dev, &port->rss_qp, gid, MLX4_PROT_ETH,
			      port->bcast_reg_id);
	mlx4_CLOSE_PORT(dev, port->num);
	cxb_mlx4_uc_steer_del(port, port->mac, port->uc_reg_id);
	port->open = false;
	cxb_mlx4_qp_destroy(dev, &port->rss_qp, &port->rss_state);
	cxb_mlx4_rss_qpn_put(port);
	mlx4_unregister_mac(dev, port->num, ether_addr_to_u64(port->mac));
	mutex_unlock(&port->lock);
}

/* Unwanted entries go first, then the own address moves, then new
 * entries come: an address moving between the own slot and the extra
 * list is never detached after it was attached. An address the device
 * does not take turns the port promiscuous instead, as mlx4_en does
 * (MLX4_EN_FLAG_FORCE_PROMISC).
 */
static int cxb_mlx4_set_rx_filter(struct cxb_adev *cadev,
				  const struct cxb_rx_filter *f)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	struct device *d = &cadev->adev.dev;
	bool force = false;
	int err = 0;

	if (!f->n_uc || f->n_uc > cadev->max_uc || f->n_mc > cadev->max_mc)
		return -EINVAL;
	mutex_lock(&port->lock);
	if (!port->open) {
		err = -ENETDOWN;
		goto out;
	}
	cxb_mlx4_table_trim(port, port->uc, &port->n_uc, f->uc + 1,
			    f->n_uc - 1, false);
	cxb_mlx4_table_trim(port, port->mc, &port->n_mc, f->mc, f->n_mc,
			    true);
	if (!ether_addr_equal(f->uc[0], port->mac)) {
		err = cxb_mlx4_replace_mac(port, f->uc[0]);
		if (err) {
			dev_err(d, "MAC %pM registration failed: %d\n",
				f->uc[0], err);
			goto out;
		}
	}
	err = cxb_mlx4_table_fill(port, port->uc, &port->n_uc, f->uc + 1,
				  f->n_uc - 1, false);
	if (!err)
		err = cxb_mlx4_table_fill(port, port->mc, &port->n_mc, f->mc,
					  f->n_mc, true);
	if (err) {
		dev_warn(d, "receive filter: an address was refused (%d): promiscuous\n",
			 err);
		force = true;
	}
	err = cxb_mlx4_promisc_set(port, true, f->promisc || force);
	if (!err)
		err = cxb_mlx4_promisc_set(port, false,
					   f->promisc || f->allmulti || force);
	cxb_mlx4_mcast_fltr(port);
out:
	mutex_unlock(&port->lock);
	return err;
}

static bool cxb_mlx4_link_up(struct cxb_adev *cadev)
{
	return READ_ONCE(to_cxb_mlx4_port(cadev)->link_up);
}

static int cxb_mlx4_set_mtu(struct cxb_adev *cadev, unsigned int mtu)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	unsigned int old;
	int err = 0;

	mutex_lock(&port->lock);
	old = port->mtu;
	port->mtu = mtu;
	if (port->open) {
		err = cxb_mlx4_set_port_general(port);
		if (err)
			port->mtu = old;
	}
	mutex_unlock(&port->lock);
	return err;
}

static void cxb_mlx4_get_pause(struct cxb_adev *cadev, bool *rx, bool *tx)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);

	mutex_lock(&port->lock);
	*rx = port->pause_rx;
	*tx = port->pause_tx;
	mutex_unlock(&port->lock);
}

static int cxb_mlx4_set_pause(struct cxb_adev *cadev, bool rx, bool tx)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	bool old_rx, old_tx;
	int err = 0;

	mutex_lock(&port->lock);
	old_rx = port->pause_rx;
	old_tx = port->pause_tx;
	port->pause_rx = rx;
	port->pause_tx = tx;
	if (port->open) {
		err = cxb_mlx4_set_port_general(port);
		if (err) {
			port->pause_rx = old_rx;
			port->pause_tx = old_tx;
		}
	}
	mutex_unlock(&port->lock);
	return err;
}

/* Called by mlx4_core's EQ handler in hard interrupt context; the CQ was
 * armed once and is disarmed now.
 */
static void cxb_mlx4_cq_comp(struct mlx4_cq *mcq)
{
	struct cxb_mlx4_cq *cq = container_of(mcq, struct cxb_mlx4_cq, mcq);

	cq->comp(cq->comp_ctx);
}

static void cxb_mlx4_cq_event(struct mlx4_cq *mcq, enum mlx4_event type)
{
	pr_warn_ratelimited(CXB_MLX4_DRV ": CQ 0x%x: async event %d\n",
			    mcq->cqn, type);
}

static int cxb_mlx4_cq_create(struct cxb_adev *cadev,
			      const struct cxb_cq_params *p,
			      struct cxb_cq_hw *hw)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	struct cxb_mlx4_dev *mdev = port->mdev;
	struct mlx4_dev *dev = mdev->dev;
	/* The core initialised the CQEs itself, to the 0xcc firmware
	 * wants with MLX4_DEV_CAP_FLAG2_SW_CQ_INIT: mlx4_core must not (an
	 * empty buffer description makes its software init a no-op).
	 */
	struct mlx4_buf no_init = {};
	unsigned int nent = 1U << p->log_entries;
	struct cxb_mlx4_cq *cq;
	int err;

	if (p->cqe_size != dev->caps.cqe_size)
		return -EOPNOTSUPP;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return -ENOMEM;
	err = cxb_mlx4_mtt_map(dev, &cq->mtt, p->buf_dma,
			       (size_t)nent * p->cqe_size);
	if (err)
		goto err_free;
	cq->vector = p->channel;
	err = mlx4_assign_eq(dev, port->num, &cq->vector);
	if (err)
		goto err_mtt;
	cq->comp = p->comp;
	cq->comp_ctx = p->comp_ctx;
	cq->mcq.usage = MLX4_RES_USAGE_DRIVER;
	err = mlx4_cq_alloc(dev, nent, &cq->mtt, &mdev->uar, p->db_dma,
			    &cq->mcq, cq->vector, 0, 0, &no_init, false);
	if (err)
		goto err_eq;
	cq->mcq.comp = cxb_mlx4_cq_comp;
	cq->mcq.event = cxb_mlx4_cq_event;
	/* mlx4_en, en_netdev.c mlx4_en_start_port(): the moderation right
	 * after SW2HW_CQ, before the first arm
	 */
	err = mlx4_cq_modify(dev, &cq->mcq, p->moder_cnt, p->moder_usecs);
	if (err)
		goto err_cq;

	hw->cqn = cq->mcq.cqn;
	hw->db_reg = cxb_mlx4_cq_db_reg(mdev->uar_map);
	hw->priv = cq;
	return 0;

err_cq:
	mlx4_cq_free(dev, &cq->mcq);
err_eq:
	mlx4_release_eq(dev, cq->vector);
err_mtt:
	mlx4_mtt_cleanup(dev, &cq->mtt);
err_free:
	kfree(cq);
	return err;
}

static void cxb_mlx4_cq_destroy(struct cxb_adev *cadev, struct cxb_cq_hw *hw)
{
	struct mlx4_dev *dev = to_cxb_mlx4_port(cadev)->mdev->dev;
	struct cxb_mlx4_cq *cq = hw->priv;

	mlx4_cq_free(dev, &cq->mcq);
	mlx4_release_eq(dev, cq->vector);
	mlx4_mtt_cleanup(dev, &cq->mtt);
	kfree(cq);
	hw->priv = NULL;
}

static int cxb_mlx4_cq_moderate(struct cxb_adev *cadev, struct cxb_cq_hw *hw,
				u16 count, u16 usecs)
{
	struct mlx4_dev *dev = to_cxb_mlx4_port(cadev)->mdev->dev;
	struct cxb_mlx4_cq *cq = hw->priv;

	return mlx4_cq_modify(dev, &cq->mcq, count, usecs);
}

static int cxb_mlx4_sq_create(struct cxb_adev *cadev,
			      const struct cxb_sq_params *p,
			      struct cxb_sq_hw *hw)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	struct cxb_mlx4_dev *mdev = port->mdev;
	struct mlx4_dev *dev = mdev->dev;
	struct mlx4_qp_context *ctx;
	struct cxb_mlx4_qpc_cfg cfg;
	void __iomem *uar_map;
	struct cxb_mlx4_sq *sq;
	int qpn, err;

	sq = kzalloc(sizeof(*sq), GFP_KERNEL);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!sq || !ctx) {
		err = -ENOMEM;
		goto err_free;
	}
	err = mlx4_qp_reserve_range(dev, 1, 1, &qpn, MLX4_RESERVE_ETH_BF_QP,
				    MLX4_RES_USAGE_DRIVER);
	if (err)
		goto err_free;
	err = cxb_mlx4_mtt_map(dev, &sq->mtt, p->buf_dma,
			       (size_t)1 << (p->log_entries + p->log_stride));
	if (err)
		goto err_qpn;
	err = mlx4_qp_alloc(dev, qpn, &sq->qp);
	if (err)
		goto err_mtt;
	sq->qp.event = cxb_mlx4_qp_event;
	sq->state = MLX4_QP_STATE_RST;

	cxb_mlx4_qpc_cfg_init(port, &cfg, qpn, p->cqn);
	cfg.log_size = p->log_entries;
	cfg.log_stride = p->log_stride;
	cfg.fpp = dev->caps.flags2 & MLX4_DEV_CAP_FLAG2_PORT_REMAP;
	uar_map = mdev->uar_map;
	/* BlueFlame if the device has it; the QP then rings the doorbell of
	 * the BlueFlame register's own UAR page.
	 */
	if (cadev->bf_size)
		sq->bf_alloced = !mlx4_bf_alloc(dev, &sq->bf,
						dev_to_node(cadev->dma_dev));
	if (sq->bf_alloced) {
		uar_map = sq->bf.uar->map;
		cfg.uar_index = mlx4_to_hw_uar_index(dev, sq->bf.uar->index);
	}
	cxb_mlx4_sq_qpc(ctx, &cfg);
	err = mlx4_qp_to_ready(dev, &sq->mtt, ctx, &sq->qp, &sq->state);
	if (err)
		goto err_qp;
	kfree(ctx);

	hw->qpn = qpn;
	hw->db_reg = cxb_mlx4_send_db_reg(uar_map);
	hw->bf_reg = sq->bf_alloced ? sq->bf.reg : NULL;
	hw->bf_size = sq->bf_alloced ? sq->bf.buf_size : 0;
	hw->priv = sq;
	return 0;

err_qp:
	if (sq->bf_alloced)
		mlx4_bf_free(dev, &sq->bf);
	cxb_mlx4_qp_destroy(dev, &sq->qp, &sq->state);
err_mtt:
	mlx4_mtt_cleanup(dev, &sq->mtt);
err_qpn:
	mlx4_qp_release_range(dev, qpn, 1);
err_free:
	kfree(ctx);
	kfree(sq);
	return err;
}

static void cxb_mlx4_sq_destroy(struct cxb_adev *cadev, struct cxb_sq_hw *hw)
{
	struct mlx4_dev *dev = to_cxb_mlx4_port(cadev)->mdev->dev;
	struct cxb_mlx4_sq *sq = hw->priv;
	int qpn = sq->qp.qpn;

	cxb_mlx4_qp_destroy(dev, &sq->qp, &sq->state);
	if (sq->bf_alloced)
		mlx4_bf_free(dev, &sq->bf);
	mlx4_mtt_cleanup(dev, &sq->mtt);
	mlx4_qp_release_range(dev, qpn, 1);
	kfree(sq);
	hw->priv = NULL;
}

static int cxb_mlx4_rq_create(struct cxb_adev *cadev,
			      const struct cxb_rq_params *p,
			      struct cxb_rq_hw *hw)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	struct mlx4_dev *dev = port->mdev->dev;
	struct mlx4_qp_context *ctx;
	struct cxb_mlx4_qpc_cfg cfg;
	struct cxb_mlx4_rq *rq;
	int err;

	if (p->channel >= CXB_MLX4_MAX_CHANNELS)
		return -EINVAL;
	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!rq || !ctx) {
		err = -ENOMEM;
		goto err_free;
	}
	rq->channel = p->channel;
	rq->cqn = p->cqn;
	/* the whole QP buffer: its send queue TXBB, then the RQ */
	err = cxb_mlx4_mtt_map(dev, &rq->mtt, p->buf_dma,
			       CXB_MLX4_RX_BUF_SIZE(1U << p->log_entries));
	if (err)
		goto err_free;
	err = mlx4_qp_alloc(dev, port->rx_base + p->channel, &rq->qp);
	if (err)
		goto err_mtt;
	rq->qp.event = cxb_mlx4_qp_event;
	rq->state = MLX4_QP_STATE_RST;

	cxb_mlx4_qpc_cfg_init(port, &cfg, rq->qp.qpn, p->cqn);
	cfg.log_size = p->log_entries;
	cfg.log_stride = p->log_stride;
	cfg.db_dma = p->db_dma;
	cxb_mlx4_rq_qpc(ctx, &cfg, p->vlan_strip);
	err = mlx4_qp_to_ready(dev, &rq->mtt, ctx, &rq->qp, &rq->state);
	if (err)
		goto err_qp;
	kfree(ctx);

	mutex_lock(&port->lock);
	port->rq[p->channel] = rq;
	/* A new receive QP while the port is open (channels or rings
	 * changed): spread over the receive QPs that exist now.
	 */
	if (port->open)
		cxb_mlx4_rss_apply(port);
	mutex_unlock(&port->lock);

	hw->qpn = rq->qp.qpn;
	hw->priv = rq;
	return 0;

err_qp:
	cxb_mlx4_qp_destroy(dev, &rq->qp, &rq->state);
err_mtt:
	mlx4_mtt_cleanup(dev, &rq->mtt);
err_free:
	kfree(ctx);
	kfree(rq);
	return err;
}

static void cxb_mlx4_rq_destroy(struct cxb_adev *cadev, struct cxb_rq_hw *hw)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	struct mlx4_dev *dev = port->mdev->dev;
	struct cxb_mlx4_rq *rq = hw->priv;

	mutex_lock(&port->lock);
	port->rq[rq->channel] = NULL;
	/* The datapath is being rebuilt with the port open (reset, channels,
	 * rings, MTU): the RSS QP must not spread frames over a receive QP
	 * that goes to reset and is freed. mlx4_en never leaves that window
	 * (en_netdev.c, mlx4_en_stop_port(): the indirection QP goes before
	 * the receive QPs). Back to reset until the next receive QP is
	 * created, which points it at the live ones again; frames meanwhile
	 * are dropped by the HCA.
	 */
	if (port->open && port->rss_state != MLX4_QP_STATE_RST) {
		mlx4_qp_modify(dev, NULL, port->rss_state, MLX4_QP_STATE_RST,
			       NULL, 0, 0, &port->rss_qp);
		port->rss_state = MLX4_QP_STATE_RST;
	}
	mutex_unlock(&port->lock);
	cxb_mlx4_qp_destroy(dev, &rq->qp, &rq->state);
	mlx4_mtt_cleanup(dev, &rq->mtt);
	kfree(rq);
	hw->priv = NULL;
}

/* Key and table into the RSS QP context, as mlx4_en_set_rxfh() does by
 * restarting the port (mlx4_en_config_rss_steer() writes rss_key and
 * log2(rss_rings) into the context): here the RSS QP alone goes through
 * reset with the new context. A table the QP cannot express is refused
 * (the core offers only those, cxb_adev.rss_pow2).
 */
static int cxb_mlx4_set_rss(struct cxb_adev *cadev, const struct cxb_rss *r)
{
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(cadev);
	u8 old_key[CXB_MLX4_RSS_KEY_SIZE];
	unsigned int rings, old_rings;
	int err;

	BUILD_BUG_ON(CXB_RSS_KEY_SIZE != CXB_MLX4_RSS_KEY_SIZE);
	rings = cxb_mlx4_rss_rings(r->table, CXB_RSS_TABLE_SIZE);
	if (!rings)
		return -EINVAL;
	mutex_lock(&port->lock);
	if (!port->open) {
		err = -ENETDOWN;
		goto out;
	}
	memcpy(old_key, port->rss_key, sizeof(old_key));
	old_rings = port->rss_rings;
	memcpy(port->rss_key, r->key, sizeof(port->rss_key));
	port->rss_rings = rings;
	err = cxb_mlx4_rss_apply(port);
	if (err) {
		memcpy(port->rss_key, old_key, sizeof(old_key));
		port->rss_rings = old_rings;
		cxb_mlx4_rss_apply(port);
	}
out:
	mutex_unlock(&port->lock);
	return err;
}

const struct cxb_backend_ops cxb_mlx4_ops = {
	.open		= cxb_mlx4_open,
	.close		= cxb_mlx4_close,
	.link_up	= cxb_mlx4_link_up,
	.set_mtu	= cxb_mlx4_set_mtu,
	.get_pause	= cxb_mlx4_get_pause,
	.set_pause	= cxb_mlx4_set_pause,
	.cq_create	= cxb_mlx4_cq_create,
	.cq_destroy	= cxb_mlx4_cq_destroy,
	.cq_moderate	= cxb_mlx4_cq_moderate,
	.sq_create	= cxb_mlx4_sq_create,
	.sq_destroy	= cxb_mlx4_sq_destroy,
	.rq_create	= cxb_mlx4_rq_create,
	.rq_destroy	= cxb_mlx4_rq_destroy,
	.set_rx_filter	= cxb_mlx4_set_rx_filter,
	.set_rss	= cxb_mlx4_set_rss,
	.get_link_info	= cxb_mlx4_get_link_info,
};
