// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// How load and unload find each other (measured on 6.18 with libbpf 1.1):
// the three tcp_congestion_ops are plain (non-link) struct_ops maps.
// Registering one (bpf_map__attach_struct_ops, a map update) makes the kernel
// hold a reference to the map, so the registration outlives mltcpctl. "bpf
// load" pins the three maps, the config, stats and jobs maps and the flow
// iterator's link under the pin directory; "bpf unload" deletes element 0 of
// each pinned struct_ops map, which unregisters it, then removes the pins
// (the job table goes with them: jobs do not outlive the backend, as the
// module's go with the module). If the pins are gone (bpffs unmounted),
// unload finds registered struct_ops maps named like ours and unregisters
// only those whose programs are this object's: it loads the object (without
// registering it) to learn its programs' tags, and reads the ids of the
// programs each registered map runs from the map's value through the
// kernel's BTF (as "bpftool struct_ops dump" does). Another loader's
// struct_ops that happens to be named "mltcp" is left alone and named.
#include "bpf_loader.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "error.h"
#include "mltcp.skel.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

namespace mltcpctl::bpf
{

const std::array<const char *, 3> kAlgorithms{ "mltcp", "mltcp_reno", "mltcp_cubic" };
const char *stat_name(unsigned index)
{
	if (index == MLTCP_BPF_STAT_FLOWS_STARTED)
		return "flows_started";
	// The verdicts, then the gate's, then the held moves up's, in the order
	// of the core's enums, named as the module's debugfs names them.
	if (index >= MLTCP_BPF_STAT_HOLD0)
		return mltcp_prio_hold_name(static_cast<mltcp_prio_hold>(index - MLTCP_BPF_STAT_HOLD0));
	if (index >= MLTCP_BPF_STAT_GATE0)
		return mltcp_gate_verdict_name(
			static_cast<mltcp_gate_verdict>(index - MLTCP_BPF_STAT_GATE0));
	return mltcp_verdict_name(static_cast<mltcp_tx_verdict>(index - MLTCP_BPF_STAT_VERDICT0));
}

namespace
{

constexpr unsigned long kBpfFsMagic = 0xcafe4a11;
constexpr const char *kAvailable = "/proc/sys/net/ipv4/tcp_available_congestion_control";
const std::string kPinDir = MLTCP_BPF_PIN_DIR;

// ---- RAII ----

struct SkelDeleter {
	void operator()(mltcp_bpf *skel) const { mltcp_bpf__destroy(skel); }
};
using Skel = std::unique_ptr<mltcp_bpf, SkelDeleter>;

struct LinkDeleter {
	void operator()(bpf_link *link) const { bpf_link__destroy(link); }
};
using Link = std::unique_ptr<bpf_link, LinkDeleter>;

struct BtfDeleter {
	void operator()(btf *b) const { btf__free(b); }
};

// ---- errors and libbpf's messages ----

std::string g_libbpf_log;
bool g_debug;

int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;
	int len;

	if (level == LIBBPF_DEBUG && !g_debug)
		return 0;
	va_copy(copy, ap);
	len = vsnprintf(nullptr, 0, fmt, copy);
	va_end(copy);
	if (len <= 0)
		return 0;
	std::string text(static_cast<size_t>(len) + 1, '\0');
	vsnprintf(text.data(), text.size(), fmt, ap);
	text.resize(static_cast<size_t>(len));
	if (g_debug)
		std::cerr << text;
	else
		g_libbpf_log += text;
	return 0;
}

std::string errno_text(int err)
{
	return std::strerror(err < 0 ? -err : err);
}

// The last "libbpf: ..." line, the most useful context for a one-line error.
std::string last_libbpf_line()
{
	std::istringstream in(g_libbpf_log);
	std::string line, last;

	while (std::getline(in, line)) {
		if (line.rfind("libbpf: ", 0) == 0)
			last = line.substr(8);
	}
	return last;
}

} // namespace

