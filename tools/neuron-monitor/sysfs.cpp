// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor's file readers (sysfs.hpp).
#include "sysfs.hpp"

#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace tools::monitor {

// With read(2) into a stack buffer: this runs for every application at
// every report (/proc/<pid>/stat), where a stream's set-up costs more than
// the read.
std::string read_text(const std::string &path)
{
	std::string out;
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return out;
	char buf[4096];
	for (;;) {
		ssize_t n = ::read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				out.clear();
			break;
		}
		out.append(buf, static_cast<size_t>(n));
	}
	::close(fd);
	return out;
}

std::string first_line(const std::string &path)
{
	std::ifstream f(path);
	std::string l;
	std::getline(f, l);
	return l;
}

bool read_u64(const std::string &path, uint64_t &v)
{
	std::ifstream f(path);
	return static_cast<bool>(f >> v);
}

std::string sysfs_dev(int index)
{
	return "/sys/class/neuron_device/neuron" + std::to_string(index);
}

} // namespace tools::monitor
