// SPDX-License-Identifier: GPL-2.0
/* Host unit test of the mlx5 values cxbell's cx5 generation hands to a
 * device (send and receive queues, CQ arm).
 *
 * Compiles drivers/net/ethernet/cxbell/wqe/mlx5.h in user space with the
 * kernel's own linux/mlx5/qp.h, cq.h, doorbell.h, device.h and mlx5_ifc.h
 * (copied unmodified from the installed kernel headers) and checks the
 * control segment fields, WQE and inline sizing, the eth segment's inline
 * headers, CQE layout and ownership, the doorbell record, the UAR
 * doorbell write and the CQ arm against those headers, against
 * mlx5_core's own inline functions (mlx5_cq_set_ci(), mlx5_cq_arm(),
 * mlx5_write64()) and against what mlx5e
 * computes. mlx5e's helpers live in drivers/net/ethernet/mellanox/mlx5/
 * core (en.h, en/txrx.h, en_tx.c, wq.h), outside include/, behind en.h's
 * whole driver: their formulas are restated here, each with the function
 * and file it comes from.
 */
#include <stdio.h>
#include <string.h>

#include "ktap.h"
#include "wqe/mlx4.h"
#include "wqe/mlx5.h"

/* struct mlx5e_tx_wqe (en.h) is ctrl + eth: mlx5e's
 * MLX5E_TX_WQE_EMPTY_DS_COUNT (en/txrx.h).
 */
#define MLX5E_TX_WQE_EMPTY_DS_COUNT	2U
/* sizeof(inline_hdr.start): INL_HDR_START_SZ (en/txrx.h) */
#define INL_HDR_START_SZ \
	(sizeof(((struct mlx5_wqe_eth_seg *)NULL)->inline_hdr.start))
/* L2 minimum inline (en_tx.c): ETH_HLEN + VLAN_HLEN */
#define MLX5E_MIN_INLINE		18U
/* The per-packet inline bound of mlx5e's XDP MPWQE (en/xdp.h) */
#define MLX5E_XDP_INLINE_WQE_MAX_DS_CNT	16U

/* Big-endian byte image of a 32-bit value as stored to memory/MMIO. */
static int be_bytes(const void *p, u32 want)
{
	const u8 *b = p;

	return b[0] == (u8)(want >> 24) && b[1] == (u8)(want >> 16) &&
	       b[2] == (u8)(want >> 8) && b[3] == (u8)want;
}

static const u32 opcodes[] = {
	MLX5_OPCODE_NOP, MLX5_OPCODE_SEND, MLX5_OPCODE_LSO,
	MLX5_OPCODE_ENHANCED_MPSW,
};

/* Free-running indexes around the 16-bit wrap and the u32 wrap. */
static const u32 idxs[] = {
	0, 1, 0xff, 0x100, 0xfffe, 0xffff, 0x10000, 0x10001, 0x1ffff,
	0x12345, 0xfffffffe, 0xffffffff,
};

static int t_sizes(void)
{
	CHECK(CXB_MLX5_WQEBB_SIZE == MLX5_SEND_WQE_BB, "");
	CHECK(CXB_MLX5_DS_SIZE == MLX5_SEND_WQE_DS, "");
	CHECK(CXB_MLX5_DS_PER_WQEBB == MLX5_SEND_WQEBB_NUM_DS, "");
	CHECK(CXB_MLX5_DS_PER_WQEBB == 4, "");
	CHECK(CXB_MLX5_HDR_DS == MLX5E_TX_WQE_EMPTY_DS_COUNT, "");
	CHECK(CXB_MLX5_HDR_DS * CXB_MLX5_DS_SIZE ==
	      sizeof(struct mlx5_wqe_ctrl_seg) + sizeof(struct mlx5_wqe_eth_seg),
	      "");
	/* what the 6-bit DS field and the device's WQE size bound allow */
	CHECK(CXB_MLX5_MAX_DS == 32, "");
	CHECK(CXB_MLX5_MAX_DS <= MLX5_WQE_CTRL_DS_MASK, "");
	CHECK(CXB_MLX5_MAX_WQEBBS <= MLX5_SEND_WQE_MAX_WQEBBS, "");
	CHECK(CXB_MLX5_MAX_WQEBBS * CXB_MLX5_WQEBB_SIZE <= MLX5_SEND_WQE_MAX_SIZE,
	      "");
	CHECK(sizeof(struct mlx5_cqe64) == CXB_MLX5_CQE_SIZE, "");
	CHECK(sizeof(struct mlx5_err_cqe) == CXB_MLX5_CQE_SIZE, "");
	return 0;
}

/* ctrl.opmod_idx_opcode: opmod 0, the WQE's index modulo 2^16 in bits
 * 8..23, the opcode in bits 0..7; mlx5e builds it from its u16 producer
 * counter: cpu_to_be32((sq->pc << 8) | opcode) in mlx5e_txwqe_complete(),
 * mlx5e_tx_mpwqe_session_complete() (en_tx.c), mlx5e_post_nop()
 * (en/txrx.h).
 */
