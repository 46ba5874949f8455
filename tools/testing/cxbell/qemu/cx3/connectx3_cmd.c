/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU model of a dual-port Mellanox ConnectX-3: firmware and init
 * commands, ICM and MTT translation, MPTs, EQs and event posting, and
 * the port commands.
 *
 * Mailbox layouts from Linux mlx4_core: fw.c (QUERY_FW, QUERY_DEV_CAP,
 * QUERY_PORT, QUERY_ADAPTER, INIT_HCA, map_cmd for MAP_FA/MAP_ICM*),
 * eq.c (EQ context, EQE, doorbells, MAP_EQ), mr.c (MPT entry, MTT
 * entries), port.c (SET_PORT), en_port.c (mlx4_en's view of QUERY_PORT
 * and DUMP_ETH_STATS); include/linux/mlx4/device.h (capability flags,
 * EQE), cmd.h (opcodes).
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "hw/pci/pci.h"
#include "connectx3.h"

enum {
	OP_QUERY_DEV_CAP	= 0x003,
	OP_QUERY_FW		= 0x004,
	OP_QUERY_ADAPTER	= 0x006,
	OP_INIT_HCA		= 0x007,
	OP_CLOSE_HCA		= 0x008,
	OP_INIT_PORT		= 0x009,
	OP_CLOSE_PORT		= 0x00a,
	OP_QUERY_HCA		= 0x00b,
	OP_SET_PORT		= 0x00c,
	OP_SW2HW_MPT		= 0x00d,
	OP_QUERY_MPT		= 0x00e,
	OP_HW2SW_MPT		= 0x00f,
	OP_MAP_EQ		= 0x012,
	OP_SW2HW_EQ		= 0x013,
	OP_HW2SW_EQ		= 0x014,
	OP_CONF_SPECIAL_QP	= 0x023,
	OP_MAD_IFC		= 0x024,
	OP_NOP			= 0x031,
	OP_MOD_STAT_CFG		= 0x034,
	OP_QUERY_PORT		= 0x043,
	OP_DUMP_ETH_STATS	= 0x049,
	OP_RUN_FW		= 0xff6,
	OP_UNMAP_ICM		= 0xff9,
	OP_MAP_ICM		= 0xffa,
	OP_UNMAP_ICM_AUX	= 0xffb,
	OP_MAP_ICM_AUX		= 0xffc,
	OP_SET_ICM_SIZE		= 0xffd,
	OP_UNMAP_FA		= 0xffe,
	OP_MAP_FA		= 0xfff,
};

/* EQE types (device.h) */
enum {
	EV_COMP		= 0x00,
	EV_PORT_CHANGE	= 0x09,
	EV_CMD		= 0x0a,
};

#define PORT_CHANGE_DOWN	1
#define PORT_CHANGE_ACTIVE	4

/* what the model advertises */
#define CX3_FW_PAGES		64	/* 256 KiB firmware area */
#define CX3_AUX_PAGES		4	/* ICM aux area, any ICM size */
#define CX3_MAX_EQS_LOG		6
#define CX3_MAX_EQS		BIT(CX3_MAX_EQS_LOG)
#define CX3_ETH_MTU		10240
#define CX3_LOG_MAX_MPTS	20
#define CX3_MPT_FLAG_PHYSICAL	BIT(9)	/* mlx4.h MLX4_MPT_FLAG_PHYSICAL */

typedef struct CX3Eq {
	bool valid;
	uint8_t log_nent;
	uint8_t intr;
	uint8_t log_page;	/* context log_page_size (+12 = bytes) */
	uint64_t mtt_base;
	uint32_t page_offset;
	uint32_t cons;		/* 24 bits, from the doorbell */
	uint32_t prod;
	bool armed;
} CX3Eq;

typedef struct CX3Mpt {
	uint32_t flags, key, pd;
	uint64_t start, length, mtt_addr;
	uint32_t entity_size, first_byte_offset;
} CX3Mpt;

typedef struct CX3Core {
	bool fw_running;
	uint32_t fa_pages;		/* 4 KiB pages given by MAP_FA */
	uint32_t aux_pages;		/* by MAP_ICM_AUX */
	bool icm_size_set;
	GHashTable *icm;		/* ICM va >> 12 -> bus address */
	GHashTable *mpt;		/* dMPT index -> CX3Mpt */
	uint8_t init_hca[0x200];	/* for QUERY_HCA */
	CX3Eq eq[CX3_MAX_EQS];
	int event_eq[64];		/* event type -> EQN, -1 none */
} CX3Core;

/* ---- helpers ---- */

static inline uint32_t rd32(const uint8_t *b, unsigned int o)
{
	return ldl_be_p(b + o);
}

static inline uint64_t rd64(const uint8_t *b, unsigned int o)
{
	return ldq_be_p(b + o);
}

static inline void wr16(uint8_t *b, unsigned int o, uint16_t v)
{
	stw_be_p(b + o, v);
}

static inline void wr32(uint8_t *b, unsigned int o, uint32_t v)
{
	stl_be_p(b + o, v);
}

static inline void wr64(uint8_t *b, unsigned int o, uint64_t v)
{
	stq_be_p(b + o, v);
}

#define BAD(st, ...) ({ cx3_violation(s, __VA_ARGS__); (st); })

/* ---- ICM and MTT ---- */

bool cx3_icm_addr(CX3State *s, uint64_t icm_va, dma_addr_t *addr)
{
	gpointer pa;

	if (!g_hash_table_lookup_extended(s->core->icm,
					  GSIZE_TO_POINTER(icm_va >> 12),
					  NULL, &pa)) {
		cx3_violation(s, "ICM address 0x%" PRIx64 " not mapped", icm_va);
		return false;
	}
	*addr = (dma_addr_t)GPOINTER_TO_SIZE(pa) + (icm_va & 0xfff);
	return true;
}

