/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU model of a dual-port Mellanox ConnectX-3: CQs, QPs, steering,
 * the send and receive engines and the cable between the two ports.
 *
 * Layouts follow the Linux mlx4 driver (include/linux/mlx4/qp.h,
 * cq.h, device.h; mlx4_core mlx4.h, qp.c, cq.c, mcg.c; mlx4_en
 * en_tx.c, en_rx.c, en_resources.c). All multi-byte fields in
 * contexts, WQEs and CQEs are big-endian.
 *
 * BAR2 accesses arrive here as the little-endian value of the bytes
 * the guest wrote (the MemoryRegionOps are DEVICE_LITTLE_ENDIAN), so
 * a big-endian doorbell word is byte-swapped back here.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/timer.h"
#include "connectx3.h"

/* command opcodes, include/linux/mlx4/cmd.h */
enum {
	CMD_SW2HW_CQ		= 0x16,
	CMD_HW2SW_CQ		= 0x17,
	CMD_QUERY_CQ		= 0x18,
	CMD_MODIFY_CQ		= 0x2c,
	CMD_RST2INIT_QP		= 0x19,
	CMD_INIT2RTR_QP		= 0x1a,
	CMD_RTR2RTS_QP		= 0x1b,
	CMD_RTS2RTS_QP		= 0x1c,
	CMD_SQERR2RTS_QP	= 0x1d,
	CMD_2ERR_QP		= 0x1e,
	CMD_RTS2SQD_QP		= 0x1f,
	CMD_SQD2RTS_QP		= 0x20,
	CMD_2RST_QP		= 0x21,
	CMD_QUERY_QP		= 0x22,
	CMD_INIT2INIT_QP	= 0x2d,
	CMD_SQD2SQD_QP		= 0x38,
	CMD_SET_VLAN_FLTR	= 0x47,
	CMD_SET_MCAST_FLTR	= 0x48,
	CMD_READ_MCG		= 0x25,
	CMD_WRITE_MCG		= 0x26,
	CMD_MGID_HASH		= 0x27,
	CMD_FLOW_ATTACH		= 0x65,
	CMD_FLOW_DETACH		= 0x66,
};

enum {
	QPS_RST = 0, QPS_INIT = 1, QPS_RTR = 2, QPS_RTS = 3,
	QPS_SQER = 4, QPS_SQD = 5, QPS_ERR = 6,
};

/* include/linux/mlx4/device.h, qp.h, cq.h */
#define OP_NOP			0x00
#define OP_SEND			0x0a
#define OP_LSO			0x0e
#define CQE_OP_ERROR		0x1e
#define CQE_OWNER		0x80
#define CQE_IS_SEND		0x40
#define SYN_LOCAL_LENGTH	0x01
#define SYN_LOCAL_QP_OP		0x02
#define SYN_LOCAL_PROT		0x04
#define SYN_WR_FLUSH		0x05
#define WQE_CTRL_CQ_UPDATE	(3 << 2)
#define WQE_CTRL_IP_CSUM	BIT(4)
#define WQE_CTRL_L4_CSUM	BIT(5)
#define WQE_CTRL_INS_CVLAN	BIT(6)
#define WQE_CTRL_INS_SVLAN	BIT(7)
#define INLINE_SEG		BIT(31)
#define TXBB			64
#define EN_MEMTYPE_PAD		0x100	/* mlx4_en: unused RX data segs */
#define CQE_CVLAN_PRESENT	BIT(29)
#define ST_IPV4			BIT(6)
#define ST_IPV4F		BIT(7)
#define ST_IPV6			BIT(8)
#define ST_TCP			BIT(10)
#define ST_UDP			BIT(11)
#define ST_IPOK			BIT(12)
#define RSS_UDP_IPV6		BIT(0)
#define RSS_UDP_IPV4		BIT(1)
#define RSS_TCP_IPV6		BIT(2)
#define RSS_IPV6		BIT(3)
#define RSS_TCP_IPV4		BIT(4)
#define RSS_IPV4		BIT(5)
#define RSS_QPC_FLAG		BIT(13)

#define MAX_FRAME		(64 * 1024 + 512)
#define MAX_RULES		1024
#define BF_SLOTS		32
#define WQE_MAX			(63 * 16)

typedef struct CX3Cq {
	CX3State *s;
	uint32_t cqn;
	unsigned int log_size;
	unsigned int log_page;	/* bytes */
	uint64_t mtt;
	uint64_t db_rec;	/* set_ci record; arm record at +4 */
	uint8_t eqn;
	uint32_t pi;		/* CQEs written */
	uint8_t arm;		/* 0, 1 (solicited), 2 (next) */
	uint8_t sn;		/* sn the next arm must carry */
	uint16_t max_count;
	uint16_t period;	/* microseconds */
	uint32_t pending;	/* CQEs since the last event */
	int64_t last_event;	/* virtual ns: the period starts there */
	bool overrun;
	QEMUTimer *timer;
} CX3Cq;

typedef struct CX3Qp {
	uint32_t qpn;
	uint8_t state;
	bool rss;
	uint8_t port;		/* 1 or 2 */
	uint32_t pd;
	uint32_t cqn_send, cqn_recv;
	uint64_t mtt;
	unsigned int log_page;
	uint64_t db_rec;
	unsigned int rq_log_size, rq_log_stride;	/* stride in bytes, log */
	unsigned int sq_log_size, sq_log_stride;
	bool has_rq;
	uint64_t rq_off, sq_off;
	uint32_t sq_head;	/* TXBBs consumed */
	uint32_t rq_head;	/* RQ WQEs consumed */
	bool paused;		/* SQ waits for the pause timer */
	bool held;		/* SQ held since its last WQE went out */
	bool strip_vlan;
	/* RSS indirection QP (mlx4_rss_context) */
	uint32_t rss_base, rss_default, rss_udp_base;
	unsigned int rss_log;
	uint8_t rss_fn, rss_flags;
	uint8_t rss_key[40];
} CX3Qp;

typedef struct CX3Rule {
	bool used;
	uint64_t id;
	uint16_t prio;
	uint8_t type;		/* 0 regular, 1 all default, 3 mc default */
	uint8_t port;
	uint32_t qpn;
	bool eth;
	uint8_t dmac[6], dmac_m[6];
	uint16_t vlan, vlan_m;
	bool etype_en;
	uint16_t etype;
} CX3Rule;

typedef struct CX3Bf {
	hwaddr base;		/* BAR2 offset of this BF buffer, ~0 free */
	uint8_t buf[512];
	unsigned int got;
	unsigned int len;
	bool done;		/* executed; the rest is padding */
} CX3Bf;

typedef struct CX3Dp {
	GHashTable *cqs;
	GHashTable *qps;
	GHashTable *mcg;	/* B0 steering: MCG index -> entry */
	/*
	 * B0 promiscuous QPs (mlx4_WRITE_PROMISC: WRITE_MCG, op_mod 1) by
	 * port and steer type (MLX4_MC_STEER 0, MLX4_UC_STEER 1): the
	 * default entry's first member, -1 none
	 */
	int64_t promisc_qpn[CX3_NUM_PORTS][2];
	CX3Rule rule[MAX_RULES];
	uint64_t next_rule_id;
	uint32_t vlan_fltr[CX3_NUM_PORTS][128];
	bool vlan_fltr_set[CX3_NUM_PORTS];
	uint32_t cq_db_w0;
	bool cq_db_w0_ok;
	CX3Bf bf[BF_SLOTS];
	unsigned int bf_next;
	uint8_t frame[MAX_FRAME];
	uint8_t seg[MAX_FRAME];
	uint8_t rxbuf[MAX_FRAME + 4];
	QEMUTimer *pause_timer;	/* retries send queues held by pause */
} CX3Dp;

/*
 * Defaults for the core services the datapath asks of connectx3_cmd.c
 * (see the end of connectx3.h); the core's definitions replace them.
 */
hwaddr cx3_bf_base(CX3State *s)
{
	/* BAR2 layout of connectx3.h: BlueFlame pages after CX3_UAR_SIZE */
	return CX3_UAR_SIZE;
}

unsigned int cx3_bf_reg_size(CX3State *s)
{
	return 512;	/* QUERY_DEV_CAP log_bf_reg_size 9 */
}

unsigned int cx3_cqe_size(CX3State *s)
{
	return 32;
}

/* CX3_DP_DEBUG in QEMU's environment: trace drops, arms and events */
static bool dp_debug;

static CX3Cq *cq_get(CX3State *s, uint32_t cqn)
{
	return g_hash_table_lookup(s->dp->cqs, GUINT_TO_POINTER(cqn));
}

static CX3Qp *qp_get(CX3State *s, uint32_t qpn)
{
	return g_hash_table_lookup(s->dp->qps, GUINT_TO_POINTER(qpn));
}

/* ---- buffers described by MTTs ---- */

static bool buf_rw(CX3State *s, uint64_t mtt, unsigned int log_page,
		   uint64_t off, void *p, uint64_t len, bool write)
{
	uint8_t *b = p;

	while (len) {
		uint64_t psz = 1ull << log_page;
		uint64_t n = MIN(len, psz - (off & (psz - 1)));
		dma_addr_t a;

		if (!cx3_mtt_addr(s, mtt, log_page, off, &a))
			return false;
		if (write ? !cx3_dma_write(s, a, b, n) : !cx3_dma_read(s, a, b, n))
			return false;
		b += n;
		off += n;
		len -= n;
	}
	return true;
}

