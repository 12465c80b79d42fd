// Copyright spate authors.
#include "spate/exec/range_scan.h"

#include "spate/compute/kernel_columns.h"
#include "spate/exec/exec_context.h"

namespace spate::exec {

namespace {

class RangeStream final : public BatchStream {
 public:
  RangeStream(SchemaPtr schema, int64_t first, int64_t step, int64_t count,
              int64_t batch_size)
      : schema_(std::move(schema)),
        next_(first),
        step_(step),
        remaining_(count),
        batch_size_(batch_size) {}
  Result<BatchPtr> Next() override {
    if (remaining_ <= 0) return BatchPtr();
    int64_t n = std::min(remaining_, batch_size_);
    kernel::Out<int64_t> out(n);
    // Wrapping arithmetic, as Spark's range does on overflow of the last element.
    uint64_t v = static_cast<uint64_t>(next_);
    uint64_t step = static_cast<uint64_t>(step_);
    for (int64_t i = 0; i < n; ++i) {
      out.data[i] = static_cast<int64_t>(v);
      v += step;
    }
    next_ = static_cast<int64_t>(v);
    remaining_ -= n;
    auto col = kernel::MakeColumn(DataType::Long(), n, 0, nullptr, out.buf);
    return Batch::Make(schema_, {col}, n);
  }

 private:
  SchemaPtr schema_;
  int64_t next_;
  int64_t step_;
  int64_t remaining_;
  int64_t batch_size_;
};

}  // namespace

RangeScan::RangeScan(SchemaPtr schema, int64_t start, int64_t end, int64_t step,
                     int splits)
    : PhysicalOp(std::move(schema), {}),
      start_(start),
      end_(end),
      step_(step),
      splits_(splits < 1 ? 1 : splits) {
  __int128 span = static_cast<__int128>(end_) - start_;
  __int128 n = 0;
  if (step_ != 0 && ((span > 0 && step_ > 0) || (span < 0 && step_ < 0))) {
    n = span / step_ + (span % step_ != 0 ? 1 : 0);
  }
  num_rows_ = static_cast<int64_t>(n);
}

Result<BatchStreamPtr> RangeScan::Open(int partition, ExecContext* ctx) const {
  __int128 lo = static_cast<__int128>(num_rows_) * partition / splits_;
  __int128 hi = static_cast<__int128>(num_rows_) * (partition + 1) / splits_;
  int64_t first = static_cast<int64_t>(start_ + lo * step_);
  return BatchStreamPtr(std::make_unique<RangeStream>(
      schema(), first, step_, static_cast<int64_t>(hi - lo), ctx->batch_size()));
}

std::string RangeScan::Describe() const {
  return "Range (" + std::to_string(start_) + ", " + std::to_string(end_) +
         ", step=" + std::to_string(step_) + ", splits=" + std::to_string(splits_) + ")";
}

}  // namespace spate::exec
