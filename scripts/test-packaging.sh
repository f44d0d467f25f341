#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Packaging test: DKMS install/remove of neuron.ko on this host, the
# installed module booted in the guest, `make install DESTDIR=` of libnrt and
# an external program built from it through pkg-config.
#
#   scripts/test-packaging.sh [--kver V] [--no-client-boot] [--matrix "ID ..."] [--help]
#
# --matrix: also `dkms build` the DKMS source tree against each of these
# kernels of scripts/kmatrix.sh (fetched already; make check fetches them),
# as DKMS on a user's machine would: dkms.conf's BUILD_EXCLUSIVE_* guards,
# its MAKE line, the module's vermagic.
#
# TAP (scripts/tap.sh), one line per check, the details of a failure below
# it as comments; exit status
# non-zero when anything failed. Needs root (dkms, /usr/src, /etc); changes
# to the host are undone at the end, also on failure or interrupt.
#
# BUILD_DIR (default build/) must hold a built tree (make): the guest needs
# its vm/ programs and libnrt. The external program is built into
# BUILD_DIR/vm/vm_pkgconfig_client, where scripts/vm.sh picks it up for
# tests/vm/90_pkgconfig.sh. --no-client-boot leaves that suite to the caller's
# VM run (make check); otherwise a second guest boot runs it here.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
kver=
client_boot=1
matrix=

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=$2; shift 2 ;;
	--no-client-boot) client_boot=0; shift ;;
	--matrix) matrix=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "test-packaging: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

