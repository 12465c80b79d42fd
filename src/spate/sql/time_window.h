// Copyright spate authors.
#pragma once

// The analyzer's rewrite of event-time windows in a SELECT block (Spark's TimeWindowing
// and SessionWindowing rules, and the session merge of MergingSessionsExec):
//
//  * window(ts, w[, s[, st]]) with s == w (tumbling): Filter(ts IS NOT NULL) and a
//    Project appending the `window` struct;
//  * sliding windows: a Generate whose generator yields every window containing ts;
//  * session_window(ts, gap): a Project appending [ts, ts + gap), a Filter dropping NULL
//    times (and empty windows when the gap is not a positive constant), and, when the
//    session is a GROUP BY key, a merge of overlapping sessions per group (three window
//    passes: previous max end -> new-session flag -> session id -> min start / max end).
//
// Every occurrence of the call in the SELECT list and GROUP BY is replaced by a reference
// to the appended column (`window` / `session_window`), so `window.start`, `GROUP BY 1`
// and the same expression in both places resolve to it.
//
// Thread safety: runs inside one analyzer call. Failure: Spark's errors for bad durations
// and for more than one window expression in a block.

#include <functional>
#include <vector>

#include "spate/compute/expr.h"
#include "spate/sql/bound_plan.h"

namespace spate::sql {

struct TimeWindowRewriter {
  std::function<Result<BoundExprPtr>(const Expr&, const std::vector<Attribute>&)> bind;
  std::function<Result<Value>(const Expr&)> eval_constant;
  std::function<Attribute(std::string name, DataTypePtr type, bool nullable)> make_attr;
  std::function<bool(const std::string&, const std::string&)> name_eq;
  bool ansi = true;

  /// Rewrites `*child`, `*items` and `*group_by` in place (nothing to do: returns OK).
  Status Rewrite(BoundPlanPtr* child, std::vector<ExprPtr>* items,
                 std::vector<ExprPtr>* group_by) const;
};

}  // namespace spate::sql
