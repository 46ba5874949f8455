# SPDX-License-Identifier: GPL-2.0
#
# Receive side scaling: the port hashes each frame with the Toeplitz
# function and the key the driver programmed (backend op set_rss, seen in
# the sim's debugfs port<P>/rss), picks the indirection table entry
# hash & 127 and the queue that entry names; the CQE carries the hash and
# skb->hash gets it (NETIF_F_RXHASH). ethtool -x shows key and table,
# ethtool -X changes them.
#
# Adapter 1 (cx3): A = port 0 (one channel) sends flows of known
# addresses and ports (rssflow send: NF flows, C frames each, source
# ports SPORT0 + i * i, one destination port) to B = port 1 (4 channels).
# rssflow hash predicts each flow's Toeplitz hash from the key ethtool -x
# shows; with the table ethtool -x shows that gives each of B's queues
# an exact count, which every case checks against B's rxQ_packets deltas
# (and the sum against B's sim rx_frames):
#   setup: the sim has the key and the table ethtool -x shows, the
#       default table is 0 1 2 3 0 1 ...
#   toeplitz_known_answer: rssflow hash gives the 4 hashes of the
#       Microsoft RSS verification suite (IPv4/IPv6, with/without ports)
#   default_udp4: UDP/IPv4 flows spread as predicted
#   skb_hash_udp4: each frame's skb->hash (tracepoint
#       net:napi_gro_receive_entry) is its flow's predicted hash, an L4
#       hash (l4_hash=1), on the predicted queue (queue_mapping - 1)
#   skb_hash_udp6: the same for UDP/IPv6 flows
#   ip_only: IPv4 protocol 253 frames (no ports the device knows) hash
#       over the addresses only: one queue, an L3 hash (l4_hash=0)
#   table_equal_2: ethtool -X equal 2: the table is 0 1 0 1 ..., the sim
#       has it, exactly the flows of queues 2 and 3 moved (to 0 and 1)
#   table_weight: ethtool -X weight 1 0 0 3: queue 1 and 2 get nothing,
#       counts as predicted
#   key_change: ethtool -X hkey K2: the sim has K2, counts as predicted
#       with K2
#   rxhash_off: ethtool -K rxhash off: skb->hash 0, queues unchanged;
#       on again: the hash is back
#   bad_input: a table naming queue 4 of 4 (equal 5: EINVAL), keys of
#       39 and 41 bytes (refused by ethtool itself), hfunc xor
#       (EOPNOTSUPP, one log line with the reason): key and table
#       unchanged in ethtool -x and the sim
#   channels: with a table of ethtool -X, ethtool -L combined 2 is
#       refused while it names queue 3; after ethtool -X default the
#       table follows the channel count (0 1 0 1 ...) in the sim too
#   closed: a closed port has no RSS setting in the sim ("none"); open
#       again it has ethtool's key and table
#   xps: each of B's send queues maps (XPS, queues/tx-N/xps_cpus) to the
#       CPU of its channel's vector, N % CPUs on the guest (one node), as
#       with 4 channels so after ethtool -L combined 2 and back
# Adapter 2 (cx5): default_udp4, skb_hash_udp4, skb_hash_udp6 and ip_only
# as on cx3: the hash and its type come from the mlx5 CQE's
# rss_hash_result and rss_hash_type.
# Last: no sim violations, no DMA mapping left after teardown.
. /cxbell/lib.sh

ktap_plan 21
no_ipv6

NF=64
C=3
SPORT0=10000
DPORT=4791
SRC4=192.0.2.1
DST4=198.51.100.7
SRC6=2001:db8::1
DST6=2001:db8:1::7
K2=6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa
T=/sys/kernel/tracing

# pair ID GEN: adapter ID of GEN, A (port 0, one channel) and B (port 1,
# 4 channels) up; sets AD, A, B, BMAC
pair()
{
	cxb_new "$1" 2 "$2" || return 1
	AD=$1
	A=$(cxb_netdev "$1" 0) && B=$(cxb_netdev "$1" 1) || return 1
	ethtool -L "$A" combined 1 && ethtool -L "$B" combined 4 || return 1
	ip link set "$A" up && ip link set "$B" up || return 1
	a_up() { [ "$(cat "/sys/class/net/$A/carrier")" = 1 ]; }
	wait_until 5 a_up || { ktap_diag "no carrier on $A"; return 1; }
	BMAC=$(cat "/sys/class/net/$B/address")
}

