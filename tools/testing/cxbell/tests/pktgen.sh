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
#             tx_doorbell_on_stop == 0
#   deferred: RINGS - tx_doorbell_on_stop <= COUNT / B
# where RINGS = tx_doorbells + tx_blueflame: a doorbell is rung either by
# the UAR send doorbell register or by a BlueFlame write carrying the WQE
# (tx_blueflame counts 0 if the driver has no such counter, BF off).
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

# Snapshot of every counter the checks use, as shell assignments PREFIX_x=.
snap()
{
	echo "$1_tx=$(cxb_stat "$p0" tx_packets)"
	echo "$1_db=$(cxb_stat "$p0" tx_doorbells)"
	echo "$1_xm=$(cxb_stat "$p0" tx_xmit_more)"
	echo "$1_st=$(cxb_stat "$p0" tx_doorbell_on_stop)"
	echo "$1_rx=$(cxb_stat "$p1" rx_packets)"
	echo "$1_bf=$(cxb_stat "$p0" tx_blueflame || echo 0)"
	echo "$1_sdb=$(sim_ctr 1 0 doorbells)"
	echo "$1_sbf=$(sim_ctr 1 0 bf_writes)"
	echo "$1_v=$(($(sim_ctr 1 0 violations) + $(sim_ctr 1 1 violations)))"
	echo "$1_qs=$(cxb_stat "$p0" tx_queue_stopped)"
	echo "$1_rd=$(cxb_stat "$p1" rx_dropped)"
	echo "$1_srd=$(sim_ctr 1 1 rx_dropped)"
}

peer_rx_done()
{
	[ $(($(cxb_stat "$p1" rx_packets) - b_rx)) -ge "$sent" ]
}

run()
{
	engine=$1
	burst=$2
	sim_engine 1 "$engine" || return 1
	eval "$(snap b)"
	res=$(pktgen_timed "$p0" "$COUNT" "$burst" "$mac" 60) || return 1
	# shellcheck disable=SC2086
	set -- $res
	pps=$1 sent=$2 secs=$3
	wait_until 5 peer_rx_done
	sleep 0.3
	eval "$(snap a)"
	tx=$((a_tx - b_tx)) db=$((a_db - b_db)) xm=$((a_xm - b_xm))
	st=$((a_st - b_st)) rx=$((a_rx - b_rx)) sdb=$((a_sdb - b_sdb))
	v=$((a_v - b_v)) qs=$((a_qs - b_qs)) rd=$((a_rd - b_rd))
	srd=$((a_srd - b_srd)) bf=$((a_bf - b_bf)) sbf=$((a_sbf - b_sbf))
	rings=$((db + bf))
	stranded=$(($(sim_ctr 1 0 stranded) + $(sim_ctr 1 1 stranded)))
	ktap_diag "$engine burst $burst: sent $sent tx $tx rx $rx" \
		"doorbells $db (sim $sdb) blueflame $bf (sim $sbf)" \
		"xmit_more $xm on_stop $st" \
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
	if [ "$engine" = inline ]; then
		eq "$sent" "$COUNT" "packets sent (inline)" || rc=1
		eq $rings $((COUNT / burst)) "doorbells + blueflame (inline)" || rc=1
		eq $st 0 "tx_doorbell_on_stop (inline)" || rc=1
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
