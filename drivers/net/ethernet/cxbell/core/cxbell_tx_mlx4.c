// SPDX-License-Identifier: GPL-2.0
/* cxbell datapath, ConnectX-3 generation: mlx4 send WQEs (wqe/mlx4.h),
 * BlueFlame, the send completion walk and the NAPI poll of an mlx4 port.
 *
 * The one rule this file exists for: the device hears about new send
 * work only when the stack says no more packets follow (xmit_more false)
 * or the queue had to stop. Every other packet just lands in ring memory.
 */
#include <linux/etherdevice.h>
#include <linux/prefetch.h>
#include <linux/skbuff.h>

#include "cxbell_txrx.h"

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
	cxb_bf_write(ring->cadev, reg, wqe, bytes);
	ring->bf_offset ^= ring->bf_size;
}

/* Fill the @nr_txbb TXBBs from @prod with one-TXBB NOP WQEs that ask for
 * no error completion (NEC: mlx4_ib set it on its NOPs, for firmware
 * 2.2.232 and later, MLX4_FW_VER_WQE_CTRL_NEC), and for a completion
 * only if @srcrb has CQ_UPDATE; the completion of a later WQE frees the
 * others. One TXBB each, so that every TXBB's first dword is an owner
 * written last: a NOP of several TXBBs would leave stale blocks inside
 * it. Its body is what mlx4_ib's post_nop_wqe() wrote: one inline segment
 * header over the rest of the TXBB.
 */
static void cxb_tx_post_nop(struct cxb_tx_ring *ring, u32 prod, u32 nr_txbb,
			    __be32 srcrb)
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
		ctrl->srcrb_flags = srcrb;
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

		cxb_tx_copy_inline(inl + 1, skb, 0, left);
		memset((void *)(inl + 1) + left, 0, CXB_MLX4_INLINE_MIN - left);
		inl->byte_count = cxb_mlx4_inline_bc(CXB_MLX4_INLINE_MIN);
		return;
	}
	for (i = 0; left; i++) {
		struct mlx4_wqe_inline_seg *inl =
			(void *)ctrl + cxb_mlx4_inline_seg_off(i);
		u32 n = min(left, cxb_mlx4_inline_seg_max(i));

		cxb_tx_copy_inline(inl + 1, skb, off, n);
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

/* Doorbell avoidance, before the WQE ending at @end is written: would
 * cxb_tx_defer_doorbell() defer its doorbell? The same tests (a forced
 * doorbell counted), made early because the answer decides whether the
 * WQE asks for a CQE (cxb_mlx4_tx_sign_tail()).
 */
static noinline bool cxb_tx_may_defer(struct cxb_tx_ring *ring, u32 end)
{
	if (end - READ_ONCE(ring->prod_bell) >= ring->db_limit) {
		u64_stats_update_begin(&ring->xstats_sync);
		ring->xstats.doorbell_forced++;
		u64_stats_update_end(&ring->xstats_sync);
		return false;
	}
	return (s32)(cxb_tx_sig_bell(ring, CXB_GEN_CX3) -
		     READ_ONCE(ring->cons)) > 0;
}

/* Make the last WQE posted one that asks for a CQE: if it does not, post
 * a one-TXBB NOP that does behind it. Every doorbell announces up to such
 * a WQE, or no CQE would free what it announced (and BQL would wait for
 * those bytes forever). A WQE that doorbell avoidance defers asks for no
 * CQE of its own: the device may run an owned WQE before its doorbell,
 * so nothing in it may change later, and whoever rings for it posts this
 * NOP first. The stop room (cxbell.h) holds the NOP. xmit, or the queue's
 * xmit lock held.
 */
noinline void cxb_mlx4_tx_sign_tail(struct cxb_tx_ring *ring)
{
	u32 prod = ring->prod;

	if (prod == ring->prod_sig)
		return;
	cxb_tx_post_nop(ring, prod, 1, cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE));
	prod++;
	/* as in xmit: the NOP owned before prod, prod before prod_sig */
	smp_store_release(&ring->prod, prod);
	/* see above */
	smp_store_release(&ring->prod_sig, prod);
	u64_stats_update_begin(&ring->xstats_sync);
	ring->xstats.nop++;
	u64_stats_update_end(&ring->xstats_sync);
}

/* A burst ended on a packet that was dropped: what it posted must still
 * end on a WQE that asks for a CQE, and be announced (mlx5e, en_tx.c
 * mlx5e_tx_flush(), posts a NOP for this too).
 */
