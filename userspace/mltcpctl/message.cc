// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "message.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <algorithm>
#include <cstring>

#include "uapi/mltcp.h"

namespace mltcpctl
{
namespace
{

// Large enough for any request or reply of this family.
constexpr size_t kMessageMax = 4096;

// A message being built in a buffer that owns its storage.
class Builder
{
public:
	Builder(uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd, uint8_t version)
	    : buf_(kMessageMax)
	{
		nlh_ = mnl_nlmsg_put_header(buf_.data());
		nlh_->nlmsg_type = type;
		nlh_->nlmsg_flags = flags;
		nlh_->nlmsg_seq = seq;
		auto *genl = static_cast<genlmsghdr *>(
			mnl_nlmsg_put_extra_header(nlh_, sizeof(genlmsghdr)));
		genl->cmd = cmd;
		genl->version = version;
	}
	nlmsghdr *nlh() { return nlh_; }
	Bytes finish()
	{
		buf_.resize(nlh_->nlmsg_len);
		return std::move(buf_);
	}

private:
	Bytes buf_;
	nlmsghdr *nlh_;
};

template <typename T> using Opt = std::optional<T>;

// Attribute tables filled by mnl_attr_parse(): the expected type of each
// known attribute is checked, unknown (newer) attributes are skipped.
struct Table {
	const mnl_attr_data_type *types;
	uint16_t max;
	std::vector<const nlattr *> attrs;
};

int table_cb(const nlattr *attr, void *data)
{
	auto *t = static_cast<Table *>(data);
	uint16_t type = mnl_attr_get_type(attr);

	if (type > t->max || t->types[type] == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, t->types[type]) < 0)
		return MNL_CB_ERROR;
	t->attrs[type] = attr;
	return MNL_CB_OK;
}

bool parse(const nlmsghdr *nlh, size_t offset, Table &t)
{
	t.attrs.assign(t.max + 1u, nullptr);
	if (nlh->nlmsg_len < mnl_nlmsg_size(offset))
		return false;
	return mnl_attr_parse(nlh, static_cast<unsigned int>(offset), table_cb, &t) >= MNL_CB_STOP;
}

// The STATS_GET attribute of each count (mltcp_policy.h).
uint16_t stats_attr(int verdict)
{
	return mltcp_stats_verdict_attr(static_cast<mltcp_tx_verdict>(verdict));
}
uint16_t gate_attr(int verdict)
{
	return mltcp_stats_gate_attr(static_cast<mltcp_gate_verdict>(verdict));
}

uint16_t prio_hold_attr(int event)
{
	return mltcp_stats_prio_hold_attr(static_cast<mltcp_prio_hold>(event));
}

const mnl_attr_data_type *job_types()
{
	static mnl_attr_data_type types[MLTCP_JOB_A_MAX + 1];
	static bool init = [] {
		types[MLTCP_JOB_A_ID] = MNL_TYPE_U32;
		types[MLTCP_JOB_A_DPORT_MIN] = MNL_TYPE_U16;
		types[MLTCP_JOB_A_DPORT_MAX] = MNL_TYPE_U16;
		types[MLTCP_JOB_A_SPORT_MIN] = MNL_TYPE_U16;
		types[MLTCP_JOB_A_SPORT_MAX] = MNL_TYPE_U16;
		types[MLTCP_JOB_A_PEER_V4] = MNL_TYPE_BINARY;
		types[MLTCP_JOB_A_PEER_V6] = MNL_TYPE_BINARY;
		types[MLTCP_JOB_A_PEER_PREFIXLEN] = MNL_TYPE_U8;
		types[MLTCP_JOB_A_MARK] = MNL_TYPE_U32;
		types[MLTCP_JOB_A_MARK_MASK] = MNL_TYPE_U32;
		types[MLTCP_JOB_A_SLOPE] = MNL_TYPE_U32;
		types[MLTCP_JOB_A_INTERCEPT] = MNL_TYPE_U32;
		types[MLTCP_JOB_A_IDLE_GAP_US] = MNL_TYPE_U32;
		types[MLTCP_JOB_A_ITER_BYTES] = MNL_TYPE_U64;
		types[MLTCP_JOB_A_BASE] = MNL_TYPE_U8;
		types[MLTCP_JOB_A_EXEMPT] = MNL_TYPE_U8;
		types[MLTCP_JOB_A_CLEAR] = MNL_TYPE_U32;
		types[MLTCP_JOB_A_FLOWS] = MNL_TYPE_U32;
		types[MLTCP_JOB_A_FLOWS_TOTAL] = MNL_TYPE_U64;
		types[MLTCP_JOB_A_ITERATIONS] = MNL_TYPE_U64;
		types[MLTCP_JOB_A_BYTES] = MNL_TYPE_U64;
		types[MLTCP_JOB_A_CGROUP] = MNL_TYPE_U64;
		types[MLTCP_JOB_A_MARKED] = MNL_TYPE_U8;
		types[MLTCP_JOB_A_MARKS] = MNL_TYPE_U64;
		types[MLTCP_JOB_A_STEP] = MNL_TYPE_U32;
		return true;
	}();
	(void)init;
	return types;
}

const mnl_attr_data_type *flow_types()
{
	static mnl_attr_data_type types[MLTCP_FLOW_A_MAX + 1];
	static bool init = [] {
		types[MLTCP_FLOW_A_JOB] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_COOKIE] = MNL_TYPE_U64;
		types[MLTCP_FLOW_A_FAMILY] = MNL_TYPE_U8;
		types[MLTCP_FLOW_A_SADDR] = MNL_TYPE_BINARY;
		types[MLTCP_FLOW_A_DADDR] = MNL_TYPE_BINARY;
		types[MLTCP_FLOW_A_SPORT] = MNL_TYPE_U16;
		types[MLTCP_FLOW_A_DPORT] = MNL_TYPE_U16;
		types[MLTCP_FLOW_A_CA] = MNL_TYPE_NUL_STRING;
		types[MLTCP_FLOW_A_BASE] = MNL_TYPE_U8;
		types[MLTCP_FLOW_A_MODE] = MNL_TYPE_U8;
		types[MLTCP_FLOW_A_EXEMPT] = MNL_TYPE_U8;
		types[MLTCP_FLOW_A_CWND] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_SSTHRESH] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_BYTES_THIS_ITER] = MNL_TYPE_U64;
		types[MLTCP_FLOW_A_ITER_BYTES] = MNL_TYPE_U64;
		types[MLTCP_FLOW_A_ITER_FIXED] = MNL_TYPE_U8;
		types[MLTCP_FLOW_A_ITER_TRUSTED] = MNL_TYPE_U8;
		types[MLTCP_FLOW_A_R] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_F] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_ITERATIONS] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_LAST_ITER_US] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_SLOPE] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_INTERCEPT] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_IDLE_GAP_US] = MNL_TYPE_U32;
		types[MLTCP_FLOW_A_DSCP] = MNL_TYPE_U8;
		types[MLTCP_FLOW_A_PRIO_HELD] = MNL_TYPE_U8;
		return true;
	}();
	(void)init;
	return types;
}

