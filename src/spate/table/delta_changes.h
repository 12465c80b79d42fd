// Copyright spate authors.
#pragma once

// Delta's change data feed, read side (Delta's CDCReader): the row-level changes of a
// range of commits of a delta.enableChangeDataFeed table, as a DataSource with the
// table's columns followed by `_change_type` (string: insert, delete, update_preimage,
// update_postimage), `_commit_version` (bigint) and `_commit_timestamp` (timestamp).
//
// Per commit: when it has cdc actions (UPDATE, DELETE, MERGE rewrites), its change data
// files are read (their own `_change_type` column) and its add/remove actions are not;
// otherwise its adds with dataChange=true are inserts and its removes with
// dataChange=true are deletes (appends, whole-file DELETEs, insert-only MERGEs,
// overwrites), except that a file removed and added back with a different deletion vector
// (a DELETE with deletion vectors) changes only by the rows the new DV adds (deletes) or
// drops (inserts). Commits with dataChange=false actions only (OPTIMIZE) and
// metadata-only commits give no rows. The range must lie where the change data feed was
// enabled (the table properties at the start version and every metaData action in the
// range): else DELTA_MISSING_CHANGE_DATA. Batch reads use the table's latest schema, and
// every schema of the range must be readable with it (IsReadCompatible): else
// DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_SCHEMA_CHANGE / _DATA_SCHEMA.
//
// Ownership: shares the file system and the snapshot whose schema the rows take (the
// latest). Thread safety: immutable; splits may be read concurrently. Failure:
// Delta's error classes for bad ranges; file errors name the file.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_source.h"

namespace spate::table {

/// The range a change feed read asks for (DataFrameReader options startingVersion /
/// startingTimestamp / endingVersion / endingTimestamp, or table_changes' arguments) and
/// the session settings that shape it.
struct ChangeRangeSpec {
  std::optional<int64_t> starting_version;
  std::optional<int64_t> starting_timestamp_ms;
  std::optional<int64_t> ending_version;
  std::optional<int64_t> ending_timestamp_ms;
  /// spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled: a start past the
  /// latest version (or a start timestamp past the last commit) reads no changes, and an
  /// end timestamp past the last commit is the latest version.
  bool allow_out_of_range = false;
  /// False with spark.databricks.delta.changeDataFeed.unsafeBatchReadOnIncompatible
  /// SchemaChanges.enabled: the range's schemas are not checked against the read schema.
  bool check_schema = true;
};

/// The resolved range [start, end] of versions (end clamped to the latest version);
/// `empty`: the read has no changes (out-of-range timestamps, see ChangeRangeSpec).
struct ChangeRange {
  int64_t start = 0;
  int64_t end = 0;
  bool empty = false;
};

/// Resolves `spec` against the log as Delta does: no start is
/// DELTA_NO_START_FOR_CDC_READ, a start version past the latest
/// DELTA_CDC_START_VERSION_AFTER_LATEST, a start (or end) timestamp past the last commit
/// DELTA_TIMESTAMP_GREATER_THAN_COMMIT (both: an empty range with allow_out_of_range), an
/// end timestamp before the first commit DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION,
/// end < start DELTA_INVALID_CDC_RANGE (an empty range when both are timestamps); an end
/// version past the latest is the latest.
Result<ChangeRange> ResolveChangeRange(const DeltaLog& log, const ChangeRangeSpec& spec);

/// The first version committed at or after `timestamp_ms` (nullopt: none is), as
/// Delta's startingTimestamp resolves for change feeds and streams.
Result<std::optional<int64_t>> FirstVersionAtOrAfter(const DeltaLog& log,
                                                     int64_t timestamp_ms);

/// Delta's SchemaUtils.isReadCompatible: whether data written with `existing` can be read
/// with `read`: every column of `existing` is in `read` (names equal, matched ignoring
/// case), with the same type (structs, arrays and maps compared member by member) and
/// compatible nullability — with `forbid_tighten_nullability`, a nullable existing
/// column must be nullable in `read`; without, a non-nullable existing column must be
/// non-nullable in `read`. Columns only in `read` are fine (read as nulls).
bool IsReadCompatible(const Schema& existing, const Schema& read,
                      bool forbid_tighten_nullability);

/// What a batch change feed read checks its range's schemas against (Delta's CDCReader):
/// the schema it reads with (the table's latest) and that schema's version.
struct ChangeSchemaCheck {
  SchemaPtr read_schema;
  int64_t read_version = 0;
};

/// One file of a change feed and what its rows are.
struct ChangeFile {
  AddFile file;
  /// "" for a change data file (its rows carry _change_type), else "insert" / "delete".
  std::string change_type;
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  /// A deletion-vector change (a commit without change data that removes `file` with one
  /// DV and adds it back with another, as DELETE with deletion vectors writes): only the
  /// rows `selected` marks and `unselected` does not (nullopt: no DV) are changes.
  bool dv_difference = false;
  std::optional<DeletionVectorDescriptor> selected;
  std::optional<DeletionVectorDescriptor> unselected;
};

/// The change files of commits [start, end] (DELTA_MISSING_CHANGE_DATA where the change
/// data feed was off; `start_metadata` is the table's metadata at `start`). With
/// `check`, as Delta's batch reads: a metaData action after `start` whose schema the
/// read schema cannot read is DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_SCHEMA_CHANGE, and a
/// start schema it cannot read DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_DATA_SCHEMA.
Result<std::vector<ChangeFile>> CollectChangeFiles(
    const DeltaLog& log, const Metadata& start_metadata, int64_t start, int64_t end,
    const ChangeSchemaCheck* check = nullptr);

/// The change files of one commit: its cdc files when it has any, else its adds
/// (inserts) and removes (deletes) with dataChange=true.
std::vector<ChangeFile> CommitChangeFiles(const CommitEntry& commit);

class DeltaChangesSource final : public DataSource {
 public:
  /// The changes of [range.start, range.end] of the table at `table_path`, with the
  /// schema of the table's latest snapshot (as Delta's batch reads).
  static Result<std::shared_ptr<DeltaChangesSource>> Make(
      io::FileSystemPtr fs, const std::string& table_path, const ChangeRangeSpec& spec,
      std::string time_zone_id = "UTC");
  /// The given change files read with `snapshot`'s schema (the streaming source).
  static Result<std::shared_ptr<DeltaChangesSource>> MakeForFiles(
      io::FileSystemPtr fs, SnapshotPtr snapshot, std::vector<ChangeFile> files,
      std::string time_zone_id = "UTC");

  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(files_.size()); }
  std::string SplitPath(int split) const override { return inner_->SplitPath(split); }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  std::string Describe() const override;

 private:
  DeltaChangesSource() = default;
  std::shared_ptr<DeltaDataSource> inner_;  // table columns + _change_type, every file
  std::vector<ChangeFile> files_;
  SchemaPtr schema_;
  int num_table_columns_ = 0;
};

/// The schema of a change feed of a table with `table_schema`.
SchemaPtr ChangeFeedSchema(const Schema& table_schema);

}  // namespace spate::table
