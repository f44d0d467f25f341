#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Remove what scripts/dkms-install.sh added. Run as root; `make
# dkms-uninstall` calls it, and it also works without the source checkout as
# /usr/src/neuron-oss-<VERSION>/dkms-uninstall.sh.
#
#   scripts/dkms-uninstall.sh [--help]
#
#   - every neuron-oss version from DKMS, for all kernels (dkms remove --all,
#     which deletes the installed neuron.ko files and runs depmod), and its
#     /usr/src/neuron-oss-<version> tree
#   - the module from the running kernel, when it is ours and not in use
#     (not with NEURON_DKMS_NO_LOAD=1 in the environment)
#   - the udev rule and the modules-load entry (kept, with a warning, when
#     edited since installation)
#   - the group "neuron", only if the installer created it
#   - the record under /var/lib/neuron-oss/
# Nothing else is touched: another provider's neuron.ko (aws-neuronx) stays.
# Running it again when nothing is installed is harmless.
set -euo pipefail

name=neuron-oss
dkms_tree=/var/lib/dkms
state=/var/lib/$name
group=neuron

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }
say() { echo "dkms-uninstall: $*"; }
case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) echo "dkms-uninstall: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "dkms-uninstall: run as root" >&2; exit 1; }

lock=/run/lock/$name-dkms.lock
[ -d /run/lock ] || lock=/tmp/$name-dkms.lock
exec 9>"$lock"
flock 9

removed=0
versions=()
for d in "$dkms_tree/$name"/*/ /usr/src/"$name"-*/; do
	[ -d "$d" ] && [ ! -L "${d%/}" ] || continue
	v=$(basename "$d")
	v=${v#"$name"-}
	[[ " ${versions[*]} " == *" $v "* ]] || versions+=("$v")
done

# Source hashes of the modules DKMS built for us, to recognise a loaded one.
ours_srcversions=" "
for m in "$dkms_tree/$name"/*/*/*/module/neuron.ko*; do
	[ -f "$m" ] && ours_srcversions+="$(modinfo -F srcversion "$m" 2>/dev/null) "
done

for v in "${versions[@]}"; do
	if [ -d "$dkms_tree/$name/$v" ]; then
		if command -v dkms >/dev/null; then
			dkms remove -m "$name" -v "$v" --all
		else
			say "warning: dkms is not installed; cannot remove $name/$v from $dkms_tree"
		fi
		removed=1
	fi
	src=/usr/src/$name-$v
	if [ -f "$src/dkms.conf" ] && grep -q "^PACKAGE_NAME=\"$name\"$" "$src/dkms.conf"; then
		rm -rf "$src"
		say "removed $src"
		removed=1
	fi
done
rmdir "$dkms_tree/$name" 2>/dev/null || true

# The running kernel's module, if it is one DKMS built for us and nothing
# holds it open.
if [ -d /sys/module/neuron ] && [ "${NEURON_DKMS_NO_LOAD:-0}" != 1 ]; then
	loaded=$(cat /sys/module/neuron/version 2>/dev/null || true)
	src=$(cat /sys/module/neuron/srcversion 2>/dev/null || true)
	if [ -n "$src" ] && [[ $ours_srcversions == *" $src "* ]]; then
		if rmmod neuron 2>/dev/null; then
			say "unloaded neuron $loaded"
		else
			say "warning: neuron $loaded is in use and stays loaded until reboot"
		fi
	fi
fi

# Host files, as recorded at installation.
if [ -f "$state/manifest" ]; then
	while read -r sum path; do
		[ -n "$path" ] || continue
		if [ ! -e "$path" ]; then
			continue
		fi
		if [ "$(sha256sum "$path" | cut -d' ' -f1)" = "$sum" ]; then
			rm -f "$path"
			say "removed $path"
		else
			say "warning: $path was edited after installation; left in place"
		fi
		removed=1
	done < "$state/manifest"
	if [ -S /run/udev/control ] && command -v udevadm >/dev/null; then
		udevadm control --reload-rules || true
	fi
fi
if [ -f "$state/group-created" ]; then
	if getent group "$group" >/dev/null; then
		members=$(getent group "$group" | cut -d: -f4)
		if groupdel "$group"; then
			say "removed group '$group'${members:+ (members were: $members)}"
		else
			say "warning: could not remove group '$group'"
		fi
	fi
	removed=1
fi
rm -rf "$state"

if [ "$removed" = 0 ]; then
	say "nothing to remove: $name is not installed"
else
	say "$name removed"
fi
