// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The BPF backend's data without the kernel: job requests applied to
// entries of the mltcp_jobs map (bpf/mltcp_bpf.h) with the module's rules,
// entries back to the model, and the flow iterator's lines to flows. Pure,
// so unit-tested without privileges.
#ifndef MLTCPCTL_BPF_JOBS_H
#define MLTCPCTL_BPF_JOBS_H

#include <optional>
#include <string>
#include <string_view>

#include "mltcp_bpf.h"
#include "model.h"

namespace mltcpctl
{

// Applies a "job add" (entry all zero) or "job set" (entry: the job as it
// is) request as the module's mltcp_nl_apply() does: given fields replace,
// cleared ones are dropped, a peer is masked to its prefix and a mark to its
// mask, "exempt off" is no setting. Checks every range again (the parser
// has; this guards the map against other callers). Returns a one-line error
// and leaves entry unchanged, or "".
std::string apply_bpf_job(mltcp_bpf_job &entry, const Job &request);

// The job as "job show" reports it. The BPF backend keeps no counters:
// flows, flows_total, iterations and bytes stay empty (omitted in output).
Job decode_bpf_job(const mltcp_bpf_job &entry);

// One line of the pinned flow iterator (bpf/mltcp.bpf.c, mltcp_flows).
// job=0 is no job. exempt is not in the line (no room in the flow's state);
// the caller sets it from the job table, as the module does. Empty for a
// malformed line.
std::optional<Flow> decode_bpf_flow(std::string_view line);

} // namespace mltcpctl

#endif // MLTCPCTL_BPF_JOBS_H
