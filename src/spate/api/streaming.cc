// Copyright spate authors.
#include "spate/api/streaming.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "spate/api/delta_table.h"
#include "spate/api/monitoring.h"
#include "spate/api/query_log.h"
#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/session_state.h"
#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/connectors/auto_loader.h"
#include "spate/connectors/delta_sink.h"
#include "spate/connectors/delta_source.h"
#include "spate/connectors/file_sink.h"
#include "spate/connectors/file_source.h"
#include "spate/connectors/kafka.h"
#include "spate/connectors/memory.h"
#include "spate/connectors/nexmark.h"
#include "spate/connectors/rate.h"
#include "spate/connectors/socket_source.h"
#include "spate/formats/csv_source.h"
#include "spate/formats/file_writer.h"
#include "spate/formats/json_source.h"
#include "spate/formats/parquet_source.h"
#include "spate/formats/text_writers.h"
#include "spate/sql/parser.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/streaming_plan.h"
#include "spate/stream/streaming_query.h"
#include "spate/stream/unsupported_checker.h"

namespace spate::api {

namespace {

/// The session as the streaming runtime sees it.
class SessionRunner final : public stream::BatchRunner {
 public:
  explicit SessionRunner(std::shared_ptr<SessionState> s) : s_(std::move(s)) {}
  Result<sql::BoundPlanPtr> Analyze(const sql::PlanPtr& plan) override {
    return s_->Analyze(plan);
  }
  exec::ExecOptions MakeExecOptions() override { return s_->MakeExecOptions(); }
  std::string GetConf(const std::string& key, const std::string& dflt) override {
    return s_->conf.GetOr(key, dflt);
  }
  Result<std::string> ShowString(const sql::PlanPtr& plan, int num_rows,
                                 int truncate) override {
    try {
      return DataFrame(s_, plan).showString(num_rows, truncate);
    } catch (const SparkException& e) {
      return e.status();
    }
  }

 private:
  std::shared_ptr<SessionState> s_;
};

Status FromCurrentException() {
  try {
    throw;
  } catch (const SparkException& e) {
    return e.status();
  } catch (const std::exception& e) {
    return Status::Internal(e.what());
  } catch (...) {
    return Status::Internal("unknown exception in a streaming callback");
  }
}

std::string Lower(const std::string& s) { return ToLower(s); }

DataFrame DeltaStream(const std::shared_ptr<SessionState>& state, const std::string& path,
                      const std::string& display,
                      const std::map<std::string, std::string>& options);
std::vector<std::string> SplitTableName(const std::string& name);

std::mutex g_streams_mu;
std::map<const SessionState*, std::pair<std::weak_ptr<SessionState>,
                                        std::shared_ptr<stream::StreamingQueryManager>>>&
Streams() {
  static auto* m =
      new std::map<const SessionState*,
                   std::pair<std::weak_ptr<SessionState>,
                             std::shared_ptr<stream::StreamingQueryManager>>>();
  return *m;
}

std::mutex g_memory_sinks_mu;
std::map<const stream::StreamingQuery*, std::weak_ptr<connectors::MemorySink>>&
MemorySinks() {
  static auto* m = new std::map<const stream::StreamingQuery*,
                                std::weak_ptr<connectors::MemorySink>>();
  return *m;
}

Status PublishView(const std::shared_ptr<SessionState>& s, const std::string& name,
                   const SchemaPtr& schema, const std::vector<BatchPtr>& rows) {
  auto local = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kLocalRelation);
  local->schema = schema;
  local->batches = rows;
  SPATE_ASSIGN_OR_RETURN(auto bound, s->Analyze(local));
  return s->catalog.CreateTempView(name, bound, /*replace=*/true);
}

}  // namespace

static void StopAllStreamsAtExit() {
  std::vector<std::shared_ptr<stream::StreamingQueryManager>> managers;
  {
    std::lock_guard<std::mutex> lock(g_streams_mu);
    for (auto& [k, v] : Streams()) managers.push_back(v.second);
  }
  for (auto& m : managers) m->StopAll();
}

std::shared_ptr<stream::StreamingQueryManager> StreamsOf(
    const std::shared_ptr<SessionState>& session) {
  // Queries still running when the program exits are stopped before static objects they
  // use are destroyed (an atexit handler registered after those objects exist).
  static const bool registered = [] { return std::atexit(&StopAllStreamsAtExit) == 0; }();
  (void)registered;
  std::lock_guard<std::mutex> lock(g_streams_mu);
  auto& m = Streams();
  for (auto it = m.begin(); it != m.end();) {
    if (it->second.first.expired()) {
      it = m.erase(it);
    } else {
      ++it;
    }
  }
  auto& e = m[session.get()];
  if (!e.second) {
    e = {session, std::make_shared<stream::StreamingQueryManager>()};
    // The monitoring server, when it runs, watches every session's queries.
    if (auto l = MonitoringListener()) e.second->AddListener(l);
    // Log lines per query and batch as the session's spate.log.* confs ask (query_log.h).
    e.second->AddListener(std::make_shared<QueryLogListener>(session));
  }
  return e.second;
}

