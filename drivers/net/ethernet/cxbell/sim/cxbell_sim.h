/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxbell_sim: a software ConnectX-3 (mlx4 descriptors), whose adapters of
 * generation cx5 have ConnectX-4+ send queues (mlx5 descriptors).
 *
 * The model sees only what a device sees: writes to the register pages it
 * handed out (reported by the core through ops->mmio_notify) and host
 * memory reached through DMA addresses, checked against the live mappings
 * its own dma_map_ops (the "IOMMU") created.
 *
 * Files:
 *   cxbell_sim_bus.c      bus, adapters, ports (auxiliary devices), module
 *   cxbell_sim_dma.c      dma_map_ops, device-side DMA accessors, PCIe model
 *   cxbell_sim_queue.c    backend ops: ports, queues, register decoding
 *   cxbell_sim_tx.c       send engine: mlx4 WQE fetch and execute,
 *                         inline and deferred runs
 *   cxbell_sim_lso.c      LSO WQEs: the packet cut into TCP segments
 *   cxbell_sim_bf.c       BlueFlame writes: carried WQEs, their FIFO
 *   cxbell_sim_pause.c    802.3x pause: the wire, held frames, resume
 *   cxbell_sim_stranded.c stranded-WQE detector
 *   cxbell_sim_cq.c       CQE writer, arming, interrupts
 *   cxbell_sim_rx.c       receive side: RSS, RX buffers, RX CQEs
 *   cxbell_sim_pkt.c      header parsing, checksums, RSS hash
 *   cxbell_sim_debugfs.c  counters and debugfs
 *   cxbell_sim_mlx5.c     cx5 adapters: mlx5 send queues, CQ arms (see there)
 *
 * Registers, BlueFlame, WQE formats, PCIe model, pause: Documentation/sim.rst.
 *
 * Locks: the sender's SQ lock, then the receiver's RQ lock, never the other
 * way; resume triggers of the receiver hold none of its locks.
 */
#ifndef _CXBELL_SIM_H
#define _CXBELL_SIM_H

#include <linux/atomic.h>
#include <linux/dma-direction.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <cxbell/backend.h>
#include <cxbell/compat.h>
#include "wqe/mlx4.h"
#include "wqe/mlx5.h"

#define CXB_SIM_MAX_PORTS	2
#define CXB_SIM_MAX_CHANNELS	8
#define CXB_SIM_MAX_MTU		9000
#define CXB_SIM_DEF_MTU		1500
#define CXB_SIM_DEF_SPEED	56000	/* Mb/s: a ConnectX-3 Pro 40/56GbE port */
#define CXB_SIM_MAX_ID		0xffff	/* adapter ID: MAC bytes 2-3 */
#define CXB_SIM_LKEY		0x00cb0d01U
/* Receive filter: a ConnectX-3 port's MAC table holds 128 addresses
 * (MLX4_MAX_MAC_NUM, mlx4/port.c); the model's multicast table as many
 * groups (hardware holds thousands of multicast groups).
 */
#define CXB_SIM_MAX_UC		128
#define CXB_SIM_MAX_MC		128

/* Register pages */
#define CXB_SIM_UAR_PER_CH	4
#define CXB_SIM_NR_UARS		(CXB_SIM_MAX_CHANNELS * CXB_SIM_UAR_PER_CH)
#define CXB_SIM_REGS_SIZE	(CXB_SIM_NR_UARS * 2 * PAGE_SIZE)
#define CXB_SIM_BF_OFFSET	0x800
#define CXB_SIM_BF_SIZE		CXB_MLX4_MAX_BF
#define CXB_SIM_BF_PENDING	16	/* carried WQEs kept per send queue */

/* IOVA = slot << CXB_SIM_MAP_SHIFT | offset; a mapping spans one slot. */
#define CXB_SIM_MAP_SHIFT	20
#define CXB_SIM_MAP_MAX		BIT(CXB_SIM_MAP_SHIFT)
#define CXB_SIM_IOVA_BITS	48
#define CXB_SIM_SLOT_MAX	((1U << (CXB_SIM_IOVA_BITS - CXB_SIM_MAP_SHIFT)) - 1)

/* Queue numbers and sizes */
#define CXB_SIM_QPN_BASE	0x40
#define CXB_SIM_CQN_BASE	0x80
#define CXB_SIM_QN_MAX		0xffffff
#define CXB_SIM_SQ_LOG_MIN	3	/* room for a maximal WQE */
#define CXB_SIM_SQ_LOG_MAX	14	/* 1 MiB of TXBBs */
#define CXB_SIM_RQ_LOG_MAX	15	/* 16-bit producer counter */
#define CXB_SIM_CQ_LOG_MAX	15	/* 1 MiB of CQEs */

