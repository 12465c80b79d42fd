// Copyright spate authors.
#include "spate/api/session.h"

#include <cctype>
#include <chrono>
#include <mutex>

#include "spate/api/delta_changes.h"
#include "spate/api/delta_table.h"
#include "spate/api/monitoring.h"
#include "spate/api/readwriter.h"
#include "spate/api/session_state.h"
#include "spate/api/sql_relations.h"
#include "spate/api/streaming.h"
#include "spate/base/malloc_policy.h"
#include "spate/base/redact.h"
#include "spate/columnar/builder.h"
#include "spate/compute/cast.h"
#include "spate/compute/function_registry.h"
#include "spate/formats/csv/csv_functions.h"
#include "spate/formats/csv_source.h"
#include "spate/formats/json/json_functions.h"
#include "spate/formats/json_source.h"
#include "spate/formats/parquet_source.h"
#include "spate/sql/parser.h"
#include "spate/stream/streaming_query.h"
#include "spate/types/timezone.h"

namespace spate::api {

namespace {
// A session whose catalog resolves parquet.`path` relations.
std::shared_ptr<SessionState> NewSessionState() {
  auto state = std::make_shared<SessionState>();
  SessionState* state_ptr =
      state.get();  // the state owns the catalog holding the resolver
  state->catalog.SetFileSourceResolver(
      [state_ptr](const std::string& format,
                  const std::string& path) -> Result<DataSourcePtr> {
        if (format == "delta") return ResolveDeltaPath(*state_ptr, path);
        if (format == "json" || format == "text") {
          SPATE_ASSIGN_OR_RETURN(
              auto src, formats::LineFileDataSource::Make(
                            io::LocalFileSystem::Get(),
                            format == "json" ? formats::LineFileDataSource::Format::kJson
                                             : formats::LineFileDataSource::Format::kText,
                            {path}, nullptr, {}));
          return DataSourcePtr(std::move(src));
        }
        if (format == "csv") {
          SPATE_ASSIGN_OR_RETURN(
              auto src, formats::CsvDataSource::Make(
                            io::LocalFileSystem::Get(), {path}, nullptr, {}, "UTC",
                            "_corrupt_record", formats::CsvDataSource::kDefaultSplitBytes,
                            FilePackingOf(*state_ptr)));
          return DataSourcePtr(std::move(src));
        }
        if (format != "parquet") return DataSourcePtr();
        SPATE_ASSIGN_OR_RETURN(auto src, formats::ParquetDataSource::Make(
                                             io::LocalFileSystem::Get(), {path}));
        return DataSourcePtr(std::move(src));
      });
  // Tables: the state owns the catalog that holds this resolver, so a raw pointer.
  SessionState* raw = state.get();
  // Subquery expressions run through the session's executor.
  state->catalog.SetSubqueryExecutor(
      [raw](const sql::BoundPlanPtr& plan) { return raw->Execute(plan); });
  state->catalog.SetTableResolver([raw](const std::vector<std::string>& name,
                                        const sql::Catalog::TimeTravel& travel) {
    return ResolveCatalogTable(*raw, name, travel);
  });
  // STREAM name and read_files(...) (api/sql_relations.h; a non-owning pointer).
  state->catalog.SetRelationPlanResolver(
      [raw](const sql::LogicalPlan& node,
            const std::vector<std::pair<std::string, Value>>& args) {
        return ResolveSqlRelation(
            std::shared_ptr<SessionState>(std::shared_ptr<SessionState>(), raw), node,
            args);
      });
  // table_changes / table_changes_by_path (a non-owning pointer to the state).
  state->catalog.SetTableFunctionResolver([raw](const std::string& name,
                                                const std::vector<Value>& args) {
    return ResolveTableChanges(
        std::shared_ptr<SessionState>(std::shared_ptr<SessionState>(), raw), name, args);
  });
  return state;
}
}  // namespace

// ---- SessionState
// ------------------------------------------------------------------------

namespace {
// A byte size as Spark's conf reads one ("10485760", "10MB", "512k", "-1"); `def` when
// unparsable.
int64_t ByteSizeConf(const std::string& v, int64_t def) {
  if (v.empty()) return def;
  size_t i = v[0] == '-' ? 1 : 0;
  int64_t n = 0;
  size_t digits = 0;
  for (; i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])); ++i, ++digits) {
    if (n > (int64_t{1} << 50)) return def;
    n = n * 10 + (v[i] - '0');
  }
  if (digits == 0) return def;
  if (v[0] == '-') return -n;
  std::string unit;
  for (; i < v.size(); ++i)
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(v[i])));
  if (unit.empty() || unit == "b") return n;
  if (unit == "k" || unit == "kb") return n << 10;
  if (unit == "m" || unit == "mb") return n << 20;
  if (unit == "g" || unit == "gb") return n << 30;
  return def;
}
}  // namespace