# ethtool -x of B: its key (xx:xx:...), its table (one line of numbers)
ekey() { ethtool -x "$B" | awk 'k { print; exit } /^RSS hash key:/ { k = 1 }'; }
etable()
{
	ethtool -x "$B" | awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) printf "%s ", $i }
		END { print "" }'
}
# the sim's view of B's port
simrss() { cat "$CXB_DBG/cxbell_sim$AD/port1/rss"; }
simkey() { simrss | sed -n 's/^key //p'; }
simtable() { simrss | sed -n 's/^table //p'; }

# sim_has: the sim has the key and table ethtool -x shows
sim_has()
{
	_ek=$(ekey | tr -d ':')
	eq "$(simkey)" "$_ek" "sim key" || return 1
	eq "$(simtable) " "$(etable)" "sim table"
}

# predict PROTO SRC DST: expected frames per queue of B ("q0 q1 q2 q3"),
# from ethtool -x's key and table; the hashes stay in /tmp/rss.hash
predict()
{
	rssflow hash "$(ekey)" "$2" "$3" "$1" "$SPORT0" "$DPORT" "$NF" >/tmp/rss.hash ||
		return 1
	_tab=$(etable)
	awk -v t="$_tab" -v c="$C" '
		BEGIN { n = split(t, tab, " ") }
		{ q[tab[($3 % 128) + 1]] += c }
		END { printf "%d %d %d %d\n", q[0], q[1], q[2], q[3] }' /tmp/rss.hash
}

qcounts()
{
	for _q in 0 1 2 3; do
		_v=$(cxb_stat "$B" "rx${_q}_packets" 2>/dev/null) || _v=0
		printf '%s ' "$_v"
	done
}

# flows PROTO SRC DST: send the NF x C frames A -> B, settled; sets got
# ("q0 q1 q2 q3" deltas of B) and dlv (B's sim rx_frames delta)
flows()
{
	_q0=$(qcounts) _f0=$(sim_ctr "$AD" 1 rx_frames)
	_out=$(rssflow send "$A" "$BMAC" "$2" "$3" "$1" "$SPORT0" "$DPORT" "$NF" "$C") ||
		{ ktap_diag "rssflow: $_out"; return 1; }
	_all=$((NF * C))
	_sum() { set -- $(qcounts); echo $(($1 + $2 + $3 + $4)); }
	_s0=$(echo "$_q0" | awk '{ print $1 + $2 + $3 + $4 }')
	_arrived() { [ $(($(_sum) - _s0)) -ge "$_all" ]; }
	wait_until 5 _arrived
	sleep 0.2
	got=$(echo "$_q0 $(qcounts)" | awk '{ printf "%d %d %d %d\n", $5 - $1, $6 - $2, $7 - $3, $8 - $4 }')
	dlv=$(($(sim_ctr "$AD" 1 rx_frames) - _f0))
}

# spread PROTO SRC DST WHAT: flows land on B's queues as predicted
spread()
{
	_want=$(predict "$1" "$2" "$3") || return 1
	flows "$1" "$2" "$3" || return 1
	ktap_diag "$4: per queue $got"
	eq "$dlv" $((NF * C)) "$4: delivered" && eq "$got" "$_want" "$4: per queue"
}

setup()
{
	cxb_load && pair 1 cx3 || return 1
	ktap_diag "A $A, B $B ($BMAC)"
	[ -e "$T/trace" ] || mount -t tracefs nodev "$T" || return 1
	sim_has || { ktap_diag "$(simrss)"; return 1; }
	eq "$(etable | cut -d' ' -f1-9)" "0 1 2 3 0 1 2 3 0" "default table" &&
		eq "$(etable | wc -w)" 128 "table entries" &&
		ethtool -x "$B" | grep -q 'toeplitz: on'
}

# The Microsoft RSS verification suite's first flows (its key is K2)
known_answer()
{
	eq "$(rssflow hash "$K2" 66.9.149.187 161.142.100.80 udp 2794 1766 1 | cut -d" " -f2)" 51ccc178 \
		"IPv4 with ports" &&
	eq "$(rssflow hash "$K2" 66.9.149.187 161.142.100.80 ip 2794 1766 1 | cut -d" " -f2)" 323e8fc2 \
		"IPv4" &&
	eq "$(rssflow hash "$K2" 3ffe:2501:200:1fff::7 3ffe:2501:200:3::1 udp 2794 1766 1 | cut -d" " -f2)" \
		40207d3d "IPv6 with ports" &&
	eq "$(rssflow hash "$K2" 3ffe:2501:200:1fff::7 3ffe:2501:200:3::1 ip 2794 1766 1 | cut -d" " -f2)" \
		2cc18cd5 "IPv6"
}

