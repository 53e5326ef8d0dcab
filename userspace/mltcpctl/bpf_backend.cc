// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The BPF backend: jobs in the pinned mltcp_jobs map, flows from the pinned
// flow iterator, defaults in the pinned config map (bpf/mltcp_bpf.h). One
// job table and one set of defaults for the host, as BPF maps are not per
// network namespace. Slots are read and written whole under their spin lock
// (BPF_F_LOCK), so a flow that starts meanwhile sees a job before or after
// the change, never half of it; writers also hold an flock on the pin
// directory, so two mltcpctl processes cannot pick the same free slot or
// lose each other's change.
#include <bpf/bpf.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "backend.h"
#include "bpf_jobs.h"
#include "bpf_loader.h"
#include "error.h"
#include "mltcp_bpf.h"

namespace mltcpctl
{
namespace
{

using mltcp::Fd;

const char kPermission[] = "permission denied: the BPF backend's maps need CAP_BPF (run as root)";

std::string job_ref(uint32_t id)
{
	return "job " + std::to_string(id);
}

// A job slot's marks: its count and the step marked last (mltcp_job_mark()).
struct Marks {
	uint32_t count = 0, last_step = 0;
};

class BpfBackend : public Backend
{
public:
	explicit BpfBackend(std::string dir) : dir_(std::move(dir)) {}
	const char *name() const override { return "bpf"; }

	void add_job(const Job &job) override
	{
		Writer w(*this, "changing jobs");
		Table t = read(w.map);

		if (t.find(job.id))
			throw Error(job_ref(job.id) + ": already exists");
		auto free = t.free_slot();
		if (!free)
			throw Error("job table full (at most " + std::to_string(t.slots.size()) +
				    " jobs, one table for the host in the BPF backend)");
		mltcp_job_spec spec{};
		apply_checked(spec, job);
		write(w.map, *free, spec);
	}

	void set_job(const Job &job) override
	{
		Writer w(*this, "changing jobs");
		Table t = read(w.map);
		auto index = t.find(job.id);

		if (!index)
			throw Error(job_ref(job.id) + ": no such job");
		mltcp_job_spec spec = t.slots[*index];
		apply_checked(spec, job);
		write(w.map, *index, spec, t.marks[*index]);
	}

	void mark_job(uint32_t id, std::optional<uint32_t> step) override
	{
		Writer w(*this, "marking jobs");
		mltcp_bpf_job_slot slot{};

		// A training process marks every step: the slot its job was in at
		// the last mark is read alone, and the table (a read per slot)
		// only when the job is not there. Ids are unique, so the slot that
		// holds the id under the lock is the job's.
		if (!mark_slot_ || !read_slot(w.map, *mark_slot_, slot) || slot.spec.id != id) {
			Table t = read(w.map);

			mark_slot_ = t.find(id);
			if (!mark_slot_)
				throw Error(job_ref(id) + ": no such job", ENOENT);
			slot.spec = t.slots[*mark_slot_];
			slot.marks = t.marks[*mark_slot_].count;
			slot.last_step = t.marks[*mark_slot_].last_step;
		}
		Marks marks{ slot.marks, slot.last_step };
		// The module's rule, under the directory's lock as the module's under its job lock.
		if (mltcp_job_mark(&marks.count, &marks.last_step, step.value_or(0)))
			write(w.map, *mark_slot_, slot.spec, marks);
	}

	void del_job(uint32_t id) override
	{
		Writer w(*this, "changing jobs");
		Table t = read(w.map);
		auto index = t.find(id);

		if (!index)
			throw Error(job_ref(id) + ": no such job");
		write(w.map, *index, mltcp_job_spec{});
	}

	Job get_job(uint32_t id) override
	{
		Table t = read(open_map());
		auto index = t.find(id);

		if (!index)
			throw Error(job_ref(id) + ": no such job");
		return decoded(t, *index);
	}

	std::vector<Job> jobs() override
	{
		Table t = read(open_map());
		std::vector<Job> out;

		for (size_t i = 0; i < t.slots.size(); i++) {
			if (t.slots[i].id)
				out.push_back(decoded(t, i));
		}
		// Matching order, as the module lists them.
		std::sort(out.begin(), out.end(),
			  [](const Job &a, const Job &b) { return a.id < b.id; });
		return out;
	}

