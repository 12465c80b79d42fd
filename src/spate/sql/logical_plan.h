// Copyright spate authors.
#pragma once

// Unresolved logical plans: what the SQL parser and the DataFrame API build. The analyzer
// (analyzer.h) resolves them against the catalog into bound plans.
//
// Ownership: immutable trees shared through PlanPtr (a DataFrame holds one, and derived
// DataFrames share subtrees). Thread safety: immutable, shareable.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/columnar/batch.h"
#include "spate/columnar/data_source.h"
#include "spate/compute/expr.h"

namespace spate::sql {

class BoundPlan;

class LogicalPlan;
using PlanPtr = std::shared_ptr<const LogicalPlan>;

enum class PlanKind : uint8_t {
  kUnresolvedRelation,  // table_name (multi-part), e.g. FROM db.t
  kTableFunction,       // FROM range(10) / range(0, 10, 2, 4): name + args
  kLocalRelation,       // in-memory rows: schema + batches (createDataFrame)
  kValues,              // VALUES (..), (..) [AS t(a, b)]: rows of expressions
  kSubqueryAlias,       // child AS alias [(col aliases)]
  kProject,             // SELECT exprs FROM child
  kFilter,              // WHERE / HAVING condition (HAVING: is_having)
  kAggregate,           // GROUP BY group_exprs, output exprs
  kJoin,                // left JOIN right ON condition / USING (cols)
  kSort,                // ORDER BY sort specs (SORT BY: global = false)
  kLimit,               // LIMIT n (count expr)
  kOffset,              // OFFSET n
  kDistinct,            // SELECT DISTINCT / df.distinct()
  kDeduplicate,         // df.dropDuplicates(cols)
  kSetOperation,        // UNION / INTERSECT / EXCEPT [ALL] / unionByName
  kWith,                // WITH ctes child
  kRepartition,         // df.repartition(n, exprs) / coalesce(n)
  kDataSource,          // files read through a DataSource (spark.read.parquet): source
  kLateralView,  // child LATERAL VIEW [OUTER] gen(args) alias [AS cols]: exprs[0] is
                 // the generator call (OUTER: its _outer form), alias and
                 // column_aliases name the generated columns
  kEventTimeWatermark,  // df.withWatermark(col, delay): exprs[0] the event-time column,
                        // delay the threshold text ("10 minutes")
  kAnalyzed,            // an already analyzed plan (bound), used as it is: a streaming
                        // micro-batch's data handed to foreachBatch and the sinks
  kGroupedExtension,    // a node another module plans (extension) over child grouped by
                        // group_by (transformWithState): output = schema
  kHint,  // child with a hint (Spark's UnresolvedHint): hint_name, parameters in exprs
          // (SQL /*+ BROADCAST(t) */, df.hint(name, ...), functions::broadcast(df))
};

enum class JoinType : uint8_t {
  kInner,
  kLeftOuter,
  kRightOuter,
  kFullOuter,
  kLeftSemi,
  kLeftAnti,
  kCross,
};
/// "inner", "left_outer" ... as Spark's JoinType names; parses PySpark's `how` strings
/// ("inner", "left", "leftouter", "left_outer", "right", "outer", "full", "fullouter",
/// "semi", "leftsemi", "left_semi", "anti", "leftanti", "left_anti", "cross").
std::string_view JoinTypeName(JoinType t);
/// Spark's JoinType.toString, as EXPLAIN and the physical plans print it: "Inner",
/// "LeftOuter", "LeftSemi", ...
std::string_view JoinTypeDisplay(JoinType t);
std::optional<JoinType> ParseJoinType(std::string_view how);

enum class SetOpKind : uint8_t { kUnion, kIntersect, kExcept };

class BoundExtension;

class LogicalPlan {
 public:
  PlanKind kind;
  std::vector<PlanPtr> children;

