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
 * index past the last posted WQE, 16 bits) to the doorbell record, two
 * be32 in host memory of which a send queue's is dword MLX5_SND_DBR (1;
 * dword 0, MLX5_RCV_DBR, is a receive queue's), then copies the first 8
 * bytes of the last posted WQE's control segment to the UAR page at
 * MLX5_BF_OFFSET, alternating between the two buffers CXB_MLX5_DB_ALT
 * apart, with one 64-bit store.
 *
 * BlueFlame: instead of those 8 bytes, the whole last WQE, if it fits one
 * buffer (CXB_MLX5_BF_SIZE: 4 WQEBBs), in 64-bit stores through a
 * write-combining mapping of the same buffer. The device takes that WQE
 * from the write rather than reading it from ring memory, which must
 * hold the same bytes (mlx5e_tx_notify_hw() with bf_sz in Linux 4.9's
 * en.h; later mlx5e rings with the 8 bytes only, mlx5e_notify_hw()).
 *
 * SEND (MLX5_OPCODE_SEND): ctrl, eth segment (cs_flags; inline_hdr.sz
 * bytes of headers starting at inline_hdr.start, the next segment at
 * DS cxb_mlx5_eth_inline_ds(sz), offset ALIGN(30 + sz, 16) when sz > 2),
 * then pointer data segments (struct mlx5_wqe_data_seg) or inline
 * segments (struct mlx5_wqe_inline_seg: byte_count = MLX5_INLINE_SEG |
 * length, the bytes follow, the next segment at ALIGN(offset + 4 +
 * length, 16)), gathered in order into one frame.
 *
 * LSO (MLX5_OPCODE_LSO, as mlx5e_sq_xmit_wqe() in en_tx.c builds it):
 * ctrl, an eth segment with mss (TCP payload bytes per segment), cs_flags
 * and the packet's headers, Ethernet (a VLAN tag to insert already in
 * them) to the end of the TCP header, as inline_hdr.sz bytes of inline
 * headers; then pointer data segments for the payload. The device sends
 * the payload in segments of at most mss bytes, each behind a copy of
 * the headers with its own IP length, IPv4 ID, TCP sequence number and
 * flags and checksums. Never in a multi-packet WQE.
 *
 * Enhanced multi-packet WQE (MLX5_OPCODE_ENHANCED_MPSW): ctrl, one eth
 * segment without inline headers whose flags every packet shares (mss 0),
 * then one data or inline segment per packet, each a frame of its own.
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
 *
 * Receive queue: cyclic (mlx5e's MLX5_WQ_TYPE_CYCLIC with one fragment),
 * a ring of single data segments (struct mlx5_wqe_data_seg, stride 16);
 * the producer counter (free-running WQE index, 16 bits) goes to dword
 * MLX5_RCV_DBR (0) of the queue's doorbell record, which the device reads
 * when it has used every WQE it knew of (mlx5_wq_cyc_update_db_record()).
 *
 * Receive CQE (opcode MLX5_CQE_RESP_SEND, 64 bytes as the send ones):
 * byte_cnt; wqe_counter, the WQE's index modulo 2^16; rss_hash_result
 * and rss_hash_type (CQE_RSS_HTYPE_IP: the addresses were hashed,
 * CQE_RSS_HTYPE_L4: the ports too); hds_ip_ext CQE_L3_OK and CQE_L4_OK
 * (the IP header checksum and the TCP/UDP checksum verified);
 * l4_l3_hdr_type: bit 0 a stripped VLAN tag (its TCI in vlan_info), bits
 * 2..3 the L3 type, bits 4..6 the L4 type (get_cqe_l4_hdr_type()). An
 * error (opcode MLX5_CQE_RESP_ERR, struct mlx5_err_cqe) names the WQE in
 * wqe_counter, with syndrome and vendor_err_synd. A frame with a bad FCS
 * gets no CQE: the port drops it and counts it in its 802.3 counters.
 *
 * CQ arm (mlx5_cq_arm() in linux/mlx5/cq.h, called by mlx5e_cq_arm() in
 * mlx5e's en/txrx.h with MLX5_CQ_DB_REQ_NOT): the arm word sn << 28 | cmd
 * | ci (sequence number 2 bits, consumer index 24 bits) goes to dword 1
 * of the CQ doorbell record (mlx5e: mcq->arm_db = db + 1, en_main.c),
 * then the same word and the CQN, in that order, to the UAR page at
 * MLX5_CQ_DOORBELL with one 64-bit store. mlx4 writes the CQN in the
 * first word and the consumer index in the second, with another command
 * value (wqe/mlx4.h).
 */
#ifndef _CXBELL_WQE_MLX5_H
#define _CXBELL_WQE_MLX5_H

#include <linux/kernel.h>
#include <linux/mlx5/cq.h>
#include <linux/mlx5/doorbell.h>
#include <linux/mlx5/qp.h>

#include "mlx4.h"

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

/* The CQ arm doorbell: its UAR page offset, and the command field of its
 * first word (MLX5_CQ_DB_REQ_NOT or MLX5_CQ_DB_REQ_NOT_SOL).
 */
#define CXB_MLX5_CQ_DB		MLX5_CQ_DOORBELL
#define CXB_MLX5_CQ_CMD_MASK	(3U << 24)
#define CXB_MLX5_CQ_SN_SHIFT	28

/* The send doorbell: UAR page offset of the first buffer, distance to
 * the second.
 */
#define CXB_MLX5_DB_OFFSET	MLX5_BF_OFFSET
#define CXB_MLX5_DB_ALT		CXB_MLX5_BF_SIZE

/* One BlueFlame buffer: half the blue flame register, (1 <<
 * log_bf_reg_size) / 2 for log_bf_reg_size 9 (mlx5e's bf_buf_size in
 * Linux 4.9's en_main.c), the largest WQE a BlueFlame write carries.
 */
#define CXB_MLX5_BF_SIZE	0x100U

/* The send doorbell record: its size, and the dword of the producer
 * counter (mlx5e: wq->db = &wq->db[MLX5_SND_DBR] in en_main.c).
 */
#define CXB_MLX5_DBR_SIZE	(2 * sizeof(__be32))
#define CXB_MLX5_SQ_DBR		MLX5_SND_DBR

/* DS of ctrl + eth segment without inline headers */
#define CXB_MLX5_HDR_DS		2U
/* Inline header of an inline segment */
#define CXB_MLX5_INLINE_HDR	4U
/* Offset of the inline headers in a WQE (ctrl + eth.inline_hdr.start) */
#define CXB_MLX5_ETH_INLINE_OFF	30U
/* Inline header bytes inside the eth segment (inline_hdr.start) */
#define CXB_MLX5_INLINE_START	2U
/* Header bytes a SEND carries inline at least where the device's minimum
 * inline mode is L2 (mlx5e's MLX5E_MIN_INLINE, en_tx.c: the Ethernet
 * header and 4 bytes more), or the whole frame if it is shorter.
 */
#define CXB_MLX5_MIN_INLINE_L2	18U

/* The receive queue: WQE stride, doorbell record dword. */
#define CXB_MLX5_RX_STRIDE_SHIFT 4
#define CXB_MLX5_RQ_DBR		MLX5_RCV_DBR

/* l4_l3_hdr_type of a receive CQE: bit 0, and the L3 type in bits 2..3
 * (mlx5e's get_cqe_l3_hdr_type(); CQE_L3_HDR_TYPE_* in later kernels).
 */
#define CXB_MLX5_CQE_VLAN	0x1
#define CXB_MLX5_CQE_L3_SHIFT	2
#define CXB_MLX5_CQE_L3_IPV6	0x1
#define CXB_MLX5_CQE_L3_IPV4	0x2
#define CXB_MLX5_CQE_L4_SHIFT	4
/* rss_hash_type: the L3 and L4 selections (CQE_RSS_HTYPE_IP, _L4) */
#define CXB_MLX5_HTYPE_IPV4	(0x1 << 2)
#define CXB_MLX5_HTYPE_IPV6	(0x2 << 2)
#define CXB_MLX5_HTYPE_TCP	(0x1 << 6)
#define CXB_MLX5_HTYPE_UDP	(0x2 << 6)

static_assert(sizeof(struct mlx5_wqe_ctrl_seg) == CXB_MLX5_DS_SIZE);
static_assert(sizeof(struct mlx5_err_cqe) == CXB_MLX5_CQE_SIZE);
static_assert(BIT(CXB_MLX5_RX_STRIDE_SHIFT) ==
	      sizeof(struct mlx5_wqe_data_seg));
static_assert(sizeof(struct mlx5_wqe_eth_seg) == CXB_MLX5_DS_SIZE);
static_assert(sizeof(struct mlx5_wqe_data_seg) == CXB_MLX5_DS_SIZE);
static_assert(sizeof(struct mlx5_wqe_inline_seg) == CXB_MLX5_INLINE_HDR);
static_assert(sizeof(struct mlx5_cqe64) == CXB_MLX5_CQE_SIZE);
static_assert(CXB_MLX5_DS_SIZE + offsetof(struct mlx5_wqe_eth_seg,
					  inline_hdr.start) ==
	      CXB_MLX5_ETH_INLINE_OFF);
static_assert(CXB_MLX5_ETH_INLINE_OFF + CXB_MLX5_INLINE_START ==
	      CXB_MLX5_HDR_DS * CXB_MLX5_DS_SIZE);

/* The two formats' pointer data segments are the same 16 bytes,
 * byte_count (bit 31: inline), lkey, addr: the driver's receive WQEs and
 * cxb_tx_map(), and the sim's gather, write and read both with one code.
 */
static_assert(sizeof(struct mlx4_wqe_data_seg) ==
	      sizeof(struct mlx5_wqe_data_seg));
static_assert(offsetof(struct mlx4_wqe_data_seg, byte_count) ==
	      offsetof(struct mlx5_wqe_data_seg, byte_count));
static_assert(offsetof(struct mlx4_wqe_data_seg, lkey) ==
	      offsetof(struct mlx5_wqe_data_seg, lkey));
static_assert(offsetof(struct mlx4_wqe_data_seg, addr) ==
	      offsetof(struct mlx5_wqe_data_seg, addr));
static_assert((u32)MLX4_INLINE_SEG == (u32)MLX5_INLINE_SEG);

static inline unsigned int cxb_mlx5_ds_to_wqebbs(unsigned int ds)
{
	return DIV_ROUND_UP(ds, CXB_MLX5_DS_PER_WQEBB);
}

/* DS of ctrl + eth segment holding @sz bytes of inline headers: the
 * first segment after them starts at this DS. The first two header bytes
 * fit in inline_hdr.start, the rest take whole DS (mlx5e_sq_calc_wqe_attr()
 * in mlx5e's en_tx.c: ds_cnt_inl).
 */
static inline unsigned int cxb_mlx5_eth_inline_ds(unsigned int sz)
{
	return CXB_MLX5_HDR_DS +
	       (sz > CXB_MLX5_INLINE_START ?
		DIV_ROUND_UP(sz - CXB_MLX5_INLINE_START, CXB_MLX5_DS_SIZE) : 0);
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

/* ctrl.qpn_ds of a WQE of @ds (<= CXB_MLX5_MAX_DS) 16-byte units, from
 * the QP number already shifted and big-endian (cxb_mlx4_send_db_val()
 * gives the same qpn << 8), and its two halves.
 */
static inline __be32 cxb_mlx5_qpn_ds(__be32 qpn_be, unsigned int ds)
{
	return qpn_be | cpu_to_be32(ds);
}

static inline u32 cxb_mlx5_ctrl_qpn(const struct mlx5_wqe_ctrl_seg *ctrl)
{
	return be32_to_cpu(ctrl->qpn_ds) >> MLX5_WQE_CTRL_QPN_SHIFT;
}

static inline unsigned int cxb_mlx5_ctrl_ds(const struct mlx5_wqe_ctrl_seg *ctrl)
{
	return be32_to_cpu(ctrl->qpn_ds) & MLX5_WQE_CTRL_DS_MASK;
}

/* The bytes a BlueFlame write of the WQE of @ctrl copies: its WQEBBs,
 * whole (mlx5e_tx_notify_hw()'s bf_sz, in 8-byte words, was num_wqebbs
 * << 3). It goes by BlueFlame if that is at most CXB_MLX5_BF_SIZE.
 */
static inline unsigned int cxb_mlx5_bf_bytes(const struct mlx5_wqe_ctrl_seg *ctrl)
{
	return cxb_mlx5_ds_to_wqebbs(cxb_mlx5_ctrl_ds(ctrl)) <<
	       CXB_MLX5_WQEBB_SHIFT;
}

/* The control segment of a WQE of @ds DS at @idx, asking for no CQE (a
 * doorbell asks it of the WQE it names); @qpn_be is be32(qpn << 8).
 */
static inline void cxb_mlx5_ctrl_init(struct mlx5_wqe_ctrl_seg *ctrl, u32 idx,
				      u32 opcode, __be32 qpn_be,
				      unsigned int ds)
{
	ctrl->opmod_idx_opcode = cxb_mlx5_opmod_idx_opcode(idx, opcode);
	ctrl->qpn_ds = cxb_mlx5_qpn_ds(qpn_be, ds);
	ctrl->signature = 0;
	ctrl->rsvd[0] = 0;
	ctrl->rsvd[1] = 0;
	ctrl->fm_ce_se = 0;
	ctrl->imm = 0;
}

/* True if the CQE at free-running index @ci has been written this lap. */
static inline bool cxb_mlx5_cqe_sw_owned(const struct mlx5_cqe64 *cqe, u32 ci,
					 u32 size)
{
	return !(cqe->op_own & MLX5_CQE_OWNER_MASK) == !(ci & size);
}

/* The CQ arm word: the doorbell record's dword 1 and the doorbell's
 * first word.
 */
static inline __be32 cxb_mlx5_cq_arm_rec(u32 sn, u32 ci)
{
	return cpu_to_be32((sn & 3) << CXB_MLX5_CQ_SN_SHIFT |
			   MLX5_CQ_DB_REQ_NOT | (ci & CXB_MLX5_CI_MASK));
}

/* The CQ arm doorbell's two words, as mlx5_cq_arm() writes them. */
static inline void cxb_mlx5_cq_arm_words(u32 sn, u32 cqn, u32 ci, __be32 w[2])
{
	w[0] = cxb_mlx5_cq_arm_rec(sn, ci);
	w[1] = cpu_to_be32(cqn);
}

/* op_own of a CQE nobody wrote yet (lap 0 belongs to the device). */
#define CXB_MLX5_CQE_INIT	(MLX5_CQE_INVALID << 4 | MLX5_CQE_OWNER_MASK)

static inline u8 cxb_mlx5_cqe_opcode(const struct mlx5_cqe64 *cqe)
{
	return cqe->op_own >> 4;
}

/* A receive CQE's verdicts: the checksums verified, the hash type. */
static inline bool cxb_mlx5_rx_csum_ok(const struct mlx5_cqe64 *cqe)
{
	return (cqe->hds_ip_ext & (CQE_L3_OK | CQE_L4_OK)) ==
	       (CQE_L3_OK | CQE_L4_OK);
}

static inline bool cxb_mlx5_rx_has_vlan(const struct mlx5_cqe64 *cqe)
{
	return cqe->l4_l3_hdr_type & CXB_MLX5_CQE_VLAN;
}

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
