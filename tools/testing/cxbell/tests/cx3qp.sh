# SPDX-License-Identifier: GPL-2.0
#
# Receive QP layout and CQ arm sequence numbers, as a ConnectX-3 takes
# them (Documentation/mlx4.rst). The sim fetches receive WQEs behind the
# receive QP's one-TXBB send queue (buffer offset 64, mlx4_en en_rx.c),
# and ignores a CQ arm whose sequence number is not the CQ's (1 at
# creation, mlx4_core cq.c, + 1 per event), counting a violation. Port 0
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
. /cxbell/lib.sh

M=1000
ktap_plan 7
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
		"irqs $(pair_d s1_irqs) violations $(pair_d s0_violations)/$(pair_d s1_violations)"
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

for gen in cx3 cx5; do
	ktap_ok "setup_$gen" cxb_pktgen_pair "$gen" || ktap_finish
	ktap_ok "rx_${M}_$gen" run
	ktap_ok "rx_after_reconfig_${M}_$gen" reconfig
	[ $gen = cx3 ] && { cxb_pktgen_teardown || ktap_finish; }
done
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