static void cxb_mlx4_tx_end_burst(struct cxb_tx_ring *ring)
{
	/* a tail announced already was signalled by its ringer */
	if (ring->prod == READ_ONCE(ring->prod_bell))
		return;
	cxb_tx_ring_all_locked(ring, CXB_GEN_CX3);
	u64_stats_update_begin(&ring->xstats_sync);
	ring->xstats.doorbells++;
	u64_stats_update_end(&ring->xstats_sync);
}

/* The LSO segment of an LSO WQE (wqe/mlx4.h) at @ctrl: the @hdr header
 * bytes of @skb inline behind mss_hdr_size, as mlx4_en builds it
 * (en_tx.c mlx4_en_xmit()). Returns where the data segments go.
 */
static struct mlx4_wqe_data_seg *
cxb_tx_write_lso(struct mlx4_wqe_ctrl_seg *ctrl, const struct sk_buff *skb,
		 u32 hdr)
{
	struct mlx4_wqe_lso_seg *lso = (void *)(ctrl + 1);

	memcpy(lso->header, skb->data, hdr);
	lso->mss_hdr_size = cxb_mlx4_lso_mss_hdr(skb_shinfo(skb)->gso_size,
						 hdr);
	return (void *)lso + cxb_mlx4_lso_ds(hdr) * CXB_MLX4_DS_SIZE;
}

/* The send path, for a plain SEND (@lso false) or an LSO WQE (@lso true,
 * a constant at both callers: the SEND copy has no LSO branch left).
 */
