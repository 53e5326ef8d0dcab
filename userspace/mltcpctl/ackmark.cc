// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The pure-ACK marker's life cycle. One program and its two maps per device:
// "add" loads the object, writes the DSCP, creates the clsact hook if there
// is none and attaches at our handle and priority (never replacing a filter
// that is there); "del" detaches ours and leaves the clsact qdisc, which may
// hold other filters; "show" queries each device's hook and reads our
// program's maps by id.
#include "ackmark.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <net/if_arp.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "ackmark.skel.h"
#include "bpf_loader.h"
#include "fd.h"

namespace mltcpctl::ackmark
{

namespace
{

using mltcp::Fd;

struct SkelDeleter {
	void operator()(mltcp_ackmark_bpf *skel) const { mltcp_ackmark_bpf__destroy(skel); }
};
using Skel = std::unique_ptr<mltcp_ackmark_bpf, SkelDeleter>;

// The device's index, checked to carry Ethernet frames (the program parses
// an Ethernet header; a veth does, a tunnel or loopback does not).
uint32_t ethernet_ifindex(const std::string &dev)
{
	ifreq ifr{};

	if (dev.empty() || dev.size() >= IFNAMSIZ)
		throw Error("dev \"" + dev + "\": not a device name");
	uint32_t ifindex = if_nametoindex(dev.c_str());
	if (!ifindex)
		throw Error("dev " + dev + ": no such device");
	Fd sock(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	dev.copy(ifr.ifr_name, IFNAMSIZ - 1);
	if (!sock.valid() || ioctl(sock.get(), SIOCGIFHWADDR, &ifr) < 0)
		throw Error("dev " + dev + ": cannot read its type: " + std::strerror(errno));
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		throw Error("dev " + dev +
			    ": not an Ethernet device (the marker parses Ethernet frames)");
	return ifindex;
}

bpf_tc_hook egress_hook(uint32_t ifindex)
{
	bpf_tc_hook hook{};

	hook.sz = sizeof(hook);
	hook.ifindex = static_cast<int>(ifindex);
	hook.attach_point = BPF_TC_EGRESS;
	return hook;
}

bpf_tc_opts our_place()
{
	bpf_tc_opts opts{};

	opts.sz = sizeof(opts);
	opts.handle = MLTCP_ACKMARK_TC_HANDLE;
	opts.priority = MLTCP_ACKMARK_TC_PRIORITY;
	return opts;
}

// The id of the program at our handle and priority, 0 if none.
uint32_t query(uint32_t ifindex)
{
	bpf_tc_hook hook = egress_hook(ifindex);
	bpf_tc_opts opts = our_place();

	if (bpf_tc_query(&hook, &opts) < 0)
		return 0;
	return opts.prog_id;
}

// Reads our program's DSCP and counters through its maps (by id: needs
// CAP_SYS_ADMIN); fills nothing for another program.
void describe(Marker &m)
{
	uint32_t map_ids[4] = {};
	bpf_prog_info info{};
	uint32_t len = sizeof(info);

	Fd prog(bpf_prog_get_fd_by_id(m.prog_id));
	if (!prog.valid()) {
		if (errno == EPERM)
			throw Error("permission denied: reading the markers needs CAP_SYS_ADMIN "
				    "(run it as root)");
		return; // gone meanwhile
	}
	info.nr_map_ids = 4;
	info.map_ids = reinterpret_cast<uintptr_t>(map_ids);
	if (bpf_obj_get_info_by_fd(prog.get(), &info, &len) < 0)
		return;
	m.ours = std::strncmp(info.name, MLTCP_ACKMARK_PROG_NAME, sizeof(info.name)) == 0;
	if (!m.ours)
		return;
	for (uint32_t i = 0; i < std::min(info.nr_map_ids, 4U); i++) {
		bpf_map_info map{};
		uint32_t map_len = sizeof(map);
		Fd fd(bpf_map_get_fd_by_id(map_ids[i]));
		uint32_t zero = 0;

		if (!fd.valid() || bpf_obj_get_info_by_fd(fd.get(), &map, &map_len) < 0)
			continue;
		if (std::strcmp(map.name, "ackmark_config") == 0) {
			mltcp_ackmark_config cfg{};

			if (bpf_map_lookup_elem(fd.get(), &zero, &cfg) == 0)
				m.dscp = cfg.dscp;
		} else if (std::strcmp(map.name, "ackmark_stats") == 0) {
			int cpus = libbpf_num_possible_cpus();
			std::array<uint64_t, MLTCP_ACKMARK_NR_STATS> sums{};
			bool read = cpus > 0;

			for (uint32_t s = 0; read && s < MLTCP_ACKMARK_NR_STATS; s++) {
				std::vector<uint64_t> per_cpu(static_cast<size_t>(cpus));

				read = bpf_map_lookup_elem(fd.get(), &s, per_cpu.data()) == 0;
				for (uint64_t n : per_cpu)
					sums[s] += n;
			}
			if (read)
				m.stats = sums;
		}
	}
}

} // namespace

void add(const std::string &dev, uint32_t dscp)
{
	bpf::require_caps("ackmark add", true, false);
	uint32_t ifindex = ethernet_ifindex(dev);
	if (query(ifindex))
		throw Error("dev " + dev +
			    ": a filter is already at the marker's place on its egress hook "
			    "(mltcpctl ackmark show; del it first)");

	Skel skel(mltcp_ackmark_bpf__open_and_load());
	if (!skel)
		throw bpf::libbpf_error("cannot load the ACK marker", errno);
	mltcp_ackmark_config cfg{ dscp };
	uint32_t zero = 0;
	int err = bpf_map__update_elem(skel->maps.ackmark_config, &zero, sizeof(zero), &cfg,
				       sizeof(cfg), BPF_ANY);
	if (err)
		throw bpf::libbpf_error("cannot write the marker's DSCP", err);

	bpf_tc_hook hook = egress_hook(ifindex);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		throw bpf::libbpf_error("dev " + dev + ": cannot add the clsact qdisc", err);
	bpf_tc_opts opts = our_place();
	opts.prog_fd = bpf_program__fd(skel->progs.mltcp_ackmark);
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		throw bpf::libbpf_error("dev " + dev + ": cannot attach the marker", err);
}

void del(const std::string &dev)
{
	bpf::require_caps("ackmark del", true, false);
	if (dev.empty() || dev.size() >= IFNAMSIZ)
		throw Error("dev \"" + dev + "\": not a device name");
	uint32_t ifindex = if_nametoindex(dev.c_str());
	if (!ifindex)
		throw Error("dev " + dev + ": no such device");
	Marker m;
	m.dev = dev;
	m.prog_id = query(ifindex);
	if (!m.prog_id)
		throw Error("dev " + dev + ": no ACK marker");
	describe(m);
	if (!m.ours)
		throw Error("dev " + dev +
			    ": the filter at the marker's place runs another "
			    "program (id " +
			    std::to_string(m.prog_id) + "); left alone");
	bpf_tc_hook hook = egress_hook(ifindex);
	bpf_tc_opts opts = our_place();
	int err = bpf_tc_detach(&hook, &opts);
	if (err)
		throw bpf::libbpf_error("dev " + dev + ": cannot detach the marker", err);
}

std::vector<Marker> show(const std::optional<std::string> &dev)
{
	std::vector<Marker> out;
	std::vector<std::pair<std::string, uint32_t>> devices;

	if (dev) {
		uint32_t ifindex = dev->size() < IFNAMSIZ ? if_nametoindex(dev->c_str()) : 0;
		if (!ifindex)
			throw Error("dev " + *dev + ": no such device");
		devices.emplace_back(*dev, ifindex);
	} else {
		std::unique_ptr<struct if_nameindex, decltype(&if_freenameindex)> all(
			if_nameindex(), if_freenameindex);
		if (!all)
			throw Error(std::string("cannot list the devices: ") +
				    std::strerror(errno));
		for (const struct if_nameindex *i = all.get(); i->if_index; i++)
			devices.emplace_back(i->if_name, i->if_index);
	}
	for (const auto &[name, ifindex] : devices) {
		Marker m;

		m.dev = name;
		m.ifindex = ifindex;
		m.prog_id = query(ifindex);
		if (!m.prog_id)
			continue;
		describe(m);
		out.push_back(m);
	}
	return out;
}

} // namespace mltcpctl::ackmark
