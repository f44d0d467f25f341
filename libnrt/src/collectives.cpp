// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// Collectives between worker processes on one host (collectives.hpp).
//
// Rank 0 binds the abstract unix socket "\0neuron-rt-coll/<id>" and
// listens; every other rank connects to it (retrying while nobody listens,
// within the bound), sends HELLO (rank, count, the model's NEFF uuid, its
// collective and size) and waits for WELCOME or REJECT. Rank 0 answers WELCOME once
// every rank has joined, then closes the listening socket. An abstract
// socket exists only while its process holds it: nothing is left in the
// file system or in shared memory, a dead job's name is free again at once,
// and two jobs with different names never meet. Only processes of the
// same user are accepted (SO_PEERCRED).
//
// A step: each rank k > 0 sends DATA (its bytes) and waits for RESULT (the
// sum); rank 0 reads every DATA at once (poll), sums, and answers RESULT.
// Any failure (a peer's end of file, a stall past the bound, an ABORT, a
// message that is not the step's) makes the worker that sees it send ABORT
// to whom it still reaches and close every socket, so the others fail at
// once rather than at their bound. Every socket is non-blocking and every
// wait a poll() against one deadline per step; writes use MSG_NOSIGNAL.
#include "collectives.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace nrt::coll {

bool valid_comm_id(std::string_view id) noexcept
{
	if (id.empty() || id.size() > kMaxCommIdLen)
		return false;
	size_t colon = id.rfind(':');
	if (colon == std::string_view::npos || colon == 0)
		return false;
	for (size_t i = 0; i < colon; i++)
		if (id[i] <= ' ' || id[i] >= 0x7f)
			return false;
	std::string_view port = id.substr(colon + 1);
	if (port.empty() || port.size() > 5 || port[0] == '0')
		return false;
	uint32_t v = 0;
	for (char c : port) {
		if (c < '0' || c > '9')
			return false;
		v = v * 10 + static_cast<uint32_t>(c - '0');
	}
	return v >= 1 && v <= 65535;
}

std::string socket_name(std::string_view id)
{
	std::string s(1, '\0');
	s += kSocketPrefix;
	s += id;
	return s;
}

bool timeout_ms(const char *env, uint64_t exec_timeout_us, uint32_t *out) noexcept
{
	if (!env || !*env) {
		uint64_t ms = exec_timeout_us / 1000;
		*out = static_cast<uint32_t>(std::clamp<uint64_t>(ms, 1, kMaxTimeoutMs));
		return true;
	}
	uint64_t v = 0;
	for (const char *p = env; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + static_cast<uint64_t>(*p - '0');
		if (v > kMaxTimeoutMs)
			return false;
	}
	if (v == 0)
		return false;
	*out = static_cast<uint32_t>(v);
	return true;
}

void sum_u32(std::span<uint8_t> acc, std::span<const uint8_t> add) noexcept
{
	size_t n = std::min(acc.size(), add.size()) / 4 * 4;
	for (size_t i = 0; i < n; i += 4) {
		uint32_t a = static_cast<uint32_t>(acc[i]) | static_cast<uint32_t>(acc[i + 1]) << 8 |
			     static_cast<uint32_t>(acc[i + 2]) << 16 |
			     static_cast<uint32_t>(acc[i + 3]) << 24;
		uint32_t b = static_cast<uint32_t>(add[i]) | static_cast<uint32_t>(add[i + 1]) << 8 |
			     static_cast<uint32_t>(add[i + 2]) << 16 |
			     static_cast<uint32_t>(add[i + 3]) << 24;
		uint32_t s = a + b;
		acc[i] = static_cast<uint8_t>(s);
		acc[i + 1] = static_cast<uint8_t>(s >> 8);
		acc[i + 2] = static_cast<uint8_t>(s >> 16);
		acc[i + 3] = static_cast<uint8_t>(s >> 24);
	}
}

const char *reject_text(uint32_t reason) noexcept
{
	switch (static_cast<reject_reason>(reason)) {
	case reject_reason::rank_taken:
		return "another worker has that rank";
	case reject_reason::count_differs:
		return "rank 0 has another worker count";
	case reject_reason::model_differs:
		return "rank 0 loaded another model (NEFF uuid), collective or output size";
	case reject_reason::rank_range:
		return "the rank is not below the worker count";
	default:
		return "refused";
	}
}