Opt<uint8_t> u8(const nlattr *a)
{
	return a ? Opt<uint8_t>(mnl_attr_get_u8(a)) : std::nullopt;
}
Opt<uint16_t> u16(const nlattr *a)
{
	return a ? Opt<uint16_t>(mnl_attr_get_u16(a)) : std::nullopt;
}
Opt<uint32_t> u32(const nlattr *a)
{
	return a ? Opt<uint32_t>(mnl_attr_get_u32(a)) : std::nullopt;
}
Opt<uint64_t> u64(const nlattr *a)
{
	if (!a)
		return std::nullopt;
	uint64_t v;
	// u64 attributes may be only 4-byte aligned.
	memcpy(&v, mnl_attr_get_payload(a), sizeof(v));
	return v;
}

// A message's length padded to NLMSG_ALIGNTO, in 64 bits: NLMSG_ALIGN()'s
// mask is an unsigned int, and wraps a length near 2^32 to 0.
uint64_t padded_length(uint32_t len)
{
	return (uint64_t{ len } + NLMSG_ALIGNTO - 1) & ~uint64_t{ NLMSG_ALIGNTO - 1 };
}

bool is_genl_msg(const nlmsghdr *nlh)
{
	return nlh->nlmsg_type >= NLMSG_MIN_TYPE &&
	       nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(genlmsghdr));
}

