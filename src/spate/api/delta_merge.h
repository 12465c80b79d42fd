// Copyright spate authors.
#pragma once

// MERGE INTO a Delta table (Delta's MergeIntoCommand), behind both SQL `MERGE INTO` and
// `DeltaTable::merge`:
//
//   DeltaTable::forName(spark, "silver").alias("t")
//       .merge(updates.alias("s"), "t.id = s.id")
//       .whenMatchedUpdate({{"v", F::col("s.v")}})
//       .whenNotMatchedInsertAll()
//       .execute();
//
// Copy-on-write, as Delta does without deletion vectors: (1) the source is inner-joined
// with the target to find the target files holding matched rows and to check that no
// target row is matched by more than one source row
// (DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE, unless the only MATCHED
// clause is an unconditional DELETE); (2) those files are joined again with the source
// (right outer, or full outer with NOT MATCHED clauses) and every row takes the first
// clause whose condition holds; (3) one commit removes the touched files and adds the
// rewritten rows and the inserted ones. Files without matches are untouched; an
// insert-only MERGE rewrites nothing. With NOT MATCHED BY SOURCE clauses every file is
// touched. Otherwise only files that can hold a match are read (as Delta's filterFiles):
// the ON condition's target-only conjuncts are checked against partition values and
// minValues / maxValues / nullCount statistics (with MATCHED clauses only, the clauses'
// target-only conjuncts too), and beyond Delta the materialized source's key range (and
// key values, for a small source) against each `t.k = <source expression>` conjunct's
// column; partition conjuncts narrow the conflict check to those partitions.
// On a table with deletion vectors (delta_dml.h) the target rows a clause updates or
// deletes are marked in DVs and only updated and inserted rows are written. The source
// is materialized first (spark.databricks.delta.merge.materializeSource, as Delta), so
// every pass reads the same rows; with or without an alias, and when the MERGE names its
// columns by DataFrame references.
//
// Ownership: a DeltaMergeBuilder is a value holding the session, the target and the
// clauses added so far (each when* call returns a new builder). Thread safety: builders
// are immutable; execute() may run concurrently with other writers of the table
// (conflicts follow OptimisticTransaction's rules). Failure: throws the exceptions of
// exceptions.h; nothing is committed then.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/api/column.h"
#include "spate/api/dataframe.h"
#include "spate/sql/logical_plan.h"

namespace spate::api {

struct SessionState;

/// A MERGE as data: what SQL MERGE INTO and DeltaMergeBuilder both describe.
struct MergeSpec {
  std::string target_path;
  /// The name in messages (`spark_catalog`.`default`.`t` or delta.`/path`).
  std::string target_name;
  /// The alias target columns are qualified by ("" = none).
  std::string target_alias;
  /// The source relation (its alias applied).
  sql::PlanPtr source;
  ExprPtr condition;
  std::vector<sql::MergeClause> clauses;
  /// WITH SCHEMA EVOLUTION / withSchemaEvolution(): UPDATE SET * and INSERT * add the
  /// source's new columns to the table (also with
  /// spark.databricks.delta.schema.autoMerge.enabled).
  bool schema_evolution = false;
};

/// Runs `spec` as one commit and returns Delta's result row: num_affected_rows,
/// num_updated_rows, num_deleted_rows, num_inserted_rows. With the session conf
/// spark.databricks.delta.write.txnAppId + txnVersion set (Delta's idempotent DML), a
/// MERGE whose version the table already holds for that app id changes nothing.
DataFrame ExecuteMerge(const std::shared_ptr<SessionState>& state, const MergeSpec& spec);

/// Column assignments of UPDATE SET / INSERT VALUES, in order.
using MergeAssignments = std::vector<std::pair<std::string, Column>>;
/// The same with SQL expression strings ({"v", "s.v + 1"}).
using MergeExprAssignments = std::vector<std::pair<std::string, std::string>>;

/// delta-spark's DeltaMergeBuilder (Python names; Scala's updateExpr/insertExpr are the
/// *Expr forms). Clauses run in the order they were added.
class DeltaMergeBuilder {
 public:
  DeltaMergeBuilder whenMatchedUpdate(const MergeAssignments& set) const;
  DeltaMergeBuilder whenMatchedUpdate(const Column& condition,
                                      const MergeAssignments& set) const;
  DeltaMergeBuilder whenMatchedUpdate(const std::string& condition,
                                      const MergeAssignments& set) const;
  DeltaMergeBuilder whenMatchedUpdateExpr(const MergeExprAssignments& set) const;
  DeltaMergeBuilder whenMatchedUpdateExpr(const std::string& condition,
                                          const MergeExprAssignments& set) const;
  DeltaMergeBuilder whenMatchedUpdateAll() const;
  DeltaMergeBuilder whenMatchedUpdateAll(const Column& condition) const;
  DeltaMergeBuilder whenMatchedUpdateAll(const std::string& condition) const;
  DeltaMergeBuilder whenMatchedDelete() const;
  DeltaMergeBuilder whenMatchedDelete(const Column& condition) const;
  DeltaMergeBuilder whenMatchedDelete(const std::string& condition) const;

