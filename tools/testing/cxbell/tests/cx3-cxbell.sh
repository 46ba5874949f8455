# SPDX-License-Identifier: GPL-2.0
#
# cxbell_mlx4 (the cxbell core on the stock mlx4_core, in place of
# mlx4_en) on the QEMU ConnectX-3 model (vm-run --cx3; run-tests boots
# tests/cx3-*.sh so), set up as README's "On a ConnectX host" says: the
# tests cx3-stock.sh runs for mlx4_en, and the doorbell policies the sim
# tests run (doorbell.sh), counted by the device.
#
# Set-up (README, with kmod's modprobe, which the guest carries beside
# busybox's: /etc/modprobe.d/cxbell-mlx4.conf from contrib/modprobe/; the
# guest has no initrd to update):
#   readme_load       modprobe -r mlx4_en, modprobe mlx4_core: the softdep
#                     loads cxbell_mlx4 and cxbell, mlx4_core's request for
#                     mlx4_en runs /bin/true ("install"), and the log says
#                     "2 Ethernet port(s) offered to cxbell"; mlx4_en is not
#                     loaded; no bad mlx4/cxbell line (lib.sh cx3_log_clean)
#   netdevs           one netdev under each cxbell_mlx4.port.N auxiliary
#                     device, dev_port N, ethtool -i driver cxbell, bus-info
#                     the PCI function (as mlx4_en), firmware-version
#                     2.42.5000 (the model's QUERY_FW), distinct unicast MACs
#   ethtool           ethtool, -i, -S, -g, -l, -k, -c, -a,
#                     --show-priv-flags read; blueflame on (the model has
#                     BlueFlame registers); pause on both ways (the
#                     default, as mlx4_en's)
#   reload_x3         README's switch-back order (modprobe -r cxbell_mlx4
#                     cxbell, modprobe -r mlx4_core) and modprobe mlx4_core
#                     again, 3 times: the softdep brings cxbell_mlx4 back,
#                     the same interfaces, a clean log, 0 violations
# Datapath, with deltas of the model's counters (cx3stat) and of cxbell's
# ethtool -S around every run:
#   ports_up          both ports up, carrier within 10 s; port 1's TX
#                     ring 4096 TXBBs (a late NAPI poll must not stop the
#                     queue in the policy runs)
#   link_settings     ethtool of port 1: 10000Mb/s (the model's 10G XFI
#                     in QUERY_PORT), full duplex, autonegotiation off;
#                     ethtool -s speed 1000 autoneg off: "Operation not
#                     supported" (no PTYS register in the model), the
#                     speed still 10000Mb/s
#   pktgen_OPT_BF_B   for doorbell_opt OPT in 0 1 3, blueflame BF on/off,
#                     pktgen burst B in 1 8 32: COUNT 60-byte frames from
#                     port 1 to port 2, pause off (a receiver out of buffers
#                     drops rather than stops the queue):
#                       SENT == COUNT == tx_packets == model tx_frames
#                       model tx_frames == rx_frames + rx_dropped
#                         (+ link_dropped: 0 with the cable in),
#                       rx_packets of port 2 == model rx_frames
#                       model send doorbells == tx_doorbells,
#                       model bf_writes == tx_blueflame (the device saw
#                       exactly the rings the driver counted)
#                       tx_packets == (tx_doorbells - by_completion)
#                         + tx_blueflame + tx_xmit_more + deferred
#                       blueflame off: bf_writes == 0
#                       OPT 0: send doorbells + bf_writes == COUNT / B,
#                         tx_xmit_more == COUNT - COUNT / B, no queue stop
#                       0 violations
#   inline            tx-copybreak 464, burst 8, blueflame on: tx_inline ==
#                     COUNT, bf_writes == COUNT / 8, the frames arrive
#   queue_stops       the smallest TX ring (ethtool -G tx 64), pause on,
#                     burst 256, COUNT_STOP frames: none lost (model
#                     rx_dropped 0, rx_frames == SENT), the queue stopped
#                     and rang on stop (tx_doorbell_on_stop > 0),
#                     tx_queue_stopped == tx_wake_queue, device rings ==
#                     driver rings, 0 violations
#   cable_pull        the model's test register pulls the cable (cx3stat
#                     -c 0): mlx4_core's port-change events take the
#                     carrier off both ports within 5 s; plugged back
#                     (-c 1) it returns within 10 s, and a pktgen run at
#                     burst 8 again rings exactly COUNT / 8 times with the
#                     device agreeing, 0 violations
#   tx_error          the model fails the next 3 send WQEs (cx3stat -e 3):
#                     pktgen 2000 frames at burst 1, pause on: 3 error
#                     CQEs (model sq_errors), each counted (tx_err_cqe) and
#                     followed by one datapath reset (tx_recover), no
#                     watchdog timeout; every frame accounted: SENT ==
#                     model tx_frames + tx_err_cqe + tx_dropped, the peer
#                     got every frame the model sent, 0 violations; the
#                     log has the driver's
#                     "error CQE ... resetting" lines and nothing else bad
#   rx_filter         the receive filter through mlx4_core's steering (B0
#                     on the model: MAC table and unicast/multicast MGM
#                     entries, promiscuous default entries): N raw frames
#                     (rawsend) from port 1 to port 2 for each case, the
#                     model's rx_frames / rx_dropped deltas and port 2's
#                     rx_packets exact: port 2's own address delivered,
#                     an unknown unicast dropped (no steering), a group
#                     joined with ip maddr delivered and another
#                     dropped, all-multicast and promiscuous mode on and
#                     off, a MAC change while up (old dropped, new
#                     delivered, back again), a multicast and the zero
#                     address refused with EADDRNOTAVAIL; 0 violations
#   rss               the RSS QP context cxbell_mlx4 programs, honoured by
#                     the model's Toeplitz hash: port 2 at 2 channels, NF
#                     UDP flows of C frames (rssflow) from port 1; each
#                     queue's rxQ_packets delta is what rssflow hash
#                     predicts from the key and table ethtool -x shows,
#                     the model's rx_frames delta NF * C: with the default
#                     key and table (0 1 0 1 ...), with ethtool -X hkey
#                     K2, with equal 1 (all on queue 0); weight 1 2 (no
#                     power-of-two spread) refused with EINVAL and the
#                     driver's log line, the table unchanged; default
#                     again; 0 violations
#   vlan              VLAN 100 on both ports (v1, v2), N raw frames
#                     (rawsend) from v1: the tag inserted by the model
#                     from the WQE (cxbell's tx_blueflame 0 for them:
#                     not BlueFlame-eligible) and stripped by it on port
#                     2's receive QPs (each skb at port 2, tracepoint
#                     net:napi_gro_receive_entry, with the accelerated
#                     tag 0x0064), v2 rx_packets N; ethtool -K rxvlan off
#                     on port 2: the tag stays in the frame (protocol
#                     0x8100, 4 bytes longer), v2 still gets N; on again;
#                     0 violations
#   ping, tcp_64mib   between netns a (10.0.0.1) and b (10.0.0.2) across
#                     the cable: 10/10 (every frame port 1 sends meanwhile
#                     goes through the bounce buffer: tx_bounced ==
#                     tx_packets), 64 MiB sha256; TSO on (the
#                     model's QUERY_DEV_CAP has LSO): the GSO skbs given
#                     to port 1 (tracepoint net:net_dev_start_xmit) ==
#                     its tx_tso_packets == the model's lso_wqes, the
#                     model's lso_segments == their gso_segs summed
#   tso               tcp-segmentation-offload on by default; 4 MiB: as
#                     above, with LSO WQEs (> 0); ethtool -K tso off on
#                     both ports: no GSO skb, tx_tso_packets and the
#                     model's lso_segments stay 0, the data intact; on
#                     again
#   datapath_clean    0 violations; tx_frames == rx_frames + rx_dropped
#                     over the whole run
#   unload_clean      README's way back: modprobe -r cxbell_mlx4 cxbell,
#                     rm the modprobe.d file, modprobe -r mlx4_core,
#                     modprobe mlx4_core: mlx4_en (requested by mlx4_core
#                     itself) drives both ports, cxbell_mlx4 stays
#                     unloaded; then all unloaded, a clean log
#
#   cx3-cxbell.sh [COUNT]  COUNT (default 9600) a multiple of 32
. /cxbell/lib.sh

