// SPDX-License-Identifier: GPL-2.0
/* cxbell datapath: ConnectX-3 send and receive rings, completions, NAPI.
 *
 * The one rule this file exists for: the device hears about new send
 * work only when the stack says no more packets follow (xmit_more false)
 * or the queue had to stop. Every other packet just lands in ring memory.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/io.h>
#include <linux/prefetch.h>
#include <linux/skbuff.h>
#include <net/page_pool.h>

#include "cxbell.h"

static void cxb_mmio_notify(struct cxb_adev *cadev, void __iomem *reg,
			    unsigned int len)
{
	if (cadev->ops->mmio_notify)
		cadev->ops->mmio_notify(cadev, reg, len);
}

/* ---- TX ---------------------------------------------------------------- */

/* Each writer's fields fit the one cache line it owns. */
static_assert(offsetof(struct cxb_tx_ring, prod) -
	      offsetof(struct cxb_tx_ring, cons) <= SMP_CACHE_BYTES);
static_assert(offsetof(struct cxb_tx_ring, xstats_sync) -
	      offsetof(struct cxb_tx_ring, prod) <= SMP_CACHE_BYTES);
static_assert(offsetof(struct cxb_tx_ring, buf) -
	      offsetof(struct cxb_tx_ring, prod) <= 2 * SMP_CACHE_BYTES);
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
	ring->db_pending = false;
	ring->bf_offset = 0;
	ring->dma_prod = 0;
	ring->dma_cons = 0;
	ring->watch_cons = 0;
	ring->watch_prod = 0;
	ring->err_seen = false;
	ring->db_retry = false;
}

/* The helpers the cx5 path shares through the wrappers below are forced
 * inline, so the cx3 path compiles as it did before it had a second user.
 */
static __always_inline void cxb_tx_ring_doorbell(struct cxb_tx_ring *ring)
{
	if (ring->gen == CXB_GEN_CX5) {
		cxb_mlx5_tx_doorbell(ring);
		return;
	}
	cxb_mlx4_send_doorbell(ring->db_reg, ring->doorbell_qpn);
	if (unlikely(ring->mmio_notify))
		ring->mmio_notify(ring->cadev, ring->db_reg, sizeof(u32));
}

/* BlueFlame: the WQE itself goes through the write-combining register. */
static void cxb_tx_bf_post(struct cxb_tx_ring *ring, const void *wqe,
			   u32 nr_txbb)
{
	void __iomem *reg = ring->bf_reg + ring->bf_offset;
	u32 bytes = nr_txbb << CXB_MLX4_TXBB_SHIFT;

	/* The ring copy, owner bit included, must be in memory before the
	 * device can see the BlueFlame copy: it checks one against the other
	 * and falls back to the ring after errors.
	 */
	wmb();
	__iowrite64_copy(reg, wqe, bytes / 8);
	/* Flush the write-combining buffer now, so this post reaches the
	 * device whole and before the next one fills the other buffer.
	 */
	wmb();
	ring->bf_offset ^= ring->bf_size;
	if (unlikely(ring->mmio_notify))
		ring->mmio_notify(ring->cadev, reg, bytes);
}

static inline void cxb_set_data_seg(struct mlx4_wqe_data_seg *dseg,
				    dma_addr_t addr, u32 len, __be32 lkey)
{
	dseg->addr = cpu_to_be64(addr);
	dseg->lkey = lkey;
	dseg->byte_count = cpu_to_be32(len);
}

/* Fill the @nr_txbb TXBBs from @prod to the ring end with one-TXBB NOP
 * WQEs that ask for no completion, nor an error completion (NEC: mlx4_ib
 * set it on its NOPs, for firmware 2.2.232 and later,
 * MLX4_FW_VER_WQE_CTRL_NEC); the completion of the next real WQE frees
 * them. One TXBB each, so that every TXBB's first dword is an owner
 * written last: a NOP of several TXBBs would leave stale blocks inside
 * it. Its body is what mlx4_ib's post_nop_wqe() wrote: one inline segment
 * header over the rest of the TXBB.
 */
static void cxb_tx_post_nop(struct cxb_tx_ring *ring, u32 prod, u32 nr_txbb)
{
	u32 ds = CXB_MLX4_TXBB_SIZE / CXB_MLX4_DS_SIZE;
	u32 end = prod + nr_txbb;

	for (; prod != end; prod++) {
		u32 idx = prod & ring->size_mask;
		struct mlx4_wqe_ctrl_seg *ctrl =
			ring->buf + (idx << CXB_MLX4_TXBB_SHIFT);
		struct mlx4_wqe_inline_seg *inl = (void *)(ctrl + 1);
		struct cxb_tx_info *info = &ring->tx_info[idx];

		info->skb = NULL;
		info->nr_txbb = 1;
		info->nr_frags = 0;
		info->map0_len = 0;
		info->nr_bytes = 0;

		ctrl->qpn_vlan.vlan_tag = 0;
		ctrl->qpn_vlan.ins_vlan = 0;
		ctrl->qpn_vlan.fence_size = ds;
		ctrl->srcrb_flags = 0;
		ctrl->imm = 0;
		inl->byte_count = cxb_mlx4_inline_bc(CXB_MLX4_INLINE_FIRST_MAX);
		dma_wmb();
		ctrl->owner_opcode = cpu_to_be32(MLX4_OPCODE_NOP |
						 MLX4_WQE_CTRL_NEC |
						 cxb_mlx4_owner(prod, ring->size));
	}
}

