// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The asynchronous API (<nrt/nrt_async.h>): queues, their workers,
// sequence ids, completion handles and error trackers.
//
// A queue is one (logical NeuronCore, unit kind, queue index). Scheduling
// checks the arguments, numbers the request (1, 2, ... per queue) and
// appends it; the queue's worker thread, started on its first request,
// runs its requests one at a time through the synchronous calls
// (nrt_execute, nrt_tensor_read/write/copy), so a request's status, the
// priority fold of what its execution drained and the counter bridge are
// exactly the synchronous path's, counted once, there. A status other
// than NRT_SUCCESS goes into the request's tracker before the request
// counts as completed, so whoever sees it completed finds its error.
//
// Lock order: engine::stop_lock (nrt_close(), exit) -> engine::life
// (shared by scheduling, exclusive by a stop) -> engine::map_lock ->
// queue::lock. A worker takes its queue's lock and, outside it, its
// request's tracker's lock; nothing is held across a request's
// synchronous call. fork() and the workers: see "fork()" below.
#include "async.hpp"

#include <nrt/nrt.h>

#include <fcntl.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <shared_mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "export.hpp"
#include "model.hpp"
#include "runtime.hpp"
#include "tensor.hpp"

namespace nrt::async {

constinit thread_local bool on_worker [[gnu::tls_model("initial-exec")]] = false;	// async.hpp

tracker::tracker(uint32_t lnc, size_t capacity) : lnc_(lnc), capacity_(capacity)
{
	pending_.reserve(capacity_ + 1);
	listed_.reserve(capacity_ + 1);
}

void tracker::add(nrta_seq_t seq, NRT_STATUS st) noexcept
{
	std::lock_guard<std::mutex> g(lock_);
	if (pending_.size() < capacity_)
		pending_.push_back(nrta_error_t{ seq, static_cast<uint64_t>(st) });	// reserved: no allocation
	else
		dropped_++;
}

void tracker::take(const nrta_error_t **list, size_t *count) noexcept
{
	std::lock_guard<std::mutex> g(lock_);
	listed_.clear();
	listed_.swap(pending_);	// both keep capacity_ + 1
	if (dropped_) {
		listed_.push_back(nrta_error_t{ make_seq(kDroppedXu, dropped_),
						static_cast<uint64_t>(NRT_QUEUE_FULL) });
		dropped_ = 0;
	}
	*list = listed_.data();
	*count = listed_.size();
}

tracker_table &trackers()
{
	static tracker_table t;
	return t;
}

namespace {

// One scheduled request; the handles are the caller's, looked up again by
// the synchronous call when the request runs.
struct request {
	enum class op : uint8_t { read, write, copy, execute } what = op::read;
	uint64_t num = 0;			// its sequence number in its queue
	std::shared_ptr<tracker> err;		// may be null: the status is not kept
	const void *h1 = nullptr;		// model, tensor, or copy source
	const void *h2 = nullptr;		// input set, or copy destination
	const void *h3 = nullptr;		// output set
	void *buf = nullptr;			// read: the destination
	const void *cbuf = nullptr;		// write: the source
	uint64_t off1 = 0, off2 = 0, size = 0;
};

NRT_STATUS perform(const request &r) noexcept
{
	auto *h1 = const_cast<void *>(r.h1);
	auto *h2 = const_cast<void *>(r.h2);
	auto *h3 = const_cast<void *>(r.h3);
	switch (r.what) {
	case request::op::read:
		return nrt_tensor_read(static_cast<nrt_tensor_t *>(h1), r.buf, r.off1, r.size);
	case request::op::write:
		return nrt_tensor_write(static_cast<nrt_tensor_t *>(h1), r.cbuf, r.off1, r.size);
	case request::op::copy:
		return nrt_tensor_copy(static_cast<nrt_tensor_t *>(h1), r.off1,
				       static_cast<nrt_tensor_t *>(h2), r.off2, r.size);
	case request::op::execute:
		return nrt_execute(static_cast<nrt_model_t *>(h1), h2, h3);
	}
	return NRT_FAILURE;
}

struct queue {
	explicit queue(nrta_xu_id_t i) : id(i) {}

