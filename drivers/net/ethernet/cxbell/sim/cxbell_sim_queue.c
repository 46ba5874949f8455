// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim backend operations: port state, queue resources and the
 * decoding of register writes.
 *
 * Context: open/close/set_mtu and the create/destroy operations may sleep
 * (process context). mmio_notify runs in any context: process or softirq,
 * and with interrupts off, also in hard-IRQ context (netpoll). link_up: any
 * context.
 *
 * Register page layout (Documentation/sim.rst): UAR page u of a port is at
 * regs + 2 * u * PAGE_SIZE, its BlueFlame page right after it; UAR pages
 * u = ch * CXB_SIM_UAR_PER_CH .. + CXB_SIM_UAR_PER_CH - 1 belong to channel
 * ch. Each SQ and each CQ gets a UAR page of its channel to itself.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "cxbell_sim.h"

static void __iomem *cxb_sim_uar_reg(struct cxb_sim_port *port,
				     struct cxb_sim_uar *uar, unsigned int off)
{
	unsigned int u = uar - port->uar;

	return (__force void __iomem *)(port->regs + 2 * u * PAGE_SIZE + off);
}

/* A UAR page of @ch whose SQ (@sq) or CQ (!@sq) register is free. */
static struct cxb_sim_uar *cxb_sim_uar_get(struct cxb_sim_port *port,
					   unsigned int ch, bool sq)
{
	struct cxb_sim_uar *uar = &port->uar[ch * CXB_SIM_UAR_PER_CH];
	unsigned int i;

	lockdep_assert_held(&port->ad->lock);
	for (i = 0; i < CXB_SIM_UAR_PER_CH; i++, uar++) {
		if (sq && !rcu_access_pointer(uar->sq))
			return uar;
		if (!sq && !rcu_access_pointer(uar->cq))
			return uar;
	}
	return NULL;
}

/* Port state */

static int cxb_sim_open(struct cxb_adev *cadev, cxb_link_fn link_cb,
			void *ctx)
{
	struct cxb_sim_port *port = to_cxb_sim_port(cadev);
	struct cxb_sim_adapter *ad = port->ad;
	int err = 0;

	mutex_lock(&ad->lock);
	if (port->enabled) {
		err = -EBUSY;
		goto out;
	}
	port->link_cb = link_cb;
	port->link_ctx = ctx;
	WRITE_ONCE(port->enabled, true);
	cxb_sim_link_update(ad);
out:
	mutex_unlock(&ad->lock);
	return err;
}

static void cxb_sim_close(struct cxb_adev *cadev)
{
	struct cxb_sim_port *port = to_cxb_sim_port(cadev);
	struct cxb_sim_adapter *ad = port->ad;

	mutex_lock(&ad->lock);
	port->link_cb = NULL;
	port->link_ctx = NULL;
	WRITE_ONCE(port->enabled, false);
	cxb_sim_filter_clear(port);
	cxb_sim_rss_clear(port);
	cxb_sim_link_update(ad);
	mutex_unlock(&ad->lock);
	/* paused engines on either side discard what they hold */
	cxb_sim_port_resume(port);
	cxb_sim_port_resume_peer(port);
}

static bool cxb_sim_link_up(struct cxb_adev *cadev)
{
	return READ_ONCE(to_cxb_sim_port(cadev)->link);
}

/* The port's own counters, as a device's port counters (not reset by
 * debugfs reset_counters).
 */
static void cxb_sim_get_port_stats(struct cxb_adev *cadev,
				   struct cxb_port_stats *s)
{
	s->rx_dropped = atomic64_read(&to_cxb_sim_port(cadev)->port_rx_dropped);
	s->rx_crc_errors =
		atomic64_read(&to_cxb_sim_port(cadev)->port_rx_crc_errors);
}

static int cxb_sim_set_mtu(struct cxb_adev *cadev, unsigned int mtu)
{
	if (mtu < ETH_MIN_MTU || mtu > cadev->max_mtu)
		return -EINVAL;
	WRITE_ONCE(to_cxb_sim_port(cadev)->mtu, mtu);
	return 0;
}

