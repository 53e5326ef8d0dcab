// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "bpf_jobs.h"

#include <sys/socket.h>

#include <cstddef>
#include <cstring>

#include "uapi/mltcp.h"

namespace mltcpctl
{

mltcp_job_request job_request(const Job &r)
{
	mltcp_job_request req{};
	mltcp_job_spec &v = req.values;

	v.id = r.id;
	if (r.dport) {
		req.given |= MLTCP_JOB_F_DPORT;
		v.dport_min = r.dport->min;
		v.dport_max = r.dport->max;
	}
	if (r.sport) {
		req.given |= MLTCP_JOB_F_SPORT;
		v.sport_min = r.sport->min;
		v.sport_max = r.sport->max;
	}
	if (r.peer) {
		req.given |= MLTCP_JOB_F_PEER;
		v.peer_family = static_cast<u8>(r.peer->family);
		v.peer_prefixlen = r.peer->len;
		std::memcpy(v.peer, r.peer->addr.data(), sizeof(v.peer));
	}
	if (r.mark) {
		req.given |= MLTCP_JOB_F_MARK;
		v.mark = r.mark->value;
		v.mark_mask = r.mark->mask;
	}
	if (r.cgroup) {
		req.given |= MLTCP_JOB_F_CGROUP;
		v.cgroup_id = r.cgroup->id;
	}
	if (r.marked) {
		req.given |= MLTCP_JOB_F_MARKED;
		v.marked = *r.marked ? 1 : 0;
	}
	if (r.slope) {
		req.given |= MLTCP_JOB_F_SLOPE;
		v.slope = *r.slope;
	}
	if (r.intercept) {
		req.given |= MLTCP_JOB_F_INTERCEPT;
		v.intercept = *r.intercept;
	}
	if (r.idle_gap_us) {
		req.given |= MLTCP_JOB_F_IDLE_GAP;
		v.idle_gap_us = *r.idle_gap_us;
	}
	if (r.iter_bytes) {
		req.given |= MLTCP_JOB_F_ITER_BYTES;
		v.iter_bytes = *r.iter_bytes;
	}
	if (r.base) {
		req.given |= MLTCP_JOB_F_BASE;
		v.base = *r.base;
	}
	if (r.exempt) {
		req.given |= MLTCP_JOB_F_EXEMPT;
		v.exempt = *r.exempt ? 1 : 0;
	}
	req.clear = r.clear;
	return req;
}

std::string apply_job(mltcp_job_spec &spec, const Job &request)
{
	mltcp_job_request req = job_request(request);
	mltcp_job_error err = mltcp_job_apply(&spec, &req);

	return err == MLTCP_JOB_OK ? "" : mltcp_job_strerror(err);
}

Job decode_job_spec(const mltcp_job_spec &e)
{
	Job j;

	j.id = e.id;
	if (e.fields & MLTCP_JOB_F_DPORT)
		j.dport = PortRange{ e.dport_min, e.dport_max };
	if (e.fields & MLTCP_JOB_F_SPORT)
		j.sport = PortRange{ e.sport_min, e.sport_max };
	if (e.fields & MLTCP_JOB_F_PEER) {
		Prefix p;
		p.family = e.peer_family;
		p.len = e.peer_prefixlen;
		std::memcpy(p.addr.data(), e.peer, p.family == AF_INET ? 4 : 16);
		j.peer = p;
	}
	if (e.fields & MLTCP_JOB_F_MARK)
		j.mark = Mark{ e.mark, e.mark_mask };
	if (e.fields & MLTCP_JOB_F_CGROUP)
		j.cgroup = Cgroup{ e.cgroup_id, "" };
	if (e.marked)
		j.marked = true;
	if (e.fields & MLTCP_JOB_F_SLOPE)
		j.slope = e.slope;
	if (e.fields & MLTCP_JOB_F_INTERCEPT)
		j.intercept = e.intercept;
	if (e.fields & MLTCP_JOB_F_IDLE_GAP)
		j.idle_gap_us = e.idle_gap_us;
	if (e.fields & MLTCP_JOB_F_ITER_BYTES)
		j.iter_bytes = e.iter_bytes;
	if (e.fields & MLTCP_JOB_F_BASE)
		j.base = e.base;
	if (e.exempt)
		j.exempt = true;
	return j;
}

namespace
{

std::optional<Flow> decode_record(const mltcp_flow_record &r)
{
	Flow f;
	size_t alen = r.family == AF_INET ? 4 : r.family == AF_INET6 ? 16 : 0;
	size_t ca_len = strnlen(r.ca, sizeof(r.ca));

	if (!alen || ca_len == 0 || ca_len == sizeof(r.ca) || r.base > MLTCP_BASE_CUBIC ||
	    !mltcp_mode_valid(r.mode))
		return std::nullopt;
	if (r.job)
		f.job = r.job;
	f.cookie = r.cookie;
	f.family = r.family;
	std::memcpy(f.saddr.data(), r.saddr, alen);
	std::memcpy(f.daddr.data(), r.daddr, alen);
	f.sport = r.sport;
	f.dport = r.dport;
	f.ca.assign(r.ca, ca_len);
	f.base = r.base;
	f.mode = r.mode;
	f.cwnd = r.cwnd;
	f.ssthresh = r.ssthresh;
	f.bytes_this_iter = r.bytes_this_iter;
	f.iter_bytes = r.iter_bytes;
	f.iter_fixed = r.iter_fixed != 0;
	f.iter_trusted = r.iter_trusted != 0;
	f.prio_held = r.prio_held != 0;
	f.r = r.r;
	f.f = r.f;
	f.iterations = r.iterations;
	f.last_iter_us = r.last_iter_us;
	f.slope = r.slope;
	f.intercept = r.intercept;
	f.idle_gap_us = r.idle_gap_us;
	f.dscp = static_cast<uint8_t>(r.tos >> 2);
	return f;
}

} // namespace

std::optional<std::vector<Flow>> decode_flow_records(std::string_view bytes, std::string *error)
{
	const char kOther[] = "the BPF flow iterator writes another version's records (loaded by "
			      "another mltcpctl: mltcpctl bpf unload, then load)";
	std::vector<Flow> flows;

	while (!bytes.empty()) {
		mltcp_bpf_record rec;

		if (bytes.size() < offsetof(mltcp_bpf_record, flow)) {
			*error = "the BPF flow iterator's output ends inside a record";
			return std::nullopt;
		}
		std::memcpy(&rec, bytes.data(), offsetof(mltcp_bpf_record, flow));
		if (rec.magic != MLTCP_BPF_RECORD_MAGIC || rec.size != sizeof(rec)) {
			*error = kOther;
			return std::nullopt;
		}
		if (bytes.size() < sizeof(rec)) {
			*error = "the BPF flow iterator's output ends inside a record";
			return std::nullopt;
		}
		std::memcpy(&rec, bytes.data(), sizeof(rec));
		bytes.remove_prefix(sizeof(rec));
		auto flow = decode_record(rec.flow);
		if (!flow) {
			*error = "malformed record from the BPF flow iterator";
			return std::nullopt;
		}
		flows.push_back(std::move(*flow));
	}
	return flows;
}

} // namespace mltcpctl
