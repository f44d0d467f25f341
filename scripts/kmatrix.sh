#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The kernel matrix (docs/kernels.md): fetch Debian kernels (image, headers,
# kbuild) into a cache outside the work tree, list them, and build the module
# against one of them the DKMS way (make -C <headers> M=<moddir> modules).
#
# Nothing is installed into the host's package database: apt runs with a
# private state (sources, lists, caches, status file) under the cache, the
# packages are unpacked with `dpkg -x`, and the kernel with the newest ABI of
# each line is chosen at fetch time, so the matrix follows Debian's updates.
set -euo pipefail

PROG=kmatrix
CACHE=${KMATRIX_CACHE:-/var/cache/neuron-oss/kmatrix}
KEYRING=${KMATRIX_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
# Bump when the layout of a prepared entry changes: every entry is unpacked
# again on the next fetch.
LAYOUT=2

# The matrix: id, apt group (suites below), ABI regex (the part of the
# package name between "linux-headers-" and "-<flavor>"), flavor. The newest
# ABI matching the regex wins; no ABI number is written here.
MATRIX=(
	'5.10-amd64       bullseye 5\.10\.0-[0-9]+ amd64'
	'5.10-cloud-amd64 bullseye 5\.10\.0-[0-9]+ cloud-amd64'
	'6.1-amd64        bookworm 6\.1\.0-[0-9]+ amd64'
	'6.1-cloud-amd64  bookworm 6\.1\.0-[0-9]+ cloud-amd64'
	'6.1-rt-amd64     bookworm 6\.1\.0-[0-9]+ rt-amd64'
	'6.12-amd64       bookworm 6\.12\.[0-9]+\+deb[0-9]+ amd64'
	'6.12-cloud-amd64 bookworm 6\.12\.[0-9]+\+deb[0-9]+ cloud-amd64'
	'6.12-rt-amd64    bookworm 6\.12\.[0-9]+\+deb[0-9]+ rt-amd64'
	'sid-amd64        sid      [0-9]+\.[0-9]+[.0-9]*(\+deb[0-9]+|-[0-9]+) amd64'
)

# The debug kernel (KASAN, lockdep, kmemleak, ...), built from Debian's
# linux-source-6.1 by scripts/debug-kernel.sh: an entry of the matrix like
# the others for ids/fetch/info/build/dkms-build, cached by that script.
DEBUG_ID=6.1-debug
debug_kernel() { "$(dirname "$(realpath "$0")")/debug-kernel.sh" "$@"; }
# not_apt ID: the entry is not fetched with apt (the host's or the debug kernel)
not_apt() { [ "$1" = host ] || [ "$1" = "$DEBUG_ID" ]; }

# Suites of each apt group, on the Debian mirror (M) or debian-security (S).
# 6.12 reaches bookworm both through bookworm-backports and (newer ABIs,
# from the linux-6.12 source) bookworm-security: one group sees both and
# the newest wins.
group_suites() {
	case $1 in
	bullseye) echo "M:bullseye S:bullseye-security" ;;
	bookworm) echo "M:bookworm M:bookworm-updates M:bookworm-backports S:bookworm-security" ;;
	sid) echo "M:sid" ;;
	*) die "unknown apt group $1" ;;
	esac
}

# sid's kernel needs sid's compiler and glibc: its entries are unpacked and
# built inside a cached sid chroot.
group_chroot() { [ "$1" = sid ]; }

# Packages of the sid chroot besides the compiler the headers ask for.
CHROOT_BASE_PKGS=make,libc6-dev,libelf-dev,bc,bison,flex,kmod

usage() {
	cat <<EOF
usage: scripts/kmatrix.sh COMMAND [ARGS]

Fetch Debian kernels into a cache and build neuron.ko against them.

commands:
  ids                      print the ids of the whole matrix
  fetch [-n] [ID...]       prepare the given entries (default: all); -n skips
                           'apt-get update' (use the package lists already cached)
  list                     one line per prepared entry: ID KREL VMLINUZ
  info ID                  KEY=VALUE lines: KREL, VMLINUZ, MODULES, KDIR (inside
                           CHROOT when that is set), CHROOT, PACKAGES
  build ID MODDIR [ARGS]   make clean, then make -C <headers> M=<MODDIR> modules
                           ARGS, with the compiler (and chroot) the entry needs
  dkms-build ID SRCDIR     dkms build of the DKMS source tree SRCDIR against the
                           entry, in a DKMS tree of its own; prints MODULE=<ko>
                           and LOG=<DKMS's make.log> (the environment reaches
                           make: KBUILD_EXTRA_WARN=1 is W=1, KBUILD_VERBOSE=1 V=1)
  host                     print the host id's KREL (the default kernel of kmod/Makefile)
  clean                    remove the whole cache

