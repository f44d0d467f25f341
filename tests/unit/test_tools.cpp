// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The tools' pure parts: the JSON reader, neuron-monitor's configuration,
// its report (schema checked with the reader: every documented key, every
// group's "error"), its Prometheus text (the companion's names, one sample
// per line), the latency percentiles of a period, nrt_get_version(),
// ndl's sysfs parsers, the NDS tag, nrt-status --explain's class/action
// table and the CDI spec neuron-ls --cdi writes.
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <regex>
#include <sstream>
#include <vector>
extern "C" {
#include <cmocka.h>
}

#include <nrt/nds/neuron_ds.h>
#include <nrt/nrt_version.h>

#include "../../tools/cdi.hpp"
#include "../../tools/monitor_vendor.hpp"
#include "../../tools/status_explain.hpp"

namespace j = tools::json;
namespace m = tools::monitor;

static bool parses(const char *text, j::value &v)
{
	j::parser p(text);
	return p.parse(v);
}

static void json_reader(void **)
{
	j::value v;
	assert_true(parses("{\"a\": [1, -2.5e3, true, null, \"x\\u00e9\\ud83d\\ude00\"]}", v));
	const j::value *a = v.get("a");
	assert_non_null(a);
	assert_int_equal(a->arr.size(), 5);
	assert_true(a->arr[1].num == -2500.0);
	assert_string_equal(a->arr[4].str.c_str(), "x\xc3\xa9\xf0\x9f\x98\x80");
	for (const char *bad : { "", "{", "[1,]", "{\"a\" 1}", "01", "\"\\x\"", "tru", "{} x",
				 "\"a\nb\"", "[\"\\ud800\"]" })
		assert_false(parses(bad, v));
	assert_string_equal(j::quote("a\"b\\\n\x01").c_str(), "\"a\\\"b\\\\\\n\\u0001\"");
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

static void version(void **)
{
	nrt_version_t v;
	std::memset(&v, 0xff, sizeof(v));
	assert_int_equal(nrt_get_version(&v, sizeof(v)), NRT_SUCCESS);
	assert_non_null(std::memchr(v.rt_detail, '\0', sizeof(v.rt_detail)));
	assert_non_null(std::memchr(v.git_hash, '\0', sizeof(v.git_hash)));
	assert_true(v.rt_major < 1000 && v.rt_minor < 1000);
	assert_int_equal(nrt_get_version(nullptr, sizeof(v)), NRT_INVALID);
	// an older, shorter struct: nothing past its size is written
	unsigned char small[16 + 1];
	std::memset(small, 0xab, sizeof(small));
	assert_int_equal(nrt_get_version(reinterpret_cast<nrt_version_t *>(small), 16), NRT_SUCCESS);
	assert_int_equal(small[16], 0xab);
}

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

// Every NRT_STATUS value the vendor assigns (the 28 codes of the reference
// catalogue, docs/error-model.md), written out here rather than taken from
// the library, so a code the library lost or gained shows up as well.
static const uint32_t seed_codes[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15, 101,
	1002, 1003, 1004, 1005, 1006, 1100,
	1200, 1201, 1202, 1203, 1204, 1205, 1206,
};

static void explain_table_complete(void **)
{
	namespace x = tools::explain;
	assert_int_equal(sizeof(seed_codes) / sizeof(seed_codes[0]), 28);
	// no code missing, none twice
	for (uint32_t c : seed_codes) {
		size_t rows = 0;
		for (const x::entry &e : x::table)
			rows += e.code == c;
		assert_int_equal(rows, 1);
	}
	// none extra
	for (const x::entry &e : x::table) {
		bool in_seed = false;
		for (uint32_t c : seed_codes)
			in_seed |= e.code == c;
		assert_true(in_seed);
		assert_true(nrt_status_is_valid(static_cast<NRT_STATUS>(e.code)));
		assert_non_null(e.why);
		assert_true(std::strlen(e.why) > 0);
		assert_true(std::strlen(e.action) > 0);
		// success alone is no failure
		assert_true((e.cls == x::failure_class::none) == (e.code == 0));
	}
	assert_int_equal(x::table_size, NRT_STATUS_CODE_COUNT);
	// the library's own list agrees, index by index
	NRT_STATUS s;
	for (size_t i = 0; nrt_status_code_at(i, &s); i++)
		assert_int_equal(x::table[i].code, static_cast<uint32_t>(s));
}

static void explain_output(void **)
{
	namespace x = tools::explain;
	const x::entry *e = nullptr;
	std::string why;

	// a name, with or without the prefix, any case; a number; 0x hex
	for (const char *arg : { "NRT_EXEC_HW_ERR_DMA_ABORT", "exec_hw_err_dma_abort",
				 "Nrt_Exec_Hw_Err_Dma_Abort", "1203", "0x4b3" }) {
		e = nullptr;
		assert_true(x::lookup(arg, &e, why));
		assert_non_null(e);
		assert_int_equal(e->code, 1203);
	}
	assert_true(e->cls == x::failure_class::hardware);
	assert_string_equal(x::to_text(*e).c_str(),
			    "NRT_EXEC_HW_ERR_DMA_ABORT (1203)\n"
			    "  class:    hardware: a fault of the Neuron device itself\n"
			    "  because:  the error model says \"1203 is a DMA-engine abort\", one of \"the "
			    "four hardware faults\"\n"
			    "  action:   RESTART_JOB; if it repeats on the same device, take the "
			    "device out of service\n"
			    "  priority: 3 (0..3, higher wins when statuses race)\n");

	// the classes of a few codes, each for the reason its row gives
	struct {
		const char *arg;
		x::failure_class cls;
	} const want[] = {
		{ "SUCCESS", x::failure_class::none },
		{ "invalid", x::failure_class::user_input },
		{ "EXEC_BAD_INPUT", x::failure_class::user_input },
		{ "NRT_TIMEOUT", x::failure_class::transient },
		{ "coll_pending", x::failure_class::transient },
		{ "EXEC_SW_NQ_OVERFLOW", x::failure_class::transient },
		{ "NETWORK_PROXY_FAILURE", x::failure_class::transient },
		{ "RESOURCE", x::failure_class::resource },
		{ "EXEC_NC_BUSY", x::failure_class::resource },
		{ "EXEC_COMPLETED_WITH_ERR", x::failure_class::execution },
		{ "HW_ERROR", x::failure_class::hardware },
		{ "EXEC_UNIT_UNRECOVERABLE", x::failure_class::hardware },
		{ "EXEC_HW_ERR_REPAIRABLE_HBM_UE", x::failure_class::hardware },
	};
	for (const auto &w : want) {
		assert_true(x::lookup(w.arg, &e, why));
		assert_true(e->cls == w.cls);
	}

	// JSON: the same fields, parsed back
	assert_true(x::lookup("1100", &e, why));
	j::value v;
	assert_true(parses(x::to_json(*e).c_str(), v));
	assert_true(v.get("value")->num == 1100);
	assert_string_equal(v.get("name")->str.c_str(), "NRT_COLL_PENDING");
	assert_string_equal(v.get("class")->str.c_str(), "transient");
	assert_string_equal(v.get("action")->str.c_str(), "the collective has not finished: poll again");
	assert_true(v.get("retry")->b);
	assert_true(v.get("priority")->num == 1);
	assert_non_null(v.get("because"));
	assert_non_null(v.get("class_text"));

	// what names no assigned code, each with its one-line reason
	struct {
		const char *arg;
		const char *why;
	} const bad[] = {
		{ "8", "8 is not an assigned NRT_STATUS code" },
		{ "1207", "1207 is not an assigned NRT_STATUS code" },
		{ "UNKNOWN", "'UNKNOWN' names no NRT_STATUS code" },
		{ "NRT_", "'NRT_' names no NRT_STATUS code" },
		{ "-1", "'-1' names no NRT_STATUS code" },
		{ "12x", "'12x' is not a status number" },
		{ "99999999999", "'99999999999' is not a status number" },
	};
	for (const auto &b : bad) {
		e = nullptr;
		assert_false(x::lookup(b.arg, &e, why));
		assert_null(e);
		assert_string_equal(why.c_str(), b.why);
		assert_null(std::strchr(why.c_str(), '\n'));
	}
}

// neuron-ls --cdi's spec for nodes given here (the schema check of a
// scanned tree is scripts/test-cdi.sh).
static void cdi_spec(void **)
{
	namespace c = tools::cdi;
	std::vector<c::node> nodes = {
		{ 0, "/dev/neuron0", "/dev/neuron0", 240, 0 },
		{ 3, "/tmp/t/neuron3", "/dev/neuron3", 240, 3 },
	};
	j::value v;
	assert_true(parses(c::spec_json(nodes).c_str(), v));
	assert_string_equal(v.get("cdiVersion")->str.c_str(), "0.5.0");
	assert_string_equal(v.get("kind")->str.c_str(), "aws.amazon.com/neuron");
	const j::value *devs = v.get("devices");
	assert_non_null(devs);
	assert_int_equal(devs->arr.size(), 3);
	const char *names[] = { "0", "3", "all" };
	size_t counts[] = { 1, 1, 2 };
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(devs->arr[i].get("name")->str.c_str(), names[i]);
		const j::value *dn = devs->arr[i].get("containerEdits")->get("deviceNodes");
		assert_int_equal(dn->arr.size(), counts[i]);
	}
	const j::value &n0 = devs->arr[0].get("containerEdits")->get("deviceNodes")->arr[0];
	assert_string_equal(n0.get("path")->str.c_str(), "/dev/neuron0");
	assert_null(n0.get("hostPath"));	// the same as path: left out
	assert_string_equal(n0.get("type")->str.c_str(), "c");
	assert_true(n0.get("major")->num == 240 && n0.get("minor")->num == 0);
	const j::value &n3 = devs->arr[2].get("containerEdits")->get("deviceNodes")->arr[1];
	assert_string_equal(n3.get("path")->str.c_str(), "/dev/neuron3");
	assert_string_equal(n3.get("hostPath")->str.c_str(), "/tmp/t/neuron3");
	assert_true(n3.get("minor")->num == 3);

	// a directory with no Neuron node scans to nothing, without error
	std::vector<c::node> found;
	std::string err;
	assert_true(c::scan("/proc/self", found, err));
	assert_int_equal(found.size(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_reader),
		cmocka_unit_test(config_default),
		cmocka_unit_test(config_documented),
		cmocka_unit_test(config_errors),
		cmocka_unit_test(report_schema),
		cmocka_unit_test(deltas),
		cmocka_unit_test(prometheus_text),
		cmocka_unit_test(prometheus_simulated_and_vendor),
		cmocka_unit_test(latency_stats),
		cmocka_unit_test(version),
		cmocka_unit_test(process_tag),
		cmocka_unit_test(explain_table_complete),
		cmocka_unit_test(explain_output),
		cmocka_unit_test(cdi_spec),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
