# SPDX-License-Identifier: GPL-2.0
#
# Guest state a test changes, put back however the test ends (part of
# lib.sh). ktap_plan arms it (cxb_cleanup_arm): an EXIT trap, and INT,
# TERM and HUP turned into an exit so that the trap runs. At exit it
# undoes what the test registered, last first, then runs cxb_clean_guest.
# A test killed by its timeout (SIGKILL) runs no trap: guest/suite.sh
# runs cxb_clean_guest after every test as well, which also undoes what
# such a test registered.
#
#   cxb_cleanup_arm             the EXIT trap (ktap_plan calls it)
#   cxb_on_exit CMD             run CMD (a command line, eval'd) at exit
#   cxb_sysctl KEY VALUE        sysctl -w KEY=VALUE; the old value back at
#                               exit
#   cxb_set FILE VALUE          write VALUE to FILE (a sysfs, debugfs or
#                               /proc knob); its old value back at exit
#   cxb_loglevel N              dmesg -n N; the console level back at exit
#   cxb_trace_start EVENT FILTER
#                               trace EVENT (as "net/napi_gro_receive_entry")
#                               where FILTER holds, the trace buffer
#                               emptied; tracing_on, the event's enable
#                               as they were and its filter cleared at
#                               exit
#   cxb_trace_stop EVENT        tracing off, EVENT disabled (the buffer
#                               kept for reading)
#   cxb_clean_guest             what any test may leave behind gone:
#                               the registrations of a test killed
#                               before its trap ran undone,
#                               network namespaces, sim adapters,
#                               pktgen, netconsole, the cxbell, mlx4
#                               and mlx5 modules, the
#                               modprobe.d file and module helper
#                               tests/cx3-cxbell.sh installs
#
# The registrations go to a file of the test's shell ($$ is the same in
# its subshells), so that one made in a subshell counts too.

_cxb_undo=/tmp/cxbell-undo.$$

cxb_cleanup_arm()
{
	: >>"$_cxb_undo"
	trap _cxb_exit EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

cxb_on_exit()
{
	printf '%s\n' "$1" >>"$_cxb_undo"
}

# Run the commands registered in FILE, last first, and remove it.
_cxb_undo_run()
{
	sed '1!G;h;$!d' "$1" | while IFS= read -r _cmd; do
		eval "$_cmd"
	done
	rm -f "$1"
}

# The test's registrations undone, then the guest cleaned; the exit
# status stays the test's.
_cxb_exit()
{
	[ -f "$_cxb_undo" ] && _cxb_undo_run "$_cxb_undo"
	cxb_clean_guest
} >/dev/null 2>&1

# A value in single quotes for eval.
_cxb_quote()
{
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

cxb_sysctl()
{
	_sv=$(sysctl -n "$1") || return 1
	cxb_on_exit "sysctl -qw $(_cxb_quote "$1=$_sv")"
	sysctl -qw "$1=$2"
}

cxb_set()
{
	_sv=$(cat "$1") || return 1
	cxb_on_exit "echo $(_cxb_quote "$_sv") >$(_cxb_quote "$1")"
	echo "$2" >"$1"
}

cxb_loglevel()
{
	cxb_on_exit "dmesg -n $(cut -f1 /proc/sys/kernel/printk)"
	dmesg -n "$1"
}

CXB_TRACE=/sys/kernel/tracing

cxb_trace_start()
{
	_te=$CXB_TRACE/events/$1
	[ -e "$CXB_TRACE/trace" ] || mount -t tracefs nodev "$CXB_TRACE" || return 1
	cxb_set "$CXB_TRACE/tracing_on" 0 && : >"$CXB_TRACE/trace" || return 1
	# ("0" clears a filter)
	cxb_on_exit "echo 0 >$_te/filter"
	echo "$2" >"$_te/filter" && cxb_set "$_te/enable" 1 || return 1
	echo 1 >"$CXB_TRACE/tracing_on"
}

cxb_trace_stop()
{
	echo 0 >"$CXB_TRACE/tracing_on"
	echo 0 >"$CXB_TRACE/events/$1/enable"
}

cxb_clean_guest()
{
	# what a test killed before its trap ran had registered (the file
	# of a shell that is gone)
	for _f in /tmp/cxbell-undo.*; do
		[ -f "$_f" ] && [ ! -d "/proc/${_f##*.}" ] && _cxb_undo_run "$_f"
	done
	for _ns in $(ip netns list 2>/dev/null | cut -d' ' -f1); do
		ip netns del "$_ns"
	done
	if [ -d /sys/bus/cxbell_sim/devices ]; then
		for _d in /sys/bus/cxbell_sim/devices/cxbell_sim*; do
			[ -e "$_d" ] && cxb_del "${_d##*/cxbell_sim}"
		done
	fi
	[ -d /proc/net/pktgen ] && rmmod pktgen
	[ -d /sys/module/netconsole ] && rmmod netconsole
	# A mapping still live is a page the stack holds for its page_pool,
	# which holds the sim's device: rmmod cxbell_sim would wait for it
	# for ever. The test has failed already; keep the boot going.
	if [ -e "$CXB_DBG/dma_live" ] && [ "$(sim_dma_live)" != 0 ]; then
		rmmod cxbell 2>/dev/null
		return 0
	fi
	# tests/mlx5-fake.sh's model (its functions go with it), and
	# tests/mlx5.sh: cxbell_mlx5 and the stock mlx5_core (no device)
	for _m in cxbell_mlx5_fake cxbell_mlx5 mlx5_core; do
		[ -d "/sys/module/$_m" ] && rmmod "$_m"
	done
	cxb_unload 2>/dev/null
	# The QEMU ConnectX-3 model (vm-run --cx3): every test starts with
	# the mlx4 drivers unloaded.
	if [ -n "$(cx3_pci)" ]; then
		# (tests/cx3-fuzz.sh binds its fuzzer by driver_override)
		if [ -d /sys/module/cx3fuzz ]; then
			for _d in $(cx3_pci); do
				[ -e "$_d/driver" ] && echo "${_d##*/}" >"$_d/driver/unbind"
				echo >"$_d/driver_override"
			done
			rmmod cx3fuzz
		fi
		for _m in mlx4_en cxbell_mlx4 mlx4_ib mlx4_core; do
			[ -d "/sys/module/$_m" ] && rmmod "$_m"
		done
	fi
	# tests/cx3-cxbell.sh installs README's modprobe.d file and kmod as
	# the kernel's modprobe: none of it outlives the test
	rm -f /etc/modprobe.d/cxbell-mlx4.conf
	echo /sbin/modprobe >/proc/sys/kernel/modprobe
	return 0
}
