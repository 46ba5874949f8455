// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim: an LSO WQE executed, ConnectX-3 (MLX4_OPCODE_LSO,
 * wqe/mlx4.h) or ConnectX-4+ (MLX5_OPCODE_LSO, wqe/mlx5.h). The WQE's
 * packet, gathered whole into sq->lso.buf (the headers from the LSO
 * segment, or the mlx5 eth segment's inline headers, the payload from its
 * data segments), goes out as TCP segments
 * of at most MSS payload bytes, each behind a copy of the headers with
 * what the device rewrites per segment, as the kernel's software GSO
 * (tcp_gso_segment(), inet_gso_segment(), ipv6_gso_segment()) would
 * have cut it:
 *   IPv4: total length, ID (+1 per segment), header checksum;
 *   IPv6: payload length;
 *   TCP: sequence number (+ the payload before the segment), FIN and PSH
 *   only on the last segment, CWR only on the first, the checksum over
 *   the pseudo header and the segment.
 * The checksums are those the WQE asks for (mlx4: the ctrl flags
 * MLX4_WQE_CTRL_IP_CSUM, MLX4_WQE_CTRL_TCP_UDP_CSUM; mlx5: the eth
 * segment's cs_flags), as for a SEND. A segment the peer pushes back
 * (link-level pause) is held like a SEND's frame; the ones after it
 * follow when it left, and the WQE completes after its last segment.
 *
 * Violations, both generations: MSS 0; a header that is not Ethernet
 * (tagged or not), IPv4 or IPv6 and TCP, or whose length is not where the
 * TCP header ends (the mlx4 header size, the mlx5 inline_hdr.sz); inline
 * or malformed data segments; a packet over CXB_SIM_LSO_MAX. An mlx5 eth
 * segment with an MSS in a multi-packet WQE is one too
 * (cxbell_sim_mlx5.c).
 */
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>

#include "cxbell_sim.h"

#define CXB_SIM_TCP_FIN	0x01
#define CXB_SIM_TCP_PSH	0x08
#define CXB_SIM_TCP_CWR	0x80

/* The packet in lso.buf, placed as sq->frame's (IP header aligned) */
static u8 *cxb_sim_lso_pkt(const struct cxb_sim_lso *lso)
{
	return lso->buf + CXB_SIM_FRAME_PAD;
}

/* The device takes no length from the header: make its IP length field
 * describe the whole packet, for the parser.
 */
static void cxb_sim_lso_set_len(u8 *f, unsigned int len)
{
	__be16 proto = ((const struct ethhdr *)f)->h_proto;
	unsigned int off = ETH_HLEN;

	if (proto == htons(ETH_P_8021Q) || proto == htons(ETH_P_8021AD)) {
		proto = ((const struct vlan_ethhdr *)f)->h_vlan_encapsulated_proto;
		off = VLAN_ETH_HLEN;
	}
	if (len < off + sizeof(struct iphdr) + sizeof(struct tcphdr))
		return;
	if (proto == htons(ETH_P_IP))
		((struct iphdr *)(f + off))->tot_len = htons(len - off);
	else if (proto == htons(ETH_P_IPV6) &&
		 len >= off + sizeof(struct ipv6hdr))
		((struct ipv6hdr *)(f + off))->payload_len =
			htons(len - off - sizeof(struct ipv6hdr));
}

/* (both formats' pointer data segments are one layout: wqe/mlx5.h) */

/* The payload of an LSO WQE of either format, whose @hdr header bytes
 * are in sq->lso already: the pointer data segments from byte @off to
 * @end of sq->wqe, read by DMA behind the header. Returns the packet
 * length, 0 after a violation.
 */
static unsigned int cxb_sim_lso_payload(struct cxb_sim_sq *sq, u32 idx,
					unsigned int off, unsigned int end,
					unsigned int hdr, unsigned int mss)
{
	struct cxb_sim_port *port = sq->port;
	struct cxb_sim_lso *lso = &sq->lso;
	unsigned int len = hdr, i;

	for (i = 0; off < end; i++, off += CXB_MLX5_DS_SIZE) {
		const struct mlx5_wqe_data_seg *d = (const void *)(sq->wqe.b + off);
		u32 bc = be32_to_cpu(d->byte_count);

		if (cxb_mlx5_seg_is_inline(d->byte_count) ||
		    d->lkey != port->cadev.lkey || !bc || bc >= SZ_64K) {
			cxb_sim_violation(port, "SQ %#x WQE %u LSO seg %u: byte_count %#x lkey %#x",
					  sq->qpn, idx, i, bc,
					  be32_to_cpu(d->lkey));
			return 0;
		}
		if (len + bc > CXB_SIM_LSO_MAX) {
			cxb_sim_violation(port, "SQ %#x WQE %u: LSO packet over %u bytes",
					  sq->qpn, idx, CXB_SIM_LSO_MAX);
			return 0;
		}
		if (cxb_sim_dma_read(port, be64_to_cpu(d->addr),
				     cxb_sim_lso_pkt(lso) + len, bc,
				     CXB_SIM_PCIE_DATA_RD))
			return 0;
		len += bc;
	}
	lso->hdr = hdr;
	lso->mss = mss;
	return len;
}

/* Gather the packet of the LSO WQE at @idx (DS @ds, in sq->wqe) into
 * sq->lso: its header from the LSO segment, the payload by DMA from the
 * pointer segments after it. Returns the packet length, 0 after a
 * violation.
 */
static unsigned int cxb_sim_lso_gather(struct cxb_sim_sq *sq, u32 idx,
				       unsigned int ds)
{
	const struct mlx4_wqe_ctrl_seg *ctrl = &sq->wqe.ctrl;
	unsigned int end = ds * CXB_MLX4_DS_SIZE, off, hdr, mss;
	struct cxb_sim_port *port = sq->port;
	struct cxb_sim_lso *lso = &sq->lso;
	__be32 mh;

	memcpy(&mh, sq->wqe.b + CXB_MLX4_DS_SIZE, sizeof(mh));
	hdr = cxb_mlx4_lso_hdr(mh);
	mss = cxb_mlx4_lso_mss(mh);
	off = CXB_MLX4_DS_SIZE + cxb_mlx4_lso_ds(hdr) * CXB_MLX4_DS_SIZE;
	if (!lso->buf || ds < 2 || hdr < ETH_HLEN || !mss || off > end) {
		cxb_sim_violation(port, "SQ %#x WQE %u: LSO header %u, MSS %u, DS %u",
				  sq->qpn, idx, hdr, mss, ds);
		return 0;
	}
	/* mlx4_en sets BLH on every LSO WQE; one of an LSO segment past
	 * 64 bytes needs it (mlx4_ib, qp.c build_lso_seg())
	 */
	if (CXB_MLX4_LSO_SEG_HDR + hdr > MLX4_INLINE_ALIGN &&
	    !(ctrl->owner_opcode & cpu_to_be32(CXB_MLX4_LSO_BLH))) {
		cxb_sim_violation(port, "SQ %#x WQE %u: LSO header %u without BLH",
				  sq->qpn, idx, hdr);
		return 0;
	}
	memcpy(cxb_sim_lso_pkt(lso),
	       sq->wqe.b + CXB_MLX4_DS_SIZE + CXB_MLX4_LSO_SEG_HDR, hdr);
	return cxb_sim_lso_payload(sq, idx, off, end, hdr, mss);
}

/* The header in sq->lso.buf: Ethernet (a tag allowed), IPv4 or IPv6,
 * TCP, ending where the TCP header does. Records what the segments
 * rewrite.
 */
static bool cxb_sim_lso_parse(struct cxb_sim_sq *sq, u32 idx)
{
	struct cxb_sim_lso *lso = &sq->lso;
	struct cxb_sim_pkt *pk = &lso->pk;
	u8 *p = cxb_sim_lso_pkt(lso);
	const struct tcphdr *th;

	cxb_sim_lso_set_len(p, lso->len);
	cxb_sim_pkt_parse(p, lso->len, pk);
	if (pk->l4 != IPPROTO_TCP)
		goto bad;
	th = (const void *)(p + pk->l4_off);
	if (pk->l4_off + th->doff * 4 != lso->hdr)
		goto bad;
	lso->seq = ntohl(th->seq);
	lso->tcp_flags = ((const u8 *)th)[13];
	if (pk->l3 == ETH_P_IP)
		lso->ip_id = ntohs(((const struct iphdr *)
				    (p + pk->l3_off))->id);
	return true;
bad:
	cxb_sim_violation(sq->port, "SQ %#x WQE %u: LSO header %u is not Ethernet/IP/TCP",
			  sq->qpn, idx, lso->hdr);
	return false;
}

/* Send the segments of the running LSO WQE from lso.off on. False if the
 * peer pushed one back: it is held, the rest follows on resume
 * (cxb_sim_sq_unpause()). Caller holds sq->lock.
 */
bool cxb_sim_lso_send(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass)
{
	struct cxb_sim_lso *lso = &sq->lso;
	u8 *f = sq->frame + CXB_SIM_FRAME_PAD;
	const struct cxb_sim_pkt *hp = &lso->pk;

	while (lso->off < lso->len) {
		unsigned int n = min(lso->mss, lso->len - lso->off);
		unsigned int seg_len = lso->hdr + n;
		bool last = lso->off + n == lso->len;
		struct tcphdr *th;
		u8 flags;

		memcpy(f, cxb_sim_lso_pkt(lso), lso->hdr);
		memcpy(f + lso->hdr, cxb_sim_lso_pkt(lso) + lso->off, n);
		if (hp->l3 == ETH_P_IP) {
			struct iphdr *iph = (void *)(f + hp->l3_off);

			iph->tot_len = htons(seg_len - hp->l3_off);
			iph->id = htons((u16)(lso->ip_id + lso->seg));
		} else {
			struct ipv6hdr *ip6 = (void *)(f + hp->l3_off);

			ip6->payload_len = htons(seg_len - hp->l3_off -
						 sizeof(*ip6));
		}
		th = (void *)(f + hp->l4_off);
		th->seq = htonl(lso->seq + (lso->off - lso->hdr));
		flags = lso->tcp_flags;
		if (!last)
			flags &= ~(CXB_SIM_TCP_FIN | CXB_SIM_TCP_PSH);
		if (lso->seg)
			flags &= ~CXB_SIM_TCP_CWR;
		((u8 *)th)[13] = flags;
		cxb_sim_pkt_parse(f, seg_len, &sq->held_pk);
		cxb_sim_pkt_tx_csum(f, &sq->held_pk, lso->ip_cs, lso->l4_cs);

		lso->off += n;
		lso->seg++;
		cxb_sim_inc(sq->port, CXB_SIM_C_TX_LSO_SEGMENTS);
		if (lso->vlan)
			cxb_sim_inc(sq->port, CXB_SIM_C_TX_VLAN_INSERTED);
		sq->held_idx = lso->idx;
		sq->held_len = seg_len;
		/* the WQE's CQE after its last segment */
		sq->held_cqe = last && lso->cqe;
		sq->held_wire = max_t(unsigned int, seg_len, ETH_ZLEN);
		if (seg_len < ETH_ZLEN)
			memset(f + seg_len, 0, ETH_ZLEN - seg_len);
		if (!cxb_sim_sq_wire(sq, pass))
			return false;
	}
	lso->len = 0;
	return true;
}

/* Cut the packet gathered into sq->lso (len, hdr, mss, vlan, ip_cs,
 * l4_cs, cqe set) of the LSO WQE at @idx: *@len (its gathered length)
 * becomes 0 after a violation. False if the engine paused with a segment
 * held. Caller holds sq->lock.
 */
static bool cxb_sim_lso_start(struct cxb_sim_sq *sq, u32 idx,
			      unsigned int *len, struct cxb_sim_pass *pass)
{
	struct cxb_sim_lso *lso = &sq->lso;

	if (!cxb_sim_lso_parse(sq, idx)) {
		lso->len = 0;
		*len = 0;
		return true;
	}
	lso->off = lso->hdr;
	lso->seg = 0;
	lso->idx = idx;
	cxb_sim_inc(sq->port, CXB_SIM_C_TX_LSO_WQES);
	/* done: the caller writes the CQE, if asked for */
	return cxb_sim_lso_send(sq, pass);
}

/* Execute the mlx4 LSO WQE at @idx (DS @ds, whole in sq->wqe): *@len the
 * packet's length (the CQE's byte count), 0 after a violation. False if
 * the engine paused with a segment held (the WQE completes when its last
 * segment left). Caller holds sq->lock.
 */
bool cxb_sim_lso_exec(struct cxb_sim_sq *sq, u32 idx, unsigned int ds,
		      unsigned int *len, struct cxb_sim_pass *pass)
{
	const struct mlx4_wqe_ctrl_seg *ctrl = &sq->wqe.ctrl;
	struct cxb_sim_lso *lso = &sq->lso;
	__be32 srcrb = ctrl->srcrb_flags;

	*len = cxb_sim_lso_gather(sq, idx, ds);
	if (!*len)
		return true;
	lso->len = *len;
	lso->vlan = ctrl->qpn_vlan.ins_vlan & MLX4_WQE_CTRL_INS_CVLAN;
	if (lso->vlan) {
		lso->len = cxb_sim_pkt_vlan_insert(cxb_sim_lso_pkt(lso),
						   lso->len,
						   ctrl->qpn_vlan.vlan_tag);
		lso->hdr += VLAN_HLEN;
	}
	lso->ip_cs = !!(srcrb & cpu_to_be32(MLX4_WQE_CTRL_IP_CSUM));
	lso->l4_cs = !!(srcrb & cpu_to_be32(MLX4_WQE_CTRL_TCP_UDP_CSUM));
	lso->cqe = !!(srcrb & cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE));
	return cxb_sim_lso_start(sq, idx, len, pass);
}

