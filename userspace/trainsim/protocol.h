// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The few control lines workers exchange. They travel against the data, from
// a rank to its prev (on the accepted connection), so that the data direction
// carries nothing but the collective's bytes: a congestion control that
// learns the bytes per iteration from the flow sees only those.
//
//   HELLO ...  once, at setup: who this worker is, checked by prev
//   SOCKET K   at setup, with several sockets per connection: on each
//              socket accepted from prev, the number this worker gave it,
//              so that prev orders its sockets alike (match_sockets())
//   SYNC1/2    ring barrier: nobody starts before every rank is connected
//   STOP I     --duration: rank 0 decided that iteration I is the job's last
#ifndef MLTCP_TRAINSIM_PROTOCOL_H
#define MLTCP_TRAINSIM_PROTOCOL_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config.h"

namespace mltcp::trainsim
{

inline constexpr size_t max_control_line = 512;

// "HELLO mltcp-trainsim/1 job=J rank=R world=W collective=C bytes=S stop=S
//  pattern=P sockets=N buckets=FIRST:SIZE|-\n" (one line)
std::string make_hello(const Config &config);

// Checks the HELLO of --next against this worker's configuration: it must be
// rank + 1 (mod world) of the same job with the same collective, bytes,
// stopping rule, pattern, sockets and buckets. Returns a description of the first mismatch.
std::optional<std::string> check_hello(const Config &config, std::string_view line);

std::string make_stop(uint64_t last_iteration);
std::optional<uint64_t> parse_stop(std::string_view line);

} // namespace mltcp::trainsim

#endif // MLTCP_TRAINSIM_PROTOCOL_H
