// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim counters and debugfs.
 *
 * /sys/kernel/debug/cxbell_sim/
 *   dma_live                    live DMA mappings of all adapters, plus
 *                               those leaked by deleted adapters
 *   cxbell_sim<ID>/engine       "inline" or "deferred" (rw)
 *   cxbell_sim<ID>/dma_live     live DMA mappings of the adapter
 *   cxbell_sim<ID>/iommu        strict (tracked mappings) | passthrough
 *   cxbell_sim<ID>/dma_ns       time spent in streaming map/unmap ops
 *   cxbell_sim<ID>/dma_calls    streaming map/unmap calls
 *   cxbell_sim<ID>/reset_counters  write 1: zero all port counters and
 *                               dma_ns, dma_calls
 *   cxbell_sim<ID>/port<P>/<counter>  read-only u64 counters
 *   cxbell_sim<ID>/port<P>/pause  802.3x pause, Y/N (rw, kstrtobool
 *                               input; default Y), Documentation/sim.rst
 *   cxbell_sim<ID>/cable        Y: the ports are cabled (default), N:
 *                               unplugged, no link (rw, kstrtobool)
 *   cxbell_sim<ID>/fault/       adapter fault knobs (rw, decimal):
 *     dma_map_fail              the next N streaming maps fail
 *     dma_map_fail_nth          the Nth DMA_TO_DEVICE map from now fails
 *     dma_map_failed            (ro) maps failed so far
 *     engine_delay_us           deferred engine: wait before each pass
 *     destroy_delay_ms          send queue destroy returns this much later
 *   cxbell_sim<ID>/port<P>/fault/  port fault knobs (rw, decimal; the
 *                               "next N" ones count down, 0 is off):
 *     err_cqe, err_cqe_every    next N / every Nth send completion is an
 *                               error CQE; the queue stops (error state)
 *     err_cqe_syndrome          its syndrome (default 0x04, LOCAL_PROT)
 *     lose_cqe                  next N send CQEs are not written
 *     lose_irq                  next N interrupts are not raised
 *     lose_doorbell             next N send doorbells / BF writes ignored
 *     rx_no_buf                 next N arriving frames find no RX WQE
 *     rx_err_cqe                next N receive completions are error CQEs
 *     rx_bad_fcs                next N received frames are flagged bad FCS
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cxbell_sim.h"

