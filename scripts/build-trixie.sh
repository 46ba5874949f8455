#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the modules for Debian 13's kernel (6.12) as well:
#
#   bash scripts/build-trixie.sh
#
# Debian 12's gcc-12 cannot build modules for a kernel configured with
# gcc-14, so the build runs in a Debian 13 chroot (debootstrap minbase,
# then linux-headers-amd64, gcc-14 and make from the trixie suite), made
# once and cached in /var/cache/cxbell/trixie (about 2 minutes cold; the
# kernel image comes with it, for the 6.12 boot). The tree's files (git
# ls-files, untracked ones included) are copied into it and built with
# make KDIR=<the chroot's headers>. Fails if the build fails, warns or
# does not produce cxbell.ko and cxbell_sim.ko. cxbell_mlx4 is built
# only for kernels with the mlx4_interface client API (Linux 6.4 and
# before, Kbuild), so not here yet.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
root=${CXBELL_TRIXIE_ROOT:-/var/cache/cxbell/trixie}
mirror=http://deb.debian.org/debian
export DEBIAN_FRONTEND=noninteractive

if [ ! -e "$root/.cxbell-ready" ]; then
	command -v debootstrap >/dev/null ||
		apt-get install -y -q --no-install-recommends debootstrap
	rm -rf "$root"
	mkdir -p "$(dirname "$root")"
	echo "build-trixie: debootstrap trixie into $root"
	debootstrap --variant=minbase trixie "$root" "$mirror" >/dev/null
	chroot "$root" apt-get install -y -q --no-install-recommends \
		linux-headers-amd64 gcc-14 make >/dev/null
	touch "$root/.cxbell-ready"
fi

hdr=$(cd "$root/usr/src" && ls -d linux-headers-*-amd64 | sort -V | tail -n 1)
kver=${hdr#linux-headers-}
src=$root/cxbell-src
rm -rf "$src"
mkdir -p "$src"
(cd "$top" && git ls-files -z -c -o --exclude-standard |
	tar -c --null -T - | tar -x -C "$src")
echo "build-trixie: make KDIR=/usr/src/$hdr"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
chroot "$root" make -C /cxbell-src KDIR="/usr/src/$hdr" KVER="$kver" \
	>"$log" 2>&1 || rc=$?
cat "$log"
if [ $rc != 0 ]; then
	echo "build-trixie: make failed ($rc)"
	exit 1
fi
if grep -qE 'warning:|error:' "$log"; then
	echo "build-trixie: the build warned"
	exit 1
fi
for m in cxbell cxbell_sim; do
	[ -f "$src/drivers/net/ethernet/cxbell/$m.ko" ] ||
		{ echo "build-trixie: no $m.ko"; exit 1; }
done
echo "build-trixie: cxbell.ko and cxbell_sim.ko built for $kver"
