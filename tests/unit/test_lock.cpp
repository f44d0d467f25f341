// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The execution path's own locking and look-up:
//   - nrt::mutex (libnrt/src/lock.hpp): mutual exclusion under threads
//     that contend all the time (a plain counter comes out exact), a
//     holder that blocks while others sleep on the lock, try_lock;
//   - handles::table's last-found handle (the model table's): find() again
//     after take() and take_all() finds nothing, the table holds an object
//     no longer than its handle lives, and no destructor runs under its
//     lock; another kind's table finds without it.
#include <atomic>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdarg>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "handles.hpp"
#include "lock.hpp"

extern "C" {
#include <cmocka.h>
}

namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 20000;

void mutex_excludes(void **)
{
	nrt::mutex mu;
	uint64_t counter = 0;	// plain: only the lock keeps the adds whole
	std::atomic<int> inside{ 0 }, overlap{ 0 };
	std::vector<std::thread> ts;
	for (int t = 0; t < kThreads; t++)
		ts.emplace_back([&] {
			for (int i = 0; i < kRounds; i++) {
				std::lock_guard g(mu);
				if (inside.fetch_add(1) != 0)
					overlap.fetch_add(1);
				counter = counter + 1;
				inside.fetch_sub(1);
			}
		});
	for (auto &t : ts)
		t.join();
	assert_int_equal(overlap.load(), 0);
	assert_int_equal(counter, uint64_t{ kThreads } * kRounds);
}

// Whether thread @tid of this process is asleep (state S in its stat).
bool asleep(pid_t tid)
{
	std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
	FILE *f = std::fopen(path.c_str(), "r");
	if (!f)
		return false;
	char buf[512];
	size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
	std::fclose(f);
	buf[n] = '\0';
	const char *paren = std::strrchr(buf, ')');	// the command may hold spaces
	return paren && paren[1] == ' ' && paren[2] == 'S';
}

// One thread holds the lock until every other is asleep in lock() (state S
// in /proc: they do nothing else after saying who they are); the holder
// then gives it back, and every waiter must get it in turn: the futex
// sleep and wake-up path. A lost wake-up hangs: main()'s alarm fails the run.
void mutex_sleepers_wake(void **)
{
	nrt::mutex mu;
	std::atomic<int> started{ 0 }, got{ 0 };
	std::vector<std::atomic<pid_t>> tids(kThreads);
	mu.lock();
	std::vector<std::thread> ts;
	for (int t = 0; t < kThreads; t++)
		ts.emplace_back([&, t] {
			tids[t].store(static_cast<pid_t>(::syscall(SYS_gettid)));
			started.fetch_add(1);
			mu.lock();
			got.fetch_add(1);
			mu.unlock();
		});
	while (started.load() < kThreads)
		std::this_thread::yield();
	for (int t = 0; t < kThreads; t++)
		while (!asleep(tids[t].load()))
			std::this_thread::yield();
	assert_false(mu.try_lock());
	assert_int_equal(got.load(), 0);
	mu.unlock();
	for (auto &t : ts)
		t.join();
	assert_int_equal(got.load(), kThreads);
	assert_true(mu.try_lock());
	assert_false(mu.try_lock());
	mu.unlock();
}

struct obj {
	int v;
};
using table = nrt::handles::table<obj, nrt::handles::kind::model>;
using tensor_table = nrt::handles::table<obj, nrt::handles::kind::tensor>;

void table_take_forgets_last(void **)
{
	table tb;
	auto o = std::make_shared<obj>(obj{ 7 });
	std::weak_ptr<obj> w = o;
	void *h = reinterpret_cast<void *>(tb.issue(std::move(o)));
	assert_non_null(h);
	// twice: the second from the last-found entry
	assert_int_equal(tb.find(h)->v, 7);
	assert_int_equal(tb.find(h)->v, 7);
	// another kind's bits, or a handle never issued: nothing
	assert_null(tb.find(reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(h) + 1)).get());
	assert_null(tb.find(reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(h) + 16)).get());
	assert_int_equal(tb.find(h)->v, 7);
	auto taken = tb.take(h);
	assert_non_null(taken.get());
	assert_null(tb.find(h).get());
	assert_null(tb.take(h).get());
	taken.reset();
	assert_true(w.expired());	// nothing in the table kept it
}

