# SPDX-License-Identifier: GPL-2.0
# cxbell-test: files forwarding-files
#
# The kernel's own forwarding selftests
# (tools/testing/selftests/net/forwarding/ of Debian's linux-source for
# the guest's kernel, unchanged; run-tests passes them in through
# forwarding-files) on cxbell ports: two 2-port sim adapters, whose ports
# 0 and 1 are cabled to each other, are p1<->p2 (adapter 1) and p3<->p4
# (adapter 2) in the selftests' forwarding.config (NETIF_CREATE=no: no
# veth pairs). Each script runs with bash under its own timeout; each of
# its "TEST: NAME [ OK ]/[FAIL]/[SKIP]" lines is one KTAP case,
# fwd_SCRIPT_NAME (the name in lower case, runs of other characters as
# "_", a repeated name numbered _2, _3...), the tab-indented message
# after a [FAIL] (and the INFO lines before it) as its diagnostics:
#   router.sh             IPv4/IPv6 routing between two VRFs (smcroute for
#                         the multicast cases)
#   bridge_vlan_aware.sh  a VLAN-filtering bridge over p2 and p3
#   tc_flower.sh          flower matches on p2's ingress (p1, p2 only)
#   local_termination.sh  (p1, p2) needs msend/mreceive (patched mtools)
#                         which Debian does not package: the script skips
#                         itself, one SKIP case fwd_local_termination
#   ethtool.sh            (p1, p2) forced speeds and autonegotiation
#                         between the two ends of the sim's cable (the
#                         ConnectX-3 Pro modes of 1000, 10000, 40000 and
#                         56000 Mb/s, Documentation/sim.rst, Link): one
#                         case for each common speed forced on both
#                         ends, each speed forced on one end against
#                         autonegotiation on the other, each speed
#                         advertised on one end against a subset on the
#                         other, and one for different forced speeds,
#                         the fastest common speed chosen, different
#                         advertised speeds
# A script that prints no TEST line is one case fwd_SCRIPT: SKIP if it
# exited with the kselftest skip code 4 (its "SKIP:" line as the reason),
# else a failure with the end of its output; a script that timed out, or
# exited non-zero with no [FAIL] line, adds fwd_SCRIPT_exit.
# The number of cases is known only at the end: the plan comes last.
# Between scripts, whatever a killed script left (VRFs, bridges, clsact
# qdiscs, addresses, the VRF rule order, smcrouted) is removed.
. /cxbell/lib.sh

FWD_TAR=/cxbell-run/forwarding.tar
FWD=/tmp/forwarding
# script and its timeout (seconds; TCG)
SCRIPTS="router:150 bridge_vlan_aware:240 tc_flower:300 local_termination:60 ethtool:300"

echo "KTAP version 1"
ktap_n=0
dmesg -c >/dev/null 2>&1

# fwd_case RESULT NAME [DIRECTIVE]: one KTAP line (RESULT ok/not ok)
fwd_case()
{
	ktap_n=$((ktap_n + 1))
	echo "$1 $ktap_n $2${3:+ # $3}"
}

fwd_end()
{
	echo "1..$ktap_n"
	[ "$ktap_failed" = 0 ]
	exit $?
}

# The tools the selftests' lib.sh and these scripts call (iproute2's,
# not busybox's applets).
fwd_tools()
{
	_miss=
	for _c in bash tc jq mausezahn smcrouted smcroutectl ping pkill comm; do
		command -v "$_c" >/dev/null 2>&1 || _miss="$_miss $_c"
	done
	tc -V 2>&1 | grep -q iproute2 || _miss="$_miss tc(iproute2)"
	date +%N | grep -q '^[0-9]' || _miss="$_miss date(%N)"
	[ -r /usr/include/linux/ethtool.h ] || _miss="$_miss linux/ethtool.h"
	[ -z "$_miss" ] || { echo "$_miss"; return 1; }
}

if [ ! -r "$FWD_TAR" ]; then
	fwd_case ok fwd_setup "SKIP no $FWD_TAR (forwarding-files: linux-source)"
	fwd_end
fi
if ! _m=$(fwd_tools); then
	fwd_case ok fwd_setup "SKIP not in the guest:$_m (scripts/install-deps.sh test)"
	fwd_end
fi

fwd_setup()
{
	mkdir -p "$FWD" && tar -xf "$FWD_TAR" -C /tmp || return 1
	# bash's process substitution (ethtool_lib.sh's common_speeds_get
	# reads "<(...)") needs /dev/fd, which the initramfs lacks
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd || return 1
	# ip vrf exec attaches its program to a cgroup v2
	if ! grep -q ' cgroup2 ' /proc/mounts; then
		mkdir -p /sys/fs/cgroup &&
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || return 1
	fi
	# (an earlier test of the boot may have turned IPv6 off)
	cxb_sysctl net.ipv6.conf.all.disable_ipv6 0
	cxb_sysctl net.ipv6.conf.default.disable_ipv6 0
	cxb_load || return 1
	cxb_new 1 2 && cxb_new 2 2 || return 1
	P1=$(cxb_netdev 1 0) && P2=$(cxb_netdev 1 1) &&
	P3=$(cxb_netdev 2 0) && P4=$(cxb_netdev 2 1) || return 1
	cat >"$FWD/forwarding.config" <<-EOF
	declare -A NETIFS
	NETIFS[p1]=$P1
	NETIFS[p2]=$P2
	NETIFS[p3]=$P3
	NETIFS[p4]=$P4
	NETIF_CREATE=no
	PING6="ping -6"
	WAIT_TIME=2
	EOF
}

