// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// A small client for the EC2 instance metadata service (IMDS), in imds.cpp
// (neuron-monitor links it, and so do the unit tests): plain POSIX
// sockets, one HTTP/1.1 request per connection ("Connection: close"), a
// strict, bounded reader of the response, and the query neuron-monitor's
// instance_info needs: IMDSv2 (a session token from PUT /latest/api/token)
// first, IMDSv1 (plain GETs) when the PUT is answered with an HTTP error or
// not answered at all within kTokenTimeoutMs (a container behind the
// instance's default PUT response hop limit of 1 never sees the token's
// answer, while its GETs are answered).
//
// The response reader accepts HTTP/1.0 and HTTP/1.1 with CRLF line ends, a
// status line "HTTP/1.x NNN[ reason]" with a final status (200..599),
// headers "name: value" (no folded lines, at most kMaxHeaderBytes in all)
// and a body delimited by Content-Length or by the connection's close, of
// at most kMaxBody bytes. It refuses any Transfer-Encoding (chunked
// included: the metadata service sends Content-Length), bytes after the
// Content-Length body, and anything malformed or truncated.
#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace tools::imds {

inline constexpr size_t kMaxBody = 4096;
inline constexpr size_t kMaxHeaderBytes = 8192;
inline constexpr int kConnectTimeoutMs = 1000;
inline constexpr int kTokenTimeoutMs = 1000;	// the token PUT's own bound
inline constexpr int kQueryTimeoutMs = 2000;	// the GETs together, after the PUT
inline constexpr const char *kDefaultAddr = "169.254.169.254:80";
inline constexpr const char *kAddrEnv = "NEURON_MONITOR_IMDS_ADDR";

struct response {
	int status = 0;
	std::string body;
};

enum class parse_status {
	complete,	// @out holds the response
	incomplete,	// more bytes needed (only when !eof)
	bad,		// malformed, truncated or oversized: @err says which
};

// Parse the bytes @raw received so far of one response; @eof: the peer has
// closed the connection (nothing more will come).
parse_status parse_response(std::string_view raw, bool eof, response &out, std::string &err);

// "a.b.c.d:port" (IPv4, numeric) -> @sa.
bool parse_addr(std::string_view s, struct sockaddr_in &sa);

// What neuron-monitor reports of the instance.
struct instance {
	std::string name, id, type, az, az_id, region, ami_id, subnet_id;
	bool reachable = false;	// the service answered (any HTTP response)
	std::string error;	// "" when every field came back
};

// Query the service at @addr ("host:port"): the token within
// kTokenTimeoutMs, then the GETs together within kQueryTimeoutMs.
instance query(const std::string &addr);

} // namespace tools::imds
