/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU model of a dual-port Mellanox ConnectX-3: the PCI function.
 */
#include "qemu/osdep.h"
#include "qemu/module.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "connectx3.h"

/*
 * Something the hardware would reject or mis-execute: counted, and
 * logged on QEMU's stderr (the first 100, then every 1000th).
 */
void cx3_violation(CX3State *s, const char *fmt, ...)
{
	va_list ap;
	uint64_t n = ++s->ctr.violations;

	if (n > 100 && n % 1000)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "connectx3: violation: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (#%" PRIu64 ")\n", n);
	va_end(ap);
}

static uint64_t cx3_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
	return 0;
}

static void cx3_bar0_write(void *opaque, hwaddr addr, uint64_t val,
			   unsigned size)
{
}

static const MemoryRegionOps cx3_bar0_ops = {
	.read = cx3_bar0_read,
	.write = cx3_bar0_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	.impl = { .min_access_size = 4, .max_access_size = 4 },
};

static void cx3_realize(PCIDevice *pdev, Error **errp)
{
	CX3State *s = CONNECTX3(pdev);

	memory_region_init_io(&s->bar0, OBJECT(s), &cx3_bar0_ops, s,
			      "connectx3-bar0", CX3_BAR0_SIZE);
	pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
			 PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);
}

static void cx3_class_init(ObjectClass *klass, void *data)
{
	DeviceClass *dc = DEVICE_CLASS(klass);
	PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

	k->realize = cx3_realize;
	k->vendor_id = CX3_VENDOR_ID;
	k->device_id = CX3_DEVICE_ID;
	k->class_id = PCI_CLASS_NETWORK_ETHERNET;
	dc->desc = "Mellanox ConnectX-3 (model for mlx4_core/mlx4_en and cxbell)";
	set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo cx3_info = {
	.name = TYPE_CONNECTX3,
	.parent = TYPE_PCI_DEVICE,
	.instance_size = sizeof(CX3State),
	.class_init = cx3_class_init,
	.interfaces = (InterfaceInfo[]) {
		{ INTERFACE_PCIE_DEVICE },
		{ }
	},
};

static void cx3_register_types(void)
{
	type_register_static(&cx3_info);
}

type_init(cx3_register_types)