bool cx3_mtt_addr(CX3State *s, uint64_t mtt_base, unsigned int log_page,
		  uint64_t offset, dma_addr_t *addr)
{
	uint64_t idx, va, e;
	dma_addr_t pa;

	if (!s->hca.up || (mtt_base & 7) || log_page < 12 || log_page > 40) {
		cx3_violation(s, "MTT base 0x%" PRIx64 " page log %u", mtt_base,
			      log_page);
		return false;
	}
	idx = mtt_base / CX3_MTT_ENTRY_SZ + (offset >> log_page);
	va = s->hca.mtt_base + idx * CX3_MTT_ENTRY_SZ;
	if (!cx3_icm_addr(s, va, &pa) || !cx3_dma_read(s, pa, &e, 8))
		return false;
	e = be64_to_cpu(e);
	if (!(e & 1)) {
		cx3_violation(s, "MTT entry %" PRIu64 " not present", idx);
		return false;
	}
	*addr = (e & ~7ULL & ~((1ULL << log_page) - 1)) +
		(offset & ((1ULL << log_page) - 1));
	return true;
}

/* MAP_FA / MAP_ICM_AUX / MAP_ICM: 16-byte entries (fw.c mlx4_map_cmd) */
static int cmd_map(CX3State *s, CX3Cmd *c, uint32_t *pages)
{
	CX3Core *k = s->core;
	uint8_t buf[CX3_MAILBOX_SIZE];
	uint32_t n = c->in_mod, i, j;

	if (n == 0 || n > CX3_MAILBOX_SIZE / 16)
		return BAD(CX3_STAT_BAD_PARAM, "MAP 0x%x with %u entries",
			   c->opcode, n);
	if (!cx3_inbox(s, c, buf, n * 16))
		return CX3_STAT_BAD_PARAM;
	for (i = 0; i < n; i++) {
		uint64_t va = rd64(buf, i * 16);
		uint64_t pa = rd64(buf, i * 16 + 8);
		unsigned int lg = (pa & 0x1f) + 12;
		uint64_t np = 1ULL << (lg - 12);

		pa &= ~0xfffULL;
		if (lg > 32 || (pa & ((1ULL << lg) - 1)))
			return BAD(CX3_STAT_BAD_PARAM, "MAP 0x%x entry %u: "
				   "pa 0x%" PRIx64 " log %u", c->opcode, i,
				   pa, lg);
		if (c->opcode != OP_MAP_ICM) {
			*pages += np;
			continue;
		}
		if (va & ((1ULL << lg) - 1))
			return BAD(CX3_STAT_BAD_PARAM, "MAP_ICM va 0x%" PRIx64
				   " not aligned to log %u", va, lg);
		/* max_icm_sz is 2^36: at most 2^24 pages of 4 KiB */
		if (g_hash_table_size(k->icm) + np > (1u << 24))
			return BAD(CX3_STAT_BAD_RESOURCE, "MAP_ICM beyond the "
				   "advertised ICM size");
		for (j = 0; j < np; j++) {
			gpointer key = GSIZE_TO_POINTER((va >> 12) + j);

			if (g_hash_table_contains(k->icm, key))
				return BAD(CX3_STAT_BAD_PARAM, "MAP_ICM va 0x%"
					   PRIx64 " mapped twice",
					   va + j * 4096);
			g_hash_table_insert(k->icm, key,
					    GSIZE_TO_POINTER(pa + j * 4096));
		}
	}
	return CX3_STAT_OK;
}

static int cmd_unmap_icm(CX3State *s, CX3Cmd *c)
{
	uint64_t va = c->in_param;
	uint32_t i, n = 0;

	if (va & 0xfff || c->in_mod == 0)
		return BAD(CX3_STAT_BAD_PARAM, "UNMAP_ICM va 0x%" PRIx64
			   " count %u", va, c->in_mod);
	/*
	 * icm.c unmaps whole 256 KiB chunks even where the last chunk of a
	 * table was mapped shorter: pages not mapped in the range are fine,
	 * a range with nothing mapped is not.
	 */
	for (i = 0; i < c->in_mod; i++)
		n += g_hash_table_remove(s->core->icm,
					 GSIZE_TO_POINTER((va >> 12) + i));
	if (!n)
		return BAD(CX3_STAT_BAD_PARAM, "UNMAP_ICM of unmapped va 0x%"
			   PRIx64 " count %u", va, c->in_mod);
	return CX3_STAT_OK;
}

/* ---- EQs ---- */

static bool eq_post(CX3State *s, uint32_t eqn, uint8_t eqe[32])
{
	CX3Eq *eq;
	uint32_t nent;
	dma_addr_t pa;

	if (eqn >= CX3_MAX_EQS || !s->core->eq[eqn].valid) {
		cx3_violation(s, "event for EQ %u, not in hardware", eqn);
		return false;
	}
	eq = &s->core->eq[eqn];
	nent = 1u << eq->log_nent;
	if (((eq->prod - eq->cons) & 0xffffff) >= nent) {
		cx3_violation(s, "EQ %u overrun (prod %u cons %u)", eqn,
			      eq->prod & 0xffffff, eq->cons);
		return false;
	}
	eqe[31] = (eq->prod & nent) ? 0x80 : 0;	/* owner, per lap */
	if (!cx3_mtt_addr(s, eq->mtt_base, eq->log_page + 12,
			  eq->page_offset + (uint64_t)(eq->prod & (nent - 1)) * 32,
			  &pa) ||
	    !cx3_dma_write(s, pa, eqe, 32))
		return false;
	eq->prod++;
	s->ctr.eqes++;
	if (eq->armed) {
		eq->armed = false;
		cx3_interrupt(s, eq->intr);
	}
	return true;
}

void cx3_eq_comp(CX3State *s, uint32_t eqn, uint32_t cqn)
{
	uint8_t eqe[32] = { 0 };

	eqe[1] = EV_COMP;
	wr32(eqe, 4, cqn & 0xffffff);
	eq_post(s, eqn, eqe);
}

void cx3_eq_async(CX3State *s, uint8_t type, uint8_t subtype,
		  const uint8_t data[28])
{
	uint8_t eqe[32] = { 0 };
	int eqn = type < 64 ? s->core->event_eq[type] : -1;

	if (eqn < 0)
		return;		/* not mapped: the device drops it */
	eqe[1] = type;
	eqe[3] = subtype;
	memcpy(eqe + 4, data, 28);
	eq_post(s, eqn, eqe);
}