/* Copy the packet into inline segments (wqe/mlx4.h: none crosses a
 * 64-byte boundary). DS is cxb_mlx4_inline_ds() of at least
 * CXB_MLX4_INLINE_MIN bytes.
 */
static void cxb_tx_write_inline(struct mlx4_wqe_ctrl_seg *ctrl,
				const struct sk_buff *skb)
{
	u32 off = 0, left = skb->len, i;

	/* Zero padding up to the least the device takes inline, all in
	 * the first segment (mlx4_en, en_tx.c: MIN_PKT_LEN).
	 */
	if (unlikely(left < CXB_MLX4_INLINE_MIN)) {
		struct mlx4_wqe_inline_seg *inl = (void *)(ctrl + 1);

		skb_copy_bits(skb, 0, inl + 1, left);
		memset((void *)(inl + 1) + left, 0, CXB_MLX4_INLINE_MIN - left);
		inl->byte_count = cxb_mlx4_inline_bc(CXB_MLX4_INLINE_MIN);
		return;
	}
	for (i = 0; left; i++) {
		struct mlx4_wqe_inline_seg *inl =
			(void *)ctrl + cxb_mlx4_inline_seg_off(i);
		u32 n = min(left, cxb_mlx4_inline_seg_max(i));

		skb_copy_bits(skb, off, inl + 1, n);
		/* segments past the first start a TXBB: their header is its
		 * first dword, stored after the data (mlx4_en, en_tx.c
		 * build_inline_wqe(): dma_wmb() before the byte_count)
		 */
		if (i)
			dma_wmb();
		inl->byte_count = cxb_mlx4_inline_bc(n);
		off += n;
		left -= n;
	}
}

static void cxb_tx_unmap_frags(struct cxb_tx_ring *ring, u32 from, u32 n)
{
	while (n--) {
		struct cxb_dma_ent *e = &ring->dma_fifo[from++ & ring->dma_mask];

		dma_unmap_page(ring->dma_dev, e->addr, e->len, DMA_TO_DEVICE);
	}
}

static void cxb_tx_drop(struct cxb_tx_ring *ring, struct sk_buff *skb)
{
	dev_kfree_skb_any(skb);
	u64_stats_update_begin(&ring->xstats_sync);
	ring->dropped++;
	u64_stats_update_end(&ring->xstats_sync);
}

/* A send data segment: its byte count, the first dword, last. A segment
 * that starts a TXBB holds that TXBB's first dword, by which the HCA
 * judges whether the 64-byte block is valid (mlx4_en, en_tx.c
 * mlx4_en_build_dma_wqe(): dma_wmb() before each byte_count).
 */
static inline void cxb_tx_set_data_seg(struct mlx4_wqe_data_seg *dseg,
				       dma_addr_t addr, u32 len, __be32 lkey)
{
	dseg->addr = cpu_to_be64(addr);
	dseg->lkey = lkey;
	dma_wmb();
	dseg->byte_count = cpu_to_be32(len);
}

/* Map the skb and write its data segments; false if a mapping failed.
 * The segments are written from the last to the first, as mlx4_en does
 * (en_tx.c): each TXBB's first dword is stored after the rest of it.
 */
static __always_inline bool
cxb_tx_map(struct cxb_tx_ring *ring, struct sk_buff *skb,
	   struct cxb_tx_info *info, struct mlx4_wqe_data_seg *dseg,
	   u32 headlen, u32 nr_frags)
{
	u32 i = nr_frags, mapped = 0;
	dma_addr_t dma;

	/* the last segment: the linear part's, if any, comes first */
	dseg += !!headlen;
	while (i--) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		u32 len = skb_frag_size(frag);
		struct cxb_dma_ent *e;

		dma = skb_frag_dma_map(ring->dma_dev, frag, 0, len,
				       DMA_TO_DEVICE);
		if (unlikely(dma_mapping_error(ring->dma_dev, dma)))
			goto err_unmap;
		e = &ring->dma_fifo[ring->dma_prod++ & ring->dma_mask];
		e->addr = dma;
		e->len = len;
		cxb_tx_set_data_seg(dseg + i, dma, len, ring->lkey);
		mapped++;
	}
	info->map0_len = 0;
	if (headlen) {
		dma = cxb_dma_map_linear(ring->dma_dev, skb->data, headlen);
		if (unlikely(dma_mapping_error(ring->dma_dev, dma)))
			goto err_unmap;
		info->map0_addr = dma;
		info->map0_len = headlen;
		cxb_tx_set_data_seg(dseg - 1, dma, headlen, ring->lkey);
	}
	info->nr_frags = nr_frags;
	return true;

