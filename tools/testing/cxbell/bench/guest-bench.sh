# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/testing/cxbell/bench/run (runs under vm-run, as
# `sh guest-bench.sh ...`, dash). For every (row, burst) it runs the
# kernel's samples/pktgen/pktgen_sample03_burst_single_flow.sh (with bash,
# both passed in by the host with --file) on the row's netdev and prints
# one machine-readable line
#
#   @@bench row=ROW burst=B ring=R size=S queues=Q rep=N pkts=P \
#           elapsed_ns=E k=DELTA ...
#
# (all of them after the last run, see below)
#
# where elapsed_ns is pktgen's elapsed time (microseconds from its Result
# line, times 1000: guest instructions under -icount) and the k=DELTA
# pairs are deltas around the run of: every ethtool -S counter of the
# netdev (e.NAME), every sim debugfs counter of port 0 (s.NAME, cxbell
# rows), the sim adapter's dma_ns and dma_calls (a.NAME: time in its
# IOMMU model's map/unmap) and the netdev's interrupts from
# /proc/interrupts (i.irqs).
#
#   guest-bench.sh [OPTIONS]
#     --count N        packets per run (default 100000)
#     --bursts "B..."  bursts (default "1 2 4 8 16 32 64 128")
#     --rows "R..."    rows (default: all, see row_setup below)
#     --reps N         runs per point (default 1; 2 = run-to-run check)
#     --growth W       also the growth sweep W (ring, size, queues), at
#                      burst 32; repeatable
#     --perf ROW:B     record a cpu-clock profile of ROW at burst B with
#                      perf (passed in at /cxbell-run/perf): @@prof lines
#
# Rows: dummy, e1000e, virtio (QEMU devices the host added), and cxbell
# on a 1-port sim adapter (inline engine; its frames are discarded after
# execution, so no receive path runs):
#   cx3-db         4-byte doorbells (blueflame off)
#   cx3-bf         BlueFlame on
#   cx3-db-opt1    doorbell_opt 1 (avoidance), blueflame off
#   cx3-db-opt3    doorbell_opt 3 (avoidance, plain store), blueflame off
#   cx3-db-inline  tx-copybreak 464 (inline), blueflame off
#   cx3-bf-inline  tx-copybreak 464, BlueFlame on
# and on a 1-port cx5 sim adapter (mlx5 send queues, 64-bit doorbells):
#   cx5            tx_mpwqe off (a SEND WQE per packet)
#   cx5-mpwqe      tx_mpwqe on (enhanced multi-packet WQEs)
#   cx5-mpwqe-inline  tx_mpwqe on, tx-copybreak 464 (inline segments)
#   cx5-bf         tx_mpwqe off, BlueFlame on (the WQE each doorbell
#                  names, in the write)
# and on a 1-port cx4 sim adapter (the mlx5 formats, minimum inline L2):
#   cx4            a SEND WQE per packet, its first 18 bytes inline
# and XDP on a 2-port cx3 sim adapter (inline engine, one channel each;
# pktgen on port 0, programs loaded by Debian's xdp-bench; in the default
# rows at burst 64 only, the NAPI budget, as ROW@64: a row written
# ROW@B runs at burst B whatever --bursts says):
#   xdp-drop       XDP_DROP on port 1 (xdp-bench drop)
#   xdp-drop-f     XDP_DROP on port 1 by xdp-filter's deny-all object
#                  (ip link ... xdpdrv obj): the sink's cost
#   xdp-tx         XDP_TX on port 1 (xdp-bench tx -p swap-macs), one
#                  doorbell per NAPI poll; the frames coming back are
#                  dropped at port 0 by the same deny-all object
#   xdp-tx-pp      the same with debugfs xdp_tx_doorbell_per_packet 1
# Their lines carry port 1's ethtool counters (p.NAME) and sim counters
# (s1.NAME) too.
# And on the QEMU ConnectX-3 model (vm-run --cx3: bench/run's second
# icount boot, a q35 machine, with its own dummy floor row; not in the
# default rows), pktgen on port 1 to port 2's MAC (the ports are cabled,
# both up, 802.3x pause off on both: see setup_cx3), one TX ring,
# default moderation and private flags (BlueFlame on):
#   mlx4_en        the stock mlx4_core + mlx4_en
#   cx3-hw         cxbell_mlx4 (cxbell as a client of the stock
#                  mlx4_core), loaded as README's "On a ConnectX host"
#                  says: contrib/modprobe/cxbell-mlx4.conf in
#                  /etc/modprobe.d (the host passes it in) and kmod's
#                  modprobe (in the initramfs) as the kernel's module
#                  helper
#   mlx4_en-norx, cx3-hw-norx
#                  the same, pktgen to a MAC that no steering rule of
#                  port 2 matches (02:00:00:00:00:02): the model drops
#                  every frame (rx_dropped) and no receive path runs in
#                  the guest, as in the sim rows (frames discarded) and
#                  e1000e/virtio (a hub port that swallows them)
# Their lines carry every counter of the model (m.NAME, cx3stat: both
# ports) and port 2's ethtool counters (p.NAME). A row whose setup fails
# prints "@@bench-failed row=ROW why=TEXT" instead of results.
. /cxbell/lib.sh
# setup_cx3 (the ConnectX-3 model's rows), passed in by bench/run
. /cxbell-run/cx3-setup.sh

