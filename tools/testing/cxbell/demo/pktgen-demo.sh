# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/run-demo.sh: xmit_more doorbell batching on a
# simulated ConnectX-3. Creates sim adapter 1 (2 ports, cabled back to
# back), brings port 1 up as the receiver, runs pktgen on port 0 with
# 60-byte packets for burst 1, 2, 8, 32, 64 and prints one table per sim
# engine:
#   burst | pkts | Mpps | doorbells/pkt | xmit_more/pkt | peer rx
# Counters are ethtool -S (port 0 tx, port 1 rx) and the sim's debugfs
# counters, as deltas around each run; doorbells are what the sim saw:
# send doorbell register writes plus BlueFlame writes.
#
#   pktgen-demo.sh [--icount] [COUNT [ENGINE...]]
#     --icount  the VM runs with -icount (label the rate as virtual time)
#     COUNT     packets per run, default 102400
#     ENGINE    inline (default) and/or deferred
. /cxbell/lib.sh

clock="TCG, noisy"
if [ "${1:-}" = --icount ]; then
	clock="icount, virtual"
	shift
fi
COUNT=${1:-102400}
[ $# -gt 0 ] && shift
ENGINES=${*:-inline}

no_ipv6
cxb_load && cxb_new 1 2 || { echo "demo: cannot create the sim adapter"; exit 1; }
p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || { echo "demo: no netdevs"; exit 1; }
for d in $p1 $p0; do
	ethtool -L "$d" combined 1 >/dev/null 2>&1
	ip link set "$d" up
done
carrier_up() { [ "$(cat "/sys/class/net/$p0/carrier")" = 1 ]; }
wait_until 5 carrier_up || { echo "demo: no carrier"; exit 1; }
modprobe pktgen || exit 1
mac=$(cat "/sys/class/net/$p1/address")

echo
echo "cxbell demo: pktgen on $p0 -> $p1 (sim adapter 1), $COUNT x 60-byte packets per run"
if [ "$clock" = "TCG, noisy" ]; then
	echo "Mpps is pktgen's rate on TCG-emulated CPUs (wall clock, noisy); the"
else
	echo "Mpps is pktgen's rate in -icount virtual time (1 insn = 1 ns); the"
fi
echo "doorbell columns are exact (doorbells = UAR doorbell + BlueFlame writes the"
echo "sim saw)."
rc=0
for engine in $ENGINES; do
	sim_engine 1 "$engine" || exit 1
	echo
	echo "sim engine: $engine"
	printf '%6s | %8s | %22s | %13s | %13s | %8s\n' burst pkts \
		"Mpps ($clock)" doorbells/pkt xmit_more/pkt "peer rx"
	echo "-------+----------+------------------------+---------------+---------------+---------"
	for burst in 1 2 8 32 64; do
		db0=$(($(sim_ctr 1 0 doorbells) + $(sim_ctr 1 0 bf_writes)))
		xm0=$(cxb_stat "$p0" tx_xmit_more)
		rx0=$(cxb_stat "$p1" rx_packets)
		res=$(pktgen_run "$p0" "$COUNT" "$burst" "$mac" 60) || { rc=1; continue; }
		pps=${res% *}
		sent=${res#* }
		want=$((rx0 + sent))
		rx_done() { [ "$(cxb_stat "$p1" rx_packets)" -ge "$want" ]; }
		wait_until 5 rx_done
		db=$(($(sim_ctr 1 0 doorbells) + $(sim_ctr 1 0 bf_writes) - db0))
		xm=$(($(cxb_stat "$p0" tx_xmit_more) - xm0))
		rx=$(($(cxb_stat "$p1" rx_packets) - rx0))
		echo "$burst $sent $pps $db $xm $rx" | awk '{
			printf "%6d | %8d | %22.3f | %13.4f | %13.4f | %8d\n",
				$1, $2, $3 / 1e6, $4 / $2, $5 / $2, $6 }'
	done
done
echo
echo "doorbells/pkt = 1/burst: one doorbell per pktgen burst (xmit_more)."

rmmod pktgen
cxb_del 1
cxb_unload
exit $rc
