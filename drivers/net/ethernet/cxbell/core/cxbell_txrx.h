/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell datapath: the send ring discipline both descriptor generations
 * share (cxbell_tx_mlx4.c, cxbell_tx_mlx5.c), forced inline into each
 * generation's own send path and completion walk. Where a helper rings
 * a doorbell it takes the generation as a constant, so each copy names
 * its own doorbell and no branch on the generation is left.
 */
#ifndef _CXBELL_TXRX_H
#define _CXBELL_TXRX_H

#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/jump_label.h>
#include <linux/netdevice.h>
#include <linux/prefetch.h>
#include <linux/skbuff.h>

#include "cxbell.h"

/* A device model that watches MMIO (cxbell_sim) is told of each doorbell,
 * arm and BlueFlame write; on hardware the branch is patched out.
 */
DECLARE_STATIC_KEY_FALSE(cxb_mmio_notify_key);

static __always_inline void cxb_mmio_notify(struct cxb_adev *cadev,
					    void __iomem *reg, unsigned int len)
{
	if (static_branch_unlikely(&cxb_mmio_notify_key) &&
	    cadev->ops->mmio_notify)
		cadev->ops->mmio_notify(cadev, reg, len);
}

/* The mlx4 send doorbell of @ring: its QP number to the UAR. */
static __always_inline void cxb_mlx4_tx_doorbell(struct cxb_tx_ring *ring)
{
	cxb_mlx4_send_doorbell(ring->db_reg, ring->doorbell_qpn);
	cxb_mmio_notify(ring->cadev, ring->db_reg, sizeof(u32));
}

static __always_inline void *
cxb_mlx5_wqe(const struct cxb_tx_ring *ring, u32 idx)
{
	return ring->buf + ((idx & ring->size_mask) << CXB_MLX5_WQEBB_SHIFT);
}

/* Make the last WQE posted, @last, ask for the CQE, and announce the
 * WQEs up to @prod in the doorbell record @db_rec, ordered before the
 * UAR write that follows (a doorbell or a BlueFlame copy).
 */
static __always_inline void cxb_mlx5_db_record(__be32 *db_rec, u32 prod,
					       struct mlx5_wqe_ctrl_seg *last)
{
	last->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	/* WQEs before the record the device reads; and before a BlueFlame
	 * copy, whose ring copy the device may fall back to
	 */
	dma_wmb();
	db_rec[CXB_MLX5_SQ_DBR] = cpu_to_be32(prod & CXB_MLX5_IDX_MASK);
	/* the record before the UAR write */
	wmb();
}

/* An mlx5 send doorbell at @reg: the producer counter @prod to the
 * record @db_rec, then the first 8 bytes of the control segment of
 * @last, the last WQE posted, which asks for the CQE.
 */
static __always_inline void cxb_mlx5_ring_doorbell(void __iomem *reg,
						   __be32 *db_rec, u32 prod,
						   struct mlx5_wqe_ctrl_seg *last)
{
	const u64 *ctrl = (const u64 *)last;

	cxb_mlx5_db_record(db_rec, prod, last);
#ifdef CONFIG_64BIT
	/* device byte order already: a raw store, one 64-bit write */
	__raw_writeq(*ctrl, reg);
#else
	__iowrite64_copy(reg, ctrl, 1);
#endif
}

/* The mlx5 send doorbell of @ring: the producer counter to the record,
 * then the first 8 bytes of the last WQE's control segment to the UAR.
 * That WQE, and only it, asks for a CQE: one completion per doorbell,
 * freeing every WQE up to it (the send WQEs are posted without
 * CQ_UPDATE). Called by xmit or with the queue's xmit lock held.
 */
static __always_inline void cxb_mlx5_tx_doorbell(struct cxb_tx_ring *ring)
{
	void __iomem *reg = ring->db_reg + ring->db_offset;

	cxb_mlx5_ring_doorbell(reg, ring->db_rec, ring->prod,
			       cxb_mlx5_wqe(ring, ring->last_wqe));
	ring->db_offset ^= CXB_MLX5_DB_ALT;
	cxb_mmio_notify(ring->cadev, reg, sizeof(u64));
}

/* A BlueFlame post of @cadev: @bytes, a multiple of 64, of the WQE @wqe
 * (already in ring memory, ordered before by the caller) to the
 * write-combining @reg in 64-bit stores, eight to a 64-byte block: no
 * call and no loop per word. __iowrite64_copy(), which mlx4_en and
 * mlx5e use, is a loop out of line on x86_64 (lib/iomap_copy.c), about
 * twice the instructions for the usual one-block WQE. Then the flush.
 */
