// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor: the vendor's report stream (no --counters/--events:
// one JSON report per period, or the Prometheus companion's metrics), and
// our netlink views: the status counters of every NeuronCore and the
// "errors" event group of the "neuron" generic netlink family.
#include <ndl/ndl.h>
#include <nrt/nds/neuron_ds.h>
#include <neuron/neuron_genl.h>
#include <neuron/neuron_nq.h>

#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>
#include <thread>
#include <unistd.h>

#include "imds.hpp"
#include "monitor_vendor.hpp"

extern "C" {
#include "neuron_counters.h"
#include "neuron_names.h"
}

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace {

enum class Format { Text, Json, Prometheus };

struct Options {
	const char *config = nullptr;	// vendor mode: -c FILE
	bool counters = false;
	bool events = false;
	Format format = Format::Text;
	long count = -1;	// events to wait for; -1: forever
	long device = -1;	// --device filter
	long core = -1;		// --core (needs --device): a single "do" request
};

void usage(FILE *out)
{
	std::fputs("usage: neuron-monitor [-c|--config FILE] [--prometheus] [--count N]\n"
		   "       neuron-monitor [--counters] [--events] [--json] [--prometheus]\n"
		   "                      [--device N [--core K]] [--count N] [--help]\n"
		   "Without --counters/--events: the vendor's report stream. Every period one\n"
		   "complete JSON report on one line (neuron_runtime_data, system_data,\n"
		   "instance_info, neuron_hardware_info); per-application data from each\n"
		   "process's NDS slab, read-only, as deltas over the period (an application\n"
		   "is tagged by NEURON_PROCESS_TAG, else its pid).\n"
		   "  -c, --config FILE  the vendor's configuration (period, neuron_runtimes with\n"
		   "                tag_filter and metrics, system_metrics); default: every\n"
		   "                metric group every 5 s\n"
		   "  --prometheus  instead of JSON, the Prometheus companion's metrics in the\n"
		   "                text exposition format, one block per period, blank line after\n"
		   "  --count N     stop after N reports (default: run until killed)\n"
		   "instance_info comes from the EC2 instance metadata service, asked once at\n"
		   "start (IMDSv2, else IMDSv1; at most 3 s); NEURON_MONITOR_IMDS_ADDR=IPv4:PORT\n"
		   "asks another address than 169.254.169.254:80 (tests).\n"
		   "With --counters/--events: the \"neuron\" generic netlink family; on a\n"
		   "driver without it (the vendor's), --counters reads the same totals from\n"
		   "sysfs and --events fails.\n"
		   "  --counters    the 24 status counters of every NeuronCore, live totals\n"
		   "  --events      subscribe to the \"errors\" group, one line per event;\n"
		   "                \"neuron-monitor: subscribed\" goes to stderr once listening\n"
		   "  --json        JSON (counters: one object; events: one object per line)\n"
		   "  --prometheus  counters in Prometheus text exposition format\n"
		   "  --device N    only /dev/neuron<N>;  --core K  only its NeuronCore K\n"
		   "  --count N     with --events: exit after N events\n"
		   "Exit status: 0 ok, 1 a netlink or kernel error (one line on stderr),\n"
		   "2 bad usage.\n",
		   out);
}

bool parse_num(const char *s, long max, long *out)
{
	char *end;
	errno = 0;
	long v = std::strtol(s, &end, 0);
	if (errno || end == s || *end || v < 0 || v > max)
		return false;
	*out = v;
	return true;
}

const char *tpb_name(uint32_t code)
{
	return code < NEURON_TPB_ERROR_COUNT ? neuron_tpb_error_names[code] : "unknown";
}

const char *hw_name(uint32_t code)
{
	return code && code < NEURON_NQ_HW_COUNT ? neuron_hw_fault_words[code] : "unknown";
}

const char *kind_name(uint32_t kind)
{
	switch (kind) {
	case NEURON_GENL_EVENT_TPB_ERROR:
		return "tpb_error";
	case NEURON_GENL_EVENT_HW_ERROR:
		return "hw_error";
	case NEURON_GENL_EVENT_NQ_FLOOD:
		return "nq_flood";
	default:
		return "unknown";
	}
}

// What one request/receive loop ended with: a kernel errno with its extack
// text, or a libnl error; translated to one message at the edge.
struct Ctx {
	const Options *opt;
	bool done = false;
	int kernel_err = 0;	// positive errno from an NLMSG_ERROR
	std::string extack;
	long rows = 0;
	long events = 0;
};

// The extack TLVs of an NLMSG_ERROR or NLMSG_DONE message start @off bytes
// into its payload; keep the message text.
void take_extack(Ctx *ctx, const struct nlmsghdr *nlh, size_t off)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	size_t len = nlh->nlmsg_len - NLMSG_HDRLEN;
	if (off >= len)
		return;
	auto *a = reinterpret_cast<struct nlattr *>(
		reinterpret_cast<char *>(const_cast<struct nlmsghdr *>(nlh)) + NLMSG_HDRLEN + off);
	int left;
	struct nlattr *pos;
	nla_for_each_attr(pos, a, static_cast<int>(len - off), left) {
		if (nla_type(pos) == NLMSGERR_ATTR_MSG && nla_len(pos) > 0)
			ctx->extack.assign(static_cast<const char *>(nla_data(pos)),
					   strnlen(static_cast<const char *>(nla_data(pos)),
						   nla_len(pos)));
	}
}

