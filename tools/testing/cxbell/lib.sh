# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the cxbell VM tests and demos (POSIX sh; in the guest
# /bin/sh is dash and the tools are busybox + iproute2 + ethtool).
# In the guest this file is /cxbell/lib.sh:  . /cxbell/lib.sh
#
# KTAP:
#   ktap_plan N             print "KTAP version 1" and "1..N", clear dmesg
#   ktap_ok NAME [COND...]  "ok" if COND (a command) succeeds or is absent,
#                           else "not ok"; either way turned into "not ok"
#                           if the kernel log got a bad line since the last
#                           result (the lines are printed as diagnostics)
#   ktap_fail NAME [WHY]    "not ok" (WHY printed as a diagnostic)
#   ktap_skip NAME WHY      "ok N NAME # SKIP WHY"
#   ktap_diag MSG...        "# MSG" (diagnostics precede their result)
#   ktap_finish             emit "not ok" for every planned case not
#                           reported (the test aborted), exit 0 iff all ok
# Names must not contain spaces.
#
# cxbell / cxbell_sim:
#   cxb_load / cxb_unload           modprobe / rmmod both modules
#   cxb_new ID [NPORTS]             create adapter ID, wait for its netdevs
#   cxb_del ID                      delete adapter ID (first flushing
#                                   deferred skb frees, see
#                                   skb_defer_flush, and waiting up to 2 s
#                                   for a downed adapter's mappings to go)
#   skb_defer_flush                 make every CPU free its deferred skbs
#   cxb_netdev ID PORT              name of the netdev of port PORT
#   cxb_stat IF NAME [NS]           one ethtool -S counter of IF (netns NS)
#   sim_ctr ID PORT NAME            one sim debugfs counter of a port
#   sim_engine ID [inline|deferred] set (or print) the adapter's engine
#   sim_reset ID                    reset the adapter's sim counters
#   sim_dma_live [ID]               live DMA mappings (all, or adapter ID)
#   dma_live_zero [WHAT]            assert (eq) that the sim's live DMA
#                                   mappings reach 0 within 10 s
#   no_ipv6                         no IPv6 on new interfaces (no stray
#                                   DAD/MLD/RS frames disturbing counters)
#   pktgen_run IF COUNT BURST DSTMAC [PKTSIZE]
#                                   send COUNT packets with pktgen on IF,
#                                   wait for the end; prints pktgen's pps
#                                   and packets sent ("pkts-sofar": more
#                                   than COUNT when a queue stop cut a
#                                   burst: pktgen only checks the count
#                                   between bursts); pktgen flags from
#                                   $CXB_PKTGEN_FLAGS (e.g. "UDPCSUM")
#   wait_until SECONDS CMD...       poll CMD every 0.1 s until it succeeds
#   no_ipv6_netns NS...             no_ipv6 inside each network namespace
#                                   (each has its own defaults)
#   sim_stranded_log                the sim's log lines about stranded
#                                   WQEs (to print as diagnostics)
#   pktgen_stop                     stop every running pktgen thread (a
#                                   pktgen_run in the background returns)
#   cxb_snap PREFIX IF [NS]         every ethtool -S counter of IF as shell
#                                   assignments PREFIX_NAME=VALUE (eval them)
#   sim_snap PREFIX ID PORT         every sim counter of a port, likewise
#   cxb_priv_flag IF NAME           a private flag: on or off
#   cxb_tx_push IF                  "TX Push" of ethtool -g: on or off
#   cxb_copybreak IF                ethtool --get-tunable tx-copybreak value
#   cxb_write FILE DATA             write DATA (printf %s: add \n yourself)
#                                   to FILE in one write(2); on failure
#                                   print the errno text (e.g. "Invalid
#                                   argument") and return non-zero
#   pktgen_dev IF COUNT BURST DSTMAC PKTSIZE CLONE DST [FLAG...]
#                                   IF alone on kpktgend_0, set up for a run
#                                   (pktgen_run without start and result)
#   uptime_s / secs_between T0 T1   seconds since boot; T1 - T0 as %.1f
#   pktgen_timed IF COUNT BURST DSTMAC [PKTSIZE]
#                                   pktgen_run, printing "PPS SENT SECONDS"
#   toggle_rounds NAME STEP IF STOP "STEP IF ROUND" for ROUND 0, 1, ... until
#                                   file STOP exists (at least 8 rounds),
#                                   then "NAME ROUNDS"
#   toggle_doorbell_opt IF ROUND    STEP: doorbell_opt 0 1 2 3 3 2 1 0 ...
#   toggler IF STOP LOG NAME:STEP...
#                                   those toggle_rounds loops at once; LOG
#                                   gets the problems, LOG.n the rounds
#   toggler_ok LOG [SECONDS]        the toggler finished without a problem
#
# The QEMU ConnectX-3 model (vm-run --cx3; cx3stat, its counters page):
#   cx3_ctr NAME                    one model counter (cx3stat NAME)
#   cx3_snap PREFIX                 every model counter as shell
#                                   assignments PREFIX_NAME=VALUE (eval them)
#   cx3_d NAME                      a_NAME - b_NAME (cx3_snap b, then a)
#   cx3_pci                         sysfs directory of the 15b3:1003 function
#   cx3_netdevs                     netdevs of the 15b3:1003 function (one a
#                                   line, by dev_port), in every namespace
#                                   they were not moved out of
#   CX3_VIOLATION                   the model's log prefix for a violation
#                                   on QEMU's stderr; vm-run counts such a
#                                   line as a bad log line (vm-run
#                                   --violations-ok, a test's marker line
#                                   "# cxbell-test: violations-ok")
#
# The pair of cxb_pktgen_pair (adapter 1, $p0 cabled to $p1, $mac):
#   cxb_pktgen_teardown / cxb_netns_teardown
#                                   delete it (after cxb_netns_pair: the
#                                   namespaces too), no DMA mapping left
#   pair_snap PREFIX [NS0 [NS1]]    every counter: PREFIX_d_* ($p0),
#                                   PREFIX_r_* ($p1), PREFIX_s0_*, PREFIX_s1_*
#   pair_d NAME                     a_NAME - b_NAME (pair_snap b, then a)
#   pair_rx_done SENT               SENT frames arrived at $p1 or dropped
#                                   by its sim port since pair_snap b
#   pair_sim_zero CTR...            sim counters CTR of both ports at rest
#   pktgen_toggle ENGINE SECONDS TOGGLER CHECK
#                                   pktgen $p0 -> $p1 under TOGGLER; checks
#   tcp_ab FILE / tcp_ab_ok SHA256  FILE over TCP from netns a to b (after
#                                   cxb_netns_pair), checked

