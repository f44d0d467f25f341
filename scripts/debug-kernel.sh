#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build, once, a debug kernel (KASAN, lockdep, UBSAN, kmemleak, ...) from
# Debian's linux-source-6.1 for the guest tests, and cache it.
#
#   scripts/debug-kernel.sh [build|info|clean|prune] [--verbose] [--help]
#
# build (default)  install what the build needs if missing, unpack
#                  /usr/src/linux-source-6.1.tar.xz, apply
#                  scripts/debug-kernel-patches/*.patch (in name order;
#                  each says why it is there), make tinyconfig, merge
#                  scripts/debug-kernel.config, make olddefconfig, make
#                  bzImage modules; then print what `info` prints. Does
#                  nothing but print when the cached kernel is current.
# info             print KEY=VALUE lines of the current build: KEY, KREL
#                  (the release, for vm.sh --kver), VMLINUZ (the bzImage,
#                  for vm.sh --kernel), KDIR (for make -C KDIR M=DIR
#                  modules), CONFIG (its .config), SOURCE_VERSION (of
#                  linux-source-6.1). Fails if the current key is not built.
# clean            remove every cached kernel.
# prune            remove cached kernels of other keys than the current one.
# --verbose        stream the kernel build's output (default: into
#                  <cache>/<key>/build.log, tail shown on failure).
#
# The cache is <cache>/<key>/, <cache> = $DEBUG_KERNEL_CACHE or
# /var/cache/neuron-oss/debug-kernel; <key> hashes the fragment's contents,
# the patches, the linux-source-6.1 version, the compiler's version and LAYOUT below, so
# changing any of them builds a new kernel and nothing else does. The tree is
# built in place and must not be moved. Step timings go to stderr.
# Environment: DEBUG_KERNEL_CACHE, DEBUG_KERNEL_CONFIG (another fragment),
# DEBUG_KERNEL_JOBS (default: nproc), CC (default: gcc).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
me=debug-kernel.sh

# What the build needs on a fresh bookworm machine on top of scripts/deps.sh
# (build-essential: gcc, make, perl). bc (timeconst), bison + flex
# (kconfig), libelf-dev (objtool, for the ORC unwinder and noinstr checks),
# xz-utils (the tarball; linux-source-6.1 depends on it too), patch
# (scripts/debug-kernel-patches). No libssl-dev:
# the fragment signs nothing, so sign-file and extract-cert are not built.
BUILD_DEPS=(linux-source-6.1 bc bison flex libelf-dev xz-utils patch)
SRC_PKG=linux-source-6.1
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
# Bump when the way the tree is built or laid out changes.
LAYOUT=1

cache=${DEBUG_KERNEL_CACHE:-/var/cache/neuron-oss/debug-kernel}
fragment=${DEBUG_KERNEL_CONFIG:-$top/scripts/debug-kernel.config}
patches=$top/scripts/debug-kernel-patches
jobs=${DEBUG_KERNEL_JOBS:-$(nproc)}
cc=${CC:-gcc}
verbose=0
cmd=

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
die() { echo "$me: $*" >&2; exit 1; }
note() { echo "$me: $*" >&2; }

while [ $# -gt 0 ]; do
	case "$1" in
	build|info|clean|prune)
		[ -z "$cmd" ] || { echo "$me: one command only (see --help)" >&2; exit 2; }
		cmd=$1 ;;
	-v|--verbose) verbose=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$me: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$cmd" ] || cmd=build
case "$jobs" in ''|*[!0-9]*|0) die "DEBUG_KERNEL_JOBS must be a positive number, not '$jobs'" ;; esac

# ---- helpers -----------------------------------------------------------------
t_all=$EPOCHREALTIME
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1fs", b - a }'; }

# step NAME CMD...: run CMD, its output into the build log (or the terminal
# with --verbose), and print how long it took.
step() {
	local name=$1 t0 rc=0
	shift
	t0=$EPOCHREALTIME
	if [ "$verbose" = 1 ]; then
		"$@" 2>&1 | tee -a "$blog" >&2 || rc=${PIPESTATUS[0]}
	else
		"$@" >>"$blog" 2>&1 || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		[ "$verbose" = 1 ] || tail -n 25 "$blog" >&2
		die "$name failed (exit $rc; full log: $blog)"
	fi
	note "$name: $(elapsed "$t0")"
}

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]; }

install_deps() {
	local p missing=() sudo=
	for p in "${BUILD_DEPS[@]}"; do
		installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || die "need root to install ${missing[*]}"
		sudo=sudo
	fi
	local t0=$EPOCHREALTIME
	note "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed"
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
		die "apt-get install ${missing[*]} failed"
	note "install: $(elapsed "$t0")"
}

