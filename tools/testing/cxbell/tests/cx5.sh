# SPDX-License-Identifier: GPL-2.0
#
# A cx5 sim adapter (mlx5 send queues, port 0 cabled to a cx5 port 1)
# under mixed traffic and with the tx_mpwqe flag switched under traffic.
#  1. pktgen (burst 32, 60 bytes) port 0 -> port 1 for TOGGLE_S seconds per
#     sim engine while a toggler flips tx_mpwqe on/off, blueflame on/off
#     (the flag and tx-push), doorbell_opt through 0..3 and tx-copybreak
#     through 0, 128, 464 (inline segments in multi-packet WQEs), as fast
#     as the commands go, at least 8 rounds each: peer rx_packets == sent
#     == tx_packets; sim doorbells == tx_doorbells, bf_writes ==
#     tx_blueflame, mpwqe_wqes == tx_mpwqe_blks, mpwqe_pkts ==
#     tx_mpwqe_pkts, 0 < tx_mpwqe_pkts < sent; no violation, BlueFlame
#     mismatch or ineligible write, nothing stranded (both ports, after
#     300 ms idle); every toggle took.
#  2. Namespaces a/b, 10.0.0.x on the ports and 10.0.1.x on VLAN 100 over
#     them. At once: TCP_MB MiB over TCP (segments with fragments: SEND
#     WQEs), UDP_N numbered 18-byte UDP datagrams on the port and UDP_N on
#     the VLAN (linear: multi-packet WQEs). The sha256 of the stream
#     matches; every packet port 0 sent arrives (peer rx_packets ==
#     tx_packets), the datagrams in order (at least 99% of them: the
#     sending stack may drop some before the driver under load); fallback
#     packets (tx_packets - tx_mpwqe_pkts) and multi-packet ones both > 0;
#     the same sim checks.
#  3. The same with togglers on both ports.
#
#   cx5.sh [TOGGLE_S [TCP_MB [UDP_N]]]    defaults 3, 8 and 3000
. /cxbell/lib.sh

# toggle_mpwqe IF ROUND: a toggle_rounds STEP, tx_mpwqe off/on by turns
toggle_mpwqe()
{
	if [ $(($2 % 2)) = 0 ]; then _v=off; else _v=on; fi
	_o=$(ethtool --set-priv-flags "$1" tx_mpwqe $_v 2>&1) ||
		echo "round $2: tx_mpwqe $_v failed: $_o"
	_g=$(cxb_priv_flag "$1" tx_mpwqe)
	[ "$_g" = $_v ] || echo "round $2: tx_mpwqe $_v reads '$_g'"
}

# toggle_cb IF ROUND: a toggle_rounds STEP, tx-copybreak 0, 128, 464 by turns
toggle_cb()
{
	case $(($2 % 3)) in
	0) _v=0 ;; 1) _v=128 ;; *) _v=464 ;;
	esac
	ethtool --set-tunable "$1" tx-copybreak $_v 2>/dev/null ||
		echo "round $2: tx-copybreak $_v failed"
}

# toggle_port IF STOP LOG: problems in LOG, round counts in LOG.n
toggle_port()
{
	toggler "$1" "$2" "$3" mpwqe:toggle_mpwqe bf:toggle_bf \
		doorbell_opt:toggle_doorbell_opt copybreak:toggle_cb
	# leave the port as the next case expects it
	ethtool --set-priv-flags "$1" tx_mpwqe on blueflame off
	echo 0 >"/sys/class/net/$1/doorbell_opt"
	ethtool --set-tunable "$1" tx-copybreak 0
}

if [ "${1:-}" = --toggler ]; then
	shift
	toggle_port "$@"
	exit 0
fi

TOGGLE_S=${1:-3}
TCP_MB=${2:-8}
UDP_N=${3:-3000}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

ktap_plan 7
no_ipv6