static const char * const cxb_sim_cnt_names[CXB_SIM_NR_CNT] = {
	[CXB_SIM_C_DOORBELLS]		= "doorbells",
	[CXB_SIM_C_BF_WRITES]		= "bf_writes",
	[CXB_SIM_C_BF_INELIGIBLE]	= "bf_ineligible",
	[CXB_SIM_C_BF_MISMATCH]		= "bf_mismatch",
	[CXB_SIM_C_BF_LAYOUT_BY_DB]	= "bf_layout_by_doorbell",
	[CXB_SIM_C_WQES_FETCHED]	= "wqes_fetched",
	[CXB_SIM_C_NOP_WQES]		= "nop_wqes",
	[CXB_SIM_C_NOP_NO_NEC]		= "nop_without_nec",
	[CXB_SIM_C_INLINE_WQES]		= "inline_wqes",
	[CXB_SIM_C_CQES_WRITTEN]	= "cqes_written",
	[CXB_SIM_C_IRQS]		= "irqs",
	[CXB_SIM_C_VIOLATIONS]		= "violations",
	[CXB_SIM_C_STRANDED]		= "stranded",
	[CXB_SIM_C_TX_FRAMES]		= "tx_frames",
	[CXB_SIM_C_TX_BYTES]		= "tx_bytes",
	[CXB_SIM_C_RX_FRAMES]		= "rx_frames",
	[CXB_SIM_C_RX_BYTES]		= "rx_bytes",
	[CXB_SIM_C_RX_DROPPED]		= "rx_dropped",
	[CXB_SIM_C_TX_DISCARDED]	= "tx_discarded",
	[CXB_SIM_C_TX_UNREPORTED]	= "tx_unreported",
	[CXB_SIM_C_TX_PAUSED]		= "tx_paused",
	[CXB_SIM_C_RX_PAUSE]		= "rx_pause",
	[CXB_SIM_C_PCIE_MMIO]		= "pcie_mmio_bytes",
	[CXB_SIM_C_PCIE_DESC_READ]	= "pcie_desc_read_bytes",
	[CXB_SIM_C_PCIE_DATA_READ]	= "pcie_data_read_bytes",
	[CXB_SIM_C_PCIE_CQE_WRITE]	= "pcie_cqe_write_bytes",
	[CXB_SIM_C_PCIE_DATA_WRITE]	= "pcie_data_write_bytes",
	[CXB_SIM_C_PCIE_DB_READ]	= "pcie_db_read_bytes",
	[CXB_SIM_C_PCIE_TLP_OVERHEAD]	= "pcie_tlp_overhead_bytes",
	[CXB_SIM_C_ENGINE_NS]		= "engine_ns",
	[CXB_SIM_C_ERR_CQES]		= "err_cqes",
	[CXB_SIM_C_CQES_LOST]		= "cqes_lost",
	[CXB_SIM_C_IRQS_LOST]		= "irqs_lost",
	[CXB_SIM_C_DOORBELLS_LOST]	= "doorbells_lost",
	[CXB_SIM_C_RX_NO_BUF]		= "rx_no_buf",
	[CXB_SIM_C_RX_ERR_CQES]		= "rx_err_cqes",
	[CXB_SIM_C_RX_BAD_FCS]		= "rx_bad_fcs",
	[CXB_SIM_C_MPW_WQES]		= "mpwqe_wqes",
	[CXB_SIM_C_MPW_PKTS]		= "mpwqe_pkts",
	[CXB_SIM_C_ARMS_STALE]		= "arms_stale",
	[CXB_SIM_C_IRQS_TIMER]		= "irqs_timer",
	[CXB_SIM_C_IRQS_ARM]		= "irqs_arm",
	[CXB_SIM_C_MODER_TIMER]		= "moder_timer_runs",
	[CXB_SIM_C_RX_FILTERED]		= "rx_filtered",
	[CXB_SIM_C_TX_VLAN_INSERTED]	= "tx_vlan_inserted",
	[CXB_SIM_C_RX_VLAN_STRIPPED]	= "rx_vlan_stripped",
	[CXB_SIM_C_TX_LSO_WQES]		= "tx_lso_wqes",
	[CXB_SIM_C_TX_LSO_SEGMENTS]	= "tx_lso_segments",
};

static struct dentry *cxb_sim_droot;

void cxb_sim_violation(struct cxb_sim_port *port, const char *fmt, ...)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	struct va_format vaf;
	va_list args;

	cxb_sim_inc(port, CXB_SIM_C_VIOLATIONS);
	if (!__ratelimit(&rs))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	dev_warn(&port->cadev.adev.dev, "violation: %pV\n", &vaf);
	va_end(args);
}

u64 cxb_sim_cnt_read(struct cxb_sim_port *port, enum cxb_sim_cnt c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(port->stats, cpu)->v[c];
	return sum;
}

void cxb_sim_cnt_reset(struct cxb_sim_port *port)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(port->stats, cpu), 0,
		       sizeof(struct cxb_sim_stats));
}

static int cxb_sim_cnt_get(void *data, u64 *val)
{
	struct cxb_sim_cnt_file *f = data;

	*val = cxb_sim_cnt_read(f->port, f->idx);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cxb_sim_cnt_fops, cxb_sim_cnt_get, NULL, "%llu\n");

static int cxb_sim_live_get(void *data, u64 *val)
{
	*val = atomic_long_read((atomic_long_t *)data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cxb_sim_live_fops, cxb_sim_live_get, NULL, "%llu\n");

static ssize_t cxb_sim_iommu_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct cxb_sim_adapter *ad = file->private_data;
	const char *mode = READ_ONCE(ad->iommu_pt) ? "passthrough\n" :
						      "strict\n";

	return simple_read_from_buffer(ubuf, count, ppos, mode, strlen(mode));
}

/* "strict" or "passthrough"; only while the adapter has no live mapping
 * (no port up), -EBUSY otherwise.
 */
