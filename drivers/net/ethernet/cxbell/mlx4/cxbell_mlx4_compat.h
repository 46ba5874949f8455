/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell_mlx4: how a client attaches to mlx4_core.
 *
 * Up to Linux 6.4 (Debian 12's 6.1 included) a client registers a struct
 * mlx4_interface: add() per adapter, remove(), and event() for port and
 * device events, dispatched under a spinlock. Linux 6.5 moved the clients
 * to the auxiliary bus (an auxiliary driver per protocol, events through a
 * notifier). cxbell_mlx4 is written against the small interface below;
 * only the mlx4_interface implementation exists so far, and Kbuild builds
 * cxbell_mlx4 only where the kernel headers declare
 * mlx4_register_interface().
 */
#ifndef _CXBELL_MLX4_COMPAT_H
#define _CXBELL_MLX4_COMPAT_H

#include <linux/mlx4/driver.h>

/**
 * struct cxb_mlx4_client - the client callbacks
 * @add: an adapter appeared; returns the context, NULL to ignore it
 * @remove: the adapter goes away (or the client unregisters)
 * @event: a device event; @port is the 1-based port of port events.
 *	Atomic context.
 */
struct cxb_mlx4_client {
	void *(*add)(struct mlx4_dev *dev);
	void (*remove)(struct mlx4_dev *dev, void *ctx);
	void (*event)(struct mlx4_dev *dev, void *ctx,
		      enum mlx4_dev_event event, unsigned long port);
};

#ifdef CXB_MLX4_HAVE_INTERFACE

static struct mlx4_interface cxb_mlx4_intf;

static inline int cxb_mlx4_client_register(const struct cxb_mlx4_client *c)
{
	cxb_mlx4_intf.add = c->add;
	cxb_mlx4_intf.remove = c->remove;
	cxb_mlx4_intf.event = c->event;
	/* No get_dev: mlx4_get_protocol_dev() (RoCE, bonding) keeps finding
	 * mlx4_en's netdevs only, and finds none where cxbell drives a port.
	 */
	cxb_mlx4_intf.protocol = MLX4_PROT_ETH;
	return mlx4_register_interface(&cxb_mlx4_intf);
}

static inline void cxb_mlx4_client_unregister(void)
{
	mlx4_unregister_interface(&cxb_mlx4_intf);
}

/* Another Ethernet client (mlx4_en) already drives @port of @dev. */
static inline bool cxb_mlx4_port_taken(struct mlx4_dev *dev, int port)
{
	return mlx4_get_protocol_dev(dev, MLX4_PROT_ETH, port);
}

#else
#error "cxbell_mlx4 needs the mlx4_interface client API (Linux <= 6.4)"
#endif

#endif /* _CXBELL_MLX4_COMPAT_H */
