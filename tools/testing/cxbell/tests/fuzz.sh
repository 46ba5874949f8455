# SPDX-License-Identifier: GPL-2.0
#
# Bad input, bounded fuzz: every file the project creates in sysfs
# (/sys/class/net/IF/doorbell_opt, /sys/bus/cxbell_sim/new_device and
# del_device) and every writable debugfs file of the sim (plus one
# read-only counter per directory) gets boundary values (an empty line,
# 0, -1, INT/UINT/ULONG limits and one past, hex, words, spaces, 5000
# digits, 4 KiB of letters) and random binary data, each in one write(2);
# every ethtool operation the driver implements gets random and boundary
# arguments. Checked:
#   - a write either succeeds or fails with an errno; a rejected write
#     leaves what the file reads unchanged (adapters: the device list);
#   - a rejected ethtool request exits non-zero with a message (the
#     extack text for netlink requests), and leaves -g/-l/-c, the private
#     flags and tx-copybreak unchanged;
#   - no bad kernel log line, and few lines at all (rate limited);
#   - afterwards, with the knobs back to their defaults, both ports pass
#     traffic without loss and the sim reports no DMA mapping leaked.
#
#   fuzz.sh [ROUNDS]    random values per file and ethtool op (default 2)
. /cxbell/lib.sh

ROUNDS=${1:-2}
ID=77
SIM=$CXB_DBG/cxbell_sim$ID
VAL=/tmp/fuzz.val

ktap_plan 6
no_ipv6

setup()
{
	cxb_load && cxb_new $ID 2 || return 1
	p0=$(cxb_netdev $ID 0) && p1=$(cxb_netdev $ID 1) || return 1
	dmesg -c >/dev/null
	: >/tmp/fuzz.dmesg
}

# Boundary values, written with the printf builtin (no fork per value).
NVALS=26
value()
{
	case $1 in
	1) printf '0' ;; 2) printf '1\n' ;; 3) printf -- '-1' ;; 4) printf '7' ;;
	5) printf '255' ;; 6) printf '256' ;; 7) printf -- '-2147483648' ;;
	8) printf '2147483647' ;; 9) printf '2147483648' ;;
	10) printf '4294967296' ;; 11) printf '18446744073709551616' ;;
	12) printf 'abc' ;; 13) printf '0x10' ;; 14) printf ' 7 ' ;;
	15) printf '1 2' ;; 16) printf 'N\n' ;; 17) printf 'passthrough' ;;
	18) printf 'deferred\n' ;; 19) printf '77 1' ;; 20) printf -- '-5 2' ;;
	21) printf '\n' ;; 22) printf '1\0002' ;; 23) printf '\377\376\001' ;;
	24) printf '%5000s' '' | tr ' ' 9 ;; 25) printf '%4096s' '' | tr ' ' A ;;
	*) head -c $((1 + $(od -An -N1 -tu1 /dev/urandom) % 64)) /dev/urandom ;;
	esac
}

# Write file $VAL to $1 in one write(2). Sets werr (errno text) on failure.
# (one read of the whole file, one write of what it read: bs is larger)
wr()
{
	dd if="$VAL" of="$1" bs=65536 count=1 conv=notrunc 2>/tmp/fuzz.err \
		>/dev/null && return 0
	read -r werr </tmp/fuzz.err
	return 1
}

# What the file reads (first line; builtin read, no fork); the adapter
# list for the bus files.
state()
{
	case $1 in
	*/new_device|*/del_device) _st=$(ls /sys/bus/cxbell_sim/devices) ;;
	*) _st=; read -r _st <"$1" 2>/dev/null ;;
	esac
}