void put_job(nlmsghdr *nlh, const Job &job)
{
	if (job.id)
		mnl_attr_put_u32(nlh, MLTCP_JOB_A_ID, job.id);
	if (job.dport) {
		mnl_attr_put_u16(nlh, MLTCP_JOB_A_DPORT_MIN, job.dport->min);
		mnl_attr_put_u16(nlh, MLTCP_JOB_A_DPORT_MAX, job.dport->max);
	}
	if (job.sport) {
		mnl_attr_put_u16(nlh, MLTCP_JOB_A_SPORT_MIN, job.sport->min);
		mnl_attr_put_u16(nlh, MLTCP_JOB_A_SPORT_MAX, job.sport->max);
	}
	if (job.peer) {
		bool v4 = job.peer->family == AF_INET;
		mnl_attr_put(nlh, v4 ? MLTCP_JOB_A_PEER_V4 : MLTCP_JOB_A_PEER_V6, v4 ? 4 : 16,
			     job.peer->addr.data());
		mnl_attr_put_u8(nlh, MLTCP_JOB_A_PEER_PREFIXLEN, job.peer->len);
	}
	if (job.mark) {
		mnl_attr_put_u32(nlh, MLTCP_JOB_A_MARK, job.mark->value);
		mnl_attr_put_u32(nlh, MLTCP_JOB_A_MARK_MASK, job.mark->mask);
	}
	if (job.cgroup)
		mnl_attr_put_u64(nlh, MLTCP_JOB_A_CGROUP, job.cgroup->id);
	if (job.marked)
		mnl_attr_put_u8(nlh, MLTCP_JOB_A_MARKED, *job.marked ? 1 : 0);
	if (job.slope)
		mnl_attr_put_u32(nlh, MLTCP_JOB_A_SLOPE, *job.slope);
	if (job.intercept)
		mnl_attr_put_u32(nlh, MLTCP_JOB_A_INTERCEPT, *job.intercept);
	if (job.idle_gap_us)
		mnl_attr_put_u32(nlh, MLTCP_JOB_A_IDLE_GAP_US, *job.idle_gap_us);
	if (job.iter_bytes)
		mnl_attr_put_u64(nlh, MLTCP_JOB_A_ITER_BYTES, *job.iter_bytes);
	if (job.base)
		mnl_attr_put_u8(nlh, MLTCP_JOB_A_BASE, *job.base);
	if (job.exempt)
		mnl_attr_put_u8(nlh, MLTCP_JOB_A_EXEMPT, *job.exempt);
	if (job.clear)
		mnl_attr_put_u32(nlh, MLTCP_JOB_A_CLEAR, job.clear);
	if (job.flows)
		mnl_attr_put_u32(nlh, MLTCP_JOB_A_FLOWS, *job.flows);
	if (job.flows_total)
		mnl_attr_put_u64(nlh, MLTCP_JOB_A_FLOWS_TOTAL, *job.flows_total);
	if (job.iterations)
		mnl_attr_put_u64(nlh, MLTCP_JOB_A_ITERATIONS, *job.iterations);
	if (job.bytes)
		mnl_attr_put_u64(nlh, MLTCP_JOB_A_BYTES, *job.bytes);
	if (job.marks)
		mnl_attr_put_u64(nlh, MLTCP_JOB_A_MARKS, *job.marks);
}

// Both ends of a range, or neither; nullopt in *ok when only one came.
Opt<PortRange> ports(const nlattr *min, const nlattr *max, bool *ok)
{
	if (!min && !max)
		return std::nullopt;
	if (!min || !max) {
		*ok = false;
		return std::nullopt;
	}
	return PortRange{ mnl_attr_get_u16(min), mnl_attr_get_u16(max) };
}

int ack_cb(const nlattr *attr, void *data)
{
	auto *t = static_cast<std::vector<const nlattr *> *>(data);
	uint16_t type = mnl_attr_get_type(attr);

	if (type < t->size())
		(*t)[type] = attr;
	return MNL_CB_OK;
}

// Bounds of the offending attribute from NLMSGERR_ATTR_POLICY.
void policy_bounds(const nlattr *nest, Ack &ack)
{
	std::vector<const nlattr *> t(NL_POLICY_TYPE_ATTR_MAX + 1, nullptr);

	if (mnl_attr_parse_nested(nest, ack_cb, &t) < MNL_CB_STOP)
		return;
	if (t[NL_POLICY_TYPE_ATTR_MIN_VALUE_U] &&
	    mnl_attr_validate(t[NL_POLICY_TYPE_ATTR_MIN_VALUE_U], MNL_TYPE_U64) == 0)
		ack.min = u64(t[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]);
	if (t[NL_POLICY_TYPE_ATTR_MAX_VALUE_U] &&
	    mnl_attr_validate(t[NL_POLICY_TYPE_ATTR_MAX_VALUE_U], MNL_TYPE_U64) == 0)
		ack.max = u64(t[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]);
}

} // namespace

