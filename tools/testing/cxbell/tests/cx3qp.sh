# SPDX-License-Identifier: GPL-2.0
#
# Receive QP layout and CQ arm sequence numbers, as a ConnectX-3 takes
# them (Documentation/mlx4.rst). The sim fetches receive WQEs behind the
# receive QP's one-TXBB send queue (buffer offset 64, mlx4_en en_rx.c),
# and ignores a CQ arm whose sequence number is not the CQ's (1 at
# creation, mlx4_core cq.c, + 1 per event), counting it in arms_stale. Port 0
# of sim adapter 1 sends M frames with pktgen (burst 1) to port 1, one
# channel each, on a cx3 and on a cx5 adapter (the receive queue is
# mlx4's on both; cx5 CQ arms start at 0, as mlx5_core's):
#   setup: both ports come up (the sim refuses a receive QP buffer that
#     does not hold 64 + 16 * entries bytes)
#   rx_M: port 1 rx_packets == sim port 1 rx_frames == M, sim rx_dropped
#     == 0, violations == 0 on both ports, sim port 1 irqs > 0 (receive
#     runs on completion events: an ignored arm would leave NAPI idle)
#   rx_after_reconfig_M: ethtool -G rx 128 on port 1 (new CQs and QPs,
#     whose arm numbers start again), then the same counts
#   stop_room (cx3): the send queue keeps 2 KB + 1 TXBB of prefetch
#     headroom plus 16 TXBBs free (stop room 49, mlx4_en HEADROOM). Port 0
#     with a fresh 64-TXBB send ring, blueflame off, doorbell_opt 0, the
#     inline engine, sim fault lose_doorbell 15: pktgen sends 20 1-TXBB
#     frames (burst 1). The first 15 doorbells are lost, so nothing
#     completes; the 16th packet leaves 48 TXBBs free and stops the queue,
#     its doorbell (due anyway: burst 1) sends all 16, the completion
#     wakes the queue, the last 4 go normally:
#       tx_queue_stopped == tx_wake_queue == 1, tx_doorbell_on_stop == 0
#       sim doorbells_lost == 15, tx_packets == sim tx_frames == peer
#       rx_packets == 20, sim violations == 0
. /cxbell/lib.sh

M=1000
ktap_plan 8
no_ipv6

# run: M frames port 0 -> port 1, exact counts
run()
{
	pair_snap b
	res=$(pktgen_run "$p0" "$M" 1 "$mac") || return 1
	sent=${res#* }
	wait_until 10 pair_rx_done "$sent"
	pair_snap_settled a
	ktap_diag "sent $sent rx_packets $(pair_d r_rx_packets)" \
		"sim rx_frames $(pair_d s1_rx_frames) rx_dropped $(pair_d s1_rx_dropped)" \
		"irqs $(pair_d s1_irqs) violations $(pair_d s0_violations)/$(pair_d s1_violations)" \
		"arms_stale $(pair_d s0_arms_stale)/$(pair_d s1_arms_stale)"
	rc=0
	eq "$sent" "$M" "pktgen sent" || rc=1
	eq "$(pair_d r_rx_packets)" "$M" "port 1 rx_packets" || rc=1
	eq "$(pair_d s1_rx_frames)" "$M" "sim port 1 rx_frames" || rc=1
	eq "$(pair_d s1_rx_dropped)" 0 "sim port 1 rx_dropped" || rc=1
	pair_sim_zero violations || rc=1
	[ "$(pair_d s1_irqs)" -gt 0 ] || { ktap_diag "sim port 1 irqs: 0"; rc=1; }
	return $rc
}

reconfig()
{
	ethtool -G "$p1" rx 128 || return 1
	wait_until 5 carrier_up || return 1
	sleep 0.5
	run
}

stop_room()
{
	ethtool -G "$p0" tx 128 && ethtool -G "$p0" tx 64 || return 1
	wait_until 5 carrier_up || return 1
	sim_engine 1 inline
	ethtool --set-priv-flags "$p0" blueflame off &&
	echo 0 >"/sys/class/net/$p0/doorbell_opt" &&
	echo 1000000 >"/sys/class/net/$p0/queues/tx-0/byte_queue_limits/limit_min" ||
		return 1
	sleep 0.3
	pair_snap b
	echo 15 >"$CXB_DBG/cxbell_sim1/port0/fault/lose_doorbell" || return 1
	res=$(pktgen_run "$p0" 20 1 "$mac") || return 1
	sent=${res#* }
	wait_until 10 pair_rx_done "$sent"
	pair_snap_settled a
	ktap_diag "sent $sent tx_packets $(pair_d d_tx_packets)" \
		"stopped $(pair_d d_tx_queue_stopped) woken $(pair_d d_tx_wake_queue)" \
		"doorbell_on_stop $(pair_d d_tx_doorbell_on_stop)" \
		"doorbells_lost $(pair_d s0_doorbells_lost) tx_frames $(pair_d s0_tx_frames)" \
		"peer rx $(pair_d r_rx_packets)"
	rc=0
	eq "$sent" 20 "pktgen sent" || rc=1
	for c in d_tx_queue_stopped d_tx_wake_queue; do
		eq "$(pair_d $c)" 1 "$c" || rc=1
	done
	eq "$(pair_d d_tx_doorbell_on_stop)" 0 "tx_doorbell_on_stop" || rc=1
	eq "$(pair_d s0_doorbells_lost)" 15 "sim doorbells_lost" || rc=1
	for c in d_tx_packets s0_tx_frames r_rx_packets; do
		eq "$(pair_d $c)" 20 "$c" || rc=1
	done
	pair_sim_zero violations || rc=1
	return $rc
}

for gen in cx3 cx5; do
	ktap_ok "setup_$gen" cxb_pktgen_pair "$gen" || ktap_finish
	ktap_ok "rx_${M}_$gen" run
	ktap_ok "rx_after_reconfig_${M}_$gen" reconfig
	[ $gen = cx3 ] && ktap_ok stop_room_49 stop_room
	[ $gen = cx3 ] && { cxb_pktgen_teardown || ktap_finish; }
done
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
