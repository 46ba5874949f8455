// SPDX-License-Identifier: GPL-2.0
/* cxbell datapath, ConnectX-4+ generation: mlx5 send WQEs, enhanced
 * multi-packet WQEs (MPWQE), 64-byte send CQEs (wqe/mlx5.h) and the NAPI
 * poll of an mlx5 port.
 *
 * The ring discipline is cxbell_txrx.h's, as for mlx4: BQL, stop/wake
 * rooms, the doorbell only when __netdev_tx_sent_queue() says so,
 * doorbell avoidance (cxb_tx_defer_doorbell(),
 * cxb_tx_completion_doorbell()) and the same counters. Only the
 * descriptors differ.
 *
 * MPWQE session: the first eligible packet (linear, no VLAN tag to
 * insert, not GSO) opens a multi-packet WQE at prod; eligible packets
 * with the same checksum flags append one segment each. The session
 * closes when it is full (CXB_MLX5_MAX_DS), before an ineligible packet
 * or one with other flags (which then goes as a SEND WQE, in order), and
 * whenever the doorbell is due (no xmit_more, queue stopped): it never
 * waits for a later packet to be announced. While it is open it keeps
 * the room of a maximal WQE, and the published prod stays below it and
 * below the NOP that may pad the ring end before it: a doorbell rung by
 * completion (doorbell avoidance) never announces the session half built,
 * nor that NOP alone, which gets no CQE - doorbell avoidance counts on a
 * completion for everything announced but not completed.
 */
#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>
#include <linux/io.h>
#include <linux/prefetch.h>
#include <linux/skbuff.h>

#include "cxbell_txrx.h"

/* cxb_tx_map() writes mlx4 data segments: the same layout. */
static_assert(sizeof(struct mlx4_wqe_data_seg) ==
	      sizeof(struct mlx5_wqe_data_seg));
static_assert(offsetof(struct mlx4_wqe_data_seg, byte_count) ==
	      offsetof(struct mlx5_wqe_data_seg, byte_count));
static_assert(offsetof(struct mlx4_wqe_data_seg, lkey) ==
	      offsetof(struct mlx5_wqe_data_seg, lkey));
static_assert(offsetof(struct mlx4_wqe_data_seg, addr) ==
	      offsetof(struct mlx5_wqe_data_seg, addr));
/* The session and the shared stop room bound WQEs alike. */
static_assert(CXB_MLX5_MAX_WQEBBS == CXB_MLX4_MAX_WQE_TXBBS);
static_assert(CXB_MLX5_MAX_DS - CXB_MLX5_HDR_DS <= U8_MAX);

static inline u8 cxb_mlx5_cs_flags(const struct sk_buff *skb)
{
	return skb->ip_summed == CHECKSUM_PARTIAL ?
	       MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM : 0;
}

static void cxb_mlx5_ctrl(struct cxb_tx_ring *ring,
			  struct mlx5_wqe_ctrl_seg *ctrl, u32 idx, u32 opcode,
			  unsigned int ds)
{
	ctrl->opmod_idx_opcode = cxb_mlx5_opmod_idx_opcode(idx, opcode);
	/* doorbell_qpn is be32(qpn << 8), the upper part of qpn_ds */
	ctrl->qpn_ds = ring->doorbell_qpn | cpu_to_be32(ds);
	ctrl->signature = 0;
	ctrl->rsvd[0] = 0;
	ctrl->rsvd[1] = 0;
	ctrl->fm_ce_se = 0;	/* the doorbell asks the CQE */
	ctrl->imm = 0;
}

/* Fill the WQEBBs from @prod to the ring end with a NOP asking for no
 * completion; returns the index after it. It is posted with the WQE after
 * it, which the doorbell names.
 */
static u32 cxb_mlx5_post_nop(struct cxb_tx_ring *ring, u32 prod)
{
	struct cxb_tx_info *info = &ring->tx_info[prod & ring->size_mask];
	u32 n = ring->size - (prod & ring->size_mask);

	info->skb = NULL;
	info->nr_txbb = n;
	info->nr_frags = 0;
	info->map0_len = 0;
	info->nr_bytes = 0;
	info->mpw_pkts = 0;
	cxb_mlx5_ctrl(ring, cxb_mlx5_wqe(ring, prod), prod, MLX5_OPCODE_NOP,
		      n * CXB_MLX5_DS_PER_WQEBB);
	return prod + n;
}

/* Close the open session: returns the index after it. An empty session
 * (its only packet was dropped) posts nothing, nor the NOP before it.
 */
