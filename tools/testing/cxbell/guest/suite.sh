# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/testing/cxbell/run-tests: runs each test script
# (paths relative to /cxbell) in turn in this one boot, between markers
# the host parses:
#   @@cxbell-suite:begin:TEST@@
#   ... the test's KTAP output ...
#   @@cxbell-suite:dmesg:TEST@@     bad kernel log lines left after the
#                                   test (and the cleanup after it)
#   # dmesg: LINE                   (turns into a failure on the host)
#   @@cxbell-suite:end:TEST:RC@@
# Between tests it cleans up what a failed test may have left behind
# (network namespaces, adapters, modules), so the next one starts clean.
#
#   suite.sh [--timeout SECONDS] TEST...
. /cxbell/lib.sh

tmo=900
if [ "${1:-}" = --timeout ]; then
	tmo=$2
	shift 2
fi

report_dmesg()
{
	_bad=$(ktap_dmesg_bad)
	if [ -n "$_bad" ]; then
		echo "@@cxbell-suite:dmesg:$1@@"
		printf '%s\n' "$_bad" | sed 's/^/# dmesg: /'
	fi
}

cleanup()
{
	for _ns in $(ip netns list 2>/dev/null | cut -d' ' -f1); do
		ip netns del "$_ns"
	done
	if [ -d /sys/bus/cxbell_sim/devices ]; then
		for _d in /sys/bus/cxbell_sim/devices/cxbell_sim*; do
			[ -e "$_d" ] && cxb_del "${_d##*/cxbell_sim}"
		done
	fi
	[ -d /proc/net/pktgen ] && rmmod pktgen
	# A mapping still live is a page the stack holds for its page_pool,
	# which holds the sim's device: rmmod cxbell_sim would wait for it
	# for ever. The test has failed already; keep the boot going.
	if [ -e "$CXB_DBG/dma_live" ] && [ "$(sim_dma_live)" != 0 ]; then
		rmmod cxbell 2>/dev/null
		return 0
	fi
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

mkdir -p /run/netns
report_dmesg boot
cd /cxbell || exit 1
for t in "$@"; do
	echo "@@cxbell-suite:begin:$t@@"
	# /bin/sh (dash) by path: busybox timeout would run its own "sh"
	# applet, where "ip" is the busybox applet, not iproute2.
	timeout -s KILL "$tmo" /bin/sh "$t"
	rc=$?
	cleanup >/dev/null 2>&1
	report_dmesg "$t"
	echo "@@cxbell-suite:end:$t:$rc@@"
done
report_dmesg teardown
exit 0
