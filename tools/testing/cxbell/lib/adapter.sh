# SPDX-License-Identifier: GPL-2.0
#
# The cxbell and cxbell_sim modules, sim adapters and their netdevs,
# driver and sim counters, ethtool getters, XDP programs (part of lib.sh).
#
#   cxb_load / cxb_unload           modprobe / rmmod both modules
#   cxb_new ID [NPORTS [GEN]]       create adapter ID (GEN cx3, the
#                                   default, or cx5), wait for its netdevs
#   cxb_del ID                      delete adapter ID (first flushing
#                                   deferred skb frees, see
#                                   skb_defer_flush, and waiting up to 2 s
#                                   for a downed adapter's mappings to go)
#   cxb_adapter_up ID [GEN]         cxb_new ID 2 GEN, both ports with one
#                                   channel and up, port 0's carrier on
#                                   within 5 s (the pair fixtures' base)
#   cxb_ab_up ID [GEN]              cxb_adapter_up ID GEN; sets AD (ID),
#                                   A (port 0's netdev), B (port 1's) and
#                                   BMAC (B's address)
#   skb_defer_flush                 make every CPU free its deferred skbs
#   cxb_netdevs ID                  netdev names of adapter ID, one a line
#   cxb_has_netdevs ID N            adapter ID has at least N netdevs
#   cxb_netdev ID PORT              name of the netdev of port PORT
#   cxb_stat IF NAME [NS]           one ethtool -S counter of IF (netns NS)
#   sim_ctr ID PORT NAME            one sim debugfs counter of a port
#   sim_engine ID [inline|deferred] set (or print) the adapter's engine
#   sim_reset ID                    reset the adapter's sim counters
#   sim_adapters                    IDs of the sim adapters there are
#   sim_no_violations ID...         assert (eq) 0 violations on every port
#                                   of each adapter ID
#   sim_dma_live [ID]               live DMA mappings (all, or adapter ID)
#   dma_live_zero [WHAT]            assert (eq) that the sim's live DMA
#                                   mappings reach 0 within 10 s
#   sim_stranded_log                the sim's log lines about stranded
#                                   WQEs (to print as diagnostics)
#   no_ipv6                         no IPv6 on new interfaces (no stray
#                                   DAD/MLD/RS frames disturbing counters),
#                                   as booted again at exit
#   cxb_priv_flag IF NAME           a private flag: on or off
#   cxb_tx_push IF                  "TX Push" of ethtool -g: on or off
#   cxb_copybreak IF                ethtool --get-tunable tx-copybreak value
#   cxb_write FILE DATA             write DATA (printf %s: add \n yourself)
#                                   to FILE in one write(2); on failure
#                                   print the errno text (e.g. "Invalid
#                                   argument") and return non-zero
#   xdp_attached IF / xdp_detached IF
#                                   an XDP program is (not) on IF
#   bench_start MODE IF ARGS... / bench_stop IF
#                                   xdp-bench MODE IF in the background
#                                   (attached within 20 s) / stopped
#                                   (detached within 10 s)
#
# Counters as "NAME VALUE" lines, for a snapshot (lib/snap.sh):
#   cxb_counters IF [NS]            every ethtool -S counter of IF
#   sim_counters ID PORT            every sim counter of a port
# and, for scripts outside the tree that eval them, as shell assignments:
#   cxb_snap PREFIX IF [NS]         PREFIX_NAME=VALUE per ethtool -S counter
#   sim_snap PREFIX ID PORT         PREFIX_NAME=VALUE per sim counter

CXB_DBG=/sys/kernel/debug/cxbell_sim
CXB_BUS=/sys/bus/cxbell_sim

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

sim_adapters()
{
	for _a in "$CXB_DBG"/cxbell_sim*; do
		[ -d "$_a" ] && echo "${_a##*/cxbell_sim}"
	done
}

# sim_no_violations ID...: no port of adapter ID counted a violation; an
# adapter that is not there fails too.
sim_no_violations()
{
	for _nv_ad in "$@"; do
		[ -d "$CXB_DBG/cxbell_sim$_nv_ad" ] ||
			{ ktap_diag "no sim adapter $_nv_ad"; return 1; }
		for _nv_p in "$CXB_DBG/cxbell_sim$_nv_ad"/port*; do
			_nv_p=${_nv_p##*/port}
			eq "$(sim_ctr "$_nv_ad" "$_nv_p" violations)" 0 \
				"adapter $_nv_ad port$_nv_p violations" || return 1
		done
	done
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
	cxb_sysctl net.ipv6.conf.all.disable_ipv6 1 >/dev/null 2>&1
	cxb_sysctl net.ipv6.conf.default.disable_ipv6 1 >/dev/null 2>&1
	return 0
}

# cxb_adapter_up ID [GEN]: cxbell and cxbell_sim loaded, adapter ID with
# two ports of generation GEN (cx3 default, cx5), each with one channel
# and up, port 0's carrier on (within 5 s).
cxb_adapter_up()
{
	cxb_load && cxb_new "$1" 2 "${2:-}" || return 1
	for _n in $(cxb_netdevs "$1"); do
		ethtool -L "$_n" combined 1 || return 1
		ip link set "$_n" up || return 1
	done
	_au_p0=$(cxb_netdev "$1" 0) || return 1
	wait_until 5 _cxb_carrier "$_au_p0" ||
		{ ktap_diag "no carrier on $_au_p0"; return 1; }
}

# cxb_ab_up ID [GEN]: cxb_adapter_up ID GEN, the test's two ports named:
# AD=ID, A (port 0), B (port 1), BMAC (B's MAC address).
cxb_ab_up()
{
	cxb_adapter_up "$1" "${2:-}" || return 1
	AD=$1
	A=$(cxb_netdev "$1" 0) && B=$(cxb_netdev "$1" 1) || return 1
	BMAC=$(cat "/sys/class/net/$B/address")
}

# Netdev $1 (in this namespace) has carrier.
_cxb_carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }

# cxb_counters IF [NS]: every ethtool -S counter of IF as "NAME VALUE"
cxb_counters()
{
	if [ -n "${2:-}" ]; then
		ip netns exec "$2" ethtool -S "$1"
	else
		ethtool -S "$1"
	fi | awk -F': *' '
		{ sub(/^ */, "", $1) }
		$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^[0-9]+$/ { print $1, $2 }'
}

# sim_counters ID PORT: every sim counter of a port as "NAME VALUE"
sim_counters()
{
	# One process: "DIR/NAME:VALUE" per counter file.
	grep -H '' "$CXB_DBG/cxbell_sim$1/port$2"/* 2>/dev/null |
		awk '{ sub(/.*\//, ""); i = index($0, ":");
			n = substr($0, 1, i - 1); v = substr($0, i + 1) }
			n ~ /^[a-z0-9_]+$/ && v ~ /^[0-9]+$/ { print n, v }'
}

# cxb_snap PREFIX IF [NS] / sim_snap PREFIX ID PORT: the same counters as
# shell assignments PREFIX_NAME=VALUE, for scripts outside the tree that
# eval them (the tree's own use snapshots).
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

# "cxbell_sim.port.N: SQ 0x..: WQE at IDX posted, no doorbell; CQ 0x..: N
# CQEs unconsumed, [not ]armed" (info level: in dmesg, not on the console).
sim_stranded_log()
{
	dmesg | grep -a ', no doorbell' | tail -n 5
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
