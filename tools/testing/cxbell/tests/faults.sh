# SPDX-License-Identifier: GPL-2.0
#
# Device faults injected by the sim (debugfs fault/ knobs) and the
# driver's recovery. Port 0 sends with pktgen (burst 1, 64-TXBB send
# ring, inline engine unless said) to port 1, PAUSE on at port 1 (the
# cable is lossless), so every packet is accounted exactly:
#   SENT == sim port0 tx_frames + tx_err_cqe + tx_dropped
#   peer rx_packets == sim port0 tx_frames - injected RX drops
# and per fault:
#   err_cqe 3:        3 error CQEs, each counted (tx_err_cqe) and followed by
#                     one reset (tx_recover)
#   err_cqe_every 100: error CQEs == tx_err_cqe == tx_recover > 0
#   lose_cqe:         the stalled queue trips the watchdog once (tx_timeout,
#                     tx_recover 1); the reset frees exactly the WQEs whose
#                     CQEs were lost (tx_dropped), all of them delivered
#                     (sim tx_unreported: sent, no CQE when destroyed)
#   lose_irq 1:       likewise, one interrupt lost; the reset finds the
#                     CQEs written and completes the packets (no drop)
#   lose_doorbell 1:  the WQE is stranded until the next doorbell
#   lose_doorbell 1, doorbell_opt 1: the deferred doorbell never comes;
#                     the stall watch rings again (tx_doorbell_kick)
#   lose_doorbell (all, until the watchdog): tx_timeout 1, the unannounced
#                     WQEs dropped (tx_dropped), the rest delivered
#   engine_delay_us 2 s (deferred engine): no tx_timeout, nothing lost
#   dma_map_fail 20 (200-byte frames: mapped, not bounced):
#                     sim dma_map_failed == tx_dropped + rx_alloc_fail
#   dma_map_fail (all, 1 s): RX rings run dry and refill afterwards
#                     (port 1 holds every frame it receives in a UDP
#                     socket that does not read, so its page pool cannot
#                     recycle and must map new pages: each failed refill
#                     is one rx_alloc_fail for up to a bulk of 64 failed
#                     maps)
#   rx_no_buf 10:     10 frames dropped at port 1, counted by the device
#                     (rx_no_buf, rx_dropped) and the driver (rx_port_dropped)
# and no DMA mapping left after teardown. FAULTS_GEN=cx5 runs the cases
# on a ConnectX-4+ adapter (faults-cx5.sh).
. /cxbell/lib.sh

no_ipv6

SIM=$CXB_DBG/cxbell_sim1
PG_OUT=/tmp/faults.pktgen

fault() { echo "$3" >"$SIM/port$1/fault/$2"; }
afault() { echo "$2" >"$SIM/fault/$1"; }

setup()
{
	cxb_pktgen_pair "${FAULTS_GEN:-}" || return 1
	ethtool -G "$p0" tx 64 || return 1
	wait_until 5 carrier_up || { ktap_diag "no carrier after -G"; return 1; }
	sim_engine 1 inline
}

map_failed() { echo "dma_map_failed $(cat "$SIM/fault/dma_map_failed")"; }

# snap SNAP: driver counters of both ports and sim counters of both ports
# into snapshot SNAP, as keys 0_*, 1_* (driver) and 2_*, 3_* (sim), plus
# dma_map_failed.

snap()
{
	snap_new "$1" &&
	snap_add "$1" 0_ cxb_counters "$p0" &&
	snap_add "$1" 1_ cxb_counters "$p1" &&
	snap_add "$1" 2_ sim_counters 1 0 &&
	snap_add "$1" 3_ sim_counters 1 1 &&
	snap_add "$1" "" map_failed
}

# d SET NAME: counter NAME of set SET (0..3) between snapshots B and A.
d() { snap_d "$1_$2" A B; }

# A pktgen run of COUNT from port 0, in the background: pg_start COUNT,
# pg_wait sets sent.
# pg_start COUNT [SIZE]: SIZE defaults to pktgen_run's 60 bytes
pg_start() { pktgen_run "$p0" "$1" 1 "$mac" ${2:+"$2"} >"$PG_OUT" & pg=$!; }
pg_wait() { wait "$pg" || return 1; sent=$(cut -d' ' -f2 "$PG_OUT"); }
pg() { pg_start "$@" && pg_wait; }

