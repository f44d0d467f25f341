#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run every test suite and print one totals line:
#   N passed, N failed
# Suites: each host CMocka program (build/unit_test_*, TAP output, plans
# compared with results), the same built with ASan/UBSan (build-asan/), the
# 32/64-bit UAPI layout comparison, the packaging test
# (scripts/test-packaging.sh, root: DKMS, make install), a short run of
# every fuzz target, the harness self-test (scripts/harness-selftest.sh),
# checkpatch --strict on kmod/ (scripts/checkpatch.sh), the licensing
# check (scripts/licensing.sh), then, for every
# kernel of the matrix (scripts/kmatrix.sh: Debian's kernels and the debug
# kernel of scripts/debug-kernel.sh), the module's
# W=1 dkms build (scripts/kbuild-matrix.sh) and the QEMU guest suites
# (scripts/vm.sh), and on the default and the debug kernel the PCI backend
# against emulated PCI functions (scripts/pci-vm.sh). Every suite prints
# TAP (scripts/tap.sh) and run_tap below is the one parser. Exit status is non-zero when anything failed or
# a suite did not account for its plan.
#
#   scripts/check.sh [KERNELS="ID ..."|KERNELS=host] [KVER=V]
#
# KERNELS (also from the environment) narrows the matrix, e.g.
# KERNELS=6.1-amd64 for a quick run; "host" is the host's default kernel;
# the default, "all", is every kernel `scripts/kmatrix.sh ids` lists: the
# Debian kernels and the debug kernel 6.1-debug; "debian" leaves the debug
# kernel out.
# KVER=V is the host kernel release the packaging test and the harness
# self-test use (default: the newest with headers and an image).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/tap.sh"
build=${BUILD_DIR:-$top/build}
kver_arg=()
kernels=${KERNELS:-all}
for a in "$@"; do
	case "$a" in
	KVER=*) kver_arg=(--kver "${a#KVER=}") ;;
	KERNELS=*) kernels=${a#KERNELS=} ;;
	-h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	esac
done
case "$kernels" in
# The default ("all") is the Debian kernels and the debug kernel (6.1-debug,
# scripts/debug-kernel.sh); "debian" is the Debian kernels alone.
all|all+debug) read -r -a kernel_ids <<<"$("$top/scripts/kmatrix.sh" ids | tr '\n' ' ')" ;;
debian) read -r -a kernel_ids <<<"$("$top/scripts/kmatrix.sh" ids | grep -v -- '-debug$' | tr '\n' ' ')" ;;
*) read -r -a kernel_ids <<<"${kernels//,/ }" ;;
esac

