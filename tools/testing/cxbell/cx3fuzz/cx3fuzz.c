// SPDX-License-Identifier: GPL-2.0
/*
 * cx3fuzz: a test-only fuzzer of the QEMU ConnectX-3 model
 * (tools/testing/cxbell/qemu/cx3/) from inside the guest, for
 * tests/cx3-fuzz.sh. Never installed, never in dkms: mkinitramfs builds
 * it for the guest kernel and puts it into the VM's initramfs.
 *
 * The PCI driver has no id_table: it binds only a function the test
 * names, through driver_override and bind:
 *
 *   insmod cx3fuzz.ko seed=S iters=N
 *   echo cx3fuzz >/sys/bus/pci/devices/BDF/driver_override
 *   echo BDF >/sys/bus/pci/drivers/cx3fuzz/bind     (runs the fuzz)
 *   echo BDF >/sys/bus/pci/drivers/cx3fuzz/unbind   (resets the device)
 *
 * probe() maps BAR0 and BAR2 and, with a seeded PRNG (splitmix64 of
 * seed: the same seed, the same sequence), runs iters steps, each one of:
 * a random HCR command (any opcode, the model's ones more often, random
 * op_mod/in_mod, mailboxes of random bytes); a step of a valid-looking
 * bring-up (QUERY_FW, MAP_FA, RUN_FW, SET_ICM_SIZE, MAP_ICM_AUX, MAP_ICM,
 * INIT_HCA, SW2HW_EQ/MPT/CQ, MAP_EQ, INIT_PORT, SET_PORT, FLOW_ATTACH,
 * the QP transitions to RTS) whose fields are valid or, one time in
 * eight, garbage; work for the datapath (WQEs in the queue pages, RQ
 * producer records, send/CQ/EQ doorbells); random UAR doorbell writes;
 * random BlueFlame writes; random BAR0 writes (HCR, reset register,
 * clr_int, MSI-X table and PBA, counters page, anywhere). The writable
 * parameters may be changed between binds; the read-only ones count what
 * was done since the module was loaded.
 *
 * What the device may write. The model executes what it is given: a
 * DMA address it is handed, or finds in an MTT, is written. Every
 * address the fuzz gives, directly (mailboxes, doorbell records) or in
 * memory the model reads addresses from (MAP_ICM entries, MTT entries,
 * MPTs), is one of: a page of the fuzz's own coherent arena (plus an
 * offset in the page), an address above 2^40 (beyond guest RAM and the
 * PCI windows: an unmapped DMA, which the model must refuse), 0, one
 * that wraps around 2^64, or (selfdma) the device's own BARs. Random
 * bytes the model reads are "sanitized": bit 63 of every 8-byte aligned
 * big-endian word is set, so that a word taken as an address is
 * unmapped. The fields that scale a write (page sizes of EQs, CQs, QPs
 * and MPTs) are kept at 4 KiB, so that a write through an MTT entry
 * stays in the page the entry names; a physical MPT covers the arena
 * alone; the arena pages holding MTT entries (MAP_ICM's) are never a
 * target of a write; MSI-X is never enabled (a garbage MSI-X table entry
 * would be a write anywhere) and INTx is disabled in the command
 * register. The arena is twice the size of the pages addresses point
 * to, so a write of up to 64 KiB + 512 (the model's largest frame) from
 * any of them stays inside.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/dma-mapping.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/ktime.h>
#include <linux/sched.h>

static ulong seed = 1;
module_param(seed, ulong, 0644);
MODULE_PARM_DESC(seed, "PRNG seed of the next bind");
static uint iters = 20000;
module_param(iters, uint, 0644);
MODULE_PARM_DESC(iters, "steps per bind");
static bool selfdma = true;
module_param(selfdma, bool, 0644);
MODULE_PARM_DESC(selfdma, "hand the device addresses inside its own BARs too");

/* what was done since the module was loaded (tests/cx3-fuzz.sh) */
static ulong commands;
module_param(commands, ulong, 0444);
MODULE_PARM_DESC(commands, "HCR commands posted (go bit written)");
static ulong cmd_errors;
module_param(cmd_errors, ulong, 0444);
MODULE_PARM_DESC(cmd_errors, "commands that completed with a status");
static ulong bar0_writes;
module_param(bar0_writes, ulong, 0444);
static ulong uar_writes;
module_param(uar_writes, ulong, 0444);
static ulong bf_writes;
module_param(bf_writes, ulong, 0444);
static ulong resets;
module_param(resets, ulong, 0444);
static ulong runs;
module_param(runs, ulong, 0444);
MODULE_PARM_DESC(runs, "binds that ran to the end");

/* BAR0 of the model (connectx3.h) */
#define HCR		0x80680
#define HCR_STATUS	(HCR + 0x18)
#define HCR_GO		BIT(23)
#define HCR_E		BIT(22)
#define HCR_T		BIT(21)
#define RESET_REG	0xf0010
#define CLR_INT		0xf00d8
#define MSIX_TABLE	0x7c000
#define MSIX_PBA	0x7d000
#define CTR_PAGE	0xc0000
#define UAR_SIZE	SZ_1M
#define UAR_PAGES	(UAR_SIZE / SZ_4K)
#define BF_REG		512