static int cxb_sim_set_rx_filter(struct cxb_adev *cadev,
				 const struct cxb_rx_filter *f)
{
	return cxb_sim_filter_set(to_cxb_sim_port(cadev), f);
}

static int cxb_sim_set_rss(struct cxb_adev *cadev, const struct cxb_rss *r)
{
	return cxb_sim_rss_set(to_cxb_sim_port(cadev), r);
}

/* 802.3x pause: the sim's send engines always honour a push-back (rx);
 * the port's @pause says whether it pushes back (tx) when out of
 * receive buffers. The debugfs "pause" file is the same switch.
 */
static void cxb_sim_get_pause(struct cxb_adev *cadev, bool *rx, bool *tx)
{
	*rx = true;
	*tx = READ_ONCE(to_cxb_sim_port(cadev)->pause);
}

static int cxb_sim_set_pause(struct cxb_adev *cadev, bool rx, bool tx)
{
	if (!rx)
		return -EOPNOTSUPP;
	cxb_sim_port_set_pause(to_cxb_sim_port(cadev), tx);
	return 0;
}

/* Completion queues */

static void cxb_sim_cq_destroy_obj(struct cxb_sim_cq *cq)
{
	struct cxb_sim_adapter *ad = cq->port->ad;
	unsigned long flags;

	lockdep_assert_held(&ad->lock);
	spin_lock_irqsave(&cq->lock, flags);
	cq->dead = true;	/* and no handler is running */
	spin_unlock_irqrestore(&cq->lock, flags);
	cxb_sim_cq_moder_stop(cq);
	RCU_INIT_POINTER(cq->uar->cq, NULL);
	xa_erase(&ad->cqs, cq->cqn);
	cxb_sim_cq_put(cq);
}

static int cxb_sim_cq_create(struct cxb_adev *cadev,
			     const struct cxb_cq_params *p,
			     struct cxb_cq_hw *hw)
{
	struct cxb_sim_port *port = to_cxb_sim_port(cadev);
	struct cxb_sim_adapter *ad = port->ad;
	struct cxb_sim_uar *uar;
	struct cxb_sim_cq *cq;
	u32 size;
	int err;

	if (!p->log_entries || p->log_entries > CXB_SIM_CQ_LOG_MAX ||
	    (p->cqe_size != CXB_MLX4_CQE_SIZE &&
	     (cadev->gen != CXB_GEN_CX5 || p->cqe_size != CXB_MLX5_CQE_SIZE)) ||
	    p->channel >= cadev->max_channels || !p->comp)
		return -EINVAL;
	size = 1U << p->log_entries;
	if (!cxb_sim_dma_mapped(ad, p->buf_dma, size * p->cqe_size, true) ||
	    !cxb_sim_dma_mapped(ad, p->db_dma, 2 * sizeof(__be32), false)) {
		dev_err(&cadev->adev.dev, "CQ ring or doorbell record not mapped\n");
		return -EINVAL;
	}

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return -ENOMEM;
	spin_lock_init(&cq->lock);
	kref_init(&cq->ref);
	cq->port = port;
	cq->size = size;
	cq->cqe_size = p->cqe_size;
	cq->buf_dma = p->buf_dma;
	cq->db_dma = p->db_dma;
	cq->comp = p->comp;
	cq->comp_ctx = p->comp_ctx;
	cxb_sim_cq_moder_init(cq, p->moder_cnt, p->moder_usecs);
	/* mlx4_core, cq.c mlx4_cq_alloc(): arm_sn = 1 (libmlx4 likewise);
	 * mlx5_core starts at 0.
	 */
	cq->arm_sn = cadev->gen == CXB_GEN_CX5 ? 0 : 1;

	mutex_lock(&ad->lock);
	uar = cxb_sim_uar_get(port, p->channel, false);
	if (!uar) {
		err = -ENOSPC;
		goto err_unlock;
	}
	err = xa_alloc(&ad->cqs, &cq->cqn, cq,
		       XA_LIMIT(CXB_SIM_CQN_BASE, CXB_SIM_QN_MAX), GFP_KERNEL);
	if (err)
		goto err_unlock;
	cq->uar = uar;
	rcu_assign_pointer(uar->cq, cq);
	mutex_unlock(&ad->lock);