/* scatter/gather through an lkey, page by page of the MR */
static bool lkey_rw(CX3State *s, uint32_t lkey, uint64_t va, void *p,
		    uint32_t len, bool write)
{
	uint8_t *b = p;

	while (len) {
		uint32_t n = MIN(len, 4096 - (va & 4095));
		dma_addr_t a;

		if (!cx3_mpt_addr(s, lkey, va, n, &a))
			return false;
		if (write ? !cx3_dma_write(s, a, b, n) : !cx3_dma_read(s, a, b, n))
			return false;
		b += n;
		va += n;
		len -= n;
	}
	return true;
}

/* ---- CQs ---- */

static void cq_event(CX3Cq *cq)
{
	CX3State *s = cq->s;

	timer_del(cq->timer);
	cq->arm = 0;
	cq->pending = 0;
	cq->last_event = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
	cq->sn = (cq->sn + 1) & 3;
	if (dp_debug)
		fprintf(stderr, "connectx3: dp: event cq 0x%x eq %u\n",
			cq->cqn, cq->eqn);
	cx3_eq_comp(s, cq->eqn, cq->cqn);
}

static void cq_timer(void *opaque)
{
	CX3Cq *cq = opaque;

	if (dp_debug)
		fprintf(stderr, "connectx3: dp: timer cq 0x%x arm %u pending %u\n",
			cq->cqn, cq->arm, cq->pending);
	if (cq->arm && cq->pending)
		cq_event(cq);
}

/*
 * An armed CQ with CQEs pending: its event now or when the period ends.
 * The event is due when max_count CQEs are pending since the last event
 * or cq_period microseconds have passed since it: the period restarts
 * with each event, a ConnectX's default ("net/mlx5e: CQE based
 * moderation" made restarting it on each CQE an option). A period of 0
 * passes at once (mlx4_en's adaptive moderation sets rx_usecs 0 at low
 * rates and expects an interrupt per packet).
 */
static void cq_check(CX3Cq *cq)
{
	int64_t end;

	if (!cq->arm || !cq->pending)
		return;
	if (!cq->period || (cq->max_count && cq->pending >= cq->max_count)) {
		cq_event(cq);
		return;
	}
	end = cq->last_event + (int64_t)cq->period * 1000;
	if (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) >= end) {
		cq_event(cq);
		return;
	}
	if (!timer_pending(cq->timer))
		timer_mod(cq->timer, end);
}

/* after a CQE (solicited or not): an event now, later, or at the arm */
static void cq_moderate(CX3Cq *cq, bool solicited)
{
	cq->pending++;
	if (cq->arm == 1 && !solicited)
		return;
	cq_check(cq);
}

/*
 * Write a 32-byte CQE (struct mlx4_cqe; in the upper half of a 64-byte
 * entry when 64-byte CQEs are on, as mlx4_en reads them).
 */
static bool cq_post(CX3State *s, uint32_t cqn, uint8_t cqe[32], bool solicited)
{
	CX3Cq *cq = cq_get(s, cqn);
	unsigned int esz = cx3_cqe_size(s);
	uint32_t size, ci;
	uint8_t rec[4];

	if (!cq) {
		cx3_violation(s, "CQE for CQ 0x%x not in hardware ownership", cqn);
		return false;
	}
	size = 1u << cq->log_size;
	if (!cx3_dma_read(s, cq->db_rec, rec, 4))
		return false;
	ci = ldl_be_p(rec) & 0xffffff;
	if (((cq->pi - ci) & 0xffffff) >= size) {
		if (!cq->overrun) {
			/* MLX4_EVENT_TYPE_CQ_ERROR, syndrome 1 (overrun) */
			uint8_t d[28] = { 0 };

			cx3_violation(s, "CQ 0x%x overrun (pi %u ci %u size %u)",
				      cqn, cq->pi, ci, size);
			stl_be_p(d, cqn);
			d[11] = 1;
			cx3_eq_async(s, 0x04, 0, d);
		}
		cq->overrun = true;
		return false;
	}
	cqe[31] = (cqe[31] & ~CQE_OWNER) | ((cq->pi & size) ? CQE_OWNER : 0);
	if (!buf_rw(s, cq->mtt, cq->log_page,
		    (uint64_t)(cq->pi & (size - 1)) * esz + (esz - 32),
		    cqe, 32, true))
		return false;
	cq->pi++;
	s->ctr.cqes++;
	cq_moderate(cq, solicited);
	return true;
}

/* UAR + 0x20: [sn:2 at 28 | cmd at 24 | cqn] [ci], mlx4 cq.h mlx4_cq_arm */
static void cq_doorbell(CX3State *s, uint32_t w0, uint32_t w1)
{
	uint32_t cqn = w0 & 0xffffff;
	uint8_t cmd = (w0 >> 24) & 3, sn = (w0 >> 28) & 3;
	CX3Cq *cq = cq_get(s, cqn);
	uint32_t ci = w1 & 0xffffff, used;

	s->ctr.doorbells++;
	s->ctr.cq_doorbells++;
	if (!cq) {
		cx3_violation(s, "CQ doorbell for CQ 0x%x not in hardware", cqn);
		return;
	}
	if (cmd != 1 && cmd != 2) {
		cx3_violation(s, "CQ 0x%x doorbell cmd %u", cqn, cmd);
		return;
	}
	s->ctr.cq_arms++;
	if (dp_debug)
		fprintf(stderr, "connectx3: dp: arm cq 0x%x sn %u/%u cmd %u "
			"ci %u pi %u\n", cqn, sn, cq->sn, cmd, ci, cq->pi);
	/* an arm carrying an old sequence number is stale: ignored */
	if (sn != cq->sn)
		return;
	/* already armed: a request for the next event keeps the stronger */
	if (cmd > cq->arm)
		cq->arm = cmd;
	/*
	 * CQEs beyond the consumer index (some perhaps from before the last
	 * event): the event is due as moderation rules it
	 */
	used = (cq->pi - ci) & 0xffffff;
	if (used > cq->pending)
		cq->pending = used;
	cq_check(cq);
}

static void cq_free(gpointer p)
{
	CX3Cq *cq = p;

	timer_free(cq->timer);
	g_free(cq);
}

static int cmd_sw2hw_cq(CX3State *s, CX3Cmd *c)
{
	uint32_t cqn = c->in_mod & 0xffffff;
	uint8_t ctx[64];
	CX3Cq *cq;

	if (cq_get(s, cqn)) {
		cx3_violation(s, "SW2HW_CQ 0x%x: already in hardware", cqn);
		return CX3_STAT_BAD_RES_STATE;
	}
	if (!cx3_inbox(s, c, ctx, sizeof(ctx)))
		return CX3_STAT_BAD_PARAM;
	cq = g_new0(CX3Cq, 1);
	cq->s = s;
	cq->cqn = cqn;
	cq->log_size = (ldl_be_p(ctx + 12) >> 24) & 0x1f;
	cq->period = lduw_be_p(ctx + 16);
	cq->max_count = lduw_be_p(ctx + 18);
	cq->eqn = ctx[23];
	cq->log_page = ctx[24] + 12;
	cq->mtt = ((uint64_t)ctx[27] << 32) | ldl_be_p(ctx + 28);
	cq->db_rec = ldq_be_p(ctx + 56);
	cq->sn = 1;	/* mlx4_cq_alloc: cq->arm_sn = 1 */
	/* no event yet: the first period is long over */
	cq->last_event = INT64_MIN / 2;
	if (cq->log_size > 22 || ctx[24] > 20 || (cq->db_rec & 3)) {
		cx3_violation(s, "SW2HW_CQ 0x%x: log_size %u log_page %u db 0x%"
			      PRIx64, cqn, cq->log_size, ctx[24], cq->db_rec);
		g_free(cq);
		return CX3_STAT_BAD_PARAM;
	}
	/*
	 * Unless the driver did it (op_mod 1: MLX4_DEV_CAP_FLAG2_SW_CQ_INIT,
	 * mlx4_core cq.c), the firmware hands the CQ over with every entry
	 * in software ownership: the 0xcc pattern, owner bit set.
	 */
	if (c->opmod == 0) {
		unsigned int esz = cx3_cqe_size(s);
		uint64_t total = (uint64_t)esz << cq->log_size, off;
		uint8_t pat[4096];

		memset(pat, 0xcc, sizeof(pat));
		for (off = 0; off < total; off += sizeof(pat)) {
			if (!buf_rw(s, cq->mtt, cq->log_page, off, pat,
				    MIN(sizeof(pat), total - off), true)) {
				g_free(cq);
				return CX3_STAT_BAD_PARAM;
			}
		}
	}
	cq->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, cq_timer, cq);
	g_hash_table_insert(s->dp->cqs, GUINT_TO_POINTER(cqn), cq);
	return CX3_STAT_OK;
}

static int cmd_hw2sw_cq(CX3State *s, CX3Cmd *c)
{
	uint32_t cqn = c->in_mod & 0xffffff;

	if (!g_hash_table_remove(s->dp->cqs, GUINT_TO_POINTER(cqn))) {
		cx3_violation(s, "HW2SW_CQ 0x%x: not in hardware", cqn);
		return CX3_STAT_BAD_RES_STATE;
	}
	return CX3_STAT_OK;
}