int on_error(struct sockaddr_nl *, struct nlmsgerr *e, void *arg)
{
	auto *ctx = static_cast<Ctx *>(arg);
	ctx->kernel_err = -e->error;
	ctx->done = true;
	auto *nlh = reinterpret_cast<struct nlmsghdr *>(reinterpret_cast<char *>(e) - NLMSG_HDRLEN);
	size_t off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	take_extack(ctx, nlh, off);
	return NL_STOP;
}

// NLMSG_DONE: a dump that failed part way carries a negative errno (and
// extack) in its payload.
int on_finish(struct nl_msg *msg, void *arg)
{
	auto *ctx = static_cast<Ctx *>(arg);
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	ctx->done = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		int err;
		std::memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0) {
			ctx->kernel_err = -err;
			take_extack(ctx, nlh, sizeof(int));
		}
	}
	return NL_STOP;
}

int on_ack(struct nl_msg *, void *arg)
{
	static_cast<Ctx *>(arg)->done = true;
	return NL_STOP;
}

struct nla_policy *policy()
{
	static struct nla_policy p[NEURON_GENL_A_MAX + 1];
	static bool init;
	if (!init) {
		p[NEURON_GENL_A_DEVICE].type = NLA_U32;
		p[NEURON_GENL_A_NC].type = NLA_U32;
		p[NEURON_GENL_A_COUNTER].type = NLA_NESTED;
		p[NEURON_GENL_A_COUNTER_NAME].type = NLA_STRING;
		p[NEURON_GENL_A_COUNTER_ID].type = NLA_U32;
		p[NEURON_GENL_A_TOTAL].type = NLA_U64;
		p[NEURON_GENL_A_EVENT_KIND].type = NLA_U32;
		p[NEURON_GENL_A_ERROR_CODE].type = NLA_U32;
		p[NEURON_GENL_A_TIMESTAMP_NS].type = NLA_U64;
		p[NEURON_GENL_A_COUNT].type = NLA_U32;
		p[NEURON_GENL_A_HEALTH].type = NLA_U32;
		p[NEURON_GENL_A_HEALTH_REASON].type = NLA_U32;
		p[NEURON_GENL_A_HEALTH_PREV].type = NLA_U32;
		p[NEURON_GENL_A_SIMULATED].type = NLA_FLAG;
		init = true;
	}
	return p;
}

// One --counters row in the chosen format (@rows printed before it: the
// JSON separator); from the netlink reply or from sysfs alike.
void print_counter(const Options &opt, long rows, unsigned dev, unsigned nc, const char *name,
		   unsigned id, unsigned long long total, bool sim)
{
	switch (opt.format) {
	case Format::Text:
		std::printf("%-6u %-4u %-34s %4u %llu\n", dev, nc, name, id, total);
		break;
	case Format::Json:
		std::printf("%s{\"device\": %u, \"core\": %u, \"counter\": \"%s\", "
			    "\"id\": %u, \"total\": %llu}",
			    rows ? ", " : "", dev, nc, name, id, total);
		break;
	case Format::Prometheus:
		std::printf("neuron_status_total{device=\"%u\",core=\"%u\",counter=\"%s\"%s} %llu\n", dev, nc,
			    name, sim ? ",simulated=\"1\"" : "", total);
		break;
	}
}

