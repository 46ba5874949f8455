# SPDX-License-Identifier: GPL-2.0
#
# The pair fixture (part of lib.sh): the two cabled ports of one sim
# adapter, $p0 sending to $p1, for pktgen or, moved into network
# namespaces a and b, for TCP; its counters as snapshots (lib/snap.sh).
#
#   cxb_pktgen_pair [GEN [ID]]      sim adapter ID (default 1; in $pair_id)
#                                   of generation GEN (cx3 default, cx5),
#                                   as cxb_adapter_up; sets p0, p1 and mac
#                                   ($p1's address), loads pktgen
#   cxb_netns_pair [IF_A IF_B [SECS]]
#                                   IF_A/IF_B (default $p0/$p1) into netns
#                                   a/b as 10.0.0.1/24, 10.0.0.2/24, up
#   cxb_pktgen_teardown / cxb_netns_teardown
#                                   delete it (after cxb_netns_pair: the
#                                   namespaces too), no DMA mapping left
#   carrier_up                      $p0 has carrier
#   no_ipv6_netns NS...             no_ipv6 inside each network namespace
#                                   (each has its own defaults)
#   pair_snap SNAP [NS0 [NS1]]      every counter into snapshot SNAP: keys
#                                   d_* ($p0), r_* ($p1), s0_*, s1_* (sim
#                                   ports 0 and 1 of $pair_id)
#   pair_snap_settled SNAP [NS0 [NS1]]
#                                   pair_snap once the traffic ended
#   pair_d KEY                      snapshot a minus b (pair_snap b, then
#                                   a), KEY as "d_tx_packets"
#   pair_rx_done SENT               SENT frames arrived at $p1 or dropped
#                                   by its sim port since pair_snap b
#   pair_sim_zero CTR...            sim counters CTR of both ports at rest
#   tcp_ab FILE / tcp_ab_ok SHA256  FILE over TCP from netns a to b (after
#                                   cxb_netns_pair), checked; tcp_ab sets
#                                   tcp_rc, tcp_sum, tcp_secs
#   ns_ping10                       10 pings a -> b, all back
#   ns_tcp_sha MIB                  MIB random MiB a -> b, sha256 checked
#   gso_trace_on IF / gso_trace_off the GSO skbs the stack hands IF's
#                                   ndo_start_xmit (tracepoint
#                                   net:net_dev_start_xmit, gso_size > 0);
#                                   tracefs mounted if it was not;
#                                   gso_trace_off sets gso_skbs and
#                                   gso_segs (their gso_segs summed), fails
#                                   if the trace lost an event

pair_id=1

no_ipv6_netns()
{
	for _ns in "$@"; do
		ip netns exec "$_ns" sh -c '
			sysctl -qw net.ipv6.conf.all.disable_ipv6=1
			sysctl -qw net.ipv6.conf.default.disable_ipv6=1' >/dev/null 2>&1
	done
	return 0
}

# cxb_pktgen_pair [GEN [ID]]: sim adapter ID (default 1) with both ports
# up, one channel each, port 0's carrier on; sets pair_id, p0, p1 and mac
# (port 1's address), loads pktgen.
cxb_pktgen_pair()
{
	pair_id=${2:-1}
	cxb_adapter_up "$pair_id" "${1:-}" || return 1
	p0=$(cxb_netdev "$pair_id" 0) && p1=$(cxb_netdev "$pair_id" 1) || return 1
	mac=$(cat "/sys/class/net/$p1/address")
	modprobe pktgen
}

# Port $p0 has carrier.
carrier_up() { _cxb_carrier "$p0"; }

# Tear down what cxb_pktgen_pair set up; the sim must hold no mapping.
cxb_pktgen_teardown()
{
	rmmod pktgen || return 1
	_cxb_pair_del
}

# Tear down what cxb_netns_pair and cxb_pktgen_pair set up, likewise.
cxb_netns_teardown()
{
	ip netns del a && ip netns del b || return 1
	_cxb_pair_del
}

