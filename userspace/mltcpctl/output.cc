// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "output.h"

#include <charconv>

#include "mltcp_policy.h"

namespace mltcpctl
{

const char *base_name(uint8_t base)
{
	const char *name = mltcp_base_name(base);

	return name ? name : "unknown";
}

const char *mode_name(uint8_t mode)
{
	const char *name = mltcp_mode_name(mode);

	return name ? name : "unknown";
}

double fixed_value(uint32_t fixed)
{
	return mltcp_fixed_to_milli(fixed) / 1000.0;
}

double setting_value(uint32_t fixed)
{
	char buf[MLTCP_PARAM_TEXT];
	double value = 0;
	int len = mltcp_format_setting(fixed, buf, sizeof(buf));

	// from_chars: the "C" locale's decimal point, whatever the process's.
	if (len < 0 || std::from_chars(buf, buf + len, value).ec != std::errc())
		return fixed_value(fixed);
	return value;
}

Printer::Printer(std::ostream &out, bool json, bool pretty)
    : out_(out), json_(json), pretty_(pretty), list_(nlohmann::json::array())
{
}

void Printer::begin_list()
{
	list_ = nlohmann::json::array();
	in_list_ = true;
}

void Printer::end_list()
{
	if (json_)
		out_ << list_.dump(pretty_ ? 4 : -1) << "\n";
	out_.flush();
	in_list_ = false;
}

void Printer::begin_object()
{
	object_ = nlohmann::json::object();
	line_.clear();
}

void Printer::end_object()
{
	if (json_ && in_list_) {
		list_.push_back(std::move(object_));
	} else if (json_) {
		out_ << object_.dump(pretty_ ? 4 : -1) << "\n";
	} else if (in_list_ || !line_.empty()) {
		out_ << line_ << "\n";
		line_.clear();
	}
	if (!in_list_)
		out_.flush();
}

void Printer::newline()
{
	if (json_ || line_.empty())
		return;
	out_ << line_ << "\n";
	line_.clear();
}

void Printer::field(std::string_view key, nlohmann::json value, std::string text)
{
	if (json_) {
		object_[std::string(key)] = std::move(value);
		return;
	}
	if (text.empty())
		return;
	if (!line_.empty())
		line_ += ' ';
	line_ += text;
}

} // namespace mltcpctl
