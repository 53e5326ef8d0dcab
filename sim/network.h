// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The networks a point runs on, built in ns-3.
//
// The dumbbell (the default) is the guest driver's: job j's worker 0 on host
// Lj and worker 1 on Rj, every host on a fast link (100 times the bottleneck
// rate, no delay) to its side's switch, and between the switches the
// bottleneck: the point's rate (right to left its reverse rate, if it
// has one), half the base RTT each way, a drop-tail queue (or a
// PortQueueDisc where the point marks or serves ACKs first).
//
// The leaf-spine fabric (issue 13, item 7) is a data-center cluster: hosts
// on leaves, every leaf linked to every spine, each host on one link to its
// leaf, leaf-spine links at the fabric's rate, every link an eighth of the
// base RTT one way (host, leaf, spine, leaf, host and back). A leaf sends to
// its hosts at the point's rate; hosts send as fast as the dumbbell's, so
// that a window waits at a switch port (Linux's TCP small queues keep it in
// the socket, where ns-3 would queue it in the NIC). Every switch port is a
// PortQueueDisc of the point's queue. A job names its two workers' hosts
// (no host is shared: a job's counter is its first host's NIC); two on one
// leaf talk over two links, half the base RTT. Routes
// are static and spread as ECMP spreads flows: a leaf sends to a host on
// another leaf through the spine its hash of (leaf, destination host) picks,
// so one destination always takes one path. ns-3 3.37's own ECMP picks a
// path per packet at random, which reorders every flow; a hash per flow of
// the 5-tuple is what fabrics do, and per destination is the same for jobs
// whose workers each talk to one peer.
#ifndef MLTCP_SIM_NETWORK_H
#define MLTCP_SIM_NETWORK_H

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include "point.h"

namespace mltcp::sim
{

// Linux's segment with timestamps: every simulated socket sends these.
constexpr uint32_t kLinuxMss = 1448;

// The payload rate of a line of rate_mbit as tbf counts it (full Ethernet
// frames), in bits per second.
uint64_t payload_bps(double rate_mbit);

class Network
{
public:
	// Builds the point's network in the current simulation; queue_limit is
	// the bottleneck's (the dumbbell) or every port's (the fabric) bytes,
	// in Linux's Ethernet frames.
	Network(const Point &point, uint64_t queue_limit);

	// Job j's worker `rank`: its host and address.
	ns3::Ptr<ns3::Node> Host(size_t job, unsigned rank) const { return m_hosts[job][rank]; }
	ns3::Ipv4Address Address(size_t job, unsigned rank) const { return m_addrs[job][rank]; }
	// Bytes that job j's rank-0 host has sent into the network, as the
	// guest's port counters count them (Ethernet frames).
	uint64_t Sent(size_t job) const { return m_sent[job]; }

	// meta.json's "drops" and "marks": the dumbbell's per direction of the
	// bottleneck ({"bottleneck": {"to-right", "to-left"}}, as the driver
	// records tbf's), the fabric's per switch port ({"fabric": {"leaf1>spine2",
	// ...}}).
	nlohmann::json Drops() const;
	nlohmann::json Marks() const;
	// The fabric's plan: per directed link, the jobs whose gradient bytes
	// cross it (both ways but for a push); bench.metrics.link_loads() sums their
	// communication fractions (CASSINI's compatibility: every sum at most
	// 1). Empty for the dumbbell.
	const nlohmann::json &Links() const { return m_links; }

private:
	struct Port {
		std::string group, name;
		ns3::Ptr<ns3::QueueDisc> disc; // or null: the device's own queue
		ns3::Ptr<ns3::Queue<ns3::Packet>> device_queue;
		uint64_t device_drops = 0;
	};

	void BuildDumbbell(const Point &point, uint64_t queue_limit);
	void BuildLeafSpine(const Point &point, uint64_t queue_limit);
	void CountSent(size_t job, ns3::Ptr<ns3::NetDevice> device);
	void AddPort(const std::string &group, const std::string &name,
		     ns3::Ptr<ns3::NetDevice> device, ns3::Ptr<ns3::QueueDisc> disc);
	nlohmann::json PortCounts(bool marks) const;

	std::vector<std::array<ns3::Ptr<ns3::Node>, 2>> m_hosts;
	std::vector<std::array<ns3::Ipv4Address, 2>> m_addrs;
	std::vector<uint64_t> m_sent;
	std::vector<std::unique_ptr<Port>> m_ports;
	nlohmann::json m_links = nlohmann::json::object();
};

// The spine a leaf sends through to a host on another leaf (the fabric's
// per-destination ECMP).
unsigned spine_for(unsigned leaf, unsigned host, unsigned spines);

} // namespace mltcp::sim

#endif // MLTCP_SIM_NETWORK_H
