// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim: ConnectX-4+ (mlx5) send queues, for ports of an adapter
 * created with generation cx5 (formats: wqe/mlx5.h).
 *
 * Doorbell: an 8-byte write to UAR page + MLX5_BF_OFFSET or the buffer
 * CXB_MLX5_DB_ALT after it, holding the first 8 bytes of the control
 * segment of the last WQE posted. It counts in doorbells. The device
 * reads the producer counter, dword MLX5_SND_DBR of the doorbell record
 * (4 bytes, pcie_db_read_bytes), and announces every WQE up to it.
 * Violations: the write names another QP; the producer counter lies more
 * than a ring ahead of the executed WQEs; the written control segment is
 * not that of the WQE ending at the producer counter (its index plus its
 * WQEBBs).
 *
 * BlueFlame write: a write of more than 8 bytes to the same buffers,
 * the whole WQE a doorbell would name (bf_writes, not doorbells). It is
 * that doorbell, and the device takes the WQE from the write: no
 * descriptor read for it. Violations, after which the WQE is read from
 * ring memory: the write is not the WQE's WQEBBs exactly or is larger
 * than a buffer (CXB_MLX5_BF_SIZE; bf_ineligible), the WQE reaches past
 * the ring end (bf_ineligible) or was announced already; a copy that
 * differs from ring memory (bf_mismatch) is executed as written.
 *
 * CQ arm: an 8-byte write to UAR page + MLX5_CQ_DOORBELL, sn << 28 |
 * cmd | ci then the CQN (mlx5_cq_arm()). Violations: the CQN is not that
 * of the CQ on the UAR page, or the command is neither
 * MLX5_CQ_DB_REQ_NOT nor MLX5_CQ_DB_REQ_NOT_SOL (mlx4's REQ_NOT, 2 << 24,
 * is one). The arm itself is cxb_sim_cq_arm()'s, as for cx3.
 *
 * Execution, WQE by WQE from @done up to @announced: the first WQEBB is
 * one DMA read, the other WQEBBs of the WQE a second one (both in
 * pcie_desc_read_bytes). A WQE must carry the QP number, its own ring
 * index (modulo 2^16), DS 1..CXB_MLX5_MAX_DS, an opcode out of NOP, SEND,
 * LSO and ENHANCED_MPSW, and must not reach past the ring end or past
 * @announced; otherwise it is a violation and the device skips one WQEBB.
 *   SEND: one frame, gathered from the eth segment's inline headers and
 *     the data/inline segments. On an adapter with a minimum inline mode
 *     (cx4: CXB_MIN_INLINE_L2) fewer than CXB_MLX5_MIN_INLINE_L2 bytes of
 *     the frame inline (or all of a shorter one) is a violation.
 *   LSO: the packet of the eth segment's inline headers and the data
 *     segments, cut into TCP segments of at most the eth segment's mss
 *     payload bytes (cxbell_sim_lso.c; tx_lso_wqes, tx_lso_segments).
 *   ENHANCED_MPSW: an eth segment without inline headers and without
 *     mss (an LSO packet never goes in one: a violation), then one frame
 *     per data or inline segment (mpwqe_wqes, mpwqe_pkts). A violation
 *     on an adapter without them (cx4).
 * cs_flags of the eth segment (MLX5_ETH_WQE_L3_CSUM, _L4_CSUM) ask for
 * checksums, for every packet of the WQE. A WQE with CQ_UPDATE in
 * fm_ce_se gets one 64-byte CQE once its last frame left, byte_cnt the
 * bytes of all its frames.
 *
 * Link-level pause works as for cx3 (Documentation/sim.rst), per frame: a
 * paused multi-packet WQE goes on with its next packet once the held frame
 * left.
 *
 * Stranded detector (model checks, no device reads): after
 * CXB_SIM_STRANDED_IDLE_MS without doorbell or progress, the queue is
 * stranded if its doorbell record is ahead of what was announced, or a
 * WQE for the next ring index (its QP, index and a valid opcode) sits in
 * ring memory, and still so CXB_SIM_STRANDED_CONFIRM_MS later (the driver
 * writes the record right before the doorbell, and a vCPU stalled in
 * between is not a lost doorbell; cxb_sim_stranded_due()).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/jiffies.h>