if [ ${#kernel_ids[@]} -eq 0 ]; then
	echo "check: KERNELS='$kernels' names no kernel" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

# The debug kernel is built from source (about 10 minutes of both cores on
# a fresh machine; cached after that). Build it in the background at the
# lowest priority from the start, in the cycles the host suites and the
# other kernels' guests leave idle, and give it its module build and guest
# run after all the others.
debug_id=6.1-debug
want_debug=0
main_ids=()
for id in "${kernel_ids[@]}"; do
	if [ "$id" = "$debug_id" ]; then want_debug=1; else main_ids+=("$id"); fi
done
mkdir -p "$build"
if [ "$want_debug" = 1 ]; then
	debug_log=$build/debug-kernel-build.log
	# its own process group, so that an interrupted check stops all of it
	# (the cache lock and the build's temporary tree keep a half build out)
	setsid nice -n 19 "$top/scripts/debug-kernel.sh" build > "$debug_log" 2>&1 &
	debug_pid=$!
	trap 'kill -- "-$debug_pid" 2>/dev/null' EXIT
fi

total_pass=0
total_fail=0

shopt -s nullglob
# run_tap LABEL CMD...: the one parser. Every suite prints TAP
# (scripts/tap.sh): "ok N - ..." and "not ok N - ..." lines and one plan
# "1..N" per TAP document (CMocka prints one per group, the guest one per
# suite). The failing lines and the suite's totals comment are shown. A
# suite fails (one more failure counted) when the plans do not add up to
# the results seen (it died, or lost lines), when it has no plan or no
# result, or when its exit status disagrees with its results.
run_tap() {
	local label=$1 out rc p f why t0=$SECONDS
	shift
	out=$(mktemp)
	# stream what a reader needs: failing checks, their details, the totals
	"$@" 2>&1 | tee "$out" | grep -E --line-buffered '^(not ok |# .*(ERROR|error|passed,)|#    )'
	rc=${PIPESTATUS[0]}
	read -r p f why < <(tap_count "$out" "$rc")
	[ -z "$why" ] || echo "check: $label $why" >&2
	[ "$rc" -eq 0 ] && [ "$f" -ne 0 ] && echo "check: $label exited 0 but reported $f failure(s)" >&2
	printf '%-44s %4d passed, %d failed\n' "$label" "$p" "$f"
	# wall time per suite (stderr), for sizing the run against CI's hour
	# (a guest job's is its own: reap below)
	[ -n "${replaying:-}" ] || echo "check: $label took $((SECONDS - t0)) s (at $SECONDS s)" >&2
	rm -f "$out"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
}

# Host unit tests: every CMocka program (TAP output; sanitizer reports
# fail the program through halt_on_error), plain and under ASan/UBSan.
run_units() {
	local label=$1 dir=$2 t
	local units=("$dir"/unit_test_*)
	if [ ${#units[@]} -eq 0 ]; then
		echo "check: no unit test programs under $dir (run make check)" >&2
		total_fail=$((total_fail + 1))
		return
	fi
	for t in "${units[@]}"; do
		run_tap "$label $(basename "$t")" env CMOCKA_MESSAGE_OUTPUT=TAP ASAN_OPTIONS=detect_leaks=1 \
			UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$t"
	done
}

run_units unit "$build"
run_units unit-asan "${build}-asan"

# The user ABI is the same for 32- and 64-bit processes.
run_tap uapi-layout "$top/scripts/uapi-layout.sh"
# The netlink family's YNL spec against the kernel's schema, the header
# and the module (docs/genl.md).
run_tap ynl "$top/scripts/ynl-check.sh"
run_tap cdi env BUILD_DIR="$build" "$top/scripts/test-cdi.sh"

# A short, time-bounded run of every libFuzzer target (tests/fuzz/run.sh
# without -q runs them long, by hand).
run_tap fuzz "$top/tests/fuzz/run.sh" -q

# The harness itself: each of its checks is seen failing on purpose.
run_tap harness env BUILD_DIR="$build" "$top/scripts/harness-selftest.sh" "${kver_arg[@]}"

# The kernel's style checker on the module (checkpatch.pl --strict from
# linux-source-6.1): no error, no warning.
run_tap checkpatch "$top/scripts/checkpatch.sh"

# Licensing: every file's SPDX expression, the licence texts, and the
# symbols libnrt.so.1 exports against libnrt/libnrt.map (scripts/licensing.sh).
run_tap licensing "$top/scripts/licensing.sh" --lib "$build/libnrt.so.1"
# libnrt's execution path on one page of text (scripts/hot-text.sh).
run_tap hot-text "$top/scripts/hot-text.sh" "$build/libnrt.so.1"

# The kernel matrix: build the module for each kernel with `dkms build`
# (W=1, sparse on the default one), then boot each and run the whole guest
# suite on it with the module DKMS built.
manifest=$build/kmatrix-manifest
: > "$manifest"
sparse_id=
if [ ${#main_ids[@]} -gt 0 ]; then
	sparse_id=${main_ids[0]}
	for id in "${main_ids[@]}"; do
		case "$id" in 6.1-amd64|host) sparse_id=$id; break ;; esac
	done
	run_tap kbuild env BUILD_DIR="$build" "$top/scripts/kbuild-matrix.sh" \
		--manifest "$manifest" --sparse "$sparse_id" "${main_ids[@]}"
	# Packaging (DKMS on this host, make install, the pkg-config client;
	# the dkms build for every kernel of the matrix is kbuild's, above).
	# Before the guest run: it builds $build/vm/vm_pkgconfig_client for
	# 90_pkgconfig.
	run_tap packaging env BUILD_DIR="$build" "$top/scripts/test-packaging.sh" \
		--no-client-boot "${kver_arg[@]}"
fi

# The guest runs, one at a time by default (CHECK_GUEST_JOBS=N runs N side
# by side). Measured with two at a time on a 2-core machine (2026-12-01,
# at dec8bc2): each guest ran 1.6-1.9 times slower, so the pair gained
# almost nothing, and the debug kernel's fuzzer, sharing the cores with
# another guest, fell from about 320 operations a second to 30 (its vCPUs,
# each preempted while holding a lock, leave the other spinning) and
# reported a hang. Every job's output is kept and accounted by run_tap
# when it ends (docs/kernels.md, "In make check").
guest_jobs=${CHECK_GUEST_JOBS:-1}
case "$guest_jobs" in
''|*[!0-9]*|0) echo "check: CHECK_GUEST_JOBS='$guest_jobs' is not a count" >&2; guest_jobs=1 ;;
esac

# guest_cmd KIND ID ONLY: sets cmd=(...) and label for one job: KIND vm
# (scripts/vm.sh, the guest suites, ONLY "-" for all of them or a
# comma-separated --only list) or pci (scripts/pci-vm.sh) on kernel ID
# (its module from the manifest). Returns 1 when ID has no module.
guest_cmd() {
	local kind=$1 id=$2 only=$3 krel vmlinuz module limit sizes opts tag
	cmd=()
	label="$kind $id"
	if ! read -r _ krel vmlinuz module < <(grep "^$id " "$manifest" 2>/dev/null); then
		echo "check: kernel $id: no module was built, its $kind suites did not run" >&2
		return 1
	fi
	opts=()
	case "$only" in
	-) tag=$id ;;
	^*)	# every suite but these
		opts=(--only "$(cd "$top/tests/vm" && ls [0-9][0-9]_*.sh | sed 's/\.sh$//' |
				grep -vxF "$(tr , '\n' <<<"${only#^}")" | paste -sd, -)")
		label="$label (all but ${only#^})"
		tag=$id-rest ;;
	*) opts=(--only "$only"); label="$label ($only)"; tag=$id-${only//,/-} ;;
	esac
	if [ "$kind" = pci ]; then
		# every PCI suite on the default and the debug kernel (the
		# debug kernel has PCIe native hotplug: docs/pci-testing.md)
		case "$id" in
		*-debug) opts+=(--timeout 1800 --no-slub-debug) ;;
		*) opts+=(--timeout 900) ;;
		esac
		logf=$build/pci-check-$tag.log
		cmd=(env BUILD_DIR="$build" "$top/scripts/pci-vm.sh" --kernel "$vmlinuz"
		     --kver "$krel" --module "$module" --label "$id" --log "$logf" "${opts[@]}")
		return 0
	fi
	# Every suite runs on every kernel but two on the five flavour kernels
	# and the debug kernel (see the job list below); the long ones are sized per kernel
	# (docs/RELIABILITY.md): full size on the default kernel, shorter on
	# the rest of the matrix, and on the debug kernel (KASAN, lockdep,
	# kmemleak: about 5x slower) sized to fit its time: 3 load/unload
	# cycles (20 elsewhere; seconds each there), 4 fault-injection steps
	# per sweep with loads of 4 devices (16 by default: init's fault
	# points and each load's time grow with them), 5 hotplug cycles, a
	# 20 s pressure phase, a 6-device netlink dump (16 elsewhere) and
	# 20000 fuzz operations (the fuzzer ran about 180 a second there in a
	# whole run, 2026-12-01 at d3e8307, so its default of 200000 would
	# take 18 minutes alone; docs/RELIABILITY.md). The default kernel
	# runs 50 hotplug cycles (100 by default). With 30000 operations, 5
	# module cycles and 100 hotplug cycles on the debug kernel the whole
	# run took about 62 minutes (2026-12-02, at 1c166df); these sizes and
	# VM_TOOLS_DOCTOR=0 keep it under the hour.
	# The debug kernel boots without slub_debug: KASAN checks the same
	# and more, and the two together halve its speed.
	case "$id" in
	*-debug) limit=2700
		sizes=(VM_HOTPLUG_CYCLES=5 VM_FAILINIT_REQUIRED=1 VM_FAILINIT_STEPS=4
		       VM_FAILINIT_DEVICES=4 VM_HOSTILE_OPS=20000 VM_PRESSURE_SECONDS=20
		       VM_MODULE_CYCLES=3 VM_GENL_LARGE_DEVICES=6 VM_TOOLS_HOLDERS=0
		       VM_TOOLS_DOCTOR=0)
		opts+=(--no-slub-debug) ;;
	"$sparse_id") limit=900; sizes=(VM_HOTPLUG_CYCLES=50) ;;
	*) limit=900
	   sizes=(VM_HOSTILE_OPS=10000 VM_PRESSURE_SECONDS=8 VM_HOTPLUG_CYCLES=10 VM_MONITOR_IMDS=0
		  VM_TOOLS_HOLDERS=0 VM_TOOLS_DOCTOR=0) ;;
	esac
	logf=$build/vm-check-$tag.log
	cmd=(env BUILD_DIR="$build" "${sizes[@]}" "$top/scripts/vm.sh" --mode check
	     --kernel "$vmlinuz" --kver "$krel" --module "$module" --label "$id"
	     --log "$logf" --timeout "$limit" "${opts[@]}")
}

