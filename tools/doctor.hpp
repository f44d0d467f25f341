// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's checks: walk the chain a user's job depends on (driver
// loaded, device nodes there and openable, NEURON_RT_VISIBLE_CORES naming
// cores that exist, each device ready, no uncorrectable memory errors, the
// firmware answering, no core held by a stopped or vanished process, no
// hardware error in the kernel log) and say what is wrong with one action
// each. Header only so the host unit tests run every check against a fake
// tree: every path is read under context::root, and what comes from the
// caller (uid, groups, the environment, stat() of the nodes, the driver's
// process list) is injected through the context.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <grp.h>
#include <map>
#include <optional>
#include <pwd.h>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include "apps.hpp"
#include "json.hpp"

extern "C" {
#include "neuron_cores.h"
}

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

inline const char *json_name(severity s)
{
	switch (s) {
	case severity::ok:
		return "ok";
	case severity::note:
		return "note";
	case severity::unknown:
		return "unknown";
	case severity::warning:
		return "warning";
	default:
		return "error";
	}
}

inline const char *text_tag(severity s)
{
	return s == severity::warning ? "warn" : json_name(s);
}

struct finding {
	std::string check;
	severity sev;
	std::string detail;
	std::string action;	// "" when there is nothing to do
	// about the past (errors counted before the last reset): a warning
	// still, but the first broken link only when no current one is found
	bool past = false;
};

struct device {
	int index;
	std::string sysdir;	// /sys/class/neuron_device/neuron<N> (as seen in the system)
	int cores;		// core_count; -1 when it cannot be read
	int first_nc;		// global id of its NeuronCore 0: devices in index order
};

struct context {
	std::string root = "/";		// where the system's / is (tests: a fake tree)
	uid_t uid = 0;			// the caller, for the device nodes' modes
	gid_t gid = 0;
	std::vector<gid_t> groups;	// supplementary groups
	std::optional<std::string> visible_cores;	// NEURON_RT_VISIBLE_CORES
	bool read_kmsg = true;
	// stat() of a path under root; ::stat when empty (tests fake the nodes'
	// type, mode, owner and numbers, which a test cannot create)
	std::function<int(const std::string &, struct stat &)> stat_fn;
	// The processes holding device d: false with err set when the list
	// cannot be had. Empty: not checked (it needs the driver's ioctl, so
	// the tool leaves it out under another --root).
	std::function<bool(const device &d, std::vector<apps::process> &out, std::string &err)>
		list_holders;
	// Who holds each NeuronCore of device d (CORE_HOLDERS); empty, or
	// false, when the driver cannot say (the check then goes by pid only).
	std::function<bool(const device &d, std::vector<apps::core_holding> &out, std::string &err)>
		list_cores;
};

// ---- reading the tree -------------------------------------------------------

// @path (absolute, as seen in the system) under c.root
inline std::string under(const context &c, std::string_view path)
{
	std::string r = c.root;
	while (r.size() > 1 && r.back() == '/')
		r.pop_back();
	if (r.empty() || r == "/")
		return std::string(path);
	return r + std::string(path);
}

inline bool read_line_at(const context &c, std::string_view path, std::string &out)
{
	std::ifstream f(under(c, path));
	if (!f)
		return false;
	out.clear();
	std::getline(f, out);
	while (!out.empty() && (out.back() == '\r' || out.back() == ' ' || out.back() == '\t'))
		out.pop_back();
	return !f.bad();
}

// A decimal file: its value, or nullopt when missing or not a number.
inline std::optional<uint64_t> read_u64(const context &c, std::string_view path)
{
	std::string s;
	if (!read_line_at(c, path, s) || s.empty())
		return std::nullopt;
	uint64_t v = 0;
	for (char ch : s) {
		if (ch < '0' || ch > '9')
			return std::nullopt;
		if (v > (UINT64_MAX - static_cast<uint64_t>(ch - '0')) / 10)
			return std::nullopt;
		v = v * 10 + static_cast<uint64_t>(ch - '0');
	}
	return v;
}

inline bool exists_at(const context &c, std::string_view path)
{
	std::error_code ec;
	return std::filesystem::exists(under(c, path), ec);
}

inline bool is_dir_at(const context &c, std::string_view path)
{
	std::error_code ec;
	return std::filesystem::is_directory(under(c, path), ec);
}

// The entries of a directory (names only), sorted; empty when unreadable.
inline std::vector<std::string> list_dir(const context &c, std::string_view path, bool dirs_only = false)
{
	std::vector<std::string> out;
	std::error_code ec;
	std::filesystem::directory_iterator it(under(c, path), ec), end;
	for (; !ec && it != end; it.increment(ec)) {
		std::error_code ec2;
		if (dirs_only && (it->is_symlink(ec2) || !it->is_directory(ec2)))
			continue;
		out.push_back(it->path().filename().string());
	}
	std::sort(out.begin(), out.end());
	return out;
}

inline int stat_at(const context &c, const std::string &path, struct stat &st)
{
	std::string p = under(c, path);
	if (c.stat_fn)
		return c.stat_fn(p, st);
	return ::stat(p.c_str(), &st);
}

// ---- users and groups (the tree's /etc/passwd and /etc/group) ----------------

struct user_entry {
	std::string name;
	gid_t gid = 0;
};

struct group_entry {
	std::string name;
	gid_t gid = 0;
	std::vector<std::string> members;
};

inline std::vector<std::string> split(std::string_view s, char sep)
{
	std::vector<std::string> out;
	size_t b = 0;
	for (size_t i = 0; i <= s.size(); i++)
		if (i == s.size() || s[i] == sep) {
			out.emplace_back(s.substr(b, i - b));
			b = i + 1;
		}
	return out;
}

inline bool parse_id(const std::string &s, unsigned long &v)
{
	if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
		return false;
	v = std::stoul(s);
	return true;
}

inline std::optional<user_entry> user_of(const context &c, uid_t uid)
{
	std::ifstream f(under(c, "/etc/passwd"));
	std::string line;
	while (std::getline(f, line)) {
		auto fl = split(line, ':');
		unsigned long u, g;
		if (fl.size() >= 4 && parse_id(fl[2], u) && parse_id(fl[3], g) && u == uid)
			return user_entry{ fl[0], static_cast<gid_t>(g) };
	}
	if (under(c, "/") == "/") {
		if (const struct passwd *pw = ::getpwuid(uid))
			return user_entry{ pw->pw_name, pw->pw_gid };
	}
	return std::nullopt;
}

inline std::optional<group_entry> group_of(const context &c, gid_t gid)
{
	std::ifstream f(under(c, "/etc/group"));
	std::string line;
	while (std::getline(f, line)) {
		auto fl = split(line, ':');
		unsigned long g;
		if (fl.size() >= 3 && parse_id(fl[2], g) && g == gid) {
			group_entry e{ fl[0], gid, {} };
			if (fl.size() >= 4 && !fl[3].empty())
				e.members = split(fl[3], ',');
			return e;
		}
	}
	if (under(c, "/") == "/") {
		if (const struct group *gr = ::getgrgid(gid)) {
			group_entry e{ gr->gr_name, gid, {} };
			for (char **m = gr->gr_mem; m && *m; m++)
				e.members.emplace_back(*m);
			return e;
		}
	}
	return std::nullopt;
}

inline std::string user_name(const context &c, uid_t uid)
{
	auto u = user_of(c, uid);
	return u ? u->name : std::to_string(uid);
}

inline std::string group_name(const context &c, gid_t gid)
{
	auto g = group_of(c, gid);
	return g ? g->name : std::to_string(gid);
}

