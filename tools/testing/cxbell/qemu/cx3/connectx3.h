/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU model of a dual-port Mellanox ConnectX-3 (PCI 15b3:1003) for the
 * stock mlx4_core/mlx4_en and cxbell_mlx4: shared state and the
 * interfaces between its parts.
 *
 *   connectx3.c      PCI function, BAR0 (HCR, reset, ownership, MSI-X,
 *                    model counters), BAR2 (UAR and BlueFlame pages),
 *                    command dispatcher, mailboxes, violations
 *   connectx3_cmd.c  firmware/init commands, ICM and MTT translation,
 *                    MPTs, EQs and event posting, port commands
 *   connectx3_dp.c   CQs, QPs and their state machine, steering,
 *                    send and receive engines, the cable between ports
 */
#ifndef HW_NET_CXBELL_CONNECTX3_H
#define HW_NET_CXBELL_CONNECTX3_H

#include "hw/pci/pci.h"

#define TYPE_CONNECTX3 "connectx3"
OBJECT_DECLARE_SIMPLE_TYPE(CX3State, CONNECTX3)

#define CX3_VENDOR_ID		0x15b3
#define CX3_DEVICE_ID		0x1003
#define CX3_BAR0_SIZE		BIT(20)
#define CX3_NUM_PORTS		2

/* BAR0 registers (mlx4_core cmd.c, main.c, reset.c) */
#define CX3_HCR_BASE		0x80680	/* 7 big-endian dwords */
#define CX3_OWNER		0x8069c	/* ownership semaphore: reads 0 */
#define CX3_RESET_REG		0xf0010	/* swab32(1) resets the device */
#define CX3_RESET_SEM		0xf03fc	/* reset semaphore: reads 0 */
/* INTx clear (QUERY_FW clr_int): a 64-bit big-endian pin mask */
#define CX3_CLR_INT		0xf00d8
#define CX3_INTA_PIN		0	/* QUERY_ADAPTER inta_pin */
#define CX3_CATAS_BASE		0x1f000	/* catastrophic error buffer */
#define CX3_CATAS_DWORDS	0x10	/* reads zero: no error */
#define CX3_MSIX_TABLE		0x7c000
#define CX3_MSIX_PBA		0x7d000
#define CX3_MSIX_VECTORS	64

/*
 * BAR2: CX3_UAR_SIZE of UAR pages (QUERY_DEV_CAP uar_size, 4 KiB each,
 * page N = UAR index N), then as much again of BlueFlame pages (main.c
 * map_bf_area: BlueFlame page N at CX3_UAR_SIZE + N * 4 KiB).
 */
#define CX3_UAR_SIZE		BIT(20)
#define CX3_BAR2_SIZE		(2 * CX3_UAR_SIZE)

/*
 * The model's counters, in the order of the BAR0 counters page
 * (CX3_CTR_PAGE): a self-describing table the guest tool reads.
 * Both parts add their counters here; names are what tests read.
 */
#define CX3_COUNTERS(X)							\
	X(commands) X(cmd_errors) X(violations)				\
	X(doorbells) X(sq_doorbells) X(cq_doorbells) X(eq_doorbells)	\
	X(bf_writes) X(wqes) X(cqes) X(eqes) X(interrupts)		\
	X(cq_arms) X(tx_frames) X(tx_bytes) X(rx_frames) X(rx_bytes)	\
	X(rx_dropped) X(tx_paused) X(pcie_in_bytes) X(pcie_out_bytes)	\
	X(pcie_in_tlps) X(pcie_out_tlps) X(pcie_tlp_overhead_bytes)	\
	X(link_dropped) X(sq_errors) X(lso_wqes) X(lso_segments)

typedef struct CX3Counters {
#define CX3_CTR_FIELD(n) uint64_t n;
	CX3_COUNTERS(CX3_CTR_FIELD)
#undef CX3_CTR_FIELD
} CX3Counters;

/*
 * BAR0 page with the counters: absent on silicon, never used by mlx4.
 * Little-endian, read-only: u32 CX3_CTR_MAGIC, u32 count, then count
 * entries of { char name[24] NUL-padded; u64 value } in CX3_COUNTERS
 * order. Only 4-byte aligned reads are meaningful.
 */
