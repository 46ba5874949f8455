# SPDX-License-Identifier: GPL-2.0
#
# TCP segmentation offload: the driver posts each TCP GSO skb as one LSO
# WQE, on a ConnectX-3 port MLX4_OPCODE_LSO (the headers inline beside
# MSS and header length, data segments for the payload, never by
# BlueFlame), on a ConnectX-4+ port MLX5_OPCODE_LSO (the eth segment's
# mss and checksum flags, the headers as its inline headers, a VLAN tag
# put into them by the driver, data segments for the payload, never in a
# multi-packet WQE), and the device cuts it into gso_segs TCP segments
# (IPv4 total length, ID +1 per segment and header checksum, or IPv6
# payload length; TCP sequence numbers, FIN/PSH on the last segment
# only, CWR on the first only, the TCP checksum).
#
# Adapter 1 (cx3), then adapter 2 (cx5): A = port 0 in netns a (10.0.0.1,
# fd00::1), B = port 1 in netns b (10.0.0.2, fd00::2). Each transfer
# sends MIB MiB of random
# bytes from a to b (tcpblast) with the GSO skbs handed to A traced
# (tracepoint net:net_dev_start_xmit: M skbs, N = their gso_segs
# summed), counters snapshotted before and (settled) after:
#   features: tcp-segmentation-offload and tx-tcp6-segmentation on (and
#       in A's vlan_features: a VLAN device on A offers them too)
#   tso_ipv4 / tso_ipv6: M > 0; A's tx_tso_packets == M == the sim's
#       tx_lso_wqes; the sim's tx_lso_segments == N; the sim's tx_frames
#       and tx_bytes == A's tx_packets and tx_bytes (which count an LSO
#       WQE's segments and their bytes on the wire, as mlx4_en does; the
#       sim's bytes with the 4 of each tag it inserted);
#       B's rx_packets == the sim's rx_frames at B; sha256 intact
#   tso_vlan: the same over VLAN 100 on A and B (IPv4 10.0.1.0/24), the
#       tag inserted by the device into every segment: the sim's
#       tx_vlan_inserted == av's tx_packets - M + N (the VLAN device
#       counts a GSO skb once)
#   tso_off: ethtool -K A tso off: no GSO skb reaches A (software GSO
#       segments them before), tx_tso_packets and the sim's tx_lso_wqes
#       stay 0, the data intact; on again: LSO again
#   tso_pause: B's receive ring at 64 entries, its CQ events at most one
#       per 1 ms period (ethtool -C): B pushes back (sim
#       tx_paused > 0) in the middle of LSO WQEs, their held segment and
#       the rest go out when B has buffers: the counts as above, the sim
#       dropped nothing at B
#   tso_fallback: frames a tap in a (10.0.3.1) forwards through A to B,
#       written with a virtio-net header as a VM's virtio-net device
#       writes them (tapgso: TCP/IPv4 GSO, 8000 bytes, MSS 1448, a 32-byte
#       TCP header): with 54 bytes of headers in the linear part (the TCP
#       timestamp option outside it) the device cannot take the headers
#       inline, ndo_features_check leaves each to software GSO:
#       tx_tso_fallback == FRAMES, no LSO WQE. With all 66 linear it
#       stays, and each frame is one LSO WQE of 6 segments (a tap's GSO
#       skb is SKB_GSO_DODGY: the stack checks its headers in
#       tcp_gso_segment() and hands it on whole). Either way B's TCP (GRO
#       off) takes exactly 6 segments a frame, no checksum error
#   tso_drain: the same 66-byte frames with every doorbell of A lost
#       (sim fault lose_doorbell), then A down: its LSO WQEs, never
#       fetched, are freed: tx_tso_packets +FRAMES, tx_packets and
#       tx_dropped + 6 * FRAMES each (a drop counts the segments
#       tx_packets counted), the sim's tx_frames and tx_lso_wqes +0
#   sim_no_violations, teardown_dma_live_zero: none on either port,
#       tx_tso_fallback == FRAMES, no DMA mapping left after teardown
# Adapter 2 (cx5), tx_mpwqe off unless said, the cases as on cx3
# (cx5_setup, cx5_features, cx5_tso_ipv4, cx5_tso_ipv6, cx5_tso_pause,
# cx5_tso_fallback, cx5_tso_drain, cx5_sim_no_violations, cx5_teardown_dma_live_zero)
# but:
#   cx5_tso_vlan: the device inserts the tag only into the SEND WQEs'
#       frames; an LSO WQE carries it in its inline headers: the sim's
#       tx_vlan_inserted == av's tx_packets - M, its tx_bytes == A's
#       tx_bytes + 4 * (tx_vlan_inserted + N)
#   cx5_tso_mpwqe: tx_mpwqe on, MIB MiB from b to a at the same time: A's
#       ACKs of that flow go in multi-packet WQEs between its LSO WQEs;
#       the counts as above, and A's tx_mpwqe_blks == the sim's
#       mpwqe_wqes > 0, tx_mpwqe_pkts == mpwqe_pkts, both sha256 intact
#
# A GSO skb the device cannot take (a tunnel, headers outside the linear
# part, a WQE over 32 DS) is left to software GSO by ndo_features_check
# and counted in tx_tso_fallback. The TCP stack builds none: only
# tso_fallback does (headers outside the linear part), and each
# adapter's sim_no_violations checks that the count is what it left.
. /cxbell/lib.sh

