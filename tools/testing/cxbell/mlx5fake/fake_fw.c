// SPDX-License-Identifier: GPL-2.0
/* cxbell_mlx5_fake: mlx5_core's interface, modelled at the command level,
 * for testing cxbell_mlx5 where no ConnectX-4+ card (and no device model
 * the stock mlx5_core drives) exists.
 *
 * This module links the unchanged cxbell_mlx5 sources (backend_*.c) with
 * definitions of every mlx5_core function they call. Those keep the
 * objects a device would (PD, transport domain, mkey, UAR, TIS, CQ, SQ,
 * RQ, RQT, TIR, flow tables and rules) and check each command the way the
 * firmware would refuse it: objects named must exist, in the state the
 * command needs; nothing may be destroyed while another object names it;
 * sizes within the capabilities; records and page lists aligned. Every
 * refusal is a "violation", counted and logged. There is no datapath: no
 * WQE is executed and no CQE written (that is the sim's job, and a
 * card's).
 *
 * debugfs, /sys/kernel/debug/cxbell_mlx5_fake/:
 *   new     "[vf] [ib] [bf_log=N] [inline=none|l2|ip] [vectors=N]
 *            [mpwqe=0|1] [ts=rt|both] [ptys=ext]": create function N
 *            (mlx5_core.eth.N); ts: the queues' timestamp capability,
 *            real time only or both (default free running only);
 *            ptys=ext: the extended Ethernet protocols (link up:
 *            200GAUI-4, else 100GBASE-CR4)
 *   del     "N": remove it
 *   link    "N up|down": set the vport state, raise a port change event
 *   counters "N OOB FCS LONG": set what the port has counted (queue
 *            counter out_of_buffer, PPCNT 802.3 FCS and too-long errors)
 *   stats   every function's objects and commands, key value per line
 */
#include <linux/auxiliary_bus.h>
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/mlx5/cq.h>
#include <linux/mlx5/driver.h>
#include <linux/mlx5/fs.h>
#include <linux/mlx5/mpfs.h>
#include <linux/mlx5/port.h>
#include <linux/mlx5/transobj.h>
#include <linux/mlx5/vport.h>

#include <cxbell/backend.h>

#include "mlx5/cxbell_mlx5_compat.h"
#include "fake.h"

#define FAKE_MAX_FN		4
#define FAKE_MAX_OBJ		256	/* of each type per function */
#define FAKE_MAX_RQT		(CXB_RSS_TABLE_SIZE + 1)
#define FAKE_EQN_BASE		10
#define FAKE_MAX_MTU_HW		9978	/* hardware MTU: 9956 + 22 */
#define FAKE_MAX_QC		16	/* queue counter sets (8-bit ids) */

enum fake_type {
	FT_PD, FT_TD, FT_MKEY, FT_UAR, FT_TIS, FT_CQ, FT_SQ, FT_RQ, FT_RQT,
	FT_TIR, FT_FT, FT_RULE, FT_NUM,
};

static const char *const fake_type_name[FT_NUM] = {
	"pd", "td", "mkey", "uar", "tis", "cq", "sq", "rq", "rqt", "tir",
	"flow_table", "flow_rule",
};

/* One object: its number is base + index; @ref what it names. */
struct fake_obj {
	bool live;
	u32 state;		/* SQ, RQ: RST/RDY */
	u32 ref[FAKE_MAX_RQT];	/* RQT: RQs; TIR: RQT; SQ/RQ: CQ; ... */
	unsigned int nref;
	u32 size;		/* RQT max size, flow table max_fte */
	u32 aux;		/* flow table: level; rule: its table */
	u8 dmac[ETH_ALEN];	/* rule: destination MAC (mask in @mask) */
	u8 mask[ETH_ALEN];
	u16 etype;
	u8 proto;
};

struct fake_fn;

struct mlx5_flow_namespace {
	struct fake_fn *fn;
};

struct mlx5_flow_table {
	struct fake_fn *fn;
	u32 id;
};

struct mlx5_flow_handle {
	struct fake_fn *fn;
	u32 id;
};

struct fake_fn {
	struct mlx5_adev madev;
	struct mlx5_core_dev mdev;
	struct device dev;		/* DMA device of the "PCI function" */
	struct pci_dev pdev;
	struct mlx5_init_seg iseg;
	struct mlx5_hca_cap cap_gen;
	struct mlx5_hca_cap cap_eth;
	struct mlx5_flow_namespace ns;
	struct mlx5_flow_table ft[FAKE_MAX_OBJ];
	struct mlx5_flow_handle rule[FAKE_MAX_OBJ];
	void *uar_page;			/* what the UAR maps (RAM here) */
	struct atomic_notifier_head nh;
	struct mutex lock;		/* objects and counters */
	struct fake_obj obj[FT_NUM][FAKE_MAX_OBJ];
	unsigned int id;
	u8 min_inline;
	unsigned int vectors;
	bool vport_up;
	u8 admin;			/* PAOS admin status */
	u16 pmtu;			/* PMTU admin_mtu */
	u16 vport_mtu;
	bool pptx, pprx;
	unsigned long violations;
	unsigned long cmds;
	unsigned long modify_rqt;
	unsigned long modify_tir;
	unsigned long events;
	/* multi-PF switch: addresses and their references */
	u8 mpfs_mac[FAKE_MAX_OBJ][ETH_ALEN];
	unsigned int mpfs_ref[FAKE_MAX_OBJ];
	u8 ts_cap;			/* sq_ts_format = rq_ts_format */
	bool ptys_ext;			/* extended Ethernet protocols */
	/* queue counter sets 1..FAKE_MAX_QC-1, and what the port counts */
	bool qc_live[FAKE_MAX_QC];
	u32 out_of_buffer;
	u64 fcs_errors;
	u64 too_long;
};

static struct fake_fn *fake_fns[FAKE_MAX_FN];
static DEFINE_MUTEX(fake_lock);
static struct dentry *fake_dir;

static struct fake_fn *fake_of(struct mlx5_core_dev *mdev)
{
	return container_of(mdev, struct fake_fn, mdev);
}

static __printf(2, 3) void fake_violation(struct fake_fn *fn,
					   const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	fn->violations++;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("cxbell_mlx5_fake: fn %u: violation: %pV\n", fn->id, &vaf);
	va_end(args);
}

static u32 fake_base(enum fake_type t)
{
	return 0x100 * (t + 1);
}

static struct fake_obj *fake_get(struct fake_fn *fn, enum fake_type t, u32 n)
{
	u32 i = n - fake_base(t);

	if (n < fake_base(t) || i >= FAKE_MAX_OBJ || !fn->obj[t][i].live)
		return NULL;
	return &fn->obj[t][i];
}

static int fake_new(struct fake_fn *fn, enum fake_type t, u32 *n)
{
	unsigned int i;

	for (i = 0; i < FAKE_MAX_OBJ; i++) {
		if (!fn->obj[t][i].live) {
			memset(&fn->obj[t][i], 0, sizeof(fn->obj[t][i]));
			fn->obj[t][i].live = true;
			*n = fake_base(t) + i;
			return 0;
		}
	}
	fake_violation(fn, "out of %s objects", fake_type_name[t]);
	return -ENOSPC;
}

/* Does a live object of type @by name object @n? */
static bool fake_named(struct fake_fn *fn, enum fake_type by, u32 n)
{
	unsigned int i, j;

	for (i = 0; i < FAKE_MAX_OBJ; i++) {
		struct fake_obj *o = &fn->obj[by][i];

		if (!o->live)
			continue;
		for (j = 0; j < o->nref; j++)
			if (o->ref[j] == n)
				return true;
	}
	return false;
}