/*
 * The arena: pages 0..POOL_PAGES-1 may be pointed to, the rest is the
 * landing room of a long write. Page 0 the input mailbox, 1 the output
 * mailbox, ICM_P0.. the MTT (never a target: MAP_ICM maps them alone),
 * then queue pages (EQ/CQ/QP buffers through the MTT), data pages (what
 * the physical MPT covers), the doorbell record page.
 */
#define ARENA_PAGES	128
#define POOL_PAGES	64
#define ICM_P0		2
#define ICM_NP		8
#define Q_P0		(ICM_P0 + ICM_NP)
#define Q_NP		32
#define D_P0		(Q_P0 + Q_NP)
#define D_NP		20
#define DB_P		(D_P0 + D_NP)
#define T_P0		Q_P0	/* first page a pool address may name */
#define MTT_VA		0x4000000ULL	/* ICM va of the MTT */
#define MTT_ENTRIES	(ICM_NP * SZ_4K / 8)
#define NQ		16	/* EQ/CQ/QP/MPT numbers the fuzz aims at */
#define QPN0		0x40

struct fz {
	struct pci_dev *pdev;
	void __iomem *bar0, *bar2;
	u8 *arena;
	dma_addr_t dma;
	u64 bar0_bus, bar2_bus;
	u64 rnd;
	u32 toggle;
	unsigned int step;	/* of the bring-up */
	unsigned int log_eqs, log_mpts;
	/* the QPs QPN0..QPN0+NQ-1 as the fuzz last made them */
	struct {
		u32 sq_head;
		u16 rq_prod;
		u8 page;	/* first queue page (MTT entry = page) */
		u8 sq_log, rq_log, rq_stride;
	} qp[NQ];
};

