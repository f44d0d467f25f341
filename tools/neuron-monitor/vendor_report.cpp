// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The vendor report's pure parts (vendor_report.hpp): configuration,
// deltas, the JSON report and the Prometheus text.
#include "vendor_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

void add_slab(app_sample &a, const nds_instance_t *inst, uint32_t nc_count, int first_nc,
	      uint32_t held_map)
{
	// the counters straight from the mapping (<neuron/neuron_nds.h>'s
	// layout), each a relaxed 64-bit load as nds_get_nc_counter() makes it
	const auto *base = static_cast<const unsigned char *>(nds_raw_slab(inst));
	auto load = [base](int64_t off) {
		return __atomic_load_n(reinterpret_cast<const uint64_t *>(base + off), __ATOMIC_RELAXED);
	};
	char tag[NDS_PROCESS_TAG_MAX + 1];
	if (a.tag.empty() && nds_get_process_tag(inst, tag, sizeof(tag)) > 0)
		a.tag = tag;
	// a NeuronCore's ids are one run of words (past the original sections)
	// or two (the original ids, then the EXT ones)
	static_assert(NEURON_NDS_NC_COUNT + NEURON_NDS_EXT_COUNT == NEURON_NDS_ID_COUNT &&
			      NEURON_NDS_XNC_SLOTS >= NEURON_NDS_ID_COUNT,
		      "the layout's runs of ids");
	auto add_run = [&load](uint64_t *c, int64_t off, uint32_t n) {
		for (uint32_t i = 0; i < n; i++)
			c[i] += load(off + 8 * int64_t{ i });
	};
	for (uint32_t nc = 0; nc < nc_count; nc++) {
		nc_counters &c = a.nc[first_nc + static_cast<int>(nc)];
		if (nc < NEURON_NDS_NC_BASE_COUNT) {
			add_run(c.data(), neuron_nds_nc_offset(nc, 0), NEURON_NDS_NC_COUNT);
			add_run(c.data() + NEURON_NDS_NC_COUNT, neuron_nds_nc_offset(nc, NEURON_NDS_NC_COUNT),
				NEURON_NDS_EXT_COUNT);
		} else if (nc < NEURON_NDS_MAX_NC) {
			add_run(c.data(), neuron_nds_nc_offset(nc, 0), NEURON_NDS_ID_COUNT);
		}
		if (held_map & (1u << nc))
			a.held.insert(first_nc + static_cast<int>(nc));
	}
	for (uint32_t id = 0; id < NEURON_NDS_ND_COUNT; id++)
		a.nd[id] += load(neuron_nds_nd_offset(id));
	// the latency histograms, where the runtime keeps them: the first
	// slab's copied in, a later one's added
	const bool first = !a.has_latency;
	for (unsigned kind = 0; kind < NDS_LATENCY_KINDS; kind++) {
		latency_hist h;
		if (nds_get_latency(inst, kind, first ? a.latency[kind].data() : h.data()) != 0)
			break;
		a.has_latency = true;
		if (!first)
			for (size_t b = 0; b < h.size(); b++)
				a.latency[kind][b] += h[b];
	}
}

void reset(app_sample &a, int pid)
{
	a.pid = pid;
	a.tag.clear();
	a.nc.clear();
	a.nd = {};
	a.held.clear();
	a.utime = a.stime = 0;
	if (a.has_latency)
		a.latency = {};
	a.has_latency = false;
	a.error.clear();
}

void delta_into(app_sample &out, const app_sample &cur, const app_sample *prev)
{
	out.pid = cur.pid;
	out.tag = cur.tag;
	out.nc = cur.nc;	// (a map's copy assignment reuses its nodes)
	out.nd = cur.nd;
	out.held = cur.held;
	out.utime = cur.utime;
	out.stime = cur.stime;
	// while has_latency is false the buckets are 0: nothing to copy
	if (cur.has_latency || out.has_latency)
		out.latency = cur.latency;
	out.has_latency = cur.has_latency;
	out.error = cur.error;
	subtract(out, prev);
}

app_sample delta(const app_sample &cur, const app_sample *prev)
{
	app_sample d;
	delta_into(d, cur, prev);
	return d;
}

void subtract(app_sample &d, const app_sample *prev)
{
	if (!prev)
		return;
	auto sub = [](uint64_t a, uint64_t b) { return a >= b ? a - b : a; };
	for (auto &[nc, ctr] : d.nc) {
		auto it = prev->nc.find(nc);
		if (it == prev->nc.end())
			continue;
		for (size_t i = 0; i < ctr.size(); i++)
			ctr[i] = sub(ctr[i], it->second[i]);
	}
	// ND memory counters are levels, not counts: kept as they are
	// the histograms: nds_latency_delta() in one pass where no bucket went
	// down (a second one puts a new slab's counts back)
	// (without a block of its own, @d's buckets are 0 and stay so)
	for (size_t k = 0; d.has_latency && prev->has_latency && k < d.latency.size(); k++) {
		latency_hist &h = d.latency[k];
		const latency_hist &p = prev->latency[k];
		bool down = false;
		for (size_t b = 0; b < h.size(); b++) {
			down |= h[b] < p[b];
			h[b] -= p[b];
		}
		if (down)
			for (size_t b = 0; b < h.size(); b++)
				h[b] += p[b];
	}
	d.utime = sub(d.utime, prev->utime);
	d.stime = sub(d.stime, prev->stime);
}

