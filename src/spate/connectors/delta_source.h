// Copyright spate authors.
#pragma once

// DeltaStreamSource: a Delta table as a stream (Delta's DeltaSource). Without
// startingVersion the first batches read the snapshot at the table's version when the
// query first started (its files in path order), then every later commit's added files
// in log order; with startingVersion=N (or "latest") only the changes of commits >= N.
// The offset is Delta's DeltaSourceOffset: {"sourceVersion":1,"reservoirId":<table id>,
// "reservoirVersion":V,"index":I,"isStartingVersion":B} — the last file taken is file I
// of version V. maxFilesPerTrigger (default 1000) and maxBytesPerTrigger cap a batch; a
// batch may end inside a commit. Adds with dataChange=false (compaction) are skipped. A
// commit that removes data fails the query (DELTA_SOURCE_IGNORE_DELETE; with
// ignoreDeletes, commits that only remove files pass; DELTA_SOURCE_TABLE_IGNORE_CHANGES
// for commits that remove and add) unless skipChangeCommits=true, which skips such
// commits whole, or ignoreChanges=true (Delta's older option), which lets them through:
// the files they add (rewritten by UPDATE, MERGE, DELETE or an overwrite) are emitted
// again, so unchanged rows of a rewritten file come twice, and removes are ignored.
//
// Schema (Delta's checkReadIncompatibleSchemaChanges): the stream reads with the
// table's schema when the query was defined; a commit whose metaData schema that schema
// cannot read (table::IsReadCompatible: a column added, dropped, retyped or made
// nullable) ends the batch before it, and fails the next with
// DELTA_SCHEMA_CHANGED_WITH_VERSION (DELTA_SCHEMA_CHANGED_WITH_STARTING_OPTIONS when
// startingVersion / startingTimestamp is set): the restarted query reads the new schema.
// The first batch of a run also checks the schema at its start version. With
// readChangeFeed, the change data feed must be on at that version and stay on
// (DELTA_MISSING_CHANGE_DATA).
//
// Ownership: owned by its query; shares the FileSystem. Thread safety: the query thread.
// Failure: log read errors and the errors above.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "spate/io/file_system.h"
#include "spate/stream/source.h"

namespace spate::connectors {

struct DeltaSourceOptions {
  std::string path;
  std::map<std::string, std::string> options;
  std::string time_zone_id = "UTC";
  std::string display_name;
  /// The startingTimestamp option (resolved by the caller in the session time zone):
  /// the stream starts at the first commit at or after it.
  std::optional<int64_t> starting_timestamp_ms;
  /// spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled: a start past the
  /// latest commit waits for it instead of failing (DELTA_TIMESTAMP_GREATER_THAN_COMMIT,
  /// DELTA_VERSION_NOT_FOUND).
  bool allow_out_of_range = false;
};

/// Reads the table's schema now (DELTA_MISSING_DELTA_TABLE when there is no table) and
/// returns the schema and the factory.
Result<std::pair<SchemaPtr, stream::SourceFactory>> MakeDeltaSourceFactory(
    io::FileSystemPtr fs, DeltaSourceOptions options);

}  // namespace spate::connectors
