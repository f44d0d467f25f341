#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The kernel's own style checker on the module's sources: every file of
# kmod/ and common/ (but the compatibility header kmod/neuron_compat.h, whose version
# checks checkpatch rightly dislikes, and generated files) must give 0
# errors and 0 warnings with `checkpatch.pl --strict` (CHECK notes are
# allowed).
#
#   scripts/checkpatch.sh [--help]
#
# checkpatch.pl comes from Debian's linux-source-6.1 package (installed by
# scripts/deps.sh for the debug kernel): the script and its data files are
# extracted once into a cache outside the work tree (CHECKPATCH_CACHE,
# default /var/cache/neuron-oss/checkpatch/<package version>).
# TAP (scripts/tap.sh), one line per file.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/tap.sh"
case "${1:-}" in
-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "checkpatch.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac

tarball=/usr/src/linux-source-6.1.tar.xz
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
if [ ! -r "$tarball" ] || [ -z "$pkgver" ]; then
	tap_fail setup "linux-source-6.1 is not installed (run scripts/deps.sh)"
	tap_done checkpatch
	exit 1
fi
cache=${CHECKPATCH_CACHE:-/var/cache/neuron-oss/checkpatch/$pkgver}
cp_pl=$cache/scripts/checkpatch.pl
if [ ! -x "$cp_pl" ]; then
	mkdir -p "$cache"
	# checkpatch.pl reads spelling.txt and const_structs.checkpatch beside it
	if ! tar -C "$cache" --strip-components=1 -xJf "$tarball" \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch 2>"$cache/extract.log"; then
		tap_fail setup "could not extract checkpatch.pl from $tarball: $(head -n 2 "$cache/extract.log" | tr '\n' ' ')"
		tap_done checkpatch
		exit 1
	fi
fi

cd "$top" || exit 1
# every file checked on its own, one per core at a time (about 2 s each),
# the reports then read back in the files' order
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
files=$(git ls-files 'kmod/*.c' 'kmod/*.h' 'common/*.c' 'common/*.h' | grep -v '^kmod/neuron_compat\.h$')
# shellcheck disable=SC2016 # expanded by the inner shell
printf '%s\n' $files | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} sh -c '
	perl "$1" --strict --no-tree --terse --show-types --no-summary -f "$2" \
		> "$3/$(echo "$2" | tr / _)" 2>&1' sh "$cp_pl" {} "$out_dir"
for f in $files; do
	out=$(cat "$out_dir/$(echo "$f" | tr / _)" 2>&1)
	bad=$(grep -E ': (ERROR|WARNING):' <<<"$out")
	if [ -n "$bad" ]; then
		tap_fail "$f" "$(wc -l <<<"$bad") error(s)/warning(s): $(head -n 3 <<<"$bad" | tr '\n' ' ')"
	else
		tap_pass "$f"
	fi
done
tap_done checkpatch
