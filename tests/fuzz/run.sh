#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build the libFuzzer targets (tests/fuzz/fuzz_*.c, fuzz_*.cpp) with clang and run each
# for a fixed number of executions, from a seed corpus written here.
#
#   tests/fuzz/run.sh [-q] [-r RUNS] [-t SECONDS] [-b BUILD_DIR] [fuzzer...]
#
# -q          quick: what make check runs, 100000 executions or 15 s per
#             fuzzer, whichever comes first (-r/-t after -q override)
# -r RUNS     executions per fuzzer (default 200000)
# -t SECONDS  also stop each fuzzer after this long (default: no limit)
# -b DIR      build directory (default build-fuzz; configured if missing)
# fuzzer...   names (fuzz_parse ...); default: every tests/fuzz/fuzz_*.c and fuzz_*.cpp
#
# Prints TAP (scripts/tap.sh), one line per fuzzer ("ok 1 - fuzz_parse: 200000 runs ..."
# or "not ok 1 - fuzz_parse: ..." with the crash and the reproducer file
# below as comments), and exits non-zero if any fuzzer failed or
# could not be built. A reproducer is replayed with:
#   BUILD_DIR/fuzz_x path/to/crash-file
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/tap.sh"
runs=200000
secs=0
build=$top/build-fuzz
while getopts "qr:t:b:h" opt; do
	case $opt in
	q) runs=100000; secs=15 ;;
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	b) build=$OPTARG ;;
	*) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

if [ $# -gt 0 ]; then
	fuzzers=("$@")
else
	fuzzers=()
	for f in "$top"/tests/fuzz/fuzz_*.c "$top"/tests/fuzz/fuzz_*.cpp; do
		[ -e "$f" ] || continue
		f=$(basename "$f")
		fuzzers+=("${f%%.*}")
	done
fi

# The library is instrumented too (coverage + ASan/UBSan), not just the
# fuzz target itself.
if [ ! -f "$build/CMakeCache.txt" ]; then
	if ! CC=clang CXX=clang++ CFLAGS=-fsanitize=fuzzer-no-link CXXFLAGS=-fsanitize=fuzzer-no-link \
		cmake -S "$top" -B "$build" -DNRT_SANITIZE=ON >/dev/null; then
		tap_fail configure "cmake with clang failed"
		tap_done fuzz
		exit 1
	fi
fi
if ! cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target "${fuzzers[@]}" >/dev/null; then
	tap_fail build "the fuzz targets did not build (clang with libFuzzer needed)"
	tap_done fuzz
	exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- seeds ----------------------------------------------------------------
seed() { # fuzzer name printf-format...
	local dir=$work/$1/corpus name=$2
	shift 2
	mkdir -p "$dir"
	printf "$@" >"$dir/$name"
}
# the parser: knob lines and the u64 boundaries
seed fuzz_parse a 'sram 3 9\n'
seed fuzz_parse b '18446744073709551615 18446744073709551616'
seed fuzz_parse c '0xffffffffffffffff 0x10000000000000000 0X1F'
seed fuzz_parse d '4294967295 4294967296 1 2 3 4 5 6'
seed fuzz_parse e 'hbm\t0x10 nc\r\n'
# the blob: two records, a max u64 value, an over-long value
seed fuzz_fwio_frame a '\014\003abc\015\00242'
seed fuzz_fwio_frame b '\001\02418446744073709551615\002\02418446744073709551616'
seed fuzz_fwio_frame c '\250\0010\374\00299'
# a ring of 16 entries: control area (entries 16) then one lap of valid entries
ring_seed() {
	local i
	printf '\000\000\000\000\000\000\000\000\020\000\000\000\020\000\000\000'
	printf '\000%.0s' $(seq 1 48)
	for i in $(seq 0 15); do
		printf "\\$(printf %03o $((i % 11)))\\000\\000\\237\\001\\002\\003\\004"
		printf '\000\000\000\000\000\000\000\000'
	done
}
mkdir -p "$work/fuzz_nq_decode/corpus"
ring_seed >"$work/fuzz_nq_decode/corpus/ring16"
seed fuzz_nq_decode entry '\004\000\000\237\000\000\000\000\000\000\000\000\000\000\000\000'

# the NEFF loader: a whole NEFF (mode 0), a data section (1), a model.sim (2)
seed fuzz_neff desc '\002format 1\nname m\nop affine_u32 3 7\ninput in 64\noutput out 64\n'
seed fuzz_neff desc2 '\002format 1\nname m\nnc_count 2\nrun_time_us 10\nop xor_u8 255\nin_offset 4\ninput a 8\ninput b 4\noutput c 4\n'
seed fuzz_neff desc3 '\002format 1\nname m\nop copy\ninput a 8\noutput c 8\ncollective all_reduce_sum_u32\n'
seed fuzz_neff raw '\000\001\000\000\000\000\000\000\000\000\004'
seed fuzz_neff gz '\001\037\213\010\000\000\000\000\000\000\003'
# a compiled NEFF's data section (mode 1): a plain tar with sg00/def.json
mkdir -p "$work/cneff/sg00"
printf '{"var": {}}' >"$work/cneff/sg00/def.json"
{ printf '\001'; tar -C "$work/cneff" -cf - --format=ustar sg00; } >"$work/fuzz_neff/corpus/compiled"

# ---- run ------------------------------------------------------------------
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
for f in "${fuzzers[@]}"; do
	bin=$build/$f
	dir=$work/$f
	mkdir -p "$dir/corpus"
	args=(-runs="$runs" -artifact_prefix="$build/$f-" -print_final_stats=1)
	[ "$secs" -gt 0 ] && args+=(-max_total_time="$secs")
	(cd "$dir" && "$bin" "${args[@]}" corpus >"$dir/log" 2>&1)
	rc=$?
	done_line=$(grep -E '^Done [0-9]+ runs' "$dir/log" | tail -n 1)
	execs=$(grep -E '^stat::number_of_executed_units' "$dir/log" | awk '{print $2}')
	cov=$(grep -E '^#[0-9]+.*cov:' "$dir/log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')
	if [ "$rc" -eq 0 ] && [ "${execs:-0}" -gt 0 ]; then
		tap_pass "$f: $execs runs (${cov:-no stats}) ${done_line#Done * runs }"
	else
		tap_fail "$f" "exit $rc after ${execs:-no} runs"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$dir/log" | head -n 8 | sed 's/^/#    /'
	fi
done
tap_done fuzz