// What open(O_RDWR) decides from the mode bits (ACLs and the device cgroup
// aside): root always; the owner by the owner bits; a member of the group
// by the group bits; anyone else by the other bits.
inline bool can_read_write(const struct stat &st, uid_t uid, gid_t gid, const std::vector<gid_t> &groups)
{
	if (uid == 0)
		return true;
	if (st.st_uid == uid)
		return (st.st_mode & (S_IRUSR | S_IWUSR)) == (S_IRUSR | S_IWUSR);
	if (st.st_gid == gid || std::find(groups.begin(), groups.end(), st.st_gid) != groups.end())
		return (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP);
	return (st.st_mode & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH);
}

inline std::string mode_text(const context &c, const struct stat &st)
{
	char m[8];
	std::snprintf(m, sizeof(m), "%04o", static_cast<unsigned>(st.st_mode & 07777));
	return std::string(m) + " " + user_name(c, st.st_uid) + ":" + group_name(c, st.st_gid);
}

// ---- NEURON_RT_VISIBLE_CORES ------------------------------------------------

// The list nrt_init() accepts, parsed by the same code (common/neuron_cores):
// pieces "A" or "A-B" separated by commas, together one ascending run with
// no gap ("3", "3-6", "3,4,5", "3-4,5"), every core below @total. Empty:
// all cores.
struct core_run {
	bool ok = false;
	uint32_t first = 0;
	uint32_t count = 0;
	std::string why;	// when !ok: what nrt_init() objects to
};

inline core_run parse_visible_cores(std::string_view s, uint32_t total)
{
	neuron_cores_result res;
	core_run r;

	if (!neuron_parse_cores(s.data(), s.size(), total, &res)) {
		r.ok = true;
		r.first = res.first;
		r.count = res.count;
		return r;
	}
	switch (res.error) {
	case NEURON_CORES_NUMBER:
		r.why = "malformed at offset " + std::to_string(res.at) + " (expected a core number)";
		break;
	case NEURON_CORES_NUMBER_AFTER_DASH:
		r.why = "malformed at offset " + std::to_string(res.at) +
			" (expected a core number after '-')";
		break;
	case NEURON_CORES_BACKWARDS:
		r.why = "the range " + std::string(s.substr(res.piece, res.at - res.piece)) +
			" runs backwards";
		break;
	case NEURON_CORES_TOO_HIGH:
		r.why = "names NeuronCore " + std::to_string(res.core) + " but there " +
			(total == 1 ? "is 1" : "are " + std::to_string(total)) +
			(total ? " (0-" + std::to_string(total - 1) + ")" : "");
		break;
	case NEURON_CORES_GAP:
		r.why = "is not one ascending run without gaps (" + std::to_string(res.core) +
			" after " + std::to_string(res.last) + ")";
		break;
	case NEURON_CORES_SEPARATOR:
	default:
		r.why = "malformed at offset " + std::to_string(res.at) + " (expected ',' or '-')";
		break;
	}
	return r;
}

inline std::string range_text(uint32_t first, uint32_t count)
{
	if (count == 1)
		return std::to_string(first);
	return std::to_string(first) + "-" + std::to_string(first + count - 1);
}

inline std::string ids_text(const std::vector<int> &ids)
{
	std::string o;
	for (size_t i = 0; i < ids.size(); i++)
		o += (i ? "," : "") + std::to_string(ids[i]);
	return o.empty() ? "none" : o;
}

// ---- 1. the module ------------------------------------------------------------

// DKMS's versions of @pkg (directories named after the version)
inline std::vector<std::string> dkms_versions(const context &c, const std::string &pkg = kDkmsPackage)
{
	std::vector<std::string> out;
	for (auto &v : list_dir(c, "/var/lib/dkms/" + pkg, true))
		if (!v.empty() && v[0] >= '0' && v[0] <= '9')
			out.push_back(v);
	return out;
}

// DKMS built @version of @pkg for kernel @kver: <version>/<kver>/<arch>/module/neuron.ko*
inline bool dkms_built(const context &c, const std::string &version, const std::string &kver,
		       const std::string &pkg = kDkmsPackage)
{
	std::string base = "/var/lib/dkms/" + pkg + "/" + version + "/" + kver;
	for (auto &arch : list_dir(c, base, true))
		for (auto &f : list_dir(c, base + "/" + arch + "/module"))
			if (f.rfind("neuron.ko", 0) == 0)
				return true;
	return false;
}

// `dkms install` put it where modprobe finds it
inline bool dkms_installed(const context &c, const std::string &kver)
{
	for (auto &f : list_dir(c, "/lib/modules/" + kver + "/updates/dkms"))
		if (f.rfind("neuron.ko", 0) == 0)
			return true;
	return false;
}

// Whether modprobe finds a neuron module for @kver (modules.dep names
// .../neuron.ko[.xz|.zst|.gz]); nullopt when modules.dep cannot be read.
inline std::optional<bool> module_known(const context &c, const std::string &kver)
{
	if (kver.empty())
		return std::nullopt;
	std::ifstream f(under(c, "/lib/modules/" + kver + "/modules.dep"));
	if (!f)
		return std::nullopt;
	std::string line;
	while (std::getline(f, line)) {
		std::string path = line.substr(0, line.find(':'));
		size_t slash = path.rfind('/');
		std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
		if (base == "neuron.ko" || base.rfind("neuron.ko.", 0) == 0)
			return true;
	}
	return false;
}

inline std::vector<finding> check_module(const context &c, bool in_container, bool &loaded)
{
	const std::string chk = "module";
	std::string kver;
	read_line_at(c, "/proc/sys/kernel/osrelease", kver);
	std::vector<std::string> dkms = dkms_versions(c);
	std::string built;	// a DKMS version built for the running kernel
	for (auto &v : dkms)
		if (!kver.empty() && dkms_built(c, v, kver))
			built = v;
	std::string kernel = kver.empty() ? "the running kernel" : "kernel " + kver;
	std::string pkg = std::string(kDkmsPackage);

	loaded = is_dir_at(c, "/sys/module/neuron");
	if (!loaded && in_container)
		return { { chk, severity::error,
			   "neuron.ko is not loaded (/sys/module/neuron is missing; this is a container, "
			   "the module is the host's)",
			   "load it on the host: sudo modprobe neuron" } };
	if (!loaded) {
		std::string detail = "neuron.ko is not loaded (/sys/module/neuron is missing)";
		if (!built.empty() && dkms_installed(c, kver))
			return { { chk, severity::error, detail + "; DKMS has " + pkg + " " + built + " for " + kernel,
				   "sudo modprobe neuron" } };
		if (!built.empty())
			return { { chk, severity::error,
				   detail + "; DKMS built " + pkg + " " + built + " for " + kernel +
					   " but did not install it",
				   "sudo dkms install " + pkg + "/" + built + " -k " + kver + " && sudo modprobe neuron" } };
		if (!dkms.empty() && !kver.empty())
			return { { chk, severity::error,
				   detail + "; DKMS has " + pkg + " " + dkms.back() + " but not for " + kernel,
				   "sudo dkms install " + pkg + "/" + dkms.back() + " -k " + kver +
					   " && sudo modprobe neuron" } };
		auto known = module_known(c, kver);
		if (known && !*known)
			return { { chk, severity::error, detail + "; " + kernel + " has no neuron module",
				   "install the driver: make dkms-install (docs/INSTALL.md)" } };
		return { { chk, severity::error, detail,
			   "sudo modprobe neuron (if it is not installed: make dkms-install, docs/INSTALL.md)" } };
	}
	std::string version;
	bool has_version = read_line_at(c, "/sys/module/neuron/version", version) && !version.empty();
	std::string what = "neuron.ko " + (has_version ? version : std::string("(no version)")) +
			   " loaded on " + kernel;
	if (!dkms.empty() && has_version && std::find(dkms.begin(), dkms.end(), version) == dkms.end())
		return { { chk, severity::warning,
			   what + ", but DKMS installed " + pkg + " " + dkms.back() +
				   ": another build or another provider's module is loaded",
			   "with no process using a device: sudo modprobe -r neuron && sudo modprobe neuron" } };
	if (!dkms.empty() && !kver.empty() && built.empty())
		return { { chk, severity::warning,
			   what + ", but DKMS has no " + pkg + " build for it: it will not load at the next boot",
			   "sudo dkms install " + pkg + "/" + dkms.back() + " -k " + kver } };
	return { { chk, severity::ok,
		   what + (dkms.empty() ? std::string(" (not from DKMS)") : " (DKMS " + pkg + " " + dkms.back() + ")"),
		   "" } };
}