#include <linux/string.h>

#include "cxbell_sim.h"

#define CXB_SIM_MLX5_SEG0	(2 * CXB_MLX5_DS_SIZE)	/* after ctrl + eth */

static dma_addr_t cxb_sim_mlx5_addr(struct cxb_sim_sq *sq, u32 idx)
{
	return sq->buf_dma + ((dma_addr_t)(idx & (sq->size - 1)) <<
			      CXB_MLX5_WQEBB_SHIFT);
}

/* The producer counter: dword MLX5_SND_DBR of the doorbell record. */
static dma_addr_t cxb_sim_mlx5_dbr(struct cxb_sim_sq *sq)
{
	return sq->db_dma + CXB_MLX5_SQ_DBR * sizeof(__be32);
}

static struct mlx5_wqe_ctrl_seg *cxb_sim_mlx5_ctrl(struct cxb_sim_sq *sq)
{
	return (struct mlx5_wqe_ctrl_seg *)sq->wqe.b;
}

static struct mlx5_wqe_eth_seg *cxb_sim_mlx5_eth(struct cxb_sim_sq *sq)
{
	return (struct mlx5_wqe_eth_seg *)(sq->wqe.b + CXB_MLX5_DS_SIZE);
}

/* A WQE the device would execute at @idx (not past the ring end). */
static bool cxb_sim_mlx5_plausible(struct cxb_sim_sq *sq, u32 idx,
				   const struct mlx5_wqe_ctrl_seg *ctrl)
{
	unsigned int ds = cxb_mlx5_ctrl_ds(ctrl);
	u32 op = cxb_mlx5_ctrl_opcode(ctrl);

	return (op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_ENHANCED_MPSW ||
		op == MLX5_OPCODE_LSO || op == MLX5_OPCODE_NOP) &&
	       cxb_mlx5_ctrl_qpn(ctrl) == sq->qpn &&
	       cxb_mlx5_ctrl_idx(ctrl) == (idx & CXB_MLX5_IDX_MASK) &&
	       ds && ds <= CXB_MLX5_MAX_DS &&
	       (idx & (sq->size - 1)) + cxb_mlx5_ds_to_wqebbs(ds) <= sq->size;
}

/* A BlueFlame write of @len bytes carrying @wqe, the WQE at @idx, whose
 * WQEBBs end at the doorbell record (checked): queue the copy for the
 * engine, the WQEs before it announced. After a violation, or with the
 * engine paused, nothing is queued: the WQE is read from ring memory.
 * Caller holds sq->lock.
 */
static void cxb_sim_mlx5_bf(struct cxb_sim_sq *sq, u32 idx, const void *wqe,
			    unsigned int len)
{
	struct cxb_sim_port *port = sq->port;
	u8 mem[CXB_MLX5_WQEBB_SIZE];
	unsigned int off;

	if ((s32)(idx - sq->announced) < 0) {
		/* e.g. already announced by a racing doorbell */
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: announced %u, done %u",
				  sq->qpn, idx, (u16)sq->announced,
				  (u16)sq->done);
		return;
	}
	if ((idx & (sq->size - 1)) + len / CXB_MLX5_WQEBB_SIZE > sq->size) {
		cxb_sim_inc(port, CXB_SIM_C_BF_INELIGIBLE);
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: %u bytes reach past the ring end",
				  sq->qpn, idx, len);
		return;
	}
	/* Model check, no device read: ring memory holds what was carried
	 * (the engine's WQE buffer may hold a paused WQE: not there).
	 */
	for (off = 0; off < len; off += sizeof(mem)) {
		if (cxb_sim_dma_read(port, cxb_sim_mlx5_addr(sq, idx) + off,
				     mem, sizeof(mem), CXB_SIM_PCIE_NONE))
			break;
		if (memcmp(mem, wqe + off, sizeof(mem))) {
			cxb_sim_inc(port, CXB_SIM_C_BF_MISMATCH);
			cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u differs at byte %u",
					  sq->qpn, idx, off);
			break;
		}
	}
	sq->announced = idx;
	cxb_sim_bf_queue(sq, idx, wqe, len);
}

