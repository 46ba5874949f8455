#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the newest installed kernel version that has both an image
# (/boot/vmlinuz-V plus /lib/modules/V/kernel) and headers
# (/lib/modules/V/build or /usr/src/linux-headers-V). Exit 1 if none.
# CXBELL_KVER overrides the choice.
set -eu

if [ -n "${CXBELL_KVER:-}" ]; then
	echo "$CXBELL_KVER"
	exit 0
fi

best=
for img in /boot/vmlinuz-*; do
	[ -e "$img" ] || continue
	v=${img#/boot/vmlinuz-}
	[ -d "/lib/modules/$v/kernel" ] || continue
	[ -e "/usr/src/linux-headers-$v/Makefile" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
done
[ -n "$best" ] || exit 1
echo "$best"
