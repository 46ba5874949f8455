# SPDX-License-Identifier: GPL-2.0
#
# Short benchmark sweep (issue "Deterministic pktgen benchmark"): the
# doorbell equation and run-to-run identical instruction counts.
#
# pktgen (/proc/net/pktgen directly: the suite boot carries no copy of
# the kernel's samples/pktgen scripts, which tools/testing/cxbell/bench/run
# uses) sends COUNT 60-byte packets, clone_skb 1000000, one queue, with
# burst 1 and 32, on two rows: dummy and cxbell cx3-db (1-port sim
# adapter, inline engine, blueflame off). Each (row, burst) runs twice,
# each time on a freshly created netdev (a new dummy, a new sim adapter),
# so both runs start from the same state.
#   - cxbell: sim doorbells + BF writes == tx_doorbells + tx_blueflame and
#     (doorbells + BF) x burst == packets sent when the queue never
#     stopped (always so under -icount); after S stops, between
#     sent / burst and ceil(sent / burst) + S
#   - both rows: the two runs' pktgen elapsed times are identical.
# Instruction counts are only deterministic in an -icount boot (vm-run
# --icount; tools/testing/cxbell/bench/run --test runs this file so).
# The suite boot has no -icount: there, the identity cases are skipped.
# The guest knows it runs under -icount,sleep=off from the clocks: idle
# guest time then passes without host time, so the RTC (host clock)
# stands still over a 3 s guest sleep.
#
#   bench.sh [--icount] [COUNT]   COUNT defaults to 20000; --icount: do
#                                 not guess, the boot is an -icount one
. /cxbell/lib.sh

icount=0
if [ "${1:-}" = --icount ]; then
	icount=1
	shift
fi
COUNT=${1:-20000}
BURSTS="1 32"
SIM=1

ktap_plan 6
no_ipv6
modprobe pktgen || true
modprobe dummy numdummies=0 2>/dev/null

# -icount,sleep=off: a 3 s guest sleep takes no host time.
rtc=/sys/class/rtc/rtc0/since_epoch
if [ $icount = 0 ] && [ -r $rtc ]; then
	r0=$(cat $rtc)
	sleep 3
	r1=$(cat $rtc)
	[ $((r1 - r0)) -le 1 ] && icount=1
fi
ktap_diag "icount: $icount"

# pg IF BURST: one pktgen run; prints "ELAPSED_US PKTS"
pg()
{
	_pg=/proc/net/pktgen
	pgset $_pg/kpktgend_0 rem_device_all || return 1
	pgset $_pg/kpktgend_0 "add_device $1" || return 1
	_d=$_pg/$1
	pgset "$_d" "count $COUNT" &&
	pgset "$_d" "pkt_size 60" &&
	pgset "$_d" "clone_skb 1000000" &&
	pgset "$_d" "burst $2" &&
	pgset "$_d" "delay 0" &&
	pgset "$_d" "flag NO_TIMESTAMP" &&
	pgset "$_d" "dst 198.18.0.42" &&
	pgset "$_d" "dst_mac 02:00:00:00:00:02" || return 1
	pgset $_pg/pgctrl start || return 1
	sed -n 's/^Result: OK: \([0-9]*\)(c[0-9]*+d[0-9]*) usec, \([0-9]*\) .*/\1 \2/p' "$_d"
	pgset $_pg/kpktgend_0 rem_device_all
}

carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }

# run_dummy BURST -> "ELAPSED PKTS"
run_dummy()
{
	ip link add d0 type dummy && ip link set d0 up || return 1
	pg d0 "$1"
	ip link del d0
}

# run_cx BURST -> "ELAPSED PKTS DB BF EDB EBF STOPS VIOL"
run_cx()
{
	cxb_new $SIM 1 || return 1
	_if=$(cxb_netdev $SIM 0) || return 1
	sim_engine $SIM inline &&
	ethtool -L "$_if" combined 1 &&
	ethtool --set-priv-flags "$_if" blueflame off &&
	ip link set "$_if" up || return 1
	wait_until 5 carrier "$_if" || return 1
	_r=$(pg "$_if" "$1") || return 1
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
db_ok=1
db_why=
for b in $BURSTS; do
	for rep in 1 2; do
		r=$(run_cx "$b") || { db_ok=0; db_why="cx3-db burst $b: run failed"; continue; }
		# shellcheck disable=SC2086
		set -- $r
		eval "cx_${b}_$rep=$1"
		log="$log
cx3-db burst $b run $rep: $1 us, $2 pkts, sim db $3 bf $4, driver db $5 bf $6, stops $7, violations $8"
		# Exact when the queue never stopped. A stop (possible without
		# icount: NAPI deferred to ksoftirqd lags pktgen) cuts a burst
		# short with a doorbell of its own: at most one more per stop.
		rings=$(($3 + $4))
		if [ "$7" = 0 ]; then
			lo=$(($2 / b)) hi=$(($2 / b))
			[ $((rings * b)) = "$2" ] || hi=-1
		else
			lo=$(($2 / b)) hi=$((($2 + b - 1) / b + $7))
		fi
		if [ $rings != $(($5 + $6)) ] || [ $rings -lt $lo ] ||
		   [ $rings -gt $hi ] || [ "$8" != 0 ]; then
			db_ok=0
			db_why="cx3-db burst $b: db $3 + bf $4 vs $2 pkts / $b (stops $7: $lo..$hi), driver $5+$6, violations $8"
		fi
		r=$(run_dummy "$b") || { eval "du_${b}_$rep=fail"; continue; }
		set -- $r
		eval "du_${b}_$rep=$1"
		log="$log
dummy burst $b run $rep: $1 us, $2 pkts"
	done
done

printf '%s\n' "$log" | sed '/^$/d; s/^/# /'
if [ $db_ok = 1 ]; then
	ktap_ok doorbells_per_packet_is_1_over_burst
else
	ktap_fail doorbells_per_packet_is_1_over_burst "$db_why"
fi

for b in $BURSTS; do
	for row in cx du; do
		name=$row
		[ $row = cx ] && name=cx3_db
		[ $row = du ] && name=dummy
		eval "a=\${${row}_${b}_1:-} c=\${${row}_${b}_2:-}"
		if [ -z "$a" ] || [ -z "$c" ] || [ "$a" = fail ] || [ "$c" = fail ]; then
			ktap_fail "${name}_burst${b}_identical_runs" "a run failed"
		elif [ $icount = 0 ]; then
			ktap_skip "${name}_burst${b}_identical_runs" \
				"needs -icount (tools/testing/cxbell/bench/run --test)"
		else
			ktap_ok "${name}_burst${b}_identical_runs" eq "$c" "$a" "elapsed us of run 2"
		fi
	done
done

ktap_ok no_dma_leak eq "$(sim_dma_live)" 0 "live DMA mappings"
cxb_unload
ktap_finish
