// Copyright spate authors.
#pragma once

// Limits. LocalLimit keeps the first `limit` rows of each partition (and stops pulling
// its child once it has them); GlobalLimit runs over a single partition, skips `offset`
// rows and then keeps `limit` rows (-1 = all).
//
// Thread safety: immutable; partitions may be opened concurrently.

#include "spate/exec/physical_op.h"

namespace spate::exec {

class LocalLimit final : public PhysicalOp {
 public:
  LocalLimit(int64_t limit, PhysicalOpPtr child);

  int num_partitions() const override { return child().num_partitions(); }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override { return "LocalLimit " + std::to_string(limit_); }

 private:
  int64_t limit_;
};

class GlobalLimit final : public PhysicalOp {
 public:
  /// REQUIRES child has one partition.
  GlobalLimit(int64_t limit, int64_t offset, PhysicalOpPtr child);

  int num_partitions() const override { return 1; }
  Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const override;
  std::string Describe() const override;

 private:
  int64_t limit_;
  int64_t offset_;
};

/// A stream that skips `offset` rows of `input` and then yields at most `limit` (-1 = no
/// limit) rows, slicing batches at the edges and not pulling past the limit.
BatchStreamPtr MakeLimitStream(BatchStreamPtr input, int64_t limit, int64_t offset);

}  // namespace spate::exec
