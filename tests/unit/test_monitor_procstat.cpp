// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// neuron-monitor's kept /proc/<pid>/stat files
// (tools/neuron-monitor/procstat.hpp), on child processes of the test:
// each process's own file, kept files within their budget, a reaped
// process's file dropped, every read still answered when the process runs
// out of descriptors and the budget grown back after, and no descriptor
// left behind.
//
// The children and a lowered RLIMIT_NOFILE belong to each test's state,
// released by its teardown, which cmocka runs after a failed assertion
// too; a child also dies with the test (PR_SET_PDEATHSIG) and holds none
// of its descriptors, so nothing waits on a test that failed.
#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <string>
#include <sys/prctl.h>
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

// what a test holds that its teardown gives back
struct state {
	std::vector<pid_t> pids;	// children waiting to be killed
	std::vector<int> fillers;	// descriptors taken to run out of them
	rlimit saved{};
	bool limited = false;
	int fds_before = 0;
};

// the descriptors this process has open
int open_fds()
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while (dirent *e = readdir(d))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	// the directory's own
}

// A child that waits to be killed, with no descriptor of the test's, and
// that dies with the test
pid_t spawn(state &s)
{
	pid_t parent = getpid();
	pid_t p = fork();
	if (p == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		int null = open("/dev/null", O_RDWR);
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		closefrom(3);
		for (;;)
			pause();
	}
	if (p > 0)
		s.pids.push_back(p);
	return p;
}

void reap(state &s, size_t i)
{
	if (s.pids[i] <= 0)
		return;
	kill(s.pids[i], SIGKILL);
	waitpid(s.pids[i], nullptr, 0);
	s.pids[i] = -1;
}

state &st(void **arg)
{
	return *static_cast<state *>(*arg);
}

// n children, asserted
void spawn_n(state &s, int n)
{
	for (int i = 0; i < n; i++)
		assert_true(spawn(s) > 0);
}

// @text is /proc/@pid/stat: it starts with the pid and has the comm's ")"
bool is_stat_of(const std::string &text, pid_t pid)
{
	std::string head = std::to_string(pid) + " (";
	return text.compare(0, head.size(), head) == 0 && text.find(") ") != std::string::npos;
}

} // namespace

static int setup(void **arg)
{
	auto *s = new state;
	s->fds_before = open_fds();
	*arg = s;
	return s->fds_before < 0 ? -1 : 0;
}

static int teardown(void **arg)
{
	state &s = st(arg);
	for (size_t i = 0; i < s.pids.size(); i++)
		reap(s, i);
	for (int fd : s.fillers)
		close(fd);
	if (s.limited)
		setrlimit(RLIMIT_NOFILE, &s.saved);
	delete &s;
	return 0;
}

static void reads_and_keeps(void **arg)
{
	state &s = st(arg);
	spawn_n(s, 4);
	{
		m::proc_stat_files f(16);
		std::string t;
		for (int round = 0; round < 3; round++) {
			for (pid_t p : s.pids) {
				assert_true(f.read(p, t));
				assert_true(is_stat_of(t, p));
			}
			assert_int_equal(f.kept(), 4);
			assert_int_equal(open_fds(), s.fds_before + 4);
			f.end_report([](int) { return true; });
		}
		// a kept file reads its process's state now, not when it was opened
		kill(s.pids[0], SIGSTOP);
		siginfo_t si{};
		assert_int_equal(waitid(P_PID, static_cast<id_t>(s.pids[0]), &si, WSTOPPED), 0);
		assert_true(f.read(s.pids[0], t));
		assert_non_null(std::strstr(t.c_str(), ") T "));
		kill(s.pids[0], SIGCONT);
	}
	assert_int_equal(open_fds(), s.fds_before);
}

static void reaped_process_dropped(void **arg)
{
	state &s = st(arg);
	spawn_n(s, 2);
	{
		m::proc_stat_files f(16);
		std::string t;
		assert_true(f.read(s.pids[0], t));
		assert_true(f.read(s.pids[1], t));
		pid_t gone = s.pids[0];
		reap(s, 0);
		bool reused = kill(gone, 0) == 0;
		bool read = f.read(gone, t);
		if (!reused) {
			// its kept file fails, it is dropped, and no new one is opened
			assert_false(read);
			assert_true(t.empty());
			assert_int_equal(f.kept(), 1);
		} else if (read) {
			// the pid is another process's now: its own file
			assert_true(is_stat_of(t, gone));
		}
		assert_true(f.read(s.pids[1], t));
		assert_true(is_stat_of(t, s.pids[1]));
		f.end_report([&](int pid) { return pid == s.pids[1]; });
		assert_int_equal(f.kept(), 1);
		assert_int_equal(open_fds(), s.fds_before + 1);
	}
	assert_int_equal(open_fds(), s.fds_before);
}

static void budget_respected(void **arg)
{
	state &s = st(arg);
	spawn_n(s, 5);
	{
		m::proc_stat_files f(2);
		std::string t;
		for (int round = 0; round < 2; round++)
			for (pid_t p : s.pids) {
				assert_true(f.read(p, t));
				assert_true(is_stat_of(t, p));
			}
		assert_int_equal(f.kept(), 2);
		assert_int_equal(open_fds(), s.fds_before + 2);
	}
	assert_int_equal(open_fds(), s.fds_before);
	rlimit rl{};
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	size_t want = rl.rlim_cur == RLIM_INFINITY ? 65536 : std::min<size_t>(rl.rlim_cur / 2, 65536);
	m::proc_stat_files dflt;
	assert_int_equal(dflt.budget(), want);
	assert_int_equal(dflt.full_budget(), want);
}

// With 8 descriptors free and 24 processes: the kept files give way and
// every process is still read, each report; once descriptors are free
// again the budget grows back to where it was.
static void out_of_descriptors(void **arg)
{
	state &s = st(arg);
	spawn_n(s, 24);
	m::proc_stat_files f(1000);
	std::string t;
	// every free descriptor below the limit taken, then 8 given back
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &s.saved), 0);
	rlimit low = s.saved;
	low.rlim_cur = std::min<rlim_t>(s.saved.rlim_cur, 1024);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	s.limited = true;
	for (;;) {
		int fd = dup(0);
		if (fd < 0) {
			assert_int_equal(errno, EMFILE);
			break;
		}
		s.fillers.push_back(fd);
	}
	assert_true(s.fillers.size() >= 8);
	for (int i = 0; i < 8; i++) {
		close(s.fillers.back());
		s.fillers.pop_back();
	}
	for (int round = 0; round < 3; round++) {
		for (pid_t p : s.pids) {
			assert_true(f.read(p, t));
			assert_true(is_stat_of(t, p));
		}
		assert_true(f.kept() <= 8);
		assert_true(f.budget() < 8);
		f.end_report([](int) { return true; });
	}
	// descriptors back: the budget grows to its full size again
	for (int fd : s.fillers)
		close(fd);
	s.fillers.clear();
	for (int report = 0; report < 12; report++) {
		for (pid_t p : s.pids)
			assert_true(f.read(p, t));
		f.end_report([](int) { return true; });
	}
	assert_int_equal(f.budget(), 1000);
	assert_int_equal(f.kept(), 24);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(reads_and_keeps, setup, teardown),
		cmocka_unit_test_setup_teardown(reaped_process_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(budget_respected, setup, teardown),
		cmocka_unit_test_setup_teardown(out_of_descriptors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