/* Destroy @n of type @t unless something in @users names it. */
static int fake_destroy(struct fake_fn *fn, enum fake_type t, u32 n,
			const enum fake_type *users, unsigned int nusers)
{
	struct fake_obj *o = fake_get(fn, t, n);
	unsigned int i;

	if (!o) {
		fake_violation(fn, "destroy of no %s 0x%x", fake_type_name[t], n);
		return -EINVAL;
	}
	for (i = 0; i < nusers; i++) {
		if (fake_named(fn, users[i], n)) {
			fake_violation(fn, "destroy of %s 0x%x still named by a %s",
				       fake_type_name[t], n,
				       fake_type_name[users[i]]);
			return -EBUSY;
		}
	}
	o->live = false;
	return 0;
}

/* A command that makes an object of type @t, and does nothing else */
static int fake_cmd_new(struct fake_fn *fn, enum fake_type t, u32 *n)
{
	int err;

	mutex_lock(&fn->lock);
	fn->cmds++;
	err = fake_new(fn, t, n);
	mutex_unlock(&fn->lock);
	return err;
}

/* A command that destroys @n of type @t, unless a @users object names it */
static int fake_cmd_destroy(struct fake_fn *fn, enum fake_type t, u32 n,
			    const enum fake_type *users, unsigned int nusers)
{
	int err;

	mutex_lock(&fn->lock);
	fn->cmds++;
	err = fake_destroy(fn, t, n, users, nusers);
	mutex_unlock(&fn->lock);
	return err;
}

static bool fake_check(struct fake_fn *fn, bool ok, const char *what)
{
	if (!ok)
		fake_violation(fn, "%s", what);
	return ok;
}

/* A doorbell record and a page list: 8-byte aligned record, 4 KiB pages */
static bool fake_check_mem(struct fake_fn *fn, u64 dbr, const __be64 *pas,
			   unsigned int npas)
{
	unsigned int i;

	if (!fake_check(fn, dbr && !(dbr & 7), "doorbell record not 8-byte aligned"))
		return false;
	for (i = 0; i < npas; i++)
		if (!fake_check(fn, pas[i] &&
				!(be64_to_cpu(pas[i]) & (MLX5_ADAPTER_PAGE_SIZE - 1)),
				"page list entry not 4 KiB aligned"))
			return false;
	return true;
}

/* ---- Resources ---------------------------------------------------------- */

int mlx5_core_alloc_pd(struct mlx5_core_dev *dev, u32 *pdn)
{
	return fake_cmd_new(fake_of(dev), FT_PD, pdn);
}

int mlx5_core_dealloc_pd(struct mlx5_core_dev *dev, u32 pdn)
{
	static const enum fake_type users[] = { FT_MKEY, FT_SQ, FT_RQ };

	return fake_cmd_destroy(fake_of(dev), FT_PD, pdn,
				users, ARRAY_SIZE(users));
}

int mlx5_core_alloc_transport_domain(struct mlx5_core_dev *dev, u32 *tdn)
{
	return fake_cmd_new(fake_of(dev), FT_TD, tdn);
}

void mlx5_core_dealloc_transport_domain(struct mlx5_core_dev *dev, u32 tdn)
{
	static const enum fake_type users[] = { FT_TIS, FT_TIR };

	fake_cmd_destroy(fake_of(dev), FT_TD, tdn, users, ARRAY_SIZE(users));
}

int mlx5_core_create_mkey(struct mlx5_core_dev *dev, u32 *mkey, u32 *in,
			  int inlen)
{
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	struct fake_fn *fn = fake_of(dev);
	u32 pd = MLX5_GET(mkc, mkc, pd);
	struct fake_obj *o;
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	if (fake_check(fn, fake_get(fn, FT_PD, pd), "mkey: no such PD") &&
	    fake_check(fn, MLX5_GET(mkc, mkc, access_mode_1_0) ==
		       MLX5_MKC_ACCESS_MODE_PA, "mkey: not PA") &&
	    fake_check(fn, MLX5_GET(mkc, mkc, length64) &&
		       MLX5_GET(mkc, mkc, lr) && MLX5_GET(mkc, mkc, lw),
		       "mkey: not all memory, local read and write")) {
		err = fake_new(fn, FT_MKEY, mkey);
		if (!err) {
			o = fake_get(fn, FT_MKEY, *mkey);
			o->ref[o->nref++] = pd;
		}
	}
	mutex_unlock(&fn->lock);
	return err;
}

int mlx5_core_destroy_mkey(struct mlx5_core_dev *dev, u32 mkey)
{
	return fake_cmd_destroy(fake_of(dev), FT_MKEY, mkey, NULL, 0);
}

int mlx5_alloc_bfreg(struct mlx5_core_dev *mdev, struct mlx5_sq_bfreg *bfreg,
		     bool map_wc, bool fast_path)
{
	struct fake_fn *fn = fake_of(mdev);
	int err;

	mutex_lock(&fn->lock);
	fn->cmds++;
	err = fake_new(fn, FT_UAR, &bfreg->index);
	if (!err) {
		/* the first blue flame register of the page, at 0x800 */
		bfreg->map = (void __iomem *)fn->uar_page + MLX5_BF_OFFSET;
		bfreg->wc = false;
		bfreg->up = NULL;
		bfreg->offset = 0;
	}
	mutex_unlock(&fn->lock);
	return err;
}

void mlx5_free_bfreg(struct mlx5_core_dev *mdev, struct mlx5_sq_bfreg *bfreg)
{
	static const enum fake_type users[] = { FT_CQ, FT_SQ };

	fake_cmd_destroy(fake_of(mdev), FT_UAR, bfreg->index,
			 users, ARRAY_SIZE(users));
}

int mlx5_core_create_tis(struct mlx5_core_dev *dev, u32 *in, u32 *tisn)
{
	void *tisc = MLX5_ADDR_OF(create_tis_in, in, ctx);
	u32 td = MLX5_GET(tisc, tisc, transport_domain);
	struct fake_fn *fn = fake_of(dev);
	struct fake_obj *o;
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	if (fake_check(fn, fake_get(fn, FT_TD, td), "TIS: no such TD")) {
		err = fake_new(fn, FT_TIS, tisn);
		if (!err) {
			o = fake_get(fn, FT_TIS, *tisn);
			o->ref[o->nref++] = td;
		}
	}
	mutex_unlock(&fn->lock);
	return err;
}

void mlx5_core_destroy_tis(struct mlx5_core_dev *dev, u32 tisn)
{
	static const enum fake_type users[] = { FT_SQ };

	fake_cmd_destroy(fake_of(dev), FT_TIS, tisn, users, ARRAY_SIZE(users));
}

/* ---- EQs and CQs -------------------------------------------------------- */

#ifdef CXB_MLX5_HAVE_COMP_EQN_GET
unsigned int mlx5_comp_vectors_max(struct mlx5_core_dev *dev)
{
	return fake_of(dev)->vectors;
}

int mlx5_comp_eqn_get(struct mlx5_core_dev *dev, u16 vecidx, int *eqn)
#else
unsigned int mlx5_comp_vectors_count(struct mlx5_core_dev *dev)
{
	return fake_of(dev)->vectors;
}

int mlx5_vector2eqn(struct mlx5_core_dev *dev, int vecidx, int *eqn)
#endif
{
	struct fake_fn *fn = fake_of(dev);

	if (vecidx < 0 || vecidx >= fn->vectors)
		return -EINVAL;
	*eqn = FAKE_EQN_BASE + vecidx;
	return 0;
}

