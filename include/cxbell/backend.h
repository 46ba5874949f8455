/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell backend interface.
 *
 * A backend (the cxbell_sim device model, or real ConnectX hardware
 * behind mlx4_core) creates one auxiliary device per Ethernet port,
 * named "<backend module>.port", embedded in a struct cxb_adev. The cxbell
 * core binds to it and creates one netdev per port.
 *
 * The backend only hands out resources and addresses, the way a
 * device's firmware would: queues (QP/CQ numbers), the ring memory it
 * should fetch from (DMA addresses the core allocated), register pages
 * (UAR send doorbell, CQ doorbell, BlueFlame buffers) and the memory key.
 * Everything on the datapath - building WQEs, ownership bits, doorbell and
 * BlueFlame writes, CQE parsing, arming - is the core's, identical for
 * every backend.
 */
#ifndef _CXBELL_BACKEND_H
#define _CXBELL_BACKEND_H

#include <linux/auxiliary_bus.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/types.h>

/* Auxiliary device name (after the "<modname>." prefix) the core binds. */
#define CXB_ADEV_NAME		"port"

/* Descriptor generation a port speaks. */
enum cxb_gen {
	CXB_GEN_CX3 = 3,	/* mlx4 WQEs/CQEs (wqe/mlx4.h) */
	CXB_GEN_CX5 = 5,	/* mlx5 send and receive queues, 64-byte
				 * CQEs, the mlx5 CQ arm (wqe/mlx5.h)
				 */
};

/* Headers every send WQE of a CXB_GEN_CX5 port must carry inline in its
 * Ethernet segment, as the device reports them (mlx5_query_min_inline():
 * the wqe_inline_mode capability, or the vport context's
 * min_wqe_inline_mode); the values of enum mlx5_inline_modes.
 */
enum cxb_min_inline {
	CXB_MIN_INLINE_NONE = 0,	/* MLX5_INLINE_MODE_NONE */
	CXB_MIN_INLINE_L2 = 1,		/* MLX5_INLINE_MODE_L2: the */
					/* Ethernet header and 4 bytes */
					/* more (mlx5e's MLX5E_MIN_INLINE) */
};

struct cxb_adev;

/* Completion event ("interrupt"). Called by the backend when a CQE was
 * written to an armed CQ; the CQ is disarmed by then. Called with hard
 * interrupts disabled, as a real MSI-X handler would be.
 */
typedef void (*cxb_comp_fn)(void *ctx);

/* Link state change: the core re-reads ops->link_up(). Any context. */
typedef void (*cxb_link_fn)(void *ctx);

struct cxb_cq_params {
	dma_addr_t buf_dma;		/* CQE ring, coherent */
	dma_addr_t db_dma;		/* doorbell record, 2 x __be32: */
					/*   [0] consumer index (set_ci) */
					/*   [1] arm word */
	unsigned int log_entries;	/* ring entries = 1 << log_entries */
	unsigned int cqe_size;		/* bytes per CQE: 32 (mlx4), 64 */
					/*   (mlx5, send CQs of CX5) */
	unsigned int channel;		/* picks the UAR page / vector */
	u16 moder_cnt;			/* moderation, as @cq_moderate */
	u16 moder_usecs;
	cxb_comp_fn comp;
	void *comp_ctx;
};

struct cxb_cq_hw {
	u32 cqn;
	void __iomem *db_reg;		/* 64-bit CQ doorbell (arm) register */
	void *priv;			/* backend's own */
};

struct cxb_sq_params {
	dma_addr_t buf_dma;		/* send ring of TXBBs, coherent */
	unsigned int log_entries;	/* TXBBs = 1 << log_entries */
	unsigned int log_stride;	/* log2 bytes per TXBB (6) */
	u32 cqn;			/* completions go there */
	unsigned int channel;
	dma_addr_t db_dma;		/* CXB_GEN_CX5: doorbell record, */
					/*   CXB_MLX5_DBR_SIZE, the be32 */
					/*   producer counter at dword */
					/*   CXB_MLX5_SQ_DBR */
};

/* CXB_GEN_CX5: db_reg is the first of two 64-bit doorbell buffers (the
 * second at db_reg + CXB_MLX5_DB_ALT), bf_reg the same two buffers
 * mapped write-combining (CXB_MLX5_BF_SIZE each), NULL if the device has
 * no BlueFlame (the bf capability).
 */
