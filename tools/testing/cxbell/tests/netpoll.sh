# SPDX-License-Identifier: GPL-2.0
#
# netpoll (netconsole) over a cxbell port, and BlueFlame switched under a
# deferred doorbell (Documentation/cxbell.rst, "Doorbell avoidance").
# For each generation (cx3, cx5), sim adapter 1, one channel per port
# (netconsole and pktgen share the one TX queue of port 0), doorbell_opt
# 1, BlueFlame on where the port has it, the sim's deferred engine (TX
# completions outstanding while xmit runs, so doorbells get deferred):
#  1. pktgen (burst 32) from port 0 to port 1 for TOGGLE_S seconds
#     while blueflame is switched on and off as fast as ethtool goes:
#     peer rx_packets == sent == tx_packets, sim doorbells ==
#     tx_doorbells, sim bf_writes == tx_blueflame, no sim violations
#     (a WQE announced by a doorbell before its BlueFlame copy), stranded,
#     bf_ineligible, bf_mismatch.
#  2. netconsole on port 0 (10.0.0.1) to port 1 (10.0.0.2, in netns b,
#     where tcpblast udprecv counts the datagrams), console level 8;
#     pktgen sends COUNT packets (burst 32, one skb over and over, to
#     10.0.0.3: the peer's IP layer drops them, InAddrErrors) from
#     kpktgend_0 (CPU 0) while a storm prints, from hard-IRQ context
#     among others: "echo l >/proc/sysrq-trigger" from CPU 1 (an NMI
#     backtrace of CPU 0, which CPU 0 flushes to the consoles from the
#     irq_work of its next tick, often while pktgen holds the queue's
#     xmit lock there; netpoll then finds the lock taken, and polls the
#     channel's NAPI with budget 0 from CPUs that do not hold it), every
#     fourth from CPU 0, and /dev/kmsg lines. Asserted: pktgen sent COUNT
#     within PKTGEN_MAX_S seconds, the listener got > 0 datagrams and
#     every one that reached the peer's UDP (no NoPorts: it never went 20
#     s without one), no stall/lockup/BUG/WARNING line in the kernel log,
#     and the counters add up: sim port0 tx_frames == tx_packets == peer
#     rx_packets + sim rx_dropped, peer InAddrErrors == sent (pktgen's
#     frames) and tx_packets - sent - datagrams == the rest port 0 sent
#     (printed), tx_dropped == 0, the accounting identity of cxbell.rst,
#     sim doorbells == tx_doorbells, sim bf_writes == tx_blueflame, no
#     violations or stranded WQEs.
# The storm's backtraces ("Call Trace:") are printed on purpose: the
# printk timestamps are off while it runs, so the host's scan of the
# console for bad lines skips them, and this test scans the kernel log
# itself (lib.sh's CXB_BAD without "Call Trace") and clears it.
#
#   netpoll.sh [COUNT [TOGGLE_S [GENS]]]   defaults 100000, 3, "cx3 cx5"
. /cxbell/lib.sh

# The storm, until file $1 exists, from CPU 1: sysrq-l (an NMI backtrace
# of CPU 0, which CPU 0 prints from its next tick's irq_work, in hard-IRQ
# context, if no task printed it before: hence the pause), every fourth
# round from CPU 0 instead (CPU 1's backtrace, likewise), and a /dev/kmsg
# line every round.
storm()
{
	_i=0
	while [ ! -e "$1" ]; do
		_c=1
		[ $((_i % 4)) = 3 ] && _c=0
		taskset -c $_c sh -c 'echo l >/proc/sysrq-trigger'
		sleep 0.05
		echo "cxbell netpoll storm $_i" >/dev/kmsg
		_i=$((_i + 1))
	done
	echo "$_i" >"$1.n"
}

# Storm mode, run pinned to CPU 1: netpoll.sh --storm STOP
if [ "${1:-}" = --storm ]; then
	storm "$2"
	exit 0
fi
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
COUNT=${1:-100000}
TOGGLE_S=${2:-3}
GENS=${3:-cx3 cx5}
PKTGEN_MAX_S=150
NC_PORT=6666
# lib.sh's bad kernel log patterns but the backtraces the storm prints
STORM_BAD=$(echo "$CXB_BAD" | sed 's/|Call Trace//')

ngens=$(echo "$GENS" | wc -w)
ktap_plan $((ngens * 5))
no_ipv6

setup()
{
	cxb_pktgen_pair "$1" || return 1
	sim_engine 1 deferred || return 1
	echo 1 >"/sys/class/net/$p0/doorbell_opt" || return 1
	bfm=off
	if ethtool --set-priv-flags "$p0" blueflame on 2>/dev/null; then
		bfm=on
	fi
	ktap_diag "$1: $p0 -> $p1, doorbell_opt 1, blueflame $bfm, deferred engine"
	eq "$(cat "/sys/class/net/$p0/doorbell_opt")" 1 "doorbell_opt"
}

