#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libnrt's execution path on one page of text (TAP, scripts/tap.sh): the
# functions marked NRT_HOT_PATH (libnrt/src/export.hpp) sit in the output
# section .text.nrt_hot (libnrt/hot.ld), which must
#  * exist in the library,
#  * start on a page boundary and be no longer than a page,
#  * hold nrt_execute whole, with no part of it (a .cold clone) elsewhere.
# Under an emulated CPU a jump to another page costs the emulator a block
# look-up (docs/performance.md, "Pages of code").
#
#   scripts/hot-text.sh build/libnrt.so.1 | --help
set -uo pipefail
case "${1:-}" in
-h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
'') echo "hot-text.sh: name the library to check (see --help)" >&2; exit 2 ;;
esac
if [ $# -ne 1 ] || [ ! -r "$1" ]; then
	echo "hot-text.sh: one readable library, not '$*' (see --help)" >&2
	exit 2
fi
lib=$1
. "$(cd "$(dirname "$0")" && pwd)/tap.sh"
page=4096

# "ADDRESS SIZE" of the section, in hex, or nothing
sec=$(readelf -SW "$lib" | sed -n 's/^ *\[ *[0-9]*\] \.text\.nrt_hot  *PROGBITS  *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p')
if [ -z "$sec" ]; then
	tap_fail section "$lib has no .text.nrt_hot section (built without libnrt/hot.ld?)"
	tap_done hot-text
	exit
fi
tap_pass section
read -r addr size <<<"$sec"
addr=$((16#$addr)); size=$((16#$size))
if [ $((addr % page)) -ne 0 ]; then
	tap_fail one-page "the section starts at 0x$(printf %x $addr), not on a page boundary"
elif [ "$size" -gt "$page" ]; then
	tap_fail one-page "the section holds $size bytes, more than a page ($page): keep NRT_HOT_PATH small"
else
	tap_pass one-page
fi
# nrt_execute is exported: the dynamic symbol table has it even in a
# stripped library
line=$(nm -D -S --defined-only "$lib" 2>/dev/null | awk '$4 ~ /^nrt_execute(@|$)/ { print $1, $2; exit }')
if [ -z "$line" ]; then
	tap_fail holds-nrt_execute "nm -D finds no nrt_execute in $lib"
else
	read -r a s <<<"$line"
	a=$((16#$a)); s=$((16#$s))
	if [ "$a" -ge "$addr" ] && [ $((a + s)) -le $((addr + size)) ]; then
		tap_pass holds-nrt_execute
	else
		tap_fail holds-nrt_execute "nrt_execute is at 0x$(printf %x $a)+$s, outside the section (0x$(printf %x $addr)+$size)"
	fi
fi
# a part of nrt_execute the compiler split off (nrt_execute.cold) would
# run from another page; a stripped library cannot say, which fails
syms=$(nm --defined-only "$lib" 2>/dev/null)
split=$(awk '$3 ~ /^nrt_execute\./ { printf "%s ", $3 }' <<<"$syms")
if [ -z "$syms" ]; then
	tap_fail no-split "nm finds no symbol table in $lib (stripped?): cannot look for nrt_execute.cold"
elif [ -n "$split" ]; then
	tap_fail no-split "${split}lie outside the section"
else
	tap_pass no-split
fi
tap_done hot-text
