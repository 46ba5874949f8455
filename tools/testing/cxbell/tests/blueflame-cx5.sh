# SPDX-License-Identifier: GPL-2.0
#
# BlueFlame on ConnectX-4+ ports (sim adapter "1 2 cx5", then "1 2 cx4"):
# the blueflame flag off by default, and when on, the doorbell xmit rings
# carries the WQE it names in the write, if that WQE fits one 256-byte
# buffer (Documentation/mlx5.rst). pktgen sends COUNT frames of SIZE
# bytes with burst B from port 0 to port 1, one TX queue. With deltas of
# ethtool and sim counters, inline engine:
#   peer rx_packets == tx_packets == COUNT
#   a WQE that fits: tx_blueflame == sim bf_writes == tx_cqes == COUNT / B,
#     tx_doorbells == sim doorbells == 0
#   one that does not (tx-copybreak 464, 400-byte frames: 7 WQEBBs):
#     tx_doorbells == sim doorbells == COUNT / B, no BlueFlame write
#   pcie_desc_read_bytes == 64 * (WQEBBs posted - WQEBBs carried + NOPs):
#     every WQE is read from ring memory but the ones BlueFlame carried
#   violations, bf_mismatch, bf_ineligible, stranded == 0 (both ports)
# The deferred engine and doorbell_opt 1: sim bf_writes == tx_blueflame
# and sim doorbells == tx_doorbells, the same checks. A run during which
# the queue stopped (a host stall: no completion for a ring's worth of
# packets) is checked by those identities alone, and says so.
#
#   blueflame-cx5.sh [COUNT]     COUNT defaults to 9600 (a multiple of 32)
. /cxbell/lib.sh

COUNT=${1:-9600}

ktap_plan 13
no_ipv6

# setup GEN: the pair, BlueFlame off by default and then turned on
setup()
{
	cxb_pktgen_pair "$1" || return 1
	rc=0
	eq "$(cxb_priv_flag "$p0" blueflame)" off "blueflame default" || rc=1
	ethtool --set-priv-flags "$p0" blueflame on || rc=1
	eq "$(cxb_priv_flag "$p0" blueflame)" on "blueflame after on" || rc=1
	case $(ethtool -g "$p0") in
	*"TX Push:"*on*) ;;
	*) ktap_diag "ethtool -g: TX Push not on"; rc=1 ;;
	esac
	return $rc
}

counters()
{
	echo "tx $(cxb_stat "$p0" tx_packets)"
	echo "db $(cxb_stat "$p0" tx_doorbells)"
	echo "bf $(cxb_stat "$p0" tx_blueflame)"
	echo "cq $(cxb_stat "$p0" tx_cqes)"
	echo "stop $(cxb_stat "$p0" tx_queue_stopped)"
	echo "rx $(cxb_stat "$p1" rx_packets)"
	echo "sdb $(sim_ctr 1 0 doorbells)"
	echo "sbf $(sim_ctr 1 0 bf_writes)"
	echo "nop $(sim_ctr 1 0 nop_wqes)"
	echo "desc $(sim_ctr 1 0 pcie_desc_read_bytes)"
	echo "bad $(($(sim_ctr 1 0 bf_mismatch) + $(sim_ctr 1 0 bf_ineligible)))"
	echo "v $(($(sim_ctr 1 0 violations) + $(sim_ctr 1 1 violations)))"
	echo "st $(($(sim_ctr 1 0 stranded) + $(sim_ctr 1 1 stranded)))"
}

snap() { snap_new "$1" && snap_add "$1" "" counters; }

peer_rx_done()
{
	[ $(($(cxb_stat "$p1" rx_packets) - $(snap_get b rx))) -ge "$sent" ]
}

