// Copyright spate authors.
#include "spate/api/delta_table.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "spate/api/delta_changes.h"
#include "spate/api/session_state.h"
#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/compute/datetime_text.h"
#include "spate/exec/executor.h"
#include "spate/exec/physical_plan.h"
#include "spate/sql/parser.h"
#include "spate/table/delta_source.h"
#include "spate/table/delta_writer.h"
#include "spate/types/timezone.h"

namespace spate::api {

namespace {

io::FileSystemPtr Fs() { return io::LocalFileSystem::Get(); }

Field F(const std::string& n, DataTypePtr t) { return Field{n, std::move(t), true, ""}; }
DataTypePtr StrMap() {
  return DataType::Map(DataType::String(), DataType::String(), true);
}
Value MapValue(const std::map<std::string, std::string>& m) {
  std::vector<Value> k, v;
  for (const auto& [a, b] : m) {
    k.push_back(Value::String(a));
    v.push_back(Value::String(b));
  }
  return Value::Map(StrMap(), std::move(k), std::move(v));
}
Value StrList(const std::vector<std::string>& xs) {
  std::vector<Value> items;
  for (const auto& x : xs) items.push_back(Value::String(x));
  return Value::ArrayOf(DataType::Array(DataType::String(), true), std::move(items));
}
Value OptStr(const std::optional<std::string>& s) {
  return s ? Value::String(*s) : Value::Null(DataType::String());
}

DataFrame LocalFrame(const std::shared_ptr<SessionState>& state,
                     std::vector<Field> fields,
                     const std::vector<std::vector<Value>>& rows) {
  auto schema = std::make_shared<const Schema>(std::move(fields));
  std::vector<ColumnPtr> cols;
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<Value> vals;
    for (const auto& r : rows) vals.push_back(r[c]);
    cols.push_back(ColumnFromValues(schema->field(c).type, vals));
  }
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kLocalRelation);
  plan->schema = schema;
  plan->batches = {Batch::Make(schema, cols, static_cast<int64_t>(rows.size()))};
  return DataFrame(state, plan);
}

std::vector<std::string> TableFeatures(const table::Protocol& p) {
  std::set<std::string> f;
  if (p.min_writer_version >= 2) f.insert({"appendOnly", "invariants"});
  if (p.min_writer_version >= 3) f.insert("checkConstraints");
  if (p.min_writer_version >= 4) f.insert({"changeDataFeed", "generatedColumns"});
  if (p.min_writer_version >= 5) f.insert("columnMapping");
  if (p.min_writer_version >= 6) f.insert("identityColumns");
  if (p.min_writer_version == 7) {
    f.clear();
    if (p.writer_features) f.insert(p.writer_features->begin(), p.writer_features->end());
  }
  if (p.reader_features) f.insert(p.reader_features->begin(), p.reader_features->end());
  return {f.begin(), f.end()};
}

}  // namespace

Result<int64_t> ParseTimeTravelTimestamp(const SessionState& state,
                                         const std::string& text) {
  EvalContext ctx;
  ctx.time_zone_id = state.conf.session_time_zone();
  ctx.time_zone = TimeZone::Lookup(ctx.time_zone_id);
  int64_t micros = 0;
  if (!CastStringToTimestamp(text, ctx, &micros)) {
    return Status::Error("DELTA_TIMESTAMP_INVALID", {{"expr", "'" + text + "'"}});
  }
  // A timestamp names every commit up to the end of its millisecond.
  return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
}

Result<DataSourcePtr> ResolveDeltaPath(const SessionState& state,
                                       const std::string& path) {
  SPATE_ASSIGN_OR_RETURN(
      auto src, table::OpenDeltaSource(Fs(), path, {}, state.conf.session_time_zone()));
  return DataSourcePtr(std::move(src));
}

namespace {

bool OptionIsTrue(const std::map<std::string, std::string>& options, const char* key) {
  for (const auto& [k, v] : options)
    if (EqualsIgnoreCase(k, key)) return ToLower(v) == "true";
  return false;
}

}  // namespace