	const nrta_xu_id_t id;
	std::mutex lock;		// protects everything below (the atomics are written under it)
	std::condition_variable cv;	// the worker waits here for a request or stop
	std::deque<request> pending;	// scheduled, not started
	std::atomic<uint64_t> issued{ 0 };	// the last sequence number handed out
	std::atomic<uint64_t> completed{ 0 };	// the last one completed (in order)
	std::multimap<uint64_t, int> waiters;	// sequence number -> our own descriptor of a handle's eventfd
	std::unique_ptr<std::thread> worker;	// null until the first request, and after a stop
	bool stop = false;		// the worker completes what is pending with NRT_CLOSED and ends

	// Under lock: every handle waiting for @num or earlier becomes readable.
	void fire_locked(uint64_t num) noexcept
	{
		auto end = waiters.upper_bound(num);
		for (auto it = waiters.begin(); it != end; ++it) {
			const uint64_t one = 1;
			// an eventfd's counter cannot overflow from one write of 1 here
			[[maybe_unused]] ssize_t n = ::write(it->second, &one, sizeof(one));
			::close(it->second);
		}
		waiters.erase(waiters.begin(), end);
	}
};

// ---- fork() ----
//
// The child of a fork() has none of the parent's queue workers, and must
// find free every lock it may take (nrt_close(), nrt_init(), the
// synchronous calls, a tracker's list). A worker takes those only in the
// short stretches of its request (looking handles up, copying bytes, its
// tracker); waiting for a NeuronCore's lock, its job or a collective step
// (long_wait) it holds no lock but the NeuronCore's, which the child never
// takes (rt::inherited(): an inherited device's executions are refused).
// So fork() (prepare) waits until no worker is in a short stretch, and
// none starts one until the fork is done (parent, child); the wait is as
// short as those stretches, never a job's. The child's queues then start
// empty: the parent's engine state is left as it is, never touched (nor
// freed). seq_cst throughout: a worker's "active, then is a fork on?"
// against fork()'s "forking, then is a worker active?".
std::atomic<uint32_t> forking{ 0 };	// fork() calls between prepare and parent
std::atomic<uint32_t> active{ 0 };	// workers in a short stretch
constinit thread_local unsigned waiting [[gnu::tls_model("initial-exec")]] = 0;	// long_wait stretches this thread is in (nested)

void gate_leave() noexcept
{
	active.fetch_sub(1);
	if (forking.load())
		active.notify_all();
}

void gate_enter() noexcept
{
	for (;;) {
		uint32_t f;
		while ((f = forking.load()) != 0)
			forking.wait(f);
		active.fetch_add(1);
		if (forking.load() == 0)
			return;
		gate_leave();	// a fork came meanwhile: it goes first
	}
}

void run_queue(queue *q) noexcept
{
	on_worker = true;
	std::unique_lock<std::mutex> g(q->lock);
	for (;;) {
		q->cv.wait(g, [q] { return q->stop || !q->pending.empty(); });
		if (q->pending.empty())
			return;	// stopped, nothing left
		request r = std::move(q->pending.front());
		q->pending.pop_front();
		const bool cancelled = q->stop;
		g.unlock();
		gate_enter();
		NRT_STATUS st = cancelled ? NRT_CLOSED : perform(r);
		if (st != NRT_SUCCESS && r.err)
			r.err->add(make_seq(q->id, r.num), st);
		r.err.reset();
		gate_leave();
		g.lock();
		q->completed.store(r.num, std::memory_order_release);
		q->fire_locked(r.num);
	}
}

class engine;
// The engine once built (by the first call that needs it); never freed, so
// that no call finds it gone, whatever runs at exit.
std::atomic<engine *> live{ nullptr };

class engine {
	struct state;

public:
	engine() : s_(new state) {}
	~engine() { delete s_; }	// only the one a racing first call built too
	engine(const engine &) = delete;
	engine &operator=(const engine &) = delete;

