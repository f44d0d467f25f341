// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// neuron-monitor's vendor mode (tools/neuron-monitor/vendor_report.hpp):
// the configuration, the report (schema checked with the JSON reader: every
// documented key, every group's "error"), the Prometheus text (the
// companion's names, one sample per line), the latency percentiles of a
// period, and the NDS tag an application is reported by.
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <regex>
#include <set>
#include <sstream>
#include <vector>
extern "C" {
#include <cmocka.h>
}

#include <nrt/nds/neuron_ds.h>

#include "common/json.hpp"
#include "neuron-monitor/vendor_report.hpp"

namespace j = tools::json;
namespace m = tools::monitor;

static bool parses(const char *text, j::value &v)
{
	j::parser p(text);
	return p.parse(v);
}

static void config_default(void **)
{
	m::config c = m::default_config();
	assert_true(c.period_s == 5.0);
	assert_int_equal(c.runtimes.size(), 1);
	assert_int_equal(c.runtimes[0].metrics.size(), 4);
	assert_int_equal(c.system_metrics.size(), 3);
}

static void config_documented(void **)
{
	m::config c;
	std::string err;
	const char *doc = R"({"period": "1s", "neuron_runtimes": [{"tag_filter": "^train",
		"metrics": [{"type": "neuroncore_counters"}, {"type": "memory_used"},
		{"type": "neuron_runtime_vcpu_usage"}, {"type": "execution_stats"}]}],
		"system_metrics": [{"type": "vcpu_usage"}, {"type": "memory_info"},
		{"period": "2s", "type": "neuron_hw_counters"}]})";
	assert_true(m::parse_config(doc, c, err));
	assert_true(c.period_s == 1.0);
	assert_string_equal(c.runtimes[0].tag_filter.c_str(), "^train");
	assert_true(std::regex_search("training-7", c.runtimes[0].re));
	assert_false(std::regex_search("infer", c.runtimes[0].re));
	assert_int_equal(c.system_metrics.size(), 3);
}

static void config_errors(void **)
{
	m::config c;
	std::string err;
	for (const char *bad : { "[]", "{\"period\": 5}", "{\"period\": \"5x\"}", "{\"period\": \"0s\"}",
				 "{\"neuron_runtimes\": {}}", "{\"neuron_runtimes\": [{\"tag_filter\": \"(\"}]}",
				 "{\"neuron_runtimes\": [{\"metrics\": [{}]}]}", "{\"system_metrics\": [1]}",
				 "not json" }) {
		err.clear();
		assert_false(m::parse_config(bad, c, err));
		assert_false(err.empty());
	}
	// an unknown metric type is no error: the report names it in the group's error
	assert_true(m::parse_config("{\"system_metrics\": [{\"type\": \"gpu_magic\"}]}", c, err));
	double s;
	assert_true(m::parse_period("500ms", s) && s == 0.5);
	assert_true(m::parse_period("2m", s) && s == 120.0);
	assert_false(m::parse_period("1d", s));
}

static m::report sample_report(const m::config &c)
{
	m::report r;
	r.period_s = 1.0;
	m::app_sample a;
	a.pid = 42;
	a.tag = "42";
	a.nc[1][NDS_NC_COUNTER_INFER_COMPLETED] = 7;
	a.nc[1][NDS_NC_COUNTER_ERR_HW] = 2;
	a.nc[1][NDS_NC_COUNTER_NC_TIME] = 250000;
	a.held.insert(1);
	r.apps.emplace_back(&c.runtimes[0], a);
	r.sys.hw.push_back({ 0, 1, 2, 3, 4 });
	r.sys.cpus.resize(2);
	r.inst.error = "not an EC2 instance";
	return r;
}

