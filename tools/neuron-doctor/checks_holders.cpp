// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's check of the processes holding NeuronCores: stopped,
// zombies, gone, or an exited reserver's cores kept by a child (checks.hpp).
#include "checks.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "common/apps.hpp"
#include "common/read_all.hpp"
#include "cores.hpp"

namespace tools::doctor {

char process_state(const context &c, int pid, int *ppid)
{
	std::string s;
	// gone between the open and the read (ESRCH) is gone
	if (tools::read_all(under(c, "/proc/" + std::to_string(pid) + "/stat"), s, 4096) != 0)
		return 0;
	size_t close = s.rfind(')');	// the command may hold ')' and spaces
	if (close == std::string::npos || close + 2 >= s.size())
		return 0;
	if (ppid) {
		std::istringstream rest(s.substr(close + 3));
		int p = 0;
		rest >> p;
		*ppid = p;
	}
	return s[close + 2];
}

std::vector<finding> check_holders(const context &c, const std::vector<device> &devs)
{
	const std::string chk = "holders";
	if (!c.list_holders)
		return { { chk, severity::note,
			   "not checked: the process list comes from the driver (APPS_INFO), not from a --root tree", "" } };
	std::vector<finding> out;
	std::optional<core_run> visible;
	auto total = total_cores(devs);
	if (c.visible_cores && !c.visible_cores->empty() && total)
		if (core_run r = parse_visible_cores(*c.visible_cores, *total); r.ok)
			visible = r;
	int running = 0, listed = 0;
	std::vector<int> held;	// NeuronCores running holders have (no NEURON_RT_VISIBLE_CORES)
	for (auto &d : devs) {
		std::string name = "neuron" + std::to_string(d.index);
		std::vector<apps::process> procs;
		std::string err;
		if (!c.list_holders(d, procs, err)) {
			out.push_back({ chk, severity::unknown, name + ": not checked: processes not listed: " + err, "" });
			continue;
		}
		listed++;
		// NeuronCores whose reserver has exited, by its pid: a forked
		// child (or any process given the file) keeps them held
		std::map<int, std::vector<apps::core_holding>> orphaned;
		std::vector<apps::core_holding> cores_held;
		if (c.list_cores && c.list_cores(d, cores_held, err))
			for (auto &h : cores_held)
				if (h.held && h.owner_exited && !h.owner_hidden)
					orphaned[h.owner_pid].push_back(h);
		for (auto &p : procs) {
			std::string who = "pid " + std::to_string(p.pid) + (p.command.empty() ? "" : " (" + p.command + ")");
			std::string cores = "NeuronCores " + ids_text(p.nc_ids);
			int ppid = 0;
			char st = process_state(c, p.pid, &ppid);
			if (auto it = orphaned.find(p.pid); it != orphaned.end()) {
				std::vector<int> ids, kill;
				std::string through, back;
				unsigned hidden = 0;
				for (auto &h : it->second) {
					ids.push_back(h.nc);
					back += (back.empty() ? "" : ", ") + ("neuron-ls --take-back " +
						std::to_string(d.index) + ":" + std::to_string(h.nc - d.first_nc));
					hidden = std::max(hidden, h.hidden);
					for (int q : h.pids) {
						if (std::find(kill.begin(), kill.end(), q) != kill.end())
							continue;
						kill.push_back(q);
						std::string cmd = apps::command_of(q, under(c, "/proc"));
						std::string cg = apps::cgroup_of(q, under(c, "/proc"));
						through += (through.empty() ? "" : ", ") + ("pid " + std::to_string(q)) +
							   (cmd.empty() ? "" : " (" + cmd + ")") + (cg.empty() ? "" : " [" + cg + "]");
					}
				}
				if (hidden)
					through += (through.empty() ? "" : " and ") + std::to_string(hidden) +
						   " process" + (hidden == 1 ? "" : "es") + " in other pid namespaces";
				std::string kills;
				for (int q : kill)
					kills += " " + std::to_string(q);
				out.push_back({ chk, severity::warning,
						name + ": pid " + std::to_string(p.pid) + " has exited, but NeuronCores " +
							ids_text(ids) + " it reserved stay held: its file is open in " +
							(through.empty() ? std::string("no process this one can see") : through) +
							" (a forked child keeps a reservation)",
						(kill.empty() ? std::string() :
								std::string(kill.size() == 1 ? "end it" : "end them") +
									" (kill" + kills + "), or ") +
							"take the cores back as root: " + back });
				continue;
			}
			if (st == 0 && c.pid_exists && c.pid_exists(p.pid)) {
				out.push_back({ chk, severity::unknown,
						name + ": " + who + " holds " + cores +
							"; not checked: its /proc entry cannot be read here (hidepid?)",
						"" });
			} else if (st == 0) {
				out.push_back({ chk, severity::warning,
						name + ": " + who + " is gone but the driver still lists it, holding " + cores,
						"run neuron-doctor again; if it stays, reload the driver (sudo modprobe -r neuron && sudo modprobe neuron)" });
			} else if (st == 'T' || st == 't') {
				std::string back;
				for (int id : p.nc_ids)
					back += (back.empty() ? "" : ", ") + ("neuron-ls --take-back " +
						std::to_string(d.index) + ":" + std::to_string(id - d.first_nc));
				out.push_back({ chk, severity::warning,
						name + ": " + who + " is stopped and holds " + cores,
						"resume it (kill -CONT " + std::to_string(p.pid) + ") or end it (kill " +
							std::to_string(p.pid) + ") to free the cores" +
							(back.empty() || !c.list_cores ? std::string() :
											  ", or take them back as root: " + back) });
			} else if (st == 'Z') {
				out.push_back({ chk, severity::warning,
						name + ": " + who + " is a zombie and holds " + cores,
						"its parent, pid " + std::to_string(ppid) + ", must reap it: end the parent (kill " +
							std::to_string(ppid) + ")" });
			} else {
				running++;
				if (!visible) {
					held.insert(held.end(), p.nc_ids.begin(), p.nc_ids.end());
					continue;
				}
				std::vector<int> clash;
				for (int id : p.nc_ids)
					if (static_cast<uint32_t>(id) >= visible->first &&
					    static_cast<uint32_t>(id) < visible->first + visible->count)
						clash.push_back(id);
				if (!clash.empty())
					out.push_back({ chk, severity::warning,
							name + ": " + who + " holds NeuronCores " + ids_text(clash) +
								", which NEURON_RT_VISIBLE_CORES names: nrt_init() here fails with NRT_RESOURCE",
							"choose other cores in NEURON_RT_VISIBLE_CORES, or wait for pid " +
								std::to_string(p.pid) + " to finish" });
			}
		}
	}
	bool problems = false;
	for (auto &f : out)
		problems |= f.sev != severity::note && f.sev != severity::unknown;
	// without NEURON_RT_VISIBLE_CORES, nrt_init() takes every NeuronCore
	// (as the SDK's): say which ones a new process would find taken
	std::sort(held.begin(), held.end());
	held.erase(std::unique(held.begin(), held.end()), held.end());
	std::string taken = held.empty() ? "" :
		" (they hold NeuronCores " + ids_text(held) +
		": nrt_init() without NEURON_RT_VISIBLE_CORES takes every NeuronCore and would get NRT_RESOURCE)";
	// nothing is said of the devices whose processes could not be listed
	std::string where = listed == static_cast<int>(devs.size()) ? "" : " (of the devices listed)";
	if (!problems && listed)
		out.push_back({ chk, severity::ok,
				running ? std::to_string(running) + (running == 1 ? " process has" : " processes have") +
						  " a device open, all running" + taken + where
					: "no process has a device open" + where,
				"" });
	return out;
}

} // namespace tools::doctor
