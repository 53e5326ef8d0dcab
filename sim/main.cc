// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mltcp-sim: runs a bench point in ns-3 instead of the test guest.
//
//     mltcp-sim --queue-limit BYTES [--seeds FILE] POINT_DIR
//
// Reads POINT_DIR/config.json (bench/rundir.py) and writes POINT_DIR/raw/ as
// the guest's driver (bench/driver.py) does: per algorithm and repeat, each
// worker's trainsim log, meta.json and samples.json, so that `python3 -m
// bench analyze` reads the run unchanged. BYTES is the bottleneck's queue as
// the driver computes it for tbf (bench.driver.bottleneck_shaping()); FILE
// maps "<algorithm>/rep<k>/<job>/<rank>" to each worker's compute-time seed,
// as the driver gives mltcp-trainsim (bench.driver.worker_seed()), and
// "rep<k>/<job>/offset_us" to a job's start offset in repeat k where the
// point starts at random (bench.driver.start_offsets()); without it every
// worker is seeded with the point's "seed". A run that does not
// finish is recorded in its meta.json's failures, as the driver records
// one; the exit status is then still 0, and the analysis reports it.
//
// The network is the driver's dumbbell: job j's worker 0 on host Lj and
// worker 1 on Rj, every host on a fast link (100 times the bottleneck rate,
// no delay) to its side's switch, and between the switches the bottleneck:
// the point's rate, half the base RTT each way, a drop-tail queue of BYTES.
// Linux's tbf counts Ethernet frames (1514 bytes for a full segment) where
// ns-3's point-to-point link counts PPP frames (1502): the rate and the
// queue are scaled by 1502/1514 so that both carry the same segments per
// second and hold the same number of them. TCP is set as Linux sets it:
// 1448-byte segments, initial window 10, 200 ms minimum RTO (or the
// point's "min_rto_ms"), SACK,
// timestamps, PRR, an ACK per two segments, no Nagle, 16 MB buffers. ns-3
// 3.37 has no RACK-TLP and no HyStart in these algorithms; docs/simulation.md
// says what that changes. A point with "ecn_mark_bytes" (the data-center
// regime) negotiates ECN on every flow and marks at the bottleneck instead
// of only dropping; one with "ack_priority" serves pure ACKs first there
// (both: PortQueueDisc).
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

#include "point.h"
#include "port_queue_disc.h"
#include "tcp_mltcp.h"
#include "training_worker.h"

using namespace ns3;
using nlohmann::json;
namespace fs = std::filesystem;

