// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim TX engine.
 *
 * Per send queue: @announced is the free-running TXBB index the device may
 * execute up to, @done the next TXBB to execute. A doorbell makes the
 * device fetch forward from @announced over WQEs it owns (owner bit of
 * the lap, nonzero DS), at most one ring ahead of @done. WQEs past
 * @announced are never executed, however they look: a WQE without a
 * doorbell stays in the ring, where the stranded detector finds it.
 *
 * A BlueFlame write is a doorbell that stops at the WQE it carries: the
 * device fetches the WQEs before it, then announces the carried one from
 * the write. The copy waits in @bf (a small FIFO in index order) until
 * the engine reaches its index and executes it instead of ring memory.
 *
 * Inline mode executes up to @announced inside the doorbell; deferred mode
 * leaves it to a work item on an unbound workqueue. Either way execution
 * holds the SQ lock with bottom halves disabled: the inline engine runs in
 * the driver's xmit context, which must not sleep, and is not re-entered.
 * Interrupts are moderated per pass: one per CQ written to.
 *
 * Link-level pause (Documentation/sim.rst): when the peer pushes a frame
 * back the engine stops (@paused) with the frame held in @frame and its
 * WQE not completed. Nothing is executed until a try of the held frame
 * gets past the peer: on a resume trigger (a register write of the peer's
 * driver, the retry timer, peer state changes), never on the queue's own
 * doorbells, which only announce. A resume trigger takes the SQ lock with
 * no lock of the receiving port held.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/string.h>

#include "cxbell_sim.h"

static dma_addr_t cxb_sim_sq_addr(struct cxb_sim_sq *sq, u32 idx)
{
	return sq->buf_dma + ((dma_addr_t)(idx & (sq->size - 1)) <<
			      CXB_MLX4_TXBB_SHIFT);
}

static bool cxb_sim_wqe_owned(struct cxb_sim_sq *sq, u32 idx,
			      const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return (be32_to_cpu(ctrl->owner_opcode) & CXB_MLX4_OWNER_BIT) ==
	       cxb_mlx4_owner(idx, sq->size);
}

static unsigned int cxb_sim_wqe_ds(const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return cxb_mlx4_ctrl_ds(ctrl);
}

static unsigned int cxb_sim_wqe_opcode(const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return be32_to_cpu(ctrl->owner_opcode) & CXB_MLX4_OPCODE_MASK;
}

/* TXBBs the WQE occupies; 1 for a malformed DS (skipped as a violation). */
static u32 cxb_sim_wqe_txbbs(const struct mlx4_wqe_ctrl_seg *ctrl)
{
	unsigned int ds = cxb_sim_wqe_ds(ctrl);

	if (!ds || ds > CXB_MLX4_MAX_DS)
		return 1;
	return cxb_mlx4_ds_to_txbbs(ds);
}

