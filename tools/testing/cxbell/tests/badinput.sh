# SPDX-License-Identifier: GPL-2.0
#
# Rejected input of the doorbell policy knobs (Documentation/cxbell.rst,
# "Doorbell policies" and "ethtool"), each checked for its error and for
# the setting being unchanged afterwards:
#   doorbell_opt (sysfs), from 1: "4", "-1", "abc", "\n" (an empty line:
#     an empty write(2) never reaches the kernel), "99999999999", "1 2",
#     5000 digits -> the write(2) fails with "Invalid argument";
#     "2\n" is accepted; a write without CAP_NET_ADMIN (dropcap helper,
#     else a user namespace) fails with "Operation not permitted".
#     Each value is written with one write(2) (lib.sh cxb_write).
#   tx-copybreak 465 and 4294967295 -> ethtool fails (EINVAL), 128 kept
#   doorbell_defer_max (sysfs) 0 and 8193 -> the write fails with
#     "Invalid argument", 32 kept
#   ethtool -C tx-usecs 65536 and tx-frames 65536 -> fail with the
#     extack messages "rx-usecs and tx-usecs must be 0..65535" and
#     "rx-frames and tx-frames must be 0..65535" (ERANGE, as mlx4_en),
#     the moderation set before (tx-usecs 8 tx-frames 32) kept
#   ethtool -G tx 8193 and rx 16384 -> fails with an extack message about
#     the ring size, 1024/1024 kept
#   blueflame on a port without BlueFlame registers: skipped, the sim
#     always has them.
#   the sim's Y/N debugfs knobs port1/pause and cable (kstrtobool input),
#     from Y: "maybe", "2", "\n", 5000 digits, 4 KiB of letters -> the
#     write(2) fails with "Invalid argument", Y kept; "off\n" reads N and
#     "1" Y again; "n" and "Yes\n" likewise for the cable.
. /cxbell/lib.sh

ktap_plan 29
no_ipv6

setup()
{
	cxb_load && cxb_new 1 2 || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) || return 1
	ip link set "$p0" up && ip link set "$p1" up || return 1
	dbo=/sys/class/net/$p0/doorbell_opt
	# Non-default starting points, so "unchanged" cannot be a parse of 0.
	echo 1 >"$dbo" || return 1
	ethtool --set-tunable "$p0" tx-copybreak 128 || return 1
	ddm=/sys/class/net/$p0/doorbell_defer_max
	echo 32 >"$ddm" || return 1
	ethtool -C "$p0" tx-usecs 8 tx-frames 32 || return 1
	eq "$(cat "$dbo")" 1 "doorbell_opt" &&
	eq "$(cxb_copybreak "$p0")" 128 "tx-copybreak" &&
	eq "$(cat "$ddm")" 32 "doorbell_defer_max" &&
	eq "$(tx_moder)" 8/32 "tx-usecs/tx-frames"
}

tx_moder()
{
	ethtool -c "$p0" | awk '$1 == "tx-usecs:" { u = $2 }
		$1 == "tx-frames:" { f = $2 } END { print u "/" f }'
}

rings()
{
	ethtool -g "$p0" | awk '/^Current hardware/ { s = 1 }
		s && $1 == "TX:" { t = $2 } s && $1 == "RX:" { r = $2 }
		END { print t "/" r }'
}

# dbopt_reject DATA WANT_ERRNO_TEXT KEPT
dbopt_reject()
{
	if err=$(cxb_write "$dbo" "$1"); then
		ktap_diag "write of '$(printf '%s' "$1" | head -c 40)' accepted"
		ktap_diag "doorbell_opt now $(cat "$dbo")"
		return 1
	fi
	ktap_diag "write failed: $err"
	rc=0
	eq "$err" "$2" "errno text" || rc=1
	eq "$(cat "$dbo")" "$3" "doorbell_opt after the rejected write" || rc=1
	return $rc
}