	hw->cqn = cq->cqn;
	hw->db_reg = cxb_sim_uar_reg(port, uar, cadev->gen == CXB_GEN_CX5 ?
				     CXB_MLX5_CQ_DB : CXB_MLX4_CQ_DB);
	hw->priv = cq;
	return 0;

err_unlock:
	mutex_unlock(&ad->lock);
	kfree(cq);
	return err;
}

static void cxb_sim_cq_destroy(struct cxb_adev *cadev, struct cxb_cq_hw *hw)
{
	struct cxb_sim_adapter *ad = to_cxb_sim_port(cadev)->ad;

	if (!hw->priv)
		return;
	mutex_lock(&ad->lock);
	cxb_sim_cq_destroy_obj(hw->priv);
	mutex_unlock(&ad->lock);
	hw->priv = NULL;
}

static int cxb_sim_cq_moderate_op(struct cxb_adev *cadev,
				  struct cxb_cq_hw *hw, u16 cnt, u16 usecs)
{
	if (!hw->priv)
		return -EINVAL;
	cxb_sim_cq_moderate(hw->priv, cnt, usecs);
	return 0;
}

/* Caller holds ad->lock. Returns the CQ with a reference, or NULL. */
static struct cxb_sim_cq *cxb_sim_cq_get(struct cxb_sim_adapter *ad, u32 cqn)
{
	struct cxb_sim_cq *cq = xa_load(&ad->cqs, cqn);

	if (cq)
		kref_get(&cq->ref);
	return cq;
}

/* Send queues */

static void cxb_sim_sq_free_rcu(struct rcu_head *head)
{
	struct cxb_sim_sq *sq = container_of(head, struct cxb_sim_sq, rcu);

	kvfree(sq->bf);
	kvfree(sq->frame);
	kvfree(sq->lso.buf);
	kfree(sq);
}

static void cxb_sim_sq_destroy_obj(struct cxb_sim_sq *sq)
{
	struct cxb_sim_adapter *ad = sq->port->ad;

	lockdep_assert_held(&ad->lock);
	cxb_sim_sq_stop(sq);
	RCU_INIT_POINTER(sq->uar->sq, NULL);
	ida_free(&ad->qpns, sq->qpn);
	cxb_sim_cq_put(sq->cq);
	call_rcu(&sq->rcu, cxb_sim_sq_free_rcu);
}

static int cxb_sim_sq_create(struct cxb_adev *cadev,
			     const struct cxb_sq_params *p,
			     struct cxb_sq_hw *hw)
{
	struct cxb_sim_port *port = to_cxb_sim_port(cadev);
	struct cxb_sim_adapter *ad = port->ad;
	struct cxb_sim_uar *uar;
	struct cxb_sim_sq *sq;
	int err;

	if (p->log_stride != CXB_MLX4_TXBB_SHIFT ||
	    p->log_entries < CXB_SIM_SQ_LOG_MIN ||
	    p->log_entries > CXB_SIM_SQ_LOG_MAX ||
	    p->channel >= cadev->max_channels)
		return -EINVAL;
	if (!cxb_sim_dma_mapped(ad, p->buf_dma,
				CXB_MLX4_TXBB_SIZE << p->log_entries, false)) {
		dev_err(&cadev->adev.dev, "send ring not mapped\n");
		return -EINVAL;
	}
	if (cadev->gen == CXB_GEN_CX5 &&
	    !cxb_sim_dma_mapped(ad, p->db_dma, CXB_MLX5_DBR_SIZE, false)) {
		dev_err(&cadev->adev.dev, "send doorbell record not mapped\n");
		return -EINVAL;
	}

	sq = kzalloc(sizeof(*sq), GFP_KERNEL);
	if (!sq)
		return -ENOMEM;
	/* room for a VLAN tag the device inserts */
	sq->frame = kvmalloc(CXB_SIM_FRAME_PAD + CXB_SIM_FRAME_MAX + VLAN_HLEN,
			     GFP_KERNEL);
	sq->bf = kvcalloc(CXB_SIM_BF_PENDING, sizeof(*sq->bf), GFP_KERNEL);
	/* an LSO WQE's packet, whole, while its segments go out */
	sq->lso.buf = kvmalloc(CXB_SIM_FRAME_PAD + CXB_SIM_LSO_MAX + VLAN_HLEN,
			       GFP_KERNEL);
	if (!sq->frame || !sq->bf || !sq->lso.buf) {
		err = -ENOMEM;
		goto err_free;
	}
	cxb_sim_sq_init(sq);
	sq->port = port;
	sq->size = 1U << p->log_entries;
	sq->gen = cadev->gen;
	sq->buf_dma = p->buf_dma;
	sq->db_dma = p->db_dma;

