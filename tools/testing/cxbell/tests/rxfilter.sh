# SPDX-License-Identifier: GPL-2.0
#
# Receive filtering: the sim delivers a frame only if its destination MAC
# is broadcast, in the port's unicast or multicast table, or let in by
# all-multicast or promiscuous mode, as a ConnectX steers; what it refuses
# is counted in the port's rx_filtered. The tables are the core's
# (ndo_set_rx_mode, ndo_set_mac_address) programmed through the backend's
# set_rx_filter, seen in debugfs port<P>/rx_filter.
#
# Adapter 1 (cx3): A = port 0 sends raw frames (rawsend, N per case) to
# B = port 1; each case checks exactly how many of them B's port
# delivered (sim rx_frames), filtered (sim rx_filtered) and B's netdev
# received (rx_packets):
#   own_unicast, broadcast: all N delivered, none filtered
#   unknown_unicast: none delivered, all N filtered
#   mc_join: after ip maddr add G, N frames to G delivered, N to another
#       group H filtered; after ip maddr del, G filtered too
#   allmulti: H delivered, an unknown unicast still filtered; off again:
#       H filtered
#   promisc: the unknown unicast delivered; off again: filtered
#   mac_change_live: ip link set address while up: N to the old address
#       filtered, N to the new one delivered; back to the old
#   mac_refused: a multicast and the zero address refused with
#       EADDRNOTAVAIL ("Cannot assign requested address"), address kept
#   uc_overflow: static FDB entries (bridge fdb add ... self) fill the
#       128-entry table exactly: no fallback, also with B's own address
#       listed among them; one more: promiscuous,
#       uc_filter_overflow 1, one log line; the unknown unicast delivered;
#       entries removed: exact again, filtered
#   mc_overflow: 128 groups fit (the stack's own among them), the 129th:
#       all-multicast,
#       mc_filter_overflow 1, one log line; removed: exact again
#   closed: a port that is down has no filter (rx_filter "none")
#   ipv6_ping: IPv6 on both ports (namespaces a and b), ping6 across the
#       cable with 0% loss: neighbour discovery rests on the
#       solicited-node group the stack joined, in B's table
# Adapter 2 (cx5): own unicast delivered, unknown unicast filtered, a
# joined group delivered and another filtered.
# Last: no sim violations, no DMA mapping left after teardown.
. /cxbell/lib.sh

ktap_plan 19
no_ipv6

N=100
UNKNOWN=02:00:00:00:00:99
G=01:00:5e:01:02:03
H=01:00:5e:01:02:04
NEWMAC=02:00:00:00:aa:01

filt() { cat "$CXB_DBG/cxbell_sim$AD/port1/rx_filter"; }
# filt_has LINE: B's programmed filter has that line
filt_has() { filt | grep -qx "$1"; }

# send DST: N frames A -> B to DST; sets dlv, flt (B's sim rx_frames,
# rx_filtered deltas) and rxp (B's rx_packets delta)
send()
{
	_f0=$(sim_ctr "$AD" 1 rx_frames) _x0=$(sim_ctr "$AD" 1 rx_filtered)
	_r0=$(cxb_stat "$B" rx_packets)
	_out=$(rawsend "$A" "$1" 60 "$N") || { ktap_diag "rawsend: $_out"; return 1; }
	_seen() {
		dlv=$(($(sim_ctr "$AD" 1 rx_frames) - _f0))
		flt=$(($(sim_ctr "$AD" 1 rx_filtered) - _x0))
		[ $((dlv + flt)) -ge "$N" ]
	}
	wait_until 5 _seen
	_got() {
		rxp=$(($(cxb_stat "$B" rx_packets) - _r0))
		[ "$rxp" -ge "$dlv" ]
	}
	wait_until 5 _got
	# nothing more trickles in
	sleep 0.2
	_seen
	_got
	return 0
}

# expect DST DELIVERED FILTERED [WHAT]
expect()
{
	send "$1" || return 1
	_w=${4:-$1}
	eq "$dlv" "$2" "$_w: delivered" && eq "$flt" "$3" "$_w: filtered" &&
		eq "$rxp" "$2" "$_w: $B rx_packets"
}

setup()
{
	cxb_ab_up 1 cx3 || return 1
	ktap_diag "A $A, B $B ($BMAC)"
	wait_until 2 filt_has "uc $BMAC" || { ktap_diag "$(filt)"; return 1; }
	ktap_diag "B's filter: $(filt | tr '\n' ' ')"
	# B's own address, the IPv4 all-hosts group the stack joined
	eq "$(filt | head -n 3 | tr '\n' ' ')" "promisc 0 allmulti 0 uc 1 " \
		"B's filter" && filt_has "mc 01:00:5e:00:00:01"
}

own_unicast() { expect "$BMAC" "$N" 0; }
broadcast() { expect ff:ff:ff:ff:ff:ff "$N" 0; }
unknown_unicast() { expect "$UNKNOWN" 0 "$N"; }