Error libbpf_error(const std::string &what, int err)
{
	std::string context = last_libbpf_line();
	std::string msg = what + ": " + errno_text(err);

	if (!context.empty())
		msg += " (" + context + ")";
	if (!g_debug)
		msg += "; mltcpctl -d shows libbpf's and the verifier's log";
	return Error(msg);
}

bool on_bpffs(const std::string &path)
{
	struct statfs st;

	return statfs(path.c_str(), &st) == 0 &&
	       static_cast<unsigned long>(st.f_type) == kBpfFsMagic;
}

namespace
{

// ---- files ----

std::string pin_path(const char *name)
{
	return kPinDir + "/" + name;
}

bool exists(const std::string &path)
{
	struct stat st;

	return stat(path.c_str(), &st) == 0;
}

// Pins need bpffs; it is mounted on /sys/fs/bpf when it is not yet.
void ensure_bpffs()
{
	const std::string parent = "/sys/fs/bpf";

	if (on_bpffs(parent))
		return;
	if (mount("bpf", parent.c_str(), "bpf", 0, "mode=0700") != 0)
		throw Error("cannot mount bpffs on " + parent + ": " + errno_text(errno));
}

std::set<std::string> available_ccs()
{
	std::ifstream in(kAvailable);
	std::set<std::string> names;
	std::string name;

	while (in >> name)
		names.insert(name);
	return names;
}

Fd open_pinned(const std::string &path)
{
	return Fd(bpf_obj_get(path.c_str()));
}

// ---- struct_ops maps in the kernel ----

bool is_algorithm(const std::string &name)
{
	for (const char *a : kAlgorithms) {
		if (name == a)
			return true;
	}
	return false;
}

// Every struct_ops map named like one of ours, with its state. The value
// starts with the kernel's refcount and state, 4 bytes each.
std::vector<OpsMap> scan_ops_maps()
{
	std::vector<OpsMap> maps;
	uint32_t id = 0;

	while (bpf_map_get_next_id(id, &id) == 0) {
		Fd fd(bpf_map_get_fd_by_id(id));
		bpf_map_info info = {};
		uint32_t len = sizeof(info);
		uint32_t key = 0;

		if (!fd.valid() || bpf_obj_get_info_by_fd(fd.get(), &info, &len) != 0 ||
		    info.type != BPF_MAP_TYPE_STRUCT_OPS || !is_algorithm(info.name) ||
		    info.value_size < 8)
			continue;
		std::vector<unsigned char> value(info.value_size);
		uint32_t state = 0xffffffff;
		if (bpf_map_lookup_elem(fd.get(), &key, value.data()) == 0)
			std::memcpy(&state, value.data() + 4, sizeof(state));
		maps.push_back({ info.name, id, state });
	}
	return maps;
}

// ---- load ----

// What load has done so far; undone unless commit() is reached, so a failed
// load leaves nothing registered and nothing pinned.
class PendingLoad
{
public:
	explicit PendingLoad(std::string dir) : dir_(std::move(dir)) {}
	PendingLoad(const PendingLoad &) = delete;
	PendingLoad &operator=(const PendingLoad &) = delete;
	~PendingLoad()
	{
		if (committed_)
			return;
		registrations_.clear(); // destroying a connected link unregisters
		for (auto it = pins_.rbegin(); it != pins_.rend(); ++it)
			unlink(it->c_str());
		if (made_dir_)
			rmdir(dir_.c_str());
	}

	void make_dir()
	{
		if (mkdir(dir_.c_str(), 0700) != 0)
			throw Error("cannot create " + dir_ + ": " + errno_text(errno));
		made_dir_ = true;
	}

	void pin_map(bpf_map *map, const char *name)
	{
		std::string path = dir_ + "/" + name;

		pinned(path, bpf_map__pin(map, path.c_str()));
	}

	void pin_link(bpf_link *link, const char *name)
	{
		std::string path = dir_ + "/" + name;

		pinned(path, bpf_link__pin(link, path.c_str()));
	}

