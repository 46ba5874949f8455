/* SPDX-License-Identifier: GPL-2.0 */
/* cxbell_mlx4: how a client attaches to mlx4_core.
 *
 * Up to Linux 6.4 (Debian 12's 6.1 included) a client registers a struct
 * mlx4_interface: add() per adapter, activate() once the adapter's events
 * reach the client, remove(), and event() for port and device events,
 * dispatched under a spinlock. Linux 6.5 moved the clients to the
 * auxiliary bus (struct mlx4_adrv in linux/mlx4/driver.h): an auxiliary
 * driver binds the adapter's mlx4_core.eth device, and events come
 * through a notifier the driver registers per adapter, called in atomic
 * context; mlx4_en registers it before it creates its netdevs (en_main.c,
 * mlx4_en_probe()). cxbell_mlx4 is written against the small interface
 * below; Kbuild picks the implementation (CXB_MLX4_HAVE_INTERFACE, else
 * the auxiliary bus).
 */
#ifndef _CXBELL_MLX4_COMPAT_H
#define _CXBELL_MLX4_COMPAT_H

#include <linux/mlx4/driver.h>
#include <linux/slab.h>

/**
 * struct cxb_mlx4_client - the client callbacks
 * @add: an adapter appeared; returns the context, NULL to ignore it
 * @activate: the adapter's events reach @event from now on; a port
 *	offered from here hears of every change of its link
 * @remove: the adapter goes away (or the client unregisters)
 * @event: a device event; @port is the 1-based port of port events.
 *	Atomic context.
 */
struct cxb_mlx4_client {
	void *(*add)(struct mlx4_dev *dev);
	void (*activate)(struct mlx4_dev *dev, void *ctx);
	void (*remove)(struct mlx4_dev *dev, void *ctx);
	void (*event)(struct mlx4_dev *dev, void *ctx,
		      enum mlx4_dev_event event, unsigned long port);
};

#ifdef CXB_MLX4_HAVE_INTERFACE

static struct mlx4_interface cxb_mlx4_intf;

static inline int cxb_mlx4_client_register(const struct cxb_mlx4_client *c)
{
	cxb_mlx4_intf.add = c->add;
	/* (called once the context is on the adapter's list events go to) */
	cxb_mlx4_intf.activate = c->activate;
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

#else /* Linux 6.5+: mlx4_core's auxiliary devices */

/* One bound mlx4_core.eth device: its adapter, the client's context and
 * the notifier that brings the adapter's events.
 */
struct cxb_mlx4_binding {
	struct notifier_block nb;
	struct mlx4_dev *dev;
	void *ctx;
};

static const struct cxb_mlx4_client *cxb_mlx4_cl;

static int cxb_mlx4_notify(struct notifier_block *nb, unsigned long event,
			   void *param)
{
	struct cxb_mlx4_binding *b =
		container_of(nb, struct cxb_mlx4_binding, nb);
	unsigned long port = 0;

	/* Port events carry the port number; the others something else
	 * (mlx4_en, en_main.c mlx4_en_event()).
	 */
	if (event == MLX4_DEV_EVENT_PORT_UP ||
	    event == MLX4_DEV_EVENT_PORT_DOWN ||
	    event == MLX4_DEV_EVENT_PORT_REINIT)
		port = *(int *)param;
	cxb_mlx4_cl->event(b->dev, b->ctx, event, port);
	return NOTIFY_DONE;
}

static int cxb_mlx4_adev_probe(struct auxiliary_device *adev,
			       const struct auxiliary_device_id *id)
{
	struct mlx4_adev *madev = container_of(adev, struct mlx4_adev, adev);
	struct cxb_mlx4_binding *b;
	int err;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->dev = madev->mdev;
	b->ctx = cxb_mlx4_cl->add(b->dev);
	if (!b->ctx) {
		/* add() said why */
		kfree(b);
		return -ENODEV;
	}
	b->nb.notifier_call = cxb_mlx4_notify;
	err = mlx4_register_event_notifier(b->dev, &b->nb);
	if (err) {
		cxb_mlx4_cl->remove(b->dev, b->ctx);
		kfree(b);
		return err;
	}
	cxb_mlx4_cl->activate(b->dev, b->ctx);
	auxiliary_set_drvdata(adev, b);
	return 0;
}

static void cxb_mlx4_adev_remove(struct auxiliary_device *adev)
{
	struct cxb_mlx4_binding *b = auxiliary_get_drvdata(adev);

	mlx4_unregister_event_notifier(b->dev, &b->nb);
	cxb_mlx4_cl->remove(b->dev, b->ctx);
	kfree(b);
}

/* No MODULE_DEVICE_TABLE: udev must not load cxbell_mlx4 for every
 * ConnectX-3 beside mlx4_en; it is loaded by hand (README).
 */
static const struct auxiliary_device_id cxb_mlx4_adev_ids[] = {
	{ .name = MLX4_ADEV_NAME ".eth" },
	{}
};

/* mlx4_core registers the driver under its own module name: this one is
 * mlx4_core.cxbell, mlx4_en's mlx4_core.eth.
 */
static struct mlx4_adrv cxb_mlx4_adrv = {
	.adrv = {
		.name		= "cxbell",
		.probe		= cxb_mlx4_adev_probe,
		.remove		= cxb_mlx4_adev_remove,
		.id_table	= cxb_mlx4_adev_ids,
	},
	.protocol	= MLX4_PROT_ETH,
};

static inline int cxb_mlx4_client_register(const struct cxb_mlx4_client *c)
{
	cxb_mlx4_cl = c;
	return mlx4_register_auxiliary_driver(&cxb_mlx4_adrv);
}

static inline void cxb_mlx4_client_unregister(void)
{
	mlx4_unregister_auxiliary_driver(&cxb_mlx4_adrv);
}

/* The whole mlx4_core.eth device, all its ports, is bound to one driver:
 * here, to this one. mlx4_en drives an adapter only if it bound first.
 */
static inline bool cxb_mlx4_port_taken(struct mlx4_dev *dev, int port)
{
	return false;
}

#endif

#endif /* _CXBELL_MLX4_COMPAT_H */