COUNT=${1:-9600}
COUNT_STOP=20000
TCP_MB=64
OPTS="0 1 3"
BFS="on off"
BURSTS="1 8 32"

ktap_plan $((18 + $(set -- $OPTS; echo $#) * $(set -- $BFS; echo $#) * $(set -- $BURSTS; echo $#)))
no_ipv6

loaded() { [ -d "/sys/module/$1" ]; }
AUX=/sys/bus/auxiliary/devices

# kmod's tools first in PATH, and as the kernel's modprobe (request_module
# of mlx4_core for mlx4_en), so that the modprobe.d file acts as on a host.
kmod_setup()
{
	[ -x /usr/bin/kmod ] || { ktap_diag "no kmod in the guest"; return 1; }
	mkdir -p /tmp/kmod /etc/modprobe.d
	for _c in modprobe rmmod insmod lsmod modinfo; do
		ln -sf /usr/bin/kmod "/tmp/kmod/$_c"
	done
	PATH=/tmp/kmod:$PATH
	kmod_was=$(cat /proc/sys/kernel/modprobe)
	cxb_set /proc/sys/kernel/modprobe /tmp/kmod/modprobe
	# README: "cp contrib/modprobe/cxbell-mlx4.conf /etc/modprobe.d/"
	cxb_on_exit 'rm -f /etc/modprobe.d/cxbell-mlx4.conf'
	(cd /cxbell && cp contrib/modprobe/cxbell-mlx4.conf /etc/modprobe.d/)
}

# The cxbell netdev of auxiliary port N.
port_if() { set -- "$AUX/cxbell_mlx4.port.$1"/net/*; [ -e "$1" ] && echo "${1##*/}"; }
two_netdevs() { port_if 0 >/dev/null && port_if 1 >/dev/null; }
no_netdev() { ! port_if 0 >/dev/null && ! port_if 1 >/dev/null; }

# README: "modprobe mlx4_core  # the softdep loads cxbell_mlx4, cxbell"
load_readme()
{
	modprobe mlx4_core || { ktap_diag "modprobe mlx4_core failed"; return 1; }
	wait_until 20 two_netdevs || {
		ktap_diag "netdevs: $(ls "$AUX" | tr '\n' ' '), want two cxbell_mlx4 ports"
		return 1
	}
	p1=$(port_if 0) p2=$(port_if 1)
	m2=$(cat "/sys/class/net/$p2/address")
}

# README: "modprobe -r cxbell_mlx4 cxbell; ... modprobe -r mlx4_core"
unload_readme()
{
	modprobe -r cxbell_mlx4 cxbell || { ktap_diag "modprobe -r cxbell_mlx4 cxbell failed"; return 1; }
	modprobe -r mlx4_core || { ktap_diag "modprobe -r mlx4_core failed"; return 1; }
	wait_until 5 no_netdev || { ktap_diag "netdevs left: $(ls "$AUX")"; return 1; }
}

# Violations since the test began: the cx3-* tests share one boot, and
# cx3-fuzz.sh provokes them on purpose.
viol0=$(cx3_ctr violations) || viol0=0
viol_zero()
{
	_v=$(cx3_ctr violations) || return 1
	eq $((_v - viol0)) 0 "model violations${1:+ ($1)}"
}

readme_load()
{
	[ -n "$(cx3_pci)" ] || { ktap_diag "no PCI 15b3:1003 function (not vm-run --cx3?)"; return 1; }
	kmod_setup || return 1
	dmesg -c >/dev/null
	# README: "modprobe -r mlx4_en" (not loaded here: a no-op)
	modprobe -r mlx4_en || { ktap_diag "modprobe -r mlx4_en failed"; return 1; }
	load_readme
	_rc=$?
	sleep 1
	cx3_log
	cx3_has_line "cxbell_mlx4: 2 Ethernet port(s) offered to cxbell" || _rc=1
	for _m in cxbell_mlx4 cxbell; do
		loaded $_m || { ktap_diag "$_m not loaded (softdep)"; _rc=1; }
	done
	loaded mlx4_en && { ktap_diag "mlx4_en loaded despite modprobe.d"; _rc=1; }
	cx3_log_clean || _rc=1
	viol_zero || _rc=1
	[ $_rc = 0 ] || printf '%s\n' "$log_lines" | tail -n 30 | sed 's/^/# mlx4: /'
	return $_rc
}

netdevs_ok()
{
	[ -n "$p2" ] || return 1
	_rc=0
	for _i in 0 1; do
		_n=$(port_if $_i)
		eq "$(cat "/sys/class/net/$_n/dev_port")" $_i "dev_port of $_n" || _rc=1
		eq "$(ethtool -i "$_n" | sed -n 's/^driver: //p')" cxbell "driver of $_n" || _rc=1
		eq "$(basename "$(readlink "/sys/class/net/$_n/device")")" \
			"cxbell_mlx4.port.$_i" "auxiliary device of $_n" || _rc=1
		_pci=$(cx3_pci | head -n 1)
		eq "$(ethtool -i "$_n" | sed -n 's/^bus-info: //p')" "${_pci##*/}" \
			"bus-info of $_n" || _rc=1
		eq "$(ethtool -i "$_n" | sed -n 's/^firmware-version: //p')" 2.42.5000 \
			"firmware-version of $_n" || _rc=1
	done
	m1=$(cat "/sys/class/net/$p1/address")
	ktap_diag "port 1: $p1 $m1, port 2: $p2 $m2"
	[ "$m1" != "$m2" ] || { ktap_diag "both ports have MAC $m1"; _rc=1; }
	case $m1$m2 in
	*00:00:00:00:00:00*) ktap_diag "a zero MAC"; _rc=1 ;;
	esac
	return $_rc
}

ethtool_ok()
{
	[ -n "$p2" ] || return 1
	_rc=0
	for _n in $p1 $p2; do
		ethtool "$_n" >/tmp/et.out 2>&1 || { ktap_diag "ethtool $_n: $(tail -n 1 /tmp/et.out)"; _rc=1; }
		for _o in -i -S -g -l -k -c -a --show-priv-flags; do
			ethtool $_o "$_n" >/dev/null 2>/tmp/et.err ||
				{ ktap_diag "ethtool $_o $_n: $(cat /tmp/et.err)"; _rc=1; }
		done
		eq "$(cxb_priv_flag "$_n" blueflame)" on "blueflame of $_n" || _rc=1
		eq "$(ethtool -a "$_n" | awk '/^(RX|TX):/ {printf "%s ", $2}')" "on on " \
			"pause of $_n" || _rc=1
	done
	cx3_log
	cx3_log_clean || _rc=1
	return $_rc
}

ifaces() { ls /sys/class/net | sort | tr '\n' ' '; }

reload_x3()
{
	_rc=0
	_with=$(ifaces)
	for _i in 1 2 3; do
		unload_readme || return 1
		for _m in cxbell_mlx4 cxbell mlx4_core; do
			loaded $_m && { ktap_diag "round $_i: $_m still loaded"; _rc=1; }
		done
		load_readme || return 1
		eq "$(ifaces)" "$_with" "interfaces after round $_i" || _rc=1
		cx3_log
		cx3_log_clean || { ktap_diag "round $_i: bad lines"; _rc=1; }
		viol_zero "after load $_i" || _rc=1
	done
	return $_rc
}

carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }

ports_up()
{
	[ -n "$p2" ] || return 1
	ip link set "$p1" up && ip link set "$p2" up || return 1
	_rc=0
	wait_until 10 carrier "$p1" || { ktap_diag "no carrier on $p1"; _rc=1; }
	wait_until 10 carrier "$p2" || { ktap_diag "no carrier on $p2"; _rc=1; }
	# room for a NAPI poll that comes late (TCG on a loaded host): the
	# policy runs count on no queue stop
	ethtool -G "$p1" tx 4096 || _rc=1
	cx3_log
	cx3_log_clean || _rc=1
	[ $_rc = 0 ] && up=1
	return $_rc
}

# The counters of one run into snapshot SNAP: the model's (as named),
# e1_* of $p1, e2_* of $p2.
pg_snap()
{
	cx3_port_snap "$1" "$p1" "$p2"
}

# SENT frames arrived at $p2 or were dropped by the model.
rx2()
{
	cx3_port_rx_done "$1" "$p2"
}

# Send doorbells (UAR + 0x14) the model saw in the last run.
model_sq_db() { cx3_d sq_doorbells; }

tx_frames0=
# run_pktgen COUNT BURST: pktgen from $p1 to $p2, the snapshots around it
# in snapshots b and a, SENT in $sent.
run_pktgen()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	pg_snap b
	[ -n "$tx_frames0" ] || {
		tx_frames0=$(snap_get b tx_frames) rx_frames0=$(snap_get b rx_frames)
		rx_dropped0=$(snap_get b rx_dropped)
		link_dropped0=$(snap_get b link_dropped)
	}
	_res=$(pktgen_run "$p1" "$1" "$2" "$m2" 60) || return 1
	sent=${_res#* }
	wait_until 10 rx2 "$sent"
	# the last completions and NAPI polls (a deferred doorbell rings there)
	sleep 0.3
	pg_snap a
	ktap_diag "burst $2: sent $sent (${_res%% *} pps):" \
		"device send doorbells $(model_sq_db) bf_writes $(cx3_d bf_writes)" \
		"tx_frames $(cx3_d tx_frames) rx_frames $(cx3_d rx_frames)" \
		"rx_dropped $(cx3_d rx_dropped) tx_paused $(cx3_d tx_paused);" \
		"driver tx_doorbells $(cx3_d e1_tx_doorbells)" \
		"tx_blueflame $(cx3_d e1_tx_blueflame) xmit_more $(cx3_d e1_tx_xmit_more)" \
		"deferred $(cx3_d e1_tx_doorbell_deferred)" \
		"by_completion $(cx3_d e1_tx_doorbell_by_completion)" \
		"on_stop $(cx3_d e1_tx_doorbell_on_stop)" \
		"queue_stopped $(cx3_d e1_tx_queue_stopped)"
}

# What every run must show: the device saw the driver's rings and frames.
run_common()
{
	_rc=0
	eq "$(cx3_d e1_tx_packets)" "$sent" "tx_packets of $p1" || _rc=1
	eq "$(cx3_d tx_frames)" "$sent" "model tx_frames" || _rc=1
	eq $(($(cx3_d rx_frames) + $(cx3_d rx_dropped) + $(cx3_d link_dropped))) \
		"$(cx3_d tx_frames)" \
		"model rx_frames + rx_dropped + link_dropped vs tx_frames" || _rc=1
	eq "$(cx3_d e2_rx_packets)" "$(cx3_d rx_frames)" \
		"rx_packets of $p2 vs model rx_frames" || _rc=1
	eq "$(model_sq_db)" "$(cx3_d e1_tx_doorbells)" \
		"device send doorbells vs tx_doorbells" || _rc=1
	eq "$(cx3_d bf_writes)" "$(cx3_d e1_tx_blueflame)" \
		"device bf_writes vs tx_blueflame" || _rc=1
	eq "$(cx3_d e1_tx_packets)" \
		$(($(cx3_d e1_tx_doorbells) - $(cx3_d e1_tx_doorbell_by_completion) +
		   $(cx3_d e1_tx_blueflame) + $(cx3_d e1_tx_xmit_more) +
		   $(cx3_d e1_tx_doorbell_deferred))) \
		"tx_packets vs rings + xmit_more + deferred" || _rc=1
	eq "$(cx3_d violations)" 0 "model violations" || _rc=1
	return $_rc
}

pktgen_policy()
{
	_opt=$1 _bf=$2 _b=$3
	echo "$_opt" >"/sys/class/net/$p1/doorbell_opt" || return 1
	ethtool --set-priv-flags "$p1" blueflame "$_bf" || return 1
	cx3_pause_set off "$p1" "$p2" || return 1
	run_pktgen "$COUNT" "$_b" || return 1
	_rc=0
	eq "$sent" "$COUNT" "pktgen sent" || _rc=1
	run_common || _rc=1
	[ "$_bf" = off ] && { eq "$(cx3_d bf_writes)" 0 "bf_writes (blueflame off)" || _rc=1; }
	if [ "$_opt" = 0 ]; then
		_rings=$((COUNT / _b))
		eq $(($(model_sq_db) + $(cx3_d bf_writes))) $_rings \
			"device send doorbells + bf_writes" || _rc=1
		eq "$(cx3_d e1_tx_xmit_more)" $((COUNT - _rings)) "tx_xmit_more" || _rc=1
		eq "$(cx3_d e1_tx_queue_stopped)" 0 "tx_queue_stopped" || _rc=1
	fi
	ktap_diag "doorbell_opt $_opt blueflame $_bf burst $_b:" \
		"$(($(model_sq_db) + $(cx3_d bf_writes))) rings for $sent frames," \
		"the peer dropped $(cx3_d rx_dropped) (pause off)"
	return $_rc
}

inline_ok()
{
	echo 0 >"/sys/class/net/$p1/doorbell_opt" || return 1
	ethtool --set-priv-flags "$p1" blueflame on || return 1
	ethtool --set-tunable "$p1" tx-copybreak 464 || return 1
	cx3_pause_set off "$p1" "$p2" || return 1
	run_pktgen "$COUNT" 8
	_r=$?
	ethtool --set-tunable "$p1" tx-copybreak 0 || return 1
	[ $_r = 0 ] || return 1
	_rc=0
	eq "$sent" "$COUNT" "pktgen sent" || _rc=1
	run_common || _rc=1
	eq "$(cx3_d e1_tx_inline)" "$COUNT" "tx_inline" || _rc=1
	eq "$(cx3_d bf_writes)" $((COUNT / 8)) "bf_writes" || _rc=1
	return $_rc
}

queue_stops()
{
	ethtool -G "$p1" tx 64 || return 1
	cx3_pause_set on "$p1" "$p2" || return 1
	echo 0 >"/sys/class/net/$p1/doorbell_opt" || return 1
	ethtool --set-priv-flags "$p1" blueflame on || return 1
	run_pktgen $COUNT_STOP 256
	_r=$?
	ethtool -G "$p1" tx 4096 || return 1
	[ $_r = 0 ] || return 1
	_rc=0
	run_common || _rc=1
	eq "$(cx3_d rx_dropped)" 0 "model rx_dropped (pause on)" || _rc=1
	eq "$(cx3_d rx_frames)" "$sent" "model rx_frames" || _rc=1
	[ "$(cx3_d e1_tx_doorbell_on_stop)" -gt 0 ] ||
		{ ktap_diag "no doorbell on stop"; _rc=1; }
	eq "$(cx3_d e1_tx_queue_stopped)" "$(cx3_d e1_tx_wake_queue)" \
		"tx_queue_stopped vs tx_wake_queue" || _rc=1
	return $_rc
}

nocarrier() { ! carrier "$1"; }

cable_pull()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	_rc=0
	cx3stat -c 0 || return 1
	if wait_until 5 nocarrier "$p1" && wait_until 5 nocarrier "$p2"; then
		ktap_diag "cable pulled: no carrier on $p1 and $p2"
	else
		ktap_diag "cable pulled, carrier still on: $p1 $(cat "/sys/class/net/$p1/carrier")," \
			"$p2 $(cat "/sys/class/net/$p2/carrier")"
		_rc=1
	fi
	cx3stat -c 1 || return 1
	wait_until 10 carrier "$p1" && wait_until 10 carrier "$p2" ||
		{ ktap_diag "cable plugged, no carrier"; return 1; }
	echo 0 >"/sys/class/net/$p1/doorbell_opt" || return 1
	cx3_pause_set off "$p1" "$p2" || return 1
	run_pktgen "$COUNT" 8 || return 1
	eq "$sent" "$COUNT" "pktgen sent" || _rc=1
	run_common || _rc=1
	eq $(($(model_sq_db) + $(cx3_d bf_writes))) $((COUNT / 8)) \
		"device send doorbells + bf_writes" || _rc=1
	cx3_log
	cx3_log_clean || _rc=1
	return $_rc
}

