// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The execution path's own locking and look-up (issue 25):
//   - nrt::mutex (libnrt/src/lock.hpp): mutual exclusion under threads
//     that contend all the time (a plain counter comes out exact), a
//     holder that blocks while others sleep on the lock, try_lock;
//   - handles::table's last-found handle: find() again after take() and
//     take_all() finds nothing, and the table holds an object no longer
//     than its handle lives.
#include <atomic>
#include <csetjmp>
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

// One thread holds the lock until the others are known to be waiting for
// it (each says so just before lock()); the holder then gives it back, and
// every waiter must get it in turn: the futex sleep and wake-up path.
void mutex_sleepers_wake(void **)
{
	nrt::mutex mu;
	std::atomic<int> waiting{ 0 }, got{ 0 };
	mu.lock();
	std::vector<std::thread> ts;
	for (int t = 0; t < kThreads; t++)
		ts.emplace_back([&] {
			waiting.fetch_add(1);
			mu.lock();
			got.fetch_add(1);
			mu.unlock();
		});
	while (waiting.load() < kThreads)
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

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mutex_excludes),
		cmocka_unit_test(mutex_sleepers_wake),
		cmocka_unit_test(table_take_forgets_last),
		cmocka_unit_test(table_take_all_forgets_last),
		cmocka_unit_test(table_find_under_threads),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