static int t_opmod_idx_opcode(void)
{
	struct mlx5_wqe_ctrl_seg ctrl;
	unsigned int i, j;

	CHECK(CXB_MLX5_IDX_MASK << MLX5_WQE_CTRL_WQE_INDEX_SHIFT ==
	      MLX5_WQE_CTRL_WQE_INDEX_MASK, "");
	CHECK(CXB_MLX5_OPCODE_MASK == MLX5_WQE_CTRL_OPCODE_MASK, "");
	for (i = 0; i < ARRAY_SIZE(idxs); i++) {
		for (j = 0; j < ARRAY_SIZE(opcodes); j++) {
			u32 idx = idxs[i], op = opcodes[j];
			u16 pc = (u16)idx;	/* mlx5e's sq->pc */

			memset(&ctrl, 0xa5, sizeof(ctrl));
			ctrl.opmod_idx_opcode = cxb_mlx5_opmod_idx_opcode(idx, op);
			CHECK(ctrl.opmod_idx_opcode == cpu_to_be32((pc << 8) | op),
			      "idx %#x op %#x", idx, op);
			CHECK(be_bytes(&ctrl.opmod_idx_opcode,
				       (idx & 0xffff) << 8 | op),
			      "idx %#x op %#x", idx, op);
			CHECK(cxb_mlx5_ctrl_idx(&ctrl) == (idx & 0xffff),
			      "idx %#x", idx);
			CHECK(cxb_mlx5_ctrl_opcode(&ctrl) == op, "op %#x", op);
			CHECK((be32_to_cpu(ctrl.opmod_idx_opcode) &
			       MLX5_WQE_CTRL_WQE_INDEX_MASK) >>
			      MLX5_WQE_CTRL_WQE_INDEX_SHIFT == (idx & 0xffff),
			      "idx %#x", idx);
		}
	}
	/* the index after 0xffff is 0, also across the u32 wrap */
	CHECK(cxb_mlx5_opmod_idx_opcode(0xffff + 1, MLX5_OPCODE_SEND) ==
	      cxb_mlx5_opmod_idx_opcode(0, MLX5_OPCODE_SEND), "");
	CHECK(cxb_mlx5_opmod_idx_opcode(0xffffffffU + 1U, MLX5_OPCODE_SEND) ==
	      cxb_mlx5_opmod_idx_opcode(0x10000, MLX5_OPCODE_SEND), "");
	return 0;
}

/* ctrl.qpn_ds: the SQ number in bits 8..31, DS in bits 0..5; mlx5e:
 * cpu_to_be32((sq->sqn << 8) | ds_cnt) (en_tx.c). The send path builds it
 * from the ring's doorbell value, cxb_mlx4_send_db_val() (be32 qpn << 8).
 */
static int t_qpn_ds(void)
{
	static const u32 qpns[] = { 0, 1, 0x40, 0x1234, 0xabcdef, 0xffffff };
	static const unsigned int dss[] = {
		1, 2, 3, 4, 5, 8, 9, 31, CXB_MLX5_MAX_DS,
	};
	struct mlx5_wqe_ctrl_seg ctrl;
	unsigned int i, j;

	CHECK(MLX5_WQE_CTRL_QPN_SHIFT == 8, "");
	CHECK(MLX5_WQE_CTRL_DS_MASK == 0x3f, "");
	for (i = 0; i < ARRAY_SIZE(qpns); i++) {
		for (j = 0; j < ARRAY_SIZE(dss); j++) {
			u32 qpn = qpns[i];
			unsigned int ds = dss[j];

			ctrl.qpn_ds = cxb_mlx5_qpn_ds(cxb_mlx4_send_db_val(qpn),
						      ds);
			CHECK(ctrl.qpn_ds == cpu_to_be32((qpn << 8) | ds),
			      "qpn %#x ds %u", qpn, ds);
			CHECK(be_bytes(&ctrl.qpn_ds, qpn << 8 | ds), "");
			CHECK(cxb_mlx5_ctrl_qpn(&ctrl) == qpn, "qpn %#x ds %u",
			      qpn, ds);
			CHECK(cxb_mlx5_ctrl_ds(&ctrl) == ds, "qpn %#x ds %u",
			      qpn, ds);
		}
		/* the field's largest DS decodes (the sim reads any) */
		ctrl.qpn_ds = cpu_to_be32(qpns[i] << 8 | MLX5_WQE_CTRL_DS_MASK);
		CHECK(cxb_mlx5_ctrl_ds(&ctrl) == 63 &&
		      cxb_mlx5_ctrl_qpn(&ctrl) == qpns[i], "");
	}
	return 0;
}

/* WQEBBs of a WQE of DS: DIV_ROUND_UP(ds_cnt, MLX5_SEND_WQEBB_NUM_DS),
 * mlx5e_sq_calc_wqe_attr() and mlx5e_tx_mpwqe_session_complete() in
 * en_tx.c.
 */
static int t_wqebbs(void)
{
	static const unsigned int ds[] = { 1, 2, 3, 4, 5, 8, 9, 12, 13, 32, 63 };
	static const unsigned int want[] = { 1, 1, 1, 1, 2, 2, 3, 3, 4, 8, 16 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ds); i++)
		CHECK(cxb_mlx5_ds_to_wqebbs(ds[i]) == want[i], "ds %u", ds[i]);
	for (i = 1; i <= MLX5_WQE_CTRL_DS_MASK; i++)
		CHECK(cxb_mlx5_ds_to_wqebbs(i) ==
		      DIV_ROUND_UP(i, MLX5_SEND_WQEBB_NUM_DS), "ds %u", i);
	CHECK(cxb_mlx5_ds_to_wqebbs(CXB_MLX5_MAX_DS) == CXB_MLX5_MAX_WQEBBS, "");
	return 0;
}

/* An inline segment: byte_count = MLX5_INLINE_SEG | length, the bytes
 * after it; DS as mlx5e_xdp_mpwqe_add_dseg() (en/xdp.h) counts them:
 * DIV_ROUND_UP(sizeof(struct mlx5_wqe_inline_seg) + len, MLX5_SEND_WQE_DS).
 */
