# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/test's ConnectX-3 point: the stock mlx4_core +
# mlx4_en on the QEMU ConnectX-3 model (vm-run --cx3 --icount), the
# benchmark's mlx4_en-norx row (cx3-setup.sh: both ports up, pause off)
# at one burst. pktgen (/proc/net/pktgen directly, as short-sweep.sh)
# sends COUNT 60-byte packets, clone_skb 1000000, from port 1 at burst
# 32 to a MAC no steering rule of port 2 matches, so the model drops
# every frame and no receive path runs. (With port 2 receiving, the
# same point stopped the queue once in both boots after a change of the
# model: with its receive work in the path the send completions came
# too late for the 1024-entry ring, and a stop cuts a burst. No run
# without a receiver has stopped at this point.) bench/test boots it
# twice and compares the two boots. KTAP case here:
#   mlx4_en_norx_burst32_doorbells_per_packet_is_1_over_burst
#       (send doorbells + BlueFlame writes) x 32 == packets sent, the
#       queue never stopped, model tx_frames == rx_dropped == packets,
#       rx_frames 0, 0 violations
# (send doorbells as cx3-stock.sh: the model's sq_doorbells, else
# doorbells - cq_arms - eq_doorbells or interrupts). And the line
#   # @@short row=mlx4_en-norx burst=32 pkts=P elapsed_us=E db=D bf=F
#
#   short-cx3.sh [COUNT]   COUNT defaults to 20000
. /cxbell/lib.sh
. /cxbell-run/cx3-setup.sh

COUNT=${1:-20000}
B=32

ktap_plan 1
no_ipv6
modprobe pktgen || true

# send doorbells between the snapshots b and a
send_db() { cx3_d sq_doorbells; }

point()
{
	setup_cx3 mlx4_en || { ktap_diag "$WHY"; return 1; }
	_m2=02:00:00:00:00:02
	snap_new b && snap_add b "" cx3_counters &&
	snap_add b e_ cxb_counters "$CX3_P1"
	_tx0=$(snap_get b tx_frames)
	_rx0=$(($(snap_get b rx_frames) + $(snap_get b rx_dropped)))
	pktgen_dev "$CX3_P1" "$COUNT" $B "$_m2" 60 1000000 198.18.0.42 NO_TIMESTAMP ||
		return 1
	pgset /proc/net/pktgen/pgctrl start || return 1
	_r=$(sed -n 's/^Result: OK: \([0-9]*\)(c[0-9]*+d[0-9]*) usec, \([0-9]*\) .*/\1 \2/p' \
		"/proc/net/pktgen/$CX3_P1")
	pktgen_rem_all
	wait_until 10 cx3_rx_done
	sleep 0.3
	snap_new a && snap_add a "" cx3_counters &&
	snap_add a e_ cxb_counters "$CX3_P1"
	# shellcheck disable=SC2086
	set -- $_r
	[ $# = 2 ] || { ktap_diag "no pktgen result"; return 1; }
	_db=$(send_db) _bf=$(cx3_d bf_writes)
	# (printed at the end: console output during the run would land
	# its interrupts at host-dependent times)
	ktap_diag "mlx4_en-norx burst $B: $1 us, $2 pkts, send db $_db bf $_bf," \
		"queue_stopped $(cx3_d e_queue_stopped)," \
		"model tx_frames $(cx3_d tx_frames) rx_frames $(cx3_d rx_frames)" \
		"rx_dropped $(cx3_d rx_dropped), violations $(cx3_d violations)"
	echo "# @@short row=mlx4_en-norx burst=$B pkts=$2 elapsed_us=$1 db=$_db bf=$_bf"
	_rc=0
	eq $(((_db + _bf) * B)) "$2" "(send db + bf) x $B vs packets" || _rc=1
	eq "$(cx3_d e_queue_stopped)" 0 "queue_stopped" || _rc=1
	eq "$(cx3_d tx_frames)" "$2" "model tx_frames" || _rc=1
	eq "$(cx3_d rx_dropped)" "$2" "model rx_dropped" || _rc=1
	eq "$(cx3_d rx_frames)" 0 "model rx_frames" || _rc=1
	eq "$(cx3_d violations)" 0 "model violations" || _rc=1
	cx3_unload || { ktap_diag "$WHY"; _rc=1; }
	return $_rc
}

ktap_ok mlx4_en_norx_burst32_doorbells_per_packet_is_1_over_burst point
ktap_finish