static u32 cxb_mlx5_mpw_close(struct cxb_tx_ring *ring)
{
	u32 prod = ring->mpw.wqe, n = cxb_mlx5_ds_to_wqebbs(ring->mpw.ds);
	struct cxb_tx_info *info = &ring->tx_info[prod & ring->size_mask];

	if (!ring->mpw.npkts) {
		ring->mpw.ds = 0;
		return ring->mpw.pub;
	}
	info->skb = NULL;
	info->nr_txbb = n;
	info->nr_frags = 0;
	info->map0_len = 0;
	info->nr_bytes = ring->mpw.bytes;
	info->mpw_pkts = ring->mpw.npkts;
	cxb_mlx5_ctrl(ring, cxb_mlx5_wqe(ring, prod), prod,
		      MLX5_OPCODE_ENHANCED_MPSW, ring->mpw.ds);
	ring->last_wqe = prod;
	ring->mpw.ds = 0;
	ring->xstats.mpwqe_blks++;	/* the caller is in an xstats update */
	return prod + n;
}

/* Open a session at @prod, or after a NOP pad if a maximal WQE would
 * reach past the ring end: at mpw.wqe.
 */
static void cxb_mlx5_mpw_open(struct cxb_tx_ring *ring, u32 prod, u8 cs)
{
	struct mlx5_wqe_eth_seg *eth;

	ring->mpw.pub = prod;
	if ((prod & ring->size_mask) + CXB_MLX5_MAX_WQEBBS > ring->size)
		prod = cxb_mlx5_post_nop(ring, prod);
	ring->mpw.wqe = prod;
	eth = cxb_mlx5_wqe(ring, prod) + CXB_MLX5_DS_SIZE;
	memset(eth, 0, sizeof(*eth));
	eth->cs_flags = cs;
	ring->mpw.ds = CXB_MLX5_HDR_DS;
	ring->mpw.npkts = 0;
	ring->mpw.bytes = 0;
	ring->mpw.cs = cs;
}

/* Append @skb (linear) to the session at @prod. False if its mapping
 * failed (nothing appended).
 */
static bool cxb_mlx5_mpw_add(struct cxb_tx_ring *ring, u32 prod,
			     struct sk_buff *skb, bool inl)
{
	void *seg = cxb_mlx5_wqe(ring, prod) + ring->mpw.ds * CXB_MLX5_DS_SIZE;
	struct cxb_mpw_ent *e = &ring->mpw_fifo[ring->mpw_prod & ring->mpw_mask];
	u32 len = skb->len;

	if (inl) {
		struct mlx5_wqe_inline_seg *iseg = seg;

		cxb_tx_copy_inline(iseg + 1, skb, 0, len);
		iseg->byte_count = cxb_mlx5_inline_bc(len);
		e->len = 0;
		ring->mpw.ds += cxb_mlx5_inline_ds(len);
	} else {
		struct mlx5_wqe_data_seg *dseg = seg;
		dma_addr_t dma;

		dma = cxb_dma_map_linear(ring->dma_dev, skb->data, len);
		if (unlikely(dma_mapping_error(ring->dma_dev, dma)))
			return false;
		dseg->addr = cpu_to_be64(dma);
		dseg->lkey = ring->lkey;
		dseg->byte_count = cpu_to_be32(len);
		e->addr = dma;
		e->len = len;
		ring->mpw.ds++;
	}
	e->skb = skb;
	ring->mpw_prod++;
	ring->mpw.npkts++;
	ring->mpw.bytes += len;
	ring->xstats.mpwqe_pkts++;	/* the caller is in an xstats update */
	return true;
}

/* Post @skb as a SEND WQE at *@pprod and move *@pprod past it. False if
 * it could not be posted (@skb is then the caller's to drop, *@pprod
 * unchanged: a NOP pad written is not posted).
 */
static bool cxb_mlx5_post_send(struct cxb_tx_ring *ring, u32 *pprod,
			       struct sk_buff *skb, bool inl)
{
	u32 nr_frags = skb_shinfo(skb)->nr_frags;
	u32 headlen = skb_headlen(skb);
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5_wqe_eth_seg *eth;
	struct cxb_tx_info *info;
	u32 ds, n, prod = *pprod;