DataFrame LoadDelta(const std::shared_ptr<SessionState>& state, const std::string& path,
                    const std::map<std::string, std::string>& options) {
  if (OptionIsTrue(options, "readChangeFeed") ||
      OptionIsTrue(options, "readChangeData")) {
    return LoadDeltaChanges(state, path, ChangeRangeOptions(*state, options));
  }
  table::TimeTravelSpec travel;
  for (const auto& [k, v] : options) {
    if (EqualsIgnoreCase(k, "versionAsOf")) {
      auto version = ParseInt64(v);
      if (!version) {
        ThrowStatus(Status::Error("DELTA_ILLEGAL_OPTION",
                                  {{"input", v},
                                   {"name", "versionAsOf"},
                                   {"explain", "must be a version number"}}));
      }
      travel.version = *version;
    } else if (EqualsIgnoreCase(k, "timestampAsOf")) {
      travel.timestamp_ms = ValueOrThrow(ParseTimeTravelTimestamp(*state, v));
    }
  }
  auto src = ValueOrThrow(
      table::OpenDeltaSource(Fs(), path, travel, state->conf.session_time_zone()));
  if (!travel.version && !travel.timestamp_ms) {
    // The latest version, resolved at every analysis (delta.`path`) as Delta's file index
    // takes the latest snapshot whenever a plan is made: a stream-static join reads the
    // static table's newest version in each micro-batch.
    std::error_code ec;
    std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
    if (!ec && abs.find('/') != std::string::npos) {
      auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kUnresolvedRelation);
      plan->table_name = {"delta", abs};
      return DataFrame(state, plan);
    }
  }
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = src;
  return DataFrame(state, plan);
}

std::map<std::string, std::string> DeltaPropertyDefaults(const SessionState& state) {
  std::map<std::string, std::string> out;
  const std::string prefix = "spark.databricks.delta.properties.defaults.";
  for (const auto& [k, v] : state.conf.SetEntries()) {
    if (k.size() > prefix.size() && EqualsIgnoreCase(k.substr(0, prefix.size()), prefix))
      out["delta." + k.substr(prefix.size())] = v;
  }
  return out;
}

table::CheckpointOptions SessionCheckpointOptions(const SessionState& state) {
  table::CheckpointOptions o;
  if (auto size = ParseInt64(
          state.conf.GetOr("spark.databricks.delta.checkpoint.partSize", ""))) {
    o.part_size = std::max<int64_t>(0, *size);
  }
  o.v2_top_level_format = ToLower(
      state.conf.GetOr("spark.databricks.delta.checkpointV2.topLevelFileFormat", "json"));
  if (auto paced =
          ParseInt64(state.conf.GetOr("spate.delta.checkpoint.pacedAboveBytes", ""))) {
    o.paced_above_bytes = std::max<int64_t>(-1, *paced);
  }
  return o;
}

table::DeltaWriteOptions SessionDeltaWriteOptions(const SessionState& state,
                                                  const std::string& mode) {
  table::DeltaWriteOptions o;
  o.checkpoint = SessionCheckpointOptions(state);
  o.mode = mode;
  o.time_zone_id = state.conf.session_time_zone();
  o.default_codec = state.conf.GetOr("spark.sql.parquet.compression.codec", "snappy");
  o.options = DeltaPropertyDefaults(state);
  return o;
}

table::DeltaWriteResult WriteDeltaFrame(const DataFrame& df, const std::string& path,
                                        const table::DeltaWriteOptions& options) {
  const auto& state = df.session();
  auto exec_options = state->MakeExecOptions();
  auto physical = ValueOrThrow(exec::CreatePhysicalPlan(df.analyzed(), exec_options));
  return ValueOrThrow(table::WritePlan(Fs(), path, *physical, exec_options, options));
}

void SaveDelta(const DataFrame& df, const std::string& path, const std::string& mode,
               const std::vector<std::string>& partition_by,
               const std::map<std::string, std::string>& options) {
  table::DeltaWriteOptions o = SessionDeltaWriteOptions(*df.session(), mode);
  o.partition_by = partition_by;
  for (const auto& [k, v] : options) o.options[k] = v;  // over the session's defaults
  WriteDeltaFrame(df, path, o);
}

DeltaTable DeltaTable::forPath(const SparkSession& spark, const std::string& path) {
  table::DeltaLog log(Fs(), path);
  if (!ValueOrThrow(log.TableExists())) {
    ThrowStatus(
        Status::Error("DELTA_MISSING_DELTA_TABLE", {{"tableName", "`" + path + "`"}}));
  }
  return DeltaTable(spark.state(), path);
}