err_unmap:
	cxb_tx_unmap_frags(ring, ring->dma_prod - mapped, mapped);
	ring->dma_prod -= mapped;
	return false;
}

/* Doorbell avoidance (doorbell_opt bit 0): called when a doorbell is due,
 * after the WQE was handed over. Returns true if it may be skipped because
 * a completion is on its way and the completion handler will ring it.
 *
 * xmit publishes db_pending, then reads cons; completion publishes cons,
 * then reads db_pending (both with a full barrier in between), so at least
 * one of them sees the other's write: either xmit sees that nothing is
 * outstanding and rings itself, or completion sees the pending flag and
 * rings for everything posted so far. If that ring needs the xmit lock and
 * cannot have it (taken, or netpoll), the completion side keeps the duty:
 * db_pending stays set and db_retry makes a later poll ring it, CQE or not.
 */
static __always_inline bool cxb_tx_defer_doorbell(struct cxb_tx_ring *ring)
{
	u32 bell = READ_ONCE(ring->prod_bell);

	if (ring->prod - bell >= ring->db_limit) {
		ring->doorbell_forced++;
		return false;
	}
	/* The WQE's owner bit before the flag the completion side reads. */
	smp_store_release(&ring->db_pending, true);
	/* Flag before cons: pairs with the smp_mb() in cxb_tx_complete(). */
	smp_mb();
	if ((s32)(bell - READ_ONCE(ring->cons)) > 0) {
		ring->doorbell_deferred++;
		return true;
	}
	WRITE_ONCE(ring->db_pending, false);
	return false;
}

/* Would cxb_tx_defer_doorbell() defer the doorbell of a WQE ending at
 * @end? The same tests, without side effects, before the WQE is built.
 */
static __always_inline bool cxb_tx_may_defer(const struct cxb_tx_ring *ring,
					     u32 end)
{
	u32 bell = READ_ONCE(ring->prod_bell);

	return end - bell < ring->db_limit &&
	       (s32)(bell - READ_ONCE(ring->cons)) > 0;
}

/* A packet for a TX queue no channel serves: the netdev has a queue per
 * possible channel and the stack starts them all (netif_tx_start_all_queues()),
 * while only the first num_ch have a ring. The stack itself picks among
 * real_num_tx_queues, but a sender that set the queue mapping before
 * ethtool -L shrank the channels keeps it (pktgen reuses one skb with
 * clone_skb). Dropped, with no ring touched; counted per port (there is
 * no ring to count on), in tx_dropped.
 */
static noinline netdev_tx_t cxb_tx_drop_no_ring(struct cxb_priv *priv,
						struct sk_buff *skb)
{
	dev_kfree_skb_any(skb);
	atomic64_inc(&priv->tx_dropped_no_ring);
	return NETDEV_TX_OK;
}

