# SPDX-License-Identifier: GPL-2.0
#
# Leak and DMA-API checks of a debug kernel (make check-debug, where this
# test runs last: every other test has deleted its adapters and unloaded
# the modules by then). One more adapter lifetime (load, create, ports
# up with carrier, down, delete, unload), then:
#   kmemleak   a scan (twice: objects younger than 5 s are not reported,
#              a second pass drops transient false positives); a
#              suspected leak allocated from cxbell code fails, so does
#              one allocated from a module that is gone (kmemleak shows
#              such frames as bare addresses: cxbell, cxbell_sim and
#              cxbell_mlx4 are the modules the suite unloads); others
#              are only counted
#   dma-api    /sys/kernel/debug/dma-api/error_count is 0, and DMA-API
#              debugging did not turn itself off (unless failslab.sh ran
#              in this boot: its injected failures can hit the debugging's
#              own allocations, which turns it off; its count stands)
# The kmemleak and dma-api cases SKIP on a kernel without them (Debian's).
. /cxbell/lib.sh

ktap_plan 3
no_ipv6

KML=/sys/kernel/debug/kmemleak
DMA=/sys/kernel/debug/dma-api

lifetime()
{
	cxb_load && cxb_new 1 2 || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || return 1
	ip link set "$p0" up && ip link set "$p1" up || return 1
	wait_until 10 carrier_up || { ktap_diag "no carrier"; return 1; }
	ip link set "$p0" down && ip link set "$p1" down || return 1
	cxb_del 1 || return 1
	dma_live_zero "dma_live after delete" || return 1
	cxb_unload
}

# The records of the kmemleak report that are ours, whole; on stdout.
kmemleak_ours()
{
	awk '
	function flush() { if (rec != "" && ours) printf "%s", rec; rec = ""; ours = 0 }
	/^unreferenced object/ { flush() }
	{ rec = rec $0 "\n" }
	/cxbell/ { ours = 1 }
	# A frame of an unloaded module: "[<ffffffffc0123456>] 0xffffffffc0123456"
	/^ *\[<[0-9a-f]+>\] 0x[0-9a-f]+$/ { ours = 1 }
	END { flush() }' "$1"
}

kmemleak_clean()
{
	_r=/tmp/kmemleak.txt
	# Let the objects of the lifetime above age past kmemleak's 5 s.
	sleep 6
	echo scan >"$KML" && echo scan >"$KML" || {
		ktap_diag "scan failed: kmemleak disabled itself? $(dmesg | grep -a kmemleak: | tail -n 2)"
		return 1
	}
	cat "$KML" >"$_r" || return 1
	_all=$(grep -c '^unreferenced object' "$_r")
	_ours=$(kmemleak_ours "$_r" | grep -c '^unreferenced object')
	ktap_diag "kmemleak: $_all suspected leaks, $_ours from cxbell or an unloaded module"
	if [ "$_ours" != 0 ]; then
		kmemleak_ours "$_r" | head -n 60 | sed 's/^/kmemleak: /' | while IFS= read -r l; do
			ktap_diag "$l"
		done
		return 1
	fi
	# Report the rest of the kernel's suspects only once.
	echo clear >"$KML"
	return 0
}

dma_api_clean()
{
	ktap_diag "dma-api: error_count $(cat $DMA/error_count)," \
		"num_free_entries $(cat $DMA/num_free_entries)," \
		"min_free_entries $(cat $DMA/min_free_entries)"
	if [ "$(cat $DMA/disabled)" = Y ] && [ -e /tmp/cxb-faults-injected ]; then
		# Its checks ran until then; what it found is in error_count.
		ktap_diag "dma-api debugging turned itself off after an" \
			"allocation failure failslab.sh injected"
	else
		eq "$(cat $DMA/disabled)" N "dma-api disabled" || return 1
	fi
	eq "$(cat $DMA/error_count)" 0 "dma-api error_count" || {
		dmesg | grep -a 'DMA-API:' | tail -n 10 | while IFS= read -r l; do
			ktap_diag "$l"
		done
		return 1
	}
}

ktap_ok adapter_lifetime lifetime
if [ -e $KML ]; then
	ktap_ok kmemleak_no_cxbell_leak kmemleak_clean
else
	ktap_skip kmemleak_no_cxbell_leak "no $KML (kernel without CONFIG_DEBUG_KMEMLEAK)"
fi
if [ -r $DMA/error_count ]; then
	ktap_ok dma_api_no_error dma_api_clean
else
	ktap_skip dma_api_no_error "no $DMA (kernel without CONFIG_DMA_API_DEBUG)"
fi
ktap_finish
