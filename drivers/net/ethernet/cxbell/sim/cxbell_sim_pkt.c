// SPDX-License-Identifier: GPL-2.0
/*
 * cxbell_sim packet parsing: what the device's parser understands.
 *
 * Ethernet with at most one VLAN tag, IPv4 (options allowed, fragments
 * recognised) or IPv6 without extension headers, then TCP or UDP. The
 * frame starts at an address that leaves the IP header 4-byte aligned
 * (CXB_SIM_FRAME_PAD), so headers are accessed in place.
 */
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>

#include "cxbell_sim.h"

static void cxb_sim_pkt_l4(const u8 *f, u8 proto, unsigned int off,
			   unsigned int len, struct cxb_sim_pkt *pk)
{
	if (proto == IPPROTO_TCP && len >= sizeof(struct tcphdr))
		pk->l4 = IPPROTO_TCP;
	else if (proto == IPPROTO_UDP && len >= sizeof(struct udphdr))
		pk->l4 = IPPROTO_UDP;
	else
		return;
	pk->l4_off = off;
	pk->l4_len = len;
}

static void cxb_sim_pkt_ipv4(const u8 *f, unsigned int off, unsigned int len,
			     struct cxb_sim_pkt *pk)
{
	const struct iphdr *iph = (const struct iphdr *)(f + off);
	unsigned int hl, tot;

	if (len - off < sizeof(*iph) || iph->version != 4 || iph->ihl < 5)
		return;
	hl = iph->ihl * 4;
	tot = ntohs(iph->tot_len);
	if (tot < hl || tot > len - off)
		return;
	pk->l3 = ETH_P_IP;
	pk->l3_off = off;
	pk->ipopt = hl > sizeof(*iph);
	pk->frag = !!(iph->frag_off & htons(IP_MF | IP_OFFSET));
	if (!pk->frag)
		cxb_sim_pkt_l4(f, iph->protocol, off + hl, tot - hl, pk);
}

static void cxb_sim_pkt_ipv6(const u8 *f, unsigned int off, unsigned int len,
			     struct cxb_sim_pkt *pk)
{
	const struct ipv6hdr *ip6 = (const struct ipv6hdr *)(f + off);
	unsigned int plen;

	if (len - off < sizeof(*ip6) || ip6->version != 6)
		return;
	plen = ntohs(ip6->payload_len);
	if (plen > len - off - sizeof(*ip6))
		return;
	pk->l3 = ETH_P_IPV6;
	pk->l3_off = off;
	cxb_sim_pkt_l4(f, ip6->nexthdr, off + sizeof(*ip6), plen, pk);
}

void cxb_sim_pkt_parse(const u8 *f, unsigned int len, struct cxb_sim_pkt *pk)
{
	unsigned int off = ETH_HLEN;
	__be16 proto;

	memset(pk, 0, sizeof(*pk));
	if (len < ETH_HLEN)
		return;
	proto = ((const struct ethhdr *)f)->h_proto;
	if (proto == htons(ETH_P_8021Q) || proto == htons(ETH_P_8021AD)) {
		if (len < VLAN_ETH_HLEN)
			return;
		proto = ((const struct vlan_ethhdr *)f)->h_vlan_encapsulated_proto;
		off = VLAN_ETH_HLEN;
	}
	if (proto == htons(ETH_P_IP))
		cxb_sim_pkt_ipv4(f, off, len, pk);
	else if (proto == htons(ETH_P_IPV6))
		cxb_sim_pkt_ipv6(f, off, len, pk);
}

static __sum16 *cxb_sim_pkt_l4_check(u8 *f, const struct cxb_sim_pkt *pk)
{
	u8 *l4 = f + pk->l4_off;

	if (pk->l4 == IPPROTO_TCP)
		return &((struct tcphdr *)l4)->check;
	return &((struct udphdr *)l4)->check;
}

