// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The BPF backend's data without the kernel: job requests applied to the
// policy's job specs (the mltcp_jobs map's slots, bpf/mltcp_bpf.h) by the
// policy itself, specs back to the model, and the flow iterator's binary
// records to flows. Pure, so unit-tested without privileges.
#ifndef MLTCPCTL_BPF_JOBS_H
#define MLTCPCTL_BPF_JOBS_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mltcp_bpf.h"
#include "model.h"

namespace mltcpctl
{

// The policy's request for a "job add" or "job set" of the model.
mltcp_job_request job_request(const Job &request);

// Applies a "job add" (spec all zero) or "job set" (spec: the job as it is)
// request with the policy's mltcp_job_apply(), the module's rules. Returns
// a one-line error and leaves spec unchanged, or "".
std::string apply_job(mltcp_job_spec &spec, const Job &request);

// The job as "job show" reports it. The BPF backend keeps no counters:
// flows, flows_total, iterations and bytes stay empty (omitted in output).
Job decode_job_spec(const mltcp_job_spec &spec);

// The flow iterator's output: whole records of this version, one after the
// other. Empty, with a one-line *error, if any record has another magic or
// size (an object loaded by another version), is cut short or malformed.
// job 0 is no job. exempt is not in the record; the caller sets it from the
// job table, as the module does.
std::optional<std::vector<Flow>> decode_flow_records(std::string_view bytes, std::string *error);

} // namespace mltcpctl

#endif // MLTCPCTL_BPF_JOBS_H