/* What a well-formed WQE owned by the device at @idx looks like. */
static bool cxb_sim_wqe_plausible(struct cxb_sim_sq *sq, u32 idx,
				  const struct mlx4_wqe_ctrl_seg *ctrl)
{
	unsigned int op = cxb_sim_wqe_opcode(ctrl);
	unsigned int ds = cxb_sim_wqe_ds(ctrl);

	return cxb_sim_wqe_owned(sq, idx, ctrl) &&
	       (op == MLX4_OPCODE_SEND || op == MLX4_OPCODE_NOP) &&
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
static bool cxb_sim_sq_fetch_one(struct cxb_sim_sq *sq, int carried)
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
	if (!cxb_sim_wqe_owned(sq, idx, &ctrl) || !cxb_sim_wqe_ds(&ctrl))
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
static void cxb_sim_sq_fetch(struct cxb_sim_sq *sq, int carried)
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

/* The port's retry timer, unless already pending (its callback re-arms
 * while an engine is paused).
 */
static void cxb_sim_pause_timer_start(struct cxb_sim_port *port)
{
	if (!hrtimer_is_queued(&port->pause_timer))
		hrtimer_start(&port->pause_timer,
			      ns_to_ktime(CXB_SIM_PAUSE_RETRY_US * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
}

/* Put the frame held in @frame on the wire. False if the peer pushed it
 * back: the engine is paused (again) with the frame held.
 */
bool cxb_sim_sq_wire(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass)
{
	struct cxb_sim_port *port = sq->port;
	struct cxb_sim_port *peer = cxb_sim_peer(port);
	enum cxb_sim_rx_res res;

	if (!READ_ONCE(port->enabled) || !peer || !READ_ONCE(peer->enabled) ||
	    !READ_ONCE(port->ad->cable) || !READ_ONCE(peer->nr_rqs)) {
		cxb_sim_inc(port, CXB_SIM_C_TX_DISCARDED);
		goto sent;
	}
	res = cxb_sim_rx_deliver(peer, sq->frame + CXB_SIM_FRAME_PAD,
				 sq->held_wire, &sq->held_pk, pass);
	if (res == CXB_SIM_RX_PAUSE) {
		if (!sq->paused) {
			sq->paused = true;
			atomic_inc(&port->paused_sqs);
			cxb_sim_inc(port, CXB_SIM_C_TX_PAUSED);
			cxb_sim_inc(peer, CXB_SIM_C_RX_PAUSE);
		}
		cxb_sim_pause_timer_start(port);
		return false;
	}
sent:
	cxb_sim_inc(port, CXB_SIM_C_TX_FRAMES);
	cxb_sim_add(port, CXB_SIM_C_TX_BYTES, sq->held_len);
	return true;
}

/* Put a gathered frame on the wire: offloads, then the peer's RX. False
 * if the engine paused with it.
 */
static bool cxb_sim_sq_transmit(struct cxb_sim_sq *sq, u32 idx,
				unsigned int len, struct cxb_sim_pass *pass)
{
	const struct mlx4_wqe_ctrl_seg *ctrl = &sq->wqe.ctrl;
	__be32 flags = ctrl->srcrb_flags;
	u8 *frame = sq->frame + CXB_SIM_FRAME_PAD;
	struct cxb_sim_pkt *pk = &sq->held_pk;

	/* VLAN insertion, unless the VLAN fields hold a BlueFlame QPN */
	if ((ctrl->qpn_vlan.ins_vlan & MLX4_WQE_CTRL_INS_CVLAN) &&
	    !cxb_sim_wqe_bf_layout(sq, idx, ctrl)) {
		len = cxb_sim_pkt_vlan_insert(frame, len,
					      ctrl->qpn_vlan.vlan_tag);
		cxb_sim_inc(sq->port, CXB_SIM_C_TX_VLAN_INSERTED);
	}
	cxb_sim_pkt_parse(frame, len, pk);
	cxb_sim_pkt_tx_csum(frame, pk,
			    !!(flags & cpu_to_be32(MLX4_WQE_CTRL_IP_CSUM)),
			    !!(flags & cpu_to_be32(MLX4_WQE_CTRL_TCP_UDP_CSUM)));
	sq->held_idx = idx;
	sq->held_len = len;
	sq->held_cqe = !!(flags & cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE));
	/* the MAC pads short frames */
	if (len < ETH_ZLEN) {
		memset(frame + len, 0, ETH_ZLEN - len);
		len = ETH_ZLEN;
	}
	sq->held_wire = len;
	return cxb_sim_sq_wire(sq, pass);
}

/* The send CQE of the WQE at @idx, @len bytes sent. */
static void cxb_sim_sq_complete(struct cxb_sim_sq *sq, u32 idx,
				unsigned int len, struct cxb_sim_pass *pass)
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
}

/* A resume trigger: try the held frame again. True if the engine may go
 * on. Caller holds sq->lock.
 */
static bool cxb_sim_sq_unpause(struct cxb_sim_sq *sq,
			       struct cxb_sim_pass *pass)
{
	if (!sq->paused)
		return true;
	if (!cxb_sim_sq_wire(sq, pass))
		return false;
	sq->paused = false;
	atomic_dec(&sq->port->paused_sqs);
	sq->last_active = jiffies;
	if (sq->gen == CXB_GEN_CX5)
		return cxb_sim_mlx5_resume(sq, pass);
	if (sq->held_cqe)
		cxb_sim_sq_complete(sq, sq->held_idx, sq->held_len, pass);
	return true;
}

/* BlueFlame copies */

static struct cxb_sim_bf *cxb_sim_bf_at(struct cxb_sim_sq *sq,
					unsigned int i)
{
	return &sq->bf[i % CXB_SIM_BF_PENDING];
}

/* Drop copies the engine went past (their WQE was skipped as malformed). */
static void cxb_sim_bf_prune(struct cxb_sim_sq *sq)
{
	while (sq->bf_head != sq->bf_tail &&
	       (s32)(cxb_sim_bf_at(sq, sq->bf_head)->idx - sq->done) < 0)
		sq->bf_head++;
}

/* The carried copy of the WQE at @idx (== @done), if any, taken off the
 * FIFO: valid until the next copy is queued.
 */
static struct cxb_sim_bf *cxb_sim_bf_take(struct cxb_sim_sq *sq, u32 idx)
{
	struct cxb_sim_bf *bf;

	cxb_sim_bf_prune(sq);
	if (sq->bf_head == sq->bf_tail)
		return NULL;
	bf = cxb_sim_bf_at(sq, sq->bf_head);
	if (bf->idx != idx)
		return NULL;
	sq->bf_head++;
	return bf;
}

/* Execute the WQE at @done. Caller holds sq->lock. */
static void cxb_sim_sq_exec(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass)
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

	ds = cxb_sim_wqe_ds(ctrl);
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
		if (op == MLX4_OPCODE_SEND &&
		    (ctrl->srcrb_flags & cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE)) &&
		    cxb_sim_sq_err_due(sq)) {
			cxb_sim_sq_error(sq, idx, pass);
			return;
		}
		if (op == MLX4_OPCODE_SEND &&
		    (bf || ds == 1 ||
		     !cxb_sim_dma_read(port, cxb_sim_sq_addr(sq, idx) +
				       sizeof(*ctrl), sq->wqe.b + sizeof(*ctrl),
				       (ds - 1) * CXB_MLX4_DS_SIZE,
				       CXB_SIM_PCIE_NONE)))
			len = cxb_sim_sq_gather(sq, idx, ds);
		/* paused: completed when the frame leaves */
		if (len && !cxb_sim_sq_transmit(sq, idx, len, pass))
			return;
	}

	if (ctrl->srcrb_flags & cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE))
		cxb_sim_sq_complete(sq, idx, len, pass);
}

