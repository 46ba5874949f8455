// SPDX-License-Identifier: GPL-2.0
/* cxbell: ConnectX Ethernet driver with a doorbell-frugal TX path.
 *
 * The core binds to the ports its backends offer on the auxiliary bus:
 * cxbell_sim (a software ConnectX-3, or ConnectX-4+ send queues) and
 * cxbell_mlx4 (a ConnectX-3 through mlx4_core). One netdev per port.
 */
#include <linux/module.h>

#include "cxbell.h"

static int cxb_probe(struct auxiliary_device *adev,
		     const struct auxiliary_device_id *id)
{
	return cxb_netdev_create(to_cxb_adev(adev));
}

static void cxb_remove(struct auxiliary_device *adev)
{
	cxb_netdev_destroy(to_cxb_adev(adev));
}

static const struct auxiliary_device_id cxb_id_table[] = {
	{ .name = "cxbell_sim." CXB_ADEV_NAME },
	{ .name = "cxbell_mlx4." CXB_ADEV_NAME },
	{ .name = "cxbell_mlx5." CXB_ADEV_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, cxb_id_table);

static struct auxiliary_driver cxb_driver = {
	.name = "eth",
	.probe = cxb_probe,
	.remove = cxb_remove,
	.id_table = cxb_id_table,
};

static int __init cxb_init(void)
{
	int err;

	cxb_debugfs_init();
	err = auxiliary_driver_register(&cxb_driver);
	if (err)
		cxb_debugfs_exit();
	return err;
}
module_init(cxb_init);

static void __exit cxb_exit(void)
{
	auxiliary_driver_unregister(&cxb_driver);
	cxb_debugfs_exit();
}
module_exit(cxb_exit);

MODULE_DESCRIPTION("cxbell ConnectX Ethernet driver");
MODULE_LICENSE("GPL");