# run ENGINE BURST MPWQE COPYBREAK SIZE WQEBBS CARRIED: pktgen COUNT
# frames of SIZE bytes with burst BURST, from a send queue with tx_mpwqe
# MPWQE and tx-copybreak COPYBREAK. With the inline engine, the WQEs of a
# burst take WQEBBS WQEBBs, of which BlueFlame carries CARRIED (those of
# the last WQE; 0: it is too large, a doorbell names it). ENGINE "opt1":
# the inline engine with doorbell_opt 1.
run()
{
	engine=$1 burst=$2 mpw=$3 cb=$4 size=$5 wqebbs=$6 carried=$7
	opt=0
	[ "$engine" = opt1 ] && { engine=inline opt=1; }
	sim_engine 1 "$engine" || return 1
	echo $opt >"/sys/class/net/$p0/doorbell_opt" || return 1
	ethtool --set-priv-flags "$p0" tx_mpwqe "$mpw" 2>/dev/null
	eq "$(cxb_priv_flag "$p0" tx_mpwqe)" "$mpw" "tx_mpwqe" || return 1
	ethtool --set-tunable "$p0" tx-copybreak "$cb" || return 1
	snap b
	res=$(pktgen_run "$p0" "$COUNT" "$burst" "$mac" "$size") || return 1
	sent=${res#* }
	wait_until 5 peer_rx_done
	sleep 0.3
	snap a
	echo 0 >"/sys/class/net/$p0/doorbell_opt"
	tx=$(snap_d tx) db=$(snap_d db) bf=$(snap_d bf) cq=$(snap_d cq)
	rx=$(snap_d rx) sdb=$(snap_d sdb) sbf=$(snap_d sbf) nop=$(snap_d nop)
	desc=$(snap_d desc) stop=$(snap_d stop)
	ktap_diag "$engine opt $opt burst $burst mpwqe $mpw copybreak $cb" \
		"size $size: sent $sent tx $tx rx $rx doorbells $db (sim $sdb)" \
		"blueflame $bf (sim $sbf) cqes $cq nops $nop desc $desc" \
		"stopped $stop"
	rc=0
	eq $rx "$sent" "peer rx_packets" || rc=1
	eq $tx "$sent" "tx_packets" || rc=1
	eq $sdb $db "sim doorbells vs tx_doorbells" || rc=1
	eq $sbf $bf "sim bf_writes vs tx_blueflame" || rc=1
	eq "$(snap_d bad)" 0 "bf_mismatch + bf_ineligible" || rc=1
	eq "$(snap_d v)" 0 "violations" || rc=1
	eq "$(snap_d st)" 0 "stranded" || rc=1
	if [ "$engine" != inline ] || [ $opt != 0 ]; then
		[ $opt = 0 ] || le 1 $bf "tx_blueflame (doorbell_opt 1)" || rc=1
		return $rc
	fi
	if [ "$stop" != 0 ]; then
		ktap_diag "the queue stopped: counts checked as identities only"
		return $rc
	fi
	bursts=$((COUNT / burst))
	eq "$sent" "$COUNT" "packets sent" || rc=1
	eq $cq $bursts "tx_cqes" || rc=1
	if [ "$carried" != 0 ]; then
		eq $bf $bursts "tx_blueflame" || rc=1
		eq $db 0 "tx_doorbells" || rc=1
	else
		eq $bf 0 "tx_blueflame" || rc=1
		eq $db $bursts "tx_doorbells" || rc=1
	fi
	eq $desc $((64 * (nop + bursts * (wqebbs - carried)))) \
		"pcie_desc_read_bytes" || rc=1
	return $rc
}

bf_off()
{
	ethtool --set-priv-flags "$p0" blueflame off || return 1
	eq "$(cxb_priv_flag "$p0" blueflame)" off "blueflame after off"
}

# cx4 (the L2 headers inline in every SEND: 4 DS, one WQEBB)
cx4()
{
	setup cx4 && run inline 1 off 0 60 1 1 && cxb_pktgen_teardown
}

ktap_ok setup_cx5_blueflame_off_by_default_then_on setup cx5 || ktap_finish
# 60-byte frames, bounced: SEND WQEs of 3 DS, one WQEBB each
ktap_ok inline_burst_1_send_carried run inline 1 off 0 60 1 1
ktap_ok inline_burst_32_last_send_carried run inline 32 off 0 60 32 1
# sessions of 30 + 2 packets: 8 WQEBBs + 1, the second carried
ktap_ok inline_burst_32_mpwqe_last_carried run inline 32 on 0 60 9 1
ktap_ok inline_burst_1_mpwqe_carried run inline 1 on 0 60 1 1
# the whole frame inline: 6 DS, two WQEBBs, a 128-byte write
ktap_ok copybreak_464_two_wqebbs_carried run inline 1 off 464 60 2 2
# 400 bytes inline: 28 DS, 7 WQEBBs, over one buffer: a doorbell
ktap_ok copybreak_464_400_bytes_doorbell run inline 1 off 464 400 7 0
ktap_ok deferred_burst_32_mpwqe run deferred 32 on 0 60 9 1
ktap_ok doorbell_opt_1_burst_1 run opt1 1 off 0 60 1 1
ktap_ok blueflame_off bf_off
ktap_ok off_burst_32_doorbells run inline 32 off 0 60 32 0
ktap_ok teardown_cx5 cxb_pktgen_teardown
ktap_ok cx4_burst_1_l2_inline_carried cx4
ktap_finish
