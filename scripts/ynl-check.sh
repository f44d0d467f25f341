#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The "neuron" family's YNL spec (docs/netlink/neuron.yaml) against the
# kernel's genetlink schema, the UAPI header and the module's policy and
# operations (scripts/ynl-check.py; TAP). The schema is the kernel's
# Documentation/netlink/genetlink.yaml, taken once from linux-source-6.12
# (scripts/deps.sh installs it; 6.1's tree predates the schema) into
# /var/cache/neuron-oss/ynl.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/tap.sh"
cache=${NEURON_YNL_CACHE:-/var/cache/neuron-oss/ynl}
src=/usr/src/linux-source-6.12.tar.xz
schema=$cache/genetlink.yaml
ynl=$cache/ynl

if [ ! -s "$schema" ] || [ ! -s "$ynl/lib/nlspec.py" ]; then
	if [ ! -r "$src" ]; then
		tap_fail schema-present "no $schema and no $src to take it from (scripts/deps.sh installs linux-source-6.12)"
		tap_done ynl
		exit 1
	fi
	mkdir -p "$cache" && tmp=$(mktemp -d "$cache/.x.XXXXXX") &&
	tar -xJf "$src" -C "$tmp" linux-source-6.12/Documentation/netlink/genetlink.yaml \
		linux-source-6.12/tools/net/ynl/lib &&
	rm -rf "$ynl" && mkdir -p "$ynl" &&
	mv "$tmp/linux-source-6.12/tools/net/ynl/lib" "$ynl/lib" &&
	mv "$tmp/linux-source-6.12/Documentation/netlink/genetlink.yaml" "$schema"
	rc=$?
	rm -rf "${tmp:-/nonexistent}"
	if [ $rc -ne 0 ] || [ ! -s "$schema" ]; then
		tap_fail schema-present "could not take genetlink.yaml and tools/net/ynl out of $src"
		tap_done ynl
		exit 1
	fi
fi
exec python3 "$top/scripts/ynl-check.py" "$schema" "$top/docs/netlink/neuron.yaml" \
	"$top/include/uapi/neuron/neuron_genl.h" "$top/kmod/neuron_genl.c" "$ynl"
