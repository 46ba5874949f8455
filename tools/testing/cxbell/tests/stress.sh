# SPDX-License-Identifier: GPL-2.0
#
# Reconfiguration, link flaps and removal under traffic. The ports of
# adapter 1 in namespaces a (10.0.0.1) and b (10.0.0.2); pktgen floods
# from port 0 (restarted whenever it stops: it quits at carrier loss or
# down) while TCP runs both ways at once, each stream checked by sha256.
#
#   reconfig:   for SECS seconds (default 20) and until both transfers
#               end, in turn: ethtool -G (rings 64..1024), -L (1, 2
#               channels), blueflame, tx-push, tx-copybreak, doorbell_opt
#               0/1/3, ip link down/up, MTU 1500/3000 (never under the TCP
#               MSS), on either port
#   cable_flap: the cable pulled out and plugged back 5 times during the
#               transfers: carrier follows, TCP survives
#   removal:    del_device while pktgen and TCP run
#   rmmod:      rmmod cxbell while pktgen and TCP run, then cxbell_sim
#
# After each: the sha256 of both streams match (reconfig, cable_flap);
# every frame is accounted, per port P with peer Q:
#   driver tx_packets(P) == sim tx_frames(P) - tx_unreported(P) + tx_dropped(P)
#   sim tx_frames(P) == sim rx_frames(Q) + rx_dropped(Q) + tx_discarded(P)
# no sim violation; no DMA mapping left after teardown (receive pages the
# stack held at removal come back to their page pool, which unmaps them,
# once the sockets are gone); a clean kernel log
# (checked by ktap_ok, under the suite's panic_on_warn).
#
#   stress.sh [SECS]    a longer soak: e.g. vm-run tests/stress.sh 600
. /cxbell/lib.sh

SECS=${1:-20}
SIZE=$((8 * 1024 * 1024))
SIM=$CXB_DBG/cxbell_sim1

ktap_plan 7
no_ipv6

nsx() { _ns=$1; shift; ip netns exec "$_ns" "$@"; }

setup()
{
	cxb_pktgen_pair || return 1
	cxb_netns_pair || return 1
	modprobe pktgen
}

# pktgen in namespace a on port 0, forever, at nice 19 (see pktgen_run),
# bursts of 8 every 200 us at most: a steady load on the queues under
# reconfiguration that leaves the (TCG-slow) TCP transfers CPU to finish.
pg_loop()
{
	_pg=/proc/net/pktgen
	while [ ! -e /tmp/stress.stop ]; do
		nsx a sh -c "
			echo rem_device_all >$_pg/kpktgend_0
			echo 'add_device $p0' >$_pg/kpktgend_0
			for c in 'count 0' 'pkt_size 60' 'burst 8' 'delay 200000' \
				'dst 10.0.0.2' 'udp_dst_min 9' 'udp_dst_max 9' \
				'dst_mac $mac'; do echo \"\$c\" >$_pg/$p0; done
			for p in \$(pidof kpktgend_0); do renice 19 -p \$p; done
			echo start >$_pg/pgctrl
			while ! grep -q '^Result: OK' $_pg/$p0 &&
			      [ ! -e /tmp/stress.stop ]; do sleep 0.1; done
			" >/dev/null 2>&1
		sleep 0.2
	done
}

pg_start() { rm -f /tmp/stress.stop; pg_loop & pgl=$!; }

pg_stop()
{
	touch /tmp/stress.stop
	# a start racing the flag: stop again until the loop is gone
	while kill -0 "$pgl" 2>/dev/null; do
		nsx a sh -c 'echo stop >/proc/net/pktgen/pgctrl' 2>/dev/null
		sleep 0.2
	done
	wait "$pgl" 2>/dev/null
	return 0
}

# TCP a->b and b->a at once, SIZE bytes each.
tcp_start()
{
	head -c $SIZE /dev/urandom >/tmp/ab || return 1
	head -c $SIZE /dev/urandom >/tmp/ba || return 1
	want_ab=$(sha256sum </tmp/ab | cut -d' ' -f1)
	want_ba=$(sha256sum </tmp/ba | cut -d' ' -f1)
	rm -f /tmp/ab.sum /tmp/ba.sum /tmp/ab.rc /tmp/ba.rc
	tcp_base=$(tcp_alloc)
	nsx b sh -c 'tcpblast serve 5001 | sha256sum >/tmp/ab.sum' &
	s1=$!
	nsx a sh -c 'tcpblast serve 5002 | sha256sum >/tmp/ba.sum' &
	s2=$!
	sleep 0.3
	(nsx a tcpblast send 10.0.0.2 5001 </tmp/ab; echo $? >/tmp/ab.rc) &
	c1=$!
	(nsx b tcpblast send 10.0.0.1 5002 </tmp/ba; echo $? >/tmp/ba.rc) &
	c2=$!
}

tcp_done() { [ -e /tmp/ab.rc ] && [ -e /tmp/ba.rc ]; }

