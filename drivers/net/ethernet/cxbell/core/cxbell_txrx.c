// SPDX-License-Identifier: GPL-2.0
/* cxbell datapath, what both descriptor generations share: the send
 * ring's slow paths (deferred doorbells, the stall watch, faults, drain),
 * the receive ring, CQ arming and the common part of the NAPI poll. The
 * send paths and completion walks are in cxbell_tx_mlx4.c and
 * cxbell_tx_mlx5.c.
 */
#include <linux/etherdevice.h>
#include <linux/skbuff.h>

#include "cxbell_txrx.h"

DEFINE_STATIC_KEY_FALSE(cxb_mmio_notify_key);

/* ---- TX ---------------------------------------------------------------- */

/* Each writer's fields fit the one cache line it owns. */
static_assert(offsetof(struct cxb_tx_ring, prod) -
	      offsetof(struct cxb_tx_ring, cons) <= SMP_CACHE_BYTES);
static_assert(offsetof(struct cxb_tx_ring, xstats_sync) -
	      offsetof(struct cxb_tx_ring, prod) <= SMP_CACHE_BYTES);
/* xmit's per-packet and per-burst counters on its first two lines, the
 * rare ones (drops, flushes, stall kicks) after them.
 */
static_assert(offsetof(struct cxb_tx_ring, xstats.dropped) -
	      offsetof(struct cxb_tx_ring, prod) <= 2 * SMP_CACHE_BYTES);
static_assert(offsetof(struct cxb_tx_ring, buf) -
	      offsetof(struct cxb_tx_ring, prod) <= 3 * SMP_CACHE_BYTES);
static_assert(offsetof(struct cxb_tx_ring, dma_mask) -
	      offsetof(struct cxb_tx_ring, buf) <= SMP_CACHE_BYTES);

void cxb_tx_ring_init(struct cxb_tx_ring *ring)
{
	u32 i;

	/* Every TXBB starts out owned by software for lap 0: owner bit set,
	 * stamp pattern below it.
	 */
	for (i = 0; i < ring->size; i++)
		*(__be32 *)(ring->buf + (i << CXB_MLX4_TXBB_SHIFT)) =
			cpu_to_be32(CXB_MLX4_STAMP | CXB_MLX4_OWNER_BIT);
	ring->prod = 0;
	ring->cons = 0;
	ring->prod_bell = 0;
	ring->prod_sig = 0;
	ring->sig_bell = 0;
	ring->db_pending = false;
	ring->bf_offset = 0;
	ring->dma_prod = 0;
	ring->dma_cons = 0;
	ring->watch_cons = 0;
	ring->watch_prod = 0;
	ring->err_seen = false;
	ring->db_retry = false;
}

static inline void cxb_set_data_seg(struct mlx4_wqe_data_seg *dseg,
				    dma_addr_t addr, u32 len, __be32 lkey)
{
	dseg->addr = cpu_to_be64(addr);
	dseg->lkey = lkey;
	dseg->byte_count = cpu_to_be32(len);
}

/* A packet for a TX queue no channel serves: the netdev has a queue per
 * possible channel and the stack starts them all (netif_tx_start_all_queues()),
 * while only the first num_ch have a ring. The stack itself picks among
 * real_num_tx_queues, but a sender that set the queue mapping before
 * ethtool -L shrank the channels keeps it (pktgen reuses one skb with
 * clone_skb). Dropped, with no ring touched; counted per port (there is
 * no ring to count on), in tx_dropped.
 */
noinline netdev_tx_t cxb_tx_drop_no_ring(struct cxb_priv *priv,
					 struct sk_buff *skb)
{
	dev_kfree_skb_any(skb);
	atomic64_inc(&priv->tx_dropped_no_ring);
	return NETDEV_TX_OK;
}

/* Doorbell avoidance turned off: ring what it deferred. Queue xmit lock
 * held.
 */
void cxb_tx_flush_deferred(struct cxb_tx_ring *ring)
{
	bool rang = ring->gen == CXB_GEN_CX5 ?
		    cxb_tx_ring_deferred_locked(ring, CXB_GEN_CX5) :
		    cxb_tx_ring_deferred_locked(ring, CXB_GEN_CX3);

	if (!rang)
		return;
	/* Rung for deferred packets, not for one being sent: reported in
	 * tx_doorbell_by_completion (and tx_doorbells).
	 */
	u64_stats_update_begin(&ring->xstats_sync);
	ring->xstats.doorbell_flushed++;
	u64_stats_update_end(&ring->xstats_sync);
}

