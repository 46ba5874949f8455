# SPDX-License-Identifier: GPL-2.0
#
# Receive completions the driver must not deliver: error CQEs (mlx4
# opcode 0x1e, mlx5 MLX5_CQE_RESP_ERR) and frames with a bad FCS (a cx3
# port flags them, CQE badfcs_enc MLX4_CQE_BAD_FCS; a cx5 port drops them
# without a CQE and counts them in its 802.3 counter), made by the sim's
# port fault knobs rx_err_cqe and rx_bad_fcs (the next N receive
# completions; cx5 rx_bad_fcs: the next N frames). pktgen sends M frames
# (burst 1) from port A to port B of a sim adapter, one channel each,
# PAUSE on at B (the cable is lossless), with a knob of B at N:
#   rx_err_cqe N: B's rx_packets == M - N; rx_err_cqe == N, rx_dropped
#     == N (ethtool and ip -s link), rx_crc_errors == 0; sim rx_err_cqes
#     == N; every frame got a completion: sim rx_frames == B's rx_cqes
#     == M; the knob reads 0 after
#   rx_bad_fcs N: B's rx_packets == M - N; rx_crc_errors == N (ethtool
#     and ip, where rx_errors == N too), rx_dropped == 0; sim rx_bad_fcs
#     == N; likewise for the completions and the knob, but on cx5 B's
#     rx_cqes == M - N (sim rx_frames == M: the port received them)
# then a clean run (M frames, all delivered, no error counted), on a cx3
# and on a cx5 adapter (receive CQEs of the adapter's generation).
. /cxbell/lib.sh

M=1000
N=10
ktap_plan 9
no_ipv6

fault() { echo "$3" >"$CXB_DBG/cxbell_sim1/port$1/fault/$2"; }
st64() { cat "/sys/class/net/$p1/statistics/$1"; }

ip_counters()
{
	for _c in rx_dropped rx_crc_errors rx_errors; do
		echo "$_c $(st64 $_c)"
	done
}

# snap SNAP: B's ethtool counters as keys NAME, its ip counters as ip_*,
# and sim port 1's as s_*, into snapshot SNAP
snap()
{
	snap_new "$1" &&
	snap_add "$1" "" cxb_counters "$p1" &&
	snap_add "$1" s_ sim_counters 1 1 &&
	snap_add "$1" ip_ ip_counters
}

d() { snap_d "$1" a b; }

# run KNOB N: M frames A -> B with B's KNOB at N (none: no knob); sets
# sent, and _rc (1: a check common to every run failed)
run()
{
	snap b
	[ "$1" != none ] && fault 1 "$1" "$2"
	res=$(pktgen_run "$p0" "$M" 1 "$mac") || return 1
	sent=${res#* }
	done_rx() { [ $(($(cxb_stat "$p1" rx_cqes) - $(snap_get b rx_cqes))) -ge "$sent" ]; }
	wait_until 10 done_rx
	sleep 0.3
	snap a
	ktap_diag "$1 $2: sent $sent, rx_packets $(d rx_packets), rx_cqes" \
		"$(d rx_cqes), rx_err_cqe $(d rx_err_cqe), rx_crc_errors" \
		"$(d rx_crc_errors), rx_dropped $(d rx_dropped) (ip: dropped" \
		"$(d ip_rx_dropped), crc $(d ip_rx_crc_errors), errors" \
		"$(d ip_rx_errors)); sim rx_frames $(d s_rx_frames)," \
		"rx_err_cqes $(d s_rx_err_cqes), rx_bad_fcs $(d s_rx_bad_fcs)"
	_rc=0
	eq "$sent" "$M" "pktgen sent" || _rc=1
	eq "$(d s_rx_frames)" "$sent" "sim rx_frames" || _rc=1
	_cqes=$sent
	[ "$gen" = cx5 ] && [ "$1" = rx_bad_fcs ] && _cqes=$((sent - $2))
	eq "$(d rx_cqes)" "$_cqes" "B rx_cqes" || _rc=1
	eq "$(d s_rx_dropped)" 0 "sim rx_dropped" || _rc=1
	[ "$1" != none ] &&
		{ eq "$(cat "$CXB_DBG/cxbell_sim1/port1/fault/$1")" 0 "$1 knob after" || _rc=1; }
	return 0
}

err_cqe()
{
	run rx_err_cqe "$N" || return 1
	rc=$_rc
	eq "$(d rx_packets)" $((sent - N)) "B rx_packets" || rc=1
	eq "$(d rx_err_cqe)" "$N" "B rx_err_cqe" || rc=1
	eq "$(d rx_dropped)" "$N" "B rx_dropped (ethtool)" || rc=1
	eq "$(d ip_rx_dropped)" "$N" "B rx_dropped (ip)" || rc=1
	eq "$(d rx_crc_errors)" 0 "B rx_crc_errors" || rc=1
	eq "$(d s_rx_err_cqes)" "$N" "sim rx_err_cqes" || rc=1
	return $rc
}

bad_fcs()
{
	run rx_bad_fcs "$N" || return 1
	rc=$_rc
	eq "$(d rx_packets)" $((sent - N)) "B rx_packets" || rc=1
	eq "$(d rx_crc_errors)" "$N" "B rx_crc_errors (ethtool)" || rc=1
	eq "$(d ip_rx_crc_errors)" "$N" "B rx_crc_errors (ip)" || rc=1
	eq "$(d ip_rx_errors)" "$N" "B rx_errors (ip)" || rc=1
	eq "$(d rx_dropped)" 0 "B rx_dropped" || rc=1
	eq "$(d rx_err_cqe)" 0 "B rx_err_cqe" || rc=1
	eq "$(d s_rx_bad_fcs)" "$N" "sim rx_bad_fcs" || rc=1
	return $rc
}

clean()
{
	run none 0 || return 1
	rc=$_rc
	eq "$(d rx_packets)" "$sent" "B rx_packets" || rc=1
	for c in rx_err_cqe rx_crc_errors rx_dropped s_rx_err_cqes s_rx_bad_fcs; do
		eq "$(d $c)" 0 "$c" || rc=1
	done
	return $rc
}

for gen in cx3 cx5; do
	ktap_ok "setup_$gen" cxb_pktgen_pair "$gen" || ktap_finish
	ktap_ok "rx_err_cqe_${N}_of_${M}_$gen" err_cqe
	ktap_ok "rx_bad_fcs_${N}_of_${M}_$gen" bad_fcs
	ktap_ok "clean_after_$gen" clean
	# the last case tears down (dma_live 0, modules unloaded)
	[ $gen = cx3 ] && { cxb_pktgen_teardown || ktap_finish; }
done
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