COUNT=100000
BURSTS="1 2 4 8 16 32 64 128"
ROWS="dummy e1000e virtio cx3-db cx3-bf cx3-db-opt1 cx3-db-opt3 cx3-db-inline cx3-bf-inline cx5 cx5-mpwqe cx5-mpwqe-inline cx5-bf cx4 xdp-drop@64 xdp-drop-f@64 xdp-tx@64 xdp-tx-pp@64"
REPS=1
GROWTH=
PERF=
while [ $# -gt 0 ]; do
	case $1 in
	--count) COUNT=$2; shift ;;
	--bursts) BURSTS=$2; shift ;;
	--rows) ROWS=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--growth) GROWTH="$GROWTH $2"; shift ;;
	--perf) PERF="$PERF $2"; shift ;;
	*) echo "guest-bench: unknown option $1"; exit 2 ;;
	esac
	shift
done

SAMPLE=/cxbell-run/pktgen/pktgen_sample03_burst_single_flow.sh
BASH=/bin/bash
DST_IP=198.18.0.42
DST_MAC=02:00:00:00:00:02
SIM=1		# the current row's sim adapter: 1 (cx3), 4 (cx4) or 5 (cx5)

no_ipv6
modprobe pktgen || exit 1

# netdev bound to the PCI driver $1
pci_netdev()
{
	for _n in /sys/class/net/*; do
		# (virtio: the netdev's device is the virtio device)
		[ "$(basename "$(readlink -f "$_n/device/driver" 2>/dev/null)")" = "$1" ] &&
			{ basename "$_n"; return 0; }
	done
	return 1
}

up_wait()
{
	ip link set "$1" up || return 1
	_if=$1
	carrier() { [ "$(cat "/sys/class/net/$_if/carrier" 2>/dev/null)" = 1 ]; }
	wait_until 10 carrier
}

DEV_dummy='' DEV_dummy_mq='' DEV_e1000e='' DEV_virtio='' DEV_cx='' DEV_cx4='' DEV_cx5=''
DEV_xa='' DEV_xb='' XDP_PID='' XDP_PIF='' XDP_MODE='' PEER=''
setup_dummy()
{
	[ -n "$DEV_dummy" ] && return 0
	modprobe dummy numdummies=0 2>/dev/null
	ip link add d0 type dummy && up_wait d0 && DEV_dummy=d0
}

setup_e1000e()
{
	[ -n "$DEV_e1000e" ] && return 0
	modprobe e1000e || return 1
	wait_until 5 pci_netdev e1000e >/dev/null || return 1
	DEV_e1000e=$(pci_netdev e1000e) && up_wait "$DEV_e1000e"
}

setup_virtio()
{
	[ -n "$DEV_virtio" ] && return 0
	modprobe virtio_pci 2>/dev/null
	modprobe virtio_net || return 1
	wait_until 5 pci_netdev virtio_net >/dev/null || return 1
	DEV_virtio=$(pci_netdev virtio_net) && up_wait "$DEV_virtio"
}

# setup_cx [cx5|cx4]: the 1-port sim adapter of the generation, as SIM
setup_cx()
{
	if [ "${1:-}" = cx5 ]; then
		SIM=5
		[ -n "$DEV_cx5" ] && return 0
	elif [ "${1:-}" = cx4 ]; then
		SIM=4
		[ -n "$DEV_cx4" ] && return 0
	else
		SIM=1
		[ -n "$DEV_cx" ] && return 0
	fi
	cxb_load && cxb_new $SIM 1 "${1:-}" || return 1
	sim_engine $SIM inline || return 1
	# IOMMU passthrough (set while nothing is mapped): a map costs what
	# dma-direct costs on a host without an IOMMU, not the model's
	# tracked records. CXB_BENCH_IOMMU=strict keeps the checking model.
	echo "${CXB_BENCH_IOMMU:-passthrough}" \
		>/sys/kernel/debug/cxbell_sim/cxbell_sim$SIM/iommu || return 1
	_d=$(cxb_netdev $SIM 0) || return 1
	case $SIM in
	5) DEV_cx5=$_d ;;
	4) DEV_cx4=$_d ;;
	*) DEV_cx=$_d ;;
	esac
	ethtool -L "$_d" combined 1 || return 1
	up_wait "$_d"
}

# The XDP rows' 2-port adapter 3: DEV_xa sends, DEV_xb runs the program.
setup_xdp_pair()
{
	SIM=3
	[ -n "$DEV_xa" ] && return 0
	cxb_load && cxb_new 3 2 || return 1
	sim_engine 3 inline || return 1
	echo "${CXB_BENCH_IOMMU:-passthrough}" \
		>/sys/kernel/debug/cxbell_sim/cxbell_sim3/iommu || return 1
	DEV_xa=$(cxb_netdev 3 0) && DEV_xb=$(cxb_netdev 3 1) || return 1
	for _d in $DEV_xa $DEV_xb; do
		ethtool -L "$_d" combined 1 || return 1
		ethtool --set-priv-flags "$_d" blueflame off || return 1
	done
	ip link set "$DEV_xb" up || return 1
	up_wait "$DEV_xa" || return 1
	mkdir -p /sys/fs/bpf
	grep -q ' /sys/fs/bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf
}

xdp_on() { ip link show dev "$1" | grep -q 'prog/xdp'; }
xdp_off() { ! xdp_on "$1"; }
XDP_SINK=/usr/lib/x86_64-linux-gnu/bpf/xdpfilt_dny_all.o

# xdp_set IF WHAT: the program on IF: "none", "sink" (xdp-filter's
# deny-all object through ip: drops the pktgen frames) or "bench MODE..."
# (Debian's xdp-bench, one instance at a time: it holds a lock)
xdp_set()
{
	_if=$1
	shift
	if [ -n "$XDP_PID" ] && [ "$XDP_PIF" = "$_if" ]; then
		kill -INT "$XDP_PID" 2>/dev/null
		wait "$XDP_PID" 2>/dev/null
		XDP_PID=''
	fi
	ip link set dev "$_if" xdpdrv off 2>/dev/null
	wait_until 10 xdp_off "$_if" || return 1
	case $1 in
	none) return 0 ;;
	sink) ip link set dev "$_if" xdpdrv obj $XDP_SINK sec xdp || return 1 ;;
	bench)
		shift
		# stats every 60 s: out of the runs' way
		xdp-bench "$@" "$_if" -i 60 >/tmp/xdp-bench.log 2>&1 &
		XDP_PID=$! XDP_PIF=$_if ;;
	esac
	wait_until 20 xdp_on "$_if" ||
		{ echo "guest-bench: no XDP program on $_if:"; cat /tmp/xdp-bench.log; return 1; }
}

# setup_xdp ROW
setup_xdp()
{
	setup_xdp_pair || return 1
	IF=$DEV_xa KIND=xdp PEER=$DEV_xb
	# the sim's port filters by destination: the program's port's own
	DST_MAC=$(cat "/sys/class/net/$DEV_xb/address")
	_dbg=/sys/kernel/debug/cxbell/$(basename "$(readlink "/sys/class/net/$DEV_xb/device")")/xdp_tx_doorbell_per_packet
	case $1 in
	xdp-drop) _mb="bench drop" _ma=none _pp=0 ;;
	xdp-drop-f) _mb=sink _ma=none _pp=0 ;;
	xdp-tx) _mb="bench tx -p swap-macs" _ma=sink _pp=0 ;;
	xdp-tx-pp) _mb="bench tx -p swap-macs" _ma=sink _pp=1 ;;
	*) echo "guest-bench: unknown row $1"; return 1 ;;
	esac
	echo $_pp >"$_dbg" || return 1
	if [ "$XDP_MODE" != "$_mb/$_ma" ]; then
		# shellcheck disable=SC2086
		xdp_set "$DEV_xb" $_mb || return 1
		xdp_set "$DEV_xa" $_ma || return 1
		XDP_MODE="$_mb/$_ma"
	fi
}

# row_setup ROW: configure the row, set IF (its netdev) and KIND.
row_setup()
{
	PEER=
	DST_MAC=02:00:00:00:00:02
	case $1 in
	xdp-*) setup_xdp "$1" || return 1 ;;
	dummy) setup_dummy && IF=$DEV_dummy KIND=peer ;;
	dummy-mq)
		# the floor of the queue sweep: a dummy with 8 TX queues
		if [ -z "$DEV_dummy_mq" ]; then
			modprobe dummy numdummies=0 2>/dev/null
			ip link add d8 numtxqueues 8 type dummy && up_wait d8 &&
				DEV_dummy_mq=d8 || return 1
		fi
		IF=$DEV_dummy_mq KIND=peer ;;
	e1000e) setup_e1000e && IF=$DEV_e1000e KIND=peer ;;
	virtio) setup_virtio && IF=$DEV_virtio KIND=peer ;;
	# (before cx3-*: cx3-hw is not a sim row)
	mlx4_en|cx3-hw|mlx4_en-norx|cx3-hw-norx)
		_drv=mlx4_en
		case $1 in
		cx3-hw*) _drv=cxbell_mlx4 ;;
		esac
		setup_cx3 $_drv || return 1
		IF=$CX3_P1 KIND=model PEER=$CX3_P2
		case $1 in
		*-norx) ;;
		*) DST_MAC=$(cat "/sys/class/net/$CX3_P2/address") ;;
		esac
		;;
	cx3-*)
		setup_cx || return 1
		IF=$DEV_cx KIND=cx
		_bf=off _opt=0 _cb=0
		case $1 in
		cx3-bf*) _bf=on ;;
		esac
		case $1 in
		*-opt1) _opt=1 ;;
		*-opt3) _opt=3 ;;
		esac
		case $1 in
		*-inline) _cb=464 ;;
		esac
		ethtool --set-priv-flags "$IF" blueflame $_bf 2>/dev/null
		[ "$(cxb_priv_flag "$IF" blueflame)" = $_bf ] ||
			{ echo "guest-bench: blueflame $_bf failed"; return 1; }
		echo $_opt >"/sys/class/net/$IF/doorbell_opt" || return 1
		ethtool --set-tunable "$IF" tx-copybreak $_cb || return 1
		;;
	cx5|cx5-mpwqe|cx5-mpwqe-inline|cx5-bf)
		setup_cx cx5 || return 1
		IF=$DEV_cx5 KIND=cx
		_mpw=on _cb=0 _bf=off
		case $1 in
		cx5|cx5-bf) _mpw=off ;;
		esac
		[ "$1" = cx5-bf ] && _bf=on
		[ "$1" = cx5-mpwqe-inline ] && _cb=464
		ethtool --set-priv-flags "$IF" tx_mpwqe $_mpw blueflame $_bf ||
			return 1
		[ "$(cxb_priv_flag "$IF" tx_mpwqe)" = $_mpw ] &&
		[ "$(cxb_priv_flag "$IF" blueflame)" = $_bf ] ||
			{ echo "guest-bench: tx_mpwqe $_mpw blueflame $_bf failed"; return 1; }
		echo 0 >"/sys/class/net/$IF/doorbell_opt" || return 1
		ethtool --set-tunable "$IF" tx-copybreak $_cb || return 1
		;;
	cx4)
		setup_cx cx4 || return 1
		IF=$DEV_cx4 KIND=cx
		echo 0 >"/sys/class/net/$IF/doorbell_opt" || return 1
		ethtool --set-tunable "$IF" tx-copybreak 0 || return 1
		;;
	*) echo "guest-bench: unknown row $1"; return 1 ;;
	esac
}

# All counters of the current row as "name value" lines.
snap()
{
	ethtool -S "$IF" 2>/dev/null | awk -F': *' 'NF == 2 && $2 ~ /^[0-9]+$/ {
		gsub(/^ +/, "", $1); print "e." $1, $2 }'
	if [ -n "$PEER" ]; then
		ethtool -S "$PEER" 2>/dev/null | awk -F': *' 'NF == 2 && $2 ~ /^[0-9]+$/ {
			gsub(/^ +/, "", $1); print "p." $1, $2 }'
		[ "$KIND" = xdp ] &&
			grep -H . "$CXB_DBG/cxbell_sim$SIM/port1"/* |
			sed -n 's|^.*/\([a-z_0-9]*\):\([0-9][0-9]*\)$|s1.\1 \2|p'
	fi
	# the ConnectX-3 model: all its counters (both ports)
	[ "$KIND" = model ] && cx3stat | awk '$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^[0-9]+$/ {
		print "m." $1, $2 }'
	if [ "$KIND" = cx ] || [ "$KIND" = xdp ]; then
		# one grep for all files: "path:value"
		grep -H . "$CXB_DBG/cxbell_sim$SIM/port0"/* |
			sed -n 's|^.*/\([a-z_0-9]*\):\([0-9][0-9]*\)$|s.\1 \2|p'
		# adapter level: the IOMMU model's own time (dma_ns, dma_calls)
		for _f in dma_ns dma_calls; do
			[ -r "$CXB_DBG/cxbell_sim$SIM/$_f" ] &&
				echo "a.$_f $(cat "$CXB_DBG/cxbell_sim$SIM/$_f")"
		done
	fi
	# interrupts of the netdev (e1000e: eth0-rx-0, ...; virtio:
	# virtioN-output.0 ...; cxbell's are not in /proc/interrupts)
	_vpat=none
	[ "$IF" = "$DEV_virtio" ] && _vpat=$(basename "$(readlink -f "/sys/class/net/$IF/device")")
	awk -v i="$IF" -v v="$_vpat" '$NF ~ "^" i "(-|$)" || $NF ~ "^" v "-" {
		for (k = 2; k <= NF && $k ~ /^[0-9]+$/; k++) s += $k }
		END { print "i.irqs", s + 0 }' /proc/interrupts
}

