// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "bpf_jobs.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <array>
#include <cstring>

#include "flows.h"
#include "uapi/mltcp.h"

namespace mltcpctl
{
namespace
{

constexpr std::array<const char *, 7> kModeNames{ MLTCP_MODE_NAMES };

// The criteria and settings a request names (the module's mltcp_nl_given()).
uint32_t given_fields(const Job &r)
{
	uint32_t given = 0;

	given |= r.dport ? MLTCP_JOB_F_DPORT : 0;
	given |= r.sport ? MLTCP_JOB_F_SPORT : 0;
	given |= r.peer ? MLTCP_JOB_F_PEER : 0;
	given |= r.mark ? MLTCP_JOB_F_MARK : 0;
	given |= r.slope ? MLTCP_JOB_F_SLOPE : 0;
	given |= r.intercept ? MLTCP_JOB_F_INTERCEPT : 0;
	given |= r.idle_gap_us ? MLTCP_JOB_F_IDLE_GAP : 0;
	given |= r.iter_bytes ? MLTCP_JOB_F_ITER_BYTES : 0;
	given |= r.base ? MLTCP_JOB_F_BASE : 0;
	given |= r.exempt ? MLTCP_JOB_F_EXEMPT : 0;
	return given;
}

std::string check_ranges(const Job &r)
{
	if (r.id == 0)
		return "invalid job ID: 0";
	if (r.clear & ~static_cast<uint32_t>(MLTCP_JOB_F_ALL))
		return "invalid reset fields";
	if ((r.dport && r.dport->min > r.dport->max) || (r.sport && r.sport->min > r.sport->max))
		return "invalid port range: maximum below its minimum";
	if (r.peer && !((r.peer->family == AF_INET && r.peer->len <= 32) ||
			(r.peer->family == AF_INET6 && r.peer->len <= 128)))
		return "invalid peer prefix";
	if (r.slope && *r.slope > MLTCP_GENL_SLOPE_MAX)
		return "invalid slope (allowed 0 to 16)";
	if (r.intercept && *r.intercept > MLTCP_GENL_INTERCEPT_MAX)
		return "invalid intercept (allowed 0 to 16)";
	if (r.idle_gap_us &&
	    (*r.idle_gap_us < MLTCP_GENL_IDLE_GAP_MIN || *r.idle_gap_us > MLTCP_GENL_IDLE_GAP_MAX))
		return "invalid idle-gap (allowed 1ms to 60s)";
	if (r.iter_bytes && (*r.iter_bytes < 1 || *r.iter_bytes > MLTCP_GENL_ITER_BYTES_MAX))
		return "invalid iter-bytes (allowed 1 to 1T)";
	if (r.base && *r.base > MLTCP_GENL_BASE_CUBIC)
		return "invalid base";
	if (r.clear & given_fields(r))
		return "a field is both reset and set";
	return "";
}

// The prefix's address with the bits past its length cleared, as 4 words
// in network order (ipv6_addr_prefix(), inet_make_mask() in the module).
void masked_prefix(const Prefix &p, uint32_t words[4])
{
	std::array<uint8_t, 16> addr{};
	size_t bytes = p.family == AF_INET ? 4 : 16;

	for (size_t i = 0; i < bytes; i++) {
		int bits = static_cast<int>(p.len) - static_cast<int>(i * 8);
		uint8_t mask = bits >= 8   ? 0xff
			       : bits <= 0 ? 0
					   : static_cast<uint8_t>(0xff << (8 - bits));
		addr[i] = p.addr[i] & mask;
	}
	std::memcpy(words, addr.data(), 16);
}

// r, F, slope and intercept come as thousandths ("1.600"); the nearest
// 1/1024 gives back the same thousandths, so output matches the module's.
uint32_t milli_to_fixed(double value)
{
	auto milli = static_cast<uint64_t>(value * 1000.0 + 0.5);

	return static_cast<uint32_t>((milli * MLTCP_ONE + 500) / 1000);
}

bool parse_addr(const std::string &text, int &family, std::array<uint8_t, 16> &out)
{
	out.fill(0);
	if (inet_pton(AF_INET, text.c_str(), out.data()) == 1) {
		family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, text.c_str(), out.data()) == 1) {
		family = AF_INET6;
		return true;
	}
	return false;
}

} // namespace

