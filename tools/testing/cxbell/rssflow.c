// SPDX-License-Identifier: GPL-2.0
/*
 * rssflow: send flows of known addresses and ports, and predict their
 * RSS hash (the RSS test, tests/rss.sh).
 *
 *   rssflow send IFNAME DSTMAC SRC DST PROTO SPORT0 DPORT NFLOWS COUNT
 *   rssflow hash KEY SRC DST PROTO SPORT0 DPORT NFLOWS
 *
 * Flow i (0 <= i < NFLOWS) goes from SRC port SPORT0 + i * i to DST
 * port DPORT: not an affine set of ports, which the Toeplitz hash, linear
 * over XOR, would spread exactly evenly whatever its key (with up to 256
 * flows, SPORT0 + 255 * 255 <= 65535). SRC and DST are both IPv4 or both
 * IPv6 addresses. PROTO is udp (a UDP datagram of 18 payload bytes,
 * checksummed) or ip (protocol 253,
 * RFC 3692 experimental: an IP packet the device hashes over the
 * addresses only; the ports are then only the first 4 payload bytes).
 *
 * send: COUNT frames of each flow, flow after flow, on a packet socket
 * bound to IFNAME: DSTMAC, IFNAME's own address. Prints "sent N"; exit
 * status 1 if a send failed.
 *
 * hash: for each flow, one line "I HEX DEC", its hash in hex (8 digits)
 * and decimal: the
 * Toeplitz hash with KEY (ethtool -x's form, xx:xx:..., 40 bytes) of
 * source address, destination address, source port, destination port
 * (udp) or of the two addresses (ip), as the kernel defines it for RSS.
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static), like
 * rawsend.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define KEY_SIZE	40
#define PROTO_EXP	253
#define PAYLOAD		18

struct flows {
	int v6;
	int udp;
	unsigned char src[16];
	unsigned char dst[16];
	unsigned int sport0;
	unsigned int dport;
	unsigned int n;
};

static int parse_flows(char **argv, struct flows *f)
{
	memset(f, 0, sizeof(*f));
	if (inet_pton(AF_INET, argv[0], f->src) == 1 &&
	    inet_pton(AF_INET, argv[1], f->dst) == 1)
		f->v6 = 0;
	else if (inet_pton(AF_INET6, argv[0], f->src) == 1 &&
		 inet_pton(AF_INET6, argv[1], f->dst) == 1)
		f->v6 = 1;
	else
		return -1;
	if (!strcmp(argv[2], "udp"))
		f->udp = 1;
	else if (strcmp(argv[2], "ip"))
		return -1;
	f->sport0 = strtoul(argv[3], NULL, 10);
	f->dport = strtoul(argv[4], NULL, 10);
	f->n = strtoul(argv[5], NULL, 10);
	if (!f->n || f->n > 256 ||
	    f->sport0 + (f->n - 1) * (f->n - 1) > 65535 || f->dport > 65535)
		return -1;
	return 0;
}

static uint32_t toeplitz(const unsigned char *key, const unsigned char *in,
			 unsigned int len)
{
	uint32_t v = (uint32_t)key[0] << 24 | key[1] << 16 | key[2] << 8 |
		     key[3];
	uint32_t hash = 0;
	unsigned int i;
	int b;

	for (i = 0; i < len; i++) {
		for (b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				hash ^= v;
			v = v << 1 | ((key[i + 4] >> b) & 1);
		}
	}
	return hash;
}

static int do_hash(char **argv)
{
	unsigned char key[KEY_SIZE], in[36];
	unsigned int i, alen, len;
	const char *s = argv[0];
	struct flows f;
	uint32_t h;

	for (i = 0; i < KEY_SIZE; i++) {
		if (sscanf(s, "%2hhx", &key[i]) != 1)
			return 2;
		s += 2;
		if (*s == ':')
			s++;
	}
	if (*s || parse_flows(argv + 1, &f))
		return 2;
	alen = f.v6 ? 16 : 4;
	memcpy(in, f.src, alen);
	memcpy(in + alen, f.dst, alen);
	for (i = 0; i < f.n; i++) {
		len = 2 * alen;
		if (f.udp) {
			in[len++] = (f.sport0 + i * i) >> 8;
			in[len++] = (f.sport0 + i * i) & 0xff;
			in[len++] = f.dport >> 8;
			in[len++] = f.dport & 0xff;
		}
		h = toeplitz(key, in, len);
		printf("%u %08x %u\n", i, h, h);
	}
	return 0;
}

static uint32_t sum16(const unsigned char *p, unsigned int len, uint32_t sum)
{
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* The frame of flow @i in @b: its length. */
static unsigned int build(unsigned char *b, const unsigned char *dmac,
			  const unsigned char *smac, const struct flows *f,
			  unsigned int i)
{
	unsigned int l3 = ETH_HLEN, l4, plen = 8 + PAYLOAD, alen, k;
	unsigned char proto = f->udp ? IPPROTO_UDP : PROTO_EXP;
	uint32_t sum;

	memcpy(b, dmac, ETH_ALEN);
	memcpy(b + ETH_ALEN, smac, ETH_ALEN);
	b[12] = f->v6 ? 0x86 : 0x08;
	b[13] = f->v6 ? 0xdd : 0x00;
	if (f->v6) {
		alen = 16;
		memset(b + l3, 0, 40);
		b[l3] = 0x60;
		b[l3 + 4] = plen >> 8;
		b[l3 + 5] = plen & 0xff;
		b[l3 + 6] = proto;
		b[l3 + 7] = 64;
		memcpy(b + l3 + 8, f->src, 16);
		memcpy(b + l3 + 24, f->dst, 16);
		l4 = l3 + 40;
	} else {
		alen = 4;
		memset(b + l3, 0, 20);
		b[l3] = 0x45;
		b[l3 + 2] = (20 + plen) >> 8;
		b[l3 + 3] = (20 + plen) & 0xff;
		b[l3 + 8] = 64;
		b[l3 + 9] = proto;
		memcpy(b + l3 + 12, f->src, 4);
		memcpy(b + l3 + 16, f->dst, 4);
		sum = fold(sum16(b + l3, 20, 0));
		b[l3 + 10] = sum >> 8;
		b[l3 + 11] = sum & 0xff;
		l4 = l3 + 20;
	}
	/* UDP header (or, for ip, the first 8 payload bytes alike) */
	b[l4] = (f->sport0 + i * i) >> 8;
	b[l4 + 1] = (f->sport0 + i * i) & 0xff;
	b[l4 + 2] = f->dport >> 8;
	b[l4 + 3] = f->dport & 0xff;
	b[l4 + 4] = plen >> 8;
	b[l4 + 5] = plen & 0xff;
	b[l4 + 6] = 0;
	b[l4 + 7] = 0;
	for (k = 0; k < PAYLOAD; k++)
		b[l4 + 8 + k] = k + 1;
	if (f->udp) {
		/* pseudo header, then the datagram */
		sum = sum16(b + l3 + (f->v6 ? 8 : 12), 2 * alen, 0);
		sum += IPPROTO_UDP + plen;
		sum = fold(sum16(b + l4, plen, sum));
		if (!sum)
			sum = 0xffff;
		b[l4 + 6] = sum >> 8;
		b[l4 + 7] = sum & 0xff;
	}
	return l4 + plen;
}