	if (inl) {
		ds = CXB_MLX5_HDR_DS + cxb_mlx5_inline_ds(skb->len);
	} else {
		ds = CXB_MLX5_HDR_DS + nr_frags + !!headlen;
		if (unlikely(ds > CXB_MLX5_MAX_DS)) {
			if (skb_linearize(skb))
				return false;
			nr_frags = 0;
			headlen = skb_headlen(skb);
			ds = CXB_MLX5_HDR_DS + 1;
		}
	}
	n = cxb_mlx5_ds_to_wqebbs(ds);
	if ((prod & ring->size_mask) + n > ring->size)
		prod = cxb_mlx5_post_nop(ring, prod);
	ctrl = cxb_mlx5_wqe(ring, prod);
	eth = (void *)(ctrl + 1);
	info = &ring->tx_info[prod & ring->size_mask];

	if (inl) {
		struct mlx5_wqe_inline_seg *iseg = (void *)(eth + 1);

		cxb_tx_copy_inline(iseg + 1, skb, 0, skb->len);
		iseg->byte_count = cxb_mlx5_inline_bc(skb->len);
		info->map0_len = 0;
		info->nr_frags = 0;
	} else if (unlikely(!cxb_tx_map(ring, skb, info, (void *)(eth + 1),
					headlen, nr_frags))) {
		return false;
	}
	memset(eth, 0, sizeof(*eth));
	eth->cs_flags = cxb_mlx5_cs_flags(skb);
	/* the device inserts the tag, as mlx5e asks without inline headers */
	if (unlikely(skb_vlan_tag_present(skb))) {
		eth->insert.type = cpu_to_be16(MLX5_ETH_WQE_INSERT_VLAN);
		eth->insert.vlan_tci = cpu_to_be16(skb_vlan_tag_get(skb));
	}
	info->skb = skb;
	info->nr_txbb = n;
	info->nr_bytes = skb->len;
	info->mpw_pkts = 0;
	cxb_mlx5_ctrl(ring, ctrl, prod, MLX5_OPCODE_SEND, ds);
	ring->last_wqe = prod;
	*pprod = prod + n;
	return true;
}

netdev_tx_t cxb_mlx5_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);
	u16 qidx = skb_get_queue_mapping(skb);
	bool xmit_more, send_db, eligible, inl;
	u32 len = skb->len, prod, pub;
	struct cxb_tx_ring *ring;
	bool stopped = false;
	u8 cs;

	/* stable here: see cxb_mlx4_start_xmit() */
	if (unlikely(qidx >= priv->num_ch))
		return cxb_tx_drop_no_ring(priv, skb);
	ring = &priv->ch[qidx]->tx;
	prefetchw(&ring->txq->dql);
	prod = ring->prod;

	inl = len <= ring->inline_max;
	cs = cxb_mlx5_cs_flags(skb);
	eligible = ring->mpwqe_on && !skb_is_nonlinear(skb) &&
		   !skb_vlan_tag_present(skb) && !skb_is_gso(skb);

	u64_stats_update_begin(&ring->xstats_sync);
	if (ring->mpw.ds &&
	    (!eligible || cs != ring->mpw.cs ||
	     ring->mpw.ds + (inl ? cxb_mlx5_inline_ds(len) : 1) >
	     CXB_MLX5_MAX_DS))
		prod = cxb_mlx5_mpw_close(ring);
	if (eligible) {
		if (!ring->mpw.ds)
			cxb_mlx5_mpw_open(ring, prod, cs);
		if (unlikely(!cxb_mlx5_mpw_add(ring, ring->mpw.wqe, skb, inl)))
			goto drop;
		/* full: no packet fits any more */
		if (ring->mpw.ds == CXB_MLX5_MAX_DS)
			prod = cxb_mlx5_mpw_close(ring);
	} else if (unlikely(!cxb_mlx5_post_send(ring, &prod, skb, inl))) {
		goto drop;
	}

	/* Stop before the next packet could find no room; an open session
	 * holds the room of a maximal WQE.
	 */
	if (unlikely(cxb_tx_free(ring, ring->mpw.ds ? ring->mpw.wqe +
				   CXB_MLX5_MAX_WQEBBS : prod,
				   READ_ONCE(ring->cons)) <
		     CXB_TX_STOP_ROOM)) {
		netif_tx_stop_queue(ring->txq);
		stopped = true;
	}

	/* True when the doorbell is due: no more packets follow, or stopped. */
	xmit_more = netdev_xmit_more();
	send_db = __netdev_tx_sent_queue(ring->txq, len, xmit_more);

	skb_tx_timestamp(skb);

	/* A session never waits for a later packet to be announced. */
	if (send_db && ring->mpw.ds)
		prod = cxb_mlx5_mpw_close(ring);

	pub = ring->mpw.ds ? ring->mpw.pub : prod;
	/* Publish prod only now: a completion-side doorbell that reads it
	 * must find every WQE below it written. An open session (and its
	 * NOP pad) stays above it.
	 */
	smp_store_release(&ring->prod, pub);

	if (send_db && unlikely(ring->db_opt & CXB_DB_OPT_AVOID) &&
	    cxb_tx_defer_doorbell(ring, CXB_GEN_CX5)) {
		send_db = false;
		xmit_more = false;	/* counted as deferred */
	}
	if (send_db) {
		cxb_mlx5_tx_doorbell(ring);
		ring->xstats.doorbells++;
		WRITE_ONCE(ring->prod_bell, ring->prod);
		ring->xstats.doorbell_on_stop += xmit_more;
	} else {
		ring->xstats.xmit_more += xmit_more;
	}
	ring->xstats.packets++;
	ring->xstats.bytes += len;
	if (inl)
		ring->xstats.inlined++;
	if (unlikely(stopped)) {
		ring->xstats.queue_stopped++;
		u64_stats_update_end(&ring->xstats_sync);
		cxb_tx_stop_recheck(ring);
		return NETDEV_TX_OK;
	}
	u64_stats_update_end(&ring->xstats_sync);
	return NETDEV_TX_OK;