netdev_tx_t cxb_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);
	u16 qidx = skb_get_queue_mapping(skb);
	u32 nr_frags = skb_shinfo(skb)->nr_frags;
	u32 headlen = skb_headlen(skb);
	struct mlx4_wqe_ctrl_seg *ctrl;
	bool xmit_more, send_db, bf;
	u32 ds, nr_txbb, idx, prod, pad;
	struct cxb_tx_ring *ring;
	struct cxb_tx_info *info;
	bool stopped = false;
	__be32 srcrb, op_own;
	bool inl;

	/* ch and num_ch change only while every queue is stopped, after
	 * netif_tx_disable() took each queue's xmit lock, which this call
	 * holds: both are stable here. Either generation.
	 */
	if (unlikely(qidx >= priv->num_ch))
		return cxb_tx_drop_no_ring(priv, skb);
	ring = &priv->ch[qidx]->tx;
	if (ring->gen == CXB_GEN_CX5)
		return cxb_mlx5_start_xmit(ring, skb);
	prefetchw(&ring->txq->dql);

	inl = skb->len <= ring->inline_max;
	if (inl) {
		ds = cxb_mlx4_inline_ds(max(skb->len, CXB_MLX4_INLINE_MIN));
	} else {
		ds = 1 + nr_frags + !!headlen;
		if (unlikely(ds > CXB_MLX4_MAX_DS)) {
			if (skb_linearize(skb))
				goto drop;
			nr_frags = 0;
			headlen = skb_headlen(skb);
			ds = 2;
		}
	}
	nr_txbb = cxb_mlx4_ds_to_txbbs(ds);

	/* A WQE that would cross the ring end goes to index 0, behind a NOP
	 * padding the TXBBs up to the end.
	 */
	prod = ring->prod;
	idx = prod & ring->size_mask;
	pad = 0;
	if (unlikely(idx + nr_txbb > ring->size)) {
		pad = ring->size - idx;
		idx = 0;
	}
	ctrl = ring->buf + (idx << CXB_MLX4_TXBB_SHIFT);
	info = &ring->tx_info[idx];

	/* Segments first, at their final place: a failed mapping must leave
	 * nothing owned by the device (mlx4_en, en_tx.c, also maps before it
	 * writes an owner bit).
	 */
	if (inl) {
		cxb_tx_write_inline(ctrl, skb);
		info->map0_len = 0;
		info->nr_frags = 0;
	} else if (unlikely(!cxb_tx_map(ring, skb, info,
					(struct mlx4_wqe_data_seg *)(ctrl + 1),
					headlen, nr_frags))) {
		goto drop;
	}
	/* The WQE will be posted: now the pad may be handed over. */
	if (unlikely(pad)) {
		cxb_tx_post_nop(ring, prod, pad);
		prod += pad;
	}
	info->skb = skb;
	info->nr_txbb = nr_txbb;
	info->nr_bytes = skb->len;

	srcrb = cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE);
	if (likely(skb->ip_summed == CHECKSUM_PARTIAL))
		srcrb |= cpu_to_be32(MLX4_WQE_CTRL_IP_CSUM |
				     MLX4_WQE_CTRL_TCP_UDP_CSUM);
	ctrl->srcrb_flags = srcrb;
	ctrl->imm = 0;

	/* Stop before the next packet could find no room. */
	if (unlikely(cxb_tx_free(ring, prod + nr_txbb, READ_ONCE(ring->cons)) <
		     CXB_TX_STOP_ROOM)) {
		netif_tx_stop_queue(ring->txq);
		stopped = true;
	}

	/* True when the doorbell is due: no more packets follow, or stopped. */
	xmit_more = netdev_xmit_more();
	send_db = __netdev_tx_sent_queue(ring->txq, info->nr_bytes, xmit_more);

	skb_tx_timestamp(skb);

	/* BlueFlame carries this WQE only if it is the one ringing, and it
	 * fits one BF buffer; such a WQE names its QP and ring index.
	 */
	bf = send_db && ring->bf_on &&
	     (nr_txbb << CXB_MLX4_TXBB_SHIFT) <= ring->bf_size;
	/* Nor if doorbell avoidance will defer it: a plain doorbell would
	 * announce it later, and mlx4_en (en_tx.c) never leaves a WQE in
	 * that layout without its BlueFlame write. With BlueFlame on, all
	 * else that moves prod_bell holds this queue's xmit lock, and cons
	 * only closes on prod_bell: a doorbell found due here is still due
	 * when cxb_tx_defer_doorbell() decides, below. The converse does
	 * not hold (a completion may come in between): then the plain
	 * layout gets a plain doorbell.
	 */
	if (bf && unlikely(ring->db_opt & CXB_DB_OPT_AVOID) &&
	    cxb_tx_may_defer(ring, prod + nr_txbb))
		bf = false;
	if (bf) {
		/* cxb_mlx4_bf_qpn(), from the pre-swapped doorbell value */
		ctrl->qpn_vlan.bf_qpn = ring->doorbell_qpn | cpu_to_be32(ds);
		op_own = cxb_mlx4_bf_owner_opcode(MLX4_OPCODE_SEND, prod,
						  ring->size);
	} else {
		op_own = cpu_to_be32(MLX4_OPCODE_SEND |
				     cxb_mlx4_owner(prod, ring->size));
		ctrl->qpn_vlan.vlan_tag = 0;
		ctrl->qpn_vlan.ins_vlan = 0;
		ctrl->qpn_vlan.fence_size = ds;
	}

	/* Segments before ownership: the device may look at it any time. */
	dma_wmb();
	ctrl->owner_opcode = op_own;
	/* Publish prod only now: a completion-side doorbell that reads it
	 * must find every WQE below it owned by the device.
	 */
	smp_store_release(&ring->prod, prod + nr_txbb);

	u64_stats_update_begin(&ring->xstats_sync);
	if (send_db && unlikely(ring->db_opt & CXB_DB_OPT_AVOID) &&
	    cxb_tx_defer_doorbell(ring)) {
		send_db = false;
		xmit_more = false;	/* counted as deferred */
	}
	if (send_db) {
		if (bf) {
			cxb_tx_bf_post(ring, ctrl, nr_txbb);
			ring->blueflame++;
		} else {
			cxb_tx_ring_doorbell(ring);
			ring->doorbells++;
		}
		WRITE_ONCE(ring->prod_bell, ring->prod);
		ring->doorbell_on_stop += xmit_more;
	} else {
		ring->xmit_more += xmit_more;
	}
	ring->packets++;
	ring->bytes += info->nr_bytes;
	ring->inlined += inl;
	ring->queue_stopped += stopped;
	u64_stats_update_end(&ring->xstats_sync);

	if (unlikely(stopped))
		cxb_tx_stop_recheck(ring);
	return NETDEV_TX_OK;