int on_counters(struct nl_msg *msg, void *arg)
{
	auto *ctx = static_cast<Ctx *>(arg);
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[NEURON_GENL_A_MAX + 1];
	if (genlmsg_parse(nlh, 0, tb, NEURON_GENL_A_MAX, policy()) < 0 ||
	    !tb[NEURON_GENL_A_DEVICE] || !tb[NEURON_GENL_A_NC])
		return NL_SKIP;
	uint32_t dev = nla_get_u32(tb[NEURON_GENL_A_DEVICE]);
	uint32_t nc = nla_get_u32(tb[NEURON_GENL_A_NC]);
	// a simulated device's series say so: nothing alerts on them as on hardware
	bool sim = tb[NEURON_GENL_A_SIMULATED];

	struct nlattr *pos;
	int rem;
	nla_for_each_attr(pos, genlmsg_attrdata(static_cast<struct genlmsghdr *>(nlmsg_data(nlh)), 0),
			  genlmsg_attrlen(static_cast<struct genlmsghdr *>(nlmsg_data(nlh)), 0), rem) {
		if (nla_type(pos) != NEURON_GENL_A_COUNTER)
			continue;
		struct nlattr *c[NEURON_GENL_A_MAX + 1];
		if (nla_parse_nested(c, NEURON_GENL_A_MAX, pos, policy()) < 0 ||
		    !c[NEURON_GENL_A_COUNTER_NAME] || !c[NEURON_GENL_A_TOTAL])
			continue;
		print_counter(*ctx->opt, ctx->rows, dev, nc, nla_get_string(c[NEURON_GENL_A_COUNTER_NAME]),
			      c[NEURON_GENL_A_COUNTER_ID] ? nla_get_u32(c[NEURON_GENL_A_COUNTER_ID]) : 0,
			      nla_get_u64(c[NEURON_GENL_A_TOTAL]), sim);
		ctx->rows++;
	}
	return NL_OK;
}

// enum neuron_health_state / _reason as sysfs health and health_reason read them
const char *health_name(uint32_t s)
{
	static const char *const n[] = { "ok", "degraded", "needs_reset", "failed" };
	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "unknown";
}

const char *health_reason_name(uint32_t r)
{
	static const char *const n[] = { "none", "reset_in_progress", "fw_not_answering",
					 "nc_unrecoverable", "hbm_uncorrectable",
					 "sram_uncorrectable", "reset_failed" };
	return r < sizeof(n) / sizeof(n[0]) ? n[r] : "unknown";
}

// A HEALTH_EVENT: the device's (no NC) or a NeuronCore's health changed.
void print_health(const Options &opt, struct nlattr **tb)
{
	auto u32 = [&](int a) { return tb[a] ? nla_get_u32(tb[a]) : 0u; };
	unsigned long long ts = tb[NEURON_GENL_A_TIMESTAMP_NS] ?
		nla_get_u64(tb[NEURON_GENL_A_TIMESTAMP_NS]) : 0;
	std::string core = tb[NEURON_GENL_A_NC] ? std::to_string(u32(NEURON_GENL_A_NC)) : "";
	const char *now = health_name(u32(NEURON_GENL_A_HEALTH));
	const char *why = health_reason_name(u32(NEURON_GENL_A_HEALTH_REASON));
	const char *prev = health_name(u32(NEURON_GENL_A_HEALTH_PREV));
	bool sim = tb[NEURON_GENL_A_SIMULATED];
	if (opt.format == Format::Json)
		std::printf("{\"device\": %u, \"core\": %s, \"kind\": \"health\", \"health\": \"%s\", "
			    "\"reason\": \"%s\", \"previous\": \"%s\", \"simulated\": %s, "
			    "\"timestamp_ns\": %llu}\n",
			    u32(NEURON_GENL_A_DEVICE), core.empty() ? "null" : core.c_str(), now, why,
			    prev, sim ? "true" : "false", ts);
	else
		std::printf("device %u%s%s health %s reason %s previous %s%s ts_ns %llu\n",
			    u32(NEURON_GENL_A_DEVICE), core.empty() ? "" : " core ", core.c_str(),
			    now, why, prev, sim ? " simulated" : "", ts);
}

int on_event(struct nl_msg *msg, void *arg)
{
	auto *ctx = static_cast<Ctx *>(arg);
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	auto *gh = static_cast<struct genlmsghdr *>(nlmsg_data(nlh));
	struct nlattr *tb[NEURON_GENL_A_MAX + 1];
	if ((gh->cmd != NEURON_GENL_CMD_ERROR_EVENT && gh->cmd != NEURON_GENL_CMD_HEALTH_EVENT) ||
	    genlmsg_parse(nlh, 0, tb, NEURON_GENL_A_MAX, policy()) < 0)
		return NL_SKIP;
	auto u32 = [&](int a) { return tb[a] ? nla_get_u32(tb[a]) : 0u; };
	// one event printed: stop once --count of them have been
	auto printed = [ctx] {
		std::fflush(stdout);
		ctx->events++;
		if (ctx->opt->count >= 0 && ctx->events >= ctx->opt->count) {
			ctx->done = true;
			return NL_STOP;
		}
		return NL_OK;
	};
	if (gh->cmd == NEURON_GENL_CMD_HEALTH_EVENT) {
		print_health(*ctx->opt, tb);
		return printed();
	}
	uint32_t kind = u32(NEURON_GENL_A_EVENT_KIND), code = u32(NEURON_GENL_A_ERROR_CODE);
	const char *name = kind == NEURON_GENL_EVENT_HW_ERROR ? hw_name(code) : tpb_name(code);
	unsigned long long ts = tb[NEURON_GENL_A_TIMESTAMP_NS] ?
		nla_get_u64(tb[NEURON_GENL_A_TIMESTAMP_NS]) : 0;
	bool sim = tb[NEURON_GENL_A_SIMULATED];
	if (ctx->opt->format == Format::Json)
		std::printf("{\"device\": %u, \"core\": %u, \"kind\": \"%s\", \"code\": %u, "
			    "\"name\": \"%s\", \"count\": %u, \"simulated\": %s, \"timestamp_ns\": %llu}\n",
			    u32(NEURON_GENL_A_DEVICE), u32(NEURON_GENL_A_NC), kind_name(kind), code,
			    name, u32(NEURON_GENL_A_COUNT), sim ? "true" : "false", ts);
	else
		std::printf("device %u core %u %s %s(%u) count %u%s ts_ns %llu\n",
			    u32(NEURON_GENL_A_DEVICE), u32(NEURON_GENL_A_NC), kind_name(kind), name,
			    code, u32(NEURON_GENL_A_COUNT), sim ? " simulated" : "", ts);
	return printed();
}

