// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The tools' JSON reader (json.hpp) and the string escaper over common/'s
// neuron_json_quote().
#include "json.hpp"

#include <cstdlib>

extern "C" {
#include "neuron_json.h"
}

namespace tools::json {

const value *value::get(std::string_view key) const
{
	if (k != kind::object)
		return nullptr;
	for (const auto &[name, v] : obj)
		if (name == key)
			return &v;
	return nullptr;
}

bool parser::parse(value &out)
{
	ws();
	if (!parse_value(out, 0))
		return false;
	ws();
	if (p_ != s_.size())
		return error_at("trailing characters");
	return true;
}

bool parser::error_at(const char *what)
{
	err_ = std::string(what) + " at offset " + std::to_string(p_);
	return false;
}

void parser::ws()
{
	while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r'))
		p_++;
}

bool parser::lit(std::string_view w)
{
	if (s_.substr(p_, w.size()) != w)
		return false;
	p_ += w.size();
	return true;
}

bool parser::parse_value(value &v, int depth)
{
	if (depth > kMaxDepth)
		return error_at("nesting too deep");
	if (p_ >= s_.size())
		return error_at("unexpected end");
	char c = s_[p_];
	if (c == '{')
		return parse_object(v, depth);
	if (c == '[')
		return parse_array(v, depth);
	if (c == '"') {
		v.k = value::kind::string;
		return parse_string(v.str);
	}
	if (lit("true")) {
		v.k = value::kind::boolean;
		v.b = true;
		return true;
	}
	if (lit("false")) {
		v.k = value::kind::boolean;
		return true;
	}
	if (lit("null")) {
		v.k = value::kind::null;
		return true;
	}
	return parse_number(v);
}

bool parser::parse_number(value &v)
{
	size_t b = p_;
	if (p_ < s_.size() && s_[p_] == '-')
		p_++;
	if (p_ >= s_.size() || s_[p_] < '0' || s_[p_] > '9')
		return error_at("bad value");
	if (s_[p_] == '0')
		p_++;
	else
		while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9')
			p_++;
	if (p_ < s_.size() && s_[p_] == '.') {
		p_++;
		if (p_ >= s_.size() || s_[p_] < '0' || s_[p_] > '9')
			return error_at("bad number");
		while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9')
			p_++;
	}
	if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
		p_++;
		if (p_ < s_.size() && (s_[p_] == '+' || s_[p_] == '-'))
			p_++;
		if (p_ >= s_.size() || s_[p_] < '0' || s_[p_] > '9')
			return error_at("bad number");
		while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9')
			p_++;
	}
	v.k = value::kind::number;
	v.num = std::strtod(std::string(s_.substr(b, p_ - b)).c_str(), nullptr);
	return true;
}

void parser::put_utf8(std::string &o, uint32_t cp)
{
	if (cp < 0x80) {
		o += static_cast<char>(cp);
	} else if (cp < 0x800) {
		o += static_cast<char>(0xC0 | (cp >> 6));
		o += static_cast<char>(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		o += static_cast<char>(0xE0 | (cp >> 12));
		o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
		o += static_cast<char>(0x80 | (cp & 0x3F));
	} else {
		o += static_cast<char>(0xF0 | (cp >> 18));
		o += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
		o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
		o += static_cast<char>(0x80 | (cp & 0x3F));
	}
}

bool parser::hex4(uint32_t &cp)
{
	if (p_ + 4 > s_.size())
		return error_at("short \\u escape");
	cp = 0;
	for (int i = 0; i < 4; i++) {
		char c = s_[p_++];
		cp <<= 4;
		if (c >= '0' && c <= '9')
			cp |= c - '0';
		else if (c >= 'a' && c <= 'f')
			cp |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			cp |= c - 'A' + 10;
		else
			return error_at("bad \\u escape");
	}
	return true;
}

bool parser::parse_string(std::string &o)
{
	p_++;	// opening quote
	while (p_ < s_.size()) {
		char c = s_[p_++];
		if (c == '"')
			return true;
		if (static_cast<unsigned char>(c) < 0x20)
			return error_at("control character in string");
		if (c != '\\') {
			o += c;
			continue;
		}
		if (p_ >= s_.size())
			break;
		char e = s_[p_++];
		switch (e) {
		case '"': o += '"'; break;
		case '\\': o += '\\'; break;
		case '/': o += '/'; break;
		case 'b': o += '\b'; break;
		case 'f': o += '\f'; break;
		case 'n': o += '\n'; break;
		case 'r': o += '\r'; break;
		case 't': o += '\t'; break;
		case 'u': {
			uint32_t cp = 0;
			if (!hex4(cp))
				return false;
			if (cp >= 0xD800 && cp < 0xDC00) {
				uint32_t lo = 0;
				if (!lit("\\u") || !hex4(lo) || lo < 0xDC00 || lo >= 0xE000)
					return error_at("bad surrogate pair");
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			}
			put_utf8(o, cp);
			break;
		}
		default:
			return error_at("bad escape");
		}
	}
	return error_at("unterminated string");
}

bool parser::parse_array(value &v, int depth)
{
	v.k = value::kind::array;
	p_++;
	ws();
	if (p_ < s_.size() && s_[p_] == ']') {
		p_++;
		return true;
	}
	for (;;) {
		value e;
		ws();
		if (!parse_value(e, depth + 1))
			return false;
		v.arr.push_back(std::move(e));
		ws();
		if (p_ < s_.size() && s_[p_] == ',') {
			p_++;
			continue;
		}
		if (p_ < s_.size() && s_[p_] == ']') {
			p_++;
			return true;
		}
		return error_at("expected , or ]");
	}
}

bool parser::parse_object(value &v, int depth)
{
	v.k = value::kind::object;
	p_++;
	ws();
	if (p_ < s_.size() && s_[p_] == '}') {
		p_++;
		return true;
	}
	for (;;) {
		ws();
		if (p_ >= s_.size() || s_[p_] != '"')
			return error_at("expected a member name");
		std::string name;
		if (!parse_string(name))
			return false;
		ws();
		if (p_ >= s_.size() || s_[p_] != ':')
			return error_at("expected :");
		p_++;
		ws();
		value e;
		if (!parse_value(e, depth + 1))
			return false;
		v.obj.emplace_back(std::move(name), std::move(e));
		ws();
		if (p_ < s_.size() && s_[p_] == ',') {
			p_++;
			continue;
		}
		if (p_ < s_.size() && s_[p_] == '}') {
			p_++;
			return true;
		}
		return error_at("expected , or }");
	}
}

std::string quote(std::string_view s)
{
	std::string o(neuron_json_quote(nullptr, 0, s.data(), s.size()), '\0');

	// the literal and its NUL: std::string keeps room for the NUL past size()
	neuron_json_quote(o.data(), o.size() + 1, s.data(), s.size());
	return o;
}

} // namespace tools::json