ktap_plan 22

MIB=8
# 1: the segments of the LSO WQEs carry a tag the driver put into their
# headers (cx5 VLAN), not in A's tx_bytes nor in the sim's
# tx_vlan_inserted
lso_tagged=0
# set by cx5_tso_mpwqe: xfer runs a transfer from b to a beside its own
rev=

# setup GEN ID: the pair on sim adapter ID of generation GEN
setup()
{
	gen=$1
	cxb_pktgen_pair "$1" "$2" && cxb_netns_pair || return 1
	for _x in "a $p0 1" "b $p1 2"; do
		set -- $_x
		ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 &&
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=0" &&
		ip -n "$1" addr add "fd00::$3/64" dev "$2" nodad || return 1
	done
}

# kfeat NS IF FEATURE: FEATURE's state in ethtool -k of IF
kfeat()
{
	ip netns exec "$1" ethtool -k "$2" |
		awk -v f="$3:" '$1 == f { print $2, $3 }'
}

features()
{
	eq "$(kfeat a "$p0" tcp-segmentation-offload)" "on " \
		"tcp-segmentation-offload" &&
	eq "$(kfeat a "$p0" tx-tcp6-segmentation)" "on " \
		"tx-tcp6-segmentation" &&
	ip -n a link add link "$p0" name av type vlan id 100 &&
	eq "$(kfeat a av tcp-segmentation-offload)" "on " \
		"tcp-segmentation-offload of a VLAN device"
}

# av's tx_packets (0 before tso_vlan made it)
avtx() { ip netns exec a cat /sys/class/net/av/statistics/tx_packets 2>/dev/null || echo 0; }

# snap_av VAR SNAPSHOT NS...: a settled pair snapshot and av's tx_packets
# in VAR, taken again until av sent nothing around it: a late frame of
# the TCP close or a neighbour probe through av must count on both sides
# of the comparison or on neither
snap_av()
{
	_sa_var=$1
	shift
	for _sa_try in 1 2 3 4 5 6 7 8 9 10; do
		_sa_0=$(avtx)
		pair_snap_settled "$@" || return 1
		_sa_1=$(avtx)
		if [ "$_sa_0" = "$_sa_1" ]; then
			eval "$_sa_var=\$_sa_1"
			return 0
		fi
	done
	ktap_diag "snap_av: av kept sending"
	return 1
}

# xfer DST SERVE: MIB MiB from a to DST (tcpblast SERVE in b) with the
# GSO skbs at A traced (gso_skbs, gso_segs) and settled snapshots b, a
xfer()
{
	head -c $((MIB * 1024 * 1024)) /dev/urandom >/tmp/src || return 1
	_sum=$(sha256sum </tmp/src | cut -d' ' -f1)
	snap_av _av0 b a b || return 1
	gso_trace_on "$p0" || return 1
	ip netns exec b sh -c "tcpblast $2 5001 | sha256sum >/tmp/dst.sum" &
	_srv=$!
	[ -z "$rev" ] || rev_start
	ip netns exec a tcpblast send "$1" 5001 </tmp/src
	tcp_rc=$?
	wait $_srv
	[ -z "$rev" ] || rev_wait
	rm -f /tmp/src
	tcp_sum=$(cut -d' ' -f1 /tmp/dst.sum)
	gso_trace_off || return 1
	snap_av _av1 a a b || return 1
	ktap_diag "$gso_skbs GSO skbs of $gso_segs segments;" \
		"tx_tso_packets $(pair_d d_tx_tso_packets)" \
		"tx_tso_bytes $(pair_d d_tx_tso_bytes)," \
		"sim tx_lso_wqes $(pair_d s0_tx_lso_wqes)" \
		"tx_lso_segments $(pair_d s0_tx_lso_segments)"
	tcp_ab_ok "$_sum"
}