// ---- 1b. DKMS builds for every installed kernel; the vendor's compatibility rules --

// dkms.conf's PACKAGE_NAME of the vendor's driver (package aws-neuronx-dkms)
inline constexpr const char *kVendorDkmsPackage = "aws-neuronx";
// the Debian package of the vendor's runtime library (libnrt)
inline constexpr const char *kVendorRuntimePackage = "aws-neuronx-runtime-lib";

// The leading dot-separated numbers of a version ("2.29.5.0-1a2b" -> 2 29 5 0).
inline std::vector<unsigned long> version_fields(std::string_view v)
{
	std::vector<unsigned long> out;
	size_t i = 0;
	while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
		unsigned long n = 0;
		for (; i < v.size() && v[i] >= '0' && v[i] <= '9' && n < 100000000; i++)
			n = n * 10 + static_cast<unsigned long>(v[i] - '0');
		out.push_back(n);
		if (i + 1 < v.size() && v[i] == '.' && v[i + 1] >= '0' && v[i + 1] <= '9')
			i++;
		else
			break;
	}
	return out;
}

// Numeric order field by field ("0.10.0" after "0.9.0").
inline bool version_less(std::string_view a, std::string_view b)
{
	return version_fields(a) < version_fields(b);
}

// The newest version DKMS has of @pkg, "" when none.
inline std::string dkms_newest(const context &c, const std::string &pkg)
{
	std::vector<std::string> v = dkms_versions(c, pkg);
	return v.empty() ? "" : *std::max_element(v.begin(), v.end(), version_less);
}

// Kernels installed on the host: those /lib/modules has a modules.dep for.
inline std::vector<std::string> installed_kernels(const context &c)
{
	std::vector<std::string> out;
	for (auto &k : list_dir(c, "/lib/modules", true))
		if (exists_at(c, "/lib/modules/" + k + "/modules.dep"))
			out.push_back(k);
	return out;
}

// DKMS's log of its last build of @pkg @version names @kver: its first
// line is "DKMS make.log for <pkg>-<version> for kernel <kver> (<arch>)".
inline bool dkms_log_names(const context &c, const std::string &pkg, const std::string &version,
			   const std::string &kver)
{
	std::string line;
	if (!read_line_at(c, "/var/lib/dkms/" + pkg + "/" + version + "/build/make.log", line))
		return false;
	return line.rfind("DKMS make.log for ", 0) == 0 && line.find(" for kernel " + kver + " ") != std::string::npos;
}

// Every installed kernel has a build of the newest DKMS version of this
// driver and of the vendor's: a kernel without one boots with no driver.
// The running kernel is check_module's, but for a build that failed.
inline std::vector<finding> check_dkms_kernels(const context &c)
{
	std::vector<finding> out;
	std::string running;
	read_line_at(c, "/proc/sys/kernel/osrelease", running);
	for (std::string pkg : { std::string(kDkmsPackage), std::string(kVendorDkmsPackage) }) {
		std::string ver = dkms_newest(c, pkg);
		if (ver.empty())
			continue;
		for (auto &k : installed_kernels(c)) {
			if (dkms_built(c, ver, k, pkg))
				continue;
			bool failed = dkms_log_names(c, pkg, ver, k);
			if (k == running && !failed)
				continue;
			std::string log = "/var/lib/dkms/" + pkg + "/" + ver + "/build/make.log";
			if (failed)
				out.push_back({ "dkms", severity::warning,
						"DKMS's build of " + pkg + " " + ver + " for installed kernel " + k +
							" failed (" + log + "): that kernel boots with no Neuron driver",
						"read " + log + ", then: sudo dkms build " + pkg + "/" + ver + " -k " + k });
			else
				out.push_back({ "dkms", severity::warning,
						"DKMS has no " + pkg + " " + ver + " build for installed kernel " + k +
							": that kernel boots with no Neuron driver",
						"sudo dkms install " + pkg + "/" + ver + " -k " + k });
		}
	}
	return out;
}

// The installed version of Debian package @pkg (/var/lib/dpkg/status), if any.
inline std::optional<std::string> dpkg_version(const context &c, std::string_view pkg)
{
	std::ifstream f(under(c, "/var/lib/dpkg/status"));
	if (!f)
		return std::nullopt;
	std::string line, name, status, version;
	auto done = [&]() -> std::optional<std::string> {
		if (name == pkg && status.size() >= 10 && status.compare(status.size() - 10, 10, " installed") == 0 &&
		    !version.empty())
			return version;
		return std::nullopt;
	};
	while (std::getline(f, line)) {
		if (line.empty()) {
			if (auto v = done())
				return v;
			name.clear();
			status.clear();
			version.clear();
		} else if (line.rfind("Package: ", 0) == 0) {
			name = line.substr(9);
		} else if (line.rfind("Status: ", 0) == 0) {
			status = line.substr(8);
		} else if (line.rfind("Version: ", 0) == 0) {
			version = line.substr(9);
		}
	}
	return done();
}

// The vendor's published rules between its driver and its runtime (NRT):
// driver 2.29 and later need NRT 2.33 or later; NRT 2.32 and later need a
// driver newer than 2.26. Checked when the vendor's runtime is installed.
inline std::vector<finding> check_runtime_compat(const context &c)
{
	const std::string chk = "compat";
	auto rt = dpkg_version(c, kVendorRuntimePackage);
	if (!rt)
		return {};
	std::string what = "the vendor's runtime " + std::string(kVendorRuntimePackage) + " " + *rt;
	auto rv = version_fields(*rt);
	// the driver loaded decides; without one, the vendor's newest DKMS
	// build (the one the next boot loads). The vendor numbers its driver
	// from 2; this one's versions are 0.x.
	std::string drv, from;
	bool loaded = read_line_at(c, "/sys/module/neuron/version", drv);
	auto lv = version_fields(drv);
	if (loaded && lv.size() >= 2 && lv[0] >= 2) {
		from = "loaded";
	} else if (loaded) {
		drv.clear();
	} else {
		drv = dkms_newest(c, kVendorDkmsPackage);
		from = "DKMS";
	}
	auto dv = version_fields(drv);
	if (rv.size() < 2)
		return { { chk, severity::unknown, what + ": its version cannot be read, the rules not checked", "" } };
	if (dv.size() < 2)
		return { { chk, severity::note,
			   what + " with this driver, not the vendor's: it speaks the vendor's ABI where this "
				  "driver answers it (docs/vendor-abi.md); the vendor's version rules do not apply",
			   "" } };
	std::string pair = what + " with the vendor's driver " + drv + " (" + from + ")";
	auto at_least = [](const std::vector<unsigned long> &v, unsigned long ma, unsigned long mi) {
		return v[0] > ma || (v[0] == ma && v[1] >= mi);
	};
	if (at_least(dv, 2, 29) && !at_least(rv, 2, 33))
		return { { chk, severity::error, pair + ": driver 2.29 and later need runtime 2.33 or later",
			   "upgrade " + std::string(kVendorRuntimePackage) + " to 2.33 or later" } };
	if (at_least(rv, 2, 32) && !at_least(dv, 2, 27))
		return { { chk, severity::error, pair + ": runtime 2.32 and later need a driver newer than 2.26",
			   "upgrade aws-neuronx-dkms to 2.27 or later" } };
	return { { chk, severity::ok, pair + ": compatible by the vendor's published rules", "" } };
}

