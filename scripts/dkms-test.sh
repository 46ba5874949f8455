#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CI check of the DKMS packaging: "dkms add" + "dkms build" of a copy of
# this tree (without build products) for the kernel of scripts/kver.sh,
# then check that every module dkms.conf names was built.
#
#   scripts/dkms-test.sh
#
# Leaves no state behind: the source, the DKMS tree and the module
# signing key dkms generates are in a private temporary directory (dkms
# --sourcetree/--dkmstree; the key paths through the environment, which
# dkms reads unless /etc/dkms/framework.conf sets them), the package
# version is unique to the run, and all is removed on exit. Nothing goes
# to /usr/src, /var/lib/dkms or /lib/modules.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
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