dbopt_accept_2_newline()
{
	err=$(cxb_write "$dbo" "2
") || { ktap_diag "write of '2\\n' failed: $err"; return 1; }
	eq "$(cat "$dbo")" 2 "doorbell_opt after '2\\n'"
}

dbopt_eperm()
{
	if [ -x /usr/bin/dropcap ]; then
		how="dropcap net_admin"
		set -- dropcap net_admin
	elif unshare -r true 2>/dev/null; then
		how="unshare -r (a user namespace)"
		set -- unshare -r
	else
		return 2
	fi
	ktap_diag "without CAP_NET_ADMIN by $how"
	printf '3\n' >/tmp/dbo3
	out=$("$@" dd if=/tmp/dbo3 of="$dbo" bs=2 count=1 conv=notrunc 2>&1)
	st=$?
	err=$(printf '%s\n' "$out" | sed -n 's/^dd: .*: \([^:]*\)$/\1/p' | head -n 1)
	rm -f /tmp/dbo3
	[ $st != 0 ] || { ktap_diag "write accepted without CAP_NET_ADMIN"; return 1; }
	ktap_diag "write failed: ${err:-$out}"
	rc=0
	eq "$err" "Operation not permitted" "errno text" || rc=1
	eq "$(cat "$dbo")" 2 "doorbell_opt after the rejected write" || rc=1
	return $rc
}

copybreak_reject()
{
	if out=$(ethtool --set-tunable "$p0" tx-copybreak "$1" 2>&1); then
		ktap_diag "tx-copybreak $1 accepted"
		ktap_diag "tx-copybreak now $(cxb_copybreak "$p0")"
		return 1
	fi
	ktap_diag "tx-copybreak $1: $(echo "$out" | tr '\n' ' ')"
	rc=0
	case $out in
	*"Invalid argument"*) ;;
	*) ktap_diag "no 'Invalid argument' in the error"; rc=1 ;;
	esac
	eq "$(cxb_copybreak "$p0")" 128 "tx-copybreak after the rejected value" || rc=1
	return $rc
}

defer_max_reject()
{
	if err=$(cxb_write "$ddm" "$1"); then
		ktap_diag "doorbell_defer_max $1 accepted"
		ktap_diag "doorbell_defer_max now $(cat "$ddm")"
		return 1
	fi
	ktap_diag "write failed: $err"
	rc=0
	eq "$err" "Invalid argument" "errno text" || rc=1
	eq "$(cat "$ddm")" 32 "doorbell_defer_max after the rejected write" || rc=1
	return $rc
}

# coal_reject PARAM VALUE EXTACK
coal_reject()
{
	if out=$(ethtool -C "$p0" "$1" "$2" 2>&1); then
		ktap_diag "-C $1 $2 accepted"
		ktap_diag "tx-usecs/tx-frames now $(tx_moder)"
		return 1
	fi
	ktap_diag "-C $1 $2: $(echo "$out" | tr '\n' ' ')"
	rc=0
	case $out in
	*"$3"*) ;;
	*) ktap_diag "no extack '$3' in the error"; rc=1 ;;
	esac
	eq "$(tx_moder)" 8/32 "tx-usecs/tx-frames after the rejected value" || rc=1
	return $rc
}

ring_reject()
{
	if out=$(ethtool -G "$p0" "$1" "$2" 2>&1); then
		ktap_diag "-G $1 $2 accepted"
		ktap_diag "rings now $(rings)"
		return 1
	fi
	ktap_diag "-G $1 $2: $(echo "$out" | tr '\n' ' ')"
	rc=0
	case $out in
	*"netlink error: "*"ring size"*) ;;
	*) ktap_diag "no extack about the ring size in the error"; rc=1 ;;
	esac
	eq "$(rings)" 1024/1024 "tx/rx rings after the rejected -G" || rc=1
	return $rc
}

# yn_reject FILE DATA: the write fails with EINVAL, FILE still reads Y
yn_reject()
{
	if err=$(cxb_write "$1" "$2"); then
		ktap_diag "write of '$(printf '%s' "$2" | head -c 40)' to $1 accepted"
		ktap_diag "${1##*/} now $(cat "$1")"
		return 1
	fi
	ktap_diag "write failed: $err"
	rc=0
	eq "$err" "Invalid argument" "errno text" || rc=1
	eq "$(cat "$1")" Y "${1##*/} after the rejected write" || rc=1
	return $rc
}