/* A write to a send doorbell buffer: @reg holds the @len bytes written.
 * Eight are a doorbell; more, a BlueFlame write of the WQE the doorbell
 * names (see the head of this file). RCU section held.
 */
void cxb_sim_mlx5_send_db(struct cxb_sim_port *port, struct cxb_sim_uar *uar,
			  const void *reg, unsigned int len)
{
	struct cxb_sim_sq *sq = rcu_dereference(uar->sq);
	struct mlx5_wqe_ctrl_seg ctrl = {};
	bool bf = len != sizeof(u64);
	unsigned int ds, n;
	unsigned long flags;
	u16 idx16, pc16;
	__be32 rec;
	u32 pc;

	memcpy(&ctrl, reg, sizeof(u64));
	cxb_sim_inc(port, bf ? CXB_SIM_C_BF_WRITES : CXB_SIM_C_DOORBELLS);
	cxb_sim_pcie_mmio(port, len);
	/* fault: the write is lost, nothing announced */
	if (cxb_sim_fault_hit(&port->fault.lose_doorbell)) {
		cxb_sim_inc(port, CXB_SIM_C_DOORBELLS_LOST);
		return;
	}
	if (!sq || cxb_mlx5_ctrl_qpn(&ctrl) != sq->qpn) {
		cxb_sim_violation(port, "send doorbell for QP %#x: not on UAR %td",
				  cxb_mlx5_ctrl_qpn(&ctrl), uar - port->uar);
		return;
	}
	idx16 = cxb_mlx5_ctrl_idx(&ctrl);
	ds = cxb_mlx5_ctrl_ds(&ctrl);
	n = cxb_mlx5_ds_to_wqebbs(ds);
	if (bf && (len > CXB_MLX5_BF_SIZE ||
		   len != cxb_mlx5_bf_bytes(&ctrl))) {
		/* the WQE is fetched from ring memory */
		cxb_sim_inc(port, CXB_SIM_C_BF_INELIGIBLE);
		cxb_sim_violation(port, "SQ %#x BlueFlame write of %u bytes for WQE %u DS %u",
				  sq->qpn, len, idx16, ds);
		bf = false;
	}
	spin_lock_irqsave(&sq->lock, flags);
	if (sq->dead)
		goto out;
	sq->last_active = jiffies;
	if (cxb_sim_dma_read(port, cxb_sim_mlx5_dbr(sq), &rec, sizeof(rec),
			     CXB_SIM_PCIE_DB))
		goto out;
	pc16 = be32_to_cpu(rec) & CXB_MLX5_IDX_MASK;
	pc = sq->announced + (u16)(pc16 - (u16)sq->announced);
	if (pc - sq->done > sq->size) {
		cxb_sim_violation(port, "SQ %#x doorbell record %u: announced %u, done %u, ring %u",
				  sq->qpn, pc16, (u16)sq->announced,
				  (u16)sq->done, sq->size);
		goto out;
	}
	if (!ds || (u16)(idx16 + n) != pc16) {
		cxb_sim_violation(port, "SQ %#x doorbell names WQE %u DS %u, doorbell record %u",
				  sq->qpn, idx16, ds, pc16);
		bf = false;
	}
	if (bf)
		cxb_sim_mlx5_bf(sq, pc - n, reg, len);
	sq->announced = pc;
	cxb_sim_sq_kick(sq, flags);
out:
	spin_unlock_irqrestore(&sq->lock, flags);
}

/* The CQ arm doorbell: @reg holds the 8 bytes written, sn << 28 | cmd |
 * ci, then the CQN (mlx5_cq_arm()). RCU section held.
 */
