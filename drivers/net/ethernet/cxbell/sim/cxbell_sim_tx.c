// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim send engine: mlx4 WQE fetch and execute, inline and deferred
 * runs.
 *
 * Per send queue: @announced is the free-running TXBB index the device may
 * execute up to, @done the next TXBB to execute. A doorbell makes the
 * device fetch forward from @announced over WQEs it owns (owner bit of
 * the lap, nonzero DS), at most one ring ahead of @done. WQEs past
 * @announced are never executed, however they look: a WQE without a
 * doorbell stays in the ring, where the stranded detector
 * (cxbell_sim_stranded.c) finds it.
 *
 * Inline mode executes up to @announced inside the doorbell; deferred mode
 * leaves it to a work item on an unbound workqueue. Either way execution
 * holds the SQ lock with bottom halves disabled: the inline engine runs in
 * the driver's xmit context, which must not sleep, and is not re-entered.
 * Interrupts are moderated per pass: one per CQ written to.
 *
 * BlueFlame writes: cxbell_sim_bf.c; a frame the peer pushes back
 * (802.3x pause): cxbell_sim_pause.c; mlx5 send queues run in the same
 * engine, their WQEs in cxbell_sim_mlx5.c.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/string.h>

#include "cxbell_sim.h"

static unsigned int cxb_sim_wqe_opcode(const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return be32_to_cpu(ctrl->owner_opcode) & CXB_MLX4_OPCODE_MASK;
}

/* TXBBs the WQE occupies; 1 for a malformed DS (skipped as a violation). */
static u32 cxb_sim_wqe_txbbs(const struct mlx4_wqe_ctrl_seg *ctrl)
{
	unsigned int ds = cxb_mlx4_ctrl_ds(ctrl);

	if (!ds || ds > CXB_MLX4_MAX_DS)
		return 1;
	return cxb_mlx4_ds_to_txbbs(ds);
}

/* What a well-formed WQE owned by the device at @idx looks like. */
bool cxb_sim_wqe_plausible(struct cxb_sim_sq *sq, u32 idx,
			   const struct mlx4_wqe_ctrl_seg *ctrl)
{
	unsigned int op = cxb_sim_wqe_opcode(ctrl);
	unsigned int ds = cxb_mlx4_ctrl_ds(ctrl);

	return cxb_sim_wqe_owned(sq, idx, ctrl) &&
	       (op == MLX4_OPCODE_SEND || op == MLX4_OPCODE_NOP ||
		op == MLX4_OPCODE_LSO) &&
	       ds && ds <= CXB_MLX4_MAX_DS &&
	       (idx & (sq->size - 1)) + cxb_mlx4_ds_to_txbbs(ds) <= sq->size;
}

/* A WQE at @idx in BlueFlame layout: the QP number in the VLAN fields,
 * the ring index in owner_opcode (wqe/mlx4.h).
 */
static bool cxb_sim_wqe_bf_layout(struct cxb_sim_sq *sq, u32 idx,
				  const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return cxb_mlx4_bf_qpn_to_qpn(ctrl->qpn_vlan.bf_qpn) == sq->qpn &&
	       cxb_mlx4_bf_owner_idx(ctrl->owner_opcode) ==
	       (idx & CXB_MLX4_BF_IDX_MASK);
}

/* Fetch the WQE at @announced from ring memory: true if the device owns
 * it and it fits the ring. @carried: the ring index (low 16 bits) of the
 * WQE a BlueFlame write being handled carries, or -1. Caller holds
 * sq->lock.
 */
bool cxb_sim_sq_fetch_one(struct cxb_sim_sq *sq, int carried)
{
	struct cxb_sim_port *port = sq->port;
	struct mlx4_wqe_ctrl_seg ctrl;
	u32 idx = sq->announced, n;

	if (idx - sq->done >= sq->size)
		return false;
	if (cxb_sim_dma_read(port, cxb_sim_sq_addr(sq, idx), &ctrl,
			     sizeof(ctrl), CXB_SIM_PCIE_NONE))
		return false;
	cxb_sim_pcie_read(port, CXB_SIM_PCIE_DESC, CXB_MLX4_TXBB_SIZE);
	if (!cxb_sim_wqe_owned(sq, idx, &ctrl) || !cxb_mlx4_ctrl_ds(&ctrl))
		return false;
	n = cxb_sim_wqe_txbbs(&ctrl);
	if (idx + n - sq->done > sq->size)
		return false;
	/* mlx4_en (en_tx.c) writes this layout only for a WQE it posts
	 * through BlueFlame at once; the device reads the ring copy of
	 * such a WQE only when it dropped the BlueFlame write.
	 */
	if (cxb_sim_wqe_bf_layout(sq, idx, &ctrl) &&
	    carried != (int)(idx & CXB_MLX4_BF_IDX_MASK))
		cxb_sim_inc(port, CXB_SIM_C_BF_LAYOUT_BY_DB);
	sq->announced = idx + n;
	cxb_sim_inc(port, CXB_SIM_C_WQES_FETCHED);
	return true;
}

