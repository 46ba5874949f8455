# SPDX-License-Identifier: GPL-2.0
#
# Link state and traffic across the simulated cable: carrier follows the
# two ports (port 0 has carrier only while both are up); the two ports of
# one adapter in network namespaces a (10.0.0.1/24) and b (10.0.0.2/24):
# ping both ways with 0% loss, then 64 MiB over TCP whose sha256 matches;
# no sim violations or stranded WQEs; no DMA mapping left after teardown.
. /cxbell/lib.sh

ktap_plan 10
no_ipv6

SIZE=$((64 * 1024 * 1024))

carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = "$2" ]; }
ns_carrier() { [ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = "$3" ]; }

setup()
{
	cxb_load && cxb_new 1 2 || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || {
		ktap_diag "no netdevs for adapter 1"; return 1; }
	ktap_diag "port 0: $p0, port 1: $p1"
}

only_port0_up()
{
	ip link set "$p0" up || return 1
	sleep 0.3
	carrier "$p0" 0 || { ktap_diag "$p0 carrier $(cat /sys/class/net/$p0/carrier) with $p1 down"; return 1; }
}

both_up()
{
	ip link set "$p1" up || return 1
	wait_until 5 carrier "$p0" 1 || { ktap_diag "$p0 no carrier"; return 1; }
	wait_until 5 carrier "$p1" 1 || { ktap_diag "$p1 no carrier"; return 1; }
	eq "$(cat /sys/class/net/$p0/operstate)" up "$p0 operstate"
}

peer_down_up()
{
	i=0
	while [ $i -lt 3 ]; do
		ip link set "$p1" down || return 1
		wait_until 5 carrier "$p0" 0 || { ktap_diag "$p0 carrier with $p1 down"; return 1; }
		ip link set "$p1" up || return 1
		wait_until 5 carrier "$p0" 1 || { ktap_diag "$p0 no carrier after $p1 up"; return 1; }
		ip link set "$p0" down && ip link set "$p0" up || return 1
		wait_until 5 carrier "$p1" 1 || { ktap_diag "$p1 no carrier after $p0 down/up"; return 1; }
		i=$((i + 1))
	done
	return 0
}

netns_setup()
{
	mkdir -p /run/netns
	ip netns add a && ip netns add b || return 1
	ip link set "$p0" netns a && ip link set "$p1" netns b || return 1
	ip -n a link set lo up && ip -n b link set lo up &&
	ip -n a addr add 10.0.0.1/24 dev "$p0" && ip -n b addr add 10.0.0.2/24 dev "$p1" &&
	ip -n a link set "$p0" up && ip -n b link set "$p1" up || return 1
	wait_until 5 ns_carrier a "$p0" 1 && wait_until 5 ns_carrier b "$p1" 1 || {
		ktap_diag "no carrier in the namespaces"; return 1; }
}

ping_ns()
{
	out=$(ip netns exec "$1" ping -c 20 -i 0.1 -W 2 "$2" 2>&1)
	echo "$out" | grep -q ' 0% packet loss' && return 0
	echo "$out" | tail -n 3 | sed 's/^/# /'
	return 1
}

tcp_transfer()
{
	head -c $SIZE /dev/urandom >/tmp/src || return 1
	want=$(sha256sum </tmp/src | cut -d' ' -f1)
	ip netns exec b sh -c 'tcpblast serve 5001 | sha256sum >/tmp/dst.sum' &
	srv=$!
	t0=$(cut -d' ' -f1 /proc/uptime)
	ip netns exec a tcpblast send 10.0.0.2 5001 </tmp/src
	rc=$?
	wait $srv
	t1=$(cut -d' ' -f1 /proc/uptime)
	rm -f /tmp/src
	got=$(cut -d' ' -f1 /tmp/dst.sum)
	[ $rc = 0 ] || { ktap_diag "tcpblast send exited $rc"; return 1; }
	ktap_diag "64 MiB in $(echo "$t0 $t1" | awk '{ printf "%.1f s (%.0f Mbit/s)", $2 - $1, 512 / ($2 - $1) }')"
	eq "$got" "$want" "sha256"
}

sim_clean()
{
	for p in 0 1; do
		sleep 0.3
		eq "$(sim_ctr 1 $p violations)" 0 "port$p violations" || return 1
		eq "$(sim_ctr 1 $p stranded)" 0 "port$p stranded" || return 1
	done
}

teardown()
{
	ip netns del a && ip netns del b || return 1
	cxb_del 1 || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

ktap_ok setup_adapter setup || { ktap_finish; }
ktap_ok no_carrier_with_peer_down only_port0_up
ktap_ok carrier_with_both_up both_up
ktap_ok carrier_follows_peer_x3 peer_down_up
ktap_ok netns_setup netns_setup
if ktap_ok ping_a_to_b_0pct_loss ping_ns a 10.0.0.2; then
	ktap_ok ping_b_to_a_0pct_loss ping_ns b 10.0.0.1
else
	ktap_skip ping_b_to_a_0pct_loss "a to b failed"
fi
ktap_ok tcp_64MiB_sha256 tcp_transfer
ktap_ok sim_no_violations_no_stranded sim_clean
ktap_ok teardown_dma_live_zero teardown
ktap_finish