void cxb_sim_mlx5_cq_db(struct cxb_sim_port *port, struct cxb_sim_uar *uar,
			const void *reg)
{
	struct cxb_sim_cq *cq = rcu_dereference(uar->cq);
	__be32 w[2];
	u32 w0, cmd;

	memcpy(w, reg, sizeof(w));
	w0 = be32_to_cpu(w[0]);
	cmd = w0 & CXB_MLX5_CQ_CMD_MASK;
	cxb_sim_pcie_mmio(port, sizeof(w));
	if (!cq || be32_to_cpu(w[1]) != cq->cqn ||
	    (cmd != MLX5_CQ_DB_REQ_NOT && cmd != MLX5_CQ_DB_REQ_NOT_SOL)) {
		cxb_sim_violation(port, "CQ doorbell %#x %#x: no such CQ or command on UAR %td",
				  w0, be32_to_cpu(w[1]), uar - port->uar);
		return;
	}
	cxb_sim_cq_arm(cq, w0 >> CXB_MLX5_CQ_SN_SHIFT, w0 & CXB_MLX5_CI_MASK);
}

/* Gather the segment at *@off of the WQE in sq->wqe into the frame at
 * @len: returns its bytes (0: violation, counted), moves *@off past it.
 */
static unsigned int cxb_sim_mlx5_seg(struct cxb_sim_sq *sq, u32 idx,
				     unsigned int *off, unsigned int len,
				     bool *inl)
{
	struct cxb_sim_port *port = sq->port;
	u8 *frame = sq->frame + CXB_SIM_FRAME_PAD;
	unsigned int o = *off, end = sq->mpw_end;
	const struct mlx5_wqe_data_seg *d;
	__be32 first;
	u32 bc;

	memcpy(&first, sq->wqe.b + o, sizeof(first));
	if (cxb_mlx5_seg_is_inline(first)) {
		bc = cxb_mlx5_inline_len(first);
		if (!bc || o + CXB_MLX5_INLINE_HDR + bc > end) {
			cxb_sim_violation(port, "SQ %#x WQE %u: inline %u bytes at %u of %u",
					  sq->qpn, idx, bc, o, end);
			return 0;
		}
		if (len + bc > CXB_SIM_FRAME_MAX)
			goto too_long;
		memcpy(frame + len, sq->wqe.b + o + CXB_MLX5_INLINE_HDR, bc);
		*off = ALIGN(o + CXB_MLX5_INLINE_HDR + bc, CXB_MLX5_DS_SIZE);
		*inl = true;
		return bc;
	}
	d = (const struct mlx5_wqe_data_seg *)(sq->wqe.b + o);
	bc = be32_to_cpu(d->byte_count);
	if (d->lkey != port->cadev.lkey) {
		cxb_sim_violation(port, "SQ %#x WQE %u offset %u: lkey %#x",
				  sq->qpn, idx, o, be32_to_cpu(d->lkey));
		return 0;
	}
	if (!bc || bc >= SZ_64K) {
		cxb_sim_violation(port, "SQ %#x WQE %u offset %u: byte_count %#x",
				  sq->qpn, idx, o, bc);
		return 0;
	}
	if (len + bc > CXB_SIM_FRAME_MAX)
		goto too_long;
	if (cxb_sim_dma_read(port, be64_to_cpu(d->addr), frame + len, bc,
			     CXB_SIM_PCIE_DATA_RD))
		return 0;
	*off = o + CXB_MLX5_DS_SIZE;
	return bc;

too_long:
	cxb_sim_violation(port, "SQ %#x WQE %u: frame over %u bytes",
			  sq->qpn, idx, CXB_SIM_FRAME_MAX);
	return 0;
}

/* A SEND's frame: inline headers of the eth segment, then the segments.
 * Returns its length, 0 after a violation.
 */