	std::vector<Flow> flows(std::optional<uint32_t> job) override
	{
		Table t = read(open_map());
		std::vector<Flow> out;
		std::string error;

		if (job && !t.find(*job))
			throw Error(job_ref(*job) + ": no such job");
		auto flows = decode_flow_records(read_iterator(), &error);
		if (!flows)
			throw Error(error);
		std::optional<mltcp_prio_config> prio;
		if (access(path(MLTCP_BPF_PIN_PRIO).c_str(), F_OK) == 0)
			prio = bpf::read_prio(bpf::open_prio(dir_));
		for (Flow &flow : *flows) {
			if (job && flow.job != job)
				continue;
			if (prio && flow.dscp)
				flow.prio_class = prio_class_of(*prio, *flow.dscp);
			// As the module: exempt is the flow's job's current setting.
			if (flow.job) {
				auto index = t.find(*flow.job);
				flow.exempt = index && t.slots[*index].exempt;
			}
			out.push_back(std::move(flow));
		}
		return out;
	}

	Stats stats() override
	{
		auto counts = bpf::read_stats(dir_);
		Stats stats;

		if (!counts)
			throw Error("cannot read the BPF backend's counters (" + dir_ +
				    "/" MLTCP_BPF_PIN_STATS ")");
		stats.host_wide = true;
		for (int v = 0; v < MLTCP_TX_NR_VERDICTS; v++)
			stats.verdicts[v] = (*counts)[MLTCP_BPF_STAT_VERDICT0 + v];
		stats.gate.emplace();
		for (int v = 0; v < MLTCP_GATE_NR_VERDICTS; v++)
			(*stats.gate)[v] = (*counts)[MLTCP_BPF_STAT_GATE0 + v];
		stats.prio_hold.emplace();
		for (int e = 0; e < MLTCP_PRIO_HOLD_NR_EVENTS; e++)
			(*stats.prio_hold)[e] = (*counts)[MLTCP_BPF_STAT_HOLD0 + e];
		return stats;
	}

	Defaults defaults(bool) override
	{
		Defaults d{ name(), true, bpf::read_defaults(bpf::open_config(dir_)), std::nullopt };

		// A backend loaded by an older mltcpctl has no prio map: nothing to show.
		if (access(path(MLTCP_BPF_PIN_PRIO).c_str(), F_OK) == 0)
			d.prio = bpf::read_prio(bpf::open_prio(dir_));
		return d;
	}

	// Every setting is checked, the line and progress priority's classes
	// against what they change, before either map is written.
	void set_defaults(const DefaultsChange &change, bool global) override
	{
		// Progress priority alone may omit "global": "defaults set prio K" is
		// how it is set on either backend (the module's is per namespace).
		if (!global && change.given)
			throw Error("defaults set: the BPF backend's defaults are one set for the "
				    "host, not per network namespace (defaults set global ...)");
		bpf::require_caps("defaults set", true, false);
		Fd lock = lock_dir("changing the defaults");
		Fd config = bpf::open_config(dir_);
		mltcp_params params = bpf::read_defaults(config);
		Fd prio_map;
		mltcp_prio_config prio{};

		change.apply(params);
		bpf::check_defaults(params);
		if (change.prio.given()) {
			prio_map = bpf::open_prio(dir_);
			prio = bpf::read_prio(prio_map);
			std::string err = change.prio.apply(prio);
			if (!err.empty())
				throw Error(err);
			bpf::write_prio(prio_map, prio);
		}
		if (change.given)
			bpf::write_defaults(config, params);
	}

private:
	// The request applied to spec, and the line its flows would latch over
	// the defaults checked (unbounded: the maps are root's); throws Error.
	void apply_checked(mltcp_job_spec &spec, const Job &job) const
	{
		std::string err = apply_job(spec, job);

		if (!err.empty())
			throw Error(err);
		mltcp_params defaults = bpf::read_defaults(bpf::open_config(dir_));
		if (auto line = mltcp_job_check_over(&spec, &defaults, nullptr))
			throw Error(job_ref(job.id) + ": " + mltcp_job_strerror(line));
	}

	struct Table {
		std::vector<mltcp_job_spec> slots;
		std::vector<Marks> marks; // each slot's, kept across changes
		std::optional<uint32_t> find(uint32_t id) const
		{
			for (size_t i = 0; i < slots.size(); i++) {
				if (slots[i].id == id)
					return static_cast<uint32_t>(i);
			}
			return std::nullopt;
		}
		std::optional<uint32_t> free_slot() const { return find(0); }
	};

	// The job map, opened for a change, with the directory's flock held.
	struct Writer {
		Writer(BpfBackend &b, const char *what) : lock(b.lock_dir(what)), map(b.open_map())
		{
		}
		Fd lock;
		Fd map;
	};

	std::string path(const char *name) const { return dir_ + "/" + name; }

