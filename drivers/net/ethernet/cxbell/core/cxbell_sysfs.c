// SPDX-License-Identifier: GPL-2.0
/* cxbell: /sys/class/net/<if>/doorbell_opt, doorbell_defer_max */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sysfs.h>

#include "cxbell.h"

static ssize_t doorbell_opt_show(struct device *d,
				 struct device_attribute *attr, char *buf)
{
	struct cxb_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%u\n", READ_ONCE(priv->db_opt));
}

static ssize_t doorbell_opt_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t len)
{
	struct net_device *dev = to_net_dev(d);
	struct cxb_priv *priv = netdev_priv(dev);
	u32 val;

	if (!ns_capable(dev_net(dev)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	/* Overflow (-ERANGE) is just another invalid value here. */
	if (kstrtou32(buf, 10, &val) || val & ~CXB_DB_OPT_MASK)
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	if (val != priv->db_opt) {
		priv->db_opt = val;
		cxb_apply_tx_policy(priv);
	}
	rtnl_unlock();
	return len;
}
static DEVICE_ATTR_RW(doorbell_opt);

/* The most TXBBs doorbell avoidance may leave unannounced (the ring's
 * quarter bounds it too): 1..8192.
 */
static ssize_t doorbell_defer_max_show(struct device *d,
				       struct device_attribute *attr, char *buf)
{
	struct cxb_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%u\n", READ_ONCE(priv->db_defer_max));
}

static ssize_t doorbell_defer_max_store(struct device *d,
					struct device_attribute *attr,
					const char *buf, size_t len)
{
	struct net_device *dev = to_net_dev(d);
	struct cxb_priv *priv = netdev_priv(dev);
	u32 val;

	if (!ns_capable(dev_net(dev)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (kstrtou32(buf, 10, &val) || !val || val > CXB_MAX_DB_DEFER_MAX)
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	if (val != priv->db_defer_max) {
		priv->db_defer_max = val;
		cxb_apply_tx_policy(priv);
	}
	rtnl_unlock();
	return len;
}
static DEVICE_ATTR_RW(doorbell_defer_max);

static struct attribute *cxb_sysfs_attrs[] = {
	&dev_attr_doorbell_opt.attr,
	&dev_attr_doorbell_defer_max.attr,
	NULL
};

const struct attribute_group cxb_sysfs_group = {
	.attrs = cxb_sysfs_attrs,
};
