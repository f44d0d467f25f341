// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's check of the kernel log: NEURON_HW_ERR lines in /dev/kmsg
// (checks.hpp).
#include "checks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "accounts.hpp"
#include "common/parse_num.hpp"

namespace tools::doctor {

void kmsg_line(std::string_view line, kmsg_summary &k)
{
	if (line.empty() || line[0] == ' ')
		return;
	if (line.find("NEURON_HW_ERR") == std::string_view::npos)
		return;
	// a health change restates what the error lines and sysfs health say
	// (and health=ok is no error at all): not a hardware error of its own
	if (line.find(" NEURON_HW_ERR=HEALTH ") != std::string_view::npos)
		return;
	k.count++;
	size_t semi = line.find(';');
	std::string_view msg = semi == std::string_view::npos ? line : line.substr(semi + 1);
	std::string stamp;
	if (semi != std::string_view::npos) {
		auto f = split(line.substr(0, semi), ',');
		uint64_t us = 0;
		// a stamp that is not a number in range is left out
		if (f.size() >= 3 && tools::parse_uint(f[2], UINT64_MAX, us)) {
			char b[48];
			std::snprintf(b, sizeof(b), "[%llu.%06llu] ", static_cast<unsigned long long>(us / 1000000),
				      static_cast<unsigned long long>(us % 1000000));
			stamp = b;
		}
	}
	k.last = stamp + std::string(msg);
}

std::string hw_err_action(const std::string &line)
{
	size_t a = line.find("action=");
	std::string act = a == std::string::npos ? "" : line.substr(a + 7, line.find(' ', a) - (a + 7));
	if (act == "TERMINATE_INSTANCE")
		return "the hardware reported an uncorrectable error (action=TERMINATE_INSTANCE): move the work to another instance (stop and start it)";
	if (act == "REBOOT_INSTANCE")
		return "reboot the instance (action=REBOOT_INSTANCE: a reboot repairs the HBM)";
	if (act == "RESTART_JOB")
		return "restart the job (action=RESTART_JOB)";
	return "read the lines: sudo dmesg | grep NEURON_HW_ERR";
}

finding check_kmsg(const context &c)
{
	const std::string chk = "kmsg";
	if (!c.read_kmsg)
		return { chk, severity::note, "the kernel log was not read (--no-kmsg)", "" };
	std::string path = under(c, "/dev/kmsg");
	int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		return { chk, severity::note,
			 "the kernel log was not read: /dev/kmsg: " + std::string(std::strerror(err)) +
				 (err == EPERM || err == EACCES ? " (kernel.dmesg_restrict: run as root to include it)" : ""),
			 "" };
	}
	kmsg_summary k;
	std::string pending;
	std::vector<char> buf(16384);	// /dev/kmsg returns one record per read
	std::string failed;
	size_t total = 0;
	while (total < (64u << 20)) {
		ssize_t n = ::read(fd, buf.data(), buf.size());
		if (n < 0) {
			if (errno == EINTR || errno == EPIPE)	// EPIPE: records overwritten meanwhile
				continue;
			if (errno != EAGAIN)
				failed = std::strerror(errno);
			break;
		}
		if (n == 0)
			break;
		total += static_cast<size_t>(n);
		pending.append(buf.data(), static_cast<size_t>(n));
		size_t b = 0, nl;
		while ((nl = pending.find('\n', b)) != std::string::npos) {
			kmsg_line(std::string_view(pending).substr(b, nl - b), k);
			b = nl + 1;
		}
		pending.erase(0, b);
	}
	::close(fd);
	kmsg_line(pending, k);
	if (!failed.empty() && k.count == 0)
		return { chk, severity::note, "the kernel log was not read: /dev/kmsg: " + failed, "" };
	if (k.count == 0)
		return { chk, severity::ok, "no NEURON_HW_ERR line in the kernel log", "" };
	return { chk, severity::warning,
		 std::to_string(k.count) + " NEURON_HW_ERR line" + (k.count == 1 ? "" : "s") +
			 " in the kernel log buffer; the last: " + k.last,
		 hw_err_action(k.last) };
}

} // namespace tools::doctor
