// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// nrt-status: explain an NRT_STATUS code, or what an errno becomes at each
// libnrt syscall site. Everything shown comes from libnrt's error-model
// API, so the tool cannot disagree with the library.
#include <nrt/nrt_error_model.h>
#include <nrt/nrt_status.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/parse_num.hpp"
#include "status_explain.hpp"

extern "C" {
#include "neuron_names.h"
}

namespace {

constexpr int EXIT_USAGE = 2;

const char *const usage_text =
	"usage: nrt-status [--json] CODE|NAME\n"
	"       nrt-status [--json] --errno ERRNO [--site SITE]\n"
	"       nrt-status [--json] --all\n"
	"       nrt-status [--json] --explain CODE|NAME\n"
	"       nrt-status --help\n"
	"\n"
	"  CODE|NAME      an NRT_STATUS value (decimal or 0x hex) or name\n"
	"                 (NRT_EXEC_OOB, exec_oob): prints its name, value, band,\n"
	"                 priority, whether it is a retry signal, the NDS counters\n"
	"                 it increments and their sysfs files\n"
	"                 (neuron_coreK/stats/<group>/<name>), and which error-ring\n"
	"                 entries decode to it\n"
	"  --errno ERRNO  errno by name (EBUSY) or number (16 or -16): the status it\n"
	"                 maps to at every syscall site, or only at --site\n"
	"  --site SITE    open, get_info, nds_acquire, nds_mmap, counter_add,\n"
	"                 nq_init, nq_mmap, core_reserve, exec\n"
	"  --all          the table of all 28 codes\n"
	"  --explain CODE what class of failure CODE is (user_input, transient,\n"
	"                 resource, execution, hardware; none for success), why\n"
	"                 the error model puts it there, and what to do; CODE is a\n"
	"                 number or a name as above, and must be an assigned code\n"
	"  --json         JSON output for any mode\n"
	"\n"
	"exit status: 0 ok; 2 bad usage, or input that names no code/errno/site\n"
	"(a number that is not an assigned code is still described, as UNKNOWN,\n"
	"except by --explain, which prints only the one-line reason on stderr)\n";

[[noreturn]] void die_usage(const char *fmt, const char *arg)
{
	std::fprintf(stderr, "nrt-status: ");
	std::fprintf(stderr, fmt, arg);
	std::fprintf(stderr, " (try --help)\n");
	std::exit(EXIT_USAGE);
}

// ---- error-ring sources --------------------------------------------------


enum source_kind { SRC_TPB, SRC_HW, SRC_OVERFLOW };

struct source {
	source_kind kind;
	uint32_t id;
	const char *name;
};

nrt_infer_errors_t errs_of(const source &s)
{
	nrt_infer_errors_t e;
	nrt_infer_errors_clear(&e);
	switch (s.kind) {
	case SRC_TPB:
		nrt_infer_errors_add_tpb(&e, s.id);
		break;
	case SRC_HW:
		nrt_infer_errors_add_hw(&e, s.id);
		break;
	case SRC_OVERFLOW:
		nrt_infer_errors_add_overflow(&e);
		break;
	}
	return e;
}

template <typename F>
void for_each_source(F fn)
{
	for (uint32_t t = 0; t < NEURON_TPB_ERROR_COUNT; t++)
		fn(source{ SRC_TPB, t, neuron_tpb_error_names[t] });
	for (uint32_t h = 1; h < NRT_HW_FAULT_SLOTS; h++)
		fn(source{ SRC_HW, h, neuron_hw_fault_name(h) });
	fn(source{ SRC_OVERFLOW, 0, "SW_OVERFLOW" });
}

const char *kind_name(source_kind k)
{
	switch (k) {
	case SRC_TPB:
		return "tpb_error";
	case SRC_HW:
		return "hw_error";
	case SRC_OVERFLOW:
		break;
	}
	return "overflow";
}

// ---- counters ------------------------------------------------------------

struct id_list {
	uint32_t ids[NRT_BRIDGE_MAX_EXEC_COUNTERS];
	size_t n;
};

id_list exec_counters(NRT_STATUS s, const nrt_infer_errors_t *e)
{
	id_list l{};
	l.n = nrt_bridge_counters_for_execution(s, e, l.ids, NRT_BRIDGE_MAX_EXEC_COUNTERS);
	if (l.n > NRT_BRIDGE_MAX_EXEC_COUNTERS)
		l.n = NRT_BRIDGE_MAX_EXEC_COUNTERS;
	return l;
}

bool contains(const id_list &l, uint32_t id)
{
	for (size_t i = 0; i < l.n; i++)
		if (l.ids[i] == id)
			return true;
	return false;
}

// Ids of @with that are not in @base.
id_list minus(const id_list &with, const id_list &base)
{
	id_list r{};
	for (size_t i = 0; i < with.n; i++)
		if (!contains(base, with.ids[i]))
			r.ids[r.n++] = with.ids[i];
	return r;
}

void text_counter(uint32_t id, const char *indent)
{
	nrt_counter_info_t ci;
	if (!nrt_bridge_counter_info(id, &ci)) {
		std::printf("%s%-3u ?\n", indent, id);
		return;
	}
	char cw[16] = "-";
	if (ci.cw_id >= 0)
		std::snprintf(cw, sizeof(cw), "%d", ci.cw_id);
	std::printf("%s%-3u %-29s cw %-4s", indent, id, ci.name, cw);
	if (ci.sysfs_attr)
		std::printf(" neuron_coreK/stats/%s/%s\n", ci.sysfs_group, ci.sysfs_attr);
	else
		std::printf(" (no sysfs file)\n");
}

void json_counter(uint32_t id)
{
	nrt_counter_info_t ci;
	if (!nrt_bridge_counter_info(id, &ci)) {
		std::printf("{\"id\":%u}", id);
		return;
	}
	std::printf("{\"id\":%u,\"name\":\"%s\",", id, ci.name);
	if (ci.sysfs_attr)
		std::printf("\"sysfs\":\"neuron_coreK/stats/%s/%s\",", ci.sysfs_group, ci.sysfs_attr);
	else
		std::printf("\"sysfs\":null,");
	if (ci.cw_id >= 0)
		std::printf("\"cw_id\":%d}", ci.cw_id);
	else
		std::printf("\"cw_id\":null}");
}

void json_counters(const id_list &l)
{
	std::printf("[");
	for (size_t i = 0; i < l.n; i++) {
		if (i)
			std::printf(",");
		json_counter(l.ids[i]);
	}
	std::printf("]");
}

// ---- one code ------------------------------------------------------------

const nrt_decode_config_t disarmed = { false };
const nrt_decode_config_t armed = { true };

// "" when the source yields @s either way, "armed"/"disarmed" when only
// then, nullptr when never.
const char *source_condition(const source &src, NRT_STATUS s)
{
	nrt_infer_errors_t e = errs_of(src);
	bool d = nrt_infer_errors_status(&e, &disarmed) == s;
	bool a = nrt_infer_errors_status(&e, &armed) == s;
	if (d && a)
		return "";
	if (a)
		return "armed";
	if (d)
		return "disarmed";
	return nullptr;
}

void text_code(NRT_STATUS s)
{
	std::printf("%s\n", nrt_get_status_as_str(s));
	std::printf("  value:     %" PRIu32 " (0x%" PRIx32 ")\n", static_cast<uint32_t>(s),
		    static_cast<uint32_t>(s));
	std::printf("  band:      %s\n", nrt_status_band_name(nrt_status_band(s)));
	std::printf("  priority:  %d (0..3, higher wins a race)\n", nrt_get_status_priority(s));
	std::printf("  retry:     %s\n", nrt_status_is_retry(s) ? "yes (poll again)" : "no");

	id_list base = exec_counters(s, nullptr);
	std::printf("  counters:%s\n", base.n ? "" : "  none");
	for (size_t i = 0; i < base.n; i++)
		text_counter(base.ids[i], "    ");

	bool header = false;
	for_each_source([&](const source &src) {
		const char *cond = source_condition(src, s);
		if (!cond)
			return;
		if (!header) {
			std::printf("  from error-ring entries:\n");
			header = true;
		}
		if (*cond)
			std::printf("    %-9s %-19s (numerical %s)\n", kind_name(src.kind),
				    src.name, cond);
		else
			std::printf("    %-9s %s\n", kind_name(src.kind), src.name);
		nrt_infer_errors_t e = errs_of(src);
		id_list extra = minus(exec_counters(s, &e), base);
		for (size_t i = 0; i < extra.n; i++)
			text_counter(extra.ids[i], "      +");
	});
}

void json_code(NRT_STATUS s)
{
	std::printf("{\"value\":%" PRIu32 ",\"name\":\"%s\",\"valid\":%s,\"band\":\"%s\","
		    "\"priority\":%d,\"retry\":%s,",
		    static_cast<uint32_t>(s), nrt_get_status_as_str(s),
		    nrt_status_is_valid(s) ? "true" : "false",
		    nrt_status_band_name(nrt_status_band(s)), nrt_get_status_priority(s),
		    nrt_status_is_retry(s) ? "true" : "false");
	id_list base = exec_counters(s, nullptr);
	std::printf("\"counters\":");
	json_counters(base);
	std::printf(",\"ring_sources\":[");
	bool first = true;
	for_each_source([&](const source &src) {
		const char *cond = source_condition(src, s);
		if (!cond)
			return;
		nrt_infer_errors_t e = errs_of(src);
		id_list extra = minus(exec_counters(s, &e), base);
		std::printf("%s{\"kind\":\"%s\",\"id\":%u,\"name\":\"%s\",\"numerical\":",
			    first ? "" : ",", kind_name(src.kind), src.id, src.name);
		if (*cond)
			std::printf("\"%s\"", cond);
		else
			std::printf("null");
		std::printf(",\"extra_counters\":");
		json_counters(extra);
		std::printf("}");
		first = false;
	});
	std::printf("]}");
}

// ---- errno ---------------------------------------------------------------

void errno_report(int err, bool one_site, nrt_syscall_site_t only, bool json)
{
	const char *name = nrt_errno_name(err);
	if (json)
		std::printf("{\"errno\":%d,\"name\":%s%s%s,\"sites\":[", err, name ? "\"" : "",
			    name ? name : "null", name ? "\"" : "");
	else
		std::printf("%s (%d)\n", name ? name : "errno", err);

	bool first = true;
	for (int i = 0; i < NRT_SITE_COUNT; i++) {
		auto site = static_cast<nrt_syscall_site_t>(i);
		if (one_site && site != only)
			continue;
		NRT_STATUS s = nrt_status_from_errno(site, err);
		nrt_errno_row_t rows[64];
		size_t n = nrt_errno_map_rows(site, rows, 64);
		bool listed = false;
		for (size_t k = 0; k < n && k < 64; k++)
			listed |= rows[k].err == err;
		if (json) {
			std::printf("%s{\"site\":\"%s\",\"status\":%" PRIu32 ",\"status_name\":\"%s\","
				    "\"default\":%s}",
				    first ? "" : ",", nrt_syscall_site_name(site),
				    static_cast<uint32_t>(s), nrt_get_status_as_str(s),
				    listed ? "false" : "true");
		} else {
			std::printf("  %-13s %-34s %4" PRIu32 "%s\n", nrt_syscall_site_name(site),
				    nrt_get_status_as_str(s), static_cast<uint32_t>(s),
				    listed ? "" : "  (site default)");
		}
		first = false;
	}
	if (json)
		std::printf("]}\n");
}

// ---- all -----------------------------------------------------------------

void all_report(bool json)
{
	if (json)
		std::printf("{\"codes\":[");
	else
		std::printf("%5s  %-34s %-12s %4s %5s  %s\n", "value", "name", "band", "prio",
			    "retry", "counters");
	NRT_STATUS s;
	for (size_t i = 0; nrt_status_code_at(i, &s); i++) {
		if (json) {
			if (i)
				std::printf(",");
			json_code(s);
			continue;
		}
		id_list l = exec_counters(s, nullptr);
		std::printf("%5" PRIu32 "  %-34s %-12s %4d %5s  ", static_cast<uint32_t>(s),
			    nrt_get_status_as_str(s), nrt_status_band_name(nrt_status_band(s)),
			    nrt_get_status_priority(s), nrt_status_is_retry(s) ? "yes" : "no");
		for (size_t k = 0; k < l.n; k++) {
			nrt_counter_info_t ci;
			nrt_bridge_counter_info(l.ids[k], &ci);
			std::printf("%s%u:%s", k ? ", " : "", l.ids[k],
				    ci.sysfs_attr ? ci.sysfs_attr : ci.name);
		}
		std::printf("%s\n", l.n ? "" : "-");
	}
	if (json)
		std::printf("]}\n");
}

// ---- argument parsing ----------------------------------------------------

// decimal or 0x hex, as the usage says (a leading 0 is not octal)
bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	if (!tools::parse_uint(s, UINT32_MAX, v, true))
		return false;
	*out = static_cast<uint32_t>(v);
	return true;
}

