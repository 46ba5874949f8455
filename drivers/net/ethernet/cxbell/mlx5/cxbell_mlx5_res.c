// SPDX-License-Identifier: GPL-2.0
/* cxbell_mlx5: device objects behind the backend operations.
 *
 * What mlx5e sets up for a function, reduced: a PD, a transport domain, a
 * physical-address mkey, a UAR doorbell register and a TIS per function;
 * per channel CQs on the channel's completion vector, a cyclic send queue
 * and a cyclic receive queue over the core's ring memory; for receive, a
 * 128-entry RQT the core's RSS table maps onto the live receive queues, a
 * one-entry RQT for channel 0, a TIR per traffic type, and two flow
 * tables in the kernel's NIC receive namespace: destination MAC, then
 * traffic type (mlx5e's L2 and TTC tables, en_fs.c, lib/fs_ttc.c).
 */
#include <linux/etherdevice.h>
#include <linux/io.h>
#include <linux/mlx5/mpfs.h>
#include <linux/mlx5/port.h>
#include <linux/mlx5/transobj.h>
#include <linux/mlx5/vport.h>

#include "cxbell_mlx5.h"
#include "cxbell_mlx5_compat.h"

/* ---- Memory: the core's coherent rings as physical address lists ----- */

/* PAS entries of @bytes of contiguous DMA memory at @dma, in the device's
 * 4 KiB pages (log_page_size 0).
 */
static unsigned int cxb_mlx5_npages(size_t bytes)
{
	return DIV_ROUND_UP(bytes, MLX5_ADAPTER_PAGE_SIZE);
}

static void cxb_mlx5_fill_pas(__be64 *pas, dma_addr_t dma, size_t bytes)
{
	unsigned int i;

	for (i = 0; i < cxb_mlx5_npages(bytes); i++)
		pas[i] = cpu_to_be64(dma + ((u64)i << MLX5_ADAPTER_PAGE_SHIFT));
}

/* The timestamp format of a queue's CQEs, for the @cap of its kind
 * (sq_ts_format, rq_ts_format): free running unless the device has only
 * real time (mlx5e's mlx5_is_real_time_sq() and _rq(), which also take
 * real time where both are offered and the clock runs; cxbell reads no
 * timestamp).
 */
static u8 cxb_mlx5_ts_format(u8 cap)
{
	return cap == MLX5_TIMESTAMP_FORMAT_CAP_REAL_TIME ?
	       MLX5_TIMESTAMP_FORMAT_REAL_TIME :
	       MLX5_TIMESTAMP_FORMAT_FREE_RUNNING;
}

/* ---- Completion queues -------------------------------------------------- */

/* The 4 KiB UAR page of the send doorbell register, mapped: the CQs ring
 * their arm doorbells there too (MLX5_CQ_DOORBELL), so one UAR serves
 * the function's queues on every kernel (mlx5_core's own UAR of CQs,
 * priv.uar, left 6.12's mlx5_priv).
 */
static void __iomem *cxb_mlx5_uar_page(struct cxb_mlx5_port *port)
{
	return (void __iomem *)((uintptr_t)port->bfreg.map &
				~(uintptr_t)(MLX5_ADAPTER_PAGE_SIZE - 1));
}

static void cxb_mlx5_cq_comp(struct mlx5_core_cq *mcq, struct mlx5_eqe *eqe)
{
	struct cxb_mlx5_cq *cq = container_of(mcq, struct cxb_mlx5_cq, mcq);

	cq->comp(cq->comp_ctx);
}

static void cxb_mlx5_cq_event(struct mlx5_core_cq *mcq, enum mlx5_event type)
{
	pr_warn_ratelimited(CXB_MLX5_DRV ": CQ 0x%x: async event %d\n",
			    mcq->cqn, type);
}

/* CREATE_CQ of 64-byte CQEs (mlx5e_create_cq()) on completion vector
 * @vector, its record at @db_dma (consumer index, then the arm word).
 */
static int cxb_mlx5_cq_create_hw(struct cxb_mlx5_port *port,
				 struct mlx5_core_cq *mcq, dma_addr_t buf_dma,
				 dma_addr_t db_dma, unsigned int log_entries,
				 unsigned int vector, u16 moder_cnt,
				 u16 moder_usecs)
{
	size_t bytes = (size_t)CXB_MLX5_CQE_SIZE << log_entries;
	u32 out[MLX5_ST_SZ_DW(create_cq_out)];
	struct mlx5_core_dev *mdev = port->mdev;
	int inlen, eqn, err;
	void *in, *cqc;

	err = cxb_mlx5_vector_eqn(mdev, vector, &eqn);
	if (err)
		return err;
	inlen = MLX5_ST_SZ_BYTES(create_cq_in) +
		sizeof(u64) * cxb_mlx5_npages(bytes);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, log_cq_size, log_entries);
	MLX5_SET(cqc, cqc, cqe_sz, CQE_STRIDE_64);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	MLX5_SET(cqc, cqc, uar_page, port->bfreg.index);
	MLX5_SET(cqc, cqc, log_page_size, 0);
	MLX5_SET64(cqc, cqc, dbr_addr, db_dma);
	if (MLX5_CAP_GEN(mdev, cq_moderation)) {
		/* 12 bits: a longer period set while down runs at the most */
		MLX5_SET(cqc, cqc, cq_period,
			 min_t(u16, moder_usecs, MLX5_MAX_CQ_PERIOD));
		MLX5_SET(cqc, cqc, cq_max_count, moder_cnt);
	}
	cxb_mlx5_fill_pas((__be64 *)MLX5_ADDR_OF(create_cq_in, in, pas),
			  buf_dma, bytes);
	/* No arm_db: the core writes the arm record itself. */
	mcq->cqe_sz = CXB_MLX5_CQE_SIZE;
	mcq->event = cxb_mlx5_cq_event;
	err = mlx5_core_create_cq(mdev, mcq, in, inlen, out, sizeof(out));
	kvfree(in);
	return err;
}

static int cxb_mlx5_cq_create(struct cxb_adev *cadev,
			      const struct cxb_cq_params *p,
			      struct cxb_cq_hw *hw)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	struct cxb_mlx5_cq *cq;
	int err;

	if (p->cqe_size != CXB_MLX5_CQE_SIZE)
		return -EINVAL;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return -ENOMEM;
	cq->comp = p->comp;
	cq->comp_ctx = p->comp_ctx;
	cq->mcq.comp = cxb_mlx5_cq_comp;
	err = cxb_mlx5_cq_create_hw(port, &cq->mcq, p->buf_dma, p->db_dma,
				    p->log_entries,
				    p->channel % cxb_mlx5_comp_vectors(port->mdev),
				    p->moder_cnt, p->moder_usecs);
	if (err) {
		kfree(cq);
		return err;
	}
	hw->cqn = cq->mcq.cqn;
	hw->db_reg = cxb_mlx5_uar_page(port) + MLX5_CQ_DOORBELL;
	hw->priv = cq;
	return 0;
}

static void cxb_mlx5_cq_destroy(struct cxb_adev *cadev, struct cxb_cq_hw *hw)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	struct cxb_mlx5_cq *cq = hw->priv;

	/* waits for a completion handler running on it, unless the
	 * command fails after the CQ left the EQ's table
	 */
	if (mlx5_core_destroy_cq(port->mdev, &cq->mcq))
		synchronize_irq(cq->mcq.irqn);
	kfree(cq);
}

static int cxb_mlx5_cq_moderate(struct cxb_adev *cadev, struct cxb_cq_hw *hw,
				u16 count, u16 usecs)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	struct cxb_mlx5_cq *cq = hw->priv;

	if (!MLX5_CAP_GEN(port->mdev, cq_moderation))
		return -EOPNOTSUPP;
	/* as mlx5e refuses it (mlx5e_ethtool_set_coalesce()) */
	if (usecs > MLX5_MAX_CQ_PERIOD)
		return -ERANGE;
	return mlx5_core_modify_cq_moderation(port->mdev, &cq->mcq, usecs,
					      count);
}