bool cx3_eq_cmd_done(CX3State *s, uint16_t token, uint8_t status,
		     uint64_t out_param)
{
	uint8_t eqe[32] = { 0 };
	int eqn = s->core->event_eq[EV_CMD];

	if (eqn < 0)
		return false;
	eqe[1] = EV_CMD;
	wr16(eqe, 6, token);
	eqe[15] = status;
	wr64(eqe, 16, out_param);
	return eq_post(s, eqn, eqe);
}

void cx3_eq_doorbell(CX3State *s, uint32_t eqn, uint32_t val)
{
	CX3Eq *eq;
	uint32_t ci = val & 0xffffff;

	s->ctr.doorbells++;
	s->ctr.eq_doorbells++;
	if (eqn >= CX3_MAX_EQS || !s->core->eq[eqn].valid) {
		cx3_violation(s, "doorbell 0x%x of EQ %u, not in hardware",
			      val, eqn);
		return;
	}
	eq = &s->core->eq[eqn];
	if (((eq->prod - ci) & 0xffffff) > (1u << eq->log_nent) ||
	    ((eq->prod - ci) & 0xffffff) > ((eq->prod - eq->cons) & 0xffffff)) {
		cx3_violation(s, "EQ %u consumer index %u: producer %u, was %u",
			      eqn, ci, eq->prod & 0xffffff, eq->cons);
		return;
	}
	eq->cons = ci;
	if (val & (1u << 31)) {
		if ((eq->prod & 0xffffff) != ci) {
			eq->armed = false;
			cx3_interrupt(s, eq->intr);
		} else {
			eq->armed = true;
		}
	}
}

static int cmd_sw2hw_eq(CX3State *s, CX3Cmd *c)
{
	uint8_t b[64];
	uint32_t eqn = c->in_mod;
	CX3Eq *eq;
	uint32_t flags, i;

	if (!s->hca.up)
		return BAD(CX3_STAT_BAD_SYS_STATE, "SW2HW_EQ before INIT_HCA");
	if (eqn >= CX3_MAX_EQS || eqn >= (1u << s->hca.log_num_eqs))
		return BAD(CX3_STAT_BAD_INDEX, "SW2HW_EQ of EQ %u", eqn);
	eq = &s->core->eq[eqn];
	if (eq->valid)
		return BAD(CX3_STAT_BAD_RES_STATE, "SW2HW_EQ of EQ %u twice",
			   eqn);
	if (!cx3_inbox(s, c, b, sizeof(b)))
		return CX3_STAT_BAD_PARAM;
	flags = rd32(b, 0x00);
	memset(eq, 0, sizeof(*eq));
	eq->page_offset = lduw_be_p(b + 0x0a);
	eq->log_nent = b[0x0c] & 0x1f;
	eq->intr = b[0x17];
	eq->log_page = b[0x18] & 0x3f;
	eq->mtt_base = (uint64_t)b[0x1b] << 32 | rd32(b, 0x1c);
	eq->cons = rd32(b, 0x28) & 0xffffff;
	eq->prod = rd32(b, 0x2c) & 0xffffff;
	if (eq->log_nent > 22 || eq->intr >= CX3_MSIX_VECTORS ||
	    eq->log_page > 28 || (eq->mtt_base & 7) || eq->page_offset)
		return BAD(CX3_STAT_BAD_PARAM, "SW2HW_EQ %u: log size %u, "
			   "intr %u, log page %u, mtt 0x%" PRIx64 ", page "
			   "offset %u", eqn, eq->log_nent, eq->intr,
			   eq->log_page, eq->mtt_base, eq->page_offset);
	eq->armed = ((flags >> 8) & 0xf) == 0x9;
	/*
	 * The device hands every EQE to itself first: mlx4_create_eq
	 * leaves the buffer zeroed and eq.c next_eqe_sw takes an EQE whose
	 * owner bit equals the lap's parity, so lap 0 entries must read
	 * owner = 1 until written.
	 */
	for (i = 0; i < (1u << eq->log_nent); i++) {
		static const uint8_t hw = 0x80;
		dma_addr_t pa;

		if (!cx3_mtt_addr(s, eq->mtt_base, eq->log_page + 12,
				  (uint64_t)i * 32 + 31, &pa) ||
		    !cx3_dma_write(s, pa, &hw, 1))
			return CX3_STAT_BAD_PARAM;
	}
	eq->valid = true;
	return CX3_STAT_OK;
}

static int cmd_hw2sw_eq(CX3State *s, CX3Cmd *c)
{
	uint32_t eqn = c->in_mod & 0xffffff;
	int i;

	if (eqn >= CX3_MAX_EQS || !s->core->eq[eqn].valid)
		return BAD(CX3_STAT_BAD_RES_STATE, "HW2SW_EQ of EQ %u, not in "
			   "hardware", eqn);
	s->core->eq[eqn].valid = false;
	for (i = 0; i < 64; i++)
		if (s->core->event_eq[i] == (int)eqn)
			s->core->event_eq[i] = -1;
	if (c->opmod == 0 && c->out_param) {
		uint8_t b[64] = { 0 };

		cx3_outbox(s, c, b, sizeof(b));
	}
	return CX3_STAT_OK;
}

static int cmd_map_eq(CX3State *s, CX3Cmd *c)
{
	uint32_t eqn = c->in_mod & 0x3ff;
	bool unmap = c->in_mod >> 31;
	int i;

	if (eqn >= CX3_MAX_EQS || (!unmap && !s->core->eq[eqn].valid))
		return BAD(CX3_STAT_BAD_PARAM, "MAP_EQ to EQ %u, not in "
			   "hardware", eqn);
	for (i = 0; i < 64; i++) {
		if (!(c->in_param >> i & 1))
			continue;
		if (unmap) {
			if (s->core->event_eq[i] == (int)eqn)
				s->core->event_eq[i] = -1;
		} else {
			s->core->event_eq[i] = eqn;
		}
	}
	return CX3_STAT_OK;
}

/* ---- MPTs ---- */

static uint32_t key_to_hw_index(uint32_t key)
{
	return key << 24 | key >> 8;
}

