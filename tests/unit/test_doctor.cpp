// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// neuron-doctor's checks (tools/neuron-doctor/doctor.hpp) against fake
// trees under a mkdtemp directory: a healthy host, then one broken link at
// a time (module, DKMS builds for installed kernels, the vendor's runtime
// and driver versions, node, node mode, NEURON_RT_VISIBLE_CORES, device
// state, ECC, firmware mailbox, a stopped holder, kernel log lines); the
// JSON report read back with the tools' JSON reader; the
// NEURON_RT_VISIBLE_CORES parser against libnrt's own; the command line.
#include <cerrno>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <vector>
extern "C" {
#include <cmocka.h>
}

#include "runtime.hpp"	// libnrt's visible_cores(), to compare with

#include "common/json.hpp"
#include "neuron-doctor/doctor.hpp"

namespace doc = tools::doctor;
namespace fs = std::filesystem;

namespace {

constexpr gid_t kNeuronGid = 1500;

// A fake system root. Device nodes are regular files (a test cannot
// mknod); their type, mode, owner and numbers come from fake_nodes through
// the context's stat function.
struct tree {
	std::string dir;
	std::map<std::string, struct stat> fake_nodes;	// by path in the system
	std::map<int, std::vector<tools::apps::process>> holders;	// by device index

	tree()
	{
		const char *tmp = std::getenv("TMPDIR");
		std::string t = std::string(tmp && *tmp ? tmp : "/tmp") + "/doctor-XXXXXX";
		std::vector<char> buf(t.begin(), t.end());
		buf.push_back('\0');
		if (!::mkdtemp(buf.data()))
			fail_msg("mkdtemp: %s", std::strerror(errno));
		dir = buf.data();
	}
	~tree()
	{
		std::error_code ec;
		fs::remove_all(dir, ec);
	}
	tree(const tree &) = delete;
	tree &operator=(const tree &) = delete;

	void put(const std::string &path, const std::string &text)
	{
		fs::create_directories(fs::path(dir + path).parent_path());
		std::ofstream f(dir + path, std::ios::trunc);
		f << text;
	}
	void rm(const std::string &path) { fs::remove_all(dir + path); }
	void node(int n, mode_t mode, uid_t uid, gid_t gid)
	{
		std::string path = "/dev/neuron" + std::to_string(n);
		put(path, "");
		struct stat st {};
		st.st_mode = S_IFCHR | mode;
		st.st_uid = uid;
		st.st_gid = gid;
		st.st_rdev = makedev(240, n);
		fake_nodes[path] = st;
	}
	void device(int n, int cores)
	{
		std::string d = "/sys/class/neuron_device/neuron" + std::to_string(n);
		put(d + "/core_count", std::to_string(cores) + "\n");
		put(d + "/dev", "240:" + std::to_string(n) + "\n");
		put(d + "/state", "ready\n");
		for (const char *f : { "sram_ecc_uncorrected", "sram_ecc_corrected", "mem_ecc_uncorrected",
				       "mem_ecc_repairable_uncorrected", "mem_ecc_corrected" })
			put(d + "/stats/hardware/" + f, "0\n");
		put(d + "/stats/fw_io/err_count", "0\n");
		put(d + "/stats/fw_io/timeout_count", "0\n");
		health(n, -1, "ok", "none");
		for (int k = 0; k < cores; k++)
			health(n, k, "ok", "none");
		node(n, 0660, 0, kNeuronGid);
	}
	// the driver's health of device @n (@nc < 0) or of its NeuronCore @nc
	void health(int n, int nc, const char *state, const char *reason)
	{
		std::string d = "/sys/class/neuron_device/neuron" + std::to_string(n);
		if (nc >= 0)
			d += "/neuron_core" + std::to_string(nc);
		put(d + "/health", std::string(state) + "\n");
		put(d + "/health_reason", std::string(reason) + "\n");
	}

	// alice (uid 1000) in group neuron, in this session too
	doc::context ctx()
	{
		doc::context c;
		c.root = dir;
		c.uid = 1000;
		c.gid = 1000;
		c.groups = { 1000, kNeuronGid };
		c.stat_fn = [this](const std::string &p, struct stat &st) {
			if (::stat(p.c_str(), &st) != 0)
				return -1;
			auto it = fake_nodes.find(p.substr(dir.size()));
			if (it != fake_nodes.end())
				st = it->second;
			return 0;
		};
		c.list_holders = [this](const doc::device &d, std::vector<tools::apps::process> &out, std::string &) {
			out = holders[d.index];
			return true;
		};
		return c;
	}
};

// Two devices of 2 NeuronCores, DKMS's 0.1.0 loaded on 6.1.0-test, nodes
// root:neuron 0660, one running process holding NeuronCore 0.
void healthy(tree &t)
{
	t.put("/sys/module/neuron/version", "0.1.0\n");
	t.put("/proc/sys/kernel/osrelease", "6.1.0-test\n");
	t.put("/var/lib/dkms/neuron-oss/0.1.0/6.1.0-test/x86_64/module/neuron.ko", "");
	t.put("/lib/modules/6.1.0-test/updates/dkms/neuron.ko", "");
	t.put("/lib/modules/6.1.0-test/modules.dep", "updates/dkms/neuron.ko:\n");
	t.put("/etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n"
			     "bob:x:1001:1001::/home/bob:/bin/sh\n");
	t.put("/etc/group", "root:x:0:\nalice:x:1000:\nbob:x:1001:\nneuron:x:1500:alice\n");
	t.put("/proc/1/cgroup", "0::/init.scope\n");
	t.put("/dev/kmsg", "6,100,5000000,-;neuron: loaded, 2 simulated devices\n"
			   " SUBSYSTEM=neuron_device\n"
			   "4,101,6000000,-;eth0: link up\n");
	t.device(0, 2);
	t.device(1, 2);
	t.put("/proc/4321/stat", "4321 (python3 (a) b) S 1 4321 4321 0 -1 4194560\n");
	t.holders[0] = { { 4321, "python3 train.py", { 0 } } };
}

const doc::finding *first(const doc::report &r)
{
	return r.first < 0 ? nullptr : &r.findings[static_cast<size_t>(r.first)];
}

const doc::finding *find(const doc::report &r, const char *check, doc::severity sev)
{
	for (auto &f : r.findings)
		if (f.check == check && f.sev == sev)
			return &f;
	return nullptr;
}

bool has(const std::string &s, const char *part)
{
	return s.find(part) != std::string::npos;
}

void expect_first(const doc::report &r, const char *check, doc::severity sev, const char *action_part)
{
	const doc::finding *f = first(r);
	assert_non_null(f);
	assert_string_equal(f->check.c_str(), check);
	assert_int_equal(static_cast<int>(f->sev), static_cast<int>(sev));
	if (!has(f->action, action_part))
		fail_msg("action \"%s\" lacks \"%s\"", f->action.c_str(), action_part);
	std::string line = "neuron-doctor: " + std::string(check) + ": " + f->action + "\n";
	assert_true(doc::to_text(r).rfind(line, 0) == 0);
}

} // namespace