	mutex_lock(&ad->lock);
	sq->cq = cxb_sim_cq_get(ad, p->cqn);
	if (!sq->cq) {
		err = -ENOENT;
		goto err_unlock;
	}
	/* send CQEs of the queue's generation */
	if (sq->cq->cqe_size != (sq->gen == CXB_GEN_CX5 ? CXB_MLX5_CQE_SIZE :
				 CXB_MLX4_CQE_SIZE)) {
		err = -EINVAL;
		goto err_put;
	}
	uar = cxb_sim_uar_get(port, p->channel, true);
	if (!uar) {
		err = -ENOSPC;
		goto err_put;
	}
	err = ida_alloc_range(&ad->qpns, CXB_SIM_QPN_BASE, CXB_SIM_QN_MAX,
			      GFP_KERNEL);
	if (err < 0)
		goto err_put;
	sq->qpn = err;
	sq->uar = uar;
	rcu_assign_pointer(uar->sq, sq);
	mutex_unlock(&ad->lock);

	hw->qpn = sq->qpn;
	if (sq->gen == CXB_GEN_CX5) {
		/* BlueFlame: the same buffers, as mlx5_core maps the UAR
		 * page a second time write-combining (the sim sees no
		 * difference)
		 */
		hw->db_reg = cxb_sim_uar_reg(port, uar, CXB_MLX5_DB_OFFSET);
		hw->bf_reg = hw->db_reg;
		hw->bf_size = CXB_MLX5_BF_SIZE;
	} else {
		hw->db_reg = cxb_sim_uar_reg(port, uar, CXB_MLX4_SEND_DB);
		hw->bf_reg = cxb_sim_uar_reg(port, uar,
					     PAGE_SIZE + CXB_SIM_BF_OFFSET);
		hw->bf_size = CXB_SIM_BF_SIZE;
	}
	hw->priv = sq;
	return 0;

err_put:
	cxb_sim_cq_put(sq->cq);
err_unlock:
	mutex_unlock(&ad->lock);
err_free:
	kvfree(sq->bf);
	kvfree(sq->frame);
	kvfree(sq->lso.buf);
	kfree(sq);
	return err;
}

static void cxb_sim_sq_destroy(struct cxb_adev *cadev, struct cxb_sq_hw *hw)
{
	struct cxb_sim_adapter *ad = to_cxb_sim_port(cadev)->ad;
	unsigned int delay;

	if (!hw->priv)
		return;
	mutex_lock(&ad->lock);
	cxb_sim_sq_destroy_obj(hw->priv);
	mutex_unlock(&ad->lock);
	hw->priv = NULL;
	/* fault: the command returns late; the QP is gone already */
	delay = atomic_read(&ad->destroy_delay_ms);
	if (delay)
		msleep(delay);
}

/* Receive queues */

static void cxb_sim_rq_destroy_obj(struct cxb_sim_rq *rq)
{
	struct cxb_sim_port *port = rq->port;

	lockdep_assert_held(&port->ad->lock);
	spin_lock_bh(&rq->lock);
	rq->dead = true;
	spin_unlock_bh(&rq->lock);
	RCU_INIT_POINTER(port->rqs[rq->channel], NULL);
	WRITE_ONCE(port->nr_rqs, port->nr_rqs - 1);
	ida_free(&port->ad->qpns, rq->qpn);
	cxb_sim_cq_put(rq->cq);
	kfree_rcu(rq, rcu);
	/* engines it pushed back go on elsewhere or drop */
	cxb_sim_port_resume_peer(port);
}

