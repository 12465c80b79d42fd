// Copyright spate authors.
#pragma once

// Delta's DML and maintenance commands besides MERGE (delta_merge.h): UPDATE, DELETE,
// RESTORE, OPTIMIZE and VACUUM, behind both SQL and DeltaTable:
//
//   UPDATE t SET v = v + 1 WHERE id > 2        DeltaTable::update("id > 2", {{"v", ...}})
//   DELETE FROM t WHERE p = 'x'                 DeltaTable::delete_("p = 'x'")
//   RESTORE TABLE t TO VERSION AS OF 3          DeltaTable::restoreToVersion(3)
//   OPTIMIZE t WHERE p = 'x'                    DeltaTable::optimize().where(...)...
//   VACUUM t RETAIN 168 HOURS [DRY RUN]         DeltaTable::vacuum(168)
//
// UPDATE and DELETE are copy-on-write as Delta's UpdateCommand / DeleteCommand: a first
// pass finds the files holding matching rows (files ruled out by the condition's
// partition conjuncts are not read), a second rewrites only those files; a DELETE whose
// condition is on partition columns only (or absent) removes whole files without reading
// them. A condition that matches nothing commits nothing. On a table with deletion
// vectors (WritesDeletionVectors) the first pass collects the matching rows' positions,
// which a DV marks, and UPDATE writes only the updated rows.
// OPTIMIZE bin-packs small files per partition (spark.databricks.delta.optimize.
// minFileSize / maxFileSize) into one commit with dataChange=false, which streaming
// readers skip; with ZORDER BY every file is rewritten in Z-order of the columns. VACUUM
// deletes files no version within the retention references.
//
// Ownership: functions only; they hold nothing between calls. Thread safety: each may
// run concurrently with other writers of the table (conflicts follow
// OptimisticTransaction's rules). Failure: throws the exceptions of exceptions.h with
// Spark's / Delta's error classes; nothing is committed then (VACUUM: files already
// deleted stay deleted — they were unreferenced).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spate/api/dataframe.h"
#include "spate/columnar/data_source.h"
#include "spate/compute/bound_expr.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_writer.h"