/* mlx4_core cq.c: op_mod 1 moderation, op_mod 0 resize */
static int cmd_modify_cq(CX3State *s, CX3Cmd *c)
{
	uint32_t cqn = c->in_mod & 0xffffff;
	CX3Cq *cq = cq_get(s, cqn);
	uint8_t ctx[64];

	if (!cq) {
		cx3_violation(s, "MODIFY_CQ 0x%x: not in hardware", cqn);
		return CX3_STAT_BAD_RES_STATE;
	}
	if (!cx3_inbox(s, c, ctx, sizeof(ctx)))
		return CX3_STAT_BAD_PARAM;
	if (c->opmod == 1) {
		cq->period = lduw_be_p(ctx + 16);
		cq->max_count = lduw_be_p(ctx + 18);
		if (dp_debug)
			fprintf(stderr, "connectx3: dp: modify cq 0x%x period %u "
				"count %u\n", cqn, cq->period, cq->max_count);
		return CX3_STAT_OK;
	}
	if (c->opmod == 0) {
		unsigned int log_size = (ldl_be_p(ctx + 12) >> 24) & 0x1f;

		/* a resized CQ obeys the limits of SW2HW_CQ */
		if (log_size > 22 || ctx[24] > 20) {
			cx3_violation(s, "MODIFY_CQ 0x%x resize: log_size %u "
				      "log_page %u", cqn, log_size, ctx[24]);
			return CX3_STAT_BAD_PARAM;
		}
		cq->log_size = log_size;
		cq->log_page = ctx[24] + 12;
		cq->mtt = ((uint64_t)ctx[27] << 32) | ldl_be_p(ctx + 28);
		cq->pi = 0;
		return CX3_STAT_OK;
	}
	cx3_violation(s, "MODIFY_CQ 0x%x: op_mod %u", cqn, c->opmod);
	return CX3_STAT_BAD_PARAM;
}

/* ---- QPs ---- */

/* struct mlx4_qp_context at mailbox + 8 (mlx4_core qp.c) */
static int qp_parse(CX3State *s, CX3Qp *qp, const uint8_t *ctx)
{
	uint8_t rqs = ctx[9], sqs = ctx[10];
	uint32_t flags = ldl_be_p(ctx);
	uint8_t sched = ctx[24 + 32];
	uint64_t rq_bytes, sq_bytes;

	qp->rss = flags & RSS_QPC_FLAG;
	qp->pd = ldl_be_p(ctx + 4) & 0xffffff;
	qp->port = ((sched >> 6) & 1) + 1;
	qp->cqn_send = ldl_be_p(ctx + 124) & 0xffffff;
	qp->cqn_recv = ldl_be_p(ctx + 156) & 0xffffff;
	qp->db_rec = ldq_be_p(ctx + 160);
	qp->strip_vlan = !(ldl_be_p(ctx + 192) & BIT(30));
	qp->log_page = ctx[200] + 12;
	qp->mtt = ((uint64_t)ctx[203] << 32) | ldl_be_p(ctx + 204);
	qp->rq_log_size = rqs >> 3;
	qp->rq_log_stride = (rqs & 7) + 4;
	qp->has_rq = rqs != 0;
	qp->sq_log_size = sqs >> 3;
	qp->sq_log_stride = (sqs & 7) + 4;
	if (ctx[200] > 20 || qp->rq_log_size > 16 || qp->sq_log_size > 16) {
		cx3_violation(s, "QP 0x%x context: log_page %u rq 0x%x sq 0x%x",
			      qp->qpn, ctx[200], rqs, sqs);
		return CX3_STAT_BAD_PARAM;
	}
	/*
	 * The RQ and SQ share one buffer; the queue with the larger stride
	 * comes first, the SQ on a tie (mlx4_en en_rx.c: buf += TXBB_SIZE
	 * when the RX stride is <= TXBB_SIZE).
	 */
	rq_bytes = qp->has_rq ? (1ull << (qp->rq_log_size + qp->rq_log_stride)) : 0;
	sq_bytes = 1ull << (qp->sq_log_size + qp->sq_log_stride);
	if (qp->has_rq && qp->rq_log_stride > qp->sq_log_stride) {
		qp->rq_off = 0;
		qp->sq_off = rq_bytes;
	} else {
		qp->sq_off = 0;
		qp->rq_off = sq_bytes;
	}
	if (qp->rss) {
		const uint8_t *r = ctx + 24 + 0x24;
		uint32_t b = ldl_be_p(r);

		qp->rss_base = b & 0xffffff;
		qp->rss_log = (b >> 24) & 0x1f;
		qp->rss_default = ldl_be_p(r + 4) & 0xffffff;
		qp->rss_fn = r[10];
		qp->rss_flags = r[11];
		memcpy(qp->rss_key, r + 12, 40);
		qp->rss_udp_base = ldl_be_p(r + 52) & 0xffffff;
		if (qp->rss_log > 8) {
			cx3_violation(s, "RSS QP 0x%x: 2^%u QPs", qp->qpn,
				      qp->rss_log);
			return CX3_STAT_BAD_PARAM;
		}
	}
	return CX3_STAT_OK;
}

static int cmd_qp(CX3State *s, CX3Cmd *c)
{
	uint32_t qpn = c->in_mod & 0xffffff;
	CX3Qp *qp = qp_get(s, qpn);
	uint8_t cur = qp ? qp->state : QPS_RST;
	bool from_ok;
	uint8_t to;
	uint8_t mb[8 + 248];
	int ret;

	/* the transitions of mlx4_core qp.c __mlx4_qp_modify: from, to */
	static const struct {
		uint16_t op;
		int8_t from;	/* -1: any state */
		uint8_t to;
	} tr[] = {
		{ CMD_RST2INIT_QP, QPS_RST, QPS_INIT },
		{ CMD_INIT2INIT_QP, QPS_INIT, QPS_INIT },
		{ CMD_INIT2RTR_QP, QPS_INIT, QPS_RTR },
		{ CMD_RTR2RTS_QP, QPS_RTR, QPS_RTS },
		{ CMD_RTS2RTS_QP, QPS_RTS, QPS_RTS },
		{ CMD_SQERR2RTS_QP, QPS_SQER, QPS_RTS },
		{ CMD_RTS2SQD_QP, QPS_RTS, QPS_SQD },
		{ CMD_SQD2SQD_QP, QPS_SQD, QPS_SQD },
		{ CMD_SQD2RTS_QP, QPS_SQD, QPS_RTS },
		{ CMD_2ERR_QP, -1, QPS_ERR },
		{ CMD_2RST_QP, -1, QPS_RST },
	};
	unsigned int t;

	for (t = 0; t < ARRAY_SIZE(tr) && tr[t].op != c->opcode; t++)
		;
	if (t == ARRAY_SIZE(tr))
		return CX3_STAT_BAD_OP;
	from_ok = tr[t].from < 0 || tr[t].from == cur;
	to = tr[t].to;
	if (!from_ok) {
		cx3_violation(s, "QP 0x%x: command 0x%x in state %u", qpn,
			      c->opcode, cur);
		return CX3_STAT_BAD_QP_STATE;
	}
	if (to == QPS_RST) {
		g_hash_table_remove(s->dp->qps, GUINT_TO_POINTER(qpn));
		return CX3_STAT_OK;
	}
	if (to == QPS_ERR && !qp)
		return CX3_STAT_OK;	/* RST -> ERR */
	if (to == QPS_ERR) {
		qp->state = QPS_ERR;
		return CX3_STAT_OK;
	}
	if (!cx3_inbox(s, c, mb, sizeof(mb)))
		return CX3_STAT_BAD_PARAM;
	if (c->opcode == CMD_RST2INIT_QP) {
		CX3Qp *n = g_new0(CX3Qp, 1);

		n->qpn = qpn;
		ret = qp_parse(s, n, mb + 8);
		if (ret) {
			g_free(n);
			return ret;
		}
		n->state = QPS_INIT;
		g_hash_table_insert(s->dp->qps, GUINT_TO_POINTER(qpn), n);
		return CX3_STAT_OK;
	}
	/* the address path (port) and RSS context may change on INIT2RTR */
	if (c->opcode == CMD_INIT2RTR_QP) {
		uint8_t sched = mb[8 + 24 + 32];

		qp->port = ((sched >> 6) & 1) + 1;
	}
	qp->state = to;
	return CX3_STAT_OK;
}

/* ---- steering ---- */

/* SET_VLAN_FLTR (mlx4_en en_port.c): vid v is entry[127 - v / 32] bit v % 32 */
static int cmd_set_vlan_fltr(CX3State *s, CX3Cmd *c)
{
	unsigned int port = c->in_mod & 0xff;
	uint8_t mb[512];
	int i;

	if (port < 1 || port > CX3_NUM_PORTS) {
		cx3_violation(s, "SET_VLAN_FLTR port %u", port);
		return CX3_STAT_BAD_PARAM;
	}
	if (!cx3_inbox(s, c, mb, sizeof(mb)))
		return CX3_STAT_BAD_PARAM;
	for (i = 0; i < 128; i++)
		s->dp->vlan_fltr[port - 1][i] = ldl_be_p(mb + 4 * i);
	s->dp->vlan_fltr_set[port - 1] = true;
	return CX3_STAT_OK;
}

