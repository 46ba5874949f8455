// SPDX-License-Identifier: GPL-2.0
/*
 * qstats: a network device's queue statistics through the netdev generic
 * netlink family (Linux 6.9+: qstats-get, what "ynl --family netdev
 * --dump qstats-get" shows), for the cxbell VM tests: the guest has no
 * python for ynl, and Debian 12's iproute2 predates the family.
 *
 *   qstats IFNAME      one line per queue the driver reports:
 *                      "rx 0 rx-packets 123 rx-bytes 7380 ..."
 *   qstats -d IFNAME   the device's totals (the driver's base and its
 *                      queues): "dev rx-packets 123 ..."
 *
 * Exit status 0, 1 on an error (EOPNOTSUPP: a driver without queue
 * statistics), 2 if the kernel has no netdev family (before 6.3).
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static), like
 * tcpblast.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* include/uapi/linux/netdev.h of Linux 6.12 (the host's headers are
 * 6.1's, older than the family's qstats)
 */
#define NETDEV_CMD_QSTATS_GET		12
#define NETDEV_A_QSTATS_IFINDEX		1
#define NETDEV_A_QSTATS_QUEUE_TYPE	2
#define NETDEV_A_QSTATS_QUEUE_ID	3
#define NETDEV_A_QSTATS_SCOPE		4
#define NETDEV_A_QSTATS_FIRST		8	/* rx-packets */
#define NETDEV_QSTATS_SCOPE_QUEUE	1

/* the statistics, from NETDEV_A_QSTATS_RX_PACKETS on, as ynl names them */
static const char *const stat_names[] = {
	"rx-packets", "rx-bytes", "tx-packets", "tx-bytes", "rx-alloc-fail",
	"rx-hw-drops", "rx-hw-drop-overruns", "rx-csum-complete",
	"rx-csum-unnecessary", "rx-csum-none", "rx-csum-bad",
	"rx-hw-gro-packets", "rx-hw-gro-bytes", "rx-hw-gro-wire-packets",
	"rx-hw-gro-wire-bytes", "rx-hw-drop-ratelimits", "tx-hw-drops",
	"tx-hw-drop-errors", "tx-csum-none", "tx-needs-csum",
	"tx-hw-gso-packets", "tx-hw-gso-bytes", "tx-hw-gso-wire-packets",
	"tx-hw-gso-wire-bytes", "tx-hw-drop-ratelimits", "tx-stop", "tx-wake",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NSTATS ARRAY_SIZE(stat_names)

struct req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[64];
};

static int fd;
static unsigned int seq;
static char buf[65536];

