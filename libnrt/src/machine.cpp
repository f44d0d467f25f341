// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// nrt_get_instance_info and nrt_get_vnc_memory_stats (machine.hpp): read
// the DMI product name, the devices' sysfs architecture files and the
// driver's per-NeuronCore memory accounting.
#include "machine.hpp"

#include <ndl/ndl.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <string>

#include "export.hpp"
#include "model.hpp"
#include "ndl_internal.hpp"
#include "runtime.hpp"

namespace nrt::machine {

namespace {

struct family_row {
	std::string_view name;	// as an instance type begins
	uint32_t family;
	uint32_t base;		// the family it is a variant of
};

constexpr std::array<family_row, 15> kFamilies{ {
	{ "inf1", NRT_INSTANCE_INF1, NRT_INSTANCE_INF1 },
	{ "trn1", NRT_INSTANCE_TRN1, NRT_INSTANCE_TRN1 },
	{ "trn1n", NRT_INSTANCE_TRN1N, NRT_INSTANCE_TRN1 },
	{ "inf2", NRT_INSTANCE_INF2, NRT_INSTANCE_INF2 },
	{ "inf2e", NRT_INSTANCE_INF2E, NRT_INSTANCE_INF2 },
	{ "trn2", NRT_INSTANCE_TRN2, NRT_INSTANCE_TRN2 },
	{ "trn2n", NRT_INSTANCE_TRN2N, NRT_INSTANCE_TRN2 },
	{ "trn2p", NRT_INSTANCE_TRN2P, NRT_INSTANCE_TRN2 },
	{ "trn2u", NRT_INSTANCE_TRN2U, NRT_INSTANCE_TRN2 },
	{ "trn2e", NRT_INSTANCE_TRN2E, NRT_INSTANCE_TRN2 },
	{ "trn2eu", NRT_INSTANCE_TRN2EU, NRT_INSTANCE_TRN2 },
	{ "trn2ac", NRT_INSTANCE_TRN2AC, NRT_INSTANCE_TRN2 },
	{ "trn2uac", NRT_INSTANCE_TRN2UAC, NRT_INSTANCE_TRN2 },
	{ "trn3", NRT_INSTANCE_TRN3, NRT_INSTANCE_TRN3 },
	{ "trn3pds98", NRT_INSTANCE_TRN3PDS98, NRT_INSTANCE_TRN3 },
} };

struct size_row {
	std::string_view name;
	uint32_t size;
};

constexpr std::array<size_row, 9> kSizes{ {
	{ "xlarge", NRT_INSTANCE_SIZE_1XL },
	{ "2xlarge", NRT_INSTANCE_SIZE_2XL },
	{ "3xlarge", NRT_INSTANCE_SIZE_3XL },
	{ "4xlarge", NRT_INSTANCE_SIZE_4XL },
	{ "6xlarge", NRT_INSTANCE_SIZE_6XL },
	{ "8xlarge", NRT_INSTANCE_SIZE_8XL },
	{ "24xlarge", NRT_INSTANCE_SIZE_24XL },
	{ "32xlarge", NRT_INSTANCE_SIZE_32XL },
	{ "48xlarge", NRT_INSTANCE_SIZE_48XL },
} };

// The sysfs instance_type of each product (common/neuron_products.c) and
// of the simulated device.
struct device_row {
	std::string_view instance_type;
	uint32_t family;
};

constexpr std::array<device_row, 5> kDevices{ {
	{ "Trn1", NRT_INSTANCE_TRN1 },
	{ "Inf2", NRT_INSTANCE_INF2 },
	{ "Trn2", NRT_INSTANCE_TRN2 },
	{ "Trn3", NRT_INSTANCE_TRN3 },
	{ "sim", NRT_INSTANCE_TRN2 },	// NDsim models a v3 part: Trainium2
} };

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
		s.remove_suffix(1);
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	return s;
}

// The first line of @path ("" when it cannot be read).
std::string first_line(const char *path)
{
	std::ifstream f(path);
	std::string line;
	std::getline(f, line);
	return line;
}

template <size_t N> void put(char (&dst)[N], std::string_view s)
{
	size_t n = std::min(s.size(), N - 1);
	std::memcpy(dst, s.data(), n);
	dst[n] = '\0';
}

} // namespace