struct cxb_sq_hw {
	u32 qpn;
	void __iomem *db_reg;		/* send doorbell: write be32(qpn << 8) */
	void __iomem *bf_reg;		/* two BlueFlame buffers, NULL: none */
	unsigned int bf_size;		/* bytes of one BlueFlame buffer */
	void *priv;
};

struct cxb_rq_params {
	/* receive QP buffer: one 64-byte send TXBB, then the ring of
	 * data segments (CXB_MLX4_RX_BUF_SIZE(1 << log_entries) bytes)
	 */
	dma_addr_t buf_dma;
	dma_addr_t db_dma;		/* doorbell record: __be32 producer */
	unsigned int log_entries;
	unsigned int log_stride;	/* log2 bytes per receive WQE (4) */
	u32 cqn;
	unsigned int channel;
	/* strip an 802.1Q (C-VLAN) tag from received frames into the CQE
	 * (MLX4_CQE_CVLAN_PRESENT_MASK in vlan_my_qpn, the TCI in sl_vid),
	 * as a ConnectX-3 receive QP without param3 bit 30
	 */
	bool vlan_strip;
};

struct cxb_rq_hw {
	u32 qpn;
	void *priv;
};

/**
 * struct cxb_port_stats - counters the port itself keeps
 * @rx_dropped: frames the port received and dropped before any receive
 *	queue got them: no posted buffer (with flow control off), or larger
 *	than the port's MTU. Never reset while the port exists.
 * @rx_crc_errors: frames with a bad FCS the port dropped without a
 *	completion (a ConnectX-4+ port; mlx5e reports the 802.3 counter
 *	a_frame_check_sequence_errors). Likewise never reset.
 */
struct cxb_port_stats {
	u64 rx_dropped;
	u64 rx_crc_errors;
};

/**
 * struct cxb_link_info - the port's link as the device reports it
 * @speed: Mb/s (SPEED_* of uapi ethtool.h), SPEED_UNKNOWN: not known;
 *	with @modes, the negotiated (or forced) speed while the link is up
 * @port: connector (PORT_*)
 * @modes: the backend reports the link modes and autonegotiation below
 *	(a ConnectX-3's PTYS register: eth_proto_cap, eth_proto_admin,
 *	eth_proto_lp_adv); false: it reports @speed and @port only
 *	(QUERY_PORT) and the core derives one link mode from them
 * @autoneg: AUTONEG_ENABLE: the port negotiates among @advertising;
 *	AUTONEG_DISABLE: it runs at a forced speed
 * @lp_autoneg: the link partner negotiated (its @lp_advertising is
 *	valid); false while the link is down or the partner is forced
 * @supported: link modes (ETHTOOL_LINK_MODE_*_BIT, speed modes only)
 *	the port can run
 * @advertising: those it advertises, a subset of @supported
 * @lp_advertising: those the link partner advertised
 */
struct cxb_link_info {
	u32 speed;
	u8 port;
	bool modes;
	u8 autoneg;
	bool lp_autoneg;
	__ETHTOOL_DECLARE_LINK_MODE_MASK(supported);
	__ETHTOOL_DECLARE_LINK_MODE_MASK(advertising);
	__ETHTOOL_DECLARE_LINK_MODE_MASK(lp_advertising);
};

/**
 * struct cxb_link_cfg - link settings for @set_link (PTYS eth_proto_admin
 *	and its autonegotiation-disable flag on a ConnectX-3)
 * @autoneg: AUTONEG_ENABLE: negotiate among @advertising;
 *	AUTONEG_DISABLE: force @speed
 * @speed: the forced speed (AUTONEG_DISABLE), a speed of one of the
 *	supported link modes
 * @advertising: the modes to advertise, a non-empty subset of the
 *	supported link modes
 */
struct cxb_link_cfg {
	u8 autoneg;
	u32 speed;
	__ETHTOOL_DECLARE_LINK_MODE_MASK(advertising);
};

/**
 * struct cxb_rx_filter - the destination MAC addresses a port receives
 * @promisc: every frame, whatever its destination
 * @allmulti: every multicast frame
 * @n_uc: entries of @uc, at most cxb_adev.max_uc; the first is the
 *	port's current address
 * @n_mc: entries of @mc, at most cxb_adev.max_mc
 * @uc: unicast addresses
 * @mc: multicast addresses
 *
 * Broadcast is always received. The tables are exact: a frame whose
 * destination is in neither, with neither flag set, is not delivered.
 * Both tables stay programmed under the flags (leaving promiscuous mode
 * restores the exact filter).
 */