static bool vlan_allowed(CX3State *s, unsigned int port, uint16_t vid)
{
	if (!s->dp->vlan_fltr_set[port - 1])
		return true;
	return s->dp->vlan_fltr[port - 1][127 - vid / 32] & (1u << (vid % 32));
}

/*
 * MLX4_QP_FLOW_STEERING_ATTACH: struct mlx4_net_trans_rule_hw_ctrl then
 * specs (mlx4_core mcg.c); in_mod is the size in dwords, the rule id
 * is the immediate output.
 */
static int cmd_flow_attach(CX3State *s, CX3Cmd *c)
{
	unsigned int size = (c->in_mod & 0xffff) * 4, off;
	uint8_t mb[CX3_MAILBOX_SIZE];
	CX3Rule r = { .used = true };
	int i;

	if (size < 16 || size > sizeof(mb)) {
		cx3_violation(s, "FLOW_STEERING_ATTACH: size %u", size);
		return CX3_STAT_BAD_PARAM;
	}
	if (!cx3_inbox(s, c, mb, size))
		return CX3_STAT_BAD_PARAM;
	r.prio = lduw_be_p(mb);
	r.type = mb[2];
	r.port = mb[7];
	r.qpn = ldl_be_p(mb + 8) & 0xffffff;
	if (r.port < 1 || r.port > CX3_NUM_PORTS ||
	    (r.type != 0 && r.type != 1 && r.type != 3)) {
		cx3_violation(s, "FLOW_STEERING_ATTACH: port %u type %u",
			      r.port, r.type);
		return CX3_STAT_BAD_PARAM;
	}
	for (off = 16; off < size;) {
		unsigned int len = mb[off] * 4;
		uint16_t id = lduw_be_p(mb + off + 2);

		if (len < 4 || off + len > size) {
			cx3_violation(s, "FLOW_STEERING_ATTACH: spec size %u", len);
			return CX3_STAT_BAD_PARAM;
		}
		if (id == 0xe001 && len >= 48) {
			const uint8_t *e = mb + off;

			r.eth = true;
			memcpy(r.dmac, e + 10, 6);
			memcpy(r.dmac_m, e + 18, 6);
			r.etype_en = e[41];
			r.etype = lduw_be_p(e + 42);
			r.vlan_m = lduw_be_p(e + 44);
			r.vlan = lduw_be_p(e + 46);
		} else {
			/* L3/L4/VXLAN specs: not modelled yet */
			fprintf(stderr, "connectx3: unimplemented: flow spec "
				"0x%04x\n", id);
			return CX3_STAT_BAD_PARAM;
		}
		off += len;
	}
	for (i = 0; i < MAX_RULES; i++) {
		if (!s->dp->rule[i].used) {
			r.id = ++s->dp->next_rule_id;
			s->dp->rule[i] = r;
			c->out_param = r.id;
			c->out_is_imm = true;
			return CX3_STAT_OK;
		}
	}
	return CX3_STAT_EXCEED_LIM;
}

static int cmd_flow_detach(CX3State *s, CX3Cmd *c)
{
	int i;

	for (i = 0; i < MAX_RULES; i++) {
		if (s->dp->rule[i].used && s->dp->rule[i].id == c->in_param) {
			s->dp->rule[i].used = false;
			return CX3_STAT_OK;
		}
	}
	cx3_violation(s, "FLOW_STEERING_DETACH: no rule 0x%" PRIx64, c->in_param);
	return CX3_STAT_BAD_PARAM;
}

/*
 * B0 steering (mlx4_core mcg.c): MGM entries of 2^log_mc_entry_sz bytes
 * (struct mlx4_mgm: next_gid_index, members_count with the protocol in
 * bits 31:30, gid, QPNs), 2^log_mc_hash_sz hash buckets then the AMGM,
 * 2^log_mc_table_sz in all. The hash is the firmware's own choice: the
 * driver only asks MGID_HASH.
 */
#define MCG_ESZ_MAX	BIT(12)		/* mcg_ok: log_mc_entry_sz <= 12 */

static unsigned int mcg_esz(CX3State *s)
{
	return 1u << s->hca.log_mc_entry_sz;
}

static uint32_t mcg_hash(CX3State *s, const uint8_t gid[16])
{
	uint32_t h = 0;
	int i;

	for (i = 0; i < 16; i++)
		h = h * 31 + gid[i];
	return h & ((1u << s->hca.log_mc_hash_sz) - 1);
}

static bool mcg_ok(CX3State *s, uint32_t idx, const char *what)
{
	if (!s->hca.up || s->hca.log_mc_entry_sz < 6 ||
	    s->hca.log_mc_entry_sz > 12 ||
	    idx >= (1u << s->hca.log_mc_table_sz)) {
		cx3_violation(s, "%s: MCG index 0x%x (table 2^%u)", what, idx,
			      s->hca.log_mc_table_sz);
		return false;
	}
	return true;
}

static int cmd_mgid_hash(CX3State *s, CX3Cmd *c)
{
	uint8_t gid[16];

	if (!mcg_ok(s, 0, "MGID_HASH"))
		return CX3_STAT_BAD_SYS_STATE;
	if (!cx3_inbox(s, c, gid, 16))
		return CX3_STAT_BAD_PARAM;
	c->out_param = mcg_hash(s, gid);
	c->out_is_imm = true;
	return CX3_STAT_OK;
}

static int cmd_read_mcg(CX3State *s, CX3Cmd *c)
{
	uint8_t *e;
	uint8_t *z;
	int st;

	if (!mcg_ok(s, c->in_mod, "READ_MCG"))
		return CX3_STAT_BAD_INDEX;
	e = g_hash_table_lookup(s->dp->mcg, GUINT_TO_POINTER(c->in_mod));
	if (e)
		return cx3_reply(s, c, e, mcg_esz(s));
	z = g_malloc0(mcg_esz(s));
	st = cx3_reply(s, c, z, mcg_esz(s));
	g_free(z);
	return st;
}

/*
 * WRITE_MCG with op_mod 1 (mlx4 mcg.c mlx4_WRITE_PROMISC): the default
 * entry of a port and steer type, in_mod port << 16 | steer << 1, an
 * MGM whose members receive what no entry of that type matches (the
 * driver adds them to every existing entry itself)
 */
static int cmd_write_promisc(CX3State *s, CX3Cmd *c)
{
	unsigned int port = c->in_mod >> 16, steer = (c->in_mod >> 1) & 0x7f;
	uint8_t e[64];
	uint32_t n;

	if (!mcg_ok(s, 0, "WRITE_PROMISC"))
		return CX3_STAT_BAD_SYS_STATE;
	if (port < 1 || port > CX3_NUM_PORTS || steer > 1 ||
	    (c->in_mod & 0xff01)) {
		cx3_violation(s, "WRITE_PROMISC in_mod 0x%x", c->in_mod);
		return CX3_STAT_BAD_PARAM;
	}
	if (!cx3_inbox(s, c, e, sizeof(e)))
		return CX3_STAT_BAD_PARAM;
	n = ldl_be_p(e + 4) & 0xffffff;
	if (n > (mcg_esz(s) - 32) / 4) {
		cx3_violation(s, "WRITE_PROMISC: %u members", n);
		return CX3_STAT_BAD_PARAM;
	}
	s->dp->promisc_qpn[port - 1][steer] =
		n ? (int64_t)(ldl_be_p(e + 32) & 0xffffff) : -1;
	return CX3_STAT_OK;
}

static int cmd_write_mcg(CX3State *s, CX3Cmd *c)
{
	unsigned int esz = mcg_esz(s);
	uint8_t *e;
	uint32_t n;

	if (c->opmod == 1)
		return cmd_write_promisc(s, c);
	if (!mcg_ok(s, c->in_mod, "WRITE_MCG"))
		return CX3_STAT_BAD_INDEX;
	/*
	 * Of the largest entry size, zero beyond this one: the table
	 * outlives CLOSE_HCA, and READ_MCG after an INIT_HCA with larger
	 * entries reads the new size (a heap overflow when it was kept at
	 * the old one)
	 */
	e = g_malloc0(MCG_ESZ_MAX);
	if (!cx3_inbox(s, c, e, esz)) {
		g_free(e);
		return CX3_STAT_BAD_PARAM;
	}
	n = ldl_be_p(e + 4) & 0xffffff;
	if (n > (esz - 32) / 4 ||
	    (ldl_be_p(e) >> 6) >= (1u << s->hca.log_mc_table_sz)) {
		cx3_violation(s, "WRITE_MCG 0x%x: %u members, next 0x%x",
			      c->in_mod, n, ldl_be_p(e) >> 6);
		g_free(e);
		return CX3_STAT_BAD_PARAM;
	}
	g_hash_table_insert(s->dp->mcg, GUINT_TO_POINTER(c->in_mod), e);
	return CX3_STAT_OK;
}

/* the first member of the MGM for GID (ETH protocol), or -1 */
static int64_t mcg_lookup(CX3State *s, const uint8_t gid[16])
{
	uint32_t idx;
	int hops;

	if (!s->hca.up || !g_hash_table_size(s->dp->mcg))
		return -1;
	idx = mcg_hash(s, gid);
	for (hops = 0; hops < 64; hops++) {
		uint8_t *e = g_hash_table_lookup(s->dp->mcg,
						 GUINT_TO_POINTER(idx));
		uint32_t mc;

		if (!e)
			return -1;
		mc = ldl_be_p(e + 4);
		if ((mc & 0xffffff) && (mc >> 30) == 1 && !memcmp(e + 16, gid, 16))
			return ldl_be_p(e + 32) & 0xffffff;
		idx = ldl_be_p(e) >> 6;
		if (!idx)
			return -1;
	}
	return -1;
}