# a finished job's output and exit status, for run_tap
replay() { cat "$1"; return "$2"; }

# The jobs: the default kernel's suites and its PCI suite, the other
# Debian kernels, and the debug kernel's suites and its PCI suite (with
# more than one job at a time, its fuzzer gets a guest of its own). The
# debug kernel's jobs start once its kernel is built, ahead of the Debian
# kernels still waiting when the build ends early.
# The flavour kernels (cloud, rt) are their base kernel's source with
# another configuration: they, and the debug kernel (below), run every
# suite but 25_app and 42_monitor, whose time goes to libnrt and
# neuron-monitor in userspace (NEFFs, profiles, JSON reports, about 180 s
# of the debug kernel's guest); what those reach in the driver, 20_exec,
# 21_mem, 40_genl and 41_tools check on every kernel (to keep the whole
# run within the hour; docs/kernels.md).
jobs=()
for id in "${main_ids[@]}"; do
	case "$id" in
	*-cloud-amd64|*-rt-amd64) jobs+=("vm $id ^25_app,42_monitor") ;;
	*) jobs+=("vm $id -") ;;
	esac
	[ "$id" != "$sparse_id" ] || jobs+=("pci $id -")
done
debug_jobs=()
if [ "$want_debug" = 1 ] && [ "$guest_jobs" -gt 1 ]; then
	debug_jobs=("vm $debug_id 60_hostile" "vm $debug_id ^60_hostile,25_app,42_monitor"
		    "pci $debug_id -")