static __always_inline void cxb_bf_write(struct cxb_adev *cadev,
					 void __iomem *reg, const void *wqe,
					 u32 bytes)
{
#ifdef CONFIG_64BIT
	u64 __iomem *dst = reg;
	const u64 *src = wqe;
	u32 left;

	/* device byte order already: raw stores */
	for (left = bytes; left; left -= 64, src += 8, dst += 8) {
		__raw_writeq(src[0], dst + 0);
		__raw_writeq(src[1], dst + 1);
		__raw_writeq(src[2], dst + 2);
		__raw_writeq(src[3], dst + 3);
		__raw_writeq(src[4], dst + 4);
		__raw_writeq(src[5], dst + 5);
		__raw_writeq(src[6], dst + 6);
		__raw_writeq(src[7], dst + 7);
	}
#else
	__iowrite64_copy(reg, wqe, bytes / 8);
#endif
	/* Flush the write-combining buffer now, so this post reaches the
	 * device whole and before the next one fills the other buffer.
	 */
	wmb();
	cxb_mmio_notify(cadev, reg, bytes);
}

/* The doorbell of generation @gen, a constant at every caller. */
static __always_inline void cxb_tx_doorbell(struct cxb_tx_ring *ring,
					    const enum cxb_gen gen)
{
	if (gen == CXB_GEN_CX5)
		cxb_mlx5_tx_doorbell(ring);
	else
		cxb_mlx4_tx_doorbell(ring);
}

/* Copy @len bytes of @skb from @off into an inline segment at @dst. From
 * the linear part, where a frame short enough to go inline normally is
 * whole, in 8-byte moves: no call, no per-byte string instruction (what
 * skb_copy_bits() and its memcpy() cost for a 60-byte frame is several
 * times the copy).
 */
static __always_inline void cxb_tx_copy_inline(void *dst,
					       const struct sk_buff *skb,
					       u32 off, u32 len)
{
	const u8 *src = skb->data + off;
	u8 *d = dst;

	if (unlikely(off + len > skb_headlen(skb))) {
		skb_copy_bits(skb, off, dst, len);
		return;
	}
	for (; len >= 8; len -= 8, src += 8, d += 8)
		put_unaligned(get_unaligned((const u64 *)src), (u64 *)d);
	if (len & 4) {
		put_unaligned(get_unaligned((const u32 *)src), (u32 *)d);
		src += 4;
		d += 4;
	}
	if (len & 2) {
		put_unaligned(get_unaligned((const u16 *)src), (u16 *)d);
		src += 2;
		d += 2;
	}
	if (len & 1)
		*d = *src;
}

static inline void cxb_tx_unmap_frags(struct cxb_tx_ring *ring, u32 from,
				      u32 n)
{
	while (n--) {
		struct cxb_dma_ent *e = &ring->dma_fifo[from++ & ring->dma_mask];

		dma_unmap_page(ring->dma_dev, e->addr, e->len, DMA_TO_DEVICE);
	}
}

/* The packets @skb is in tx_packets: a GSO skb, its segments (one LSO
 * WQE sends them all). A drop counts as many in tx_dropped.
 */
static inline u32 cxb_tx_skb_pkts(const struct sk_buff *skb)
{
	return skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
}

/* The packets of the WQE at @cons, as tx_packets counted them (before a
 * drain frees it).
 */
static inline u32 cxb_tx_wqe_pkts(const struct cxb_tx_ring *ring, u32 cons)
{
	const struct cxb_tx_info *info = &ring->tx_info[cons & ring->size_mask];

	return info->skb ? cxb_tx_skb_pkts(info->skb) : info->mpw_pkts;
}

