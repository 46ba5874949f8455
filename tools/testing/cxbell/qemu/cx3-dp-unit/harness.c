/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host unit test of connectx3_dp.c; see run.sh */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/timer.h"
#include "connectx3.h"

#define MEMSZ (64 << 20)
static uint8_t *mem;
static int events[64];
static int nviol;

void cx3_violation(CX3State *s, const char *fmt, ...)
{
	va_list ap;
	s->ctr.violations++; nviol++;
	va_start(ap, fmt);
	fprintf(stderr, "connectx3: violation: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}
bool cx3_dma_read(CX3State *s, dma_addr_t a, void *b, dma_addr_t l)
{ if (a + l > MEMSZ || a + l < a) { cx3_violation(s, "dma rd %lx", (long)a); return false; } memcpy(b, mem + a, l); s->ctr.pcie_in_bytes += l; return true; }
bool cx3_dma_write(CX3State *s, dma_addr_t a, const void *b, dma_addr_t l)
{ if (a + l > MEMSZ || a + l < a) { cx3_violation(s, "dma wr %lx", (long)a); return false; } memcpy(mem + a, b, l); s->ctr.pcie_out_bytes += l; return true; }
void cx3_interrupt(CX3State *s, unsigned int v) {}
bool cx3_mtt_addr(CX3State *s, uint64_t mtt, unsigned int lp, uint64_t off, dma_addr_t *a)
{ *a = mtt + off; return true; }
bool cx3_icm_addr(CX3State *s, uint64_t v, dma_addr_t *a) { return false; }
bool cx3_mpt_addr(CX3State *s, uint32_t lkey, uint64_t va, uint32_t len, dma_addr_t *a)
{ if (lkey != 0x77) return false; *a = va; return true; }
void cx3_eq_comp(CX3State *s, uint32_t eqn, uint32_t cqn) { events[cqn & 63]++; s->ctr.eqes++; }
void cx3_eq_async(CX3State *s, uint8_t t, uint8_t st, const uint8_t d[28]) {}
bool cx3_port_link(CX3State *s, unsigned int p) { return true; }

static CX3State S, *s = &S;
#define MB 0x10000
static int cmd(uint16_t op, uint8_t opmod, uint32_t in_mod, uint64_t *out)
{
	CX3Cmd c = { .opcode = op, .opmod = opmod, .in_mod = in_mod, .in_param = MB };
	int r = cx3_dp_cmd(s, &c);
	if (out) *out = c.out_param;
	return r;
}
#define CQBUF(n) (0x200000 + (n) * 0x10000)
#define DB(n) (0x20000 + (n) * 64)
static void mkcq(uint32_t cqn, int log)
{
	uint8_t *c = mem + MB; memset(c, 0, 256);
	stl_be_p(c + 12, log << 24); c[23] = 0; c[24] = 0; stl_be_p(c + 28, CQBUF(cqn));
	stq_be_p(c + 56, DB(cqn));
	for (int i = 0; i < (1 << log); i++) mem[CQBUF(cqn) + 32 * i + 31] = 0x80;
	assert(cmd(0x16, 0, cqn, NULL) == 0);
}
#define QPBUF(q) (0x1000000 + ((q) & 0xff) * 0x10000)
#define QDB(q) (0x30000 + ((q) & 0xfff) * 64)
static void mkqp(uint32_t qpn, int port, int rqlog, int rqstride_log, int sqlog, uint32_t cqn, int rss, uint32_t rssbase, int rsslog)
{
	uint8_t *m = mem + MB, *c = m + 8; memset(m, 0, 512);
	stl_be_p(c, 7 << 16 | rss << 13);
	c[9] = rqlog ? (rqlog << 3 | (rqstride_log - 4)) : 0;
	c[10] = sqlog << 3 | 2;
	c[24 + 32] = 0x83 | (port - 1) << 6;
	stl_be_p(c + 124, cqn); stl_be_p(c + 156, cqn);
	stq_be_p(c + 160, QDB(qpn));
	stl_be_p(c + 204, QPBUF(qpn));
	if (rss) {
		uint8_t *r = c + 24 + 0x24;
		stl_be_p(r, rsslog << 24 | rssbase); stl_be_p(r + 4, rssbase);
		r[10] = 1; r[11] = 0x3f; for (int i = 0; i < 40; i++) r[12 + i] = i * 7 + 1;
	}
	assert(cmd(0x19, 0, qpn, NULL) == 0);
	assert(cmd(0x1a, 0, qpn, NULL) == 0);
	assert(cmd(0x1b, 0, qpn, NULL) == 0);
}
static uint8_t mac2[6] = { 0x02, 0, 0, 0, 0, 2 }, mac1[6] = { 2, 0, 0, 0, 0, 1 };
static void rule(int port, uint8_t *mac, uint32_t qpn)
{
	uint8_t *m = mem + MB; memset(m, 0, 64);
	stw_be_p(m, 0x3000); m[7] = port; stl_be_p(m + 8, qpn);
	uint8_t *e = m + 16; e[0] = 12; stw_be_p(e + 2, 0xe001); memcpy(e + 10, mac, 6); memset(e + 18, 0xff, 6);
	uint64_t id; assert(cmd(0x65, 0, 64 / 4, &id) == 0);
}
/* RX: post n WQEs from rq_head with 2048-byte buffers */
static uint32_t rxprod[8];
static void rxpost(uint32_t qpn, int n, int stride)
{
	for (int i = 0; i < n; i++) {
		uint32_t idx = rxprod[qpn & 7]++ & 255;
		uint8_t *w = mem + QPBUF(qpn) + 64 + idx * stride;
		stl_be_p(w, 2048); stl_be_p(w + 4, 0x77); stq_be_p(w + 8, 0x2000000 + ((qpn & 7) << 20) + idx * 2048);
		if (stride > 16) { stl_be_p(w + 16, 0); stl_be_p(w + 20, 0x100); }
	}
	stl_be_p(mem + QDB(qpn), rxprod[qpn & 7] & 0xffff);
}
static uint32_t txprod;
static int frame(uint8_t *f, int proto, int paylen)
{
	memcpy(f, mac2, 6); memcpy(f + 6, mac1, 6); stw_be_p(f + 12, 0x0800);
	uint8_t *ip = f + 14; memset(ip, 0, 20); ip[0] = 0x45; int l4 = proto == 6 ? 20 : 8;
	stw_be_p(ip + 2, 20 + l4 + paylen); ip[8] = 64; ip[9] = proto; stw_be_p(ip + 6, 0x4000);
	stl_be_p(ip + 12, 0x0a000001); stl_be_p(ip + 16, 0x0a000002);
	uint8_t *t = ip + 20; memset(t, 0, l4); stw_be_p(t, 1234); stw_be_p(t + 2, 5678);
	if (proto == 6) { stl_be_p(t + 4, 1000); t[12] = 0x50; t[13] = 0x18; } else stw_be_p(t + 4, 8 + paylen);
	for (int i = 0; i < paylen; i++) t[l4 + i] = i * 13;
	return 14 + 20 + l4 + paylen;
}
static void txsend(uint32_t qpn, uint64_t faddr, int len, int lso_mss, int hdr, bool inl, bool bf)
{
	uint32_t idx = txprod & 255;
	uint8_t w[256]; memset(w, 0, sizeof(w));
	int off = 16;
	uint32_t op = lso_mss ? 0x0e : 0x0a;
	if (lso_mss) {
		stl_be_p(w + 16, lso_mss << 16 | hdr); memcpy(w + 20, mem + faddr, hdr);
		off = 16 + ROUND_UP(4 + hdr, 16);
		stl_be_p(w + off, len - hdr); stl_be_p(w + off + 4, 0x77); stq_be_p(w + off + 8, faddr + hdr); off += 16;
	} else if (inl) {
		stl_be_p(w + off, 0x80000000 | len); memcpy(w + off + 4, mem + faddr, len); off += ROUND_UP(4 + len, 16);
	} else {
		stl_be_p(w + off, len); stl_be_p(w + off + 4, 0x77); stq_be_p(w + off + 8, faddr); off += 16;
	}
	int ds = off / 16, nbb = DIV_ROUND_UP(off, 64);
	stl_be_p(w + 8, 0xc | 0x30);
	uint32_t oo = op | ((txprod & 256) ? 0x80000000 : 0);
	if (bf) { oo |= (txprod & 0xffff) << 8; stl_be_p(w + 4, qpn << 8 | ds); } else w[7] = ds;
	stl_be_p(w, oo);
	for (int i = 0; i < nbb; i++) memcpy(mem + QPBUF(qpn) + ((idx + i) & 255) * 64, w + 64 * i, 64);
	txprod += nbb;
	if (bf) {
		for (int i = 0; i < nbb * 64; i += 8) cx3_dp_uar_write(s, CX3_UAR_SIZE + 0x1000 * 2 + i, ldq_le_p(w + i), 8);
	} else cx3_dp_uar_write(s, 0x2000 + 0x14, bswap32(qpn << 8), 4);
}
static void arm(uint32_t cqn, uint32_t sn, uint32_t ci)
{
	uint8_t d[8]; stl_be_p(d, sn << 28 | 2 << 24 | cqn); stl_be_p(d + 4, ci);
	cx3_dp_uar_write(s, 0x2000 + 0x20, ldq_le_p(d), 8);
}
static void dumpcqe(uint32_t cqn, int i)
{
	uint8_t *c = mem + CQBUF(cqn) + 32 * i;
	printf("cq%u[%d]: qpn %06x rss %08x vid %04x status %04x len %u idx %u csum %04x syn %02x op %02x\n", cqn, i,
	       ldl_be_p(c) & 0xffffff, ldl_be_p(c + 4), lduw_be_p(c + 12), lduw_be_p(c + 16), ldl_be_p(c + 20),
	       lduw_be_p(c + 24), lduw_be_p(c + 26), c[27], c[31]);
}
int main(void)
{
	mem = g_malloc0(MEMSZ);
	init_clocks(NULL);
	cx3_dp_init(s);
	for (int p = 0; p < 2; p++) { s->port[p].open = true; s->port[p].mtu = 1500 + 26; }
	mkcq(1, 8); mkcq(2, 8); mkcq(3, 8);
	mkqp(0x40, 1, 0, 0, 8, 1, 0, 0, 0);			/* TX on port 1 */
	mkqp(0x81, 2, 8, 4, 0, 2, 0, 0, 0);			/* RX ring 0 port 2 */
	mkqp(0x82, 2, 8, 4, 0, 3, 0, 0, 0);			/* RX ring 1 */
	mkqp(0x88, 2, 0, 0, 0, 2, 1, 0x81, 1);			/* RSS QP 2^1 from 0x81 */
	if (getenv("B0")) {
		s->hca.up = 1; s->hca.log_mc_entry_sz = 9; s->hca.log_mc_hash_sz = 4; s->hca.log_mc_table_sz = 5;
		uint8_t *m = mem + MB; memset(m, 0, 64); m[5] = 2; m[7] = 2; memcpy(m + 10, mac2, 6);
		uint64_t h; assert(cmd(0x27, 0, 0, &h) == 0); printf("hash %lu\n", (unsigned long)h);
		memset(m, 0, 512); stl_be_p(m + 4, 1 | 1u << 30); m[16 + 5] = 2; m[16 + 7] = 2; memcpy(m + 16 + 10, mac2, 6); stl_be_p(m + 32, 0x88);
		assert(cmd(0x26, 0, h, NULL) == 0);
		CX3Cmd c = { .opcode = 0x25, .in_mod = h, .out_param = MB + 1024 };
		assert(cx3_dp_cmd(s, &c) == 0 && !memcmp(mem + MB, mem + MB + 1024, 512));
		c.in_mod = 99; assert(cx3_dp_cmd(s, &c) == CX3_STAT_BAD_INDEX);
	} else
		rule(2, mac2, 0x88);
	rxpost(0x81, 16, 16); rxpost(0x82, 16, 16);
	arm(2, 1, 0); arm(3, 1, 0); arm(1, 1, 0);
	uint8_t *f = mem + 0x800000;
	int len = frame(f, 17, 100);
	txsend(0x40, 0x800000, len, 0, 0, false, false);
	len = frame(f, 17, 30);
	txsend(0x40, 0x800000, len, 0, 0, true, false);
	len = frame(f, 6, 200);
	txsend(0x40, 0x800000, len, 0, 0, false, true);
	len = frame(f, 6, 3000);
	txsend(0x40, 0x800000, len, 0, 0, false, false);  /* oversize: dropped */
	txsend(0x40, 0x800000, len, 1000, 54, false, false);
	for (int i = 0; i < 8; i++) { dumpcqe(2, i); }
	for (int i = 0; i < 8; i++) { dumpcqe(3, i); }
	for (int i = 0; i < 6; i++) dumpcqe(1, i);
	printf("events cq1 %d cq2 %d cq3 %d\n", events[1], events[2], events[3]);
#define P(n) printf(#n " %lu\n", (unsigned long)s->ctr.n);
	CX3_COUNTERS(P)
	/* re-arm stale sn ignored, good sn with pending -> event */
	arm(2, 1, 0); printf("stale arm events cq2 %d\n", events[2]);
	arm(2, 2, 0); printf("arm with pending events cq2 %d\n", events[2]);
	/* bad transitions */
	printf("RTR2RTS on RTS: %x\n", cmd(0x1b, 0, 0x40, NULL));
	printf("viol %d\n", nviol);
	return 0;
}