tcp_check()
{
	wait "$c1" "$c2" "$s1" "$s2"
	_rc=0
	eq "$(cat /tmp/ab.rc)" 0 "tcpblast a->b exit" || _rc=1
	eq "$(cat /tmp/ba.rc)" 0 "tcpblast b->a exit" || _rc=1
	eq "$(cut -d' ' -f1 /tmp/ab.sum)" "$want_ab" "sha256 a->b" || _rc=1
	eq "$(cut -d' ' -f1 /tmp/ba.sum)" "$want_ba" "sha256 b->a" || _rc=1
	rm -f /tmp/ab /tmp/ba
	return $_rc
}

# TCP sockets a process still holds, in the whole kernel (every netns):
# allocated minus orphaned. An orphan is what a clean close left (e.g. in
# LAST_ACK after the transfer ended, its FIN's ACK never to come): its
# receive queue is gone; what it may hold, dma_live_zero finds.
tcp_alloc()
{
	sed -n 's/^TCP: .* orphan \([0-9]*\) .* alloc \([0-9]*\) .*/\2 \1/p' \
		/proc/net/sockstat | { read -r _a _o; echo $((_a - _o)); }
}
tcp_socks_gone() { [ "$(tcp_alloc)" -le "$tcp_base" ]; }
no_tcpblast() { ! pidof tcpblast >/dev/null; }

# Abort both transfers: SIGTERM makes tcpblast reset its connection
# (busybox has no pkill; the background jobs are shells around it), so
# no orphaned socket keeps receive pages for minutes of retransmissions.
tcp_kill()
{
	kill "$c1" "$c2" "$s1" "$s2" 2>/dev/null
	killall tcpblast 2>/dev/null
	wait "$c1" "$c2" "$s1" "$s2" 2>/dev/null
	rm -f /tmp/ab /tmp/ba
	wait_until 10 no_tcpblast || { ktap_diag "tcpblast still runs"; return 1; }
	wait_until 10 tcp_socks_gone && return 0
	ktap_diag "TCP sockets left: $(grep TCP: /proc/net/sockstat), $tcp_base before"
	return 1
}

snap()
{
	snap_new "$1" &&
	snap_add "$1" 0_ cxb_counters "$p0" a &&
	snap_add "$1" 1_ cxb_counters "$p1" b &&
	snap_add "$1" 2_ sim_counters 1 0 &&
	snap_add "$1" 3_ sim_counters 1 1
}
d() { snap_d "$1_$2" A B; }

# Every frame accounted, both directions (between snapshots B and A).
accounted()
{
	_rc=0
	for _pq in 0:2:3 1:3:2; do
		_p=${_pq%%:*} _s=${_pq#*:} _s=${_s%:*} _q=${_pq##*:}
		# (tx_unreported: sent, but their queue was destroyed
		# before a CQE told the driver, which counted them dropped)
		eq "$(d "$_p" tx_packets)" $(($(d "$_s" tx_frames) - $(d "$_s" tx_unreported) +
			$(d "$_p" tx_dropped))) \
			"port $_p: tx_packets vs sim tx_frames - tx_unreported + tx_dropped" || _rc=1
		eq "$(d "$_s" tx_frames)" $(($(d "$_q" rx_frames) + $(d "$_q" rx_dropped) +
			$(d "$_s" tx_discarded))) \
			"port $_p: sim tx_frames vs peer rx_frames + rx_dropped + tx_discarded" || _rc=1
		eq "$(d "$_s" violations)" 0 "port $_p: sim violations" || _rc=1
		ktap_diag "port $_p: tx_packets $(d "$_p" tx_packets)," \
			"sim tx_frames $(d "$_s" tx_frames), tx_unreported $(d "$_s" tx_unreported)," \
			"tx_dropped $(d "$_p" tx_dropped)," \
			"tx_discarded $(d "$_s" tx_discarded), peer rx_frames $(d "$_q" rx_frames)," \
			"peer rx_dropped $(d "$_q" rx_dropped)"
	done
	return $_rc
}

# Wait until nothing moves any more: both ports' sim tx_frames stable.
quiesce()
{
	_q0=x
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.3
		_q1="$(sim_ctr 1 0 tx_frames) $(sim_ctr 1 1 tx_frames) $(sim_ctr 1 0 rx_frames)"
		[ "$_q1" = "$_q0" ] && return 0
		_q0=$_q1
	done
}

ops=0
# One reconfiguration step; $1: step number.
step()
{
	_i=$1
	if [ $((_i % 2)) = 0 ]; then _ns=a _d=$p0; else _ns=b _d=$p1; fi
	case $((_i % 9)) in
	0) nsx $_ns ethtool -G "$_d" tx $((64 << (_i % 3 * 2))) rx $((1024 >> (_i % 3 * 2))) ;;
	1) nsx $_ns ethtool -L "$_d" combined $((1 + _i % 2)) ;;
	2) nsx $_ns ethtool --set-priv-flags "$_d" blueflame $([ $((_i % 4)) -lt 2 ] && echo off || echo on) ;;
	3) nsx $_ns ethtool -G "$_d" tx-push $([ $((_i % 4)) -lt 2 ] && echo on || echo off) ;;
	4) nsx $_ns ethtool --set-tunable "$_d" tx-copybreak $((_i % 2 * 256)) ;;
	5) nsx $_ns sh -c "echo $((_i % 4 == 1 ? 1 : _i % 4 == 3 ? 3 : 0)) >/sys/class/net/$_d/doorbell_opt" ;;
	6) nsx $_ns ip link set "$_d" down && nsx $_ns ip link set "$_d" up ;;
	7) nsx $_ns ip link set "$_d" mtu $((1500 + _i % 2 * 1500)) ;;
	8) sleep 0.2 ;;
	esac || { ktap_diag "step $_i failed"; return 1; }
	ops=$((ops + 1))
}