std::vector<std::shared_ptr<stream::StreamingQueryManager>> AllStreamsManagers() {
  std::lock_guard<std::mutex> lock(g_streams_mu);
  std::vector<std::shared_ptr<stream::StreamingQueryManager>> out;
  for (auto& [k, v] : Streams()) {
    if (!v.first.expired()) out.push_back(v.second);
  }
  return out;
}

std::shared_ptr<connectors::MemorySink> MemorySinkOf(const StreamingQuery& query) {
  std::lock_guard<std::mutex> lock(g_memory_sinks_mu);
  auto it = MemorySinks().find(query.impl().get());
  return it == MemorySinks().end() ? nullptr : it->second.lock();
}

// ---- the foreach sink

// ForeachWriter's contract per batch: open(partition, epoch) -> process each row if it
// returned true -> close(error). In real-time mode the writer stays open across the
// pieces of a batch and is closed when the batch finishes, as Spark's long-running task
// does.
class ForeachWriterSink final : public stream::Sink {
 public:
  explicit ForeachWriterSink(std::shared_ptr<ForeachWriter> writer)
      : writer_(std::move(writer)) {}
  std::string Describe() const override { return "ForeachSink"; }
  bool SupportsRealTime() const override { return true; }

  Result<int64_t> AddBatch(const stream::MicroBatch& mb) override {
    SPATE_ASSIGN_OR_RETURN(auto batches, mb.Collect());
    SchemaPtr schema = mb.analyzed->OutputSchema();
    int64_t n = 0;
    try {
      if (open_epoch_ != mb.batch_id) {
        if (open_epoch_ >= 0) SPATE_RETURN_IF_ERROR(Close(std::nullopt));
        open_epoch_ = mb.batch_id;
        process_ = writer_->open(0, mb.batch_id);
      }
      if (process_) {
        for (const auto& b : batches) {
          for (int64_t r = 0; r < b->num_rows(); ++r) {
            std::vector<Value> vals;
            for (int c = 0; c < b->num_columns(); ++c)
              vals.push_back(b->column(c)->GetValue(r));
            writer_->process(Row(std::move(vals), schema));
            ++n;
          }
        }
      }
    } catch (...) {
      Status st = FromCurrentException();
      (void)Close(st.ToString());  // the writer's own failure is the one reported
      return st;
    }
    if (!mb.real_time_piece) SPATE_RETURN_IF_ERROR(Close(std::nullopt));
    return n;
  }
  Status FinishRealTimeBatch(int64_t batch_id) override {
    return open_epoch_ == batch_id ? Close(std::nullopt) : Status::OK();
  }
  void Stop() override {
    if (open_epoch_ >= 0) (void)Close(std::nullopt);
  }

 private:
  Status Close(const std::optional<std::string>& error) {
    open_epoch_ = -1;
    try {
      writer_->close(error);
    } catch (...) {
      return FromCurrentException();
    }
    return Status::OK();
  }
  std::shared_ptr<ForeachWriter> writer_;
  int64_t open_epoch_ = -1;  // the epoch the writer is open for
  bool process_ = false;
};

// ---- Trigger

stream::Trigger Trigger::ProcessingTime(const std::string& interval) {
  return stream::Trigger::ProcessingTime(
      ValueOrThrow(stream::Trigger::ParseIntervalMs(interval)));
}

stream::Trigger Trigger::RealTime(const std::string& duration) {
  return stream::Trigger::RealTime(
      ValueOrThrow(stream::Trigger::ParseIntervalMs(duration)));
}

stream::Trigger Trigger::Continuous(const std::string& interval) {
  return stream::Trigger::Continuous(
      ValueOrThrow(stream::Trigger::ParseIntervalMs(interval)));
}

// ---- StreamingQuery

std::string StreamingQuery::id() const { return q_->id(); }
std::string StreamingQuery::runId() const { return q_->run_id(); }
std::optional<std::string> StreamingQuery::name() const { return q_->name(); }
bool StreamingQuery::isActive() const { return q_->IsActive(); }
StreamingQueryStatus StreamingQuery::status() const { return q_->status(); }
std::optional<StreamingQueryProgress> StreamingQuery::lastProgress() const {
  return q_->LastProgress();
}
std::vector<StreamingQueryProgress> StreamingQuery::recentProgress() const {
  return q_->RecentProgress();
}
void StreamingQuery::awaitTermination() const { CheckOrThrow(q_->AwaitTermination()); }
bool StreamingQuery::awaitTermination(double timeout_seconds) const {
  return ValueOrThrow(q_->AwaitTermination(static_cast<int64_t>(timeout_seconds * 1000)));
}
void StreamingQuery::processAllAvailable() const {
  CheckOrThrow(q_->ProcessAllAvailable());
}
void StreamingQuery::stop() const { q_->Stop(); }
void StreamingQuery::explain() const { std::cout << explainString() << std::endl; }
std::string StreamingQuery::explainString() const { return q_->ExplainString(); }
std::optional<StreamingQueryException> StreamingQuery::exception() const {
  auto e = q_->exception();
  if (!e) return std::nullopt;
  return StreamingQueryException(*e);
}

// ---- StreamingQueryManager

