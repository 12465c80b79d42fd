// Copyright spate authors.
#pragma once

// ParquetFileReader: reads a Parquet file into spate batches.
//
// Open() reads and validates the footer and converts the schema (unsupported types are
// refused there). ReadRowGroup() reads the requested top-level columns of one row group:
// each leaf column chunk is read with one positional read, its pages are checked (CRC
// when present), decompressed and decoded straight into column buffers (PLAIN,
// dictionary, RLE booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT; data pages v1 and v2), then nested columns are
// assembled from the definition/repetition levels.
//
// Every length and offset read from the file is bounds-checked; corrupt or unsupported
// input yields a Status whose message names the file, never a crash.
//
// Ownership: shares the RandomAccessFile. Thread safety: const methods may be called
// concurrently (row groups are read in parallel by the scan).

#include <memory>
#include <string>
#include <vector>

#include "spate/columnar/batch.h"
#include "spate/formats/parquet/metadata.h"
#include "spate/formats/parquet/schema.h"
#include "spate/io/file_system.h"
#include "spate/types/value.h"

namespace spate::formats::parquet {

/// Column-chunk statistics of one top-level primitive column, as spate values.
struct ColumnStats {
  bool has_min_max = false;
  Value min, max;
  bool has_null_count = false;
  int64_t null_count = 0;
  int64_t num_values = 0;
};

class ParquetFileReader {
 public:
  static Result<std::shared_ptr<ParquetFileReader>> Open(const io::FileSystemPtr& fs,
                                                         const std::string& path);
  static Result<std::shared_ptr<ParquetFileReader>> Open(
      std::shared_ptr<io::RandomAccessFile> file);

  const std::string& path() const { return file_->path(); }
  const SchemaPtr& schema() const { return schema_.schema; }
  const FileMetaData& metadata() const { return metadata_; }
  const ParquetSchema& parquet_schema() const { return schema_; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }
  int64_t row_group_rows(int rg) const { return metadata_.row_groups[rg].num_rows; }

  /// Reads top-level columns `columns` (indices into schema()) of row group `rg`; the
  /// batch's schema holds those fields in that order.
  Result<BatchPtr> ReadRowGroup(int rg, const std::vector<int>& columns) const;
  /// Every row group, all columns, concatenated into batches (tests, small files).
  Result<std::vector<BatchPtr>> ReadAll() const;
  /// Statistics of top-level column `column` in row group `rg`; has_min_max is false for
  /// nested columns or when the file has no usable statistics.
  ColumnStats Stats(int rg, int column) const;

  struct LeafColumn;

 private:
  ParquetFileReader() = default;
  Status Err(const Status& st) const;
  Status ReadLeaf(int rg, int leaf, LeafColumn* out) const;

  std::shared_ptr<io::RandomAccessFile> file_;
  FileMetaData metadata_;
  ParquetSchema schema_;
};

}  // namespace spate::formats::parquet
