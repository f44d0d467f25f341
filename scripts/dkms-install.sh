#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install neuron.ko through DKMS as package neuron-oss, and the host files
# the device nodes need. Run as root; `make dkms-install [KVER=V]` calls it.
#
#   scripts/dkms-install.sh [--kver V] [--help]
#   scripts/dkms-install.sh --stage DIR
#
# --stage DIR  only write the DKMS source tree (step 3's copy) to
#              DIR/<name>-<VERSION> and stop; needs no root and installs
#              nothing (scripts/test-packaging.sh builds it for every kernel
#              of the matrix with scripts/kmatrix.sh dkms-build).
# --kver V   kernel to build and install for (default: the newest V with both
#            /boot/vmlinuz-V and /lib/modules/V/build, as `make -C kmod`
#            picks). DKMS then rebuilds for every later kernel (AUTOINSTALL).
#
# Steps, each skipped when already done (running it twice changes nothing):
#   1. refuse if another neuron.ko provider is present (packaging/dkms-pre-install)
#   2. remove older neuron-oss versions (an upgrade)
#   3. copy dkms.conf, VERSION, kmod/, common/, include/uapi/, packaging/ to
#      /usr/src/neuron-oss-<VERSION>; dkms add, dkms build -k V, dkms install -k V
#   4. group "neuron" (created when missing, and then recorded), the udev rule
#      /etc/udev/rules.d/60-neuron.rules (/dev/neuron* root:neuron 0660), the
#      modules-load entry /etc/modules-load.d/neuron.conf, depmod -a V
#   5. if V is the running kernel: udev reload, and load the module when it is
#      not loaded yet (not with NEURON_DKMS_NO_LOAD=1 in the environment)
# What it added is recorded under /var/lib/neuron-oss/ for
# scripts/dkms-uninstall.sh (also copied to /usr/src/neuron-oss-<VERSION>/).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kver=
stage_only=

usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "dkms-install: $*" >&2; exit 1; }
say() { echo "dkms-install: $*"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--kver) [ $# -ge 2 ] || die "--kver needs a value"; kver=$2; shift 2 ;;
	--kver=*) kver=${1#--kver=}; shift ;;
	--stage) [ $# -ge 2 ] || die "--stage needs a directory"; stage_only=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "dkms-install: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

name=$(sed -n 's/^PACKAGE_NAME="\([^"]*\)"$/\1/p' "$top/dkms.conf")
ver=$(head -n 1 "$top/VERSION")
[ -n "$name" ] || die "no PACKAGE_NAME in $top/dkms.conf"
[[ $ver =~ ^[0-9]+\.[0-9]+\.[0-9]+([.~+-][0-9A-Za-z.~+-]*)?$ ]] || die "VERSION '$ver' is not a version"

# The source tree DKMS builds from (step 3): only what kbuild needs, no build
# products, root-owned, 0644 (0755 for directories and scripts).
# stage_tree DIR: writes it to DIR/<name>-<ver>.
stage_tree() {
	local tree=$1/$name-$ver
	mkdir -p "$tree"
	(
		cd "$top"
		{
			printf '%s\n' dkms.conf VERSION
			find kmod common -type f \( -name '*.c' -o -name '*.h' -o -name Kbuild -o -name Makefile \) ! -name '*.mod.c'
			find include/uapi -type f -name '*.h'
			find packaging -type f
		} | LC_ALL=C sort | tar -cf - --no-recursion -T -
	) | tar -C "$tree" -xf - --no-same-owner
	cp "$top/scripts/dkms-uninstall.sh" "$tree/dkms-uninstall.sh"
	find "$tree" -type d -exec chmod 0755 {} +
	find "$tree" -type f -exec chmod 0644 {} +
	chmod 0755 "$tree/packaging/dkms-pre-install" "$tree/dkms-uninstall.sh"
}
if [ -n "$stage_only" ]; then
	stage_tree "$stage_only"
	say "staged the DKMS source tree in $stage_only/$name-$ver"
	exit 0
fi

srcdir=/usr/src/$name-$ver
dkms_tree=/var/lib/dkms
state=/var/lib/$name
udev_rule=/etc/udev/rules.d/60-neuron.rules
modload=/etc/modules-load.d/neuron.conf
group=neuron

[ "$(id -u)" -eq 0 ] || die "run as root (it writes /usr/src, /lib/modules, /etc)"
command -v dkms >/dev/null || die "dkms is not installed (Debian/Ubuntu: apt-get install dkms; RHEL: dnf install dkms)"
if [ -z "$kver" ]; then
	kver=$(make -s -C "$top/kmod" print-kver)
	[ -n "$kver" ] || die "no kernel with both /boot/vmlinuz-V and /lib/modules/V/build; install the headers (linux-headers-\$(uname -r)) or pass KVER="
fi
[ -d "/lib/modules/$kver/build" ] || die "no headers for kernel $kver (/lib/modules/$kver/build); install linux-headers-$kver"

# Serialise concurrent installs/uninstalls.
lock=/run/lock/$name-dkms.lock
[ -d /run/lock ] || lock=/tmp/$name-dkms.lock
exec 9>"$lock"
flock 9

# 1. Another provider of neuron.ko: refuse before changing anything.
"$top/packaging/dkms-pre-install" "$kver" || exit 1

# Versions of ours DKMS knows (directories; kernel-* entries are symlinks).
known_versions() {
	local d
	for d in "$dkms_tree/$name"/*/; do
		[ -d "$d" ] && [ ! -L "${d%/}" ] && basename "$d"
	done
	return 0
}

# 2. Older (or newer) versions: an upgrade replaces them.
for v in $(known_versions); do
	[ "$v" = "$ver" ] && continue
	say "removing $name/$v (replaced by $ver)"
	dkms remove -m "$name" -v "$v" --all
	if [ -f "/usr/src/$name-$v/dkms.conf" ] && grep -q "^PACKAGE_NAME=\"$name\"$" "/usr/src/$name-$v/dkms.conf"; then
		rm -rf "/usr/src/$name-$v"
	fi
done

# 3. The source tree (stage_tree above).
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tree=$stage/$name-$ver
stage_tree "$stage"

registered=0
[ -d "$dkms_tree/$name/$ver" ] && registered=1
if [ -d "$srcdir" ] && diff -r -q "$tree" "$srcdir" >/dev/null 2>&1; then
	say "$srcdir is up to date"
else
	if [ "$registered" = 1 ]; then
		# Same version, different sources (a development tree): what DKMS
		# built from the old copy is stale.
		say "sources of $name/$ver changed; removing the old build"
		dkms remove -m "$name" -v "$ver" --all
		registered=0
	fi
	rm -rf "$srcdir"
	cp -a "$tree" "$srcdir"
	say "copied the module sources to $srcdir"
fi
if [ "$registered" = 0 ]; then
	dkms add -m "$name" -v "$ver"
fi

arch=$(uname -m)
if [ -L "$dkms_tree/$name/kernel-$kver-$arch" ] &&
   [ "$(readlink "$dkms_tree/$name/kernel-$kver-$arch")" = "$ver/$kver/$arch" ]; then
	say "$name/$ver is already installed for $kver"
else
	if [ ! -d "$dkms_tree/$name/$ver/$kver/$arch/module" ]; then
		rc=0
		dkms build -m "$name" -v "$ver" -k "$kver" || rc=$?
		case "$rc" in
		0) ;;
		77) die "kernel $kver ($arch) is not supported: dkms.conf's BUILD_EXCLUSIVE_* needs Linux 5.10 to 7.2 (docs/kernels.md) on x86_64 with CONFIG_PCI" ;;
		*) die "dkms build failed (exit $rc); the log is $dkms_tree/$name/$ver/build/make.log" ;;
		esac
	fi
	rc=0
	dkms install -m "$name" -v "$ver" -k "$kver" || rc=$?
	[ "$rc" -eq 0 ] || die "dkms install failed (exit $rc)"
fi
depmod -a "$kver"

# 4. Host files. The record lets the uninstaller remove exactly these, and
# the group only when this script created it.
mkdir -p "$state"
chmod 0755 "$state"
if ! getent group "$group" >/dev/null; then
	groupadd --system "$group"
	: > "$state/group-created"
	say "created system group '$group' (add users with: usermod -aG $group USER)"
fi
# update FILE: replace FILE with the content on stdin, only if it differs.
update() {
	local tmp
	tmp=$(mktemp "$1.XXXXXX")
	cat > "$tmp"
	if cmp -s "$tmp" "$1"; then
		rm -f "$tmp"
		return 1
	fi
	chmod 0644 "$tmp"
	mv -f "$tmp" "$1"
}
install_file() { # SRC DEST
	mkdir -p "$(dirname "$2")"
	update "$2" < "$1" && say "installed $2"
	{
		grep -vF "  $2" "$state/manifest" 2>/dev/null || true
		sha256sum "$2"
	} | sort -k 2 | update "$state/manifest" || true
}
install_file "$top/packaging/60-neuron.rules" "$udev_rule"
install_file "$top/packaging/neuron-modules-load.conf" "$modload"
printf '%s\n' "$ver" | update "$state/version" || true

# 5. Only for the running kernel, and only where udevd runs (containers,
# chroots and image builds have neither).
if [ -S /run/udev/control ] && command -v udevadm >/dev/null; then
	udevadm control --reload-rules || true
	udevadm trigger --action=change --subsystem-match=neuron_device || true
fi
if [ "$kver" = "$(uname -r)" ] && [ "${NEURON_DKMS_NO_LOAD:-0}" != 1 ]; then
	if [ ! -d /sys/module/neuron ]; then
		if modprobe neuron; then
			say "loaded neuron $ver"
		else
			say "warning: modprobe neuron failed; see dmesg"
		fi
	elif [ "$(cat /sys/module/neuron/version 2>/dev/null)" != "$ver" ]; then
		say "note: neuron $(cat /sys/module/neuron/version 2>/dev/null || echo '(unknown version)') is loaded; the new one loads at the next boot or after: rmmod neuron && modprobe neuron"
	fi
elif [ "$kver" != "$(uname -r)" ]; then
	say "kernel $kver is not the running one ($(uname -r)); the module loads when it boots"
fi

say "$name $ver installed for $kver: $(modinfo -k "$kver" -n neuron 2>/dev/null || echo '?')"