/* Full L4 checksum over pseudo header and segment, check field included. */
static __sum16 cxb_sim_pkt_l4_sum(const u8 *f, const struct cxb_sim_pkt *pk)
{
	__wsum sum = csum_partial(f + pk->l4_off, pk->l4_len, 0);

	if (pk->l3 == ETH_P_IP) {
		const struct iphdr *iph = (const void *)(f + pk->l3_off);

		return csum_tcpudp_magic(iph->saddr, iph->daddr, pk->l4_len,
					 pk->l4, sum);
	} else {
		const struct ipv6hdr *ip6 = (const void *)(f + pk->l3_off);

		return csum_ipv6_magic(&ip6->saddr, &ip6->daddr, pk->l4_len,
				       pk->l4, sum);
	}
}

/* TX checksum offload. The device computes the L4 checksum from scratch
 * (whatever the stack left in the field) over the pseudo header and the
 * whole segment, as the IP header describes it.
 */
void cxb_sim_pkt_tx_csum(u8 *f, const struct cxb_sim_pkt *pk, bool ip,
			 bool l4)
{
	if (ip && pk->l3 == ETH_P_IP) {
		struct iphdr *iph = (struct iphdr *)(f + pk->l3_off);

		iph->check = 0;
		iph->check = ip_fast_csum(iph, iph->ihl);
	}
	if (l4 && pk->l4) {
		__sum16 *check = cxb_sim_pkt_l4_check(f, pk);
		__sum16 res;

		*check = 0;
		res = cxb_sim_pkt_l4_sum(f, pk);
		if (pk->l4 == IPPROTO_UDP && !res)
			res = CSUM_MANGLED_0;
		*check = res;
	}
}

static bool cxb_sim_pkt_l4_ok(const u8 *f, const struct cxb_sim_pkt *pk)
{
	const struct udphdr *uh = (const void *)(f + pk->l4_off);

	/* IPv4 UDP may go without a checksum */
	if (pk->l4 == IPPROTO_UDP && pk->l3 == ETH_P_IP && !uh->check)
		return true;
	return !cxb_sim_pkt_l4_sum(f, pk);
}

/* RX CQE status bits (MLX4_CQE_STATUS_*); IPOK iff all checksums verify. */
u16 cxb_sim_pkt_rx_status(const u8 *f, const struct cxb_sim_pkt *pk)
{
	bool ok = true;
	u16 st = 0;

	if (pk->l3 == ETH_P_IP) {
		const struct iphdr *iph = (const void *)(f + pk->l3_off);

		st |= MLX4_CQE_STATUS_IPV4;
		if (pk->frag)
			st |= MLX4_CQE_STATUS_IPV4F;
		if (pk->ipopt)
			st |= MLX4_CQE_STATUS_IPV4OPT;
		ok = !ip_fast_csum(iph, iph->ihl);
	} else if (pk->l3 == ETH_P_IPV6) {
		st |= MLX4_CQE_STATUS_IPV6;
	}
	if (!pk->l4)
		return st;

	st |= pk->l4 == IPPROTO_TCP ? MLX4_CQE_STATUS_TCP : MLX4_CQE_STATUS_UDP;
	if (ok && !cxb_sim_pkt_l4_ok(f, pk))
		ok = false;
	if (ok)
		st |= MLX4_CQE_STATUS_IPOK;
	return st;
}

/* The parse fields of an mlx5 receive CQE (wqe/mlx5.h): hds_ip_ext's
 * CQE_L3_OK (an IPv4 header checksum that verifies, or IPv6) and
 * CQE_L4_OK (a TCP or UDP checksum that verifies; a fragment has no L4
 * here), l4_l3_hdr_type's L3 and L4 types (a TCP segment by its ACK flag
 * and payload, as CQE_L4_HDR_TYPE_*), and rss_hash_type: what the port
 * hashed when @hashed (addresses, and the ports of TCP and UDP).
 */
