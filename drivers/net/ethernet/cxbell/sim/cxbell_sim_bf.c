// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim BlueFlame writes: those of cx3 send queues here, the mlx5
 * ones in cxbell_sim_mlx5.c.
 *
 * A BlueFlame write is a doorbell that stops at the WQE it carries: the
 * device fetches the WQEs before it, then announces the carried one from
 * the write. The copy waits in @bf (a small FIFO in index order) until
 * the engine (cxbell_sim_tx.c, cxbell_sim_mlx5.c) reaches its index and
 * executes it instead of ring memory.
 */
#include <linux/jiffies.h>
#include <linux/string.h>

#include "cxbell_sim.h"

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
struct cxb_sim_bf *cxb_sim_bf_take(struct cxb_sim_sq *sq, u32 idx)
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

/* Can the WQE carried in a BlueFlame write (@ctrl, @len bytes written) be
 * taken from the write? If so, *@pidx is its free-running index.
 * Otherwise the violation is counted and the write acts as a doorbell.
 */
static bool cxb_sim_bf_usable(struct cxb_sim_sq *sq,
			      const struct mlx4_wqe_ctrl_seg *ctrl,
			      unsigned int len, u32 *pidx)
{
	u16 idx16 = cxb_mlx4_bf_owner_idx(ctrl->owner_opcode);
	unsigned int ds = cxb_mlx4_ctrl_ds(ctrl);
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

/* Queue the copy @wqe (@len bytes) of the WQE at @idx, which the WQEs
 * announced end at, for the engine. False if there is no room (the
 * engine is paused): the WQE is then read from ring memory. Caller holds
 * sq->lock.
 */
bool cxb_sim_bf_queue(struct cxb_sim_sq *sq, u32 idx, const void *wqe,
		      unsigned int len)
{
	struct cxb_sim_bf *bf;

	if (len > sizeof(bf->b) || !cxb_sim_bf_make_room(sq))
		return false;
	bf = cxb_sim_bf_at(sq, sq->bf_tail++);
	bf->idx = idx;
	bf->len = len;
	memcpy(bf->b, wqe, len);
	return true;
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
	ds = cxb_mlx4_ctrl_ds(ctrl);
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
	    cxb_sim_wqe_owned(sq, idx + n, &next) && cxb_mlx4_ctrl_ds(&next)) {
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

	if (!cxb_sim_bf_queue(sq, idx, wqe, ds * CXB_MLX4_DS_SIZE)) {
		/* paused: fetch it from ring memory (checked equal) */
		cxb_sim_sq_fetch(sq, idx & CXB_MLX4_BF_IDX_MASK);
		goto kick;
	}
	sq->announced = idx + n;
	cxb_sim_inc(port, CXB_SIM_C_WQES_FETCHED);
kick:
	cxb_sim_sq_kick(sq, flags);
out:
	spin_unlock_irqrestore(&sq->lock, flags);
}
