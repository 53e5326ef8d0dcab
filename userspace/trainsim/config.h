// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Command line of mltcp-trainsim, parsed into a Config without touching the
// network, so that every rule (required options, units, the collective that
// fits the world size) can be unit-tested.
#ifndef MLTCP_TRAINSIM_CONFIG_H
#define MLTCP_TRAINSIM_CONFIG_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mltcp::trainsim
{

enum class Collective { exchange, ring, push };

std::string_view collective_name(Collective collective);

// How an iteration's bytes go out (schedule.h, iteration_plan()): burst, one
// collective of all the bytes once the compute phase ends, on one socket per
// connection; ddp, a train of bucket collectives overlapped with the compute
// phase, as PyTorch DDP sends; nccl, one collective whose messages are cut
// into chunks round-robined over several sockets per connection, as NCCL's
// socket transport sends.
enum class Pattern { burst, ddp, nccl };

std::string_view pattern_name(Pattern pattern);

// A host (or address literal) and a port, as given on the command line. IPv6
// literals are written in brackets: "[::1]:5000".
struct Endpoint {
	std::string host; // empty for "--listen PORT": every local address
	uint16_t port = 0;
};

std::string format_endpoint(const Endpoint &endpoint);

inline constexpr uint64_t default_chunk_bytes = 256 * 1024;
inline constexpr uint64_t default_connect_timeout_us = 30'000'000;
inline constexpr uint64_t default_seed = 1;
// PyTorch DDP's defaults: bucket_cap_mb = 25, the first bucket 1 MiB
// (torch.distributed._DEFAULT_FIRST_BUCKET_BYTES).
inline constexpr uint64_t default_bucket_bytes = 25ull << 20;
inline constexpr uint64_t default_first_bucket_bytes = 1ull << 20;
// Sockets per connection of --pattern nccl unless --sockets says otherwise
// (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS; 2 x 2 is a common cloud
// setting, up to 64).
inline constexpr unsigned default_nccl_sockets = 4;
inline constexpr unsigned max_sockets = 64;

struct Config {
	std::string job;
	unsigned rank = 0;
	unsigned world = 0;
	Endpoint listen;
	Endpoint next;
	uint64_t bytes = 0; // gradient bytes per iteration (SIZE)
	uint64_t compute_us = 0;
	uint64_t jitter_us = 0;
	// Exactly one of the two is set.
	std::optional<uint64_t> iterations;
	std::optional<uint64_t> duration_us;
	Collective collective = Collective::exchange;
	std::string cc;			    // empty: the kernel's default algorithm
	std::optional<int64_t> start_at_ns; // CLOCK_REALTIME, nanoseconds since the epoch
	uint64_t offset_us = 0;
	// The slot schedule (schedule.h, slot_start_ns()): iteration n begins
	// its compute no earlier than iteration 0's start + n * slot_period_us.
	// 0: none, each iteration begins when the last ended.
	uint64_t slot_period_us = 0;
	std::string log_path; // empty: stdout
	uint64_t seed = default_seed;
	uint64_t connect_timeout_us = default_connect_timeout_us;
	uint64_t chunk_bytes = default_chunk_bytes;
	Pattern pattern = Pattern::burst;
	uint64_t bucket_bytes = default_bucket_bytes;		  // ddp
	uint64_t first_bucket_bytes = default_first_bucket_bytes; // ddp
	unsigned sockets = 1; // per connection: 1 for burst, default_nccl_sockets for nccl
	// --mark JOB: the MLTCP job (1-4294967295, made "marked" by whoever set up
	// the run) that this worker marks through libmltcp before each
	// iteration's first byte, as the DDP hook marks a step. None: no marks.
	std::optional<uint32_t> mark_job;
};

struct ParseResult {
	enum class Outcome { run, help, error };
	Outcome outcome = Outcome::error;
	Config config;	   // valid when outcome == run
	std::string error; // one line naming the option, when outcome == error
};

// args excludes the program name.
ParseResult parse_command_line(const std::vector<std::string> &args);

std::string usage_text();

// "1763790000.123456" (up to 9 fractional digits) -> nanoseconds since the
// epoch. Exact: no floating point on the way.
std::optional<int64_t> parse_unix_time_ns(std::string_view text);

// "HOST:PORT", "[V6]:PORT"; with host_optional, a bare "PORT" too.
std::optional<Endpoint> parse_endpoint(std::string_view text, bool host_optional);

} // namespace mltcp::trainsim

#endif // MLTCP_TRAINSIM_CONFIG_H