recovered() { [ $(($(cxb_stat "$p1" tx_recover) - $(snap_get b e1_tx_recover))) -ge "$1" ]; }

tx_error()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	dmesg -c >/dev/null
	cx3_pause_set on "$p1" "$p2" || return 1
	echo 0 >"/sys/class/net/$p1/doorbell_opt" || return 1
	cx3stat -e 3 || return 1
	run_pktgen 2000 1 || return 1
	# a reset of the third error may still run: wait, then count again
	wait_until 10 recovered 3
	sleep 0.5
	pg_snap a
	_rc=0
	ktap_diag "sent $sent: model sq_errors $(cx3_d sq_errors) tx_frames" \
		"$(cx3_d tx_frames); driver tx_err_cqe $(cx3_d e1_tx_err_cqe)" \
		"tx_recover $(cx3_d e1_tx_recover) tx_dropped $(cx3_d e1_tx_dropped)" \
		"tx_timeout $(cx3_d e1_tx_timeout)"
	eq "$(cx3_d sq_errors)" 3 "model sq_errors" || _rc=1
	eq "$(cx3_d e1_tx_err_cqe)" 3 "tx_err_cqe" || _rc=1
	eq "$(cx3_d e1_tx_recover)" 3 "tx_recover" || _rc=1
	eq "$(cx3_d e1_tx_timeout)" 0 "tx_timeout" || _rc=1
	eq $(($(cx3_d tx_frames) + $(cx3_d e1_tx_err_cqe) + $(cx3_d e1_tx_dropped))) \
		"$sent" "model tx_frames + tx_err_cqe + tx_dropped vs sent" || _rc=1
	eq "$(cx3_d rx_frames)" "$(cx3_d tx_frames)" "model rx_frames vs tx_frames" || _rc=1
	eq "$(cx3_d e2_rx_packets)" "$(cx3_d rx_frames)" "rx_packets of $p2" || _rc=1
	eq "$(cx3_d violations)" 0 "model violations" || _rc=1
	cx3_log
	_n=$(printf '%s\n' "$log_lines" | grep -ac 'error CQE at WQE .*resetting')
	ktap_diag "driver error lines: $_n"
	[ "$_n" -ge 1 ] || { ktap_diag "no 'error CQE ... resetting' line"; _rc=1; }
	log_lines=$(printf '%s\n' "$log_lines" | grep -av 'error CQE at WQE .*resetting')
	cx3_log_clean || _rc=1
	return $_rc
}

