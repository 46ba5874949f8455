// SPDX-License-Identifier: GPL-2.0
/*
 * tapgso: write TCP/IPv4 GSO frames into a tap device through its
 * virtio-net header, as a virtual machine's virtio-net device does, with a
 * chosen part of the headers in the skb's linear area (tso.sh: a GSO skb
 * whose TCP options lie outside it, which the device cannot segment).
 *
 *   tapgso TAP SRC DST PORT LEN MSS HDRLEN COUNT
 *
 * Attaches to the tap TAP (made by "ip tuntap add TAP mode tap vnet_hdr",
 * up) and writes COUNT frames, each: a virtio_net_hdr (NEEDS_CSUM,
 * GSO_TCPV4, gso_size MSS, hdr_len HDRLEN, the checksum at the TCP
 * header's), then Ethernet (to TAP's own address) / IPv4 SRC -> DST /
 * TCP 40000 -> PORT with a 12-byte timestamp option (a 32-byte header) /
 * LEN payload bytes. tun copies HDRLEN bytes into the skb's linear area
 * and the rest, if the frame exceeds a page, into page fragments: HDRLEN
 * 54 leaves the option outside it, 66 takes the whole header.
 * The TCP checksum field holds the pseudo-header sum, as for any
 * CHECKSUM_PARTIAL packet. Prints "sent N"; exit status 1 on a failure.
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define TCP_HLEN	32
#define MAX_LEN		60000

static uint32_t sum16(const void *p, size_t n, uint32_t s)
{
	const uint8_t *b = p;

	for (; n > 1; n -= 2, b += 2)
		s += b[0] << 8 | b[1];
	if (n)
		s += b[0] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

int main(int argc, char **argv)
{
	static uint8_t buf[sizeof(struct virtio_net_hdr) + ETH_HLEN +
			   sizeof(struct iphdr) + TCP_HLEN + MAX_LEN];
	struct virtio_net_hdr *vh = (void *)buf;
	struct ether_header *eh = (void *)(vh + 1);
	struct iphdr *iph = (void *)(eh + 1);
	struct tcphdr *th = (void *)(iph + 1);
	uint8_t *opt = (uint8_t *)(th + 1), *pay = opt + TCP_HLEN - sizeof(*th);
	long len, mss, hdrlen, count, i;
	struct in_addr src, dst;
	struct ifreq ifr;
	size_t flen;
	uint32_t s;
	int fd, sk;

	if (argc != 9) {
		fprintf(stderr, "usage: tapgso TAP SRC DST PORT LEN MSS HDRLEN COUNT\n");
		return 2;
	}
	len = atol(argv[5]);
	mss = atol(argv[6]);
	hdrlen = atol(argv[7]);
	count = atol(argv[8]);
	if (inet_pton(AF_INET, argv[2], &src) != 1 ||
	    inet_pton(AF_INET, argv[3], &dst) != 1 || len < 1 || len > MAX_LEN ||
	    mss < 1 || mss > 0xffff || hdrlen < 1 || count < 1) {
		fprintf(stderr, "tapgso: bad argument\n");
		return 2;
	}

	fd = open("/dev/net/tun", O_RDWR);
	if (fd < 0) {
		perror("tapgso: /dev/net/tun");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", argv[1]);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		perror("tapgso: TUNSETIFF");
		return 1;
	}
	/* the frames go to the tap's own address: the stack takes them */
	sk = socket(AF_INET, SOCK_DGRAM, 0);
	if (sk < 0 || ioctl(sk, SIOCGIFHWADDR, &ifr) < 0) {
		perror("tapgso: SIOCGIFHWADDR");
		return 1;
	}
	close(sk);

	memset(buf, 0, sizeof(buf));
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh->hdr_len = hdrlen;
	vh->gso_size = mss;
	vh->csum_start = ETH_HLEN + sizeof(*iph);
	vh->csum_offset = offsetof(struct tcphdr, check);

	memcpy(eh->ether_dhost, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	memcpy(eh->ether_shost, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	eh->ether_type = htons(ETHERTYPE_IP);

	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tot_len = htons(sizeof(*iph) + TCP_HLEN + len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = 64;
	iph->protocol = IPPROTO_TCP;
	iph->saddr = src.s_addr;
	iph->daddr = dst.s_addr;
	iph->check = htons(~fold(sum16(iph, sizeof(*iph), 0)));

	th->source = htons(40000);
	th->dest = htons(atoi(argv[4]));
	th->doff = TCP_HLEN / 4;
	th->ack = 1;
	th->window = htons(65535);
	/* NOP, NOP, timestamp (kind 8, length 10) */
	memcpy(opt, "\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x00", 12);
	for (i = 0; i < len; i++)
		pay[i] = i;
	/* the pseudo-header sum, not complemented (CHECKSUM_PARTIAL) */
	s = sum16(&iph->saddr, 8, IPPROTO_TCP + TCP_HLEN + len);
	th->check = htons(fold(s));

	flen = (uint8_t *)pay + len - buf;
	for (i = 0; i < count; i++) {
		th->seq = htonl(1 + i * len);
		if (write(fd, buf, flen) != (ssize_t)flen) {
			perror("tapgso: write");
			printf("sent %ld\n", i);
			return 1;
		}
	}
	printf("sent %ld\n", count);
	return 0;
}
