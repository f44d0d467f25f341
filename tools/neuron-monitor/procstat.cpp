// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor's kept /proc/<pid>/stat files (procstat.hpp).
#include "procstat.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace tools::monitor {

namespace {

constexpr size_t max_budget = 65536;

size_t default_budget()
{
	rlimit rl{};
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return max_budget;
	return std::min<size_t>(rl.rlim_cur / 2, max_budget);
}

} // namespace

proc_stat_files::proc_stat_files(size_t budget) : budget_(budget ? budget : default_budget())
{
}

proc_stat_files::~proc_stat_files()
{
	drop_all();
}

void proc_stat_files::close_fd(int fd)
{
	::close(fd);
}

void proc_stat_files::drop_all()
{
	for (auto &[pid, fd] : files_)
		close_fd(fd);
	files_.clear();
}

int proc_stat_files::open_stat(int pid)
{
	std::string path = "/proc/" + std::to_string(pid) + "/stat";
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && !files_.empty()) {
		// out of descriptors: the kept files go before a report loses
		// an application, and fewer are kept from now on
		budget_ = files_.size() / 2;
		drop_all();
		fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	}
	return fd;
}

bool proc_stat_files::read(int pid, std::string &text)
{
	// the whole file: a few hundred bytes (comm is at most 16)
	char buf[4096];
	text.clear();
	if (auto it = files_.find(pid); it != files_.end()) {
		ssize_t n = ::pread(it->second, buf, sizeof(buf), 0);
		if (n > 0) {
			text.assign(buf, static_cast<size_t>(n));
			return true;
		}
		// its process is gone: the pid is another process's, or none
		close_fd(it->second);
		files_.erase(it);
	}
	int fd = open_stat(pid);
	if (fd < 0)
		return false;
	ssize_t n = ::pread(fd, buf, sizeof(buf), 0);
	if (n <= 0) {
		close_fd(fd);
		return false;
	}
	text.assign(buf, static_cast<size_t>(n));
	bool kept = false;
	if (files_.size() < budget_) {
		try {
			kept = files_.emplace(pid, fd).second;
		} catch (...) {
			// no memory for the entry: read once, as past the budget
		}
	}
	if (!kept)
		close_fd(fd);
	return true;
}

} // namespace tools::monitor
