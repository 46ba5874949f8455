// SPDX-License-Identifier: GPL-2.0
/* Host unit test of the mlx4 values cxbell hands to a ConnectX-3.
 *
 * Compiles drivers/net/ethernet/cxbell/mlx4/cxbell_mlx4_hw.h (the
 * backend's pure functions) and wqe/mlx4.h (the core's shared format
 * helpers) in user space, with the kernel's own linux/mlx4/qp.h, cq.h
 * and doorbell.h, and checks them against the mlx4 formats: the byte
 * images of the doorbell values, the QP context layout and its fields,
 * the RSS context, register addresses in the UAR and BlueFlame pages, and
 * the CQ arm doorbell against mlx4_core's own mlx4_cq_arm().
 */
#include <stdio.h>
#include <string.h>

#include "ktap.h"
#include "mlx4/cxbell_mlx4_hw.h"

/* Big-endian byte image of a 32-bit value as stored to memory/MMIO. */
static int be_bytes(const void *p, u32 want)
{
	const u8 *b = p;

	return b[0] == (u8)(want >> 24) && b[1] == (u8)(want >> 16) &&
	       b[2] == (u8)(want >> 8) && b[3] == (u8)want;
}

static unsigned int ilog2u(unsigned long v)
{
	unsigned int l = 0;

	while (v >>= 1)
		l++;
	return l;
}

/* As in mlx4_en (netdev thread "pktgen: packet bursting via
 * skb->xmit_more"): the send doorbell value is the QPN shifted by 8,
 * stored big-endian, computed once per ring (pre-swapped).
 */
static int t_send_db_val(void)
{
	static const u32 qpns[] = { 0x40, 0x48, 0x1234, 0xabcdef, 0xffffff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(qpns); i++) {
		__be32 v = cxb_mlx4_send_db_val(qpns[i]);

		CHECK(be_bytes(&v, qpns[i] << 8), "qpn 0x%x", qpns[i]);
		/* The low byte (reserved/DS of a BF post) stays clear. */
		CHECK(((u8 *)&v)[3] == 0, "qpn 0x%x", qpns[i]);
	}
	return 0;
}

static int t_bf_ctrl_fields(void)
{
	u32 qpn = 0x5a5a5, idx;
	unsigned int ds;

	for (ds = 1; ds <= CXB_MLX4_MAX_DS; ds++) {
		/* as the send path builds it, from the doorbell value */
		__be32 v = cxb_mlx4_bf_qpn(cxb_mlx4_send_db_val(qpn), ds);

		CHECK(be_bytes(&v, qpn << 8 | ds), "ds %u", ds);
		CHECK(cxb_mlx4_bf_qpn_to_qpn(v) == qpn, "ds %u", ds);
	}
	/* Owner bit 31, ring index in bits 8..23, opcode (SEND 0x0a) in the
	 * low 5 bits.
	 */
	CHECK(CXB_MLX4_OWNER_BIT == 1UL << 31, "");
	for (idx = 0; idx < 0x30000; idx += 0x777) {
		__be32 oo = cxb_mlx4_bf_owner_opcode(0x0a, idx, 1024);

		CHECK(cxb_mlx4_bf_owner_idx(oo) == (idx & 0xffff), "idx %u", idx);
		CHECK(be_bytes(&oo, ((idx & 1024) ? 1U << 31 : 0) |
			       (idx & 0xffff) << 8 | 0x0a), "idx %u", idx);
	}
	return 0;
}

