// SPDX-License-Identifier: GPL-2.0
/* cxbell_mlx5: auxiliary driver for mlx5_core's Ethernet functions,
 * offering their ports to the cxbell core.
 *
 * probe() runs when a "mlx5_core.eth.N" device is bound to
 * "cxbell_mlx5.eth" (mlx5e, which mlx5_core registers first, unbound from
 * it): it checks that cxbell can drive the function, allocates what
 * mlx5e's mlx5e_create_mdev_resources() does (PD, transport domain, a
 * physical-address mkey) and a TIS, and offers the port as a
 * "cxbell_mlx5.port" auxiliary device, which the core binds. Port change
 * events of mlx5_core reach the core as link changes. remove() deletes
 * the port (the core unbinds first) and frees the function's objects in
 * reverse.
 */
#include <linux/etherdevice.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/mlx5/port.h>
#include <linux/mlx5/vport.h>

#include "cxbell_mlx5.h"
#include "cxbell_mlx5_compat.h"

static DEFINE_IDA(cxb_mlx5_ida);

static void cxb_mlx5_port_release(struct device *d)
{
	struct auxiliary_device *adev = to_auxiliary_dev(d);
	struct cxb_mlx5_port *port = to_cxb_mlx5_port(to_cxb_adev(adev));

	ida_free(&cxb_mlx5_ida, adev->id);
	mutex_destroy(&port->lock);
	kfree(port);
}

/* Why cxbell cannot drive this function; NULL if it can. */
static const char *cxb_mlx5_unsupported(struct mlx5_core_dev *mdev,
					u8 min_inline)
{
	if (MLX5_CAP_GEN(mdev, port_type) != MLX5_CAP_PORT_TYPE_ETH)
		return "not an Ethernet port";
	if (!mlx5_core_is_pf(mdev))
		return "virtual functions are not supported";
	/* A PF with VFs must list its addresses in the vport context for
	 * the eSwitch (mlx5_modify_nic_vport_mac_list()); cxbell does not.
	 */
	if (pci_num_vf(mdev->pdev))
		return "SR-IOV is enabled: not supported";
	/* the core's doorbell alternates by 256 bytes (CXB_MLX5_DB_ALT) */
	if (MLX5_CAP_GEN(mdev, log_bf_reg_size) != 9)
		return "blue flame register size other than 512 bytes";
	if (min_inline > MLX5_INLINE_MODE_L2)
		return "minimum inline mode IP or TCP/UDP (eSwitch vport context)";
	return NULL;
}

/* The vport's state (QUERY_VPORT_STATE; mlx5_query_vport_state() is
 * mlx5_core's own): the link as mlx5e reports carrier.
 */
int cxb_mlx5_query_link(struct cxb_mlx5_port *port, bool *up)
{
	u32 out[MLX5_ST_SZ_DW(query_vport_state_out)] = {};
	u32 in[MLX5_ST_SZ_DW(query_vport_state_in)] = {};
	int err;

	MLX5_SET(query_vport_state_in, in, opcode,
		 MLX5_CMD_OP_QUERY_VPORT_STATE);
	MLX5_SET(query_vport_state_in, in, op_mod,
		 MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT);
	err = mlx5_cmd_exec_inout(port->mdev, query_vport_state, in, out);
	if (err)
		return err;
	*up = MLX5_GET(query_vport_state_out, out, state) == VPORT_STATE_UP;
	return 0;
}

static void cxb_mlx5_link_work(struct work_struct *work)
{
	struct cxb_mlx5_port *port = container_of(work, struct cxb_mlx5_port,
						  link_work);
	bool up = false;

	if (cxb_mlx5_query_link(port, &up))
		up = false;
	spin_lock_irq(&port->link_lock);
	port->link_up = up;
	if (port->link_cb)
		port->link_cb(port->link_ctx);
	spin_unlock_irq(&port->link_lock);
}