/* Try the held frame if paused, then execute up to @budget WQEs unless
 * paused; then fire the pass's interrupts. Caller holds sq->lock.
 */
static void cxb_sim_sq_run(struct cxb_sim_sq *sq, unsigned int budget)
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

/* Run @sq after a resume trigger (unpaused by the caller, or to be
 * unpaused here). Caller is in an RCU section.
 */
static void cxb_sim_sq_resume(struct cxb_sim_sq *sq)
{
	u64 t0 = ktime_get_ns();
	unsigned long flags;

	spin_lock_irqsave(&sq->lock, flags);
	if (!sq->dead)
		cxb_sim_sq_run(sq, UINT_MAX);
	spin_unlock_irqrestore(&sq->lock, flags);
	cxb_sim_engine_ran(sq->port, t0);
}

/* Try the held frame of @sq (inline engine). True if it left. */
static bool cxb_sim_sq_try_held(struct cxb_sim_sq *sq)
{
	struct cxb_sim_pass pass = { .n = 0 };
	bool ok = false;
	unsigned long flags;

	spin_lock_irqsave(&sq->lock, flags);
	if (!sq->dead && sq->paused)
		ok = cxb_sim_sq_unpause(sq, &pass);
	cxb_sim_pass_end(&pass);
	spin_unlock_irqrestore(&sq->lock, flags);
	return ok;
}

/* Resume the paused engines of @port's send queues. Caller holds no lock
 * of @port's peer (the receiver).
 *
 * Inline engine, fairly among the queues (a MAC does not favour one): the
 * held frames are tried first, in an order rotating from call to call,
 * then the queues that got theirs out run on. The deferred engine lets
 * each queue's work item do both.
 */