/* Frame buffer: largest gathered frame, and the head room that aligns IP */
#define CXB_SIM_FRAME_MAX	(SZ_64K + 256)
#define CXB_SIM_FRAME_PAD	2
/* Largest packet an LSO WQE carries (cxb_adev.max_gso_size) */
#define CXB_SIM_LSO_MAX		SZ_64K
static_assert(CXB_SIM_LSO_MAX <= CXB_SIM_FRAME_MAX);

/* PCIe model */
#define CXB_SIM_TLP_PAYLOAD	256
#define CXB_SIM_TLP_OVERHEAD	24

/* Engine */
#define CXB_SIM_DEFER_BUDGET	64	/* WQEs per lock hold in deferred mode */
#define CXB_SIM_STRANDED_PERIOD_MS 50
#define CXB_SIM_STRANDED_IDLE_MS 100
#define CXB_SIM_STRANDED_CONFIRM_MS 100	/* still unannounced after */
#define CXB_SIM_STRANDED_SETTLE_MS 20	/* and after every vCPU ran */
#define CXB_SIM_STRANDED_HOST_MS 2000	/* confirm, its CQ's handler due */
#define CXB_SIM_PASS_IRQS	8
/* A moderation period lasts at most this many times its length on the
 * guest's clock (the model may run on several CPUs at once, and its
 * time summed may outrun the guest's clock)
 */
#define CXB_SIM_CLOCK_STRETCH	8
#define CXB_SIM_PAUSE_RETRY_US	1000	/* stopped engine: try again */
#define CXB_SIM_MAX_DELAY_US	(10 * USEC_PER_SEC)	/* engine_delay_us */
#define CXB_SIM_MAX_DESTROY_MS	(10 * MSEC_PER_SEC)	/* destroy_delay_ms */

enum cxb_sim_engine_mode {
	CXB_SIM_ENGINE_INLINE,
	CXB_SIM_ENGINE_DEFERRED,
};

/* Per-port counters; names in cxbell_sim_debugfs.c */
enum cxb_sim_cnt {
	CXB_SIM_C_DOORBELLS,
	CXB_SIM_C_BF_WRITES,		/* BlueFlame writes (not doorbells) */
	CXB_SIM_C_BF_INELIGIBLE,	/* too large, past ring end, mid-burst */
	CXB_SIM_C_BF_MISMATCH,		/* carried copy != ring memory */
	CXB_SIM_C_BF_LAYOUT_BY_DB,	/* BF-layout WQE read from memory */
	CXB_SIM_C_WQES_FETCHED,		/* announced, BlueFlame copies too */
	CXB_SIM_C_NOP_WQES,		/* cx3 NOP WQEs executed */
	CXB_SIM_C_NOP_NO_NEC,		/* of them without the NEC bit */
	CXB_SIM_C_INLINE_WQES,		/* SENDs with inline data executed */
	CXB_SIM_C_CQES_WRITTEN,
	CXB_SIM_C_IRQS,
	CXB_SIM_C_VIOLATIONS,
	CXB_SIM_C_STRANDED,
	CXB_SIM_C_TX_FRAMES,
	CXB_SIM_C_TX_BYTES,
	CXB_SIM_C_RX_FRAMES,
	CXB_SIM_C_RX_BYTES,
	CXB_SIM_C_RX_DROPPED,
	CXB_SIM_C_TX_DISCARDED,
	CXB_SIM_C_TX_UNREPORTED,	/* sent, no CQE after them, SQ gone */
	CXB_SIM_C_TX_PAUSED,		/* engine stops: the peer pushed back */
	CXB_SIM_C_RX_PAUSE,		/* pushbacks: no RX WQE, pause on */
	CXB_SIM_C_PCIE_MMIO,
	CXB_SIM_C_PCIE_DESC_READ,
	CXB_SIM_C_PCIE_DATA_READ,
	CXB_SIM_C_PCIE_CQE_WRITE,
	CXB_SIM_C_PCIE_DATA_WRITE,
	CXB_SIM_C_PCIE_DB_READ,
	CXB_SIM_C_PCIE_TLP_OVERHEAD,
	CXB_SIM_C_ENGINE_NS,
	/* injected faults (debugfs fault/), each counted when it happens */
	CXB_SIM_C_ERR_CQES,		/* error CQEs written */
	CXB_SIM_C_CQES_LOST,		/* send CQEs not written */
	CXB_SIM_C_IRQS_LOST,		/* interrupts not raised */
	CXB_SIM_C_DOORBELLS_LOST,	/* doorbells / BF writes ignored */
	CXB_SIM_C_RX_NO_BUF,		/* frames that found no RX WQE */
	CXB_SIM_C_RX_ERR_CQES,		/* receive error CQEs written */
	CXB_SIM_C_RX_BAD_FCS,		/* frames completed with a bad FCS */
	CXB_SIM_C_MPW_WQES,		/* cx5: multi-packet WQEs executed */
	CXB_SIM_C_MPW_PKTS,		/* cx5: packets they carried */
	CXB_SIM_C_ARMS_STALE,		/* CQ arms ignored: wrong sequence number */
	CXB_SIM_C_IRQS_TIMER,		/* interrupts the moderation period raised */
	CXB_SIM_C_IRQS_ARM,		/* interrupts raised by an arm: CQEs waiting */
	CXB_SIM_C_MODER_TIMER,		/* moderation hrtimer expiries (guest irqs) */
	CXB_SIM_C_RX_FILTERED,		/* frames the receive filter refused */
	CXB_SIM_C_TX_VLAN_INSERTED,	/* frames sent with a tag inserted */
	CXB_SIM_C_RX_VLAN_STRIPPED,	/* frames received with the tag stripped */
	CXB_SIM_C_TX_LSO_WQES,		/* LSO WQEs executed */
	CXB_SIM_C_TX_LSO_SEGMENTS,	/* TCP segments they were cut into */
	CXB_SIM_NR_CNT
};

