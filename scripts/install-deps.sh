#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything cxbell needs to build, test and benchmark, from
# Debian's archive. Idempotent: a second run installs nothing.
#
# Prints nothing on success except apt's own output; the kernel version
# every other script uses is chosen by scripts/kver.sh.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive

pkgs=(make gcc libc6-dev qemu-system-x86 busybox-static ethtool iproute2
      kmod cpio sparse linux-source dwarves xz-utils gzip perl bc python3
      coreutils findutils procps gnuplot-nox linux-perf dkms xdp-tools
      # the Debian 13 kernel's zstd payload (vm-run's PVH boot of 6.12)
      zstd
      # building the debug kernel of scripts/check-debug.sh
      bison flex libelf-dev libssl-dev util-linux)
# building the QEMU that carries the ConnectX-3 model (vm-run --cx3): its
# build script's own list, so that the two cannot disagree
mapfile -t -O ${#pkgs[@]} pkgs < <(bash "$here/../tools/testing/cxbell/qemu/build.sh" --deps)

missing=()
for p in "${pkgs[@]}"; do
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