static inline void cxb_tx_drop(struct cxb_tx_ring *ring, struct sk_buff *skb)
{
	u32 pkts = cxb_tx_skb_pkts(skb);

	dev_kfree_skb_any(skb);
	u64_stats_update_begin(&ring->xstats_sync);
	ring->xstats.dropped += pkts;
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

/* One 64-byte block in eight 8-byte moves: no call, no string insn. */
static __always_inline void cxb_tx_copy64(u64 *dst, const u64 *src)
{
	dst[0] = get_unaligned(src + 0);
	dst[1] = get_unaligned(src + 1);
	dst[2] = get_unaligned(src + 2);
	dst[3] = get_unaligned(src + 3);
	dst[4] = get_unaligned(src + 4);
	dst[5] = get_unaligned(src + 5);
	dst[6] = get_unaligned(src + 6);
	dst[7] = get_unaligned(src + 7);
}

/* Copy a short linear frame into bounce slot @slot and return the
 * slot's DMA address: no mapping now and no unmapping at completion, for
 * the cost of a 64-byte copy (a device reads the same bytes either way).
 * The copy moves whole 64-byte blocks in 8-byte loads and stores, so it
 * may read up to 63 bytes past the frame: they lie in the same
 * allocation, because the skb head always ends in its skb_shared_info,
 * which is larger than a slot. The device reads only the frame. hns3
 * copies short frames into a premapped buffer as well
 * (hns3_handle_tx_bounce()).
 */
static __always_inline dma_addr_t cxb_tx_bounce(struct cxb_tx_ring *ring,
						const struct sk_buff *skb,
						u32 slot)
{
	u32 off = slot << CXB_TX_BOUNCE_SHIFT;
	const u64 *src = (const u64 *)skb->data;
	u64 *dst = ring->bounce + off;

	BUILD_BUG_ON(sizeof(struct skb_shared_info) < CXB_TX_BOUNCE_SIZE);
	BUILD_BUG_ON(CXB_TX_BOUNCE_SIZE != 128);
	cxb_tx_copy64(dst, src);
	if (skb->len > 64)
		cxb_tx_copy64(dst + 8, src + 8);
	ring->xstats.bounced++;		/* the caller is in an xstats update */
	return ring->bounce_dma + off;
}

/* Map the skb and write its data segments; false if a mapping failed:
 * @headlen bytes of the linear part from @off (an LSO WQE carries the
 * @off header bytes inline), then @nr_frags fragments. The segments are
 * written from the last to the first, as mlx4_en does (en_tx.c): each
 * TXBB's first dword is stored after the rest of it.
 */
static __always_inline bool
cxb_tx_map(struct cxb_tx_ring *ring, struct sk_buff *skb,
	   struct cxb_tx_info *info, struct mlx4_wqe_data_seg *dseg,
	   u32 off, u32 headlen, u32 nr_frags)
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
	if (headlen) {
		dma = cxb_dma_map_linear(ring->dma_dev, skb->data + off,
					 headlen);
		if (unlikely(dma_mapping_error(ring->dma_dev, dma)))
			goto err_unmap;
		info->map0_addr = dma;
		info->map0_len = headlen;
		cxb_tx_set_data_seg(dseg - 1, dma, headlen, ring->lkey);
	} else {
		info->map0_len = 0;
	}
	info->nr_frags = nr_frags;
	return true;

err_unmap:
	cxb_tx_unmap_frags(ring, ring->dma_prod - mapped, mapped);
	ring->dma_prod -= mapped;
	return false;
}

/* prod after the last WQE the device heard of that asks for a CQE: while
 * cons is below it, a completion is on its way. A cx3 send queue asks a
 * CQE only of the WQE that rings the doorbell (cxb_mlx4_start_xmit()),
 * or of one every quarter ring; a ringer that announces up to prod sets
 * it to prod_sig read before prod (it may lag, which only costs a
 * deferral, never claims a CQE that will not come). cx5 asks it of the
 * WQE every doorbell names (cxb_mlx5_tx_doorbell()): there it is
 * prod_bell.
 */
