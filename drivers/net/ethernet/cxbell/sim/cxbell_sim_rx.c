// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim receive side: a frame arriving on a port.
 *
 * RSS: as the driver programmed it through the set_rss backend op (the
 * RSS QP context or RQT of a ConnectX, a firmware command's worth;
 * struct cxb_rss): the Toeplitz hash with the programmed key over the
 * addresses and, for TCP and UDP (not fragments), the ports of IPv4 and
 * IPv6 frames picks an indirection table entry, hash & (table size - 1),
 * and the entry the channel whose RQ gets the frame; the hash is
 * reported in the CQE (immed_rss_invalid). Any other frame, and every
 * frame while nothing is programmed (a closed port), goes to channel 0
 * with hash 0. The table is a full one, as a ConnectX-4's RQT: any
 * channel in any entry (a ConnectX-3's RSS QP spreads over a power of
 * two of consecutive QPs only, which cxbell_mlx4 enforces). An entry
 * naming a channel with no RQ drops the frame (rx_dropped).
 *
 * An RQ is a ring of single data segments; its producer is the low 16
 * bits of the be32 doorbell record, read again only when the device has
 * used every WQE it knew of.
 *
 * A frame that finds no receive WQE is dropped, or, with the port's
 * pause on, pushed back (CXB_SIM_RX_PAUSE): the sender keeps it and
 * tries again later (Documentation/sim.rst, link-level flow control).
 *
 * Receive filter: as a ConnectX steers by destination MAC, a frame is
 * delivered if it is broadcast, if its destination is in the port's
 * unicast or multicast table, if it is multicast with all-multicast on,
 * or with promiscuous mode on; any other is counted in rx_filtered and
 * goes no further. The tables are what the driver programmed through
 * the set_rx_filter backend op (a firmware command's worth); a closed
 * port has none, and receives nothing but broadcast.
 *
 * VLAN stripping: an RQ created with vlan_strip writes a frame with an
 * 802.1Q tag without it, the tag in the CQE (MLX4_CQE_CVLAN_PRESENT_MASK,
 * sl_vid) and byte_cnt without its 4 bytes, as a ConnectX-3 receive QP
 * whose context asks to strip; rx_bytes counts the frame as it was on the
 * wire.
 *
 * Faults (port fault/ knobs): the next N completions may be error CQEs
 * (rx_err_cqe) or flag a bad FCS (rx_bad_fcs); either way the frame is
 * written and its WQE consumed, as a device that received it would. A
 * cx5 port has no bad-FCS completion: it drops the next N frames in its
 * MAC instead (rx_frames and rx_bad_fcs count them, the port's
 * rx_crc_errors too, no WQE used).
 *
 * CQEs are the port generation's: cx3 struct mlx4_cqe (above), cx5
 * struct mlx5_cqe64 (wqe/mlx5.h: the parse verdicts, rss_hash_type,
 * vlan_info).
 *
 * Runs inside the sending port's TX engine (its SQ lock held, bottom
 * halves disabled, RCU read side); takes the RQ lock and then the CQ
 * lock, never the other way around.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxbell_sim.h"

/* Read the producer record: WQEs available (0: none posted), or a
 * negative error (counted as a violation).
 */
static int cxb_sim_rq_refill(struct cxb_sim_rq *rq)
{
	__be32 rec;
	u16 avail;

	if (cxb_sim_dma_read(rq->port, rq->db_dma, &rec, sizeof(rec),
			     CXB_SIM_PCIE_DB))
		return -EFAULT;
	rq->prod = be32_to_cpu(rec) & 0xffff;
	avail = rq->prod - rq->cons;
	if (avail > rq->size) {
		cxb_sim_violation(rq->port, "RQ %#x producer %u ahead of consumer %u by %u > %u",
				  rq->qpn, rq->prod, rq->cons, avail, rq->size);
		rq->prod = rq->cons;
		return -EINVAL;
	}
	/* the WQEs are read after the producer that covers them */
	dma_rmb();
	return avail;
}

/* Fault: is the next receive completion an error CQE
 * (CXB_SIM_C_RX_ERR_CQES) or a frame flagged with a bad FCS
 * (CXB_SIM_C_RX_BAD_FCS)? CXB_SIM_NR_CNT: neither.
 */
