// SPDX-License-Identifier: GPL-2.0
/* cxbell_mlx4: mlx4_core client offering ConnectX-3 Ethernet ports to the
 * cxbell core.
 *
 * On add() (an adapter under mlx4_core) it allocates the adapter's PD, MR
 * and UAR; on activate(), once mlx4_core delivers the adapter's events to
 * it, it creates one "cxbell_mlx4.port" auxiliary device per Ethernet
 * port that no other Ethernet client (mlx4_en) drives; the cxbell core
 * binds it and creates the netdev. Port up/down events reach the core as
 * link changes. remove() deletes the ports (the core unbinds first) and
 * frees the adapter's resources.
 */
#include <linux/etherdevice.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "cxbell_mlx4.h"
#include "cxbell_mlx4_compat.h"

static DEFINE_IDA(cxb_mlx4_ida);

static void cxb_mlx4_port_release(struct device *d)
{
	struct auxiliary_device *adev = to_auxiliary_dev(d);
	struct cxb_mlx4_port *port = to_cxb_mlx4_port(to_cxb_adev(adev));

	ida_free(&cxb_mlx4_ida, adev->id);
	mutex_destroy(&port->lock);
	kfree(port);
}

static unsigned int cxb_mlx4_port_channels(struct mlx4_dev *dev, u8 num)
{
	unsigned int n = min(mlx4_get_eqs_per_port(dev, num),
			     CXB_MLX4_MAX_CHANNELS);

	return n ? rounddown_pow_of_two(n) : 1;
}

/* Make @port the adapter's port @num (NULL: none) for the event handler,
 * which runs in atomic context: when this returns, none uses the port
 * that was there.
 */
static void cxb_mlx4_port_publish(struct cxb_mlx4_dev *mdev, u8 num,
				  struct cxb_mlx4_port *port)
{
	spin_lock_irq(&mdev->port_lock);
	mdev->port[num] = port;
	spin_unlock_irq(&mdev->port_lock);
}

static int cxb_mlx4_port_add(struct cxb_mlx4_dev *mdev, u8 num)
{
	struct mlx4_dev *dev = mdev->dev;
	struct auxiliary_device *adev;
	struct cxb_mlx4_port *port;
	int err, id;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->mdev = mdev;
	port->num = num;
	mutex_init(&port->lock);
	spin_lock_init(&port->link_lock);
	port->rss_state = MLX4_QP_STATE_RST;
	port->mtu = ETH_DATA_LEN;
	/* Global pause on in both directions: mlx4_en's default. */
	port->pause_rx = true;
	port->pause_tx = true;
	u64_to_ether_addr(dev->caps.def_mac[num], port->mac);

	err = cxb_mlx4_port_res_init(port);
	if (err) {
		mutex_destroy(&port->lock);
		kfree(port);
		return err;
	}
	id = ida_alloc(&cxb_mlx4_ida, GFP_KERNEL);
	if (id < 0) {
		err = id;
		goto err_res;
	}

	port->cadev.ops = &cxb_mlx4_ops;
	port->cadev.dma_dev = &dev->persist->pdev->dev;
	port->cadev.gen = CXB_GEN_CX3;
	port->cadev.port = num - 1;
	port->cadev.max_channels = cxb_mlx4_port_channels(dev, num);
	port->cadev.max_mtu = cxb_mlx4_max_mtu(dev->caps.eth_mtu_cap[num]);
	port->cadev.lkey = cpu_to_be32(mdev->mr.key);
	port->cadev.bf_size = dev->caps.bf_reg_size ?
			      cxb_mlx4_bf_buf_size(dev->caps.bf_reg_size) : 0;
	/* A0 steering gives each MAC table entry its own QP: no filter */
	if (dev->caps.steering_mode != MLX4_STEERING_MODE_A0) {
		port->cadev.max_uc = min(1U << dev->caps.log_num_macs,
					 CXB_MLX4_MAX_UC);
		port->cadev.max_mc = CXB_MLX4_MAX_MC;
	}
	/* the RSS QP spreads over 2^n consecutive receive QPs */
	port->cadev.rss_pow2 = true;
	port->cadev.rss_udp = !!(dev->caps.flags & MLX4_DEV_CAP_FLAG_UDP_RSS);
	/* LSO as mlx4_en offers it (en_main.c: LSO_support is the BLH
	 * capability), up to mlx4_core's max_gso_sz (fw.c)
	 */
	if (dev->caps.flags & MLX4_DEV_CAP_FLAG_BLH)
		port->cadev.max_gso_size = dev->caps.max_gso_sz;
	ether_addr_copy(port->cadev.mac, port->mac);
	/* as mlx4_en (en_ethtool.c) prints mlx4_core's caps.fw_ver */
	snprintf(port->cadev.fw_version, sizeof(port->cadev.fw_version),
		 "%u.%u.%u", (u16)(dev->caps.fw_ver >> 32),
		 (u16)(dev->caps.fw_ver >> 16), (u16)dev->caps.fw_ver);

	adev = &port->cadev.adev;
	adev->name = CXB_ADEV_NAME;
	adev->id = id;
	adev->dev.parent = &dev->persist->pdev->dev;
	adev->dev.release = cxb_mlx4_port_release;
	err = auxiliary_device_init(adev);
	if (err) {
		ida_free(&cxb_mlx4_ida, id);
		goto err_res;
	}
	/* From here on the release callback frees the port. It is
	 * published before the core can open it: a link change from then
	 * on finds it (cxb_mlx4_event()).
	 */
	cxb_mlx4_port_publish(mdev, num, port);
	err = auxiliary_device_add(adev);
	if (err) {
		cxb_mlx4_port_publish(mdev, num, NULL);
		cxb_mlx4_port_res_cleanup(port);
		auxiliary_device_uninit(adev);
		return err;
	}
	return 0;

err_res:
	cxb_mlx4_port_res_cleanup(port);
	mutex_destroy(&port->lock);
	kfree(port);
	return err;
}