/* ---- Send queues -------------------------------------------------------- */

static void cxb_mlx5_destroy_sq_cmd(struct mlx5_core_dev *mdev, u32 sqn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_sq_in)] = {};

	MLX5_SET(destroy_sq_in, in, opcode, MLX5_CMD_OP_DESTROY_SQ);
	MLX5_SET(destroy_sq_in, in, sqn, sqn);
	mlx5_cmd_exec_in(mdev, destroy_sq, in);
}

/* CREATE_SQ (mlx5_core_create_sq() is mlx5_core's own), as
 * mlx5e_create_sq() fills it, then RST -> RDY (mlx5e_modify_sq()).
 */
static int cxb_mlx5_sq_create(struct cxb_adev *cadev,
			      const struct cxb_sq_params *p,
			      struct cxb_sq_hw *hw)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	size_t bytes = (size_t)1 << (p->log_entries + p->log_stride);
	u32 out[MLX5_ST_SZ_DW(create_sq_out)] = {};
	struct mlx5_core_dev *mdev = port->mdev;
	void *in, *sqc, *wq;
	int inlen, err;
	u32 sqn;

	inlen = MLX5_ST_SZ_BYTES(create_sq_in) +
		sizeof(u64) * cxb_mlx5_npages(bytes);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	sqc = MLX5_ADDR_OF(create_sq_in, in, ctx);
	wq = MLX5_ADDR_OF(sqc, sqc, wq);
	MLX5_SET(sqc, sqc, tis_lst_sz, 1);
	MLX5_SET(sqc, sqc, tis_num_0, port->tisn);
	MLX5_SET(sqc, sqc, cqn, p->cqn);
	if (MLX5_CAP_ETH(mdev, wqe_inline_mode) ==
	    MLX5_CAP_INLINE_MODE_VPORT_CONTEXT)
		MLX5_SET(sqc, sqc, min_wqe_inline_mode, port->min_inline);
	MLX5_SET(sqc, sqc, state, MLX5_SQC_STATE_RST);
	MLX5_SET(sqc, sqc, flush_in_error_en, 1);
	MLX5_SET(sqc, sqc, ts_format,
		 cxb_mlx5_ts_format(MLX5_CAP_GEN(mdev, sq_ts_format)));
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wq, pd, port->pdn);
	MLX5_SET(wq, wq, uar_page, port->bfreg.index);
	MLX5_SET(wq, wq, log_wq_stride, p->log_stride);
	MLX5_SET(wq, wq, log_wq_sz, p->log_entries);
	MLX5_SET(wq, wq, log_wq_pg_sz, 0);
	MLX5_SET64(wq, wq, dbr_addr, p->db_dma);
	cxb_mlx5_fill_pas((__be64 *)MLX5_ADDR_OF(wq, wq, pas), p->buf_dma,
			  bytes);
	err = mlx5_cmd_exec(mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		return err;
	sqn = MLX5_GET(create_sq_out, out, sqn);

	in = kvzalloc(MLX5_ST_SZ_BYTES(modify_sq_in), GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_destroy;
	}
	sqc = MLX5_ADDR_OF(modify_sq_in, in, ctx);
	MLX5_SET(modify_sq_in, in, sq_state, MLX5_SQC_STATE_RST);
	MLX5_SET(sqc, sqc, state, MLX5_SQC_STATE_RDY);
	err = mlx5_core_modify_sq(mdev, sqn, in);
	kvfree(in);
	if (err)
		goto err_destroy;

	hw->qpn = sqn;
	hw->db_reg = port->bfreg.map;
	/* BlueFlame needs the register mapped write-combining, and the
	 * 8-byte doorbells through it a flush the core does not do:
	 * none here, as mlx5e (6.1) uses none.
	 */
	hw->bf_reg = NULL;
	hw->bf_size = 0;
	return 0;

err_destroy:
	cxb_mlx5_destroy_sq_cmd(mdev, sqn);
	return err;
}

static void cxb_mlx5_sq_destroy(struct cxb_adev *cadev, struct cxb_sq_hw *hw)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);

	/* the device stops fetching; unexecuted WQEs are dropped */
	cxb_mlx5_destroy_sq_cmd(port->mdev, hw->qpn);
}

/* ---- Receive queues and the RQTs over them ------------------------------ */

/* A cyclic receive queue of @1 << log_entries WQEs of @1 << log_stride
 * bytes (mlx5e_create_rq()), then RST -> RDY (mlx5e_modify_rq_state()).
 */
static int cxb_mlx5_rq_create_hw(struct cxb_mlx5_port *port,
				 dma_addr_t buf_dma, dma_addr_t db_dma,
				 unsigned int log_entries,
				 unsigned int log_stride, u32 cqn,
				 bool vlan_strip, u32 *rqn)
{
	size_t bytes = (size_t)1 << (log_entries + log_stride);
	struct mlx5_core_dev *mdev = port->mdev;
	void *in, *rqc, *wq;
	int inlen, err;

	inlen = MLX5_ST_SZ_BYTES(create_rq_in) +
		sizeof(u64) * cxb_mlx5_npages(bytes);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	rqc = MLX5_ADDR_OF(create_rq_in, in, ctx);
	wq = MLX5_ADDR_OF(rqc, rqc, wq);
	/* vsd: VLAN strip disable */
	MLX5_SET(rqc, rqc, vsd, !vlan_strip);
	MLX5_SET(rqc, rqc, cqn, cqn);
	MLX5_SET(rqc, rqc, state, MLX5_RQC_STATE_RST);
	MLX5_SET(rqc, rqc, flush_in_error_en, 1);
	MLX5_SET(rqc, rqc, ts_format,
		 cxb_mlx5_ts_format(MLX5_CAP_GEN(mdev, rq_ts_format)));
	/* out_of_buffer: frames dropped for want of a posted buffer */
	MLX5_SET(rqc, rqc, counter_set_id, port->q_counter);
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wq, pd, port->pdn);
	MLX5_SET(wq, wq, log_wq_stride, log_stride);
	MLX5_SET(wq, wq, log_wq_sz, log_entries);
	MLX5_SET(wq, wq, log_wq_pg_sz, 0);
	MLX5_SET64(wq, wq, dbr_addr, db_dma);
	cxb_mlx5_fill_pas((__be64 *)MLX5_ADDR_OF(wq, wq, pas), buf_dma, bytes);
	err = mlx5_core_create_rq(mdev, in, inlen, rqn);
	kvfree(in);
	if (err)
		return err;

	in = kvzalloc(MLX5_ST_SZ_BYTES(modify_rq_in), GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_destroy;
	}
	rqc = MLX5_ADDR_OF(modify_rq_in, in, ctx);
	MLX5_SET(modify_rq_in, in, rq_state, MLX5_RQC_STATE_RST);
	MLX5_SET(rqc, rqc, state, MLX5_RQC_STATE_RDY);
	err = mlx5_core_modify_rq(mdev, *rqn, in);
	kvfree(in);
	if (!err)
		return 0;
err_destroy:
	mlx5_core_destroy_rq(mdev, *rqn);
	return err;
}

/* The queue of channel @ch, or the first live one, or the drop queue. */
static u32 cxb_mlx5_rqn(struct cxb_mlx5_port *port, unsigned int ch)
{
	unsigned int i;

	if (ch < CXB_MLX5_MAX_CHANNELS && port->rq[ch])
		return port->rq[ch];
	for (i = 0; i < CXB_MLX5_MAX_CHANNELS; i++)
		if (port->rq[i])
			return port->rq[i];
	return port->drop.rqn;
}

