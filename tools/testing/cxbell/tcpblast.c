// SPDX-License-Identifier: GPL-2.0
/*
 * tcpblast: move a byte stream over one TCP connection, for the cxbell VM
 * tests (busybox nc closes the connection when its stdin ends, so a
 * listener under a script with stdin at /dev/null drops the stream).
 *
 *   tcpblast serve PORT          accept one connection, copy it to stdout
 *                                until the peer shuts down, exit 0
 *   tcpblast send ADDR PORT      connect (retrying for up to 10 s), copy
 *                                stdin to the socket, shut down the write
 *                                side, wait for the server to close, exit 0
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16];

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

static int serve(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int one = 1, ls, s;

	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1)) {
		perror("tcpblast: listen");
		return 1;
	}
	s = accept(ls, NULL, NULL);
	if (s < 0) {
		perror("tcpblast: accept");
		return 1;
	}
	if (copy(s, 1))
		return 1;
	close(s);
	return 0;
}

static int send_stream(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int s = -1, i;

	sa.sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "tcpblast: bad address %s\n", addr);
		return 1;
	}
	for (i = 0; i < 200; i++) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0) {
			perror("tcpblast: socket");
			return 1;
		}
		if (!connect(s, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(s);
		s = -1;
		nanosleep(&ts, NULL);
	}
	if (s < 0) {
		perror("tcpblast: connect");
		return 1;
	}
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

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "send"))
		return send_stream(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: tcpblast serve PORT | tcpblast send ADDR PORT\n");
	return 2;
}