mc_join()
{
	ip maddr add "$G" dev "$B" || return 1
	wait_until 2 filt_has "mc $G" || { ktap_diag "$(filt)"; return 1; }
	expect "$G" "$N" 0 "joined $G" && expect "$H" 0 "$N" "other $H" || return 1
	ip maddr del "$G" dev "$B" || return 1
	wait_until 2 eval '! filt_has "mc $G"' || { ktap_diag "$(filt)"; return 1; }
	expect "$G" 0 "$N" "left $G"
}

allmulti()
{
	ip link set "$B" allmulticast on || return 1
	wait_until 2 filt_has "allmulti 1" || return 1
	expect "$H" "$N" 0 "allmulti $H" && expect "$UNKNOWN" 0 "$N" "allmulti unicast" ||
		return 1
	ip link set "$B" allmulticast off || return 1
	wait_until 2 filt_has "allmulti 0" || return 1
	expect "$H" 0 "$N" "allmulti off $H"
}

promisc()
{
	ip link set "$B" promisc on || return 1
	wait_until 2 filt_has "promisc 1" || return 1
	expect "$UNKNOWN" "$N" 0 "promisc unicast" && expect "$H" "$N" 0 "promisc $H" ||
		return 1
	ip link set "$B" promisc off || return 1
	wait_until 2 filt_has "promisc 0" || return 1
	expect "$UNKNOWN" 0 "$N" "promisc off"
}

mac_change_live()
{
	ip link set "$B" address "$NEWMAC" || return 1
	eq "$(cat "/sys/class/net/$B/address")" "$NEWMAC" "$B address" &&
		eq "$(cat "/sys/class/net/$B/operstate")" up "$B operstate" &&
		filt_has "uc $NEWMAC" && ! filt_has "uc $BMAC" || { ktap_diag "$(filt)"; return 1; }
	expect "$BMAC" 0 "$N" "old address" && expect "$NEWMAC" "$N" 0 "new address" ||
		return 1
	ip link set "$B" address "$BMAC" || return 1
	expect "$BMAC" "$N" 0 "restored" && expect "$NEWMAC" 0 "$N" "replaced"
}

# refused ADDR: ip link set address ADDR fails with EADDRNOTAVAIL
refused()
{
	_o=$(ip link set "$B" address "$1" 2>&1) && {
		ktap_diag "address $1 accepted"; return 1; }
	echo "$_o" | grep -q 'Cannot assign requested address' || {
		ktap_diag "address $1: $_o"; return 1; }
}

mac_refused()
{
	refused 01:00:5e:00:00:01 && refused 00:00:00:00:00:00 || return 1
	eq "$(cat "/sys/class/net/$B/address")" "$BMAC" "$B address" &&
		expect "$BMAC" "$N" 0
}

# fdb OP FIRST COUNT PREFIX: bridge fdb OP of COUNT static entries
# PREFIX:XX (XX = FIRST...) on B itself
fdb()
{
	_i=$2
	: >/tmp/fdb.batch
	while [ "$_i" -lt $(($2 + $3)) ]; do
		printf 'fdb %s %s:%02x dev %s self permanent\n' "$1" "$4" "$_i" "$B" >>/tmp/fdb.batch
		_i=$((_i + 1))
	done
	bridge -batch /tmp/fdb.batch
}

# overflow KIND PREFIX FLAG: static FDB entries PREFIX:XX fill B's KIND
# table (128 entries) exactly, FLAG stays off; one more turns FLAG on,
# counted once in KIND_filter_overflow and logged once. Sets fit (the
# entries added that fit).
overflow()
{
	_k=$1 _p=$2 _flag=$3
	_have=$(filt | sed -n "s/^$_k //p" | head -n 1)
	fit=$((128 - _have))
	_c0=$(cxb_stat "$B" "${_k}_filter_overflow")
	fdb add 0 "$fit" "$_p" || return 1
	wait_until 2 filt_has "$_k 128" || { ktap_diag "$(filt | head -n 4)"; return 1; }
	filt_has "$_flag 0" || { ktap_diag "$_flag on with $fit entries added"; return 1; }
	eq "$(cxb_stat "$B" "${_k}_filter_overflow")" "$_c0" "${_k}_filter_overflow at the limit" ||
		return 1
	if [ "$_k" = uc ]; then
		# B's own address in the list takes no second entry
		bridge fdb add "$BMAC" dev "$B" self permanent && sleep 0.3 || return 1
		filt_has "promisc 0" && filt_has "uc 128" ||
			{ ktap_diag "own address listed: $(filt | head -n 4)"; return 1; }
		bridge fdb del "$BMAC" dev "$B" self permanent || return 1
	fi
	fdb add "$fit" 1 "$_p" || return 1
	wait_until 2 filt_has "$_flag 1" || { ktap_diag "$(filt | head -n 4)"; return 1; }
	eq "$(cxb_stat "$B" "${_k}_filter_overflow")" $((_c0 + 1)) "${_k}_filter_overflow" &&
		eq "$(dmesg | grep -c "filter: 129 addresses, the port holds 128")" 1 \
			"log lines" || return 1
	# a change while full logs nothing more
	ip maddr add 01:00:5e:7f:00:01 dev "$B" && ip maddr del 01:00:5e:7f:00:01 dev "$B" ||
		return 1
	sleep 0.2
	eq "$(dmesg | grep -c "filter: .* addresses, the port holds")" 1 "log lines after" ||
		return 1
}

