// Copyright spate authors.
#include "spate/exec/coalesce.h"

#include <algorithm>

namespace spate::exec {

namespace {

class ChainStream final : public BatchStream {
 public:
  ChainStream(const PhysicalOp* child, int lo, int hi, ExecContext* ctx)
      : child_(child), next_(lo), hi_(hi), ctx_(ctx) {}
  Result<BatchPtr> Next() override {
    for (;;) {
      if (!current_) {
        if (next_ >= hi_) return BatchPtr();
        SPATE_ASSIGN_OR_RETURN(current_, child_->Open(next_++, ctx_));
      }
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, current_->Next());
      if (b) return b;
      current_.reset();
    }
  }

 private:
  const PhysicalOp* child_;
  int next_, hi_;
  ExecContext* ctx_;
  BatchStreamPtr current_;
};

}  // namespace

Coalesce::Coalesce(int num_partitions, PhysicalOpPtr child)
    : PhysicalOp(child->schema(), {child}) {
  num_partitions_ = std::clamp(num_partitions, 1, std::max(1, child->num_partitions()));
}

Result<BatchStreamPtr> Coalesce::Open(int partition, ExecContext* ctx) const {
  int64_t m = child().num_partitions();
  int lo = static_cast<int>(m * partition / num_partitions_);
  int hi = static_cast<int>(m * (partition + 1) / num_partitions_);
  return BatchStreamPtr(std::make_unique<ChainStream>(&child(), lo, hi, ctx));
}

}  // namespace spate::exec
