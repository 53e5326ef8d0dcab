// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// DCQCN's reaction point (see dcqcn.h for the algorithm and its parameters).
#include "dcqcn.h"

#include <algorithm>
#include <cmath>

#include "mltcp_core.h" // MLTCP_SHIFT

namespace mltcp::sim
{

const char *DcqcnParams::Invalid(uint64_t line_bps) const
{
	if (!(g > 0 && g <= 1))
		return "g must be in (0, 1]";
	if (!alpha_period_us || !timer_us || !byte_counter || !cnp_interval_us)
		return "K, T, B and the CNP interval must be positive";
	if (!(initial_alpha >= 0 && initial_alpha <= 1))
		return "the initial alpha must be in [0, 1]";
	if (!line_bps || !min_rate_bps || min_rate_bps > line_bps)
		return "the minimum rate must be positive and at most the line rate";
	return nullptr;
}

Dcqcn::Dcqcn(const DcqcnParams &params, uint64_t line_bps)
    : m_params(params), m_line(line_bps), m_rc(line_bps), m_rt(line_bps),
      m_alpha(params.initial_alpha)
{
}

uint64_t Dcqcn::Scaled(uint64_t step_bps, uint32_t f)
{
	return (step_bps * f) >> MLTCP_SHIFT;
}

void Dcqcn::Advance(uint64_t now_us, uint32_t f)
{
	while (m_active && now_us >= m_timerDue) {
		m_timerDue += m_params.timer_us;
		Increase(true, f);
	}
	// Released on the way: alpha is the initial one again.
	if (!m_active || now_us < m_alphaDue)
		return;
	const uint64_t periods = (now_us - m_alphaDue) / m_params.alpha_period_us + 1;

	m_alpha *= std::pow(1 - m_params.g, static_cast<double>(periods));
	m_alphaDue += periods * m_params.alpha_period_us;
}

void Dcqcn::Sent(uint64_t bytes, uint32_t f)
{
	if (!m_active)
		return;
	m_bytes += bytes;
	while (m_active && m_bytes >= m_params.byte_counter) {
		m_bytes -= m_params.byte_counter;
		Increase(false, f);
	}
}

void Dcqcn::Cnp(uint64_t now_us, uint32_t f)
{
	Advance(now_us, f);
	m_rt = m_rc;
	m_rc = std::max(m_params.min_rate_bps,
			static_cast<uint64_t>(static_cast<double>(m_rc) * (1 - m_alpha / 2)));
	m_alpha = (1 - m_params.g) * m_alpha + m_params.g;
	m_active = true;
	m_timerEvents = m_byteEvents = 0;
	m_bytes = 0;
	m_timerDue = now_us + m_params.timer_us;
	m_alphaDue = now_us + m_params.alpha_period_us;
	m_stage = Stage::kNone;
}

// One rate increase event; the counts include it.
void Dcqcn::Increase(bool timer, uint32_t f)
{
	const uint64_t steps = m_params.fast_recovery_steps;

	if (timer)
		m_timerEvents++;
	else
		m_byteEvents++;
	if (m_timerEvents > steps && m_byteEvents > steps) {
		const uint64_t i = std::min(m_timerEvents, m_byteEvents) - steps;

		m_stage = Stage::kHyper;
		m_rt += i * Scaled(m_params.rhai_bps, f);
	} else if (m_timerEvents > steps || m_byteEvents > steps) {
		m_stage = Stage::kAdditive;
		m_rt += Scaled(m_params.rai_bps, f);
	} else {
		m_stage = Stage::kFastRecovery;
	}
	m_rt = std::min(m_rt, m_line);
	// Rounded up, so that RC reaches RT (the line rate) rather than
	// stopping a bit below it.
	m_rc = (m_rt + m_rc + 1) / 2;
	// Back at line rate: the rate limiter is released, and the next CNP
	// starts it again from the initial alpha.
	if (m_rc == m_line) {
		m_active = false;
		m_alpha = m_params.initial_alpha;
	}
}

} // namespace mltcp::sim