static int t_inline_seg(void)
{
	static const unsigned int len[] = { 1, 12, 13, 28, 29, 60, 252, 464 };
	static const unsigned int want[] = { 1, 1, 2, 2, 3, 4, 16, 30 };
	unsigned int i;

	CHECK(MLX5_INLINE_SEG == 0x80000000U, "");
	for (i = 0; i < ARRAY_SIZE(len); i++)
		CHECK(cxb_mlx5_inline_ds(len[i]) == want[i], "len %u", len[i]);
	for (i = 1; i <= CXB_MLX4_INLINE_MAX; i++) {
		__be32 bc = cxb_mlx5_inline_bc(i);

		CHECK(cxb_mlx5_inline_ds(i) ==
		      DIV_ROUND_UP(sizeof(struct mlx5_wqe_inline_seg) + i,
				   MLX5_SEND_WQE_DS), "len %u", i);
		CHECK(be_bytes(&bc, MLX5_INLINE_SEG | i), "len %u", i);
		CHECK(cxb_mlx5_seg_is_inline(bc), "len %u", i);
		CHECK(cxb_mlx5_inline_len(bc) == i, "len %u", i);
		/* a data segment's byte_count is not inline */
		CHECK(!cxb_mlx5_seg_is_inline(cpu_to_be32(i)), "len %u", i);
	}
	CHECK(!cxb_mlx5_seg_is_inline(cpu_to_be32(0x7fffffff)), "");
	/* mlx5e's largest inline packet in an XDP MPWQE: 16 DS with the
	 * segment header (MLX5E_XDP_INLINE_WQE_SZ_THRSD, 252 bytes)
	 */
	CHECK(cxb_mlx5_inline_ds(MLX5E_XDP_INLINE_WQE_MAX_DS_CNT *
				 MLX5_SEND_WQE_DS -
				 sizeof(struct mlx5_wqe_inline_seg)) ==
	      MLX5E_XDP_INLINE_WQE_MAX_DS_CNT, "");
	/* tx-copybreak's limit (cxbell_ethtool.c) inline in a SEND WQE or
	 * alone in a multi-packet WQE fills the largest WQE exactly
	 */
	CHECK(CXB_MLX5_HDR_DS + cxb_mlx5_inline_ds(CXB_MLX4_INLINE_MAX) ==
	      CXB_MLX5_MAX_DS, "%u", cxb_mlx5_inline_ds(CXB_MLX4_INLINE_MAX));
	return 0;
}

/* The eth segment: inline headers at WQE offset 30 (inline_hdr.start),
 * the next segment after ceil((sz - 2) / 16) more DS as
 * mlx5e_sq_calc_wqe_attr() (en_tx.c) counts ds_cnt_inl; a VLAN tag to
 * insert shares the field with inline_hdr.sz (mlx5e_txwqe_build_eseg()
 * asks it only without inline headers).
 */
static int t_eth_inline(void)
{
	static const unsigned int sz[] = { 0, 1, 2, 3, 18, 34, 35, 50, 366 };
	static const unsigned int want[] = { 2, 2, 2, 3, 3, 4, 5, 5, 25 };
	unsigned int i;

	CHECK(CXB_MLX5_ETH_INLINE_OFF == 30, "");
	CHECK(sizeof(struct mlx5_wqe_ctrl_seg) +
	      offsetof(struct mlx5_wqe_eth_seg, inline_hdr.start) ==
	      CXB_MLX5_ETH_INLINE_OFF, "");
	CHECK(INL_HDR_START_SZ == CXB_MLX5_INLINE_START, "");
	CHECK(offsetof(struct mlx5_wqe_eth_seg, insert.type) ==
	      offsetof(struct mlx5_wqe_eth_seg, inline_hdr.sz), "");
	CHECK(offsetof(struct mlx5_wqe_eth_seg, cs_flags) == 4, "");
	CHECK(MLX5_ETH_WQE_L3_CSUM == 0x40 && MLX5_ETH_WQE_L4_CSUM == 0x80, "");
	CHECK(MLX5_ETH_WQE_INSERT_VLAN == 0x8000, "");
	for (i = 0; i < ARRAY_SIZE(sz); i++)
		CHECK(cxb_mlx5_eth_inline_ds(sz[i]) == want[i], "sz %u", sz[i]);
	for (i = INL_HDR_START_SZ; i <= 366; i++) {
		unsigned int inl = i - INL_HDR_START_SZ;

		CHECK(cxb_mlx5_eth_inline_ds(i) == MLX5E_TX_WQE_EMPTY_DS_COUNT +
		      DIV_ROUND_UP(inl, MLX5_SEND_WQE_DS), "sz %u", i);
		/* what the sim's gather computed: ALIGN(30 + sz, 16) */
		CHECK(cxb_mlx5_eth_inline_ds(i) * CXB_MLX5_DS_SIZE ==
		      (CXB_MLX5_ETH_INLINE_OFF + i + 15) / 16 * 16, "sz %u", i);
	}
	/* mlx5e's L2 minimum (MLX5_INLINE_MODE_L2, mlx5e_calc_min_inline())
	 * takes one DS more than a SEND without inline headers, two with a
	 * VLAN tag put into them: with the pointer segment after them one
	 * WQEBB (the XDP send queue's WQE), two with the tag
	 */
	CHECK(MLX5_INLINE_MODE_NONE == 0 && MLX5_INLINE_MODE_L2 == 1, "");
	CHECK(CXB_MLX5_MIN_INLINE_L2 == MLX5E_MIN_INLINE, "");
	CHECK(cxb_mlx5_eth_inline_ds(MLX5E_MIN_INLINE) == CXB_MLX5_HDR_DS + 1,
	      "");
	CHECK(cxb_mlx5_eth_inline_ds(MLX5E_MIN_INLINE + 4) ==
	      CXB_MLX5_HDR_DS + 2, "");
	CHECK(cxb_mlx5_ds_to_wqebbs(cxb_mlx5_eth_inline_ds(MLX5E_MIN_INLINE) +
				    1) == 1, "");
	CHECK(cxb_mlx5_ds_to_wqebbs(cxb_mlx5_eth_inline_ds(MLX5E_MIN_INLINE + 4) +
				    1) == 2, "");
	return 0;
}

