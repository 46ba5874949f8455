# SPDX-License-Identifier: GPL-2.0
# cxbell-test: violations-ok
#
# Fuzz of the QEMU ConnectX-3 model's command interface and doorbells
# from the guest (vm-run --cx3; run-tests boots tests/cx3-*.sh so): the
# test-only module cx3fuzz.ko (tools/testing/cxbell/cx3fuzz/, in the
# initramfs by mkinitramfs) binds the function through driver_override
# and, per seed, issues random and valid-looking HCR commands, UAR and
# BlueFlame doorbells and BAR0 writes (what and how safely: the top of
# cx3fuzz.c). The model must refuse what is wrong as a violation and
# stay alive and sane; afterwards the stock mlx4_core/mlx4_en must work
# on it as if nothing happened.
#
#   fuzz_seeds        the seeds, one bind each, ITERS steps (each seed
#                     binds, runs to the end, unbinds), until SECS have
#                     passed (at least one seed): every bind succeeds (no
#                     HCR command that never completes), the guest lives
#   model_sane        cx3stat still reads the counters page; the model's
#                     "commands" grew by exactly the number of commands the
#                     module posted, "cmd_errors" by exactly the number that
#                     came back with a status, and "violations" by more
#                     than 0 (the fuzz is wrong on purpose; the model logs
#                     only the first 100 and every 1000th on QEMU's stderr,
#                     which the guest does not see: the line count is not
#                     checked here)
#   mlx4_probe        cx3fuzz unloaded (its remove resets the device),
#                     driver_override cleared; modprobe mlx4_core +
#                     mlx4_en: two netdevs, "NOP command IRQ test passed",
#                     no mlx4 line at error level, and no violation while
#                     the stock driver brings the device up
#   ping              the ports in netns a/b: 10/10 pings across the cable,
#                     no violation
#   unload_clean      rmmod mlx4_en mlx4_core: no netdev left, 0
#                     violations since mlx4_probe
#
#   cx3-fuzz.sh [SEEDS [ITERS [SECS]]]  defaults "1 2 ... 200", 20000, 40
. /cxbell/lib.sh

SEEDS=${1:-$(seq -s " " 1 200)}
ITERS=${2:-20000}
SECS=${3:-40}

ktap_plan 5
no_ipv6

pci=$(cx3_pci | head -n 1)
bdf=${pci##*/}
fz=/sys/module/cx3fuzz/parameters
ko=/lib/modules/$(uname -r)/extra/cx3fuzz.ko

param() { cat "$fz/$1"; }

seeds_run=
fuzz_seeds()
{
	[ -n "$pci" ] || { ktap_diag "no PCI 15b3:1003 function (not vm-run --cx3?)"; return 1; }
	[ -e "$ko" ] || { ktap_diag "no $ko (mkinitramfs builds it)"; return 1; }
	snap_new b && snap_add b "" cx3_counters
	insmod "$ko" iters="$ITERS" || return 1
	echo cx3fuzz >"$pci/driver_override" || return 1
	_t0=$(date +%s)
	for _s in $SEEDS; do
		echo "$_s" >"$fz/seed"
		if ! echo "$bdf" >/sys/bus/pci/drivers/cx3fuzz/bind; then
			ktap_diag "seed $_s: bind failed: $(dmesg | grep -a cx3fuzz | tail -n 1)"
			return 1
		fi
		echo "$bdf" >/sys/bus/pci/drivers/cx3fuzz/unbind || return 1
		seeds_run="$seeds_run $_s"
		[ $(($(date +%s) - _t0)) -lt "$SECS" ] || break
	done
	ktap_diag "seeds$seeds_run ($ITERS steps each) in $(($(date +%s) - _t0)) s:" \
		"$(param commands) commands ($(param cmd_errors) failed)," \
		"$(param bar0_writes) BAR0 writes, $(param uar_writes) UAR writes," \
		"$(param bf_writes) BlueFlame writes, $(param resets) resets"
	dmesg | grep -a 'cx3fuzz.*seed' | tail -n 3 | sed 's/^/# /'
	eq "$(param runs)" "$(echo $seeds_run | wc -w)" "binds that ran to the end"
}

model_sane()
{
	cx3stat >/tmp/cx3.out 2>&1 || { ktap_diag "cx3stat: $(cat /tmp/cx3.out)"; return 1; }
	snap_new a && snap_add a "" cx3_counters
	ktap_diag "model: $(tr '\n' ' ' </tmp/cx3.out)"
	_rc=0
	eq "$(cx3_d commands)" "$(param commands)" "model commands vs the module's" || _rc=1
	eq "$(cx3_d cmd_errors)" "$(param cmd_errors)" "model cmd_errors vs the module's" || _rc=1
	[ "$(cx3_d violations)" -gt 0 ] || { ktap_diag "no violation: the fuzz did nothing wrong?"; _rc=1; }
	return $_rc
}

two_netdevs() { set -- "$pci"/net/*; [ $# = 2 ] && [ -e "$1" ]; }
no_netdev() { set -- "$pci"/net/*; [ ! -e "$1" ]; }

mlx4_probe()
{
	[ -d "$fz" ] || return 1
	rmmod cx3fuzz || return 1
	echo >"$pci/driver_override"
	snap_new b && snap_add b "" cx3_counters
	dmesg -c >/dev/null
	# (debug_level=1: mlx4_dbg prints the NOP test line)
	modprobe mlx4_core debug_level=1 && modprobe mlx4_en || return 1
	wait_until 20 two_netdevs || { ktap_diag "netdevs: '$(cx3_netdevs | tr '\n' ' ')'"; return 1; }
	snap_new a && snap_add a "" cx3_counters
	v0=$(snap_get b violations)
	_log=$(dmesg -r | grep -a mlx4)
	_rc=0
	printf '%s\n' "$_log" | grep -qa 'NOP command IRQ test passed' ||
		{ ktap_diag "no 'NOP command IRQ test passed'"; _rc=1; }
	if printf '%s\n' "$_log" | grep -qaE '^<[0-3]>'; then
		printf '%s\n' "$_log" | grep -aE '^<[0-3]>' | head -n 10 | sed 's/^/# mlx4: /'
		_rc=1
	fi
	eq "$(cx3_d violations)" 0 "violations during the probe" || _rc=1
	return $_rc
}

ping_ok()
{
	set -- $(cx3_netdevs)
	[ $# = 2 ] || return 1
	cxb_netns_pair "$1" "$2" 10 || return 1
	ns_ping10 || return 1
	eq "$(($(cx3_ctr violations) - v0))" 0 "violations since the probe"
}

unload_clean()
{
	[ -n "${v0:-}" ] || return 1
	for _ns in a b; do
		ip netns list | grep -q "^$_ns" && ip netns del "$_ns"
	done
	rmmod mlx4_en && rmmod mlx4_core || return 1
	wait_until 5 no_netdev || { ktap_diag "netdevs left: $(ls "$pci/net")"; return 1; }
	eq "$(($(cx3_ctr violations) - v0))" 0 "violations since the probe"
}

ktap_ok fuzz_seeds fuzz_seeds
ktap_ok model_sane model_sane
ktap_ok mlx4_probe mlx4_probe
ktap_ok ping ping_ok
ktap_ok unload_clean unload_clean
ktap_finish
