# SPDX-License-Identifier: GPL-2.0
#
# A ConnectX-4 sim adapter ("1 2 cx4"): the mlx5 formats, a minimum inline
# mode of L2 (every SEND carries the frame's first 18 bytes, its L2
# headers, inline in the Ethernet segment, as mlx5e does under
# MLX5_INLINE_MODE_L2; the sim counts a SEND with fewer as a violation)
# and no multi-packet WQEs. Exact counts, deltas of ethtool and sim
# counters; pktgen sends COUNT 60-byte frames, burst 32, port 0 -> port 1:
#   tx_mpwqe: off by default, "on" refused, still off
#   tx-copybreak 0: peer rx_packets == tx_packets == COUNT, tx_doorbells
#     == sim doorbells == COUNT / 32, sim inline_wqes == COUNT (headers
#     inline in every WQE), sim pcie_data_read_bytes == COUNT * 42 (the
#     bytes after the 18 inline ones), pcie_desc_read_bytes == 64 per
#     WQEBB fetched (COUNT WQEs of 4 DS, one WQEBB each, and the NOPs that
#     pad the ring end), tx_bounced == COUNT (those bytes come from the
#     send ring's bounce buffer), tx_inline == tx_mpwqe_pkts == 0
#   tx-copybreak 464: the whole frame inline in the Ethernet segment
#     (6 DS, two WQEBBs): tx_inline == COUNT, tx_bounced 0, no data read,
#     pcie_desc_read_bytes == 64 * (2 * COUNT + NOPs)
#   pktgen with an 802.1Q header in the frame (vlan_id 5, 64-byte
#     frames): as copybreak 0, 18 bytes inline (the network offset), 46
#     read
#   namespaces a/b, VLAN 100 over the ports (the tag inserted into the
#     inline headers): 10 pings over the VLAN, TCP_MB MiB over TCP (LSO
#     WQEs, ACKs as SENDs) with the sha256 checked; peer rx_packets ==
#     tx_packets
#   every case: violations == 0, stranded == 0 (both ports)
#
#   cx4.sh [COUNT [TCP_MB]]    defaults 9600 (a multiple of 32) and 4
. /cxbell/lib.sh

COUNT=${1:-9600}
TCP_MB=${2:-4}

ktap_plan 6
no_ipv6

setup()
{
	cxb_pktgen_pair cx4 || return 1
	rc=0
	eq "$(cxb_priv_flag "$p0" tx_mpwqe)" off "tx_mpwqe default" || rc=1
	ethtool --set-priv-flags "$p0" tx_mpwqe on 2>/dev/null &&
		{ ktap_diag "tx_mpwqe on accepted"; rc=1; }
	eq "$(cxb_priv_flag "$p0" tx_mpwqe)" off "tx_mpwqe after on" || rc=1
	return $rc
}

counters()
{
	echo "tx $(cxb_stat "$p0" tx_packets)"
	echo "db $(cxb_stat "$p0" tx_doorbells)"
	echo "inl $(cxb_stat "$p0" tx_inline)"
	echo "bn $(cxb_stat "$p0" tx_bounced)"
	echo "mp $(cxb_stat "$p0" tx_mpwqe_pkts)"
	echo "rx $(cxb_stat "$p1" rx_packets)"
	echo "sdb $(sim_ctr 1 0 doorbells)"
	echo "sinl $(sim_ctr 1 0 inline_wqes)"
	echo "nop $(sim_ctr 1 0 nop_wqes)"
	echo "data $(sim_ctr 1 0 pcie_data_read_bytes)"
	echo "desc $(sim_ctr 1 0 pcie_desc_read_bytes)"
	echo "v $(($(sim_ctr 1 0 violations) + $(sim_ctr 1 1 violations)))"
	echo "st $(($(sim_ctr 1 0 stranded) + $(sim_ctr 1 1 stranded)))"
}

snap() { snap_new "$1" && snap_add "$1" "" counters; }

peer_rx_done()
{
	[ $(($(cxb_stat "$p1" rx_packets) - $(snap_get b rx))) -ge "$COUNT" ]
}

