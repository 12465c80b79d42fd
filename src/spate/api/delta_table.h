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
//
// Ownership: holds the session and the table path. Thread safety: methods are const and
// may run concurrently. Failure: throws the exceptions of exceptions.h (a path without a
// Delta log: AnalysisException DELTA_MISSING_DELTA_TABLE).

#include <string>

#include "spate/api/dataframe.h"
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

 private:
  DeltaTable(std::shared_ptr<SessionState> state, std::string path)
      : state_(std::move(state)), path_(std::move(path)) {}
  std::shared_ptr<SessionState> state_;
  std::string path_;
  std::string alias_;
};

/// DataFrameReader.format("delta").load(path): options versionAsOf / timestampAsOf.
DataFrame LoadDelta(const std::shared_ptr<SessionState>& state, const std::string& path,
                    const std::map<std::string, std::string>& options);
/// Write options for a DataFrame write in `mode` with the session's settings (time zone,
/// default Parquet codec).
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
Result<int64_t> ParseTimeTravelTimestamp(const SessionState& state, const std::string& text);
/// The `delta`.`/path` relation of SQL (FileSourceResolver).
Result<DataSourcePtr> ResolveDeltaPath(const SessionState& state, const std::string& path);

}  // namespace spate::api