drop:
	cxb_tx_drop(ring, skb);
	/* A dropped packet may end a burst whose doorbell was deferred:
	 * announce what is already posted.
	 */
	if (!netdev_xmit_more() && ring->prod != READ_ONCE(ring->prod_bell)) {
		cxb_tx_ring_doorbell(ring);
		WRITE_ONCE(ring->prod_bell, ring->prod);
		u64_stats_update_begin(&ring->xstats_sync);
		ring->doorbells++;
		u64_stats_update_end(&ring->xstats_sync);
	}
	return NETDEV_TX_OK;
}

/* The shared ring discipline for the other generations' files
 * (cxbell_tx_mlx5.c). Wrappers, so the cx3 path keeps its helpers
 * static and inlined.
 */
bool cxb_tx_map_segs(struct cxb_tx_ring *ring, struct sk_buff *skb,
		     struct cxb_tx_info *info, struct mlx4_wqe_data_seg *dseg,
		     u32 headlen, u32 nr_frags)
{
	return cxb_tx_map(ring, skb, info, dseg, headlen, nr_frags);
}

bool cxb_tx_defer_doorbell_gen(struct cxb_tx_ring *ring)
{
	return cxb_tx_defer_doorbell(ring);
}

/* Ring a doorbell avoidance deferred, if any. Queue xmit lock held. */
static bool cxb_tx_ring_deferred_locked(struct cxb_tx_ring *ring)
{
	if (!xchg(&ring->db_pending, false) || ring->prod_bell == ring->prod)
		return false;
	cxb_tx_ring_doorbell(ring);
	WRITE_ONCE(ring->prod_bell, ring->prod);
	return true;
}

/* Doorbell avoidance turned off: ring what it deferred. Queue xmit lock
 * held.
 */
void cxb_tx_flush_deferred(struct cxb_tx_ring *ring)
{
	if (!cxb_tx_ring_deferred_locked(ring))
		return;
	/* Rung for deferred packets, not for one being sent: reported in
	 * tx_doorbell_by_completion (and tx_doorbells).
	 */
	u64_stats_update_begin(&ring->xstats_sync);
	ring->doorbell_flushed++;
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
	cxb_tx_ring_doorbell(ring);
	WRITE_ONCE(ring->prod_bell, ring->prod);
	u64_stats_update_begin(&ring->xstats_sync);
	ring->doorbells++;
	ring->doorbell_kick++;
	u64_stats_update_end(&ring->xstats_sync);
	return true;
}

/* Completion side of doorbell avoidance: ring for what xmit deferred.
 * Returns false if a deferred doorbell is left for a later poll
 * (db_retry): the xmit lock it needs was taken, or @budget is 0.
 */
static __always_inline bool
cxb_tx_completion_doorbell(struct cxb_tx_ring *ring, int budget)
{
	u32 bell, prod;
	bool rang;

	if (!READ_ONCE(ring->db_pending))
		return true;
	if (READ_ONCE(ring->db_locked)) {
		/* xmit may sit between the owner bit and the BlueFlame copy of
		 * a WQE: a doorbell now would announce it before its BF post.
		 * Ring with xmit excluded instead. An mlx5 doorbell names the
		 * last WQE xmit posted: the same. Never wait for the lock:
		 * netpoll polls us (budget 0) with IRQs off, maybe owning the
		 * console, which an IRQ on the lock holder may be waiting for;
		 * and a poll nested in the holder's own xmit (softirqs run by
		 * a bottom-half enable there) would spin on itself. mlx4_en
		 * and mlx5e (their en_tx.c) take no xmit lock in their
		 * completion handlers.
		 */
		if (!budget || !__netif_tx_trylock(ring->txq)) {
			WRITE_ONCE(ring->db_retry, true);
			return false;
		}
		WRITE_ONCE(ring->db_retry, false);
		rang = cxb_tx_ring_deferred_locked(ring);
		__netif_tx_unlock(ring->txq);
		if (rang)
			goto count;
		return true;
	}
	if (!xchg(&ring->db_pending, false))
		return true;
	bell = READ_ONCE(ring->prod_bell);
	/* Pairs with the release in xmit: WQEs below prod are owned. */
	prod = smp_load_acquire(&ring->prod);
	if (bell == prod)
		return true;
	/* With a plain store two racing ringers may move prod_bell back;
	 * that only costs an extra doorbell later (see cxbell.rst). With
	 * cmpxchg the loser knows the winner's doorbell covers its WQEs.
	 */
	if (READ_ONCE(ring->db_opt) & CXB_DB_OPT_PLAIN)
		WRITE_ONCE(ring->prod_bell, prod);
	else if (cmpxchg(&ring->prod_bell, bell, prod) != bell)
		return true;
	cxb_tx_ring_doorbell(ring);
count:
	/* Reported within tx_doorbells too (cxb_get_tx_stats()). */
	u64_stats_update_begin(&ring->cstats_sync);
	ring->doorbell_by_completion++;
	u64_stats_update_end(&ring->cstats_sync);
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
	return cxb_tx_completion_doorbell(ring, budget);
}