/* Fill an RQT context of @n entries: the RSS table's channels
 * (@direct: channel 0 alone) mapped onto the live queues.
 */
static void cxb_mlx5_rqtc_fill(struct cxb_mlx5_port *port, void *rqtc,
			       bool direct)
{
	unsigned int i, n = direct ? 1 : CXB_RSS_TABLE_SIZE;

	MLX5_SET(rqtc, rqtc, rqt_actual_size, n);
	for (i = 0; i < n; i++)
		MLX5_SET(rqtc, rqtc, rq_num[i],
			 cxb_mlx5_rqn(port, direct ? 0 : port->rss.table[i]));
}

static int cxb_mlx5_rqt_create(struct cxb_mlx5_port *port, bool direct,
			       u32 *rqtn)
{
	unsigned int n = direct ? 1 : CXB_RSS_TABLE_SIZE;
	int inlen = MLX5_ST_SZ_BYTES(create_rqt_in) + sizeof(u32) * n;
	void *in, *rqtc;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	rqtc = MLX5_ADDR_OF(create_rqt_in, in, rqt_context);
	MLX5_SET(rqtc, rqtc, rqt_max_size, n);
	cxb_mlx5_rqtc_fill(port, rqtc, direct);
	err = mlx5_core_create_rqt(port->mdev, in, inlen, rqtn);
	kvfree(in);
	return err;
}

/* MODIFY_RQT of its queue list (mlx5_core_modify_rqt() is mlx5_core's
 * own).
 */
static int cxb_mlx5_rqt_modify(struct cxb_mlx5_port *port, bool direct,
			       u32 rqtn)
{
	unsigned int n = direct ? 1 : CXB_RSS_TABLE_SIZE;
	int inlen = MLX5_ST_SZ_BYTES(modify_rqt_in) + sizeof(u32) * n;
	u32 out[MLX5_ST_SZ_DW(modify_rqt_out)] = {};
	void *in, *rqtc;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(modify_rqt_in, in, opcode, MLX5_CMD_OP_MODIFY_RQT);
	MLX5_SET(modify_rqt_in, in, rqtn, rqtn);
	MLX5_SET(modify_rqt_in, in, bitmask.rqn_list, 1);
	rqtc = MLX5_ADDR_OF(modify_rqt_in, in, ctx);
	cxb_mlx5_rqtc_fill(port, rqtc, direct);
	err = mlx5_cmd_exec(port->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	return err;
}

/* Point both RQTs at the live queues (port->lock held). */
static int cxb_mlx5_rqts_update(struct cxb_mlx5_port *port)
{
	int err;

	err = cxb_mlx5_rqt_modify(port, false, port->rqt_rss);
	if (!err)
		err = cxb_mlx5_rqt_modify(port, true, port->rqt_direct);
	return err;
}

static int cxb_mlx5_rq_create(struct cxb_adev *cadev,
			      const struct cxb_rq_params *p,
			      struct cxb_rq_hw *hw)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	struct cxb_mlx5_rq *rq;
	int err;

	if (p->channel >= CXB_MLX5_MAX_CHANNELS)
		return -EINVAL;
	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	if (!rq)
		return -ENOMEM;
	rq->channel = p->channel;
	err = cxb_mlx5_rq_create_hw(port, p->buf_dma, p->db_dma,
				    p->log_entries, p->log_stride, p->cqn,
				    p->vlan_strip, &rq->rqn);
	if (err) {
		kfree(rq);
		return err;
	}
	mutex_lock(&port->lock);
	port->rq[rq->channel] = rq->rqn;
	err = cxb_mlx5_rqts_update(port);
	if (err)
		port->rq[rq->channel] = 0;
	mutex_unlock(&port->lock);
	if (err) {
		mlx5_core_destroy_rq(port->mdev, rq->rqn);
		kfree(rq);
		return err;
	}
	hw->qpn = rq->rqn;
	hw->priv = rq;
	return 0;
}

static void cxb_mlx5_rq_destroy(struct cxb_adev *cadev, struct cxb_rq_hw *hw)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	struct cxb_mlx5_rq *rq = hw->priv;

	/* no RQT entry may name a queue that is gone */
	mutex_lock(&port->lock);
	port->rq[rq->channel] = 0;
	if (cxb_mlx5_rqts_update(port))
		dev_warn(&cadev->adev.dev, "RQT update failed\n");
	mutex_unlock(&port->lock);
	mlx5_core_destroy_rq(port->mdev, rq->rqn);
	kfree(rq);
}

/* The drop queue: a receive queue of one WQE, never posted, and its CQ
 * on vector 0, in one coherent buffer: CQ ring (4 KiB: 64 CQEs), receive
 * ring, then the two records.
 */
#define CXB_MLX5_DROP_CQ_LOG	6
#define CXB_MLX5_DROP_RQ_OFF	MLX5_ADAPTER_PAGE_SIZE
#define CXB_MLX5_DROP_DB_OFF	(2 * MLX5_ADAPTER_PAGE_SIZE)
#define CXB_MLX5_DROP_CQ_DB	64
#define CXB_MLX5_DROP_BYTES	(3 * MLX5_ADAPTER_PAGE_SIZE)

static int cxb_mlx5_drop_create(struct cxb_mlx5_port *port)
{
	struct cxb_mlx5_drop_rq *d = &port->drop;
	struct mlx5_cqe64 *cqe;
	unsigned int i;
	int err;

	d->buf = dma_alloc_coherent(port->mdev->device, CXB_MLX5_DROP_BYTES,
				    &d->buf_dma, GFP_KERNEL);
	if (!d->buf)
		return -ENOMEM;
	for (i = 0, cqe = d->buf; i < 1U << CXB_MLX5_DROP_CQ_LOG; i++)
		cqe[i].op_own = 0xf1;
	err = cxb_mlx5_cq_create_hw(port, &d->mcq, d->buf_dma,
				    d->buf_dma + CXB_MLX5_DROP_DB_OFF +
				    CXB_MLX5_DROP_CQ_DB,
				    CXB_MLX5_DROP_CQ_LOG, 0, 0, 0);
	if (err)
		goto err_free;
	err = cxb_mlx5_rq_create_hw(port, d->buf_dma + CXB_MLX5_DROP_RQ_OFF,
				    d->buf_dma + CXB_MLX5_DROP_DB_OFF, 0,
				    CXB_MLX5_RX_STRIDE_SHIFT, d->mcq.cqn, false,
				    &d->rqn);
	if (err)
		goto err_cq;
	d->created = true;
	return 0;

err_cq:
	mlx5_core_destroy_cq(port->mdev, &d->mcq);
err_free:
	dma_free_coherent(port->mdev->device, CXB_MLX5_DROP_BYTES, d->buf,
			  d->buf_dma);
	return err;
}

static void cxb_mlx5_drop_destroy(struct cxb_mlx5_port *port)
{
	struct cxb_mlx5_drop_rq *d = &port->drop;

	if (!d->created)
		return;
	mlx5_core_destroy_rq(port->mdev, d->rqn);
	mlx5_core_destroy_cq(port->mdev, &d->mcq);
	dma_free_coherent(port->mdev->device, CXB_MLX5_DROP_BYTES, d->buf,
			  d->buf_dma);
	d->created = false;
}

/* ---- TIRs --------------------------------------------------------------- */

/* The hash of a traffic type's TIR (mlx5e_rss_get_default_tt_config()). */
static void cxb_mlx5_tirc_hash(struct cxb_mlx5_port *port, void *tirc,
			       enum cxb_mlx5_tt tt)
{
	void *sel = MLX5_ADDR_OF(tirc, tirc, rx_hash_field_selector_outer);
	u32 fields = MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP;
	bool ipv6 = tt == CXB_MLX5_TT_IPV6_TCP || tt == CXB_MLX5_TT_IPV6_UDP ||
		    tt == CXB_MLX5_TT_IPV6;
	bool udp = tt == CXB_MLX5_TT_IPV4_UDP || tt == CXB_MLX5_TT_IPV6_UDP;

