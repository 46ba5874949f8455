// SPDX-License-Identifier: GPL-2.0
/* cxbell: netdev operations, channel life cycle, statistics. */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "cxbell.h"
#include "cxbell_txrx.h"

/* ---- Queue memory -------------------------------------------------------- */

/* The CQ's memory, no device object yet (cxb_cq_activate()). */
int cxb_cq_alloc(struct cxb_priv *priv, struct cxb_channel *ch,
		 struct cxb_cq *cq, u32 entries, u32 cqe_size)
{
	u32 i;

	cq->ch = ch;
	cq->gen = priv->cadev->gen;
	cq->size = entries;
	cq->cqe_size = cqe_size;
	cq->buf = dma_alloc_coherent(priv->dma_dev, entries * cqe_size,
				     &cq->buf_dma, GFP_KERNEL);
	if (!cq->buf)
		return -ENOMEM;
	cq->db_rec = dma_alloc_coherent(priv->dma_dev, 2 * sizeof(__be32),
					&cq->db_dma, GFP_KERNEL);
	if (!cq->db_rec) {
		dma_free_coherent(priv->dma_dev, entries * cqe_size, cq->buf,
				  cq->buf_dma);
		cq->buf = NULL;
		return -ENOMEM;
	}
	/* Lap 0 entries are owned by the device: owner bit set. mlx4 CQEs
	 * all 0xcc, owner bit included: the value ConnectX-3 firmware
	 * requires when the driver initialises the CQ (mlx4_core, cq.c:
	 * MLX4_DEV_CAP_FLAG2_SW_CQ_INIT, mlx4_init_kernel_cqes()).
	 */
	if (cqe_size == CXB_MLX5_CQE_SIZE) {
		for (i = 0; i < entries; i++)
			cq->buf64[i].op_own = CXB_MLX5_CQE_INIT;
	} else {
		BUILD_BUG_ON(!(0xcc & MLX4_CQE_OWNER_MASK));
		memset(cq->buf, 0xcc, (size_t)entries * cqe_size);
	}
	return 0;
}

/* The moderation ethtool -C set for @cq: the receive CQ's, or the send
 * side's for the send and XDP send CQs.
 */
static void cxb_cq_moder(const struct cxb_priv *priv, const struct cxb_cq *cq,
			 u16 *cnt, u16 *usecs)
{
	bool rx = cq == &cq->ch->rx_cq;

	*cnt = rx ? priv->rx_frames : priv->tx_frames;
	*usecs = rx ? priv->rx_usecs : priv->tx_usecs;
}

/* The device's CQ on the memory cxb_cq_alloc() set up. */
int cxb_cq_activate(struct cxb_priv *priv, struct cxb_cq *cq)
{
	struct cxb_cq_params p = {};
	int err;

	p.buf_dma = cq->buf_dma;
	p.db_dma = cq->db_dma;
	p.log_entries = ilog2(cq->size);
	p.cqe_size = cq->cqe_size;
	p.channel = cq->ch->idx;
	cxb_cq_moder(priv, cq, &p.moder_cnt, &p.moder_usecs);
	p.comp = cxb_comp_event;
	p.comp_ctx = cq;
	/* The first arm's sequence number: mlx4_core starts every CQ at 1
	 * (cq.c, mlx4_cq_alloc(); libmlx4 likewise), mlx5_core at 0.
	 */
	cq->arm_sn = priv->cadev->gen == CXB_GEN_CX5 ? 0 : 1;
	/* A new CQ is not armed: the first cxb_channel_arm() arms it. */
	cq->armed = false;
	err = priv->ops->cq_create(priv->cadev, &p, &cq->hw);
	if (err)
		return err;
	cq->cqn = cq->hw.cqn;
	cq->db_reg = cq->hw.db_reg;
	cq->created = true;
	return 0;
}

/* ethtool -C changed the moderation: apply it to every live CQ. RTNL
 * held. The first error is returned; the CQs it did not reach keep their
 * old moderation until the datapath is rebuilt.
 */
int cxb_apply_coalesce(struct cxb_priv *priv)
{
	unsigned int i;

	ASSERT_RTNL();
	for (i = 0; priv->ch && i < priv->num_ch; i++) {
		struct cxb_channel *ch = priv->ch[i];
		struct cxb_cq *cqs[] = { &ch->tx_cq, &ch->rx_cq, &ch->xdp_cq };
		unsigned int j;

		for (j = 0; j < ARRAY_SIZE(cqs); j++) {
			u16 cnt, usecs;
			int err;

			if (!cqs[j]->created)
				continue;
			cxb_cq_moder(priv, cqs[j], &cnt, &usecs);
			err = priv->ops->cq_moderate(priv->cadev, &cqs[j]->hw,
						     cnt, usecs);
			if (err)
				return err;
		}
	}
	return 0;
}

void cxb_cq_destroy(struct cxb_priv *priv, struct cxb_cq *cq)
{
	if (!cq->buf)
		return;
	if (cq->created)
		priv->ops->cq_destroy(priv->cadev, &cq->hw);
	cq->created = false;
	dma_free_coherent(priv->dma_dev, 2 * sizeof(__be32), cq->db_rec,
			  cq->db_dma);
	dma_free_coherent(priv->dma_dev, cq->size * cq->cqe_size, cq->buf,
			  cq->buf_dma);
	cq->buf = NULL;
}

/* Copy the netdev's doorbell policy into a ring. RTNL held; the caller
 * holds the queue's xmit lock if the ring is live.
 */
static void cxb_tx_ring_set_policy(struct cxb_priv *priv,
				   struct cxb_tx_ring *ring)
{
	ring->bf_on = priv->bf_on && ring->bf_reg;
	/* Raising it on a live ring is cxb_apply_tx_policy()'s: it did. */
	WRITE_ONCE(ring->db_locked, ring->bf_on || ring->gen == CXB_GEN_CX5);
	ring->inline_max = priv->tx_copybreak;
	ring->db_limit = min(priv->db_defer_max, ring->size / 4);
	WRITE_ONCE(ring->db_opt, priv->db_opt);
	ring->mpwqe_on = priv->mpwqe_on;
}

/* Send ring memory; the device's SQ comes with cxb_tx_activate(). */
static int cxb_tx_alloc(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_tx_ring *ring = &ch->tx;
	u32 size = ch->cfg.tx_ring_size;

	ring->size = size;
	ring->size_mask = size - 1;
	/* A WQE of N TXBBs carries at most 4N - 1 data segments. */
	ring->dma_mask = size * 4 - 1;
	ring->lkey = priv->cadev->lkey;
	ring->dma_dev = priv->dma_dev;
	ring->cadev = priv->cadev;
	ring->cq = &ch->tx_cq;
	ring->gen = priv->cadev->gen;
	ring->txq = netdev_get_tx_queue(priv->netdev, ch->idx);
	u64_stats_init(&ring->xstats_sync);
	u64_stats_init(&ring->cstats_sync);

	ring->tx_info = kvcalloc(size, sizeof(*ring->tx_info), GFP_KERNEL);
	ring->dma_fifo = kvcalloc(size * 4, sizeof(*ring->dma_fifo),
				  GFP_KERNEL);
	if (!ring->tx_info || !ring->dma_fifo)
		return -ENOMEM;
	ring->buf = dma_alloc_coherent(priv->dma_dev,
				       size << CXB_MLX4_TXBB_SHIFT,
				       &ring->buf_dma, GFP_KERNEL);
	if (!ring->buf)
		return -ENOMEM;
	/* Short frames are copied to a slot of their own: a slot per TXBB,
	 * on cx5 another per multi-packet WQE packet in flight (up to a
	 * ring's worth). Without the buffer they are mapped like the others.
	 */
	ring->bounce_slots = ring->gen == CXB_GEN_CX5 ? 2 * size : size;
	ring->bounce = dma_alloc_coherent(priv->dma_dev,
					  ring->bounce_slots <<
					  CXB_TX_BOUNCE_SHIFT,
					  &ring->bounce_dma,
					  GFP_KERNEL | __GFP_NOWARN);
	ring->bounce_max = ring->bounce ? CXB_TX_BOUNCE_SIZE : 0;
	cxb_tx_ring_init(ring);
	if (ring->gen == CXB_GEN_CX5)
		return cxb_mlx5_tx_alloc(priv, ring);
	return 0;
}

