# SPDX-License-Identifier: GPL-2.0
#
# TX queues that lose their channel, XDP send queues under channel
# changes and faults, and exact stop/wake counts.
#
#   shrink_*: port A (port 0 of a fresh adapter, cx3 or cx5) with 2
#     channels, port B (port 1) with 1. pktgen on A's LAST TX queue
#     (queue_map_min = queue_map_max = 1) with clone_skb 1000000, so one
#     skb keeps queue mapping 1 for the whole run; while it runs,
#     ethtool -L A combined 1: the stack still offers queue 1 (every
#     TX queue of the netdev is started), which no ring serves any more.
#     Then, once pktgen is stopped (SENT = its pkts-sofar):
#       no oops (the kernel log is checked after every case)
#       SENT == sim port0 tx_frames + tx_dropped (ip -s link)
#         every packet pktgen handed to A went on the wire or was
#         dropped: at the shrink, WQEs the old rings never completed
#         (freed at down), after it, packets on queue 1 (no ring)
#       tx_dropped_no_ring > 0 (the drops after the shrink), and the
#       summed ethtool tx_dropped == ip's tx_dropped
#     Then ethtool -L A combined 2 again and a counted run on queue 1:
#     tx1_packets == sim tx_frames == B's rx_packets == SENT, no new
#     tx_dropped_no_ring.
#   xdp_xmit_channels: xdp-bench redirect from B (adapter 1 port 1) to C
#     (adapter 2 port 0) while pktgen floods B and C's channels go
#     1, 2, 1, ... ten times: ndo_xdp_xmit on both CPUs picks its
#     channel with the count of the array it loaded. No oops, C posted
#     frames, D (C's peer) got what C's sim port sent; then a counted
#     run: B rx_xdp_redirect == C tx_xdp_xmit == D rx_packets == SENT.
#   xdp_tx_err_cqe: xdp-bench tx (swap-macs) on B, the next send
#     completion of B's port an error CQE (sim err_cqe 1): it lands on
#     B's XDP send queue (B sends nothing else), which the device stops.
#     B counts it (tx_xdp_err_cqe 1, ip's tx_errors 1) and resets
#     (tx_recover 1); a counted run afterwards comes back whole: B
#     rx_xdp_tx == A rx_packets == SENT.
#   stop_wake_exact: A's TX ring of 64 TXBBs, burst 256, 8 runs of 50000
#     packets alternating the sim engines: after each, at rest,
#     tx_queue_stopped == tx_wake_queue (a stop undone by xmit's recheck
#     and a wake by completion are counted by whoever clears the stop
#     bit, never both) and > 0.
. /cxbell/lib.sh

no_ipv6

PG=/proc/net/pktgen
SHRINK_SECS=2

setup()
{
	cxb_load || return 1
	[ -d $PG ] || modprobe pktgen
}

# up IF...: bring the interfaces up
up() { for _i; do ip link set "$_i" up || return 1; done; }
has_carrier() { [ "$(cat "/sys/class/net/$1/carrier")" = 1 ]; }
st64() { cat "/sys/class/net/$1/statistics/$2"; }
gt() { [ "$1" -gt "$2" ] && return 0; ktap_diag "${3:-value}: got '$1', want > '$2'"; return 1; }

# pg_queue IF COUNT BURST DSTMAC QUEUE: IF on kpktgend_0, 60-byte frames,
# one skb cloned 1000000 times, on TX queue QUEUE only
pg_queue()
{
	pktgen_dev "$1" "$2" "$3" "$4" 60 1000000 10.0.0.2 || return 1
	pgset "$PG/$1" "queue_map_min $5" && pgset "$PG/$1" "queue_map_max $5"
}

# pg_bg IF: start the run set up on IF in the background (pg_pid)
pg_bg()
{
	renice 19 -p "$(pidof kpktgend_0)" >/dev/null 2>&1
	pgset $PG/pgctrl start &
	pg_pid=$!
}

# pg_end IF: wait for the background run; sets sent
pg_end()
{
	wait "$pg_pid"
	pktgen_wait "$PG/$1"
	grep -q '^Result: OK' "$PG/$1" ||
		{ ktap_diag "pktgen: $(grep '^Result' "$PG/$1")"; return 1; }
	sent=$(sed -n 's/^ *pkts-sofar: *\([0-9]*\).*/\1/p' "$PG/$1")
	pktgen_rem_all
}