/* Stamp the TXBBs of a freed WQE but its first (the ctrl keeps its owner). */
static void cxb_tx_stamp(struct cxb_tx_ring *ring, u32 cons, u32 nr_txbb)
{
	__be32 stamp = cpu_to_be32(CXB_MLX4_STAMP |
				   cxb_mlx4_owner(cons, ring->size));
	u32 i;

	for (i = 1; i < nr_txbb; i++) {
		u32 idx = (cons + i) & ring->size_mask;

		*(__be32 *)(ring->buf + (idx << CXB_MLX4_TXBB_SHIFT)) = stamp;
	}
}

static __always_inline u32 cxb_tx_free_wqe(struct cxb_tx_ring *ring, u32 cons,
					   int budget, u32 *bytes)
{
	struct cxb_tx_info *info = &ring->tx_info[cons & ring->size_mask];
	u32 nr_txbb = info->nr_txbb;

	if (info->skb) {
		if (info->map0_len)
			dma_unmap_single(ring->dma_dev, info->map0_addr,
					 info->map0_len, DMA_TO_DEVICE);
		if (info->nr_frags) {
			cxb_tx_unmap_frags(ring, ring->dma_cons, info->nr_frags);
			ring->dma_cons += info->nr_frags;
		}
		*bytes += info->nr_bytes;
		napi_consume_skb(info->skb, budget);
		info->skb = NULL;
	}
	if (nr_txbb > 1)
		cxb_tx_stamp(ring, cons, nr_txbb);
	return nr_txbb;
}

/* An error CQE (either generation): the device failed the WQE at
 * @wqe_index and put the send queue in the error state; it executes
 * nothing more. The completion walk still frees every WQE up to the
 * failed one. Only a full reset brings the queue back (the reset work;
 * not while the datapath is going down anyway).
 */
/* Count a send queue fault (tx_err_cqe); true for the first one since
 * the queue was built, unless it is going down: the caller logs it and
 * schedules the reset.
 */
static bool cxb_tx_fault(struct cxb_tx_ring *ring, bool napi)
{
	u64_stats_update_begin(&ring->cstats_sync);
	ring->err_cqes++;
	u64_stats_update_end(&ring->cstats_sync);
	if (ring->err_seen || !napi)
		return false;
	ring->err_seen = true;
	return true;
}

void cxb_tx_err_cqe(struct cxb_channel *ch, u16 wqe_index, u8 syndrome,
		    u8 vendor_syndrome, bool napi)
{
	if (!cxb_tx_fault(&ch->tx, napi))
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
			   u32 prod, bool napi)
{
	if (!cxb_tx_fault(&ch->tx, napi))
		return;
	if (net_ratelimit())
		netdev_err(ch->priv->netdev,
			   "TX queue %u: CQE for WQE %u, cons %u, %u TXBBs outstanding; resetting\n",
			   ch->idx, wqe_index, (u16)cons, prod - cons);
	cxb_schedule_reset(ch->priv);
}

/* After a completion walk of either generation freed @pkts packets up to
 * @cons from @ncqe CQEs: record the CQ's consumer index (@ci, as the
 * device wants it in @ci_rec), publish cons, feed BQL, wake the queue and
 * ring what doorbell avoidance deferred. Returns true when all pending
 * completions were handled and no deferred doorbell is left for later.
 */
static __always_inline bool
cxb_tx_complete_finish(struct cxb_tx_ring *ring, struct cxb_cq *cq, u32 ci,
		       __be32 ci_rec, u32 ncqe, u32 cons, u32 pkts, u32 bytes,
		       int budget, bool napi)
{
	cq->ci = ci;
	*cq->db_rec = ci_rec;

	u64_stats_update_begin(&ring->cstats_sync);
	ring->cqes += ncqe;
	u64_stats_update_end(&ring->cstats_sync);

	/* xmit reads cons without the queue lock: publish it last. */
	smp_store_release(&ring->cons, cons);
	netdev_tx_completed_queue(ring->txq, pkts, bytes);

	/* Pairs with the smp_mb() after the stop in either xmit. */
	smp_mb();
	if (unlikely(netif_tx_queue_stopped(ring->txq)) && napi &&
	    cxb_tx_free(ring, READ_ONCE(ring->prod), cons) >=
	    CXB_TX_WAKE_ROOM && cxb_tx_clear_stop(ring->txq)) {
		/* netif_tx_wake_queue(), counted only if this call woke it:
		 * xmit's recheck may have undone the stop meanwhile. BQL's
		 * own stop, if set, schedules the queue when it clears.
		 */
		netif_schedule_queue(ring->txq);
		u64_stats_update_begin(&ring->cstats_sync);
		ring->wake_queue++;
		u64_stats_update_end(&ring->cstats_sync);
	}
	/* Only a poll that completed something rings a deferred doorbell
	 * (or one that retries what an earlier poll had to leave). Left
	 * for later: not done, so NAPI polls again.
	 */
	if (napi && !cxb_tx_completion_doorbell(ring, budget))
		return false;
	return ncqe < CXB_TX_CQ_BUDGET;
}

