// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
// neff-pack: write a NEFF (docs/neff.md) holding a simulated model, or
// describe one. Used by the tests and the demo.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <getopt.h>
#include <iterator>
#include <string>
#include <vector>

#include "neff.hpp"

namespace {

void usage(FILE *f)
{
	std::fputs(
		"usage: neff-pack -o FILE [options]      write a NEFF\n"
		"       neff-pack --info FILE            check a NEFF and print what it holds\n"
		"\n"
		"model (written to model.sim inside the archive, docs/neff.md):\n"
		"  --name NAME            model name (default \"model\")\n"
		"  --nc N                 NeuronCores the model needs (default 1)\n"
		"  --run-us US            run time of one execution in microseconds (default 0)\n"
		"  --op OP                none|copy|affine_u32|xor_u8 (default none): inputs[0] -> outputs[0]\n"
		"  --arg0 N, --arg1 N     the op's parameters (u32)\n"
		"  --in-offset N          where in inputs[0] the program reads (default 0)\n"
		"  --proxy PATH           collectives through the network proxy listening on PATH\n"
		"  --input NAME:BYTES     an input tensor (repeatable, in order)\n"
		"  --output NAME:BYTES    an output tensor (repeatable, in order)\n"
		"  --desc FILE            use FILE as model.sim verbatim instead\n"
		"\n"
		"container (tests):\n"
		"  --packaging-version N  1 = SHA-256 (default), 2 = MD5, others are written as given\n"
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
	char *end;
	errno = 0;
	unsigned long long v = std::strtoull(s, &end, 0);
	if (!*s || *end || errno || v > max || s[0] == '-')
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

bool read_file(const char *path, std::vector<uint8_t> *out)
{
	std::ifstream f(path, std::ios::binary);
	if (!f)
		return false;
	out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
	return !f.bad();
}

int info(const char *path)
{
	std::vector<uint8_t> b;
	if (!read_file(path, &b))
		die(std::string(path) + ": " + std::strerror(errno));
	nrt::neff::header h;
	nrt::neff::model_desc m;
	NRT_STATUS st = nrt::neff::parse(b, &h, &m);
	if (st != NRT_SUCCESS)
		die(std::string(path) + ": not loadable: " + nrt_get_status_as_str(st));
	std::printf("packaging_version %llu\nversion %llu.%llu %s\ndata_size %llu\n",
		    (unsigned long long)h.packaging_version, (unsigned long long)h.version_major,
		    (unsigned long long)h.version_minor, h.version_build.c_str(),
		    (unsigned long long)h.data_size);
	std::fputs(nrt::neff::format(m).c_str(), stdout);
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	enum { O_NAME = 256, O_NC, O_RUN, O_OP, O_ARG0, O_ARG1, O_INOFF, O_IN, O_OUT, O_DESC,
	       O_PKG, O_CORRUPT, O_TRUNC, O_INFO, O_PROXY };
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
			    "output, affine_u32 a multiple of 4 bytes, a proxy an absolute path");
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