# Remove what a script that was killed may have left.
fwd_tidy()
{
	for _d in $(ip -j link show | jq -r '.[] | .ifname' 2>/dev/null); do
		case $(ip -j -d link show dev "$_d" | jq -r '.[0].linkinfo.info_kind // ""') in
		vrf|bridge|vlan|macvlan) ip link del dev "$_d" 2>/dev/null ;;
		esac
	done
	for _d in $P1 $P2 $P3 $P4; do
		ip link set dev "$_d" nomaster 2>/dev/null
		ip link set dev "$_d" down
		ip addr flush dev "$_d"
		tc qdisc del dev "$_d" clsact 2>/dev/null
	done
	for _f in -4 -6; do
		if ! ip "$_f" rule show pref 0 | grep -q .; then
			ip "$_f" rule add pref 0 table local
		fi
		ip "$_f" rule del pref 32765 table local 2>/dev/null
	done
	for _p in $(pidof smcrouted); do
		kill "$_p"
	done
	return 0
}

# fwd_run SCRIPT TIMEOUT [TODO-REASON]
fwd_run()
{
	_s=$1
	_log=/tmp/fwd-$_s.log
	_t0=$(uptime_s)
	(cd "$FWD" && exec timeout -s TERM -k 10 "$2" bash "./$_s.sh") >"$_log" 2>&1
	_rc=$?
	ktap_diag "$_s.sh: exit $_rc, $(secs_between "$_t0" "$(uptime_s)") s"
	awk -v pfx="fwd_$_s" -v n0="$ktap_n" -v todo="${3:-}" \
	    -v nf=/tmp/fwd-n -v ff=/tmp/fwd-f '
		function flush() {
			if (pend == "")
				return
			n++
			if (pst == "FAIL") {
				printf "%s", diag
				if (todo != "")
					print "not ok " n " " pend " # TODO " todo
				else {
					print "not ok " n " " pend
					nfail++
				}
			} else if (pst == "SKIP")
				print "ok " n " " pend " # SKIP"
			else
				print "ok " n " " pend
			pend = ""
			diag = ""
		}
		BEGIN { n = n0 }
		/^TEST: / {
			flush()
			st = $0
			sub(/.*\[/, "", st)
			sub(/\].*/, "", st)
			gsub(/ /, "", st)
			name = $0
			sub(/^TEST: /, "", name)
			sub(/ *\[[^]]*\] *$/, "", name)
			name = tolower(name)
			gsub(/[^a-z0-9]+/, "_", name)
			gsub(/^_+|_+$/, "", name)
			name = pfx "_" name
			if (seen[name]++)
				name = name "_" seen[name]
			pend = name
			pst = st
			ntest++
			if (st == "FAIL")
				nfailed++
			next
		}
		/^INFO: / && pend == "" { diag = diag "# " $0 "\n"; next }
		/^\t/ && pend != "" { diag = diag "# " substr($0, 2) "\n"; next }
		/^INFO: / { flush(); diag = "# " $0 "\n"; next }
		END {
			flush()
			print n > nf
			print ntest + 0, nfailed + 0, nfail + 0 > ff
		}' "$_log"
	read -r ktap_n </tmp/fwd-n
	read -r _ntest _nfailed _nfail </tmp/fwd-f
	ktap_failed=$((ktap_failed + _nfail))
	if [ "$_ntest" = 0 ]; then
		if [ "$_rc" = 4 ]; then
			fwd_case ok "fwd_$_s" "SKIP $(grep -m1 '^SKIP: ' "$_log" | cut -c7-)"
		else
			tail -n 15 "$_log" | sed 's/^/# /'
			ktap_failed=$((ktap_failed + 1))
			fwd_case "not ok" "fwd_$_s"
		fi
	elif [ "$_rc" -ge 124 ] || { [ "$_rc" != 0 ] && [ "$_nfailed" = 0 ]; }; then
		ktap_diag "$_s.sh exited $_rc (124 or more: killed at its timeout)"
		tail -n 5 "$_log" | sed 's/^/# /'
		ktap_failed=$((ktap_failed + 1))
		fwd_case "not ok" "fwd_${_s}_exit"
	fi
	fwd_tidy >/dev/null 2>&1
}

if ! fwd_setup; then
	ktap_failed=$((ktap_failed + 1))
	fwd_case "not ok" fwd_setup
	fwd_end
fi
ktap_diag "p1 $P1 p2 $P2 p3 $P3 p4 $P4"
for _e in $SCRIPTS; do
	fwd_run "${_e%%:*}" "${_e#*:}"
done
_bad=$(ktap_dmesg_bad)
if [ -n "$_bad" ]; then
	printf '%s\n' "$_bad" | sed 's/^/# dmesg: /'
	ktap_failed=$((ktap_failed + 1))
	fwd_case "not ok" fwd_kernel_log
fi
cxb_del 2
cxb_del 1
fwd_end