/* CQE layout of the send CQE (struct mlx5_cqe64) and the error CQE that
 * overlays it (struct mlx5_err_cqe).
 */
static int t_cqe_layout(void)
{
	struct mlx5_cqe64 cqe;
	union {
		struct mlx5_cqe64 cqe;
		struct mlx5_err_cqe err;
	} u;

	CHECK(offsetof(struct mlx5_cqe64, byte_cnt) == 0x2c, "");
	CHECK(offsetof(struct mlx5_cqe64, sop_drop_qpn) == 0x38, "");
	CHECK(offsetof(struct mlx5_cqe64, wqe_counter) == 0x3c, "");
	CHECK(offsetof(struct mlx5_cqe64, op_own) == 0x3f, "");
	CHECK(offsetof(struct mlx5_err_cqe, vendor_err_synd) == 0x36, "");
	CHECK(offsetof(struct mlx5_err_cqe, syndrome) == 0x37, "");
	CHECK(offsetof(struct mlx5_err_cqe, s_wqe_opcode_qpn) == 0x38, "");
	CHECK(offsetof(struct mlx5_err_cqe, wqe_counter) ==
	      offsetof(struct mlx5_cqe64, wqe_counter), "");
	CHECK(offsetof(struct mlx5_err_cqe, op_own) ==
	      offsetof(struct mlx5_cqe64, op_own), "");

	memset(&cqe, 0, sizeof(cqe));
	cqe.op_own = MLX5_CQE_REQ << 4 | 1;
	CHECK(get_cqe_opcode(&cqe) == MLX5_CQE_REQ, "");
	memset(&u, 0, sizeof(u));
	u.err.op_own = MLX5_CQE_REQ_ERR << 4;
	u.err.wqe_counter = cpu_to_be16(0xfffe);
	CHECK(get_cqe_opcode(&u.cqe) == MLX5_CQE_REQ_ERR, "");
	CHECK(be16_to_cpu(u.cqe.wqe_counter) == 0xfffe, "");
	return 0;
}

/* mlx5_cqwq_get_cqe() (mlx5 core's wq.h): the CQE at consumer counter cc
 * is software's when its owner bit equals (cc >> log_size) & 1.
 */
static int mlx5_sw_owned(u8 op_own, u32 cc, unsigned int log_size)
{
	return (op_own & MLX5_CQE_OWNER_MASK) == ((cc >> log_size) & 1);
}

static int t_cqe_owner(void)
{
	static const unsigned int logs[] = { 1, 6, 10, 16, 22 };
	struct mlx5_cqe64 cqe;
	unsigned int i, k, own;

	for (i = 0; i < ARRAY_SIZE(logs); i++) {
		u32 size = 1U << logs[i];
		const u32 ci[] = {
			0, 1, size - 1, size, size + 1, 2 * size - 1, 2 * size,
			3 * size - 1, 3 * size, 0U - size - 1, 0U - size,
			0U - 1,
		};

		for (k = 0; k < ARRAY_SIZE(ci); k++) {
			for (own = 0; own < 2; own++) {
				memset(&cqe, 0, sizeof(cqe));
				cqe.op_own = MLX5_CQE_REQ << 4 | own;
				CHECK(cxb_mlx5_cqe_sw_owned(&cqe, ci[k], size) ==
				      mlx5_sw_owned(cqe.op_own, ci[k], logs[i]),
				      "size %u ci %#x own %u", size, ci[k], own);
			}
		}
		/* a lap's entries: the device's owner bit is the lap's
		 * parity, software's at the same index is its complement
		 */
		memset(&cqe, 0, sizeof(cqe));
		CHECK(cxb_mlx5_cqe_sw_owned(&cqe, size - 1, size), "");
		CHECK(!cxb_mlx5_cqe_sw_owned(&cqe, size, size), "");
		/* the last lap before the u32 wrap is odd */
		CHECK(!cxb_mlx5_cqe_sw_owned(&cqe, 0U - size, size), "");
		cqe.op_own = 1;
		CHECK(cxb_mlx5_cqe_sw_owned(&cqe, 0U - 1, size), "");
		/* across the u32 wrap: cc 0 after 0xffffffff */
		CHECK(cxb_mlx5_cqe_sw_owned(&cqe, 0U - 1, size) !=
		      cxb_mlx5_cqe_sw_owned(&cqe, 0, size), "size %u", size);
	}
	return 0;
}

/* The initial CQE: mlx5e_alloc_cq_common() (en_main.c) writes op_own =
 * 0xf1 into every entry, opcode MLX5_CQE_INVALID, owner 1: none of lap
 * 0 is software's.
 */
static int t_cqe_init(void)
{
	struct mlx5_cqe64 cqe;
	u32 size = 256, ci;

	CHECK(CXB_MLX5_CQE_INIT == 0xf1, "%#x", CXB_MLX5_CQE_INIT);
	memset(&cqe, 0, sizeof(cqe));
	cqe.op_own = CXB_MLX5_CQE_INIT;
	CHECK(get_cqe_opcode(&cqe) == MLX5_CQE_INVALID, "");
	CHECK(cqe.op_own & MLX5_CQE_OWNER_MASK, "");
	for (ci = 0; ci < size; ci++)
		CHECK(!cxb_mlx5_cqe_sw_owned(&cqe, ci, size), "ci %u", ci);
	return 0;
}