static void cxb_mlx4_port_del(struct cxb_mlx4_dev *mdev, u8 num)
{
	struct cxb_mlx4_port *port = mdev->port[num];

	/* The core unbinds (closes, destroys its queues) in here. */
	auxiliary_device_delete(&port->cadev.adev);
	cxb_mlx4_port_publish(mdev, num, NULL);
	cxb_mlx4_port_res_cleanup(port);
	auxiliary_device_uninit(&port->cadev.adev);
}

static void cxb_mlx4_remove(struct mlx4_dev *dev, void *ctx)
{
	struct cxb_mlx4_dev *mdev = ctx;
	int i;

	for (i = 1; i <= MLX4_MAX_PORTS; i++)
		if (mdev->port[i])
			cxb_mlx4_port_del(mdev, i);
	cxb_mlx4_dev_res_cleanup(mdev);
	kfree(mdev);
}

/* Why cxbell cannot drive this adapter at all; NULL if it can. */
static const char *cxb_mlx4_unsupported(struct mlx4_dev *dev)
{
	if (mlx4_is_slave(dev))
		return "SR-IOV virtual functions are not supported";
	/* A PF with VFs (multi-function master) must put the destination
	 * MAC in each send WQE for the eSwitch and drop its own looped-back
	 * multicast (mlx4_en, en_tx.c / en_rx.c, MLX4_EN_FLAG_RX_FILTER_NEEDED);
	 * cxbell does neither.
	 */
	if (mlx4_is_master(dev))
		return "SR-IOV is enabled (mlx4_core num_vfs): not supported";
	/* The core parses 32-byte CQEs. */
	if (dev->caps.cqe_size != CXB_MLX4_CQE_SIZE)
		return "64-byte CQEs are enabled (load mlx4_core with enable_64b_cqe_eqe=0)";
	return NULL;
}

/* The adapter's resources; its ports come with activate(). NULL if
 * cxbell cannot drive the adapter or no port is left to it.
 */
