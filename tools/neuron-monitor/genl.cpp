// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor's netlink views (genl.hpp): the status counters of every
// NeuronCore and the "errors" event group of the "neuron" generic netlink
// family, and the same counters from sysfs on a driver without the family.
#include "genl.hpp"

#include <ndl/ndl.h>
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
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <unistd.h>

#include "sysfs.hpp"

extern "C" {
#include "neuron_counters.h"
#include "neuron_escape.h"
#include "neuron_health_lib.h"
#include "neuron_json.h"
#include "neuron_names.h"
}

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace tools::monitor::genl {

namespace {

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
		p[NEURON_GENL_A_ACTION].type = NLA_U32;
		p[NEURON_GENL_A_PID].type = NLA_U32;
		p[NEURON_GENL_A_COMM].type = NLA_STRING;
		p[NEURON_GENL_A_SEQ].type = NLA_U64;
		p[NEURON_GENL_A_DROPPED].type = NLA_U64;
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
	case Format::Json: {
		// the kernel's names are identifiers; quoted all the same
		char q[192];
		if (neuron_json_quote(q, sizeof(q), name, std::strlen(name)) >= sizeof(q))
			std::snprintf(q, sizeof(q), "\"?\"");
		std::printf("%s{\"device\": %u, \"core\": %u, \"counter\": %s, "
			    "\"id\": %u, \"total\": %llu}",
			    rows ? ", " : "", dev, nc, q, id, total);
		break;
	}
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

// What every event carries after its own fields (docs/recovery.md): the
// recovery action, the sequence number, the drops so far and the process
// when there is one, as text words (the name escaped) or JSON members.
std::string event_tail(const Options &opt, struct nlattr **tb)
{
	auto u64 = [&](int a) { return tb[a] ? (unsigned long long)nla_get_u64(tb[a]) : 0ull; };
	const char *action = neuron_action_name(tb[NEURON_GENL_A_ACTION] ?
						nla_get_u32(tb[NEURON_GENL_A_ACTION]) : ~0u);
	const char *comm = tb[NEURON_GENL_A_COMM] ? nla_get_string(tb[NEURON_GENL_A_COMM]) : "";
	bool proc = tb[NEURON_GENL_A_PID];
	char buf[320];
	if (opt.format == Format::Json) {
		// a name of at most 15 bytes, each at most 6 quoted, and the quotes
		char q[6 * 16 + 3] = "null";
		char pid[16] = "null";
		if (proc) {
			std::snprintf(pid, sizeof(pid), "%u", nla_get_u32(tb[NEURON_GENL_A_PID]));
			// a name longer than the kernel's 15 bytes is not the kernel's: null
			if (neuron_json_quote(q, sizeof(q), comm, std::strlen(comm)) >= sizeof(q))
				std::snprintf(q, sizeof(q), "null");
		}
		std::snprintf(buf, sizeof(buf), "\"action\": \"%s\", \"seq\": %llu, \"dropped\": %llu, "
			      "\"pid\": %s, \"comm\": %s, ", action, u64(NEURON_GENL_A_SEQ),
			      u64(NEURON_GENL_A_DROPPED), pid, q);
		return buf;
	}
	char esc[NEURON_ESCAPED_MAX(16)];
	neuron_escape_word(esc, sizeof(esc), comm);
	int n = std::snprintf(buf, sizeof(buf), " action %s seq %llu dropped %llu", action,
			      u64(NEURON_GENL_A_SEQ), u64(NEURON_GENL_A_DROPPED));
	if (proc && n > 0 && (size_t)n < sizeof(buf))
		std::snprintf(buf + n, sizeof(buf) - n, " pid %u comm %s",
			      nla_get_u32(tb[NEURON_GENL_A_PID]), esc);
	return buf;
}

// A HEALTH_EVENT: the device's (no NC) or a NeuronCore's health changed.
void print_health(const Options &opt, struct nlattr **tb)
{
	auto u32 = [&](int a) { return tb[a] ? nla_get_u32(tb[a]) : 0u; };
	unsigned long long ts = tb[NEURON_GENL_A_TIMESTAMP_NS] ?
		nla_get_u64(tb[NEURON_GENL_A_TIMESTAMP_NS]) : 0;
	std::string core = tb[NEURON_GENL_A_NC] ? std::to_string(u32(NEURON_GENL_A_NC)) : "";
	// the names sysfs health and health_reason read
	const char *now = neuron_health_state_name(u32(NEURON_GENL_A_HEALTH));
	const char *why = neuron_health_reason_name(u32(NEURON_GENL_A_HEALTH_REASON));
	const char *prev = neuron_health_state_name(u32(NEURON_GENL_A_HEALTH_PREV));
	bool sim = tb[NEURON_GENL_A_SIMULATED];
	std::string tail = event_tail(opt, tb);
	if (opt.format == Format::Json)
		std::printf("{\"device\": %u, \"core\": %s, \"kind\": \"health\", \"health\": \"%s\", "
			    "\"reason\": \"%s\", \"previous\": \"%s\", %s\"simulated\": %s, "
			    "\"timestamp_ns\": %llu}\n",
			    u32(NEURON_GENL_A_DEVICE), core.empty() ? "null" : core.c_str(), now, why,
			    prev, tail.c_str(), sim ? "true" : "false", ts);
	else
		std::printf("device %u%s%s health %s reason %s previous %s%s%s ts_ns %llu\n",
			    u32(NEURON_GENL_A_DEVICE), core.empty() ? "" : " core ", core.c_str(),
			    now, why, prev, tail.c_str(), sim ? " simulated" : "", ts);
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
	std::string tail = event_tail(*ctx->opt, tb);
	if (ctx->opt->format == Format::Json)
		std::printf("{\"device\": %u, \"core\": %u, \"kind\": \"%s\", \"code\": %u, "
			    "\"name\": \"%s\", \"count\": %u, %s\"simulated\": %s, \"timestamp_ns\": %llu}\n",
			    u32(NEURON_GENL_A_DEVICE), u32(NEURON_GENL_A_NC), kind_name(kind), code,
			    name, u32(NEURON_GENL_A_COUNT), tail.c_str(), sim ? "true" : "false", ts);
	else
		std::printf("device %u core %u %s %s(%u) count %u%s%s ts_ns %llu\n",
			    u32(NEURON_GENL_A_DEVICE), u32(NEURON_GENL_A_NC), kind_name(kind), name,
			    code, u32(NEURON_GENL_A_COUNT), tail.c_str(), sim ? " simulated" : "", ts);
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

// The socket's callbacks back to libnl's defaults when this goes: a later
// request (genl_ctrl_resolve_grp() clones the socket's callbacks) must not
// reach a Ctx that is gone.
struct default_cbs_after {
	struct nl_sock *sk;
	~default_cbs_after()
	{
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_DEFAULT, nullptr, nullptr);
		nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_DEFAULT, nullptr, nullptr);
		nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_DEFAULT, nullptr, nullptr);
		nl_socket_modify_err_cb(sk, NL_CB_DEFAULT, nullptr, nullptr);
	}
};

int dump_counters(struct nl_sock *sk, int family, const Options &opt)
{
	Ctx ctx;
	ctx.opt = &opt;
	default_cbs_after reset{ sk };
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
	for (;;) {
		r = receive(sk, ctx);
		// the socket overran (ENOBUFS, which libnl reports as no memory):
		// events were lost here, and the gap in each device's seq says
		// how many; say so and read on
		if (r != -NLE_NOMEM || ctx.kernel_err)
			break;
		std::fprintf(stderr, "neuron-monitor: events: overrun, events lost (see the gap in seq)\n");
		std::fflush(stderr);
	}
	if (r < 0)
		return report("events", ctx, r);
	return 0;
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

} // namespace

int run(const Options &opt)
{
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
		return sysfs_counters(opt);
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

} // namespace tools::monitor::genl
