// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim stranded-WQE detector.
 *
 * A periodic work item per adapter looks at every send queue for WQEs the
 * driver posted but no doorbell announced, and for an idle queue whose
 * last WQE asks for no CQE; what stays so long enough counts in the
 * port's "stranded" counter (Documentation/sim.rst, "Stranded work").
 * Whether a WQE is posted is the format's question:
 * cxb_sim_mlx4_wqe_posted() (cxbell_sim_tx.c), cxb_sim_mlx5_wqe_posted()
 * (cxbell_sim_mlx5.c).
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/smp.h>

#include "cxbell_sim.h"

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

/* A WQE posted, no doorbell announced it, the queue idle; or the queue
 * idle after a WQE that asks for no CQE, which leaves the WQEs since the
 * last CQE uncompleted forever. True once seen so long enough
 * (cxb_sim_stranded_due()); *@posted tells which of the two it is.
 * Caller holds sq->lock.
 */
static bool cxb_sim_sq_stranded(struct cxb_sim_sq *sq, bool *posted)
{
	unsigned long idle = msecs_to_jiffies(CXB_SIM_STRANDED_IDLE_MS);
	u32 idx = sq->announced;

	/* a paused engine holds WQEs back: its queue is not idle */
	if (sq->dead || sq->paused || sq->error || sq->done != idx ||
	    time_before(jiffies, sq->last_active + idle)) {
		sq->stranded_cand = false;
		return false;
	}
	*posted = sq->gen == CXB_GEN_CX5 ? cxb_sim_mlx5_wqe_posted(sq, idx) :
					   cxb_sim_mlx4_wqe_posted(sq, idx);
	if (!*posted && !sq->tail_unsig) {
		sq->stranded_cand = false;
		return false;
	}
	return cxb_sim_stranded_due(sq, idx);
}

/* Count and log a send queue found stranded (cxb_sim_sq_stranded()).
 * Caller holds sq->lock.
 */
static void cxb_sim_sq_count_stranded(struct cxb_sim_sq *sq, bool posted)
{
	u32 idx = sq->announced;

	sq->stranded_seen = true;
	sq->stranded_idx = idx;
	cxb_sim_inc(sq->port, CXB_SIM_C_STRANDED);
	if (!posted) {
		dev_info_ratelimited(&sq->port->cadev.adev.dev,
				     "SQ %#x: WQEs up to %u executed, the last asks for no CQE\n",
				     sq->qpn, idx);
		return;
	}
	/* CQEs the driver has not consumed yet: its completion handler, which
	 * rings what doorbell avoidance deferred, has not run.
	 */
	dev_info_ratelimited(&sq->port->cadev.adev.dev,
			     "SQ %#x: WQE at %u posted, no doorbell; CQ %#x: %u CQEs unconsumed, %sarmed\n",
			     sq->qpn, idx, sq->cq->cqn,
			     cxb_sim_cq_unconsumed(sq->cq),
			     READ_ONCE(sq->cq->armed) ? "" : "not ");
}

/* First look: mark a queue that looks stranded. True if it does. */
static bool cxb_sim_stranded_mark(struct cxb_sim_sq *sq)
{
	bool posted;

	sq->stranded_ready = cxb_sim_sq_stranded(sq, &posted);
	return sq->stranded_ready;
}

/* Second look, after the vCPUs ran: count a marked queue still stranded. */
static bool cxb_sim_stranded_confirm(struct cxb_sim_sq *sq)
{
	bool posted;

	if (sq->stranded_ready && cxb_sim_sq_stranded(sq, &posted))
		cxb_sim_sq_count_stranded(sq, posted);
	sq->stranded_ready = false;
	return false;
}

/* Apply @look to every send queue of @ad, under its lock; true if it
 * returned true for any.
 */
static bool cxb_sim_stranded_scan(struct cxb_sim_adapter *ad,
				  bool (*look)(struct cxb_sim_sq *sq))
{
	struct cxb_sim_port *port;
	struct cxb_sim_sq *sq;
	unsigned long flags;
	unsigned int p, i;
	bool any = false;

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
			any |= look(sq);
			spin_unlock_irqrestore(&sq->lock, flags);
		}
	}
	rcu_read_unlock();
	return any;
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
	if (cxb_sim_stranded_scan(ad, cxb_sim_stranded_mark)) {
		on_each_cpu(cxb_sim_stranded_nop, NULL, 1);
		msleep(CXB_SIM_STRANDED_SETTLE_MS);
		cxb_sim_stranded_scan(ad, cxb_sim_stranded_confirm);
	}
	queue_delayed_work(cxb_sim_wq, &ad->stranded_work,
			   msecs_to_jiffies(CXB_SIM_STRANDED_PERIOD_MS));
}
