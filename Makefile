# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Top-level build: the kernel module (kbuild) and libnrt + tools + tests
# (CMake, out of tree under build/).
#
#   make            build everything
#   make check      host unit tests, fuzzers, the harness self-test, then the module
#                   built and the QEMU guest suites run on every kernel of the
#                   matrix (KERNELS="6.1-amd64 ..." narrows it, docs/kernels.md);
#                   ends "N passed, N failed"
#   make demo       boot the guest with two simulated devices and show them
#   make bench      benchmarks (host and guest), printing ratios
#   make install    libnrt, headers, tools, libnrt.pc (PREFIX, DESTDIR)
#   make dkms-install    neuron.ko through DKMS (package neuron-oss), udev rule,
#                        modules-load entry; root (docs/INSTALL.md)
#   make dkms-uninstall  remove all of that again
#   make clean
#
# KVER=<version> picks the kernel to build for and boot (default: the newest
# version with both /boot/vmlinuz-V and /lib/modules/V/build).

BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_BUILD_TYPE ?= RelWithDebInfo
KVER_ARG := $(if $(KVER),KVER=$(KVER))

all: deps kmod lib

deps:
	@scripts/deps.sh

kmod: deps
	$(MAKE) -C kmod $(KVER_ARG)

# after deps: under make -j the configure step must not race the packages'
# installation (pkg-config would not find libarchive yet)
$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX)

lib: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

# The host unit tests also run built with ASan/UBSan, out of tree in
# $(BUILD)-asan (only they: target unit_tests).
asan: deps
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DNRT_SANITIZE=ON
	cmake --build $(BUILD)-asan -j$(JOBS) --target unit_tests

check: all asan
	BUILD_DIR=$(BUILD) scripts/check.sh $(KVER_ARG) $(if $(KERNELS),KERNELS="$(KERNELS)")

demo: all
	BUILD_DIR=$(BUILD) scripts/vm.sh --mode demo $(if $(KVER),--kver $(KVER))

bench: all
	BUILD_DIR=$(BUILD) scripts/bench.sh $(if $(KVER),--kver $(KVER))

# PREFIX is where the files claim to live (libnrt.pc's prefix), DESTDIR a
# staging root prepended to every path written.
install: lib
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix $(PREFIX)

dkms-install:
	scripts/dkms-install.sh $(if $(KVER),--kver $(KVER))

dkms-uninstall:
	scripts/dkms-uninstall.sh

clean:
	$(MAKE) -C kmod clean
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-fuzz

.PHONY: all deps kmod lib check demo bench install dkms-install dkms-uninstall clean
