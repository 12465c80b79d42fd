// Copyright spate authors.
#pragma once

// RangeScan: Spark's range(start, end, step, numSlices): the bigint column `id` with
// start, start + step, ... up to end (exclusive), split into `splits` partitions of
// consecutive values (partition i holds elements [i*n/splits, (i+1)*n/splits)).
//
// Thread safety: immutable; partitions may be opened concurrently.

#include "spate/exec/physical_op.h"

namespace spate::exec {

class RangeScan final : public PhysicalOp {
 public:
  /// REQUIRES step != 0, splits >= 1.
  RangeScan(SchemaPtr schema, int64_t start, int64_t end, int64_t step, int splits);

  int num_partitions() const override { return splits_; }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

  /// Number of values in the range.
  int64_t num_rows() const { return num_rows_; }

 private:
  int64_t start_, end_, step_;
  int splits_;
  int64_t num_rows_;
};

}  // namespace spate::exec
