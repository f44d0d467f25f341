// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neff-pack: write a NEFF (docs/neff.md) in the SDK's documented layout
// holding a simulated model, or check and describe one (ours, or one from
// the Neuron compiler with its simulation recipe). Used by the tests and
// the demo.
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <getopt.h>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "common/parse_num.hpp"
#include "common/read_all.hpp"
#include "neff.hpp"

namespace {

void usage(FILE *f)
{
	std::fputs(
		"usage: neff-pack -o FILE [options]      write a NEFF\n"
		"       neff-pack --info FILE            check a NEFF and print its header and model\n"
		"\n"
		"The header is the SDK's 1024-byte neff_header_t (hash[32] at 172, uuid[16]\n"
		"at 204, name[256] at 220, ...); the data a gzip'd tar (docs/neff.md).\n"
		"--info also takes a NEFF from the Neuron compiler: its simulation recipe\n"
		"(uuid-<uuid>.sim or hash-<digest>.sim) is looked for beside FILE, then\n"
		"in each directory of $NEURON_SIM_RECIPE_DIR (colon-separated).\n"
		"\n"
		"model (written to model.sim inside the archive, docs/neff.md):\n"
		"  --name NAME            model name (default \"model\")\n"
		"  --nc N                 NeuronCores the model needs (default 1)\n"
		"  --run-us US            run time of one execution in microseconds (default 0)\n"
		"  --op OP                none|copy|affine_u32|xor_u8 (default none): inputs[0] -> outputs[0]\n"
		"  --arg0 N, --arg1 N     the op's parameters (u32)\n"
		"  --in-offset N          where in inputs[0] the program reads (default 0)\n"
		"  --proxy PATH           collectives through the network proxy listening on PATH\n"
		"  --collective KIND      none|all_reduce_sum_u32 (default none): what the workers of\n"
		"                         nrt_load_collectives() combine outputs[0] with after the op\n"
		"  --input NAME:BYTES     an input tensor (repeatable, in order)\n"
		"  --output NAME:BYTES    an output tensor (repeatable, in order)\n"
		"  --desc FILE            use FILE as model.sim verbatim instead\n"
		"\n"
		"header:\n"
		"  --uuid HEX             the uuid, 32 hex digits (default: derived from the digest)\n"
		"  --feature-bits N       feature_bits (u64, default 0)\n"
		"  --lnc N                lnc_size, the logical NeuronCore size (default 1)\n"
		"  --packaging-version N  pkg_version: 1 = SHA-256 (default), 2 = MD5, others\n"
		"                         are written as given (and refused by the loader)\n"
		"\n"
		"container (tests):\n"
		"  --corrupt-hash         store a wrong digest\n"
		"  --truncate BYTES       write only the first BYTES bytes\n"
		"  -h, --help             this text\n",
		f);
}

[[noreturn]] void die(const std::string &why)
{
	std::fprintf(stderr, "neff-pack: %s\n", why.c_str());
	std::exit(1);
}

uint64_t num(const char *opt, const char *s, uint64_t max)
{
	uint64_t v;
	// decimal or 0x hex; nothing around the digits
	if (!tools::parse_uint(s, max, v, true))
		die(std::string(opt) + ": expected a number 0.." + std::to_string(max) + ", got '" +
		    s + "'");
	return v;
}

nrt::neff::tensor_desc tensor_arg(const char *opt, const char *s)
{
	const char *colon = std::strrchr(s, ':');
	if (!colon || colon == s)
		die(std::string(opt) + ": expected NAME:BYTES, got '" + s + "'");
	return { std::string(s, colon), num(opt, colon + 1, nrt::neff::kMaxTensorBytes) };
}

// 32 hex digits (dashes between them allowed, as uuids are usually written)
std::array<uint8_t, nrt::neff::kUuidLen> uuid_arg(const char *s)
{
	std::array<uint8_t, nrt::neff::kUuidLen> u{};
	size_t n = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '-')
			continue;
		int v = std::isxdigit(static_cast<unsigned char>(*p))
				? (std::isdigit(static_cast<unsigned char>(*p)) ? *p - '0' : (*p | 0x20) - 'a' + 10)
				: -1;
		if (v < 0 || n >= 2 * nrt::neff::kUuidLen)
			die(std::string("--uuid: expected 32 hex digits, got '") + s + "'");
		u[n / 2] = static_cast<uint8_t>(u[n / 2] | (n % 2 ? v : v << 4));
		n++;
	}
	if (n != 2 * nrt::neff::kUuidLen)
		die(std::string("--uuid: expected 32 hex digits, got '") + s + "'");
	return u;
}