/* PCIe traffic class of a DMA access; NONE: model-internal, not counted */
enum cxb_sim_pcie {
	CXB_SIM_PCIE_NONE,
	CXB_SIM_PCIE_DESC,	/* WQE reads */
	CXB_SIM_PCIE_DATA_RD,	/* TX frame data */
	CXB_SIM_PCIE_DB,	/* doorbell record reads */
	CXB_SIM_PCIE_CQE,	/* CQE writes */
	CXB_SIM_PCIE_DATA_WR,	/* RX frame data */
};

/* Fault injection knobs of a port (debugfs port<P>/fault/). The "next N"
 * knobs count down as faults are injected; 0 is off.
 */
struct cxb_sim_fault {
	atomic_t err_cqe;	/* next N send completions: error CQEs */
	atomic_t err_cqe_every;	/* every Nth send completion: error CQE */
	atomic_t err_cqe_seq;	/* send completions seen for err_cqe_every */
	atomic_t err_syndrome;	/* syndrome of injected error CQEs */
	atomic_t lose_cqe;	/* next N send CQEs silently not written */
	atomic_t lose_irq;	/* next N interrupts not raised */
	atomic_t lose_doorbell;	/* next N send doorbells/BF writes ignored */
	atomic_t rx_no_buf;	/* next N frames find no receive WQE */
	atomic_t rx_err_cqe;	/* next N receive completions: error CQEs */
	atomic_t rx_bad_fcs;	/* next N received frames: bad FCS */
};

/* Consume one "next N" fault: true if it fires. */
static inline bool cxb_sim_fault_hit(atomic_t *n)
{
	return atomic_read(n) > 0 && atomic_dec_if_positive(n) >= 0;
}

struct cxb_sim_stats {
	u64 v[CXB_SIM_NR_CNT];
};

struct cxb_sim_port;
struct cxb_sim_adapter;

/* What the parser found in a frame (cxbell_sim_pkt.c) */
struct cxb_sim_pkt {
	unsigned int l3_off;
	unsigned int l4_off;
	unsigned int l4_len;
	u16 l3;			/* ETH_P_IP, ETH_P_IPV6 or 0 */
	u8 l4;			/* IPPROTO_TCP, IPPROTO_UDP or 0 */
	bool frag;		/* IPv4 fragment */
	bool ipopt;		/* IPv4 options present */
};

/* One live DMA mapping, in the adapter's maps xarray at its slot. */
struct cxb_sim_map {
	spinlock_t lock;	/* device access vs. unmap */
	bool live;
	bool coherent;
	enum dma_data_direction dir;
	dma_addr_t iova;
	size_t len;
	void *vaddr;
	struct rcu_head rcu;
};

struct cxb_sim_cq {
	spinlock_t lock;	/* prod, ci, armed, dead; held across comp */
	struct cxb_sim_port *port;
	struct cxb_sim_uar *uar;
	u32 cqn;
	u32 size;
	unsigned int cqe_size;	/* 32: mlx4 CQEs, 64: mlx5 */
	dma_addr_t buf_dma;
	dma_addr_t db_dma;
	u32 prod;		/* free-running CQE producer */
	u32 ci;			/* last consumer index seen (24 bits) */
	u32 arm_sn;		/* sequence number the next arm must carry */
	bool armed;
	bool dead;
	/* moderation: the event once moder_cnt CQEs are pending since the
	 * last one, or moder_usecs after the last one (moder_timer)
	 */
	u16 moder_cnt;
	u16 moder_usecs;
	u32 pending;		/* CQEs written since the last event */
	struct hrtimer moder_timer;
	/* the period runs on the device clock (cxbell_sim_cq.c): its start,
	 * the last event, on the guest's clock and on the device's
	 */
	u64 moder_guest0;
	u64 moder_dev0;
	cxb_comp_fn comp;
	void *comp_ctx;
	struct kref ref;	/* creator + each SQ/RQ reporting to it */
	struct rcu_head rcu;
};