uc_overflow()
{
	overflow uc 02:00:00:01:00 promisc || return 1
	expect "$UNKNOWN" "$N" 0 "unicast, table full" || return 1
	fdb del 0 $((fit + 1)) 02:00:00:01:00 || return 1
	wait_until 2 filt_has "promisc 0" || return 1
	filt_has "uc 1" || { ktap_diag "$(filt | head -n 4)"; return 1; }
	expect "$UNKNOWN" 0 "$N" "unicast, table free"
}

mc_overflow()
{
	_mc0=$(filt | sed -n 's/^mc //p' | head -n 1)
	overflow mc 01:00:5e:02:00 allmulti || return 1
	expect "$H" "$N" 0 "multicast, table full" || return 1
	fdb del 0 $((fit + 1)) 01:00:5e:02:00 || return 1
	wait_until 2 filt_has "allmulti 0" || return 1
	filt_has "mc $_mc0" || { ktap_diag "$(filt | head -n 4)"; return 1; }
	expect "$H" 0 "$N" "multicast, table free"
}

closed()
{
	ip link set "$B" down || return 1
	eq "$(filt)" none "rx_filter of a closed port" || return 1
	ip link set "$B" up && wait_until 2 filt_has "uc $BMAC"
}

ns_carrier() { [ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]; }

ipv6_ping()
{
	mkdir -p /run/netns
	ip netns add a && ip netns add b || return 1
	ip link set "$A" netns a && ip link set "$B" netns b || return 1
	ip netns exec a sysctl -qw net.ipv6.conf.default.disable_ipv6=0 &&
		ip netns exec a sysctl -qw "net.ipv6.conf.$A.disable_ipv6=0" &&
		ip netns exec b sysctl -qw net.ipv6.conf.default.disable_ipv6=0 &&
		ip netns exec b sysctl -qw "net.ipv6.conf.$B.disable_ipv6=0" || return 1
	ip -n a addr add fd00::1/64 dev "$A" nodad && ip -n b addr add fd00::2/64 dev "$B" nodad &&
		ip -n a link set "$A" up && ip -n b link set "$B" up || return 1
	wait_until 5 ns_carrier a "$A" && wait_until 5 ns_carrier b "$B" || return 1
	# B joined the solicited-node group of fd00::2
	wait_until 2 filt_has "mc 33:33:ff:00:00:02" || { ktap_diag "$(filt)"; return 1; }
	_out=$(ip netns exec a ping -6 -c 10 -i 0.1 -W 2 fd00::2 2>&1)
	echo "$_out" | grep -q ' 0% packet loss' || {
		echo "$_out" | tail -n 3 | sed 's/^/# /'; return 1; }
	ip -n b neigh show dev "$B" | grep -q 'fd00::1 ' || {
		ktap_diag "no neighbour entry for fd00::1 in b"; return 1; }
}

cx5_pair() { cxb_ab_up 2 cx5; }

cx5_mc_join()
{
	ip maddr add "$G" dev "$B" || return 1
	wait_until 2 filt_has "mc $G" || return 1
	expect "$G" "$N" 0 "cx5 joined $G" && expect "$H" 0 "$N" "cx5 other $H"
}

teardown()
{
	ip netns del a && ip netns del b || return 1
	cxb_del 2 && cxb_del 1 || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

ktap_ok setup setup || ktap_finish
ktap_ok own_unicast_delivered own_unicast
ktap_ok broadcast_delivered broadcast
ktap_ok unknown_unicast_filtered unknown_unicast
ktap_ok multicast_join_exact mc_join
ktap_ok allmulti allmulti
ktap_ok promisc promisc
ktap_ok mac_change_live mac_change_live
ktap_ok mac_multicast_zero_refused mac_refused
ktap_ok uc_overflow_promisc uc_overflow
ktap_ok mc_overflow_allmulti mc_overflow
ktap_ok closed_port_no_filter closed
ktap_ok ipv6_ping_filtered ipv6_ping
ktap_ok cx5_setup cx5_pair
ktap_ok cx5_own_unicast_delivered expect "$BMAC" "$N" 0
ktap_ok cx5_unknown_unicast_filtered expect "$UNKNOWN" 0 "$N"
ktap_ok cx5_multicast_join_exact cx5_mc_join
ktap_ok sim_no_violations sim_no_violations 1 2
ktap_ok teardown_dma_live_zero teardown
ktap_finish