ID 'host' names the host's default kernel (newest V with /boot/vmlinuz-V and
/lib/modules/V/build, as kmod/Makefile picks it); it works with build and info.

environment:
  KMATRIX_CACHE            cache directory (default /var/cache/neuron-oss/kmatrix)
  KMATRIX_MIRROR           Debian mirror URI (default: from the system's apt sources)
  KMATRIX_SECURITY_MIRROR  debian-security URI (default: from the system's apt sources)
EOF
}

die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 1
}

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }

now() { echo "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

matrix_ids() {
	local line id
	for line in "${MATRIX[@]}"; do
		read -r id _ <<<"$line"
		echo "$id"
	done
}

# entry ID: sets E_ID E_GROUP E_RE E_FLAVOR, E_DIR (entry directory on the
# host), E_VROOT (the unpacked root as the build sees it) and E_CHROOT.
entry() {
	local line id group re flavor
	for line in "${MATRIX[@]}"; do
		read -r id group re flavor <<<"$line"
		[ "$id" = "$1" ] || continue
		E_ID=$id E_GROUP=$group E_RE=$re E_FLAVOR=$flavor
		if group_chroot "$group"; then
			E_CHROOT=$CACHE/$group-root
			E_DIR=$E_CHROOT/kmatrix/$id
			E_VROOT=/kmatrix/$id/root
		else
			E_CHROOT=
			E_DIR=$CACHE/entries/$id
			E_VROOT=$E_DIR/root
		fi
		return 0
	done
	die "unknown id '$1' (known: $(matrix_ids | tr '\n' ' ')host)"
}

# --- private apt -------------------------------------------------------------

# Mirror URIs from the system's apt configuration: the sources of the
# host's own release (the Debian archive) and of <release>-security
# (debian-security), unless given in the environment.
mirrors() {
	[ -n "${MIRROR:-}" ] && return 0
	local uri rel codename
	codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
	MIRROR=${KMATRIX_MIRROR:-}
	SECURITY=${KMATRIX_SECURITY_MIRROR:-}
	# shellcheck disable=SC2016 # apt's $(FIELD) format, not the shell's
	while read -r uri rel; do
		case $rel in
		"$codename-security") [ -n "$SECURITY" ] || SECURITY=$uri ;;
		"$codename") [ -n "$MIRROR" ] || MIRROR=$uri ;;
		esac
	done < <(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' \
		'Target-Of: deb' 2>/dev/null | sort -u)
	MIRROR=${MIRROR%/}
	SECURITY=${SECURITY%/}
	[ -n "$MIRROR" ] ||
		die "no source for Debian '$codename' in the system's apt configuration (set KMATRIX_MIRROR)"
	[ -n "$SECURITY" ] ||
		die "no source for '$codename-security' in the system's apt configuration (set KMATRIX_SECURITY_MIRROR)"
}

apt_dir() { echo "$CACHE/apt/$1"; }

apt_setup() {
	local d s
	d=$(apt_dir "$1")
	mirrors
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/empty.d"
	[ -e "$d/status" ] || : >"$d/status"
	for s in $(group_suites "$1"); do
		case $s in
		M:*) echo "deb [signed-by=$KEYRING] $MIRROR ${s#M:} main" ;;
		S:*) echo "deb [signed-by=$KEYRING] $SECURITY ${s#S:} main" ;;
		esac
	done >"$d/sources.list.new"
	mv "$d/sources.list.new" "$d/sources.list"
}

# papt GROUP apt-get|apt-cache ARGS...: apt with the group's private state.
# The registry may be a snapshot whose Release files are past Valid-Until.
# The binary caches are kept (a container's apt.conf may turn them off):
# each query then takes milliseconds instead of a second.
papt() {
	local d tool=$2
	d=$(apt_dir "$1")
	shift 2
	"$tool" -q \
		-o "Dir::Etc::sourcelist=$d/sources.list" -o "Dir::Etc::sourceparts=$d/empty.d" \
		-o "Dir::Etc::preferences=$d/preferences" -o "Dir::Etc::preferencesparts=$d/empty.d" \
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" \
		-o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin \
		-o "Dir::State::status=$d/status" \
		-o Acquire::Check-Valid-Until=false -o APT::Architecture=amd64 \
		-o APT::Sandbox::User=root "$@"
}

