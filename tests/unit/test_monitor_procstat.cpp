// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// neuron-monitor's kept /proc/<pid>/stat files
// (tools/neuron-monitor/procstat.hpp), on child processes of the test:
// each process's own file, kept files within their budget, a reaped
// process's file dropped, every read still answered when the process runs
// out of descriptors, and no descriptor left behind.
#include <cerrno>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <signal.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
extern "C" {
#include <cmocka.h>
}

#include "neuron-monitor/procstat.hpp"

namespace m = tools::monitor;

namespace {

// children that wait to be killed; killed and reaped with the object
struct children {
	std::vector<pid_t> pids;
	explicit children(int n)
	{
		for (int i = 0; i < n; i++) {
			pid_t p = fork();
			assert_true(p >= 0);
			if (p == 0) {
				for (;;)
					pause();
			}
			pids.push_back(p);
		}
	}
	void reap(size_t i)
	{
		kill(pids[i], SIGKILL);
		waitpid(pids[i], nullptr, 0);
		pids[i] = -1;
	}
	~children()
	{
		for (size_t i = 0; i < pids.size(); i++)
			if (pids[i] > 0)
				reap(i);
	}
};

// the descriptors this process has open
int open_fds()
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	while (dirent *e = readdir(d))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	// the directory's own
}

// @text is /proc/@pid/stat: it starts with the pid and has the comm's ")"
bool is_stat_of(const std::string &text, pid_t pid)
{
	std::string head = std::to_string(pid) + " (";
	return text.compare(0, head.size(), head) == 0 && text.find(") ") != std::string::npos;
}

} // namespace

static void reads_and_keeps(void **)
{
	int before = open_fds();
	{
		children c(4);
		m::proc_stat_files f(16);
		std::string t;
		for (int round = 0; round < 3; round++) {
			for (pid_t p : c.pids) {
				assert_true(f.read(p, t));
				assert_true(is_stat_of(t, p));
			}
			assert_int_equal(f.kept(), 4);
			assert_int_equal(open_fds(), before + 4);
		}
		// a child's file reads its state now, not when it was opened
		kill(c.pids[0], SIGSTOP);
		siginfo_t si{};
		assert_int_equal(waitid(P_PID, static_cast<id_t>(c.pids[0]), &si, WSTOPPED), 0);
		assert_true(f.read(c.pids[0], t));
		assert_non_null(std::strstr(t.c_str(), ") T "));
		kill(c.pids[0], SIGCONT);
	}
	assert_int_equal(open_fds(), before);
}

static void reaped_process_dropped(void **)
{
	int before = open_fds();
	{
		children c(2);
		m::proc_stat_files f(16);
		std::string t;
		assert_true(f.read(c.pids[0], t));
		assert_true(f.read(c.pids[1], t));
		pid_t gone = c.pids[0];
		c.reap(0);
		// gone: its kept file fails, and so does opening its pid again
		// (unless the pid was reused at once: then it is that process's)
		if (f.read(gone, t)) {
			assert_true(is_stat_of(t, gone));
		} else {
			assert_true(t.empty());
		}
		assert_true(f.read(c.pids[1], t));
		assert_true(is_stat_of(t, c.pids[1]));
		f.keep_only([&](int pid) { return pid == c.pids[1]; });
		assert_int_equal(f.kept(), 1);
		assert_int_equal(open_fds(), before + 1);
	}
	assert_int_equal(open_fds(), before);
}

static void budget_respected(void **)
{
	int before = open_fds();
	{
		children c(5);
		m::proc_stat_files f(2);
		std::string t;
		for (int round = 0; round < 2; round++)
			for (pid_t p : c.pids) {
				assert_true(f.read(p, t));
				assert_true(is_stat_of(t, p));
			}
		assert_int_equal(f.kept(), 2);
		assert_int_equal(open_fds(), before + 2);
	}
	assert_int_equal(open_fds(), before);
	m::proc_stat_files dflt;
	assert_true(dflt.budget() > 0);
}

// Fewer descriptors than processes: the kept files give way and every
// process is still read, each time.
static void out_of_descriptors(void **)
{
	int before = open_fds();
	rlimit old{};
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	{
		children c(24);
		m::proc_stat_files f(1000);	// more than the limit allows
		rlimit low = old;
		low.rlim_cur = static_cast<rlim_t>(before + 8);
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
		std::string t;
		for (int round = 0; round < 3; round++)
			for (pid_t p : c.pids) {
				assert_true(f.read(p, t));
				assert_true(is_stat_of(t, p));
			}
		assert_true(f.kept() < 8);
		assert_true(f.budget() < 8);
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	}
	assert_int_equal(open_fds(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_and_keeps),
		cmocka_unit_test(reaped_process_dropped),
		cmocka_unit_test(budget_respected),
		cmocka_unit_test(out_of_descriptors),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