static __always_inline netdev_tx_t
__cxb_mlx4_xmit(struct sk_buff *skb, struct cxb_tx_ring *ring, const bool lso)
{
	u32 nr_frags = skb_shinfo(skb)->nr_frags;
	u32 headlen = skb_headlen(skb);
	struct mlx4_wqe_data_seg *dseg;
	struct mlx4_wqe_ctrl_seg *ctrl;
	bool xmit_more, send_db, bf, sig;
	u32 ds, nr_txbb, idx, prod, pad;
	struct cxb_tx_info *info;
	u32 hdr = 0, segs = 1;
	bool stopped = false;
	__be32 srcrb, op_own;
	bool inl;

	if (lso) {
		/* cxb_features_check() sent every skb whose headers are not
		 * all in the linear part, or whose WQE would not fit, to
		 * software GSO (mlx4_en drops such a packet)
		 */
		hdr = skb_tcp_all_headers(skb);
		segs = skb_shinfo(skb)->gso_segs;
		headlen -= hdr;
		inl = false;
		ds = 1 + cxb_mlx4_lso_ds(hdr) + nr_frags + !!headlen;
		if (unlikely(hdr > skb_headlen(skb) || ds > CXB_MLX4_MAX_DS))
			goto drop;
	} else {
		inl = skb->len <= ring->inline_max;
		if (inl) {
			ds = cxb_mlx4_inline_ds(max(skb->len,
						    CXB_MLX4_INLINE_MIN));
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
	dseg = (struct mlx4_wqe_data_seg *)(ctrl + 1);
	if (lso)
		dseg = cxb_tx_write_lso(ctrl, skb, hdr);
	if (inl) {
		cxb_tx_write_inline(ctrl, skb);
		info->map0_len = 0;
		info->nr_frags = 0;
	} else if (!lso && !nr_frags && headlen <= ring->bounce_max) {
		u64_stats_update_begin(&ring->xstats_sync);
		cxb_tx_set_data_seg(dseg, cxb_tx_bounce(ring, skb, idx),
				    headlen, ring->lkey);
		u64_stats_update_end(&ring->xstats_sync);
		info->map0_len = 0;
		info->nr_frags = 0;
	} else if (unlikely(!cxb_tx_map(ring, skb, info, dseg, hdr, headlen,
					nr_frags))) {
		goto drop;
	}
	/* The WQE will be posted: now the pad may be handed over. */
	if (unlikely(pad)) {
		cxb_tx_post_nop(ring, prod, pad, 0);
		prod += pad;
		u64_stats_update_begin(&ring->xstats_sync);
		ring->xstats.nop += pad;
		u64_stats_update_end(&ring->xstats_sync);
	}
	info->skb = skb;
	info->nr_txbb = nr_txbb;
	/* an LSO WQE: the bytes of its segments on the wire (mlx4_en) */
	info->nr_bytes = skb->len + (segs - 1) * hdr;

	/* Stop before the next packet could find no room. */
	if (unlikely(cxb_tx_room(ring, prod + nr_txbb, READ_ONCE(ring->cons)) <
		     CXB_TX_STOP_ROOM)) {
		netif_tx_stop_queue(ring->txq);
		stopped = true;
	}

	/* True when the doorbell is due: no more packets follow, or stopped. */
	xmit_more = netdev_xmit_more();
	send_db = __netdev_tx_sent_queue(ring->txq, info->nr_bytes, xmit_more);

	/* Doorbell avoidance decides before the WQE is written whether it
	 * may leave the doorbell to the completion handler: such a WQE asks
	 * for no CQE of its own. Marked by send_db and xmit_more both false
	 * until the decision is final, below.
	 */
	if (send_db && unlikely(ring->db_opt & CXB_DB_OPT_AVOID) &&
	    cxb_tx_may_defer(ring, prod + nr_txbb)) {
		send_db = false;
		xmit_more = false;
	}

	/* A CQE only for the WQE that rings (as mlx5e asks one per doorbell):
	 * it completes every WQE before it. And at least one per quarter
	 * ring, so that a long burst frees its first skbs early.
	 */
	sig = send_db || prod + nr_txbb - ring->prod_sig >= ring->size / 4;
	srcrb = sig ? cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE) : 0;
	if (likely(skb->ip_summed == CHECKSUM_PARTIAL))
		srcrb |= cpu_to_be32(MLX4_WQE_CTRL_IP_CSUM |
				     MLX4_WQE_CTRL_TCP_UDP_CSUM);
	ctrl->srcrb_flags = srcrb;
	ctrl->imm = 0;

	skb_tx_timestamp(skb);

	/* BlueFlame carries this WQE only if it is the one ringing, and it
	 * fits one BF buffer; such a WQE names its QP and ring index. Not
	 * one whose doorbell avoidance may defer: a plain doorbell would
	 * announce it later, and mlx4_en (en_tx.c) never leaves a WQE in
	 * that layout without its BlueFlame write. Never an LSO WQE (nor
	 * does mlx4_en post one by BlueFlame).
	 */
	bf = !lso && send_db && ring->bf_on &&
	     (nr_txbb << CXB_MLX4_TXBB_SHIFT) <= ring->bf_size &&
	     !skb_vlan_tag_present(skb);
	if (bf) {
		ctrl->qpn_vlan.bf_qpn = cxb_mlx4_bf_qpn(ring->doorbell_qpn, ds);
		op_own = cxb_mlx4_bf_owner_opcode(MLX4_OPCODE_SEND, prod,
						  ring->size);
	} else {
		op_own = cpu_to_be32((lso ? MLX4_OPCODE_LSO | CXB_MLX4_LSO_BLH :
				      MLX4_OPCODE_SEND) |
				     cxb_mlx4_owner(prod, ring->size));
		/* vlan_tag, ins_vlan and fence_size DS in one store: the
		 * device inserts a VLAN tag (mlx4_en: MLX4_WQE_CTRL_INS_CVLAN),
		 * which keeps the WQE off BlueFlame, whose copy has the QPN
		 * in these fields (mlx4_en_xmit(): bf_ok = false)
		 */
		if (unlikely(skb_vlan_tag_present(skb)))
			ctrl->qpn_vlan.bf_qpn =
				cxb_mlx4_vlan_ds(skb_vlan_tag_get(skb), ds);
		else
			ctrl->qpn_vlan.bf_qpn = cpu_to_be32(ds);
	}

	/* Segments before ownership: the device may look at it any time. */
	dma_wmb();
	ctrl->owner_opcode = op_own;
	/* Publish prod only now: a completion-side doorbell that reads it
	 * must find every WQE below it owned by the device.
	 */
	smp_store_release(&ring->prod, prod + nr_txbb);
	if (sig)
		/* after prod: who reads prod_sig, then prod, has sig <= prod */
		smp_store_release(&ring->prod_sig, prod + nr_txbb);

	u64_stats_update_begin(&ring->xstats_sync);
	if (!send_db) {
		if (likely(xmit_more)) {
			ring->xstats.xmit_more++;
		} else if (!cxb_tx_defer_doorbell(ring, CXB_GEN_CX3)) {
			/* A completion came in between: ring here, for a
			 * WQE that asks for no CQE (the NOP is counted in an
			 * update of its own).
			 */
			u64_stats_update_end(&ring->xstats_sync);
			cxb_mlx4_tx_sign_tail(ring);
			u64_stats_update_begin(&ring->xstats_sync);
			send_db = true;
		}
	}
	if (send_db) {
		if (bf) {
			cxb_tx_bf_post(ring, ctrl, nr_txbb);
			ring->xstats.blueflame++;
		} else {
			cxb_mlx4_tx_doorbell(ring);
			ring->xstats.doorbells++;
		}
		WRITE_ONCE(ring->prod_bell, ring->prod);
		WRITE_ONCE(ring->sig_bell, ring->prod);
		ring->xstats.doorbell_on_stop += xmit_more;
	}
	/* an LSO WQE: its segments (mlx4_en counts them as packets) */
	ring->xstats.packets += segs;
	ring->xstats.bytes += info->nr_bytes;
	if (lso) {
		ring->xstats.tso_packets++;
		ring->xstats.tso_bytes += skb->len - hdr;
	}
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
	cxb_tx_drop(ring, skb);
	if (!netdev_xmit_more())
		cxb_mlx4_tx_end_burst(ring);
	return NETDEV_TX_OK;
}

/* An skb the device segments (NETIF_F_TSO, NETIF_F_TSO6): off the SEND
 * path, so that its one test of gso_size is all a SEND pays for LSO.
 */
static noinline netdev_tx_t cxb_mlx4_xmit_lso(struct sk_buff *skb,
					      struct cxb_tx_ring *ring)
{
	return __cxb_mlx4_xmit(skb, ring, true);
}

netdev_tx_t cxb_mlx4_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_tx_ring *ring = cxb_xmit_ring(priv, skb);

	if (unlikely(!ring))
		return cxb_tx_drop_no_ring(priv, skb);
	if (unlikely(skb_is_gso(skb)))
		return cxb_mlx4_xmit_lso(skb, ring);
	return __cxb_mlx4_xmit(skb, ring, false);
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

/* Free the WQE at @cons: returns its TXBBs, adds packets and bytes. */
static __always_inline u32 cxb_mlx4_free_wqe(struct cxb_tx_ring *ring,
					     u32 cons, int budget, u32 *pkts,
					     u32 *bytes)
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
		*pkts += 1;
		*bytes += info->nr_bytes;
		napi_consume_skb(info->skb, budget);
		info->skb = NULL;
	}
	if (nr_txbb > 1)
		cxb_tx_stamp(ring, cons, nr_txbb);
	return nr_txbb;
}

