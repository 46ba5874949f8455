# SPDX-License-Identifier: GPL-2.0
#
# VLAN offloads: the device inserts the 802.1Q tag of an skb's
# NETIF_F_HW_VLAN_CTAG_TX tag (cx3: the ctrl segment's vlan_tag and
# ins_vlan, as mlx4_en; cx5: the eth segment's insert, as mlx5e) and, on
# a receive queue created to strip (NETIF_F_HW_VLAN_CTAG_RX), strips a
# received tag into the CQE. A WQE that inserts a tag does not go by
# BlueFlame (the BlueFlame copy has the QPN in the VLAN fields).
#
# Adapter 1 (cx3): A = port 0 and B = port 1, one channel each, VLAN 100
# on both (av, bv). Each case sends N raw 60-byte frames (rawsend) and
# counts exactly:
#   features: rx-vlan-offload and tx-vlan-offload on by default
#   bf_untagged: N frames from A itself: every ring a BlueFlame write
#       (tx_doorbells 0, tx_blueflame + tx_xmit_more N, sim bf_writes
#       tx_blueflame), N * 60 bytes on the wire, no tag inserted (the
#       baseline)
#   tx_insert: N frames from av: the device inserted N tags (sim
#       tx_vlan_inserted), N * 64 bytes on the wire (sim tx_bytes), no
#       BlueFlame write (tx_blueflame 0, sim bf_writes 0, tx_doorbells +
#       tx_xmit_more N)
#   rx_strip: those N at B: sim rx_vlan_stripped N, B's rx_bytes N * 60,
#       bv rx_packets N; each frame's skb (tracepoint
#       net:napi_gro_receive_entry) has the hardware-accelerated tag:
#       vlan_tagged=1 vlan_tci=0x0064, protocol 0x88b5
#   rx_no_strip: ethtool -K B rxvlan off (B's receive queues rebuilt):
#       the tag is in the received frame as it was on the wire:
#       rx_vlan_stripped 0, B's rx_bytes N * 64, every skb vlan_tagged=0
#       protocol 0x8100; the stack still untags them for bv (rx_packets
#       N); on again: stripped again
#   tx_sw_insert: ethtool -K A txvlan off: the stack inserts the tag, the
#       device none (tx_vlan_inserted 0), the WQEs are BlueFlame-eligible
#       again (every ring a BlueFlame write), B strips N; on again
#   ping_vlan: IPv4 over VLAN 100 between netns a and b (checksum
#       offload on tagged frames both ways): 10/10
# Adapter 2 (cx5): tx_insert (no BlueFlame there) and
#   rx_strip; with tx_mpwqe on, tagged frames never go into a multi-packet
#   WQE (tx_mpwqe_pkts 0 for them).
# Last: no sim violations, no DMA mapping left after teardown.
. /cxbell/lib.sh

ktap_plan 14
no_ipv6

N=100
T=/sys/kernel/tracing

# pair ID GEN: adapter ID of GEN, A (port 0) and B (port 1), one channel,
# up (cxb_ab_up: sets AD, A, B, BMAC), VLAN 100 on both (av, bv, up)
pair()
{
	cxb_ab_up "$1" "$2" || return 1
	ip link add link "$A" name av type vlan id 100 &&
		ip link add link "$B" name bv type vlan id 100 &&
		ip link set av up && ip link set bv up
}

unpair()
{
	ip link del av
	ip link del bv
	cxb_del "$AD"
}

sysst() { cat "/sys/class/net/$1/statistics/$2"; }

# snap: counters before a run (s_*)
snap()
{
	s_txp=$(cxb_stat "$A" tx_packets) s_bf=$(cxb_stat "$A" tx_blueflame)
	s_db=$(cxb_stat "$A" tx_doorbells) s_mpw=$(cxb_stat "$A" tx_mpwqe_pkts 2>/dev/null)
	s_xm=$(cxb_stat "$A" tx_xmit_more)
	s_sbf=$(sim_ctr "$AD" 0 bf_writes) s_ins=$(sim_ctr "$AD" 0 tx_vlan_inserted)
	s_stx=$(sim_ctr "$AD" 0 tx_bytes)
	s_str=$(sim_ctr "$AD" 1 rx_vlan_stripped) s_srx=$(sim_ctr "$AD" 1 rx_frames)
	s_rxb=$(cxb_stat "$B" rx_bytes) s_rxp=$(cxb_stat "$B" rx_packets)
	s_bv=$(sysst bv rx_packets)
}