	void register_ops(bpf_map *map, const char *name)
	{
		Link link(bpf_map__attach_struct_ops(map));

		if (!link) {
			int err = errno;
			if (err == EEXIST)
				throw Error(std::string(name) +
					    " is already registered (by the tcp_mltcp module or "
					    "another loader)");
			throw libbpf_error(std::string("cannot register ") + name, err);
		}
		registrations_.push_back(std::move(link));
	}

	// Keeps the registrations after the links are destroyed: the kernel's
	// reference to each registered map keeps it alive.
	void commit()
	{
		for (Link &link : registrations_)
			bpf_link__disconnect(link.get());
		committed_ = true;
	}

private:
	void pinned(const std::string &path, int err)
	{
		if (err)
			throw libbpf_error("cannot pin " + path, err);
		pins_.push_back(path);
	}

	std::string dir_;
	bool made_dir_ = false;
	bool committed_ = false;
	std::vector<std::string> pins_;
	std::vector<Link> registrations_;
};

// ---- what the kernel lets a BPF congestion control write ----

// Byte offset of a member of a struct or union in the kernel's BTF, also
// inside anonymous members; -1 if there is none.
long member_offset(const btf *vmlinux, const btf_type *t, const char *name)
{
	const btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(vmlinux, m->name_off);
		long bits = btf_member_bit_offset(t, i);

		if (n && std::strcmp(n, name) == 0)
			return bits % 8 ? -1 : bits / 8;
		const btf_type *inner = btf__type_by_id(vmlinux, m->type);
		if ((!n || !*n) && inner && btf_is_composite(inner)) {
			long off = member_offset(vmlinux, inner, name);
			if (off >= 0)
				return bits / 8 + off;
		}
	}
	return -1;
}

int member_index(const btf *vmlinux, const btf_type *t, const char *name)
{
	const btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(vmlinux, m->name_off);
		if (n && std::strcmp(n, name) == 0)
			return i;
	}
	return -1;
}

// What the verifier says of a tcp_congestion_ops cwnd_event program that
// stores 0 in the u32 at this offset of the socket's tcp_sock. Loaded and
// closed at once: nothing is registered.
enum class StoreVerdict { Accepted, Refused, Unknown };