bool Job::operator==(const Job &o) const
{
	return id == o.id && dport == o.dport && sport == o.sport && peer == o.peer &&
	       mark == o.mark && cgroup == o.cgroup && slope == o.slope && intercept == o.intercept &&
	       idle_gap_us == o.idle_gap_us && iter_bytes == o.iter_bytes && base == o.base &&
	       exempt == o.exempt && marked == o.marked && marks == o.marks && clear == o.clear && flows == o.flows &&
	       flows_total == o.flows_total && iterations == o.iterations && bytes == o.bytes;
}

bool Flow::operator==(const Flow &o) const
{
	return job == o.job && cookie == o.cookie && family == o.family && saddr == o.saddr &&
	       daddr == o.daddr && sport == o.sport && dport == o.dport && ca == o.ca &&
	       base == o.base && mode == o.mode && exempt == o.exempt && cwnd == o.cwnd &&
	       ssthresh == o.ssthresh && bytes_this_iter == o.bytes_this_iter &&
	       iter_bytes == o.iter_bytes && iter_fixed == o.iter_fixed &&
	       iter_trusted == o.iter_trusted && prio_held == o.prio_held && r == o.r && f == o.f &&
	       iterations == o.iterations && last_iter_us == o.last_iter_us && slope == o.slope &&
	       intercept == o.intercept && idle_gap_us == o.idle_gap_us && dscp == o.dscp &&
	       prio_class == o.prio_class;
}

Bytes encode_family_request(uint32_t seq)
{
	Builder b(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, seq, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(b.nlh(), CTRL_ATTR_FAMILY_NAME, MLTCP_GENL_NAME);
	return b.finish();
}

Bytes encode_job(uint16_t family, uint8_t cmd, const Job &job, uint32_t seq, uint16_t flags)
{
	Builder b(family, NLM_F_REQUEST | flags, seq, cmd, MLTCP_GENL_VERSION);
	put_job(b.nlh(), job);
	return b.finish();
}

Bytes encode_job_id(uint16_t family, uint8_t cmd, std::optional<uint32_t> id, uint32_t seq,
		    uint16_t flags)
{
	Builder b(family, NLM_F_REQUEST | flags, seq, cmd, MLTCP_GENL_VERSION);
	if (id)
		mnl_attr_put_u32(b.nlh(), MLTCP_JOB_A_ID, *id);
	return b.finish();
}

Bytes encode_job_mark(uint16_t family, uint32_t id, std::optional<uint32_t> step, uint32_t seq)
{
	Builder b(family, NLM_F_REQUEST | NLM_F_ACK, seq, MLTCP_CMD_JOB_MARK, MLTCP_GENL_VERSION);
	mnl_attr_put_u32(b.nlh(), MLTCP_JOB_A_ID, id);
	if (step)
		mnl_attr_put_u32(b.nlh(), MLTCP_JOB_A_STEP, *step);
	return b.finish();
}

Bytes encode_flow_dump(uint16_t family, std::optional<uint32_t> job, uint32_t seq)
{
	Builder b(family, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, seq, MLTCP_CMD_FLOW_GET,
		  MLTCP_GENL_VERSION);
	if (job)
		mnl_attr_put_u32(b.nlh(), MLTCP_FLOW_A_JOB, *job);
	return b.finish();
}

Bytes encode_stats_get(uint16_t family, uint32_t seq)
{
	Builder b(family, NLM_F_REQUEST | NLM_F_ACK, seq, MLTCP_CMD_STATS_GET, MLTCP_GENL_VERSION);
	return b.finish();
}

Bytes encode_stats(uint16_t family, const Stats &stats, uint32_t seq)
{
	Builder b(family, 0, seq, MLTCP_CMD_STATS_GET, MLTCP_GENL_VERSION);

	for (int v = 0; v < MLTCP_TX_NR_VERDICTS; v++)
		mnl_attr_put_u64(b.nlh(), stats_attr(v), stats.verdicts[v]);
	if (stats.gate)
		for (int v = 0; v < MLTCP_GATE_NR_VERDICTS; v++)
			mnl_attr_put_u64(b.nlh(), gate_attr(v), (*stats.gate)[v]);
	if (stats.prio_hold)
		for (int e = 0; e < MLTCP_PRIO_HOLD_NR_EVENTS; e++)
			mnl_attr_put_u64(b.nlh(), prio_hold_attr(e), (*stats.prio_hold)[e]);
	return b.finish();
}

Bytes encode_flow(uint16_t family, const Flow &f, uint32_t seq)
{
	Builder b(family, NLM_F_MULTI, seq, MLTCP_CMD_FLOW_GET, MLTCP_GENL_VERSION);
	nlmsghdr *nlh = b.nlh();
	size_t alen = f.family == AF_INET6 ? 16 : 4;

	if (f.job)
		mnl_attr_put_u32(nlh, MLTCP_FLOW_A_JOB, *f.job);
	mnl_attr_put_u64(nlh, MLTCP_FLOW_A_COOKIE, f.cookie);
	mnl_attr_put_u8(nlh, MLTCP_FLOW_A_FAMILY, static_cast<uint8_t>(f.family));
	mnl_attr_put(nlh, MLTCP_FLOW_A_SADDR, alen, f.saddr.data());
	mnl_attr_put(nlh, MLTCP_FLOW_A_DADDR, alen, f.daddr.data());
	mnl_attr_put_u16(nlh, MLTCP_FLOW_A_SPORT, f.sport);
	mnl_attr_put_u16(nlh, MLTCP_FLOW_A_DPORT, f.dport);
	mnl_attr_put_strz(nlh, MLTCP_FLOW_A_CA, f.ca.c_str());
	mnl_attr_put_u8(nlh, MLTCP_FLOW_A_BASE, f.base);
	mnl_attr_put_u8(nlh, MLTCP_FLOW_A_MODE, f.mode);
	mnl_attr_put_u8(nlh, MLTCP_FLOW_A_EXEMPT, f.exempt);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_CWND, f.cwnd);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_SSTHRESH, f.ssthresh);
	mnl_attr_put_u64(nlh, MLTCP_FLOW_A_BYTES_THIS_ITER, f.bytes_this_iter);
	mnl_attr_put_u64(nlh, MLTCP_FLOW_A_ITER_BYTES, f.iter_bytes);
	mnl_attr_put_u8(nlh, MLTCP_FLOW_A_ITER_FIXED, f.iter_fixed);
	if (f.iter_trusted)
		mnl_attr_put_u8(nlh, MLTCP_FLOW_A_ITER_TRUSTED, *f.iter_trusted);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_R, f.r);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_F, f.f);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_ITERATIONS, f.iterations);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_LAST_ITER_US, f.last_iter_us);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_SLOPE, f.slope);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_INTERCEPT, f.intercept);
	mnl_attr_put_u32(nlh, MLTCP_FLOW_A_IDLE_GAP_US, f.idle_gap_us);
	if (f.dscp)
		mnl_attr_put_u8(nlh, MLTCP_FLOW_A_DSCP, *f.dscp);
	if (f.prio_held)
		mnl_attr_put_u8(nlh, MLTCP_FLOW_A_PRIO_HELD, *f.prio_held);
	return b.finish();
}