exec::ExecOptions SessionState::MakeExecOptions() const {
  exec::ExecOptions o;
  o.shuffle_partitions = conf.shuffle_partitions();
  o.auto_broadcast_threshold = ByteSizeConf(
      conf.GetOr("spark.sql.autoBroadcastJoinThreshold", ""), 10 * 1024 * 1024);
  o.pool = &ThreadPool::Default();
  // spark.default.parallelism caps the threads a query uses (default: all cores).
  o.parallelism = std::max(
      1, std::min(o.pool->num_threads(),
                  std::atoi(conf.GetOr("spark.default.parallelism", "2").c_str())));
  o.eval.ansi = conf.ansi();
  o.eval.time_zone_id = conf.session_time_zone();
  o.eval.time_zone = TimeZone::Lookup(o.eval.time_zone_id);
  o.eval.query_start_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  o.memory = std::make_shared<MemoryTracker>("query", memory);
  return o;
}

Result<sql::BoundPlanPtr> SessionState::Analyze(const sql::PlanPtr& plan) const {
  sql::Analyzer analyzer(catalog, conf);
  return analyzer.Analyze(plan);
}

Result<std::vector<BatchPtr>> SessionState::Execute(const sql::BoundPlanPtr& plan) const {
  return exec::Collect(plan, MakeExecOptions());
}

Result<std::string> SessionState::Explain(const sql::PlanPtr& plan,
                                          const std::string& mode) const {
  SPATE_ASSIGN_OR_RETURN(auto bound, Analyze(plan));
  SPATE_ASSIGN_OR_RETURN(auto physical,
                         exec::CreatePhysicalPlan(bound, MakeExecOptions()));
  std::string physical_text = exec::ExplainString(*physical);
  if (mode == "extended") {
    return "== Parsed Logical Plan ==\n" + plan->TreeString() +
           "\n== Analyzed Logical Plan ==\n" + bound->TreeString() +
           "\n== Optimized Logical Plan ==\n" + bound->TreeString() +
           "\n== Physical Plan ==\n" + physical_text;
  }
  return "== Physical Plan ==\n" + physical_text;
}

// ---- helpers
// -------------------------------------------------------------------------------

namespace {

// Schema strings of from_json: a type ("ARRAY<INT>", "STRUCT<a: INT>") or a DDL column
// list
// ("a INT, b STRING"), as Spark's DataType.fromDDL tries them.
Result<DataTypePtr> ParseSchemaString(std::string_view text) {
  auto type = sql::ParseDataType(text);
  if (type.ok()) return type;
  auto schema = sql::ParseDdlSchema(text);
  if (schema.ok()) return (*schema)->AsStruct();
  return schema.status();
}

// Functions implemented above compute (formats/json) join the registry once, before the
// first session exists (see docs/architecture.md).
void InstallFormatFunctions() {
  static std::once_flag once;
  std::call_once(once, [] {
    formats::json::RegisterJsonFunctions(FunctionRegistry::Global(), &ParseSchemaString);
    formats::csv::RegisterCsvFunctions(FunctionRegistry::Global(), &ParseSchemaString);
  });
}

std::mutex g_active_mu;
std::shared_ptr<SessionState> g_active;

}  // namespace

