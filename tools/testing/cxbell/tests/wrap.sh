# SPDX-License-Identifier: GPL-2.0
#
# The cx3 send ring around its end, with exact counts. Port 0 of sim
# adapter 1 sends with pktgen to port 1 (one channel each, 64-TXBB send
# ring, inline engine, BQL limit_min raised so only the stack's burst
# decides xmit_more). pktgen "frags 0" sends 1-TXBB WQEs (ctrl + one data
# segment), "frags 3" 2-TXBB ones (ctrl + linear + 3 fragments).
#
#   wrap_nop_map_fail (blueflame off, doorbell_opt 0): from prod 0, 61
#     1-TXBB packets (prod 61), then one burst of two 2-TXBB packets: the
#     first at 61, the second needs the wrap NOP at 63 and goes to index 0
#     of the next lap, and its first DMA map fails (sim
#     fault/dma_map_fail_nth 5: the first packet maps 4 buffers); the
#     drop ends the burst: the first packet, sent with more to follow,
#     asked for no CQE, so the drop posts a one-TXBB NOP at 63 that asks
#     for one (cxbell.rst, "One CQE per doorbell") and rings for both.
#     Then three 1-TXBB packets: at 0, 1, 2. Nothing of the dropped
#     packet may be left owned in the ring:
#       sent == 61 + 2 + 3, tx_dropped == 1, sim dma_map_failed == 1
#       tx_packets == sim tx_frames == peer rx_packets == 65
#       sim violations == 0, stranded == 0, nop_wqes == tx_nop == 1,
#       wqes_fetched == 66, and the doorbell identity of doorbell.sh
#       with the drop's doorbell (cxbell.rst: counted in tx_doorbells):
#       tx_packets + 1 == (tx_doorbells - tx_doorbell_by_completion)
#                     + tx_blueflame + tx_xmit_more + tx_doorbell_deferred
#   wrap_nop_map_fail_bf_opt1: the same with blueflame on and doorbell
#     avoidance (doorbell_opt 1): the same counts, no bf_ineligible,
#     except that a doorbell announcing deferred WQEs (which ask for no
#     CQE) posts a NOP that does: sim nop_wqes == tx_nop >= 1,
#     wqes_fetched == 65 + tx_nop
#   wrap_nop_nec (blueflame off, doorbell_opt 0): from prod 0, 63 1-TXBB
#     packets, then one 2-TXBB packet: a NOP pads index 63, the WQE goes
#     to index 0:
#       sim nop_wqes == tx_nop == 1, nop_without_nec == 0 (mlx4_ib set
#       MLX4_WQE_CTRL_NEC on its NOPs: no error completion for them)
#       sent == tx_packets == sim tx_frames == peer rx_packets == 64
#       sim violations == 0, stranded == 0
#   bf_layout_deferred (blueflame on, doorbell_opt 1, deferred engine):
#     BF_COUNT 60-byte 1-TXBB packets, burst 1. Doorbell avoidance defers
#     most doorbells to a completion; a WQE whose doorbell is deferred
#     must not be in BlueFlame layout, which only a BlueFlame write may
#     announce:
#       sim bf_layout_by_doorbell == 0, tx_doorbell_deferred > 0,
#       tx_blueflame > 0 (the first packet finds nothing outstanding)
#       sent == BF_COUNT == tx_packets == peer rx_packets
#       sim doorbells == tx_doorbells, bf_writes == tx_blueflame
#       tx_packets == (tx_doorbells - tx_doorbell_by_completion - tx_doorbell_kick)
#                     + tx_blueflame + tx_xmit_more + tx_doorbell_deferred
#       sim violations, stranded, bf_ineligible, bf_mismatch == 0
#   inline_short_LEN (tx-copybreak 64, blueflame on, doorbell_opt 0): 10
#     raw frames of LEN = 14, 15, 16, 17 bytes (rawsend): each one inline
#     WQE padded to 17 bytes of inline data (mlx4_en: MIN_PKT_LEN):
#       tx_packets == tx_inline == sim inline_wqes == sim tx_frames
#       == peer rx_packets == 10, sim tx_bytes == 10 * 17,
#       sim violations == 0
. /cxbell/lib.sh

SIM=$CXB_DBG/cxbell_sim1
PG=/proc/net/pktgen
BF_COUNT=3000
SHORT_LENS="14 15 16 17"
SHORT_COUNT=10

ktap_plan $((6 + 4))
no_ipv6

setup()
{
	cxb_pktgen_pair || return 1
	ethtool -G "$p0" tx 64 || return 1
	wait_until 5 carrier_up || { ktap_diag "no carrier after -G"; return 1; }
	sim_engine 1 inline
}

# A send ring created anew: prod 0, checked by nothing being fetched.
fresh_ring()
{
	sim_reset 1
	ethtool -G "$p0" tx 128 && ethtool -G "$p0" tx 64 || return 1
	wait_until 5 carrier_up || { ktap_diag "no carrier after -G"; return 1; }
	sleep 0.2
	eq "$(sim_ctr 1 0 wqes_fetched)" 0 "WQEs fetched since the ring was created" &&
	echo 1000000 >"/sys/class/net/$p0/queues/tx-0/byte_queue_limits/limit_min"
}