namespace {

// The report's text: one buffer grows through a report, no stream and no
// temporary string per value.

// num(@v) into @b (64 bytes at least), its length: "%.6g", which prints a
// whole number below 10^6 as its digits
size_t num_chars(char *b, double v)
{
	if (!std::isfinite(v))
		v = 0.0;
	if (v == std::trunc(v) && std::fabs(v) < 1e6 && !(v == 0 && std::signbit(v)))
		return static_cast<size_t>(std::to_chars(b, b + 16, static_cast<int>(v)).ptr - b);
	return static_cast<size_t>(std::snprintf(b, 64, "%.6g", v));
}

// json::quote(@s) is @s in quotes: printable ASCII without '"' and '\'
bool plain(std::string_view s)
{
	for (char ch : s) {
		auto c = static_cast<unsigned char>(ch);
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return false;
	}
	return true;
}

// A staging buffer in front of @o: literals and numbers are copied into
// it inline and it goes to @o in a few appends, where each piece appended
// to @o on its own would be a call (an application's text is the bulk of
// a report). What is staged reaches @o at flush(), which its user calls at
// the end (a destructor that appends could throw).
class sink {
public:
	explicit sink(std::string &o) : o_(o) {}
	sink(const sink &) = delete;
	sink &operator=(const sink &) = delete;

	void flush()
	{
		o_.append(buf_, n_);
		n_ = 0;
	}

	[[gnu::always_inline]] void raw(const char *s, size_t len)
	{
		if (len > sizeof(buf_) - n_) {
			raw_flushed(s, len);
			return;
		}
		std::memcpy(buf_ + n_, s, len);	// (a literal's: a few moves)
		n_ += len;
	}

	// @s, a string literal, its length known where it is written
	template <size_t N> [[gnu::always_inline]] void lit(const char (&s)[N]) { raw(s, N - 1); }

	void str(std::string_view s) { raw(s.data(), s.size()); }

	void ch(char c)
	{
		if (n_ == sizeof(buf_))
			flush();
		buf_[n_++] = c;
	}

	template <typename T> void integer(T v)
	{
		if (sizeof(buf_) - n_ < 24)
			flush();
		n_ = static_cast<size_t>(std::to_chars(buf_ + n_, buf_ + sizeof(buf_), v).ptr - buf_);
	}

	// num(@v)
	void number(double v)
	{
		if (sizeof(buf_) - n_ < 64)
			flush();
		n_ += num_chars(buf_ + n_, v);
	}

	// json::quote(@s)
	void quoted(std::string_view s)
	{
		if (!plain(s)) {
			str(json::quote(s));
			return;
		}
		ch('"');
		str(s);
		ch('"');
	}

private:
	// raw() where @len does not fit
	[[gnu::noinline]] void raw_flushed(const char *s, size_t len)
	{
		flush();
		if (len > sizeof(buf_)) {
			o_.append(s, len);
			return;
		}
		std::memcpy(buf_, s, len);
		n_ = len;
	}