static int cxb_sim_rq_create(struct cxb_adev *cadev,
			     const struct cxb_rq_params *p,
			     struct cxb_rq_hw *hw)
{
	struct cxb_sim_port *port = to_cxb_sim_port(cadev);
	struct cxb_sim_adapter *ad = port->ad;
	bool cx5 = cadev->gen == CXB_GEN_CX5;
	struct cxb_sim_rq *rq;
	int err;

	/* cx3: a receive QP (its send TXBB, then the WQEs); cx5: a cyclic
	 * RQ and a two-dword doorbell record (wqe/mlx5.h)
	 */
	if (p->log_stride != (cx5 ? CXB_MLX5_RX_STRIDE_SHIFT :
			      CXB_MLX4_RX_STRIDE_SHIFT) ||
	    !p->log_entries || p->log_entries > CXB_SIM_RQ_LOG_MAX ||
	    p->channel >= cadev->max_channels)
		return -EINVAL;
	if (!cxb_sim_dma_mapped(ad, p->buf_dma,
				cx5 ? (size_t)1 << (p->log_entries +
						    CXB_MLX5_RX_STRIDE_SHIFT) :
				CXB_MLX4_RX_BUF_SIZE(1U << p->log_entries),
				false) ||
	    !cxb_sim_dma_mapped(ad, p->db_dma,
				cx5 ? CXB_MLX5_DBR_SIZE : sizeof(__be32),
				false)) {
		dev_err(&cadev->adev.dev, "receive ring or doorbell record not mapped\n");
		return -EINVAL;
	}

	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	if (!rq)
		return -ENOMEM;
	spin_lock_init(&rq->lock);
	rq->port = port;
	rq->channel = p->channel;
	rq->size = 1U << p->log_entries;
	rq->buf_dma = p->buf_dma;
	rq->db_dma = p->db_dma;
	rq->vlan_strip = p->vlan_strip;

	mutex_lock(&ad->lock);
	if (rcu_access_pointer(port->rqs[p->channel])) {
		err = -EBUSY;
		goto err_unlock;
	}
	rq->cq = cxb_sim_cq_get(ad, p->cqn);
	if (!rq->cq) {
		err = -ENOENT;
		goto err_unlock;
	}
	/* receive CQEs of the port's generation */
	if (rq->cq->cqe_size != (cx5 ? CXB_MLX5_CQE_SIZE : CXB_MLX4_CQE_SIZE)) {
		cxb_sim_cq_put(rq->cq);
		err = -EINVAL;
		goto err_unlock;
	}
	err = ida_alloc_range(&ad->qpns, CXB_SIM_QPN_BASE, CXB_SIM_QN_MAX,
			      GFP_KERNEL);
	if (err < 0) {
		cxb_sim_cq_put(rq->cq);
		goto err_unlock;
	}
	rq->qpn = err;
	rcu_assign_pointer(port->rqs[p->channel], rq);
	WRITE_ONCE(port->nr_rqs, port->nr_rqs + 1);
	mutex_unlock(&ad->lock);

	hw->qpn = rq->qpn;
	hw->priv = rq;
	return 0;

err_unlock:
	mutex_unlock(&ad->lock);
	kfree(rq);
	return err;
}

static void cxb_sim_rq_destroy(struct cxb_adev *cadev, struct cxb_rq_hw *hw)
{
	struct cxb_sim_adapter *ad = to_cxb_sim_port(cadev)->ad;

	if (!hw->priv)
		return;
	mutex_lock(&ad->lock);
	cxb_sim_rq_destroy_obj(hw->priv);
	mutex_unlock(&ad->lock);
	hw->priv = NULL;
}

/* Queues the driver left behind when the port went away. */
void cxb_sim_port_reap(struct cxb_sim_port *port)
{
	struct cxb_sim_adapter *ad = port->ad;
	unsigned int i, n = 0;
	struct cxb_sim_sq *sq;
	struct cxb_sim_rq *rq;
	struct cxb_sim_cq *cq;

	mutex_lock(&ad->lock);
	for (i = 0; i < CXB_SIM_NR_UARS; i++) {
		sq = rcu_dereference_protected(port->uar[i].sq,
					       lockdep_is_held(&ad->lock));
		if (sq) {
			cxb_sim_sq_destroy_obj(sq);
			n++;
		}
	}
	for (i = 0; i < CXB_SIM_MAX_CHANNELS; i++) {
		rq = rcu_dereference_protected(port->rqs[i],
					       lockdep_is_held(&ad->lock));
		if (rq) {
			cxb_sim_rq_destroy_obj(rq);
			n++;
		}
	}
	for (i = 0; i < CXB_SIM_NR_UARS; i++) {
		cq = rcu_dereference_protected(port->uar[i].cq,
					       lockdep_is_held(&ad->lock));
		if (cq) {
			cxb_sim_cq_destroy_obj(cq);
			n++;
		}
	}
	mutex_unlock(&ad->lock);
	if (n)
		dev_warn(&ad->dev, "port%u: %u queues leaked by the driver\n",
			 port->index, n);
}

