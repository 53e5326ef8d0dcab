// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp-sim: runs a bench point in ns-3 instead of the test guest.
//
//     mltcp-sim --queue-limit BYTES [--seeds FILE] POINT_DIR
//     mltcp-sim --plan POINT_DIR
//
// Reads POINT_DIR/config.json (bench/rundir.py) and writes POINT_DIR/raw/ as
// the guest's driver (bench/driver.py) does: per algorithm and repeat, each
// worker's trainsim log, meta.json and samples.json, so that `python3 -m
// bench analyze` reads the run unchanged. BYTES is the bottleneck's queue as
// the driver computes it for tbf (bench.driver.bottleneck_shaping()), or on
// a leaf-spine fabric every port's; FILE maps "<algorithm>/rep<k>/<job>/<rank>"
// to each worker's compute-time seed, as the driver gives mltcp-trainsim
// (bench.driver.worker_seed()), and "rep<k>/<job>/offset_us" to a job's
// start offset in repeat k where the point starts at random
// (bench.driver.start_offsets()); without it every worker is seeded with
// the point's "seed". A run that does not finish is recorded in its
// meta.json's failures, as the driver records one; the exit status is then
// still 0, and the analysis reports it. --plan builds the network, prints
// the links each job's bytes cross ({"links": {...}}, sim/network.h) and
// simulates nothing.
//
// The network (sim/network.h) is the driver's dumbbell or a point's
// leaf-spine fabric. TCP is set as Linux sets it: 1448-byte segments,
// initial window 10, 200 ms minimum RTO (or the point's "min_rto_ms"; the
// restart after idle's, "idle_rto_min_ms", apart), SACK,
// timestamps, PRR, an ACK per two segments, no Nagle, 16 MB buffers. ns-3
// 3.37 has no RACK-TLP and no HyStart in these algorithms; docs/research/simulated-regimes.md
// says what that changes. A point with "ecn_mark_bytes" (the data-center
// regime) negotiates ECN on every flow and its switch ports mark instead of
// only dropping, as one with DCQCN's ramp ("ecn_kmin_bytes", "ecn_kmax_bytes",
// "ecn_pmax") does; one with "ack_priority" serves pure ACKs first there (all:
// PortQueueDisc). "dcqcn" and "mltcp-dcqcn" are ns3::TcpDcqcn
// (sim/tcp_dcqcn.h), at the point's rate, on a marking point only.
// "window_trace": true adds each worker's sending window at every change
// (<job>-r<rank>.window.jsonl beside its log).
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "network.h"
#include "point.h"
#include "tcp_dcqcn.h"
#include "tcp_mltcp.h"
#include "training_worker.h"

using namespace ns3;
using nlohmann::json;
namespace fs = std::filesystem;

namespace mltcp::sim
{
namespace
{

constexpr uint16_t kJobPort = 7100;
constexpr uint32_t kBufferBytes = 16u << 20;
// Iteration 0 starts here, after every connection's handshake.
const Time kStart = Seconds(1);

void linux_like_tcp(const Point &point)
{
	Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kLinuxMss));
	Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
	Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(kBufferBytes));
	Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kBufferBytes));
	Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
	// Linux ACKs every second segment, and at once when the application
	// reads the last, short segment of a burst (tcp_cleanup_rbuf(): a
	// pushed segment, the buffer emptied); ns-3 would hold that last ACK for
	// its delayed-ACK timeout. A short timeout (1 ms unless the point says)
	// stands in for the read.
	Config::SetDefault("ns3::TcpSocket::DelAckTimeout",
			   TimeValue(MicroSeconds(std::llround(point.delayed_ack_ms * 1e3))));
	Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
	Config::SetDefault("ns3::TcpSocketBase::MinRto",
			   TimeValue(MicroSeconds(std::llround(point.min_rto_ms * 1e3))));
	Config::SetDefault("ns3::TcpMltcp::IdleRtoMin",
			   TimeValue(MicroSeconds(std::llround(point.idle_rto_min_ms * 1e3))));
	Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
	Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
	Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
			   TypeIdValue(TcpPrrRecovery::GetTypeId()));
	// Linux's net.ipv4.tcp_ecn = 1 at both ends (DCTCP sets its own).
	Config::SetDefault("ns3::TcpSocketBase::UseEcn",
			   EnumValue(point.marks_ecn() ? TcpSocketState::On : TcpSocketState::Off));
}