delta()
{
	awk 'NR == FNR { a[$1] = $2; next } ($1 in a) {
		printf " %s=%d", $1, $2 - a[$1] }' "$1" "$2"
}

# run_one ROW BURST SIZE [EXTRA]: one pktgen run, prints the @@bench line
run_one()
{
	_row=$1 _b=$2 _sz=$3 _extra=${4:-}
	progress "$_row" "$_b"
	_ring=$(ethtool -g "$IF" 2>/dev/null | awk '/^Current/ { c = 1 } c && $1 == "TX:" { print $2; exit }')
	snap >/tmp/s0
	_rx0=$(awk '$1 == "m.rx_frames" || $1 == "m.rx_dropped" { r += $2 }
		END { print r + 0 }' /tmp/s0)
	_tx0=$(awk '$1 == "m.tx_frames" { t = $2 } END { print t + 0 }' /tmp/s0)
	# pktgen's own sample script: -i dev, -m dst MAC, -d dst IP, -s size,
	# -n count, -b burst, -c clone_skb, -t 1 thread (kpktgend_0, queue 0)
	"$BASH" "$SAMPLE" -i "$IF" -m $DST_MAC -d $DST_IP -s "$_sz" \
		-n "$COUNT" -b "$_b" -c 1000000 -t 1 >/tmp/pg.out 2>&1
	_rc=$?
	if [ "$KIND" = model ]; then
		# (after pktgen's own timing: its elapsed time is not affected)
		wait_until 10 cx3_rx_done
		sleep 0.3
	fi
	snap >/tmp/s1
	# "Result: OK: 70000(c69000+d1000) usec, 100000 (60byte,0frags)"
	_res=$(sed -n 's/^Result: OK: \([0-9]*\)(c\([0-9]*\)+d\([0-9]*\)) usec, \([0-9]*\) .*/\1 \4/p' /tmp/pg.out)
	if [ $_rc != 0 ] || [ -z "$_res" ]; then
		echo "guest-bench: $_row burst $_b: pktgen failed (rc $_rc):"
		sed 's/^/guest-bench:   /' /tmp/pg.out
		return 1
	fi
	set -- $_res
	[ "$KIND" = model ] && _extra="$_extra pause=$PAUSE"
	echo "@@bench row=$_row burst=$_b ring=${_ring:-0} size=$_sz queues=1$_extra pkts=$2 elapsed_ns=$(($1 * 1000))$(delta /tmp/s0 /tmp/s1)" >>/tmp/bench.lines
}

# run_queues ROW Q: burst 32, 60 B, Q pktgen devices on kpktgend_0, one
# per TX queue; elapsed = the longest device's, pkts = the sum.
run_queues()
{
	_row=$1 _q=$2 _pg=/proc/net/pktgen
	progress "$_row" "q$_q"
	_ring=$(ethtool -g "$IF" 2>/dev/null | awk '/^Current/ { c = 1 } c && $1 == "TX:" { print $2; exit }')
	pgset $_pg/kpktgend_0 rem_device_all || return 1
	_i=0
	while [ $_i -lt "$_q" ]; do
		_d=$_pg/$IF@$_i
		pgset $_pg/kpktgend_0 "add_device $IF@$_i" &&
		pgset "$_d" "count $((COUNT / _q))" &&
		pgset "$_d" "pkt_size 60" &&
		pgset "$_d" "clone_skb 1000000" &&
		pgset "$_d" "burst 32" &&
		pgset "$_d" "delay 0" &&
		pgset "$_d" "flag NO_TIMESTAMP" &&
		pgset "$_d" "queue_map_min $_i" &&
		pgset "$_d" "queue_map_max $_i" &&
		pgset "$_d" "dst $DST_IP" &&
		pgset "$_d" "dst_mac $DST_MAC" || return 1
		_i=$((_i + 1))
	done
	snap >/tmp/s0
	pgset $_pg/pgctrl start || return 1
	snap >/tmp/s1
	_res=$(for _f in $_pg/"$IF"@*; do
		sed -n 's/^Result: OK: \([0-9]*\)(c[0-9]*+d[0-9]*) usec, \([0-9]*\) .*/\1 \2/p' "$_f"
	done | awk '{ if ($1 > e) e = $1; p += $2; n++ } END { if (n) print e, p, n }')
	pgset $_pg/kpktgend_0 rem_device_all
	set -- $_res
	if [ "${3:-0}" != "$_q" ]; then
		echo "guest-bench: $_row $_q queues: results of ${3:-0} devices"
		return 1
	fi
	echo "@@bench row=$_row burst=32 ring=${_ring:-0} size=60 queues=$_q rep=1 sweep=queues pkts=$2 elapsed_ns=$(($1 * 1000))$(delta /tmp/s0 /tmp/s1)" >>/tmp/bench.lines
}

# Results are printed at the end: console output drains at host speed
# (QEMU's serial backend), so its interrupts would land in the runs at
# times that differ from boot to boot.
# Progress goes to the host as "@@progress N TOTAL ROW BURST" when point
# N of TOTAL starts, on QEMU's isa-debugcon port (debugcon.c), which
# bench/run reads from a file: no guest interrupt.
NPOINT=0 TOTAL=0
for row in $ROWS; do
	case $row in
	*@*) set -- ${row#*@} ;;
	*) set -- $BURSTS ;;
	esac
	TOTAL=$((TOTAL + $# * REPS))
done
for g in $GROWTH; do
	case $g in
	ring) TOTAL=$((TOTAL + 6)) ;;
	size) TOTAL=$((TOTAL + 24)) ;;
	queues) TOTAL=$((TOTAL + 8)) ;;
	esac
