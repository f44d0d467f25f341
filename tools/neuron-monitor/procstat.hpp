// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor's /proc/<pid>/stat files, kept open from one report to
// the next (vendor.cpp's application reader reads each application's CPU
// time every report).
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

namespace tools::monitor {

// The stat files of the processes read so far, one descriptor each, read
// again from their start each time. A kept file reads only its own
// process: once that is reaped the read fails and the pid is opened again
// by number, as a fresh read would.
//
// The kept files use at most a budget of descriptors, half the soft
// RLIMIT_NOFILE by default: past it a file is opened for one read only.
// When an open fails for want of a descriptor (EMFILE, ENFILE), every
// kept file is closed and the open tried again, so the kept files never
// stand between a process and its read; the budget then drops to half
// the files that were kept, and grows back, doubling at each report's
// end, up to where it started.
class proc_stat_files {
public:
	// @budget: how many files to keep at most; 0: half the soft
	// RLIMIT_NOFILE (at most 65536)
	explicit proc_stat_files(size_t budget = 0);
	proc_stat_files(const proc_stat_files &) = delete;
	proc_stat_files &operator=(const proc_stat_files &) = delete;
	~proc_stat_files();

	// /proc/@pid/stat now into @text; false (and @text empty) when it
	// cannot be read: no such process, or no descriptor even with every
	// kept file closed
	bool read(int pid, std::string &text);
	// A report's end: the files of the processes @keep says no to are
	// closed, and a budget cut by a shortage grows back a step.
	template <typename Pred> void end_report(Pred keep)
	{
		for (auto it = files_.begin(); it != files_.end();) {
			if (keep(it->first)) {
				++it;
				continue;
			}
			close_fd(it->second);
			it = files_.erase(it);
		}
		grow_budget();
	}
	size_t kept() const { return files_.size(); }
	size_t budget() const { return budget_; }
	// the budget a shortage cuts and end_report() restores
	size_t full_budget() const { return full_budget_; }

private:
	static void close_fd(int fd);
	int open_stat(int pid);
	void drop_all();
	void grow_budget();

	std::unordered_map<int, int> files_;	// pid -> descriptor
	size_t full_budget_, budget_;
};

} // namespace tools::monitor
