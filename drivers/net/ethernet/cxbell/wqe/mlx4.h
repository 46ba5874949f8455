/* SPDX-License-Identifier: GPL-2.0 */
/* ConnectX-3 (mlx4) descriptor formats as cxbell uses them.
 *
 * The layouts are the kernel's own (linux/mlx4/qp.h, cq.h, doorbell.h).
 * This header adds the conventions both sides of the ring share: the
 * driver core builds and parses with it, the cxbell_sim device model
 * executes and validates with it. It holds no state.
 *
 * Send queue: a ring of 64-byte TXBBs. A WQE is a control segment
 * followed by data segments, DS (16-byte units, control included) in the
 * low 6 bits of ctrl.fence_size, occupying DIV_ROUND_UP(DS * 16, 64)
 * TXBBs. A WQE at ring index I (free-running, in TXBBs) belongs to the
 * device when bit 31 of ctrl.owner_opcode equals !!(I & ring_size). The
 * driver writes that word last. When it frees a multi-TXBB WQE, the driver
 * stamps the first dword of every TXBB but the first with STAMP and the
 * owner bit of the lap it was posted in, so stale data never looks owned
 * by the device on a later lap. A WQE never wraps: the driver pads the
 * ring end with a NOP WQE instead.
 *
 * Completion queue: a ring of 32-byte CQEs (struct mlx4_cqe). An entry at
 * free-running index C belongs to software when its owner bit equals
 * !!(C & cq_size). The driver initialises every entry to the opposite of
 * lap 0, i.e. owner bit set. Send CQEs carry, in wqe_index, the ring index
 * (modulo 2^16) of the WQE's first TXBB; the driver frees every WQE up to
 * and including that one. Only WQEs with MLX4_WQE_CTRL_CQ_UPDATE get one.
 *
 * Receive queue: a ring of one data segment per WQE (16 bytes); the
 * producer index is published in a host-memory doorbell record.
 *
 * Inline data: instead of pointer data segments (struct mlx4_wqe_data_seg,
 * 16 bytes, DMA address of the bytes), a SEND may carry its frame in the
 * WQE as a sequence of inline segments (struct mlx4_wqe_inline_seg:
 * byte_count = MLX4_INLINE_SEG | length, the bytes follow). No segment
 * crosses a 64-byte (MLX4_INLINE_ALIGN) boundary of the WQE: segment 0
 * starts right after the control segment (offset 16) and holds up to
 * CXB_MLX4_INLINE_FIRST_MAX (44) bytes, segment i > 0 starts at offset
 * 64 * i and holds up to CXB_MLX4_INLINE_SEG_MAX (60). Whatever the
 * lengths, a segment at offset O with L bytes is followed by the next one
 * at ALIGN(O + 4 + L, 16). DS covers the control segment and all segments.
 * The device tells the two kinds apart by bit 31 of a segment's first
 * dword (a pointer segment's byte_count is below 64 KiB).
 *
 * BlueFlame: instead of the 4-byte send doorbell, the driver may copy a
 * WQE it has written to ring memory (owner bit last, as always) into one
 * of the two BlueFlame buffers of the send queue's BF page, alternately,
 * with 64-bit stores: its whole TXBBs, cxb_mlx4_bf_len(DS) bytes, at most
 * the buffer size (CXB_MLX4_MAX_BF). Such a WQE carries, in its ring copy
 * and its BlueFlame copy alike, ctrl.qpn_vlan.bf_qpn = qpn << 8 | DS (the
 * VLAN fields give way, DS stays in the low 6 bits) and its ring index
 * (free-running TXBB index modulo 2^16) in bits 8..23 of
 * ctrl.owner_opcode. The write announces every WQE up to and including
 * the carried one, which the device takes from the write instead of
 * fetching it. It is only for the WQE that ends a burst (the TXBB after it
 * is not yet owned by the device) and for one that does not reach past the
 * ring end.
 *
 * LSO (TSO): opcode MLX4_OPCODE_LSO, with the BLH bit (6) of
 * ctrl.owner_opcode set as mlx4_en (en_tx.c mlx4_en_xmit()) always sets
 * it. After the control segment an LSO segment (struct mlx4_wqe_lso_seg):
 * mss_hdr_size = MSS << 16 | header length, then the packet's headers
 * (Ethernet to TCP, options included) inline, the whole padded to 16
 * bytes; then pointer data segments for the payload (the rest of the
 * linear part, then the fragments). The device sends the payload in
 * MSS-byte segments, each behind a copy of the headers with the IPv4
 * total length and ID (+1 per segment) or the IPv6 payload length, the
 * TCP sequence number (+MSS per segment) and the checksums of the
 * ctrl flags set; FIN and PSH only on the last segment, CWR only on the
 * first. Such a WQE never goes by BlueFlame (mlx4_en's never does).
 */