/* Doorbell: fetch forward from @announced (@carried as above). Caller
 * holds sq->lock.
 */
void cxb_sim_sq_fetch(struct cxb_sim_sq *sq, int carried)
{
	while (cxb_sim_sq_fetch_one(sq, carried))
		;
	/* the rest of a WQE is read after the owner bit that covers it */
	dma_rmb();
}

/* Gather a SEND's segments (sq->wqe, DS @ds) into sq->frame: inline data
 * from the WQE itself, pointer segments by DMA. Returns length or 0.
 */
static unsigned int cxb_sim_sq_gather(struct cxb_sim_sq *sq, u32 idx,
				      unsigned int ds)
{
	unsigned int end = ds * CXB_MLX4_DS_SIZE, off = CXB_MLX4_DS_SIZE;
	struct cxb_sim_port *port = sq->port;
	u8 *frame = sq->frame + CXB_SIM_FRAME_PAD;
	unsigned int i, next, len = 0, inl_len = 0;
	bool inl = false;
	u32 bc;

	if (ds < 2) {
		cxb_sim_violation(port, "SQ %#x WQE %u: SEND without data",
				  sq->qpn, idx);
		return 0;
	}
	for (i = 0; off < end; i++, off = next) {
		const struct mlx4_wqe_data_seg *d;
		__be32 first;

		memcpy(&first, sq->wqe.b + off, sizeof(first));
		if (cxb_mlx4_seg_is_inline(first)) {
			bc = cxb_mlx4_inline_len(first);
			next = ALIGN(off + CXB_MLX4_INLINE_HDR + bc,
				     CXB_MLX4_DS_SIZE);
			if (!bc || off % MLX4_INLINE_ALIGN + CXB_MLX4_INLINE_HDR +
				   bc > MLX4_INLINE_ALIGN ||
			    off + CXB_MLX4_INLINE_HDR + bc > end)
				goto bad_inline;
			if (len + bc > CXB_SIM_FRAME_MAX)
				goto too_long;
			memcpy(frame + len, sq->wqe.b + off + CXB_MLX4_INLINE_HDR,
			       bc);
			len += bc;
			inl_len += bc;
			inl = true;
			continue;
		}

		d = &sq->wqe.seg[off / CXB_MLX4_DS_SIZE];
		bc = be32_to_cpu(d->byte_count);
		next = off + CXB_MLX4_DS_SIZE;
		if (d->lkey != port->cadev.lkey) {
			cxb_sim_violation(port, "SQ %#x WQE %u seg %u: lkey %#x",
					  sq->qpn, idx, i,
					  be32_to_cpu(d->lkey));
			return 0;
		}
		if (!bc || bc >= SZ_64K) {
			cxb_sim_violation(port, "SQ %#x WQE %u seg %u: byte_count %#x",
					  sq->qpn, idx, i, bc);
			return 0;
		}
		if (len + bc > CXB_SIM_FRAME_MAX)
			goto too_long;
		if (cxb_sim_dma_read(port, be64_to_cpu(d->addr), frame + len,
				     bc, CXB_SIM_PCIE_DATA_RD))
			return 0;
		len += bc;
	}
	if (len < ETH_HLEN) {
		cxb_sim_violation(port, "SQ %#x WQE %u: %u-byte frame",
				  sq->qpn, idx, len);
		return 0;
	}
	/* the stock driver pads less (mlx4_en, en_tx.c: MIN_PKT_LEN) */
	if (inl && inl_len < CXB_MLX4_INLINE_MIN) {
		cxb_sim_violation(port, "SQ %#x WQE %u: %u bytes inline, under %u",
				  sq->qpn, idx, inl_len, CXB_MLX4_INLINE_MIN);
		return 0;
	}
	if (inl)
		cxb_sim_inc(port, CXB_SIM_C_INLINE_WQES);
	return len;

too_long:
	cxb_sim_violation(port, "SQ %#x WQE %u: frame over %u bytes",
			  sq->qpn, idx, CXB_SIM_FRAME_MAX);
	return 0;
bad_inline:
	/* empty, crossing 64 bytes or past DS */
	cxb_sim_violation(port, "SQ %#x WQE %u seg %u: inline, %u bytes at offset %u, DS %u",
			  sq->qpn, idx, i, bc, off, ds);
	return 0;
}