static int cmd_sw2hw_mpt(CX3State *s, CX3Cmd *c)
{
	uint8_t b[64];
	uint32_t idx = c->in_mod;
	CX3Mpt *m;

	if (!s->hca.up)
		return BAD(CX3_STAT_BAD_SYS_STATE, "SW2HW_MPT before INIT_HCA");
	if (idx >= (1u << s->hca.log_mpt_sz))
		return BAD(CX3_STAT_BAD_INDEX, "SW2HW_MPT index 0x%x", idx);
	if (g_hash_table_contains(s->core->mpt, GUINT_TO_POINTER(idx)))
		return BAD(CX3_STAT_BAD_RES_STATE, "SW2HW_MPT 0x%x twice", idx);
	if (!cx3_inbox(s, c, b, sizeof(b)))
		return CX3_STAT_BAD_PARAM;
	m = g_new0(CX3Mpt, 1);
	m->flags = rd32(b, 0x00);
	m->key = rd32(b, 0x08);
	m->pd = rd32(b, 0x0c) & 0xffffff;
	m->start = rd64(b, 0x10);
	m->length = rd64(b, 0x18);
	m->mtt_addr = rd64(b, 0x28) & ~7ULL;
	m->entity_size = rd32(b, 0x34);
	m->first_byte_offset = rd32(b, 0x38);
	if ((m->key & ((1u << s->hca.log_mpt_sz) - 1)) != idx ||
	    (!(m->flags & CX3_MPT_FLAG_PHYSICAL) &&
	     (m->entity_size < 12 || m->entity_size > 40))) {
		cx3_violation(s, "SW2HW_MPT 0x%x: key 0x%x, page shift %u",
			      idx, m->key, m->entity_size);
		g_free(m);
		return CX3_STAT_BAD_PARAM;
	}
	g_hash_table_insert(s->core->mpt, GUINT_TO_POINTER(idx), m);
	return CX3_STAT_OK;
}

static int cmd_hw2sw_mpt(CX3State *s, CX3Cmd *c)
{
	uint32_t idx = c->in_mod;

	if (!g_hash_table_remove(s->core->mpt, GUINT_TO_POINTER(idx)))
		return BAD(CX3_STAT_BAD_RES_STATE, "HW2SW_MPT 0x%x, not in "
			   "hardware", idx);
	if (c->opmod == 0 && c->out_param) {
		uint8_t b[64] = { 0 };

		cx3_outbox(s, c, b, sizeof(b));
	}
	return CX3_STAT_OK;
}

bool cx3_mpt_addr(CX3State *s, uint32_t lkey, uint64_t va, uint32_t len,
		  dma_addr_t *addr)
{
	uint32_t hw = key_to_hw_index(lkey);
	CX3Mpt *m;
	uint64_t off;
	uint32_t idx;

	if (!s->hca.up) {
		cx3_violation(s, "lkey 0x%x used before INIT_HCA", lkey);
		return false;
	}
	idx = hw & ((1u << s->hca.log_mpt_sz) - 1);
	m = g_hash_table_lookup(s->core->mpt, GUINT_TO_POINTER(idx));
	if (!m || m->key != hw) {
		cx3_violation(s, "lkey 0x%x: no such MPT", lkey);
		return false;
	}
	if (va < m->start ||
	    (m->length != ~0ULL &&
	     (va - m->start >= m->length ||
	      len > m->length - (va - m->start)))) {
		cx3_violation(s, "lkey 0x%x: 0x%" PRIx64 "+%u outside the "
			      "region", lkey, va, len);
		return false;
	}
	if (m->flags & CX3_MPT_FLAG_PHYSICAL) {
		*addr = va;
		return true;
	}
	off = va - m->start + m->first_byte_offset;
	if (((off + len - 1) >> m->entity_size) != (off >> m->entity_size)) {
		cx3_violation(s, "lkey 0x%x: 0x%" PRIx64 "+%u crosses a page "
			      "(the model maps one page per access)", lkey, va,
			      len);
		return false;
	}
	return cx3_mtt_addr(s, m->mtt_addr, m->entity_size, off, addr);
}

/* ---- firmware and HCA ---- */

static int cmd_query_fw(CX3State *s, CX3Cmd *c)
{
	uint8_t b[0x100] = { 0 };

	/* fw 2.42.5000; fw.c: bits 31:16 subminor, 15:0 minor */
	wr64(b, 0x00, (uint64_t)CX3_FW_PAGES << 48 | 2ULL << 32 |
	     5000u << 16 | 42);
	b[0x09] = 0;			/* PPF id */
	wr16(b, 0x0a, 3);		/* cmd_if_rev: new port commands */
	b[0x0f] = 4;			/* log max outstanding commands */
	wr64(b, 0x30, CX3_CATAS_BASE);
	wr32(b, 0x38, CX3_CATAS_DWORDS);
	b[0x3c] = 0;			/* catas in BAR0 */
	wr64(b, 0x20, CX3_CLR_INT);	/* clr_int base */
	b[0x28] = 0;			/* clr_int in BAR0 */
	return cx3_reply(s, c, b, sizeof(b));
}

