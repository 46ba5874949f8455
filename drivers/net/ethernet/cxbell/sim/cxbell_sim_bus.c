// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim bus: adapters and their ports.
 *
 *   echo "ID [NPORTS [GEN]]" > /sys/bus/cxbell_sim/new_device
 *	NPORTS 1..2 (2), GEN the adapter: cx3 (mlx4 formats, the default),
 *	cx5 (mlx5 formats, see cxbell_sim_mlx5.c) or cx4 (mlx5 formats,
 *	minimum inline mode L2, no multi-packet WQEs: a ConnectX-4)
 *   echo "ID" > /sys/bus/cxbell_sim/del_device
 *
 * Adapter ID is device "cxbell_sim<ID>" on bus "cxbell_sim", with its own
 * dma_map_ops. Each port is an auxiliary device "cxbell_sim.port.<2*ID+P>"
 * (a struct cxb_adev) whose parent is the adapter. Ports 0 and 1 are
 * cabled back to back.
 */
#include <linux/auxiliary_bus.h>
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/etherdevice.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>

#include "cxbell_sim.h"

struct workqueue_struct *cxb_sim_wq;

static LIST_HEAD(cxb_sim_adapters);
static DEFINE_MUTEX(cxb_sim_lock);	/* adapter list, cxb_sim_enabled */
static bool cxb_sim_enabled;

static struct bus_type cxb_sim_bus;

/* Ports */

static void cxb_sim_port_free(struct cxb_sim_port *port)
{
	/* closed by now (or never opened): no receive path reads it */
	kfree(rcu_dereference_protected(port->filter, true));
	kfree(rcu_dereference_protected(port->rss, true));
	vfree(port->regs);
	free_percpu(port->stats);
	kfree(port);
}

static void cxb_sim_port_release(struct device *dev)
{
	struct auxiliary_device *adev = to_auxiliary_dev(dev);

	cxb_sim_port_free(to_cxb_sim_port(to_cxb_adev(adev)));
}

static int cxb_sim_port_add(struct cxb_sim_adapter *ad, unsigned int index)
{
	struct auxiliary_device *adev;
	struct cxb_sim_port *port;
	struct cxb_adev *cadev;
	int err;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->ad = ad;
	port->index = index;
	atomic_set(&port->fault.err_syndrome, MLX4_CQE_SYNDROME_LOCAL_PROT_ERR);
	port->mtu = CXB_SIM_DEF_MTU;
	cxb_sim_port_link_init(port);
	cxb_sim_port_pause_init(port);
	port->stats = alloc_percpu(struct cxb_sim_stats);
	port->regs = vzalloc(CXB_SIM_REGS_SIZE);
	if (!port->stats || !port->regs) {
		cxb_sim_port_free(port);
		return -ENOMEM;
	}

	cadev = &port->cadev;
	cadev->ops = &cxb_sim_backend_ops;
	cadev->dma_dev = &ad->dev;
	cadev->gen = ad->gen;
	cadev->port = index;
	cadev->max_channels = CXB_SIM_MAX_CHANNELS;
	cadev->max_mtu = CXB_SIM_MAX_MTU;
	cadev->lkey = cpu_to_be32(CXB_SIM_LKEY);
	/* BlueFlame buffers of 256 bytes, both generations (an mlx5 one is
	 * half the 512-byte blue flame register, log_bf_reg_size 9)
	 */
	static_assert(CXB_SIM_BF_SIZE == CXB_MLX5_BF_SIZE);
	cadev->bf_size = CXB_SIM_BF_SIZE;
	/* a channel's UAR pages have room for a second SQ and a third CQ */
	cadev->has_xdpsq = true;
	cadev->max_uc = CXB_SIM_MAX_UC;
	cadev->max_mc = CXB_SIM_MAX_MC;
	cadev->rss_udp = true;
	/* LSO WQEs of up to 64 KiB, both generations (cxbell_sim_lso.c) */
	cadev->max_gso_size = CXB_SIM_LSO_MAX;
	cadev->min_inline = ad->min_inline;
	cadev->mpwqe = ad->mpwqe;
	cadev->mac[0] = 0x02;		/* locally administered */
	cadev->mac[1] = 0xcb;
	cadev->mac[2] = ad->id >> 8;
	cadev->mac[3] = ad->id & 0xff;
	cadev->mac[4] = index;
	cadev->mac[5] = 0;

	adev = &cadev->adev;
	adev->name = CXB_ADEV_NAME;
	adev->id = ad->id * CXB_SIM_MAX_PORTS + index;
	adev->dev.parent = &ad->dev;
	adev->dev.release = cxb_sim_port_release;
	err = auxiliary_device_init(adev);
	if (err) {
		cxb_sim_port_free(port);
		return err;
	}

	cxb_sim_debugfs_port_add(port);
	/* published before the driver can see the port */
	WRITE_ONCE(ad->ports[index], port);
	err = auxiliary_device_add(adev);
	if (err) {
		WRITE_ONCE(ad->ports[index], NULL);
		cxb_sim_debugfs_port_del(port);
		auxiliary_device_uninit(adev);
		return err;
	}
	return 0;
}