void cxb_sim_port_resume(struct cxb_sim_port *port)
{
	DECLARE_BITMAP(run, CXB_SIM_NR_UARS);
	unsigned int i, k, start;
	struct cxb_sim_sq *sq;
	unsigned long flags;

	if (!atomic_read(&port->paused_sqs))
		return;
	bitmap_zero(run, CXB_SIM_NR_UARS);
	start = (unsigned int)atomic_inc_return(&port->resume_rr);
	rcu_read_lock();
	for (k = 0; k < CXB_SIM_NR_UARS; k++) {
		i = (start + k) % CXB_SIM_NR_UARS;
		sq = rcu_dereference(port->uar[i].sq);
		if (!sq || !READ_ONCE(sq->paused))
			continue;
		if (READ_ONCE(port->ad->engine) != CXB_SIM_ENGINE_INLINE) {
			spin_lock_irqsave(&sq->lock, flags);
			if (!sq->dead)
				queue_work(cxb_sim_wq, &sq->work);
			spin_unlock_irqrestore(&sq->lock, flags);
		} else if (cxb_sim_sq_try_held(sq)) {
			__set_bit(i, run);
		}
	}
	for (k = 0; k < CXB_SIM_NR_UARS; k++) {
		i = (start + k) % CXB_SIM_NR_UARS;
		sq = rcu_dereference(port->uar[i].sq);
		if (sq && test_bit(i, run))
			cxb_sim_sq_resume(sq);
	}
	rcu_read_unlock();
}

static enum hrtimer_restart cxb_sim_pause_timer(struct hrtimer *t)
{
	struct cxb_sim_port *port = container_of(t, struct cxb_sim_port,
						 pause_timer);

	cxb_sim_port_resume(port);
	if (atomic_read(&port->paused_sqs))
		cxb_sim_pause_timer_start(port);
	return HRTIMER_NORESTART;
}

void cxb_sim_port_pause_init(struct cxb_sim_port *port)
{
	port->pause = true;
	atomic_set(&port->paused_sqs, 0);
	atomic_set(&port->resume_rr, 0);
	hrtimer_init(&port->pause_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_SOFT);
	port->pause_timer.function = cxb_sim_pause_timer;
}

/* No send queue of @port is left: nothing arms the timer any more. */
void cxb_sim_port_pause_stop(struct cxb_sim_port *port)
{
	hrtimer_cancel(&port->pause_timer);
}

/* 802.3x pause of @port on or off (debugfs "pause", ethtool -A tx). */
void cxb_sim_port_set_pause(struct cxb_sim_port *port, bool on)
{
	WRITE_ONCE(port->pause, on);
	/* senders this port pushed back now drop instead */
	if (!on)
		cxb_sim_port_resume_peer(port);
}

/* @port's driver wrote a register, or its receive side changed: resume
 * the peer's engines that @port pushed back. No lock of @port held.
 */
void cxb_sim_port_resume_peer(struct cxb_sim_port *port)
{
	struct cxb_sim_port *peer = cxb_sim_peer(port);

	if (peer)
		cxb_sim_port_resume(peer);
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

/* Can the WQE carried in a BlueFlame write (@ctrl, @len bytes written) be
 * taken from the write? If so, *@pidx is its free-running index.
 * Otherwise the violation is counted and the write acts as a doorbell.
 */
static bool cxb_sim_bf_usable(struct cxb_sim_sq *sq,
			      const struct mlx4_wqe_ctrl_seg *ctrl,
			      unsigned int len, u32 *pidx)
{
	u16 idx16 = cxb_mlx4_bf_owner_idx(ctrl->owner_opcode);
	unsigned int ds = cxb_sim_wqe_ds(ctrl);
	struct cxb_sim_port *port = sq->port;
	u32 idx, n;

	if (!ds || ds > CXB_MLX4_MAX_DS) {
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: DS %u",
				  sq->qpn, idx16, ds);
		return false;
	}
	if (ds * CXB_MLX4_DS_SIZE > CXB_SIM_BF_SIZE ||
	    len > CXB_SIM_BF_SIZE) {
		cxb_sim_inc(port, CXB_SIM_C_BF_INELIGIBLE);
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: DS %u, %u bytes written, over %u",
				  sq->qpn, idx16, ds, len, CXB_SIM_BF_SIZE);
		return false;
	}
	if (len != cxb_mlx4_bf_len(ds)) {
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: %u bytes written for DS %u",
				  sq->qpn, idx16, len, ds);
		return false;
	}
	/* at or past the last announced WQE, within one ring of @done */
	idx = sq->announced + (u16)(idx16 - (u16)sq->announced);
	n = cxb_mlx4_ds_to_txbbs(ds);
	if (idx + n - sq->done > sq->size) {
		/* e.g. already announced by a racing doorbell */
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: announced %u, done %u, ring %u",
				  sq->qpn, idx16, (u16)sq->announced,
				  (u16)sq->done, sq->size);
		return false;
	}
	if ((idx & (sq->size - 1)) + n > sq->size) {
		cxb_sim_inc(port, CXB_SIM_C_BF_INELIGIBLE);
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: %u TXBBs reach past the ring end",
				  sq->qpn, idx, n);
		return false;
	}
	if (!cxb_sim_wqe_plausible(sq, idx, ctrl)) {
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: owner_opcode %#x DS %u",
				  sq->qpn, idx, be32_to_cpu(ctrl->owner_opcode),
				  ds);
		return false;
	}
	*pidx = idx;
	return true;
}