StoreVerdict ca_store_verdict(int ops_type, int cwnd_event, long offset)
{
	const bpf_insn insns[] = {
		{ BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_1, 0, 0 }, // the socket
		{ BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0 },
		{ BPF_STX | BPF_MEM | BPF_W, BPF_REG_1, BPF_REG_2, static_cast<__s16>(offset), 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0 },
		{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};
	bpf_prog_load_opts opts{};

	opts.sz = sizeof(opts);
	opts.expected_attach_type = static_cast<bpf_attach_type>(cwnd_event);
	opts.attach_btf_id = static_cast<__u32>(ops_type);
	int ret = bpf_prog_load(BPF_PROG_TYPE_STRUCT_OPS, "mltcp_probe", "GPL", insns,
				sizeof(insns) / sizeof(insns[0]), &opts);
	Fd fd(ret);

	if (fd.valid())
		return StoreVerdict::Accepted;
	// The verifier refuses with EACCES; memory, a signal or a memcg limit
	// fail otherwise and say nothing of the store.
	return ret == -EACCES ? StoreVerdict::Refused : StoreVerdict::Unknown;
}

// Whether this kernel lets a BPF congestion control write
// tp->snd_cwnd_stamp (6.10 and later), tried against a store to snd_cwnd,
// which every kernel with BPF congestion control allows. Only the
// verifier's refusal of the stamp's store, where the other was accepted,
// says no; when the answer is unknown the object keeps its store, and
// loading it then says what is wrong.
bool cwnd_stamp_writable()
{
	std::unique_ptr<btf, BtfDeleter> vmlinux(btf__load_vmlinux_btf());

	if (!vmlinux)
		return true;
	int ops = btf__find_by_name_kind(vmlinux.get(), "tcp_congestion_ops", BTF_KIND_STRUCT);
	int sock = btf__find_by_name_kind(vmlinux.get(), "tcp_sock", BTF_KIND_STRUCT);
	if (ops <= 0 || sock <= 0)
		return true;
	const btf_type *tp = btf__type_by_id(vmlinux.get(), sock);
	int event = member_index(vmlinux.get(), btf__type_by_id(vmlinux.get(), ops), "cwnd_event");
	long cwnd = member_offset(vmlinux.get(), tp, "snd_cwnd");
	long stamp = member_offset(vmlinux.get(), tp, "snd_cwnd_stamp");
	if (event < 0 || cwnd < 0 || cwnd > INT16_MAX || stamp < 0 || stamp > INT16_MAX ||
	    ca_store_verdict(ops, event, cwnd) != StoreVerdict::Accepted)
		return true;
	return ca_store_verdict(ops, event, stamp) != StoreVerdict::Refused;
}

// The oldest kernel the object loads on (docs/bpf.md, "Kernels"): below it,
// a failed load says so, as the verifier's reason would not.
std::string too_old()
{
	utsname u;
	int major, minor;

	if (uname(&u) != 0 || std::sscanf(u.release, "%d.%d", &major, &minor) != 2 ||
	    major > 6 || (major == 6 && minor >= 1))
		return "";
	return std::string("; the BPF twin needs Linux 6.1 or later, this is ") + u.release;
}

// A kernel without the TCP iterator (built without procfs): load the
// congestion control without the flow list rather than not at all.
Skel open_and_load(bool &with_flows, bool &cwnd_stamp)
{
	cwnd_stamp = cwnd_stamp_writable();
	if (g_debug)
		std::cerr << "mltcpctl: snd_cwnd_stamp is " << (cwnd_stamp ? "" : "not ")
			  << "writable from BPF on this kernel\n";
	for (int attempt = 0; attempt < 2; attempt++) {
		Skel skel(mltcp_bpf__open());

		if (!skel)
			throw libbpf_error("cannot open the BPF object", errno);
		skel->rodata->mltcp_write_cwnd_stamp = cwnd_stamp;
		if (attempt == 1)
			bpf_program__set_autoload(skel->progs.mltcp_flows, false);
		g_libbpf_log.clear();
		int err = mltcp_bpf__load(skel.get());
		if (!err) {
			with_flows = attempt == 0;
			return skel;
		}
		if (attempt == 0 && g_libbpf_log.find("prog 'mltcp_flows'") != std::string::npos)
			continue;
		throw Error(libbpf_error("cannot load the BPF programs", err).what() + too_old());
	}
	throw Error("cannot load the BPF programs");
}

// ---- unload ----

// ---- which registered struct_ops are ours ----

std::string tag_of(int prog_fd)
{
	bpf_prog_info info = {};
	uint32_t len = sizeof(info);
	std::string tag;

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0)
		return "";
	for (unsigned char byte : info.tag) {
		static const char hex[] = "0123456789abcdef";
		tag += hex[byte >> 4];
		tag += hex[byte & 15];
	}
	return tag;
}

// The tags of this object's struct_ops programs, loaded but not registered.
std::set<std::string> own_tags()
{
	bool with_flows, cwnd_stamp;
	Skel skel = open_and_load(with_flows, cwnd_stamp);
	std::set<std::string> tags;
	bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj)
	{
		if (bpf_program__type(prog) == BPF_PROG_TYPE_STRUCT_OPS)
			tags.insert(tag_of(bpf_program__fd(prog)));
	}
	tags.erase("");
	return tags;
}

