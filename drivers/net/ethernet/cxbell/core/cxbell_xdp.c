// SPDX-License-Identifier: GPL-2.0
/* cxbell XDP: the program on received pages, the per-channel XDP send
 * queue (XDP_TX and ndo_xdp_xmit), program attach, and the debugfs switch
 * of the XDP_TX doorbell policy.
 *
 * The rule this file exists for: XDP_TX only writes descriptors while the
 * receive poll runs; the device hears of them once, when the poll ends,
 * and only if something was posted. ndo_xdp_xmit rings once per
 * XDP_XMIT_FLUSH.
 */
#include <linux/bpf.h>
#include <linux/bpf_trace.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/filter.h>
#include <linux/rtnetlink.h>
#include <net/xdp.h>

#include "cxbell.h"
#include "cxbell_txrx.h"

/* An XDP send WQE: control segment and one data segment, one TXBB; cx5:
 * control, Ethernet and data segment, one WQEBB.
 */
#define CXB_XDP_WQE_DS		2
#define CXB_XDP_WQE_DS5		3

/* Each writer's fields fit the one cache line it owns. */
static_assert(offsetof(struct cxb_xdp_sq, lock) -
	      offsetof(struct cxb_xdp_sq, cons) <= SMP_CACHE_BYTES);
/* Lock debugging alone makes spinlock_t outgrow a cache line. */
#if !defined(CONFIG_DEBUG_SPINLOCK) && !defined(CONFIG_DEBUG_LOCK_ALLOC)
static_assert(offsetof(struct cxb_xdp_sq, buf) -
	      offsetof(struct cxb_xdp_sq, lock) <= SMP_CACHE_BYTES);
#endif
static_assert(CXB_XDP_WQE_DS * CXB_MLX4_DS_SIZE <= CXB_MLX4_TXBB_SIZE);
static_assert(CXB_XDP_WQE_DS5 <= CXB_MLX5_DS_PER_WQEBB);
/* with the minimum inline headers too */
static_assert(CXB_MLX5_HDR_DS + 1 +
	      DIV_ROUND_UP(CXB_MLX5_MIN_INLINE_L2 - CXB_MLX5_INLINE_START,
			   CXB_MLX5_DS_SIZE) <= CXB_MLX5_DS_PER_WQEBB);

/* ---- XDP send queue ----------------------------------------------------- */

/* Tell the device about every WQE posted so far (at least one since the
 * last time). sq->lock held. cx5: the last one asks for the CQE that
 * frees them all, as on a send ring (cxb_mlx5_tx_doorbell()).
 */
static void cxb_xdpsq_doorbell(struct cxb_xdp_sq *sq)
{
	if (sq->gen == CXB_GEN_CX5) {
		void __iomem *reg = sq->db_reg + sq->db_offset;
		u32 last = (sq->prod - 1) & sq->size_mask;

		cxb_mlx5_ring_doorbell(reg, sq->db_rec, sq->prod,
				       sq->buf + (last << CXB_MLX5_WQEBB_SHIFT));
		sq->db_offset ^= CXB_MLX5_DB_ALT;
		cxb_mmio_notify(sq->cadev, reg, sizeof(u64));
	} else {
		cxb_mlx4_send_doorbell(sq->db_reg, sq->doorbell_qpn);
		cxb_mmio_notify(sq->cadev, sq->db_reg, sizeof(u32));
	}
	sq->prod_bell = sq->prod;
	u64_stats_update_begin(&sq->xstats_sync);
	sq->doorbells++;
	u64_stats_update_end(&sq->xstats_sync);
}

/* The mlx5 SEND WQE at @prod: control, an Ethernet segment asking for
 * nothing (no checksum, no inline headers), one data segment; one WQEBB,
 * no completion unless a doorbell names it (mlx5e_xmit_xdp_frame(),
 * en/xdp.c, builds the same).
 */