/* What both generations do with a gathered frame of @len bytes, the
 * packet of the WQE at @idx: insert the VLAN tag @tci if @vlan, compute
 * the checksums asked for, hold the frame (@cqe: its CQE is due when it
 * has left), pad it as the MAC does, and put it on the wire. False if
 * the engine paused with it.
 */
bool cxb_sim_frame_send(struct cxb_sim_sq *sq, u32 idx, unsigned int len,
			bool vlan, __be16 tci, bool ip_cs, bool l4_cs, bool cqe,
			struct cxb_sim_pass *pass)
{
	u8 *frame = sq->frame + CXB_SIM_FRAME_PAD;
	struct cxb_sim_pkt *pk = &sq->held_pk;

	if (vlan) {
		len = cxb_sim_pkt_vlan_insert(frame, len, tci);
		cxb_sim_inc(sq->port, CXB_SIM_C_TX_VLAN_INSERTED);
	}
	cxb_sim_pkt_parse(frame, len, pk);
	cxb_sim_pkt_tx_csum(frame, pk, ip_cs, l4_cs);
	sq->held_idx = idx;
	sq->held_len = len;
	sq->held_cqe = cqe;
	/* the MAC pads short frames */
	if (len < ETH_ZLEN) {
		memset(frame + len, 0, ETH_ZLEN - len);
		len = ETH_ZLEN;
	}
	sq->held_wire = len;
	return cxb_sim_sq_wire(sq, pass);
}

/* An mlx4 send WQE's frame: offloads as its control segment asks. */
static bool cxb_sim_sq_transmit(struct cxb_sim_sq *sq, u32 idx,
				unsigned int len, struct cxb_sim_pass *pass)
{
	const struct mlx4_wqe_ctrl_seg *ctrl = &sq->wqe.ctrl;
	__be32 flags = ctrl->srcrb_flags;

	/* VLAN insertion, unless the VLAN fields hold a BlueFlame QPN */
	return cxb_sim_frame_send(sq, idx, len,
				  (ctrl->qpn_vlan.ins_vlan &
				   MLX4_WQE_CTRL_INS_CVLAN) &&
				  !cxb_sim_wqe_bf_layout(sq, idx, ctrl),
				  ctrl->qpn_vlan.vlan_tag,
				  !!(flags & cpu_to_be32(MLX4_WQE_CTRL_IP_CSUM)),
				  !!(flags & cpu_to_be32(MLX4_WQE_CTRL_TCP_UDP_CSUM)),
				  !!(flags & cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE)),
				  pass);
}

/* The send CQE of the WQE at @idx, @len bytes sent. */
void cxb_sim_sq_complete(struct cxb_sim_sq *sq, u32 idx, unsigned int len,
			 struct cxb_sim_pass *pass)
{
	struct mlx4_cqe cqe;

	/* fault: the device silently drops the CQE */
	if (cxb_sim_fault_hit(&sq->port->fault.lose_cqe)) {
		cxb_sim_inc(sq->port, CXB_SIM_C_CQES_LOST);
		return;
	}
	memset(&cqe, 0, sizeof(cqe));
	cqe.vlan_my_qpn = cpu_to_be32(sq->qpn & CXB_SIM_QN_MAX);
	cqe.byte_cnt = cpu_to_be32(len);
	cqe.wqe_index = cpu_to_be16(idx & 0xffff);
	cqe.owner_sr_opcode = MLX4_CQE_IS_SEND_MASK | MLX4_OPCODE_SEND;
	cxb_sim_cq_post(sq->cq, &cqe, pass);
	sq->unreported = 0;
}

/* Fault: should the next send completion be an error? */
bool cxb_sim_sq_err_due(struct cxb_sim_sq *sq)
{
	struct cxb_sim_fault *f = &sq->port->fault;
	int every = atomic_read(&f->err_cqe_every);

	if (cxb_sim_fault_hit(&f->err_cqe))
		return true;
	return every > 0 && !(atomic_inc_return(&f->err_cqe_seq) % every);
}

/* Fail the WQE at @idx with an error CQE (mlx4 format, the syndrome from
 * the fault knob); the queue enters the error state, as a QP does, and
 * executes nothing more until destroyed.
 */
