# SPDX-License-Identifier: GPL-2.0
#
# The stock mlx4_core + mlx4_en of the Debian kernel, unchanged, on the
# QEMU ConnectX-3 model (vm-run --cx3; run-tests boots tests/cx3-*.sh so):
# the proof that the model speaks the hardware's dialect.
#
# Bring-up (needs the model's command interface, EQs and ports):
#   probe_clean       modprobe mlx4_core (debug_level=1, for the lines of
#                     mlx4_dbg below) + mlx4_en: the lines of a good probe
#                     are there ("Mellanox ConnectX core driver",
#                     "Initializing BDF", "NOP command IRQ test passed",
#                     "Mellanox ConnectX HCA Ethernet driver", "Activating
#                     port:1" and ":2"), a known PCIe link; no mlx4 line at
#                     error level, no mlx4_warn, none of the failure lines
#                     of main.c/cmd.c/en_*.c (fail, error, timed out,
#                     "without MSI-X", ..., see MLX4_FAIL), except the
#                     MLX4_OK lines below
#   netdevs           two netdevs under the PCI function, dev_port 0 and 1,
#                     ethtool -i driver mlx4_en, bus-info the function,
#                     distinct unicast MACs; the PCI driver is mlx4_core
#   ethtool           ethtool, -i, -S (the mlx4_en counters the later cases
#                     use), -g, -l, -k, -c, --show-priv-flags all read
#   counters          cx3stat reads the model's page while mlx4_core holds
#                     the BAR: commands, interrupts and eqes > 0 (the NOP
#                     test), violations 0 (all violation counts: since the
#                     test began)
#   reload_x3         rmmod mlx4_en mlx4_core / modprobe both, 3 times: the
#                     netdevs go and come back (no leaked netdev: the same
#                     set of interfaces after each round), a clean log and 0
#                     violations each round
# Datapath (needs the model's send/receive engines):
#   ports_up          both ports up, carrier on both within 10 s ("Link Up")
#   pktgen_burst_B    for B in 1 8 32: pktgen sends COUNT 60-byte frames
#                     from port 1 to port 2 (one TX queue, in the initial
#                     netns); with deltas of the model's counters and
#                     mlx4_en's: SENT == COUNT, queue_stopped == 0,
#                     send doorbells + bf_writes == COUNT / B exactly,
#                     xmit_more == COUNT - COUNT / B, model tx_frames ==
#                     COUNT == rx_frames + rx_dropped, peer rx_packets ==
#                     model rx_frames (802.3x pause off on both ports, so
#                     a receiver out of buffers drops rather than stopping
#                     the sender's queue); with the
#                     blueflame priv flag on, bf_writes == COUNT / B, off
#                     sq_doorbells == COUNT / B
#   pause_no_drop     pause on (mlx4_en's default), pktgen at burst 32:
#                     model tx_frames == rx_frames == peer rx_packets ==
#                     sent, rx_dropped 0: the receiver pauses the sender
#   ping              ports in netns a (10.0.0.1) and b (10.0.0.2): 10/10
#   tcp_64mib         64 MiB over TCP from a to b, sha256 checked
#   datapath_clean    0 violations, tx_frames == rx_frames + rx_dropped
#                     over the whole run, no drop counted by mlx4_en
#   unload_clean      the namespaces deleted, rmmod mlx4_en mlx4_core: no
#                     netdev left, a clean log
#
# The prediction for pktgen (mlx4_en 6.1, en_tx.c): mlx4_en_xmit() takes
# send_doorbell from __netdev_tx_sent_queue(), true only for a frame sent
# without xmit_more (or on a stopped queue), and then either copies the
# WQE to the BlueFlame register (bf_ok: BlueFlame enabled, no VLAN tag,
# no bounce buffer, desc_size <= MAX_BF: a 60-byte frame is a 128-byte
# inline WQE) or writes the send doorbell, exactly one MMIO ring; a frame
# with xmit_more rings nothing and counts xmit_more. pktgen sends a burst
# of B with xmit_more on all but the last (net/core/pktgen.c: --burst >
# 0), so COUNT / B rings, unless a full ring (queue_stopped) cuts a burst.
# Send doorbell writes (UAR + 0x14) are the model's "sq_doorbells" (if it
# has no such counter: its "doorbells" minus CQ and EQ doorbells),
# BlueFlame copies its "bf_writes"; CQ and EQ doorbells are not rings.
#
#   cx3-stock.sh [COUNT]  COUNT (default 9600) a multiple of 32
. /cxbell/lib.sh

