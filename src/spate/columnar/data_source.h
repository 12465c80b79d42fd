// Copyright spate authors.
#pragma once

// DataSource: the read side of a table stored outside the engine (Parquet files today),
// as the planner and executor see it. The interface lives here, below sql and exec, so
// that a plan can hold a source and exec can scan it without depending on the modules
// that implement sources (formats/): formats implements DataSource, exec's FileScan
// operator drives it, and the api wires the two together.
//
// A source has a fixed schema and a number of splits (independent units of work, e.g. one
// Parquet row group); OpenSplit reads one split, returning only the requested columns and
// free to skip rows that cannot match the pushed-down predicates (they are hints: the
// plan still filters every row).
//
// Thread safety: a DataSource is immutable and OpenSplit may be called concurrently for
// different splits; a BatchReader is used by one thread.
// Failure: errors (I/O, corrupt files) are returned as a Status naming the file.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/columnar/batch.h"
#include "spate/types/value.h"

namespace spate {

/// `column <op> literal` (or IS [NOT] NULL) over a source column, for skipping data by
/// statistics. The literal has the column's type.
struct ScanPredicate {
  enum class Op : uint8_t { kEq, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull };
  int column = 0;  // index into DataSource::schema()
  Op op = Op::kEq;
  Value literal;
};

struct ScanSpec {
  /// Indices into DataSource::schema() to read, in this order (the batches' columns).
  std::vector<int> columns;
  std::vector<ScanPredicate> predicates;
};

class BatchReader {
 public:
  virtual ~BatchReader() = default;
  /// The next batch, or nullptr at the end.
  virtual Result<BatchPtr> Next() = 0;
};

/// A reader with no batches (a split that statistics or an empty file rule out).
std::unique_ptr<BatchReader> MakeEmptyReader();

class DataSource {
 public:
  virtual ~DataSource() = default;
  virtual const SchemaPtr& schema() const = 0;
  virtual int num_splits() const = 0;
  virtual Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                         const ScanSpec& spec) const = 0;
  /// One line for EXPLAIN, e.g. "FileScan parquet [a#0, b#1] Location: /data/t".
  virtual std::string Describe() const = 0;
  /// The file a split reads (input_file_name()); "" when it is not one file.
  virtual std::string SplitPath(int split) const { return {}; }
  /// The bytes a full scan reads (the files' sizes, as Spark's sizeInBytes), when known;
  /// the planner broadcasts a join side below spark.sql.autoBroadcastJoinThreshold.
  virtual std::optional<int64_t> EstimatedBytes() const { return std::nullopt; }
};
using DataSourcePtr = std::shared_ptr<const DataSource>;

}  // namespace spate
