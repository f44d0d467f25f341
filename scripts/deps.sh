#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install the system packages the build, the tests and the demo need.
# Idempotent: only missing packages are installed, after one `apt-get update`.
# Prints what it installed (or that nothing was missing).
set -euo pipefail

PKGS=(
	build-essential cmake pkg-config
	linux-headers-amd64 linux-image-amd64
	qemu-system-x86 busybox-static cpio kmod
	libnl-3-dev libnl-genl-3-dev libcmocka-dev
	libarchive-dev libssl-dev
	sparse dkms gcc-multilib
	python3 jq
	clang libclang-rt-14-dev
	rsync debootstrap dwarves
	linux-source-6.1 bc bison flex libelf-dev xz-utils
	# the CDI project's JSON schema (schema/schema.json, defs.json) and a
	# validator for it: scripts/test-cdi.sh checks neuron-ls --cdi
	golang-github-container-orchestrated-devices-container-device-interface-dev
	python3-jsonschema
	# the kernel's genetlink schema (Documentation/netlink/genetlink.yaml,
	# not yet in 6.1's tree) for the netlink spec's check: scripts/ynl-check.sh
	linux-source-6.12 python3-yaml
)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	"install ok installed") ;;
	*) missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages present"
	exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: installed ${missing[*]}"