static void report_schema(void **)
{
	m::config c = m::default_config();
	c.system_metrics.push_back("gpu_magic");
	m::report r = sample_report(c);
	std::string text = m::report_json(c, r);
	assert_null(std::strchr(text.c_str(), '\n'));	// one report, one line
	j::value v;
	assert_true(parses(text.c_str(), v));
	for (const char *k : { "neuron_runtime_data", "system_data", "instance_info",
			       "neuron_hardware_info" })
		assert_non_null(v.get(k));
	const j::value &rt = v.get("neuron_runtime_data")->arr.at(0);
	for (const char *k : { "pid", "address", "neuron_runtime_tag", "error", "report" })
		assert_non_null(rt.get(k));
	const j::value *rep = rt.get("report");
	for (auto g : m::kRuntimeMetrics)
		assert_non_null(rep->get(g)->get("error"));
	const j::value *es = rep->get("execution_stats");
	assert_true(es->get("execution_summary")->get("completed")->num == 7);
	assert_true(es->get("error_summary")->get("hardware")->num == 2);
	for (const char *k : { "completed_with_err", "completed_with_num_err", "timed_out",
			       "incorrect_input", "failed_to_queue" })
		assert_non_null(es->get("execution_summary")->get(k));
	for (const char *k : { "generic", "numerical", "transient", "model", "runtime" })
		assert_non_null(es->get("error_summary")->get(k));
	assert_non_null(es->get("latency_stats")->get("total_latency"));
	const j::value *util = rep->get("neuroncore_counters")->get("neuroncores_in_use")->get("1");
	assert_true(util->get("neuroncore_utilization")->num == 25.0);
	const j::value *sys = v.get("system_data");
	for (auto g : m::kSystemMetrics)
		assert_non_null(sys->get(g)->get("error"));
	assert_false(sys->get("gpu_magic")->get("error")->str.empty());
	const j::value &dev = sys->get("neuron_hw_counters")->get("neuron_devices")->arr.at(0);
	assert_true(dev.get("sram_ecc_uncorrected")->num == 4);
	for (const char *k : { "instance_name", "instance_id", "instance_type",
			       "instance_availability_zone", "instance_availability_zone_id",
			       "instance_region", "ami_id", "subnet_id", "error" })
		assert_non_null(v.get("instance_info")->get(k));
	for (const char *k : { "neuron_device_type", "neuron_device_version", "neuroncore_version",
			       "neuron_device_count", "neuron_device_memory_size",
			       "neuroncore_per_device_count", "logical_neuroncore_config", "error" })
		assert_non_null(v.get("neuron_hardware_info")->get(k));
}

static void deltas(void **)
{
	m::app_sample a, b;
	a.nc[0][1] = 5;
	b.nc[0][1] = 12;
	assert_int_equal(m::delta(b, &a).nc[0][1], 7);
	assert_int_equal(m::delta(b, nullptr).nc[0][1], 12);
	assert_int_equal(m::delta(a, &b).nc[0][1], 5);	// a new slab counts from 0
}

static void prometheus_text(void **)
{
	m::config c = m::default_config();
	m::report r1 = sample_report(c);
	m::prometheus p;
	p.add(c, r1);
	m::report r2 = sample_report(c);
	p.add(c, r2);
	std::string t = p.text();
	std::regex sample(R"(^[a-z_]+\{([a-z_]+="[^"]*",?)*\} [0-9.e+-]+$)");
	std::istringstream in(t);
	std::string line;
	int samples = 0;
	while (std::getline(in, line)) {
		if (line.empty() || line[0] == '#')
			continue;
		assert_true(std::regex_match(line, sample));
		samples++;
	}
	assert_true(samples > 10);
	// counters accumulate the two periods
	assert_non_null(std::strstr(t.c_str(), "runtime_tag=\"42\",status_type=\"completed\"} 14\n"));
	assert_non_null(std::strstr(t.c_str(), "runtime_tag=\"42\",error_type=\"hardware\"} 4\n"));
	assert_non_null(std::strstr(t.c_str(), "event_type=\"sram_ecc_uncorrected\",neuron_device_index=\"0\"} 8\n"));
	for (const char *name : { "neuroncore_utilization_ratio{", "neuron_runtime_memory_used_bytes{",
				  "system_vcpu_count{", "system_memory_total_bytes{",
				  "neuron_hardware_info{", "instance_info{",
				  "neuroncore_memory_usage_constants{", "neuroncore_memory_usage_model_code{",
				  "neuroncore_memory_usage_model_shared_scratchpad{",
				  "neuroncore_memory_usage_runtime_memory{", "neuroncore_memory_usage_tensors{",
				  "neuron_runtime_vcpu_usage_ratio{", "system_vcpu_usage_ratio{",
				  "system_memory_used_bytes{", "system_swap_total_bytes{",
				  "system_swap_used_bytes{", "hardware_ecc_events_total{" })
		assert_non_null(std::strstr(t.c_str(), name));
	// the companion's folding of average_usage: user and system only
	assert_non_null(std::strstr(t.c_str(), "usage_type=\"user\"} "));
	assert_null(std::strstr(t.c_str(), "usage_type=\"nice\"} "));
	// no execution latency in the sample: no sample of it
	assert_null(std::strstr(t.c_str(), "\nexecution_latency_seconds{"));

	// a tag no application has had for kKeepReports reports goes; until
	// then its counters stay as they were
	m::report none = sample_report(c);
	none.apps.clear();
	for (uint64_t k = 1; k < m::prometheus::kKeepReports; k++)
		p.add(c, none);
	t = p.text();
	assert_non_null(std::strstr(t.c_str(), "runtime_tag=\"42\",status_type=\"completed\"} 14\n"));
	p.add(c, none);
	t = p.text();
	assert_null(std::strstr(t.c_str(), "runtime_tag=\"42\""));
	// seen again: from 0
	m::report r3 = sample_report(c);
	p.add(c, r3);
	t = p.text();
	assert_non_null(std::strstr(t.c_str(), "runtime_tag=\"42\",status_type=\"completed\"} 7\n"));
}

