// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-doctor's checks: walk the chain a user's job depends on (driver
// loaded, device nodes there and openable, NEURON_RT_VISIBLE_CORES naming
// cores that exist, each device ready, no uncorrectable memory errors, the
// firmware answering, no core held by a stopped or vanished process, no
// hardware error in the kernel log) and say what is wrong with one action
// each. A library (tools_neuron_doctor) so the host unit tests run every
// check against a fake tree: every path is read under context::root, and
// what comes from the caller (uid, groups, the environment, stat() of the
// nodes, the driver's process list) is injected through the context.
//
// This header brings in all of it: tree.hpp (the context and the file
// layer), accounts.hpp (/etc/passwd and /etc/group), cores.hpp
// (NEURON_RT_VISIBLE_CORES), checks.hpp (the checks), report.hpp (the walk
// and its report) and args.hpp (the command line).
#pragma once

#include "accounts.hpp"
#include "args.hpp"
#include "checks.hpp"
#include "cores.hpp"
#include "report.hpp"
#include "tree.hpp"