/* The core's CQ arm words and record against mlx4_core's mlx4_cq_arm(). */
static int t_cq_arm_vs_mlx4(void)
{
	static const u32 cqns[] = { 0x80, 0x1f3, 0xffffff };
	unsigned int i, sn, ci;

	for (i = 0; i < 3; i++) {
		for (sn = 0; sn < 6; sn++) {
			for (ci = 0; ci < 0x2000000; ci += 0x345671) {
				u8 page[4096] = { 0 };
				__be32 rec[2] = { 0 }, w[2];
				struct mlx4_cq cq = {
					.cons_index = ci, .arm_sn = sn,
					.cqn = cqns[i], .arm_db = &rec[1],
					.set_ci_db = &rec[0],
				};

				mlx4_cq_arm(&cq, MLX4_CQ_DB_REQ_NOT, page, NULL);
				cxb_mlx4_cq_arm_words(sn, cqns[i], ci, w);
				CHECK(!memcmp(page + CXB_MLX4_CQ_DB, w, 8),
				      "cqn 0x%x sn %u ci %u", cqns[i], sn, ci);
				CHECK(rec[1] == cxb_mlx4_cq_arm_rec(sn, ci),
				      "cqn 0x%x sn %u ci %u", cqns[i], sn, ci);
				mlx4_cq_set_ci(&cq);
				CHECK(rec[0] == cpu_to_be32(ci & CXB_MLX4_CI_MASK),
				      "ci %u", ci);
			}
		}
	}
	return 0;
}

static int t_uar_regs(void)
{
	static u8 page[4096];
	void *map = page;

	CHECK((u8 *)cxb_mlx4_send_db_reg(map) - page == MLX4_SEND_DOORBELL, "");
	CHECK(MLX4_SEND_DOORBELL == 0x14, "");
	CHECK((u8 *)cxb_mlx4_cq_db_reg(map) - page == MLX4_CQ_DOORBELL, "");
	CHECK(MLX4_CQ_DOORBELL == 0x20, "");
	/* 64-bit arm write must be naturally aligned. */
	CHECK(MLX4_CQ_DOORBELL % 8 == 0, "");
	return 0;
}

/* BlueFlame: register idx of a BF page, two buffers of half its size;
 * the core alternates between offset 0 and bf_size and never writes
 * more than CXB_MLX4_MAX_BF, so every post stays inside the register.
 */
/* What mlx4_bf_alloc() (mlx4 pd.c) hands out for register @idx of the BF
 * page at @bf_map: registers of bf_reg_size bytes, one after the other.
 */
static u8 *bf_reg(u8 *bf_map, unsigned int idx, unsigned int bf_reg_size)
{
	return bf_map + idx * bf_reg_size;
}

static int t_bf_addressing(void)
{
	static const unsigned int reg_sizes[] = { 256, 512, 1024 };
	static u8 bf_page[4096];
	unsigned int i, idx;

	for (i = 0; i < 3; i++) {
		unsigned int rs = reg_sizes[i], bs = cxb_mlx4_bf_buf_size(rs);
		unsigned int len = bs < CXB_MLX4_MAX_BF ? bs : CXB_MLX4_MAX_BF;
		unsigned int off = 0, k;

		CHECK(bs * 2 == rs, "reg size %u", rs);
		for (idx = 0; idx < 4096 / rs; idx++) {
			u8 *reg = bf_reg(bf_page, idx, rs);

			CHECK(reg - bf_page == (long)(idx * rs), "idx %u", idx);
			for (k = 0; k < 4; k++) {
				CHECK(off + len <= rs, "off %u len %u", off, len);
				CHECK((reg + off - bf_page) % 64 == 0, "");
				CHECK(reg + off + len <= bf_page + 4096, "");
				off ^= bs;
			}
		}
	}
	return 0;
}

/* Byte offsets of the QP context fields cxbell programs: the hardware
 * layout mlx4_core's mailbox carries (QPC 0xf8 bytes).
 */