# Delete the pair's adapter, check the sim holds no mapping, unload the
# modules.
_cxb_pair_del()
{
	cxb_del "$pair_id" || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

# cxb_netns_pair [IF_A IF_B [SECS]]: move IF_A/IF_B (default $p0/$p1)
# into namespaces a/b as 10.0.0.1/24 and 10.0.0.2/24 (IPv6 off: no
# DAD/MLD/RS frames racing counter snapshots), up, with carrier within
# SECS (default 5); pktgen, if loaded, is unloaded first.
cxb_netns_pair()
{
	_na=${1:-$p0} _nb=${2:-$p1}
	[ ! -d /proc/net/pktgen ] || rmmod pktgen || return 1
	mkdir -p /run/netns
	ip netns add a && ip netns add b || return 1
	no_ipv6_netns a b
	ip link set "$_na" netns a && ip link set "$_nb" netns b || return 1
	ip -n a link set lo up && ip -n b link set lo up &&
	ip -n a addr add 10.0.0.1/24 dev "$_na" && ip -n b addr add 10.0.0.2/24 dev "$_nb" &&
	ip -n a link set "$_na" up && ip -n b link set "$_nb" up || return 1
	wait_until "${3:-5}" _cxb_ns_carrier a "$_na" &&
	wait_until "${3:-5}" _cxb_ns_carrier b "$_nb" || {
		ktap_diag "no carrier in the namespaces:" \
			"$(ip -n a -br link show dev "$_na")," \
			"$(ip -n b -br link show dev "$_nb")"
		return 1
	}
}

_cxb_ns_carrier() { [ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]; }

# cxb_netns_vlan100: cxb_netns_pair, then VLAN 100 over the two ports,
# v100 in each namespace as 10.0.1.1/24 (a) and 10.0.1.2/24 (b), up.
cxb_netns_vlan100()
{
	cxb_netns_pair || return 1
	modprobe 8021q 2>/dev/null
	ip -n a link add link "$p0" name v100 type vlan id 100 &&
	ip -n b link add link "$p1" name v100 type vlan id 100 &&
	ip -n a addr add 10.0.1.1/24 dev v100 &&
	ip -n b addr add 10.0.1.2/24 dev v100 &&
	ip -n a link set v100 up && ip -n b link set v100 up
}

# pair_snap SNAP [NS0 [NS1]]: every counter of the pair into snapshot
# SNAP: d_* of $p0 (in netns NS0), r_* of $p1 (NS1), s0_* and s1_* of its
# sim adapter's ports 0 and 1.
pair_snap()
{
	snap_new "$1" &&
	snap_add "$1" d_ cxb_counters "$p0" "${2:-}" &&
	snap_add "$1" r_ cxb_counters "$p1" "${3:-}" &&
	snap_add "$1" s0_ sim_counters "$pair_id" 0 &&
	snap_add "$1" s1_ sim_counters "$pair_id" 1
}

# pair_snap_settled SNAP [NS0 [NS1]]: pair_snap once the traffic ended
# (and the sim's stranded detector had 0.3 s to see the queues idle):
# again every 0.2 s (up to 10 s) until two snapshots in a row agree on the
# frames every driver port sent and every sim port saw, so that the driver
# and sim counters of the last one belong to the same packets (a late TCP
# ACK between the two reads of one snapshot would split them).
pair_snap_settled()
{
	sleep 0.3
	pair_snap "$@"
	_ps_k=$(_ps_key "$1")
	_ps_n=0
	while [ $_ps_n -lt 50 ]; do
		sleep 0.2
		pair_snap "$@"
		_ps_k2=$(_ps_key "$1")
		[ "$_ps_k2" = "$_ps_k" ] && return 0
		_ps_k=$_ps_k2
		_ps_n=$((_ps_n + 1))
	done
	ktap_diag "pair_snap_settled: traffic still running after 10 s"
}

_ps_key()
{
	snap_vals "$1" d_tx_packets r_tx_packets s0_wqes_fetched \
		s1_wqes_fetched s0_tx_frames s1_tx_frames s0_rx_frames \
		s1_rx_frames
}

# pair_d KEY: delta of a counter between pair_snap b and pair_snap a
# (KEY as "d_tx_packets", "s1_rx_dropped").
pair_d()
{
	snap_d "$1" a b
}

# pair_rx_done SENT: since pair_snap b, every one of SENT frames arrived at
# $p1 or was dropped by its sim port 1.
pair_rx_done()
{
	# shellcheck disable=SC2046 # two numbers
	set -- "$1" $(snap_vals b r_rx_packets s1_rx_dropped)
	[ $(($(cxb_stat "$p1" rx_packets) - $2 +
	     $(sim_ctr "$pair_id" 1 rx_dropped) - $3)) -ge "$1" ]
}

# pair_sim_zero CTR...: sim counters CTR of both ports did not move between
# pair_snap b and a (stranded WQEs are also logged as diagnostics).
pair_sim_zero()
{
	_zrc=0
	for _c in "$@"; do
		eq $(($(pair_d "s0_$_c") + $(pair_d "s1_$_c"))) 0 "sim $_c" || _zrc=1
	done
	[ $(($(pair_d s0_stranded) + $(pair_d s1_stranded))) = 0 ] ||
		sim_stranded_log | while read -r _l; do ktap_diag "sim: $_l"; done
	return $_zrc
}

# tcp_ab FILE: send FILE by TCP from netns a to tcpblast serve in netns b
# (10.0.0.2:5001, as cxb_netns_pair), then delete FILE; sets tcp_rc
# (tcpblast send's status), tcp_sum (sha256 received) and tcp_secs.
tcp_ab()
{
	ip netns exec b sh -c 'tcpblast serve 5001 | sha256sum >/tmp/dst.sum' &
	_srv=$!
	_t0=$(uptime_s)
	ip netns exec a tcpblast send 10.0.0.2 5001 <"$1"
	tcp_rc=$?
	wait $_srv
	tcp_secs=$(secs_between "$_t0" "$(uptime_s)")
	tcp_sum=$(cut -d' ' -f1 /tmp/dst.sum)
	rm -f "$1"
}

# tcp_ab_ok SHA256: the last tcp_ab's send succeeded and b got SHA256.
tcp_ab_ok()
{
	[ "$tcp_rc" = 0 ] || { ktap_diag "tcpblast send exited $tcp_rc"; return 1; }
	eq "$tcp_sum" "$1" "sha256"
}

# ns_ping10: 10 pings from netns a to 10.0.0.2 in b (cxb_netns_pair), the
# summary line as a diagnostic; 0 iff all 10 came back. Either ping's
# summary: busybox's "10 packets received", iputils' "10 received" (the
# initramfs carries iputils' ping when the host has it).
ns_ping10()
{
	_out=$(ip netns exec a ping -c 10 -i 0.2 -W 2 10.0.0.2 2>&1)
	ktap_diag "$(printf '%s\n' "$_out" | grep 'packets transmitted')"
	printf '%s\n' "$_out" |
		grep -Eq '^10 packets transmitted, 10 (packets )?received'
}

# ns_tcp_sha MIB: MIB MiB of random bytes from a to b over TCP (tcp_ab),
# b's sha256 checked (tcp_ab_ok).
ns_tcp_sha()
{
	head -c $(($1 * 1024 * 1024)) /dev/urandom >/tmp/src || return 1
	_sum=$(sha256sum </tmp/src | cut -d' ' -f1)
	tcp_ab /tmp/src
	ktap_diag "$1 MiB in $tcp_secs s"
	tcp_ab_ok "$_sum"
}

CXB_TRACE=/sys/kernel/tracing

gso_trace_on()
{
	_ev=$CXB_TRACE/events/net/net_dev_start_xmit
	{ [ -e "$CXB_TRACE/trace" ] ||
	  mount -t tracefs nodev "$CXB_TRACE"; } &&
	echo 0 >"$CXB_TRACE/tracing_on" &&
	echo 8192 >"$CXB_TRACE/buffer_size_kb" && : >"$CXB_TRACE/trace" &&
	echo "name == \"$1\" && gso_size > 0" >"$_ev/filter" &&
	echo 1 >"$_ev/enable" && echo 1 >"$CXB_TRACE/tracing_on"
}

gso_trace_off()
{
	_ev=$CXB_TRACE/events/net/net_dev_start_xmit
	echo 0 >"$CXB_TRACE/tracing_on"
	echo 0 >"$_ev/enable"
	echo 0 >"$_ev/filter"
	# shellcheck disable=SC2046 # three numbers
	set -- $(awk '
		/^# entries-in-buffer/ { split($3, e, "/"); lost = e[2] - e[1] }
		/net_dev_start_xmit:/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^gso_segs=/) {
					split($i, a, "=")
					n++
					s += a[2]
				}
		}
		END { print n + 0, s + 0, lost + 0 }' "$CXB_TRACE/trace")
	gso_skbs=$1 gso_segs=$2
	[ "$3" = 0 ] || { ktap_diag "trace lost $3 events"; return 1; }
}
