// Copyright spate authors.
#include "spate/exec/local_scan.h"

#include <algorithm>

namespace spate::exec {

LocalScan::LocalScan(SchemaPtr schema, std::vector<BatchPtr> batches, int partitions,
                     std::string label)
    : PhysicalOp(std::move(schema), {}),
      batches_(std::move(batches)),
      label_(std::move(label)) {
  partitions_ =
      std::clamp<int>(partitions, 1, std::max<int>(1, static_cast<int>(batches_.size())));
}

Result<BatchStreamPtr> LocalScan::Open(int partition, ExecContext*) const {
  size_t n = batches_.size();
  size_t lo = n * static_cast<size_t>(partition) / static_cast<size_t>(partitions_);
  size_t hi = n * static_cast<size_t>(partition + 1) / static_cast<size_t>(partitions_);
  std::vector<BatchPtr> mine(batches_.begin() + static_cast<std::ptrdiff_t>(lo),
                             batches_.begin() + static_cast<std::ptrdiff_t>(hi));
  return BatchStreamPtr(std::make_unique<VectorStream>(std::move(mine), schema()));
}

}  // namespace spate::exec