	// Append @r to queue @id: *@seq its sequence id.
	NRT_STATUS submit(nrta_xu_id_t id, request &&r, nrta_seq_t *seq) noexcept
	try {
		state *s = s_;
		if (!s)
			return NRT_FAIL_HOST_MEM_ALLOC;	// a forked child without memory for its own
		std::shared_lock<std::shared_mutex> lg(s->life);
		if (s->closing || s->exited)
			return NRT_CLOSED;
		NRT_STATUS st = rt::guard(rt::rt());
		if (st != NRT_SUCCESS)
			return st;
		queue *q = get(*s, id);
		std::lock_guard<std::mutex> g(q->lock);
		if (q->pending.size() >= kQueueDepth)
			return NRT_QUEUE_FULL;
		const uint64_t num = q->issued.load(std::memory_order_relaxed) + 1;
		if (num > NRTA_SEQ_NUM_MAX)
			return NRT_RESOURCE;
		if (!q->worker)
			q->worker = std::make_unique<std::thread>(run_queue, q);
		r.num = num;
		q->pending.push_back(std::move(r));
		q->issued.store(num, std::memory_order_release);
		q->cv.notify_one();
		*seq = make_seq(id, num);
		return NRT_SUCCESS;
	} catch (const std::system_error &) {
		return NRT_RESOURCE;	// no thread
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}

	// The queue of @id, or null when it never had a request.
	queue *find(nrta_xu_id_t id) noexcept
	{
		state *s = s_;
		if (!s)
			return nullptr;
		std::lock_guard<std::mutex> g(s->map_lock);
		auto it = s->queues.find(id);
		return it == s->queues.end() ? nullptr : it->second.get();
	}

	// Request @seq's queue and sequence number: NRT_INVALID when no
	// request has that id.
	NRT_STATUS lookup(nrta_seq_t seq, queue **q, uint64_t *num) noexcept
	{
		queue_addr a;
		if (!xu_decode(static_cast<nrta_xu_id_t>(NRTA_SEQ_GET_XU_ID(seq)), &a))
			return NRT_INVALID;
		*num = NRTA_SEQ_GET_SEQ_NUM(seq);
		*q = find(static_cast<nrta_xu_id_t>(NRTA_SEQ_GET_XU_ID(seq)));
		if (!*q || *num == 0 || *num > (*q)->issued.load(std::memory_order_acquire))
			return NRT_INVALID;
		return NRT_SUCCESS;
	}

	// nrt_close() (@at_exit false) or the process's exit: no more requests
	// (after exit: never again), every queue ended and its worker joined.
	// One at a time: a second caller waits for the first to have joined.
	void stop_all(bool at_exit) noexcept
	{
		state *s = s_;
		if (!s)
			return;
		std::lock_guard<std::mutex> sg(s->stop_lock);
		{
			std::unique_lock<std::shared_mutex> lg(s->life);
			s->closing = true;	// nothing is scheduled from here on
			if (at_exit)
				s->exited = true;
		}
		std::vector<queue *> all;
		{
			std::lock_guard<std::mutex> g(s->map_lock);
			for (auto &[id, q] : s->queues) {
				try {
					all.push_back(q.get());
				} catch (...) {
					// no memory for the list: this queue is stopped below, alone
					stop_one(q.get());
				}
			}
		}
		for (queue *q : all) {
			std::lock_guard<std::mutex> g(q->lock);
			q->stop = true;
			q->cv.notify_all();
		}
		for (queue *q : all)
			stop_one(q);
	}

	// nrt_close() returned: scheduling is refused by the runtime's guard
	// until the next nrt_init() (and for good after exit).
	void reopen() noexcept
	{
		state *s = s_;
		if (!s)
			return;
		std::unique_lock<std::shared_mutex> lg(s->life);
		s->closing = false;
	}

	// In a forked child (atfork): queues of its own, none yet; the
	// parent's state is left as it is.
	void reset_in_child() noexcept
	{
		try {
			s_ = new state;
		} catch (...) {
			s_ = nullptr;	// every request is refused (no memory)
		}
	}

private:
	struct state {
		std::mutex stop_lock;	// one stop_all() at a time
		std::shared_mutex life;	// protects closing, exited
		bool closing = false;	// nrt_close() is ending the queues
		bool exited = false;	// the process is exiting: for good
		std::mutex map_lock;	// protects queues (a queue, once made, stays to the end)
		std::unordered_map<nrta_xu_id_t, std::unique_ptr<queue>> queues;
	};

