// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// What an operator reads about an NRT_STATUS: the class of failure it is
// and what to do about it (nrt-status --explain). One row per assigned
// code (status_explain.cpp); each row's `why` says which words of the
// vendor's error-model reference (docs/error-model.md) put the code in its
// class, so a reviewer can check the choice against the source.
// tests/unit/test_status_explain.cpp checks that the table has exactly one
// row per assigned code, none missing and none extra.
#pragma once

#include <nrt/nrt_error_model.h>
#include <nrt/nrt_status.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace tools::explain {

// The classes. One per code: the first question an operator has is "whose
// problem is this": the caller's (fix the input), nobody's yet (retry),
// the host's capacity (free or add resources), the program's run on the
// device (look at the model and the runtime), or the silicon's (take the
// device or the instance out).
enum class failure_class {
	none,		// not a failure: success
	user_input,	// the caller's arguments, model or use of the API
	transient,	// a state that passes: retry or poll again
	resource,	// memory or NeuronCores not available
	execution,	// the program failed on the device without a named silicon fault
	hardware,	// a fault of the device itself
};

const char *class_name(failure_class c);

const char *class_text(failure_class c);

struct entry {
	uint32_t code;
	failure_class cls;
	const char *why;	// the seed's words that put the code in its class
	const char *action;	// what the operator or the caller does next
};

// One row per assigned code, ascending by code.
extern const entry table[NRT_STATUS_CODE_COUNT];
inline constexpr size_t table_size = NRT_STATUS_CODE_COUNT;

// The row of @code, or nullptr.
const entry *find(uint32_t code);

// CODE as given on the command line: a number (decimal or 0x hex) or a
// name, case-insensitive, NRT_ prefix optional. False, with @why set to one
// line, when it names no assigned code.
bool lookup(const char *arg, const entry **out, std::string &why);

std::string to_text(const entry &e);

std::string to_json(const entry &e);

} // namespace tools::explain