static __always_inline u32 cxb_tx_sig_bell(const struct cxb_tx_ring *ring,
					   const enum cxb_gen gen)
{
	if (gen == CXB_GEN_CX5)
		return READ_ONCE(ring->prod_bell);
	return READ_ONCE(ring->sig_bell);
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
static __always_inline bool cxb_tx_defer_doorbell(struct cxb_tx_ring *ring,
						  const enum cxb_gen gen)
{
	if (ring->prod - READ_ONCE(ring->prod_bell) >= ring->db_limit) {
		ring->xstats.doorbell_forced++;
		return false;
	}
	/* The WQE's owner bit before the flag the completion side reads. */
	smp_store_release(&ring->db_pending, true);
	/* Flag before cons: pairs with the smp_mb() in cxb_tx_complete(). */
	smp_mb();
	if ((s32)(cxb_tx_sig_bell(ring, gen) - READ_ONCE(ring->cons)) > 0) {
		ring->xstats.doorbell_deferred++;
		return true;
	}
	WRITE_ONCE(ring->db_pending, false);
	return false;
}

/* Announce every WQE posted: on cx3 the last one first made one that
 * asks for a CQE (cxb_mlx4_tx_sign_tail()), then the doorbell, then the
 * new prod_bell (and sig_bell: the tail is signalled now). xmit, or the
 * queue's xmit lock held.
 */
static __always_inline void cxb_tx_ring_all_locked(struct cxb_tx_ring *ring,
						   const enum cxb_gen gen)
{
	if (gen != CXB_GEN_CX5)
		cxb_mlx4_tx_sign_tail(ring);
	cxb_tx_doorbell(ring, gen);
	WRITE_ONCE(ring->prod_bell, ring->prod);
	if (gen != CXB_GEN_CX5)
		WRITE_ONCE(ring->sig_bell, ring->prod);
}

/* Ring a doorbell avoidance deferred, if any. Queue xmit lock held. */
static __always_inline bool
cxb_tx_ring_deferred_locked(struct cxb_tx_ring *ring, const enum cxb_gen gen)
{
	if (!xchg(&ring->db_pending, false) || ring->prod_bell == ring->prod)
		return false;
	cxb_tx_ring_all_locked(ring, gen);
	return true;
}

/* Completion side of doorbell avoidance: ring for what xmit deferred.
 * Returns false if a deferred doorbell is left for a later poll
 * (db_retry): the xmit lock it needs was taken, or @budget is 0.
 */
static __always_inline bool
cxb_tx_completion_doorbell(struct cxb_tx_ring *ring, int budget,
			   const enum cxb_gen gen)
{
	u32 bell, prod, sig = 0;
	bool rang;

	if (!READ_ONCE(ring->db_pending))
		return true;
	if (READ_ONCE(ring->db_locked))
		goto locked;
	if (!xchg(&ring->db_pending, false))
		return true;
	bell = READ_ONCE(ring->prod_bell);
	if (gen != CXB_GEN_CX5)
		/* before prod (xmit publishes it after prod): sig <= prod */
		sig = smp_load_acquire(&ring->prod_sig);
	/* Pairs with the release in xmit: WQEs below prod are owned. */
	prod = smp_load_acquire(&ring->prod);
	if (bell == prod)
		return true;
	if (gen != CXB_GEN_CX5 && sig != prod) {
		/* The last WQE asks for no CQE: the NOP that must follow it
		 * (cxb_mlx4_tx_sign_tail()) needs the xmit lock.
		 */
		WRITE_ONCE(ring->db_pending, true);
		goto locked;
	}
	/* With a plain store two racing ringers may move prod_bell back;
	 * that only costs an extra doorbell later (see cxbell.rst). With
	 * cmpxchg the loser knows the winner's doorbell covers its WQEs.
	 */
	if (READ_ONCE(ring->db_opt) & CXB_DB_OPT_PLAIN)
		WRITE_ONCE(ring->prod_bell, prod);
	else if (cmpxchg(&ring->prod_bell, bell, prod) != bell)
		return true;
	cxb_tx_doorbell(ring, gen);
	if (gen != CXB_GEN_CX5)
		WRITE_ONCE(ring->sig_bell, sig);
	goto count;

locked:
	/* xmit may sit between the owner bit and the BlueFlame copy of a
	 * WQE: a doorbell now would announce it before its BF post. An mlx5
	 * doorbell names the last WQE xmit posted, and an mlx4 one may need
	 * a NOP posted first: the same. Ring with xmit excluded then. Never
	 * wait for the lock: netpoll polls us (budget 0) with IRQs off,
	 * maybe owning the console, which an IRQ on the lock holder may be
	 * waiting for; and a poll nested in the holder's own xmit (softirqs
	 * run by a bottom-half enable there) would spin on itself. mlx4_en
	 * and mlx5e (their en_tx.c) take no xmit lock in their completion
	 * handlers.
	 */
	if (!budget || !__netif_tx_trylock(ring->txq)) {
		WRITE_ONCE(ring->db_retry, true);
		return false;
	}
	WRITE_ONCE(ring->db_retry, false);
	rang = cxb_tx_ring_deferred_locked(ring, gen);
	__netif_tx_unlock(ring->txq);
	if (!rang)
		return true;
count:
	/* Reported within tx_doorbells too (cxb_get_tx_stats()). */
	u64_stats_update_begin(&ring->cstats_sync);
	ring->cstats.doorbell_by_completion++;
	u64_stats_update_end(&ring->cstats_sync);
	return true;
}

/* A send CQE names the ring index @idx (modulo 2^16): free every WQE from
 * *@cons up to and including that one with the generation's @free_wqe
 * (a constant at every caller, so it is inlined), which frees one WQE,
 * adds its packets and bytes and returns its size in basic blocks.
 * Returns false, with *@cons where the walk stopped, if @idx lies inside
 * a WQE or the walk met a slot never posted.
 */
static __always_inline bool
cxb_tx_free_upto(struct cxb_tx_ring *ring, u32 *cons, u16 idx, int budget,
		 u32 *pkts, u32 *bytes,
		 u32 (*free_wqe)(struct cxb_tx_ring *ring, u32 cons,
				 int budget, u32 *pkts, u32 *bytes))
{
	u32 c = *cons;

	for (;;) {
		u16 left = idx - (u16)c;
		u32 n = free_wqe(ring, c, budget, pkts, bytes);

		c += n;
		if (!left)
			break;
		if (unlikely(left < n || !n)) {
			*cons = c;
			return false;
		}
	}
	*cons = c;
	return true;
}

/* After a completion walk of either generation freed @pkts packets up to
 * @cons from @ncqe CQEs: record the CQ's consumer index (@ci, as the
 * device wants it in @ci_rec), publish cons, feed BQL, wake the queue and
 * ring what doorbell avoidance deferred; with no CQE, only retry a
 * deferred doorbell an earlier poll had to leave. Returns true when all
 * pending completions were handled and no deferred doorbell is left for
 * later.
 */
static __always_inline bool
cxb_tx_complete_finish(struct cxb_tx_ring *ring, struct cxb_cq *cq, u32 ci,
		       __be32 ci_rec, u32 ncqe, u32 cons, u32 pkts, u32 bytes,
		       int budget, bool in_napi, const enum cxb_gen gen)
{
	if (!ncqe)
		return likely(!READ_ONCE(ring->db_retry)) || !in_napi ||
		       cxb_tx_retry_doorbell(ring, budget);
	cq->ci = ci;
	*cq->db_rec = ci_rec;

	u64_stats_update_begin(&ring->cstats_sync);
	ring->cstats.cqes += ncqe;
	u64_stats_update_end(&ring->cstats_sync);

	/* xmit reads cons without the queue lock: publish it last. */
	smp_store_release(&ring->cons, cons);
	netdev_tx_completed_queue(ring->txq, pkts, bytes);

	/* cons before the stop bit and db_pending. BQL has just issued the
	 * barrier, unless it had no bytes to complete.
	 */
	if (!IS_ENABLED(CONFIG_BQL) || !bytes)
		smp_mb(); /* pairs with cxb_tx_stop_recheck(), defer_doorbell */
	if (unlikely(netif_tx_queue_stopped(ring->txq)) && in_napi &&
	    cxb_tx_room(ring, READ_ONCE(ring->prod), cons) >=
	    CXB_TX_WAKE_ROOM && cxb_tx_clear_stop(ring->txq)) {
		/* netif_tx_wake_queue(), counted only if this call woke it:
		 * xmit's recheck may have undone the stop meanwhile. BQL's
		 * own stop, if set, schedules the queue when it clears.
		 */
		netif_schedule_queue(ring->txq);
		u64_stats_update_begin(&ring->cstats_sync);
		ring->cstats.wake_queue++;
		u64_stats_update_end(&ring->cstats_sync);
	}
	/* Only a poll that completed something rings a deferred doorbell
	 * (or one that retries what an earlier poll had to leave). Left
	 * for later: not done, so NAPI polls again.
	 */
	if (in_napi && !cxb_tx_completion_doorbell(ring, budget, gen))
		return false;
	return ncqe < CXB_TX_CQ_BUDGET;
}

/* The send ring of @skb's queue, its BQL state prefetched for writing;
 * NULL if that queue has no channel (the caller drops the skb). ch and
 * num_ch change only while every queue is stopped, after
 * netif_tx_disable() took each queue's xmit lock, which ndo_start_xmit
 * holds: both are stable here. Either generation.
 */
static __always_inline struct cxb_tx_ring *
cxb_xmit_ring(struct cxb_priv *priv, const struct sk_buff *skb)
{
	u16 qidx = skb_get_queue_mapping(skb);
	struct cxb_tx_ring *ring;

	if (unlikely(qidx >= priv->num_ch))
		return NULL;
	ring = &priv->ch[qidx]->tx;
	prefetchw(&ring->txq->dql);
	return ring;
}

#endif /* _CXBELL_TXRX_H */
