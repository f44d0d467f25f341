#!/usr/bin/env bash
# The UAPI is identical for 32- and 64-bit processes: build tests/uapi/layout.c
# with -m32 and -m64, compare every struct's size and alignment, every
# member's offset and size and every ioctl number, and require struct sizes
# that are multiples of 8. One line per check, then
# "uapi-layout: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
for m in 32 64; do
	if ! gcc -m$m -std=c11 -Wall -Wextra -Werror -I"$top/include/uapi" \
		"$top/tests/uapi/layout.c" -o "$tmp/layout$m" 2>"$tmp/err$m"; then
		echo "UAPI FAIL build-m$m: $(head -n 3 "$tmp/err$m" | tr '\n' ' ')"
		echo "uapi-layout: 0 passed, 1 failed"
		exit 1
	fi
	"$tmp/layout$m" > "$tmp/out$m" 2>"$tmp/err$m"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "UAPI FAIL run-m$m: the layout program exited $rc: $(head -n 3 "$tmp/err$m" | tr '\n' ' ')"
		echo "uapi-layout: 0 passed, 1 failed"
		exit 1
	fi
	# every line "S|M|I name numbers...": nothing else, and not nothing
	if [ ! -s "$tmp/out$m" ] || grep -qvE '^[A-Z] [A-Za-z0-9_.]+( (-?[0-9]+|0x[0-9a-f]+))+$' "$tmp/out$m"; then
		echo "UAPI FAIL output-m$m: empty or malformed: $(grep -vE '^[A-Z] [A-Za-z0-9_.]+( (-?[0-9]+|0x[0-9a-f]+))+$' "$tmp/out$m" | head -n 2 | tr '\n' ' ')"
		echo "uapi-layout: 0 passed, 1 failed"
		exit 1
	fi
done

while read -r kind name rest; do
	other=$(grep -E "^$kind $name " "$tmp/out32" | cut -d' ' -f3-)
	if [ -z "$other" ]; then
		echo "UAPI FAIL $name: missing from the -m32 build"
		fail=$((fail + 1))
		continue
	fi
	if [ "$other" != "$rest" ]; then
		echo "UAPI FAIL $name: -m64 '$rest' vs -m32 '$other'"
		fail=$((fail + 1))
		continue
	fi
	if [ "$kind" = S ] && [ $(( ${rest%% *} % 8 )) -ne 0 ]; then
		echo "UAPI FAIL $name: size ${rest%% *} is not a multiple of 8"
		fail=$((fail + 1))
		continue
	fi
	pass=$((pass + 1))
done < "$tmp/out64"
[ "$(wc -l < "$tmp/out32")" = "$(wc -l < "$tmp/out64")" ] || { echo "UAPI FAIL line count differs"; fail=$((fail + 1)); }
echo "uapi-layout: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