// The ids of the programs a registered struct_ops map runs: its value is
// the kernel's struct bpf_struct_ops_<ops> { common; data; }, whose
// function pointers in data hold program ids.
std::vector<uint32_t> ops_prog_ids(int map_fd, const bpf_map_info &info, const btf *vmlinux)
{
	const btf_type *value = btf__type_by_id(vmlinux, info.btf_vmlinux_value_type_id);
	std::vector<unsigned char> bytes(info.value_size);
	std::vector<uint32_t> ids;
	uint32_t key = 0;

	if (!value || !btf_is_struct(value) || bpf_map_lookup_elem(map_fd, &key, bytes.data()) != 0)
		return ids;
	const btf_member *m = btf_members(value);
	for (int i = 0; i < btf_vlen(value); i++, m++) {
		if (std::strcmp(btf__name_by_offset(vmlinux, m->name_off), "data") != 0)
			continue;
		size_t base = btf_member_bit_offset(value, i) / 8;
		const btf_type *data = btf__type_by_id(vmlinux, m->type);
		const btf_member *f = data && btf_is_struct(data) ? btf_members(data) : nullptr;
		for (int j = 0; f && j < btf_vlen(data); j++, f++) {
			const btf_type *t = btf__type_by_id(vmlinux, f->type);
			size_t at = base + btf_member_bit_offset(data, j) / 8;
			uint64_t id;

			if (!t || !btf_is_ptr(t) || at + sizeof(id) > bytes.size())
				continue;
			const btf_type *to = btf__type_by_id(vmlinux, t->type);
			if (!to || !btf_is_func_proto(to))
				continue;
			std::memcpy(&id, bytes.data() + at, sizeof(id));
			if (id)
				ids.push_back(static_cast<uint32_t>(id));
		}
	}
	return ids;
}

// Whether the registered map runs programs of this object, and only those.
bool is_ours(int map_fd, const std::set<std::string> &tags, const btf *vmlinux)
{
	bpf_map_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len) != 0)
		return false;
	std::vector<uint32_t> ids = ops_prog_ids(map_fd, info, vmlinux);
	for (uint32_t id : ids) {
		Fd prog(bpf_prog_get_fd_by_id(id));

		if (!prog.valid() || !tags.count(tag_of(prog.get())))
			return false;
	}
	return !ids.empty();
}

// Unregisters through the map: deleting element 0 of a registered
// struct_ops map. Returns true if this call unregistered it.
bool unregister_map(int fd, const std::string &what)
{
	uint32_t zero = 0;

	if (bpf_map_delete_elem(fd, &zero) == 0)
		return true;
	// EINPROGRESS: already unregistered, kept alive by sockets; ENOENT: never registered.
	if (errno == EINPROGRESS || errno == ENOENT)
		return false;
	throw Error("cannot unregister " + what + ": " + errno_text(errno));
}

// ---- status ----

} // namespace

std::optional<std::array<uint64_t, MLTCP_BPF_NR_STATS>> read_stats(const std::string &dir)
{
	Fd fd = open_pinned(dir + "/" MLTCP_BPF_PIN_STATS);
	int cpus = libbpf_num_possible_cpus();
	std::array<uint64_t, MLTCP_BPF_NR_STATS> stats{};

	if (!fd.valid() || cpus <= 0)
		return std::nullopt;
	std::vector<uint64_t> per_cpu(static_cast<size_t>(cpus));
	for (uint32_t i = 0; i < MLTCP_BPF_NR_STATS; i++) {
		if (bpf_map_lookup_elem(fd.get(), &i, per_cpu.data()) != 0)
			return std::nullopt;
		for (uint64_t v : per_cpu)
			stats[i] += v;
	}
	return stats;
}

bool has_capability(int cap)
{
	__user_cap_header_struct header{ _LINUX_CAPABILITY_VERSION_3, 0 };
	__user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &header, data) != 0)
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

