// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Guest test: device memory a NIC can reach, the way libfabric's Neuron
 * memory interface (src/hmem_neuron.c of ofiwg/libfabric) reaches it.
 * Written only against the SDK's declarations (<nrt/nrt.h>,
 * <nrt/nrt_experimental.h>) and built as strict C11 with -Werror: it
 * opens the library with dlopen("libnrt.so.1"), resolves every symbol that
 * interface resolves (a missing one disables it), and makes its calls in
 * its order: the NeuronCore count (before nrt_init), then allocate a
 * device tensor, take its address, export a dma-buf of it, copy host
 * memory to the device address. Another process, given the descriptor over
 * a socket, maps it and sees the bytes, also after the tensor is freed and
 * the runtime closed. A device tensor's address is its bytes both ways, and
 * faults once the tensor is freed. Run by tests/vm/22_dmabuf.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

#include "vmtest.h"

#define BYTES	(3 * 4096 + 512)

/* libfabric's table, with the SDK's types */
static struct {
	NRT_STATUS (*nrt_tensor_allocate)(nrt_tensor_placement_t placement, int logical_nc_id,
					  size_t size, const char *name, nrt_tensor_t **tensor);
	void (*nrt_tensor_free)(nrt_tensor_t **tensor);
	void *(*nrt_tensor_get_va)(const nrt_tensor_t *tensor);
	NRT_STATUS (*nrt_memcpy_to_device)(void *dest, const void *src, size_t size);
	NRT_STATUS (*nrt_get_dmabuf_fd)(uint64_t va, uint64_t size, int *fd);
	NRT_STATUS (*nrt_get_total_nc_count)(uint32_t *nc_count);
	/* what the test program itself calls (fabtests' side) */
	NRT_STATUS (*nrt_init)(nrt_framework_type_t framework, const char *fw_version,
			       const char *fal_version);
	void (*nrt_close)(void);
	NRT_STATUS (*nrt_tensor_read)(const nrt_tensor_t *tensor, void *buf, size_t offset,
				      size_t size);
	NRT_STATUS (*nrt_tensor_write)(nrt_tensor_t *tensor, const void *buf, size_t offset,
				       size_t size);
} ops;

static void *lib;
static int sv[2] = { -1, -1 };
static pid_t peer_pid = -1;
static nrt_tensor_t *tensor;
static uint8_t *va;
static int dbuf = -1;

static void pattern(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 13 + 5);
}

/*
 * The other process: waits for the descriptor, maps it, and for each
 * request byte 'c' answers 'y' when the mapping holds the pattern, 'n'
 * when not. Exits when the socket closes.
 */
static int peer(int sock)
{
	struct dma_buf_sync s;
	uint8_t want[BYTES];
	uint8_t *m;
	char c;
	int fd = vt_recv_fd(sock);

	if (fd < 0)
		return 1;
	m = mmap(NULL, BYTES, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 2;
	pattern(want, BYTES);
	while (read(sock, &c, 1) == 1) {
		s.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ;
		if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &s))
			return 3;
		c = memcmp(m, want, BYTES) ? 'n' : 'y';
		s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
		if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &s))
			return 4;
		if (write(sock, &c, 1) != 1)
			return 5;
	}
	munmap(m, BYTES);
	close(fd);
	return 0;
}

static char ask_peer(void)
{
	char c = '?';

	if (write(sv[0], "c", 1) != 1 || read(sv[0], &c, 1) != 1)
		return 'x';
	return c;
}

/* ---- cases, in libfabric's order ------------------------------------------------ */

