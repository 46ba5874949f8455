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
 * A TCP GSO skb goes as one LSO WQE (wqe/mlx5.h), built as mlx5e's
 * mlx5e_sq_xmit_wqe() (en_tx.c) does, off the path of the other packets
 * (cxb_mlx5_xmit_lso()).
 *
 * A port whose device asks for the L2 headers inline in every SEND
 * (cxb_adev.min_inline, mlx5e's min_inline_mode) has an ndo_start_xmit
 * of its own, cxb_mlx5_start_xmit_l2(): its SENDs are built as the LSO
 * WQE is, with the headers of cxb_mlx5_min_inline(), and never join a
 * session.
 *
 * MPWQE session: the first eligible packet (linear, no VLAN tag to
 * insert, not GSO) opens a multi-packet WQE at prod; eligible packets
 * with the same checksum flags append one segment each. The session
 * closes before a packet that no longer fits (CXB_MLX5_MAX_DS), before an
 * ineligible packet or one with other flags (which then goes as a SEND
 * WQE, in order), and whenever the doorbell is due (no xmit_more, queue
 * stopped): it never waits for a later packet to be announced. While it
 * is open it keeps the room of a maximal WQE (tested when it opens), and
 * the published prod stays below it and below the NOP that may pad the
 * ring end before it: a doorbell rung by completion (doorbell avoidance)
 * never announces the session half built, nor that NOP alone, which gets
 * no CQE - doorbell avoidance counts on a completion for everything
 * announced but not completed.
 */
#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>
#include <linux/io.h>
#include <linux/prefetch.h>
#include <linux/skbuff.h>

#include "cxbell_txrx.h"

/* cxb_tx_map() writes mlx4 data segments: the same layout (wqe/mlx5.h). */

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
	/* doorbell_qpn is be32(qpn << 8), the upper part of qpn_ds */
	cxb_mlx5_ctrl_init(ctrl, idx, opcode, ring->doorbell_qpn, ds);
}

/* Fill the WQEBBs from @prod to the ring end with NOPs of one WQEBB and
 * DS 1 (a control segment alone), asking for no completion, as
 * mlx5e_post_nop() pads the edge (en/txrx.h); returns the index after
 * them. They are posted with the WQE after them, which the doorbell names.
 */
static noinline u32 cxb_mlx5_post_nop(struct cxb_tx_ring *ring, u32 prod)
{
	u32 end = prod + ring->size - (prod & ring->size_mask);

	for (; prod != end; prod++) {
		struct cxb_tx_info *info =
			&ring->tx_info[prod & ring->size_mask];

		info->skb = NULL;
		info->nr_txbb = 1;
		info->nr_frags = 0;
		info->map0_len = 0;
		info->nr_bytes = 0;
		info->mpw_pkts = 0;
		cxb_mlx5_ctrl(ring, cxb_mlx5_wqe(ring, prod), prod,
			      MLX5_OPCODE_NOP, 1);
	}
	return end;
}

/* Where a WQE of @n WQEBBs goes: at @prod, or after a NOP padding the
 * ring end if it would reach past it (a WQE never wraps).
 */
static __always_inline u32 cxb_mlx5_wqe_fit(struct cxb_tx_ring *ring,
					    u32 prod, u32 n)
{
	if ((prod & ring->size_mask) + n > ring->size)
		prod = cxb_mlx5_post_nop(ring, prod);
	return prod;
}

/* Close the open session: returns the index after it. An empty session
 * (its only packet was dropped) posts nothing, nor the NOP before it.
 */
static u32 cxb_mlx5_mpw_close(struct cxb_tx_ring *ring)
{
	u32 prod = ring->mpw.wqe, n = cxb_mlx5_ds_to_wqebbs(ring->mpw.ds);
	struct cxb_tx_info *info = &ring->tx_info[prod & ring->size_mask];
	u32 npkts = ring->mpw_prod - ring->mpw.fifo0;

	if (!npkts) {
		ring->mpw.ds = 0;
		return ring->mpw.pub;
	}
	info->skb = NULL;
	info->nr_txbb = n;
	info->nr_frags = 0;
	info->map0_len = 0;
	info->nr_bytes = ring->mpw.bytes;
	info->mpw_pkts = npkts;
	cxb_mlx5_ctrl(ring, cxb_mlx5_wqe(ring, prod), prod,
		      MLX5_OPCODE_ENHANCED_MPSW, ring->mpw.ds);
	ring->last_wqe = prod;
	ring->mpw.ds = 0;
	/* the caller is in an xstats update; a session's packets and
	 * bytes are counted here, not by __cxb_mlx5_xmit()
	 */
	ring->xstats.mpwqe_blks++;
	ring->xstats.mpwqe_pkts += npkts;
	ring->xstats.packets += npkts;
	ring->xstats.bytes += ring->mpw.bytes;
	return prod + n;
}