#define CX3_CTR_PAGE		0xc0000
#define CX3_CTR_MAGIC		0x43583343
#define CX3_CTR_NAME_LEN	24
#define CX3_CTR_ENTRY		32

/*
 * BAR0 page of test controls: absent on silicon, never used by mlx4.
 * Little-endian u32 registers:
 *   CX3_TEST_CABLE  1: the ports are cabled (power-on and after a reset),
 *                   0: the cable is pulled, no link on either port
 *   CX3_TEST_FAIL_SENDS  N: the next N send WQEs the device executes fail
 *                   with a local QP operation error CQE (the QP goes to
 *                   the send queue error state); reads what is left
 */
#define CX3_TEST_PAGE		0xc1000
#define CX3_TEST_CABLE		0x0
#define CX3_TEST_FAIL_SENDS	0x4

/* command status, as mlx4_core's cmd.c decodes it */
enum {
	CX3_STAT_OK		= 0x00,
	CX3_STAT_INTERNAL_ERR	= 0x01,
	CX3_STAT_BAD_OP		= 0x02,
	CX3_STAT_BAD_PARAM	= 0x03,
	CX3_STAT_BAD_SYS_STATE	= 0x04,
	CX3_STAT_BAD_RESOURCE	= 0x05,
	CX3_STAT_RESOURCE_BUSY	= 0x06,
	CX3_STAT_EXCEED_LIM	= 0x08,
	CX3_STAT_BAD_RES_STATE	= 0x09,
	CX3_STAT_BAD_INDEX	= 0x0a,
	CX3_STAT_BAD_NVMEM	= 0x0b,
	CX3_STAT_ICM_ERROR	= 0x0c,
	CX3_STAT_BAD_QP_STATE	= 0x10,
	CX3_STAT_BAD_SEG_PARAM	= 0x20,
	CX3_STAT_REG_BOUND	= 0x21,
	CX3_STAT_BAD_PKT	= 0x30,
	CX3_STAT_BAD_SIZE	= 0x40,
};

/* A command as posted in the HCR. */
typedef struct CX3Cmd {
	uint16_t opcode;
	uint8_t opmod;
	uint32_t in_mod;
	uint64_t in_param;	/* immediate, or the input mailbox address */
	/* immediate out (set by the handler), or the output mailbox */
	uint64_t out_param;
	bool out_is_imm;	/* handler sets: out_param is an immediate */
} CX3Cmd;

#define CX3_MAILBOX_SIZE	4096

#define CX3_MAC_TABLE		128
#define CX3_VLAN_TABLE		128

/*
 * A port's MAC counters, what DUMP_ETH_STATS reports (mlx4_en en_port.c
 * mlx4_en_DUMP_ETH_STATS): frames and bytes by priority, index 0-7 the
 * 802.1Q PCP of a tagged frame, CX3_PRIO_NOVLAN an untagged one; frames
 * the port dropped. Counted by the datapath through cx3_port_count and
 * cx3_port_drop; DUMP_ETH_STATS with its reset bit clears them.
 */
#define CX3_PRIO_NOVLAN		8
#define CX3_NUM_PRIO		9
typedef struct CX3PortStats {
	uint64_t rx_frames[CX3_NUM_PRIO], rx_bytes[CX3_NUM_PRIO];
	uint64_t tx_frames[CX3_NUM_PRIO], tx_bytes[CX3_NUM_PRIO];
	uint32_t rx_dropped, tx_dropped;
} CX3PortStats;

/*
 * A port (index 0 = port 1), kept by connectx3_cmd.c (QUERY_PORT,
 * SET_PORT, INIT_PORT, CLOSE_PORT), read by the datapath.
 */
typedef struct CX3Port {
	bool open;		/* INIT_PORT done, no CLOSE_PORT since */
	uint32_t mtu;		/* SET_PORT general: max frame size */
	bool pause_tx;		/* SET_PORT general pptx: sends 802.3x pause */
	bool pause_rx;		/* SET_PORT general pprx: obeys 802.3x pause */
	uint64_t mac[CX3_MAC_TABLE];	/* SET_PORT MAC table, valid bit 63 */
	uint32_t vlan[CX3_VLAN_TABLE];	/* SET_PORT VLAN table, valid bit 31 */
	uint8_t base_qpn_set;	/* SET_PORT RQP_CALC seen */
	uint32_t base_qpn;	/* default RX QP (promisc / RQP_CALC) */
	CX3PortStats stats;
} CX3Port;

