// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Collectives between workers on one host (libnrt/src/collectives.*):
// the job's name, the bound, the word sum, the model.sim `collective`
// directive, and the communicator itself on the host, its workers threads
// of this process (the protocol is the same between processes): meeting,
// refusals, names that do not meet, the all-reduce over many steps, and
// every way a step fails (a worker that leaves, stalls or fails its own
// part; rank 0 leaving) ending the others' steps within the bound
// (docs/sdk-compat.md, "Collectives"). Process death and the device's
// side (NRT_EXEC_HW_ERR_COLLECTIVES through the error ring) are the
// guest's: tests/vm/28_collectives.sh.
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "collectives.hpp"
#include "neff.hpp"

extern "C" {
#include <cmocka.h>
}

using namespace nrt;

namespace {

using comm_ptr = std::unique_ptr<coll::communicator>;

// A name no other test (or a parallel run) uses.
std::string job_name()
{
	static int n;
	return "unit-" + std::to_string(getpid()) + "-" + std::to_string(++n) + ":4242";
}

coll::join_args args(const std::string &id, uint32_t rank, uint32_t count, uint32_t ms = 5000,
		     uint64_t bytes = 16, uint8_t model = 0)
{
	coll::join_args a;
	a.model.fill(model);
	a.rank = rank;
	a.count = count;
	a.kind = 1;
	a.bytes = bytes;
	a.id = id;
	a.timeout_ms = ms;
	return a;
}

uint64_t now_ms()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
		std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Every worker of @as joins from a thread of its own: the statuses, in rank order.
std::vector<NRT_STATUS> join_all(const std::vector<coll::join_args> &as, std::vector<comm_ptr> *out)
{
	std::vector<NRT_STATUS> st(as.size(), NRT_FAILURE);
	out->clear();
	out->resize(as.size());
	std::vector<std::thread> t;
	for (size_t i = 0; i < as.size(); i++)
		t.emplace_back([&, i] {
			std::string why;
			st[i] = coll::communicator::join(as[i], &(*out)[i], &why);
		});
	for (auto &x : t)
		x.join();
	return st;
}

// Words of a buffer, little-endian.
std::vector<uint8_t> words(std::initializer_list<uint32_t> w)
{
	std::vector<uint8_t> b;
	for (uint32_t v : w)
		for (int k = 0; k < 4; k++)
			b.push_back(static_cast<uint8_t>(v >> (8 * k)));
	return b;
}

uint32_t word(const std::vector<uint8_t> &b, size_t i)
{
	return static_cast<uint32_t>(b[4 * i]) | static_cast<uint32_t>(b[4 * i + 1]) << 8 |
	       static_cast<uint32_t>(b[4 * i + 2]) << 16 | static_cast<uint32_t>(b[4 * i + 3]) << 24;
}

// Wait (bounded) until something listens under @id: rank 0 is waiting.
bool listening(const std::string &id)
{
	std::string name = coll::socket_name(id);
	sockaddr_un sa{};
	sa.sun_family = AF_UNIX;
	std::memcpy(sa.sun_path, name.data(), name.size());
	auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
	for (int i = 0; i < 2000; i++) {
		int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int r = ::connect(fd, reinterpret_cast<const sockaddr *>(&sa), len);
		::close(fd);
		if (r == 0)
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	return false;
}

// A worker by hand: connected to rank 0 of @id, its HELLO sent (rank @rank
// of @count, the model of args()); the socket, which the caller closes.
int raw_hello(const std::string &id, uint32_t rank, uint32_t count)
{
	std::string name = coll::socket_name(id);
	sockaddr_un sa{};
	sa.sun_family = AF_UNIX;
	std::memcpy(sa.sun_path, name.data(), name.size());
	int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (::connect(fd, reinterpret_cast<const sockaddr *>(&sa),
		      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size())) != 0) {
		::close(fd);
		return -1;
	}
	coll::wire_hdr h{};
	h.magic = coll::kWireMagic;
	h.version = coll::kWireVersion;
	h.type = static_cast<uint16_t>(coll::msg::hello);
	h.rank = rank;
	h.count = count;
	h.kind = 1;
	h.bytes = 16;
	if (::send(fd, &h, sizeof(h), MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof(h))) {
		::close(fd);
		return -1;
	}
	return fd;
}

void comm_ids(void **)
{
	const char *good[] = { "localhost:62182", "10.0.0.1:1", "h:65535", "[::1]:8080", "a:b:9" };
	for (const char *s : good)
		assert_true(coll::valid_comm_id(s));
	const char *bad[] = { "", "localhost", ":80", "host:", "host:0", "host:65536", "host:080",
			      "host:8x", "ho st:80", "host:-1", "host:+1", "h\x7f:1", "host:123456" };
	for (const char *s : bad)
		assert_false(coll::valid_comm_id(s));
	std::string longest(coll::kMaxCommIdLen - 2, 'h');
	assert_true(coll::valid_comm_id(longest + ":1"));
	assert_false(coll::valid_comm_id(longest + ":12"));
	// abstract: a leading NUL, then the prefix and the name; it fits a sun_path
	std::string n = coll::socket_name("localhost:62182");
	assert_int_equal(n[0], '\0');
	assert_string_equal(n.c_str() + 1, "neuron-rt-coll/localhost:62182");
	assert_true(coll::socket_name(longest + ":1").size() <= sizeof(sockaddr_un{}.sun_path));
}

void timeouts(void **)
{
	uint32_t ms = 0;
	assert_true(coll::timeout_ms(nullptr, 2000000, &ms));
	assert_int_equal(ms, 2000);	// the execution timeout
	assert_true(coll::timeout_ms("", 30000000, &ms));
	assert_int_equal(ms, 30000);
	assert_true(coll::timeout_ms(nullptr, 10, &ms));
	assert_int_equal(ms, 1);
	assert_true(coll::timeout_ms("250", 2000000, &ms));
	assert_int_equal(ms, 250);
	assert_true(coll::timeout_ms("60000", 2000000, &ms));
	assert_int_equal(ms, 60000);
	for (const char *s : { "0", "60001", "-5", "1s", " 5", "99999999999999999999" }) {
		ms = 7;
		assert_false(coll::timeout_ms(s, 2000000, &ms));
		assert_int_equal(ms, 7);
	}
}

void word_sum(void **)
{
	auto a = words({ 1, 0xffffffffu, 0x80000000u, 7 });
	auto b = words({ 2, 2, 0x80000000u, 0 });
	coll::sum_u32(a, b);
	assert_int_equal(word(a, 0), 3);
	assert_int_equal(word(a, 1), 1);	// mod 2^32
	assert_int_equal(word(a, 2), 0);
	assert_int_equal(word(a, 3), 7);
}

void description(void **)
{
	neff::model_desc m;
	const std::string head = "format 1\nname c\nop affine_u32 3 7\ninput in 16\n";
	assert_int_equal(neff::parse_model(head + "output out 16\ncollective all_reduce_sum_u32\n", &m),
			 NRT_SUCCESS);
	assert_true(m.coll == neff::collective::all_reduce_sum_u32);
	// written back and read again
	neff::model_desc again;
	assert_int_equal(neff::parse_model(neff::format(m), &again), NRT_SUCCESS);
	assert_true(again.coll == neff::collective::all_reduce_sum_u32);
	assert_int_equal(neff::parse_model(head + "output out 16\ncollective none\n", &m), NRT_SUCCESS);
	assert_true(m.coll == neff::collective::none);
	assert_true(neff::format(m).find("collective") == std::string::npos);
	// refused: no op, a size that is not whole words, unknown, repeated, bare
	assert_int_equal(neff::parse_model("format 1\nname c\ncollective all_reduce_sum_u32\n", &m),
			 NRT_INVALID);
	assert_int_equal(neff::parse_model("format 1\nname c\nop xor_u8 1\ninput in 6\noutput out 6\n"
					   "collective all_reduce_sum_u32\n", &m),
			 NRT_INVALID);
	assert_int_equal(neff::parse_model(head + "output out 16\ncollective all_gather\n", &m),
			 NRT_INVALID);
	assert_int_equal(neff::parse_model(head + "output out 16\ncollective none\ncollective none\n", &m),
			 NRT_INVALID);
	assert_int_equal(neff::parse_model(head + "output out 16\ncollective\n", &m), NRT_INVALID);
}

// Three workers, many steps: each ends with the sum of the three.
void all_reduce_steps(void **)
{
	const std::string id = job_name();
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 0, 3), args(id, 1, 3), args(id, 2, 3) }, &c);
	for (auto s : st)
		assert_int_equal(s, NRT_SUCCESS);
	for (uint32_t step = 1; step <= 20; step++) {
		std::vector<std::vector<uint8_t>> b(3);
		std::vector<NRT_STATUS> r(3, NRT_FAILURE);
		std::vector<std::thread> t;
		for (uint32_t k = 0; k < 3; k++) {
			b[k] = words({ k + step, 100 * k, 0xfffffff0u + k, step * step });
			t.emplace_back([&, k] {
				std::string why;
				r[k] = c[k]->all_reduce(b[k], true, &why);
			});
		}
		for (auto &x : t)
			x.join();
		for (uint32_t k = 0; k < 3; k++) {
			assert_int_equal(r[k], NRT_SUCCESS);
			assert_int_equal(word(b[k], 0), 3 * step + 3);
			assert_int_equal(word(b[k], 1), 300);
			assert_int_equal(word(b[k], 2), 3u * 0xfffffff0u + 3);
			assert_int_equal(word(b[k], 3), 3 * step * step);
		}
	}
}

