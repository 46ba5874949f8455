# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures in the driver's paths (make check-debug; every case
# SKIPs on a kernel without CONFIG_FAILSLAB, such as Debian's).
#
# x86_64 kernels have no stack-trace filter for fault injection
# (FAULT_INJECTION_STACKTRACE_FILTER depends on !X86_64), so the failures
# cannot be limited to cxbell's text. They are limited to one task and
# one operation instead:
#   *_nth     systematic: the Nth slab or page allocation of this shell
#             fails (/proc/PID/task/PID/fail-nth) while it performs one
#             operation by a sysfs write (the shell itself opens and
#             writes, so the driver code runs in this task), for N = 1,
#             2, ... up to the number of allocations the operation makes
#             (every Kth N past NTH_MAX = 30 points): creating an
#             adapter (probe, netdev registration), a port going up (ring
#             allocation; IFF_UP written to /sys/class/net/IF/flags), an
#             MTU change while up (datapath restart), deleting an adapter.
#   *_random  failslab and fail_page_alloc with a probability, for the
#             tasks marked with make-it-fail only (the ethtool, ip and
#             modprobe processes): ethtool -G / -L and down / up in a
#             loop; modprobe of both modules.
# Expected: an operation succeeds or fails with an errno, and leaves a
# consistent state: the adapter can be deleted, the port brought up with
# carrier, the sim holds no more DMA mappings than before; no bad kernel
# log line besides the reports of the injected failures themselves (the
# stack dumps of "page allocation failure" / "vmalloc error" are
# expected). While failures are injected the console only shows
# emergencies (vm-run would count those dumps); this test checks the log.
# Leaks are left to kmemleak.sh (run last by make check-debug).
. /cxbell/lib.sh

ktap_plan 7
FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
NTH=/proc/$$/task/$$/fail-nth
NTH_MAX=30
ROUNDS=20

cases="create_adapter_nth port_up_nth mtu_nth delete_adapter_nth
reconfig_random modprobe_random teardown_clean"
if [ ! -d $FS ] || [ ! -d $FP ] || [ ! -e "$NTH" ]; then
	for c in $cases; do
		ktap_skip "$c" "no $FS (kernel without CONFIG_FAILSLAB)"
	done
	ktap_finish
fi
no_ipv6
# For kmemleak.sh: an injected failure may hit the DMA-API debugging's own
# tracking (active_cacheline_insert() then turns it off).
touch /tmp/cxb-faults-injected

# Fail nothing by chance (probability 0: fail-nth still works), count
# GFP_KERNEL allocations too (ignore-gfp-wait N), but never user pages
# (a failed user page fault is an OOM kill, not an errno), any order, no
# report of their own (verbose 0), only tasks with make-it-fail set.
# All put back at exit (lib/cleanup.sh), the console level too.
for d in $FS $FP; do
	cxb_set $d/probability 0
	cxb_set $d/interval 1
	cxb_set $d/times -1
	cxb_set $d/space 0
	cxb_set $d/verbose 0
	cxb_set $d/task-filter Y
	cxb_set $d/ignore-gfp-wait N
done
cxb_set $FP/ignore-gfp-highmem Y
cxb_set $FP/min-order 0
cxb_on_exit "dmesg -n $(cut -f1 /proc/sys/kernel/printk)"

# Bad kernel log lines since the last call, without the "Call Trace" of
# the reports of injected failures (their header up to "</TASK>").
fi_log_bad()
{
	dmesg -c 2>/dev/null | awk '
		/page allocation failure|vmalloc error:|FAULT_INJECTION: forcing/ { rep = 1 }
		/<\/TASK>/ { rep = 0 }
		rep && /Call Trace/ { next }
		{ print }' | grep -aE "$CXB_BAD"
}

log_clean()
{
	_bad=$(fi_log_bad)
	[ -z "$_bad" ] && return 0
	ktap_diag "bad kernel log lines ($1):"
	printf '%s\n' "$_bad" | head -n 40 | sed 's/^/# dmesg: /'
	return 1
}

# nth_write N FILE DATA: write DATA to FILE (a shell redirection: this
# task opens and writes) with the Nth fault point of this task failing.
# Sets nth_rc (the write's status), nth_left (fail-nth afterwards: 0 if
# the Nth point was reached, what was left otherwise).
nth_write()
{
	echo "$1" >"$NTH" || return 1
	echo "$3" >"$2"
	nth_rc=$?
	# (If this read's own open got the failure, the write did not.)
	read -r nth_left <"$NTH" || nth_left=1
	echo 0 >"$NTH"
	return 0
}

