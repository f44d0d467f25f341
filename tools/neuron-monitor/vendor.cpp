// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor's vendor report stream (vendor.hpp): what one period saw,
// gathered from the NDS slabs, sysfs and /proc, and the loop that reports it.
#include "vendor.hpp"

#include <ndl/ndl.h>
#include <neuron/neuron_nds.h>
#include <nrt/nds/neuron_ds.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unistd.h>
#include <vector>

#include "common/parse_num.hpp"
#include "common/read_all.hpp"
#include "imds.hpp"
#include "procstat.hpp"
#include "sysfs.hpp"
#include "vendor_report.hpp"

namespace tools::monitor::vendor {

namespace m = tools::monitor;

namespace {

// utime and stime of /proc/<pid>/stat's text @st: fields 14 and 15, after
// the ")" that ends comm. False when there is no ")"; fields that are not
// there read as 0.
bool parse_stat(std::string_view st, uint64_t &utime, uint64_t &stime)
{
	// isspace() in the "C" locale
	auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
	size_t p = st.rfind(')');
	if (p == std::string_view::npos)
		return false;
	utime = stime = 0;
	size_t i = p + 2;
	for (int field = 3; field <= 15; field++) {
		while (i < st.size() && space(st[i]))
			i++;
		if (i >= st.size())
			break;
		size_t e = i;
		while (e < st.size() && !space(st[e]))
			e++;
		if (field == 14 || field == 15)
			std::from_chars(st.data() + i, st.data() + e, field == 14 ? utime : stime);
		i = e;
	}
	return true;
}

// The applications' NDS counters, read at every report. Each device is
// opened for the report only: a monitor that held it between reports
// would be a process using the device, listed as one (neuron-ls,
// APPS_INFO), and would make a device reset wait for it. Each
// application's counters are copied out by the driver (nds_read_copy:
// nothing mapped, nothing held); a driver without that call (the
// vendor's) has each slab mapped for the report instead. What the reports
// reuse is memory: the samples' map nodes and the copy's buffer.
class app_reader {
public:
	// Every application's NDS counters now into @apps, summed over the
	// devices it has a slab on; the samples @apps held go, their memory is
	// reused. Processes without a slab (tools, this monitor) are no runtime.
	void collect(std::map<int, m::app_sample> &apps, std::string &err);

	// the device memory of the first device, as the last collect() opened it
	// (GET_INFO's hbm_size), and that device's index; -1 when it did not
	uint64_t memory_size() const { return mem_size_; }
	int memory_index() const { return mem_index_; }

private:
	// @pid's slab on @dev, copied out or mapped; nullptr when it holds none
	nds_instance_t *open_slab(ndl_device_t *dev, int pid, uint32_t ncs, bool &copy);

	// the applications' stat files, kept from one report to the next
	// (dropped when the process is no application any more); holding them
	// keeps no device busy
	m::proc_stat_files stat_;
	std::string stat_text_;	// collect()'s