static void healthy_tree(void **)
{
	tree t;
	healthy(t);
	doc::report r = doc::run(t.ctx());
	for (auto &f : r.findings)
		if (f.sev != doc::severity::ok)
			fail_msg("%s: %s", f.check.c_str(), f.detail.c_str());
	assert_null(first(r));
	assert_int_equal(doc::exit_code(r), 0);
	std::string text = doc::to_text(r);
	assert_true(text.rfind("neuron-doctor: OK\n[ok] module: neuron.ko 0.1.0 loaded on kernel 6.1.0-test", 0) == 0);
	for (const char *check : { "module", "devices", "nodes", "container", "visible_cores", "state", "ecc",
				   "health", "fw_io", "holders", "kmsg" })
		assert_non_null(find(r, check, doc::severity::ok));
	assert_true(has(find(r, "devices", doc::severity::ok)->detail, "2 devices (neuron0, neuron1), 4 NeuronCores"));
	assert_string_equal(find(r, "nodes", doc::severity::ok)->detail.c_str(),
			    "/dev/neuron0, /dev/neuron1 (0660 root:neuron): read-write for alice (uid 1000)");
	assert_true(has(find(r, "holders", doc::severity::ok)->detail, "1 process has a device open"));
	assert_true(has(find(r, "holders", doc::severity::ok)->detail,
			"(they hold NeuronCores 0: nrt_init() without NEURON_RT_VISIBLE_CORES takes every NeuronCore"));
}

/*
 * The vendor's driver (or this one with vendor_only): no state, health or
 * fw_io files. Nothing is wrong, but those checks could not be made: not
 * OK, exit 4, each named.
 */
static void vendor_driver(void **)
{
	tree t;
	healthy(t);
	for (const char *dev : { "neuron0", "neuron1" }) {
		std::string d = std::string("/sys/class/neuron_device/") + dev;
		t.rm(d + "/state");
		t.rm(d + "/health");
		t.rm(d + "/stats/fw_io/err_count");
		t.rm(d + "/stats/fw_io/timeout_count");
	}
	doc::report r = doc::run(t.ctx());
	assert_null(first(r));
	assert_int_equal(doc::exit_code(r), 4);
	assert_string_equal(doc::status_name(r), "unknown");
	for (const char *check : { "state", "health", "fw_io" })
		assert_true(has(find(r, check, doc::severity::unknown)->detail, "neuron0, neuron1: not checked"));
	std::string text = doc::to_text(r);
	assert_true(text.rfind("neuron-doctor: UNKNOWN: no fault found, but not checked: state, health, fw_io\n", 0) == 0);
	assert_true(has(doc::to_json(r), "\"status\": \"unknown\""));

	// a fault found still comes first, and decides the exit status
	t.put("/sys/class/neuron_device/neuron0/stats/hardware/mem_ecc_uncorrected", "3\n");
	r = doc::run(t.ctx());
	expect_first(r, "ecc", doc::severity::error, "stop and start");
	assert_int_equal(doc::exit_code(r), 2);
}