/* The LSO WQE whose segments are going out (cxbell_sim_lso.c) */
struct cxb_sim_lso {
	u8 *buf;		/* its packet, from CXB_SIM_FRAME_PAD */
	unsigned int len;	/* of the packet; 0: no LSO WQE running */
	unsigned int off;	/* next payload byte to send */
	unsigned int hdr;	/* header bytes (a tag inserted included) */
	unsigned int mss;
	unsigned int seg;	/* segments sent so far */
	u32 idx;		/* the WQE's ring index */
	u32 seq;		/* the header's TCP sequence number */
	u16 ip_id;		/* its IPv4 ID */
	u8 tcp_flags;		/* its TCP flags */
	bool vlan;		/* a tag inserted */
	bool ip_cs;		/* the WQE asks for IP header checksums */
	bool l4_cs;		/* and TCP checksums */
	bool cqe;		/* cx3: for a CQE after the last segment */
	struct cxb_sim_pkt pk;	/* the header, parsed */
};

/* The WQE being executed: control segment and DS - 1 segments */
union cxb_sim_wqe {
	struct mlx4_wqe_ctrl_seg ctrl;
	struct mlx4_wqe_data_seg seg[CXB_MLX4_MAX_DS];	/* seg[0]: ctrl */
	u8 b[CXB_MLX4_MAX_DS * CXB_MLX4_DS_SIZE];
};

/* A WQE carried by a BlueFlame write, kept until executed. */
struct cxb_sim_bf {
	u32 idx;		/* free-running TXBB index */
	unsigned int len;	/* DS * 16 */
	union {
		struct mlx4_wqe_ctrl_seg ctrl;
		struct mlx4_wqe_data_seg seg[CXB_SIM_BF_SIZE /
					     CXB_MLX4_DS_SIZE];
		u8 b[CXB_SIM_BF_SIZE];
	};
};

struct cxb_sim_sq {
	spinlock_t lock;	/* the TX engine of this queue; IRQ-safe */
	struct cxb_sim_port *port;
	struct cxb_sim_cq *cq;
	struct cxb_sim_uar *uar;
	u32 qpn;
	u32 size;		/* TXBBs */
	enum cxb_gen gen;
	dma_addr_t buf_dma;
	dma_addr_t db_dma;	/* cx5: doorbell record */
	u32 announced;		/* TXBB index the device may execute up to */
	u32 done;		/* next TXBB to execute */
	bool dead;
	bool error;		/* error CQE written: executes nothing more */
	/* The last WQE executed asks for no CQE: with nothing after it the
	 * driver never learns that the WQEs since the last CQE completed.
	 */
	bool tail_unsig;
	bool stranded_seen;
	bool stranded_ready;	/* to count if still so after the barrier */
	u32 stranded_idx;
	bool stranded_cand;	/* seen at stranded_cand_idx since */
	u32 stranded_cand_idx;
	unsigned long stranded_cand_since;	/* jiffies */
	unsigned long last_active;	/* jiffies of last doorbell/progress */
	struct work_struct work;	/* deferred engine */
	/* Link-level pause: the frame of WQE @held_idx (executed, @done
	 * past it) waits in @frame for a receive WQE at the peer.
	 */
	bool paused;
	/* frames on the wire since the last CQE this queue wrote */
	unsigned int unreported;
	bool held_cqe;		/* its WQE asked for a completion */
	u32 held_idx;
	unsigned int held_len;	/* gathered bytes (CQE byte_cnt) */
	unsigned int held_wire;	/* on the wire, padded */
	struct cxb_sim_pkt held_pk;
	u8 *frame;		/* CXB_SIM_FRAME_PAD + CXB_SIM_FRAME_MAX */
	/* cx5: the WQE in @wqe whose frame is held; for a multi-packet
	 * WQE its packets from @mpw_off on follow once the frame left.
	 */
	unsigned int mpw_off;	/* next packet segment, 0: none left */
	unsigned int mpw_end;	/* DS * 16 */
	unsigned int mpw_len;	/* bytes sent so far (CQE byte_cnt) */
	struct cxb_sim_lso lso;
	union cxb_sim_wqe wqe;
	/* BlueFlame copies not executed yet, in index order */
	struct cxb_sim_bf *bf;	/* CXB_SIM_BF_PENDING */
	unsigned int bf_head;	/* free-running: next to execute */
	unsigned int bf_tail;	/* free-running: next free */
	struct rcu_head rcu;
};

