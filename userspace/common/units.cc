// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "units.h"

#include <cmath>
#include <limits>

namespace mltcp
{
namespace
{

struct Number {
	double value;
	std::string_view unit;
};

// Leading "digits[.digits]", the rest returned as the unit.
std::optional<Number> split_number(std::string_view text)
{
	size_t i = 0, int_digits = 0, frac_digits = 0;
	double value = 0, scale = 1;

	while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
		value = value * 10 + (text[i] - '0');
		i++;
		int_digits++;
	}
	if (!int_digits || int_digits > 15)
		return std::nullopt;
	if (i < text.size() && text[i] == '.') {
		i++;
		while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
			scale /= 10;
			value += (text[i] - '0') * scale;
			i++;
			frac_digits++;
		}
		if (!frac_digits || frac_digits > 6)
			return std::nullopt;
	}
	return Number{ value, text.substr(i) };
}

std::optional<uint64_t> scaled(double value, double multiplier)
{
	double result = std::round(value * multiplier);

	if (result >= static_cast<double>(std::numeric_limits<uint64_t>::max()))
		return std::nullopt;
	return static_cast<uint64_t>(result);
}

} // namespace

std::optional<uint64_t> parse_size(std::string_view text)
{
	auto number = split_number(text);
	if (!number)
		return std::nullopt;
	std::string_view unit = number->unit;
	double multiplier = 1;

	if (!unit.empty() && unit != "B") {
		switch (unit[0]) {
		case 'K': multiplier = 1024.0; break;
		case 'M': multiplier = 1024.0 * 1024; break;
		case 'G': multiplier = 1024.0 * 1024 * 1024; break;
		case 'T': multiplier = 1024.0 * 1024 * 1024 * 1024; break;
		default: return std::nullopt;
		}
		unit.remove_prefix(1);
		if (!unit.empty() && unit != "B" && unit != "iB")
			return std::nullopt;
	}
	return scaled(number->value, multiplier);
}

std::optional<uint64_t> parse_duration_us(std::string_view text)
{
	auto number = split_number(text);
	if (!number)
		return std::nullopt;
	if (number->unit == "us")
		return scaled(number->value, 1);
	if (number->unit == "ms")
		return scaled(number->value, 1e3);
	if (number->unit == "s")
		return scaled(number->value, 1e6);
	return std::nullopt;
}

std::optional<double> parse_decimal(std::string_view text)
{
	auto number = split_number(text);
	if (!number || !number->unit.empty())
		return std::nullopt;
	return number->value;
}

std::string format_size(uint64_t bytes)
{
	static const char suffixes[] = { 'T', 'G', 'M', 'K' };
	for (int i = 0; i < 4; i++) {
		uint64_t unit = uint64_t{ 1 } << (10 * (4 - i));
		if (bytes && bytes % unit == 0)
			return std::to_string(bytes / unit) + suffixes[i];
	}
	return std::to_string(bytes);
}

std::string format_duration_us(uint64_t us)
{
	if (us && us % 1000000 == 0)
		return std::to_string(us / 1000000) + "s";
	if (us && us % 1000 == 0)
		return std::to_string(us / 1000) + "ms";
	return std::to_string(us) + "us";
}

} // namespace mltcp