static enum cxb_sim_cnt cxb_sim_rx_fault(struct cxb_sim_port *port)
{
	if (cxb_sim_fault_hit(&port->fault.rx_err_cqe))
		return CXB_SIM_C_RX_ERR_CQES;
	/* a cx5 port drops such a frame before (cxb_sim_rx_deliver()) */
	if (port->ad->gen != CXB_GEN_CX5 &&
	    cxb_sim_fault_hit(&port->fault.rx_bad_fcs))
		return CXB_SIM_C_RX_BAD_FCS;
	return CXB_SIM_NR_CNT;
}

/* Turn the receive CQE @cqe into an error CQE (struct mlx4_err_cqe,
 * opcode 0x1e, the syndrome of the port's err_cqe_syndrome knob): its
 * QPN and WQE index stay where both layouts have them, its reserved
 * dwords keep what the normal CQE had there (the byte count among them,
 * as a device may leave it): only the opcode tells it apart.
 */
static void cxb_sim_rx_err_cqe(struct cxb_sim_rq *rq, struct mlx4_cqe *cqe)
{
	struct mlx4_err_cqe *err = (struct mlx4_err_cqe *)cqe;

	BUILD_BUG_ON(sizeof(*err) != sizeof(*cqe));
	BUILD_BUG_ON(offsetof(struct mlx4_err_cqe, wqe_index) !=
		     offsetof(struct mlx4_cqe, wqe_index));
	err->vendor_err_syndrome = 0;
	err->syndrome = atomic_read(&rq->port->fault.err_syndrome);
	err->owner_sr_opcode = CXB_MLX4_CQE_OPCODE_ERROR;
}

/* The mlx5 receive CQE of a frame of @len bytes (after stripping) in
 * WQE rq->cons, or its error CQE (@fault), posted to the RQ's CQ.
 */
static int cxb_sim_rq_cqe64(struct cxb_sim_rq *rq, const u8 *frame,
			    unsigned int len, const struct cxb_sim_pkt *pk,
			    u32 hash, bool hashed, bool strip, __be16 tci,
			    enum cxb_sim_cnt fault, struct cxb_sim_pass *pass)
{
	union {
		struct mlx5_cqe64 cqe;
		struct mlx5_err_cqe err;
	} u;

	BUILD_BUG_ON(offsetof(struct mlx5_err_cqe, wqe_counter) !=
		     offsetof(struct mlx5_cqe64, wqe_counter));
	memset(&u, 0, sizeof(u));
	cxb_sim_pkt_rx_mlx5(frame, pk, hashed, &u.cqe);
	if (strip) {
		u.cqe.l4_l3_hdr_type |= CXB_MLX5_CQE_VLAN;
		u.cqe.vlan_info = tci;
	}
	u.cqe.rss_hash_result = cpu_to_be32(hash);
	u.cqe.byte_cnt = cpu_to_be32(len);
	u.cqe.sop_drop_qpn = cpu_to_be32(rq->qpn & CXB_SIM_QN_MAX);
	u.cqe.wqe_counter = cpu_to_be16(rq->cons);
	u.cqe.op_own = MLX5_CQE_RESP_SEND << 4;
	/* fault: an error CQE names the WQE (the rest as a device may leave
	 * it: only the opcode tells it apart)
	 */
	if (fault == CXB_SIM_C_RX_ERR_CQES) {
		u.err.vendor_err_synd = 0;
		u.err.syndrome = atomic_read(&rq->port->fault.err_syndrome);
		u.err.op_own = MLX5_CQE_RESP_ERR << 4;
	}
	return cxb_sim_cq_post64(rq->cq, &u.cqe, pass);
}