/* Room for one more BlueFlame copy: execute until one is consumed. False
 * if there is none (the engine is paused).
 */
static bool cxb_sim_bf_make_room(struct cxb_sim_sq *sq)
{
	struct cxb_sim_pass pass = { .n = 0 };

	cxb_sim_bf_prune(sq);
	while (sq->bf_tail - sq->bf_head == CXB_SIM_BF_PENDING &&
	       !sq->paused && !sq->error && sq->done != sq->announced) {
		cxb_sim_sq_exec(sq, &pass);
		cxb_sim_bf_prune(sq);
	}
	cxb_sim_pass_end(&pass);
	return sq->bf_tail - sq->bf_head < CXB_SIM_BF_PENDING;
}

/* A BlueFlame write for @sq carrying @wqe, @len bytes as written (the QPN
 * was checked). Caller is in an RCU section.
 */
void cxb_sim_sq_bf(struct cxb_sim_sq *sq, const void *wqe, unsigned int len)
{
	const struct mlx4_wqe_ctrl_seg *ctrl = wqe;
	struct cxb_sim_port *port = sq->port;
	struct mlx4_wqe_ctrl_seg next;
	unsigned int ds, n;
	struct cxb_sim_bf *bf;
	unsigned long flags;
	u32 idx;

	spin_lock_irqsave(&sq->lock, flags);
	if (sq->dead)
		goto out;
	sq->last_active = jiffies;
	if (!cxb_sim_bf_usable(sq, ctrl, len, &idx)) {
		cxb_sim_sq_fetch(sq, cxb_mlx4_bf_owner_idx(ctrl->owner_opcode));
		goto kick;
	}
	ds = cxb_sim_wqe_ds(ctrl);
	n = cxb_mlx4_ds_to_txbbs(ds);

	/* the WQEs before the carried one come from ring memory */
	while ((s32)(idx - sq->announced) > 0 && cxb_sim_sq_fetch_one(sq, -1))
		;
	dma_rmb();
	if (sq->announced != idx) {
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: the WQEs before it end at %u",
				  sq->qpn, idx, sq->announced);
		goto kick;
	}

	/* Model checks, no device reads: the burst ends here, and ring
	 * memory holds what was carried.
	 */
	if (!cxb_sim_dma_read(port, cxb_sim_sq_addr(sq, idx + n), &next,
			      sizeof(next), CXB_SIM_PCIE_NONE) &&
	    cxb_sim_wqe_owned(sq, idx + n, &next) && cxb_sim_wqe_ds(&next)) {
		cxb_sim_inc(port, CXB_SIM_C_BF_INELIGIBLE);
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u: WQE %u is owned too",
				  sq->qpn, idx, idx + n);
	}
	if (!cxb_sim_dma_read(port, cxb_sim_sq_addr(sq, idx), sq->wqe.b,
			      ds * CXB_MLX4_DS_SIZE, CXB_SIM_PCIE_NONE) &&
	    memcmp(sq->wqe.b, wqe, ds * CXB_MLX4_DS_SIZE)) {
		cxb_sim_inc(port, CXB_SIM_C_BF_MISMATCH);
		cxb_sim_violation(port, "SQ %#x BlueFlame WQE %u differs from ring memory",
				  sq->qpn, idx);
	}

	if (!cxb_sim_bf_make_room(sq)) {
		/* paused: fetch it from ring memory (checked equal) */
		cxb_sim_sq_fetch(sq, idx & CXB_MLX4_BF_IDX_MASK);
		goto kick;
	}
	bf = cxb_sim_bf_at(sq, sq->bf_tail++);
	bf->idx = idx;
	bf->len = ds * CXB_MLX4_DS_SIZE;
	memcpy(bf->b, wqe, bf->len);
	sq->announced = idx + n;
	cxb_sim_inc(port, CXB_SIM_C_WQES_FETCHED);