static int do_send(char **argv)
{
	unsigned char frame[ETH_FRAME_LEN], dmac[ETH_ALEN], smac[ETH_ALEN];
	unsigned long count, sent = 0, c;
	struct sockaddr_ll sll;
	struct ifreq ifr;
	struct flows f;
	unsigned int i, len;
	int fd;

	if (sscanf(argv[1], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dmac[0],
		   &dmac[1], &dmac[2], &dmac[3], &dmac[4], &dmac[5]) != 6 ||
	    parse_flows(argv + 2, &f))
		return 2;
	count = strtoul(argv[8], NULL, 10);

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("rssflow: socket");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[0]);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		perror("rssflow: SIOCGIFINDEX");
		return 1;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("rssflow: SIOCGIFHWADDR");
		return 1;
	}
	memcpy(smac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("rssflow: bind");
		return 1;
	}
	for (i = 0; i < f.n; i++) {
		len = build(frame, dmac, smac, &f, i);
		for (c = 0; c < count; c++) {
			if (send(fd, frame, len, 0) != (ssize_t)len) {
				perror("rssflow: send");
				printf("sent %lu\n", sent);
				return 1;
			}
			sent++;
		}
	}
	printf("sent %lu\n", sent);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	if (argc == 11 && !strcmp(argv[1], "send"))
		rc = do_send(argv + 2);
	else if (argc == 9 && !strcmp(argv[1], "hash"))
		rc = do_hash(argv + 2);
	if (rc == 2)
		fprintf(stderr,
			"usage: rssflow send IFNAME DSTMAC SRC DST PROTO SPORT0 DPORT NFLOWS COUNT\n"
			"       rssflow hash KEY SRC DST PROTO SPORT0 DPORT NFLOWS\n");
	return rc;
}