static int t_qpc_layout(void)
{
	CHECK(sizeof(struct mlx4_qp_context) == 0xf8, "%zu",
	      sizeof(struct mlx4_qp_context));
	CHECK(offsetof(struct mlx4_qp_context, flags) == 0x00, "");
	CHECK(offsetof(struct mlx4_qp_context, pd) == 0x04, "");
	CHECK(offsetof(struct mlx4_qp_context, mtu_msgmax) == 0x08, "");
	CHECK(offsetof(struct mlx4_qp_context, rq_size_stride) == 0x09, "");
	CHECK(offsetof(struct mlx4_qp_context, sq_size_stride) == 0x0a, "");
	CHECK(offsetof(struct mlx4_qp_context, usr_page) == 0x0c, "");
	CHECK(offsetof(struct mlx4_qp_context, local_qpn) == 0x10, "");
	CHECK(offsetof(struct mlx4_qp_context, pri_path) == 0x18, "");
	CHECK(offsetof(struct mlx4_qp_context, alt_path) == 0x44, "");
	CHECK(offsetof(struct mlx4_qp_context, cqn_send) == 0x7c, "");
	CHECK(offsetof(struct mlx4_qp_context, params2) == 0x90, "");
	CHECK(offsetof(struct mlx4_qp_context, cqn_recv) == 0x9c, "");
	CHECK(offsetof(struct mlx4_qp_context, db_rec_addr) == 0xa0, "");
	CHECK(offsetof(struct mlx4_qp_context, param3) == 0xc0, "");
	CHECK(offsetof(struct mlx4_qp_path, counter_index) == 0x04, "");
	CHECK(offsetof(struct mlx4_qp_path, ackto) == 0x08, "");
	CHECK(offsetof(struct mlx4_qp_path, sched_queue) == 0x20, "");
	CHECK(sizeof(struct mlx4_rss_context) == 56, "");
	/* The RSS context sits inside the QPC, past the primary path. */
	CHECK(offsetof(struct mlx4_qp_context, pri_path) +
	      MLX4_RSS_OFFSET_IN_QPC_PRI_PATH + sizeof(struct mlx4_rss_context)
	      <= sizeof(struct mlx4_qp_context), "");
	return 0;
}

static void cfg_init(struct cxb_mlx4_qpc_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->qpn = 0x4c1;
	cfg->cqn = 0x85;
	cfg->pdn = 0x11;
	cfg->uar_index = 0x9a;
	cfg->port = 2;
	cfg->counter_index = 3;
	cfg->db_dma = 0x12345678abcd000ULL;
}

static int check_common(const struct mlx4_qp_context *c,
			const struct cxb_mlx4_qpc_cfg *cfg, bool rss,
			bool strip)
{
	const u8 *b = (const u8 *)c;

	/* Service type 7 (Ethernet) in bits 16..23, RSS in bit 13. */
	CHECK(be_bytes(b + 0x00, 7 << 16 | (rss ? 1 << 13 : 0)), "");
	CHECK(be_bytes(b + 0x04, cfg->pdn), "");
	CHECK(b[0x08] == 0xff, "");
	CHECK(be_bytes(b + 0x0c, cfg->uar_index), "");
	CHECK(be_bytes(b + 0x10, cfg->qpn), "");
	CHECK(b[0x18 + 0x04] == cfg->counter_index, "");
	CHECK(b[0x18 + 0x08] == 1, "ackto");
	CHECK(b[0x18 + 0x20] == (0x83 | (cfg->port - 1) << 6), "sched_queue");
	CHECK(be_bytes(b + 0x7c, cfg->cqn), "");
	CHECK(be_bytes(b + 0x9c, cfg->cqn), "");
	CHECK(be_bytes(b + 0xa0, (u32)(cfg->db_dma >> 32)), "");
	CHECK(be_bytes(b + 0xa4, (u32)cfg->db_dma), "");
	CHECK(be_bytes(b + 0xc0, strip ? 0 : 1U << 30), "VLAN strip %d", strip);
	return 0;
}

static int t_sq_qpc(void)
{
	static const unsigned int sizes[] = { 64, 256, 1024, 8192 };
	struct cxb_mlx4_qpc_cfg cfg;
	struct mlx4_qp_context c;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		cfg_init(&cfg);
		cfg.log_size = ilog2u(sizes[i]);
		cfg.log_stride = CXB_MLX4_TXBB_SHIFT;
		cfg.fpp = i & 1;
		memset(&c, 0x5a, sizeof(c));
		cxb_mlx4_sq_qpc(&c, &cfg);
		if (check_common(&c, &cfg, false, false))
			return 1;
		/* log2(entries) << 3 | log2(stride in bytes) - 4 */
		CHECK(c.sq_size_stride == (ilog2u(sizes[i]) << 3 | (ilog2u(64) - 4)),
		      "size %u: 0x%x", sizes[i], c.sq_size_stride);
		CHECK(c.rq_size_stride == 0, "");
		CHECK(c.params2 == (cfg.fpp ? cpu_to_be32(MLX4_QP_BIT_FPP) : 0), "");
		CHECK(c.srqn == 0 && c.remote_qpn == 0, "cleared");
	}
	return 0;
}

