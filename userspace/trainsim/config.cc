// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "config.h"

#include <arpa/inet.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "schedule.h"
#include "units.h"

namespace mltcp::trainsim
{
namespace
{

// TCP_CA_NAME_MAX is 16 including the terminating NUL.
constexpr size_t max_cc_name = 15;
constexpr size_t max_job_name = 64;
constexpr unsigned max_world = 4096;
// The send and receive buffers are allocated once at this size.
constexpr uint64_t max_chunk_bytes = 64ull << 20;
// An hour: far beyond any iteration.
constexpr uint64_t max_slot_period_us = 3'600'000'000ull;
constexpr uint64_t max_bucket_bytes = 1ull << 40;

std::optional<uint64_t> parse_unsigned(std::string_view text)
{
	if (text.empty() || text.size() > 19)
		return std::nullopt;
	uint64_t value = 0;
	for (char c : text) {
		if (c < '0' || c > '9')
			return std::nullopt;
		value = value * 10 + static_cast<uint64_t>(c - '0');
	}
	return value;
}

bool is_valid_job_name(std::string_view name)
{
	if (name.empty() || name.size() > max_job_name)
		return false;
	for (char c : name) {
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' || c == ':';
		if (!ok)
			return false;
	}
	return true;
}

bool is_address_literal(const std::string &host)
{
	unsigned char buf[16];
	return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
	       inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

std::string quoted(std::string_view text)
{
	return "\"" + std::string(text) + "\"";
}

// Thrown by the handlers; its message is the one line the user sees.
class OptionError
{
public:
	explicit OptionError(std::string message) : message_(std::move(message)) {}
	const std::string &message() const { return message_; }

private:
	std::string message_;
};

// The command line as read so far; cross-option rules run at the end.
struct Draft {
	Config config;
	std::optional<std::string> collective; // checked once the world size is known
	std::optional<unsigned> sockets;       // checked once the pattern is known
	std::set<std::string> seen;
};

using Handler = std::function<void(Draft &, std::string_view name, std::string_view value)>;

// The value parsed, or an error naming the option, what was wrong and what works.
uint64_t need(std::optional<uint64_t> parsed, std::string_view name, std::string_view value,
	      const char *kind, const char *examples)
{
	if (!parsed)
		throw OptionError(std::string(name) + ": invalid " + kind + " " + quoted(value) +
				  " (" + examples + ")");
	return *parsed;
}

uint64_t need_size(std::string_view name, std::string_view value)
{
	return need(parse_size(value), name, value, "size", "examples: 1500, 64K, 1.5M, 2G");
}

uint64_t need_duration(std::string_view name, std::string_view value)
{
	return need(parse_duration_us(value), name, value, "duration",
		    "a unit is required: 250us, 20ms, 1.5s");
}

uint64_t need_unsigned(std::string_view name, std::string_view value)
{
	return need(parse_unsigned(value), name, value, "number", "a non-negative decimal integer");
}

// An option that sets one number of the config: parsed, then refused outside
// [min, max] with the words given (what it "must be").
template <typename Field>
Handler number(Field Config::*field, uint64_t (*need)(std::string_view, std::string_view),
	       uint64_t min = 0, const char *must_be = "",
	       uint64_t max = std::numeric_limits<uint64_t>::max())
{
	return [=](Draft &d, std::string_view name, std::string_view value) {
		uint64_t number = need(name, value);
		if (number < min || number > max)
			throw OptionError(std::string(name) + ": must be " + must_be);
		d.config.*field = number;
	};
}

const std::map<std::string, Handler, std::less<>> &handlers()
{
	static const std::map<std::string, Handler, std::less<>> table = {
		{ "--job",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  if (!is_valid_job_name(value))
				  throw OptionError(std::string(name) + ": invalid name " +
						    quoted(value) +
						    " (1 to 64 of A-Z a-z 0-9 . _ - :)");
			  d.config.job = value;
		  } },
		{ "--rank",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  uint64_t rank = need_unsigned(name, value);
			  if (rank >= max_world)
				  throw OptionError(std::string(name) + ": " + std::string(value) +
						    " is too large");
			  d.config.rank = static_cast<unsigned>(rank);
		  } },
		{ "--world",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  uint64_t world = need_unsigned(name, value);
			  if (world < 2 || world > max_world)
				  throw OptionError(std::string(name) + ": must be between 2 and " +
						    std::to_string(max_world) + ", got " +
						    std::string(value));
			  d.config.world = static_cast<unsigned>(world);
		  } },
		{ "--listen",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  auto endpoint = parse_endpoint(value, true);
			  if (!endpoint ||
			      (!endpoint->host.empty() && !is_address_literal(endpoint->host)))
				  throw OptionError(
					  std::string(name) + ": invalid " + quoted(value) +
					  " (expected [ADDR:]PORT with a numeric address, "
					  "e.g. 5000, 10.0.0.1:5000, [::1]:5000)");
			  d.config.listen = *endpoint;
		  } },
		{ "--next",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  auto endpoint = parse_endpoint(value, false);
			  if (!endpoint)
				  throw OptionError(std::string(name) + ": invalid " +
						    quoted(value) +
						    " (expected HOST:PORT, e.g. 10.0.0.2:5000)");
			  d.config.next = *endpoint;
		  } },
		{ "--bytes", number(&Config::bytes, need_size, 1, "at least 1 byte") },
		{ "--compute", number(&Config::compute_us, need_duration) },
		{ "--jitter", number(&Config::jitter_us, need_duration) },
		{ "--iterations", number(&Config::iterations, need_unsigned, 1, "at least 1") },
		{ "--duration", number(&Config::duration_us, need_duration, 1, "longer than 0") },
		{ "--collective",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  if (value != "exchange" && value != "ring" && value != "push")
				  throw OptionError(std::string(name) + ": unknown collective " +
						    quoted(value) + " (exchange, ring or push)");
			  d.collective = std::string(value);
		  } },
		{ "--cc",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  if (value.empty() || value.size() > max_cc_name)
				  throw OptionError(
					  std::string(name) +
					  ": the algorithm name must have 1 to 15 characters");
			  d.config.cc = value;
		  } },
		{ "--start-at",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  d.config.start_at_ns = parse_unix_time_ns(value);
			  if (!d.config.start_at_ns)
				  throw OptionError(
					  std::string(name) + ": invalid time " + quoted(value) +
					  " (seconds since the epoch, e.g. 1763790000.25)");
		  } },
		{ "--offset", number(&Config::offset_us, need_duration) },
		{ "--slot-period", number(&Config::slot_period_us, need_duration, 1,
					  "from 1us to 3600s", max_slot_period_us) },
		{ "--log",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  if (value.empty())
				  throw OptionError(std::string(name) + ": empty file name");
			  d.config.log_path = value == "-" ? "" : std::string(value);
		  } },
		{ "--seed", number(&Config::seed, need_unsigned) },
		{ "--connect-timeout",
		  number(&Config::connect_timeout_us, need_duration, 1, "longer than 0") },
		{ "--chunk", number(&Config::chunk_bytes, need_size, 1, "between 1 byte and 64M",
				    max_chunk_bytes) },
		{ "--pattern",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  if (value == "burst")
				  d.config.pattern = Pattern::burst;
			  else if (value == "ddp")
				  d.config.pattern = Pattern::ddp;
			  else if (value == "nccl")
				  d.config.pattern = Pattern::nccl;
			  else
				  throw OptionError(std::string(name) + ": unknown pattern " +
						    quoted(value) + " (burst, ddp or nccl)");
		  } },
		{ "--bucket", number(&Config::bucket_bytes, need_size, 1, "between 1 byte and 1T",
				     max_bucket_bytes) },
		{ "--first-bucket", number(&Config::first_bucket_bytes, need_size, 1,
					   "between 1 byte and 1T", max_bucket_bytes) },
		{ "--mark",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  // mltcp_marker_open()'s range: job 0 is no job.
			  uint64_t job = need_unsigned(name, value);
			  if (job < 1 || job > std::numeric_limits<uint32_t>::max())
				  throw OptionError(std::string(name) +
						    ": the MLTCP job must be between 1 and " +
						    std::to_string(std::numeric_limits<uint32_t>::max()) +
						    ", got " + std::string(value));
			  d.config.mark_job = static_cast<uint32_t>(job);
		  } },
		{ "--sockets",
		  [](Draft &d, std::string_view name, std::string_view value) {
			  uint64_t sockets = need_unsigned(name, value);
			  if (sockets < 1 || sockets > max_sockets)
				  throw OptionError(std::string(name) + ": must be between 1 and " +
						    std::to_string(max_sockets) + ", got " +
						    std::string(value));
			  d.sockets = static_cast<unsigned>(sockets);
		  } },
	};
	return table;
}