namespace spate::api {

struct SessionState;

/// The table a command acts on.
struct DeltaDmlTarget {
  std::string path;
  /// The name in messages (`spark_catalog`.`default`.`t` or `delta`.`/path`).
  std::string name;
  /// The alias (or table name) columns may be qualified by ("" = none).
  std::string alias;
};

/// UPDATE SET assignments: the column as written (name parts, possibly qualified by the
/// alias) and its value.
using UpdateAssignments = std::vector<std::pair<std::vector<std::string>, ExprPtr>>;

/// UPDATE (condition nullptr: every row). Returns one row: num_affected_rows.
DataFrame ExecuteUpdate(const std::shared_ptr<SessionState>& state,
                        const DeltaDmlTarget& target, const UpdateAssignments& set,
                        const ExprPtr& condition);
/// DELETE (condition nullptr: every row). Returns one row: num_affected_rows.
DataFrame ExecuteDelete(const std::shared_ptr<SessionState>& state,
                        const DeltaDmlTarget& target, const ExprPtr& condition);
/// RESTORE to a version or a timestamp (exactly one given). Returns Delta's row:
/// table_size_after_restore, num_of_files_after_restore, num_removed_files,
/// num_restored_files, removed_files_size, restored_files_size.
DataFrame ExecuteRestore(const std::shared_ptr<SessionState>& state,
                         const DeltaDmlTarget& target, std::optional<int64_t> version,
                         std::optional<std::string> timestamp);
/// OPTIMIZE (bin-packing) of the files matching `partition_predicate` (nullptr: all).
/// Returns Delta's row: path, metrics struct.
DataFrame ExecuteOptimize(const std::shared_ptr<SessionState>& state,
                          const DeltaDmlTarget& target,
                          const ExprPtr& partition_predicate,
                          const std::vector<std::string>& zorder_by);
/// VACUUM with `retain_hours` (nullopt: delta.deletedFileRetentionDuration). Returns the
/// files it would delete (dry run) or the table path, as Delta does.
DataFrame ExecuteVacuum(const std::shared_ptr<SessionState>& state,
                        const DeltaDmlTarget& target, std::optional<double> retain_hours,
                        bool dry_run);

// --- Shared with MERGE ---

/// SET assignments resolved against `schema`: per column, its new value (nullptr: not
/// assigned). A name may be qualified by `alias`; a nested struct field (`s.b.c`)
/// rebuilds the struct from `column_ref(column)` with named_struct. The same field twice,
/// or a field and its struct, is DELTA_CONFLICT_SET_COLUMN; a name that does not resolve
/// calls `unresolved` (when given; it may throw its own error), else is
/// UNRESOLVED_COLUMN.WITH_SUGGESTION.
std::vector<ExprPtr> ResolveSetAssignments(
    const Schema& schema, const std::string& alias, const UpdateAssignments& set,
    const std::function<Column(const std::string&)>& column_ref, const char* operation,
    const std::function<void(const std::vector<std::string>&)>& unresolved);

/// The conjuncts of `e` (`a AND b AND c` -> a, b, c; nullptr: none).
void Conjuncts(const ExprPtr& e, std::vector<ExprPtr>* out);
/// True when `e` holds a subquery.
bool HasSubquery(const ExprPtr& e);
/// The files of `files` whose partition values satisfy `pred` (an expression over the
/// table's partition columns only, possibly qualified by `alias`); nullptr: all of them.
std::vector<table::AddFile> FilterByPartitions(const std::shared_ptr<SessionState>& state,
                                               const table::Snapshot& snapshot,
                                               const std::vector<table::AddFile>& files,
                                               const ExprPtr& pred,
                                               const std::string& alias);
/// The conflict-check form of such a predicate: true for the partitions it accepts (and
/// when it cannot be evaluated).
table::OptimisticTransaction::PartitionFilter PartitionReader(
    const std::shared_ptr<SessionState>& state, const table::SnapshotPtr& snapshot,
    const ExprPtr& pred, const std::string& alias);

/// Data skipping (Delta's DataSkippingReader), shared by UPDATE, DELETE and MERGE: a
/// condition as a tree of per-file tests that DeltaDataSource::CanSkip decides from
/// each file's partition values and statistics (minValues / maxValues / nullCount /
/// numRecords). A file is skipped when the tree proves the condition TRUE for none of
/// its rows (SQL's three-valued logic: a NULL condition keeps no row).
struct FileSkipping {
  enum class Kind : uint8_t {
    kAny,   // may hold in any file (a form statistics cannot decide)
    kNone,  // holds in no file (FALSE, NULL, `c = NULL`, `c IN (NULL)`)
    kLeaf,  // `leaf`
    kAnd,   // all `children`
    kOr,    // any of `children`
  };
  Kind kind = Kind::kAny;
  ScanPredicate leaf;
  std::vector<FileSkipping> children;