namespace mltcp::sim
{
namespace
{

constexpr double kLinuxFrame = 1514;	  // a full segment as tbf counts it (Ethernet)
constexpr double kPppFrame = 1502;	  // the same segment on an ns-3 point-to-point link
constexpr double kIpPacket = 1500;	  // the same segment in an ns-3 queue disc
constexpr uint32_t kEthernetOverPpp = 12; // an Ethernet header (14) less PPP's (2)
constexpr double kAccessSpeedup = 100;
constexpr uint16_t kJobPort = 7100;
constexpr uint32_t kBufferBytes = 16u << 20;
// Iteration 0 starts here, after every connection's handshake.
const Time kStart = Seconds(1);

void linux_like_tcp(const Point &point)
{
	Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
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
	Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
	Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
	Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
			   TypeIdValue(TcpPrrRecovery::GetTypeId()));
	// Linux's net.ipv4.tcp_ecn = 1 at both ends (DCTCP sets its own).
	Config::SetDefault(
		"ns3::TcpSocketBase::UseEcn",
		EnumValue(point.ecn_mark_bytes ? TcpSocketState::On : TcpSocketState::Off));
}

Ptr<TcpCongestionOps> make_cc(const Algorithm &alg)
{
	if (alg.kind == CcKind::ns3) {
		ObjectFactory factory(alg.ns3_type);
		return factory.Create<TcpCongestionOps>();
	}
	Ptr<TcpMltcp> cc = CreateObject<TcpMltcp>();
	cc->SetParams(alg.params); // parse_point() checked them
	cc->SetFixedBase(alg.fixed_base);
	if (alg.kind == CcKind::base)
		cc->SetAttribute("Exempt", BooleanValue(true));
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
	for (int p = 0; p < MLTCP_NR_PARAMS; p++) {
		char text[MLTCP_PARAM_TEXT];
		auto which = static_cast<mltcp_param>(p);
		mltcp_param_format(which, mltcp_param_get(&alg.params, which), text, sizeof(text));
		out[mltcp_param_name(which)] = text;
	}
	return out;
}

// A marking port's drops or marks (0 without ECN).
uint64_t port_stat(QueueDiscContainer &ports, uint32_t dir, bool marks)
{
	if (ports.GetN() <= dir)
		return 0;
	const QueueDisc::Stats &stats = ports.Get(dir)->GetStats();
	return marks ? stats.nTotalMarkedPackets : stats.nTotalDroppedPackets;
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

	// A port of our own where the point asks for marks or ACK priority.
	const bool port = point.ecn_mark_bytes != 0 || point.ack_priority;
	linux_like_tcp(point);
	RngSeedManager::SetSeed(static_cast<uint32_t>(point.seed));
	RngSeedManager::SetRun(run.rep + 1);

	NodeContainer switches, left, right;
	switches.Create(2);
	left.Create(jobs);
	right.Create(jobs);
	InternetStackHelper stack;
	stack.Install(switches);
	stack.Install(left);
	stack.Install(right);

	const double scale = kPppFrame / kLinuxFrame;
	PointToPointHelper access;
	access.SetDeviceAttribute("DataRate",
				  DataRateValue(DataRate(point.rate_mbit * 1e6 * kAccessSpeedup)));
	access.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
	access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
			QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, kBufferBytes)));
	PointToPointHelper bottleneck;
	bottleneck.SetDeviceAttribute("DataRate",
				      DataRateValue(DataRate(point.rate_mbit * 1e6 * scale)));
	bottleneck.SetChannelAttribute(
		"Delay", TimeValue(MicroSeconds(std::llround(point.rtt_ms * 1e3 / 2))));
	if (port) // the port's queue is the PortQueueDisc above the device
		bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
				    QueueSizeValue(QueueSize("1p")));
	else
		bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
				    QueueSizeValue(QueueSize(QueueSizeUnit::BYTES,
							     static_cast<uint32_t>(std::llround(
								     run.queue_limit * scale)))));

	Ipv4AddressHelper addresses;
	TrafficControlHelper no_qdisc;
	NetDeviceContainer core = bottleneck.Install(switches.Get(0), switches.Get(1));
	addresses.SetBase("10.255.0.0", "255.255.255.0");
	addresses.Assign(core);
	no_qdisc.Uninstall(core); // the device's drop-tail is the bottleneck's queue...
	QueueDiscContainer ports;
	if (port) { // ...or the PortQueueDisc: its bytes are IP packets' (1500)
		const double ip_scale = kIpPacket / kLinuxFrame;
		TrafficControlHelper helper;
		// By its TypeId, not its name: that links it in from the static library.
		helper.SetRootQueueDisc(
			PortQueueDisc::GetTypeId().GetName(), "MaxSize",
			QueueSizeValue(QueueSize(
				QueueSizeUnit::BYTES,
				static_cast<uint32_t>(std::llround(run.queue_limit * ip_scale)))),
			"MarkThreshold",
			UintegerValue(std::llround(point.ecn_mark_bytes * ip_scale)), "AckPriority",
			BooleanValue(point.ack_priority));
		ports = helper.Install(core);
	}

	std::vector<Ipv4Address> left_addr(jobs), right_addr(jobs);
	std::vector<Ptr<NetDevice>> left_dev(jobs);
	for (size_t j = 0; j < jobs; j++) {
		NetDeviceContainer l = access.Install(left.Get(j), switches.Get(0));
		NetDeviceContainer r = access.Install(right.Get(j), switches.Get(1));
		std::ostringstream lnet, rnet;
		lnet << "10." << j / 100 << "." << (j % 100) * 2 << ".0";
		rnet << "10." << j / 100 << "." << (j % 100) * 2 + 1 << ".0";
		addresses.SetBase(lnet.str().c_str(), "255.255.255.0");
		left_addr[j] = addresses.Assign(l).GetAddress(0);
		addresses.SetBase(rnet.str().c_str(), "255.255.255.0");
		right_addr[j] = addresses.Assign(r).GetAddress(0);
		no_qdisc.Uninstall(l);
		no_qdisc.Uninstall(r);
		left_dev[j] = l.Get(0);
	}
	Ipv4GlobalRoutingHelper::PopulateRoutingTables();

	// The bottleneck's drops, per direction (the driver's tbf drops).
	auto drops = std::make_shared<std::vector<uint64_t>>(2, 0);
	for (int d = 0; d < 2; d++) {
		Ptr<Queue<Packet>> queue =
			DynamicCast<PointToPointNetDevice>(core.Get(d))->GetQueue();
		queue->TraceConnectWithoutContext(
			"Drop", MakeBoundCallback(
					+[](std::vector<uint64_t> *count, int dir,
					    Ptr<const Packet>) { (*count)[dir]++; },
					drops.get(), d));
	}

	// What each job's left host sends into its switch (the driver's port counters).
	auto sent = std::make_shared<std::vector<uint64_t>>(jobs, 0);
	for (size_t j = 0; j < jobs; j++)
		left_dev[j]->TraceConnectWithoutContext(
			"PhyTxBegin", MakeBoundCallback(
					      +[](std::vector<uint64_t> *bytes, size_t job,
						  Ptr<const Packet> packet) {
						      // As the guest counts them: Ethernet frames.
						      (*bytes)[job] +=
							      packet->GetSize() + kEthernetOverPpp;
					      },
					      sent.get(), j));

	fs::create_directories(run.dir);
	std::vector<std::unique_ptr<std::ofstream>> logs;
	std::vector<Ptr<TrainingWorker>> workers;
	const std::string tag = run.alg.name + "/rep" + std::to_string(run.rep);
	for (size_t j = 0; j < jobs; j++) {
		const Job &job = point.jobs[j];
		for (unsigned rank = 0; rank < 2; rank++) {
			trainsim::Config config;
			config.job = job.name;
			config.rank = rank;
			config.world = 2;
			config.bytes = job.bytes;
			config.compute_us = job.compute_us;
			config.jitter_us = job.jitter_us;
			config.iterations = point.iterations;
			config.collective = job.collective;
			// A random start (bench.driver.start_offsets()) is the
			// same for every algorithm of a repeat: keyed by repeat.
			const std::string offset_key =
				"rep" + std::to_string(run.rep) + "/" + job.name + "/offset_us";
			config.offset_us = run.seeds.contains(offset_key)
						   ? run.seeds[offset_key].get<uint64_t>()
						   : job.offset_us;
			const std::string seed_key =
				tag + "/" + job.name + "/" + std::to_string(rank);
			config.seed = run.seeds.contains(seed_key)
					      ? run.seeds[seed_key].get<uint64_t>()
					      : point.seed;
			logs.push_back(std::make_unique<std::ofstream>(
				run.dir / (job.name + "-r" + std::to_string(rank) + ".jsonl")));
			Ptr<TrainingWorker> worker = CreateObject<TrainingWorker>(
				config, make_cc(run.alg), run.alg.cc, *logs.back(), 0);
			Ptr<Node> host = rank == 0 ? left.Get(j) : right.Get(j);
			Ipv4Address peer = rank == 0 ? right_addr[j] : left_addr[j];
			worker->Wire(kJobPort, InetSocketAddress(peer, kJobPort));
			worker->StartIterationsAt(kStart);
			host->AddApplication(worker);
			worker->SetStartTime(Seconds(0));
			workers.push_back(worker);
		}
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
		samples.push_back(json::array({ Simulator::Now().GetSeconds(), *sent }));
		bool done = true;
		for (const auto &worker : workers)
			done &= worker->Done();
		if (done || Simulator::Now() >= deadline)
			Simulator::Stop();
		else
			Simulator::Schedule(period, sample);
	};
	Simulator::Schedule(kStart, sample);
	Simulator::Run();

	std::vector<std::string> failures;
	json rtos = json::object(), flows = json::object();
	for (size_t w = 0; w < workers.size(); w++) {
		const Job &job = point.jobs[w / 2];
		workers[w]->Finish();
		if (!workers[w]->Done())
			failures.push_back(job.name + " rank " + std::to_string(w % 2) +
					   " did not finish by the deadline");
		const std::string host = (w % 2 ? "R" : "L") + std::to_string(w / 2 + 1);
		rtos[host] = workers[w]->Timeouts();
		flows[host] = json::array();
		// What the detector learned of the flow the worker sent on, in
		// the fields of `mltcpctl flow show -j` (the driver's "flows").
		if (Ptr<TcpMltcp> cc = DynamicCast<TcpMltcp>(workers[w]->SenderCc())) {
			const mltcp_flow &flow = cc->Flow();
			flows[host].push_back({ { "ca", run.alg.cc },
						{ "iterations", flow.iter.count },
						{ "iter_bytes", flow.iter.bytes },
						{ "bytes_acked", cc->BytesAcked() } });
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
		{ "drops",
		  { { "bottleneck",
		      { { "to-right", (*drops)[0] + port_stat(ports, 0, false) },
			{ "to-left", (*drops)[1] + port_stat(ports, 1, false) } } } } },
		{ "marks",
		  { { "bottleneck",
		      { { "to-right", port_stat(ports, 0, true) },
			{ "to-left", port_stat(ports, 1, true) } } } } },
		{ "failures", failures },
		{ "tag", tag },
		{ "sample_jobs", sample_jobs },
		{ "bulk", json::array() },
		{ "queue_limit_bytes", run.queue_limit },
		{ "flows", flows },
	};
	std::ofstream(run.dir / "meta.json") << meta.dump(1) << '\n';
	std::ofstream(run.dir / "samples.json") << samples.dump() << '\n';
	Simulator::Destroy();
	return failures;
}

