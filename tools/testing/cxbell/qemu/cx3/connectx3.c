/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU model of a dual-port Mellanox ConnectX-3: the PCI function, BAR0
 * (HCR, reset, ownership, catas buffer, clr_int, MSI-X, the model's
 * counters page), BAR2 (UAR pages, then BlueFlame pages) and the
 * command dispatcher.
 *
 * Register facts from Linux mlx4_core: cmd.c (HCR layout and the
 * go/toggle protocol), reset.c (reset semaphore and reset register),
 * main.c (ownership semaphore, map_bf_area), eq.c (EQ doorbells).
 */
#include "qemu/osdep.h"
#include <poll.h>
#include "qemu/module.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "sysemu/dma.h"
#include "connectx3.h"

/*
 * One whole line on stderr, waiting while the pipe is full: with
 * -serial stdio QEMU makes its stdout non-blocking, and a 2>&1 stderr
 * shares that file description, so stdio's writes fail with EAGAIN and
 * drop the text when the reader lags (vm-run's, under load).
 */
static void cx3_log_line(const char *line)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t n = write(STDERR_FILENO, line + off, len - off);

		if (n > 0) {
			off += n;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = { .fd = STDERR_FILENO, .events = POLLOUT };

			poll(&p, 1, 100);
		} else {
			return;
		}
	}
}

/*
 * Something the hardware would reject or mis-execute: counted, and
 * logged on QEMU's stderr (the first 100, then every 1000th; every one
 * with CX3_VIOLATIONS_ALL in QEMU's environment, to triage a fuzz run).
 */
void cx3_violation(CX3State *s, const char *fmt, ...)
{
	static int all = -1;
	va_list ap;
	uint64_t n = ++s->ctr.violations;
	char *what, *line;

	if (all < 0)
		all = !!getenv("CX3_VIOLATIONS_ALL");
	if (!all && n > 100 && n % 1000)
		return;
	va_start(ap, fmt);
	what = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	line = g_strdup_printf("connectx3: violation: %s (#%" PRIu64 ")\n",
			       what, n);
	cx3_log_line(line);
	g_free(line);
	g_free(what);
}

/*
 * PCIe accounting, the model of cxbell_sim (Documentation/sim.rst, "PCIe
 * model"): an access is PCIe transactions of at most CX3_TLP_PAYLOAD
 * payload bytes, each costing CX3_TLP_OVERHEAD bytes of header, sequence
 * number, LCRC and framing. IN is host->device, else device->host.
 */
#define CX3_TLP_PAYLOAD		256
#define CX3_TLP_OVERHEAD	24

static void cx3_pcie(CX3State *s, bool in, uint64_t payload, uint64_t tlps)
{
	if (in) {
		s->ctr.pcie_in_bytes += payload;
		s->ctr.pcie_in_tlps += tlps;
	} else {
		s->ctr.pcie_out_bytes += payload;
		s->ctr.pcie_out_tlps += tlps;
	}
	s->ctr.pcie_tlp_overhead_bytes += tlps * CX3_TLP_OVERHEAD;
}