// ---- 2. the devices the driver has ------------------------------------------------

inline std::vector<device> list_devices(const context &c)
{
	std::vector<device> out;
	for (auto &name : list_dir(c, kClassDir)) {
		if (name.size() < 7 || name.rfind("neuron", 0) != 0 ||
		    name.find_first_not_of("0123456789", 6) != std::string::npos || name.size() > 9)
			continue;
		device d{ std::stoi(name.substr(6)), std::string(kClassDir) + "/" + name, -1, 0 };
		if (auto n = read_u64(c, d.sysdir + "/core_count"); n && *n <= 64)
			d.cores = static_cast<int>(*n);
		out.push_back(d);
	}
	std::sort(out.begin(), out.end(), [](const device &a, const device &b) { return a.index < b.index; });
	int g = 0;
	for (auto &d : out) {
		d.first_nc = g;
		g += d.cores > 0 ? d.cores : 0;
	}
	return out;
}

inline finding check_devices(const context &c, const std::vector<device> &devs)
{
	if (devs.empty()) {
		std::string action = is_dir_at(c, "/sys/bus/neuron_sim")
			? "no Neuron PCI device here (lspci -d 1d0f:); for a simulated one: echo 0 | sudo tee /sys/bus/neuron_sim/new_device"
			: "check that the instance has Neuron devices (lspci -d 1d0f:) and why the driver did not take them (sudo dmesg | grep neuron)";
		return { "devices", severity::error, "the driver is loaded but has no device (" +
			 std::string(kClassDir) + " is empty)", action };
	}
	std::string names;
	int cores = 0;
	bool known = true;
	for (auto &d : devs) {
		names += (names.empty() ? "" : ", ") + std::string("neuron") + std::to_string(d.index);
		if (d.cores < 0)
			known = false;
		else
			cores += d.cores;
	}
	return { "devices", severity::ok,
		 std::to_string(devs.size()) + (devs.size() == 1 ? " device (" : " devices (") + names + "), " +
			 (known ? std::to_string(cores) : std::string("unknown number of")) + " NeuronCores",
		 "" };
}

// ---- 3. the device nodes -------------------------------------------------------

// Why the tree looks like a container's, or "" (cgroup v2 gives no
// marker in /proc/1/cgroup, so this is a heuristic).
inline std::string container_hint(const context &c)
{
	if (exists_at(c, "/.dockerenv"))
		return "/.dockerenv exists";
	if (exists_at(c, "/run/.containerenv"))
		return "/run/.containerenv exists";
	std::ifstream f(under(c, "/proc/1/cgroup"));
	std::string line;
	while (std::getline(f, line))
		for (const char *w : { "docker", "kubepods", "containerd", "libpod", "crio", "lxc" })
			if (line.find(w) != std::string::npos)
				return std::string("/proc/1/cgroup names ") + w;
	return "";
}

inline std::vector<finding> check_nodes(const context &c, const std::vector<device> &devs, bool in_container)
{
	const std::string chk = "nodes";
	std::vector<finding> out;
	std::vector<std::pair<std::string, std::string>> fine;	// nodes, their mode
	std::optional<user_entry> me = user_of(c, c.uid);
	std::string who = me ? me->name : "$USER";
	for (auto &d : devs) {
		std::string node = "/dev/neuron" + std::to_string(d.index);
		std::string nums;	// the driver's major:minor
		read_line_at(c, d.sysdir + "/dev", nums);
		struct stat st;
		if (stat_at(c, node, st) != 0) {
			int err = errno;
			if (err != ENOENT) {
				out.push_back({ chk, severity::error, node + ": " + std::strerror(err),
						"check the node: ls -l " + node });
				continue;
			}
			if (in_container)
				out.push_back({ chk, severity::error,
						node + " is missing: the container was not given neuron" +
							std::to_string(d.index),
						"the container runtime must pass the device nodes: on the host, "
						"neuron-ls --cdi > /etc/cdi/aws.amazon.com-neuron.json, then run with "
						"--device aws.amazon.com/neuron=all (or --device " + node + ")" });
			else if (nums.find(':') == std::string::npos)
				out.push_back({ chk, severity::error,
						node + " is missing though the driver has neuron" + std::to_string(d.index),
						"reload the driver: sudo modprobe -r neuron && sudo modprobe neuron" });
			else
				out.push_back({ chk, severity::error,
						node + " is missing though the driver has neuron" + std::to_string(d.index) +
							" (" + nums + "; is /dev a devtmpfs?)",
						"sudo mknod -m 0660 " + node + " c " + nums.substr(0, nums.find(':')) + " " +
							nums.substr(nums.find(':') + 1) + " && sudo chgrp " + kGroup + " " + node });
			continue;
		}
		if (!S_ISCHR(st.st_mode)) {
			out.push_back({ chk, severity::error, node + " is not a character device",
					"sudo rm " + node + ", then reload the driver (sudo modprobe -r neuron && sudo modprobe neuron)" });
			continue;
		}
		std::string have = std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
		if (!nums.empty() && nums != have) {
			out.push_back({ chk, severity::error,
					node + " is " + have + " but the driver's neuron" + std::to_string(d.index) +
						" is " + nums + " (a stale node)",
					in_container ? "restart the container so that the runtime passes the current node"
						     : "sudo rm " + node + " && sudo modprobe -r neuron && sudo modprobe neuron" });
			continue;
		}
		if (!can_read_write(st, c.uid, c.gid, c.groups)) {
			std::string mode = mode_text(c, st);
			std::string gname = group_name(c, st.st_gid);
			bool group_rw = (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP) && st.st_gid != 0;
			if (group_rw) {
				auto g = group_of(c, st.st_gid);
				bool member = me && ((g && std::find(g->members.begin(), g->members.end(), me->name) !=
								   g->members.end()) ||
						     me->gid == st.st_gid);
				if (member)
					out.push_back({ chk, severity::error,
							node + " is " + mode + "; " + who + " is in group " + gname +
								" but this session is not (added after login)",
							"log in again (or run: newgrp " + gname + ")" });
				else
					out.push_back({ chk, severity::error,
							node + " is " + mode + " and " + who + " (uid " + std::to_string(c.uid) +
								") is not in group " + gname,
							"add the user to group " + gname + " (sudo usermod -aG " + gname + " " + who +
								"), then log in again" });
			} else {
				out.push_back({ chk, severity::error,
						node + " is " + mode + ": " + (me ? me->name + " (uid " + std::to_string(c.uid) + ")"
										 : "uid " + std::to_string(c.uid)) +
							" cannot open it",
						"install the udev rule that makes the nodes root:" + std::string(kGroup) +
							" 0660 (make dkms-install, docs/INSTALL.md), then sudo usermod -aG " +
							kGroup + " " + who + " and log in again" });
			}
			continue;
		}
		// nodes with the same mode share one entry: "/dev/neuron0, /dev/neuron1 (0660 root:neuron)"
		std::string mode = mode_text(c, st);
		auto same = std::find_if(fine.begin(), fine.end(), [&](const auto &e) { return e.second == mode; });
		if (same == fine.end())
			fine.emplace_back(node, mode);
		else
			same->first += ", " + node;
	}
	if (!fine.empty()) {
		std::string list;
		for (auto &[nodes, mode] : fine)
			list += (list.empty() ? "" : "; ") + nodes + " (" + mode + ")";
		out.push_back({ chk, severity::ok,
				list + ": read-write for " + (me ? me->name + " (uid " + std::to_string(c.uid) + ")"
								  : "uid " + std::to_string(c.uid)),
				"" });
	}
	return out;
}

