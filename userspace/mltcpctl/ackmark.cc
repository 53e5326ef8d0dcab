// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// "mltcpctl ackmark": its words, help and output, and (with libbpf) the
// pure-ACK marker's life cycle. One program and its two maps per device:
// "add" loads the object, writes the DSCP, creates the clsact qdisc if there
// is none (refusing a device whose ffff: is another qdisc, such as ingress,
// which would take the filter on its ingress block) and attaches at our
// handle and priority, never replacing a filter that is there; "del"
// detaches ours and leaves the clsact qdisc, which may hold other filters;
// "show" lists the filter at our place on each device that has clsact and
// reads our program's maps by id. What the qdisc at ffff: is, and what
// filter is at our place, come from route netlink dumps (libmnl): libbpf's
// bpf_tc_query() answers EINVAL both for "no filter" and "a filter of
// another kind", and reading a program by id needs CAP_SYS_ADMIN, where the
// dump needs nothing.
#include "ackmark.h"

#include <net/if.h>

#include <cctype>
#include <iostream>

#include "error.h"
#include "object.h"

#ifdef MLTCPCTL_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>
#include <linux/capability.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>

#include "ackmark.skel.h"
#include "bpf_loader.h"
#include "fd.h"

namespace mltcpctl::ackmark
{

namespace
{

using mltcp::Fd;

std::string already(const std::string &dev)
{
	return "dev " + dev +
	       ": a filter is already at the marker's place on its egress hook (mltcpctl "
	       "ackmark show; del it first)";
}

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

struct MnlCloser {
	void operator()(mnl_socket *s) const { mnl_socket_close(s); }
};

// A route netlink dump of one type for one device: each reply's tcmsg and
// attributes (TCA_*) to on_entry.
template <typename F> void tc_dump(uint16_t type, uint32_t ifindex, uint32_t parent, F on_entry)
{
	std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
	std::unique_ptr<mnl_socket, MnlCloser> nl(mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC));
	nlmsghdr *req = mnl_nlmsg_put_header(buf.data());
	const char *what = type == RTM_GETQDISC ? "qdiscs" : "filters";

	if (!nl || mnl_socket_bind(nl.get(), 0, MNL_SOCKET_AUTOPID) < 0)
		throw Error(std::string("cannot open a route netlink socket: ") +
			    std::strerror(errno));
	req->nlmsg_type = type;
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq = static_cast<uint32_t>(time(nullptr));
	auto *tcm = static_cast<tcmsg *>(mnl_nlmsg_put_extra_header(req, sizeof(tcmsg)));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = static_cast<int>(ifindex);
	tcm->tcm_parent = parent;
	if (mnl_socket_sendto(nl.get(), req, req->nlmsg_len) < 0)
		throw Error(std::string("cannot list the ") + what + ": " + std::strerror(errno));
	auto on_msg = [](const nlmsghdr *nlh, void *data) -> int {
		const auto *t = static_cast<const tcmsg *>(mnl_nlmsg_get_payload(nlh));
		std::array<const nlattr *, TCA_MAX + 1> tb{};
		auto on_attr = [](const nlattr *attr, void *out) -> int {
			auto &table = *static_cast<std::array<const nlattr *, TCA_MAX + 1> *>(out);
			uint16_t type = mnl_attr_get_type(attr);

			if (type <= TCA_MAX)
				table[type] = attr;
			return MNL_CB_OK;
		};

		if (mnl_attr_parse(nlh, sizeof(*t), on_attr, &tb) < 0)
			return MNL_CB_ERROR;
		(*static_cast<F *>(data))(*t, tb);
		return MNL_CB_OK;
	};
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl.get(), buf.data(), buf.size());
		if (n < 0)
			throw Error(std::string("cannot list the ") + what + ": " +
				    std::strerror(errno));
		int rc = mnl_cb_run(buf.data(), static_cast<size_t>(n), req->nlmsg_seq,
				    mnl_socket_get_portid(nl.get()), on_msg, &on_entry);
		if (rc == MNL_CB_STOP)
			break;
		if (rc < 0)
			throw Error(std::string("cannot list the ") + what + ": " +
				    std::strerror(errno));
	}
}

