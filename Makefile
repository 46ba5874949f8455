# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of cxbell.ko, cxbell_sim.ko, cxbell_mlx4.ko (the
# ConnectX-3 backend, where the kernel has mlx4_core) and cxbell_mlx5.ko
# (the ConnectX-4+ backend, where it has mlx5_core's Ethernet).
#   make                 build for the running kernel if its headers are
#                        installed (what `make; insmod` expects), else
#                        for the newest kernel installed with image and
#                        headers (scripts/kver.sh); says which
#   make C=1 W=1         same, with sparse and extra warnings
#   make KVER=V          build for installed kernel V (the test and bench
#                        harnesses pass scripts/kver.sh's, the kernel
#                        their VM boots)
#   make KDIR=/path      build against another kernel tree
#   make CXBELL_MLX4=n   leave cxbell_mlx4 out (a kernel without
#                        mlx4_core is an error otherwise)
#   make CXBELL_MLX5=n   leave cxbell_mlx5 out (likewise without
#                        CONFIG_MLX5_CORE_EN)
#   make install         install the modules into
#                        /lib/modules/$(KVER)/extra and run depmod
#                        (INSTALL_MOD_PATH=DIR: under DIR instead)
# DKMS builds through dkms.conf (README.md, "On a ConnectX host").
RUNNING := $(shell uname -r)
ifeq ($(origin KVER),undefined)
ifneq ($(wildcard /lib/modules/$(RUNNING)/build/Makefile),)
KVER := $(RUNNING)
KVER_WHY := the running kernel
else
KVER := $(shell $(CURDIR)/scripts/kver.sh 2>/dev/null)
KVER_WHY := the newest installed; no headers for the running $(RUNNING)
endif
else
KVER_WHY := as given
endif
KDIR ?= /lib/modules/$(KVER)/build
ifeq ($(origin KDIR),file)
ifeq ($(KVER),)
$(error cxbell: no kernel headers found: install linux-headers-$(RUNNING) or give KVER= or KDIR=)
endif
$(info cxbell: building for $(KVER) ($(KVER_WHY)))
else
$(info cxbell: building against $(KDIR))
endif

all: modules

modules clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $@

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

# The benchmark (tools/testing/cxbell/bench/run; BENCH_ARGS=--full etc.):
# installs what it needs, builds, boots the VM, prints the tables.
bench:
	bash $(CURDIR)/scripts/install-deps.sh bench
	$(MAKE) -C $(CURDIR) modules KVER=$$($(CURDIR)/scripts/kver.sh)
	$(CURDIR)/tools/testing/cxbell/bench/run $(BENCH_ARGS)

# The VM suite on a debug kernel (KASAN, lockdep, kmemleak, DMA-API
# debugging, failslab) built once from Debian's linux-source and cached
# outside the tree: scripts/check-debug.sh, Documentation/testing.rst.
check-debug:
	bash $(CURDIR)/scripts/check-debug.sh $(CHECK_ARGS)

.PHONY: all modules clean install bench check-debug
