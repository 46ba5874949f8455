/* SPDX-License-Identifier: GPL-2.0 */
/* ConnectX-4+ (mlx5) send queue and completion formats as cxbell uses them.
 *
 * The layouts are the kernel's own (linux/mlx5/qp.h, cq.h, device.h,
 * doorbell.h); this header adds the conventions the driver core and the
 * cxbell_sim device model share. It holds no state.
 *
 * Send queue: a ring of 64-byte WQE basic blocks (WQEBBs). A WQE is a
 * control segment (struct mlx5_wqe_ctrl_seg), an Ethernet segment
 * (struct mlx5_wqe_eth_seg) and data segments; DS (16-byte units, control
 * included) is in the low 6 bits of ctrl.qpn_ds, the QP number above it,
 * and the WQE occupies DIV_ROUND_UP(DS, 4) WQEBBs. ctrl.opmod_idx_opcode
 * carries the opcode and the WQE's ring index (free-running WQEBB index
 * modulo 2^16). There is no owner bit: the device executes what the
 * doorbell record says was posted. A WQE never wraps: the driver pads the
 * ring end with a NOP WQE. cxbell posts WQEs of at most
 * CXB_MLX5_MAX_WQEBBS, the same bound as its mlx4 WQEs.
 *
 * Doorbell: the driver writes the producer counter (free-running WQEBB
 * index past the last posted WQE, 16 bits) to the doorbell record, a be32
 * in host memory, then copies the first 8 bytes of the last posted WQE's
 * control segment to the UAR page at MLX5_BF_OFFSET, alternating between
 * the two buffers CXB_MLX5_DB_ALT apart, with one 64-bit store.
 *
 * SEND (MLX5_OPCODE_SEND): ctrl, eth segment (cs_flags; inline_hdr.sz
 * bytes of headers starting at inline_hdr.start, the next segment at
 * ALIGN(30 + sz, 16) when sz > 2), then pointer data segments
 * (struct mlx5_wqe_data_seg) or inline segments (struct
 * mlx5_wqe_inline_seg: byte_count = MLX5_INLINE_SEG | length, the bytes
 * follow, the next segment at ALIGN(offset + 4 + length, 16)), gathered in
 * order into one frame.
 *
 * Enhanced multi-packet WQE (MLX5_OPCODE_ENHANCED_MPSW): ctrl, one eth
 * segment without inline headers whose flags every packet shares, then
 * one data or inline segment per packet, each a frame of its own.
 *
 * Completion queue: a ring of 64-byte CQEs (struct mlx5_cqe64). An entry
 * at free-running index C belongs to software when bit 0 of op_own equals
 * !!(C & cq_size); the driver initialises every entry to opcode
 * MLX5_CQE_INVALID with the owner bit set. A send CQE (opcode
 * MLX5_CQE_REQ) carries in wqe_counter the ring index of the WQE (modulo
 * 2^16); the driver frees every WQE up to and including that one. Only
 * WQEs with MLX5_WQE_CTRL_CQ_UPDATE in fm_ce_se get one, a multi-packet
 * WQE one for all its packets; cxbell asks it only of the WQE a doorbell
 * names. The consumer index goes to the CQ doorbell
 * record, as for mlx4.
 */
#ifndef _CXBELL_WQE_MLX5_H
#define _CXBELL_WQE_MLX5_H

#include <linux/kernel.h>
#include <linux/mlx5/cq.h>
#include <linux/mlx5/doorbell.h>
#include <linux/mlx5/qp.h>

#define CXB_MLX5_WQEBB_SHIFT	6
#define CXB_MLX5_WQEBB_SIZE	BIT(CXB_MLX5_WQEBB_SHIFT)
#define CXB_MLX5_DS_SIZE	16U
#define CXB_MLX5_DS_PER_WQEBB	(CXB_MLX5_WQEBB_SIZE / CXB_MLX5_DS_SIZE)
/* Largest WQE cxbell posts (and the sim accepts): 8 WQEBBs, 32 DS. */
#define CXB_MLX5_MAX_WQEBBS	8U
#define CXB_MLX5_MAX_DS		(CXB_MLX5_MAX_WQEBBS * CXB_MLX5_DS_PER_WQEBB)
#define CXB_MLX5_IDX_MASK	0xffffU
#define CXB_MLX5_OPCODE_MASK	0xff

#define CXB_MLX5_CQE_SIZE	64U
#define CXB_MLX5_CI_MASK	0xffffffU

/* The send doorbell: UAR page offset of the first buffer, distance to
 * the second.
 */
#define CXB_MLX5_DB_OFFSET	MLX5_BF_OFFSET
#define CXB_MLX5_DB_ALT		0x100U