/* The stall watch, about once a second, with the queue's xmit lock held:
 * if WQEs are outstanding and no completion came since the last look,
 * announce everything posted once more. A device that missed a doorbell
 * (or one doorbell avoidance deferred to a completion that never comes)
 * fetches the stranded WQEs now; one that has them already finds nothing
 * new. A completion that stays lost is left to the stack's watchdog.
 */
bool cxb_tx_kick_stalled(struct cxb_tx_ring *ring)
{
	u32 cons = READ_ONCE(ring->cons);
	/* outstanding at the last look already, and nothing completed */
	bool stalled = ring->watch_prod != ring->watch_cons &&
		       cons == ring->watch_cons;

	ring->watch_cons = cons;
	ring->watch_prod = ring->prod;
	if (!stalled)
		return false;
	WRITE_ONCE(ring->db_pending, false);
	if (ring->gen == CXB_GEN_CX5)
		cxb_tx_ring_all_locked(ring, CXB_GEN_CX5);
	else
		cxb_tx_ring_all_locked(ring, CXB_GEN_CX3);
	u64_stats_update_begin(&ring->xstats_sync);
	ring->xstats.doorbells++;
	ring->xstats.doorbell_kick++;
	u64_stats_update_end(&ring->xstats_sync);
	return true;
}

/* A poll (of either generation) that found no CQE while db_retry is set:
 * ring the deferred doorbell an earlier poll had to leave. db_pending is
 * still set unless someone rang since. Returns false while it stays left.
 */
bool cxb_tx_retry_doorbell(struct cxb_tx_ring *ring, int budget)
{
	if (!budget)
		return true;
	WRITE_ONCE(ring->db_retry, false);
	if (ring->gen == CXB_GEN_CX5)
		return cxb_tx_completion_doorbell(ring, budget, CXB_GEN_CX5);
	return cxb_tx_completion_doorbell(ring, budget, CXB_GEN_CX3);
}

/* Count a send queue fault (tx_err_cqe); true for the first one since
 * the queue was built, unless it is going down: the caller logs it and
 * schedules the reset.
 */
static bool cxb_tx_fault(struct cxb_tx_ring *ring, bool in_napi)
{
	u64_stats_update_begin(&ring->cstats_sync);
	ring->cstats.err_cqe++;
	u64_stats_update_end(&ring->cstats_sync);
	if (ring->err_seen || !in_napi)
		return false;
	ring->err_seen = true;
	return true;
}

/* An error CQE (either generation): the device failed the WQE at
 * @wqe_index and put the send queue in the error state; it executes
 * nothing more. The completion walk still frees every WQE up to the
 * failed one. Only a full reset brings the queue back (the reset work;
 * not while the datapath is going down anyway).
 */
void cxb_tx_err_cqe(struct cxb_channel *ch, u16 wqe_index, u8 syndrome,
		    u8 vendor_syndrome, bool in_napi)
{
	if (!cxb_tx_fault(&ch->tx, in_napi))
		return;
	if (net_ratelimit())
		netdev_err(ch->priv->netdev,
			   "TX queue %u: error CQE at WQE %u, syndrome %#x vendor %#x; resetting\n",
			   ch->idx, wqe_index, syndrome, vendor_syndrome);
	cxb_schedule_reset(ch->priv);
}

/* A CQE (either generation) naming WQE @wqe_index, which is not one from
 * @cons up to the one at @prod, or not the first TXBB of one: the device
 * and the ring disagree. Nothing more is freed for it; the queue is reset
 * as after an error CQE, and counted with them.
 */
void __cold cxb_tx_bad_cqe(struct cxb_channel *ch, u16 wqe_index, u32 cons,
			   u32 prod, bool in_napi)
{
	if (!cxb_tx_fault(&ch->tx, in_napi))
		return;
	if (net_ratelimit())
		netdev_err(ch->priv->netdev,
			   "TX queue %u: CQE for WQE %u, cons %u, %u TXBBs outstanding; resetting\n",
			   ch->idx, wqe_index, (u16)cons, prod - cons);
	cxb_schedule_reset(ch->priv);
}