# iproute2, also if a script runs under busybox sh (which would run its
# own "ip" applet whatever PATH says).
ip() { /usr/sbin/ip "$@"; }

CXB_DBG=/sys/kernel/debug/cxbell_sim
CXB_BUS=/sys/bus/cxbell_sim
CXB_BAD='WARNING:|BUG:|Oops|Call Trace|general protection|refcount_t|list_add corruption|list_del corruption|RCU stall|rcu: INFO|stall on CPU|detected stalls|hung task|blocked for more than|UBSAN|KASAN|Kernel panic'

ktap_n=0
ktap_planned=0
ktap_failed=0

ktap_diag()
{
	echo "# $*"
}

# Print the bad kernel log lines since the last call (and clear the log).
# pktgen's own "WARNING:" line when a device goes away under a run reports
# what the removal tests do on purpose; it is no kernel warning.
CXB_BAD_OK='pktgen: WARNING: trying to remove a running interface'

ktap_dmesg_bad()
{
	dmesg -c 2>/dev/null | grep -aE "$CXB_BAD" | grep -avF "$CXB_BAD_OK"
}

ktap_plan()
{
	ktap_planned=$1
	echo "KTAP version 1"
	echo "1..$1"
	dmesg -c >/dev/null 2>&1
}

# Diagnostics come before the result they belong to (run-tests shows the
# "#" lines printed since the previous result under a failure).
ktap_fail()
{
	ktap_n=$((ktap_n + 1))
	ktap_failed=$((ktap_failed + 1))
	[ -n "${2:-}" ] && ktap_diag "$2"
	ktap_dmesg_bad | sed 's/^/# dmesg: /'
	echo "not ok $ktap_n $1"
	return 0
}