int parse_errno(const char *s)
{
	int e = nrt_errno_from_name(s);
	if (e)
		return e;
	char *end = nullptr;
	errno = 0;
	long v = std::strtol(s, &end, 10);
	if (errno || !*s || *end || v == 0 || v < -4095 || v > 4095)
		die_usage("unknown errno '%s'", s);
	return static_cast<int>(v < 0 ? -v : v);
}

// "--opt value" or "--opt=value".
const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t len = std::strlen(opt);
	if (std::strncmp(argv[*i], opt, len) != 0)
		return nullptr;
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len] != '\0')
		return nullptr;
	if (*i + 1 >= argc)
		die_usage("%s needs a value", opt);
	return argv[++*i];
}

} // namespace

int main(int argc, char **argv)
{
	bool json = false, all = false;
	const char *errno_arg = nullptr, *site_arg = nullptr, *code_arg = nullptr;
	const char *explain_arg = nullptr;

	for (int i = 1; i < argc; i++) {
		const char *v;
		if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
			std::fputs(usage_text, stdout);
			return 0;
		} else if (!std::strcmp(argv[i], "--json")) {
			json = true;
		} else if (!std::strcmp(argv[i], "--all")) {
			all = true;
		} else if ((v = opt_value(argc, argv, &i, "--errno"))) {
			errno_arg = v;
		} else if ((v = opt_value(argc, argv, &i, "--explain"))) {
			explain_arg = v;
		} else if ((v = opt_value(argc, argv, &i, "--site"))) {
			site_arg = v;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			die_usage("unknown option '%s'", argv[i]);
		} else if (code_arg) {
			die_usage("unexpected argument '%s'", argv[i]);
		} else {
			code_arg = argv[i];
		}
	}

	int modes = (all ? 1 : 0) + (errno_arg ? 1 : 0) + (code_arg ? 1 : 0) +
		    (explain_arg ? 1 : 0);
	if (site_arg && !errno_arg)
		die_usage("%s", "--site goes with --errno");
	if (modes != 1)
		die_usage("%s", modes ? "give one of CODE, --errno, --all, --explain" : "nothing to explain");

	if (all) {
		all_report(json);
		return 0;
	}

	if (explain_arg) {
		const tools::explain::entry *e = nullptr;
		std::string why;
		if (!tools::explain::lookup(explain_arg, &e, why)) {
			std::fprintf(stderr, "nrt-status: --explain: %s\n", why.c_str());
			return EXIT_USAGE;
		}
		std::string out = json ? tools::explain::to_json(*e) + "\n" : tools::explain::to_text(*e);
		std::fputs(out.c_str(), stdout);
		return 0;
	}

	if (errno_arg) {
		int err = parse_errno(errno_arg);
		nrt_syscall_site_t site = NRT_SITE_OPEN;
		if (site_arg && !nrt_syscall_site_from_name(site_arg, &site))
			die_usage("unknown site '%s'", site_arg);
		errno_report(err, site_arg != nullptr, site, json);
		return 0;
	}

	uint32_t value;
	NRT_STATUS s;
	if (parse_u32(code_arg, &value)) {
		s = static_cast<NRT_STATUS>(value);
	} else if (!nrt_status_from_name(code_arg, &s)) {
		die_usage("unknown status '%s'", code_arg);
	}
	if (json) {
		json_code(s);
		std::printf("\n");
	} else {
		text_code(s);
	}
	if (!nrt_status_is_valid(s)) {
		std::fprintf(stderr, "nrt-status: %" PRIu32 " is not an assigned NRT_STATUS code\n",
			     static_cast<uint32_t>(s));
		return EXIT_USAGE;
	}
	return 0;
}
