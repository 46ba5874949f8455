/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell_mlx5: cxbell backend for ConnectX-4 and later through mlx5_core.
 *
 * mlx5_core owns the PCI function, the command interface, EQs and
 * interrupts, and offers each Ethernet function as an auxiliary device,
 * "mlx5_core.eth.N", which mlx5e binds first. cxbell_mlx5 is an auxiliary
 * driver for the same device: bound to it by hand (mlx5e unbound), it
 * offers the function's port to the cxbell core as a "cxbell_mlx5.port"
 * auxiliary device and implements the backend operations with
 * mlx5_core's exported calls, or raw commands (mlx5_cmd_exec()) for the
 * few objects mlx5_core keeps to itself (send queues, RQT and TIR
 * changes, the vport state). The ring memory is the core's (coherent DMA
 * of the PCI function); the backend describes it to the device with
 * physical address lists.
 */
#ifndef _CXBELL_MLX5_H
#define _CXBELL_MLX5_H

#include <linux/if_vlan.h>
#include <linux/mlx5/cq.h>
#include <linux/mlx5/driver.h>
#include <linux/mlx5/fs.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <cxbell/backend.h>

#include "wqe/mlx5.h"

#define CXB_MLX5_DRV		"cxbell_mlx5"
/* Channels offered at most (and no more than completion vectors). */
#define CXB_MLX5_MAX_CHANNELS	16U
/* Receive filter tables offered to the core (a driver's choice: the
 * flow table holds thousands).
 */
#define CXB_MLX5_MAX_UC		128U
#define CXB_MLX5_MAX_MC		128U

/* Frame bytes the port counts beyond the MTU: Ethernet header, one VLAN
 * tag, FCS (mlx5e's MLX5E_SW2HW_MTU()).
 */
#define CXB_MLX5_HARD_MTU	(ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN)

/* The priority of the kernel flow namespace whose tables mlx5e's NIC
 * receive steering uses (MLX5E_NIC_PRIO, en/fs.h): the L2 table at level
 * 0, the traffic type table at level 1.
 */
#define CXB_MLX5_NIC_PRIO	1

/* The traffic types the port's classification table tells apart, each
 * with its TIR: RSS over the 4-tuple for TCP and UDP over IPv4 and IPv6,
 * over the addresses for other IP, and the rest to channel 0 (as mlx5e's
 * TTC table, lib/fs_ttc.c).
 */
enum cxb_mlx5_tt {
	CXB_MLX5_TT_IPV4_TCP,
	CXB_MLX5_TT_IPV6_TCP,
	CXB_MLX5_TT_IPV4_UDP,
	CXB_MLX5_TT_IPV6_UDP,
	CXB_MLX5_TT_IPV4,
	CXB_MLX5_TT_IPV6,
	CXB_MLX5_TT_ANY,
	CXB_MLX5_NUM_TT,
};

/* A steered destination address and its rule */
struct cxb_mlx5_addr {
	u8 mac[ETH_ALEN];
	struct mlx5_flow_handle *rule;
};

/* The receive queue every RQT entry falls back to while no channel's
 * queue is live (mlx5e's drop RQ): never posted, with a CQ of its own.
 */
struct cxb_mlx5_drop_rq {
	void *buf;		/* page: CQ ring, then the RQ ring */
	dma_addr_t buf_dma;
	void *db;		/* page: RQ record at 0, CQ record at 64 */
	dma_addr_t db_dma;
	struct mlx5_core_cq mcq;
	u32 rqn;
	bool created;
};