static void cxb_xdpsq_post_mlx5(struct cxb_xdp_sq *sq, u32 prod,
				dma_addr_t dma, u32 len)
{
	struct mlx5_wqe_ctrl_seg *ctrl = sq->buf + ((prod & sq->size_mask) <<
						    CXB_MLX5_WQEBB_SHIFT);
	struct mlx5_wqe_eth_seg *eth = (void *)(ctrl + 1);
	struct mlx5_wqe_data_seg *dseg = (void *)(eth + 1);

	cxb_mlx5_ctrl_init(ctrl, prod, MLX5_OPCODE_SEND, sq->doorbell_qpn,
			   CXB_XDP_WQE_DS5);
	memset(eth, 0, sizeof(*eth));
	dseg->addr = cpu_to_be64(dma);
	dseg->lkey = sq->lkey;
	dseg->byte_count = cpu_to_be32(len);
}

/* The same where the device's minimum inline mode is L2: the frame's
 * first CXB_MLX5_MIN_INLINE_L2 bytes (or all of a shorter one) inline in
 * the Ethernet segment, the data segment for the rest, one WQEBB
 * (mlx5e_xmit_xdp_frame() with sq->min_inline_mode set). Out of line:
 * the other ports' frames do not carry its code.
 */
static noinline void cxb_xdpsq_post_mlx5_l2(struct cxb_xdp_sq *sq, u32 prod,
					    const void *data, dma_addr_t dma,
					    u32 len)
{
	struct mlx5_wqe_ctrl_seg *ctrl = sq->buf + ((prod & sq->size_mask) <<
						    CXB_MLX5_WQEBB_SHIFT);
	struct mlx5_wqe_eth_seg *eth = (void *)(ctrl + 1);
	u32 ihs = min(len, CXB_MLX5_MIN_INLINE_L2);
	unsigned int ds = cxb_mlx5_eth_inline_ds(ihs);
	struct mlx5_wqe_data_seg *dseg = (void *)ctrl + ds * CXB_MLX5_DS_SIZE;

	memset(eth, 0, sizeof(*eth));
	memcpy((u8 *)ctrl + CXB_MLX5_ETH_INLINE_OFF, data, ihs);
	eth->inline_hdr.sz = cpu_to_be16(ihs);
	if (len > ihs) {
		dseg->addr = cpu_to_be64(dma + ihs);
		dseg->lkey = sq->lkey;
		dseg->byte_count = cpu_to_be32(len - ihs);
		ds++;
	}
	cxb_mlx5_ctrl_init(ctrl, prod, MLX5_OPCODE_SEND, sq->doorbell_qpn, ds);
}

/* Write one send WQE for @len bytes at @dma; false if the ring is full.
 * sq->lock held. The doorbell is the caller's.
 */
static bool cxb_xdpsq_post(struct cxb_xdp_sq *sq, const void *data,
			   dma_addr_t dma, u32 len, void *ptr,
			   enum cxb_xdp_type type)
{
	u32 prod = sq->prod, idx = prod & sq->size_mask;
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct mlx4_wqe_data_seg *dseg;
	struct cxb_xdp_info *info;

	/* Pairs with the release in cxb_xdp_complete(): the slot's info is
	 * free once cons is past it.
	 */
	if (unlikely(prod - smp_load_acquire(&sq->cons) >= sq->size))
		return false;

	info = &sq->info[idx];
	info->page = ptr;		/* or the xdp_frame: one union */
	info->dma = dma;
	info->len = len;
	info->type = type;

	if (sq->gen == CXB_GEN_CX5) {
		if (unlikely(sq->min_inline))
			cxb_xdpsq_post_mlx5_l2(sq, prod, data, dma, len);
		else
			cxb_xdpsq_post_mlx5(sq, prod, dma, len);
		sq->prod = prod + 1;
		return true;
	}
	ctrl = sq->buf + (idx << CXB_MLX4_TXBB_SHIFT);
	dseg = (struct mlx4_wqe_data_seg *)(ctrl + 1);
	dseg->addr = cpu_to_be64(dma);
	dseg->lkey = sq->lkey;
	dseg->byte_count = cpu_to_be32(len);
	ctrl->qpn_vlan.vlan_tag = 0;
	ctrl->qpn_vlan.ins_vlan = 0;
	ctrl->qpn_vlan.fence_size = CXB_XDP_WQE_DS;
	ctrl->srcrb_flags = cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE);
	ctrl->imm = 0;
	/* Segments before ownership: the device may look at it any time. */
	dma_wmb();
	ctrl->owner_opcode = cpu_to_be32(MLX4_OPCODE_SEND |
					 cxb_mlx4_owner(prod, sq->size));
	sq->prod = prod + 1;
	return true;
}