// Large steps move through the sockets' buffers piece by piece.
void all_reduce_large(void **)
{
	const std::string id = job_name();
	const uint64_t bytes = 4 << 20;
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 0, 2, 5000, bytes), args(id, 1, 2, 5000, bytes) }, &c);
	assert_int_equal(st[0], NRT_SUCCESS);
	assert_int_equal(st[1], NRT_SUCCESS);
	std::vector<uint8_t> b0(bytes), b1(bytes);
	for (size_t i = 0; i < bytes; i++) {
		b0[i] = static_cast<uint8_t>(i * 7);
		b1[i] = static_cast<uint8_t>(i >> 12);
	}
	std::vector<uint8_t> want = b0;
	coll::sum_u32(want, b1);
	NRT_STATUS r1 = NRT_FAILURE;
	std::thread t([&] {
		std::string why;
		r1 = c[1]->all_reduce(b1, true, &why);
	});
	std::string why;
	assert_int_equal(c[0]->all_reduce(b0, true, &why), NRT_SUCCESS);
	t.join();
	assert_int_equal(r1, NRT_SUCCESS);
	assert_true(b0 == want);
	assert_true(b1 == want);
}

// Alone, either side gives up at the bound: NRT_TIMEOUT, not before it.
void join_alone_times_out(void **)
{
	for (uint32_t rank : { 0u, 1u }) {
		comm_ptr c;
		std::string why;
		uint64_t t0 = now_ms();
		assert_int_equal(coll::communicator::join(args(job_name(), rank, 2, 150), &c, &why),
				 NRT_TIMEOUT);
		uint64_t ms = now_ms() - t0;
		assert_true(ms >= 150 && ms < 3000);
		assert_null(c.get());
		assert_false(why.empty());
	}
}