int mlx5_core_create_cq(struct mlx5_core_dev *dev, struct mlx5_core_cq *cq,
			u32 *in, int inlen, u32 *out, int outlen)
{
	void *cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	unsigned int log = MLX5_GET(cqc, cqc, log_cq_size);
	u32 uar = MLX5_GET(cqc, cqc, uar_page);
	int eqn = MLX5_GET(cqc, cqc, c_eqn_or_apu_element);
	struct fake_fn *fn = fake_of(dev);
	unsigned int npas = max(1U, (64U << log) / MLX5_ADAPTER_PAGE_SIZE);
	struct fake_obj *o;
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	if (fake_check(fn, inlen >= MLX5_ST_SZ_BYTES(create_cq_in) +
		       (int)(npas * sizeof(u64)), "CQ: page list short") &&
	    fake_check(fn, log <= MLX5_CAP_GEN(dev, log_max_cq_sz),
		       "CQ: larger than log_max_cq_sz") &&
	    fake_check(fn, MLX5_GET(cqc, cqc, cqe_sz) == CQE_STRIDE_64,
		       "CQ: CQEs not 64 bytes") &&
	    fake_check(fn, eqn >= FAKE_EQN_BASE &&
		       eqn < FAKE_EQN_BASE + (int)fn->vectors,
		       "CQ: no such completion EQ") &&
	    fake_check(fn, fake_get(fn, FT_UAR, uar), "CQ: no such UAR") &&
	    fake_check(fn, MLX5_GET(cqc, cqc, log_page_size) == 0,
		       "CQ: log_page_size") &&
	    fake_check_mem(fn, MLX5_GET64(cqc, cqc, dbr_addr),
			   (__be64 *)MLX5_ADDR_OF(create_cq_in, in, pas),
			   npas)) {
		err = fake_new(fn, FT_CQ, &cq->cqn);
		if (!err) {
			o = fake_get(fn, FT_CQ, cq->cqn);
			o->ref[o->nref++] = uar;
			cq->cons_index = 0;
			cq->arm_sn = 0;
			MLX5_SET(create_cq_out, out, cqn, cq->cqn);
		}
	}
	mutex_unlock(&fn->lock);
	return err;
}

int mlx5_core_destroy_cq(struct mlx5_core_dev *dev, struct mlx5_core_cq *cq)
{
	static const enum fake_type users[] = { FT_SQ, FT_RQ };

	return fake_cmd_destroy(fake_of(dev), FT_CQ, cq->cqn,
				users, ARRAY_SIZE(users));
}

int mlx5_core_modify_cq_moderation(struct mlx5_core_dev *dev,
				   struct mlx5_core_cq *cq, u16 cq_period,
				   u16 cq_max_count)
{
	struct fake_fn *fn = fake_of(dev);
	int err = 0;

	mutex_lock(&fn->lock);
	fn->cmds++;
	if (!fake_check(fn, fake_get(fn, FT_CQ, cq->cqn),
			"moderation of no such CQ"))
		err = -EINVAL;
	mutex_unlock(&fn->lock);
	return err;
}

/* ---- Work queues -------------------------------------------------------- */

/* A queue counter set @id allocated (0 is the device's default set) */
static bool fake_qc(struct fake_fn *fn, u32 id)
{
	return !id || (id < FAKE_MAX_QC && fn->qc_live[id]);
}

/* A queue's timestamp format against the sq/rq_ts_format capability */
static bool fake_ts_ok(struct fake_fn *fn, u8 ts)
{
	switch (fn->ts_cap) {
	case MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING:
		return ts == MLX5_TIMESTAMP_FORMAT_FREE_RUNNING;
	case MLX5_TIMESTAMP_FORMAT_CAP_REAL_TIME:
		return ts == MLX5_TIMESTAMP_FORMAT_REAL_TIME;
	default:
		return ts == MLX5_TIMESTAMP_FORMAT_FREE_RUNNING ||
		       ts == MLX5_TIMESTAMP_FORMAT_REAL_TIME;
	}
}

/* The common checks of a cyclic work queue; its CQ, PD and UAR. */
static bool fake_check_wq(struct fake_fn *fn, void *wq, int inlen,
			  int fixed, unsigned int stride, const char *what)
{
	struct mlx5_core_dev *mdev = &fn->mdev;
	unsigned int log = MLX5_GET(wq, wq, log_wq_sz);
	unsigned int s = MLX5_GET(wq, wq, log_wq_stride);
	unsigned int npas = max(1U, (1U << (log + s)) / MLX5_ADAPTER_PAGE_SIZE);

	if (!fake_check(fn, MLX5_GET(wq, wq, wq_type) == MLX5_WQ_TYPE_CYCLIC,
			"WQ not cyclic") ||
	    !fake_check(fn, s == stride, "WQ stride") ||
	    !fake_check(fn, log <= MLX5_CAP_GEN(mdev, log_max_wq_sz),
			"WQ larger than log_max_wq_sz") ||
	    !fake_check(fn, MLX5_GET(wq, wq, log_wq_pg_sz) == 0,
			"WQ log_wq_pg_sz") ||
	    !fake_check(fn, fake_get(fn, FT_PD, MLX5_GET(wq, wq, pd)),
			"WQ: no such PD") ||
	    !fake_check(fn, inlen >= fixed + (int)(npas * sizeof(u64)),
			"WQ: page list short"))
		return false;
	return fake_check_mem(fn, MLX5_GET64(wq, wq, dbr_addr),
			      (__be64 *)MLX5_ADDR_OF(wq, wq, pas), npas);
}

static int fake_create_sq(struct fake_fn *fn, u32 *in, int inlen, u32 *out)
{
	void *sqc = MLX5_ADDR_OF(create_sq_in, in, ctx);
	void *wq = MLX5_ADDR_OF(sqc, sqc, wq);
	struct mlx5_core_dev *mdev = &fn->mdev;
	struct fake_obj *o;
	u32 sqn;
	int err;

	if (!fake_check(fn, fake_get(fn, FT_CQ, MLX5_GET(sqc, sqc, cqn)),
			"SQ: no such CQ") ||
	    !fake_check(fn, MLX5_GET(sqc, sqc, tis_lst_sz) == 1 &&
			fake_get(fn, FT_TIS, MLX5_GET(sqc, sqc, tis_num_0)),
			"SQ: no such TIS") ||
	    !fake_check(fn, MLX5_GET(sqc, sqc, state) == MLX5_SQC_STATE_RST,
			"SQ: not created in RST") ||
	    !fake_check(fn, fake_ts_ok(fn, MLX5_GET(sqc, sqc, ts_format)),
			"SQ: ts_format the device lacks") ||
	    !fake_check(fn, fake_get(fn, FT_UAR, MLX5_GET(wq, wq, uar_page)),
			"SQ: no such UAR") ||
	    !fake_check(fn, MLX5_GET(sqc, sqc, min_wqe_inline_mode) ==
			(MLX5_CAP_ETH(mdev, wqe_inline_mode) ==
			 MLX5_CAP_INLINE_MODE_VPORT_CONTEXT ?
			 fn->min_inline : 0), "SQ: min_wqe_inline_mode") ||
	    !fake_check_wq(fn, wq, inlen, MLX5_ST_SZ_BYTES(create_sq_in), 6,
			   "SQ"))
		return -EINVAL;
	err = fake_new(fn, FT_SQ, &sqn);
	if (err)
		return err;
	o = fake_get(fn, FT_SQ, sqn);
	o->state = MLX5_SQC_STATE_RST;
	o->ref[o->nref++] = MLX5_GET(sqc, sqc, cqn);
	o->ref[o->nref++] = MLX5_GET(sqc, sqc, tis_num_0);
	o->ref[o->nref++] = MLX5_GET(wq, wq, uar_page);
	o->ref[o->nref++] = MLX5_GET(wq, wq, pd);
	MLX5_SET(create_sq_out, out, sqn, sqn);
	return 0;
}

int mlx5_core_modify_sq(struct mlx5_core_dev *dev, u32 sqn, u32 *in)
{
	void *sqc = MLX5_ADDR_OF(modify_sq_in, in, ctx);
	struct fake_fn *fn = fake_of(dev);
	struct fake_obj *o;
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	o = fake_get(fn, FT_SQ, sqn);
	if (fake_check(fn, o, "modify of no such SQ") &&
	    fake_check(fn, MLX5_GET(modify_sq_in, in, sq_state) == o->state,
		       "SQ: modify from a state it is not in")) {
		o->state = MLX5_GET(sqc, sqc, state);
		err = 0;
	}
	mutex_unlock(&fn->lock);
	return err;
}

