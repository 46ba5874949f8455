// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim completion queues: CQE writer, arming and "interrupts".
 *
 * A CQE is written body first, then (after a write barrier) its last
 * dword holding the owner bit, so the driver never sees a half-written
 * entry it owns. The consumer index is taken from the doorbell record
 * (be32 at db_dma[0]) and from arm writes; the record is read again only
 * when the cached index says the queue is full. A full CQ is a violation
 * and the CQE is dropped.
 *
 * An armed CQ fires once: the first interrupt disarms it. The driver's
 * handler runs with hard interrupts disabled and the CQ lock held, so
 * once cq_destroy has taken the lock no handler is running or will run.
 * The handler must not call back into the backend.
 *
 * Moderation, as mlx4_cq_modify() sets it and as a ConnectX counts its
 * period by default: from the last event ("net/mlx5e: CQE based
 * moderation" made restarting it on each CQE an option; the default
 * restarts it on each interrupt). An armed CQ with CQEs pending raises
 * its event once moder_cnt CQEs are pending since the last event (0: no
 * count limit), or once moder_usecs have passed since that event (0: at
 * once), whichever comes first. So at most one event per period comes
 * from the timer, a CQE after a quiet period raises its event at once,
 * and an arm that finds CQEs past its consumer index raises it at once
 * only if the period has ended, else when it ends.
 *
 * The period runs on the device clock: the guest's clock without the
 * time the model itself ran (cxb_sim_dev_clock()). A device runs beside
 * the CPU; the model runs on it, and at burst 1 takes most of the guest's
 * time, so a period on the guest's clock would end after a fraction of
 * the packets it spans on hardware (and on the QEMU ConnectX-3 model,
 * which runs outside the guest). Each pass that writes a CQE checks
 * the period and sets the hrtimer for what is left of it; the timer
 * checks again when it expires. Both clocks are the guest's, so an
 * -icount run stays deterministic.
 */
#include <linux/slab.h>

#include "cxbell_sim.h"

static void cxb_sim_cq_free(struct kref *ref)
{
	struct cxb_sim_cq *cq = container_of(ref, struct cxb_sim_cq, ref);

	kfree_rcu(cq, rcu);
}

void cxb_sim_cq_put(struct cxb_sim_cq *cq)
{
	kref_put(&cq->ref, cxb_sim_cq_free);
}

static u32 cxb_sim_cq_used(struct cxb_sim_cq *cq)
{
	return (cq->prod - cq->ci) & CXB_MLX4_CI_MASK;
}

/* Caller holds cq->lock. */
static bool cxb_sim_cq_room_locked(struct cxb_sim_cq *cq)
{
	__be32 rec;

	if (cxb_sim_cq_used(cq) < cq->size)
		return true;
	if (cxb_sim_dma_read(cq->port, cq->db_dma, &rec, sizeof(rec),
			     CXB_SIM_PCIE_DB))
		return false;
	cq->ci = be32_to_cpu(rec) & CXB_MLX4_CI_MASK;
	return cxb_sim_cq_used(cq) < cq->size;
}

bool cxb_sim_cq_room(struct cxb_sim_cq *cq)
{
	unsigned long flags;
	bool room;

	spin_lock_irqsave(&cq->lock, flags);
	room = !cq->dead && cxb_sim_cq_room_locked(cq);
	spin_unlock_irqrestore(&cq->lock, flags);
	return room;
}

/* Device ns since the moderation period started (the last event). The
 * model's time is summed over CPUs, so on SMP the device clock may fall
 * behind where it was: never below 0.
 */
static u64 cxb_sim_cq_elapsed(const struct cxb_sim_cq *cq, u64 now)
{
	s64 d = cxb_sim_dev_clock(now) - cq->moder_dev0;

	return d > 0 ? d : 0;
}

/* Caller holds cq->lock. */
static void cxb_sim_cq_fire_locked(struct cxb_sim_cq *cq)
{
	u64 now;

	if (cq->dead || !cq->armed)
		return;
	cq->armed = false;
	cq->pending = 0;
	/* the period restarts with the event */
	now = ktime_get_ns();
	cq->moder_guest0 = now;
	cq->moder_dev0 = cxb_sim_dev_clock(now);
	/* (from the timer itself: it is not queued, nothing to cancel) */
	hrtimer_try_to_cancel(&cq->moder_timer);
	/* fault: the interrupt is lost, the CQ stays disarmed */
	if (cxb_sim_fault_hit(&cq->port->fault.lose_irq)) {
		cxb_sim_inc(cq->port, CXB_SIM_C_IRQS_LOST);
		return;
	}
	/* the event the driver counts: its next arm carries sn + 1 */
	cq->arm_sn++;
	cq->comp(cq->comp_ctx);
	cxb_sim_inc(cq->port, CXB_SIM_C_IRQS);
}

/* Device ns left of the period since the last event; 0 once it ended
 * on the device clock, or on the guest's at CXB_SIM_CLOCK_STRETCH times
 * its length. @slack: ended within an eighth (the timer: the model's DMA
 * ops take a little of the period between passes).
 */