// Every installed kernel (a /lib/modules/<k>/modules.dep) has a build of
// the newest DKMS version, of this driver and of the vendor's; a missing
// one is a warning naming the kernel, "failed" when DKMS's make.log says
// its last build was for that kernel.
static void dkms_kernels(void **)
{
	tree t;
	healthy(t);
	t.put("/lib/modules/6.2.0-next/modules.dep", "");
	doc::report r = doc::run(t.ctx());
	const doc::finding *f = find(r, "dkms", doc::severity::warning);
	assert_non_null(f);
	assert_true(has(f->detail, "DKMS has no neuron-oss 0.1.0 build for installed kernel 6.2.0-next"));
	assert_string_equal(f->action.c_str(), "sudo dkms install neuron-oss/0.1.0 -k 6.2.0-next");
	assert_int_equal(doc::exit_code(r), 1);

	t.put("/var/lib/dkms/neuron-oss/0.1.0/build/make.log",
	      "DKMS make.log for neuron-oss-0.1.0 for kernel 6.2.0-next (x86_64)\nerror: oops\n");
	r = doc::run(t.ctx());
	f = find(r, "dkms", doc::severity::warning);
	assert_non_null(f);
	assert_true(has(f->detail, "DKMS's build of neuron-oss 0.1.0 for installed kernel 6.2.0-next failed "
				   "(/var/lib/dkms/neuron-oss/0.1.0/build/make.log)"));
	assert_true(has(f->action, "sudo dkms build neuron-oss/0.1.0 -k 6.2.0-next"));

	// built: nothing to say; a kernel directory without modules.dep is no installed kernel
	t.put("/var/lib/dkms/neuron-oss/0.1.0/6.2.0-next/x86_64/module/neuron.ko.xz", "");
	t.put("/lib/modules/5.10.0-gone/updates/dkms/neuron.ko", "");
	r = doc::run(t.ctx());
	assert_null(find(r, "dkms", doc::severity::warning));
	assert_int_equal(doc::exit_code(r), 0);

	// the vendor's package too, its newest version by number (0.10 after 0.9)
	t.put("/var/lib/dkms/aws-neuronx/2.9.1.0/6.1.0-test/x86_64/module/neuron.ko", "");
	t.put("/var/lib/dkms/aws-neuronx/2.9.1.0/6.2.0-next/x86_64/module/neuron.ko", "");
	t.put("/var/lib/dkms/aws-neuronx/2.10.3.0/6.1.0-test/x86_64/module/neuron.ko", "");
	r = doc::run(t.ctx());
	f = find(r, "dkms", doc::severity::warning);
	assert_non_null(f);
	assert_true(has(f->detail, "DKMS has no aws-neuronx 2.10.3.0 build for installed kernel 6.2.0-next"));

	// the running kernel's failed build is said too (check_module only says "no build")
	t.rm("/var/lib/dkms/aws-neuronx");
	t.rm("/var/lib/dkms/neuron-oss/0.1.0/6.1.0-test");
	t.put("/var/lib/dkms/neuron-oss/0.1.0/build/make.log",
	      "DKMS make.log for neuron-oss-0.1.0 for kernel 6.1.0-test (x86_64)\n");
	r = doc::run(t.ctx());
	f = find(r, "dkms", doc::severity::warning);
	assert_non_null(f);
	assert_true(has(f->detail, "for installed kernel 6.1.0-test failed"));
	assert_true(doc::version_less("0.9.0", "0.10.0") && !doc::version_less("2.29.1", "2.29.1-2") &&
		    doc::version_less("2.28", "2.28.1"));
}

static std::string dpkg_entry(const char *pkg, const char *status, const char *version)
{
	return std::string("Package: ") + pkg + "\nStatus: " + status + "\nPriority: optional\nVersion: " +
	       version + "\nDescription: x\n multi-line\n\n";
}

// The vendor's rules between its driver and its runtime, when
// /var/lib/dpkg/status has the runtime installed: driver >= 2.29 needs
// runtime >= 2.33, runtime >= 2.32 needs driver >= 2.27. With this
// project's driver loaded (version 0.x) the rules do not apply: a note.
static void runtime_compat(void **)
{
	tree t;
	healthy(t);
	doc::report r = doc::run(t.ctx());
	for (auto &f : r.findings)
		assert_true(f.check != "compat");
	t.put("/var/lib/dpkg/status", dpkg_entry("libc6", "install ok installed", "2.36-9") +
					      dpkg_entry("aws-neuronx-runtime-lib", "install ok installed",
							 "2.32.1.0-1a2b3c4d"));
	r = doc::run(t.ctx());
	const doc::finding *f = find(r, "compat", doc::severity::note);
	assert_non_null(f);
	assert_true(has(f->detail, "aws-neuronx-runtime-lib 2.32.1.0-1a2b3c4d with this driver, not the vendor's"));
	assert_int_equal(doc::exit_code(r), 0);

	// the vendor's 2.29 loaded, runtime 2.32: an error, upgrade the runtime
	t.put("/sys/module/neuron/version", "2.29.5.0\n");
	r = doc::run(t.ctx());
	f = find(r, "compat", doc::severity::error);
	assert_non_null(f);
	assert_true(has(f->detail, "with the vendor's driver 2.29.5.0 (loaded): driver 2.29 and later need runtime 2.33"));
	assert_string_equal(f->action.c_str(), "upgrade aws-neuronx-runtime-lib to 2.33 or later");

	// this driver loaded: the vendor's DKMS build beside it does not count
	t.put("/sys/module/neuron/version", "0.1.0\n");
	t.put("/var/lib/dkms/aws-neuronx/2.26.10.0/6.1.0-test/x86_64/module/neuron.ko", "");
	r = doc::run(t.ctx());
	assert_non_null(find(r, "compat", doc::severity::note));
	assert_null(find(r, "compat", doc::severity::error));
	t.put("/sys/module/neuron/version", "2.29.5.0\n");

	// the vendor's 2.26 from DKMS (no driver loaded), runtime 2.32: upgrade the driver
	t.rm("/sys/module/neuron");
	t.put("/var/lib/dkms/aws-neuronx/2.26.10.0/6.1.0-test/x86_64/module/neuron.ko", "");
	r = doc::run(t.ctx());
	f = find(r, "compat", doc::severity::error);
	assert_non_null(f);
	assert_true(has(f->detail, "driver 2.26.10.0 (DKMS): runtime 2.32 and later need a driver newer than 2.26"));
	assert_string_equal(f->action.c_str(), "upgrade aws-neuronx-dkms to 2.27 or later");

	// 2.28 with 2.32: fine; a runtime only configured (not installed) is not there
	t.put("/var/lib/dkms/aws-neuronx/2.28.0.0/6.1.0-test/x86_64/module/neuron.ko", "");
	r = doc::run(t.ctx());
	assert_non_null(find(r, "compat", doc::severity::ok));
	t.put("/var/lib/dpkg/status", dpkg_entry("aws-neuronx-runtime-lib", "deinstall ok config-files", "2.30.0.0"));
	r = doc::run(t.ctx());
	for (auto &g : r.findings)
		assert_true(g.check != "compat");
}

