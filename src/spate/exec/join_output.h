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

#include <deque>
#include <vector>

#include "spate/compute/bound_expr.h"
#include "spate/exec/physical_op.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

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

/// The pull loop both joins run over their probe input (HashJoin's probe child,
/// NestedLoopJoin's left child): queued output first; then the current probe batch
/// `left_`, which Step() works through (pushing output to `queue_`) until it resets it;
/// then the next non-empty probe batch, with its matched flags cleared and `row_` at 0;
/// at the end of the input, Finish() once (the build rows nothing matched, for right and
/// full outer joins), then the end of the stream.
/// Thread safety: one stream per partition, used by one thread at a time.
class ProbeLoopStream : public BatchStream {
 public:
  Result<BatchPtr> Next() final;

 protected:
  /// Called once, before the first probe batch; must set `left_input_`.
  virtual Status Open() = 0;
  /// Prepares a new probe batch `left_` (the hash join computes its keys).
  virtual Status StartProbe() = 0;
  /// Matches the next rows of `left_` from `row_` on; resets `left_` when it is done.
  virtual Status Step() = 0;
  /// The rows to emit after the last probe batch, or null.
  virtual BatchPtr Finish() = 0;

  BatchStreamPtr left_input_;
  BatchPtr left_;
  std::vector<uint8_t> left_matched_;
  int64_t row_ = 0;
  std::deque<BatchPtr> queue_;

 private:
  bool opened_ = false;
  bool done_ = false;
};

}  // namespace spate::exec
