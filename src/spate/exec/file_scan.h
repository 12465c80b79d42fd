// Copyright spate authors.
#pragma once

// FileScan: reads a DataSource (Parquet files, ...) — one partition per split. Only the
// requested columns are read; the others are NULL columns of the right type (the planner
// requests every column a consumer references), and the pushed predicates let the source
// skip splits by statistics. exec knows DataSource only through its interface
// (columnar/data_source.h), so it does not depend on the formats that implement it.
//
// Thread safety: immutable; partitions may be opened concurrently.

#include <string>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/exec/physical_op.h"

namespace spate::exec {

class FileScan final : public PhysicalOp {
 public:
  /// `columns`: indices into `schema` to read (empty with `all_columns` = read all).
  FileScan(SchemaPtr schema, DataSourcePtr source, bool all_columns,
           std::vector<int> columns, std::vector<ScanPredicate> predicates,
           std::string label);

  int num_partitions() const override;
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override { return label_; }

 private:
  DataSourcePtr source_;
  ScanSpec spec_;
  std::string label_;
};

}  // namespace spate::exec