policy()
{
	ethtool --set-priv-flags "$p0" blueflame "$1" &&
	echo "$2" >"/sys/class/net/$p0/doorbell_opt"
}

# pg COUNT BURST FRAGS [SIZE]: one pktgen run on port 0, adds to sent.
pg()
{
	pktgen_dev "$p0" "$1" "$2" "$mac" "${4:-200}" 0 10.0.0.2 &&
	pgset "$PG/$p0" "frags $3" || return 1
	renice 19 -p "$(pidof kpktgend_0)" >/dev/null 2>&1
	pgset $PG/pgctrl start || return 1
	pktgen_wait "$PG/$p0"
	grep -q '^Result: OK' "$PG/$p0" || {
		ktap_diag "pktgen: $(grep '^Result' "$PG/$p0")"; return 1; }
	sent=$((sent + $(sed -n 's/^ *pkts-sofar: *\([0-9]*\).*/\1/p' "$PG/$p0")))
	pktgen_rem_all
}

# The sim sent $1 frames since snapshot b and the peer got them.
delivered() { [ $(($(sim_ctr 1 0 tx_frames) - $(snap_get b s0_tx_frames))) -ge "$1" ] &&
	      [ $(($(cxb_stat "$p1" rx_packets) - $(snap_get b r_rx_packets))) -ge "$1" ]; }

map_failed() { echo "dma_map_failed $(cat "$SIM/fault/dma_map_failed")"; }

# snap_all SNAP: pair_snap SNAP, and the sim's dma_map_failed
snap_all()
{
	pair_snap "$1"
	snap_add "$1" "" map_failed
}

# wrap_nop_map_fail [BLUEFLAME DOORBELL_OPT]
wrap_nop_map_fail()
{
	policy "${1:-off}" "${2:-0}" && fresh_ring || return 1
	snap_all b
	sent=0
	pg 61 1 0 || return 1
	wait_until 5 delivered 61
	echo 5 >"$SIM/fault/dma_map_fail_nth" || return 1
	pg 2 2 3 || return 1
	wait_until 5 delivered 62
	pg 3 1 0 || return 1
	wait_until 2 delivered 65
	sleep 0.3
	snap_all a
	ktap_diag "sent $sent tx_packets $(pair_d d_tx_packets)" \
		"tx_dropped $(pair_d d_tx_dropped) sim tx_frames $(pair_d s0_tx_frames)" \
		"wqes_fetched $(pair_d s0_wqes_fetched) peer rx $(pair_d r_rx_packets)" \
		"map failed $(snap_d dma_map_failed)" \
		"violations $(pair_d s0_violations) stranded $(pair_d s0_stranded)" \
		"nop_wqes $(pair_d s0_nop_wqes) tx_nop $(pair_d d_tx_nop)"
	rc=0
	eq "$sent" 66 "pktgen sent" || rc=1
	eq "$(snap_d dma_map_failed)" 1 "sim dma_map_failed" || rc=1
	eq "$(cat "$SIM/fault/dma_map_fail_nth")" 0 "dma_map_fail_nth after" || rc=1
	eq "$(pair_d d_tx_dropped)" 1 "tx_dropped" || rc=1
	eq "$(pair_d d_tx_packets)" 65 "tx_packets" || rc=1
	eq "$(pair_d s0_tx_frames)" 65 "sim tx_frames" || rc=1
	eq "$(pair_d r_rx_packets)" 65 "peer rx_packets" || rc=1
	pair_sim_zero violations stranded bf_ineligible bf_mismatch || rc=1
	# The drop's NOP, and with doorbell avoidance one more each time a
	# doorbell announced deferred WQEs, which ask for no CQE.
	nops=$(pair_d d_tx_nop)
	[ "${2:-0}" = 0 ] && { eq "$nops" 1 "tx_nop" || rc=1; }
	[ "$nops" -ge 1 ] || { ktap_diag "tx_nop: got $nops, want >= 1"; rc=1; }
	eq "$(pair_d s0_nop_wqes)" "$nops" "sim nop_wqes vs tx_nop" || rc=1
	eq "$(pair_d s0_wqes_fetched)" $((65 + nops)) "sim wqes_fetched vs 65 + tx_nop" || rc=1
	# The drop that ended the burst rang once, for the packet before it
	# and the NOP.
	eq $(($(pair_d d_tx_packets) + 1)) $(($(pair_d d_tx_doorbells) -
		$(pair_d d_tx_doorbell_by_completion) + $(pair_d d_tx_blueflame) +
		$(pair_d d_tx_xmit_more) + $(pair_d d_tx_doorbell_deferred))) \
		"tx_packets + 1 vs (doorbells - by_completion) + blueflame + xmit_more + deferred" ||
		rc=1
	return $rc
}