static u64 rnd(struct fz *f)
{
	u64 z = (f->rnd += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u32 below(struct fz *f, u32 n)
{
	return n ? (u32)(rnd(f) % n) : 0;
}

static bool chance(struct fz *f, u32 in)
{
	return below(f, in) == 0;
}

static void *page(struct fz *f, unsigned int p)
{
	return f->arena + (size_t)p * SZ_4K;
}

static u64 page_bus(struct fz *f, unsigned int p)
{
	return f->dma + (u64)p * SZ_4K;
}

/* beyond guest RAM and every PCI window: a DMA the model must refuse */
static u64 unmapped(struct fz *f)
{
	return BIT_ULL(40) + (rnd(f) & (BIT_ULL(60) - 1) & ~7ULL);
}

/* an address the device may be handed (see the top of this file) */
static u64 pool(struct fz *f)
{
	switch (below(f, 16)) {
	case 0:
		return 0;
	case 1:
		return ~0ULL - below(f, 4096);
	case 2:
	case 3:
		return unmapped(f);
	case 4:
		if (selfdma)
			return (chance(f, 2) ? f->bar0_bus + HCR - 0x80 :
				f->bar2_bus + below(f, 2 * UAR_SIZE / SZ_4K) * SZ_4K) +
			       below(f, 32) * 8;
		fallthrough;
	case 5:
	case 6:
		return page_bus(f, T_P0 + below(f, POOL_PAGES - T_P0)) +
		       below(f, 512) * 8;
	default:
		return page_bus(f, T_P0 + below(f, POOL_PAGES - T_P0));
	}
}

/* random bytes whose every aligned big-endian u64 is >= 2^63 */
static void fill(struct fz *f, void *p, size_t len)
{
	__be64 *q = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		q[i] = cpu_to_be64(chance(f, 16) ? pool(f) : rnd(f) | BIT_ULL(63));
}

static void put32(u8 *b, unsigned int o, u32 v)
{
	*(__be32 *)(b + o) = cpu_to_be32(v);
}

static void put64(u8 *b, unsigned int o, u64 v)
{
	*(__be64 *)(b + o) = cpu_to_be64(v);
}

/* ---- the HCR ---- */

static int hcr_wait(struct fz *f)
{
	int i;

	for (i = 0; i < 100000; i++) {
		if (!(ioread32be(f->bar0 + HCR_STATUS) & HCR_GO))
			return 0;
		usleep_range(10, 20);
	}
	return -ETIMEDOUT;
}

/* a command was posted: count it, poll its end; the status, or < 0 on a
 * hang
 */
static int hcr_done(struct fz *f)
{
	u32 st;

	commands++;
	if (hcr_wait(f))
		return -ETIMEDOUT;
	st = ioread32be(f->bar0 + HCR_STATUS) >> 24;
	if (st)
		cmd_errors++;
	return st;
}

/* post one command, poll its end; the status, or < 0 on a hang */
static int cmd(struct fz *f, u16 op, u8 opmod, u32 in_mod, u64 in, u64 out,
	       bool event)
{
	iowrite32be(in >> 32, f->bar0 + HCR);
	iowrite32be((u32)in, f->bar0 + HCR + 4);
	iowrite32be(in_mod, f->bar0 + HCR + 8);
	iowrite32be(out >> 32, f->bar0 + HCR + 12);
	iowrite32be((u32)out, f->bar0 + HCR + 16);
	iowrite32be((u32)rnd(f) << 16, f->bar0 + HCR + 20);
	f->toggle ^= 1;
	iowrite32be(HCR_GO | (f->toggle ? HCR_T : 0) | (event ? HCR_E : 0) |
		    (opmod & 0xf) << 12 | (op & 0xfff), f->bar0 + HCR_STATUS);
	return hcr_done(f);
}

/* a command with the input mailbox (page 0) and the output one (page 1) */
static int mcmd(struct fz *f, u16 op, u8 opmod, u32 in_mod)
{
	return cmd(f, op, opmod, in_mod, page_bus(f, 0), page_bus(f, 1), false);
}

/* ---- what the fuzz knows of the model's commands (mlx4 cmd.h) ---- */

enum {
	QUERY_DEV_CAP = 0x003, QUERY_FW = 0x004, QUERY_ADAPTER = 0x006,
	INIT_HCA = 0x007, CLOSE_HCA = 0x008, INIT_PORT = 0x009,
	CLOSE_PORT = 0x00a, QUERY_HCA = 0x00b, SET_PORT = 0x00c,
	SW2HW_MPT = 0x00d, HW2SW_MPT = 0x00f, MAP_EQ = 0x012,
	SW2HW_EQ = 0x013, HW2SW_EQ = 0x014, SW2HW_CQ = 0x016,
	HW2SW_CQ = 0x017, RST2INIT = 0x019, INIT2RTR = 0x01a,
	RTR2RTS = 0x01b, RTS2RTS = 0x01c, SQERR2RTS = 0x01d, TO_ERR = 0x01e,
	RTS2SQD = 0x01f, SQD2RTS = 0x020, TO_RST = 0x021, CONF_SPECIAL = 0x023,
	MAD_IFC = 0x024, READ_MCG = 0x025, WRITE_MCG = 0x026,
	MGID_HASH = 0x027, MODIFY_CQ = 0x02c, INIT2INIT = 0x02d,
	NOP = 0x031, MOD_STAT_CFG = 0x034, SQD2SQD = 0x038,
	QUERY_PORT = 0x043, SET_VLAN_FLTR = 0x047, SET_MCAST_FLTR = 0x048,
	DUMP_ETH_STATS = 0x049, FLOW_ATTACH = 0x065, FLOW_DETACH = 0x066,
	RUN_FW = 0xff6, UNMAP_ICM = 0xff9, MAP_ICM = 0xffa,
	UNMAP_ICM_AUX = 0xffb, MAP_ICM_AUX = 0xffc, SET_ICM_SIZE = 0xffd,
	UNMAP_FA = 0xffe, MAP_FA = 0xfff,
};

static const u16 known_ops[] = {
	QUERY_DEV_CAP, QUERY_FW, QUERY_ADAPTER, INIT_HCA, CLOSE_HCA, INIT_PORT,
	CLOSE_PORT, QUERY_HCA, SET_PORT, SW2HW_MPT, HW2SW_MPT, MAP_EQ,
	SW2HW_EQ, HW2SW_EQ, SW2HW_CQ, HW2SW_CQ, RST2INIT, INIT2RTR, RTR2RTS,
	RTS2RTS, SQERR2RTS, TO_ERR, RTS2SQD, SQD2RTS, TO_RST, CONF_SPECIAL,
	MAD_IFC, READ_MCG, WRITE_MCG, MGID_HASH, MODIFY_CQ, INIT2INIT, NOP,
	MOD_STAT_CFG, SQD2SQD, QUERY_PORT, SET_VLAN_FLTR, SET_MCAST_FLTR,
	DUMP_ETH_STATS, FLOW_ATTACH, FLOW_DETACH, RUN_FW, UNMAP_ICM, MAP_ICM,
	UNMAP_ICM_AUX, MAP_ICM_AUX, SET_ICM_SIZE, UNMAP_FA, MAP_FA,
};

/* commands whose in_param is an immediate, not a mailbox */
static bool imm_in(u16 op)
{
	switch (op) {
	case SET_ICM_SIZE: case UNMAP_ICM: case MAP_EQ: case FLOW_DETACH:
	case NOP: case RUN_FW: case UNMAP_FA: case UNMAP_ICM_AUX:
	case CLOSE_HCA: case INIT_PORT: case CLOSE_PORT: case HW2SW_CQ:
	case HW2SW_EQ: case HW2SW_MPT: case TO_ERR: case TO_RST:
	case CONF_SPECIAL: case MOD_STAT_CFG:
		return true;
	}
	return false;
}

/*
 * The fields of a mailbox the model turns into DMA writes, made safe
 * (the top of this file); everything else stays as random as it was.
 */
static void sanitize(struct fz *f, u16 op, u8 opmod, u32 in_mod, u8 *b)
{
	unsigned int i;

	switch (op) {
	case MAP_ICM:
		/* 16-byte entries: va, pa | log2(pages): one MTT page each */
		for (i = 0; i < SZ_4K / 16; i++)
			put64(b, i * 16 + 8, chance(f, 4) ? unmapped(f) | below(f, 32) :
			      page_bus(f, ICM_P0 + below(f, ICM_NP)));
		break;
	case SW2HW_EQ:
		b[0x18] = 0;		/* log_page_size: 4 KiB */
		break;
	case SW2HW_CQ:
	case MODIFY_CQ:
		b[24] = 0;
		break;
	case RST2INIT: case INIT2RTR: case RTR2RTS: case RTS2RTS:
	case SQERR2RTS: case RTS2SQD: case SQD2RTS: case INIT2INIT:
	case SQD2SQD:
		b[8 + 200] = 0;
		break;
	case SW2HW_MPT:
		if (be32_to_cpu(*(__be32 *)b) & BIT(9)) {
			/* physical: the data pages alone */
			put64(b, 0x10, page_bus(f, D_P0));
			put64(b, 0x18, below(f, D_NP * SZ_4K));
		} else {
			put32(b, 0x34, 12);
		}
		break;
	}
}

/* ---- the bring-up, a step at a time ---- */

static u32 eqn(struct fz *f)
{
	return below(f, 4) ? below(f, NQ) : below(f, 256);
}

static u32 qpn(struct fz *f)
{
	return below(f, 8) ? QPN0 + below(f, NQ) : (u32)rnd(f) & 0xffffff;
}

/* an MTT offset (bytes) the fuzz filled, mostly; the queue pages */
static u64 mtt_off(struct fz *f)
{
	if (chance(f, 8))
		return rnd(f) & 0xffffffffffULL & ~7ULL;
	return (u64)below(f, Q_NP) * 8;
}

/* fill the MTT: entry i names queue page i % Q_NP (present) mostly */
static void fill_mtt(struct fz *f)
{
	unsigned int i;

	for (i = 0; i < MTT_ENTRIES; i++) {
		__be64 *e = (__be64 *)page(f, ICM_P0) + i;
		u64 v;

		if (selfdma && chance(f, 32))
			v = (chance(f, 2) ? f->bar0_bus + below(f, SZ_1M / SZ_4K) * SZ_4K :
			     f->bar2_bus + below(f, 2 * UAR_PAGES) * SZ_4K) | 1;
		else if (i < 2 * Q_NP || chance(f, 2))
			v = page_bus(f, Q_P0 + (i + (chance(f, 16) ? below(f, 8) : 0)) %
				     (POOL_PAGES - Q_P0)) | 1;
		else if (chance(f, 2))
			v = unmapped(f) | below(f, 2);
		else
			v = rnd(f) | BIT_ULL(63);
		*e = cpu_to_be64(v);
	}
}

static int step_bringup(struct fz *f)
{
	bool bad = chance(f, 8);
	u8 *b = page(f, 0);
	unsigned int i, n;
	u32 x;
	int st;

	fill(f, b, SZ_4K);
	switch (f->step++) {
	case 0:
		return mcmd(f, QUERY_FW, 0, 0);
	case 1:
		/* the firmware area: 64 pages, or entries that are wrong */
		n = bad ? below(f, 300) : 1;
		for (i = 0; i < n; i++) {
			put64(b, i * 16, 0);
			put64(b, i * 16 + 8, bad ? (chance(f, 2) ? rnd(f) : unmapped(f)) :
			      (page_bus(f, 0) & ~(SZ_256K - 1ULL)) | 6);
		}
		return cmd(f, MAP_FA, 0, n, page_bus(f, 0), 0, false);
	case 2:
		return cmd(f, RUN_FW, 0, 0, 0, 0, false);
	case 3:
		return mcmd(f, QUERY_DEV_CAP, 0, 0);
	case 4:
		return cmd(f, SET_ICM_SIZE, 0, 0, bad ? rnd(f) : SZ_16M, 0, false);
	case 5:
		for (i = 0; i < 4; i++) {
			put64(b, i * 16, 0);
			put64(b, i * 16 + 8, unmapped(f) & ~0xfffULL);
		}
		return cmd(f, MAP_ICM_AUX, 0, bad ? below(f, 300) : 4,
			   page_bus(f, 0), 0, false);
	case 6:
		/* the MTT's ICM pages: the arena's MTT pages, one each */
		fill_mtt(f);
		for (i = 0; i < ICM_NP; i++) {
			put64(b, i * 16, MTT_VA + i * SZ_4K);
			put64(b, i * 16 + 8, page_bus(f, ICM_P0 + i));
		}
		if (bad)
			sanitize(f, MAP_ICM, 0, 0, b);
		return cmd(f, MAP_ICM, 0, bad ? below(f, 300) : ICM_NP,
			   page_bus(f, 0), 0, false);
	case 7:
		/* INIT_HCA: version 2, the MTT, 2^log EQs and MPTs, garbage */
		if (!bad)
			memset(b, 0, 0x200);
		b[0] = 2;
		f->log_eqs = chance(f, 4) ? below(f, 7) : 4 + below(f, 3);
		f->log_mpts = below(f, 21);
		b[0x87] = f->log_eqs;
		/* (an MTT base not aligned to its 8-byte entries, sometimes) */
		put64(b, 0x100, MTT_VA + (chance(f, 16) ? 1 + below(f, 7) : 0));
		b[0xfb] = f->log_mpts;
		if (!bad) {
			b[0x37] = 18;
			b[0x57] = 16;
			b[0xd3] = 6 + below(f, 7);
			b[0xd7] = below(f, 8);
			b[0xdb] = b[0xd7] + below(f, 3);
			b[0x12a] = below(f, 4);
		}
		return mcmd(f, INIT_HCA, 0, 0);
	case 8:
		/* EQs with contexts random but for the MTT and page size */
		for (i = 0; i < 1 + below(f, 4); i++) {
			memset(b, 0, 64);
			put32(b, 0, chance(f, 2) ? 0x9 << 8 : (u32)rnd(f));
			b[0x0c] = below(f, 10);
			b[0x17] = below(f, bad ? 256 : 64);
			put32(b, 0x1c, mtt_off(f));
			if (bad)
				fill(f, b + 0x20, 32);
			sanitize(f, SW2HW_EQ, 0, 0, b);
			st = mcmd(f, SW2HW_EQ, 0, eqn(f));
			if (st < 0)
				return st;
		}
		return cmd(f, MAP_EQ, 0, eqn(f) | (chance(f, 8) ? BIT(31) : 0),
			   bad ? rnd(f) : ~0ULL, 0, false);
	case 9:
		/* MPTs: physical over the data pages, or through the MTT */
		memset(b, 0, 64);
		if (bad)
			fill(f, b, 64);
		x = below(f, NQ) & (BIT(f->log_mpts) - 1);
		put32(b, 0, chance(f, 2) ? BIT(9) : 0);
		put32(b, 8, x | (bad ? (u32)rnd(f) << f->log_mpts : 0));
		put64(b, 0x10, page_bus(f, D_P0));
		put64(b, 0x18, chance(f, 4) ? ~0ULL : D_NP * SZ_4K);
		put64(b, 0x28, mtt_off(f));
		sanitize(f, SW2HW_MPT, 0, 0, b);
		return mcmd(f, SW2HW_MPT, 0, x);
	case 10:
		/* CQs: doorbell records on the record page */
		for (i = 0; i < 1 + below(f, 4); i++) {
			memset(b, 0, 64);
			if (bad)
				fill(f, b, 64);
			put32(b, 12, below(f, 10) << 24);
			put32(b, 16, below(f, 4) << 16 | below(f, 4));
			b[23] = below(f, NQ);
			b[27] = 0;
			put32(b, 28, mtt_off(f));
			put64(b, 56, chance(f, 8) ? pool(f) :
			      page_bus(f, DB_P) + below(f, NQ) * 8);
			sanitize(f, SW2HW_CQ, 0, 0, b);
			st = mcmd(f, SW2HW_CQ, below(f, 2), below(f, NQ));
			if (st < 0)
				return st;
		}
		return 0;
	case 11:
		st = cmd(f, INIT_PORT, 0, bad ? below(f, 4) : 1, 0, 0, false);
		if (st < 0)
			return st;
		return cmd(f, INIT_PORT, 0, 2, 0, 0, false);
	case 12:
		/* a rule that takes every frame of a port to a QP */
		memset(b, 0, 16);
		b[2] = chance(f, 4) ? 3 : 1;
		b[7] = 1 + below(f, 2);
		put32(b, 8, qpn(f));
		if (bad)
			fill(f, b, 64);
		return mcmd(f, FLOW_ATTACH, 0, bad ? below(f, 1100) : 4);
	case 13:
		/* SET_PORT: a table, general (MTU, pause) mostly */
		x = chance(f, 2) ? 0 : below(f, 12);
		if (!x) {
			memset(b, 0, 16);
			b[3] = below(f, 8);
			put32(b, 4, below(f, 12000));
		}
		return mcmd(f, SET_PORT, bad ? below(f, 4) : 1,
			    1 + below(f, 2) + (x << 8));
	case 14:
		/*
		 * B0 steering entries: WRITE_MCG, then READ_MCG into any
		 * address (with selfdma sometimes the device's own reset
		 * register, the entry's first dword the reset value)
		 */
		x = below(f, 4);
		memset(b, 0, 64);
		put32(b, 0, chance(f, 2) ? 1 : (u32)rnd(f) & ~0x3fU);
		put32(b, 4, below(f, 3));
		st = mcmd(f, WRITE_MCG, 0, x);
		if (st < 0)
			return st;
		return cmd(f, READ_MCG, 0, x, 0, selfdma && chance(f, 2) ?
			   f->bar0_bus + RESET_REG : pool(f), false);
	default:
		break;
	}
	/* QPs: RST2INIT, INIT2RTR, RTR2RTS with random-ish contexts */
	f->step = chance(f, 16) ? 0 : 15;
	x = qpn(f);
	memset(b, 0, 8 + 248);
	if (bad)
		fill(f, b, 8 + 248);
	b[8 + 9] = chance(f, 4) ? 0 : (below(f, 7) << 3 | below(f, 4));
	b[8 + 10] = below(f, 7) << 3 | (chance(f, 8) ? below(f, 8) : 2);
	b[8 + 56] = below(f, 2) << 6;
	put32(b, 8 + 124, below(f, NQ));
	put32(b, 8 + 156, below(f, NQ));
	put64(b, 8 + 160, chance(f, 8) ? pool(f) :
	      page_bus(f, DB_P) + 0x800 + (x % NQ) * 8);
	put32(b, 8 + 192, chance(f, 2) ? BIT(30) : 0);
	put32(b, 8 + 204, mtt_off(f));
	if (chance(f, 8)) {
		put32(b, 8, BIT(13));		/* RSS */
		put32(b, 8 + 24 + 0x24, below(f, 4) << 24 | QPN0);
		put32(b, 8 + 24 + 0x28, QPN0 + below(f, NQ));
		b[8 + 24 + 0x2e] = below(f, 2);
		b[8 + 24 + 0x2f] = (u8)rnd(f);
	}
	sanitize(f, RST2INIT, 0, 0, b);
	if (chance(f, 2)) {
		st = cmd(f, TO_RST, 0, x, 0, 0, false);
		if (st < 0)
			return st;
	}
	st = mcmd(f, RST2INIT, 0, x);
	if (st < 0)
		return st;
	st = mcmd(f, INIT2RTR, 0, x);
	if (st < 0)
		return st;
	if (x >= QPN0 && x < QPN0 + NQ) {
		typeof(f->qp[0]) *q = &f->qp[x - QPN0];

		q->sq_head = 0;
		q->rq_prod = 0;
		q->page = be32_to_cpu(*(__be32 *)(b + 8 + 204)) / 8 % Q_NP;
		q->sq_log = b[8 + 10] >> 3;
		q->rq_log = b[8 + 9] >> 3;
		q->rq_stride = (b[8 + 9] & 7) + 4;
	}
	return mcmd(f, RTR2RTS, 0, x);
}

/* ---- random commands ---- */

static int step_random_cmd(struct fz *f)
{
	u16 op = chance(f, 4) ? below(f, 4096) :
		 known_ops[below(f, ARRAY_SIZE(known_ops))];
	u8 opmod = chance(f, 2) ? below(f, 2) : below(f, 16);
	u32 in_mod;
	u64 in, out;

	switch (below(f, 4)) {
	case 0:
		in_mod = (u32)rnd(f);
		break;
	case 1:
		in_mod = qpn(f);
		break;
	default:
		in_mod = below(f, NQ);
		break;
	}
	fill(f, page(f, 0), SZ_4K);
	sanitize(f, op, opmod, in_mod, page(f, 0));
	in = imm_in(op) ? rnd(f) : (chance(f, 2) ? page_bus(f, 0) : pool(f));
	out = chance(f, 2) ? page_bus(f, 1) : pool(f);
	if (in == page_bus(f, 0) || !chance(f, 4))
		return cmd(f, op, opmod, in_mod, in, out, chance(f, 32));
	/* another page as the input: sanitize it too */
	if (in >= page_bus(f, T_P0) && in < page_bus(f, POOL_PAGES - 1)) {
		u8 *p = f->arena + (in - f->dma);

		fill(f, p, SZ_4K - (in & 0xfff));
		sanitize(f, op, opmod, in_mod, p);
	}
	return cmd(f, op, opmod, in_mod, in, out, chance(f, 32));
}

/* ---- the datapath ---- */

/*
 * Where the model finds byte OFF of QP Q's buffer: the queue pages in
 * MTT order from the QP's first (fill_mtt), mostly.
 */
static u8 *qbuf(struct fz *f, unsigned int q, u64 off)
{
	return page(f, Q_P0 + (f->qp[q].page + off / SZ_4K) % Q_NP) + off % SZ_4K;
}

/* a send WQE (or garbage) at the head of QP Q's SQ */
static void put_wqe(struct fz *f, unsigned int q)
{
	u32 head = f->qp[q].sq_head;
	u32 owner = head & BIT(f->qp[q].sq_log) ? BIT(31) : 0;
	u8 *w = qbuf(f, q, (u64)(head & (BIT(f->qp[q].sq_log) - 1)) * 64);
	unsigned int ds, n, o;

	if (chance(f, 4)) {
		fill(f, w, 64);
		return;
	}
	memset(w, 0, 64);
	n = chance(f, 2) ? 60 : below(f, 40);
	ds = 1 + DIV_ROUND_UP(4 + n, 16);
	put32(w, 0, owner | (head & 0xffff) << 8 |
	      (chance(f, 8) ? below(f, 32) : 0x0a));
	put32(w, 4, (QPN0 + q) << 8 | ds);
	put32(w, 8, chance(f, 2) ? 0xc : (u32)rnd(f));
	put32(w, 16, BIT(31) | n);
	for (o = 20; o < 64; o++)
		w[o] = (u8)rnd(f);
	if (chance(f, 4)) {
		/* a gather segment instead: lkey and a va in the data pages */
		put32(w, 16, 14 + below(f, 4000));
		/* lkey = MPT index << 8 (mlx4 key_to_hw_index) */
		put32(w, 20, below(f, NQ) << 8 | (chance(f, 4) ? below(f, 256) : 0));
		put64(w, 24, page_bus(f, D_P0) + below(f, D_NP * SZ_4K));
		w[7] = 2;
	}
	f->qp[q].sq_head++;
}

/*
 * The largest frame the model takes (64 KiB + 512, connectx3_dp.c
 * MAX_FRAME) or a few bytes less, gathered by 62 segments of a 1008-byte
 * WQE (16 TXBBs), with VLAN insertion asked on top.
 */
#define MAX_FRAME	(64 * 1024 + 512)
static void put_jumbo(struct fz *f, unsigned int q)
{
	u32 head = f->qp[q].sq_head, size = BIT(f->qp[q].sq_log);
	unsigned int i, len = MAX_FRAME - below(f, 4), lkey = below(f, NQ) << 8;
	u8 w[1008];

	memset(w, 0, sizeof(w));
	put32(w, 0, (head & size ? BIT(31) : 0) | (head & 0xffff) << 8 | 0x0a);
	put32(w, 4, (QPN0 + q) << 8 | 63);
	w[6] |= BIT(6);		/* insert the C-VLAN tag of bytes 4-5 */
	put32(w, 8, 0xc);
	for (i = 0; i < 62; i++) {
		u8 *d = w + 16 + 16 * i;

		put32(d, 0, i < 61 ? 1065 : len - 61 * 1065);
		put32(d, 4, lkey);
		put64(d, 8, page_bus(f, D_P0));
	}
	for (i = 0; i < 16; i++)
		memcpy(qbuf(f, q, (u64)((head + i) & (size - 1)) * 64), w + 64 * i,
		       i < 15 ? 64 : 48);
	f->qp[q].sq_head += 16;
}

/* an RQ WQE: one scatter segment into the data pages */
static void put_rq(struct fz *f, unsigned int q)
{
	u64 sq_bytes = BIT_ULL(f->qp[q].sq_log + 6);
	u64 slot = f->qp[q].rq_prod & (BIT(f->qp[q].rq_log) - 1);
	u8 *w = qbuf(f, q, sq_bytes + (slot << f->qp[q].rq_stride));

	put32(w, 0, chance(f, 4) ? (u32)rnd(f) : 2048);
	put32(w, 4, chance(f, 8) ? 0x100 : below(f, NQ) << 8);
	put64(w, 8, page_bus(f, D_P0) + below(f, (D_NP - 1) * SZ_4K));
	f->qp[q].rq_prod += 1 + below(f, 2);
	put32(page(f, DB_P), 0x800 + q * 8, f->qp[q].rq_prod);
}

static void __iomem *uar(struct fz *f)
{
	return f->bar2 + (size_t)(chance(f, 4) ? below(f, UAR_PAGES) : below(f, 4)) *
	       SZ_4K;
}

static void step_doorbell(struct fz *f)
{
	unsigned int q = below(f, NQ);
	u32 w0, w1;

	switch (below(f, 8)) {
	case 0:
	case 1:
		if (chance(f, 32))
			put_jumbo(f, q);
		else
			put_wqe(f, q);
		iowrite32be((chance(f, 8) ? qpn(f) : QPN0 + q) << 8, uar(f) + 0x14);
		break;
	case 2:
		put_rq(f, q);
		put_wqe(f, below(f, NQ));
		iowrite32be((QPN0 + below(f, NQ)) << 8, uar(f) + 0x14);
		break;
	case 3:
		/* CQ doorbell: sn, cmd, cqn; ci (mlx4 cq.h mlx4_cq_arm) */
		w0 = below(f, 4) << 28 | below(f, 4) << 24 |
		     (chance(f, 8) ? (u32)rnd(f) & 0xffffff : below(f, NQ));
		w1 = chance(f, 2) ? below(f, 64) : (u32)rnd(f);
		put32(page(f, DB_P), (w0 & 0xf) * 8, w1);
		if (chance(f, 2)) {
			/* mlx4_write64: the two big-endian words, in order */
			__raw_writeq((u64)(__force u32)cpu_to_be32(w1) << 32 |
				     (__force u32)cpu_to_be32(w0), uar(f) + 0x20);
		} else {
			iowrite32be(w0, uar(f) + 0x20);
			iowrite32be(w1, uar(f) + 0x24);
		}
		break;
	case 4:
		/* EQ doorbell: UAR page eqn/4, 0x800 + 8 * (eqn % 4) */
		w0 = eqn(f);
		iowrite32be((chance(f, 2) ? BIT(31) : 0) |
			    (chance(f, 2) ? below(f, 64) : (u32)rnd(f) & 0xffffff),
			    f->bar2 + (w0 / 4) * SZ_4K + 0x800 + 8 * (w0 % 4));
		break;
	default:
		/* anywhere in a UAR page, 4 or 8 bytes */
		w0 = below(f, SZ_4K / 4) * 4;
		if (chance(f, 2) && !(w0 & 7))
			__raw_writeq(rnd(f), uar(f) + w0);
		else
			iowrite32(rnd(f), uar(f) + w0);
		break;
	}
	uar_writes++;
}

/* a BlueFlame register copy: the WQE in 8-byte writes, or a mess */
static void step_bf(struct fz *f)
{
	void __iomem *r = f->bar2 + UAR_SIZE +
			  (size_t)(chance(f, 2) ? below(f, 4) : below(f, UAR_PAGES)) * SZ_4K +
			  below(f, SZ_4K / BF_REG) * BF_REG + (chance(f, 2) ? BF_REG / 2 : 0);
	unsigned int q = below(f, NQ), n = 8 * (1 + below(f, 32)), o;
	u8 w[256];

	fill(f, w, sizeof(w));
	if (!chance(f, 4)) {
		u32 head = f->qp[q].sq_head;

		put32(w, 0, (head & BIT(f->qp[q].sq_log) ? BIT(31) : 0) |
		      (head & 0xffff) << 8 | 0x0a);
		put32(w, 4, (QPN0 + q) << 8 | below(f, 16));
		put32(w, 8, 0xc);
		put32(w, 16, BIT(31) | below(f, 60));
		n = 64 * (1 + below(f, 2));
	}
	for (o = 0; o < n && o < sizeof(w); o += 8) {
		if (chance(f, 64))
			o += 8 * below(f, 4);
		if (o + 8 > sizeof(w))
			break;
		__raw_writeq(*(u64 *)(w + o), r + o);
		bf_writes++;
	}
}

/* ---- BAR0 ---- */

static int step_bar0(struct fz *f)
{
	static const u32 regs[] = {
		HCR, HCR + 4, HCR + 8, HCR + 12, HCR + 16, HCR + 20, HCR_STATUS,
		RESET_REG, CLR_INT, CLR_INT + 4, 0x8069c, 0xf03fc, 0x1f000,
	};
	u32 off, v = (u32)rnd(f);

	switch (below(f, 6)) {
	case 0:
		off = regs[below(f, ARRAY_SIZE(regs))];
		break;
	case 1:
		off = MSIX_TABLE + below(f, 64 * 16 / 4) * 4;
		break;
	case 2:
		off = MSIX_PBA + below(f, 4) * 4;
		break;
	case 3:
		off = CTR_PAGE + below(f, SZ_4K / 4) * 4;
		break;
	case 4:
		ioread32(f->bar0 + below(f, SZ_1M / 4) * 4);
		return 0;
	default:
		off = below(f, SZ_1M / 4) * 4;
		break;
	}
	if (off == RESET_REG && chance(f, 8)) {
		v = swab32(1);
		resets++;
	}
	bar0_writes++;
	if (off == HCR_STATUS) {
		/* the go bit, as the device reads the word (big-endian) */
		if (!(swab32(v) & HCR_GO)) {
			iowrite32(v, f->bar0 + off);
			return 0;
		}
		/* a command of random bytes, with safe mailboxes */
		iowrite32be(page_bus(f, 0) >> 32, f->bar0 + HCR);
		iowrite32be((u32)page_bus(f, 0), f->bar0 + HCR + 4);
		iowrite32be(page_bus(f, 1) >> 32, f->bar0 + HCR + 12);
		iowrite32be((u32)page_bus(f, 1), f->bar0 + HCR + 16);
		fill(f, page(f, 0), SZ_4K);
		sanitize(f, swab32(v) & 0xfff, 0, 0, page(f, 0));
		iowrite32(v, f->bar0 + off);
		return hcr_done(f) < 0 ? -ETIMEDOUT : 0;
	}
	switch (below(f, 4)) {
	case 0:
		iowrite8(v, f->bar0 + off);
		break;
	case 1:
		iowrite16(v, f->bar0 + off);
		break;
	default:
		iowrite32(v, f->bar0 + off);
		break;
	}
	if (off == RESET_REG && v == swab32(1))
		f->step = 0;
	return 0;
}

static void dev_reset(struct fz *f)
{
	iowrite32(swab32(1), f->bar0 + RESET_REG);
	resets++;
	f->step = 0;
}

static int fuzz(struct fz *f)
{
	unsigned int i;
	int st = 0;

	f->rnd = seed;
	dev_reset(f);
	for (i = 0; i < iters && st >= 0; i++) {
		switch (below(f, 20)) {
		case 0 ... 3:
			st = step_random_cmd(f);
			break;
		case 4 ... 8:
			st = step_bringup(f);
			break;
		case 9 ... 14:
			step_doorbell(f);
			break;
		case 15 ... 16:
			step_bf(f);
			break;
		case 17 ... 18:
			st = step_bar0(f);
			break;
		default:
			if (chance(f, 64))
				dev_reset(f);
			else
				fill_mtt(f);
			break;
		}
		if (!(i % 256))
			cond_resched();
	}
	return st < 0 ? st : 0;
}

static int cx3fuzz_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct fz *f;
	ktime_t t0;
	ulong c0 = commands, e0 = cmd_errors;
	int err;

	f = devm_kzalloc(&pdev->dev, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->pdev = pdev;
	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = pcim_iomap_regions(pdev, BIT(0) | BIT(2), "cx3fuzz");
	if (err)
		return err;
	f->bar0 = pcim_iomap_table(pdev)[0];
	f->bar2 = pcim_iomap_table(pdev)[2];
	if (pci_resource_len(pdev, 0) < SZ_1M ||
	    pci_resource_len(pdev, 2) < 2 * UAR_SIZE)
		return -ENODEV;
	f->bar0_bus = pci_bus_address(pdev, 0);
	f->bar2_bus = pci_bus_address(pdev, 2);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		return err;
	f->arena = dmam_alloc_coherent(&pdev->dev, ARENA_PAGES * SZ_4K, &f->dma,
				       GFP_KERNEL);
	if (!f->arena)
		return -ENOMEM;
	/* no interrupt reaches the guest: INTx off, MSI-X never on */
	pci_intx(pdev, 0);
	pci_set_master(pdev);
	pci_set_drvdata(pdev, f);

	t0 = ktime_get();
	err = fuzz(f);
	dev_reset(f);
	pci_info(pdev, "seed %lu: %u steps, %lu commands (%lu failed) in %lld ms%s\n",
		 seed, iters, commands - c0, cmd_errors - e0,
		 ktime_ms_delta(ktime_get(), t0),
		 err ? ": the HCR go bit never cleared" : "");
	if (err) {
		pci_clear_master(pdev);
		return err;
	}
	runs++;
	return 0;
}

static void cx3fuzz_remove(struct pci_dev *pdev)
{
	struct fz *f = pci_get_drvdata(pdev);

	/* nothing of the fuzz left in the device before the arena goes */
	dev_reset(f);
	pci_clear_master(pdev);
	pci_intx(pdev, 1);
}

static struct pci_driver cx3fuzz_driver = {
	.name = "cx3fuzz",
	.id_table = NULL,	/* binds by driver_override alone */
	.probe = cx3fuzz_probe,
	.remove = cx3fuzz_remove,
};
module_pci_driver(cx3fuzz_driver);

MODULE_DESCRIPTION("test-only fuzzer of the QEMU ConnectX-3 model");
MODULE_LICENSE("GPL");
