// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neuron-monitor: read the "neuron" generic netlink family: the status
// counters of every NeuronCore, and the "errors" event group.
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
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace {

enum class Format { Text, Json, Prometheus };

struct Options {
	bool counters = false;
	bool events = false;
	Format format = Format::Text;
	long count = -1;	// events to wait for; -1: forever
	long device = -1;	// --device filter
	long core = -1;		// --core (needs --device): a single "do" request
};

void usage(FILE *out)
{
	std::fputs("usage: neuron-monitor [--counters] [--events] [--json] [--prometheus]\n"
		   "                      [--device N [--core K]] [--count N] [--help]\n"
		   "Read the \"neuron\" generic netlink family.\n"
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
	static const char *const names[NEURON_TPB_ERROR_COUNT] = {
		"FP_UNDERFLOW",	  "FP_NAN",	   "FP_INF",	     "FP_OVERFLOW",
		"MEMORY_ERROR",	  "FAKE_ERROR",	   "SEMAPHORE_ERROR", "EVENT_ERROR",
		"PSUM_COLLISION", "SEQUENCER_NONFATAL", "SEQUENCER_FATAL",
	};
	return code < NEURON_TPB_ERROR_COUNT ? names[code] : "unknown";
}

const char *hw_name(uint32_t code)
{
	static const char *const names[NEURON_NQ_HW_COUNT] = {
		"unknown", "collectives", "hbm_ue", "nc_ue", "dma_abort", "repairable_hbm_ue",
	};
	return code < NEURON_NQ_HW_COUNT ? names[code] : "unknown";
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
		init = true;
	}
	return p;
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
		const char *name = nla_get_string(c[NEURON_GENL_A_COUNTER_NAME]);
		uint32_t id = c[NEURON_GENL_A_COUNTER_ID] ? nla_get_u32(c[NEURON_GENL_A_COUNTER_ID]) : 0;
		unsigned long long total = nla_get_u64(c[NEURON_GENL_A_TOTAL]);
		switch (ctx->opt->format) {
		case Format::Text:
			std::printf("%-6u %-4u %-34s %4u %llu\n", dev, nc, name, id, total);
			break;
		case Format::Json:
			std::printf("%s{\"device\": %u, \"core\": %u, \"counter\": \"%s\", "
				    "\"id\": %u, \"total\": %llu}",
				    ctx->rows ? ", " : "", dev, nc, name, id, total);
			break;
		case Format::Prometheus:
			std::printf("neuron_status_total{device=\"%u\",core=\"%u\",counter=\"%s\"} %llu\n",
				    dev, nc, name, total);
			break;
		}
		ctx->rows++;
	}
	return NL_OK;
}

int on_event(struct nl_msg *msg, void *arg)
{
	auto *ctx = static_cast<Ctx *>(arg);
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	auto *gh = static_cast<struct genlmsghdr *>(nlmsg_data(nlh));
	struct nlattr *tb[NEURON_GENL_A_MAX + 1];
	if (gh->cmd != NEURON_GENL_CMD_ERROR_EVENT ||
	    genlmsg_parse(nlh, 0, tb, NEURON_GENL_A_MAX, policy()) < 0)
		return NL_SKIP;
	auto u32 = [&](int a) { return tb[a] ? nla_get_u32(tb[a]) : 0u; };
	uint32_t kind = u32(NEURON_GENL_A_EVENT_KIND), code = u32(NEURON_GENL_A_ERROR_CODE);
	const char *name = kind == NEURON_GENL_EVENT_HW_ERROR ? hw_name(code) : tpb_name(code);
	unsigned long long ts = tb[NEURON_GENL_A_TIMESTAMP_NS] ?
		nla_get_u64(tb[NEURON_GENL_A_TIMESTAMP_NS]) : 0;
	if (ctx->opt->format == Format::Json)
		std::printf("{\"device\": %u, \"core\": %u, \"kind\": \"%s\", \"code\": %u, "
			    "\"name\": \"%s\", \"count\": %u, \"timestamp_ns\": %llu}\n",
			    u32(NEURON_GENL_A_DEVICE), u32(NEURON_GENL_A_NC), kind_name(kind), code,
			    name, u32(NEURON_GENL_A_COUNT), ts);
	else
		std::printf("device %u core %u %s %s(%u) count %u ts_ns %llu\n",
			    u32(NEURON_GENL_A_DEVICE), u32(NEURON_GENL_A_NC), kind_name(kind), name,
			    code, u32(NEURON_GENL_A_COUNT), ts);
	std::fflush(stdout);
	ctx->events++;
	if (ctx->opt->count >= 0 && ctx->events >= ctx->opt->count) {
		ctx->done = true;
		return NL_STOP;
	}
	return NL_OK;
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
	if (opt.format == Format::Text)
		std::printf("%-6s %-4s %-34s %4s %s\n", "DEVICE", "CORE", "COUNTER", "ID", "TOTAL");
	else if (opt.format == Format::Json)
		std::printf("{\"counters\": [");
	else
		std::printf("# HELP neuron_status_total Status counter of a NeuronCore "
			    "(stats/status/<counter>/total).\n# TYPE neuron_status_total counter\n");
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
		if (a == "--counters") {
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
	if (!opt.counters && !opt.events) {
		std::fprintf(stderr, "neuron-monitor: nothing to do: give --counters and/or --events\n");
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
