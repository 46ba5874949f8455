# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/testing/cxbell/bench/itrace (runs under vm-run, dash):
# sets up one benchmark row, prints the kernel's text symbols (gzip +
# base64 between @@ksyms markers: the host maps traced addresses with
# them), then keeps pktgen sending (60 B, clone_skb, the given burst, no
# end) while the host's gdb traces it, and stops when the host says so
# (it writes nothing: the guest is killed with the VM).
#
#   itrace-guest.sh ROW BURST
. /cxbell/lib.sh

ROW=${1:-cx3-db}
BURST=${2:-32}
SIM=1

no_ipv6
modprobe pktgen || exit 1
case $ROW in
dummy)
	modprobe dummy numdummies=0 2>/dev/null
	ip link add d0 type dummy && ip link set d0 up || exit 1
	IF=d0
	;;
cx3-*)
	cxb_load && cxb_new $SIM 1 || exit 1
	sim_engine $SIM inline || exit 1
	echo passthrough >"$CXB_DBG/cxbell_sim$SIM/iommu" || exit 1
	IF=$(cxb_netdev $SIM 0) || exit 1
	ethtool -L "$IF" combined 1 || exit 1
	bf=off opt=0 cb=0
	case $ROW in cx3-bf*) bf=on ;; esac
	case $ROW in *-opt1) opt=1 ;; *-opt3) opt=3 ;; esac
	case $ROW in *-inline) cb=464 ;; esac
	ethtool --set-priv-flags "$IF" blueflame $bf || exit 1
	echo $opt >"/sys/class/net/$IF/doorbell_opt" || exit 1
	ethtool --set-tunable "$IF" tx-copybreak $cb || exit 1
	ip link set "$IF" up || exit 1
	carrier() { [ "$(cat "/sys/class/net/$IF/carrier")" = 1 ]; }
	wait_until 10 carrier || exit 1
	;;
cx5|cx5-mpwqe|cx5-bf|cx4)
	SIM=5 gen=cx5
	[ "$ROW" = cx4 ] && SIM=4 gen=cx4
	cxb_load && cxb_new $SIM 1 $gen || exit 1
	sim_engine $SIM inline || exit 1
	echo passthrough >"$CXB_DBG/cxbell_sim$SIM/iommu" || exit 1
	IF=$(cxb_netdev $SIM 0) || exit 1
	ethtool -L "$IF" combined 1 || exit 1
	mpw=off
	[ "$ROW" = cx5-mpwqe ] && mpw=on
	# cx4 has no multi-packet WQEs: the flag is off and stays off
	[ $gen = cx4 ] ||
		ethtool --set-priv-flags "$IF" tx_mpwqe $mpw || exit 1
	[ "$ROW" = cx5-bf ] &&
		{ ethtool --set-priv-flags "$IF" blueflame on || exit 1; }
	ip link set "$IF" up || exit 1
	carrier() { [ "$(cat "/sys/class/net/$IF/carrier")" = 1 ]; }
	wait_until 10 carrier || exit 1
	;;
*) echo "itrace-guest: unknown row $ROW"; exit 2 ;;
esac

echo "@@ksyms-begin"
grep -E ' [tTwW] ' /proc/kallsyms | gzip -1 | base64
echo "@@ksyms-end"

pg=/proc/net/pktgen
pgset $pg/kpktgend_0 rem_device_all &&
pgset $pg/kpktgend_0 "add_device $IF" &&
pgset $pg/$IF "count 0" &&
pgset $pg/$IF "pkt_size 60" &&
pgset $pg/$IF "clone_skb 1000000" &&
pgset $pg/$IF "burst $BURST" &&
pgset $pg/$IF "delay 0" &&
pgset $pg/$IF "flag NO_TIMESTAMP" &&
pgset $pg/$IF "dst 198.18.0.42" &&
pgset $pg/$IF "dst_mac 02:00:00:00:00:02" || exit 1
pgset $pg/pgctrl start &
sleep 1
echo "@@itrace-ready"
sleep 100000