DeltaTable DeltaTable::forName(const SparkSession& spark, const std::string& name) {
  DeltaTable t = forPath(spark, TablePath(spark.state(), name));
  // A catalog table's columns may be qualified by its name (`t.id`), as in delta-spark.
  std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(name));
  const bool path_name = parts.size() == 2 && EqualsIgnoreCase(parts[0], "delta") &&
                         parts[1].find('/') != std::string::npos;
  if (!path_name && !parts.empty()) t.alias_ = parts.back();
  return t;
}

bool DeltaTable::isDeltaTable(const SparkSession&, const std::string& path) {
  auto r = table::DeltaLog(Fs(), path).TableExists();
  return r.ok() && *r;
}

DataFrame DeltaTable::toDF() const {
  DataFrame df = LoadDelta(state_, path_, {});
  return alias_.empty() ? df : df.alias(alias_);
}

DeltaTable DeltaTable::alias(const std::string& alias) const {
  DeltaTable t = *this;
  t.alias_ = alias;
  return t;
}

DeltaMergeBuilder DeltaTable::merge(const DataFrame& source,
                                    const std::string& condition) const {
  return merge(source, functions::expr(condition));
}

DeltaMergeBuilder DeltaTable::merge(const DataFrame& source,
                                    const Column& condition) const {
  MergeSpec spec;
  spec.target_path = path_;
  spec.target_name = "delta.`" + path_ + "`";
  spec.target_alias = alias_;
  spec.source = source.plan();
  spec.condition = condition.expr();
  return DeltaMergeBuilder(state_, std::move(spec));
}

DeltaDmlTarget DeltaTable::Target() const {
  return DeltaDmlTarget{path_, "`delta`.`" + path_ + "`", alias_};
}

namespace {

UpdateAssignments Assignments(const std::vector<std::pair<std::string, Column>>& set) {
  UpdateAssignments out;
  for (const auto& [name, value] : set) {
    out.emplace_back(ValueOrThrow(sql::ParseMultipartIdentifier(name)), value.expr());
  }
  return out;
}

std::vector<std::pair<std::string, Column>> FromExprs(
    const std::vector<std::pair<std::string, std::string>>& set) {
  std::vector<std::pair<std::string, Column>> out;
  for (const auto& [k, v] : set) out.emplace_back(k, functions::expr(v));
  return out;
}

}  // namespace

DataFrame DeltaTable::update(
    const std::vector<std::pair<std::string, Column>>& set) const {
  return ExecuteUpdate(state_, Target(), Assignments(set), nullptr);
}
DataFrame DeltaTable::update(
    const Column& condition,
    const std::vector<std::pair<std::string, Column>>& set) const {
  return ExecuteUpdate(state_, Target(), Assignments(set), condition.expr());
}
DataFrame DeltaTable::update(
    const std::string& condition,
    const std::vector<std::pair<std::string, Column>>& set) const {
  return update(functions::expr(condition), set);
}
DataFrame DeltaTable::updateExpr(
    const std::vector<std::pair<std::string, std::string>>& set) const {
  return update(FromExprs(set));
}
DataFrame DeltaTable::updateExpr(
    const std::string& condition,
    const std::vector<std::pair<std::string, std::string>>& set) const {
  return update(condition, FromExprs(set));
}
DataFrame DeltaTable::delete_() const { return ExecuteDelete(state_, Target(), nullptr); }
DataFrame DeltaTable::delete_(const Column& condition) const {
  return ExecuteDelete(state_, Target(), condition.expr());
}
DataFrame DeltaTable::delete_(const std::string& condition) const {
  return delete_(functions::expr(condition));
}
DataFrame DeltaTable::restoreToVersion(int64_t version) const {
  return ExecuteRestore(state_, Target(), version, std::nullopt);
}
DataFrame DeltaTable::restoreToTimestamp(const std::string& timestamp) const {
  return ExecuteRestore(state_, Target(), std::nullopt, timestamp);
}
DataFrame DeltaTable::vacuum() const {
  return ExecuteVacuum(state_, Target(), std::nullopt, false);
}
DataFrame DeltaTable::vacuum(double hours) const {
  return ExecuteVacuum(state_, Target(), hours, false);
}
DeltaTable::OptimizeBuilder DeltaTable::optimize() const {
  return OptimizeBuilder(state_, Target());
}
DeltaTable::OptimizeBuilder DeltaTable::OptimizeBuilder::where(
    const std::string& partition_filter) const {
  OptimizeBuilder b = *this;
  ExprPtr e = functions::expr(partition_filter).expr();
  b.predicate_ = b.predicate_ ? (Column(b.predicate_) && Column(e)).expr() : e;
  return b;
}
DataFrame DeltaTable::OptimizeBuilder::executeCompaction() const {
  return ExecuteOptimize(state_, target_, predicate_, {});
}
DataFrame DeltaTable::OptimizeBuilder::executeZOrderBy(
    const std::vector<std::string>& columns) const {
  return ExecuteOptimize(state_, target_, predicate_, columns);
}

