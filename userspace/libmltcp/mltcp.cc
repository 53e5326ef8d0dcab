// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// libmltcp (mltcp.h) over mltcpctl's backends (userspace/mltcpctl/backend.h):
// a marker is a backend opened once, and a mark is Backend::mark_job(),
// which "mltcpctl job mark" runs too. The module's backend keeps its
// generic netlink socket open between marks, so a mark is one request and
// its ack; the BPF backend applies the core's rule (mltcp_job_mark()) to
// the pinned job table under the pin directory's lock.
#include "mltcp.h"

#include <cerrno>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "args.h"
#include "backend.h"
#include "error.h"
#include "mltcpctl.h"
#include "netlink.h"

#define MLTCP_API extern "C" __attribute__((visibility("default")))

struct mltcp_marker {
	uint32_t job;
	std::unique_ptr<mltcpctl::Backend> backend;
};

namespace
{

thread_local std::string last_error;

int fail(const std::string &message, int err)
{
	last_error = message;
	// Every failure is an errno to the caller, the unnamed ones EIO.
	return -(err > 0 ? err : EIO);
}

// Runs fn, turning what mltcpctl's code throws into a negative errno and
// the message mltcpctl would print for "job mark JOB".
template <typename Fn> int guarded(uint32_t job, Fn fn)
{
	try {
		fn();
		return 0;
	} catch (const mltcpctl::KernelError &e) {
		mltcpctl::Command cmd;

		cmd.action = mltcpctl::Action::JobMark;
		cmd.job.id = job;
		return fail(mltcpctl::describe(e, cmd), e.ack.error);
	} catch (const mltcpctl::Error &e) {
		return fail(e.what(), e.err);
	} catch (const std::bad_alloc &) {
		return fail("out of memory", ENOMEM);
	} catch (const std::exception &e) {
		return fail(e.what(), EIO);
	}
}

std::optional<mltcpctl::BackendKind> kind_of(mltcp_backend backend)
{
	switch (backend) {
	case MLTCP_BACKEND_AUTO: return mltcpctl::BackendKind::Auto;
	case MLTCP_BACKEND_KMOD: return mltcpctl::BackendKind::Kmod;
	case MLTCP_BACKEND_BPF: return mltcpctl::BackendKind::Bpf;
	}
	return std::nullopt;
}

} // namespace

MLTCP_API int mltcp_marker_open(mltcp_marker **marker, uint32_t job, mltcp_backend backend)
{
	auto kind = kind_of(backend);

	if (!marker)
		return fail("mltcp_marker_open: no place for the marker", EINVAL);
	*marker = nullptr;
	if (!kind)
		return fail("backend " + std::to_string(static_cast<int>(backend)) +
				    ": not a backend (auto, kmod or bpf)",
			    EINVAL);
	return guarded(job, [&] {
		try {
			// mltcpctl's rule for a job ID, and its words.
			mltcpctl::parse_job_id(std::to_string(job));
		} catch (const mltcpctl::BadArgs &e) {
			throw mltcpctl::Error(e.message, EINVAL);
		}
		auto m = std::make_unique<mltcp_marker>();
		m->job = job;
		m->backend = mltcpctl::open_backend(*kind);
		*marker = m.release();
	});
}

MLTCP_API int mltcp_mark(mltcp_marker *marker, uint32_t step)
{
	if (!marker)
		return fail("mltcp_mark: no marker", EINVAL);
	return guarded(marker->job, [&] {
		marker->backend->mark_job(marker->job,
					  step ? std::optional<uint32_t>(step) : std::nullopt);
	});
}

MLTCP_API void mltcp_marker_close(mltcp_marker *marker)
{
	delete marker;
}

MLTCP_API const char *mltcp_error(void)
{
	return last_error.c_str();
}