std::vector<const nlmsghdr *> split_messages(const uint8_t *buf, size_t len, bool *trailing)
{
	std::vector<const nlmsghdr *> out;
	size_t pos = 0;

	// Not mnl_nlmsg_ok(): it compares the length as an int, so a length
	// above 2^31 would pass and the walk would jump out of the buffer.
	// The padded length must fit too: mnl_attr_parse() walks attributes up
	// to the aligned tail, so an unpadded last message would let an
	// attribute reach up to three bytes past the buffer. The kernel pads
	// every message it sends.
	while (len - pos >= sizeof(nlmsghdr)) {
		auto *nlh = reinterpret_cast<const nlmsghdr *>(buf + pos);
		uint64_t padded = padded_length(nlh->nlmsg_len);
		if (nlh->nlmsg_len < sizeof(nlmsghdr) || padded > len - pos)
			break;
		out.push_back(nlh);
		pos += padded;
	}
	if (trailing)
		*trailing = pos < len;
	return out;
}

std::optional<FamilyInfo> decode_family(const nlmsghdr *nlh)
{
	static const mnl_attr_data_type types[CTRL_ATTR_VERSION + 1] = {
		MNL_TYPE_UNSPEC, MNL_TYPE_U16, MNL_TYPE_NUL_STRING, MNL_TYPE_U32
	};
	Table t{ types, CTRL_ATTR_VERSION, {} };

	if (nlh->nlmsg_type != GENL_ID_CTRL || !is_genl_msg(nlh) ||
	    !parse(nlh, sizeof(genlmsghdr), t))
		return std::nullopt;
	if (!t.attrs[CTRL_ATTR_FAMILY_ID] || !t.attrs[CTRL_ATTR_VERSION])
		return std::nullopt;
	return FamilyInfo{ mnl_attr_get_u16(t.attrs[CTRL_ATTR_FAMILY_ID]),
			   mnl_attr_get_u32(t.attrs[CTRL_ATTR_VERSION]) };
}