int mlx5_core_create_rq(struct mlx5_core_dev *dev, u32 *in, int inlen,
			u32 *rqn)
{
	void *rqc = MLX5_ADDR_OF(create_rq_in, in, ctx);
	void *wq = MLX5_ADDR_OF(rqc, rqc, wq);
	struct fake_fn *fn = fake_of(dev);
	struct fake_obj *o;
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	if (fake_check(fn, fake_get(fn, FT_CQ, MLX5_GET(rqc, rqc, cqn)),
		       "RQ: no such CQ") &&
	    fake_check(fn, MLX5_GET(rqc, rqc, state) == MLX5_RQC_STATE_RST,
		       "RQ: not created in RST") &&
	    fake_check(fn, fake_ts_ok(fn, MLX5_GET(rqc, rqc, ts_format)),
		       "RQ: ts_format the device lacks") &&
	    fake_check(fn, fake_qc(fn, MLX5_GET(rqc, rqc, counter_set_id)),
		       "RQ: no such queue counter set") &&
	    fake_check_wq(fn, wq, inlen, MLX5_ST_SZ_BYTES(create_rq_in), 4,
			  "RQ")) {
		err = fake_new(fn, FT_RQ, rqn);
		if (!err) {
			o = fake_get(fn, FT_RQ, *rqn);
			o->state = MLX5_RQC_STATE_RST;
			o->aux = MLX5_GET(rqc, rqc, counter_set_id);
			o->ref[o->nref++] = MLX5_GET(rqc, rqc, cqn);
			o->ref[o->nref++] = MLX5_GET(wq, wq, pd);
		}
	}
	mutex_unlock(&fn->lock);
	return err;
}

int mlx5_core_modify_rq(struct mlx5_core_dev *dev, u32 rqn, u32 *in)
{
	void *rqc = MLX5_ADDR_OF(modify_rq_in, in, ctx);
	struct fake_fn *fn = fake_of(dev);
	struct fake_obj *o;
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	o = fake_get(fn, FT_RQ, rqn);
	if (fake_check(fn, o, "modify of no such RQ") &&
	    fake_check(fn, MLX5_GET(modify_rq_in, in, rq_state) == o->state,
		       "RQ: modify from a state it is not in")) {
		o->state = MLX5_GET(rqc, rqc, state);
		err = 0;
	}
	mutex_unlock(&fn->lock);
	return err;
}

void mlx5_core_destroy_rq(struct mlx5_core_dev *dev, u32 rqn)
{
	static const enum fake_type users[] = { FT_RQT };

	fake_cmd_destroy(fake_of(dev), FT_RQ, rqn, users, ARRAY_SIZE(users));
}

/* Does a live RQ count into queue counter set @id? */
static bool fake_named_qc(struct fake_fn *fn, u32 id)
{
	unsigned int i;

	for (i = 0; i < FAKE_MAX_OBJ; i++)
		if (fn->obj[FT_RQ][i].live && fn->obj[FT_RQ][i].aux == id)
			return true;
	return false;
}

/* ---- RQTs and TIRs ------------------------------------------------------ */

/* Take an RQT context's list into @o (checked: live RQs, within size). */
static bool fake_rqt_list(struct fake_fn *fn, struct fake_obj *o, void *rqtc,
			  int inlen, int fixed)
{
	unsigned int i, n = MLX5_GET(rqtc, rqtc, rqt_actual_size);

	if (!fake_check(fn, n && n <= o->size, "RQT: size") ||
	    !fake_check(fn, inlen >= fixed + (int)(n * sizeof(u32)),
			"RQT: list short"))
		return false;
	for (i = 0; i < n; i++)
		if (!fake_check(fn, fake_get(fn, FT_RQ,
					     MLX5_GET(rqtc, rqtc, rq_num[i])),
				"RQT: entry names no RQ"))
			return false;
	for (i = 0; i < n; i++)
		o->ref[i] = MLX5_GET(rqtc, rqtc, rq_num[i]);
	o->nref = n;
	return true;
}

int mlx5_core_create_rqt(struct mlx5_core_dev *dev, u32 *in, int inlen,
			 u32 *rqtn)
{
	void *rqtc = MLX5_ADDR_OF(create_rqt_in, in, rqt_context);
	struct fake_fn *fn = fake_of(dev);
	struct fake_obj tmp = {};
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	tmp.size = MLX5_GET(rqtc, rqtc, rqt_max_size);
	if (fake_check(fn, tmp.size && tmp.size <= FAKE_MAX_RQT &&
		       tmp.size <= 1U << MLX5_CAP_GEN(dev, log_max_rqt_size),
		       "RQT: max size") &&
	    fake_rqt_list(fn, &tmp, rqtc, inlen,
			  MLX5_ST_SZ_BYTES(create_rqt_in))) {
		err = fake_new(fn, FT_RQT, rqtn);
		if (!err) {
			tmp.live = true;
			*fake_get(fn, FT_RQT, *rqtn) = tmp;
		}
	}
	mutex_unlock(&fn->lock);
	return err;
}

static int fake_modify_rqt(struct fake_fn *fn, u32 *in, int inlen)
{
	void *rqtc = MLX5_ADDR_OF(modify_rqt_in, in, ctx);
	struct fake_obj *o = fake_get(fn, FT_RQT,
				      MLX5_GET(modify_rqt_in, in, rqtn));

	if (!fake_check(fn, o, "modify of no such RQT") ||
	    !fake_check(fn, MLX5_GET(modify_rqt_in, in, bitmask.rqn_list),
			"MODIFY_RQT without rqn_list") ||
	    !fake_rqt_list(fn, o, rqtc, inlen, MLX5_ST_SZ_BYTES(modify_rqt_in)))
		return -EINVAL;
	fn->modify_rqt++;
	return 0;
}

void mlx5_core_destroy_rqt(struct mlx5_core_dev *dev, u32 rqtn)
{
	static const enum fake_type users[] = { FT_TIR };

	fake_cmd_destroy(fake_of(dev), FT_RQT, rqtn, users, ARRAY_SIZE(users));
}

static bool fake_check_hash(struct fake_fn *fn, void *tirc)
{
	static const u8 zero[CXB_RSS_KEY_SIZE];

	if (MLX5_GET(tirc, tirc, rx_hash_fn) != MLX5_RX_HASH_FN_TOEPLITZ)
		return true;
	return fake_check(fn, memcmp(MLX5_ADDR_OF(tirc, tirc,
						  rx_hash_toeplitz_key),
				     zero, sizeof(zero)),
			  "TIR: Toeplitz without a key");
}

int mlx5_core_create_tir(struct mlx5_core_dev *dev, u32 *in, u32 *tirn)
{
	void *tirc = MLX5_ADDR_OF(create_tir_in, in, ctx);
	u32 rqt = MLX5_GET(tirc, tirc, indirect_table);
	u32 td = MLX5_GET(tirc, tirc, transport_domain);
	struct fake_fn *fn = fake_of(dev);
	struct fake_obj *o;
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	if (fake_check(fn, fake_get(fn, FT_TD, td), "TIR: no such TD") &&
	    fake_check(fn, MLX5_GET(tirc, tirc, disp_type) ==
		       MLX5_TIRC_DISP_TYPE_INDIRECT, "TIR: not indirect") &&
	    fake_check(fn, fake_get(fn, FT_RQT, rqt), "TIR: no such RQT") &&
	    fake_check_hash(fn, tirc)) {
		err = fake_new(fn, FT_TIR, tirn);
		if (!err) {
			o = fake_get(fn, FT_TIR, *tirn);
			o->ref[o->nref++] = rqt;
			o->ref[o->nref++] = td;
		}
	}
	mutex_unlock(&fn->lock);
	return err;
}

static int fake_modify_tir(struct fake_fn *fn, u32 *in)
{
	if (!fake_check(fn, fake_get(fn, FT_TIR,
				     MLX5_GET(modify_tir_in, in, tirn)),
			"modify of no such TIR") ||
	    !fake_check(fn, MLX5_GET(modify_tir_in, in, bitmask.hash),
			"MODIFY_TIR without the hash bit") ||
	    !fake_check_hash(fn, MLX5_ADDR_OF(modify_tir_in, in, ctx)))
		return -EINVAL;
	fn->modify_tir++;
	return 0;
}