/* Register writes */

static void cxb_sim_send_db(struct cxb_sim_port *port, struct cxb_sim_uar *uar,
			    void *page)
{
	__be32 val = READ_ONCE(*(__be32 *)(page + CXB_MLX4_SEND_DB));
	struct cxb_sim_sq *sq = rcu_dereference(uar->sq);

	cxb_sim_inc(port, CXB_SIM_C_DOORBELLS);
	cxb_sim_pcie_mmio(port, sizeof(val));
	if (cxb_sim_fault_hit(&port->fault.lose_doorbell)) {
		cxb_sim_inc(port, CXB_SIM_C_DOORBELLS_LOST);
		return;
	}
	if (!sq || val != cxb_mlx4_send_db_val(sq->qpn)) {
		cxb_sim_violation(port, "send doorbell %#x: no such QP on UAR %td",
				  be32_to_cpu(val), uar - port->uar);
		return;
	}
	cxb_sim_sq_doorbell(sq);
}

static void cxb_sim_cq_db(struct cxb_sim_port *port, struct cxb_sim_uar *uar,
			  void *page)
{
	__be32 *reg = page + CXB_MLX4_CQ_DB;
	u32 w0 = be32_to_cpu(READ_ONCE(reg[0]));
	u32 w1 = be32_to_cpu(READ_ONCE(reg[1]));
	struct cxb_sim_cq *cq = rcu_dereference(uar->cq);
	u32 cmd = w0 & (3 << 24);

	cxb_sim_pcie_mmio(port, 2 * sizeof(*reg));
	if (!cq || (w0 & CXB_SIM_QN_MAX) != cq->cqn ||
	    (cmd != MLX4_CQ_DB_REQ_NOT && cmd != MLX4_CQ_DB_REQ_NOT_SOL)) {
		cxb_sim_violation(port, "CQ doorbell %#x %#x: no such CQ or command on UAR %td",
				  w0, w1, uar - port->uar);
		return;
	}
	cxb_sim_cq_arm(cq, w0 >> 28, w1);
}

/* BlueFlame: the WQE itself, its ctrl segment carrying the QPN. A write
 * larger than a buffer is the engine's to judge (bf_ineligible).
 */
static void cxb_sim_bf_write(struct cxb_sim_port *port,
			     struct cxb_sim_uar *uar, void *page,
			     unsigned int off, unsigned int len)
{
	struct mlx4_wqe_ctrl_seg *ctrl = page + off;
	struct cxb_sim_sq *sq = rcu_dereference(uar->sq);
	u32 qpn;

	cxb_sim_inc(port, CXB_SIM_C_BF_WRITES);
	cxb_sim_pcie_mmio(port, len);
	/* fault: the write is lost, the carried WQE not announced */
	if (cxb_sim_fault_hit(&port->fault.lose_doorbell)) {
		cxb_sim_inc(port, CXB_SIM_C_DOORBELLS_LOST);
		return;
	}
	if ((off != CXB_SIM_BF_OFFSET &&
	     off != CXB_SIM_BF_OFFSET + CXB_SIM_BF_SIZE) ||
	    len < sizeof(*ctrl) || len > PAGE_SIZE - off || len % 8) {
		cxb_sim_violation(port, "BlueFlame write of %u bytes at %#x",
				  len, off);
		return;
	}
	qpn = cxb_mlx4_bf_qpn_to_qpn(READ_ONCE(ctrl->qpn_vlan.bf_qpn));
	if (!sq || qpn != sq->qpn) {
		cxb_sim_violation(port, "BlueFlame for QP %#x: not on UAR %td",
				  qpn, uar - port->uar);
		return;
	}
	cxb_sim_sq_bf(sq, ctrl, len);
}

