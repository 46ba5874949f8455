# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the short sweep of the deterministic pktgen benchmark
# (bench/run), run by tools/testing/cxbell/bench/test in an -icount boot
# (vm-run --icount), twice: the host compares the two boots.
#
# pktgen (/proc/net/pktgen directly: this boot carries no copy of the
# kernel's samples/pktgen scripts) sends COUNT 60-byte packets,
# clone_skb 1000000, one queue, at burst 1 and 32, on three rows: dummy,
# cxbell cx3-db (blueflame off) and cx3-bf (blueflame on), each run on a
# fresh netdev (a new dummy, a new 1-port sim adapter, inline engine).
# KTAP cases here:
#   - per cxbell row and burst: the sim saw what the driver counted
#     (doorbells, BF writes), the queue never stopped, and
#     (doorbells + BF writes) x burst == packets sent, exactly;
#   - no DMA mapping is left at the end.
# And one line per run for the host's comparison:
#   # @@short row=ROW burst=B pkts=P elapsed_us=E db=D bf=F
#
#   short-sweep.sh [COUNT]   COUNT defaults to 20000
. /cxbell/lib.sh

COUNT=${1:-20000}
BURSTS="1 32"
ROWS="dummy cx3-db cx3-bf"
SIM=1

ktap_plan 5
no_ipv6
modprobe pktgen || true
modprobe dummy numdummies=0 2>/dev/null

# pg IF BURST: one pktgen run; prints "ELAPSED_US PKTS"
pg()
{
	pktgen_dev "$1" "$COUNT" "$2" 02:00:00:00:00:02 60 1000000 198.18.0.42 \
		NO_TIMESTAMP || return 1
	pgset /proc/net/pktgen/pgctrl start || return 1
	sed -n 's/^Result: OK: \([0-9]*\)(c[0-9]*+d[0-9]*) usec, \([0-9]*\) .*/\1 \2/p' \
		"/proc/net/pktgen/$1"
	pgset /proc/net/pktgen/kpktgend_0 rem_device_all
}

carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }

# run_dummy BURST -> "ELAPSED PKTS"
run_dummy()
{
	ip link add d0 type dummy && ip link set d0 up || return 1
	pg d0 "$1"
	ip link del d0
}

# run_cx BF BURST -> "ELAPSED PKTS DB BF EDB EBF STOPS VIOL"
run_cx()
{
	cxb_new $SIM 1 || return 1
	_if=$(cxb_netdev $SIM 0) || return 1
	sim_engine $SIM inline &&
	ethtool -L "$_if" combined 1 &&
	ethtool --set-priv-flags "$_if" blueflame "$1" &&
	ip link set "$_if" up || return 1
	wait_until 5 carrier "$_if" || return 1
	_r=$(pg "$_if" "$2") || return 1
	echo "$_r $(sim_ctr $SIM 0 doorbells) $(sim_ctr $SIM 0 bf_writes)" \
		"$(cxb_stat "$_if" tx_doorbells) $(cxb_stat "$_if" tx_blueflame)" \
		"$(cxb_stat "$_if" tx_queue_stopped) $(sim_ctr $SIM 0 violations)"
	cxb_del $SIM
}

cxb_load || { ktap_fail load "cannot load the modules"; ktap_finish; }

# Nothing is printed while runs go on: console output drains at host
# speed (QEMU's serial backend), its interrupts would land at times
# that differ from boot to boot.
log=
results=
# a line "ROW BURST|WHY" per point checked (WHY empty: the point is good)
verdicts=
for row in $ROWS; do
	for b in $BURSTS; do
		case $row in
		dummy)
			r=$(run_dummy "$b") || r=
			# shellcheck disable=SC2086
			set -- $r 0 0
			;;
		cx3-*)
			bf=off
			[ $row = cx3-bf ] && bf=on
			r=$(run_cx $bf "$b") || r=
			# shellcheck disable=SC2086
			set -- $r
			;;
		esac
		if [ -z "$r" ]; then
			verdicts="$verdicts
$row $b|run failed"
			continue
		fi
		results="$results
@@short row=$row burst=$b pkts=$2 elapsed_us=$1 db=$3 bf=$4"
		[ $row = dummy ] && continue
		log="$log
$row burst $b: $1 us, $2 pkts, sim db $3 bf $4, driver db $5 bf $6, stops $7, violations $8"
		why=
		if [ "$3" != "$5" ] || [ "$4" != "$6" ]; then
			why="sim db $3 bf $4, driver db $5 bf $6"
		elif [ "$7" != 0 ]; then
			why="the queue stopped $7 times (never does under -icount)"
		elif [ $((($3 + $4) * b)) != "$2" ]; then
			why="(db $3 + bf $4) x $b != $2 packets"
		elif [ "$8" != 0 ]; then
			why="$8 WQE violations"
		fi
		verdicts="$verdicts
$row $b|$why"
	done
done

printf '%s\n' "$log" "$results" | sed '/^$/d; s/^/# /'
for row in cx3-db cx3-bf; do
	for b in $BURSTS; do
		why=$(printf '%s\n' "$verdicts" | sed -n "s/^$row $b|//p")
		name=$(echo "${row}_burst${b}_doorbells_per_packet_is_1_over_burst" | tr - _)
		if [ -z "$why" ]; then
			ktap_ok "$name"
		else
			ktap_fail "$name" "$why"
		fi
	done
done

ktap_ok no_dma_leak eq "$(sim_dma_live)" 0 "live DMA mappings"
cxb_unload
ktap_finish
