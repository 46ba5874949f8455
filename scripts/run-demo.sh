#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# THE demo command (README):  bash scripts/run-demo.sh [--icount] [COUNT [ENGINE...]]
#
# Installs what is missing (scripts/install-deps.sh demo: the build and
# the VM only), builds cxbell.ko and cxbell_sim.ko, boots the
# test VM (QEMU, TCG) and runs tools/testing/cxbell/demo/pktgen-demo.sh in
# it: a simulated ConnectX-3 with two ports cabled back to back, pktgen on
# port 0 with 60-byte packets and burst 1, 2, 8, 32, 64, and a table of
# Mpps, doorbells/pkt, xmit_more/pkt and the peer's received packets.
#   --icount   deterministic guest clock (-icount shift=0, one vCPU)
#   COUNT      packets per run (default 102400)
#   ENGINE     sim engines to show: inline (default) and/or deferred
# Takes about a minute on 2 cores.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

vmargs=()
demoargs=()
if [ "${1:-}" = --icount ]; then
	vmargs+=(--icount)
	demoargs+=(--icount)
	shift
fi

bash scripts/install-deps.sh demo
echo "cxbell: building"
make -s
echo "cxbell: booting the VM"
set +e
tools/testing/cxbell/vm-run "${vmargs[@]}" tools/testing/cxbell/demo/pktgen-demo.sh \
	"${demoargs[@]}" "$@" |
	grep --line-buffered -v -e '^@@cxbell-vm-exit:' -e '\] reboot: Power down$' \
		-e 'loading out-of-tree module taints kernel' -e 'hrtimer: interrupt took'
rc=${PIPESTATUS[0]}
exit "$rc"
