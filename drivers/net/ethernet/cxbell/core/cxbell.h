/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell core: private structures. */
#ifndef _CXBELL_H
#define _CXBELL_H

#include <linux/bpf.h>
#include <linux/cache.h>
#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/xdp.h>

#include <cxbell/backend.h>
#include <cxbell/compat.h>

#include "../wqe/mlx4.h"
#include "../wqe/mlx5.h"

struct bpf_prog;
struct cxb_channel;
struct page_pool;

#define CXB_DRV_NAME		"cxbell"

/* Keep in sync with the extack message in cxbell_ethtool.c. */
#define CXB_MIN_RING_SIZE	64U	/* > CXB_TX_WAKE_ROOM */
#define CXB_MAX_RING_SIZE	8192U
#define CXB_DEF_RING_SIZE	1024U
#define CXB_MAX_CHANNELS	64U

/* Room the xmit path keeps free: the HCA prefetches up to 2 KB of send
 * queue ahead of the WQE it executes, so that much plus one TXBB must
 * never hold WQEs of the previous lap still in flight (mlx4_en,
 * mlx4_en.h: HEADROOM = 2048 / TXBB_SIZE + 1 = 33 TXBBs); on top of it
 * one maximal WQE plus the NOPs that may pad the ring end before it
 * (mlx4_en has no NOPs: its full_size keeps HEADROOM + MAX_DESC_TXBBS,
 * 41). The queue stops when less than this is free and wakes once
 * another maximal WQE fits; 49 and 57 of the least ring, 64.
 */
#define CXB_TX_PREFETCH_ROOM	(2048 / CXB_MLX4_TXBB_SIZE + 1)
#define CXB_TX_STOP_ROOM	(CXB_TX_PREFETCH_ROOM + \
				 2 * CXB_MLX4_MAX_WQE_TXBBS)
#define CXB_TX_WAKE_ROOM	(CXB_TX_STOP_ROOM + CXB_MLX4_MAX_WQE_TXBBS)
static_assert(CXB_TX_WAKE_ROOM <= CXB_MIN_RING_SIZE);
/* A send ring's bounce buffer: one slot per ring index, for linear
 * frames of at most CXB_TX_BOUNCE_SIZE bytes (cxbell_txrx.h).
 */
#define CXB_TX_BOUNCE_SHIFT	7
#define CXB_TX_BOUNCE_SIZE	BIT(CXB_TX_BOUNCE_SHIFT)
/* TX CQEs handled per NAPI poll at most, whatever the budget. */
#define CXB_TX_CQ_BUDGET	256

/* doorbell_opt bits */
#define CXB_DB_OPT_AVOID	BIT(0)	/* let a coming completion ring it */
#define CXB_DB_OPT_PLAIN	BIT(1)	/* prod_bell by plain store */
#define CXB_DB_OPT_MASK		(CXB_DB_OPT_AVOID | CXB_DB_OPT_PLAIN)

#define CXB_DEF_TX_COPYBREAK	0

/* Period of the stall watch (cxb_tx_kick_stalled()), under the watchdog's */
#define CXB_WATCH_PERIOD	HZ

/* Doorbell avoidance bound: min(doorbell_defer_max, ring / 4) TXBBs */
#define CXB_DEF_DB_DEFER_MAX	64U
#define CXB_MAX_DB_DEFER_MAX	CXB_MAX_RING_SIZE

/* CQ moderation (ethtool -C) defaults: mlx4_en's (mlx4_en.h,
 * MLX4_EN_RX_COAL_TARGET/_TIME, MLX4_EN_TX_COAL_PKTS/_TIME); at most
 * what the CQ context's 16-bit fields hold.
 */
#define CXB_DEF_RX_FRAMES	44
#define CXB_DEF_RX_USECS	16
#define CXB_DEF_TX_FRAMES	16
#define CXB_DEF_TX_USECS	16
#define CXB_MAX_COAL		U16_MAX

/* Every receive buffer is one page (order 0 while an XDP program may run)
 * with XDP's headroom before the frame.
 */
#define CXB_RX_HEADROOM		XDP_PACKET_HEADROOM

/* Data segment mappings beyond the linear part, freed in posting order. */
struct cxb_dma_ent {
	dma_addr_t addr;
	u32 len;
};

