#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench: the host benchmarks (build/bench/*), then the guest ones
# (scripts/vm.sh --mode bench). Each prints its measurements and a
# "ratio ...: X" line computed from the same run; a summary of every ratio
# closes the output.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
vm_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) vm_args+=(--kver "$2"); shift 2 ;;
	# a kernel image and module built for it (scripts/kbuild-matrix.sh --manifest)
	--kernel|--module) vm_args+=("$1" "$2"); shift 2 ;;
	-h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

out=$(mktemp)
rc=0
shopt -s nullglob
for b in "$build"/bench/bench_*; do
	[ -x "$b" ] || continue
	echo "== host: $(basename "$b")"
	"$b" | tee -a "$out" || rc=1
	echo
done
BUILD_DIR=$build "$top/scripts/vm.sh" --mode bench "${vm_args[@]}" | tee -a "$out" || rc=1
echo
echo "== ratios"
grep -E '^ratio ' "$out" | sed 's/^/  /'
rm -f "$out"
exit $rc
