// Copyright spate authors.
//
// The SQL statements on schemas and tables (CREATE/DROP SCHEMA, SHOW SCHEMAS, USE, SHOW
// TABLES, DROP TABLE, CREATE TABLE, INSERT, DESCRIBE HISTORY): how SparkSession::sql runs
// them against the warehouse catalog (table/warehouse.h) and Delta tables.

#include <filesystem>
#include <regex>

#include "spate/api/dataframe.h"
#include "spate/api/exceptions.h"
#include "spate/api/session_state.h"
#include "spate/columnar/builder.h"

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
    std::string alt = p.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
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
          ThrowStatus(Status::Error("SCHEMA_NOT_FOUND",
                                    {{"schemaName", "`spark_catalog`.`" + schema + "`"}}));
        }
        for (const auto& t : ValueOrThrow(wh.ListTables(schema))) {
          if (MatchesPattern(t, st.value)) rows.push_back({schema, t, "false"});
        }
      }
      for (const auto& n : s.catalog.TempViewNames()) {
        if (MatchesPattern(n, st.value)) rows.push_back({"", n, "true"});
      }
      // isTemporary is a boolean column in Spark.
      auto df = DataFrame(state, StringRows({"namespace", "tableName", "isTemporary"}, rows));
      return df.select(functions::col("namespace"), functions::col("tableName"),
                       functions::col("isTemporary").cast(DataType::Boolean()).alias("isTemporary"));
    }
    case K::kDropTable: {
      table::Warehouse& wh = s.warehouse();
      // DROP TABLE also drops a temp view of that name, as Spark does.
      if (st.name.size() == 1 && s.catalog.DropTempView(st.name)) return Empty(state);
      table::TableIdentifier id = ValueOrThrow(wh.QualifyTable(st.name, s.catalog.current_database()));
      bool dropped = ValueOrThrow(wh.DropTable(id));
      if (!dropped && !st.if_exists) {
        ThrowStatus(Status::Error("TABLE_OR_VIEW_NOT_FOUND", {{"relationName", id.Quoted()}}));
      }
      return Empty(state);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace spate::api
