# SPDX-License-Identifier: GPL-2.0
#
# Module load/unload and adapter lifetime: both load orders 20 times,
# adapters with 1 and 2 ports created and deleted in every state (driver
# loaded or not, interfaces up or down), removal of either module with
# adapters present, and no DMA mapping left once everything is torn down
# (/sys/kernel/debug/cxbell_sim/dma_live, read before the sim goes away).
# Every case also fails on a bad kernel log line (lib.sh).
. /cxbell/lib.sh

ktap_plan 10
no_ipv6

N=20

loaded() { [ -d "/sys/module/$1" ]; }

load_order_core_first()
{
	i=0
	while [ $i -lt $N ]; do
		modprobe cxbell && modprobe cxbell_sim || return 1
		loaded cxbell && loaded cxbell_sim || return 1
		rmmod cxbell_sim && rmmod cxbell || return 1
		i=$((i + 1))
	done
	! loaded cxbell && ! loaded cxbell_sim
}

load_order_sim_first()
{
	i=0
	while [ $i -lt $N ]; do
		modprobe cxbell_sim && modprobe cxbell || return 1
		rmmod cxbell && rmmod cxbell_sim || return 1
		i=$((i + 1))
	done
	! loaded cxbell && ! loaded cxbell_sim
}

# Adapter 1 with 2 ports, adapter 2 with 1 port: 3 netdevs with the right
# dev_port numbers, all up.
create_1_and_2_ports()
{
	cxb_load && cxb_new 1 2 && cxb_new 2 1 || return 1
	eq "$(cxb_netdevs 1 | wc -l)" 2 "adapter 1 netdevs" || return 1
	eq "$(cxb_netdevs 2 | wc -l)" 1 "adapter 2 netdevs" || return 1
	p0=$(cxb_netdev 1 0) && p1=$(cxb_netdev 1 1) && q0=$(cxb_netdev 2 0) || {
		ktap_diag "dev_port: no port 0/1 netdev"; return 1; }
	eq "$(ethtool -i "$p0" | sed -n 's/^driver: //p')" cxbell "driver" || return 1
	for d in $p0 $p1 $q0; do
		ip link set "$d" up || return 1
	done
	return 0
}

# Links up/down repeatedly, then delete the adapters while up.
updown_and_delete_while_up()
{
	i=0
	while [ $i -lt 5 ]; do
		for d in $p0 $p1 $q0; do
			ip link set "$d" down && ip link set "$d" up || return 1
		done
		i=$((i + 1))
	done
	cxb_del 1 && cxb_del 2 || return 1
	eq "$(cxb_netdevs 1 | wc -l)$(cxb_netdevs 2 | wc -l)" 00 "netdevs left" &&
	dma_live_zero "dma_live after deleting adapters"
}

# adapters_3_4_up WHY: the netdevs of adapters 3 (2 ports) and 4 (1 port)
# appear within 10 s (else WHY as a diagnostic), and go up.
adapters_3_4_up()
{
	wait_until 10 cxb_has_netdevs 3 2 && wait_until 10 cxb_has_netdevs 4 1 || {
		ktap_diag "$1"; return 1; }
	for d in $(cxb_netdevs 3) $(cxb_netdevs 4); do
		ip link set "$d" up || return 1
	done
	return 0
}

# Adapters created before the driver loads get bound when it loads.
adapters_before_driver()
{
	rmmod cxbell || return 1
	cxb_new 3 2 && cxb_new 4 1 || return 1
	modprobe cxbell || return 1
	adapters_3_4_up "netdevs did not appear"
}

# rmmod cxbell with adapters present and up: the driver unbinds, unmaps
# everything; adapters survive and rebind on reload.
rmmod_driver_with_adapters()
{
	rmmod cxbell || return 1
	dma_live_zero "dma_live after rmmod cxbell" || return 1
	modprobe cxbell || return 1
	adapters_3_4_up "netdevs did not come back"
}

# rmmod cxbell_sim with adapters present and up: their netdevs go away.
rmmod_sim_with_adapters()
{
	devs=$(cxb_netdevs 3; cxb_netdevs 4)
	rmmod cxbell_sim || return 1
	for d in $devs; do
		[ -e "/sys/class/net/$d" ] && { ktap_diag "$d still exists"; return 1; }
	done
	rmmod cxbell
}

# Create/delete adapters (1 and 2 ports) N times, bringing them up.
adapter_cycle()
{
	cxb_load || return 1
	i=0
	while [ $i -lt $N ]; do
		np=$((i % 2 + 1))
		cxb_new 5 $np || return 1
		for d in $(cxb_netdevs 5); do
			ip link set "$d" up || return 1
		done
		cxb_del 5 || return 1
		i=$((i + 1))
	done
	return 0
}

dma_live_after_teardown()
{
	dma_live_zero "dma_live" || return 1
	rmmod cxbell && dma_live_zero "dma_live after rmmod cxbell"
}

final_unload()
{
	rmmod cxbell_sim || return 1
	! loaded cxbell && ! loaded cxbell_sim
}

ktap_ok load_unload_core_first_x$N load_order_core_first
ktap_ok load_unload_sim_first_x$N load_order_sim_first
ktap_ok create_adapters_1_and_2_ports create_1_and_2_ports
ktap_ok updown_then_delete_while_up updown_and_delete_while_up
ktap_ok adapters_created_before_driver adapters_before_driver
ktap_ok rmmod_driver_with_adapters_up rmmod_driver_with_adapters
ktap_ok rmmod_sim_with_adapters_up rmmod_sim_with_adapters
ktap_ok adapter_create_delete_x$N adapter_cycle
ktap_ok dma_live_zero_after_teardown dma_live_after_teardown
ktap_ok final_unload final_unload
ktap_finish
