/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell_mlx4: the values the backend hands to a ConnectX-3, as pure
 * functions.
 *
 * Everything here is computed from its arguments only: QP contexts for
 * the send, receive and RSS indirection QPs (struct mlx4_qp_context of
 * linux/mlx4/qp.h, filled the way an Ethernet QP of mlx4_core expects
 * it), the register addresses inside a UAR page and a BlueFlame
 * register, MTT page lists of the core's ring memory, the steering GID
 * and the port MTU. The backend (cxbell_mlx4_res.c) feeds these to
 * mlx4_core; tools/testing/cxbell/unit/ compiles this header in user
 * space against the kernel's own mlx4 headers and checks the results.
 *
 * Facts the QP context carries (mlx4 QPC, as mlx4_core's Ethernet users
 * program it):
 *  - flags: service type in bits 16..23 (7: Ethernet/raw), bit 13 marks an
 *    RSS indirection QP;
 *  - sq_size_stride / rq_size_stride: log2(entries) << 3 | log2(stride) - 4
 *    (a QP without receive queue still describes a 1-entry SQ of 64-byte
 *    TXBBs, one without send queue keeps rq_size_stride 0);
 *  - usr_page: hardware index of the UAR page whose send doorbell rings the
 *    QP (the BlueFlame page's own UAR when BlueFlame is used);
 *  - pri_path.sched_queue: 0x83 | (port - 1) << 6;
 *  - db_rec_addr: DMA address of the receive doorbell record;
 *  - param3 bit 30: do not strip the VLAN tag (set but on receive QPs the
 *    core asks to strip, as mlx4_en_fill_qp_context() sets it without
 *    NETIF_F_HW_VLAN_CTAG_RX);
 *  - an RSS QP carries struct mlx4_rss_context at pri_path + 0x24: the
 *    base RX QPN with log2(count) in bits 24..31, the default QPN, hash
 *    function and key.
 */
#ifndef _CXBELL_MLX4_HW_H
#define _CXBELL_MLX4_HW_H

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/mlx4/qp.h>
#include <linux/string.h>

#include "../wqe/mlx4.h"

/* Ethernet service type in mlx4_qp_context.flags (bits 16..23). */
#define CXB_MLX4_QPC_ST_ETH	7U
#define CXB_MLX4_QPC_ST_SHIFT	16
#define CXB_MLX4_SCHED_QUEUE	0x83U
#define CXB_MLX4_SCHED_PORT_SHIFT 6
#define CXB_MLX4_QPC_NO_VLAN_STRIP BIT(30)
#define CXB_MLX4_RSS_KEY_SIZE	MLX4_EN_RSS_KEY_SIZE
#define CXB_MLX4_RSS_LOG_SHIFT	24
/* Frame bytes on top of the MTU the port must accept. */
#define CXB_MLX4_MTU_OVERHEAD	(ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN)

/**
 * struct cxb_mlx4_qpc_cfg - what distinguishes one cxbell QP from another
 * @qpn: the QP's number
 * @cqn: completion queue (send and receive side alike)
 * @pdn: protection domain
 * @uar_index: hardware UAR index (mlx4_to_hw_uar_index()) of the page
 *	whose send doorbell the core rings
 * @port: 1-based port number
 * @counter_index: port counter the QP counts into
 * @log_size: log2 of the ring's entries (send or receive ring)
 * @log_stride: log2 of the bytes per entry (64 for send, 16 for receive)
 * @db_dma: DMA address of the doorbell record (receive producer)
 * @fpp: set the force-physical-port bit (MLX4_DEV_CAP_FLAG2_PORT_REMAP)
 */
struct cxb_mlx4_qpc_cfg {
	u32 qpn;
	u32 cqn;
	u32 pdn;
	u32 uar_index;
	u8 port;
	u8 counter_index;
	u8 log_size;
	u8 log_stride;
	u64 db_dma;
	bool fpp;
};

static inline u8 cxb_mlx4_sched_queue(u8 port)
{
	return CXB_MLX4_SCHED_QUEUE | (port - 1) << CXB_MLX4_SCHED_PORT_SHIFT;
}

static inline u8 cxb_mlx4_size_stride(unsigned int log_size,
				      unsigned int log_stride)
{
	return log_size << 3 | (log_stride - 4);
}

/* The fields every cxbell QP shares. */
static inline void cxb_mlx4_qpc_common(struct mlx4_qp_context *c,
				       const struct cxb_mlx4_qpc_cfg *cfg,
				       bool rss)
{
	memset(c, 0, sizeof(*c));
	c->flags = cpu_to_be32(CXB_MLX4_QPC_ST_ETH << CXB_MLX4_QPC_ST_SHIFT |
			       (u32)rss << MLX4_RSS_QPC_FLAG_OFFSET);
	c->pd = cpu_to_be32(cfg->pdn);
	c->mtu_msgmax = 0xff;
	c->usr_page = cpu_to_be32(cfg->uar_index);
	c->local_qpn = cpu_to_be32(cfg->qpn);
	c->pri_path.ackto = 1;
	c->pri_path.sched_queue = cxb_mlx4_sched_queue(cfg->port);
	c->pri_path.counter_index = cfg->counter_index;
	c->cqn_send = cpu_to_be32(cfg->cqn);
	c->cqn_recv = cpu_to_be32(cfg->cqn);
	c->db_rec_addr = cpu_to_be64(cfg->db_dma);
	c->param3 = cpu_to_be32(CXB_MLX4_QPC_NO_VLAN_STRIP);
}

/* Send QP: a ring of TXBBs, no receive queue. */
static inline void cxb_mlx4_sq_qpc(struct mlx4_qp_context *c,
				   const struct cxb_mlx4_qpc_cfg *cfg)
{
	cxb_mlx4_qpc_common(c, cfg, false);
	c->sq_size_stride = cxb_mlx4_size_stride(cfg->log_size,
						 cfg->log_stride);
	if (cfg->fpp)
		c->params2 |= cpu_to_be32(MLX4_QP_BIT_FPP);
}

/* Receive QP: a ring of receive WQEs, a minimal send queue; @strip:
 * the device strips a C-VLAN tag into the CQE.
 */
static inline void cxb_mlx4_rq_qpc(struct mlx4_qp_context *c,
				   const struct cxb_mlx4_qpc_cfg *cfg,
				   bool strip)
{
	cxb_mlx4_qpc_common(c, cfg, false);
	if (strip)
		c->param3 &= ~cpu_to_be32(CXB_MLX4_QPC_NO_VLAN_STRIP);
	c->rq_size_stride = cxb_mlx4_size_stride(cfg->log_size,
						 cfg->log_stride);
	c->sq_size_stride = cxb_mlx4_size_stride(0, CXB_MLX4_TXBB_SHIFT);
}

/* Where the RSS context lives inside a QP context. */
static inline struct mlx4_rss_context *
cxb_mlx4_qpc_rss(struct mlx4_qp_context *c)
{
	return (void *)((u8 *)&c->pri_path + MLX4_RSS_OFFSET_IN_QPC_PRI_PATH);
}

/* RSS indirection QP spreading over the 2^@log_n receive QPs from
 * @rx_base (aligned to 2^@log_n) with the Toeplitz hash and @key, over
 * addresses and TCP ports, with @udp UDP ports too, UDP spread from the
 * same base (mlx4_en sets MLX4_RSS_UDP_IPV4/6 and base_qpn_udp =
 * default_qpn where the device has MLX4_DEV_CAP_FLAG_UDP_RSS).
 */
static inline void cxb_mlx4_rss_qpc(struct mlx4_qp_context *c,
				    const struct cxb_mlx4_qpc_cfg *cfg,
				    u32 rx_base, unsigned int log_n,
				    const u8 key[CXB_MLX4_RSS_KEY_SIZE],
				    bool udp)
{
	struct mlx4_rss_context *rss;

	cxb_mlx4_qpc_common(c, cfg, true);
	c->sq_size_stride = cxb_mlx4_size_stride(0, CXB_MLX4_TXBB_SHIFT);
	rss = cxb_mlx4_qpc_rss(c);
	rss->base_qpn = cpu_to_be32(log_n << CXB_MLX4_RSS_LOG_SHIFT | rx_base);
	rss->default_qpn = cpu_to_be32(rx_base);
	rss->flags = MLX4_RSS_IPV4 | MLX4_RSS_TCP_IPV4 | MLX4_RSS_IPV6 |
		     MLX4_RSS_TCP_IPV6;
	if (udp) {
		rss->flags |= MLX4_RSS_UDP_IPV4 | MLX4_RSS_UDP_IPV6;
		rss->base_qpn_udp = rss->default_qpn;
	}
	rss->hash_fn = MLX4_RSS_HASH_TOP;
	memcpy(rss->rss_key, key, CXB_MLX4_RSS_KEY_SIZE);
}

/* log2 of the receive QPs RSS spreads over when receive QPs 0..@live-1
 * exist: the largest power of two not above @live (0 for 0 or 1).
 */
static inline unsigned int cxb_mlx4_rss_log_n(unsigned int live)
{
	unsigned int log_n = 0;

	while (live >> (log_n + 1))
		log_n++;
	return log_n;
}

/* The receive QPs an indirection table of @n entries (a power of two)
 * spreads over, if the RSS QP can express it: @table[i] = i % m for a
 * power of two m (mlx4_en_set_rxfh() takes only such tables), m; else 0.
 */
static inline unsigned int cxb_mlx4_rss_rings(const u8 *table,
					      unsigned int n)
{
	unsigned int i, m;

	for (m = 1; m < n && table[m]; m++)
		;
	if (m & (m - 1))
		return 0;
	for (i = 0; i < n; i++)
		if (table[i] != i % m)
			return 0;
	return m;
}

/* Registers of a UAR page (mapped at @uar_map) the core writes. */
static inline void __iomem *cxb_mlx4_send_db_reg(void __iomem *uar_map)
{
	return (u8 __iomem *)uar_map + CXB_MLX4_SEND_DB;
}

static inline void __iomem *cxb_mlx4_cq_db_reg(void __iomem *uar_map)
{
	return (u8 __iomem *)uar_map + CXB_MLX4_CQ_DB;
}

/* BlueFlame: a BF page holds registers of caps.bf_reg_size bytes
 * (mlx4_bf_alloc() hands out one); each is two buffers of half that size,
 * which the core posts to alternately: the buffer size the core is told.
 */
static inline unsigned int cxb_mlx4_bf_buf_size(unsigned int bf_reg_size)
{
	return bf_reg_size / 2;
}

/* MTT of a physically contiguous ring (one coherent allocation): pages of
 * 2^@page_shift bytes from @dma. The first is the count, the second fills
 * @list (cxb_mlx4_mtt_npages() entries).
 */
static inline unsigned int cxb_mlx4_mtt_npages(size_t size,
					       unsigned int page_shift)
{
	return (size + (1UL << page_shift) - 1) >> page_shift;
}

static inline void cxb_mlx4_mtt_fill(u64 *list, u64 dma, size_t size,
				     unsigned int page_shift)
{
	unsigned int i, n = cxb_mlx4_mtt_npages(size, page_shift);

	for (i = 0; i < n; i++)
		list[i] = dma + ((u64)i << page_shift);
}

/* GID of the unicast/multicast steering entry of @mac on @port (B0
 * steering): the MAC in bytes 10..15, the port in byte 5.
 */
static inline void cxb_mlx4_steer_gid(u8 gid[16], const u8 *mac, u8 port)
{
	memset(gid, 0, 16);
	memcpy(&gid[10], mac, ETH_ALEN);
	gid[5] = port;
}

/* SET_MCAST_FLTR modes (mlx4_en, en_port.h) and the broadcast address
 * mlx4_en programs first (ETH_BCAST, mlx4_en.h)
 */
enum {
	CXB_MLX4_MCAST_CONFIG	= 0,
	CXB_MLX4_MCAST_DISABLE	= 1,
	CXB_MLX4_MCAST_ENABLE	= 2,
};

#define CXB_MLX4_ETH_BCAST	0xffffffffffffULL

/* Largest frame the port must accept for @mtu (SET_PORT general). */
static inline unsigned int cxb_mlx4_port_mtu(unsigned int mtu)
{
	return mtu + CXB_MLX4_MTU_OVERHEAD;
}

/* Largest MTU for a port whose frames may be @eth_mtu_cap bytes. */
static inline unsigned int cxb_mlx4_max_mtu(unsigned int eth_mtu_cap)
{
	return eth_mtu_cap - CXB_MLX4_MTU_OVERHEAD;
}

/* QUERY_PORT output (Ethernet port context): the link is up when bit 7
 * of its first byte is set.
 */
#define CXB_MLX4_QUERY_PORT_LINK_UP	0x80U

static inline bool cxb_mlx4_query_port_link_up(const void *port_ctx)
{
	return *(const u8 *)port_ctx & CXB_MLX4_QUERY_PORT_LINK_UP;
}

#endif /* _CXBELL_MLX4_HW_H */