static int cxb_tx_activate(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_tx_ring *ring = &ch->tx;
	struct cxb_sq_params p = {};
	int err;

	if (ring->gen == CXB_GEN_CX5)
		p.db_dma = ring->db_dma;
	p.buf_dma = ring->buf_dma;
	p.log_entries = ilog2(ring->size);
	p.log_stride = CXB_MLX4_TXBB_SHIFT;
	p.cqn = ch->tx_cq.cqn;
	p.channel = ch->idx;
	err = priv->ops->sq_create(priv->cadev, &p, &ring->hw);
	if (err)
		return err;
	ring->created = true;
	ring->doorbell_qpn = cxb_mlx4_send_db_val(ring->hw.qpn);
	ring->db_reg = ring->hw.db_reg;
	if (ring->hw.bf_reg && ring->hw.bf_size >= CXB_MLX4_TXBB_SIZE) {
		ring->bf_reg = ring->hw.bf_reg;
		ring->bf_size = min_t(u32, ring->hw.bf_size, CXB_MLX4_MAX_BF);
	}
	cxb_tx_ring_set_policy(priv, ring);
	return 0;
}

/* Apply a changed doorbell policy to the running rings, under traffic. */
void cxb_apply_tx_policy(struct cxb_priv *priv)
{
	bool sync = false;
	unsigned int i;

	ASSERT_RTNL();
	/* Completion doorbells go under the xmit lock before xmit may use
	 * BlueFlame: a completion that read db_locked clear runs in NAPI
	 * (BHs off) or netpoll (IRQs off), an RCU read-side section either
	 * way, so after synchronize_net() none still rings without the lock.
	 * Lowered only with bf_on cleared, under the lock.
	 */
	for (i = 0; priv->ch && i < priv->num_ch; i++) {
		struct cxb_tx_ring *ring = &priv->ch[i]->tx;

		if (priv->bf_on && ring->bf_reg && !ring->db_locked) {
			WRITE_ONCE(ring->db_locked, true);
			sync = true;
		}
	}
	if (sync)
		synchronize_net();
	for (i = 0; priv->ch && i < priv->num_ch; i++) {
		struct cxb_tx_ring *ring = &priv->ch[i]->tx;

		__netif_tx_lock_bh(ring->txq);
		cxb_tx_ring_set_policy(priv, ring);
		/* Nobody will ring a doorbell avoidance deferred any more. */
		if (!(priv->db_opt & CXB_DB_OPT_AVOID))
			cxb_tx_flush_deferred(ring);
		__netif_tx_unlock_bh(ring->txq);
	}
}

static void cxb_tx_destroy(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_tx_ring *ring = &ch->tx;

	if (ring->created)
		priv->ops->sq_destroy(priv->cadev, &ring->hw);
	ring->created = false;
	if (ring->buf) {
		cxb_tx_ring_drain(ring);
		dma_free_coherent(priv->dma_dev, ring->size << CXB_MLX4_TXBB_SHIFT,
				  ring->buf, ring->buf_dma);
		ring->buf = NULL;
	}
	if (ring->bounce)
		dma_free_coherent(priv->dma_dev,
				  ring->bounce_slots << CXB_TX_BOUNCE_SHIFT,
				  ring->bounce, ring->bounce_dma);
	ring->bounce = NULL;
	cxb_mlx5_tx_free(priv, ring);
	kvfree(ring->dma_fifo);
	kvfree(ring->tx_info);
}

static u32 cxb_rx_page_order(unsigned int mtu)
{
	u32 need = CXB_RX_HEADROOM + mtu + ETH_HLEN + VLAN_HLEN +
		   SKB_DATA_ALIGN(sizeof(struct skb_shared_info));

	return get_order(need);
}

/* The ring's page_pool, mapping with the backend's DMA device (the device
 * the sim tracks mappings of), and its XDP memory model registration.
 */
static int cxb_rx_pool_create(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_rx_ring *ring = &ch->rx;
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.order = ring->page_order,
		.pool_size = ring->size,
		.nid = dev_to_node(priv->dma_dev),
		.dev = priv->dma_dev,
		/* XDP_TX sends from the page it received into */
		.dma_dir = priv->has_xdpsq ? DMA_BIDIRECTIONAL :
					     DMA_FROM_DEVICE,
		.offset = CXB_RX_HEADROOM,
		.max_len = ring->buf_len,
	};
	struct page_pool *pool;
	int err;

	pool = page_pool_create(&pp);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	ring->pool = pool;
	err = xdp_rxq_info_reg(&ring->xdp_rxq, priv->netdev, ch->idx,
			       ch->napi.napi_id);
	if (err)
		return err;
	return xdp_rxq_info_reg_mem_model(&ring->xdp_rxq, MEM_TYPE_PAGE_POOL,
					  pool);
}

/* The receive ring's buffer and doorbell record sizes (above). */
static size_t cxb_rx_buf_size(const struct cxb_priv *priv, u32 size)
{
	if (priv->cadev->gen == CXB_GEN_CX5)
		return (size_t)size << CXB_MLX5_RX_STRIDE_SHIFT;
	return CXB_MLX4_RX_BUF_SIZE(size);
}

/* Where the receive WQEs start in that buffer. */
static size_t cxb_rx_rq_offset(const struct cxb_priv *priv)
{
	return priv->cadev->gen == CXB_GEN_CX5 ? 0 : CXB_MLX4_RX_RQ_OFFSET;
}

static size_t cxb_rx_dbr_size(const struct cxb_priv *priv)
{
	return priv->cadev->gen == CXB_GEN_CX5 ? CXB_MLX5_DBR_SIZE :
						 sizeof(__be32);
}

/* Receive ring memory and its buffers, posted: everything that can fail
 * for want of memory or a DMA mapping, before the device is involved.
 */
static int cxb_rx_alloc(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_rx_ring *ring = &ch->rx;
	u32 size = ch->cfg.rx_ring_size;
	void *qp_buf;
	int err;

	ring->size = size;
	ring->size_mask = size - 1;
	ring->page_order = cxb_rx_page_order(ch->cfg.mtu);
	ring->buf_len = (PAGE_SIZE << ring->page_order) - CXB_RX_HEADROOM -
			SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	ring->lkey = priv->cadev->lkey;
	ring->dma_dev = priv->dma_dev;
	ring->cq = &ch->rx_cq;
	RCU_INIT_POINTER(ring->xdp_prog, priv->xdp_prog);
	u64_stats_init(&ring->stats_sync);

	ring->rx_info = kvcalloc(size, sizeof(*ring->rx_info), GFP_KERNEL);
	if (!ring->rx_info)
		return -ENOMEM;
	/* cx3: the QP buffer, the one-TXBB send queue, then the receive
	 * WQEs (wqe/mlx4.h); the send queue TXBB is stamped as never posted
	 * (mlx4_en, en_rx.c: "Stamp first unused send wqe"). cx5: the RQ's
	 * WQEs alone, and a doorbell record of two dwords (wqe/mlx5.h).
	 */
	qp_buf = dma_alloc_coherent(priv->dma_dev, cxb_rx_buf_size(priv, size),
				    &ring->buf_dma, GFP_KERNEL);
	if (!qp_buf)
		return -ENOMEM;
	if (priv->cadev->gen != CXB_GEN_CX5)
		*(__be32 *)qp_buf = cpu_to_be32(CXB_MLX4_OWNER_BIT);
	ring->buf = qp_buf + cxb_rx_rq_offset(priv);
	ring->db_rec = dma_alloc_coherent(priv->dma_dev,
					  cxb_rx_dbr_size(priv),
					  &ring->db_dma, GFP_KERNEL);
	if (!ring->db_rec)
		return -ENOMEM;
	err = cxb_rx_pool_create(priv, ch);
	if (err)
		return err;
	return cxb_rx_ring_fill(ring, GFP_KERNEL);
}