void mlx5_core_destroy_tir(struct mlx5_core_dev *dev, u32 tirn)
{
	static const enum fake_type users[] = { FT_RULE };

	fake_cmd_destroy(fake_of(dev), FT_TIR, tirn, users, ARRAY_SIZE(users));
}

/* ---- Raw commands ------------------------------------------------------- */

int mlx5_cmd_exec(struct mlx5_core_dev *dev, void *in, int in_size, void *out,
		  int out_size)
{
	u16 op = MLX5_GET(create_sq_in, in, opcode);	/* every command's first field */
	struct fake_fn *fn = fake_of(dev);
	int err = -EINVAL;

	mutex_lock(&fn->lock);
	fn->cmds++;
	memset(out, 0, out_size);
	switch (op) {
	case MLX5_CMD_OP_CREATE_SQ:
		err = fake_create_sq(fn, in, in_size, out);
		break;
	case MLX5_CMD_OP_DESTROY_SQ:
		err = fake_destroy(fn, FT_SQ, MLX5_GET(destroy_sq_in, in, sqn),
				   NULL, 0);
		break;
	case MLX5_CMD_OP_MODIFY_RQT:
		err = fake_modify_rqt(fn, in, in_size);
		break;
	case MLX5_CMD_OP_MODIFY_TIR:
		err = fake_modify_tir(fn, in);
		break;
	case MLX5_CMD_OP_ALLOC_Q_COUNTER: {
		u32 id;

		for (id = 1; id < FAKE_MAX_QC && fn->qc_live[id]; id++)
			;
		if (!fake_check(fn, id < FAKE_MAX_QC, "out of queue counters"))
			break;
		fn->qc_live[id] = true;
		MLX5_SET(alloc_q_counter_out, out, counter_set_id, id);
		err = 0;
		break;
	}
	case MLX5_CMD_OP_DEALLOC_Q_COUNTER: {
		u32 id = MLX5_GET(dealloc_q_counter_in, in, counter_set_id);

		if (!fake_check(fn, id && fake_qc(fn, id),
				"dealloc of no such queue counter"))
			break;
		if (fake_named_qc(fn, id)) {
			fake_violation(fn, "dealloc of queue counter %u under an RQ",
				       id);
			break;
		}
		fn->qc_live[id] = false;
		err = 0;
		break;
	}
	case MLX5_CMD_OP_QUERY_Q_COUNTER: {
		u32 id = MLX5_GET(query_q_counter_in, in, counter_set_id);

		if (!fake_check(fn, id && fake_qc(fn, id),
				"query of no such queue counter"))
			break;
		/* one set per function here: it counts every drop */
		MLX5_SET(query_q_counter_out, out, out_of_buffer,
			 fn->out_of_buffer);
		err = 0;
		break;
	}
	case MLX5_CMD_OP_QUERY_VPORT_STATE:
		if (fake_check(fn, MLX5_GET(query_vport_state_in, in, op_mod) ==
			       MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT &&
			       !MLX5_GET(query_vport_state_in, in, other_vport),
			       "QUERY_VPORT_STATE of another vport")) {
			MLX5_SET(query_vport_state_out, out, state,
				 fn->vport_up ? VPORT_STATE_UP : 0);
			err = 0;
		}
		break;
	default:
		fake_violation(fn, "command 0x%x not modelled", op);
		break;
	}
	mutex_unlock(&fn->lock);
	return err;
}

/* ---- Port and vport ----------------------------------------------------- */

int mlx5_core_access_reg(struct mlx5_core_dev *dev, void *data_in,
			 int size_in, void *data_out, int size_out,
			 u16 reg_num, int arg, int write)
{
	struct fake_fn *fn = fake_of(dev);
	int err = 0;

	mutex_lock(&fn->lock);
	fn->cmds++;
	memcpy(data_out, data_in, min(size_in, size_out));
	switch (reg_num) {
	case MLX5_REG_PAOS:
		if (!fake_check(fn, write && MLX5_GET(paos_reg, data_in, ase) &&
				MLX5_GET(paos_reg, data_in, local_port) == 1,
				"PAOS: not a write of local port 1's admin state")) {
			err = -EINVAL;
			break;
		}
		fn->admin = MLX5_GET(paos_reg, data_in, admin_status);
		break;
	case MLX5_REG_PMTU: {
		u16 mtu = MLX5_GET(pmtu_reg, data_in, admin_mtu);

		if (!fake_check(fn, write && mtu <= FAKE_MAX_MTU_HW &&
				MLX5_GET(pmtu_reg, data_in, local_port) == 1,
				"PMTU: above the port's maximum")) {
			err = -EINVAL;
			break;
		}
		fn->pmtu = mtu;
		break;
	}
	case MLX5_REG_PPCNT: {
		void *c = MLX5_ADDR_OF(ppcnt_reg, data_out,
				       counter_set.eth_802_3_cntrs_grp_data_layout);

		if (!fake_check(fn, !write && MLX5_GET(ppcnt_reg, data_in, grp) ==
				MLX5_IEEE_802_3_COUNTERS_GROUP,
				"PPCNT: not a read of the 802.3 group")) {
			err = -EINVAL;
			break;
		}
		MLX5_SET(eth_802_3_cntrs_grp_data_layout, c,
			 a_frame_check_sequence_errors_high, fn->fcs_errors >> 32);
		MLX5_SET(eth_802_3_cntrs_grp_data_layout, c,
			 a_frame_check_sequence_errors_low, (u32)fn->fcs_errors);
		MLX5_SET(eth_802_3_cntrs_grp_data_layout, c,
			 a_frame_too_long_errors_high, fn->too_long >> 32);
		MLX5_SET(eth_802_3_cntrs_grp_data_layout, c,
			 a_frame_too_long_errors_low, (u32)fn->too_long);
		break;
	}
	case MLX5_REG_PTYS:
		if (!fake_check(fn, !write && MLX5_GET(ptys_reg, data_in, proto_mask) ==
				MLX5_PTYS_EN, "PTYS: not a read of Ethernet")) {
			err = -EINVAL;
			break;
		}
		/* up: 100GBASE-CR4 (200GAUI-4 extended) over copper */
		if (fn->vport_up && fn->ptys_ext)
			MLX5_SET(ptys_reg, data_out, ext_eth_proto_oper,
				 BIT(MLX5E_200GAUI_4_200GBASE_CR4_KR4));
		else if (fn->vport_up)
			MLX5_SET(ptys_reg, data_out, eth_proto_oper,
				 BIT(MLX5E_100GBASE_CR4));
		MLX5_SET(ptys_reg, data_out, connector_type, MLX5E_PORT_DA);
		break;
	case MLX5_REG_PFCC:
		if (write) {
			fn->pptx = MLX5_GET(pfcc_reg, data_in, pptx);
			fn->pprx = MLX5_GET(pfcc_reg, data_in, pprx);
		} else {
			MLX5_SET(pfcc_reg, data_out, pptx, fn->pptx);
			MLX5_SET(pfcc_reg, data_out, pprx, fn->pprx);
		}
		break;
	default:
		fake_violation(fn, "register 0x%x not modelled", reg_num);
		err = -EINVAL;
	}
	mutex_unlock(&fn->lock);
	return err;
}

int mlx5_modify_nic_vport_mtu(struct mlx5_core_dev *mdev, u16 mtu)
{
	struct fake_fn *fn = fake_of(mdev);

	mutex_lock(&fn->lock);
	fn->cmds++;
	fn->vport_mtu = mtu;
	mutex_unlock(&fn->lock);
	return 0;
}

void mlx5_query_port_max_mtu(struct mlx5_core_dev *dev, u16 *max_mtu,
			     u8 port)
{
	*max_mtu = FAKE_MAX_MTU_HW;
}