void check_pattern(Draft &d)
{
	Config &c = d.config;
	if (c.pattern != Pattern::ddp)
		for (const char *ddp_only : { "--bucket", "--first-bucket" })
			if (d.seen.count(ddp_only))
				throw OptionError(std::string(ddp_only) + ": only with --pattern ddp");
	if (c.pattern == Pattern::burst && d.sockets && *d.sockets != 1)
		throw OptionError("--sockets: burst sends on one socket per connection "
				  "(use --pattern nccl or ddp)");
	c.sockets = d.sockets ? *d.sockets : c.pattern == Pattern::nccl ? default_nccl_sockets : 1;
	if (c.pattern != Pattern::ddp)
		return;
	if (c.first_bucket_bytes > c.bucket_bytes)
		throw OptionError("--first-bucket: " + std::to_string(c.first_bucket_bytes) +
				  " is larger than --bucket " + std::to_string(c.bucket_bytes));
	// Every bucket is a collective of its own: a ring's must split too.
	auto buckets = ddp_buckets(c.bytes, c.bucket_bytes, c.first_bucket_bytes);
	uint64_t smallest = *std::min_element(buckets.begin(), buckets.end());
	if (c.collective == Collective::ring && smallest < c.world)
		throw OptionError("--first-bucket: a bucket of " + std::to_string(smallest) +
				  " bytes cannot be split into " + std::to_string(c.world) +
				  " ring chunks");
}