static int t_rq_qpc(void)
{
	static const unsigned int sizes[] = { 64, 1024, 8192 };
	struct cxb_mlx4_qpc_cfg cfg;
	struct mlx4_qp_context c;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		cfg_init(&cfg);
		cfg.log_size = ilog2u(sizes[i]);
		cfg.log_stride = CXB_MLX4_RX_STRIDE_SHIFT;
		cxb_mlx4_rq_qpc(&c, &cfg, i & 1);
		if (check_common(&c, &cfg, false, i & 1))
			return 1;
		/* one 16-byte data segment per receive WQE */
		CHECK(c.rq_size_stride == (ilog2u(sizes[i]) << 3 | 0), "0x%x",
		      c.rq_size_stride);
		/* a minimal SQ of 64-byte TXBBs */
		CHECK(c.sq_size_stride == ilog2u(64) - 4, "0x%x", c.sq_size_stride);
		CHECK(c.params2 == 0, "");
	}
	return 0;
}

static int t_rss_qpc(void)
{
	struct cxb_mlx4_qpc_cfg cfg;
	struct mlx4_qp_context c;
	u8 key[CXB_MLX4_RSS_KEY_SIZE];
	const u8 *r;
	unsigned int i, log_n;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (u8)(i * 7 + 1);
	for (log_n = 0; log_n <= 5; log_n++) {
		bool udp = log_n == 5;

		cfg_init(&cfg);
		cxb_mlx4_rss_qpc(&c, &cfg, 0x440, log_n, key, udp);
		if (check_common(&c, &cfg, true, false))
			return 1;
		CHECK(c.rq_size_stride == 0, "");
		r = (const u8 *)&c + 0x18 + 0x24;
		CHECK((void *)r == (void *)cxb_mlx4_qpc_rss(&c), "");
		CHECK(be_bytes(r, log_n << 24 | 0x440), "log_n %u", log_n);
		CHECK(be_bytes(r + 4, 0x440), "default qpn");
		CHECK(r[10] == MLX4_RSS_HASH_TOP, "hash_fn");
		CHECK(r[11] == (MLX4_RSS_IPV4 | MLX4_RSS_TCP_IPV4 |
				MLX4_RSS_IPV6 | MLX4_RSS_TCP_IPV6 |
				(udp ? MLX4_RSS_UDP_IPV4 | MLX4_RSS_UDP_IPV6 :
				 0)), "flags");
		CHECK(!memcmp(r + 12, key, sizeof(key)), "key");
		CHECK(be_bytes(r + 52, udp ? 0x440 : 0), "base_qpn_udp");
	}
	return 0;
}

static int t_rss_log_n(void)
{
	static const unsigned int live[] = { 0, 1, 2, 3, 4, 5, 7, 8, 15, 16 };
	static const unsigned int want[] = { 0, 0, 1, 1, 2, 2, 2, 3, 3, 4 };
	unsigned int i;

	for (i = 0; i < 10; i++)
		CHECK(cxb_mlx4_rss_log_n(live[i]) == want[i], "live %u", live[i]);
	return 0;
}

/* Tables the RSS QP expresses: i % m, m a power of two; no other. */
static int t_rss_rings(void)
{
	u8 t[128];
	unsigned int i, m;

	for (m = 1; m <= 128; m <<= 1) {
		for (i = 0; i < 128; i++)
			t[i] = i % m;
		CHECK(cxb_mlx4_rss_rings(t, 128) == m, "m %u", m);
	}
	for (i = 0; i < 128; i++)
		t[i] = i % 3;
	CHECK(cxb_mlx4_rss_rings(t, 128) == 0, "i %% 3");
	for (i = 0; i < 128; i++)
		t[i] = i % 4;
	t[77] = 0;
	CHECK(cxb_mlx4_rss_rings(t, 128) == 0, "one entry changed");
	for (i = 0; i < 128; i++)
		t[i] = (i + 1) % 2;
	CHECK(cxb_mlx4_rss_rings(t, 128) == 0, "rotated");
	return 0;
}

