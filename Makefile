# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of cxbell.ko and cxbell_sim.ko.
#   make                 build against the kernel picked by scripts/kver.sh
#   make C=1 W=1         same, with sparse and extra warnings
#   make KDIR=/path      build against another kernel tree
KVER ?= $(shell $(CURDIR)/scripts/kver.sh 2>/dev/null || uname -r)
KDIR ?= /lib/modules/$(KVER)/build

all: modules

modules clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $@

# The benchmark (tools/testing/cxbell/bench/run; BENCH_ARGS=--full etc.):
# installs what it needs, builds, boots the VM, prints the tables.
bench:
	bash $(CURDIR)/scripts/install-deps.sh
	$(MAKE) -C $(CURDIR) modules
	$(CURDIR)/tools/testing/cxbell/bench/run $(BENCH_ARGS)

.PHONY: all modules clean bench