#ifndef _CXBELL_WQE_MLX4_H
#define _CXBELL_WQE_MLX4_H

#include <linux/kernel.h>
#include <linux/mlx4/cq.h>
#include <linux/mlx4/doorbell.h>
#include <linux/mlx4/qp.h>

#define CXB_MLX4_TXBB_SHIFT	6
#define CXB_MLX4_TXBB_SIZE	BIT(CXB_MLX4_TXBB_SHIFT)
#define CXB_MLX4_DS_SIZE	16U
/* Largest WQE cxbell posts (and the sim accepts): 8 TXBBs, 32 DS. */
#define CXB_MLX4_MAX_WQE_TXBBS	8U
#define CXB_MLX4_MAX_DS		(CXB_MLX4_MAX_WQE_TXBBS * CXB_MLX4_TXBB_SIZE / \
				 CXB_MLX4_DS_SIZE)
#define CXB_MLX4_DS_MASK	0x3f
#define CXB_MLX4_OWNER_BIT	BIT(31)
#define CXB_MLX4_OPCODE_MASK	0x1f
#define CXB_MLX4_STAMP		0x7fffffffU

#define CXB_MLX4_CQE_SIZE	32U
#define CXB_MLX4_CI_MASK	0xffffffU
#define CXB_MLX4_RX_STRIDE_SHIFT 4
/* A receive QP's work queue buffer: its one-entry send queue (one 64-byte
 * TXBB, stride 64) comes first, the receive queue (stride 16) after it -
 * mlx4 places the queue of the larger stride first (mlx4_en, en_rx.c:
 * "Move pointer to start of rx section", buf += TXBB_SIZE).
 */
#define CXB_MLX4_RX_RQ_OFFSET	CXB_MLX4_TXBB_SIZE
#define CXB_MLX4_RX_BUF_SIZE(n)	(CXB_MLX4_RX_RQ_OFFSET + \
				 ((size_t)(n) << CXB_MLX4_RX_STRIDE_SHIFT))

/* The UAR page: send doorbell, CQ doorbell (mlx4 offsets). */
#define CXB_MLX4_SEND_DB	MLX4_SEND_DOORBELL
#define CXB_MLX4_CQ_DB		MLX4_CQ_DOORBELL

/* Inline segments (see above) */
#define CXB_MLX4_INLINE_HDR	4U	/* sizeof(struct mlx4_wqe_inline_seg) */
#define CXB_MLX4_INLINE_FIRST_MAX 44U	/* 64 - ctrl - inline header */
#define CXB_MLX4_INLINE_SEG_MAX	60U	/* 64 - inline header */
/* Least inline data a WQE carries: shorter frames are padded with zeros
 * (mlx4_en, en_tx.c: MIN_PKT_LEN).
 */
#define CXB_MLX4_INLINE_MIN	17U
/* Most inline bytes a WQE of CXB_MLX4_MAX_WQE_TXBBS TXBBs carries (464). */
#define CXB_MLX4_INLINE_MAX	(CXB_MLX4_INLINE_FIRST_MAX + \
				 (CXB_MLX4_MAX_WQE_TXBBS - 1) * \
				 CXB_MLX4_INLINE_SEG_MAX)

/* BlueFlame (see above) */
#define CXB_MLX4_MAX_BF		256U	/* largest WQE posted by BlueFlame */
#define CXB_MLX4_BF_IDX_SHIFT	8	/* ring index in ctrl.owner_opcode */
#define CXB_MLX4_BF_IDX_MASK	0xffffU

/* LSO (see above) */
#define CXB_MLX4_LSO_BLH	BIT(6)	/* ctrl.owner_opcode of an LSO WQE */
#define CXB_MLX4_LSO_SEG_HDR	4U	/* sizeof(struct mlx4_wqe_lso_seg) */
#define CXB_MLX4_LSO_HDR_MASK	0xffffU	/* header length in mss_hdr_size */