static void module_missing(void **)
{
	tree t;
	healthy(t);
	t.rm("/sys/module/neuron");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "module", doc::severity::error, "sudo modprobe neuron");
	assert_int_equal(doc::exit_code(r), 2);
	// nothing below the driver is checked, and no error is made up for it
	assert_null(find(r, "nodes", doc::severity::error));
	assert_non_null(find(r, "devices", doc::severity::note));

	// DKMS has the package, but not for the running kernel
	t.put("/proc/sys/kernel/osrelease", "6.2.0-other\n");
	r = doc::run(t.ctx());
	expect_first(r, "module", doc::severity::error, "sudo dkms install neuron-oss/0.1.0 -k 6.2.0-other");

	// built for it but not installed
	t.put("/var/lib/dkms/neuron-oss/0.1.0/6.2.0-other/x86_64/module/neuron.ko", "");
	r = doc::run(t.ctx());
	expect_first(r, "module", doc::severity::error, "sudo dkms install neuron-oss/0.1.0 -k 6.2.0-other");
	t.put("/lib/modules/6.2.0-other/updates/dkms/neuron.ko.xz", "");
	r = doc::run(t.ctx());
	expect_first(r, "module", doc::severity::error, "sudo modprobe neuron");
	assert_false(has(first(r)->action, "dkms"));

	// no DKMS, and modules.dep knows no neuron module
	t.rm("/var/lib/dkms");
	t.put("/lib/modules/6.2.0-other/modules.dep", "kernel/drivers/net/dummy.ko:\n");
	r = doc::run(t.ctx());
	expect_first(r, "module", doc::severity::error, "make dkms-install");

	// in a container the module is the host's
	t.put("/.dockerenv", "");
	r = doc::run(t.ctx());
	expect_first(r, "module", doc::severity::error, "on the host: sudo modprobe neuron");
}

static void module_other_version(void **)
{
	tree t;
	healthy(t);
	t.put("/sys/module/neuron/version", "2.19.64.0\n");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "module", doc::severity::warning, "sudo modprobe -r neuron && sudo modprobe neuron");
	assert_true(has(first(r)->detail, "2.19.64.0"));
	assert_int_equal(doc::exit_code(r), 1);
}

static void no_device(void **)
{
	tree t;
	healthy(t);
	t.rm("/sys/class/neuron_device/neuron0");
	t.rm("/sys/class/neuron_device/neuron1");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "devices", doc::severity::error, "lspci -d 1d0f:");
}

static void node_missing(void **)
{
	tree t;
	healthy(t);
	t.rm("/dev/neuron1");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "nodes", doc::severity::error, "sudo mknod -m 0660 /dev/neuron1 c 240 1");
	assert_true(has(first(r)->detail, "/dev/neuron1 is missing"));
	assert_int_equal(doc::exit_code(r), 2);
	assert_true(has(find(r, "nodes", doc::severity::ok)->detail, "/dev/neuron0"));

	// in a container: the runtime must pass it
	t.put("/proc/1/cgroup", "0::/kubepods/besteffort/pod1234\n");
	r = doc::run(t.ctx());
	expect_first(r, "nodes", doc::severity::error, "neuron-ls --cdi");
	assert_non_null(find(r, "container", doc::severity::note));

	// a node with other numbers than the driver's
	t.rm("/proc/1/cgroup");
	t.node(1, 0660, 0, kNeuronGid);
	t.fake_nodes["/dev/neuron1"].st_rdev = makedev(10, 3);
	r = doc::run(t.ctx());
	expect_first(r, "nodes", doc::severity::error, "sudo rm /dev/neuron1");
	assert_true(has(first(r)->detail, "stale"));

	// not a character device
	t.fake_nodes.erase("/dev/neuron1");
	r = doc::run(t.ctx());
	expect_first(r, "nodes", doc::severity::error, "sudo rm /dev/neuron1");
	assert_true(has(first(r)->detail, "not a character device"));
}

static void node_mode(void **)
{
	tree t;
	healthy(t);
	t.node(0, 0600, 0, 0);
	doc::report r = doc::run(t.ctx());
	expect_first(r, "nodes", doc::severity::error, "sudo usermod -aG neuron alice");
	assert_string_equal(first(r)->detail.c_str(), "/dev/neuron0 is 0600 root:root: alice (uid 1000) cannot open it");
	assert_int_equal(doc::exit_code(r), 2);

	// root opens anything
	doc::context c = t.ctx();
	c.uid = 0;
	c.gid = 0;
	c.groups = {};
	r = doc::run(c);
	assert_int_equal(doc::exit_code(r), 0);

	// 0660 root:neuron, bob is not in the group
	t.node(0, 0660, 0, kNeuronGid);
	c = t.ctx();
	c.uid = 1001;
	c.gid = 1001;
	c.groups = { 1001 };
	r = doc::run(c);
	expect_first(r, "nodes", doc::severity::error, "add the user to group neuron (sudo usermod -aG neuron bob");
	// alice is in it by /etc/group, but the session predates it
	c = t.ctx();
	c.groups = { 1000 };
	r = doc::run(c);
	expect_first(r, "nodes", doc::severity::error, "log in again");
	// an unknown uid: the action says $USER
	c.uid = 4242;
	r = doc::run(c);
	expect_first(r, "nodes", doc::severity::error, "sudo usermod -aG neuron $USER");
	// world-writable nodes (the vendor's 0666) are fine for anyone
	t.node(0, 0666, 0, 0);
	t.node(1, 0666, 0, 0);
	r = doc::run(c);
	assert_int_equal(doc::exit_code(r), 0);
}

