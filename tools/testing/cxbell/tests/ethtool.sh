# SPDX-License-Identifier: GPL-2.0
#
# ethtool interface of cxbell (see the interface spec):
#   -i: driver cxbell, bus-info = the auxiliary device name, no firmware
#   -g/-G: tx/rx rings, powers of two 64..8192, default 1024; other
#          sizes rounded up to a power of two, at least 64, as mlx4_en
#          (100 -> 128, 32 -> 64, 1 -> 64, 65 -> 128, 5000 -> 8192);
#          16384 and 8193 rejected with an error message
#   -l/-L: combined channels 1..max, default 1; 0 and max+1 rejected
#   -S: every counter name of the spec, global and per ring
#   -T: software transmit and receive timestamps, no hardware clock
#   link settings: with carrier the sim's speed (debugfs portP/speed,
#          default 10000), full duplex, direct-attach copper, supported
#          and advertised link modes the speed's CR member (10000baseCR,
#          40000baseCR4) and FIBRE, as mlx4_en reports a cable; a new
#          speed is reported; 0 and 400001 refused (EINVAL); without
#          carrier speed and duplex unknown
. /cxbell/lib.sh

ktap_plan 14
no_ipv6

STATS="tx_packets tx_bytes tx_xmit_more tx_doorbells tx_doorbell_on_stop
tx_queue_stopped tx_wake_queue tx_dropped tx_cqes rx_packets rx_bytes
rx_dropped rx_cqes napi_polls irqs"
TXQ_STATS="packets bytes xmit_more doorbells doorbell_on_stop queue_stopped
wake_queue dropped cqes"
RXQ_STATS="packets bytes dropped cqes"

setup()
{
	cxb_load && cxb_new 1 2 || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || return 1
	ip link set "$p0" up && ip link set "$p1" up
}

# ethtool -T: what ptp4l -S asks for (software-transmit among them)
ts_info()
{
	_t=$(ethtool -T "$p0") || return 1
	_rc=0
	for _c in software-transmit software-receive software-system-clock; do
		echo "$_t" | grep -q "^[[:space:]]*$_c" || { ktap_diag "no $_c"; _rc=1; }
	done
	echo "$_t" | grep -q '^PTP Hardware Clock: none' ||
		{ ktap_diag "$(echo "$_t" | grep 'PTP Hardware Clock')"; _rc=1; }
	return $_rc
}

# link FIELD: the value of "FIELD:" in ethtool's output for $p0
link() { ethtool "$p0" | sed -n "s/^[[:space:]]*$1:[[:space:]]*//p"; }
has_carrier() { [ "$(cat "/sys/class/net/$1/carrier")" = 1 ]; }

link_settings()
{
	_spd=$CXB_DBG/cxbell_sim1/port0/speed
	wait_until 5 has_carrier "$p0" || { ktap_diag "no carrier on $p0"; return 1; }
	eq "$(link Speed)" 10000Mb/s "speed" && eq "$(link Duplex)" Full "duplex" &&
		eq "$(link Port)" "Direct Attach Copper" "port" &&
		eq "$(link 'Supported ports')" "[ FIBRE ]" "supported ports" &&
		eq "$(link 'Supported link modes')" "10000baseCR/Full" "supported" &&
		eq "$(link 'Advertised link modes')" "10000baseCR/Full" "advertised" ||
		return 1
	echo 40000 >"$_spd" || return 1
	eq "$(link Speed)" 40000Mb/s "speed after 40000" &&
		eq "$(link 'Supported link modes')" "40000baseCR4/Full" "supported at 40000" ||
		return 1
	for _v in 0 400001; do
		if echo "$_v" >"$_spd" 2>/dev/null; then
			ktap_diag "speed $_v accepted"; return 1
		fi
	done
	eq "$(cat "$_spd")" 40000 "speed after the refused writes" || return 1
	ip link set "$p1" down || return 1
	wait_until 5 eval '! has_carrier "$p0"' || return 1
	eq "$(link Speed)" "Unknown!" "speed without carrier" &&
		eq "$(link Duplex)" "Unknown! (255)" "duplex without carrier" || return 1
	echo 10000 >"$_spd" && ip link set "$p1" up
}

# ring VALUE of "Current hardware settings" (cur) or "Pre-set maximums" (max)
ring()
{
	ethtool -g "$p0" | awk -v which="$1" -v key="$2:" '
		/^Pre-set maximums/ { s = "max" } /^Current hardware/ { s = "cur" }
		s == which && $1 == key { print $2; exit }'
}

chan()
{
	ethtool -l "$p0" | awk -v which="$1" '
		/^Pre-set maximums/ { s = "max" } /^Current hardware/ { s = "cur" }
		s == which && $1 == "Combined:" { print $2; exit }'
}

drvinfo()
{
	out=$(ethtool -i "$p0") || return 1
	eq "$(echo "$out" | sed -n 's/^driver: //p')" cxbell "driver" || return 1
	bus=$(basename "$(readlink "/sys/class/net/$p0/device")")
	eq "$(echo "$out" | sed -n 's/^bus-info: //p')" "$bus" "bus-info" &&
	eq "$(echo "$out" | sed -n 's/^firmware-version: *//p')" "" \
		"firmware-version (the sim has none)"
}

