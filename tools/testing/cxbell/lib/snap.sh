# SPDX-License-Identifier: GPL-2.0
#
# Counter snapshots (part of lib.sh): a snapshot is a file of
# "NAME VALUE" lines under $CXB_SNAP_DIR, one per snapshot name, filled
# from the counter sources (cxb_counters, sim_counters, cx3_counters),
# each under a key prefix of its own. No shell variable is made from a
# counter name.
#
#   snap_new SNAP                   start snapshot SNAP empty
#   snap_add SNAP PREFIX CMD...     add CMD's "NAME VALUE" lines as
#                                   "PREFIXNAME VALUE" (PREFIX may be "")
#   snap_get SNAP KEY               one value (0 if SNAP has no KEY)
#   snap_d KEY [NEW [OLD]]          NEW's KEY minus OLD's (snapshots a and
#                                   b by default)
#   snap_vals SNAP KEY...           the values of KEYs, one line
#
#   e.g. snap_new b; snap_add b d_ cxb_counters "$p0"
#        snap_add b s0_ sim_counters 1 0; (traffic); the same for a;
#        snap_d d_tx_packets; snap_d s0_tx_frames

# (the shell's own PID: the same in its subshells)
CXB_SNAP_DIR=${CXB_SNAP_DIR:-${TMPDIR:-/tmp}/cxb-snap.$$}

snap_new()
{
	mkdir -p "$CXB_SNAP_DIR" && : >"$CXB_SNAP_DIR/$1"
}

snap_add()
{
	_sn=$1 _sp=$2
	shift 2
	"$@" | awk -v p="$_sp" '{ print p $1, $2 }' >>"$CXB_SNAP_DIR/$_sn"
}

snap_get()
{
	awk -v k="$2" '$1 == k { v = $2 } END { print (v == "" ? 0 : v) }' \
		"$CXB_SNAP_DIR/$1"
}

# The values are taken as strings and subtracted by the shell: 64-bit
# exact, whatever the awk.
snap_d()
{
	# shellcheck disable=SC2046 # two numbers
	set -- $(awk -v k="$1" -v n="$CXB_SNAP_DIR/${2:-a}" '
		$1 == k { if (FILENAME == n) a = $2; else b = $2 }
		END { print (a == "" ? 0 : a), (b == "" ? 0 : b) }' \
		"$CXB_SNAP_DIR/${2:-a}" "$CXB_SNAP_DIR/${3:-b}")
	echo $(($1 - $2))
}

snap_vals()
{
	_sn=$1
	shift
	awk -v keys="$*" '
		BEGIN { n = split(keys, k, " ") }
		{ v[$1] = $2 }
		END { for (i = 1; i <= n; i++)
			printf "%s%s", (k[i] in v ? v[k[i]] : 0), (i < n ? " " : "\n") }' \
		"$CXB_SNAP_DIR/$_sn"
}