std::vector<StreamingQuery> StreamingQueryManager::active() const {
  std::vector<StreamingQuery> out;
  for (auto& q : m_->Active()) out.emplace_back(q);
  return out;
}
std::optional<StreamingQuery> StreamingQueryManager::get(const std::string& id) const {
  auto q = m_->Get(id);
  if (!q) return std::nullopt;
  return StreamingQuery(q);
}
void StreamingQueryManager::awaitAnyTermination() const {
  CheckOrThrow(m_->AwaitAnyTermination());
}
bool StreamingQueryManager::awaitAnyTermination(double timeout_seconds) const {
  return ValueOrThrow(
      m_->AwaitAnyTermination(static_cast<int64_t>(timeout_seconds * 1000)));
}
void StreamingQueryManager::resetTerminated() const { m_->ResetTerminated(); }
void StreamingQueryManager::addListener(
    std::shared_ptr<StreamingQueryListener> listener) const {
  m_->AddListener(std::move(listener));
}
void StreamingQueryManager::removeListener(
    const std::shared_ptr<StreamingQueryListener>& listener) const {
  m_->RemoveListener(listener);
}

// ---- DataStreamReader

DataStreamReader& DataStreamReader::format(const std::string& source) {
  format_ = source;
  return *this;
}
DataStreamReader& DataStreamReader::schema(const StructType& schema) {
  schema_ = schema.ToSchema();
  return *this;
}
DataStreamReader& DataStreamReader::schema(const std::string& ddl) {
  schema_ = ValueOrThrow(sql::ParseDdlSchema(ddl));
  return *this;
}
DataStreamReader& DataStreamReader::option(const std::string& key,
                                           const std::string& value) {
  options_[key] = value;
  return *this;
}
DataStreamReader& DataStreamReader::options(
    const std::map<std::string, std::string>& opts) {
  for (const auto& [k, v] : opts) options_[k] = v;
  return *this;
}

namespace {

/// The batch reader of a file stream: the files of one batch with the stream's schema.
connectors::FileBatchReader FileStreamReader(
    const io::FileSystemPtr& fs, const std::string& fmt,
    const std::map<std::string, std::string>& opts,
    const std::shared_ptr<SessionState>& state) {
  return [fs, fmt, opts, state](const std::vector<std::string>& files,
                                const SchemaPtr& schema) -> Result<DataSourcePtr> {
    std::string tz = state->conf.session_time_zone();
    if (fmt == "json" || fmt == "text") {
      auto kind = fmt == "json" ? formats::LineFileDataSource::Format::kJson
                                : formats::LineFileDataSource::Format::kText;
      SPATE_ASSIGN_OR_RETURN(
          auto ds, formats::LineFileDataSource::Make(fs, kind, files, schema, opts, tz));
      return DataSourcePtr(ds);
    }
    if (fmt == "csv") {
      SPATE_ASSIGN_OR_RETURN(
          auto ds,
          formats::CsvDataSource::Make(
              fs, files, schema, opts, tz,
              state->conf.GetOr("spark.sql.columnNameOfCorruptRecord", "_corrupt_record"),
              formats::CsvDataSource::kDefaultSplitBytes, FilePackingOf(*state)));
      return DataSourcePtr(ds);
    }
    SPATE_ASSIGN_OR_RETURN(auto ds,
                           formats::ParquetDataSource::Make(fs, files, schema, false));
    return DataSourcePtr(ds);
  };
}

/// Infers the schema of files (or folders) the way the batch readers do.
connectors::FileSchemaInferrer FileSchemaInference(
    const io::FileSystemPtr& fs, const std::string& fmt,
    const std::map<std::string, std::string>& opts,
    const std::shared_ptr<SessionState>& state) {
  return [fs, fmt, opts,
          state](const std::vector<std::string>& paths) -> Result<SchemaPtr> {
    std::string tz = state->conf.session_time_zone();
    if (fmt == "json") {
      SPATE_ASSIGN_OR_RETURN(auto ds, formats::LineFileDataSource::Make(
                                          fs, formats::LineFileDataSource::Format::kJson,
                                          paths, nullptr, opts, tz));
      return ds->schema();
    }
    if (fmt == "csv") {
      SPATE_ASSIGN_OR_RETURN(
          auto ds,
          formats::CsvDataSource::Make(
              fs, paths, nullptr, opts, tz,
              state->conf.GetOr("spark.sql.columnNameOfCorruptRecord", "_corrupt_record"),
              formats::CsvDataSource::kDefaultSplitBytes, FilePackingOf(*state)));
      return ds->schema();
    }
    SPATE_ASSIGN_OR_RETURN(auto ds,
                           formats::ParquetDataSource::Make(fs, paths, nullptr, true));
    return ds->schema();
  };
}

/// readStream.format("cloudFiles").load(path): Auto Loader (connectors/auto_loader.h).
DataFrame AutoLoaderStreamOf(const std::shared_ptr<SessionState>& state,
                             const std::string& path,
                             const std::map<std::string, std::string>& options,
                             const SchemaPtr& user_schema) {
  auto fs = io::LocalFileSystem::Get();
  auto o = ValueOrThrow(
      connectors::ParseAutoLoaderOptions(options, path, user_schema != nullptr));
  o.time_zone = state->conf.session_time_zone();
  const std::string files_conf = state->conf.GetOr(
      "spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles", "1000");
  o.sample_files = std::max<int64_t>(1, std::atoll(files_conf.c_str()));
  const std::string bytes_conf = state->conf.GetOr(
      "spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes", "");
  if (!bytes_conf.empty())
    o.sample_bytes = ValueOrThrow(connectors::ParseByteString(
        bytes_conf, "spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes"));
  // Inference reads with the reader's options, minus what only concerns reading, plus
  // Databricks' string typing of JSON / CSV columns unless inferColumnTypes.
  std::map<std::string, std::string> infer_opts;
  for (const auto& [k, v] : o.reader_options) {
    const std::string l = Lower(k);
    if (l != "rescueddatacolumn" && l != "maxfilespertrigger" &&
        l != "maxbytespertrigger" && l != "primitivesasstring" && l != "inferschema")
      infer_opts[k] = v;
  }
  if (o.format == "json")
    infer_opts["primitivesAsString"] = o.infer_column_types ? "false" : "true";
  if (o.format == "csv")
    infer_opts["inferSchema"] = o.infer_column_types ? "true" : "false";
  auto stream = ValueOrThrow(connectors::MakeAutoLoaderStream(
      fs, o, user_schema, FileStreamReader(fs, o.format, o.reader_options, state),
      FileSchemaInference(fs, o.format, infer_opts, state)));
  auto rel = std::make_shared<stream::StreamingRelation>(
      "cloudFiles", stream.schema, stream.factory, "CloudFilesSource[" + path + "]");
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = rel;
  return DataFrame(state, plan);
}

}  // namespace