# load GROUP PKG...: the candidate versions and Depends of the packages
# that exist into PV[pkg] and PD[pkg] (names of the Depends, first
# alternative of each).
declare -A PV PD
load() {
	local g=$1 line k v p=
	shift
	while IFS= read -r line; do
		k=${line%%:*}
		v=${line#*: }
		case $k in
		Package) p=$v ;;
		Version) PV[$p]=$v ;;
		Depends)
			PD[$p]=$(tr ',' '\n' <<<"$v" |
				sed -e 's/|.*//' -e 's/(.*)//' -e 's/:any//' -e 's/[[:space:]]//g' |
				sed '/^$/d' | tr '\n' ' ')
			;;
		esac
	done < <(papt "$g" apt-cache show --no-all-versions "$@" 2>/dev/null |
		grep -E '^(Package|Version|Depends):' || true)
}

# resolve: chooses the newest ABI of the entry's line with both image and
# headers, and sets R_KREL, R_IMG and R_HDR (package names), R_TOOLS (the
# other packages the headers ask for) and R_PKGS ("pkg=version" lines).
resolve() {
	local n abi img hdr d krel=
	local -a abis=() all=()
	while read -r n; do
		[[ $n =~ ^linux-headers-($E_RE)-$E_FLAVOR$ ]] && abis+=("${BASH_REMATCH[1]}")
	done < <(papt "$E_GROUP" apt-cache pkgnames linux-headers-)
	[ ${#abis[@]} -gt 0 ] || die "$E_ID: no linux-headers-<abi>-$E_FLAVOR matches '$E_RE' in $E_GROUP"
	mapfile -t all < <(printf "linux-image-%s-$E_FLAVOR\n" "${abis[@]}")
	load "$E_GROUP" "${all[@]}"
	for abi in $(printf '%s\n' "${abis[@]}" | sort -rV); do
		if [ -n "${PV[linux-image-$abi-$E_FLAVOR]:-}" ]; then
			krel=$abi-$E_FLAVOR
			break
		fi
	done
	[ -n "$krel" ] || die "$E_ID: no linux-image/linux-headers pair matches '$E_RE-$E_FLAVOR' in $E_GROUP"
	img=linux-image-$krel
	hdr=linux-headers-$krel
	load "$E_GROUP" "$img" "$hdr"
	R_KREL=$krel
	R_IMG=("$img")
	# From 7.x linux-image-<krel> is a meta package: the image is in
	# linux-binary-<krel> (usr/lib/modules/<krel>/vmlinuz), the modules in
	# linux-modules-<krel>, config and System.map in linux-base-<krel>.
	for d in ${PD[$img]:-}; do
		case $d in *-"$krel") R_IMG+=("$d") ;; esac
	done
	# headers: the flavor's, the common ones (-common or -common-rt), kbuild
	R_HDR=("$hdr")
	for d in ${PD[$hdr]:-}; do
		case $d in linux-headers-* | linux-kbuild-*) R_HDR+=("$d") ;; esac
	done
	all=("${R_IMG[@]}" "${R_HDR[@]}")
	load "$E_GROUP" "${all[@]}"
	# What the headers and kbuild need besides themselves (the compiler,
	# pahole, libraries): the packages of a chroot for this kernel.
	R_TOOLS=()
	for d in $(for n in "${R_HDR[@]}"; do echo "${PD[$n]:-}"; done); do
		case $d in
		linux-*) ;;
		gcc-*-for-host) R_TOOLS+=("$d" "${d%-for-host}") ;;
		*) R_TOOLS+=("$d") ;;
		esac
	done
	R_PKGS=$(for d in "${all[@]}"; do echo "$d=${PV[$d]:-}"; done)
	if grep -q '=$' <<<"$R_PKGS"; then
		die "$E_ID: no candidate for $(grep '=$' <<<"$R_PKGS" | tr -d = | tr '\n' ' ')"
	fi
}