static int cxb_rx_activate(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_rx_ring *ring = &ch->rx;
	struct cxb_rq_params p = {};
	int err;

	p.buf_dma = ring->buf_dma;
	p.db_dma = ring->db_dma;
	p.log_entries = ilog2(ring->size);
	p.log_stride = priv->cadev->gen == CXB_GEN_CX5 ?
		       CXB_MLX5_RX_STRIDE_SHIFT : CXB_MLX4_RX_STRIDE_SHIFT;
	p.cqn = ch->rx_cq.cqn;
	p.channel = ch->idx;
	p.vlan_strip = ch->cfg.vlan_strip;
	err = priv->ops->rq_create(priv->cadev, &p, &ring->hw);
	if (err)
		return err;
	ring->created = true;
	return 0;
}

static void cxb_rx_destroy(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_rx_ring *ring = &ch->rx;

	if (ring->created)
		priv->ops->rq_destroy(priv->cadev, &ring->hw);
	ring->created = false;
	if (ring->rx_info && ring->pool)
		cxb_rx_ring_drain(ring);
	/* The pool goes once the pages in flight come back. */
	if (xdp_rxq_info_is_reg(&ring->xdp_rxq))
		xdp_rxq_info_unreg(&ring->xdp_rxq);
	if (ring->pool)
		page_pool_destroy(ring->pool);
	ring->pool = NULL;
	if (ring->db_rec)
		dma_free_coherent(priv->dma_dev, cxb_rx_dbr_size(priv),
				  ring->db_rec, ring->db_dma);
	if (ring->buf)
		dma_free_coherent(priv->dma_dev,
				  cxb_rx_buf_size(priv, ring->size),
				  (void *)ring->buf - cxb_rx_rq_offset(priv),
				  ring->buf_dma);
	kvfree(ring->rx_info);
}

/* ---- Channels -------------------------------------------------------------- */

/* Add the counters of @s to @sum, u64 by u64. */
static void cxb_stats_add(void *sum, const void *s, size_t size)
{
	const u64 *from = s;
	u64 *to = sum;

	for (; size; size -= sizeof(u64))
		*to++ += *from++;
}

static_assert(sizeof(struct cxb_tx_stats) % sizeof(u64) == 0);
static_assert(sizeof(struct cxb_rx_stats) % sizeof(u64) == 0);

/* A channel going away leaves its counts in the port's bases. */
static void cxb_fold_stats(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_tx_stats t;
	struct cxb_rx_stats r;

	cxb_get_tx_stats(&ch->tx, &t);
	cxb_get_xdpsq_stats(&ch->xdpsq, &t);
	cxb_get_rx_stats(&ch->rx, &r);
	cxb_stats_add(&priv->tx_base, &t, sizeof(t));
	cxb_stats_add(&priv->rx_base, &r, sizeof(r));
	priv->polls_base += ch->polls;
	priv->irqs_base += ch->tx_cq.irqs + ch->rx_cq.irqs + ch->xdp_cq.irqs;
}

static void cxb_channel_free(struct cxb_priv *priv, struct cxb_channel *ch)
{
	/* Device first: after these no DMA, CQE or interrupt. The XDP send
	 * queue gives its XDP_TX pages back before the receive pool goes.
	 */
	cxb_tx_destroy(priv, ch);
	cxb_xdpsq_destroy(priv, ch);
	cxb_rx_destroy(priv, ch);
	cxb_cq_destroy(priv, &ch->tx_cq);
	cxb_cq_destroy(priv, &ch->rx_cq);
	netif_napi_del(&ch->napi);
	kfree(ch);
}

/* A channel's memory, its receive buffers posted, and its NAPI instance
 * (not enabled): no device object, so a new set can be built while the
 * old one runs. Channel i of both sets share the stack's queue i, which
 * neither touches until it is live.
 */
static struct cxb_channel *cxb_channel_alloc(struct cxb_priv *priv,
					     unsigned int idx,
					     const struct cxb_dp_cfg *cfg)
{
	u32 cq_size = max(cfg->tx_ring_size, cfg->rx_ring_size);
	u32 cqe_size;
	struct cxb_channel *ch;
	int err;

	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return ERR_PTR(-ENOMEM);
	ch->priv = priv;
	ch->idx = idx;
	ch->cfg = *cfg;
	netif_napi_add(priv->netdev, &ch->napi,
		       priv->cadev->gen == CXB_GEN_CX5 ? cxb_mlx5_napi_poll :
		       cxb_mlx4_napi_poll);

	/* CQEs of the port's generation */
	cqe_size = priv->cadev->gen == CXB_GEN_CX5 ? CXB_MLX5_CQE_SIZE :
						     CXB_MLX4_CQE_SIZE;
	err = cxb_cq_alloc(priv, ch, &ch->tx_cq, cq_size, cqe_size);
	if (!err)
		err = cxb_cq_alloc(priv, ch, &ch->rx_cq, cq_size, cqe_size);
	if (!err)
		err = cxb_tx_alloc(priv, ch);
	if (!err)
		err = cxb_rx_alloc(priv, ch);
	if (!err && priv->has_xdpsq)
		err = cxb_xdpsq_alloc(priv, ch);
	if (err) {
		cxb_channel_free(priv, ch);
		return ERR_PTR(err);
	}
	return ch;
}

/* The device's queues for an allocated channel; cxb_channel_free()
 * destroys what was created if this fails.
 */
static int cxb_channel_activate(struct cxb_priv *priv, struct cxb_channel *ch)
{
	int err;

	err = cxb_cq_activate(priv, &ch->tx_cq);
	if (!err)
		err = cxb_cq_activate(priv, &ch->rx_cq);
	if (!err)
		err = cxb_tx_activate(priv, ch);
	if (!err)
		err = cxb_rx_activate(priv, ch);
	if (!err && priv->has_xdpsq)
		err = cxb_xdpsq_activate(priv, ch);
	return err;
}

static void cxb_channels_free(struct cxb_priv *priv, struct cxb_channel **chs,
			      unsigned int n)
{
	while (n--)
		cxb_channel_free(priv, chs[n]);
	kfree(chs);
}

/* Every channel of @cfg, allocated (cxb_channel_alloc()). */
static struct cxb_channel **cxb_channels_alloc(struct cxb_priv *priv,
					       const struct cxb_dp_cfg *cfg)
{
	struct cxb_channel **chs;
	unsigned int i;
	int err;

	chs = kcalloc(cfg->num_ch, sizeof(*chs), GFP_KERNEL);
	if (!chs)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < cfg->num_ch; i++) {
		chs[i] = cxb_channel_alloc(priv, i, cfg);
		if (IS_ERR(chs[i])) {
			err = PTR_ERR(chs[i]);
			cxb_channels_free(priv, chs, i);
			return ERR_PTR(err);
		}
	}
	return chs;
}

static void cxb_cur_cfg(struct cxb_priv *priv, struct cxb_dp_cfg *cfg)
{
	cfg->num_ch = priv->num_ch;
	cfg->tx_ring_size = priv->tx_ring_size;
	cfg->rx_ring_size = priv->rx_ring_size;
	cfg->mtu = priv->netdev->mtu;
	cfg->vlan_strip = priv->vlan_strip;
}

/* XPS: each send queue for the CPU its channel's completion vector
 * interrupts, the one ConnectX cores affine vector i to
 * (cpumask_local_spread(i) over the device's node: mlx4_en's
 * sp_affinity_mask of mlx4_en_create_tx_ring(), set with
 * netif_set_xps_queue() in mlx4_en_activate_tx_ring(); mlx5e_set_xps()).
 * Every datapath start sets it again, as mlx4_en at each port start.
 */
