# SPDX-License-Identifier: GPL-2.0
#
# Doorbell policies, with exact counts (Documentation/cxbell.rst,
# "Doorbell policies"): pktgen sends COUNT 60-byte packets from port 0 to
# port 1 (up, receiving) of sim adapter 1, one channel on both ports, for
# every combination of
#   engine       inline, deferred         (sim debugfs engine)
#   doorbell_opt 0, 1, 3                  (/sys/class/net/IF/doorbell_opt)
#   blueflame    on, off                  (ethtool --set-priv-flags)
#   burst        1, 8, 32                 (pktgen burst)
# With deltas of the ethtool -S and sim counters around each run, and
# SENT = pktgen's pkts-sofar, one case asserts:
#   peer rx_packets == SENT == tx_packets    (the cable is lossless)
#   SENT == COUNT                            (inline engine; if the queue
#                 stopped, a host stall: COUNT <= SENT <= COUNT + on_stop *
#                 (burst - 1), on_stop <= stopped, as in pktgen.sh)
#   sim port0 doorbells == tx_doorbells, sim bf_writes == tx_blueflame
#   sim nop_wqes == tx_nop                   (deferrals' CQE requests)
#   sim bf_ineligible == 0, bf_mismatch == 0 (every BF post eligible)
#   sim violations == 0, stranded == 0       (both ports, after 300 ms idle)
#   tx_packets == (tx_doorbells - tx_doorbell_by_completion - tx_doorbell_kick)
#                 + tx_blueflame + tx_xmit_more + tx_doorbell_deferred
#   blueflame off: tx_blueflame == 0
#   doorbell_opt 0, inline engine: tx_doorbells + tx_blueflame
#                 - tx_doorbell_on_stop == COUNT / burst (on_stop 0 unless
#                 the queue stopped)
#   doorbell_opt 1 or 3, burst 1: (tx_doorbells + tx_blueflame) / COUNT
#                 printed for both engines, < 1 asserted on the deferred one
# Then the smallest TX ring (ethtool -G tx 64) with burst 256 and 100000
# packets on each engine: nothing lost, tx_doorbell_on_stop > 0 (printed),
# tx_queue_stopped == tx_wake_queue once idle, the same sim checks. A bad
# kernel log line (NETDEV_TX_BUSY warning, ...) fails the case (lib.sh).
#
#   doorbell.sh [COUNT]     COUNT defaults to 9600 (a multiple of 1, 8, 32)
. /cxbell/lib.sh

COUNT=${1:-9600}
ENGINES="inline deferred"
OPTS="0 1 3"
BFS="on off"
BURSTS="1 8 32"
SMALL_COUNT=100000
SMALL_BURST=256

ktap_plan $((1 + 2 * 3 * 2 * 3 + 3 + 2))
no_ipv6

setup()
{
	cxb_pktgen_pair || return 1
}

# Set the policy knobs of port 0 and read them back.
policy()
{
	ethtool --set-priv-flags "$p0" blueflame "$1" || {
		ktap_diag "set-priv-flags blueflame $1 failed"; return 1; }
	echo "$2" >"/sys/class/net/$p0/doorbell_opt" || {
		ktap_diag "doorbell_opt $2 failed"; return 1; }
	eq "$(cxb_priv_flag "$p0" blueflame)" "$1" "blueflame flag" &&
	eq "$(cxb_tx_push "$p0")" "$1" "tx-push" &&
	eq "$(cat "/sys/class/net/$p0/doorbell_opt")" "$2" "doorbell_opt"
}

# pktgen COUNT x BURST, then the checks common to every run. Sets rc,
# and the deltas tx db bf xm dfr bc st qs wk.
traffic()
{
	count=$1
	burst=$2
	pair_snap b
	res=$(pktgen_timed "$p0" "$count" "$burst" "$mac" 60) || return 1
	# shellcheck disable=SC2086
	set -- $res
	pps=$1 sent=$2 secs=$3
	wait_until 5 pair_rx_done "$sent"
	# The stranded detector needs 100 ms of idle queue, checks every 50 ms.
	sleep 0.3
	pair_snap a
	tx=$(pair_d d_tx_packets) db=$(pair_d d_tx_doorbells) bf=$(pair_d d_tx_blueflame)
	xm=$(pair_d d_tx_xmit_more) dfr=$(pair_d d_tx_doorbell_deferred)
	bc=$(pair_d d_tx_doorbell_by_completion) fo=$(pair_d d_tx_doorbell_forced)
	kk=$(pair_d d_tx_doorbell_kick)
	st=$(pair_d d_tx_doorbell_on_stop) qs=$(pair_d d_tx_queue_stopped)
	wk=$(pair_d d_tx_wake_queue) rx=$(pair_d r_rx_packets) sdb=$(pair_d s0_doorbells)
	sbf=$(pair_d s0_bf_writes) srd=$(pair_d s1_rx_dropped)
	ktap_diag "sent $sent tx $tx peer rx $rx (sim rx_dropped $srd);" \
		"doorbells $db (sim $sdb, by completion $bc, stall kicks $kk) blueflame $bf" \
		"(sim $sbf) xmit_more $xm deferred $dfr forced $fo on_stop $st" \
		"stopped $qs woken $wk; ${pps}pps $secs s"
	rc=0
	eq "$rx" "$sent" "peer rx_packets vs sent" || rc=1
	eq "$tx" "$sent" "tx_packets vs sent" || rc=1
	eq "$sdb" "$db" "sim doorbells vs tx_doorbells" || rc=1
	eq "$sbf" "$bf" "sim bf_writes vs tx_blueflame" || rc=1
	eq "$(pair_d s0_nop_wqes)" "$(pair_d d_tx_nop)" "sim nop_wqes vs tx_nop" || rc=1
	pair_sim_zero bf_ineligible bf_mismatch violations stranded || rc=1
	eq "$tx" $((db - bc - kk + bf + xm + dfr)) \
		"tx_packets vs (doorbells - by_completion - kick) + blueflame + xmit_more + deferred" ||
		rc=1
	return 0
}

