#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the QEMU that carries the ConnectX-3 device model (connectx3.c and
# friends in this directory) and print the path of its binary:
#
#   tools/testing/cxbell/qemu/build.sh [--asan] [--print | --deps]
#
# Debian's own QEMU 7.2 source (apt-get source qemu; a deb-src entry is
# added for the suites the machine already uses), the model's files
# copied into hw/net/cxbell/, a minimal x86_64-softmmu build. The source
# and build tree are kept in $CXBELL_CACHE/qemu/tree (CXBELL_CACHE
# default /var/cache/cxbell; CXBELL_QEMU_TREE overrides the tree, e.g.
# one per work tree), so a change to the model rebuilds only the model:
# a cold build takes about 4 min on 2 cores, a warm one seconds. The
# binary is installed as $CXBELL_CACHE/qemu/bin-KEY/qemu-system-x86_64,
# KEY a hash of the source version and the model's files; with --print
# an existing binary for the current KEY is printed without touching
# the tree (exit 1 if there is none); --deps prints the Debian packages
# the build needs, one a line, and exits (scripts/install-deps.sh
# installs them; the build installs what is still missing itself).
# Firmware (SeaBIOS, option ROMs) comes from Debian's
# qemu-system-data at /usr/share/qemu, the same 7.2 release.
# --asan (or CXBELL_QEMU_ASAN=1): the same QEMU built with AddressSanitizer
# and UBSan (configure --enable-sanitizers) in a tree of its own,
# $CXBELL_CACHE/qemu/tree-asan (a copy of the source of the shared tree,
# so that its long cold build never holds the shared tree's lock),
# installed as bin-asan-KEY: a cold build compiles all of QEMU again (31
# min measured on the 2-core host, shared and loaded), so
# it is a command of its own (vm-run --asan,
# Documentation/connectx3-model.rst), not part of run-tests.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CXBELL_CACHE:-/var/cache/cxbell}
export DEBIAN_FRONTEND=noninteractive

log() { echo "qemu-build: $*" >&2; }

deps=(ninja-build meson pkg-config libglib2.0-dev libpixman-1-dev zlib1g-dev
      libslirp-dev libfdt-dev dpkg-dev python3 gcc make qemu-system-data
      xz-utils)
asan=${CXBELL_QEMU_ASAN:-0}
if [ "${1:-}" = --asan ]; then
	asan=1
	shift
fi
[ "$asan" = 1 ] || asan=0
mode=${1:-}
case $mode in
''|--print) ;;
--deps) printf '%s\n' "${deps[@]}"; exit 0 ;;
*) log "usage: build.sh [--asan] [--print | --deps]"; exit 2 ;;
esac

