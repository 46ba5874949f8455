# SPDX-License-Identifier: GPL-2.0
#
# The QEMU ConnectX-3 model's rows of the benchmark (vm-run --cx3), for
# the guest scripts bench/guest-bench.sh and bench/short-cx3.sh, which
# source it (the host passes it in as /cxbell-run/cx3-setup.sh):
#
#   setup_cx3 DRIVER   mlx4_core and the Ethernet driver DRIVER (mlx4_en
#                      or cxbell_mlx4) on the model's two ports, both up
#                      with carrier, 802.3x pause off where the driver
#                      lets it be set; sets CX3_P1, CX3_P2 (port 1 and 2's
#                      netdevs), PAUSE (off, or fixed-on: no ethtool -A),
#                      CX3_DRV; on failure returns 1 with WHY saying what
#   cx3_unload         remove cxbell_mlx4, mlx4_en, mlx4_core
#   cx3_rx_done        the frames sent since _tx0/_rx0 (the model's
#                      tx_frames, rx_frames + rx_dropped) all arrived or
#                      were dropped
#
# cxbell_mlx4 is loaded as README's "On a ConnectX host" says: its
# modprobe.d file (contrib/modprobe/cxbell-mlx4.conf, passed in as
# /etc/modprobe.d/cxbell-mlx4.conf) and kmod's modprobe (the initramfs
# carries /usr/bin/kmod), also as the kernel's module helper, as
# tests/cx3-cxbell.sh does.

# (the sourcing script reads PAUSE and WHY, and sets _tx0 and _rx0)
# shellcheck disable=SC2034,SC2154
CX3_DRV='' CX3_P1='' CX3_P2='' WHY='' PAUSE=''