/* Open a session at @prod, or after a NOP pad if a maximal WQE would
 * reach past the ring end: at mpw.wqe.
 */
static void cxb_mlx5_mpw_open(struct cxb_tx_ring *ring, u32 prod, bool csum)
{
	struct mlx5_wqe_eth_seg *eth;

	ring->mpw.pub = prod;
	prod = cxb_mlx5_wqe_fit(ring, prod, CXB_MLX5_MAX_WQEBBS);
	ring->mpw.wqe = prod;
	eth = cxb_mlx5_wqe(ring, prod) + CXB_MLX5_DS_SIZE;
	memset(eth, 0, sizeof(*eth));
	eth->cs_flags = csum ? MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM : 0;
	ring->mpw.seg = eth + 1;
	ring->mpw.ds = CXB_MLX5_HDR_DS;
	ring->mpw.fifo0 = ring->mpw_prod;
	ring->mpw.bytes = 0;
	ring->mpw.csum = csum;
	/* the prod published while it is open (WQEs before it written,
	 * as __cxb_mlx5_xmit() publishes)
	 */
	smp_store_release(&ring->prod, ring->mpw.pub);
}

/* Copy the linear @skb into a session's inline segment @iseg of @ds DS
 * (cxb_mlx5_inline_ds() of its length): 12 bytes in the first DS, after
 * the byte count, then 16 per DS, in 8-byte moves. The bytes past the
 * frame up to the end of its last DS are the segment's padding, so the
 * copy ends there, not at the frame's end: no tail of 4, 2 and 1 bytes.
 * It may read up to 15 bytes past the frame, which lie in the skb head,
 * as for cxb_tx_bounce().
 */
static __always_inline void cxb_mlx5_mpw_copy_inline(struct mlx5_wqe_inline_seg *iseg,
						     const struct sk_buff *skb,
						     u32 ds)
{
	const u8 *src = skb->data;
	u8 *d = (u8 *)(iseg + 1);
	u32 off;

	put_unaligned(get_unaligned((const u64 *)src), (u64 *)d);
	put_unaligned(get_unaligned((const u32 *)(src + 8)), (u32 *)(d + 8));
	BUILD_BUG_ON(CXB_MLX5_DS_SIZE - CXB_MLX5_INLINE_HDR != 12);
	for (off = 12; off < ds * CXB_MLX5_DS_SIZE - CXB_MLX5_INLINE_HDR;
	     off += CXB_MLX5_DS_SIZE) {
		put_unaligned(get_unaligned((const u64 *)(src + off)),
			      (u64 *)(d + off));
		put_unaligned(get_unaligned((const u64 *)(src + off + 8)),
			      (u64 *)(d + off + 8));
	}
}

/* Append @skb (linear) to the open session. False if its mapping
 * failed (nothing appended).
 */
static __always_inline bool cxb_mlx5_mpw_add(struct cxb_tx_ring *ring,
					     struct sk_buff *skb, bool inl)
{
	void *seg = ring->mpw.seg;
	struct cxb_mpw_ent *e = &ring->mpw_fifo[ring->mpw_prod & ring->mpw_mask];
	u32 len = skb->len;