static int cmd_query_dev_cap(CX3State *s, CX3Cmd *c)
{
	uint8_t b[0x100] = { 0 };
	uint64_t flags;

	if (!s->core->fw_running)
		return BAD(CX3_STAT_BAD_SYS_STATE, "QUERY_DEV_CAP before RUN_FW");
	b[0x10] = 16;		/* log max SRQ WQEs */
	b[0x11] = 16;		/* log max QP WQEs */
	b[0x12] = 4;		/* log reserved QPs */
	b[0x13] = 18;		/* log max QPs (profile asks 2^18) */
	b[0x14] = 4 << 4;	/* log reserved SRQs */
	b[0x15] = 16;		/* log max SRQs */
	b[0x19] = 22;		/* log max CQEs */
	b[0x1a] = 7;		/* log reserved CQs */
	b[0x1b] = 16;		/* log max CQs */
	b[0x1d] = CX3_LOG_MAX_MPTS;
	b[0x1e] = 2;		/* log reserved EQs */
	b[0x1f] = CX3_MAX_EQS_LOG;
	b[0x20] = 4 << 4;	/* log reserved MTTs */
	b[0x21] = 32;		/* log max MR size */
	b[0x22] = 4;		/* log reserved MPTs */
	b[0x23] = 20;		/* log max MTT segments */
	b[0x27] = 0;
	b[0x29] = 4;		/* log max requester per QP */
	b[0x2b] = 4;		/* log max responder per QP */
	b[0x2d] = 16;		/* LSO: max_gso_sz 2^16 (mlx4_core fw.c) */
	b[0x2e] = 0x10 | 7;	/* RSS: Toeplitz, table 2^7 */
	b[0x2f] = 4;
	b[0x37] = CX3_NUM_PORTS;
	b[0x38] = 31;		/* log max message */
	/*
	 * flags (include/linux/mlx4/device.h): RC, UD, UC, SRQ; UDP_RSS
	 * (bit 40: the RSS context may hash UDP ports, en_rx.c sets
	 * MLX4_RSS_UDP_IPV4/6 and base_qpn_udp), B0 steering
	 * (VEP_UC/MC_STEER); BLH (bit 15: the big LSO header, which
	 * mlx4_en's en_main.c takes as LSO support)
	 */
	flags = (1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 6) |
		(1ULL << 15) |
		(1ULL << 40) | (1ULL << 41) | (1ULL << 42);
	wr32(b, 0x40, flags >> 32);
	wr32(b, 0x44, (uint32_t)flags);
	b[0x48] = 1 << 4;	/* one reserved UAR (index 0) */
	b[0x49] = 0;		/* uar_size 2^(0+20) = CX3_UAR_SIZE */
	b[0x4b] = 12;		/* min page 4 KiB */
	b[0x4c] = 0x80;		/* BlueFlame */
	b[0x4d] = 9;		/* 512-byte BF registers */
	b[0x4e] = 3;		/* 8 per page */
	b[0x4f] = 8;
	b[0x51] = 32;		/* max SQ S/G */
	wr16(b, 0x52, 1008);	/* max SQ WQE bytes */
	b[0x55] = 32;		/* max RQ S/G */
	wr16(b, 0x56, 512);
	b[0x61] = 8;		/* log max QPs per MCG */
	b[0x62] = 0;		/* reserved MGMs */
	b[0x63] = 13;		/* log max MCGs */
	b[0x64] = 1 << 4;	/* reserved PDs */
	b[0x65] = 17;		/* log max PDs */
	b[0x66] = 0;
	b[0x67] = 16;		/* log max XRCDs (no XRC flag) */
	wr16(b, 0x80, CX3_RDMARC_ENTRY_SZ);
	wr16(b, 0x82, CX3_QPC_ENTRY_SZ);
	wr16(b, 0x84, CX3_AUX_ENTRY_SZ);
	wr16(b, 0x86, CX3_ALTC_ENTRY_SZ);
	wr16(b, 0x88, CX3_EQC_ENTRY_SZ);
	wr16(b, 0x8a, CX3_CQC_ENTRY_SZ);
	wr16(b, 0x8c, CX3_SRQ_ENTRY_SZ);
	wr16(b, 0x8e, CX3_CMPT_ENTRY_SZ);
	wr16(b, 0x90, CX3_MTT_ENTRY_SZ);
	wr16(b, 0x92, CX3_DMPT_ENTRY_SZ);
	wr32(b, 0x94, 0);	/* no BMME */
	wr32(b, 0x98, 0);	/* reserved lkey */
	b[0x9e] = 1 << 5;	/* ETS_CFG: SET_PORT scheduler, prio2tc */
	wr64(b, 0xa0, 1ULL << 36);	/* max ICM */
	return cx3_reply(s, c, b, sizeof(b));
}

static uint64_t port_mac(unsigned int port)	/* 1-based */
{
	return 0x0002c9330000ULL | port;	/* Mellanox OUI 00:02:c9 */
}

bool cx3_port_link(CX3State *s, unsigned int port)
{
	return s->port[0].open && s->port[1].open && !s->unplugged;
}

static int cmd_query_port(CX3State *s, CX3Cmd *c)
{
	uint8_t b[0x100] = { 0 };
	unsigned int port = c->in_mod & 0xff;

	if (!s->core->fw_running)
		return BAD(CX3_STAT_BAD_SYS_STATE, "QUERY_PORT before RUN_FW");
	if (port < 1 || port > CX3_NUM_PORTS)
		return BAD(CX3_STAT_BAD_PARAM, "QUERY_PORT of port %u", port);
	/* link up bit 7, Ethernet only (type 2) */
	b[0x00] = (cx3_port_link(s, port - 1) ? 0x80 : 0) | 0x02;
	b[0x01] = 0x05;			/* IB MTU cap field; no autoneg */
	wr16(b, 0x02, CX3_ETH_MTU);
	b[0x05] = 0x01;			/* mlx4_en: 10G XFI */
	b[0x06] = 0x02;			/* width */
	b[0x07] = 0x00;			/* 1 GID, 1 P_Key */
	b[0x0a] = 0x77;			/* 2^7 MACs, 2^7 VLANs */
	b[0x0b] = 0x81;			/* 8 traffic classes, 1 VL */
	wr64(b, 0x10, port_mac(port));
	wr32(b, 0x18, 0x07u << 24 | 0x0002c9);	/* DA cable, Mellanox */
	return cx3_reply(s, c, b, sizeof(b));
}