static ssize_t cxb_sim_iommu_write(struct file *file,
				   const char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct cxb_sim_adapter *ad = file->private_data;
	char buf[16];
	ssize_t len;
	bool pt;

	len = simple_write_to_buffer(buf, sizeof(buf) - 1, ppos, ubuf, count);
	if (len < 0)
		return len;
	buf[len] = '\0';
	if (sysfs_streq(buf, "passthrough"))
		pt = true;
	else if (sysfs_streq(buf, "strict"))
		pt = false;
	else
		return -EINVAL;

	mutex_lock(&ad->lock);
	if (pt != ad->iommu_pt && atomic_long_read(&ad->dma_live)) {
		mutex_unlock(&ad->lock);
		return -EBUSY;
	}
	WRITE_ONCE(ad->iommu_pt, pt);
	mutex_unlock(&ad->lock);
	return count;
}

static const struct file_operations cxb_sim_iommu_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = cxb_sim_iommu_read,
	.write = cxb_sim_iommu_write,
	.llseek = default_llseek,
};

static int cxb_sim_atomic64_get(void *data, u64 *val)
{
	*val = atomic64_read((atomic64_t *)data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cxb_sim_atomic64_fops, cxb_sim_atomic64_get, NULL,
			 "%llu\n");

static int cxb_sim_reset_set(void *data, u64 val)
{
	struct cxb_sim_adapter *ad = data;
	unsigned int i;

	if (val != 1)
		return -EINVAL;
	for (i = 0; i < ad->nports; i++)
		if (ad->ports[i])
			cxb_sim_cnt_reset(ad->ports[i]);
	atomic64_set(&ad->dma_ns, 0);
	atomic64_set(&ad->dma_calls, 0);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cxb_sim_reset_fops, NULL, cxb_sim_reset_set,
			 "%llu\n");

static const char * const cxb_sim_engine_names[] = {
	[CXB_SIM_ENGINE_INLINE]		= "inline",
	[CXB_SIM_ENGINE_DEFERRED]	= "deferred",
};

static ssize_t cxb_sim_engine_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct cxb_sim_adapter *ad = file->private_data;
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%s\n",
			cxb_sim_engine_names[READ_ONCE(ad->engine)]);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t cxb_sim_engine_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct cxb_sim_adapter *ad = file->private_data;
	char buf[16];
	int mode;

	if (*ppos || !count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	mode = sysfs_match_string(cxb_sim_engine_names, buf);
	if (mode < 0)
		return -EINVAL;
	WRITE_ONCE(ad->engine, mode);
	*ppos += count;
	return count;
}

static const struct file_operations cxb_sim_engine_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cxb_sim_engine_read,
	.write	= cxb_sim_engine_write,
	.llseek	= default_llseek,
};

static ssize_t cxb_sim_pause_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct cxb_sim_port *port = file->private_data;
	char buf[2] = { READ_ONCE(port->pause) ? 'Y' : 'N', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static ssize_t cxb_sim_pause_write(struct file *file,
				   const char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct cxb_sim_port *port = file->private_data;
	bool on;
	int err;

	err = kstrtobool_from_user(ubuf, count, &on);
	if (err)
		return err;
	cxb_sim_port_set_pause(port, on);
	return count;
}

/* port<P>/speed: the fastest speed of the port's module, Mb/s */
static ssize_t cxb_sim_speed_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct cxb_sim_port *port = file->private_data;
	char buf[16];
	int n;

	n = scnprintf(buf, sizeof(buf), "%u\n", READ_ONCE(port->speed));
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static ssize_t cxb_sim_speed_write(struct file *file,
				   const char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct cxb_sim_port *port = file->private_data;
	u32 speed;
	int err;

	err = kstrtou32_from_user(ubuf, count, 0, &speed);
	if (err)
		return err;
	err = cxb_sim_port_set_speed(port, speed);
	return err ? err : count;
}

static const struct file_operations cxb_sim_speed_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cxb_sim_speed_read,
	.write	= cxb_sim_speed_write,
	.llseek	= default_llseek,
};

static const struct file_operations cxb_sim_pause_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cxb_sim_pause_read,
	.write	= cxb_sim_pause_write,
	.llseek	= default_llseek,
};

/* Fault knobs: an atomic_t each, bounded; a rejected write leaves it. */
static int cxb_sim_knob_get(void *data, u64 *val)
{
	*val = atomic_read((atomic_t *)data);
	return 0;
}

static int cxb_sim_knob_set_max(void *data, u64 val, u64 max)
{
	if (val > max)
		return -ERANGE;
	atomic_set((atomic_t *)data, val);
	return 0;
}

