# SPDX-License-Identifier: GPL-2.0
#
# XDP on page_pool receive rings, driven by Debian's xdp-tools (xdp-bench
# drop/pass/tx/redirect, unchanged) and iproute2, with pktgen traffic from
# port A (port 0) to port B (port 1) of sim adapter 1, one channel each:
#   drop:     B's rx_xdp_drop == SENT, nothing reaches B's stack
#   pass:     B's rx_xdp_pass == rx_packets == SENT
#   tx:       B's rx_xdp_tx == SENT, A receives SENT frames (driver and sim
#             counters), every one intact with swapped MACs (pktcheck on a
#             packet socket of A); tx_xdp_doorbells == rx_xdp_tx_polls
#             (one per NAPI poll that posted) == sim doorbells of B;
#             tx_xdp_cqes == SENT (cx3: a CQE per WQE) or == the
#             doorbells (cx5: a CQE per doorbell)
#   per-packet: with debugfs xdp_tx_doorbell_per_packet 1, one doorbell
#             per frame; bad input to the switch is EINVAL
#   redirect: xdp-bench redirect B C, C = port 0 of adapter 2 (not A: A's
#             cable leads back to B, the frames would loop): B's
#             rx_xdp_redirect == C's tx_xdp_xmit == D's rx_packets == SENT,
#             C's tx_xdp_doorbells <= B's NAPI polls (one per flush);
#             D is promiscuous (the frames carry B's address)
#   replace:  attach, replace and detach (ip link ... xdpdrv) 10 times while
#             pktgen floods B: dmesg clean, every frame accounted
#   mtu:      attach with MTU 9000 fails with the extack message in ip's
#             output; with a program attached MTU 4000 is refused
#   teardown: dma_live 0 (the page pools gave every page back)
# All of it on cx3 adapters, then on cx5 adapters (whose XDP send queue
# posts mlx5 SEND WQEs, each doorbell's last one asking for the CQE), then
# tx on a cx4 adapter (minimum inline mode L2: each WQE carries the
# frame's first 18 bytes inline, the data segment the rest).
#
#   xdp.sh [COUNT]    COUNT defaults to 20480
. /cxbell/lib.sh

COUNT=${1:-20480}
BPFOBJ=/usr/lib/x86_64-linux-gnu/bpf/xsk_def_xdp_prog.o
ktap_plan 24
no_ipv6

setup()
{
	command -v xdp-bench >/dev/null ||
		{ ktap_diag "xdp-bench missing (xdp-tools)"; return 1; }
	mkdir -p /sys/fs/bpf
	grep -q ' /sys/fs/bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf
	cxb_pktgen_pair "$gen" || return 1
	amac=$(cat "/sys/class/net/$p0/address")
	dbgsw=/sys/kernel/debug/cxbell/$(basename "$(readlink "/sys/class/net/$p1/device")")/xdp_tx_doorbell_per_packet
	[ -e "$dbgsw" ] || { ktap_diag "no $dbgsw"; return 1; }
}