# counted: the device sent what the driver counted, LSO WQE for GSO skb
counted()
{
	eq "$(pair_d d_tx_tso_packets)" "$gso_skbs" "tx_tso_packets vs GSO skbs" &&
	eq "$(pair_d s0_tx_lso_wqes)" "$gso_skbs" "sim tx_lso_wqes vs GSO skbs" &&
	eq "$(pair_d s0_tx_lso_segments)" "$gso_segs" "sim tx_lso_segments vs gso_segs" &&
	eq "$(pair_d s0_tx_frames)" "$(pair_d d_tx_packets)" "sim tx_frames vs tx_packets" &&
	eq "$(pair_d s0_tx_bytes)" \
		"$(($(pair_d d_tx_bytes) + 4 * ($(pair_d s0_tx_vlan_inserted) + lso_tagged * gso_segs)))" \
		"sim tx_bytes vs tx_bytes and the tags not counted in it" &&
	eq "$(pair_d s1_rx_frames)" "$(pair_d r_rx_packets)" "B rx_packets vs sim rx_frames" &&
	eq "$(pair_d s0_violations)" 0 "sim violations"
}

tso()
{
	xfer "$1" "$2" || return 1
	[ "$gso_skbs" -gt 0 ] || { ktap_diag "no GSO skb"; return 1; }
	counted
}


tso_vlan()
{
	ip -n b link add link "$p1" name bv type vlan id 100 &&
	ip -n a addr add 10.0.1.1/24 dev av && ip -n b addr add 10.0.1.2/24 dev bv &&
	ip -n a link set av up && ip -n b link set bv up || return 1
	if [ "$gen" = cx5 ]; then
		# the device tags the SEND WQEs' frames; the segments of an
		# LSO WQE have the tag from its inline headers
		lso_tagged=1
		tso 10.0.1.2 serve
		_rc=$?
		lso_tagged=0
		[ $_rc = 0 ] || return 1
		eq "$(pair_d s0_tx_vlan_inserted)" "$((_av1 - _av0 - gso_skbs))" \
			"sim tx_vlan_inserted vs av's tx_packets, GSO skbs not"
		return
	fi
	tso 10.0.1.2 serve || return 1
	# av counts a GSO skb once, the device tags each of its segments
	eq "$(pair_d s0_tx_vlan_inserted)" \
		"$((_av1 - _av0 - gso_skbs + gso_segs))" \
		"sim tx_vlan_inserted vs av's tx_packets, segments counted"
}

tso_off()
{
	ip netns exec a ethtool -K "$p0" tso off || return 1
	xfer 10.0.0.2 serve
	_rc=$?
	ip netns exec a ethtool -K "$p0" tso on || return 1
	[ $_rc = 0 ] &&
	eq "$gso_skbs" 0 "GSO skbs, TSO off" &&
	eq "$(pair_d d_tx_tso_packets)" 0 "tx_tso_packets, TSO off" &&
	eq "$(pair_d s0_tx_lso_wqes)" 0 "sim tx_lso_wqes, TSO off" &&
	eq "$(pair_d s0_tx_frames)" "$(pair_d d_tx_packets)" "sim tx_frames vs tx_packets" || return 1
	tso 10.0.0.2 serve
}

# B's receive ring at 64, its events (receive, and send: its NAPI poll
# refills the ring too) at most one per 1 ms period (rx-usecs and
# tx-usecs 1000, no count), so that the ring runs dry whatever the
# timing: segments find it empty, B pushes back (pause)
# in the middle of LSO WQEs, whose held segment and the rest go out once
# B has buffers again: nothing dropped, the counts as ever
tso_pause()
{
	ip netns exec b ethtool -G "$p1" rx 64 || return 1
	wait_until 5 _cxb_ns_carrier a "$p0" || { ktap_diag "no carrier after -G"; return 1; }
	ip netns exec b ethtool -C "$p1" rx-usecs 1000 rx-frames 0 \
		tx-usecs 1000 tx-frames 0 || return 1
	tso 10.0.0.2 serve
	_rc=$?
	ip netns exec b ethtool -C "$p1" rx-usecs 16 rx-frames 44 \
		tx-usecs 16 tx-frames 16 || return 1
	ip netns exec b ethtool -G "$p1" rx 1024 || return 1
	wait_until 5 _cxb_ns_carrier a "$p0" || { ktap_diag "no carrier after -G"; return 1; }
	[ $_rc = 0 ] || return 1
	ktap_diag "sim tx_paused $(pair_d s0_tx_paused)"
	[ "$(pair_d s0_tx_paused)" -gt 0 ] || { ktap_diag "B never pushed back"; return 1; }
	eq "$(pair_d s1_rx_dropped)" 0 "sim rx_dropped at B"
}

