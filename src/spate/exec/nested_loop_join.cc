// Copyright spate authors.
#include "spate/exec/nested_loop_join.h"

#include "spate/exec/exec_context.h"
#include "spate/exec/join_output.h"

namespace spate::exec {

namespace {

class NestedLoopStream final : public ProbeLoopStream {
 public:
  NestedLoopStream(const NestedLoopJoin* op, BatchStreamPtr left_input, BatchPtr right,
                   ExecContext* ctx)
      : op_(op),
        ctx_(ctx),
        left_source_(std::move(left_input)),
        right_(std::move(right)),
        output_(op->type(), op->condition(), op->child(0).schema(), op->child(1).schema(),
                op->schema()) {
    if (output_.tracks_right())
      right_matched_.assign(static_cast<size_t>(right_->num_rows()), 0);
  }

 private:
  Status Open() override {
    left_input_ = std::move(left_source_);
    return Status::OK();
  }
  Status StartProbe() override {
    col_ = 0;
    return Status::OK();
  }
  BatchPtr Finish() override {
    if (!output_.tracks_right()) return nullptr;
    return output_.UnmatchedRight(*right_, right_matched_.data());
  }

  Status Step() override {
    const int64_t n = left_->num_rows();
    const int64_t m = right_->num_rows();
    const int64_t cap = ctx_->batch_size();
    const bool first_decides = output_.first_match_decides();
    li_.clear();
    ri_.clear();
    if (m == 0) {
      row_ = n;
    } else if (first_decides) {
      // Any right row matches every left row.
      for (int64_t i = 0; i < n; ++i) left_matched_[i] = 1;
      row_ = n;
    }
    while (row_ < n && static_cast<int64_t>(li_.size()) < cap) {
      int64_t take = std::min(m - col_, cap - static_cast<int64_t>(li_.size()));
      for (int64_t j = 0; j < take; ++j) {
        li_.push_back(static_cast<int32_t>(row_));
        ri_.push_back(static_cast<int32_t>(col_ + j));
      }
      col_ += take;
      if (col_ >= m) {
        col_ = 0;
        ++row_;
      }
    }
    SPATE_ASSIGN_OR_RETURN(
        BatchPtr out,
        output_.Pairs(*left_, *right_, li_, ri_, left_matched_.data(),
                      output_.tracks_right() ? right_matched_.data() : nullptr,
                      ctx_->eval()));
    if (out) queue_.push_back(std::move(out));
    if (row_ >= n) {
      if (BatchPtr rest = output_.FinishLeft(*left_, left_matched_.data()))
        queue_.push_back(std::move(rest));
      left_.reset();
    }
    return Status::OK();
  }

  const NestedLoopJoin* op_;
  ExecContext* ctx_;
  BatchStreamPtr left_source_;  // handed to left_input_ by Open()
  BatchPtr right_;
  JoinOutput output_;
  std::vector<uint8_t> right_matched_;
  int64_t col_ = 0;
  std::vector<int32_t> li_, ri_;
};

}  // namespace

NestedLoopJoin::NestedLoopJoin(sql::JoinType type, BoundExprPtr condition,
                               SchemaPtr schema, PhysicalOpPtr left,
                               std::shared_ptr<const Exchange> right)
    : PhysicalOp(std::move(schema), {std::move(left), right}),
      type_(type),
      condition_(std::move(condition)),
      broadcast_(std::move(right)) {}

Result<BatchStreamPtr> NestedLoopJoin::Open(int partition, ExecContext* ctx) const {
  SPATE_ASSIGN_OR_RETURN(BatchPtr right, broadcast_->BroadcastBatch(ctx));
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr left, child(0).Open(partition, ctx));
  return BatchStreamPtr(
      std::make_unique<NestedLoopStream>(this, std::move(left), std::move(right), ctx));
}

std::string NestedLoopJoin::Describe() const {
  std::string s =
      "BroadcastNestedLoopJoin BuildRight, " + std::string(sql::JoinTypeDisplay(type_));
  if (condition_) s += ", " + condition_->ToString();
  return s;
}

}  // namespace spate::exec
