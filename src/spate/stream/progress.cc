// Copyright spate authors.
#include "spate/stream/progress.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace spate::stream {

namespace {

void SetDouble(JsonValue* obj, const std::string& key, double v) {
  if (std::isfinite(v)) obj->Set(key, JsonValue::Double(v));
}

template <typename M, typename F>
void SetMap(JsonValue* obj, const std::string& key, const M& map, F to_json) {
  if (map.empty()) return;
  JsonValue m = JsonValue::Object();
  for (const auto& [k, v] : map) m.Set(k, to_json(v));  // std::map: sorted keys
  obj->Set(key, std::move(m));
}

JsonValue OptOffset(const std::optional<JsonValue>& o) {
  return o ? *o : JsonValue::Null();
}

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

JsonValue StateOperatorProgress::ToJson() const {
  JsonValue v = JsonValue::Object();
  v.Set("operatorName", JsonValue::String(operator_name));
  v.Set("numRowsTotal", JsonValue::Int(num_rows_total));
  v.Set("numRowsUpdated", JsonValue::Int(num_rows_updated));
  v.Set("allUpdatesTimeMs", JsonValue::Int(all_updates_time_ms));
  v.Set("numRowsRemoved", JsonValue::Int(num_rows_removed));
  v.Set("allRemovalsTimeMs", JsonValue::Int(all_removals_time_ms));
  v.Set("commitTimeMs", JsonValue::Int(commit_time_ms));
  v.Set("memoryUsedBytes", JsonValue::Int(memory_used_bytes));
  v.Set("numRowsDroppedByWatermark", JsonValue::Int(num_rows_dropped_by_watermark));
  v.Set("numShufflePartitions", JsonValue::Int(num_shuffle_partitions));
  v.Set("numStateStoreInstances", JsonValue::Int(num_state_store_instances));
  SetMap(&v, "customMetrics", custom_metrics,
         [](int64_t x) { return JsonValue::Int(x); });
  return v;
}

JsonValue SourceProgress::ToJson() const {
  JsonValue v = JsonValue::Object();
  v.Set("description", JsonValue::String(description));
  v.Set("startOffset", OptOffset(start_offset));
  v.Set("endOffset", OptOffset(end_offset));
  v.Set("latestOffset", OptOffset(latest_offset));
  v.Set("numInputRows", JsonValue::Int(num_input_rows));
  SetDouble(&v, "inputRowsPerSecond", input_rows_per_second);
  SetDouble(&v, "processedRowsPerSecond", processed_rows_per_second);
  if (!metrics.empty()) {
    // Spark's SourceProgress.jsonValue rounds this one metric (the object keeps it
    // whole).
    JsonValue m = JsonValue::Object();
    for (const auto& [k, x] : metrics) {
      m.Set(k, JsonValue::String(k == "avgOffsetsBehindLatest" ? RoundOneDecimalHalfUp(x)
                                                               : x));
    }
    v.Set("metrics", std::move(m));
  }
  return v;
}

JsonValue SinkProgress::ToJson() const {
  JsonValue v = JsonValue::Object();
  v.Set("description", JsonValue::String(description));
  v.Set("numOutputRows", JsonValue::Int(num_output_rows));
  SetMap(&v, "metrics", metrics,
         [](const std::string& s) { return JsonValue::String(s); });
  return v;
}

JsonValue StreamingQueryProgress::ToJson() const {
  JsonValue v = JsonValue::Object();
  v.Set("id", JsonValue::String(id));
  v.Set("runId", JsonValue::String(run_id));
  v.Set("name", name ? JsonValue::String(*name) : JsonValue::Null());
  v.Set("timestamp", JsonValue::String(timestamp));
  v.Set("batchId", JsonValue::Int(batch_id));
  v.Set("batchDuration", JsonValue::Int(batch_duration));
  v.Set("numInputRows", JsonValue::Int(num_input_rows));
  SetDouble(&v, "inputRowsPerSecond", input_rows_per_second);
  SetDouble(&v, "processedRowsPerSecond", processed_rows_per_second);
  SetMap(&v, "durationMs", duration_ms, [](int64_t x) { return JsonValue::Int(x); });
  SetMap(&v, "eventTime", event_time,
         [](const std::string& s) { return JsonValue::String(s); });
  JsonValue ops = JsonValue::Array();
  for (const auto& o : state_operators) ops.Append(o.ToJson());
  v.Set("stateOperators", std::move(ops));
  JsonValue srcs = JsonValue::Array();
  for (const auto& s : sources) srcs.Append(s.ToJson());
  v.Set("sources", std::move(srcs));
  v.Set("sink", sink.ToJson());
  return v;
}

JsonValue StreamingQueryStatus::ToJson() const {
  JsonValue v = JsonValue::Object();
  v.Set("message", JsonValue::String(message));
  v.Set("isDataAvailable", JsonValue::Bool(is_data_available));
  v.Set("isTriggerActive", JsonValue::Bool(is_trigger_active));
  return v;
}

}  // namespace spate::stream