static void cxb_set_xps(struct cxb_priv *priv, unsigned int num_ch)
{
	int node = dev_to_node(priv->dma_dev);
	unsigned int i;
	int err;

	for (i = 0; i < num_ch; i++) {
		err = netif_set_xps_queue(priv->netdev,
					  cpumask_of(cpumask_local_spread(i, node)),
					  i);
		if (err) {
			netdev_warn(priv->netdev, "XPS of TX queue %u: %d\n", i,
				    err);
			return;
		}
	}
}

/* Make allocated channels the datapath (none may be live): the device's
 * queues, the stack's queue counts, then traffic. The configuration they
 * were built for becomes the port's. On failure the caller still owns
 * @chs (the device objects created are destroyed by cxb_channel_free()).
 * RTNL held.
 */
static int cxb_datapath_start(struct cxb_priv *priv, struct cxb_channel **chs,
			      const struct cxb_dp_cfg *cfg)
{
	struct net_device *dev = priv->netdev;
	struct cxb_xdp_chans *xc = NULL;
	unsigned int i;
	int err;

	/* ndo_xdp_xmit's view: the channels with the count they are for */
	if (priv->has_xdpsq) {
		xc = kzalloc(struct_size(xc, ch, cfg->num_ch), GFP_KERNEL);
		if (!xc)
			return -ENOMEM;
	}
	for (i = 0; i < cfg->num_ch; i++) {
		err = cxb_channel_activate(priv, chs[i]);
		if (err)
			goto err_xc;
	}
	err = netif_set_real_num_tx_queues(dev, cfg->num_ch);
	if (!err)
		err = netif_set_real_num_rx_queues(dev, cfg->num_ch);
	if (err)
		goto err_xc;
	cxb_set_xps(priv, cfg->num_ch);

	priv->tx_ring_size = cfg->tx_ring_size;
	priv->rx_ring_size = cfg->rx_ring_size;
	priv->vlan_strip = cfg->vlan_strip;
	spin_lock_bh(&priv->ch_lock);
	priv->num_ch = cfg->num_ch;
	priv->ch = chs;
	spin_unlock_bh(&priv->ch_lock);
	/* A table ethtool -X did not set follows the channel count (one
	 * it set names no channel beyond it: the ethtool core refuses such
	 * a count). An open port spreads over the new channels from now.
	 */
	if (priv->has_rss) {
		if (!netif_is_rxfh_configured(dev))
			cxb_rss_default_table(priv, cfg->num_ch);
		if (priv->port_open)
			cxb_rss_apply(priv);
	}

	for (i = 0; i < priv->num_ch; i++) {
		napi_enable(&chs[i]->napi);
		cxb_channel_arm(chs[i]);
		/* The watchdog times a fresh queue from now */
		txq_trans_cond_update(netdev_get_tx_queue(dev, i));
	}
	netif_tx_start_all_queues(dev);
	if (xc) {
		/* Redirects to this port may post now (cxb_xdp_xmit()):
		 * the channels are complete before they see the pointer.
		 */
		xc->num = priv->num_ch;
		memcpy(xc->ch, chs, priv->num_ch * sizeof(*chs));
		rcu_assign_pointer(priv->xdp_chans, xc);
	}
	/* cxb_datapath_down() stopped the stall watch; an open port has it */
	if (priv->port_open)
		schedule_delayed_work(&priv->watch_work, CXB_WATCH_PERIOD);
	return 0;

err_xc:
	kfree(xc);
	return err;
}

/* Bring the datapath up with the current configuration. RTNL held. */
static int cxb_datapath_up(struct cxb_priv *priv)
{
	struct cxb_channel **chs;
	struct cxb_dp_cfg cfg;
	int err;

	cxb_cur_cfg(priv, &cfg);
	chs = cxb_channels_alloc(priv, &cfg);
	if (IS_ERR(chs))
		return PTR_ERR(chs);
	err = cxb_datapath_start(priv, chs, &cfg);
	if (err)
		cxb_channels_free(priv, chs, cfg.num_ch);
	return err;
}

static void cxb_datapath_down(struct cxb_priv *priv)
{
	struct cxb_channel **chs = priv->ch;
	struct cxb_xdp_chans *xc;
	unsigned int i;

	/* The stall watch rings send doorbells: it stops before the first
	 * send queue goes (it never takes RTNL, so waiting is safe here).
	 * cxb_datapath_up() starts it again.
	 */
	cancel_delayed_work_sync(&priv->watch_work);
	/* A failed restart left no datapath */
	if (!chs)
		return;
	/* No new ndo_xdp_xmit; those running (RCU readers) finish first. */
	xc = rtnl_dereference(priv->xdp_chans);
	if (xc) {
		RCU_INIT_POINTER(priv->xdp_chans, NULL);
		synchronize_net();
		kfree(xc);
	}
	/* NAPI first: a poll still running could wake a queue that was
	 * just disabled, and the stack would transmit into freed channels.
	 */
	for (i = 0; i < priv->num_ch; i++)
		napi_disable(&chs[i]->napi);
	netif_tx_disable(priv->netdev);
	/* A reset asked for by these channels (no poll or xmit runs any
	 * more) is void: the work takes RTNL, so it cannot be waited for
	 * here; a pending one is dropped, a running one sees the new
	 * generation (cxb_reset_work()).
	 */
	WRITE_ONCE(priv->dp_gen, priv->dp_gen + 1);
	cancel_work(&priv->reset_work);
	for (i = 0; i < priv->num_ch; i++) {
		struct cxb_channel *ch = chs[i];

		if (ch->tx.created)
			priv->ops->sq_destroy(priv->cadev, &ch->tx.hw);
		ch->tx.created = false;
		if (ch->rx.created)
			priv->ops->rq_destroy(priv->cadev, &ch->rx.hw);
		ch->rx.created = false;
		cxb_xdpsq_hw_destroy(priv, ch);
		/* Completions the device wrote before it stopped, then what
		 * it will never complete: counted before the fold below.
		 */
		cxb_tx_flush_completions(ch);
		cxb_tx_ring_drain(&ch->tx);
	}
	spin_lock_bh(&priv->ch_lock);
	priv->ch = NULL;
	for (i = 0; i < priv->num_ch; i++)
		cxb_fold_stats(priv, chs[i]);
	spin_unlock_bh(&priv->ch_lock);

	for (i = 0; i < priv->num_ch; i++)
		cxb_channel_free(priv, chs[i]);
	kfree(chs);
}

static void cxb_link_work(struct work_struct *work)
{
	struct cxb_priv *priv = container_of(work, struct cxb_priv, link_work);

	if (priv->ops->link_up(priv->cadev))
		netif_carrier_on(priv->netdev);
	else
		netif_carrier_off(priv->netdev);
}

static void cxb_link_event(void *ctx)
{
	struct cxb_priv *priv = ctx;

	schedule_work(&priv->link_work);
}

/* ---- Receive filter ------------------------------------------------------ */

/* Entering or leaving the overflow of one table: counted and logged on
 * entry, once until the list fits again.
 */
static void cxb_filter_overflow(struct cxb_priv *priv, bool *state, bool now,
				u64 *count, const char *what,
				unsigned int n, unsigned int max)
{
	if (now == *state)
		return;
	*state = now;
	if (!now) {
		netdev_info(priv->netdev, "%s filter: %u addresses fit again\n",
			    what, n);
		return;
	}
	WRITE_ONCE(*count, *count + 1);
	netdev_warn(priv->netdev, "%s filter: %u addresses, the port holds %u: receiving every %s frame\n",
		    what, n, max, what);
}

/* Program the port's receive filter from the netdev's address lists and
 * flags, with @mac as the port's own address, as mlx4_en_do_set_rx_mode()
 * does: the unicast list beside the own address, the multicast list, and
 * promiscuous or all-multicast mode when the flags ask for it or a list
 * is longer than the device's table. RTNL held, port open.
 */
