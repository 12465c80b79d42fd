// Copyright spate authors.
#include "spate/exec/join_output.h"

#include "spate/columnar/kernels.h"
#include "spate/exec/filter.h"

namespace spate::exec {

using sql::JoinType;

JoinOutput::JoinOutput(JoinType type, BoundExprPtr residual, SchemaPtr left_schema,
                       SchemaPtr right_schema, SchemaPtr output_schema)
    : type_(type),
      residual_(std::move(residual)),
      left_schema_(std::move(left_schema)),
      right_schema_(std::move(right_schema)),
      output_schema_(std::move(output_schema)) {
  std::vector<Field> fields = left_schema_->fields();
  for (const auto& f : right_schema_->fields()) fields.push_back(f);
  combined_schema_ = std::make_shared<const Schema>(std::move(fields));
  emits_pairs_ = type_ != JoinType::kLeftSemi && type_ != JoinType::kLeftAnti;
  tracks_right_ = type_ == JoinType::kRightOuter || type_ == JoinType::kFullOuter;
}

Result<BatchPtr> JoinOutput::Pairs(const Batch& left, const Batch& right,
                                   const std::vector<int32_t>& li,
                                   const std::vector<int32_t>& ri, uint8_t* left_matched,
                                   uint8_t* right_matched,
                                   const EvalContext& eval) const {
  int64_t n = static_cast<int64_t>(li.size());
  if (n == 0) return BatchPtr();
  std::vector<ColumnPtr> cols;
  if (emits_pairs_ || residual_) {
    cols.reserve(static_cast<size_t>(left.num_columns()) +
                 static_cast<size_t>(right.num_columns()));
    for (const auto& c : left.columns()) cols.push_back(Take(*c, li.data(), n));
    for (const auto& c : right.columns()) cols.push_back(Take(*c, ri.data(), n));
  }
  bool all = true;
  std::vector<int32_t> pass;
  if (residual_) {
    Batch combined(combined_schema_, cols, n);
    SPATE_ASSIGN_OR_RETURN(ColumnPtr mask, residual_->Evaluate(combined, eval));
    pass = TrueRows(*mask, &all);
    if (!all && pass.empty()) return BatchPtr();
  }
  if (all) {
    for (int64_t k = 0; k < n; ++k) {
      if (left_matched) left_matched[li[k]] = 1;
      if (right_matched) right_matched[ri[k]] = 1;
    }
  } else {
    for (int32_t k : pass) {
      if (left_matched) left_matched[li[k]] = 1;
      if (right_matched) right_matched[ri[k]] = 1;
    }
  }
  if (!emits_pairs_) return BatchPtr();
  if (!all) {
    int64_t m = static_cast<int64_t>(pass.size());
    for (auto& c : cols) c = Take(*c, pass.data(), m);
    n = m;
  }
  return Batch::Make(output_schema_, std::move(cols), n);
}

BatchPtr JoinOutput::FinishLeft(const Batch& left, const uint8_t* left_matched) const {
  bool want_matched;
  switch (type_) {
    case JoinType::kLeftOuter:
    case JoinType::kFullOuter:
    case JoinType::kLeftAnti:
      want_matched = false;
      break;
    case JoinType::kLeftSemi:
      want_matched = true;
      break;
    default:
      return nullptr;
  }
  int64_t n = left.num_rows();
  std::vector<int32_t> rows;
  for (int64_t i = 0; i < n; ++i) {
    if ((left_matched[i] != 0) == want_matched) rows.push_back(static_cast<int32_t>(i));
  }
  if (rows.empty()) return nullptr;
  int64_t m = static_cast<int64_t>(rows.size());
  std::vector<ColumnPtr> cols;
  if (m == n) {
    cols = left.columns();
  } else {
    for (const auto& c : left.columns()) cols.push_back(Take(*c, rows.data(), m));
  }
  if (emits_pairs_) {
    for (const auto& f : right_schema_->fields())
      cols.push_back(Column::MakeNull(f.type, m));
  }
  return Batch::Make(output_schema_, std::move(cols), m);
}

BatchPtr JoinOutput::UnmatchedRight(const Batch& right,
                                    const uint8_t* right_matched) const {
  if (!tracks_right_) return nullptr;
  std::vector<int32_t> rows;
  for (int64_t i = 0; i < right.num_rows(); ++i) {
    if (!right_matched[i]) rows.push_back(static_cast<int32_t>(i));
  }
  if (rows.empty()) return nullptr;
  int64_t m = static_cast<int64_t>(rows.size());
  std::vector<ColumnPtr> cols;
  for (const auto& f : left_schema_->fields())
    cols.push_back(Column::MakeNull(f.type, m));
  for (const auto& c : right.columns()) cols.push_back(Take(*c, rows.data(), m));
  return Batch::Make(output_schema_, std::move(cols), m);
}

Result<BatchPtr> ProbeLoopStream::Next() {
  if (!opened_) {
    SPATE_RETURN_IF_ERROR(Open());
    opened_ = true;
  }
  for (;;) {
    if (!queue_.empty()) {
      BatchPtr b = std::move(queue_.front());
      queue_.pop_front();
      return b;
    }
    if (left_) {
      SPATE_RETURN_IF_ERROR(Step());
      continue;
    }
    if (done_) return BatchPtr();
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, left_input_->Next());
    if (!b) {
      done_ = true;
      if (BatchPtr rest = Finish()) queue_.push_back(std::move(rest));
      continue;
    }
    if (b->num_rows() == 0) continue;
    left_ = std::move(b);
    left_matched_.assign(static_cast<size_t>(left_->num_rows()), 0);
    row_ = 0;
    SPATE_RETURN_IF_ERROR(StartProbe());
  }
}

}  // namespace spate::exec