/* One packet of a multi-packet WQE (cx5), in posting order. */
struct cxb_mpw_ent {
	struct sk_buff *skb;
	dma_addr_t addr;
	u32 len;			/* 0: inline, nothing mapped */
};

/* What completion needs to free a WQE, so it never reads the descriptor
 * back: the linear mapping is kept here, fragment mappings in the DMA FIFO,
 * the packets of a multi-packet WQE in the MPW FIFO.
 */
struct cxb_tx_info {
	struct sk_buff *skb;		/* NULL for a NOP pad or an MPWQE */
	dma_addr_t map0_addr;
	u32 map0_len;
	u32 nr_bytes;
	u8 nr_txbb;
	u8 nr_frags;
	u8 mpw_pkts;			/* cx5 MPWQE: its packets, else 0 */
};

/* A send ring's counters, by writer. ndo_start_xmit's, and those
 * counted under its xmit lock (the deferred-doorbell flush, the stall
 * watch), under xstats_sync; per-packet ones first.
 */
struct cxb_tx_xstats {
	u64 packets;
	u64 bytes;
	u64 xmit_more;
	u64 inlined;
	u64 bounced;			/* copied into the bounce buffer */
	u64 doorbells;			/* rung by xmit */
	u64 blueflame;
	u64 queue_stopped;
	u64 doorbell_on_stop;
	u64 doorbell_deferred;
	u64 mpwqe_blks;			/* cx5 */
	u64 mpwqe_pkts;
	u64 dropped;
	u64 doorbell_flushed;		/* avoidance turned off */
	u64 doorbell_kick;		/* rung by the stall watch */
	u64 nop;			/* cx3: NOP WQEs posted */
	u64 doorbell_forced;		/* avoidance at its bound */
	u64 tso_packets;		/* LSO WQEs (packets counts segments) */
	u64 tso_bytes;			/* their TCP payload bytes */
};

/* The send completion handler's, under cstats_sync */
struct cxb_tx_cstats {
	u64 cqes;
	u64 wake_queue;
	u64 doorbell_by_completion;
	u64 err_cqe;
};

/* What a send queue reports: its ring's counters (doorbells with those
 * rung for deferred packets included) and its channel's XDP send queue.
 */
struct cxb_tx_stats {
	struct cxb_tx_xstats x;
	struct cxb_tx_cstats c;
	u64 xdp_xmit;			/* ndo_xdp_xmit frames posted */
	u64 xdp_xmit_err;		/* ndo_xdp_xmit frames refused */
	u64 xdp_doorbells;
	u64 xdp_cqes;
	u64 xdp_err_cqe;		/* XDP send queue error CQEs */
};

struct cxb_rx_stats {
	u64 packets;
	u64 bytes;
	u64 dropped;			/* error CQEs included */
	u64 err_cqe;			/* error CQEs: the frame dropped */
	u64 crc_errors;			/* bad FCS: the frame dropped */
	u64 cqes;
	u64 csum_unnecessary;
	u64 csum_none;
	u64 xdp_drop;
	u64 xdp_pass;
	u64 xdp_tx;
	u64 xdp_tx_full;
	u64 xdp_redirect;
	u64 xdp_aborted;
	u64 xdp_tx_polls;		/* NAPI polls that posted XDP_TX */
	u64 alloc_fail;			/* buffers not posted: no memory */
};

struct cxb_cq {
	/* Dirtied by NAPI (and the arm sequence by the interrupt) */
	u32 ci;
	u32 arm_sn;
	/* Read-mostly */
	union {
		struct mlx4_cqe *buf;
		struct mlx5_cqe64 *buf64;	/* cqe_size 64 */
	};
	__be32 *db_rec;			/* [0] set_ci, [1] arm */
	void __iomem *db_reg;
	u32 size;			/* entries, power of two */
	u32 cqn;
	u64 irqs;			/* written only by the interrupt */
	bool armed;			/* cleared by the interrupt */
	u8 gen;				/* enum cxb_gen: the arm's layout */
	struct cxb_channel *ch;
	/* Slow path fields follow */
	dma_addr_t buf_dma;
	dma_addr_t db_dma;
	struct cxb_cq_hw hw;
	u32 cqe_size;
	bool created;
};