	std::vector<std::map<int, m::app_sample>::node_type> spare_;	// collect()'s
	// NEURON_NDS_SIZE bytes the copies go to (calloc: untouched pages stay unmapped)
	std::unique_ptr<uint64_t, decltype(&std::free)> copy_{ nullptr, &std::free };
	uint64_t mem_size_ = 0;
	int mem_index_ = -1;
};

nds_instance_t *app_reader::open_slab(ndl_device_t *dev, int pid, uint32_t ncs, bool &copy)
{
	nds_instance_t *inst = nullptr;
	if (copy && !copy_)
		copy_.reset(static_cast<uint64_t *>(std::calloc(NEURON_NDS_SIZE / 8, 8)));
	if (copy && copy_) {
		int r = nds_read_copy(dev, pid, copy_.get());
		if (r == 0)
			return nds_open_memory(copy_.get(), ncs, false, &inst) == 0 ? inst : nullptr;
		if (r != -EOPNOTSUPP)
			return nullptr;	// -ENOENT: it has no slab here (any more)
		copy = false;	// this device's driver has no NDS_READ: map
	}
	return nds_open(dev, pid, &inst) == 0 ? inst : nullptr;
}

void app_reader::collect(std::map<int, m::app_sample> &apps, std::string &err)
{
	mem_index_ = -1;	// set again only if the first device opens this time
	spare_.clear();
	while (!apps.empty())
		spare_.push_back(apps.extract(apps.begin()));
	// @pid's sample, a new one zeroed, in a spare node where there is one
	auto sample = [&](int pid) -> m::app_sample & {
		auto it = apps.find(pid);
		if (it != apps.end())
			return it->second;
		if (spare_.empty())
			return apps[pid];
		auto node = std::move(spare_.back());
		spare_.pop_back();
		node.key() = pid;
		m::reset(node.mapped(), pid);
		return apps.insert(std::move(node)).position->second;
	};
	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	int first_nc = 0;
	const int self = ::getpid();
	for (int i = 0; i < n && i < MAX_NEURON_DEVICE_COUNT; i++) {
		ndl_device_t *dev = nullptr;
		if (ndl_open_device(idx[i], nullptr, &dev) != 0) {
			err = "cannot open /dev/neuron" + std::to_string(idx[i]);
			continue;
		}
		uint32_t ncs = ndl_device_get_info(dev)->nc_count;
		if (i == 0) {
			mem_size_ = dev->hbm_size;
			mem_index_ = idx[i];
		}
		neuron_app_info *info = nullptr;
		size_t count = 0;
		if (ndl_get_all_apps_info(dev, &info, &count, APP_INFO_PID_NC_LOCK_INFO) != 0) {
			err = "cannot list the processes of /dev/neuron" + std::to_string(idx[i]);
			info = nullptr;
			count = 0;
		}
		bool copy = true;
		for (size_t k = 0; k < count; k++) {
			int pid = info[k].pid;
			if (pid == self)
				continue;
			nds_instance_t *inst = open_slab(dev, pid, ncs, copy);
			if (!inst)
				continue;
			m::app_sample &a = sample(pid);
			a.pid = pid;
			m::add_slab(a, inst, ncs, first_nc, info[k].nc_lock_map);
			nds_close(inst);
		}
		std::free(info);
		ndl_close_device(dev);
		first_nc += static_cast<int>(ncs);
	}
	for (auto &[pid, a] : apps) {
		if (a.tag.empty())
			a.tag = std::to_string(pid);
		if (!stat_.read(pid, stat_text_) || !parse_stat(stat_text_, a.utime, a.stime))
			a.error = "cannot read /proc/" + std::to_string(pid) + "/stat";
	}
	// the stat files of processes that are no application any more
	stat_.end_report([&apps](int pid) { return apps.contains(pid); });
	spare_.clear();
}

std::vector<m::device_hw> collect_hw(std::string &err)
{
	std::vector<m::device_hw> hw;
	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	for (int i = 0; i < n && i < MAX_NEURON_DEVICE_COUNT; i++) {
		m::device_hw h;
		h.index = idx[i];
		std::string d = sysfs_dev(idx[i]) + "/stats/hardware/";
		// a device whose counts cannot be read is left out of this period:
		// its next period then starts from counts read, not from 0
		if (!read_u64(d + "mem_ecc_uncorrected", h.mem_ecc_uncorrected) ||
		    !read_u64(d + "sram_ecc_uncorrected", h.sram_ecc_uncorrected)) {
			err = "cannot read " + d;
			continue;
		}
		// the corrected counts: no such files under a vendor driver before 2.30.2
		bool mem = ::access((d + "mem_ecc_corrected").c_str(), F_OK) == 0;
		bool sram = ::access((d + "sram_ecc_corrected").c_str(), F_OK) == 0;
		h.corrected_known = mem && sram;
		if (h.corrected_known && (!read_u64(d + "mem_ecc_corrected", h.mem_ecc_corrected) ||
					  !read_u64(d + "sram_ecc_corrected", h.sram_ecc_corrected))) {
			err = "cannot read " + d;
			continue;
		}
		h.simulated = first_line(sysfs_dev(idx[i]) + "/info/architecture/arch_type").rfind("NDsim", 0) == 0;
		// a driver without health files: no health series
		h.health = first_line(sysfs_dev(idx[i]) + "/health");
		h.health_reason = first_line(sysfs_dev(idx[i]) + "/health_reason");
		hw.push_back(h);
	}
	return hw;
}

std::vector<m::cpu_times> collect_cpus(std::string &err)
{
	std::vector<m::cpu_times> cpus;
	std::ifstream f("/proc/stat");
	std::string line;
	while (std::getline(f, line)) {
		if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] == ' ')
			continue;	// "cpuN" lines only
		std::istringstream in(line);
		std::string name;
		m::cpu_times c;
		in >> name >> c.user >> c.nice >> c.system >> c.idle >> c.io_wait >> c.irq >> c.soft_irq;
		uint64_t id;
		if (!in || !tools::parse_uint(std::string_view(name).substr(3), INT32_MAX, id))
			continue;
		c.id = static_cast<int>(id);
		cpus.push_back(c);
	}
	if (cpus.empty())
		err = "cannot read /proc/stat";
	return cpus;
}

