// SPDX-License-Identifier: GPL-2.0
/*
 * pktcheck: count the pktgen frames an interface receives and check that
 * each came back intact (the XDP_TX test's payload check).
 *
 *   pktcheck IFNAME SECONDS MAXFRAMES [DSTMAC SRCMAC]
 *
 * Listens on a packet socket bound to IFNAME until MAXFRAMES IPv4/UDP
 * frames arrived or SECONDS passed without one, then prints
 *   "frames N intact M"
 * where a frame is intact if its IPv4 header checksum holds, its UDP
 * payload starts with pktgen's magic and is zero after pktgen's 16-byte
 * header, its length matches the IP total length, and (if given) its
 * MAC addresses are DSTMAC and SRCMAC. Prints "ready" on stderr once
 * bound.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PGEN_MAGIC	0xbe9be955u

static int parse_mac(const char *s, unsigned char *m)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0], &m[1], &m[2],
		      &m[3], &m[4], &m[5]) == 6 ? 0 : -1;
}

static uint16_t ip_csum(const unsigned char *p, unsigned int len)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static int intact(const unsigned char *f, ssize_t n, const unsigned char *dst,
		  const unsigned char *src)
{
	const unsigned char *ip = f + 14, *udp, *pl;
	unsigned int ihl, tot, i, plen;
	uint32_t magic;

	if (dst && (memcmp(f, dst, 6) || memcmp(f + 6, src, 6)))
		return 0;
	ihl = (ip[0] & 0xf) * 4;
	tot = (ip[2] << 8) | ip[3];
	if (ihl < 20 || tot < ihl + 8 || 14 + tot > (unsigned int)n)
		return 0;
	if (ip_csum(ip, ihl))
		return 0;
	udp = ip + ihl;
	pl = udp + 8;
	plen = tot - ihl - 8;
	if (plen < 16)
		return 0;
	memcpy(&magic, pl, 4);
	if (ntohl(magic) != PGEN_MAGIC)
		return 0;
	for (i = 16; i < plen; i++)
		if (pl[i])
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	unsigned char dst[6], src[6], buf[2048];
	long frames = 0, ok = 0, max;
	struct sockaddr_ll sll = {};
	int fd, tmo, rcvbuf, have_mac = 0;

	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: pktcheck IFNAME SECONDS MAXFRAMES [DSTMAC SRCMAC]\n");
		return 2;
	}
	tmo = atoi(argv[2]) * 1000;
	max = atol(argv[3]);
	if (argc == 6) {
		if (parse_mac(argv[4], dst) || parse_mac(argv[5], src)) {
			fprintf(stderr, "pktcheck: bad MAC address\n");
			return 2;
		}
		have_mac = 1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	if (fd < 0) {
		perror("pktcheck: socket");
		return 1;
	}
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_IP);
	sll.sll_ifindex = if_nametoindex(argv[1]);
	if (!sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("pktcheck: bind");
		return 1;
	}
	/* Room for a whole run: the checker may fall behind the sender. */
	rcvbuf = 64 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	fprintf(stderr, "ready\n");
	while (frames < max) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, tmo) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 14 + 20)
			continue;
		if (buf[14 + 9] != 17)	/* UDP only */
			continue;
		frames++;
		ok += intact(buf, n, have_mac ? dst : NULL,
			     have_mac ? src : NULL);
	}
	printf("frames %ld intact %ld\n", frames, ok);
	return 0;
}