struct cxb_priv;

/* The open multi-packet WQE of a cx5 send queue (cxbell_tx_mlx5.c) */
struct cxb_mpw_session {
	void *seg;			/* where its next segment goes */
	u16 ds;				/* DS so far, 0: none open */
	bool csum;			/* its packets' checksum offload */
	u32 bytes;
	u32 wqe;			/* index of its WQE */
	u32 pub;			/* prod published while it is open */
	u32 fifo0;			/* mpw_prod of its first packet */
};

struct cxb_tx_ring {
	/* Dirtied by TX completion (NAPI) */
	u32 cons ____cacheline_aligned_in_smp;
	u32 dma_cons;
	u32 mpw_cons;			/* cx5: MPW FIFO consumer */
	struct u64_stats_sync cstats_sync;
	struct cxb_tx_cstats cstats;
	bool err_seen;			/* an error CQE: reset pending */
	/* A deferred doorbell an earlier poll could not ring (xmit lock
	 * taken, or netpoll): the next poll rings it even without a CQE.
	 */
	bool db_retry;
	/* Completion doorbells only under the xmit lock: BlueFlame on or
	 * cx5; raised before xmit may use BlueFlame, under RTNL.
	 */
	bool db_locked;

	/* Dirtied by ndo_start_xmit; the first line is the hot state */
	u32 prod ____cacheline_aligned_in_smp;
	u32 dma_prod;
	u32 prod_bell;			/* prod when the device last heard */
	/* cx3: prod after the last WQE that asks for a CQE, and after the
	 * last such WQE the device heard of (cxb_tx_sig_bell())
	 */
	u32 prod_sig;
	u32 sig_bell;
	u32 bf_offset;			/* BlueFlame buffer to use next */
	bool db_pending;		/* a doorbell was deferred (opt bit 0) */
	/* Copies of the netdev settings, written under RTNL */
	u8 db_opt;			/* CXB_DB_OPT_* */
	bool bf_on;
	u8 gen;				/* enum cxb_gen, read-only */
	u32 inline_max;			/* tx-copybreak, 0: never inline */
	struct u64_stats_sync xstats_sync;
	struct cxb_tx_xstats xstats;

	/* Read-mostly, set when the ring is created: one cache line */
	void *buf ____cacheline_aligned_in_smp;
	struct cxb_tx_info *tx_info;
	struct cxb_dma_ent *dma_fifo;
	u32 size;			/* TXBBs, power of two */
	u32 size_mask;
	__be32 doorbell_qpn;		/* pre-swapped send doorbell value */
	__be32 lkey;			/* pre-swapped memory key */
	void __iomem *db_reg;
	struct netdev_queue *txq;
	struct device *dma_dev;

	/* Read-mostly, for fragments, BlueFlame and the device model */
	u32 dma_mask;			/* DMA FIFO entries - 1 */
	u32 bf_size;			/* bytes of one BlueFlame buffer */
	u32 db_limit;			/* TXBBs doorbell avoidance may defer */
	void __iomem *bf_reg;		/* NULL: no BlueFlame */
	struct cxb_adev *cadev;
	/* Short linear frames: the bounce buffer (cxb_tx_bounce()) */
	void *bounce;
	dma_addr_t bounce_dma;
	u32 bounce_max;			/* 0: no bounce buffer */

	/* CXB_GEN_CX5 (cxbell_tx_mlx5.c), dirtied by ndo_start_xmit: the
	 * open multi-packet WQE session and the doorbell
	 */
	struct cxb_mpw_session mpw ____cacheline_aligned_in_smp;
	u32 mpw_prod;			/* MPW FIFO producer */
	u32 last_wqe;			/* the WQE a doorbell names */
	u32 db_offset;			/* doorbell buffer to use next */
	bool mpwqe_on;			/* copy of tx_mpwqe, under RTNL */
	/* CXB_GEN_CX5, read-mostly */
	struct cxb_mpw_ent *mpw_fifo;
	u32 mpw_mask;			/* MPW FIFO entries - 1 */
	__be32 *db_rec;			/* producer counter record */