void mlx5_query_min_inline(struct mlx5_core_dev *mdev, u8 *min_inline)
{
	*min_inline = fake_of(mdev)->min_inline;
}

int mlx5_query_mac_address(struct mlx5_core_dev *mdev, u8 *addr)
{
	u8 mac[ETH_ALEN] = { 0x02, 0xcb, 0x55, 0, 0, 0 };

	mac[5] = fake_of(mdev)->id;
	ether_addr_copy(addr, mac);
	return 0;
}

int mlx5_notifier_register(struct mlx5_core_dev *dev, struct notifier_block *nb)
{
	return atomic_notifier_chain_register(&fake_of(dev)->nh, nb);
}

int mlx5_notifier_unregister(struct mlx5_core_dev *dev,
			     struct notifier_block *nb)
{
	return atomic_notifier_chain_unregister(&fake_of(dev)->nh, nb);
}

#ifdef CONFIG_MLX5_MPFS
/* The multi-PF switch's table, refcounted per address (lib/mpfs.c) */
int mlx5_mpfs_add_mac(struct mlx5_core_dev *dev, u8 *mac)
{
	struct fake_fn *fn = fake_of(dev);
	int i, free = -1, err = 0;

	mutex_lock(&fn->lock);
	fn->cmds++;
	for (i = 0; i < FAKE_MAX_OBJ; i++) {
		if (fn->mpfs_ref[i] && ether_addr_equal(fn->mpfs_mac[i], mac))
			break;
		if (!fn->mpfs_ref[i] && free < 0)
			free = i;
	}
	if (i == FAKE_MAX_OBJ) {
		if (free < 0) {
			fake_violation(fn, "MPFS full");
			err = -ENOSPC;
			goto out;
		}
		i = free;
		ether_addr_copy(fn->mpfs_mac[i], mac);
	}
	fn->mpfs_ref[i]++;
out:
	mutex_unlock(&fn->lock);
	return err;
}

int mlx5_mpfs_del_mac(struct mlx5_core_dev *dev, u8 *mac)
{
	struct fake_fn *fn = fake_of(dev);
	int i, err = 0;

	mutex_lock(&fn->lock);
	fn->cmds++;
	for (i = 0; i < FAKE_MAX_OBJ; i++)
		if (fn->mpfs_ref[i] && ether_addr_equal(fn->mpfs_mac[i], mac))
			break;
	if (i == FAKE_MAX_OBJ) {
		fake_violation(fn, "MPFS: delete of %pM, not there", mac);
		err = -ENOENT;
	} else {
		fn->mpfs_ref[i]--;
	}
	mutex_unlock(&fn->lock);
	return err;
}
#endif

static unsigned int fake_mpfs_count(struct fake_fn *fn)
{
	unsigned int i, n = 0;

	for (i = 0; i < FAKE_MAX_OBJ; i++)
		n += fn->mpfs_ref[i];
	return n;
}

/* ---- Flow steering ------------------------------------------------------ */

struct mlx5_flow_namespace *
mlx5_get_flow_namespace(struct mlx5_core_dev *dev,
			enum mlx5_flow_namespace_type type)
{
	struct fake_fn *fn = fake_of(dev);

	if (type != MLX5_FLOW_NAMESPACE_KERNEL) {
		mutex_lock(&fn->lock);
		fake_violation(fn, "flow namespace %d", type);
		mutex_unlock(&fn->lock);
		return NULL;
	}
	return &fn->ns;
}

/* The kernel namespace's NIC priority has KERNEL_NIC_PRIO_NUM_LEVELS (7)
 * levels, the TC one before it 3 (fs_core.c).
 */
struct mlx5_flow_table *
mlx5_create_auto_grouped_flow_table(struct mlx5_flow_namespace *ns,
				    struct mlx5_flow_table_attr *ft_attr)
{
	struct fake_fn *fn = ns->fn;
	struct mlx5_flow_table *ft = ERR_PTR(-EINVAL);
	struct fake_obj *o;
	u32 id;

	mutex_lock(&fn->lock);
	fn->cmds++;
	if (fake_check(fn, ft_attr->prio == 1 && ft_attr->level < 7,
		       "flow table: not a level of the NIC priority") &&
	    fake_check(fn, ft_attr->max_fte > 0 &&
		       ft_attr->autogroup.max_num_groups > 0,
		       "flow table: no entries or groups") &&
	    !fake_new(fn, FT_FT, &id)) {
		o = fake_get(fn, FT_FT, id);
		o->size = ft_attr->max_fte;
		o->aux = ft_attr->level;
		ft = &fn->ft[id - fake_base(FT_FT)];
		ft->fn = fn;
		ft->id = id;
	}
	mutex_unlock(&fn->lock);
	return ft;
}

int mlx5_destroy_flow_table(struct mlx5_flow_table *ft)
{
	static const enum fake_type users[] = { FT_RULE };

	return fake_cmd_destroy(ft->fn, FT_FT, ft->id,
				users, ARRAY_SIZE(users));
}

static unsigned int fake_ft_rules(struct fake_fn *fn, u32 ft)
{
	unsigned int i, n = 0;

	for (i = 0; i < FAKE_MAX_OBJ; i++)
		if (fn->obj[FT_RULE][i].live && fn->obj[FT_RULE][i].aux == ft)
			n++;
	return n;
}

struct mlx5_flow_handle *
mlx5_add_flow_rules(struct mlx5_flow_table *ft,
		    const struct mlx5_flow_spec *spec,
		    struct mlx5_flow_act *flow_act,
		    struct mlx5_flow_destination *dest, int num_dest)
{
	const void *mc = MLX5_ADDR_OF(fte_match_param, spec->match_criteria,
				      outer_headers);
	const void *mv = MLX5_ADDR_OF(fte_match_param, spec->match_value,
				      outer_headers);
	struct mlx5_flow_handle *rule = ERR_PTR(-EINVAL);
	struct fake_fn *fn = ft->fn;
	struct fake_obj *t, *o;
	u32 id, to;

	mutex_lock(&fn->lock);
	fn->cmds++;
	t = fake_get(fn, FT_FT, ft->id);
	if (!fake_check(fn, t, "rule in no such flow table") ||
	    !fake_check(fn, num_dest == 1 && flow_act->action ==
			MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
			"rule: not a forward to one destination") ||
	    !fake_check(fn, fake_ft_rules(fn, ft->id) < t->size,
			"rule: flow table full"))
		goto out;
	if (dest->type == MLX5_FLOW_DESTINATION_TYPE_TIR) {
		to = dest->tir_num;
		if (!fake_check(fn, fake_get(fn, FT_TIR, to), "rule: no such TIR"))
			goto out;
	} else if (dest->type == MLX5_FLOW_DESTINATION_TYPE_FLOW_TABLE) {
		o = fake_get(fn, FT_FT, dest->ft->id);
		if (!fake_check(fn, o && o->aux > t->aux,
				"rule: to no flow table of a deeper level"))
			goto out;
		to = dest->ft->id;
	} else {
		fake_violation(fn, "rule: destination type %d", dest->type);
		goto out;
	}
	if (!fake_check(fn, !spec->match_criteria_enable ||
			spec->match_criteria_enable == MLX5_MATCH_OUTER_HEADERS,
			"rule: criteria beyond the outer headers") ||
	    fake_new(fn, FT_RULE, &id))
		goto out;
	o = fake_get(fn, FT_RULE, id);
	o->aux = ft->id;
	o->ref[o->nref++] = to;
	o->ref[o->nref++] = ft->id;
	ether_addr_copy(o->mask, MLX5_ADDR_OF(fte_match_set_lyr_2_4, mc,
					      dmac_47_16));
	ether_addr_copy(o->dmac, MLX5_ADDR_OF(fte_match_set_lyr_2_4, mv,
					      dmac_47_16));
	if (MLX5_GET(fte_match_set_lyr_2_4, mc, ethertype))
		o->etype = MLX5_GET(fte_match_set_lyr_2_4, mv, ethertype);
	if (MLX5_GET(fte_match_set_lyr_2_4, mc, ip_protocol))
		o->proto = MLX5_GET(fte_match_set_lyr_2_4, mv, ip_protocol);
	rule = &fn->rule[id - fake_base(FT_RULE)];
	rule->fn = fn;
	rule->id = id;
out:
	mutex_unlock(&fn->lock);
	return rule;
}