# Port 0 posted packets and then nothing for a second: it stalled.
stalled()
{
	_s0=$(cxb_stat "$p0" tx_packets)
	sleep 1
	_s1=$(cxb_stat "$p0" tx_packets)
	[ "$_s1" = "$_s0" ] && [ "$_s1" -gt "$(snap_get B 0_tx_packets)" ]
}

# Wait for the resets a fault caused, then for the traffic to land.
settle()
{
	wait_until 10 recovered "$1"
	sleep 0.5
	snap A
}
recovered() { [ $(($(cxb_stat "$p0" tx_recover) - $(snap_get B 0_tx_recover))) -ge "$1" ]; }

# The accounting every case shares; $1: frames port 1 dropped on purpose,
# $2: packets sent whose completion was lost (freed by a reset, so in
# tx_dropped too).
accounted()
{
	_rc=0
	le "$(d 0 tx_packets)" "$sent" "tx_packets vs pktgen sent" || _rc=1
	eq $(($(d 2 tx_frames) + $(d 0 tx_err_cqe) + $(d 0 tx_dropped) -
	      ${2:-0})) \
		"$sent" "sim tx_frames + tx_err_cqe + tx_dropped vs sent" || _rc=1
	eq "$(d 1 rx_packets)" $(($(d 2 tx_frames) - ${1:-0})) \
		"peer rx_packets vs sim tx_frames" || _rc=1
	eq "$(d 2 violations)" 0 "sim violations" || _rc=1
	ktap_diag "sent $sent, sim tx_frames $(d 2 tx_frames), peer rx $(d 1 rx_packets)," \
		"tx_err_cqe $(d 0 tx_err_cqe), tx_dropped $(d 0 tx_dropped)," \
		"tx_timeout $(d 0 tx_timeout), tx_recover $(d 0 tx_recover)"
	return $_rc
}

err_cqe_next()
{
	snap B
	fault 0 err_cqe 3
	pg 2000 || return 1
	settle 3
	accounted || return 1
	eq "$(d 2 err_cqes)" 3 "sim err_cqes" &&
	eq "$(d 0 tx_err_cqe)" 3 "tx_err_cqe" &&
	eq "$(d 0 tx_recover)" 3 "tx_recover" &&
	eq "$(d 0 tx_timeout)" 0 "tx_timeout" &&
	eq "$(cat "$SIM/port0/fault/err_cqe")" 0 "err_cqe knob after"
}

err_cqe_every()
{
	snap B
	fault 0 err_cqe_every 100
	pg 3000 || return 1
	fault 0 err_cqe_every 0
	n=$(($(sim_ctr 1 0 err_cqes) - $(snap_get B 2_err_cqes)))
	settle "$n"
	accounted || return 1
	[ "$n" -gt 0 ] || { ktap_diag "no error CQE"; return 1; }
	eq "$(d 0 tx_err_cqe)" "$n" "tx_err_cqe vs sim err_cqes" &&
	eq "$(d 0 tx_recover)" "$n" "tx_recover vs sim err_cqes" &&
	eq "$(d 0 tx_timeout)" 0 "tx_timeout"
}

# A stall the stack's watchdog must end: fault knob $1 value $2; $3: 1 to
# turn the knob off once stalled (before the watchdog), else after it;
# $4: 1 if the reset frees the S packets posted before the stall (no CQE
# for them), 0 if it finds their CQEs.
watchdog_case()
{
	snap B
	fault 0 "$1" "$2"
	pg_start 300
	wait_until 15 stalled || { ktap_diag "port 0 never stalled"; return 1; }
	[ "$3" = 1 ] && fault 0 "$1" 0
	S=$(($(cxb_stat "$p0" tx_packets) - $(snap_get B 0_tx_packets)))
	wait_until 15 recovered 1 || { ktap_diag "no recovery"; return 1; }
	fault 0 "$1" 0
	pg_wait || return 1
	settle 1
	ktap_diag "$1: stalled after $S packets"
	eq "$(d 0 tx_timeout)" 1 "tx_timeout" &&
	eq "$(d 0 tx_recover)" 1 "tx_recover" &&
	eq "$(d 0 tx_dropped)" $((S * $4)) "tx_dropped (freed by the reset)"
}