# ethtool's speed and duplex of port 1, from mlx4_core's QUERY_PORT, no
# autonegotiation; ethtool -s is not supported (the model has no PTYS
# register) and changes nothing
link_settings()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	_o=$(ethtool "$p1") || return 1
	eq "$(echo "$_o" | sed -n 's/^[[:space:]]*Speed: //p')" 10000Mb/s "speed" &&
		eq "$(echo "$_o" | sed -n 's/^[[:space:]]*Duplex: //p')" Full "duplex" &&
		eq "$(echo "$_o" | sed -n 's/^[[:space:]]*Auto-negotiation: //p')" off "autoneg" ||
		return 1
	if _o=$(ethtool -s "$p1" speed 1000 autoneg off 2>&1); then
		ktap_diag "ethtool -s accepted"; return 1
	fi
	case $_o in
	*"Operation not supported"*) ;;
	*) ktap_diag "ethtool -s: $_o"; return 1 ;;
	esac
	eq "$(ethtool "$p1" | sed -n 's/^[[:space:]]*Speed: //p')" 10000Mb/s "speed after -s"
}

N=100
# rxf_send DST: N frames from $p1 to DST; sets dlv and drp (model
# rx_frames and rx_dropped deltas) and rxp (rx_packets delta of $p2)
rxf_send()
{
	_f0=$(cx3_ctr rx_frames) _d0=$(cx3_ctr rx_dropped) _r0=$(cxb_stat "$p2" rx_packets)
	_out=$(rawsend "$p1" "$1" 60 "$N") || { ktap_diag "rawsend: $_out"; return 1; }
	_seen() {
		dlv=$(($(cx3_ctr rx_frames) - _f0)) drp=$(($(cx3_ctr rx_dropped) - _d0))
		[ $((dlv + drp)) -ge "$N" ]
	}
	_got() { rxp=$(($(cxb_stat "$p2" rx_packets) - _r0)); [ "$rxp" -ge "$dlv" ]; }
	wait_until 5 _seen
	wait_until 5 _got
	sleep 0.2
	_seen
	_got
	return 0
}