deb_file() { # pkg=version -> path of the cached .deb (may not exist)
	local p=${1%%=*} v=${1#*=}
	local g=("$CACHE/debs/${p}_${v//:/%3a}_"*.deb)
	echo "${g[0]}"
}

download() {
	local pv t0 mb
	local -a want=()
	for pv in $R_PKGS; do
		[ -f "$(deb_file "$pv")" ] || want+=("$pv")
	done
	[ ${#want[@]} -gt 0 ] || return 0
	t0=$(now)
	rm -rf "$CACHE/debs/.dl"
	mkdir -p "$CACHE/debs/.dl"
	(cd "$CACHE/debs/.dl" && papt "$E_GROUP" apt-get download "${want[@]}" >/dev/null) ||
		die "$E_ID: apt-get download ${want[*]} failed"
	mb=$(du -sm "$CACHE/debs/.dl" | cut -f1)
	mv "$CACHE/debs/.dl/"*.deb "$CACHE/debs/"
	rmdir "$CACHE/debs/.dl"
	log "$E_ID: downloaded ${#want[@]} packages, $mb MB: $(since "$t0")"
}

# --- the sid chroot ----------------------------------------------------------

chroot_ok() { # chroot_ok ROOT PKG...: every PKG installed and make runs
	local root=$1 p
	shift
	[ -x "$root/usr/bin/make" ] && [ -e "$root/dev/null" ] || return 1
	for p in "$@" ${CHROOT_BASE_PKGS//,/ }; do
		# shellcheck disable=SC2016 # dpkg-query's format
		chroot "$root" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || return 1
	done
	chroot "$root" make --version >/dev/null 2>&1
}

# ensure_chroot PKG...: the group's chroot with the headers' compiler. Kept
# between runs; made again only when missing or broken (or when sid's
# headers ask for a compiler it lacks).
ensure_chroot() {
	local root=$E_CHROOT t0 inc
	chroot_ok "$root" "$@" && return 0
	command -v debootstrap >/dev/null ||
		die "debootstrap is missing (scripts/deps.sh installs it; or: apt-get install debootstrap)"
	[ "$(id -u)" -eq 0 ] || die "making the $E_GROUP chroot needs root"
	mirrors
	t0=$(now)
	inc=$CHROOT_BASE_PKGS$(printf ',%s' "$@")
	rm -rf "$root.new" "$root"
	debootstrap --variant=minbase --keyring="$KEYRING" --include="$inc" \
		"$E_GROUP" "$root.new" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
		die "debootstrap $E_GROUP failed (see $CACHE/debootstrap.log)"
	# apt inside the chroot must accept a snapshot's expired Release file
	echo 'Acquire::Check-Valid-Until "false";' >"$root.new/etc/apt/apt.conf.d/99kmatrix"
	mkdir -p "$root.new/kmatrix/src"
	chroot_ok "$root.new" "$@" || die "the new $E_GROUP chroot is broken (see $CACHE/debootstrap.log)"
	mv "$root.new" "$root"
	log "$E_GROUP chroot ($inc): $(since "$t0")"
}

# --- unpacking -----------------------------------------------------------------

stamp() {
	printf 'layout=%s\nkrel=%s\nvroot=%s\n%s\n' "$LAYOUT" "$R_KREL" "$E_VROOT" "$R_PKGS"
}

# fix_tree TREE: make the unpacked tree usable where it is. The headers' top
# Makefile includes /usr/src/linux-headers-<abi>-common/Makefile (and from
# 7.x sets KBUILD_OUTPUT=/usr/src/linux-headers-<krel>): point both at the
# unpacked tree (the common Makefile finds its tree from its own path).
# Absolute links into the packages (lib/modules/<krel>/build) become
# relative; the scripts/ and tools/ links are relative already.
fix_tree() {
	local tree=$1 mk l t
	for mk in "$tree"/usr/src/linux-headers-*/Makefile; do
		[ -f "$mk" ] || continue
		sed -i -E "s#^(include |KBUILD_OUTPUT *:?= *)/usr/src/#\1$E_VROOT/usr/src/#" "$mk"
	done
	while IFS= read -r -d '' l; do
		t=$(readlink "$l")
		if [ -e "$tree$t" ] || [ -L "$tree$t" ]; then
			ln -sfn "$(realpath -ms --relative-to="$(dirname "$l")" "$tree$t")" "$l"
		fi
	done < <(find "$tree" -type l -lname '/*' -print0)
}

vmlinuz_of() { # vmlinuz_of ROOT KREL
	local f
	for f in "$1/boot/vmlinuz-$2" "$1/usr/lib/modules/$2/vmlinuz" "$1/lib/modules/$2/vmlinuz" \
		"$1/usr/lib/modules/$2/vmlinuz.unsigned"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

modules_of() { # modules_of ROOT KREL
	if [ -d "$1/usr/lib/modules/$2/kernel" ]; then
		echo "$1/usr/lib/modules/$2"
	else
		echo "$1/lib/modules/$2"
	fi
}

unpack() {
	local t0 pv tree=$E_DIR/root.new kdir krel
	t0=$(now)
	rm -rf "$tree"
	mkdir -p "$tree"
	for pv in $R_PKGS; do
		dpkg -x "$(deb_file "$pv")" "$tree"
	done
	fix_tree "$tree"
	kdir=$tree/usr/src/linux-headers-$R_KREL
	krel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$kdir/include/generated/utsrelease.h" 2>/dev/null || true)
	[ "$krel" = "$R_KREL" ] || die "$E_ID: headers say kernel release '$krel', expected $R_KREL"
	[ -f "$kdir/scripts/basic/fixdep" ] || die "$E_ID: $kdir/scripts does not lead to the kbuild tools"
	vmlinuz_of "$tree" "$R_KREL" >/dev/null || die "$E_ID: no vmlinuz in ${R_IMG[*]}"
	rm -rf "$E_DIR/root"
	mv "$tree" "$E_DIR/root"
	stamp >"$E_DIR/stamp"
	log "$E_ID: unpacked $R_KREL ($(wc -l <<<"$R_PKGS") packages): $(since "$t0")"
}

fetch_one() {
	local t0
	entry "$1"
	t0=$(now)
	resolve
	log "$E_ID: $R_KREL: $(echo "$R_PKGS" | tr '\n' ' ')($(since "$t0"))"
	download
	if [ -n "$E_CHROOT" ]; then
		ensure_chroot "${R_TOOLS[@]}"
	fi
	mkdir -p "$E_DIR"
	if [ -f "$E_DIR/stamp" ] && [ "$(cat "$E_DIR/stamp")" = "$(stamp)" ] && [ -d "$E_DIR/root" ]; then
		log "$E_ID: $R_KREL up to date"
		return 0
	fi
	unpack
}

# prune: remove the .debs no prepared entry names any more.
prune() {
	local f keep
	keep=$(cat "$CACHE"/entries/*/stamp "$CACHE"/*-root/kmatrix/*/stamp 2>/dev/null |
		grep -v '^[a-z]*=[^=]*$' || true)
	for f in "$CACHE"/debs/*.deb; do
		[ -f "$f" ] || continue
		local b=${f##*/}
		local pv="${b%%_*}=${b#*_}"
		pv=${pv%_*.deb}
		pv=${pv//%3a/:}
		grep -qxF "$pv" <<<"$keep" || { rm -f "$f"; log "pruned ${f##*/}"; }
	done
}

lock() { # lock -s|-x
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock"
	flock "$1" 9
}

cmd_fetch() {
	local t0 t1 id g update=1
	local -a ids=() groups=()
	if [ "${1:-}" = -n ]; then
		update=0
		shift
	fi
	if [ $# -eq 0 ]; then
		mapfile -t ids < <(matrix_ids)
		set -- "${ids[@]}" "$DEBUG_ID"
	else
		ids=("$@")
	fi
	# the debug kernel is built, not fetched
	local want_debug=0
	ids=()
	for id in "$@"; do
		if [ "$id" = "$DEBUG_ID" ]; then want_debug=1; elif [ "$id" != host ]; then ids+=("$id"); fi
	done
	if [ "$want_debug" = 1 ]; then
		t1=$(now)
		debug_kernel build || die "building the debug kernel failed"
		log "debug kernel: $(since "$t1")"
	fi
	[ ${#ids[@]} -gt 0 ] || return 0
	for id in "${ids[@]}"; do entry "$id"; done
	t0=$(now)
	lock -x
	mkdir -p "$CACHE/debs" "$CACHE/entries"
	mapfile -t groups < <(for id in "${ids[@]}"; do entry "$id"; echo "$E_GROUP"; done | sort -u)
	for g in "${groups[@]}"; do
		apt_setup "$g"
		if [ "$update" = 1 ] || ! compgen -G "$(apt_dir "$g")/lists/*Packages*" >/dev/null; then
			t1=$(now)
			papt "$g" apt-get update >"$(apt_dir "$g")/update.log" 2>&1 ||
				die "apt-get update for $g failed (see $(apt_dir "$g")/update.log)"
			log "apt-get update $g: $(since "$t1")"
		fi
	done
	for id in "${ids[@]}"; do fetch_one "$id"; done
	prune
	log "fetch ${ids[*]}: $(since "$t0")"
}

# info ID: sets I_KREL I_VMLINUZ I_MODULES I_KDIR I_CHROOT (KDIR as the
# build sees it: inside the chroot for chroot entries).
info_of() {
	local root
	if [ "$1" = host ]; then
		I_KREL=$(host_krel)
		I_VMLINUZ=/boot/vmlinuz-$I_KREL
		I_MODULES=/lib/modules/$I_KREL
		I_KDIR=$I_MODULES/build
		I_CHROOT=
		I_PACKAGES=
		return 0
	fi
	if [ "$1" = "$DEBUG_ID" ]; then
		local kv
		kv=$(debug_kernel info 2>/dev/null) || die "$1 is not built (run: scripts/kmatrix.sh fetch $1)"
		I_KREL=$(sed -n 's/^KREL=//p' <<<"$kv")
		I_VMLINUZ=$(sed -n 's/^VMLINUZ=//p' <<<"$kv")
		I_KDIR=$(sed -n 's/^KDIR=//p' <<<"$kv")
		I_MODULES=$I_KDIR
		I_CHROOT=
		I_PACKAGES="linux-source-6.1 ($(sed -n 's/^SOURCE_VERSION=//p' <<<"$kv"))"
		return 0
	fi
	entry "$1"
	if [ ! -f "$E_DIR/stamp" ] || [ ! -d "$E_DIR/root" ]; then
		die "$1 is not prepared (run: scripts/kmatrix.sh fetch $1)"
	fi
	I_KREL=$(sed -n 's/^krel=//p' "$E_DIR/stamp")
	I_PACKAGES=$(grep -v '^[a-z]*=[^=]*$' "$E_DIR/stamp" | tr '\n' ' ')
	root=$E_DIR/root
	I_VMLINUZ=$(vmlinuz_of "$root" "$I_KREL") || die "$1: vmlinuz missing under $root"
	I_MODULES=$(modules_of "$root" "$I_KREL")
	I_KDIR=$E_VROOT/usr/src/linux-headers-$I_KREL
	I_CHROOT=$E_CHROOT
}

host_krel() {
	local v best=
	for v in /lib/modules/*/build; do
		v=${v%/build}
		v=${v##*/}
		[ -e "/boot/vmlinuz-$v" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
	done
	[ -n "$best" ] || die "no host kernel with both /boot/vmlinuz-V and /lib/modules/V/build (run scripts/deps.sh)"
	echo "$best"
}

cmd_list() {
	local id
	[ -d "$CACHE" ] || return 0
	for id in $(matrix_ids); do
		entry "$id"
		[ -f "$E_DIR/stamp" ] || continue
		info_of "$id"
		echo "$id $I_KREL $I_VMLINUZ"
	done
}

cmd_info() {
	[ $# -eq 1 ] || die "usage: kmatrix.sh info ID"
	not_apt "$1" || lock -s
	info_of "$1"
	printf 'ID=%s\nKREL=%s\nVMLINUZ=%s\nMODULES=%s\nKDIR=%s\nCHROOT=%s\nPACKAGES=%s\n' \
		"$1" "$I_KREL" "$I_VMLINUZ" "$I_MODULES" "$I_KDIR" "$I_CHROOT" "$I_PACKAGES"
}

# host_cc KDIR: make variables for a kernel whose compiler the host lacks.
# Debian's headers name the compiler the kernel was built with in
# .kernelvariables (bullseye's 5.10: CC = gcc-10, not in bookworm). Building
# an out-of-tree module with the host gcc is safe enough for a build test and
# for loading in a test VM: the kernel's C ABI does not depend on the gcc
# version, and every option the kernel's config asks of gcc-10 (retpolines,
# return thunks, stack protector, -fcf-protection) gcc-12 supports too.
host_cc() {
	local cc
	cc=$(sed -n 's/^CC *=.*\(gcc-[0-9][0-9]*\).*/\1/p' "$1/.kernelvariables" 2>/dev/null)
	if [ -n "$cc" ] && ! command -v "$cc" >/dev/null; then
		echo "CC=gcc HOSTCC=gcc"
	fi
}

cmd_build() {
	[ $# -ge 2 ] || die "usage: kmatrix.sh build ID MODDIR [make args...]"
	local id=$1 moddir cc t0 rc=0
	shift
	not_apt "$id" || entry "$id"
	[ -d "$1" ] || die "$1: no such directory"
	moddir=$(realpath "$1")
	shift
	[ -f "$moddir/Kbuild" ] || [ -f "$moddir/Makefile" ] || die "$moddir: no Kbuild or Makefile"
	not_apt "$id" || lock -s
	info_of "$id"
	t0=$(now)
	if [ -z "$I_CHROOT" ]; then
		cc=$(host_cc "$I_KDIR")
		# Headers that ship vmlinux (6.12 on) make BTF for modules with
		# pahole (their linux-kbuild depends on it).
		if [ -f "$I_KDIR/vmlinux" ] && ! command -v pahole >/dev/null &&
			grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$I_KDIR/.config"; then
			die "$id: pahole is missing (scripts/deps.sh installs it; or: apt-get install dwarves)"
		fi
		[ -z "$cc" ] || log "$id: the kernel's compiler is not on this host, building with $cc"
		# shellcheck disable=SC2086 # $cc: zero or more VAR=value words
		make -C "$I_KDIR" M="$moddir" $cc clean >/dev/null || die "$id: make clean in $moddir failed"
		# shellcheck disable=SC2086
		make -C "$I_KDIR" M="$moddir" $cc modules "$@" || rc=$?
	else
		[ "$(id -u)" -eq 0 ] || die "$id: building in the $E_GROUP chroot needs root"
		# The module's parent (Kbuild reads ../VERSION and ../include/uapi)
		# is bind-mounted into the chroot, and /proc mounted (objtool reads
		# it), in a private mount namespace that ends with the build.
		# shellcheck disable=SC2016 # expanded by the inner shell
		unshare --mount --propagation private -- sh -c '
			set -e
			root=$1 src=$2 kdir=$3 m=$4
			shift 4
			mount --bind "$src" "$root/kmatrix/src"
			mount -t proc proc "$root/proc"
			chroot "$root" make -C "$kdir" M="$m" clean >/dev/null
			exec chroot "$root" make -C "$kdir" M="$m" modules "$@"
		' sh "$I_CHROOT" "$(dirname "$moddir")" "$I_KDIR" "/kmatrix/src/$(basename "$moddir")" \
			"$@" || rc=$?
	fi
	[ "$rc" -eq 0 ] || die "$id: build of $moddir against $I_KREL failed"
	log "$id: built $moddir against $I_KREL: $(since "$t0")"
}

# dkms-build ID SRCDIR: `dkms build` of the DKMS source tree SRCDIR (what
# make dkms-install puts in /usr/src/<name>-<version>) against the entry's
# headers, in a DKMS tree and source tree of its own (--dkmstree,
# --sourcetree), so the host's DKMS state is untouched. DKMS applies
# dkms.conf as on a user's machine: BUILD_EXCLUSIVE_KERNEL/ARCH/CONFIG and
# the MAKE line. Prints MODULE=<path of the built neuron.ko> (a copy under
# the cache, replaced on the next run).
cmd_dkms_build() {
	[ $# -eq 2 ] || die "usage: kmatrix.sh dkms-build ID SRCDIR"
	local id=$1 src name ver root= tmp shim= out t0 rc=0
	[ -f "$2/dkms.conf" ] || die "$2: no dkms.conf"
	src=$(realpath "$2")
	name=$(sed -n 's/^PACKAGE_NAME="\([^"]*\)"$/\1/p' "$src/dkms.conf")
	ver=$(head -n 1 "$src/VERSION")
	not_apt "$id" || { entry "$id"; lock -s; }
	info_of "$id"
	command -v dkms >/dev/null || die "dkms is not installed (scripts/deps.sh installs it)"
	t0=$(now)
	if [ -n "$I_CHROOT" ]; then
		root=$I_CHROOT
		[ "$(id -u)" -eq 0 ] || die "$id: dkms in the $E_GROUP chroot needs root"
		if ! chroot "$root" dpkg-query -W -f='${Status}' dkms 2>/dev/null | grep -q 'ok installed'; then
			log "$id: installing dkms in the $E_GROUP chroot"
			chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Acquire::Check-Valid-Until=false \
				install -y --no-install-recommends dkms >/dev/null ||
				die "$id: could not install dkms in the $E_GROUP chroot"
		fi
		tmp=$(mktemp -d "$root/tmp/kmatrix-dkms.XXXXXX")
	else
		tmp=$(mktemp -d)
		# the kernel's compiler (5.10: gcc-10) missing on this host: the
		# host gcc under its name, for DKMS's plain `make` (see host_cc)
		if [ -n "$(host_cc "$I_KDIR")" ]; then
			shim=$tmp/bin
			mkdir -p "$shim"
			ln -s "$(command -v gcc)" \
				"$shim/$(sed -n 's/^CC *=.*\(gcc-[0-9][0-9]*\).*/\1/p' "$I_KDIR/.kernelvariables")"
			log "$id: the kernel's compiler is not on this host, DKMS builds with the host gcc"
		fi
	fi
	mkdir -p "$tmp/source" "$tmp/dkms"
	cp -a "$src" "$tmp/source/$name-$ver"
	local in=${tmp#"$root"}
	local args=(-m "$name" -v "$ver" --dkmstree "$in/dkms" --sourcetree "$in/source")
	if [ -n "$root" ]; then
		# shellcheck disable=SC2016 # expanded by the inner shell
		unshare --mount --propagation private -- sh -c '
			set -e
			root=$1 krel=$2 kdir=$3
			shift 3
			mount -t proc proc "$root/proc"
			chroot "$root" dkms add "$@"
			exec chroot "$root" dkms build "$@" -k "$krel" --kernelsourcedir "$kdir"
		' sh "$root" "$I_KREL" "$I_KDIR" "${args[@]}" >"$tmp/log" 2>&1 || rc=$?
	else
		{ PATH=${shim:+$shim:}$PATH dkms add "${args[@]}" &&
		  PATH=${shim:+$shim:}$PATH dkms build "${args[@]}" -k "$I_KREL" \
			--kernelsourcedir "$I_KDIR"; } >"$tmp/log" 2>&1 || rc=$?
	fi
	out=$(find "$tmp/dkms/$name/$ver/$I_KREL" -name 'neuron.ko*' -path '*/module/*' 2>/dev/null | head -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
		tail -n 20 "$tmp/log" >&2
		rm -rf "$tmp"
		die "$id: dkms build of $name/$ver against $I_KREL failed"
	fi
	mkdir -p "$CACHE/dkms"
	cp "$out" "$CACHE/dkms/$id-neuron.ko"
	# what a caller checks besides the module: DKMS's make.log (warnings;
	# with KBUILD_VERBOSE=1 in the environment, every compile command)
	rm -f "$CACHE/dkms/$id-make.log"
	find "$tmp/dkms/$name/$ver/$I_KREL" -name make.log \
		-exec cp {} "$CACHE/dkms/$id-make.log" \; -quit 2>/dev/null || true
	rm -rf "$tmp"
	log "$id: dkms build against $I_KREL: $(since "$t0")"
	echo "MODULE=$CACHE/dkms/$id-neuron.ko"
	if [ -f "$CACHE/dkms/$id-make.log" ]; then echo "LOG=$CACHE/dkms/$id-make.log"; fi
}

main() {
	[ $# -ge 1 ] || { usage >&2; exit 2; }
	local cmd=$1
	shift
	case $cmd in
	-h | --help | help) usage ;;
	ids) matrix_ids; echo "$DEBUG_ID" ;;
	fetch) cmd_fetch "$@" ;;
	list) cmd_list ;;
	info) cmd_info "$@" ;;
	build) cmd_build "$@" ;;
	dkms-build) cmd_dkms_build "$@" ;;
	host) host_krel ;;
	clean)
		lock -x
		rm -rf "${CACHE:?}"/*
		;;
	*) die "unknown command '$cmd' (see --help)" ;;
	esac
}

main "$@"