// Rules that involve several options, checked once all of them are known.
void check_combination(Draft &d)
{
	for (const char *required :
	     { "--job", "--rank", "--world", "--listen", "--next", "--bytes", "--compute" })
		if (!d.seen.count(required))
			throw OptionError(std::string(required) + " is required (see --help)");
	Config &c = d.config;
	if (c.iterations && c.duration_us)
		throw OptionError("--iterations and --duration: give one, not both");
	if (!c.iterations && !c.duration_us)
		throw OptionError("--iterations or --duration is required (see --help)");
	if (c.rank >= c.world)
		throw OptionError("--rank: " + std::to_string(c.rank) + " is not below --world " +
				  std::to_string(c.world));
	if (!d.collective)
		c.collective = c.world == 2 ? Collective::exchange : Collective::ring;
	else if (*d.collective == "exchange")
		c.collective = Collective::exchange;
	else if (*d.collective == "push")
		c.collective = Collective::push;
	else
		c.collective = Collective::ring;
	if (c.collective == Collective::exchange && c.world != 2)
		throw OptionError("--collective: exchange needs --world 2, got " +
				  std::to_string(c.world) + " (use ring)");
	// A push with more workers would need a parameter server that several
	// ranks send to, which the ring of connections does not have.
	if (c.collective == Collective::push && c.world != 2)
		throw OptionError("--collective: push needs --world 2, got " +
				  std::to_string(c.world));
	if (c.collective == Collective::ring && c.bytes < c.world)
		throw OptionError("--bytes: " + std::to_string(c.bytes) +
				  " bytes cannot be split into " + std::to_string(c.world) +
				  " ring chunks");
	check_pattern(d);
}

} // namespace

std::string_view collective_name(Collective collective)
{
	switch (collective) {
	case Collective::exchange: return "exchange";
	case Collective::ring: return "ring";
	case Collective::push: return "push";
	}
	return "?";
}