done
progress()
{
	NPOINT=$((NPOINT + 1))
	debugcon @@progress $NPOINT $TOTAL "$@" 2>/dev/null
}
: >/tmp/bench.lines
rc=0
for row in $ROWS; do
	WHY=
	bl=$BURSTS
	case $row in
	*@*) bl=${row#*@} row=${row%@*} ;;
	esac
	if ! row_setup "$row"; then
		echo "guest-bench: row $row: setup failed${WHY:+: $WHY}"
		echo "@@bench-failed row=$row why=${WHY:-setup failed}" >>/tmp/bench.lines
		rc=1
		continue
	fi
	rep=1
	while [ $rep -le "$REPS" ]; do
		for b in $bl; do
			run_one "$row" "$b" 60 " rep=$rep" || rc=1
		done
		rep=$((rep + 1))
	done
done

# Growth sweeps, burst 32, one run per point.
for g in $GROWTH; do
	case $g in
	ring)
		row_setup cx3-db || { rc=1; continue; }
		for r in 256 512 1024 2048 4096 8192; do
			ethtool -G "$IF" tx "$r" || { rc=1; continue; }
			up_wait "$IF"
			run_one cx3-db 32 60 " rep=1 sweep=ring" || rc=1
		done
		ethtool -G "$IF" tx 1024
		up_wait "$IF"
		;;
	size)
		for row in dummy e1000e cx3-db cx3-db-inline; do
			row_setup $row || { rc=1; continue; }
			for s in 64 128 256 512 1024 1500; do
				run_one $row 32 $s " rep=1 sweep=size" || rc=1
			done
		done
		;;
	queues)
		# Q TX queues fed by the one pktgen thread (one CPU): Q pktgen
		# devices IF@0..IF@Q-1, each pinned to its queue, COUNT/Q
		# packets each; the thread serves them in turn, a burst each.
		for row in dummy-mq cx3-db; do
			row_setup $row || { rc=1; continue; }
			for q in 1 2 4 8; do
				if [ "$KIND" = cx ]; then
					ethtool -L "$IF" combined $q || { rc=1; continue; }
					up_wait "$IF"
				fi
				run_queues $row $q || rc=1
			done
			[ "$KIND" = cx ] && { ethtool -L "$IF" combined 1; up_wait "$IF"; }
		done
		;;
	*) echo "guest-bench: unknown growth sweep $g"; rc=1 ;;
	esac
