// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// NEFF parsing and packing (docs/neff.md). The header is the SDK's
// documented neff_header_t; the archive is read and written by libarchive
// and the digest computed by OpenSSL's libcrypto; only the model
// description (our own line format) is parsed here.
#include "neff.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nrt::neff {

static_assert(EVP_MAX_MD_SIZE <= kMaxDigestLen);

namespace {

uint64_t le64(std::span<const uint8_t> b, size_t at)
{
	uint64_t v = 0;
	for (size_t i = 0; i < 8; i++)
		v |= uint64_t{b[at + i]} << (8 * i);
	return v;
}

uint32_t le32(std::span<const uint8_t> b, size_t at)
{
	uint32_t v = 0;
	for (size_t i = 0; i < 4; i++)
		v |= uint32_t{b[at + i]} << (8 * i);
	return v;
}

void put64(uint8_t *p, uint64_t v)
{
	for (size_t i = 0; i < 8; i++)
		p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void put32(uint8_t *p, uint32_t v)
{
	for (size_t i = 0; i < 4; i++)
		p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// A NUL-terminated (or full-length) string field.
std::string cstr(std::span<const uint8_t> b, size_t at, size_t len)
{
	const char *p = reinterpret_cast<const char *>(b.data() + at);
	return std::string(p, strnlen(p, len));
}

struct archive_deleter {
	void operator()(archive *a) const { archive_read_free(a); }
};
struct archive_write_deleter {
	void operator()(archive *a) const { archive_write_free(a); }
};
struct entry_deleter {
	void operator()(archive_entry *e) const { archive_entry_free(e); }
};

NRT_STATUS parse_model_throwing(std::string_view text, model_desc *m);

// "sgNN/def.json" (NN: one or more digits): a subgraph's starting file in
// the compiler's layout, which marks a compiled NEFF.
bool is_subgraph_def(std::string_view p)
{
	if (!p.starts_with("sg"))
		return false;
	p.remove_prefix(2);
	size_t digits = 0;
	while (digits < p.size() && p[digits] >= '0' && p[digits] <= '9')
		digits++;
	return digits > 0 && p.substr(digits) == "/def.json";
}

// Scan a tar, plain or gzip'd: the model.sim member's text if there is
// one, else whether the compiler's layout is there. NRT_INVALID for
// anything that is not a tar read to its end marker, a second or
// malformed model.sim, or neither payload.
NRT_STATUS scan_archive(std::span<const uint8_t> data, std::string *text, payload *kind)
{
	std::unique_ptr<archive, archive_deleter> a(archive_read_new());
	if (!a)
		return NRT_FAIL_HOST_MEM_ALLOC;
	if (archive_read_support_filter_gzip(a.get()) != ARCHIVE_OK ||
	    archive_read_support_format_tar(a.get()) != ARCHIVE_OK)
		return NRT_FAILURE;
	if (archive_read_open_memory(a.get(), data.data(), data.size()) != ARCHIVE_OK)
		return NRT_INVALID;
	bool found = false, compiled = false, eof = false;
	const uint64_t budget = std::max<uint64_t>(kMinArchiveBytes, kMaxArchiveRatio * data.size());
	uint64_t declared = 0;	// the members' sizes so far
	for (size_t n = 0; n <= kMaxMembers; n++) {
		archive_entry *e;
		int r = archive_read_next_header(a.get(), &e);
		if (r == ARCHIVE_EOF) {
			eof = true;	// the whole archive read to its end marker
			break;
		}
		if (n == kMaxMembers || r != ARCHIVE_OK)
			return NRT_INVALID;
		// a tar, gzip'd or not: no other compression or format
		if (n == 0) {
			int filters = archive_filter_count(a.get());
			if (filters > 2 ||
			    (filters == 2 && archive_filter_code(a.get(), 0) != ARCHIVE_FILTER_GZIP))
				return NRT_INVALID;
		}
		// before the next header skips (decompresses) this member's data
		const int64_t size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
		if (size < 0 || static_cast<uint64_t>(size) > budget - declared)
			return NRT_INVALID;
		declared += static_cast<uint64_t>(size);
		const char *path = archive_entry_pathname(e);
		std::string_view p = path ? path : "";
		if (p.starts_with("./"))
			p.remove_prefix(2);
		if (is_subgraph_def(p) && archive_entry_filetype(e) == AE_IFREG)
			compiled = true;
		if (p != kModelFile)
			continue;	// other members are not read (data skipped lazily)
		if (found || archive_entry_filetype(e) != AE_IFREG || !archive_entry_size_is_set(e) ||
		    archive_entry_size(e) <= 0 ||
		    static_cast<uint64_t>(archive_entry_size(e)) > kMaxModelFile)
			return NRT_INVALID;
		text->resize(static_cast<size_t>(archive_entry_size(e)));
		la_ssize_t got = archive_read_data(a.get(), text->data(), text->size());
		if (got != static_cast<la_ssize_t>(text->size()))
			return NRT_INVALID;
		found = true;
	}
	if (!eof)
		return NRT_INVALID;
	// model.sim wins: a NEFF may carry both, for the simulator and hardware
	*kind = found ? payload::sim : compiled ? payload::compiled : payload::none;
	return *kind == payload::none ? NRT_INVALID : NRT_SUCCESS;
}

enum class recipe_read { ok, absent, bad };

// Read a recipe file: absent when it cannot be opened, bad when it is not
// a regular file of 1..kMaxModelFile bytes or cannot be read whole. The
// open does not block (a FIFO of that name is refused, not waited on).
recipe_read read_recipe(const std::string &path, std::string *text)
{
	int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return recipe_read::absent;
	struct stat st;
	recipe_read r = recipe_read::bad;
	if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    static_cast<uint64_t>(st.st_size) <= kMaxModelFile) {
		text->assign(static_cast<size_t>(st.st_size), '\0');
		size_t got = 0;
		while (got < text->size()) {
			ssize_t n = ::read(fd, text->data() + got, text->size() - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += static_cast<size_t>(n);
		}
		if (got == text->size())
			r = recipe_read::ok;
	}
	::close(fd);
	return r;
}

bool all_zero(std::span<const uint8_t> b)
{
	return std::all_of(b.begin(), b.end(), [](uint8_t c) { return c == 0; });
}

// The recipe of a compiled NEFF: uuid-<uuid>.sim, then hash-<digest>.sim,
// in each directory in order; the first one present is used.
NRT_STATUS find_recipe(const header &h, size_t md_len, const load_options *opt, load_info *info,
		       model_desc *m)
{
	std::vector<std::string> names;
	if (!all_zero(h.uuid))
		names.push_back("uuid-" + hex(h.uuid) + kRecipeSuffix);
	names.push_back("hash-" + hex(std::span<const uint8_t>(h.hash).first(md_len)) + kRecipeSuffix);
	std::vector<std::string> dirs;
	if (opt)
		dirs = opt->recipe_dirs;
	for (const auto &d : dirs) {
		for (const auto &n : names) {
			std::string path = d.empty() || d.back() == '/' ? d + n : d + "/" + n;
			info->tried.push_back(path);
			std::string text;
			recipe_read r = read_recipe(path, &text);
			if (r == recipe_read::absent)
				continue;
			info->recipe = path;
			NRT_STATUS st = r == recipe_read::ok ? parse_model_throwing(text, m) : NRT_INVALID;
			if (st != NRT_SUCCESS)
				info->message = "simulation recipe " + path + " is not a valid model.sim";
			return st;
		}
	}
	info->message = "NEFF '" + h.name + "' was built by the Neuron compiler; the simulated device "
			"runs it from a simulation recipe: put one named " + names.front() +
			(names.size() > 1 ? " or " + names.back() : std::string()) +
			" in $" + kRecipeEnv + " (docs/neff.md)";
	return NRT_UNSUPPORTED_NEFF_VERSION;
}

bool valid_name(std::string_view s)
{
	if (s.empty() || s.size() > kMaxNameLen)
		return false;
	return std::all_of(s.begin(), s.end(), [](char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		       c == '_' || c == '.' || c == ':' || c == '/' || c == '-';
	});
}

bool number(std::string_view s, uint64_t max, uint64_t *v)
{
	if (s.empty())
		return false;
	int base = 10;
	if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s.remove_prefix(2);
		base = 16;
	}
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v, base);
	return ec == std::errc() && p == s.data() + s.size() && *v <= max;
}

constexpr std::pair<std::string_view, op> op_names[] = {
	{ "none", op::none },
	{ "copy", op::copy },
	{ "affine_u32", op::affine_u32 },
	{ "xor_u8", op::xor_u8 },
};

constexpr std::pair<std::string_view, collective> collective_names[] = {
	{ "none", collective::none },
	{ "all_reduce_sum_u32", collective::all_reduce_sum_u32 },
};

std::vector<std::string_view> split(std::string_view line)
{
	std::vector<std::string_view> t;
	size_t i = 0;
	while (i < line.size()) {
		while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
			i++;
		size_t j = i;
		while (j < line.size() && line[j] != ' ' && line[j] != '\t')
			j++;
		if (j > i)
			t.push_back(line.substr(i, j - i));
		i = j;
	}
	return t;
}

NRT_STATUS parse_model_throwing(std::string_view text, model_desc *m)
{
	*m = model_desc{};
	bool have_format = false, have[7] = {};
	size_t pos = 0;
	while (pos < text.size()) {
		size_t nl = text.find('\n', pos);
		std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
		pos = nl == std::string_view::npos ? text.size() : nl + 1;
		if (!line.empty() && line.back() == '\r')
			line.remove_suffix(1);
		if (line.find('\0') != std::string_view::npos)
			return NRT_INVALID;
		auto t = split(line);
		if (t.empty() || t[0].starts_with('#'))
			continue;
		uint64_t v;
		if (!have_format) {
			// the first line says which description format this is
			if (t[0] != "format" || t.size() != 2 || !number(t[1], UINT32_MAX, &v))
				return NRT_INVALID;
			if (v != kModelFormat)
				return NRT_UNSUPPORTED_NEFF_VERSION;
			have_format = true;
			continue;
		}
		std::string_view k = t[0];
		// single-valued keys, each at most once
		static constexpr std::string_view once[] = { "name", "nc_count", "run_time_us", "op",
							     "in_offset", "proxy", "collective" };
		static_assert(std::size(once) == std::size(have));
		for (size_t i = 0; i < std::size(once); i++) {
			if (k != once[i])
				continue;
			if (have[i])
				return NRT_INVALID;
			have[i] = true;
		}
		if (k == "name") {
			if (t.size() != 2 || !valid_name(t[1]))
				return NRT_INVALID;
			m->name = t[1];
		} else if (k == "nc_count") {
			if (t.size() != 2 || !number(t[1], kMaxNc, &v) || v == 0)
				return NRT_INVALID;
			m->nc_count = static_cast<uint32_t>(v);
		} else if (k == "run_time_us") {
			if (t.size() != 2 || !number(t[1], kMaxRunTimeUs, &v))
				return NRT_INVALID;
			m->run_time_us = v;
		} else if (k == "in_offset") {
			if (t.size() != 2 || !number(t[1], kMaxTensorBytes, &v))
				return NRT_INVALID;
			m->in_offset = v;
		} else if (k == "proxy") {
			// an absolute path of printable characters, as a sun_path holds it
			if (t.size() != 2 || t[1].size() > kMaxProxyLen || !t[1].starts_with('/') ||
			    !std::all_of(t[1].begin(), t[1].end(),
					 [](char c) { return c > ' ' && c < 0x7f; }))
				return NRT_INVALID;
			m->proxy = t[1];
		} else if (k == "collective") {
			if (t.size() != 2)
				return NRT_INVALID;
			auto it = std::find_if(std::begin(collective_names), std::end(collective_names),
					       [&](const auto &p) { return p.first == t[1]; });
			if (it == std::end(collective_names))
				return NRT_INVALID;
			m->coll = it->second;
		} else if (k == "op") {
			if (t.size() < 2 || t.size() > 4)
				return NRT_INVALID;
			auto it = std::find_if(std::begin(op_names), std::end(op_names),
					       [&](const auto &p) { return p.first == t[1]; });
			if (it == std::end(op_names))
				return NRT_INVALID;
			m->program = it->second;
			uint64_t a[2] = { 0, 0 };
			for (size_t i = 2; i < t.size(); i++)
				if (!number(t[i], UINT32_MAX, &a[i - 2]))
					return NRT_INVALID;
			m->arg0 = static_cast<uint32_t>(a[0]);
			m->arg1 = static_cast<uint32_t>(a[1]);
		} else if (k == "input" || k == "output") {
			auto &list = k == "input" ? m->inputs : m->outputs;
			if (t.size() != 3 || !valid_name(t[1]) || !number(t[2], kMaxTensorBytes, &v) ||
			    v == 0 || list.size() >= kMaxTensors)
				return NRT_INVALID;
			for (const auto &x : m->inputs)
				if (x.name == t[1])
					return NRT_INVALID;
			for (const auto &x : m->outputs)
				if (x.name == t[1])
					return NRT_INVALID;
			list.push_back(tensor_desc{ std::string(t[1]), v });
		} else {
			return NRT_INVALID;	// unknown keys are refused, not ignored
		}
	}
	if (!have_format || !have[0])
		return NRT_INVALID;
	if (m->program != op::none) {
		// the program maps inputs[0] to outputs[0], word for word
		if (m->inputs.empty() || m->outputs.empty())
			return NRT_INVALID;
		if (m->program == op::affine_u32 && m->outputs[0].bytes % 4)
			return NRT_INVALID;
	} else if (m->in_offset || m->coll != collective::none) {
		return NRT_INVALID;
	}
	// the collective sums outputs[0] word for word
	if (m->coll == collective::all_reduce_sum_u32 && m->outputs[0].bytes % 4)
		return NRT_INVALID;
	return NRT_SUCCESS;
}

} // namespace