	/* Slow path fields follow */
	struct cxb_cq *cq;
	dma_addr_t buf_dma;
	dma_addr_t db_dma;
	struct cxb_sq_hw hw;
	u32 bounce_slots;
	u32 watch_cons;			/* cons and prod the stall watch */
	u32 watch_prod;			/* saw last */
	bool created;
};

/* A posted receive buffer: a page of the ring's page_pool (which keeps
 * its DMA address).
 */
struct cxb_rx_info {
	struct page *page;
};

struct cxb_rx_ring {
	/* Dirtied by NAPI */
	u32 prod;
	u32 cons;
	struct u64_stats_sync stats_sync;
	struct cxb_rx_stats stats;

	/* Read-mostly */
	struct bpf_prog __rcu *xdp_prog;	/* swapped under RTNL */
	struct mlx4_wqe_data_seg *buf;
	struct cxb_rx_info *rx_info;
	struct page_pool *pool;
	__be32 *db_rec;			/* producer index record */
	u32 size;
	u32 size_mask;
	u32 buf_len;			/* bytes the device may write */
	u32 page_order;
	__be32 lkey;
	struct device *dma_dev;
	struct cxb_cq *cq;
	struct cxb_xdp_sq *xdpsq;	/* NULL: no XDP_TX/REDIRECT */

	/* Slow path fields follow */
	struct xdp_rxq_info xdp_rxq;
	dma_addr_t buf_dma;		/* the QP buffer, buf - 64 */
	dma_addr_t db_dma;
	struct cxb_rq_hw hw;
	bool created;
};

/* What an XDP send queue WQE carries, for its completion. */
enum cxb_xdp_type {
	CXB_XDP_TX,			/* a page of the channel's own pool */
	CXB_XDP_XMIT,			/* an xdp_frame, mapped here */
};

struct cxb_xdp_info {
	union {
		struct page *page;	/* CXB_XDP_TX */
		struct xdp_frame *xdpf;	/* CXB_XDP_XMIT */
	};
	dma_addr_t dma;			/* CXB_XDP_XMIT: to unmap */
	u32 len;
	u8 type;			/* enum cxb_xdp_type */
};

/* A channel's XDP send queue: XDP_TX of its receive ring and
 * ndo_xdp_xmit (redirects from anywhere) post here, in the port's TX
 * descriptor generation (cx3: one TXBB per frame, ctrl + one data
 * segment). Its completions are handled by the channel's NAPI.
 */
struct cxb_xdp_sq {
	/* Dirtied by completion (the channel's NAPI) */
	u32 cons ____cacheline_aligned_in_smp;
	struct u64_stats_sync cstats_sync;
	u64 cqes;
	u64 err_cqes;
	bool err_seen;			/* an error CQE: reset pending */

	/* Dirtied by posting, under @lock: the channel's NAPI (XDP_TX) and
	 * ndo_xdp_xmit on any CPU
	 */
	spinlock_t lock ____cacheline_aligned_in_smp;
	u32 prod;
	u32 prod_bell;			/* prod when the device last heard */
	u32 db_offset;			/* cx5: doorbell buffer, 0 or ALT */
	bool db_per_packet;		/* debugfs: ring for every frame */
	struct u64_stats_sync xstats_sync;
	u64 xmit;
	u64 xmit_err;
	u64 doorbells;

	/* Read-mostly, set when the queue is created */
	void *buf ____cacheline_aligned_in_smp;
	struct cxb_xdp_info *info;
	u32 size;			/* TXBBs, one per frame */
	u32 size_mask;
	__be32 doorbell_qpn;
	__be32 lkey;
	void __iomem *db_reg;
	__be32 *db_rec;			/* cx5: doorbell record */
	enum cxb_gen gen;
	enum cxb_min_inline min_inline;	/* cx5: headers inline */
	struct device *dma_dev;
	struct page_pool *pool;		/* the channel's RX pool (XDP_TX) */
	struct cxb_adev *cadev;

	/* Slow path fields follow */
	struct cxb_cq *cq;
	dma_addr_t buf_dma;
	dma_addr_t db_dma;
	struct cxb_sq_hw hw;
	bool created;
};

/* The channels ndo_xdp_xmit posts to, with their number: a reader that
 * loaded the array indexes it with the count it was built for, whatever
 * ethtool -L does meanwhile. Freed an RCU grace period after it is
 * unpublished (cxb_datapath_down()).
 */