/* The CQ consumer index record: the walk stores cpu_to_be32(ci &
 * CXB_MLX5_CI_MASK) (cxb_mlx5_tx_complete()), as mlx5_cq_set_ci()
 * (linux/mlx5/cq.h) does; the CQ doorbell register is at the offset
 * mlx4 uses too.
 */
static int t_cq_ci_record(void)
{
	static const u32 cis[] = {
		0, 1, 0xfffe, 0xffff, 0x10000, 0xffffff, 0x1000000, 0x1234567,
		0xfffffffe, 0xffffffff,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cis); i++) {
		__be32 rec[2] = { 0 };
		struct mlx5_core_cq cq = {
			.cons_index = cis[i], .set_ci_db = &rec[0],
		};

		mlx5_cq_set_ci(&cq);
		CHECK(rec[0] == cpu_to_be32(cis[i] & CXB_MLX5_CI_MASK),
		      "ci %#x", cis[i]);
	}
	CHECK(MLX5_CQ_DOORBELL == 0x20 && MLX5_CQ_DOORBELL == MLX4_CQ_DOORBELL,
	      "");
	return 0;
}

/* The core's cx5 CQ arm words and record against mlx5_core's
 * mlx5_cq_arm() (linux/mlx5/cq.h) with the command mlx5e_cq_arm()
 * (en/txrx.h) passes, MLX5_CQ_DB_REQ_NOT, and the arm record at dword 1
 * of the CQ doorbell record (mcq->arm_db = db + 1, en_main.c): sequence
 * number, command and consumer index first, the CQN second, the reverse
 * of mlx4_cq_arm()'s order.
 */
static int t_cq_arm_vs_mlx5(void)
{
	static const u32 cqns[] = { 0x80, 0x1f3, 0xffffff };
	unsigned int i, sn, ci;

	CHECK(CXB_MLX5_CQ_DB == MLX5_CQ_DOORBELL, "");
	CHECK(MLX5_CQ_DB_REQ_NOT == 0 && MLX5_CQ_DB_REQ_NOT_SOL == 1 << 24, "");
	CHECK((MLX5_CQ_DB_REQ_NOT_SOL & CXB_MLX5_CQ_CMD_MASK) ==
	      MLX5_CQ_DB_REQ_NOT_SOL, "");
	/* mlx4's command is not one of mlx5's: a sim that parses the arm
	 * by the generation tells the layouts apart.
	 */
	CHECK((MLX4_CQ_DB_REQ_NOT & CXB_MLX5_CQ_CMD_MASK) != MLX5_CQ_DB_REQ_NOT &&
	      (MLX4_CQ_DB_REQ_NOT & CXB_MLX5_CQ_CMD_MASK) !=
	      MLX5_CQ_DB_REQ_NOT_SOL, "");
	for (i = 0; i < ARRAY_SIZE(cqns); i++) {
		for (sn = 0; sn < 6; sn++) {
			for (ci = 0; ci < 0x2000000; ci += 0x345671) {
				static u8 page[MLX5_ADAPTER_PAGE_SIZE];
				__be32 rec[2] = { 0 }, w[2];
				struct mlx5_core_cq cq = {
					.cons_index = ci, .arm_sn = sn,
					.cqn = cqns[i], .arm_db = &rec[1],
					.set_ci_db = &rec[0],
				};

				memset(page, 0, sizeof(page));
				mlx5_cq_arm(&cq, MLX5_CQ_DB_REQ_NOT, page, ci);
				cxb_mlx5_cq_arm_words(sn, cqns[i], ci, w);
				CHECK(!memcmp(page + CXB_MLX5_CQ_DB, w, 8),
				      "cqn 0x%x sn %u ci %u", cqns[i], sn, ci);
				CHECK(rec[1] == cxb_mlx5_cq_arm_rec(sn, ci),
				      "cqn 0x%x sn %u ci %u", cqns[i], sn, ci);
				CHECK(rec[0] == 0, "ci %u", ci);
				/* the decoding the sim does */
				CHECK(be32_to_cpu(w[1]) == cqns[i], "");
				CHECK((be32_to_cpu(w[0]) & CXB_MLX5_CQ_CMD_MASK) ==
				      MLX5_CQ_DB_REQ_NOT, "");
				CHECK(be32_to_cpu(w[0]) >> CXB_MLX5_CQ_SN_SHIFT ==
				      (sn & 3), "sn %u", sn);
				CHECK((be32_to_cpu(w[0]) & CXB_MLX5_CI_MASK) ==
				      (ci & CXB_MLX5_CI_MASK), "ci %u", ci);
			}
		}
	}
	return 0;
}

/* The send doorbell record holds the producer counter, big-endian, 16
 * bits, in dword MLX5_SND_DBR of the record: mlx5e_notify_hw()
 * (en/txrx.h) stores cpu_to_be32(pc), pc its u16 producer counter, to
 * wq->db = &wq->db[MLX5_SND_DBR] (en_main.c), mlx5r_ring_db() (mlx5_ib,
 * wr.c) to qp->db.db[MLX5_SND_DBR]; cxb_mlx5_tx_doorbell() stores prod &
 * CXB_MLX5_IDX_MASK to db_rec[CXB_MLX5_SQ_DBR].
 */
