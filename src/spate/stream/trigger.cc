// Copyright spate authors.
#include "spate/stream/trigger.h"

#include <cctype>
#include <sstream>

#include "spate/types/data_type.h"

namespace spate::stream {

Result<int64_t> Trigger::ParseIntervalMs(const std::string& text) {
  std::istringstream in(ToLower(text));
  std::string tok;
  std::vector<std::string> toks;
  while (in >> tok) toks.push_back(tok);
  size_t i = 0;
  if (i < toks.size() && toks[i] == "interval") ++i;
  if (i >= toks.size()) {
    return Status::Error("_LEGACY_ERROR_TEMP_3102",
                         {{"msg", "Invalid interval: " + text}});
  }
  int64_t total = 0;
  while (i < toks.size()) {
    const std::string& num = toks[i];
    char* end = nullptr;
    double v = std::strtod(num.c_str(), &end);
    std::string unit;
    if (end && *end != '\0') {
      unit = std::string(end);  // "10s" style
    } else {
      if (i + 1 >= toks.size()) {
        return Status::Error("_LEGACY_ERROR_TEMP_3102",
                             {{"msg", "Invalid interval: " + text}});
      }
      unit = toks[++i];
    }
    ++i;
    if (end == num.c_str()) {
      return Status::Error("_LEGACY_ERROR_TEMP_3102",
                           {{"msg", "Invalid interval: " + text}});
    }
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
    else if (unit == "month" || unit == "year") {
      return Status::Error("_LEGACY_ERROR_TEMP_3102",
                           {{"msg", "Doesn't support month or year interval: " + text}});
    } else {
      return Status::Error("_LEGACY_ERROR_TEMP_3102",
                           {{"msg", "Invalid interval: " + text}});
    }
    total += static_cast<int64_t>(v * mult);
  }
  if (total < 0) {
    return Status::Error("_LEGACY_ERROR_TEMP_3102",
                         {{"msg", "Interval cannot be negative: " + text}});
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