struct cxb_sim_rq {
	spinlock_t lock;	/* RX delivery into this queue */
	struct cxb_sim_port *port;
	struct cxb_sim_cq *cq;
	unsigned int channel;
	u32 qpn;
	u32 size;
	dma_addr_t buf_dma;
	dma_addr_t db_dma;
	u16 cons;		/* next WQE to fill */
	u16 prod;		/* producer last read from the doorbell record */
	bool vlan_strip;	/* C-VLAN tags go into the CQE */
	bool dead;
	struct rcu_head rcu;
};

/* One UAR page (and its BlueFlame page): owners of its registers. */
struct cxb_sim_uar {
	struct cxb_sim_sq __rcu *sq;
	struct cxb_sim_cq __rcu *cq;
};

/* A port's receive filter (backend op set_rx_filter), replaced whole
 * under the adapter lock, read by the receive path under RCU.
 */
struct cxb_sim_filter {
	bool promisc;
	bool allmulti;
	unsigned int n_uc;
	unsigned int n_mc;
	struct rcu_head rcu;
	u8 addr[][ETH_ALEN];	/* n_uc unicast, then n_mc multicast */
};

/* A port's receive side scaling (backend op set_rss), replaced whole
 * under the adapter lock, read by the receive path under RCU.
 */
struct cxb_sim_rss {
	struct cxb_rss r;
	struct rcu_head rcu;
};

struct cxb_sim_cnt_file {
	struct cxb_sim_port *port;
	unsigned int idx;
};

struct cxb_sim_port {
	struct cxb_adev cadev;
	struct cxb_sim_adapter *ad;
	unsigned int index;
	void *regs;		/* UAR + BF pages, handed out as __iomem */
	struct cxb_sim_uar uar[CXB_SIM_NR_UARS];
	struct cxb_sim_rq __rcu *rqs[CXB_SIM_MAX_CHANNELS];
	unsigned int nr_rqs;
	unsigned int mtu;
	bool enabled;
	bool link;
	bool pause;		/* 802.3x: push back instead of dropping */
	/* Link settings (cxbell_sim_link.c), under ad->lock: the module's
	 * fastest speed in Mb/s (debugfs speed), the supported (cap) and
	 * advertised (adv) modes, autonegotiation, the forced speed; the
	 * outcome: the link's speed (0: none), the partner's advertised
	 * modes (0: it does not negotiate)
	 */
	u32 speed;
	u32 cap;
	u32 adv;
	bool an;
	u32 force_speed;
	u32 link_speed;
	u32 lp_adv;
	/* what the port receives; NULL (closed, or nothing programmed
	 * yet): broadcast only
	 */
	struct cxb_sim_filter __rcu *filter;
	/* how it spreads frames; NULL (closed, or nothing programmed
	 * yet): every frame to channel 0, hash 0
	 */
	struct cxb_sim_rss __rcu *rss;
	atomic64_t port_rx_dropped;	/* rx_dropped, never reset */
	atomic64_t port_rx_crc_errors;	/* cx5: bad FCS dropped, likewise */
	atomic_t paused_sqs;	/* own SQs whose engine is paused */
	atomic_t resume_rr;	/* rotates the order queues resume in */
	struct hrtimer pause_timer;	/* retry while an engine is paused */
	cxb_link_fn link_cb;
	void *link_ctx;
	struct cxb_sim_fault fault;
	struct cxb_sim_stats __percpu *stats;
	struct dentry *ddir;
	struct cxb_sim_cnt_file cnt_files[CXB_SIM_NR_CNT];
};

