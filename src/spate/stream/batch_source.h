// Copyright spate authors.
#pragma once

// DataSources the streaming runtime puts in place of a StreamingRelation for one batch:
//  - BatchesDataSource: rows already in memory (MemoryStream, rate sources), one split
//    per batch.
//  - CountingDataSource: wraps another source and counts the rows its splits return
//    (a batch's numInputRows per source; a split read twice counts once).
//  - FaultPoint: the crash-test hook. SPATE_FAULT=<name>[:<hit>] in the environment makes
//    the process die with SIGKILL the <hit>-th time (default first) execution passes the
//    named point of the micro-batch protocol; SPATE_FAULT_TRACE_FD=<fd> reports every
//    point passed as a line "<name>" on that file descriptor (the crash tests' progress).
// Thread safety: immutable sources; the counter is atomic.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/data_source.h"
#include "spate/types/value.h"

namespace spate::stream {

class BatchesDataSource final : public DataSource {
 public:
  BatchesDataSource(SchemaPtr schema, std::vector<BatchPtr> batches,
                    std::string description);
  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(batches_.size()); }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  std::string Describe() const override { return description_; }

 private:
  SchemaPtr schema_;
  std::vector<BatchPtr> batches_;
  std::string description_;
};

class CountingDataSource final : public DataSource {
 public:
  explicit CountingDataSource(DataSourcePtr inner);
  const SchemaPtr& schema() const override { return inner_->schema(); }
  int num_splits() const override { return inner_->num_splits(); }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  std::string Describe() const override { return inner_->Describe(); }
  /// Rows read: per split the most any reader of it returned, so a batch that the sink
  /// runs twice (foreachBatch doing count() then a write) is not counted twice.
  int64_t rows() const;

 private:
  DataSourcePtr inner_;
  std::shared_ptr<std::vector<std::atomic<int64_t>>> per_split_;
};

/// Several sources of the same data columns, each with constant values for the other
/// columns (partition values taken from folder names): `schema` is the full schema;
/// part.constants has one entry per field of `schema`, set for constant columns;
/// part.inner yields the remaining fields in schema order. Splits are the parts' splits
/// in order.
class ConstantColumnsUnion final : public DataSource {
 public:
  struct Part {
    DataSourcePtr inner;
    std::vector<std::optional<Value>> constants;
  };
  ConstantColumnsUnion(SchemaPtr schema, std::vector<Part> parts,
                       std::string description);
  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(splits_.size()); }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  std::string Describe() const override { return description_; }

 private:
  SchemaPtr schema_;
  std::vector<Part> parts_;
  std::vector<std::pair<int, int>> splits_;
  std::string description_;
};

/// Reports the point on SPATE_FAULT_TRACE_FD; dies with SIGKILL when SPATE_FAULT names
/// it (see file comment).
void FaultPoint(const char* name);

}  // namespace spate::stream