/* The cx5 completion walk's copy of it (cxbell_tx_mlx5.c). */
bool cxb_tx_complete_finish_gen(struct cxb_tx_ring *ring, struct cxb_cq *cq,
				u32 ci, __be32 ci_rec, u32 ncqe, u32 cons,
				u32 pkts, u32 bytes, int budget, bool napi)
{
	return cxb_tx_complete_finish(ring, cq, ci, ci_rec, ncqe, cons, pkts,
				      bytes, budget, napi);
}

/* Returns true when all pending TX completions were handled. @napi false:
 * the interface is going down, leave the queue stopped.
 */
static bool cxb_tx_complete(struct cxb_channel *ch, int budget, bool napi)
{
	struct cxb_tx_ring *ring = &ch->tx;
	struct cxb_cq *cq = &ch->tx_cq;
	u32 ci = cq->ci, cons = ring->cons, prod = cons;
	u32 pkts = 0, bytes = 0, ncqe = 0;
	struct mlx4_cqe *cqe;

	while (cxb_mlx4_cq_next(cq, ci, &cqe)) {
		u16 wqe_index;

		if (unlikely(ncqe == CXB_TX_CQ_BUDGET))
			break;
		wqe_index = be16_to_cpu(cqe->wqe_index);
		/* A walk to a WQE that is not outstanding would free WQEs the
		 * device still owns and move cons past prod.
		 */
		if (unlikely(!cxb_cqe_outstanding(&ring->prod, &prod, cons,
						  wqe_index)))
			goto bad;
		if (unlikely(cxb_mlx4_cqe_is_err(cqe))) {
			const struct mlx4_err_cqe *err = (const void *)cqe;

			cxb_tx_err_cqe(ch, wqe_index, err->syndrome,
				       err->vendor_err_syndrome, napi);
		}

		/* Free every WQE up to and including the completed one. */
		for (;;) {
			u16 left = wqe_index - (u16)cons;
			u32 n;

			if (ring->tx_info[cons & ring->size_mask].skb)
				pkts++;
			n = cxb_tx_free_wqe(ring, cons, budget, &bytes);
			cons += n;
			if (!left)
				break;
			/* wqe_index inside this WQE, or a slot never posted */
			if (unlikely(left < n || !n))
				goto bad;
		}
		ci++;
		ncqe++;
		continue;
bad:
		cxb_tx_bad_cqe(ch, wqe_index, cons, prod, napi);
		ci++;
		ncqe++;
		break;
	}

	if (!ncqe)
		return likely(!READ_ONCE(ring->db_retry)) || !napi ||
		       cxb_tx_retry_doorbell(ring, budget);
	return cxb_tx_complete_finish(ring, cq, ci,
				      cpu_to_be32(ci & CXB_MLX4_CI_MASK), ncqe,
				      cons, pkts, bytes, budget, napi);
}

/* Handle the completions a stopped device wrote. Queue disabled. */
void cxb_tx_flush_completions(struct cxb_channel *ch)
{
	if (ch->tx.gen == CXB_GEN_CX5) {
		while (!cxb_mlx5_tx_complete(ch, 0, false))
			;
		return;
	}
	while (!cxb_tx_complete(ch, 0, false))
		;
}

/* Free what the device will never complete (queue destroyed): called with
 * the device stopped and the queue disabled.
 */