// A DCQCN sender's line rate: the payload a full segment carries on the
// point's line (a host's link), in Linux's frames as the rate counts them.
uint64_t dcqcn_line_bps(const Point &point)
{
	return payload_bps(point.rate_mbit);
}

// Its window, out of the rate's way: twice the base BDP at line rate plus a
// port's queue, which no flow holds in flight before a port drops.
uint32_t dcqcn_window(const Point &point, uint64_t queue_limit)
{
	const double bdp = point.rate_mbit * 1e6 / 8 * point.rtt_ms / 1e3;
	return static_cast<uint32_t>(
		std::min<double>(2 * (bdp + static_cast<double>(queue_limit)), UINT32_MAX / 2));
}

Ptr<TcpCongestionOps> make_cc(const Algorithm &alg, const Point &point, uint64_t queue_limit,
			      size_t job)
{
	if (alg.kind == CcKind::ns3) {
		ObjectFactory factory(alg.ns3_type);
		return factory.Create<TcpCongestionOps>();
	}
	if (alg.kind == CcKind::dcqcn) {
		Ptr<TcpDcqcn> cc = CreateObject<TcpDcqcn>();
		const uint64_t line = dcqcn_line_bps(point);
		mltcp::sim::DcqcnParams params;

		cc->SetParams(alg.params);
		if (alg.params.exempt)
			cc->SetAttribute("Exempt", BooleanValue(true));
		// DCQCN's floor, or a tenth of the line on a point slower than
		// 1 Gbit/s.
		params.min_rate_bps = std::min(params.min_rate_bps, line / 10);
		cc->SetRpParams(params);
		cc->SetAttribute("LineRate", DataRateValue(DataRate(line)));
		cc->SetAttribute("WindowBytes", UintegerValue(dcqcn_window(point, queue_limit)));
		return cc;
	}
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	cc->SetParams(alg.params); // parse_point() checked them
	cc->SetFixedBase(alg.fixed_base);
	if (alg.kind == CcKind::base)
		cc->SetAttribute("Exempt", BooleanValue(true));
	if (alg.marked)
		cc->SetAttribute("Marked", BooleanValue(true));
	if (alg.prio.classes) {
		std::string dscps;
		for (unsigned c = 0; c < alg.prio.classes; c++)
			dscps += (c ? "," : "") + std::to_string(alg.prio.dscp[c]);
		cc->SetAttribute("PrioClasses", UintegerValue(alg.prio.classes));
		cc->SetAttribute("PrioDscp", StringValue(dscps));
		cc->SetAttribute("PrioNoneDscp", UintegerValue(alg.prio.none_dscp));
		cc->SetAttribute("PrioStatic", BooleanValue(alg.prio_static));
		// Job ids from 1, in the point's order, as mltcpctl numbers them.
		cc->SetAttribute("PrioJob", UintegerValue(job + 1));
	}
	return cc;
}

std::string algorithm_json(const Algorithm &alg)
{
	return json{ { "name", alg.name }, { "cc", alg.cc } }.dump();
}

json params_json(const Algorithm &alg)
{
	json out = json::object();
	if (alg.kind == CcKind::ns3)
		return out;
	if (alg.prio.classes)
		out["prio"] = { { "classes", alg.prio.classes },
				{ "dscp", std::vector<unsigned>(alg.prio.dscp,
								alg.prio.dscp + alg.prio.classes) },
				{ "none_dscp", alg.prio.none_dscp },
				{ "static", alg.prio_static } };
	if (alg.marked)
		out["marked"] = true;
	for (int p = 0; p < MLTCP_NR_PARAMS; p++) {
		char text[MLTCP_PARAM_TEXT];
		auto which = static_cast<mltcp_param>(p);
		mltcp_param_format(which, mltcp_param_get(&alg.params, which), text, sizeof(text));
		out[mltcp_param_name(which)] = text;
	}
	return out;
}

// Where job j's rank listens (bench.driver.ring_port()).
uint16_t ring_port(size_t job, unsigned rank)
{
	constexpr unsigned kRingPortStride = 100;
	return static_cast<uint16_t>(kJobPort + job + kRingPortStride * (rank / 2));
}

struct Run {
	const Point &point;
	const Algorithm &alg;
	unsigned rep;
	uint64_t queue_limit;
	const json &seeds; // "<algorithm>/rep<k>/<job>/<rank>" -> seed; may be empty
	fs::path dir;
};

