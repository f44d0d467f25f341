// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// vfio-user message handling (vfio_server.hpp).
#include "vfio_server.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <linux/vfio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pciemu {

namespace {

// Message bodies, as the protocol lays them out (little-endian host).
struct DmaMapBody {
	uint32_t argsz;
	uint32_t flags;
	uint64_t offset;
	uint64_t addr;
	uint64_t size;
};
static_assert(sizeof(DmaMapBody) == 32);

struct DmaUnmapBody {
	uint32_t argsz;
	uint32_t flags;
	uint64_t addr;
	uint64_t size;
};
static_assert(sizeof(DmaUnmapBody) == 24);

struct DeviceInfoBody {
	uint32_t argsz;
	uint32_t flags;
	uint32_t num_regions;
	uint32_t num_irqs;
};
static_assert(sizeof(DeviceInfoBody) == 16);

struct RegionInfoBody {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t cap_offset;
	uint64_t size;
	uint64_t offset;
};
static_assert(sizeof(RegionInfoBody) == 32);

struct IrqInfoBody {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t count;
};
static_assert(sizeof(IrqInfoBody) == 16);

struct IrqSetBody {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t start;
	uint32_t count;
};
static_assert(sizeof(IrqSetBody) == 20);

struct RegionAccessBody {
	uint64_t offset;
	uint32_t region;
	uint32_t count;
};
static_assert(sizeof(RegionAccessBody) == 16);

struct DmaAccessBody {
	uint64_t addr;
	uint64_t count;
};
static_assert(sizeof(DmaAccessBody) == 16);

// What each IRQ type offers: INTx (one, maskable), no MSI/MSI-X (QEMU
// emulates MSI-X tables itself; this function has no MSI capability),
// ERR and REQ one eventfd each.
const struct {
	uint32_t flags;
	uint32_t count;
} kIrqs[kNumIrqTypes] = {
	{ VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_MASKABLE | VFIO_IRQ_INFO_AUTOMASKED, 1 },
	{ VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_NORESIZE, 0 },
	{ VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_NORESIZE, 0 },
	{ VFIO_IRQ_INFO_EVENTFD, 1 },
	{ VFIO_IRQ_INFO_EVENTFD, 1 },
};

const char kVersionJson[] =
	"{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":1048576,"
	"\"pgsizes\":4096,\"max_dma_maps\":65535}}";
// the limits the server announces are the ones it keeps
static_assert(kMaxFds == 16 && kMaxDataXfer == 1048576 && kMaxDmaMaps == 65535,
	      "kVersionJson names these limits");

template <typename T> T body_as(const std::vector<u8> &b)
{
	T v;

	memcpy(&v, b.data(), sizeof(T));
	return v;
}

} // namespace

VfioServer::VfioServer(int fd, Device &dev, Firmware &fw, int timeout_ms)
	: fd_(fd), dev_(dev), fw_(fw), timeout_ms_(timeout_ms)
{
	// a read (after poll() said there is data) or a send that stalls
	// ends the connection instead of the server (kClientTimeoutMs)
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (auto &v : irqs_)
		v.assign(0, -1);
	fw_.set_mem(this);
	dev_.event("connect");
}

VfioServer::~VfioServer()
{
	// the client is gone: its memory and eventfds go, device state stays
	fw_.set_mem(nullptr);
	for (DmaRegion &r : dma_)
		unmap(r);
	for (auto &v : irqs_)
		close_fds(v);
	if (fd_ >= 0)
		close(fd_);
	dev_.event("disconnect");
}

void VfioServer::close_fds(std::vector<int> &fds)
{
	for (int f : fds)
		if (f >= 0)
			close(f);
	fds.clear();
}