void mlx5_del_flow_rules(struct mlx5_flow_handle *fr)
{
	fake_cmd_destroy(fr->fn, FT_RULE, fr->id, NULL, 0);
}

/* ---- Functions ---------------------------------------------------------- */

static void fake_dev_release(struct device *dev)
{
}

static void fake_adev_release(struct device *dev)
{
}

static void fake_fn_free(struct fake_fn *fn)
{
	free_page((unsigned long)fn->uar_page);
	kfree(fn);
}

/* @opts: see the header comment */
static int fake_fn_create(unsigned int id, const char *opts)
{
	struct fake_fn *fn;
	char *o, *buf, *p;
	int err;

	fn = kzalloc(sizeof(*fn), GFP_KERNEL);
	if (!fn)
		return -ENOMEM;
	fn->uar_page = (void *)get_zeroed_page(GFP_KERNEL);
	if (!fn->uar_page) {
		kfree(fn);
		return -ENOMEM;
	}
	fn->id = id;
	fn->vectors = 2;
	mutex_init(&fn->lock);
	ATOMIC_INIT_NOTIFIER_HEAD(&fn->nh);
	fn->ns.fn = fn;
	fn->mdev.coredev_type = MLX5_COREDEV_PF;
	fn->mdev.caps.hca[MLX5_CAP_GENERAL] = &fn->cap_gen;
	fn->mdev.caps.hca[MLX5_CAP_ETHERNET_OFFLOADS] = &fn->cap_eth;
	fn->mdev.iseg = (struct mlx5_init_seg __iomem *)&fn->iseg;
	fn->mdev.pdev = &fn->pdev;
	/* firmware 16.35.2000, as "ethtool -i" shows it */
	fn->iseg.fw_rev = cpu_to_be32(35 << 16 | 16);
	fn->iseg.cmdif_rev_fw_sub = cpu_to_be32(2000);
	MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, port_type,
		 MLX5_CAP_PORT_TYPE_ETH);
	MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, log_bf_reg_size, 9);
	MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, bf, 1);
	MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, cq_moderation, 1);
	MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, log_max_cq_sz, 22);
	MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, log_max_wq_sz, 16);
	MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, log_max_rqt_size, 11);
	MLX5_SET(per_protocol_networking_offload_caps, fn->cap_eth.cur,
		 max_lso_cap, 18);
	MLX5_SET(per_protocol_networking_offload_caps, fn->cap_eth.cur,
		 wqe_inline_mode, MLX5_CAP_INLINE_MODE_NOT_REQUIRED);
	MLX5_SET(per_protocol_networking_offload_caps, fn->cap_eth.cur,
		 enhanced_multi_pkt_send_wqe, 1);
	MLX5_SET(pcam_reg, fn->mdev.caps.pcam,
		 feature_cap_mask.enhanced_features.ptys_connector_type, 1);

	buf = kstrdup(opts, GFP_KERNEL);
	if (!buf) {
		fake_fn_free(fn);
		return -ENOMEM;
	}
	p = buf;
	err = 0;
	while ((o = strsep(&p, " \t\n")) && !err) {
		unsigned int v;

		if (!*o)
			continue;
		if (!strcmp(o, "vf")) {
			fn->mdev.coredev_type = MLX5_COREDEV_VF;
		} else if (!strcmp(o, "ib")) {
			MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, port_type,
				 MLX5_CAP_PORT_TYPE_IB);
		} else if (sscanf(o, "bf_log=%u", &v) == 1) {
			MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, log_bf_reg_size, v);
		} else if (!strcmp(o, "ptys=ext")) {
			fn->ptys_ext = true;
			MLX5_SET(pcam_reg, fn->mdev.caps.pcam,
				 feature_cap_mask.enhanced_features.ptys_extended_ethernet,
				 1);
		} else if (!strcmp(o, "ts=rt") || !strcmp(o, "ts=both")) {
			fn->ts_cap = o[3] == 'r' ?
				     MLX5_TIMESTAMP_FORMAT_CAP_REAL_TIME :
				     MLX5_TIMESTAMP_FORMAT_CAP_FREE_RUNNING_AND_REAL_TIME;
			MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, sq_ts_format,
				 fn->ts_cap);
			MLX5_SET(cmd_hca_cap, fn->cap_gen.cur, rq_ts_format,
				 fn->ts_cap);
		} else if (sscanf(o, "vectors=%u", &v) == 1 && v && v <= 64) {
			fn->vectors = v;
		} else if (sscanf(o, "mpwqe=%u", &v) == 1) {
			MLX5_SET(per_protocol_networking_offload_caps,
				 fn->cap_eth.cur, enhanced_multi_pkt_send_wqe, !!v);
		} else if (!strcmp(o, "inline=none")) {
			fn->min_inline = MLX5_INLINE_MODE_NONE;
		} else if (!strcmp(o, "inline=l2") || !strcmp(o, "inline=ip")) {
			fn->min_inline = o[7] == 'l' ? MLX5_INLINE_MODE_L2 :
						       MLX5_INLINE_MODE_IP;
			MLX5_SET(per_protocol_networking_offload_caps,
				 fn->cap_eth.cur, wqe_inline_mode,
				 MLX5_CAP_INLINE_MODE_VPORT_CONTEXT);
		} else {
			err = -EINVAL;
		}
	}
	kfree(buf);
	if (err) {
		fake_fn_free(fn);
		return err;
	}

	/* the function's DMA device: RAM addressed directly */
	device_initialize(&fn->dev);
	fn->dev.release = fake_dev_release;
	fn->dev.coherent_dma_mask = DMA_BIT_MASK(64);
	fn->dev.dma_mask = &fn->dev.coherent_dma_mask;
	dev_set_name(&fn->dev, "cxbell_mlx5_fake.%u", id);
	err = device_add(&fn->dev);
	if (err) {
		put_device(&fn->dev);
		fake_fn_free(fn);
		return err;
	}
	fn->mdev.device = &fn->dev;

	fn->madev.mdev = &fn->mdev;
	fn->madev.idx = id;
	fn->madev.adev.name = "eth";
	fn->madev.adev.id = id;
	fn->madev.adev.dev.parent = &fn->dev;
	fn->madev.adev.dev.release = fake_adev_release;
	err = auxiliary_device_init(&fn->madev.adev);
	if (err)
		goto err_dev;
	/* as mlx5_core names it: mlx5_core.eth.<id> */
	err = __auxiliary_device_add(&fn->madev.adev, MLX5_ADEV_NAME);
	if (err) {
		auxiliary_device_uninit(&fn->madev.adev);
		goto err_dev;
	}
	fake_fns[id] = fn;
	return 0;

err_dev:
	device_del(&fn->dev);
	put_device(&fn->dev);
	fake_fn_free(fn);
	return err;
}

static void fake_fn_delete(struct fake_fn *fn)
{
	enum fake_type t;
	unsigned int i;

	/* the driver bound to it (cxbell_mlx5) is removed in here */
	auxiliary_device_delete(&fn->madev.adev);
	auxiliary_device_uninit(&fn->madev.adev);
	for (t = 0; t < FT_NUM; t++)
		for (i = 0; i < FAKE_MAX_OBJ; i++)
			if (fn->obj[t][i].live)
				fake_violation(fn, "%s 0x%x left after remove",
					       fake_type_name[t],
					       fake_base(t) + i);
	for (i = 1; i < FAKE_MAX_QC; i++)
		if (fn->qc_live[i])
			fake_violation(fn, "queue counter %u left after remove", i);
	if (fake_mpfs_count(fn))
		fake_violation(fn, "%u MPFS references left after remove",
			       fake_mpfs_count(fn));
	fake_fns[fn->id] = NULL;
	device_del(&fn->dev);
	put_device(&fn->dev);
	fake_fn_free(fn);
}

