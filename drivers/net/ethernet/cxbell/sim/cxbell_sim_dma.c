// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim DMA: the adapter's "IOMMU" and the device's view of host memory.
 *
 * Every mapping gets its own IOVA slot (slot << CXB_SIM_MAP_SHIFT, plus
 * the buffer's offset in its page), so two mappings of the same page are
 * distinct, and slots are handed out cyclically so a stale IOVA rarely
 * hits a newer mapping. The device reaches memory only through
 * cxb_sim_dma_read()/cxb_sim_dma_write(), which check that the whole range
 * lies in one live mapping of a suitable direction; an access racing with
 * the unmap either completes before dma_unmap_*() returns or fails.
 *
 * Coherent memory: the model is cache coherent, so the sync operations
 * are not needed (left NULL: dma_need_sync() is false).
 */
#include <linux/dma-map-ops.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "cxbell_sim.h"

atomic_long_t cxb_sim_dma_live_global = ATOMIC_LONG_INIT(0);
atomic64_t cxb_sim_self_ns = ATOMIC64_INIT(0);
u64 cxb_sim_clock_read_ns;

/* The guest time between two back-to-back clock reads: what one read
 * costs from its clock sample to the next one's. The least of a few
 * tries (an interrupt may land between two).
 */
void cxb_sim_clock_calibrate(void)
{
	u64 best = U64_MAX, a, b;
	int i;

	for (i = 0; i < 16; i++) {
		a = ktime_get_ns();
		b = ktime_get_ns();
		best = min(best, b - a);
	}
	cxb_sim_clock_read_ns = best;
}

static const enum cxb_sim_cnt cxb_sim_pcie_cnt[] = {
	[CXB_SIM_PCIE_DESC]	= CXB_SIM_C_PCIE_DESC_READ,
	[CXB_SIM_PCIE_DATA_RD]	= CXB_SIM_C_PCIE_DATA_READ,
	[CXB_SIM_PCIE_DB]	= CXB_SIM_C_PCIE_DB_READ,
	[CXB_SIM_PCIE_CQE]	= CXB_SIM_C_PCIE_CQE_WRITE,
	[CXB_SIM_PCIE_DATA_WR]	= CXB_SIM_C_PCIE_DATA_WRITE,
};

static unsigned int cxb_sim_tlps(size_t len)
{
	return DIV_ROUND_UP(len, CXB_SIM_TLP_PAYLOAD);
}

void cxb_sim_pcie_read(struct cxb_sim_port *port, enum cxb_sim_pcie cls,
		       size_t len)
{
	if (cls == CXB_SIM_PCIE_NONE || !len)
		return;
	cxb_sim_add(port, cxb_sim_pcie_cnt[cls], len);
	cxb_sim_add(port, CXB_SIM_C_PCIE_TLP_OVERHEAD,
		    (1 + cxb_sim_tlps(len)) * CXB_SIM_TLP_OVERHEAD);
}

void cxb_sim_pcie_write(struct cxb_sim_port *port, enum cxb_sim_pcie cls,
			size_t len)
{
	if (cls == CXB_SIM_PCIE_NONE || !len)
		return;
	cxb_sim_add(port, cxb_sim_pcie_cnt[cls], len);
	cxb_sim_add(port, CXB_SIM_C_PCIE_TLP_OVERHEAD,
		    cxb_sim_tlps(len) * CXB_SIM_TLP_OVERHEAD);
}

void cxb_sim_pcie_mmio(struct cxb_sim_port *port, size_t len)
{
	cxb_sim_add(port, CXB_SIM_C_PCIE_MMIO, len);
	cxb_sim_add(port, CXB_SIM_C_PCIE_TLP_OVERHEAD, CXB_SIM_TLP_OVERHEAD);
}

/* Violations of the mapping API are the adapter's: counted on port 0. */
__printf(2, 3)
static void cxb_sim_dma_violation(struct cxb_sim_adapter *ad,
				  const char *fmt, ...)
{
	struct cxb_sim_port *port = READ_ONCE(ad->ports[0]);
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (port)
		cxb_sim_violation(port, "%pV", &vaf);
	else
		dev_warn_ratelimited(&ad->dev, "violation: %pV\n", &vaf);
	va_end(args);
}

/* Device-side access. @buf NULL: only check. Returns 0 if the range lies
 * in one live mapping the device may access that way.
 */
static int cxb_sim_dma_access(struct cxb_sim_adapter *ad, dma_addr_t iova,
			      void *buf, size_t len, bool write)
{
	enum dma_data_direction need = write ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	struct cxb_sim_map *m;
	unsigned long flags;
	int err = -EFAULT;

	if (!len || len > CXB_SIM_MAP_MAX)
		return -EFAULT;

	if (READ_ONCE(ad->iommu_pt)) {
		void *p;

		if (!pfn_valid(PHYS_PFN(iova)) ||
		    !pfn_valid(PHYS_PFN(iova + len - 1)))
			return -EFAULT;
		p = phys_to_virt(iova);
		if (buf && write)
			memcpy(p, buf, len);
		else if (buf)
			memcpy(buf, p, len);
		return 0;
	}

	rcu_read_lock();
	m = xa_load(&ad->maps, iova >> CXB_SIM_MAP_SHIFT);
	if (m) {
		spin_lock_irqsave(&m->lock, flags);
		if (m->live && iova >= m->iova && len <= m->len &&
		    iova - m->iova <= m->len - len &&
		    (m->dir == need || m->dir == DMA_BIDIRECTIONAL)) {
			void *p = m->vaddr + (iova - m->iova);

			if (buf && write)
				memcpy(p, buf, len);
			else if (buf)
				memcpy(buf, p, len);
			err = 0;
		}
		spin_unlock_irqrestore(&m->lock, flags);
	}
	rcu_read_unlock();
	return err;
}

bool cxb_sim_dma_mapped(struct cxb_sim_adapter *ad, dma_addr_t iova,
			size_t len, bool write)
{
	return !cxb_sim_dma_access(ad, iova, NULL, len, write);
}

int cxb_sim_dma_read(struct cxb_sim_port *port, dma_addr_t iova, void *buf,
		     size_t len, enum cxb_sim_pcie cls)
{
	if (cxb_sim_dma_access(port->ad, iova, buf, len, false)) {
		cxb_sim_violation(port, "DMA read of %zu bytes at %pad: not mapped to device",
				  len, &iova);
		return -EFAULT;
	}
	cxb_sim_pcie_read(port, cls, len);
	return 0;
}

int cxb_sim_dma_write(struct cxb_sim_port *port, dma_addr_t iova,
		      const void *buf, size_t len, enum cxb_sim_pcie cls)
{
	if (cxb_sim_dma_access(port->ad, iova, (void *)buf, len, true)) {
		cxb_sim_violation(port, "DMA write of %zu bytes at %pad: not mapped from device",
				  len, &iova);
		return -EFAULT;
	}
	cxb_sim_pcie_write(port, cls, len);
	return 0;
}

/* The IOMMU side */

static dma_addr_t cxb_sim_map(struct cxb_sim_adapter *ad, void *vaddr,
			      size_t len, enum dma_data_direction dir,
			      bool coherent)
{
	size_t off = offset_in_page(vaddr);
	struct cxb_sim_map *m;
	unsigned long flags;
	u32 slot;
	int err;

	if (!len || len > CXB_SIM_MAP_MAX - off)
		return DMA_MAPPING_ERROR;

	if (READ_ONCE(ad->iommu_pt)) {
		atomic_long_inc(&ad->dma_live);
		atomic_long_inc(&cxb_sim_dma_live_global);
		return virt_to_phys(vaddr);
	}

	m = kzalloc(sizeof(*m), GFP_ATOMIC);
	if (!m)
		return DMA_MAPPING_ERROR;
	spin_lock_init(&m->lock);
	m->live = true;
	m->coherent = coherent;
	m->dir = dir;
	m->len = len;
	m->vaddr = vaddr;

	xa_lock_irqsave(&ad->maps, flags);
	err = __xa_alloc_cyclic(&ad->maps, &slot, m,
				XA_LIMIT(1, CXB_SIM_SLOT_MAX), &ad->next_slot,
				GFP_ATOMIC);
	if (err >= 0)
		m->iova = ((dma_addr_t)slot << CXB_SIM_MAP_SHIFT) | off;
	xa_unlock_irqrestore(&ad->maps, flags);
	if (err < 0) {
		kfree(m);
		return DMA_MAPPING_ERROR;
	}

	atomic_long_inc(&ad->dma_live);
	atomic_long_inc(&cxb_sim_dma_live_global);
	return m->iova;
}

/* Returns the mapping's kernel address, NULL if @iova is not mapped. */
static void *cxb_sim_unmap(struct cxb_sim_adapter *ad, dma_addr_t iova,
			   size_t len, enum dma_data_direction dir,
			   bool coherent)
{
	unsigned long idx = iova >> CXB_SIM_MAP_SHIFT;
	struct cxb_sim_map *m;
	unsigned long flags;
	void *vaddr;

	if (READ_ONCE(ad->iommu_pt)) {
		atomic_long_dec(&ad->dma_live);
		atomic_long_dec(&cxb_sim_dma_live_global);
		return phys_to_virt(iova);
	}

	xa_lock_irqsave(&ad->maps, flags);
	m = xa_load(&ad->maps, idx);
	if (!m || m->iova != iova || m->coherent != coherent) {
		xa_unlock_irqrestore(&ad->maps, flags);
		cxb_sim_dma_violation(ad, "unmap of unknown %s DMA address %pad",
				      coherent ? "coherent" : "streaming",
				      &iova);
		return NULL;
	}
	__xa_erase(&ad->maps, idx);
	xa_unlock_irqrestore(&ad->maps, flags);

	if (m->len != len || m->dir != dir)
		cxb_sim_dma_violation(ad, "unmap of %pad: %zu bytes dir %d, mapped %zu dir %d",
				      &iova, len, dir, m->len, m->dir);

	spin_lock_irqsave(&m->lock, flags);
	m->live = false;
	spin_unlock_irqrestore(&m->lock, flags);

	vaddr = m->vaddr;
	kfree_rcu(m, rcu);
	atomic_long_dec(&ad->dma_live);
	atomic_long_dec(&cxb_sim_dma_live_global);
	return vaddr;
}

static void *cxb_sim_alloc(struct device *dev, size_t size,
			   dma_addr_t *dma_handle, gfp_t gfp,
			   unsigned long attrs)
{
	struct cxb_sim_adapter *ad = to_cxb_sim_adapter(dev);
	struct page *page;
	void *vaddr;

	if (!size || size > CXB_SIM_MAP_MAX)
		return NULL;
	gfp &= ~(__GFP_DMA | __GFP_DMA32 | __GFP_HIGHMEM | __GFP_COMP);
	page = alloc_pages(gfp | __GFP_ZERO, get_order(size));
	if (!page)
		return NULL;
	vaddr = page_address(page);
	*dma_handle = cxb_sim_map(ad, vaddr, size, DMA_BIDIRECTIONAL, true);
	if (*dma_handle == DMA_MAPPING_ERROR) {
		__free_pages(page, get_order(size));
		return NULL;
	}
	return vaddr;
}

static void cxb_sim_free(struct device *dev, size_t size, void *vaddr,
			 dma_addr_t dma_handle, unsigned long attrs)
{
	struct cxb_sim_adapter *ad = to_cxb_sim_adapter(dev);
	void *mapped;

	mapped = cxb_sim_unmap(ad, dma_handle, size, DMA_BIDIRECTIONAL, true);
	if (!mapped)
		return;		/* not ours to free */
	if (mapped != vaddr)
		cxb_sim_dma_violation(ad, "free of coherent %pad with a wrong CPU address",
				      &dma_handle);
	__free_pages(virt_to_page(mapped), get_order(size));
}

static void cxb_sim_dma_account(struct cxb_sim_adapter *ad, u64 t0)
{
	atomic64_add(cxb_sim_ran_since(t0), &ad->dma_ns);
	atomic64_inc(&ad->dma_calls);
}

static dma_addr_t cxb_sim_map_page(struct device *dev, struct page *page,
				   unsigned long offset, size_t size,
				   enum dma_data_direction dir,
				   unsigned long attrs)
{
	struct cxb_sim_adapter *ad = to_cxb_sim_adapter(dev);
	dma_addr_t iova;
	u64 t0;

	/* fault: the IOMMU is out of space; or this send buffer's map is
	 * the one chosen to fail (receive maps do not count: they come
	 * whenever the peer's refill needs a page)
	 */
	if (cxb_sim_fault_hit(&ad->dma_map_fail) ||
	    (dir == DMA_TO_DEVICE && atomic_read(&ad->dma_map_fail_nth) > 0 &&
	     !atomic_dec_if_positive(&ad->dma_map_fail_nth))) {
		atomic64_inc(&ad->dma_map_failed);
		return DMA_MAPPING_ERROR;
	}
	/* Passthrough does what dma-direct does on a host without an
	 * IOMMU (bus address = physical address), plus the live count:
	 * not the model's time, and about dma-direct's instructions.
	 */
	if (READ_ONCE(ad->iommu_pt)) {
		atomic_long_inc(&ad->dma_live);
		atomic_long_inc(&cxb_sim_dma_live_global);
		return page_to_phys(page) + offset;
	}
	t0 = ktime_get_ns();
	iova = cxb_sim_map(ad, page_address(page) + offset, size, dir, false);
	cxb_sim_dma_account(ad, t0);
	return iova;
}

static void cxb_sim_unmap_page(struct device *dev, dma_addr_t dma_handle,
			       size_t size, enum dma_data_direction dir,
			       unsigned long attrs)
{
	struct cxb_sim_adapter *ad = to_cxb_sim_adapter(dev);
	u64 t0;

	if (READ_ONCE(ad->iommu_pt)) {
		atomic_long_dec(&ad->dma_live);
		atomic_long_dec(&cxb_sim_dma_live_global);
		return;
	}
	t0 = ktime_get_ns();
	cxb_sim_unmap(ad, dma_handle, size, dir, false);
	cxb_sim_dma_account(ad, t0);
}

static void cxb_sim_unmap_sg(struct device *dev, struct scatterlist *sgl,
			     int nents, enum dma_data_direction dir,
			     unsigned long attrs)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i)
		cxb_sim_unmap_page(dev, sg_dma_address(sg), sg_dma_len(sg),
				   dir, attrs);
}