	[[noreturn]] void fail_open(const std::string &what, int err) const
	{
		if (err == EACCES || err == EPERM)
			throw Error(kPermission, err);
		if (err == ENOENT) {
			if (access(dir_.c_str(), F_OK) == 0)
				throw Error("the loaded BPF backend has no " + what +
						    " (loaded by an older version: mltcpctl bpf "
						    "unload, then load)",
					    EPROTO);
			throw Error("the BPF backend is not loaded (no " + dir_ +
					    "; mltcpctl bpf load)",
				    ENODEV);
		}
		throw Error("cannot open " + path(what.c_str()) + ": " + strerror(err), err);
	}

	Fd lock_dir(const char *what)
	{
		// Changing jobs is what CAP_NET_ADMIN guards in the module too.
		if (!bpf::has_capability(CAP_NET_ADMIN))
			throw Error(std::string("permission denied: ") + what +
					    " needs CAP_NET_ADMIN",
				    EPERM);
		Fd dir(open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
		if (!dir.valid())
			fail_open(MLTCP_BPF_PIN_JOBS, errno);
		if (flock(dir.get(), LOCK_EX) != 0)
			throw Error("cannot lock " + dir_ + ": " + strerror(errno));
		return dir;
	}

	Fd open_map()
	{
		Fd fd(bpf_obj_get(path(MLTCP_BPF_PIN_JOBS).c_str()));
		bpf_map_info info = {};
		uint32_t len = sizeof(info);

		if (!fd.valid())
			fail_open(MLTCP_BPF_PIN_JOBS, errno);
		if (bpf_obj_get_info_by_fd(fd.get(), &info, &len) != 0 ||
		    info.type != BPF_MAP_TYPE_ARRAY ||
		    info.value_size != sizeof(mltcp_bpf_job_slot) || info.key_size != 4)
			throw Error(path(MLTCP_BPF_PIN_JOBS) +
				    " is not this version's job table (reload the BPF backend)");
		slots_ = info.max_entries;
		return fd;
	}

	// One slot, read whole under its lock; false if the table has no such slot.
	bool read_slot(const Fd &map, uint32_t index, mltcp_bpf_job_slot &slot)
	{
		if (index >= slots_)
			return false;
		if (bpf_map_lookup_elem_flags(map.get(), &index, &slot, BPF_F_LOCK) != 0)
			throw Error("cannot read the BPF job table: " +
					    std::string(strerror(errno)),
				    errno);
		return true;
	}

	Table read(const Fd &map)
	{
		Table t;

		t.slots.reserve(slots_);
		for (uint32_t i = 0; i < slots_; i++) {
			mltcp_bpf_job_slot slot{};

			read_slot(map, i, slot);
			t.slots.push_back(slot.spec);
			t.marks.push_back(Marks{ slot.marks, slot.last_step });
		}
		return t;
	}

	static Job decoded(const Table &t, size_t index)
	{
		Job job = decode_job_spec(t.slots[index]);

		job.marks = t.marks[index].count;
		return job;
	}

	void write(const Fd &map, uint32_t index, const mltcp_job_spec &spec, Marks marks = {})
	{
		mltcp_bpf_job_slot slot{};

		slot.spec = spec;
		slot.marks = marks.count;
		slot.last_step = marks.last_step;
		if (bpf_map_update_elem(map.get(), &index, &slot, BPF_F_LOCK) != 0) {
			int err = errno;
			if (err == EPERM || err == EACCES)
				throw Error(kPermission, err);
			throw Error("cannot write the BPF job table: " + std::string(strerror(err)),
				    err);
		}
	}

	std::string read_iterator()
	{
		std::string file = path(MLTCP_BPF_PIN_FLOWS), bytes;
		Fd fd(open(file.c_str(), O_RDONLY | O_CLOEXEC));
		char buf[16384];
		ssize_t n;

		if (!fd.valid())
			fail_open(MLTCP_BPF_PIN_FLOWS, errno);
		while ((n = ::read(fd.get(), buf, sizeof(buf))) > 0)
			bytes.append(buf, static_cast<size_t>(n));
		if (n < 0)
			throw Error("cannot read " + file + ": " + strerror(errno));
		return bytes;
	}

	std::string dir_;
	uint32_t slots_ = 0;
	std::optional<uint32_t> mark_slot_; // where mark_job() found its job last
};

} // namespace

std::unique_ptr<Backend> open_bpf_backend(const std::string &dir)
{
	return std::make_unique<BpfBackend>(dir);
}

} // namespace mltcpctl