# new_pair ID GEN NA NB: adapter ID of generation GEN, ports a and b (A
# with NA channels, B with NB), up, with carrier; sets a, b, bmac
new_pair()
{
	cxb_new "$1" 2 "$2" || return 1
	a=$(cxb_netdev "$1" 0) && b=$(cxb_netdev "$1" 1) || return 1
	ethtool -L "$a" combined "$3" && ethtool -L "$b" combined "$4" || return 1
	up "$a" "$b" || return 1
	wait_until 5 has_carrier "$a" || { ktap_diag "no carrier on $a"; return 1; }
	bmac=$(cat "/sys/class/net/$b/address")
}

# shrink GEN ID: the shrink_* case on a fresh adapter ID, deleted after
shrink()
{
	shrink_run "$@"
	_src=$?
	pktgen_stop 2>/dev/null
	wait
	cxb_del "$2" || _src=1
	return $_src
}

shrink_run()
{
	gen=$1 id=$2
	new_pair "$id" "$gen" 2 1 || return 1
	eq "$(ethtool -l "$a" | awk '/^Combined:/ { v = $2 } END { print v }')" 2 \
		"combined channels of $a" || return 1
	d0=$(st64 "$a" tx_dropped) e0=$(cxb_stat "$a" tx_dropped)
	# (a driver without the counter reads 0: the rest still runs)
	n0=$(cxb_stat "$a" tx_dropped_no_ring || echo 0)
	f0=$(sim_ctr "$id" 0 tx_frames)
	pg_queue "$a" 100000000 8 "$bmac" 1 || return 1
	pg_bg "$a"
	q1_busy() { [ "$(cxb_stat "$a" tx1_packets)" -gt 2000 ]; }
	wait_until 20 q1_busy || { ktap_diag "no traffic on $a queue 1"; return 1; }
	ethtool -L "$a" combined 1 || return 1
	# pktgen goes on on queue 1, with no ring for it now
	noring() { [ $(($(cxb_stat "$a" tx_dropped_no_ring || echo 0) - n0)) -gt 1000 ]; }
	wait_until 20 noring
	sleep "$SHRINK_SECS"
	pktgen_stop
	pg_end "$a" || return 1
	sleep 0.5
	d=$(($(st64 "$a" tx_dropped) - d0)) e=$(($(cxb_stat "$a" tx_dropped) - e0))
	n=$(($(cxb_stat "$a" tx_dropped_no_ring || echo 0) - n0))
	f=$(($(sim_ctr "$id" 0 tx_frames) - f0))
	ktap_diag "$gen: sent $sent, sim tx_frames $f, tx_dropped $d (ethtool $e)," \
		"of them no ring $n"
	rc=0
	eq $((f + d)) "$sent" "sim tx_frames + tx_dropped vs pktgen sent" || rc=1
	eq "$e" "$d" "ethtool tx_dropped vs ip tx_dropped" || rc=1
	gt "$n" 0 "tx_dropped_no_ring" || rc=1
	le "$n" "$d" "tx_dropped_no_ring vs tx_dropped" || rc=1
	eq "$(sim_ctr "$id" 0 violations)" 0 "sim violations" || rc=1

	# queue 1 is back with its channel
	ethtool -L "$a" combined 2 || return 1
	wait_until 5 has_carrier "$a" || return 1
	n0=$(cxb_stat "$a" tx_dropped_no_ring || echo 0) f0=$(sim_ctr "$id" 0 tx_frames)
	r0=$(cxb_stat "$b" rx_packets)
	pg_queue "$a" 5000 8 "$bmac" 1 || return 1
	pg_bg "$a"
	pg_end "$a" || return 1
	all_in() { [ $(($(cxb_stat "$b" rx_packets) - r0)) -ge "$sent" ]; }
	wait_until 10 all_in
	eq "$(cxb_stat "$a" tx1_packets)" "$sent" "tx1_packets after combined 2" || rc=1
	eq $(($(sim_ctr "$id" 0 tx_frames) - f0)) "$sent" "sim tx_frames after" || rc=1
	eq $(($(cxb_stat "$b" rx_packets) - r0)) "$sent" "B rx_packets after" || rc=1
	eq "$(cxb_stat "$a" tx_dropped_no_ring || echo 0)" "$n0" "no new tx_dropped_no_ring" || rc=1
	return $rc
}

# ---- XDP --------------------------------------------------------------