bool read_file(const char *path, std::vector<uint8_t> *out)
{
	int e = tools::read_all(path, *out);
	errno = e;
	return e == 0;
}

int info(const char *path)
{
	std::vector<uint8_t> b;
	if (!read_file(path, &b))
		die(std::string(path) + ": " + std::strerror(errno));
	nrt::neff::header h;
	nrt::neff::model_desc m;
	// a recipe beside the NEFF first, then where nrt_load() looks
	nrt::neff::load_options opt = nrt::neff::options_from_env();
	std::string dir = path;
	size_t slash = dir.rfind('/');
	dir = slash == std::string::npos ? "." : dir.substr(0, slash + 1);
	opt.recipe_dirs.insert(opt.recipe_dirs.begin(), dir);
	nrt::neff::load_info li;
	NRT_STATUS st = nrt::neff::parse(b, &h, &m, &opt, &li);
	if (st != NRT_SUCCESS)
		die(std::string(path) + ": not loadable: " + nrt_get_status_as_str(st) +
		    (li.message.empty() ? "" : ": " + li.message));
	std::printf("packaging_version %llu\nversion %llu.%llu %s\ndata_size %llu\n",
		    (unsigned long long)h.packaging_version, (unsigned long long)h.version_major,
		    (unsigned long long)h.version_minor, h.version_build.c_str(),
		    (unsigned long long)h.data_size);
	size_t md_len = h.packaging_version == nrt::neff::kPackagingMd5 ? 16 : 32;
	std::printf("hash %s\nuuid %s\nneff_name %s\nnum_tpb %u\nrequested_tpb_count %u\n"
		    "feature_bits 0x%llx\nlnc_size %u\n",
		    nrt::neff::hex(std::span<const uint8_t>(h.hash).first(md_len)).c_str(),
		    nrt::neff::hex(h.uuid).c_str(), h.name.c_str(), h.num_tpb, h.requested_tpb_count,
		    (unsigned long long)h.feature_bits, h.lnc_size);
	if (li.kind == nrt::neff::payload::compiled)
		std::printf("payload compiled\nrecipe %s\n", li.recipe.c_str());
	else
		std::printf("payload model.sim\n");
	std::fputs(nrt::neff::format(m).c_str(), stdout);
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	enum { O_NAME = 256, O_NC, O_RUN, O_OP, O_ARG0, O_ARG1, O_INOFF, O_IN, O_OUT, O_DESC,
	       O_PKG, O_CORRUPT, O_TRUNC, O_INFO, O_PROXY, O_UUID, O_FEAT, O_LNC, O_COLL };
	static const option opts[] = {
		{ "name", required_argument, nullptr, O_NAME },
		{ "nc", required_argument, nullptr, O_NC },
		{ "run-us", required_argument, nullptr, O_RUN },
		{ "op", required_argument, nullptr, O_OP },
		{ "arg0", required_argument, nullptr, O_ARG0 },
		{ "arg1", required_argument, nullptr, O_ARG1 },
		{ "in-offset", required_argument, nullptr, O_INOFF },
		{ "input", required_argument, nullptr, O_IN },
		{ "output", required_argument, nullptr, O_OUT },
		{ "desc", required_argument, nullptr, O_DESC },
		{ "packaging-version", required_argument, nullptr, O_PKG },
		{ "corrupt-hash", no_argument, nullptr, O_CORRUPT },
		{ "truncate", required_argument, nullptr, O_TRUNC },
		{ "info", required_argument, nullptr, O_INFO },
		{ "proxy", required_argument, nullptr, O_PROXY },
		{ "collective", required_argument, nullptr, O_COLL },
		{ "uuid", required_argument, nullptr, O_UUID },
		{ "feature-bits", required_argument, nullptr, O_FEAT },
		{ "lnc", required_argument, nullptr, O_LNC },
		{ "output-file", required_argument, nullptr, 'o' },
		{ "help", no_argument, nullptr, 'h' },
		{ nullptr, 0, nullptr, 0 },
	};
	nrt::neff::model_desc m;
	m.name = "model";
	nrt::neff::pack_options po;
	const char *out = nullptr, *desc = nullptr;
	long long truncate = -1;
	int c;
	while ((c = getopt_long(argc, argv, "o:h", opts, nullptr)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': usage(stdout); return 0;
		case O_NAME: m.name = optarg; break;
		case O_NC: m.nc_count = static_cast<uint32_t>(num("--nc", optarg, nrt::neff::kMaxNc)); break;
		case O_RUN: m.run_time_us = num("--run-us", optarg, nrt::neff::kMaxRunTimeUs); break;
		case O_OP: {
			std::string o = optarg;
			if (o == "none") m.program = nrt::neff::op::none;
			else if (o == "copy") m.program = nrt::neff::op::copy;
			else if (o == "affine_u32") m.program = nrt::neff::op::affine_u32;
			else if (o == "xor_u8") m.program = nrt::neff::op::xor_u8;
			else die("--op: expected none|copy|affine_u32|xor_u8, got '" + o + "'");
			break;
		}
		case O_ARG0: m.arg0 = static_cast<uint32_t>(num("--arg0", optarg, UINT32_MAX)); break;
		case O_ARG1: m.arg1 = static_cast<uint32_t>(num("--arg1", optarg, UINT32_MAX)); break;
		case O_INOFF: m.in_offset = num("--in-offset", optarg, nrt::neff::kMaxTensorBytes); break;
		case O_IN: m.inputs.push_back(tensor_arg("--input", optarg)); break;
		case O_OUT: m.outputs.push_back(tensor_arg("--output", optarg)); break;
		case O_DESC: desc = optarg; break;
		case O_PROXY: m.proxy = optarg; break;
		case O_COLL: {
			std::string o = optarg;
			if (o == "none") m.coll = nrt::neff::collective::none;
			else if (o == "all_reduce_sum_u32") m.coll = nrt::neff::collective::all_reduce_sum_u32;
			else die("--collective: expected none|all_reduce_sum_u32, got '" + o + "'");
			break;
		}
		case O_UUID: po.uuid = uuid_arg(optarg); po.uuid_set = true; break;
		case O_FEAT: po.feature_bits = num("--feature-bits", optarg, UINT64_MAX); break;
		case O_LNC: po.lnc_size = static_cast<uint32_t>(num("--lnc", optarg, UINT32_MAX)); break;
		case O_PKG: po.packaging_version = num("--packaging-version", optarg, UINT64_MAX); break;
		case O_CORRUPT: po.corrupt_hash = true; break;
		case O_TRUNC: truncate = static_cast<long long>(num("--truncate", optarg, 1ull << 40)); break;
		case O_INFO: return info(optarg);
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		die(std::string("unexpected argument '") + argv[optind] + "' (see --help)");
	if (!out)
		die("no output file: -o FILE (see --help)");
	std::string text;
	if (desc) {
		std::vector<uint8_t> b;
		if (!read_file(desc, &b))
			die(std::string(desc) + ": " + std::strerror(errno));
		text.assign(b.begin(), b.end());
	} else {
		text = nrt::neff::format(m);
		// refuse to write a model the loader would refuse (use --desc for that)
		nrt::neff::model_desc check;
		NRT_STATUS st = nrt::neff::parse_model(text, &check);
		if (st != NRT_SUCCESS)
			die(std::string("the model is not valid (") + nrt_get_status_as_str(st) +
			    "): names are 1..63 of [A-Za-z0-9_.:/-], an op needs an input and an "
			    "output, affine_u32 a multiple of 4 bytes, a proxy an absolute path, "
			    "a collective an op and an output of a multiple of 4 bytes");
	}
	std::vector<uint8_t> neff;
	if (!nrt::neff::pack(text, desc ? nullptr : &m, po, &neff))
		die("packing failed (libarchive or libcrypto error)");
	if (truncate >= 0 && static_cast<size_t>(truncate) < neff.size())
		neff.resize(static_cast<size_t>(truncate));
	FILE *f = std::fopen(out, "wb");
	if (!f)
		die(std::string(out) + ": " + std::strerror(errno));
	bool ok = std::fwrite(neff.data(), 1, neff.size(), f) == neff.size();
	ok = std::fclose(f) == 0 && ok;
	if (!ok)
		die(std::string(out) + ": write failed");
	return 0;
}
