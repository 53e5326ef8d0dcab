// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "network.h"

#include <cmath>
#include <sstream>

#include "ns3/point-to-point-module.h"

#include "port_queue_disc.h"

using namespace ns3;
using nlohmann::json;

namespace mltcp::sim
{
namespace
{

constexpr double kLinuxFrame = 1514;	  // a full segment as tbf counts it (Ethernet)
constexpr double kPppFrame = 1502;	  // the same segment on an ns-3 point-to-point link
constexpr double kIpPacket = 1500;	  // the same segment in an ns-3 queue disc
constexpr uint32_t kEthernetOverPpp = 12; // an Ethernet header (14) less PPP's (2)
constexpr double kAccessSpeedup = 100;	  // the dumbbell's host links
constexpr uint32_t kHostQueueBytes = 16u << 20;

// Linux's tbf counts Ethernet frames where ns-3's point-to-point link counts
// PPP frames and a queue disc IP packets: rates and queues are scaled so that
// each carries and holds the same segments.
DataRate link_rate(double mbit)
{
	return DataRate(static_cast<uint64_t>(std::llround(mbit * 1e6 * kPppFrame / kLinuxFrame)));
}

uint32_t ip_bytes(uint64_t linux_bytes)
{
	return static_cast<uint32_t>(std::llround(linux_bytes * kIpPacket / kLinuxFrame));
}

// A switch port as the point asks: its limit, its marking (a step or the
// ramp, thresholds in Linux's frames as the limit), ACKs first or not, and
// progress priority's training classes, if any.
Ptr<QueueDisc> install_port(Ptr<NetDevice> device, uint64_t limit, const Point &point)
{
	std::string dscps; // the training classes', empty: none
	for (uint8_t dscp : point.prio_dscps)
		dscps += (dscps.empty() ? "" : ",") + std::to_string(dscp);
	TrafficControlHelper helper;
	// By its TypeId, not its name: that links it in from the static library.
	helper.SetRootQueueDisc(
		PortQueueDisc::GetTypeId().GetName(), "MaxSize",
		QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, ip_bytes(limit))), "MarkThreshold",
		UintegerValue(point.ecn_mark_bytes ? ip_bytes(point.ecn_mark_bytes) : 0), "RampMin",
		UintegerValue(ip_bytes(point.ecn_kmin_bytes)), "RampMax",
		UintegerValue(point.ecn_kmax_bytes ? ip_bytes(point.ecn_kmax_bytes) : 0),
		"RampPmax", DoubleValue(point.ecn_pmax), "AckPriority",
		BooleanValue(point.ack_priority), "TrainingDscps", StringValue(dscps),
		"BestEffortWeight", DoubleValue(point.prio_be_weight), "TrainingEct",
		BooleanValue(point.marks_ecn()));
	return helper.Install(device).Get(0);
}

std::string subnet(uint32_t index)
{
	std::ostringstream out;
	out << "10." << index / 256 << "." << index % 256 << ".0";
	return out.str();
}

} // namespace

uint64_t payload_bps(double rate_mbit)
{
	return static_cast<uint64_t>(std::llround(rate_mbit * 1e6 * kLinuxMss / kLinuxFrame));
}

unsigned spine_for(unsigned leaf, unsigned host, unsigned spines)
{
	uint32_t x = leaf * 0x9e3779b1u + host * 0x85ebca77u;
	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x % spines;
}

Network::Network(const Point &point, uint64_t queue_limit)
    : m_hosts(point.jobs.size()), m_addrs(point.jobs.size()), m_sent(point.jobs.size(), 0)
{
	if (point.leaf_spine)
		BuildLeafSpine(point, queue_limit);
	else
		BuildDumbbell(point, queue_limit);
}

void Network::CountSent(size_t job, Ptr<NetDevice> device)
{
	device->TraceConnectWithoutContext(
		"PhyTxBegin", MakeBoundCallback(
				      +[](uint64_t *bytes, Ptr<const Packet> packet) {
					      // As the guest counts them: Ethernet frames.
					      *bytes += packet->GetSize() + kEthernetOverPpp;
				      },
				      &m_sent[job]));
}

