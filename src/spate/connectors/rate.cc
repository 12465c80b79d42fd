// Copyright spate authors.
#include "spate/connectors/rate.h"

#include <cmath>

#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/connectors/memory.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/trigger.h"

namespace spate::connectors {

namespace {

Result<int64_t> LongOption(const std::map<std::string, std::string>& o,
                           const std::string& key, int64_t dflt) {
  if (!HasOption(o, key)) return dflt;
  std::string v = GetOption(o, key);
  if (auto x = ParseInt64(v)) return *x;
  return Status::Invalid("Invalid value '" + v + "' for option '" + key + "'");
}

/// Rows value in [from, to) with timestamps start_ms + round((v - from) * ms_per_value).
BatchPtr MakeRows(int64_t from, int64_t to, int64_t start_ms, double ms_per_value) {
  FixedWidthBuilder<int64_t> ts(DataType::Timestamp(), std::max<int64_t>(1, to - from));
  FixedWidthBuilder<int64_t> val(DataType::Long(), std::max<int64_t>(1, to - from));
  for (int64_t v = from; v < to; ++v) {
    int64_t ms =
        start_ms +
        static_cast<int64_t>(std::llround(static_cast<double>(v - from) * ms_per_value));
    ts.Append(ms * 1000);
    val.Append(v);
  }
  return Batch::Make(RateSchema(), {ts.Finish(), val.Finish()}, to - from);
}

std::vector<BatchPtr> Split(int64_t from, int64_t to, int64_t start_ms,
                            double ms_per_value, int parts) {
  std::vector<BatchPtr> out;
  int64_t n = to - from;
  if (n <= 0) return out;
  parts = std::max(1, parts);
  for (int p = 0; p < parts; ++p) {
    int64_t a = from + n * p / parts, b = from + n * (p + 1) / parts;
    if (b > a) {
      out.push_back(MakeRows(
          a, b, start_ms + static_cast<int64_t>(std::llround((a - from) * ms_per_value)),
          ms_per_value));
    }
  }
  return out;
}

class RateSource final : public stream::Source {
 public:
  RateSource(const stream::SourceContext& ctx, int64_t rows_per_second, int64_t ramp_up_s,
             int parts, std::string parts_text)
      : clock_(ctx.clock),
        rows_per_second_(rows_per_second),
        ramp_up_s_(ramp_up_s),
        parts_(parts),
        parts_text_(std::move(parts_text)) {}

  Status Init(const stream::SourceContext& ctx) {
    std::string path = io::JoinPath(ctx.metadata_path, "0");
    auto raw = ctx.fs->ReadAll(path);
    if (raw.ok()) {
      const std::string& t = *raw;
      size_t nl = t.find('\n');
      std::optional<int64_t> ms;
      if (t.rfind("v1", 0) == 0 && nl != std::string::npos) {
        ms = ParseInt64(std::string_view(t).substr(nl + 1));
      }
      if (!ms) {
        return Status::Error("MALFORMED_LOG_FILE", {{"text", t.substr(0, 40)}})
            .WithContext("Failed to read log file " + path);
      }
      creation_ms_ = *ms;
      return Status::OK();
    }
    if (raw.status().code() != StatusCode::kNotFound) return raw.status();
    creation_ms_ = clock_->NowMs();
    SPATE_RETURN_IF_ERROR(ctx.fs->MakeDirs(ctx.metadata_path));
    Status st = ctx.fs->PutIfAbsent(path, "v1\n" + std::to_string(creation_ms_));
    if (!st.ok() && st.code() != StatusCode::kAlreadyExists) return st;
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return schema_; }
  std::string Describe() const override {
    return "RateStreamV2[rowsPerSecond=" + std::to_string(rows_per_second_) +
           ", rampUpTimeSeconds=" + std::to_string(ramp_up_s_) +
           ", numPartitions=" + parts_text_;
  }
  Result<std::optional<Json>> LatestOffset(const std::optional<Json>&) override {
    int64_t now = clock_->NowMs();
    int64_t secs = now > creation_ms_ ? (now - creation_ms_) / 1000 : 0;
    if (available_now_ >= 0) secs = std::min(secs, available_now_);
    if (secs == 0) return std::optional<Json>();  // still at the initial offset
    return std::optional<Json>(Json::Int(secs));
  }
  Status PrepareForAvailableNow() override {
    int64_t now = clock_->NowMs();
    available_now_ = now > creation_ms_ ? (now - creation_ms_) / 1000 : 0;
    return Status::OK();
  }
  Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                 const Json& end) override {
    int64_t s = start ? start->int_value() : 0, e = end.int_value();
    int64_t from = RateValueAtSecond(s, rows_per_second_, ramp_up_s_);
    int64_t to = RateValueAtSecond(e, rows_per_second_, ramp_up_s_);
    double ms_per_value =
        to > from ? (e - s) * 1000.0 / static_cast<double>(to - from) : 0;
    return DataSourcePtr(std::make_shared<stream::BatchesDataSource>(
        schema_, Split(from, to, creation_ms_ + s * 1000, ms_per_value, parts_),
        Describe()));
  }