bool parse_instance_type(std::string_view type, uint32_t *family, uint32_t *size)
{
	type = trim(type);
	size_t dot = type.find('.');
	if (dot == std::string_view::npos)
		return false;
	std::string_view fam = type.substr(0, dot), sz = type.substr(dot + 1);
	auto f = std::find_if(kFamilies.begin(), kFamilies.end(),
			      [fam](const family_row &r) { return r.name == fam; });
	auto s = std::find_if(kSizes.begin(), kSizes.end(),
			      [sz](const size_row &r) { return r.name == sz; });
	if (f == kFamilies.end() || s == kSizes.end())
		return false;
	*family = f->family;
	*size = s->size;
	return true;
}

uint32_t family_of_device(std::string_view instance_type)
{
	instance_type = trim(instance_type);
	for (const auto &r : kDevices)
		if (r.instance_type == instance_type)
			return r.family;
	return NRT_INSTANCE_UNKNOWN;
}

uint32_t base_family(uint32_t family)
{
	for (const auto &r : kFamilies)
		if (r.family == family)
			return r.base;
	return NRT_INSTANCE_UNKNOWN;
}

const char *family_name(uint32_t family)
{
	uint32_t base = base_family(family);
	for (const auto &r : kFamilies)
		if (r.family == base)
			return r.name.data();	// the table's literals end in NUL
	return "";
}

nrt_instance_info_t decide(std::string_view dmi_product, std::string_view dev_instance_type,
			   std::string_view dev_arch_type)
{
	nrt_instance_info_t info{};
	info.family = family_of_device(dev_instance_type);
	info.size = NRT_INSTANCE_SIZE_UNKNOWN;
	uint32_t f, s;
	// the instance type refines the devices' family (a variant, the size)
	// only when it is one of that family's, and names both without a device
	if (parse_instance_type(dmi_product, &f, &s) &&
	    (info.family == NRT_INSTANCE_UNKNOWN || base_family(f) == info.family)) {
		info.family = f;
		info.size = s;
	}
	put(info.arch_name, family_name(info.family));
	put(info.device_revision, trim(dev_arch_type));
	return info;
}

bool parse_count(std::string_view text, uint64_t *value)
{
	text = trim(text);
	if (text.empty() || text.size() > 20)
		return false;
	uint64_t v = 0;
	for (char c : text) {
		if (c < '0' || c > '9')
			return false;
		uint64_t d = static_cast<uint64_t>(c - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*value = v;
	return true;
}

} // namespace nrt::machine

using namespace nrt;

NRT_EXPORT NRT_STATUS nrt_get_instance_info(nrt_instance_info_t *info, size_t instance_info_len)
{
	if (!info || instance_info_len < 2 * sizeof(uint32_t))
		return NRT_INVALID;
	try {
		std::string inst, arch;
		int idx[1];
		if (ndl_available_devices(idx, 1) > 0) {
			const std::string dir = ndl::sysfs_dir(idx[0]) + "/info/architecture/";
			inst = machine::first_line((dir + "instance_type").c_str());
			arch = machine::first_line((dir + "arch_type").c_str());
		}
		nrt_instance_info_t mine = machine::decide(
			machine::first_line("/sys/class/dmi/id/product_name"), inst, arch);
		std::memcpy(info, &mine, std::min(instance_info_len, sizeof(mine)));
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_vnc_memory_stats(uint32_t vnc, nrt_vnc_memory_stats_t *stats,
					       size_t stats_size_in, size_t *stats_size_out)
{
	NRT_STATUS st = rt::guard(rt::rt());
	if (st != NRT_SUCCESS)
		return st;
	if (!stats || !stats_size_out || stats_size_in < sizeof(stats->bytes_used))
		return NRT_INVALID;
	std::shared_ptr<rt::device_ctx> d;
	uint32_t di, nc;
	if (vnc > INT32_MAX || !model::locate(static_cast<int>(vnc), &d, &di, &nc))
		return NRT_INVALID;
	try {
		const std::string path = ndl::sysfs_dir(static_cast<int>(di)) + "/neuron_core" +
					 std::to_string(nc) + "/stats/memory_usage/device_mem/total";
		uint64_t used;
		if (!machine::parse_count(machine::first_line(path.c_str()), &used))
			return NRT_FAILURE;
		nrt_vnc_memory_stats_t mine{};
		mine.bytes_used = static_cast<size_t>(used);
		mine.bytes_limit = d->dev->hbm_size;
		size_t n = std::min(stats_size_in, sizeof(mine));
		std::memcpy(stats, &mine, n);
		*stats_size_out = n;
	} catch (...) {
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	return NRT_SUCCESS;
}
