# SPDX-License-Identifier: GPL-2.0
#
# Device-side receive drops reach the driver's counters. With flow
# control (PAUSE) off at port 1, a 64-entry receive ring and the inline
# engine (which executes a whole burst of 128 during its doorbell, with
# the receiver's NAPI unable to run in between), pktgen bursts from port 0
# overrun port 1. Every frame is accounted:
#   SENT == peer rx_packets + peer rx_port_dropped
#   rx_port_dropped == sim port1 rx_dropped == statistics/rx_missed_errors
#   rx_port_dropped > 0 (the overrun happened)
# and with PAUSE back on, the same flood loses nothing.
#
#   drops.sh [COUNT]    COUNT defaults to 20480
. /cxbell/lib.sh

COUNT=${1:-20480}
ktap_plan 4
no_ipv6

setup()
{
	cxb_pktgen_pair || return 1
	ethtool -G "$p1" rx 64 || return 1
	wait_until 5 carrier_up || { ktap_diag "no carrier after -G rx 64"; return 1; }
	sim_engine 1 inline
}

pause()
{
	echo "$1" >/sys/kernel/debug/cxbell_sim/cxbell_sim1/port1/pause
}

missed() { cat "/sys/class/net/$p1/statistics/rx_missed_errors"; }

# flood PAUSE(0|1): sets sent, rx, pd, sd, mi (deltas)
flood()
{
	pause "$1" || return 1
	rx0=$(cxb_stat "$p1" rx_packets) pd0=$(cxb_stat "$p1" rx_port_dropped)
	sd0=$(sim_ctr 1 1 rx_dropped) mi0=$(missed)
	res=$(pktgen_run "$p0" "$COUNT" 128 "$mac" 60) || return 1
	sent=${res#* }
	settled() {
		[ $(($(cxb_stat "$p1" rx_packets) - rx0 +
		     $(cxb_stat "$p1" rx_port_dropped) - pd0)) -ge "$sent" ]
	}
	wait_until 5 settled
	sleep 0.3
	rx=$(($(cxb_stat "$p1" rx_packets) - rx0))
	pd=$(($(cxb_stat "$p1" rx_port_dropped) - pd0))
	sd=$(($(sim_ctr 1 1 rx_dropped) - sd0))
	mi=$(($(missed) - mi0))
	ktap_diag "pause $1: sent $sent, peer rx $rx, rx_port_dropped $pd" \
		"(sim $sd, rx_missed_errors $mi)"
}

overrun()
{
	flood 0 || return 1
	rc=0
	eq $((rx + pd)) "$sent" "peer rx_packets + rx_port_dropped vs sent" || rc=1
	eq "$pd" "$sd" "rx_port_dropped vs sim rx_dropped" || rc=1
	eq "$mi" "$pd" "rx_missed_errors vs rx_port_dropped" || rc=1
	[ "$pd" -gt 0 ] || { ktap_diag "no overrun: rx_port_dropped 0"; rc=1; }
	return $rc
}

lossless()
{
	flood 1 || return 1
	rc=0
	eq "$rx" "$sent" "peer rx_packets vs sent (PAUSE on)" || rc=1
	eq "$pd" 0 "rx_port_dropped (PAUSE on)" || rc=1
	return $rc
}

ktap_ok setup_adapter setup || ktap_finish
ktap_ok overrun_counted_pause_off overrun
ktap_ok lossless_pause_on lossless
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