# d NAME: what counter NAME of snap moved since
d()
{
	case $1 in
	txp) _v=$(cxb_stat "$A" tx_packets) ;;
	bf) _v=$(cxb_stat "$A" tx_blueflame) ;;
	db) _v=$(cxb_stat "$A" tx_doorbells) ;;
	xm) _v=$(cxb_stat "$A" tx_xmit_more) ;;
	mpw) _v=$(cxb_stat "$A" tx_mpwqe_pkts) ;;
	sbf) _v=$(sim_ctr "$AD" 0 bf_writes) ;;
	ins) _v=$(sim_ctr "$AD" 0 tx_vlan_inserted) ;;
	stx) _v=$(sim_ctr "$AD" 0 tx_bytes) ;;
	str) _v=$(sim_ctr "$AD" 1 rx_vlan_stripped) ;;
	srx) _v=$(sim_ctr "$AD" 1 rx_frames) ;;
	rxb) _v=$(cxb_stat "$B" rx_bytes) ;;
	rxp) _v=$(cxb_stat "$B" rx_packets) ;;
	bv) _v=$(sysst bv rx_packets) ;;
	esac
	eval "echo \$((_v - s_$1))"
}

# send IF: N 60-byte frames from IF (A or av) to B, traced at B
# (napi_gro_receive_entry: /tmp/vlan.trace, one line
# "VLAN_TAGGED VLAN_TCI PROTOCOL LEN" per frame), settled
send()
{
	snap
	cxb_trace_start net/napi_gro_receive_entry "name == \"$B\"" || return 1
	_out=$(rawsend "$1" "$BMAC" 60 "$N") || { ktap_diag "rawsend: $_out"; return 1; }
	_arr() { [ "$(d rxp)" -ge "$N" ]; }
	wait_until 5 _arr
	sleep 0.2
	cxb_trace_stop net/napi_gro_receive_entry
	sed -n 's/.* vlan_tagged=\([01]\) .* vlan_tci=\(0x[0-9a-f]*\) protocol=\(0x[0-9a-f]*\) .* len=\([0-9]*\) .*/\1 \2 \3 \4/p' \
		"$T/trace" | sort | uniq -c | sed 's/^ *//' >/tmp/vlan.trace
	ktap_diag "at $B: $(tr '\n' ';' </tmp/vlan.trace)"
	eq "$(d txp)" "$N" "$1 tx_packets" && eq "$(d srx)" "$N" "sim rx_frames" &&
		eq "$(d rxp)" "$N" "$B rx_packets"
}

# traced WHAT: every frame as WHAT ("TAGGED TCI PROTO LEN")
traced() { eq "$(cat /tmp/vlan.trace)" "$N $1" "frames at $B"; }

setup()
{
	pair 1 cx3 || return 1
	ktap_diag "A $A, B $B ($BMAC)"
	[ -e "$T/trace" ] || mount -t tracefs nodev "$T" || return 1
	eq "$(cxb_priv_flag "$A" blueflame)" on "blueflame"
}

features()
{
	for _d in $A $B; do
		ethtool -k "$_d" | grep -q '^rx-vlan-offload: on$' &&
			ethtool -k "$_d" | grep -q '^tx-vlan-offload: on$' ||
			{ ktap_diag "$(ethtool -k "$_d" | grep vlan)"; return 1; }
	done
}

# all_bf: every WQE of the last run that rang went by BlueFlame (a frame
# the qdisc dequeued with more behind it rang nothing: xmit_more)
all_bf()
{
	eq "$(d db)" 0 "tx_doorbells" && eq "$(d sbf)" "$(d bf)" "sim bf_writes" &&
		eq $(($(d bf) + $(d xm))) "$N" "tx_blueflame + tx_xmit_more"
}

bf_untagged()
{
	send "$A" || return 1
	all_bf && eq "$(d ins)" 0 "sim tx_vlan_inserted" &&
		eq "$(d stx)" $((N * 60)) "sim tx_bytes" &&
		eq "$(d str)" 0 "sim rx_vlan_stripped" && traced "0 0x0000 0x88b5 46"
}

# tx_insert BF: N frames from av, tags inserted by the device; BF: the
# port has BlueFlame (no BlueFlame write for them all the same)
tx_insert()
{
	send av || return 1
	eq "$(d ins)" "$N" "sim tx_vlan_inserted" &&
		eq "$(d stx)" $((N * 64)) "sim tx_bytes" &&
		eq $(($(d db) + $(d xm))) "$N" "tx_doorbells + tx_xmit_more" &&
		eq "$(d bf)" 0 "tx_blueflame" && eq "$(d sbf)" 0 "sim bf_writes"
}

