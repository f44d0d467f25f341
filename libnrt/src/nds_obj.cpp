// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// NDS objects (<nrt/nds/neuron_ds.h>): local copies of what a process
// publishes about itself and its models, committed into its slab as
// records a reader in another process copies out consistently (a sequence
// word per record, odd while it is written).
#include <nrt/nds/neuron_ds.h>
#include <nrt/nds/nds_latency.h>
#include <neuron/neuron_nds.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sched.h>
#include <unordered_map>
#include <vector>

#include "export.hpp"
#include "nds_internal.hpp"

static_assert(NDS_OBJ_OFF >= NDS_LATENCY_END && NDS_OBJ_OFF % 64 == 0);
static_assert(NDS_OBJ_PROCESS_OFF == NDS_OBJ_OFF + 8);
static_assert(NDS_OBJ_PROCESS_OFF + 68 <= NDS_OBJ_MODEL_OFF);
static_assert(NDS_OBJ_MODEL_OFF % 64 == 0 && NDS_OBJ_MODEL_SIZE % 64 == 0);
static_assert(NDS_OBJ_END == 39616 && NDS_OBJ_END <= NDS_LATENCY_PRIVATE_END,
	      "objects inside the runtime-private area");

namespace nrt::nds {

namespace {

// Record layout (the header comment): payload offsets from the record's start.
constexpr size_t kRecHead = 8;
constexpr size_t kProcBytes = 68;
constexpr size_t kProcType = 8, kProcTag = 9, kProcFw = 44, kProcFal = 52, kProcRt = 60;
constexpr size_t kNodeBytes = 680;
constexpr size_t kNodeId = 8, kNodeNodeId = 12, kNodeName = 16, kNodeUuid = 272, kNodeNc = 288,
		 kNodeSg = 289, kNodeMem = 296;
constexpr size_t kMemCells = MODEL_MEM_USAGE_LOCATION_COUNT * NDS_DMA_MEM_USAGE_SLOT_COUNT;
static_assert(kNodeMem + 16 * kMemCells == kNodeBytes && kNodeBytes <= NDS_OBJ_MODEL_SIZE);
static_assert(sizeof(nds_model_node_info_t::name) == kNodeUuid - kNodeName);
static_assert(sizeof(nds_process_info_t::tag) == 32);

// A reader's attempts at one record before it calls it stuck (its writer
// died or stalls mid-write): bounded, never a hang.
constexpr int kReadTries = 1000;

struct object {
	uintptr_t handle = 0;		// what the caller holds (handle_of())
	int type = 0;
	nds_instance *inst = nullptr;	// null once the instance is closed
	bool owned = false;		// nds_obj_new's: delete takes its record away
	bool committed = false;
	int slot = -1;			// a model node's record, -1: none yet
	nds_model_node_info_t node{};
	nds_model_node_mem_usage_info_t mem{};
	nds_process_info_t proc{};
	nds_process_info_ext_t ext{};
};

// Protects the live set, every object's fields, and the slab writes
// (writers of this process; another process never writes this slab).
// A handle is not an address: it is (serial << 4 | 6), issued once and
// never again, so a deleted handle stays -EINVAL even when a new object
// takes the old one's memory.
std::mutex objs_lock;
std::unordered_map<uintptr_t, object *> objs;
uintptr_t next_serial = 1;

object *live_locked(nds_obj_handle_t h)
{
	auto it = objs.find(reinterpret_cast<uintptr_t>(h));
	return it == objs.end() ? nullptr : it->second;
}

nds_obj_handle_t handle_of(const object *o)
{
	return o ? reinterpret_cast<nds_obj_handle_t>(o->handle) : nullptr;
}

uint8_t *at(const nds_instance *inst, size_t off)
{
	return static_cast<uint8_t *>(inst->base) + off;
}

uint32_t load32(const uint8_t *p, int order)
{
	return __atomic_load_n(reinterpret_cast<const uint32_t *>(p), order);
}

void store32(uint8_t *p, uint32_t v, int order)
{
	__atomic_store_n(reinterpret_cast<uint32_t *>(p), v, order);
}

// A record's payload is moved in 8-byte words (relaxed atomics: a reader
// may copy while its writer writes; the sequence word tells it to retry).
void put_words(uint8_t *rec, const uint8_t *src, size_t bytes)
{
	for (size_t i = 0; i < bytes; i += 8) {
		uint64_t w = 0;
		std::memcpy(&w, src + i, bytes - i < 8 ? bytes - i : 8);
		__atomic_store_n(reinterpret_cast<uint64_t *>(rec + kRecHead + i), w, __ATOMIC_RELAXED);
	}
}

void get_words(const uint8_t *rec, uint8_t *dst, size_t bytes)
{
	for (size_t i = 0; i < bytes; i += 8) {
		uint64_t w = __atomic_load_n(reinterpret_cast<const uint64_t *>(rec + kRecHead + i),
					     __ATOMIC_RELAXED);
		std::memcpy(dst + i, &w, bytes - i < 8 ? bytes - i : 8);
	}
}

// Payload buffers are indexed by record offset (so the header comment's
// offsets appear once): payload byte at record offset k is buf[k - kRecHead].
template <size_t N> struct payload {
	uint8_t b[(N - kRecHead + 7) / 8 * 8]{};
	uint8_t *p(size_t rec_off) { return b + (rec_off - kRecHead); }
	const uint8_t *p(size_t rec_off) const { return b + (rec_off - kRecHead); }
};
using proc_payload = payload<kProcBytes>;
using node_payload = payload<kNodeBytes>;

void write_version(uint8_t *p, const nds_version_info_t &v)
{
	p[0] = v.major;
	p[1] = v.minor;
	p[2] = p[3] = 0;
	std::memcpy(p + 4, &v.build, 4);
}

nds_version_info_t read_version(const uint8_t *p)
{
	nds_version_info_t v{};
	v.major = p[0];
	v.minor = p[1];
	std::memcpy(&v.build, p + 4, 4);
	return v;
}

proc_payload encode(const nds_process_info_t &pi)
{
	proc_payload b;
	std::memcpy(b.p(kProcType), &pi.framework_type, 1);
	std::memcpy(b.p(kProcTag), pi.tag, sizeof(pi.tag));
	b.p(kProcTag)[sizeof(pi.tag) - 1] = 0;
	write_version(b.p(kProcFw), pi.framework_version);
	write_version(b.p(kProcFal), pi.fal_version);
	write_version(b.p(kProcRt), pi.runtime_version);
	return b;
}

void decode(const proc_payload &b, nds_process_info_t *pi)
{
	*pi = nds_process_info_t{};
	std::memcpy(&pi->framework_type, b.p(kProcType), 1);
	std::memcpy(pi->tag, b.p(kProcTag), sizeof(pi->tag));
	pi->tag[sizeof(pi->tag) - 1] = 0;
	pi->framework_version = read_version(b.p(kProcFw));
	pi->fal_version = read_version(b.p(kProcFal));
	pi->runtime_version = read_version(b.p(kProcRt));
}

node_payload encode(const nds_model_node_info_t &n, const nds_model_node_mem_usage_info_t &m)
{
	node_payload b;
	std::memcpy(b.p(kNodeId), &n.model_id, 4);
	std::memcpy(b.p(kNodeNodeId), &n.model_node_id, 4);
	std::memcpy(b.p(kNodeName), n.name, sizeof(n.name));
	b.p(kNodeName)[sizeof(n.name) - 1] = 0;
	std::memcpy(b.p(kNodeUuid), n.uuid, sizeof(n.uuid));
	*b.p(kNodeNc) = n.nc_index;
	*b.p(kNodeSg) = n.sg_index;
	for (size_t i = 0; i < kMemCells; i++) {
		const nds_mem_usage_info_t &c =
			m.model_mem_usage[i / NDS_DMA_MEM_USAGE_SLOT_COUNT][i % NDS_DMA_MEM_USAGE_SLOT_COUNT];
		uint64_t total = c.total_size;
		std::memcpy(b.p(kNodeMem + 16 * i), &total, 8);
		std::memcpy(b.p(kNodeMem + 16 * i + 8), &c.chunk_count, 4);
	}
	return b;
}

void decode(const node_payload &b, nds_model_node_info_t *n, nds_model_node_mem_usage_info_t *m)
{
	*n = nds_model_node_info_t{};
	*m = nds_model_node_mem_usage_info_t{};
	std::memcpy(&n->model_id, b.p(kNodeId), 4);
	std::memcpy(&n->model_node_id, b.p(kNodeNodeId), 4);
	std::memcpy(n->name, b.p(kNodeName), sizeof(n->name));
	n->name[sizeof(n->name) - 1] = 0;
	std::memcpy(n->uuid, b.p(kNodeUuid), sizeof(n->uuid));
	n->nc_index = *b.p(kNodeNc);
	n->sg_index = *b.p(kNodeSg);
	for (size_t i = 0; i < kMemCells; i++) {
		nds_mem_usage_info_t &c =
			m->model_mem_usage[i / NDS_DMA_MEM_USAGE_SLOT_COUNT][i % NDS_DMA_MEM_USAGE_SLOT_COUNT];
		uint64_t total;
		std::memcpy(&total, b.p(kNodeMem + 16 * i), 8);
		c.total_size = static_cast<size_t>(total);
		std::memcpy(&c.chunk_count, b.p(kNodeMem + 16 * i + 8), 4);
	}
}

// Write a record (the caller holds objs_lock): sequence odd, state and
// payload, sequence even again (release: a reader that sees it sees all).
void write_record(uint8_t *rec, uint32_t state, const uint8_t *data, size_t bytes)
{
	uint32_t seq = load32(rec, __ATOMIC_RELAXED);
	store32(rec, seq | 1u, __ATOMIC_RELAXED);
	std::atomic_thread_fence(std::memory_order_release);
	store32(rec + 4, state, __ATOMIC_RELAXED);
	if (data)
		put_words(rec, data, bytes);
	store32(rec, (seq | 1u) + 1, __ATOMIC_RELEASE);
}

// Copy a record: 1 used (payload in @data), 0 free, -1 never consistent.
int read_record(const uint8_t *rec, uint8_t *data, size_t bytes)
{
	for (int i = 0; i < kReadTries; i++) {
		uint32_t s1 = load32(rec, __ATOMIC_ACQUIRE);
		if (!(s1 & 1u)) {
			uint32_t state = load32(rec + 4, __ATOMIC_RELAXED);
			if (state == 1)
				get_words(rec, data, bytes);
			std::atomic_thread_fence(std::memory_order_acquire);
			if (load32(rec, __ATOMIC_RELAXED) == s1)
				return state == 1 ? 1 : 0;
		}
		if (i % 16 == 15)
			::sched_yield();	// a writer on this CPU gets to finish
	}
	return -1;
}

// The slab holds the object area (a mapping shorter than NDS_OBJ_END
// would be a driver's other than this one's or the vendor's).
bool fits(const nds_instance *inst)
{
	return inst->size >= NDS_OBJ_END;
}

bool block_present(const nds_instance *inst)
{
	return fits(inst) && load32(at(inst, NDS_OBJ_OFF), __ATOMIC_ACQUIRE) == NDS_OBJ_MAGIC;
}

void block_setup(nds_instance *inst)
{
	if (block_present(inst))
		return;
	store32(at(inst, NDS_OBJ_OFF + 4), NDS_OBJ_MODEL_SLOTS, __ATOMIC_RELAXED);
	store32(at(inst, NDS_OBJ_OFF), NDS_OBJ_MAGIC, __ATOMIC_RELEASE);
}

uint8_t *node_record(const nds_instance *inst, int slot)
{
	return at(inst, NDS_OBJ_MODEL_OFF + static_cast<size_t>(slot) * NDS_OBJ_MODEL_SIZE);
}

// A free model node record (state 0 and not mid-write), or -1.
int free_slot_locked(const nds_instance *inst)
{
	for (int s = 0; s < NDS_OBJ_MODEL_SLOTS; s++) {
		const uint8_t *rec = node_record(inst, s);
		if (!(load32(rec, __ATOMIC_RELAXED) & 1u) && load32(rec + 4, __ATOMIC_RELAXED) == 0)
			return s;
	}
	return -1;
}

// A new object, not yet in the live table (no handle reaches it)
object *make(nds_instance *inst, int type, bool owned)
{
	auto *o = new (std::nothrow) object();
	if (!o)
		return nullptr;
	o->type = type;
	o->inst = inst;
	o->owned = owned;
	return o;
}

// @o (make()'s, filled in) into the live table: its handle, or nullptr
// with @o deleted when the table has no room
nds_obj_handle_t enlist(object *o)
{
	if (!o)
		return nullptr;
	try {
		std::lock_guard g(objs_lock);
		if (next_serial < (UINTPTR_MAX >> 4)) {
			o->handle = (next_serial << 4) | 6;
			objs.emplace(o->handle, o);
			next_serial++;
			return handle_of(o);
		}
	} catch (...) {
	}
	delete o;
	return nullptr;
}

int commit_locked(object *o)
{
	nds_instance *inst = o->inst;
	if (!inst)
		return -ENODEV;
	if (!inst->writable)
		return -EPERM;
	if (inst->mapped && inst->pid != ::getpid())
		return -ENODEV;	// a forked child: the slab is not mapped here
	if (!fits(inst))
		return -EINVAL;
	switch (o->type) {
	case OBJECT_TYPE_PROCESS_INFO: {
		proc_payload b = encode(o->proc);
		block_setup(inst);
		write_record(at(inst, NDS_OBJ_PROCESS_OFF), 1, b.b, kProcBytes - kRecHead);
		break;
	}
	case OBJECT_TYPE_PROCESS_INFO_EXT: {
		char tag[sizeof(o->ext.tag)];
		std::memcpy(tag, o->ext.tag, sizeof(tag));
		tag[sizeof(tag) - 1] = 0;
		int ret = nds_set_process_tag(inst, tag);
		if (ret)
			return ret;
		break;
	}
	default: {
		if (o->slot < 0) {
			int s = free_slot_locked(inst);
			if (s < 0)
				return -ENOSPC;
			o->slot = s;
		}
		node_payload b = encode(o->node, o->mem);
		block_setup(inst);
		write_record(node_record(inst, o->slot), 1, b.b, kNodeBytes - kRecHead);
		break;
	}
	}
	o->committed = true;
	return 0;
}

// Take what @o (owned, committed) published out of its slab.
void withdraw_locked(object *o)
{
	nds_instance *inst = o->inst;
	if (!inst || !inst->writable || !o->owned || !o->committed || !fits(inst))
		return;
	// a forked child: the slab is not mapped here (the parent withdraws its own)
	if (inst->mapped && inst->pid != ::getpid())
		return;
	switch (o->type) {
	case OBJECT_TYPE_PROCESS_INFO:
		write_record(at(inst, NDS_OBJ_PROCESS_OFF), 0, nullptr, 0);
		break;
	case OBJECT_TYPE_PROCESS_INFO_EXT:
		store32(at(inst, NDS_PROCESS_TAG_OFF), 0, __ATOMIC_RELEASE);
		break;
	default:
		if (o->slot >= 0)
			write_record(node_record(inst, o->slot), 0, nullptr, 0);
		break;
	}
}

} // namespace

void objects_detach(const nds_instance *inst) noexcept
{
	std::lock_guard g(objs_lock);
	for (auto &[h, o] : objs)
		if (o->inst == inst)
			o->inst = nullptr;
}

} // namespace nrt::nds