/* The mlx4 receive CQE likewise; @fault may also flag a bad FCS. */
static int cxb_sim_rq_cqe32(struct cxb_sim_rq *rq, const u8 *frame,
			    unsigned int len, const struct cxb_sim_pkt *pk,
			    u32 hash, bool strip, __be16 tci,
			    enum cxb_sim_cnt fault, struct cxb_sim_pass *pass)
{
	struct mlx4_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.vlan_my_qpn = cpu_to_be32(rq->qpn & CXB_SIM_QN_MAX);
	if (strip) {
		cqe.vlan_my_qpn |= cpu_to_be32(MLX4_CQE_CVLAN_PRESENT_MASK);
		cqe.sl_vid = tci;
	}
	cqe.immed_rss_invalid = cpu_to_be32(hash);
	cqe.status = cpu_to_be16(cxb_sim_pkt_rx_status(frame, pk));
	if (cqe.status & cpu_to_be16(MLX4_CQE_STATUS_IPOK))
		cqe.checksum = cpu_to_be16(0xffff);
	cqe.byte_cnt = cpu_to_be32(len);
	cqe.wqe_index = cpu_to_be16(rq->cons);
	cqe.owner_sr_opcode = MLX4_RECV_OPCODE_SEND;
	if (fault == CXB_SIM_C_RX_ERR_CQES)
		cxb_sim_rx_err_cqe(rq, &cqe);
	else if (fault == CXB_SIM_C_RX_BAD_FCS)
		cqe.badfcs_enc = MLX4_CQE_BAD_FCS;
	return cxb_sim_cq_post(rq->cq, &cqe, pass);
}

/* Caller holds rq->lock. */
static enum cxb_sim_rx_res cxb_sim_rq_fill(struct cxb_sim_rq *rq,
					   const u8 *frame, unsigned int len,
					   const struct cxb_sim_pkt *pk,
					   u32 hash, bool hashed,
					   struct cxb_sim_pass *pass)
{
	bool cx5 = rq->port->ad->gen == CXB_GEN_CX5;
	struct cxb_sim_port *port = rq->port;
	struct mlx4_wqe_data_seg seg;
	enum cxb_sim_cnt fault;
	dma_addr_t addr;
	int err;
	bool strip;
	__be16 tci = 0;
	int avail;
	u32 bc;

	if (rq->cons == rq->prod) {
		avail = cxb_sim_rq_refill(rq);
		if (!avail && READ_ONCE(port->pause))
			return CXB_SIM_RX_PAUSE;
		if (avail <= 0)
			return CXB_SIM_RX_DROPPED;
	}

	/* where the device fetches it: cx3 behind the QP's send queue TXBB,
	 * cx5 from the RQ's start (same 16-byte segment layout)
	 */
	addr = rq->buf_dma + (cx5 ? 0 : CXB_MLX4_RX_RQ_OFFSET) +
	       ((dma_addr_t)(rq->cons & (rq->size - 1)) <<
		CXB_MLX4_RX_STRIDE_SHIFT);
	if (cxb_sim_dma_read(port, addr, &seg, sizeof(seg), CXB_SIM_PCIE_DESC))
		return CXB_SIM_RX_DROPPED;
	if (seg.lkey != port->cadev.lkey) {
		cxb_sim_violation(port, "RQ %#x WQE %u: lkey %#x", rq->qpn,
				  rq->cons, be32_to_cpu(seg.lkey));
		return CXB_SIM_RX_DROPPED;
	}
	bc = be32_to_cpu(seg.byte_count);
	if (bc & BIT(31)) {
		cxb_sim_violation(port, "RQ %#x WQE %u: inline segment",
				  rq->qpn, rq->cons);
		return CXB_SIM_RX_DROPPED;
	}
	/* VLAN stripping: the C-VLAN tag goes into the CQE, the frame is
	 * written without it
	 */
	strip = rq->vlan_strip && len >= VLAN_ETH_HLEN &&
		((const struct ethhdr *)frame)->h_proto == htons(ETH_P_8021Q);
	if (strip) {
		tci = ((const struct vlan_ethhdr *)frame)->h_vlan_TCI;
		len -= VLAN_HLEN;
	}
	if (len > bc)
		return CXB_SIM_RX_DROPPED;	/* frame longer than the buffer */
	if (!cxb_sim_cq_room(rq->cq)) {
		cxb_sim_violation(port, "RQ %#x: CQ %#x full", rq->qpn,
				  rq->cq->cqn);
		return CXB_SIM_RX_DROPPED;
	}
	if (strip) {
		if (cxb_sim_dma_write(port, be64_to_cpu(seg.addr), frame,
				      ETH_ALEN * 2, CXB_SIM_PCIE_DATA_WR) ||
		    cxb_sim_dma_write(port, be64_to_cpu(seg.addr) + ETH_ALEN * 2,
				      frame + ETH_ALEN * 2 + VLAN_HLEN,
				      len - ETH_ALEN * 2, CXB_SIM_PCIE_DATA_WR))
			return CXB_SIM_RX_DROPPED;
	} else if (cxb_sim_dma_write(port, be64_to_cpu(seg.addr), frame, len,
				     CXB_SIM_PCIE_DATA_WR)) {
		return CXB_SIM_RX_DROPPED;
	}
	/* the frame is visible before its CQE */
	dma_wmb();

