# SPDX-License-Identifier: GPL-2.0
#
# Every doorbell policy switched under traffic (Documentation/cxbell.rst:
# "Every way cxbell tells the device about new send work can be switched
# at run time, under traffic"). A toggler runs three loops at once on an
# interface, each as fast as its commands go:
#   blueflame    on/off by turns, two turns through ethtool --set-priv-flags
#                IF blueflame, two through ethtool -G IF tx-push; after
#                each, both views (--show-priv-flags, -g "TX Push") must
#                show the value set
#   doorbell_opt 0, 1, 2, 3, 3, 2, 1, 0, ... (a shell builtin write), each
#                held for 5 ms (sleep)
#   tx-copybreak 0, 128, 464 (ethtool --set-tunable)
# until told to stop, and at least 8 rounds each. A failed command or a
# disagreeing view is recorded and fails the case.
#  1. pktgen (burst 32, 60 bytes, large count) on port 0 -> port 1 for
#     TOGGLE_S seconds per sim engine, port 0 toggled, then stopped:
#     peer rx_packets == sent == tx_packets, sim doorbells == tx_doorbells,
#     sim bf_writes == tx_blueflame, no bf_ineligible, bf_mismatch,
#     violations, stranded (both ports, after 300 ms idle).
#  2. a TCP transfer of TCP_MB MiB between namespaces a and b (as link.sh),
#     inline engine, both ports toggled until it ends: sha256 intact, the
#     same sim checks.
# The accounting identity of cxbell.rst is printed, not asserted: turning
# doorbell avoidance off rings what it deferred, a 4-byte doorbell no
# packet accounts for. A bad kernel log line fails the case (lib.sh).
#
#   toggle.sh [TOGGLE_S [TCP_MB]]    defaults 3 and 16
. /cxbell/lib.sh

# toggle_cb IF ROUND: a toggle_rounds STEP, tx-copybreak 0, 128, 464
toggle_cb()
{
	for _v in 0 128 464; do
		_o=$(ethtool --set-tunable "$1" tx-copybreak $_v 2>&1) ||
			echo "round $2: tx-copybreak $_v failed: $_o"
	done
}

# Toggler mode, also run inside a namespace: toggle.sh --toggler IF STOP LOG
# LOG gets the problems, LOG.n the rounds of each loop.
toggle_port()
{
	toggler "$1" "$2" "$3" bf:toggle_bf doorbell_opt:toggle_doorbell_opt \
		tx-copybreak:toggle_cb
}

if [ "${1:-}" = --toggler ]; then
	shift
	toggle_port "$@"
	exit 0
fi

TOGGLE_S=${1:-3}
TCP_MB=${2:-16}
ENGINES="inline deferred"
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

ktap_plan $((1 + 2 + 1 + 1 + 1))
no_ipv6

setup()
{
	cxb_pktgen_pair || return 1
}

# Checks on the deltas of both ports' driver and sim counters.
sim_checks()
{
	_rc=0
	pair_sim_zero bf_ineligible bf_mismatch violations stranded || _rc=1
	for pp in d:s0 r:s1; do
		dp=${pp%:*} sp=${pp#*:}
		db=$(pair_d ${dp}_tx_doorbells) bf=$(pair_d ${dp}_tx_blueflame)
		eq "$(pair_d ${sp}_doorbells)" "$db" "sim $sp doorbells vs tx_doorbells" || _rc=1
		eq "$(pair_d ${sp}_bf_writes)" "$bf" "sim $sp bf_writes vs tx_blueflame" || _rc=1
		tx=$(pair_d ${dp}_tx_packets)
		rhs=$((db - $(pair_d ${dp}_tx_doorbell_by_completion) + bf +
		       $(pair_d ${dp}_tx_xmit_more) + $(pair_d ${dp}_tx_doorbell_deferred)))
		ktap_diag "$sp: tx_packets $tx, inline $(pair_d ${dp}_tx_inline)" \
			"(sim $(pair_d ${sp}_inline_wqes)), doorbells $db (by completion" \
			"$(pair_d ${dp}_tx_doorbell_by_completion)), blueflame $bf," \
			"xmit_more $(pair_d ${dp}_tx_xmit_more), deferred" \
			"$(pair_d ${dp}_tx_doorbell_deferred); identity: rhs - tx_packets" \
			"= $((rhs - tx))"
	done
	return $_rc
}

pktgen_toggle_port()
{
	pktgen_toggle "$1" "$TOGGLE_S" toggle_port sim_checks
}

tcp_toggle()
{
	sim_engine 1 inline || return 1
	rm -f /tmp/tg.stop /tmp/tga.log /tmp/tga.log.n /tmp/tgb.log /tmp/tgb.log.n
	head -c $((TCP_MB * 1024 * 1024)) /dev/urandom >/tmp/src || return 1
	want=$(sha256sum </tmp/src | cut -d' ' -f1)
	pair_snap_settled b a b
	ip netns exec a /bin/sh "$self" --toggler "$p0" /tmp/tg.stop /tmp/tga.log &
	tga=$!
	ip netns exec b /bin/sh "$self" --toggler "$p1" /tmp/tg.stop /tmp/tgb.log &
	tgb=$!
	tcp_ab /tmp/src
	touch /tmp/tg.stop
	wait $tga $tgb
	pair_snap_settled a a b
	ktap_diag "$TCP_MB MiB in $tcp_secs s; sim rx_dropped port0 $(pair_d s0_rx_dropped)" \
		"port1 $(pair_d s1_rx_dropped)"
	rc=0
	tcp_ab_ok "$want" || rc=1
	sim_checks || rc=1
	toggler_ok /tmp/tga.log "$tcp_secs" || rc=1
	toggler_ok /tmp/tgb.log "$tcp_secs" || rc=1
	return $rc
}

ktap_ok setup_adapter setup || ktap_finish
for e in $ENGINES; do
	ktap_ok "pktgen_${e}_toggle_${TOGGLE_S}s" pktgen_toggle_port "$e"
done
ktap_ok netns_setup cxb_netns_pair || ktap_finish
ktap_ok "tcp_${TCP_MB}MiB_toggle_sha256" tcp_toggle
ktap_ok teardown_dma_live_zero cxb_netns_teardown
ktap_finish