DataFrame DataStreamReader::load() const {
  std::string path = connectors::GetOption(options_, "path");
  if (!path.empty()) return load(path);
  const std::string fmt = Lower(format_);
  stream::SourceFactory factory;
  SchemaPtr schema = connectors::RateSchema();
  std::string description;
  if (fmt == "rate") {
    factory = ValueOrThrow(connectors::MakeRateSourceFactory(options_));
    description = "rate";
  } else if (fmt == "rate-micro-batch") {
    factory = ValueOrThrow(connectors::MakeRatePerMicroBatchFactory(options_));
    description = "rate-micro-batch";
  } else if (fmt == "socket") {
    auto [s, f] = ValueOrThrow(connectors::MakeSocketSourceFactory(options_));
    schema = s;
    factory = f;
    description = "socket";
  } else if (fmt == "nexmark") {
    auto [s, f] = ValueOrThrow(connectors::MakeNexmarkSourceFactory(options_));
    schema = s;
    factory = f;
    description = "nexmark";
  } else if (fmt == "kafka") {
    if (schema_) {
      ThrowStatus(Status::Invalid(
          "requirement failed: Kafka source has a fixed schema and cannot be set with a "
          "custom one"));
    }
    auto [s, f] = ValueOrThrow(connectors::kafka::MakeKafkaSourceFactory(options_));
    schema = s;
    factory = f;
    description = "kafka";
  } else if (fmt == "json" || fmt == "csv" || fmt == "parquet" || fmt == "text") {
    ThrowStatus(Status::Invalid("'path' is not specified"));
  } else if (fmt == "delta" || fmt == "cloudfiles") {
    ThrowStatus(Status::Invalid("'path' is not specified"));
  } else {
    ThrowStatus(Status::Error("DATA_SOURCE_NOT_FOUND", {{"provider", format_}}));
  }
  if (schema_ && (fmt.rfind("rate", 0) == 0 || fmt == "socket" || fmt == "nexmark")) {
    ThrowStatus(Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg", "The " + fmt + " source does not support a user-specified schema."}}));
  }
  auto rel =
      std::make_shared<stream::StreamingRelation>(fmt, schema, factory, description);
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = rel;
  return DataFrame(session_, plan);
}

DataFrame DataStreamReader::load(const std::string& path) const {
  const std::string fmt =
      Lower(format_.empty() ? session_->conf.GetOr("spark.sql.sources.default", "parquet")
                            : format_);
  if (fmt == "delta") {
    std::map<std::string, std::string> opts = options_;
    opts.erase("path");
    return DeltaStream(session_, path, path, opts);
  }
  if (fmt == "cloudfiles") return AutoLoaderStreamOf(session_, path, options_, schema_);
  if (fmt != "json" && fmt != "csv" && fmt != "parquet" && fmt != "text") {
    if (fmt == "rate" || fmt == "rate-micro-batch" || fmt == "nexmark")
      return DataStreamReader(*this).option("path", "").load();
    ThrowStatus(Status::Error("DATA_SOURCE_NOT_FOUND", {{"provider", format_}}));
  }
  auto fs = io::LocalFileSystem::Get();
  auto state = session_;
  std::map<std::string, std::string> opts = options_;
  opts.erase("path");
  SchemaPtr schema = schema_;
  if (fmt == "text") {
    schema = std::make_shared<const Schema>(
        std::vector<Field>{{"value", DataType::String(), true, ""}});
  } else if (!schema) {
    bool infer = Lower(session_->conf.GetOr("spark.sql.streaming.schemaInference",
                                            "false")) == "true";
    if (!infer) {
      ThrowStatus(
          Status::Error("SPATE_STREAMING_INVALID",
                        {{"msg",
                          "Schema must be specified when creating a streaming source "
                          "DataFrame. If some files already "
                          "exist in the directory, then depending on the file format you "
                          "may be able to create a static "
                          "DataFrame on that directory with 'spark.read.load(directory)' "
                          "and infer schema from it."}}));
    }
    DataFrameReader r(session_);
    r.format(fmt).options(opts);
    schema = r.load(path).schema().ToSchema();
  }
  connectors::FileSourceOptions fo;
  fo.format = fmt;
  fo.path = path;
  fo.schema = schema;
  fo.options = opts;
  fo.reader = FileStreamReader(fs, fmt, opts, state);
  auto factory = ValueOrThrow(connectors::MakeFileSourceFactory(fo));
  auto rel = std::make_shared<stream::StreamingRelation>(fmt, schema, factory,
                                                         "FileSource[" + path + "]");
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = rel;
  return DataFrame(session_, plan);
}

DataFrame DataStreamReader::json(const std::string& path) const {
  return DataStreamReader(*this).format("json").load(path);
}
DataFrame DataStreamReader::csv(const std::string& path) const {
  return DataStreamReader(*this).format("csv").load(path);
}
DataFrame DataStreamReader::parquet(const std::string& path) const {
  return DataStreamReader(*this).format("parquet").load(path);
}
DataFrame DataStreamReader::text(const std::string& path) const {
  return DataStreamReader(*this).format("text").load(path);
}

namespace {

std::vector<std::string> SplitTableName(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = name.find('.', start);
    std::string part =
        name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.size() >= 2 && part.front() == '`' && part.back() == '`')
      part = part.substr(1, part.size() - 2);
    parts.push_back(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

DataFrame DeltaStream(const std::shared_ptr<SessionState>& state, const std::string& path,
                      const std::string& display,
                      const std::map<std::string, std::string>& options) {
  connectors::DeltaSourceOptions o;
  o.path = path;
  o.options = options;
  o.time_zone_id = state->conf.session_time_zone();
  o.display_name = display;
  for (const auto& [k, v] : options) {
    if (EqualsIgnoreCase(k, "startingTimestamp"))
      o.starting_timestamp_ms = ValueOrThrow(ParseTimeTravelTimestamp(*state, v));
  }
  o.allow_out_of_range =
      ToLower(state->conf.GetOr(
          "spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled",
          "false")) == "true";
  auto [schema, factory] =
      ValueOrThrow(connectors::MakeDeltaSourceFactory(io::LocalFileSystem::Get(), o));
  auto rel = std::make_shared<stream::StreamingRelation>("delta", schema, factory,
                                                         "DeltaSource[" + display + "]");
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = rel;
  return DataFrame(state, plan);
}

}  // namespace

DataFrame DataStreamReader::table(const std::string& name) const {
  // A temporary view of a streaming plan is read as that stream (as Spark resolves
  // readStream.table and SQL's STREAM name); one of a batch plan is refused.
  const std::vector<std::string> parts = SplitTableName(name);
  if (sql::BoundPlanPtr view = session_->catalog.LookupView(parts)) {
    if (!stream::IsStreamingBound(*view)) {
      ThrowStatus(Status::Invalid(
          parts.back() +
          " is not a temp view of streaming logical plan, please use batch API "
          "such as `DataFrameReader.table` to read it."));
    }
    auto analyzed = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kAnalyzed);
    analyzed->bound = view;
    auto alias = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kSubqueryAlias);
    alias->alias = parts.back();
    alias->children.push_back(analyzed);
    return DataFrame(session_, alias);
  }
  auto& wh = session_->warehouse();
  auto id = ValueOrThrow(wh.QualifyTable(parts, session_->catalog.current_database()));
  auto loc = ValueOrThrow(wh.LookupTable(id));
  if (!loc)
    ThrowStatus(
        Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", id.Quoted()}}));
  // As a table read in batch (and Spark's readStream.table): its columns are qualified by
  // the table's name (`clicks.session_id` for bronze.clicks).
  DataFrame stream = DeltaStream(session_, loc->path, id.Unquoted(), options_);
  auto alias = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kSubqueryAlias);
  alias->alias = id.table;
  alias->children.push_back(stream.plan());
  return DataFrame(session_, alias);
}

