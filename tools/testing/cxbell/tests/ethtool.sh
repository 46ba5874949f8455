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
#   link settings: the sim's ports support the ConnectX-3 Pro modes
#          1000baseKX, 10000baseKR/CR, 40000baseKR4/CR4 and
#          56000baseKR4/CR4 up to their debugfs portP/speed (default
#          56000), advertise them all and negotiate: with carrier the
#          fastest common mode's speed, full duplex, direct-attach
#          copper (FIBRE), autonegotiation on, the partner's modes; a
#          new module speed (40000) renegotiates at 40000; 0, 400001
#          and 25000 refused (EINVAL); without carrier speed and duplex
#          unknown
#   ethtool -s (Documentation/sim.rst, Link):
#          autonegotiation picks the fastest mode both ends advertise,
#          one renegotiation is one carrier down and up on each end; the
#          same speed in different technologies (KR4 against CR4) gives
#          no link; equal forced speeds link, different ones do not; a
#          forced end links with a negotiating one that advertises its
#          speed (parallel detection), not with one that does not;
#          settings made while the port is down apply when it comes up;
#          half duplex, a speed or modes the port does not support,
#          another connector: EINVAL with a kernel log line, nothing
#          changed (no renegotiation)
. /cxbell/lib.sh

ktap_plan 19
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

# modes DEV FIELD: the link modes of "FIELD:" (e.g. "Supported link
# modes") in ethtool's output for DEV, on one line
modes()
{
	ethtool "$1" | awk -v key="$2:" '
		index($0, key) { on = 1; sub(".*" key, "") }
		on && /^\t[^ \t]/ && !index($0, key) { exit }
		on { for (i = 1; i <= NF; i++) printf "%s%s", sep, $i; sep = " " }
		END { print "" }'
}
# field DEV FIELD: the value of "FIELD:" in ethtool's output for DEV
field() { ethtool "$1" | sed -n "s/^[[:space:]]*$2:[[:space:]]*//p"; }
speed_is() { [ "$(field "$1" Speed)" = "$2" ]; }
no_carrier() { ! has_carrier "$1"; }

ALL_MODES="1000baseKX/Full 10000baseKR/Full 40000baseKR4/Full 40000baseCR4/Full 56000baseKR4/Full 56000baseCR4/Full 10000baseCR/Full"
MODES_40G="1000baseKX/Full 10000baseKR/Full 40000baseKR4/Full 40000baseCR4/Full 10000baseCR/Full"

link_settings()
{
	_spd=$CXB_DBG/cxbell_sim1/port0/speed
	wait_until 5 has_carrier "$p0" || { ktap_diag "no carrier on $p0"; return 1; }
	eq "$(cat "$_spd")" 56000 "debugfs speed" &&
		eq "$(link Speed)" 56000Mb/s "speed" && eq "$(link Duplex)" Full "duplex" &&
		eq "$(link Port)" "Direct Attach Copper" "port" &&
		eq "$(link 'Supported ports')" "[ FIBRE ]" "supported ports" &&
		eq "$(modes "$p0" 'Supported link modes')" "$ALL_MODES" "supported" &&
		eq "$(modes "$p0" 'Advertised link modes')" "$ALL_MODES" "advertised" &&
		eq "$(modes "$p0" 'Link partner advertised link modes')" "$ALL_MODES" "partner" &&
		eq "$(link 'Supports auto-negotiation')" Yes "supports autoneg" &&
		eq "$(link 'Link partner advertised auto-negotiation')" Yes "partner autoneg" &&
		eq "$(link Auto-negotiation)" on "autoneg" ||
		return 1
	echo 40000 >"$_spd" || return 1
	wait_until 5 speed_is "$p0" 40000Mb/s || { ktap_diag "speed $(link Speed) after 40000"; return 1; }
	eq "$(field "$p1" Speed)" 40000Mb/s "$p1 speed after 40000" &&
		eq "$(modes "$p0" 'Supported link modes')" "$MODES_40G" "supported at 40000" &&
		eq "$(modes "$p0" 'Advertised link modes')" "$MODES_40G" "advertised at 40000" ||
		return 1
	for _v in 0 400001 25000; do
		if echo "$_v" >"$_spd" 2>/dev/null; then
			ktap_diag "speed $_v accepted"; return 1
		fi
	done
	eq "$(cat "$_spd")" 40000 "speed after the refused writes" || return 1
	ip link set "$p1" down || return 1
	wait_until 5 no_carrier "$p0" || return 1
	eq "$(link Speed)" "Unknown!" "speed without carrier" &&
		eq "$(link Duplex)" "Unknown! (255)" "duplex without carrier" || return 1
	echo 56000 >"$_spd" && ip link set "$p1" up &&
		wait_until 5 speed_is "$p0" 56000Mb/s
}

# Link mode masks (ETHTOOL_LINK_MODE_*_BIT of uapi ethtool.h)
M1G_KX=0x20000
M10G_KR=0x80000
M40G_KR4=0x800000
M40G_CR4=0x1000000
M56G_KR4=0x8000000

# hex MASK...: the masks OR-ed, in hex (ethtool -s advertise takes hex)
hex() { _m=0; for _x in "$@"; do _m=$((_m | _x)); done; printf '%#x' "$_m"; }

# defaults: both ends negotiating, every mode advertised, at 56000
defaults()
{
	ethtool -s "$p0" autoneg on && ethtool -s "$p1" autoneg on && both_at 56000Mb/s
}

# downs DEV: carrier down events of DEV so far
downs() { cat "/sys/class/net/$1/carrier_down_count"; }
ups() { cat "/sys/class/net/$1/carrier_up_count"; }