struct cxb_sim_adapter {
	struct device dev;
	struct list_head list;
	u32 id;
	unsigned int nports;
	enum cxb_gen gen;	/* of every port */
	enum cxb_min_inline min_inline;	/* cx5: headers inline, as cx4 */
	bool mpwqe;		/* cx5: multi-packet WQEs (not cx4) */
	struct cxb_sim_port *ports[CXB_SIM_MAX_PORTS];
	u64 dma_mask;
	struct xarray maps;	/* slot -> struct cxb_sim_map */
	u32 next_slot;
	atomic_long_t dma_live;
	/* Time spent in the streaming map/unmap ops, and their calls: the
	 * platform's (IOMMU model's) cost, for benchmarks to subtract.
	 */
	atomic64_t dma_ns;
	atomic64_t dma_calls;
	/* IOMMU passthrough: IOVA = physical address, no per-mapping record
	 * (what a host without an IOMMU pays); only with no live mapping
	 * may it change.
	 */
	bool iommu_pt;
	/* Fault injection (debugfs fault/): the next N streaming maps fail;
	 * the Nth map from now of a buffer the device only reads fails; the
	 * deferred engine waits engine_delay_us before each pass; destroying
	 * a send queue takes destroy_delay_ms longer (a firmware command that
	 * is slow to return, after the queue is gone).
	 */
	atomic_t dma_map_fail;
	atomic_t dma_map_fail_nth;
	atomic64_t dma_map_failed;
	atomic_t engine_delay_us;
	atomic_t destroy_delay_ms;
	/* The cable between the two ports is plugged in (debugfs cable):
	 * unplugged, neither port has link and frames on the wire are lost.
	 */
	bool cable;
	/* a link settings change: both ends' link down until an_work */
	bool an_pending;
	struct delayed_work an_work;
	/* queue create/destroy, port open/close, link settings */
	struct mutex lock;
	struct xarray cqs;	/* cqn -> struct cxb_sim_cq */
	struct ida qpns;
	int engine;		/* enum cxb_sim_engine_mode */
	struct delayed_work stranded_work;
	struct dentry *ddir;
};

/* Interrupts owed at the end of one engine pass (moderation). */
struct cxb_sim_pass {
	unsigned int n;
	struct cxb_sim_cq *cq[CXB_SIM_PASS_IRQS];
};

static inline struct cxb_sim_port *to_cxb_sim_port(struct cxb_adev *cadev)
{
	return container_of(cadev, struct cxb_sim_port, cadev);
}

static inline struct cxb_sim_adapter *to_cxb_sim_adapter(struct device *dev)
{
	return container_of(dev, struct cxb_sim_adapter, dev);
}

static inline struct cxb_sim_port *cxb_sim_peer(struct cxb_sim_port *port)
{
	if (port->ad->nports < 2)
		return NULL;
	return READ_ONCE(port->ad->ports[!port->index]);
}

static inline void cxb_sim_add(struct cxb_sim_port *port, enum cxb_sim_cnt c,
			       u64 n)
{
	this_cpu_add(port->stats->v[c], n);
}

/* Guest time the model itself ran since load, every adapter: engine
 * passes, register writes and DMA ops. A device runs beside the CPU, so
 * its clock (cxb_sim_dev_clock()) leaves that time out.
 */
extern atomic64_t cxb_sim_self_ns;

static inline u64 cxb_sim_dev_clock(u64 guest_ns)
{
	return guest_ns - atomic64_read(&cxb_sim_self_ns);
}

/* A section timed by two clock reads misses the part of the first read
 * before its clock sample and the part of the second after it: one read
 * (cxb_sim_clock_calibrate()). The model's own time, added to it.
 */
extern u64 cxb_sim_clock_read_ns;
void cxb_sim_clock_calibrate(void);

/* The model ran from @t0 (ktime_get_ns()): its time, counted in
 * cxb_sim_self_ns and returned for the caller's own counter.
 */
static inline u64 cxb_sim_ran_since(u64 t0)
{
	u64 d = ktime_get_ns() - t0 + cxb_sim_clock_read_ns;

	atomic64_add(d, &cxb_sim_self_ns);
	return d;
}

/* The engine ran from @t0 for @port: engine_ns. */
static inline void cxb_sim_engine_ran(struct cxb_sim_port *port, u64 t0)
{
	cxb_sim_add(port, CXB_SIM_C_ENGINE_NS, cxb_sim_ran_since(t0));
}

static inline void cxb_sim_inc(struct cxb_sim_port *port, enum cxb_sim_cnt c)
{
	this_cpu_inc(port->stats->v[c]);
}

/* Module-wide */
extern struct workqueue_struct *cxb_sim_wq;
extern atomic_long_t cxb_sim_dma_live_global;
extern const struct dma_map_ops cxb_sim_dma_ops;
extern const struct cxb_backend_ops cxb_sim_backend_ops;

/* cxbell_sim_dma.c */
void cxb_sim_dma_init(struct cxb_sim_adapter *ad);
void cxb_sim_dma_teardown(struct cxb_sim_adapter *ad);
bool cxb_sim_dma_mapped(struct cxb_sim_adapter *ad, dma_addr_t iova,
			size_t len, bool write);
int cxb_sim_dma_read(struct cxb_sim_port *port, dma_addr_t iova, void *buf,
		     size_t len, enum cxb_sim_pcie cls);