static void visible_cores(void **)
{
	tree t;
	healthy(t);
	doc::context c = t.ctx();
	c.visible_cores = "0-4";
	doc::report r = doc::run(c);
	expect_first(r, "visible_cores", doc::severity::error, "within 0-3, e.g. \"0-1\"");
	assert_true(has(first(r)->detail, "names NeuronCore 4 but there are 4 (0-3)"));
	// where the NeuronCores that exist are
	assert_true(has(first(r)->detail, "the NeuronCores are neuron0's NeuronCores 0-1, neuron1's NeuronCores 0-1"));
	assert_false(has(first(r)->detail, "numbered over"));
	assert_int_equal(doc::exit_code(r), 2);
	for (const char *bad : { "x", "0,2", "3-1", "1-", "", "0,,1", "-1" }) {
		c.visible_cores = bad;
		r = doc::run(c);
		if (*bad)
			expect_first(r, "visible_cores", doc::severity::error, "NEURON_RT_VISIBLE_CORES");
		else
			assert_int_equal(doc::exit_code(r), 0);	// empty: all, as unset
	}
	c.visible_cores = "1,2";
	t.holders.clear();
	r = doc::run(c);
	assert_int_equal(doc::exit_code(r), 0);
	assert_true(has(find(r, "visible_cores", doc::severity::ok)->detail,
			"NeuronCores 1-2 of 4 (neuron0's NeuronCore 1, neuron1's NeuronCore 0)"));

	// a device removed: its NeuronCores no longer exist
	t.device(2, 2);
	c.visible_cores = "4-5";
	r = doc::run(c);
	assert_int_equal(doc::exit_code(r), 0);
	assert_true(has(find(r, "visible_cores", doc::severity::ok)->detail,
			"NeuronCores 4-5 of 6 (neuron2's NeuronCores 0-1)"));
	t.rm("/sys/class/neuron_device/neuron2");
	r = doc::run(c);
	expect_first(r, "visible_cores", doc::severity::error, "within 0-3");
	assert_true(has(first(r)->detail, "names NeuronCore 5 but there are 4 (0-3)"));
	assert_int_equal(doc::exit_code(r), 2);
	// one before the last: the numbers of those after it move down
	t.device(2, 2);
	t.rm("/sys/class/neuron_device/neuron1");
	c.visible_cores = "2-3";
	r = doc::run(c);
	assert_int_equal(doc::exit_code(r), 0);
	assert_true(has(find(r, "visible_cores", doc::severity::ok)->detail,
			"NeuronCores 2-3 of 4 (neuron2's NeuronCores 0-1) (no neuron1: the NeuronCores are numbered over the devices present)"));
	c.visible_cores = "4";
	r = doc::run(c);
	expect_first(r, "visible_cores", doc::severity::error, "within 0-3");
	assert_true(has(first(r)->detail, "; the NeuronCores are neuron0's NeuronCores 0-1, neuron2's NeuronCores 0-1 (no neuron1: "));
	t.rm("/sys/class/neuron_device/neuron0");
	t.device(5, 1);
	r = doc::run(c);
	assert_true(has(first(r)->detail, "(no neuron0 to neuron1, neuron3 to neuron4: "));
	t.rm("/sys/class/neuron_device/neuron5");
	t.device(0, 2);
	t.device(1, 2);
	t.rm("/sys/class/neuron_device/neuron2");
	c.visible_cores = "1,2";

	// a core_count that cannot be read: not checked rather than guessed
	t.rm("/sys/class/neuron_device/neuron1/core_count");
	c.visible_cores = "0-3";
	r = doc::run(c);
	assert_int_equal(doc::exit_code(r), 0);
	assert_true(has(find(r, "visible_cores", doc::severity::note)->detail, "core_count cannot be read"));
}

// nrt_init() and the doctor call one parser (common/neuron_cores): through
// both wrappers, the same decisions on inputs of every kind.
static void visible_cores_like_libnrt(void **)
{
	const char *inputs[] = { "", "0", "3", "7", "8", "0-3", "3-6", "3,4,5", "3-4,5", "0-7", "0-8", "5-3",
				 "3,3", "3,5", "1,", ",1", "1-", "-1", "a", "1a", "1 ", " 1", "1-2-3", "00",
				 "007", "1,2-3,4", "18446744073709551616", "99999999999999999999", "2-2" };
	for (uint32_t total : { 0u, 1u, 4u, 8u }) {
		for (const char *in : inputs) {
			uint32_t first = 0, count = 0;
			bool set = false;
			bool lib_ok = nrt::rt::visible_cores(in, total, &first, &count, &set) == NRT_SUCCESS;
			doc::core_run r = doc::parse_visible_cores(in, total);
			if (r.ok != lib_ok)
				fail_msg("\"%s\" of %u: libnrt %d, doctor %d (%s)", in, total, lib_ok, r.ok, r.why.c_str());
			if (lib_ok && (r.first != first || r.count != count))
				fail_msg("\"%s\" of %u: libnrt %u+%u, doctor %u+%u", in, total, first, count, r.first, r.count);
			if (!r.ok)
				assert_false(r.why.empty());
		}
	}
}

static void device_state(void **)
{
	tree t;
	healthy(t);
	t.put("/sys/class/neuron_device/neuron1/state", "invalid\n");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "state", doc::severity::error, "reload the driver or reboot");
	assert_true(has(first(r)->detail, "neuron1 did not come back from reset"));
	assert_true(has(find(r, "state", doc::severity::ok)->detail, "neuron0: ready"));
	assert_int_equal(doc::exit_code(r), 2);

	t.put("/sys/class/neuron_device/neuron1/state", "reset\n");
	r = doc::run(t.ctx());
	expect_first(r, "state", doc::severity::warning, "wait");
	assert_int_equal(doc::exit_code(r), 1);
}

