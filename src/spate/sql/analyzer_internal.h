// Copyright spate authors.
#pragma once

// Shared declarations of the analyzer's files (not a public header): Analyzer::Impl and
// the expression helpers more than one of them calls. The analyzer is split by concept:
//   analyzer.cc             the facade, the plan dispatch (PlanNode), projections,
//                           watermarks, shared expression predicates, name suggestions
//   analyzer_expressions.cc binding expressions: columns, fields, lambdas, calls, stars,
//                           constants
//   analyzer_select.cc      SELECT blocks: lateral aliases, aggregates and GROUP BY,
//                           HAVING, ORDER BY, DISTINCT
//   analyzer_windows.cc     window functions: binding, frames, Spark's display names
//   analyzer_joins.cc       joins (USING / NATURAL, conditions) and set operations
//   analyzer_subqueries.cc  scalar / EXISTS / IN subqueries and the decorrelation of
//                           correlated ones into joins
//   analyzer_relations.cc   tables and views, table functions, VALUES, file scans,
//                           generators and LATERAL VIEW
//   analyzer_hints.cc       hints (join strategies: BROADCAST, MERGE, SHUFFLE_HASH, ...)

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <set>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/compute/aggregate.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/generators.h"
#include "spate/compute/higher_order.h"
#include "spate/compute/nested.h"
#include "spate/compute/predicates.h"
#include "spate/sql/analyzer.h"
#include "spate/sql/grouping_sets.h"
#include "spate/sql/hints.h"
#include "spate/sql/parser_literals.h"
#include "spate/sql/time_window.h"
#include "spate/types/timezone.h"

namespace spate::sql {

// A hook gets the first chance to bind an expression node (aggregate/window extraction).
// It returns nullopt to let normal binding proceed.
using BindHook = std::function<Result<std::optional<BoundExprPtr>>(const Expr&)>;

class Analyzer::Impl {
 public:
  Impl(const Catalog& catalog, const SqlConf& conf)
      : catalog_(catalog), conf_(conf), case_sensitive_(conf.case_sensitive()) {}