sql::PlanPtr LocalPlan(SchemaPtr schema, std::vector<BatchPtr> batches) {
  auto p = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kLocalRelation);
  p->schema = std::move(schema);
  p->batches = std::move(batches);
  return p;
}

// A LocalRelation of string columns.
sql::PlanPtr StringRows(
    const std::vector<std::string>& names,
    const std::vector<std::vector<std::optional<std::string>>>& rows) {
  std::vector<Field> fields;
  for (const auto& n : names) fields.push_back(Field{n, DataType::String(), true});
  auto schema = std::make_shared<const Schema>(fields);
  std::vector<ColumnPtr> cols;
  for (size_t c = 0; c < names.size(); ++c) {
    StringBuilder b;
    for (const auto& r : rows) {
      if (r[c]) {
        b.Append(*r[c]);
      } else {
        b.AppendNull();
      }
    }
    cols.push_back(b.Finish());
  }
  return LocalPlan(schema,
                   {Batch::Make(schema, cols, static_cast<int64_t>(rows.size()))});
}

sql::PlanPtr EmptyResult() { return LocalPlan(std::make_shared<const Schema>(), {}); }

// ---- RuntimeConfig
// -------------------------------------------------------------------------

void RuntimeConfig::set(const std::string& key, const std::string& value) {
  CheckOrThrow(state_->conf.Set(key, value));
}
std::string RuntimeConfig::get(const std::string& key) const {
  auto v = state_->conf.Get(key);
  if (!v)
    ThrowStatus(Status::Error("SQL_CONF_NOT_FOUND", {{"sqlConf", "\"" + key + "\""}}));
  return *v;
}
std::string RuntimeConfig::get(const std::string& key,
                               const std::string& default_value) const {
  return state_->conf.GetOr(key, default_value);
}
void RuntimeConfig::unset(const std::string& key) { state_->conf.Unset(key); }
bool RuntimeConfig::isModifiable(const std::string& key) const {
  return key.rfind("spark.sql.", 0) == 0;
}

// ---- SparkSession
// ----------------------------------------------------------------------------

SparkSession::Builder SparkSession::builder() { return Builder(); }

SparkSession::Builder& SparkSession::Builder::appName(const std::string& name) {
  options_["spark.app.name"] = name;
  return *this;
}
SparkSession::Builder& SparkSession::Builder::master(const std::string& m) {
  options_["spark.master"] = m;
  return *this;
}
SparkSession::Builder& SparkSession::Builder::config(const std::string& k,
                                                     const std::string& v) {
  options_[k] = v;
  return *this;
}
SparkSession::Builder& SparkSession::Builder::config(const std::string& k, bool v) {
  return config(k, std::string(v ? "true" : "false"));
}
SparkSession::Builder& SparkSession::Builder::config(const std::string& k, int64_t v) {
  return config(k, std::to_string(v));
}

SparkSession SparkSession::Builder::getOrCreate() {
  // The engine starts: glibc's thresholds for a long-running process (once).
  ApplyMallocPolicy();
  InstallFormatFunctions();
  std::lock_guard<std::mutex> lock(g_active_mu);
  if (!g_active) g_active = NewSessionState();
  for (const auto& [k, v] : options_) {
    if (k == "spark.app.name") g_active->app_name = v;
    CheckOrThrow(g_active->conf.Set(k, v));
  }
  StartMonitoringIfEnabled(g_active);
  return SparkSession(g_active);
}

std::optional<std::string> SparkSession::uiWebUrl() const { return MonitoringUrl(); }

void SparkSession::stop() const {
  for (const auto& q : StreamsOf(state_)->Active()) q->Stop();
  StopMonitoring();
}

SparkSession SparkSession::newSession() const {
  InstallFormatFunctions();
  return SparkSession(NewSessionState());
}

const std::string& SparkSession::version() const {
  static const std::string v = "0.1.0";
  return v;
}

DataFrame SparkSession::range(int64_t end) const { return range(0, end, 1, 0); }