static int cxb_sim_map_sg(struct device *dev, struct scatterlist *sgl,
			  int nents, enum dma_data_direction dir,
			  unsigned long attrs)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, nents, i) {
		sg_dma_address(sg) = cxb_sim_map_page(dev, sg_page(sg),
						      sg->offset, sg->length,
						      dir, attrs);
		if (sg_dma_address(sg) == DMA_MAPPING_ERROR) {
			if (i)
				cxb_sim_unmap_sg(dev, sgl, i, dir, attrs);
			return sg->length > CXB_SIM_MAP_MAX ? -EINVAL : -ENOMEM;
		}
		sg_dma_len(sg) = sg->length;
	}
	return nents;
}

static int cxb_sim_dma_supported(struct device *dev, u64 mask)
{
	return mask >= DMA_BIT_MASK(CXB_SIM_IOVA_BITS);
}

static u64 cxb_sim_get_required_mask(struct device *dev)
{
	return DMA_BIT_MASK(CXB_SIM_IOVA_BITS);
}

static size_t cxb_sim_max_mapping_size(struct device *dev)
{
	/* whatever the buffer's offset in its first page */
	return CXB_SIM_MAP_MAX - PAGE_SIZE;
}

const struct dma_map_ops cxb_sim_dma_ops = {
	.alloc			= cxb_sim_alloc,
	.free			= cxb_sim_free,
	.map_page		= cxb_sim_map_page,
	.unmap_page		= cxb_sim_unmap_page,
	.map_sg			= cxb_sim_map_sg,
	.unmap_sg		= cxb_sim_unmap_sg,
	.dma_supported		= cxb_sim_dma_supported,
	.get_required_mask	= cxb_sim_get_required_mask,
	.max_mapping_size	= cxb_sim_max_mapping_size,
};

void cxb_sim_dma_init(struct cxb_sim_adapter *ad)
{
	xa_init_flags(&ad->maps, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	atomic_long_set(&ad->dma_live, 0);
	ad->dma_mask = DMA_BIT_MASK(64);
	ad->dev.dma_mask = &ad->dma_mask;
	ad->dev.coherent_dma_mask = DMA_BIT_MASK(64);
	set_dma_ops(&ad->dev, &cxb_sim_dma_ops);
}

/* The adapter is released (no page pool holds it any more): drop what
 * the driver left mapped. Leaked mappings stay counted in the global
 * dma_live so the leak remains visible after the adapter is gone.
 */
void cxb_sim_dma_teardown(struct cxb_sim_adapter *ad)
{
	struct cxb_sim_map *m;
	unsigned long idx, n = 0;

	xa_for_each(&ad->maps, idx, m) {
		xa_erase_irq(&ad->maps, idx);
		if (m->coherent)
			__free_pages(virt_to_page(m->vaddr), get_order(m->len));
		kfree_rcu(m, rcu);
		n++;
	}
	if (n)
		dev_warn(&ad->dev, "%lu DMA mappings leaked by the driver\n", n);
	xa_destroy(&ad->maps);
}