# traffic: pktgen COUNT frames A -> B; sets sent
traffic()
{
	res=$(pktgen_run "$p0" "$COUNT" 64 "$mac" 60) || return 1
	sent=${res#* }
}

delta() { echo $(($(cxb_stat "$1" "$2") - $3)); }

# xdp_verdict MODE STAT: xdp-bench MODE on B while pktgen sends COUNT
# frames from A; sets verdict (B's STAT delta), rx (B's rx_packets delta)
# and srx (frames the sim delivered to B)
xdp_verdict()
{
	bench_start "$1" "$p1" || return 1
	_st=$2
	v0=$(cxb_stat "$p1" "$_st") r0=$(cxb_stat "$p1" rx_packets)
	s0=$(sim_ctr 1 1 rx_frames)
	traffic || return 1
	got() { [ "$(delta "$p1" "$_st" "$v0")" -ge "$sent" ]; }
	wait_until 10 got
	verdict=$(delta "$p1" "$_st" "$v0")
	rx=$(delta "$p1" rx_packets "$r0")
	srx=$(($(sim_ctr 1 1 rx_frames) - s0))
	bench_stop "$p1" || return 1
	ktap_diag "sent $sent, $_st $verdict, rx_packets $rx, sim rx_frames $srx"
}

xdp_drop()
{
	xdp_verdict drop rx_xdp_drop || return 1
	eq "$verdict" "$sent" "rx_xdp_drop" && eq "$srx" "$sent" "sim rx_frames"
}

xdp_pass()
{
	xdp_verdict pass rx_xdp_pass || return 1
	eq "$verdict" "$sent" "rx_xdp_pass" && eq "$rx" "$sent" "rx_packets" &&
		eq "$srx" "$sent" "sim rx_frames"
}

# xdp_tx_run: one XDP_TX run; sets tx, arx, srx, db, polls, sdb, intact
xdp_tx_run()
{
	bench_start tx "$p1" -p swap-macs || return 1
	t0=$(cxb_stat "$p1" rx_xdp_tx) a0=$(cxb_stat "$p0" rx_packets)
	db0=$(cxb_stat "$p1" tx_xdp_doorbells) pl0=$(cxb_stat "$p1" rx_xdp_tx_polls)
	cq0=$(cxb_stat "$p1" tx_xdp_cqes)
	sa0=$(sim_ctr 1 0 rx_frames) sdb0=$(sim_ctr 1 1 doorbells)
	# pktgen may send a little more than COUNT (a burst ends the run):
	# the checker stops after 5 s without a frame
	pktcheck "$p0" 5 $((COUNT * 2)) "$amac" "$mac" >/tmp/pktcheck.out 2>/tmp/pktcheck.err &
	pc=$!
	wait_until 5 grep -q ready /tmp/pktcheck.err
	traffic || return 1
	got() { [ "$(delta "$p0" rx_packets "$a0")" -ge "$sent" ]; }
	wait_until 10 got
	wait "$pc"
	tx=$(delta "$p1" rx_xdp_tx "$t0")
	arx=$(delta "$p0" rx_packets "$a0")
	srx=$(($(sim_ctr 1 0 rx_frames) - sa0))
	db=$(delta "$p1" tx_xdp_doorbells "$db0")
	polls=$(delta "$p1" rx_xdp_tx_polls "$pl0")
	cqes=$(delta "$p1" tx_xdp_cqes "$cq0")
	sdb=$(($(sim_ctr 1 1 doorbells) - sdb0))
	intact=$(awk '{ print $4 }' /tmp/pktcheck.out)
	frames=$(awk '{ print $2 }' /tmp/pktcheck.out)
	bench_stop "$p1" || return 1
	ktap_diag "sent $sent, rx_xdp_tx $tx, A rx_packets $arx (sim $srx)," \
		"captured $frames intact $intact, tx_xdp_doorbells $db," \
		"rx_xdp_tx_polls $polls, sim doorbells $sdb, tx_xdp_cqes $cqes," \
		"doorbells/pkt $(awk -v d="$db" -v s="$sent" 'BEGIN { printf "%.4f", d / s }')"
}

# cx3 asks a CQE of every XDP WQE, cx5 of the last one each doorbell
# names (mlx5e_notify_hw())
xdp_cqes_ok()
{
	if [ "$gen" != cx3 ]; then
		eq "$cqes" "$db" "tx_xdp_cqes (one per doorbell)"
	else
		eq "$cqes" "$tx" "tx_xdp_cqes (one per frame)"
	fi
}

xdp_tx()
{
	xdp_tx_run || return 1
	rc=0
	eq "$tx" "$sent" "rx_xdp_tx" || rc=1
	eq "$arx" "$sent" "A rx_packets" || rc=1
	eq "$srx" "$sent" "sim port0 rx_frames" || rc=1
	eq "$intact" "$sent" "intact frames captured on A" || rc=1
	eq "$db" "$polls" "tx_xdp_doorbells vs polls that posted" || rc=1
	eq "$sdb" "$db" "sim doorbells of B vs tx_xdp_doorbells" || rc=1
	xdp_cqes_ok || rc=1
	# NAPI budget 64: at most 64 frames per doorbell
	le "$sent" $((db * 64)) "frames per doorbell <= 64" || rc=1
	return $rc
}

xdp_tx_per_packet()
{
	rc=0
	err=$(cxb_write "$dbgsw" "2") && { ktap_diag "2 accepted"; rc=1; }
	eq "$err" "Invalid argument" "write 2" || rc=1
	err=$(cxb_write "$dbgsw" "x") && { ktap_diag "x accepted"; rc=1; }
	eq "$err" "Invalid argument" "write x" || rc=1
	cxb_write "$dbgsw" "1" || return 1
	eq "$(cat "$dbgsw")" 1 "switch read back" || rc=1
	xdp_tx_run || rc=1
	cxb_write "$dbgsw" "0" || rc=1
	eq "$tx" "$sent" "rx_xdp_tx" || rc=1
	eq "$arx" "$sent" "A rx_packets" || rc=1
	eq "$intact" "$sent" "intact frames captured on A" || rc=1
	eq "$db" "$sent" "tx_xdp_doorbells per packet" || rc=1
	eq "$sdb" "$db" "sim doorbells of B vs tx_xdp_doorbells" || rc=1
	xdp_cqes_ok || rc=1
	return $rc
}

xdp_redirect()
{
	cxb_adapter_up 2 "$gen" || return 1
	c=$(cxb_netdev 2 0) && d=$(cxb_netdev 2 1) || return 1
	# the redirected frames still carry B's address: D receives them
	# promiscuously, as a sniffer on the far end of C's cable would
	ip link set "$d" promisc on || return 1
	bench_start redirect "$p1" "$c" || return 1
	r0=$(cxb_stat "$p1" rx_xdp_redirect) x0=$(cxb_stat "$c" tx_xdp_xmit)
	xdb0=$(cxb_stat "$c" tx_xdp_doorbells) n0=$(cxb_stat "$p1" napi_polls)
	d0=$(cxb_stat "$d" rx_packets) sdb0=$(sim_ctr 2 0 doorbells)
	traffic || return 1
	got() { [ "$(delta "$d" rx_packets "$d0")" -ge "$sent" ]; }
	wait_until 10 got
	red=$(delta "$p1" rx_xdp_redirect "$r0")
	xm=$(delta "$c" tx_xdp_xmit "$x0")
	xdb=$(delta "$c" tx_xdp_doorbells "$xdb0")
	np=$(delta "$p1" napi_polls "$n0")
	drx=$(delta "$d" rx_packets "$d0")
	sdb=$(($(sim_ctr 2 0 doorbells) - sdb0))
	bench_stop "$p1" || return 1
	ktap_diag "sent $sent, B rx_xdp_redirect $red, C tx_xdp_xmit $xm," \
		"D rx_packets $drx, C tx_xdp_doorbells $xdb (sim $sdb)," \
		"B napi_polls $np"
	rc=0
	eq "$red" "$sent" "B rx_xdp_redirect" || rc=1
	eq "$xm" "$sent" "C tx_xdp_xmit" || rc=1
	eq "$drx" "$sent" "D rx_packets" || rc=1
	eq "$sdb" "$xdb" "sim doorbells of C vs tx_xdp_doorbells" || rc=1
	le "$xdb" "$np" "C doorbells vs B polls (one per flush)" || rc=1
	le "$sent" $((xdb * 64)) "frames per flush <= 64" || rc=1
	return $rc
}

xdp_replace()
{
	r0=$(cxb_stat "$p1" rx_packets) s0=$(sim_ctr 1 1 rx_frames)
	pktgen_run "$p0" 1000000 64 "$mac" 60 >/dev/null &
	pg=$!
	sleep 1
	rc=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		out=$(ip link set dev "$p1" xdpdrv obj "$BPFOBJ" sec xdp 2>&1) ||
			{ ktap_diag "attach $i: $out"; rc=1; break; }
		out=$(ip -force link set dev "$p1" xdpdrv obj "$BPFOBJ" sec xdp 2>&1) ||
			{ ktap_diag "replace $i: $out"; rc=1; break; }
		xdp-bench drop "$p1" -i 1 >/dev/null 2>&1 &
		xb=$!
		sleep 0.5
		kill -INT "$xb" 2>/dev/null
		wait "$xb" 2>/dev/null
		ip link set dev "$p1" xdpdrv off 2>/dev/null
		ip link set dev "$p1" xdpdrv off || { rc=1; break; }
	done
	pktgen_stop
	wait "$pg"
	sleep 0.5
	rx=$(delta "$p1" rx_packets "$r0")
	srx=$(($(sim_ctr 1 1 rx_frames) - s0))
	ktap_diag "$i rounds, sim delivered $srx, B rx_packets $rx"
	eq "$rx" "$srx" "B rx_packets vs sim rx_frames" || rc=1
	xdp_detached "$p1" || { ktap_diag "left attached"; rc=1; }
	return $rc
}

xdp_mtu()
{
	rc=0
	ip link set dev "$p1" mtu 9000 || return 1
	out=$(ip link set dev "$p1" xdpdrv obj "$BPFOBJ" sec xdp 2>&1) &&
		{ ktap_diag "attached at MTU 9000"; rc=1; }
	ktap_diag "ip: $(echo "$out" | grep -i mtu)"
	echo "$out" | grep -q "MTU too large for XDP" ||
		{ ktap_diag "no extack message: $out"; rc=1; }
	ip link set dev "$p1" mtu 1500 || return 1
	ip link set dev "$p1" xdpdrv obj "$BPFOBJ" sec xdp || return 1
	ip link set dev "$p1" mtu 4000 2>/dev/null &&
		{ ktap_diag "MTU 4000 accepted with XDP"; rc=1; }
	eq "$(cat "/sys/class/net/$p1/mtu")" 1500 "MTU" || rc=1
	ip link set dev "$p1" xdpdrv off || rc=1
	# the refused change left a working datapath: traffic still passes
	r0=$(cxb_stat "$p1" rx_packets)
	traffic || return 1
	got() { [ "$(delta "$p1" rx_packets "$r0")" -ge "$sent" ]; }
	wait_until 10 got
	eq "$(delta "$p1" rx_packets "$r0")" "$sent" "rx_packets after" || rc=1
	return $rc
}

teardown()
{
	rmmod pktgen
	cxb_del 2
	cxb_del 1 || return 1
	dma_live_zero "dma_live after teardown (no page_pool page leaked)" || return 1
	cxb_unload
}

# cases_if COND WHY NAME:FN...: each case (NAME with the generation's
# suffix), or, when the command COND fails, each a SKIP with WHY
cases_if()
{
	_cond=$1 _why=$2
	shift 2
	"$_cond"
	_have=$?
	for _c; do
		if [ $_have = 0 ]; then
			ktap_ok "${_c%%:*}$sfx" "${_c#*:}"
		else
			ktap_skip "${_c%%:*}$sfx" "$_why"
		fi
	done
}

# xdp-bench's programs are CO-RE: they need the kernel's BTF, which
# make check-debug's kernel is built without.
have_btf() { [ -e /sys/kernel/btf/vmlinux ]; }
# $BPFOBJ (libxdp's AF_XDP default program) has an XSKMAP: it needs XDP
# sockets, which make check-debug's kernel also lacks.
have_xsk() { grep -q '^XDP ' /proc/net/protocols; }

nobtf="no /sys/kernel/btf/vmlinux (kernel without CONFIG_DEBUG_INFO_BTF): xdp-bench cannot load"
for gen in cx3 cx5 cx4; do
	sfx=
	[ $gen = cx3 ] || sfx=_$gen
	ktap_ok "setup_adapter$sfx" setup || ktap_finish
	# cx4: what its minimum inline mode changes, XDP_TX's WQE (the
	# frame's first 18 bytes inline); the rest as cx5
	if [ $gen = cx4 ]; then
		cases_if have_btf "$nobtf" xdp_tx_one_doorbell_per_poll:xdp_tx
	else
		cases_if have_btf "$nobtf" \
			xdp_drop_exact:xdp_drop xdp_pass_exact:xdp_pass \
			xdp_tx_one_doorbell_per_poll:xdp_tx \
			xdp_tx_doorbell_per_packet_switch:xdp_tx_per_packet \
			xdp_redirect_exact:xdp_redirect
		cases_if have_xsk "kernel without CONFIG_XDP_SOCKETS: $BPFOBJ cannot load" \
			xdp_attach_replace_detach_under_traffic:xdp_replace \
			xdp_mtu_too_large_extack:xdp_mtu
	fi
	ktap_ok "sim_no_violations$sfx" eq "$(($(sim_ctr 1 0 violations) + \
		$(sim_ctr 1 1 violations) + $(sim_ctr 2 0 violations 2>/dev/null || echo 0)))" \
		0 "violations"
	ktap_ok "teardown_dma_live_zero$sfx" teardown || ktap_finish
done
ktap_finish
