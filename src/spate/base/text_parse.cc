// Copyright spate authors.
#include "spate/base/text_parse.h"

#include <cctype>
#include <charconv>
#include <string>
#include <system_error>

namespace spate {
namespace {

// Drops a leading '+' unless another sign follows it (from_chars takes only '-').
std::string_view StripPlus(std::string_view text) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') {
    text.remove_prefix(1);
  }
  return text;
}

template <typename T>
std::optional<T> ParseWhole(std::string_view text, int base) {
  text = StripPlus(text);
  T v{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, base);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return v;
}

template <typename F>
std::optional<F> ParseFloating(std::string_view text, size_t* used) {
  const size_t plus = StripPlus(text).size() < text.size() ? 1 : 0;
  text.remove_prefix(plus);
  F v{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
  // Out of range ("1e999"): nullopt, as std::stod threw (Java would round to Infinity).
  if (ec != std::errc() || text.empty()) return std::nullopt;
  if (used) {
    *used = plus + static_cast<size_t>(ptr - text.data());
  } else if (ptr != end) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<int64_t> ParseInt64(std::string_view text, int base) {
  return ParseWhole<int64_t>(text, base);
}

std::optional<int32_t> ParseInt32(std::string_view text, int base) {
  return ParseWhole<int32_t>(text, base);
}

std::optional<double> ParseDouble(std::string_view text) {
  return ParseFloating<double>(text, nullptr);
}

std::optional<long double> ParseLongDouble(std::string_view text) {
  return ParseFloating<long double>(text, nullptr);
}

std::optional<double> ParseDoublePrefix(std::string_view text, size_t* used) {
  size_t n = 0;
  auto v = ParseFloating<double>(text, &n);
  if (v && used) *used = n;
  return v;
}

Result<int64_t> ParseLong(std::string_view text) {
  if (auto v = ParseInt64(text)) return *v;
  return Status::Invalid("For input string: \"" + std::string(text) + "\"");
}

Result<int64_t> TimeStringAsMs(std::string_view text) {
  std::string t;
  for (char c : text)
    t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  const size_t b = t.find_first_not_of(" \t\n\r");
  t = b == std::string::npos ? std::string()
                             : t.substr(b, t.find_last_not_of(" \t\n\r") - b + 1);
  size_t i = 0;
  while (i < t.size() &&
         (std::isdigit(static_cast<unsigned char>(t[i])) || (i == 0 && t[i] == '-')))
    ++i;
  const std::optional<int64_t> n = ParseInt64(std::string_view(t).substr(0, i));
  const std::string unit = t.substr(i);
  if (!n) {
    return Status::Invalid(
        "Time must be specified as seconds (s), milliseconds (ms), microseconds (us), "
        "minutes (m or min), hour (h), or day (d). E.g. 50s, 100ms, or 250us.\n"
        "Invalid time string: " +
        std::string(text));
  }
  if (unit.empty() || unit == "ms") return *n;
  if (unit == "us") return *n / 1000;
  if (unit == "s") return *n * 1000;
  if (unit == "m" || unit == "min") return *n * 60000;
  if (unit == "h") return *n * 3600000;
  if (unit == "d") return *n * 86400000;
  return Status::Invalid("Invalid suffix: \"" + unit + "\"");
}

}  // namespace spate
