// Copyright spate authors.
#pragma once

// Multi-dimensional aggregation (GROUP BY ROLLUP / CUBE / GROUPING SETS, and the
// DataFrame's cube / rollup / groupingSets), with Spark's ResolveGroupingAnalytics
// semantics: each row counts once per grouping set, with the keys outside the set NULL
// and a `spark_grouping_id` saying which set it is; grouping(k) / grouping_id() read the
// id. The analyzer binds the query against one aggregate over that layout (Spark's Expand
// output) and plans it as the union of one aggregate per set (PlanGroupingAggregate).
//
// Shapes (what the parser and the DataFrame API build in an aggregate's GROUP BY list):
//   rollup(struct(a, ...), ...)   each argument a set of expressions (a tuple `(a, b)` or
//   cube(struct(a, ...), ...)     one expression);
//   grouping_sets(x, ...)         x a struct (one set) or a nested rollup / cube call,
//   or,
//                                 first and only from the DataFrame API,
//                                 __spate_grouping_keys(k, ...): the keys in their order
//                                 (groupingSets(sets, cols): the output columns first);
//   any other expression          a set of one, combined with the others: the grouping
//                                 sets of a GROUP BY list are the cartesian product of
//                                 its items' sets (`GROUP BY a, ROLLUP(b, c)`).
//
// Thread safety: stateless functions. Failure: Spark's error classes.

#include <functional>
#include <string>
#include <vector>

#include "spate/compute/expr.h"
#include "spate/sql/bound_plan.h"

namespace spate::sql {

/// The call naming the DataFrame API's key list inside grouping_sets(...).
inline constexpr const char* kGroupingKeysCall = "__spate_grouping_keys";
/// The name of the grouping id column (Spark's VirtualColumn.groupingIdName) and of the
/// position column added when sets repeat.
inline constexpr const char* kGroupingIdName = "spark_grouping_id";
inline constexpr const char* kGroupingPositionName = "_gen_grouping_pos";

/// The grouping sets of `n` keys in Spark's order: cube, every subset (the full set
/// first); rollup, the prefixes (longest first). Each set lists key indexes in ascending
/// order.
std::vector<std::vector<size_t>> CubeSets(size_t n);
std::vector<std::vector<size_t>> RollupSets(size_t n);

/// True when `group_by` has a rollup / cube / grouping_sets item.
bool HasGroupingAnalytics(const std::vector<ExprPtr>& group_by);

/// A GROUP BY list's keys and sets.
struct GroupingSets {
  /// The distinct grouping expressions (by `identity`) in the order Spark numbers them:
  /// the items' expressions in order of first appearance.
  std::vector<ExprPtr> keys;
  /// Every grouping set as indexes into `keys` (ascending); sets may repeat, and then the
  /// aggregate keeps one group per occurrence, as Spark.
  std::vector<std::vector<size_t>> sets;
  /// Whether some set occurs more than once.
  bool HasRepeats() const;
  /// The grouping id of set `s`: bit (n - 1 - i) set when key i is not in it.
  int64_t IdOf(size_t s) const;
};

/// Expands `group_by` (with HasGroupingAnalytics) into its keys and sets. `identity`
/// gives each expression a text equal for the same grouping expression (the analyzer
/// binds it and resolves ordinals and aliases) or fails with the expression's error.
/// Errors: GROUPING_SIZE_LIMIT_EXCEEDED beyond 64 keys.
Result<GroupingSets> ExpandGroupingAnalytics(
    const std::vector<ExprPtr>& group_by,
    const std::function<Result<std::string>(const ExprPtr&)>& identity);

/// The columns the aggregate reads over grouping sets (Spark's Expand output): the
/// input's, then one per key (its value in the sets that hold it, NULL in the others;
/// named by `key_names`, nullable when some set leaves it out or the key may be NULL),
/// then `spark_grouping_id` (BIGINT), then `_gen_grouping_pos` (INT, the set's position)
/// when sets repeat. `keys` are bound over the input.
std::vector<Attribute> GroupingExpansion(
    const std::vector<Attribute>& input, const std::vector<BoundExprPtr>& keys,
    const std::vector<std::string>& key_names, const GroupingSets& sets,
    const std::function<Attribute(std::string, DataTypePtr, bool)>& make_attr);

/// The aggregate over grouping sets, whose `output` is [the keys, the id, (the position),
/// the aggregates]: per set, `child` projected to the expansion's columns and aggregated
/// by the set's keys (an empty set by the id, so that an empty input gives no row, as
/// Spark), then laid out as `output` (the other keys NULL, the id and position constant);
/// the union of the sets'. `aggs` read the expansion's columns (aggregate arguments see
/// the input's values and the row's id). Each set reads `child` once: for the small
/// inputs of a cube this is cheaper than expanding the rows (docs/architecture.md).
Result<BoundPlanPtr> PlanGroupingAggregate(const BoundPlanPtr& child,
                                           const std::vector<BoundExprPtr>& keys,
                                           const GroupingSets& sets,
                                           const std::vector<Attribute>& expansion,
                                           const std::vector<AggregateCall>& aggs,
                                           const std::vector<Attribute>& output);

}  // namespace spate::sql
