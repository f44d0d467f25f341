// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// The EC2 instance metadata client of imds.hpp: the response reader, the
// one-request-per-connection client and the query of instance_info.
#include "imds.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace tools::imds {

namespace detail {
namespace {

bool is_tchar(char c)
{
	unsigned char u = static_cast<unsigned char>(c);
	return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
	       std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool iequal(std::string_view a, std::string_view b)
{
	if (a.size() != b.size())
		return false;
	for (size_t i = 0; i < a.size(); i++) {
		char x = a[i], y = b[i];
		if (x >= 'A' && x <= 'Z')
			x = static_cast<char>(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = static_cast<char>(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return true;
}

std::string_view trim_ows(std::string_view v)
{
	while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
		v.remove_prefix(1);
	while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
		v.remove_suffix(1);
	return v;
}

} // namespace
} // namespace detail

parse_status parse_response(std::string_view raw, bool eof, response &out, std::string &err)
{
	using detail::iequal;
	size_t end = raw.find("\r\n\r\n");
	if (end == std::string_view::npos) {
		if (raw.size() > kMaxHeaderBytes) {
			err = "response header too long";
			return parse_status::bad;
		}
		if (!eof)
			return parse_status::incomplete;
		err = raw.empty() ? "empty response" : "truncated response header";
		return parse_status::bad;
	}
	if (end + 4 > kMaxHeaderBytes) {
		err = "response header too long";
		return parse_status::bad;
	}
	std::string_view head = raw.substr(0, end + 2);	// every line ends in CRLF
	std::string_view body = raw.substr(end + 4);

	// status line: HTTP/1.0 or HTTP/1.1, SP, three digits, then CRLF or SP reason
	size_t eol = head.find("\r\n");
	std::string_view line = head.substr(0, eol);
	if (line.size() < 12 || (line.substr(0, 9) != "HTTP/1.0 " && line.substr(0, 9) != "HTTP/1.1 ")) {
		err = "bad status line";
		return parse_status::bad;
	}
	int status = 0;
	for (size_t i = 9; i < 12; i++) {
		if (line[i] < '0' || line[i] > '9') {
			err = "bad status line";
			return parse_status::bad;
		}
		status = status * 10 + (line[i] - '0');
	}
	if (line.size() > 12 && line[12] != ' ') {
		err = "bad status line";
		return parse_status::bad;
	}
	for (char c : line.substr(12)) {
		if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
			err = "bad status line";
			return parse_status::bad;
		}
	}
	if (status < 200 || status > 599) {
		err = "unexpected status " + std::to_string(status);
		return parse_status::bad;
	}

	// headers
	bool have_length = false;
	size_t length = 0;
	size_t pos = eol + 2;
	while (pos < head.size()) {
		size_t e = head.find("\r\n", pos);
		std::string_view h = head.substr(pos, e - pos);
		pos = e + 2;
		size_t colon = h.find(':');
		if (colon == 0 || colon == std::string_view::npos) {
			err = "bad header line";
			return parse_status::bad;
		}
		std::string_view name = h.substr(0, colon);
		for (char c : name) {
			if (!detail::is_tchar(c)) {
				err = "bad header line";
				return parse_status::bad;
			}
		}
		std::string_view value = detail::trim_ows(h.substr(colon + 1));
		for (char c : value) {
			if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
				err = "bad header value";
				return parse_status::bad;
			}
		}
		if (iequal(name, "transfer-encoding")) {
			err = "Transfer-Encoding " + std::string(value) + " not supported";
			return parse_status::bad;
		}
		if (iequal(name, "content-length")) {
			if (value.empty() || value.size() > 9) {
				err = value.empty() ? "bad Content-Length" : "response body too large";
				return parse_status::bad;
			}
			size_t n = 0;
			for (char c : value) {
				if (c < '0' || c > '9') {
					err = "bad Content-Length";
					return parse_status::bad;
				}
				n = n * 10 + static_cast<size_t>(c - '0');
			}
			if (have_length && n != length) {
				err = "conflicting Content-Length";
				return parse_status::bad;
			}
			have_length = true;
			length = n;
			if (length > kMaxBody) {
				err = "response body too large";
				return parse_status::bad;
			}
		}
	}

	if (have_length) {
		if (body.size() > length) {
			err = "more data than Content-Length";
			return parse_status::bad;
		}
		if (body.size() < length) {
			if (!eof)
				return parse_status::incomplete;
			err = "truncated response body";
			return parse_status::bad;
		}
	} else {
		if (body.size() > kMaxBody) {
			err = "response body too large";
			return parse_status::bad;
		}
		if (!eof)
			return parse_status::incomplete;
	}
	out.status = status;
	out.body.assign(body);
	return parse_status::complete;
}

bool parse_addr(std::string_view s, struct sockaddr_in &sa)
{
	size_t colon = s.rfind(':');
	if (colon == std::string_view::npos || colon == 0 || colon + 1 == s.size() ||
	    s.size() - colon - 1 > 5)
		return false;
	unsigned port = 0;
	for (char c : s.substr(colon + 1)) {
		if (c < '0' || c > '9')
			return false;
		port = port * 10 + static_cast<unsigned>(c - '0');
	}
	if (port == 0 || port > 65535)
		return false;
	std::string host(s.substr(0, colon));
	std::memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(static_cast<uint16_t>(port));
	return inet_pton(AF_INET, host.c_str(), &sa.sin_addr) == 1;
}

namespace {

// One request per connection, all of them within one deadline.
class client {
public:
	using clock = std::chrono::steady_clock;

