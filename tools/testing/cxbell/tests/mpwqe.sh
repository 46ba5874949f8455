# SPDX-License-Identifier: GPL-2.0
#
# ConnectX-4+ generation (sim adapter "1 2 cx5"): mlx5 send queues and
# enhanced multi-packet WQEs, exact counts. pktgen sends COUNT 60-byte
# packets with burst B from port 0 to port 1, one TX queue, inline engine
# unless said. Session rules (Documentation/cxbell.rst): a session holds
# at most 30 packets (32 DS: ctrl, eth, 30 data segments) and closes when
# full or when the doorbell is due, so a burst of 32 makes two multi-packet
# WQEs (30 + 2). Only the WQE a doorbell names asks for a CQE, with or
# without MPWQE. With deltas of ethtool and sim counters:
#   peer rx_packets == tx_packets == COUNT (SENT: deferred engine)
#   tx_doorbells == sim doorbells == tx_cqes == COUNT / B
#   tx_mpwqe_pkts == COUNT, tx_mpwqe_blks == sim mpwqe_wqes == BLKS,
#   where BLKS = COUNT / B * ceil(B / 30)
#   MPWQE off: tx_mpwqe_* unchanged
#   tx_bounced == COUNT (inline engine; 60-byte frames go to the send
#   ring's bounce buffer, in a session or not)
#   violations == 0 and stranded == 0 (both ports, after 300 ms idle)
# and the PCIe model's descriptor bytes per packet drop with MPWQE on.
# The tx_mpwqe flag: on by default on cx5, not offered on cx3.
#
#   mpwqe.sh [COUNT]     COUNT defaults to 19200 (a multiple of 32)
. /cxbell/lib.sh

COUNT=${1:-19200}

ktap_plan 9
no_ipv6

setup()
{
	cxb_pktgen_pair cx5 || return 1
	eq "$(cxb_priv_flag "$p0" tx_mpwqe)" on "tx_mpwqe default" || return 1
	eq "$(cxb_priv_flag "$p0" blueflame)" off "blueflame on cx5" || return 1
}

counters()
{
	echo "tx $(cxb_stat "$p0" tx_packets)"
	echo "db $(cxb_stat "$p0" tx_doorbells)"
	echo "cq $(cxb_stat "$p0" tx_cqes)"
	echo "mb $(cxb_stat "$p0" tx_mpwqe_blks)"
	echo "mp $(cxb_stat "$p0" tx_mpwqe_pkts)"
	echo "bn $(cxb_stat "$p0" tx_bounced)"
	echo "mb0 $(cxb_stat "$p0" tx0_mpwqe_blks)"
	echo "rx $(cxb_stat "$p1" rx_packets)"
	echo "sdb $(sim_ctr 1 0 doorbells)"
	echo "smw $(sim_ctr 1 0 mpwqe_wqes)"
	echo "smp $(sim_ctr 1 0 mpwqe_pkts)"
	echo "desc $(sim_ctr 1 0 pcie_desc_read_bytes)"
	echo "v $(($(sim_ctr 1 0 violations) + $(sim_ctr 1 1 violations)))"
}

snap() { snap_new "$1" && snap_add "$1" "" counters; }

peer_rx_done()
{
	[ $(($(cxb_stat "$p1" rx_packets) - $(snap_get b rx))) -ge "$sent" ]
}