static void ecc(void **)
{
	tree t;
	healthy(t);
	t.put("/sys/class/neuron_device/neuron0/stats/hardware/mem_ecc_uncorrected", "3\n");
	t.health(0, -1, "needs_reset", "hbm_uncorrectable");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "ecc", doc::severity::error, "stop and start");
	assert_true(has(first(r)->detail, "neuron0: uncorrectable ECC errors: SRAM 0, HBM 3"));
	// the health finding points at it, and adds no error of its own
	assert_true(has(find(r, "health", doc::severity::note)->detail,
			"neuron0: needs_reset (hbm_uncorrectable): see the ecc finding"));
	assert_null(find(r, "health", doc::severity::error));
	assert_int_equal(doc::exit_code(r), 2);

	// after a reset the counts stay, the health is ok: history, a warning
	t.health(0, -1, "ok", "none");
	r = doc::run(t.ctx());
	expect_first(r, "ecc", doc::severity::warning, "if new ones come");
	assert_true(has(first(r)->detail, "all counted before the device's last reset (health: ok)"));
	assert_int_equal(doc::exit_code(r), 1);
	// a driver without health files: the counts are current
	t.rm("/sys/class/neuron_device/neuron0/health");
	r = doc::run(t.ctx());
	expect_first(r, "ecc", doc::severity::error, "stop and start");
	assert_true(has(find(r, "health", doc::severity::unknown)->detail, "neuron0: not checked: no health file"));

	t.put("/sys/class/neuron_device/neuron0/stats/hardware/mem_ecc_uncorrected", "0\n");
	t.put("/sys/class/neuron_device/neuron1/stats/hardware/mem_ecc_repairable_uncorrected", "1\n");
	r = doc::run(t.ctx());
	expect_first(r, "ecc", doc::severity::warning, "reboot the instance");
	assert_int_equal(doc::exit_code(r), 1);
	t.put("/sys/class/neuron_device/neuron1/stats/hardware/mem_ecc_repairable_uncorrected", "0\n");

	// one count that cannot be read: the device is not called clean
	t.put("/sys/class/neuron_device/neuron0/stats/hardware/mem_ecc_uncorrected", "garbage\n");
	r = doc::run(t.ctx());
	assert_true(has(find(r, "ecc", doc::severity::unknown)->detail,
			"neuron0 (mem_ecc_uncorrected): not checked: an ECC count cannot be read"));
	assert_true(has(find(r, "ecc", doc::severity::ok)->detail, "neuron1: no uncorrectable ECC error"));
	assert_false(has(find(r, "ecc", doc::severity::ok)->detail, "neuron0"));
	// and the other one, when it counts errors, is reported
	t.put("/sys/class/neuron_device/neuron0/stats/hardware/sram_ecc_uncorrected", "4\n");
	r = doc::run(t.ctx());
	expect_first(r, "ecc", doc::severity::error, "stop and start");
	assert_true(has(first(r)->detail, "neuron0: uncorrectable ECC errors: SRAM 4, HBM ?"));
	t.put("/sys/class/neuron_device/neuron0/stats/hardware/sram_ecc_uncorrected", "0\n");
	t.put("/sys/class/neuron_device/neuron0/stats/hardware/mem_ecc_uncorrected", "0\n");

	// a health reason that cannot be read: the counts are taken as current
	t.put("/sys/class/neuron_device/neuron0/stats/hardware/mem_ecc_uncorrected", "3\n");
	t.put("/sys/class/neuron_device/neuron0/health", "ok\n");
	t.rm("/sys/class/neuron_device/neuron0/health_reason");
	r = doc::run(t.ctx());
	expect_first(r, "ecc", doc::severity::error, "stop and start");
}

static void fw_io(void **)
{
	tree t;
	healthy(t);
	t.put("/sys/class/neuron_device/neuron1/stats/fw_io/timeout_count", "5\n");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "fw_io", doc::severity::warning, "if they keep rising, reset the device");
	assert_true(has(first(r)->detail, "neuron1: firmware mailbox errors: 5 (0 error responses, 5 timeouts)"));
	assert_int_equal(doc::exit_code(r), 1);

	// a counter that cannot be read: not "the firmware answers"
	t.put("/sys/class/neuron_device/neuron1/stats/fw_io/timeout_count", "-1\n");
	r = doc::run(t.ctx());
	assert_true(has(find(r, "fw_io", doc::severity::unknown)->detail,
			"neuron1: not checked: a fw_io counter cannot be read"));
	assert_false(has(find(r, "fw_io", doc::severity::ok)->detail, "neuron1"));
}

static void health(void **)
{
	tree t;
	healthy(t);
	// an unrecoverable NeuronCore: the device needs a reset, named with its core
	t.health(1, -1, "needs_reset", "nc_unrecoverable");
	t.health(1, 1, "needs_reset", "nc_unrecoverable");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "health", doc::severity::error, "echo 1 | sudo tee ");
	assert_true(has(first(r)->detail, "neuron1: needs_reset (nc_unrecoverable): NeuronCore 1 refuses jobs"));
	assert_true(has(first(r)->action, "/neuron1/reset"));
	assert_true(has(find(r, "health", doc::severity::ok)->detail, "neuron0: ok"));
	assert_int_equal(doc::exit_code(r), 2);

	// silent firmware: a warning with the reset as the remedy if it goes on
	t.health(1, -1, "degraded", "fw_not_answering");
	t.health(1, 1, "ok", "none");
	r = doc::run(t.ctx());
	expect_first(r, "health", doc::severity::warning, "if the next ones fail too");
	assert_true(has(first(r)->detail, "neuron1: degraded (fw_not_answering)"));
	assert_int_equal(doc::exit_code(r), 1);
	// with ECC errors a reset already answered (a warning, earlier in the
	// walk): the silent firmware is still the first broken link
	t.put("/sys/class/neuron_device/neuron1/stats/hardware/sram_ecc_uncorrected", "2\n");
	t.put("/sys/class/neuron_device/neuron1/stats/fw_io/timeout_count", "3\n");
	r = doc::run(t.ctx());
	expect_first(r, "health", doc::severity::warning, "if the next ones fail too");
	assert_true(has(find(r, "ecc", doc::severity::warning)->detail, "all counted before the device's last reset"));
	assert_true(has(find(r, "fw_io", doc::severity::warning)->detail, "3 timeouts"));
	assert_int_equal(doc::exit_code(r), 1);
	t.put("/sys/class/neuron_device/neuron1/stats/hardware/sram_ecc_uncorrected", "0\n");
	t.put("/sys/class/neuron_device/neuron1/stats/fw_io/timeout_count", "0\n");

	// a failed reset is the state check's; health only points at it
	t.health(1, -1, "failed", "reset_failed");
	t.put("/sys/class/neuron_device/neuron1/state", "invalid\n");
	r = doc::run(t.ctx());
	expect_first(r, "state", doc::severity::error, "reload the driver or reboot");
	assert_true(has(find(r, "health", doc::severity::note)->detail, "see the state finding"));
	assert_null(find(r, "health", doc::severity::error));
}