static int cxb_rx_filter_apply(struct cxb_priv *priv, const u8 *mac)
{
	const struct cxb_adev *cadev = priv->cadev;
	u8 (*uc)[ETH_ALEN] = priv->filter_addr;
	u8 (*mc)[ETH_ALEN] = uc + cadev->max_uc;
	struct net_device *dev = priv->netdev;
	struct cxb_rx_filter f = { .uc = uc, .mc = mc };
	struct netdev_hw_addr *ha;
	unsigned int n_uc, n_mc;
	int err;

	ASSERT_RTNL();
	ether_addr_copy(uc[0], mac);
	netif_addr_lock_bh(dev);
	/* the own address counts; a list entry equal to it takes no slot */
	n_uc = 1;
	netdev_for_each_uc_addr(ha, dev) {
		if (ether_addr_equal(ha->addr, mac))
			continue;
		if (n_uc < cadev->max_uc)
			ether_addr_copy(uc[n_uc], ha->addr);
		n_uc++;
	}
	/* a list that does not fit: the own address, and promisc below */
	f.n_uc = n_uc <= cadev->max_uc ? n_uc : 1;
	n_mc = netdev_mc_count(dev);
	if (n_mc <= cadev->max_mc)
		netdev_for_each_mc_addr(ha, dev)
			ether_addr_copy(mc[f.n_mc++], ha->addr);
	f.promisc = dev->flags & IFF_PROMISC;
	f.allmulti = dev->flags & IFF_ALLMULTI;
	netif_addr_unlock_bh(dev);

	cxb_filter_overflow(priv, &priv->uc_overflow, n_uc > cadev->max_uc,
			    &priv->uc_filter_overflow, "unicast", n_uc,
			    cadev->max_uc);
	cxb_filter_overflow(priv, &priv->mc_overflow, n_mc > cadev->max_mc,
			    &priv->mc_filter_overflow, "multicast", n_mc,
			    cadev->max_mc);
	f.promisc |= priv->uc_overflow;
	f.allmulti |= priv->mc_overflow;
	err = priv->ops->set_rx_filter(priv->cadev, &f);
	if (err)
		netdev_err(dev, "programming the receive filter failed: %d\n",
			   err);
	return err;
}

/* ndo_set_rx_mode runs with the address list lock held, bottom halves
 * off: the device is programmed from a work item (mlx4_en_set_rx_mode()).
 */
static void cxb_rx_mode_work(struct work_struct *work)
{
	struct cxb_priv *priv = container_of(work, struct cxb_priv,
					     rx_mode_work);

	rtnl_lock();
	if (priv->port_open)
		cxb_rx_filter_apply(priv, priv->netdev->dev_addr);
	rtnl_unlock();
}

static void cxb_set_rx_mode(struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);

	if (priv->rx_filter)
		schedule_work(&priv->rx_mode_work);
}

/* As mlx4_en_set_mac(): a multicast or zero address is refused; while
 * up, the device filter moves to the new address before the netdev does
 * (a refusal leaves both on the old one).
 */
static int cxb_set_mac_address(struct net_device *dev, void *addr)
{
	struct cxb_priv *priv = netdev_priv(dev);
	const struct sockaddr *sa = addr;
	int err;

	if (!is_valid_ether_addr(sa->sa_data))
		return -EADDRNOTAVAIL;
	if (netif_running(dev) && !priv->rx_filter)
		return -EBUSY;	/* the device would keep the old one */
	if (priv->port_open) {
		err = cxb_rx_filter_apply(priv, sa->sa_data);
		if (err)
			return err;
	}
	eth_hw_addr_set(dev, sa->sa_data);
	return 0;
}

/* ---- Receive side scaling ------------------------------------------------ */

/* The table ethtool -X default restores: every channel in turn, as
 * ethtool_rxfh_indir_default(); over the largest power of two of them
 * on a port that spreads over no other count (cxb_adev.rss_pow2), as
 * mlx4_en's RSS QP (mlx4_en_config_rss_steer(): ilog2 of rss_rings).
 */
void cxb_rss_default_table(struct cxb_priv *priv, unsigned int num_ch)
{
	unsigned int i;

	if (priv->cadev->rss_pow2)
		num_ch = rounddown_pow_of_two(num_ch);
	for (i = 0; i < CXB_RSS_TABLE_SIZE; i++)
		priv->rss.table[i] = ethtool_rxfh_indir_default(i, num_ch);
}

/* Can the port spread by @table with @num_ch channels? 0, or -EINVAL
 * with the reason in @why.
 */
int cxb_rss_check_table(struct cxb_priv *priv, const u32 *table,
			unsigned int num_ch, const char **why)
{
	unsigned int i, m;

	for (i = 0; i < CXB_RSS_TABLE_SIZE; i++) {
		if (table[i] >= num_ch) {
			*why = "RSS: the table names a queue that does not exist";
			return -EINVAL;
		}
	}
	if (!priv->cadev->rss_pow2)
		return 0;
	/* i % m for a power of two m: m is the first entry back at 0 */
	for (m = 1; m < CXB_RSS_TABLE_SIZE && table[m]; m++)
		;
	for (i = 0; i < CXB_RSS_TABLE_SIZE; i++) {
		if (!is_power_of_2(m) || table[i] != i % m) {
			*why = "RSS: only queues 0..n-1 in turn, n a power of two";
			return -EINVAL;
		}
	}
	return 0;
}

/* Program the key and table into an open port. RTNL held. */
int cxb_rss_apply(struct cxb_priv *priv)
{
	int err;

	if (!priv->has_rss)
		return 0;
	err = priv->ops->set_rss(priv->cadev, &priv->rss);
	if (err)
		netdev_err(priv->netdev, "cannot program RSS: %d\n", err);
	return err;
}

static int cxb_open(struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);
	int err;

	netif_carrier_off(dev);
	err = cxb_datapath_up(priv);
	if (err)
		return err;
	err = priv->ops->open(priv->cadev, cxb_link_event, priv);
	if (err) {
		cxb_datapath_down(priv);
		return err;
	}
	/* the port starts with nothing steered, everything to channel 0 */
	if (priv->rx_filter)
		err = cxb_rx_filter_apply(priv, dev->dev_addr);
	if (!err)
		err = cxb_rss_apply(priv);
	if (err) {
		priv->ops->close(priv->cadev);
		cxb_datapath_down(priv);
		return err;
	}
	priv->port_open = true;
	schedule_work(&priv->link_work);
	schedule_delayed_work(&priv->watch_work, CXB_WATCH_PERIOD);
	return 0;
}

static int cxb_stop(struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);

	cancel_delayed_work_sync(&priv->watch_work);
	priv->ops->close(priv->cadev);
	priv->port_open = false;
	cancel_work_sync(&priv->link_work);
	netif_carrier_off(dev);
	cxb_datapath_down(priv);
	return 0;
}

/* Program the port MTU (the backend filters received frames by it). */
static int cxb_port_set_mtu(struct cxb_priv *priv, unsigned int mtu)
{
	if (!priv->ops->set_mtu)
		return 0;
	return priv->ops->set_mtu(priv->cadev, mtu);
}

/* Replace the running datapath with one built for @cfg, in the manner of
 * fbnic (fbnic_netdev.c, fbnic_ethtool.c) and mlx4_en
 * (mlx4_en_try_alloc_resources(), mlx4_en_safe_replace_resources()):
 * every ring and receive buffer of the new set is allocated while the old
 * set runs, so a failed allocation leaves the old configuration running
 * untouched. Only then is the old set stopped and its device queues
 * destroyed, and the new set's created in their place (the device holds
 * one receive queue per channel, so the two sets' device objects cannot
 * coexist; that step allocates no ring memory). The port MTU changes in
 * between, when no receive queue exists: a larger one never meets the
 * smaller old buffers, a smaller one is in place before the new queues
 * see a frame. If the device refuses the new queues, the old
 * configuration comes back with a fresh set (a restart, as after a TX
 * fault). RTNL held, interface running.
 */