// Two jobs with different names never meet: each waits for its own.
void names_apart(void **)
{
	std::vector<comm_ptr> c;
	auto st = join_all({ args(job_name(), 0, 2, 200), args(job_name(), 1, 2, 200) }, &c);
	assert_int_equal(st[0], NRT_TIMEOUT);
	assert_int_equal(st[1], NRT_TIMEOUT);
}

// What rank 0 refuses, at once; the right worker is let in afterwards.
void refusals(void **)
{
	const std::string id = job_name();
	comm_ptr root;
	NRT_STATUS rst = NRT_FAILURE;
	std::thread t([&] {
		std::string why;
		rst = coll::communicator::join(args(id, 0, 3, 5000), &root, &why);
	});
	assert_true(listening(id));
	struct {
		coll::join_args a;
		const char *why;
	} bad[] = {
		{ args(id, 1, 2), "another worker count" },
		{ args(id, 1, 3, 5000, 32), "collective or output size" },
		{ args(id, 1, 3, 5000, 16, 0xab), "another model (NEFF uuid)" },
	};
	for (auto &b : bad) {
		comm_ptr c;
		std::string why;
		uint64_t t0 = now_ms();
		assert_int_equal(coll::communicator::join(b.a, &c, &why), NRT_INVALID);
		assert_true(now_ms() - t0 < 2000);
		assert_non_null(std::strstr(why.c_str(), b.why));
	}
	// a second rank 0 under the same name
	{
		comm_ptr c;
		std::string why;
		assert_int_equal(coll::communicator::join(args(id, 0, 3), &c, &why), NRT_INVALID);
	}
	// rank 1 is in (its hello comes first: rank 0 takes them in order); a
	// second rank 1 is refused while the first is there; rank 2 completes
	int one = raw_hello(id, 1, 3);
	assert_true(one >= 0);
	{
		comm_ptr c;
		std::string why;
		assert_int_equal(coll::communicator::join(args(id, 1, 3), &c, &why), NRT_INVALID);
		assert_non_null(std::strstr(why.c_str(), "another worker has that rank"));
	}
	comm_ptr two;
	std::string why;
	assert_int_equal(coll::communicator::join(args(id, 2, 3), &two, &why), NRT_SUCCESS);
	t.join();
	assert_int_equal(rst, NRT_SUCCESS);
	// rank 1 got its welcome
	coll::wire_hdr w{};
	assert_int_equal(::recv(one, &w, sizeof(w), MSG_WAITALL), static_cast<ssize_t>(sizeof(w)));
	assert_int_equal(w.type, static_cast<uint16_t>(coll::msg::welcome));
	::close(one);
	// the name is free once they met: a new job may take it
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 0, 2), args(id, 1, 2) }, &c);
	assert_int_equal(st[0], NRT_SUCCESS);
	assert_int_equal(st[1], NRT_SUCCESS);
}