std::string_view pattern_name(Pattern pattern)
{
	switch (pattern) {
	case Pattern::burst: return "burst";
	case Pattern::ddp: return "ddp";
	case Pattern::nccl: return "nccl";
	}
	return "?";
}

std::string format_endpoint(const Endpoint &endpoint)
{
	std::string port = std::to_string(endpoint.port);
	if (endpoint.host.empty())
		return port;
	if (endpoint.host.find(':') != std::string::npos)
		return "[" + endpoint.host + "]:" + port;
	return endpoint.host + ":" + port;
}

std::optional<int64_t> parse_unix_time_ns(std::string_view text)
{
	size_t dot = text.find('.');
	std::string_view whole = text.substr(0, dot);
	std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);

	// Eleven digits reach the year 5138; int64 nanoseconds end in 2262.
	if (whole.empty() || whole.size() > 11 || fraction.size() > 9)
		return std::nullopt;
	if (dot != std::string_view::npos && fraction.empty())
		return std::nullopt;
	auto seconds = parse_unsigned(whole);
	if (!seconds || *seconds > static_cast<uint64_t>(
					   std::numeric_limits<int64_t>::max() / 1'000'000'000 - 1))
		return std::nullopt;
	int64_t ns = 0, scale = 100'000'000;
	for (char c : fraction) {
		if (c < '0' || c > '9')
			return std::nullopt;
		ns += (c - '0') * scale;
		scale /= 10;
	}
	return static_cast<int64_t>(*seconds) * 1'000'000'000 + ns;
}

std::optional<Endpoint> parse_endpoint(std::string_view text, bool host_optional)
{
	Endpoint endpoint;
	std::string_view port_text;

	if (!text.empty() && text.front() == '[') {
		size_t close = text.find(']');
		if (close == std::string_view::npos || close + 1 >= text.size() ||
		    text[close + 1] != ':')
			return std::nullopt;
		endpoint.host = text.substr(1, close - 1);
		port_text = text.substr(close + 2);
		if (endpoint.host.empty())
			return std::nullopt;
	} else {
		size_t colon = text.rfind(':');
		if (colon == std::string_view::npos) {
			if (!host_optional)
				return std::nullopt;
			port_text = text;
		} else {
			endpoint.host = text.substr(0, colon);
			port_text = text.substr(colon + 1);
			// An unbracketed IPv6 literal would be ambiguous.
			if (endpoint.host.empty() || endpoint.host.find(':') != std::string::npos)
				return std::nullopt;
		}
	}
	auto port = parse_unsigned(port_text);
	if (!port || *port == 0 || *port > 65535)
		return std::nullopt;
	endpoint.port = static_cast<uint16_t>(*port);
	return endpoint;
}

ParseResult parse_command_line(const std::vector<std::string> &args)
{
	ParseResult result;
	Draft draft;

	try {
		for (size_t i = 0; i < args.size(); i++) {
			std::string_view arg = args[i];
			if (arg == "--help" || arg == "-h") {
				result.outcome = ParseResult::Outcome::help;
				return result;
			}
			std::string_view name = arg, value;
			bool inline_value = false;
			size_t equals = arg.find('=');
			if (arg.rfind("--", 0) == 0 && equals != std::string_view::npos) {
				name = arg.substr(0, equals);
				value = arg.substr(equals + 1);
				inline_value = true;
			}
			auto handler = handlers().find(name);
			if (handler == handlers().end()) {
				if (arg.rfind("-", 0) == 0)
					throw OptionError(std::string(name) +
							  ": unknown option (see --help)");
				throw OptionError(quoted(arg) +
						  ": unexpected argument (see --help)");
			}
			if (!inline_value) {
				if (i + 1 >= args.size())
					throw OptionError(std::string(name) + ": missing value");
				value = args[++i];
			}
			if (!draft.seen.insert(std::string(name)).second)
				throw OptionError(std::string(name) + ": given more than once");
			handler->second(draft, name, value);
		}
		check_combination(draft);
	} catch (const OptionError &error) {
		result.outcome = ParseResult::Outcome::error;
		result.error = error.message();
		return result;
	}
	result.outcome = ParseResult::Outcome::run;
	result.config = std::move(draft.config);
	return result;
}

std::string usage_text()
{
	return R"(Usage:
  mltcp-trainsim --job NAME --rank I --world N --listen [ADDR:]PORT --next HOST:PORT
                 --bytes SIZE --compute DURATION [--jitter DURATION]
                 (--iterations N | --duration DURATION)
                 [--collective exchange|ring|push] [--cc NAME] [--start-at UNIX_SECONDS]
                 [--offset DURATION] [--slot-period DURATION] [--log FILE] [--seed N]
                 [--connect-timeout DURATION] [--chunk SIZE] [--pattern burst|ddp|nccl]
                 [--bucket SIZE] [--first-bucket SIZE] [--sockets N] [--mark JOB] [--check]
  mltcp-trainsim --help

Emulates one worker of a data-parallel training job: each iteration computes
(sleeps) and then exchanges the gradient bytes with the job's other workers over
TCP. The workers form a ring: rank I accepts one connection from rank I-1 and
connects to rank I+1 (--next); it sends only to --next and receives only from
the accepted connection.

  --job NAME             job name in the log (A-Z a-z 0-9 . _ - :, at most 64)
  --rank I, --world N    this worker's rank and the job's number of workers (N >= 2)
  --listen [ADDR:]PORT   where rank I-1 connects (all addresses if ADDR is omitted)
  --next HOST:PORT       rank I+1's --listen ([V6]:PORT for IPv6)
  --bytes SIZE           gradient bytes per iteration (64M, 1.5G, 1500)
  --compute DURATION     compute phase per iteration (600ms, 1.5s, 250us)
  --jitter DURATION      add uniform noise in [-jitter, +jitter] to each compute phase
  --iterations N         run N iterations, or
  --duration DURATION    run until rank 0 ends an iteration this long after the start
  --collective C         exchange (world 2; the default there): send SIZE to next while
                         receiving SIZE from prev; ring (default for N > 2): ring
                         all-reduce, 2(N-1) steps of about SIZE/N bytes each; push
                         (world 2 only): rank 0 sends SIZE to rank 1, which sends
                         none back, as a worker pushing to a parameter server
  --cc NAME              congestion control of both sockets (TCP_CONGESTION)
  --start-at T           iteration 0 starts at T + offset (CLOCK_REALTIME, e.g.
                         1763790000.25); default: as soon as the ring is connected
  --offset DURATION      delay of iteration 0 (default 0ms)
  --slot-period P        iteration n begins its compute no earlier than iteration
                         0's start + n * P; a late one (its collective ran long)
                         begins at once (default: none, each iteration begins
                         when the last ended)
  --log FILE             JSON lines (default: stdout)
  --seed N               jitter seed, mixed with job name and rank (default 1)
  --connect-timeout D    give up setting up the ring after D (default 30s)
  --chunk SIZE           bytes per send() and recv() call (default 256K)
  --pattern P            how an iteration's bytes go out: burst (default), one collective
                         after the compute phase on one socket per connection; ddp, as
                         PyTorch DDP: a collective per bucket, each sent once its share of
                         the compute phase is over (compute and communication overlap);
                         nccl, as NCCL's socket transport: each message cut into chunks
                         of at least 64K, dealt in turn over --sockets sockets
  --bucket SIZE          ddp: bucket size (default 25M; scaled down with --first-bucket
                         where --bytes is under 4 buckets, so that there are 4 or more)
  --first-bucket SIZE    ddp: the first bucket's size (default 1M)
  --sockets N            sockets per connection, 1 to 64 (nccl: default 4; ddp: default 1)
  --mark JOB             mark MLTCP job JOB (1-4294967295, a "marked" job) through
                         libmltcp before each iteration's first byte, with step number
                         iteration + 1; a marker that cannot open or a mark that fails
                         is a runtime error (exit 1)
  --check                check the command line and exit (0, or 2 with its error)

Output: one JSON object per iteration ("type":"iteration") and one at exit
("type":"summary"). Exit status: 0 done (also after SIGINT/SIGTERM), 1 runtime
error, 2 bad command line.
)";
}

} // namespace mltcp::trainsim
