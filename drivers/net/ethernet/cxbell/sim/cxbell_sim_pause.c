// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim link-level (802.3x) pause: the wire, frames the peer pushes
 * back, and the triggers that resume the engines it stopped.
 *
 * Link-level pause (Documentation/sim.rst): when the peer pushes a frame
 * back the engine stops (@paused) with the frame held in @frame and its
 * WQE not completed. Nothing is executed until a try of the held frame
 * gets past the peer: on a resume trigger (a register write of the peer's
 * driver, the retry timer, peer state changes), never on the queue's own
 * doorbells, which only announce. A resume trigger takes the SQ lock with
 * no lock of the receiving port held.
 */
#include <linux/bitmap.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>

#include "cxbell_sim.h"

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

	if (!READ_ONCE(port->link) || !peer || !READ_ONCE(peer->enabled) ||
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
	sq->unreported++;
	cxb_sim_add(port, CXB_SIM_C_TX_BYTES, sq->held_len);
	return true;
}

/* A resume trigger: try the held frame again. True if the engine may go
 * on. Caller holds sq->lock.
 */
bool cxb_sim_sq_unpause(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass)
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
	/* the rest of an LSO WQE's segments */
	if (unlikely(sq->lso.len) && !cxb_sim_lso_send(sq, pass))
		return false;
	if (sq->held_cqe)
		cxb_sim_sq_complete(sq, sq->held_idx, sq->held_len, pass);
	return true;
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