	if (tt == CXB_MLX5_TT_ANY) {
		/* no hash: everything to the one-entry table */
		MLX5_SET(tirc, tirc, rx_hash_fn, MLX5_RX_HASH_FN_INVERTED_XOR8);
		return;
	}
	MLX5_SET(tirc, tirc, rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
	memcpy(MLX5_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key), port->rss.key,
	       CXB_RSS_KEY_SIZE);
	MLX5_SET(rx_hash_field_select, sel, l3_prot_type,
		 ipv6 ? MLX5_L3_PROT_TYPE_IPV6 : MLX5_L3_PROT_TYPE_IPV4);
	if (tt <= CXB_MLX5_TT_IPV6_UDP) {
		MLX5_SET(rx_hash_field_select, sel, l4_prot_type,
			 udp ? MLX5_L4_PROT_TYPE_UDP : MLX5_L4_PROT_TYPE_TCP);
		fields |= MLX5_HASH_FIELD_SEL_L4_SPORT |
			  MLX5_HASH_FIELD_SEL_L4_DPORT;
	}
	MLX5_SET(rx_hash_field_select, sel, selected_fields, fields);
}

static int cxb_mlx5_tirs_create(struct cxb_mlx5_port *port)
{
	u32 in[MLX5_ST_SZ_DW(create_tir_in)];
	enum cxb_mlx5_tt tt;
	void *tirc;
	int err;

	for (tt = 0; tt < CXB_MLX5_NUM_TT; tt++) {
		memset(in, 0, sizeof(in));
		tirc = MLX5_ADDR_OF(create_tir_in, in, ctx);
		MLX5_SET(tirc, tirc, transport_domain, port->tdn);
		MLX5_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
		MLX5_SET(tirc, tirc, indirect_table,
			 tt == CXB_MLX5_TT_ANY ? port->rqt_direct :
						 port->rqt_rss);
		cxb_mlx5_tirc_hash(port, tirc, tt);
		err = mlx5_core_create_tir(port->mdev, in, &port->tirn[tt]);
		if (err)
			goto err_destroy;
	}
	return 0;

err_destroy:
	while (tt--)
		mlx5_core_destroy_tir(port->mdev, port->tirn[tt]);
	return err;
}

static void cxb_mlx5_tirs_destroy(struct cxb_mlx5_port *port)
{
	enum cxb_mlx5_tt tt;

	for (tt = 0; tt < CXB_MLX5_NUM_TT; tt++)
		mlx5_core_destroy_tir(port->mdev, port->tirn[tt]);
}

/* MODIFY_TIR of the hash (a new key; mlx5e_modify_tirs_hash()) */
static int cxb_mlx5_tirs_rehash(struct cxb_mlx5_port *port)
{
	u32 out[MLX5_ST_SZ_DW(modify_tir_out)] = {};
	u32 in[MLX5_ST_SZ_DW(modify_tir_in)];
	enum cxb_mlx5_tt tt;
	int err;

	for (tt = 0; tt < CXB_MLX5_TT_ANY; tt++) {
		memset(in, 0, sizeof(in));
		MLX5_SET(modify_tir_in, in, opcode, MLX5_CMD_OP_MODIFY_TIR);
		MLX5_SET(modify_tir_in, in, tirn, port->tirn[tt]);
		MLX5_SET(modify_tir_in, in, bitmask.hash, 1);
		cxb_mlx5_tirc_hash(port, MLX5_ADDR_OF(modify_tir_in, in, ctx),
				   tt);
		err = mlx5_cmd_exec(port->mdev, in, sizeof(in), out,
				    sizeof(out));
		if (err)
			return err;
	}
	return 0;
}

/* ---- Flow steering ------------------------------------------------------ */

/* Destination MAC table rules, the traffic type table's rules after
 * them (both tables auto-grouped: groups, and so precedence, in the
 * order rules are first added with a new set of criteria).
 */
#define CXB_MLX5_L2_FTES	(2 * (CXB_MLX5_MAX_UC + CXB_MLX5_MAX_MC) + 4)
#define CXB_MLX5_L2_GROUPS	3
#define CXB_MLX5_TTC_GROUPS	3

static struct mlx5_flow_handle *
cxb_mlx5_rule_to(struct mlx5_flow_table *ft, struct mlx5_flow_spec *spec,
		 struct mlx5_flow_destination *dest)
{
	MLX5_DECLARE_FLOW_ACT(flow_act);

	return mlx5_add_flow_rules(ft, spec, &flow_act, dest, 1);
}

/* A rule of the L2 table: destination MAC @mac (under @mask) to the
 * traffic type table; @mask all zero: every frame.
 */
static struct mlx5_flow_handle *cxb_mlx5_l2_rule(struct cxb_mlx5_port *port,
						 const u8 *mac,
						 const u8 *mask)
{
	struct mlx5_flow_destination dest = {
		.type = MLX5_FLOW_DESTINATION_TYPE_FLOW_TABLE,
		.ft = port->ft_ttc,
	};
	struct mlx5_flow_handle *rule;
	struct mlx5_flow_spec *spec;

	spec = kvzalloc(sizeof(*spec), GFP_KERNEL);
	if (!spec)
		return ERR_PTR(-ENOMEM);
	if (!is_zero_ether_addr(mask)) {
		spec->match_criteria_enable = MLX5_MATCH_OUTER_HEADERS;
		ether_addr_copy(MLX5_ADDR_OF(fte_match_param,
					     spec->match_criteria,
					     outer_headers.dmac_47_16), mask);
		ether_addr_copy(MLX5_ADDR_OF(fte_match_param,
					     spec->match_value,
					     outer_headers.dmac_47_16), mac);
	}
	rule = cxb_mlx5_rule_to(port->ft_l2, spec, &dest);
	kvfree(spec);
	return rule;
}

static const u8 cxb_mlx5_mask_all[ETH_ALEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff
};

static const u8 cxb_mlx5_mask_mc[ETH_ALEN] = { 0x01 };
static const u8 cxb_mlx5_mask_none[ETH_ALEN];

static void cxb_mlx5_del_rule(struct mlx5_flow_handle **rule)
{
	if (*rule) {
		mlx5_del_flow_rules(*rule);
		*rule = NULL;
	}
}

/* A steered address goes: its rule, and a unicast one's entry in the
 * multi-PF switch (MPFS, refcounted by mlx5_core).
 */
static void cxb_mlx5_addr_del(struct cxb_mlx5_port *port,
			      struct cxb_mlx5_addr *a, bool uc)
{
	if (!a->rule)
		return;
	cxb_mlx5_del_rule(&a->rule);
	if (uc)
		mlx5_mpfs_del_mac(port->mdev, a->mac);
}

/* The traffic type table's rules: ethertype and IP protocol to the
 * type's TIR, most specific first (mlx5e's ttc_rules[]).
 */