# Sim and driver counters agree, nothing went wrong (both ports).
sim_checks()
{
	_rc=0
	pair_sim_zero bf_ineligible bf_mismatch violations stranded || _rc=1
	for pp in d:s0 r:s1; do
		dp=${pp%:*} sp=${pp#*:}
		eq "$(pair_d ${sp}_doorbells)" "$(pair_d ${dp}_tx_doorbells)" \
			"sim $sp doorbells vs tx_doorbells" || _rc=1
		eq "$(pair_d ${sp}_bf_writes)" "$(pair_d ${dp}_tx_blueflame)" \
			"sim $sp bf_writes vs tx_blueflame" || _rc=1
		eq "$(pair_d ${sp}_mpwqe_wqes)" "$(pair_d ${dp}_tx_mpwqe_blks)" \
			"sim $sp mpwqe_wqes vs tx_mpwqe_blks" || _rc=1
		eq "$(pair_d ${sp}_mpwqe_pkts)" "$(pair_d ${dp}_tx_mpwqe_pkts)" \
			"sim $sp mpwqe_pkts vs tx_mpwqe_pkts" || _rc=1
		ktap_diag "$sp: tx_packets $(pair_d ${dp}_tx_packets)" \
			"mpwqe_pkts $(pair_d ${dp}_tx_mpwqe_pkts)" \
			"mpwqe_blks $(pair_d ${dp}_tx_mpwqe_blks)" \
			"doorbells $(pair_d ${dp}_tx_doorbells) cqes $(pair_d ${dp}_tx_cqes)" \
			"inline $(pair_d ${dp}_tx_inline) dropped $(pair_d ${dp}_tx_dropped);" \
			"sim rx_dropped $(pair_d ${sp}_rx_dropped)" \
			"tx_discarded $(pair_d ${sp}_tx_discarded)" \
			"bf_writes $(pair_d ${sp}_bf_writes)" \
			"blueflame $(pair_d ${dp}_tx_blueflame)" \
			"nop_wqes $(pair_d ${sp}_nop_wqes)" \
			"violations $(pair_d ${sp}_violations);" \
			"by_completion $(pair_d ${dp}_tx_doorbell_by_completion)" \
			"deferred $(pair_d ${dp}_tx_doorbell_deferred)" \
			"forced $(pair_d ${dp}_tx_doorbell_forced)"
	done
	return $_rc
}

# The checks of pktgen_toggle for cx5: tx_mpwqe_pkts strictly between 0 and
# sent, the sim checks.
mpwqe_checks()
{
	_mrc=0
	mp=$(pair_d d_tx_mpwqe_pkts)
	{ [ "$mp" -gt 0 ] && [ "$mp" -lt "$sent" ]; } ||
		{ ktap_diag "tx_mpwqe_pkts $mp: not between 0 and $sent"; _mrc=1; }
	sim_checks || _mrc=1
	return $_mrc
}

pktgen_toggle_port()
{
	pktgen_toggle "$1" "$TOGGLE_S" toggle_port mpwqe_checks
}

# Ports 6000 and 6001 (0x1770, 0x1771) bound in namespace b.
udp_bound()
{
	[ "$(ip netns exec b cat /proc/net/udp | grep -c ':177[01] ')" = 2 ]
}

# mixed [toggle]
mixed()
{
	sim_engine 1 inline || return 1
	rm -f /tmp/tg.stop /tmp/tga.log* /tmp/tgb.log* /tmp/u0.out /tmp/u1.out
	head -c $((TCP_MB * 1024 * 1024)) /dev/urandom >/tmp/src || return 1
	want=$(sha256sum </tmp/src | cut -d' ' -f1)
	# The snapshots of both ports and sims are not one instant: take them
	# when no frame moved between two of them (the previous case's last
	# segments and ACKs, a neighbour probe).
	pair_snap_settled b a b
	if [ -n "${1:-}" ]; then
		ip netns exec a /bin/sh "$self" --toggler "$p0" /tmp/tg.stop /tmp/tga.log &
		tga=$!
		ip netns exec b /bin/sh "$self" --toggler "$p1" /tmp/tg.stop /tmp/tgb.log &
		tgb=$!
	fi
	ip netns exec b tcpblast udprecv 6000 "$UDP_N" 60 >/tmp/u0.out &
	u0=$!
	ip netns exec b tcpblast udprecv 6001 "$UDP_N" 60 >/tmp/u1.out &
	u1=$!
	ip netns exec b sh -c 'tcpblast serve 5001 | sha256sum >/tmp/dst.sum' &
	srv=$!
	wait_until 10 udp_bound || ktap_diag "UDP receivers not bound"
	# resolve the neighbours first: a queue of 3 frames waits for ARP
	ip netns exec a ping -c 1 -W 2 10.0.0.2 >/dev/null &&
	ip netns exec a ping -c 1 -W 2 10.0.1.2 >/dev/null ||
		ktap_diag "ping before the transfer failed"
	ip netns exec a tcpblast udpsend 10.0.0.2 6000 "$UDP_N" 18 &
	s0=$!
	ip netns exec a tcpblast udpsend 10.0.1.2 6001 "$UDP_N" 18 &
	s1=$!
	ip netns exec a tcpblast send 10.0.0.2 5001 </tmp/src
	src_rc=$?
	wait $srv $s0 $s1 $u0 $u1
	if [ -n "${1:-}" ]; then
		touch /tmp/tg.stop
		wait $tga $tgb
	fi
	rm -f /tmp/src
	pair_snap_settled a a b
	sum=$(cut -d' ' -f1 /tmp/dst.sum)
	rc=0
	[ $src_rc = 0 ] || { ktap_diag "tcpblast send exited $src_rc"; rc=1; }
	eq "$sum" "$want" "sha256" || rc=1
	# Datagrams the sending stack dropped (neighbour queue) never reach
	# the driver; what the driver sent must all arrive, in order.
	for u in 0 1; do
		r=$(cat /tmp/u$u.out)
		ktap_diag "udp $u (VLAN: 1): $r"
		got=$(echo "$r" | awk '{ print $2 + 0 }')
		reo=$(echo "$r" | awk '{ print $4 }')
		[ "$got" -ge $((UDP_N * 99 / 100)) ] && [ "$reo" = 0 ] ||
			{ ktap_diag "udp $u: want >= 99% received, reordered 0"; rc=1; }
	done
	eq "$(pair_d r_rx_packets)" "$(pair_d d_tx_packets)" "peer rx_packets vs tx_packets" || rc=1
	ktap_diag "b: $(ip netns exec b grep '^Udp:' /proc/net/snmp | tail -n 1)"
	ktap_diag "peer rx_dropped $(pair_d r_rx_dropped) rx_csum_none" \
		"$(pair_d r_rx_csum_none) rx_packets $(pair_d r_rx_packets)"
	fb=$(($(pair_d d_tx_packets) - $(pair_d d_tx_mpwqe_pkts)))
	ktap_diag "port0 fallback (SEND WQE) packets $fb"
	[ "$fb" -gt 0 ] || { ktap_diag "no fallback packet"; rc=1; }
	[ "$(pair_d d_tx_mpwqe_pkts)" -gt 0 ] || { ktap_diag "no MPWQE packet"; rc=1; }
	sim_checks || rc=1
	if [ -n "${1:-}" ]; then
		toggler_ok /tmp/tga.log || rc=1
		toggler_ok /tmp/tgb.log || rc=1
	fi
	return $rc
}

ktap_ok setup_cx5_pair cxb_pktgen_pair cx5 || ktap_finish
ktap_ok "pktgen_inline_toggle_${TOGGLE_S}s" pktgen_toggle_port inline
ktap_ok "pktgen_deferred_toggle_${TOGGLE_S}s" pktgen_toggle_port deferred
ktap_ok netns_vlan_setup cxb_netns_vlan100 || ktap_finish
ktap_ok "mixed_tcp_${TCP_MB}MiB_udp_vlan" mixed
ktap_ok "mixed_tcp_${TCP_MB}MiB_udp_vlan_toggle" mixed toggle
ktap_ok teardown_dma_live_zero cxb_netns_teardown
ktap_finish
