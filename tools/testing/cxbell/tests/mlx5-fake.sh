# SPDX-License-Identifier: GPL-2.0
#
# cxbell_mlx5's bring-up, reconfiguration and teardown against a
# command-level model of mlx5_core (cxbell_mlx5_fake.ko: the unchanged
# backend sources linked with tools/testing/cxbell/mlx5fake/fake_fw.c),
# the cxbell core on top: every command the backend issues is checked as
# the firmware would refuse it (objects named must exist, nothing is
# destroyed while named, sizes, alignment), and every object it creates
# is counted. No datapath: the model executes no WQE. Every case fails on
# a violation (lib/ktap.sh) or a bad kernel log line.
. /cxbell/lib.sh

ktap_plan 15

F=/sys/kernel/debug/cxbell_mlx5_fake
DRV=/sys/bus/auxiliary/drivers/cxbell_mlx5_fake.eth

if ! modinfo cxbell_mlx5_fake >/dev/null 2>&1; then
	while [ "$ktap_n" -lt "$ktap_planned" ]; do
		ktap_skip "mlx5_fake_$((ktap_n + 1))" "cxbell_mlx5_fake.ko not built"
	done
	ktap_finish
fi

no_ipv6

# fn_stats FN: function FN's lines of the stats file
fn_stats() { awk -v fn="fn $1" '$0 == fn { in_fn = 1; next } /^fn / { in_fn = 0 } in_fn' $F/stats; }
# st FN KEY: a value of function FN's stats
st() { fn_stats "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
# the RQT lines of function FN: "rqt N size S: entries"; its rules
rqts() { fn_stats "$1" | awk '$1 == "rqt"'; }
rules() { fn_stats "$1" | awk '$1 == "rule"'; }
# function 0's RSS RQT entries, one a line; its direct RQT's one entry
rss_rqns() { rqts 0 | awk '$4 == "128:"' | tr ' ' '\n' | tail -n 128; }
direct_rqn() { rqts 0 | awk '$4 == "1:" { print $5 }'; }
netdev() { ls "/sys/bus/auxiliary/devices/mlx5_core.eth.$1/"cxbell_mlx5.port.*/net/ 2>/dev/null | head -n 1; }
mc_count() { ip maddr show dev "$1" | grep -c '^[[:space:]]*link'; }

# live objects of function FN: "pd td mkey uar tis cq sq rq rqt tir ft rule"
live()
{
	for _k in pd td mkey uar tis cq sq rq rqt tir flow_table flow_rule; do
		printf '%s ' "$(st "$1" "live_$_k")"
	done
}

# What probe leaves before any open: PD, TD, mkey, UAR, TIS, the drop
# CQ and RQ, two RQTs, seven TIRs.
IDLE="1 1 1 1 1 1 0 1 2 7 0 0 "

load()
{
	modprobe cxbell && modprobe cxbell_mlx5_fake && [ -d $F ] && [ -d $DRV ]
}

probe_idle()
{
	echo "" > $F/new || return 1
	wait_until 5 [ -n "$(netdev 0)" ] || { ktap_diag "no netdev"; return 1; }
	n=$(netdev 0)
	eq "$(ethtool -i "$n" | sed -n 's/^driver: //p')" cxbell driver &&
	eq "$(ethtool -i "$n" | sed -n 's/^firmware-version: //p')" 16.35.2000 fw &&
	eq "$(cat /sys/class/net/"$n"/address)" 02:cb:55:00:00:00 mac &&
	eq "$(ip -d link show "$n" | sed -n 's/.*maxmtu \([0-9]*\).*/\1/p')" 9956 maxmtu &&
	eq "$(ethtool -l "$n" | awk '/^Combined/ { print $2; exit }')" 2 max_channels &&
	eq "$(live 0)" "$IDLE" "live objects" &&
	eq "$(st 0 q_counters)" 1 "queue counter sets" &&
	eq "$(st 0 admin)" 0 "admin state untouched" || return 1
	# no BlueFlame: the flag is refused
	! ethtool --set-priv-flags "$n" blueflame on 2>/dev/null ||
		{ ktap_diag "blueflame taken"; return 1; }
}

# Up with both channels: per channel three CQs, two SQs (the XDP one
# too) and an RQ; the RSS RQT
# over exactly the live RQs, the direct one on channel 0's; the L2 table
# with broadcast, the own address and the multicast list, the traffic
# type table with seven rules; PAOS up, PMTU and vport MTU 1500 + 22.
up_two_channels()
{
	ethtool -L "$n" combined 2 && ip link set "$n" up || return 1
	nmc=$(mc_count "$n")
	eq "$(live 0)" "1 1 1 1 1 7 4 3 2 7 2 $((7 + 1 + 1 + nmc)) " "live objects" &&
	eq "$(st 0 admin)" 1 admin && eq "$(st 0 pmtu)" 1522 pmtu &&
	eq "$(st 0 vport_mtu)" 1522 vport_mtu || return 1
	# RSS RQT: 128 entries over the two channel RQs (not the drop RQ 800)
	eq "$(rss_rqns | sort -u | grep -vc '^800$')" 2 "distinct RSS RQs" &&
	eq "$(rss_rqns | grep -c '^800$')" 0 "RSS entries on the drop RQ" &&
	eq "$(direct_rqn)" 801 "direct RQT on channel 0's RQ" &&
	eq "$(rules 0 | grep -c 'level 1 .* -> tir')" 7 "traffic type rules" &&
	eq "$(rules 0 | grep -c 'dmac ff:ff:ff:ff:ff:ff/ff:ff:ff:ff:ff:ff .*-> table')" 1 broadcast &&
	eq "$(rules 0 | grep -c "dmac 02:cb:55:00:00:00/ff:ff:ff:ff:ff:ff .*-> table")" 1 "own address" &&
	eq "$(st 0 mpfs)" 1 "MPFS entries" &&
	eq "$(st 0 violations)" 0 violations
}

# Channel changes while up: the RQTs follow the new RQs (none names a
# destroyed one: the model refuses that), counts exact.
reconfig_channels()
{
	m0=$(st 0 modify_rqt)
	ethtool -L "$n" combined 1 || return 1
	eq "$(live 0)" "1 1 1 1 1 4 2 2 2 7 2 $(rules 0 | wc -l) " "one channel" &&
	eq "$(rss_rqns | sort -u | wc -l)" 1 "RSS on one RQ" || return 1
	ethtool -L "$n" combined 2 || return 1
	eq "$(live 0)" "1 1 1 1 1 7 4 3 2 7 2 $(rules 0 | wc -l) " "two channels again" &&
	le 4 $(($(st 0 modify_rqt) - m0)) "MODIFY_RQT commands" || return 1
	# the largest rings (page lists of 128 and more entries), VLAN
	# stripping off and on (receive queues again, vsd), back
	g=$(ethtool -g "$n" | awk '/^RX:/ { print $2; exit }')
	ethtool -G "$n" rx "$g" tx "$g" && ethtool -K "$n" rxvlan off &&
		ethtool -K "$n" rxvlan on && ethtool -G "$n" rx 1024 tx 1024 ||
		{ ktap_diag "ethtool -G/-K"; return 1; }
	eq "$(live 0)" "1 1 1 1 1 7 4 3 2 7 2 $(rules 0 | wc -l) " "after ring and offload changes" &&
	eq "$(st 0 violations)" 0 violations
}

# ethtool -X: the indirection table to the RQT, a new key to the six
# hashing TIRs (MODIFY_TIR), nothing else.
rss_table_and_key()
{
	t0=$(st 0 modify_tir)
	ethtool -X "$n" weight 1 0 || { ktap_diag "ethtool -X weight 1 0"; return 1; }
	eq "$(rss_rqns | sort -u | wc -l)" 1 "weight 1 0: one RQ" || return 1
	eq "$(rss_rqns | sort -u)" "$(direct_rqn)" "channel 0's RQ" || return 1
	ethtool -X "$n" equal 2 || { ktap_diag "ethtool -X equal 2"; return 1; }
	ethtool -X "$n" hkey $(printf '%02x:' $(seq 1 39) | sed 's/$/28/') ||
		{ ktap_diag "ethtool -X hkey"; return 1; }
	eq $(($(st 0 modify_tir) - t0)) 6 "MODIFY_TIR per hashing TIR"
}

# The receive filter: a multicast address, promiscuous and all-multicast
# modes as rules of the L2 table; leaving them restores the exact set.
rx_filter()
{
	base=$(rules 0 | wc -l)
	ip maddr add 01:00:5e:01:02:03 dev "$n" || return 1
	eq "$(rules 0 | grep -c 'dmac 01:00:5e:01:02:03/ff:ff:ff:ff:ff:ff')" 1 "multicast rule" || return 1
	ip link set "$n" promisc on && ip link set "$n" allmulticast on || return 1
	eq "$(rules 0 | grep -c 'level 0 dmac 00:00:00:00:00:00/00:00:00:00:00:00')" 1 "promiscuous rule" &&
	eq "$(rules 0 | grep -c 'level 0 dmac 01:00:00:00:00:00/01:00:00:00:00:00')" 1 "all-multicast rule" || return 1
	ip link set "$n" promisc off && ip link set "$n" allmulticast off &&
		ip maddr del 01:00:5e:01:02:03 dev "$n" || return 1
	eq "$(rules 0 | wc -l)" "$base" "rules after" && eq "$(st 0 violations)" 0 violations
}

# MTU to PMTU and the vport (+22), pause to PFCC, interrupt moderation
# within the CQ's 12-bit period.
mtu_and_pause()
{
	ethtool -C "$n" rx-usecs 4095 || return 1
	! ethtool -C "$n" rx-usecs 4096 2>/dev/null || { ktap_diag "rx-usecs 4096 taken"; return 1; }
	ip link set "$n" mtu 9000 || return 1
	eq "$(st 0 pmtu)" 9022 pmtu && eq "$(st 0 vport_mtu)" 9022 vport_mtu || return 1
	! ip link set "$n" mtu 9957 2>/dev/null || { ktap_diag "mtu 9957 taken"; return 1; }
	ip link set "$n" mtu 1500 && eq "$(st 0 pmtu)" 1522 "pmtu back" || return 1
	# set while down: programmed at open
	ip link set "$n" down && ip link set "$n" mtu 4000 && ip link set "$n" up &&
		eq "$(st 0 pmtu)" 4022 "pmtu set while down" &&
		ip link set "$n" mtu 1500 || return 1
	ethtool -A "$n" rx on tx on || return 1
	eq "$(st 0 pptx)$(st 0 pprx)" 11 "pause on" || return 1
	ethtool -A "$n" rx off tx off && eq "$(st 0 pptx)$(st 0 pprx)" 00 "pause off"
}

# The port's own counters: out_of_buffer of the queue counter set
# (summed across its 32-bit wrap) and PPCNT's too-long frames are
# rx_missed_errors (no buffer, too long), its FCS errors rx_crc_errors;
# they survive down and up.
stat() { cat "/sys/class/net/$n/statistics/$1"; }
port_counters()
{
	eq "$(stat rx_missed_errors) $(stat rx_crc_errors)" "0 0" "before" || return 1
	echo "0 100 7 3" > $F/counters || return 1
	stat rx_missed_errors >/dev/null	# the read asks for newer counters
	wait_until 3 [ "$(stat rx_missed_errors)" = 103 ] || { ktap_diag "rx_missed_errors $(stat rx_missed_errors)"; return 1; }
	eq "$(stat rx_crc_errors)" 7 rx_crc_errors || return 1
	echo "0 4294967290 9 3" > $F/counters && stat rx_missed_errors >/dev/null
	wait_until 3 [ "$(stat rx_missed_errors)" = 4294967293 ] || { ktap_diag "rx_missed_errors $(stat rx_missed_errors)"; return 1; }
	echo "0 10 9 4" > $F/counters && stat rx_missed_errors >/dev/null
	wait_until 3 [ "$(stat rx_missed_errors)" = 4294967310 ] || { ktap_diag "wrap: rx_missed_errors $(stat rx_missed_errors)"; return 1; }
	ip link set "$n" down && ip link set "$n" up || return 1
	eq "$(stat rx_missed_errors) $(stat rx_crc_errors)" "4294967310 9" "after down and up"
}

# A port change event re-reads the vport state: carrier follows.
carrier_follows_events()
{
	eq "$(cat /sys/class/net/"$n"/carrier)" 0 "carrier before" || return 1
	echo "0 up" > $F/link || return 1
	wait_until 3 [ "$(cat /sys/class/net/"$n"/carrier)" = 1 ] || { ktap_diag "no carrier"; return 1; }
	# speed and connector from PTYS
	eq "$(ethtool "$n" | sed -n 's/^[[:space:]]*Speed: //p')" 100000Mb/s speed &&
	eq "$(ethtool "$n" | sed -n 's/^[[:space:]]*Port: //p')" "Direct Attach Copper" port || return 1
	echo "0 down" > $F/link || return 1
	wait_until 3 [ "$(cat /sys/class/net/"$n"/carrier)" = 0 ] || { ktap_diag "carrier stays"; return 1; }
	eq "$(st 0 events)" 2 events &&
	eq "$(ethtool "$n" | sed -n 's/^[[:space:]]*Speed: //p')" "Unknown!" "speed down"
}

# Down: the datapath's objects and the steering go, admin down, RQTs
# back on the drop RQ.
down_to_idle()
{
	ip link set "$n" down || return 1
	eq "$(live 0)" "$IDLE" "live objects" && eq "$(st 0 admin)" 2 "admin down" &&
	eq "$(st 0 mpfs)" 0 "MPFS entries" &&
	eq "$(rqts 0 | tr ' ' '\n' | grep -c '^[0-9a-f]*$' )" "$(rqts 0 | tr ' ' '\n' | grep -c '^800$')" "RQTs on the drop RQ"
}

# Unbind with the port up: every object destroyed, in an order the model
# accepts; bind again: the port is back.
unbind_bind_up()
{
	ip link set "$n" up || return 1
	echo mlx5_core.eth.0 > $DRV/unbind || return 1
	eq "$(live 0)" "0 0 0 0 0 0 0 0 0 0 0 0 " "live after unbind" &&
	eq "$(st 0 q_counters)" 0 "queue counter sets after unbind" &&
	eq "$(netdev 0)" "" "netdev after unbind" || return 1
	echo mlx5_core.eth.0 > $DRV/bind || return 1
	wait_until 5 [ -n "$(netdev 0)" ] || return 1
	n=$(netdev 0)
	eq "$(live 0)" "$IDLE" "live after bind" && eq "$(st 0 violations)" 0 violations
}

# The contrib bind script: an unbound function to the driver; bad names;
# a refused function.
bind_script()
{
	echo mlx5_core.eth.0 > $DRV/unbind || return 1
	CXBELL_MLX5_DRIVER=cxbell_mlx5_fake.eth /cxbell/contrib/sbin/cxbell-mlx5-bind mlx5_core.eth.0 || return 1
	wait_until 5 [ -n "$(netdev 0)" ] || return 1
	n=$(netdev 0)
	! CXBELL_MLX5_DRIVER=cxbell_mlx5_fake.eth /cxbell/contrib/sbin/cxbell-mlx5-bind mlx5_core.eth.7 2>/dev/null &&
	! CXBELL_MLX5_DRIVER=cxbell_mlx5_fake.eth /cxbell/contrib/sbin/cxbell-mlx5-bind eth0 2>/dev/null || return 1
	# a function the driver refuses: remembered, then left alone when
	# udev runs the script (ACTION set), tried again by hand
	echo vf > $F/new || return 1
	! CXBELL_MLX5_DRIVER=cxbell_mlx5_fake.eth /cxbell/contrib/sbin/cxbell-mlx5-bind mlx5_core.eth.1 2>/dev/null &&
	[ -e /run/cxbell-mlx5-bind/mlx5_core.eth.1 ] &&
	ACTION=bind CXBELL_MLX5_DRIVER=cxbell_mlx5_fake.eth /cxbell/contrib/sbin/cxbell-mlx5-bind mlx5_core.eth.1 &&
	! CXBELL_MLX5_DRIVER=cxbell_mlx5_fake.eth /cxbell/contrib/sbin/cxbell-mlx5-bind mlx5_core.eth.1 2>/dev/null || return 1
	rm -rf /run/cxbell-mlx5-bind
	echo 1 > $F/del
}

# probe refuses what the core cannot drive, with one log line each, and
# leaves nothing behind; an L2 minimum inline function with real time
# stamps only is taken, its queues carry the mode and the format (the
# model checks min_wqe_inline_mode and ts_format).
refusals()
{
	for o in vf ib bf_log=10 inline=ip; do
		dmesg -c >/dev/null
		echo "$o" > $F/new || return 1
		eq "$(dmesg | grep -c 'cxbell_mlx5: .*not using this function')" 1 "$o: refusal line" &&
		eq "$(netdev 1)" "" "$o: no netdev" &&
		eq "$(live 1)" "0 0 0 0 0 0 0 0 0 0 0 0 " "$o: nothing left" || return 1
		echo 1 > $F/del || return 1
	done
	echo "inline=l2 mpwqe=0 vectors=1 ts=rt ptys=ext" > $F/new || return 1
	wait_until 5 [ -n "$(netdev 1)" ] || return 1
	m=$(netdev 1)
	eq "$(ethtool -l "$m" | awk '/^Combined/ { print $2; exit }')" 1 "one vector, one channel" &&
	! ethtool --set-priv-flags "$m" tx_mpwqe on 2>/dev/null &&
	ip link set "$m" up && eq "$(st 1 live_sq)" 2 "SQs with L2 inline, real time" &&
	echo "1 up" > $F/link && wait_until 3 [ "$(cat /sys/class/net/"$m"/carrier)" = 1 ] &&
	eq "$(ethtool "$m" | sed -n 's/^[[:space:]]*Speed: //p')" 200000Mb/s "extended speed" &&
	echo "1 down" > $F/link && ip link set "$m" down && echo 1 > $F/del
}

# Remove the function while up, then the module with a function up.
remove_while_up()
{
	ip link set "$n" up && echo 0 > $F/del || return 1
	eq "$(netdev 0)" "" "netdev after remove" || return 1
	echo "" > $F/new && wait_until 5 [ -n "$(netdev 0)" ] || return 1
	ip link set "$(netdev 0)" up && rmmod cxbell_mlx5_fake || return 1
	! grep -q . /proc/modules 2>/dev/null || ! grep -q '^cxbell_mlx5_fake ' /proc/modules
}

final_unload() { rmmod cxbell; }

ktap_ok load_core_and_model load
ktap_ok probe_offers_the_port probe_idle
ktap_ok up_two_channels up_two_channels
ktap_ok reconfigure_channels_while_up reconfig_channels
ktap_ok rss_table_and_key rss_table_and_key
ktap_ok rx_filter_rules rx_filter
ktap_ok mtu_pause_coalesce mtu_and_pause
ktap_ok port_counters port_counters
ktap_ok carrier_follows_port_events carrier_follows_events
ktap_ok down_back_to_probe_state down_to_idle
ktap_ok unbind_and_bind_while_up unbind_bind_up
ktap_ok contrib_bind_script bind_script
ktap_ok refusals_and_l2_inline refusals
ktap_ok remove_function_and_module_while_up remove_while_up
ktap_ok final_unload final_unload
ktap_finish