static int t_sq_db_record(void)
{
	unsigned int i;

	CHECK(MLX5_SND_DBR == 1 && MLX5_RCV_DBR == 0, "");
	CHECK(CXB_MLX5_SQ_DBR == MLX5_SND_DBR, "");
	CHECK(CXB_MLX5_DBR_SIZE == 8, "");
	CHECK((CXB_MLX5_SQ_DBR + 1) * sizeof(__be32) <= CXB_MLX5_DBR_SIZE, "");
	for (i = 0; i < ARRAY_SIZE(idxs); i++) {
		u16 pc = (u16)idxs[i];
		__be32 rec[2] = { 0 }, want[2] = { 0 };

		rec[CXB_MLX5_SQ_DBR] = cpu_to_be32(idxs[i] & CXB_MLX5_IDX_MASK);
		want[MLX5_SND_DBR] = cpu_to_be32(pc);
		CHECK(!memcmp(rec, want, sizeof(rec)), "prod %#x", idxs[i]);
		CHECK(be_bytes((u8 *)rec + 4, pc), "prod %#x", idxs[i]);
	}
	return 0;
}

/* The UAR doorbell: the first 8 bytes of the control segment to the
 * blue flame register at MLX5_BF_OFFSET of the UAR page (map_offset() in
 * mlx5 core's uar.c for the page's first register), alternating between
 * its two halves as mlx5_ib does (mlx5r_ring_db() in wr.c: offset ^=
 * buf_size, buf_size = (1 << log_bf_reg_size) / 2 in _create_kernel_qp(),
 * qp.c). mlx5e_notify_hw() writes the same 8 bytes with mlx5_write64().
 */
static int t_uar_doorbell(void)
{
	static u8 page[MLX5_ADAPTER_PAGE_SIZE], want[MLX5_ADAPTER_PAGE_SIZE];
	static struct mlx5_hca_cap gen;
	static struct mlx5_core_dev dev;
	struct mlx5_core_dev *mdev = &dev;
	unsigned int i, off = 0, bf_reg_size;
	struct mlx5_wqe_ctrl_seg ctrl;

	mdev->caps.hca[MLX5_CAP_GENERAL] = &gen;
	MLX5_SET(cmd_hca_cap, gen.cur, log_bf_reg_size, 9);
	bf_reg_size = 1U << MLX5_CAP_GEN(mdev, log_bf_reg_size);
	CHECK(bf_reg_size == 512, "%u", bf_reg_size);

	CHECK(CXB_MLX5_DB_OFFSET == 0x800 && MLX5_BF_OFFSET == 0x800, "");
	CHECK(bf_reg_size / 2 == CXB_MLX5_DB_ALT, "");
	for (i = 0; i < 6; i++) {
		u32 idx = 0xfffd + i;

		ctrl.opmod_idx_opcode =
			cxb_mlx5_opmod_idx_opcode(idx, MLX5_OPCODE_SEND);
		ctrl.qpn_ds = cxb_mlx5_qpn_ds(cxb_mlx4_send_db_val(0x1c5), 3);
		CHECK(off == (i & 1 ? CXB_MLX5_DB_ALT : 0), "i %u", i);
		/* both halves inside the first register, 8-byte aligned */
		CHECK(CXB_MLX5_DB_OFFSET + off + 8 <=
		      MLX5_BF_OFFSET + bf_reg_size, "");
		CHECK((CXB_MLX5_DB_OFFSET + off) % 8 == 0, "");

		/* cxbell: one raw 64-bit store of the first 8 bytes */
		memset(page, 0, sizeof(page));
		__raw_writeq(*(const u64 *)&ctrl, page + CXB_MLX5_DB_OFFSET + off);
		/* mlx5_core's: mlx5_write64() of the ctrl segment */
		memset(want, 0, sizeof(want));
		mlx5_write64((__be32 *)&ctrl, want + MLX5_BF_OFFSET + off);
		CHECK(!memcmp(page, want, sizeof(page)), "i %u", i);
		CHECK(be_bytes(page + CXB_MLX5_DB_OFFSET + off,
			       (idx & 0xffff) << 8 | MLX5_OPCODE_SEND), "");
		CHECK(be_bytes(page + CXB_MLX5_DB_OFFSET + off + 4,
			       0x1c5 << 8 | 3), "");
		off ^= CXB_MLX5_DB_ALT;
	}
	return 0;
}

/* BlueFlame (Linux 4.9's mlx5e: mlx5e_tx_notify_hw() in en.h, bf_sz set
 * in mlx5e_sq_xmit(), bf_buf_size in mlx5e_create_sq()): the whole WQE,
 * num_wqebbs << 3 64-bit words, through the same alternating halves of
 * the blue flame register, each bf_buf_size = (1 << log_bf_reg_size) / 2
 * bytes. cxbell sends a WQE that way if its bytes fit a half.
 */
static int t_bf_write(void)
{
	static struct mlx5_hca_cap gen;
	static struct mlx5_core_dev dev;
	struct mlx5_core_dev *mdev = &dev;
	struct mlx5_wqe_ctrl_seg ctrl;
	unsigned int ds, bf_buf_size, bf_sz, fits = 0, off;

	mdev->caps.hca[MLX5_CAP_GENERAL] = &gen;
	MLX5_SET(cmd_hca_cap, gen.cur, log_bf_reg_size, 9);
	bf_buf_size = (1U << MLX5_CAP_GEN(mdev, log_bf_reg_size)) / 2;
	CHECK(bf_buf_size == CXB_MLX5_BF_SIZE, "%u", bf_buf_size);
	CHECK(bf_buf_size == CXB_MLX5_DB_ALT, "");
	/* both halves whole inside the register */
	for (off = 0; off <= CXB_MLX5_DB_ALT; off += CXB_MLX5_DB_ALT)
		CHECK(CXB_MLX5_DB_OFFSET + off + CXB_MLX5_BF_SIZE <=
		      MLX5_BF_OFFSET + 2 * bf_buf_size, "off %u", off);
	for (ds = 1; ds <= CXB_MLX5_MAX_DS; ds++) {
		ctrl.qpn_ds = cxb_mlx5_qpn_ds(cxb_mlx4_send_db_val(0x2a), ds);
		bf_sz = DIV_ROUND_UP(ds, MLX5_SEND_WQEBB_NUM_DS) << 3;
		CHECK(cxb_mlx5_bf_bytes(&ctrl) == bf_sz * 8, "ds %u", ds);
		CHECK(cxb_mlx5_bf_bytes(&ctrl) % MLX5_SEND_WQE_BB == 0, "");
		fits += cxb_mlx5_bf_bytes(&ctrl) <= CXB_MLX5_BF_SIZE;
	}
	/* DS 1..16: up to 4 WQEBBs */
	CHECK(fits == 16, "%u", fits);
	return 0;
}