COUNT=${1:-9600}
BURSTS="1 8 32"
TCP_MB=64

ktap_plan 14
no_ipv6

loaded() { [ -d "/sys/module/$1" ]; }

pci=$(cx3_pci | head -n 1)
bdf=${pci##*/}

# Every kernel log line of mlx4 since the last call ("<N>[ t] text", raw:
# the level is kept), into $log_lines; the log is cleared.
mlx4_log()
{
	log_lines=$(dmesg -r -c 2>/dev/null | grep -a 'mlx4')
}

# What a bad line is. mlx4_en's own en_print() (en_info, en_warn, en_err:
# "mlx4_en: IF: ..." or "mlx4_en: BDF: Port N: ...") passes the level as
# an argument of "%s%s: ...", so all of them land at the default level 4
# whatever they say: they are judged by their text. Every other mlx4 line
# at level 0-3, and a dev_printk warning ("mlx4_core BDF: ...", "mlx4_en
# BDF: ...", mlx4_warn) at level 4, is bad, and so is any line with a
# failure word.
MLX4_FAIL='[Ff]ail|[Ee]rror|timed out|[Tt]imeout|[Uu]nable|[Cc]ouldn.t|[Cc]annot|[Ii]nvalid|[Bb]ad |without MSI-X|not supported|catas|[Ii]nternal err|going to be reset|[Dd]evice is dead|BUG|Unknown'
# Lines of a good probe on this model that the rules above would catch:
# mlx4_dbg's "Catastrophic error buffer at ..." (QUERY_FW, debug_level=1);
# mlx4_en's warning for a device without LSO (en_main.c: caps bit 15),
# which the model does not offer on purpose, so that mlx4_en offers no TSO.
MLX4_OK='Catastrophic error buffer at
LSO not supported, please upgrade to later FW version to enable LSO'

# The mlx4 lines of $log_lines that are bad: printed as diagnostics, 1 if
# any.
mlx4_log_clean()
{
	_bad=$(printf '%s\n' "$log_lines" | grep -aE '^<[0-3]>' ;
	       printf '%s\n' "$log_lines" | grep -aE '^<4>\[[ 0-9.]*\] mlx4_(core|en) [0-9a-f]{4}:' ;
	       printf '%s\n' "$log_lines" | grep -aE "$MLX4_FAIL")
	printf '%s\n' "$MLX4_OK" >/tmp/mlx4_ok
	_bad=$(printf '%s\n' "$_bad" | grep -avF -f /tmp/mlx4_ok | grep -a . | sort -u)
	[ -z "$_bad" ] && return 0
	printf '%s\n' "$_bad" | head -n 20 | sed 's/^/# log: /'
	return 1
}

# Expect a line containing the fixed string $1 in $log_lines.
has_line()
{
	printf '%s\n' "$log_lines" | grep -qaF -- "$1" && return 0
	ktap_diag "no kernel log line with '$1'"
	return 1
}

# (cheap: wait_until polls it)
two_netdevs() { set -- "$pci"/net/*; [ $# = 2 ] && [ -e "$1" ]; }
no_netdev() { set -- "$pci"/net/*; [ ! -e "$1" ]; }

load_both()
{
	modprobe mlx4_core "$@" || { ktap_diag "modprobe mlx4_core failed"; return 1; }
	# mlx4_core asks for mlx4_en itself (request_module_nowait); modprobe
	# it too, so that its init has run when this returns.
	modprobe mlx4_en || { ktap_diag "modprobe mlx4_en failed"; return 1; }
	wait_until 20 two_netdevs || {
		ktap_diag "netdevs of $bdf: '$(cx3_netdevs | tr '\n' ' ')', want 2"
		return 1
	}
}

unload_both()
{
	for _m in mlx4_en mlx4_core; do
		if loaded $_m; then
			rmmod $_m || { ktap_diag "rmmod $_m failed"; return 1; }
		fi
	done
}

# Violations since this test began: the model's counters live as long as
# QEMU, and a test before this one in the same boot may have provoked
# some on purpose (cx3-fuzz.sh).
viol0=$(cx3stat violations 2>/dev/null || echo 0)
viol_zero()
{
	_v=$(cx3_ctr violations) || return 1
	eq "$((_v - viol0))" 0 "model violations${1:+ ($1)}"
}

# --- bring-up -------------------------------------------------------------

probe_clean()
{
	[ -n "$pci" ] || { ktap_diag "no PCI 15b3:1003 function (not vm-run --cx3?)"; return 1; }
	dmesg -c >/dev/null
	load_both debug_level=1
	_rc=$?
	sleep 1
	mlx4_log
	has_line "mlx4_core: Mellanox ConnectX core driver" || _rc=1
	has_line "mlx4_core: Initializing $bdf" || _rc=1
	has_line "NOP command IRQ test passed" || _rc=1
	has_line "mlx4_en: Mellanox ConnectX HCA Ethernet driver" || _rc=1
	has_line "Activating port:1" || _rc=1
	has_line "Activating port:2" || _rc=1
	# pcie_print_link_status(): a real ConnectX-3 reports its link
	# ("... Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)"), which
	# mlx4_check_pcie_caps() compares with its capability.
	if printf '%s\n' "$log_lines" | grep -qa 'available PCIe bandwidth (Unknown'; then
		ktap_diag "no PCIe link speed/width: $(printf '%s\n' "$log_lines" |
			grep -a 'available PCIe bandwidth' | head -n 1)"
		_rc=1
	fi
	mlx4_log_clean || _rc=1
	[ $_rc = 0 ] || printf '%s\n' "$log_lines" | tail -n 30 | sed 's/^/# mlx4: /'
	return $_rc
}

netdevs_ok()
{
	_rc=0
	set -- $(cx3_netdevs)
	[ $# = 2 ] || { ktap_diag "netdevs: '$*'"; return 1; }
	p1=$1 p2=$2
	eq "$(cat "/sys/class/net/$p1/dev_port")" 0 "dev_port of $p1" || _rc=1
	eq "$(cat "/sys/class/net/$p2/dev_port")" 1 "dev_port of $p2" || _rc=1
	for _n in $p1 $p2; do
		eq "$(ethtool -i "$_n" | sed -n 's/^driver: //p')" mlx4_en "driver of $_n" || _rc=1
		eq "$(ethtool -i "$_n" | sed -n 's/^bus-info: //p')" "$bdf" "bus-info of $_n" || _rc=1
	done
	eq "$(basename "$(readlink "$pci/driver")")" mlx4_core "PCI driver of $bdf" || _rc=1
	m1=$(cat "/sys/class/net/$p1/address") m2=$(cat "/sys/class/net/$p2/address")
	ktap_diag "port 1: $p1 $m1, port 2: $p2 $m2"
	[ "$m1" != "$m2" ] || { ktap_diag "both ports have MAC $m1"; _rc=1; }
	case $m1$m2 in
	*00:00:00:00:00:00*) ktap_diag "a zero MAC"; _rc=1 ;;
	esac
	return $_rc
}

ethtool_ok()
{
	[ -n "$p2" ] || { ktap_diag "no netdevs"; return 1; }
	_rc=0
	for _n in $p1 $p2; do
		ethtool "$_n" >/tmp/et.out 2>&1 || { ktap_diag "ethtool $_n: $(tail -n 1 /tmp/et.out)"; _rc=1; }
		grep -q 'Link detected:' /tmp/et.out || { ktap_diag "ethtool $_n: no 'Link detected'"; _rc=1; }
		_fw=$(ethtool -i "$_n" | sed -n 's/^firmware-version: //p')
		[ -n "$_fw" ] || { ktap_diag "ethtool -i $_n: no firmware-version"; _rc=1; }
		ethtool -S "$_n" >/tmp/et.out 2>&1 || { ktap_diag "ethtool -S $_n failed"; _rc=1; }
		for _c in rx_packets tx_packets rx_dropped xmit_more queue_stopped; do
			grep -q "^ *$_c: [0-9]" /tmp/et.out ||
				{ ktap_diag "ethtool -S $_n: no $_c"; _rc=1; }
		done
		for _o in -g -l -k -c --show-priv-flags; do
			ethtool $_o "$_n" >/dev/null 2>/tmp/et.err ||
				{ ktap_diag "ethtool $_o $_n: $(cat /tmp/et.err)"; _rc=1; }
		done
	done
	ktap_diag "firmware-version $_fw, $(ethtool "$p1" | grep -E 'Speed|Duplex' | tr -s ' \t\n' ' ')"
	mlx4_log
	mlx4_log_clean || _rc=1
	return $_rc
}

counters_ok()
{
	cx3stat >/tmp/cx3.out 2>&1 || { ktap_diag "cx3stat: $(cat /tmp/cx3.out)"; return 1; }
	ktap_diag "model: $(tr '\n' ' ' </tmp/cx3.out)"
	eval "$(cx3_snap c)"
	_rc=0
	for _c in commands interrupts eqes; do
		eval "_v=\${c_$_c:-}"
		[ -n "$_v" ] && [ "$_v" -gt 0 ] || { ktap_diag "model $_c: '$_v', want > 0"; _rc=1; }
	done
	viol_zero || _rc=1
	return $_rc
}

ifaces() { ls /sys/class/net | sort | tr '\n' ' '; }

reload_x3()
{
	_rc=0
	_with=$(ifaces)
	for _i in 1 2 3; do
		viol_zero "before unload $_i" || _rc=1
		unload_both || return 1
		wait_until 5 no_netdev ||
			{ ktap_diag "round $_i: netdevs left after rmmod: $(ls "$pci/net")"; _rc=1; }
		_without=$(ifaces)
		loaded mlx4_core && { ktap_diag "mlx4_core still loaded"; _rc=1; }
		load_both || return 1
		eq "$(ifaces)" "$_with" "interfaces after round $_i" || _rc=1
		mlx4_log
		mlx4_log_clean || { ktap_diag "round $_i: bad mlx4 lines"; _rc=1; }
		viol_zero "after load $_i" || _rc=1
	done
	ktap_diag "with mlx4: $_with; without: $_without"
	set -- $(cx3_netdevs)
	p1=$1 p2=${2:-}
	[ -n "$p2" ] && m2=$(cat "/sys/class/net/$p2/address")
	return $_rc
}

# --- datapath -------------------------------------------------------------

carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }

ports_up()
{
	[ -n "$p2" ] || return 1
	dmesg -c >/dev/null
	ip link set "$p1" up && ip link set "$p2" up || return 1
	_rc=0
	wait_until 10 carrier "$p1" || { ktap_diag "no carrier on $p1"; _rc=1; }
	wait_until 10 carrier "$p2" || { ktap_diag "no carrier on $p2"; _rc=1; }
	mlx4_log
	has_line "Link Up" || _rc=1
	mlx4_log_clean || _rc=1
	[ $_rc = 0 ] && up=1
	return $_rc
}

# The counters of one pktgen check: PREFIX_x= assignments.
pg_snap()
{
	eval "$(cx3_snap "$1")"
	eval "$(cxb_snap "$1_e1" "$p1")"
	eval "$(cxb_snap "$1_e2" "$p2")"
}

# SENT frames arrived at $p2 or were dropped by the model.
rx2()
{
	[ $(($(cxb_stat "$p2" rx_packets) - b_e2_rx_packets +
	     $(cx3_ctr rx_dropped) - b_rx_dropped)) -ge "$1" ]
}

tx_frames0= rx_frames0= rx_dropped0=
pktgen_burst()
{
	_b=$1
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	[ -d /proc/net/pktgen ] || modprobe pktgen || return 1
	# Send doorbells alone: the model's "doorbells" may count CQ and EQ
	# doorbell writes too, which NAPI's timing decides. Without an
	# sq_doorbells counter they are derived: doorbells - cq_arms - EQ
	# doorbells (eq_doorbells, or one per interrupt: mlx4_eq_int() sets
	# the consumer index and re-arms once per interrupt).
	SQ_DB=sq_doorbells
	cx3stat sq_doorbells >/dev/null 2>&1 || SQ_DB=derived
	_bf=$(cxb_priv_flag "$p1" blueflame)
	# Pause off: a receiver out of buffers drops instead of stopping the
	# sender's queue, so the doorbell count stays exact.
	pause_set off || return 1
	pg_snap b
	[ -n "$tx_frames0" ] || {
		tx_frames0=$b_tx_frames rx_frames0=$b_rx_frames rx_dropped0=$b_rx_dropped
	}
	_res=$(pktgen_run "$p1" "$COUNT" "$_b" "$m2" 60) || return 1
	sent=${_res#* }
	wait_until 10 rx2 "$sent"
	sleep 0.3
	pg_snap a
	_rings=$((COUNT / _b))
	if [ $SQ_DB = sq_doorbells ]; then
		_db=$(cx3_d sq_doorbells)
	elif [ -n "${a_eq_doorbells:-}" ]; then
		_db=$(($(cx3_d doorbells) - $(cx3_d cq_arms) - $(cx3_d eq_doorbells)))
	else
		_db=$(($(cx3_d doorbells) - $(cx3_d cq_arms) - $(cx3_d interrupts)))
	fi
	_bfw=$(cx3_d bf_writes)
	ktap_diag "burst $_b: sent $sent (${_res%% *} pps), blueflame $_bf," \
		"send doorbells ($SQ_DB) $_db bf_writes $_bfw (want $_rings together)," \
		"all doorbells $(cx3_d doorbells)," \
		"xmit_more $(cx3_d e1_xmit_more) queue_stopped $(cx3_d e1_queue_stopped)," \
		"model tx_frames $(cx3_d tx_frames) rx_frames $(cx3_d rx_frames)" \
		"rx_dropped $(cx3_d rx_dropped) wqes $(cx3_d wqes) cqes $(cx3_d cqes)" \
		"cq_arms $(cx3_d cq_arms) interrupts $(cx3_d interrupts)," \
		"peer rx_packets $(cx3_d e2_rx_packets)"
	_rc=0
	eq "$sent" "$COUNT" "pktgen sent" || _rc=1
	eq "$(cx3_d e1_queue_stopped)" 0 "queue_stopped" || _rc=1
	eq $((_db + _bfw)) "$_rings" "$SQ_DB + bf_writes" || _rc=1
	eq "$(cx3_d e1_xmit_more)" $((COUNT - _rings)) "xmit_more" || _rc=1
	if [ "$_bf" = on ]; then
		eq "$_bfw" "$_rings" "bf_writes (blueflame on)" || _rc=1
	else
		eq "$_db" "$_rings" "$SQ_DB (blueflame ${_bf:-?})" || _rc=1
	fi
	eq "$(cx3_d e1_tx_packets)" "$COUNT" "tx_packets of $p1" || _rc=1
	eq "$(cx3_d e2_rx_packets)" "$(cx3_d rx_frames)" \
		"rx_packets of $p2 vs model rx_frames" || _rc=1
	eq "$(cx3_d tx_frames)" "$COUNT" "model tx_frames" || _rc=1
	eq $(($(cx3_d rx_frames) + $(cx3_d rx_dropped))) "$(cx3_d tx_frames)" \
		"model rx_frames + rx_dropped vs tx_frames" || _rc=1
	ktap_diag "burst $_b: the peer dropped $(cx3_d rx_dropped) (pause off)"
	if [ "$_bf" = on ] && [ "$_bfw" = 0 ]; then
		ktap_diag "blueflame on but no BlueFlame write: mlx4_en's rings have" \
			"bf_enabled false (mlx4_bf_alloc() failed: no BlueFlame" \
			"mapping or UARs)?"
	fi
	eq "$(cx3_d violations)" 0 "model violations" || _rc=1
	return $_rc
}

to_netns()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	cxb_netns_pair "$p1" "$p2" 10 || {
		mlx4_log
		printf '%s\n' "$log_lines" | tail -n 10 | sed 's/^/# mlx4: /'
		return 1
	}
}

pinged=0
ping_ok()
{
	to_netns || return 1
	_out=$(ip netns exec a ping -c 10 -i 0.2 -W 2 10.0.0.2 2>&1)
	ktap_diag "$(printf '%s\n' "$_out" | grep 'packets transmitted')"
	printf '%s\n' "$_out" | grep -q '^10 packets transmitted, 10 packets received' || return 1
	pinged=1
}

tcp_ok()
{
	# No TCP without ping: a dead link would only time out.
	[ $pinged = 1 ] || { ktap_diag "ping failed: not tried"; return 1; }
	head -c $((TCP_MB * 1024 * 1024)) /dev/urandom >/tmp/src || return 1
	_sum=$(sha256sum </tmp/src | cut -d' ' -f1)
	tcp_ab /tmp/src
	ktap_diag "$TCP_MB MiB in $tcp_secs s"
	tcp_ab_ok "$_sum"
}

datapath_clean()
{
	[ -n "$tx_frames0" ] || { ktap_diag "no datapath case ran"; return 1; }
	eval "$(cx3_snap z)"
	_rc=0
	ktap_diag "model: $(cx3stat | tr '\n' ' ')"
	eq "$((z_violations - viol0))" 0 "model violations" || _rc=1
	eq "$((z_tx_frames - tx_frames0))" \
		"$((z_rx_frames - rx_frames0 + z_rx_dropped - rx_dropped0))" \
		"model tx_frames vs rx_frames + rx_dropped since the first pktgen run" ||
		_rc=1
	for _x in "a $p1" "b $p2"; do
		set -- $_x
		eq "$(cxb_stat "$2" rx_dropped "$1")" 0 "rx_dropped of $2" || _rc=1
	done
	return $_rc
}

unload_clean()
{
	loaded mlx4_en || { ktap_diag "mlx4_en not loaded"; return 1; }
	for _ns in a b; do
		ip netns list | grep -q "^$_ns" && ip netns del "$_ns"
	done
	dmesg -c >/dev/null
	unload_both || return 1
	_rc=0
	wait_until 5 no_netdev ||
		{ ktap_diag "netdevs left: $(ls "$pci/net")"; _rc=1; }
	mlx4_log
	mlx4_log_clean || _rc=1
	return $_rc
}

# pause_set on|off: 802.3x pause on both ports, both directions
pause_set()
{
	for _p in "$p1" "$p2"; do
		ethtool -A "$_p" rx "$1" tx "$1" 2>/dev/null ||
			[ "$(ethtool -a "$_p" | awk '/^RX:/ {print $2}')" = "$1" ] ||
			{ ktap_diag "ethtool -A $_p rx $1 tx $1 failed"; return 1; }
	done
}

# pause_no_drop: mlx4_en's default global pause on both ports; pktgen at
# burst 32: whatever the receiver's pace, the sender is paused, never a
# frame dropped (the doorbell count is not asserted: a paused queue stops)
pause_no_drop()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	pause_set on || return 1
	pg_snap b
	_res=$(pktgen_run "$p1" "$COUNT" 32 "$m2" 60) || return 1
	sent=${_res#* }
	wait_until 10 rx2 "$sent"
	sleep 0.3
	pg_snap a
	_rc=0
	ktap_diag "pause on: sent $sent, the peer paused the sender" \
		"$(cx3_d tx_paused) times, model rx_frames $(cx3_d rx_frames)" \
		"rx_dropped $(cx3_d rx_dropped), queue_stopped $(cx3_d e1_queue_stopped)"
	eq "$(cx3_d tx_frames)" "$sent" "model tx_frames" || _rc=1
	eq "$(cx3_d rx_frames)" "$sent" "model rx_frames" || _rc=1
	eq "$(cx3_d rx_dropped)" 0 "model rx_dropped" || _rc=1
	eq "$(cx3_d e2_rx_packets)" "$sent" "rx_packets of $p2" || _rc=1
	eq "$(cx3_d violations)" 0 "model violations" || _rc=1
	return $_rc
}

p1= p2= m2= up=0
ktap_ok probe_clean probe_clean
ktap_ok netdevs netdevs_ok
ktap_ok ethtool ethtool_ok
ktap_ok counters counters_ok
ktap_ok reload_x3 reload_x3
ktap_ok ports_up ports_up
for B in $BURSTS; do
	ktap_ok "pktgen_burst_$B" pktgen_burst "$B"
done
ktap_ok pause_no_drop pause_no_drop
ktap_ok ping ping_ok
ktap_ok tcp_64mib tcp_ok
ktap_ok datapath_clean datapath_clean
ktap_ok unload_clean unload_clean
ktap_finish
