#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The guest's jq, made once and cached: Debian sid's jq (1.8) with the
# loader and C library it was built against. bookworm's jq 1.6 compiles its
# builtin library at every start, 40 ms of CPU here and about a second in a
# TCG guest; sid's starts in about 5 ms. The guest suites call jq many
# times (tests/vm/41_tools.sh, 42_monitor.sh, ...), so this is where much
# of a guest run's time went (docs/kernels.md).
#
#   scripts/guest-jq.sh [--help]
#
# Prints the directory that holds jq, libjq.so.1, libonig.so.5, libc.so.6,
# libm.so.6 and ld-linux-x86-64.so.2; in the guest, jq runs as
#   DIR/ld-linux-x86-64.so.2 --library-path DIR DIR/jq ARGS...
# The packages come from the sid chroot that scripts/kmatrix.sh (sid's
# kernel) and scripts/qemu-sid-lib.sh (the PCI suite's QEMU) keep, through
# its apt (the Debian mirror). Exit 1 with one line on stderr when no
# such chroot exists or the download fails: scripts/vm.sh then packs the
# host's jq (slower, same answers for the suites).
#
# Environment: GUEST_JQ_CACHE (default /var/cache/neuron-oss/guest-jq),
# QEMU_SID_CACHE, KMATRIX_CACHE (where to find the sid chroot).
set -euo pipefail

case "${1:-}" in
-h|--help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
'') ;;
*) echo "guest-jq: unknown argument '$1' (--help)" >&2; exit 2 ;;
esac

cache=${GUEST_JQ_CACHE:-/var/cache/neuron-oss/guest-jq}
dir=$cache/jq
files=(jq libjq.so.1 libonig.so.5 libc.so.6 libm.so.6 ld-linux-x86-64.so.2)

works() { # works DIR: the cached jq answers through its own loader
	[ -x "$1/ld-linux-x86-64.so.2" ] &&
		[ "$("$1/ld-linux-x86-64.so.2" --library-path "$1" "$1/jq" -n '1 + 1' 2>/dev/null)" = 2 ]
}

if works "$dir"; then
	echo "$dir"
	exit 0
fi

die() { echo "guest-jq: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "making the cache needs root (chroot)"
root=
for r in "${QEMU_SID_CACHE:-/var/cache/neuron-oss/qemu-sid}/root" \
	 "${KMATRIX_CACHE:-/var/cache/neuron-oss/kmatrix}/sid-root"; do
	if [ -x "$r/usr/bin/apt-get" ]; then root=$r; break; fi
done
[ -n "$root" ] || die "no sid chroot (scripts/kmatrix.sh makes one for sid's kernel)"

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if works "$dir"; then	# made meanwhile by another run
	echo "$dir"
	exit 0
fi
dl=$(mktemp -d "$root/tmp/guest-jq.XXXXXX")
new=$(mktemp -d "$cache/jq.new.XXXXXX")
trap 'rm -rf "$dl" "$new"' EXIT
(cd "$dl" && chroot "$root" sh -c "cd '/tmp/$(basename "$dl")' &&
	apt-get download jq libjq1 libonig5") >"$cache/apt.log" 2>&1 ||
	die "apt-get download in $root failed (see $cache/apt.log)"
for deb in "$dl"/*.deb; do
	dpkg-deb -x "$deb" "$new/x"
done
lib=x86_64-linux-gnu
cp -L "$new/x/usr/bin/jq" "$new/x/usr/lib/$lib/libjq.so.1" "$new/x/usr/lib/$lib/libonig.so.5" "$new/"
for f in libc.so.6 libm.so.6 ld-linux-x86-64.so.2; do
	cp -L "$root/usr/lib/$lib/$f" "$new/"
done
rm -rf "$new/x"
for f in "${files[@]}"; do
	[ -f "$new/$f" ] || die "$f missing from the packages"
done
works "$new" || die "sid's jq does not run through its loader (see $cache/apt.log)"
chmod 755 "$new"
rm -rf "$dir"
mv "$new" "$dir"
echo "$dir"