	/* fault: an error completion, or a frame received with a bad FCS */
	fault = cxb_sim_rx_fault(port);
	if (cx5)
		err = cxb_sim_rq_cqe64(rq, frame, len, pk, hash, hashed, strip,
				       tci, fault, pass);
	else
		err = cxb_sim_rq_cqe32(rq, frame, len, pk, hash, strip, tci,
				       fault, pass);
	if (err)
		return CXB_SIM_RX_DROPPED;
	if (fault != CXB_SIM_NR_CNT)
		cxb_sim_inc(port, fault);
	if (strip)
		cxb_sim_inc(port, CXB_SIM_C_RX_VLAN_STRIPPED);

	rq->cons++;
	return CXB_SIM_RX_OK;
}

/* Replace the port's receive filter with @f (backend op set_rx_filter).
 * Process context.
 */
int cxb_sim_filter_set(struct cxb_sim_port *port,
		       const struct cxb_rx_filter *f)
{
	struct cxb_sim_adapter *ad = port->ad;
	struct cxb_sim_filter *nf, *old;
	unsigned int i;
	int err = 0;

	if (f->n_uc > port->cadev.max_uc || f->n_mc > port->cadev.max_mc)
		return -ENOSPC;
	for (i = 0; i < f->n_uc; i++)
		if (!is_unicast_ether_addr(f->uc[i]))
			return -EINVAL;
	for (i = 0; i < f->n_mc; i++)
		if (!is_multicast_ether_addr(f->mc[i]))
			return -EINVAL;
	nf = kzalloc(struct_size(nf, addr, f->n_uc + f->n_mc), GFP_KERNEL);
	if (!nf)
		return -ENOMEM;
	nf->promisc = f->promisc;
	nf->allmulti = f->allmulti;
	nf->n_uc = f->n_uc;
	nf->n_mc = f->n_mc;
	memcpy(nf->addr, f->uc, f->n_uc * ETH_ALEN);
	memcpy(nf->addr + f->n_uc, f->mc, f->n_mc * ETH_ALEN);

	mutex_lock(&ad->lock);
	if (!port->enabled) {
		/* nothing is steered on a closed port */
		err = -ENETDOWN;
		old = nf;
	} else {
		old = rcu_replace_pointer(port->filter, nf,
					  lockdep_is_held(&ad->lock));
	}
	mutex_unlock(&ad->lock);
	if (old)
		kfree_rcu(old, rcu);
	return err;
}

/* The port closed: every entry goes. Adapter lock held. */
void cxb_sim_filter_clear(struct cxb_sim_port *port)
{
	struct cxb_sim_filter *old;

	old = rcu_replace_pointer(port->filter, NULL,
				  lockdep_is_held(&port->ad->lock));
	if (old)
		kfree_rcu(old, rcu);
}

/* Replace the port's RSS setting with @r (backend op set_rss). Process
 * context.
 */
int cxb_sim_rss_set(struct cxb_sim_port *port, const struct cxb_rss *r)
{
	struct cxb_sim_adapter *ad = port->ad;
	struct cxb_sim_rss *nr, *old;
	int err = 0;

	nr = kzalloc(sizeof(*nr), GFP_KERNEL);
	if (!nr)
		return -ENOMEM;
	nr->r = *r;
	mutex_lock(&ad->lock);
	if (!port->enabled) {
		err = -ENETDOWN;
		old = nr;
	} else {
		old = rcu_replace_pointer(port->rss, nr,
					  lockdep_is_held(&ad->lock));
	}
	mutex_unlock(&ad->lock);
	if (old)
		kfree_rcu(old, rcu);
	return err;
}

