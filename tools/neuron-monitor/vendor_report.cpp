// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The vendor report's pure parts (vendor_report.hpp): configuration,
// deltas, the JSON report and the Prometheus text.
#include "vendor_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "common/json.hpp"

namespace tools::monitor {

config default_config()
{
	config c;
	runtime_group g;
	for (auto m : kRuntimeMetrics)
		g.metrics.emplace_back(m);
	c.runtimes.push_back(std::move(g));
	for (auto m : kSystemMetrics)
		c.system_metrics.emplace_back(m);
	return c;
}

bool parse_period(std::string_view s, double &out)
{
	size_t i = 0;
	while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
		i++;
	if (i == 0)
		return false;
	char *end = nullptr;
	std::string num(s.substr(0, i));
	double v = std::strtod(num.c_str(), &end);
	if (!end || *end)
		return false;
	std::string_view unit = s.substr(i);
	if (unit == "ms")
		v /= 1000.0;
	else if (unit == "m")
		v *= 60.0;
	else if (unit == "h")
		v *= 3600.0;
	else if (!unit.empty() && unit != "s")
		return false;
	if (!(v >= 0.1 && v <= 86400.0))
		return false;
	out = v;
	return true;
}

bool parse_config(std::string_view text, config &out, std::string &err)
{
	json::value doc;
	json::parser p(text);
	if (!p.parse(doc)) {
		err = "not JSON: " + p.error();
		return false;
	}
	if (!doc.is_object()) {
		err = "the configuration must be a JSON object";
		return false;
	}
	config c;
	if (const json::value *per = doc.get("period")) {
		if (!per->is_string() || !parse_period(per->str, c.period_s)) {
			err = "\"period\" must be a string like \"5s\" or \"500ms\" (0.1 s .. 1 day)";
			return false;
		}
	}
	if (const json::value *rts = doc.get("neuron_runtimes")) {
		if (!rts->is_array()) {
			err = "\"neuron_runtimes\" must be an array";
			return false;
		}
		for (const json::value &g : rts->arr) {
			if (!g.is_object()) {
				err = "each \"neuron_runtimes\" entry must be an object";
				return false;
			}
			runtime_group rg;
			if (const json::value *tf = g.get("tag_filter")) {
				if (!tf->is_string()) {
					err = "\"tag_filter\" must be a string";
					return false;
				}
				rg.tag_filter = tf->str;
				try {
					rg.re = std::regex(tf->str);
				} catch (const std::regex_error &) {
					err = "\"tag_filter\" is not a regular expression: " + tf->str;
					return false;
				}
			}
			const json::value *ms = g.get("metrics");
			if (ms && !ms->is_array()) {
				err = "\"metrics\" must be an array";
				return false;
			}
			for (const json::value &m : ms ? ms->arr : std::vector<json::value>{}) {
				const json::value *t = m.get("type");
				if (!t || !t->is_string()) {
					err = "each metric needs a string \"type\"";
					return false;
				}
				rg.metrics.push_back(t->str);
			}
			c.runtimes.push_back(std::move(rg));
		}
	}
	if (const json::value *sm = doc.get("system_metrics")) {
		if (!sm->is_array()) {
			err = "\"system_metrics\" must be an array";
			return false;
		}
		for (const json::value &m : sm->arr) {
			const json::value *t = m.get("type");
			if (!t || !t->is_string()) {
				err = "each metric needs a string \"type\"";
				return false;
			}
			if (const json::value *mp = m.get("period")) {
				double ignored;
				if (!mp->is_string() || !parse_period(mp->str, ignored)) {
					err = "a metric's \"period\" must be a string like \"2s\"";
					return false;
				}
			}
			c.system_metrics.push_back(t->str);
		}
	}
	out = std::move(c);
	return true;
}

app_sample delta(const app_sample &cur, const app_sample *prev)
{
	app_sample d = cur;
	if (!prev)
		return d;
	auto sub = [](uint64_t a, uint64_t b) { return a >= b ? a - b : a; };
	for (auto &[nc, ctr] : d.nc) {
		auto it = prev->nc.find(nc);
		if (it == prev->nc.end())
			continue;
		for (size_t i = 0; i < ctr.size(); i++)
			ctr[i] = sub(cur.nc.at(nc)[i], it->second[i]);
	}
	// ND memory counters are levels, not counts: kept as they are
	for (size_t k = 0; k < d.latency.size(); k++)
		nds_latency_delta(cur.latency[k].data(),
				  prev->has_latency ? prev->latency[k].data() : nullptr,
				  d.latency[k].data());
	d.utime = sub(cur.utime, prev->utime);
	d.stime = sub(cur.stime, prev->stime);
	return d;
}

std::string num(double v)
{
	char b[64];
	std::snprintf(b, sizeof(b), "%.6g", std::isfinite(v) ? v : 0.0);
	return b;
}

std::vector<std::pair<std::string, double>> latency_percentiles(const latency_hist &h)
{
	std::vector<std::pair<std::string, double>> out;
	for (unsigned q : kLatencyPercentiles) {
		uint64_t ns;
		if (!nds_latency_percentile(h.data(), q, &ns))
			return {};
		out.emplace_back("p" + std::to_string(q), static_cast<double>(ns) / 1e9);
	}
	return out;
}

std::string latency_json(const latency_hist &h)
{
	auto ps = latency_percentiles(h);
	if (ps.empty())
		return "null";
	std::string o = "{";
	for (size_t i = 0; i < ps.size(); i++)
		o += (i ? ", \"" : "\"") + ps[i].first + "\": " + num(ps[i].second);
	return o + "}";
}

std::string runtime_json(const runtime_group &g, const app_sample &a, double period)
{
	using json::quote;
	std::ostringstream o;
	auto sum = [&](uint32_t id) {
		uint64_t s = 0;
		for (const auto &[nc, c] : a.nc)
			s += c[id];
		return s;
	};
	o << "{\"pid\": " << a.pid << ", \"address\": \"\", \"neuron_runtime_tag\": " << quote(a.tag)
	  << ", \"error\": " << quote(a.error) << ", \"report\": {";
	bool first = true;
	for (const std::string &m : g.metrics) {
		o << (first ? "" : ", ") << quote(m) << ": ";
		first = false;
		if (m == "execution_stats") {
			o << "{\"period\": " << num(period) << ", \"error_summary\": {"
			  << "\"generic\": " << sum(NDS_NC_COUNTER_ERR_GENERIC)
			  << ", \"numerical\": " << sum(NDS_NC_COUNTER_ERR_NUMERICAL)
			  << ", \"transient\": " << sum(NDS_NC_COUNTER_ERR_TRANSIENT)
			  << ", \"model\": " << sum(NDS_NC_COUNTER_ERR_MODEL)
			  << ", \"runtime\": " << sum(NDS_NC_COUNTER_ERR_RT)
			  << ", \"hardware\": " << sum(NDS_NC_COUNTER_ERR_HW) << "}, \"execution_summary\": {"
			  << "\"completed\": " << sum(NDS_NC_COUNTER_INFER_COMPLETED)
			  << ", \"completed_with_err\": " << sum(NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR)
			  << ", \"completed_with_num_err\": " << sum(NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR)
			  << ", \"timed_out\": " << sum(NDS_NC_COUNTER_INFER_TIMED_OUT)
			  << ", \"incorrect_input\": " << sum(NDS_NC_COUNTER_INFER_INCORRECT_INPUT)
			  << ", \"failed_to_queue\": " << sum(NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE)
			  << "}, \"latency_stats\": {\"total_latency\": "
			  << latency_json(a.latency[NDS_LATENCY_TOTAL])
			  << ", \"device_latency\": " << latency_json(a.latency[NDS_LATENCY_DEVICE]) << "}"
			  << ", \"error\": \"\"}";
		} else if (m == "memory_used") {
			uint64_t host = 0, dev = 0;
			for (uint32_t id = NDS_ND_COUNTER_MEM_USAGE_CODE_HOST;
			     id <= NDS_ND_COUNTER_MEM_USAGE_MISC_HOST; id++)
				host += a.nd[id];
			std::ostringstream per;
			bool f2 = true;
			for (const auto &[nc, c] : a.nc) {
				uint64_t code = c[NDS_NC_COUNTER_MEM_USAGE_CODE_DEVICE];
				uint64_t tens = c[NDS_NC_COUNTER_MEM_USAGE_TENSORS_DEVICE];
				uint64_t cons = c[NDS_NC_COUNTER_MEM_USAGE_CONSTANTS_DEVICE];
				uint64_t scr = c[NDS_NC_COUNTER_MEM_USAGE_SCRATCHPAD_DEVICE];
				uint64_t misc = c[NDS_NC_COUNTER_MEM_USAGE_MISC_DEVICE];
				dev += code + tens + cons + scr + misc;
				per << (f2 ? "" : ", ") << "\"" << nc << "\": {\"constants\": " << cons
				    << ", \"model_code\": " << code << ", \"model_shared_scratchpad\": " << scr
				    << ", \"runtime_memory\": " << misc << ", \"tensors\": " << tens << "}";
				f2 = false;
			}
			o << "{\"period\": " << num(period) << ", \"neuron_runtime_used_bytes\": {\"host\": "
			  << host << ", \"neuron_device\": " << dev
			  << ", \"usage_breakdown\": {\"neuroncore_memory_usage\": {" << per.str()
			  << "}}}, \"error\": \"\"}";
		} else if (m == "neuroncore_counters") {
			std::ostringstream per;
			bool f2 = true;
			for (int nc : a.held) {
				auto it = a.nc.find(nc);
				uint64_t busy_us = it == a.nc.end() ? 0 : it->second[NDS_NC_COUNTER_NC_TIME];
				uint64_t macs = it == a.nc.end() ? 0 : it->second[NDS_NC_COUNTER_MAC_COUNT];
				double util = period > 0 ? 100.0 * static_cast<double>(busy_us) / (period * 1e6) : 0;
				per << (f2 ? "" : ", ") << "\"" << nc << "\": {\"neuroncore_utilization\": "
				    << num(std::min(util, 100.0)) << ", \"flops\": "
				    << num(period > 0 ? 2.0 * static_cast<double>(macs) / period : 0) << "}";
				f2 = false;
			}
			o << "{\"period\": " << num(period) << ", \"neuroncores_in_use\": {" << per.str()
			  << "}, \"error\": \"\"}";
		} else if (m == "neuron_runtime_vcpu_usage") {
			double t = period * 100.0;	// ticks at 100 Hz over the period
			o << "{\"period\": " << num(period) << ", \"vcpu_usage\": {\"user\": "
			  << num(t > 0 ? 100.0 * static_cast<double>(a.utime) / t : 0) << ", \"system\": "
			  << num(t > 0 ? 100.0 * static_cast<double>(a.stime) / t : 0) << "}, \"error\": \"\"}";
		} else {
			o << "{\"error\": " << quote("unknown metric type: " + m) << "}";
		}
	}
	o << "}}";
	return o.str();
}

std::string cpu_json(const cpu_times &c)
{
	double t = static_cast<double>(c.total());
	auto pct = [&](uint64_t v) { return num(t > 0 ? 100.0 * static_cast<double>(v) / t : 0); };
	return "{\"user\": " + pct(c.user) + ", \"nice\": " + pct(c.nice) + ", \"system\": " +
	       pct(c.system) + ", \"idle\": " + pct(c.idle) + ", \"io_wait\": " + pct(c.io_wait) +
	       ", \"irq\": " + pct(c.irq) + ", \"soft_irq\": " + pct(c.soft_irq) + "}";
}

std::string system_json(const std::vector<std::string> &metrics, const system_sample &s,
			double period)
{
	using json::quote;
	std::ostringstream o;
	o << "{";
	bool first = true;
	for (const std::string &m : metrics) {
		o << (first ? "" : ", ") << quote(m) << ": ";
		first = false;
		if (m == "neuron_hw_counters") {
			o << "{\"period\": " << num(period) << ", \"neuron_devices\": [";
			for (size_t i = 0; i < s.hw.size(); i++) {
				const device_hw &h = s.hw[i];
				o << (i ? ", " : "") << "{\"neuron_device_index\": " << h.index
				  << ", \"mem_ecc_corrected\": "
				  << (h.corrected_known ? std::to_string(h.mem_ecc_corrected) : "null")
				  << ", \"mem_ecc_uncorrected\": " << h.mem_ecc_uncorrected
				  << ", \"sram_ecc_corrected\": "
				  << (h.corrected_known ? std::to_string(h.sram_ecc_corrected) : "null")
				  << ", \"sram_ecc_uncorrected\": " << h.sram_ecc_uncorrected << "}";
			}
			o << "], \"error\": " << quote(s.hw_error) << "}";
		} else if (m == "memory_info") {
			o << "{\"period\": " << num(period) << ", \"memory_total_bytes\": " << s.mem_total
			  << ", \"memory_used_bytes\": " << s.mem_used
			  << ", \"swap_total_bytes\": " << s.swap_total
			  << ", \"swap_used_bytes\": " << s.swap_used << ", \"error\": " << quote(s.mem_error)
			  << "}";
		} else if (m == "vcpu_usage") {
			cpu_times avg;
			o << "{\"period\": " << num(period) << ", \"usage_data\": {";
			for (size_t i = 0; i < s.cpus.size(); i++) {
				const cpu_times &c = s.cpus[i];
				o << (i ? ", " : "") << "\"" << i << "\": " << cpu_json(c);
				avg += c;
			}
			o << "}, \"average_usage\": " << cpu_json(avg) << ", \"error\": " << quote(s.cpu_error)
			  << "}";
		} else {
			o << "{\"error\": " << quote("unknown metric type: " + m) << "}";
		}
	}
	o << "}";
	return o.str();
}

std::string report_json(const config &c, const report &r)
{
	using json::quote;
	std::ostringstream o;
	o << "{\"neuron_runtime_data\": [";
	for (size_t i = 0; i < r.apps.size(); i++)
		o << (i ? ", " : "") << runtime_json(*r.apps[i].first, r.apps[i].second, r.period_s);
	o << "], \"system_data\": " << system_json(c.system_metrics, r.sys, r.period_s)
	  << ", \"instance_info\": {\"instance_name\": " << quote(r.inst.name)
	  << ", \"instance_id\": " << quote(r.inst.id) << ", \"instance_type\": " << quote(r.inst.type)
	  << ", \"instance_availability_zone\": " << quote(r.inst.az)
	  << ", \"instance_availability_zone_id\": " << quote(r.inst.az_id)
	  << ", \"instance_region\": " << quote(r.inst.region) << ", \"ami_id\": " << quote(r.inst.ami_id)
	  << ", \"subnet_id\": " << quote(r.inst.subnet_id) << ", \"error\": " << quote(r.inst.error)
	  << "}, \"neuron_hardware_info\": {\"neuron_device_type\": " << quote(r.hwinfo.device_type)
	  << ", \"neuron_device_version\": " << quote(r.hwinfo.device_version)
	  << ", \"neuroncore_version\": " << quote(r.hwinfo.neuroncore_version)
	  << ", \"neuron_device_count\": " << r.hwinfo.device_count
	  << ", \"neuron_device_memory_size\": " << r.hwinfo.device_memory_size
	  << ", \"neuroncore_per_device_count\": " << r.hwinfo.nc_per_device
	  << ", \"logical_neuroncore_config\": 1, \"error\": " << quote(r.hwinfo.error) << "}}";
	return o.str();
}

void prometheus::add(const config &c, const report &r)
{
	(void)c;
	last_ = &r;
	for (const auto &[g, a] : r.apps) {
		auto &e = errors_[a.tag];
		auto &s = status_[a.tag];
		auto sum = [&](uint32_t id) {
			uint64_t v = 0;
			for (const auto &[nc, ctr] : a.nc)
				v += ctr[id];
			return v;
		};
		e["generic"] += sum(NDS_NC_COUNTER_ERR_GENERIC);
		e["numerical"] += sum(NDS_NC_COUNTER_ERR_NUMERICAL);
		e["transient"] += sum(NDS_NC_COUNTER_ERR_TRANSIENT);
		e["model"] += sum(NDS_NC_COUNTER_ERR_MODEL);
		e["runtime"] += sum(NDS_NC_COUNTER_ERR_RT);
		e["hardware"] += sum(NDS_NC_COUNTER_ERR_HW);
		s["completed"] += sum(NDS_NC_COUNTER_INFER_COMPLETED);
		s["completed_with_err"] += sum(NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR);
		s["completed_with_num_err"] += sum(NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR);
		s["timed_out"] += sum(NDS_NC_COUNTER_INFER_TIMED_OUT);
		s["incorrect_input"] += sum(NDS_NC_COUNTER_INFER_INCORRECT_INPUT);
		s["failed_to_queue"] += sum(NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE);
	}
	for (const device_hw &h : r.sys.hw) {
		sim_[h.index] = h.simulated;
		auto &e = ecc_[h.index];
		if (h.corrected_known) {
			e["mem_ecc_corrected"] += h.mem_ecc_corrected;
			e["sram_ecc_corrected"] += h.sram_ecc_corrected;
		}
		e["mem_ecc_uncorrected"] += h.mem_ecc_uncorrected;
		e["sram_ecc_uncorrected"] += h.sram_ecc_uncorrected;
	}
}

void prometheus::health_series(std::ostringstream &o, const std::string &inst, const report &r)
{
	head(o, "neuron_device_health",
	     "Health of the Neuron device: 1 on its current state and reason", "gauge");
	for (const device_hw &h : r.sys.hw)
		if (!h.health.empty())
			o << "neuron_device_health{" << inst << ",neuron_device_index=\"" << h.index
			  << "\",state=" << q(h.health) << ",reason=" << q(h.health_reason)
			  << (h.simulated ? ",simulated=\"1\"" : "") << "} 1\n";
}

std::string prometheus::text() const
{
	std::ostringstream o;
	if (!last_)
		return "";
	const report &r = *last_;
	std::string inst = "instance_name=" + q(r.inst.name) + ",instance_id=" + q(r.inst.id) +
			   ",instance_type=" + q(r.inst.type) + ",availability_zone=" +
			   q(r.inst.az) + ",region=" + q(r.inst.region) + ",subnet_id=" +
			   q(r.inst.subnet_id);
	head(o, "instance_info", "EC2 instance information", "gauge");
	o << "instance_info{" << inst << "} 1\n";
	head(o, "neuron_hardware_info", "Neuron hardware information", "gauge");
	o << "neuron_hardware_info{" << inst << ",neuron_device_type=" << q(r.hwinfo.device_type)
	  << ",neuroncore_version=" << q(r.hwinfo.neuroncore_version)
	  << ",neuron_device_count=\"" << r.hwinfo.device_count
	  << "\",neuroncore_per_device_count=\"" << r.hwinfo.nc_per_device << "\"} 1\n";
	head(o, "execution_errors_total", "Execution errors by type", "counter");
	for (const auto &[tag, m] : errors_)
		for (const auto &[t, v] : m)
			o << "execution_errors_total{" << inst << ",runtime_tag=" << q(tag)
			  << ",error_type=\"" << t << "\"} " << v << "\n";
	head(o, "execution_status_total", "Executions by status", "counter");
	for (const auto &[tag, m] : status_)
		for (const auto &[t, v] : m)
			o << "execution_status_total{" << inst << ",runtime_tag=" << q(tag)
			  << ",status_type=\"" << t << "\"} " << v << "\n";
	head(o, "execution_latency_seconds", "Execution latency percentiles over the period",
	     "gauge");
	for (const auto &[g, a] : r.apps)
		for (const auto &[key, sec] : latency_percentiles(a.latency[NDS_LATENCY_TOTAL]))
			o << "execution_latency_seconds{" << inst << ",runtime_tag=" << q(a.tag)
			  << ",percentile=\"" << key << "\"} " << num(sec) << "\n";
	head(o, "neuroncore_utilization_ratio", "NeuronCore utilization", "gauge");
	for (const auto &[g, a] : r.apps) {
		for (int nc : a.held) {
			auto it = a.nc.find(nc);
			uint64_t us = it == a.nc.end() ? 0 : it->second[NDS_NC_COUNTER_NC_TIME];
			double ratio = r.period_s > 0 ? static_cast<double>(us) / (r.period_s * 1e6) : 0;
			o << "neuroncore_utilization_ratio{" << inst << ",runtime_tag=" << q(a.tag)
			  << ",neuroncore=\"" << nc << "\"} " << num(std::min(ratio, 1.0)) << "\n";
		}
	}
	head(o, "neuron_runtime_memory_used_bytes", "Runtime memory in use", "gauge");
	for (const auto &[g, a] : r.apps) {
		uint64_t host = 0, dev = 0;
		for (uint32_t id = NDS_ND_COUNTER_MEM_USAGE_CODE_HOST;
		     id <= NDS_ND_COUNTER_MEM_USAGE_MISC_HOST; id++)
			host += a.nd[id];
		for (const auto &[nc, c] : a.nc)
			for (uint32_t id = NDS_NC_COUNTER_MEM_USAGE_CODE_DEVICE;
			     id <= NDS_NC_COUNTER_MEM_USAGE_MISC_DEVICE; id++)
				dev += c[id];
		o << "neuron_runtime_memory_used_bytes{" << inst << ",runtime_tag=" << q(a.tag)
		  << ",memory_location=\"host\"} " << host << "\n";
		o << "neuron_runtime_memory_used_bytes{" << inst << ",runtime_tag=" << q(a.tag)
		  << ",memory_location=\"neuron_device\"} " << dev << "\n";
	}
	// per NeuronCore and kind, as memory_used's usage_breakdown (the
	// companion labels these memory_location="None")
	const std::pair<const char *, uint32_t> kinds_mem[] = {
		{ "constants", NDS_NC_COUNTER_MEM_USAGE_CONSTANTS_DEVICE },
		{ "model_code", NDS_NC_COUNTER_MEM_USAGE_CODE_DEVICE },
		{ "model_shared_scratchpad", NDS_NC_COUNTER_MEM_USAGE_SCRATCHPAD_DEVICE },
		{ "runtime_memory", NDS_NC_COUNTER_MEM_USAGE_MISC_DEVICE },
		{ "tensors", NDS_NC_COUNTER_MEM_USAGE_TENSORS_DEVICE },
	};
	for (const auto &[kind, id] : kinds_mem) {
		std::string name = std::string("neuroncore_memory_usage_") + kind;
		head(o, name.c_str(), "NeuronCore memory in use by kind", "gauge");
		for (const auto &[g, a] : r.apps)
			for (const auto &[nc, c] : a.nc)
				o << name << "{" << inst << ",runtime_tag=" << q(a.tag)
				  << ",neuroncore=\"" << nc << "\",memory_location=\"None\"} " << c[id]
				  << "\n";
	}
	head(o, "neuron_runtime_vcpu_usage_ratio", "vCPU usage of the runtime", "gauge");
	for (const auto &[g, a] : r.apps) {
		// the report's neuron_runtime_vcpu_usage percentages, as ratios
		double t = r.period_s * 100.0;
		const std::pair<const char *, uint64_t> use[] = { { "user", a.utime },
								  { "system", a.stime } };
		for (const auto &[k, ticks] : use)
			o << "neuron_runtime_vcpu_usage_ratio{" << inst << ",runtime_tag=" << q(a.tag)
			  << ",usage_type=\"" << k << "\"} "
			  << num(t > 0 ? static_cast<double>(ticks) / t : 0) << "\n";
	}
	head(o, "hardware_ecc_events_total", "Hardware ECC events", "counter");
	for (const auto &[idx, m] : ecc_)
		for (const auto &[t, v] : m)
			o << "hardware_ecc_events_total{" << inst << ",event_type=\"" << t
			  << "\",neuron_device_index=\"" << idx << "\""
			  << (sim_.count(idx) && sim_.at(idx) ? ",simulated=\"1\"" : "") << "} " << v
			  << "\n";
	health_series(o, inst, r);
	head(o, "system_memory_total_bytes", "System memory", "gauge");
	o << "system_memory_total_bytes{" << inst << "} " << r.sys.mem_total << "\n";
	head(o, "system_memory_used_bytes", "System memory in use", "gauge");
	o << "system_memory_used_bytes{" << inst << "} " << r.sys.mem_used << "\n";
	head(o, "system_swap_total_bytes", "Swap", "gauge");
	o << "system_swap_total_bytes{" << inst << "} " << r.sys.swap_total << "\n";
	head(o, "system_swap_used_bytes", "Swap in use", "gauge");
	o << "system_swap_used_bytes{" << inst << "} " << r.sys.swap_used << "\n";
	head(o, "system_vcpu_count", "vCPUs", "gauge");
	o << "system_vcpu_count{" << inst << "} " << r.sys.cpus.size() << "\n";
	cpu_times avg;
	for (const cpu_times &c : r.sys.cpus)
		avg += c;
	// as the companion folds average_usage: user = user + nice, system =
	// system + io_wait + irq + soft_irq, each in percent capped at 100,
	// then as a ratio
	double t = static_cast<double>(avg.total());
	auto ratio = [&](uint64_t v) {
		double pct = t > 0 ? 100.0 * static_cast<double>(v) / t : 0;
		return num(std::min(pct, 100.0) / 100.0);
	};
	head(o, "system_vcpu_usage_ratio", "vCPU usage", "gauge");
	const std::pair<const char *, uint64_t> kinds[] = {
		{ "user", avg.user + avg.nice },
		{ "system", avg.system + avg.io_wait + avg.irq + avg.soft_irq },
	};
	for (const auto &[k, v] : kinds)
		o << "system_vcpu_usage_ratio{" << inst << ",usage_type=\"" << k << "\"} "
		  << ratio(v) << "\n";
	return o.str();
}

std::string prometheus::q(const std::string &v)
{
	std::string o = "\"";
	for (char c : v) {
		if (c == '\\' || c == '"')
			o += '\\';
		if (c == '\n') {
			o += "\\n";
			continue;
		}
		o += c;
	}
	return o + "\"";
}

void prometheus::head(std::ostringstream &o, const char *name, const char *help, const char *type)
{
	o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

} // namespace tools::monitor