  static FileSkipping Leaf(ScanPredicate p);
  /// The conjunction / disjunction, simplified (kAny / kNone children folded).
  static FileSkipping And(std::vector<FileSkipping> parts);
  static FileSkipping Or(std::vector<FileSkipping> parts);
};

/// Binds an expression over the table's columns (a column's index is its index in the
/// snapshot's schema); nullptr when it does not bind there (another relation's columns,
/// a subquery, a non-deterministic expression).
using SkippingBinder = std::function<BoundExprPtr(const ExprPtr&)>;

/// `cond` (unresolved) as a FileSkipping over `schema`: AND, OR, NOT (pushed down to the
/// leaves), `c <op> constant` (=, <>, <, <=, >, >=, <=>, either order), BETWEEN,
/// IN / NOT IN lists of constants, IS [NOT] NULL, constant conditions. `c` is a column
/// of the table as it is (a column under a cast or a function is not decided); the
/// constant is evaluated once in `ctx` with the comparison's own coercion. Anything
/// else is kAny.
FileSkipping ToFileSkipping(const ExprPtr& cond, const Schema& schema,
                            const SkippingBinder& bind, const EvalContext& ctx);

/// A binder over the columns of `snapshot`, qualified by `alias` when given.
SkippingBinder TableBinder(const std::shared_ptr<SessionState>& state,
                           const table::SnapshotPtr& snapshot, const std::string& alias);

/// The files of `files` that `skipping` does not rule out, in order.
std::vector<table::AddFile> SkipFiles(const std::shared_ptr<SessionState>& state,
                                      const table::SnapshotPtr& snapshot,
                                      std::vector<table::AddFile> files,
                                      const FileSkipping& skipping);

/// Delta's idempotent DML: the session confs spark.databricks.delta.write.txnAppId and
/// txnVersion, when both are set.
std::optional<table::TxnId> SessionDmlTxn(const SessionState& s);
/// `files` of `snapshot` as a DataFrame (one split per file); with `with_row_index`, a
/// BIGINT column table::kRowIndexColumn holds each row's position in its file.
DataFrame DeltaFilesFrame(const std::shared_ptr<SessionState>& state,
                          const table::SnapshotPtr& snapshot,
                          std::vector<table::AddFile> files, bool with_row_index = false);

/// True when `command` ("delete", "update", "merge") marks rows in deletion vectors
/// instead of rewriting files, as delta-spark does: the table has the deletionVectors
/// feature and delta.enableDeletionVectors = true, and the session conf
/// spark.databricks.delta.<command>.deletionVectors.persistent is not false.
bool WritesDeletionVectors(const SessionState& s, const table::Snapshot& snapshot,
                           const char* command);

/// Row positions to mark deleted, per data file (its local path).
using RowPositions = std::map<std::string, std::vector<uint64_t>>;

/// The actions of marking rows in deletion vectors: each touched file's add is removed
/// and, unless all its rows are now deleted, added again with its old and new positions
/// in one new DV file. Counts for the metrics.
struct DeletionVectorUpdate {
  std::vector<table::AddFile> removes;
  std::vector<table::AddFile> adds;
  std::string dv_file;  // the DV file written ("" when none)
  int64_t fully_removed_files = 0;
  int64_t fully_removed_bytes = 0;
  int64_t dvs_added = 0;    // new DVs
  int64_t dvs_removed = 0;  // the touched files' old DVs
  int64_t dvs_updated = 0;  // files whose old DV a new one replaces
};
/// Marks `rows` (keys: LocalFilePath of snapshot->DataFilePath) of `files` deleted,
/// writing the DV file now. Throws on I/O errors.
DeletionVectorUpdate MarkDeletedRows(const table::SnapshotPtr& snapshot,
                                     const std::vector<table::AddFile>& files,
                                     const RowPositions& rows);
/// Runs `write` (which commits); removes the DV file of `dv` when it throws.
void CommitWithDeletionVectors(const DeletionVectorUpdate& dv,
                               const std::function<void()>& write);
/// `rows` with Delta's change type column (_change_type, a string) set to `change_type`
/// (nullptr: NULL, the table's own rows), for a DML rewrite of a change data feed table.
DataFrame WithChangeType(const DataFrame& rows, const char* change_type);
/// A DML condition as delta-spark 4.4 writes it in operationParameters: Catalyst's text
/// of the optimized condition without attribute ids (`isnull(x)`, `id IN (12,33)`, `NOT
/// id IN (1,2)`, `(id >= 30)` for NOT (id < 30), BETWEEN as two comparisons).
std::string DeltaPredicateText(const ExprPtr& cond);
/// input_file_name()'s URI ("file:///a%20b/x.parquet") as a file system path.
std::string LocalFilePath(std::string_view uri);
inline int64_t ElapsedMs(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace spate::api