// Two models of one collective and output size under one job name, loaded
// in opposite orders by the two workers: each worker's first join meets
// the other's first, which is the other model; it is refused rather than
// paired (their sums would mix two models' outputs). Loaded in the same
// order, each pair meets.
void models_apart(void **)
{
	const std::string id = job_name();
	const uint8_t a = 0x11, b = 0x22;
	// rank 0 loads a (and waits), rank 1 loads b first
	comm_ptr root;
	NRT_STATUS rst = NRT_FAILURE;
	std::thread t([&] {
		std::string why;
		rst = coll::communicator::join(args(id, 0, 2, 5000, 16, a), &root, &why);
	});
	assert_true(listening(id));
	{
		comm_ptr c;
		std::string why;
		uint64_t t0 = now_ms();
		assert_int_equal(coll::communicator::join(args(id, 1, 2, 5000, 16, b), &c, &why), NRT_INVALID);
		assert_true(now_ms() - t0 < 2000);
		assert_null(c.get());
		assert_non_null(std::strstr(why.c_str(), "another model (NEFF uuid)"));
	}
	// rank 1's model a meets rank 0's a, and their step sums
	comm_ptr one;
	std::string why;
	assert_int_equal(coll::communicator::join(args(id, 1, 2, 5000, 16, a), &one, &why), NRT_SUCCESS);
	t.join();
	assert_int_equal(rst, NRT_SUCCESS);
	auto b0 = words({ 1, 2, 3, 4 }), b1 = words({ 10, 20, 30, 40 });
	NRT_STATUS s0 = NRT_FAILURE;
	std::thread r([&] {
		std::string w;
		s0 = root->all_reduce(b0, true, &w);
	});
	assert_int_equal(one->all_reduce(b1, true, &why), NRT_SUCCESS);
	r.join();
	assert_int_equal(s0, NRT_SUCCESS);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(word(b0, i), 11 * (i + 1));
		assert_int_equal(word(b1, i), 11 * (i + 1));
	}
	// the same two models loaded in the same order by both: each pair meets
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 0, 2, 5000, 16, b), args(id, 1, 2, 5000, 16, b) }, &c);
	assert_int_equal(st[0], NRT_SUCCESS);
	assert_int_equal(st[1], NRT_SUCCESS);
}

// A worker that leaves (its communicator closed, as its exit would):
// the others' step fails at once, and every later step too.
void worker_leaves(void **)
{
	const std::string id = job_name();
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 0, 3, 5000), args(id, 1, 3, 5000), args(id, 2, 3, 5000) }, &c);
	for (auto s : st)
		assert_int_equal(s, NRT_SUCCESS);
	c[2].reset();
	NRT_STATUS r1 = NRT_FAILURE;
	std::string why1;
	std::thread t([&] {
		auto b = words({ 1, 2, 3, 4 });
		r1 = c[1]->all_reduce(b, true, &why1);
	});
	auto b = words({ 1, 2, 3, 4 });
	std::string why;
	uint64_t t0 = now_ms();
	assert_int_equal(c[0]->all_reduce(b, true, &why), NRT_EXEC_HW_ERR_COLLECTIVES);
	t.join();
	assert_true(now_ms() - t0 < 4000);	// at once, not at the 5 s bound
	assert_int_equal(r1, NRT_EXEC_HW_ERR_COLLECTIVES);
	assert_non_null(std::strstr(why.c_str(), "worker 2 of 3 left"));
	assert_non_null(std::strstr(why1.c_str(), "another worker failed"));
	// closed for good: the next step fails at once, with nothing new to say
	assert_int_equal(c[0]->all_reduce(b, true, &why), NRT_EXEC_HW_ERR_COLLECTIVES);
	assert_true(why.empty());
	assert_int_equal(c[1]->all_reduce(b, true, &why), NRT_EXEC_HW_ERR_COLLECTIVES);
}