static void cxb_sim_unknown_write(struct cxb_sim_port *port, unsigned int u,
				  unsigned long off, unsigned int len)
{
	cxb_sim_pcie_mmio(port, len);
	cxb_sim_violation(port, "write of %u bytes at UAR %u offset %#lx",
			  len, u, off);
}

static void cxb_sim_mmio_notify(struct cxb_adev *cadev, void __iomem *reg,
				unsigned int len)
{
	struct cxb_sim_port *port = to_cxb_sim_port(cadev);
	void *addr = (__force void *)reg;
	unsigned long off, page_off;
	struct cxb_sim_uar *uar;
	unsigned int page;
	void *base;
	u64 t0;

	t0 = ktime_get_ns();
	if (addr < port->regs || addr >= port->regs + CXB_SIM_REGS_SIZE) {
		cxb_sim_violation(port, "write of %u bytes outside the register pages",
				  len);
		return;
	}
	off = addr - port->regs;
	page = off >> PAGE_SHIFT;
	page_off = offset_in_page(off);
	uar = &port->uar[page / 2];
	base = port->regs + 2 * (page / 2) * PAGE_SIZE;

	rcu_read_lock();
	if ((page & 1) && cadev->gen != CXB_GEN_CX5)
		cxb_sim_bf_write(port, uar, base + PAGE_SIZE, page_off, len);
	else if (cadev->gen == CXB_GEN_CX5 && !(page & 1) &&
		 len >= sizeof(u64) && len % sizeof(u64) == 0 &&
		 (page_off == CXB_MLX5_DB_OFFSET ||
		  page_off == CXB_MLX5_DB_OFFSET + CXB_MLX5_DB_ALT))
		/* a doorbell, or a BlueFlame write (up to 0xa00) */
		cxb_sim_mlx5_send_db(port, uar, base + page_off, len);
	else if (page_off == CXB_MLX4_SEND_DB && len == sizeof(__be32) &&
		 cadev->gen != CXB_GEN_CX5)
		cxb_sim_send_db(port, uar, base);
	else if (cadev->gen == CXB_GEN_CX5 && page_off == CXB_MLX5_CQ_DB &&
		 len == sizeof(u64))
		cxb_sim_mlx5_cq_db(port, uar, base + page_off);
	else if (page_off == CXB_MLX4_CQ_DB && len == 2 * sizeof(__be32) &&
		 cadev->gen != CXB_GEN_CX5)
		cxb_sim_cq_db(port, uar, base);
	else
		cxb_sim_unknown_write(port, page / 2, page_off, len);
	rcu_read_unlock();
	cxb_sim_engine_ran(port, t0);
	/* Link-level pause: a write of this port's driver (its CQ arms end
	 * each NAPI poll) is the sign that it may have posted receive WQEs.
	 * No lock of this port is held here.
	 */
	cxb_sim_port_resume_peer(port);
}

const struct cxb_backend_ops cxb_sim_backend_ops = {
	.open		= cxb_sim_open,
	.close		= cxb_sim_close,
	.link_up	= cxb_sim_link_up,
	.set_mtu	= cxb_sim_set_mtu,
	.get_pause	= cxb_sim_get_pause,
	.set_pause	= cxb_sim_set_pause,
	.cq_create	= cxb_sim_cq_create,
	.cq_destroy	= cxb_sim_cq_destroy,
	.cq_moderate	= cxb_sim_cq_moderate_op,
	.sq_create	= cxb_sim_sq_create,
	.sq_destroy	= cxb_sim_sq_destroy,
	.rq_create	= cxb_sim_rq_create,
	.rq_destroy	= cxb_sim_rq_destroy,
	.set_rx_filter	= cxb_sim_set_rx_filter,
	.set_rss	= cxb_sim_set_rss,
	.get_link_info	= cxb_sim_get_link_info,
	.set_link	= cxb_sim_set_link,
	.get_port_stats	= cxb_sim_get_port_stats,
	.mmio_notify	= cxb_sim_mmio_notify,
};
