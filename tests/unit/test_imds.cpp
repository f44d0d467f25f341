// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// neuron-monitor's instance metadata client
// (tools/neuron-monitor/imds.hpp): the HTTP response reader (good
// responses whole and in pieces, 404, chunked refused, truncated,
// oversized, malformed status and header lines), the address override's
// parser, a query of a port nobody listens on, and the IMDSv1 fallback
// when the token PUT is never answered (an in-process server on the
// loopback).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <csetjmp>
#include <cstdarg>
#include <cstring>
#include <string>
#include <atomic>
#include <thread>

// before cmocka.h, whose fail() macro the C++ headers would meet
#include "neuron-monitor/imds.hpp"

extern "C" {
#include <cmocka.h>
}

namespace d = tools::imds;
using ps = d::parse_status;

static ps parse(const std::string &raw, bool eof, d::response &r, std::string &err)
{
	r = d::response();
	err.clear();
	return d::parse_response(raw, eof, r, err);
}

static void good_responses(void **)
{
	d::response r;
	std::string err;
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, r, err),
			 ps::complete);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body.c_str(), "hello");
	// HTTP/1.0, no reason phrase, header names in any case, OWS around values
	assert_int_equal(parse("HTTP/1.0 200\r\ncontent-LENGTH:\t3 \r\nX-A:b\r\n\r\nabc", true, r, err),
			 ps::complete);
	assert_string_equal(r.body.c_str(), "abc");
	// an empty reason after the space
	assert_int_equal(parse("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n", false, r, err),
			 ps::complete);
	assert_string_equal(r.body.c_str(), "");
	// the same Content-Length twice is one
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
			       false, r, err), ps::complete);
	// no Content-Length: the body ends with the connection
	std::string close = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\ni-0123456789abcdef0";
	assert_int_equal(parse(close, false, r, err), ps::incomplete);
	assert_int_equal(parse(close, true, r, err), ps::complete);
	assert_string_equal(r.body.c_str(), "i-0123456789abcdef0");
	// a body of exactly the cap
	std::string cap(d::kMaxBody, 'x');
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(cap.size()) +
			       "\r\n\r\n" + cap, false, r, err), ps::complete);
	assert_int_equal(r.body.size(), d::kMaxBody);
}

// Fed byte by byte as recv() might deliver it: incomplete until the last
// byte, then the whole response.
static void in_pieces(void **)
{
	const std::string full = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nabcd";
	d::response r;
	std::string err;
	for (size_t n = 0; n < full.size(); n++)
		assert_int_equal(parse(full.substr(0, n), false, r, err), ps::incomplete);
	assert_int_equal(parse(full, false, r, err), ps::complete);
	assert_string_equal(r.body.c_str(), "abcd");
}

static void not_found(void **)
{
	d::response r;
	std::string err;
	assert_int_equal(parse("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found", false, r, err),
			 ps::complete);
	assert_int_equal(r.status, 404);
	assert_int_equal(parse("HTTP/1.0 404 Not Found\r\n\r\n", true, r, err), ps::complete);
	assert_int_equal(r.status, 404);
	assert_int_equal(parse("HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n", false, r, err),
			 ps::complete);
	assert_int_equal(r.status, 501);
}

static void chunked_refused(void **)
{
	d::response r;
	std::string err;
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
			       false, r, err), ps::bad);
	assert_non_null(std::strstr(err.c_str(), "Transfer-Encoding"));
	// whatever the coding, and even alongside a Content-Length
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\ntransfer-encoding: gzip\r\n\r\nx",
			       false, r, err), ps::bad);
}

static void truncated(void **)
{
	d::response r;
	std::string err;
	assert_int_equal(parse("", true, r, err), ps::bad);
	assert_string_equal(err.c_str(), "empty response");
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", true, r, err), ps::bad);
	assert_string_equal(err.c_str(), "truncated response header");
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", true, r, err), ps::bad);
	assert_string_equal(err.c_str(), "truncated response body");
	// the same bytes, the connection still open: wait for more
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", false, r, err),
			 ps::incomplete);
}

static void oversized(void **)
{
	d::response r;
	std::string err;
	// announced too large: refused before the body comes
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 4097\r\n\r\n", false, r, err), ps::bad);
	assert_string_equal(err.c_str(), "response body too large");
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", false, r,
			       err), ps::bad);
	assert_string_equal(err.c_str(), "response body too large");
	// close-delimited, growing past the cap
	std::string big = "HTTP/1.0 200 OK\r\n\r\n" + std::string(d::kMaxBody + 1, 'x');
	assert_int_equal(parse(big, false, r, err), ps::bad);
	assert_string_equal(err.c_str(), "response body too large");
	// more bytes than announced
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc", false, r, err), ps::bad);
	// a header section without end, past its cap
	std::string hdr = "HTTP/1.1 200 OK\r\nX: " + std::string(d::kMaxHeaderBytes, 'a');
	assert_int_equal(parse(hdr, false, r, err), ps::bad);
	assert_string_equal(err.c_str(), "response header too long");
	hdr += "\r\n\r\n";
	assert_int_equal(parse(hdr, false, r, err), ps::bad);
	assert_string_equal(err.c_str(), "response header too long");
}

