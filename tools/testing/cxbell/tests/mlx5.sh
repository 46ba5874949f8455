# SPDX-License-Identifier: GPL-2.0
#
# cxbell_mlx5 against the stock mlx5_core of the guest kernel, without a
# ConnectX-4+ device (QEMU has no model of one): kmod's modprobe loads it
# with mlx5_core (symbols) and cxbell (softdep), its auxiliary driver
# cxbell_mlx5.eth registers beside mlx5e's own mlx5_core.eth (inside
# mlx5_core.ko) and binds nothing, a bind by hand finds no device
# (ENODEV), it holds mlx5_core, and it loads and unloads N times in both
# orders, leaving the module list as it found it. SKIPs every case if the
# guest has no cxbell_mlx5.ko (not built: CXBELL_MLX5=n, or a kernel
# without mlx5_core). Every case also fails on a bad kernel log line
# (lib.sh); unresolved symbols and mlx5 errors are checked explicitly.
. /cxbell/lib.sh

ktap_plan 10
N=20

AUXD=/sys/bus/auxiliary/drivers
DRV=$AUXD/cxbell_mlx5.eth
EN=$AUXD/mlx5_core.eth
MODDEP=/lib/modules/$(uname -r)/modules.dep

loaded() { [ -d "/sys/module/$1" ]; }
# the loaded modules, sorted, on one line
mods() { cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ' | sed 's/ $//'; }
# kmod's modprobe (busybox's, the guest's modprobe, ignores softdeps)
kmodprobe() { /tmp/kmod/modprobe "$@"; }

# Kernel log lines since the last call that would mean a broken module
# (the once-per-boot notice of an unsigned module is none).
mlx5_log_bad()
{
	dmesg -c 2>/dev/null | grep -aiE 'unknown symbol|disagrees about version|cxbell_mlx5.*(fail|error|warn)|mlx5_core.*(fail|error|warn)' |
		grep -avE 'module verification failed|taints kernel'
}

log_clean()
{
	_bad=$(mlx5_log_bad)
	[ -z "$_bad" ] && return 0
	printf '%s\n' "$_bad" | sed 's/^/# log: /'
	return 1
}

# The entries of a driver's sysfs directory on one line: a driver with no
# device bound has "bind module uevent unbind" (a bound device would be a
# symlink named after it).
drv_entries() { (cd "$1" && ls | tr '\n' ' ' | sed 's/ $//'); }
unbound() { eq "$(drv_entries "$1")" "bind module uevent unbind" "${1##*/} entries"; }
drv_module() { eq "$(basename "$(readlink "$1/module")")" "$2" "${1##*/} module"; }

none_loaded()
{
	for _m in cxbell_mlx5 mlx5_core cxbell; do
		loaded $_m && { ktap_diag "$_m still loaded"; return 1; }
	done
	[ ! -e "$DRV" ] || { ktap_diag "$DRV still registered"; return 1; }
	[ ! -e "$EN" ] || { ktap_diag "$EN still registered"; return 1; }
}

modinfo_ok()
{
	eq "$(modinfo -F alias cxbell_mlx5)" "auxiliary:mlx5_core.eth" "alias" || return 1
	eq "$(modinfo -F depends cxbell_mlx5)" mlx5_core "depends" || return 1
	eq "$(modinfo -F softdep cxbell_mlx5)" "pre: cxbell" "softdep"
}

# kmod's modprobe: mlx5_core for the symbols, cxbell by the softdep,
# cxbell_mlx5 holding mlx5_core.
modprobe_pulls()
{
	none_loaded || return 1
	kmodprobe cxbell_mlx5 || return 1
	for _m in mlx5_core cxbell cxbell_mlx5; do
		loaded $_m || { ktap_diag "$_m not loaded"; return 1; }
	done
	[ -e /sys/module/mlx5_core/holders/cxbell_mlx5 ] || {
		ktap_diag "cxbell_mlx5 does not hold mlx5_core"
		return 1
	}
	log_clean
}

# cxbell_mlx5.eth registered, of module cxbell_mlx5, no device bound.
registered_unbound()
{
	[ -d "$DRV" ] || { ktap_diag "no $DRV"; return 1; }
	drv_module "$DRV" cxbell_mlx5 && unbound "$DRV"
}

# mlx5e's mlx5_core.eth beside it, no device bound to either, and no
# mlx5 auxiliary device on the bus.
coexists()
{
	[ -d "$EN" ] || { ktap_diag "no $EN"; return 1; }
	drv_module "$EN" mlx5_core && unbound "$EN" || return 1
	for _d in /sys/bus/auxiliary/devices/mlx5_core.*; do
		[ -e "$_d" ] && { ktap_diag "auxiliary device ${_d##*/}"; return 1; }
	done
	return 0
}

# A bind by hand: no such device, nothing bound, nothing logged.
bind_enodev()
{
	_err=$(cxb_write "$DRV/bind" mlx5_core.eth.0) && {
		ktap_diag "bind of mlx5_core.eth.0 succeeded"
		return 1
	}
	eq "$_err" "No such device" "bind error" || return 1
	unbound "$DRV" && unbound "$EN" && log_clean
}

# busybox's rmmod, for the kernel's errno: mlx5_core held by cxbell_mlx5
# (EWOULDBLOCK) stays; once cxbell_mlx5 is gone it goes (cxbell last).
rmmod_held()
{
	_err=$(rmmod mlx5_core 2>&1) && {
		ktap_diag "rmmod mlx5_core succeeded under cxbell_mlx5"
		return 1
	}
	eq "$_err" "rmmod: can't unload module 'mlx5_core': Resource temporarily unavailable" \
		"rmmod error" || return 1
	loaded mlx5_core && loaded cxbell_mlx5 && [ -d "$DRV" ] || {
		ktap_diag "a module went away"
		return 1
	}
	rmmod cxbell_mlx5 && rmmod mlx5_core || return 1
	! loaded cxbell_mlx5 && ! loaded mlx5_core && [ ! -e "$EN" ] || return 1
	rmmod cxbell && none_loaded && log_clean
}

# cxbell_mlx5 first (kmod's modprobe brings mlx5_core and cxbell), then
# removed before mlx5_core and cxbell.
cycle_backend_first()
{
	i=0
	while [ $i -lt $N ]; do
		kmodprobe cxbell_mlx5 || return 1
		loaded cxbell && [ -d "$DRV" ] && [ -d "$EN" ] || {
			ktap_diag "iteration $i: not all registered"
			return 1
		}
		rmmod cxbell_mlx5 && rmmod mlx5_core && rmmod cxbell || return 1
		i=$((i + 1))
	done
	none_loaded && log_clean
}

# mlx5_core first, cxbell_mlx5 next (busybox's modprobe: no softdep) and
# the cxbell core after it; the core removed first, mlx5_core last.
cycle_mlx5_core_first()
{
	i=0
	while [ $i -lt $N ]; do
		modprobe mlx5_core || return 1
		[ -d "$EN" ] && ! loaded cxbell_mlx5 || return 1
		modprobe cxbell_mlx5 || return 1
		loaded cxbell && { ktap_diag "cxbell loaded before its turn"; return 1; }
		modprobe cxbell || return 1
		[ -d "$DRV" ] && unbound "$DRV" || return 1
		rmmod cxbell && rmmod cxbell_mlx5 && rmmod mlx5_core || return 1
		i=$((i + 1))
	done
	none_loaded && log_clean
}

# Nothing left: mlx5_core's own dependencies (mlxfw, ...) that modprobe
# loaded are removed, and the module list is the one the test began with.
left_as_found()
{
	none_loaded || return 1
	_deps=$(awk -F: '$1 ~ /\/mlx5_core\.ko$/ { print $2 }' "$MODDEP" |
		tr ' ' '\n' | sed -e 's|.*/||' -e 's/\.ko$//' -e 's/-/_/g')
	for _m in $(mods); do
		case " $mods0 " in *" $_m "*) continue ;; esac
		printf '%s\n' "$_deps" | grep -qx "$_m" || {
			ktap_diag "$_m left loaded"
			return 1
		}
		rmmod "$_m" || return 1
	done
	eq "$(mods)" "$mods0" "modules"
}