void table_take_all_forgets_last(void **)
{
	table tb;
	std::vector<void *> hs;
	std::vector<std::weak_ptr<obj>> ws;
	for (int i = 0; i < 4; i++) {
		auto o = std::make_shared<obj>(obj{ i });
		ws.push_back(o);
		hs.push_back(reinterpret_cast<void *>(tb.issue(std::move(o))));
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(tb.find(hs[i])->v, i);
	assert_int_equal(tb.find(hs[3])->v, 3);
	{
		auto all = tb.take_all();
		assert_int_equal(all.size(), 4);
	}
	for (int i = 0; i < 4; i++) {
		assert_null(tb.find(hs[i]).get());
		assert_true(ws[i].expired());
	}
}

// Lookups of one handle from several threads while another handle comes
// and goes: every lookup of the stable one finds it, none of the other
// after its take.
void table_find_under_threads(void **)
{
	table tb;
	void *stable = reinterpret_cast<void *>(tb.issue(std::make_shared<obj>(obj{ 1 })));
	std::atomic<bool> stop{ false };
	std::atomic<int> misses{ 0 };
	std::vector<std::thread> ts;
	for (int t = 0; t < 4; t++)
		ts.emplace_back([&] {
			while (!stop.load())
				if (!tb.find(stable))
					misses.fetch_add(1);
		});
	for (int i = 0; i < 2000; i++) {
		void *h = reinterpret_cast<void *>(tb.issue(std::make_shared<obj>(obj{ 2 })));
		assert_non_null(tb.find(h).get());
		assert_non_null(tb.take(h).get());
		assert_null(tb.find(h).get());
	}
	stop.store(true);
	for (auto &t : ts)
		t.join();
	assert_int_equal(misses.load(), 0);
}

// An object whose destructor looks a handle up (@probe): it deadlocks if
// a destructor ran under that table's lock (main()'s alarm fails the run).
struct looks_up {
	std::function<bool()> probe;
	bool *found_after;
	~looks_up()
	{
		if (probe)
			*found_after = probe();
	}
};
using probe_table = nrt::handles::table<looks_up, nrt::handles::kind::model>;

void table_no_destructor_under_lock(void **)
{
	for (bool all : { false, true }) {
		probe_table tb;
		bool found = false;
		auto o = std::make_shared<looks_up>(looks_up{ nullptr, &found });
		looks_up *raw = o.get();
		void *h = reinterpret_cast<void *>(tb.issue(std::move(o)));
		void *h2 = reinterpret_cast<void *>(tb.issue(std::make_shared<looks_up>(looks_up{ nullptr, &found })));
		// its own table, the handle that stays
		raw->probe = [&tb, h2] { return tb.find(h2) != nullptr; };
		assert_non_null(tb.find(h).get());	// now the last-found entry
		if (all)
			tb.take_all();	// both destructors run here, after the lock
		else
			tb.take(h).reset();
		assert_true(found == !all);	// take_all took h2 as well
	}
}

// A table of another kind keeps no last-found entry, and finds and forgets
// all the same.
void tensor_table_finds(void **)
{
	tensor_table tb;
	auto o = std::make_shared<obj>(obj{ 5 });
	std::weak_ptr<obj> w = o;
	void *h = reinterpret_cast<void *>(tb.issue(std::move(o)));
	void *h2 = reinterpret_cast<void *>(tb.issue(std::make_shared<obj>(obj{ 6 })));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(tb.find(h)->v, 5);
		assert_int_equal(tb.find(h2)->v, 6);
	}
	tb.take(h).reset();
	assert_true(w.expired());
	assert_null(tb.find(h).get());
	assert_int_equal(tb.find(h2)->v, 6);
}

} // namespace

int main(void)
{
	// a hang (a lost wake-up, a destructor under a lock) fails the run
	alarm(120);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mutex_excludes),
		cmocka_unit_test(mutex_sleepers_wake),
		cmocka_unit_test(table_take_forgets_last),
		cmocka_unit_test(table_take_all_forgets_last),
		cmocka_unit_test(table_find_under_threads),
		cmocka_unit_test(table_no_destructor_under_lock),
		cmocka_unit_test(tensor_table_finds),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
