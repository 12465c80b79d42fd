// Copyright spate authors.
//
// The SQL statements on schemas and tables (CREATE/DROP SCHEMA, SHOW SCHEMAS, USE, SHOW
// TABLES, DROP TABLE, CREATE TABLE, INSERT, DESCRIBE HISTORY): how SparkSession::sql runs
// them against the warehouse catalog (table/warehouse.h) and Delta tables.

#include <filesystem>
#include <map>
#include <regex>

#include "spate/api/dataframe.h"
#include "spate/api/delta_dml.h"
#include "spate/api/delta_merge.h"
#include "spate/api/delta_table.h"
#include "spate/api/exceptions.h"
#include "spate/api/session_state.h"
#include "spate/base/json.h"
#include "spate/columnar/builder.h"
#include "spate/compute/cast.h"
#include "spate/exec/physical_plan.h"
#include "spate/sql/parser.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_source.h"
#include "spate/table/delta_writer.h"
#include "spate/table/transaction.h"

namespace spate::api {

namespace {

std::string LowerAscii(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// Spark's StringUtils.filterPattern: alternatives separated by '|', '*' matches any
// characters, compared case-insensitively.
bool MatchesPattern(const std::string& name, const std::optional<std::string>& pattern) {
  if (!pattern) return true;
  std::string p = *pattern;
  size_t start = 0;
  while (start <= p.size()) {
    size_t bar = p.find('|', start);
    std::string alt =
        p.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    while (!alt.empty() && alt.front() == ' ') alt.erase(alt.begin());
    while (!alt.empty() && alt.back() == ' ') alt.pop_back();
    std::string re;
    for (char c : alt) {
      if (c == '*') {
        re += ".*";
      } else if (std::string("\\^$.|?+()[]{}").find(c) != std::string::npos) {
        re += '\\';
        re += c;
      } else {
        re += c;
      }
    }
    if (std::regex_match(name, std::regex(re, std::regex::icase))) return true;
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return false;
}

DataFrame Empty(const std::shared_ptr<SessionState>& state) {
  return DataFrame(state, EmptyResult());
}

std::string JsonString(const std::string& s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

// ["a","b"] as Delta writes partitionBy in operationParameters.
std::string JsonStringArray(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + JsonString(v[i]);
  return out + "]";
}

std::string JsonStringMap(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string out = "{";
  for (size_t i = 0; i < kv.size(); ++i) {
    out += (i ? "," : "") + JsonString(kv[i].first) + ":" + JsonString(kv[i].second);
  }
  return out + "}";
}

// The Delta table a statement names: a warehouse table, or delta.`/path`.
struct TableRef {
  std::optional<table::TableIdentifier> id;  // absent for delta.`path`
  std::string path;                          // "" when the table does not exist yet
  bool exists = false;
  bool managed = true;
  std::string Quoted() const { return id ? id->Quoted() : "`delta`.`" + path + "`"; }
};

bool IsDeltaPathName(const std::vector<std::string>& name) {
  return name.size() == 2 && LowerAscii(name[0]) == "delta" && !name[1].empty() &&
         name[1].find('/') != std::string::npos;
}

TableRef ResolveTableRef(SessionState& s, const std::vector<std::string>& name) {
  TableRef ref;
  if (IsDeltaPathName(name)) {
    ref.path = name[1];
    ref.managed = false;
    table::DeltaLog log(io::LocalFileSystem::Get(), ref.path);
    ref.exists = ValueOrThrow(log.TableExists());
    return ref;
  }
  table::Warehouse& wh = s.warehouse();
  ref.id = ValueOrThrow(wh.QualifyTable(name, s.catalog.current_database()));
  std::optional<table::TableLocation> loc = ValueOrThrow(wh.LookupTable(*ref.id));
  if (loc) {
    ref.path = loc->path;
    ref.managed = loc->managed;
    ref.exists = true;
  }
  return ref;
}

void CheckProvider(const std::string& provider) {
  std::string p = LowerAscii(provider);
  if (!p.empty() && p != "delta") {
    ThrowStatus(Status::Error(
        "SPATE_UNSUPPORTED_FEATURE",
        {{"msg", "spate's catalog keeps Delta tables only: USING " + provider +
                     " is not supported (write files with df.write.format(\"" + p +
                     "\") or query them as " + p + ".`path`)"}}));
  }
}

std::vector<ColumnPtr> EmptyColumns(const Schema& schema) {
  std::vector<ColumnPtr> cols;
  for (const auto& f : schema.fields())
    cols.push_back(MakeConstantColumn(Value::Null(f.type), 0));
  return cols;
}

// CREATE [OR REPLACE] TABLE / REPLACE TABLE, with a column list or AS query.
DataFrame CreateTable(const std::shared_ptr<SessionState>& state,
                      const sql::Statement& st) {
  SessionState& s = *state;
  CheckProvider(st.provider);
  TableRef ref = ResolveTableRef(s, st.name);
  if (ref.exists && !st.replace) {
    if (st.if_not_exists) return Empty(state);
    ThrowStatus(
        Status::Error("TABLE_OR_VIEW_ALREADY_EXISTS", {{"relationName", ref.Quoted()}}));
  }
  if (!ref.exists && !st.create) {
    ThrowStatus(
        Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", ref.Quoted()}}));
  }
  if (st.location && ref.id && ref.exists && ref.path != *st.location) {
    ThrowStatus(
        Status::Invalid("table " + ref.Quoted() + " already exists at " + ref.path));
  }
  // The data: the query, or no rows of the declared columns.
  std::optional<DataFrame> data;
  if (st.plan) {
    if (st.table_schema) {
      ThrowStatus(
          Status::Invalid("Operation not allowed: Schema may not be specified in a "
                          "Create Table As Select "
                          "(CTAS) statement."));
    }
    data = DataFrame(state, st.plan);
  } else if (st.table_schema) {
    data = DataFrame(state, LocalPlan(st.table_schema, {}));
  }
  // An external table over an existing Delta table: register it (its log decides the
  // schema).
  if (!ref.exists && ref.id && st.location && !st.plan) {
    table::DeltaLog existing(io::LocalFileSystem::Get(), *st.location);
    if (ValueOrThrow(existing.TableExists())) {
      ValueOrThrow(s.warehouse().PrepareTable(*ref.id, st.location));
      return Empty(state);
    }
  }
  if (!data) {
    ThrowStatus(
        Status::Invalid("CREATE TABLE " + ref.Quoted() +
                        " needs a column list or an AS query (or a LOCATION holding a "
                        "Delta table)."));
  }
  if (!ref.exists) {
    if (ref.id) {
      table::TableLocation loc =
          ValueOrThrow(s.warehouse().PrepareTable(*ref.id, st.location));
      ref.path = loc.path;
      ref.managed = loc.managed;
    }
  }
  std::string operation = st.plan ? "CREATE TABLE AS SELECT" : "CREATE TABLE";
  if (st.replace) {
    operation = std::string(st.create ? "CREATE OR REPLACE TABLE" : "REPLACE TABLE") +
                (st.plan ? " AS SELECT" : "");
  }
  table::DeltaWriteOptions o =
      SessionDeltaWriteOptions(s, ref.exists ? "overwrite" : "errorifexists");
  if (ref.exists) o.options["overwriteSchema"] = "true";
  o.partition_by = st.partition_columns;
  for (const auto& [k, v] : st.properties) o.table_properties[k] = v;
  o.operation = operation;
  o.operation_parameters["isManaged"] = ref.managed && ref.id ? "true" : "false";
  if (st.comment) o.operation_parameters["description"] = *st.comment;
  o.operation_parameters["partitionBy"] = JsonStringArray(st.partition_columns);
  o.operation_parameters["properties"] = JsonStringMap(st.properties);
  try {
    if (st.plan) {
      WriteDeltaFrame(*data, ref.path, o);
    } else {
      // No rows: the declared schema as written (column comments and nullability kept).
      BatchPtr empty = Batch::Make(st.table_schema, EmptyColumns(*st.table_schema), 0);
      o.keep_nullability = true;
      ValueOrThrow(table::WriteBatches(io::LocalFileSystem::Get(), ref.path, {empty}, o));
    }
  } catch (...) {
    // A managed table that never committed leaves no folder behind.
    if (!ref.exists && ref.id) (void)s.warehouse().DropTable(*ref.id);
    if (!ref.exists && ref.id && ref.managed) {
      (void)io::LocalFileSystem::Get()->Delete(ref.path, true);
    }
    throw;
  }
  return Empty(state);
}

TableRef ExistingTable(SessionState& s, const std::vector<std::string>& name) {
  TableRef ref = ResolveTableRef(s, name);
  if (!ref.exists) {
    ThrowStatus(
        Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", ref.Quoted()}}));
  }
  return ref;
}

// ALTER TABLE t SET | UNSET TBLPROPERTIES: a commit of the table's metadata with its
// configuration changed (and the protocol features a property needs), as Delta writes it.
// Unsetting a property the table does not have is not an error (Delta 4.4 ignores it).
DataFrame AlterTableProperties(const std::shared_ptr<SessionState>& state,
                               const sql::Statement& st) {
  TableRef ref = ExistingTable(*state, st.name);
  auto log = table::DeltaLog::ForTable(io::LocalFileSystem::Get(), ref.path);
  table::SnapshotPtr snapshot = ValueOrThrow(log->Latest());
  table::Metadata meta = snapshot->metadata();
  table::CommitInfo info;
  const bool set = st.kind == sql::Statement::Kind::kAlterTableSetProperties;
  if (set) {
    for (const auto& [k, v] : st.properties) meta.configuration[k] = v;
    info.operation = "SET TBLPROPERTIES";
    info.operation_parameters["properties"] = JsonStringMap(st.properties);
  } else {
    std::vector<std::string> keys;
    for (const auto& [k, v] : st.properties) {
      meta.configuration.erase(k);
      keys.push_back(k);
    }
    info.operation = "UNSET TBLPROPERTIES";
    info.operation_parameters["properties"] = JsonStringArray(keys);
    // delta-spark 4.4 writes ifExists as a JSON boolean, true with or without IF EXISTS.
    info.operation_parameters["ifExists"] = "true";
    info.boolean_parameters.insert("ifExists");
  }
  table::OptimisticTransaction txn(log, snapshot);
  table::Protocol protocol = snapshot->protocol();
  if (Status st = table::AddPropertyFeatures(&meta, &protocol); !st.ok()) ThrowStatus(st);
  txn.UpdateMetadata(meta);
  if (!(protocol == snapshot->protocol())) txn.UpdateProtocol(protocol);
  ValueOrThrow(txn.Commit({}, info));
  return Empty(state);
}

// SHOW TBLPROPERTIES t [(key)]: the table's configuration and protocol versions, sorted
// by key, as delta-spark shows them.
DataFrame ShowTableProperties(const std::shared_ptr<SessionState>& state,
                              const sql::Statement& st) {
  TableRef ref = ExistingTable(*state, st.name);
  auto log = table::DeltaLog::ForTable(io::LocalFileSystem::Get(), ref.path);
  table::SnapshotPtr snapshot = ValueOrThrow(log->Latest());
  std::map<std::string, std::string> props(snapshot->metadata().configuration.begin(),
                                           snapshot->metadata().configuration.end());
  const table::Protocol& protocol = snapshot->protocol();
  props["delta.minReaderVersion"] = std::to_string(protocol.min_reader_version);
  props["delta.minWriterVersion"] = std::to_string(protocol.min_writer_version);
  // A table-features protocol shows each of its features as delta-spark does.
  for (const auto* features : {&protocol.reader_features, &protocol.writer_features}) {
    if (*features)
      for (const auto& f : **features) props["delta.feature." + f] = "supported";
  }
  std::vector<std::pair<std::string, std::string>> rows;
  if (st.value) {
    auto it = props.find(*st.value);
    const std::string table = ref.id ? "spark_catalog." + ref.id->Unquoted()
                                     : "spark_catalog.delta.`" + ref.path + "`";
    rows.emplace_back(*st.value,
                      it != props.end()
                          ? it->second
                          : "Table " + table + " does not have property: " + *st.value);
  } else {
    rows.assign(props.begin(), props.end());
  }
  // Spark's columns are not nullable.
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field{"key", DataType::String(), false},
                         Field{"value", DataType::String(), false}});
  StringBuilder keys, values;
  for (const auto& [k, v] : rows) {
    keys.Append(k);
    values.Append(v);
  }
  return DataFrame(
      state, LocalPlan(schema, {Batch::Make(schema, {keys.Finish(), values.Finish()},
                                            static_cast<int64_t>(rows.size()))}));
}

// INSERT INTO / OVERWRITE: by position (or by the column list), cast to the table's
// types.
void InsertInto(const std::shared_ptr<SessionState>& state,
                const std::vector<std::string>& name, const DataFrame& query,
                const std::vector<std::string>& insert_columns, bool overwrite) {
  SessionState& s = *state;
  TableRef ref = ResolveTableRef(s, name);
  if (!ref.exists) {
    ThrowStatus(
        Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", ref.Quoted()}}));
  }
  // The process's log of the table: the insert's read and write reuse its snapshot.
  auto log = table::DeltaLog::ForTable(io::LocalFileSystem::Get(), ref.path);
  table::SnapshotPtr snapshot = ValueOrThrow(log->Latest());
  const SchemaPtr& target = snapshot->schema();
  SchemaPtr source = query.analyzed()->OutputSchema();
  std::vector<int> order;  // target column i <- query column order[i] (-1: NULL)
  if (insert_columns.empty()) {
    if (source->num_fields() != target->num_fields()) {
      std::string table_cols, data_cols;
      for (const auto& f : target->fields())
        table_cols += (table_cols.empty() ? "`" : ", `") + f.name + "`";
      for (const auto& f : source->fields())
        data_cols += (data_cols.empty() ? "`" : ", `") + f.name + "`";
      ThrowStatus(
          Status::Error(source->num_fields() < target->num_fields()
                            ? "INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS"
                            : "INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS",
                        {{"tableName", ref.Quoted()},
                         {"tableColumns", table_cols},
                         {"dataColumns", data_cols}}));
    }
    for (int i = 0; i < target->num_fields(); ++i) order.push_back(i);
  } else {
    if (static_cast<int>(insert_columns.size()) != source->num_fields()) {
      ThrowStatus(Status::Error("INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS",
                                {{"tableName", ref.Quoted()},
                                 {"tableColumns", std::to_string(insert_columns.size())},
                                 {"dataColumns", std::to_string(source->num_fields())}}));
    }
    order.assign(static_cast<size_t>(target->num_fields()), -1);
    for (size_t k = 0; k < insert_columns.size(); ++k) {
      int idx = -1;
      for (int i = 0; i < target->num_fields(); ++i) {
        if (LowerAscii(target->field(i).name) == LowerAscii(insert_columns[k])) idx = i;
      }
      if (idx < 0) {
        ThrowStatus(Status::Error(
            "UNRESOLVED_COLUMN.WITH_SUGGESTION",
            {{"objectName", "`" + insert_columns[k] + "`"}, {"proposal", ""}}));
      }
      order[static_cast<size_t>(idx)] = static_cast<int>(k);
    }
  }
  std::vector<Column> cols;
  std::vector<std::string> names = query.columns();
  for (int i = 0; i < target->num_fields(); ++i) {
    const Field& f = target->field(i);
    Column c = order[static_cast<size_t>(i)] < 0
                   ? functions::lit(Value::Null(f.type))
                   : query[names[static_cast<size_t>(order[static_cast<size_t>(i)])]];
    cols.push_back(c.cast(f.type).alias(f.name));
  }
  DataFrame data = query.select(cols);
  table::DeltaWriteOptions o =
      SessionDeltaWriteOptions(s, overwrite ? "overwrite" : "append");
  o.partition_by = snapshot->metadata().partition_columns;
  WriteDeltaFrame(data, ref.path, o);
}

DataFrame Insert(const std::shared_ptr<SessionState>& state, const sql::Statement& st) {
  DataFrame query(state, st.plan);
  // BY NAME: the query's columns go to the table's columns of the same names.
  InsertInto(state, st.name, query, st.by_name ? query.columns() : st.insert_columns,
             st.overwrite);
  return Empty(state);
}

// DESCRIBE [EXTENDED] of a Delta table, as Spark's DescribeTableExec prints a v2 table:
// the columns, "# Partitioning" when partitioned, and with EXTENDED "# Detailed Table
// Information" (Name, Type, Comment, Location, Provider, Table Properties).
DataFrame DescribeTable(const std::shared_ptr<SessionState>& state, const TableRef& ref,
                        bool extended) {
  table::DeltaLog log(io::LocalFileSystem::Get(), ref.path);
  table::SnapshotPtr snap = ValueOrThrow(log.Latest());
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& f : snap->schema()->fields()) {
    rows.push_back(
        {f.name, f.type->SimpleString(),
         f.comment.empty() ? std::nullopt : std::optional<std::string>(f.comment)});
  }
  const auto& parts = snap->metadata().partition_columns;
  if (!parts.empty()) {
    rows.push_back({"", "", ""});
    rows.push_back({"# Partitioning", "", ""});
    for (size_t i = 0; i < parts.size(); ++i) {
      rows.push_back({"Part " + std::to_string(i), parts[i], ""});
    }
  }
  if (extended) {
    rows.push_back({"", "", ""});
    rows.push_back({"# Detailed Table Information", "", ""});
    rows.push_back(
        {"Name", ref.id ? ref.id->Unquoted() : "delta.`" + ref.path + "`", ""});
    rows.push_back({"Type", ref.managed && ref.id ? "MANAGED" : "EXTERNAL", ""});
    if (snap->metadata().description)
      rows.push_back({"Comment", *snap->metadata().description, ""});
    rows.push_back({"Location", "file:" + ref.path, ""});
    rows.push_back({"Provider", "delta", ""});
    std::map<std::string, std::string> props = snap->metadata().configuration;
    props["delta.minReaderVersion"] = std::to_string(snap->protocol().min_reader_version);
    props["delta.minWriterVersion"] = std::to_string(snap->protocol().min_writer_version);
    std::string text = "[";
    for (const auto& [k, v] : props) text += (text.size() > 1 ? "," : "") + k + "=" + v;
    rows.push_back({"Table Properties", text + "]", ""});
  }
  return DataFrame(state, StringRows({"col_name", "data_type", "comment"}, rows));
}
}  // namespace

table::Warehouse& SessionState::warehouse() {
  std::lock_guard<std::mutex> lock(warehouse_mu_);
  if (!warehouse_) {
    std::string dir = conf.GetOr("spark.sql.warehouse.dir", "spate-warehouse");
    if (dir.rfind("file:", 0) == 0) dir = dir.substr(5);
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(dir, ec);
    if (!ec) dir = abs.lexically_normal().string();
    warehouse_ = std::make_unique<table::Warehouse>(io::LocalFileSystem::Get(), dir);
  }
  return *warehouse_;
}

void SaveAsTable(const DataFrame& df, const std::string& name, const std::string& mode,
                 const std::string& format, const std::vector<std::string>& partition_by,
                 const std::map<std::string, std::string>& options) {
  const std::shared_ptr<SessionState>& state = df.session();
  SessionState& s = *state;
  CheckProvider(format);
  std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(name));
  TableRef ref = ResolveTableRef(s, parts);
  std::string m = LowerAscii(mode);
  if (m == "error" || m == "default" || m.empty()) m = "errorifexists";
  if (ref.exists) {
    if (m == "ignore") return;
    if (m == "errorifexists") {
      ThrowStatus(Status::Error("TABLE_OR_VIEW_ALREADY_EXISTS",
                                {{"relationName", ref.Quoted()}}));
    }
  } else if (ref.id) {
    std::optional<std::string> location;
    for (const auto& [k, v] : options) {
      if (LowerAscii(k) == "path") location = v;
    }
    table::TableLocation loc =
        ValueOrThrow(s.warehouse().PrepareTable(*ref.id, location));
    ref.path = loc.path;
    ref.managed = loc.managed;
  }
  table::DeltaWriteOptions o =
      SessionDeltaWriteOptions(s, ref.exists ? m : "errorifexists");
  o.partition_by = partition_by;
  for (const auto& [k, v] : options) {
    if (LowerAscii(k) != "path") o.options[k] = v;
  }
  // Delta records saveAsTable as the SQL it stands for.
  if (!ref.exists) {
    o.operation = "CREATE TABLE AS SELECT";
  } else if (m == "overwrite") {
    o.operation = "CREATE OR REPLACE TABLE AS SELECT";
    o.options["overwriteSchema"] = "true";
  }
  if (!o.operation.empty()) {
    o.operation_parameters["isManaged"] = ref.managed && ref.id ? "true" : "false";
    o.operation_parameters["partitionBy"] = JsonStringArray(partition_by);
    o.operation_parameters["properties"] = "{}";
  }
  try {
    WriteDeltaFrame(df, ref.path, o);
  } catch (...) {
    if (!ref.exists && ref.id) {
      (void)s.warehouse().DropTable(*ref.id);
      if (ref.managed) (void)io::LocalFileSystem::Get()->Delete(ref.path, true);
    }
    throw;
  }
}

void InsertIntoTable(const DataFrame& df, const std::string& name, bool overwrite) {
  std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(name));
  InsertInto(df.session(), parts, df, {}, overwrite);
}

std::string TablePath(const std::shared_ptr<SessionState>& state,
                      const std::string& name) {
  std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(name));
  TableRef ref = ResolveTableRef(*state, parts);
  if (!ref.exists) {
    ThrowStatus(
        Status::Error("DELTA_MISSING_DELTA_TABLE", {{"tableName", ref.Quoted()}}));
  }
  return ref.path;
}

Result<DataSourcePtr> ResolveCatalogTable(SessionState& s,
                                          const std::vector<std::string>& name,
                                          const sql::Catalog::TimeTravel& travel) {
  std::string path;
  if (IsDeltaPathName(name)) {
    path = name[1];
  } else {
    table::Warehouse& wh = s.warehouse();
    SPATE_ASSIGN_OR_RETURN(table::TableIdentifier id,
                           wh.QualifyTable(name, s.catalog.current_database()));
    Result<std::optional<table::TableLocation>> loc = wh.LookupTable(id);
    if (!loc.ok()) {
      if (loc.status().error_class() == "SCHEMA_NOT_FOUND") return DataSourcePtr();
      return loc.status();
    }
    if (!*loc) return DataSourcePtr();
    path = (*loc)->path;
  }
  auto fs = io::LocalFileSystem::Get();
  table::DeltaLog log(fs, path);
  SPATE_ASSIGN_OR_RETURN(bool exists, log.TableExists());
  if (!exists) return DataSourcePtr();
  table::TimeTravelSpec spec;
  spec.version = travel.version;
  if (travel.timestamp) {
    SPATE_ASSIGN_OR_RETURN(spec.timestamp_ms,
                           ParseTimeTravelTimestamp(s, *travel.timestamp));
  }
  SPATE_ASSIGN_OR_RETURN(
      auto source, table::OpenDeltaSource(fs, path, spec, s.conf.session_time_zone()));
  return DataSourcePtr(std::move(source));
}

std::optional<DataFrame> RunCatalogStatement(const std::shared_ptr<SessionState>& state,
                                             const sql::Statement& st) {
  using K = sql::Statement::Kind;
  SessionState& s = *state;
  switch (st.kind) {
    case K::kCreateSchema: {
      table::Warehouse& wh = s.warehouse();
      std::string schema = ValueOrThrow(wh.QualifySchema(st.name));
      CheckOrThrow(wh.CreateSchema(schema, st.if_not_exists, st.location));
      return Empty(state);
    }
    case K::kDropSchema: {
      table::Warehouse& wh = s.warehouse();
      std::string schema = ValueOrThrow(wh.QualifySchema(st.name));
      CheckOrThrow(wh.DropSchema(schema, st.if_exists, st.cascade));
      if (LowerAscii(s.catalog.current_database()) == schema) {
        s.catalog.SetCurrentDatabase(table::Warehouse::kDefaultSchema);
      }
      return Empty(state);
    }
    case K::kAlterTableSetProperties:
    case K::kAlterTableUnsetProperties:
      return AlterTableProperties(state, st);
    case K::kShowTblProperties:
      return ShowTableProperties(state, st);
    case K::kShowSchemas: {
      std::vector<std::vector<std::optional<std::string>>> rows;
      for (const auto& n : ValueOrThrow(s.warehouse().ListSchemas())) {
        if (MatchesPattern(n, st.value)) rows.push_back({n});
      }
      return DataFrame(state, StringRows({"namespace"}, rows));
    }
    case K::kUseDatabase: {
      table::Warehouse& wh = s.warehouse();
      std::string schema = ValueOrThrow(wh.QualifySchema(st.name));
      if (!ValueOrThrow(wh.SchemaExists(schema))) {
        ThrowStatus(Status::Error("SCHEMA_NOT_FOUND",
                                  {{"schemaName", "`spark_catalog`.`" + schema + "`"}}));
      }
      s.catalog.SetCurrentDatabase(schema);
      return Empty(state);
    }
    case K::kShowTables: {
      table::Warehouse& wh = s.warehouse();
      std::vector<std::vector<std::optional<std::string>>> rows;
      std::string schema = st.name.empty() ? s.catalog.current_database()
                                           : ValueOrThrow(wh.QualifySchema(st.name));
      if (st.key != "views") {
        if (!ValueOrThrow(wh.SchemaExists(schema))) {
          ThrowStatus(Status::Error(
              "SCHEMA_NOT_FOUND", {{"schemaName", "`spark_catalog`.`" + schema + "`"}}));
        }
        for (const auto& t : ValueOrThrow(wh.ListTables(schema))) {
          if (MatchesPattern(t, st.value)) rows.push_back({schema, t, "false"});
        }
      }
      for (const auto& n : s.catalog.TempViewNames()) {
        if (MatchesPattern(n, st.value)) rows.push_back({"", n, "true"});
      }
      // isTemporary is a boolean column in Spark.
      auto df =
          DataFrame(state, StringRows({"namespace", "tableName", "isTemporary"}, rows));
      return df.select(
          functions::col("namespace"), functions::col("tableName"),
          functions::col("isTemporary").cast(DataType::Boolean()).alias("isTemporary"));
    }
    case K::kDropTable: {
      table::Warehouse& wh = s.warehouse();
      // DROP TABLE also drops a temp view of that name, as Spark does.
      if (st.name.size() == 1 && s.catalog.DropTempView(st.name)) return Empty(state);
      table::TableIdentifier id =
          ValueOrThrow(wh.QualifyTable(st.name, s.catalog.current_database()));
      bool dropped = ValueOrThrow(wh.DropTable(id));
      if (!dropped && !st.if_exists) {
        ThrowStatus(
            Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", id.Quoted()}}));
      }
      return Empty(state);
    }
    case K::kDescribe: {
      // Tables (not views, not queries) get Spark's table description.
      if (st.name.empty() || (st.name.size() == 1 && s.catalog.LookupView(st.name))) {
        return std::nullopt;
      }
      if (st.name.size() == 2 && s.catalog.LookupView(st.name)) return std::nullopt;
      TableRef ref = ResolveTableRef(s, st.name);
      if (!ref.exists) return std::nullopt;
      return DescribeTable(state, ref, st.extended);
    }
    case K::kDescribeHistory: {
      TableRef ref = ResolveTableRef(s, st.name);
      if (!ref.exists) {
        ThrowStatus(
            Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", ref.Quoted()}}));
      }
      DeltaTable t = DeltaTable::forPath(SparkSession(state), ref.path);
      if (st.key == "detail") {
        DataFrame detail = t.detail();
        if (!ref.id) return detail;
        // A catalog table's detail carries its name.
        std::vector<Column> cols;
        for (const auto& c : detail.columns()) {
          cols.push_back(c == "name" ? functions::lit(ref.id->Unquoted()).alias("name")
                                     : detail[c]);
        }
        return detail.select(cols);
      }
      return t.history(st.limit ? static_cast<int>(*st.limit) : 0);
    }
    case K::kMerge: {
      const sql::MergeInto& m = *st.merge;
      TableRef ref = ResolveTableRef(s, m.target);
      if (!ref.exists) {
        ThrowStatus(
            Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", ref.Quoted()}}));
      }
      MergeSpec spec;
      spec.target_path = ref.path;
      spec.target_name = ref.Quoted();
      // Without an alias, columns are qualified by the table's name (delta.`path`: none).
      spec.target_alias = !m.target_alias.empty() ? m.target_alias
                          : ref.id                ? m.target.back()
                                                  : "";
      spec.source = m.source;
      spec.condition = m.condition;
      spec.clauses = m.clauses;
      spec.schema_evolution = m.with_schema_evolution;
      return ExecuteMerge(state, spec);
    }
    case K::kUpdate:
    case K::kDelete:
    case K::kRestore:
    case K::kOptimize:
    case K::kVacuum: {
      const sql::DeltaCommand& c = *st.delta;
      TableRef ref = ResolveTableRef(s, c.target);
      if (!ref.exists) {
        if (!ref.id) {
          ThrowStatus(Status::Error("DELTA_MISSING_DELTA_TABLE",
                                    {{"tableName", "`" + ref.path + "`"}}));
        }
        ThrowStatus(
            Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", ref.Quoted()}}));
      }
      DeltaDmlTarget target;
      target.path = ref.path;
      target.name = ref.Quoted();
      // Without an alias, columns may be qualified by the table's name.
      target.alias = !c.alias.empty() ? c.alias : ref.id ? c.target.back() : "";
      switch (st.kind) {
        case K::kUpdate:
          return ExecuteUpdate(state, target, c.assignments, c.condition);
        case K::kDelete:
          return ExecuteDelete(state, target, c.condition);
        case K::kRestore:
          return ExecuteRestore(state, target, c.version, c.timestamp);
        case K::kOptimize: {
          std::vector<std::string> z;
          for (const auto& parts : c.zorder_by) z.push_back(parts.back());
          return ExecuteOptimize(state, target, c.condition, z);
        }
        default:
          return ExecuteVacuum(state, target, c.retain_hours, c.dry_run);
      }
    }
    case K::kCreateTable:
      return CreateTable(state, st);
    case K::kInsert:
      return Insert(state, st);
    // Pipeline datasets and flows run in a pipeline (api/pipeline.h), as in Spark 4.2.
    case K::kCreateStreamingTable:
    case K::kCreateMaterializedView:
      ThrowStatus(Status::Error(
          "UNSUPPORTED_FEATURE.CREATE_PIPELINE_DATASET_QUERY_EXECUTION",
          {{"tableType", st.kind == K::kCreateStreamingTable ? "STREAMING TABLE"
                                                             : "MATERIALIZED VIEW"}}));
    case K::kCreateFlow:
      ThrowStatus(Status::Error("UNSUPPORTED_FEATURE.CREATE_FLOW_QUERY_EXECUTION", {}));
    default:
      return std::nullopt;
  }
}

}  // namespace spate::api