  std::vector<std::string> table_name;  // kUnresolvedRelation; kTableFunction: {name}
  std::vector<ExprPtr> exprs;  // kProject/kAggregate: output list; kTableFunction: args;
                               // kRepartition: partition exprs; kDeduplicate: columns
  std::vector<ExprPtr> group_by;  // kAggregate
  ExprPtr condition;              // kFilter / kJoin ON
  bool is_having = false;         // kFilter from HAVING
  JoinType join_type = JoinType::kInner;
  std::vector<std::string> using_columns;   // kJoin USING (...)
  std::vector<SortSpec> sort;               // kSort
  bool global_sort = true;                  // kSort
  ExprPtr count;                            // kLimit / kOffset
  SetOpKind set_op = SetOpKind::kUnion;     // kSetOperation
  bool set_all = false;                     // UNION ALL / INTERSECT ALL / EXCEPT ALL
  bool by_name = false;                     // unionByName
  bool allow_missing_columns = false;       // unionByName(allowMissingColumns)
  std::string alias;                        // kSubqueryAlias
  std::vector<std::string> column_aliases;  // kSubqueryAlias t(a, b) / kValues AS t(a, b)
  std::vector<std::vector<ExprPtr>> rows;   // kValues
  std::vector<std::pair<std::string, PlanPtr>> ctes;  // kWith, in order
  SchemaPtr schema;                                   // kLocalRelation
  std::vector<BatchPtr> batches;                      // kLocalRelation
  int num_partitions = 0;                             // kRepartition (0 = unspecified)
  bool shuffle = true;                                // kRepartition (false for coalesce)
  int64_t position = -1;  // char offset in SQL text, for errors
  bool natural = false;   // kJoin: NATURAL JOIN (USING all common columns)
  /// Id of the DataFrame whose root this node is (-1 = none); the analyzer tags the
  /// node's output attributes with it so that df["col"] resolves to that DataFrame's
  /// column even after joins (Spark's plan id tags).
  int64_t plan_id = -1;
  DataSourcePtr source;                    // kDataSource
  std::string delay;                       // kEventTimeWatermark threshold text
  std::shared_ptr<const BoundPlan> bound;  // kAnalyzed
  /// kGroupedExtension: the payload; the analyzer hands it the keys bound over the child
  /// (BoundExtension::WithGroupKeys) and makes a BoundKind::kExtension node of it.
  std::shared_ptr<const BoundExtension> extension;
  /// kDeduplicate: dropDuplicatesWithinWatermark (streaming: a key is deduplicated while
  /// its event time is within the watermark).
  bool within_watermark = false;
  /// kUnresolvedRelation time travel: `t VERSION AS OF 3` / `t TIMESTAMP AS OF '...'`
  /// (also FOR SYSTEM_VERSION / SYSTEM_TIME AS OF).
  std::optional<int64_t> as_of_version;
  std::optional<std::string> as_of_timestamp;
  /// kUnresolvedRelation / kTableFunction read as a stream: `STREAM name`,
  /// `STREAM(name)`, `STREAM read_files(...)` (Spark 4.1's streaming relations).
  bool streaming = false;
  /// A streaming node's plan as the catalog resolved it the first time (guarded by the
  /// analyzer): every analysis of the node then reads the same streaming relation, as a
  /// DataFrame built by readStream does.
  mutable std::shared_ptr<const LogicalPlan> resolved_stream;
  /// kTableFunction: the argument names as written (`format => 'json'`), "" for a
  /// positional argument; empty when no argument is named.
  std::vector<std::string> arg_names;
  /// kHint: the hint's name as written (BROADCAST, broadcast, MAPJOIN, ...).
  std::string hint_name;

  explicit LogicalPlan(PlanKind k) : kind(k) {}
  const PlanPtr& child() const { return children[0]; }

