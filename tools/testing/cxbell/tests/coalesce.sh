# SPDX-License-Identifier: GPL-2.0
#
# CQ moderation (ethtool -C, Documentation/cxbell.rst "Interrupt
# moderation"): a CQ raises its completion event once FRAMES CQEs are
# pending since its last event, or USECS after that event, whichever
# comes first (mlx4_cq_modify(); the sim models it).
# Sim adapter 1, port 0 sends COUNT 60-byte frames with pktgen (burst 1)
# to port 1, one channel each, the sim's inline engine (every WQE runs
# in its doorbell, so each event's NAPI poll finds exactly the CQEs
# counted), on a cx3 and on a cx5 adapter:
#   defaults: ethtool -c shows mlx4_en's defaults, rx-usecs 16 rx-frames
#     44 tx-usecs 16 tx-frames 16
#   count_GEN: port 0 tx-usecs 65535 tx-frames 8, set while the port is
#     down (the CQs are created with it); port 1 rx-usecs 65535
#     rx-frames 4, set while it is up (mlx4_cq_modify() on the live CQ).
#     An event the count raises has 8 (4) CQEs behind it; the others are
#     counted by the sim: irqs_timer (the period ended, 65.535 ms: the
#     first CQE of the run, or the host stalled the guest that long) and
#     irqs_arm (an arm found CQEs waiting and the period over). So, with
#     the CQE deltas of the run:
#       port 0 irqs <= tx_cqes / 8 + sim port 0 irqs_timer + irqs_arm
#       port 1 irqs <= rx_cqes / 4 + sim port 1 irqs_timer + irqs_arm
#     and > 0 (the counts are printed; a driver or sim that raised an
#     event per CQE fails the bound). Also: the driver's irqs == the
#     sim's on both ports, tx_packets == port 1 rx_packets == COUNT.
#   period_GEN: port 0 tx-usecs 200 tx-frames 0 (no count limit): every
#     port 0 event is the period's or an arm's (port 0 irqs == sim
#     irqs_timer + irqs_arm, irqs_timer > 0), every frame arrives
#   per_cqe_GEN: port 0 tx-usecs 0 tx-frames 16 (an event per CQE,
#     whatever the count): no event waited for a period (sim port 0
#     irqs_timer == 0), port 0 irqs > tx_cqes / 16 (more than the count
#     alone would raise)
# and sim violations == 0 on both ports throughout.
#
#   coalesce.sh [COUNT]     COUNT defaults to 800 (a multiple of 8)
. /cxbell/lib.sh

COUNT=${1:-800}
GENS="cx3 cx5"

ktap_plan $((1 + 4 * 2))
no_ipv6

coal()
{
	ethtool -c "$1" | awk '$1 ~ /^(rx|tx)-(usecs|frames):$/ { printf "%s%s ", $1, $2 }'
}

defaults()
{
	cxb_pktgen_pair || return 1
	_got=$(coal "$p0")
	ktap_diag "ethtool -c $p0: $_got"
	_rc=0
	eq "$_got" "rx-usecs:16 rx-frames:44 tx-usecs:16 tx-frames:16 " \
		"default moderation" || _rc=1
	cxb_pktgen_teardown || _rc=1
	return $_rc
}

# run: COUNT frames port 0 -> port 1, burst 1; pair_snap b/a around it
run()
{
	pair_snap b
	res=$(pktgen_run "$p0" "$COUNT" 1 "$mac") || return 1
	sent=${res#* }
	wait_until 10 pair_rx_done "$sent"
	pair_snap_settled a
	ktap_diag "sent $sent, port 0 irqs $(pair_d d_irqs) (sim $(pair_d s0_irqs)," \
		"irqs_timer $(pair_d s0_irqs_timer) irqs_arm $(pair_d s0_irqs_arm))" \
		"tx_cqes $(pair_d d_tx_cqes), port 1 irqs $(pair_d r_irqs)" \
		"(sim $(pair_d s1_irqs), irqs_timer $(pair_d s1_irqs_timer)" \
		"irqs_arm $(pair_d s1_irqs_arm)) rx_cqes $(pair_d r_rx_cqes)" \
		"rx_packets $(pair_d r_rx_packets)"
	eq "$sent" "$COUNT" "pktgen sent" &&
	eq "$(pair_d d_tx_packets)" "$COUNT" "port 0 tx_packets" &&
	eq "$(pair_d r_rx_packets)" "$COUNT" "port 1 rx_packets" &&
	eq "$(pair_d d_irqs)" "$(pair_d s0_irqs)" "port 0 irqs: driver vs sim" &&
	eq "$(pair_d r_irqs)" "$(pair_d s1_irqs)" "port 1 irqs: driver vs sim" &&
	pair_sim_zero violations
}

# in_range WHAT GOT LOW HIGH
in_range()
{
	[ "$2" -ge "$3" ] && [ "$2" -le "$4" ] && return 0
	ktap_diag "$1: got $2, want $3..$4"
	return 1
}

# Events the count did not raise, of sim port $1.
not_count()
{
	echo $(($(pair_d "s$1_irqs_timer") + $(pair_d "s$1_irqs_arm")))
}

count()
{
	cxb_pktgen_pair "$1" || return 1
	sim_engine 1 inline || return 1
	ip link set "$p0" down &&
	ethtool -C "$p0" tx-usecs 65535 tx-frames 8 &&
	ip link set "$p0" up || return 1
	wait_until 5 carrier_up || { ktap_diag "no carrier"; return 1; }
	ethtool -C "$p1" rx-usecs 65535 rx-frames 4 || return 1
	run || return 1
	in_range "port 0 irqs" "$(pair_d d_irqs)" 1 \
		$(($(pair_d d_tx_cqes) / 8 + $(not_count 0))) &&
	in_range "port 1 irqs" "$(pair_d r_irqs)" 1 \
		$(($(pair_d r_rx_cqes) / 4 + $(not_count 1)))
}

period()
{
	ethtool -C "$p0" tx-usecs 200 tx-frames 0 || return 1
	run || return 1
	[ "$(pair_d s0_irqs_timer)" -gt 0 ] ||
		{ ktap_diag "no event from the period"; return 1; }
	eq "$(pair_d d_irqs)" "$(not_count 0)" "port 0 irqs vs irqs_timer + irqs_arm"
}

per_cqe()
{
	ethtool -C "$p0" tx-usecs 0 tx-frames 16 || return 1
	run || return 1
	eq "$(pair_d s0_irqs_timer)" 0 "sim port 0 irqs_timer" &&
	in_range "port 0 irqs" "$(pair_d d_irqs)" $(($(pair_d d_tx_cqes) / 16 + 1)) \
		"$(pair_d d_tx_cqes)"
}

ktap_ok defaults defaults
for g in $GENS; do
	if ktap_ok "count_$g" count "$g"; then
		ktap_ok "period_$g" period
		ktap_ok "per_cqe_$g" per_cqe
	else
		ktap_fail "period_$g"
		ktap_fail "per_cqe_$g"
	fi
	ktap_ok "teardown_$g" cxb_pktgen_teardown
done
ktap_finish