writes=0 rejected=0
# fuzz_file FILE: every value, then ROUNDS random binary ones.
fuzz_file()
{
	_f=$1
	_i=0
	while [ $_i -lt $((NVALS - 1 + ROUNDS)) ]; do
		_i=$((_i + 1))
		value $_i >"$VAL"
		state "$_f"
		_before=$_st
		writes=$((writes + 1))
		if wr "$_f"; then
			# accepted: keep the adapter and the ports usable
			restore "$_f"
			continue
		fi
		rejected=$((rejected + 1))
		case $werr in
		*"dd: error writing"*|*"dd: writing"*|*"dd: failed to open"*) ;;
		*)	ktap_diag "$_f: value $_i: no errno: $werr"
			return 1 ;;
		esac
		state "$_f"
		if [ "$_st" != "$_before" ]; then
			ktap_diag "$_f: rejected value $_i ($(od -c "$VAL" | head -n 1)) changed it:"
			ktap_diag "  before '$_before' after '$_st'"
			return 1
		fi
	done
}

# After an accepted write, put back what would break the next writes.
restore()
{
	case $1 in
	*/new_device|*/del_device)
		for _d in /sys/bus/cxbell_sim/devices/cxbell_sim*; do
			_x=${_d##*/cxbell_sim}
			[ -e "$_d" ] && [ "$_x" != $ID ] && cxb_del "$_x"
		done
		if [ ! -e "$SIM" ]; then
			cxb_new $ID 2 || return 1
			p0=$(cxb_netdev $ID 0) && p1=$(cxb_netdev $ID 1)
		fi ;;
	*/fault/err_cqe_syndrome|*/fault/dma_map_failed) ;;
	*/fault/*) echo 0 >"$1" ;;
	*/cable) echo Y >"$1" ;;
	*/iommu) echo strict >"$1" ;;
	*/engine) echo inline >"$1" ;;
	esac
	return 0
}

debugfs_files()
{
	# writable files, and the first read-only counter of each directory
	find "$SIM" -type f -perm /200
	for _d in $(find "$SIM" -type d); do
		find "$_d" -maxdepth 1 -type f ! -perm /200 | head -n 1
	done
	echo "$CXB_DBG/dma_live"
}

fuzz_files()
{
	for f in /sys/class/net/$p0/doorbell_opt /sys/class/net/$p1/doorbell_opt \
		/sys/class/net/$p0/doorbell_defer_max \
		$(debugfs_files) "$CXB_BUS/new_device" "$CXB_BUS/del_device"; do
		[ -e "$f" ] || continue
		fuzz_file "$f" || return 1
	done
	ktap_diag "$writes writes, $rejected rejected with an errno"
	dmesg >>/tmp/fuzz.dmesg
}

# What a request of kind $1 could change.
ethstate()
{
	case $1 in
	-L) ethtool -l "$p0" ;;
	-C) ethtool -c "$p0" ;;
	--set-tunable) ethtool --get-tunable "$p0" tx-copybreak ;;
	--set-priv-flags) ethtool --show-priv-flags "$p0" ;;
	*) ethtool -g "$p0" ;;
	esac 2>&1
}

ereq=0 erej=0
# eth ARGS...: one request; rejected ones must say why and change nothing.
eth()
{
	_before=$(ethstate "$1")
	ereq=$((ereq + 1))
	if _out=$(ethtool "$@" 2>&1); then
		return 0
	fi
	erej=$((erej + 1))
	if [ -z "$_out" ]; then
		ktap_diag "ethtool $*: rejected without a message"
		return 1
	fi
	_after=$(ethstate "$1")
	if [ "$_after" != "$_before" ]; then
		ktap_diag "ethtool $*: rejected ($_out) but the state changed"
		return 1
	fi
	# netlink requests the driver rejects carry its extack message
	case $1 in
	-G|-C)
		case $_out in
		*"netlink error"*|*"not supported"*|*"unmodified"*|*"aborting"*|\
		*"bad command line"*|*nvalid*|*"out of range"*) ;;
		*) ktap_diag "ethtool $*: no reason given: $_out"; return 1 ;;
		esac ;;
	esac
	return 0
}

rnd() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }

fuzz_ethtool()
{
	ip link set "$p0" up && ip link set "$p1" up || return 1
	nums="0 1 63 65 100 8192 8193 4294967295 -1 abc"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		nums="$nums $(($(rnd) % 10000))"
		r=$((r + 1))
	done
	for n in $nums; do
		eth -G "$p0" tx "$n" || return 1
		eth -G "$p0" rx "$n" || return 1
		eth -G "$p0" rx-mini "$n" || return 1
		eth -G "$p0" rx-jumbo "$n" || return 1
		eth -L "$p0" combined "$n" || return 1
		eth -L "$p0" rx "$n" || return 1
		eth -L "$p0" other "$n" || return 1
		eth -C "$p0" tx-frames "$n" || return 1
		eth -C "$p0" rx-usecs "$n" || return 1
		eth --set-tunable "$p0" tx-copybreak "$n" || return 1
		eth --set-tunable "$p0" rx-copybreak "$n" || return 1
		eth --set-priv-flags "$p0" blueflame "$n" || return 1
		# back to a size that keeps the next requests quick
		ethtool -G "$p0" tx 1024 rx 1024 2>/dev/null
		ethtool -L "$p0" combined 1 2>/dev/null
	done
	for v in on off maybe ""; do
		eth -G "$p0" tx-push "$v" || return 1
		eth --set-priv-flags "$p0" blueflame "$v" || return 1
		eth --set-priv-flags "$p0" nosuchflag "$v" || return 1
	done
	eth -s "$p0" speed 1000 || return 1
	eth -A "$p0" rx on || return 1
	ktap_diag "$ereq ethtool requests, $erej rejected with a message"
	dmesg >>/tmp/fuzz.dmesg
}

# Few kernel log lines: rate-limited reports only.
quiet_log()
{
	_n=$(grep -cv 'loading out-of-tree\|taints kernel' /tmp/fuzz.dmesg)
	ktap_diag "$_n kernel log lines during the fuzz, the last ones:"
	tail -n 5 /tmp/fuzz.dmesg | sed 's/^/# /'
	le "$_n" 40 "kernel log lines"
}

# Knobs back to defaults, then traffic across the cable loses nothing.
works()
{
	for k in "$SIM"/port*/fault/* "$SIM"/fault/*; do
		case $k in
		*/err_cqe_syndrome) echo 4 >"$k" ;;
		*/dma_map_failed) ;;
		*) echo 0 >"$k" || return 1 ;;
		esac
	done
	echo Y >"$SIM/cable" && echo inline >"$SIM/engine" &&
	echo Y >"$SIM/port1/pause" || return 1
	for d in $p0 $p1; do
		ethtool -G "$d" tx 1024 rx 1024 tx-push on && ethtool -L "$d" combined 1 &&
		ip link set "$d" mtu 1500 && echo 0 >"/sys/class/net/$d/doorbell_opt" &&
		echo 64 >"/sys/class/net/$d/doorbell_defer_max" &&
		ethtool -C "$d" rx-usecs 16 rx-frames 44 tx-usecs 16 tx-frames 16 &&
		ip link set "$d" up || return 1
	done
	wait_until 5 carrier_up || { ktap_diag "no carrier"; return 1; }
	mac=$(cat "/sys/class/net/$p1/address")
	rx0=$(cxb_stat "$p1" rx_packets)
	res=$(pktgen_run "$p0" 2000 8 "$mac") || return 1
	sleep 0.5
	eq $(($(cxb_stat "$p1" rx_packets) - rx0)) "${res#* }" "peer rx_packets vs sent"
}

teardown()
{
	rmmod pktgen 2>/dev/null
	cxb_del $ID || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

ktap_ok setup setup || ktap_finish
ktap_ok fuzz_sysfs_debugfs_writes fuzz_files
ktap_ok fuzz_ethtool_ops fuzz_ethtool
ktap_ok kernel_log_quiet quiet_log
ktap_ok works_after_fuzz works
ktap_ok teardown_dma_live_zero teardown
ktap_finish