struct cxb_rx_filter {
	bool promisc;
	bool allmulti;
	unsigned int n_uc;
	unsigned int n_mc;
	const u8 (*uc)[ETH_ALEN];
	const u8 (*mc)[ETH_ALEN];
};

/* Receive side scaling (struct cxb_rss) */
#define CXB_RSS_KEY_SIZE	40	/* Toeplitz key bytes, as mlx4/mlx5 */
#define CXB_RSS_TABLE_SIZE	128	/* indirection table entries */

/**
 * struct cxb_rss - how a port spreads received frames over its channels
 * @key: Toeplitz key
 * @table: the channel of each indirection table entry
 *
 * The port hashes (Toeplitz, with @key) a TCP or UDP segment over IPv4
 * or IPv6 that is not a fragment over source address, destination
 * address, source port and destination port, in that order and network
 * byte order (UDP only with cxb_adev.rss_udp); any other IPv4 or IPv6
 * packet over the two addresses. The
 * frame goes to the receive queue of channel
 * table[hash & (CXB_RSS_TABLE_SIZE - 1)], and its receive CQE carries
 * the hash (immed_rss_invalid). A frame that is neither IPv4 nor IPv6
 * goes to channel 0 with hash 0.
 */
struct cxb_rss {
	u8 key[CXB_RSS_KEY_SIZE];
	u8 table[CXB_RSS_TABLE_SIZE];
};

/**
 * struct cxb_backend_ops - what a backend provides to the core
 * @open: enable the port (as INIT_PORT would); link changes are reported
 *	through @link_cb until @close.
 * @close: disable the port; no @link_cb call after it returns.
 * @link_up: current link state.
 * @set_mtu: optional; program the port's maximum frame size.
 * @get_pause/@set_pause: optional (both or neither); 802.3x global pause:
 *	@rx, honour pause frames from the link partner; @tx, send them when
 *	the port runs out of receive buffers. Set while closed, it takes
 *	effect at @open.
 * @cq_create/@cq_destroy: completion queue life cycle. After destroy no
 *	CQE is written and no @comp call is made.
 * @cq_moderate: change a live CQ's event moderation (mlx4_cq_modify()):
 *	once armed, the CQ's event is raised when @count CQEs are pending
 *	since its last event, or @usecs microseconds after the first CQE
 *	that found it armed, whichever comes first; @count 0: no count
 *	limit; @usecs 0: an event for every CQE. Process context.
 * @sq_create/@sq_destroy: send queue (QP) life cycle. Destroy also flushes:
 *	the device stops fetching; WQEs it has not executed are dropped.
 * @rq_create/@rq_destroy: receive queue life cycle.
 * @set_rx_filter: optional; replace the port's receive filter (the
 *	MAC table, multicast groups and the promiscuous/all-multicast modes
 *	of mlx4_en_set_rx_mode()) with @f. Only while open: @open starts
 *	with nothing steered, @close removes every entry. On an error the
 *	previous filter stays. Process context.
 * @set_rss: optional; program the port's receive side scaling (the RSS
 *	indirection QP context of mlx4_en_config_rss_steer(), the RQT and
 *	TIRs of mlx5e) with @rss. Only while open: @open starts with every
 *	frame to channel 0, hash 0. A table the device cannot express is
 *	refused with -EINVAL and changes nothing; on any error the previous
 *	setting stays. Process context.
 * @get_link_info: optional; the link's speed and connector (QUERY_PORT),
 *	with cxb_link_info.modes its link modes too (PTYS). Process context.
 * @set_link: optional (with @get_link_info reporting modes); apply @cfg,
 *	which the core checked against the supported link modes. A change
 *	takes the link down and renegotiates it, as a port whose PTYS
 *	register was written (link changes through @link_cb); the same
 *	settings again change nothing. Open or closed: the settings stay
 *	until changed. What the port cannot do is refused with -EINVAL and
 *	changes nothing. Process context.
 * @get_port_stats: optional; read the port's own counters. Any context.
 * @mmio_notify: optional. Called by the core right after each write to a
 *	register this backend handed out (doorbell, BlueFlame, CQ arm), with
 *	the register address and the bytes written. Real hardware needs no
 *	such hook (NULL); a device model uses it to learn of the write.
 */
struct cxb_backend_ops {
	int (*open)(struct cxb_adev *adev, cxb_link_fn link_cb, void *ctx);
	void (*close)(struct cxb_adev *adev);
	bool (*link_up)(struct cxb_adev *adev);
	int (*set_mtu)(struct cxb_adev *adev, unsigned int mtu);
	void (*get_pause)(struct cxb_adev *adev, bool *rx, bool *tx);
	int (*set_pause)(struct cxb_adev *adev, bool rx, bool tx);