run()
{
	engine=$1 opt=$2 bfm=$3 burst=$4
	sim_engine 1 "$engine" || return 1
	policy "$bfm" "$opt" || return 1
	traffic "$COUNT" "$burst" || return 1
	rings=$((db + bf))
	[ "$bfm" = off ] && { eq "$bf" 0 "tx_blueflame with blueflame off" || rc=1; }
	if [ "$engine" = inline ] && [ "$qs" = 0 ]; then
		eq "$sent" "$COUNT" "sent (inline engine)" || rc=1
		if [ "$opt" = 0 ]; then
			eq "$rings" $((COUNT / burst)) "doorbells + blueflame vs count / burst" || rc=1
		fi
	elif [ "$engine" = inline ]; then
		# A host stall held the completions for a ring's worth (as in
		# pktgen.sh): each stop inside a burst rang once more and cut
		# that burst, and pktgen's next burst started in full.
		ktap_diag "the queue stopped $qs time(s): rings counted without the stops'"
		le "$st" "$qs" "tx_doorbell_on_stop vs tx_queue_stopped" || rc=1
		le "$COUNT" "$sent" "sent (inline engine, stopped)" || rc=1
		le $((sent - COUNT)) $((st * (burst - 1))) \
			"sent over COUNT (inline engine, stopped)" || rc=1
		if [ "$opt" = 0 ]; then
			eq $((rings - st)) $((COUNT / burst)) \
				"doorbells + blueflame - on_stop vs count / burst" || rc=1
		fi
	fi
	if [ "$opt" != 0 ] && [ "$burst" = 1 ]; then
		ktap_diag "doorbell_opt $opt, $engine engine, burst 1:" \
			"(doorbells + blueflame) / count =" \
			"$(echo "$rings $COUNT" | awk '{ printf "%.4f", $1 / $2 }')"
		if [ "$engine" = deferred ] && [ "$rings" -ge "$COUNT" ]; then
			ktap_diag "doorbell avoidance saved nothing: $rings >= $COUNT"
			rc=1
		fi
	fi
	return $rc
}

qs_eq_wk()
{
	[ "$(cxb_stat "$p0" tx_queue_stopped)" = "$(cxb_stat "$p0" tx_wake_queue)" ]
}

small_ring()
{
	sim_engine 1 "$1" || return 1
	policy on 0 || return 1
	traffic "$SMALL_COUNT" "$SMALL_BURST" || return 1
	ktap_diag "tx ring 64, burst $SMALL_BURST, $1 engine:" \
		"tx_doorbell_on_stop $st, tx_queue_stopped $qs, tx_wake_queue $wk"
	[ "$st" -gt 0 ] || { ktap_diag "tx_doorbell_on_stop: got $st, want > 0"; rc=1; }
	[ "$qs" -gt 0 ] || { ktap_diag "tx_queue_stopped: got $qs, want > 0"; rc=1; }
	# The queue may still be stopped at the very end: wait for the wake.
	wait_until 2 qs_eq_wk
	eq "$(cxb_stat "$p0" tx_queue_stopped)" "$(cxb_stat "$p0" tx_wake_queue)" \
		"tx_queue_stopped vs tx_wake_queue (totals, idle)" || rc=1
	return $rc
}

small_ring_setup()
{
	ethtool -G "$p0" tx 64 || { ktap_diag "ethtool -G tx 64 failed"; return 1; }
	wait_until 5 carrier_up || { ktap_diag "no carrier after -G tx 64"; return 1; }
}

# Counters since the adapter was created: nothing bad between the cases.
sim_totals()
{
	rc=0
	for p in 0 1; do
		for c in violations stranded bf_ineligible bf_mismatch; do
			eq "$(sim_ctr 1 $p $c)" 0 "port$p $c (total)" || rc=1
		done
	done
	return $rc
}

ktap_ok setup_adapter setup || ktap_finish
for e in $ENGINES; do
	for o in $OPTS; do
		for f in $BFS; do
			for b in $BURSTS; do
				ktap_ok "${e}_opt${o}_bf_${f}_burst$b" run "$e" "$o" "$f" "$b"
			done
		done
	done
done
if ktap_ok small_ring_setup_tx64 small_ring_setup; then
	for e in $ENGINES; do
		ktap_ok "${e}_tx64_burst${SMALL_BURST}_count$SMALL_COUNT" small_ring "$e"
	done
else
	for e in $ENGINES; do
		ktap_skip "${e}_tx64_burst${SMALL_BURST}_count$SMALL_COUNT" "ethtool -G tx 64 failed"
	done
fi
ktap_ok sim_totals_clean sim_totals
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