// CAP_SYS_ADMIN stands in for CAP_BPF and CAP_PERFMON, as in the kernel.
void require_caps(const std::string &command, bool net_admin, bool perfmon)
{
	bool admin = has_capability(CAP_SYS_ADMIN);
	std::vector<std::string> missing;

	if (!admin && !has_capability(CAP_BPF))
		missing.push_back("CAP_BPF");
	if (net_admin && !has_capability(CAP_NET_ADMIN))
		missing.push_back("CAP_NET_ADMIN");
	if (perfmon && !admin && !has_capability(CAP_PERFMON))
		missing.push_back("CAP_PERFMON");
	if (missing.empty())
		return;
	std::string list;
	for (size_t i = 0; i < missing.size(); i++)
		list += (i ? " and " : "") + missing[i];
	throw Error("permission denied: " + command + " needs " + list +
		    ", which this process does not have: run it as root");
}

void set_debug(bool debug)
{
	g_debug = debug;
	libbpf_set_print(print_libbpf);
}

const char *state_name(uint32_t state)
{
	// enum bpf_struct_ops_state
	switch (state) {
	case 0: return "init";
	case 1: return "inuse";
	case 2: return "tobefree";
	case 3: return "ready";
	default: return "unknown";
	}
}

Loaded load(const mltcp_params &defaults, const mltcp_prio_config &prio)
{
	Loaded loaded;
	uint32_t zero = 0;

	require_caps("bpf load", true, true);
	check_defaults(defaults);
	if (!mltcp_prio_config_valid(&prio))
		throw Error("invalid progress priority configuration");
	ensure_bpffs();
	if (exists(kPinDir))
		throw Error("already loaded: " + kPinDir + " exists (mltcpctl bpf unload first)");
	std::set<std::string> available = available_ccs();
	for (const char *name : kAlgorithms) {
		if (available.count(name))
			throw Error(std::string(name) +
				    " is already registered (by the tcp_mltcp module or another "
				    "loader)");
	}

	Skel skel = open_and_load(loaded.flows, loaded.cwnd_stamp);
	int rc = bpf_map__update_elem(skel->maps.mltcp_config, &zero, sizeof(zero), &defaults,
				      sizeof(defaults), BPF_ANY);
	if (rc)
		throw libbpf_error("cannot write the defaults", rc);
	rc = bpf_map__update_elem(skel->maps.mltcp_prio, &zero, sizeof(zero), &prio, sizeof(prio),
				  BPF_ANY);
	if (rc)
		throw libbpf_error("cannot write the progress priority configuration", rc);

	PendingLoad pending(kPinDir);
	pending.make_dir();
	pending.pin_map(skel->maps.mltcp_config, MLTCP_BPF_PIN_CONFIG);
	pending.pin_map(skel->maps.mltcp_stats, MLTCP_BPF_PIN_STATS);
	pending.pin_map(skel->maps.mltcp_jobs, MLTCP_BPF_PIN_JOBS);
	pending.pin_map(skel->maps.mltcp_prio, MLTCP_BPF_PIN_PRIO);
	Link flows;
	if (loaded.flows) {
		flows.reset(bpf_program__attach_iter(skel->progs.mltcp_flows, nullptr));
		if (!flows)
			throw libbpf_error("cannot create the flow iterator", errno);
		pending.pin_link(flows.get(), MLTCP_BPF_PIN_FLOWS);
	}
	pending.register_ops(skel->maps.mltcp, "mltcp");
	pending.register_ops(skel->maps.mltcp_reno, "mltcp_reno");
	pending.register_ops(skel->maps.mltcp_cubic, "mltcp_cubic");
	pending.pin_map(skel->maps.mltcp, "mltcp");
	pending.pin_map(skel->maps.mltcp_reno, "mltcp_reno");
	pending.pin_map(skel->maps.mltcp_cubic, "mltcp_cubic");

	available = available_ccs();
	for (const char *name : kAlgorithms) {
		if (!available.count(name))
			throw Error(std::string("registered ") + name + " but " + kAvailable +
				    " does not list it");
	}
	pending.commit();
	return loaded;
}