/* mlx5e's bound on a multi-packet WQE, mlx5e_get_max_sq_aligned_wqebbs()
 * (en.h): the device's max_wqe_sz_sq in WQEBBs, at most
 * MLX5_SEND_WQE_MAX_WQEBBS - 1 so that its DS fit the 6-bit field, even
 * with 128-byte cache lines (64-byte here: not rounded down to even).
 */
static unsigned int mlx5e_mpw_wqebbs(struct mlx5_core_dev *mdev)
{
	unsigned int w = MLX5_CAP_GEN(mdev, max_wqe_sz_sq) / MLX5_SEND_WQE_BB;

	if (w > MLX5_SEND_WQE_MAX_WQEBBS)
		w = MLX5_SEND_WQE_MAX_WQEBBS;
	if (w > MLX5_SEND_WQE_MAX_WQEBBS - 1)
		w = MLX5_SEND_WQE_MAX_WQEBBS - 1;
	return w;
}

static int t_mpwqe_sizing(void)
{
	static struct mlx5_hca_cap gen;
	static struct mlx5_core_dev dev;
	struct mlx5_core_dev *mdev = &dev;
	unsigned int len, n;

	mdev->caps.hca[MLX5_CAP_GENERAL] = &gen;
	MLX5_SET(cmd_hca_cap, gen.cur, max_wqe_sz_sq, 1024);
	CHECK(mlx5e_mpw_wqebbs(mdev) == 15, "");
	CHECK(mlx5e_mpw_wqebbs(mdev) * MLX5_SEND_WQEBB_NUM_DS <=
	      MLX5_WQE_CTRL_DS_MASK, "");
	/* cxbell's session is within mlx5e's, and needs a device whose
	 * max_wqe_sz_sq takes CXB_MLX5_MAX_WQEBBS
	 */
	CHECK(mlx5e_mpw_wqebbs(mdev) >= CXB_MLX5_MAX_WQEBBS, "");
	MLX5_SET(cmd_hca_cap, gen.cur, max_wqe_sz_sq,
		 CXB_MLX5_MAX_WQEBBS * MLX5_SEND_WQE_BB);
	CHECK(mlx5e_mpw_wqebbs(mdev) == CXB_MLX5_MAX_WQEBBS, "");

	/* a session of one packet: ctrl, eth, one data segment */
	CHECK(cxb_mlx5_ds_to_wqebbs(CXB_MLX5_HDR_DS + 1) == 1, "");
	/* full (mlx5e_tx_mpwqe_is_full(): ds_count == wqebbs * 4): 30
	 * pointer packets in 8 WQEBBs, fewer than a WQEBB's 4 DS each, so
	 * the per-packet FIFO of cxb_mlx5_tx_alloc() (4 per WQEBB) holds
	 * every packet a ring's sessions carry
	 */
	n = CXB_MLX5_MAX_DS - CXB_MLX5_HDR_DS;
	CHECK(n == 30, "");
	CHECK(cxb_mlx5_ds_to_wqebbs(CXB_MLX5_HDR_DS + n) == CXB_MLX5_MAX_WQEBBS,
	      "");
	CHECK(n <= CXB_MLX5_MAX_WQEBBS * CXB_MLX5_DS_PER_WQEBB, "");
	/* inline packets: as many as their DS fit after the eth segment */
	for (len = 1; len <= CXB_MLX4_INLINE_MAX; len++) {
		unsigned int per = cxb_mlx5_inline_ds(len);

		n = (CXB_MLX5_MAX_DS - CXB_MLX5_HDR_DS) / per;
		CHECK(n >= 1, "len %u", len);
		CHECK(CXB_MLX5_HDR_DS + n * per <= CXB_MLX5_MAX_DS, "len %u", len);
		CHECK(CXB_MLX5_HDR_DS + (n + 1) * per > CXB_MLX5_MAX_DS,
		      "len %u", len);
	}
	CHECK((CXB_MLX5_MAX_DS - CXB_MLX5_HDR_DS) / cxb_mlx5_inline_ds(60) == 7,
	      "");
	return 0;
}

/* The receive queue: one mlx5_wqe_data_seg per WQE (mlx5e's struct
 * mlx5e_rx_wqe_cyc with one fragment, en.h), its producer in dword
 * MLX5_RCV_DBR (mlx5_wq_cyc_update_db_record(), wq.h: *wq->db =
 * cpu_to_be32(wq->wqe_ctr)).
 */
