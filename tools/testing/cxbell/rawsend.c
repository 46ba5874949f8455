// SPDX-License-Identifier: GPL-2.0
/*
 * rawsend: send raw Ethernet frames of a chosen length, shorter than the
 * stack ever builds (the short inline frame tests).
 *
 *   rawsend IFNAME DSTMAC LEN COUNT
 *
 * Sends COUNT frames of LEN bytes (14..1514) on a packet socket bound to
 * IFNAME, each one write: DSTMAC, IFNAME's own address, EtherType 0x88b5
 * (IEEE 802 local experimental), then bytes 0x01, 0x02, ... up to LEN.
 * Nothing pads them: the driver gets skb->len == LEN. Prints "sent N";
 * exit status 1 if a send failed.
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static), like
 * tcpblast.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define ETH_P_LOCAL_EXP	0x88b5

int main(int argc, char **argv)
{
	unsigned char frame[ETH_FRAME_LEN];
	struct sockaddr_ll sll;
	struct ifreq ifr;
	long len, count, i;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: rawsend IFNAME DSTMAC LEN COUNT\n");
		return 2;
	}
	len = strtol(argv[3], NULL, 10);
	count = strtol(argv[4], NULL, 10);
	if (len < ETH_HLEN || len > ETH_FRAME_LEN || count < 0) {
		fprintf(stderr, "rawsend: bad LEN or COUNT\n");
		return 2;
	}
	if (sscanf(argv[2], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &frame[0],
		   &frame[1], &frame[2], &frame[3], &frame[4], &frame[5]) != 6) {
		fprintf(stderr, "rawsend: bad DSTMAC %s\n", argv[2]);
		return 2;
	}

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("rawsend: socket");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("rawsend: SIOCGIFHWADDR");
		return 1;
	}
	memcpy(frame + ETH_ALEN, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	frame[12] = ETH_P_LOCAL_EXP >> 8;
	frame[13] = ETH_P_LOCAL_EXP & 0xff;
	for (i = ETH_HLEN; i < len; i++)
		frame[i] = i - ETH_HLEN + 1;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_LOCAL_EXP);
	sll.sll_ifindex = if_nametoindex(argv[1]);
	if (!sll.sll_ifindex) {
		perror("rawsend: if_nametoindex");
		return 1;
	}
	sll.sll_halen = ETH_ALEN;
	memcpy(sll.sll_addr, frame, ETH_ALEN);

	for (i = 0; i < count; i++) {
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != len) {
			perror("rawsend: sendto");
			printf("sent %ld\n", i);
			return 1;
		}
	}
	printf("sent %ld\n", count);
	close(fd);
	return 0;
}
