#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build neuron.ko for every kernel of the matrix with `dkms build` (the
# package's own DKMS source tree, as `make dkms-install` stages it, in a
# DKMS tree of its own: scripts/kmatrix.sh dkms-build), warning-free with
# W=1, and sparse-clean on the default kernel. One build per kernel proves
# both that DKMS builds the package there and that the code is W=1-clean;
# its module is the one the guest loads.
#
#   scripts/kbuild-matrix.sh [--manifest FILE] [--sparse ID] ID...
#
# ID: kernels of scripts/kmatrix.sh (`kmatrix.sh ids`), or "host" (the
# host's default kernel, as kmod/Makefile picks it; built with make, not
# DKMS, as is the debug kernel <X>-debug). Each is fetched (cached); nothing is built in the work tree.
# Checks, one line each:
#   (not) ok N - <ID>/fetch      the kernel is in the cache
#   (not) ok N - <ID>/build-W1   `dkms build` succeeds, with W=1
#                                (KBUILD_EXTRA_WARN=1, seen in the compile
#                                commands KBUILD_VERBOSE=1 logs), and its
#                                make.log has no warning
#   (not) ok N - <ID>/vermagic   the module's vermagic is the kernel's release
#   (not) ok N - <ID>/sparse     (--sparse ID) make C=2 on a copy of kmod/
#                                (with VERSION and include/uapi beside it,
#                                as in the DKMS tree): no sparse report
# (TAP, scripts/tap.sh). --manifest FILE gets one line per
# kernel whose module built: "ID KREL VMLINUZ MODULE" (for scripts/vm.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
mkdir -p "$build" && build=$(cd "$build" && pwd)
kmatrix=$top/scripts/kmatrix.sh
manifest=
sparse_id=

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
	--manifest) manifest=$2; shift 2 ;;
	--sparse) sparse_id=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "kbuild-matrix.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "kbuild-matrix.sh: no kernel given (see --help)" >&2; exit 2; }

. "$top/scripts/tap.sh"
ok() { tap_pass "$1"; }
ko() { tap_fail "$1" "$2"; }

[ -n "$manifest" ] && : > "$manifest"
# every core, as DKMS does (its make gets -j<nproc>)
jobs=$(nproc 2>/dev/null || echo 2)

# The DKMS source tree, once: what `make dkms-install` copies to /usr/src.
dkms_src=
stage_dkms() {
	local stage=$build/kmatrix/dkms-src
	rm -rf "$stage"
	"$top/scripts/dkms-install.sh" --stage "$stage" >/dev/null 2>&1 ||
		echo "kbuild: staging the DKMS source tree failed" >&2
	dkms_src=$(find "$stage" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -n "$dkms_src" ] || dkms_src=$stage/missing
}