	client(const struct sockaddr_in &sa, std::string host, clock::time_point deadline)
		: sa_(sa), host_(std::move(host)), deadline_(deadline)
	{
	}

	enum class result {
		answered,	// @resp holds a well-formed response (any status)
		unreachable,	// no connection: @err
		no_answer,	// connected and asked, nothing came back in time: @err
		bad_response,	// something came back that is no acceptable response: @err
	};

	result request(const char *method, const std::string &path, const std::string &headers,
		       response &resp, std::string &err)
	{
		int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			err = std::string("socket: ") + std::strerror(errno);
			return result::unreachable;
		}
		result r = exchange(fd, method, path, headers, resp, err);
		::close(fd);
		return r;
	}

private:
	int remaining_ms(int cap) const
	{
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - clock::now());
		long ms = left.count();
		if (ms <= 0)
			return 0;
		return ms < cap ? static_cast<int>(ms) : cap;
	}

	// Wait for @events on @fd for at most @ms; false on timeout (errno
	// ETIMEDOUT) or error. A signal ends the wait too (EINTR): the
	// monitor handles only SIGINT and SIGTERM, and stops the query there.
	static bool wait(int fd, short events, int ms)
	{
		struct pollfd p = {fd, events, 0};
		int n = ::poll(&p, 1, ms);
		if (n > 0)
			return true;
		if (n == 0)
			errno = ETIMEDOUT;
		return false;
	}

	result exchange(int fd, const char *method, const std::string &path,
			const std::string &headers, response &resp, std::string &err)
	{
		int ms = remaining_ms(kConnectTimeoutMs);
		if (ms == 0) {
			err = "time is up";
			return result::unreachable;
		}
		if (::connect(fd, reinterpret_cast<const struct sockaddr *>(&sa_), sizeof(sa_)) != 0) {
			if (errno != EINPROGRESS) {
				err = std::string("connect: ") + std::strerror(errno);
				return result::unreachable;
			}
			if (!wait(fd, POLLOUT, ms)) {
				err = std::string("connect: ") + std::strerror(errno);
				return result::unreachable;
			}
			int soerr = 0;
			socklen_t len = sizeof(soerr);
			if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr) {
				err = std::string("connect: ") + std::strerror(soerr ? soerr : errno);
				return result::unreachable;
			}
		}
		std::string req = std::string(method) + " " + path + " HTTP/1.1\r\nHost: " + host_ +
				  "\r\nUser-Agent: neuron-monitor\r\nAccept: */*\r\n" + headers +
				  (std::string_view(method) == "PUT" ? "Content-Length: 0\r\n" : "") +
				  "Connection: close\r\n\r\n";
		size_t sent = 0;
		while (sent < req.size()) {
			ssize_t n = ::send(fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
			if (n > 0) {
				sent += static_cast<size_t>(n);
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
			    wait(fd, POLLOUT, remaining_ms(kQueryTimeoutMs)))
				continue;
			err = std::string("send: ") + std::strerror(errno);
			return result::unreachable;
		}
		std::string raw;
		char buf[1024];
		for (;;) {
			ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				int left = remaining_ms(kQueryTimeoutMs);
				if (left > 0 && wait(fd, POLLIN, left))
					continue;
				if (left > 0 && errno == EINTR) {	// SIGINT/SIGTERM: stop
					err = "interrupted";
					return result::unreachable;
				}
				err = raw.empty() ? "no answer in time" : "response incomplete in time";
				return raw.empty() ? result::no_answer : result::bad_response;
			}
			if (n < 0) {
				err = std::string("recv: ") + std::strerror(errno);
				return raw.empty() ? result::unreachable : result::bad_response;
			}
			raw.append(buf, static_cast<size_t>(n));
			switch (parse_response(raw, n == 0, resp, err)) {
			case parse_status::complete:
				return result::answered;
			case parse_status::bad:
				return result::bad_response;
			case parse_status::incomplete:
				break;
			}
		}
	}