static int resolve(void)
{
	static const char *const names[] = {
		"nrt_tensor_allocate", "nrt_tensor_free", "nrt_tensor_get_va",
		"nrt_memcpy_to_device", "nrt_get_dmabuf_fd", "nrt_get_total_nc_count",
		"nrt_init", "nrt_close", "nrt_tensor_read", "nrt_tensor_write",
	};
	size_t i;

	lib = dlopen("libnrt.so.1", RTLD_NOW);
	VT_ASSERT(lib, "dlopen: %s", dlerror());
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		VT_ASSERT(dlsym(lib, names[i]), "%s does not resolve", names[i]);
	/* POSIX's way to take a function from dlsym() */
#define RESOLVE(f) (*(void **)(&ops.f) = dlsym(lib, #f))
	RESOLVE(nrt_tensor_allocate);
	RESOLVE(nrt_tensor_free);
	RESOLVE(nrt_tensor_get_va);
	RESOLVE(nrt_memcpy_to_device);
	RESOLVE(nrt_get_dmabuf_fd);
	RESOLVE(nrt_get_total_nc_count);
	RESOLVE(nrt_init);
	RESOLVE(nrt_close);
	RESOLVE(nrt_tensor_read);
	RESOLVE(nrt_tensor_write);
#undef RESOLVE
	return 0;
}

static int nc_count_before_init(void)
{
	uint32_t n = 0;

	VT_ASSERT(ops.nrt_get_total_nc_count(&n) == NRT_SUCCESS, "nrt_get_total_nc_count");
	VT_ASSERT(n == 4, "%u NeuronCores, 4 expected (2 devices of 2)", n);
	VT_ASSERT(ops.nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") == NRT_SUCCESS, "nrt_init");
	return 0;
}

static int allocate_and_address(void)
{
	VT_ASSERT(ops.nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, BYTES, "libfabric",
					  &tensor) == NRT_SUCCESS, "allocate");
	va = ops.nrt_tensor_get_va(tensor);
	VT_ASSERT(va, "a device tensor has no address");
	VT_ASSERT(((uintptr_t)va & 4095) == 0, "the address %p is not on a page", (void *)va);
	return 0;
}

/*
 * Whether the kernel has the dma-buf API (DMABUF_KERNEL, from the suite):
 * without it nrt_get_dmabuf_fd() is NRT_INVALID, which libfabric takes
 * as "register the address instead", and the peer is never given a
 * descriptor.
 */
static int kernel_dmabuf(void)
{
	const char *v = getenv("DMABUF_KERNEL");

	return !v || strcmp(v, "0");
}

static int export_dmabuf(void)
{
	uint8_t host[64];
	int fd = -1;

	if (!kernel_dmabuf()) {
		VT_ASSERT(ops.nrt_get_dmabuf_fd((uintptr_t)va, BYTES, &fd) == NRT_INVALID,
			  "exported without the dma-buf API");
		VT_ASSERT(fd == -1, "a failed call wrote the descriptor");
		return 0;
	}
	VT_ASSERT(ops.nrt_get_dmabuf_fd((uintptr_t)va, BYTES, &dbuf) == NRT_SUCCESS,
		  "nrt_get_dmabuf_fd");
	VT_ASSERT(dbuf >= 0, "descriptor %d", dbuf);
	/* what libfabric takes as "not Neuron memory": fall back, not fail */
	VT_ASSERT(ops.nrt_get_dmabuf_fd((uintptr_t)host, sizeof(host), &fd) == NRT_INVALID,
		  "host memory exported");
	VT_ASSERT(ops.nrt_get_dmabuf_fd((uintptr_t)va + 1, 16, &fd) == NRT_INVALID,
		  "an address off a page exported");
	VT_ASSERT(ops.nrt_get_dmabuf_fd((uintptr_t)va, BYTES + 4096, &fd) == NRT_INVALID,
		  "a range past the tensor exported");
	VT_ASSERT(ops.nrt_get_dmabuf_fd((uintptr_t)va, 0, &fd) == NRT_INVALID, "size 0");
	VT_ASSERT(ops.nrt_get_dmabuf_fd((uintptr_t)va, BYTES, NULL) == NRT_INVALID, "NULL fd");
	VT_ASSERT(fd == -1, "a failed call wrote the descriptor");
	return 0;
}