int usage(const char *why)
{
	std::cerr << "mltcp-sim: " << why
		  << " (usage: mltcp-sim --queue-limit BYTES [--seeds FILE] POINT_DIR)\n";
	return 2;
}

} // namespace
} // namespace mltcp::sim

int main(int argc, char **argv)
{
	using namespace mltcp::sim;

	std::vector<std::string> args(argv + 1, argv + argc);
	uint64_t queue_limit = 0;
	fs::path seeds_path, dir;
	for (size_t i = 0; i < args.size(); i++) {
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
	if (!queue_limit || dir.empty())
		return usage("expected --queue-limit BYTES and POINT_DIR");
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
		if (point.ecn_mark_bytes >= queue_limit)
			throw PointError("ecn_mark_bytes " + std::to_string(point.ecn_mark_bytes) +
					 ": must be below the queue limit (" +
					 std::to_string(queue_limit) + " bytes)");
	} catch (const PointError &e) {
		std::cerr << "mltcp-sim: " << (dir / "config.json").string() << ": " << e.what()
			  << '\n';
		return 1;
	} catch (const json::exception &e) {
		std::cerr << "mltcp-sim: " << seeds_path.string() << ": " << e.what() << '\n';
		return 1;
	}
	for (unsigned rep = 0; rep < point.repeats; rep++)
		for (const Algorithm &alg : point.algorithms) {
			const fs::path out = dir / "raw" / alg.name / ("rep" + std::to_string(rep));
			for (const std::string &failure :
			     run_once(Run{ point, alg, rep, queue_limit, seeds, out }))
				std::cerr << "mltcp-sim: " << alg.name << " rep" << rep << ": "
					  << failure << '\n';
		}
	return 0;
}