	// (the caller holds map_lock, or it is called on a queue of the list
	// stop_all() could not make, under map_lock: the worker takes no map_lock)
	static void stop_one(queue *q) noexcept
	{
		std::unique_ptr<std::thread> w;
		{
			std::lock_guard<std::mutex> g(q->lock);
			q->stop = true;
			q->cv.notify_all();
			w = std::move(q->worker);
		}
		if (w)
			w->join();
		std::lock_guard<std::mutex> g(q->lock);
		q->stop = false;	// the next request starts a worker again
	}

	static queue *get(state &s, nrta_xu_id_t id)
	{
		std::lock_guard<std::mutex> g(s.map_lock);
		auto &slot = s.queues[id];
		if (!slot)
			slot = std::make_unique<queue>(id);
		return slot.get();
	}

	state *s_;	// never freed: a worker, or a call at exit, may still use it
};

void stop_at_exit()
{
	if (engine *e = live.load(std::memory_order_acquire))
		e->stop_all(true);
}

// The engine, built by the first call that needs it; null only when
// there was no memory for it.
engine *eng() noexcept
{
	engine *e = live.load(std::memory_order_acquire);
	if (e)
		return e;
	engine *made;
	try {
		// the objects a worker's synchronous call uses are built first,
		// so at exit they go after stop_at_exit, which joins the workers
		rt::rt();
		model::models();
		tensor::tensors();
		tensor::sets();
		trackers();
		made = new engine;
	} catch (...) {
		return nullptr;
	}
	if (!live.compare_exchange_strong(e, made, std::memory_order_acq_rel, std::memory_order_acquire)) {
		delete made;	// another call's came first
		return e;
	}
	std::atexit(stop_at_exit);
	return made;
}

void fork_prepare()
{
	forking.fetch_add(1);
	uint32_t a;
	while ((a = active.load()) != 0)
		active.wait(a);
}

void fork_parent()
{
	forking.fetch_sub(1);
	forking.notify_all();
}

void fork_child()
{
	// one thread: this one, which is no worker
	active.store(0);
	forking.store(0);
	if (engine *e = live.load(std::memory_order_acquire))
		e->reset_in_child();
}

// At load, before any thread of ours exists.
[[maybe_unused]] const int fork_handlers = ::pthread_atfork(fork_prepare, fork_parent, fork_child);

// The logical NeuronCore (visible index) of NeuronCore @nc of @dev; false
// when it is not one of this process's.
bool lnc_of(const rt::device_ctx *dev, uint32_t nc, uint32_t *lnc)
{
	rt::runtime &r = rt::rt();
	std::lock_guard<std::mutex> g(r.lock);
	uint32_t global = 0;
	for (const auto &d : r.devices) {
		if (!d)
			continue;
		if (d.get() == dev) {
			global += nc;
			if (global < r.visible_first || global - r.visible_first >= r.visible_count)
				return false;
			*lnc = global - r.visible_first;
			return true;
		}
		global += ndl_device_get_info(d->dev)->nc_count;
	}
	return false;
}

uint32_t visible_count()
{
	rt::runtime &r = rt::rt();
	std::lock_guard<std::mutex> g(r.lock);
	return r.visible_count;
}

// The tracker behind @err (null stays null) for requests on @lnc.
NRT_STATUS tracker_for(nrta_error_tracker_t *err, uint32_t lnc, std::shared_ptr<tracker> *out)
{
	if (!err)
		return NRT_SUCCESS;
	*out = trackers().find(err);
	if (!*out)
		return NRT_INVALID_HANDLE;
	return (*out)->lnc() == lnc ? NRT_SUCCESS : NRT_INVALID;
}

// A device tensor's logical NeuronCore, for a request on it: NRT_INVALID
// for a tensor without device memory of its own (host, attached, empty)
// or out of [@offset, @offset + @size), NRT_CLOSED once nrt_close() freed
// its memory.
NRT_STATUS device_tensor(const nrt_tensor_t *handle, uint64_t offset, uint64_t size,
			 std::shared_ptr<tensor::device_mem> *mem, uint32_t *lnc)
{
	auto t = tensor::tensors().find(handle);
	if (!t)
		return NRT_INVALID_HANDLE;
	if (t->placement != NRT_TENSOR_PLACEMENT_DEVICE || t->host)
		return NRT_INVALID;
	*mem = t->dmem();
	if (!*mem)
		return NRT_CLOSED;
	if (!tensor::in_range(t->size, offset, size))
		return NRT_INVALID;
	return lnc_of((*mem)->dev.get(), (*mem)->nc, lnc) ? NRT_SUCCESS : NRT_INVALID;
}

// What every scheduling call checks first: the runtime initialized,
// somewhere to put the sequence id.
NRT_STATUS schedule_guard(nrta_seq_t *req_sequence)
{
	NRT_STATUS st = rt::guard(rt::rt());
	if (st != NRT_SUCCESS)
		return st;
	return req_sequence ? NRT_SUCCESS : NRT_INVALID;
}

// Request @r on queue @queue of unit @xu of logical NeuronCore @lnc, its
// status kept by @err (which must be that NeuronCore's, or NULL).
NRT_STATUS submit_on(uint32_t lnc, nrta_xu_t xu, int queue, nrta_error_tracker_t *err, request &&r,
		     nrta_seq_t *req_sequence)
{
	if (queue < 0 || queue >= queues_of(xu))
		return NRT_INVALID;
	NRT_STATUS st = tracker_for(err, lnc, &r.err);
	if (st != NRT_SUCCESS)
		return st;
	engine *e = eng();
	if (!e)
		return NRT_FAIL_HOST_MEM_ALLOC;
	return e->submit(xu_id({ lnc, xu, queue }), std::move(r), req_sequence);
}

} // namespace

void long_wait::enter() noexcept
{
	if (waiting++ == 0)
		gate_leave();
	on_ = true;
}

void long_wait::leave() noexcept
{
	on_ = false;
	if (--waiting == 0)
		gate_enter();
}

closing_scope::closing_scope() noexcept
{
	// with the runtime up, a first request may be building the engine
	// right now: the same one, which this stop then ends
	engine *e = rt::guard(rt::rt()) == NRT_SUCCESS ? eng() : live.load(std::memory_order_acquire);
	if (e)
		e->stop_all(false);
}

closing_scope::~closing_scope()
{
	if (engine *e = live.load(std::memory_order_acquire))
		e->reopen();
}

} // namespace nrt::async

