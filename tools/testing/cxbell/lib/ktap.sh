# SPDX-License-Identifier: GPL-2.0
#
# KTAP output, the kernel log check and the assertions of every test
# (part of lib.sh, which sources it).
#
#   ktap_plan N             print "KTAP version 1" and "1..N", clear dmesg;
#                           arm the cleanup at exit (lib/cleanup.sh)
#   ktap_ok NAME [COND...]  "ok" if COND (a command) succeeds or is absent,
#                           else "not ok"; either way turned into "not ok"
#                           if the kernel log got a bad line since the last
#                           result (the lines are printed as diagnostics)
#   ktap_fail NAME [WHY]    "not ok" (WHY printed as a diagnostic)
#   ktap_skip NAME WHY      "ok N NAME # SKIP WHY"
#   ktap_diag MSG...        "# MSG" (diagnostics precede their result)
#   ktap_finish             emit "not ok" for every planned case not
#                           reported (the test aborted), exit 0 iff all ok
#   ktap_dmesg_bad          the bad kernel log lines since the last call
#                           (CXB_BAD, less CXB_BAD_OK), the log cleared
#   eq A B [WHAT]           A = B, else a diagnostic and 1 (for ktap_ok)
#   le A B [WHAT]           A <= B (integers), likewise
#   wait_until SECONDS CMD...
#                           poll CMD every 0.1 s until it succeeds
#   uptime_s / secs_between T0 T1
#                           seconds since boot; T1 - T0 as %.1f
# Names must not contain spaces.
#
# CXB_BAD and CXB_BAD_OK are also read by vm-run (one line each, in
# single quotes: it takes them with sed).

# A bad kernel log line.
CXB_BAD='WARNING:|BUG:|Oops|Call Trace|general protection|refcount_t|list_add corruption|list_del corruption|RCU stall|rcu: INFO|stall on CPU|detected stalls|hung task|blocked for more than|UBSAN|KASAN|Kernel panic|cxbell_mlx5_fake: .*violation'

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
	cxb_cleanup_arm
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