/* XDP_TX of a page of this channel's pool: it is mapped already. */
static bool cxb_xdp_tx(struct cxb_xdp_sq *sq, struct xdp_buff *xdp,
		       struct page *page)
{
	u32 len = xdp->data_end - xdp->data;
	dma_addr_t dma;
	bool ok;

	dma = page_pool_get_dma_addr(page) + (xdp->data - page_address(page));
	dma_sync_single_for_device(sq->dma_dev, dma, len, DMA_BIDIRECTIONAL);

	spin_lock(&sq->lock);
	ok = cxb_xdpsq_post(sq, xdp->data, dma, len, page, CXB_XDP_TX);
	/* The benchmark's comparison: a doorbell for every frame. */
	if (ok && unlikely(READ_ONCE(sq->db_per_packet)))
		cxb_xdpsq_doorbell(sq);
	spin_unlock(&sq->lock);
	return ok;
}

static void cxb_xdpsq_free(struct cxb_xdp_sq *sq, u32 cons, bool in_napi)
{
	struct cxb_xdp_info *info = &sq->info[cons & sq->size_mask];

	if (info->type == CXB_XDP_TX) {
		/* Back to the pool of the channel whose NAPI this is. */
		if (in_napi)
			page_pool_recycle_direct(sq->pool, info->page);
		else
			page_pool_put_full_page(sq->pool, info->page, false);
	} else {
		dma_unmap_single(sq->dma_dev, info->dma, info->len,
				 DMA_TO_DEVICE);
		xdp_return_frame(info->xdpf);
	}
	info->page = NULL;
}

/* Count a fault of the XDP send queue (tx_xdp_err_cqe); true for the
 * first one, as cxb_tx_fault(): the caller logs it and resets.
 */
static bool cxb_xdpsq_fault(struct cxb_xdp_sq *sq, bool in_napi)
{
	u64_stats_update_begin(&sq->cstats_sync);
	sq->err_cqes++;
	u64_stats_update_end(&sq->cstats_sync);
	if (sq->err_seen || !in_napi)
		return false;
	sq->err_seen = true;
	return true;
}

/* An error CQE on the XDP send queue: the device failed the WQE at
 * @wqe_index and stopped the queue (error state), as on a regular send
 * queue (cxb_tx_err_cqe()); only a reset brings it back, as mlx5e
 * recovers its XDP send queues. The walk frees up to the failed WQE.
 */
static noinline void cxb_xdp_err_cqe(struct cxb_channel *ch, u16 wqe,
				     u8 synd, u8 vendor, bool in_napi)
{
	if (!cxb_xdpsq_fault(&ch->xdpsq, in_napi))
		return;
	if (net_ratelimit())
		netdev_err(ch->priv->netdev,
			   "XDP send queue %u: error CQE at WQE %u, syndrome %#x vendor %#x; resetting\n",
			   ch->idx, wqe, synd, vendor);
	cxb_schedule_reset(ch->priv);
}

/* A CQE naming a WQE of the XDP send queue that is not outstanding (as
 * cxb_tx_bad_cqe()): nothing more freed, the queue reset.
 */
static void __cold cxb_xdp_bad_cqe(struct cxb_channel *ch, u16 wqe_index,
				   u32 cons, u32 prod, bool in_napi)
{
	if (!cxb_xdpsq_fault(&ch->xdpsq, in_napi))
		return;
	if (net_ratelimit())
		netdev_err(ch->priv->netdev,
			   "XDP send queue %u: CQE for WQE %u, cons %u, %u outstanding; resetting\n",
			   ch->idx, wqe_index, (u16)cons, prod - cons);
	cxb_schedule_reset(ch->priv);
}

/* Handle the XDP send queue's completions. Returns true when all pending
 * ones were handled. @in_napi: called from the channel's NAPI poll, so
 * pages may go straight back to its page_pool; false: the queue is being
 * torn down.
 */
/* The XDP send CQE at @ci if software owns it: the WQE it names in
 * @wqe_index; an error CQE's syndromes in @synd and @vendor, else false.
 */
