// Copyright spate authors.
#pragma once

// The session catalog: temporary views (createOrReplaceTempView, CREATE TEMP VIEW) and
// global temporary views (database `global_temp`). Tables (Delta) arrive with the table
// module. Names are case-insensitive.
//
// Thread safety: all methods are safe from any thread (internally locked).

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/columnar/data_source.h"
#include "spate/sql/bound_plan.h"

namespace spate::sql {

class Catalog {
 public:
  /// Registers a view; fails with TEMP_TABLE_OR_VIEW_ALREADY_EXISTS unless `replace`.
  Status CreateTempView(const std::string& name, BoundPlanPtr plan, bool replace,
                        bool global = false);
  /// Removes a view; returns false if it did not exist.
  bool DropTempView(const std::vector<std::string>& name);
  /// Looks up `name` or `global_temp.name`; nullptr when absent.
  BoundPlanPtr LookupView(const std::vector<std::string>& name) const;
  /// Names of temp views (sorted), for SHOW TABLES.
  std::vector<std::string> TempViewNames() const;
  /// The schema unqualified table names resolve in (USE schema); "default" at start.
  std::string current_database() const;
  void SetCurrentDatabase(const std::string& name);

  /// Resolves `format`.`path` relations (SELECT * FROM parquet.`/data/t`) to a
  /// DataSource. The api installs it (sql does not depend on the formats that implement
  /// sources); the resolver returns nullptr for formats it does not know.
  using FileSourceResolver = std::function<Result<DataSourcePtr>(
      const std::string& format, const std::string& path)>;
  void SetFileSourceResolver(FileSourceResolver resolver);
  /// nullptr when there is no resolver or it does not know `format`.
  Result<DataSourcePtr> ResolveFileSource(const std::string& format,
                                          const std::string& path) const;

  /// Which version of a table to read (SQL `VERSION AS OF` / `TIMESTAMP AS OF`).
  struct TimeTravel {
    std::optional<int64_t> version;
    std::optional<std::string> timestamp;
    bool empty() const { return !version && !timestamp; }
  };
  /// Resolves a table name (as written: `t`, `db.t`, `spark_catalog.db.t`, or
  /// `delta`.`/path` when time travel is asked for) to a DataSource; nullptr when no
  /// such table exists. Installed by the api, which owns the tables (warehouse, Delta).
  using TableResolver = std::function<Result<DataSourcePtr>(
      const std::vector<std::string>& name, const TimeTravel& travel)>;
  void SetTableResolver(TableResolver resolver);
  /// Table-valued functions the api implements (Delta's table_changes and
  /// table_changes_by_path): `name` lowercased, the arguments evaluated as constants.
  /// Returns nullptr when `name` is not one of them.
  using TableFunctionResolver = std::function<Result<DataSourcePtr>(
      const std::string& name, const std::vector<Value>& args)>;
  void SetTableFunctionResolver(TableFunctionResolver resolver);
  Result<DataSourcePtr> ResolveTableFunction(const std::string& name,
                                             const std::vector<Value>& args) const;
  /// Relations the api builds as DataFrame plans: `STREAM name` (`node` a streaming
  /// kUnresolvedRelation: a table or a streaming view read as a stream) and the
  /// table-valued functions it defines that way (read_files, batch or STREAM). `args` are
  /// a function's arguments evaluated as constants, with their names ("" = positional).
  /// Returns the plan to analyze in place of `node`, nullptr when the api does not know
  /// it.
  using RelationPlanResolver = std::function<Result<PlanPtr>(
      const LogicalPlan& node, const std::vector<std::pair<std::string, Value>>& args)>;
  void SetRelationPlanResolver(RelationPlanResolver resolver);
  Result<PlanPtr> ResolveRelationPlan(
      const LogicalPlan& node,
      const std::vector<std::pair<std::string, Value>>& args) const;
  /// Runs an (uncorrelated) subquery's plan to completion, for scalar / EXISTS / IN
  /// subqueries, which the analyzer evaluates before the query runs. Installed by the api
  /// (sql does not depend on exec).
  using SubqueryExecutor =
      std::function<Result<std::vector<BatchPtr>>(const BoundPlanPtr&)>;
  void SetSubqueryExecutor(SubqueryExecutor executor);
  /// Unsupported (kInvalid) when no executor is installed.
  Result<std::vector<BatchPtr>> ExecuteSubquery(const BoundPlanPtr& plan) const;
  Result<DataSourcePtr> ResolveTable(const std::vector<std::string>& name,
                                     const TimeTravel& travel) const;

 private:
  FileSourceResolver file_source_resolver_;
  TableResolver table_resolver_;
  TableFunctionResolver table_function_resolver_;
  RelationPlanResolver relation_plan_resolver_;
  SubqueryExecutor subquery_executor_;
  std::string current_database_ = "default";
  mutable std::mutex mu_;
  std::map<std::string, BoundPlanPtr> views_;
  std::map<std::string, BoundPlanPtr> global_views_;
};

}  // namespace spate::sql