Unloaded unload()
{
	Unloaded out;
	bool pinned = exists(kPinDir);

	require_caps("bpf unload", true, false);
	for (const char *name : kAlgorithms) {
		std::string path = pin_path(name);
		Fd fd = open_pinned(path);

		if (fd.valid()) {
			if (unregister_map(fd.get(), path))
				out.unloaded.push_back(name);
		} else if (errno != ENOENT) {
			throw Error("cannot open " + path + ": " + errno_text(errno));
		}
	}
	if (!pinned) {
		// Registered without our pins (bpffs remounted, or bpftool): the
		// maps named like ours whose programs are this object's.
		std::vector<OpsMap> found = scan_ops_maps();
		std::set<std::string> tags;
		std::unique_ptr<btf, BtfDeleter> vmlinux;

		for (const OpsMap &m : found) {
			if (m.state != 1)
				continue;
			if (tags.empty()) {
				tags = own_tags();
				vmlinux.reset(btf__load_vmlinux_btf());
				if (!vmlinux)
					throw Error("cannot read the kernel's BTF: " +
						    errno_text(errno));
			}
			std::string what = m.name + " (map id " + std::to_string(m.id) + ")";
			Fd fd(bpf_map_get_fd_by_id(m.id));
			if (!fd.valid())
				continue;
			if (!is_ours(fd.get(), tags, vmlinux.get()))
				out.not_ours.push_back(m);
			else if (unregister_map(fd.get(), what))
				out.unloaded.push_back(m.name);
		}
	}
	for (const char *name : { MLTCP_BPF_PIN_FLOWS, MLTCP_BPF_PIN_CONFIG, MLTCP_BPF_PIN_STATS,
				  MLTCP_BPF_PIN_JOBS, MLTCP_BPF_PIN_PRIO, "mltcp", "mltcp_reno",
				  "mltcp_cubic" }) {
		std::string path = pin_path(name);

		if (unlink(path.c_str()) != 0 && errno != ENOENT)
			throw Error("cannot remove " + path + ": " + errno_text(errno));
	}
	if (pinned && rmdir(kPinDir.c_str()) != 0 && errno != ENOENT)
		throw Error("cannot remove " + kPinDir + ": " + errno_text(errno));
	if (!pinned && out.unloaded.empty() && !out.not_ours.empty()) {
		std::string list;
		for (const OpsMap &m : out.not_ours)
			list += (list.empty() ? "" : ", ") + m.name + " (map id " +
				std::to_string(m.id) + ")";
		throw Error("not loaded by this mltcpctl: " + list +
			    " runs other programs; left registered (bpftool struct_ops unregister "
			    "id ID removes one)");
	}
	if (!pinned && out.unloaded.empty())
		throw Error("not loaded (no " + kPinDir + ", and no registered mltcp struct_ops)");

	// What survives is held by sockets that selected it before the unload,
	// or by a network namespace whose default (net.ipv4.tcp_congestion_control)
	// it is: new sockets there still get it until the default changes or the
	// namespace goes.
	for (const OpsMap &m : scan_ops_maps()) {
		bool other = false;

		for (const OpsMap &n : out.not_ours)
			other = other || n.id == m.id;
		if (!other)
			out.in_use.push_back(m);
	}
	return out;
}

Status status()
{
	std::set<std::string> available = available_ccs();
	Status st;

	require_caps("bpf status", false, false);
	for (const char *name : kAlgorithms) {
		if (available.count(name))
			st.registered.push_back(name);
	}
	st.pinned = exists(kPinDir);
	if (st.pinned) {
		if (exists(pin_path(MLTCP_BPF_PIN_CONFIG)))
			st.params = read_defaults(open_config());
		if (exists(pin_path(MLTCP_BPF_PIN_PRIO)))
			st.prio = read_prio(open_prio());
		st.stats = read_stats();
		st.flows = exists(pin_path(MLTCP_BPF_PIN_FLOWS));
	}
	st.loaded = st.pinned && st.registered.size() == kAlgorithms.size();
	st.struct_ops = scan_ops_maps();
	return st;
}

