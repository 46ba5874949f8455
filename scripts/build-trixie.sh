#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the modules for Debian 13's kernel (6.12) as well:
#
#   bash scripts/build-trixie.sh [--out DIR]
#
# Debian 12's gcc-12 cannot build modules for a kernel configured with
# gcc-14, so the build runs in a Debian 13 chroot (debootstrap minbase,
# then linux-headers-amd64, gcc-14 and make from the trixie suite), made
# once and cached in /var/cache/cxbell/trixie (about 2 minutes cold),
# with the kernel image of the same version as the headers
# (linux-image-KVER, for the 6.12 boot: run-tests --kernel 6.12; also
# installed into a chroot cached without it). The tree's files (git
# ls-files, untracked ones included) are copied into it, in a directory
# of this tree's own (two trees can build at once), and built with
# make KDIR=<the chroot's headers>. Fails if the build fails, warns or
# does not produce cxbell.ko, cxbell_sim.ko, cxbell_mlx4.ko (the
# ConnectX-3 backend, on mlx4_core's 6.5+ auxiliary driver API here) and
# cxbell_mlx5.ko (the ConnectX-4+ backend, on 6.12's mlx5_comp_eqn_get()).
#
#   --out DIR   copy the .ko files built into DIR (emptied first) and
#               write DIR/env: the shell assignments CXBELL_KVER,
#               CXBELL_KERNEL and CXBELL_MODROOT that boot the guest on
#               the chroot's kernel, with its modules (vm-run,
#               mkinitramfs)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
root=${CXBELL_TRIXIE_ROOT:-/var/cache/cxbell/trixie}
mirror=http://deb.debian.org/debian
export DEBIAN_FRONTEND=noninteractive

out=
if [ "${1:-}" = --out ]; then
	out=${2:?--out needs a directory}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
fi

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
# the kernel the headers are for, to boot (the project installs it: a
# chroot cached before the 6.12 boot existed has none)
if ! chroot "$root" dpkg-query -W -f='${Status}' "linux-image-$kver" 2>/dev/null |
	grep -q 'ok installed'; then
	echo "build-trixie: install linux-image-$kver"
	chroot "$root" apt-get install -y -q --no-install-recommends \
		"linux-image-$kver" >/dev/null
fi
src=$root/cxbell-src.$(printf '%s' "$top" | sha256sum | cut -c1-12)
rm -rf "$src"
mkdir -p "$src"
(cd "$top" && git ls-files -z -c -o --exclude-standard |
	tar -c --null -T - | tar -x -C "$src")
echo "build-trixie: make KDIR=/usr/src/$hdr"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
chroot "$root" make -C "/${src##*/}" KDIR="/usr/src/$hdr" KVER="$kver" \
	>"$log" 2>&1 || rc=$?
cat "$log"
if [ $rc != 0 ]; then
	echo "build-trixie: make failed ($rc)"
	exit 1
fi
# The test-only fuzzer of the QEMU ConnectX-3 model (tests/cx3-fuzz.sh;
# mkinitramfs builds it for 6.1), in the chroot's copy of the tree.
chroot "$root" make -C "/usr/src/$hdr" \
	M="/${src##*/}/tools/testing/cxbell/cx3fuzz" modules >>"$log" 2>&1 || {
	cat "$log"
	echo "build-trixie: cx3fuzz.ko failed"
	exit 1
}
# and cxbell_mlx5 on its command-level model of mlx5_core
# (tests/mlx5-fake.sh)
chroot "$root" make -C "/usr/src/$hdr" \
	M="/${src##*/}/tools/testing/cxbell/mlx5fake" modules >>"$log" 2>&1 || {
	cat "$log"
	echo "build-trixie: cxbell_mlx5_fake.ko failed"
	exit 1
}
if grep -qE 'warning:|error:' "$log"; then
	echo "build-trixie: the build warned"
	exit 1
fi
for m in cxbell cxbell_sim cxbell_mlx4 cxbell_mlx5; do
	[ -f "$src/drivers/net/ethernet/cxbell/$m.ko" ] ||
		{ echo "build-trixie: no $m.ko"; exit 1; }
done
echo "build-trixie: cxbell.ko, cxbell_sim.ko, cxbell_mlx4.ko and cxbell_mlx5.ko built for $kver"
if [ -n "$out" ]; then
	rm -f "$out"/*.ko
	cp "$src"/drivers/net/ethernet/cxbell/*.ko \
	   "$src"/tools/testing/cxbell/cx3fuzz/cx3fuzz.ko \
	   "$src"/tools/testing/cxbell/mlx5fake/cxbell_mlx5_fake.ko "$out/"
	printf 'CXBELL_KVER=%q\nCXBELL_KERNEL=%q\nCXBELL_MODROOT=%q\n' \
		"$kver" "$root/boot/vmlinuz-$kver" "$root" >"$out/env"
	echo "build-trixie: modules in $out"
fi