static int cxb_sim_knob_set(void *data, u64 val)
{
	return cxb_sim_knob_set_max(data, val, INT_MAX);
}
DEFINE_DEBUGFS_ATTRIBUTE(cxb_sim_knob_fops, cxb_sim_knob_get,
			 cxb_sim_knob_set, "%llu\n");

static int cxb_sim_syndrome_set(void *data, u64 val)
{
	return cxb_sim_knob_set_max(data, val, U8_MAX);
}
DEFINE_DEBUGFS_ATTRIBUTE(cxb_sim_syndrome_fops, cxb_sim_knob_get,
			 cxb_sim_syndrome_set, "%#llx\n");

static int cxb_sim_delay_set(void *data, u64 val)
{
	return cxb_sim_knob_set_max(data, val, CXB_SIM_MAX_DELAY_US);
}
DEFINE_DEBUGFS_ATTRIBUTE(cxb_sim_delay_fops, cxb_sim_knob_get,
			 cxb_sim_delay_set, "%llu\n");

static int cxb_sim_destroy_delay_set(void *data, u64 val)
{
	return cxb_sim_knob_set_max(data, val, CXB_SIM_MAX_DESTROY_MS);
}
DEFINE_DEBUGFS_ATTRIBUTE(cxb_sim_destroy_delay_fops, cxb_sim_knob_get,
			 cxb_sim_destroy_delay_set, "%llu\n");

