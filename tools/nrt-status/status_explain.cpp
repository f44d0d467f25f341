// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// nrt-status --explain: the class/action table of every assigned
// NRT_STATUS code and its text and JSON forms (status_explain.hpp).
#include "common/parse_num.hpp"
#include "status_explain.hpp"

#include <cerrno>
#include <cstdlib>

#include "common/json.hpp"

namespace tools::explain {

const char *class_name(failure_class c)
{
	switch (c) {
	case failure_class::none:
		return "none";
	case failure_class::user_input:
		return "user_input";
	case failure_class::transient:
		return "transient";
	case failure_class::resource:
		return "resource";
	case failure_class::execution:
		return "execution";
	case failure_class::hardware:
		return "hardware";
	}
	return "?";
}

const char *class_text(failure_class c)
{
	switch (c) {
	case failure_class::none:
		return "not a failure";
	case failure_class::user_input:
		return "user input: the caller's arguments, model or use of the API";
	case failure_class::transient:
		return "transient: a passing state, retrying can succeed";
	case failure_class::resource:
		return "resource: memory or NeuronCores are not available";
	case failure_class::execution:
		return "execution: the program failed on the device, no silicon fault named";
	case failure_class::hardware:
		return "hardware: a fault of the Neuron device itself";
	}
	return "?";
}

// Ascending by code (checked below: table_sorted, table_complete). The actions for the 1200 band match
// the kernel's NEURON_HW_ERR action words (docs/tools.md).
constexpr entry table[] = {
	{ 0, failure_class::none, "0 is success",
	  "nothing" },
	{ 1, failure_class::user_input,
	  "\"1..3 are the generic input/handle errors\" (1 is the non-specific one)",
	  "read the runtime's log line before this status for the call that failed and its "
	  "arguments; the code itself names no cause" },
	{ 2, failure_class::user_input, "\"1..3 are the generic input/handle errors\"",
	  "fix the argument, NEFF or tensor the call was given (name, shape, dtype, size)" },
	{ 3, failure_class::user_input, "\"1..3 are the generic input/handle errors\"",
	  "pass a handle that is live: not freed, not from another nrt_init()" },
	{ 4, failure_class::resource, "\"4/11 split device-memory vs host-memory allocation failure\"",
	  "device memory is exhausted: unload models or free tensors on that NeuronCore, or "
	  "use a smaller model or batch" },
	{ 5, failure_class::transient, "\"5/6/7/15 are timeout, hardware, and the two queue states\"",
	  "retry; if it keeps timing out, check the device's health (neuron-ls, dmesg "
	  "NEURON_HW_ERR) before retrying again" },
	{ 6, failure_class::hardware, "\"5/6/7/15 are timeout, hardware, and the two queue states\"",
	  "check dmesg for NEURON_HW_ERR and the stats/hardware ECC counters; stop "
	  "scheduling work on the device until it is cleared" },
	{ 7, failure_class::transient, "\"5/6/7/15 are timeout, hardware, and the two queue states\"",
	  "the execution input queue is full: wait for queued work to finish, then submit again" },
	{ 9, failure_class::resource, "\"9/10 are the load-time NeuronCore-count and NEFF-version gates\"",
	  "not enough free NeuronCores: see neuron-ls for the processes holding them, free "
	  "some or load on fewer cores" },
	{ 10, failure_class::user_input,
	  "\"9/10 are the load-time NeuronCore-count and NEFF-version gates\"",
	  "recompile the model with a compiler that matches this runtime's NEFF version" },
	{ 11, failure_class::resource, "\"4/11 split device-memory vs host-memory allocation failure\"",
	  "host memory is exhausted: free host memory or lower the process's use of it" },
	{ 13, failure_class::user_input, "\"13/14 are the lifecycle guards (called before nrt_init / after nrt_close)\"",
	  "the program must call nrt_init() before this call" },
	{ 14, failure_class::user_input, "\"13/14 are the lifecycle guards (called before nrt_init / after nrt_close)\"",
	  "the program must not call the runtime after nrt_close()" },
	{ 15, failure_class::transient, "\"5/6/7/15 are timeout, hardware, and the two queue states\"",
	  "the queue has no data yet: poll again later" },
	{ 101, failure_class::hardware,
	  "\"the unrecoverable end-state of a TPB execution unit ... a terminal signal that the "
	  "exec unit cannot continue\"",
	  "the execution unit cannot continue: stop the job, reset the device (reload the "
	  "driver or reboot) before using it again" },
	{ 1002, failure_class::user_input,
	  "\"a pre-execution input-validation failure (bad tensor name/shape/dtype)\"",
	  "fix the input tensors' names, shapes and dtypes to match the model" },
	{ 1003, failure_class::user_input,
	  "\"the inference ran to completion but produced a numerical error (NaN/Inf)\"",
	  "the model's numbers overflowed: check the input data and the model; "
	  "NEURON_RT_NUMERICAL_ERRORS_VERBOSITY and NEURON_FAIL_ON_NAN control this check" },
	{ 1004, failure_class::execution,
	  "\"completed ... but produced ... a logical/physical error (parity, double-clear)\" "
	  "from the \"memory/fake/semaphore/event/psum/sequencer subtypes\"; the named silicon "
	  "faults go to the 1200 band instead",
	  "the stats/status execute_sw_*_error counters of the core say which subtype; rerun "
	  "once, and if it repeats report the model and runtime version" },
	{ 1005, failure_class::resource,
	  "\"a contention error (NeuronCore owned by another process)\"",
	  "another process holds the NeuronCore: neuron-ls lists who; wait for it or pick "
	  "another core" },
	{ 1006, failure_class::user_input,
	  "\"an out-of-bounds indirect-copy / embedding-update access\"",
	  "an index in the input is out of range for its table: check the indices fed to "
	  "embedding and gather operations" },
	{ 1100, failure_class::transient,
	  "\"It is not an error\"; \"a collective operation has not yet completed and the "
	  "caller should poll again\"",
	  "the collective has not finished: poll again" },
	{ 1200, failure_class::hardware,
	  "\"1200 is a stuck collective (missing notifications)\", one of \"the four "
	  "hardware faults\"",
	  "RESTART_JOB; if it repeats, check the links between devices (neuron-ls --topology)" },
	{ 1201, failure_class::hardware, "\"1201/1205 split HBM uncorrectable errors into unrepairable vs repairable\"; 1201 "
	  "is the unrepairable one",
	  "TERMINATE_INSTANCE: the device memory cannot be repaired" },
	{ 1202, failure_class::hardware, "\"1202 is NeuronCore on-chip SRAM parity\", one of \"the four hardware faults\"",
	  "TERMINATE_INSTANCE: the NeuronCore's memory is faulty" },
	{ 1203, failure_class::hardware, "\"1203 is a DMA-engine abort\", one of \"the four hardware faults\"",
	  "RESTART_JOB; if it repeats on the same device, take the device out of service" },
	{ 1204, failure_class::transient,
	  "\"the software/transient cases 1204 (NQ overflow) and 1206 (network-proxy)\"; "
	  "\"the consumer fell behind the NQ_TYPE_ERROR producer\"",
	  "the error ring overflowed, so not every error of the run is known: rerun; keep "
	  "the process that drains the ring from being starved of CPU" },
	{ 1205, failure_class::hardware, "\"1201/1205 split HBM uncorrectable errors into unrepairable vs repairable\"; 1205 "
	  "is the repairable one",
	  "REBOOT_INSTANCE: a reboot repairs the device memory" },
	{ 1206, failure_class::transient,
	  "\"the software/transient cases 1204 (NQ overflow) and 1206 (network-proxy)\"",
	  "retry; if it repeats, check the network path of the collectives (EFA, proxy)" },
};

namespace {

constexpr bool table_sorted()
{
	for (size_t i = 1; i < table_size; i++)
		if (table[i - 1].code >= table[i].code)
			return false;
	return true;
}

// every row written out: a row missing from the list above would be
// zero-filled to the declared NRT_STATUS_CODE_COUNT, without a reason
constexpr bool table_complete()
{
	for (const entry &e : table)
		if (!e.why || !e.action)
			return false;
	return true;
}

} // namespace

static_assert(table_sorted(), "rows ascending by code, no code twice");
static_assert(table_complete(), "one row per assigned code");

const entry *find(uint32_t code)
{
	for (const entry &e : table)
		if (e.code == code)
			return &e;
	return nullptr;
}

bool lookup(const char *arg, const entry **out, std::string &why)
{
	NRT_STATUS s;
	const char *p = arg;
	bool numeric = *p >= '0' && *p <= '9';
	if (numeric) {
		uint64_t v;
		// decimal or 0x hex, as the usage says (a leading 0 is not octal)
		if (!tools::parse_uint(p, UINT32_MAX, v, true)) {
			why = std::string("'") + arg + "' is not a status number";
			return false;
		}
		s = static_cast<NRT_STATUS>(v);
	} else if (!nrt_status_from_name(arg, &s)) {
		why = std::string("'") + arg + "' names no NRT_STATUS code";
		return false;
	}
	const entry *e = find(static_cast<uint32_t>(s));
	if (!e) {
		why = std::to_string(static_cast<uint32_t>(s)) + " is not an assigned NRT_STATUS code";
		return false;
	}
	*out = e;
	return true;
}

std::string to_text(const entry &e)
{
	auto s = static_cast<NRT_STATUS>(e.code);
	std::string o;
	o += nrt_get_status_as_str(s);
	o += " (" + std::to_string(e.code) + ")\n";
	o += "  class:    ";
	o += class_text(e.cls);
	o += "\n  because:  the error model says ";
	o += e.why;
	o += "\n  action:   ";
	o += e.action;
	o += "\n  priority: " + std::to_string(nrt_get_status_priority(s)) +
	     " (0..3, higher wins when statuses race)\n";
	return o;
}

std::string to_json(const entry &e)
{
	auto s = static_cast<NRT_STATUS>(e.code);
	std::string o = "{\"value\":" + std::to_string(e.code) + ",\"name\":" +
			json::quote(nrt_get_status_as_str(s)) + ",\"class\":" +
			json::quote(class_name(e.cls)) + ",\"class_text\":" +
			json::quote(class_text(e.cls)) + ",\"because\":" + json::quote(e.why) +
			",\"action\":" + json::quote(e.action) +
			",\"priority\":" + std::to_string(nrt_get_status_priority(s)) +
			",\"retry\":" + (nrt_status_is_retry(s) ? "true" : "false") + "}";
	return o;
}

} // namespace tools::explain
