/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz of connectx3_dp.c under ASan/UBSan; see run.sh */
#define main harness_main
#include "harness.c"
#undef main
static uint32_t rs = 12345;
static uint32_t rnd(void) { rs = rs * 1103515245 + 12345; return rs >> 8; }
int main(void)
{
	static const uint16_t ops[] = { 0x16, 0x17, 0x2c, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x2d, 0x38, 0x47, 0x48, 0x25, 0x26, 0x27, 0x65, 0x66 };
	harness_main();
	for (int it = 0; it < 300000; it++) {
		uint8_t *r = mem + QPBUF(0x40);
		if (!(it % 50)) {
			cmd(0x21, 2, 0x40, NULL); cmd(0x21, 2, 0x81, NULL);
			mkqp(0x40, 1, 0, 0, 8, 1, 0, 0, 0); mkqp(0x81, 2, 8, 4, 0, 2, 0, 0, 0);
			txprod = 0;
			for (int i = 0; i < 256 * 64; i += 4) stl_be_p(r + i, (rnd() & 1) ? rnd() : ((rnd() & 0x8000001f) | ((rnd() & 0x3f) << 0)));
			for (int i = 0; i < 256; i++) { r[i * 64] = (rnd() % 8) ? 0 : 0x80; r[i * 64 + 3] = (rnd() % 8) ? 0x0a : ((rnd() & 1) ? 0x0e : rnd()); r[i * 64 + 7] = (rnd() % 4) ? 2 + (rnd() & 1) : rnd() & 0x3f; if (rnd() & 1) { stl_be_p(r + i * 64 + 16, 0x80000000 | (rnd() % 60)); memcpy(r + i * 64 + 20, mem + 0x800000, 40); } if (r[i * 64 + 3] == 0x0e) stl_be_p(r + i * 64 + 16, (rnd() & 0xfff) << 16 | (rnd() & 0x7f)); stl_be_p(r + i * 64 + 8, 0xc | (rnd() & 0x30)); }
			for (int i = 0; i < 256; i++) if (rnd() & 1) { stl_be_p(r + i * 64 + 16, rnd() & 0x7ff); stl_be_p(r + i * 64 + 20, 0x77); stq_be_p(r + i * 64 + 24, 0x800000 + (rnd() & 0xfff)); }
			frame(mem + 0x800000, (rnd() & 1) ? 6 : 17, rnd() % 1400);
			rxpost(0x81, rnd() % 20, 16);
		}
		if (rnd() & 1) cx3_dp_uar_write(s, 0x2000 + 0x14, bswap32(0x40 << 8), 4);
		else arm(1 + (rnd() % 3), rnd() & 3, rnd() & 0xff);
		if (!(rnd() % 7)) stl_be_p(mem + DB(1 + rnd() % 3), rnd() & 0xffffff);
	}
	printf("fuzz2 viol %d cqes %lu rx %lu tx %lu drop %lu\n", nviol, (unsigned long)s->ctr.cqes, (unsigned long)s->ctr.rx_frames, (unsigned long)s->ctr.tx_frames, (unsigned long)s->ctr.rx_dropped);
	s->hca.up = 1; s->hca.log_mc_entry_sz = 9; s->hca.log_mc_hash_sz = 4; s->hca.log_mc_table_sz = 5;
	for (int p = 0; p < 2; p++) { s->port[p].open = true; s->port[p].mtu = 1526; }
	for (int it = 0; it < 200000; it++) {
		/* random mailbox, biased: small values in places */
		uint8_t *m = mem + MB;
		for (int i = 0; i < 600; i++) m[i] = (rnd() & 3) ? (rnd() & 0x7) : rnd();
		if (rnd() & 1) { stq_be_p(m + 8 + 160, rnd() & 0xffffff); stl_be_p(m + 8 + 204, rnd() & 0x3ffffff); }
		if (rnd() & 1) { stq_be_p(m + 56, rnd() & 0xffffff); stl_be_p(m + 28, rnd() & 0x3ffffff); }
		int k = rnd() % 4;
		if (k == 0) {
			CX3Cmd c = { .opcode = ops[rnd() % (sizeof(ops) / 2)], .opmod = rnd() & 3, .in_mod = rnd() & 0xff,
				     .in_param = (rnd() & 15) ? MB : ((uint64_t)rnd() << 20), .out_param = MB + 2048 };
			cx3_dp_cmd(s, &c);
		} else {
			/* random memory scribble then doorbells */
			for (int i = 0; i < 64; i++) mem[0x1000000 + (rnd() % 0x1000000)] = rnd();
			for (int i = 0; i < 16; i++) stl_be_p(mem + 0x30000 + (rnd() % 0x4000) * 4, rnd() & 0xffff);
			hwaddr a = (rnd() & 1) ? (0x2000 + ((rnd() & 1) ? 0x14 : 0x20)) : (CX3_UAR_SIZE + (rnd() % 0x4000) * 8);
			uint64_t v = ((uint64_t)rnd() << 40) ^ rnd();
			if (rnd() & 1) v = bswap32((rnd() & 0xff) << 8);
			cx3_dp_uar_write(s, a, v, (rnd() & 1) ? 8 : 4);
		}
		if (!(it % 20000)) cx3_dp_reset(s);
	}
	printf("fuzz done viol %d cqes %lu rx %lu tx %lu\n", nviol, (unsigned long)s->ctr.cqes, (unsigned long)s->ctr.rx_frames, (unsigned long)s->ctr.tx_frames);
	return 0;
}
