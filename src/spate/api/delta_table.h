// Copyright spate authors.
#pragma once

// DeltaTable (delta-spark's io.delta.tables.DeltaTable) for path-based tables:
//
//   auto t = DeltaTable::forPath(spark, "/data/events");
//   t.toDF().show();
//   t.history(10).show();   // DESCRIBE HISTORY's columns, newest first
//   t.detail().show();      // DESCRIBE DETAIL's columns
//   t.alias("t").merge(updates.alias("s"), "t.id = s.id")
//       .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute();   // delta_merge.h
//   t.update("id > 2", {{"v", F::lit("x")}});   t.delete_("p = 'old'");   // delta_dml.h
//   t.restoreToVersion(3);   t.optimize().where("p = 'a'").executeCompaction();
//   t.vacuum(168);
//
// Ownership: holds the session and the table path. Thread safety: methods are const and
// may run concurrently. Failure: throws the exceptions of exceptions.h (a path without a
// Delta log: AnalysisException DELTA_MISSING_DELTA_TABLE).

#include <string>

#include "spate/api/dataframe.h"
#include "spate/api/delta_dml.h"
#include "spate/api/delta_merge.h"
#include "spate/api/session.h"
#include "spate/table/delta_writer.h"

namespace spate::api {

class DeltaTable {
 public:
  static DeltaTable forPath(const SparkSession& spark, const std::string& path);
  /// A table of the catalog (`t`, `db.t`, `spark_catalog.db.t`) or `delta`.`/path`.
  static DeltaTable forName(const SparkSession& spark, const std::string& name);
  /// True when `path` holds a Delta table.
  static bool isDeltaTable(const SparkSession& spark, const std::string& path);

  /// The latest version as a DataFrame.
  DataFrame toDF() const;
  /// Commit history, newest first; limit <= 0: all. Columns: version, timestamp, userId,
  /// userName, operation, operationParameters, job, notebook, clusterId, readVersion,
  /// isolationLevel, isBlindAppend, operationMetrics, userMetadata, engineInfo.
  DataFrame history(int limit = 0) const;
  /// One row: format, id, name, description, location, createdAt, lastModified,
  /// partitionColumns, clusteringColumns, numFiles, sizeInBytes, properties,
  /// minReaderVersion, minWriterVersion, tableFeatures.
  DataFrame detail() const;
  const std::string& path() const { return path_; }

  /// The table under an alias that merge conditions and assignments can qualify by.
  DeltaTable alias(const std::string& alias) const;
  DeltaTable as(const std::string& alias) const { return this->alias(alias); }
  /// MERGE of `source` into this table on `condition`; add clauses, then execute().
  DeltaMergeBuilder merge(const DataFrame& source, const std::string& condition) const;
  DeltaMergeBuilder merge(const DataFrame& source, const Column& condition) const;

  /// UPDATE: `set` maps columns to new values, where `condition` holds (none: every
  /// row). Returns the SQL result (num_affected_rows); delta-spark returns nothing.
  DataFrame update(const std::vector<std::pair<std::string, Column>>& set) const;
  DataFrame update(const Column& condition,
                   const std::vector<std::pair<std::string, Column>>& set) const;
  DataFrame update(const std::string& condition,
                   const std::vector<std::pair<std::string, Column>>& set) const;
  /// updateExpr: values as SQL expression strings.
  DataFrame updateExpr(const std::vector<std::pair<std::string, std::string>>& set) const;
  DataFrame updateExpr(const std::string& condition,
                       const std::vector<std::pair<std::string, std::string>>& set) const;
  /// DELETE (`delete` is a C++ keyword) of the rows where `condition` holds (none: all).
  DataFrame delete_() const;
  DataFrame delete_(const Column& condition) const;
  DataFrame delete_(const std::string& condition) const;
  /// RESTORE; returns Delta's result row (table_size_after_restore, ...).
  DataFrame restoreToVersion(int64_t version) const;
  DataFrame restoreToTimestamp(const std::string& timestamp) const;
  /// VACUUM with the table's retention (delta.deletedFileRetentionDuration) or `hours`.
  DataFrame vacuum() const;
  DataFrame vacuum(double hours) const;

  /// OPTIMIZE: optimize().where("p = 'a'").executeCompaction().
  class OptimizeBuilder {
   public:
    OptimizeBuilder where(const std::string& partition_filter) const;
    DataFrame executeCompaction() const;
    DataFrame executeZOrderBy(const std::vector<std::string>& columns) const;

   private:
    friend class DeltaTable;
    OptimizeBuilder(std::shared_ptr<SessionState> state, DeltaDmlTarget target)
        : state_(std::move(state)), target_(std::move(target)) {}
    std::shared_ptr<SessionState> state_;
    DeltaDmlTarget target_;
    ExprPtr predicate_;
  };
  OptimizeBuilder optimize() const;

 private:
  DeltaDmlTarget Target() const;
  DeltaTable(std::shared_ptr<SessionState> state, std::string path)
      : state_(std::move(state)), path_(std::move(path)) {}
  std::shared_ptr<SessionState> state_;
  std::string path_;
  std::string alias_;
};

/// DataFrameReader.format("delta").load(path): options versionAsOf / timestampAsOf.
DataFrame LoadDelta(const std::shared_ptr<SessionState>& state, const std::string& path,
                    const std::map<std::string, std::string>& options);
/// Delta's table property defaults for new tables: each session conf
/// spark.databricks.delta.properties.defaults.<key> as delta.<key> (e.g.
/// enableChangeDataFeed).
std::map<std::string, std::string> DeltaPropertyDefaults(const SessionState& state);
/// Write options for a DataFrame write in `mode` with the session's settings (time zone,
/// default Parquet codec, table property defaults).
/// The session's spark.databricks.delta.checkpoint.partSize and
/// spark.databricks.delta.checkpointV2.topLevelFileFormat.
table::CheckpointOptions SessionCheckpointOptions(const SessionState& state);
table::DeltaWriteOptions SessionDeltaWriteOptions(const SessionState& state,
                                                  const std::string& mode);
/// Runs `df` into the Delta table at `path` (one commit).
table::DeltaWriteResult WriteDeltaFrame(const DataFrame& df, const std::string& path,
                                        const table::DeltaWriteOptions& options);
/// DataFrameWriter.format("delta").save(path).
void SaveDelta(const DataFrame& df, const std::string& path, const std::string& mode,
               const std::vector<std::string>& partition_by,
               const std::map<std::string, std::string>& options);
/// A time-travel timestamp ('2024-01-01 10:00:00', in the session time zone) as the
/// epoch millisecond whose commits it names (DELTA_TIMESTAMP_INVALID when malformed).
Result<int64_t> ParseTimeTravelTimestamp(const SessionState& state,
                                         const std::string& text);
/// The `delta`.`/path` relation of SQL (FileSourceResolver).
Result<DataSourcePtr> ResolveDeltaPath(const SessionState& state,
                                       const std::string& path);

}  // namespace spate::api