static void cxb_sim_debugfs_port_faults(struct cxb_sim_port *port)
{
	struct cxb_sim_fault *f = &port->fault;
	struct dentry *d = debugfs_create_dir("fault", port->ddir);

	debugfs_create_file_unsafe("err_cqe", 0600, d, &f->err_cqe,
				   &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("err_cqe_every", 0600, d, &f->err_cqe_every,
				   &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("err_cqe_syndrome", 0600, d,
				   &f->err_syndrome, &cxb_sim_syndrome_fops);
	debugfs_create_file_unsafe("lose_cqe", 0600, d, &f->lose_cqe,
				   &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("lose_irq", 0600, d, &f->lose_irq,
				   &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("lose_doorbell", 0600, d, &f->lose_doorbell,
				   &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("rx_no_buf", 0600, d, &f->rx_no_buf,
				   &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("rx_err_cqe", 0600, d, &f->rx_err_cqe,
				   &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("rx_bad_fcs", 0600, d, &f->rx_bad_fcs,
				   &cxb_sim_knob_fops);
}

static ssize_t cxb_sim_cable_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct cxb_sim_adapter *ad = file->private_data;
	char buf[2] = { READ_ONCE(ad->cable) ? 'Y' : 'N', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static ssize_t cxb_sim_cable_write(struct file *file,
				   const char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct cxb_sim_adapter *ad = file->private_data;
	bool in;
	int err;

	err = kstrtobool_from_user(ubuf, count, &in);
	if (err)
		return err;
	cxb_sim_set_cable(ad, in);
	return count;
}

static const struct file_operations cxb_sim_cable_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cxb_sim_cable_read,
	.write	= cxb_sim_cable_write,
	.llseek	= default_llseek,
};

/* port<P>/rx_filter: what the driver programmed, as the receive path
 * sees it ("none" while closed)
 */
static int cxb_sim_rx_filter_show(struct seq_file *m, void *v)
{
	struct cxb_sim_port *port = m->private;
	const struct cxb_sim_filter *f;
	unsigned int i;

	rcu_read_lock();
	f = rcu_dereference(port->filter);
	if (!f) {
		seq_puts(m, "none\n");
		goto out;
	}
	seq_printf(m, "promisc %d\nallmulti %d\nuc %u\nmc %u\n",
		   f->promisc, f->allmulti, f->n_uc, f->n_mc);
	for (i = 0; i < f->n_uc + f->n_mc; i++)
		seq_printf(m, "%s %pM\n", i < f->n_uc ? "uc" : "mc",
			   f->addr[i]);
out:
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxb_sim_rx_filter);

/* port<P>/rss: the RSS key and indirection table the driver programmed
 * ("none" while closed)
 */
static int cxb_sim_rss_show(struct seq_file *m, void *v)
{
	struct cxb_sim_port *port = m->private;
	const struct cxb_sim_rss *rss;
	unsigned int i;

	rcu_read_lock();
	rss = rcu_dereference(port->rss);
	if (!rss) {
		seq_puts(m, "none\n");
		goto out;
	}
	seq_printf(m, "key %*phN\ntable", CXB_RSS_KEY_SIZE, rss->r.key);
	for (i = 0; i < CXB_RSS_TABLE_SIZE; i++)
		seq_printf(m, " %u", rss->r.table[i]);
	seq_putc(m, '\n');
out:
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxb_sim_rss);

void cxb_sim_debugfs_port_add(struct cxb_sim_port *port)
{
	unsigned int i;
	char name[16];

	snprintf(name, sizeof(name), "port%u", port->index);
	port->ddir = debugfs_create_dir(name, port->ad->ddir);
	for (i = 0; i < CXB_SIM_NR_CNT; i++) {
		port->cnt_files[i].port = port;
		port->cnt_files[i].idx = i;
		debugfs_create_file_unsafe(cxb_sim_cnt_names[i], 0444,
					   port->ddir, &port->cnt_files[i],
					   &cxb_sim_cnt_fops);
	}
	debugfs_create_file("pause", 0600, port->ddir, port,
			    &cxb_sim_pause_fops);
	debugfs_create_file("rx_filter", 0444, port->ddir, port,
			    &cxb_sim_rx_filter_fops);
	debugfs_create_file("rss", 0444, port->ddir, port, &cxb_sim_rss_fops);
	debugfs_create_file("speed", 0600, port->ddir, port,
			    &cxb_sim_speed_fops);
	cxb_sim_debugfs_port_faults(port);
}

void cxb_sim_debugfs_port_del(struct cxb_sim_port *port)
{
	debugfs_remove_recursive(port->ddir);
	port->ddir = NULL;
}

void cxb_sim_debugfs_adapter_add(struct cxb_sim_adapter *ad)
{
	struct dentry *fdir;

	ad->ddir = debugfs_create_dir(dev_name(&ad->dev), cxb_sim_droot);
	debugfs_create_file("engine", 0600, ad->ddir, ad,
			    &cxb_sim_engine_fops);
	debugfs_create_file_unsafe("dma_live", 0444, ad->ddir, &ad->dma_live,
				   &cxb_sim_live_fops);
	debugfs_create_file("iommu", 0600, ad->ddir, ad, &cxb_sim_iommu_fops);
	debugfs_create_file_unsafe("dma_ns", 0444, ad->ddir, &ad->dma_ns,
				   &cxb_sim_atomic64_fops);
	debugfs_create_file_unsafe("dma_calls", 0444, ad->ddir, &ad->dma_calls,
				   &cxb_sim_atomic64_fops);
	debugfs_create_file_unsafe("reset_counters", 0200, ad->ddir, ad,
				   &cxb_sim_reset_fops);

	debugfs_create_file("cable", 0600, ad->ddir, ad, &cxb_sim_cable_fops);

	fdir = debugfs_create_dir("fault", ad->ddir);
	debugfs_create_file_unsafe("dma_map_fail", 0600, fdir,
				   &ad->dma_map_fail, &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("dma_map_fail_nth", 0600, fdir,
				   &ad->dma_map_fail_nth, &cxb_sim_knob_fops);
	debugfs_create_file_unsafe("dma_map_failed", 0444, fdir,
				   &ad->dma_map_failed, &cxb_sim_atomic64_fops);
	debugfs_create_file_unsafe("engine_delay_us", 0600, fdir,
				   &ad->engine_delay_us, &cxb_sim_delay_fops);
	debugfs_create_file_unsafe("destroy_delay_ms", 0600, fdir,
				   &ad->destroy_delay_ms,
				   &cxb_sim_destroy_delay_fops);
}

/* Also removes the port directories; waits for readers to finish. */
void cxb_sim_debugfs_adapter_del(struct cxb_sim_adapter *ad)
{
	debugfs_remove_recursive(ad->ddir);
	ad->ddir = NULL;
}

void cxb_sim_debugfs_init(void)
{
	cxb_sim_droot = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file_unsafe("dma_live", 0444, cxb_sim_droot,
				   &cxb_sim_dma_live_global,
				   &cxb_sim_live_fops);
	debugfs_create_u64("clock_read_ns", 0444, cxb_sim_droot,
			   &cxb_sim_clock_read_ns);
}

void cxb_sim_debugfs_exit(void)
{
	debugfs_remove_recursive(cxb_sim_droot);
}