void collect_mem(m::system_sample &s)
{
	std::ifstream f("/proc/meminfo");
	std::string key;
	uint64_t v, total = 0, avail = 0, st = 0, sf = 0;
	std::string unit;
	bool got = false;
	while (f >> key >> v) {
		std::getline(f, unit);
		if (key == "MemTotal:")
			total = v, got = true;
		else if (key == "MemAvailable:")
			avail = v;
		else if (key == "SwapTotal:")
			st = v;
		else if (key == "SwapFree:")
			sf = v;
	}
	if (!got) {
		s.mem_error = "cannot read /proc/meminfo";
		return;
	}
	s.mem_total = total * 1024;
	s.mem_used = (total - std::min(avail, total)) * 1024;
	s.swap_total = st * 1024;
	s.swap_used = (st - std::min(sf, st)) * 1024;
}

// @mem_size: the device memory of device @mem_index (app_reader's)
m::hardware_info collect_hwinfo(uint64_t mem_size, int mem_index)
{
	m::hardware_info h;
	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	h.device_count = n > 0 ? n : 0;
	if (n <= 0) {
		h.error = "no Neuron device";
		return h;
	}
	std::string d = sysfs_dev(idx[0]);
	std::string name = first_line(d + "/info/architecture/device_name");
	for (char &c : name)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	h.device_type = name;
	std::string arch = first_line(d + "/info/architecture/arch_type");
	h.device_version = arch.rfind("ND", 0) == 0 ? arch.substr(2) : arch;
	std::string nca = first_line(d + "/neuron_core0/info/architecture/arch_type");
	h.neuroncore_version = nca.rfind("NC", 0) == 0 ? nca.substr(2) : nca;
	uint64_t ncs = 0;
	if (!read_u64(d + "/core_count", ncs) || ncs > INT32_MAX)
		h.error = "cannot read " + d + "/core_count";
	else
		h.nc_per_device = static_cast<int>(ncs);
	if (mem_index == idx[0])
		h.device_memory_size = mem_size;
	else if (h.error.empty())
		h.error = "cannot open /dev/neuron" + std::to_string(idx[0]);
	return h;
}

// The instance metadata service's answer, asked once (it does not change
// while the instance runs); when the service is unreachable, the instance id
// is the DMI board asset tag if it is one.
m::instance_info collect_instance()
{
	const char *env = std::getenv(tools::imds::kAddrEnv);
	tools::imds::instance q = tools::imds::query(env && *env ? env : tools::imds::kDefaultAddr);
	m::instance_info i;
	i.name = q.name;
	i.id = q.id;
	i.type = q.type;
	i.az = q.az;
	i.az_id = q.az_id;
	i.region = q.region;
	i.ami_id = q.ami_id;
	i.subnet_id = q.subnet_id;
	i.error = q.error;
	if (!q.reachable && i.id.empty()) {
		std::string tag = first_line("/sys/devices/virtual/dmi/id/board_asset_tag");
		while (!tag.empty() && std::isspace(static_cast<unsigned char>(tag.back())))
			tag.pop_back();
		if (tag.rfind("i-", 0) == 0)
			i.id = tag;
	}
	return i;
}

// tags whose group is remembered, at most (tags of exited applications
// leave with the rest when it is reached)
constexpr size_t kGroupCacheMax = 4096;

volatile std::sig_atomic_t g_stop;

void on_signal(int)
{
	g_stop = 1;
}

} // namespace