// ---- DataStreamWriter

DataStreamWriter& DataStreamWriter::format(const std::string& sink) {
  format_ = sink;
  return *this;
}
DataStreamWriter& DataStreamWriter::outputMode(const std::string& mode) {
  ValueOrThrow(stream::ParseOutputMode(mode));
  output_mode_ = mode;
  return *this;
}
DataStreamWriter& DataStreamWriter::option(const std::string& key,
                                           const std::string& value) {
  options_[key] = value;
  return *this;
}
DataStreamWriter& DataStreamWriter::options(
    const std::map<std::string, std::string>& opts) {
  for (const auto& [k, v] : opts) options_[k] = v;
  return *this;
}
DataStreamWriter& DataStreamWriter::queryName(const std::string& name) {
  query_name_ = name;
  return *this;
}
DataStreamWriter& DataStreamWriter::partitionBy(const std::vector<std::string>& cols) {
  partition_by_ = cols;
  return *this;
}
DataStreamWriter& DataStreamWriter::trigger(const stream::Trigger& trigger) {
  trigger_ = trigger;
  return *this;
}
DataStreamWriter& DataStreamWriter::foreachBatch(
    std::function<void(DataFrame, int64_t)> fn) {
  foreach_batch_ = std::move(fn);
  format_ = "foreachBatch";
  return *this;
}
DataStreamWriter& DataStreamWriter::foreach (std::shared_ptr<ForeachWriter> writer) {
  foreach_ = std::move(writer);
  format_ = "foreach";
  return *this;
}
DataStreamWriter& DataStreamWriter::clock(ClockPtr clock) {
  clock_ = std::move(clock);
  return *this;
}
DataStreamWriter& DataStreamWriter::fileSystem(io::FileSystemPtr fs) {
  fs_ = std::move(fs);
  return *this;
}