// A worker that does not take part: rank 0 gives up at the bound, and the
// stalled worker's later step fails at once.
void worker_stalls(void **)
{
	const std::string id = job_name();
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 0, 2, 300), args(id, 1, 2, 300) }, &c);
	assert_int_equal(st[0], NRT_SUCCESS);
	assert_int_equal(st[1], NRT_SUCCESS);
	auto b = words({ 1, 2, 3, 4 });
	std::string why;
	uint64_t t0 = now_ms();
	assert_int_equal(c[0]->all_reduce(b, true, &why), NRT_EXEC_HW_ERR_COLLECTIVES);
	uint64_t ms = now_ms() - t0;
	assert_true(ms >= 300 && ms < 3000);
	assert_non_null(std::strstr(why.c_str(), "worker 1 of 2 did not take part in step 1 within 300 ms"));
	t0 = now_ms();
	assert_int_equal(c[1]->all_reduce(b, true, &why), NRT_EXEC_HW_ERR_COLLECTIVES);
	assert_true(now_ms() - t0 < 250);
}

// Rank 0 leaves: a worker's step fails at once.
void root_leaves(void **)
{
	const std::string id = job_name();
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 0, 2, 5000), args(id, 1, 2, 5000) }, &c);
	assert_int_equal(st[0], NRT_SUCCESS);
	assert_int_equal(st[1], NRT_SUCCESS);
	c[0].reset();
	auto b = words({ 1, 2, 3, 4 });
	std::string why;
	uint64_t t0 = now_ms();
	assert_int_equal(c[1]->all_reduce(b, true, &why), NRT_EXEC_HW_ERR_COLLECTIVES);
	assert_true(now_ms() - t0 < 4000);
	assert_non_null(std::strstr(why.c_str(), "rank 0 left during step 1"));
}

// A worker whose own part failed tells the others: they fail at once.
void local_failure(void **)
{
	const std::string id = job_name();
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 0, 2, 5000), args(id, 1, 2, 5000) }, &c);
	assert_int_equal(st[0], NRT_SUCCESS);
	assert_int_equal(st[1], NRT_SUCCESS);
	std::string why;
	assert_int_equal(c[1]->all_reduce({}, false, &why), NRT_EXEC_HW_ERR_COLLECTIVES);
	auto b = words({ 1, 2, 3, 4 });
	uint64_t t0 = now_ms();
	assert_int_equal(c[0]->all_reduce(b, true, &why), NRT_EXEC_HW_ERR_COLLECTIVES);
	assert_true(now_ms() - t0 < 4000);
	assert_non_null(std::strstr(why.c_str(), "failed its own part of step 1"));
}

// A worker that left while the others were still meeting can be replaced.
void leaves_before_start(void **)
{
	const std::string id = job_name();
	comm_ptr root;
	NRT_STATUS rst = NRT_FAILURE;
	std::thread t([&] {
		std::string why;
		rst = coll::communicator::join(args(id, 0, 3, 5000), &root, &why);
	});
	assert_true(listening(id));
	// rank 1 knocks, sends its hello and goes before rank 0 is complete
	int fd = raw_hello(id, 1, 3);
	assert_true(fd >= 0);
	::close(fd);
	std::vector<comm_ptr> c;
	auto st = join_all({ args(id, 1, 3), args(id, 2, 3) }, &c);
	t.join();
	assert_int_equal(rst, NRT_SUCCESS);
	assert_int_equal(st[0], NRT_SUCCESS);
	assert_int_equal(st[1], NRT_SUCCESS);
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(comm_ids),
		cmocka_unit_test(timeouts),
		cmocka_unit_test(word_sum),
		cmocka_unit_test(description),
		cmocka_unit_test(all_reduce_steps),
		cmocka_unit_test(all_reduce_large),
		cmocka_unit_test(join_alone_times_out),
		cmocka_unit_test(names_apart),
		cmocka_unit_test(refusals),
		cmocka_unit_test(models_apart),
		cmocka_unit_test(worker_leaves),
		cmocka_unit_test(worker_stalls),
		cmocka_unit_test(root_leaves),
		cmocka_unit_test(local_failure),
		cmocka_unit_test(leaves_before_start),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
