# SPDX-License-Identifier: GPL-2.0
#
# Reconfiguration that cannot lose the datapath, and teardown vs. the
# timers and work items that touch the rings. Port 0 sends with pktgen
# (inline, tx-copybreak 256: it maps nothing) to port 1, one channel
# each, PAUSE on at port 1.
#
#   ringparam/channels/mtu _fail_keeps_old: port 1 is reconfigured
#       (ethtool -G rx/tx 512, -L combined 2, MTU 1000) under traffic
#       while every streaming map of the adapter fails (sim
#       fault/dma_map_fail: the new rings' page_pool cannot map a
#       receive buffer). The command fails saying "cannot allocate the
#       new rings; the old configuration stays", ethtool -g/-l and the MTU
#       show the old settings, the 2000 frames sent after it are all
#       received (exact), with port 1 down the sim's dma_live is back at
#       its value of setup (no mapping of the failed set left), and the
#       same change without the fault then succeeds. For the
#       MTU: 1400-byte frames still pass after the failed change to 1000
#       (the port MTU was not left at 1000) and are dropped by the port
#       after the successful one.
#   xdp_attach_no_rebuild: XDP attach is a program pointer swap (every
#       buffer has XDP's headroom, the XDP send queues always exist):
#       with every map failing it succeeds, maps nothing, and the 2000
#       frames after it all pass the program.
#   watch_vs_{ringparam,channels,mtu,down}: port 0's send queue looks
#       stalled (sim lose_cqe 1: one CQE never written, so the stall
#       watch kicks it every second), and the sim returns from a send
#       queue destroy 2.5 s late (fault/destroy_delay_ms): the stall
#       watch must not fire inside the teardown. A doorbell to the
#       destroyed QP is a sim "no such QP" violation: 0 expected; the
#       lost-CQE WQE is freed by the teardown (tx_dropped 1), and the
#       watch is running again on the new datapath (one more lost CQE is
#       kicked: tx_doorbell_kick + 1).
. /cxbell/lib.sh

no_ipv6

SIM=$CXB_DBG/cxbell_sim1
PG_OUT=/tmp/reconfig.pktgen
ERR=/tmp/reconfig.err
# extack; the log line has the errno in between
MSG="cannot allocate the new rings; the old configuration stays"
LOGMSG="cannot allocate the new rings (-[0-9]*); the old configuration stays"

fault() { echo "$3" >"$SIM/port$1/fault/$2"; }
afault() { echo "$2" >"$SIM/fault/$1"; }

setup()
{
	cxb_pktgen_pair || return 1
	sim_engine 1 inline
	ethtool --set-tunable "$p0" tx-copybreak 256 || return 1
	# the adapter's mappings with port 1 down (port 0 receives nothing)
	ip link set "$p1" down || return 1
	live_p0=$(sim_dma_live 1)
	ip link set "$p1" up || return 1
	wait_until 5 carrier_up || return 1
	ktap_diag "sim dma_live with port 1 down: $live_p0"
}

snap()
{
	snap_new "$1" &&
	snap_add "$1" 0_ cxb_counters "$p0" &&
	snap_add "$1" 1_ cxb_counters "$p1" &&
	snap_add "$1" 2_ sim_counters 1 0 &&
	snap_add "$1" 3_ sim_counters 1 1
}

d() { snap_d "$1_$2" A B; }

pg_start() { pktgen_run "$p0" "$1" 1 "$mac" "${2:-60}" >"$PG_OUT" & pg=$!; }
pg_wait() { wait "$pg" || return 1; sent=$(cut -d' ' -f2 "$PG_OUT"); }
pg() { pg_start "$@" && pg_wait; }

# Background traffic until traffic_stop: a run of no fixed count, once
# pktgen's thread has taken it up (sim port 0 sends), so the stop cannot
# come first.
_sending() { [ "$(sim_ctr 1 0 tx_frames)" -gt "$_t0" ]; }
traffic_start()
{
	_t0=$(sim_ctr 1 0 tx_frames)
	pg_start 0
	wait_until 10 _sending || { ktap_diag "pktgen did not start"; return 1; }
}
traffic_stop() { pktgen_stop; pg_wait; }

# ring DEV cur|max RX|TX
ring()
{
	ethtool -g "$1" | awk -v which="$2" -v key="$3:" '
		/^Pre-set maximums/ { s = "max" } /^Current hardware/ { s = "cur" }
		s == which && $1 == key { print $2; exit }'
}

chan()
{
	ethtool -l "$1" | awk '/^Current hardware/ { s = 1 }
		s && $1 == "Combined:" { print $2; exit }'
}

