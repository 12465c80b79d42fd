// Copyright spate authors.
#pragma once

// JoinOutput: turns candidate (left row, right row) pairs into join output with the
// semantics of one join type. The residual condition is evaluated vectorized over a
// batch of pairs (the concatenated left ++ right rows); pairs where it is true count as
// matches. Matched flags per left/right row let the caller emit, at the end of a left
// batch, unmatched left rows padded with NULLs (left/full outer), matched rows (semi) or
// unmatched rows (anti), and at the end of a partition unmatched right rows (right/full).
//
// Shared by HashJoin and NestedLoopJoin. Thread safety: immutable; callers keep the
// matched flags.

#include <vector>

#include "spate/compute/bound_expr.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

/// Spark's physical-plan name of a join type: "Inner", "LeftOuter", "LeftSemi", ...
std::string JoinTypeText(sql::JoinType type);

class JoinOutput {
 public:
  JoinOutput(sql::JoinType type, BoundExprPtr residual, SchemaPtr left_schema,
             SchemaPtr right_schema, SchemaPtr output_schema);

  sql::JoinType type() const { return type_; }
  const BoundExprPtr& residual() const { return residual_; }
  /// True when matching pairs are output rows (inner, cross, outer joins).
  bool emits_pairs() const { return emits_pairs_; }
  /// True when unmatched right rows are emitted (right/full outer).
  bool tracks_right() const { return tracks_right_; }
  /// Semi/anti join without residual: the first candidate of a left row settles it.
  bool first_match_decides() const { return !emits_pairs_ && !residual_; }

  /// Applies the residual to the pairs (li[k], ri[k]); sets left_matched[li[k]] and
  /// right_matched[ri[k]] (either may be null) for the pairs that pass and returns their
  /// joined rows when emits_pairs() (else, or when none pass, nullptr).
  Result<BatchPtr> Pairs(const Batch& left, const Batch& right,
                         const std::vector<int32_t>& li, const std::vector<int32_t>& ri,
                         uint8_t* left_matched, uint8_t* right_matched,
                         const EvalContext& eval) const;
  /// After all pairs of `left` were seen: unmatched rows with NULL right columns (left
  /// and full outer), matched rows (semi), unmatched rows (anti); nullptr when nothing.
  BatchPtr FinishLeft(const Batch& left, const uint8_t* left_matched) const;
  /// Right rows with no match, with NULL left columns (right/full outer); nullptr if
  /// none.
  BatchPtr UnmatchedRight(const Batch& right, const uint8_t* right_matched) const;

 private:
  sql::JoinType type_;
  BoundExprPtr residual_;
  SchemaPtr left_schema_, right_schema_, output_schema_, combined_schema_;
  bool emits_pairs_;
  bool tracks_right_;
};

}  // namespace spate::exec
