# SPDX-License-Identifier: GPL-2.0
#
# pktgen on kpktgend_0 (part of lib.sh).
#
#   pktgen_run IF COUNT BURST DSTMAC [PKTSIZE]
#                                   send COUNT packets with pktgen on IF,
#                                   wait for the end; prints pktgen's pps
#                                   and packets sent ("pkts-sofar": more
#                                   than COUNT when a queue stop cut a
#                                   burst: pktgen only checks the count
#                                   between bursts); pktgen flags from
#                                   $CXB_PKTGEN_FLAGS (e.g. "UDPCSUM"),
#                                   one more device setting from
#                                   $CXB_PKTGEN_SET (e.g. "vlan_id 5")
#   pktgen_timed IF COUNT BURST DSTMAC [PKTSIZE]
#                                   pktgen_run, printing "PPS SENT SECONDS"
#   pktgen_dev IF COUNT BURST DSTMAC PKTSIZE CLONE DST [FLAG...]
#                                   IF alone on kpktgend_0, set up for a run
#                                   (pktgen_run without start and result)
#   pgset FILE CMD                  write one pktgen command, check it took
#   pktgen_wait DEVFILE             wait (up to 60 s) for the run to end
#   pktgen_rem_all                  take every device off kpktgend_0
#   pktgen_stop                     stop every running pktgen thread (a
#                                   pktgen_run in the background returns)

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
	if [ -n "${CXB_PKTGEN_SET:-}" ]; then
		pgset "$_d" "$CXB_PKTGEN_SET" || return 1
	fi
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