# run ENGINE BURST on|off
run()
{
	engine=$1 burst=$2 mpw=$3
	sim_engine 1 "$engine" || return 1
	ethtool --set-priv-flags "$p0" tx_mpwqe "$mpw" || return 1
	eq "$(cxb_priv_flag "$p0" tx_mpwqe)" "$mpw" "tx_mpwqe" || return 1
	snap b
	res=$(pktgen_run "$p0" "$COUNT" "$burst" "$mac" 60) || return 1
	sent=${res#* }
	wait_until 5 peer_rx_done
	sleep 0.3
	snap a
	tx=$(snap_d tx) db=$(snap_d db) cq=$(snap_d cq)
	mb=$(snap_d mb) mp=$(snap_d mp) rx=$(snap_d rx)
	mb0=$(snap_d mb0) bn=$(snap_d bn)
	sdb=$(snap_d sdb) smw=$(snap_d smw) smp=$(snap_d smp)
	v=$(snap_d v)
	desc=$(($(snap_d desc) * 100 / sent))
	stranded=$(($(sim_ctr 1 0 stranded) + $(sim_ctr 1 1 stranded)))
	ktap_diag "$engine burst $burst mpwqe $mpw: sent $sent tx $tx rx $rx" \
		"doorbells $db (sim $sdb) cqes $cq mpwqe_blks $mb (sim $smw)" \
		"mpwqe_pkts $mp (sim $smp) bounced $bn" \
		"desc bytes/pkt $((desc / 100)).$((desc % 100))"
	rc=0
	eq $rx "$sent" "peer rx_packets" || rc=1
	eq $tx "$sent" "tx_packets" || rc=1
	eq $sdb $db "sim doorbells vs tx_doorbells" || rc=1
	eq $smw $mb "sim mpwqe_wqes vs tx_mpwqe_blks" || rc=1
	eq $smp $mp "sim mpwqe_pkts vs tx_mpwqe_pkts" || rc=1
	eq $mb0 $mb "tx0_mpwqe_blks vs tx_mpwqe_blks" || rc=1
	eq $v 0 "violations" || rc=1
	eq $stranded 0 "stranded" || rc=1
	if [ "$mpw" = on ]; then
		eq $mp "$sent" "tx_mpwqe_pkts" || rc=1
	else
		eq $mp 0 "tx_mpwqe_pkts (off)" || rc=1
		eq $mb 0 "tx_mpwqe_blks (off)" || rc=1
	fi
	if [ "$engine" = inline ]; then
		eq "$sent" "$COUNT" "packets sent (inline)" || rc=1
		eq $db $((COUNT / burst)) "doorbells (inline)" || rc=1
		if [ "$mpw" = on ]; then
			blks=$((COUNT / burst * ((burst + 29) / 30)))
			eq $mb $blks "tx_mpwqe_blks (inline)" || rc=1
		fi
		eq $cq $((COUNT / burst)) "tx_cqes (inline)" || rc=1
		# every packet copied to the bounce buffer: a session's
		# packets in flight stay far below a ring's worth
		eq $bn "$sent" "tx_bounced (inline)" || rc=1
	else
		le $bn "$sent" "tx_bounced" || rc=1
	fi
	# (desc_saved: the last run at burst 32 with MPWQE on, and off)
	if [ "$burst" = 32 ]; then
		case $mpw in
		on) desc_32_on=$desc ;;
		off) desc_32_off=$desc ;;
		esac
	fi
	return $rc
}

# Descriptor bytes per packet at burst 32: MPWQE on reads under a third.
desc_saved()
{
	ktap_diag "desc bytes/pkt x100 at burst 32: off $desc_32_off on $desc_32_on"
	le $((desc_32_on * 3)) "$desc_32_off" "3 x desc bytes/pkt on vs off"
}

# cx3 does not offer the flag.
cx3_no_flag()
{
	cxb_new 2 1 || return 1
	_n=$(cxb_netdev 2 0) || return 1
	_f=$(ethtool --show-priv-flags "$_n")
	case $_f in
	*tx_mpwqe*) ktap_diag "cx3 offers tx_mpwqe: $_f"; return 1 ;;
	esac
	ethtool --set-priv-flags "$_n" tx_mpwqe on 2>/dev/null &&
		{ ktap_diag "cx3: tx_mpwqe on accepted"; return 1; }
	cxb_del 2
}

ktap_ok setup_cx5_adapter setup || ktap_finish
ktap_ok inline_burst_32_mpwqe_on run inline 32 on
ktap_ok inline_burst_32_mpwqe_off run inline 32 off
ktap_ok inline_burst_1_mpwqe_on run inline 1 on
ktap_ok inline_burst_64_mpwqe_on run inline 64 on
ktap_ok deferred_burst_32_mpwqe_on run deferred 32 on
ktap_ok desc_bytes_saved desc_saved
ktap_ok cx3_no_tx_mpwqe cx3_no_flag
ktap_ok teardown_dma_live_zero cxb_pktgen_teardown
ktap_finish