// A pinned one-entry array map whose value is value_size bytes; kind names
// it in errors; feature, where not null, what a backend loaded by an older
// version (the pin directory there, the map not) lacks.
static Fd open_one_entry_map(const std::string &dir, const char *pin, size_t value_size,
			     const char *kind, const char *feature)
{
	std::string path = dir + "/" + pin;
	Fd fd = open_pinned(path);
	bpf_map_info info = {};
	uint32_t len = sizeof(info);

	if (!fd.valid()) {
		int err = errno;
		if (err == ENOENT && feature && exists(dir))
			throw Error(std::string("the loaded BPF backend has no ") + feature +
				    " (loaded by an older version: mltcpctl bpf unload, then load)");
		if (err == ENOENT)
			throw Error("the BPF backend is not loaded (no " + path +
				    "; mltcpctl bpf load)");
		if (err == EACCES || err == EPERM)
			throw Error("permission denied: the BPF backend's maps need CAP_BPF (run "
				    "as root)");
		throw Error("cannot open " + path + ": " + errno_text(err));
	}
	if (bpf_obj_get_info_by_fd(fd.get(), &info, &len) != 0 || info.type != BPF_MAP_TYPE_ARRAY ||
	    info.key_size != 4 || info.value_size != value_size)
		throw Error(path + " is not this version's " + kind + " map (reload the BPF backend)");
	return fd;
}

Fd open_config(const std::string &dir)
{
	return open_one_entry_map(dir, MLTCP_BPF_PIN_CONFIG, sizeof(mltcp_params), "config", nullptr);
}

mltcp_params read_defaults(const Fd &config)
{
	mltcp_params params;
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(config.get(), &zero, &params) != 0)
		throw Error("cannot read the BPF backend's defaults: " + errno_text(errno));
	if (!mltcp_params_valid(&params))
		mltcp_params_default(&params);
	return params;
}

void check_defaults(const mltcp_params &defaults)
{
	// The maps are root's: the line is unbounded, but F may not be 0.
	if (auto err = mltcp_f_line_check(defaults.slope, defaults.intercept, nullptr))
		throw Error(mltcp_job_strerror(err));
	if (!mltcp_params_valid(&defaults) || defaults.exempt)
		throw Error("invalid defaults");
}

void write_defaults(const Fd &config, const mltcp_params &defaults)
{
	uint32_t zero = 0;

	check_defaults(defaults);
	if (bpf_map_update_elem(config.get(), &zero, &defaults, BPF_ANY) != 0)
		throw Error("cannot write the BPF backend's defaults: " + errno_text(errno));
}

Fd open_prio(const std::string &dir)
{
	return open_one_entry_map(dir, MLTCP_BPF_PIN_PRIO, sizeof(mltcp_prio_config), "prio",
				  "progress priority");
}

mltcp_prio_config read_prio(const Fd &prio)
{
	mltcp_prio_config pc;
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(prio.get(), &zero, &pc) != 0)
		throw Error("cannot read the BPF backend's progress priority: " + errno_text(errno));
	if (!mltcp_prio_config_valid(&pc))
		mltcp_prio_config_default(&pc);
	return pc;
}

void write_prio(const Fd &prio, const mltcp_prio_config &pc)
{
	uint32_t zero = 0;

	if (!mltcp_prio_config_valid(&pc))
		throw Error("invalid progress priority configuration");
	if (bpf_map_update_elem(prio.get(), &zero, &pc, BPF_ANY) != 0)
		throw Error("cannot write the BPF backend's progress priority: " +
			    errno_text(errno));
}

std::string libbpf_version()
{
	return "libbpf " + std::to_string(libbpf_major_version()) + "." +
	       std::to_string(libbpf_minor_version());
}

} // namespace mltcpctl::bpf
