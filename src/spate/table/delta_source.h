// Copyright spate authors.
#pragma once

// DeltaDataSource: a DataSource over one Delta snapshot — the snapshot's active files
// (never a directory listing, so orphan and removed files are invisible), read as
// Parquet, with partition columns filled from add.partitionValues (cast from their
// string form to the column's type, in `time_zone_id` for timestamps) and columns
// missing from a file read as NULL. One split per data file. Pushed-down ScanPredicates
// skip whole files by partition values and by add.stats (minValues / maxValues /
// nullCount).
//
// Ownership: shares the FileSystem and the snapshot. Thread safety: immutable; splits may
// be read concurrently. Failure: file errors name the data file; a Parquet column whose
// type differs from the table's is an error naming the file and column.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/io/file_system.h"
#include "spate/table/delta_log.h"

namespace spate::table {

/// The extra column of DeltaDataSource::MakeForFiles holding each row's position in its
/// data file (deleted rows count: they keep their positions).
inline constexpr const char* kRowIndexColumn = "__delta_internal_row_index";

class DeltaDataSource final : public DataSource {
 public:
  static Result<std::shared_ptr<DeltaDataSource>> Make(io::FileSystemPtr fs,
                                                       SnapshotPtr snapshot,
                                                       std::string time_zone_id = "UTC");
  /// Only `files` (e.g. the adds of new commits, for a streaming source), read with the
  /// snapshot's schema and partitioning.
  /// `extra_columns` follow the table's columns and are read from the files by name
  /// (change data files' _change_type; NULL where a file lacks one); one named
  /// kRowIndexColumn (a BIGINT) is each row's position in its file instead (the
  /// positions deletion vectors hold).
  static Result<std::shared_ptr<DeltaDataSource>> MakeForFiles(
      io::FileSystemPtr fs, SnapshotPtr snapshot, std::vector<AddFile> files,
      std::string time_zone_id = "UTC", const std::vector<Field>& extra_columns = {});

  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(adds_.size()); }
  std::optional<int64_t> EstimatedBytes() const override {
    int64_t n = 0;
    for (const auto& a : adds_) n += a.size;
    return n;
  }
  std::string SplitPath(int split) const override {
    return snapshot_->DataFilePath(adds_[static_cast<size_t>(split)]);
  }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  /// Only the rows of split `split` that DV `selected` marks and `unselected` does not
  /// (nullopt: none), whatever the file's own DV (the change feed of a DV change).
  Result<std::unique_ptr<BatchReader>> OpenSplitSelecting(
      int split, const ScanSpec& spec,
      const std::optional<DeletionVectorDescriptor>& selected,
      const std::optional<DeletionVectorDescriptor>& unselected) const;
  std::string Describe() const override;

  const SnapshotPtr& snapshot() const { return snapshot_; }
  /// Files skipped by statistics or partition values so far (tests, metrics).
  int64_t skipped_files() const { return skipped_->load(); }
  /// True when `predicates` rule file `i` out (exposed for tests).
  bool CanSkip(int i, const std::vector<ScanPredicate>& predicates) const;

 private:
  DeltaDataSource() = default;
  // OpenSplit with the rows `keep` (sorted positions) only, when given.
  Result<std::unique_ptr<BatchReader>> Open(int split, const ScanSpec& spec,
                                            const std::vector<uint64_t>* keep) const;
  io::FileSystemPtr fs_;
  SnapshotPtr snapshot_;
  std::vector<AddFile> adds_;  // the files read (one split each)
  SchemaPtr schema_;
  std::string tz_;
  std::vector<bool> is_partition_;  // per schema column
  int row_index_column_ = -1;       // the kRowIndexColumn extra column, if any
  // Column mapping (delta.columnMapping.mode name/id): per schema column, the physical
  // name in data files, partition values and stats, and the type with physical nested
  // field names (as the Parquet file has it). Empty without column mapping.
  std::vector<std::string> physical_names_;
  std::vector<DataTypePtr> physical_types_;
  // Per file: partition values as typed values (one per schema column; unused for data
  // columns), and parsed statistics.
  struct FileInfo {
    std::vector<Value> partition;
    bool has_stats = false;
    int64_t num_records = -1;
    std::vector<std::optional<Value>> min, max;
    std::vector<std::optional<int64_t>> null_count;
  };
  std::vector<FileInfo> files_;
  std::shared_ptr<std::atomic<int64_t>> skipped_ =
      std::make_shared<std::atomic<int64_t>>(0);
};

}  // namespace spate::table

namespace spate::table {

/// Which version of a table to open (DataFrameReader versionAsOf / timestampAsOf, SQL
/// VERSION AS OF / TIMESTAMP AS OF). Both empty: the latest version.
struct TimeTravelSpec {
  std::optional<int64_t> version;
  std::optional<int64_t> timestamp_ms;
};

/// The snapshot a read of `table_path` sees.
Result<SnapshotPtr> OpenSnapshot(const io::FileSystemPtr& fs,
                                 const std::string& table_path,
                                 const TimeTravelSpec& travel = {});
/// A DataSource over that snapshot (partition values parsed in `time_zone_id`).
Result<std::shared_ptr<DeltaDataSource>> OpenDeltaSource(
    io::FileSystemPtr fs, const std::string& table_path,
    const TimeTravelSpec& travel = {}, const std::string& time_zone_id = "UTC");

}  // namespace spate::table
