// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The profile recorder and its Chrome trace event JSON writer
// (profile_trace.hpp).
#include "profile_trace.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "status.hpp"

extern "C" {
#include "neuron_json.h"
#include "neuron_names.h"
}

namespace nrt::profile {

static_assert(sizeof(event) == 48, "keep the cap's memory bound true");

void recorder::add(const event &e) noexcept
{
	std::lock_guard<std::mutex> g(lock_);
	if (events_.size() >= max_) {
		dropped_++;
		return;
	}
	try {
		events_.push_back(e);
	} catch (...) {
		dropped_++;	// out of memory: the execution is lost, not the profile
	}
}

size_t recorder::size() const
{
	std::lock_guard<std::mutex> g(lock_);
	return events_.size();
}

uint64_t recorder::dropped() const
{
	std::lock_guard<std::mutex> g(lock_);
	return dropped_;
}

std::vector<event> recorder::events() const
{
	std::lock_guard<std::mutex> g(lock_);
	return events_;
}

// INFER_ERROR_SUBTYPE (include/nrt/nrt_error_model.h) without the prefix.
const char *subtype_name(unsigned subtype)
{
	static const char *const names[] = {
		"NONE", "NUMERICAL", "TRANSIENT", "MEMORY_ERROR", "SW_FAKE_ERROR",
		"SW_SEMAPHORE_ERROR", "SW_EVENT_ERROR", "SW_PSUM_COLLISION_ERROR",
		"SW_SEQUENCER_ERROR",
	};
	return subtype < std::size(names) ? names[subtype] : "UNKNOWN";
}

// enum neuron_nq_hw_error (include/uapi/neuron/neuron_nq.h), 1..5 (common/neuron_names)
const char *hw_fault_name(unsigned fault)
{
	return neuron_hw_fault_name(fault);
}

namespace {


// Microseconds with three decimals (the file's ts and dur): exact ns.
void append_us(std::string &o, uint64_t ns)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), "%llu.%03u", static_cast<unsigned long long>(ns / 1000),
		      static_cast<unsigned>(ns % 1000));
	o += buf;
}

void append_u(std::string &o, uint64_t v)
{
	o += std::to_string(v);
}

void append_errors(std::string &o, const exec_errors &e)
{
	o += "{\"entries\":";
	append_u(o, e.entries);
	o += ",\"malformed\":";
	append_u(o, e.malformed);
	o += ",\"ring_dropped\":";
	append_u(o, e.ring_dropped);
	o += ",\"overflow\":";
	o += e.overflow ? "true" : "false";
	o += ",\"subtypes\":[";
	bool first = true;
	for (unsigned s = 0; s < 16; s++) {
		if (!(e.subtypes & (1u << s)))
			continue;
		o += first ? "" : ",";
		o += json_quote(subtype_name(s));
		first = false;
	}
	o += "],\"hw_faults\":[";
	first = true;
	for (unsigned f = 0; f < 8; f++) {
		if (!(e.hw_faults & (1u << f)))
			continue;
		o += first ? "" : ",";
		o += json_quote(hw_fault_name(f));
		first = false;
	}
	o += "]}";
}

std::string core_name(uint32_t vnc, uint16_t device, uint16_t nc)
{
	return "NeuronCore " + std::to_string(vnc) + " (device " + std::to_string(device) +
	       ", nc " + std::to_string(nc) + ")";
}

void append_thread_name(std::string &o, const std::string &pid, uint32_t vnc, uint16_t device,
			uint16_t nc)
{
	o += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + pid + ",\"tid\":";
	append_u(o, vnc);
	o += ",\"args\":{\"name\":" + json_quote(core_name(vnc, device, nc)) + "}},\n";
}

constexpr size_t kChunk = 64 * 1024;

} // namespace

std::string json_quote(std::string_view s)
{
	std::string o(neuron_json_quote(nullptr, 0, s.data(), s.size()), '\0');

	// the literal and its NUL: std::string keeps room for the NUL past size()
	neuron_json_quote(o.data(), o.size() + 1, s.data(), s.size());
	return o;
}