static void cxb_sim_sq_error(struct cxb_sim_sq *sq, u32 idx,
			     struct cxb_sim_pass *pass)
{
	union {
		struct mlx4_cqe cqe;
		struct mlx4_err_cqe err;
	} u;

	memset(&u, 0, sizeof(u));
	u.err.my_qpn = cpu_to_be32(sq->qpn & CXB_SIM_QN_MAX);
	u.err.wqe_index = cpu_to_be16(idx & 0xffff);
	u.err.syndrome = atomic_read(&sq->port->fault.err_syndrome);
	u.err.owner_sr_opcode = MLX4_CQE_IS_SEND_MASK |
				CXB_MLX4_CQE_OPCODE_ERROR;
	sq->error = true;
	cxb_sim_inc(sq->port, CXB_SIM_C_ERR_CQES);
	cxb_sim_cq_post(sq->cq, &u.cqe, pass);
	sq->unreported = 0;
}

/* Execute the WQE at @done. Caller holds sq->lock. */
void cxb_sim_sq_exec(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass)
{
	struct mlx4_wqe_ctrl_seg *ctrl = &sq->wqe.ctrl;
	struct cxb_sim_port *port = sq->port;
	unsigned int len = 0, ds, op;
	u32 idx = sq->done, n;
	struct cxb_sim_bf *bf;

	if (sq->gen == CXB_GEN_CX5) {
		cxb_sim_mlx5_exec(sq, pass);
		return;
	}
	sq->last_active = jiffies;
	bf = cxb_sim_bf_take(sq, idx);
	if (bf) {
		/* carried by BlueFlame: nothing to read */
		memcpy(sq->wqe.b, bf->b, bf->len);
	} else if (cxb_sim_dma_read(port, cxb_sim_sq_addr(sq, idx), ctrl,
				    sizeof(*ctrl), CXB_SIM_PCIE_NONE)) {
		sq->done = sq->announced;	/* ring gone: give up */
		return;
	}
	n = min(cxb_sim_wqe_txbbs(ctrl), sq->announced - idx);
	sq->done = idx + n;
	sq->tail_unsig = !(ctrl->srcrb_flags &
			   cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE));

	ds = cxb_mlx4_ctrl_ds(ctrl);
	op = cxb_sim_wqe_opcode(ctrl);
	if (!cxb_sim_wqe_plausible(sq, idx, ctrl)) {
		cxb_sim_violation(port, "SQ %#x WQE %u: owner_opcode %#x DS %u, ring %u",
				  sq->qpn, idx, be32_to_cpu(ctrl->owner_opcode),
				  ds, sq->size);
	} else if (cxb_mlx4_ds_to_txbbs(ds) != n) {
		cxb_sim_violation(port, "SQ %#x WQE %u changed after its doorbell",
				  sq->qpn, idx);
	} else {
		/* the first TXBB was fetched with the doorbell */
		if (!bf)
			cxb_sim_pcie_read(port, CXB_SIM_PCIE_DESC,
					  (n - 1) * CXB_MLX4_TXBB_SIZE);
		if (op == MLX4_OPCODE_NOP) {
			cxb_sim_inc(port, CXB_SIM_C_NOP_WQES);
			if (!(ctrl->owner_opcode &
			      cpu_to_be32(MLX4_WQE_CTRL_NEC)))
				cxb_sim_inc(port, CXB_SIM_C_NOP_NO_NEC);
		}
		if (op != MLX4_OPCODE_NOP &&
		    (ctrl->srcrb_flags & cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE)) &&
		    cxb_sim_sq_err_due(sq)) {
			cxb_sim_sq_error(sq, idx, pass);
			return;
		}
		if (op != MLX4_OPCODE_NOP &&
		    (bf || ds == 1 ||
		     !cxb_sim_dma_read(port, cxb_sim_sq_addr(sq, idx) +
				       sizeof(*ctrl), sq->wqe.b + sizeof(*ctrl),
				       (ds - 1) * CXB_MLX4_DS_SIZE,
				       CXB_SIM_PCIE_NONE))) {
			/* paused: completed when the (last) frame leaves */
			if (op == MLX4_OPCODE_LSO) {
				if (!cxb_sim_lso_exec(sq, idx, ds, &len, pass))
					return;
			} else {
				len = cxb_sim_sq_gather(sq, idx, ds);
				if (len && !cxb_sim_sq_transmit(sq, idx, len,
								pass))
					return;
			}
		}
	}

	if (ctrl->srcrb_flags & cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE))
		cxb_sim_sq_complete(sq, idx, len, pass);
}

