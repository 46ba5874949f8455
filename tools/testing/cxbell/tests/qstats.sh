# SPDX-License-Identifier: GPL-2.0
#
# Queue statistics through the netdev netlink family (Linux 6.9+: the
# driver's struct netdev_stat_ops, what "ynl --family netdev --dump
# qstats-get" shows; the static qstats client stands in for ynl in the
# guest). Sim adapter 1, pktgen from port A (port 0) to port B (port 1):
#   queues:   with 2 channels, each port reports 2 rx and 2 tx queues;
#             B's rx queues' rx-packets add up to B's rx_packets delta,
#             A's tx queues' tx-packets to A's tx_packets delta
#   totals:   a port's totals (the driver's base and its queues) equal
#             its ndo_get_stats64 packets and bytes (sysfs statistics)
#   channels: after ethtool -L combined 1 the totals still equal them
#             (the channels gone are in the base), the new queue starts
#             from 0 and counts the next traffic
#   down:     a port down reports no queue; its totals still equal them
# On a kernel without the netdev family (Debian 12's 6.1) every case
# after the setup SKIPs.
#
#   qstats.sh [COUNT]    COUNT defaults to 4096
. /cxbell/lib.sh

COUNT=${1:-4096}
ktap_plan 6
no_ipv6

# qsum IF KEY: KEY summed over the queues IF reports
qsum()
{
	qstats "$1" | awk -v k="$2" '
		{ for (i = 3; i < NF; i += 2) if ($i == k) s += $(i + 1) }
		END { print s + 0 }'
}

# qdev IF KEY: IF's total of KEY
qdev()
{
	qstats -d "$1" | awk -v k="$2" '
		{ for (i = 2; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

# nq IF TYPE: how many TYPE (rx, tx) queues IF reports
nq() { qstats "$1" | grep -c "^$2 "; }

sysst() { cat "/sys/class/net/$1/statistics/$2"; }

setup()
{
	cxb_pktgen_pair || return 1
	for d in $p0 $p1; do
		ethtool -L "$d" combined 2 || return 1
	done
	wait_until 5 carrier_up || { ktap_diag "no carrier"; return 1; }
	qstats "$p1" >/tmp/qstats.out 2>/tmp/qstats.err
	have=$?
	[ $have = 2 ] && ktap_diag "$(cat /tmp/qstats.err)"
	[ $have != 1 ] || { ktap_diag "$(cat /tmp/qstats.err)"; return 1; }
}

# traffic: pktgen COUNT frames A -> B, settled; sets sent
traffic()
{
	_r0=$(sysst "$p1" rx_packets)
	res=$(pktgen_run "$p0" "$COUNT" 16 "$mac" 60) || return 1
	sent=${res#* }
	got() { [ $(($(sysst "$p1" rx_packets) - _r0)) -ge "$sent" ]; }
	wait_until 10 got
	sleep 0.3
}

# totals IF: IF's qstats totals equal its statistics
totals()
{
	_rc=0
	for k in rx_packets rx_bytes tx_packets tx_bytes; do
		eq "$(qdev "$1" "$(echo "$k" | tr _ -)")" "$(sysst "$1" "$k")" \
			"$1 qstats total vs statistics/$k" || _rc=1
	done
	return $_rc
}

queues()
{
	rc=0
	for d in $p0 $p1; do
		eq "$(nq "$d" rx)" 2 "$d rx queues" || rc=1
		eq "$(nq "$d" tx)" 2 "$d tx queues" || rc=1
	done
	brx0=$(qsum "$p1" rx-packets) atx0=$(qsum "$p0" tx-packets)
	r0=$(sysst "$p1" rx_packets) t0=$(sysst "$p0" tx_packets)
	traffic || return 1
	brx=$(($(qsum "$p1" rx-packets) - brx0))
	atx=$(($(qsum "$p0" tx-packets) - atx0))
	ktap_diag "sent $sent: B queues rx-packets +$brx, A queues tx-packets +$atx"
	qstats "$p1" | sed 's/^/# B: /'
	eq "$brx" $(($(sysst "$p1" rx_packets) - r0)) "B queues rx-packets vs rx_packets" || rc=1
	eq "$atx" $(($(sysst "$p0" tx_packets) - t0)) "A queues tx-packets vs tx_packets" || rc=1
	eq "$brx" "$sent" "B queues rx-packets vs sent" || rc=1
	return $rc
}

both_totals() { totals "$p0" && totals "$p1"; }

channels()
{
	rc=0
	for d in $p0 $p1; do
		ethtool -L "$d" combined 1 || return 1
	done
	wait_until 5 carrier_up || { ktap_diag "no carrier"; return 1; }
	both_totals || rc=1
	eq "$(nq "$p1" rx)" 1 "B rx queues after -L 1" || rc=1
	eq "$(qsum "$p1" rx-packets)" 0 "B rx queue 0 rx-packets after -L 1" || rc=1
	traffic || return 1
	eq "$(qsum "$p1" rx-packets)" "$sent" "B rx queue 0 rx-packets vs sent" || rc=1
	both_totals || rc=1
	return $rc
}

down()
{
	rc=0
	ip link set "$p1" down || return 1
	eq "$(nq "$p1" rx)" 0 "B rx queues while down" || rc=1
	eq "$(nq "$p1" tx)" 0 "B tx queues while down" || rc=1
	totals "$p1" || rc=1
	ip link set "$p1" up || rc=1
	wait_until 5 carrier_up || { ktap_diag "no carrier"; rc=1; }
	totals "$p1" || rc=1
	return $rc
}

ktap_ok setup_adapter setup || ktap_finish
for c in queue_counts_add_up:queues totals_match_stats64:both_totals \
	 totals_across_channel_change:channels down_no_queues_totals_kept:down; do
	if [ "$have" = 2 ]; then
		ktap_skip "${c%%:*}" "no netdev netlink family (kernel before 6.3; qstats-get is 6.9+)"
	else
		ktap_ok "${c%%:*}" "${c#*:}"
	fi
done
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