std::string attr_string(const nlattr *attr)
{
	return attr && mnl_attr_validate(attr, MNL_TYPE_STRING) == 0 ? mnl_attr_get_str(attr) : "";
}

// The kind of the qdisc at ffff: (clsact's and ingress's place) of the
// device: "clsact", "ingress", or "" if there is none.
std::string ffff_qdisc(uint32_t ifindex)
{
	std::string kind;

	tc_dump(RTM_GETQDISC, ifindex, 0, [&](const tcmsg &t, const auto &tb) {
		if (static_cast<uint32_t>(t.tcm_ifindex) == ifindex &&
		    t.tcm_handle == TC_H_MAKE(TC_H_CLSACT, 0))
			kind = attr_string(tb[TCA_KIND]);
	});
	return kind;
}

// The filter at our handle and priority of the device's egress hook, from
// the filter dump (needs no privilege, unlike reading a program by id):
// Marker's prog_id and ours; false if there is none.
bool at_our_place(uint32_t ifindex, Marker &m)
{
	bool found = false;

	if (ffff_qdisc(ifindex) != "clsact")
		return false;
	tc_dump(RTM_GETTFILTER, ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS),
		[&](const tcmsg &t, const auto &tb) {
			// Our priority holds one kind of filter: a BPF one at
			// another handle can sit beside ours, any other kind
			// keeps ours out.
			bool bpf = attr_string(tb[TCA_KIND]) == "bpf";
			if (TC_H_MAJ(t.tcm_info) >> 16 != MLTCP_ACKMARK_TC_PRIORITY ||
			    (bpf && t.tcm_handle != MLTCP_ACKMARK_TC_HANDLE))
				return;
			found = true;
			m.prog_id = 0;
			m.ours = false;
			if (!bpf || !tb[TCA_OPTIONS])
				return;
			auto on_option = [](const nlattr *opt, void *data) -> int {
				auto *marker = static_cast<Marker *>(data);

				if (mnl_attr_get_type(opt) == TCA_BPF_ID &&
				    mnl_attr_validate(opt, MNL_TYPE_U32) == 0)
					marker->prog_id = mnl_attr_get_u32(opt);
				// libbpf names the filter "PROGRAM:[ID]".
				if (mnl_attr_get_type(opt) == TCA_BPF_NAME)
					marker->ours =
						attr_string(opt).rfind(MLTCP_ACKMARK_PROG_NAME ":[",
								       0) == 0;
				return MNL_CB_OK;
			};
			mnl_attr_parse_nested(tb[TCA_OPTIONS], on_option, &m);
		});
	return found;
}