static unsigned int cxb_sim_mlx5_gather_send(struct cxb_sim_sq *sq, u32 idx)
{
	unsigned int sz = be16_to_cpu(cxb_sim_mlx5_eth(sq)->inline_hdr.sz);
	unsigned int off = CXB_SIM_MLX5_SEG0, end = sq->mpw_end, len = 0, n;
	struct cxb_sim_port *port = sq->port;
	bool inl = false;

	/* the same field: MLX5_ETH_WQE_INSERT_VLAN, no inline headers */
	if (sz & MLX5_ETH_WQE_INSERT_VLAN)
		sz = 0;

	if (end < CXB_SIM_MLX5_SEG0 || CXB_MLX5_ETH_INLINE_OFF + sz > end) {
		cxb_sim_violation(port, "SQ %#x WQE %u: SEND of DS %u, %u bytes of inline headers",
				  sq->qpn, idx, end / CXB_MLX5_DS_SIZE, sz);
		return 0;
	}
	if (sz) {
		memcpy(sq->frame + CXB_SIM_FRAME_PAD,
		       sq->wqe.b + CXB_MLX5_ETH_INLINE_OFF, sz);
		len = sz;
		off = cxb_mlx5_eth_inline_ds(sz) * CXB_MLX5_DS_SIZE;
		inl = true;
	}
	while (off < end) {
		n = cxb_sim_mlx5_seg(sq, idx, &off, len, &inl);
		if (!n)
			return 0;
		len += n;
	}
	if (len < ETH_HLEN) {
		cxb_sim_violation(port, "SQ %#x WQE %u: %u-byte frame",
				  sq->qpn, idx, len);
		return 0;
	}
	/* the minimum inline mode: the L2 headers inline (a tag inserted
	 * into them counts; MLX5_ETH_WQE_INSERT_VLAN carries none)
	 */
	if (port->ad->min_inline == CXB_MIN_INLINE_L2 &&
	    sz < min(len, CXB_MLX5_MIN_INLINE_L2)) {
		cxb_sim_violation(port, "SQ %#x WQE %u: %u bytes inline, minimum inline L2",
				  sq->qpn, idx, sz);
		return 0;
	}
	if (inl)
		cxb_sim_inc(port, CXB_SIM_C_INLINE_WQES);
	return len;
}

/* Checksums as the eth segment asks, then the wire. False if paused. */
static bool cxb_sim_mlx5_transmit(struct cxb_sim_sq *sq, u32 idx,
				  unsigned int len, struct cxb_sim_pass *pass)
{
	const struct mlx5_wqe_eth_seg *eth = cxb_sim_mlx5_eth(sq);
	bool vlan = eth->insert.type & cpu_to_be16(MLX5_ETH_WQE_INSERT_VLAN);
	u8 cs = eth->cs_flags;

	/* the CQE counts the bytes sent, a tag inserted included */
	sq->mpw_len += len + (vlan ? VLAN_HLEN : 0);
	/* no CQE per frame: cxb_sim_mlx5_resume() completes */
	return cxb_sim_frame_send(sq, idx, len, vlan, eth->insert.vlan_tci,
				  cs & MLX5_ETH_WQE_L3_CSUM,
				  cs & MLX5_ETH_WQE_L4_CSUM, false, pass);
}

/* Send the packets of the multi-packet WQE in sq->wqe from @mpw_off on.
 * False if the engine paused with one of them.
 */
static bool cxb_sim_mlx5_mpw_run(struct cxb_sim_sq *sq, u32 idx,
				 struct cxb_sim_pass *pass)
{
	struct cxb_sim_port *port = sq->port;
	unsigned int off, len;
	bool inl;

	while (sq->mpw_off) {
		off = sq->mpw_off;
		inl = false;
		len = cxb_sim_mlx5_seg(sq, idx, &off, 0, &inl);
		sq->mpw_off = off < sq->mpw_end ? off : 0;
		if (!len) {
			sq->mpw_off = 0;	/* the rest is not trusted */
			break;
		}
		if (len < ETH_HLEN) {
			cxb_sim_violation(port, "SQ %#x WQE %u: %u-byte frame",
					  sq->qpn, idx, len);
			continue;
		}
		cxb_sim_inc(port, CXB_SIM_C_MPW_PKTS);
		if (inl)
			cxb_sim_inc(port, CXB_SIM_C_INLINE_WQES);
		if (!cxb_sim_mlx5_transmit(sq, idx, len, pass))
			return false;
	}
	return true;
}

static void cxb_sim_mlx5_complete(struct cxb_sim_sq *sq, u32 idx,
				  struct cxb_sim_pass *pass)
{
	struct mlx5_cqe64 cqe;