/* Handle the completions a stopped device wrote. Queue disabled. */
void cxb_tx_flush_completions(struct cxb_channel *ch)
{
	if (ch->tx.gen == CXB_GEN_CX5) {
		while (!cxb_mlx5_tx_complete(ch, 0, false))
			;
		return;
	}
	while (!cxb_mlx4_tx_complete(ch, 0, false))
		;
}

/* Free what the device will never complete (queue destroyed): called with
 * the device stopped and the queue disabled.
 */
void cxb_tx_ring_drain(struct cxb_tx_ring *ring)
{
	if (ring->gen == CXB_GEN_CX5)
		cxb_mlx5_tx_ring_drain(ring);
	else
		cxb_mlx4_tx_ring_drain(ring);
}

/* ---- RX ---------------------------------------------------------------- */

/* Receive buffers are pages of the ring's page_pool, which maps them once
 * (PP_FLAG_DMA_MAP) and syncs what the device may write before they are
 * posted again (PP_FLAG_DMA_SYNC_DEV). One page per frame.
 */
static int cxb_rx_post(struct cxb_rx_ring *ring, u32 idx)
{
	struct cxb_rx_info *info = &ring->rx_info[idx];
	struct page *page;

	page = page_pool_dev_alloc_pages(ring->pool);
	if (unlikely(!page))
		return -ENOMEM;
	info->page = page;
	cxb_set_data_seg(&ring->buf[idx],
			 page_pool_get_dma_addr(page) + CXB_RX_HEADROOM,
			 ring->buf_len, ring->lkey);
	return 0;
}

/* Post buffers into every free slot, then one producer record update: the
 * RX "doorbell" is that record, which the device reads when it runs out.
 */
int cxb_rx_ring_fill(struct cxb_rx_ring *ring, gfp_t gfp)
{
	u32 posted = 0;
	int err = 0;

	while (ring->prod - ring->cons < ring->size) {
		err = cxb_rx_post(ring, ring->prod & ring->size_mask);
		if (unlikely(err)) {
			u64_stats_update_begin(&ring->stats_sync);
			ring->stats.alloc_fail++;
			u64_stats_update_end(&ring->stats_sync);
			break;
		}
		ring->prod++;
		posted++;
	}
	if (posted) {
		/* Descriptors before the producer index the device reads. */
		dma_wmb();
		*ring->db_rec = cpu_to_be32(ring->prod & 0xffff);
	}
	return err;
}

void cxb_rx_ring_drain(struct cxb_rx_ring *ring)
{
	while (ring->cons != ring->prod) {
		struct cxb_rx_info *info =
			&ring->rx_info[ring->cons & ring->size_mask];

		page_pool_put_full_page(ring->pool, info->page, false);
		info->page = NULL;
		ring->cons++;
	}
}

/* A receive completion in error: the device could not receive into the
 * buffer (struct mlx4_err_cqe or mlx5_err_cqe names it and says why).
 * The receive queue goes on; the frame is dropped (rx_dropped,
 * rx_err_cqe).
 */
static noinline void cxb_rx_err_cqe(struct cxb_channel *ch, const void *cqe,
				    enum cxb_gen gen)
{
	u32 wqe, synd, vendor;

	if (gen == CXB_GEN_CX5) {
		const struct mlx5_err_cqe *e = cqe;

		wqe = be16_to_cpu(e->wqe_counter);
		synd = e->syndrome;
		vendor = e->vendor_err_synd;
	} else {
		const struct mlx4_err_cqe *e = cqe;

		wqe = be16_to_cpu(e->wqe_index);
		synd = e->syndrome;
		vendor = e->vendor_err_syndrome;
	}
	if (net_ratelimit())
		netdev_err(ch->priv->netdev,
			   "RX queue %u: error CQE at WQE %u, syndrome %#x vendor %#x\n",
			   ch->idx, wqe, synd, vendor);
}

/* The receive CQE at @ci in the generation's format, if software owns
 * it; read only after its owner bit.
 */
static __always_inline const void *cxb_rx_cq_next(struct cxb_cq *cq, u32 ci,
						  enum cxb_gen gen)
{
	struct mlx5_cqe64 *cqe5;
	struct mlx4_cqe *cqe4;

	if (gen == CXB_GEN_CX5)
		return cxb_mlx5_cq_next(cq, ci, &cqe5) ? cqe5 : NULL;
	return cxb_mlx4_cq_next(cq, ci, &cqe4) ? cqe4 : NULL;
}

/* An error completion (its byte count means nothing). mlx5e takes any
 * opcode but MLX5_CQE_RESP_SEND for one (mlx5e_handle_rx_cqe()).
 */