static bool cxb_xdp_cq_next(struct cxb_cq *cq, u32 ci, enum cxb_gen gen,
			    u16 *wqe_index, bool *err, u8 *synd, u8 *vendor)
{
	if (gen == CXB_GEN_CX5) {
		struct mlx5_cqe64 *cqe;
		const struct mlx5_err_cqe *e;

		if (!cxb_mlx5_cq_next(cq, ci, &cqe))
			return false;
		e = (const void *)cqe;
		*wqe_index = be16_to_cpu(cqe->wqe_counter);
		*err = cxb_mlx5_cqe_opcode(cqe) == MLX5_CQE_REQ_ERR;
		*synd = e->syndrome;
		*vendor = e->vendor_err_synd;
	} else {
		struct mlx4_cqe *cqe;
		const struct mlx4_err_cqe *e;

		if (!cxb_mlx4_cq_next(cq, ci, &cqe))
			return false;
		e = (const void *)cqe;
		*wqe_index = be16_to_cpu(cqe->wqe_index);
		*err = cxb_mlx4_cqe_is_err(cqe);
		*synd = e->syndrome;
		*vendor = e->vendor_err_syndrome;
	}
	return true;
}

bool cxb_xdp_complete(struct cxb_channel *ch, int budget, bool in_napi)
{
	struct cxb_xdp_sq *sq = &ch->xdpsq;
	struct cxb_cq *cq = &ch->xdp_cq;
	u32 ci = cq->ci, cons = sq->cons, prod = cons;
	u8 synd, vendor;
	u16 wqe_index;
	u32 ncqe = 0;
	bool err;

	while (cxb_xdp_cq_next(cq, ci, sq->gen, &wqe_index, &err, &synd,
			       &vendor)) {
		if (unlikely(ncqe == CXB_TX_CQ_BUDGET))
			break;
		/* as in cxb_tx_complete(): every WQE here is one TXBB; a
		 * cx5 CQE frees every WQE up to the one a doorbell named
		 */
		if (unlikely(!cxb_cqe_outstanding(&sq->prod, &prod, cons,
						  wqe_index))) {
			cxb_xdp_bad_cqe(ch, wqe_index, cons, prod, in_napi);
			ci++;
			ncqe++;
			break;
		}
		if (unlikely(err))
			cxb_xdp_err_cqe(ch, wqe_index, synd, vendor, in_napi);
		for (;;) {
			bool last = (u16)cons == wqe_index;

			cxb_xdpsq_free(sq, cons, in_napi);
			cons++;
			if (last)
				break;
		}
		ci++;
		ncqe++;
	}
	if (!ncqe)
		return true;

	cxb_mlx4_cq_set_ci(cq, ci);
	/* Posting reads cons without the lock: publish it last. */
	smp_store_release(&sq->cons, cons);
	u64_stats_update_begin(&sq->cstats_sync);
	sq->cqes += ncqe;
	u64_stats_update_end(&sq->cstats_sync);
	return ncqe < CXB_TX_CQ_BUDGET;
}

/* The queue's memory and its CQ's; the device's objects come with
 * cxb_xdpsq_activate().
 */
int cxb_xdpsq_alloc(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_xdp_sq *sq = &ch->xdpsq;
	u32 size = ch->cfg.tx_ring_size, i;
	int err;

	sq->gen = priv->cadev->gen;
	sq->min_inline = priv->cadev->min_inline;
	err = cxb_cq_alloc(priv, ch, &ch->xdp_cq, size,
			   sq->gen == CXB_GEN_CX5 ? CXB_MLX5_CQE_SIZE :
			   CXB_MLX4_CQE_SIZE);
	if (err)
		return err;

	spin_lock_init(&sq->lock);
	u64_stats_init(&sq->xstats_sync);
	u64_stats_init(&sq->cstats_sync);
	sq->size = size;
	sq->size_mask = size - 1;
	sq->lkey = priv->cadev->lkey;
	sq->dma_dev = priv->dma_dev;
	sq->cadev = priv->cadev;
	sq->pool = ch->rx.pool;
	sq->cq = &ch->xdp_cq;
	sq->db_per_packet = priv->xdp_db_per_packet;
	sq->info = kvcalloc(size, sizeof(*sq->info), GFP_KERNEL);
	if (!sq->info)
		return -ENOMEM;
	sq->buf = dma_alloc_coherent(priv->dma_dev, size << CXB_MLX4_TXBB_SHIFT,
				     &sq->buf_dma, GFP_KERNEL);
	if (!sq->buf)
		return -ENOMEM;
	if (sq->gen == CXB_GEN_CX5) {
		/* no owner bits: the doorbell record says what is posted */
		sq->db_rec = dma_alloc_coherent(priv->dma_dev,
						CXB_MLX5_DBR_SIZE, &sq->db_dma,
						GFP_KERNEL);
		if (!sq->db_rec)
			return -ENOMEM;
	} else {
		/* Lap 0: every TXBB owned by software, stamped. */
		for (i = 0; i < size; i++)
			*(__be32 *)(sq->buf + (i << CXB_MLX4_TXBB_SHIFT)) =
				cpu_to_be32(CXB_MLX4_STAMP |
					    CXB_MLX4_OWNER_BIT);
	}
	ch->rx.xdpsq = sq;
	return 0;
}