// One line for a failure: the kernel's errno and extack text, or libnl's.
int report(const char *what, const Ctx &ctx, int nl_err)
{
	if (ctx.kernel_err)
		std::fprintf(stderr, "neuron-monitor: %s: %s%s%s\n", what, std::strerror(ctx.kernel_err),
			     ctx.extack.empty() ? "" : ": ", ctx.extack.c_str());
	else
		std::fprintf(stderr, "neuron-monitor: %s: %s\n", what, nl_geterror(nl_err));
	return 1;
}

int receive(struct nl_sock *sk, Ctx &ctx)
{
	while (!ctx.done) {
		int r = nl_recvmsgs_default(sk);
		if (ctx.kernel_err)
			return -NLE_FAILURE;
		if (r < 0)
			return r;
	}
	return 0;
}

void counters_header(const Options &opt)
{
	if (opt.format == Format::Text)
		std::printf("%-6s %-4s %-34s %4s %s\n", "DEVICE", "CORE", "COUNTER", "ID", "TOTAL");
	else if (opt.format == Format::Json)
		std::printf("{\"counters\": [");
	else
		std::printf("# HELP neuron_status_total Status counter of a NeuronCore "
			    "(stats/status/<counter>/total).\n# TYPE neuron_status_total counter\n");
}

int dump_counters(struct nl_sock *sk, int family, const Options &opt)
{
	Ctx ctx;
	ctx.opt = &opt;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_counters, &ctx);
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &ctx);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &ctx);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_error, &ctx);

	struct nl_msg *msg = nlmsg_alloc();
	if (!msg)
		return report("counters", ctx, -NLE_NOMEM);
	int flags = opt.core >= 0 ? 0 : NLM_F_DUMP;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags,
			 NEURON_GENL_CMD_COUNTERS_GET, NEURON_GENL_VERSION) ||
	    (opt.device >= 0 && nla_put_u32(msg, NEURON_GENL_A_DEVICE, opt.device) < 0) ||
	    (opt.core >= 0 && nla_put_u32(msg, NEURON_GENL_A_NC, opt.core) < 0)) {
		nlmsg_free(msg);
		return report("counters", ctx, -NLE_NOMEM);
	}
	counters_header(opt);
	int r = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (r >= 0)
		r = receive(sk, ctx);
	if (opt.format == Format::Json)
		std::printf("]}\n");
	std::fflush(stdout);
	if (r < 0 || ctx.kernel_err)
		return report("counters", ctx, r);
	return 0;
}

int watch_events(struct nl_sock *sk, const Options &opt)
{
	Ctx ctx;
	ctx.opt = &opt;
	int grp = genl_ctrl_resolve_grp(sk, NEURON_GENL_FAMILY_NAME, NEURON_GENL_MCGRP_ERRORS);
	if (grp < 0)
		return report("resolve group " NEURON_GENL_MCGRP_ERRORS, ctx, grp);
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, &ctx);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_error, &ctx);
	int r = nl_socket_add_membership(sk, grp);
	if (r < 0)
		return report("subscribe", ctx, r);
	std::fprintf(stderr, "neuron-monitor: subscribed to %s/%s\n", NEURON_GENL_FAMILY_NAME,
		     NEURON_GENL_MCGRP_ERRORS);
	std::fflush(stderr);
	if (opt.count == 0)
		return 0;
	r = receive(sk, ctx);
	if (r < 0)
		return report("events", ctx, r);
	return 0;
}