/**
 * struct cxb_mlx5_port - one mlx5 Ethernet function offered to the core
 * @cadev: the auxiliary device the core binds
 * @madev: mlx5_core's auxiliary device we are bound to
 * @mdev: its mlx5 device
 * @pdn: protection domain of every queue and of @mkey
 * @tdn: transport domain of @tisn and the TIRs
 * @mkey: physical-address memory key: the lkey of every data segment
 * @tisn: transport interface send of every send queue
 * @bfreg: the UAR doorbell register of every send queue (mapped
 *	uncached, as mlx5e's)
 * @min_inline: the device's minimum inline mode (MLX5_INLINE_MODE_*)
 * @lock: serialises open/close, receive queue changes and steering
 * @rq: live receive queue number by channel, 0: none
 * @drop: where RQT entries of missing queues point
 * @open: between open() and close()
 * @mtu: current MTU
 * @rqt_rss: the RSS indirection table (CXB_RSS_TABLE_SIZE entries)
 * @rqt_direct: a one-entry table: channel 0
 * @tirn: TIR of each traffic type
 * @rss: the core's key and table
 * @ft_l2: steering table: destination MAC -> @ft_ttc
 * @ft_ttc: classification table: traffic type -> TIR
 * @ttc_rule: its rules
 * @uc: steered unicast addresses, the own one first
 * @n_uc: entries of @uc
 * @mc: steered multicast addresses
 * @n_mc: entries of @mc
 * @bcast_rule: the broadcast address's rule
 * @allmulti_rule: every multicast frame (NULL: off)
 * @promisc_rule: every frame (NULL: off)
 * @q_counter: the queue counter set of the channels' receive queues
 * @stats_work: reads the counters below (they need commands)
 * @stats_lock: protects the four below
 * @rx_oob: frames dropped for want of a receive buffer, since probe
 * @oob_last: the 32-bit out_of_buffer counter at its last read
 * @rx_too_long: frames longer than the port takes (PPCNT)
 * @rx_crc: frames with a bad FCS (PPCNT)
 * @nb: mlx5_core's event notifier (port changes)
 * @link_work: re-reads the vport state after a port change event
 * @link_lock: protects @link_up, @link_cb, @link_ctx
 * @link_up: last vport state read
 * @link_cb: the core's link callback while open
 * @link_ctx: its argument
 */
struct cxb_mlx5_port {
	struct cxb_adev cadev;
	struct mlx5_adev *madev;
	struct mlx5_core_dev *mdev;
	u32 pdn;
	u32 tdn;
	u32 mkey;
	u32 tisn;
	struct mlx5_sq_bfreg bfreg;
	u8 min_inline;

	struct mutex lock;	/* see above */
	u32 rq[CXB_MLX5_MAX_CHANNELS];
	struct cxb_mlx5_drop_rq drop;
	bool open;
	unsigned int mtu;
	u32 rqt_rss;
	u32 rqt_direct;
	u32 tirn[CXB_MLX5_NUM_TT];
	struct cxb_rss rss;
	struct mlx5_flow_table *ft_l2;
	struct mlx5_flow_table *ft_ttc;
	struct mlx5_flow_handle *ttc_rule[CXB_MLX5_NUM_TT];
	struct cxb_mlx5_addr uc[CXB_MLX5_MAX_UC];
	unsigned int n_uc;
	struct cxb_mlx5_addr mc[CXB_MLX5_MAX_MC];
	unsigned int n_mc;
	struct mlx5_flow_handle *bcast_rule;
	struct mlx5_flow_handle *allmulti_rule;
	struct mlx5_flow_handle *promisc_rule;

	u16 q_counter;
	struct work_struct stats_work;
	spinlock_t stats_lock;	/* see above */
	u64 rx_oob;
	u32 oob_last;
	u64 rx_too_long;
	u64 rx_crc;

	struct notifier_block nb;
	struct work_struct link_work;
	spinlock_t link_lock;	/* see above */
	bool link_up;
	cxb_link_fn link_cb;
	void *link_ctx;
};

/* A completion queue and the core's completion callback. */
struct cxb_mlx5_cq {
	struct mlx5_core_cq mcq;
	cxb_comp_fn comp;
	void *comp_ctx;
};

/* A receive queue and the channel it serves. */
struct cxb_mlx5_rq {
	u32 rqn;
	unsigned int channel;
};

static inline struct cxb_mlx5_port *to_cxb_mlx5_port(struct cxb_adev *cadev)
{
	return container_of(cadev, struct cxb_mlx5_port, cadev);
}

extern const struct cxb_backend_ops cxb_mlx5_ops;

int cxb_mlx5_port_res_init(struct cxb_mlx5_port *port);
void cxb_mlx5_port_res_cleanup(struct cxb_mlx5_port *port);
int cxb_mlx5_query_link(struct cxb_mlx5_port *port, bool *up);
void cxb_mlx5_stats_work(struct work_struct *work);

#endif /* _CXBELL_MLX5_H */