static void holders(void **)
{
	tree t;
	healthy(t);
	t.holders[1] = { { 777, "sleepy", { 2, 3 } } };
	t.put("/proc/777/stat", "777 (sleepy) T 1 777 777 0 -1\n");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "holders", doc::severity::warning, "kill -CONT 777");
	assert_true(has(first(r)->detail, "pid 777 (sleepy) is stopped and holds NeuronCores 2,3"));
	assert_false(has(first(r)->action, "take-back"));	// no CORE_HOLDERS: not offered
	{
		doc::context cc = t.ctx();
		cc.list_cores = [](const doc::device &, std::vector<tools::apps::core_holding> &out,
				   std::string &) {
			out.clear();
			return true;
		};
		doc::report rc = doc::run(cc);
		expect_first(rc, "holders", doc::severity::warning,
			     "or take them back as root: neuron-ls --take-back 1:0, neuron-ls --take-back 1:1");
	}
	assert_int_equal(doc::exit_code(r), 1);

	t.put("/proc/777/stat", "777 (sleepy) Z 555 777 777 0 -1\n");
	r = doc::run(t.ctx());
	expect_first(r, "holders", doc::severity::warning, "pid 555");
	t.rm("/proc/777");
	r = doc::run(t.ctx());
	expect_first(r, "holders", doc::severity::warning, "run neuron-doctor again");
	assert_true(has(first(r)->detail, "is gone"));

	// a running holder of a core NEURON_RT_VISIBLE_CORES names
	t.holders.erase(1);
	doc::context c = t.ctx();
	c.visible_cores = "0-1";
	r = doc::run(c);
	expect_first(r, "holders", doc::severity::warning, "wait for pid 4321");
	assert_true(has(first(r)->detail, "holds NeuronCores 0, which NEURON_RT_VISIBLE_CORES names"));

	// NeuronCores whose reserver exited, kept by a forked child: the
	// child is named, with its cgroup, and the take-back is offered
	c.visible_cores.reset();
	t.holders[1] = { { 611, "", { 3 } } };
	t.put("/proc/614/stat", "614 (python3) S 1 614 614 0 -1\n");
	t.put("/proc/614/cmdline", std::string("python3\0serve.py\0", 17));
	t.put("/proc/614/cgroup", "0::/kubepods/pod-a1\n");
	c.list_cores = [](const doc::device &d, std::vector<tools::apps::core_holding> &out, std::string &) {
		out.clear();
		if (d.index != 1)
			return true;
		tools::apps::core_holding h;
		h.nc = 3;
		h.held = true;
		h.owner_pid = 611;
		h.owner_exited = true;
		h.pids = { 614 };
		h.total = 1;
		out.push_back(h);
		return true;
	};
	r = doc::run(c);
	expect_first(r, "holders", doc::severity::warning, "end it (kill 614), or take the cores back as root: neuron-ls --take-back 1:1");
	assert_string_equal(first(r)->detail.c_str(),
			    "neuron1: pid 611 has exited, but NeuronCores 3 it reserved stay held: its file is open in "
			    "pid 614 (python3 serve.py) [/kubepods/pod-a1] (a forked child keeps a reservation)");
	assert_int_equal(doc::exit_code(r), 1);
	// the same pid number reused by a running process changes nothing
	t.put("/proc/611/stat", "611 (bash) S 1 611 611 0 -1\n");
	r = doc::run(c);
	assert_true(has(first(r)->detail, "pid 611 has exited"));
	t.holders.erase(1);
	c.list_cores = nullptr;

	// a holder whose /proc entry this user cannot read (hidepid=) is not
	// called gone while it exists
	t.holders[1] = { { 555, "", { 2 } } };
	c.pid_exists = [](int pid) { return pid == 555; };
	r = doc::run(c);
	assert_true(has(find(r, "holders", doc::severity::unknown)->detail,
			"pid 555 holds NeuronCores 2; not checked: its /proc entry cannot be read here"));
	assert_null(find(r, "holders", doc::severity::warning));
	c.pid_exists = nullptr;
	t.holders.erase(1);

	// no device's processes could be listed: no OK about them
	doc::context none = c;
	none.list_holders = [](const doc::device &, std::vector<tools::apps::process> &, std::string &err) {
		err = "EACCES";
		return false;
	};
	r = doc::run(none);
	assert_null(find(r, "holders", doc::severity::ok));
	assert_non_null(find(r, "holders", doc::severity::unknown));
	// one of two: the OK says it covers the devices listed
	none.list_holders = [&t](const doc::device &d, std::vector<tools::apps::process> &out, std::string &err) {
		if (d.index == 1) {
			err = "EACCES";
			return false;
		}
		out = t.holders[d.index];
		return true;
	};
	r = doc::run(none);
	assert_true(has(find(r, "holders", doc::severity::ok)->detail, "(of the devices listed)"));

	// no process list (another --root): a note, not a failure
	c.list_holders = nullptr;
	c.visible_cores.reset();
	r = doc::run(c);
	assert_int_equal(doc::exit_code(r), 0);
	assert_non_null(find(r, "holders", doc::severity::note));
}