std::optional<Job> decode_job(const nlmsghdr *nlh)
{
	Table t{ job_types(), MLTCP_JOB_A_MAX, {} };
	bool ok = true;
	Job job;

	if (!is_genl_msg(nlh) || !parse(nlh, sizeof(genlmsghdr), t))
		return std::nullopt;
	const auto &a = t.attrs;
	if (!a[MLTCP_JOB_A_ID])
		return std::nullopt;
	job.id = mnl_attr_get_u32(a[MLTCP_JOB_A_ID]);
	job.dport = ports(a[MLTCP_JOB_A_DPORT_MIN], a[MLTCP_JOB_A_DPORT_MAX], &ok);
	job.sport = ports(a[MLTCP_JOB_A_SPORT_MIN], a[MLTCP_JOB_A_SPORT_MAX], &ok);
	const nlattr *v4 = a[MLTCP_JOB_A_PEER_V4], *v6 = a[MLTCP_JOB_A_PEER_V6];
	if (v4 || v6) {
		const nlattr *addr = v4 ? v4 : v6;
		Prefix p;
		size_t alen = v4 ? 4 : 16;
		if ((v4 && v6) || mnl_attr_get_payload_len(addr) != alen)
			return std::nullopt;
		p.family = v4 ? AF_INET : AF_INET6;
		memcpy(p.addr.data(), mnl_attr_get_payload(addr), alen);
		p.len = u8(a[MLTCP_JOB_A_PEER_PREFIXLEN]).value_or(static_cast<uint8_t>(alen * 8));
		if (p.len > alen * 8)
			return std::nullopt;
		job.peer = p;
	}
	if (a[MLTCP_JOB_A_MARK])
		job.mark = Mark{ *u32(a[MLTCP_JOB_A_MARK]),
				 u32(a[MLTCP_JOB_A_MARK_MASK]).value_or(0xffffffff) };
	if (a[MLTCP_JOB_A_CGROUP])
		job.cgroup = Cgroup{ *u64(a[MLTCP_JOB_A_CGROUP]), "" };
	job.slope = u32(a[MLTCP_JOB_A_SLOPE]);
	job.intercept = u32(a[MLTCP_JOB_A_INTERCEPT]);
	job.idle_gap_us = u32(a[MLTCP_JOB_A_IDLE_GAP_US]);
	job.iter_bytes = u64(a[MLTCP_JOB_A_ITER_BYTES]);
	job.base = u8(a[MLTCP_JOB_A_BASE]);
	if (a[MLTCP_JOB_A_EXEMPT])
		job.exempt = mnl_attr_get_u8(a[MLTCP_JOB_A_EXEMPT]) != 0;
	if (a[MLTCP_JOB_A_MARKED])
		job.marked = mnl_attr_get_u8(a[MLTCP_JOB_A_MARKED]) != 0;
	job.marks = u64(a[MLTCP_JOB_A_MARKS]);
	job.clear = u32(a[MLTCP_JOB_A_CLEAR]).value_or(0);
	job.flows = u32(a[MLTCP_JOB_A_FLOWS]);
	job.flows_total = u64(a[MLTCP_JOB_A_FLOWS_TOTAL]);
	job.iterations = u64(a[MLTCP_JOB_A_ITERATIONS]);
	job.bytes = u64(a[MLTCP_JOB_A_BYTES]);
	if (!ok)
		return std::nullopt;
	return job;
}