void Network::AddPort(const std::string &group, const std::string &name, Ptr<NetDevice> device,
		      Ptr<QueueDisc> disc)
{
	auto port = std::make_unique<Port>();
	port->group = group;
	port->name = name;
	port->disc = disc;
	port->device_queue = DynamicCast<PointToPointNetDevice>(device)->GetQueue();
	auto count = MakeBoundCallback(+[](uint64_t *n, Ptr<const Packet>) { ++*n; },
				       &port->device_drops);
	port->device_queue->TraceConnectWithoutContext("Drop", count);
	// Without a queue disc, a packet that meets the device's queue stopped
	// (full, by its flow control) is dropped by the node's traffic-control
	// layer, not by the queue. The port is the only device of its node that
	// fills (the dumbbell's switch: its host links run 100 times faster
	// into 16 MB), so the layer's drops are the port's.
	if (!disc) {
		const bool connected =
			device->GetNode()->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
				"TcDrop", count);
		NS_ABORT_MSG_UNLESS(connected, "no TrafficControlLayer TcDrop trace");
	}
	m_ports.push_back(std::move(port));
}

json Network::PortCounts(bool marks) const
{
	json out = json::object();
	for (const auto &port : m_ports) {
		uint64_t n = marks ? 0 : port->device_drops;
		if (port->disc) {
			const QueueDisc::Stats &stats = port->disc->GetStats();
			n += marks ? stats.nTotalMarkedPackets : stats.nTotalDroppedPackets;
		}
		out[port->group][port->name] = n;
	}
	return out;
}

json Network::Drops() const
{
	return PortCounts(false);
}

json Network::Marks() const
{
	return PortCounts(true);
}

void Network::BuildDumbbell(const Point &point, uint64_t queue_limit)
{
	const size_t jobs = point.jobs.size();
	// A port of our own where the point asks for marks or ACK priority.
	const bool port = point.marks_ecn() || point.ack_priority || point.port_queue ||
			  !point.prio_dscps.empty();

	NodeContainer switches, left, right;
	switches.Create(2);
	left.Create(jobs);
	right.Create(jobs);
	InternetStackHelper stack;
	stack.Install(switches);
	stack.Install(left);
	stack.Install(right);

	PointToPointHelper access;
	access.SetDeviceAttribute("DataRate",
				  DataRateValue(DataRate(point.rate_mbit * 1e6 * kAccessSpeedup)));
	access.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
	access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
			QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, kHostQueueBytes)));
	PointToPointHelper bottleneck;
	bottleneck.SetDeviceAttribute("DataRate", DataRateValue(link_rate(point.rate_mbit)));
	bottleneck.SetChannelAttribute(
		"Delay", TimeValue(MicroSeconds(std::llround(point.rtt_ms * 1e3 / 2))));
	// The device's drop-tail is the bottleneck's queue, or the PortQueueDisc
	// above it (then the device holds one packet, as with BQL).
	const uint32_t device_queue =
		static_cast<uint32_t>(std::llround(queue_limit * kPppFrame / kLinuxFrame));
	bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
			    QueueSizeValue(port ? QueueSize("1p")
						: QueueSize(QueueSizeUnit::BYTES, device_queue)));

	Ipv4AddressHelper addresses;
	TrafficControlHelper no_qdisc;
	NetDeviceContainer core = bottleneck.Install(switches.Get(0), switches.Get(1));
	if (point.reverse_rate_mbit)
		core.Get(1)->SetAttribute("DataRate",
					  DataRateValue(link_rate(point.reverse_rate_mbit)));
	addresses.SetBase("10.255.0.0", "255.255.255.0");
	addresses.Assign(core);
	no_qdisc.Uninstall(core);
	for (int d = 0; d < 2; d++) {
		Ptr<QueueDisc> disc;
		if (port)
			disc = install_port(core.Get(d), queue_limit, point);
		AddPort("bottleneck", d == 0 ? "to-right" : "to-left", core.Get(d), disc);
	}

	for (size_t j = 0; j < jobs; j++) {
		NetDeviceContainer l = access.Install(left.Get(j), switches.Get(0));
		NetDeviceContainer r = access.Install(right.Get(j), switches.Get(1));
		addresses.SetBase(subnet(2 * j).c_str(), "255.255.255.0");
		m_addrs[j][0] = addresses.Assign(l).GetAddress(0);
		addresses.SetBase(subnet(2 * j + 1).c_str(), "255.255.255.0");
		m_addrs[j][1] = addresses.Assign(r).GetAddress(0);
		no_qdisc.Uninstall(l);
		no_qdisc.Uninstall(r);
		m_hosts[j] = { left.Get(j), right.Get(j) };
		CountSent(j, l.Get(0));
	}
	Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