drop:
	dev_kfree_skb_any(skb);
	ring->xstats.dropped++;
	/* A dropped packet may end a burst: close the session and announce
	 * what is already posted.
	 */
	xmit_more = netdev_xmit_more();
	if (!xmit_more && ring->mpw.ds)
		prod = cxb_mlx5_mpw_close(ring);
	pub = ring->mpw.ds ? ring->mpw.pub : prod;
	/* WQEs before prod, as above */
	smp_store_release(&ring->prod, pub);
	if (!xmit_more && pub != READ_ONCE(ring->prod_bell)) {
		cxb_mlx5_tx_doorbell(ring);
		WRITE_ONCE(ring->prod_bell, pub);
		ring->xstats.doorbells++;
	}
	u64_stats_update_end(&ring->xstats_sync);
	return NETDEV_TX_OK;
}

/* ---- Completion ------------------------------------------------------- */

static void cxb_mlx5_unmap_frags(struct cxb_tx_ring *ring, u32 n)
{
	while (n--) {
		struct cxb_dma_ent *e =
			&ring->dma_fifo[ring->dma_cons++ & ring->dma_mask];

		dma_unmap_page(ring->dma_dev, e->addr, e->len, DMA_TO_DEVICE);
	}
}

/* Free the WQE at @cons: returns its WQEBBs, adds packets and bytes. */
static __always_inline u32 cxb_mlx5_free_wqe(struct cxb_tx_ring *ring,
					     u32 cons, int budget, u32 *pkts,
					     u32 *bytes)
{
	struct cxb_tx_info *info = &ring->tx_info[cons & ring->size_mask];
	u32 i;

	if (info->mpw_pkts) {
		for (i = 0; i < info->mpw_pkts; i++) {
			struct cxb_mpw_ent *e =
				&ring->mpw_fifo[ring->mpw_cons++ &
						ring->mpw_mask];

			if (e->len)
				dma_unmap_single(ring->dma_dev, e->addr, e->len,
						 DMA_TO_DEVICE);
			napi_consume_skb(e->skb, budget);
			e->skb = NULL;
		}
		*pkts += info->mpw_pkts;
		*bytes += info->nr_bytes;
		info->mpw_pkts = 0;
	} else if (info->skb) {
		if (info->map0_len)
			dma_unmap_single(ring->dma_dev, info->map0_addr,
					 info->map0_len, DMA_TO_DEVICE);
		cxb_mlx5_unmap_frags(ring, info->nr_frags);
		*pkts += 1;
		*bytes += info->nr_bytes;
		napi_consume_skb(info->skb, budget);
		info->skb = NULL;
	}
	return info->nr_txbb;
}