DataFrame DeltaTable::history(int limit) const {
  table::DeltaLog log(Fs(), path_);
  auto commits = ValueOrThrow(log.History(limit));
  auto job = DataType::Struct(
      {F("jobId", DataType::String()), F("jobName", DataType::String()),
       F("jobRunId", DataType::String()), F("runId", DataType::String()),
       F("jobOwnerId", DataType::String()), F("triggerType", DataType::String())});
  auto notebook = DataType::Struct({F("notebookId", DataType::String())});
  std::vector<Field> fields = {F("version", DataType::Long()),
                               F("timestamp", DataType::Timestamp()),
                               F("userId", DataType::String()),
                               F("userName", DataType::String()),
                               F("operation", DataType::String()),
                               F("operationParameters", StrMap()),
                               F("job", job),
                               F("notebook", notebook),
                               F("clusterId", DataType::String()),
                               F("readVersion", DataType::Long()),
                               F("isolationLevel", DataType::String()),
                               F("isBlindAppend", DataType::Boolean()),
                               F("operationMetrics", StrMap()),
                               F("userMetadata", DataType::String()),
                               F("engineInfo", DataType::String())};
  std::vector<std::vector<Value>> rows;
  for (const auto& c : commits) {
    table::CommitInfo ci;
    for (const auto& a : c.actions)
      if (a.kind == table::Action::Kind::kCommitInfo) ci = a.commit_info;
    const Json& raw = ci.raw;
    rows.push_back(
        {Value::Long(c.version), Value::Timestamp(c.timestamp_ms * 1000),
         OptStr(raw.GetString("userId")), OptStr(raw.GetString("userName")),
         Value::String(ci.operation), MapValue(ci.operation_parameters), Value::Null(job),
         Value::Null(notebook), OptStr(raw.GetString("clusterId")),
         ci.read_version ? Value::Long(*ci.read_version) : Value::Null(DataType::Long()),
         OptStr(ci.isolation_level),
         ci.is_blind_append ? Value::Boolean(*ci.is_blind_append)
                            : Value::Null(DataType::Boolean()),
         MapValue(ci.operation_metrics), OptStr(ci.user_metadata),
         OptStr(ci.engine_info)});
  }
  return LocalFrame(state_, std::move(fields), rows);
}

DataFrame DeltaTable::detail() const {
  table::DeltaLog log(Fs(), path_);
  auto snap = ValueOrThrow(log.Latest());
  const auto& m = snap->metadata();
  std::vector<Field> fields = {
      F("format", DataType::String()),
      F("id", DataType::String()),
      F("name", DataType::String()),
      F("description", DataType::String()),
      F("location", DataType::String()),
      F("createdAt", DataType::Timestamp()),
      F("lastModified", DataType::Timestamp()),
      F("partitionColumns", DataType::Array(DataType::String(), true)),
      F("clusteringColumns", DataType::Array(DataType::String(), true)),
      F("numFiles", DataType::Long()),
      F("sizeInBytes", DataType::Long()),
      F("properties", StrMap()),
      F("minReaderVersion", DataType::Int()),
      F("minWriterVersion", DataType::Int()),
      F("tableFeatures", DataType::Array(DataType::String(), true))};
  std::vector<std::vector<Value>> rows = {
      {Value::String("delta"), Value::String(m.id), OptStr(m.name), OptStr(m.description),
       Value::String("file:" + snap->table_path()),
       m.created_time ? Value::Timestamp(*m.created_time * 1000)
                      : Value::Null(DataType::Timestamp()),
       Value::Timestamp(snap->timestamp_ms() * 1000), StrList(m.partition_columns),
       StrList({}), Value::Long(static_cast<int64_t>(snap->files().size())),
       Value::Long(snap->total_size_bytes()), MapValue(m.configuration),
       Value::Int(snap->protocol().min_reader_version),
       Value::Int(snap->protocol().min_writer_version),
       StrList(TableFeatures(snap->protocol()))}};
  return LocalFrame(state_, std::move(fields), rows);
}

}  // namespace spate::api