/*
 * What INIT_HCA set up (mlx4_core fw.c mlx4_INIT_HCA): ICM virtual
 * bases of the context tables and their log2 sizes (number of entries).
 * Entry sizes are those QUERY_DEV_CAP advertises (CX3_*_ENTRY_SZ).
 * Valid while .up (INIT_HCA done, no CLOSE_HCA since).
 */
typedef struct CX3Hca {
	bool up;
	uint64_t qpc_base, srqc_base, cqc_base, altc_base, auxc_base;
	uint64_t eqc_base, rdmarc_base, mc_base, dmpt_base, cmpt_base;
	uint64_t mtt_base;
	uint8_t log_num_qps, log_num_srqs, log_num_cqs, log_num_eqs;
	uint8_t log_rd_per_qp;
	uint8_t log_mc_entry_sz, log_mc_hash_sz, log_mc_table_sz;
	bool uc_steering;	/* B0: unicast steering through MCG */
	uint8_t log_mpt_sz, log_uar_sz, log_uar_page_sz;
} CX3Hca;

/* QUERY_DEV_CAP entry sizes (bytes) */
#define CX3_QPC_ENTRY_SZ	256
#define CX3_RDMARC_ENTRY_SZ	32
#define CX3_AUX_ENTRY_SZ	64
#define CX3_ALTC_ENTRY_SZ	64
#define CX3_EQC_ENTRY_SZ	64
#define CX3_CQC_ENTRY_SZ	64
#define CX3_SRQ_ENTRY_SZ	64
#define CX3_CMPT_ENTRY_SZ	64
#define CX3_MTT_ENTRY_SZ	8
#define CX3_DMPT_ENTRY_SZ	64

struct CX3State {
	PCIDevice parent_obj;
	MemoryRegion bar0;		/* container: regs + MSI-X */
	MemoryRegion bar0_regs;
	MemoryRegion bar2;
	uint32_t hcr[7];		/* host order */

	CX3Counters ctr;
	CX3Port port[CX3_NUM_PORTS];
	CX3Hca hca;
	bool unplugged;			/* CX3_TEST_CABLE written 0 */
	uint32_t fail_sends;		/* CX3_TEST_FAIL_SENDS */
	/* the parts' own state: see connectx3_cmd.c and connectx3_dp.c */
	struct CX3Core *core;
	struct CX3Dp *dp;
};