static int cxb_datapath_swap(struct cxb_priv *priv, const struct cxb_dp_cfg *cfg,
			     struct netlink_ext_ack *extack)
{
	struct net_device *dev = priv->netdev;
	unsigned int old_mtu = dev->mtu;
	struct cxb_channel **chs;
	int err, err2;

	chs = cxb_channels_alloc(priv, cfg);
	if (IS_ERR(chs)) {
		err = PTR_ERR(chs);
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot allocate the new rings; the old configuration stays");
		netdev_err(dev, "cannot allocate the new rings (%d); the old configuration stays\n",
			   err);
		return err;
	}
	cxb_datapath_down(priv);
	if (cfg->mtu != old_mtu) {
		err = cxb_port_set_mtu(priv, cfg->mtu);
		if (err)
			goto restore;
		WRITE_ONCE(dev->mtu, cfg->mtu);
	}
	err = cxb_datapath_start(priv, chs, cfg);
	if (!err)
		return 0;
	if (cfg->mtu != old_mtu) {
		WRITE_ONCE(dev->mtu, old_mtu);
		err2 = cxb_port_set_mtu(priv, old_mtu);
		if (err2)
			netdev_err(dev, "cannot restore the port MTU %u: %d\n",
				   old_mtu, err2);
	}
restore:
	cxb_channels_free(priv, chs, cfg->num_ch);
	NL_SET_ERR_MSG_MOD(extack,
			   "cannot start the new configuration; the old one is restored");
	err2 = cxb_datapath_up(priv);
	if (err2)
		netdev_err(dev, "cannot start the new configuration (%d), nor restore the old one (%d): no datapath\n",
			   err, err2);
	else
		netdev_err(dev, "cannot start the new configuration (%d); the old one is restored\n",
			   err);
	return err;
}

/* Apply a new channel count and ring sizes; a running interface swaps to
 * a new datapath (cxb_datapath_swap()) and keeps the old one on failure.
 */
int cxb_reconfigure(struct cxb_priv *priv, unsigned int num_ch,
		    unsigned int tx_size, unsigned int rx_size,
		    struct netlink_ext_ack *extack)
{
	struct cxb_dp_cfg cfg = {
		.num_ch = num_ch,
		.tx_ring_size = tx_size,
		.rx_ring_size = rx_size,
		.mtu = priv->netdev->mtu,
		.vlan_strip = priv->vlan_strip,
	};

	if (netif_running(priv->netdev))
		return cxb_datapath_swap(priv, &cfg, extack);
	priv->num_ch = num_ch;
	priv->tx_ring_size = tx_size;
	priv->rx_ring_size = rx_size;
	return 0;
}

static int cxb_change_mtu(struct net_device *dev, int new_mtu)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_dp_cfg cfg;
	int err;

	/* Single-page buffers while a program is attached. */
	if (priv->xdp_prog && cxb_xdp_check_mtu(priv, new_mtu, NULL))
		return -EINVAL;
	if (netif_running(dev)) {
		cxb_cur_cfg(priv, &cfg);
		cfg.mtu = new_mtu;
		/* ndo_change_mtu has no extack (6.1): the log says it */
		return cxb_datapath_swap(priv, &cfg, NULL);
	}
	err = cxb_port_set_mtu(priv, new_mtu);
	if (err)
		return err;
	WRITE_ONCE(dev->mtu, new_mtu);
	return 0;
}

/* ---- Statistics ------------------------------------------------------------ */

void cxb_get_tx_stats(const struct cxb_tx_ring *ring, struct cxb_tx_stats *s)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&ring->xstats_sync);
		s->x = ring->xstats;
	} while (u64_stats_fetch_retry(&ring->xstats_sync, start));
	do {
		start = u64_stats_fetch_begin(&ring->cstats_sync);
		s->c = ring->cstats;
	} while (u64_stats_fetch_retry(&ring->cstats_sync, start));
	/* Doorbells rung for deferred packets, by the completion handler or
	 * when avoidance was turned off, count in tx_doorbells too.
	 */
	s->c.doorbell_by_completion += s->x.doorbell_flushed;
	s->x.doorbells += s->c.doorbell_by_completion;
}

void cxb_get_rx_stats(const struct cxb_rx_ring *ring, struct cxb_rx_stats *s)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&ring->stats_sync);
		*s = ring->stats;
	} while (u64_stats_fetch_retry(&ring->stats_sync, start));
}

static void cxb_get_stats64(struct net_device *dev,
			    struct rtnl_link_stats64 *stats)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_port_stats ps;
	unsigned int i;

	spin_lock_bh(&priv->ch_lock);
	stats->tx_packets = priv->tx_base.x.packets;
	stats->tx_bytes = priv->tx_base.x.bytes;
	stats->tx_dropped = priv->tx_base.x.dropped;
	stats->tx_errors = priv->tx_base.c.err_cqe + priv->tx_base.xdp_err_cqe;
	stats->rx_packets = priv->rx_base.packets;
	stats->rx_bytes = priv->rx_base.bytes;
	stats->rx_dropped = priv->rx_base.dropped;
	stats->rx_crc_errors = priv->rx_base.crc_errors;
	for (i = 0; priv->ch && i < priv->num_ch; i++) {
		struct cxb_tx_stats t;
		struct cxb_rx_stats r;

		cxb_get_tx_stats(&priv->ch[i]->tx, &t);
		cxb_get_xdpsq_stats(&priv->ch[i]->xdpsq, &t);
		cxb_get_rx_stats(&priv->ch[i]->rx, &r);
		stats->tx_packets += t.x.packets;
		stats->tx_bytes += t.x.bytes;
		stats->tx_dropped += t.x.dropped;
		stats->tx_errors += t.c.err_cqe + t.xdp_err_cqe;
		stats->rx_packets += r.packets;
		stats->rx_bytes += r.bytes;
		stats->rx_dropped += r.dropped;
		stats->rx_crc_errors += r.crc_errors;
	}
	spin_unlock_bh(&priv->ch_lock);
	stats->tx_dropped += cxb_port_tx_dropped(priv);
	cxb_port_stats(priv, &ps);
	/* frames a cx5 port dropped for their FCS, no CQE */
	stats->rx_crc_errors += ps.rx_crc_errors;
	/* rx_errors covers rx_crc_errors (the only receive error counted) */
	stats->rx_errors = stats->rx_crc_errors;
	stats->rx_missed_errors = ps.rx_dropped;
}

#ifdef CXB_HAVE_NETDEV_STAT_OPS
/* The per-queue counters of the netdev family (qstats-get): queue i is
 * channel i, counting from the channel's creation (a reconfiguration
 * starts the queues afresh); the base has what channels gone before
 * counted, so that base and queues add up to ndo_get_stats64's packets
 * and bytes. XDP send queues are not the stack's: not in them, as not in
 * ndo_get_stats64. Called under RTNL, which keeps priv->ch as it is.
 */
static void cxb_qstats_rx(struct netdev_queue_stats_rx *q,
			  const struct cxb_rx_stats *s)
{
	q->packets = s->packets;
	q->bytes = s->bytes;
	q->alloc_fail = s->alloc_fail;
	q->csum_unnecessary = s->csum_unnecessary;
	q->csum_none = s->csum_none;
}

static void cxb_qstats_tx(struct netdev_queue_stats_tx *q,
			  const struct cxb_tx_stats *s)
{
	q->packets = s->x.packets;
	q->bytes = s->x.bytes;
	q->stop = s->x.queue_stopped;
	q->wake = s->c.wake_queue;
}

static void cxb_get_queue_stats_rx(struct net_device *dev, int idx,
				   struct netdev_queue_stats_rx *stats)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_rx_stats s;

	/* down: no channel, every count is in the base */
	if (!priv->ch || (unsigned int)idx >= priv->num_ch)
		return;
	cxb_get_rx_stats(&priv->ch[idx]->rx, &s);
	cxb_qstats_rx(stats, &s);
}

