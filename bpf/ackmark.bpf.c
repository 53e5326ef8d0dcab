// SPDX-License-Identifier: GPL-2.0
/*
 * ackmark.bpf.c: give a host's pure TCP ACKs a DSCP of their own, so that
 * the fabric can serve them first.
 *
 * Jobs that exchange gradients send data both ways through the same
 * bottleneck, so each job's ACKs queue behind the other job's data. The ACK
 * clock then stretches with the other job's burst, both jobs' ends move, and
 * the interleaving MLTCP found is lost within a few iterations. Served from
 * a strict-priority class, ACKs do not wait, and exchanging jobs hold their
 * turns as one-way jobs do (docs/research/interleaving-on-the-host.md: 14 of 15 repeats
 * stable on the host kernel with ACKs first, 0 of 15 without). A switch
 * cannot see which segments carry no data; the sender can.
 *
 * A tc classifier on a device's clsact egress hook (direct action). For each
 * TCP segment over IPv4 or IPv6 (no extension headers) whose headers are in
 * the linear part of the skb:
 *  - a pure ACK (no payload; ACK set; SYN, FIN and RST clear) leaves with
 *    the configured DSCP in the upper six bits of the TOS / traffic class
 *    byte; the two ECN bits are kept; the IPv4 header checksum is updated
 *    incrementally (RFC 1624, by the kernel's helper);
 *  - every other segment is left as it is: a data segment, whatever its
 *    size, never gets the ACK class.
 * Every packet goes on to the hook's next filter (TC_ACT_UNSPEC): the
 * marker never drops, redirects or reorders.
 *
 * The payload is the IP length less both headers, so a GSO super-packet is
 * data however the device splits it. Not looked at (neither marked nor
 * counted): 802.1Q tags in the frame (a tag the NIC inserts is not in it),
 * IPv6 extension headers, IPv4 BIG TCP packets (length 0), headers beyond
 * the linear part. The configuration and the counters are in maps
 * (bpf/mltcp_ackmark.h); mltcpctl loads one program per device.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "mltcp_ackmark.h"

#define TC_ACT_UNSPEC (-1)
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define IP_MF_OFFSET 0x3fff /* more-fragments flag and fragment offset */
#define ECN_MASK 0x03
#define DSCP_SHIFT 2

/* TCP's flags byte (offset 13 of the header). */
#define TCPF_FIN 0x01
#define TCPF_SYN 0x02
#define TCPF_RST 0x04
#define TCPF_ACK 0x10

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mltcp_ackmark_config);
} ackmark_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MLTCP_ACKMARK_NR_STATS);
	__type(key, __u32);
	__type(value, __u64);
} ackmark_stats SEC(".maps");

static __always_inline void count(__u32 stat)
{
	__u64 *n = bpf_map_lookup_elem(&ackmark_stats, &stat);

	if (n)
		(*n)++;
}

/* A pure ACK: no payload and only ACK among SYN, FIN, RST and ACK. */
static __always_inline bool is_pure_ack(const __u8 *tcp, __u32 l4_len)
{
	__u32 doff = (__u32)(tcp[12] >> 4) * 4;

	return doff >= sizeof(struct tcphdr) && l4_len == doff &&
	       (tcp[13] & (TCPF_SYN | TCPF_FIN | TCPF_RST | TCPF_ACK)) == TCPF_ACK;
}

static __always_inline __u8 with_dscp(__u8 tos, __u32 dscp)
{
	return (__u8)(dscp << DSCP_SHIFT) | (tos & ECN_MASK);
}

/* Whether the packet leaves with the DSCP. */
static __always_inline bool mark_ipv4(struct __sk_buff *skb, struct iphdr *ip, __u32 dscp)
{
	__u32 off = sizeof(struct ethhdr);
	__be16 old_word, new_word;
	__u8 tos = with_dscp(ip->tos, dscp);

	if (tos == ip->tos)
		return true;
	/* The checksum covers 16-bit words: version/IHL and TOS are one. The
	 * byte goes first: if the checksum could not follow, the packet is
	 * put back as it was rather than sent with a wrong one. */
	old_word = *(__be16 *)ip;
	((__u8 *)&new_word)[0] = ((__u8 *)ip)[0];
	((__u8 *)&new_word)[1] = tos;
	if (bpf_skb_store_bytes(skb, off + offsetof(struct iphdr, tos), &tos, sizeof(tos), 0))
		return false;
	if (bpf_l3_csum_replace(skb, off + offsetof(struct iphdr, check), old_word, new_word,
				sizeof(__be16))) {
		__u8 old_tos = ((__u8 *)&old_word)[1];

		bpf_skb_store_bytes(skb, off + offsetof(struct iphdr, tos), &old_tos,
				    sizeof(old_tos), 0);
		return false;
	}
	return true;
}

static __always_inline bool mark_ipv6(struct __sk_buff *skb, struct ipv6hdr *ip6, __u32 dscp)
{
	/* Version (4 bits), traffic class (8), flow label (20): the class
	 * straddles the first two bytes. */
	__u16 word = bpf_ntohs(*(__be16 *)ip6);
	__u8 tclass = (__u8)(word >> 4);
	__u8 marked = with_dscp(tclass, dscp);
	__be16 out;

	if (marked == tclass)
		return true;
	out = bpf_htons((__u16)((word & 0xf00f) | ((__u16)marked << 4)));
	return bpf_skb_store_bytes(skb, sizeof(struct ethhdr), &out, sizeof(out), 0) == 0;
}

SEC("tc")
int mltcp_ackmark(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct mltcp_ackmark_config *cfg;
	__u32 zero = 0;

	cfg = bpf_map_lookup_elem(&ackmark_config, &zero);
	if (!cfg || (void *)(eth + 1) > end)
		return TC_ACT_UNSPEC;

	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		__u8 *tcp;
		__u32 ihl, len;

		if ((void *)(ip + 1) > end || ip->version != 4 || ip->protocol != IPPROTO_TCP ||
		    (ip->frag_off & bpf_htons(IP_MF_OFFSET)))
			return TC_ACT_UNSPEC;
		ihl = (__u32)ip->ihl * 4;
		len = bpf_ntohs(ip->tot_len);
		if (ihl < sizeof(*ip) || len < ihl)
			return TC_ACT_UNSPEC;
		tcp = (__u8 *)ip + ihl;
		if ((void *)(tcp + sizeof(struct tcphdr)) > end)
			return TC_ACT_UNSPEC;
		if (!is_pure_ack(tcp, len - ihl)) {
			count(MLTCP_ACKMARK_STAT_LEFT);
			return TC_ACT_UNSPEC;
		}
		if (mark_ipv4(skb, ip, cfg->dscp))
			count(MLTCP_ACKMARK_STAT_MARKED);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		__u8 *tcp = (__u8 *)(ip6 + 1);

		if ((void *)(tcp + sizeof(struct tcphdr)) > end || ip6->version != 6 ||
		    ip6->nexthdr != IPPROTO_TCP)
			return TC_ACT_UNSPEC;
		if (!is_pure_ack(tcp, bpf_ntohs(ip6->payload_len))) {
			count(MLTCP_ACKMARK_STAT_LEFT);
			return TC_ACT_UNSPEC;
		}
		if (mark_ipv6(skb, ip6, cfg->dscp))
			count(MLTCP_ACKMARK_STAT_MARKED);
	}
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";