using namespace nrt::nds;

NRT_EXPORT nds_obj_handle_t nds_obj_new(nds_instance_t *inst, int type)
{
	if (!inst || type < OBJECT_TYPE_MODEL_NODE_INFO || type > OBJECT_TYPE_PROCESS_INFO_EXT)
		return nullptr;
	return enlist(make(inst, type, true));
}

NRT_EXPORT int nds_obj_commit(nds_obj_handle_t obj)
{
	std::lock_guard g(objs_lock);
	object *o = live_locked(obj);
	return o ? commit_locked(o) : -EINVAL;
}

NRT_EXPORT int nds_obj_delete(nds_obj_handle_t obj)
{
	object *o;
	{
		std::lock_guard g(objs_lock);
		o = live_locked(obj);
		if (!o)
			return -EINVAL;
		withdraw_locked(o);
		objs.erase(o->handle);
	}
	delete o;
	return 0;
}

namespace {

// The accessors: the object's data when @obj is a live object of @type.
template <typename T>
T *member(nds_obj_handle_t obj, int type, T object::*field)
{
	std::lock_guard g(objs_lock);
	object *o = live_locked(obj);
	return o && o->type == type ? &(o->*field) : nullptr;
}

} // namespace

NRT_EXPORT nds_model_node_info_t *nds_obj_handle_to_model_node_info(nds_obj_handle_t obj)
{
	return member(obj, OBJECT_TYPE_MODEL_NODE_INFO, &object::node);
}

