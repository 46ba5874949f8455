# SPDX-License-Identifier: GPL-2.0
#
# Cleanup on failure (lib/cleanup.sh): a test that changes global guest
# state and fails midway leaves the next test the guest as it found it.
#
# A child test (this file run with --child HOW) does what tests do to the
# guest: the modules loaded, sim adapter 1 up with its ports in network
# namespaces a and b, pktgen loaded, IPv6 off (no_ipv6), a sysctl
# (net.core.rmem_default), a sysfs knob (printk's time), the console
# level, a tracepoint enabled with a filter, the kernel's module helper
# (/proc/sys/kernel/modprobe); it writes the guest's state
# (guest_state) to a file and then fails:
#   exit_midway  it exits with status 1 (as after a failed setup)
#   sigterm      it is killed by SIGTERM
#   sigkill      it is killed by SIGKILL: no trap runs, and
#                cxb_clean_guest, which guest/suite.sh runs after every
#                test, puts the guest back (the child's registrations
#                too)
# Each case: the state in the middle differs from the one before in every
# item (tracing_on may have been on already), and after the child (and
# for sigkill cxb_clean_guest) equals the one before.
. /cxbell/lib.sh

EV=net/napi_gro_receive_entry

# The global state a test may change, one "NAME VALUE" line per item.
guest_state()
{
	echo "netns $(ip netns list 2>/dev/null | cut -d' ' -f1 | sort | tr '\n' ,)"
	echo "modules $(awk '$1 ~ /^(cxbell|cxbell_sim|cxbell_mlx4|pktgen|netconsole|mlx4_core|mlx4_en)$/ { print $1 }' /proc/modules | sort | tr '\n' ,)"
	echo "ipv6_all $(sysctl -n net.ipv6.conf.all.disable_ipv6)"
	echo "ipv6_default $(sysctl -n net.ipv6.conf.default.disable_ipv6)"
	echo "rmem_default $(sysctl -n net.core.rmem_default)"
	echo "printk_time $(cat /sys/module/printk/parameters/time)"
	echo "console_level $(cut -f1 /proc/sys/kernel/printk)"
	echo "tracing_on $(cat "$CXB_TRACE/tracing_on")"
	echo "event_enable $(cat "$CXB_TRACE/events/$EV/enable")"
	echo "event_filter $(cat "$CXB_TRACE/events/$EV/filter")"
	echo "modprobe $(cat /proc/sys/kernel/modprobe)"
	echo "undo_files $(ls /tmp/cxbell-undo.* 2>/dev/null | wc -l)"
}

if [ "${1:-}" = --child ]; then
	cxb_cleanup_arm
	_time=Y _level=8
	[ "$(cat /sys/module/printk/parameters/time)" = Y ] && _time=N
	[ "$(cut -f1 /proc/sys/kernel/printk)" = 8 ] && _level=7
	cxb_pktgen_pair && cxb_netns_pair && modprobe pktgen &&
		no_ipv6 &&
		cxb_sysctl net.core.rmem_default 33554432 &&
		cxb_set /sys/module/printk/parameters/time $_time &&
		cxb_loglevel $_level &&
		cxb_trace_start "$EV" 'name == "cxbell-none"' &&
		cxb_set /proc/sys/kernel/modprobe /bin/false || exit 2
	guest_state >/tmp/cleanup.mid
	case $2 in
	term) kill -TERM $$ ;;
	kill) kill -KILL $$ ;;
	esac
	exit 1
fi

ktap_plan 3
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
[ -e "$CXB_TRACE/trace" ] || mount -t tracefs nodev "$CXB_TRACE"

# failed_child HOW: the child, failing as HOW says; the state before, in
# the middle and after compared
failed_child()
{
	guest_state >/tmp/cleanup.before
	rm -f /tmp/cleanup.mid
	/bin/sh "$self" --child "$1" >/tmp/cleanup.out 2>&1
	_fc_rc=$?
	[ "$1" = kill ] && cxb_clean_guest >/dev/null 2>&1
	guest_state >/tmp/cleanup.after
	[ -f /tmp/cleanup.mid ] || {
		ktap_diag "child exited $_fc_rc before its state was set up:"
		sed 's/^/# /' /tmp/cleanup.out
		return 1
	}
	# (tracing_on may have been on before: the child turns it on)
	_same=$(awk 'NR == FNR { a[FNR] = $0; next }
		a[FNR] == $0 && $1 != "tracing_on" { printf "%s ", $1 }' \
		/tmp/cleanup.before /tmp/cleanup.mid)
	ktap_diag "child exited $_fc_rc"
	eq "$_same" "" "items the child left as they were" &&
		eq "$(cat /tmp/cleanup.after)" "$(cat /tmp/cleanup.before)" "guest state after the child"
}

ktap_ok exit_midway failed_child exit
ktap_ok sigterm failed_child term
ktap_ok sigkill failed_child kill
ktap_finish
