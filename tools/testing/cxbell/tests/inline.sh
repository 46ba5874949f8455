# SPDX-License-Identifier: GPL-2.0
#
# Inline send (tx-copybreak, Documentation/cxbell.rst "Inline"): pktgen
# sends COUNT UDP packets of SIZE bytes (burst 8, inline sim engine,
# BlueFlame on, doorbell_opt 0) from port 0 to port 1 of sim adapter 1 for
#   tx-copybreak 464: SIZE 60, 224, 225, 464 (inline), 465, 1500 (not)
#   tx-copybreak 0:   SIZE 60, 64, 65, 128, 129, 1500 (nothing inline)
#   tx-copybreak 60 / 59: SIZE 60                     (the bound itself)
# pktgen flag UDPCSUM with TX checksum offload off on port 0, so the CPU
# computes every UDP checksum over the original skb and the sim verifies it
# over the frame it built from the WQE (inline segments or DMA): a payload
# byte lost or moved shows up as rx_csum_none at the peer. Per case (deltas):
#   sent == COUNT == peer rx_packets == peer rx_csum_unnecessary,
#   peer rx_csum_none == 0, peer rx_bytes == COUNT * SIZE
#   tx_inline == COUNT if SIZE <= tx-copybreak, else 0; sim inline_wqes
#   == tx_inline
#   tx_bounced == COUNT if not inline and SIZE <= 128 (copied into the
#   ring's bounce buffer: one or two 64-byte blocks, the checksum sees a
#   byte copied wrong), else 0
#   one ring per burst (doorbells + blueflame == COUNT / 8), by BlueFlame
#   iff the WQE fits one BF buffer (inline: 44 bytes in the first TXBB, 60
#   in each further one; <= 4 TXBBs, so <= 224 bytes), else by doorbell
#   sim doorbells == tx_doorbells, bf_writes == tx_blueflame, no
#   bf_ineligible, bf_mismatch, violations, stranded
# Then a 16 MiB TCP transfer across the cable (namespaces a and b, as
# link.sh, offloads on) with tx-copybreak 464 on both ports: sha256
# matches, tx_inline > 0 on both ports (ACKs, handshake), sim inline_wqes
# == tx_inline, no violations or stranded WQEs.
#
#   inline.sh [COUNT]     COUNT defaults to 4000 (a multiple of 8)
. /cxbell/lib.sh

COUNT=${1:-4000}
BURST=8
CASES="464:60 464:224 464:225 464:464 464:465 464:1500 0:60 0:64 0:65 0:128 0:129 0:1500
	60:60 59:60"
TCP_SIZE=$((16 * 1024 * 1024))

ktap_plan $((1 + 14 + 3 + 1))
no_ipv6

setup()
{
	cxb_pktgen_pair || return 1
	# The CPU computes the UDP checksum (pktgen UDPCSUM without offload).
	ethtool -K "$p0" tx off >/dev/null || { ktap_diag "ethtool -K tx off failed"; return 1; }
	sim_engine 1 inline
}

# TXBBs of the WQE of an inline packet of N bytes.
inline_txbbs()
{
	if [ "$1" -le 44 ]; then
		echo 1
	else
		echo $((1 + ($1 - 44 + 59) / 60))
	fi
}