NRT_EXPORT nds_model_node_mem_usage_info_t *nds_obj_handle_to_model_node_mem_usage(nds_obj_handle_t obj)
{
	return member(obj, OBJECT_TYPE_MODEL_NODE_INFO, &object::mem);
}

NRT_EXPORT nds_process_info_t *nds_obj_handle_to_process_info(nds_obj_handle_t obj)
{
	return member(obj, OBJECT_TYPE_PROCESS_INFO, &object::proc);
}

NRT_EXPORT nds_process_info_ext_t *nds_obj_handle_to_process_info_ext(nds_obj_handle_t obj)
{
	return member(obj, OBJECT_TYPE_PROCESS_INFO_EXT, &object::ext);
}

NRT_EXPORT nds_obj_handle_t nds_read_process_info(nds_instance_t *inst)
{
	if (!inst || !block_present(inst))
		return nullptr;
	proc_payload b;
	if (read_record(at(inst, NDS_OBJ_PROCESS_OFF), b.b, kProcBytes - kRecHead) != 1)
		return nullptr;
	object *o = make(inst, OBJECT_TYPE_PROCESS_INFO, false);
	if (!o)
		return nullptr;
	decode(b, &o->proc);
	o->committed = true;
	return enlist(o);
}

NRT_EXPORT nds_obj_handle_t nds_read_process_info_ext(nds_instance_t *inst)
{
	if (!inst || !fits(inst) ||
	    load32(at(inst, NDS_PROCESS_TAG_OFF), __ATOMIC_ACQUIRE) != NDS_PROCESS_TAG_MAGIC)
		return nullptr;
	char tag[sizeof(nds_process_info_ext_t::tag)];
	if (nds_get_process_tag(inst, tag, sizeof(tag)) < 0)
		return nullptr;
	object *o = make(inst, OBJECT_TYPE_PROCESS_INFO_EXT, false);
	if (!o)
		return nullptr;
	std::memcpy(o->ext.tag, tag, sizeof(tag));
	o->committed = true;
	return enlist(o);
}

