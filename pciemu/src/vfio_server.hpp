// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The vfio-user server side of one client connection (QEMU's
// vfio-user-pci). Protocol: QEMU's docs/interop/vfio-user.rst; message
// bodies reuse <linux/vfio.h>. Every message is read as exactly its
// 16-byte header, then exactly its payload, one recvmsg each, so file
// descriptors stay with the message they came with. Replies are never
// delayed: nothing here waits for the firmware model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device.hpp"

namespace pciemu {

// Header (16 bytes) and commands.
struct VfioUserHdr {
	uint16_t id;
	uint16_t command;
	uint32_t size;	// header included
	uint32_t flags;
	uint32_t error;
};
static_assert(sizeof(VfioUserHdr) == 16);

enum VfioUserCmd : uint16_t {
	VU_VERSION = 1,
	VU_DMA_MAP = 2,
	VU_DMA_UNMAP = 3,
	VU_DEVICE_GET_INFO = 4,
	VU_DEVICE_GET_REGION_INFO = 5,
	VU_DEVICE_GET_REGION_IO_FDS = 6,
	VU_DEVICE_GET_IRQ_INFO = 7,
	VU_DEVICE_SET_IRQS = 8,
	VU_REGION_READ = 9,
	VU_REGION_WRITE = 10,
	VU_DMA_READ = 11,
	VU_DMA_WRITE = 12,
	VU_DEVICE_RESET = 13,
};

constexpr uint32_t VU_TYPE_MASK = 0xF;
constexpr uint32_t VU_TYPE_REQUEST = 0x0;
constexpr uint32_t VU_TYPE_REPLY = 0x1;
constexpr uint32_t VU_NO_REPLY = 0x10;
constexpr uint32_t VU_ERROR = 0x20;

constexpr uint32_t kMaxDataXfer = 1u << 20;	// max_data_xfer_size both ways
constexpr uint32_t kMaxPayload = kMaxDataXfer + 64;	// largest message body we take
constexpr uint32_t kMaxFds = 16;		// fds one message may carry
constexpr uint32_t kMaxDmaMaps = 65535;		// max_dma_maps
// A client that stops in the middle of a message, leaves the server's
// replies unread or does not answer its DMA_READ / DMA_WRITE within this
// is dropped: the server has one thread, which must not wait on it forever.
constexpr int kClientTimeoutMs = 10000;
constexpr uint32_t kNumIrqTypes = 5;		// INTx, MSI, MSI-X, ERR, REQ

struct ServerStats {
	u64 messages = 0;
	u64 errors = 0;		// commands answered (or, no-reply, dropped) with an error
	u64 unexpected_replies = 0;
	u64 dma_msgs = 0;	// DMA_READ/DMA_WRITE the server sent
};

class VfioServer : private GuestMem {
public:
	// Takes ownership of @fd (a connected stream socket); @timeout_ms:
	// kClientTimeoutMs's bound (the tests shorten it).
	VfioServer(int fd, Device &dev, Firmware &fw, int timeout_ms = kClientTimeoutMs);
	~VfioServer() override;
	VfioServer(const VfioServer &) = delete;
	VfioServer &operator=(const VfioServer &) = delete;

	int fd() const { return fd_; }
	// Read and handle one message. 0: handled; -1: the connection is gone
	// (end of file, I/O error, or a header that makes the stream unreadable).
	int handle_one();

	const ServerStats &stats() const { return st_; }
	size_t dma_regions() const { return dma_.size(); }
	// Eventfds the client handed over for IRQ type @index (-1 = none).
	const std::vector<int> &irq_fds(u32 index) const { return irqs_[index]; }
	GuestMem &guest_mem() { return *this; }

private:
	struct Msg {
		VfioUserHdr hdr{};
		std::vector<u8> body;
		std::vector<int> fds;
	};
	// One DMA_MAP: guest addresses [addr, addr + size). With an fd, the
	// bytes are the file's from @offset on, reached with pread/pwrite (a
	// client that shrinks or seals its file later makes an access fail,
	// never fault the server); without one, DMA_READ/DMA_WRITE messages.
	// The region owns @fd; unmap() releases it.
	struct DmaRegion {
		u64 addr;
		u64 size;
		u32 prot;	// VFIO_DMA_MAP_FLAG_READ | _WRITE
		int fd;		// -1: no fd
		u64 offset;
	};

	int recv_exact(void *buf, size_t len, std::vector<int> *fds);
	int read_msg(Msg &m);
	int dispatch(Msg &m);
	int send_msg(const VfioUserHdr &h, const void *body, size_t len);
	int reply(const Msg &m, const void *body, size_t len);
	int reply_error(const Msg &m, int err);
	static void close_fds(std::vector<int> &fds);

	int do_version(Msg &m);
	int do_dma_map(Msg &m);
	int do_dma_unmap(Msg &m);
	int do_get_info(Msg &m);
	int do_region_info(Msg &m);
	int do_irq_info(Msg &m);
	int do_set_irqs(Msg &m);
	int do_region_read(Msg &m);
	int do_region_write(Msg &m);
	int do_reset(Msg &m);

	DmaRegion *find_dma(u64 gpa, size_t len);
	void unmap(DmaRegion &r);
	bool dma_msg(bool write, u64 gpa, void *buf, size_t len);
	// GuestMem
	bool read(u64 gpa, void *buf, size_t len) override;
	bool write(u64 gpa, const void *buf, size_t len) override;

	int fd_;
	Device &dev_;
	Firmware &fw_;
	bool negotiated_ = false;
	bool dead_ = false;
	int timeout_ms_;
	uint16_t next_id_ = 0;	// ids of messages the server sends
	int waiting_ = 0;	// nesting of DMA message waits
	std::vector<DmaRegion> dma_;
	std::vector<int> irqs_[kNumIrqTypes];
	ServerStats st_;
};

} // namespace pciemu