done

cat /tmp/bench.lines

# Profiles: perf record -e cpu-clock (an hrtimer: no PMU needed) over one
# run, all CPUs, with call chains. Folded here into one line per
# (category, owner) with its sample count:
#   @@prof row=ROW burst=B period=NS cat=CAT owner=SYM n=N
# over the samples of the transmit path's threads (kpktgend_0, and
# ksoftirqd/0 for deferred softirqs). A sample that falls in an irqs-off
# section is taken when interrupts come back on, on the unlock: its owner
# is the first frame that is not an irq-enabling unlock, i.e. the
# function that held the lock. Category by the frames of the chain:
#   engine   under the sim's timed entry points (in engine_ns)
#   simdma   other sim code: its dma_map_ops (IOMMU model), untimed
#   driver   other code of the row's driver (cxb_*; e1000*; virtnet_*,
#            virtqueue_*, vring_*, virtio_*, vp_*; dummy_*)
#   stack    the rest (pktgen, the stack, RCU, ...)
PERIOD=20000
for p in $PERF; do
	row=${p%%:*} b=${p#*:}
	row_setup "$row" || { rc=1; continue; }
	/cxbell-run/perf record -q -e cpu-clock -c $PERIOD -a -g -o /tmp/perf.data -- \
		"$BASH" "$SAMPLE" -i "$IF" -m $DST_MAC -d $DST_IP -s 60 \
		-n "$COUNT" -b "$b" -c 1000000 -t 1 >/tmp/pg.out 2>&1 ||
		{ cat /tmp/pg.out; rc=1; continue; }
	echo "@@perf-result $(grep '^Result' /tmp/pg.out)"
	# the row's driver, by symbol prefix
	case $row in
	dummy*) drv='^dummy_' ;;
	e1000e) drv='^e1000' ;;
	virtio) drv='^(virtnet_|virtqueue_|vring_|virtio_|vp_)' ;;
	*) drv='^cxb_' ;;
	esac
	/cxbell-run/perf script -i /tmp/perf.data -F comm,ip,sym 2>/dev/null |
	awk -v row="$row" -v b="$b" -v period=$PERIOD -v drv="$drv" '
	function flush(   i, owner, cat, f) {
		if (n == 0 || (comm != "kpktgend_0" && comm != "ksoftirqd/0")) {
			n = 0
			return
		}
		owner = ""
		cat = "stack"
		for (i = 1; i <= n; i++) {
			f = fr[i]
			if (owner == "" && f !~ /^_raw_(spin|read|write)_unlock_irq/)
				owner = f
			if (f ~ /^cxb_sim_(mmio_notify|sq_work|sq_resume|pause_timer)$/)
				cat = "engine"
			else if (f ~ /^cxb_sim_/ && cat != "engine")
				cat = "simdma"
			else if (f ~ drv && cat == "stack")
				cat = "driver"
		}
		if (owner == "")
			owner = fr[1]
		cnt[cat " " owner]++
		n = 0
	}
	/^[^ \t]/ { flush(); comm = $1; next }
	/^[ \t]+[0-9a-f]+ / { fr[++n] = $2; next }
	/^$/ { flush() }
	END {
		flush()
		for (k in cnt) {
			split(k, a, " ")
			printf "@@prof row=%s burst=%s period=%d cat=%s owner=%s n=%d\n",
				row, b, period, a[1], a[2], cnt[k]
		}
	}'
done

[ -n "$DEV_xa" ] && { xdp_set "$DEV_xb" none; xdp_set "$DEV_xa" none; }
[ -n "$DEV_cx" ] && cxb_del 1
[ -n "$DEV_cx5" ] && cxb_del 5
[ -n "$DEV_cx4" ] && cxb_del 4
[ -n "$DEV_xa" ] && cxb_del 3
[ -n "$DEV_cx$DEV_cx4$DEV_cx5$DEV_xa" ] && cxb_unload
[ -n "$CX3_DRV" ] && { cx3_unload || { echo "guest-bench: $WHY"; rc=1; }; }
exit $rc
