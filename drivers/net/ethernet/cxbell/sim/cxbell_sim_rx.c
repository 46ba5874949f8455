// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim receive side: a frame arriving on a port.
 *
 * RSS: TCP/UDP over IPv4/IPv6 is spread by a hash of addresses and ports
 * over the port's live RQs (the core creates them on channels 0..n-1);
 * everything else goes to ring 0. The hash is reported in the CQE
 * (immed_rss_invalid), 0 when none was computed. An RQ is a ring of single data
 * segments; its producer is the low 16 bits of the be32 doorbell record,
 * read again only when the device has used every WQE it knew of.
 *
 * A frame that finds no receive WQE is dropped, or, with the port's
 * pause on, pushed back (CXB_SIM_RX_PAUSE): the sender keeps it and
 * tries again later (Documentation/sim.rst, link-level flow control).
 *
 * Faults (port fault/ knobs): the next N completions may be error CQEs
 * (rx_err_cqe) or flag a bad FCS (rx_bad_fcs); either way the frame is
 * written and its WQE consumed, as a device that received it would.
 *
 * Runs inside the sending port's TX engine (its SQ lock held, bottom
 * halves disabled, RCU read side); takes the RQ lock and then the CQ
 * lock, never the other way around.
 */
#include <linux/if_vlan.h>
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
	if (cxb_sim_fault_hit(&port->fault.rx_bad_fcs))
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

/* Caller holds rq->lock. */
static enum cxb_sim_rx_res cxb_sim_rq_fill(struct cxb_sim_rq *rq,
					   const u8 *frame, unsigned int len,
					   const struct cxb_sim_pkt *pk,
					   u32 hash, struct cxb_sim_pass *pass)
{
	struct cxb_sim_port *port = rq->port;
	struct mlx4_wqe_data_seg seg;
	enum cxb_sim_cnt fault;
	struct mlx4_cqe cqe;
	dma_addr_t addr;
	int avail;
	u32 bc;

	if (rq->cons == rq->prod) {
		avail = cxb_sim_rq_refill(rq);
		if (!avail && READ_ONCE(port->pause))
			return CXB_SIM_RX_PAUSE;
		if (avail <= 0)
			return CXB_SIM_RX_DROPPED;
	}

	/* where the HCA fetches it: behind the QP's send queue TXBB */
	addr = rq->buf_dma + CXB_MLX4_RX_RQ_OFFSET +
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
	if (len > bc)
		return CXB_SIM_RX_DROPPED;	/* frame longer than the buffer */
	if (!cxb_sim_cq_room(rq->cq)) {
		cxb_sim_violation(port, "RQ %#x: CQ %#x full", rq->qpn,
				  rq->cq->cqn);
		return CXB_SIM_RX_DROPPED;
	}
	if (cxb_sim_dma_write(port, be64_to_cpu(seg.addr), frame, len,
			      CXB_SIM_PCIE_DATA_WR))
		return CXB_SIM_RX_DROPPED;
	/* the frame is visible before its CQE */
	dma_wmb();

	memset(&cqe, 0, sizeof(cqe));
	cqe.vlan_my_qpn = cpu_to_be32(rq->qpn & CXB_SIM_QN_MAX);
	cqe.immed_rss_invalid = cpu_to_be32(hash);
	cqe.status = cpu_to_be16(cxb_sim_pkt_rx_status(frame, pk));
	if (cqe.status & cpu_to_be16(MLX4_CQE_STATUS_IPOK))
		cqe.checksum = cpu_to_be16(0xffff);
	cqe.byte_cnt = cpu_to_be32(len);
	cqe.wqe_index = cpu_to_be16(rq->cons);
	cqe.owner_sr_opcode = MLX4_RECV_OPCODE_SEND;
	/* fault: an error completion, or a frame received with a bad FCS */
	fault = cxb_sim_rx_fault(port);
	if (fault == CXB_SIM_C_RX_ERR_CQES)
		cxb_sim_rx_err_cqe(rq, &cqe);
	else if (fault == CXB_SIM_C_RX_BAD_FCS)
		cqe.badfcs_enc = MLX4_CQE_BAD_FCS;
	if (cxb_sim_cq_post(rq->cq, &cqe, pass))
		return CXB_SIM_RX_DROPPED;
	if (fault != CXB_SIM_NR_CNT)
		cxb_sim_inc(port, fault);

	rq->cons++;
	return CXB_SIM_RX_OK;
}

/* Returns what became of the frame; counted here but for a pushback. */
enum cxb_sim_rx_res cxb_sim_rx_deliver(struct cxb_sim_port *port,
				       const u8 *frame, unsigned int len,
				       const struct cxb_sim_pkt *pk,
				       struct cxb_sim_pass *pass)
{
	enum cxb_sim_rx_res res = CXB_SIM_RX_DROPPED;
	unsigned int nr = READ_ONCE(port->nr_rqs), ring = 0;
	struct cxb_sim_rq *rq;
	u32 hash = 0;

	if (pk->l4)
		hash = cxb_sim_pkt_hash(frame, pk);
	if (nr > 1)
		ring = hash % nr;
	rq = ring < CXB_SIM_MAX_CHANNELS ? rcu_dereference(port->rqs[ring]) :
					   NULL;
	if (rq && cxb_sim_fault_hit(&port->fault.rx_no_buf)) {
		/* fault: no receive WQE found, and dropped even with pause on */
		cxb_sim_inc(port, CXB_SIM_C_RX_NO_BUF);
	} else if (rq &&
		   len <= READ_ONCE(port->mtu) + ETH_HLEN + VLAN_HLEN) {
		spin_lock(&rq->lock);
		if (!rq->dead)
			res = cxb_sim_rq_fill(rq, frame, len, pk, hash, pass);
		spin_unlock(&rq->lock);
	}
	if (res == CXB_SIM_RX_OK) {
		cxb_sim_inc(port, CXB_SIM_C_RX_FRAMES);
		cxb_sim_add(port, CXB_SIM_C_RX_BYTES, len);
	} else if (res == CXB_SIM_RX_DROPPED) {
		cxb_sim_inc(port, CXB_SIM_C_RX_DROPPED);
		atomic64_inc(&port->port_rx_dropped);
	}
	return res;
}
