// Copyright spate authors.
#pragma once

// Physical operators: the executable form of a resolved plan.
//
// A PhysicalOp describes one operator over partitions: its output schema, how many
// partitions it produces, and how to open a pull-based BatchStream over one of them.
// Operators are immutable descriptions; everything mutable (hash tables, cursors,
// materialized exchanges) lives in the stream objects or in the per-execution
// ExecContext, so one operator tree may be executed by several queries at once.
//
// Stage boundaries (exchanges, broadcasts, sorted runs) are materialized by Prepare(),
// which the executor calls once per execution, post-order, from the driver thread; it
// runs the producing stage's partitions in parallel (ExecContext::ParallelFor). Open()
// of a consumer then reads the materialized data.
//
// Thread safety: PhysicalOp methods are const and may be called from any thread;
// a BatchStream is used by one thread.
// Failure: errors (expression evaluation, ANSI arithmetic, accumulators) are returned as
// a Status from Prepare(), Open() or Next(); the executor stops at the first error and
// returns it (the lowest failing partition's). No operator throws.

#include <memory>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/columnar/batch.h"

namespace spate::exec {

class ExecContext;

/// A pull-based stream of the batches of one partition.
class BatchStream {
 public:
  virtual ~BatchStream() = default;
  /// The next batch (never empty is not guaranteed), or nullptr at the end.
  virtual Result<BatchPtr> Next() = 0;
};
using BatchStreamPtr = std::unique_ptr<BatchStream>;

class PhysicalOp;
using PhysicalOpPtr = std::shared_ptr<const PhysicalOp>;

class PhysicalOp {
 public:
  PhysicalOp(SchemaPtr schema, std::vector<PhysicalOpPtr> children)
      : schema_(std::move(schema)), children_(std::move(children)) {}
  virtual ~PhysicalOp() = default;
  PhysicalOp(const PhysicalOp&) = delete;
  PhysicalOp& operator=(const PhysicalOp&) = delete;

  /// Schema of the batches this operator produces.
  const SchemaPtr& schema() const { return schema_; }
  const std::vector<PhysicalOpPtr>& children() const { return children_; }
  const PhysicalOp& child(int i = 0) const { return *children_[static_cast<size_t>(i)]; }

  virtual int num_partitions() const = 0;
  /// Materializes this operator's stage boundary into `ctx`. Called once per execution
  /// from the driver thread after the children were prepared. Default: nothing to do.
  virtual Status Prepare(ExecContext* ctx) const { return Status::OK(); }
  /// Opens partition `partition` (REQUIRES 0 <= partition < num_partitions()).
  virtual Result<BatchStreamPtr> Open(int partition, ExecContext* ctx) const = 0;
  /// One line for EXPLAIN, e.g. "Filter (id#0L > 5)".
  virtual std::string Describe() const = 0;

 private:
  SchemaPtr schema_;
  std::vector<PhysicalOpPtr> children_;
};

/// A stream over batches held in memory (shared, not copied).
class VectorStream final : public BatchStream {
 public:
  explicit VectorStream(std::vector<BatchPtr> batches, SchemaPtr relabel = nullptr)
      : batches_(std::move(batches)), relabel_(std::move(relabel)) {}
  Result<BatchPtr> Next() override;

 private:
  std::vector<BatchPtr> batches_;
  SchemaPtr relabel_;
  size_t next_ = 0;
};

/// Reads partition `partition` of `op` to the end.
Status DrainPartition(const PhysicalOp& op, int partition, ExecContext* ctx,
                      std::vector<BatchPtr>* out);
/// Reads partition `partition` of `op` into one batch of `op`'s schema (copying when the
/// partition has several batches).
Result<BatchPtr> DrainPartitionToBatch(const PhysicalOp& op, int partition,
                                       ExecContext* ctx);

/// The tree under `op` drawn like Spark's physical plans ("+- ", ":- ").
std::string RenderTree(const PhysicalOp& op);

}  // namespace spate::exec
