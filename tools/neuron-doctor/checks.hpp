// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's checks, in the order of the walk (checks_driver.cpp:
// the module, DKMS and the vendor's rules; checks_devices.cpp: the devices,
// their nodes, NEURON_RT_VISIBLE_CORES, state, ECC, health and firmware;
// checks_holders.cpp: the processes holding NeuronCores; checks_kmsg.cpp:
// the kernel log). Each returns its findings with one action each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tree.hpp"

namespace tools::doctor {

// dkms.conf's PACKAGE_NAME: DKMS keeps its builds in /var/lib/dkms/<name>/<version>/
inline constexpr const char *kDkmsPackage = "neuron-oss";
inline constexpr const char *kClassDir = "/sys/class/neuron_device";
// the group packaging/60-neuron.rules gives /dev/neuron<N> (mode 0660)
inline constexpr const char *kGroup = "neuron";

// note: nothing wrong, and worth knowing (or left out on request);
// unknown: could not be checked here (a driver without the file or call
// the check reads, such as the vendor's): not OK, not a fault either
enum class severity { ok, note, unknown, warning, error };

struct finding {
	std::string check;
	severity sev;
	std::string detail;
	std::string action;	// "" when there is nothing to do
	// about the past (errors counted before the last reset): a warning
	// still, but the first broken link only when no current one is found
	bool past = false;
};

// dkms.conf's PACKAGE_NAME of the vendor's driver (package aws-neuronx-dkms)
inline constexpr const char *kVendorDkmsPackage = "aws-neuronx";
// the Debian package of the vendor's runtime library (libnrt)
inline constexpr const char *kVendorRuntimePackage = "aws-neuronx-runtime-lib";

// ---- 1. the module ------------------------------------------------------------

// DKMS's versions of @pkg (directories named after the version)
std::vector<std::string> dkms_versions(const context &c, const std::string &pkg = kDkmsPackage);

// DKMS built @version of @pkg for kernel @kver: <version>/<kver>/<arch>/module/neuron.ko*
bool dkms_built(const context &c, const std::string &version, const std::string &kver,
		const std::string &pkg = kDkmsPackage);

// `dkms install` put it where modprobe finds it
bool dkms_installed(const context &c, const std::string &kver);

// Whether modprobe finds a neuron module for @kver (modules.dep names
// .../neuron.ko[.xz|.zst|.gz]); nullopt when modules.dep cannot be read.
std::optional<bool> module_known(const context &c, const std::string &kver);

std::vector<finding> check_module(const context &c, bool in_container, bool &loaded);

// ---- 1b. DKMS builds for every installed kernel; the vendor's compatibility rules --

// The leading dot-separated numbers of a version ("2.29.5.0-1a2b" -> 2 29 5 0).
std::vector<unsigned long> version_fields(std::string_view v);

// Numeric order field by field ("0.10.0" after "0.9.0").
bool version_less(std::string_view a, std::string_view b);

// The newest version DKMS has of @pkg, "" when none.
std::string dkms_newest(const context &c, const std::string &pkg);

// Kernels installed on the host: those /lib/modules has a modules.dep for.
std::vector<std::string> installed_kernels(const context &c);

// DKMS's log of its last build of @pkg @version names @kver: its first
// line is "DKMS make.log for <pkg>-<version> for kernel <kver> (<arch>)".
bool dkms_log_names(const context &c, const std::string &pkg, const std::string &version,
		    const std::string &kver);

// Every installed kernel has a build of the newest DKMS version of this
// driver and of the vendor's: a kernel without one boots with no driver.
// The running kernel is check_module's, but for a build that failed.
std::vector<finding> check_dkms_kernels(const context &c);

// The installed version of Debian package @pkg (/var/lib/dpkg/status), if any.
std::optional<std::string> dpkg_version(const context &c, std::string_view pkg);

// The vendor's published rules between its driver and its runtime (NRT):
// driver 2.29 and later need NRT 2.33 or later; NRT 2.32 and later need a
// driver newer than 2.26. Checked when the vendor's runtime is installed.
std::vector<finding> check_runtime_compat(const context &c);

// ---- 2. the devices the driver has ------------------------------------------------

std::vector<device> list_devices(const context &c);

finding check_devices(const context &c, const std::vector<device> &devs);

// ---- 3. the device nodes -------------------------------------------------------

// Why the tree looks like a container's, or "" (cgroup v2 gives no
// marker in /proc/1/cgroup, so this is a heuristic).
std::string container_hint(const context &c);

std::vector<finding> check_nodes(const context &c, const std::vector<device> &devs, bool in_container);

finding check_container(const std::string &hint);

// ---- 4. NEURON_RT_VISIBLE_CORES -------------------------------------------------

std::optional<uint32_t> total_cores(const std::vector<device> &devs);

// Where the NeuronCores [first, first + count) are, in each device's own
// numbering: "neuron0's NeuronCore 1, neuron1's NeuronCores 0-1" (devices
// with an unknown core_count are left out).
std::string cores_on_devices(const std::vector<device> &devs, uint32_t first, uint32_t count);

// The device indexes below the highest that the driver does not have
// ("neuron0, neuron2 to neuron4"): removed, or failed to come up. The
// NeuronCores are numbered over the devices present, so those after a gap
// moved down.
std::string missing_devices(const std::vector<device> &devs);

finding check_visible_cores(const context &c, const std::vector<device> &devs);

// ---- 5. each device's state --------------------------------------------------------

std::vector<finding> check_state(const context &c, const std::vector<device> &devs);

// health and health_reason of @dir ("" when there is no health file)
std::pair<std::string, std::string> read_health(const context &c, const std::string &dir);

// ---- 6. uncorrectable memory errors -----------------------------------------------

std::vector<finding> check_ecc(const context &c, const std::vector<device> &devs);

// ---- 6b. the driver's health of each device and NeuronCore ------------------------

// The driver derives the health from its state, ECC counts since the last
// reset, unrecoverable NeuronCores and firmware silence (sysfs health,
// docs/ABI). A failed or running reset is the state check's, uncorrectable
// ECC errors the ecc check's: here they are a note pointing there; an
// unrecoverable NeuronCore and silent firmware are this check's own.
std::vector<finding> check_health(const context &c, const std::vector<device> &devs);

// ---- 7. the firmware answering ------------------------------------------------------

std::vector<finding> check_fw_io(const context &c, const std::vector<device> &devs);

// ---- 8. cores held by stopped or vanished processes --------------------------------

// The state letter of /proc/<pid>/stat ('R', 'S', 'T', 'Z', ...), 0 when
// there is no such process; *ppid its parent.
char process_state(const context &c, int pid, int *ppid = nullptr);

std::vector<finding> check_holders(const context &c, const std::vector<device> &devs);

// ---- 9. NEURON_HW_ERR lines in the kernel log --------------------------------------

struct kmsg_summary {
	unsigned count = 0;
	std::string last;	// "[seconds] message" of the last one
};

// One line of /dev/kmsg ("<prio>,<seq>,<usec>,<flags>;<message>"; lines
// starting with a space continue the record before).
void kmsg_line(std::string_view line, kmsg_summary &k);

// The action= a NEURON_HW_ERR line names, in words
std::string hw_err_action(const std::string &line);

finding check_kmsg(const context &c);

} // namespace tools::doctor