std::optional<Flow> decode_flow(const nlmsghdr *nlh)
{
	Table t{ flow_types(), MLTCP_FLOW_A_MAX, {} };
	Flow f;

	if (!is_genl_msg(nlh) || !parse(nlh, sizeof(genlmsghdr), t))
		return std::nullopt;
	const auto &a = t.attrs;
	for (int required : { MLTCP_FLOW_A_COOKIE, MLTCP_FLOW_A_FAMILY, MLTCP_FLOW_A_SADDR,
			      MLTCP_FLOW_A_DADDR, MLTCP_FLOW_A_CA })
		if (!a[required])
			return std::nullopt;
	f.family = mnl_attr_get_u8(a[MLTCP_FLOW_A_FAMILY]);
	size_t alen = f.family == AF_INET ? 4 : f.family == AF_INET6 ? 16 : 0;
	if (!alen || mnl_attr_get_payload_len(a[MLTCP_FLOW_A_SADDR]) != alen ||
	    mnl_attr_get_payload_len(a[MLTCP_FLOW_A_DADDR]) != alen)
		return std::nullopt;
	memcpy(f.saddr.data(), mnl_attr_get_payload(a[MLTCP_FLOW_A_SADDR]), alen);
	memcpy(f.daddr.data(), mnl_attr_get_payload(a[MLTCP_FLOW_A_DADDR]), alen);
	f.job = u32(a[MLTCP_FLOW_A_JOB]);
	f.cookie = *u64(a[MLTCP_FLOW_A_COOKIE]);
	f.sport = u16(a[MLTCP_FLOW_A_SPORT]).value_or(0);
	f.dport = u16(a[MLTCP_FLOW_A_DPORT]).value_or(0);
	f.ca = mnl_attr_get_str(a[MLTCP_FLOW_A_CA]);
	f.base = u8(a[MLTCP_FLOW_A_BASE]).value_or(0);
	f.mode = u8(a[MLTCP_FLOW_A_MODE]).value_or(0);
	f.exempt = u8(a[MLTCP_FLOW_A_EXEMPT]).value_or(0) != 0;
	f.cwnd = u32(a[MLTCP_FLOW_A_CWND]).value_or(0);
	f.ssthresh = u32(a[MLTCP_FLOW_A_SSTHRESH]).value_or(0);
	f.bytes_this_iter = u64(a[MLTCP_FLOW_A_BYTES_THIS_ITER]).value_or(0);
	f.iter_bytes = u64(a[MLTCP_FLOW_A_ITER_BYTES]).value_or(0);
	f.iter_fixed = u8(a[MLTCP_FLOW_A_ITER_FIXED]).value_or(0) != 0;
	if (auto trusted = u8(a[MLTCP_FLOW_A_ITER_TRUSTED]))
		f.iter_trusted = *trusted != 0;
	f.r = u32(a[MLTCP_FLOW_A_R]).value_or(0);
	f.f = u32(a[MLTCP_FLOW_A_F]).value_or(0);
	f.iterations = u32(a[MLTCP_FLOW_A_ITERATIONS]).value_or(0);
	f.last_iter_us = u32(a[MLTCP_FLOW_A_LAST_ITER_US]).value_or(0);
	f.slope = u32(a[MLTCP_FLOW_A_SLOPE]).value_or(0);
	f.intercept = u32(a[MLTCP_FLOW_A_INTERCEPT]).value_or(0);
	f.idle_gap_us = u32(a[MLTCP_FLOW_A_IDLE_GAP_US]).value_or(0);
	// An older module sends none: the flow lists no DSCP then.
	if (auto dscp = u8(a[MLTCP_FLOW_A_DSCP]))
		f.dscp = static_cast<uint8_t>(*dscp & MLTCP_DSCP_MAX);
	if (auto held = u8(a[MLTCP_FLOW_A_PRIO_HELD]))
		f.prio_held = *held != 0;
	return f;
}

namespace
{

// A group of counts a module added together (the gate's, the holds'): all
// of them, or none from a module older than them, in *out; false if only
// some are there, which is no module's reply.
template <size_t N>
bool decode_count_group(const Table &t, uint16_t (*attr)(int),
			std::optional<std::array<uint64_t, N>> *out)
{
	std::array<uint64_t, N> counts{};
	size_t present = 0;

	for (size_t i = 0; i < N; i++) {
		auto count = u64(t.attrs[attr(static_cast<int>(i))]);
		counts[i] = count.value_or(0);
		present += count.has_value();
	}
	if (present == N)
		*out = counts;
	return present == N || present == 0;
}

} // namespace

std::optional<Stats> decode_stats(const nlmsghdr *nlh)
{
	static mnl_attr_data_type types[MLTCP_STATS_A_MAX + 1];
	Table t{ types, MLTCP_STATS_A_MAX, {} };
	Stats stats;

	for (int v = 0; v < MLTCP_TX_NR_VERDICTS; v++)
		types[stats_attr(v)] = MNL_TYPE_U64;
	for (int v = 0; v < MLTCP_GATE_NR_VERDICTS; v++)
		types[gate_attr(v)] = MNL_TYPE_U64;
	for (int e = 0; e < MLTCP_PRIO_HOLD_NR_EVENTS; e++)
		types[prio_hold_attr(e)] = MNL_TYPE_U64;
	if (!is_genl_msg(nlh) || !parse(nlh, sizeof(genlmsghdr), t))
		return std::nullopt;
	for (int v = 0; v < MLTCP_TX_NR_VERDICTS; v++) {
		auto count = u64(t.attrs[stats_attr(v)]);
		if (!count)
			return std::nullopt;
		stats.verdicts[v] = *count;
	}
	if (!decode_count_group(t, gate_attr, &stats.gate) ||
	    !decode_count_group(t, prio_hold_attr, &stats.prio_hold))
		return std::nullopt;
	return stats;
}

