// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's walk and report (report.hpp).
#include "report.hpp"

#include "common/json.hpp"

namespace tools::doctor {

const char *json_name(severity s)
{
	switch (s) {
	case severity::ok:
		return "ok";
	case severity::note:
		return "note";
	case severity::unknown:
		return "unknown";
	case severity::warning:
		return "warning";
	default:
		return "error";
	}
}

const char *text_tag(severity s)
{
	return s == severity::warning ? "warn" : json_name(s);
}

// ---- the whole walk --------------------------------------------------------------

report run(const context &c)
{
	report r;
	auto add = [&r](finding f) { r.findings.push_back(std::move(f)); };
	auto add_all = [&r](std::vector<finding> fs) {
		for (auto &f : fs)
			r.findings.push_back(std::move(f));
	};
	bool loaded = false;
	std::string hint = container_hint(c);
	add_all(check_module(c, !hint.empty(), loaded));
	add_all(check_dkms_kernels(c));
	add_all(check_runtime_compat(c));
	std::vector<device> devs;
	if (loaded) {
		devs = list_devices(c);
		add(check_devices(c, devs));
		add_all(check_nodes(c, devs, hint.size() > 0));
	} else {
		add({ "devices", severity::note, "devices, nodes, state, counters and holders not checked: no driver", "" });
	}
	add(check_container(hint));
	add(check_visible_cores(c, devs));
	if (!devs.empty()) {
		add_all(check_state(c, devs));
		add_all(check_ecc(c, devs));
		add_all(check_health(c, devs));
		add_all(check_fw_io(c, devs));
		add_all(check_holders(c, devs));
	}
	add(check_kmsg(c));

	// the first broken link: the first error in the walk's order, else the
	// first warning about now (silent firmware rather than ECC errors a
	// reset already answered), else the first warning
	for (severity want : { severity::error, severity::warning }) {
		for (bool past : { false, true })
			for (size_t i = 0; i < r.findings.size() && r.first < 0; i++)
				if (r.findings[i].sev == want && r.findings[i].past == past)
					r.first = static_cast<int>(i);
		if (r.first >= 0) {
			r.status = want;
			break;
		}
	}
	if (r.first < 0)
		for (auto &f : r.findings)
			if (f.sev == severity::unknown)
				r.status = severity::unknown;
	return r;
}

int exit_code(const report &r)
{
	switch (r.status) {
	case severity::error:
		return 2;
	case severity::warning:
		return 1;
	case severity::unknown:
		return 4;
	default:
		return 0;
	}
}

const char *status_name(const report &r)
{
	return r.status == severity::ok || r.status == severity::note ? "ok" : json_name(r.status);
}

std::string unknown_checks(const report &r)
{
	std::string o;
	for (auto &f : r.findings)
		if (f.sev == severity::unknown && o.find(f.check) == std::string::npos)
			o += (o.empty() ? "" : ", ") + f.check;
	return o;
}

std::string to_text(const report &r)
{
	std::string o = "neuron-doctor: ";
	if (r.first < 0 && r.status == severity::unknown) {
		o += "UNKNOWN: no fault found, but not checked: " + unknown_checks(r) + "\n";
	} else if (r.first < 0) {
		o += "OK\n";
	} else {
		const finding &f = r.findings[static_cast<size_t>(r.first)];
		o += f.check + ": " + f.action + "\n";
	}
	for (auto &f : r.findings) {
		o += std::string("[") + text_tag(f.sev) + "] " + f.check + ": " + f.detail;
		if (!f.action.empty())
			o += " -> " + f.action;
		o += "\n";
	}
	return o;
}

std::string finding_json(const finding &f)
{
	return "{\"check\": " + json::quote(f.check) + ", \"severity\": " + json::quote(json_name(f.sev)) +
	       ", \"detail\": " + json::quote(f.detail) + ", \"action\": " + json::quote(f.action) + "}";
}

std::string to_json(const report &r)
{
	std::string o = "{\n  \"status\": " + json::quote(status_name(r)) + ",\n  \"first\": ";
	o += r.first < 0 ? "null" : finding_json(r.findings[static_cast<size_t>(r.first)]);
	o += ",\n  \"findings\": [\n";
	for (size_t i = 0; i < r.findings.size(); i++)
		o += "    " + finding_json(r.findings[i]) + (i + 1 < r.findings.size() ? ",\n" : "\n");
	o += "  ]\n}\n";
	return o;
}

} // namespace tools::doctor