 private:
  ClockPtr clock_;
  int64_t rows_per_second_, ramp_up_s_;
  int parts_;
  std::string parts_text_;
  int64_t creation_ms_ = 0;
  int64_t available_now_ = -1;
  SchemaPtr schema_ = RateSchema();
};

class RatePerMicroBatchSource final : public stream::Source {
 public:
  RatePerMicroBatchSource(int64_t rows, int parts, int64_t start_ts, int64_t advance)
      : rows_(rows), parts_(parts), start_ts_(start_ts), advance_(advance) {}
  const SchemaPtr& schema() const override { return schema_; }
  std::string Describe() const override {
    return "RatePerMicroBatchStream[rowsPerBatch=" + std::to_string(rows_) +
           ", numPartitions=" + std::to_string(parts_) +
           ", startTimestamp=" + std::to_string(start_ts_) +
           ", advanceMillisPerBatch=" + std::to_string(advance_) + "]";
  }
  static void Extract(const std::optional<Json>& o, int64_t dflt_ts, int64_t* offset,
                      int64_t* ts) {
    *offset = 0;
    *ts = dflt_ts;
    if (!o || !o->is_object()) return;
    if (const auto* v = o->Find("offset")) *offset = v->int_value();
    if (const auto* v = o->Find("timestamp")) *ts = v->int_value();
  }
  Result<std::optional<Json>> LatestOffset(const std::optional<Json>& start) override {
    int64_t off, ts;
    Extract(start, start_ts_, &off, &ts);
    // AvailableNow (Spark wraps this source in AvailableNowMicroBatchStreamWrapper): the
    // target is fixed by the first call after PrepareForAvailableNow, one batch beyond
    // this run's start.
    if (available_now_pending_) {
      available_now_ = off + rows_;
      available_now_pending_ = false;
    }
    if (available_now_ && off >= *available_now_) {
      return start ? std::optional<Json>(*start) : std::optional<Json>();
    }
    Json v = Json::Object();
    v.Set("offset", Json::Int(off + rows_));
    v.Set("timestamp", Json::Int(ts + advance_));
    return std::optional<Json>(v);
  }
  Status PrepareForAvailableNow() override {
    available_now_pending_ = true;
    return Status::OK();
  }
  Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                 const Json& end) override {
    int64_t s_off, s_ts, e_off, e_ts;
    Extract(start, start_ts_, &s_off, &s_ts);
    Extract(end, start_ts_, &e_off, &e_ts);
    double ms_per_value = e_off > s_off ? static_cast<double>(e_ts - s_ts) /
                                              static_cast<double>(e_off - s_off)
                                        : 0;
    return DataSourcePtr(std::make_shared<stream::BatchesDataSource>(
        schema_, Split(s_off, e_off, s_ts, ms_per_value, parts_), Describe()));
  }

 private:
  int64_t rows_;
  int parts_;
  int64_t start_ts_, advance_;
  std::optional<int64_t> available_now_;
  bool available_now_pending_ = false;
  SchemaPtr schema_ = RateSchema();
};

}  // namespace