inline finding check_container(const std::string &hint)
{
	if (hint.empty())
		return { "container", severity::ok, "not in a container", "" };
	return { "container", severity::note,
		 "in a container (" + hint + "): its device cgroup cannot be read from inside, "
		 "so a node that is there may still refuse to open (EPERM)",
		 "" };
}

// ---- 4. NEURON_RT_VISIBLE_CORES -------------------------------------------------

inline std::optional<uint32_t> total_cores(const std::vector<device> &devs)
{
	uint32_t t = 0;
	for (auto &d : devs) {
		if (d.cores < 0)
			return std::nullopt;
		t += static_cast<uint32_t>(d.cores);
	}
	return t;
}

// Where the NeuronCores [first, first + count) are, in each device's own
// numbering: "neuron0's NeuronCore 1, neuron1's NeuronCores 0-1" (devices
// with an unknown core_count are left out).
inline std::string cores_on_devices(const std::vector<device> &devs, uint32_t first, uint32_t count)
{
	std::string o;
	uint64_t end = static_cast<uint64_t>(first) + count;
	for (auto &d : devs) {
		if (d.cores <= 0)
			continue;
		uint64_t lo = std::max<uint64_t>(first, static_cast<uint64_t>(d.first_nc));
		uint64_t hi = std::min<uint64_t>(end, static_cast<uint64_t>(d.first_nc) + static_cast<uint64_t>(d.cores));
		if (lo >= hi)
			continue;
		uint32_t n = static_cast<uint32_t>(hi - lo);
		o += (o.empty() ? "" : ", ") + std::string("neuron") + std::to_string(d.index) + "'s NeuronCore" +
		     (n == 1 ? " " : "s ") + range_text(static_cast<uint32_t>(lo) - static_cast<uint32_t>(d.first_nc), n);
	}
	return o;
}

// The device indexes below the highest that the driver does not have
// ("neuron0, neuron2 to neuron4"): removed, or failed to come up. The
// NeuronCores are numbered over the devices present, so those after a gap
// moved down.
inline std::string missing_devices(const std::vector<device> &devs)
{
	std::string o;
	int want = 0;
	for (auto &d : devs) {
		if (want < d.index)
			o += (o.empty() ? "" : ", ") + std::string("neuron") + std::to_string(want) +
			     (d.index - want == 1 ? "" : " to neuron" + std::to_string(d.index - 1));
		want = d.index + 1;
	}
	return o;
}

inline finding check_visible_cores(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "visible_cores";
	auto total = total_cores(devs);
	bool set = c.visible_cores && !c.visible_cores->empty();
	if (devs.empty() || !total || *total == 0)
		return { chk, severity::note,
			 set ? "NEURON_RT_VISIBLE_CORES=\"" + *c.visible_cores + "\" not checked: " +
				       (devs.empty() ? "no device"
					: !total   ? "a device's core_count cannot be read"
						   : "the devices have no NeuronCore")
			     : std::string("NEURON_RT_VISIBLE_CORES is unset"),
			 "" };
	if (!set)
		return { chk, severity::ok,
			 "NEURON_RT_VISIBLE_CORES is unset: nrt_init() takes all " + std::to_string(*total) +
				 " NeuronCores",
			 "" };
	core_run r = parse_visible_cores(*c.visible_cores, *total);
	std::string gaps = missing_devices(devs);
	std::string gap_text = gaps.empty() ? "" :
		" (no " + gaps + ": the NeuronCores are numbered over the devices present)";
	if (!r.ok)
		return { chk, severity::error,
			 "NEURON_RT_VISIBLE_CORES=\"" + *c.visible_cores + "\" " + r.why +
				 ": nrt_init() fails with NRT_INVALID; the NeuronCores are " +
				 cores_on_devices(devs, 0, *total) + gap_text,
			 "set NEURON_RT_VISIBLE_CORES to one ascending run within 0-" + std::to_string(*total - 1) +
				 ", e.g. \"" + range_text(0, std::min<uint32_t>(*total, 2)) + "\" (or unset it: all cores)" };
	return { chk, severity::ok,
		 "NEURON_RT_VISIBLE_CORES=\"" + *c.visible_cores + "\": NeuronCores " +
			 range_text(r.first, r.count) + " of " + std::to_string(*total) + " (" +
			 cores_on_devices(devs, r.first, r.count) + ")" + gap_text,
		 "" };
}

// ---- 5. each device's state --------------------------------------------------------

inline std::vector<finding> check_state(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "state";
	std::vector<finding> out;
	std::string ready, unknown;
	for (auto &d : devs) {
		std::string name = "neuron" + std::to_string(d.index);
		std::string s;
		if (!read_line_at(c, d.sysdir + "/state", s)) {
			unknown += (unknown.empty() ? "" : ", ") + name;
		} else if (s == "ready") {
			ready += (ready.empty() ? "" : ", ") + name;
		} else if (s == "reset") {
			out.push_back({ chk, severity::warning, name + ": a reset is in progress (state: reset)",
					"wait for it to finish and run neuron-doctor again" });
		} else if (s == "invalid") {
			out.push_back({ chk, severity::error,
					name + " did not come back from reset (state: invalid; opens fail with EINVAL)",
					"reload the driver or reboot (sudo modprobe -r neuron && sudo modprobe neuron); "
					"a write to " + d.sysdir + "/reset retries the reset" });
		} else {
			out.push_back({ chk, severity::warning, name + ": unknown state \"" + s + "\"",
					"compare with docs/ABI/sysfs-devices-neuron (a different driver?)" });
		}
	}
	if (!ready.empty())
		out.push_back({ chk, severity::ok, ready + ": ready", "" });
	if (!unknown.empty())
		out.push_back({ chk, severity::unknown,
				unknown + ": not checked: no state file (an older driver, or the vendor's)", "" });
	return out;
}

// health and health_reason of @dir ("" when there is no health file)
inline std::pair<std::string, std::string> read_health(const context &c, const std::string &dir)
{
	std::string h, why;
	if (!read_line_at(c, dir + "/health", h))
		return { "", "" };
	if (!read_line_at(c, dir + "/health_reason", why))
		why = "?";
	return { h, why };
}

// ---- 6. uncorrectable memory errors -----------------------------------------------