# rxf DST DELIVERED DROPPED WHAT
rxf()
{
	rxf_send "$1" || return 1
	eq "$dlv" "$2" "$4: model rx_frames" && eq "$drp" "$3" "$4: model rx_dropped" &&
		eq "$rxp" "$2" "$4: rx_packets of $p2"
}

# rxf_refused ADDR: ip link set address ADDR fails with EADDRNOTAVAIL
rxf_refused()
{
	_o=$(ip link set "$p2" address "$1" 2>&1) && {
		ktap_diag "address $1 accepted"; return 1; }
	echo "$_o" | grep -q 'Cannot assign requested address' || {
		ktap_diag "address $1: $_o"; return 1; }
}

rx_filter()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	_v0=$(cx3_ctr violations)
	_u=02:00:00:00:00:99 _g=01:00:5e:01:02:03 _h=01:00:5e:01:02:04
	_new=02:00:00:00:aa:02
	cx3_pause_set on "$p1" "$p2" || return 1
	rxf "$m2" "$N" 0 "own address" && rxf "$_u" 0 "$N" "unknown unicast" &&
		rxf ff:ff:ff:ff:ff:ff "$N" 0 "broadcast" || return 1
	ip maddr add "$_g" dev "$p2" || return 1
	sleep 0.3
	rxf "$_g" "$N" 0 "joined $_g" && rxf "$_h" 0 "$N" "other $_h" || return 1
	ip maddr del "$_g" dev "$p2" || return 1
	sleep 0.3
	rxf "$_g" 0 "$N" "left $_g" || return 1
	ip link set "$p2" allmulticast on && sleep 0.3 || return 1
	rxf "$_h" "$N" 0 "allmulti $_h" && rxf "$_u" 0 "$N" "allmulti unicast" || return 1
	ip link set "$p2" allmulticast off && sleep 0.3 || return 1
	rxf "$_h" 0 "$N" "allmulti off $_h" || return 1
	ip link set "$p2" promisc on && sleep 0.3 || return 1
	rxf "$_u" "$N" 0 "promisc unicast" && rxf "$_h" "$N" 0 "promisc $_h" || return 1
	ip link set "$p2" promisc off && sleep 0.3 || return 1
	rxf "$_u" 0 "$N" "promisc off unicast" && rxf "$_h" 0 "$N" "promisc off $_h" ||
		return 1
	ip link set "$p2" address "$_new" || return 1
	rxf "$m2" 0 "$N" "old address" && rxf "$_new" "$N" 0 "new address" || return 1
	ip link set "$p2" address "$m2" || return 1
	rxf "$m2" "$N" 0 "restored" && rxf "$_new" 0 "$N" "replaced" || return 1
	rxf_refused 01:00:5e:00:00:01 && rxf_refused 00:00:00:00:00:00 || return 1
	eq "$(cat "/sys/class/net/$p2/address")" "$m2" "address of $p2" &&
		eq $(($(cx3_ctr violations) - _v0)) 0 "model violations"
}