DataFrame SparkSession::range(int64_t start, int64_t end, int64_t step,
                              int num_partitions) const {
  auto p = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kTableFunction);
  p->table_name = {"range"};
  p->exprs = {Expr::Lit(Value::Long(start)), Expr::Lit(Value::Long(end)),
              Expr::Lit(Value::Long(step))};
  if (num_partitions > 0) p->exprs.push_back(Expr::Lit(Value::Long(num_partitions)));
  return DataFrame(state_, p);
}

DataFrame SparkSession::createDataFrame(const std::vector<std::vector<Value>>& rows,
                                        const StructType& schema) const {
  SchemaPtr s = schema.ToSchema();
  EvalContext ctx;
  ctx.ansi = state_->conf.ansi();
  std::vector<ColumnPtr> cols;
  for (int c = 0; c < s->num_fields(); ++c) {
    const Field& f = s->field(c);
    std::vector<Value> vals;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (rows[r].size() != static_cast<size_t>(s->num_fields())) {
        ThrowStatus(Status::Invalid("Length mismatch: Expected axis has " +
                                    std::to_string(s->num_fields()) +
                                    " elements, new values have " +
                                    std::to_string(rows[r].size()) + " elements"));
      }
      const Value& v = rows[r][c];
      if (v.is_null()) {
        if (!f.nullable) {
          ThrowStatus(Status::Invalid("field " + f.name +
                                      ": This field is not nullable, but got None"));
        }
        vals.push_back(Value::Null(f.type));
      } else if (v.type()->Equals(*f.type)) {
        vals.push_back(v);
      } else {
        vals.push_back(ValueOrThrow(CastValue(v, f.type, CastMode::kAnsi, ctx)));
      }
    }
    cols.push_back(ColumnFromValues(f.type, vals));
  }
  return DataFrame(
      state_, LocalPlan(s, {Batch::Make(s, cols, static_cast<int64_t>(rows.size()))}));
}

DataFrame SparkSession::createDataFrame(const std::vector<std::vector<Value>>& rows,
                                        const std::string& ddl) const {
  return createDataFrame(rows, StructType::fromDDL(ddl));
}

DataFrame SparkSession::createDataFrame(const std::vector<Row>& rows,
                                        const StructType& schema) const {
  std::vector<std::vector<Value>> vals;
  for (const auto& r : rows) vals.push_back(r.values());
  return createDataFrame(vals, schema);
}

DataFrame SparkSession::createDataFrame(const std::vector<std::vector<Value>>& rows,
                                        const std::vector<std::string>& names) const {
  StructType st;
  for (size_t c = 0; c < names.size(); ++c) {
    DataTypePtr t = DataType::Null();
    for (const auto& r : rows) {
      if (c < r.size() && !r[c].is_null()) {
        t = r[c].type();
        break;
      }
    }
    st.add(names[c], t, true);
  }
  return createDataFrame(rows, st);
}

DataFrameReader SparkSession::read() const { return DataFrameReader(state_); }

DataFrame SparkSession::table(const std::string& name) const {
  auto p = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kUnresolvedRelation);
  p->table_name = ValueOrThrow(sql::ParseMultipartIdentifier(name));
  return DataFrame(state_, p);
}