ktap_ok()
{
	_name=$1
	shift
	if [ $# -gt 0 ] && ! "$@"; then
		ktap_fail "$_name" "failed: $*"
		return 1
	fi
	_bad=$(ktap_dmesg_bad)
	if [ -n "$_bad" ]; then
		ktap_n=$((ktap_n + 1))
		ktap_failed=$((ktap_failed + 1))
		ktap_diag "bad kernel log lines:"
		printf '%s\n' "$_bad" | sed 's/^/# dmesg: /'
		echo "not ok $ktap_n $_name"
		return 1
	fi
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $_name"
}

ktap_skip()
{
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1 # SKIP ${2:-}"
}

ktap_finish()
{
	while [ "$ktap_n" -lt "$ktap_planned" ]; do
		ktap_fail "not_reached_$((ktap_n + 1))" "test aborted before this case"
	done
	[ "$ktap_failed" = 0 ]
	exit $?
}

# Poll a command until it succeeds; 1 if it never did within SECONDS.
wait_until()
{
	_t=$(($1 * 10))
	shift
	while [ "$_t" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_t=$((_t - 1))
	done
	"$@"
}

# Assert helpers for ktap_ok: eq A B [WHAT], le A B [WHAT].
eq()
{
	[ "$1" = "$2" ] && return 0
	ktap_diag "${3:-value}: got '$1', want '$2'"
	return 1
}

le()
{
	[ -n "$1" ] && [ -n "$2" ] && [ "$1" -le "$2" ] && return 0
	ktap_diag "${3:-value}: got '$1', want <= '$2'"
	return 1
}

cxb_load()
{
	modprobe cxbell && modprobe cxbell_sim
}

cxb_unload()
{
	_rc=0
	if [ -d /sys/module/cxbell_sim ]; then
		rmmod cxbell_sim || _rc=1
	fi
	if [ -d /sys/module/cxbell ]; then
		rmmod cxbell || _rc=1
	fi
	return $_rc
}

# Netdev names of adapter ID (one per line), from sysfs.
cxb_netdevs()
{
	for _n in "$CXB_BUS/devices/cxbell_sim$1"/cxbell_sim.port.*/net/*; do
		[ -e "$_n" ] && basename "$_n"
	done
}

cxb_has_netdevs()
{
	[ "$(cxb_netdevs "$1" | wc -l)" -ge "$2" ]
}

# cxb_new ID [NPORTS [GEN]]: GEN cx3 (default) or cx5
cxb_new()
{
	echo "$1 ${2:-2}${3:+ $3}" >"$CXB_BUS/new_device" || return 1
	# The netdevs appear only if cxbell is loaded.
	[ -d /sys/module/cxbell ] || return 0
	wait_until 10 cxb_has_netdevs "$1" "${2:-2}"
}

# Free the skbs other CPUs left for their allocating CPU to free
# (skb_attempt_defer_free(): TCP receive): each CPU frees its list when it
# next runs the RX softirq, which a loopback ping pinned to it forces.
# Receive pages in those skbs belong to a page_pool that keeps them
# mapped until they come back.
skb_defer_flush()
{
	for _c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$_c" ping -c 1 -W 1 127.0.0.1 >/dev/null 2>&1
	done
	return 0
}

# An adapter whose ports are all down should hold no mapping: wait (up
# to 2 s) for page_pools destroyed with pages in flight to unmap them
# (their release work retries every second) before the device goes.
_cxb_settled()
{
	[ "$(sim_dma_live "$1")" = 0 ] && return 0
	for _n in $(cxb_netdevs "$1"); do
		[ $(($(cat "/sys/class/net/$_n/flags") & 1)) = 1 ] && return 0
	done
	return 1
}

cxb_del()
{
	if [ -e "$CXB_DBG/cxbell_sim$1/dma_live" ]; then
		skb_defer_flush
		wait_until 2 _cxb_settled "$1" || true
	fi
	echo "$1" >"$CXB_BUS/del_device"
}

cxb_netdev()
{
	for _n in $(cxb_netdevs "$1"); do
		if [ "$(cat "/sys/class/net/$_n/dev_port")" = "$2" ]; then
			echo "$_n"
			return 0
		fi
	done
	return 1
}

cxb_stat()
{
	if [ -n "${3:-}" ]; then
		ip netns exec "$3" ethtool -S "$1"
	else
		ethtool -S "$1"
	fi | awk -v n="$2" '$1 == n ":" { print $2; f = 1 } END { exit !f }'
}

sim_ctr()
{
	cat "$CXB_DBG/cxbell_sim$1/port$2/$3"
}

sim_engine()
{
	if [ -n "${2:-}" ]; then
		echo "$2" >"$CXB_DBG/cxbell_sim$1/engine"
	else
		cat "$CXB_DBG/cxbell_sim$1/engine"
	fi
}

sim_reset()
{
	echo 1 >"$CXB_DBG/cxbell_sim$1/reset_counters"
}

sim_dma_live()
{
	if [ -n "${1:-}" ]; then
		cat "$CXB_DBG/cxbell_sim$1/dma_live"
	else
		cat "$CXB_DBG/dma_live"
	fi
}

# Receive pages are page_pool pages, mapped while in the pool: those still
# in skbs (sockets of a namespace being deleted, which happens in the
# background, or skbs on another CPU's defer list) are unmapped when they
# come back.
dma_live_zero()
{
	_dz() { [ "$(sim_dma_live)" = 0 ]; }
	skb_defer_flush
	wait_until 10 _dz
	eq "$(sim_dma_live)" 0 "${1:-dma_live after teardown}" && return 0
	# Who may still hold a receive page: sockets, netns not yet cleaned.
	ktap_diag "sockstat: $(tr '\n' ' ' </proc/net/sockstat)"
	ktap_diag "netns: $(ip netns list 2>/dev/null | tr '\n' ' ')"
	return 1
}

no_ipv6()
{
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 >/dev/null 2>&1
	sysctl -qw net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
	return 0
}

# Write one pktgen command and check pktgen accepted it.
pgset()
{
	echo "$2" >"$1" || { ktap_diag "pktgen: '$2' > $1 failed" >&2; return 1; }
	case $1 in
	*/pgctrl) return 0 ;;
	esac
	if ! grep -q '^Result: OK' "$1"; then
		ktap_diag "pktgen: '$2': $(grep '^Result' "$1")" >&2
		return 1
	fi
}

# kpktgend_0 has no device (its Running: and Stopped: lists are empty).
_pktgen_idle()
{
	awk '/^(Running|Stopped):/ { if (NF > 1) busy = 1 } END { exit busy }' \
		/proc/net/pktgen/kpktgend_0
}

# Take every device off kpktgend_0, and wait until its thread did. pktgen's
# rem_device_all only sets a flag for the thread and waits 125 ms; a
# thread that ran later (at nice 19, on a loaded host) would take off a
# device added meanwhile. So it is sent only when there is a device, and
# an empty list is proof the flag was handled.
pktgen_rem_all()
{
	_pktgen_idle && return 0
	pgset /proc/net/pktgen/kpktgend_0 rem_device_all || return 1
	wait_until 10 _pktgen_idle ||
		{ ktap_diag "pktgen: kpktgend_0 kept its devices" >&2; return 1; }
}

# pktgen_dev IF COUNT BURST DSTMAC PKTSIZE CLONE DST [FLAG...]: IF alone on
# kpktgend_0, set up for a run (pktgen loaded; nothing started).
pktgen_dev()
{
	_pg=/proc/net/pktgen
	pktgen_rem_all || return 1
	pgset $_pg/kpktgend_0 "add_device $1" || return 1
	_d=$_pg/$1
	pgset "$_d" "count $2" &&
	pgset "$_d" "pkt_size $5" &&
	pgset "$_d" "clone_skb $6" &&
	pgset "$_d" "burst $3" &&
	pgset "$_d" "delay 0" || return 1
	_dst=$7 _mac=$4
	shift 7
	for _fl in "$@"; do
		pgset "$_d" "flag $_fl" || return 1
	done
	pgset "$_d" "dst $_dst" &&
	pgset "$_d" "dst_mac $_mac"
}

# pktgen_run IF COUNT BURST DSTMAC [PKTSIZE]: one run on kpktgend_0.
# Prints pktgen's packets per second and packets sent.
pktgen_run()
{
	_pg=/proc/net/pktgen
	[ -d $_pg ] || modprobe pktgen || return 1
	# shellcheck disable=SC2086
	pktgen_dev "$1" "$2" "$3" "$4" "${5:-60}" 0 10.0.0.2 ${CXB_PKTGEN_FLAGS:-} ||
		return 1
	_d=$_pg/$1
	# pktgen's thread never sleeps; at nice 0 it starves ksoftirqd, where
	# NAPI (TX completion, the peer's RX refill) lands once softirqs are
	# deferred, and the peer drops frames. Nice 19 lets NAPI keep up.
	renice "${CXB_PKTGEN_NICE:-19}" -p "$(pidof kpktgend_0)" >/dev/null 2>&1
	pgset $_pg/pgctrl start || return 1
	pktgen_wait "$_d"
	# "Result: OK: 1234(c1000+d234) usec, 102400 (60byte,0frags)"
	# "  82000pps 39Mb/sec (...) errors: 0"
	if ! grep -q '^Result: OK' "$_d"; then
		ktap_diag "pktgen: $(grep '^Result' "$_d")" >&2
		return 1
	fi
	# "     pkts-sofar: 102400  errors: 0"
	echo "$(sed -n 's/^ *\([0-9]*\)pps .*/\1/p' "$_d")" \
		"$(sed -n 's/^ *pkts-sofar: *\([0-9]*\).*/\1/p' "$_d")"
	pktgen_rem_all
}

# pktgen_wait DEVFILE: wait (up to 60 s) for the run of that pktgen
# device to end. "start" returns at once if kpktgend (at nice 19, on a
# loaded host) has not taken the run up within pktgen's 125 ms grace: the
# run then starts later, and "Result:" reads Idle or Starting until it
# ends.
pktgen_wait()
{
	_w=0
	while ! grep -q '^Result: OK' "$1" && [ $_w -lt 600 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
}

# Seconds since boot (/proc/uptime), for secs_between.
uptime_s()
{
	cut -d' ' -f1 /proc/uptime
}

# secs_between T0 T1: T1 - T0 (uptime_s values) as "%.1f".
secs_between()
{
	echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'
}

# pktgen_timed IF COUNT BURST DSTMAC [PKTSIZE]: pktgen_run, printing
# "PPS SENT SECONDS" (SECONDS: its wall time, as secs_between).
pktgen_timed()
{
	_t0=$(uptime_s)
	_res=$(pktgen_run "$@") || return 1
	echo "$_res $(secs_between "$_t0" "$(uptime_s)")"
}

pktgen_stop()
{
	echo stop >/proc/net/pktgen/pgctrl
}

# One ethtool -S call: "PREFIX_tx_packets=123" etc. for every counter.
cxb_snap()
{
	if [ -n "${3:-}" ]; then
		ip netns exec "$3" ethtool -S "$2"
	else
		ethtool -S "$2"
	fi | awk -v p="$1" -F': *' '
		{ sub(/^ */, "", $1) }
		$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^[0-9]+$/ { print p "_" $1 "=" $2 }'
}

sim_snap()
{
	# One process: "DIR/NAME:VALUE" per counter file.
	grep -H '' "$CXB_DBG/cxbell_sim$2/port$3"/* 2>/dev/null |
		awk -v p="$1" '{ sub(/.*\//, ""); i = index($0, ":");
			n = substr($0, 1, i - 1); v = substr($0, i + 1) }
			n ~ /^[a-z0-9_]+$/ && v ~ /^[0-9]+$/ { print p "_" n "=" v }'
}

# Value of private flag $2 of $1 (ethtool pads the names: "NAME  : on").
cxb_priv_flag()
{
	ethtool --show-priv-flags "$1" | awk -F: -v k="$2" '
		{ n = $1; v = $2; gsub(/[ \t]/, "", n); gsub(/[ \t]/, "", v) }
		n == k { print v }'
}

cxb_tx_push()
{
	ethtool -g "$1" | awk '/^TX Push:/ { print $3 }'
}

cxb_copybreak()
{
	ethtool --get-tunable "$1" tx-copybreak |
		awk '$1 == "tx-copybreak:" { print $2 }'
}

# Write DATA to FILE with a single write(2) (dd from a regular file, so
# the read is not split), as a sysfs store sees it.
cxb_write()
{
	_w=$(mktemp /tmp/cxb_write.XXXXXX) || return 2
	printf '%s' "$2" >"$_w"
	_sz=$(wc -c <"$_w")
	[ "$_sz" -gt 0 ] || _sz=1
	_err=$(dd if="$_w" of="$1" bs="$_sz" count=1 conv=notrunc 2>&1 >/dev/null)
	_rc=$?
	rm -f "$_w"
	[ $_rc = 0 ] && return 0
	# "dd: error writing 'FILE': Invalid argument"
	printf '%s\n' "$_err" | sed -n 's/^dd: .*: \([^:]*\)$/\1/p' | head -n 1
	return $_rc
}

no_ipv6_netns()
{
	for _ns in "$@"; do
		ip netns exec "$_ns" sh -c '
			sysctl -qw net.ipv6.conf.all.disable_ipv6=1
			sysctl -qw net.ipv6.conf.default.disable_ipv6=1' >/dev/null 2>&1
	done
	return 0
}

# "cxbell_sim.port.N: SQ 0x..: WQE at IDX posted, no doorbell; CQ 0x..: N
# CQEs unconsumed, [not ]armed" (info level: in dmesg, not on the console).
sim_stranded_log()
{
	dmesg | grep -a ', no doorbell' | tail -n 5
}

# Sim adapter 1 with both ports up, one channel each, port 0's carrier on;
# sets p0, p1 and mac (port 1's address), loads pktgen. $1: the adapter's
# generation (cx3 default, cx5).
cxb_pktgen_pair()
{
	cxb_load && cxb_new 1 2 "${1:-}" || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || return 1
	for d in $p0 $p1; do
		ethtool -L "$d" combined 1 || return 1
		ip link set "$d" up || return 1
	done
	wait_until 5 carrier_up || { ktap_diag "no carrier"; return 1; }
	mac=$(cat "/sys/class/net/$p1/address")
	modprobe pktgen
}

# Port $p0 has carrier.
carrier_up() { [ "$(cat "/sys/class/net/$p0/carrier")" = 1 ]; }

# Tear down what cxb_pktgen_pair set up; the sim must hold no mapping.
cxb_pktgen_teardown()
{
	rmmod pktgen || return 1
	_cxb_pair_del
}

# Tear down what cxb_netns_pair and cxb_pktgen_pair set up, likewise.
cxb_netns_teardown()
{
	ip netns del a && ip netns del b || return 1
	_cxb_pair_del
}

# Delete adapter 1, check the sim holds no mapping, unload the modules.
_cxb_pair_del()
{
	cxb_del 1 || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

# cxb_netns_pair [IF_A IF_B [SECS]]: move IF_A/IF_B (default $p0/$p1)
# into namespaces a/b as 10.0.0.1/24 and 10.0.0.2/24 (IPv6 off: no
# DAD/MLD/RS frames racing counter snapshots), up, with carrier within
# SECS (default 5); pktgen, if loaded, is unloaded first.
cxb_netns_pair()
{
	_na=${1:-$p0} _nb=${2:-$p1}
	[ ! -d /proc/net/pktgen ] || rmmod pktgen || return 1
	mkdir -p /run/netns
	ip netns add a && ip netns add b || return 1
	no_ipv6_netns a b
	ip link set "$_na" netns a && ip link set "$_nb" netns b || return 1
	ip -n a link set lo up && ip -n b link set lo up &&
	ip -n a addr add 10.0.0.1/24 dev "$_na" && ip -n b addr add 10.0.0.2/24 dev "$_nb" &&
	ip -n a link set "$_na" up && ip -n b link set "$_nb" up || return 1
	wait_until "${3:-5}" _cxb_ns_carrier a "$_na" &&
	wait_until "${3:-5}" _cxb_ns_carrier b "$_nb" || {
		ktap_diag "no carrier in the namespaces:" \
			"$(ip -n a -br link show dev "$_na")," \
			"$(ip -n b -br link show dev "$_nb")"
		return 1
	}
}

_cxb_ns_carrier() { [ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]; }

# pair_snap PREFIX [NS0 [NS1]]: every counter of the cxb_pktgen_pair as
# shell variables: PREFIX_d_* of $p0 (in netns NS0), PREFIX_r_* of $p1 (NS1),
# PREFIX_s0_* and PREFIX_s1_* of sim adapter 1's ports 0 and 1.
pair_snap()
{
	eval "$(cxb_snap "$1_d" "$p0" "${2:-}")"
	eval "$(cxb_snap "$1_r" "$p1" "${3:-}")"
	eval "$(sim_snap "$1_s0" 1 0)"
	eval "$(sim_snap "$1_s1" 1 1)"
}

# pair_snap_settled PREFIX [NS0 [NS1]]: pair_snap once the traffic ended
# (and the sim's stranded detector had 0.3 s to see the queues idle):
# again every 0.2 s (up to 10 s) until two snapshots in a row agree on the
# frames every driver port sent and every sim port saw, so that the driver
# and sim counters of the last one belong to the same packets (a late TCP
# ACK between the two reads of one snapshot would split them).
pair_snap_settled()
{
	sleep 0.3
	pair_snap "$@"
	_ps_k=$(_ps_key "$1")
	_ps_n=0
	while [ $_ps_n -lt 50 ]; do
		sleep 0.2
		pair_snap "$@"
		_ps_k2=$(_ps_key "$1")
		[ "$_ps_k2" = "$_ps_k" ] && return 0
		_ps_k=$_ps_k2
		_ps_n=$((_ps_n + 1))
	done
	ktap_diag "pair_snap_settled: traffic still running after 10 s"
}

_ps_key()
{
	eval "echo \$$1_d_tx_packets \$$1_r_tx_packets" \
		"\$$1_s0_wqes_fetched \$$1_s1_wqes_fetched" \
		"\$$1_s0_tx_frames \$$1_s1_tx_frames" \
		"\$$1_s0_rx_frames \$$1_s1_rx_frames"
}

# pair_d NAME: delta of a counter between pair_snap b and pair_snap a
# (NAME as "d_tx_packets", "s1_rx_dropped").
pair_d()
{
	eval "echo \$((a_$1 - b_$1))"
}

# pair_rx_done SENT: since pair_snap b, every one of SENT frames arrived at
# $p1 or was dropped by its sim port (1 1).
pair_rx_done()
{
	[ $(($(cxb_stat "$p1" rx_packets) - b_r_rx_packets +
	     $(sim_ctr 1 1 rx_dropped) - b_s1_rx_dropped)) -ge "$1" ]
}

# pair_sim_zero CTR...: sim counters CTR of both ports did not move between
# pair_snap b and a (stranded WQEs are also logged as diagnostics).
pair_sim_zero()
{
	_zrc=0
	for _c in "$@"; do
		eq $(($(pair_d "s0_$_c") + $(pair_d "s1_$_c"))) 0 "sim $_c" || _zrc=1
	done
	[ $(($(pair_d s0_stranded) + $(pair_d s1_stranded))) = 0 ] ||
		sim_stranded_log | while read -r _l; do ktap_diag "sim: $_l"; done
	return $_zrc
}

# tcp_ab FILE: send FILE by TCP from netns a to tcpblast serve in netns b
# (10.0.0.2:5001, as cxb_netns_pair), then delete FILE; sets tcp_rc
# (tcpblast send's status), tcp_sum (sha256 received) and tcp_secs.
tcp_ab()
{
	ip netns exec b sh -c 'tcpblast serve 5001 | sha256sum >/tmp/dst.sum' &
	_srv=$!
	_t0=$(uptime_s)
	ip netns exec a tcpblast send 10.0.0.2 5001 <"$1"
	tcp_rc=$?
	wait $_srv
	tcp_secs=$(secs_between "$_t0" "$(uptime_s)")
	tcp_sum=$(cut -d' ' -f1 /tmp/dst.sum)
	rm -f "$1"
}

# tcp_ab_ok SHA256: the last tcp_ab's send succeeded and b got SHA256.
tcp_ab_ok()
{
	[ "$tcp_rc" = 0 ] || { ktap_diag "tcpblast send exited $tcp_rc"; return 1; }
	eq "$tcp_sum" "$1" "sha256"
}

# ns_ping10: 10 pings from netns a to 10.0.0.2 in b (cxb_netns_pair), the
# summary line as a diagnostic; 0 iff all 10 came back.
ns_ping10()
{
	_out=$(ip netns exec a ping -c 10 -i 0.2 -W 2 10.0.0.2 2>&1)
	ktap_diag "$(printf '%s\n' "$_out" | grep 'packets transmitted')"
	printf '%s\n' "$_out" | grep -q '^10 packets transmitted, 10 packets received'
}

# ns_tcp_sha MIB: MIB MiB of random bytes from a to b over TCP (tcp_ab),
# b's sha256 checked (tcp_ab_ok).
ns_tcp_sha()
{
	head -c $(($1 * 1024 * 1024)) /dev/urandom >/tmp/src || return 1
	_sum=$(sha256sum </tmp/src | cut -d' ' -f1)
	tcp_ab /tmp/src
	ktap_diag "$1 MiB in $tcp_secs s"
	tcp_ab_ok "$_sum"
}

# toggle_rounds NAME STEP IF STOP: run "STEP IF ROUND" for ROUND 0, 1, ...
# until file STOP exists and at least 8 rounds are done, then print
# "NAME ROUNDS" (after STEP's own output: a line per problem).
toggle_rounds()
{
	_i=0
	while [ ! -e "$4" ] || [ $_i -lt 8 ]; do
		"$2" "$3" $_i
		_i=$((_i + 1))
	done
	echo "$1 $_i"
}

# toggle_doorbell_opt IF ROUND: a toggle_rounds STEP writing doorbell_opt
# 0 1 2 3 3 2 1 0 ..., each value held for ~5 ms.
toggle_doorbell_opt()
{
	_v=$(($2 % 8))
	[ $_v -gt 3 ] && _v=$((7 - _v))
	echo $_v 2>/dev/null >"/sys/class/net/$1/doorbell_opt" ||
		echo "round $2: doorbell_opt $_v failed"
	sleep 0.005
}

# toggler IF STOP LOG NAME:STEP...: a toggle_rounds loop per NAME:STEP on
# IF, all at once, until STOP; LOG gets their problems, LOG.n their rounds.
toggler()
{
	_tif=$1 _tstop=$2 _tlog=$3
	shift 3
	_tfs=
	for _t in "$@"; do
		_tfs="$_tfs $_tlog.${_t%%:*}"
		toggle_rounds "${_t%%:*}" "${_t#*:}" "$_tif" "$_tstop" >"$_tlog.${_t%%:*}" &
	done
	wait
	# shellcheck disable=SC2086
	for _f in $_tfs; do tail -n 1 "$_f"; done | tr '\n' ' ' >"$_tlog.n"
	# shellcheck disable=SC2086
	for _f in $_tfs; do sed '$d' "$_f"; done >"$_tlog"
	# shellcheck disable=SC2086
	rm -f $_tfs
}

# toggler_ok LOG [SECONDS]: the toggler of LOG finished and hit no problem
# (diagnostics: its rounds, in SECONDS, and the first problems).
toggler_ok()
{
	_n=$(cat "$1.n" 2>/dev/null)
	ktap_diag "toggler rounds${2:+ in $2 s}: ${_n:-?}"
	_trc=0
	if [ -s "$1" ]; then
		ktap_diag "toggler errors ($(wc -l <"$1") lines, first 10):"
		head -n 10 "$1" | sed 's/^/#   /'
		_trc=1
	fi
	[ -n "$_n" ] || { ktap_diag "toggler: did not finish"; _trc=1; }
	return $_trc
}

# pktgen_toggle ENGINE SECONDS TOGGLER CHECK: sim engine ENGINE, pktgen
# (burst 32, 60 bytes) from $p0 to $p1 while "TOGGLER $p0 STOP LOG" runs
# for SECONDS, then stopped. Sets sent; checks peer rx_packets == sent ==
# tx_packets, then CHECK (a command, on pair_d deltas), then toggler_ok.
pktgen_toggle()
{
	sim_engine 1 "$1" || return 1
	rm -f /tmp/tg.stop /tmp/tg.log /tmp/tg.log.n /tmp/pg.out
	pair_snap b
	pktgen_run "$p0" 100000000 32 "$mac" 60 >/tmp/pg.out &
	_ptpg=$!
	"$3" "$p0" /tmp/tg.stop /tmp/tg.log &
	_pttg=$!
	_ptt0=$(uptime_s)
	sleep "$2"
	touch /tmp/tg.stop
	wait $_pttg
	_ptt1=$(uptime_s)
	pktgen_stop
	wait $_ptpg
	_ptrc=$?
	_ptres=$(cat /tmp/pg.out)
	sent=${_ptres#* }
	[ $_ptrc = 0 ] && [ -n "$sent" ] || {
		ktap_diag "pktgen failed (exit $_ptrc, '$_ptres')"; return 1; }
	wait_until 5 pair_rx_done "$sent"
	sleep 0.3
	pair_snap a
	ktap_diag "$1 engine: sent $sent, peer rx $(pair_d r_rx_packets) (sim" \
		"rx_dropped $(pair_d s1_rx_dropped)), ${_ptres% *}pps"
	_ptok=0
	eq "$(pair_d r_rx_packets)" "$sent" "peer rx_packets vs sent" || _ptok=1
	eq "$(pair_d d_tx_packets)" "$sent" "tx_packets vs sent" || _ptok=1
	"$4" || _ptok=1
	toggler_ok /tmp/tg.log "$(secs_between "$_ptt0" "$_ptt1")" || _ptok=1
	return $_ptok
}

CX3_VIOLATION='connectx3: violation:'

cx3_ctr()
{
	cx3stat "$1"
}

cx3_snap()
{
	cx3stat | awk -v p="$1" '$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^[0-9]+$/ {
		print p "_" $1 "=" $2 }'
}

cx3_d()
{
	eval "echo \$((a_$1 - b_$1))"
}

# The sysfs directory of the 15b3:1003 PCI function(s).
cx3_pci()
{
	for _d in /sys/bus/pci/devices/*; do
		# (read, not cat: no process per device)
		read -r _v <"$_d/vendor" && [ "$_v" = 0x15b3 ] &&
		read -r _v <"$_d/device" && [ "$_v" = 0x1003 ] && echo "$_d"
	done 2>/dev/null
	return 0
}

# Its netdevs, ordered by dev_port.
cx3_netdevs()
{
	for _d in $(cx3_pci); do
		for _n in "$_d"/net/*; do
			[ -e "$_n" ] && echo "$(cat "$_n/dev_port") ${_n##*/}"
		done
	done | sort -n | cut -d' ' -f2
}

# Kernel log lines of the mlx4 drivers (mlx4_core, mlx4_en, cxbell_mlx4
# and the cxbell netdevs on its ports) since the last call ("<N>[ t]
# text", raw: the level is kept), into $log_lines; the log is cleared.
cx3_log()
{
	log_lines=$(dmesg -r -c 2>/dev/null | grep -aE 'mlx4|cxbell')
}

# What a bad line is. mlx4_en's own en_print() (en_info, en_warn, en_err:
# "mlx4_en: IF: ..." or "mlx4_en: BDF: Port N: ...") passes the level as
# an argument of "%s%s: ...", so all of them land at the default level 4
# whatever they say: they are judged by their text. Every other line at
# level 0-3, and a dev_printk warning at level 4 ("mlx4_core BDF: ...",
# "mlx4_en BDF: ...", mlx4_warn; "cxbell cxbell_mlx4.port.N IF: ...",
# netdev_warn), is bad, and so is any line with a failure word.
CX3_LOG_FAIL='[Ff]ail|[Ee]rror|timed out|[Tt]imeout|[Uu]nable|[Cc]ouldn.t|[Cc]annot|[Ii]nvalid|[Bb]ad |without MSI-X|not supported|catas|[Ii]nternal err|going to be reset|[Dd]evice is dead|BUG|Unknown'
# Lines of a good probe on this model that the rules above would catch:
# mlx4_dbg's "Catastrophic error buffer at ..." (QUERY_FW, debug_level=1);
# mlx4_en's warning for a device without LSO (en_main.c: caps bit 15),
# which the model does not offer on purpose, so that mlx4_en offers no TSO;
# the kernel's taint warnings for the project's unsigned modules.
CX3_LOG_OK='Catastrophic error buffer at
LSO not supported, please upgrade to later FW version to enable LSO
loading out-of-tree module taints kernel
module verification failed: signature and/or required key missing'

# The lines of $log_lines that are bad: printed as diagnostics, 1 if any.
cx3_log_clean()
{
	_bad=$(printf '%s\n' "$log_lines" | grep -aE '^<[0-3]>' ;
	       printf '%s\n' "$log_lines" |
			grep -aE '^<4>\[[ 0-9.]*\] (mlx4_(core|en) [0-9a-f]{4}:|cxbell [^ ]+ )' ;
	       printf '%s\n' "$log_lines" | grep -aE "$CX3_LOG_FAIL")
	printf '%s\n' "$CX3_LOG_OK" >/tmp/cx3_log_ok
	_bad=$(printf '%s\n' "$_bad" | grep -avF -f /tmp/cx3_log_ok | grep -a . | sort -u)
	[ -z "$_bad" ] && return 0
	printf '%s\n' "$_bad" | head -n 20 | sed 's/^/# log: /'
	return 1
}

# Expect a line containing the fixed string $1 in $log_lines.
cx3_has_line()
{
	printf '%s\n' "$log_lines" | grep -qaF -- "$1" && return 0
	ktap_diag "no kernel log line with '$1'"
	return 1
}

# cx3_pause_set on|off IF...: 802.3x pause of each IF, both directions
cx3_pause_set()
{
	_ps=$1
	shift
	for _p in "$@"; do
		# (ethtool -A fails when nothing changes: then both must read so)
		ethtool -A "$_p" rx "$_ps" tx "$_ps" 2>/tmp/cx3_pause.err ||
			[ "$(ethtool -a "$_p" | awk '/^(RX|TX):/ {printf "%s ", $2}')" = "$_ps $_ps " ] ||
			{ ktap_diag "ethtool -A $_p rx $_ps tx $_ps failed: $(cat /tmp/cx3_pause.err)"
			  return 1; }
	done
}

# XDP program on IF (ip link shows it)
xdp_attached() { ip link show dev "$1" | grep -q 'xdp'; }
xdp_detached() { ! xdp_attached "$1"; }

# bench_start MODE ARGS...: xdp-bench in the background until bench_stop
bench_start()
{
	xdp-bench "$@" -i 1 >/tmp/xdp-bench.log 2>&1 &
	bench_pid=$!
	wait_until 20 xdp_attached "$2" ||
		{ ktap_diag "xdp-bench $*: not attached"; sed 's/^/# /' /tmp/xdp-bench.log; return 1; }
}

bench_stop()
{
	kill -INT "$bench_pid" 2>/dev/null
	wait "$bench_pid" 2>/dev/null
	wait_until 10 xdp_detached "$1" || { ktap_diag "still attached"; return 1; }
}