static bool rule_match(const CX3Rule *r, const uint8_t *f, bool tagged,
		       uint16_t vid, uint16_t etype)
{
	int i;

	if (!r->eth)
		return true;
	for (i = 0; i < 6; i++)
		if ((f[i] ^ r->dmac[i]) & r->dmac_m[i])
			return false;
	if (r->vlan_m && (!tagged || ((vid ^ r->vlan) & r->vlan_m)))
		return false;
	if (r->etype_en && etype != r->etype)
		return false;
	return true;
}

/* the QPN a frame on PORT (1-based) goes to, or -1 */
static int64_t steer(CX3State *s, unsigned int port, const uint8_t *f,
		     bool tagged, uint16_t vid, uint16_t etype)
{
	const CX3Rule *best = NULL, *all = NULL, *mc = NULL;
	bool any = false;
	int i;

	for (i = 0; i < MAX_RULES; i++) {
		const CX3Rule *r = &s->dp->rule[i];

		if (!r->used)
			continue;
		any = true;
		if (r->port != port)
			continue;
		if (r->type == 1) {
			all = all ? all : r;
		} else if (r->type == 3) {
			mc = mc ? mc : r;
		} else if (rule_match(r, f, tagged, vid, etype) &&
			   (!best || r->prio < best->prio)) {
			best = r;
		}
	}
	if (best)
		return best->qpn;
	if (!any) {
		/*
		 * B0: gid[5] port, gid[7] steer type << 1 (MLX4_MC_STEER 0,
		 * MLX4_UC_STEER 1), the MAC in gid[10..15] (mlx4 mcg.c)
		 */
		uint8_t gid[16] = { 0 };
		int64_t q;

		gid[5] = port;
		gid[7] = (f[0] & 1) ? 0 : 1 << 1;
		memcpy(gid + 10, f, 6);
		q = mcg_lookup(s, gid);
		if (q >= 0)
			return q;
		/* no entry: the promiscuous QP of that steer type */
		q = s->dp->promisc_qpn[port - 1][gid[7] >> 1];
		if (q >= 0)
			return q;
	}
	if ((f[0] & 1) && mc)
		return mc->qpn;
	if (all)
		return all->qpn;
	if (!any && s->port[port - 1].base_qpn_set) {
		/* no flow steering rules: the port's MAC table and base QP */
		uint64_t dst = 0;

		for (i = 0; i < 6; i++)
			dst = dst << 8 | f[i];
		if (dst == 0xffffffffffffull)
			return s->port[port - 1].base_qpn;
		for (i = 0; i < CX3_MAC_TABLE; i++) {
			uint64_t m = s->port[port - 1].mac[i];

			if ((m >> 63) && (m & 0xffffffffffffull) == dst)
				return s->port[port - 1].base_qpn + i;
		}
	}
	return -1;
}

/* ---- receive ---- */

static uint32_t toeplitz(const uint8_t *key, const uint8_t *in, int n)
{
	uint32_t v = ldl_be_p(key), h = 0;
	int i, b;

	for (i = 0; i < n; i++) {
		for (b = 7; b >= 0; b--) {
			if (in[i] & (1 << b))
				h ^= v;
			v = v << 1 | ((key[i + 4] >> b) & 1);
		}
	}
	return h;
}

typedef struct CX3Parse {
	unsigned int l3;	/* offset of the IP header */
	uint16_t etype;
	bool v4, v6, frag;
	uint8_t proto;
	unsigned int l4;	/* offset of the L4 header */
	unsigned int l4_len;
} CX3Parse;

/* LAX: trust no IP length field (an LSO header's is the whole burst) */
static void parse_l(const uint8_t *f, unsigned int len, CX3Parse *p, bool lax)
{
	unsigned int o = 12;

	memset(p, 0, sizeof(*p));
	if (len < 14)
		return;
	p->etype = lduw_be_p(f + 12);
	if ((p->etype == 0x8100 || p->etype == 0x88a8) && len >= 18) {
		o = 16;
		p->etype = lduw_be_p(f + 16);
	}
	p->l3 = o + 2;
	if (p->etype == 0x0800 && len >= p->l3 + 20) {
		const uint8_t *ip = f + p->l3;
		unsigned int ihl = (ip[0] & 15) * 4, tot = lduw_be_p(ip + 2);

		if (lax)
			tot = len - p->l3;
		if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl ||
		    p->l3 + tot > len)
			return;
		p->v4 = true;
		p->frag = lduw_be_p(ip + 6) & 0x3fff;
		p->proto = ip[9];
		p->l4 = p->l3 + ihl;
		p->l4_len = tot - ihl;
	} else if (p->etype == 0x86dd && len >= p->l3 + 40) {
		const uint8_t *ip = f + p->l3;
		unsigned int pl = lduw_be_p(ip + 4);

		if (lax)
			pl = len - p->l3 - 40;
		if ((ip[0] >> 4) != 6 || p->l3 + 40 + pl > len)
			return;
		p->v6 = true;
		p->proto = ip[6];
		p->l4 = p->l3 + 40;
		p->l4_len = pl;
	}
}

static void parse(const uint8_t *f, unsigned int len, CX3Parse *p)
{
	parse_l(f, len, p, false);
}

static uint32_t rss_hash(CX3Qp *rq, const uint8_t *f, CX3Parse *p,
			 bool *l4)
{
	uint8_t in[36];
	int n = 0;
	bool tcp = p->proto == 6 && !p->frag && p->l4_len >= 20;
	bool udp = p->proto == 17 && !p->frag && p->l4_len >= 8;

	*l4 = false;
	if (p->v4 && (rq->rss_flags & RSS_IPV4)) {
		memcpy(in, f + p->l3 + 12, 8);
		n = 8;
		if ((tcp && (rq->rss_flags & RSS_TCP_IPV4)) ||
		    (udp && (rq->rss_flags & RSS_UDP_IPV4)))
			*l4 = true;
	} else if (p->v6 && (rq->rss_flags & RSS_IPV6)) {
		memcpy(in, f + p->l3 + 8, 32);
		n = 32;
		if ((tcp && (rq->rss_flags & RSS_TCP_IPV6)) ||
		    (udp && (rq->rss_flags & RSS_UDP_IPV6)))
			*l4 = true;
	} else {
		return 0;
	}
	if (*l4) {
		memcpy(in + n, f + p->l4, 4);
		n += 4;
	}
	if (rq->rss_fn == 1)
		return toeplitz(rq->rss_key, in, n);
	/* XOR hash */
	{
		uint32_t h = 0;
		int i;

		for (i = 0; i + 4 <= n; i += 4)
			h ^= ldl_be_p(in + i);
		return h;
	}
}