static void cxb_get_queue_stats_tx(struct net_device *dev, int idx,
				   struct netdev_queue_stats_tx *stats)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_tx_stats s;

	if (!priv->ch || (unsigned int)idx >= priv->num_ch)
		return;
	cxb_get_tx_stats(&priv->ch[idx]->tx, &s);
	cxb_qstats_tx(stats, &s);
}

static void cxb_get_base_stats(struct net_device *dev,
			       struct netdev_queue_stats_rx *rx,
			       struct netdev_queue_stats_tx *tx)
{
	struct cxb_priv *priv = netdev_priv(dev);

	spin_lock_bh(&priv->ch_lock);
	cxb_qstats_rx(rx, &priv->rx_base);
	cxb_qstats_tx(tx, &priv->tx_base);
	spin_unlock_bh(&priv->ch_lock);
}

static const struct netdev_stat_ops cxb_stat_ops = {
	.get_queue_stats_rx	= cxb_get_queue_stats_rx,
	.get_queue_stats_tx	= cxb_get_queue_stats_tx,
	.get_base_stats		= cxb_get_base_stats,
};
#endif

/* Packets dropped for want of a ring (cxb_tx_drop_no_ring()). */
u64 cxb_port_tx_dropped(struct cxb_priv *priv)
{
	return atomic64_read(&priv->tx_dropped_no_ring);
}

/* The port's own counters (zero where the backend keeps none). */
void cxb_port_stats(struct cxb_priv *priv, struct cxb_port_stats *ps)
{
	memset(ps, 0, sizeof(*ps));
	if (priv->ops->get_port_stats)
		priv->ops->get_port_stats(priv->cadev, ps);
}

/* Recover from a TX fault (error CQE, TX timeout): the datapath is torn
 * down and built again, as at ifdown/ifup. Every WQE the device will not
 * complete is freed (counted in tx_dropped), every mapping released; the
 * device gets fresh queues. Configuration and counters persist.
 */
static void cxb_reset_work(struct work_struct *work)
{
	struct cxb_priv *priv = container_of(work, struct cxb_priv, reset_work);
	struct net_device *dev = priv->netdev;
	int err;

	rtnl_lock();
	/* Gone down or rebuilt meanwhile (ifdown, reconfiguration, another
	 * reset): the channels that asked are gone, the ones there now are
	 * fresh.
	 */
	if (!netif_running(dev) || !priv->ch ||
	    READ_ONCE(priv->reset_gen) != priv->dp_gen)
		goto out;
	cxb_datapath_down(priv);
	err = cxb_datapath_up(priv);
	WRITE_ONCE(priv->tx_recovers, priv->tx_recovers + 1);
	if (err)
		netdev_err(dev, "datapath restart after a TX fault failed: %d\n",
			   err);
out:
	rtnl_unlock();
}

/* Stall watch: kick send queues that made no progress for a period. */
static void cxb_watch_work(struct work_struct *work)
{
	struct cxb_priv *priv = container_of(to_delayed_work(work),
					     struct cxb_priv, watch_work);
	unsigned int i;

	/* The channels stay while the lock is held (cxb_datapath_down()). */
	spin_lock_bh(&priv->ch_lock);
	for (i = 0; priv->ch && i < priv->num_ch; i++) {
		struct cxb_tx_ring *ring = &priv->ch[i]->tx;

		__netif_tx_lock(ring->txq, smp_processor_id());
		cxb_tx_kick_stalled(ring);
		__netif_tx_unlock(ring->txq);
	}
	spin_unlock_bh(&priv->ch_lock);
	schedule_delayed_work(&priv->watch_work, CXB_WATCH_PERIOD);
}

void cxb_schedule_reset(struct cxb_priv *priv)
{
	WRITE_ONCE(priv->reset_gen, READ_ONCE(priv->dp_gen));
	schedule_work(&priv->reset_work);
}

/* The stack's watchdog: a stopped queue made no progress for
 * watchdog_timeo (a lost completion, interrupt or doorbell).
 */
static void cxb_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_tx_ring *ring;

	WRITE_ONCE(priv->tx_timeouts, priv->tx_timeouts + 1);
	/* The channels stay while the lock is held (cxb_datapath_down()). */
	spin_lock(&priv->ch_lock);
	if (priv->ch && txqueue < priv->num_ch) {
		ring = &priv->ch[txqueue]->tx;
		netdev_err(dev, "TX queue %u timed out: prod %u cons %u, CQ ci %u; resetting\n",
			   txqueue, READ_ONCE(ring->prod),
			   READ_ONCE(ring->cons), READ_ONCE(ring->cq->ci));
	} else {
		netdev_err(dev, "TX queue %u timed out without a datapath; resetting\n",
			   txqueue);
	}
	spin_unlock(&priv->ch_lock);
	cxb_schedule_reset(priv);
}

/* VLAN stripping is a property of the device's receive queues (a
 * ConnectX-3 receive QP's context): a change rebuilds them, as
 * mlx4_en_set_features() restarts the port (mlx4_en_reset_config()). The
 * other features take effect with dev->features.
 */
static int cxb_set_features(struct net_device *dev,
			    netdev_features_t features)
{
	struct cxb_priv *priv = netdev_priv(dev);
	bool strip = features & NETIF_F_HW_VLAN_CTAG_RX;
	struct cxb_dp_cfg cfg;

	if (strip == priv->vlan_strip)
		return 0;
	if (!netif_running(dev)) {
		priv->vlan_strip = strip;
		return 0;
	}
	/* on failure the old queues (or ones like them) run on */
	cxb_cur_cfg(priv, &cfg);
	cfg.vlan_strip = strip;
	return cxb_datapath_swap(priv, &cfg, NULL);
}

/* Can the device segment this TCP GSO skb? An LSO WQE (wqe/mlx4.h,
 * wqe/mlx5.h) takes TCP over IPv4 or IPv6, not tunnelled, with all its
 * headers in the linear part, inline in the WQE beside a data segment for
 * each fragment and one for the rest of the linear part, within
 * CXB_MLX4_MAX_DS (cx3: the headers in the LSO segment) or
 * CXB_MLX5_MAX_DS (cx5: in the eth segment, with the VLAN tag to insert,
 * as cxb_mlx5_post_lso() builds it).
 */
static bool cxb_lso_fits(const struct sk_buff *skb, u8 gen)
{
	u32 hdr, ds;

	if (skb->encapsulation)
		return false;
	hdr = skb_tcp_all_headers(skb);
	if (hdr > skb_headlen(skb))
		return false;
	ds = skb_shinfo(skb)->nr_frags + (skb_headlen(skb) > hdr);
	if (gen == CXB_GEN_CX5)
		return cxb_mlx5_eth_inline_ds(hdr +
					      (skb_vlan_tag_present(skb) ?
					       VLAN_HLEN : 0)) + ds <=
		       CXB_MLX5_MAX_DS;
	return 1 + cxb_mlx4_lso_ds(hdr) + ds <= CXB_MLX4_MAX_DS;
}

/* A TCP GSO skb the device cannot segment goes to software GSO (as
 * mlx4_en's mlx4_en_features_check() sends tunnels it cannot offload),
 * counted in tx_tso_fallback; VLAN stacks as vlan_features_check() says.
 * Other GSO types the features decide (no NETIF_F_GSO_* for them).
 */
static netdev_features_t cxb_features_check(struct sk_buff *skb,
					    struct net_device *dev,
					    netdev_features_t features)
{
	struct cxb_priv *priv = netdev_priv(dev);

	features = vlan_features_check(skb, features);
	if (skb_is_gso(skb) && (features & (NETIF_F_TSO | NETIF_F_TSO6)) &&
	    (skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) &&
	    unlikely(!cxb_lso_fits(skb, priv->cadev->gen))) {
		features &= ~NETIF_F_GSO_MASK;
		atomic64_inc(&priv->tso_fallback);
	}
	return features;
}

/* One per descriptor generation: they differ only in ndo_start_xmit, so
 * that xmit goes straight to its generation's send path.
 */