std::optional<Ack> decode_ack(const nlmsghdr *nlh)
{
	size_t payload = nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
	auto *data = static_cast<const uint8_t *>(mnl_nlmsg_get_payload(nlh));
	uint64_t tlv_at;
	int32_t error;
	Ack ack;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(int32_t))
		return std::nullopt;
	memcpy(&error, data, sizeof(error));
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		// struct nlmsgerr: the error, then the request's header (and,
		// unless capped, its payload).
		if (payload < sizeof(nlmsgerr))
			return std::nullopt;
		nlmsghdr echoed;
		memcpy(&echoed, data + sizeof(int32_t), sizeof(echoed));
		tlv_at = sizeof(nlmsgerr);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (echoed.nlmsg_len < sizeof(nlmsghdr))
				return std::nullopt;
			tlv_at = sizeof(int32_t) + padded_length(echoed.nlmsg_len);
		}
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		tlv_at = sizeof(int32_t);
	} else {
		return std::nullopt;
	}
	if (error > 0 || error == INT32_MIN)
		return std::nullopt;
	ack.error = -error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || tlv_at >= payload)
		return ack;

	std::vector<const nlattr *> t(NLMSGERR_ATTR_MAX + 1, nullptr);
	mnl_attr_parse_payload(data + tlv_at, static_cast<size_t>(payload - tlv_at), ack_cb, &t);
	if (t[NLMSGERR_ATTR_MSG] &&
	    mnl_attr_validate(t[NLMSGERR_ATTR_MSG], MNL_TYPE_NUL_STRING) == 0)
		ack.message = mnl_attr_get_str(t[NLMSGERR_ATTR_MSG]);
	if (t[NLMSGERR_ATTR_OFFS] && mnl_attr_validate(t[NLMSGERR_ATTR_OFFS], MNL_TYPE_U32) == 0)
		ack.offset = mnl_attr_get_u32(t[NLMSGERR_ATTR_OFFS]);
	if (t[NLMSGERR_ATTR_MISS_TYPE] &&
	    mnl_attr_validate(t[NLMSGERR_ATTR_MISS_TYPE], MNL_TYPE_U32) == 0)
		ack.missing = mnl_attr_get_u32(t[NLMSGERR_ATTR_MISS_TYPE]);
	if (t[NLMSGERR_ATTR_POLICY] &&
	    mnl_attr_validate(t[NLMSGERR_ATTR_POLICY], MNL_TYPE_NESTED) == 0)
		policy_bounds(t[NLMSGERR_ATTR_POLICY], ack);
	return ack;
}

Bytes encode_ack(const Ack &ack, uint32_t seq)
{
	Bytes buf(kMessageMax);
	nlmsghdr *nlh = mnl_nlmsg_put_header(buf.data());
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	nlh->nlmsg_seq = seq;
	auto *err = static_cast<nlmsgerr *>(mnl_nlmsg_put_extra_header(nlh, sizeof(nlmsgerr)));
	err->error = -ack.error;
	err->msg.nlmsg_len = sizeof(nlmsghdr);
	err->msg.nlmsg_seq = seq;
	if (!ack.message.empty())
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, ack.message.c_str());
	if (ack.offset)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, *ack.offset);
	if (ack.missing)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, *ack.missing);
	if (ack.min || ack.max) {
		nlattr *nest = mnl_attr_nest_start(nlh, NLMSGERR_ATTR_POLICY);
		mnl_attr_put_u32(nlh, NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32);
		if (ack.min)
			mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MIN_VALUE_U, *ack.min);
		if (ack.max)
			mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MAX_VALUE_U, *ack.max);
		mnl_attr_nest_end(nlh, nest);
	}
	buf.resize(nlh->nlmsg_len);
	return buf;
}

std::optional<uint16_t> attr_at(const Bytes &request, uint32_t offset)
{
	size_t start = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(genlmsghdr));
	size_t pos = start;

	while (pos + sizeof(nlattr) <= request.size()) {
		nlattr attr;
		memcpy(&attr, request.data() + pos, sizeof(attr));
		if (attr.nla_len < sizeof(nlattr))
			return std::nullopt;
		if (pos == offset)
			return attr.nla_type & NLA_TYPE_MASK;
		pos += MNL_ALIGN(attr.nla_len);
	}
	return std::nullopt;
}

} // namespace mltcpctl