static void bad_status_line(void **)
{
	static const char *const lines[] = {
		"HTTP/2 200 OK",  "HTTP/1.2 200 OK", "http/1.1 200 OK", "HTTP/1.1 20 OK",
		"HTTP/1.1 2000 OK", "HTTP/1.1  200 OK", "HTTP/1.1 2x0 OK", "HTTP/1.1 200OK",
		"ICY 200 OK",	  "HTTP/1.1",	     "HTTP/1.1 200 O\x01K", "",
	};
	for (const char *l : lines) {
		d::response r;
		std::string err;
		std::string raw = std::string(l) + "\r\nContent-Length: 0\r\n\r\n";
		assert_int_equal(parse(raw, true, r, err), ps::bad);
		assert_string_equal(err.c_str(), "bad status line");
	}
	// not a final status
	d::response r;
	std::string err;
	assert_int_equal(parse("HTTP/1.1 100 Continue\r\n\r\n", true, r, err), ps::bad);
	assert_int_equal(parse("HTTP/1.1 600 What\r\n\r\n", true, r, err), ps::bad);
}

static void bad_headers(void **)
{
	static const char *const heads[] = {
		"no colon",	      ": empty name",	       "Bad Name: x",
		" folded: x",	      "Content-Length: 1x",    "Content-Length: -1",
		"Content-Length:",    "Content-Length: 0x10",  "X: a\x01" "b",
	};
	for (const char *h : heads) {
		d::response r;
		std::string err;
		std::string raw = "HTTP/1.1 200 OK\r\n" + std::string(h) + "\r\n\r\n";
		assert_int_equal(parse(raw, true, r, err), ps::bad);
		assert_false(err.empty());
	}
	d::response r;
	std::string err;
	assert_int_equal(parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx",
			       true, r, err), ps::bad);
	assert_string_equal(err.c_str(), "conflicting Content-Length");
	// bare LF line ends are no HTTP here
	assert_int_equal(parse("HTTP/1.1 200 OK\nContent-Length: 1\n\nx", true, r, err), ps::bad);
}

static void addresses(void **)
{
	struct sockaddr_in sa;
	assert_true(d::parse_addr("169.254.169.254:80", sa));
	assert_int_equal(ntohs(sa.sin_port), 80);
	assert_int_equal(ntohl(sa.sin_addr.s_addr), 0xa9fea9feu);
	assert_true(d::parse_addr("127.0.0.1:65535", sa));
	static const char *const bad[] = {
		"", "127.0.0.1", "127.0.0.1:", ":80", "127.0.0.1:0", "127.0.0.1:65536",
		"127.0.0.1:8x", "localhost:80", "::1:80", "1.2.3:80", "127.0.0.1:123456",
	};
	for (const char *a : bad)
		assert_false(d::parse_addr(a, sa));
}

// Nobody listens: unreachable at once (connection refused), not after the
// query's time bound; and a bad override is an error without a query.
static void unreachable(void **)
{
	int fd = ::socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	struct sockaddr_in sa = {};
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof(sa);
	assert_int_equal(::bind(fd, reinterpret_cast<struct sockaddr *>(&sa), len), 0);
	assert_int_equal(::getsockname(fd, reinterpret_cast<struct sockaddr *>(&sa), &len), 0);
	std::string addr = "127.0.0.1:" + std::to_string(ntohs(sa.sin_port));
	::close(fd);	// bound, never listening, now closed: refused

	auto t0 = std::chrono::steady_clock::now();
	d::instance in = d::query(addr);
	auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
		std::chrono::steady_clock::now() - t0).count();
	assert_true(ms < d::kQueryTimeoutMs);
	assert_false(in.reachable);
	assert_true(in.id.empty() && in.type.empty() && in.name.empty());
	assert_non_null(std::strstr(in.error.c_str(), "instance metadata service unreachable: connect: "));

	in = d::query("nowhere");
	assert_false(in.reachable);
	assert_non_null(std::strstr(in.error.c_str(), "NEURON_MONITOR_IMDS_ADDR"));
}

