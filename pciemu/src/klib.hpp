// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The project's pure C contract code (common/), from C++.
#pragma once

extern "C" {
#include "neuron_fw_model.h"
#include "neuron_fw_profile.h"
#include "neuron_fwio_frame.h"
#include "neuron_metrics_pack.h"
#include "neuron_miscram_reg.h"
#include "neuron_parse.h"
#include "neuron_pe_counters.h"
#include "neuron_products.h"
}
