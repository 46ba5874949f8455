#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what a cxbell command needs, from Debian's archive. Idempotent:
# a second run installs nothing.
#
#   scripts/install-deps.sh [demo|test|bench|debug|all]
#
#   demo   scripts/run-demo.sh: the module build (make, gcc, libc6-dev
#          for the guest's static helpers, the kernel image and headers)
#          and the VM (QEMU, busybox-static, ethtool, iproute2, kmod,
#          cpio, gzip, xz-utils)
#   test   scripts/run-tests.sh: demo, plus checkpatch's perl and
#          linux-source, sparse, python3 (host unit tests), dkms, xdp-tools
#          (the XDP tests), zstd (the 6.12 tier's kernel), the tools of
#          the kernel's forwarding selftests (tests/forwarding.sh): jq,
#          netsniff-ng (mausezahn), smcroute, iputils-ping and
#          linux-libc-dev (linux/ethtool.h), and what building
#          the QEMU ConnectX-3 model
#          needs (tools/testing/cxbell/qemu/build.sh --deps)
#   bench  make bench: demo, plus linux-source (the kernel's pktgen
#          scripts), python3, gnuplot-nox, linux-perf (the profile), gdb
#          (bench/itrace), xdp-tools and the QEMU model's build
#   debug  make check-debug: test, plus the debug kernel's build tools
#          (bison, flex, libelf-dev, libssl-dev, bc, dwarves, util-linux)
#   all    everything above (the default)
#
# Prints nothing on success except apt's own output and the kernel version
# every other script uses, chosen by scripts/kver.sh.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive

mode=${1:-all}
case $mode in
demo|test|bench|debug|all) ;;
*) echo "usage: install-deps.sh [demo|test|bench|debug|all]" >&2; exit 2 ;;
esac

demo=(make gcc libc6-dev qemu-system-x86 busybox-static ethtool iproute2
      kmod cpio xz-utils gzip coreutils findutils procps)
# zstd: the Debian 13 kernel's payload (vm-run's PVH boot of 6.12)
test=(perl linux-source sparse python3 dkms xdp-tools zstd)
# the kernel's forwarding selftests (tests/forwarding.sh)
test+=(jq netsniff-ng smcroute iputils-ping linux-libc-dev)
bench=(linux-source python3 gnuplot-nox linux-perf gdb xdp-tools)
# building the debug kernel of scripts/check-debug.sh
debug=(bison flex libelf-dev libssl-dev bc dwarves util-linux)

pkgs=("${demo[@]}")
case $mode in
test) pkgs+=("${test[@]}") ;;
bench) pkgs+=("${bench[@]}") ;;
debug) pkgs+=("${test[@]}" "${debug[@]}") ;;
all) pkgs+=("${test[@]}" "${bench[@]}" "${debug[@]}") ;;
esac
# building the QEMU that carries the ConnectX-3 model (vm-run --cx3): its
# build script's own list, so that the two cannot disagree
if [ "$mode" != demo ]; then
	mapfile -t -O ${#pkgs[@]} pkgs < <(bash "$here/../tools/testing/cxbell/qemu/build.sh" --deps)
fi

missing=()
for p in $(printf '%s\n' "${pkgs[@]}" | sort -u); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done

# A kernel with both image and headers installed, or the Debian default one.
if ! "$here/kver.sh" >/dev/null 2>&1; then
	missing+=(linux-image-amd64 linux-headers-amd64)
fi

if [ ${#missing[@]} -gt 0 ]; then
	updated=/var/lib/apt/lists/partial/.cxbell-updated
	if [ ! -e "$updated" ] || [ -n "$(find "$updated" -mmin +600)" ]; then
		apt-get update -q
		touch "$updated"
	fi
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

kver=$("$here/kver.sh")
echo "cxbell: using kernel $kver"