static int t_rq_layout(void)
{
	CHECK(1U << CXB_MLX5_RX_STRIDE_SHIFT == sizeof(struct mlx5_wqe_data_seg),
	      "");
	CHECK(CXB_MLX5_RQ_DBR == MLX5_RCV_DBR, "");
	CHECK(CXB_MLX5_RQ_DBR == 0, "");
	CHECK(CXB_MLX5_RQ_DBR != CXB_MLX5_SQ_DBR, "");
	CHECK(offsetof(struct mlx5_wqe_data_seg, byte_count) == 0, "");
	CHECK(offsetof(struct mlx5_wqe_data_seg, lkey) == 4, "");
	CHECK(offsetof(struct mlx5_wqe_data_seg, addr) == 8, "");
	return 0;
}

/* The receive CQE fields cxbell reads and the sim writes: offsets in
 * the 64 bytes, the L3/L4 types as mlx5e decodes them
 * (get_cqe_l3_hdr_type() in en/txrx.h: (l4_l3_hdr_type >> 2) & 0x3;
 * get_cqe_l4_hdr_type(), cqe_has_vlan() in device.h), the hash types
 * within CQE_RSS_HTYPE_IP / _L4, the checksum verdict as mlx5e's
 * unnecessary case (mlx5e_handle_csum(), en_rx.c).
 */
static int t_rx_cqe(void)
{
	static const u8 l4s[] = {
		CQE_L4_HDR_TYPE_NONE, CQE_L4_HDR_TYPE_TCP_NO_ACK,
		CQE_L4_HDR_TYPE_UDP, CQE_L4_HDR_TYPE_TCP_ACK_NO_DATA,
		CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA,
	};
	struct mlx5_cqe64 cqe;
	unsigned int l3, i, v, ok;

	CHECK(offsetof(struct mlx5_cqe64, rss_hash_result) == 0x0c, "");
	CHECK(offsetof(struct mlx5_cqe64, rss_hash_type) == 0x10, "");
	CHECK(offsetof(struct mlx5_cqe64, hds_ip_ext) == 0x1c, "");
	CHECK(offsetof(struct mlx5_cqe64, l4_l3_hdr_type) == 0x1d, "");
	CHECK(offsetof(struct mlx5_cqe64, vlan_info) == 0x1e, "");
	for (l3 = 0; l3 <= CXB_MLX5_CQE_L3_IPV4; l3++) {
		for (i = 0; i < ARRAY_SIZE(l4s); i++) {
			for (v = 0; v <= 1; v++) {
				memset(&cqe, 0, sizeof(cqe));
				cqe.l4_l3_hdr_type = l3 << CXB_MLX5_CQE_L3_SHIFT |
						     l4s[i] << CXB_MLX5_CQE_L4_SHIFT |
						     (v ? CXB_MLX5_CQE_VLAN : 0);
				CHECK(((cqe.l4_l3_hdr_type >> 2) & 0x3) == l3,
				      "l3 %u", l3);
				CHECK(get_cqe_l4_hdr_type(&cqe) == l4s[i],
				      "l4 %u", l4s[i]);
				CHECK(cqe_has_vlan(&cqe) == v, "");
				CHECK(cxb_mlx5_rx_has_vlan(&cqe) == v, "");
			}
		}
	}
	CHECK((CXB_MLX5_HTYPE_IPV4 | CXB_MLX5_HTYPE_IPV6) == CQE_RSS_HTYPE_IP,
	      "");
	CHECK((CXB_MLX5_HTYPE_TCP | CXB_MLX5_HTYPE_UDP) == CQE_RSS_HTYPE_L4,
	      "");
	for (ok = 0; ok < 8; ok++) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.hds_ip_ext = ok;
		CHECK(cxb_mlx5_rx_csum_ok(&cqe) ==
		      ((cqe.hds_ip_ext & CQE_L3_OK) &&
		       (cqe.hds_ip_ext & CQE_L4_OK)), "hds_ip_ext %#x", ok);
	}
	memset(&cqe, 0, sizeof(cqe));
	cqe.op_own = MLX5_CQE_RESP_SEND << 4 | 1;
	CHECK(cxb_mlx5_cqe_opcode(&cqe) == get_cqe_opcode(&cqe) &&
	      get_cqe_opcode(&cqe) == MLX5_CQE_RESP_SEND, "");
	cqe.op_own = MLX5_CQE_RESP_ERR << 4;
	CHECK(cxb_mlx5_cqe_opcode(&cqe) == MLX5_CQE_RESP_ERR, "");
	return 0;
}

int main(void)
{
	static const struct ktap_case cases[] = {
		{ "mlx5_segment_sizes", t_sizes },
		{ "mlx5_ctrl_opmod_idx_opcode", t_opmod_idx_opcode },
		{ "mlx5_ctrl_qpn_ds", t_qpn_ds },
		{ "mlx5_wqebbs_from_ds", t_wqebbs },
		{ "mlx5_inline_segment", t_inline_seg },
		{ "mlx5_eth_segment_inline_headers", t_eth_inline },
		{ "mlx5_cqe_layout", t_cqe_layout },
		{ "mlx5_cqe_ownership_laps", t_cqe_owner },
		{ "mlx5_cqe_init_value", t_cqe_init },
		{ "mlx5_cq_ci_record_matches_mlx5_cq_set_ci", t_cq_ci_record },
		{ "mlx5_cq_arm_matches_mlx5_cq_arm", t_cq_arm_vs_mlx5 },
		{ "mlx5_sq_doorbell_record", t_sq_db_record },
		{ "mlx5_uar_doorbell_write", t_uar_doorbell },
		{ "mlx5_blueflame_write", t_bf_write },
		{ "mlx5_mpwqe_sizing", t_mpwqe_sizing },
		{ "mlx5_rq_layout", t_rq_layout },
		{ "mlx5_rx_cqe_fields", t_rx_cqe },
	};
	int failed;

	failed = ktap_run("cxbell_mlx5", cases, ARRAY_SIZE(cases));
	return failed != 0;
}