int cxb_sim_dma_write(struct cxb_sim_port *port, dma_addr_t iova,
		      const void *buf, size_t len, enum cxb_sim_pcie cls);
void cxb_sim_pcie_read(struct cxb_sim_port *port, enum cxb_sim_pcie cls,
		       size_t len);
void cxb_sim_pcie_write(struct cxb_sim_port *port, enum cxb_sim_pcie cls,
			size_t len);
void cxb_sim_pcie_mmio(struct cxb_sim_port *port, size_t len);

/* cxbell_sim_queue.c */
void cxb_sim_port_reap(struct cxb_sim_port *port);

/* cxbell_sim_link.c */
void cxb_sim_port_link_init(struct cxb_sim_port *port);
bool cxb_sim_speed_valid(u32 speed);
void cxb_sim_link_update(struct cxb_sim_adapter *ad);
void cxb_sim_an_work(struct work_struct *work);
void cxb_sim_set_cable(struct cxb_sim_adapter *ad, bool in);
int cxb_sim_port_set_speed(struct cxb_sim_port *port, u32 speed);
void cxb_sim_get_link_info(struct cxb_adev *cadev, struct cxb_link_info *li);
int cxb_sim_set_link(struct cxb_adev *cadev, const struct cxb_link_cfg *cfg);

/* cxbell_sim_tx.c */
static inline dma_addr_t cxb_sim_sq_addr(struct cxb_sim_sq *sq, u32 idx)
{
	return sq->buf_dma + ((dma_addr_t)(idx & (sq->size - 1)) <<
			      CXB_MLX4_TXBB_SHIFT);
}

static inline bool cxb_sim_wqe_owned(struct cxb_sim_sq *sq, u32 idx,
				     const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return (be32_to_cpu(ctrl->owner_opcode) & CXB_MLX4_OWNER_BIT) ==
	       cxb_mlx4_owner(idx, sq->size);
}

bool cxb_sim_wqe_plausible(struct cxb_sim_sq *sq, u32 idx,
			   const struct mlx4_wqe_ctrl_seg *ctrl);
bool cxb_sim_sq_fetch_one(struct cxb_sim_sq *sq, int carried);
void cxb_sim_sq_fetch(struct cxb_sim_sq *sq, int carried);
bool cxb_sim_frame_send(struct cxb_sim_sq *sq, u32 idx, unsigned int len,
			bool vlan, __be16 tci, bool ip_cs, bool l4_cs, bool cqe,
			struct cxb_sim_pass *pass);
void cxb_sim_sq_complete(struct cxb_sim_sq *sq, u32 idx, unsigned int len,
			 struct cxb_sim_pass *pass);
bool cxb_sim_sq_err_due(struct cxb_sim_sq *sq);
void cxb_sim_sq_exec(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass);
void cxb_sim_sq_run(struct cxb_sim_sq *sq, unsigned int budget);
void cxb_sim_sq_init(struct cxb_sim_sq *sq);
void cxb_sim_sq_kick(struct cxb_sim_sq *sq, unsigned long flags);
void cxb_sim_sq_doorbell(struct cxb_sim_sq *sq);
void cxb_sim_sq_stop(struct cxb_sim_sq *sq);
bool cxb_sim_mlx4_wqe_posted(struct cxb_sim_sq *sq, u32 idx);

/* cxbell_sim_bf.c */
struct cxb_sim_bf *cxb_sim_bf_take(struct cxb_sim_sq *sq, u32 idx);
bool cxb_sim_bf_queue(struct cxb_sim_sq *sq, u32 idx, const void *wqe,
		      unsigned int len);
void cxb_sim_sq_bf(struct cxb_sim_sq *sq, const void *wqe, unsigned int len);

/* cxbell_sim_pause.c */
bool cxb_sim_sq_wire(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass);
bool cxb_sim_sq_unpause(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass);
void cxb_sim_port_resume(struct cxb_sim_port *port);
void cxb_sim_port_pause_init(struct cxb_sim_port *port);
void cxb_sim_port_pause_stop(struct cxb_sim_port *port);
void cxb_sim_port_set_pause(struct cxb_sim_port *port, bool on);
void cxb_sim_port_resume_peer(struct cxb_sim_port *port);

/* cxbell_sim_stranded.c */
u32 cxb_sim_cq_unconsumed(struct cxb_sim_cq *cq);
bool cxb_sim_stranded_due(struct cxb_sim_sq *sq, u32 idx);
void cxb_sim_stranded_work(struct work_struct *work);

/* cxbell_sim_mlx5.c */
void cxb_sim_mlx5_send_db(struct cxb_sim_port *port, struct cxb_sim_uar *uar,
			  const void *reg, unsigned int len);