// A simulated device's series say so; a driver without the corrected ECC
// files (the vendor's) reports them null and keeps no series of them.
static void prometheus_simulated_and_vendor(void **)
{
	m::config c = m::default_config();
	m::report r = sample_report(c);
	r.sys.hw[0].simulated = true;
	r.sys.hw[0].health = "ok";
	r.sys.hw[0].health_reason = "none";
	m::device_hw vendor{};
	vendor.index = 1;
	vendor.mem_ecc_uncorrected = 5;
	vendor.corrected_known = false;
	r.sys.hw.push_back(vendor);
	m::prometheus p;
	p.add(c, r);
	std::string t = p.text();
	assert_non_null(std::strstr(t.c_str(),
				    "event_type=\"sram_ecc_uncorrected\",neuron_device_index=\"0\",simulated=\"1\"} "));
	assert_non_null(std::strstr(t.c_str(), ",neuron_device_index=\"0\",state=\"ok\",reason=\"none\",simulated=\"1\"} 1\n"));
	assert_non_null(std::strstr(t.c_str(), "event_type=\"mem_ecc_uncorrected\",neuron_device_index=\"1\"} 5\n"));
	assert_null(std::strstr(t.c_str(), "event_type=\"mem_ecc_corrected\",neuron_device_index=\"1\""));
	std::string j = m::report_json(c, r);
	assert_non_null(std::strstr(j.c_str(), "{\"neuron_device_index\": 1, \"mem_ecc_corrected\": null, "
					       "\"mem_ecc_uncorrected\": 5, \"sram_ecc_corrected\": null, "
					       "\"sram_ecc_uncorrected\": 0}"));
	j::value v;
	assert_true(parses(j.c_str(), v));
}

// An application that ran 4 executions in the period: 3 of 2 ms, 1 of 40 ms
// in total, each 1 ms on the device.
static m::app_sample latency_app()
{
	m::app_sample a;
	a.pid = 7;
	a.tag = "lat";
	a.has_latency = true;
	a.latency[NDS_LATENCY_TOTAL][nds_latency_bucket(2000000)] = 3;
	a.latency[NDS_LATENCY_TOTAL][nds_latency_bucket(40000000)] = 1;
	a.latency[NDS_LATENCY_DEVICE][nds_latency_bucket(1000000)] = 4;
	return a;
}