static int cxb_mlx5_ttc_rules(struct cxb_mlx5_port *port)
{
	static const struct {
		u16 etype;
		u8 proto;
	} m[CXB_MLX5_NUM_TT] = {
		[CXB_MLX5_TT_IPV4_TCP] = { ETH_P_IP, IPPROTO_TCP },
		[CXB_MLX5_TT_IPV6_TCP] = { ETH_P_IPV6, IPPROTO_TCP },
		[CXB_MLX5_TT_IPV4_UDP] = { ETH_P_IP, IPPROTO_UDP },
		[CXB_MLX5_TT_IPV6_UDP] = { ETH_P_IPV6, IPPROTO_UDP },
		[CXB_MLX5_TT_IPV4] = { ETH_P_IP, 0 },
		[CXB_MLX5_TT_IPV6] = { ETH_P_IPV6, 0 },
	};
	struct mlx5_flow_destination dest = {
		.type = MLX5_FLOW_DESTINATION_TYPE_TIR,
	};
	struct mlx5_flow_spec *spec;
	enum cxb_mlx5_tt tt;
	int err = 0;

	spec = kvzalloc(sizeof(*spec), GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	for (tt = 0; tt < CXB_MLX5_NUM_TT; tt++) {
		memset(spec, 0, sizeof(*spec));
		if (m[tt].etype) {
			spec->match_criteria_enable = MLX5_MATCH_OUTER_HEADERS;
			MLX5_SET_TO_ONES(fte_match_param, spec->match_criteria,
					 outer_headers.ethertype);
			MLX5_SET(fte_match_param, spec->match_value,
				 outer_headers.ethertype, m[tt].etype);
		}
		if (m[tt].proto) {
			MLX5_SET_TO_ONES(fte_match_param, spec->match_criteria,
					 outer_headers.ip_protocol);
			MLX5_SET(fte_match_param, spec->match_value,
				 outer_headers.ip_protocol, m[tt].proto);
		}
		dest.tir_num = port->tirn[tt];
		port->ttc_rule[tt] = cxb_mlx5_rule_to(port->ft_ttc, spec,
						      &dest);
		if (IS_ERR(port->ttc_rule[tt])) {
			err = PTR_ERR(port->ttc_rule[tt]);
			port->ttc_rule[tt] = NULL;
			break;
		}
	}
	kvfree(spec);
	return err;
}

static void cxb_mlx5_steering_destroy(struct cxb_mlx5_port *port)
{
	enum cxb_mlx5_tt tt;
	unsigned int i;

	if (!port->ft_l2)
		return;
	for (i = 0; i < port->n_uc; i++)
		cxb_mlx5_addr_del(port, &port->uc[i], true);
	for (i = 0; i < port->n_mc; i++)
		cxb_mlx5_addr_del(port, &port->mc[i], false);
	port->n_uc = 0;
	port->n_mc = 0;
	cxb_mlx5_del_rule(&port->promisc_rule);
	cxb_mlx5_del_rule(&port->allmulti_rule);
	cxb_mlx5_del_rule(&port->bcast_rule);
	for (tt = 0; tt < CXB_MLX5_NUM_TT; tt++)
		cxb_mlx5_del_rule(&port->ttc_rule[tt]);
	mlx5_destroy_flow_table(port->ft_l2);
	port->ft_l2 = NULL;
	mlx5_destroy_flow_table(port->ft_ttc);
	port->ft_ttc = NULL;
}

/* The two tables in the kernel's NIC receive namespace, at mlx5e's NIC
 * priority (MLX5E_NIC_PRIO), the L2 one the first level: the root of the
 * function's receive steering while mlx5e is not bound. Broadcast is
 * steered from the start; the core adds the addresses.
 */
static int cxb_mlx5_steering_create(struct cxb_mlx5_port *port)
{
	struct mlx5_flow_table_attr attr = {};
	struct mlx5_flow_namespace *ns;
	u8 bcast[ETH_ALEN];
	int err;

	ns = mlx5_get_flow_namespace(port->mdev, MLX5_FLOW_NAMESPACE_KERNEL);
	if (!ns)
		return -EOPNOTSUPP;
	attr.prio = CXB_MLX5_NIC_PRIO;
	attr.level = 1;
	attr.max_fte = CXB_MLX5_NUM_TT;
	attr.autogroup.max_num_groups = CXB_MLX5_TTC_GROUPS;
	port->ft_ttc = mlx5_create_auto_grouped_flow_table(ns, &attr);
	if (IS_ERR(port->ft_ttc)) {
		err = PTR_ERR(port->ft_ttc);
		port->ft_ttc = NULL;
		return err;
	}
	attr.level = 0;
	attr.max_fte = CXB_MLX5_L2_FTES;
	attr.autogroup.max_num_groups = CXB_MLX5_L2_GROUPS;
	port->ft_l2 = mlx5_create_auto_grouped_flow_table(ns, &attr);
	if (IS_ERR(port->ft_l2)) {
		err = PTR_ERR(port->ft_l2);
		port->ft_l2 = NULL;
		mlx5_destroy_flow_table(port->ft_ttc);
		port->ft_ttc = NULL;
		return err;
	}
	err = cxb_mlx5_ttc_rules(port);
	if (err)
		goto err;
	eth_broadcast_addr(bcast);
	port->bcast_rule = cxb_mlx5_l2_rule(port, bcast, cxb_mlx5_mask_all);
	if (IS_ERR(port->bcast_rule)) {
		err = PTR_ERR(port->bcast_rule);
		port->bcast_rule = NULL;
		goto err;
	}
	return 0;
err:
	cxb_mlx5_steering_destroy(port);
	return err;
}

/* Steer @n addresses of @mac into @dst (new rules; @uc: unicast, each
 * in the MPFS too, as mlx5e_execute_l2_action() does), none on error.
 */
static int cxb_mlx5_addrs_add(struct cxb_mlx5_port *port,
			      struct cxb_mlx5_addr *dst,
			      const u8 (*mac)[ETH_ALEN], unsigned int n,
			      bool uc)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		ether_addr_copy(dst[i].mac, mac[i]);
		err = uc ? mlx5_mpfs_add_mac(port->mdev, dst[i].mac) : 0;
		if (err)
			goto err;
		dst[i].rule = cxb_mlx5_l2_rule(port, mac[i], cxb_mlx5_mask_all);
		if (IS_ERR(dst[i].rule)) {
			err = PTR_ERR(dst[i].rule);
			dst[i].rule = NULL;
			if (uc)
				mlx5_mpfs_del_mac(port->mdev, dst[i].mac);
			goto err;
		}
	}
	return 0;
err:
	while (i--)
		cxb_mlx5_addr_del(port, &dst[i], uc);
	return err;
}

/* Replace the steered addresses and modes with @f: the new rules first
 * (the table holds both sets), then the old ones go; on an error the
 * new ones go and the old filter stays.
 */
static int cxb_mlx5_set_rx_filter(struct cxb_adev *cadev,
				  const struct cxb_rx_filter *f)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	struct mlx5_flow_handle *promisc = NULL, *allmulti = NULL;
	struct cxb_mlx5_addr *uc, *mc;
	unsigned int i;
	int err;

	if (f->n_uc > CXB_MLX5_MAX_UC || f->n_mc > CXB_MLX5_MAX_MC)
		return -EINVAL;
	uc = kcalloc(CXB_MLX5_MAX_UC + CXB_MLX5_MAX_MC, sizeof(*uc),
		     GFP_KERNEL);
	if (!uc)
		return -ENOMEM;
	mc = uc + CXB_MLX5_MAX_UC;

	mutex_lock(&port->lock);
	err = -ENETDOWN;
	if (!port->open)
		goto out;
	err = cxb_mlx5_addrs_add(port, uc, f->uc, f->n_uc, true);
	if (err)
		goto out;
	err = cxb_mlx5_addrs_add(port, mc, f->mc, f->n_mc, false);
	if (err)
		goto err_uc;
	if (f->allmulti) {
		allmulti = cxb_mlx5_l2_rule(port, cxb_mlx5_mask_mc,
					    cxb_mlx5_mask_mc);
		if (IS_ERR(allmulti)) {
			err = PTR_ERR(allmulti);
			allmulti = NULL;
			goto err_mc;
		}
	}
	if (f->promisc) {
		promisc = cxb_mlx5_l2_rule(port, cxb_mlx5_mask_none,
					   cxb_mlx5_mask_none);
		if (IS_ERR(promisc)) {
			err = PTR_ERR(promisc);
			promisc = NULL;
			goto err_mc;
		}
	}

	for (i = 0; i < port->n_uc; i++)
		cxb_mlx5_addr_del(port, &port->uc[i], true);
	for (i = 0; i < port->n_mc; i++)
		cxb_mlx5_addr_del(port, &port->mc[i], false);
	cxb_mlx5_del_rule(&port->allmulti_rule);
	cxb_mlx5_del_rule(&port->promisc_rule);
	memcpy(port->uc, uc, f->n_uc * sizeof(*uc));
	memcpy(port->mc, mc, f->n_mc * sizeof(*mc));
	port->n_uc = f->n_uc;
	port->n_mc = f->n_mc;
	port->allmulti_rule = allmulti;
	port->promisc_rule = promisc;
	err = 0;
	goto out;

