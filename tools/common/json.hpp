/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// A small JSON reader for the tools, and the string escaper of common/
// (json.cpp; the host unit tests link it too). The reader takes RFC 8259
// text: objects, arrays, strings (with \uXXXX escapes, BMP and surrogate
// pairs), numbers, true/false/null; anything else is an error with the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tools::json {

struct value {
	enum class kind { null, boolean, number, string, array, object };
	kind k = kind::null;
	bool b = false;
	double num = 0;
	std::string str;
	std::vector<value> arr;
	std::vector<std::pair<std::string, value>> obj;	// in document order

	// The member @key of an object, or nullptr.
	const value *get(std::string_view key) const;
	bool is_string() const { return k == kind::string; }
	bool is_number() const { return k == kind::number; }
	bool is_array() const { return k == kind::array; }
	bool is_object() const { return k == kind::object; }
};

class parser {
public:
	explicit parser(std::string_view text) : s_(text) {}

	// The document's value; false with error() set when it is not JSON.
	bool parse(value &out);
	const std::string &error() const { return err_; }

private:
	static constexpr int kMaxDepth = 64;
	std::string_view s_;
	size_t p_ = 0;
	std::string err_;

	bool error_at(const char *what);
	void ws();
	bool lit(std::string_view w);
	bool parse_value(value &v, int depth);
	bool parse_number(value &v);
	static void put_utf8(std::string &o, uint32_t cp);
	bool hex4(uint32_t &cp);
	bool parse_string(std::string &o);
	bool parse_array(value &v, int depth);
	bool parse_object(value &v, int depth);
};

// @s as a JSON string literal, quotes included (common/neuron_json: control
// bytes and DEL escaped, malformed UTF-8 as U+FFFD).
std::string quote(std::string_view s);

} // namespace tools::json