	std::string &o_;
	size_t n_ = 0;
	char buf_[512];
};

void put_latency(sink &o, const latency_hist &h)
{
	if (nds_latency_count(h.data()) == 0) {
		o.lit("null");
		return;
	}
	o.ch('{');
	bool first = true;
	for (unsigned q : kLatencyPercentiles) {
		uint64_t ns = 0;
		nds_latency_percentile(h.data(), q, &ns);
		if (!first)
			o.lit(", ");
		first = false;
		o.lit("\"p");
		o.integer(q);
		o.lit("\": ");
		o.number(static_cast<double>(ns) / 1e9);
	}
	o.ch('}');
}

void put_latency(std::string &o, const latency_hist &h)
{
	sink w(o);
	put_latency(w, h);
	w.flush();
}

// runtime_json() into @o; @per: num(@period)
void put_runtime(sink &o, const runtime_group &g, const app_sample &a, double period,
		 std::string_view per)
{
	auto sum = [&](uint32_t id) {
		uint64_t s = 0;
		for (const auto &[nc, c] : a.nc)
			s += c[id];
		return s;
	};
	auto field = [&]<size_t N>(const char (&key)[N], uint64_t v) {
		o.lit(key);
		o.integer(v);
	};
	o.lit("{\"pid\": ");
	o.integer(a.pid);
	o.lit(", \"address\": \"\", \"neuron_runtime_tag\": ");
	o.quoted(a.tag);
	o.lit(", \"error\": ");
	o.quoted(a.error);
	o.lit(", \"report\": {");
	bool first = true;
	for (const std::string &m : g.metrics) {
		if (!first)
			o.lit(", ");
		first = false;
		o.quoted(m);
		o.lit(": ");
		if (m == std::string_view("execution_stats")) {
			o.lit("{\"period\": ");
			o.str(per);
			field(", \"error_summary\": {\"generic\": ", sum(NDS_NC_COUNTER_ERR_GENERIC));
			field(", \"numerical\": ", sum(NDS_NC_COUNTER_ERR_NUMERICAL));
			field(", \"transient\": ", sum(NDS_NC_COUNTER_ERR_TRANSIENT));
			field(", \"model\": ", sum(NDS_NC_COUNTER_ERR_MODEL));
			field(", \"runtime\": ", sum(NDS_NC_COUNTER_ERR_RT));
			field(", \"hardware\": ", sum(NDS_NC_COUNTER_ERR_HW));
			field("}, \"execution_summary\": {\"completed\": ",
			      sum(NDS_NC_COUNTER_INFER_COMPLETED));
			field(", \"completed_with_err\": ", sum(NDS_NC_COUNTER_INFER_COMPLETED_WITH_ERR));
			field(", \"completed_with_num_err\": ",
			      sum(NDS_NC_COUNTER_INFER_COMPLETED_WITH_NUM_ERR));
			field(", \"timed_out\": ", sum(NDS_NC_COUNTER_INFER_TIMED_OUT));
			field(", \"incorrect_input\": ", sum(NDS_NC_COUNTER_INFER_INCORRECT_INPUT));
			field(", \"failed_to_queue\": ", sum(NDS_NC_COUNTER_INFER_FAILED_TO_QUEUE));
			// (without a block every bucket is 0: null without a count)
			auto latency = [&](unsigned kind) {
				if (a.has_latency)
					put_latency(o, a.latency[kind]);
				else
					o.lit("null");
			};
			o.lit("}, \"latency_stats\": {\"total_latency\": ");
			latency(NDS_LATENCY_TOTAL);
			o.lit(", \"device_latency\": ");
			latency(NDS_LATENCY_DEVICE);
			o.lit("}, \"error\": \"\"}");
		} else if (m == std::string_view("memory_used")) {
			uint64_t host = 0, dev = 0;
			for (uint32_t id = NDS_ND_COUNTER_MEM_USAGE_CODE_HOST;
			     id <= NDS_ND_COUNTER_MEM_USAGE_MISC_HOST; id++)
				host += a.nd[id];
			for (const auto &[nc, c] : a.nc)
				dev += c[NDS_NC_COUNTER_MEM_USAGE_CODE_DEVICE] +
				       c[NDS_NC_COUNTER_MEM_USAGE_TENSORS_DEVICE] +
				       c[NDS_NC_COUNTER_MEM_USAGE_CONSTANTS_DEVICE] +
				       c[NDS_NC_COUNTER_MEM_USAGE_SCRATCHPAD_DEVICE] +
				       c[NDS_NC_COUNTER_MEM_USAGE_MISC_DEVICE];
			o.lit("{\"period\": ");
			o.str(per);
			field(", \"neuron_runtime_used_bytes\": {\"host\": ", host);
			field(", \"neuron_device\": ", dev);
			o.lit(", \"usage_breakdown\": {\"neuroncore_memory_usage\": {");
			bool f2 = true;
			for (const auto &[nc, c] : a.nc) {
				if (!f2)
					o.lit(", ");
				f2 = false;
				o.ch('"');
				o.integer(nc);
				field("\": {\"constants\": ", c[NDS_NC_COUNTER_MEM_USAGE_CONSTANTS_DEVICE]);
				field(", \"model_code\": ", c[NDS_NC_COUNTER_MEM_USAGE_CODE_DEVICE]);
				field(", \"model_shared_scratchpad\": ",
				      c[NDS_NC_COUNTER_MEM_USAGE_SCRATCHPAD_DEVICE]);
				field(", \"runtime_memory\": ", c[NDS_NC_COUNTER_MEM_USAGE_MISC_DEVICE]);
				field(", \"tensors\": ", c[NDS_NC_COUNTER_MEM_USAGE_TENSORS_DEVICE]);
				o.ch('}');
			}
			o.lit("}}}, \"error\": \"\"}");
		} else if (m == std::string_view("neuroncore_counters")) {
			o.lit("{\"period\": ");
			o.str(per);
			o.lit(", \"neuroncores_in_use\": {");
			bool f2 = true;
			for (int nc : a.held) {
				auto it = a.nc.find(nc);
				uint64_t busy_us = it == a.nc.end() ? 0 : it->second[NDS_NC_COUNTER_NC_TIME];
				uint64_t macs = it == a.nc.end() ? 0 : it->second[NDS_NC_COUNTER_MAC_COUNT];
				double util = period > 0 ? 100.0 * static_cast<double>(busy_us) / (period * 1e6) : 0;
				if (!f2)
					o.lit(", ");
				f2 = false;
				o.ch('"');
				o.integer(nc);
				o.lit("\": {\"neuroncore_utilization\": ");
				o.number(std::min(util, 100.0));
				o.lit(", \"flops\": ");
				o.number(period > 0 ? 2.0 * static_cast<double>(macs) / period : 0);
				o.ch('}');
			}
			o.lit("}, \"error\": \"\"}");
		} else if (m == std::string_view("neuron_runtime_vcpu_usage")) {
			double t = period * 100.0;	// ticks at 100 Hz over the period
			o.lit("{\"period\": ");
			o.str(per);
			o.lit(", \"vcpu_usage\": {\"user\": ");
			o.number(t > 0 ? 100.0 * static_cast<double>(a.utime) / t : 0);
			o.lit(", \"system\": ");
			o.number(t > 0 ? 100.0 * static_cast<double>(a.stime) / t : 0);
			o.lit("}, \"error\": \"\"}");
		} else {
			o.lit("{\"error\": ");
			o.quoted("unknown metric type: " + m);
			o.ch('}');
		}
	}
	o.lit("}}");
}

} // namespace