static_assert(sizeof(struct mlx4_wqe_lso_seg) == CXB_MLX4_LSO_SEG_HDR);
static_assert(sizeof(struct mlx4_wqe_inline_seg) == CXB_MLX4_INLINE_HDR);
static_assert(sizeof(struct mlx4_wqe_ctrl_seg) == CXB_MLX4_DS_SIZE);
static_assert(CXB_MLX4_INLINE_FIRST_MAX ==
	      MLX4_INLINE_ALIGN - CXB_MLX4_DS_SIZE - CXB_MLX4_INLINE_HDR);
static_assert(CXB_MLX4_INLINE_SEG_MAX ==
	      MLX4_INLINE_ALIGN - CXB_MLX4_INLINE_HDR);

static inline unsigned int cxb_mlx4_ds_to_txbbs(unsigned int ds)
{
	return DIV_ROUND_UP(ds * CXB_MLX4_DS_SIZE, CXB_MLX4_TXBB_SIZE);
}

/* DS of a WQE, in the low 6 bits of ctrl.fence_size (or of bf_qpn). */
static inline unsigned int cxb_mlx4_ctrl_ds(const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return ctrl->qpn_vlan.fence_size & CXB_MLX4_DS_MASK;
}

/* Owner bit a WQE at free-running index @idx carries when posted. */
static inline u32 cxb_mlx4_owner(u32 idx, u32 size)
{
	return (idx & size) ? CXB_MLX4_OWNER_BIT : 0;
}

/* True if the CQE at free-running index @ci has been written for this lap. */
static inline bool cxb_mlx4_cqe_sw_owned(const struct mlx4_cqe *cqe, u32 ci,
					 u32 size)
{
	return !(cqe->owner_sr_opcode & MLX4_CQE_OWNER_MASK) == !(ci & size);
}

/* Error CQE (struct mlx4_err_cqe): opcode field of owner_sr_opcode. The
 * queue is in the error state after it; wqe_index names the failed WQE,
 * syndrome says why (MLX4_CQE_SYNDROME_*).
 */
#define CXB_MLX4_CQE_OPCODE_ERROR	0x1e

static inline bool cxb_mlx4_cqe_is_err(const struct mlx4_cqe *cqe)
{
	return (cqe->owner_sr_opcode & MLX4_CQE_OPCODE_MASK) ==
	       CXB_MLX4_CQE_OPCODE_ERROR;
}

/* Value written to the send doorbell: the QP number, pre-shifted. */
static inline __be32 cxb_mlx4_send_db_val(u32 qpn)
{
	return cpu_to_be32(qpn << 8);
}

/* Inline segment @i of a WQE: its byte offset in the WQE, and the most
 * bytes it holds.
 */
static inline unsigned int cxb_mlx4_inline_seg_off(unsigned int i)
{
	return i ? i * MLX4_INLINE_ALIGN : CXB_MLX4_DS_SIZE;
}

static inline unsigned int cxb_mlx4_inline_seg_max(unsigned int i)
{
	return i ? CXB_MLX4_INLINE_SEG_MAX : CXB_MLX4_INLINE_FIRST_MAX;
}

/* DS of a WQE carrying @len (1..CXB_MLX4_INLINE_MAX) bytes inline, every
 * segment but the last one full.
 */
static inline unsigned int cxb_mlx4_inline_ds(unsigned int len)
{
	unsigned int i = 0;

	while (len > cxb_mlx4_inline_seg_max(i))
		len -= cxb_mlx4_inline_seg_max(i++);
	return DIV_ROUND_UP(cxb_mlx4_inline_seg_off(i) + CXB_MLX4_INLINE_HDR +
			    len, CXB_MLX4_DS_SIZE);
}

/* DS of the LSO segment of an LSO WQE carrying @hdr header bytes. */
static inline unsigned int cxb_mlx4_lso_ds(unsigned int hdr)
{
	return DIV_ROUND_UP(CXB_MLX4_LSO_SEG_HDR + hdr, CXB_MLX4_DS_SIZE);
}

/* mss_hdr_size of an LSO segment, and its two fields. */
static inline __be32 cxb_mlx4_lso_mss_hdr(unsigned int mss, unsigned int hdr)
{
	return cpu_to_be32(mss << 16 | hdr);
}