RSS_NF=64
RSS_C=3
RSS_K2=6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa

# The flows of rss_cx3 on the queues of $p2 ethtool -x predicts: "q0 q1"
rss_predict()
{
	_key=$(ethtool -x "$p2" | awk 'k { print; exit } /^RSS hash key:/ { k = 1 }')
	_tab=$(ethtool -x "$p2" | awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) printf "%s ", $i }')
	rssflow hash "$_key" 192.0.2.1 198.51.100.7 udp 10000 4791 "$RSS_NF" |
		awk -v t="$_tab" -v c="$RSS_C" '
			BEGIN { n = split(t, tab, " ") }
			{ q[tab[($3 % n) + 1]] += c }
			END { printf "%d %d\n", q[0], q[1] }'
}

# rss_run WHAT: the flows from $p1 to $p2, per queue as predicted
rss_run()
{
	_want=$(rss_predict) || return 1
	_q0=$(cxb_stat "$p2" rx0_packets) _q1=$(cxb_stat "$p2" rx1_packets)
	_f0=$(cx3_ctr rx_frames)
	_out=$(rssflow send "$p1" "$m2" 192.0.2.1 198.51.100.7 udp 10000 4791 \
		"$RSS_NF" "$RSS_C") || { ktap_diag "rssflow: $_out"; return 1; }
	_all=$((RSS_NF * RSS_C))
	_arr() {
		[ $(($(cxb_stat "$p2" rx0_packets) - _q0 +
		     $(cxb_stat "$p2" rx1_packets) - _q1)) -ge "$_all" ]
	}
	wait_until 10 _arr
	sleep 0.3
	_got="$(($(cxb_stat "$p2" rx0_packets) - _q0)) $(($(cxb_stat "$p2" rx1_packets) - _q1))"
	ktap_diag "$1: per queue $_got"
	eq $(($(cx3_ctr rx_frames) - _f0)) "$_all" "$1: model rx_frames" &&
		eq "$_got" "$_want" "$1: per queue"
}