models=("$here"/cx3/*.[ch])
[ -e "${models[0]}" ] || { log "no model sources in $here/cx3"; exit 1; }
key=$(cat "${models[@]}" "$0" | sha256sum | cut -c1-16)
flavour=
cfg_extra=()
if [ $asan = 1 ]; then
	flavour=-asan
	cfg_extra=(--enable-sanitizers)
fi
tree=${CXBELL_QEMU_TREE:-$cache/qemu/tree$flavour}
bin=$cache/qemu/bin$flavour-$key/qemu-system-x86_64
if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
[ "$mode" = --print ] && { log "no binary for these model sources: $bin"; exit 1; }

missing=()
for p in "${deps[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done

# A deb-src entry for every deb entry of the deb822 sources, once.
srcl=/etc/apt/sources.list.d/cxbell-src.sources
if ! apt-cache showsrc qemu 2>/dev/null | grep -c '^Package: qemu' >/dev/null; then
	if [ ! -e "$srcl" ]; then
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -e "$f" ] && [ "$f" != "$srcl" ] || continue
			sed -n '/^Types:.*\bdeb\b/,/^$/p' "$f" |
				sed 's/^Types:.*/Types: deb-src/'
			echo
		done >"$srcl"
		if [ -r /etc/apt/sources.list ]; then
			sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list \
				>/etc/apt/sources.list.d/cxbell-src.list
		fi
	fi
	log "apt-get update (deb-src)"
	apt-get update -q >&2
fi
if [ ${#missing[@]} -gt 0 ]; then
	log "installing ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

mkdir -p "$(dirname "$tree")"
exec 9>"$tree.lock"
flock 9
shared=$cache/qemu/tree
if [ ! -e "$tree/configure" ] && [ "$tree" != "$shared" ] &&
   [ -e "$shared/configure" ]; then
	# The source of the shared tree, without its build directories,
	# copied under its lock.
	log "copying the source of $shared"
	d=$(mktemp -d "$(dirname "$tree")/src.XXXXXX")
	(flock 8; tar -C "$shared" --exclude='./build-*' -cf - . |
		tar -C "$d" -xf -) 8>"$shared.lock"
	rm -rf "$tree"
	mv "$d" "$tree"
fi
if [ ! -e "$tree/configure" ]; then
	d=$(mktemp -d "$(dirname "$tree")/src.XXXXXX")
	log "fetching Debian's qemu source"
	(cd "$d" && apt-get source -q qemu >&2)
	rm -rf "$tree"
	mv "$d"/qemu-*/ "$tree"
	rm -rf "$d"
fi

# The model: hw/net/cxbell/, built for every target with PCI.
mkdir -p "$tree/hw/net/cxbell"
for f in "${models[@]}"; do
	cmp -s "$f" "$tree/hw/net/cxbell/$(basename "$f")" ||
		cp "$f" "$tree/hw/net/cxbell/"
done
for f in "$tree"/hw/net/cxbell/*; do
	[ -e "$here/cx3/$(basename "$f")" ] || rm -f "$f"
done
srcs=$(cd "$here/cx3" && ls -- *.c | sed "s/.*/'cxbell\/&'/" | paste -sd, -)
line="softmmu_ss.add(when: 'CONFIG_CXBELL_CX3', if_true: files($srcs))"
mb=$tree/hw/net/meson.build
if ! grep -qxF "$line" "$mb"; then
	sed -i '/CONFIG_CXBELL_CX3/d' "$mb"
	echo "$line" >>"$mb"
fi
grep -q '^config CXBELL_CX3' "$tree/hw/net/Kconfig" ||
	printf '\nconfig CXBELL_CX3\n    bool\n    default y if PCI_DEVICES\n    depends on PCI_EXPRESS && MSI_NONBROKEN\n' \
		>>"$tree/hw/net/Kconfig"

b=$tree/build-cxbell$flavour
if [ ! -e "$b/build.ninja" ]; then
	log "configuring"
	mkdir -p "$b"
	(cd "$b" && ../configure --prefix=/usr --target-list=x86_64-softmmu \
		--disable-docs --disable-werror --disable-gtk --disable-sdl \
		--disable-vnc --disable-opengl --disable-spice --disable-curl \
		--disable-libssh --disable-capstone --disable-tools \
		--disable-guest-agent "${cfg_extra[@]}" >"$b/configure.log" 2>&1) ||
		{ tail -n 20 "$b/configure.log" >&2; exit 1; }
fi
t0=$(date +%s)
log "building $b (cold: about 4 min on 2 cores, longer with --asan)"
ninja -C "$b" qemu-system-x86_64 >"$b/ninja.log" 2>&1 ||
	{ grep -B2 -A12 -m3 'error' "$b/ninja.log" >&2 || tail -n 30 "$b/ninja.log" >&2; exit 1; }
# The model builds without warnings (QEMU's own --disable-werror
# does not cover it).
if grep -q '^\.\./hw/net/cxbell/.*warning:' "$b/ninja.log"; then
	grep -A4 '^\.\./hw/net/cxbell/.*warning:' "$b/ninja.log" >&2
	rm -f "$b/qemu-system-x86_64"
	log "the model has compiler warnings"
	exit 1
fi
log "built in $(($(date +%s) - t0)) s"
mkdir -p "$(dirname "$bin")"
cp "$b/qemu-system-x86_64" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