static int t_mtt(void)
{
	static const size_t sizes[] = { 2048, 4096, 4097, 65536, 524288 };
	u64 list[256];
	unsigned int i, j;

	for (i = 0; i < 5; i++) {
		unsigned int n = cxb_mlx4_mtt_npages(sizes[i], 12);

		CHECK(n == (sizes[i] + 4095) / 4096, "size %zu", sizes[i]);
		memset(list, 0, sizeof(list));
		cxb_mlx4_mtt_fill(list, 0x7f000000ULL, sizes[i], 12);
		for (j = 0; j < n; j++)
			CHECK(list[j] == 0x7f000000ULL + j * 4096ULL, "%u", j);
		CHECK(n == 256 || list[n] == 0, "overrun");
	}
	return 0;
}

static int t_steer_gid(void)
{
	static const u8 mac[ETH_ALEN] = { 0x00, 0x02, 0xc9, 0x12, 0x34, 0x56 };
	static const u8 want[16] = { 0, 0, 0, 0, 0, 2, 0, 0, 0, 0,
				     0x00, 0x02, 0xc9, 0x12, 0x34, 0x56 };
	u8 gid[16];

	memset(gid, 0xee, sizeof(gid));
	cxb_mlx4_steer_gid(gid, mac, 2);
	CHECK(!memcmp(gid, want, 16), "");
	return 0;
}

static int t_mtu(void)
{
	CHECK(cxb_mlx4_port_mtu(1500) == 1522, "");
	CHECK(cxb_mlx4_port_mtu(9000) == 9022, "");
	CHECK(cxb_mlx4_max_mtu(9600) == 9578, "");
	CHECK(cxb_mlx4_sched_queue(1) == 0x83, "");
	CHECK(cxb_mlx4_sched_queue(2) == 0xc3, "");
	return 0;
}

/* QUERY_PORT's Ethernet context: link_up in bit 7 of byte 0 (autoneg
 * capability is bit 6, not a link state).
 */
static int t_query_port_link(void)
{
	u8 ctx[256] = { 0 };

	CHECK(!cxb_mlx4_query_port_link_up(ctx), "");
	ctx[0] = 0x40;
	CHECK(!cxb_mlx4_query_port_link_up(ctx), "");
	ctx[0] = 0x80;
	CHECK(cxb_mlx4_query_port_link_up(ctx), "");
	ctx[0] = 0;
	ctx[1] = 0xff;
	CHECK(!cxb_mlx4_query_port_link_up(ctx), "");
	return 0;
}

int main(void)
{
	static const struct ktap_case cases[] = {
		{ "mlx4_send_doorbell_value_preswapped", t_send_db_val },
		{ "mlx4_blueflame_ctrl_fields", t_bf_ctrl_fields },
		{ "mlx4_cq_arm_matches_mlx4_core", t_cq_arm_vs_mlx4 },
		{ "mlx4_uar_register_offsets", t_uar_regs },
		{ "mlx4_blueflame_register_addressing", t_bf_addressing },
		{ "mlx4_qp_context_layout", t_qpc_layout },
		{ "mlx4_send_qp_context", t_sq_qpc },
		{ "mlx4_receive_qp_context", t_rq_qpc },
		{ "mlx4_rss_qp_context", t_rss_qpc },
		{ "mlx4_rss_rings", t_rss_rings },
		{ "mlx4_rss_spread", t_rss_log_n },
		{ "mlx4_mtt_page_list", t_mtt },
		{ "mlx4_steering_gid", t_steer_gid },
		{ "mlx4_port_mtu_and_sched_queue", t_mtu },
		{ "mlx4_query_port_link_bit", t_query_port_link },
	};

	int failed;

	failed = ktap_run("cxbell_mlx4", cases,
			  ARRAY_SIZE(cases));
	return failed != 0;
}