  /// Multi-line tree text as EXPLAIN EXTENDED's "Parsed Logical Plan" shows it.
  std::string TreeString() const;
};

/// The plan of a subquery expression (kScalarSubquery / kExists / kInSubquery): the
/// concrete SubqueryHandle the SQL parser stores in Expr::subquery.
struct PlanSubquery : SubqueryHandle {
  explicit PlanSubquery(PlanPtr p) : plan(std::move(p)) {}
  PlanPtr plan;
};

/// One WHEN clause of MERGE INTO (Delta's DeltaMergeIntoClause).
struct MergeClause {
  enum class Match : uint8_t { kMatched, kNotMatched, kNotMatchedBySource };
  enum class Action : uint8_t { kUpdate, kDelete, kInsert };
  Match match = Match::kMatched;
  Action action = Action::kUpdate;
  ExprPtr condition;  // WHEN ... AND condition; nullptr when absent
  bool star = false;  // UPDATE SET * / INSERT *
  /// UPDATE SET col = value, ... / INSERT (col, ...) VALUES (value, ...): the target
  /// column as written (name parts, possibly qualified by the target alias) and its
  /// value.
  std::vector<std::pair<std::vector<std::string>, ExprPtr>> assignments;
};

/// MERGE INTO target [[AS] alias] USING source [[AS] alias] ON condition WHEN ...
struct MergeInto {
  std::vector<std::string> target;  // the table name (or delta.`/path`)
  std::string target_alias;         // "" when not given
  PlanPtr source;                   // the source relation, its alias applied
  std::string source_alias;         // "" when not given
  ExprPtr condition;
  std::vector<MergeClause> clauses;  // in statement order
  bool with_schema_evolution = false;
};

/// UPDATE / DELETE / RESTORE / OPTIMIZE / VACUUM of a Delta table (Delta's SQL commands).
struct DeltaCommand {
  std::vector<std::string>
      target;         // table name or delta.`/path` (a quoted path: {"delta", p})
  std::string alias;  // UPDATE / DELETE [AS] alias ("" = none)
  ExprPtr condition;  // WHERE (nullptr = none)
  /// UPDATE SET col = value, ...: the column as written (name parts) and its value.
  std::vector<std::pair<std::vector<std::string>, ExprPtr>> assignments;
  std::optional<int64_t> version;                   // RESTORE ... VERSION AS OF n
  std::optional<std::string> timestamp;             // RESTORE ... TIMESTAMP AS OF 'ts'
  std::vector<std::vector<std::string>> zorder_by;  // OPTIMIZE ... ZORDER BY (cols)
  std::optional<double> retain_hours;               // VACUUM ... RETAIN n HOURS
  bool dry_run = false;                             // VACUUM ... DRY RUN
};

/// A parsed SQL statement.
struct Statement {
  enum class Kind : uint8_t {
    kQuery,       // plan
    kSetConf,     // SET key = value | SET key | SET (list all) | SET -v
    kResetConf,   // RESET [key]
    kCreateView,  // CREATE [OR REPLACE] [GLOBAL] TEMP[ORARY] VIEW name [(cols)] AS query
    kDropView,    // DROP VIEW [IF EXISTS] name
    kDescribe,    // DESCRIBE [TABLE] [EXTENDED] name | DESCRIBE QUERY query
    kExplain,     // EXPLAIN [EXTENDED|FORMATTED|CODEGEN|COST] statement
    kShowTables,  // SHOW TABLES / SHOW VIEWS
    kShowFunctions,  // SHOW FUNCTIONS
    kUseDatabase,    // USE db
    kCreateSchema,   // CREATE SCHEMA|DATABASE|NAMESPACE [IF NOT EXISTS] name
                     // [COMMENT][LOCATION]
    kDropSchema,     // DROP SCHEMA [IF EXISTS] name [RESTRICT|CASCADE]
    kShowSchemas,    // SHOW SCHEMAS|DATABASES|NAMESPACES [LIKE 'p']
    kCreateTable,  // [CREATE [OR REPLACE] | REPLACE] TABLE [IF NOT EXISTS] name [(cols)]
                   //   [USING fmt] [PARTITIONED BY (cols)] [LOCATION 'p'] [COMMENT 'c']
                   //   [TBLPROPERTIES (...)] [AS query]
    kDropTable,    // DROP TABLE [IF EXISTS] name [PURGE]
    kInsert,       // INSERT INTO|OVERWRITE [TABLE] name [(cols)] query
    kDescribeHistory,  // DESCRIBE HISTORY name|delta.`path` [LIMIT n]; DESCRIBE DETAIL
                       // name (key = "detail")
    kMerge,            // MERGE INTO ... USING ... ON ... WHEN ... (st.merge)
    kUpdate,           // UPDATE t [AS a] SET c = e, ... [WHERE cond] (st.delta)
    kDelete,           // DELETE FROM t [AS a] [WHERE cond] (st.delta)
    kRestore,          // RESTORE [TABLE] t [TO] VERSION|TIMESTAMP AS OF x (st.delta)
    kOptimize,         // OPTIMIZE t|'path' [WHERE pred] [ZORDER BY (cols)] (st.delta)
    kVacuum,           // VACUUM t|'path' [RETAIN n HOURS] [DRY RUN] (st.delta)
    // Spark 4.1's declarative pipelines (docs/pipelines.md); run by a pipeline, refused
    // by a plain spark.sql().
    kCreateStreamingTable,  // CREATE [OR REFRESH] STREAMING TABLE name [(cols)] [COMMENT]
                            //   [TBLPROPERTIES] [PARTITIONED BY] [AS query]
    kCreateMaterializedView,  // CREATE [OR REFRESH] MATERIALIZED VIEW name ... AS query
    kCreateFlow,              // CREATE FLOW name [COMMENT] AS INSERT INTO t BY NAME query
                              //   (name: the flow; inner: the INSERT, by_name set)
    kAlterTableSetProperties,    // ALTER TABLE name SET TBLPROPERTIES (k = v, ...)
    kAlterTableUnsetProperties,  // ALTER TABLE name UNSET TBLPROPERTIES [IF EXISTS] (k,
                                 // ...)
                                 //   (properties: the keys, empty values)
    kShowTblProperties,          // SHOW TBLPROPERTIES name [(key)] (value: the key)
  };
  Kind kind = Kind::kQuery;
  PlanPtr plan;                      // kQuery, kCreateView, kDescribe (query or relation)
  std::string key;                   // kSetConf / kResetConf key ("" = all)
  std::optional<std::string> value;  // kSetConf value
  std::vector<std::string> name;     // view / table name parts
  std::vector<std::string> column_names;  // kCreateView (a, b)
  bool replace = false;                   // OR REPLACE
  bool if_exists = false;                 // kDropView
  bool global = false;                    // GLOBAL TEMP VIEW
  bool extended = false;                  // DESCRIBE EXTENDED / EXPLAIN EXTENDED
  std::string explain_mode = "simple";  // simple | extended | formatted | codegen | cost
  std::shared_ptr<const Statement> inner;  // kExplain
  std::string text;                        // the statement's source text
  // Tables and schemas (kCreateSchema ... kDescribeHistory).
  bool if_not_exists = false;  // CREATE ... IF NOT EXISTS
  bool cascade = false;        // DROP SCHEMA ... CASCADE
  bool overwrite = false;      // INSERT OVERWRITE
  bool create = true;          // kCreateTable: false for REPLACE TABLE
  SchemaPtr table_schema;      // kCreateTable column list (nullptr when absent)
  std::string provider;        // USING fmt ("" = not given)
  std::vector<std::string> partition_columns;  // PARTITIONED BY (a, b)
  std::optional<std::string> location;         // LOCATION 'path'
  std::optional<std::string> comment;          // COMMENT 'text'
  std::vector<std::pair<std::string, std::string>>
      properties;                             // TBLPROPERTIES / DBPROPERTIES
  std::vector<std::string> insert_columns;    // INSERT INTO t (a, b)
  bool by_name = false;                       // INSERT INTO t BY NAME query
  std::optional<int64_t> limit;               // DESCRIBE HISTORY ... LIMIT n
  std::shared_ptr<const MergeInto> merge;     // kMerge
  std::shared_ptr<const DeltaCommand> delta;  // kUpdate ... kVacuum
};

}  // namespace spate::sql