	struct sockaddr_in sa_;
	std::string host_;
	clock::time_point deadline_;
};

} // namespace

namespace detail {
namespace {

// A metadata value: one line of printable characters (a trailing newline
// dropped).
bool clean_value(std::string &v)
{
	while (!v.empty() && (v.back() == '\n' || v.back() == '\r'))
		v.pop_back();
	for (char c : v)
		if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
			return false;
	return true;
}

} // namespace
} // namespace detail

instance query(const std::string &addr)
{
	instance in;
	struct sockaddr_in sa;
	if (!parse_addr(addr, sa)) {
		in.error = std::string(kAddrEnv) + ": not an IPv4 address:port: '" + addr + "'";
		return in;
	}
	std::string host = addr.substr(0, addr.rfind(':'));
	response r;
	std::string err;
	std::string auth;

	// IMDSv2: a session token; an HTTP error, or no answer at all, means
	// IMDSv1 only
	client tc(sa, host, client::clock::now() + std::chrono::milliseconds(kTokenTimeoutMs));
	client::result res = tc.request("PUT", "/latest/api/token",
					"X-aws-ec2-metadata-token-ttl-seconds: 21600\r\n", r, err);
	if (res == client::result::unreachable) {
		in.error = "instance metadata service unreachable: " + err;
		return in;
	}
	if (res == client::result::bad_response) {
		in.error = "instance metadata service: PUT /latest/api/token: " + err;
		return in;
	}
	if (res == client::result::answered && r.status == 200) {
		std::string token = r.body;
		in.reachable = true;
		if (token.empty() || !detail::clean_value(token)) {
			in.error = "instance metadata service: PUT /latest/api/token: bad token";
			return in;
		}
		auth = "X-aws-ec2-metadata-token: " + token + "\r\n";
	} else if (res == client::result::answered) {
		in.reachable = true;
	}
	client c(sa, host, client::clock::now() + std::chrono::milliseconds(kQueryTimeoutMs));

	bool heard = false;	// some GET got bytes back
	std::string get_err;	// the first GET that got nothing back: why
	// GET one path: true with @v on 200; a 404 of an @optional one is "";
	// anything else is the error (the first one is kept).
	auto get = [&](const std::string &path, std::string &v, bool optional = false) {
		response gr;
		std::string e;
		client::result gres = c.request("GET", path, auth, gr, e);
		if (gres == client::result::answered)
			in.reachable = true;
		if (gres == client::result::answered || gres == client::result::bad_response)
			heard = true;
		else if (get_err.empty())
			get_err = e;
		if (gres == client::result::answered && gr.status == 200) {
			v = gr.body;
			if (detail::clean_value(v))
				return true;
			v.clear();
			e = "not a one-line value";
		} else if (gres == client::result::answered && gr.status == 404 && optional) {
			return true;
		} else if (gres == client::result::answered) {
			e = "HTTP " + std::to_string(gr.status);
		}
		if (in.error.empty())
			in.error = "instance metadata service: GET " + path + ": " + e;
		return false;
	};
	const std::string md = "/latest/meta-data/";
	get(md + "instance-id", in.id);
	get(md + "instance-type", in.type);
	get(md + "placement/availability-zone", in.az);
	get(md + "placement/availability-zone-id", in.az_id);
	get(md + "placement/region", in.region);
	get(md + "ami-id", in.ami_id);
	std::string mac;
	if (get(md + "mac", mac)) {
		if (mac.empty() || mac.find_first_not_of("0123456789abcdefABCDEF:") != std::string::npos) {
			if (in.error.empty())
				in.error = "instance metadata service: GET " + md + "mac: bad MAC address";
		} else {
			get(md + "network/interfaces/macs/" + mac + "/subnet-id", in.subnet_id);
		}
	}
	// instance tags in the metadata are optional (404 when not enabled)
	get(md + "tags/instance/Name", in.name, true);
	if (!in.reachable && !heard)	// neither the PUT nor any GET got bytes back
		in.error = "instance metadata service unreachable: " + get_err;
	return in;
}

} // namespace tools::imds