# COUNT frames of SIZE from port 0 after the change: all received.
passes()
{
	snap B
	pg "$1" "${2:-60}" || return 1
	wait_until 3 eval '[ $(($(cxb_stat "$p1" rx_packets) - $(snap_get B 1_rx_packets))) -ge "$sent" ]'
	snap A
	ktap_diag "after: sent $sent, sim tx_frames $(d 2 tx_frames)," \
		"port 1 rx_packets $(d 1 rx_packets), sim port 1 rx_dropped $(d 3 rx_dropped)"
	eq "$sent" "$1" "pktgen sent" &&
	eq "$(d 2 tx_frames)" "$1" "sim port 0 tx_frames" &&
	eq "$(d 1 rx_packets)" "$1" "port 1 rx_packets" &&
	eq "$(d 3 rx_dropped)" 0 "sim port 1 rx_dropped" &&
	eq "$(d 2 violations)" 0 "sim violations"
}

# fail_case SHOW CMD...: CMD under traffic with every map failing; it must
# fail with the message and leave what SHOW prints as it was.
fail_case()
{
	_show=$1
	shift
	_old=$($_show)
	_n=$(dmesg | grep -c "$LOGMSG")
	traffic_start || return 1
	afault dma_map_fail 1000000
	"$@" 2>"$ERR"
	_rc=$?
	afault dma_map_fail 0
	traffic_stop
	ktap_diag "$* -> rc $_rc, '$(tr '\n' ' ' <"$ERR")'; log: $(dmesg | grep -a "$p1" | tail -n 2 | tr '\n' ' ')"
	ktap_diag "settings: $_old -> $($_show)"
	_ok=0
	[ "$_rc" != 0 ] || { ktap_diag "the change did not fail"; _ok=1; }
	[ $(($(dmesg | grep -c "$LOGMSG") - _n)) -ge 1 ] || {
		ktap_diag "no '$MSG' message"; _ok=1; }
	eq "$($_show)" "$_old" "settings after the failed change" || _ok=1
	passes 2000 || _ok=1
	live_check || _ok=1
	return $_ok
}

# With port 1 down, the adapter holds only port 0's mappings, as in
# setup: nothing of a failed new set is left mapped. (Up, port 1's page
# pool may have grown under traffic, which is no leak.)
live_check()
{
	ip link set "$p1" down || return 1
	wait_until 3 eval '[ "$(sim_dma_live 1)" = "$live_p0" ]'
	eq "$(sim_dma_live 1)" "$live_p0" "sim dma_live with port 1 down vs setup"
	_l=$?
	ip link set "$p1" up || return 1
	wait_until 5 carrier_up || { ktap_diag "no carrier"; return 1; }
	return $_l
}

show_ring() { echo "rx $(ring "$p1" cur RX) tx $(ring "$p1" cur TX)"; }
show_chan() { echo "combined $(chan "$p1")"; }
show_mtu() { cat "/sys/class/net/$p1/mtu"; }

ringparam_fail()
{
	fail_case show_ring ethtool -G "$p1" rx 512 tx 512 || return 1
	grep -q "$MSG" "$ERR" || { ktap_diag "no extack message"; return 1; }
	_b=$(cxb_stat "$p1" rx_packets)
	ethtool -G "$p1" rx 512 tx 512 || return 1
	eq "$(show_ring)" "rx 512 tx 512" "ring sizes after the change" &&
	le "$_b" "$(cxb_stat "$p1" rx_packets)" "rx_packets after the swap" &&
	passes 2000 &&
	ethtool -G "$p1" rx 1024 tx 1024
}

channels_fail()
{
	fail_case show_chan ethtool -L "$p1" combined 2 || return 1
	ethtool -L "$p1" combined 2 || return 1
	eq "$(show_chan)" "combined 2" "channels after the change" &&
	passes 2000 &&
	ethtool -L "$p1" combined 1
}

mtu_fail()
{
	fail_case show_mtu ip link set "$p1" mtu 1000 || return 1
	# the port MTU went back too: 1400-byte frames pass
	passes 500 1400 || return 1
	ip link set "$p1" mtu 1000 || return 1
	eq "$(show_mtu)" 1000 "MTU after the change" || return 1
	snap B
	pg 500 1400 || return 1
	sleep 0.3
	snap A
	eq "$(d 3 rx_dropped)" 500 "1400-byte frames dropped at MTU 1000" || return 1
	ip link set "$p1" mtu 1500 && passes 500 1400
}