err_mc:
	if (allmulti)
		mlx5_del_flow_rules(allmulti);
	for (i = 0; i < f->n_mc; i++)
		cxb_mlx5_addr_del(port, &mc[i], false);
err_uc:
	for (i = 0; i < f->n_uc; i++)
		cxb_mlx5_addr_del(port, &uc[i], true);
out:
	mutex_unlock(&port->lock);
	kfree(uc);
	return err;
}

static int cxb_mlx5_set_rss(struct cxb_adev *cadev, const struct cxb_rss *rss)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	struct cxb_rss old;
	bool rekey;
	int err;

	mutex_lock(&port->lock);
	if (!port->open) {
		mutex_unlock(&port->lock);
		return -ENETDOWN;
	}
	old = port->rss;
	rekey = memcmp(old.key, rss->key, CXB_RSS_KEY_SIZE);
	port->rss = *rss;
	err = cxb_mlx5_rqt_modify(port, false, port->rqt_rss);
	if (!err && rekey)
		err = cxb_mlx5_tirs_rehash(port);
	if (err) {
		port->rss = old;
		cxb_mlx5_rqt_modify(port, false, port->rqt_rss);
		if (rekey)
			cxb_mlx5_tirs_rehash(port);
	}
	mutex_unlock(&port->lock);
	return err;
}

/* ---- Port: access registers, open, close -------------------------------- */

static int cxb_mlx5_reg(struct mlx5_core_dev *mdev, void *in, int size,
			void *out, u16 reg, bool write)
{
	return mlx5_core_access_reg(mdev, in, size, out, size, reg, 0, write);
}

/* PAOS admin status (mlx5_set_port_admin_status(), not exported by
 * every kernel)
 */
static int cxb_mlx5_set_admin(struct mlx5_core_dev *mdev, bool up)
{
	u32 out[MLX5_ST_SZ_DW(paos_reg)] = {};
	u32 in[MLX5_ST_SZ_DW(paos_reg)] = {};

	MLX5_SET(paos_reg, in, local_port, 1);
	MLX5_SET(paos_reg, in, admin_status, up ? MLX5_PORT_UP : MLX5_PORT_DOWN);
	MLX5_SET(paos_reg, in, ase, 1);
	return cxb_mlx5_reg(mdev, in, sizeof(in), out, MLX5_REG_PAOS, true);
}

/* PMTU and the vport's MTU, of frames with headers and FCS
 * (mlx5e_set_mtu())
 */
static int cxb_mlx5_program_mtu(struct cxb_mlx5_port *port, unsigned int mtu)
{
	u32 out[MLX5_ST_SZ_DW(pmtu_reg)] = {};
	u32 in[MLX5_ST_SZ_DW(pmtu_reg)] = {};
	u16 hw = mtu + CXB_MLX5_HARD_MTU;
	int err;

	MLX5_SET(pmtu_reg, in, local_port, 1);
	MLX5_SET(pmtu_reg, in, admin_mtu, hw);
	err = cxb_mlx5_reg(port->mdev, in, sizeof(in), out, MLX5_REG_PMTU,
			   true);
	/* as mlx5e_set_mtu(), which ignores the vport's answer */
	if (!err && mlx5_modify_nic_vport_mtu(port->mdev, hw))
		dev_warn(&port->cadev.adev.dev, "vport MTU %u not set\n", hw);
	return err;
}

static int cxb_mlx5_set_mtu(struct cxb_adev *cadev, unsigned int mtu)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	int err = 0;

	mutex_lock(&port->lock);
	if (port->open)
		err = cxb_mlx5_program_mtu(port, mtu);
	if (!err)
		port->mtu = mtu;
	mutex_unlock(&port->lock);
	return err;
}

static void cxb_mlx5_get_pause(struct cxb_adev *cadev, bool *rx, bool *tx)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	u32 out[MLX5_ST_SZ_DW(pfcc_reg)] = {};
	u32 in[MLX5_ST_SZ_DW(pfcc_reg)] = {};

	*rx = false;
	*tx = false;
	MLX5_SET(pfcc_reg, in, local_port, 1);
	if (cxb_mlx5_reg(port->mdev, in, sizeof(in), out, MLX5_REG_PFCC,
			 false))
		return;
	*rx = MLX5_GET(pfcc_reg, out, pprx);
	*tx = MLX5_GET(pfcc_reg, out, pptx);
}

static int cxb_mlx5_set_pause(struct cxb_adev *cadev, bool rx, bool tx)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	u32 out[MLX5_ST_SZ_DW(pfcc_reg)] = {};
	u32 in[MLX5_ST_SZ_DW(pfcc_reg)] = {};

	MLX5_SET(pfcc_reg, in, local_port, 1);
	MLX5_SET(pfcc_reg, in, pptx, tx);
	MLX5_SET(pfcc_reg, in, pprx, rx);
	return cxb_mlx5_reg(port->mdev, in, sizeof(in), out, MLX5_REG_PFCC,
			    true);
}

/* Mb/s of the one operational protocol of PTYS, by its bit (enum
 * mlx5e_link_mode and enum mlx5e_ext_link_mode of linux/mlx5/port.h,
 * with the speeds of mlx5e's en/port.c tables)
 */