// ---- the vendor's report stream ----------------------------------------------
namespace vendor {

namespace m = tools::monitor;

std::string read_text(const std::string &path)
{
	std::ifstream f(path);
	return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::string first_line(const std::string &path)
{
	std::ifstream f(path);
	std::string l;
	std::getline(f, l);
	return l;
}

bool read_u64(const std::string &path, uint64_t &v)
{
	std::ifstream f(path);
	return static_cast<bool>(f >> v);
}

std::string sysfs_dev(int index)
{
	return "/sys/class/neuron_device/neuron" + std::to_string(index);
}

// --counters without the netlink family (the vendor's driver, or this one
// with vendor_only): the same rows from each NeuronCore's
// stats/status/<counter>/total, devices and cores in index order.
int sysfs_counters(const Options &opt)
{
	std::vector<int> devs;
	for (int i = 0; i < MAX_NEURON_DEVICE_COUNT; i++)
		if ((opt.device < 0 || opt.device == i) && ::access(sysfs_dev(i).c_str(), F_OK) == 0)
			devs.push_back(i);
	if (devs.empty()) {
		std::fprintf(stderr, "neuron-monitor: %s\n",
			     opt.device >= 0 ? "no such device" : "no neuron device in sysfs (is neuron.ko loaded?)");
		return 1;
	}
	counters_header(opt);
	long rows = 0;
	for (int dev : devs) {
		const std::string dir = sysfs_dev(dev);
		const bool sim = first_line(dir + "/info/architecture/arch_type").rfind("NDsim", 0) == 0;
		for (int nc = 0; nc < MAX_NC_PER_DEVICE; nc++) {
			if (opt.core >= 0 && opt.core != nc)
				continue;
			const std::string cdir = dir + "/neuron_core" + std::to_string(nc) + "/stats/status/";
			if (::access(cdir.c_str(), F_OK) != 0)
				continue;
			for (const neuron_status_attr &a : neuron_status_attrs) {
				uint64_t total = 0;
				if (!read_u64(cdir + a.name + "/total", total)) {
					if (opt.format == Format::Json)
						std::printf("]}\n");
					std::fflush(stdout);
					std::fprintf(stderr, "neuron-monitor: %s%s/total: cannot read it\n",
						     cdir.c_str(), a.name);
					return 1;
				}
				print_counter(opt, rows, static_cast<unsigned>(dev), static_cast<unsigned>(nc), a.name,
					      a.counter, total, sim);
				rows++;
			}
		}
	}
	if (opt.format == Format::Json)
		std::printf("]}\n");
	std::fflush(stdout);
	if (opt.core >= 0 && !rows) {
		std::fprintf(stderr, "neuron-monitor: no such NeuronCore\n");
		return 1;
	}
	return 0;
}

// Every application's NDS counters now, summed over the devices it has a
// slab on. Processes without a slab (tools, this monitor) are no runtime.
std::map<int, m::app_sample> collect_apps(std::string &err)
{
	std::map<int, m::app_sample> apps;
	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	int first_nc = 0;
	for (int i = 0; i < n && i < MAX_NEURON_DEVICE_COUNT; i++) {
		ndl_device_t *dev = nullptr;
		if (ndl_open_device(idx[i], nullptr, &dev) != 0) {
			err = "cannot open /dev/neuron" + std::to_string(idx[i]);
			continue;
		}
		uint32_t ncs = ndl_device_get_info(dev)->nc_count;
		neuron_app_info *info = nullptr;
		size_t count = 0;
		if (ndl_get_all_apps_info(dev, &info, &count, APP_INFO_PID_NC_LOCK_INFO) != 0) {
			err = "cannot list the processes of /dev/neuron" + std::to_string(idx[i]);
			count = 0;
		}
		for (size_t k = 0; k < count; k++) {
			int pid = info[k].pid;
			if (pid == ::getpid())
				continue;
			nds_instance_t *inst = nullptr;
			if (nds_open(dev, pid, &inst) != 0)
				continue;
			m::app_sample &a = apps[pid];
			a.pid = pid;
			char tag[NDS_PROCESS_TAG_MAX + 1];
			if (a.tag.empty() && nds_get_process_tag(inst, tag, sizeof(tag)) > 0)
				a.tag = tag;
			for (uint32_t nc = 0; nc < ncs; nc++) {
				m::nc_counters &c = a.nc[first_nc + static_cast<int>(nc)];
				for (uint32_t id = 0; id < NEURON_NDS_ID_COUNT; id++) {
					uint64_t v = 0;
					nds_get_nc_counter(inst, static_cast<int>(nc), id, &v);
					c[id] += v;
				}
				if (info[k].nc_lock_map & (1u << nc))
					a.held.insert(first_nc + static_cast<int>(nc));
			}
			for (uint32_t id = 0; id < NEURON_NDS_ND_COUNT; id++) {
				uint64_t v = 0;
				nds_get_nd_counter(inst, id, &v);
				a.nd[id] += v;
			}
			// the latency histograms, where the runtime keeps them
			for (unsigned kind = 0; kind < NDS_LATENCY_KINDS; kind++) {
				m::latency_hist h;
				if (nds_get_latency(inst, kind, h.data()) != 0)
					break;
				a.has_latency = true;
				for (size_t b = 0; b < h.size(); b++)
					a.latency[kind][b] += h[b];
			}
			nds_close(inst);
		}
		std::free(info);
		first_nc += static_cast<int>(ncs);
		ndl_close_device(dev);
	}
	for (auto &[pid, a] : apps) {
		if (a.tag.empty())
			a.tag = std::to_string(pid);
		// utime, stime: fields 14 and 15, after the ")" that ends comm
		std::string st = read_text("/proc/" + std::to_string(pid) + "/stat");
		size_t p = st.rfind(')');
		if (p == std::string::npos) {
			a.error = "cannot read /proc/" + std::to_string(pid) + "/stat";
			continue;
		}
		std::istringstream in(st.substr(p + 2));
		std::string f;
		for (int field = 3; field <= 15 && in >> f; field++) {
			if (field == 14)
				a.utime = std::strtoull(f.c_str(), nullptr, 10);
			if (field == 15)
				a.stime = std::strtoull(f.c_str(), nullptr, 10);
		}
	}
	return apps;
}

std::vector<m::device_hw> collect_hw(std::string &err)
{
	std::vector<m::device_hw> hw;
	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	for (int i = 0; i < n && i < MAX_NEURON_DEVICE_COUNT; i++) {
		m::device_hw h;
		h.index = idx[i];
		std::string d = sysfs_dev(idx[i]) + "/stats/hardware/";
		if (!read_u64(d + "mem_ecc_uncorrected", h.mem_ecc_uncorrected) ||
		    !read_u64(d + "sram_ecc_uncorrected", h.sram_ecc_uncorrected))
			err = "cannot read " + d;
		// the corrected counts are this driver's files (not the vendor's)
		bool mem = ::access((d + "mem_ecc_corrected").c_str(), F_OK) == 0;
		bool sram = ::access((d + "sram_ecc_corrected").c_str(), F_OK) == 0;
		h.corrected_known = mem && sram;
		if (h.corrected_known && (!read_u64(d + "mem_ecc_corrected", h.mem_ecc_corrected) ||
					  !read_u64(d + "sram_ecc_corrected", h.sram_ecc_corrected)))
			err = "cannot read " + d;
		h.simulated = first_line(sysfs_dev(idx[i]) + "/info/architecture/arch_type").rfind("NDsim", 0) == 0;
		// a driver without health files: no health series
		h.health = first_line(sysfs_dev(idx[i]) + "/health");
		h.health_reason = first_line(sysfs_dev(idx[i]) + "/health_reason");
		hw.push_back(h);
	}
	return hw;
}

std::vector<m::cpu_times> collect_cpus(std::string &err)
{
	std::vector<m::cpu_times> cpus;
	std::ifstream f("/proc/stat");
	std::string line;
	while (std::getline(f, line)) {
		if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] == ' ')
			continue;	// "cpuN" lines only
		std::istringstream in(line);
		std::string name;
		m::cpu_times c;
		in >> name >> c.user >> c.nice >> c.system >> c.idle >> c.io_wait >> c.irq >> c.soft_irq;
		cpus.push_back(c);
	}
	if (cpus.empty())
		err = "cannot read /proc/stat";
	return cpus;
}