#define CXB_NETDEV_OPS(xmit) {				\
	.ndo_open		= cxb_open,		\
	.ndo_stop		= cxb_stop,		\
	.ndo_start_xmit		= xmit,			\
	.ndo_features_check	= cxb_features_check,	\
	.ndo_get_stats64	= cxb_get_stats64,	\
	.ndo_change_mtu		= cxb_change_mtu,	\
	.ndo_tx_timeout		= cxb_tx_timeout,	\
	.ndo_set_features	= cxb_set_features,	\
	.ndo_set_rx_mode	= cxb_set_rx_mode,	\
	.ndo_set_mac_address	= cxb_set_mac_address,	\
	.ndo_validate_addr	= eth_validate_addr,	\
	.ndo_bpf		= cxb_bpf,		\
	.ndo_xdp_xmit		= cxb_xdp_xmit,		\
}

static const struct net_device_ops cxb_mlx4_netdev_ops =
	CXB_NETDEV_OPS(cxb_mlx4_start_xmit);
static const struct net_device_ops cxb_mlx5_netdev_ops =
	CXB_NETDEV_OPS(cxb_mlx5_start_xmit);
static const struct net_device_ops cxb_mlx5_l2_netdev_ops =
	CXB_NETDEV_OPS(cxb_mlx5_start_xmit_l2);

static const struct net_device_ops *cxb_netdev_ops(struct cxb_adev *cadev)
{
	if (cadev->gen == CXB_GEN_CX3)
		return &cxb_mlx4_netdev_ops;
	return cadev->min_inline == CXB_MIN_INLINE_L2 ?
	       &cxb_mlx5_l2_netdev_ops : &cxb_mlx5_netdev_ops;
}

/* ---- Creation ------------------------------------------------------------- */

int cxb_netdev_create(struct cxb_adev *cadev)
{
	unsigned int max_ch = min(cadev->max_channels, CXB_MAX_CHANNELS);
	struct net_device *dev;
	struct cxb_priv *priv;
	int err;

	if ((cadev->gen != CXB_GEN_CX3 && cadev->gen != CXB_GEN_CX5) || !max_ch)
		return -EOPNOTSUPP;
	if (cadev->min_inline > CXB_MIN_INLINE_L2 ||
	    (cadev->gen == CXB_GEN_CX3 && cadev->min_inline)) {
		dev_err(&cadev->adev.dev,
			"minimum inline mode %u not supported\n",
			cadev->min_inline);
		return -EOPNOTSUPP;
	}

	dev = alloc_etherdev_mqs(sizeof(*priv), max_ch, max_ch);
	if (!dev)
		return -ENOMEM;
	SET_NETDEV_DEV(dev, &cadev->adev.dev);
	priv = netdev_priv(dev);
	priv->netdev = dev;
	priv->cadev = cadev;
	priv->ops = cadev->ops;
	priv->dma_dev = cadev->dma_dev;
	priv->num_ch = min_t(unsigned int, max_ch, num_online_cpus());
	priv->tx_ring_size = CXB_DEF_RING_SIZE;
	priv->rx_ring_size = CXB_DEF_RING_SIZE;
	/* BlueFlame on where mlx4_en has it on; off on cx5, where mlx5e
	 * no longer uses it (the blueflame flag turns it on)
	 */
	priv->bf_on = cadev->gen != CXB_GEN_CX5 &&
		      cadev->bf_size >= CXB_MLX4_TXBB_SIZE;
	priv->mpwqe_on = cxb_mpwqe_usable(cadev);
	priv->tx_copybreak = CXB_DEF_TX_COPYBREAK;
	priv->db_defer_max = CXB_DEF_DB_DEFER_MAX;
	priv->rx_frames = CXB_DEF_RX_FRAMES;
	priv->rx_usecs = CXB_DEF_RX_USECS;
	priv->tx_frames = CXB_DEF_TX_FRAMES;
	priv->tx_usecs = CXB_DEF_TX_USECS;
	/* cx5 send queues speak mlx5: the XDP send queue is cx3-only */
	priv->has_xdpsq = cadev->has_xdpsq;
	spin_lock_init(&priv->ch_lock);
	INIT_WORK(&priv->rx_mode_work, cxb_rx_mode_work);
	INIT_WORK(&priv->link_work, cxb_link_work);
	INIT_WORK(&priv->reset_work, cxb_reset_work);
	INIT_DELAYED_WORK(&priv->watch_work, cxb_watch_work);

	dev->netdev_ops = cxb_netdev_ops(cadev);
	dev->sysfs_groups[0] = &cxb_sysfs_group;
	dev->ethtool_ops = &cxb_ethtool_ops;
	cxb_set_stat_ops(dev, &cxb_stat_ops);
	dev->dev_port = cadev->port;
	dev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			   NETIF_F_RXCSUM;
	dev->vlan_features = dev->hw_features;
	/* VLAN tag insertion and stripping, both generations (mlx4_en and
	 * mlx5e offer both, on by default)
	 */
	dev->hw_features |= NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_CTAG_RX;
	/* TCP segmentation offload (the LSO WQE, as mlx4_en or mlx5e
	 * builds it), up to the device's largest packet
	 */
	if (cadev->max_gso_size) {
		dev->hw_features |= NETIF_F_TSO | NETIF_F_TSO6;
		dev->vlan_features |= NETIF_F_TSO | NETIF_F_TSO6;
		netif_set_tso_max_size(dev, cadev->max_gso_size);
	}
	dev->features = dev->hw_features | NETIF_F_HIGHDMA;
	priv->vlan_strip = true;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = cadev->max_mtu;
	dev->watchdog_timeo = 5 * HZ;
	eth_hw_addr_set(dev, cadev->mac);
	/* a receive filter with room for the own address at least */
	if (cadev->ops->set_rx_filter && cadev->max_uc) {
		priv->filter_addr = kcalloc(cadev->max_uc + cadev->max_mc,
					    ETH_ALEN, GFP_KERNEL);
		if (!priv->filter_addr) {
			free_netdev(dev);
			return -ENOMEM;
		}
		priv->rx_filter = true;
		dev->priv_flags |= IFF_UNICAST_FLT | IFF_LIVE_ADDR_CHANGE;
	}
	/* RSS with the stack's random key (netdev_rss_key_fill()), as
	 * mlx4_en and mlx5e; the hash goes to skb->hash
	 */
	if (cadev->ops->set_rss) {
		priv->has_rss = true;
		netdev_rss_key_fill(priv->rss.key, sizeof(priv->rss.key));
		cxb_rss_default_table(priv, priv->num_ch);
		dev->hw_features |= NETIF_F_RXHASH;
		dev->features |= NETIF_F_RXHASH;
	}
	/* redirects to the port need its XDP send queues */
	cxb_set_xdp_features(dev, priv->has_xdpsq);

	/* A device model that watches MMIO hears of every write from now */
	if (cadev->ops->mmio_notify)
		static_branch_inc(&cxb_mmio_notify_key);
	err = register_netdev(dev);
	if (err) {
		if (cadev->ops->mmio_notify)
			static_branch_dec(&cxb_mmio_notify_key);
		kfree(priv->filter_addr);
		free_netdev(dev);
		return err;
	}
	auxiliary_set_drvdata(&cadev->adev, priv);
	cxb_debugfs_add(priv);
	return 0;
}

void cxb_netdev_destroy(struct cxb_adev *cadev)
{
	struct cxb_priv *priv = auxiliary_get_drvdata(&cadev->adev);

	cxb_debugfs_del(priv);
	unregister_netdev(priv->netdev);
	/* Down now: a queued reset finds nothing to do */
	cancel_work_sync(&priv->reset_work);
	/* a queued one finds the port closed */
	cancel_work_sync(&priv->rx_mode_work);
	if (cadev->ops->mmio_notify)
		static_branch_dec(&cxb_mmio_notify_key);
	kfree(priv->filter_addr);
	free_netdev(priv->netdev);
}