StreamingQuery DataStreamWriter::start() const {
  std::string path = connectors::GetOption(options_, "path");
  return start(path);
}

StreamingQuery DataStreamWriter::toTable(const std::string& name) const {
  const auto& state = df_.session();
  std::string fmt = Lower(format_);
  if (!fmt.empty() && fmt != "delta") {
    ThrowStatus(Status::Error("SPATE_STREAMING_UNSUPPORTED",
                              {{"msg", "toTable() writes Delta tables; format " +
                                           format_ + " is not supported"}}));
  }
  std::vector<std::string> parts = SplitTableName(name);
  auto& wh = state->warehouse();
  auto id = ValueOrThrow(wh.QualifyTable(parts, state->catalog.current_database()));
  auto loc = ValueOrThrow(wh.LookupTable(id));
  std::string path =
      loc ? loc->path : ValueOrThrow(wh.PrepareTable(id, std::nullopt)).path;
  DataStreamWriter w(*this);
  w.format_ = "delta";
  w.table_name_ = id.Unquoted();
  return w.start(path);
}

StreamingQuery DataStreamWriter::start(const std::string& path) const {
  const auto& state = df_.session();
  if (!df_.isStreaming()) ThrowStatus(Status::Error("WRITE_STREAM_NOT_ALLOWED"));
  const std::string fmt =
      Lower(format_.empty() ? state->conf.GetOr("spark.sql.sources.default", "parquet")
                            : format_);
  stream::OutputMode mode = ValueOrThrow(stream::ParseOutputMode(output_mode_));
  io::FileSystemPtr fs = fs_ ? fs_ : io::FileSystemPtr(io::LocalFileSystem::Get());
  stream::SinkPtr sink;
  std::shared_ptr<connectors::MemorySink> memory_sink;
  bool temp_allowed = false;
  if (fmt == "memory") {
    if (!query_name_)
      ThrowStatus(
          Status::Error("SPATE_STREAMING_INVALID",
                        {{"msg", "queryName must be specified for memory sink"}}));
    std::string name = *query_name_;
    std::weak_ptr<SessionState> weak = state;
    memory_sink = std::make_shared<connectors::MemorySink>(
        mode,
        [weak, name](const SchemaPtr& schema,
                     const std::vector<BatchPtr>& rows) -> Status {
          auto s = weak.lock();
          if (!s) return Status::OK();
          return PublishView(s, name, schema, rows);
        });
    sink = memory_sink;
    temp_allowed = true;
    // The view exists (empty) from the start, as in Spark.
    CheckOrThrow(PublishView(state, name, df_.analyzed()->OutputSchema(), {}));
  } else if (fmt == "console") {
    sink = ValueOrThrow(connectors::ConsoleSink::Make(options_));
    temp_allowed = true;
  } else if (fmt == "noop") {
    sink = std::make_shared<connectors::NoopSink>();
    temp_allowed = true;
  } else if (fmt == "foreachbatch") {
    // foreachBatch and foreach may run without a checkpoint location, as Spark's
    // SOURCES_ALLOW_ONE_TIME_QUERY (a temporary one is used and deleted after a clean
    // end).
    temp_allowed = true;
    auto fn = foreach_batch_;
    std::weak_ptr<SessionState> weak = state;
    sink = std::make_shared<connectors::ForeachBatchSink>(
        [fn, weak](const stream::MicroBatch& mb) -> Status {
          auto s = weak.lock();
          if (!s) return Status::Cancelled("session closed");
          try {
            fn(DataFrame(s, mb.plan), mb.batch_id);
          } catch (...) {
            return FromCurrentException();
          }
          return Status::OK();
        });
  } else if (fmt == "foreach") {
    temp_allowed = true;
    sink = std::make_shared<ForeachWriterSink>(foreach_);
  } else if (fmt == "parquet" || fmt == "json" || fmt == "csv" || fmt == "text") {
    if (path.empty()) ThrowStatus(Status::Invalid("'path' is not specified"));
    // The file sink appends files: no other output mode (Spark's FileStreamSink).
    if (mode != stream::OutputMode::kAppend) {
      ThrowStatus(
          Status::Error("STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE",
                        {{"outputMode", Lower(std::string(stream::OutputModeName(mode)))},
                         {"className", fmt}}));
    }
    formats::FileWriterFactoryPtr factory;
    if (fmt == "parquet") {
      factory = ValueOrThrow(formats::MakeParquetWriterFactory(
          options_, state->conf.GetOr("spark.sql.parquet.compression.codec", "snappy")));
    } else if (fmt == "json") {
      factory = ValueOrThrow(
          formats::MakeJsonWriterFactory(options_, state->conf.session_time_zone()));
    } else if (fmt == "csv") {
      factory = ValueOrThrow(
          formats::MakeCsvWriterFactory(options_, state->conf.session_time_zone()));
    } else {
      factory = ValueOrThrow(formats::MakeTextWriterFactory(options_));
    }
    int interval = std::atoi(
        state->conf.GetOr("spark.sql.streaming.fileSink.log.compactInterval", "10")
            .c_str());
    const int64_t cleanup = stream::LogCleanupDelayMs(
        state->conf.GetOr("spark.sql.streaming.fileSink.log.deletion", "true"),
        state->conf.GetOr("spark.sql.streaming.fileSink.log.cleanupDelay", "10m"));
    sink = std::make_shared<connectors::FileStreamSink>(
        fs, path, factory, partition_by_, interval > 0 ? interval : 10, cleanup);
  } else if (fmt == "kafka") {
    sink = ValueOrThrow(
        connectors::kafka::MakeKafkaSink(options_, *df_.analyzed()->OutputSchema()));
  } else if (fmt == "delta") {
    if (path.empty()) ThrowStatus(Status::Invalid("'path' is not specified"));
    // Delta's sink appends or (Complete) overwrites; Update would need a MERGE.
    if (mode == stream::OutputMode::kUpdate) {
      ThrowStatus(Status::Error("DELTA_UNSUPPORTED_OUTPUT_MODE",
                                {{"dataSource", "Delta"}, {"mode", "Update"}}));
    }
    connectors::DeltaSinkOptions o;
    o.path = path;
    o.partition_by = partition_by_;
    o.options = DeltaPropertyDefaults(*state);  // for a table the sink creates
    for (const auto& [k, v] : options_) o.options[k] = v;
    o.options.erase("checkpointLocation");
    o.options.erase("path");
    o.time_zone_id = state->conf.session_time_zone();
    o.default_codec = state->conf.GetOr("spark.sql.parquet.compression.codec", "snappy");
    o.display_name = table_name_.empty() ? path : table_name_;
    o.checkpoint = SessionCheckpointOptions(*state);
    {
      const std::string on =
          state->conf.GetOr("spark.databricks.delta.autoCompact.enabled", "");
      if (!on.empty()) o.auto_compact.enabled = ToLower(on) == "true";
      auto number = [&](const char* key, int64_t fallback) {
        return ParseInt64(state->conf.GetOr(key, "")).value_or(fallback);
      };
      o.auto_compact.max_file_size =
          number("spark.databricks.delta.autoCompact.maxFileSize", 128LL << 20);
      o.auto_compact.min_num_files =
          number("spark.databricks.delta.autoCompact.minNumFiles", 50);
      if (int64_t min_size = number("spark.databricks.delta.autoCompact.minFileSize", -1);
          min_size > 0)
        o.auto_compact.min_file_size = min_size;
    }
    sink = std::make_shared<connectors::DeltaSink>(fs, o);
  } else {
    ThrowStatus(Status::Error("DATA_SOURCE_NOT_FOUND", {{"provider", format_}}));
  }

  stream::QueryConfig cfg;
  cfg.name = query_name_;
  std::string checkpoint = connectors::GetOption(options_, "checkpointLocation");
  if (checkpoint.empty()) {
    std::string root = state->conf.GetOr("spark.sql.streaming.checkpointLocation", "");
    if (!root.empty()) {
      checkpoint = io::JoinPath(root, query_name_ ? *query_name_ : stream::RandomUuid());
    } else if (temp_allowed) {
      const char* tmp = std::getenv("TMPDIR");
      checkpoint =
          io::JoinPath(tmp && *tmp ? tmp : "/tmp", "temporary-" + stream::RandomUuid());
      cfg.temp_checkpoint = true;
    } else {
      ThrowStatus(Status::Error(
          "SPATE_STREAMING_INVALID",
          {{"msg",
            "checkpointLocation must be specified either through "
            "option(\"checkpointLocation\", ...) or "
            "SparkSession.conf.set(\"spark.sql.streaming.checkpointLocation\", ...)"}}));
    }
  }
  cfg.checkpoint = checkpoint;
  cfg.trigger = trigger_;
  cfg.output_mode = mode;
  cfg.plan = df_.plan();
  cfg.sink = sink;
  cfg.fs = fs;
  cfg.clock = clock_ ? clock_ : SystemClock::Get();
  cfg.runner = std::make_shared<SessionRunner>(state);
  auto q = ValueOrThrow(StreamsOf(state)->StartQuery(std::move(cfg)));
  if (memory_sink) {
    std::lock_guard<std::mutex> lock(g_memory_sinks_mu);
    MemorySinks()[q.get()] = memory_sink;
  }
  return StreamingQuery(q);
}