struct cxb_xdp_chans {
	unsigned int num;
	struct cxb_channel *ch[];
};

/* One interrupt vector's worth: a TX and an RX queue, one NAPI. */
/* What a set of channels is built for (cxb_channels_alloc()) */
struct cxb_dp_cfg {
	unsigned int num_ch;
	unsigned int tx_ring_size;	/* TXBBs */
	unsigned int rx_ring_size;
	unsigned int mtu;		/* sizes the receive buffers */
	bool vlan_strip;		/* receive queues strip C-VLAN tags */
};

struct cxb_channel {
	struct cxb_dp_cfg cfg;
	struct cxb_tx_ring tx;
	struct cxb_rx_ring rx;
	struct cxb_cq tx_cq;
	struct cxb_cq rx_cq;
	struct cxb_xdp_sq xdpsq;
	struct cxb_cq xdp_cq;
	struct napi_struct napi;
	u64 polls;			/* written by NAPI only */
	struct cxb_priv *priv;
	unsigned int idx;
};

struct cxb_priv {
	struct net_device *netdev;
	struct cxb_adev *cadev;
	const struct cxb_backend_ops *ops;
	struct device *dma_dev;

	/* Datapath configuration, changed under RTNL while every TX queue
	 * is stopped (cxb_reconfigure()): xmit reads them unlocked
	 */
	struct cxb_channel **ch;	/* NULL while down */
	unsigned int num_ch;		/* entries of ch */
	unsigned int tx_ring_size;	/* TXBBs */
	unsigned int rx_ring_size;

	/* ch_lock: the channels' lifetime. While it is held, ch stays
	 * (stats readers, the stall watch, tx_timeout); it also guards the
	 * counters of channels that were torn down, which persist below.
	 */
	spinlock_t ch_lock;
	struct cxb_tx_stats tx_base;
	struct cxb_rx_stats rx_base;
	u64 polls_base;
	u64 irqs_base;
	u64 tx_timeouts;
	u64 tx_recovers;		/* datapath resets after a TX fault */

	/* TX doorbell policy, changed under RTNL, copied into the rings */
	u32 db_opt;
	u32 tx_copybreak;
	u32 db_defer_max;
	bool bf_on;
	bool mpwqe_on;			/* tx_mpwqe, cx5 only */

	/* CQ moderation (ethtool -C), changed under RTNL */
	u16 rx_frames;
	u16 rx_usecs;
	u16 tx_frames;			/* also the XDP send CQs */
	u16 tx_usecs;

	/* XDP, changed under RTNL */
	struct bpf_prog *xdp_prog;	/* holds the reference */
	bool has_xdpsq;			/* XDP send queues: XDP_TX, redirect */
	bool xdp_db_per_packet;		/* debugfs switch */
	/* Channels for ndo_xdp_xmit (any CPU, RCU): NULL while down */
	struct cxb_xdp_chans __rcu *xdp_chans;
	struct dentry *ddir;

	/* Packets the stack sent on a TX queue of no channel (index at or
	 * above num_ch: pktgen keeps a queue mapping across ethtool -L),
	 * dropped: a port counter, folded into tx_dropped. Written only
	 * then, on its own line.
	 */
	atomic64_t tx_dropped_no_ring ____cacheline_aligned_in_smp;
	/* GSO skbs cxb_features_check() left to software GSO: the device
	 * cannot segment them (tunnel, headers or WQE too long)
	 */
	atomic64_t tso_fallback;

	/* Receive filter (ndo_set_rx_mode, ndo_set_mac_address): built
	 * and programmed under RTNL; rx_filter says the backend has one.
	 */
	bool rx_filter;
	bool uc_overflow;		/* unicast list > max_uc: promiscuous */
	bool mc_overflow;		/* multicast list > max_mc: allmulti */
	u8 (*filter_addr)[ETH_ALEN];	/* max_uc, then max_mc entries */
	u64 uc_filter_overflow;		/* times uc_overflow was entered */
	u64 mc_filter_overflow;
	struct work_struct rx_mode_work;

	/* Receive side scaling (ethtool -x/-X), under RTNL: programmed
	 * through the backend's set_rss while the port is open; has_rss
	 * says the backend has it.
	 */
	bool has_rss;
	struct cxb_rss rss;