# tcpmib NS FIELD: a field of the Tcp line of NS's /proc/net/snmp
tcpmib()
{
	ip netns exec "$1" awk -v f="$2" '$1 == "Tcp:" {
		if (!n) { for (i = 2; i <= NF; i++) if ($i == f) n = i }
		else print $n
	}' /proc/net/snmp
}

FRAMES=10
# tap_up / tap_down: the tap tg0 in a (10.0.3.1) forwarding to B (GRO off)
tap_up()
{
	modprobe tun && ip -n a tuntap add tg0 mode tap vnet_hdr &&
	ip -n a addr add 10.0.3.1/24 dev tg0 && ip -n a link set tg0 up &&
	ip netns exec a sysctl -qw net.ipv4.ip_forward=1 &&
	ip netns exec b ethtool -K "$p1" gro off
}

tap_down()
{
	ip netns exec a sysctl -qw net.ipv4.ip_forward=0
	ip netns exec b ethtool -K "$p1" gro on &&
	ip -n a link del tg0
}

tso_fallback()
{
	tap_up || return 1
	_rc=0
	for _c in "54 $FRAMES 0" "66 0 $FRAMES"; do
		set -- $_c
		_f0=$(cxb_stat "$p0" tx_tso_fallback a) &&
		pair_snap_settled b a b && _in0=$(tcpmib b InSegs) &&
		_err0=$(tcpmib b InCsumErrors) || { _rc=1; break; }
		ip netns exec a tapgso tg0 10.0.3.2 10.0.0.2 5002 8000 1448 "$1" \
			$FRAMES >/dev/null || { _rc=1; break; }
		pair_snap_settled a a b || { _rc=1; break; }
		ktap_diag "linear headers $1: tx_tso_fallback" \
			"+$(($(cxb_stat "$p0" tx_tso_fallback a) - _f0))," \
			"B's TCP InSegs +$(($(tcpmib b InSegs) - _in0))"
		eq "$(($(cxb_stat "$p0" tx_tso_fallback a) - _f0))" "$2" \
			"tx_tso_fallback, $1 bytes linear" &&
		eq "$(pair_d d_tx_tso_packets)" "$3" "tx_tso_packets" &&
		eq "$(pair_d s0_tx_lso_wqes)" "$3" "sim tx_lso_wqes" &&
		eq "$(pair_d s0_tx_lso_segments)" $(($3 * 6)) \
			"sim tx_lso_segments" &&
		eq "$(pair_d s0_tx_frames)" "$(pair_d d_tx_packets)" \
			"sim tx_frames vs tx_packets" &&
		eq "$(($(tcpmib b InSegs) - _in0))" $((FRAMES * 6)) \
			"B's TCP InSegs" &&
		eq "$(($(tcpmib b InCsumErrors) - _err0))" 0 \
			"B's TCP InCsumErrors" || { _rc=1; break; }
	done
	tap_down || return 1
	return $_rc
}

# LSO WQEs the device never saw (every doorbell lost) freed at ifdown:
# tx_dropped counts their segments, as tx_packets did
tso_drain()
{
	_lose=$CXB_DBG/cxbell_sim$pair_id/port0/fault/lose_doorbell
	tap_up &&
	ip -n a neigh replace 10.0.0.2 lladdr "$mac" dev "$p0" nud permanent &&
	pair_snap_settled b a b &&
	echo 1000000 >"$_lose" || { tap_down; return 1; }
	_rc=0
	ip netns exec a tapgso tg0 10.0.3.2 10.0.0.2 5002 8000 1448 66 \
		$FRAMES >/dev/null &&
	wait_until 5 tso_posted $FRAMES &&
	ip -n a link set "$p0" down || _rc=1
	pair_snap a a b || _rc=1
	echo 0 >"$_lose"
	ip -n a link set "$p0" up && tap_down &&
	wait_until 5 _cxb_ns_carrier a "$p0" || return 1
	[ $_rc = 0 ] || return 1
	ktap_diag "tx_packets +$(pair_d d_tx_packets)," \
		"tx_dropped +$(pair_d d_tx_dropped)"
	eq "$(pair_d d_tx_tso_packets)" $FRAMES "tx_tso_packets" &&
	eq "$(pair_d d_tx_packets)" $((FRAMES * 6)) "tx_packets" &&
	eq "$(pair_d d_tx_dropped)" $((FRAMES * 6)) "tx_dropped" &&
	eq "$(pair_d s0_tx_lso_wqes)" 0 "sim tx_lso_wqes" &&
	eq "$(pair_d s0_tx_frames)" 0 "sim tx_frames"
}