// Exactly @len bytes; file descriptors that come with them go to @fds.
// 1: done; 0: end of file before the first byte; -1: error or short stream.
int VfioServer::recv_exact(void *buf, size_t len, std::vector<int> *fds)
{
	size_t got = 0;

	while (got < len) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * kMaxFds)];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { static_cast<char *>(buf) + got, len - got };
		struct msghdr mh = {};

		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		ssize_t n = recvmsg(fd_, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < nfd; i++) {
				int f;

				memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (fds)
					fds->push_back(f);
				else
					close(f);
			}
		}
		// the limit is a message's, over all of its parts
		if (fds && fds->size() > kMaxFds) {
			close_fds(*fds);
			return -1;
		}
		if (mh.msg_flags & MSG_CTRUNC) {
			// more descriptors than a message may carry: unusable
			if (fds)
				close_fds(*fds);
			return -1;
		}
		if (n == 0)
			return got ? -1 : 0;
		got += size_t(n);
	}
	return 1;
}

// 1: a message; 0: end of file; -1: the stream is unusable.
int VfioServer::read_msg(Msg &m)
{
	int r = recv_exact(&m.hdr, sizeof(m.hdr), &m.fds);

	if (r <= 0)
		return r;
	if (m.hdr.size < sizeof(VfioUserHdr)) {
		m.body.clear();
		return 1;	// dispatch rejects it; the next header follows at once
	}
	size_t len = m.hdr.size - sizeof(VfioUserHdr);
	if (len > kMaxPayload) {
		// too big to take: drain it (bounded), then reject
		if (len > 64u * kMaxPayload)
			return -1;
		std::vector<u8> sink(64 * 1024);
		while (len) {
			size_t n = std::min(len, sink.size());

			if (recv_exact(sink.data(), n, &m.fds) != 1)
				return -1;
			len -= n;
		}
		m.body.clear();
		return 1;
	}
	m.body.resize(len);
	if (len && recv_exact(m.body.data(), len, &m.fds) != 1)
		return -1;
	return 1;
}

int VfioServer::send_msg(const VfioUserHdr &h, const void *body, size_t len)
{
	struct iovec iov[2] = { { const_cast<VfioUserHdr *>(&h), sizeof(h) },
				{ const_cast<void *>(body), len } };
	struct msghdr mh = {};
	size_t total = sizeof(h) + len, sent = 0;

	mh.msg_iov = iov;
	mh.msg_iovlen = len ? 2 : 1;
	while (sent < total) {
		ssize_t n = sendmsg(fd_, &mh, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			dead_ = true;
			return -1;
		}
		sent += size_t(n);
		// a short write: advance the iovecs
		size_t skip = size_t(n);
		while (skip && mh.msg_iovlen) {
			if (skip >= mh.msg_iov[0].iov_len) {
				skip -= mh.msg_iov[0].iov_len;
				mh.msg_iov++;
				mh.msg_iovlen--;
			} else {
				mh.msg_iov[0].iov_base = static_cast<char *>(mh.msg_iov[0].iov_base) + skip;
				mh.msg_iov[0].iov_len -= skip;
				skip = 0;
			}
		}
	}
	return 0;
}

int VfioServer::reply(const Msg &m, const void *body, size_t len)
{
	if (m.hdr.flags & VU_NO_REPLY)
		return 0;
	VfioUserHdr h = { m.hdr.id, m.hdr.command, uint32_t(sizeof(VfioUserHdr) + len),
			  VU_TYPE_REPLY, 0 };
	return send_msg(h, body, len);
}

int VfioServer::reply_error(const Msg &m, int err)
{
	st_.errors++;
	if (m.hdr.flags & VU_NO_REPLY)
		return 0;
	VfioUserHdr h = { m.hdr.id, m.hdr.command, sizeof(VfioUserHdr), VU_TYPE_REPLY | VU_ERROR,
			  uint32_t(err) };
	return send_msg(h, nullptr, 0);
}

int VfioServer::handle_one()
{
	Msg m;
	int r;

	if (dead_)
		return -1;
	r = read_msg(m);
	if (r <= 0) {
		close_fds(m.fds);
		dead_ = true;
		return -1;
	}
	r = dispatch(m);
	close_fds(m.fds);	// whatever the handler did not take
	fw_.service();
	return r < 0 || dead_ ? -1 : 0;
}