lose_cqe()
{
	watchdog_case lose_cqe 1000000 1 1 || return 1
	accounted 0 "$S" || return 1
	eq "$(d 2 cqes_lost)" "$S" "sim cqes_lost" &&
	eq "$(d 2 tx_frames)" "$sent" "sim tx_frames (all delivered)" &&
	eq "$(d 2 tx_unreported)" "$S" "sim tx_unreported (sent, no CQE, queue destroyed)"
}

lose_irq()
{
	watchdog_case lose_irq 1 0 0 || return 1
	accounted || return 1
	eq "$(d 2 irqs_lost)" 1 "sim irqs_lost" &&
	eq "$(d 2 tx_frames)" "$sent" "sim tx_frames (all delivered)"
}

lose_doorbell_watchdog()
{
	watchdog_case lose_doorbell 1000000 0 1 || return 1
	accounted || return 1
	eq "$(d 2 tx_frames)" $((sent - S)) "sim tx_frames" &&
	le "$S" "$(d 2 doorbells_lost)" "doorbells lost"
}

# One doorbell lost: stranded (the sim sees it) until the next one (or
# the stall watch, if that comes first).
lose_doorbell_next()
{
	snap B
	fault 0 lose_doorbell 1
	pg 1 || return 1
	wait_until 3 eval '[ $(($(sim_ctr 1 0 stranded) - $(snap_get B 2_stranded))) = 1 ]' || {
		ktap_diag "no stranded WQE"; return 1; }
	pg 1 || return 1
	sent=2
	sleep 0.3
	snap A
	accounted || return 1
	eq "$(d 2 doorbells_lost)" 1 "sim doorbells_lost" &&
	eq "$(d 1 rx_packets)" 2 "peer rx_packets" &&
	eq "$(d 0 tx_timeout)" 0 "tx_timeout"
}

# With doorbell avoidance the second packet defers its doorbell to a
# completion of the first, which never comes: the stall watch rings.
lose_doorbell_opt()
{
	echo 1 >"/sys/class/net/$p0/doorbell_opt" || return 1
	snap B
	fault 0 lose_doorbell 1
	pg 2 || return 1
	sent=2
	wait_until 5 eval '[ $(($(cxb_stat "$p1" rx_packets) - $(snap_get B 1_rx_packets))) = 2 ]'
	snap A
	echo 0 >"/sys/class/net/$p0/doorbell_opt" || return 1
	accounted || return 1
	eq "$(d 2 doorbells_lost)" 1 "sim doorbells_lost" &&
	eq "$(d 0 tx_doorbell_deferred)" 1 "tx_doorbell_deferred" &&
	eq "$(d 0 tx_doorbell_kick)" 1 "tx_doorbell_kick" &&
	eq "$(d 0 tx_timeout)" 0 "tx_timeout"
}

delayed()
{
	sim_engine 1 deferred
	afault engine_delay_us 2000000
	snap B
	pg 40
	rc=$?
	afault engine_delay_us 0
	sim_engine 1 inline
	[ $rc = 0 ] || return 1
	sleep 3
	snap A
	accounted || return 1
	eq "$(d 2 tx_frames)" "$sent" "sim tx_frames" &&
	eq "$(d 0 tx_timeout)" 0 "tx_timeout (2 s latency)"
}

# Failed maps: every one is a TX drop or an RX buffer not posted.
map_failures()
{
	eq "$(snap_get A dma_map_failed)" $(($(snap_get B dma_map_failed) + $1)) "sim dma_map_failed" || return 1
	eq $(($(d 0 tx_dropped) + $(d 1 tx_dropped) + $(d 0 rx_alloc_fail) +
	      $(d 1 rx_alloc_fail))) "$(snap_d dma_map_failed A B)" \
		"tx_dropped + rx_alloc_fail vs sim dma_map_failed"
}

dma_map_fail()
{
	snap B
	afault dma_map_fail 20
	# 200 bytes: mapped (a 60-byte frame goes to the bounce buffer)
	pg 500 200 || return 1
	sleep 0.5
	snap A
	accounted || return 1
	map_failures 20 &&
	eq "$(cat "$SIM/fault/dma_map_fail")" 0 "dma_map_fail knob after"
}