/* Adapters */

/* Adapters not released yet: module exit waits for them. */
static atomic_t cxb_sim_unreleased = ATOMIC_INIT(0);

/* The last reference is gone. A page_pool that maps with the adapter
 * holds one until every page it handed out came back (pages still in
 * skbs when the adapter was deleted), so the IOMMU model lives until
 * here: their late unmaps find their mappings, and what is left now was
 * leaked.
 */
static void cxb_sim_adapter_release(struct device *dev)
{
	struct cxb_sim_adapter *ad = to_cxb_sim_adapter(dev);

	cxb_sim_dma_teardown(ad);
	kfree(ad);
	if (atomic_dec_and_test(&cxb_sim_unreleased))
		wake_up_var(&cxb_sim_unreleased);
}

/* Tear an adapter down, also while traffic runs: the driver's remove
 * destroys the port's queues; whatever it leaves is reaped. The port
 * structures stay until no queue of either port exists, since a port's
 * TX engine delivers into its peer.
 */
static void cxb_sim_adapter_del(struct cxb_sim_adapter *ad)
{
	struct cxb_sim_port *port;
	unsigned int i;

	cancel_delayed_work_sync(&ad->stranded_work);
	for (i = 0; i < ad->nports; i++) {
		port = ad->ports[i];
		if (!port)
			continue;
		auxiliary_device_delete(&port->cadev.adev);
		cxb_sim_port_reap(port);
	}
	for (i = 0; i < ad->nports; i++)
		if (ad->ports[i])
			cxb_sim_port_pause_stop(ad->ports[i]);
	cxb_sim_debugfs_adapter_del(ad);
	cancel_delayed_work_sync(&ad->an_work);
	for (i = 0; i < ad->nports; i++) {
		port = ad->ports[i];
		if (!port)
			continue;
		WRITE_ONCE(ad->ports[i], NULL);
		auxiliary_device_uninit(&port->cadev.adev);
	}
	xa_destroy(&ad->cqs);
	ida_destroy(&ad->qpns);
	device_unregister(&ad->dev);
}

static int cxb_sim_adapter_new(u32 id, unsigned int nports,
			       unsigned int model)
{
	enum cxb_gen gen = model == 3 ? CXB_GEN_CX3 : CXB_GEN_CX5;
	struct cxb_sim_adapter *ad;
	unsigned int i;
	int err;

	ad = kzalloc(sizeof(*ad), GFP_KERNEL);
	if (!ad)
		return -ENOMEM;
	ad->id = id;
	ad->nports = nports;
	ad->gen = gen;
	/* ConnectX-4: L2 headers inline (the wqe_inline_mode capability
	 * MLX5_CAP_INLINE_MODE_L2), no enhanced multi-packet WQEs
	 */
	ad->min_inline = model == 4 ? CXB_MIN_INLINE_L2 : CXB_MIN_INLINE_NONE;
	ad->mpwqe = model == 5;
	ad->engine = CXB_SIM_ENGINE_INLINE;
	ad->cable = true;
	mutex_init(&ad->lock);
	xa_init_flags(&ad->cqs, XA_FLAGS_ALLOC);
	ida_init(&ad->qpns);
	INIT_DELAYED_WORK(&ad->stranded_work, cxb_sim_stranded_work);
	INIT_DELAYED_WORK(&ad->an_work, cxb_sim_an_work);

	device_initialize(&ad->dev);
	atomic_inc(&cxb_sim_unreleased);
	ad->dev.bus = &cxb_sim_bus;
	ad->dev.release = cxb_sim_adapter_release;
	cxb_sim_dma_init(ad);
	err = dev_set_name(&ad->dev, "cxbell_sim%u", id);
	if (!err)
		err = device_add(&ad->dev);
	if (err) {
		put_device(&ad->dev);
		return err;
	}
	cxb_sim_debugfs_adapter_add(ad);

	for (i = 0; i < nports; i++) {
		err = cxb_sim_port_add(ad, i);
		if (err) {
			cxb_sim_adapter_del(ad);
			return err;
		}
	}
	queue_delayed_work(cxb_sim_wq, &ad->stranded_work,
			   msecs_to_jiffies(CXB_SIM_STRANDED_PERIOD_MS));
	list_add_tail(&ad->list, &cxb_sim_adapters);
	return 0;
}

static struct cxb_sim_adapter *cxb_sim_adapter_find(u32 id)
{
	struct cxb_sim_adapter *ad;

	list_for_each_entry(ad, &cxb_sim_adapters, list)
		if (ad->id == id)
			return ad;
	return NULL;
}

/* Bus attributes */

