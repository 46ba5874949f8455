#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl (--strict --no-tree -f) over every project
# C source and header: drivers/, include/, tools/testing/cxbell/ (unit tests
# and helpers). checkpatch.pl, spelling.txt and const_structs.checkpatch
# come from Debian's linux-source tarball (/usr/src/linux-source-*.tar.xz,
# package linux-source, see scripts/install-deps.sh); they are extracted
# once into tools/testing/cxbell/.build/checkpatch/.
#
#   scripts/checkpatch.sh [FILE...]     (default: all project files)
#
# Prints checkpatch's normal output and a summary line
# "checkpatch: N files, E errors, W warnings, C checks".
# Exits 1 if any ERROR was reported (warnings and checks do not fail).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${CXBELL_BUILD_DIR:-$top/tools/testing/cxbell/.build}

# The tarball of the kernel series we build against, else the newest.
kver=$("$top/scripts/kver.sh" 2>/dev/null || uname -r)
series=$(echo "$kver" | cut -d. -f1,2)
tarball=/usr/src/linux-source-$series.tar.xz
if [ ! -e "$tarball" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
fi
if [ -z "$tarball" ] || [ ! -e "$tarball" ]; then
	echo "checkpatch: no /usr/src/linux-source-*.tar.xz (run scripts/install-deps.sh)" >&2
	exit 1
fi

cp_dir=$build/checkpatch/$(basename "$tarball" .tar.xz)
cp_pl=$cp_dir/checkpatch.pl
if [ ! -e "$cp_pl" ] || [ "$tarball" -nt "$cp_pl" ]; then
	echo "checkpatch: extracting checkpatch.pl from $tarball" >&2
	mkdir -p "$build/checkpatch"
	tmp=$(mktemp -d "$build/checkpatch/x.XXXXXX")
	tar -xJf "$tarball" -C "$tmp" --wildcards --no-wildcards-match-slash \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	mkdir -p "$cp_dir"
	mv "$tmp"/*/scripts/* "$cp_dir/"
	rm -rf "$tmp"
	touch "$cp_pl"
fi

files=("$@")
if [ ${#files[@]} = 0 ]; then
	while IFS= read -r -d '' f; do
		files+=("${f#./}")
	done < <(cd "$top" && find drivers include tools/testing/cxbell \
		-path '*/.build' -prune -o \
		\( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' -type f -print0 \
		2>/dev/null | sort -z)
fi
if [ ${#files[@]} = 0 ]; then
	echo "checkpatch: 0 files, 0 errors, 0 warnings, 0 checks"
	exit 0
fi

# The QEMU device model (tools/testing/cxbell/qemu/) is kernel-styled
# QEMU code: QEMU's object model names its types with typedef'd
# CamelCase (OBJECT_DECLARE_SIMPLE_TYPE, CX3State), its sources carry
# the SPDX tag in a /* */ comment, 64-bit formats split strings
# ("%" PRIx64) and the counter table is an X-macro; everything else is
# checked.
kfiles=()
qfiles=()
for f in "${files[@]}"; do
	case $f in
	*tools/testing/cxbell/qemu/*) qfiles+=("$f") ;;
	*) kfiles+=("$f") ;;
	esac
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
set +e
cpl=(perl "$cp_pl" --strict --no-tree --no-summary-file --color=never)
{
	[ ${#kfiles[@]} = 0 ] || (cd "$top" && "${cpl[@]}" -f "${kfiles[@]}")
	[ ${#qfiles[@]} = 0 ] || (cd "$top" && "${cpl[@]}" \
		--ignore NEW_TYPEDEFS,CAMELCASE,SPDX_LICENSE_TAG,SPLIT_STRING,COMPLEX_MACRO,MACRO_ARG_REUSE,TRAILING_SEMICOLON \
		-f "${qfiles[@]}")
} >"$out" 2>&1
set -e

# --strict flags CamelCase in names the kernel itself defines as enum
# members (ETHTOOL_LINK_MODE_10000baseCR_Full_BIT): a kernel tree would
# flag them too, and every driver that reports link modes carries them.
# Such a check is dropped (and said) when the name is in the kernel's
# headers (/lib/modules/KVER/source); any other CamelCase counts.
ksrc=$(readlink -f "/lib/modules/$kver/source" 2>/dev/null || true)
kernel_names=0
if [ -n "$ksrc" ] && [ -d "$ksrc/include" ]; then
	filtered=$(mktemp)
	while IFS= read -r w; do
		if grep -rqw --include='*.h' -- "$w" "$ksrc/include"; then
			echo "$w"
		fi
	done < <(sed -n 's/^CHECK: Avoid CamelCase: <\(.*\)>$/\1/p' "$out" | sort -u) >"$filtered"
	if [ -s "$filtered" ]; then
		# drop each such check's block (message, location, line, blank)
		awk -v names="$filtered" '
			BEGIN { while ((getline w < names) > 0) ok["<" w ">"] = 1 }
			/^CHECK: Avoid CamelCase: </ && ($4 in ok) { skip = 1; dropped++; next }
			skip && /^$/ { skip = 0; next }
			skip { next }
			/^total: [0-9]+ errors/ && dropped { $6 -= dropped; dropped = 0 }
			{ print }' "$out" >"$out.f"
		kernel_names=$(($(grep -c '^CHECK: Avoid CamelCase' "$out") -
			$(grep -c '^CHECK: Avoid CamelCase' "$out.f" || true)))
		mv "$out.f" "$out"
	fi
	rm -f "$filtered"
fi
cat "$out"
if [ "$kernel_names" != 0 ]; then
	echo "checkpatch: $kernel_names CamelCase checks on names the kernel's headers define (not counted)"
fi

# "total: 1 errors, 2 warnings, 3 checks, 45 lines checked" per file.
read -r nerr nwarn nchk < <(awk '/^total: [0-9]+ errors/ {
	e += $2; w += $4; c += $6; n++ } END { print e + 0, w + 0, c + 0 }' "$out")
nfiles=$(grep -c '^total: [0-9]* errors' "$out" || true)
echo "checkpatch: $nfiles files, $nerr errors, $nwarn warnings, $nchk checks"
if [ "$nfiles" != "${#files[@]}" ]; then
	echo "checkpatch: checkpatch.pl reported on $nfiles of ${#files[@]} files" >&2
	exit 1
fi
[ "$nerr" = 0 ]