static int cmd_init_hca(CX3State *s, CX3Cmd *c)
{
	uint8_t b[0x200];
	CX3Hca *h = &s->hca;

	if (!s->core->fw_running || !s->core->icm_size_set || h->up)
		return BAD(CX3_STAT_BAD_SYS_STATE, "INIT_HCA in the wrong "
			   "state (fw %d, icm size %d, hca %d)",
			   s->core->fw_running, s->core->icm_size_set, h->up);
	if (!cx3_inbox(s, c, b, sizeof(b)))
		return CX3_STAT_BAD_PARAM;
	if (b[0] != 2)
		return BAD(CX3_STAT_BAD_PARAM, "INIT_HCA version %u", b[0]);
	memset(h, 0, sizeof(*h));
	h->qpc_base = rd64(b, 0x30) & ~0xffULL;
	h->log_num_qps = b[0x37] & 0x1f;
	h->srqc_base = rd64(b, 0x48) & ~0xffULL;
	h->log_num_srqs = b[0x4f] & 0x1f;
	h->cqc_base = rd64(b, 0x50) & ~0xffULL;
	h->log_num_cqs = b[0x57] & 0x1f;
	h->altc_base = rd64(b, 0x60);
	h->auxc_base = rd64(b, 0x70);
	h->eqc_base = rd64(b, 0x80) & ~0xffULL;
	h->log_num_eqs = b[0x87] & 0x1f;
	h->rdmarc_base = rd64(b, 0x90) & ~0xffULL;
	h->log_rd_per_qp = b[0x97] & 0x7;
	h->mc_base = rd64(b, 0xc0);
	h->log_mc_entry_sz = b[0xd3] & 0x1f;
	h->log_mc_hash_sz = b[0xd7] & 0x1f;
	h->uc_steering = b[0xd8] & 0x40;
	h->log_mc_table_sz = b[0xdb] & 0x1f;
	h->dmpt_base = rd64(b, 0xf0);
	h->log_mpt_sz = b[0xfb] & 0x3f;
	h->mtt_base = rd64(b, 0x100);
	h->cmpt_base = rd64(b, 0x108);
	h->log_uar_sz = b[0x12a] & 0xf;
	h->log_uar_page_sz = b[0x12b];
	/*
	 * 0x58: bits 29/30 ask for 64-byte EQEs/CQEs, 0x5b strides; 0x1e3
	 * the DMFS entry size: none of them offered
	 */
	if ((rd32(b, 0x58) & (3u << 29)) || b[0x5b] || b[0x1e3] ||
	    h->log_num_eqs > CX3_MAX_EQS_LOG ||
	    h->log_mpt_sz > CX3_LOG_MAX_MPTS || h->log_uar_page_sz != 0)
		return BAD(CX3_STAT_BAD_PARAM, "INIT_HCA asks for what "
			   "QUERY_DEV_CAP did not offer (eqe/cqe 0x%x/0x%x, "
			   "log eqs %u, log mpts %u, uar page %u)",
			   rd32(b, 0x58), b[0x5b], h->log_num_eqs, h->log_mpt_sz,
			   h->log_uar_page_sz);
	/*
	 * MTT entries are 8 bytes, read from ICM at mtt_base + 8 * index
	 * (cx3_mtt_addr): an unaligned base would make every entry the
	 * bytes of two (mlx4 profile.c aligns each table to its size)
	 */
	if (h->mtt_base & (CX3_MTT_ENTRY_SZ - 1))
		return BAD(CX3_STAT_BAD_PARAM, "INIT_HCA MTT base 0x%" PRIx64
			   " not aligned to its %u-byte entries", h->mtt_base,
			   CX3_MTT_ENTRY_SZ);
	memcpy(s->core->init_hca, b, sizeof(b));
	h->up = true;
	return CX3_STAT_OK;
}

static void port_event(CX3State *s, bool before)
{
	uint8_t data[28] = { 0 };
	unsigned int p;

	if (cx3_port_link(s, 0) == before)
		return;
	for (p = 1; p <= CX3_NUM_PORTS; p++) {
		/* port_change.port (device.h struct mlx4_eqe): EQE byte 12 */
		wr32(data, 8, p << 28);
		cx3_eq_async(s, EV_PORT_CHANGE, before ? PORT_CHANGE_DOWN :
			     PORT_CHANGE_ACTIVE, data);
	}
}

void cx3_cable_set(CX3State *s, bool plugged)
{
	bool before = cx3_port_link(s, 0);

	s->unplugged = !plugged;
	port_event(s, before);
}

static int cmd_port_open(CX3State *s, CX3Cmd *c, bool open)
{
	unsigned int port = c->in_mod;
	bool before = cx3_port_link(s, 0);

	if (!s->hca.up)
		return BAD(CX3_STAT_BAD_SYS_STATE, "%s before INIT_HCA",
			   open ? "INIT_PORT" : "CLOSE_PORT");
	if (port < 1 || port > CX3_NUM_PORTS)
		return BAD(CX3_STAT_BAD_PARAM, "%s of port %u",
			   open ? "INIT_PORT" : "CLOSE_PORT", port);
	s->port[port - 1].open = open;
	port_event(s, before);
	return CX3_STAT_OK;
}

static int cmd_set_port(CX3State *s, CX3Cmd *c)
{
	unsigned int port = c->in_mod & 0xff, tbl = (c->in_mod >> 8) & 0xff;
	uint8_t b[CX3_MAILBOX_SIZE];
	CX3Port *p;
	int i;

	if (!s->hca.up)
		return BAD(CX3_STAT_BAD_SYS_STATE, "SET_PORT before INIT_HCA");
	if (port < 1 || port > CX3_NUM_PORTS || c->opmod != 1)
		return BAD(CX3_STAT_BAD_PARAM, "SET_PORT port %u opmod %u "
			   "(Ethernet ports only)", port, c->opmod);
	p = &s->port[port - 1];
	if (!cx3_inbox(s, c, b, sizeof(b)))
		return CX3_STAT_BAD_PARAM;
	switch (tbl) {
	case 0x0: {	/* GENERAL */
		uint16_t mtu = lduw_be_p(b + 6);

		if ((b[3] & 1) && (mtu < 64 || mtu > CX3_ETH_MTU))
			return BAD(CX3_STAT_BAD_PARAM, "SET_PORT general: MTU "
				   "%u", mtu);
		if (b[3] & 1)
			p->mtu = mtu;
		/* mlx4 port.c: MLX4_FLAG_V_PPRX/PPTX, enable in bit 7 */
		if (b[3] & 2)
			p->pause_rx = b[12] & 0x80;
		if (b[3] & 4)
			p->pause_tx = b[8] & 0x80;
		return CX3_STAT_OK;
	}
	case 0x1:	/* RQP_CALC */
		p->base_qpn = rd32(b, 0) & 0xffffff;
		p->base_qpn_set = 1;
		return CX3_STAT_OK;
	case 0x2:	/* MAC_TABLE */
		for (i = 0; i < CX3_MAC_TABLE; i++)
			p->mac[i] = rd64(b, i * 8);
		return CX3_STAT_OK;
	case 0x3:	/* VLAN_TABLE */
		for (i = 0; i < CX3_VLAN_TABLE; i++)
			p->vlan[i] = rd32(b, i * 4);
		return CX3_STAT_OK;
	case 0x4:	/* PRIO_MAP */
	case 0x8:	/* PRIO2TC */
		return CX3_STAT_OK;
	case 0x9:	/* SCHEDULER: 8 x { pg, bw %, bw units, bw value } */
		for (i = 0; i < 8; i++) {
			const uint8_t *t = b + 8 * i;

			/* fw_qos.c: units 3 (100 Mb/s) or 4 (1 Gb/s) */
			if (lduw_be_p(t) > 15 || lduw_be_p(t + 2) > 100 ||
			    (lduw_be_p(t + 4) != 3 && lduw_be_p(t + 4) != 4))
				return BAD(CX3_STAT_BAD_PARAM, "SET_PORT "
					   "scheduler: TC %d pg %u bw %u%% "
					   "units %u", i, lduw_be_p(t),
					   lduw_be_p(t + 2), lduw_be_p(t + 4));
		}
		return CX3_STAT_OK;
	}
	return BAD(CX3_STAT_BAD_PARAM, "SET_PORT table 0x%x", tbl);
}