/* The TX completion walk of an mlx5 send queue: as cxb_mlx4_tx_complete(). */
bool cxb_mlx5_tx_complete(struct cxb_channel *ch, int budget, bool napi)
{
	struct cxb_tx_ring *ring = &ch->tx;
	struct cxb_cq *cq = &ch->tx_cq;
	u32 ci = cq->ci, cons = ring->cons, prod = cons;
	u32 pkts = 0, bytes = 0, ncqe = 0;
	struct mlx5_cqe64 *cqe;

	for (;;) {
		u16 wqe_counter;

		cqe = &cq->buf64[ci & (cq->size - 1)];
		if (!cxb_mlx5_cqe_sw_owned(cqe, ci, cq->size))
			break;
		if (unlikely(ncqe == CXB_TX_CQ_BUDGET))
			break;
		/* Read the CQE only after its owner bit said it is ours. */
		dma_rmb();
		wqe_counter = be16_to_cpu(cqe->wqe_counter);
		/* as in the mlx4 walk */
		if (unlikely(!cxb_cqe_outstanding(&ring->prod, &prod, cons,
						  wqe_counter)))
			goto bad;
		if (unlikely(get_cqe_opcode(cqe) != MLX5_CQE_REQ)) {
			const struct mlx5_err_cqe *err = (const void *)cqe;

			if (get_cqe_opcode(cqe) == MLX5_CQE_REQ_ERR)
				cxb_tx_err_cqe(ch, wqe_counter, err->syndrome,
					       err->vendor_err_synd, napi);
			else
				netdev_warn_once(ch->priv->netdev,
						 "TX queue %u: CQE opcode %#x\n",
						 ch->idx, get_cqe_opcode(cqe));
		}

		if (unlikely(!cxb_tx_free_upto(ring, &cons, wqe_counter, budget,
					       &pkts, &bytes,
					       cxb_mlx5_free_wqe)))
			goto bad;
		ci++;
		ncqe++;
		continue;
bad:
		cxb_tx_bad_cqe(ch, wqe_counter, cons, prod, napi);
		ci++;
		ncqe++;
		break;
	}

	return cxb_tx_complete_finish(ring, cq, ci,
				      cpu_to_be32(ci & CXB_MLX5_CI_MASK),
				      ncqe, cons, pkts, bytes, budget, napi,
				      CXB_GEN_CX5);
}

int cxb_mlx5_napi_poll(struct napi_struct *napi, int budget)
{
	struct cxb_channel *ch = container_of(napi, struct cxb_channel, napi);

	ch->polls++;
	return cxb_napi_poll_finish(ch, budget,
				    cxb_mlx5_tx_complete(ch, budget, true));
}

/* ---- Ring life cycle -------------------------------------------------- */

/* After cxb_tx_ring_init() (whose stamps mean nothing to an mlx5 device). */
void cxb_mlx5_tx_ring_init(struct cxb_tx_ring *ring)
{
	ring->mpw.ds = 0;
	ring->mpw.npkts = 0;
	ring->mpw_prod = 0;
	ring->mpw_cons = 0;
	ring->last_wqe = 0;
	ring->db_offset = 0;
	*ring->db_rec = 0;
}

/* Free what the device will never complete, an open session included.
 * The device is stopped, the queue disabled.
 */
void cxb_mlx5_tx_ring_drain(struct cxb_tx_ring *ring)
{
	u32 bytes = 0, pkts = 0;

	u64_stats_update_begin(&ring->xstats_sync);
	if (ring->mpw.ds)
		ring->prod = cxb_mlx5_mpw_close(ring);
	u64_stats_update_end(&ring->xstats_sync);
	while (ring->cons != ring->prod)
		ring->cons += cxb_mlx5_free_wqe(ring, ring->cons, 0, &pkts,
						&bytes);
	u64_stats_update_begin(&ring->xstats_sync);
	ring->xstats.dropped += pkts;
	u64_stats_update_end(&ring->xstats_sync);
	if (ring->txq)
		netdev_tx_reset_queue(ring->txq);
}

/* The doorbell record and the MPW FIFO, before the queue is created. */
int cxb_mlx5_tx_alloc(struct cxb_priv *priv, struct cxb_tx_ring *ring)
{
	/* a WQEBB carries at most 4 packets of a session */
	u32 entries = ring->size * CXB_MLX5_DS_PER_WQEBB;

	ring->mpw_fifo = kvcalloc(entries, sizeof(*ring->mpw_fifo),
				  GFP_KERNEL);
	if (!ring->mpw_fifo)
		return -ENOMEM;
	ring->mpw_mask = entries - 1;
	ring->db_rec = dma_alloc_coherent(priv->dma_dev, sizeof(__be32),
					  &ring->db_dma, GFP_KERNEL);
	if (!ring->db_rec)
		return -ENOMEM;
	cxb_mlx5_tx_ring_init(ring);
	return 0;
}

void cxb_mlx5_tx_free(struct cxb_priv *priv, struct cxb_tx_ring *ring)
{
	if (ring->db_rec)
		dma_free_coherent(priv->dma_dev, sizeof(__be32), ring->db_rec,
				  ring->db_dma);
	ring->db_rec = NULL;
	kvfree(ring->mpw_fifo);
	ring->mpw_fifo = NULL;
}