	if (inl) {
		struct mlx5_wqe_inline_seg *iseg = seg;
		u32 ds = cxb_mlx5_inline_ds(len);

		cxb_mlx5_mpw_copy_inline(iseg, skb, ds);
		iseg->byte_count = cxb_mlx5_inline_bc(len);
		e->len = 0;
		ring->mpw.ds += ds;
		ring->mpw.seg = seg + ds * CXB_MLX5_DS_SIZE;
	} else {
		struct mlx5_wqe_data_seg *dseg = seg;
		dma_addr_t dma;

		/* The second half of the bounce buffer, a slot per session
		 * packet in flight while fewer than a ring's worth are.
		 */
		if (len <= ring->bounce_max &&
		    ring->mpw_prod - READ_ONCE(ring->mpw_cons) < ring->size) {
			dma = cxb_tx_bounce(ring, skb, ring->size +
					    (ring->mpw_prod & ring->size_mask));
			e->len = 0;
		} else {
			dma = cxb_dma_map_linear(ring->dma_dev, skb->data,
						 len);
			if (unlikely(dma_mapping_error(ring->dma_dev, dma)))
				return false;
			e->addr = dma;
			e->len = len;
		}
		dseg->addr = cpu_to_be64(dma);
		dseg->lkey = ring->lkey;
		dseg->byte_count = cpu_to_be32(len);
		ring->mpw.ds++;
		ring->mpw.seg = dseg + 1;
	}
	e->skb = skb;
	ring->mpw_prod++;
	ring->mpw.bytes += len;
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
	prod = cxb_mlx5_wqe_fit(ring, prod, n);
	ctrl = cxb_mlx5_wqe(ring, prod);
	eth = (void *)(ctrl + 1);
	info = &ring->tx_info[prod & ring->size_mask];