	if (!(cxb_sim_mlx5_ctrl(sq)->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE))
		return;
	/* fault: the device silently drops the CQE */
	if (cxb_sim_fault_hit(&sq->port->fault.lose_cqe)) {
		cxb_sim_inc(sq->port, CXB_SIM_C_CQES_LOST);
		return;
	}
	memset(&cqe, 0, sizeof(cqe));
	cqe.sop_drop_qpn = cpu_to_be32(sq->qpn & CXB_SIM_QN_MAX);
	cqe.byte_cnt = cpu_to_be32(sq->mpw_len);
	cqe.wqe_counter = cpu_to_be16(idx & CXB_MLX5_IDX_MASK);
	cqe.op_own = MLX5_CQE_REQ << 4;
	cxb_sim_cq_post64(sq->cq, &cqe, pass);
	sq->unreported = 0;
}

/* Fail the WQE at @idx with an error CQE (mlx5 format, the syndrome from
 * the fault knob); the queue enters the error state, as an SQ does, and
 * executes nothing more until destroyed.
 */
static void cxb_sim_mlx5_error(struct cxb_sim_sq *sq, u32 idx, u8 opcode,
			       struct cxb_sim_pass *pass)
{
	union {
		struct mlx5_cqe64 cqe;
		struct mlx5_err_cqe err;
	} u;

	memset(&u, 0, sizeof(u));
	u.err.s_wqe_opcode_qpn = cpu_to_be32(opcode << 24 |
					     (sq->qpn & CXB_SIM_QN_MAX));
	u.err.wqe_counter = cpu_to_be16(idx & CXB_MLX5_IDX_MASK);
	u.err.syndrome = atomic_read(&sq->port->fault.err_syndrome);
	u.err.op_own = MLX5_CQE_REQ_ERR << 4;
	sq->error = true;
	cxb_sim_inc(sq->port, CXB_SIM_C_ERR_CQES);
	cxb_sim_cq_post64(sq->cq, &u.cqe, pass);
	sq->unreported = 0;
}

/* The held frame of the WQE in sq->wqe left: finish that WQE (the rest
 * of an LSO WQE's segments, or of a multi-packet WQE's packets). False if
 * the engine paused again. Caller holds sq->lock.
 */
bool cxb_sim_mlx5_resume(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass)
{
	u32 idx = sq->held_idx;

	if (unlikely(sq->lso.len)) {
		idx = sq->lso.idx;
		if (!cxb_sim_lso_send(sq, pass))
			return false;
	}
	if (!cxb_sim_mlx5_mpw_run(sq, idx, pass))
		return false;
	cxb_sim_mlx5_complete(sq, idx, pass);
	return true;
}

