# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the cxbell VM tests and demos (POSIX sh; in the guest
# /bin/sh is dash and the tools are busybox + iproute2 + ethtool).
# In the guest this file is /cxbell/lib.sh:  . /cxbell/lib.sh
#
# It loads the libraries of lib/, one per topic, each with an index of
# its functions at its top:
#   lib/ktap.sh     KTAP output (ktap_plan, ktap_ok, ...), the kernel log
#                   check (CXB_BAD), assertions (eq, le), wait_until, time
#   lib/adapter.sh  modules, sim adapters and netdevs, driver and sim
#                   counters (cxb_stat, sim_ctr, cxb_counters, ...),
#                   ethtool getters, cxb_write, XDP programs
#   lib/snap.sh     counter snapshots in files (snap_new, snap_add,
#                   snap_get, snap_d)
#   lib/pktgen.sh   pktgen runs on kpktgend_0
#   lib/pair.sh     the pair fixture: two cabled ports of one sim adapter
#                   (cxb_pktgen_pair [GEN [ID]]), network namespaces and
#                   TCP over it, pair_snap / pair_d
#   lib/toggle.sh   togglers: settings flipped while traffic runs
#   lib/cx3.sh      the QEMU ConnectX-3 model and the stock mlx4 drivers
#   lib/cleanup.sh  guest state put back at exit (ktap_plan arms it:
#                   cxb_sysctl, cxb_set, cxb_on_exit, ...), and
#                   cxb_clean_guest, which guest/suite.sh runs between
#                   tests too
#
# CXB_LIB: the directory of those libraries (default /cxbell/lib, where
# vm-run puts them; a script on a host sets it, e.g. scripts/pktgen-hw.sh).

# iproute2, also if a script runs under busybox sh (which would run its
# own "ip" applet whatever PATH says).
ip() { /usr/sbin/ip "$@"; }

CXB_LIB=${CXB_LIB:-/cxbell/lib}
for _cxb_l in ktap adapter snap pktgen pair toggle cx3 cleanup; do
	# shellcheck source=/dev/null
	. "$CXB_LIB/$_cxb_l.sh"
done
unset _cxb_l