# The QEMU ConnectX-3 model's two ports, driven by mlx4_core and the
# Ethernet driver $1: mlx4_en or cxbell_mlx4. One driver at a time: the
# other one's modules are removed first. On failure WHY says what.
cx3_loaded() { [ -d "/sys/module/$1" ]; }
# The netdevs of the model's ports, port 1 first: mlx4_en's are under the
# PCI function, cxbell_mlx4's under its auxiliary devices
# (cxbell_mlx4.port.N, README), by dev_port then N.
cx3_ports()
{
	case $1 in
	mlx4_en) cx3_netdevs ;;
	*)
		for _a in /sys/bus/auxiliary/devices/cxbell_mlx4.port.*; do
			for _n in "$_a"/net/*; do
				[ -e "$_n" ] &&
					echo "$(cat "$_n/dev_port") ${_a##*.} ${_n##*/}"
			done
		done | sort -n -k1,1 -k2,2 | cut -d' ' -f3
		;;
	esac
}
# shellcheck disable=SC2046
cx3_two_ports() { set -- $(cx3_ports "$_drv"); [ $# = 2 ]; }
cx3_carriers()
{
	for _p in "$CX3_P1" "$CX3_P2"; do
		[ "$(cat "/sys/class/net/$_p/carrier" 2>/dev/null)" = 1 ] || return 1
	done
}

# kmod's modprobe, as the kernel's module helper and for the loads: the
# README's modprobe.d file needs it (install, softdep; busybox's modprobe
# reads only options, aliases and blacklists, and a blacklist does not
# stop a load by name, which is how mlx4_core asks for mlx4_en). kmod
# picks its personality from argv[0].
KMOD_MODPROBE=/tmp/kmod/modprobe
cx3_kmod()
{
	[ -x $KMOD_MODPROBE ] && return 0
	[ -x /usr/bin/kmod ] && mkdir -p /tmp/kmod &&
		ln -sf /usr/bin/kmod $KMOD_MODPROBE
}

cx3_unload()
{
	for _m in cxbell_mlx4 mlx4_en mlx4_core; do
		if cx3_loaded $_m; then
			rmmod $_m || { WHY="rmmod $_m failed"; return 1; }
		fi
	done
	CX3_DRV='' CX3_P1='' CX3_P2=''
}

setup_cx3()
{
	_drv=$1 _want=$1
	[ "$_drv" = cxbell_mlx4 ] && _want=cxbell
	[ "$CX3_DRV" = "$_drv" ] && return 0
	[ -n "$(cx3_pci)" ] ||
		{ WHY="no ConnectX-3 (15b3:1003) function: not vm-run --cx3"; return 1; }
	cx3_unload || return 1
	case $_drv in
	mlx4_en)
		# as cx3-stock.sh: mlx4_core asks for mlx4_en itself
		# (request_module_nowait); modprobe it too, so that its
		# init has run
		modprobe mlx4_core && modprobe mlx4_en ||
			{ WHY="modprobe mlx4_core mlx4_en failed"; return 1; }
		;;
	cxbell_mlx4)
		[ -r /etc/modprobe.d/cxbell-mlx4.conf ] ||
			{ WHY="no /etc/modprobe.d/cxbell-mlx4.conf (from bench/run)"; return 1; }
		cx3_kmod ||
			{ WHY="no /usr/bin/kmod in the guest"; return 1; }
		echo $KMOD_MODPROBE >/proc/sys/kernel/modprobe || return 1
		# README: "modprobe mlx4_core  # the softdep loads
		# cxbell_mlx4, cxbell"
		$KMOD_MODPROBE mlx4_core ||
			{ WHY="modprobe mlx4_core (kmod, cxbell-mlx4.conf) failed"; return 1; }
		wait_until 10 cx3_loaded cxbell_mlx4 ||
			{ WHY="the softdep did not load cxbell_mlx4"; return 1; }
		;;
	*) WHY="unknown ConnectX-3 driver $_drv"; return 1 ;;
	esac
	if ! wait_until 20 cx3_two_ports; then
		WHY="$_drv brought up $(cx3_ports "$_drv" | wc -l) of the model's 2 ports"
		dmesg | grep -aE 'mlx4|cxbell' | tail -n 8 | sed 's/^/guest-bench:   /'
		return 1
	fi
	# shellcheck disable=SC2046
	set -- $(cx3_ports "$_drv")
	CX3_P1=$1 CX3_P2=$2
	for _p in "$CX3_P1" "$CX3_P2"; do
		_d=$(ethtool -i "$_p" | sed -n 's/^driver: //p')
		[ "$_d" = "$_want" ] ||
			{ WHY="$_p is driven by '$_d', not $_want"; return 1; }
		ip link set "$_p" up || { WHY="ip link set $_p up failed"; return 1; }
	done
	wait_until 10 cx3_carriers ||
		{ WHY="no carrier on $CX3_P1 / $CX3_P2 ($_drv)"; return 1; }
	# 802.3x pause off on both ports, both directions (as cx3-stock.sh's
	# pktgen cases): a receiver out of buffers then drops (the model's
	# rx_dropped) instead of pausing the sender, so the TX queue never
	# stops and every burst ends in exactly one ring. With mlx4_en's
	# default (pause on) a slow receiver would hold the sender: the
	# queue stops, bursts are cut, and the doorbell count and the time
	# depend on the receiver's pace. Both drivers take ethtool -A
	# (cxbell through its backend's pause operation); a driver without
	# pause parameters would run with its fixed setting: PAUSE says
	# which, and the model's tx_paused says whether it held the sender.
	PAUSE=off
	for _p in "$CX3_P1" "$CX3_P2"; do
		if ! ethtool -a "$_p" >/dev/null 2>&1; then
			PAUSE=fixed-on
			continue
		fi
		ethtool -A "$_p" rx off tx off 2>/dev/null
		[ "$(ethtool -a "$_p" | awk '/^RX:/ { print $2 }')" = off ] &&
		[ "$(ethtool -a "$_p" | awk '/^TX:/ { print $2 }')" = off ] ||
			{ WHY="cannot turn 802.3x pause off on $_p"; return 1; }
	done
	CX3_DRV=$_drv
}

# The frames of the last run all arrived at port 2 or were dropped by the
# model (it delivers them to port 2's receive queue, which the driver's
# NAPI drains in the guest).
cx3_rx_done()
{
	[ $(($(cx3stat rx_frames) + $(cx3stat rx_dropped) - _rx0)) -ge \
	  $(($(cx3stat tx_frames) - _tx0)) ]
}