# toggle_bf_fast IF ROUND: a toggle_rounds STEP, blueflame on/off by turns
toggle_bf_fast()
{
	if [ $(($2 % 2)) = 0 ]; then _v=on; else _v=off; fi
	_o=$(ethtool --set-priv-flags "$1" blueflame $_v 2>&1) ||
		echo "round $2: blueflame $_v failed: $_o"
}

bf_toggler()
{
	toggler "$1" "$2" "$3" blueflame:toggle_bf_fast
}

bf_checks()
{
	_rc=0
	pair_sim_zero bf_ineligible bf_mismatch violations stranded || _rc=1
	eq "$(pair_d s0_doorbells)" "$(pair_d d_tx_doorbells)" \
		"sim doorbells vs tx_doorbells" || _rc=1
	eq "$(pair_d s0_bf_writes)" "$(pair_d d_tx_blueflame)" \
		"sim bf_writes vs tx_blueflame" || _rc=1
	ktap_diag "doorbells $(pair_d d_tx_doorbells) (by completion" \
		"$(pair_d d_tx_doorbell_by_completion)) blueflame" \
		"$(pair_d d_tx_blueflame) deferred $(pair_d d_tx_doorbell_deferred)" \
		"sim violations $(pair_d s0_violations)"
	return $_rc
}

bf_toggle()
{
	echo 1 >"/sys/class/net/$p0/doorbell_opt" || return 1
	_rc=0
	pktgen_toggle deferred "$TOGGLE_S" bf_toggler bf_checks || _rc=1
	ethtool --set-priv-flags "$p0" blueflame on || _rc=1
	return $_rc
}

# Port 1 into netns b as 10.0.0.2 with the listener; port 0 10.0.0.1 in
# the initial namespace (netconsole's); netconsole loaded on port 0.
nc_setup()
{
	mkdir -p /run/netns
	ip netns add b || return 1
	no_ipv6_netns b
	ip link set "$p1" netns b || return 1
	ip -n b link set lo up && ip -n b addr add 10.0.0.2/24 dev "$p1" &&
	ip -n b link set "$p1" up || return 1
	ip addr add 10.0.0.1/24 dev "$p0" || return 1
	wait_until 5 _cxb_ns_carrier b "$p1" && wait_until 5 carrier_up || {
		ktap_diag "no carrier"; return 1; }
	rm -f /tmp/nc.out
	# 60 s idle: on cx5, netconsole was seen silent for over 20 s while
	# pktgen held the queue (its lines wait in netpoll's backlog).
	ip netns exec b tcpblast udprecv $NC_PORT 1000000000 60 >/tmp/nc.out &
	nc_pid=$!
	wait_until 5 _nc_bound || { ktap_diag "listener not bound"; return 1; }
	# Before netconsole's first lines: the deltas cover every datagram.
	nc_snap b
	modprobe netconsole "netconsole=6665@10.0.0.1/$p0,$NC_PORT@10.0.0.2/$mac" || {
		ktap_diag "modprobe netconsole failed"; return 1; }
	dmesg | grep -a 'netconsole: network logging started' >/dev/null || {
		ktap_diag "netconsole did not start: $(dmesg | grep -a netpoll | tail -n 3)"
		return 1; }
}

_nc_bound()
{
	ip netns exec b cat /proc/net/udp | grep -q ":$(printf %04X $NC_PORT) "
}

# The peer's IP and UDP counters (netns b) as PREFIX_Ip_NAME=VALUE etc.
peer_snmp()
{
	ip netns exec b awk '
		$1 != "Ip:" && $1 != "Udp:" { next }
		!($1 in h) { h[$1] = 1; for (i = 2; i <= NF; i++) n[$1, i] = $i; next }
		{ for (i = 2; i <= NF; i++) print substr($1, 1, length($1) - 1) "_" n[$1, i], $i }' /proc/net/snmp
}

nc_snap()
{
	pair_snap "$1" "" b &&
	snap_add "$1" p_ peer_snmp
}