size_t digest(uint64_t packaging_version, std::span<const uint8_t> data, uint8_t *md)
{
	const EVP_MD *type;
	if (packaging_version == kPackagingSha256)
		type = EVP_sha256();
	else if (packaging_version == kPackagingMd5)
		type = EVP_md5();
	else
		return 0;
	unsigned int len = 0;
	if (EVP_Digest(data.data(), data.size(), md, &len, type, nullptr) != 1)
		return 0;
	return len;
}

std::string hex(std::span<const uint8_t> b)
{
	static constexpr char digits[] = "0123456789abcdef";
	std::string s;
	s.reserve(b.size() * 2);
	for (uint8_t c : b) {
		s += digits[c >> 4];
		s += digits[c & 15];
	}
	return s;
}

load_options options_from_env()
{
	load_options o;
	const char *v = std::getenv(kRecipeEnv);
	std::string_view s = v ? v : "";
	while (!s.empty()) {
		size_t c = s.find(':');
		std::string_view d = s.substr(0, c);
		if (!d.empty())
			o.recipe_dirs.emplace_back(d);
		s = c == std::string_view::npos ? std::string_view{} : s.substr(c + 1);
	}
	return o;
}

NRT_STATUS parse_header(std::span<const uint8_t> b, header *h) noexcept
{
	if (b.size() < kHeaderSize)
		return NRT_INVALID;
	try {
		h->packaging_version = le64(b, off::packaging_version);
		h->header_size = le64(b, off::header_size);
		h->data_size = le64(b, off::data_size);
		h->version_major = le64(b, off::version_major);
		h->version_minor = le64(b, off::version_minor);
		h->version_build = cstr(b, off::version_build, kVersionBuildLen);
		h->num_tpb = le32(b, off::num_tpb);
		std::memcpy(h->hash.data(), b.data() + off::hash, kHashLen);
		std::memcpy(h->uuid.data(), b.data() + off::uuid, kUuidLen);
		h->name = cstr(b, off::name, kNameLen);
		h->requested_tpb_count = le32(b, off::requested_tpb_count);
		std::memcpy(h->tpb_per_node.data(), b.data() + off::tpb_per_node, kTpbPerNodeLen);
		h->feature_bits = le64(b, off::feature_bits);
		h->lnc_size = le32(b, off::lnc_size);
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return NRT_SUCCESS;
}

NRT_STATUS parse_model(std::string_view text, model_desc *model) noexcept
{
	try {
		return parse_model_throwing(text, model);
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
}

NRT_STATUS parse(std::span<const uint8_t> b, header *h, model_desc *m, const load_options *opt,
		 load_info *info) noexcept
{
	load_info scratch;
	if (!info)
		info = &scratch;
	NRT_STATUS st = parse_header(b, h);
	if (st != NRT_SUCCESS)
		return st;
	// The version decides how the rest is read, so it is checked first.
	if (h->packaging_version != kPackagingSha256 && h->packaging_version != kPackagingMd5)
		return NRT_UNSUPPORTED_NEFF_VERSION;
	// data_size is compared without adding to it: any u64 is safe
	if (h->header_size != kHeaderSize || h->data_size == 0 ||
	    h->data_size != b.size() - kHeaderSize)
		return NRT_INVALID;
	auto data = b.subspan(kHeaderSize);
	uint8_t md[kMaxDigestLen] = {};
	size_t len = digest(h->packaging_version, data, md);
	if (!len || len > kHashLen)
		return NRT_FAILURE;
	// the digest's own length: what follows an MD5 in the field is not
	// described by the SDK, so it is not judged
	if (CRYPTO_memcmp(md, b.data() + off::hash, len) != 0)
		return NRT_INVALID;
	try {
		std::string text;
		st = scan_archive(data, &text, &info->kind);
		if (st != NRT_SUCCESS)
			return st;
		if (info->kind == payload::sim)
			st = parse_model_throwing(text, m);
		else
			st = find_recipe(*h, len, opt, info, m);
		if (st != NRT_SUCCESS)
			return st;
		if (h->requested_tpb_count && h->requested_tpb_count != m->nc_count) {
			info->message = "the model needs " + std::to_string(m->nc_count) +
					" NeuronCore(s), the header requests " +
					std::to_string(h->requested_tpb_count);
			return NRT_INVALID;
		}
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return NRT_SUCCESS;
}

std::string format(const model_desc &m)
{
	std::string s = "format 1\n";
	s += "name " + m.name + "\n";
	s += "nc_count " + std::to_string(m.nc_count) + "\n";
	s += "run_time_us " + std::to_string(m.run_time_us) + "\n";
	auto it = std::find_if(std::begin(op_names), std::end(op_names),
			       [&](const auto &p) { return p.second == m.program; });
	s += "op " + std::string(it == std::end(op_names) ? "none" : it->first) + " " +
	     std::to_string(m.arg0) + " " + std::to_string(m.arg1) + "\n";
	if (m.in_offset)
		s += "in_offset " + std::to_string(m.in_offset) + "\n";
	if (!m.proxy.empty())
		s += "proxy " + m.proxy + "\n";
	if (m.coll != collective::none) {
		auto c = std::find_if(std::begin(collective_names), std::end(collective_names),
				      [&](const auto &p) { return p.second == m.coll; });
		s += "collective " + std::string(c->first) + "\n";
	}
	for (const auto &t : m.inputs)
		s += "input " + t.name + " " + std::to_string(t.bytes) + "\n";
	for (const auto &t : m.outputs)
		s += "output " + t.name + " " + std::to_string(t.bytes) + "\n";
	return s;
}

namespace {

la_ssize_t append_cb(archive *, void *ctx, const void *buf, size_t n)
{
	auto *v = static_cast<std::vector<uint8_t> *>(ctx);
	try {
		const auto *p = static_cast<const uint8_t *>(buf);
		v->insert(v->end(), p, p + n);
	} catch (...) {
		return -1;
	}
	return static_cast<la_ssize_t>(n);
}

} // namespace

bool pack_members(const std::vector<member> &members, const model_desc *hm,
		  const pack_options &opt, std::vector<uint8_t> *out)
{
	std::vector<uint8_t> data;
	{
		std::unique_ptr<archive, archive_write_deleter> a(archive_write_new());
		if (!a)
			return false;
		if (archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
		    archive_write_set_format_ustar(a.get()) != ARCHIVE_OK ||
		    archive_write_set_bytes_in_last_block(a.get(), 1) != ARCHIVE_OK ||
		    archive_write_open(a.get(), &data, nullptr, append_cb, nullptr) != ARCHIVE_OK)
			return false;
		for (const auto &mb : members) {
			std::unique_ptr<archive_entry, entry_deleter> e(archive_entry_new());
			if (!e)
				return false;
			archive_entry_set_pathname(e.get(), mb.path.c_str());
			archive_entry_set_filetype(e.get(), AE_IFREG);
			archive_entry_set_perm(e.get(), 0644);
			archive_entry_set_size(e.get(), static_cast<la_int64_t>(mb.data.size()));
			if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK)
				return false;
			if (!mb.data.empty() &&
			    archive_write_data(a.get(), mb.data.data(), mb.data.size()) !=
				    static_cast<la_ssize_t>(mb.data.size()))
				return false;
		}
		if (archive_write_close(a.get()) != ARCHIVE_OK)
			return false;
	}
	out->assign(kHeaderSize, 0);
	uint8_t *h = out->data();
	put64(h + off::packaging_version, opt.packaging_version);
	put64(h + off::header_size, kHeaderSize);
	put64(h + off::data_size, data.size() + opt.data_size_delta);
	put64(h + off::version_major, opt.version_major);
	put64(h + off::version_minor, opt.version_minor);
	std::memcpy(h + off::version_build, opt.version_build.data(),
		    std::min(opt.version_build.size(), kVersionBuildLen - 1));
	uint32_t nc = hm ? hm->nc_count : 0;
	put32(h + off::num_tpb, nc);
	put32(h + off::requested_tpb_count, nc);
	if (hm) {
		std::memcpy(h + off::name, hm->name.data(), std::min(hm->name.size(), kNameLen - 1));
		// one kelf node, on every NeuronCore the model needs
		h[off::tpb_per_node] = static_cast<uint8_t>(std::min<uint32_t>(nc, UINT8_MAX));
	}
	put64(h + off::feature_bits, opt.feature_bits);
	put32(h + off::lnc_size, opt.lnc_size);
	uint8_t md[kMaxDigestLen] = {};
	// an unsupported version gets a SHA-256, so only the version is wrong
	uint64_t dv = opt.packaging_version == kPackagingMd5 ? kPackagingMd5 : kPackagingSha256;
	size_t len = digest(dv, data, md);
	if (!len || len > kHashLen)
		return false;
	if (opt.corrupt_hash)
		md[0] ^= 0x5a;
	std::memcpy(h + off::hash, md, len);
	// uuid: given, or the digest's first 16 bytes with the RFC 4122
	// version-4 and variant bits, so the same input packs the same bytes
	if (opt.uuid_set) {
		std::memcpy(h + off::uuid, opt.uuid.data(), kUuidLen);
	} else {
		std::memcpy(h + off::uuid, md, kUuidLen);
		h[off::uuid + 6] = static_cast<uint8_t>((h[off::uuid + 6] & 0x0f) | 0x40);
		h[off::uuid + 8] = static_cast<uint8_t>((h[off::uuid + 8] & 0x3f) | 0x80);
	}
	out->insert(out->end(), data.begin(), data.end());
	return true;
}

bool pack(std::string_view text, const model_desc *hm, const pack_options &opt,
	  std::vector<uint8_t> *out)
{
	try {
		return pack_members({ member{ kModelFile, std::string(text) } }, hm, opt, out);
	} catch (...) {
		return false;
	}
}

} // namespace nrt::neff
