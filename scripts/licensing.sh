#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Licensing a user can ship with, checked (TAP, scripts/tap.sh):
#  * every tracked file carries the SPDX expression its place in the tree
#    calls for (in its first three lines, or in a FILE.license beside a
#    file that has no comment syntax):
#      common/                        GPL-2.0 OR BSD-2-Clause (built into
#                                       the module and into libnrt)
#      kmod/, dkms.conf, packaging/     GPL-2.0
#      scripts/debug-kernel-patches/    GPL-2.0 (changes to the kernel's
#                                       own sources)
#      include/uapi/                    (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause
#      libnrt/, include/nrt/, include/ndl/, tools/
#                                       LGPL-2.1 OR BSD-2-Clause (any
#                                       application may link libnrt)
#      everything else (tests, scripts, docs, build files)
#                                       GPL-2.0 OR BSD-2-Clause
#  * LICENSES/ holds the text of every licence and exception named;
#  * the module declares MODULE_LICENSE("GPL");
#  * --lib FILE: the dynamic symbols libnrt.so.1 exports are exactly the
#    ones libnrt/libnrt.map lists by name (no wildcard exports).
#
#   scripts/licensing.sh [--lib build/libnrt.so.1] [--help]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/tap.sh"
lib=
while [ $# -gt 0 ]; do
	case "$1" in
	--lib) lib=$2; shift 2 ;;
	-h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "licensing.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
cd "$top" || exit 2

policy() {
	case "$1" in
	common/*) echo 'GPL-2.0 OR BSD-2-Clause' ;;
	kmod/*|dkms.conf|packaging/*|scripts/debug-kernel-patches/*) echo 'GPL-2.0' ;;
	include/uapi/*) echo '(GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause' ;;
	libnrt/*|include/nrt/*|include/ndl/*|tools/*) echo 'LGPL-2.1 OR BSD-2-Clause' ;;
	*) echo 'GPL-2.0 OR BSD-2-Clause' ;;
	esac
}

used=
while IFS= read -r f; do
	case "$f" in LICENSE|LICENSES/*|*.license) continue ;; esac
	[ -f "$f" ] || continue
	want=$(policy "$f")
	if [ -f "$f.license" ]; then
		got=$(sed -n 's/^SPDX-License-Identifier: //p' "$f.license" | head -n 1)
	else
		got=$(head -n 3 "$f" | sed -n 's/.*SPDX-License-Identifier: \(.*\)$/\1/p' | head -n 1 |
		      sed 's/ *\(\*\/\|-->\)$//')
	fi
	if [ -z "$got" ]; then
		tap_fail "spdx $f" "no SPDX-License-Identifier line (want '$want')"
	elif [ "$got" != "$want" ]; then
		tap_fail "spdx $f" "'$got', want '$want'"
	else
		tap_pass "spdx $f"
	fi
	used+=" $got"
done < <(git ls-files)

# every licence and exception named has its text
for id in $(tr ' ()' '\n\n\n' <<<"$used" | grep -vE '^(OR|AND|WITH|)$' | sort -u); do
	if [ -s "LICENSES/$id.txt" ]; then
		tap_pass "text LICENSES/$id.txt"
	else
		tap_fail "text LICENSES/$id.txt" "$id is named but its text is missing"
	fi
done

if grep -q 'MODULE_LICENSE("GPL")' kmod/neuron_main.c; then
	tap_pass module-license
else
	tap_fail module-license 'kmod/neuron_main.c does not say MODULE_LICENSE("GPL")'
fi

if [ -n "$lib" ]; then
	map=libnrt/libnrt.map
	listed=$(sed -e 's|/\*.*\*/||g' "$map" | sed -n '/global:/,/local:/p' |
		 grep -oE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;' | sort -u)
	exported=$(nm -D --defined-only "$lib" 2>/dev/null | awk '$2 ~ /^[TDBRVWi]$/ { print $3 }' |
		   sed 's/@.*//' | grep -vx 'NRT_[0-9.]*' | sort -u)
	if [ -z "$exported" ]; then
		tap_fail symbols-exported "nm found no exported symbol in $lib"
	elif grep -q '\*' <<<"$(sed -e 's|/\*.*\*/||g' "$map" | sed -n '/global:/,/local:/p')"; then
		tap_fail symbols-listed "$map exports by wildcard; list every symbol by name"
	else
		extra=$(comm -13 <(echo "$listed") <(echo "$exported") | tr '\n' ' ')
		missing=$(comm -23 <(echo "$listed") <(echo "$exported") | tr '\n' ' ')
		if [ -n "$extra" ]; then
			tap_fail symbols-exported "exported but not in $map: $extra"
		else
			tap_pass symbols-exported
		fi
		if [ -n "$missing" ]; then
			tap_fail symbols-listed "in $map but not exported: $missing"
		else
			tap_pass symbols-listed
		fi
	fi
fi
tap_done licensing