/* The port closed: back to channel 0 for everything. Adapter lock held. */
void cxb_sim_rss_clear(struct cxb_sim_port *port)
{
	struct cxb_sim_rss *old;

	old = rcu_replace_pointer(port->rss, NULL,
				  lockdep_is_held(&port->ad->lock));
	if (old)
		kfree_rcu(old, rcu);
}

/* Does the port's filter let a frame for @dst in? RCU read side. */
static bool cxb_sim_filter_pass(struct cxb_sim_port *port, const u8 *dst)
{
	const struct cxb_sim_filter *f = rcu_dereference(port->filter);
	unsigned int i, end;

	if (is_broadcast_ether_addr(dst))
		return true;
	if (!f)
		return false;
	if (f->promisc)
		return true;
	if (is_multicast_ether_addr(dst)) {
		if (f->allmulti)
			return true;
		i = f->n_uc;
		end = f->n_uc + f->n_mc;
	} else {
		i = 0;
		end = f->n_uc;
	}
	for (; i < end; i++)
		if (ether_addr_equal(dst, f->addr[i]))
			return true;
	return false;
}

/* Returns what became of the frame; counted here but for a pushback. */
enum cxb_sim_rx_res cxb_sim_rx_deliver(struct cxb_sim_port *port,
				       const u8 *frame, unsigned int len,
				       const struct cxb_sim_pkt *pk,
				       struct cxb_sim_pass *pass)
{
	enum cxb_sim_rx_res res = CXB_SIM_RX_DROPPED;
	unsigned int ring = 0;
	const struct cxb_sim_rss *rss;
	struct cxb_sim_rq *rq;
	bool hashed = false;
	u32 hash = 0;

	/* fault: a ConnectX-4+ port drops a frame with a bad FCS in its MAC,
	 * no completion; its 802.3 counter has it (rx_crc_errors)
	 */
	if (port->ad->gen == CXB_GEN_CX5 &&
	    cxb_sim_fault_hit(&port->fault.rx_bad_fcs)) {
		cxb_sim_inc(port, CXB_SIM_C_RX_BAD_FCS);
		atomic64_inc(&port->port_rx_crc_errors);
		res = CXB_SIM_RX_OK;
		goto out;
	}
	if (!cxb_sim_filter_pass(port, frame)) {
		cxb_sim_inc(port, CXB_SIM_C_RX_FILTERED);
		return CXB_SIM_RX_FILTERED;
	}
	rss = rcu_dereference(port->rss);
	if (rss && pk->l3) {
		hashed = true;
		hash = cxb_sim_pkt_hash(frame, pk, rss->r.key);
		ring = rss->r.table[hash & (CXB_RSS_TABLE_SIZE - 1)];
	}
	rq = ring < CXB_SIM_MAX_CHANNELS ? rcu_dereference(port->rqs[ring]) :
					   NULL;
	if (rq && cxb_sim_fault_hit(&port->fault.rx_no_buf)) {
		/* fault: no receive WQE found, and dropped even with pause on */
		cxb_sim_inc(port, CXB_SIM_C_RX_NO_BUF);
	} else if (rq &&
		   len <= READ_ONCE(port->mtu) + ETH_HLEN + VLAN_HLEN) {
		spin_lock(&rq->lock);
		if (!rq->dead)
			res = cxb_sim_rq_fill(rq, frame, len, pk, hash, hashed,
					      pass);
		spin_unlock(&rq->lock);
	}
out:
	if (res == CXB_SIM_RX_OK) {
		cxb_sim_inc(port, CXB_SIM_C_RX_FRAMES);
		cxb_sim_add(port, CXB_SIM_C_RX_BYTES, len);
	} else if (res == CXB_SIM_RX_DROPPED) {
		cxb_sim_inc(port, CXB_SIM_C_RX_DROPPED);
		atomic64_inc(&port->port_rx_dropped);
	}
	return res;
}