static u32 cxb_mlx5_proto_speed(u32 oper, bool ext)
{
	static const u32 legacy[MLX5E_LINK_MODES_NUMBER] = {
		[MLX5E_1000BASE_CX_SGMII] = SPEED_1000,
		[MLX5E_1000BASE_KX] = SPEED_1000,
		[MLX5E_10GBASE_CX4] = SPEED_10000,
		[MLX5E_10GBASE_KX4] = SPEED_10000,
		[MLX5E_10GBASE_KR] = SPEED_10000,
		[MLX5E_20GBASE_KR2] = SPEED_20000,
		[MLX5E_40GBASE_CR4] = SPEED_40000,
		[MLX5E_40GBASE_KR4] = SPEED_40000,
		[MLX5E_56GBASE_R4] = SPEED_56000,
		[MLX5E_10GBASE_CR] = SPEED_10000,
		[MLX5E_10GBASE_SR] = SPEED_10000,
		[MLX5E_10GBASE_ER] = SPEED_10000,
		[MLX5E_40GBASE_SR4] = SPEED_40000,
		[MLX5E_40GBASE_LR4] = SPEED_40000,
		[MLX5E_50GBASE_SR2] = SPEED_50000,
		[MLX5E_100GBASE_CR4] = SPEED_100000,
		[MLX5E_100GBASE_SR4] = SPEED_100000,
		[MLX5E_100GBASE_KR4] = SPEED_100000,
		[MLX5E_100GBASE_LR4] = SPEED_100000,
		[MLX5E_100BASE_TX] = SPEED_100,
		[MLX5E_1000BASE_T] = SPEED_1000,
		[MLX5E_10GBASE_T] = SPEED_10000,
		[MLX5E_25GBASE_CR] = SPEED_25000,
		[MLX5E_25GBASE_KR] = SPEED_25000,
		[MLX5E_25GBASE_SR] = SPEED_25000,
		[MLX5E_50GBASE_CR2] = SPEED_50000,
		[MLX5E_50GBASE_KR2] = SPEED_50000,
	};
	/* by bit: the enum's names change between kernels */
	static const u32 extended[] = {
		[0] = SPEED_100,	/* SGMII_100M */
		[1] = SPEED_1000,	/* 1000BASE_X_SGMII */
		[3] = SPEED_5000,	/* 5GBASE_R */
		[4] = SPEED_10000,	/* 10GBASE_XFI_XAUI_1 */
		[5] = SPEED_40000,	/* 40GBASE_XLAUI_4_XLPPI_4 */
		[6] = SPEED_25000,	/* 25GAUI_1_25GBASE_CR_KR */
		[7] = SPEED_50000,	/* 50GAUI_2_LAUI_2_50GBASE_CR2_KR2 */
		[8] = SPEED_50000,	/* 50GAUI_1_LAUI_1_50GBASE_CR_KR */
		[9] = SPEED_100000,	/* CAUI_4_100GBASE_CR4_KR4 */
		[10] = SPEED_100000,	/* 100GAUI_2_100GBASE_CR2_KR2 */
		[11] = SPEED_100000,	/* 100GAUI_1_100GBASE_CR_KR */
		[12] = SPEED_200000,	/* 200GAUI_4_200GBASE_CR4_KR4 */
		[13] = SPEED_200000,	/* 200GAUI_2_200GBASE_CR2_KR2 */
		[15] = SPEED_400000,	/* 400GAUI_8(_400GBASE_CR8) */
		[16] = SPEED_400000,	/* 400GAUI_4_400GBASE_CR4_KR4 */
		[19] = 800000,		/* 800GAUI_8_800GBASE_CR8_KR8 (SPEED_800000 from 6.2) */
	};
	unsigned int bit = oper ? __fls(oper) : 0;
	u32 speed = 0;

	if (!oper)
		return SPEED_UNKNOWN;
	if (ext && bit < ARRAY_SIZE(extended))
		speed = extended[bit];
	else if (!ext && bit < ARRAY_SIZE(legacy))
		speed = legacy[bit];
	return speed ?: SPEED_UNKNOWN;
}

/* The link's speed and connector from PTYS, as mlx5e's get_link_ksettings
 * reports them (ext_eth_proto_oper where the port has the extended
 * protocols, the connector where PTYS reports it), link modes left to
 * the core.
 */
static void cxb_mlx5_get_link_info(struct cxb_adev *cadev,
				   struct cxb_link_info *li)
{
	static const u8 connector[MLX5E_CONNECTOR_TYPE_NUMBER] = {
		[MLX5E_PORT_UNKNOWN] = PORT_OTHER,
		[MLX5E_PORT_NONE] = PORT_NONE,
		[MLX5E_PORT_TP] = PORT_TP,
		[MLX5E_PORT_AUI] = PORT_AUI,
		[MLX5E_PORT_BNC] = PORT_BNC,
		[MLX5E_PORT_MII] = PORT_MII,
		[MLX5E_PORT_FIBRE] = PORT_FIBRE,
		[MLX5E_PORT_DA] = PORT_DA,
		[MLX5E_PORT_OTHER] = PORT_OTHER,
	};
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	struct mlx5_core_dev *mdev = port->mdev;
	u32 out[MLX5_ST_SZ_DW(ptys_reg)] = {};
	u32 in[MLX5_ST_SZ_DW(ptys_reg)] = {};
	bool ext = MLX5_CAP_PCAM_FEATURE(mdev, ptys_extended_ethernet);
	u8 type;

	MLX5_SET(ptys_reg, in, local_port, 1);
	MLX5_SET(ptys_reg, in, proto_mask, MLX5_PTYS_EN);
	if (cxb_mlx5_reg(mdev, in, sizeof(in), out, MLX5_REG_PTYS, false))
		return;
	li->speed = cxb_mlx5_proto_speed(ext ?
		MLX5_GET(ptys_reg, out, ext_eth_proto_oper) :
		MLX5_GET(ptys_reg, out, eth_proto_oper), ext);
	type = MLX5_GET(ptys_reg, out, connector_type);
	li->port = MLX5_CAP_PCAM_FEATURE(mdev, ptys_connector_type) &&
		   type < ARRAY_SIZE(connector) ? connector[type] : PORT_OTHER;
}

static bool cxb_mlx5_link_up(struct cxb_adev *cadev)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);

	return READ_ONCE(port->link_up);
}

/* mlx5e_open_locked(), reduced: MTU, RQTs over the live queues, the
 * steering tables, admin up; then the link state.
 */
static int cxb_mlx5_open(struct cxb_adev *cadev, cxb_link_fn link_cb,
			 void *ctx)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	int err;

	mutex_lock(&port->lock);
	/* every frame to channel 0 until the core's set_rss() */
	memset(port->rss.table, 0, sizeof(port->rss.table));
	err = cxb_mlx5_program_mtu(port, port->mtu);
	if (!err)
		err = cxb_mlx5_rqts_update(port);
	if (!err)
		err = cxb_mlx5_steering_create(port);
	if (err)
		goto out;
	err = cxb_mlx5_set_admin(port->mdev, true);
	if (err) {
		cxb_mlx5_steering_destroy(port);
		goto out;
	}
	port->open = true;
	/* the callback first: a port change from now on reaches the core,
	 * and the state read below is never older than one it reported
	 */
	spin_lock_irq(&port->link_lock);
	port->link_cb = link_cb;
	port->link_ctx = ctx;
	spin_unlock_irq(&port->link_lock);
	schedule_work(&port->link_work);
out:
	mutex_unlock(&port->lock);
	return err;
}

static void cxb_mlx5_close(struct cxb_adev *cadev)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);

	spin_lock_irq(&port->link_lock);
	port->link_cb = NULL;
	port->link_ctx = NULL;
	port->link_up = false;
	spin_unlock_irq(&port->link_lock);
	mutex_lock(&port->lock);
	cxb_mlx5_set_admin(port->mdev, false);
	cxb_mlx5_steering_destroy(port);
	port->open = false;
	mutex_unlock(&port->lock);
}

/* ---- Port counters ------------------------------------------------------ */

/* ALLOC_Q_COUNTER (raw, as mlx5e_create_q_counters()) */
static int cxb_mlx5_alloc_q_counter(struct cxb_mlx5_port *port)
{
	u32 out[MLX5_ST_SZ_DW(alloc_q_counter_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_q_counter_in)] = {};
	int err;

	MLX5_SET(alloc_q_counter_in, in, opcode, MLX5_CMD_OP_ALLOC_Q_COUNTER);
	err = mlx5_cmd_exec_inout(port->mdev, alloc_q_counter, in, out);
	if (!err)
		port->q_counter = MLX5_GET(alloc_q_counter_out, out,
					   counter_set_id);
	return err;
}

static void cxb_mlx5_dealloc_q_counter(struct cxb_mlx5_port *port)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_q_counter_in)] = {};

	MLX5_SET(dealloc_q_counter_in, in, opcode,
		 MLX5_CMD_OP_DEALLOC_Q_COUNTER);
	MLX5_SET(dealloc_q_counter_in, in, counter_set_id, port->q_counter);
	mlx5_cmd_exec_in(port->mdev, dealloc_q_counter, in);
}

