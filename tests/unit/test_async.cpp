// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The asynchronous API on the host (no device): the SDK header's layout and
// values, argument checks and the lifecycle guard of every call, the
// sequence ids (unit id and number, what names no request), and the error
// trackers: order, what one call of get_list hands out, the bound and the
// entry that says how many errors were dropped, concurrent producers. The
// queues themselves run in the guest (tests/vm/26_async.sh).
#include <nrt/nrt_async.h>

#include <atomic>
#include <csetjmp>
#include <cstdarg>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "async.hpp"

extern "C" {
#include <cmocka.h>
}

using namespace nrt::async;

namespace {

void header_layout(void **)
{
	static_assert(sizeof(nrta_error_t) == 16);
	assert_int_equal(offsetof(nrta_error_t, seq_id), 0);
	assert_int_equal(offsetof(nrta_error_t, error_code), 8);
	assert_int_equal(sizeof(nrta_seq_t), 8);
	assert_int_equal(sizeof(nrta_xu_id_t), 2);
	assert_int_equal(NRTA_XU_TENSOR_READ, 0);
	assert_int_equal(NRTA_XU_TENSOR_WRITE, 1);
	assert_int_equal(NRTA_XU_TENSOR_OP, 2);
	assert_int_equal(NRTA_XU_COMPUTE, 3);
	assert_int_equal(NRTA_XU_COLLECTIVES, 4);
	assert_int_equal(NRTA_XU_TYPE_NUM, 5);
	assert_true(NRTA_SEQ_NUM_MAX == 0xffffffffffffull);
	assert_true(NRTA_SEQ_NUM_MASK == NRTA_SEQ_NUM_MAX);
	const nrta_seq_t s = 0xabcd000000001234ull;
	assert_true(NRTA_SEQ_GET_XU_ID(s) == 0xabcd);
	assert_true(NRTA_SEQ_GET_SEQ_NUM(s) == 0x1234);
	// the macros take expressions
	assert_true(NRTA_SEQ_GET_SEQ_NUM(s + 1) == 0x1235);
	// the collective types the header names (nrt.h)
	assert_int_equal(NRT_OP_ADD, 0);
	assert_int_equal(NRT_OP_MIN, 3);
	assert_int_equal(NRT_OP_INVALID, 0xf);
	assert_int_equal(NRT_CC_ALLGATHER, 0);
	assert_int_equal(NRT_CC_REDUCESCATTER, 2);
	assert_int_equal(offsetof(nrt_cc_comm_t, rank), 8);
	assert_int_equal(offsetof(nrt_cc_comm_t, vnc), 24);
	assert_int_equal(sizeof(nrt_cc_comm_t), 32);
	assert_int_equal(sizeof(nrt_tensor_list_t), 16);
}

// Every unit id names the queue it was made from, ids of different queues
// differ, and nothing outside the queues decodes (the dropped entry's id
// among them).
void unit_ids(void **)
{
	std::set<nrta_xu_id_t> seen;
	for (uint32_t lnc : { 0u, 1u, 2u, 63u, 200u, kMaxLnc - 1 }) {
		for (int k = 0; k < NRTA_XU_TYPE_NUM; k++) {
			auto xu = static_cast<nrta_xu_t>(k);
			for (int q = 0; q < queues_of(xu); q++) {
				queue_addr a{ lnc, xu, q }, b;
				assert_true(valid(a));
				nrta_xu_id_t id = xu_id(a);
				assert_true(seen.insert(id).second);
				assert_true(xu_decode(id, &b));
				assert_int_equal(b.lnc, lnc);
				assert_int_equal(b.xu, xu);
				assert_int_equal(b.queue, q);
				assert_true(NRTA_SEQ_GET_XU_ID(make_seq(id, 42)) == id);
			}
		}
	}
	assert_int_equal(queues_of(NRTA_XU_TENSOR_READ), kTensorQueues);
	assert_int_equal(queues_of(NRTA_XU_COMPUTE), 1);
	assert_int_equal(queues_of(NRTA_XU_COLLECTIVES), 1);
	assert_false(valid(queue_addr{ 0, NRTA_XU_COMPUTE, 1 }));
	assert_false(valid(queue_addr{ 0, NRTA_XU_TENSOR_OP, kTensorQueues }));
	assert_false(valid(queue_addr{ 0, NRTA_XU_TENSOR_OP, -1 }));
	assert_false(valid(queue_addr{ kMaxLnc, NRTA_XU_TENSOR_OP, 0 }));
	queue_addr out{ 7, NRTA_XU_COMPUTE, 0 };
	assert_false(xu_decode(kDroppedXu, &out));
	assert_int_equal(out.lnc, 7);	// untouched
	// unit kinds 5..7 and queue indexes past a unit's: no queue
	assert_false(xu_decode(static_cast<nrta_xu_id_t>(5 << 4), &out));
	assert_false(xu_decode(static_cast<nrta_xu_id_t>(NRTA_XU_COMPUTE << 4 | 1), &out));
	assert_false(xu_decode(static_cast<nrta_xu_id_t>(NRTA_XU_TENSOR_READ << 4 | kTensorQueues), &out));
	// the number is cut to its 48 bits, never into the unit id
	assert_true(make_seq(3, NRTA_SEQ_NUM_MAX + 2) == make_seq(3, 1));
}

// Before nrt_init(): every call that schedules or creates needs the
// runtime (13), whatever else is wrong with its arguments, and writes
// nothing; a NULL output pointer of the calls that need none is NRT_INVALID.
void before_init(void **)
{
	nrta_seq_t seq = 77;
	uint8_t buf[16] = {};
	auto *t = reinterpret_cast<nrt_tensor_t *>(0x22);
	auto *m = reinterpret_cast<nrt_model_t *>(0x11);
	assert_int_equal(nrta_tensor_write(t, buf, 0, 16, 0, nullptr, &seq), NRT_UNINITIALIZED);
	assert_int_equal(nrta_tensor_read(buf, t, 0, 16, 0, nullptr, &seq), NRT_UNINITIALIZED);
	assert_int_equal(nrta_tensor_copy(t, 0, t, 0, 16, 0, nullptr, &seq), NRT_UNINITIALIZED);
	assert_int_equal(nrta_execute_schedule(m, nullptr, nullptr, 0, nullptr, &seq), NRT_UNINITIALIZED);
	assert_int_equal(nrta_execute_schedule(m, nullptr, nullptr, 0, nullptr, nullptr), NRT_UNINITIALIZED);
	assert_true(seq == 77);
	nrta_error_tracker_t *tr = reinterpret_cast<nrta_error_tracker_t *>(0x99);
	assert_int_equal(nrta_error_tracker_create(0, &tr), NRT_UNINITIALIZED);
	assert_null(tr);
	assert_int_equal(nrta_error_tracker_create(0, nullptr), NRT_INVALID);
	nrt_cc_context_t *ctx = reinterpret_cast<nrt_cc_context_t *>(0x55);
	nrt_cc_comm_t comm{};
	nrt_tensor_list_t list{};
	assert_int_equal(nrta_cc_prepare(&comm, &list, &list, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
					 NRT_CC_ALLREDUCE, &ctx),
			 NRT_UNINITIALIZED);
	assert_null(ctx);
	assert_int_equal(nrta_cc_schedule(&ctx, 0, nullptr, &seq), NRT_UNINITIALIZED);
	// nrt_close() before nrt_init() changes nothing here
	nrt_close();
	assert_int_equal(nrta_tensor_write(t, buf, 0, 16, 0, nullptr, &seq), NRT_UNINITIALIZED);
}

// Completion queries: NULL outputs, and sequence ids no request has (no
// queue ever had one, number 0, the dropped entry's id, a unit kind or
// queue that does not exist) are NRT_INVALID; nothing is written but the
// handle's -1.
void completion_queries(void **)
{
	bool done = true;
	int fd = 5;
	const nrta_seq_t never = make_seq(xu_id({ 3, NRTA_XU_COMPUTE, 0 }), 1);
	const nrta_seq_t bad[] = {
		never,
		make_seq(xu_id({ 3, NRTA_XU_COMPUTE, 0 }), 0),
		make_seq(kDroppedXu, 1),
		make_seq(static_cast<nrta_xu_id_t>(6 << 4), 1),
		make_seq(static_cast<nrta_xu_id_t>(NRTA_XU_COMPUTE << 4 | 2), 1),
		~0ull,
	};
	for (nrta_seq_t s : bad) {
		assert_int_equal(nrta_is_completed(s, &done), NRT_INVALID);
		assert_true(done);
		assert_int_equal(nrta_get_completion_handle(s, &fd), NRT_INVALID);
		assert_int_equal(fd, -1);
		fd = 5;
	}
	assert_int_equal(nrta_is_completed(never, nullptr), NRT_INVALID);
	assert_int_equal(nrta_get_completion_handle(never, nullptr), NRT_INVALID);
}

// nrta_get_sequence: a queue that never ran a request answers its unit id
// with number 0 (any state); a unit kind, queue or NeuronCore that does not
// exist is NRT_INVALID.
void last_completed(void **)
{
	nrta_seq_t seq = 1;
	assert_int_equal(nrta_get_sequence(2, NRTA_XU_TENSOR_OP, 3, &seq), NRT_SUCCESS);
	assert_true(seq == make_seq(xu_id({ 2, NRTA_XU_TENSOR_OP, 3 }), 0));
	queue_addr a;
	assert_true(xu_decode(static_cast<nrta_xu_id_t>(NRTA_SEQ_GET_XU_ID(seq)), &a));
	assert_int_equal(a.lnc, 2);
	assert_int_equal(a.xu, NRTA_XU_TENSOR_OP);
	assert_int_equal(a.queue, 3);
	assert_int_equal(nrta_get_sequence(0, NRTA_XU_COMPUTE, 0, &seq), NRT_SUCCESS);
	assert_true(NRTA_SEQ_GET_SEQ_NUM(seq) == 0);
	seq = 9;
	assert_int_equal(nrta_get_sequence(0, NRTA_XU_COMPUTE, 0, nullptr), NRT_INVALID);
	assert_int_equal(nrta_get_sequence(0, NRTA_XU_COMPUTE, 1, &seq), NRT_INVALID);
	assert_int_equal(nrta_get_sequence(0, NRTA_XU_COLLECTIVES, -1, &seq), NRT_INVALID);
	assert_int_equal(nrta_get_sequence(0, NRTA_XU_TENSOR_READ, kTensorQueues, &seq), NRT_INVALID);
	assert_int_equal(nrta_get_sequence(0, NRTA_XU_TYPE_NUM, 0, &seq), NRT_INVALID);
	assert_int_equal(nrta_get_sequence(kMaxLnc, NRTA_XU_COMPUTE, 0, &seq), NRT_INVALID);
	// a C caller passes any int as the kind: looked at as that int
	using by_int = NRT_STATUS (*)(uint32_t, int, int, nrta_seq_t *);
	auto get = reinterpret_cast<by_int>(&nrta_get_sequence);
	static_assert(sizeof(nrta_xu_t) == sizeof(int));
	for (int kind : { -1, static_cast<int>(NRTA_XU_TYPE_NUM), 8, 1000, INT_MIN, INT_MAX })
		assert_int_equal(get(0, kind, 0, &seq), NRT_INVALID);
	assert_true(seq == 9);
	assert_int_equal(get(0, NRTA_XU_COMPUTE, 0, &seq), NRT_SUCCESS);
	assert_true(seq == make_seq(xu_id({ 0, NRTA_XU_COMPUTE, 0 }), 0));
}

// A tracker lists its errors in the order they came, each once: a list
// holds what came since the previous one.
void tracker_order(void **)
{
	tracker t(1, 8);
	const nrta_error_t *list = nullptr;
	size_t n = 99;
	t.take(&list, &n);
	assert_int_equal(n, 0);
	const NRT_STATUS codes[] = { NRT_EXEC_BAD_INPUT, NRT_EXEC_HW_ERR_HBM_UE, NRT_TIMEOUT };
	for (unsigned i = 0; i < 3; i++)
		t.add(make_seq(0x31, i + 1), codes[i]);
	t.take(&list, &n);
	assert_int_equal(n, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_true(list[i].seq_id == make_seq(0x31, i + 1));
		assert_int_equal(list[i].error_code, codes[i]);
	}
	// errors after a take go to the next list; the one handed out stays as it was
	t.add(make_seq(0x31, 9), NRT_CLOSED);
	assert_int_equal(list[0].error_code, NRT_EXEC_BAD_INPUT);
	assert_int_equal(list[2].error_code, NRT_TIMEOUT);
	t.take(&list, &n);
	assert_int_equal(n, 1);
	assert_true(list[0].seq_id == make_seq(0x31, 9));
	assert_int_equal(list[0].error_code, NRT_CLOSED);
	t.take(&list, &n);
	assert_int_equal(n, 0);
	assert_int_equal(t.lnc(), 1);
}

// Past its capacity a tracker keeps the first errors, counts the rest and
// lists one more entry: the dropped entry's unit id, the count as its
// number, NRT_QUEUE_FULL. The count starts again after each list.
void tracker_bound(void **)
{
	tracker t(0, 4);
	const nrta_error_t *list = nullptr;
	size_t n = 0;
	for (uint64_t i = 1; i <= 10; i++)
		t.add(make_seq(0x30, i), NRT_EXEC_COMPLETED_WITH_ERR);
	t.take(&list, &n);
	assert_int_equal(n, 5);
	for (uint64_t i = 0; i < 4; i++)
		assert_true(list[i].seq_id == make_seq(0x30, i + 1));
	assert_true(NRTA_SEQ_GET_XU_ID(list[4].seq_id) == kDroppedXu);
	assert_true(NRTA_SEQ_GET_SEQ_NUM(list[4].seq_id) == 6);
	assert_int_equal(list[4].error_code, NRT_QUEUE_FULL);
	// exactly full: nothing dropped, no extra entry
	for (uint64_t i = 11; i <= 14; i++)
		t.add(make_seq(0x30, i), NRT_TIMEOUT);
	t.take(&list, &n);
	assert_int_equal(n, 4);
	assert_true(list[3].seq_id == make_seq(0x30, 14));
	// one over
	for (uint64_t i = 15; i <= 19; i++)
		t.add(make_seq(0x30, i), NRT_TIMEOUT);
	t.take(&list, &n);
	assert_int_equal(n, 5);
	assert_true(list[4].seq_id == make_seq(kDroppedXu, 1));
	t.take(&list, &n);
	assert_int_equal(n, 0);
	// the library's own bound
	tracker big(0);
	for (uint64_t i = 1; i <= kTrackerCapacity + 3; i++)
		big.add(make_seq(0x30, i), NRT_INVALID);
	big.take(&list, &n);
	assert_int_equal(n, kTrackerCapacity + 1);
	assert_true(list[kTrackerCapacity - 1].seq_id == make_seq(0x30, kTrackerCapacity));
	assert_true(list[kTrackerCapacity].seq_id == make_seq(kDroppedXu, 3));
}

// Producers on several threads (workers of several queues share a
// tracker) while a reader lists: every error is listed once or counted as
// dropped, never lost, and each producer's errors keep their order.
void tracker_concurrent(void **)
{
	constexpr unsigned kThreads = 4, kEach = 3000;
	tracker t(0, 256);
	std::atomic<bool> done{ false };
	std::vector<std::thread> producers;
	for (unsigned p = 0; p < kThreads; p++)
		producers.emplace_back([&t, p] {
			for (uint64_t i = 1; i <= kEach; i++)
				t.add(make_seq(static_cast<nrta_xu_id_t>(p), i), NRT_EXEC_BAD_INPUT);
		});
	uint64_t listed = 0, dropped = 0;
	uint64_t last[kThreads] = {};
	bool ordered = true;
	auto drain = [&] {
		const nrta_error_t *list;
		size_t n;
		t.take(&list, &n);
		for (size_t i = 0; i < n; i++) {
			auto id = NRTA_SEQ_GET_XU_ID(list[i].seq_id);
			if (id == kDroppedXu) {
				dropped += NRTA_SEQ_GET_SEQ_NUM(list[i].seq_id);
				continue;
			}
			listed++;
			uint64_t num = NRTA_SEQ_GET_SEQ_NUM(list[i].seq_id);
			if (id >= kThreads || num <= last[id])
				ordered = false;
			else
				last[id] = num;
		}
	};
	std::thread reader([&] {
		while (!done.load())
			drain();
	});
	for (auto &th : producers)
		th.join();
	done.store(true);
	reader.join();
	drain();
	assert_true(ordered);
	assert_int_equal(listed + dropped, kThreads * kEach);
}

// The tracker handles of the C API: NULL and made-up handles, a list
// through the handle, destroy.
void tracker_handles(void **)
{
	const nrta_error_t *list = reinterpret_cast<const nrta_error_t *>(0x1);
	size_t n = 3;
	auto *bogus = reinterpret_cast<nrta_error_tracker_t *>(uintptr_t{ 0x7fff0004 });
	assert_int_equal(nrta_error_tracker_get_list(bogus, &list, &n), NRT_INVALID_HANDLE);
	assert_null(list);
	assert_int_equal(n, 0);
	assert_int_equal(nrta_error_tracker_get_list(nullptr, &list, &n), NRT_INVALID_HANDLE);
	assert_int_equal(nrta_error_tracker_get_list(bogus, nullptr, &n), NRT_INVALID);
	assert_int_equal(nrta_error_tracker_get_list(bogus, &list, nullptr), NRT_INVALID);
	nrta_error_tracker_destroy(nullptr);
	nrta_error_tracker_destroy(bogus);

	auto obj = std::make_shared<tracker>(0);
	auto *h = reinterpret_cast<nrta_error_tracker_t *>(trackers().issue(obj));
	assert_non_null(h);
	// a tracker handle is no other kind of handle
	auto *as_tensor = reinterpret_cast<nrt_tensor_t *>(h);
	uint8_t buf[4];
	assert_int_equal(nrt_tensor_read(as_tensor, buf, 0, 1), NRT_INVALID_HANDLE);
	obj->add(make_seq(0x30, 4), NRT_EXEC_HW_ERR_NC_UE);
	assert_int_equal(nrta_error_tracker_get_list(h, &list, &n), NRT_SUCCESS);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].error_code, NRT_EXEC_HW_ERR_NC_UE);
	assert_string_equal(nrt_get_status_as_str(static_cast<NRT_STATUS>(list[0].error_code)),
			    "NRT_EXEC_HW_ERR_NC_UE");
	nrta_error_tracker_destroy(h);
	assert_int_equal(nrta_error_tracker_get_list(h, &list, &n), NRT_INVALID_HANDLE);
	// the object lives on while a request holds it
	obj->add(make_seq(0x30, 5), NRT_CLOSED);
	obj->take(&list, &n);
	assert_int_equal(n, 1);
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_layout),
		cmocka_unit_test(unit_ids),
		cmocka_unit_test(before_init),
		cmocka_unit_test(completion_queries),
		cmocka_unit_test(last_completed),
		cmocka_unit_test(tracker_order),
		cmocka_unit_test(tracker_bound),
		cmocka_unit_test(tracker_concurrent),
		cmocka_unit_test(tracker_handles),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