static u64 cxb_sim_cq_period_left(const struct cxb_sim_cq *cq, u64 now,
				  bool slack)
{
	u64 period = (u64)cq->moder_usecs * NSEC_PER_USEC;
	u64 dev = cxb_sim_cq_elapsed(cq, now);

	if (dev + (slack ? dev / 7 : 0) >= period ||
	    now - cq->moder_guest0 >= period * CXB_SIM_CLOCK_STRETCH)
		return 0;
	return period - dev;
}

/* CQEs are pending on @cq (written in a pass of the model, or found by
 * an arm: @arm): its event now, or the timer for the end of the period.
 * A pass's own time does not count on the device clock, so the timer
 * set from it ends when the period does if no other pass runs before.
 * Caller holds cq->lock.
 */
static void cxb_sim_cq_moderate_locked(struct cxb_sim_cq *cq, bool arm)
{
	u64 left;

	if (cq->dead || !cq->armed || !cq->pending)
		return;
	if (!cq->moder_usecs ||
	    (cq->moder_cnt && cq->pending >= cq->moder_cnt)) {
		if (arm)
			cxb_sim_inc(cq->port, CXB_SIM_C_IRQS_ARM);
		cxb_sim_cq_fire_locked(cq);
		return;
	}
	left = cxb_sim_cq_period_left(cq, ktime_get_ns(), false);
	if (!left) {
		cxb_sim_inc(cq->port, arm ? CXB_SIM_C_IRQS_ARM :
					    CXB_SIM_C_IRQS_TIMER);
		cxb_sim_cq_fire_locked(cq);
		return;
	}
	/* Set again by every pass, for what is left of the period on the
	 * device clock then: the timer expires only once the passes stop
	 * (each expiry is a guest timer interrupt that no device would
	 * cost the CPU; one that finds the period still running sets
	 * itself again for the rest).
	 */
	hrtimer_start(&cq->moder_timer, ns_to_ktime(left), HRTIMER_MODE_REL);
}

static void cxb_sim_cq_fire(struct cxb_sim_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cxb_sim_cq_moderate_locked(cq, false);
	spin_unlock_irqrestore(&cq->lock, flags);
}

/* The timer expired: the event if the period ended and the CQ is still
 * armed with CQEs pending, else the timer again for the rest.
 */
static enum hrtimer_restart cxb_sim_cq_moder_timer(struct hrtimer *t)
{
	struct cxb_sim_cq *cq = container_of(t, struct cxb_sim_cq,
					     moder_timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	unsigned long flags;
	u64 left;

	spin_lock_irqsave(&cq->lock, flags);
	cxb_sim_inc(cq->port, CXB_SIM_C_MODER_TIMER);
	/* a pass set it again while this ran: the pass's period holds */
	if (hrtimer_is_queued(t) || cq->dead || !cq->armed || !cq->pending)
		goto out;
	left = cxb_sim_cq_period_left(cq, ktime_get_ns(), true);
	if (left) {
		hrtimer_forward_now(t, ns_to_ktime(left));
		ret = HRTIMER_RESTART;
		goto out;
	}
	cxb_sim_inc(cq->port, CXB_SIM_C_IRQS_TIMER);
	cxb_sim_cq_fire_locked(cq);
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	return ret;
}

void cxb_sim_cq_moder_init(struct cxb_sim_cq *cq, u16 cnt, u16 usecs)
{
	hrtimer_init(&cq->moder_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cq->moder_timer.function = cxb_sim_cq_moder_timer;
	cq->moder_cnt = cnt;
	cq->moder_usecs = usecs;
	/* no event yet: the period counts from boot, long over */
	cq->moder_guest0 = 0;
	cq->moder_dev0 = 0;
}

/* mlx4_cq_modify(): takes effect from the next CQE on. */
void cxb_sim_cq_moderate(struct cxb_sim_cq *cq, u16 cnt, u16 usecs)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->moder_cnt = cnt;
	cq->moder_usecs = usecs;
	spin_unlock_irqrestore(&cq->lock, flags);
}

/* The CQ is dead: no timer runs or will run once this returns. */
void cxb_sim_cq_moder_stop(struct cxb_sim_cq *cq)
{
	hrtimer_cancel(&cq->moder_timer);
}

/* Remember that @cq owes an interrupt at the end of the pass. */
static void cxb_sim_pass_irq(struct cxb_sim_pass *pass, struct cxb_sim_cq *cq)
{
	unsigned int i;

	for (i = 0; i < pass->n; i++)
		if (pass->cq[i] == cq)
			return;
	if (pass->n == ARRAY_SIZE(pass->cq)) {
		cxb_sim_cq_fire(cq);
		return;
	}
	pass->cq[pass->n++] = cq;
}

/* End of an engine pass: one interrupt per CQ written to, if armed and
 * due by its moderation. The caller is inside an RCU read-side section
 * (the CQs are freed by RCU).
 */
void cxb_sim_pass_end(struct cxb_sim_pass *pass)
{
	unsigned int i;

	for (i = 0; i < pass->n; i++)
		cxb_sim_cq_fire(pass->cq[i]);
	pass->n = 0;
}

/* Write the @size-byte CQE @cqe at the producer index of @cq, whose CQEs
 * are @size bytes: body first, then from @tail on the bytes holding the
 * owner bit, set in *@own (@own_mask) for the producer's lap. The
 * interrupt is owed to @pass.
 */
static int cxb_sim_cq_write(struct cxb_sim_cq *cq, void *cqe, size_t size,
			    size_t tail, u8 *own, u8 own_mask,
			    struct cxb_sim_pass *pass)
{
	struct cxb_sim_port *port = cq->port;
	unsigned long flags;
	dma_addr_t addr;
	int err = 0;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->dead || cq->cqe_size != size) {
		err = -ENODEV;
		cxb_sim_violation(port, "%zu-byte CQE for CQ %#x: destroyed or %u-byte CQEs",
				  size, cq->cqn, cq->cqe_size);
		goto out;
	}
	if (!cxb_sim_cq_room_locked(cq)) {
		err = -ENOSPC;
		cxb_sim_violation(port, "CQ %#x overflow (prod %u ci %u size %u)",
				  cq->cqn, cq->prod, cq->ci, cq->size);
		goto out;
	}
	if (cq->prod & cq->size)
		*own |= own_mask;
	else
		*own &= ~own_mask;
	addr = cq->buf_dma + (dma_addr_t)(cq->prod & (cq->size - 1)) * size;
	err = cxb_sim_dma_write(port, addr, cqe, tail, CXB_SIM_PCIE_NONE);
	if (err)
		goto out;
	dma_wmb();
	err = cxb_sim_dma_write(port, addr + tail, (u8 *)cqe + tail,
				size - tail, CXB_SIM_PCIE_NONE);
	if (err)
		goto out;
	cxb_sim_pcie_write(port, CXB_SIM_PCIE_CQE, size);
	cq->prod++;
	cq->pending++;
	cxb_sim_inc(port, CXB_SIM_C_CQES_WRITTEN);
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	if (!err)
		cxb_sim_pass_irq(pass, cq);
	return err;
}