using namespace nrt;
using namespace nrt::async;

namespace {

// nrta_tensor_write (@cbuf) and nrta_tensor_read (@buf): the same checks
// and the same request but for its direction.
NRT_STATUS schedule_tensor_io(bool write, nrt_tensor_t *tensor, void *buf, const void *cbuf,
			      uint64_t offset, uint64_t size, int queue, nrta_error_tracker_t *err,
			      nrta_seq_t *req_sequence)
{
	NRT_STATUS st = schedule_guard(req_sequence);
	if (st != NRT_SUCCESS)
		return st;
	std::shared_ptr<tensor::device_mem> mem;
	uint32_t lnc = 0;
	st = device_tensor(tensor, offset, size, &mem, &lnc);
	if (st != NRT_SUCCESS)
		return st;
	if (write ? !cbuf : !buf)
		return NRT_INVALID;
	request r;
	r.what = write ? request::op::write : request::op::read;
	r.h1 = tensor;
	r.buf = buf;
	r.cbuf = cbuf;
	r.off1 = offset;
	r.size = size;
	return submit_on(lnc, write ? NRTA_XU_TENSOR_WRITE : NRTA_XU_TENSOR_READ, queue, err,
			 std::move(r), req_sequence);
}

} // namespace

NRT_EXPORT NRT_STATUS nrta_tensor_write(nrt_tensor_t *tensor, const void *buf, uint64_t offset,
					uint64_t size, int queue, nrta_error_tracker_t *err,
					nrta_seq_t *req_sequence)
{
	return schedule_tensor_io(true, tensor, nullptr, buf, offset, size, queue, err, req_sequence);
}