# XDP attach needs no new rings: under traffic, with every map failing,
# it succeeds, maps nothing, and the program (XDP_PASS without sockets)
# sees every frame sent after it.
BPFOBJ=/usr/lib/x86_64-linux-gnu/bpf/xsk_def_xdp_prog.o
xdp_attach()
{
	[ -e "$BPFOBJ" ] || { ktap_diag "$BPFOBJ missing"; return 1; }
	_f=$(cat "$SIM/fault/dma_map_failed")
	traffic_start || return 1
	afault dma_map_fail 1000000
	ip link set dev "$p1" xdpdrv obj "$BPFOBJ" sec xdp 2>"$ERR"
	_rc=$?
	afault dma_map_fail 0
	traffic_stop
	ktap_diag "attach rc $_rc: $(tr '\n' ' ' <"$ERR")," \
		"maps failed meanwhile $(($(cat "$SIM/fault/dma_map_failed") - _f))"
	[ "$_rc" = 0 ] || return 1
	_x=$(cxb_stat "$p1" rx_xdp_pass)
	passes 2000 || return 1
	eq $(($(cxb_stat "$p1" rx_xdp_pass) - _x)) 2000 "rx_xdp_pass" &&
	ip link set dev "$p1" xdpdrv off &&
	live_check
}

# watch_case CMD...: CMD on port 0 while its send queue looks stalled and
# send queue destroys return 2.5 s late.
watch_case()
{
	snap B
	fault 0 lose_cqe 1
	# pktgen waits for its skb, freed only by the teardown: background
	pg_start 1
	# stalled: the watch kicks it
	wait_until 5 eval '[ $(($(cxb_stat "$p0" tx_doorbell_kick) - $(snap_get B 0_tx_doorbell_kick))) -ge 1 ]' || {
		ktap_diag "no kick of the stalled queue"; return 1; }
	afault destroy_delay_ms 2500
	"$@"
	_rc=$?
	afault destroy_delay_ms 0
	pg_wait
	snap A
	ktap_diag "$*: rc $_rc, sim violations $(d 2 violations), tx_dropped $(d 0 tx_dropped)," \
		"kicks $(d 0 tx_doorbell_kick)"
	dmesg | grep -a 'no such QP' | tail -n 2 | while read -r l; do ktap_diag "$l"; done
	_ok=0
	[ "$_rc" = 0 ] || _ok=1
	eq "$(d 2 violations)" 0 "sim violations (doorbell to a destroyed QP)" || _ok=1
	eq "$(d 0 tx_dropped)" 1 "tx_dropped (the WQE whose CQE was lost)" || _ok=1
	eq "$(d 2 cqes_lost)" 1 "sim cqes_lost" || _ok=1
	# the watch runs again on the new datapath
	wait_until 5 carrier_up || return 1
	snap B
	fault 0 lose_cqe 1
	pg_start 1
	wait_until 5 eval '[ $(($(cxb_stat "$p0" tx_doorbell_kick) - $(snap_get B 0_tx_doorbell_kick))) -ge 1 ]' || {
		ktap_diag "stall watch not running after: $*"; _ok=1; }
	# ifdown frees the stalled WQE
	ip link set "$p0" down && ip link set "$p0" up
	pg_wait
	wait_until 5 carrier_up
	return $_ok
}

watch_ringparam() { watch_case ethtool -G "$p0" tx 512; }
watch_channels() { watch_case ethtool -L "$p0" combined 2 && ethtool -L "$p0" combined 1; }
watch_mtu() { watch_case ip link set "$p0" mtu 1400 && ip link set "$p0" mtu 1500; }
watch_down() { watch_case sh -c "ip link set $p0 down && ip link set $p0 up"; }

teardown()
{
	afault dma_map_fail 0
	afault destroy_delay_ms 0
	cxb_pktgen_teardown
}

CASES="ringparam_fail_keeps_old:ringparam_fail
channels_fail_keeps_old:channels_fail mtu_fail_keeps_old:mtu_fail
xdp_attach_no_rebuild:xdp_attach
watch_vs_ringparam:watch_ringparam watch_vs_channels:watch_channels
watch_vs_mtu:watch_mtu watch_vs_down:watch_down"
[ $# -gt 0 ] && CASES=$(for c in $CASES; do
	for f in "$@"; do [ "${c#*:}" = "$f" ] && echo "$c"; done; done)

ktap_plan $(($(echo $CASES | wc -w) + 2))
ktap_ok setup setup || ktap_finish
for c in $CASES; do
	ktap_ok "${c%%:*}" "${c#*:}"
done
ktap_ok teardown_dma_live_zero teardown
ktap_finish