rings_default()
{
	eq "$(ring cur TX)" 1024 "tx ring" && eq "$(ring cur RX)" 1024 "rx ring" &&
	eq "$(ring max TX)" 8192 "tx max" && eq "$(ring max RX)" 8192 "rx max"
}

rings_set()
{
	for n in 64 128 256 512 2048 4096 8192 1024; do
		ethtool -G "$p0" tx $n rx $n || { ktap_diag "-G tx/rx $n failed"; return 1; }
		eq "$(ring cur TX)" $n "tx after -G $n" && eq "$(ring cur RX)" $n "rx after -G $n" ||
			return 1
	done
	ethtool -G "$p0" tx 64 && ethtool -G "$p0" rx 8192 || return 1
	eq "$(ring cur TX)/$(ring cur RX)" 64/8192 "tx/rx" || return 1
	ethtool -G "$p0" tx 1024 rx 1024
	# The link still works after the changes.
	wait_until 5 carrier_up
}

# -G must fail with a message and leave the rings alone.
reject_ring()
{
	if out=$(ethtool -G "$p0" "$1" "$2" 2>&1); then
		ktap_diag "-G $1 $2 accepted"
		return 1
	fi
	[ -n "$out" ] || { ktap_diag "-G $1 $2 failed without a message"; return 1; }
	ktap_diag "-G $1 $2: $(echo "$out" | head -n 1)"
	eq "$(ring cur TX)/$(ring cur RX)" 1024/1024 "rings after rejected -G"
}

rings_reject()
{
	reject_ring tx 16384 && reject_ring rx 16384 && reject_ring tx 8193
}

# -G N as mlx4_en takes it: up to the next power of two, at least 64.
rings_round()
{
	ethtool -G "$p0" tx 100 rx 100 || return 1
	eq "$(ring cur TX)/$(ring cur RX)" 128/128 "tx/rx 100" || return 1
	ethtool -G "$p0" tx 32 rx 5000 || return 1
	eq "$(ring cur TX)/$(ring cur RX)" 64/8192 "tx 32, rx 5000" || return 1
	ethtool -G "$p0" tx 1 rx 65 || return 1
	eq "$(ring cur TX)/$(ring cur RX)" 64/128 "tx 1, rx 65" || return 1
	ethtool -G "$p0" tx 1024 rx 1024 || return 1
	wait_until 5 carrier_up
}

channels_default()
{
	# One channel per online CPU, at most the port's maximum.
	want=$(nproc)
	[ "$want" -le "$(chan max)" ] || want=$(chan max)
	eq "$(chan cur)" "$want" "combined channels (online CPUs)"
}

channels_set()
{
	max=$(chan max)
	[ -n "$max" ] && [ "$max" -ge 1 ] || { ktap_diag "max combined '$max'"; return 1; }
	k=1
	while [ $k -le "$max" ]; do
		ethtool -L "$p0" combined $k || { ktap_diag "-L combined $k failed"; return 1; }
		eq "$(chan cur)" $k "combined after -L $k" || return 1
		eq "$(ls -d /sys/class/net/$p0/queues/tx-* | wc -l)" $k "tx queues" || return 1
		k=$((k + 1))
	done
	ethtool -L "$p0" combined 1 || return 1
	wait_until 5 carrier_up
}

channels_reject()
{
	max=$(chan max)
	for k in 0 $((max + 1)); do
		if ethtool -L "$p0" combined $k >/dev/null 2>&1; then
			ktap_diag "-L combined $k accepted"
			return 1
		fi
	done
	eq "$(chan cur)" 1 "combined after rejected -L"
}

stats_names()
{
	out=$(ethtool -S "$p0") || return 1
	names=$(echo "$out" | sed -n 's/^ *\([a-z0-9_]*\): .*/\1/p')
	want=$STATS
	n=$(chan cur)
	q=0
	while [ $q -lt "$n" ]; do
		for s in $TXQ_STATS; do want="$want tx${q}_$s"; done
		for s in $RXQ_STATS; do want="$want rx${q}_$s"; done
		q=$((q + 1))
	done
	missing=
	for s in $want; do
		echo "$names" | grep -qx "$s" || missing="$missing $s"
	done
	[ -z "$missing" ] && return 0
	ktap_diag "missing:$missing"
	return 1
}

stats_names_max()
{
	ethtool -L "$p0" combined "$(chan max)" || return 1
	stats_names || return 1
	ethtool -L "$p0" combined 1
}

teardown()
{
	cxb_del 1 || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

ktap_ok setup_adapter setup || ktap_finish
ktap_ok driver_info drvinfo
ktap_ok rings_default_1024 rings_default
ktap_ok channels_default_online_cpus channels_default
ktap_ok rings_set_powers_of_two rings_set
ktap_ok rings_round_up_as_mlx4_en rings_round
ktap_ok rings_reject_16384_8193 rings_reject
ktap_ok channels_set_1_to_max channels_set
ktap_ok channels_reject_0_and_max_plus_1 channels_reject
ktap_ok stats_names stats_names
ktap_ok stats_names_max_rings stats_names_max
ktap_ok timestamping_software ts_info
ktap_ok link_settings link_settings
ktap_ok teardown_dma_live_zero teardown
ktap_finish