static int cmd_query_adapter(CX3State *s, CX3Cmd *c)
{
	uint8_t b[0x100] = { 0 };
	static const char board[16] = "MT_1090120019";
	int i;

	b[0x10] = CX3_INTA_PIN;	/* clr_int bit */
	/* board id at vsd + 0xd0, each dword byte-swapped (fw.c) */
	for (i = 0; i < 4; i++)
		stl_le_p(b + 0x20 + 0xd0 + 4 * i, ldl_be_p(board + 4 * i));
	return cx3_reply(s, c, b, sizeof(b));
}

/* MAD_IFC: an Ethernet port has no IB agent; answer an empty GetResp */
static int cmd_mad_ifc(CX3State *s, CX3Cmd *c)
{
	uint8_t b[256];

	if (!cx3_inbox(s, c, b, sizeof(b)))
		return CX3_STAT_BAD_PARAM;
	b[3] |= 0x80;		/* method: response */
	b[4] = 0;		/* status */
	b[5] = 0;
	memset(b + 64, 0, sizeof(b) - 64);
	return cx3_reply(s, c, b, sizeof(b));
}

void cx3_port_count(CX3State *s, unsigned int port, bool tx,
		    const uint8_t *frame, size_t len)
{
	unsigned int prio = CX3_PRIO_NOVLAN;
	CX3PortStats *st;

	if (port < 1 || port > CX3_NUM_PORTS)
		return;
	st = &s->port[port - 1].stats;
	/* an 802.1Q tag: TPID 0x8100 at byte 12, PCP the top 3 bits */
	if (len >= 18 && lduw_be_p(frame + 12) == 0x8100)
		prio = frame[14] >> 5;
	if (tx) {
		st->tx_frames[prio]++;
		st->tx_bytes[prio] += len;
	} else {
		st->rx_frames[prio]++;
		st->rx_bytes[prio] += len;
	}
}

void cx3_port_drop(CX3State *s, unsigned int port, bool tx)
{
	if (port < 1 || port > CX3_NUM_PORTS)
		return;
	if (tx)
		s->port[port - 1].stats.tx_dropped++;
	else
		s->port[port - 1].stats.rx_dropped++;
}

/*
 * DUMP_ETH_STATS (mlx4_en en_port.c, struct mlx4_en_stat_out_mbox in
 * en_port.h): in_mod port | reset << 8. Per-priority counters are
 * big-endian u64 with a stride of 0x18 bytes, prio 0-7 then "novlan":
 * ROCT (rx octets) at 0x3b8, RTOT (rx frames) at 0x480, TOCT at 0x9b8,
 * TTOT at 0xa98; RDROP (be32) at 0xb98, TDROP at 0xba8. Everything the
 * model does not count (errors, pause, multicast/broadcast split) is 0.
 */
#define ETH_STATS_SIZE		0xbb0
#define ETH_STATS_STRIDE	0x18
#define ETH_STATS_ROCT		0x3b8
#define ETH_STATS_RTOT		0x480
#define ETH_STATS_TOCT		0x9b8
#define ETH_STATS_TTOT		0xa98
#define ETH_STATS_RDROP		0xb98
#define ETH_STATS_TDROP		0xba8

static int cmd_dump_eth_stats(CX3State *s, CX3Cmd *c)
{
	uint8_t b[ETH_STATS_SIZE] = { 0 };
	unsigned int port = c->in_mod & 0xff, i;
	CX3PortStats *st;

	if (!s->hca.up)
		return BAD(CX3_STAT_BAD_SYS_STATE, "DUMP_ETH_STATS before "
			   "INIT_HCA");
	/*
	 * bit 12 (MLX4_DUMP_ETH_STATS_FLOW_CONTROL) asks for per-priority
	 * flow statistics, only with FLOWSTATS_EN, which is not offered
	 */
	if (port < 1 || port > CX3_NUM_PORTS || (c->in_mod & ~0x1ffu))
		return BAD(CX3_STAT_BAD_PARAM, "DUMP_ETH_STATS in_mod 0x%x",
			   c->in_mod);
	st = &s->port[port - 1].stats;
	for (i = 0; i < CX3_NUM_PRIO; i++) {
		unsigned int o = i * ETH_STATS_STRIDE;

		wr64(b, ETH_STATS_ROCT + o, st->rx_bytes[i]);
		wr64(b, ETH_STATS_RTOT + o, st->rx_frames[i]);
		wr64(b, ETH_STATS_TOCT + o, st->tx_bytes[i]);
		wr64(b, ETH_STATS_TTOT + o, st->tx_frames[i]);
	}
	wr32(b, ETH_STATS_RDROP, st->rx_dropped);
	wr32(b, ETH_STATS_TDROP, st->tx_dropped);
	if (!cx3_outbox(s, c, b, sizeof(b)))
		return CX3_STAT_BAD_PARAM;
	if (c->in_mod & 0x100)
		memset(st, 0, sizeof(*st));
	return CX3_STAT_OK;
}

