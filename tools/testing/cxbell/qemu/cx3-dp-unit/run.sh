#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host unit test of the ConnectX-3 model's datapath (cx3/connectx3_dp.c)
# with the core's services stubbed over a flat 64 MiB "guest memory":
# CQs, QP transitions, steering (DMFS rule, or B0 MCG with B0=1), TX by
# doorbell, inline, BlueFlame and LSO, RX with checksum status, arms;
# then a fuzz of commands, WQEs and doorbells under ASan/UBSan. Needs a
# QEMU tree built by ../build.sh (headers, libqemuutil.a).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
T=${CXBELL_QEMU_TREE:-${CXBELL_CACHE:-/var/cache/cxbell}/qemu/tree}
B=$T/build-cxbell
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
F="-m64 -mcx16 $(pkg-config --cflags glib-2.0) -Wall -std=gnu11 -O1 -g
   -isystem $T/linux-headers -iquote $B -iquote $T -iquote $T/include
   -iquote $T/tcg/i386 -iquote $here/../cx3 -iquote $here -pthread
   -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -fno-strict-aliasing -fno-common
   -fwrapv -fsanitize=address,undefined -Wno-missing-prototypes"
L="$B/libqemuutil.a $(pkg-config --libs glib-2.0 gthread-2.0) -lm -lz"
cc $F -c "$here/../cx3/connectx3_dp.c" -o "$out/dp.o"
cc $F -c "$here/stubs.c" -o "$out/stubs.o"
cc $F -c "$here/harness.c" -o "$out/h.o"
cc $F -c "$here/fuzz.c" -o "$out/f.o"
cc -fsanitize=address,undefined -o "$out/t" "$out/h.o" "$out/dp.o" "$out/stubs.o" $L
cc -fsanitize=address,undefined -o "$out/fz" "$out/f.o" "$out/dp.o" "$out/stubs.o" $L
"$out/t"
B0=1 "$out/t" | grep -c "qpn 000081" | sed 's/^/B0 frames delivered: /'
"$out/fz" 2>/dev/null | tail -2