namespace {

using steady = std::chrono::steady_clock;

struct deadline {
	steady::time_point end;

	explicit deadline(uint32_t ms) : end(steady::now() + std::chrono::milliseconds(ms)) {}
	// milliseconds left, rounded up; 0 once passed
	int left_ms() const
	{
		auto d = std::chrono::duration_cast<std::chrono::microseconds>(end - steady::now()).count();
		if (d <= 0)
			return 0;
		return static_cast<int>((d + 999) / 1000);
	}
};

wire_hdr header(msg type, uint32_t rank, uint32_t count, uint64_t seq, uint64_t bytes)
{
	wire_hdr h{};
	h.magic = kWireMagic;
	h.version = kWireVersion;
	h.type = static_cast<uint16_t>(type);
	h.rank = rank;
	h.count = count;
	h.seq = seq;
	h.bytes = bytes;
	return h;
}

bool header_ok(const wire_hdr &h)
{
	return h.magic == kWireMagic && h.version == kWireVersion;
}

enum class io { done, again, closed, timeout, error };

// Wait until @fd is ready for @events: io::done, io::timeout, io::closed
// (hang-up or error on the socket, nothing to read), io::error.
io wait_fd(int fd, short events, const deadline &dl)
{
	for (;;) {
		pollfd p{ fd, events, 0 };
		int n = ::poll(&p, 1, dl.left_ms());
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return io::error;
		}
		if (n == 0)
			return io::timeout;
		if (p.revents & events)
			return io::done;	// readable also at end of file: recv says
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			return io::closed;
	}
}

// Everything of @p to @fd before the deadline.
io send_all(int fd, const void *p, size_t n, const deadline &dl)
{
	auto *b = static_cast<const uint8_t *>(p);
	while (n) {
		ssize_t w = ::send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			b += w;
			n -= static_cast<size_t>(w);
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			io r = wait_fd(fd, POLLOUT, dl);
			if (r != io::done)
				return r;
			continue;
		}
		return w < 0 && (errno == EPIPE || errno == ECONNRESET) ? io::closed : io::error;
	}
	return io::done;
}

// What is there of @n more bytes into @p, without waiting: io::done when
// all of them arrived (*@got advanced), io::again when more are to come,
// io::closed at end of file.
io recv_some(int fd, void *p, size_t n, size_t *got)
{
	auto *b = static_cast<uint8_t *>(p);
	while (*got < n) {
		ssize_t r = ::recv(fd, b + *got, n - *got, MSG_DONTWAIT);
		if (r > 0) {
			*got += static_cast<size_t>(r);
			continue;
		}
		if (r == 0)
			return io::closed;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return io::again;
		return errno == ECONNRESET ? io::closed : io::error;
	}
	return io::done;
}

// All @n bytes into @p before the deadline.
io recv_all(int fd, void *p, size_t n, const deadline &dl)
{
	size_t got = 0;
	for (;;) {
		io r = recv_some(fd, p, n, &got);
		if (r != io::again)
			return r;
		r = wait_fd(fd, POLLIN, dl);
		if (r != io::done)
			return r;
	}
}