static __always_inline bool cxb_rx_cqe_err(const void *cqe, enum cxb_gen gen)
{
	if (gen == CXB_GEN_CX5)
		return cxb_mlx5_cqe_opcode(cqe) != MLX5_CQE_RESP_SEND;
	return cxb_mlx4_cqe_is_err(cqe);
}

/* A frame with a bad FCS: a ConnectX-3 delivers it flagged; a ConnectX-4+
 * port drops it without a CQE (the port's counter, rx_crc_errors).
 */
static __always_inline bool cxb_rx_cqe_bad_fcs(const void *cqe,
					       enum cxb_gen gen)
{
	if (gen == CXB_GEN_CX5)
		return false;
	return ((const struct mlx4_cqe *)cqe)->badfcs_enc & MLX4_CQE_BAD_FCS;
}

static __always_inline u32 cxb_rx_cqe_len(const void *cqe, enum cxb_gen gen)
{
	if (gen == CXB_GEN_CX5)
		return be32_to_cpu(((const struct mlx5_cqe64 *)cqe)->byte_cnt);
	return be32_to_cpu(((const struct mlx4_cqe *)cqe)->byte_cnt);
}

/* True if the device verified the IP header and TCP/UDP checksums. */
static __always_inline bool cxb_rx_csum_ok(const void *cqe, enum cxb_gen gen)
{
	const struct mlx4_cqe *c = cqe;
	u16 status;

	if (gen == CXB_GEN_CX5)
		return cxb_mlx5_rx_csum_ok(cqe);
	status = be16_to_cpu(c->status);
	return (status & MLX4_CQE_STATUS_IPOK) &&
	       (status & (MLX4_CQE_STATUS_TCP | MLX4_CQE_STATUS_UDP)) &&
	       c->checksum == cpu_to_be16(0xffff);
}

/* The RSS hash of the CQE into skb->hash: an L4 hash where the port
 * hashed the ports too (TCP, and UDP with cxb_adev.rss_udp; not for
 * fragments), an L3 one for other IP frames, none for the rest (the CQE
 * carries 0), the flow types of struct cxb_rss. An mlx5 CQE says which
 * in rss_hash_type (mlx5e_skb_set_hash()); an mlx4 one gives the frame's
 * types, and @l4_mask the L4 ones the port hashes.
 */
static __always_inline void cxb_rx_hash(struct sk_buff *skb, const void *cqe,
					u16 l4_mask, enum cxb_gen gen)
{
	const struct mlx4_cqe *c = cqe;
	u16 status;

	if (gen == CXB_GEN_CX5) {
		const struct mlx5_cqe64 *c5 = cqe;

		if (c5->rss_hash_type & CQE_RSS_HTYPE_IP)
			skb_set_hash(skb, be32_to_cpu(c5->rss_hash_result),
				     c5->rss_hash_type & CQE_RSS_HTYPE_L4 ?
				     PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
		return;
	}
	status = be16_to_cpu(c->status);
	if (!(status & (MLX4_CQE_STATUS_IPV4 | MLX4_CQE_STATUS_IPV6)))
		return;
	skb_set_hash(skb, be32_to_cpu(c->immed_rss_invalid),
		     (status & l4_mask) && !(status & MLX4_CQE_STATUS_IPV4F) ?
		     PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
}

/* The tag the device stripped (it does only if asked). */
static __always_inline void cxb_rx_vlan(struct sk_buff *skb, const void *cqe,
					enum cxb_gen gen)
{
	const struct mlx4_cqe *c = cqe;

	if (gen == CXB_GEN_CX5) {
		const struct mlx5_cqe64 *c5 = cqe;

		if (cxb_mlx5_rx_has_vlan(c5))
			__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
					       be16_to_cpu(c5->vlan_info));
		return;
	}
	if (c->vlan_my_qpn & cpu_to_be32(MLX4_CQE_CVLAN_PRESENT_MASK))
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       be16_to_cpu(c->sl_vid));
}

/* The receive completion walk, for a generation @gen (a constant at both
 * callers, cxb_mlx4_rx_poll() and cxb_mlx5_rx_poll()).
 */