# rx_strip: the last frames stripped at B
rx_strip()
{
	eq "$(d str)" "$N" "sim rx_vlan_stripped" && eq "$(d rxb)" $((N * 60)) "$B rx_bytes" &&
		eq "$(d bv)" "$N" "bv rx_packets" && traced "1 0x0064 0x88b5 46"
}

rx_no_strip()
{
	ethtool -K "$B" rxvlan off || return 1
	ethtool -k "$B" | grep -q '^rx-vlan-offload: off$' || return 1
	wait_until 5 eval '[ "$(cat "/sys/class/net/$A/carrier")" = 1 ]' || return 1
	send av || return 1
	eq "$(d str)" 0 "sim rx_vlan_stripped" && eq "$(d rxb)" $((N * 64)) "$B rx_bytes" &&
		eq "$(d bv)" "$N" "bv rx_packets" && traced "0 0x0000 0x8100 50" || return 1
	ethtool -K "$B" rxvlan on || return 1
	wait_until 5 eval '[ "$(cat "/sys/class/net/$A/carrier")" = 1 ]' || return 1
	send av && rx_strip
}

tx_sw_insert()
{
	ethtool -K "$A" txvlan off || return 1
	send av || return 1
	eq "$(d ins)" 0 "sim tx_vlan_inserted" && all_bf && rx_strip || return 1
	ethtool -K "$A" txvlan on && send av && tx_insert bf
}

ns_carrier() { [ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]; }

ping_vlan()
{
	mkdir -p /run/netns
	ip netns add a && ip netns add b || return 1
	ip link del av && ip link del bv || return 1
	ip link set "$A" netns a && ip link set "$B" netns b || return 1
	ip -n a link add link "$A" name av type vlan id 100 &&
		ip -n b link add link "$B" name bv type vlan id 100 || return 1
	ip -n a addr add 10.0.100.1/24 dev av && ip -n b addr add 10.0.100.2/24 dev bv &&
		ip -n a link set "$A" up && ip -n b link set "$B" up &&
		ip -n a link set av up && ip -n b link set bv up || return 1
	wait_until 5 ns_carrier a "$A" && wait_until 5 ns_carrier b "$B" || return 1
	_out=$(ip netns exec a ping -c 10 -i 0.1 -W 2 10.0.100.2 2>&1)
	echo "$_out" | grep -q ' 0% packet loss' || {
		echo "$_out" | tail -n 3 | sed 's/^/# /'; return 1; }
	ip netns del a && ip netns del b
}

cx5_pair()
{
	# the netdevs of the deleted namespaces come back to the root one
	wait_until 5 eval '[ "$(cxb_netdevs 1 | wc -l)" = 2 ]'
	cxb_del 1 || return 1
	pair 2 cx5 || return 1
	eq "$(cxb_priv_flag "$A" tx_mpwqe)" on "tx_mpwqe"
}

cx5_mpwqe()
{
	# xmit_more never set by rawsend: an untagged frame at a time still
	# goes as a multi-packet WQE of one
	send "$A" || return 1
	eq "$(d mpw)" "$N" "tx_mpwqe_pkts, untagged" || return 1
	send av || return 1
	eq "$(d mpw)" 0 "tx_mpwqe_pkts, tagged" && eq "$(d ins)" "$N" "sim tx_vlan_inserted"
}

# the adapters still there (cx5_pair deleted adapter 1)
sim_clean()
{
	# shellcheck disable=SC2046 # one word per ID
	sim_no_violations $(sim_adapters)
}

teardown()
{
	unpair || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

ktap_ok setup setup || ktap_finish
ktap_ok vlan_offloads_on features
ktap_ok untagged_blueflame bf_untagged
ktap_ok tx_insert_no_blueflame tx_insert bf
ktap_ok rx_strip rx_strip
ktap_ok rx_no_strip_tag_on_wire rx_no_strip
ktap_ok tx_software_insert tx_sw_insert
ktap_ok ping_over_vlan ping_vlan
ktap_ok cx5_setup cx5_pair
ktap_ok cx5_tx_insert tx_insert nobf
ktap_ok cx5_rx_strip rx_strip
ktap_ok cx5_tagged_not_in_mpwqe cx5_mpwqe
ktap_ok sim_no_violations sim_clean
ktap_ok teardown_dma_live_zero teardown
ktap_finish
