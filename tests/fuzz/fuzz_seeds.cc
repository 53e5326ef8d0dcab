// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Writes seed inputs for the fuzz targets into DIR/args and DIR/decode,
// built with the same encoders mltcpctl uses, so the seeds follow the
// uapi header as it changes, from the unit tests' sample job, flow and ack.
#include <arpa/inet.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "../unit/mltcpctl/fixtures.h"
#include "message.h"
#include "mltcp_bpf.h"
#include "uapi/mltcp.h"

using namespace mltcpctl;

static void write(const std::string &path, const std::vector<uint8_t> &bytes)
{
	std::ofstream(path, std::ios::binary)
		.write(reinterpret_cast<const char *>(bytes.data()),
		       static_cast<std::streamsize>(bytes.size()));
}

static std::vector<uint8_t> args(std::initializer_list<const char *> words)
{
	std::vector<uint8_t> out;
	for (const char *w : words) {
		if (!out.empty())
			out.push_back(0);
		out.insert(out.end(), w, w + std::char_traits<char>::length(w));
	}
	return out;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 2;
	}
	std::string dir = argv[1];
	int n = 0;

	for (auto a :
	     { args({ "job", "add",	  "7",		"dport",    "5000-5010", "sport",
		      "1",   "peer",	  "10.0.0.0/8", "mark",	    "0x10/0xff", "slope",
		      "2.5", "intercept", "0.2",	"idle-gap", "20ms",	 "iter-bytes",
		      "64M", "base",	  "reno",	"exempt" }),
	       args({ "job", "set", "7", "dport", "any", "slope", "default", "exempt", "off" }),
	       args({ "-j", "-n", "h1", "flow", "show", "job", "3" }),
	       args({ "monitor", "job", "1", "interval", "200ms", "count", "3" }),
	       args({ "job", "del", "4" }), args({ "j", "s", "9" }), args({ "help", "job" }),
	       args({ "job", "add", "1", "peer", "fd00::/64", "iter-bytes", "1.5G" }),
	       args({ "defaults", "set", "global", "slope", "0.0625", "idle-gap", "1.5s", "base",
		      "reno", "mode", "md-restart" }),
	       args({ "-n", "h1", "defaults", "show" }),
	       args({ "-d", "bpf", "load", "intercept", "0.2", "mode", "ai" }),
	       args({ "-n", "h1", "export", "--output", "/tmp/m.prom", "interval", "15s" }),
	       args({ "run", "job", "7", "marked", "slope", "2", "--", "torchrun", "train.py" }),
	       args({ "run", "user", "alice", "group", "4242", "--", "torchrun", "train.py" }),
	       args({ "job", "add", "3", "cgroup", "/slurm/job_3", "marked" }),
	       args({ "job", "mark", "3", "step", "12" }), args({ "job", "mark", "3", "follow" }) })
		write(dir + "/args/seed" + std::to_string(n++), a);

	Ack ack = test::range_ack(0, 16384);
	std::vector<Bytes> seeds = {
		encode_job(30, MLTCP_CMD_JOB_GET, test::sample_job(), 1, NLM_F_MULTI),
		encode_flow(30, test::sample_flow(AF_INET), 1), encode_ack(ack, 1),
		encode_ack(Ack{}, 1), encode_family_request(1)
	};
	seeds.push_back(encode_flow(30, test::sample_flow(AF_INET6), 2));
	seeds.push_back(
		encode_stats(30, Stats{ false, { 1, 2, 3, 4, 5 }, std::nullopt, std::nullopt }, 3));
	seeds.push_back(encode_stats(
		30, Stats{ false, { 1, 2, 3, 4, 5 }, { { 6, 7, 8, 9 } }, std::nullopt }, 4));
	seeds.push_back(encode_stats(
		30, Stats{ false, { 1, 2, 3, 4, 5 }, { { 6, 7, 8, 9 } }, { { 10, 11, 12 } } }, 5));
	Bytes all;
	for (const Bytes &s : seeds)
		all.insert(all.end(), s.begin(), s.end());
	seeds.push_back(all);
	// Two records of the BPF flow iterator.
	mltcp_bpf_record rec{};
	rec.magic = MLTCP_BPF_RECORD_MAGIC;
	rec.size = sizeof(rec);
	rec.flow.family = AF_INET;
	rec.flow.mode = MLTCP_MODE_MD;
	snprintf(rec.flow.ca, sizeof(rec.flow.ca), "mltcp");
	Bytes records(2 * sizeof(rec));
	memcpy(records.data(), &rec, sizeof(rec));
	rec.flow.prio_held = 1;
	memcpy(records.data() + sizeof(rec), &rec, sizeof(rec));
	seeds.push_back(records);
	n = 0;
	for (const Bytes &s : seeds)
		write(dir + "/decode/seed" + std::to_string(n++), s);
	return 0;
}
