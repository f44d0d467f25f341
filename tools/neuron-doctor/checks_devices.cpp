// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's checks of the devices: there, their nodes openable,
// NEURON_RT_VISIBLE_CORES within them, ready, no uncorrectable ECC error,
// healthy, the firmware answering (checks.hpp).
#include "checks.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "accounts.hpp"
#include "cores.hpp"

namespace tools::doctor {

// ---- 2. the devices the driver has ------------------------------------------------

std::vector<device> list_devices(const context &c)
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

finding check_devices(const context &c, const std::vector<device> &devs)
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

std::string container_hint(const context &c)
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

std::vector<finding> check_nodes(const context &c, const std::vector<device> &devs, bool in_container)
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
								" but this process's groups do not include it (added after login)",
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

finding check_container(const std::string &hint)
{
	if (hint.empty())
		return { "container", severity::ok, "not in a container", "" };
	return { "container", severity::note,
		 "in a container (" + hint + "): its device cgroup cannot be read from inside, "
		 "so a node that is there may still refuse to open (EPERM)",
		 "" };
}

// ---- 4. NEURON_RT_VISIBLE_CORES -------------------------------------------------

std::optional<uint32_t> total_cores(const std::vector<device> &devs)
{
	uint32_t t = 0;
	for (auto &d : devs) {
		if (d.cores < 0)
			return std::nullopt;
		t += static_cast<uint32_t>(d.cores);
	}
	return t;
}

std::string cores_on_devices(const std::vector<device> &devs, uint32_t first, uint32_t count)
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

std::string missing_devices(const std::vector<device> &devs)
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

finding check_visible_cores(const context &c, const std::vector<device> &devs)
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

std::vector<finding> check_state(const context &c, const std::vector<device> &devs)
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

std::pair<std::string, std::string> read_health(const context &c, const std::string &dir)
{
	std::string h, why;
	if (!read_line_at(c, dir + "/health", h))
		return { "", "" };
	if (!read_line_at(c, dir + "/health_reason", why))
		why = "?";	// not known: check_ecc() takes its counts as current
	return { h, why };
}

// ---- 6. uncorrectable memory errors -----------------------------------------------

std::vector<finding> check_ecc(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "ecc";
	std::vector<finding> out;
	std::string clean, unknown, unread;
	auto text = [](const std::optional<uint64_t> &v) { return v ? std::to_string(*v) : std::string("?"); };
	for (auto &d : devs) {
		std::string name = "neuron" + std::to_string(d.index);
		std::string hw = d.sysdir + "/stats/hardware/";
		auto sram = read_u64(c, hw + "sram_ecc_uncorrected");
		auto mem = read_u64(c, hw + "mem_ecc_uncorrected");
		auto rep = read_u64(c, hw + "mem_ecc_repairable_uncorrected");
		bool sram_file = exists_at(c, hw + "sram_ecc_uncorrected");
		bool mem_file = exists_at(c, hw + "mem_ecc_uncorrected");
		if (!sram && !mem && !sram_file && !mem_file) {
			unknown += (unknown.empty() ? "" : ", ") + name;
			continue;
		}
		uint64_t s = sram.value_or(0), m = mem.value_or(0), r = rep.value_or(0);
		// one count that cannot be read (missing beside the other, not a
		// number, a read error) makes the device not clean; the other
		// one, when it counts errors, is reported all the same
		bool partial = (!sram || !mem) && !s && !m;
		if (partial)
			unread += (unread.empty() ? "" : ", ") + name + " (" +
				  (!sram ? std::string("sram_ecc_uncorrected") + (sram_file ? "" : ": missing")
					 : std::string()) +
				  (!sram && !mem ? ", " : "") +
				  (!mem ? std::string("mem_ecc_uncorrected") + (mem_file ? "" : ": missing")
					: std::string()) +
				  ")";
		// the counts never go down; the driver's health says whether any
		// came after the last reset (before one, without a health file, or
		// without a readable reason: they are current)
		auto [h, why] = read_health(c, d.sysdir);
		bool since_reset = h.empty() || why == "?" || why == "sram_uncorrectable" ||
				   why == "hbm_uncorrectable" || why == "reset_failed" || why == "reset_in_progress";
		if ((s || m) && !since_reset)
			out.push_back({ chk, severity::warning,
					name + ": uncorrectable ECC errors: SRAM " + text(sram) + ", HBM " +
						text(mem) + ", all counted before the device's last reset (health: " +
						h + ")",
					"if new ones come (this check an error again), move the work off this instance: "
					"stop and start it (not reboot)",
					true });
		else if (s || m)
			out.push_back({ chk, severity::error,
					name + ": uncorrectable ECC errors: SRAM " + text(sram) + ", HBM " +
						text(mem) + " (jobs on it can fail or return bad data)",
					"move the work off this instance: stop and start it (not reboot) to get other hardware" });
		if (r)
			out.push_back({ chk, severity::warning,
					name + ": " + std::to_string(r) + " uncorrectable HBM errors awaiting repair",
					"reboot the instance: the HBM is repaired at the next boot" });
		if (!s && !m && !r && !partial)
			clean += (clean.empty() ? "" : ", ") + name;
	}
	if (!clean.empty())
		out.push_back({ chk, severity::ok, clean + ": no uncorrectable ECC error", "" });
	if (!unknown.empty())
		out.push_back({ chk, severity::unknown, unknown + ": not checked: no ECC counters in sysfs", "" });
	if (!unread.empty())
		out.push_back({ chk, severity::unknown,
				unread + ": not checked: an ECC count cannot be read",
				"" });
	return out;
}

// ---- 6b. the driver's health of each device and NeuronCore ------------------------

std::vector<finding> check_health(const context &c, const std::vector<device> &devs)
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

std::vector<finding> check_fw_io(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "fw_io";
	std::vector<finding> out;
	std::string clean, unknown, unread;
	for (auto &d : devs) {
		std::string name = "neuron" + std::to_string(d.index);
		auto err = read_u64(c, d.sysdir + "/stats/fw_io/err_count");
		auto tmo = read_u64(c, d.sysdir + "/stats/fw_io/timeout_count");
		if (!err && !tmo && !exists_at(c, d.sysdir + "/stats/fw_io/err_count") &&
		    !exists_at(c, d.sysdir + "/stats/fw_io/timeout_count")) {
			unknown += (unknown.empty() ? "" : ", ") + name;
			continue;
		}
		uint64_t e = err.value_or(0), t = tmo.value_or(0);
		// a count that cannot be read: not "the firmware answers"
		if ((!err || !tmo) && !e && !t) {
			unread += (unread.empty() ? "" : ", ") + name;
			continue;
		}
		auto text = [](const std::optional<uint64_t> &v) { return v ? std::to_string(*v) : std::string("?"); };
		if (e || t)
			out.push_back({ chk, severity::warning,
					name + ": firmware mailbox errors: " + (err && tmo ? std::to_string(e + t) : std::string("at least ") + std::to_string(e + t)) +
						" (" + text(err) + " error responses, " + text(tmo) + " timeouts)",
					"if they keep rising, reset the device: with no process using it, echo 1 | sudo tee " +
						d.sysdir + "/reset" });
		else
			clean += (clean.empty() ? "" : ", ") + name;
	}
	if (!clean.empty())
		out.push_back({ chk, severity::ok, clean + ": the firmware answers (no mailbox error)", "" });
	if (!unknown.empty())
		out.push_back({ chk, severity::unknown, unknown + ": not checked: no fw_io counters in sysfs", "" });
	if (!unread.empty())
		out.push_back({ chk, severity::unknown,
				unread + ": not checked: a fw_io counter cannot be read (not a number, or a read error)",
				"" });
	return out;
}

} // namespace tools::doctor
