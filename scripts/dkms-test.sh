#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CI check of the DKMS packaging: "dkms add" + "dkms build" of a copy of
# this tree (without build products) for the kernel of scripts/kver.sh,
# then check that every module dkms.conf names was built.
#
#   scripts/dkms-test.sh [--kernel 6.1|6.12]
#
# --kernel 6.12: the same for Debian 13's kernel, with Debian 13's dkms,
# in the trixie chroot of scripts/build-trixie.sh (made by it first if
# missing; dkms is installed into it on first use, a few seconds): the
# tree's files are copied into the chroot and this script runs there.
# 6.1 (the default) is the host's kernel.
#
# Leaves no state behind: the source, the DKMS tree and the module
# signing key dkms generates are in a private temporary directory (dkms
# --sourcetree/--dkmstree; the key paths through the environment, which
# dkms reads unless /etc/dkms/framework.conf sets them), the package
# version is unique to the run, and all is removed on exit. Nothing goes
# to /usr/src, /var/lib/dkms or /lib/modules.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1
if [ "${1:-}" = --kernel ]; then
	kernel=${2:-}
	shift 2 || true
fi
case $kernel in
6.1) ;;
6.12)
	root=${CXBELL_TRIXIE_ROOT:-/var/cache/cxbell/trixie}
	if [ ! -e "$root/.cxbell-ready" ]; then
		bash "$top/scripts/build-trixie.sh" >&2
	fi
	# (openssl: dkms makes the key it signs with, as on the host)
	for p in dkms openssl; do
		chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' ||
			chroot "$root" apt-get install -y -q \
				--no-install-recommends "$p" >/dev/null
	done
	hdr=$(cd "$root/usr/src" && ls -d linux-headers-*-amd64 | sort -V | tail -n 1)
	# the tree's files (as build-trixie.sh copies them), in a
	# directory of this tree's own
	src=$root/cxbell-dkms.$(printf '%s' "$top" | sha256sum | cut -c1-12)
	rm -rf "$src"
	mkdir -p "$src"
	(cd "$top" && git ls-files -z -c -o --exclude-standard |
		tar -c --null -T - | tar -x -C "$src")
	rc=0
	chroot "$root" env CXBELL_KVER="${hdr#linux-headers-}" TMPDIR=/tmp \
		bash "/${src##*/}/scripts/dkms-test.sh" || rc=$?
	rm -rf "$src"
	exit $rc ;;
*)
	echo "dkms-test: --kernel 6.1 or 6.12" >&2
	exit 2 ;;
esac
kver=${CXBELL_KVER:-$("$top/scripts/kver.sh")}
command -v dkms >/dev/null || {
	echo "dkms-test: dkms missing (run scripts/install-deps.sh)" >&2
	exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cxbell-dkms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ver=0.1.ci$$
src=$tmp/src/cxbell-$ver
tree=$tmp/dkms
mkdir -p "$src" "$tree"

tar -C "$top" --exclude=.git --exclude=.build --exclude='*.o' \
	--exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers \
	-cf - . | tar -C "$src" -xf -
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$src/dkms.conf"

# The MOK key and certificate dkms signs with (and generates if missing).
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub

opts=(--sourcetree "$tmp/src" --dkmstree "$tree")
t0=$EPOCHREALTIME
dkms add "${opts[@]}" -m cxbell -v "$ver"
if ! dkms build "${opts[@]}" -m cxbell -v "$ver" -k "$kver"; then
	cat "$tree/cxbell/$ver/build/make.log" 2>/dev/null | tail -n 40
	exit 1
fi
t1=$EPOCHREALTIME

# Every module dkms.conf lists for this kernel must have been built.
want=$(kernelver=$kver kernel_source_dir=/lib/modules/$kver/build bash -c \
	'. "$1"; echo "${BUILT_MODULE_NAME[@]}"' _ "$src/dkms.conf")
missing=0
for m in $want; do
	ko=$(find "$tree/cxbell/$ver/$kver" -name "$m.ko*" | head -n 1)
	if [ -n "$ko" ]; then
		echo "dkms-test: built $m ($(basename "$ko"))"
	else
		echo "dkms-test: $m was not built" >&2
		missing=1
	fi
done
dkms status "${opts[@]}" -m cxbell -v "$ver" || true
dkms remove "${opts[@]}" -m cxbell -v "$ver" --all >/dev/null 2>&1 || true
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "dkms-test: dkms build took %.1f s\n", b - a }'
exit $missing