void collect_mem(m::system_sample &s)
{
	std::ifstream f("/proc/meminfo");
	std::string key;
	uint64_t v, total = 0, avail = 0, st = 0, sf = 0;
	std::string unit;
	bool got = false;
	while (f >> key >> v) {
		std::getline(f, unit);
		if (key == "MemTotal:")
			total = v, got = true;
		else if (key == "MemAvailable:")
			avail = v;
		else if (key == "SwapTotal:")
			st = v;
		else if (key == "SwapFree:")
			sf = v;
	}
	if (!got) {
		s.mem_error = "cannot read /proc/meminfo";
		return;
	}
	s.mem_total = total * 1024;
	s.mem_used = (total - std::min(avail, total)) * 1024;
	s.swap_total = st * 1024;
	s.swap_used = (st - std::min(sf, st)) * 1024;
}

m::hardware_info collect_hwinfo()
{
	m::hardware_info h;
	int idx[MAX_NEURON_DEVICE_COUNT];
	int n = ndl_available_devices(idx, MAX_NEURON_DEVICE_COUNT);
	h.device_count = n > 0 ? n : 0;
	if (n <= 0) {
		h.error = "no Neuron device";
		return h;
	}
	std::string d = sysfs_dev(idx[0]);
	std::string name = first_line(d + "/info/architecture/device_name");
	for (char &c : name)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	h.device_type = name;
	std::string arch = first_line(d + "/info/architecture/arch_type");
	h.device_version = arch.rfind("ND", 0) == 0 ? arch.substr(2) : arch;
	std::string nca = first_line(d + "/neuron_core0/info/architecture/arch_type");
	h.neuroncore_version = nca.rfind("NC", 0) == 0 ? nca.substr(2) : nca;
	uint64_t ncs = 0;
	read_u64(d + "/core_count", ncs);
	h.nc_per_device = static_cast<int>(ncs);
	return h;
}