# Fetch what is not cached yet, all in one go (one apt update per suite).
fetch_ids=()
for id in "$@"; do [ "$id" = host ] || fetch_ids+=("$id"); done
if [ ${#fetch_ids[@]} -gt 0 ]; then
	t0=$SECONDS
	if ! "$kmatrix" fetch "${fetch_ids[@]}" > "$build/kmatrix-fetch.log" 2>&1; then
		echo "kbuild: fetching failed, see $build/kmatrix-fetch.log:" >&2
		tail -n 5 "$build/kmatrix-fetch.log" >&2
	fi
	echo "kbuild: fetched ${fetch_ids[*]} in $((SECONDS - t0)) s" >&2
fi

for id in "$@"; do
	info=$("$kmatrix" info "$id" 2>&1)
	if [ $? -ne 0 ]; then
		ko "$id/fetch" "not available: $(tail -n 1 <<<"$info")"
		continue
	fi
	ok "$id/fetch"
	krel=$(sed -n 's/^KREL=//p' <<<"$info")
	vmlinuz=$(sed -n 's/^VMLINUZ=//p' <<<"$info")

	# A copy laid out as in the DKMS tree: kmod/ with ../VERSION, ../include/uapi, ../common.
	dir=$build/kmatrix/$id
	mkdir -p "$dir/include"
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		"$top/kmod/" "$dir/kmod/"
	rsync -a --delete "$top/include/uapi/" "$dir/include/uapi/"
	rsync -a --delete --exclude='*.o' --exclude='.*.cmd' "$top/common/" "$dir/common/"
	cp "$top/VERSION" "$dir/VERSION"

	log=$dir/build.log
	t0=$SECONDS
	kmod_ko=$dir/kmod/neuron.ko
	# the host and the debug kernel (no user installs that one): make
	if [ "$id" = host ] || [ "$id" != "${id%-debug}" ]; then
		"$kmatrix" build "$id" "$dir/kmod" W=1 -j"$jobs" > "$log" 2>&1
		rc=$?
		why="build failed (exit $rc): $(grep -m 3 -E 'error|Error' "$log" | tr '\n' ' ')"
		w1=yes
	else
		[ -n "$dkms_src" ] || stage_dkms
		out=$(KBUILD_EXTRA_WARN=1 KBUILD_VERBOSE=1 "$kmatrix" dkms-build "$id" "$dkms_src" 2>&1)
		rc=$?
		mod=$(sed -n 's/^MODULE=//p' <<<"$out")
		dlog=$(sed -n 's/^LOG=//p' <<<"$out")
		{ [ -n "$dlog" ] && cat "$dlog"; echo "$out"; } > "$log"
		why="dkms build failed (exit $rc): $(grep -m 3 -E 'error|Error|failed' "$log" | tr '\n' ' ')"
		# beside the copy, not in it: the sparse build below rebuilds that
		kmod_ko=$dir/neuron.ko
		rm -f "$kmod_ko"
		[ -n "$mod" ] && cp "$mod" "$kmod_ko"
		# W=1 reached the compiler: the compile commands (V=1) carry its
		# first extra warning flag
		if [ -n "$dlog" ] && grep -q -- '-Wmissing-declarations' "$dlog"; then w1=yes; else w1=no; fi
		[ -n "$mod" ] && [ -n "$dlog" ] || rc=1
	fi
	warnings=$(grep -cE 'warning:' "$log")
	if [ $rc -ne 0 ] || [ ! -f "$kmod_ko" ]; then
		ko "$id/build-W1" "$why"
		continue
	elif [ "$w1" != yes ]; then
		ko "$id/build-W1" "the DKMS build did not compile with W=1 (KBUILD_EXTRA_WARN did not reach make)"
	elif [ "$warnings" -ne 0 ]; then
		ko "$id/build-W1" "$warnings warning(s): $(grep -m 3 'warning:' "$log" | tr '\n' ' ')"
	else
		ok "$id/build-W1"
	fi
	echo "kbuild: $id ($krel) built in $((SECONDS - t0)) s" >&2
	modver=$(modinfo -F vermagic "$kmod_ko" | cut -d' ' -f1)
	if [ "$modver" = "$krel" ]; then
		ok "$id/vermagic"
		[ -n "$manifest" ] && echo "$id $krel $vmlinuz $kmod_ko" >> "$manifest"
	else
		ko "$id/vermagic" "module says '$modver', kernel is '$krel'"
	fi

	if [ "$id" = "$sparse_id" ]; then
		"$kmatrix" build "$id" "$dir/kmod" W=1 C=2 -j"$jobs" > "$dir/sparse.log" 2>&1
		rc=$?
		# sparse's reports are "file:line:col: warning|error: ..." lines
		reports=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$dir/sparse.log")
		if [ $rc -ne 0 ]; then
			ko "$id/sparse" "make C=2 failed (exit $rc): $(tail -n 2 "$dir/sparse.log" | tr '\n' ' ')"
		elif ! grep -q 'CHECK' "$dir/sparse.log"; then
			ko "$id/sparse" "sparse did not run (no CHECK lines; is sparse installed?)"
		elif [ -n "$reports" ]; then
			ko "$id/sparse" "$(wc -l <<<"$reports") report(s): $(head -n 3 <<<"$reports" | tr '\n' ' ')"
		else
			ok "$id/sparse"
		fi
	fi
done

tap_done kbuild