inline std::vector<finding> check_ecc(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "ecc";
	std::vector<finding> out;
	std::string clean, unknown;
	for (auto &d : devs) {
		std::string name = "neuron" + std::to_string(d.index);
		std::string hw = d.sysdir + "/stats/hardware/";
		auto sram = read_u64(c, hw + "sram_ecc_uncorrected");
		auto mem = read_u64(c, hw + "mem_ecc_uncorrected");
		auto rep = read_u64(c, hw + "mem_ecc_repairable_uncorrected");
		if (!sram && !mem) {
			unknown += (unknown.empty() ? "" : ", ") + name;
			continue;
		}
		uint64_t s = sram.value_or(0), m = mem.value_or(0), r = rep.value_or(0);
		// the counts never go down; the driver's health says whether any
		// came after the last reset (before one, or without a health file:
		// they are current)
		auto [h, why] = read_health(c, d.sysdir);
		bool since_reset = h.empty() || why == "sram_uncorrectable" || why == "hbm_uncorrectable" ||
				   why == "reset_failed" || why == "reset_in_progress";
		if ((s || m) && !since_reset)
			out.push_back({ chk, severity::warning,
					name + ": uncorrectable ECC errors: SRAM " + std::to_string(s) + ", HBM " +
						std::to_string(m) + ", all counted before the device's last reset (health: " +
						h + ")",
					"if new ones come (this check an error again), move the work off this instance: "
					"stop and start it (not reboot)",
					true });
		else if (s || m)
			out.push_back({ chk, severity::error,
					name + ": uncorrectable ECC errors: SRAM " + std::to_string(s) + ", HBM " +
						std::to_string(m) + " (jobs on it can fail or return bad data)",
					"move the work off this instance: stop and start it (not reboot) to get other hardware" });
		if (r)
			out.push_back({ chk, severity::warning,
					name + ": " + std::to_string(r) + " uncorrectable HBM errors awaiting repair",
					"reboot the instance: the HBM is repaired at the next boot" });
		if (!s && !m && !r)
			clean += (clean.empty() ? "" : ", ") + name;
	}
	if (!clean.empty())
		out.push_back({ chk, severity::ok, clean + ": no uncorrectable ECC error", "" });
	if (!unknown.empty())
		out.push_back({ chk, severity::unknown, unknown + ": not checked: no ECC counters in sysfs", "" });
	return out;
}

// ---- 6b. the driver's health of each device and NeuronCore ------------------------

// The driver derives the health from its state, ECC counts since the last
// reset, unrecoverable NeuronCores and firmware silence (sysfs health,
// docs/ABI). A failed or running reset is the state check's, uncorrectable
// ECC errors the ecc check's: here they are a note pointing there; an
// unrecoverable NeuronCore and silent firmware are this check's own.
inline std::vector<finding> check_health(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "health";
	std::vector<finding> out;
	std::string ok, unknown;
	for (auto &d : devs) {
		std::string name = "neuron" + std::to_string(d.index);
		auto [h, why] = read_health(c, d.sysdir);
		if (h.empty()) {
			unknown += (unknown.empty() ? "" : ", ") + name;
			continue;
		}
		if (h == "ok") {
			ok += (ok.empty() ? "" : ", ") + name;
			continue;
		}
		std::string cores;
		for (int k = 0; k < d.cores; k++) {
			auto [ch, cwhy] = read_health(c, d.sysdir + "/neuron_core" + std::to_string(k));
			if (!ch.empty() && ch != "ok")
				cores += (cores.empty() ? "" : ",") + std::to_string(k);
		}
		std::string detail = name + ": " + h + " (" + why + ")";
		std::string reset = "with no process using it (neuron-ls lists them), echo 1 | sudo tee " +
				    d.sysdir + "/reset";
		if (why == "nc_unrecoverable")
			out.push_back({ chk, severity::error,
					detail + ": " +
						(cores.empty() ? std::string("a NeuronCore refuses")
						 : cores.find(',') == std::string::npos ? "NeuronCore " + cores + " refuses"
											 : "NeuronCores " + cores + " refuse") +
						" jobs until the device is reset",
					"reset the device: " + reset });
		else if (why == "fw_not_answering")
			out.push_back({ chk, severity::warning,
					detail + ": the last firmware mailbox exchange got no answer",
					"if the next ones fail too, reset the device: " + reset });
		else if (why == "reset_failed" || why == "reset_in_progress")
			out.push_back({ chk, severity::note, detail + ": see the state finding", "" });
		else if (why == "sram_uncorrectable" || why == "hbm_uncorrectable")
			out.push_back({ chk, severity::note,
					detail + ": see the ecc finding (a reset clears the health, not the counts)", "" });
		else
			out.push_back({ chk, severity::warning, detail,
					"compare with docs/ABI/sysfs-devices-neuron (a different driver?)" });
	}
	if (!ok.empty())
		out.push_back({ chk, severity::ok, ok + ": ok", "" });
	if (!unknown.empty())
		out.push_back({ chk, severity::unknown,
				unknown + ": not checked: no health file (an older driver, or the vendor's)", "" });
	return out;
}

// ---- 7. the firmware answering ------------------------------------------------------

inline std::vector<finding> check_fw_io(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "fw_io";
	std::vector<finding> out;
	std::string clean, unknown;
	for (auto &d : devs) {
		std::string name = "neuron" + std::to_string(d.index);
		auto err = read_u64(c, d.sysdir + "/stats/fw_io/err_count");
		auto tmo = read_u64(c, d.sysdir + "/stats/fw_io/timeout_count");
		if (!err && !tmo) {
			unknown += (unknown.empty() ? "" : ", ") + name;
			continue;
		}
		uint64_t e = err.value_or(0), t = tmo.value_or(0);
		if (e || t)
			out.push_back({ chk, severity::warning,
					name + ": firmware mailbox errors: " + std::to_string(e + t) + " (" + std::to_string(e) +
						" error responses, " + std::to_string(t) + " timeouts)",
					"if they keep rising, reset the device: with no process using it, echo 1 | sudo tee " +
						d.sysdir + "/reset" });
		else
			clean += (clean.empty() ? "" : ", ") + name;
	}
	if (!clean.empty())
		out.push_back({ chk, severity::ok, clean + ": the firmware answers (no mailbox error)", "" });
	if (!unknown.empty())
		out.push_back({ chk, severity::unknown, unknown + ": not checked: no fw_io counters in sysfs", "" });
	return out;
}

// ---- 8. cores held by stopped or vanished processes --------------------------------

// The state letter of /proc/<pid>/stat ('R', 'S', 'T', 'Z', ...), 0 when
// there is no such process; *ppid its parent.
inline char process_state(const context &c, int pid, int *ppid = nullptr)
{
	std::ifstream f(under(c, "/proc/" + std::to_string(pid) + "/stat"));
	std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	size_t close = s.rfind(')');	// the command may hold ')' and spaces
	if (close == std::string::npos || close + 2 >= s.size())
		return 0;
	if (ppid) {
		std::istringstream rest(s.substr(close + 3));
		int p = 0;
		rest >> p;
		*ppid = p;
	}
	return s[close + 2];
}