elif [ "$want_debug" = 1 ]; then
	debug_jobs=("vm $debug_id ^25_app,42_monitor" "pci $debug_id -")
fi

# the debug kernel's module, once its build is done (waits for it)
debug_ready=0
prepare_debug() {
	local t0=$SECONDS
	debug_ready=1
	if ! wait "$debug_pid"; then
		echo "check: building the debug kernel failed, see $debug_log:" >&2
		tail -n 5 "$debug_log" >&2
	fi
	echo "check: waited $((SECONDS - t0)) s for the debug kernel build (at $SECONDS s)" >&2
	# its module (W=1; a build failure is a failing check)
	run_tap "kbuild $debug_id" env BUILD_DIR="$build" "$top/scripts/kbuild-matrix.sh" \
		--manifest "$manifest.debug" "$debug_id"
	cat "$manifest.debug" >> "$manifest" 2>/dev/null
}

# the debug kernel's build has ended (its process gone, or a zombie)
debug_built() {
	[ "$debug_ready" = 1 ] || ! grep -qs '^State:[[:space:]]*[^Z]' "/proc/$debug_pid/status"
}

jobdir=$(mktemp -d "$build/check-jobs.XXXXXX")
declare -A job_pid=() job_label=() job_t0=() job_log=()
# reap: account every job that has ended
reap() {
	local j rc before
	for j in "${!job_pid[@]}"; do
		if [ ! -f "$jobdir/$j.rc" ]; then
			# still running; or gone without its status (killed)
			kill -0 "${job_pid[$j]}" 2>/dev/null && continue
			[ -f "$jobdir/$j.rc" ] || echo 125 > "$jobdir/$j.rc"
		fi
		wait "${job_pid[$j]}" 2>/dev/null
		rc=$(cat "$jobdir/$j.rc")
		before=$total_fail
		replaying=1 run_tap "${job_label[$j]}" replay "$jobdir/$j.out" "$rc"
		echo "check: ${job_label[$j]} ran $((SECONDS - job_t0[$j])) s (at $SECONDS s)" >&2
		[ "$total_fail" -eq "$before" ] ||
			echo "check: ${job_label[$j]} FAILED, its guest's log is ${job_log[$j]}"
		unset "job_pid[$j]"
	done
}
next=0 dnext=0
while [ "$next" -lt ${#jobs[@]} ] || [ "$dnext" -lt ${#debug_jobs[@]} ] ||
      [ ${#job_pid[@]} -gt 0 ]; do
	while [ ${#job_pid[@]} -lt "$guest_jobs" ]; do
		# a debug job when its kernel is built (or nothing else is left)
		if [ "$dnext" -lt ${#debug_jobs[@]} ] &&
		   { debug_built || [ "$next" -ge ${#jobs[@]} ]; }; then
			[ "$debug_ready" = 1 ] || prepare_debug
			spec=${debug_jobs[$dnext]}
			j=d$dnext
			dnext=$((dnext + 1))
		elif [ "$next" -lt ${#jobs[@]} ]; then
			spec=${jobs[$next]}
			j=m$next
			next=$((next + 1))
		else
			break
		fi
		read -r kind id only <<<"$spec"
		if ! guest_cmd "$kind" "$id" "$only"; then
			total_fail=$((total_fail + 1))
			continue
		fi
		job_label[$j]=$label
		job_log[$j]=$logf
		job_t0[$j]=$SECONDS
		( "${cmd[@]}" > "$jobdir/$j.out" 2>&1; echo $? > "$jobdir/$j.rc.tmp"
		  mv "$jobdir/$j.rc.tmp" "$jobdir/$j.rc" ) &
		job_pid[$j]=$!
	done
	# until one of the jobs ends (only they: the debug kernel's build is
	# waited for by prepare_debug)
	[ ${#job_pid[@]} -eq 0 ] || wait -n "${job_pid[@]}" 2>/dev/null
	reap
done
rm -rf "$jobdir"

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
