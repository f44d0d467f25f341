// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor's kept /proc/<pid>/stat files (procstat.hpp).
#include "procstat.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>

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

// an open descriptor, closed unless released
struct fd_guard {
	int fd;
	~fd_guard()
	{
		if (fd >= 0)
			::close(fd);
	}
	int release() { return std::exchange(fd, -1); }
};

} // namespace

proc_stat_files::proc_stat_files(size_t budget)
	: full_budget_(budget ? budget : default_budget()), budget_(full_budget_)
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

void proc_stat_files::grow_budget()
{
	if (budget_ < full_budget_)
		budget_ = std::min(full_budget_, std::max<size_t>(1, budget_ * 2));
}

int proc_stat_files::open_stat(int pid)
{
	std::string path = "/proc/" + std::to_string(pid) + "/stat";
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && !files_.empty()) {
		// out of descriptors: the kept files go first, and fewer are
		// kept until the budget has grown back
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
	fd_guard f{ open_stat(pid) };
	if (f.fd < 0)
		return false;
	ssize_t n = ::pread(f.fd, buf, sizeof(buf), 0);
	if (n <= 0)
		return false;
	text.assign(buf, static_cast<size_t>(n));
	if (files_.size() < budget_) {
		try {
			if (files_.emplace(pid, f.fd).second)
				f.release();
		} catch (...) {
			// no memory for the entry: read once, as past the budget
		}
	}
	return true;
}

} // namespace tools::monitor