// A header alone, best effort and without waiting (ABORT on the way out).
void send_nowait(int fd, const wire_hdr &h)
{
	ssize_t w;
	do
		w = ::send(fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
}

// Whether the other end of @fd closed (what it sent before is not looked at).
bool gone(int fd)
{
	char c;
	ssize_t r;
	do
		r = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

bool same_user(int fd)
{
	ucred cr{};
	socklen_t len = sizeof(cr);
	if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
		return false;
	return cr.uid == ::geteuid();
}

NRT_STATUS socket_status(int err)
{
	return err == ENOMEM || err == ENOBUFS || err == EMFILE || err == ENFILE ? NRT_RESOURCE
										  : NRT_FAILURE;
}

// A socket call @what failed with @err (taken where it failed): its status,
// and *@why says so.
NRT_STATUS socket_failed(const char *what, int err, const std::string &where, std::string *why)
{
	*why = std::string(what) + ": " + std::strerror(err) + where;
	return socket_status(err);
}

// The socket address of job @id and its length.
socklen_t address(std::string_view id, sockaddr_un *sa)
{
	std::string name = socket_name(id);
	*sa = sockaddr_un{};
	sa->sun_family = AF_UNIX;
	// valid_comm_id bounds the name far below sun_path's 108 bytes
	std::memcpy(sa->sun_path, name.data(), name.size());
	return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
}

std::string ms_text(uint32_t ms)
{
	return std::to_string(ms) + " ms";
}

// A short pause between two tries to reach rank 0: 1, 2, 4 .. 16 ms, never
// past the deadline.
void nap(unsigned *step, const deadline &dl)
{
	int ms = std::min(1 << std::min(*step, 4u), dl.left_ms());
	if (*step < 4)
		(*step)++;
	if (ms <= 0)
		return;
	timespec ts{ 0, static_cast<long>(ms) * 1000000L };
	while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

struct pending {
	unique_fd fd;
	wire_hdr h{};
	size_t got = 0;
};

} // namespace

NRT_STATUS communicator::join(const join_args &a, std::unique_ptr<communicator> *out,
			      std::string *why) noexcept
try {
	if (a.count < 2 || a.count > kMaxWorkers || a.rank >= a.count || !valid_comm_id(a.id)) {
		*why = "not a job to meet in: worker " + std::to_string(a.rank) + " of " +
		       std::to_string(a.count) + " (2 to " + std::to_string(kMaxWorkers) + " workers), " +
		       std::string(kRootCommEnv) + " '" + a.id + "'";
		return NRT_INVALID;
	}
	std::unique_ptr<communicator> c(new communicator());
	c->rank_ = a.rank;
	c->count_ = a.count;
	c->bytes_ = a.bytes;
	c->timeout_ms_ = a.timeout_ms;
	c->id_ = a.id;
	const std::string where = " (" + std::string(kRootCommEnv) + "=" + a.id + ")";
	deadline dl(a.timeout_ms);
	sockaddr_un sa;
	socklen_t sa_len = address(a.id, &sa);

	if (a.rank == 0) {
		unique_fd ls(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
		if (!ls)
			return socket_failed("socket", errno, where, why);
		if (::bind(ls.get(), reinterpret_cast<const sockaddr *>(&sa), sa_len) != 0) {
			int e = errno;
			if (e != EADDRINUSE)
				return socket_failed("bind", e, where, why);
			*why = "another rank 0 is already waiting for its workers under this name" + where;
			return NRT_INVALID;
		}
		if (::listen(ls.get(), static_cast<int>(std::min<uint32_t>(a.count, 4096))) != 0)
			return socket_failed("listen", errno, where, why);
		c->peers_.resize(a.count - 1);
		std::vector<pending> waiting;
		uint32_t joined = 0;
		std::vector<pollfd> pfd;
		while (joined < a.count - 1) {
			int left = dl.left_ms();
			if (left == 0) {
				*why = "only " + std::to_string(joined + 1) + " of " + std::to_string(a.count) +
				       " workers met within " + ms_text(a.timeout_ms) + where;
				return NRT_TIMEOUT;
			}
			// the listening socket, the workers joined (whose end of file
			// means they left before the start), the ones not heard yet
			pfd.clear();
			pfd.push_back({ ls.get(), POLLIN, 0 });
			for (auto &p : c->peers_)
				pfd.push_back({ p.get(), POLLIN, 0 });	// -1 is skipped by poll
			for (auto &w : waiting)
				pfd.push_back({ w.fd.get(), POLLIN, 0 });
			int n = ::poll(pfd.data(), pfd.size(), left);
			if (n < 0 && errno != EINTR)
				return socket_failed("poll", errno, where, why);
			if (n <= 0)
				continue;
			size_t k = 1;
			for (size_t i = 0; i < c->peers_.size(); i++, k++) {
				// a joined worker sends nothing before WELCOME: readable is its end
				if (pfd[k].fd < 0 || !pfd[k].revents)
					continue;
				c->peers_[i].reset();
				joined--;
			}
			for (size_t i = 0; i < waiting.size(); i++, k++) {
				if (!pfd[k].revents)
					continue;
				pending &w = waiting[i];
				io r = recv_some(w.fd.get(), &w.h, sizeof(w.h), &w.got);
				if (r == io::again)
					continue;
				if (r != io::done || !header_ok(w.h) || w.h.type != static_cast<uint16_t>(msg::hello)) {
					w.fd.reset();	// gone, or not one of ours
					continue;
				}
				reject_reason rr = reject_reason::none;
				if (w.h.count != a.count)
					rr = reject_reason::count_differs;
				else if (w.h.rank == 0 || w.h.rank >= a.count)
					rr = reject_reason::rank_range;
				else if (c->peers_[w.h.rank - 1] && !gone(c->peers_[w.h.rank - 1].get()))
					rr = reject_reason::rank_taken;
				else if (w.h.kind != a.kind || w.h.bytes != a.bytes ||
					 std::memcmp(w.h.model, a.model.data(), kModelIdLen) != 0)
					rr = reject_reason::model_differs;
				if (rr != reject_reason::none) {
					wire_hdr rj = header(msg::reject, 0, a.count, 0, 0);
					rj.reason = static_cast<uint32_t>(rr);
					send_nowait(w.fd.get(), rj);
					w.fd.reset();
					continue;
				}
				// (a holder of the rank that went is replaced)
				if (!c->peers_[w.h.rank - 1])
					joined++;
				c->peers_[w.h.rank - 1] = std::move(w.fd);
			}
			std::erase_if(waiting, [](const pending &w) { return !w.fd; });
			// all in: none of them may have gone meanwhile (this poll's
			// news about them was not looked at)
			if (joined == a.count - 1) {
				for (auto &p : c->peers_) {
					if (p && gone(p.get())) {
						p.reset();
						joined--;
					}
				}
			}
			if (pfd[0].revents & POLLIN) {
				for (;;) {
					int fd = ::accept4(ls.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
					if (fd < 0)
						break;
					unique_fd cfd(fd);
					// another user's process is no worker of this job
					if (!same_user(fd) || waiting.size() >= 4 * size_t{ a.count })
						continue;
					waiting.push_back(pending{ std::move(cfd) });
				}
			}
		}
		ls.reset();	// the name is free again: every worker is here
		wire_hdr wl = header(msg::welcome, 0, a.count, 0, a.bytes);
		for (auto &p : c->peers_) {
			// one that left meanwhile: the first step finds it gone
			if (send_all(p.get(), &wl, sizeof(wl), dl) != io::done)
				p.reset();
		}
		if (std::any_of(c->peers_.begin(), c->peers_.end(), [](const unique_fd &p) { return !p; }))
			c->close_all(true);	// the first step fails at once, as the worker's going would make it
		c->inbox_.resize(a.count - 1);
		*out = std::move(c);
		return NRT_SUCCESS;
	}

	unsigned step = 0;
	for (;;) {
		if (dl.left_ms() == 0) {
			*why = "no rank 0 let it in within " + ms_text(a.timeout_ms) + where;
			return NRT_TIMEOUT;
		}
		unique_fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
		if (!fd)
			return socket_failed("socket", errno, where, why);
		if (::connect(fd.get(), reinterpret_cast<const sockaddr *>(&sa), sa_len) != 0) {
			int e = errno;
			// nobody listens yet, or its queue is full: try again
			if (e == ECONNREFUSED || e == ENOENT || e == EAGAIN || e == EINTR) {
				nap(&step, dl);
				continue;
			}
			return socket_failed("connect", e, where, why);
		}
		if (!same_user(fd.get())) {
			*why = "the rank 0 listening under this name is another user's process" + where;
			return NRT_INVALID;
		}
		wire_hdr hi = header(msg::hello, a.rank, a.count, 0, a.bytes);
		hi.kind = a.kind;
		std::memcpy(hi.model, a.model.data(), kModelIdLen);
		wire_hdr re{};
		io r = send_all(fd.get(), &hi, sizeof(hi), dl);
		if (r == io::done)
			r = recv_all(fd.get(), &re, sizeof(re), dl);
		if (r == io::timeout)
			continue;	// the deadline ends the loop above
		if (r != io::done) {
			// rank 0 went away before answering: a new one may come
			nap(&step, dl);
			continue;
		}
		if (!header_ok(re)) {
			*why = "what listens under this name is not a rank 0 of libnrt" + where;
			return NRT_INVALID;
		}
		if (re.type == static_cast<uint16_t>(msg::reject)) {
			*why = std::string("refused by rank 0: ") + reject_text(re.reason) + where;
			return NRT_INVALID;
		}
		if (re.type != static_cast<uint16_t>(msg::welcome) || re.count != a.count) {
			*why = "rank 0 answered out of turn" + where;
			return NRT_INVALID;
		}
		c->peers_.push_back(std::move(fd));
		*out = std::move(c);
		return NRT_SUCCESS;
	}
} catch (...) {
	return NRT_FAIL_HOST_MEM_ALLOC;
}

void communicator::close_all(bool tell) noexcept
{
	wire_hdr ab = header(msg::abort, rank_, count_, seq_, 0);
	for (auto &p : peers_) {
		if (tell && p)
			send_nowait(p.get(), ab);
		p.reset();
	}
	broken_ = true;
}

NRT_STATUS communicator::all_reduce(std::span<uint8_t> buf, bool local_ok, std::string *why) noexcept
try {
	why->clear();
	if (broken_)
		return NRT_EXEC_HW_ERR_COLLECTIVES;
	seq_++;
	if (!local_ok) {
		// the others learn it now rather than at their bound
		close_all(true);
		*why = "this worker's own step failed";
		return NRT_EXEC_HW_ERR_COLLECTIVES;
	}
	if (buf.size() != bytes_) {
		close_all(true);
		*why = "the step's size differs from the one the workers met with";
		return NRT_EXEC_HW_ERR_COLLECTIVES;
	}
	NRT_STATUS st = rank_ == 0 ? reduce_root(buf, why) : reduce_peer(buf, why);
	if (st != NRT_SUCCESS) {
		close_all(true);
		*why += " (" + std::string(kRootCommEnv) + "=" + id_ + ")";
	}
	return st;
} catch (...) {
	close_all(true);
	// assigning may allocate too: the reason is best effort here
	try {
		*why = "no memory for the step";
	} catch (...) {
	}
	return NRT_EXEC_HW_ERR_COLLECTIVES;
}

NRT_STATUS communicator::reduce_peer(std::span<uint8_t> buf, std::string *why)
{
	deadline dl(timeout_ms_);
	int fd = peers_[0].get();
	wire_hdr h = header(msg::data, rank_, count_, seq_, buf.size());
	io r = send_all(fd, &h, sizeof(h), dl);
	if (r == io::done)
		r = send_all(fd, buf.data(), buf.size(), dl);
	wire_hdr re{};
	if (r == io::done) {
		r = recv_all(fd, &re, sizeof(re), dl);
	} else if (r == io::closed) {
		// rank 0 closed: it may have said why before (ABORT)
		size_t got = 0;
		if (recv_some(fd, &re, sizeof(re), &got) == io::done)
			r = io::done;
	}
	if (r == io::done && header_ok(re) && re.type == static_cast<uint16_t>(msg::result) &&
	    re.seq == seq_ && re.bytes == buf.size())
		r = recv_all(fd, buf.data(), buf.size(), dl);
	else if (r == io::done)
		r = io::error;
	if (r == io::done)
		return NRT_SUCCESS;
	if (r == io::timeout)
		*why = "rank 0 did not complete step " + std::to_string(seq_) + " within " +
		       ms_text(timeout_ms_);
	else if (r == io::error && header_ok(re) && re.type == static_cast<uint16_t>(msg::abort))
		*why = "rank 0 ended step " + std::to_string(seq_) + ": another worker failed";
	else if (r == io::closed)
		*why = "rank 0 left during step " + std::to_string(seq_);
	else
		*why = "step " + std::to_string(seq_) + " failed talking to rank 0";
	return NRT_EXEC_HW_ERR_COLLECTIVES;
}

NRT_STATUS communicator::reduce_root(std::span<uint8_t> buf, std::string *why)
{
	deadline dl(timeout_ms_);
	const size_t n = peers_.size();
	struct state {
		wire_hdr h{};
		size_t hgot = 0, dgot = 0;
		bool done = false;
	};
	std::vector<state> s(n);
	std::vector<pollfd> pfd;
	std::vector<size_t> who;
	size_t left = n;
	while (left) {
		pfd.clear();
		who.clear();
		for (size_t i = 0; i < n; i++) {
			if (s[i].done)
				continue;
			pfd.push_back({ peers_[i].get(), POLLIN, 0 });
			who.push_back(i);
		}
		int ms = dl.left_ms();
		int ready = ms ? ::poll(pfd.data(), pfd.size(), ms) : 0;
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0) {
			*why = "poll failed in step " + std::to_string(seq_);
			return NRT_EXEC_HW_ERR_COLLECTIVES;
		}
		if (ready == 0) {
			// name the first worker that did not take part in time
			*why = "worker " + std::to_string(who[0] + 1) + " of " + std::to_string(count_) +
			       " did not take part in step " + std::to_string(seq_) + " within " +
			       ms_text(timeout_ms_);
			return NRT_EXEC_HW_ERR_COLLECTIVES;
		}
		for (size_t j = 0; j < pfd.size(); j++) {
			if (!pfd[j].revents)
				continue;
			size_t i = who[j];
			state &st = s[i];
			int fd = peers_[i].get();
			const std::string worker = "worker " + std::to_string(i + 1) + " of " +
						   std::to_string(count_);
			io r = io::done;
			if (st.hgot < sizeof(st.h)) {
				r = recv_some(fd, &st.h, sizeof(st.h), &st.hgot);
				if (r == io::done) {
					if (!header_ok(st.h) || st.h.rank != i + 1) {
						*why = worker + " sent what is not a step";
						return NRT_EXEC_HW_ERR_COLLECTIVES;
					}
					if (st.h.type == static_cast<uint16_t>(msg::abort)) {
						*why = worker + " failed its own part of step " +
						       std::to_string(seq_);
						return NRT_EXEC_HW_ERR_COLLECTIVES;
					}
					if (st.h.type != static_cast<uint16_t>(msg::data) || st.h.seq != seq_ ||
					    st.h.bytes != buf.size()) {
						*why = worker + " is not at step " + std::to_string(seq_) +
						       " of this size";
						return NRT_EXEC_HW_ERR_COLLECTIVES;
					}
					inbox_[i].resize(buf.size());
				}
			}
			if (r == io::done && st.hgot == sizeof(st.h))
				r = recv_some(fd, inbox_[i].data(), buf.size(), &st.dgot);
			if (r == io::closed) {
				*why = worker + " left during step " + std::to_string(seq_);
				return NRT_EXEC_HW_ERR_COLLECTIVES;
			}
			if (r == io::error) {
				*why = "step " + std::to_string(seq_) + " failed reading " + worker;
				return NRT_EXEC_HW_ERR_COLLECTIVES;
			}
			if (r == io::done && st.hgot == sizeof(st.h) && st.dgot == buf.size()) {
				st.done = true;
				left--;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		sum_u32(buf, inbox_[i]);
	wire_hdr res = header(msg::result, 0, count_, seq_, buf.size());
	for (size_t i = 0; i < n; i++) {
		io r = send_all(peers_[i].get(), &res, sizeof(res), dl);
		if (r == io::done)
			r = send_all(peers_[i].get(), buf.data(), buf.size(), dl);
		if (r != io::done) {
			*why = "worker " + std::to_string(i + 1) + " of " + std::to_string(count_) +
			       (r == io::timeout ? " did not take the result of step " : " left before the result of step ") +
			       std::to_string(seq_);
			return NRT_EXEC_HW_ERR_COLLECTIVES;
		}
	}
	return NRT_SUCCESS;
}

} // namespace nrt::coll