// ---- MemoryStream

MemoryStream::MemoryStream(const SparkSession& spark, const StructType& schema)
    : session_(spark.state()),
      impl_(std::make_shared<connectors::MemoryStream>(schema.ToSchema())) {}

MemoryStream::MemoryStream(const SparkSession& spark, const std::string& ddl)
    : MemoryStream(spark, StructType::fromDDL(ddl)) {}

int64_t MemoryStream::addData(const std::vector<std::vector<Value>>& rows) const {
  const SchemaPtr& schema = impl_->schema();
  std::vector<ColumnPtr> cols;
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<Value> vals;
    vals.reserve(rows.size());
    for (const auto& r : rows)
      vals.push_back(c < static_cast<int>(r.size()) ? r[c] : Value());
    cols.push_back(ColumnFromValues(schema->field(c).type, vals));
  }
  return impl_->AddData(Batch::Make(schema, cols, static_cast<int64_t>(rows.size())));
}

DataFrame MemoryStream::toDF() const {
  auto rel = std::make_shared<stream::StreamingRelation>(
      "memory", impl_->schema(), impl_->Factory(), impl_->Describe());
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = rel;
  return DataFrame(session_, plan);
}

}  // namespace spate::api

namespace spate::api {

// SparkSession / DataFrame entry points of the streaming API (declared in session.h and
// dataframe.h).
DataStreamReader SparkSession::readStream() const { return DataStreamReader(state_); }
StreamingQueryManager SparkSession::streams() const {
  return StreamingQueryManager(StreamsOf(state_));
}
// After analysis, so a stream reached through a temp view or SQL counts too.
bool DataFrame::isStreaming() const {
  return stream::IsStreamingPlan(plan_) || (bound_ && stream::IsStreamingBound(*bound_));
}
DataStreamWriter DataFrame::writeStream() const {
  if (!isStreaming()) ThrowStatus(Status::Error("WRITE_STREAM_NOT_ALLOWED"));
  return DataStreamWriter(*this);
}

}  // namespace spate::api