// The instance metadata service's answer, asked once (it does not change
// while the instance runs); when the service is unreachable, the instance id
// is the DMI board asset tag if it is one.
m::instance_info collect_instance()
{
	const char *env = std::getenv(tools::imds::kAddrEnv);
	tools::imds::instance q = tools::imds::query(env && *env ? env : tools::imds::kDefaultAddr);
	m::instance_info i;
	i.name = q.name;
	i.id = q.id;
	i.type = q.type;
	i.az = q.az;
	i.az_id = q.az_id;
	i.region = q.region;
	i.ami_id = q.ami_id;
	i.subnet_id = q.subnet_id;
	i.error = q.error;
	if (!q.reachable && i.id.empty()) {
		std::string tag = first_line("/sys/devices/virtual/dmi/id/board_asset_tag");
		while (!tag.empty() && std::isspace(static_cast<unsigned char>(tag.back())))
			tag.pop_back();
		if (tag.rfind("i-", 0) == 0)
			i.id = tag;
	}
	return i;
}

volatile std::sig_atomic_t g_stop;

void on_signal(int)
{
	g_stop = 1;
}

int run(const Options &opt)
{
	m::config cfg = m::default_config();
	if (opt.config) {
		std::ifstream f(opt.config);
		if (!f) {
			std::fprintf(stderr, "neuron-monitor: cannot read %s: %s\n", opt.config,
				     std::strerror(errno));
			return 1;
		}
		std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
		std::string err;
		if (!m::parse_config(text, cfg, err)) {
			std::fprintf(stderr, "neuron-monitor: %s: %s\n", opt.config, err.c_str());
			return 1;
		}
	}
	if (::access("/sys/class/neuron_device", F_OK) != 0) {
		std::fprintf(stderr, "neuron-monitor: no Neuron driver: /sys/class/neuron_device is missing (is neuron.ko loaded?)\n");
		return 1;
	}
	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);

	std::string err;
	std::map<int, m::app_sample> prev_apps;	// no baseline: the first report counts from 0
	std::vector<m::device_hw> prev_hw = collect_hw(err);
	std::vector<m::cpu_times> prev_cpu = collect_cpus(err);
	m::prometheus prom;
	auto period = std::chrono::duration<double>(cfg.period_s);
	auto next = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
	// once, while the first period runs (bounded: tools::imds::kTokenTimeoutMs
	// for the token, kQueryTimeoutMs for the rest)
	const m::instance_info inst = collect_instance();
	for (long reports = 0; opt.count < 0 || reports < opt.count; reports++) {
		while (!g_stop && std::chrono::steady_clock::now() < next)
			std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
				next - std::chrono::steady_clock::now(), std::chrono::milliseconds(100)));
		if (g_stop)
			break;
		next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);

		m::report r;
		r.period_s = cfg.period_s;
		std::string apps_err;
		std::map<int, m::app_sample> cur = collect_apps(apps_err);
		for (auto &[pid, a] : cur) {
			auto it = prev_apps.find(pid);
			m::app_sample d = m::delta(a, it == prev_apps.end() ? nullptr : &it->second);
			for (const m::runtime_group &g : cfg.runtimes) {
				if (std::regex_search(d.tag, g.re)) {
					r.apps.emplace_back(&g, std::move(d));
					break;
				}
			}
		}
		prev_apps = std::move(cur);

		std::string hw_err = apps_err;
		std::vector<m::device_hw> hw = collect_hw(hw_err);
		for (m::device_hw &h : hw) {
			for (const m::device_hw &p : prev_hw) {
				if (p.index != h.index)
					continue;
				m::device_hw d = h;
				auto sub = [](uint64_t a, uint64_t b) { return a >= b ? a - b : a; };
				d.mem_ecc_corrected = sub(h.mem_ecc_corrected, p.mem_ecc_corrected);
				d.mem_ecc_uncorrected = sub(h.mem_ecc_uncorrected, p.mem_ecc_uncorrected);
				d.sram_ecc_corrected = sub(h.sram_ecc_corrected, p.sram_ecc_corrected);
				d.sram_ecc_uncorrected = sub(h.sram_ecc_uncorrected, p.sram_ecc_uncorrected);
				r.sys.hw.push_back(d);
			}
		}
		prev_hw = std::move(hw);
		r.sys.hw_error = hw_err;
		std::vector<m::cpu_times> cpus = collect_cpus(r.sys.cpu_error);
		for (size_t i = 0; i < cpus.size() && i < prev_cpu.size(); i++)
			r.sys.cpus.push_back(cpus[i] - prev_cpu[i]);
		prev_cpu = std::move(cpus);
		collect_mem(r.sys);
		r.hwinfo = collect_hwinfo();
		r.inst = inst;

		if (opt.format == Format::Prometheus) {
			prom.add(cfg, r);
			std::printf("%s\n", prom.text().c_str());
		} else {
			std::printf("%s\n", m::report_json(cfg, r).c_str());
		}
		if (std::fflush(stdout) != 0)
			return 1;
	}
	return 0;
}

} // namespace vendor

} // namespace