/* Gather the packet of the mlx5 LSO WQE at @idx (DS sq->mpw_end / 16, in
 * sq->wqe) into sq->lso: its headers from the eth segment's inline
 * headers, the payload by DMA from the pointer segments after them.
 * Returns the packet length, 0 after a violation.
 */
static unsigned int cxb_sim_lso_gather_mlx5(struct cxb_sim_sq *sq, u32 idx)
{
	const struct mlx5_wqe_eth_seg *eth =
		(const void *)(sq->wqe.b + CXB_MLX5_DS_SIZE);
	unsigned int hdr = be16_to_cpu(eth->inline_hdr.sz);
	unsigned int mss = be16_to_cpu(eth->mss);
	unsigned int end = sq->mpw_end, off;
	struct cxb_sim_port *port = sq->port;
	struct cxb_sim_lso *lso = &sq->lso;

	off = cxb_mlx5_eth_inline_ds(hdr) * CXB_MLX5_DS_SIZE;
	if (hdr < ETH_HLEN || !mss || off > end) {
		cxb_sim_violation(port, "SQ %#x WQE %u: LSO inline headers %u, MSS %u, DS %u",
				  sq->qpn, idx, hdr, mss,
				  end / CXB_MLX5_DS_SIZE);
		return 0;
	}
	memcpy(cxb_sim_lso_pkt(lso), sq->wqe.b + CXB_MLX5_ETH_INLINE_OFF, hdr);
	return cxb_sim_lso_payload(sq, idx, off, end, hdr, mss);
}

/* Execute the mlx5 LSO WQE at @idx (whole in sq->wqe, sq->mpw_end its
 * DS * 16), as cxb_sim_lso_exec(). A VLAN tag is in the inline headers
 * already: the eth segment's insert field is their size.
 */
bool cxb_sim_lso_exec_mlx5(struct cxb_sim_sq *sq, u32 idx, unsigned int *len,
			   struct cxb_sim_pass *pass)
{
	const struct mlx5_wqe_eth_seg *eth =
		(const void *)(sq->wqe.b + CXB_MLX5_DS_SIZE);
	struct cxb_sim_lso *lso = &sq->lso;

	*len = cxb_sim_lso_gather_mlx5(sq, idx);
	if (!*len)
		return true;
	lso->len = *len;
	lso->vlan = false;
	lso->ip_cs = eth->cs_flags & MLX5_ETH_WQE_L3_CSUM;
	lso->l4_cs = eth->cs_flags & MLX5_ETH_WQE_L4_CSUM;
	/* the mlx5 engine completes the WQE (cxb_sim_mlx5_resume()) */
	lso->cqe = false;
	return cxb_sim_lso_start(sq, idx, len, pass);
}