	/* NETIF_F_HW_VLAN_CTAG_RX as the receive queues of the datapath
	 * are created with (struct cxb_dp_cfg), under RTNL: it changes
	 * before dev->features does (ndo_set_features)
	 */
	bool vlan_strip;

	struct work_struct link_work;
	struct work_struct reset_work;	/* recover from a TX fault */
	struct delayed_work watch_work;	/* stalled send queues */
	bool port_open;
	/* A reset is for the datapath it was asked for: dp_gen counts the
	 * teardowns (RTNL), reset_gen is dp_gen when the reset was asked.
	 */
	u32 dp_gen;
	u32 reset_gen;
};

/* cxbell_txrx.c */
netdev_tx_t cxb_tx_drop_no_ring(struct cxb_priv *priv, struct sk_buff *skb);
int cxb_napi_poll_finish(struct cxb_channel *ch, int budget, bool tx_done,
			 enum cxb_gen gen);
void cxb_comp_event(void *ctx);
void cxb_cq_arm(struct cxb_cq *cq);
void cxb_channel_arm(struct cxb_channel *ch);
void cxb_tx_ring_init(struct cxb_tx_ring *ring);
void cxb_tx_ring_drain(struct cxb_tx_ring *ring);
void cxb_tx_flush_completions(struct cxb_channel *ch);
void cxb_tx_flush_deferred(struct cxb_tx_ring *ring);
bool cxb_tx_kick_stalled(struct cxb_tx_ring *ring);
void cxb_tx_err_cqe(struct cxb_channel *ch, u16 wqe_index, u8 syndrome,
		    u8 vendor_syndrome, bool in_napi);
void cxb_tx_bad_cqe(struct cxb_channel *ch, u16 wqe_index, u32 cons,
		    u32 prod, bool in_napi);
int cxb_rx_ring_fill(struct cxb_rx_ring *ring, gfp_t gfp);
void cxb_rx_ring_drain(struct cxb_rx_ring *ring);
bool cxb_tx_retry_doorbell(struct cxb_tx_ring *ring, int budget);

/* tx_mpwqe can be on: the port executes multi-packet WQEs and asks for no
 * inline headers, which their packets do not carry (mlx5e:
 * mlx5e_tx_skb_supports_mpwqe() takes no packet with inline headers)
 */
static inline bool cxb_mpwqe_usable(const struct cxb_adev *cadev)
{
	return cadev->gen == CXB_GEN_CX5 && cadev->mpwqe &&
	       cadev->min_inline == CXB_MIN_INLINE_NONE;
}

/* TXBBs (cx3) or WQEBBs (cx5) free between @prod and @cons. */
static inline u32 cxb_tx_room(const struct cxb_tx_ring *ring, u32 prod,
			      u32 cons)
{
	return ring->size - (prod - cons);
}

/* Point @cqe at the mlx4 CQE at consumer index @ci; true if software owns
 * it. (A bool, not a NULL return: the kernel is built with
 * -fno-delete-null-pointer-checks, so a NULL test would stay in the loop.)
 */
/* A send CQE's @idx (the 16-bit counter of the completed WQE's first
 * TXBB/WQEBB) names a WQE from @cons up to the one at prod: xmit publishes
 * prod after a WQE's owner bit, so the device may complete that one WQE
 * before prod says it exists. *@prod caches prod for one completion walk
 * (start it at @cons): it is loaded only when @idx lies past it.
 */
static __always_inline bool cxb_cqe_outstanding(const u32 *prod_ptr,
						u32 *prod, u32 cons, u16 idx)
{
	if (likely((u16)(idx - (u16)cons) <= (u16)(*prod - cons)))
		return true;
	/* pairs with xmit's release of prod (after the owner bit) */
	*prod = smp_load_acquire(prod_ptr);
	return (u16)(idx - (u16)cons) <= (u16)(*prod - cons);
}

static __always_inline bool cxb_mlx4_cq_next(struct cxb_cq *cq, u32 ci,
					     struct mlx4_cqe **cqe)
{
	*cqe = &cq->buf[ci & (cq->size - 1)];
	if (!cxb_mlx4_cqe_sw_owned(*cqe, ci, cq->size))
		return false;
	/* Read the CQE only after its owner bit said it is ours. */
	dma_rmb();
	return true;
}

