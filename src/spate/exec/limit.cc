// Copyright spate authors.
#include "spate/exec/limit.h"

#include "spate/columnar/kernels.h"

namespace spate::exec {

namespace {

class LimitStream final : public BatchStream {
 public:
  LimitStream(BatchStreamPtr input, int64_t limit, int64_t offset)
      : input_(std::move(input)), remaining_(limit), skip_(offset) {}
  Result<BatchPtr> Next() override {
    for (;;) {
      if (remaining_ == 0) return BatchPtr();
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, input_->Next());
      if (!b) return b;
      int64_t n = b->num_rows();
      int64_t start = 0;
      if (skip_ > 0) {
        start = std::min(skip_, n);
        skip_ -= start;
      }
      int64_t take = n - start;
      if (remaining_ >= 0) take = std::min(take, remaining_);
      if (take <= 0) continue;
      if (remaining_ > 0) remaining_ -= take;
      if (start == 0 && take == n) return b;
      return SliceBatch(*b, start, take);
    }
  }

 private:
  BatchStreamPtr input_;
  int64_t remaining_;  // -1 = unlimited
  int64_t skip_;
};

}  // namespace

BatchStreamPtr MakeLimitStream(BatchStreamPtr input, int64_t limit, int64_t offset) {
  return std::make_unique<LimitStream>(std::move(input), limit, offset);
}

LocalLimit::LocalLimit(int64_t limit, PhysicalOpPtr child)
    : PhysicalOp(child->schema(), {child}), limit_(limit) {}

Result<BatchStreamPtr> LocalLimit::Open(int partition, ExecContext* ctx) const {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr in, child().Open(partition, ctx));
  return MakeLimitStream(std::move(in), limit_, 0);
}

GlobalLimit::GlobalLimit(int64_t limit, int64_t offset, PhysicalOpPtr child)
    : PhysicalOp(child->schema(), {child}), limit_(limit), offset_(offset) {}

Result<BatchStreamPtr> GlobalLimit::Open(int partition, ExecContext* ctx) const {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr in, child().Open(partition, ctx));
  return MakeLimitStream(std::move(in), limit_, offset_);
}

std::string GlobalLimit::Describe() const {
  std::string s = "GlobalLimit " + std::to_string(limit_);
  if (offset_ > 0) s += ", " + std::to_string(offset_);
  return s;
}

}  // namespace spate::exec