/* Returns true when all pending TX completions were handled. @in_napi:
 * called from the channel's NAPI poll (netpoll's too); false: the queue
 * is being torn down, so it stays stopped and no doorbell is rung.
 */
bool cxb_mlx4_tx_complete(struct cxb_channel *ch, int budget, bool in_napi)
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
				       err->vendor_err_syndrome, in_napi);
		}

		if (unlikely(!cxb_tx_free_upto(ring, &cons, wqe_index, budget,
					       &pkts, &bytes,
					       cxb_mlx4_free_wqe)))
			goto bad;
		ci++;
		ncqe++;
		continue;
bad:
		cxb_tx_bad_cqe(ch, wqe_index, cons, prod, in_napi);
		ci++;
		ncqe++;
		break;
	}

	return cxb_tx_complete_finish(ring, cq, ci,
				      cpu_to_be32(ci & CXB_MLX4_CI_MASK), ncqe,
				      cons, pkts, bytes, budget, in_napi,
				      CXB_GEN_CX3);
}

/* Free what the device will never complete (queue destroyed): called with
 * the device stopped and the queue disabled.
 */
void cxb_mlx4_tx_ring_drain(struct cxb_tx_ring *ring)
{
	u32 bytes = 0, skbs = 0, pkts = 0;

	while (ring->cons != ring->prod) {
		pkts += cxb_tx_wqe_pkts(ring, ring->cons);
		ring->cons += cxb_mlx4_free_wqe(ring, ring->cons, 0, &skbs,
						&bytes);
	}
	u64_stats_update_begin(&ring->xstats_sync);
	ring->xstats.dropped += pkts;
	u64_stats_update_end(&ring->xstats_sync);
	if (ring->txq)
		netdev_tx_reset_queue(ring->txq);
}

int cxb_mlx4_napi_poll(struct napi_struct *napi, int budget)
{
	struct cxb_channel *ch = container_of(napi, struct cxb_channel, napi);

	ch->polls++;
	return cxb_napi_poll_finish(ch, budget,
				    cxb_mlx4_tx_complete(ch, budget, true),
				    CXB_GEN_CX3);
}