bool write_json(const trace_info &info, const std::vector<event> &events,
		const std::function<bool(std::string_view)> &sink)
{
	const std::string pid = std::to_string(info.pid);
	const std::string name = json_quote(info.model_name.empty() ? "(unnamed model)" : info.model_name);
	std::string o;
	o.reserve(kChunk + 1024);
	auto flush = [&](bool force) {
		if (o.size() < kChunk && !force)
			return true;
		bool ok = o.empty() || sink(o);
		o.clear();
		return ok;
	};

	o += "{\"traceEvents\":[\n";
	// metadata events: the process, and one thread per NeuronCore seen
	o += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + pid +
	     ",\"tid\":0,\"args\":{\"name\":" + json_quote("libnrt profile (pid " + pid + ")") + "}},\n";
	o += "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":" + pid +
	     ",\"tid\":0,\"args\":{\"labels\":" +
	     json_quote("executions " + std::to_string(events.size()) + ", dropped " +
			std::to_string(info.dropped)) + "}},\n";
	std::set<uint32_t> named{ info.vnc };
	append_thread_name(o, pid, info.vnc, info.device, info.nc);
	for (const event &e : events) {
		if (named.insert(e.vnc).second)
			append_thread_name(o, pid, e.vnc, e.device, e.nc);
		if (!flush(false))
			return false;
	}
	// one complete event per execution
	for (size_t i = 0; i < events.size(); i++) {
		const event &e = events[i];
		o += "{\"ph\":\"X\",\"cat\":\"nrt_execute\",\"name\":" + name + ",\"pid\":" + pid +
		     ",\"tid\":";
		append_u(o, e.vnc);
		o += ",\"ts\":";
		append_us(o, e.start_ns);
		o += ",\"dur\":";
		append_us(o, e.end_ns >= e.start_ns ? e.end_ns - e.start_ns : 0);
		o += ",\"args\":{\"status\":";
		o += json_quote(status::as_str(static_cast<uint32_t>(e.status)));
		o += ",\"status_code\":" + std::to_string(e.status) + ",\"device\":";
		append_u(o, e.device);
		o += ",\"nc\":";
		append_u(o, e.nc);
		o += ",\"iteration\":";
		append_u(o, e.iteration);
		o += ",\"errors\":";
		append_errors(o, e.errors);
		o += "}}";
		o += i + 1 < events.size() ? ",\n" : "\n";
		if (!flush(false))
			return false;
	}
	if (events.empty()) {
		// the metadata list ends with ",\n": drop the comma
		o.resize(o.size() - 2);
		o += "\n";
	}
	o += "],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"format\":\"libnrt-profile\",\"version\":";
	o += std::to_string(kFormatVersion);
	o += ",\"model\":" + name + ",\"pid\":" + pid;
	o += ",\"clock\":\"steady_clock (CLOCK_MONOTONIC), ts and dur in microseconds\"";
	o += ",\"events_recorded\":" + std::to_string(events.size());
	o += ",\"events_dropped\":" + std::to_string(info.dropped);
	o += ",\"max_events\":" + std::to_string(info.max_events);
	o += "}}\n";
	return flush(true);
}

std::string to_json(const trace_info &info, const std::vector<event> &events)
{
	std::string all;
	write_json(info, events, [&](std::string_view piece) {
		all.append(piece);
		return true;
	});
	return all;
}

int save(const std::string &path, const trace_info &info, const std::vector<event> &events,
	 const save_options *opt) noexcept
try {
	if (path.empty() || path.back() == '/')
		return EISDIR;
	size_t slash = path.rfind('/');
	std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
	std::string base = slash == std::string::npos ? path : path.substr(slash + 1);

	// a name of our own beside the target: O_EXCL, so never someone else's file
	static unsigned serial;
	std::string tmp;
	int fd = -1;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		tmp = (slash == std::string::npos ? "" : path.substr(0, slash + 1)) + "." + base + "." +
		      std::to_string(::getpid()) + "." +
		      std::to_string(__atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED)) + ".tmp";
		fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			return errno;
	}
	if (fd < 0)
		return EEXIST;
	// from here every way out but the rename's success removes the file
	struct remove_tmp {
		const std::string &name;
		bool armed = true;
		~remove_tmp()
		{
			if (armed)
				::unlink(name.c_str());
		}
	} cleanup{ tmp };

	size_t written = 0;
	int err = 0;
	bool ok = false;
	try {
		ok = write_json(info, events, [&](std::string_view piece) {
			while (!piece.empty()) {
				size_t n = piece.size();
				if (opt && written + n > opt->fail_after_bytes) {
					n = opt->fail_after_bytes - written;
					if (!n) {
						err = opt->fail_errno ? opt->fail_errno : EIO;
						return false;
					}
				}
				ssize_t w = ::write(fd, piece.data(), n);
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0) {
					err = w < 0 ? errno : EIO;
					return false;
				}
				written += static_cast<size_t>(w);
				piece.remove_prefix(static_cast<size_t>(w));
			}
			return true;
		});
	} catch (...) {
		err = ENOMEM;
	}
	if (ok && ::fsync(fd) != 0)
		err = errno;
	if (::close(fd) != 0 && !err)
		err = errno;
	if (!ok && !err)
		err = EIO;
	if (!err && ::rename(tmp.c_str(), path.c_str()) != 0)
		err = errno;
	if (err)
		return err;
	cleanup.armed = false;
	// the rename itself on disk; a failure here leaves a complete file
	int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		::fsync(dfd);
		::close(dfd);
	}
	return 0;
} catch (...) {
	return ENOMEM;
}

NRT_STATUS status_from_save_errno(int err)
{
	switch (err) {
	case 0:
		return NRT_SUCCESS;
	case ENOSPC:
	case EDQUOT:
	case ENOMEM:
	case EMFILE:
	case ENFILE:
		return NRT_RESOURCE;
	case ENOENT:
	case ENOTDIR:
	case EISDIR:
	case ENAMETOOLONG:
	case ELOOP:
	case EINVAL:
		return NRT_INVALID;
	default:
		return NRT_FAILURE;
	}
}

} // namespace nrt::profile