	if (inl) {
		struct mlx5_wqe_inline_seg *iseg = (void *)(eth + 1);

		cxb_tx_copy_inline(iseg + 1, skb, 0, skb->len);
		iseg->byte_count = cxb_mlx5_inline_bc(skb->len);
		info->map0_len = 0;
		info->nr_frags = 0;
	} else if (!nr_frags && headlen <= ring->bounce_max) {
		/* the first half of the bounce buffer: a slot per WQEBB */
		cxb_tx_set_data_seg((void *)(eth + 1),
				    cxb_tx_bounce(ring, skb,
						  prod & ring->size_mask),
				    headlen, ring->lkey);
		info->map0_len = 0;
		info->nr_frags = 0;
	} else if (unlikely(!cxb_tx_map(ring, skb, info, (void *)(eth + 1), 0,
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

/* Header bytes the eth segment of a SEND carries where the device's
 * minimum inline mode is L2: at most CXB_MLX5_L2_HDR_MAX, so that a WQE
 * of every skb with at most CXB_MLX5_L2_MAX_FRAGS frags fits.
 */
#define CXB_MLX5_L2_HDR_MAX	128U
#define CXB_MLX5_L2_MAX_FRAGS	(CXB_MLX5_MAX_DS - 1 - \
				 cxb_mlx5_eth_inline_ds(CXB_MLX5_L2_HDR_MAX + \
							VLAN_HLEN))
static_assert((int)CXB_MIN_INLINE_L2 == (int)MLX5_INLINE_MODE_L2);

/* Bytes of the non-GSO @skb a SEND carries inline on a port whose minimum
 * inline mode is L2: all of it if tx-copybreak (@inline_max) takes it and
 * it is linear, else its L2 headers, max(network offset,
 * CXB_MLX5_MIN_INLINE_L2) but no more than its linear part
 * (mlx5e_calc_min_inline() with MLX5_INLINE_MODE_L2, en_tx.c).
 */
static __always_inline u32 cxb_mlx5_min_inline(const struct sk_buff *skb,
					       u32 inline_max)
{
	u32 headlen = skb_headlen(skb), hdr;

	if (skb->len <= inline_max && headlen == skb->len)
		return headlen;
	hdr = clamp_t(u32, skb_network_offset(skb), CXB_MLX5_MIN_INLINE_L2,
		      CXB_MLX5_L2_HDR_MAX);
	return min(hdr, headlen);
}

/* Post @skb at *@pprod as a WQE whose eth segment carries its first @hdr
 * bytes inline, with the VLAN tag to insert put into them
 * (mlx5e_insert_vlan() in en_tx.c: the eth segment's insert field shares
 * its place with inline_hdr), and data segments for the rest of the
 * linear part and the frags; move *@pprod past it, as
 * cxb_mlx5_post_send() does. @lso: an LSO WQE for a TCP GSO @skb, @hdr
 * its headers, mss its gso_size (cxb_features_check() sent every skb
 * whose headers are not all in the linear part, or whose WQE would not
 * fit, to software GSO); else a SEND on a port whose minimum inline mode
 * is L2, @hdr ignored: cxb_mlx5_min_inline() (the skb linearized first
 * if its L2 headers are not all in the linear part, or its frags would
 * not fit). @bytes: its frames' bytes on the wire (tags not counted).
 */
static __always_inline bool cxb_mlx5_post_hdrs(struct cxb_tx_ring *ring,
					       u32 *pprod, struct sk_buff *skb,
					       u32 hdr, u32 bytes,
					       const bool lso)
{
	bool vlan = skb_vlan_tag_present(skb);
	struct mlx4_wqe_data_seg *dseg;
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5_wqe_eth_seg *eth;
	struct cxb_tx_info *info;
	u32 ds, n, ihs, prod = *pprod;
	u32 nr_frags, headlen;
	u8 *start;

	if (!lso) {
		if (unlikely(skb_headlen(skb) <
			     min(skb->len, CXB_MLX5_MIN_INLINE_L2) ||
			     skb_shinfo(skb)->nr_frags >
			     CXB_MLX5_L2_MAX_FRAGS) &&
		    skb_linearize(skb))
			return false;
		hdr = cxb_mlx5_min_inline(skb, ring->inline_max);
	}
	ihs = hdr + (vlan ? VLAN_HLEN : 0);
	nr_frags = skb_shinfo(skb)->nr_frags;
	headlen = skb_headlen(skb) - hdr;
	ds = cxb_mlx5_eth_inline_ds(ihs) + nr_frags + !!headlen;
	if (unlikely(hdr > skb_headlen(skb) || ds > CXB_MLX5_MAX_DS))
		return false;
	n = cxb_mlx5_ds_to_wqebbs(ds);
	prod = cxb_mlx5_wqe_fit(ring, prod, n);
	ctrl = cxb_mlx5_wqe(ring, prod);
	eth = (void *)(ctrl + 1);
	info = &ring->tx_info[prod & ring->size_mask];

	dseg = (void *)ctrl + cxb_mlx5_eth_inline_ds(ihs) * CXB_MLX5_DS_SIZE;
	if (!lso && !nr_frags && skb_headlen(skb) <= ring->bounce_max) {
		/* the rest of a short frame from its copy in the WQE's
		 * bounce slot, as cxb_mlx5_post_send() sends it whole
		 */
		if (headlen)
			cxb_tx_set_data_seg(dseg,
					    cxb_tx_bounce(ring, skb,
							  prod & ring->size_mask) +
					    hdr, headlen, ring->lkey);
		info->map0_len = 0;
		info->nr_frags = 0;
	} else if (unlikely(!cxb_tx_map(ring, skb, info, dseg, hdr, headlen,
					nr_frags))) {
		return false;
	}
	memset(eth, 0, sizeof(*eth));
	eth->cs_flags = cxb_mlx5_cs_flags(skb);
	if (lso)
		eth->mss = cpu_to_be16(skb_shinfo(skb)->gso_size);
	eth->inline_hdr.sz = cpu_to_be16(ihs);
	/* inline_hdr.start and the DS after it (not the 2-byte field) */
	start = (u8 *)ctrl + CXB_MLX5_ETH_INLINE_OFF;
	if (!lso && likely(hdr == CXB_MLX5_MIN_INLINE_L2 && !vlan)) {
		memcpy(start, skb->data, CXB_MLX5_MIN_INLINE_L2);
	} else if (unlikely(vlan)) {
		struct vlan_ethhdr *vh = (void *)start;

		memcpy(start, skb->data, 2 * ETH_ALEN);
		vh->h_vlan_proto = skb->vlan_proto;
		vh->h_vlan_TCI = cpu_to_be16(skb_vlan_tag_get(skb));
		/* the ethertype on: a pointer, not the 2-byte field */
		memcpy(start + 2 * ETH_ALEN + VLAN_HLEN,
		       skb->data + 2 * ETH_ALEN, hdr - 2 * ETH_ALEN);
	} else {
		memcpy(start, skb->data, hdr);
	}
	info->skb = skb;
	info->nr_txbb = n;
	info->nr_bytes = bytes;
	info->mpw_pkts = 0;
	cxb_mlx5_ctrl(ring, ctrl, prod,
		      lso ? MLX5_OPCODE_LSO : MLX5_OPCODE_SEND, ds);
	ring->last_wqe = prod;
	*pprod = prod + n;
	return true;
}

/* Make room for @need DS in the session: keep the open one if it has
 * them and the same checksum offload @csum (cxb_mlx5_cs_flags()), else
 * close it; open one at @prod if none is open then. True if it opened
 * one.
 */
static __always_inline bool cxb_mlx5_mpw_room(struct cxb_tx_ring *ring,
					      u32 prod, bool csum, u32 need)
{
	if (ring->mpw.ds) {
		if (likely(csum == ring->mpw.csum &&
			   ring->mpw.ds + need <= CXB_MLX5_MAX_DS))
			return false;
		prod = cxb_mlx5_mpw_close(ring);
	}
	cxb_mlx5_mpw_open(ring, prod, csum);
	return true;
}

/* Append the eligible @skb to the session (cxb_mlx5_mpw_room()), and
 * say in *@opened whether it opened one. False if its mapping failed:
 * the session is then open, maybe empty. A copy per value of @inl,
 * which the room test needs first.
 */
static __always_inline bool cxb_mlx5_mpw_post(struct cxb_tx_ring *ring,
					      u32 prod, struct sk_buff *skb,
					      bool inl, bool *opened)
{
	bool csum = skb->ip_summed == CHECKSUM_PARTIAL;

	if (inl) {
		*opened = cxb_mlx5_mpw_room(ring, prod, csum,
					    cxb_mlx5_inline_ds(skb->len));
		return cxb_mlx5_mpw_add(ring, skb, true);
	}
	*opened = cxb_mlx5_mpw_room(ring, prod, csum, 1);
	return cxb_mlx5_mpw_add(ring, skb, false);
}

/* The doorbell xmit rings, by BlueFlame, if the last WQE posted fits one
 * buffer (false if not: nothing written): the producer counter to the
 * record, then that whole WQE through the write-combining mapping of the
 * doorbell buffer, as Linux 4.9's mlx5e_tx_notify_hw() did with bf_sz.
 * The device takes that WQE from the write, the ones before it from ring
 * memory. Out of line, so that the doorbell of a queue without BlueFlame
 * (the default) stays as short as before it existed.
 */
static noinline bool cxb_mlx5_xmit_bf(struct cxb_tx_ring *ring)
{
	struct mlx5_wqe_ctrl_seg *last = cxb_mlx5_wqe(ring, ring->last_wqe);
	void __iomem *reg = ring->bf_reg + ring->db_offset;
	u32 bytes = cxb_mlx5_bf_bytes(last);

	if (bytes > ring->bf_size)
		return false;
	cxb_mlx5_db_record(ring->db_rec, ring->prod, last);
	cxb_bf_write(ring->cadev, reg, last, bytes);
	ring->db_offset ^= CXB_MLX5_DB_ALT;
	return true;
}

/* The send path, specialised by three constants at its callers so that
 * each copy has only the branches its packets need (as __cxb_mlx4_xmit()
 * with @lso): @mpw, an eligible packet of a queue with MPWQE on, joins a
 * session (and leaves it open); otherwise @skb goes as a SEND WQE (@lso
 * false; @l2: with its L2 headers inline, the device's minimum inline
 * mode) or an LSO WQE (@lso true) after closing a session the packets
 * before it left open.
 */
static __always_inline netdev_tx_t
__cxb_mlx5_xmit(struct sk_buff *skb, struct cxb_tx_ring *ring, const bool lso,
		const bool mpw, const bool l2)
{
	bool xmit_more, send_db, inl;
	u32 len = skb->len, prod, pub;
	u32 hdr = 0, segs = 1;
	bool stopped = false, opened = false;

	prod = ring->prod;

	/* an LSO WQE is never inline, never joins a session (mlx5e,
	 * mlx5e_tx_mpwqe_ensure_complete())
	 */
	inl = !lso && len <= ring->inline_max;
	if (lso) {
		/* len: the bytes of its segments on the wire (mlx5e's
		 * num_bytes), for BQL and the counters
		 */
		hdr = skb_tcp_all_headers(skb);
		segs = skb_shinfo(skb)->gso_segs;
		len += (segs - 1) * hdr;
	}

	u64_stats_update_begin(&ring->xstats_sync);
	if (mpw) {
		if (unlikely(!cxb_mlx5_mpw_post(ring, prod, skb, inl,
						&opened)))
			goto drop;
	} else {
		/* in order after the session the packets before left open */
		if (unlikely(ring->mpw.ds))
			prod = cxb_mlx5_mpw_close(ring);
		if (lso || l2) {
			if (unlikely(!cxb_mlx5_post_hdrs(ring, &prod, skb, hdr,
							 len, lso)))
				goto drop;
			/* all of it inline (cxb_mlx5_min_inline()) */
			if (l2)
				inl = inl && !skb_is_nonlinear(skb);
		} else if (unlikely(!cxb_mlx5_post_send(ring, &prod, skb,
							 inl))) {
			goto drop;
		}
	}

	/* Stop before the next packet could find no room. The open session
	 * holds the room of a maximal WQE: tested when it opens, as its
	 * room only grows while it is open (cons moves on, it does not).
	 */
	if ((!mpw || opened) &&
	    unlikely(cxb_tx_room(ring, mpw ? ring->mpw.wqe +
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

	/* A session never waits for a later packet to be announced. While
	 * it is open, the prod published stays below it (and its NOP pad):
	 * its opening published that.
	 */
	if (mpw && send_db)
		prod = cxb_mlx5_mpw_close(ring);
	if (!mpw || send_db) {
		/* Publish prod only now: a completion-side doorbell that
		 * reads it must find every WQE below it written.
		 */
		smp_store_release(&ring->prod, prod);
	}

	if (send_db && unlikely(ring->db_opt & CXB_DB_OPT_AVOID) &&
	    cxb_tx_defer_doorbell(ring, CXB_GEN_CX5)) {
		send_db = false;
		xmit_more = false;	/* counted as deferred */
	}
	if (send_db) {
		/* BlueFlame: the WQE this doorbell names, if it fits */
		if (ring->bf_on && cxb_mlx5_xmit_bf(ring)) {
			ring->xstats.blueflame++;
		} else {
			cxb_mlx5_tx_doorbell(ring);
			ring->xstats.doorbells++;
		}
		WRITE_ONCE(ring->prod_bell, ring->prod);
		ring->xstats.doorbell_on_stop += xmit_more;
	} else {
		ring->xstats.xmit_more += xmit_more;
	}
	/* an LSO WQE: its segments (mlx5e counts them as packets); a
	 * session's packets: when it closes
	 */
	if (!mpw) {
		ring->xstats.packets += segs;
		ring->xstats.bytes += len;
	}
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
	ring->xstats.dropped += cxb_tx_skb_pkts(skb);
	dev_kfree_skb_any(skb);
	/* A dropped packet may end a burst: close the session and announce
	 * what is already posted. An empty session is closed too: its room
	 * was not tested.
	 */
	xmit_more = netdev_xmit_more();
	if (ring->mpw.ds &&
	    (!xmit_more || ring->mpw_prod == ring->mpw.fifo0))
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

/* A TCP GSO skb (NETIF_F_TSO, NETIF_F_TSO6): off the path of the others,
 * so that its one test of gso_size is all they pay for LSO.
 */
static noinline netdev_tx_t cxb_mlx5_xmit_lso(struct sk_buff *skb,
					      struct cxb_tx_ring *ring)
{
	return __cxb_mlx5_xmit(skb, ring, true, false, false);
}

netdev_tx_t cxb_mlx5_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_tx_ring *ring = cxb_xmit_ring(priv, skb);

	if (unlikely(!ring))
		return cxb_tx_drop_no_ring(priv, skb);
	if (unlikely(skb_is_gso(skb)))
		return cxb_mlx5_xmit_lso(skb, ring);
	/* a session takes a linear packet with no VLAN tag to insert */
	if (ring->mpwqe_on && !skb_is_nonlinear(skb) &&
	    !skb_vlan_tag_present(skb))
		return __cxb_mlx5_xmit(skb, ring, false, true, false);
	return __cxb_mlx5_xmit(skb, ring, false, false, false);
}

/* ndo_start_xmit of a port whose minimum inline mode is L2
 * (cxb_adev.min_inline): every SEND carries the packet's L2 headers
 * inline, and no packet joins a multi-packet WQE (mlx5e:
 * mlx5e_tx_skb_supports_mpwqe() takes no packet with inline headers).
 */
netdev_tx_t cxb_mlx5_start_xmit_l2(struct sk_buff *skb, struct net_device *dev)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_tx_ring *ring = cxb_xmit_ring(priv, skb);

	if (unlikely(!ring))
		return cxb_tx_drop_no_ring(priv, skb);
	if (unlikely(skb_is_gso(skb)))
		return cxb_mlx5_xmit_lso(skb, ring);
	return __cxb_mlx5_xmit(skb, ring, false, false, true);
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

/* Free the packets of the multi-packet WQE @info: out of line, so that
 * the walk's registers are the SEND WQE's (a call per session), and with
 * the FIFO's fields in locals, which the calls in the loop would reload.
 */
static noinline void cxb_mlx5_free_mpw(struct cxb_tx_ring *ring,
				       struct cxb_tx_info *info, int budget)
{
	struct cxb_mpw_ent *fifo = ring->mpw_fifo;
	u32 mask = ring->mpw_mask, c = ring->mpw_cons;
	u32 end = c + info->mpw_pkts;

	for (; c != end; c++) {
		struct cxb_mpw_ent *e = &fifo[c & mask];

		if (e->len)
			dma_unmap_single(ring->dma_dev, e->addr, e->len,
					 DMA_TO_DEVICE);
		napi_consume_skb(e->skb, budget);
	}
	ring->mpw_cons = end;
}

/* Free the WQE at @cons: returns its WQEBBs, adds packets and bytes. */
static __always_inline u32 cxb_mlx5_free_wqe(struct cxb_tx_ring *ring,
					     u32 cons, int budget, u32 *pkts,
					     u32 *bytes)
{
	struct cxb_tx_info *info = &ring->tx_info[cons & ring->size_mask];

	if (info->mpw_pkts) {
		cxb_mlx5_free_mpw(ring, info, budget);
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
bool cxb_mlx5_tx_complete(struct cxb_channel *ch, int budget, bool in_napi)
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
					       err->vendor_err_synd, in_napi);
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
		cxb_tx_bad_cqe(ch, wqe_counter, cons, prod, in_napi);
		ci++;
		ncqe++;
		break;
	}

	return cxb_tx_complete_finish(ring, cq, ci,
				      cpu_to_be32(ci & CXB_MLX5_CI_MASK),
				      ncqe, cons, pkts, bytes, budget, in_napi,
				      CXB_GEN_CX5);
}

int cxb_mlx5_napi_poll(struct napi_struct *napi, int budget)
{
	struct cxb_channel *ch = container_of(napi, struct cxb_channel, napi);

	ch->polls++;
	return cxb_napi_poll_finish(ch, budget,
				    cxb_mlx5_tx_complete(ch, budget, true),
				    CXB_GEN_CX5);
}

/* ---- Ring life cycle -------------------------------------------------- */

/* After cxb_tx_ring_init() (whose stamps mean nothing to an mlx5 device). */
void cxb_mlx5_tx_ring_init(struct cxb_tx_ring *ring)
{
	ring->mpw.ds = 0;
	ring->mpw.fifo0 = 0;
	ring->mpw_prod = 0;
	ring->mpw_cons = 0;
	ring->last_wqe = 0;
	ring->db_offset = 0;
	memset(ring->db_rec, 0, CXB_MLX5_DBR_SIZE);
}

/* Free what the device will never complete, an open session included.
 * The device is stopped, the queue disabled.
 */
void cxb_mlx5_tx_ring_drain(struct cxb_tx_ring *ring)
{
	u32 bytes = 0, skbs = 0, pkts = 0;

	u64_stats_update_begin(&ring->xstats_sync);
	if (ring->mpw.ds)
		ring->prod = cxb_mlx5_mpw_close(ring);
	u64_stats_update_end(&ring->xstats_sync);
	while (ring->cons != ring->prod) {
		pkts += cxb_tx_wqe_pkts(ring, ring->cons);
		ring->cons += cxb_mlx5_free_wqe(ring, ring->cons, 0, &skbs,
						&bytes);
	}
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
	ring->db_rec = dma_alloc_coherent(priv->dma_dev, CXB_MLX5_DBR_SIZE,
					  &ring->db_dma, GFP_KERNEL);
	if (!ring->db_rec)
		return -ENOMEM;
	cxb_mlx5_tx_ring_init(ring);
	return 0;
}

void cxb_mlx5_tx_free(struct cxb_priv *priv, struct cxb_tx_ring *ring)
{
	if (ring->db_rec)
		dma_free_coherent(priv->dma_dev, CXB_MLX5_DBR_SIZE, ring->db_rec,
				  ring->db_dma);
	ring->db_rec = NULL;
	kvfree(ring->mpw_fifo);
	ring->mpw_fifo = NULL;
}
