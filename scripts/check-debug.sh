#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the VM suite on a debug kernel.
#
#   bash scripts/check-debug.sh [run-tests options and TEST names]
#
# 1. Builds, once, a kernel from Debian's linux-source (the package
#    scripts/install-deps.sh installs): x86_64_defconfig + kvm_guest.config
#    + tools/testing/cxbell/debug.config (KASAN, lockdep, atomic-sleep
#    checks, kmemleak, DMA-API debugging, failslab and fail_page_alloc,
#    trimmed to what the guest needs). It lives outside the work tree in
#    $CXBELL_CACHE/debug-kernel/KEY (CXBELL_CACHE default /var/cache/cxbell),
#    KEY being a hash of the linux-source version and of debug.config: a
#    changed fragment builds a new kernel, an unchanged one is reused.
#    The cold build time is kept there (build-seconds) and printed.
# 2. Builds the project modules against it, in a copy of the sources in
#    the same cache directory (the work tree is not written to).
# 3. Runs the VM tests (tools/testing/cxbell/run-tests --no-host) booting
#    that kernel, in two boots: tests/*.sh, then failslab.sh (allocation
#    failures injected into the driver's paths) alone; each boot ends
#    with kmemleak.sh, which scans for leaks once the tests before it
#    unloaded the modules and checks the DMA-API error count.
#
# Output: run-tests' lines, preceded by PASS/FAIL lines of the kernel and
# module builds, and last "N passed, N failed, N skipped" over all of
# them. Exit status nonzero iff something failed.
#
# Environment: CXBELL_CACHE (see above), CXBELL_JOBS (make -j, default
# nproc), CXBELL_VM_MEM (guest MiB, default here 3072: KASAN's shadow),
# CXBELL_VM_TIMEOUT / CXBELL_TEST_TIMEOUT (defaults here 3 h a boot, 45 min a test),
# TESTS given on the command line replace the list (kmemleak still last).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
here=$top/tools/testing/cxbell
frag=$here/debug.config
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${CXBELL_CACHE:-/var/cache/cxbell}
jobs=${CXBELL_JOBS:-$(nproc)}

npass=0
nfail=0
pass() { echo "PASS $1"; npass=$((npass + 1)); }
fail() {
	echo "FAIL $1"
	nfail=$((nfail + 1))
	[ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'
	return 0
}
finish() {
	echo "$npass passed, $nfail failed, ${nskip:-0} skipped"
	[ $nfail = 0 ]
	exit $?
}

if ! bash "$top/scripts/install-deps.sh" debug >/dev/null; then
	fail install-deps
	finish
fi

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
if [ -z "$srcver" ] || [ ! -r "$tarball" ]; then
	fail debug:kernel "no $tarball (linux-source-6.1)"
	finish
fi
# The recipe's version ("1"), the source's and the fragment's contents.
key=$({ echo "cxbell-debug-kernel 1"; echo "$srcver"; cat "$frag"; } |
	sha256sum | cut -c1-16)
kdir=$cache/debug-kernel/$key
src=$kdir/src
mkdir -p "$kdir" || { fail debug:kernel "cannot create $kdir"; finish; }

# Unpack, configure, build and install the modules of the debug kernel.
# Each step is skipped when its result is there; "done" marks the end.
build_kernel() {
	local t0 missing
	if [ ! -f "$src/Makefile" ]; then
		echo "# debug kernel: unpacking $tarball into $src"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xJf "$tarball" -C "$src.tmp" --strip-components=1 || return 1
		mv "$src.tmp" "$src"
	fi
	if ! cmp -s "$frag" "$kdir/debug.config"; then
		(cd "$src" && make -s x86_64_defconfig >/dev/null &&
		 scripts/kconfig/merge_config.sh -m .config \
			kernel/configs/kvm_guest.config "$frag" >/dev/null &&
		 make -s olddefconfig) || return 1
		cp "$frag" "$kdir/debug.config"
	fi
	# Options of the fragment Kconfig did not take (a dependency
	# missing): worth knowing, not fatal.
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while IFS= read -r l; do
		grep -qxF "$l" "$src/.config" || echo "$l"; done)
	[ -n "$missing" ] && echo "# debug kernel: not in .config: $(echo $missing)"
	echo "# debug kernel: building in $src (make -j$jobs, log: $kdir/build.log)"
	t0=$(date +%s)
	nice -n 10 make -C "$src" -j"$jobs" bzImage modules \
		>"$kdir/build.log" 2>&1 || return 1
	echo $(($(date +%s) - t0)) >"$kdir/build-seconds"
	rm -rf "$kdir/root"
	make -C "$src" INSTALL_MOD_PATH="$kdir/root" modules_install \
		>>"$kdir/build.log" 2>&1 || return 1
	touch "$kdir/done"
}