// One algorithm's repeat, in a fresh simulation. Returns the failures.
std::vector<std::string> run_once(const Run &run)
{
	const Point &point = run.point;
	const size_t jobs = point.jobs.size();

	linux_like_tcp(point);
	RngSeedManager::SetSeed(static_cast<uint32_t>(point.seed));
	RngSeedManager::SetRun(run.rep + 1);
	Network net(point, run.queue_limit);
	// DCQCN's receivers echo ECE per marked segment (sim/tcp_dcqcn.h): every
	// socket of the jobs' hosts is a TcpDcqcn, the accepted ones included.
	if (run.alg.kind == CcKind::dcqcn)
		for (size_t j = 0; j < jobs; j++)
			for (unsigned rank = 0; rank < 2; rank++)
				net.Host(j, rank)->GetObject<TcpL4Protocol>()->SetAttribute(
					"SocketType", TypeIdValue(TcpDcqcn::GetTypeId()));

	fs::create_directories(run.dir);
	std::vector<std::unique_ptr<std::ofstream>> logs;
	std::vector<Ptr<TrainingWorker>> workers;
	std::vector<std::pair<size_t, unsigned>> placed; // each worker's (job, rank)
	const std::string tag = run.alg.name + "/rep" + std::to_string(run.rep);
	for (size_t j = 0; j < jobs; j++) {
		const Job &job = point.jobs[j];
		for (unsigned rank = 0; rank < job.ranks; rank++) {
			trainsim::Config config;
			config.job = job.name;
			config.rank = rank;
			config.world = job.ranks;
			// Each direction carries (ranks - 1) x a ring's gradient bytes.
			config.bytes = job.bytes / (job.ranks - 1);
			config.compute_us = job.compute_us;
			config.jitter_us = job.jitter_us;
			config.iterations = point.iterations;
			config.collective = job.collective;
			config.pattern = job.pattern;
			config.sockets = job.sockets;
			config.bucket_bytes = job.bucket_bytes;
			config.first_bucket_bytes = job.first_bucket_bytes;
			// A random start (bench.driver.start_offsets()) is the
			// same for every algorithm of a repeat: keyed by repeat.
			const std::string offset_key =
				"rep" + std::to_string(run.rep) + "/" + job.name + "/offset_us";
			config.offset_us = run.seeds.contains(offset_key)
						   ? run.seeds[offset_key].get<uint64_t>()
						   : job.offset_us;
			// A slot schedule (the oracle) sets its own starts.
			if (run.alg.slots) {
				config.offset_us = run.alg.slots->offsets_us.at(job.name);
				config.slot_period_us = run.alg.slots->period_us;
			}
			const std::string seed_key =
				tag + "/" + job.name + "/" + std::to_string(rank);
			config.seed = run.seeds.contains(seed_key)
					      ? run.seeds[seed_key].get<uint64_t>()
					      : point.seed;
			logs.push_back(std::make_unique<std::ofstream>(
				run.dir / (job.name + "-r" + std::to_string(rank) + ".jsonl")));
			Ptr<TrainingWorker> worker = CreateObject<TrainingWorker>(
				config, make_cc(run.alg, point, run.queue_limit, j), run.alg.cc,
				*logs.back(), 0);
			if (point.window_trace) {
				logs.push_back(std::make_unique<std::ofstream>(
					run.dir / (job.name + "-r" + std::to_string(rank) +
						   ".window.jsonl")));
				worker->TraceWindow(*logs.back());
			}
			// Even ranks on the job's first host, odd on its second, each
			// on a port of its own (bench.driver.ring_port()).
			const unsigned next = (rank + 1) % job.ranks;
			worker->Wire(ring_port(j, rank), InetSocketAddress(net.Address(j, next % 2),
									   ring_port(j, next)));
			worker->StartIterationsAt(kStart);
			net.Host(j, rank % 2)->AddApplication(worker);
			worker->SetStartTime(Seconds(0));
			workers.push_back(worker);
			placed.emplace_back(j, rank);
		}
		// Each rank's prev, for numbering its sockets (several per connection).
		const size_t first = workers.size() - job.ranks;
		for (unsigned rank = 0; rank < job.ranks; rank++)
			workers[first + rank]->SetPrev(workers[first + (rank + job.ranks - 1) % job.ranks]);
	}

	// Samples, and the end: every worker done, or the deadline.
	json samples = json::array();
	double slowest = 0;
	for (const Job &job : point.jobs)
		slowest = std::max(slowest, job.compute_us / 1e6 + job.jitter_us / 1e6);
	double all_bytes_s = 0;
	for (const Job &job : point.jobs)
		all_bytes_s += job.bytes * 8 / (point.rate_mbit * 1e6);
	const Time deadline =
		kStart + Seconds(point.iterations * (slowest + 2 * all_bytes_s) * 3 + 10);
	const Time period = MicroSeconds(std::llround(point.sample_ms * 1e3));
	std::function<void()> sample = [&] {
		json sent = json::array();
		for (size_t j = 0; j < jobs; j++)
			sent.push_back(net.Sent(j));
		samples.push_back(json::array({ Simulator::Now().GetSeconds(), sent }));
		bool done = true;
		for (const auto &worker : workers)
			done &= worker->Done();
		if (done || Simulator::Now() >= deadline)
			Simulator::Stop();
		else
			Simulator::Schedule(period, sample);
	};
	Simulator::Schedule(kStart, sample);
	const auto wall_start = std::chrono::steady_clock::now();
	Simulator::Run();
	const double wall_s =
		std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start)
			.count();

	std::vector<std::string> failures;
	json rtos = json::object(), flows = json::object();
	for (size_t w = 0; w < workers.size(); w++) {
		const auto [j, rank] = placed[w];
		workers[w]->Finish();
		if (!workers[w]->Done())
			failures.push_back(point.jobs[j].name + " rank " + std::to_string(rank) +
					   " did not finish by the deadline");
		// The driver's host names: Lj for even ranks, Rj for odd.
		const std::string host = (rank % 2 ? "R" : "L") + std::to_string(j + 1);
		rtos[host] = rtos.value(host, uint64_t{ 0 }) + workers[w]->Timeouts();
		if (!flows.contains(host))
			flows[host] = json::array();
		// What the detector learned of each flow the worker sent on, in
		// the fields of `mltcpctl flow show -j` (the driver's "flows").
		for (const Ptr<TcpCongestionOps> &sender : workers[w]->SenderCcs()) {
			Ptr<TcpMltcp> cc = DynamicCast<TcpMltcp>(sender);
			if (!cc)
				continue;
			const mltcp_flow &flow = cc->Flow();
			json record = { { "ca", run.alg.cc },
					{ "iterations", flow.iter.count },
					{ "iter_bytes", flow.iter.bytes },
					{ "bytes_acked", cc->BytesAcked() } };
			// Progress priority: how often the flow's class moved, its
			// moves up held (prio_holds) and how they ended, by the
			// module's names (prio_released, prio_reduced).
			if (cc->PrioConfig().classes) {
				record["dscp_changes"] = cc->DscpChanges();
				record["prio_holds"] = cc->PrioHolds();
				for (int e = MLTCP_PRIO_HOLD_RELEASED; e < MLTCP_PRIO_HOLD_NR_EVENTS; e++)
					record[mltcp_prio_hold_name(static_cast<mltcp_prio_hold>(e))] =
						cc->PrioHoldEvents()[e];
			}
			// DCQCN's: ACKs taken as CNPs, and every rate cut (CNPs and losses).
			if (Ptr<TcpDcqcn> dcqcn = DynamicCast<TcpDcqcn>(cc)) {
				record["cnps"] = dcqcn->Cnps();
				record["rate_cuts"] = dcqcn->RateCuts();
			}
			flows[host].push_back(record);
		}
	}
	json sample_jobs = json::array();
	for (const Job &job : point.jobs)
		sample_jobs.push_back(job.name);
	json meta = {
		{ "algorithm", json::parse(algorithm_json(run.alg)) },
		{ "backend", "ns-3" },
		{ "defaults", params_json(run.alg) },
		{ "start_at", kStart.GetSeconds() },
		{ "rtos", rtos },
		{ "drops", net.Drops() },
		{ "marks", net.Marks() },
		{ "failures", failures },
		{ "tag", tag },
		{ "sample_jobs", sample_jobs },
		{ "bulk", json::array() },
		{ "queue_limit_bytes", run.queue_limit },
		{ "flows", flows },
		// What the run cost: issue 13's cluster scale is judged by it.
		{ "cost",
		  { { "wall_s", wall_s },
		    { "events", Simulator::GetEventCount() },
		    { "simulated_s", Simulator::Now().GetSeconds() } } },
	};
	if (!net.Links().empty())
		meta["links"] = net.Links();
	std::ofstream(run.dir / "meta.json") << meta.dump(1) << '\n';
	std::ofstream(run.dir / "samples.json") << samples.dump() << '\n';
	Simulator::Destroy();
	return failures;
}

