// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-ls --cdi: the device nodes found and the CDI spec written for
// them (cdi.hpp).
#include "cdi.hpp"

#include <ndl/ndl.h>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/json.hpp"

namespace tools::cdi {

bool scan(const std::string &dir, std::vector<node> &out, std::string &err)
{
	std::string base = dir;
	while (base.size() > 1 && base.back() == '/')
		base.pop_back();
	out.clear();
	for (int i = 0; i < MAX_NEURON_DEVICE_COUNT; i++) {
		std::string name = "neuron" + std::to_string(i);
		std::string path = (base == "/" ? "" : base) + "/" + name;
		struct stat st;
		if (::stat(path.c_str(), &st) != 0) {
			if (errno == ENOENT)
				continue;
			err = path + ": " + std::strerror(errno);
			return false;
		}
		if (!S_ISCHR(st.st_mode)) {
			err = path + ": not a character device";
			return false;
		}
		out.push_back(node{ i, path, "/dev/" + name, major(st.st_rdev), minor(st.st_rdev) });
	}
	return true;
}

std::string device_node_json(const node &n)
{
	std::string o = "{\"path\": " + json::quote(n.container_path);
	if (n.host_path != n.container_path)
		o += ", \"hostPath\": " + json::quote(n.host_path);
	o += ", \"type\": \"c\", \"major\": " + std::to_string(n.major_num) +
	     ", \"minor\": " + std::to_string(n.minor_num) + "}";
	return o;
}

std::string device_json(const std::string &name, const std::vector<const node *> &nodes, bool last)
{
	std::string o = "    {\n      \"name\": " + json::quote(name) +
			",\n      \"containerEdits\": {\n        \"deviceNodes\": [\n";
	for (size_t i = 0; i < nodes.size(); i++)
		o += "          " + device_node_json(*nodes[i]) + (i + 1 < nodes.size() ? ",\n" : "\n");
	o += "        ]\n      }\n    }";
	o += last ? "\n" : ",\n";
	return o;
}

std::string spec_json(const std::vector<node> &nodes)
{
	std::string o = "{\n  \"cdiVersion\": " + json::quote(version) + ",\n  \"kind\": " +
			json::quote(kind) + ",\n  \"devices\": [\n";
	std::vector<const node *> all;
	for (const node &n : nodes) {
		o += device_json(std::to_string(n.index), { &n }, false);
		all.push_back(&n);
	}
	o += device_json("all", all, true);
	o += "  ]\n}\n";
	return o;
}

} // namespace tools::cdi