/* mlx5_core's events, in atomic context: a port change has the vport
 * state re-read (mlx5e_async_event() queues its carrier update alike).
 */
static int cxb_mlx5_event(struct notifier_block *nb, unsigned long event,
			  void *data)
{
	struct cxb_mlx5_port *port = container_of(nb, struct cxb_mlx5_port,
						  nb);
	struct mlx5_eqe *eqe = data;

	if (event != MLX5_EVENT_TYPE_PORT_CHANGE)
		return NOTIFY_DONE;
	switch (eqe->sub_type) {
	case MLX5_PORT_CHANGE_SUBTYPE_DOWN:
	case MLX5_PORT_CHANGE_SUBTYPE_ACTIVE:
		schedule_work(&port->link_work);
		return NOTIFY_OK;
	default:
		return NOTIFY_DONE;
	}
}

static unsigned int cxb_mlx5_max_mtu(struct mlx5_core_dev *mdev)
{
	u16 hw = 0;

	mlx5_query_port_max_mtu(mdev, &hw, 1);
	if (hw <= CXB_MLX5_HARD_MTU + ETH_MIN_MTU)
		return ETH_DATA_LEN;
	return hw - CXB_MLX5_HARD_MTU;
}

static void cxb_mlx5_port_caps(struct cxb_mlx5_port *port)
{
	struct mlx5_core_dev *mdev = port->mdev;
	struct cxb_adev *c = &port->cadev;

	c->ops = &cxb_mlx5_ops;
	c->dma_dev = mdev->device;
	c->gen = CXB_GEN_CX5;
	c->port = 0;
	c->max_channels = clamp(cxb_mlx5_comp_vectors(mdev), 1U,
				CXB_MLX5_MAX_CHANNELS);
	c->max_mtu = cxb_mlx5_max_mtu(mdev);
	c->lkey = cpu_to_be32(port->mkey);
	/* no BlueFlame (bf_size 0): cxbell_mlx5_res.c, cxb_mlx5_sq_create() */
	c->has_xdpsq = true;
	c->max_uc = CXB_MLX5_MAX_UC;
	c->max_mc = CXB_MLX5_MAX_MC;
	c->rss_udp = true;
	/* LSO as mlx5e offers it, up to max_lso_cap (log2 bytes) */
	if (MLX5_CAP_ETH(mdev, max_lso_cap))
		c->max_gso_size = min_t(u32,
					BIT(MLX5_CAP_ETH(mdev, max_lso_cap)),
					GSO_LEGACY_MAX_SIZE);
	c->min_inline = port->min_inline == MLX5_INLINE_MODE_L2 ?
			CXB_MIN_INLINE_L2 : CXB_MIN_INLINE_NONE;
	c->mpwqe = MLX5_CAP_ETH(mdev, enhanced_multi_pkt_send_wqe);
	/* as mlx5e's ethtool -i */
	snprintf(c->fw_version, sizeof(c->fw_version), "%d.%d.%04d",
		 fw_rev_maj(mdev), fw_rev_min(mdev), fw_rev_sub(mdev));
}