int cxb_xdpsq_activate(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_xdp_sq *sq = &ch->xdpsq;
	struct cxb_sq_params p = {};
	int err;

	err = cxb_cq_activate(priv, &ch->xdp_cq);
	if (err)
		return err;
	p.buf_dma = sq->buf_dma;
	p.log_entries = ilog2(sq->size);
	p.log_stride = CXB_MLX4_TXBB_SHIFT;
	p.cqn = ch->xdp_cq.cqn;
	p.channel = ch->idx;
	p.db_dma = sq->db_dma;
	err = priv->ops->sq_create(priv->cadev, &p, &sq->hw);
	if (err)
		return err;
	sq->created = true;
	sq->doorbell_qpn = cxb_mlx4_send_db_val(sq->hw.qpn);
	sq->db_reg = sq->hw.db_reg;
	return 0;
}

/* The device forgets the queue: no fetch, no CQE after this. */
void cxb_xdpsq_hw_destroy(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_xdp_sq *sq = &ch->xdpsq;

	if (sq->created)
		priv->ops->sq_destroy(priv->cadev, &sq->hw);
	sq->created = false;
}

/* Free the queue and what it holds, with NAPI disabled and ndo_xdp_xmit
 * shut out; before the channel's page pool goes.
 */
void cxb_xdpsq_destroy(struct cxb_priv *priv, struct cxb_channel *ch)
{
	struct cxb_xdp_sq *sq = &ch->xdpsq;

	cxb_xdpsq_hw_destroy(priv, ch);
	ch->rx.xdpsq = NULL;
	if (sq->buf) {
		if (ch->xdp_cq.buf)
			while (!cxb_xdp_complete(ch, 0, false))
				;
		/* What the device will never complete. */
		while (sq->cons != sq->prod)
			cxb_xdpsq_free(sq, sq->cons++, false);
		dma_free_coherent(priv->dma_dev, sq->size << CXB_MLX4_TXBB_SHIFT,
				  sq->buf, sq->buf_dma);
		sq->buf = NULL;
	}
	if (sq->db_rec)
		dma_free_coherent(priv->dma_dev, CXB_MLX5_DBR_SIZE, sq->db_rec,
				  sq->db_dma);
	sq->db_rec = NULL;
	kvfree(sq->info);
	sq->info = NULL;
	cxb_cq_destroy(priv, &ch->xdp_cq);
}

void cxb_get_xdpsq_stats(const struct cxb_xdp_sq *sq, struct cxb_tx_stats *s)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&sq->xstats_sync);
		s->xdp_xmit = sq->xmit;
		s->xdp_xmit_err = sq->xmit_err;
		s->xdp_doorbells = sq->doorbells;
	} while (u64_stats_fetch_retry(&sq->xstats_sync, start));
	do {
		start = u64_stats_fetch_begin(&sq->cstats_sync);
		s->xdp_cqes = sq->cqes;
		s->xdp_err_cqe = sq->err_cqes;
	} while (u64_stats_fetch_retry(&sq->cstats_sync, start));
}

/* ---- Receive side ------------------------------------------------------- */

/* Run @prog on a received frame at @off/@len of @page. Returns true if
 * XDP consumed the page (dropped, sent or redirected), false for XDP_PASS
 * with @off/@len updated to what the program left.
 */
