/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
// What machine this is (nrt_get_instance_info) and how much device memory
// a NeuronCore uses (nrt_get_vnc_memory_stats): the decisions, apart from
// the files they read, so the unit tests give them any input.
#pragma once

#include <nrt/nrt.h>

#include <cstdint>
#include <string_view>

namespace nrt::machine {

// An EC2 instance type ("trn1n.32xlarge") -> its family and size
// (NRT_INSTANCE_*, NRT_INSTANCE_SIZE_*); false when it is not a Neuron
// instance type this table knows.
bool parse_instance_type(std::string_view type, uint32_t *family, uint32_t *size);

// A Neuron device's sysfs info/architecture/instance_type ("Trn1", "Inf2",
// "Trn2", "Trn3"; "sim": a simulated device, which models a Trainium2) ->
// NRT_INSTANCE_*, NRT_INSTANCE_UNKNOWN for anything else.
uint32_t family_of_device(std::string_view instance_type);

// The family a variant belongs to (NRT_INSTANCE_TRN1N -> NRT_INSTANCE_TRN1).
uint32_t base_family(uint32_t family);

// "trn2" for NRT_INSTANCE_TRN2 and its variants, "" for UNKNOWN.
const char *family_name(uint32_t family);

// The whole answer from what the files said (each may be empty: no
// device, no DMI): @dmi_product the DMI product name, @dev_instance_type
// and @dev_arch_type the first device's sysfs files (trailing blanks and
// newlines are ignored).
nrt_instance_info_t decide(std::string_view dmi_product, std::string_view dev_instance_type,
			   std::string_view dev_arch_type);

// A sysfs counter's text ("12345\n") -> its value; false when it is not a
// decimal number.
bool parse_count(std::string_view text, uint64_t *value);

} // namespace nrt::machine