reconfig()
{
	snap B
	pg_start
	tcp_start || return 1
	_t0=$(cut -d. -f1 /proc/uptime)
	_i=0
	while ! tcp_done || [ $(($(cut -d. -f1 /proc/uptime) - _t0)) -lt "$SECS" ]; do
		step $_i || { pg_stop; tcp_kill; return 1; }
		_i=$((_i + 1))
		sleep 0.1
		if [ $(($(cut -d. -f1 /proc/uptime) - _t0)) -gt $((SECS + 300)) ]; then
			ktap_diag "transfers still running after $((SECS + 300)) s"
			pg_stop; tcp_kill; return 1
		fi
	done
	pg_stop
	tcp_check || return 1
	quiesce
	snap A
	ktap_diag "$ops reconfigurations in $(($(cut -d. -f1 /proc/uptime) - _t0)) s"
	accounted
}

# Restore a plain configuration for the next cases.
defaults()
{
	for _x in "a $p0" "b $p1"; do
		set -- $_x
		nsx $1 ip link set "$2" mtu 1500 &&
		nsx $1 ethtool -G "$2" tx 1024 rx 1024 &&
		nsx $1 ethtool -L "$2" combined 1 || return 1
	done
	wait_until 5 _cxb_ns_carrier a "$p0" && wait_until 5 _cxb_ns_carrier b "$p1"
}

cable_flap()
{
	defaults || return 1
	snap B
	pg_start
	tcp_start || return 1
	_n=0
	while [ $_n -lt 5 ]; do
		sleep 0.5
		echo N >"$SIM/cable" || return 1
		wait_until 5 eval '! _cxb_ns_carrier a "$p0"' || {
			ktap_diag "carrier stayed on"; pg_stop; tcp_kill; return 1; }
		sleep 0.5
		echo Y >"$SIM/cable" || return 1
		wait_until 5 _cxb_ns_carrier a "$p0" || {
			ktap_diag "no carrier after replug"; pg_stop; tcp_kill; return 1; }
		_n=$((_n + 1))
	done
	# The flood has done its part (frames on the wire at each pull);
	# left on, it starves the streams of the port it shares with them
	# (8 minutes under TCG rather than seconds)
	pg_stop
	wait_until 300 tcp_done
	tcp_check || return 1
	quiesce
	snap A
	accounted || return 1
	[ "$(d 2 tx_discarded)" -gt 0 ] || ktap_diag "(no frame was on the wire at a pull)"
}

teardown_ns()
{
	pg_stop
	ip netns del a && ip netns del b || return 1
	rmmod pktgen 2>/dev/null
	cxb_del 1 || return 1
	dma_live_zero "dma_live after teardown"
}

# After a removal under busy_pair: stop the traffic, delete the
# namespaces, then no mapping may stay ($1 names the check): receive pages
# the stack still held when the device went come back to their (orphaned)
# page pools, which unmap them, once the sockets are gone. Fails too if
# the transfers would not stop.
traffic_down()
{
	pg_stop
	tcp_kill
	_tk=$?
	ip netns del a; ip netns del b
	rmmod pktgen 2>/dev/null
	dma_live_zero "$1" && [ "$_tk" = 0 ]
}

# Traffic on a fresh pair for the removal cases.
busy_pair()
{
	cxb_pktgen_pair && cxb_netns_pair && modprobe pktgen || return 1
	pg_start
	tcp_start || return 1
	sleep 2
}

removal()
{
	busy_pair || return 1
	cxb_del 1 || return 1
	_gone=1
	nsx a ip link show "$p0" >/dev/null 2>&1 && _gone=0
	traffic_down "dma_live after del_device under traffic" &&
	eq "$_gone" 1 "port 0 netdev gone"
}

rmmod_traffic()
{
	busy_pair || return 1
	rmmod cxbell || { ktap_diag "rmmod cxbell failed"; pg_stop; tcp_kill; return 1; }
	traffic_down "dma_live after rmmod cxbell under traffic" || return 1
	rmmod cxbell_sim || { ktap_diag "rmmod cxbell_sim failed"; return 1; }
}

ktap_ok setup setup || ktap_finish
ktap_ok reconfig_under_pktgen_and_tcp reconfig
ktap_ok cable_flap_x5_under_tcp cable_flap
ktap_ok teardown_dma_live_zero teardown_ns
ktap_ok surprise_removal_under_traffic removal
ktap_ok rmmod_under_traffic rmmod_traffic
ktap_ok modules_gone eval '[ ! -d /sys/module/cxbell ] && [ ! -d /sys/module/cxbell_sim ]'
ktap_finish