static __always_inline int __cxb_rx_poll(struct cxb_channel *ch, int budget,
					 enum cxb_gen gen)
{
	struct net_device *dev = ch->priv->netdev;
	bool rxcsum = dev->features & NETIF_F_RXCSUM;
	bool rxhash = dev->features & NETIF_F_RXHASH;
	u16 l4_mask = MLX4_CQE_STATUS_TCP |
		      (ch->priv->cadev->rss_udp ? MLX4_CQE_STATUS_UDP : 0);
	struct cxb_rx_ring *ring = &ch->rx;
	u32 truesize = PAGE_SIZE << ring->page_order;
	u32 bytes = 0, dropped = 0, csum_ok = 0, err = 0, crc = 0;
	struct cxb_xdp_poll xst = {};
	struct cxb_cq *cq = &ch->rx_cq;
	const void *cqe;
	struct bpf_prog *prog;
	struct xdp_buff xdp;
	u32 ci = cq->ci;
	int done = 0;

	/* One program for the whole poll; NAPI is an RCU reader. */
	prog = rcu_dereference_bh(ring->xdp_prog);
	if (prog)
		xdp_init_buff(&xdp, truesize, &ring->xdp_rxq);

	while (done < budget && (cqe = cxb_rx_cq_next(cq, ci, gen))) {
		u32 len, off = CXB_RX_HEADROOM;
		struct cxb_rx_info *info;
		struct sk_buff *skb;
		struct page *page;
		void *va;

		info = &ring->rx_info[ring->cons & ring->size_mask];
		page = info->page;
		info->page = NULL;
		ring->cons++;
		ci++;
		done++;

		/* A completion in error (its byte count means nothing) or a
		 * frame with a bad FCS: dropped, as mlx4_en does, the page
		 * back to the pool unread.
		 */
		if (unlikely(cxb_rx_cqe_err(cqe, gen) ||
			     cxb_rx_cqe_bad_fcs(cqe, gen))) {
			if (cxb_rx_cqe_err(cqe, gen)) {
				cxb_rx_err_cqe(ch, cqe, gen);
				err++;
			} else {
				crc++;
			}
			page_pool_recycle_direct(ring->pool, page);
			continue;
		}
		len = cxb_rx_cqe_len(cqe, gen);
		if (unlikely(len < ETH_HLEN || len > ring->buf_len)) {
			page_pool_recycle_direct(ring->pool, page);
			dropped++;
			continue;
		}
		dma_sync_single_range_for_cpu(ring->dma_dev,
					      page_pool_get_dma_addr(page),
					      CXB_RX_HEADROOM, len,
					      page_pool_get_dma_dir(ring->pool));
		if (prog && cxb_xdp_rx(ch, prog, &xdp, page, &off, &len, &xst)) {
			/* rx_packets counts it, rx_bytes only passed frames */
			xst.consumed++;
			continue;
		}

		va = page_address(page);
		skb = napi_build_skb(va, truesize);
		if (unlikely(!skb)) {
			page_pool_recycle_direct(ring->pool, page);
			dropped++;
			continue;
		}
		/* Freed skbs give the page back to the pool. */
		skb_mark_for_recycle(skb);
		skb_reserve(skb, off);
		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, dev);
		if (likely(rxcsum) && cxb_rx_csum_ok(cqe, gen)) {
			skb->ip_summed = CHECKSUM_UNNECESSARY;
			csum_ok++;
		}
		if (rxhash)
			cxb_rx_hash(skb, cqe, l4_mask, gen);
		cxb_rx_vlan(skb, cqe, gen);
		skb_record_rx_queue(skb, ch->idx);
		bytes += len;
		napi_gro_receive(&ch->napi, skb);
	}

	if (!done)
		return 0;

	cxb_mlx4_cq_set_ci(cq, ci);
	if (prog)
		cxb_xdp_poll_end(ch, &xst);
	cxb_rx_ring_fill(ring, GFP_ATOMIC);

	/* error CQEs in rx_dropped too; bad FCS in rx_crc_errors only */
	dropped += err;
	u64_stats_update_begin(&ring->stats_sync);
	ring->stats.packets += done - dropped - crc;
	ring->stats.bytes += bytes;
	ring->stats.dropped += dropped;
	ring->stats.err_cqe += err;
	ring->stats.crc_errors += crc;
	ring->stats.cqes += done;
	ring->stats.csum_unnecessary += csum_ok;
	ring->stats.csum_none += done - dropped - crc - xst.consumed - csum_ok;
	if (prog) {
		ring->stats.xdp_drop += xst.drop;
		ring->stats.xdp_pass += xst.pass;
		ring->stats.xdp_tx += xst.tx;
		ring->stats.xdp_tx_full += xst.tx_full;
		ring->stats.xdp_redirect += xst.redirect;
		ring->stats.xdp_aborted += xst.aborted;
		ring->stats.xdp_tx_polls += xst.tx_posted;
	}
	u64_stats_update_end(&ring->stats_sync);
	return done;
}

