/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell_mlx4: cxbell backend for ConnectX-3 through mlx4_core.
 *
 * mlx4_core owns the PCI function, firmware commands, EQs and interrupts.
 * cxbell_mlx4 is one of its clients (like mlx4_en): for each Ethernet port
 * it offers a "cxbell_mlx4.port" auxiliary device the cxbell core binds,
 * and implements the backend operations with mlx4_core's exported calls.
 * The ring memory is the core's (coherent DMA of the PCI function); the
 * backend describes it to the device with MTTs.
 */
#ifndef _CXBELL_MLX4_H
#define _CXBELL_MLX4_H

#include <linux/mlx4/cq.h>
#include <linux/mlx4/device.h>
#include <linux/mlx4/qp.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include <cxbell/backend.h>

#include "cxbell_mlx4_hw.h"

#define CXB_MLX4_DRV		"cxbell_mlx4"
/* Receive QPs reserved per port: the most channels a port gets. */
#define CXB_MLX4_MAX_CHANNELS	16U

/* Receive filter tables offered to the core: a port's MAC table holds
 * 128 addresses (MLX4_MAX_MAC_NUM, mlx4 port.c), the own one among them;
 * multicast groups are attached one by one (mlx4_multicast_attach()),
 * as many as a driver's choice (the device holds thousands).
 */
#define CXB_MLX4_MAX_UC		128U
#define CXB_MLX4_MAX_MC		128U

struct cxb_mlx4_port;

/* An address of the receive filter and its steering entry */
struct cxb_mlx4_addr {
	u8 mac[ETH_ALEN];
	u64 reg_id;
};

/**
 * struct cxb_mlx4_dev - one adapter (mlx4_dev) cxbell_mlx4 drives
 * @dev: mlx4_core's device
 * @pdn: protection domain of every QP and of @mr
 * @uar: UAR page of the CQ doorbells (and of send doorbells without
 *	BlueFlame)
 * @uar_map: @uar mapped
 * @mr: memory region over all of memory (physical addressing); its key is
 *	the lkey of every data segment
 * @port_lock: protects @port against the event handler (atomic context)
 * @port: ports offered to the core, NULL where skipped
 */
struct cxb_mlx4_dev {
	struct mlx4_dev *dev;
	u32 pdn;
	struct mlx4_uar uar;
	void __iomem *uar_map;
	struct mlx4_mr mr;
	spinlock_t port_lock;	/* see above */
	struct cxb_mlx4_port *port[MLX4_MAX_PORTS + 1];
};

/**
 * struct cxb_mlx4_port - one Ethernet port offered to the cxbell core
 * @cadev: the auxiliary device the core binds
 * @mdev: the adapter
 * @num: 1-based mlx4 port number
 * @lock: serialises open/close and receive QP changes (RSS follows them)
 * @res: a page with MTT and doorbell record from mlx4_alloc_hwq_res(),
 *	as mlx4_en keeps per port: the RSS QP's MTT, and the doorbell record
 *	of QPs without receive queue
 * @rx_base: first of CXB_MLX4_MAX_CHANNELS reserved receive QPNs
 * @rq: live receive queues by channel
 * @open: between open() and close()
 * @mtu: current MTU (SET_PORT general)
 * @pause_rx: honour received 802.3x pause frames (SET_PORT general pprx)
 * @pause_tx: send pause frames when out of receive buffers (pptx)
 * @mac: MAC registered and steered to the port's RSS QP
 * @mac_index: its index in the port's MAC table
 * @rss_qpn: the RSS indirection QP's number (steering target)
 * @rss_qpn_reserved: @rss_qpn was reserved here (B0 and device-managed
 *	steering; A0 uses the MAC table's own QPN)
 * @rss_qp: the RSS indirection QP
 * @rss_state: its state
 * @rss_key: Toeplitz key
 * @rss_rings: receive QPs the RSS QP spreads over (a power of two, set_rss),
 *	0: the largest power of two of the live ones
 * @uc_reg_id: device-managed steering rule of @mac
 * @bcast_reg_id: steering entry of the broadcast address
 * @uc: the unicast addresses besides @mac: registered and steered
 * @n_uc: entries of @uc
 * @mc: the multicast groups attached to the RSS QP
 * @n_mc: entries of @mc
 * @uc_promisc: unicast promiscuous steering to the RSS QP is on
 * @mc_promisc: multicast promiscuous steering is on
 * @link_lock: protects @link_up, @link_cb, @link_ctx against port events
 * @link_up: last link state the firmware reported
 * @link_cb: the core's link callback while open
 * @link_ctx: its argument
 */
struct cxb_mlx4_port {
	struct cxb_adev cadev;
	struct cxb_mlx4_dev *mdev;
	u8 num;
	struct mutex lock;		/* see above */
	struct mlx4_hwq_resources res;
	int rx_base;
	struct cxb_mlx4_rq *rq[CXB_MLX4_MAX_CHANNELS];
	bool open;
	unsigned int mtu;
	bool pause_rx;
	bool pause_tx;
	u8 mac[ETH_ALEN];
	int mac_index;
	int rss_qpn;
	bool rss_qpn_reserved;
	struct mlx4_qp rss_qp;
	enum mlx4_qp_state rss_state;
	u8 rss_key[CXB_MLX4_RSS_KEY_SIZE];
	unsigned int rss_rings;
	u64 uc_reg_id;
	u64 bcast_reg_id;
	struct cxb_mlx4_addr uc[CXB_MLX4_MAX_UC - 1];
	unsigned int n_uc;
	struct cxb_mlx4_addr mc[CXB_MLX4_MAX_MC];
	unsigned int n_mc;
	bool uc_promisc;
	bool mc_promisc;
	spinlock_t link_lock;	/* see above */
	bool link_up;
	cxb_link_fn link_cb;
	void *link_ctx;
};

/* A completion queue and the core's completion callback. */
struct cxb_mlx4_cq {
	struct mlx4_cq mcq;
	struct mlx4_mtt mtt;
	int vector;
	cxb_comp_fn comp;
	void *comp_ctx;
};

/* A send QP with its BlueFlame register (if any). */
struct cxb_mlx4_sq {
	struct mlx4_qp qp;
	struct mlx4_mtt mtt;
	enum mlx4_qp_state state;
	struct mlx4_bf bf;
	bool bf_alloced;
};

/* A receive QP (number rx_base + channel) and its CQ's number. */
struct cxb_mlx4_rq {
	struct mlx4_qp qp;
	struct mlx4_mtt mtt;
	enum mlx4_qp_state state;
	unsigned int channel;
	u32 cqn;
};

static inline struct cxb_mlx4_port *to_cxb_mlx4_port(struct cxb_adev *cadev)
{
	return container_of(cadev, struct cxb_mlx4_port, cadev);
}

extern const struct cxb_backend_ops cxb_mlx4_ops;

int cxb_mlx4_dev_res_init(struct cxb_mlx4_dev *mdev);
void cxb_mlx4_dev_res_cleanup(struct cxb_mlx4_dev *mdev);
int cxb_mlx4_port_res_init(struct cxb_mlx4_port *port);
void cxb_mlx4_port_res_cleanup(struct cxb_mlx4_port *port);
void cxb_mlx4_port_link_event(struct cxb_mlx4_port *port, bool up);

#endif /* _CXBELL_MLX4_H */