# nth_loop NAME OP UNDO CHECK: count OP's fault points, then for N = 1,
# 1 + K, ...: OP N, UNDO, CHECK, until OP no longer reaches the Nth point.
# OP, UNDO and CHECK are functions; OP calls nth_write with its N.
nth_loop()
{
	fl_name=$1 fl_op=$2 fl_undo=$3 fl_check=$4
	# Shell errors ("Cannot allocate memory") are expected: not shown.
	exec 4>&2 2>/dev/null
	dmesg -n 1
	$fl_op 1000000
	fl_pts=$((1000000 - nth_left))
	$fl_undo && $fl_check "$fl_name count" || { exec 2>&4 4>&-; dmesg -n 5; return 1; }
	fl_step=$(((fl_pts + NTH_MAX - 1) / NTH_MAX))
	[ $fl_step -ge 1 ] || fl_step=1
	fl_n=1 fl_tried=0 fl_hit=0 fl_err=0
	while [ $fl_n -le $((fl_pts + 2)) ]; do
		$fl_op $fl_n
		fl_tried=$((fl_tried + 1))
		[ "$nth_left" = 0 ] && fl_hit=$((fl_hit + 1))
		[ "$nth_rc" != 0 ] && fl_err=$((fl_err + 1))
		$fl_undo && $fl_check "$fl_name N=$fl_n" || {
			exec 2>&4 4>&-
			dmesg -n 5
			ktap_diag "$fl_name: inconsistent after a failure at N=$fl_n"
			return 1
		}
		[ "$nth_left" = 0 ] || break
		fl_n=$((fl_n + fl_step))
	done
	exec 2>&4 4>&-
	dmesg -n 5
	ktap_diag "$fl_name: $fl_pts fault points, $fl_tried tried (every $fl_step), $fl_hit failures injected, $fl_err writes failed"
}

# The sim's live DMA mappings of adapter 1 (all adapters if it is gone).
dma1() { cat "$CXB_DBG/cxbell_sim1/dma_live" 2>/dev/null || sim_dma_live; }
dma_is() { [ "$(dma1)" = "$1" ]; }
carrier_on() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }

# --- creating an adapter: probe, two netdevs registered ---
op_create() { nth_write "$1" "$CXB_BUS/new_device" "1 2"; }
undo_create()
{
	[ -e "$CXB_BUS/devices/cxbell_sim1" ] || return 0
	cxb_del 1 || { ktap_diag "cannot delete the adapter"; return 1; }
}
check_zero()
{
	dma_is 0 || { ktap_diag "$1: dma_live $(sim_dma_live)"; return 1; }
	log_clean "$1"
}
create_adapter()
{
	cxb_load || return 1
	nth_loop create_adapter op_create undo_create check_zero || return 1
	# And it still works.
	cxb_new 1 2 && cxb_del 1 && check_zero create_adapter
}

# --- a port going up (port 1 already up: the link comes up too) ---
op_up() { nth_write "$1" "/sys/class/net/$p0/flags" "$up_flags"; }
undo_up() { ip link set "$p0" down; }
check_base()
{
	wait_until 5 dma_is "$base" || {
		ktap_diag "$1: dma_live $(dma1), was $base"; return 1; }
	log_clean "$1"
}
port_up()
{
	cxb_new 1 2 || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || return 1
	ip link set "$p1" up || return 1
	base=$(dma1)
	up_flags=$(printf '0x%x' $(($(cat "/sys/class/net/$p0/flags") | 1)))
	nth_loop port_up op_up undo_up check_base || return 1
	ip link set "$p0" up && wait_until 10 carrier_on "$p0" || {
		ktap_diag "no carrier after the failures"; return 1; }
	log_clean port_up
}

# Adapter 1 (created if missing), both ports up with carrier; p0, p1.
both_up()
{
	[ -e "$CXB_BUS/devices/cxbell_sim1" ] || cxb_new 1 2 || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || return 1
	ip link set "$p0" up && ip link set "$p1" up || return 1
	wait_until 10 carrier_on "$p0" || { ktap_diag "no carrier"; return 1; }
}

# --- an MTU change while up (both ports up) ---
op_mtu() { nth_write "$1" "/sys/class/net/$p0/mtu" 4000; }
undo_mtu()
{
	ip link set "$p0" mtu 1500 || { ktap_diag "mtu 1500 failed"; return 1; }
	# A failed restart may have left the port down: bring it up again.
	ip link set "$p0" down && ip link set "$p0" up || return 1
	wait_until 10 carrier_on "$p0" || { ktap_diag "no carrier"; return 1; }
}
mtu_change()
{
	both_up || return 1
	base=$(dma1)
	nth_loop mtu op_mtu undo_mtu check_base
}