namespace spate::api {

std::optional<DataFrame> LoadFileSinkOutput(const DataFrameReader& reader,
                                            const std::string& path) {
  auto fs = io::LocalFileSystem::Get();
  auto listed = ValueOrThrow(connectors::SinkLogFiles(*fs, path));
  if (!listed) return std::nullopt;
  // Group the committed files by their partition folders (key=value between the root and
  // the file); each group is read on its own with its partition values as literals.
  std::map<std::string, std::vector<std::string>> groups;
  std::vector<std::string> keys;
  std::map<std::string, std::vector<std::string>>
      raw_values;  // column -> raw values seen
  std::string root = path;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  for (const auto& f : *listed) {
    std::string rel =
        f.rfind(root + "/", 0) == 0 ? f.substr(root.size() + 1) : io::BaseName(f);
    std::string folder = io::ParentPath(rel);
    groups[folder].push_back(f);
  }
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>
      parsed;
  for (const auto& [folder, files] : groups) {
    std::vector<std::pair<std::string, std::string>> kv;
    size_t start = 0;
    while (!folder.empty() && start <= folder.size()) {
      size_t slash = folder.find('/', start);
      std::string part = folder.substr(
          start, slash == std::string::npos ? std::string::npos : slash - start);
      size_t eq = part.find('=');
      if (eq != std::string::npos) {
        std::string k = part.substr(0, eq),
                    v = formats::UnescapePathName(part.substr(eq + 1));
        kv.emplace_back(k, v);
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
        raw_values[k].push_back(v);
      }
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    parsed.emplace_back(folder, std::move(kv));
  }
  if (keys.empty() || listed->empty()) return DataFrameReader(reader).load(*listed);
  std::map<std::string, DataFrame> parts;
  for (const auto& [folder, kv] : parsed)
    parts.emplace(folder, DataFrameReader(reader).load(groups[folder]));
  const sql::SqlConf& conf = parts.begin()->second.session()->conf;
  const bool infer =
      Lower(conf.GetOr(formats::kPartitionTypeInferenceOption, "true")) != "false";
  const std::string tz = conf.session_time_zone();
  std::map<std::string, DataTypePtr> types;
  for (const auto& k : keys) types[k] = formats::InferPartitionType(raw_values[k], infer);
  std::optional<DataFrame> out;
  for (const auto& [folder, kv] : parsed) {
    DataFrame part = parts.at(folder);
    for (const auto& k : keys) {
      Value v = Value::Null(types[k]);
      for (const auto& [pk, pv] : kv) {
        if (pk == k && pv != "__HIVE_DEFAULT_PARTITION__")
          v = formats::PartitionValue(pv, types[k], tz);
      }
      part = part.withColumn(k, functions::lit(v));
    }
    out = out ? out->unionByName(part) : part;
  }
  return out;
}

}  // namespace spate::api