NRT_EXPORT NRT_STATUS nrta_tensor_read(void *buf, nrt_tensor_t *tensor, uint64_t offset, uint64_t size,
				       int queue, nrta_error_tracker_t *err, nrta_seq_t *req_sequence)
{
	return schedule_tensor_io(false, tensor, buf, nullptr, offset, size, queue, err, req_sequence);
}

NRT_EXPORT NRT_STATUS nrta_tensor_copy(nrt_tensor_t *src, uint64_t src_offset, nrt_tensor_t *dst,
				       uint64_t dst_offset, uint64_t size, int queue,
				       nrta_error_tracker_t *err, nrta_seq_t *req_sequence)
{
	NRT_STATUS st = schedule_guard(req_sequence);
	if (st != NRT_SUCCESS)
		return st;
	// two device tensors of one logical NeuronCore, as the SDK requires
	std::shared_ptr<tensor::device_mem> smem, dmem;
	uint32_t slnc = 0, dlnc = 0;
	st = device_tensor(src, src_offset, size, &smem, &slnc);
	if (st == NRT_SUCCESS)
		st = device_tensor(dst, dst_offset, size, &dmem, &dlnc);
	if (st != NRT_SUCCESS)
		return st;
	if (slnc != dlnc)
		return NRT_INVALID;
	request r;
	r.what = request::op::copy;
	r.h1 = src;
	r.h2 = dst;
	r.off1 = src_offset;
	r.off2 = dst_offset;
	r.size = size;
	return submit_on(slnc, NRTA_XU_TENSOR_OP, queue, err, std::move(r), req_sequence);
}

NRT_EXPORT NRT_STATUS nrta_execute_schedule(nrt_model_t *model, const nrt_tensor_set_t *input,
					    nrt_tensor_set_t *output, int queue, nrta_error_tracker_t *err,
					    nrta_seq_t *req_sequence)
{
	NRT_STATUS st = schedule_guard(req_sequence);
	if (st != NRT_SUCCESS)
		return st;
	auto m = model::models().find(model);
	if (!m)
		return NRT_INVALID_HANDLE;
	// a NULL set is an empty one, as nrt_execute() takes it
	if ((input && !tensor::sets().find(input)) || (output && !tensor::sets().find(output)))
		return NRT_INVALID_HANDLE;
	request r;
	r.what = request::op::execute;
	r.h1 = model;
	r.h2 = input;
	r.h3 = output;
	return submit_on(m->vnc_first, NRTA_XU_COMPUTE, queue, err, std::move(r), req_sequence);
}

NRT_EXPORT NRT_STATUS nrta_cc_prepare(nrt_cc_comm_t *comm, nrt_tensor_list_t *input,
				      nrt_tensor_list_t *output, nrt_dtype_t dtype, nrt_op_type_t op,
				      nrt_cc_op_type_t cc_op, nrt_cc_context_t **cc_ctx)
{
	(void)dtype;
	(void)op;
	(void)cc_op;
	if (cc_ctx)
		*cc_ctx = nullptr;
	NRT_STATUS st = rt::guard(rt::rt());
	if (st != NRT_SUCCESS)
		return st;
	if (!comm || !input || !output || !cc_ctx)
		return NRT_INVALID;
	// no host-driven collectives in this runtime (docs/sdk-compat.md)
	return NRT_FAILURE;
}

NRT_EXPORT NRT_STATUS nrta_cc_schedule(nrt_cc_context_t **cc_ctx, int queue, nrta_error_tracker_t *err,
				       nrta_seq_t *req_sequence)
{
	(void)err;
	NRT_STATUS st = schedule_guard(req_sequence);
	if (st != NRT_SUCCESS)
		return st;
	if (!cc_ctx || !*cc_ctx || queue != 0)
		return NRT_INVALID;
	// nrta_cc_prepare() never hands out a context here
	return NRT_INVALID_HANDLE;
}