# run COPYBREAK WQEBBS DATA [SIZE VLAN]: pktgen COUNT frames of SIZE
# bytes (60), burst 32, from port 0 with tx-copybreak COPYBREAK (VLAN:
# pktgen's vlan_id, an 802.1Q header in the frame); each WQE takes
# WQEBBS WQEBBs and leaves DATA bytes of its frame to a data segment
run()
{
	cb=$1 wqebbs=$2 data=$3
	sim_engine 1 inline || return 1
	ethtool --set-tunable "$p0" tx-copybreak "$cb" || return 1
	snap b
	res=$(CXB_PKTGEN_SET=${5:+"vlan_id $5"} \
		pktgen_run "$p0" "$COUNT" 32 "$mac" "${4:-60}") || return 1
	sent=${res#* }
	wait_until 5 peer_rx_done
	sleep 0.3
	snap a
	tx=$(snap_d tx) db=$(snap_d db) inl=$(snap_d inl) mp=$(snap_d mp)
	bn=$(snap_d bn)
	rx=$(snap_d rx) sdb=$(snap_d sdb) sinl=$(snap_d sinl) nop=$(snap_d nop)
	dat=$(snap_d data) desc=$(snap_d desc) v=$(snap_d v) st=$(snap_d st)
	ktap_diag "copybreak $cb size ${4:-60} vlan ${5:-none}: sent $sent" \
		"tx $tx rx $rx doorbells $db (sim $sdb) tx_inline $inl" \
		"sim inline_wqes $sinl nop_wqes $nop data read $dat bounced $bn" \
		"desc read $desc violations $v stranded $st"
	rc=0
	eq "$sent" "$COUNT" "packets sent" || rc=1
	eq "$rx" "$COUNT" "peer rx_packets" || rc=1
	eq "$tx" "$COUNT" "tx_packets" || rc=1
	eq "$db" $((COUNT / 32)) "tx_doorbells" || rc=1
	eq "$sdb" "$db" "sim doorbells vs tx_doorbells" || rc=1
	eq "$sinl" "$COUNT" "sim inline_wqes" || rc=1
	eq "$mp" 0 "tx_mpwqe_pkts" || rc=1
	# the rest of a short frame goes from the send ring's bounce buffer
	if [ "$data" = 0 ]; then
		eq "$inl" "$COUNT" "tx_inline" || rc=1
		eq "$bn" 0 "tx_bounced" || rc=1
	else
		eq "$inl" 0 "tx_inline" || rc=1
		eq "$bn" "$COUNT" "tx_bounced" || rc=1
	fi
	eq "$dat" $((COUNT * data)) "sim pcie_data_read_bytes" || rc=1
	eq "$desc" $(((COUNT * wqebbs + nop) * 64)) "sim pcie_desc_read_bytes" || rc=1
	eq "$v" 0 "violations" || rc=1
	eq "$st" 0 "stranded" || rc=1
	return $rc
}

netns_vlan()
{
	cxb_netns_vlan100 || return 1
	pair_snap_settled b a b
	rc=0
	_out=$(ip netns exec a ping -c 10 -i 0.2 -W 2 10.0.1.2 2>&1)
	ktap_diag "VLAN: $(printf '%s\n' "$_out" | grep 'packets transmitted')"
	printf '%s\n' "$_out" |
		grep -Eq '^10 packets transmitted, 10 (packets )?received' || rc=1
	ns_tcp_sha "$TCP_MB" || rc=1
	pair_snap_settled a a b
	eq "$(pair_d r_rx_packets)" "$(pair_d d_tx_packets)" \
		"peer rx_packets vs tx_packets" || rc=1
	ktap_diag "port 0: tx_packets $(pair_d d_tx_packets)" \
		"tso_packets $(pair_d d_tx_tso_packets) sim inline_wqes" \
		"$(pair_d s0_inline_wqes) lso_wqes $(pair_d s0_tx_lso_wqes)"
	pair_sim_zero violations stranded || rc=1
	return $rc
}

ktap_ok setup_cx4_adapter_tx_mpwqe_refused setup || ktap_finish
ktap_ok l2_headers_inline_burst_32 run 0 1 42
ktap_ok whole_frame_inline_copybreak_464 run 464 2 0
ktap_ok inband_vlan_tag_headers_inline run 0 1 46 64 5
ktap_ok "netns_vlan_insert_ping_tcp_${TCP_MB}MiB" netns_vlan
ktap_ok teardown_dma_live_zero cxb_netns_teardown
ktap_finish