/* Parse up to @max decimal numbers separated by blanks. */
static int cxb_sim_parse(const char *buf, size_t count, unsigned int *val,
			 int max)
{
	char tmp[32], *s, *tok;
	int n = 0, err;

	if (count >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, count);
	tmp[count] = '\0';
	s = strim(tmp);
	while ((tok = strsep(&s, " \t")) != NULL) {
		if (!*tok)
			continue;
		if (n == max)
			return -EINVAL;
		err = kstrtouint(tok, 10, &val[n++]);
		if (err)
			return -EINVAL;
	}
	return n ? n : -EINVAL;
}

/* A trailing adapter token ("cx3", "cx4", "cx5") of @buf: its number (3
 * without one, 0 if it is none of these), and @count cut to what precedes
 * it.
 */
static unsigned int cxb_sim_parse_model(const char *buf, size_t *count)
{
	size_t n = *count;

	while (n && isspace(buf[n - 1]))
		n--;
	if (n < 3 || strncmp(buf + n - 3, "cx", 2) ||
	    (n > 3 && !isspace(buf[n - 4])))
		return 3;
	*count = n - 3;
	switch (buf[n - 1]) {
	case '3':
		return 3;
	case '4':
		return 4;
	case '5':
		return 5;
	}
	return 0;
}

static ssize_t new_device_store(CXB_BUS_CONST struct bus_type *bus,
				const char *buf, size_t count)
{
	unsigned int val[2] = { 0, CXB_SIM_MAX_PORTS };
	size_t len = count;
	unsigned int model;
	int n, err;

	model = cxb_sim_parse_model(buf, &len);
	if (!model)
		return -EINVAL;
	n = cxb_sim_parse(buf, len, val, ARRAY_SIZE(val));
	if (n < 0)
		return n;
	if (val[0] > CXB_SIM_MAX_ID || !val[1] || val[1] > CXB_SIM_MAX_PORTS)
		return -EINVAL;

	mutex_lock(&cxb_sim_lock);
	if (!cxb_sim_enabled)
		err = -ENODEV;
	else if (cxb_sim_adapter_find(val[0]))
		err = -EEXIST;
	else
		err = cxb_sim_adapter_new(val[0], val[1], model);
	mutex_unlock(&cxb_sim_lock);
	return err ? err : count;
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(CXB_BUS_CONST struct bus_type *bus,
				const char *buf, size_t count)
{
	struct cxb_sim_adapter *ad;
	unsigned int id;
	int n, err = 0;

	n = cxb_sim_parse(buf, count, &id, 1);
	if (n < 0)
		return n;

	mutex_lock(&cxb_sim_lock);
	ad = cxb_sim_enabled ? cxb_sim_adapter_find(id) : NULL;
	if (ad) {
		list_del(&ad->list);
		cxb_sim_adapter_del(ad);
	} else {
		err = -ENOENT;
	}
	mutex_unlock(&cxb_sim_lock);
	return err ? err : count;
}
static BUS_ATTR_WO(del_device);

static struct attribute *cxb_sim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL
};
ATTRIBUTE_GROUPS(cxb_sim_bus);

static struct bus_type cxb_sim_bus = {
	.name		= KBUILD_MODNAME,
	.bus_groups	= cxb_sim_bus_groups,
};

static int __init cxb_sim_init(void)
{
	int err;

	cxb_sim_wq = alloc_workqueue(KBUILD_MODNAME, WQ_UNBOUND, 0);
	if (!cxb_sim_wq)
		return -ENOMEM;
	cxb_sim_clock_calibrate();
	cxb_sim_debugfs_init();
	err = bus_register(&cxb_sim_bus);
	if (err) {
		cxb_sim_debugfs_exit();
		destroy_workqueue(cxb_sim_wq);
		return err;
	}
	mutex_lock(&cxb_sim_lock);
	cxb_sim_enabled = true;
	mutex_unlock(&cxb_sim_lock);
	return 0;
}

static void __exit cxb_sim_exit(void)
{
	struct cxb_sim_adapter *ad, *tmp;

	mutex_lock(&cxb_sim_lock);
	cxb_sim_enabled = false;
	list_for_each_entry_safe(ad, tmp, &cxb_sim_adapters, list) {
		list_del(&ad->list);
		cxb_sim_adapter_del(ad);
	}
	mutex_unlock(&cxb_sim_lock);
	/* Their release is this module's code: wait for page pools still
	 * holding an adapter (pages in flight in the stack).
	 */
	while (!wait_var_event_timeout(&cxb_sim_unreleased,
				       !atomic_read(&cxb_sim_unreleased),
				       10 * HZ))
		pr_info("cxbell_sim: waiting for %d adapters still referenced\n",
			atomic_read(&cxb_sim_unreleased));

	bus_unregister(&cxb_sim_bus);
	cxb_sim_debugfs_exit();
	destroy_workqueue(cxb_sim_wq);
	rcu_barrier();		/* SQ frees queued with call_rcu() */
}

module_init(cxb_sim_init);
module_exit(cxb_sim_exit);

MODULE_DESCRIPTION("cxbell_sim: software ConnectX-3 and ConnectX-4+ device model for cxbell");
MODULE_LICENSE("GPL");
