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

/* The UAR page: send doorbell, CQ doorbell (mlx4 offsets). */
#define CXB_MLX4_SEND_DB	MLX4_SEND_DOORBELL
#define CXB_MLX4_CQ_DB		MLX4_CQ_DOORBELL

static inline unsigned int cxb_mlx4_ds_to_txbbs(unsigned int ds)
{
	return DIV_ROUND_UP(ds * CXB_MLX4_DS_SIZE, CXB_MLX4_TXBB_SIZE);
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

/* Value written to the send doorbell: the QP number, pre-shifted. */
static inline __be32 cxb_mlx4_send_db_val(u32 qpn)
{
	return cpu_to_be32(qpn << 8);
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