. "$top/scripts/tap.sh"
t0=$(date +%s)
pass() { tap_pass "$1"; }
# fail NAME WHY [DETAILS]
fail() {
	tap_fail "$1" "$2"
	[ -n "${3:-}" ] && printf '%s\n' "$3" | tail -n 15 | sed 's/^/#    /'
	return 0
}
# check NAME WHY CMD...: passes when CMD exits 0.
check() {
	local name=$1 why=$2 out
	shift 2
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$why" "$out"; fi
}
check_eq() { # NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}
finish() {
	echo "# packaging: took $(( $(date +%s) - t0 )) s"
	tap_done packaging
	exit
}

ver=$(head -n 1 "$top/VERSION")
name=$(sed -n 's/^PACKAGE_NAME="\([^"]*\)"$/\1/p' "$top/dkms.conf")
arch=$(uname -m)
udev_rule=/etc/udev/rules.d/60-neuron.rules
modload=/etc/modules-load.d/neuron.conf
ids="7164 7264 7364 7564 7565"	# kmod/neuron_pci.c: Trn1, Inf2, Trn2, Trn3 x2
logs=$build/pkgtest
mkdir -p "$logs"
work=$(mktemp -d /tmp/neuron-pkgtest.XXXXXX)

# ---- the version: one file, read by everything --------------------------
check version-file "VERSION must be one line x.y.z" \
	bash -c '[ "$(wc -l < "$1")" -eq 1 ] && grep -Eqx "[0-9]+\.[0-9]+\.[0-9]+" "$1"' _ "$top/VERSION"
check_eq dkms-conf-version "$name $ver" \
	"$(bash -c '. "$1" >/dev/null 2>&1; echo "$PACKAGE_NAME $PACKAGE_VERSION"' _ "$top/dkms.conf")"
# dkms.conf's guard: exactly the tested range, 5.10 to 7.2 (docs/kernels.md).
guard=$(bash -c '. "$1" >/dev/null 2>&1
	for k in 4.19.0-27-amd64 5.4.0-150-generic 5.9.16 5.10.0-28-amd64 5.15.0-1051-aws 6.1.0-57-amd64 \
		 6.8.0-45-generic 6.12.117+deb12-rt-amd64 6.14.0-1015-aws 7.2.13+deb14-amd64 7.3.0-1-amd64 \
		 7.20.1 8.0.0 10.0.1; do
		[[ $k =~ $BUILD_EXCLUSIVE_KERNEL ]] && printf "%s " "$k"
	done' _ "$top/dkms.conf")
check_eq dkms-conf-kernel-guard "5.10.0-28-amd64 5.15.0-1051-aws 6.1.0-57-amd64 6.8.0-45-generic 6.12.117+deb12-rt-amd64 6.14.0-1015-aws 7.2.13+deb14-amd64 " "$guard"
check_eq dkms-conf-arch "x86_64" "$(bash -c '. "$1" >/dev/null 2>&1; for a in x86_64 aarch64 i686; do [[ $a =~ $BUILD_EXCLUSIVE_ARCH ]] && echo $a; done' _ "$top/dkms.conf")"
# A copy of the version in a source file (comments aside) would go stale.
hard=$(cd "$top" && grep -rnIwF "$ver" --include='*.[ch]' --include='*.[ch]pp' --include=Kbuild \
	--include=Makefile --include='*.in' --include='*.map' --include='*.txt' --include=dkms.conf \
	--include='*.rules' --include='*.conf' \
	dkms.conf packaging kmod libnrt include tools CMakeLists.txt Makefile 2>/dev/null |
	grep -vE '^[^:]+:[0-9]+:([[:space:]]*(\*|#|//)|.*/\*|.*//)')
check_eq version-not-hardcoded "" "$hard"
# make check builds the module first: a missing one is a failure, not a skip.
if [ ! -f "$top/kmod/neuron.ko" ]; then
	fail kmod-modinfo "$top/kmod/neuron.ko is missing (run make first)"
else
	check_eq kmod-modinfo-version "$ver" "$(modinfo -F version "$top/kmod/neuron.ko" 2>&1)"
	al=$(modinfo -F alias "$top/kmod/neuron.ko" 2>&1)
	want=$(for id in $ids; do echo "pci:v00001D0Fd0000${id}sv*sd*bc*sc*i*"; done | sort)
	check_eq kmod-modinfo-aliases "$want" "$(sort <<<"$al")"
fi

# ---- dkms build for every kernel of the matrix ----------------------------
# The tree make dkms-install copies to /usr/src, built by DKMS in a DKMS tree
# of its own (the host's DKMS state is not touched; the sid kernel's build
# runs in its chroot with sid's dkms).
if [ -n "$matrix" ]; then
	"$top/scripts/dkms-install.sh" --stage "$work/dkms-src" >/dev/null
	for id in $matrix; do
		krel=$("$top/scripts/kmatrix.sh" info "$id" 2>/dev/null | sed -n 's/^KREL=//p')
		if [ -z "$krel" ]; then
			fail "dkms-build-$id" "kernel $id is not in the matrix cache (scripts/kmatrix.sh fetch $id)"
			continue
		fi
		out=$("$top/scripts/kmatrix.sh" dkms-build "$id" "$work/dkms-src/$name-$ver" 2>&1)
		ko=$(sed -n 's/^MODULE=//p' <<<"$out")
		if [ -z "$ko" ]; then
			fail "dkms-build-$id" "dkms build against $krel failed" "$out"
		elif [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$krel" ]; then
			fail "dkms-build-$id" "DKMS built a module for '$(modinfo -F vermagic "$ko")', not $krel"
		else
			pass "dkms-build-$id"
		fi
	done
fi

# ---- make install DESTDIR=, libnrt through pkg-config ---------------------
dest=$work/root
# The Makefile's default PREFIX. (With /usr, pkg-config rightly drops
# -I/usr/include and -L/usr/lib as system directories, which would hide
# whether the flags are right.)
prefix=/usr/local
libnrt_test() {
	if [ ! -f "$build/CMakeCache.txt" ]; then
		fail make-install "no configured build tree at $build (run make)"
		return
	fi
	local stamp=$work/stamp
	touch "$stamp"
	if ! make -s -C "$top" install BUILD="$build" PREFIX="$prefix" DESTDIR="$dest" > "$logs/make-install.log" 2>&1; then
		fail make-install "make install PREFIX=$prefix DESTDIR=$dest failed" "$(cat "$logs/make-install.log")"
		return
	fi
	pass make-install
	# Every file the install wrote is under DESTDIR, none under PREFIX itself.
	local p missing='' outside
	while read -r p; do
		[ -e "$dest$p" ] || [ -L "$dest$p" ] || missing+=" $p"
	done < "$build/install_manifest.txt"
	outside=$(find "$prefix" -newer "$stamp" 2>/dev/null | head -n 5)
	check_eq install-stays-in-destdir "" "$missing$outside"

	local D=$dest$prefix f missing=
	for f in include/nrt/nrt.h include/nrt/nrt_status.h include/nrt/nrt_async.h include/ndl/ndl.h include/neuron/neuron_ioctl.h; do
		[ -f "$D/$f" ] || missing+=" $f"
	done
	check_eq headers-installed "" "$missing"

	local libdir
	libdir=$(dirname "$(find "$D" -name libnrt.so.1 2>/dev/null | head -n 1)")
	if [ ! -e "$libdir/libnrt.so.1" ]; then
		fail libnrt-installed "no libnrt.so.1 under $D"
		return
	fi
	check_eq libnrt-symlinks "libnrt.so.1 libnrt.so.$ver" \
		"$(readlink "$libdir/libnrt.so") $(readlink "$libdir/libnrt.so.1")"
	check libnrt-static "no libnrt.a exporting nrt_get_version_string in $libdir" \
		bash -c 'nm -g --defined-only "$1" | grep -qw nrt_get_version_string' _ "$libdir/libnrt.a"
	check_eq soname "[libnrt.so.1]" \
		"$(readelf -d "$libdir/libnrt.so.$ver" | sed -n 's/.*(SONAME).*: //p')"
	check_eq libnrt-no-rpath "" "$(readelf -d "$libdir/libnrt.so.$ver" | grep -E '\((RPATH|RUNPATH)\)')"

	# Every defined dynamic symbol is versioned NRT_1.0 and in the API's
	# name spaces (the linker map's local: * hides the rest).
	local dyn bad
	dyn=$(objdump -T "$libdir/libnrt.so.$ver" | awk '$NF != "" && / g / && !/\*UND\*/ { print $(NF-1), $NF }')
	bad=$(awk '!($1 == "NRT_1.0" && ($2 ~ /^(nrt|nrta|ndl|nds|kmetric)_/ || $2 == "NRT_1.0"))' <<<"$dyn")
	if [ -n "$dyn" ] && [ -z "$bad" ] &&
	   grep -qx 'NRT_1.0 nrt_get_version_string' <<<"$dyn" && grep -qx 'NRT_1.0 ndl_open_device' <<<"$dyn"; then
		pass symbols-versioned-NRT_1.0
	else
		fail symbols-versioned-NRT_1.0 "exports outside NRT_1.0 or the API prefixes" "$bad"
	fi

	# pkg-config, as a user of the staged installation would call it.
	local pc="env PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest pkg-config"
	check_eq pc-version "$ver" "$($pc --modversion libnrt 2>&1)"
	check_eq pc-prefix "$prefix" "$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --variable=prefix libnrt 2>&1)"
	check_eq pc-cflags "-I$D/include" "$($pc --cflags libnrt 2>&1 | xargs)"
	check_eq pc-libs "-L$libdir -lnrt" "$($pc --libs libnrt 2>&1 | xargs)"

	# PREFIX chosen at install time, not when the tree was configured.
	local dest2=$work/root2
	if make -s -C "$top" install BUILD="$build" PREFIX=/opt/neuron-pkgtest DESTDIR="$dest2" > "$logs/make-install2.log" 2>&1; then
		local pc2
		pc2=$(find "$dest2/opt/neuron-pkgtest" -name libnrt.pc | head -n 1)
		check_eq install-prefix-honoured "/opt/neuron-pkgtest" \
			"$(PKG_CONFIG_PATH=$(dirname "$pc2") pkg-config --variable=prefix libnrt 2>&1)"
	else
		fail install-prefix-honoured "make install PREFIX=/opt/neuron-pkgtest failed" "$(cat "$logs/make-install2.log")"
	fi

	# The command-line tools: tools/<name>/main.cpp is program <name>; its
	# command line is parsed in main.cpp, or in args.cpp beside it.
	local src t out
	for src in "$top"/tools/*/main.cpp; do
		[ -e "$src" ] || continue
		t=$(basename "$(dirname "$src")")
		if [ ! -x "$D/bin/$t" ]; then
			fail "tool-$t" "$prefix/bin/$t not installed"
			continue
		fi
		if ! out=$(LD_LIBRARY_PATH=$libdir "$D/bin/$t" --help 2>&1) || ! grep -qi usage <<<"$out"; then
			fail "tool-$t" "$t --help failed or printed no usage" "$out"
			continue
		fi
		# Every long option the source compares against is in --help.
		local opt undoc= parse=("$src")
		[ -e "$(dirname "$src")/args.cpp" ] && parse+=("$(dirname "$src")/args.cpp")
		for opt in $(cat "${parse[@]}" | grep -vE '^[[:space:]]*(//|/?\*)' | grep -oE '"--[a-z][a-z0-9-]*' | tr -d '"' | sort -u); do
			grep -qe "$opt" <<<"$out" || undoc+=" $opt"
		done
		if [ -z "$undoc" ]; then
			pass "tool-$t"
		else
			fail "tool-$t" "--help does not mention:$undoc"
		fi
	done

	# The external program, built only from pkg-config's flags.
	local client=$build/vm/vm_pkgconfig_client static=$work/pkgconfig_client_static
	rm -f "$client"
	mkdir -p "$build/vm"
	if make -s -C "$top/tests/pkgconfig" OUT="$build/vm" "$client" \
		PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" > "$logs/client.log" 2>&1; then
		pass client-build
	else
		fail client-build "tests/pkgconfig did not build against the installation" "$(cat "$logs/client.log")"
		return
	fi
	check_eq client-needs-libnrt.so.1 "[libnrt.so.1]" \
		"$(readelf -d "$client" | sed -n 's/.*(NEEDED).*: \(\[libnrt.*\)/\1/p')"
	# Its references into libnrt are bound to version NRT_1.0.
	local refs
	refs=$(objdump -T "$client" | awk '/\*UND\*/ && $NF ~ /^(nrt|ndl)_/ { print $(NF-1), $NF }' | sort)
	check_eq client-binds-NRT_1.0 "(NRT_1.0) ndl_available_devices
(NRT_1.0) ndl_close_device
(NRT_1.0) ndl_device_get_info
(NRT_1.0) ndl_open_device
(NRT_1.0) nrt_get_status_as_str
(NRT_1.0) nrt_get_version_string" "$refs"
	check_eq client-loads-installed-lib "$libdir/libnrt.so.1" \
		"$(LD_LIBRARY_PATH=$libdir ldd "$client" | awk '$1 == "libnrt.so.1" { print $3 }')"
	out=$(LD_LIBRARY_PATH=$libdir "$client" 2>&1)
	local rc=$?
	if [ $rc -eq 0 ] && grep -qx "libnrt $ver" <<<"$out" &&
	   grep -qx "status 1204 NRT_EXEC_SW_NQ_OVERFLOW" <<<"$out" && grep -Eqx 'devices [0-9]+' <<<"$out"; then
		pass client-runs-on-host
	else
		fail client-runs-on-host "exit $rc or unexpected output" "$out"
	fi
	# The SDK developer guide's flow (tests/sdk/sdk_run_neff.c), built the
	# same way; on this host (no device) it must end with a status, not a
	# crash. The guest runs it with a NEFF (90_pkgconfig).
	local sdk=$build/vm/vm_sdk_run_neff
	rm -f "$sdk"
	if make -s -C "$top/tests/pkgconfig" OUT="$build/vm" "$sdk" \
		PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" > "$logs/sdk.log" 2>&1; then
		pass sdk-flow-build
		out=$(LD_LIBRARY_PATH=$libdir "$sdk" 2>&1)
		if [ $? -eq 0 ] && grep -q '^runtime ' <<<"$out"; then
			pass sdk-flow-runs-on-host
		else
			fail sdk-flow-runs-on-host "exit status or output unexpected" "$out"
		fi
	else
		fail sdk-flow-build "tests/sdk/sdk_run_neff.c did not build against the installation" \
			"$(cat "$logs/sdk.log")"
	fi
	if make -s -C "$top/tests/pkgconfig" OUT="$work" "$static" \
		PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" > "$logs/client-static.log" 2>&1; then
		out=$("$static" 2>&1)
		if grep -qx "libnrt $ver" <<<"$out" && ! readelf -d "$static" | grep -q 'libnrt\.so'; then
			pass client-static
		else
			fail client-static "the static client did not run or still needs libnrt.so" "$out"
		fi
	else
		fail client-static "linking libnrt.a with pkg-config --static failed" "$(cat "$logs/client-static.log")"
	fi
}
libnrt_test

# ---- DKMS -----------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	fail dkms "needs root (dkms, /usr/src, /etc); run as root"
	rm -rf "$work"
	finish
fi
[ -n "$kver" ] || kver=$(make -s -C "$top/kmod" print-kver)
if [ -z "$kver" ] || [ ! -d "/lib/modules/$kver/build" ] || ! command -v dkms >/dev/null; then
	fail dkms "need dkms and a kernel with headers (kver '$kver'; run scripts/deps.sh)"
	rm -rf "$work"
	finish
fi

# One packaging test at a time on a host (it installs system-wide).
lock=/run/lock/$name-pkgtest.lock
[ -d /run/lock ] || lock=/tmp/$name-pkgtest.lock
exec 8>"$lock"
flock 8
# Install and remove only: load nothing into this host's kernel, even when it
# runs the kernel under test.
export NEURON_DKMS_NO_LOAD=1

fake_aws=aws-neuronx
fake_aws_ver=0.0.0pkgtest
fake_ko_dir=/lib/modules/$kver/extra/neuron-pkgtest
mok_existed=0
[ -e /var/lib/dkms/mok.key ] && mok_existed=1
group_existed=0
getent group neuron >/dev/null && group_existed=1
installed_by_us=0

cleanup() {
	if [ -d "/var/lib/dkms/$fake_aws/$fake_aws_ver" ]; then
		dkms remove -m "$fake_aws" -v "$fake_aws_ver" --all >/dev/null 2>&1
	fi
	rmdir "/var/lib/dkms/$fake_aws" 2>/dev/null
	rm -rf "/usr/src/$fake_aws-$fake_aws_ver" "$fake_ko_dir"
	rmdir "/lib/modules/$kver/extra" 2>/dev/null
	if [ "$installed_by_us" = 1 ] && { [ -d "/var/lib/dkms/$name" ] || [ -d "/var/lib/$name" ]; }; then
		"$top/scripts/dkms-uninstall.sh" >> "$logs/cleanup.log" 2>&1
	fi
	# DKMS makes itself a module-signing key on first use; drop it if this
	# test was that first use.
	[ "$mok_existed" = 0 ] && rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -e "/var/lib/dkms/$name" ] || compgen -G "/usr/src/$name-*" >/dev/null || [ -e "/var/lib/$name" ]; then
	fail dkms-clean-host "$name is already installed here; the test installs and removes it (run make dkms-uninstall first)"
	finish
fi
if ! out=$("$top/packaging/dkms-pre-install" "$kver" 2>&1); then
	fail dkms-clean-host "another neuron.ko provider is present on this host" "$out"
	finish
fi
pass dkms-clean-host

nothing_added() {
	[ ! -e "/usr/src/$name-$ver" ] && [ ! -e "/var/lib/dkms/$name" ] && [ ! -e "$udev_rule" ] &&
	[ ! -e "$modload" ] && [ ! -e "/var/lib/$name" ]
}

# Refusal 1: the vendor's DKMS package registered (dkms status shows it).
mkdir -p "/usr/src/$fake_aws-$fake_aws_ver"
cat > "/usr/src/$fake_aws-$fake_aws_ver/dkms.conf" <<EOF
PACKAGE_NAME="$fake_aws"
PACKAGE_VERSION="$fake_aws_ver"
BUILT_MODULE_NAME[0]="neuron"
DEST_MODULE_LOCATION[0]="/kernel/drivers/neuron/"
MAKE[0]="true"
EOF
touch "/usr/src/$fake_aws-$fake_aws_ver/Makefile"
if dkms add -m "$fake_aws" -v "$fake_aws_ver" > "$logs/fake-aws.log" 2>&1 &&
   dkms status 2>/dev/null | grep -q "^$fake_aws"; then
	out=$(make -s -C "$top" dkms-install KVER="$kver" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -q "DKMS module $fake_aws/$fake_aws_ver builds neuron.ko" <<<"$out" && nothing_added; then
		pass refuses-with-aws-neuronx-dkms
	else
		fail refuses-with-aws-neuronx-dkms "exit $rc, or no message naming $fake_aws, or files were added" "$out"
	fi
	dkms remove -m "$fake_aws" -v "$fake_aws_ver" --all >> "$logs/fake-aws.log" 2>&1
else
	fail refuses-with-aws-neuronx-dkms "could not register the stand-in $fake_aws with dkms" "$(cat "$logs/fake-aws.log")"
fi
rm -rf "/usr/src/$fake_aws-$fake_aws_ver"

# Refusal 2: a neuron.ko for this kernel that DKMS did not build for us.
mkdir -p "$fake_ko_dir"
echo "not a module" > "$fake_ko_dir/neuron.ko"
out=$(make -s -C "$top" dkms-install KVER="$kver" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -qF "$fake_ko_dir/neuron.ko is not neuron-oss's" <<<"$out" && nothing_added; then
	pass refuses-with-foreign-neuron.ko
else
	fail refuses-with-foreign-neuron.ko "exit $rc, or no message naming the file, or files were added" "$out"
fi
rm -rf "$fake_ko_dir"
rmdir "/lib/modules/$kver/extra" 2>/dev/null

# Install.
installed_by_us=1
if make -s -C "$top" dkms-install KVER="$kver" > "$logs/dkms-install.log" 2>&1; then
	pass dkms-install
else
	fail dkms-install "make dkms-install KVER=$kver failed (log: $logs/dkms-install.log)" "$(cat "$logs/dkms-install.log")"
	finish
fi
st=$(dkms status -m "$name" -v "$ver" -k "$kver" 2>&1)
check dkms-status-installed "dkms status: $st" grep -Eq "^$name(/|, )$ver, $kver, $arch: installed" <<<"$st"

srcdir=/usr/src/$name-$ver
missing=
for f in dkms.conf VERSION kmod/Kbuild kmod/Makefile kmod/neuron_main.c common/neuron_abi.c \
	 include/uapi/neuron/neuron_ioctl.h \
	 packaging/dkms-pre-install packaging/60-neuron.rules dkms-uninstall.sh; do
	[ -f "$srcdir/$f" ] || missing+=" $f"
done
check_eq usr-src-tree "" "$missing"
check_eq usr-src-no-build-products "" \
	"$(find "$srcdir" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*' \) -printf '%P ' 2>/dev/null)"
check_eq usr-src-version "$ver" "$(cat "$srcdir/VERSION" 2>&1)"

# The module DKMS installed, as module lookup (depmod) sees it.
modpath=$(modinfo -k "$kver" -n neuron 2>&1)
built=$(ls "/var/lib/dkms/$name/$ver/$kver/$arch/module/"neuron.ko* 2>/dev/null | head -n 1)
if [[ $modpath == /lib/modules/$kver/updates/dkms/neuron.ko* ]] && [ -n "$built" ] && cmp -s "$modpath" "$built"; then
	pass module-installed-and-indexed
else
	fail module-installed-and-indexed "modinfo -k $kver -n neuron gave '$modpath' (DKMS built '$built')"
fi
check_eq module-version "$ver" "$(modinfo -F version "$modpath" 2>&1)"
check_eq module-vermagic "$kver" "$(modinfo -F vermagic "$modpath" 2>&1 | cut -d' ' -f1)"
want=$(for id in $ids; do echo "pci:v00001D0Fd0000${id}sv*sd*bc*sc*i*"; done | sort)
check_eq module-pci-aliases "$want" "$(modinfo -F alias "$modpath" 2>&1 | sort)"
check_eq modalias-resolves "neuron" \
	"$(modprobe -S "$kver" -R 'pci:v00001D0Fd00007364sv00001D0Fsd00000000bc12sc00i00' 2>&1)"

check_eq udev-rule "$(cat "$top/packaging/60-neuron.rules")" "$(cat "$udev_rule" 2>&1)"
check udev-rule-0660-group-neuron "no 0660/neuron rule for neuron_device in $udev_rule" \
	grep -Eq '^SUBSYSTEM=="neuron_device", KERNEL=="neuron\[0-9\]\*", .*GROUP="neuron", MODE="0660"$' "$udev_rule"
check_eq modules-load "neuron" "$(grep -v '^#' "$modload" 2>&1)"
check group-neuron "group neuron missing" getent group neuron
check pre-install-accepts-ours "dkms-pre-install flags our own installed module" \
	"$srcdir/packaging/dkms-pre-install" "$kver"

# DKMS itself runs the check (PRE_INSTALL), so AUTOINSTALL on a kernel
# upgrade cannot overwrite another provider's module either.
dkms uninstall -m "$name" -v "$ver" -k "$kver" > "$logs/dkms-hook.log" 2>&1
mkdir -p "$fake_ko_dir"
echo "not a module" > "$fake_ko_dir/neuron.ko"
out=$(dkms install -m "$name" -v "$ver" -k "$kver" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "refusing to install" <<<"$out" && [ ! -e "$modpath" ] &&
   [ "$(cat "$fake_ko_dir/neuron.ko")" = "not a module" ]; then
	pass dkms-pre-install-hook-refuses
else
	fail dkms-pre-install-hook-refuses "dkms install exited $rc with a foreign neuron.ko present" "$out"
fi
rm -rf "$fake_ko_dir"
rmdir "/lib/modules/$kver/extra" 2>/dev/null
if dkms install -m "$name" -v "$ver" -k "$kver" >> "$logs/dkms-hook.log" 2>&1 && cmp -s "$modpath" "$built"; then
	pass dkms-reinstall-after-refusal
else
	fail dkms-reinstall-after-refusal "dkms install failed once the foreign module was gone" "$(cat "$logs/dkms-hook.log")"
fi

# The installed module is what the guest loads. vm.sh runs from the top with
# BUILD_DIR relative to it: with an absolute BUILD_DIR its ldd parsing takes
# ldd's "/path/prog:" headers for libraries.
vm_build=$(realpath --relative-to="$top" "$build")
if [ ! -x "$build/vm/vm_basic" ]; then
	fail vm-dkms-module "no guest programs under $build/vm (run make)"
else
	(cd "$top" && BUILD_DIR=$vm_build scripts/vm.sh --module "$modpath" --kver "$kver" --only module \
		--log "$logs/vm-module.log") > "$logs/vm-module.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass vm-dkms-module
	else
		fail vm-dkms-module "scripts/vm.sh --module $modpath --only module exited $rc ($(tail -n 1 "$logs/vm-module.out"))" \
			"$(grep -E '^(not ok|# vm|vm)' "$logs/vm-module.out")"
	fi
	if [ "$client_boot" = 1 ]; then
		(cd "$top" && BUILD_DIR=$vm_build scripts/vm.sh --module "$modpath" --kver "$kver" --only pkgconfig \
			--log "$logs/vm-pkgconfig.log") > "$logs/vm-pkgconfig.out" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			pass vm-pkgconfig-client
		else
			fail vm-pkgconfig-client "scripts/vm.sh --only pkgconfig exited $rc" \
				"$(grep -E '^(not ok|# vm|vm)' "$logs/vm-pkgconfig.out")"
		fi
	fi
fi

# Installing again changes nothing.
snap() {
	sha256sum "$modpath" "$udev_rule" "$modload" 2>&1
	dkms status -m "$name" 2>&1
	getent group neuron
	ls -l --time-style=+%s "/var/lib/$name" "$srcdir" 2>&1
}
before=$(snap)
if make -s -C "$top" dkms-install KVER="$kver" > "$logs/dkms-install2.log" 2>&1 &&
   grep -q "is already installed for $kver" "$logs/dkms-install2.log"; then
	pass install-twice
else
	fail install-twice "second make dkms-install failed or rebuilt" "$(cat "$logs/dkms-install2.log")"
fi
check_eq install-twice-same-state "$before" "$(snap)"

# Uninstall leaves nothing behind.
if make -s -C "$top" dkms-uninstall > "$logs/dkms-uninstall.log" 2>&1; then
	pass dkms-uninstall
else
	fail dkms-uninstall "make dkms-uninstall failed" "$(cat "$logs/dkms-uninstall.log")"
fi
left=
for p in "$srcdir" "/var/lib/dkms/$name" "$udev_rule" "$modload" "$modpath" "/var/lib/$name"; do
	[ -e "$p" ] && left+=" $p"
done
dkms status 2>/dev/null | grep -q "^$name" && left+=" (dkms status lists $name)"
modinfo -k "$kver" -n neuron >/dev/null 2>&1 && left+=" (modinfo -k $kver still finds neuron)"
if [ "$group_existed" = 0 ] && getent group neuron >/dev/null; then
	left+=" (group neuron, which the install created)"
fi
if [ "$group_existed" = 1 ] && ! getent group neuron >/dev/null; then
	left+=" (removed the pre-existing group neuron)"
fi
check_eq uninstall-leaves-nothing "" "${left# }"
out=$(make -s -C "$top" dkms-uninstall 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "nothing to remove" <<<"$out"; then
	pass uninstall-twice
else
	fail uninstall-twice "exit $rc" "$out"
fi
installed_by_us=0

finish