// Reads our program's DSCP and counters through its maps (by id: needs
// CAP_SYS_ADMIN); fills nothing for another program.
void describe(Marker &m)
{
	uint32_t map_ids[4] = {};
	bpf_prog_info info{};
	uint32_t len = sizeof(info);

	// By id: CAP_SYS_ADMIN. Without it, the DSCP and counts stay unknown.
	if (!m.prog_id || !*m.ours)
		return;
	Fd prog(bpf_prog_get_fd_by_id(m.prog_id));
	if (!prog.valid())
		return;
	info.nr_map_ids = 4;
	info.map_ids = reinterpret_cast<uintptr_t>(map_ids);
	if (bpf_obj_get_info_by_fd(prog.get(), &info, &len) < 0)
		return;
	if (std::strncmp(info.name, MLTCP_ACKMARK_PROG_NAME, sizeof(info.name)) != 0) {
		m.ours = false;
		return;
	}
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
	std::string qdisc = ffff_qdisc(ifindex);
	if (!qdisc.empty() && qdisc != "clsact")
		throw Error("dev " + dev + ": has an " + qdisc +
			    " qdisc where clsact would go (ffff:); the marker needs clsact's "
			    "egress hook");
	Marker there;
	if (at_our_place(ifindex, there))
		throw Error(already(dev));

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
	bool created = false;
	if (qdisc.empty()) {
		err = bpf_tc_hook_create(&hook);
		// -EEXIST: another tc made one meanwhile; what it is, is checked below.
		if (err && err != -EEXIST)
			throw bpf::libbpf_error("dev " + dev + ": cannot add the clsact qdisc",
						err);
		created = err == 0;
		if (ffff_qdisc(ifindex) != "clsact")
			throw Error("dev " + dev + ": another qdisc took clsact's place meanwhile");
	}
	bpf_tc_opts opts = our_place();
	opts.prog_fd = bpf_program__fd(skel->progs.mltcp_ackmark);
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		Error failed = err == -EEXIST
				       ? Error(already(dev))
				       : bpf::libbpf_error(
						 "dev " + dev + ": cannot attach the marker", err);
		// Only what this call made: the qdisc may be shared otherwise.
		if (created) {
			hook.attach_point =
				static_cast<bpf_tc_attach_point>(BPF_TC_INGRESS | BPF_TC_EGRESS);
			bpf_tc_hook_destroy(&hook);
		}
		throw failed;
	}
}

void del(const std::string &dev)
{
	if (!bpf::has_capability(CAP_NET_ADMIN))
		throw Error("permission denied: ackmark del needs CAP_NET_ADMIN, which this "
			    "process does not have: run it as root");
	if (dev.empty() || dev.size() >= IFNAMSIZ)
		throw Error("dev \"" + dev + "\": not a device name");
	uint32_t ifindex = if_nametoindex(dev.c_str());
	if (!ifindex)
		throw Error("dev " + dev + ": no such device");
	Marker m;
	m.dev = dev;
	if (!at_our_place(ifindex, m))
		throw Error("dev " + dev + ": no ACK marker");
	if (!*m.ours)
		throw Error("dev " + dev + ": the filter at the marker's place is not the marker " +
			    (m.prog_id ? "(program id " + std::to_string(m.prog_id) + ")"
				       : std::string("(a filter of another kind)")) +
			    "; left alone");
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
		if (!at_our_place(ifindex, m))
			continue;
		describe(m);
		out.push_back(m);
	}
	return out;
}

} // namespace mltcpctl::ackmark
#endif // MLTCPCTL_BPF