/* A 64-bit counter of PPCNT's 802.3 group, in its two halves */
#define CXB_MLX5_802_3(out, fld) ({					\
	const void *_o = (out);						\
	(u64)MLX5_GET(ppcnt_reg, _o,					\
		counter_set.eth_802_3_cntrs_grp_data_layout.fld##_high) << 32 | \
	MLX5_GET(ppcnt_reg, _o,						\
		counter_set.eth_802_3_cntrs_grp_data_layout.fld##_low); })

/* The counters get_port_stats() reports, read with commands (mlx5e's
 * update_stats_work): out_of_buffer of the queue counter set, which
 * wraps at 32 bits and is summed here, and the 802.3 group of PPCNT:
 * frames with a bad FCS (mlx5e's rx_crc_errors_phy) and frames too long
 * for the port (dropped before any queue too).
 */
void cxb_mlx5_stats_work(struct work_struct *work)
{
	struct cxb_mlx5_port *port = container_of(work, struct cxb_mlx5_port,
						  stats_work);
	u32 qout[MLX5_ST_SZ_DW(query_q_counter_out)] = {};
	u32 qin[MLX5_ST_SZ_DW(query_q_counter_in)] = {};
	u32 out[MLX5_ST_SZ_DW(ppcnt_reg)] = {};
	u32 in[MLX5_ST_SZ_DW(ppcnt_reg)] = {};
	u64 crc = 0, too_long = 0;
	bool ppcnt;
	u32 oob;

	MLX5_SET(query_q_counter_in, qin, opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
	MLX5_SET(query_q_counter_in, qin, counter_set_id, port->q_counter);
	if (mlx5_cmd_exec_inout(port->mdev, query_q_counter, qin, qout))
		return;
	oob = MLX5_GET(query_q_counter_out, qout, out_of_buffer);

	MLX5_SET(ppcnt_reg, in, local_port, 1);
	MLX5_SET(ppcnt_reg, in, grp, MLX5_IEEE_802_3_COUNTERS_GROUP);
	ppcnt = !mlx5_core_access_reg(port->mdev, in, sizeof(in), out,
				      sizeof(out), MLX5_REG_PPCNT, 0, 0);
	if (ppcnt) {
		crc = CXB_MLX5_802_3(out, a_frame_check_sequence_errors);
		too_long = CXB_MLX5_802_3(out, a_frame_too_long_errors);
	}

	spin_lock_bh(&port->stats_lock);
	port->rx_oob += (u32)(oob - port->oob_last);
	port->oob_last = oob;
	if (ppcnt) {
		/* the port's own, never cleared: as they are */
		port->rx_crc = crc;
		port->rx_too_long = too_long;
	}
	spin_unlock_bh(&port->stats_lock);
}

/* Any context: the last counters read, and a read of newer ones. */
static void cxb_mlx5_get_port_stats(struct cxb_adev *cadev,
				    struct cxb_port_stats *s)
{
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(cadev);
	unsigned long flags;

	spin_lock_irqsave(&port->stats_lock, flags);
	s->rx_dropped = port->rx_oob + port->rx_too_long;
	s->rx_crc_errors = port->rx_crc;
	spin_unlock_irqrestore(&port->stats_lock, flags);
	schedule_work(&port->stats_work);
}

/* ---- Function ----------------------------------------------------------- */

/* The physical-address mkey of every data segment (mlx5e_create_mkey()) */
static int cxb_mlx5_create_mkey(struct cxb_mlx5_port *port)
{
	int inlen = MLX5_ST_SZ_BYTES(create_mkey_in);
	void *mkc;
	u32 *in;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
	MLX5_SET(mkc, mkc, lw, 1);
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, pd, port->pdn);
	MLX5_SET(mkc, mkc, length64, 1);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	err = mlx5_core_create_mkey(port->mdev, &port->mkey, in, inlen);
	kvfree(in);
	return err;
}

static int cxb_mlx5_create_tis(struct cxb_mlx5_port *port)
{
	u32 in[MLX5_ST_SZ_DW(create_tis_in)] = {};
	void *tisc = MLX5_ADDR_OF(create_tis_in, in, ctx);

	MLX5_SET(tisc, tisc, prio, 0);
	MLX5_SET(tisc, tisc, transport_domain, port->tdn);
	return mlx5_core_create_tis(port->mdev, in, &port->tisn);
}

/* mlx5e_create_mdev_resources() and a TIS, the drop queue, the RQTs on
 * it and the TIRs on them.
 */
int cxb_mlx5_port_res_init(struct cxb_mlx5_port *port)
{
	struct mlx5_core_dev *mdev = port->mdev;
	int err;

	err = mlx5_core_alloc_pd(mdev, &port->pdn);
	if (err)
		return err;
	err = mlx5_core_alloc_transport_domain(mdev, &port->tdn);
	if (err)
		goto err_pd;
	err = cxb_mlx5_create_mkey(port);
	if (err)
		goto err_td;
	err = mlx5_alloc_bfreg(mdev, &port->bfreg, false, false);
	if (err)
		goto err_mkey;
	err = cxb_mlx5_create_tis(port);
	if (err)
		goto err_bfreg;
	err = cxb_mlx5_alloc_q_counter(port);
	if (err)
		goto err_tis;
	err = cxb_mlx5_drop_create(port);
	if (err)
		goto err_q_counter;
	err = cxb_mlx5_rqt_create(port, false, &port->rqt_rss);
	if (err)
		goto err_drop;
	err = cxb_mlx5_rqt_create(port, true, &port->rqt_direct);
	if (err)
		goto err_rqt;
	err = cxb_mlx5_tirs_create(port);
	if (err)
		goto err_rqt_direct;
	return 0;

err_rqt_direct:
	mlx5_core_destroy_rqt(mdev, port->rqt_direct);
err_rqt:
	mlx5_core_destroy_rqt(mdev, port->rqt_rss);
err_drop:
	cxb_mlx5_drop_destroy(port);
err_q_counter:
	cxb_mlx5_dealloc_q_counter(port);
err_tis:
	mlx5_core_destroy_tis(mdev, port->tisn);
err_bfreg:
	mlx5_free_bfreg(mdev, &port->bfreg);
err_mkey:
	mlx5_core_destroy_mkey(mdev, port->mkey);
err_td:
	mlx5_core_dealloc_transport_domain(mdev, port->tdn);
err_pd:
	mlx5_core_dealloc_pd(mdev, port->pdn);
	return err;
}

void cxb_mlx5_port_res_cleanup(struct cxb_mlx5_port *port)
{
	struct mlx5_core_dev *mdev = port->mdev;

	cxb_mlx5_tirs_destroy(port);
	mlx5_core_destroy_rqt(mdev, port->rqt_direct);
	mlx5_core_destroy_rqt(mdev, port->rqt_rss);
	cxb_mlx5_drop_destroy(port);
	cxb_mlx5_dealloc_q_counter(port);
	mlx5_core_destroy_tis(mdev, port->tisn);
	mlx5_free_bfreg(mdev, &port->bfreg);
	mlx5_core_destroy_mkey(mdev, port->mkey);
	mlx5_core_dealloc_transport_domain(mdev, port->tdn);
	mlx5_core_dealloc_pd(mdev, port->pdn);
}

const struct cxb_backend_ops cxb_mlx5_ops = {
	.open		= cxb_mlx5_open,
	.close		= cxb_mlx5_close,
	.link_up	= cxb_mlx5_link_up,
	.set_mtu	= cxb_mlx5_set_mtu,
	.get_pause	= cxb_mlx5_get_pause,
	.set_pause	= cxb_mlx5_set_pause,
	.cq_create	= cxb_mlx5_cq_create,
	.cq_destroy	= cxb_mlx5_cq_destroy,
	.cq_moderate	= cxb_mlx5_cq_moderate,
	.sq_create	= cxb_mlx5_sq_create,
	.sq_destroy	= cxb_mlx5_sq_destroy,
	.rq_create	= cxb_mlx5_rq_create,
	.rq_destroy	= cxb_mlx5_rq_destroy,
	.set_rx_filter	= cxb_mlx5_set_rx_filter,
	.set_rss	= cxb_mlx5_set_rss,
	.get_link_info	= cxb_mlx5_get_link_info,
	.get_port_stats	= cxb_mlx5_get_port_stats,
};