rss_cx3()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	_v0=$(cx3_ctr violations)
	ethtool -L "$p2" combined 2 || return 1
	wait_until 10 carrier "$p2" || return 1
	eq "$(ethtool -x "$p2" | awk '/^ *0:/ { print $2, $3, $4, $5 }')" "0 1 0 1" \
		"default table" || return 1
	rss_run "default" || return 1
	ethtool -X "$p2" hkey "$RSS_K2" || return 1
	rss_run "key K2" || return 1
	ethtool -X "$p2" equal 1 || return 1
	rss_run "equal 1" || return 1
	_t=$(ethtool -x "$p2")
	_o=$(ethtool -X "$p2" weight 1 2 2>&1) && { ktap_diag "weight 1 2 accepted"; return 1; }
	ktap_diag "weight 1 2: $_o"
	echo "$_o" | grep -q "Invalid argument" &&
		eq "$(dmesg | grep -c "$p2: RSS: only queues 0..n-1 in turn, n a power of two")" 1 \
			"log lines" && eq "$(ethtool -x "$p2")" "$_t" "ethtool -x after refusal" ||
		return 1
	ethtool -X "$p2" default || return 1
	rss_run "default again" || return 1
	eq $(($(cx3_ctr violations) - _v0)) 0 "model violations"
}

# vlan_run WHAT: N frames from v1 to port 2, traced there; each frame
# must be WHAT ("TAGGED TCI PROTO LEN" of napi_gro_receive_entry)
vlan_run()
{
	_bf0=$(cxb_stat "$p1" tx_blueflame) _vr0=$(cat /sys/class/net/v2/statistics/rx_packets)
	_r0=$(cxb_stat "$p2" rx_packets)
	cxb_trace_start net/napi_gro_receive_entry "name == \"$p2\"" || return 1
	_out=$(rawsend v1 "$m2" 60 "$N") || { ktap_diag "rawsend: $_out"; return 1; }
	_arr() { [ $(($(cxb_stat "$p2" rx_packets) - _r0)) -ge "$N" ]; }
	wait_until 10 _arr
	sleep 0.3
	cxb_trace_stop net/napi_gro_receive_entry
	_got=$(sed -n 's/.* vlan_tagged=\([01]\) .* vlan_tci=\(0x[0-9a-f]*\) protocol=\(0x[0-9a-f]*\) .* len=\([0-9]*\) .*/\1 \2 \3 \4/p' \
		"$CXB_TRACE/trace" | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')
	ktap_diag "at $p2: $_got"
	eq "$_got" "$N $1;" "frames at $p2" &&
		eq $(($(cat /sys/class/net/v2/statistics/rx_packets) - _vr0)) "$N" "v2 rx_packets" &&
		eq $(($(cxb_stat "$p1" tx_blueflame) - _bf0)) 0 "tx_blueflame of $p1"
}

vlan_cx3()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	_v0=$(cx3_ctr violations)
	[ -e /sys/kernel/tracing/trace ] || mount -t tracefs nodev /sys/kernel/tracing ||
		return 1
	ip link add link "$p1" name v1 type vlan id 100 &&
		ip link add link "$p2" name v2 type vlan id 100 &&
		ip link set v1 up && ip link set v2 up || return 1
	_rc=0
	vlan_run "1 0x0064 0x88b5 46" || _rc=1
	ethtool -K "$p2" rxvlan off && wait_until 10 carrier "$p2" || _rc=1
	[ $_rc = 0 ] && { vlan_run "0 0x0000 0x8100 50" || _rc=1; }
	ethtool -K "$p2" rxvlan on && wait_until 10 carrier "$p2" || _rc=1
	[ $_rc = 0 ] && { vlan_run "1 0x0064 0x88b5 46" || _rc=1; }
	ip link del v1
	ip link del v2
	[ $_rc = 0 ] && eq $(($(cx3_ctr violations) - _v0)) 0 "model violations"
}

pinged=0
ping_ok()
{
	[ "$up" = 1 ] || { ktap_diag "ports not up"; return 1; }
	cxb_netns_pair "$p1" "$p2" 10 || return 1
	_t0=$(cxb_stat "$p1" tx_packets a) && _b0=$(cxb_stat "$p1" tx_bounced a) ||
		return 1
	ns_ping10 || return 1
	pinged=1
	# every frame port 1 sent (ARP, 98-byte echo requests) is short and
	# linear: copied into the send ring's bounce buffer, none mapped
	_t=$(($(cxb_stat "$p1" tx_packets a) - _t0))
	_b=$(($(cxb_stat "$p1" tx_bounced a) - _b0))
	ktap_diag "port 1 sent $_t frames, $_b through the bounce buffer"
	le 10 "$_t" "port 1 tx_packets" && eq "$_b" "$_t" "port 1 tx_bounced"
}