inline std::vector<finding> check_holders(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "holders";
	if (!c.list_holders)
		return { { chk, severity::note,
			   "not checked: the process list comes from the driver (APPS_INFO), not from a --root tree", "" } };
	std::vector<finding> out;
	std::optional<core_run> visible;
	auto total = total_cores(devs);
	if (c.visible_cores && !c.visible_cores->empty() && total)
		if (core_run r = parse_visible_cores(*c.visible_cores, *total); r.ok)
			visible = r;
	int running = 0;
	std::vector<int> held;	// NeuronCores running holders have (no NEURON_RT_VISIBLE_CORES)
	for (auto &d : devs) {
		std::string name = "neuron" + std::to_string(d.index);
		std::vector<apps::process> procs;
		std::string err;
		if (!c.list_holders(d, procs, err)) {
			out.push_back({ chk, severity::unknown, name + ": not checked: processes not listed: " + err, "" });
			continue;
		}
		// NeuronCores whose reserver has exited, by its pid: a forked
		// child (or any process given the file) keeps them held
		std::map<int, std::vector<apps::core_holding>> orphaned;
		std::vector<apps::core_holding> cores_held;
		if (c.list_cores && c.list_cores(d, cores_held, err))
			for (auto &h : cores_held)
				if (h.held && h.owner_exited && !h.owner_hidden)
					orphaned[h.owner_pid].push_back(h);
		for (auto &p : procs) {
			std::string who = "pid " + std::to_string(p.pid) + (p.command.empty() ? "" : " (" + p.command + ")");
			std::string cores = "NeuronCores " + ids_text(p.nc_ids);
			int ppid = 0;
			char st = process_state(c, p.pid, &ppid);
			if (auto it = orphaned.find(p.pid); it != orphaned.end()) {
				std::vector<int> ids, kill;
				std::string through, back;
				unsigned hidden = 0;
				for (auto &h : it->second) {
					ids.push_back(h.nc);
					back += (back.empty() ? "" : ", ") + ("neuron-ls --take-back " +
						std::to_string(d.index) + ":" + std::to_string(h.nc - d.first_nc));
					hidden = std::max(hidden, h.hidden);
					for (int q : h.pids) {
						if (std::find(kill.begin(), kill.end(), q) != kill.end())
							continue;
						kill.push_back(q);
						std::string cmd = apps::command_of(q, under(c, "/proc"));
						std::string cg = apps::cgroup_of(q, under(c, "/proc"));
						through += (through.empty() ? "" : ", ") + ("pid " + std::to_string(q)) +
							   (cmd.empty() ? "" : " (" + cmd + ")") + (cg.empty() ? "" : " [" + cg + "]");
					}
				}
				if (hidden)
					through += (through.empty() ? "" : " and ") + std::to_string(hidden) +
						   " process" + (hidden == 1 ? "" : "es") + " in other pid namespaces";
				std::string kills;
				for (int q : kill)
					kills += " " + std::to_string(q);
				out.push_back({ chk, severity::warning,
						name + ": pid " + std::to_string(p.pid) + " has exited, but NeuronCores " +
							ids_text(ids) + " it reserved stay held: its file is open in " +
							(through.empty() ? std::string("no process this one can see") : through) +
							" (a forked child keeps a reservation)",
						(kill.empty() ? std::string() :
								std::string(kill.size() == 1 ? "end it" : "end them") +
									" (kill" + kills + "), or ") +
							"take the cores back as root: " + back });
				continue;
			}
			if (st == 0) {
				out.push_back({ chk, severity::warning,
						name + ": " + who + " is gone but the driver still lists it, holding " + cores,
						"run neuron-doctor again; if it stays, reload the driver (sudo modprobe -r neuron && sudo modprobe neuron)" });
			} else if (st == 'T' || st == 't') {
				std::string back;
				for (int id : p.nc_ids)
					back += (back.empty() ? "" : ", ") + ("neuron-ls --take-back " +
						std::to_string(d.index) + ":" + std::to_string(id - d.first_nc));
				out.push_back({ chk, severity::warning,
						name + ": " + who + " is stopped and holds " + cores,
						"resume it (kill -CONT " + std::to_string(p.pid) + ") or end it (kill " +
							std::to_string(p.pid) + ") to free the cores" +
							(back.empty() || !c.list_cores ? std::string() :
											  ", or take them back as root: " + back) });
			} else if (st == 'Z') {
				out.push_back({ chk, severity::warning,
						name + ": " + who + " is a zombie and holds " + cores,
						"its parent, pid " + std::to_string(ppid) + ", must reap it: end the parent (kill " +
							std::to_string(ppid) + ")" });
			} else {
				running++;
				if (!visible) {
					held.insert(held.end(), p.nc_ids.begin(), p.nc_ids.end());
					continue;
				}
				std::vector<int> clash;
				for (int id : p.nc_ids)
					if (static_cast<uint32_t>(id) >= visible->first &&
					    static_cast<uint32_t>(id) < visible->first + visible->count)
						clash.push_back(id);
				if (!clash.empty())
					out.push_back({ chk, severity::warning,
							name + ": " + who + " holds NeuronCores " + ids_text(clash) +
								", which NEURON_RT_VISIBLE_CORES names: nrt_init() here fails with NRT_RESOURCE",
							"choose other cores in NEURON_RT_VISIBLE_CORES, or wait for pid " +
								std::to_string(p.pid) + " to finish" });
			}
		}
	}
	bool problems = false;
	for (auto &f : out)
		problems |= f.sev != severity::note && f.sev != severity::unknown;
	// without NEURON_RT_VISIBLE_CORES, nrt_init() takes every NeuronCore
	// (as the SDK's): say which ones a new process would find taken
	std::sort(held.begin(), held.end());
	held.erase(std::unique(held.begin(), held.end()), held.end());
	std::string taken = held.empty() ? "" :
		" (they hold NeuronCores " + ids_text(held) +
		": nrt_init() without NEURON_RT_VISIBLE_CORES takes every NeuronCore and would get NRT_RESOURCE)";
	if (!problems)
		out.push_back({ chk, severity::ok,
				running ? std::to_string(running) + (running == 1 ? " process has" : " processes have") +
						  " a device open, all running" + taken
					: std::string("no process has a device open"),
				"" });
	return out;
}

// ---- 9. NEURON_HW_ERR lines in the kernel log --------------------------------------

struct kmsg_summary {
	unsigned count = 0;
	std::string last;	// "[seconds] message" of the last one
};

// One line of /dev/kmsg ("<prio>,<seq>,<usec>,<flags>;<message>"; lines
// starting with a space continue the record before).
inline void kmsg_line(std::string_view line, kmsg_summary &k)
{
	if (line.empty() || line[0] == ' ')
		return;
	if (line.find("NEURON_HW_ERR") == std::string_view::npos)
		return;
	// a health change restates what the error lines and sysfs health say
	// (and health=ok is no error at all): not a hardware error of its own
	if (line.find(" NEURON_HW_ERR=HEALTH ") != std::string_view::npos)
		return;
	k.count++;
	size_t semi = line.find(';');
	std::string_view msg = semi == std::string_view::npos ? line : line.substr(semi + 1);
	std::string stamp;
	if (semi != std::string_view::npos) {
		auto f = split(line.substr(0, semi), ',');
		unsigned long long us = 0;
		if (f.size() >= 3 && !f[2].empty() && f[2].find_first_not_of("0123456789") == std::string::npos) {
			us = std::stoull(f[2]);
			char b[48];
			std::snprintf(b, sizeof(b), "[%llu.%06llu] ", us / 1000000, us % 1000000);
			stamp = b;
		}
	}
	k.last = stamp + std::string(msg);
}

// The action= a NEURON_HW_ERR line names, in words
inline std::string hw_err_action(const std::string &line)
{
	size_t a = line.find("action=");
	std::string act = a == std::string::npos ? "" : line.substr(a + 7, line.find(' ', a) - (a + 7));
	if (act == "TERMINATE_INSTANCE")
		return "the hardware reported an uncorrectable error (action=TERMINATE_INSTANCE): move the work to another instance (stop and start it)";
	if (act == "REBOOT_INSTANCE")
		return "reboot the instance (action=REBOOT_INSTANCE: a reboot repairs the HBM)";
	if (act == "RESTART_JOB")
		return "restart the job (action=RESTART_JOB)";
	return "read the lines: sudo dmesg | grep NEURON_HW_ERR";
}