static __always_inline bool cxb_mlx5_cq_next(struct cxb_cq *cq, u32 ci,
					     struct mlx5_cqe64 **cqe)
{
	*cqe = &cq->buf64[ci & (cq->size - 1)];
	if (!cxb_mlx5_cqe_sw_owned(*cqe, ci, cq->size))
		return false;
	/* Read the CQE only after its owner bit said it is ours. */
	dma_rmb();
	return true;
}

/* Consumed up to @ci: tell the device through the consumer index record. */
static __always_inline void cxb_mlx4_cq_set_ci(struct cxb_cq *cq, u32 ci)
{
	cq->ci = ci;
	*cq->db_rec = cpu_to_be32(ci & CXB_MLX4_CI_MASK);
}

/* Ring an mlx4 send doorbell once the WQEs are in memory. @qpn is already
 * in the device's byte order (big endian) and goes out unswapped.
 */
static __always_inline void cxb_mlx4_send_doorbell(void __iomem *reg,
						   __be32 qpn)
{
	/* WQEs and their owner bits must reach memory before the doorbell. */
	wmb();
	/* already swapped: a raw store keeps the bytes as they are */
	__raw_writel((__force u32)qpn, reg);
}

/* dma_map_single() to the device of @len bytes at @va, known to be in
 * the kernel's linear map (an skb head, an xdp_frame's page), without its
 * is_vmalloc_addr() test (mlx5e maps skb heads the same way).
 */
static __always_inline dma_addr_t cxb_dma_map_linear(struct device *dev,
						     const void *va, u32 len)
{
	return dma_map_page_attrs(dev, virt_to_page(va), offset_in_page(va),
				  len, DMA_TO_DEVICE, 0);
}

/* Clear the stop bit of @txq: true if this call cleared it. Of xmit's
 * undo (cxb_tx_stop_recheck()) and completion's wake, which may both see
 * the queue stopped and room enough at the same time, exactly one clears
 * the bit set by a stop and counts it, so tx_queue_stopped and
 * tx_wake_queue stay exact.
 */
static __always_inline bool cxb_tx_clear_stop(struct netdev_queue *txq)
{
	return test_and_clear_bit(__QUEUE_STATE_DRV_XOFF, &txq->state);
}

/* Either xmit stopped the queue: completion may have freed the ring
 * between the room check and the stop, and seen the queue still running.
 * Look again once the stop is visible, or the queue stays stopped.
 */
static __always_inline void cxb_tx_stop_recheck(struct cxb_tx_ring *ring)
{
	/* The stop before cons: pairs with the completion side's smp_mb() */
	smp_mb();
	if (cxb_tx_room(ring, ring->prod, READ_ONCE(ring->cons)) >=
	    CXB_TX_WAKE_ROOM && cxb_tx_clear_stop(ring->txq)) {
		/* Undone at once (xmit goes on): not counted as a stop. A
		 * completion that woke the queue first counted the wake, and
		 * the stop stays counted.
		 */
		u64_stats_update_begin(&ring->xstats_sync);
		ring->xstats.queue_stopped--;
		u64_stats_update_end(&ring->xstats_sync);
	}
}

/* cxbell_tx_mlx4.c */
netdev_tx_t cxb_mlx4_start_xmit(struct sk_buff *skb, struct net_device *dev);
void cxb_mlx4_tx_sign_tail(struct cxb_tx_ring *ring);
int cxb_mlx4_napi_poll(struct napi_struct *napi, int budget);
bool cxb_mlx4_tx_complete(struct cxb_channel *ch, int budget, bool in_napi);
void cxb_mlx4_tx_ring_drain(struct cxb_tx_ring *ring);

/* cxbell_tx_mlx5.c */
netdev_tx_t cxb_mlx5_start_xmit(struct sk_buff *skb, struct net_device *dev);
netdev_tx_t cxb_mlx5_start_xmit_l2(struct sk_buff *skb,
				   struct net_device *dev);