static void kmsg(void **)
{
	tree t;
	healthy(t);
	t.put("/dev/kmsg", "6,100,5000000,-;neuron: loaded\n"
			   "3,101,7250000,-;neuron_device neuron0: NEURON_HW_ERR=SRAM_UNCORRECTABLE_ERROR instance-id=i-1 "
			   "hostname=h nd-id=0 nc-id=-1 serial-num=ab action=TERMINATE_INSTANCE\n"
			   " SUBSYSTEM=neuron_device\n"
			   "3,102,8000001,-;neuron_device neuron0: hw_err DMA_ERROR: 4 lines suppressed\n"
			   "3,103,9500000,-;neuron_device neuron1: NEURON_HW_ERR=DMA_ERROR instance-id=i-1 "
			   "hostname=h nd-id=1 nc-id=0 serial-num=cd action=RESTART_JOB\n"
			   "3,104,9600000,-;neuron_device neuron1: NEURON_HW_ERR=HEALTH instance-id=i-1 "
			   "hostname=h nd-id=1 nc-id=-1 serial-num=cd health=ok reason=none action=NONE\n");
	doc::report r = doc::run(t.ctx());
	expect_first(r, "kmsg", doc::severity::warning, "restart the job");
	assert_true(has(first(r)->detail, "2 NEURON_HW_ERR lines in the kernel log buffer; the last: "
					  "[9.500000] neuron_device neuron1: NEURON_HW_ERR=DMA_ERROR"));
	assert_int_equal(doc::exit_code(r), 1);

	doc::context c = t.ctx();
	c.read_kmsg = false;
	r = doc::run(c);
	assert_int_equal(doc::exit_code(r), 0);
	assert_true(has(find(r, "kmsg", doc::severity::note)->detail, "--no-kmsg"));

	t.rm("/dev/kmsg");
	r = doc::run(t.ctx());
	assert_int_equal(doc::exit_code(r), 0);
	assert_true(has(find(r, "kmsg", doc::severity::note)->detail, "not read"));
}

// --json parses, and carries the first link the text names
static void json_report(void **)
{
	tree t;
	healthy(t);
	for (int broken = 0; broken < 2; broken++) {
		if (broken)
			t.node(0, 0600, 0, 0);
		doc::report r = doc::run(t.ctx());
		tools::json::value v;
		std::string doc_text = doc::to_json(r);	// the parser keeps a view of it
		tools::json::parser p(doc_text);
		if (!p.parse(v))
			fail_msg("not JSON: %s", p.error().c_str());
		assert_true(v.is_object());
		assert_string_equal(v.get("status")->str.c_str(), broken ? "error" : "ok");
		const tools::json::value *f = v.get("first");
		assert_non_null(f);
		const tools::json::value *all = v.get("findings");
		assert_true(all && all->is_array());
		assert_int_equal(all->arr.size(), r.findings.size());
		for (auto &e : all->arr)
			for (const char *key : { "check", "severity", "detail", "action" })
				assert_true(e.get(key) && e.get(key)->is_string());
		if (!broken) {
			assert_true(f->k == tools::json::value::kind::null);
			continue;
		}
		assert_true(f->is_object());
		assert_string_equal(f->get("check")->str.c_str(), "nodes");
		assert_string_equal(f->get("severity")->str.c_str(), "error");
		assert_string_equal(f->get("action")->str.c_str(), first(r)->action.c_str());
		std::string text = doc::to_text(r);
		assert_true(text.rfind("neuron-doctor: nodes: " + f->get("action")->str + "\n", 0) == 0);
	}
}

static void command_line(void **)
{
	auto parse = [](std::vector<const char *> args, doc::options &o, std::string &err) {
		args.insert(args.begin(), "neuron-doctor");
		return doc::parse_args(static_cast<int>(args.size()), const_cast<char **>(args.data()), o, err);
	};
	doc::options o;
	std::string err;
	assert_true(parse({ "--json", "--root", "/mnt/img", "--no-kmsg" }, o, err));
	assert_true(o.json && !o.kmsg && o.root == "/mnt/img" && !o.help);
	o = {};
	assert_true(parse({ "--root=/x", "-h" }, o, err));
	assert_true(o.root == "/x" && o.help);
	for (std::vector<const char *> bad : std::vector<std::vector<const char *>>{
		     { "--bogus" }, { "--root" }, { "--root=" }, { "--root", "" }, { "json" } }) {
		o = {};
		err.clear();
		assert_false(parse(bad, o, err));
		assert_false(err.empty());
		assert_true(err.find('\n') == std::string::npos);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_tree),
		cmocka_unit_test(vendor_driver),
		cmocka_unit_test(dkms_kernels),
		cmocka_unit_test(runtime_compat),
		cmocka_unit_test(module_missing),
		cmocka_unit_test(module_other_version),
		cmocka_unit_test(no_device),
		cmocka_unit_test(node_missing),
		cmocka_unit_test(node_mode),
		cmocka_unit_test(visible_cores),
		cmocka_unit_test(visible_cores_like_libnrt),
		cmocka_unit_test(device_state),
		cmocka_unit_test(ecc),
		cmocka_unit_test(fw_io),
		cmocka_unit_test(health),
		cmocka_unit_test(holders),
		cmocka_unit_test(kmsg),
		cmocka_unit_test(json_report),
		cmocka_unit_test(command_line),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