/* DS of ctrl + eth segment without inline headers */
#define CXB_MLX5_HDR_DS		2U
/* Inline header of an inline segment */
#define CXB_MLX5_INLINE_HDR	4U
/* Offset of the inline headers in a WQE (ctrl + eth.inline_hdr.start) */
#define CXB_MLX5_ETH_INLINE_OFF	30U

static_assert(sizeof(struct mlx5_wqe_ctrl_seg) == CXB_MLX5_DS_SIZE);
static_assert(sizeof(struct mlx5_wqe_eth_seg) == CXB_MLX5_DS_SIZE);
static_assert(sizeof(struct mlx5_wqe_data_seg) == CXB_MLX5_DS_SIZE);
static_assert(sizeof(struct mlx5_wqe_inline_seg) == CXB_MLX5_INLINE_HDR);
static_assert(sizeof(struct mlx5_cqe64) == CXB_MLX5_CQE_SIZE);
static_assert(CXB_MLX5_DS_SIZE + offsetof(struct mlx5_wqe_eth_seg,
					  inline_hdr.start) ==
	      CXB_MLX5_ETH_INLINE_OFF);

static inline unsigned int cxb_mlx5_ds_to_wqebbs(unsigned int ds)
{
	return DIV_ROUND_UP(ds, CXB_MLX5_DS_PER_WQEBB);
}

/* DS an inline segment of @len bytes takes. */
static inline unsigned int cxb_mlx5_inline_ds(unsigned int len)
{
	return DIV_ROUND_UP(CXB_MLX5_INLINE_HDR + len, CXB_MLX5_DS_SIZE);
}

/* ctrl.opmod_idx_opcode of a WQE at free-running index @idx. */
static inline __be32 cxb_mlx5_opmod_idx_opcode(u32 idx, u32 opcode)
{
	return cpu_to_be32((idx & CXB_MLX5_IDX_MASK) <<
			   MLX5_WQE_CTRL_WQE_INDEX_SHIFT | opcode);
}

static inline u32 cxb_mlx5_ctrl_opcode(const struct mlx5_wqe_ctrl_seg *ctrl)
{
	return be32_to_cpu(ctrl->opmod_idx_opcode) & CXB_MLX5_OPCODE_MASK;
}

static inline u16 cxb_mlx5_ctrl_idx(const struct mlx5_wqe_ctrl_seg *ctrl)
{
	return be32_to_cpu(ctrl->opmod_idx_opcode) >>
	       MLX5_WQE_CTRL_WQE_INDEX_SHIFT & CXB_MLX5_IDX_MASK;
}

/* ctrl.qpn_ds, and its two halves. */
static inline __be32 cxb_mlx5_qpn_ds(u32 qpn, unsigned int ds)
{
	return cpu_to_be32(qpn << MLX5_WQE_CTRL_QPN_SHIFT |
			   (ds & MLX5_WQE_CTRL_DS_MASK));
}

static inline u32 cxb_mlx5_ctrl_qpn(const struct mlx5_wqe_ctrl_seg *ctrl)
{
	return be32_to_cpu(ctrl->qpn_ds) >> MLX5_WQE_CTRL_QPN_SHIFT;
}

static inline unsigned int cxb_mlx5_ctrl_ds(const struct mlx5_wqe_ctrl_seg *ctrl)
{
	return be32_to_cpu(ctrl->qpn_ds) & MLX5_WQE_CTRL_DS_MASK;
}

/* True if the CQE at free-running index @ci has been written this lap. */
static inline bool cxb_mlx5_cqe_sw_owned(const struct mlx5_cqe64 *cqe, u32 ci,
					 u32 size)
{
	return !(cqe->op_own & MLX5_CQE_OWNER_MASK) == !(ci & size);
}

/* op_own of a CQE nobody wrote yet (lap 0 belongs to the device). */
#define CXB_MLX5_CQE_INIT	(MLX5_CQE_INVALID << 4 | MLX5_CQE_OWNER_MASK)

/* Inline segment byte_count, decoding a segment's first dword. */
static inline __be32 cxb_mlx5_inline_bc(unsigned int len)
{
	return cpu_to_be32(MLX5_INLINE_SEG | len);
}

static inline bool cxb_mlx5_seg_is_inline(__be32 byte_count)
{
	return byte_count & cpu_to_be32(MLX5_INLINE_SEG);
}

static inline unsigned int cxb_mlx5_inline_len(__be32 byte_count)
{
	return be32_to_cpu(byte_count) & ~MLX5_INLINE_SEG;
}

#endif /* _CXBELL_WQE_MLX5_H */