void Network::BuildLeafSpine(const Point &point, uint64_t queue_limit)
{
	const LeafSpine &fabric = *point.leaf_spine;
	const unsigned nhosts = fabric.leaves * fabric.hosts_per_leaf;
	auto leaf_of = [&](unsigned host) { return host / fabric.hosts_per_leaf; };

	NodeContainer hosts, leaves, spines;
	hosts.Create(nhosts);
	leaves.Create(fabric.leaves);
	spines.Create(fabric.spines);
	InternetStackHelper stack;
	stack.Install(hosts);
	stack.Install(leaves);
	stack.Install(spines);

	// Host, leaf, spine, leaf, host: four links each way. A host's link
	// carries the point's rate to the host; from the host it is as fast as
	// the dumbbell's, so that what a window sends waits at a switch port,
	// not in the host (Linux's TCP small queues keep it in the socket).
	const Time delay = MicroSeconds(std::llround(point.rtt_ms * 1e3 / 8));
	PointToPointHelper host_link, fabric_link;
	host_link.SetDeviceAttribute("DataRate", DataRateValue(link_rate(point.rate_mbit)));
	fabric_link.SetDeviceAttribute("DataRate", DataRateValue(link_rate(fabric.fabric_mbit)));
	for (PointToPointHelper *link : { &host_link, &fabric_link }) {
		link->SetChannelAttribute("Delay", TimeValue(delay));
		link->SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
			       QueueSizeValue(QueueSize("1p")));
	}
	const DataRate host_nic(static_cast<uint64_t>(point.rate_mbit * 1e6 * kAccessSpeedup));

	Ipv4AddressHelper addresses;
	TrafficControlHelper no_qdisc;
	uint32_t subnets = 0;
	// A link's two ends: its devices and addresses (a, then b).
	struct Ends {
		Ptr<NetDevice> a, b;
		Ipv4Address addr_a, addr_b;
	};
	auto connect = [&](PointToPointHelper &helper, Ptr<Node> a, Ptr<Node> b) {
		NetDeviceContainer devices = helper.Install(a, b);
		addresses.SetBase(subnet(subnets++).c_str(), "255.255.255.0");
		Ipv4InterfaceContainer ifs = addresses.Assign(devices);
		no_qdisc.Uninstall(devices);
		return Ends{ devices.Get(0), devices.Get(1), ifs.GetAddress(0), ifs.GetAddress(1) };
	};
	const std::string leaf_name = "leaf", spine_name = "spine", host_name = "h";
	std::vector<Ends> host_links(nhosts);
	std::vector<std::vector<Ends>> up(fabric.leaves); // [leaf][spine]: a leaf, b spine
	for (unsigned h = 0; h < nhosts; h++) {
		const unsigned leaf = leaf_of(h);
		host_links[h] = connect(host_link, hosts.Get(h), leaves.Get(leaf));
		host_links[h].a->SetAttribute("DataRate", DataRateValue(host_nic));
		DynamicCast<PointToPointNetDevice>(host_links[h].a)
			->GetQueue()
			->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, kHostQueueBytes));
		const std::string hn = host_name + std::to_string(h);
		const std::string ln = leaf_name + std::to_string(leaf);
		AddPort("fabric", ln + ">" + hn, host_links[h].b,
			install_port(host_links[h].b, queue_limit, point));
	}
	for (unsigned l = 0; l < fabric.leaves; l++)
		for (unsigned s = 0; s < fabric.spines; s++) {
			up[l].push_back(connect(fabric_link, leaves.Get(l), spines.Get(s)));
			const std::string ln = leaf_name + std::to_string(l);
			const std::string sn = spine_name + std::to_string(s);
			AddPort("fabric", ln + ">" + sn, up[l][s].a,
				install_port(up[l][s].a, queue_limit, point));
			AddPort("fabric", sn + ">" + ln, up[l][s].b,
				install_port(up[l][s].b, queue_limit, point));
		}

	// Static routes to every host's address: hosts through their leaf; a
	// leaf to its own hosts directly and to others through spine_for();
	// a spine through the destination's leaf.
	Ipv4StaticRoutingHelper routing;
	auto table = [&](Ptr<Node> node) {
		return routing.GetStaticRouting(node->GetObject<Ipv4>());
	};
	auto iface = [](Ptr<NetDevice> device) {
		return static_cast<uint32_t>(
			device->GetNode()->GetObject<Ipv4>()->GetInterfaceForDevice(device));
	};
	const Ipv4Mask host_mask("255.255.255.255");
	for (unsigned h = 0; h < nhosts; h++) {
		table(hosts.Get(h))->SetDefaultRoute(host_links[h].addr_b, iface(host_links[h].a));
		const Ipv4Address dest = host_links[h].addr_a;
		const unsigned home = leaf_of(h);
		for (unsigned l = 0; l < fabric.leaves; l++) {
			if (l == home) {
				table(leaves.Get(l))->AddHostRouteTo(dest, iface(host_links[h].b));
				continue;
			}
			const Ends &via = up[l][spine_for(l, h, fabric.spines)];
			table(leaves.Get(l))->AddHostRouteTo(dest, via.addr_b, iface(via.a));
		}
		for (unsigned s = 0; s < fabric.spines; s++)
			table(spines.Get(s))
				->AddHostRouteTo(dest, up[home][s].addr_a, iface(up[home][s].b));
	}

	// The jobs' hosts, counters, and the links their bytes cross.
	auto path = [&](unsigned from, unsigned to) {
		const std::string src = host_name + std::to_string(from);
		const std::string dst = host_name + std::to_string(to);
		const unsigned lf = leaf_of(from), lt = leaf_of(to);
		const std::string lfn = leaf_name + std::to_string(lf);
		const std::string ltn = leaf_name + std::to_string(lt);
		std::vector<std::string> links{ src + ">" + lfn };
		if (lf != lt) {
			const std::string sn =
				spine_name + std::to_string(spine_for(lf, to, fabric.spines));
			links.push_back(lfn + ">" + sn);
			links.push_back(sn + ">" + ltn);
		}
		links.push_back(ltn + ">" + dst);
		return links;
	};
	for (size_t j = 0; j < point.jobs.size(); j++) {
		const Job &job = point.jobs[j];
		for (unsigned rank = 0; rank < 2; rank++) {
			m_hosts[j][rank] = hosts.Get(job.hosts[rank]);
			m_addrs[j][rank] = host_links[job.hosts[rank]].addr_a;
		}
		CountSent(j, host_links[job.hosts[0]].a);
		std::vector<std::pair<unsigned, unsigned>> directions{ { job.hosts[0],
									 job.hosts[1] } };
		if (job.collective != trainsim::Collective::push) // exchange, ring
			directions.emplace_back(job.hosts[1], job.hosts[0]);
		for (auto [from, to] : directions)
			for (const std::string &link : path(from, to))
				m_links[link].push_back(job.name);
	}
}

} // namespace mltcp::sim