  Result<BoundPlanPtr> Plan(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanNode(const LogicalPlan& p);
  Result<BoundExprPtr> Bind(const Expr& e, const std::vector<Attribute>& scope,
                            const BindHook* hook);

 private:
  friend class Analyzer;
  struct SelectBlock;
  class AggregateContext;

  int64_t NewId() { return next_id_++; }
  Attribute MakeAttr(std::string name, DataTypePtr type, bool nullable,
                     std::string qualifier = "") {
    return Attribute{std::move(name), std::move(type), nullable, NewId(),
                     std::move(qualifier)};
  }
  bool NameEq(const std::string& a, const std::string& b) const {
    return case_sensitive_ ? a == b : EqualsIgnoreCase(a, b);
  }

  Result<BoundExprPtr> ResolveColumn(const Expr& e, const std::vector<Attribute>& scope);
  /// `out`.parts[from..] as struct fields (the rest of a dotted name).
  Result<BoundExprPtr> ExtractFields(BoundExprPtr out,
                                     const std::vector<std::string>& parts, size_t from);
  /// A reference to a variable of an enclosing lambda named by e's first part (lambda
  /// variables shadow columns, as in Spark); nullopt when none has that name.
  Result<std::optional<BoundExprPtr>> ResolveLambdaVariable(const Expr& e);
  /// Lateral column aliases (Spark 3.4+): in a SELECT list, a name that no input column
  /// has but an alias of an item to its left does refers to that item's expression. The
  /// reference becomes a `lateralAliasReference(name)` call (Spark's display name) bound
  /// to the aliased expression (lateral_targets_).
  Result<std::vector<ExprPtr>> ResolveLateralAliases(std::vector<ExprPtr> items,
                                                     const std::vector<Attribute>& scope);
  /// In a projection (no aggregate), the aliased expressions that lateral references name
  /// are computed once, in a projection below the select's (Spark's rewrite): a
  /// nondeterministic alias (rand()) has one value per row however often it is
  /// referenced, and no alias is evaluated twice. Aggregates and windowed aliases keep
  /// the references inlined.
  Status PushDownLateralAliases(const LogicalPlan& select, const LogicalPlan* having,
                                std::vector<ExprPtr>* items, BoundPlanPtr* child);
  /// transform / filter / aggregate / ... with lambda arguments (compute/higher_order.h).
  Result<BoundExprPtr> BindHigherOrder(const Expr& e, const std::vector<Attribute>& scope,
                                       const BindHook* hook);
  /// Scalar, EXISTS and IN subqueries: the (uncorrelated) subquery runs now through the
  /// catalog's executor and becomes a literal or an IN set.
  Result<BoundExprPtr> BindSubquery(const Expr& e, const std::vector<Attribute>& scope,
                                    const BindHook* hook);
  Result<BoundExprPtr> BindCall(const Expr& e, const std::vector<Attribute>& scope,
                                const BindHook* hook);
  Result<std::vector<ExprPtr>> ExpandStars(const std::vector<ExprPtr>& items,
                                           const std::vector<Attribute>& scope);
  /// The value of a constant expression (`bound_out`: the bound expression).
  Result<Value> EvalConstant(const Expr& e, const char* what,
                             BoundExprPtr* bound_out = nullptr);
  Result<BoundPlanPtr> PlanRelation(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanTableFunction(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanSqlKeywords(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanDataSource(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanLateralView(const LogicalPlan& p);
  /// Hints (Spark's ResolveHints, analyzer_hints.cc): a join strategy hint marks the
  /// hinted subtree (BoundPlan::join_hint), either the whole child or the relations its
  /// parameters name; other hints are dropped with HintErrorLogger's warning.
  Result<BoundPlanPtr> PlanHint(const LogicalPlan& p);
  /// WHERE [NOT] EXISTS / x IN (correlated subquery whose correlation is in its WHERE):
  /// rewritten as a left semi (anti) join on the correlated predicates; nullopt when the
  /// filter has no such subquery.
  struct Decorrelated {
    PlanPtr plan;
    /// >= 0: keep only the output columns carrying this tag (the filter's own input),
    /// dropping the columns a correlated scalar subquery's join added.
    int64_t keep_tag = -1;
  };
  Result<std::optional<Decorrelated>> DecorrelateFilter(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanValues(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanSelect(const LogicalPlan& select, const LogicalPlan* having,
                                  const LogicalPlan* sort);
  Result<BoundPlanPtr> PlanJoin(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanSetOp(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanSort(const LogicalPlan& p);
  Result<BoundPlanPtr> MakeDistinct(BoundPlanPtr child,
                                    DedupKind dedup = DedupKind::kNone);
  Result<BoundPlanPtr> PlanWatermark(const LogicalPlan& p);
  /// Generators in the SELECT list (explode, posexplode, inline ...): plans Generate over
  /// `*child` and replaces the generator item with references to its generated columns.
  Status PlanGenerator(BoundPlanPtr* child, std::vector<ExprPtr>* items);
  Result<BoundPlanPtr> Project(BoundPlanPtr child, std::vector<BoundExprPtr> exprs,
                               std::vector<std::string> names,
                               const std::vector<const Attribute*>& passthrough = {});
  Result<std::vector<SortKey>> BindSortKeys(const std::vector<SortSpec>& specs,
                                            const std::vector<Attribute>& scope,
                                            const BindHook* hook);
  Result<WindowCall> BindWindow(const Expr& e, const std::vector<Attribute>& scope,
                                const BindHook* hook);
  /// nth_value(x, offset[, ignoreNulls]) [IGNORE NULLS]: checks its arguments as Spark's
  /// NthValue and makes w's arguments [x, offset as BIGINT, ignoreNulls].
  Status BindNthValue(const Expr& fn, WindowCall* w);

  const Catalog& catalog_;
  const SqlConf& conf_;
  bool case_sensitive_;
  int64_t next_id_ = 0;
  std::vector<std::map<std::string, BoundPlanPtr>> ctes_;
  /// The variables of the lambdas being bound, outermost first.
  struct LambdaFrame {
    std::vector<std::string> names;
    std::vector<LambdaParam> params;
  };
  std::vector<LambdaFrame> lambda_frames_;
  /// lateralAliasReference nodes -> the aliased expressions they stand for.
  std::map<const Expr*, ExprPtr> lateral_targets_;
};

inline BoundPlanPtr Finish(std::shared_ptr<BoundPlan> p) { return p; }

/// True when `e` holds an aggregate call outside a window function's own call.
bool ContainsAggregate(const Expr& e);
/// True when `e` holds a window expression.
bool ContainsWindow(const Expr& e);
/// The conjuncts of `e` (a AND b AND c -> [a, b, c]).
std::vector<ExprPtr> SplitConjuncts(const ExprPtr& e);
/// Spark's name for a window expression (analyzer_windows.cc).
std::string WindowDisplayName(const Expr& e);
/// The output name of a select item: its alias, or its display name with window
/// expressions named by their resolved frames (analyzer_windows.cc).
std::string ItemName(const Expr& e);

}  // namespace spate::sql