bool cxb_xdp_rx(struct cxb_channel *ch, struct bpf_prog *prog,
		struct xdp_buff *xdp, struct page *page, u32 *off, u32 *len,
		struct cxb_xdp_poll *st)
{
	struct net_device *dev = ch->priv->netdev;
	struct cxb_rx_ring *ring = &ch->rx;
	void *va = page_address(page);
	u32 act;

	xdp_prepare_buff(xdp, va, *off, *len, false);
	act = bpf_prog_run_xdp(prog, xdp);
	switch (act) {
	case XDP_PASS:
		*off = xdp->data - va;
		*len = xdp->data_end - xdp->data;
		st->pass++;
		return false;
	case XDP_TX:
		if (unlikely(!ring->xdpsq))
			goto aborted;	/* no XDP send queue (cxbell.rst) */
		if (likely(cxb_xdp_tx(ring->xdpsq, xdp, page))) {
			st->tx++;
			st->tx_posted = true;
			return true;
		}
		st->tx_full++;
		trace_xdp_exception(dev, prog, act);
		goto recycle;
	case XDP_REDIRECT:
		/* The page goes with the frame; its pool gets it back. */
		if (unlikely(xdp_do_redirect(dev, xdp, prog)))
			goto aborted;
		st->redirect++;
		st->redirected = true;
		return true;
	case XDP_DROP:
		st->drop++;
		goto recycle;
	default:
		bpf_warn_invalid_xdp_action(dev, prog, act);
		fallthrough;
	case XDP_ABORTED:
aborted:
		trace_xdp_exception(dev, prog, act);
		st->aborted++;
		goto recycle;
	}
recycle:
	page_pool_recycle_direct(ring->pool, page);
	return true;
}

/* The end of a receive poll: one doorbell for every XDP_TX WQE it posted,
 * and the redirect flush.
 */
void cxb_xdp_poll_end(struct cxb_channel *ch, struct cxb_xdp_poll *st)
{
	struct cxb_xdp_sq *sq = ch->rx.xdpsq;

	if (st->tx_posted) {
		spin_lock(&sq->lock);
		/* Per-packet doorbells (debugfs) left nothing to ring. */
		if (sq->prod != sq->prod_bell)
			cxb_xdpsq_doorbell(sq);
		spin_unlock(&sq->lock);
	}
	if (st->redirected)
		xdp_do_flush();
}

/* ---- ndo_xdp_xmit ------------------------------------------------------- */

/* Frames redirected to this port, from any device's NAPI: posted to the
 * XDP send queue of the current CPU's channel, under its lock (that
 * channel's own XDP_TX may be posting), one doorbell per flush.
 */
int cxb_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames,
		 u32 flags)
{
	struct cxb_priv *priv = netdev_priv(dev);
	struct cxb_xdp_chans *xc;
	struct cxb_xdp_sq *sq;
	int i, nxmit = 0;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	/* The channels and their count, as published together by
	 * cxb_datapath_up(): they stay until an RCU grace period after
	 * cxb_datapath_down() unpublished them. priv->num_ch may be a later
	 * configuration's already.
	 */
	rcu_read_lock();
	xc = rcu_dereference(priv->xdp_chans);
	if (unlikely(!xc)) {
		rcu_read_unlock();
		return -ENETDOWN;
	}
	sq = &xc->ch[smp_processor_id() % xc->num]->xdpsq;

	spin_lock(&sq->lock);
	for (i = 0; i < n; i++) {
		struct xdp_frame *xdpf = frames[i];
		dma_addr_t dma;

		dma = cxb_dma_map_linear(sq->dma_dev, xdpf->data, xdpf->len);
		if (unlikely(dma_mapping_error(sq->dma_dev, dma)))
			break;
		if (unlikely(!cxb_xdpsq_post(sq, xdpf->data, dma, xdpf->len,
					     xdpf, CXB_XDP_XMIT))) {
			dma_unmap_single(sq->dma_dev, dma, xdpf->len,
					 DMA_TO_DEVICE);
			break;
		}
		nxmit++;
	}
	if ((flags & XDP_XMIT_FLUSH) && sq->prod != sq->prod_bell)
		cxb_xdpsq_doorbell(sq);
	u64_stats_update_begin(&sq->xstats_sync);
	sq->xmit += nxmit;
	sq->xmit_err += n - nxmit;
	u64_stats_update_end(&sq->xstats_sync);
	spin_unlock(&sq->lock);
	rcu_read_unlock();
	/* The caller frees the frames not taken. */
	return nxmit;
}

