// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The profile (libnrt/src/profile_trace.*, profile.cpp) on the host:
// synthetic executions recorded, the Chrome trace event JSON written and
// parsed back with tools/common/json.hpp's reader (every field, the keys
// Perfetto needs, escaping, the dropped count), the atomic save (a failed
// write leaves no file behind and the old file untouched), the recorder's cap
// under threads, and nrt_profile_start/stop's rules on a model put straight
// into the handle table (executing one needs a device: tests/vm/25_app.sh).
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <nrt/nrt.h>
#include <nrt/nrt_profile.h>

#include "common/json.hpp"
#include "model.hpp"
#include "profile.hpp"
#include "profile_trace.hpp"
#include "runtime.hpp"

extern "C" {
#include <cmocka.h>
}

namespace {

namespace j = tools::json;
namespace p = nrt::profile;

j::value parse(const std::string &text)
{
	j::value v;
	j::parser ps(text);
	if (!ps.parse(v)) {
		std::fprintf(stderr, "not JSON: %s\n", ps.error().c_str());
		fail();
	}
	return v;
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

bool exists(const std::string &path)
{
	struct stat st;
	return ::stat(path.c_str(), &st) == 0;
}

// Names in @dir (no . and ..), sorted.
std::vector<std::string> listing(const std::string &dir)
{
	std::vector<std::string> v;
	DIR *d = ::opendir(dir.c_str());
	assert_non_null(d);
	while (dirent *e = ::readdir(d))
		if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
			v.push_back(e->d_name);
	::closedir(d);
	std::sort(v.begin(), v.end());
	return v;
}

struct tmpdir {
	std::string path;
	tmpdir()
	{
		char t[] = "/tmp/test_profile.XXXXXX";
		assert_non_null(::mkdtemp(t));
		path = t;
	}
	~tmpdir()
	{
		for (const auto &n : listing(path)) {
			std::string f = path + "/" + n;
			if (::unlink(f.c_str()) != 0)
				::rmdir(f.c_str());
		}
		::rmdir(path.c_str());
	}
};

double num(const j::value &o, const char *key)
{
	const j::value *v = o.get(key);
	assert_non_null(v);
	assert_true(v->is_number());
	return v->num;
}

std::string str(const j::value &o, const char *key)
{
	const j::value *v = o.get(key);
	assert_non_null(v);
	assert_true(v->is_string());
	return v->str;
}

const j::value &member(const j::value &o, const char *key)
{
	const j::value *v = o.get(key);
	assert_non_null(v);
	return *v;
}

std::vector<std::string> strings(const j::value &arr)
{
	assert_true(arr.is_array());
	std::vector<std::string> v;
	for (const auto &e : arr.arr) {
		assert_true(e.is_string());
		v.push_back(e.str);
	}
	return v;
}

// Three executions on two NeuronCores: a success, one that drained a
// semaphore and an event error (1004), one with an HBM UE after an
// overflow of its ring (1201).
std::vector<p::event> sample_events()
{
	std::vector<p::event> v(3);
	v[0].start_ns = 1000000123456;
	v[0].end_ns = 1000000173457;		// 50.001 us
	v[0].vnc = 0;
	v[0].device = 0;
	v[0].nc = 0;
	v[0].status = NRT_SUCCESS;

	v[1].start_ns = 1000000200000;
	v[1].end_ns = 1000000200999;
	v[1].vnc = 0;
	v[1].status = NRT_EXEC_COMPLETED_WITH_ERR;
	v[1].iteration = 1;
	v[1].errors.entries = 2;
	v[1].errors.subtypes = (1u << NRT_INFER_ERROR_SUBTYPE_SW_SEMAPHORE_ERROR) |
			       (1u << NRT_INFER_ERROR_SUBTYPE_SW_EVENT_ERROR);

	v[2].start_ns = 2000000000000;
	v[2].end_ns = 2000000001000;
	v[2].vnc = 5;
	v[2].device = 1;
	v[2].nc = 1;
	v[2].status = NRT_EXEC_HW_ERR_HBM_UE;
	v[2].errors.entries = 1;
	v[2].errors.malformed = 3;
	v[2].errors.ring_dropped = 7;
	v[2].errors.overflow = true;
	v[2].errors.hw_faults = 1u << NEURON_NQ_HW_HBM_UE;
	return v;
}

p::trace_info sample_info()
{
	p::trace_info info;
	info.model_name = "affine";
	info.pid = 4242;
	info.max_events = 10;
	info.dropped = 0;
	info.vnc = 0;
	return info;
}

// The keys Perfetto's JSON importer and chrome://tracing need: an object
// with a traceEvents array; every event a ph, name, pid, tid; complete
// events a numeric ts and dur; metadata events args.name (process_name,
// thread_name) or args.labels.
void check_perfetto_keys(const j::value &doc)
{
	assert_true(doc.is_object());
	const j::value &evs = member(doc, "traceEvents");
	assert_true(evs.is_array());
	for (const auto &e : evs.arr) {
		assert_true(e.is_object());
		std::string ph = str(e, "ph");
		str(e, "name");
		num(e, "pid");
		num(e, "tid");
		if (ph == "X") {
			assert_true(num(e, "ts") >= 0);
			assert_true(num(e, "dur") >= 0);
		} else {
			assert_string_equal(ph.c_str(), "M");
			const j::value &args = member(e, "args");
			assert_true(args.get("name") || args.get("labels"));
		}
	}
}

std::vector<const j::value *> of_phase(const j::value &doc, const char *ph)
{
	std::vector<const j::value *> v;
	for (const auto &e : member(doc, "traceEvents").arr)
		if (str(e, "ph") == ph)
			v.push_back(&e);
	return v;
}

void every_field(void **)
{
	auto events = sample_events();
	std::string text = p::to_json(sample_info(), events);
	j::value doc = parse(text);
	check_perfetto_keys(doc);

	// metadata: the process, its labels, one thread per NeuronCore
	auto meta = of_phase(doc, "M");
	assert_int_equal(meta.size(), 4);
	assert_string_equal(str(*meta[0], "name").c_str(), "process_name");
	assert_int_equal(num(*meta[0], "pid"), 4242);
	assert_string_equal(str(member(*meta[0], "args"), "name").c_str(), "libnrt profile (pid 4242)");
	assert_string_equal(str(*meta[1], "name").c_str(), "process_labels");
	assert_string_equal(str(member(*meta[1], "args"), "labels").c_str(), "executions 3, dropped 0");
	assert_string_equal(str(*meta[2], "name").c_str(), "thread_name");
	assert_int_equal(num(*meta[2], "tid"), 0);
	assert_string_equal(str(member(*meta[2], "args"), "name").c_str(), "NeuronCore 0 (device 0, nc 0)");
	assert_int_equal(num(*meta[3], "tid"), 5);
	assert_string_equal(str(member(*meta[3], "args"), "name").c_str(), "NeuronCore 5 (device 1, nc 1)");

	auto xs = of_phase(doc, "X");
	assert_int_equal(xs.size(), 3);
	const char *st_names[] = { "NRT_SUCCESS", "NRT_EXEC_COMPLETED_WITH_ERR", "NRT_EXEC_HW_ERR_HBM_UE" };
	for (size_t i = 0; i < 3; i++) {
		const j::value &x = *xs[i];
		const p::event &e = events[i];
		assert_string_equal(str(x, "name").c_str(), "affine");
		assert_string_equal(str(x, "cat").c_str(), "nrt_execute");
		assert_int_equal(num(x, "pid"), 4242);
		assert_int_equal(num(x, "tid"), e.vnc);
		assert_true(std::fabs(num(x, "ts") - e.start_ns / 1000.0) < 0.0005);
		assert_true(std::fabs(num(x, "dur") - (e.end_ns - e.start_ns) / 1000.0) < 0.0005);
		const j::value &a = member(x, "args");
		assert_string_equal(str(a, "status").c_str(), st_names[i]);
		assert_int_equal(num(a, "status_code"), e.status);
		assert_int_equal(num(a, "device"), e.device);
		assert_int_equal(num(a, "nc"), e.nc);
		assert_int_equal(num(a, "iteration"), e.iteration);
		const j::value &er = member(a, "errors");
		assert_int_equal(num(er, "entries"), e.errors.entries);
		assert_int_equal(num(er, "malformed"), e.errors.malformed);
		assert_int_equal(num(er, "ring_dropped"), e.errors.ring_dropped);
		assert_int_equal(member(er, "overflow").k, j::value::kind::boolean);
		assert_int_equal(member(er, "overflow").b, e.errors.overflow);
	}
	// exact microseconds with three decimals, as written
	assert_non_null(std::strstr(text.c_str(), "\"ts\":1000000123.456,\"dur\":50.001,"));
	assert_true(strings(member(member(member(*xs[0], "args"), "errors"), "subtypes")).empty());
	assert_true(strings(member(member(member(*xs[0], "args"), "errors"), "hw_faults")).empty());
	auto sub = strings(member(member(member(*xs[1], "args"), "errors"), "subtypes"));
	assert_int_equal(sub.size(), 2);
	assert_string_equal(sub[0].c_str(), "SW_SEMAPHORE_ERROR");
	assert_string_equal(sub[1].c_str(), "SW_EVENT_ERROR");
	auto hw = strings(member(member(member(*xs[2], "args"), "errors"), "hw_faults"));
	assert_int_equal(hw.size(), 1);
	assert_string_equal(hw[0].c_str(), "HBM_UE");

	const j::value &od = member(doc, "otherData");
	assert_string_equal(str(od, "format").c_str(), "libnrt-profile");
	assert_int_equal(num(od, "version"), p::kFormatVersion);
	assert_string_equal(str(od, "model").c_str(), "affine");
	assert_int_equal(num(od, "pid"), 4242);
	assert_int_equal(num(od, "events_recorded"), 3);
	assert_int_equal(num(od, "events_dropped"), 0);
	assert_int_equal(num(od, "max_events"), 10);
	assert_non_null(std::strstr(str(od, "clock").c_str(), "microseconds"));
	assert_string_equal(str(doc, "displayTimeUnit").c_str(), "ms");
}

void names(void **)
{
	assert_string_equal(p::subtype_name(0), "NONE");
	assert_string_equal(p::subtype_name(NRT_INFER_ERROR_SUBTYPE_SW_SEQUENCER_ERROR), "SW_SEQUENCER_ERROR");
	assert_string_equal(p::subtype_name(NRT_INFER_ERROR_SUBTYPE_MAX), "UNKNOWN");
	assert_string_equal(p::hw_fault_name(NEURON_NQ_HW_COLLECTIVES), "COLLECTIVES");
	assert_string_equal(p::hw_fault_name(NEURON_NQ_HW_REPAIRABLE_HBM_UE), "REPAIRABLE_HBM_UE");
	assert_string_equal(p::hw_fault_name(0), "UNKNOWN");
	assert_string_equal(p::hw_fault_name(NEURON_NQ_HW_COUNT), "UNKNOWN");
}

void escaping(void **)
{
	// quote, backslash, newline, tab, control bytes, DEL, valid two- and
	// four-byte UTF-8, then bytes that are not UTF-8: a lone continuation,
	// a truncated sequence, an overlong '/', a surrogate, 0xff
	const std::string raw = std::string("a\"b\\c\nd\te\x01\x1f\x7f") + "\xc3\xa9" + "\xf0\x9f\x98\x80" +
				"|\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xff";
	const std::string want = std::string("a\"b\\c\nd\te\x01\x1f\x7f") + "\xc3\xa9" + "\xf0\x9f\x98\x80" +
				 "|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|" +
				 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd";
	std::string q = p::json_quote(raw);
	for (unsigned char c : q)
		assert_true(c >= 0x20 && c != 0x7f);	// nothing raw a parser could refuse
	j::value v = parse(q);
	assert_true(v.is_string());
	assert_true(v.str == want);

	p::trace_info info = sample_info();
	info.model_name = raw;
	std::vector<p::event> one(1);
	j::value doc = parse(p::to_json(info, one));
	check_perfetto_keys(doc);
	assert_true(str(*of_phase(doc, "X")[0], "name") == want);
	assert_true(str(member(doc, "otherData"), "model") == want);

	// no name: a placeholder, never an empty event name
	info.model_name.clear();
	doc = parse(p::to_json(info, one));
	assert_string_equal(str(*of_phase(doc, "X")[0], "name").c_str(), "(unnamed model)");
}

void empty_profile(void **)
{
	j::value doc = parse(p::to_json(sample_info(), {}));
	check_perfetto_keys(doc);
	assert_int_equal(of_phase(doc, "X").size(), 0);
	auto meta = of_phase(doc, "M");
	assert_int_equal(meta.size(), 3);	// process, labels, the model's NeuronCore
	assert_int_equal(num(member(doc, "otherData"), "events_recorded"), 0);
}

void dropped_count(void **)
{
	p::recorder rec(3);
	assert_int_equal(rec.max_events(), 3);
	auto sample = sample_events();
	for (int i = 0; i < 5; i++) {
		p::event e = sample[0];
		e.iteration = static_cast<uint32_t>(i);
		rec.add(e);
	}
	assert_int_equal(rec.size(), 3);
	assert_int_equal(rec.dropped(), 2);
	auto kept = rec.events();
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(kept[i].iteration, i);	// the first ones are kept

	p::trace_info info = sample_info();
	info.max_events = rec.max_events();
	info.dropped = rec.dropped();
	j::value doc = parse(p::to_json(info, kept));
	check_perfetto_keys(doc);
	assert_int_equal(of_phase(doc, "X").size(), 3);
	const j::value &od = member(doc, "otherData");
	assert_int_equal(num(od, "events_recorded"), 3);
	assert_int_equal(num(od, "events_dropped"), 2);
	assert_int_equal(num(od, "max_events"), 3);
	assert_string_equal(str(member(*of_phase(doc, "M")[1], "args"), "labels").c_str(),
			    "executions 3, dropped 2");
}

void threads_share_the_cap(void **)
{
	p::recorder rec(25000);
	std::vector<std::thread> ts;
	for (int t = 0; t < 4; t++)
		ts.emplace_back([&rec, t] {
			p::event e;
			e.vnc = static_cast<uint32_t>(t);
			for (uint32_t i = 0; i < 10000; i++) {
				e.iteration = i;
				rec.add(e);
			}
		});
	for (auto &t : ts)
		t.join();
	assert_int_equal(rec.size(), 25000);
	assert_int_equal(rec.dropped(), 15000);
}

// More than one 64 KiB piece: the pieces join into one document.
void many_events(void **)
{
	std::vector<p::event> v(5000);
	for (uint32_t i = 0; i < v.size(); i++) {
		v[i].start_ns = 1000ull * i;
		v[i].end_ns = 1000ull * i + 500;
		v[i].vnc = i % 4;
		v[i].iteration = i;
	}
	size_t pieces = 0;
	std::string all;
	assert_true(p::write_json(sample_info(), v, [&](std::string_view s) {
		pieces++;
		all.append(s);
		return true;
	}));
	assert_true(pieces > 1);
	j::value doc = parse(all);
	check_perfetto_keys(doc);
	auto xs = of_phase(doc, "X");
	assert_int_equal(xs.size(), 5000);
	assert_int_equal(num(member(*xs[4999], "args"), "iteration"), 4999);
	assert_int_equal(of_phase(doc, "M").size(), 2 + 4);
	// a sink that refuses stops the writer
	pieces = 0;
	assert_false(p::write_json(sample_info(), v, [&](std::string_view) {
		pieces++;
		return false;
	}));
	assert_int_equal(pieces, 1);
}

void save_atomically(void **)
{
	tmpdir d;
	const std::string f = d.path + "/run.json";
	auto events = sample_events();
	assert_int_equal(p::save(f, sample_info(), events), 0);
	assert_true(listing(d.path) == std::vector<std::string>{ "run.json" });
	std::string first = slurp(f);
	assert_true(first == p::to_json(sample_info(), events));
	check_perfetto_keys(parse(first));
	struct stat st;
	assert_int_equal(::stat(f.c_str(), &st), 0);
	assert_true(S_ISREG(st.st_mode));

	// replaced whole
	events.pop_back();
	assert_int_equal(p::save(f, sample_info(), events), 0);
	assert_true(slurp(f) == p::to_json(sample_info(), events));
	std::string second = slurp(f);

	// the disk fills up half way: the old file stays as it was, no temporary is left
	p::save_options fail{ 100, ENOSPC };
	auto big = sample_events();
	assert_int_equal(p::save(f, sample_info(), big, &fail), ENOSPC);
	assert_true(slurp(f) == second);
	assert_true(listing(d.path) == std::vector<std::string>{ "run.json" });
	assert_int_equal(p::status_from_save_errno(ENOSPC), NRT_RESOURCE);
	// nothing at all written, with no earlier file: no file
	p::save_options none{ 0, EIO };
	assert_int_equal(p::save(d.path + "/other.json", sample_info(), big, &none), EIO);
	assert_true(listing(d.path) == std::vector<std::string>{ "run.json" });
	assert_int_equal(p::status_from_save_errno(EIO), NRT_FAILURE);

	// a directory where the file should go: the rename fails after the write
	const std::string sub = d.path + "/adir";
	assert_int_equal(::mkdir(sub.c_str(), 0755), 0);
	int err = p::save(sub, sample_info(), big);
	assert_true(err == EISDIR || err == EEXIST || err == ENOTEMPTY);
	assert_true(listing(d.path) == (std::vector<std::string>{ "adir", "run.json" }));
	assert_int_equal(p::status_from_save_errno(EISDIR), NRT_INVALID);

	// no such directory, a trailing slash, a relative name
	assert_int_equal(p::save(d.path + "/missing/x.json", sample_info(), big), ENOENT);
	assert_int_equal(p::status_from_save_errno(ENOENT), NRT_INVALID);
	assert_int_equal(p::save(d.path + "/", sample_info(), big), EISDIR);
	char cwd[4096];
	assert_non_null(::getcwd(cwd, sizeof(cwd)));
	assert_int_equal(::chdir(d.path.c_str()), 0);
	assert_int_equal(p::save("rel.json", sample_info(), big), 0);
	assert_int_equal(::chdir(cwd), 0);
	assert_true(exists(d.path + "/rel.json"));

	assert_int_equal(p::status_from_save_errno(0), NRT_SUCCESS);
	assert_int_equal(p::status_from_save_errno(EDQUOT), NRT_RESOURCE);
	assert_int_equal(p::status_from_save_errno(EACCES), NRT_FAILURE);
	assert_int_equal(p::status_from_save_errno(EROFS), NRT_FAILURE);
}

// nrt_profile_start/stop on models put straight into the handle table,
// with the runtime marked initialized; executions are fed to
// profile::record as nrt_execute_repeat does.
void start_stop_rules(void **)
{
	nrt::rt::runtime &r = nrt::rt::rt();
	{
		std::lock_guard<std::mutex> g(r.lock);
		r.st = nrt::rt::state::initialized;
	}
	auto ma = std::make_shared<nrt::model::model>();
	ma->desc.name = "first \"model\"";
	ma->vnc_first = 2;
	ma->device_index = 0;
	ma->nc_first = 2;
	auto mb = std::make_shared<nrt::model::model>();
	mb->desc.name = "second";
	auto *a = reinterpret_cast<nrt_model_t *>(nrt::model::models().issue(ma));
	auto *b = reinterpret_cast<nrt_model_t *>(nrt::model::models().issue(mb));
	assert_non_null(a);
	assert_non_null(b);
	tmpdir d;
	const std::string f = d.path + "/a.json";

	assert_int_equal(nrt_profile_start(nullptr, f.c_str()), NRT_INVALID_HANDLE);
	assert_int_equal(nrt_profile_start(a, nullptr), NRT_INVALID);
	assert_int_equal(nrt_profile_start(a, ""), NRT_INVALID);
	assert_false(p::wanted(a));
	assert_int_equal(nrt_profile_start(a, f.c_str()), NRT_SUCCESS);
	assert_true(p::wanted(a));
	assert_false(p::wanted(b));
	// one profile at a time, whatever the model
	assert_int_equal(nrt_profile_start(a, f.c_str()), NRT_INVALID);
	assert_int_equal(nrt_profile_start(b, (d.path + "/b.json").c_str()), NRT_INVALID);

	p::event e;
	e.start_ns = 10000;
	e.end_ns = 20000;
	e.vnc = 2;
	e.nc = 2;
	e.status = NRT_SUCCESS;
	p::record(a, e);
	e.status = NRT_EXEC_BAD_INPUT;
	p::record(b, e);	// another model: not recorded
	p::record(a, e);

	// a stop that cannot write keeps the profile running
	assert_int_equal(nrt_profile_stop((d.path + "/missing/a.json").c_str()), NRT_INVALID);
	assert_true(p::wanted(a));
	assert_true(listing(d.path).empty());

	// unloaded before stop, then the runtime closed: the file still says
	// what was recorded
	nrt::model::models().take(a);
	{
		std::lock_guard<std::mutex> g(r.lock);
		r.st = nrt::rt::state::closed;
	}
	assert_int_equal(nrt_profile_start(b, f.c_str()), NRT_CLOSED);
	assert_int_equal(nrt_profile_stop(f.c_str()), NRT_SUCCESS);
	assert_false(p::wanted(a));
	assert_int_equal(nrt_profile_stop(f.c_str()), NRT_INVALID);	// nothing running now
	j::value doc = parse(slurp(f));
	check_perfetto_keys(doc);
	auto xs = of_phase(doc, "X");
	assert_int_equal(xs.size(), 2);
	assert_string_equal(str(*xs[0], "name").c_str(), "first \"model\"");
	assert_int_equal(num(*xs[0], "tid"), 2);
	assert_string_equal(str(member(*xs[0], "args"), "status").c_str(), "NRT_SUCCESS");
	assert_string_equal(str(member(*xs[1], "args"), "status").c_str(), "NRT_EXEC_BAD_INPUT");
	assert_int_equal(num(member(*xs[1], "args"), "status_code"), NRT_EXEC_BAD_INPUT);
	assert_int_equal(num(member(doc, "otherData"), "pid"), ::getpid());
	assert_int_equal(num(member(doc, "otherData"), "max_events"), p::kMaxEvents);

	// a new profile, of another model, after a stop; the stop names its own file
	{
		std::lock_guard<std::mutex> g(r.lock);
		r.st = nrt::rt::state::initialized;
	}
	assert_int_equal(nrt_profile_start(b, (d.path + "/ignored.json").c_str()), NRT_SUCCESS);
	p::record(a, e);	// the old handle: nothing
	assert_int_equal(nrt_profile_stop((d.path + "/b.json").c_str()), NRT_SUCCESS);
	assert_true(listing(d.path) == (std::vector<std::string>{ "a.json", "b.json" }));
	doc = parse(slurp(d.path + "/b.json"));
	assert_int_equal(of_phase(doc, "X").size(), 0);
	assert_string_equal(str(member(doc, "otherData"), "model").c_str(), "second");

	nrt::model::models().take(b);
	std::lock_guard<std::mutex> g(r.lock);
	r.st = nrt::rt::state::uninitialized;
}


// Executions on several threads while the profile is written: every
// event recorded before the stop is in the file, none after.
void record_from_threads(void **)
{
	nrt::rt::runtime &r = nrt::rt::rt();
	{
		std::lock_guard<std::mutex> g(r.lock);
		r.st = nrt::rt::state::initialized;
	}
	auto m = std::make_shared<nrt::model::model>();
	m->desc.name = "threads";
	auto *h = reinterpret_cast<nrt_model_t *>(nrt::model::models().issue(m));
	assert_non_null(h);
	tmpdir d;
	const std::string f = d.path + "/t.json";
	assert_int_equal(nrt_profile_start(h, f.c_str()), NRT_SUCCESS);
	std::atomic<int> stopped{ 0 };
	std::atomic<uint64_t> before_stop{ 0 };
	std::vector<std::thread> ts;
	for (uint32_t t = 0; t < 4; t++)
		ts.emplace_back([&, t] {
			for (uint32_t i = 0; i < 20000 && !stopped.load(); i++) {
				p::event e;
				e.vnc = t;
				e.iteration = i;
				if (p::wanted(h)) {
					p::record(h, e);
					before_stop++;
				}
			}
		});
	while (before_stop.load() < 2000)
		std::this_thread::yield();
	assert_int_equal(nrt_profile_stop(f.c_str()), NRT_SUCCESS);
	stopped = 1;
	for (auto &t : ts)
		t.join();
	j::value doc = parse(slurp(f));
	check_perfetto_keys(doc);
	size_t n = of_phase(doc, "X").size();
	assert_true(n >= 2000 && n <= before_stop.load());
	assert_int_equal(num(member(doc, "otherData"), "events_recorded"), n);
	nrt::model::models().take(h);
	std::lock_guard<std::mutex> g(r.lock);
	r.st = nrt::rt::state::uninitialized;
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_field),
		cmocka_unit_test(names),
		cmocka_unit_test(escaping),
		cmocka_unit_test(empty_profile),
		cmocka_unit_test(dropped_count),
		cmocka_unit_test(threads_share_the_cap),
		cmocka_unit_test(many_events),
		cmocka_unit_test(save_atomically),
		cmocka_unit_test(start_stop_rules),
		cmocka_unit_test(record_from_threads),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