static int cxb_mlx5_probe(struct auxiliary_device *adev,
			  const struct auxiliary_device_id *id)
{
	struct mlx5_adev *madev = container_of(adev, struct mlx5_adev, adev);
	struct mlx5_core_dev *mdev = madev->mdev;
	struct auxiliary_device *padev;
	struct cxb_mlx5_port *port;
	const char *why;
	u8 min_inline;
	int err, pid;

	mlx5_query_min_inline(mdev, &min_inline);
	why = cxb_mlx5_unsupported(mdev, min_inline);
	if (why) {
		dev_info(&adev->dev, CXB_MLX5_DRV ": %s, not using this function\n",
			 why);
		return -EOPNOTSUPP;
	}

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->madev = madev;
	port->mdev = mdev;
	port->min_inline = min_inline;
	port->mtu = ETH_DATA_LEN;
	mutex_init(&port->lock);
	spin_lock_init(&port->link_lock);
	INIT_WORK(&port->link_work, cxb_mlx5_link_work);
	spin_lock_init(&port->stats_lock);
	INIT_WORK(&port->stats_work, cxb_mlx5_stats_work);
	netdev_rss_key_fill(port->rss.key, sizeof(port->rss.key));

	err = mlx5_query_mac_address(mdev, port->cadev.mac);
	if (err)
		goto err_free;
	err = cxb_mlx5_port_res_init(port);
	if (err)
		goto err_free;
	cxb_mlx5_port_caps(port);

	pid = ida_alloc(&cxb_mlx5_ida, GFP_KERNEL);
	if (pid < 0) {
		err = pid;
		goto err_res;
	}
	padev = &port->cadev.adev;
	padev->name = CXB_ADEV_NAME;
	padev->id = pid;
	padev->dev.parent = &adev->dev;
	padev->dev.release = cxb_mlx5_port_release;
	err = auxiliary_device_init(padev);
	if (err) {
		ida_free(&cxb_mlx5_ida, pid);
		goto err_res;
	}
	/* from here on the release callback frees the port */
	port->nb.notifier_call = cxb_mlx5_event;
	mlx5_notifier_register(mdev, &port->nb);
	/* named for the module whatever builds it (a test build links this
	 * file into another): the core binds "cxbell_mlx5.port"
	 */
	err = __auxiliary_device_add(padev, CXB_MLX5_DRV);
	if (err) {
		mlx5_notifier_unregister(mdev, &port->nb);
		cancel_work_sync(&port->link_work);
		cancel_work_sync(&port->stats_work);
		cxb_mlx5_port_res_cleanup(port);
		auxiliary_device_uninit(padev);
		return err;
	}
	auxiliary_set_drvdata(adev, port);
	dev_info(&adev->dev, CXB_MLX5_DRV ": port %pM offered to cxbell (%u channels, MPWQE %s, minimum inline %s)\n",
		 port->cadev.mac, port->cadev.max_channels,
		 port->cadev.mpwqe ? "yes" : "no",
		 min_inline == MLX5_INLINE_MODE_L2 ? "L2" : "none");
	return 0;

err_res:
	cxb_mlx5_port_res_cleanup(port);
err_free:
	mutex_destroy(&port->lock);
	kfree(port);
	return err;
}

static void cxb_mlx5_remove(struct auxiliary_device *adev)
{
	struct cxb_mlx5_port *port = auxiliary_get_drvdata(adev);

	/* The core unbinds (closes, destroys its queues) in here. */
	auxiliary_device_delete(&port->cadev.adev);
	mlx5_notifier_unregister(port->mdev, &port->nb);
	cancel_work_sync(&port->link_work);
	cancel_work_sync(&port->stats_work);
	cxb_mlx5_port_res_cleanup(port);
	auxiliary_device_uninit(&port->cadev.adev);
}

static const struct auxiliary_device_id cxb_mlx5_id_table[] = {
	{ .name = MLX5_ADEV_NAME ".eth" },
	{},
};
MODULE_DEVICE_TABLE(auxiliary, cxb_mlx5_id_table);

static struct auxiliary_driver cxb_mlx5_driver = {
	.name = "eth",
	.probe = cxb_mlx5_probe,
	.remove = cxb_mlx5_remove,
	.id_table = cxb_mlx5_id_table,
};

static int __init cxb_mlx5_init(void)
{
	return auxiliary_driver_register(&cxb_mlx5_driver);
}

static void __exit cxb_mlx5_exit(void)
{
	auxiliary_driver_unregister(&cxb_mlx5_driver);
	ida_destroy(&cxb_mlx5_ida);
}

module_init(cxb_mlx5_init);
module_exit(cxb_mlx5_exit);

MODULE_DESCRIPTION("cxbell backend for ConnectX-4 and later (mlx5_core auxiliary driver)");
MODULE_LICENSE("GPL");
MODULE_SOFTDEP("pre: cxbell");