# both_at SPEED: carrier on both ends at SPEED
both_at()
{
	wait_until 5 speed_is "$p0" "$1" && wait_until 5 speed_is "$p1" "$1" ||
		{ ktap_diag "speeds $(field "$p0" Speed) $(field "$p1" Speed), want $1"; return 1; }
}

# no_link: neither end has carrier, still after a second (the
# renegotiation took 200 ms)
no_link()
{
	wait_until 5 no_carrier "$p0" && wait_until 5 no_carrier "$p1" || return 1
	sleep 1
	no_carrier "$p0" && no_carrier "$p1" ||
		{ ktap_diag "carrier $(cat /sys/class/net/$p0/carrier) $(cat /sys/class/net/$p1/carrier)"; return 1; }
}

autoneg_fastest_common()
{
	defaults || return 1
	ethtool -s "$p0" advertise $(hex $M10G_KR $M40G_KR4) &&
		both_at 40000Mb/s || return 1
	eq "$(modes "$p1" 'Link partner advertised link modes')" \
		"10000baseKR/Full 40000baseKR4/Full" "$p1 partner modes" || return 1
	# one renegotiation: one carrier down and up on each end
	_d0=$(downs "$p0") _d1=$(downs "$p1") _u0=$(ups "$p0") _u1=$(ups "$p1")
	ethtool -s "$p1" advertise $(hex $M1G_KX $M10G_KR $M40G_CR4) || return 1
	both_at 10000Mb/s || return 1
	eq "$(($(downs "$p0") - _d0)) $(($(ups "$p0") - _u0))" "1 1" "$p0 carrier down/up events" &&
		eq "$(($(downs "$p1") - _d1)) $(($(ups "$p1") - _u1))" "1 1" "$p1 carrier down/up events" &&
		eq "$(field "$p0" Auto-negotiation)" on "$p0 autoneg"
}

autoneg_kr4_vs_cr4()
{
	defaults || return 1
	ethtool -s "$p0" advertise $M40G_KR4 && ethtool -s "$p1" advertise $M40G_CR4 || return 1
	no_link || return 1
	eq "$(field "$p0" Speed)" "Unknown!" "speed without a common mode" || return 1
	ethtool -s "$p1" advertise $(hex $M40G_CR4 $M40G_KR4) && both_at 40000Mb/s
}

forced_speeds()
{
	defaults || return 1
	ethtool -s "$p0" speed 10000 autoneg off && ethtool -s "$p1" speed 10000 autoneg off &&
		both_at 10000Mb/s || return 1
	eq "$(field "$p0" Auto-negotiation)/$(field "$p1" Auto-negotiation)" off/off "autoneg" &&
		eq "$(modes "$p0" 'Link partner advertised link modes')" "" "no partner pages" ||
		return 1
	ethtool -s "$p1" speed 1000 autoneg off && no_link || return 1
	# settings made while down apply at up
	ip link set "$p1" down && ethtool -s "$p1" speed 10000 autoneg off &&
		ip link set "$p1" up && both_at 10000Mb/s
}

parallel_detect()
{
	defaults && ethtool -s "$p1" speed 10000 autoneg off && both_at 10000Mb/s ||
		return 1
	eq "$(field "$p0" Auto-negotiation)" on "$p0 autoneg" &&
		eq "$(modes "$p0" 'Link partner advertised link modes')" "" "$p0 partner modes" ||
		return 1
	ethtool -s "$p0" advertise $(hex $M40G_KR4 $M56G_KR4) && no_link || return 1
	ethtool -s "$p1" speed 40000 autoneg off && both_at 40000Mb/s || return 1
	ethtool -s "$p1" autoneg on && both_at 56000Mb/s
}

# refuse WHAT ARGS...: ethtool -s $p1 ARGS fails with EINVAL and a kernel
# log line containing WHAT, and changes nothing
refuse()
{
	_what=$1
	shift
	_n=$(dmesg | wc -l)
	if _out=$(ethtool -s "$p1" "$@" 2>&1); then
		ktap_diag "-s $* accepted"; return 1
	fi
	case $_out in
	*"Invalid argument"*) ;;
	*) ktap_diag "-s $*: $_out"; return 1 ;;
	esac
	dmesg | tail -n +$((_n + 1)) | grep -q "$p1: $_what" || { ktap_diag "-s $*: no log line '$_what'"; return 1; }
}

bad_input()
{
	defaults || return 1
	_d1=$(downs "$p1")
	refuse "speed 20000 is not supported" speed 20000 autoneg off &&
		refuse "speed 100 is not supported" speed 100 autoneg off &&
		refuse "none of the advertised link modes is supported" advertise 0x1 &&
		refuse "none of the advertised link modes is supported" advertise 0x0 &&
		refuse "half duplex is not supported" duplex half &&
		refuse "none of the advertised link modes is supported" speed 10000 autoneg off advertise 0x1 &&
		refuse "the port's connector cannot be changed" port tp || return 1
	eq "$(downs "$p1")" "$_d1" "carrier downs after refusals" &&
		eq "$(field "$p1" Speed)" 56000Mb/s "speed after refusals" &&
		eq "$(field "$p1" Auto-negotiation)" on "autoneg after refusals" &&
		eq "$(modes "$p1" 'Advertised link modes')" "$ALL_MODES" "advertised after refusals"
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
ktap_ok autoneg_fastest_common_mode autoneg_fastest_common
ktap_ok autoneg_kr4_vs_cr4_no_link autoneg_kr4_vs_cr4
ktap_ok forced_speeds_match_mismatch forced_speeds
ktap_ok parallel_detection parallel_detect
ktap_ok bad_input_einval_unchanged bad_input
ktap_ok teardown_dma_live_zero teardown
ktap_finish
