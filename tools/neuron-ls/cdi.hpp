// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// A Container Device Interface (CDI) spec for the Neuron device nodes, the
// JSON that containerd, CRI-O and podman read from /etc/cdi (or
// /var/run/cdi): one CDI device per /dev/neuron<N>, named "<N>", plus
// "all" with every node, so a container asks for
// aws.amazon.com/neuron=0 or aws.amazon.com/neuron=all. neuron-ls --cdi
// writes it; scripts/test-cdi.sh validates it against the CDI project's
// JSON schema.
//
// The nodes are found the way ndl_available_devices() finds devices (an
// existing <dir>/neuron<N> for N in 0..MAX_NEURON_DEVICE_COUNT-1), but
// from a directory the caller names, so a test can point it at a
// temporary tree. The major/minor numbers are stat()'s: a runtime creates
// the node in the container with exactly these.
#pragma once

#include <string>
#include <vector>

namespace tools::cdi {

// 0.5.0: the version of the CDI specification (and of its JSON schema)
// Debian packages; every later runtime reads it too. Nothing here needs
// the fields 0.6.0 added (annotations, intelRdt).
inline constexpr const char *version = "0.5.0";
inline constexpr const char *kind = "aws.amazon.com/neuron";
inline constexpr const char *default_dev_dir = "/dev";

struct node {
	int index;
	std::string host_path;		// <dir>/neuron<N>, as found
	std::string container_path;	// /dev/neuron<N>
	unsigned major_num;
	unsigned minor_num;
};

// The Neuron device nodes under @dir, ascending by index. False with @err
// set (one line) when an existing neuron<N> cannot be stat()ed or is not a
// character device: a spec that lets a runtime create a node of the wrong
// type, or of a regular file's numbers, is worse than none.
bool scan(const std::string &dir, std::vector<node> &out, std::string &err);

std::string device_node_json(const node &n);

std::string device_json(const std::string &name, const std::vector<const node *> &nodes, bool last);

// The spec for @nodes (at least one).
std::string spec_json(const std::vector<node> &nodes);

} // namespace tools::cdi