int cx3_core_cmd(CX3State *s, CX3Cmd *c)
{
	CX3Core *k = s->core;
	uint32_t pages = 0;
	int st;

	switch (c->opcode) {
	case OP_QUERY_FW:
		return cmd_query_fw(s, c);
	case OP_MAP_FA:
		if (k->fw_running)
			return BAD(CX3_STAT_BAD_SYS_STATE, "MAP_FA while "
				   "running");
		st = cmd_map(s, c, &pages);
		k->fa_pages += pages;
		return st;
	case OP_RUN_FW:
		if (k->fw_running || k->fa_pages < CX3_FW_PAGES)
			return BAD(CX3_STAT_BAD_SYS_STATE, "RUN_FW with %u of "
				   "%u FA pages, running %d", k->fa_pages,
				   CX3_FW_PAGES, k->fw_running);
		k->fw_running = true;
		return CX3_STAT_OK;
	case OP_UNMAP_FA:
		if (s->hca.up)
			return BAD(CX3_STAT_BAD_SYS_STATE, "UNMAP_FA before "
				   "CLOSE_HCA");
		k->fw_running = false;
		k->fa_pages = 0;
		return CX3_STAT_OK;
	case OP_MOD_STAT_CFG:
		return CX3_STAT_OK;
	case OP_QUERY_DEV_CAP:
		return cmd_query_dev_cap(s, c);
	case OP_QUERY_PORT:
		return cmd_query_port(s, c);
	case OP_SET_ICM_SIZE:
		if (!k->fw_running || s->hca.up)
			return BAD(CX3_STAT_BAD_SYS_STATE, "SET_ICM_SIZE");
		if (c->in_param > (1ULL << 36))
			return BAD(CX3_STAT_BAD_PARAM, "SET_ICM_SIZE 0x%"
				   PRIx64, c->in_param);
		k->icm_size_set = true;
		c->out_param = CX3_AUX_PAGES;
		c->out_is_imm = true;
		return CX3_STAT_OK;
	case OP_MAP_ICM_AUX:
		if (!k->icm_size_set)
			return BAD(CX3_STAT_BAD_SYS_STATE, "MAP_ICM_AUX before "
				   "SET_ICM_SIZE");
		st = cmd_map(s, c, &pages);
		k->aux_pages += pages;
		return st;
	case OP_UNMAP_ICM_AUX:
		k->aux_pages = 0;
		return CX3_STAT_OK;
	case OP_MAP_ICM:
		if (k->aux_pages < CX3_AUX_PAGES)
			return BAD(CX3_STAT_BAD_SYS_STATE, "MAP_ICM with %u "
				   "of %u aux pages", k->aux_pages,
				   CX3_AUX_PAGES);
		return cmd_map(s, c, &pages);
	case OP_UNMAP_ICM:
		return cmd_unmap_icm(s, c);
	case OP_INIT_HCA:
		return cmd_init_hca(s, c);
	case OP_CLOSE_HCA:
		if (!s->hca.up)
			return BAD(CX3_STAT_BAD_SYS_STATE, "CLOSE_HCA without "
				   "INIT_HCA");
		memset(&s->hca, 0, sizeof(s->hca));
		memset(s->port, 0, sizeof(s->port));
		memset(k->eq, 0, sizeof(k->eq));
		memset(k->event_eq, 0xff, sizeof(k->event_eq));
		g_hash_table_remove_all(k->mpt);
		return CX3_STAT_OK;
	case OP_QUERY_ADAPTER:
		return cmd_query_adapter(s, c);
	case OP_QUERY_HCA: {
		/* fw.c mlx4_QUERY_HCA: INIT_HCA's layout, core clock 0x0c */
		uint8_t b[0x200];

		if (!s->hca.up)
			return BAD(CX3_STAT_BAD_SYS_STATE, "QUERY_HCA before "
				   "INIT_HCA");
		memcpy(b, k->init_hca, sizeof(b));
		wr32(b, 0x04, 0);
		wr16(b, 0x0c, 427);	/* MHz */
		return cx3_reply(s, c, b, sizeof(b));
	}
	case OP_SW2HW_EQ:
		return cmd_sw2hw_eq(s, c);
	case OP_HW2SW_EQ:
		return cmd_hw2sw_eq(s, c);
	case OP_MAP_EQ:
		return cmd_map_eq(s, c);
	case OP_NOP:
		return CX3_STAT_OK;
	case OP_CONF_SPECIAL_QP:
		return CX3_STAT_OK;
	case OP_MAD_IFC:
		return cmd_mad_ifc(s, c);
	case OP_SW2HW_MPT:
		return cmd_sw2hw_mpt(s, c);
	case OP_HW2SW_MPT:
		return cmd_hw2sw_mpt(s, c);
	case OP_SET_PORT:
		return cmd_set_port(s, c);
	case OP_INIT_PORT:
		return cmd_port_open(s, c, true);
	case OP_CLOSE_PORT:
		return cmd_port_open(s, c, false);
	case OP_DUMP_ETH_STATS:
		return cmd_dump_eth_stats(s, c);
	}
	return CX3_STAT_BAD_OP;
}

void cx3_core_init(CX3State *s)
{
	s->core = g_new0(CX3Core, 1);
	s->core->icm = g_hash_table_new(g_direct_hash, g_direct_equal);
	s->core->mpt = g_hash_table_new_full(g_direct_hash, g_direct_equal,
					     NULL, g_free);
}

void cx3_core_reset(CX3State *s)
{
	CX3Core *k = s->core;

	k->fw_running = false;
	k->fa_pages = 0;
	k->aux_pages = 0;
	k->icm_size_set = false;
	g_hash_table_remove_all(k->icm);
	g_hash_table_remove_all(k->mpt);
	memset(k->eq, 0, sizeof(k->eq));
	memset(k->event_eq, 0xff, sizeof(k->event_eq));
}