# yn_accept FILE OFF ON: writing OFF reads N, then ON reads Y
yn_accept()
{
	err=$(cxb_write "$1" "$2") || { ktap_diag "write of '$2' failed: $err"; return 1; }
	eq "$(cat "$1")" N "${1##*/} after '$2'" || return 1
	err=$(cxb_write "$1" "$3") || { ktap_diag "write of '$3' failed: $err"; return 1; }
	eq "$(cat "$1")" Y "${1##*/} after '$3'"
}

teardown()
{
	cxb_del 1 || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

long=$(head -c 5000 /dev/zero | tr '\0' 7)

ktap_ok setup_adapter setup || ktap_finish
ktap_ok dbopt_reject_4 dbopt_reject "4" "Invalid argument" 1
ktap_ok dbopt_reject_minus_1 dbopt_reject "-1" "Invalid argument" 1
ktap_ok dbopt_reject_abc dbopt_reject "abc" "Invalid argument" 1
ktap_ok dbopt_reject_empty_line dbopt_reject "
" "Invalid argument" 1
ktap_ok dbopt_reject_99999999999 dbopt_reject "99999999999" "Invalid argument" 1
ktap_ok dbopt_reject_1_space_2 dbopt_reject "1 2" "Invalid argument" 1
ktap_ok dbopt_reject_5000_digits dbopt_reject "$long" "Invalid argument" 1
ktap_ok dbopt_accept_2_newline dbopt_accept_2_newline
dbopt_eperm >/tmp/eperm.out
case $? in
2) cat /tmp/eperm.out
   ktap_skip dbopt_eperm_without_cap_net_admin \
	"no way to drop CAP_NET_ADMIN (no dropcap helper, no user namespaces)" ;;
0) cat /tmp/eperm.out; ktap_ok dbopt_eperm_without_cap_net_admin ;;
*) cat /tmp/eperm.out; ktap_fail dbopt_eperm_without_cap_net_admin ;;
esac
ktap_ok copybreak_reject_465 copybreak_reject 465
ktap_ok copybreak_reject_4294967295 copybreak_reject 4294967295
ktap_ok doorbell_defer_max_reject_0 defer_max_reject 0
ktap_ok doorbell_defer_max_reject_8193 defer_max_reject 8193
ktap_ok coalesce_reject_tx_usecs_65536 coal_reject tx-usecs 65536 \
	"rx-usecs and tx-usecs must be 0..65535"
ktap_ok coalesce_reject_tx_frames_65536 coal_reject tx-frames 65536 \
	"rx-frames and tx-frames must be 0..65535"
ktap_ok rings_reject_tx_8193 ring_reject tx 8193
ktap_ok rings_reject_rx_16384 ring_reject rx 16384
ktap_skip blueflame_on_without_bf_eopnotsupp \
	"the sim always has BlueFlame registers (no port without BlueFlame to test)"
pause=$CXB_DBG/cxbell_sim1/port1/pause
cable=$CXB_DBG/cxbell_sim1/cable
letters=$(head -c 4096 /dev/zero | tr '\0' A)
ktap_ok sim_pause_reject_maybe yn_reject "$pause" "maybe"
ktap_ok sim_pause_reject_2 yn_reject "$pause" "2"
ktap_ok sim_pause_reject_empty_line yn_reject "$pause" "
"
ktap_ok sim_pause_reject_5000_digits yn_reject "$pause" "$long"
ktap_ok sim_pause_accept_off_1 yn_accept "$pause" "off
" "1"
ktap_ok sim_cable_reject_maybe yn_reject "$cable" "maybe"
ktap_ok sim_cable_reject_4096_letters yn_reject "$cable" "$letters"
ktap_ok sim_cable_reject_empty_line yn_reject "$cable" "
"
ktap_ok sim_cable_accept_n_yes yn_accept "$cable" "n" "Yes
"
ktap_ok teardown_dma_live_zero teardown
ktap_finish