/* Write the mlx4 CQE @cqe (owner bit filled in here) at the producer
 * index; the owner byte and the reserved bytes before it go last.
 */
int cxb_sim_cq_post(struct cxb_sim_cq *cq, struct mlx4_cqe *cqe,
		    struct cxb_sim_pass *pass)
{
	BUILD_BUG_ON(sizeof(*cqe) != CXB_MLX4_CQE_SIZE);
	return cxb_sim_cq_write(cq, cqe, sizeof(*cqe),
				offsetof(struct mlx4_cqe, reserved),
				&cqe->owner_sr_opcode, MLX4_CQE_OWNER_MASK,
				pass);
}

/* The same for the mlx5 CQE @cqe of a CQ of 64-byte entries: its last
 * 16 bytes, holding op_own, go last.
 */
int cxb_sim_cq_post64(struct cxb_sim_cq *cq, struct mlx5_cqe64 *cqe,
		      struct cxb_sim_pass *pass)
{
	BUILD_BUG_ON(sizeof(*cqe) != CXB_MLX5_CQE_SIZE);
	return cxb_sim_cq_write(cq, cqe, sizeof(*cqe), sizeof(*cqe) - 16,
				&cqe->op_own, MLX5_CQE_OWNER_MASK, pass);
}

/* CQ doorbell, decoded by the generation (cxb_sim_cq_db() for cx3,
 * cxb_sim_mlx5_cq_db() for cx5): arm for the next completion. If
 * completions past @ci are already written, their event is due as
 * moderation rules it (at once if the period since the last event ended),
 * so no wakeup is lost. @sn (2 bits) must be the CQ's: its initial value
 * plus one per completion event, as mlx4_core counts it (cq.c: arm_sn = 1
 * at creation, ++ per event; mlx5_core: 0 at creation, ++ per event in
 * eq.c); an arm with another is taken for a stale one and ignored
 * (arms_stale). That is the field's purpose: a driver re-arming an armed
 * CQ just as it fires sends the old number, and the event's own poll
 * arms it again.
 */
void cxb_sim_cq_arm(struct cxb_sim_cq *cq, u32 sn, u32 ci)
{
	unsigned long flags;
	u32 used;

	spin_lock_irqsave(&cq->lock, flags);
	if (!cq->dead && (sn & 3) != (cq->arm_sn & 3)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		cxb_sim_inc(cq->port, CXB_SIM_C_ARMS_STALE);
		return;
	}
	if (!cq->dead) {
		cq->ci = ci & CXB_MLX4_CI_MASK;
		cq->armed = true;
		/* CQEs before the last event the driver left unread */
		used = cxb_sim_cq_used(cq);
		if (used > cq->pending)
			cq->pending = used;
		cxb_sim_cq_moderate_locked(cq, true);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}
