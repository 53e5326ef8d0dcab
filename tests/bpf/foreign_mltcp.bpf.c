// SPDX-License-Identifier: GPL-2.0
/*
 * Another loader's congestion control that happens to be named "mltcp":
 * Reno through the kernel's kfuncs. tests/bpf/test_bpf_host.py registers it
 * with bpftool to check that "mltcpctl bpf unload" leaves it alone.
 * Compiled by the test against build/bpf/vmlinux.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

extern u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, u32 ack, u32 acked) __ksym;
extern u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
u32 BPF_PROG(foreign_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(foreign_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
u32 BPF_PROG(foreign_undo, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops mltcp = {
	.ssthresh = (void *)foreign_ssthresh,
	.cong_avoid = (void *)foreign_cong_avoid,
	.undo_cwnd = (void *)foreign_undo,
	.name = "mltcp",
};
