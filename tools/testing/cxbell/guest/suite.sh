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
# (cxb_clean_guest, lib/cleanup.sh: network namespaces, adapters,
# modules), so the next one starts clean.
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

mkdir -p /run/netns
report_dmesg boot
cd /cxbell || exit 1
for t in "$@"; do
	echo "@@cxbell-suite:begin:$t@@"
	# /bin/sh (dash) by path: busybox timeout would run its own "sh"
	# applet, where "ip" is the busybox applet, not iproute2.
	timeout -s KILL "$tmo" /bin/sh "$t"
	rc=$?
	# (the test's own exit trap did it, unless it was killed)
	cxb_clean_guest >/dev/null 2>&1
	report_dmesg "$t"
	echo "@@cxbell-suite:end:$t:$rc@@"
done
report_dmesg teardown
exit 0