int VfioServer::dispatch(Msg &m)
{
	st_.messages++;
	if ((m.hdr.flags & VU_TYPE_MASK) == VU_TYPE_REPLY) {
		// no request of ours is waiting for it (dma_msg takes its own)
		st_.unexpected_replies++;
		return 0;
	}
	if ((m.hdr.flags & VU_TYPE_MASK) != VU_TYPE_REQUEST || m.hdr.size < sizeof(VfioUserHdr) ||
	    m.hdr.size - sizeof(VfioUserHdr) != m.body.size())
		return reply_error(m, EINVAL);
	if (!negotiated_ && m.hdr.command != VU_VERSION)
		return reply_error(m, EINVAL);
	switch (m.hdr.command) {
	case VU_VERSION:
		return do_version(m);
	case VU_DMA_MAP:
		return do_dma_map(m);
	case VU_DMA_UNMAP:
		return do_dma_unmap(m);
	case VU_DEVICE_GET_INFO:
		return do_get_info(m);
	case VU_DEVICE_GET_REGION_INFO:
		return do_region_info(m);
	case VU_DEVICE_GET_IRQ_INFO:
		return do_irq_info(m);
	case VU_DEVICE_SET_IRQS:
		return do_set_irqs(m);
	case VU_REGION_READ:
		return do_region_read(m);
	case VU_REGION_WRITE:
		return do_region_write(m);
	case VU_DEVICE_RESET:
		return do_reset(m);
	default:
		// GET_REGION_IO_FDS, WRITE_MULTI (not offered), DEVICE_FEATURE, migration
		return reply_error(m, ENOTSUP);
	}
}

// Version 0.0 (the only one); the client's JSON, if any, must be NUL-terminated.
int VfioServer::do_version(Msg &m)
{
	uint16_t major, minor;

	if (negotiated_ || m.body.size() < 4)
		return reply_error(m, EINVAL);
	memcpy(&major, m.body.data(), 2);
	memcpy(&minor, m.body.data() + 2, 2);
	if (major != 0)
		return reply_error(m, ENOTSUP);
	if (m.body.size() > 4 && m.body.back() != '\0')
		return reply_error(m, EINVAL);
	std::vector<u8> out(4 + sizeof(kVersionJson));
	uint16_t zero = 0;
	memcpy(out.data(), &zero, 2);
	memcpy(out.data() + 2, &zero, 2);
	memcpy(out.data() + 4, kVersionJson, sizeof(kVersionJson));	// NUL included
	negotiated_ = true;
	return reply(m, out.data(), out.size());
}

VfioServer::DmaRegion *VfioServer::find_dma(u64 gpa, size_t len)
{
	for (DmaRegion &r : dma_)
		if (gpa >= r.addr && len <= r.size && gpa - r.addr <= r.size - len)
			return &r;
	return nullptr;
}

void VfioServer::unmap(DmaRegion &r)
{
	if (r.fd >= 0)
		close(r.fd);
	r.fd = -1;
}

// The errno a DMA_MAP of @size bytes at @offset of @fd with @prot gets, or 0.
static int check_dma_file(int fd, u64 offset, u64 size, u32 prot)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st))
		return errno;
	// memfds and files: something pread/pwrite reach at an offset
	if (!S_ISREG(st.st_mode))
		return EBADF;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return errno;
	if ((fl & O_ACCMODE) == O_WRONLY || fl & O_PATH)
		return EACCES;
	// pwrite() on an O_APPEND file appends, whatever the offset
	if (fl & O_APPEND)
		return EINVAL;
	if ((prot & VFIO_DMA_MAP_FLAG_WRITE) && (fl & O_ACCMODE) != O_RDWR)
		return EACCES;
	// the whole range inside the file as it is now
	if (st.st_size < 0 || offset > u64(st.st_size) || size > u64(st.st_size) - offset)
		return EINVAL;
	return 0;
}

