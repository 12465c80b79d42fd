// Copyright spate authors.
#pragma once

// ParquetWriter: writes spate batches as one Parquet file (format 1, data page v1,
// PLAIN and RLE_DICTIONARY encodings, RLE/bit-packed levels, per-chunk statistics).
//
// Batches are buffered (shared, not copied) until a row group's worth (estimated
// in-memory bytes or rows) is reached; then each leaf column is shredded into levels and
// values, dictionary-encoded when its dictionary stays under dictionary_page_bytes (else
// PLAIN), split into pages of ~page_bytes, compressed, and appended to the file.
//
// Ownership: owns the WritableFile. Thread safety: one thread at a time.
// Failure: Write/Close return the first I/O or data error (e.g. a null in a non-nullable
// field); after an error the file is incomplete and should be deleted by the caller.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/batch.h"
#include "spate/formats/parquet/metadata.h"
#include "spate/formats/parquet/schema.h"
#include "spate/io/file_system.h"
#include "spate/types/value.h"

namespace spate::formats::parquet {

struct WriterOptions {
  Codec codec = Codec::kSnappy;
  /// Target row group size in (estimated, uncompressed) bytes: parquet.block.size.
  int64_t row_group_bytes = 128ll << 20;
  /// Maximum rows per row group.
  int64_t row_group_rows = int64_t{1} << 40;
  /// Target data page size: parquet.page.size.
  int64_t page_bytes = 1 << 20;
  /// Dictionary size above which a column chunk falls back to PLAIN.
  int64_t dictionary_page_bytes = 1 << 20;
  bool enable_dictionary = true;
  bool write_page_crc = true;
  std::vector<KeyValue> key_value_metadata;
  /// Keep leaf_summaries() (Delta's file statistics without a second pass over the rows).
  bool summarize_leaves = false;
};

/// One leaf's statistics in one row group, in spate values, as a pass over the rows in
/// order would compute them (formats::AccumulateStats): NULLs counted with their
/// ancestors' (the chunk's null count); min/max over the non-NaN values of orderable
/// types (numbers, decimals, dates, timestamps, strings — whole strings, also past the 4
/// KiB the footer keeps), the first value seen winning ties (0.0 / -0.0, which the footer
/// normalizes); `nan` when a NaN was seen. Leaves inside lists and maps stay empty.
struct LeafSummary {
  int64_t null_count = 0;
  std::optional<Value> min;
  std::optional<Value> max;
  bool nan = false;
};

inline constexpr const char* kCreatedBy = "spate version 0.1.0";

class ParquetWriter {
 public:
  static Result<std::unique_ptr<ParquetWriter>> Make(
      std::unique_ptr<io::WritableFile> file, const Schema& schema,
      WriterOptions options = {});
  ~ParquetWriter();
  /// Appends the rows of `batch` (its columns must have the writer schema's types).
  Status Write(const BatchPtr& batch);
  /// Writes the remaining row group and the footer, and closes the file.
  Status Close();
  int64_t rows_written() const { return rows_written_; }
  int64_t bytes_written() const;
  const FileMetaData& metadata() const { return metadata_; }
  /// With WriterOptions::summarize_leaves: [row group][leaf (column chunk order)].
  const std::vector<std::vector<LeafSummary>>& leaf_summaries() const {
    return summaries_;
  }
  const ParquetSchema& parquet_schema() const { return schema_; }
  /// Turns summarize_leaves on (before the first row group is written).
  void SummarizeLeaves() { options_.summarize_leaves = true; }

  struct LeafData;

 private:
  ParquetWriter(std::unique_ptr<io::WritableFile> file, ParquetSchema schema,
                WriterOptions options);
  Status FlushRowGroup();
  Status WriteChunk(int leaf, LeafData& data, ColumnChunk* chunk);
  Status Append(std::string_view bytes);

  std::unique_ptr<io::WritableFile> file_;
  ParquetSchema schema_;
  WriterOptions options_;
  FileMetaData metadata_;
  std::vector<std::vector<LeafSummary>> summaries_;
  std::vector<BatchPtr> pending_;
  int64_t pending_rows_ = 0;
  int64_t pending_bytes_ = 0;
  int64_t rows_written_ = 0;
  bool closed_ = false;
};

}  // namespace spate::formats::parquet