# trace_flows PROTO SRC DST: send the flows with B's
# napi_gro_receive_entry events traced; /tmp/rss.trace gets one line
# "QUEUE HASH L4" per frame, sorted
trace_flows()
{
	cxb_trace_start net/napi_gro_receive_entry "name == \"$B\"" || return 1
	flows "$1" "$2" "$3"
	_rc=$?
	cxb_trace_stop net/napi_gro_receive_entry
	sed -n 's/.* queue_mapping=\([0-9]*\) .* hash=0x\([0-9a-f]*\) l4_hash=\([01]\) .*/\1 \2 \3/p' \
		"$T/trace" | awk '{ print $1 - 1, $2, $3 }' | sort >/tmp/rss.trace
	return $_rc
}

# skb_hash PROTO SRC DST L4 [HASHOFF]: each frame's skb->hash is its
# flow's predicted hash (0 with HASHOFF), with l4_hash L4, on the
# predicted queue
skb_hash()
{
	predict "$1" "$2" "$3" >/dev/null || return 1
	_tab=$(etable)
	awk -v t="$_tab" -v c="$C" -v l4="$4" -v off="${5:-0}" '
		BEGIN { split(t, tab, " ") }
		{ for (i = 0; i < c; i++)
			print tab[($3 % 128) + 1], off ? "00000000" : $2, off ? 0 : l4 }' \
		/tmp/rss.hash | sort >/tmp/rss.want
	trace_flows "$1" "$2" "$3" || return 1
	eq "$(wc -l </tmp/rss.trace)" $((NF * C)) "frames traced" || return 1
	cmp -s /tmp/rss.want /tmp/rss.trace || {
		ktap_diag "want/got: $(diff /tmp/rss.want /tmp/rss.trace | head -n 6 | tr '\n' ' ')"
		return 1
	}
}

ip_only()
{
	_want=$(predict ip "$SRC4" "$DST4") || return 1
	# one flow as far as the device knows: every frame on one queue
	eq "$(echo "$_want" | tr ' ' '\n' | grep -c "^$((NF * C))\$")" 1 "one queue" ||
		return 1
	spread ip "$SRC4" "$DST4" "ip only" && skb_hash ip "$SRC4" "$DST4" 0
}

table_equal_2()
{
	_before=$(predict udp "$SRC4" "$DST4")
	ethtool -X "$B" equal 2 || return 1
	eq "$(etable | cut -d' ' -f1-8)" "0 1 0 1 0 1 0 1" "table" && sim_has || return 1
	_after=$(predict udp "$SRC4" "$DST4")
	# exactly the flows of queues 2 and 3 moved: to 0 and 1
	set -- $_before
	_b0=$1 _b1=$2 _b2=$3 _b3=$4
	set -- $_after
	ktap_diag "before $_before, after $_after"
	eq $(($1 + $2)) $((NF * C)) "all on 0 and 1" &&
		eq $(($1 - _b0 + $2 - _b1)) $((_b2 + _b3)) "moved" || return 1
	spread udp "$SRC4" "$DST4" "equal 2"
}

table_weight()
{
	ethtool -X "$B" weight 1 0 0 3 || return 1
	sim_has || return 1
	_w=$(predict udp "$SRC4" "$DST4")
	set -- $_w
	eq "$2 $3" "0 0" "queues 1 and 2 unused" || return 1
	spread udp "$SRC4" "$DST4" "weight 1 0 0 3"
}

key_change()
{
	ethtool -X "$B" hkey "$K2" || return 1
	eq "$(ekey)" "$K2" "ethtool -x key" && sim_has || return 1
	spread udp "$SRC4" "$DST4" "key K2" && skb_hash udp "$SRC4" "$DST4" 1
}

rxhash_off()
{
	ethtool -K "$B" rxhash off || return 1
	skb_hash udp "$SRC4" "$DST4" 1 off || return 1
	ethtool -K "$B" rxhash on || return 1
	skb_hash udp "$SRC4" "$DST4" 1
}

# refused WHY ARGS...: ethtool -X B ARGS fails, its message has WHY;
# key and table unchanged
refused()
{
	_why=$1
	shift
	_k=$(ekey) _t=$(etable)
	_o=$(ethtool -X "$B" "$@" 2>&1) && { ktap_diag "accepted: $*"; return 1; }
	ktap_diag "ethtool -X $*: $(echo "$_o" | tr '\n' ' ')"
	echo "$_o" | grep -q "$_why" || return 1
	eq "$(ekey)" "$_k" "key after $*" && eq "$(etable)" "$_t" "table after $*" &&
		sim_has
}