# --- deleting an adapter with both ports up ---
op_del() { nth_write "$1" "$CXB_BUS/del_device" 1; }
undo_del()
{
	undo_create || return 1
	dma_is 0 || { ktap_diag "dma_live $(sim_dma_live) after delete"; return 1; }
	# The next attempt's adapter, ports up.
	cxb_new 1 2 && both_up
}
check_log() { log_clean "$1"; }
delete_adapter()
{
	both_up || return 1
	nth_loop delete_adapter op_del undo_del check_log || return 1
	cxb_del 1 && check_zero delete_adapter
}

# --- ethtool -G / -L and down / up, random failures ---
inj() { sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' inj "$@"; }
ring() { ethtool -g "$p0" | awk -v k="$1:" '/^Current/ { c = 1 } c && $1 == k { print $2; exit }'; }
reconfig()
{
	cxb_new 1 2 || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || return 1
	ip link set "$p1" up || return 1
	base=$(dma1)
	ip link set "$p0" up || return 1
	rx0=$(ring RX) && tx0=$(ring TX) || return 1
	ch0=$(ethtool -l "$p0" | awk '/^Current/ { c = 1 } c && $1 == "Combined:" { print $2; exit }')
	dmesg -n 1
	echo 1 >$FS/probability
	echo 1 >$FP/probability
	fl_i=0 fl_ok=0 fl_nok=0
	while [ $fl_i -lt $ROUNDS ]; do
		for c in "ethtool -G $p0 rx $((256 << (fl_i % 3))) tx $((128 << (fl_i % 4)))" \
			 "ethtool -L $p0 combined $((1 + fl_i % 2))" \
			 "ip link set $p0 down" "ip link set $p0 up"; do
			# shellcheck disable=SC2086
			if inj $c >/dev/null 2>&1; then
				fl_ok=$((fl_ok + 1))
			else
				fl_nok=$((fl_nok + 1))
			fi
		done
		fl_i=$((fl_i + 1))
	done
	echo 0 >$FS/probability
	echo 0 >$FP/probability
	dmesg -n 5
	ktap_diag "reconfig: $fl_ok commands succeeded, $fl_nok failed ($ROUNDS rounds, 1% failslab and fail_page_alloc)"
	log_clean reconfig || return 1
	# Back to the start, without failures.
	ethtool -G "$p0" rx "$rx0" tx "$tx0" && ethtool -L "$p0" combined "${ch0:-1}" &&
	ip link set "$p0" up || { ktap_diag "cannot restore the port"; return 1; }
	wait_until 10 carrier_on "$p0" || { ktap_diag "no carrier after the failures"; return 1; }
	ip link set "$p0" down || return 1
	check_base reconfig || return 1
	cxb_del 1 && check_zero reconfig
}

# --- modprobe under random failures (module init error paths) ---
modprobe_random()
{
	cxb_unload || return 1
	dmesg -n 1
	echo 2 >$FS/probability
	echo 2 >$FP/probability
	fl_i=0 fl_ok=0
	while [ $fl_i -lt $ROUNDS ]; do
		inj modprobe cxbell >/dev/null 2>&1 && inj modprobe cxbell_sim >/dev/null 2>&1 &&
			fl_ok=$((fl_ok + 1))
		echo 0 >$FS/probability
		echo 0 >$FP/probability
		cxb_unload || { dmesg -n 5; ktap_diag "rmmod failed"; return 1; }
		echo 2 >$FS/probability
		echo 2 >$FP/probability
		fl_i=$((fl_i + 1))
	done
	echo 0 >$FS/probability
	echo 0 >$FP/probability
	dmesg -n 5
	ktap_diag "modprobe: both modules loaded in $fl_ok of $ROUNDS rounds (2% failslab and fail_page_alloc)"
	log_clean modprobe
}

# --- no failures: everything still works and is released ---
teardown()
{
	cxb_load && both_up || return 1
	cxb_del 1 && check_zero teardown && cxb_unload
}

ktap_ok create_adapter_nth create_adapter
ktap_ok port_up_nth port_up
ktap_ok mtu_nth mtu_change
ktap_ok delete_adapter_nth delete_adapter
ktap_ok reconfig_random reconfig
ktap_ok modprobe_random modprobe_random
ktap_ok teardown_clean teardown
ktap_finish