	int (*cq_create)(struct cxb_adev *adev,
			 const struct cxb_cq_params *p, struct cxb_cq_hw *hw);
	void (*cq_destroy)(struct cxb_adev *adev, struct cxb_cq_hw *hw);
	int (*cq_moderate)(struct cxb_adev *adev, struct cxb_cq_hw *hw,
			   u16 count, u16 usecs);
	int (*sq_create)(struct cxb_adev *adev,
			 const struct cxb_sq_params *p, struct cxb_sq_hw *hw);
	void (*sq_destroy)(struct cxb_adev *adev, struct cxb_sq_hw *hw);
	int (*rq_create)(struct cxb_adev *adev,
			 const struct cxb_rq_params *p, struct cxb_rq_hw *hw);
	void (*rq_destroy)(struct cxb_adev *adev, struct cxb_rq_hw *hw);
	int (*set_rx_filter)(struct cxb_adev *adev,
			     const struct cxb_rx_filter *f);
	int (*set_rss)(struct cxb_adev *adev, const struct cxb_rss *rss);

	void (*get_link_info)(struct cxb_adev *adev, struct cxb_link_info *li);
	int (*set_link)(struct cxb_adev *adev, const struct cxb_link_cfg *cfg);
	void (*get_port_stats)(struct cxb_adev *adev, struct cxb_port_stats *s);
	void (*mmio_notify)(struct cxb_adev *adev, void __iomem *reg,
			    unsigned int len);
};

/**
 * struct cxb_adev - one Ethernet port offered by a backend
 * @adev: auxiliary device; its parent is the adapter's device
 * @ops: backend operations
 * @dma_dev: device to map buffers and allocate rings with
 * @gen: descriptor generation
 * @port: 0-based port number on the adapter (netdev dev_port)
 * @max_channels: TX/RX queue pairs the port supports
 * @max_mtu: largest MTU the port accepts
 * @lkey: memory key for data segments, already big-endian
 * @bf_size: bytes of one BlueFlame buffer of each send queue, 0: none
 * @has_xdpsq: the port can give each channel a second send queue with its
 *	own CQ (on the channel's vector, same descriptor generation), which
 *	the core uses for XDP_TX and XDP_REDIRECT; false: XDP programs run,
 *	but frames they send or redirect are dropped
 * @max_uc: unicast addresses the port's receive filter holds, its own
 *	address included (with @set_rx_filter)
 * @max_mc: multicast addresses it holds
 * @rss_pow2: the port spreads over a power of two of channels only (a
 *	ConnectX-3's RSS QP: consecutive QPs from a base): the only tables
 *	@set_rss takes are table[i] = i % m, m a power of two
 * @rss_udp: the port's RSS hash takes UDP ports in (else UDP frames are
 *	hashed over the addresses only)
 * @max_gso_size: largest packet (headers included) the port segments
 *	in an LSO WQE (TCP segmentation offload); 0: no LSO
 * @min_inline: CXB_GEN_CX5: the headers each send WQE must carry inline;
 *	CXB_MIN_INLINE_NONE on CXB_GEN_CX3
 * @mpwqe: CXB_GEN_CX5: the port executes enhanced multi-packet send WQEs
 *	(the enhanced_multi_pkt_send_wqe capability; a ConnectX-5 or later)
 * @mac: permanent MAC address
 */
struct cxb_adev {
	struct auxiliary_device adev;
	const struct cxb_backend_ops *ops;
	struct device *dma_dev;
	enum cxb_gen gen;
	unsigned int port;
	unsigned int max_channels;
	unsigned int max_mtu;
	__be32 lkey;
	unsigned int bf_size;
	bool has_xdpsq;
	unsigned int max_uc;
	unsigned int max_mc;
	bool rss_pow2;
	bool rss_udp;
	unsigned int max_gso_size;
	enum cxb_min_inline min_inline;
	bool mpwqe;
	u8 mac[ETH_ALEN];
	/* ethtool -i: the device's firmware, if it has any ("" if not) */
	char fw_version[ETHTOOL_FWVERS_LEN];
};

static inline struct cxb_adev *to_cxb_adev(struct auxiliary_device *adev)
{
	return container_of(adev, struct cxb_adev, adev);
}

#endif /* _CXBELL_BACKEND_H */
