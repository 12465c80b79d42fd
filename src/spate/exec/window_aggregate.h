// Copyright spate authors.
#pragma once

// Aggregates over window frames, for the Window operator. Rows arrive sorted by
// (partition keys, order keys); the WindowLayout says where partitions and peer groups
// (rows with equal order keys) begin and end. Strategies, all vectorized (a constant
// number of accumulator calls per batch, never one per row):
//   whole partition (UNBOUNDED both sides)  one Update with group = partition
//   UNBOUNDED PRECEDING .. x                per-row states, segmented prefix scan of
//                                           the states (Merge), value at the frame end
//   x .. UNBOUNDED FOLLOWING                the same scan run backwards (suffix)
//   ROWS a .. b, width > 16                 blocks of the frame width: each frame is a
//                                           block suffix + the next block's prefix (two
//                                           scans and one Merge), O(n) for any width
//   other bounded frames (narrow ROWS,      the frame rows of a chunk of output rows are
//   RANGE offsets, DISTINCT)                gathered and Updated per output group
// Scans of count/sum/avg/min/max states are typed loops; other functions use a blocked
// Merge scan (64-row blocks scanned by doubling, block carries scanned recursively), so
// a running frame costs O(n) either way. Merge order always follows row order,
// so first/last are exact.
//
// Thread safety: pure functions.

#include <vector>

#include "spate/compute/aggregate.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec {

/// Partition and peer-group boundaries of rows sorted for a window spec.
struct WindowLayout {
  int64_t num_rows = 0;
  std::vector<int64_t> part_id;               // per row
  std::vector<int64_t> part_begin, part_end;  // per partition, [begin, end)
  std::vector<int64_t> peer_begin, peer_end;  // per row, [begin, end)
  ColumnPtr order_key;                        // first order key (RANGE offset frames)
  bool order_ascending = true;
};

/// Inclusive frame bounds per row: rows [lo[i], hi[i]]; lo > hi is an empty frame.
Status ComputeFrameBounds(const sql::BoundFrame& frame, const WindowLayout& layout,
                          std::vector<int64_t>* lo, std::vector<int64_t>* hi);

/// The aggregate `fn` over each row's frame; `args` are the evaluated arguments over the
/// sorted rows.
Result<ColumnPtr> EvaluateFrameAggregate(const AggregateFunction& fn,
                                         const std::vector<ColumnPtr>& args,
                                         const sql::BoundFrame& frame,
                                         const WindowLayout& layout,
                                         const EvalContext& eval);

}  // namespace spate::exec
