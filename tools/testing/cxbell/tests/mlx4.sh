# SPDX-License-Identifier: GPL-2.0
#
# cxbell_mlx4 against the stock mlx4_core of the Debian kernel, without a
# ConnectX card: mlx4_core loads and probes nothing, cxbell_mlx4 loads (all
# its mlx4_core symbols resolve, it holds mlx4_core), registers its
# mlx4_interface (up to 6.4; its auxiliary driver from 6.5), offers no
# port and unloads cleanly - N times, in both
# orders with the cxbell core, and next to mlx4_en (both are Ethernet
# clients of mlx4_core). Every case also fails on a bad kernel log line
# (lib.sh); unresolved symbols and mlx4 errors are checked explicitly.
. /cxbell/lib.sh

ktap_plan 7
N=10

loaded() { [ -d "/sys/module/$1" ]; }

# Kernel log lines since the last call that would mean a broken module.
mlx4_log_bad()
{
	dmesg -c 2>/dev/null | grep -aiE 'unknown symbol|disagrees about version|cxbell_mlx4.*(fail|error)|mlx4_core.*(fail|error)'
}

log_clean()
{
	_bad=$(mlx4_log_bad)
	[ -z "$_bad" ] && return 0
	printf '%s\n' "$_bad" | sed 's/^/# log: /'
	return 1
}

load_mlx4_core()
{
	dmesg -c >/dev/null 2>&1
	modprobe mlx4_core || return 1
	loaded mlx4_core && log_clean
}

# With the cxbell core loaded (kmod's modprobe loads it first through the
# softdep, busybox's ignores softdeps): cxbell_mlx4 holds mlx4_core (its
# symbols resolved against it) and offers no port.
load_unload()
{
	modprobe cxbell || return 1
	i=0
	while [ $i -lt $N ]; do
		modprobe cxbell_mlx4 || return 1
		loaded cxbell_mlx4 || {
			ktap_diag "iteration $i: cxbell_mlx4 not loaded"
			return 1
		}
		[ -e /sys/module/mlx4_core/holders/cxbell_mlx4 ] || {
			ktap_diag "cxbell_mlx4 does not hold mlx4_core"
			return 1
		}
		ls /sys/bus/auxiliary/devices 2>/dev/null | grep -q '^cxbell_mlx4\.' && {
			ktap_diag "a cxbell_mlx4 port exists without a card"
			return 1
		}
		rmmod cxbell_mlx4 || return 1
		loaded cxbell_mlx4 && return 1
		i=$((i + 1))
	done
	rmmod cxbell && log_clean
}

# The core loaded after the backend, and removed before it.
core_after_backend()
{
	i=0
	while [ $i -lt $N ]; do
		modprobe cxbell_mlx4 && modprobe cxbell || return 1
		rmmod cxbell && rmmod cxbell_mlx4 || return 1
		i=$((i + 1))
	done
	! loaded cxbell && ! loaded cxbell_mlx4 && log_clean
}

# Next to mlx4_en: both register, unload in either order.
with_mlx4_en()
{
	modprobe mlx4_en && modprobe cxbell_mlx4 || return 1
	rmmod mlx4_en && rmmod cxbell_mlx4 || return 1
	modprobe cxbell_mlx4 && modprobe mlx4_en || return 1
	rmmod cxbell_mlx4 && rmmod mlx4_en || return 1
	! loaded cxbell_mlx4 && ! loaded mlx4_en && log_clean
}

modinfo_ok()
{
	dep=$(modinfo -F depends cxbell_mlx4) || return 1
	eq "$dep" mlx4_core "depends" || return 1
	eq "$(modinfo -F softdep cxbell_mlx4)" "pre: cxbell" "softdep"
}

final_unload()
{
	rmmod mlx4_core || return 1
	! loaded mlx4_core && ! loaded cxbell_mlx4 && ! loaded cxbell
}

ktap_ok mlx4_core_loads load_mlx4_core
ktap_ok modinfo_depends_mlx4_core modinfo_ok
ktap_ok load_register_unload_x$N load_unload
ktap_ok core_after_backend_x$N core_after_backend
ktap_ok next_to_mlx4_en with_mlx4_en
ktap_ok mlx4_core_unloads final_unload
ktap_ok dmesg_clean log_clean
ktap_finish