/* connectx3.c: core services every part uses */
void cx3_violation(CX3State *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* guest memory by bus address; false (and a violation) on failure */
bool cx3_dma_read(CX3State *s, dma_addr_t addr, void *buf, dma_addr_t len);
bool cx3_dma_write(CX3State *s, dma_addr_t addr, const void *buf,
		   dma_addr_t len);
/*
 * a command's input mailbox (at in_param) read into BUF, or BUF written
 * to its output mailbox (at out_param): false, and a violation, if the
 * mailbox is not 4 KiB aligned or the DMA fails
 */
bool cx3_inbox(CX3State *s, CX3Cmd *c, void *buf, size_t len);
bool cx3_outbox(CX3State *s, CX3Cmd *c, const void *buf, size_t len);
/* cx3_outbox as a command's status: CX3_STAT_OK or CX3_STAT_BAD_PARAM */
int cx3_reply(CX3State *s, CX3Cmd *c, const void *buf, size_t len);
/* raise MSI-X vector (or INTx when MSI-X is off) */
void cx3_interrupt(CX3State *s, unsigned int vector);
/* every part back to power-on (reset register, system reset) */
void cx3_reset_state(CX3State *s);

/* connectx3_cmd.c: firmware, ICM, MTT, MPT and EQ services */
void cx3_core_init(CX3State *s);
void cx3_core_reset(CX3State *s);
/* CX3_STAT_BAD_OP if the opcode is not the core's */
int cx3_core_cmd(CX3State *s, CX3Cmd *c);
/*
 * Bus address of byte OFFSET of a buffer described by MTT entries.
 * MTT_BASE is the context's mtt_base_addr as mlx4 writes it (mr.c
 * mlx4_mtt_addr: first MTT index * 8, a byte offset into the MTT table);
 * LOG_PAGE is log2 of the page size in bytes, i.e. the context's
 * log_page_size field + 12. Checks the entry's present bit; false (and
 * a violation) when anything is off.
 */
bool cx3_mtt_addr(CX3State *s, uint64_t mtt_base, unsigned int log_page,
		  uint64_t offset, dma_addr_t *addr);
/* bus address of host memory behind an ICM virtual address */
bool cx3_icm_addr(CX3State *s, uint64_t icm_va, dma_addr_t *addr);
/* an lkey of an MPT: bus address of VA (PHYSICAL MRs: VA itself) */
bool cx3_mpt_addr(CX3State *s, uint32_t lkey, uint64_t va, uint32_t len,
		  dma_addr_t *addr);
/* post a completion event for CQN to EQ EQN (interrupt if armed) */
void cx3_eq_comp(CX3State *s, uint32_t eqn, uint32_t cqn);
/*
 * post an async event (e.g. port change) to the EQ mapped for TYPE;
 * DATA is EQE bytes 4..31 (the owner byte 31 is the model's)
 */
void cx3_eq_async(CX3State *s, uint8_t type, uint8_t subtype,
		  const uint8_t data[28]);
/* EQ doorbell (BAR2 UAR page eqn/4, 0x800 + 8 * (eqn % 4)), host order */
void cx3_eq_doorbell(CX3State *s, uint32_t eqn, uint32_t val);
/* event-mode command completion: a CMD EQE; false if no EQ mapped */
bool cx3_eq_cmd_done(CX3State *s, uint16_t token, uint8_t status,
		     uint64_t out_param);
/* both ends of the cable open: the link is up on both ports */
bool cx3_port_link(CX3State *s, unsigned int port);
/* plug or pull the cable (CX3_TEST_CABLE): link events as they follow */
void cx3_cable_set(CX3State *s, bool plugged);
/*
 * a frame that left (TX) or entered (RX) port PORT (1-based) on the
 * wire: FRAME as on the wire (any VLAN tag the port inserted included,
 * without FCS), LEN its bytes; counted by its priority
 */
void cx3_port_count(CX3State *s, unsigned int port, bool tx,
		    const uint8_t *frame, size_t len);
/* a frame port PORT (1-based) dropped on receive (RX) or send */
void cx3_port_drop(CX3State *s, unsigned int port, bool tx);

/* connectx3_dp.c: CQs, QPs, ports, steering, send and receive */
void cx3_dp_init(CX3State *s);
void cx3_dp_reset(CX3State *s);
/* CX3_STAT_BAD_OP if the opcode is not the datapath's */
int cx3_dp_cmd(CX3State *s, CX3Cmd *c);
/*
 * a write in BAR2 that is not an EQ doorbell: UAR or BlueFlame page.
 * VAL is the guest's bytes read little-endian (a __raw_writel of
 * cpu_to_be32(x) arrives as bswap32(x)); SIZE 4 or 8.
 */
void cx3_dp_uar_write(CX3State *s, hwaddr addr, uint64_t val,
		      unsigned int size);

/*
 * ---- Core services the datapath needs (asked by connectx3_dp.c) ----
 * connectx3_dp.c carries weak defaults (no BlueFlame, 32-byte CQEs)
 * until connectx3_cmd.c defines them. The datapath also assumes that
 * cx3_dma_read/cx3_dma_write and the BAR handlers of connectx3.c do the
 * PCIe accounting (the pcie_* counters), and that BAR2 writes reach
 * cx3_dp_uar_write as the little-endian value of the bytes written
 * (DEVICE_LITTLE_ENDIAN), 8-byte writes kept whole (max_access_size 8).
 */
/*
 * BAR2 offset of the first BlueFlame page: caps.num_uars * 4 KiB
 * (mlx4_core main.c map_bf_area); 0 when BlueFlame is not offered
 */
hwaddr cx3_bf_base(CX3State *s);
/* 1 << log_bf_reg_size as QUERY_DEV_CAP reports it; 0: no BlueFlame */
unsigned int cx3_bf_reg_size(CX3State *s);
/* 32, or 64 when INIT_HCA turned 64-byte CQEs on */
unsigned int cx3_cqe_size(CX3State *s);

#endif