/* ---- Program attach ----------------------------------------------------- */

int cxb_xdp_check_mtu(struct cxb_priv *priv, unsigned int mtu,
		      struct netlink_ext_ack *extack)
{
	if (mtu <= CXB_XDP_MAX_MTU)
		return 0;
	NL_SET_ERR_MSG_MOD(extack,
			   "MTU too large for XDP: a frame must fit one page");
	netdev_info(priv->netdev, "XDP needs an MTU of at most %lu, not %u\n",
		    CXB_XDP_MAX_MTU, mtu);
	return -EINVAL;
}

/* Attach, replace or detach: a pointer swap per receive ring, under
 * traffic. Every buffer is one page with XDP's headroom already (the MTU
 * check keeps it so), the pools map for the XDP send queue, which exists
 * whenever the backend provides it: nothing to rebuild.
 */
static int cxb_xdp_setup(struct cxb_priv *priv, struct bpf_prog *prog,
			 struct netlink_ext_ack *extack)
{
	struct bpf_prog *old = priv->xdp_prog;
	unsigned int i;
	int err;

	ASSERT_RTNL();
	if (prog) {
		err = cxb_xdp_check_mtu(priv, priv->netdev->mtu, extack);
		if (err)
			return err;
		if (!priv->has_xdpsq)
			NL_SET_ERR_MSG_MOD(extack,
					   "no XDP send queues on this port: XDP_TX and redirects to it drop");
	}
	/* The reference the stack handed over is kept in priv; the rings
	 * borrow it. A poll still running the old program finishes within
	 * an RCU grace period, before the program is freed.
	 */
	priv->xdp_prog = prog;
	for (i = 0; priv->ch && i < priv->num_ch; i++)
		rcu_assign_pointer(priv->ch[i]->rx.xdp_prog, prog);
	if (old)
		bpf_prog_put(old);
	return 0;
}

int cxb_bpf(struct net_device *dev, struct netdev_bpf *bpf)
{
	struct cxb_priv *priv = netdev_priv(dev);

	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return cxb_xdp_setup(priv, bpf->prog, bpf->extack);
	default:
		return -EINVAL;
	}
}

/* ---- debugfs ------------------------------------------------------------ */

static struct dentry *cxb_droot;

static ssize_t cxb_db_pp_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct cxb_priv *priv = file->private_data;
	char buf[4];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u\n",
			READ_ONCE(priv->xdp_db_per_packet));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t cxb_db_pp_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct cxb_priv *priv = file->private_data;
	unsigned int val, i;
	int err;

	err = kstrtouint_from_user(ubuf, count, 0, &val);
	if (err)
		return err;
	if (val > 1)
		return -EINVAL;
	rtnl_lock();
	WRITE_ONCE(priv->xdp_db_per_packet, val);
	for (i = 0; priv->ch && i < priv->num_ch; i++)
		WRITE_ONCE(priv->ch[i]->xdpsq.db_per_packet, val);
	rtnl_unlock();
	return count;
}

static const struct file_operations cxb_db_pp_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = cxb_db_pp_read,
	.write = cxb_db_pp_write,
	.llseek = default_llseek,
};

/* /sys/kernel/debug/cxbell/<port device>/: named after the auxiliary
 * device (stable across renames and namespaces).
 */
void cxb_debugfs_add(struct cxb_priv *priv)
{
	priv->ddir = debugfs_create_dir(dev_name(&priv->cadev->adev.dev),
					cxb_droot);
	debugfs_create_file("xdp_tx_doorbell_per_packet", 0600, priv->ddir,
			    priv, &cxb_db_pp_fops);
}

/* Not under RTNL: a writer may be waiting for it. */
void cxb_debugfs_del(struct cxb_priv *priv)
{
	debugfs_remove(priv->ddir);
	priv->ddir = NULL;
}

void cxb_debugfs_init(void)
{
	cxb_droot = debugfs_create_dir(CXB_DRV_NAME, NULL);
}

void cxb_debugfs_exit(void)
{
	debugfs_remove(cxb_droot);
}