void cxb_sim_mlx5_cq_db(struct cxb_sim_port *port, struct cxb_sim_uar *uar,
			const void *reg);
void cxb_sim_mlx5_exec(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass);
bool cxb_sim_mlx5_resume(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass);
/* cxbell_sim_lso.c: LSO WQEs of both generations */
bool cxb_sim_lso_exec(struct cxb_sim_sq *sq, u32 idx, unsigned int ds,
		      unsigned int *len, struct cxb_sim_pass *pass);
bool cxb_sim_lso_exec_mlx5(struct cxb_sim_sq *sq, u32 idx, unsigned int *len,
			   struct cxb_sim_pass *pass);
bool cxb_sim_lso_send(struct cxb_sim_sq *sq, struct cxb_sim_pass *pass);
bool cxb_sim_mlx5_wqe_posted(struct cxb_sim_sq *sq, u32 idx);

/* cxbell_sim_cq.c */
bool cxb_sim_cq_room(struct cxb_sim_cq *cq);
int cxb_sim_cq_post(struct cxb_sim_cq *cq, struct mlx4_cqe *cqe,
		    struct cxb_sim_pass *pass);
int cxb_sim_cq_post64(struct cxb_sim_cq *cq, struct mlx5_cqe64 *cqe,
		      struct cxb_sim_pass *pass);
void cxb_sim_cq_arm(struct cxb_sim_cq *cq, u32 sn, u32 ci);
void cxb_sim_cq_moder_init(struct cxb_sim_cq *cq, u16 cnt, u16 usecs);
void cxb_sim_cq_moderate(struct cxb_sim_cq *cq, u16 cnt, u16 usecs);
void cxb_sim_cq_moder_stop(struct cxb_sim_cq *cq);
void cxb_sim_pass_end(struct cxb_sim_pass *pass);
void cxb_sim_cq_put(struct cxb_sim_cq *cq);

/* cxbell_sim_pkt.c (struct cxb_sim_pkt above) */
void cxb_sim_pkt_parse(const u8 *f, unsigned int len, struct cxb_sim_pkt *pk);
void cxb_sim_pkt_tx_csum(u8 *f, const struct cxb_sim_pkt *pk, bool ip,
			 bool l4);
u16 cxb_sim_pkt_rx_status(const u8 *f, const struct cxb_sim_pkt *pk);
void cxb_sim_pkt_rx_mlx5(const u8 *f, const struct cxb_sim_pkt *pk,
			 bool hashed, struct mlx5_cqe64 *cqe);
unsigned int cxb_sim_pkt_vlan_insert(u8 *f, unsigned int len, __be16 tci);
u32 cxb_sim_toeplitz(const u8 *key, const u8 *data, unsigned int len);
u32 cxb_sim_pkt_hash(const u8 *f, const struct cxb_sim_pkt *pk,
		     const u8 *key);

/* cxbell_sim_rx.c */
enum cxb_sim_rx_res {
	CXB_SIM_RX_OK,		/* delivered: rx_frames */
	CXB_SIM_RX_DROPPED,	/* rx_dropped */
	CXB_SIM_RX_PAUSE,	/* no receive WQE, pause on: nothing counted */
	CXB_SIM_RX_FILTERED,	/* destination not received: rx_filtered */
};

enum cxb_sim_rx_res cxb_sim_rx_deliver(struct cxb_sim_port *port,
				       const u8 *frame, unsigned int len,
				       const struct cxb_sim_pkt *pk,
				       struct cxb_sim_pass *pass);
int cxb_sim_filter_set(struct cxb_sim_port *port,
		       const struct cxb_rx_filter *f);
void cxb_sim_filter_clear(struct cxb_sim_port *port);
int cxb_sim_rss_set(struct cxb_sim_port *port, const struct cxb_rss *r);
void cxb_sim_rss_clear(struct cxb_sim_port *port);

/* cxbell_sim_debugfs.c */
__printf(2, 3)
void cxb_sim_violation(struct cxb_sim_port *port, const char *fmt, ...);
u64 cxb_sim_cnt_read(struct cxb_sim_port *port, enum cxb_sim_cnt c);
void cxb_sim_cnt_reset(struct cxb_sim_port *port);
void cxb_sim_debugfs_init(void);
void cxb_sim_debugfs_exit(void);
void cxb_sim_debugfs_adapter_add(struct cxb_sim_adapter *ad);
void cxb_sim_debugfs_adapter_del(struct cxb_sim_adapter *ad);
void cxb_sim_debugfs_port_add(struct cxb_sim_port *port);
void cxb_sim_debugfs_port_del(struct cxb_sim_port *port);

#endif /* _CXBELL_SIM_H */