static uint32_t csum_add(uint32_t sum, const uint8_t *b, unsigned int n)
{
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2)
		sum += b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += b[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* one's-complement sum of the IPv4 pseudo header and L4 bytes, folded */
static uint16_t l4_sum_v4(const uint8_t *f, CX3Parse *p)
{
	uint32_t sum = csum_add(0, f + p->l3 + 12, 8);

	sum += p->proto + p->l4_len;
	return csum_fold(csum_add(sum, f + p->l4, p->l4_len));
}

static uint16_t l4_sum_v6(const uint8_t *f, CX3Parse *p)
{
	uint32_t sum = csum_add(0, f + p->l3 + 8, 32);

	sum += p->proto + p->l4_len;
	return csum_fold(csum_add(sum, f + p->l4, p->l4_len));
}

static void dbg_drop(CX3State *s, const char *why, uint64_t a, uint64_t b)
{
	static int n;

	if (dp_debug && n++ < 200)
		fprintf(stderr, "connectx3: dp: drop: %s 0x%" PRIx64 " 0x%" PRIx64
			"\n", why, a, b);
}

/*
 * Deliver a frame that arrived on PORT. False, with nothing done, when
 * the receive queue it steers to has no WQE and MAY_WAIT: the port then
 * sends 802.3x pause and the sender holds the frame.
 */
static bool rx_frame(CX3State *s, unsigned int port, const uint8_t *in,
		     unsigned int len, bool may_wait)
{
	CX3Dp *dp = s->dp;
	uint8_t *f = dp->rxbuf;
	uint8_t cqe[32] = { 0 };
	bool tagged = false, l4h = false;
	uint16_t vid = 0, tci = 0, status = 0, csum = 0;
	uint32_t hash = 0, cvlan = 0, prod, left, off;
	CX3Parse p;
	CX3Qp *qp;
	int64_t qpn;
	uint64_t base;
	uint8_t wqe[1u << 12];
	unsigned int i, stride;

	memcpy(f, in, len);
	/* the MAC pads short frames to the 60-byte minimum */
	if (len < 60) {
		memset(f + len, 0, 60 - len);
		len = 60;
	}
	if (len >= 18 && lduw_be_p(f + 12) == 0x8100) {
		tagged = true;
		tci = lduw_be_p(f + 14);
		vid = tci & 0xfff;
		if (!vlan_allowed(s, port, vid))
			goto drop;
	}
	parse(f, len, &p);
	qpn = steer(s, port, f, tagged, vid, p.etype);
	if (qpn < 0) {
		dbg_drop(s, "no steering for dst", ldq_be_p(f) >> 16, port);
		goto drop;
	}
	qp = qp_get(s, qpn);
	if (qp && qp->rss) {
		if (p.v4 || p.v6) {
			hash = rss_hash(qp, f, &p, &l4h);
			qpn = ((p.proto == 17 && qp->rss_udp_base) ?
			       qp->rss_udp_base : qp->rss_base) +
			      (hash & ((1u << qp->rss_log) - 1));
		} else {
			qpn = qp->rss_default;
		}
		qp = qp_get(s, qpn);
	}
	if (!qp || qp->rss || !qp->has_rq ||
	    (qp->state != QPS_RTR && qp->state != QPS_RTS)) {
		dbg_drop(s, "no RX QP", qpn, qp ? qp->state : 99);
		goto drop;
	}
	/* RQ producer: the first dword of the doorbell record */
	{
		uint8_t rec[4];

		if (!cx3_dma_read(s, qp->db_rec, rec, 4))
			goto drop;
		prod = ldl_be_p(rec) & 0xffff;
	}
	if (((prod - qp->rq_head) & 0xffff) == 0) {
		if (may_wait)
			return false;
		dbg_drop(s, "RQ empty", qp->qpn, prod);
		goto drop;
	}
	if (((prod - qp->rq_head) & 0xffff) > (1u << qp->rq_log_size)) {
		cx3_violation(s, "QP 0x%x: RQ producer %u beyond %u + %u", qp->qpn,
			      prod, qp->rq_head & 0xffff, 1u << qp->rq_log_size);
		goto drop;
	}
	if (tagged && qp->strip_vlan) {
		memmove(f + 12, f + 16, len - 16);
		len -= 4;
		cvlan = CQE_CVLAN_PRESENT;
		parse(f, len, &p);
	}
	/* checksums as mlx4_en en_rx.c reads them */
	if (p.v4 && !p.frag) {
		const uint8_t *ip = f + p.l3;

		status |= ST_IPV4;
		if (csum_fold(csum_add(0, ip, (ip[0] & 15) * 4)) == 0xffff)
			status |= ST_IPOK;
		csum = l4_sum_v4(f, &p);
		if (p.proto == 6 && p.l4_len >= 20)
			status |= ST_TCP;
		else if (p.proto == 17 && p.l4_len >= 8)
			status |= ST_UDP;
	} else if (p.v4 && p.frag) {
		status |= ST_IPV4F;
	} else if (p.v6 &&
		   ((p.proto == 6 && p.l4_len >= 20) ||
		    (p.proto == 17 && p.l4_len >= 8)) &&
		   l4_sum_v6(f, &p) == 0xffff) {
		status |= ST_IPV6 | ST_IPOK | (p.proto == 6 ? ST_TCP : ST_UDP);
		csum = 0xffff;
	}
	if (tagged && !cvlan) {
		/* a tag left in the frame: no checksum claims */
		status = 0;
		csum = 0;
	}
	/* the RQ WQE: data segments */
	stride = 1u << qp->rq_log_stride;
	if (stride > sizeof(wqe))
		goto drop;
	base = qp->rq_off + (uint64_t)(qp->rq_head & ((1u << qp->rq_log_size) - 1)) * stride;
	if (!buf_rw(s, qp->mtt, qp->log_page, base, wqe, stride, false))
		goto drop;
	left = len;
	off = 0;
	for (i = 0; i < stride / 16 && left; i++) {
		uint32_t bc = ldl_be_p(wqe + 16 * i);
		uint32_t lkey = ldl_be_p(wqe + 16 * i + 4);
		uint64_t va = ldq_be_p(wqe + 16 * i + 8);
		uint32_t n;

		if (lkey == EN_MEMTYPE_PAD || !bc)
			break;
		n = MIN(left, bc & 0x7fffffff);
		if (!lkey_rw(s, lkey, va, f + off, n, true)) {
			cx3_violation(s, "QP 0x%x: RX scatter lkey 0x%x va 0x%"
				      PRIx64, qp->qpn, lkey, va);
			goto err;
		}
		off += n;
		left -= n;
	}
	if (left) {
		cx3_violation(s, "QP 0x%x: %u-byte frame, RQ WQE holds %u",
			      qp->qpn, len, off);
		goto err;
	}
	stl_be_p(cqe + 0, cvlan | qp->qpn);
	stl_be_p(cqe + 4, hash);
	/* struct mlx4_cqe: sl_vid at 12, status at 16 */
	stw_be_p(cqe + 12, cvlan ? tci : 0);
	stw_be_p(cqe + 16, status);
	stl_be_p(cqe + 20, len);
	stw_be_p(cqe + 24, qp->rq_head & 0xffff);
	stw_be_p(cqe + 26, csum);
	cqe[31] = 0;	/* MLX4_RECV_OPCODE_SEND */
	dbg_drop(s, "(delivered) qpn/cqn", qp->qpn, qp->cqn_recv);
	qp->rq_head++;
	s->ctr.rx_frames++;
	s->ctr.rx_bytes += len;
	cq_post(s, qp->cqn_recv, cqe, false);
	return true;
err:
	memset(cqe, 0, sizeof(cqe));
	stl_be_p(cqe + 0, qp->qpn);
	stw_be_p(cqe + 24, qp->rq_head & 0xffff);
	cqe[27] = SYN_LOCAL_LENGTH;
	cqe[31] = CQE_OP_ERROR;
	qp->rq_head++;
	s->ctr.rx_dropped++;
	cx3_port_drop(s, port, false);
	cq_post(s, qp->cqn_recv, cqe, false);
	return true;
drop:
	s->ctr.rx_dropped++;
	cx3_port_drop(s, port, false);
	return true;
}

/* ---- the cable and transmit ---- */

static void tx_count(CX3State *s, unsigned int port, const uint8_t *f,
		     unsigned int len)
{
	s->ctr.tx_frames++;
	s->ctr.tx_bytes += len;
	cx3_port_count(s, port, true, f, len);
}

/*
 * Send a frame on PORT's cable. False, with nothing sent, when the peer
 * has no receive buffer for it and flow control holds it: the peer
 * sends 802.3x pause (SET_PORT pptx) and this port obeys it (pprx), as
 * mlx4_en sets both by default. MAY_WAIT is false where the frame
 * cannot be held (an LSO segment after the first).
 */
static bool wire(CX3State *s, unsigned int port, const uint8_t *f,
		 unsigned int len, bool may_wait)
{
	unsigned int peer = port == 1 ? 2 : 1;
	uint32_t mtu = s->port[peer - 1].mtu;

	if (s->unplugged) {
		/* no link: the sender's MAC drops it */
		tx_count(s, port, f, len);
		dbg_drop(s, "cable pulled", port, peer);
		s->ctr.link_dropped++;
		cx3_port_drop(s, port, true);
		return true;
	}
	if (!s->port[port - 1].open || !s->port[peer - 1].open) {
		tx_count(s, port, f, len);
		dbg_drop(s, "port closed", port, peer);
		s->ctr.rx_dropped++;
		cx3_port_drop(s, peer, false);
		return true;
	}
	/* SET_PORT's max frame size counts the FCS (mlx4_en en_netdev.c) */
	if (len < 14 || (mtu && len + 4 > mtu)) {
		tx_count(s, port, f, len);
		dbg_drop(s, "length", len, mtu);
		s->ctr.rx_dropped++;
		cx3_port_drop(s, peer, false);
		return true;
	}
	may_wait = may_wait && s->port[peer - 1].pause_tx &&
		   s->port[port - 1].pause_rx;
	if (!rx_frame(s, peer, f, len, may_wait))
		return false;
	tx_count(s, port, f, len);
	cx3_port_count(s, peer, false, f, len);
	return true;
}

/* checksum offload as the hardware does it, on one frame */
static void tx_csum(uint8_t *f, unsigned int len, bool ip, bool l4)
{
	CX3Parse p;

	parse(f, len, &p);
	if (p.v4 && ip) {
		uint8_t *iph = f + p.l3;
		unsigned int ihl = (iph[0] & 15) * 4;

		stw_be_p(iph + 10, 0);
		stw_be_p(iph + 10, ~csum_fold(csum_add(0, iph, ihl)));
	}
	if (l4 && (p.v4 || p.v6) && !p.frag) {
		unsigned int co;
		uint16_t sum;

		if (p.proto == 6 && p.l4_len >= 20)
			co = 16;
		else if (p.proto == 17 && p.l4_len >= 8)
			co = 6;
		else
			return;
		stw_be_p(f + p.l4 + co, 0);
		sum = ~(p.v4 ? l4_sum_v4(f, &p) : l4_sum_v6(f, &p));
		if (p.proto == 17 && !sum)
			sum = 0xffff;
		stw_be_p(f + p.l4 + co, sum);
	}
}

/* LSO: cut the payload after HDR into MSS-sized TCP segments */
static bool tx_lso(CX3State *s, unsigned int port, uint8_t *f,
		   unsigned int len, unsigned int hdr, unsigned int mss)
{
	uint8_t *seg = s->dp->seg;
	CX3Parse p;
	unsigned int off, n, ip_id = 0;
	uint32_t seq;
	uint8_t tflags;

	if (hdr > len)
		return false;
	parse_l(f, hdr, &p, true);
	if (!(p.v4 || p.v6) || p.proto != 6 || !mss || hdr > len ||
	    p.l4 + 20 > hdr) {
		return false;
	}
	seq = ldl_be_p(f + p.l4 + 4);
	tflags = f[p.l4 + 13];
	if (p.v4)
		ip_id = lduw_be_p(f + p.l3 + 4);
	for (off = hdr; off < len || off == hdr; off += n) {
		n = MIN(mss, len - off);
		memcpy(seg, f, hdr);
		memcpy(seg + hdr, f + off, n);
		if (p.v4) {
			stw_be_p(seg + p.l3 + 2, hdr - p.l3 + n);
			stw_be_p(seg + p.l3 + 4, ip_id++);
		} else {
			stw_be_p(seg + p.l3 + 4, hdr - p.l3 - 40 + n);
		}
		stl_be_p(seg + p.l4 + 4, seq + (off - hdr));
		/* FIN and PSH only on the last segment, CWR only on the first */
		seg[p.l4 + 13] = tflags;
		if (off + n < len)
			seg[p.l4 + 13] &= ~0x09;
		if (off != hdr)
			seg[p.l4 + 13] &= ~0x80;
		tx_csum(seg, hdr + n, true, true);
		wire(s, port, seg, hdr + n, false);
		s->ctr.lso_segments++;
		if (!n)
			break;
	}
	return true;
}

/*
 * The send WQE at the head failed: an error CQE, the QP to the send queue
 * error state. The CQE's wqe_index is the 16-bit WQE counter, as in every
 * send CQE (mlx4_ib cq.c mlx4_ib_poll_one: wq->tail += wqe_ctr - tail,
 * errors included), not the ring slot.
 */
static void sq_error(CX3State *s, CX3Qp *qp, uint8_t syn)
{
	uint8_t cqe[32] = { 0 };

	stl_be_p(cqe + 0, qp->qpn);
	stw_be_p(cqe + 24, qp->sq_head & 0xffff);
	cqe[27] = syn;
	cqe[31] = CQE_OP_ERROR | CQE_IS_SEND;
	qp->state = QPS_SQER;
	s->ctr.sq_errors++;
	cq_post(s, qp->cqn_send, cqe, true);
}

/*
 * Execute the send WQEs the QP owns (owner bit of the first dword ==
 * lap parity, mlx4_en en_tx.c). BF, when set, is the BlueFlame copy of
 * the WQE at the current head: its qpn_vlan word is the bf_qpn.
 */
/*
 * The peer paused this send queue: the WQE at its head stays unconsumed
 * and the queue is run again from the ring (a BlueFlame copy is not kept:
 * mlx4_en writes every WQE to the ring too) when the pause timer fires.
 */
#define PAUSE_RETRY_NS	2000

static void sq_hold(CX3State *s, CX3Qp *qp)
{
	CX3Dp *dp = s->dp;

	if (!qp->held)
		s->ctr.tx_paused++;
	qp->held = true;
	qp->paused = true;
	if (!timer_pending(dp->pause_timer))
		timer_mod(dp->pause_timer,
			  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + PAUSE_RETRY_NS);
}

static void sq_run(CX3State *s, CX3Qp *qp, const uint8_t *bf,
		   unsigned int bflen);

static void pause_timer(void *opaque)
{
	CX3State *s = opaque;
	GHashTableIter it;
	gpointer v;
	GPtrArray *held = g_ptr_array_new();
	unsigned int i;

	/* (sq_run may pause a queue again: collect first, then run) */
	g_hash_table_iter_init(&it, s->dp->qps);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		CX3Qp *qp = v;

		if (qp->paused) {
			qp->paused = false;
			g_ptr_array_add(held, qp);
		}
	}
	for (i = 0; i < held->len; i++)
		sq_run(s, g_ptr_array_index(held, i), NULL, 0);
	g_ptr_array_free(held, true);
}

