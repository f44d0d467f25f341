#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The UAPI is identical for 32- and 64-bit processes: build tests/uapi/layout.c
# with -m32 and -m64, compare every struct's size and alignment, every
# member's offset and size and every ioctl number, and require struct sizes
# that are multiples of 8. TAP, one line per check (scripts/tap.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/scripts/tap.sh"
for m in 32 64; do
	if ! gcc -m$m -std=c11 -Wall -Wextra -Werror -I"$top/include/uapi" \
		"$top/tests/uapi/layout.c" -o "$tmp/layout$m" 2>"$tmp/err$m"; then
		tap_fail "build-m$m" "$(head -n 3 "$tmp/err$m" | tr '\n' ' ')"
		tap_done uapi-layout
		exit 1
	fi
	"$tmp/layout$m" > "$tmp/out$m" 2>"$tmp/err$m"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		tap_fail "run-m$m" "the layout program exited $rc: $(head -n 3 "$tmp/err$m" | tr '\n' ' ')"
		tap_done uapi-layout
		exit 1
	fi
	# every line "S|M|I name numbers...": nothing else, and not nothing
	if [ ! -s "$tmp/out$m" ] || grep -qvE '^[A-Z] [A-Za-z0-9_.]+( (-?[0-9]+|0x[0-9a-f]+))+$' "$tmp/out$m"; then
		tap_fail "output-m$m" "empty or malformed: $(grep -vE '^[A-Z] [A-Za-z0-9_.]+( (-?[0-9]+|0x[0-9a-f]+))+$' "$tmp/out$m" | head -n 2 | tr '\n' ' ')"
		tap_done uapi-layout
		exit 1
	fi
done

while read -r kind name rest; do
	other=$(grep -E "^$kind $name " "$tmp/out32" | cut -d' ' -f3-)
	if [ -z "$other" ]; then
		tap_fail "$name" "missing from the -m32 build"
		continue
	fi
	if [ "$other" != "$rest" ]; then
		tap_fail "$name" "-m64 '$rest' vs -m32 '$other'"
		continue
	fi
	if [ "$kind" = S ] && [ $(( ${rest%% *} % 8 )) -ne 0 ]; then
		tap_fail "$name" "size ${rest%% *} is not a multiple of 8"
		continue
	fi
	tap_pass "$kind $name"
done < "$tmp/out64"
if [ "$(wc -l < "$tmp/out32")" = "$(wc -l < "$tmp/out64")" ]; then
	tap_pass line-count
else
	tap_fail line-count "the -m32 and -m64 builds print different numbers of lines"
fi
tap_done uapi-layout