static inline unsigned int cxb_mlx4_lso_mss(__be32 mss_hdr_size)
{
	return be32_to_cpu(mss_hdr_size) >> 16;
}

static inline unsigned int cxb_mlx4_lso_hdr(__be32 mss_hdr_size)
{
	return be32_to_cpu(mss_hdr_size) & CXB_MLX4_LSO_HDR_MASK;
}

/* byte_count of an inline segment of @len bytes. */
static inline __be32 cxb_mlx4_inline_bc(unsigned int len)
{
	return cpu_to_be32(MLX4_INLINE_SEG | len);
}

/* Decoding a segment's first dword: inline or pointer, inline length. */
static inline bool cxb_mlx4_seg_is_inline(__be32 byte_count)
{
	return byte_count & cpu_to_be32(MLX4_INLINE_SEG);
}

static inline unsigned int cxb_mlx4_inline_len(__be32 byte_count)
{
	return be32_to_cpu(byte_count) & ~MLX4_INLINE_SEG;
}

/* Bytes a BlueFlame write of a WQE of @ds copies: its whole TXBBs. */
static inline unsigned int cxb_mlx4_bf_len(unsigned int ds)
{
	return cxb_mlx4_ds_to_txbbs(ds) << CXB_MLX4_TXBB_SHIFT;
}

/* ctrl.qpn_vlan of a WQE whose frame the device sends with the 802.1Q
 * tag @tci inserted after the source MAC (vlan_tag, ins_vlan =
 * MLX4_WQE_CTRL_INS_CVLAN, fence_size @ds), as one be32. Such a WQE
 * never goes by BlueFlame: its copy would need the QPN there.
 */
static inline __be32 cxb_mlx4_vlan_ds(u16 tci, unsigned int ds)
{
	return cpu_to_be32((u32)tci << 16 | MLX4_WQE_CTRL_INS_CVLAN << 8 |
			   (ds & CXB_MLX4_DS_MASK));
}

/* ctrl.qpn_vlan.bf_qpn of a BlueFlame WQE of @ds (<= CXB_MLX4_MAX_DS)
 * 16-byte units, from the QP's send doorbell value @db_val
 * (cxb_mlx4_send_db_val(): qpn << 8, already big-endian, so the send path
 * swaps nothing per packet); and the QPN it carries.
 */
static inline __be32 cxb_mlx4_bf_qpn(__be32 db_val, unsigned int ds)
{
	return db_val | cpu_to_be32(ds);
}

static inline u32 cxb_mlx4_bf_qpn_to_qpn(__be32 bf_qpn)
{
	return be32_to_cpu(bf_qpn) >> 8;
}

/* ctrl.owner_opcode of a BlueFlame WQE at free-running index @idx of a
 * ring of @size TXBBs, and the ring index (modulo 2^16) it carries.
 */
static inline __be32 cxb_mlx4_bf_owner_opcode(u32 opcode, u32 idx, u32 size)
{
	return cpu_to_be32(opcode |
			   (idx & CXB_MLX4_BF_IDX_MASK) << CXB_MLX4_BF_IDX_SHIFT |
			   cxb_mlx4_owner(idx, size));
}

static inline u16 cxb_mlx4_bf_owner_idx(__be32 owner_opcode)
{
	return be32_to_cpu(owner_opcode) >> CXB_MLX4_BF_IDX_SHIFT &
	       CXB_MLX4_BF_IDX_MASK;
}

/* CQ arm doorbell: word 0 = sequence(2) << 28 | command | CQN,
 * word 1 = consumer index. The same (sequence | command | ci) word goes to
 * the arm doorbell record first.
 */
static inline void cxb_mlx4_cq_arm_words(u32 sn, u32 cqn, u32 ci, __be32 w[2])
{
	w[0] = cpu_to_be32((sn & 3) << 28 | MLX4_CQ_DB_REQ_NOT | cqn);
	w[1] = cpu_to_be32(ci & CXB_MLX4_CI_MASK);
}

static inline __be32 cxb_mlx4_cq_arm_rec(u32 sn, u32 ci)
{
	return cpu_to_be32((sn & 3) << 28 | MLX4_CQ_DB_REQ_NOT |
			   (ci & CXB_MLX4_CI_MASK));
}

#endif /* _CXBELL_WQE_MLX4_H */