/* Execute the WQE at @done. Caller holds sq->lock. */
void cxb_sim_mlx5_exec(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass)
{
	struct mlx5_wqe_ctrl_seg *ctrl = cxb_sim_mlx5_ctrl(sq);
	struct cxb_sim_port *port = sq->port;
	u32 idx = sq->done, n, op;
	unsigned int ds, len;
	struct cxb_sim_bf *bf;

	sq->last_active = jiffies;
	sq->mpw_off = 0;
	sq->mpw_len = 0;
	/* the WQE a BlueFlame write carried, or ring memory */
	bf = cxb_sim_bf_take(sq, idx);
	if (bf) {
		memcpy(sq->wqe.b, bf->b, bf->len);
	} else if (cxb_sim_dma_read(port, cxb_sim_mlx5_addr(sq, idx),
				    sq->wqe.b, CXB_MLX5_WQEBB_SIZE,
				    CXB_SIM_PCIE_DESC)) {
		sq->done = sq->announced;	/* ring gone: give up */
		return;
	}
	cxb_sim_inc(port, CXB_SIM_C_WQES_FETCHED);
	ds = cxb_mlx5_ctrl_ds(ctrl);
	op = cxb_mlx5_ctrl_opcode(ctrl);
	n = cxb_mlx5_ds_to_wqebbs(ds);
	if (!cxb_sim_mlx5_plausible(sq, idx, ctrl) || n > sq->announced - idx) {
		cxb_sim_violation(port, "SQ %#x WQE %u: ctrl %#x %#x, announced %u, ring %u",
				  sq->qpn, idx, be32_to_cpu(ctrl->opmod_idx_opcode),
				  be32_to_cpu(ctrl->qpn_ds), (u16)sq->announced,
				  sq->size);
		sq->done = idx + 1;
		return;
	}
	sq->done = idx + n;
	sq->tail_unsig = !(ctrl->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE);
	if (n > 1 && !bf &&
	    cxb_sim_dma_read(port, cxb_sim_mlx5_addr(sq, idx + 1),
			     sq->wqe.b + CXB_MLX5_WQEBB_SIZE,
			     (n - 1) * CXB_MLX5_WQEBB_SIZE, CXB_SIM_PCIE_DESC))
		return;
	sq->mpw_end = ds * CXB_MLX5_DS_SIZE;
	/* fault: only a WQE that asks for a completion can fail */
	if (op != MLX5_OPCODE_NOP &&
	    (ctrl->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE) &&
	    cxb_sim_sq_err_due(sq)) {
		cxb_sim_mlx5_error(sq, idx, op, pass);
		return;
	}

	if (op == MLX5_OPCODE_NOP) {
		cxb_sim_inc(port, CXB_SIM_C_NOP_WQES);
	} else if (op == MLX5_OPCODE_SEND) {
		len = cxb_sim_mlx5_gather_send(sq, idx);
		if (len && !cxb_sim_mlx5_transmit(sq, idx, len, pass))
			return;		/* paused: completed when it left */
	} else if (op == MLX5_OPCODE_LSO) {
		/* the CQE counts the packet's bytes, as cx3's */
		if (!cxb_sim_lso_exec_mlx5(sq, idx, &len, pass)) {
			sq->mpw_len = len;
			return;		/* paused: completed when it left */
		}
		sq->mpw_len = len;
	} else if (op == MLX5_OPCODE_ENHANCED_MPSW) {
		if (!port->ad->mpwqe) {
			cxb_sim_violation(port, "SQ %#x WQE %u: MPWQE on a port without them",
					  sq->qpn, idx);
		} else if (ds <= CXB_MLX5_HDR_DS ||
		    cxb_sim_mlx5_eth(sq)->inline_hdr.sz ||
		    cxb_sim_mlx5_eth(sq)->mss) {
			cxb_sim_violation(port, "SQ %#x WQE %u: MPWQE DS %u, inline %u, MSS %u",
					  sq->qpn, idx, ds,
					  be16_to_cpu(cxb_sim_mlx5_eth(sq)->inline_hdr.sz),
					  be16_to_cpu(cxb_sim_mlx5_eth(sq)->mss));
		} else {
			cxb_sim_inc(port, CXB_SIM_C_MPW_WQES);
			sq->mpw_off = CXB_SIM_MLX5_SEG0;
			if (!cxb_sim_mlx5_mpw_run(sq, idx, pass))
				return;
		}
	}
	cxb_sim_mlx5_complete(sq, idx, pass);
}

/* The WQE at @idx of an idle mlx5 send queue is posted: the doorbell
 * record passed it, or a plausible WQE other than a NOP sits there (the
 * record is written before the doorbell, but a driver may not write it at
 * all). Caller holds sq->lock.
 */
bool cxb_sim_mlx5_wqe_posted(struct cxb_sim_sq *sq, u32 idx)
{
	struct mlx5_wqe_ctrl_seg ctrl;
	__be32 rec;

	if (cxb_sim_dma_read(sq->port, cxb_sim_mlx5_dbr(sq), &rec, sizeof(rec),
			     CXB_SIM_PCIE_NONE))
		return false;
	if ((be32_to_cpu(rec) & CXB_MLX5_IDX_MASK) != (idx & CXB_MLX5_IDX_MASK))
		return true;
	return !cxb_sim_dma_read(sq->port, cxb_sim_mlx5_addr(sq, idx), &ctrl,
				 sizeof(ctrl), CXB_SIM_PCIE_NONE) &&
	       cxb_sim_mlx5_plausible(sq, idx, &ctrl) &&
	       cxb_mlx5_ctrl_opcode(&ctrl) != MLX5_OPCODE_NOP;
}