static void sq_run(CX3State *s, CX3Qp *qp, const uint8_t *bf,
		   unsigned int bflen)
{
	CX3Dp *dp = s->dp;
	uint32_t size = 1u << qp->sq_log_size;
	uint8_t w[WQE_MAX];
	unsigned int budget = size;

	if (qp->sq_log_stride != 6) {
		cx3_violation(s, "QP 0x%x: SQ stride %u", qp->qpn,
			      1u << qp->sq_log_stride);
		return;
	}
	if (qp->state != QPS_RTS) {
		if (qp->state != QPS_ERR && qp->state != QPS_SQER)
			cx3_violation(s, "QP 0x%x: send doorbell in state %u",
				      qp->qpn, qp->state);
		return;
	}
	while (budget--) {
		uint32_t idx = qp->sq_head & (size - 1);
		uint32_t oo, srcrb, ds, len = 0, nbb, i, off;
		uint8_t op;
		bool from_bf = false, cvlan = false;
		unsigned int lso_mss = 0, lso_hdr = 0;

		if (!buf_rw(s, qp->mtt, qp->log_page, qp->sq_off + idx * TXBB,
			    w, 16, false))
			return;
		oo = ldl_be_p(w);
		if (!!(oo >> 31) != !!(qp->sq_head & size))
			break;
		ds = w[7] & 0x3f;
		/*
		 * mlx4_en zeroes the ring (en_tx.c mlx4_en_activate_tx_ring):
		 * on the first lap an owner bit of 0 with no size is no WQE.
		 */
		if (!ds && !bf)
			break;
		if (bf && ((oo >> 8) & 0xffff) == (qp->sq_head & 0xffff) &&
		    bflen >= 16 && !memcmp(bf, w, 4)) {
			from_bf = true;
			ds = bf[7] & 0x3f;
		}
		nbb = DIV_ROUND_UP(ds * 16, TXBB);
		if (ds < 1 || nbb > size) {
			cx3_violation(s, "QP 0x%x: WQE %u with %u 16-byte units",
				      qp->qpn, idx, ds);
			sq_error(s, qp, SYN_LOCAL_LENGTH);
			return;
		}
		if (from_bf) {
			if (bflen < ds * 16) {
				cx3_violation(s, "QP 0x%x: BlueFlame copy %u of %u "
					      "bytes", qp->qpn, bflen, ds * 16);
				sq_error(s, qp, SYN_LOCAL_LENGTH);
				return;
			}
			memcpy(w, bf, ds * 16);
		} else {
			if (ds > 1 &&
			    !buf_rw(s, qp->mtt, qp->log_page,
				    qp->sq_off + idx * TXBB + 16, w + 16,
				    MIN(TXBB, ds * 16) - 16, false))
				return;
			for (i = 1; i < nbb; i++) {
				uint32_t bi = (qp->sq_head + i) & (size - 1);

				if (!buf_rw(s, qp->mtt, qp->log_page,
					    qp->sq_off + bi * TXBB, w + i * TXBB,
					    MIN(TXBB, ds * 16 - i * TXBB), false))
					return;
			}
			cvlan = w[6] & WQE_CTRL_INS_CVLAN;
			if (w[6] & WQE_CTRL_INS_SVLAN) {
				cx3_violation(s, "QP 0x%x: S-VLAN insertion",
					      qp->qpn);
				sq_error(s, qp, SYN_LOCAL_QP_OP);
				return;
			}
		}
		op = oo & 0x1f;
		srcrb = ldl_be_p(w + 8);
		off = 16;
		if (op == OP_LSO) {
			uint32_t mh = ldl_be_p(w + 16);

			lso_mss = mh >> 16;
			lso_hdr = mh & 0xffff;
			if (lso_hdr > 512 || 16 + 4 + lso_hdr > ds * 16) {
				cx3_violation(s, "QP 0x%x: LSO header %u",
					      qp->qpn, lso_hdr);
				sq_error(s, qp, SYN_LOCAL_LENGTH);
				return;
			}
			memcpy(dp->frame, w + 20, lso_hdr);
			len = lso_hdr;
			off = 16 + ROUND_UP(4 + lso_hdr, 16);
		} else if (op != OP_SEND && op != OP_NOP) {
			cx3_violation(s, "QP 0x%x: WQE opcode 0x%x", qp->qpn, op);
			sq_error(s, qp, SYN_LOCAL_QP_OP);
			return;
		}
		if (op != OP_NOP && s->fail_sends) {
			/* a fault the test page asked for: no violation */
			s->fail_sends--;
			sq_error(s, qp, SYN_LOCAL_QP_OP);
			return;
		}
		while (op != OP_NOP && off < ds * 16) {
			uint32_t bc = ldl_be_p(w + off);

			if (bc & INLINE_SEG) {
				uint32_t n = bc & 0x7fffffff;

				if (off + 4 + n > ds * 16 || len + n > MAX_FRAME) {
					cx3_violation(s, "QP 0x%x: inline %u bytes",
						      qp->qpn, n);
					sq_error(s, qp, SYN_LOCAL_LENGTH);
					return;
				}
				memcpy(dp->frame + len, w + off + 4, n);
				len += n;
				off += ROUND_UP(4 + n, 16);
			} else {
				uint32_t lkey = ldl_be_p(w + off + 4);
				uint64_t va = ldq_be_p(w + off + 8);

				if (off + 16 > ds * 16 || !bc ||
				    len + bc > MAX_FRAME) {
					cx3_violation(s, "QP 0x%x: data segment "
						      "of %u bytes", qp->qpn, bc);
					sq_error(s, qp, SYN_LOCAL_LENGTH);
					return;
				}
				if (!lkey_rw(s, lkey, va, dp->frame + len, bc,
					     false)) {
					cx3_violation(s, "QP 0x%x: gather lkey "
						      "0x%x va 0x%" PRIx64,
						      qp->qpn, lkey, va);
					sq_error(s, qp, SYN_LOCAL_PROT);
					return;
				}
				len += bc;
				off += 16;
			}
		}
		if (op != OP_NOP) {
			if (len < 14) {
				cx3_violation(s, "QP 0x%x: %u-byte frame",
					      qp->qpn, len);
				sq_error(s, qp, SYN_LOCAL_LENGTH);
				return;
			}
			if (cvlan && len + 4 > MAX_FRAME) {
				/* no room for the tag in the frame buffer */
				cx3_violation(s, "QP 0x%x: %u-byte frame and a "
					      "VLAN tag", qp->qpn, len);
				sq_error(s, qp, SYN_LOCAL_LENGTH);
				return;
			}
			if (cvlan) {
				memmove(dp->frame + 16, dp->frame + 12, len - 12);
				stw_be_p(dp->frame + 12, 0x8100);
				memcpy(dp->frame + 14, w + 4, 2);
				len += 4;
				lso_hdr += lso_hdr ? 4 : 0;
			}
			if (op == OP_LSO) {
				s->ctr.lso_wqes++;
				if (!tx_lso(s, qp->port, dp->frame, len, lso_hdr,
					    lso_mss)) {
					cx3_violation(s, "QP 0x%x: LSO of a non-TCP "
						      "frame", qp->qpn);
					sq_error(s, qp, SYN_LOCAL_QP_OP);
					return;
				}
			} else {
				tx_csum(dp->frame, len, srcrb & WQE_CTRL_IP_CSUM,
					srcrb & WQE_CTRL_L4_CSUM);
				if (!wire(s, qp->port, dp->frame, len, true)) {
					sq_hold(s, qp);
					return;
				}
			}
		}
		if ((srcrb & WQE_CTRL_CQ_UPDATE) == WQE_CTRL_CQ_UPDATE) {
			uint8_t cqe[32] = { 0 };

			stl_be_p(cqe + 0, qp->qpn);
			stl_be_p(cqe + 20, len);
			stw_be_p(cqe + 24, qp->sq_head & 0xffff);
			cqe[31] = CQE_IS_SEND | op;
			qp->sq_head += nbb;
			cq_post(s, qp->cqn_send, cqe, srcrb & 2);
		} else {
			qp->sq_head += nbb;
		}
		qp->held = false;
		s->ctr.wqes++;
		if (from_bf)
			bf = NULL;
	}
}