kick:
	cxb_sim_sq_kick(sq, flags);
out:
	spin_unlock_irqrestore(&sq->lock, flags);
}

/* sq_destroy: stop the engine. On return no engine pass is running or
 * will run, and unexecuted WQEs (and a held frame) are dropped.
 */
void cxb_sim_sq_stop(struct cxb_sim_sq *sq)
{
	unsigned long flags;

	spin_lock_irqsave(&sq->lock, flags);
	sq->dead = true;
	if (sq->paused) {
		sq->paused = false;
		atomic_dec(&sq->port->paused_sqs);
	}
	spin_unlock_irqrestore(&sq->lock, flags);
	/* nothing queues the work once dead is seen */
	cancel_work_sync(&sq->work);
}

/* Stranded detector */

/* How many CQEs of @cq the driver has not consumed (its CI record). */
u32 cxb_sim_cq_unconsumed(struct cxb_sim_cq *cq)
{
	__be32 ci;

	if (cxb_sim_dma_read(cq->port, cq->db_dma, &ci, sizeof(ci),
			     CXB_SIM_PCIE_NONE))
		return 0;
	return (READ_ONCE(cq->prod) - be32_to_cpu(ci)) & CXB_MLX4_CI_MASK;
}

/* The WQE at @idx, posted and unannounced, is a candidate: true once it
 * stayed so for CXB_SIM_STRANDED_CONFIRM_MS. A WQE seen owned right after
 * an idle spell may be one the driver is posting this very moment, its
 * doorbell a few instructions (or a stalled vCPU) away. While the SQ's CQ
 * has interrupted and its CQEs wait unconsumed, the driver's completion
 * handler, which also rings what doorbell avoidance deferred, is due
 * (a debug kernel can be that slow): CXB_SIM_STRANDED_HOST_MS then.
 * Caller holds sq->lock.
 */
bool cxb_sim_stranded_due(struct cxb_sim_sq *sq, u32 idx)
{
	unsigned int ms = CXB_SIM_STRANDED_CONFIRM_MS;

	if (sq->stranded_seen && sq->stranded_idx == idx)
		return false;
	if (!sq->stranded_cand || sq->stranded_cand_idx != idx) {
		sq->stranded_cand = true;
		sq->stranded_cand_idx = idx;
		sq->stranded_cand_since = jiffies;
		return false;
	}
	if (!READ_ONCE(sq->cq->armed) && cxb_sim_cq_unconsumed(sq->cq))
		ms = CXB_SIM_STRANDED_HOST_MS;
	return !time_before(jiffies, sq->stranded_cand_since +
			    msecs_to_jiffies(ms));
}

/* The WQE at @idx of an idle mlx4 send queue is owned by the device.
 * Caller holds sq->lock.
 */
static bool cxb_sim_mlx4_wqe_posted(struct cxb_sim_sq *sq, u32 idx)
{
	struct mlx4_wqe_ctrl_seg ctrl;

	return !cxb_sim_dma_read(sq->port, cxb_sim_sq_addr(sq, idx), &ctrl,
				 sizeof(ctrl), CXB_SIM_PCIE_NONE) &&
	       cxb_sim_wqe_plausible(sq, idx, &ctrl);
}

/* A WQE posted, no doorbell announced it, the queue idle; or the queue
 * idle after a WQE that asks for no CQE, which leaves the WQEs since the
 * last CQE uncompleted forever. Seen so long
 * enough (cxb_sim_stranded_due()) it is ready: returns true (@confirm
 * false); with @confirm it is counted. Caller holds sq->lock.
 */