run()
{
	cb=$1 size=$2
	ethtool --set-tunable "$p0" tx-copybreak "$cb" || {
		ktap_diag "set-tunable tx-copybreak $cb failed"; return 1; }
	eq "$(cxb_copybreak "$p0")" "$cb" "tx-copybreak read back" || return 1
	pair_snap b
	res=$(CXB_PKTGEN_FLAGS=UDPCSUM pktgen_run "$p0" "$COUNT" "$BURST" "$mac" "$size") ||
		return 1
	sent=${res#* }
	wait_until 5 pair_rx_done "$sent"
	sleep 0.3
	pair_snap a
	inl=$(pair_d d_tx_inline) sinl=$(pair_d s0_inline_wqes) rx=$(pair_d r_rx_packets)
	bnc=$(pair_d d_tx_bounced)
	cu=$(pair_d r_rx_csum_unnecessary) cn=$(pair_d r_rx_csum_none) rb=$(pair_d r_rx_bytes)
	db=$(pair_d d_tx_doorbells) bf=$(pair_d d_tx_blueflame) sdb=$(pair_d s0_doorbells)
	sbf=$(pair_d s0_bf_writes)
	ktap_diag "tx-copybreak $cb, $size bytes: sent $sent, peer rx $rx" \
		"(csum_unnecessary $cu, csum_none $cn, $rb bytes, sim rx_dropped" \
		"$(pair_d s1_rx_dropped)); tx_inline $inl (sim $sinl), tx_bounced $bnc;" \
		"doorbells $db" \
		"(sim $sdb) blueflame $bf (sim $sbf)"
	if [ "$size" -le "$cb" ]; then
		want_inl=$sent
		txbbs=$(inline_txbbs "$size")
	else
		want_inl=0
		txbbs=1
	fi
	want_bnc=0
	[ "$want_inl" = 0 ] && [ "$size" -le 128 ] && want_bnc=$sent
	# A queue stop (the PAUSEd peer holds completions back) cuts a burst
	# short with a doorbell of its own and makes pktgen overshoot COUNT.
	st=$(pair_d d_tx_doorbell_on_stop) qs=$(pair_d d_tx_queue_stopped)
	rings=$((sent - $(pair_d d_tx_xmit_more)))
	if [ "$txbbs" -le 4 ]; then
		want_bf=$rings
	else
		want_bf=0
	fi
	rc=0
	if [ "$qs" -eq 0 ]; then
		eq "$sent" "$COUNT" "sent (no queue stop)" || rc=1
		eq "$rings" $((COUNT / BURST)) "doorbells + blueflame (no queue stop)" || rc=1
	else
		ktap_diag "queue stopped $qs times, $st doorbells on stop"
		le $((rings - st)) $((COUNT / BURST)) "doorbells + blueflame - on_stop" || rc=1
	fi
	eq "$rx" "$sent" "peer rx_packets" || rc=1
	eq "$cu" "$sent" "peer rx_csum_unnecessary (UDP checksum verified)" || rc=1
	eq "$cn" 0 "peer rx_csum_none" || rc=1
	eq "$rb" $((sent * size)) "peer rx_bytes" || rc=1
	eq "$inl" "$want_inl" "tx_inline" || rc=1
	eq "$sinl" "$inl" "sim inline_wqes vs tx_inline" || rc=1
	eq "$bnc" "$want_bnc" "tx_bounced" || rc=1
	eq "$sdb" "$db" "sim doorbells vs tx_doorbells" || rc=1
	eq "$sbf" "$bf" "sim bf_writes vs tx_blueflame" || rc=1
	eq $((db + bf)) "$rings" "doorbells + blueflame vs sent - xmit_more" || rc=1
	eq "$bf" "$want_bf" "tx_blueflame (WQE of $txbbs TXBBs)" || rc=1
	pair_sim_zero bf_ineligible bf_mismatch violations stranded || rc=1
	return $rc
}

netns_setup()
{
	cxb_netns_pair || return 1
	ip netns exec a ethtool -K "$p0" tx on >/dev/null || return 1
}

copybreak_464_both()
{
	ip netns exec a ethtool --set-tunable "$p0" tx-copybreak 464 &&
	ip netns exec b ethtool --set-tunable "$p1" tx-copybreak 464 || return 1
	eq "$(ip netns exec a ethtool --get-tunable "$p0" tx-copybreak)" \
		"tx-copybreak: 464" "$p0 tx-copybreak" &&
	eq "$(ip netns exec b ethtool --get-tunable "$p1" tx-copybreak)" \
		"tx-copybreak: 464" "$p1 tx-copybreak"
}

tcp_transfer()
{
	head -c $TCP_SIZE /dev/urandom >/tmp/src || return 1
	want=$(sha256sum </tmp/src | cut -d' ' -f1)
	pair_snap_settled b a b
	tcp_ab /tmp/src
	pair_snap_settled a a b
	ktap_diag "16 MiB in $tcp_secs s;" \
		"$p0 tx_inline $(pair_d d_tx_inline) (sim $(pair_d s0_inline_wqes)) of" \
		"$(pair_d d_tx_packets); $p1 tx_inline $(pair_d r_tx_inline)" \
		"(sim $(pair_d s1_inline_wqes)) of $(pair_d r_tx_packets)"
	rc=0
	tcp_ab_ok "$want" || rc=1
	[ "$(pair_d d_tx_inline)" -gt 0 ] || { ktap_diag "$p0 tx_inline: 0, want > 0"; rc=1; }
	[ "$(pair_d r_tx_inline)" -gt 0 ] || { ktap_diag "$p1 tx_inline: 0, want > 0"; rc=1; }
	eq "$(pair_d s0_inline_wqes)" "$(pair_d d_tx_inline)" \
		"sim port0 inline_wqes vs tx_inline" || rc=1
	eq "$(pair_d s1_inline_wqes)" "$(pair_d r_tx_inline)" \
		"sim port1 inline_wqes vs tx_inline" || rc=1
	pair_sim_zero bf_ineligible bf_mismatch violations stranded || rc=1
	return $rc
}

ktap_ok setup_adapter setup || ktap_finish
for c in $CASES; do
	ktap_ok "copybreak${c%%:*}_udp${c#*:}" run "${c%%:*}" "${c#*:}"
done
ktap_ok netns_setup netns_setup || ktap_finish
ktap_ok tcp_copybreak464_both_ports copybreak_464_both
ktap_ok tcp_16MiB_sha256_inline tcp_transfer
ktap_ok teardown_dma_live_zero cxb_netns_teardown
ktap_finish
