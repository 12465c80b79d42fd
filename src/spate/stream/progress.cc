// Copyright spate authors.
#include "spate/stream/progress.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "spate/types/format.h"

namespace spate::stream {

namespace {

void SetDouble(Json* obj, const std::string& key, double v) {
  if (std::isfinite(v)) obj->Set(key, Json::NumberText(FormatDouble(v)));
}

template <typename M, typename F>
void SetMap(Json* obj, const std::string& key, const M& map, F to_json) {
  if (map.empty()) return;
  Json m = Json::Object();
  for (const auto& [k, v] : map) m.Set(k, to_json(v));  // std::map: sorted keys
  obj->Set(key, std::move(m));
}

Json OptOffset(const std::optional<Json>& o) { return o ? *o : Json::Null(); }

/// A decimal number's text (Java's Double.toString: sign, digits, point, exponent)
/// rounded to one decimal HALF_UP and printed as BigDecimal.toString does ("1.25" ->
/// "1.3", "2.0E7" -> "20000000.0"); text that is not such a number is returned as it is.
std::string RoundOneDecimalHalfUp(const std::string& s) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  std::string digits;
  int point = -1, exp = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c == '.' && point < 0) {
      point = static_cast<int>(digits.size());
    } else if ((c == 'e' || c == 'E') && i + 1 < s.size()) {
      char* end = nullptr;
      exp = static_cast<int>(std::strtol(s.c_str() + i + 1, &end, 10));
      if (*end != '\0') return s;
      break;
    } else {
      return s;
    }
  }
  if (digits.empty()) return s;
  if (point < 0) point = static_cast<int>(digits.size());
  point += exp;  // digits before the decimal point
  while (point < 1) digits.insert(0, "0"), ++point;
  while (static_cast<int>(digits.size()) < point + 2) digits += '0';
  std::string kept = digits.substr(0, point + 1);
  if (digits[point + 1] >= '5') {
    int j = static_cast<int>(kept.size()) - 1;
    while (j >= 0 && kept[j] == '9') kept[j--] = '0';
    if (j < 0)
      kept.insert(0, "1"), ++point;
    else
      ++kept[j];
  }
  size_t lead = 0;
  while (static_cast<int>(lead) + 1 < point && kept[lead] == '0') ++lead;
  std::string out = kept.substr(lead, point - lead) + "." + kept.substr(point);
  bool zero = kept.find_first_not_of('0') == std::string::npos;
  return (neg && !zero ? "-" : "") + out;
}

}  // namespace

std::string FormatTimestampMs(int64_t ms) {
  time_t secs = static_cast<time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  int millis = static_cast<int>(ms - static_cast<int64_t>(secs) * 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                tm.tm_sec, millis);
  return buf;
}

std::optional<int64_t> ParseTimestampMs(std::string_view text) {
  int y, mo, d, h, mi, sec;
  int n = 0;
  std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec,
                  &n) != 6) {
    return std::nullopt;
  }
  int millis = 0;
  size_t pos = static_cast<size_t>(n);
  if (pos < s.size() && s[pos] == '.') {
    int digits = 0;
    for (++pos; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos) {
      if (digits++ < 3) millis = millis * 10 + (s[pos] - '0');
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) millis *= 10;
  }
  if (pos + 1 != s.size() || s[pos] != 'Z') return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + millis;
}

Json StateOperatorProgress::ToJson() const {
  Json v = Json::Object();
  v.Set("operatorName", Json::String(operator_name));
  v.Set("numRowsTotal", Json::Int(num_rows_total));
  v.Set("numRowsUpdated", Json::Int(num_rows_updated));
  v.Set("allUpdatesTimeMs", Json::Int(all_updates_time_ms));
  v.Set("numRowsRemoved", Json::Int(num_rows_removed));
  v.Set("allRemovalsTimeMs", Json::Int(all_removals_time_ms));
  v.Set("commitTimeMs", Json::Int(commit_time_ms));
  v.Set("memoryUsedBytes", Json::Int(memory_used_bytes));
  v.Set("numRowsDroppedByWatermark", Json::Int(num_rows_dropped_by_watermark));
  v.Set("numShufflePartitions", Json::Int(num_shuffle_partitions));
  v.Set("numStateStoreInstances", Json::Int(num_state_store_instances));
  SetMap(&v, "customMetrics", custom_metrics, [](int64_t x) { return Json::Int(x); });
  return v;
}

Json SourceProgress::ToJson() const {
  Json v = Json::Object();
  v.Set("description", Json::String(description));
  v.Set("startOffset", OptOffset(start_offset));
  v.Set("endOffset", OptOffset(end_offset));
  v.Set("latestOffset", OptOffset(latest_offset));
  v.Set("numInputRows", Json::Int(num_input_rows));
  SetDouble(&v, "inputRowsPerSecond", input_rows_per_second);
  SetDouble(&v, "processedRowsPerSecond", processed_rows_per_second);
  if (!metrics.empty()) {
    // Spark's SourceProgress.jsonValue rounds this one metric (the object keeps it
    // whole).
    Json m = Json::Object();
    for (const auto& [k, x] : metrics) {
      m.Set(k,
            Json::String(k == "avgOffsetsBehindLatest" ? RoundOneDecimalHalfUp(x) : x));
    }
    v.Set("metrics", std::move(m));
  }
  return v;
}

Json SinkProgress::ToJson() const {
  Json v = Json::Object();
  v.Set("description", Json::String(description));
  v.Set("numOutputRows", Json::Int(num_output_rows));
  SetMap(&v, "metrics", metrics, [](const std::string& s) { return Json::String(s); });
  return v;
}

Json StreamingQueryProgress::ToJson() const {
  Json v = Json::Object();
  v.Set("id", Json::String(id));
  v.Set("runId", Json::String(run_id));
  v.Set("name", name ? Json::String(*name) : Json::Null());
  v.Set("timestamp", Json::String(timestamp));
  v.Set("batchId", Json::Int(batch_id));
  v.Set("batchDuration", Json::Int(batch_duration));
  v.Set("numInputRows", Json::Int(num_input_rows));
  SetDouble(&v, "inputRowsPerSecond", input_rows_per_second);
  SetDouble(&v, "processedRowsPerSecond", processed_rows_per_second);
  SetMap(&v, "durationMs", duration_ms, [](int64_t x) { return Json::Int(x); });
  SetMap(&v, "eventTime", event_time,
         [](const std::string& s) { return Json::String(s); });
  Json ops = Json::Array();
  for (const auto& o : state_operators) ops.Append(o.ToJson());
  v.Set("stateOperators", std::move(ops));
  Json srcs = Json::Array();
  for (const auto& s : sources) srcs.Append(s.ToJson());
  v.Set("sources", std::move(srcs));
  v.Set("sink", sink.ToJson());
  return v;
}

Json StreamingQueryStatus::ToJson() const {
  Json v = Json::Object();
  v.Set("message", Json::String(message));
  v.Set("isDataAvailable", Json::Bool(is_data_available));
  v.Set("isTriggerActive", Json::Bool(is_trigger_active));
  return v;
}

}  // namespace spate::stream