void cxb_tx_ring_drain(struct cxb_tx_ring *ring)
{
	u32 bytes = 0, pkts = 0;

	if (ring->gen == CXB_GEN_CX5) {
		cxb_mlx5_tx_ring_drain(ring);
		return;
	}
	while (ring->cons != ring->prod) {
		if (ring->tx_info[ring->cons & ring->size_mask].skb)
			pkts++;
		ring->cons += cxb_tx_free_wqe(ring, ring->cons, 0, &bytes);
	}
	u64_stats_update_begin(&ring->xstats_sync);
	ring->dropped += pkts;
	u64_stats_update_end(&ring->xstats_sync);
	if (ring->txq)
		netdev_tx_reset_queue(ring->txq);
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
 * buffer (struct mlx4_err_cqe names it and says why). The receive queue
 * goes on; the frame is dropped (rx_dropped, rx_err_cqe).
 */
static noinline void cxb_rx_err_cqe(struct cxb_channel *ch,
				    const struct mlx4_cqe *cqe)
{
	const struct mlx4_err_cqe *e = (const void *)cqe;

	if (net_ratelimit())
		netdev_err(ch->priv->netdev,
			   "RX queue %u: error CQE at WQE %u, syndrome %#x vendor %#x\n",
			   ch->idx, be16_to_cpu(e->wqe_index), e->syndrome,
			   e->vendor_err_syndrome);
}

/* True if the device verified the IP header and TCP/UDP checksums. */
static bool cxb_rx_csum_ok(const struct mlx4_cqe *cqe)
{
	u16 status = be16_to_cpu(cqe->status);

	return (status & MLX4_CQE_STATUS_IPOK) &&
	       (status & (MLX4_CQE_STATUS_TCP | MLX4_CQE_STATUS_UDP)) &&
	       cqe->checksum == cpu_to_be16(0xffff);
}

static int cxb_rx_poll(struct cxb_channel *ch, int budget)
{
	struct net_device *dev = ch->priv->netdev;
	bool rxcsum = dev->features & NETIF_F_RXCSUM;
	struct cxb_rx_ring *ring = &ch->rx;
	u32 truesize = PAGE_SIZE << ring->page_order;
	u32 bytes = 0, dropped = 0, csum_ok = 0, err = 0, crc = 0;
	struct cxb_xdp_poll xst = {};
	struct cxb_cq *cq = &ch->rx_cq;
	struct mlx4_cqe *cqe;
	struct bpf_prog *prog;
	struct xdp_buff xdp;
	u32 ci = cq->ci;
	int done = 0;

	/* One program for the whole poll; NAPI is an RCU reader. */
	prog = rcu_dereference_bh(ring->xdp_prog);
	if (prog)
		xdp_init_buff(&xdp, truesize, &ring->xdp_rxq);

	while (done < budget && cxb_mlx4_cq_next(cq, ci, &cqe)) {
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
		if (unlikely(cxb_mlx4_cqe_is_err(cqe) ||
			     (cqe->badfcs_enc & MLX4_CQE_BAD_FCS))) {
			if (cxb_mlx4_cqe_is_err(cqe)) {
				cxb_rx_err_cqe(ch, cqe);
				err++;
			} else {
				crc++;
			}
			page_pool_recycle_direct(ring->pool, page);
			continue;
		}
		len = be32_to_cpu(cqe->byte_cnt);
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
		if (likely(rxcsum) && cxb_rx_csum_ok(cqe)) {
			skb->ip_summed = CHECKSUM_UNNECESSARY;
			csum_ok++;
		}
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
	__be32 w[2];

	cxb_mlx4_cq_arm_words(cq->arm_sn, cq->cqn, cq->ci, w);
	cq->db_rec[1] = cxb_mlx4_cq_arm_rec(cq->arm_sn, cq->ci);
	WRITE_ONCE(cq->armed, true);
	/* The arm record must be visible before the device sees the arm. */
	wmb();
	__iowrite64_copy(cq->db_reg, w, 1);
}

void cxb_comp_event(void *ctx)
{
	struct cxb_cq *cq = ctx;

	cq->arm_sn++;
	cq->irqs++;
	WRITE_ONCE(cq->armed, false);
	napi_schedule_irqoff(&cq->ch->napi);
}

void cxb_channel_arm(struct cxb_channel *ch)
{
	struct cxb_adev *cadev = ch->priv->cadev;

	cxb_cq_arm(&ch->tx_cq);
	cxb_mmio_notify(cadev, ch->tx_cq.db_reg, sizeof(u64));
	cxb_cq_arm(&ch->rx_cq);
	cxb_mmio_notify(cadev, ch->rx_cq.db_reg, sizeof(u64));
	/* The XDP send CQ only after its interrupt fired: an idle one stays
	 * armed and costs no register write per poll.
	 */
	if (ch->xdpsq.created && !READ_ONCE(ch->xdp_cq.armed)) {
		cxb_cq_arm(&ch->xdp_cq);
		cxb_mmio_notify(cadev, ch->xdp_cq.db_reg, sizeof(u64));
	}
}

int cxb_napi_poll(struct napi_struct *napi, int budget)
{
	struct cxb_channel *ch = container_of(napi, struct cxb_channel, napi);
	bool tx_done;
	int rx_done;

	ch->polls++;
	if (ch->tx.gen == CXB_GEN_CX5)
		tx_done = cxb_mlx5_tx_complete(ch, budget, true);
	else
		tx_done = cxb_tx_complete(ch, budget, true);
	if (unlikely(!budget))
		return 0;
	if (ch->xdpsq.created && !cxb_xdp_complete(ch, budget, true))
		tx_done = false;

	rx_done = cxb_rx_poll(ch, budget);
	/* No buffer posted (refills failed): no receive completion would
	 * poll again, so keep polling until a refill succeeds.
	 */
	if (unlikely(ch->rx.prod == ch->rx.cons) &&
	    cxb_rx_ring_fill(&ch->rx, GFP_ATOMIC))
		return budget;
	if (!tx_done || rx_done == budget)
		return budget;

	if (napi_complete_done(napi, rx_done))
		cxb_channel_arm(ch);
	return rx_done;
}
