// Copyright spate authors.
#pragma once

// Internal: the state one SparkSession shares with its DataFrames.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/memory.h"
#include "spate/exec/executor.h"
#include "spate/formats/file_index.h"
#include "spate/sql/analyzer.h"
#include "spate/sql/catalog.h"
#include "spate/sql/conf.h"
#include "spate/sql/logical_plan.h"
#include "spate/table/warehouse.h"

namespace spate::api {

struct SessionState {
  sql::SqlConf conf;
  sql::Catalog catalog;
  std::atomic<int64_t> next_dataframe_id{1};
  std::shared_ptr<MemoryTracker> memory = std::make_shared<MemoryTracker>("session");
  std::string app_name = "spate";

  /// Execution settings from the current conf.
  exec::ExecOptions MakeExecOptions() const;
  Result<sql::BoundPlanPtr> Analyze(const sql::PlanPtr& plan) const;
  Result<std::vector<BatchPtr>> Execute(const sql::BoundPlanPtr& plan) const;
  /// Physical plan text ("== Physical Plan ==\n...") or, for mode "extended", all stages.
  Result<std::string> Explain(const sql::PlanPtr& plan, const std::string& mode) const;

  /// The warehouse catalog at spark.sql.warehouse.dir (default ./spate-warehouse, made
  /// absolute), fixed on first use as Spark's static conf.
  table::Warehouse& warehouse();

 private:
  std::mutex warehouse_mu_;
  std::unique_ptr<table::Warehouse> warehouse_;
};

/// Spark's file-scan partitioning from the conf: spark.sql.files.maxPartitionBytes,
/// openCostInBytes, minPartitionNum (else spark.default.parallelism, else the
/// executor's).
formats::FilePacking FilePackingOf(const SessionState& s);

/// A LocalRelation over `batches`.
sql::PlanPtr LocalPlan(SchemaPtr schema, std::vector<BatchPtr> batches);
/// A LocalRelation of string columns (command output such as SHOW TABLES).
sql::PlanPtr StringRows(const std::vector<std::string>& names,
                        const std::vector<std::vector<std::optional<std::string>>>& rows);
/// The empty result of a command (no columns, no rows).
sql::PlanPtr EmptyResult();

class DataFrame;
/// Runs a statement on schemas or tables (catalog_commands.cc); nullopt when `st` is not
/// one. Throws the exceptions of exceptions.h.
std::optional<DataFrame> RunCatalogStatement(const std::shared_ptr<SessionState>& state,
                                             const sql::Statement& st);
/// DataFrameWriter.saveAsTable: creates (errorifexists, or any mode when absent), appends
/// to, replaces (overwrite) or leaves (ignore) a Delta table of the catalog.
void SaveAsTable(const DataFrame& df, const std::string& name, const std::string& mode,
                 const std::string& format, const std::vector<std::string>& partition_by,
                 const std::map<std::string, std::string>& options);
/// DataFrameWriter.insertInto: by position, cast to the table's column types.
void InsertIntoTable(const DataFrame& df, const std::string& name, bool overwrite);
/// The folder of a catalog table or delta.`path` (DELTA_MISSING_DELTA_TABLE if absent).
std::string TablePath(const std::shared_ptr<SessionState>& state,
                      const std::string& name);
/// The catalog's table resolver: a warehouse table or delta.`/path` (optionally at a
/// version or timestamp) as a Delta DataSource; nullptr when there is no such table.
Result<DataSourcePtr> ResolveCatalogTable(SessionState& s,
                                          const std::vector<std::string>& name,
                                          const sql::Catalog::TimeTravel& travel);

}  // namespace spate::api