void cxb_sim_pkt_rx_mlx5(const u8 *f, const struct cxb_sim_pkt *pk,
			 bool hashed, struct mlx5_cqe64 *cqe)
{
	u8 l3 = 0, l4 = CQE_L4_HDR_TYPE_NONE, ok = CQE_L2_OK, ht = 0;

	if (pk->l3 == ETH_P_IP) {
		const struct iphdr *iph = (const void *)(f + pk->l3_off);

		l3 = CXB_MLX5_CQE_L3_IPV4;
		ht = CXB_MLX5_HTYPE_IPV4;
		if (!ip_fast_csum(iph, iph->ihl))
			ok |= CQE_L3_OK;
	} else if (pk->l3 == ETH_P_IPV6) {
		l3 = CXB_MLX5_CQE_L3_IPV6;
		ht = CXB_MLX5_HTYPE_IPV6;
		ok |= CQE_L3_OK;
	}
	if (pk->l4 == IPPROTO_TCP) {
		const struct tcphdr *th = (const void *)(f + pk->l4_off);

		if (!th->ack)
			l4 = CQE_L4_HDR_TYPE_TCP_NO_ACK;
		else if (pk->l4_len > th->doff * 4)
			l4 = CQE_L4_HDR_TYPE_TCP_ACK_AND_DATA;
		else
			l4 = CQE_L4_HDR_TYPE_TCP_ACK_NO_DATA;
		ht |= CXB_MLX5_HTYPE_TCP;
	} else if (pk->l4 == IPPROTO_UDP) {
		l4 = CQE_L4_HDR_TYPE_UDP;
		ht |= CXB_MLX5_HTYPE_UDP;
	}
	if (pk->l4 && cxb_sim_pkt_l4_ok(f, pk))
		ok |= CQE_L4_OK;
	cqe->hds_ip_ext = ok;
	cqe->l4_l3_hdr_type = l3 << CXB_MLX5_CQE_L3_SHIFT |
			      l4 << CXB_MLX5_CQE_L4_SHIFT;
	cqe->rss_hash_type = hashed ? ht : 0;
}

/* TX VLAN insertion: an 802.1Q tag with @tci after the source MAC of the
 * @len-byte frame at @f (CXB_SIM_FRAME_MAX + VLAN_HLEN bytes of room).
 * Returns the new length.
 */
unsigned int cxb_sim_pkt_vlan_insert(u8 *f, unsigned int len, __be16 tci)
{
	struct vlan_ethhdr *veth = (struct vlan_ethhdr *)f;

	memmove(f + ETH_ALEN * 2 + VLAN_HLEN, f + ETH_ALEN * 2,
		len - ETH_ALEN * 2);
	veth->h_vlan_proto = htons(ETH_P_8021Q);
	veth->h_vlan_TCI = tci;
	return len + VLAN_HLEN;
}

/* Toeplitz hash of @len bytes of @data with @key (at least @len + 4
 * bytes): for every set bit of the input, the 32 key bits starting at
 * that bit's position are XORed into the result, as the ConnectX RSS
 * hash (MLX4_RSS_HASH_TOP, MLX5_RX_HASH_FN_TOEPLITZ) computes it.
 */
u32 cxb_sim_toeplitz(const u8 *key, const u8 *data, unsigned int len)
{
	u32 v = get_unaligned_be32(key), hash = 0;
	unsigned int i;
	int b;

	for (i = 0; i < len; i++) {
		for (b = 7; b >= 0; b--) {
			if (data[i] & BIT(b))
				hash ^= v;
			v = v << 1 | ((key[i + 4] >> b) & 1);
		}
	}
	return hash;
}

/* RSS hash (struct cxb_rss) of a frame the parser found IPv4 or IPv6
 * in: source and destination address, then for TCP and UDP source and
 * destination port, as they stand in the headers.
 */
u32 cxb_sim_pkt_hash(const u8 *f, const struct cxb_sim_pkt *pk,
		     const u8 *key)
{
	u8 in[2 * sizeof(struct in6_addr) + 4];
	unsigned int alen;

	if (pk->l3 == ETH_P_IP) {
		const struct iphdr *iph = (const void *)(f + pk->l3_off);

		alen = sizeof(iph->saddr);
		memcpy(in, &iph->saddr, alen);
		memcpy(in + alen, &iph->daddr, alen);
	} else {
		const struct ipv6hdr *ip6 = (const void *)(f + pk->l3_off);

		alen = sizeof(ip6->saddr);
		memcpy(in, &ip6->saddr, alen);
		memcpy(in + alen, &ip6->daddr, alen);
	}
	if (!pk->l4)
		return cxb_sim_toeplitz(key, in, 2 * alen);
	memcpy(in + 2 * alen, f + pk->l4_off, 4);
	return cxb_sim_toeplitz(key, in, 2 * alen + 4);
}