/* ---- debugfs ------------------------------------------------------------ */

static ssize_t fake_new_write(struct file *f, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	unsigned int id;
	char *buf;
	int err;

	buf = memdup_user_nul(ubuf, min_t(size_t, len, 256));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&fake_lock);
	for (id = 0; id < FAKE_MAX_FN && fake_fns[id]; id++)
		;
	err = id < FAKE_MAX_FN ? fake_fn_create(id, buf) : -ENOSPC;
	mutex_unlock(&fake_lock);
	kfree(buf);
	return err ? err : len;
}

static ssize_t fake_del_write(struct file *f, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	unsigned int id;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &id);
	if (err)
		return err;
	mutex_lock(&fake_lock);
	if (id < FAKE_MAX_FN && fake_fns[id])
		fake_fn_delete(fake_fns[id]);
	else
		err = -ENODEV;
	mutex_unlock(&fake_lock);
	return err ? err : len;
}

static ssize_t fake_link_write(struct file *f, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct mlx5_eqe eqe = {};
	struct fake_fn *fn;
	char state[8] = "";
	unsigned int id;
	char *buf;
	int err = 0;

	buf = memdup_user_nul(ubuf, min_t(size_t, len, 64));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (sscanf(buf, "%u %7s", &id, state) != 2 ||
	    (strcmp(state, "up") && strcmp(state, "down")))
		err = -EINVAL;
	kfree(buf);
	if (err)
		return err;
	mutex_lock(&fake_lock);
	fn = id < FAKE_MAX_FN ? fake_fns[id] : NULL;
	if (fn) {
		mutex_lock(&fn->lock);
		fn->vport_up = !strcmp(state, "up");
		fn->events++;
		mutex_unlock(&fn->lock);
		eqe.type = MLX5_EVENT_TYPE_PORT_CHANGE;
		eqe.sub_type = fn->vport_up ? MLX5_PORT_CHANGE_SUBTYPE_ACTIVE :
					      MLX5_PORT_CHANGE_SUBTYPE_DOWN;
		eqe.data.port.port = 1 << 4;
		/* as mlx5_core's EQ interrupt delivers it */
		local_irq_disable();
		atomic_notifier_call_chain(&fn->nh, MLX5_EVENT_TYPE_PORT_CHANGE,
					   &eqe);
		local_irq_enable();
	} else {
		err = -ENODEV;
	}
	mutex_unlock(&fake_lock);
	return err ? err : len;
}

/* "N OOB FCS LONG": what function N's port has counted: the queue
 * counter's out_of_buffer (32 bits), PPCNT's a_frame_check_sequence_errors
 * and a_frame_too_long_errors
 */
static ssize_t fake_counters_write(struct file *f, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	unsigned long long fcs, too_long;
	struct fake_fn *fn;
	unsigned int id;
	char *buf;
	u32 oob;
	int err = 0;

	buf = memdup_user_nul(ubuf, min_t(size_t, len, 96));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (sscanf(buf, "%u %u %llu %llu", &id, &oob, &fcs, &too_long) != 4)
		err = -EINVAL;
	kfree(buf);
	if (err)
		return err;
	mutex_lock(&fake_lock);
	fn = id < FAKE_MAX_FN ? fake_fns[id] : NULL;
	if (fn) {
		mutex_lock(&fn->lock);
		fn->out_of_buffer = oob;
		fn->fcs_errors = fcs;
		fn->too_long = too_long;
		mutex_unlock(&fn->lock);
	} else {
		err = -ENODEV;
	}
	mutex_unlock(&fake_lock);
	return err ? err : len;
}

static int fake_stats_show(struct seq_file *s, void *unused)
{
	unsigned int id, i, j;
	enum fake_type t;

	mutex_lock(&fake_lock);
	for (id = 0; id < FAKE_MAX_FN; id++) {
		struct fake_fn *fn = fake_fns[id];

		if (!fn)
			continue;
		mutex_lock(&fn->lock);
		seq_printf(s, "fn %u\n", id);
		for (t = 0; t < FT_NUM; t++) {
			unsigned int n = 0;

			for (i = 0; i < FAKE_MAX_OBJ; i++)
				n += fn->obj[t][i].live;
			seq_printf(s, "live_%s %u\n", fake_type_name[t], n);
		}
		seq_printf(s, "violations %lu\ncmds %lu\nmodify_rqt %lu\nmodify_tir %lu\nevents %lu\n",
			   fn->violations, fn->cmds, fn->modify_rqt,
			   fn->modify_tir, fn->events);
		seq_printf(s, "mpfs %u\n", fake_mpfs_count(fn));
		for (i = 1, j = 0; i < FAKE_MAX_QC; i++)
			j += fn->qc_live[i];
		seq_printf(s, "q_counters %u\n", j);
		seq_printf(s, "admin %u\npmtu %u\nvport_mtu %u\npptx %u\npprx %u\nvport_up %u\n",
			   fn->admin, fn->pmtu, fn->vport_mtu, fn->pptx,
			   fn->pprx, fn->vport_up);
		for (i = 0; i < FAKE_MAX_OBJ; i++) {
			struct fake_obj *o = &fn->obj[FT_RQT][i];

			if (!o->live)
				continue;
			seq_printf(s, "rqt 0x%x size %u:", fake_base(FT_RQT) + i,
				   o->nref);
			for (j = 0; j < o->nref; j++)
				seq_printf(s, " %x", o->ref[j]);
			seq_puts(s, "\n");
		}
		for (i = 0; i < FAKE_MAX_OBJ; i++) {
			struct fake_obj *o = &fn->obj[FT_RULE][i];
			struct fake_obj *ft;

			if (!o->live)
				continue;
			ft = fake_get(fn, FT_FT, o->aux);
			seq_printf(s, "rule level %u dmac %pM/%pM etype 0x%04x proto %u -> %s\n",
				   ft ? ft->aux : 99, o->dmac, o->mask, o->etype,
				   o->proto,
				   fake_get(fn, FT_TIR, o->ref[0]) ? "tir" : "table");
		}
		seq_puts(s, "rq");
		for (i = 0; i < FAKE_MAX_OBJ; i++)
			if (fn->obj[FT_RQ][i].live)
				seq_printf(s, " %x", fake_base(FT_RQ) + i);
		seq_puts(s, "\n");
		mutex_unlock(&fn->lock);
	}
	mutex_unlock(&fake_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fake_stats);

static const struct file_operations fake_new_fops = {
	.owner = THIS_MODULE,
	.write = fake_new_write,
};

static const struct file_operations fake_del_fops = {
	.owner = THIS_MODULE,
	.write = fake_del_write,
};

static const struct file_operations fake_link_fops = {
	.owner = THIS_MODULE,
	.write = fake_link_write,
};

static const struct file_operations fake_counters_fops = {
	.owner = THIS_MODULE,
	.write = fake_counters_write,
};

int __init cxb_mlx5_fake_init(void)
{
	fake_dir = debugfs_create_dir("cxbell_mlx5_fake", NULL);
	debugfs_create_file("new", 0200, fake_dir, NULL, &fake_new_fops);
	debugfs_create_file("del", 0200, fake_dir, NULL, &fake_del_fops);
	debugfs_create_file("link", 0200, fake_dir, NULL, &fake_link_fops);
	debugfs_create_file("counters", 0200, fake_dir, NULL,
			    &fake_counters_fops);
	debugfs_create_file("stats", 0400, fake_dir, NULL, &fake_stats_fops);
	return 0;
}

void cxb_mlx5_fake_exit(void)
{
	unsigned int id;

	debugfs_remove_recursive(fake_dir);
	mutex_lock(&fake_lock);
	for (id = 0; id < FAKE_MAX_FN; id++)
		if (fake_fns[id])
			fake_fn_delete(fake_fns[id]);
	mutex_unlock(&fake_lock);
}