static int copy_to_device_seen_by_peer(void)
{
	uint8_t *src = malloc(BYTES), *back = malloc(BYTES);

	VT_ASSERT(src && back, "malloc");
	pattern(src, BYTES);
	if (kernel_dmabuf()) {
		VT_ASSERT(vt_send_fd(sv[0], dbuf) == 0, "send the descriptor");
		VT_ASSERT(ask_peer() == 'n', "the peer saw the pattern before the copy");
	}
	VT_ASSERT(ops.nrt_memcpy_to_device(va, src, BYTES) == NRT_SUCCESS, "nrt_memcpy_to_device");
	VT_ASSERT(ops.nrt_tensor_read(tensor, back, 0, BYTES) == NRT_SUCCESS, "read");
	VT_ASSERT(memcmp(back, src, BYTES) == 0, "the tensor's bytes differ");
	if (kernel_dmabuf())
		VT_ASSERT(ask_peer() == 'y', "the peer does not see the bytes copied to the device");
	free(src);
	free(back);
	return 0;
}

/*
 * A device tensor's address is its bytes both ways (nrt_tensor_write seen
 * at the address, a store at the address seen by nrt_tensor_read), and
 * the address stops working when the tensor is freed.
 */
static int address_is_the_tensor(void)
{
	uint8_t in[256], out[256];
	nrt_tensor_t *t = NULL;
	uint8_t *p;
	int i;

	VT_ASSERT(ops.nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8192, "va", &t) ==
		  NRT_SUCCESS, "allocate");
	p = ops.nrt_tensor_get_va(t);
	VT_ASSERT(p, "no address");
	for (i = 0; i < 256; i++)
		in[i] = (uint8_t)(255 - i);
	VT_ASSERT(ops.nrt_tensor_write(t, in, 4000, sizeof(in)) == NRT_SUCCESS, "write");
	VT_ASSERT(memcmp(p + 4000, in, sizeof(in)) == 0, "a write is not at the address");
	for (i = 0; i < 256; i++)
		p[6000 + i] = (uint8_t)i;
	VT_ASSERT(ops.nrt_tensor_read(t, out, 6000, sizeof(out)) == NRT_SUCCESS, "read");
	for (i = 0; i < 256; i++)
		VT_ASSERT(out[i] == (uint8_t)i, "a store at the address is not read back (%d)", i);
	ops.nrt_tensor_free(&t);
	VT_ASSERT(vt_probe_read(p) != 0, "the freed tensor's address still reads");
	return 0;
}

static int outlives_tensor_and_runtime(void)
{
	int status;

	if (dbuf >= 0)
		close(dbuf);
	dbuf = -1;
	ops.nrt_tensor_free(&tensor);
	VT_ASSERT(!tensor, "nrt_tensor_free left the handle");
	ops.nrt_close();
	if (kernel_dmabuf())
		VT_ASSERT(ask_peer() == 'y', "the peer's mapping changed after free and close");
	close(sv[0]);
	VT_ASSERT(waitpid(peer_pid, &status, 0) == peer_pid, "wait");
	/* without a descriptor the peer sees its socket close first (status 1) */
	VT_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == (kernel_dmabuf() ? 0 : 1),
		  "peer status %d", status);
	dlclose(lib);
	return 0;
}

int main(void)
{
	static const struct vt_case cases[] = {
		VT_CASE(resolve),
		VT_CASE(nc_count_before_init),
		VT_CASE(allocate_and_address),
		VT_CASE(export_dmabuf),
		VT_CASE(copy_to_device_seen_by_peer),
		VT_CASE(address_is_the_tensor),
		VT_CASE(outlives_tensor_and_runtime),
	};

	/* the other process exists before the runtime does */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	peer_pid = fork();
	if (peer_pid < 0)
		return 1;
	if (!peer_pid) {
		close(sv[0]);
		_exit(peer(sv[1]));
	}
	close(sv[1]);
	return vt_run("sdk-dmabuf", cases, sizeof(cases) / sizeof(cases[0]));
}
