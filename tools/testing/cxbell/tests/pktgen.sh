# SPDX-License-Identifier: GPL-2.0
#
# xmit_more doorbell batching, end to end: pktgen (/proc/net/pktgen) sends
# COUNT 60-byte packets with burst B from port 0 to port 1 (up, receiving)
# of a sim adapter, one TX queue, for both sim engines and
# B in 1 2 8 32 64. For each run, with deltas of the ethtool and sim
# counters, and SENT = pktgen's pkts-sofar:
#   peer rx_packets == SENT, tx_packets == SENT
#   sim port0 doorbells == tx_doorbells, sim bf_writes == tx_blueflame
#   tx_xmit_more == SENT - RINGS
#   violations == 0 and stranded == 0 (read after 300 ms idle)
#   inline:   SENT == COUNT, RINGS == COUNT / B and
#             tx_doorbell_on_stop == 0; if the queue stopped (a host
#             stall held the completions for a ring's worth):
#             RINGS - tx_doorbell_on_stop == COUNT / B, and SENT exceeds
#             COUNT by at most B - 1 per such ring
#   deferred: RINGS - tx_doorbell_on_stop <= COUNT / B
# where RINGS = tx_doorbells + tx_blueflame - tx_doorbell_kick: a doorbell
# is rung either by the UAR send doorbell register or by a BlueFlame write
# carrying the WQE (tx_blueflame counts 0 if the driver has no such
# counter, BF off); the stall watch's kicks (deferred engine on a busy
# host: no completion for a whole period) ring again what xmit rang, and
# tx_doorbells counts them too. inline: tx_doorbell_kick == 0.
# SENT exceeds COUNT when a queue stop cut a burst short (deferred
# engine): pktgen checks its count only between bursts and starts every
# burst in full, so the last one overshoots.
#
# Timing (TCG, 2 vCPUs on 2 host cores): 25-55 kpps, 2-5 s per run,
# ~45 s for the 10 runs at COUNT 102400, so the full count is used for
# both engines.
#
#   pktgen.sh [COUNT]     COUNT defaults to 102400 (a multiple of 64)
. /cxbell/lib.sh

COUNT=${1:-102400}
BURSTS="1 2 8 32 64"
ENGINES="inline deferred"

ktap_plan 12
no_ipv6

setup()
{
	cxb_pktgen_pair || return 1
}

# Every counter the checks use, as "NAME VALUE" lines, for snapshots.
counters()
{
	echo "tx $(cxb_stat "$p0" tx_packets)"
	echo "db $(cxb_stat "$p0" tx_doorbells)"
	echo "xm $(cxb_stat "$p0" tx_xmit_more)"
	echo "st $(cxb_stat "$p0" tx_doorbell_on_stop)"
	echo "rx $(cxb_stat "$p1" rx_packets)"
	echo "bf $(cxb_stat "$p0" tx_blueflame || echo 0)"
	echo "kk $(cxb_stat "$p0" tx_doorbell_kick || echo 0)"
	echo "sdb $(sim_ctr 1 0 doorbells)"
	echo "sbf $(sim_ctr 1 0 bf_writes)"
	echo "v $(($(sim_ctr 1 0 violations) + $(sim_ctr 1 1 violations)))"
	echo "qs $(cxb_stat "$p0" tx_queue_stopped)"
	echo "rd $(cxb_stat "$p1" rx_dropped)"
	echo "srd $(sim_ctr 1 1 rx_dropped)"
}

snap() { snap_new "$1" && snap_add "$1" "" counters; }

peer_rx_done()
{
	[ $(($(cxb_stat "$p1" rx_packets) - $(snap_get b rx))) -ge "$sent" ]
}

run()
{
	engine=$1
	burst=$2
	sim_engine 1 "$engine" || return 1
	snap b
	res=$(pktgen_timed "$p0" "$COUNT" "$burst" "$mac" 60) || return 1
	# shellcheck disable=SC2086
	set -- $res
	pps=$1 sent=$2 secs=$3
	wait_until 5 peer_rx_done
	sleep 0.3
	snap a
	tx=$(snap_d tx) db=$(snap_d db) xm=$(snap_d xm)
	st=$(snap_d st) rx=$(snap_d rx) sdb=$(snap_d sdb)
	v=$(snap_d v) qs=$(snap_d qs) rd=$(snap_d rd)
	srd=$(snap_d srd) bf=$(snap_d bf) sbf=$(snap_d sbf)
	kk=$(snap_d kk)
	rings=$((db + bf - kk))
	stranded=$(($(sim_ctr 1 0 stranded) + $(sim_ctr 1 1 stranded)))
	ktap_diag "$engine burst $burst: sent $sent tx $tx rx $rx" \
		"doorbells $db (sim $sdb) blueflame $bf (sim $sbf)" \
		"xmit_more $xm on_stop $st kick $kk" \
		"queue_stopped $qs; peer rx_dropped $rd (sim $srd);" \
		"${pps}pps $secs s"
	rc=0
	eq $rx "$sent" "peer rx_packets" || rc=1
	eq $tx "$sent" "tx_packets" || rc=1
	eq $sdb $db "sim doorbells vs tx_doorbells" || rc=1
	eq $sbf $bf "sim bf_writes vs tx_blueflame" || rc=1
	eq $xm $((sent - rings)) "tx_xmit_more vs sent - doorbells - blueflame" || rc=1
	eq $v 0 "violations" || rc=1
	eq $stranded 0 "stranded" || rc=1
	if [ "$engine" = inline ] && [ "$qs" = 0 ]; then
		eq "$sent" "$COUNT" "packets sent (inline)" || rc=1
		eq $rings $((COUNT / burst)) "doorbells + blueflame (inline)" || rc=1
		eq $st 0 "tx_doorbell_on_stop (inline)" || rc=1
		eq $kk 0 "tx_doorbell_kick (inline)" || rc=1
	elif [ "$engine" = inline ]; then
		# A host stall held the completions for a ring's worth: each
		# stop inside a burst rang once more and cut that burst, and
		# pktgen's next burst started in full (SENT overshoots).
		ktap_diag "the queue stopped $qs time(s): rings counted without the stops'"
		eq $((rings - st)) $((COUNT / burst)) \
			"doorbells + blueflame - on_stop (inline, stopped)" || rc=1
		le $st "$qs" "tx_doorbell_on_stop vs tx_queue_stopped" || rc=1
		le "$COUNT" "$sent" "packets sent (inline, stopped)" || rc=1
		le $((sent - COUNT)) $((st * (burst - 1))) \
			"packets over COUNT (inline, stopped)" || rc=1
		eq $kk 0 "tx_doorbell_kick (inline)" || rc=1
	else
		le $((rings - st)) $((COUNT / burst)) "doorbells + blueflame - on_stop" || rc=1
	fi
	return $rc
}

ktap_ok setup_adapter setup || ktap_finish
for e in $ENGINES; do
	for b in $BURSTS; do
		ktap_ok "${e}_burst_$b" run "$e" "$b"
	done
done
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