int main(int argc, char **argv)
{
	Options opt;
	for (int i = 1; i < argc; i++) {
		std::string_view a = argv[i];
		auto num = [&](long max, long *out) {
			if (i + 1 >= argc || !parse_num(argv[i + 1], max, out)) {
				std::fprintf(stderr, "neuron-monitor: %s needs a number 0..%ld (see --help)\n",
					     argv[i], max);
				return false;
			}
			i++;
			return true;
		};
		if (a == "-c" || a == "--config") {
			if (i + 1 >= argc) {
				std::fprintf(stderr, "neuron-monitor: %s needs a file (see --help)\n", argv[i]);
				return 2;
			}
			opt.config = argv[++i];
		} else if (a == "--counters") {
			opt.counters = true;
		} else if (a == "--events") {
			opt.events = true;
		} else if (a == "--json") {
			opt.format = Format::Json;
		} else if (a == "--prometheus") {
			opt.format = Format::Prometheus;
		} else if (a == "--count") {
			if (!num(1L << 30, &opt.count))
				return 2;
		} else if (a == "--device") {
			if (!num(UINT32_MAX, &opt.device))
				return 2;
		} else if (a == "--core") {
			if (!num(UINT32_MAX, &opt.core))
				return 2;
		} else if (a == "--help" || a == "-h") {
			usage(stdout);
			return 0;
		} else {
			std::fprintf(stderr, "neuron-monitor: unknown argument '%s' (see --help)\n", argv[i]);
			return 2;
		}
	}
	if (!opt.counters && !opt.events)
		return vendor::run(opt);
	if (opt.config) {
		std::fprintf(stderr, "neuron-monitor: -c applies to the report stream, not --counters/--events\n");
		return 2;
	}
	if (opt.core >= 0 && opt.device < 0) {
		std::fprintf(stderr, "neuron-monitor: --core needs --device\n");
		return 2;
	}
	if (opt.events && opt.format == Format::Prometheus) {
		std::fprintf(stderr, "neuron-monitor: --prometheus applies to --counters only\n");
		return 2;
	}

	struct nl_sock *sk = nl_socket_alloc();
	if (!sk) {
		std::fprintf(stderr, "neuron-monitor: %s\n", nl_geterror(-NLE_NOMEM));
		return 1;
	}
	int rc = 0;
	int r = genl_connect(sk);
	if (r < 0) {
		std::fprintf(stderr, "neuron-monitor: connect: %s\n", nl_geterror(r));
		nl_socket_free(sk);
		return 1;
	}
	int one = 1;
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	int family = genl_ctrl_resolve(sk, NEURON_GENL_FAMILY_NAME);
	// a driver without the family (the vendor's, or vendor_only): the
	// counters from sysfs; events exist only as this driver's extension
	if (family == -NLE_OBJ_NOTFOUND && ::access("/sys/class/neuron_device", F_OK) == 0) {
		nl_socket_free(sk);
		if (opt.events) {
			std::fprintf(stderr, "neuron-monitor: --events: the driver has no \"%s\" generic netlink "
				     "family (the vendor's driver, or vendor_only=1): no error events to watch\n",
				     NEURON_GENL_FAMILY_NAME);
			return 1;
		}
		return vendor::sysfs_counters(opt);
	}
	if (family < 0) {
		std::fprintf(stderr, "neuron-monitor: generic netlink family \"%s\": %s%s\n",
			     NEURON_GENL_FAMILY_NAME, nl_geterror(family),
			     family == -NLE_OBJ_NOTFOUND ? " (is neuron.ko loaded?)" : "");
		nl_socket_free(sk);
		return 1;
	}
	if (opt.counters)
		rc = dump_counters(sk, family, opt);
	if (!rc && opt.events)
		rc = watch_events(sk, opt);
	nl_socket_free(sk);
	return rc;
}
