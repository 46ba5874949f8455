#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# THE test command (README, .ci/run):  bash scripts/run-tests.sh
#
# Installs what is missing (scripts/install-deps.sh test), then runs the whole
# suite with tools/testing/cxbell/run-tests: checkpatch, the build (make),
# host unit tests if present, the VM tests in one QEMU boot, then the
# tests of the QEMU ConnectX-3 model (tests/cx3-*.sh) in a second boot,
# after building that QEMU (tools/testing/cxbell/qemu/build.sh: about
# 7 min on a fresh machine, cached in /var/cache/cxbell after). Options
# are passed to run-tests (e.g. -v, test names, or --kernel 6.12: boot
# Debian 13's kernel instead of 6.1, the default). The last line printed
# is "N passed, N failed, N skipped"; the exit status is nonzero iff a
# test failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

if ! bash scripts/install-deps.sh test; then
	echo "FAIL install-deps"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
exec tools/testing/cxbell/run-tests "$@"