std::string apply_bpf_job(mltcp_bpf_job &entry, const Job &r)
{
	std::string err = check_ranges(r);
	mltcp_bpf_job e = entry;
	uint32_t given = given_fields(r);

	if (!err.empty())
		return err;
	e.id = r.id;
	if (r.dport) {
		e.dport_min = r.dport->min;
		e.dport_max = r.dport->max;
	}
	if (r.sport) {
		e.sport_min = r.sport->min;
		e.sport_max = r.sport->max;
	}
	if (r.peer) {
		e.peer_family = static_cast<u8>(r.peer->family);
		e.peer_prefixlen = r.peer->len;
		masked_prefix(*r.peer, e.peer);
	}
	if (r.mark) {
		e.mark_mask = r.mark->mask;
		e.mark = r.mark->value & r.mark->mask;
	}
	if (r.slope)
		e.slope = *r.slope;
	if (r.intercept)
		e.intercept = *r.intercept;
	if (r.idle_gap_us)
		e.idle_gap_us = *r.idle_gap_us;
	if (r.iter_bytes)
		e.iter_bytes = *r.iter_bytes;
	if (r.base)
		e.base = *r.base;
	if (r.exempt)
		e.exempt = *r.exempt ? 1 : 0;
	if (r.clear & MLTCP_JOB_F_EXEMPT)
		e.exempt = 0;
	e.fields = (e.fields & ~r.clear) | given;
	// "exempt off" is the same as no setting, as in the module.
	if (!e.exempt)
		e.fields &= ~static_cast<uint32_t>(MLTCP_JOB_F_EXEMPT);
	entry = e;
	return "";
}

Job decode_bpf_job(const mltcp_bpf_job &e)
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

std::optional<Flow> decode_bpf_flow(std::string_view line)
{
	auto parsed = mltcp::bpf::parse_flow_line(line);
	Flow f;
	int dst_family = 0;

	if (!parsed)
		return std::nullopt;
	const nlohmann::json &j = *parsed;
	for (const char *key :
	     { "cookie",       "job",	     "src",	   "dst",   "sport",
	       "dport",	       "ca",	     "base",	   "mode",  "cwnd",
	       "ssthresh",     "iterations", "iter_bytes", "fixed", "bytes_this_iter",
	       "last_iter_us", "r",	     "f",	   "slope", "intercept",
	       "idle_gap_us" }) {
		if (!j.contains(key))
			return std::nullopt;
	}
	try {
		if (!parse_addr(j["src"].get<std::string>(), f.family, f.saddr) ||
		    !parse_addr(j["dst"].get<std::string>(), dst_family, f.daddr) ||
		    dst_family != f.family)
			return std::nullopt;
		auto job = j["job"].get<uint64_t>();
		if (job > 0xffffffffULL)
			return std::nullopt;
		if (job)
			f.job = static_cast<uint32_t>(job);
		f.cookie = j["cookie"].get<uint64_t>();
		f.sport = j["sport"].get<uint16_t>();
		f.dport = j["dport"].get<uint16_t>();
		f.ca = j["ca"].get<std::string>();
		std::string base = j["base"].get<std::string>(),
			    mode = j["mode"].get<std::string>();
		if (base != "reno" && base != "cubic")
			return std::nullopt;
		f.base = base == "reno" ? MLTCP_GENL_BASE_RENO : MLTCP_GENL_BASE_CUBIC;
		f.mode = 0;
		for (unsigned i = 0; i < kModeNames.size(); i++)
			if (mode == kModeNames[i])
				f.mode = static_cast<uint8_t>(i + 1);
		if (!f.mode)
			return std::nullopt;
		f.cwnd = j["cwnd"].get<uint32_t>();
		f.ssthresh = j["ssthresh"].get<uint32_t>();
		f.iterations = j["iterations"].get<uint32_t>();
		f.iter_bytes = j["iter_bytes"].get<uint64_t>();
		f.iter_fixed = j["fixed"].get<bool>();
		f.bytes_this_iter = j["bytes_this_iter"].get<uint64_t>();
		f.last_iter_us = j["last_iter_us"].get<uint32_t>();
		f.r = milli_to_fixed(j["r"].get<double>());
		f.f = milli_to_fixed(j["f"].get<double>());
		f.slope = milli_to_fixed(j["slope"].get<double>());
		f.intercept = milli_to_fixed(j["intercept"].get<double>());
		f.idle_gap_us = j["idle_gap_us"].get<uint32_t>();
	} catch (const nlohmann::json::exception &) {
		return std::nullopt;
	}
	return f;
}

} // namespace mltcpctl
