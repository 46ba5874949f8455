# SPDX-License-Identifier: GPL-2.0
#
# The QEMU ConnectX-3 model (vm-run --cx3; cx3stat, its counters page),
# the stock mlx4 drivers on it (part of lib.sh).
#
#   cx3_ctr NAME                    one model counter (cx3stat NAME)
#   cx3_counters                    every model counter as "NAME VALUE"
#                                   (for snap_add, lib/snap.sh)
#   cx3_snap PREFIX                 every model counter as shell
#                                   assignments PREFIX_NAME=VALUE (for
#                                   scripts outside the tree that eval them)
#   cx3_d NAME                      snapshot a minus snapshot b of NAME
#                                   (snap_d, lib/snap.sh)
#   cx3_tcp_tso MIB STAT            MIB MiB from netns a to b (sha256
#                                   checked) with the GSO skbs given to $p1
#                                   traced: as many LSO WQEs in $p1's
#                                   ethtool STAT (delta in $_tso) and the
#                                   model's lso_wqes, their gso_segs in its
#                                   lso_segments (snapshots b, a)
#   cx3_port_snap SNAP IF1 IF2      snapshot SNAP of the model's counters
#                                   (keys as named) and of IF1 (e1_*) and
#                                   IF2 (e2_*)
#   cx3_port_rx_done SENT IF2       since cx3_port_snap b, SENT frames
#                                   arrived at IF2 or the model dropped them
#   cx3_pci                         sysfs directory of the 15b3:1003 function
#   cx3_netdevs                     netdevs of the 15b3:1003 function (one a
#                                   line, by dev_port), in every namespace
#                                   they were not moved out of
#   cx3_log / cx3_log_clean / cx3_has_line TEXT
#                                   the mlx4 kernel log lines since the last
#                                   cx3_log (in $log_lines); none bad; one
#                                   with TEXT
#   cx3_pause_set on|off IF...      802.3x pause of each IF, both directions
#   CX3_VIOLATION                   the model's log prefix for a violation
#                                   on QEMU's stderr; vm-run counts such a
#                                   line as a bad log line (vm-run
#                                   --violations-ok, a test's marker line
#                                   "# cxbell-test: violations-ok");
#                                   run-tests and vm-run read it with grep

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

# cx3_counters: every model counter as "NAME VALUE"
cx3_counters()
{
	cx3stat | awk '$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^[0-9]+$/ { print $1, $2 }'
}

# cx3_d NAME: NAME in snapshot a minus snapshot b
cx3_d()
{
	snap_d "$1" a b
}

cx3_tcp_tso()
{
	snap_new b && snap_add b "" cx3_counters || return 1
	_tso0=$(cxb_stat "$p1" "$2" a) || return 1
	gso_trace_on "$p1" || return 1
	ns_tcp_sha "$1" || { gso_trace_off; return 1; }
	gso_trace_off || return 1
	snap_new a && snap_add a "" cx3_counters || return 1
	_tso=$(($(cxb_stat "$p1" "$2" a) - _tso0))
	ktap_diag "TSO: $gso_skbs GSO skbs of $gso_segs segments, $2 $_tso," \
		"model lso_wqes $(cx3_d lso_wqes) lso_segments $(cx3_d lso_segments)"
	eq "$_tso" "$gso_skbs" "$2 vs GSO skbs" &&
	eq "$(cx3_d lso_wqes)" "$gso_skbs" "model lso_wqes vs GSO skbs" &&
	eq "$(cx3_d lso_segments)" "$gso_segs" "model lso_segments vs their gso_segs"
}

cx3_port_snap()
{
	snap_new "$1" &&
	snap_add "$1" "" cx3_counters &&
	snap_add "$1" e1_ cxb_counters "$2" &&
	snap_add "$1" e2_ cxb_counters "$3"
}

cx3_port_rx_done()
{
	# shellcheck disable=SC2046 # two numbers
	set -- "$1" "$2" $(snap_vals b e2_rx_packets rx_dropped)
	[ $(($(cxb_stat "$2" rx_packets) - $3 + $(cx3_ctr rx_dropped) - $4)) -ge "$1" ]
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