int cxb_mlx5_napi_poll(struct napi_struct *napi, int budget);
bool cxb_mlx5_tx_complete(struct cxb_channel *ch, int budget, bool in_napi);
void cxb_mlx5_tx_ring_init(struct cxb_tx_ring *ring);
void cxb_mlx5_tx_ring_drain(struct cxb_tx_ring *ring);
int cxb_mlx5_tx_alloc(struct cxb_priv *priv, struct cxb_tx_ring *ring);
void cxb_mlx5_tx_free(struct cxb_priv *priv, struct cxb_tx_ring *ring);

/* cxbell_netdev.c */
int cxb_netdev_create(struct cxb_adev *cadev);
void cxb_netdev_destroy(struct cxb_adev *cadev);
int cxb_reconfigure(struct cxb_priv *priv, unsigned int num_ch,
		    unsigned int tx_size, unsigned int rx_size,
		    struct netlink_ext_ack *extack);
void cxb_get_tx_stats(const struct cxb_tx_ring *ring, struct cxb_tx_stats *s);
void cxb_get_rx_stats(const struct cxb_rx_ring *ring, struct cxb_rx_stats *s);
void cxb_apply_tx_policy(struct cxb_priv *priv);
int cxb_apply_coalesce(struct cxb_priv *priv);
void cxb_schedule_reset(struct cxb_priv *priv);
void cxb_port_stats(struct cxb_priv *priv, struct cxb_port_stats *ps);
u64 cxb_port_tx_dropped(struct cxb_priv *priv);

/* cxbell_netdev.c, shared with cxbell_xdp.c */
int cxb_cq_alloc(struct cxb_priv *priv, struct cxb_channel *ch,
		 struct cxb_cq *cq, u32 entries, u32 cqe_size);
int cxb_cq_activate(struct cxb_priv *priv, struct cxb_cq *cq);
void cxb_cq_destroy(struct cxb_priv *priv, struct cxb_cq *cq);

/* cxbell_xdp.c */
#define CXB_XDP_MAX_MTU	(PAGE_SIZE - CXB_RX_HEADROOM - ETH_HLEN - VLAN_HLEN - \
			 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))
struct cxb_xdp_poll {
	u32 drop;
	u32 pass;
	u32 tx;
	u32 tx_full;
	u32 redirect;
	u32 aborted;
	u32 consumed;			/* all but pass */
	bool tx_posted;			/* ring the XDP SQ at poll end */
	bool redirected;		/* xdp_do_flush() at poll end */
};

bool cxb_xdp_rx(struct cxb_channel *ch, struct bpf_prog *prog,
		struct xdp_buff *xdp, struct page *page, u32 *off, u32 *len,
		struct cxb_xdp_poll *st);
void cxb_xdp_poll_end(struct cxb_channel *ch, struct cxb_xdp_poll *st);
bool cxb_xdp_complete(struct cxb_channel *ch, int budget, bool in_napi);
int cxb_xdpsq_alloc(struct cxb_priv *priv, struct cxb_channel *ch);
int cxb_xdpsq_activate(struct cxb_priv *priv, struct cxb_channel *ch);
void cxb_xdpsq_hw_destroy(struct cxb_priv *priv, struct cxb_channel *ch);
void cxb_xdpsq_destroy(struct cxb_priv *priv, struct cxb_channel *ch);
void cxb_get_xdpsq_stats(const struct cxb_xdp_sq *sq, struct cxb_tx_stats *s);
int cxb_bpf(struct net_device *dev, struct netdev_bpf *bpf);
int cxb_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames,
		 u32 flags);
int cxb_xdp_check_mtu(struct cxb_priv *priv, unsigned int mtu,
		      struct netlink_ext_ack *extack);
void cxb_debugfs_init(void);
void cxb_debugfs_exit(void);
void cxb_debugfs_add(struct cxb_priv *priv);
void cxb_debugfs_del(struct cxb_priv *priv);

/* cxbell_netdev.c: receive side scaling */
void cxb_rss_default_table(struct cxb_priv *priv, unsigned int num_ch);
int cxb_rss_check_table(struct cxb_priv *priv, const u32 *table,
			unsigned int num_ch, const char **why);
int cxb_rss_apply(struct cxb_priv *priv);

/* cxbell_sysfs.c */
extern const struct attribute_group cxb_sysfs_group;

/* cxbell_ethtool.c */
extern const struct ethtool_ops cxb_ethtool_ops;

#endif /* _CXBELL_H */
