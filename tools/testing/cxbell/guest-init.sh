#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the cxbell test VM (busybox sh). Mounts the pseudo file systems,
# brings lo up, runs /cxbell-run/script with the arguments vm-run stored in
# /cxbell-run/args, prints the exit marker and powers off. Kernel messages
# of level warning and above go to the console (ttyS0) where vm-run scans
# them; nothing else is printed.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
hostname cxbell-vm
ip link set lo up

# Show warnings (level 4) on the console too, so vm-run sees them.
dmesg -n 5

# Wait for the kernel's RNG to be seeded. vm-run --icount hides RDRAND
# (host entropy would make every boot different), so the kernel seeds it
# from its own timer jitter, which is deterministic under -icount. Until
# then every get_random_*() takes a slow path: runs measured before that
# point cost ~10% more (pktgen through cxbell at burst 1).
head -c 1 /dev/random >/dev/null

token=none
[ -r /cxbell-run/token ] && read -r token </cxbell-run/token

rc=127
if [ -r /cxbell-run/script ]; then
	set --
	[ -r /cxbell-run/args ] && . /cxbell-run/args
	cd /cxbell-run && sh ./script "$@" </dev/null
	rc=$?
	cd /
else
	echo "cxbell-init: no /cxbell-run/script"
fi

echo "@@cxbell-vm-exit:$token:$rc@@"
poweroff -f