std::string num(double v)
{
	char b[64];
	return std::string(b, num_chars(b, v));
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
	std::string o;
	put_latency(o, h);
	return o;
}

std::string runtime_json(const runtime_group &g, const app_sample &a, double period)
{
	std::string o;
	sink w(o);
	put_runtime(w, g, a, period, num(period));
	w.flush();
	return o;
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
				o << (i ? ", " : "") << "\"" << (c.id >= 0 ? c.id : static_cast<int>(i))
				  << "\": " << cpu_json(c);
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
	std::string o;
	report_json(o, c, r);
	return o;
}

void report_json(std::string &out, const config &c, const report &r)
{
	std::string per = num(r.period_s);
	out.clear();
	out.reserve(1024 + 1536 * r.apps.size());
	sink o(out);
	o.lit("{\"neuron_runtime_data\": [");
	for (size_t i = 0; i < r.apps.size(); i++) {
		if (i)
			o.lit(", ");
		put_runtime(o, *r.apps[i].first, r.apps[i].second, r.period_s, per);
	}
	o.lit("], \"system_data\": ");
	o.str(system_json(c.system_metrics, r.sys, r.period_s));
	auto str = [&]<size_t N>(const char (&key)[N], const std::string &v) {
		o.lit(key);
		o.quoted(v);
	};
	str(", \"instance_info\": {\"instance_name\": ", r.inst.name);
	str(", \"instance_id\": ", r.inst.id);
	str(", \"instance_type\": ", r.inst.type);
	str(", \"instance_availability_zone\": ", r.inst.az);
	str(", \"instance_availability_zone_id\": ", r.inst.az_id);
	str(", \"instance_region\": ", r.inst.region);
	str(", \"ami_id\": ", r.inst.ami_id);
	str(", \"subnet_id\": ", r.inst.subnet_id);
	str(", \"error\": ", r.inst.error);
	str("}, \"neuron_hardware_info\": {\"neuron_device_type\": ", r.hwinfo.device_type);
	str(", \"neuron_device_version\": ", r.hwinfo.device_version);
	str(", \"neuroncore_version\": ", r.hwinfo.neuroncore_version);
	o.lit(", \"neuron_device_count\": ");
	o.integer(r.hwinfo.device_count);
	o.lit(", \"neuron_device_memory_size\": ");
	o.integer(r.hwinfo.device_memory_size);
	o.lit(", \"neuroncore_per_device_count\": ");
	o.integer(r.hwinfo.nc_per_device);
	str(", \"logical_neuroncore_config\": 1, \"error\": ", r.hwinfo.error);
	o.lit("}}");
	o.flush();
}

void prometheus::add(const config &c, const report &r)
{
	(void)c;
	last_ = &r;
	reports_++;
	for (const auto &[g, a] : r.apps) {
		seen_[a.tag] = reports_;
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
	for (auto it = seen_.begin(); it != seen_.end();) {
		if (reports_ - it->second < kKeepReports) {
			++it;
			continue;
		}
		errors_.erase(it->first);
		status_.erase(it->first);
		it = seen_.erase(it);
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
		for (const auto &[key, sec] :
		     a.has_latency ? latency_percentiles(a.latency[NDS_LATENCY_TOTAL])
				   : std::vector<std::pair<std::string, double>>{})
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