bad_input()
{
	_short=$(echo "$K2" | cut -d: -f1-39)
	# the ethtool core refuses a queue beyond ETHTOOL_GRXRINGS, the
	# ethtool tool a key of another size than get_rxfh_key_size; the
	# driver another hash function, with its reason in the log (no
	# extack on 6.1)
	refused "Invalid argument" equal 5 &&
		refused "Key is too short for device (39 < 40)" hkey "$_short" &&
		refused "Key is too long for device (41 > 40)" hkey "$K2:01" &&
		refused "Operation not supported" hfunc xor || return 1
	eq "$(dmesg | grep -c "$B: RSS: only the Toeplitz hash function (toeplitz) (-95)")" 1 \
		"log lines" || return 1
	spread udp "$SRC4" "$DST4" "after refusals"
}

channels()
{
	ethtool -X "$B" equal 4 || return 1
	_o=$(ethtool -L "$B" combined 2 2>&1) && {
		ktap_diag "combined 2 accepted with queue 3 in the table"; return 1; }
	eq "$(ethtool -l "$B" | awk '/^Combined/ { v = $2 } END { print v }')" 4 \
		"channels" || return 1
	ethtool -X "$B" default && ethtool -L "$B" combined 2 || return 1
	eq "$(etable | cut -d' ' -f1-8)" "0 1 0 1 0 1 0 1" "default table, 2 channels" &&
		sim_has || return 1
	spread udp "$SRC4" "$DST4" "2 channels" || return 1
	ethtool -L "$B" combined 4 &&
		eq "$(etable | cut -d' ' -f1-8)" "0 1 2 3 0 1 2 3" "default table, 4 channels" &&
		sim_has
}

closed()
{
	ip link set "$B" down || return 1
	eq "$(simrss)" none "rss of a closed port" || return 1
	ip link set "$B" up || return 1
	sim_has && spread udp "$SRC4" "$DST4" "reopened"
}

# xps_is NQ: tx-0..NQ-1 of B each map to CPU N % CPUs
xps_is()
{
	_n=$(nproc) _i=0 _want= _got=
	while [ $_i -lt "$1" ]; do
		_want="$_want$(printf '%x' $((1 << (_i % _n)))) "
		_got="$_got$(sed 's/^[0,]*//' "/sys/class/net/$B/queues/tx-$_i/xps_cpus") "
		_i=$((_i + 1))
	done
	eq "$_got" "$_want" "xps_cpus of tx-0..$(($1 - 1))"
}

xps()
{
	xps_is 4 && ethtool -L "$B" combined 2 && xps_is 2 &&
		ethtool -L "$B" combined 4 && xps_is 4
}

cx5_pair() { pair 2 cx5 && sim_has; }

teardown()
{
	cxb_del 2 && cxb_del 1 || return 1
	dma_live_zero "dma_live after teardown" || return 1
	cxb_unload
}

ktap_ok setup setup || ktap_finish
ktap_ok toeplitz_known_answer known_answer
ktap_ok default_udp4 spread udp "$SRC4" "$DST4" "default udp4"
ktap_ok skb_hash_udp4 skb_hash udp "$SRC4" "$DST4" 1
ktap_ok default_udp6 spread udp "$SRC6" "$DST6" "default udp6"
ktap_ok skb_hash_udp6 skb_hash udp "$SRC6" "$DST6" 1
ktap_ok ip_only_l3_hash ip_only
ktap_ok table_equal_2 table_equal_2
ktap_ok table_weight table_weight
ktap_ok key_change key_change
ktap_ok rxhash_off rxhash_off
ktap_ok bad_input_refused bad_input
ktap_ok channels_follow_table channels
ktap_ok closed_port_no_rss closed
ktap_ok xps_channel_cpu xps
ktap_ok cx5_setup cx5_pair
ktap_ok cx5_default_udp4 spread udp "$SRC4" "$DST4" "cx5 default udp4"
ktap_ok cx5_skb_hash_udp4 skb_hash udp "$SRC4" "$DST4" 1
ktap_ok cx5_skb_hash_udp6 skb_hash udp "$SRC6" "$DST6" 1
ktap_ok cx5_ip_only_l3_hash ip_only
ktap_ok sim_no_violations_teardown eval 'sim_no_violations 1 2 && teardown'
ktap_finish
