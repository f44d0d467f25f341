/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// neuron-monitor's vendor mode, the pure parts (vendor_report.cpp; the host
// unit tests link them): the configuration file, what an application's
// NDS slab holds, the per-period deltas of its counters, one report as
// JSON in the documented schema, and the same report as the Prometheus
// companion's metrics.
// vendor.cpp maps the slabs and reads sysfs and /proc into the structs
// below.
#pragma once

#include <neuron/neuron_nds.h>
#include <nrt/nds/nds_latency.h>
#include <nrt/nds/neuron_ds.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tools::monitor {

// ---- configuration --------------------------------------------------------

inline constexpr std::array<std::string_view, 4> kRuntimeMetrics = {
	"neuroncore_counters", "memory_used", "neuron_runtime_vcpu_usage", "execution_stats"
};
inline constexpr std::array<std::string_view, 3> kSystemMetrics = {
	"vcpu_usage", "memory_info", "neuron_hw_counters"
};

struct runtime_group {
	std::string tag_filter = ".*";
	std::regex re{ ".*" };
	std::vector<std::string> metrics;	// in the file's order, unknown ones too
};

struct config {
	double period_s = 5.0;
	std::vector<runtime_group> runtimes;
	std::vector<std::string> system_metrics;
};

// Every group at the default period: what no -c means.
config default_config();

// "5s", "500ms", "1m", "2" (seconds) -> seconds; false when malformed or
// outside 0.1 s .. 1 day.
bool parse_period(std::string_view s, double &out);

// The documented configuration. Malformed JSON, a wrong type for a known
// key or a bad regex or period is an error (false, @err); unknown metric
// types are kept: each report names them in their group's error.
bool parse_config(std::string_view text, config &out, std::string &err);

template <size_t N>
bool known(const std::array<std::string_view, N> &set, std::string_view t)
{
	for (auto s : set)
		if (s == t)
			return true;
	return false;
}

// ---- what one period saw -----------------------------------------------------

using nc_counters = std::array<uint64_t, NEURON_NDS_ID_COUNT>;
using nd_counters = std::array<uint64_t, NEURON_NDS_ND_COUNT>;
using latency_hist = std::array<uint64_t, NDS_LATENCY_BUCKETS>;

// One application: its NDS counters summed over the devices it has slabs on.
struct app_sample {
	int pid = 0;
	std::string tag;			// NEURON_PROCESS_TAG, else the pid
	std::map<int, nc_counters> nc;		// global NeuronCore id -> counters
	nd_counters nd{};
	std::set<int> held;			// global NeuronCore ids it holds
	uint64_t utime = 0, stime = 0;		// clock ticks (/proc/<pid>/stat)
	// the latency histograms (NDS_LATENCY_TOTAL, _DEVICE), summed over the
	// slabs that hold the block; has_latency: at least one did (while it
	// is false, every bucket is 0)
	std::array<latency_hist, NDS_LATENCY_KINDS> latency{};
	bool has_latency = false;
	std::string error;			// what could not be read
};

// @a as a new sample of @pid: what a default one holds, with the memory
// @a had (its strings' room; the histograms are cleared only when they
// hold something).
void reset(app_sample &a, int pid);

// Add what the slab @inst holds to @a: the counters of its @nc_count
// NeuronCores as global ids from @first_nc (those whose bit is set in
// @held_map held), its device counters, its latency histograms where the
// runtime keeps them, and its tag when @a has none yet.
void add_slab(app_sample &a, const nds_instance_t *inst, uint32_t nc_count, int first_nc,
	      uint32_t held_map);

// @cur - @prev per counter; a counter that went down (a new slab) counts from 0.
app_sample delta(const app_sample &cur, const app_sample *prev);

// delta() in place: @d, a copy of the current sample, becomes @d - @prev.
void subtract(app_sample &d, const app_sample *prev);

// delta() into @out, reusing what @out holds (its map nodes, its strings'
// room; the histograms are copied only when either holds one).
void delta_into(app_sample &out, const app_sample &cur, const app_sample *prev);

struct device_hw {
	int index = 0;
	uint64_t mem_ecc_corrected = 0, mem_ecc_uncorrected = 0;
	uint64_t sram_ecc_corrected = 0, sram_ecc_uncorrected = 0;
	// the corrected counts exist (a vendor driver before 2.30.2 has no such files):
	// without them the report says null and no corrected series is kept
	bool corrected_known = true;
	// a simulated device (arch_type NDsim): its series carry simulated="1",
	// so that nothing alerts on them as on hardware
	bool simulated = false;
	// sysfs health, health_reason ("" when the driver has none)
	std::string health, health_reason;
};