int run(const Options &opt)
{
	m::config cfg = m::default_config();
	if (opt.config) {
		std::string text;
		// a configuration is a few hundred bytes; a MiB is not one
		if (int e = tools::read_all(opt.config, text, size_t{ 1 } << 20)) {
			std::fprintf(stderr, "neuron-monitor: cannot read %s: %s\n", opt.config,
				     e == EFBIG ? "larger than 1 MiB" : std::strerror(e));
			return 1;
		}
		std::string err;
		if (!m::parse_config(text, cfg, err)) {
			std::fprintf(stderr, "neuron-monitor: %s: %s\n", opt.config, err.c_str());
			return 1;
		}
	}
	if (::access("/sys/class/neuron_device", F_OK) != 0) {
		std::fprintf(stderr, "neuron-monitor: no Neuron driver: /sys/class/neuron_device is missing (is neuron.ko loaded?)\n");
		return 1;
	}
	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);

	std::string err;
	std::map<int, m::app_sample> prev_apps;	// no baseline: the first report counts from 0
	std::map<int, m::app_sample> cur;	// this report's; the one before's memory between reports
	std::string out;			// the report's text
	app_reader reader;
	// the group whose tag_filter an application's tag matches first (nullptr:
	// none); a tag matches the same group at every report
	std::unordered_map<std::string, const m::runtime_group *> group_of;
	m::report r;
	std::vector<m::device_hw> prev_hw = collect_hw(err);
	std::vector<m::cpu_times> prev_cpu = collect_cpus(err);
	m::prometheus prom;
	auto period = std::chrono::duration<double>(cfg.period_s);
	auto next = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
	// once, while the first period runs (bounded: tools::imds::kTokenTimeoutMs
	// for the token, kQueryTimeoutMs for the rest)
	const m::instance_info inst = collect_instance();
	for (long reports = 0; opt.count < 0 || reports < opt.count; reports++) {
		while (!g_stop && std::chrono::steady_clock::now() < next)
			std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
				next - std::chrono::steady_clock::now(), std::chrono::milliseconds(100)));
		if (g_stop)
			break;
		next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);

		// a fresh report that keeps the last one's applications' memory
		auto room = std::move(r.apps);
		r = m::report{};
		r.apps = std::move(room);
		r.period_s = cfg.period_s;
		std::string apps_err;
		reader.collect(cur, apps_err);
		size_t napps = 0;
		if (group_of.size() > kGroupCacheMax)
			group_of.clear();
		for (auto &[pid, a] : cur) {
			auto g = group_of.find(a.tag);
			if (g == group_of.end()) {
				const m::runtime_group *match = nullptr;
				for (const m::runtime_group &rg : cfg.runtimes) {
					if (std::regex_search(a.tag, rg.re)) {
						match = &rg;
						break;
					}
				}
				g = group_of.emplace(a.tag, match).first;
			}
			if (!g->second)
				continue;
			auto it = prev_apps.find(pid);
			if (napps == r.apps.size())
				r.apps.emplace_back();
			auto &[group, slot] = r.apps[napps++];
			group = g->second;
			m::delta_into(slot, a, it == prev_apps.end() ? nullptr : &it->second);
		}
		r.apps.resize(napps);
		std::swap(prev_apps, cur);

		std::string hw_err = apps_err;
		std::vector<m::device_hw> hw = collect_hw(hw_err);
		for (m::device_hw &h : hw) {
			for (const m::device_hw &p : prev_hw) {
				if (p.index != h.index)
					continue;
				m::device_hw d = h;
				auto sub = [](uint64_t a, uint64_t b) { return a >= b ? a - b : a; };
				d.mem_ecc_corrected = sub(h.mem_ecc_corrected, p.mem_ecc_corrected);
				d.mem_ecc_uncorrected = sub(h.mem_ecc_uncorrected, p.mem_ecc_uncorrected);
				d.sram_ecc_corrected = sub(h.sram_ecc_corrected, p.sram_ecc_corrected);
				d.sram_ecc_uncorrected = sub(h.sram_ecc_uncorrected, p.sram_ecc_uncorrected);
				r.sys.hw.push_back(d);
			}
		}
		prev_hw = std::move(hw);
		r.sys.hw_error = hw_err;
		std::vector<m::cpu_times> cpus = collect_cpus(r.sys.cpu_error);
		// by CPU number: a CPU taken offline shifts the lines after it
		for (const m::cpu_times &c : cpus)
			for (const m::cpu_times &p : prev_cpu)
				if (p.id == c.id) {
					r.sys.cpus.push_back(c - p);
					break;
				}
		prev_cpu = std::move(cpus);
		collect_mem(r.sys);
		r.hwinfo = collect_hwinfo(reader.memory_size(), reader.memory_index());
		r.inst = inst;

		if (opt.format == Format::Prometheus) {
			prom.add(cfg, r);
			std::printf("%s\n", prom.text().c_str());
		} else {
			m::report_json(out, cfg, r);
			std::printf("%s\n", out.c_str());
		}
		if (std::fflush(stdout) != 0)
			return 1;
	}
	return 0;
}

} // namespace tools::monitor::vendor
