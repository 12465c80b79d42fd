// Copyright spate authors.
#include "spate/stream/trigger.h"

#include <cctype>
#include <sstream>

#include "spate/types/data_type.h"

namespace spate::stream {

// Spark's IntervalUtils.stringToInterval errors (INVALID_INTERVAL_FORMAT.*), and
// ProcessingTimeTrigger's own checks. spate also accepts a unit glued to the number
// ("10s", as JavaUtils.timeStringAsMs does for real-time durations).
Result<int64_t> Trigger::ParseIntervalMs(const std::string& text) {
  auto format_error = [&](const char* sub, std::vector<ErrorParam> params) {
    params.insert(params.begin(), {"input", text});
    return Status::Error(std::string("INVALID_INTERVAL_FORMAT.") + sub,
                         std::move(params));
  };
  std::istringstream in(ToLower(text));
  std::string tok;
  std::vector<std::string> toks;
  while (in >> tok) toks.push_back(tok);
  size_t i = 0;
  if (i < toks.size() && toks[i] == "interval") ++i;
  if (i >= toks.size()) return format_error("INPUT_IS_EMPTY", {});
  int64_t total = 0;
  while (i < toks.size()) {
    const std::string& num = toks[i];
    char* end = nullptr;
    double v = std::strtod(num.c_str(), &end);
    if (end == num.c_str()) return format_error("UNRECOGNIZED_NUMBER", {{"number", num}});
    const bool glued = *end != '\0';
    std::string unit;
    if (glued) {
      unit = std::string(end);  // "10s" style
    } else {
      if (i + 1 >= toks.size()) return format_error("MISSING_UNIT", {{"word", num}});
      unit = toks[++i];
    }
    const std::string given = unit;
    ++i;
    if (!unit.empty() && unit.back() == 's' && unit != "ms" && unit != "s")
      unit.pop_back();
    double mult;
    if (unit == "ms" || unit == "millisecond")
      mult = 1;
    else if (unit == "microsecond" || unit == "us")
      mult = 0.001;
    else if (unit == "s" || unit == "sec" || unit == "second")
      mult = 1000;
    else if (unit == "m" || unit == "min" || unit == "minute")
      mult = 60000;
    else if (unit == "h" || unit == "hour")
      mult = 3600000;
    else if (unit == "d" || unit == "day")
      mult = 86400000;
    else if (unit == "week")
      mult = 7 * 86400000.0;
    else if (unit == "month" || unit == "year")
      return Status::Error("_LEGACY_ERROR_TEMP_3262", {{"interval", text}});
    else if (glued)
      return format_error("INVALID_VALUE", {{"value", num}});
    else
      return format_error("INVALID_UNIT", {{"unit", given}});
    total += static_cast<int64_t>(v * mult);
  }
  if (total < 0) {
    return Status::Invalid(
        "requirement failed: the interval of trigger should not be negative");
  }
  return total;
}

std::string Trigger::ToString() const {
  switch (kind) {
    case Kind::kProcessingTime:
      return "ProcessingTimeTrigger(" + std::to_string(interval_ms) + ")";
    case Kind::kOnce:
      return "OneTimeTrigger";
    case Kind::kAvailableNow:
      return "AvailableNowTrigger";
    case Kind::kContinuous:
      return "ContinuousTrigger(" + std::to_string(interval_ms) + ")";
    case Kind::kRealTime:
      return "RealTimeTrigger(" + std::to_string(interval_ms) + ")";
  }
  return "";
}

}  // namespace spate::stream