DataFrame SparkSession::sql(const std::string& query) const {
  sql::Statement st = ValueOrThrow(sql::ParseStatement(query));
  SessionState& s = *state_;
  using K = sql::Statement::Kind;
  if (std::optional<DataFrame> out = RunCatalogStatement(state_, st)) return *out;
  switch (st.kind) {
    case K::kQuery:
      return DataFrame(state_, st.plan);
    case K::kSetConf: {
      if (st.key.empty()) {
        std::vector<std::vector<std::optional<std::string>>> rows;
        // Secrets are shown redacted, as Spark's SET redacts by spark.redaction.regex.
        for (const auto& [k, v] : s.conf.SetEntries())
          rows.push_back({k, RedactValue(k, v)});
        return DataFrame(state_, StringRows({"key", "value"}, rows));
      }
      if (st.key == "-v") {
        std::vector<std::vector<std::optional<std::string>>> rows;
        for (const auto& e : sql::SqlConf::KnownEntries()) {
          rows.push_back(
              {e.key, s.conf.GetOr(e.key, e.default_value), e.doc, std::nullopt});
        }
        return DataFrame(state_,
                         StringRows({"key", "value", "meaning", "Since version"}, rows));
      }
      if (!st.value) {
        auto v = s.conf.Get(st.key);
        return DataFrame(
            state_, StringRows({"key", "value"},
                               {{st.key, v ? RedactValue(st.key, *v) : "<undefined>"}}));
      }
      CheckOrThrow(s.conf.Set(st.key, *st.value));
      return DataFrame(state_, StringRows({"key", "value"},
                                          {{st.key, RedactValue(st.key, *st.value)}}));
    }
    case K::kResetConf:
      if (st.key.empty()) {
        s.conf.Clear();
      } else {
        s.conf.Unset(st.key);
      }
      return DataFrame(state_, EmptyResult());
    case K::kCreateView: {
      sql::BoundPlanPtr bound = ValueOrThrow(s.Analyze(st.plan));
      if (!st.column_names.empty()) {
        if (st.column_names.size() != bound->output.size()) {
          ThrowStatus(
              Status::Error("CREATE_VIEW_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS",
                            {{"viewName", sql::QuoteIdentifier(st.name)},
                             {"viewColumns", std::to_string(st.column_names.size())},
                             {"dataColumns", std::to_string(bound->output.size())}}));
        }
        auto renamed = std::make_shared<sql::BoundPlan>(*bound);
        for (size_t i = 0; i < st.column_names.size(); ++i)
          renamed->output[i].name = st.column_names[i];
        bound = renamed;
      }
      if (st.if_exists && !st.replace && s.catalog.LookupView(st.name)) {
        return DataFrame(state_, EmptyResult());  // CREATE VIEW IF NOT EXISTS
      }
      CheckOrThrow(
          s.catalog.CreateTempView(st.name.back(), bound, st.replace, st.global));
      return DataFrame(state_, EmptyResult());
    }
    case K::kDropView:
      if (!s.catalog.DropTempView(st.name) && !st.if_exists) {
        ThrowStatus(Status::Error("TABLE_OR_VIEW_NOT_FOUND",
                                  {{"relationName", sql::QuoteIdentifier(st.name)}}));
      }
      return DataFrame(state_, EmptyResult());
    case K::kDescribe: {
      sql::PlanPtr target = st.plan;
      if (!target) {
        auto rel = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kUnresolvedRelation);
        rel->table_name = st.name;
        target = rel;
      }
      sql::BoundPlanPtr bound = ValueOrThrow(s.Analyze(target));
      std::vector<std::vector<std::optional<std::string>>> rows;
      for (const auto& a : bound->output)
        rows.push_back({a.name, a.type->SimpleString(), std::nullopt});
      return DataFrame(state_, StringRows({"col_name", "data_type", "comment"}, rows));
    }
    case K::kExplain: {
      const sql::Statement& inner = *st.inner;
      std::string text;
      if (inner.kind != K::kQuery) {
        text = "== Physical Plan ==\nExecutedCommand\n";
      } else {
        std::string mode = st.explain_mode.empty() ? "simple" : ToLower(st.explain_mode);
        text = ValueOrThrow(s.Explain(inner.plan, mode));
      }
      return DataFrame(state_, StringRows({"plan"}, {{text}}));
    }
    case K::kShowFunctions: {
      std::vector<std::vector<std::optional<std::string>>> rows;
      // Internal calls ("__spate_...") are not listed.
      for (const auto& n : FunctionRegistry::Global().Names()) {
        if (n.rfind("__", 0) != 0) rows.push_back({n});
      }
      return DataFrame(state_, StringRows({"function"}, rows));
    }
    default:
      break;
  }
  ThrowStatus(Status::Internal("unsupported statement"));
}

}  // namespace spate::api
