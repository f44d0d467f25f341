// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's checks of the driver itself: the module loaded, DKMS's
// builds for every installed kernel, the vendor's version rules (checks.hpp).
#include "checks.hpp"

#include <algorithm>
#include <fstream>

namespace tools::doctor {

// ---- 1. the module ------------------------------------------------------------

std::vector<std::string> dkms_versions(const context &c, const std::string &pkg)
{
	std::vector<std::string> out;
	for (auto &v : list_dir(c, "/var/lib/dkms/" + pkg, true))
		if (!v.empty() && v[0] >= '0' && v[0] <= '9')
			out.push_back(v);
	return out;
}

bool dkms_built(const context &c, const std::string &version, const std::string &kver,
		const std::string &pkg)
{
	std::string base = "/var/lib/dkms/" + pkg + "/" + version + "/" + kver;
	for (auto &arch : list_dir(c, base, true))
		for (auto &f : list_dir(c, base + "/" + arch + "/module"))
			if (f.rfind("neuron.ko", 0) == 0)
				return true;
	return false;
}

bool dkms_installed(const context &c, const std::string &kver)
{
	for (auto &f : list_dir(c, "/lib/modules/" + kver + "/updates/dkms"))
		if (f.rfind("neuron.ko", 0) == 0)
			return true;
	return false;
}

std::optional<bool> module_known(const context &c, const std::string &kver)
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

std::vector<finding> check_module(const context &c, bool in_container, bool &loaded)
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

std::vector<unsigned long> version_fields(std::string_view v)
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

bool version_less(std::string_view a, std::string_view b)
{
	return version_fields(a) < version_fields(b);
}

std::string dkms_newest(const context &c, const std::string &pkg)
{
	std::vector<std::string> v = dkms_versions(c, pkg);
	return v.empty() ? "" : *std::max_element(v.begin(), v.end(), version_less);
}

std::vector<std::string> installed_kernels(const context &c)
{
	std::vector<std::string> out;
	for (auto &k : list_dir(c, "/lib/modules", true))
		if (exists_at(c, "/lib/modules/" + k + "/modules.dep"))
			out.push_back(k);
	return out;
}

bool dkms_log_names(const context &c, const std::string &pkg, const std::string &version,
		    const std::string &kver)
{
	std::string line;
	if (!read_line_at(c, "/var/lib/dkms/" + pkg + "/" + version + "/build/make.log", line))
		return false;
	return line.rfind("DKMS make.log for ", 0) == 0 && line.find(" for kernel " + kver + " ") != std::string::npos;
}

std::vector<finding> check_dkms_kernels(const context &c)
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

std::optional<std::string> dpkg_version(const context &c, std::string_view pkg)
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

std::vector<finding> check_runtime_compat(const context &c)
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

} // namespace tools::doctor