NRT_EXPORT int nds_read_all_model_nodes(nds_instance_t *inst, nds_obj_handle_t **models, size_t *count)
{
	if (!models || !count)
		return -EINVAL;
	*models = nullptr;
	*count = 0;
	if (!inst)
		return -EINVAL;
	if (!block_present(inst))
		return 0;
	struct found {
		int slot;
		node_payload b;
	};
	std::vector<found> nodes;
	try {
		nodes.reserve(NDS_OBJ_MODEL_SLOTS);
	} catch (...) {
		return -ENOMEM;
	}
	for (int s = 0; s < NDS_OBJ_MODEL_SLOTS; s++) {
		found f{ s, {} };
		int r = read_record(node_record(inst, s), f.b.b, kNodeBytes - kRecHead);
		if (r < 0)
			return -EAGAIN;
		if (r == 1)
			nodes.push_back(f);
	}
	if (nodes.empty())
		return 0;
	auto *arr = static_cast<nds_obj_handle_t *>(std::calloc(nodes.size(), sizeof(nds_obj_handle_t)));
	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < nodes.size(); i++) {
		object *o = make(inst, OBJECT_TYPE_MODEL_NODE_INFO, false);
		if (o) {
			decode(nodes[i].b, &o->node, &o->mem);
			o->slot = nodes[i].slot;
			o->committed = true;
		}
		arr[i] = enlist(o);
		if (!arr[i]) {
			for (size_t k = 0; k < i; k++)
				nds_obj_delete(arr[k]);
			std::free(arr);
			return -ENOMEM;
		}
	}
	*models = arr;
	*count = nodes.size();
	return 0;
}