int VfioServer::do_dma_map(Msg &m)
{
	if (m.body.size() != sizeof(DmaMapBody) || m.fds.size() > 1)
		return reply_error(m, EINVAL);
	DmaMapBody b = body_as<DmaMapBody>(m.body);
	if (!b.size || b.addr + b.size < b.addr ||
	    (b.flags & ~u32(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)))
		return reply_error(m, EINVAL);
	if (dma_.size() >= kMaxDmaMaps)
		return reply_error(m, ENOSPC);	// the max_dma_maps the server announced
	for (const DmaRegion &r : dma_)
		if (b.addr < r.addr + r.size && r.addr < b.addr + b.size)
			return reply_error(m, EEXIST);
	DmaRegion r = { b.addr, b.size, b.flags, -1, b.offset };
	if (!m.fds.empty()) {
		int err = check_dma_file(m.fds[0], b.offset, b.size, b.flags);

		if (err)
			return reply_error(m, err);
		/*
		 * The message's fd is closed after dispatch: the region keeps a
		 * file description of its own (opened again, not a dup), so the
		 * client cannot make it O_APPEND later (pwrite would then append)
		 */
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", m.fds[0]);
		r.fd = open(self, ((b.flags & VFIO_DMA_MAP_FLAG_WRITE) ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (r.fd < 0)
			return reply_error(m, errno);
	}
	dma_.push_back(r);
	return reply(m, nullptr, 0);
}

int VfioServer::do_dma_unmap(Msg &m)
{
	if (m.body.size() != sizeof(DmaUnmapBody))
		return reply_error(m, EINVAL);
	DmaUnmapBody b = body_as<DmaUnmapBody>(m.body);
	if (b.flags & VFIO_DMA_UNMAP_FLAG_ALL) {
		if (b.addr || b.size)
			return reply_error(m, EINVAL);
		for (DmaRegion &r : dma_)
			unmap(r);
		dma_.clear();
		return reply(m, &b, sizeof(b));
	}
	if (b.flags)
		return reply_error(m, EINVAL);
	for (auto it = dma_.begin(); it != dma_.end(); ++it) {
		if (it->addr == b.addr && it->size == b.size) {
			unmap(*it);
			dma_.erase(it);
			return reply(m, &b, sizeof(b));
		}
	}
	return reply_error(m, ENOENT);
}

int VfioServer::do_get_info(Msg &m)
{
	if (m.body.size() < sizeof(DeviceInfoBody))
		return reply_error(m, EINVAL);
	DeviceInfoBody b = body_as<DeviceInfoBody>(m.body);
	if (b.argsz < sizeof(b))
		return reply_error(m, EINVAL);
	b = { sizeof(b), VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI, kNumRegions, kNumIrqTypes };
	return reply(m, &b, sizeof(b));
}

int VfioServer::do_region_info(Msg &m)
{
	if (m.body.size() < sizeof(RegionInfoBody))
		return reply_error(m, EINVAL);
	RegionInfoBody b = body_as<RegionInfoBody>(m.body);
	if (b.argsz < sizeof(b) || b.index >= kNumRegions)
		return reply_error(m, EINVAL);
	u64 size = dev_.region_size(b.index);
	u32 index = b.index;
	b = { sizeof(b), size ? u32(VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE) : 0u,
	      index, 0, size, 0 };
	return reply(m, &b, sizeof(b));
}

int VfioServer::do_irq_info(Msg &m)
{
	if (m.body.size() < sizeof(IrqInfoBody))
		return reply_error(m, EINVAL);
	IrqInfoBody b = body_as<IrqInfoBody>(m.body);
	if (b.argsz < sizeof(b) || b.index >= kNumIrqTypes)
		return reply_error(m, EINVAL);
	u32 index = b.index;
	b = { sizeof(b), kIrqs[index].flags, index, kIrqs[index].count };
	return reply(m, &b, sizeof(b));
}

// Accepted and remembered; the model never raises an interrupt.
int VfioServer::do_set_irqs(Msg &m)
{
	if (m.body.size() < sizeof(IrqSetBody))
		return reply_error(m, EINVAL);
	IrqSetBody b = body_as<IrqSetBody>(m.body);
	u32 data = b.flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	u32 action = b.flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;

	if (b.index >= kNumIrqTypes || __builtin_popcount(data) != 1 ||
	    __builtin_popcount(action) != 1 ||
	    (b.flags & ~u32(VFIO_IRQ_SET_DATA_TYPE_MASK | VFIO_IRQ_SET_ACTION_TYPE_MASK)))
		return reply_error(m, EINVAL);
	u32 max = kIrqs[b.index].count;
	std::vector<int> &slots = irqs_[b.index];

	if (data == VFIO_IRQ_SET_DATA_NONE && b.count == 0 && b.start == 0) {
		// disable every interrupt of the type
		if (m.body.size() != sizeof(b) || !m.fds.empty())
			return reply_error(m, EINVAL);
		if (action == VFIO_IRQ_SET_ACTION_TRIGGER)
			close_fds(slots);
		return reply(m, nullptr, 0);
	}
	if (b.start >= max || b.count > max - b.start)
		return reply_error(m, EINVAL);
	switch (data) {
	case VFIO_IRQ_SET_DATA_NONE:
		if (m.body.size() != sizeof(b) || !m.fds.empty())
			return reply_error(m, EINVAL);
		break;
	case VFIO_IRQ_SET_DATA_BOOL:
		if (m.body.size() != sizeof(b) + b.count || !m.fds.empty())
			return reply_error(m, EINVAL);
		break;
	case VFIO_IRQ_SET_DATA_EVENTFD:
		if (m.body.size() != sizeof(b) || (!m.fds.empty() && m.fds.size() != b.count))
			return reply_error(m, EINVAL);
		if (action != VFIO_IRQ_SET_ACTION_TRIGGER)
			break;	// mask/unmask notifiers: accepted, not kept
		if (slots.size() < max)
			slots.resize(max, -1);
		for (u32 i = 0; i < b.count; i++) {
			int &s = slots[b.start + i];

			if (s >= 0)
				close(s);
			s = -1;
			if (!m.fds.empty()) {
				s = m.fds[i];
				m.fds[i] = -1;	// kept
			}
		}
		break;
	}
	return reply(m, nullptr, 0);
}

int VfioServer::do_region_read(Msg &m)
{
	if (m.body.size() != sizeof(RegionAccessBody))
		return reply_error(m, EINVAL);
	RegionAccessBody b = body_as<RegionAccessBody>(m.body);
	if (!b.count || b.count > kMaxDataXfer || b.region >= kNumRegions)
		return reply_error(m, EINVAL);
	std::vector<u8> out(sizeof(b) + b.count);
	int r = dev_.region_read(b.region, b.offset, out.data() + sizeof(b), b.count);
	if (r)
		return reply_error(m, -r);
	memcpy(out.data(), &b, sizeof(b));
	return reply(m, out.data(), out.size());
}

int VfioServer::do_region_write(Msg &m)
{
	if (m.body.size() < sizeof(RegionAccessBody))
		return reply_error(m, EINVAL);
	RegionAccessBody b = body_as<RegionAccessBody>(m.body);
	if (!b.count || b.count > kMaxDataXfer || b.region >= kNumRegions ||
	    m.body.size() != sizeof(b) + b.count)
		return reply_error(m, EINVAL);
	int r = dev_.region_write(b.region, b.offset, m.body.data() + sizeof(b), b.count);
	if (r)
		return reply_error(m, -r);
	return reply(m, &b, sizeof(b));
}

int VfioServer::do_reset(Msg &m)
{
	if (!m.body.empty())
		return reply_error(m, EINVAL);
	dev_.reset();
	return reply(m, nullptr, 0);
}

// DMA_READ / DMA_WRITE to the client for memory it gave no fd for. The
// client's own commands that arrive meanwhile are handled (and answered) in
// order: a vCPU waiting for a read must never wait on us.
bool VfioServer::dma_msg(bool write, u64 gpa, void *buf, size_t len)
{
	if (dead_ || len > kMaxDataXfer)
		return false;
	uint16_t id = next_id_++;
	DmaAccessBody a = { gpa, len };
	std::vector<u8> body(sizeof(a) + (write ? len : 0));
	memcpy(body.data(), &a, sizeof(a));
	if (write)
		memcpy(body.data() + sizeof(a), buf, len);
	VfioUserHdr h = { id, uint16_t(write ? VU_DMA_WRITE : VU_DMA_READ),
			  uint32_t(sizeof(h) + body.size()), VU_TYPE_REQUEST, 0 };
	st_.dma_msgs++;
	if (send_msg(h, body.data(), body.size()))
		return false;
	waiting_++;
	bool ok = false;
	/*
	 * The client answers within the timeout of its last message: a
	 * message arriving (a vCPU's region access) restarts the wait, so a
	 * client slow to answer while busy is not dropped, and one that sends
	 * nothing is after the timeout. However busy it is, it has six times
	 * the timeout in all: meanwhile the server serves nothing else.
	 */
	const MonotonicClock clock;
	const int64_t hard = int64_t(clock.now_ms()) + 6 * int64_t(timeout_ms_);
	for (;;) {
		Msg m;
		struct pollfd pf = { fd_, POLLIN, 0 };
		int64_t now = int64_t(clock.now_ms());

		if (now >= hard || poll(&pf, 1, int(std::min<int64_t>(timeout_ms_, hard - now))) != 1) {
			dead_ = true;
			break;
		}
		if (read_msg(m) != 1) {
			close_fds(m.fds);
			dead_ = true;
			break;
		}
		if ((m.hdr.flags & VU_TYPE_MASK) == VU_TYPE_REPLY && m.hdr.id == id &&
		    m.hdr.command == h.command) {
			close_fds(m.fds);
			if (m.hdr.flags & VU_ERROR)
				break;
			if (write) {
				ok = m.body.size() >= 12;
			} else if (m.body.size() == sizeof(a) + len) {
				memcpy(buf, m.body.data() + sizeof(a), len);
				ok = true;
			}
			break;
		}
		dispatch(m);
		close_fds(m.fds);
		if (dead_)
			break;
	}
	waiting_--;
	return ok;
}

bool VfioServer::read(u64 gpa, void *buf, size_t len)
{
	DmaRegion *r = find_dma(gpa, len);

	if (!r || !(r->prot & VFIO_DMA_MAP_FLAG_READ))
		return false;
	if (r->fd < 0)
		return dma_msg(false, gpa, buf, len);
	// a short read: the client shrank its file since the map
	return pread(r->fd, buf, len, off_t(r->offset + (gpa - r->addr))) == ssize_t(len);
}

bool VfioServer::write(u64 gpa, const void *buf, size_t len)
{
	DmaRegion *r = find_dma(gpa, len);

	if (!r || !(r->prot & VFIO_DMA_MAP_FLAG_WRITE))
		return false;
	if (r->fd < 0)
		return dma_msg(true, gpa, const_cast<void *>(buf), len);
	// The device's writes land in order: each pwrite is complete before
	// the next (the caller writes the seq byte last). A write past the
	// end of a shrunk file would grow it: refused instead.
	struct stat st;
	u64 pos = r->offset + (gpa - r->addr);

	if (fstat(r->fd, &st) || st.st_size < 0 || pos > u64(st.st_size) ||
	    len > u64(st.st_size) - pos)
		return false;
	return pwrite(r->fd, buf, len, off_t(pos)) == ssize_t(len);
}

} // namespace pciemu
