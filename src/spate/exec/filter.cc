// Copyright spate authors.
#include "spate/exec/filter.h"

#include "spate/columnar/kernels.h"
#include "spate/exec/exec_context.h"

namespace spate::exec {

std::vector<int32_t> TrueRows(const Column& mask, bool* all) {
  int64_t n = mask.length();
  *all = false;
  if (mask.type_id() == TypeId::kNull || n == 0) return {};
  const uint8_t* values = mask.values()->data();
  if (mask.null_count() == 0 && bits::CountSet(values, n) == n) {
    *all = true;
    return {};
  }
  return SelectionFromBits(values, mask.validity_bits(), n);
}

Result<std::vector<int32_t>> SelectRows(const BoundExpr& condition, const Batch& input,
                                        const EvalContext& eval, bool* all) {
  SPATE_ASSIGN_OR_RETURN(ColumnPtr mask, condition.Evaluate(input, eval));
  return TrueRows(*mask, all);
}

namespace {

class FilterStream final : public BatchStream {
 public:
  FilterStream(const BoundExpr* condition, BatchStreamPtr input, EvalContext eval)
      : condition_(condition), input_(std::move(input)), eval_(std::move(eval)) {}
  Result<BatchPtr> Next() override {
    for (;;) {
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, input_->Next());
      if (!b) return b;
      if (b->num_rows() == 0) continue;
      bool all = false;
      SPATE_ASSIGN_OR_RETURN(std::vector<int32_t> rows,
                             SelectRows(*condition_, *b, eval_, &all));
      eval_.row_offset += b->num_rows();
      if (all) return b;
      if (rows.empty()) continue;
      return TakeBatch(*b, rows.data(), static_cast<int64_t>(rows.size()));
    }
  }

 private:
  const BoundExpr* condition_;
  BatchStreamPtr input_;
  EvalContext eval_;  // with this partition's index and row position
};

}  // namespace

Filter::Filter(BoundExprPtr condition, const PhysicalOpPtr& child)
    : PhysicalOp(child->schema(), {child}), condition_(std::move(condition)) {}

Result<BatchStreamPtr> Filter::Open(int partition, ExecContext* ctx) const {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr in, child().Open(partition, ctx));
  return BatchStreamPtr(std::make_unique<FilterStream>(condition_.get(), std::move(in),
                                                       ctx->eval(partition)));
}

}  // namespace spate::exec