t0=$(date +%s)
if [ -e "$kdir/done" ]; then
	pass debug:kernel
	echo "# debug kernel: cached in $kdir (cold build took $(cat "$kdir/build-seconds" 2>/dev/null || echo '?') s)"
else
	# One build at a time per cache directory.
	exec 9>"$kdir/lock"
	flock 9
	if [ -e "$kdir/done" ] || build_kernel; then
		pass debug:kernel
		echo "# debug kernel: built in $(($(date +%s) - t0)) s ($kdir)"
	else
		fail debug:kernel "$(tail -n 40 "$kdir/build.log" 2>/dev/null)"
		finish
	fi
	exec 9>&-
fi
kver=$(make -s -C "$src" kernelrelease)

# The project modules, built against it from a copy of the sources.
obj=$kdir/cxbell
t0=$(date +%s)
rm -rf "$obj"
mkdir -p "$obj"
cp -a "$top/Kbuild" "$top/drivers" "$top/include" "$obj/"
find "$obj" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*' \) -delete
if make -C "$src" M="$obj" -j"$jobs" modules >"$kdir/cxbell-build.log" 2>&1; then
	pass debug:modules
else
	fail debug:modules "$(tail -n 40 "$kdir/cxbell-build.log")"
	finish
fi
echo "# debug modules: $(($(date +%s) - t0)) s ($(cd "$obj" && echo drivers/net/ethernet/cxbell/*.ko | wc -w) modules, log: $kdir/cxbell-build.log)"

# The VM tests in two boots, each ending with kmemleak.sh (leaks of what
# ran before it): the suite, then failslab.sh alone, so that a crash in
# an error path it reaches does not cost the rest of the suite.
opts=()
tests=()
for a in "$@"; do
	case $a in
	-*) opts+=("$a") ;;
	*) t=${a##*/}; t=${t%.sh}; [ "$t" = kmemleak ] || tests+=("$t") ;;
	esac
done
if [ ${#tests[@]} = 0 ]; then
	for t in "$here"/tests/*.sh; do
		t=${t##*/}
		tests+=("${t%.sh}")
	done
fi
boot1=()
boot2=()
for t in "${tests[@]}"; do
	case $t in
	kmemleak) ;;
	failslab) boot2+=("$t") ;;
	*) boot1+=("$t") ;;
	esac
done
if [ -e "$here/tests/kmemleak.sh" ]; then
	[ ${#boot1[@]} -gt 0 ] && boot1+=(kmemleak)
	[ ${#boot2[@]} -gt 0 ] && boot2+=(kmemleak)
fi

export CXBELL_KVER=$kver
# The bzImage: QEMU's PVH entry into this (KASAN, 85 MiB) vmlinux
# triple-faults before the first console line; the bzImage boots.
export CXBELL_KERNEL=$src/arch/x86/boot/bzImage
export CXBELL_MODROOT=$kdir/root
export CXBELL_KO_DIR=$obj/drivers/net/ethernet/cxbell
export CXBELL_BUILD_DIR=$kdir/vm
export CXBELL_VM_MEM=${CXBELL_VM_MEM:-3072}
export CXBELL_VM_TIMEOUT=${CXBELL_VM_TIMEOUT:-10800}
export CXBELL_TEST_TIMEOUT=${CXBELL_TEST_TIMEOUT:-2700}
# KASAN and the debug options stand in for the allocator hardening of the
# default boot, and panic_on_warn would end the boot at the first lockdep
# report instead of listing them all (vm-run's CXBELL_HARDEN, if known).
export CXBELL_HARDEN=${CXBELL_HARDEN:-0}

# One boot of run-tests; its summary line ("N passed, N failed, N
# skipped") is added into the one printed last, which stays the only one.
nskip=0
suite() {
	local name=$1 t0 line summary=
	shift
	t0=$(date +%s)
	while IFS= read -r line; do
		if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			summary=$line
			npass=$((npass + BASH_REMATCH[1]))
			nfail=$((nfail + BASH_REMATCH[2]))
			nskip=$((nskip + BASH_REMATCH[3]))
			continue
		fi
		printf '%s\n' "$line"
	done < <("$here/run-tests" --no-host "${opts[@]}" "$@")
	cp "$kdir/vm/logs/suite.log" "$kdir/vm/logs/$name.log" 2>/dev/null
	echo "# debug $name: $(($(date +%s) - t0)) s on $kver: ${summary:-no summary} (console log: $kdir/vm/logs/$name.log)"
	[ -n "$summary" ] || fail "debug:$name" "run-tests printed no summary line"
}

[ ${#boot1[@]} -gt 0 ] && suite suite "${boot1[@]}"
[ ${#boot2[@]} -gt 0 ] && suite failslab "${boot2[@]}"
finish
