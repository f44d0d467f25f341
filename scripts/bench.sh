#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench: the host benchmarks (build/bench/*), then the guest ones
# (scripts/vm.sh --mode bench). Each prints its measurements and a
# "ratio ...: X" line computed from the same run; a summary of every ratio
# closes the output, with the CPU's model and copy features. Each host
# benchmark runs BENCH_RUNS times (default 5) and its ratios are summed up
# as the median and the spread of the runs.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
vm_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) vm_args+=(--kver "$2"); shift 2 ;;
	# a kernel image and module built for it (scripts/kbuild-matrix.sh --manifest)
	--kernel|--module) vm_args+=("$1" "$2"); shift 2 ;;
	-h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

# The machine, so a reader can tell another CPU from a regression: its
# model, the copy-related features (what memcpy's fast paths use) and the
# load when the run starts.
cpu_line() {
	local model flags f have=()
	model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	flags=" $(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n 1) "
	for f in sse4_2 avx2 avx512f avx512bw erms fsrm; do
		case "$flags" in *" $f "*) have+=("$f") ;; esac
	done
	echo "cpu: ${model:-unknown}, $(nproc) CPUs; ${have[*]:-none of sse4_2 avx2 avx512f avx512bw erms fsrm}; load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# BENCH_RUNS: how many times each host benchmark runs (default 5); its
# ratios are given as the median of the runs and their spread (min..max).
runs=${BENCH_RUNS:-5}
case "$runs" in ''|*[!0-9]*|0) echo "bench.sh: BENCH_RUNS must be a positive number" >&2; exit 2 ;; esac

out=$(mktemp)
host=$(mktemp)
rc=0
cpu_line
echo
shopt -s nullglob
for b in "$build"/bench/bench_*; do
	[ -x "$b" ] || continue
	for r in $(seq "$runs"); do
		echo "== host: $(basename "$b") (run $r of $runs)"
		"$b" | tee -a "$host" || rc=1
		echo
	done
done
BUILD_DIR=$build "$top/scripts/vm.sh" --mode bench "${vm_args[@]}" | tee -a "$out" || rc=1
echo
echo "== ratios"
cpu_line | sed 's/^/  /'
# host: "ratio NAME: X" of every run, grouped by NAME in first-seen order
awk -F': ' '/^ratio / {
	name = $1; sub(/^ratio /, "", name); v = $NF + 0
	if (!(name in n)) order[++k] = name
	vals[name, ++n[name]] = v
}
END {
	for (i = 1; i <= k; i++) {
		name = order[i]; m = n[name]
		for (a = 1; a <= m; a++) x[a] = vals[name, a]
		for (a = 2; a <= m; a++) { t = x[a]; for (b = a - 1; b >= 1 && x[b] > t; b--) x[b + 1] = x[b]; x[b + 1] = t }
		med = m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
		printf "  ratio %s: %.3f (median of %d, %.3f..%.3f)\n", name, med, m, x[1], x[m]
	}
}' "$host"
# guest: one run each
grep -E '^(guest clocksource:|ratio )' "$out" | sed 's/^/  /'
rm -f "$out" "$host"
exit $rc