/* ---- CQ, interrupt, NAPI ----------------------------------------------- */

void cxb_cq_arm(struct cxb_cq *cq)
{
	union {
		__be32 w[2];
		u64 q;
	} arm;

	/* The generation's words: mlx5_cq_arm() puts the consumer index
	 * first and the CQN second, mlx4_cq_arm() the other way round.
	 */
	if (cq->gen == CXB_GEN_CX5) {
		cxb_mlx5_cq_arm_words(cq->arm_sn, cq->cqn, cq->ci, arm.w);
		cq->db_rec[1] = cxb_mlx5_cq_arm_rec(cq->arm_sn, cq->ci);
	} else {
		cxb_mlx4_cq_arm_words(cq->arm_sn, cq->cqn, cq->ci, arm.w);
		cq->db_rec[1] = cxb_mlx4_cq_arm_rec(cq->arm_sn, cq->ci);
	}
	WRITE_ONCE(cq->armed, true);
	/* The arm record must be visible before the device sees the arm. */
	wmb();
	/* Both words in one 64-bit write, as mlx4_cq_arm() and
	 * mlx5_cq_arm() do: they are in device byte order already, so a
	 * raw store keeps them as they are.
	 */
#ifdef CONFIG_64BIT
	__raw_writeq(arm.q, cq->db_reg);
#else
	__iowrite64_copy(cq->db_reg, arm.w, 1);
#endif
	cxb_mmio_notify(cq->ch->priv->cadev, cq->db_reg, sizeof(u64));
}

void cxb_comp_event(void *ctx)
{
	struct cxb_cq *cq = ctx;

	cq->arm_sn++;
	cq->irqs++;
	WRITE_ONCE(cq->armed, false);
	napi_schedule_irqoff(&cq->ch->napi);
}

/* Re-arm the channel's CQs whose interrupt fired. One that did not fire
 * is still armed in the device (an arm lasts until its event), whatever
 * this poll consumed from it: re-arming it would cost a register write
 * and change nothing. If its event comes while this runs, the interrupt
 * clears armed and schedules the poll again, which arms it.
 */
void cxb_channel_arm(struct cxb_channel *ch)
{
	if (!READ_ONCE(ch->tx_cq.armed))
		cxb_cq_arm(&ch->tx_cq);
	if (!READ_ONCE(ch->rx_cq.armed))
		cxb_cq_arm(&ch->rx_cq);
	if (ch->xdpsq.created && !READ_ONCE(ch->xdp_cq.armed))
		cxb_cq_arm(&ch->xdp_cq);
}

/* The NAPI poll after a generation's send completion walk (@tx_done: it
 * handled all): the XDP send queue, the receive ring, the re-arm.
 */
static int cxb_mlx4_rx_poll(struct cxb_channel *ch, int budget)
{
	return __cxb_rx_poll(ch, budget, CXB_GEN_CX3);
}

static int cxb_mlx5_rx_poll(struct cxb_channel *ch, int budget)
{
	return __cxb_rx_poll(ch, budget, CXB_GEN_CX5);
}

int cxb_napi_poll_finish(struct cxb_channel *ch, int budget, bool tx_done,
			 enum cxb_gen gen)
{
	int rx_done;

	if (unlikely(!budget))
		return 0;
	if (ch->xdpsq.created && !cxb_xdp_complete(ch, budget, true))
		tx_done = false;

	rx_done = gen == CXB_GEN_CX5 ? cxb_mlx5_rx_poll(ch, budget) :
				       cxb_mlx4_rx_poll(ch, budget);
	/* No buffer posted (refills failed): no receive completion would
	 * poll again, so keep polling until a refill succeeds.
	 */
	if (unlikely(ch->rx.prod == ch->rx.cons) &&
	    cxb_rx_ring_fill(&ch->rx, GFP_ATOMIC))
		return budget;
	if (!tx_done || rx_done == budget)
		return budget;

	if (napi_complete_done(&ch->napi, rx_done))
		cxb_channel_arm(ch);
	return rx_done;
}