xdp_ok()
{
	command -v xdp-bench >/dev/null && [ -e /sys/kernel/btf/vmlinux ]
}

# A -> B, adapter 1, one channel each; C, D: adapter 2, C with 2
xdp_setup()
{
	new_pair 1 cx3 1 1 || return 1
	A=$a B=$b mac=$bmac
	new_pair 2 cx3 2 1 || return 1
	C=$a D=$b
	# frames redirected out of C still carry B's address: D receives
	# them promiscuously
	ip link set "$D" promisc on || return 1
}

delta() { echo $(($(cxb_stat "$1" "$2") - $3)); }

xdp_xmit_channels()
{
	xdp_setup || return 1
	bench_start redirect "$B" "$C" || return 1
	x0=$(cxb_stat "$C" tx_xdp_xmit) d0=$(cxb_stat "$D" rx_packets)
	s0=$(sim_ctr 2 0 tx_frames) sd0=$(sim_ctr 2 1 rx_dropped)
	pktgen_run "$A" 100000000 32 "$mac" 60 >/dev/null &
	pgp=$!
	rc=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.3
		ethtool -L "$C" combined $((i % 2 + 1)) || { rc=1; break; }
	done
	sleep 0.3
	pktgen_stop
	wait "$pgp"
	sleep 0.5
	x=$(delta "$C" tx_xdp_xmit "$x0") dr=$(delta "$D" rx_packets "$d0")
	s=$(($(sim_ctr 2 0 tx_frames) - s0)) sd=$(($(sim_ctr 2 1 rx_dropped) - sd0))
	ktap_diag "while C changed channels: C tx_xdp_xmit $x, sim C tx_frames $s," \
		"D rx_packets $dr (sim rx_dropped $sd)"
	gt "$x" 0 "C tx_xdp_xmit" || rc=1
	eq "$dr" $((s - sd)) "D rx_packets vs sim C tx_frames - D sim rx_dropped" || rc=1
	# settled: every frame accounted
	ethtool -L "$C" combined 2 || rc=1
	wait_until 5 has_carrier "$C"
	r0=$(cxb_stat "$B" rx_xdp_redirect) x0=$(cxb_stat "$C" tx_xdp_xmit)
	d0=$(cxb_stat "$D" rx_packets)
	res=$(pktgen_run "$A" 20000 32 "$mac" 60) || return 1
	sent=${res#* }
	got() { [ "$(delta "$D" rx_packets "$d0")" -ge "$sent" ]; }
	wait_until 10 got
	red=$(delta "$B" rx_xdp_redirect "$r0") xm=$(delta "$C" tx_xdp_xmit "$x0")
	drx=$(delta "$D" rx_packets "$d0")
	bench_stop "$B" || rc=1
	ktap_diag "after: sent $sent, B rx_xdp_redirect $red, C tx_xdp_xmit $xm, D rx_packets $drx"
	eq "$red" "$sent" "B rx_xdp_redirect" || rc=1
	eq "$xm" "$sent" "C tx_xdp_xmit" || rc=1
	eq "$drx" "$sent" "D rx_packets" || rc=1
	return $rc
}

xdp_tx_err_cqe()
{
	amac=$(cat "/sys/class/net/$A/address")
	bench_start tx "$B" -p swap-macs || return 1
	# (a driver without the counter reads 0: the rest still runs)
	e0=$(cxb_stat "$B" tx_xdp_err_cqe || echo 0)
	rv0=$(cxb_stat "$B" tx_recover) te0=$(st64 "$B" tx_errors)
	se0=$(sim_ctr 1 1 err_cqes)
	echo 1 >"$CXB_DBG/cxbell_sim1/port1/fault/err_cqe"
	pktgen_run "$A" 2000 8 "$mac" 60 >/dev/null || { bench_stop "$B"; return 1; }
	reset_done() { [ $(($(cxb_stat "$B" tx_recover) - rv0)) -ge 1 ]; }
	wait_until 10 reset_done
	wait_until 5 has_carrier "$B"
	sleep 0.5
	rc=0
	e=$(($(cxb_stat "$B" tx_xdp_err_cqe || echo 0) - e0))
	ktap_diag "B tx_xdp_err_cqe $e," \
		"tx_recover $(delta "$B" tx_recover "$rv0"), sim err_cqes" \
		"$(($(sim_ctr 1 1 err_cqes) - se0))"
	eq "$(cat "$CXB_DBG/cxbell_sim1/port1/fault/err_cqe")" 0 "err_cqe knob after" || rc=1
	eq $(($(sim_ctr 1 1 err_cqes) - se0)) 1 "sim err_cqes" || rc=1
	eq "$e" 1 "B tx_xdp_err_cqe" || rc=1
	eq $(($(st64 "$B" tx_errors) - te0)) 1 "B tx_errors (ip)" || rc=1
	eq "$(delta "$B" tx_recover "$rv0")" 1 "B tx_recover" || rc=1
	# XDP_TX works again
	t0=$(cxb_stat "$B" rx_xdp_tx) a0=$(cxb_stat "$A" rx_packets)
	res=$(pktgen_run "$A" 2000 8 "$mac" 60) || { bench_stop "$B"; return 1; }
	sent=${res#* }
	back() { [ "$(delta "$A" rx_packets "$a0")" -ge "$sent" ]; }
	wait_until 10 back
	tx=$(delta "$B" rx_xdp_tx "$t0") arx=$(delta "$A" rx_packets "$a0")
	bench_stop "$B" || rc=1
	ktap_diag "after the reset: sent $sent, B rx_xdp_tx $tx, A rx_packets $arx"
	eq "$tx" "$sent" "B rx_xdp_tx after the reset" || rc=1
	eq "$arx" "$sent" "A rx_packets after the reset" || rc=1
	return $rc
}

xdp_teardown()
{
	cxb_del 2
	cxb_del 1
}

# ---- stop / wake ------------------------------------------------------

stop_wake_exact()
{
	new_pair 1 cx3 1 1 || return 1
	ethtool -G "$a" tx 64 || return 1
	wait_until 5 has_carrier "$a" || return 1
	rc=0
	for r in 1 2 3 4 5 6 7 8; do
		eng=inline
		[ $((r % 2)) = 0 ] && eng=deferred
		sim_engine 1 "$eng" || return 1
		q0=$(cxb_stat "$a" tx_queue_stopped) w0=$(cxb_stat "$a" tx_wake_queue)
		r0=$(cxb_stat "$b" rx_packets)
		res=$(pktgen_timed "$a" 50000 256 "$bmac" 60) || return 1
		# shellcheck disable=SC2086
		set -- $res
		sent=$2
		in_b() { [ $(($(cxb_stat "$b" rx_packets) - r0)) -ge "$sent" ]; }
		wait_until 10 in_b
		sleep 0.3
		snap_new s && snap_add s "" cxb_counters "$a"
		qs=$(($(snap_get s tx_queue_stopped) - q0))
		wk=$(($(snap_get s tx_wake_queue) - w0))
		ktap_diag "run $r ($eng): sent $sent, stopped $qs, woken $wk; $3 s"
		eq "$qs" "$wk" "run $r: tx_queue_stopped vs tx_wake_queue" || rc=1
		gt "$qs" 0 "run $r: tx_queue_stopped" || rc=1
	done
	cxb_del 1 || rc=1
	return $rc
}

teardown()
{
	rmmod pktgen
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

# queues.sh [GROUP...]: only those groups of cases (shrink, xdp,
# stop_wake; setup and teardown always)
GROUPS=${*:-shrink xdp stop_wake}
want() { case " $GROUPS " in *" $1 "*) return 0 ;; esac; return 1; }
n=2
want shrink && n=$((n + 2))
want xdp && n=$((n + 2))
want stop_wake && n=$((n + 1))

ktap_plan $n
ktap_ok setup setup || ktap_finish
if want shrink; then
	ktap_ok shrink_last_queue_under_pktgen_cx3 shrink cx3 3
	ktap_ok shrink_last_queue_under_pktgen_cx5 shrink cx5 4
fi
if ! want xdp; then
	:
elif xdp_ok; then
	ktap_ok xdp_xmit_while_channels_change xdp_xmit_channels
	ktap_ok xdp_tx_error_cqe_recovers xdp_tx_err_cqe
	xdp_teardown
else
	ktap_skip xdp_xmit_while_channels_change "no xdp-bench or no kernel BTF"
	ktap_skip xdp_tx_error_cqe_recovers "no xdp-bench or no kernel BTF"
fi
want stop_wake && ktap_ok stop_wake_exact_small_ring stop_wake_exact
ktap_ok teardown_dma_live_zero teardown
ktap_finish