static void latency_stats(void **)
{
	m::config c = m::default_config();
	m::report r = sample_report(c);	// app 42: no latency block
	m::app_sample a = latency_app();
	r.apps.emplace_back(&c.runtimes[0], a);
	j::value v;
	assert_true(parses(m::report_json(c, r).c_str(), v));
	const auto &rts = v.get("neuron_runtime_data")->arr;
	const j::value *none = rts.at(0).get("report")->get("execution_stats")->get("latency_stats");
	assert_true(none->get("total_latency")->k == j::value::kind::null);
	assert_true(none->get("device_latency")->k == j::value::kind::null);
	const j::value *ls = rts.at(1).get("report")->get("execution_stats")->get("latency_stats");
	const j::value *tot = ls->get("total_latency"), *dev = ls->get("device_latency");
	assert_true(tot->is_object() && dev->is_object());
	double last = 0;
	for (const char *k : { "p0", "p1", "p25", "p50", "p75", "p99", "p100" }) {
		const j::value *p = tot->get(k);
		assert_non_null(p);
		assert_true(p->is_number() && p->num >= last && p->num > 0);
		last = p->num;
		// every device percentile: 1 ms within the buckets' 1/16
		assert_true(std::fabs(dev->get(k)->num - 0.001) <= 0.001 / 16);
	}
	assert_int_equal(tot->obj.size(), 7);
	// rank ceil(q/100 * 4): p75 is the 3rd value (2 ms), p99 the 4th (40 ms)
	assert_true(std::fabs(tot->get("p75")->num - 0.002) <= 0.002 / 16);
	assert_true(std::fabs(tot->get("p99")->num - 0.04) <= 0.04 / 16);
	assert_true(tot->get("p0")->num == tot->get("p1")->num);

	// the next period saw nothing new: null again
	m::app_sample d = m::delta(a, &a);
	assert_true(nds_latency_count(d.latency[NDS_LATENCY_TOTAL].data()) == 0);
	assert_string_equal(m::latency_json(d.latency[NDS_LATENCY_TOTAL]).c_str(), "null");
	// one more execution: the delta holds only it
	m::app_sample b = a;
	b.latency[NDS_LATENCY_TOTAL][nds_latency_bucket(5000000)]++;
	d = m::delta(b, &a);
	assert_true(nds_latency_count(d.latency[NDS_LATENCY_TOTAL].data()) == 1);
	// a first sighting counts everything so far
	assert_true(nds_latency_count(m::delta(b, nullptr).latency[NDS_LATENCY_TOTAL].data()) == 5);

	// Prometheus: execution_latency_seconds of total_latency, per percentile
	m::prometheus p;
	p.add(c, r);
	std::string t = p.text();
	for (const char *k : { "p0", "p1", "p25", "p50", "p75", "p99", "p100" }) {
		std::string want = "runtime_tag=\"lat\",percentile=\"" + std::string(k) + "\"} ";
		assert_non_null(std::strstr(t.c_str(), want.c_str()));
	}
	// and none for the application without a latency
	assert_null(std::strstr(t.c_str(), "runtime_tag=\"42\",percentile="));
}