int usage(const char *why)
{
	std::cerr << "mltcp-sim: " << why
		  << " (usage: mltcp-sim --queue-limit BYTES [--seeds FILE] POINT_DIR, or "
		     "mltcp-sim --plan POINT_DIR)\n";
	return 2;
}

// --plan: the links each job's bytes cross, and nothing simulated.
int plan(const Point &point)
{
	Network net(point, 1u << 20);
	std::cout << json{ { "links", net.Links() } }.dump(1) << '\n';
	Simulator::Destroy();
	return 0;
}

} // namespace
} // namespace mltcp::sim

int main(int argc, char **argv)
{
	using namespace mltcp::sim;

	std::vector<std::string> args(argv + 1, argv + argc);
	uint64_t queue_limit = 0;
	bool planning = false;
	fs::path seeds_path, dir;
	for (size_t i = 0; i < args.size(); i++) {
		if (args[i] == "--plan") {
			planning = true;
			continue;
		}
		if ((args[i] == "--queue-limit" || args[i] == "--seeds") && i + 1 == args.size())
			return usage((args[i] + " needs a value").c_str());
		if (args[i] == "--queue-limit") {
			const std::string &text = args[++i];
			if (text.empty() || text.size() > 10 ||
			    text.find_first_not_of("0123456789") != std::string::npos ||
			    std::stoull(text) == 0 || std::stoull(text) > UINT32_MAX)
				return usage(("--queue-limit " + text +
					      ": not a whole number of bytes from 1 to 2^32 - 1")
						     .c_str());
			queue_limit = std::stoull(text);
		} else if (args[i] == "--seeds") {
			seeds_path = args[++i];
		} else if (dir.empty() && !args[i].empty() && args[i][0] != '-') {
			dir = args[i];
		} else {
			return usage((args[i] + ": unexpected").c_str());
		}
	}
	if (dir.empty() || (!planning && !queue_limit))
		return usage("expected --queue-limit BYTES (or --plan) and POINT_DIR");
	std::ifstream file(dir / "config.json");
	if (!file)
		return usage((dir / "config.json").string().append(": cannot read").c_str());
	std::stringstream text;
	text << file.rdbuf();
	Point point;
	json seeds = json::object();
	try {
		point = parse_point(text.str());
		if (!seeds_path.empty()) {
			std::ifstream seeds_file(seeds_path);
			if (!seeds_file)
				throw PointError(seeds_path.string() + ": cannot read");
			seeds = json::parse(seeds_file);
			for (const auto &[key, value] : seeds.items())
				if (!value.is_number_unsigned())
					throw PointError(seeds_path.string() + ": " + key +
							 ": not a seed");
		}
		// A frame below the limit, so that the ports' IP-byte rounding
		// keeps the threshold under it.
		for (auto [key, bytes] : { std::pair{ "ecn_mark_bytes", point.ecn_mark_bytes },
					   std::pair{ "ecn_kmax_bytes", point.ecn_kmax_bytes } })
			if (!planning && bytes + 1514 > queue_limit)
				throw PointError(std::string(key) + " " + std::to_string(bytes) +
						 ": must be a frame (1514 bytes) below the queue "
						 "limit (" +
						 std::to_string(queue_limit) + " bytes)");
	} catch (const PointError &e) {
		std::cerr << "mltcp-sim: " << (dir / "config.json").string() << ": " << e.what()
			  << '\n';
		return 1;
	} catch (const json::exception &e) {
		std::cerr << "mltcp-sim: " << seeds_path.string() << ": " << e.what() << '\n';
		return 1;
	}
	if (planning)
		return plan(point);
	for (unsigned rep = point.first_repeat; rep < point.first_repeat + point.repeats; rep++)
		for (const Algorithm &alg : point.algorithms) {
			const fs::path out = dir / "raw" / alg.name / ("rep" + std::to_string(rep));
			for (const std::string &failure :
			     run_once(Run{ point, alg, rep, queue_limit, seeds, out }))
				std::cerr << "mltcp-sim: " << alg.name << " rep" << rep << ": "
					  << failure << '\n';
		}
	return 0;
}