# The key of the current fragment, source package and compiler.
compute_key() {
	local ver ccver
	[ -r "$fragment" ] || die "cannot read the config fragment $fragment"
	installed "$SRC_PKG" || return 1
	ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG")
	ccver=$("$cc" --version 2>/dev/null | head -n 1) || die "compiler '$cc' not found"
	src_version=$ver
	key=$({
		printf 'layout %s\npackage %s %s\ncompiler %s\n' "$LAYOUT" "$SRC_PKG" "$ver" "$ccver"
		cat "$fragment"
		for p in "$patches"/*.patch; do
			[ -e "$p" ] || continue
			printf 'patch %s\n' "$(basename "$p")"
			cat "$p"
		done
	} | sha256sum | cut -c1-16)
}

lock_cache() {
	mkdir -p "$cache" 2>/dev/null || die "cannot create $cache (set DEBUG_KERNEL_CACHE)"
	[ -w "$cache" ] || die "cannot write $cache (set DEBUG_KERNEL_CACHE)"
	exec 9>"$cache/.lock"
	if ! flock -n 9; then
		note "waiting for another $me on $cache"
		flock 9
	fi
}

# Every CONFIG_X=v and "# CONFIG_X is not set" of the fragment must hold in
# the final .config: a dependency olddefconfig dropped is an error.
verify_config() {
	local cfg=$1 line sym want got bad=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			sym=${line%%=*}
			want=${line#*=}
			got=$(grep -E "^$sym=" "$cfg" | cut -d= -f2- || true)
			[ "$got" = "$want" ] || bad+=("$sym=${got:-unset}(want $want)")
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			if grep -qE "^$sym=" "$cfg"; then bad+=("$sym(want unset)"); fi
			;;
		esac
	done <"$fragment"
	[ ${#bad[@]} -eq 0 ] || die "the final .config differs from $(basename "$fragment"): ${bad[*]}"
}

merge_fragment() {
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$dir/debug-kernel.config")
}

print_info() {
	[ -r "$dir/info" ] || die "no debug kernel built for key $key (run: scripts/$me build)"
	cat "$dir/info"
}

# ---- commands -------------------------------------------------------------------
case "$cmd" in
clean)
	[ -d "$cache" ] || exit 0
	lock_cache
	find "$cache" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +
	note "removed every cached kernel under $cache"
	exit 0
	;;
info)
	compute_key || die "$SRC_PKG is not installed (run: scripts/$me build)"
	dir=$cache/$key
	print_info
	exit 0
	;;
prune)
	[ -d "$cache" ] || exit 0
	compute_key || die "$SRC_PKG is not installed (run: scripts/$me build)"
	lock_cache
	find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
	note "kept $key only"
	exit 0
	;;
esac

# build
install_deps
compute_key || die "$SRC_PKG is still not installed"
[ -r "$SRC_TAR" ] || die "$SRC_PKG is installed but $SRC_TAR is missing"
dir=$cache/$key
if [ -r "$dir/info" ] && [ -r "$dir/bzImage" ]; then
	note "cached: $dir ($(elapsed "$t_all"))"
	print_info
	exit 0
fi
lock_cache
# another run may have finished it while we waited for the lock
if [ -r "$dir/info" ] && [ -r "$dir/bzImage" ]; then
	note "cached: $dir ($(elapsed "$t_all"))"
	print_info
	exit 0
fi
mkdir -p "$dir"
blog=$dir/build.log
tree=$dir/linux
note "building key $key in $dir ($SRC_PKG $src_version, $jobs jobs)"
avail=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
[ "${avail:-0}" -ge $((5 * 1024 * 1024)) ] || die "less than 5 GiB free under $dir"

# 1. unpack (atomic: the tree appears only once it is whole)
if [ ! -d "$tree" ]; then
	rm -rf "$dir/linux.tmp"
	mkdir -p "$dir/linux.tmp"
	step unpack tar -xJf "$SRC_TAR" -C "$dir/linux.tmp" --strip-components=1
	for p in "$patches"/*.patch; do
		[ -e "$p" ] || continue
		step "patch $(basename "$p")" patch -d "$dir/linux.tmp" -p1 --batch --forward \
			--no-backup-if-mismatch -i "$p"
	done
	mv "$dir/linux.tmp" "$tree"
fi

# 2. configure: tinyconfig + fragment, checked
if [ ! -e "$dir/.configured" ]; then
	cp "$fragment" "$dir/debug-kernel.config"
	step tinyconfig make -C "$tree" CC="$cc" ARCH=x86_64 tinyconfig
	step merge_config merge_fragment
	step olddefconfig make -C "$tree" CC="$cc" olddefconfig
	verify_config "$tree/.config"
	touch "$dir/.configured"
fi

# 3. build: bzImage, and modules for the Module.symvers an M= build needs
step "make bzImage modules" make -C "$tree" CC="$cc" -j"$jobs" bzImage modules
[ -r "$tree/Module.symvers" ] || die "the build left no $tree/Module.symvers"
[ -r "$tree/include/config/kernel.release" ] || die "the build left no kernel.release"
krel=$(cat "$tree/include/config/kernel.release")
cp "$tree/arch/x86/boot/bzImage" "$dir/bzImage.tmp"
mv "$dir/bzImage.tmp" "$dir/bzImage"

# 4. record it (last: info marks the key as built)
cat >"$dir/info.tmp" <<EOF
KEY=$key
KREL=$krel
VMLINUZ=$dir/bzImage
KDIR=$tree
CONFIG=$tree/.config
SOURCE_VERSION=$src_version
EOF
mv "$dir/info.tmp" "$dir/info"
note "built in $(elapsed "$t_all")"
print_info