storm_run()
{
	rm -f /tmp/st.stop /tmp/st.stop.n /tmp/pg.out
	_pg=/proc/net/pktgen
	# One skb sent over and over (clone_skb): pktgen then spends its
	# time in xmit, with the queue's xmit lock held, not in allocations.
	pktgen_dev "$p0" "$COUNT" 32 "$mac" 60 1000000 10.0.0.3 || return 1
	_cc0=$(cat "/sys/class/net/$p0/carrier_changes")
	renice 19 -p "$(pidof kpktgend_0)" >/dev/null 2>&1
	cxb_set /sys/module/printk/parameters/time 0
	cxb_loglevel 8
	_t0=$(uptime_s)
	taskset -c 1 /bin/sh "$self" --storm /tmp/st.stop &
	_stp=$!
	pgset $_pg/pgctrl start || { touch /tmp/st.stop; return 1; }
	pktgen_wait "$_pg/$p0"
	_w=0
	while ! grep -q '^Result: OK' "$_pg/$p0" && [ $_w -lt $((PKTGEN_MAX_S - 60)) ]; do
		sleep 1
		_w=$((_w + 1))
	done
	_t1=$(uptime_s)
	touch /tmp/st.stop
	wait $_stp
	dmesg -n 5
	echo 1 >/sys/module/printk/parameters/time
	_secs=$(secs_between "$_t0" "$_t1")
	rc=0
	if ! grep -q '^Result: OK' "$_pg/$p0"; then
		ktap_diag "pktgen not done after $_secs s: $(grep '^Result' "$_pg/$p0")"
		pktgen_stop
		rc=1
	fi
	sent=$(sed -n 's/^ *pkts-sofar: *\([0-9]*\).*/\1/p' "$_pg/$p0")
	_res=$(grep -a '^Result' "$_pg/$p0")
	[ "${sent:-0}" -ge "$COUNT" ] ||
		grep -a 'pkts-sofar\|Current\|flows\|started\|errors' "$_pg/$p0" |
		sed 's/^ */# pktgen: /'
	pktgen_rem_all
	# The kernel log of the storm: nothing bad but its backtraces.
	_bad=$(dmesg -c | grep -aE "$STORM_BAD" | head -n 10)
	ktap_diag "storm: $(cat /tmp/st.stop.n) sysrq-l rounds in $_secs s, pktgen sent $sent" \
		"(count $COUNT; $_res), carrier changes" \
		"$(($(cat "/sys/class/net/$p0/carrier_changes") - _cc0))"
	if [ -n "$_bad" ]; then
		printf '%s\n' "$_bad" | sed 's/^/# storm dmesg: /'
		rc=1
	fi
	# No more datagrams, then the listener's 60 s idle timeout.
	rmmod netconsole || rc=1
	wait "$nc_pid"
	nc_snap a
	dgrams=$(sed -n 's/^received \([0-9]*\) .*/\1/p' /tmp/nc.out)
	tx=$(pair_d d_tx_packets) rx=$(pair_d r_rx_packets) srd=$(pair_d s1_rx_dropped)
	sfr=$(pair_d s0_tx_frames) db=$(pair_d d_tx_doorbells) bf=$(pair_d d_tx_blueflame)
	bc=$(pair_d d_tx_doorbell_by_completion) xm=$(pair_d d_tx_xmit_more)
	kk=$(pair_d d_tx_doorbell_kick)
	dfr=$(pair_d d_tx_doorbell_deferred) drp=$(pair_d d_tx_dropped)
	ktap_diag "tx_packets $tx (sim tx_frames $sfr, dropped $drp), peer rx $rx" \
		"(sim rx_dropped $srd), netconsole datagrams $dgrams;" \
		"doorbells $db (sim $(pair_d s0_doorbells), by completion $bc, stall kicks $kk)" \
		"blueflame $bf (sim $(pair_d s0_bf_writes)) xmit_more $xm deferred $dfr;" \
		"peer tx_packets $(pair_d r_tx_packets), listener: $(cat /tmp/nc.out)"
	pae=$(pair_d p_Ip_InAddrErrors) udi=$(pair_d p_Udp_InDatagrams)
	unp=$(pair_d p_Udp_NoPorts) uer=$(pair_d p_Udp_InErrors)
	ktap_diag "peer IP: InAddrErrors $pae; UDP: InDatagrams $udi NoPorts $unp" \
		"InErrors $uer; port 0's other frames $((tx - sent - udi - unp - uer))"
	[ "${dgrams:-0}" -gt 0 ] || { ktap_diag "listener got no datagram"; rc=1; }
	le "$COUNT" "$sent" "pktgen sent vs count" || rc=1
	eq "$sfr" "$tx" "sim tx_frames vs tx_packets" || rc=1
	eq $((rx + srd)) "$tx" "peer rx_packets + sim rx_dropped vs tx_packets" || rc=1
	eq $((pae + srd)) "$sent" "peer InAddrErrors + sim rx_dropped vs pktgen sent" || rc=1
	eq "${dgrams:-0}" "$udi" "datagrams vs peer UDP InDatagrams" || rc=1
	eq $((unp + uer)) 0 "peer UDP NoPorts + InErrors" || rc=1
	eq "$drp" 0 "tx_dropped" || rc=1
	eq "$tx" $((db - bc - kk + bf + xm + dfr)) \
		"tx_packets vs (doorbells - by_completion - kick) + blueflame + xmit_more + deferred" ||
		rc=1
	bf_checks || rc=1
	return $rc
}

teardown()
{
	ip netns del b && rmmod pktgen || return 1
	_cxb_pair_del
}

for g in $GENS; do
	if ! ktap_ok "${g}_setup" setup "$g"; then
		ktap_finish
	fi
	if [ "$bfm" = on ]; then
		ktap_ok "${g}_blueflame_toggle_opt1_${TOGGLE_S}s" bf_toggle
	else
		ktap_skip "${g}_blueflame_toggle_opt1_${TOGGLE_S}s" \
			"the port has no BlueFlame registers"
	fi
	ktap_ok "${g}_netconsole_setup" nc_setup || ktap_finish
	ktap_ok "${g}_netconsole_hardirq_storm_pktgen$COUNT" storm_run
	ktap_ok "${g}_teardown" teardown || ktap_finish
done
ktap_finish