/* Try the held frame if paused, then execute up to @budget WQEs unless
 * paused; then fire the pass's interrupts. Caller holds sq->lock.
 */
void cxb_sim_sq_run(struct cxb_sim_sq *sq, unsigned int budget)
{
	struct cxb_sim_pass pass = { .n = 0 };

	if (cxb_sim_sq_unpause(sq, &pass))
		while (!sq->paused && !sq->error &&
		       sq->done != sq->announced && budget--)
			cxb_sim_sq_exec(sq, &pass);
	cxb_sim_pass_end(&pass);
}

static void cxb_sim_sq_work(struct work_struct *work)
{
	struct cxb_sim_sq *sq = container_of(work, struct cxb_sim_sq, work);
	unsigned int delay = atomic_read(&sq->port->ad->engine_delay_us);
	unsigned long flags;
	bool more;
	u64 t0;

	/* fault: completion latency of a slow device */
	if (delay)
		fsleep(delay);
	do {
		t0 = ktime_get_ns();
		rcu_read_lock();
		spin_lock_irqsave(&sq->lock, flags);
		if (!sq->dead)
			cxb_sim_sq_run(sq, CXB_SIM_DEFER_BUDGET);
		more = !sq->dead && !sq->paused && !sq->error &&
		       sq->done != sq->announced;
		spin_unlock_irqrestore(&sq->lock, flags);
		rcu_read_unlock();
		cxb_sim_engine_ran(sq->port, t0);
		cond_resched();
	} while (more);
}

void cxb_sim_sq_init(struct cxb_sim_sq *sq)
{
	spin_lock_init(&sq->lock);
	INIT_WORK(&sq->work, cxb_sim_sq_work);
	sq->last_active = jiffies;
}

/* Execute what was announced, now or in the work item; a paused engine
 * waits for a resume trigger. @flags: the caller's, from taking sq->lock.
 * A register write with interrupts off (netpoll: netconsole, maybe in
 * hard-IRQ context) leaves even the inline engine's run to the work item:
 * delivery into the peer's receive queue takes locks softirqs hold.
 */
void cxb_sim_sq_kick(struct cxb_sim_sq *sq, unsigned long flags)
{
	if (sq->paused || sq->error || sq->done == sq->announced)
		return;
	if (READ_ONCE(sq->port->ad->engine) == CXB_SIM_ENGINE_INLINE &&
	    !irqs_disabled_flags(flags))
		cxb_sim_sq_run(sq, UINT_MAX);
	else
		queue_work(cxb_sim_wq, &sq->work);
}

/* A send doorbell for @sq. Caller is in an RCU section. */
void cxb_sim_sq_doorbell(struct cxb_sim_sq *sq)
{
	unsigned long flags;

	spin_lock_irqsave(&sq->lock, flags);
	if (sq->dead)
		goto out;
	sq->last_active = jiffies;
	cxb_sim_sq_fetch(sq, -1);
	cxb_sim_sq_kick(sq, flags);
out:
	spin_unlock_irqrestore(&sq->lock, flags);
}

/* sq_destroy: stop the engine. On return no engine pass is running or
 * will run, and unexecuted WQEs (and a held frame) are dropped. Frames
 * sent since the last CQE are counted in tx_unreported: the driver never
 * learns that their WQEs (unsignalled ones, or the first packets of an
 * LSO or multi-packet WQE held by pause) were executed, and frees them
 * as unsent.
 */
void cxb_sim_sq_stop(struct cxb_sim_sq *sq)
{
	unsigned long flags;

	spin_lock_irqsave(&sq->lock, flags);
	sq->dead = true;
	cxb_sim_add(sq->port, CXB_SIM_C_TX_UNREPORTED, sq->unreported);
	sq->unreported = 0;
	if (sq->paused) {
		sq->paused = false;
		atomic_dec(&sq->port->paused_sqs);
	}
	spin_unlock_irqrestore(&sq->lock, flags);
	/* nothing queues the work once dead is seen */
	cancel_work_sync(&sq->work);
}

/* The WQE at @idx of an idle mlx4 send queue is owned by the device.
 * Caller holds sq->lock.
 */
bool cxb_sim_mlx4_wqe_posted(struct cxb_sim_sq *sq, u32 idx)
{
	struct mlx4_wqe_ctrl_seg ctrl;

	return !cxb_sim_dma_read(sq->port, cxb_sim_sq_addr(sq, idx), &ctrl,
				 sizeof(ctrl), CXB_SIM_PCIE_NONE) &&
	       cxb_sim_wqe_plausible(sq, idx, &ctrl);
}