  DeltaMergeBuilder whenNotMatchedInsert(const MergeAssignments& values) const;
  DeltaMergeBuilder whenNotMatchedInsert(const Column& condition,
                                         const MergeAssignments& values) const;
  DeltaMergeBuilder whenNotMatchedInsert(const std::string& condition,
                                         const MergeAssignments& values) const;
  DeltaMergeBuilder whenNotMatchedInsertExpr(const MergeExprAssignments& values) const;
  DeltaMergeBuilder whenNotMatchedInsertExpr(const std::string& condition,
                                             const MergeExprAssignments& values) const;
  DeltaMergeBuilder whenNotMatchedInsertAll() const;
  DeltaMergeBuilder whenNotMatchedInsertAll(const Column& condition) const;
  DeltaMergeBuilder whenNotMatchedInsertAll(const std::string& condition) const;

  DeltaMergeBuilder whenNotMatchedBySourceUpdate(const MergeAssignments& set) const;
  DeltaMergeBuilder whenNotMatchedBySourceUpdate(const Column& condition,
                                                 const MergeAssignments& set) const;
  DeltaMergeBuilder whenNotMatchedBySourceUpdate(const std::string& condition,
                                                 const MergeAssignments& set) const;
  DeltaMergeBuilder whenNotMatchedBySourceUpdateExpr(
      const MergeExprAssignments& set) const;
  DeltaMergeBuilder whenNotMatchedBySourceUpdateExpr(
      const std::string& condition, const MergeExprAssignments& set) const;
  DeltaMergeBuilder whenNotMatchedBySourceDelete() const;
  DeltaMergeBuilder whenNotMatchedBySourceDelete(const Column& condition) const;
  DeltaMergeBuilder whenNotMatchedBySourceDelete(const std::string& condition) const;

  /// Schema evolution for this MERGE (see MergeSpec::schema_evolution).
  DeltaMergeBuilder withSchemaEvolution() const;

  /// Runs the MERGE (one commit); returns the result row as SQL MERGE does.
  DataFrame execute() const;

  /// A builder for `spec` (DeltaTable::merge).
  DeltaMergeBuilder(std::shared_ptr<SessionState> state, MergeSpec spec)
      : state_(std::move(state)), spec_(std::move(spec)) {}

  /// A clause in the engine's form (the bindings use it).
  DeltaMergeBuilder With(sql::MergeClause clause) const;

 private:
  std::shared_ptr<SessionState> state_;
  MergeSpec spec_;
};

/// A clause from its parts (nullptr condition: none).
sql::MergeClause MakeMergeClause(sql::MergeClause::Match match,
                                 sql::MergeClause::Action action, ExprPtr condition,
                                 bool star, const MergeAssignments& assignments);

}  // namespace spate::api
