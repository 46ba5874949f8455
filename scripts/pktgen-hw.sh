#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pktgen doorbell-batching run on a cxbell interface of a real host (a
# ConnectX-3 port driven by cxbell_mlx4; any cxbell netdev works).
#
#   scripts/pktgen-hw.sh IF DSTMAC [COUNT [BURST...]]
#     IF      the cxbell interface to send on (brought up, one channel)
#     DSTMAC  destination MAC (the peer port; the frames go on the wire)
#     COUNT   packets per run, default 10000000
#     BURST   pktgen bursts to run, default 1 8 32
#
# Prints one line per burst from ethtool -S deltas of IF:
#   burst | pkts | Mpps | doorbells/pkt | blueflame/pkt | xmit_more/pkt
# where doorbells are 4-byte send doorbell writes and blueflame the
# BlueFlame posts: their sum per packet is 1/burst when xmit_more batching
# works (Documentation/mlx4.rst). Needs root, pktgen, ethtool.
here=$(cd "$(dirname "$0")" && pwd)
CXB_LIB=$here/../tools/testing/cxbell/lib
. "$here/../tools/testing/cxbell/lib.sh"

[ $# -ge 2 ] || { sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
IF=$1
DST=$2
COUNT=${3:-10000000}
shift 2
[ $# -gt 0 ] && shift
BURSTS=${*:-1 8 32}

[ "$(ethtool -i "$IF" | sed -n 's/^driver: //p')" = cxbell ] || {
	echo "pktgen-hw: $IF is not a cxbell interface" >&2
	exit 1
}
ethtool -L "$IF" combined 1 >/dev/null 2>&1
ip link set "$IF" up || exit 1
carrier() { [ "$(cat "/sys/class/net/$IF/carrier" 2>/dev/null)" = 1 ]; }
wait_until 10 carrier || { echo "pktgen-hw: no carrier on $IF" >&2; exit 1; }
modprobe pktgen || exit 1

echo "pktgen on $IF -> $DST, $COUNT x 60-byte packets per run"
printf '%6s | %9s | %7s | %13s | %13s | %13s\n' burst pkts Mpps \
	doorbells/pkt blueflame/pkt xmit_more/pkt
rc=0
for burst in $BURSTS; do
	snap_new b && snap_add b "" cxb_counters "$IF"
	res=$(pktgen_run "$IF" "$COUNT" "$burst" "$DST" 60) || { rc=1; continue; }
	snap_new a && snap_add a "" cxb_counters "$IF"
	echo "$burst ${res#* } ${res% *} $(snap_d tx_doorbells)" \
		"$(snap_d tx_blueflame) $(snap_d tx_xmit_more)" |
	awk '{ n = $2 ? $2 : 1
		printf "%6d | %9d | %7.3f | %13.4f | %13.4f | %13.4f\n",
			$1, $2, $3 / 1e6, $4 / n, $5 / n, $6 / n }'
done
rm -rf "$CXB_SNAP_DIR"
exit $rc