namespace mltcpctl
{
namespace
{

// ackmark { add dev DEV dscp DSCP | del dev DEV | show [dev DEV] }
void parse_ackmark(Args &a, Command &cmd)
{
	enum class Sub { Add, Del, Show, Help };
	static const std::vector<Keyword<Sub>> commands = {
		{ "add", Sub::Add },   { "del", Sub::Del },   { "delete", Sub::Del },
		{ "show", Sub::Show }, { "list", Sub::Show }, { "ls", Sub::Show },
		{ "help", Sub::Help },
	};
	Sub sub = Sub::Show;
	bool dscp_given = false;

	if (cmd.options.backend != BackendKind::Auto)
		fail("ackmark: a tc filter of its own, used with either backend; drop -b");
	cmd.action = Action::AckmarkShow;
	if (!a.done())
		sub = match(a.next(), commands, "ackmark command");
	if (sub == Sub::Help) {
		help_of(a, cmd, "ackmark");
		return;
	}
	cmd.action = sub == Sub::Add   ? Action::AckmarkAdd
		     : sub == Sub::Del ? Action::AckmarkDel
				       : Action::AckmarkShow;
	while (!a.done()) {
		bool is_dev = match<bool>(a.next(), { { "dev", true }, { "dscp", false } },
					  "ackmark argument");
		if (is_dev) {
			if (!cmd.dev.empty())
				fail("dev given twice");
			cmd.dev = std::string(a.value("dev"));
			if (cmd.dev.empty() || cmd.dev.size() >= IFNAMSIZ ||
			    cmd.dev.find_first_of("/ ") != std::string::npos)
				fail("dev \"" + cmd.dev + "\": not a device name");
			continue;
		}
		if (sub != Sub::Add)
			fail("dscp: only \"ackmark add\" takes one");
		if (dscp_given)
			fail("dscp given twice");
		cmd.dscp = parse_dscp("dscp", a.value("dscp"));
		dscp_given = true;
	}
	if (sub != Sub::Show && cmd.dev.empty())
		fail(std::string("ackmark ") + (sub == Sub::Add ? "add" : "del") +
		     " needs dev DEV");
	if (sub == Sub::Add && !dscp_given)
		fail("ackmark add needs dscp DSCP (the class the fabric serves first)");
}

std::string ackmark_help()
{
	return "       mltcpctl [OPTIONS] ackmark { add dev DEV dscp DSCP | del dev DEV |\n"
	       "                                    show [dev DEV] }\n"
	       "DSCP := { 0-63 | cs0-cs7 | af11-af43 | ef }\n"
	       "  Gives the pure TCP ACKs leaving DEV (Ethernet) this DSCP, for a fabric\n"
	       "  that serves it first: exchanging jobs hold their turns only if their\n"
	       "  ACKs do not wait behind the other jobs' data. A tc BPF filter on DEV's\n"
	       "  clsact egress hook (-n: DEV in that namespace); data segments, SYN, FIN\n"
	       "  and RST are never marked, ECN bits are kept. add needs CAP_BPF (or\n"
	       "  CAP_SYS_ADMIN) and CAP_NET_ADMIN, del CAP_NET_ADMIN; show reads the\n"
	       "  DSCP and counts with CAP_SYS_ADMIN.\n";
}

// "mltcpctl ackmark add|del|show": the pure-ACK marker, backend-neutral.
int run_ackmark(const Command &cmd, std::ostream &out)
{
#ifdef MLTCPCTL_BPF
	bpf::set_debug(cmd.options.debug);
	switch (cmd.action) {
	case Action::AckmarkAdd: ackmark::add(cmd.dev, cmd.dscp); break;
	case Action::AckmarkDel: ackmark::del(cmd.dev); break;
	default: {
		Printer p(out, cmd.options.json, cmd.options.pretty);
		std::optional<std::string> dev;

		if (!cmd.dev.empty())
			dev = cmd.dev;
		p.begin_list();
		for (const ackmark::Marker &m : ackmark::show(dev))
			print_ackmark(p, m);
		p.end_list();
		break;
	}
	}
	return 0;
#else
	(void)cmd;
	(void)out;
	throw Error("this mltcpctl was built without BPF support (libbpf-dev missing at build "
		    "time): no ACK marker");
#endif
}

} // namespace

const Object ackmark_object = {
	"ackmark",
	"ackmark { add | del | show } ...",
	"a DSCP for pure ACKs leaving a device",
	parse_ackmark,
	ackmark_help,
	run_ackmark,
};

void print_ackmark(Printer &p, const ackmark::Marker &m)
{
	p.begin_object();
	p.field("dev", m.dev, "dev " + m.dev);
	p.field("ifindex", m.ifindex, "");
	p.field("prog_id", m.prog_id,
		m.prog_id ? "prog id " + std::to_string(m.prog_id) : "(a filter of another kind)");
	p.field("ours", m.ours ? nlohmann::json(*m.ours) : nlohmann::json(nullptr),
		m.ours.value_or(true) || !m.prog_id ? "" : "(another program, not the marker)");
	p.field("dscp", m.dscp ? nlohmann::json(*m.dscp) : nlohmann::json(nullptr),
		m.dscp ? "dscp " + std::to_string(*m.dscp) : "");
	if (m.stats) {
		for (unsigned i = 0; i < MLTCP_ACKMARK_NR_STATS; i++)
			p.field(ackmark::stat_name(i), (*m.stats)[i],
				std::string(ackmark::stat_name(i)) + " " +
					std::to_string((*m.stats)[i]));
	}
	p.end_object();
}

} // namespace mltcpctl