// The tag the report names an application by (neuron_runtime_tag): set by
// the application, read by a read-only reader such as neuron-monitor.
static void process_tag(void **)
{
	alignas(8) static unsigned char slab[NEURON_NDS_SIZE];
	nds_instance_t *w = nullptr, *r = nullptr;
	char buf[NDS_PROCESS_TAG_MAX + 1];
	assert_int_equal(nds_open_memory(slab, 2, true, &w), 0);
	assert_int_equal(nds_open_memory(slab, 2, false, &r), 0);
	assert_int_equal(nds_get_process_tag(r, buf, sizeof(buf)), 0);
	assert_int_equal(nds_set_process_tag(r, "x"), -EPERM);
	assert_int_equal(nds_set_process_tag(w, "train-a"), 0);
	assert_int_equal(nds_get_process_tag(r, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "train-a");
	std::string longtag(400, 'q');
	assert_int_equal(nds_set_process_tag(w, longtag.c_str()), 0);
	assert_int_equal(nds_get_process_tag(r, buf, sizeof(buf)), NDS_PROCESS_TAG_MAX);
	nds_close(w);
	nds_close(r);
}

// What neuron-monitor reads of an application's slab (add_slab): every
// counter of every NeuronCore, the three regions of the layout included
// (EXT ids, NeuronCores 4 and up), as nds_get_*_counter() read them; the
// latency histograms, summed over the slabs that hold the block; the tag
// of the first slab that has one; the held NeuronCores as global ids.
static void slab_reading(void **)
{
	alignas(8) static unsigned char s1[NEURON_NDS_SIZE], s2[NEURON_NDS_SIZE];
	nds_instance_t *w1 = nullptr, *w2 = nullptr, *r1 = nullptr, *r2 = nullptr;
	assert_int_equal(nds_open_memory(s1, 6, true, &w1), 0);
	assert_int_equal(nds_open_memory(s2, 2, true, &w2), 0);
	for (int nc = 0; nc < 6; nc++)
		for (uint32_t id = 0; id < NEURON_NDS_ID_COUNT; id++)
			assert_int_equal(nds_increment_nc_counter(w1, nc, id, 1000 * nc + id + 1), 0);
	for (uint32_t id = 0; id < NEURON_NDS_ND_COUNT; id++)
		assert_int_equal(nds_increment_nd_counter(w1, id, id + 7), 0);
	assert_int_equal(nds_increment_nc_counter(w2, 1, NDS_NC_COUNTER_INFER_COMPLETED, 5), 0);
	assert_int_equal(nds_record_latency(w1, NDS_LATENCY_TOTAL, 5000), 0);
	assert_int_equal(nds_record_latency(w2, NDS_LATENCY_TOTAL, 5000), 0);
	assert_int_equal(nds_record_latency(w2, NDS_LATENCY_DEVICE, 70000), 0);
	assert_int_equal(nds_set_process_tag(w2, "second"), 0);
	assert_int_equal(nds_open_memory(s1, 6, false, &r1), 0);
	assert_int_equal(nds_open_memory(s2, 2, false, &r2), 0);

	m::app_sample a;
	m::add_slab(a, r1, 6, 0, 0x22);
	assert_int_equal(a.nc.size(), 6);
	for (int nc = 0; nc < 6; nc++)
		for (uint32_t id = 0; id < NEURON_NDS_ID_COUNT; id++) {
			uint64_t v = 0;
			assert_int_equal(nds_get_nc_counter(r1, nc, id, &v), 0);
			assert_int_equal(a.nc.at(nc)[id], v);
			assert_int_equal(v, 1000 * nc + id + 1);
		}
	for (uint32_t id = 0; id < NEURON_NDS_ND_COUNT; id++)
		assert_int_equal(a.nd[id], id + 7);
	assert_true(a.held == std::set<int>({ 1, 5 }));
	assert_true(a.has_latency);
	assert_int_equal(nds_latency_count(a.latency[NDS_LATENCY_TOTAL].data()), 1);
	assert_true(a.tag.empty());

	// a second device's slab: its NeuronCores after the first's, its
	// latency added, its tag the first one seen
	m::add_slab(a, r2, 2, 6, 0x1);
	assert_int_equal(a.nc.size(), 8);
	assert_int_equal(a.nc.at(7)[NDS_NC_COUNTER_INFER_COMPLETED], 5);
	assert_int_equal(a.nc.at(6)[NDS_NC_COUNTER_INFER_COMPLETED], 0);
	assert_true(a.held == std::set<int>({ 1, 5, 6 }));
	assert_int_equal(nds_latency_count(a.latency[NDS_LATENCY_TOTAL].data()), 2);
	assert_int_equal(nds_latency_count(a.latency[NDS_LATENCY_DEVICE].data()), 1);
	assert_string_equal(a.tag.c_str(), "second");
	m::add_slab(a, r1, 6, 8, 0);
	assert_string_equal(a.tag.c_str(), "second");

	// a slab without a latency block (a runtime that keeps none)
	alignas(8) static unsigned char s3[NEURON_NDS_SIZE];
	nds_instance_t *r3 = nullptr;
	assert_int_equal(nds_open_memory(s3, 2, false, &r3), 0);
	m::app_sample b;
	m::add_slab(b, r3, 2, 0, 0);
	assert_false(b.has_latency);
	assert_int_equal(b.nc.size(), 2);
	for (nds_instance_t *i : { w1, w2, r1, r2, r3 })
		nds_close(i);
}

// subtract(): per counter, per bucket (a histogram with a bucket that
// went down counts from zero), per tick.
static void subtract_in_place(void **)
{
	m::app_sample cur, prev;
	cur.pid = prev.pid = 9;
	cur.tag = prev.tag = "t";
	for (uint32_t id = 0; id < NEURON_NDS_ID_COUNT; id++) {
		cur.nc[0][id] = 10 + id;
		prev.nc[0][id] = id % 3 ? 4 : 20 + id;	// some went down
		cur.nc[3][id] = 1;			// no baseline
	}
	cur.has_latency = prev.has_latency = true;
	cur.latency[NDS_LATENCY_TOTAL][3] = 5;
	prev.latency[NDS_LATENCY_TOTAL][3] = 2;
	cur.latency[NDS_LATENCY_DEVICE][4] = 1;
	prev.latency[NDS_LATENCY_DEVICE][4] = 3;	// a new slab
	prev.latency[NDS_LATENCY_DEVICE][9] = 1;
	cur.utime = 50;
	prev.utime = 20;
	cur.stime = 1;
	prev.stime = 2;
	// without a baseline the sample is its own delta
	m::app_sample u = cur;
	m::subtract(u, nullptr);
	assert_true(u.nc == cur.nc && u.latency == cur.latency && u.utime == cur.utime &&
		    u.stime == cur.stime && u.nd == cur.nd);
	m::app_sample e = cur;
	m::subtract(e, &prev);
	assert_int_equal(e.latency[NDS_LATENCY_TOTAL][3], 3);
	assert_int_equal(e.latency[NDS_LATENCY_DEVICE][4], 1);
	assert_int_equal(e.latency[NDS_LATENCY_DEVICE][9], 0);
	assert_int_equal(e.nc[0][1], 11 - 4);
	assert_int_equal(e.nc[0][0], 10);
	assert_int_equal(e.nc[3][2], 1);
	assert_int_equal(e.utime, 30);
	assert_int_equal(e.stime, 1);

	// the report's text into a buffer that held another: the same text
	m::config c = m::default_config();
	m::report r;
	r.period_s = 0.5;
	r.apps.emplace_back(&c.runtimes[0], e);
	std::string out(5000, 'x');
	m::report_json(out, c, r);
	assert_true(out == m::report_json(c, r));
}

// reset() and delta_into(): a sample's memory reused for another leaves
// nothing of the one before (its NeuronCores, held cores, tag, error,
// histograms) and gives what a fresh sample and delta() give.
static void reuse(void **)
{
	m::app_sample lat = latency_app();
	lat.nc[3][NDS_NC_COUNTER_INFER_COMPLETED] = 9;
	lat.held = { 3 };
	lat.error = "e";
	lat.utime = 5;
	lat.stime = 3;
	lat.nd[NDS_ND_COUNTER_MEM_USAGE_MISC_HOST] = 2;
	m::app_sample plain;
	plain.pid = 8;
	plain.tag = "p";
	plain.nc[1][NDS_NC_COUNTER_INFER_COMPLETED] = 4;
	plain.nd[NDS_ND_COUNTER_MEM_USAGE_CODE_HOST] = 6;

	auto same = [](const m::app_sample &x, const m::app_sample &y) {
		return x.pid == y.pid && x.tag == y.tag && x.nc == y.nc && x.nd == y.nd &&
		       x.held == y.held && x.utime == y.utime && x.stime == y.stime &&
		       x.latency == y.latency && x.has_latency == y.has_latency && x.error == y.error;
	};
	// a slot that held an application with a histogram, then one without
	m::app_sample slot;
	m::delta_into(slot, lat, nullptr);
	assert_true(same(slot, m::delta(lat, nullptr)));
	m::delta_into(slot, plain, nullptr);
	assert_true(same(slot, plain));
	assert_int_equal(nds_latency_count(slot.latency[NDS_LATENCY_TOTAL].data()), 0);
	// against a baseline, either way round
	m::app_sample lat2 = lat;
	lat2.latency[NDS_LATENCY_TOTAL][nds_latency_bucket(5000000)]++;
	lat2.nc[3][NDS_NC_COUNTER_INFER_COMPLETED] = 12;
	lat2.utime = 9;
	lat2.stime = 4;
	m::delta_into(slot, lat2, &lat);
	assert_true(same(slot, m::delta(lat2, &lat)));
	m::delta_into(slot, plain, &lat);
	assert_true(same(slot, m::delta(plain, &lat)));

	// reset(): a default sample of the new pid
	m::app_sample r = lat;
	m::reset(r, 77);
	m::app_sample want;
	want.pid = 77;
	assert_true(same(r, want));
	m::reset(r, 78);
	want.pid = 78;
	assert_true(same(r, want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_default),
		cmocka_unit_test(config_documented),
		cmocka_unit_test(config_errors),
		cmocka_unit_test(report_schema),
		cmocka_unit_test(deltas),
		cmocka_unit_test(prometheus_text),
		cmocka_unit_test(prometheus_simulated_and_vendor),
		cmocka_unit_test(latency_stats),
		cmocka_unit_test(process_tag),
		cmocka_unit_test(reuse),
		cmocka_unit_test(slab_reading),
		cmocka_unit_test(subtract_in_place),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