inline finding check_kmsg(const context &c)
{
	const std::string chk = "kmsg";
	if (!c.read_kmsg)
		return { chk, severity::note, "the kernel log was not read (--no-kmsg)", "" };
	std::string path = under(c, "/dev/kmsg");
	int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		return { chk, severity::note,
			 "the kernel log was not read: /dev/kmsg: " + std::string(std::strerror(err)) +
				 (err == EPERM || err == EACCES ? " (kernel.dmesg_restrict: run as root to include it)" : ""),
			 "" };
	}
	kmsg_summary k;
	std::string pending;
	std::vector<char> buf(16384);	// /dev/kmsg returns one record per read
	std::string failed;
	size_t total = 0;
	while (total < (64u << 20)) {
		ssize_t n = ::read(fd, buf.data(), buf.size());
		if (n < 0) {
			if (errno == EINTR || errno == EPIPE)	// EPIPE: records overwritten meanwhile
				continue;
			if (errno != EAGAIN)
				failed = std::strerror(errno);
			break;
		}
		if (n == 0)
			break;
		total += static_cast<size_t>(n);
		pending.append(buf.data(), static_cast<size_t>(n));
		size_t b = 0, nl;
		while ((nl = pending.find('\n', b)) != std::string::npos) {
			kmsg_line(std::string_view(pending).substr(b, nl - b), k);
			b = nl + 1;
		}
		pending.erase(0, b);
	}
	::close(fd);
	kmsg_line(pending, k);
	if (!failed.empty() && k.count == 0)
		return { chk, severity::note, "the kernel log was not read: /dev/kmsg: " + failed, "" };
	if (k.count == 0)
		return { chk, severity::ok, "no NEURON_HW_ERR line in the kernel log", "" };
	return { chk, severity::warning,
		 std::to_string(k.count) + " NEURON_HW_ERR line" + (k.count == 1 ? "" : "s") +
			 " in the kernel log buffer; the last: " + k.last,
		 hw_err_action(k.last) };
}

// ---- the whole walk --------------------------------------------------------------

struct report {
	std::vector<finding> findings;
	int first = -1;		// index of the first broken link, -1 when none
	severity status = severity::ok;
};

inline report run(const context &c)
{
	report r;
	auto add = [&r](finding f) { r.findings.push_back(std::move(f)); };
	auto add_all = [&r](std::vector<finding> fs) {
		for (auto &f : fs)
			r.findings.push_back(std::move(f));
	};
	bool loaded = false;
	std::string hint = container_hint(c);
	add_all(check_module(c, !hint.empty(), loaded));
	add_all(check_dkms_kernels(c));
	add_all(check_runtime_compat(c));
	std::vector<device> devs;
	if (loaded) {
		devs = list_devices(c);
		add(check_devices(c, devs));
		add_all(check_nodes(c, devs, hint.size() > 0));
	} else {
		add({ "devices", severity::note, "devices, nodes, state, counters and holders not checked: no driver", "" });
	}
	add(check_container(hint));
	add(check_visible_cores(c, devs));
	if (!devs.empty()) {
		add_all(check_state(c, devs));
		add_all(check_ecc(c, devs));
		add_all(check_health(c, devs));
		add_all(check_fw_io(c, devs));
		add_all(check_holders(c, devs));
	}
	add(check_kmsg(c));

	// the first broken link: the first error in the walk's order, else the
	// first warning about now (silent firmware rather than ECC errors a
	// reset already answered), else the first warning
	for (severity want : { severity::error, severity::warning }) {
		for (bool past : { false, true })
			for (size_t i = 0; i < r.findings.size() && r.first < 0; i++)
				if (r.findings[i].sev == want && r.findings[i].past == past)
					r.first = static_cast<int>(i);
		if (r.first >= 0) {
			r.status = want;
			break;
		}
	}
	if (r.first < 0)
		for (auto &f : r.findings)
			if (f.sev == severity::unknown)
				r.status = severity::unknown;
	return r;
}

// 0 ok, 1 warnings only, 2 errors, 4 no fault found but some checks could
// not be made (3, usage or internal error, is main's)
inline int exit_code(const report &r)
{
	switch (r.status) {
	case severity::error:
		return 2;
	case severity::warning:
		return 1;
	case severity::unknown:
		return 4;
	default:
		return 0;
	}
}

inline const char *status_name(const report &r)
{
	return r.status == severity::ok || r.status == severity::note ? "ok" : json_name(r.status);
}

// "health, fw_io": the checks that could not be made
inline std::string unknown_checks(const report &r)
{
	std::string o;
	for (auto &f : r.findings)
		if (f.sev == severity::unknown && o.find(f.check) == std::string::npos)
			o += (o.empty() ? "" : ", ") + f.check;
	return o;
}

inline std::string to_text(const report &r)
{
	std::string o = "neuron-doctor: ";
	if (r.first < 0 && r.status == severity::unknown) {
		o += "UNKNOWN: no fault found, but not checked: " + unknown_checks(r) + "\n";
	} else if (r.first < 0) {
		o += "OK\n";
	} else {
		const finding &f = r.findings[static_cast<size_t>(r.first)];
		o += f.check + ": " + f.action + "\n";
	}
	for (auto &f : r.findings) {
		o += std::string("[") + text_tag(f.sev) + "] " + f.check + ": " + f.detail;
		if (!f.action.empty())
			o += " -> " + f.action;
		o += "\n";
	}
	return o;
}

inline std::string finding_json(const finding &f)
{
	return "{\"check\": " + json::quote(f.check) + ", \"severity\": " + json::quote(json_name(f.sev)) +
	       ", \"detail\": " + json::quote(f.detail) + ", \"action\": " + json::quote(f.action) + "}";
}

inline std::string to_json(const report &r)
{
	std::string o = "{\n  \"status\": " + json::quote(status_name(r)) + ",\n  \"first\": ";
	o += r.first < 0 ? "null" : finding_json(r.findings[static_cast<size_t>(r.first)]);
	o += ",\n  \"findings\": [\n";
	for (size_t i = 0; i < r.findings.size(); i++)
		o += "    " + finding_json(r.findings[i]) + (i + 1 < r.findings.size() ? ",\n" : "\n");
	o += "  ]\n}\n";
	return o;
}

// ---- the command line ---------------------------------------------------------------

struct options {
	bool json = false;
	bool help = false;
	bool kmsg = true;
	std::string root = "/";
};

// False with @err (one line) on a bad argument.
inline bool parse_args(int argc, char **argv, options &o, std::string &err)
{
	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];
		if (a == "--json" || a == "-j") {
			o.json = true;
		} else if (a == "--no-kmsg") {
			o.kmsg = false;
		} else if (a == "--help" || a == "-h") {
			o.help = true;
		} else if (a == "--root") {
			if (i + 1 >= argc || argv[i + 1][0] == '\0') {
				err = "--root needs a directory (see --help)";
				return false;
			}
			o.root = argv[++i];
		} else if (a.rfind("--root=", 0) == 0) {
			if (a.size() == 7) {
				err = "--root needs a directory (see --help)";
				return false;
			}
			o.root = std::string(a.substr(7));
		} else {
			err = "unknown argument '" + std::string(a) + "' (see --help)";
			return false;
		}
	}
	return true;
}

} // namespace tools::doctor