SchemaPtr RateSchema() {
  static const SchemaPtr schema = std::make_shared<const Schema>(
      std::vector<Field>{{"timestamp", DataType::Timestamp(), true, ""},
                         {"value", DataType::Long(), true, ""}});
  return schema;
}

int64_t RateValueAtSecond(int64_t seconds, int64_t rows_per_second,
                          int64_t ramp_up_seconds) {
  int64_t delta = rows_per_second / (ramp_up_seconds + 1);
  if (seconds <= ramp_up_seconds) {
    if (seconds % 2 == 1) return (seconds + 1) / 2 * delta * seconds;
    return seconds / 2 * delta * (seconds + 1);
  }
  int64_t ramp = RateValueAtSecond(ramp_up_seconds, rows_per_second, ramp_up_seconds);
  return ramp + (seconds - ramp_up_seconds) * rows_per_second;
}

Result<stream::SourceFactory> MakeRateSourceFactory(
    const std::map<std::string, std::string>& options) {
  SPATE_ASSIGN_OR_RETURN(int64_t rps, LongOption(options, "rowsPerSecond", 1));
  if (rps <= 0) {
    return Status::Invalid("Invalid value '" + std::to_string(rps) +
                           "'. The option 'rowsPerSecond' must be positive");
  }
  int64_t ramp = 0;
  if (HasOption(options, "rampUpTime")) {
    std::string t = GetOption(options, "rampUpTime");
    bool digits = !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
    auto ms = stream::Trigger::ParseIntervalMs(digits ? t + " seconds" : t);
    if (!ms.ok()) return ms.status();
    ramp = *ms / 1000;
  }
  SPATE_ASSIGN_OR_RETURN(int64_t parts, LongOption(options, "numPartitions", 0));
  std::string parts_text =
      HasOption(options, "numPartitions") ? std::to_string(parts) : "default";
  if (HasOption(options, "numPartitions") && parts <= 0) {
    return Status::Invalid("Invalid value '" + std::to_string(parts) +
                           "'. The option 'numPartitions' must be positive");
  }
  return stream::SourceFactory(
      [rps, ramp, parts,
       parts_text](const stream::SourceContext& ctx) -> Result<stream::SourcePtr> {
        auto src = std::make_shared<RateSource>(
            ctx, rps, ramp, parts > 0 ? static_cast<int>(parts) : 2, parts_text);
        SPATE_RETURN_IF_ERROR(src->Init(ctx));
        return stream::SourcePtr(src);
      });
}

Result<stream::SourceFactory> MakeRatePerMicroBatchFactory(
    const std::map<std::string, std::string>& options) {
  if (!HasOption(options, "rowsPerBatch")) {
    return Status::Invalid(
        "Invalid value '0'. The option 'rowsPerBatch' must be positive");
  }
  SPATE_ASSIGN_OR_RETURN(int64_t rows, LongOption(options, "rowsPerBatch", 0));
  if (rows <= 0) {
    return Status::Invalid("Invalid value '" + std::to_string(rows) +
                           "'. The option 'rowsPerBatch' must be positive");
  }
  SPATE_ASSIGN_OR_RETURN(int64_t parts, LongOption(options, "numPartitions", 2));
  SPATE_ASSIGN_OR_RETURN(int64_t start_ts, LongOption(options, "startTimestamp", 0));
  SPATE_ASSIGN_OR_RETURN(int64_t advance,
                         LongOption(options, "advanceMillisPerBatch", 1000));
  if (parts <= 0)
    return Status::Invalid("Invalid value '" + std::to_string(parts) +
                           "'. The option 'numPartitions' must be positive");
  if (start_ts < 0)
    return Status::Invalid("Invalid value '" + std::to_string(start_ts) +
                           "'. The option 'startTimestamp' must be non-negative");
  if (advance < 0)
    return Status::Invalid("Invalid value '" + std::to_string(advance) +
                           "'. The option 'advanceMillisPerBatch' must be non-negative");
  return stream::SourceFactory(
      [=](const stream::SourceContext&) -> Result<stream::SourcePtr> {
        return stream::SourcePtr(std::make_shared<RatePerMicroBatchSource>(
            rows, static_cast<int>(parts), start_ts, advance));
      });
}

}  // namespace spate::connectors