static void send_doorbell(CX3State *s, uint32_t qpn, const uint8_t *bf,
			  unsigned int bflen)
{
	CX3Qp *qp = qp_get(s, qpn);

	if (!qp) {
		cx3_violation(s, "send doorbell for QP 0x%x in RESET", qpn);
		return;
	}
	sq_run(s, qp, bf, bflen);
}

/* a write into a BlueFlame register: the WQE, 8 bytes at a time */
static void bf_write(CX3State *s, hwaddr addr, uint64_t val, unsigned int size)
{
	CX3Dp *dp = s->dp;
	unsigned int reg = cx3_bf_reg_size(s), half = reg / 2;
	hwaddr rel = addr - cx3_bf_base(s);
	hwaddr base = rel - (rel % half);
	unsigned int o = rel % half, i;
	CX3Bf *b = NULL;

	if (half > sizeof(b->buf) || o + size > half) {
		cx3_violation(s, "BlueFlame write at 0x%" HWADDR_PRIx, addr);
		return;
	}
	for (i = 0; i < BF_SLOTS; i++)
		if (dp->bf[i].base == base)
			b = &dp->bf[i];
	if (!b) {
		b = &dp->bf[dp->bf_next];
		dp->bf_next = (dp->bf_next + 1) % BF_SLOTS;
		b->base = base;
		b->got = 0;
		b->len = 0;
	}
	if (o == 0) {
		b->got = 0;
		b->len = 0;
		b->done = false;
	}
	if (o != b->got) {
		cx3_violation(s, "BlueFlame write at +%u, expected +%u", o, b->got);
		b->got = 0;
		return;
	}
	for (i = 0; i < size; i++)
		b->buf[o + i] = val >> (8 * i);
	b->got += size;
	if (b->got >= 8 && !b->len) {
		b->len = (b->buf[7] & 0x3f) * 16;
		if (!b->len || b->len > half) {
			cx3_violation(s, "BlueFlame WQE of %u bytes", b->len);
			b->got = 0;
			return;
		}
	}
	if (b->len && b->got >= b->len && !b->done) {
		uint32_t qpn = ldl_be_p(b->buf + 4) >> 8;

		/* mlx4_en copies whole TXBBs: the tail is padding */
		b->done = true;
		s->ctr.bf_writes++;
		send_doorbell(s, qpn, b->buf, b->len);
	}
}

void cx3_dp_uar_write(CX3State *s, hwaddr addr, uint64_t val,
		      unsigned int size)
{
	CX3Dp *dp = s->dp;
	hwaddr bfb = cx3_bf_base(s);
	unsigned int off = addr & 0xfff;

	if (bfb && cx3_bf_reg_size(s) && addr >= bfb) {
		bf_write(s, addr, val, size);
		return;
	}
	if (off == 0x14 && size == 4) {
		/* MLX4_SEND_DOORBELL: be32 qpn << 8 */
		s->ctr.doorbells++;
		s->ctr.sq_doorbells++;
		send_doorbell(s, bswap32(val) >> 8, NULL, 0);
		return;
	}
	if (off == 0x20 && size == 8) {
		cq_doorbell(s, bswap32(val), bswap32(val >> 32));
		return;
	}
	if (off == 0x20 && size == 4) {
		dp->cq_db_w0 = bswap32(val);
		dp->cq_db_w0_ok = true;
		return;
	}
	if (off == 0x24 && size == 4 && dp->cq_db_w0_ok) {
		dp->cq_db_w0_ok = false;
		cq_doorbell(s, dp->cq_db_w0, bswap32(val));
		return;
	}
	cx3_violation(s, "UAR write of %u bytes at 0x%" HWADDR_PRIx, size, addr);
}

int cx3_dp_cmd(CX3State *s, CX3Cmd *c)
{
	switch (c->opcode) {
	case CMD_SW2HW_CQ:
		return cmd_sw2hw_cq(s, c);
	case CMD_HW2SW_CQ:
		return cmd_hw2sw_cq(s, c);
	case CMD_MODIFY_CQ:
		return cmd_modify_cq(s, c);
	case CMD_RST2INIT_QP: case CMD_INIT2RTR_QP: case CMD_RTR2RTS_QP:
	case CMD_RTS2RTS_QP: case CMD_SQERR2RTS_QP: case CMD_2ERR_QP:
	case CMD_RTS2SQD_QP: case CMD_SQD2RTS_QP: case CMD_2RST_QP:
	case CMD_INIT2INIT_QP: case CMD_SQD2SQD_QP:
		return cmd_qp(s, c);
	case CMD_SET_VLAN_FLTR:
		return cmd_set_vlan_fltr(s, c);
	case CMD_FLOW_ATTACH:
		return cmd_flow_attach(s, c);
	case CMD_FLOW_DETACH:
		return cmd_flow_detach(s, c);
	case CMD_MGID_HASH:
		return cmd_mgid_hash(s, c);
	case CMD_READ_MCG:
		return cmd_read_mcg(s, c);
	case CMD_WRITE_MCG:
		return cmd_write_mcg(s, c);
	case CMD_SET_MCAST_FLTR:
		/* multicast frames are steered by the MCG entries alone */
		return CX3_STAT_OK;
	}
	return CX3_STAT_BAD_OP;
}

void cx3_dp_init(CX3State *s)
{
	CX3Dp *dp = g_new0(CX3Dp, 1);
	int i;

	dp_debug = !!getenv("CX3_DP_DEBUG");
	dp->cqs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					cq_free);
	dp->qps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					g_free);
	dp->mcg = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					g_free);
	for (i = 0; i < BF_SLOTS; i++)
		dp->bf[i].base = ~(hwaddr)0;
	memset(dp->promisc_qpn, 0xff, sizeof(dp->promisc_qpn));
	dp->pause_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, pause_timer, s);
	s->dp = dp;
}

void cx3_dp_reset(CX3State *s)
{
	CX3Dp *dp = s->dp;
	int i;

	if (dp_debug) {
#define CX3_DP_PRINT(n) fprintf(stderr, "connectx3: dp: ctr " #n " %" PRIu64 "\n", s->ctr.n);
		CX3_COUNTERS(CX3_DP_PRINT)
#undef CX3_DP_PRINT
	}

	timer_del(dp->pause_timer);
	g_hash_table_remove_all(dp->cqs);
	g_hash_table_remove_all(dp->qps);
	g_hash_table_remove_all(dp->mcg);
	memset(dp->promisc_qpn, 0xff, sizeof(dp->promisc_qpn));
	memset(dp->rule, 0, sizeof(dp->rule));
	memset(dp->vlan_fltr_set, 0, sizeof(dp->vlan_fltr_set));
	dp->cq_db_w0_ok = false;
	for (i = 0; i < BF_SLOTS; i++)
		dp->bf[i].base = ~(hwaddr)0;
}