static void put_attr(struct req *r, unsigned short type, const void *data,
		     unsigned short len)
{
	struct nlattr *a = (void *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void init_req(struct req *r, unsigned short family, unsigned char cmd,
		     unsigned short flags)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = family;
	r->n.nlmsg_flags = NLM_F_REQUEST | flags;
	r->n.nlmsg_seq = ++seq;
	r->g.cmd = cmd;
	r->g.version = 1;
}

/* An unsigned attribute of 1, 2, 4 or 8 bytes (netlink's uint). */
static uint64_t attr_uint(const struct nlattr *a)
{
	const void *d = (const char *)a + NLA_HDRLEN;

	switch (a->nla_len - NLA_HDRLEN) {
	case 1:
		return *(const uint8_t *)d;
	case 2:
		return *(const uint16_t *)d;
	case 4:
		return *(const uint32_t *)d;
	default:
		return *(const uint64_t *)d;
	}
}

typedef void (*msg_fn)(const struct nlmsghdr *n, void *arg);

/* Send @r and hand every reply message to @fn until the answer is
 * complete. Returns 0 or a negative errno.
 */
static int transact(struct req *r, msg_fn fn, void *arg)
{
	int dump = r->n.nlmsg_flags & NLM_F_DUMP;

	if (send(fd, r, r->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *n;

		if (len < 0)
			return -errno;
		for (n = (void *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_seq != r->n.nlmsg_seq)
				continue;
			if (n->nlmsg_type == NLMSG_DONE)
				return 0;
			if (n->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(n);

				if (e->error || !dump)
					return e->error;
				continue;
			}
			fn(n, arg);
			if (!dump)
				return 0;
		}
	}
}

typedef void (*attr_fn)(const struct nlattr *a, void *arg);

/* Hand each attribute of a generic netlink message to @fn. */
static void walk_attrs(const struct nlmsghdr *n, attr_fn fn, void *arg)
{
	const struct nlattr *a;
	int rem;

	a = (const void *)((const char *)NLMSG_DATA(n) + GENL_HDRLEN);
	rem = (int)n->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= rem) {
		fn(a, arg);
		rem -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

static void family_attr(const struct nlattr *a, void *arg)
{
	if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
		*(int *)arg = *(const uint16_t *)((const char *)a + NLA_HDRLEN);
}

static void family_id(const struct nlmsghdr *n, void *arg)
{
	walk_attrs(n, family_attr, arg);
}

/* One reply of qstats-get, as it is read */
struct stats_line {
	unsigned int ifindex;
	int mine;
	const char *qtype;
	long qid;
	char text[2048];
	size_t off;
};

static void stats_attr(const struct nlattr *a, void *arg)
{
	unsigned int t = a->nla_type & NLA_TYPE_MASK;
	struct stats_line *l = arg;

	if (t == NETDEV_A_QSTATS_IFINDEX) {
		l->mine = attr_uint(a) == l->ifindex;
	} else if (t == NETDEV_A_QSTATS_QUEUE_TYPE) {
		l->qtype = attr_uint(a) ? "tx" : "rx";
	} else if (t == NETDEV_A_QSTATS_QUEUE_ID) {
		l->qid = (long)attr_uint(a);
	} else if (t >= NETDEV_A_QSTATS_FIRST &&
		   t < NETDEV_A_QSTATS_FIRST + NSTATS &&
		   l->off < sizeof(l->text) - 64) {
		l->off += snprintf(l->text + l->off, sizeof(l->text) - l->off,
				   " %s %llu",
				   stat_names[t - NETDEV_A_QSTATS_FIRST],
				   (unsigned long long)attr_uint(a));
	}
}

/* One reply: printed if it is of the device @arg points to (its ifindex) */
static void print_stats(const struct nlmsghdr *n, void *arg)
{
	struct stats_line l = { .ifindex = *(unsigned int *)arg, .qid = -1 };

	walk_attrs(n, stats_attr, &l);
	if (!l.mine)
		return;
	if (l.qtype)
		printf("%s %ld%s\n", l.qtype, l.qid, l.text);
	else
		printf("dev%s\n", l.text);
}

int main(int argc, char **argv)
{
	const char *name = "netdev";
	int devscope = 0, family = -1;
	unsigned int ifindex;
	struct req r;
	int err;

	if (argc == 3 && !strcmp(argv[1], "-d")) {
		devscope = 1;
	} else if (argc != 2) {
		fprintf(stderr, "usage: qstats [-d] IFNAME\n");
		return 1;
	}
	ifindex = if_nametoindex(argv[argc - 1]);
	if (!ifindex) {
		fprintf(stderr, "qstats: %s: %s\n", argv[argc - 1], strerror(errno));
		return 1;
	}
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0) {
		perror("qstats: socket");
		return 1;
	}

	init_req(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	put_attr(&r, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	err = transact(&r, family_id, &family);
	if (err == -ENOENT || (!err && family < 0)) {
		fprintf(stderr, "qstats: no netdev netlink family\n");
		return 2;
	}
	if (err) {
		fprintf(stderr, "qstats: family lookup: %s\n", strerror(-err));
		return 1;
	}

	/* every device's, filtered here: a dump of one device
	 * (NETDEV_A_QSTATS_IFINDEX in the request) is younger than the
	 * command
	 */
	init_req(&r, family, NETDEV_CMD_QSTATS_GET, NLM_F_DUMP);
	if (!devscope) {
		uint32_t scope = NETDEV_QSTATS_SCOPE_QUEUE;

		put_attr(&r, NETDEV_A_QSTATS_SCOPE, &scope, sizeof(scope));
	}
	err = transact(&r, print_stats, &ifindex);
	if (err) {
		/* EOPNOTSUPP: a driver without stat_ops, or a kernel of
		 * 6.3 to 6.8 (the family without qstats-get)
		 */
		fprintf(stderr, "qstats: qstats-get: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
