# SPDX-License-Identifier: GPL-2.0
#
# Togglers: loops that flip a setting while traffic runs (part of lib.sh).
#
#   toggle_rounds NAME STEP IF STOP "STEP IF ROUND" for ROUND 0, 1, ... until
#                                   file STOP exists (at least 8 rounds),
#                                   then "NAME ROUNDS"
#   toggle_doorbell_opt IF ROUND    STEP: doorbell_opt 0 1 2 3 3 2 1 0 ...
#   toggle_bf IF ROUND              STEP: blueflame on/off, by the flag
#                                   and by tx-push
#   toggler IF STOP LOG NAME:STEP...
#                                   those toggle_rounds loops at once; LOG
#                                   gets the problems, LOG.n the rounds
#   toggler_ok LOG [SECONDS]        the toggler finished without a problem
#   pktgen_toggle ENGINE SECONDS TOGGLER CHECK
#                                   pktgen $p0 -> $p1 of the pair fixture
#                                   (lib/pair.sh) under TOGGLER; checks;
#                                   sets sent

# toggle_rounds NAME STEP IF STOP: run "STEP IF ROUND" for ROUND 0, 1, ...
# until file STOP exists and at least 8 rounds are done, then print
# "NAME ROUNDS" (after STEP's own output: a line per problem).
toggle_rounds()
{
	_i=0
	while [ ! -e "$4" ] || [ $_i -lt 8 ]; do
		"$2" "$3" $_i
		_i=$((_i + 1))
	done
	echo "$1 $_i"
}

# toggle_doorbell_opt IF ROUND: a toggle_rounds STEP writing doorbell_opt
# 0 1 2 3 3 2 1 0 ..., each value held for ~5 ms.
toggle_doorbell_opt()
{
	_v=$(($2 % 8))
	[ $_v -gt 3 ] && _v=$((7 - _v))
	echo $_v 2>/dev/null >"/sys/class/net/$1/doorbell_opt" ||
		echo "round $2: doorbell_opt $_v failed"
	sleep 0.005
}

# toggle_bf IF ROUND: a toggle_rounds STEP, blueflame on/off by turns, two
# turns through the private flag, two through ethtool -G tx-push; both
# views (--show-priv-flags, -g "TX Push") must show the value set.
toggle_bf()
{
	if [ $(($2 % 2)) = 0 ]; then _v=on; else _v=off; fi
	if [ $(($2 / 2 % 2)) = 0 ]; then
		_how="--set-priv-flags blueflame"
		_o=$(ethtool --set-priv-flags "$1" blueflame $_v 2>&1)
	else
		_how="-G tx-push"
		_o=$(ethtool -G "$1" tx-push $_v 2>&1)
	fi || echo "round $2: $_how $_v failed: $_o"
	# Both views, parsed without forking more than ethtool.
	_o=$(ethtool --show-priv-flags "$1")
	_pf=${_o##*blueflame:}
	_o=$(ethtool -g "$1")
	_tp=${_o##*TX Push:}
	# shellcheck disable=SC2086
	set -- "$1" "$2" $_pf
	_pf=${3:-}
	# shellcheck disable=SC2086
	set -- "$1" "$2" $_tp
	_tp=${3:-}
	set -- "$1" "$2"
	if [ "$_pf" != $_v ] || [ "$_tp" != $_v ]; then
		echo "round $2: after $_how $_v: priv flag '$_pf', tx-push '$_tp'"
	fi
}

# toggler IF STOP LOG NAME:STEP...: a toggle_rounds loop per NAME:STEP on
# IF, all at once, until STOP; LOG gets their problems, LOG.n their rounds.
toggler()
{
	_tif=$1 _tstop=$2 _tlog=$3
	shift 3
	_tfs=
	for _t in "$@"; do
		_tfs="$_tfs $_tlog.${_t%%:*}"
		toggle_rounds "${_t%%:*}" "${_t#*:}" "$_tif" "$_tstop" >"$_tlog.${_t%%:*}" &
	done
	wait
	# shellcheck disable=SC2086
	for _f in $_tfs; do tail -n 1 "$_f"; done | tr '\n' ' ' >"$_tlog.n"
	# shellcheck disable=SC2086
	for _f in $_tfs; do sed '$d' "$_f"; done >"$_tlog"
	# shellcheck disable=SC2086
	rm -f $_tfs
}

# toggler_ok LOG [SECONDS]: the toggler of LOG finished and hit no problem
# (diagnostics: its rounds, in SECONDS, and the first problems).
toggler_ok()
{
	_n=$(cat "$1.n" 2>/dev/null)
	ktap_diag "toggler rounds${2:+ in $2 s}: ${_n:-?}"
	_trc=0
	if [ -s "$1" ]; then
		ktap_diag "toggler errors ($(wc -l <"$1") lines, first 10):"
		head -n 10 "$1" | sed 's/^/#   /'
		_trc=1
	fi
	[ -n "$_n" ] || { ktap_diag "toggler: did not finish"; _trc=1; }
	return $_trc
}

# pktgen_toggle ENGINE SECONDS TOGGLER CHECK: sim engine ENGINE, pktgen
# (burst 32, 60 bytes) from $p0 to $p1 while "TOGGLER $p0 STOP LOG" runs
# for SECONDS, then stopped. Sets sent; checks peer rx_packets == sent ==
# tx_packets, then CHECK (a command, on pair_d deltas), then toggler_ok.
pktgen_toggle()
{
	sim_engine "$pair_id" "$1" || return 1
	rm -f /tmp/tg.stop /tmp/tg.log /tmp/tg.log.n /tmp/pg.out
	pair_snap b
	pktgen_run "$p0" 100000000 32 "$mac" 60 >/tmp/pg.out &
	_ptpg=$!
	"$3" "$p0" /tmp/tg.stop /tmp/tg.log &
	_pttg=$!
	_ptt0=$(uptime_s)
	sleep "$2"
	touch /tmp/tg.stop
	wait $_pttg
	_ptt1=$(uptime_s)
	pktgen_stop
	wait $_ptpg
	_ptrc=$?
	_ptres=$(cat /tmp/pg.out)
	sent=${_ptres#* }
	[ $_ptrc = 0 ] && [ -n "$sent" ] || {
		ktap_diag "pktgen failed (exit $_ptrc, '$_ptres')"; return 1; }
	wait_until 5 pair_rx_done "$sent"
	sleep 0.3
	pair_snap a
	ktap_diag "$1 engine: sent $sent, peer rx $(pair_d r_rx_packets) (sim" \
		"rx_dropped $(pair_d s1_rx_dropped)), ${_ptres% *}pps"
	_ptok=0
	eq "$(pair_d r_rx_packets)" "$sent" "peer rx_packets vs sent" || _ptok=1
	eq "$(pair_d d_tx_packets)" "$sent" "tx_packets vs sent" || _ptok=1
	"$4" || _ptok=1
	toggler_ok /tmp/tg.log "$(secs_between "$_ptt0" "$_ptt1")" || _ptok=1
	return $_ptok
}