static bool cxb_sim_sq_check_stranded(struct cxb_sim_sq *sq, bool confirm)
{
	unsigned long idle = msecs_to_jiffies(CXB_SIM_STRANDED_IDLE_MS);
	u32 idx = sq->announced;
	bool posted;

	/* a paused engine holds WQEs back: its queue is not idle */
	if (sq->dead || sq->paused || sq->error || sq->done != idx ||
	    time_before(jiffies, sq->last_active + idle)) {
		sq->stranded_cand = false;
		return false;
	}
	posted = sq->gen == CXB_GEN_CX5 ? cxb_sim_mlx5_wqe_posted(sq, idx) :
					  cxb_sim_mlx4_wqe_posted(sq, idx);
	if (!posted && !sq->tail_unsig) {
		sq->stranded_cand = false;
		return false;
	}
	if (!cxb_sim_stranded_due(sq, idx))
		return false;
	if (!confirm)
		return true;
	sq->stranded_seen = true;
	sq->stranded_idx = idx;
	cxb_sim_inc(sq->port, CXB_SIM_C_STRANDED);
	if (!posted) {
		dev_info_ratelimited(&sq->port->cadev.adev.dev,
				     "SQ %#x: WQEs up to %u executed, the last asks for no CQE\n",
				     sq->qpn, idx);
		return false;
	}
	/* CQEs the driver has not consumed yet: its completion handler, which
	 * rings what doorbell avoidance deferred, has not run.
	 */
	dev_info_ratelimited(&sq->port->cadev.adev.dev,
			     "SQ %#x: WQE at %u posted, no doorbell; CQ %#x: %u CQEs unconsumed, %sarmed\n",
			     sq->qpn, idx, sq->cq->cqn,
			     cxb_sim_cq_unconsumed(sq->cq),
			     READ_ONCE(sq->cq->armed) ? "" : "not ");
	return false;
}

/* Look at every send queue of @ad: @confirm false marks the ready ones
 * (returns true if any), @confirm true counts those still stranded.
 */
static bool cxb_sim_stranded_scan(struct cxb_sim_adapter *ad, bool confirm)
{
	struct cxb_sim_port *port;
	struct cxb_sim_sq *sq;
	unsigned long flags;
	unsigned int p, i;
	bool ready = false;

	rcu_read_lock();
	for (p = 0; p < ad->nports; p++) {
		port = READ_ONCE(ad->ports[p]);
		if (!port)
			continue;
		for (i = 0; i < CXB_SIM_NR_UARS; i++) {
			sq = rcu_dereference(port->uar[i].sq);
			if (!sq)
				continue;
			spin_lock_irqsave(&sq->lock, flags);
			if (!confirm)
				sq->stranded_ready =
					cxb_sim_sq_check_stranded(sq, false);
			else if (sq->stranded_ready)
				cxb_sim_sq_check_stranded(sq, true);
			ready |= sq->stranded_ready;
			if (confirm)
				sq->stranded_ready = false;
			spin_unlock_irqrestore(&sq->lock, flags);
		}
	}
	rcu_read_unlock();
	return ready;
}

static void cxb_sim_stranded_nop(void *unused)
{
}

void cxb_sim_stranded_work(struct work_struct *work)
{
	struct cxb_sim_adapter *ad = container_of(to_delayed_work(work),
						  struct cxb_sim_adapter,
						  stranded_work);

	/* Under TCG a vCPU is a host thread: a loaded host can stop one
	 * between a WQE and its doorbell for longer than any period here.
	 * Before counting, make every vCPU run (an IPI each, waited for)
	 * and give the one that was posting time to reach its doorbell.
	 */
	if (cxb_sim_stranded_scan(ad, false)) {
		on_each_cpu(cxb_sim_stranded_nop, NULL, 1);
		msleep(CXB_SIM_STRANDED_SETTLE_MS);
		cxb_sim_stranded_scan(ad, true);
	}
	queue_delayed_work(cxb_sim_wq, &ad->stranded_work,
			   msecs_to_jiffies(CXB_SIM_STRANDED_PERIOD_MS));
}