wrap_nop_nec()
{
	policy off 0 && fresh_ring || return 1
	pair_snap b
	sent=0
	pg 63 1 0 || return 1
	wait_until 5 delivered 63
	pg 1 1 3 || return 1
	wait_until 5 delivered 64
	sleep 0.3
	pair_snap a
	ktap_diag "sent $sent tx_packets $(pair_d d_tx_packets)" \
		"sim tx_frames $(pair_d s0_tx_frames) nop_wqes $(pair_d s0_nop_wqes)" \
		"nop_without_nec $(pair_d s0_nop_without_nec) peer rx $(pair_d r_rx_packets)"
	rc=0
	eq "$(pair_d s0_nop_wqes)" 1 "sim nop_wqes" || rc=1
	eq "$(pair_d d_tx_nop)" 1 "tx_nop" || rc=1
	eq "$(pair_d s0_nop_without_nec)" 0 "sim nop_without_nec" || rc=1
	eq "$sent" 64 "pktgen sent" || rc=1
	for c in d_tx_packets s0_tx_frames r_rx_packets; do
		eq "$(pair_d $c)" 64 "$c" || rc=1
	done
	pair_sim_zero violations stranded || rc=1
	return $rc
}

bf_layout_deferred()
{
	policy on 1 || return 1
	sim_engine 1 deferred || return 1
	pair_snap b
	sent=0
	pg "$BF_COUNT" 1 0 60 || return 1
	wait_until 10 pair_rx_done "$sent"
	sleep 0.3
	pair_snap a
	sim_engine 1 inline
	tx=$(pair_d d_tx_packets) db=$(pair_d d_tx_doorbells) bf=$(pair_d d_tx_blueflame)
	xm=$(pair_d d_tx_xmit_more) dfr=$(pair_d d_tx_doorbell_deferred)
	bc=$(pair_d d_tx_doorbell_by_completion)
	kk=$(pair_d d_tx_doorbell_kick)
	ktap_diag "sent $sent tx $tx peer rx $(pair_d r_rx_packets);" \
		"doorbells $db (sim $(pair_d s0_doorbells), by completion $bc, stall kicks $kk)" \
		"blueflame $bf (sim $(pair_d s0_bf_writes)) xmit_more $xm" \
		"deferred $dfr; sim bf_layout_by_doorbell $(pair_d s0_bf_layout_by_doorbell)"
	rc=0
	eq "$(pair_d s0_bf_layout_by_doorbell)" 0 "sim bf_layout_by_doorbell" || rc=1
	[ "$dfr" -gt 0 ] || { ktap_diag "tx_doorbell_deferred: got $dfr, want > 0"; rc=1; }
	[ "$bf" -gt 0 ] || { ktap_diag "tx_blueflame: got $bf, want > 0"; rc=1; }
	eq "$sent" "$BF_COUNT" "pktgen sent" || rc=1
	eq "$tx" "$sent" "tx_packets vs sent" || rc=1
	eq "$(pair_d r_rx_packets)" "$sent" "peer rx_packets vs sent" || rc=1
	eq "$(pair_d s0_doorbells)" "$db" "sim doorbells vs tx_doorbells" || rc=1
	eq "$(pair_d s0_bf_writes)" "$bf" "sim bf_writes vs tx_blueflame" || rc=1
	eq "$tx" $((db - bc - kk + bf + xm + dfr)) \
		"tx_packets vs (doorbells - by_completion - kick) + blueflame + xmit_more + deferred" ||
		rc=1
	pair_sim_zero violations stranded bf_ineligible bf_mismatch || rc=1
	return $rc
}

inline_short()
{
	len=$1
	policy on 0 || return 1
	ethtool --set-tunable "$p0" tx-copybreak 64 || return 1
	pair_snap b
	out=$(rawsend "$p0" "$mac" "$len" "$SHORT_COUNT") || {
		ktap_diag "rawsend: $out"; return 1; }
	wait_until 5 pair_rx_done "$SHORT_COUNT"
	sleep 0.2
	pair_snap a
	ktap_diag "$len bytes: tx_packets $(pair_d d_tx_packets)" \
		"tx_inline $(pair_d d_tx_inline) sim inline_wqes $(pair_d s0_inline_wqes)" \
		"tx_frames $(pair_d s0_tx_frames) tx_bytes $(pair_d s0_tx_bytes)" \
		"peer rx $(pair_d r_rx_packets) violations $(pair_d s0_violations)"
	rc=0
	for c in d_tx_packets d_tx_inline s0_inline_wqes s0_tx_frames r_rx_packets; do
		eq "$(pair_d $c)" "$SHORT_COUNT" "$c" || rc=1
	done
	eq "$(pair_d s0_tx_bytes)" $((SHORT_COUNT * 17)) "sim tx_bytes" || rc=1
	pair_sim_zero violations stranded || rc=1
	return $rc
}

ktap_ok setup setup || ktap_finish
ktap_ok wrap_nop_map_fail wrap_nop_map_fail
ktap_ok wrap_nop_map_fail_bf_opt1 wrap_nop_map_fail on 1
ktap_ok wrap_nop_nec wrap_nop_nec
ktap_ok bf_layout_deferred bf_layout_deferred
for l in $SHORT_LENS; do
	ktap_ok "inline_short_$l" inline_short "$l"
done
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
