// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// read_all() (read_all.hpp): open, read to the end, close.
#include "read_all.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace tools {
namespace {

template <typename Buffer>
int read_into(const std::string &path, Buffer &out, size_t max)
{
	out.clear();
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	char buf[8192];
	int err = 0;
	for (;;) {
		ssize_t n = ::read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0)
			break;
		if (static_cast<size_t>(n) > max - out.size()) {
			err = EFBIG;
			break;
		}
		out.insert(out.end(), buf, buf + n);
	}
	::close(fd);
	return err;
}

} // namespace

int read_all(const std::string &path, std::string &out, size_t max)
{
	return read_into(path, out, max);
}

int read_all(const std::string &path, std::vector<uint8_t> &out, size_t max)
{
	return read_into(path, out, max);
}

} // namespace tools