# tcp_tso MIB: cx3_tcp_tso with cxbell's count of LSO WQEs, and the
# model saw no violation
tcp_tso()
{
	cx3_tcp_tso "$1" tx_tso_packets &&
	eq "$(cx3_d violations)" 0 "model violations"
}

tcp_ok()
{
	[ $pinged = 1 ] || { ktap_diag "ping failed: not tried"; return 1; }
	tcp_tso "$TCP_MB"
}

# TSO on by default (the model advertises LSO, so cxbell_mlx4 offers
# it): the transfer went out in LSO WQEs; off: none
tso_ok()
{
	[ $pinged = 1 ] || { ktap_diag "ping failed: not tried"; return 1; }
	_f=$(ip netns exec a ethtool -k "$p1" | awk '$1 == "tcp-segmentation-offload:" { print $2 }')
	eq "$_f" on "tcp-segmentation-offload" && tcp_tso 4 &&
		[ "$_tso" -gt 0 ] || { ktap_diag "no LSO WQE"; return 1; }
	for _x in "a $p1" "b $p2"; do
		set -- $_x
		ip netns exec "$1" ethtool -K "$2" tso off || return 1
	done
	tcp_tso 4 && eq "$gso_skbs" 0 "GSO skbs, TSO off" &&
		eq "$(cx3_d lso_segments)" 0 "model lso_segments, TSO off"
	_rc=$?
	for _x in "a $p1" "b $p2"; do
		set -- $_x
		ip netns exec "$1" ethtool -K "$2" tso on || _rc=1
	done
	return $_rc
}

datapath_clean()
{
	[ -n "$tx_frames0" ] || { ktap_diag "no datapath case ran"; return 1; }
	snap_new z && snap_add z "" cx3_counters
	ktap_diag "model: $(cx3stat | tr '\n' ' ')"
	_rc=0
	eq $(($(snap_get z violations) - viol0)) 0 "model violations since the test began" || _rc=1
	eq "$(($(snap_get z tx_frames) - tx_frames0))" \
		"$(($(snap_get z rx_frames) - rx_frames0 + $(snap_get z rx_dropped) - rx_dropped0 +
		    $(snap_get z link_dropped) - link_dropped0))" \
		"model tx_frames vs rx_frames + rx_dropped + link_dropped since the first pktgen run" ||
		_rc=1
	return $_rc
}

# README's way back to mlx4_en: cxbell off, the modprobe.d file gone
# (with kmod's modprobe out of the kernel's hands again: the next test of
# the boot loads mlx4_core its own way), mlx4_core reloaded: mlx4_en
# drives the ports again.
unload_clean()
{
	for _ns in a b; do
		ip netns list | grep -q "^$_ns" && ip netns del "$_ns"
	done
	dmesg -c >/dev/null
	modprobe -r cxbell_mlx4 cxbell || { ktap_diag "modprobe -r cxbell_mlx4 cxbell failed"; return 1; }
	rm /etc/modprobe.d/cxbell-mlx4.conf || return 1
	modprobe -r mlx4_core || { ktap_diag "modprobe -r mlx4_core failed"; return 1; }
	_rc=0
	modprobe mlx4_core || { ktap_diag "modprobe mlx4_core failed"; return 1; }
	# Up to 6.4 mlx4_core requests mlx4_en itself (request_module_nowait).
	# From 6.5 udev loads it by the modalias of the mlx4_core.eth
	# auxiliary device; this guest has no udev, so do what it would.
	if ! grep -q ' symbol:mlx4_register_interface ' \
		"/lib/modules/$(uname -r)/modules.symbols" 2>/dev/null; then
		modprobe mlx4_en || { ktap_diag "modprobe mlx4_en failed"; return 1; }
	fi
	wait_until 20 eval '[ -d /sys/module/mlx4_en ] && [ $(cx3_netdevs | wc -l) = 2 ]' ||
		{ ktap_diag "mlx4_en did not take the ports: $(cx3_netdevs | tr '\n' ' ')"; _rc=1; }
	loaded cxbell_mlx4 && { ktap_diag "cxbell_mlx4 loaded without the modprobe.d file"; _rc=1; }
	for _m in mlx4_en mlx4_core; do
		loaded $_m && { rmmod $_m || _rc=1; }
	done
	echo "$kmod_was" >/proc/sys/kernel/modprobe
	cx3_log
	cx3_log_clean || _rc=1
	return $_rc
}

p1= p2= m1= m2= up=0 kmod_was=/sbin/modprobe
ktap_ok readme_load readme_load
ktap_ok netdevs netdevs_ok
ktap_ok ethtool ethtool_ok
ktap_ok reload_x3 reload_x3
ktap_ok ports_up ports_up
ktap_ok link_settings link_settings
for OPT in $OPTS; do
	for BF in $BFS; do
		for B in $BURSTS; do
			ktap_ok "pktgen_${OPT}_${BF}_$B" pktgen_policy "$OPT" "$BF" "$B"
		done
	done
done
ktap_ok inline inline_ok
ktap_ok queue_stops queue_stops
ktap_ok cable_pull cable_pull
ktap_ok tx_error tx_error
ktap_ok rx_filter rx_filter
ktap_ok rss rss_cx3
ktap_ok vlan vlan_cx3
ktap_ok ping ping_ok
ktap_ok tcp_64mib tcp_ok
ktap_ok tso tso_ok
ktap_ok datapath_clean datapath_clean
ktap_ok unload_clean unload_clean
ktap_finish