cases="modinfo_alias_depends_softdep modprobe_pulls_mlx5_core_and_cxbell
driver_registered_no_device next_to_mlx5_core_eth bind_by_hand_enodev
rmmod_mlx5_core_held_until_cxbell_mlx5_goes
load_unload_backend_first_x$N load_unload_mlx5_core_first_x$N
module_list_as_found dmesg_clean"
why=
if ! grep -q '/mlx5_core\.ko:' "$MODDEP"; then
	why="no mlx5_core in the guest kernel's modules"
elif ! grep -q '/cxbell_mlx5\.ko:' "$MODDEP"; then
	why="no cxbell_mlx5.ko in the initramfs (not built: CXBELL_MLX5=n, or a kernel without mlx5_core Ethernet)"
elif [ ! -x /usr/bin/kmod ]; then
	why="no kmod in the guest"
fi
if [ -n "$why" ]; then
	for c in $cases; do
		ktap_skip "$c" "$why"
	done
	ktap_finish
fi

mkdir -p /tmp/kmod
ln -sf /usr/bin/kmod /tmp/kmod/modprobe
mods0=$(mods)

ktap_ok modinfo_alias_depends_softdep modinfo_ok
ktap_ok modprobe_pulls_mlx5_core_and_cxbell modprobe_pulls
ktap_ok driver_registered_no_device registered_unbound
ktap_ok next_to_mlx5_core_eth coexists
ktap_ok bind_by_hand_enodev bind_enodev
ktap_ok rmmod_mlx5_core_held_until_cxbell_mlx5_goes rmmod_held
ktap_ok load_unload_backend_first_x$N cycle_backend_first
ktap_ok load_unload_mlx5_core_first_x$N cycle_mlx5_core_first
ktap_ok module_list_as_found left_as_found
ktap_ok dmesg_clean log_clean
ktap_finish