static void *cxb_mlx4_add(struct mlx4_dev *dev)
{
	struct device *d = &dev->persist->pdev->dev;
	struct cxb_mlx4_dev *mdev;
	int i, err, nports = 0;
	const char *why;

	why = cxb_mlx4_unsupported(dev);
	if (why) {
		dev_info(d, CXB_MLX4_DRV ": %s, not using this adapter\n", why);
		return NULL;
	}
	mlx4_foreach_port(i, dev, MLX4_PORT_TYPE_ETH) {
		if (cxb_mlx4_port_taken(dev, i)) {
			dev_info(d, CXB_MLX4_DRV ": port %d is driven by another Ethernet driver (mlx4_en?), skipping it; 'modprobe -r mlx4_en' first to use cxbell\n",
				 i);
			continue;
		}
		nports++;
	}
	if (!nports)
		return NULL;
	mdev = kzalloc(sizeof(*mdev), GFP_KERNEL);
	if (!mdev)
		return NULL;
	mdev->dev = dev;
	spin_lock_init(&mdev->port_lock);
	err = cxb_mlx4_dev_res_init(mdev);
	if (err) {
		dev_err(d, CXB_MLX4_DRV ": adapter resources: %d\n", err);
		kfree(mdev);
		return NULL;
	}
	return mdev;
}

/* mlx4_core delivers the adapter's events to us now: offer its ports to
 * the core. A port the core opens from here on hears of every link
 * change (mlx4_en, too, creates its netdevs only once its events flow).
 */
static void cxb_mlx4_activate(struct mlx4_dev *dev, void *ctx)
{
	struct device *d = &dev->persist->pdev->dev;
	struct cxb_mlx4_dev *mdev = ctx;
	int i, err, nports = 0;

	mlx4_foreach_port(i, dev, MLX4_PORT_TYPE_ETH) {
		if (cxb_mlx4_port_taken(dev, i))
			continue;
		err = cxb_mlx4_port_add(mdev, i);
		if (err) {
			dev_err(d, CXB_MLX4_DRV ": port %d: %d\n", i, err);
			continue;
		}
		nports++;
	}
	dev_info(d, CXB_MLX4_DRV ": %d Ethernet port(s) offered to cxbell\n",
		 nports);
}

static void cxb_mlx4_event(struct mlx4_dev *dev, void *ctx,
			   enum mlx4_dev_event event, unsigned long param)
{
	struct cxb_mlx4_dev *mdev = ctx;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&mdev->port_lock, flags);
	switch (event) {
	case MLX4_DEV_EVENT_PORT_UP:
	case MLX4_DEV_EVENT_PORT_DOWN:
		if (param < 1 || param > MLX4_MAX_PORTS || !mdev->port[param])
			break;
		cxb_mlx4_port_link_event(mdev->port[param],
					 event == MLX4_DEV_EVENT_PORT_UP);
		break;
	case MLX4_DEV_EVENT_CATASTROPHIC_ERROR:
		for (i = 1; i <= MLX4_MAX_PORTS; i++)
			if (mdev->port[i])
				cxb_mlx4_port_link_event(mdev->port[i], false);
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&mdev->port_lock, flags);
}

static const struct cxb_mlx4_client cxb_mlx4_client = {
	.add		= cxb_mlx4_add,
	.activate	= cxb_mlx4_activate,
	.remove		= cxb_mlx4_remove,
	.event		= cxb_mlx4_event,
};

static int __init cxb_mlx4_init(void)
{
	return cxb_mlx4_client_register(&cxb_mlx4_client);
}

static void __exit cxb_mlx4_exit(void)
{
	cxb_mlx4_client_unregister();
	ida_destroy(&cxb_mlx4_ida);
}

module_init(cxb_mlx4_init);
module_exit(cxb_mlx4_exit);

MODULE_DESCRIPTION("cxbell backend for ConnectX-3 (mlx4_core client)");
MODULE_LICENSE("GPL");
MODULE_SOFTDEP("pre: cxbell");
