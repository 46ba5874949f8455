// SPDX-License-Identifier: GPL-2.0
/*
 * tcpblast: move a byte stream over one TCP connection, for the cxbell VM
 * tests (busybox nc closes the connection when its stdin ends, so a
 * listener under a script with stdin at /dev/null drops the stream).
 *
 *   tcpblast serve PORT          accept one connection, copy it to stdout
 *                                until the peer shuts down, exit 0
 *   tcpblast serve6 PORT         the same over IPv6
 *   tcpblast send ADDR PORT      connect (retrying for up to 10 s), copy
 *                                stdin to the socket, shut down the write
 *                                side, wait for the server to close, exit 0
 *                                (ADDR IPv4 or IPv6)
 *   tcpblast udprecv PORT N SECS receive UDP datagrams that start with a
 *                                be32 sequence number until N arrived or
 *                                none came for SECS seconds; print
 *                                "received R reordered O" (O: datagrams
 *                                with a number below one seen before)
 *   tcpblast udpsend ADDR PORT N SIZE
 *                                send N datagrams of SIZE (4..1400) bytes,
 *                                numbered 0..N-1
 *
 * SIGTERM aborts a TCP transfer: the connection is reset (SO_LINGER 0)
 * rather than closed in order, so a test that kills a transfer whose
 * peer is gone leaves no orphaned socket (and none of the receive pages
 * it holds) behind for minutes of retransmissions.
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16];
static int conn = -1;	/* the TCP connection, for abort_conn() */

static void abort_conn(int sig)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	(void)sig;
	if (conn >= 0)
		setsockopt(conn, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	_exit(143);
}

static int copy(int in, int out)
{
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		ssize_t off = 0;

		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("tcpblast: read");
			return -1;
		}
		while (off < n) {
			ssize_t w = write(out, buf + off, n - off);

			if (w < 0) {
				if (errno == EINTR)
					continue;
				perror("tcpblast: write");
				return -1;
			}
			off += w;
		}
	}
}

static int serve(int port, int v6)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6 };
	int one = 1, ls, s;

	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	sa6.sin6_port = htons(port);
	sa6.sin6_addr = in6addr_any;
	ls = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (v6 ? bind(ls, (struct sockaddr *)&sa6, sizeof(sa6)) :
		  bind(ls, (struct sockaddr *)&sa, sizeof(sa))) ||
	    listen(ls, 1)) {
		perror("tcpblast: listen");
		return 1;
	}
	s = accept(ls, NULL, NULL);
	if (s < 0) {
		perror("tcpblast: accept");
		return 1;
	}
	conn = s;
	if (copy(s, 1))
		return 1;
	close(s);
	return 0;
}

static int send_stream(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6 };
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int v6 = !!strchr(addr, ':');
	int s = -1, i;

	sa.sin_port = htons(port);
	sa6.sin6_port = htons(port);
	if (v6 ? inet_pton(AF_INET6, addr, &sa6.sin6_addr) != 1 :
		 inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "tcpblast: bad address %s\n", addr);
		return 1;
	}
	for (i = 0; i < 200; i++) {
		s = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
		if (s < 0) {
			perror("tcpblast: socket");
			return 1;
		}
		if (v6 ? !connect(s, (struct sockaddr *)&sa6, sizeof(sa6)) :
			 !connect(s, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(s);
		s = -1;
		nanosleep(&ts, NULL);
	}
	if (s < 0) {
		perror("tcpblast: connect");
		return 1;
	}
	conn = s;
	if (copy(0, s))
		return 1;
	if (shutdown(s, SHUT_WR)) {
		perror("tcpblast: shutdown");
		return 1;
	}
	/* The server closes once it has read everything. */
	while (read(s, buf, sizeof(buf)) > 0)
		;
	close(s);
	return 0;
}

static int udp_recv(int port, int n, int secs)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = secs };
	int s, got = 0, reordered = 0, size = 8 << 20;
	unsigned int seq, top = 0;

	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("tcpblast: udp bind");
		return 1;
	}
	/* as root: past rmem_max, so a burst is not dropped at the socket */
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	while (got < n) {
		ssize_t r = recv(s, buf, sizeof(buf), 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;		/* timeout */
		}
		if (r < 4)
			continue;
		memcpy(&seq, buf, 4);
		seq = ntohl(seq);
		if (got && seq < top)
			reordered++;
		else
			top = seq;
		got++;
	}
	printf("received %d reordered %d\n", got, reordered);
	return 0;
}

static int udp_send(const char *addr, int port, int n, int size)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int s, i, one = 1;

	sa.sin_port = htons(port);
	if (size < 4 || size > 1400 ||
	    inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "tcpblast: bad address %s or size %d\n", addr,
			size);
		return 1;
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	/* IP_RECVERR: a full qdisc reports ENOBUFS instead of dropping */
	if (s < 0 || setsockopt(s, IPPROTO_IP, IP_RECVERR, &one, sizeof(one)) ||
	    connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("tcpblast: udp connect");
		return 1;
	}
	memset(buf, 0x5a, size);
	for (i = 0; i < n; i++) {
		unsigned int seq = htonl(i);

		memcpy(buf, &seq, 4);
		/* ECONNREFUSED from an earlier ICMP, ENOBUFS: send again */
		while (send(s, buf, size, 0) < 0) {
			if (errno != ECONNREFUSED && errno != ENOBUFS &&
			    errno != EINTR) {
				perror("tcpblast: udp send");
				return 1;
			}
		}
	}
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, abort_conn);
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]), 0);
	if (argc == 3 && !strcmp(argv[1], "serve6"))
		return serve(atoi(argv[2]), 1);
	if (argc == 4 && !strcmp(argv[1], "send"))
		return send_stream(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "udprecv"))
		return udp_recv(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "udpsend"))
		return udp_send(argv[2], atoi(argv[3]), atoi(argv[4]),
				atoi(argv[5]));
	fprintf(stderr, "usage: tcpblast serve PORT | serve6 PORT | send ADDR PORT |\n"
		"       udprecv PORT N SECS | udpsend ADDR PORT N SIZE\n");
	return 2;
}