// A server on the loopback that reads the token PUT and never answers it
// (what a container behind a PUT response hop limit of 1 sees), then
// answers GETs like IMDSv1, without a token: the MAC, 404 for the Name
// tag, else "v-" and the path's last part. Every request goes to the log;
// it ends on finish() or when no connection comes for 10 s.
class silent_put_server {
public:
	silent_put_server()
	{
		fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in sa = {};
		sa.sin_family = AF_INET;
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		socklen_t len = sizeof(sa);
		if (fd_ < 0 || ::bind(fd_, reinterpret_cast<struct sockaddr *>(&sa), len) ||
		    ::getsockname(fd_, reinterpret_cast<struct sockaddr *>(&sa), &len) ||
		    ::listen(fd_, 4))
			return;
		addr = "127.0.0.1:" + std::to_string(ntohs(sa.sin_port));
		th_ = std::thread([this] { run(); });
	}

	silent_put_server(const silent_put_server &) = delete;
	silent_put_server &operator=(const silent_put_server &) = delete;

	// the log, once the server has ended
	std::string finish()
	{
		stop_ = true;
		if (th_.joinable())
			th_.join();
		return log_;
	}

	~silent_put_server()
	{
		finish();
		if (fd_ >= 0)
			::close(fd_);
	}

	std::string addr;

private:
	static std::string read_head(int c)
	{
		std::string req;
		char buf[512];
		while (req.find("\r\n\r\n") == std::string::npos && req.size() < 8192) {
			ssize_t n = ::read(c, buf, sizeof(buf));
			if (n <= 0)
				break;
			req.append(buf, static_cast<size_t>(n));
		}
		return req;
	}

	int next()
	{
		struct pollfd p = {fd_, POLLIN, 0};
		for (int waited = 0; !stop_ && waited < 10000; waited += 100)
			if (::poll(&p, 1, 100) > 0)
				return ::accept(fd_, nullptr, nullptr);
		return -1;
	}

	void run()
	{
		int put = next();
		if (put < 0)
			return;
		std::string req = read_head(put);
		log_ += req.rfind("PUT /latest/api/token ", 0) == 0 ? "PUT\n" : "?\n";
		int c;
		while ((c = next()) >= 0) {	// the PUT stays unanswered, open
			req = read_head(c);
			size_t sp = req.find(' ', 4);
			std::string path = req.rfind("GET ", 0) == 0 && sp != std::string::npos ?
					   req.substr(4, sp - 4) : "?";
			bool token = req.find("X-aws-ec2-metadata-token:") != std::string::npos;
			log_ += "GET " + path + (token ? " token" : "") + "\n";
			std::string leaf = path.substr(path.rfind('/') + 1);
			std::string body = leaf == "mac" ? "0e:12:34:56:78:9a" : "v-" + leaf;
			std::string resp = leaf == "Name" ?
				"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n" :
				"HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
				"\r\n\r\n" + body;
			if (::write(c, resp.data(), resp.size()) != static_cast<ssize_t>(resp.size()))
				log_ += "short write\n";
			::close(c);
		}
		::close(put);
	}

	int fd_ = -1;
	std::atomic<bool> stop_{false};
	std::string log_;
	std::thread th_;
};

// The token PUT is never answered: after kTokenTimeoutMs the query goes on
// with plain GETs (no token header) and every field comes back.
static void token_unanswered(void **)
{
	silent_put_server srv;
	assert_false(srv.addr.empty());
	auto t0 = std::chrono::steady_clock::now();
	d::instance in = d::query(srv.addr);
	auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
		std::chrono::steady_clock::now() - t0).count();
	std::string log = srv.finish();
	// the PUT's bound passed (less the deadline's rounding to 1 ms)
	assert_true(ms >= d::kTokenTimeoutMs - 10);
	assert_true(in.reachable);
	assert_string_equal(in.error.c_str(), "");
	assert_string_equal(in.id.c_str(), "v-instance-id");
	assert_string_equal(in.type.c_str(), "v-instance-type");
	assert_string_equal(in.az.c_str(), "v-availability-zone");
	assert_string_equal(in.region.c_str(), "v-region");
	assert_string_equal(in.subnet_id.c_str(), "v-subnet-id");
	assert_string_equal(in.name.c_str(), "");
	// one PUT, then nine GETs, none with a token
	assert_int_equal(log.rfind("PUT\n", 0), 0);
	size_t gets = 0, tokens = 0;
	for (size_t p = 0; (p = log.find("GET ", p)) != std::string::npos; p++)
		gets++;
	for (size_t p = 0; (p = log.find(" token", p)) != std::string::npos; p++)
		tokens++;
	assert_int_equal(gets, 9);
	assert_int_equal(tokens, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_responses), cmocka_unit_test(in_pieces),
		cmocka_unit_test(not_found),	  cmocka_unit_test(chunked_refused),
		cmocka_unit_test(truncated),	  cmocka_unit_test(oversized),
		cmocka_unit_test(bad_status_line), cmocka_unit_test(bad_headers),
		cmocka_unit_test(addresses),	  cmocka_unit_test(unreachable),
		cmocka_unit_test(token_unanswered),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