struct cpu_times {
	uint64_t user = 0, nice = 0, system = 0, idle = 0, io_wait = 0, irq = 0, soft_irq = 0;
	int id = -1;	// N of /proc/stat's "cpuN" (-1: not one CPU's)
	uint64_t total() const { return user + nice + system + idle + io_wait + irq + soft_irq; }
	cpu_times &operator+=(const cpu_times &o)
	{
		user += o.user;
		nice += o.nice;
		system += o.system;
		idle += o.idle;
		io_wait += o.io_wait;
		irq += o.irq;
		soft_irq += o.soft_irq;
		return *this;
	}
	// the ticks from @o to this one; a count that went down (proc(5): iowait
	// can) moved by 0
	cpu_times operator-(const cpu_times &o) const
	{
		auto sub = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
		cpu_times d;
		d.user = sub(user, o.user);
		d.nice = sub(nice, o.nice);
		d.system = sub(system, o.system);
		d.idle = sub(idle, o.idle);
		d.io_wait = sub(io_wait, o.io_wait);
		d.irq = sub(irq, o.irq);
		d.soft_irq = sub(soft_irq, o.soft_irq);
		d.id = id;
		return d;
	}
};

struct system_sample {
	std::vector<device_hw> hw;		// per-period deltas
	std::string hw_error;
	uint64_t mem_total = 0, mem_used = 0, swap_total = 0, swap_used = 0;
	std::string mem_error;
	std::vector<cpu_times> cpus;		// per-period deltas
	std::string cpu_error;
	long ticks_per_s = 100;
};

struct hardware_info {
	std::string device_type, device_version, neuroncore_version;
	int device_count = 0;
	uint64_t device_memory_size = 0;
	int nc_per_device = 0;
	std::string error;
};

struct instance_info {
	std::string name, id, type, az, az_id, region, ami_id, subnet_id;
	std::string error;
};

struct report {
	double period_s = 0;
	std::vector<std::pair<const runtime_group *, app_sample>> apps;	// deltas
	system_sample sys;
	hardware_info hwinfo;
	instance_info inst;
};

// ---- JSON ------------------------------------------------------------------

std::string num(double v);

// The percentiles a latency object reports, their keys and ranks (percent).
inline constexpr std::array<unsigned, 7> kLatencyPercentiles = NDS_LATENCY_PERCENTILES;

// Percentile key "p<q>" -> seconds of @h; empty when @h counts nothing.
std::vector<std::pair<std::string, double>> latency_percentiles(const latency_hist &h);

// One latency_stats entry: {"p0": s, ..., "p100": s}, or null when no
// execution finished in the period.
std::string latency_json(const latency_hist &h);

std::string runtime_json(const runtime_group &g, const app_sample &a, double period);

std::string cpu_json(const cpu_times &c);

std::string system_json(const std::vector<std::string> &metrics, const system_sample &s,
			double period);

// One complete report: one line of JSON.
std::string report_json(const config &c, const report &r);
// The same into @out (what it held goes, its room stays).
void report_json(std::string &out, const config &c, const report &r);

// ---- Prometheus: the companion's metric names and labels -----------------

// Counters accumulate the reports' per-period values; gauges are the last
// report's. A runtime tag's counters go once no application has had the
// tag for kKeepReports reports (a tag is a pid unless the application set
// one: on a host of short jobs they would otherwise pile up for as long as
// the monitor runs); a tag seen again starts from 0, a counter reset to
// Prometheus.
class prometheus {
public:
	static constexpr uint64_t kKeepReports = 120;

	void add(const config &c, const report &r);

	// the last report's health of each device (a gauge, not the companion's)
	static void health_series(std::ostringstream &o, const std::string &inst, const report &r);

	std::string text() const;

private:
	const report *last_ = nullptr;
	std::map<std::string, std::map<std::string, uint64_t>> errors_, status_;
	std::map<std::string, uint64_t> seen_;	// tag -> the last report (reports_) it was in
	uint64_t reports_ = 0;
	std::map<int, std::map<std::string, uint64_t>> ecc_;
	std::map<int, bool> sim_;	// device index -> simulated

	static std::string q(const std::string &v);
	static void head(std::ostringstream &o, const char *name, const char *help, const char *type);
};

} // namespace tools::monitor