# A posted N LSO WQEs since pair_snap b
tso_posted()
{
	[ $(($(cxb_stat "$p0" tx_tso_packets a) -
	     $(snap_vals b d_tx_tso_packets))) -ge "$1" ]
}

# rev_start / rev_wait: MIB MiB from b to a (10.0.0.1, tcpblast serve in
# a) while xfer's own transfer runs, checked (sha256, tcpblast's status)
rev_start()
{
	head -c $((MIB * 1024 * 1024)) /dev/urandom >/tmp/rsrc || return 1
	_rsum=$(sha256sum </tmp/rsrc | cut -d' ' -f1)
	ip netns exec a sh -c "tcpblast serve 5002 | sha256sum >/tmp/rdst.sum" &
	_rsrv=$!
	ip netns exec b tcpblast send 10.0.0.1 5002 </tmp/rsrc &
	_rcli=$!
}

rev_wait()
{
	wait $_rcli
	rev_rc=$?
	wait $_rsrv
	rm -f /tmp/rsrc
	rev_sum=$(cut -d' ' -f1 /tmp/rdst.sum)
}

# tx_mpwqe on, a flow from b to a beside the one from a to b: A's ACKs
# of it go in multi-packet WQEs between its LSO WQEs
tso_mpwqe()
{
	ip netns exec a ethtool --set-priv-flags "$p0" tx_mpwqe on || return 1
	rev=1
	tso 10.0.0.2 serve
	_rc=$?
	rev=
	ip netns exec a ethtool --set-priv-flags "$p0" tx_mpwqe off || return 1
	[ $_rc = 0 ] || return 1
	ktap_diag "tx_mpwqe_blks $(pair_d d_tx_mpwqe_blks)" \
		"tx_mpwqe_pkts $(pair_d d_tx_mpwqe_pkts)"
	eq "$rev_rc" 0 "tcpblast send b to a" &&
	eq "$rev_sum" "$_rsum" "sha256 b to a" &&
	[ "$(pair_d s0_mpwqe_wqes)" -gt 0 ] ||
		{ ktap_diag "no multi-packet WQE"; return 1; }
	eq "$(pair_d s0_mpwqe_wqes)" "$(pair_d d_tx_mpwqe_blks)" \
		"sim mpwqe_wqes vs tx_mpwqe_blks" &&
	eq "$(pair_d s0_mpwqe_pkts)" "$(pair_d d_tx_mpwqe_pkts)" \
		"sim mpwqe_pkts vs tx_mpwqe_pkts"
}

sim_clean()
{
	for p in 0 1; do
		eq "$(sim_ctr "$pair_id" $p violations)" 0 "port$p violations" || return 1
	done
	eq "$(cxb_stat "$p0" tx_tso_fallback a)" $FRAMES "tx_tso_fallback"
}

# cx5 setup: tx_mpwqe off on A (cx5_tso_mpwqe turns it on)
setup5()
{
	setup cx5 2 &&
	ip netns exec a ethtool --set-priv-flags "$p0" tx_mpwqe off
}

ktap_ok setup setup cx3 1 || ktap_finish
ktap_ok features features
ktap_ok tso_ipv4 tso 10.0.0.2 serve
ktap_ok tso_ipv6 tso fd00::2 serve6
ktap_ok tso_vlan tso_vlan
ktap_ok tso_off tso_off
ktap_ok tso_pause tso_pause
ktap_ok tso_fallback tso_fallback
ktap_ok tso_drain tso_drain
ktap_ok sim_no_violations sim_clean
ktap_ok teardown_dma_live_zero cxb_netns_teardown
ktap_ok cx5_setup setup5 || ktap_finish
ktap_ok cx5_features features
ktap_ok cx5_tso_ipv4 tso 10.0.0.2 serve
ktap_ok cx5_tso_ipv6 tso fd00::2 serve6
ktap_ok cx5_tso_vlan tso_vlan
ktap_ok cx5_tso_mpwqe tso_mpwqe
ktap_ok cx5_tso_pause tso_pause
ktap_ok cx5_tso_fallback tso_fallback
ktap_ok cx5_tso_drain tso_drain
ktap_ok cx5_sim_no_violations sim_clean
ktap_ok cx5_teardown_dma_live_zero cxb_netns_teardown
ktap_finish