/* a DMA read (WRITE false) or write of guest memory, LEN counted */
static bool cx3_dma(CX3State *s, dma_addr_t addr, void *buf, dma_addr_t len,
		    bool write)
{
	const char *what = write ? "write" : "read";
	DMADirection dir = write ? DMA_DIRECTION_FROM_DEVICE :
				   DMA_DIRECTION_TO_DEVICE;
	uint64_t tlps = DIV_ROUND_UP(len, CX3_TLP_PAYLOAD);

	if (!addr || addr + len < addr) {
		cx3_violation(s, "DMA %s of %" PRIu64 " bytes at 0x%" PRIx64,
			      what, (uint64_t)len, (uint64_t)addr);
		return false;
	}
	if (pci_dma_rw(PCI_DEVICE(s), addr, buf, len, dir,
		       MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
		cx3_violation(s, "DMA %s of %" PRIu64 " bytes at 0x%" PRIx64
			      " failed", what, (uint64_t)len, (uint64_t)addr);
		return false;
	}
	if (write) {
		/* posted memory writes */
		cx3_pcie(s, false, len, tlps);
	} else {
		/* one read request, then the completions with the data */
		cx3_pcie(s, false, 0, 1);
		cx3_pcie(s, true, len, tlps);
	}
	return true;
}

bool cx3_dma_read(CX3State *s, dma_addr_t addr, void *buf, dma_addr_t len)
{
	return cx3_dma(s, addr, buf, len, false);
}

bool cx3_dma_write(CX3State *s, dma_addr_t addr, const void *buf,
		   dma_addr_t len)
{
	/* pci_dma_rw does not write BUF in this direction */
	return cx3_dma(s, addr, (void *)buf, len, true);
}

/* command mailboxes (mlx4_core cmd.c: 4 KiB, from a 4 KiB-aligned pool) */
static bool cx3_mailbox_ok(CX3State *s, CX3Cmd *c, uint64_t addr,
			   const char *what)
{
	if (addr & (CX3_MAILBOX_SIZE - 1)) {
		cx3_violation(s, "command 0x%x: %s mailbox 0x%" PRIx64
			      " not 4 KiB aligned", c->opcode, what, addr);
		return false;
	}
	return true;
}

bool cx3_inbox(CX3State *s, CX3Cmd *c, void *buf, size_t len)
{
	return cx3_mailbox_ok(s, c, c->in_param, "input") &&
	       cx3_dma_read(s, c->in_param, buf, len);
}

bool cx3_outbox(CX3State *s, CX3Cmd *c, const void *buf, size_t len)
{
	return cx3_mailbox_ok(s, c, c->out_param, "output") &&
	       cx3_dma_write(s, c->out_param, buf, len);
}

int cx3_reply(CX3State *s, CX3Cmd *c, const void *buf, size_t len)
{
	return cx3_outbox(s, c, buf, len) ? CX3_STAT_OK : CX3_STAT_BAD_PARAM;
}

void cx3_interrupt(CX3State *s, unsigned int vector)
{
	PCIDevice *pdev = PCI_DEVICE(s);

	s->ctr.interrupts++;
	if (msix_enabled(pdev)) {
		if (vector >= CX3_MSIX_VECTORS) {
			cx3_violation(s, "interrupt on MSI-X vector %u of %u",
				      vector, CX3_MSIX_VECTORS);
			return;
		}
		/* the message: a posted write of its 4-byte data */
		cx3_pcie(s, false, 4, 1);
		msix_notify(pdev, vector);
	} else if (msi_enabled(pdev)) {
		cx3_pcie(s, false, 4, 1);
		msi_notify(pdev, 0);
	} else {
		/* INTx: level, until the driver writes clr_int */
		pci_set_irq(pdev, 1);
	}
}

/* ---- the command interface (mlx4_core cmd.c: HCR) ---- */

enum {
	HCR_GO	= 1u << 23,
	HCR_E	= 1u << 22,
	HCR_T	= 1u << 21,
};

static void cx3_hcr_go(CX3State *s)
{
	uint32_t w = s->hcr[6];
	CX3Cmd c = {
		.opcode = w & 0xfff,
		.opmod = (w >> 12) & 0xf,
		.in_mod = s->hcr[2],
		.in_param = (uint64_t)s->hcr[0] << 32 | s->hcr[1],
		.out_param = (uint64_t)s->hcr[3] << 32 | s->hcr[4],
	};
	uint16_t token = s->hcr[5] >> 16;
	bool event = w & HCR_E;
	int st;

	s->ctr.commands++;
	st = cx3_core_cmd(s, &c);
	if (st == CX3_STAT_BAD_OP)
		st = cx3_dp_cmd(s, &c);
	if (st == CX3_STAT_BAD_OP)
		cx3_violation(s, "unknown command opcode 0x%x opmod %u",
			      c.opcode, c.opmod);
	if (st)
		s->ctr.cmd_errors++;
	if (c.out_is_imm) {
		s->hcr[3] = c.out_param >> 32;
		s->hcr[4] = (uint32_t)c.out_param;
	}
	/* done: go clear, T left as the driver wrote it, status in 31:24 */
	s->hcr[6] = (uint32_t)st << 24 | (w & ~HCR_GO & 0x00ffffff);
	if (event) {
		if (!cx3_eq_cmd_done(s, token, st,
				     c.out_is_imm ? c.out_param : 0))
			cx3_violation(s, "command 0x%x in event mode with no "
				      "EQ mapped for command events", c.opcode);
	}
}

static void cx3_hcr_write(CX3State *s, unsigned int i, uint32_t v)
{
	if (s->hcr[6] & HCR_GO) {
		cx3_violation(s, "HCR write while a command is running");
		return;
	}
	if (i < 6) {
		s->hcr[i] = v;
		return;
	}
	if (!(v & HCR_GO)) {
		cx3_violation(s, "HCR status word written without go (0x%x)",
			      v);
		return;
	}
	s->hcr[6] = v;
	cx3_hcr_go(s);
}

/* ---- BAR0 ---- */

static const char *const cx3_ctr_names[] = {
#define CX3_CTR_NAME(n) #n,
	CX3_COUNTERS(CX3_CTR_NAME)
#undef CX3_CTR_NAME
};

#define CX3_NUM_CTRS ARRAY_SIZE(cx3_ctr_names)

/* a 32-bit little-endian word of the counters page */
static uint32_t cx3_ctr_read(CX3State *s, hwaddr off)
{
	const uint64_t *v = (const uint64_t *)&s->ctr;
	unsigned int i, o;
	char name[CX3_CTR_NAME_LEN];

	if (off == 0)
		return CX3_CTR_MAGIC;
	if (off == 4)
		return CX3_NUM_CTRS;
	off -= 8;
	i = off / CX3_CTR_ENTRY;
	o = off % CX3_CTR_ENTRY;
	if (i >= CX3_NUM_CTRS)
		return 0;
	if (o >= CX3_CTR_NAME_LEN) {
		uint64_t val = v[i];

		return o == CX3_CTR_NAME_LEN ? (uint32_t)val : val >> 32;
	}
	memset(name, 0, sizeof(name));
	strncpy(name, cx3_ctr_names[i], sizeof(name) - 1);
	return ldl_le_p(name + o);
}

static uint64_t cx3_bar0_read(void *opaque, hwaddr addr, unsigned int size)
{
	CX3State *s = opaque;

	if (addr >= CX3_HCR_BASE && addr < CX3_HCR_BASE + 28)
		return bswap32(s->hcr[(addr - CX3_HCR_BASE) / 4]);
	if (addr >= CX3_CTR_PAGE && addr < CX3_CTR_PAGE + 4096)
		return cx3_ctr_read(s, addr - CX3_CTR_PAGE);
	if (addr == CX3_TEST_PAGE + CX3_TEST_CABLE)
		return !s->unplugged;
	if (addr == CX3_TEST_PAGE + CX3_TEST_FAIL_SENDS)
		return s->fail_sends;
	switch (addr) {
	case CX3_OWNER:		/* 0: the function owns the device */
	case CX3_RESET_SEM:	/* 0: semaphore taken */
		return 0;
	}
	/* catas buffer and everything else read as zero */
	return 0;
}

static void cx3_bar0_write(void *opaque, hwaddr addr, uint64_t val,
			   unsigned int size)
{
	CX3State *s = opaque;
	uint32_t v = bswap32((uint32_t)val);

	/* a host write: one posted TLP (not the model's own pages: below) */
	if (addr < CX3_CTR_PAGE || addr >= CX3_TEST_PAGE + 4096)
		cx3_pcie(s, true, size, 1);
	if (addr >= CX3_HCR_BASE && addr < CX3_HCR_BASE + 28) {
		cx3_hcr_write(s, (addr - CX3_HCR_BASE) / 4, v);
		return;
	}
	if (addr >= CX3_CTR_PAGE && addr < CX3_CTR_PAGE + 4096) {
		cx3_violation(s, "write to the read-only counters page at 0x%"
			      HWADDR_PRIx, addr);
		return;
	}
	if (addr == CX3_TEST_PAGE + CX3_TEST_CABLE) {
		/* little-endian like the counters page: not byte-swapped */
		if ((uint32_t)val > 1) {
			cx3_violation(s, "test cable register written 0x%x",
				      (uint32_t)val);
			return;
		}
		cx3_cable_set(s, val);
		return;
	}
	if (addr == CX3_TEST_PAGE + CX3_TEST_FAIL_SENDS) {
		s->fail_sends = (uint32_t)val;
		return;
	}
	switch (addr) {
	case CX3_OWNER:		/* mlx4_free_ownership writes 0 */
		return;
	case CX3_RESET_REG:
		if (v != 1) {
			cx3_violation(s, "reset register written 0x%x", v);
			return;
		}
		cx3_reset_state(s);
		return;
	case CX3_CLR_INT:	/* INTA pins 32..63: none here */
		return;
	case CX3_CLR_INT + 4:	/* pins 0..31 (eq.c: clr_base + 4) */
		if (v & (1u << CX3_INTA_PIN))
			pci_set_irq(PCI_DEVICE(s), 0);
		return;
	}
	cx3_violation(s, "BAR0 write of 0x%" PRIx64 " at 0x%" HWADDR_PRIx
		      ": no register there", val, addr);
}

static const MemoryRegionOps cx3_bar0_ops = {
	.read = cx3_bar0_read,
	.write = cx3_bar0_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	.impl = { .min_access_size = 4, .max_access_size = 4 },
	.valid = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---- BAR2: UAR pages, then BlueFlame pages ---- */

static uint64_t cx3_bar2_read(void *opaque, hwaddr addr, unsigned int size)
{
	return 0;
}

static void cx3_bar2_write(void *opaque, hwaddr addr, uint64_t val,
			   unsigned int size)
{
	CX3State *s = opaque;
	hwaddr off = addr & 0xfff;
	hwaddr bfb = cx3_bf_base(s);
	unsigned int half = cx3_bf_reg_size(s) / 2;

	/*
	 * A host write: one posted TLP. A BlueFlame copy arrives as 8-byte
	 * stores; like the sim, it is one TLP of the WQE's length, counted
	 * where a copy starts: at a half register (mlx4_bf_copy() to
	 * bf.reg + bf.offset, the offset toggling by bf_reg_size / 2).
	 */
	cx3_pcie(s, true, size,
		 !(bfb && half && addr >= bfb) || !((addr - bfb) % half));
	/* EQ doorbells: UAR page eqn/4, 0x800 + 8 * (eqn % 4) (eq.c) */
	if (addr < CX3_UAR_SIZE && off >= 0x800 && off < 0x820 &&
	    !(off & 7)) {
		if (size != 4) {
			cx3_violation(s, "EQ doorbell written with %u bytes",
				      size);
			return;
		}
		cx3_eq_doorbell(s, (addr >> 12) * 4 + (off - 0x800) / 8,
				bswap32((uint32_t)val));
		return;
	}
	cx3_dp_uar_write(s, addr, val, size);
}

static const MemoryRegionOps cx3_bar2_ops = {
	.read = cx3_bar2_read,
	.write = cx3_bar2_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	.impl = { .min_access_size = 4, .max_access_size = 8 },
	.valid = { .min_access_size = 4, .max_access_size = 8 },
};

/* power-on state of everything: the reset register and QEMU's reset */
void cx3_reset_state(CX3State *s)
{
	memset(s->hcr, 0, sizeof(s->hcr));
	/*
	 * T = 0, go = 0: mlx4_cmd_init starts its toggle at 1 and calls a
	 * command pending while T equals it (cmd.c cmd_pending)
	 */
	s->hcr[6] = 0;
	memset(s->port, 0, sizeof(s->port));
	memset(&s->hca, 0, sizeof(s->hca));
	s->unplugged = false;
	s->fail_sends = 0;
	pci_set_irq(PCI_DEVICE(s), 0);
	cx3_core_reset(s);
	cx3_dp_reset(s);
}

static void cx3_qdev_reset(DeviceState *dev)
{
	cx3_reset_state(CONNECTX3(dev));
}

/*
 * A ConnectX-3 is a PCIe 3.0 x8 endpoint; QEMU's endpoint capability
 * says x1 at 2.5 GT/s. Give it the x8 8 GT/s link it has: LNKCAP (max
 * width and speed), LNKCAP2 (supported speeds vector, what Linux reads
 * for the speed first) and LNKSTA (the trained link; a root port above
 * copies it, clamped to its own LNKCAP, in pcie_sync_bridge_lnk).
 */
static void cx3_pcie_link(PCIDevice *pdev)
{
	uint8_t *exp = pdev->config + pdev->exp.exp_cap;

	pci_long_test_and_clear_mask(exp + PCI_EXP_LNKCAP,
				     PCI_EXP_LNKCAP_MLW | PCI_EXP_LNKCAP_SLS);
	pci_long_test_and_set_mask(exp + PCI_EXP_LNKCAP,
				   QEMU_PCI_EXP_LNKCAP_MLW(QEMU_PCI_EXP_LNK_X8) |
				   QEMU_PCI_EXP_LNKCAP_MLS(QEMU_PCI_EXP_LNK_8GT));
	pci_set_long(exp + PCI_EXP_LNKCAP2, PCI_EXP_LNKCAP2_SLS_2_5GB |
		     PCI_EXP_LNKCAP2_SLS_5_0GB | PCI_EXP_LNKCAP2_SLS_8_0GB);
	pci_set_word(exp + PCI_EXP_LNKSTA,
		     QEMU_PCI_EXP_LNKSTA_NLW(QEMU_PCI_EXP_LNK_X8) |
		     QEMU_PCI_EXP_LNKSTA_CLS(QEMU_PCI_EXP_LNK_8GT));
}

static void cx3_realize(PCIDevice *pdev, Error **errp)
{
	CX3State *s = CONNECTX3(pdev);
	int i;

	pdev->config[PCI_INTERRUPT_PIN] = 1;
	pdev->config[PCI_REVISION_ID] = 0;

	memory_region_init(&s->bar0, OBJECT(s), "connectx3-bar0",
			   CX3_BAR0_SIZE);
	memory_region_init_io(&s->bar0_regs, OBJECT(s), &cx3_bar0_ops, s,
			      "connectx3-regs", CX3_BAR0_SIZE);
	memory_region_add_subregion_overlap(&s->bar0, 0, &s->bar0_regs, -1);
	pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
			 PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);

	memory_region_init_io(&s->bar2, OBJECT(s), &cx3_bar2_ops, s,
			      "connectx3-uar", CX3_BAR2_SIZE);
	pci_register_bar(pdev, 2, PCI_BASE_ADDRESS_SPACE_MEMORY |
			 PCI_BASE_ADDRESS_MEM_TYPE_64 |
			 PCI_BASE_ADDRESS_MEM_PREFETCH, &s->bar2);

	if (pcie_endpoint_cap_init(pdev, 0x60) < 0) {
		error_setg(errp, "connectx3: PCIe capability");
		return;
	}
	cx3_pcie_link(pdev);
	if (msix_init(pdev, CX3_MSIX_VECTORS, &s->bar0, 0, CX3_MSIX_TABLE,
		      &s->bar0, 0, CX3_MSIX_PBA, 0x9c, errp)) {
		return;
	}
	for (i = 0; i < CX3_MSIX_VECTORS; i++)
		msix_vector_use(pdev, i);

	cx3_core_init(s);
	cx3_dp_init(s);
	cx3_reset_state(s);
}

static void cx3_exit(PCIDevice *pdev)
{
	msix_uninit(pdev, &CONNECTX3(pdev)->bar0, &CONNECTX3(pdev)->bar0);
}

static void cx3_class_init(ObjectClass *klass, void *data)
{
	DeviceClass *dc = DEVICE_CLASS(klass);
	PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

	k->realize = cx3_realize;
	k->exit = cx3_exit;
	k->vendor_id = CX3_VENDOR_ID;
	k->device_id = CX3_DEVICE_ID;
	k->revision = 0;
	k->class_id = PCI_CLASS_NETWORK_ETHERNET;
	k->subsystem_vendor_id = CX3_VENDOR_ID;
	k->subsystem_id = 0x0050;
	dc->reset = cx3_qdev_reset;
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