NRT_EXPORT NRT_STATUS nrta_is_completed(nrta_seq_t seq, bool *is_completed)
{
	if (!is_completed)
		return NRT_INVALID;
	engine *e = live.load(std::memory_order_acquire);	// none: no request yet
	queue *q;
	uint64_t num;
	NRT_STATUS st = e ? e->lookup(seq, &q, &num) : NRT_INVALID;
	if (st != NRT_SUCCESS)
		return st;
	*is_completed = q->completed.load(std::memory_order_acquire) >= num;
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrta_get_sequence(uint32_t lnc, nrta_xu_t xu, int queue, nrta_seq_t *seq)
{
	if (!seq)
		return NRT_INVALID;
	// a value no unit kind has (negative, or past the last) is refused,
	// looked at as the int the caller passed before it is taken as a kind
	int kind;
	static_assert(sizeof(kind) == sizeof(xu));
	std::memcpy(&kind, &xu, sizeof(kind));
	if (kind < 0 || kind >= static_cast<int>(NRTA_XU_TYPE_NUM))
		return NRT_INVALID;
	queue_addr a;
	a.lnc = lnc;
	a.queue = queue;
	a.xu = static_cast<nrta_xu_t>(kind);
	if (!valid(a))
		return NRT_INVALID;
	// while the runtime is up, only its logical NeuronCores
	if (rt::guard(rt::rt()) == NRT_SUCCESS && lnc >= visible_count())
		return NRT_INVALID;
	const nrta_xu_id_t id = xu_id(a);
	engine *e = live.load(std::memory_order_acquire);	// none: no request yet
	struct queue *q = e ? e->find(id) : nullptr;	// (the parameter hides the type)
	*seq = make_seq(id, q ? q->completed.load(std::memory_order_acquire) : 0);
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrta_get_completion_handle(nrta_seq_t seq, int *fd)
{
	if (!fd)
		return NRT_INVALID;
	*fd = -1;
	engine *e = live.load(std::memory_order_acquire);	// none: no request yet
	queue *q;
	uint64_t num;
	NRT_STATUS st = e ? e->lookup(seq, &q, &num) : NRT_INVALID;
	if (st != NRT_SUCCESS)
		return st;
	int efd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0)
		return errno == EMFILE || errno == ENFILE || errno == ENOMEM ? NRT_RESOURCE : NRT_FAILURE;
	const uint64_t one = 1;
	std::lock_guard<std::mutex> g(q->lock);
	if (q->completed.load(std::memory_order_relaxed) >= num) {
		[[maybe_unused]] ssize_t n = ::write(efd, &one, sizeof(one));
		*fd = efd;
		return NRT_SUCCESS;
	}
	// the worker writes through a descriptor of its own, so the caller may
	// close theirs at any time (and its number be reused) meanwhile
	int own = ::fcntl(efd, F_DUPFD_CLOEXEC, 0);
	if (own < 0) {
		::close(efd);
		return NRT_RESOURCE;
	}
	try {
		q->waiters.emplace(num, own);
	} catch (...) {
		::close(own);
		::close(efd);
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	*fd = efd;
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrta_error_tracker_create(uint32_t lnc_idx, nrta_error_tracker_t **error_tracker)
{
	if (!error_tracker)
		return NRT_INVALID;
	*error_tracker = nullptr;
	NRT_STATUS st = rt::guard(rt::rt());
	if (st != NRT_SUCCESS)
		return st;
	if (lnc_idx >= visible_count())
		return NRT_INVALID;
	std::shared_ptr<tracker> t;
	try {
		t = std::make_shared<tracker>(lnc_idx);
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	uintptr_t h = trackers().issue(std::move(t));
	if (!h)
		return NRT_FAIL_HOST_MEM_ALLOC;
	*error_tracker = reinterpret_cast<nrta_error_tracker_t *>(h);
	return NRT_SUCCESS;
}

NRT_EXPORT void nrta_error_tracker_destroy(nrta_error_tracker_t *error_tracker)
{
	// requests still holding it finish into it; its memory goes with the last
	trackers().take(error_tracker);
}

NRT_EXPORT NRT_STATUS nrta_error_tracker_get_list(nrta_error_tracker_t *error_tracker,
						  const nrta_error_t **list, size_t *error_count)
{
	if (!list || !error_count)
		return NRT_INVALID;
	*list = nullptr;
	*error_count = 0;
	auto t = trackers().find(error_tracker);
	if (!t)
		return NRT_INVALID_HANDLE;
	t->take(list, error_count);
	return NRT_SUCCESS;
}