# Port 1 keeps what it receives: a UDP socket (tcpblast udprecv,
# stopped) that never reads, with room for every frame, so receive pages do not go back to
# the page pool, which has to map new ones. rx_hold_stop frees them.
rx_hold_start()
{
	cxb_sysctl net.core.rmem_default 33554432 || return 1
	sysctl -qw "net.ipv4.conf.$p1.accept_local=1" || return 1
	ip addr add 10.0.0.1/24 dev "$p0" && ip addr add 10.0.0.2/24 dev "$p1" ||
		return 1
	tcpblast udprecv 9 100000000 100000 </dev/null >/dev/null 2>&1 &
	holder=$!
	sleep 0.3
	kill -STOP "$holder"
}

rx_hold_stop()
{
	kill -KILL "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	ip addr del 10.0.0.1/24 dev "$p0"
	ip addr del 10.0.0.2/24 dev "$p1"
	sysctl -qw net.core.rmem_default=212992
	return 0
}

# Every map fails until port 1's receive ring runs dry (PAUSE
# holds port 0 back), then refills; nothing is lost on the cable. Port 0
# sends inline (tx-copybreak), so it maps nothing.
rx_exhaustion()
{
	ethtool --set-tunable "$p0" tx-copybreak 256 || return 1
	rx_hold_start || { rx_hold_stop; return 1; }
	snap B
	afault dma_map_fail 1000000
	pg_start 3000
	# dry: port 1 pushes back; stays so for a while
	wait_until 10 eval '[ $(sim_ctr 1 0 tx_paused) -gt "$(snap_get B 2_tx_paused)" ]'
	sleep 0.5
	afault dma_map_fail 0
	pg_wait || { rx_hold_stop; return 1; }
	sleep 0.5
	snap A
	rx_hold_stop
	accounted || return 1
	eq "$(d 0 tx_dropped)" 0 "port 0 tx_dropped (inline)" || return 1
	# a refill that fails maps a bulk of pages first (page_pool)
	le "$(d 1 rx_alloc_fail)" "$(snap_d dma_map_failed A B)" \
		"rx_alloc_fail vs sim dma_map_failed" || return 1
	ethtool --set-tunable "$p0" tx-copybreak 0 || return 1
	[ "$(d 1 rx_alloc_fail)" -gt 0 ] || { ktap_diag "port 1 RX never starved"; return 1; }
	ktap_diag "dma_map_failed $(snap_d dma_map_failed A B), port 1 rx_alloc_fail" \
		"$(d 1 rx_alloc_fail), port 0 tx_paused $(d 2 tx_paused)"
	[ "$(d 2 tx_paused)" -gt 0 ] || { ktap_diag "port 1 never pushed back"; return 1; }
	eq "$(d 0 tx_dropped)" 0 "port 0 tx_dropped (inline)" || return 1
	# and it works normally again
	snap B
	pg 500 || return 1
	sleep 0.3
	snap A
	accounted && eq "$(d 1 rx_packets)" "$sent" "peer rx_packets after"
}

rx_no_buf()
{
	snap B
	fault 1 rx_no_buf 10
	pg 200 || return 1
	sleep 0.3
	snap A
	accounted 10 || return 1
	eq "$(d 3 rx_no_buf)" 10 "sim rx_no_buf" &&
	eq "$(d 3 rx_dropped)" 10 "sim rx_dropped" &&
	eq "$(d 1 rx_port_dropped)" 10 "rx_port_dropped"
}

CASES="err_cqe_next:err_cqe_next err_cqe_every:err_cqe_every
lost_completion_watchdog:lose_cqe lost_irq_watchdog:lose_irq
lost_doorbell_next_doorbell:lose_doorbell_next
lost_doorbell_opt1_kick:lose_doorbell_opt
lost_doorbell_watchdog:lose_doorbell_watchdog
delayed_completions_no_timeout:delayed dma_map_fail_20:dma_map_fail
rx_buffer_exhaustion:rx_exhaustion rx_no_buf_10:rx_no_buf"
# faults.sh [FUNCTION...]: only those cases (setup and teardown always)
[ $# -gt 0 ] && CASES=$(for c in $CASES; do
	for f in "$@"; do [ "${c#*:}" = "$f" ] && echo "$c"; done; done)

ktap_plan $(($(echo $CASES | wc -w) + 2))
ktap_ok setup setup || ktap_finish
for c in $CASES; do
	ktap_ok "${c%%:*}" "${c#*:}"
done
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
