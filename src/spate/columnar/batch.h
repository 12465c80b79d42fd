// Copyright spate authors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "spate/columnar/column.h"
#include "spate/types/data_type.h"

namespace spate {

class Batch;
using BatchPtr = std::shared_ptr<const Batch>;

/// A set of equal-length columns with a schema: the unit operators exchange (a few
/// thousand rows, or more for materialized results).
///
/// Ownership: immutable; columns are shared, so projecting or renaming a batch copies no
/// data. Thread safety: safe to share across threads.
class Batch {
 public:
  Batch(SchemaPtr schema, std::vector<ColumnPtr> columns, int64_t num_rows);
  static BatchPtr Make(SchemaPtr schema, std::vector<ColumnPtr> columns,
                       int64_t num_rows) {
    return std::make_shared<const Batch>(std::move(schema), std::move(columns), num_rows);
  }
  /// An empty batch of the schema (zero rows, all columns present).
  static BatchPtr Empty(SchemaPtr schema);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ColumnPtr& column(int i) const { return columns_[i]; }
  const std::vector<ColumnPtr>& columns() const { return columns_; }

  /// Row i as values (slow path).
  std::vector<Value> GetRow(int64_t i) const;
  /// The batch with another schema of the same types (renames); no copy.
  BatchPtr WithSchema(SchemaPtr schema) const;

 private:
  SchemaPtr schema_;
  std::vector<ColumnPtr> columns_;
  int64_t num_rows_;
};

}  // namespace spate
