// Copyright spate authors.
#include "spate/sql/analyzer.h"

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
#include "spate/sql/grouping_sets.h"
#include "spate/sql/parser_literals.h"
#include "spate/sql/time_window.h"
#include "spate/types/timezone.h"

namespace spate::sql {

std::string QuoteIdentifier(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ".";
    out += "`";
    for (char c : parts[i]) {
      if (c == '`') out += '`';
      out += c;
    }
    out += "`";
  }
  return out;
}

namespace {

size_t Levenshtein(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string SuggestColumns(const std::string& name,
                           const std::vector<Attribute>& candidates, bool qualified) {
  std::vector<std::pair<size_t, std::string>> scored;
  std::set<std::string> seen;
  for (const auto& a : candidates) {
    std::vector<std::string> parts;
    if (qualified && !a.qualifier.empty()) parts.push_back(a.qualifier);
    parts.push_back(a.name);
    std::string q = QuoteIdentifier(parts);
    if (!seen.insert(q).second) continue;
    scored.emplace_back(Levenshtein(ToLower(name), ToLower(a.name)), q);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string out;
  for (size_t i = 0; i < scored.size() && i < 5; ++i) {
    if (i) out += ", ";
    out += scored[i].second;
  }
  return out;
}

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
  Result<BoundPlanPtr> PlanDataSource(const LogicalPlan& p);
  Result<BoundPlanPtr> PlanLateralView(const LogicalPlan& p);
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

namespace {

bool ContainsWindowNode(const Expr& e) {
  if (e.kind == ExprKind::kWindow) return true;
  for (const auto& c : e.children) {
    if (c && ContainsWindowNode(*c)) return true;
  }
  return false;
}

bool ContainsAggregate(const Expr& e) {
  if (e.kind == ExprKind::kWindow) {
    // Aggregates inside the window function's arguments or spec are group aggregates only
    // if nested inside the window function call's arguments (e.g. rank() OVER (ORDER BY
    // sum(x))). The window function itself is not.
    for (const auto& a : e.children[0]->children) {
      if (ContainsAggregate(*a)) return true;
    }
    for (const auto& p : e.window->partition_by) {
      if (ContainsAggregate(*p)) return true;
    }
    for (const auto& s : e.window->order_by) {
      if (ContainsAggregate(*s.expr)) return true;
    }
    return false;
  }
  if (e.kind == ExprKind::kCall &&
      FunctionRegistry::Global().KindOf(e.name) == FunctionKind::kAggregate) {
    return true;
  }
  for (const auto& c : e.children) {
    if (c && ContainsAggregate(*c)) return true;
  }
  return false;
}

FrameBound Bound(FrameBound::Type type, int64_t offset = 0) {
  FrameBound b;
  b.type = type;
  if (type == FrameBound::Type::kPreceding || type == FrameBound::Type::kFollowing) {
    b.offset = Expr::Lit(Value::Int(static_cast<int32_t>(offset)));
  }
  return b;
}

// Spark's name for a window expression: the spec with its resolved frame, e.g.
// "row_number() OVER (ORDER BY x ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND
// CURRENT ROW)", and lag/lead with all their arguments.
std::string WindowDisplayName(const Expr& e) {
  const Expr& fn = *e.children[0];
  WindowDef def = *e.window;
  ExprPtr call = e.children[0];
  using T = FrameBound::Type;
  static const std::set<std::string> kRanking = {
      "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile"};
  if (kRanking.count(fn.name)) {
    def.frame = WindowFrame{WindowFrame::Kind::kRows, Bound(T::kUnboundedPreceding),
                            Bound(T::kCurrentRow)};
  } else if (fn.name == "lag" || fn.name == "lead") {
    std::vector<ExprPtr> args = fn.children;
    if (args.size() < 2) args.push_back(Expr::Lit(Value::Int(1)));
    if (args.size() < 3) args.push_back(Expr::Lit(Value::Null(DataType::Null())));
    int64_t offset = args[1]->kind == ExprKind::kLiteral ? args[1]->literal.i64() : 1;
    if (fn.name == "lag") offset = -offset;
    def.frame = WindowFrame{WindowFrame::Kind::kRows, Bound(T::kFollowing, offset),
                            Bound(T::kFollowing, offset)};
    call = fn.WithChildren(std::move(args));
  } else if (!def.frame) {
    if (def.order_by.empty()) {
      def.frame = WindowFrame{WindowFrame::Kind::kRows, Bound(T::kUnboundedPreceding),
                              Bound(T::kUnboundedFollowing)};
    } else {
      def.frame = WindowFrame{WindowFrame::Kind::kRange, Bound(T::kUnboundedPreceding),
                              Bound(T::kCurrentRow)};
    }
  }
  return Expr::Window(call, def)->DisplayName();
}

bool ContainsWindow(const Expr& e) {
  if (e.kind == ExprKind::kWindow) return true;
  for (const auto& c : e.children) {
    if (c && ContainsWindow(*c)) return true;
  }
  return false;
}

std::string WindowDisplayName(const Expr& e);

// Replaces window expressions by copies carrying their resolved frames, for naming.
ExprPtr WithResolvedWindowNames(const ExprPtr& e) {
  if (e->kind == ExprKind::kWindow) {
    // A column reference whose display text is the full window name.
    return Expr::Col(std::vector<std::string>{WindowDisplayName(*e)});
  }
  bool changed = false;
  std::vector<ExprPtr> kids;
  for (const auto& c : e->children) {
    kids.push_back(c ? WithResolvedWindowNames(c) : c);
    changed |= kids.back() != c;
  }
  return changed ? e->WithChildren(std::move(kids)) : e;
}

std::string ItemName(const Expr& e) {
  if (e.kind == ExprKind::kAlias) return e.name;
  if (e.kind == ExprKind::kWindow) return WindowDisplayName(e);
  for (const auto& c : e.children) {
    if (c && ContainsWindowNode(*c))
      return WithResolvedWindowNames(std::make_shared<Expr>(e))->DisplayName();
  }
  return e.DisplayName();
}

// The conjuncts of `e` (a AND b AND c -> [a, b, c]).
std::vector<ExprPtr> SplitConjuncts(const ExprPtr& e) {
  std::vector<ExprPtr> out;
  std::function<void(const ExprPtr&)> split = [&](const ExprPtr& x) {
    if (x->kind == ExprKind::kCall && x->name == "and" && x->children.size() == 2) {
      split(x->children[0]);
      split(x->children[1]);
    } else {
      out.push_back(x);
    }
  };
  split(e);
  return out;
}

BoundPlanPtr Finish(std::shared_ptr<BoundPlan> p) { return p; }

Status NotConstant(const Expr& e, const char* what) {
  return Status::Error("INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE",
                       {{"name", what}, {"expr", "\"" + e.DisplayName() + "\""}});
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Expressions

Result<BoundExprPtr> Analyzer::Impl::ResolveColumn(const Expr& e,
                                                   const std::vector<Attribute>& scope) {
  const auto& parts = e.name_parts;
  // Candidates with a qualifier match consume 2 parts; name-only matches consume 1.
  std::vector<std::pair<int, int>> matches;  // (attr index, parts consumed)
  auto tagged = [&e](const Attribute& a) {
    return e.plan_id < 0 ||
           std::find(a.plan_ids.begin(), a.plan_ids.end(), e.plan_id) != a.plan_ids.end();
  };
  for (int consumed = std::min<int>(2, static_cast<int>(parts.size())); consumed >= 1;
       --consumed) {
    for (size_t i = 0; i < scope.size(); ++i) {
      const Attribute& a = scope[i];
      if (!tagged(a)) continue;
      if (consumed == 2) {
        if (!a.qualifier.empty() && NameEq(a.qualifier, parts[0]) &&
            NameEq(a.name, parts[1])) {
          matches.emplace_back(static_cast<int>(i), 2);
        }
      } else if (NameEq(a.name, parts[0])) {
        matches.emplace_back(static_cast<int>(i), 1);
      }
    }
    if (!matches.empty()) break;
  }
  if (matches.empty() && e.name == "current_user") {
    // USER / SESSION_USER / CURRENT_USER without a column of that name: the current user.
    const char* user = std::getenv("USER");
    return MakeLiteral(Value::String(user && *user ? user : "spate"));
  }
  if (matches.empty()) {
    // Like Spark, suggest names with as many parts as the reference has.
    std::string suggestion = SuggestColumns(parts.back(), scope, parts.size() > 1);
    if (suggestion.empty()) {
      return Status::Error("UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                           {{"objectName", QuoteIdentifier(parts)}})
          .WithPosition(e.position);
    }
    return Status::Error(
               "UNRESOLVED_COLUMN.WITH_SUGGESTION",
               {{"objectName", QuoteIdentifier(parts)}, {"proposal", suggestion}})
        .WithPosition(e.position);
  }
  if (matches.size() > 1) {
    std::string refs = "[";
    for (size_t k = 0; k < matches.size(); ++k) {
      const Attribute& a = scope[matches[k].first];
      if (k) refs += ", ";
      std::vector<std::string> qp;
      if (!a.qualifier.empty()) qp.push_back(a.qualifier);
      qp.push_back(a.name);
      refs += QuoteIdentifier(qp);
    }
    refs += "]";
    std::vector<std::string> used(parts.begin(), parts.begin() + matches[0].second);
    return Status::Error("AMBIGUOUS_REFERENCE",
                         {{"name", QuoteIdentifier(used)}, {"referenceNames", refs}})
        .WithPosition(e.position);
  }
  const Attribute& a = scope[matches[0].first];
  BoundExprPtr out = MakeColumnRef(matches[0].first, a.type, a.nullable, a.Label());
  // Remaining parts are struct fields.
  return ExtractFields(std::move(out), parts, static_cast<size_t>(matches[0].second));
}

Result<BoundExprPtr> Analyzer::Impl::ExtractFields(BoundExprPtr out,
                                                   const std::vector<std::string>& parts,
                                                   size_t from) {
  for (size_t k = from; k < parts.size(); ++k) {
    const DataTypePtr& t = out->type();
    if (t->id() != TypeId::kStruct) {
      return Status::Error(
          "INVALID_EXTRACT_BASE_FIELD_TYPE",
          {{"base", "\"" + out->ToString() + "\""}, {"other", QuoteType(*t)}});
    }
    int idx = t->FieldIndex(parts[k], case_sensitive_);
    if (idx < 0) {
      std::string fields = "[";
      for (size_t f = 0; f < t->fields().size(); ++f) {
        if (f) fields += ", ";
        fields += QuoteIdentifier({t->fields()[f].name});
      }
      return Status::Error("FIELD_NOT_FOUND", {{"fieldName", QuoteIdentifier({parts[k]})},
                                               {"fields", fields + "]"}});
    }
    out = MakeGetStructField(out, idx);
  }
  return out;
}

Result<std::optional<BoundExprPtr>> Analyzer::Impl::ResolveLambdaVariable(const Expr& e) {
  if (e.name_parts.empty() || e.plan_id >= 0) return std::optional<BoundExprPtr>();
  int from_end = 0;
  for (size_t f = lambda_frames_.size(); f-- > 0;) {
    const LambdaFrame& frame = lambda_frames_[f];
    from_end += static_cast<int>(frame.params.size());
    for (size_t s = 0; s < frame.names.size(); ++s) {
      if (!NameEq(frame.names[s], e.name_parts[0])) continue;
      BoundExprPtr v =
          MakeLambdaVariable(from_end - static_cast<int>(s), frame.params[s].type,
                             frame.params[s].nullable, frame.names[s]);
      SPATE_ASSIGN_OR_RETURN(v, ExtractFields(std::move(v), e.name_parts, 1));
      return std::optional<BoundExprPtr>(std::move(v));
    }
  }
  return std::optional<BoundExprPtr>();
}

Result<std::vector<ExprPtr>> Analyzer::Impl::ResolveLateralAliases(
    std::vector<ExprPtr> items, const std::vector<Attribute>& scope) {
  if (ToLower(conf_.GetOr("spark.sql.lateralColumnAlias.enableImplicitResolution",
                          "true")) != "true") {
    return items;
  }
  auto is_column = [&](const std::vector<std::string>& parts) {
    for (const auto& a : scope) {
      if (NameEq(a.name, parts[0])) return true;
      if (parts.size() > 1 && !a.qualifier.empty() && NameEq(a.qualifier, parts[0]))
        return true;
    }
    return false;
  };
  std::vector<const std::vector<std::string>*> lambdas;
  auto is_lambda_variable = [&](const std::string& name) {
    for (const auto* names : lambdas) {
      for (const auto& n : *names) {
        if (NameEq(n, name)) return true;
      }
    }
    return false;
  };
  for (size_t i = 1; i < items.size(); ++i) {
    std::function<Result<ExprPtr>(const ExprPtr&, const Expr*)> rewrite =
        [&](const ExprPtr& e, const Expr* window) -> Result<ExprPtr> {
      if (e->kind == ExprKind::kColumn && !e->name_parts.empty() && e->plan_id < 0 &&
          !is_lambda_variable(e->name_parts[0]) && !is_column(e->name_parts)) {
        std::vector<size_t> hits;
        for (size_t j = 0; j < i; ++j) {
          if (items[j]->kind == ExprKind::kAlias &&
              NameEq(items[j]->name, e->name_parts[0])) {
            hits.push_back(j);
          }
        }
        if (hits.empty()) return e;
        const std::string quoted = QuoteIdentifier({e->name_parts[0]});
        if (hits.size() > 1) {
          return Status::Error("AMBIGUOUS_LATERAL_COLUMN_ALIAS",
                               {{"name", quoted}, {"n", std::to_string(hits.size())}})
              .WithPosition(e->position);
        }
        auto ref = std::make_shared<Expr>(ExprKind::kCall);
        ref->name = "lateralAliasReference";
        ref->children.push_back(Expr::Col(e->name_parts[0]));
        ref->position = e->position;
        lateral_targets_[ref.get()] = items[hits[0]]->children[0];
        if (window) {
          return Status::Error("UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_WINDOW",
                               {{"lca", quoted},
                                {"windowExpr", "\"" + window->DisplayName() + "\""}})
              .WithPosition(e->position);
        }
        ExprPtr out = ref;
        for (size_t k = 1; k < e->name_parts.size(); ++k)
          out = Expr::Field(out, e->name_parts[k]);
        return out;
      }
      if (e->children.empty()) return e;
      if (e->kind == ExprKind::kLambda) lambdas.push_back(&e->name_parts);
      std::vector<ExprPtr> children;
      bool changed = false;
      Status failed;
      for (const auto& c : e->children) {
        Result<ExprPtr> r = rewrite(c, e->kind == ExprKind::kWindow ? e.get() : window);
        if (!r.ok()) {
          failed = r.status();
          break;
        }
        changed |= r->get() != c.get();
        children.push_back(*r);
      }
      if (e->kind == ExprKind::kLambda) lambdas.pop_back();
      if (!failed.ok()) return failed;
      return changed ? e->WithChildren(std::move(children)) : e;
    };
    SPATE_ASSIGN_OR_RETURN(items[i], rewrite(items[i], nullptr));
  }
  return items;
}

Status Analyzer::Impl::PushDownLateralAliases(const LogicalPlan& select,
                                              const LogicalPlan* having,
                                              std::vector<ExprPtr>* items,
                                              BoundPlanPtr* child) {
  std::vector<const Expr*> refs;
  std::function<void(const Expr&)> collect = [&](const Expr& e) {
    if (e.kind == ExprKind::kCall && e.name == "lateralAliasReference" &&
        lateral_targets_.count(&e)) {
      refs.push_back(&e);
      return;
    }
    for (const auto& c : e.children) {
      if (c) collect(*c);
    }
  };
  bool aggregates = select.kind == PlanKind::kAggregate ||
                    (having && ContainsAggregate(*having->condition));
  for (const auto& it : *items) {
    aggregates |= ContainsAggregate(*it);
    collect(*it);
  }
  if (refs.empty() || aggregates) return Status::OK();
  for (const Expr* ref : refs) {
    const Expr& target = *lateral_targets_[ref];
    if (ContainsWindow(target) || ContainsAggregate(target)) return Status::OK();
  }
  const std::vector<Attribute>& scope = (*child)->output;
  std::vector<BoundExprPtr> exprs;
  std::vector<std::string> names;
  std::vector<const Attribute*> passthrough;
  for (size_t i = 0; i < scope.size(); ++i) {
    exprs.push_back(MakeColumnRef(static_cast<int>(i), scope[i].type, scope[i].nullable,
                                  scope[i].Label()));
    names.push_back(scope[i].name);
    passthrough.push_back(&scope[i]);
  }
  // All targets are bound before any reference is redirected: a target naming another
  // alias (`1 AS a, a + 1 AS b, b * 2`) binds that one inline.
  std::map<const Expr*, std::string> hidden;
  for (const Expr* ref : refs) {
    const ExprPtr target = lateral_targets_[ref];
    if (hidden.count(target.get())) continue;
    SPATE_ASSIGN_OR_RETURN(BoundExprPtr bound, Bind(*target, scope, nullptr));
    std::string name = "__spate_lca" + std::to_string(NewId());
    exprs.push_back(std::move(bound));
    names.push_back(name);
    hidden.emplace(target.get(), name);
  }
  for (const Expr* ref : refs)
    lateral_targets_[ref] = Expr::Col(hidden[lateral_targets_[ref].get()]);
  // The aliased items themselves show the computed value too.
  for (auto& it : *items) {
    if (it->kind != ExprKind::kAlias) continue;
    auto h = hidden.find(it->children[0].get());
    if (h != hidden.end()) it = it->WithChildren({Expr::Col(h->second)});
  }
  SPATE_ASSIGN_OR_RETURN(
      *child, Project(*child, std::move(exprs), std::move(names), passthrough));
  return Status::OK();
}

Result<BoundExprPtr> Analyzer::Impl::BindHigherOrder(const Expr& e,
                                                     const std::vector<Attribute>& scope,
                                                     const BindHook* hook) {
  const LambdaArity arity = HigherOrderArity(e.name);
  const size_t lo = arity.value_args + arity.min_lambdas;
  const size_t hi = arity.value_args + arity.max_lambdas;
  if (e.children.size() < lo || e.children.size() > hi) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", QuoteIdentifier({e.name})},
                          {"expectedNum", lo == hi ? std::to_string(lo)
                                                   : "[" + std::to_string(lo) + ", " +
                                                         std::to_string(hi) + "]"},
                          {"actualNum", std::to_string(e.children.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}})
        .WithPosition(e.position);
  }
  std::vector<BoundExprPtr> args;
  for (size_t i = 0; i < arity.value_args; ++i) {
    const Expr& c = *e.children[i];
    if (c.kind == ExprKind::kLambda) {
      return Status::Error("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION",
                           {{"class", c.DisplayName()}})
          .WithPosition(c.position);
    }
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(c, scope, hook));
    args.push_back(std::move(b));
  }
  // The function arguments: a lambda, or any expression (a lambda of hidden variables).
  std::vector<const Expr*> lambdas;
  for (size_t i = arity.value_args; i < e.children.size(); ++i)
    lambdas.push_back(e.children[i].get());
  const std::string text = e.DisplayName();
  SPATE_RETURN_IF_ERROR(CoerceHigherOrderArgs(e.name, &args, text));
  std::vector<BoundLambda> bound;
  for (size_t i = 0; i < lambdas.size(); ++i) {
    if (lambdas[i]->kind != ExprKind::kLambda) {
      auto params = HigherOrderLambdaParams(e.name, args, i, 0, text);
      if (!params.ok()) return params.status().WithPosition(lambdas[i]->position);
      lambda_frames_.push_back({std::vector<std::string>(params->size()), *params});
      Result<BoundExprPtr> body = Bind(*lambdas[i], scope, hook);
      lambda_frames_.pop_back();
      if (!body.ok()) return body.status();
      std::string display = "lambdafunction(" + lambdas[i]->DisplayName();
      for (size_t k = 0; k < params->size(); ++k) display += ", namedlambdavariable()";
      bound.push_back(
          {std::vector<std::string>(params->size(), "_"), *params, *body, display + ")"});
      continue;
    }
    const Expr& lam = *lambdas[i];
    for (size_t a = 0; a < lam.name_parts.size(); ++a) {
      for (size_t b = 0; b < a; ++b) {
        if (NameEq(lam.name_parts[a], lam.name_parts[b])) {
          std::string names;
          for (const auto& n : lam.name_parts)
            names += (names.empty() ? "" : ", ") + QuoteIdentifier({n});
          return Status::Error("INVALID_LAMBDA_FUNCTION_CALL.DUPLICATE_ARG_NAMES",
                               {{"args", names},
                                {"caseSensitiveConfig", "\"spark.sql.caseSensitive\""}})
              .WithPosition(lam.position);
        }
      }
    }
    auto params = HigherOrderLambdaParams(e.name, args, i, lam.name_parts.size(), text);
    if (!params.ok()) return params.status().WithPosition(lam.position);
    lambda_frames_.push_back({lam.name_parts, *params});
    Result<BoundExprPtr> body = Bind(*lam.children[0], scope, hook);
    lambda_frames_.pop_back();
    if (!body.ok()) return body.status();
    bound.push_back({lam.name_parts, *params, *body, lam.DisplayName()});
  }
  return MakeHigherOrderCall(e.name, std::move(args), std::move(bound), text);
}

Result<BoundExprPtr> Analyzer::Impl::BindCall(const Expr& e,
                                              const std::vector<Attribute>& scope,
                                              const BindHook* hook) {
  auto& registry = FunctionRegistry::Global();
  if (e.name == "lateralAliasReference") {
    auto target = lateral_targets_.find(&e);
    if (target != lateral_targets_.end()) return Bind(*target->second, scope, hook);
  }
  if (IsHigherOrderFunction(e.name)) {
    // array_sort(arr) is also a plain function; the others take lambdas only.
    bool has_lambda = false;
    for (const auto& c : e.children) has_lambda |= c->kind == ExprKind::kLambda;
    if (has_lambda || !registry.FindScalar(e.name))
      return BindHigherOrder(e, scope, hook);
  }
  FunctionKind kind = registry.KindOf(e.name);
  if (kind == FunctionKind::kAggregate) {
    return Status::Error("INVALID_WHERE_CONDITION",
                         {{"condition", "\"" + e.DisplayName() + "\""},
                          {"expressionList", e.DisplayName()}});
  }
  if (kind == FunctionKind::kWindow && registry.Exists(e.name)) {
    return Status::Error("WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE",
                         {{"funcName", "\"" + e.name + "\""}});
  }
  if (e.name == "struct") {
    bool aliased = false;
    for (const auto& c : e.children) aliased |= c->kind == ExprKind::kAlias;
    if (aliased) {
      // struct(a AS x, b) names its fields by the aliases (and column names): bind it as
      // named_struct('x', a, 'b', b).
      std::vector<ExprPtr> args;
      for (size_t i = 0; i < e.children.size(); ++i) {
        const ExprPtr& c = e.children[i];
        std::string name = c->kind == ExprKind::kAlias    ? c->name
                           : c->kind == ExprKind::kColumn ? c->name_parts.back()
                                                          : "col" + std::to_string(i + 1);
        args.push_back(Expr::Lit(Value::String(name)));
        args.push_back(c->kind == ExprKind::kAlias ? c->children[0] : c);
      }
      return BindCall(*Expr::Call("named_struct", std::move(args)), scope, hook);
    }
  }
  const ScalarResolver* resolver = registry.FindScalar(e.name);
  if (!resolver) {
    return Status::Error(
               "UNRESOLVED_ROUTINE",
               {{"routineName", QuoteIdentifier({e.name})},
                {"searchPath",
                 "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]"}})
        .WithPosition(e.position);
  }
  std::vector<BoundExprPtr> args;
  for (const auto& c : e.children) {
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*c, scope, hook));
    args.push_back(std::move(b));
  }
  ResolveContext rc;
  rc.ansi = conf_.ansi();
  rc.call_text = e.DisplayName();
  rc.current_schema = catalog_.current_database();
  return (*resolver)(std::move(args), rc);
}

Result<BoundExprPtr> Analyzer::Impl::Bind(const Expr& e,
                                          const std::vector<Attribute>& scope,
                                          const BindHook* hook) {
  if (!lambda_frames_.empty() && e.kind == ExprKind::kColumn) {
    SPATE_ASSIGN_OR_RETURN(auto variable, ResolveLambdaVariable(e));
    if (variable) return *variable;
  }
  if (hook) {
    SPATE_ASSIGN_OR_RETURN(auto hooked, (*hook)(e));
    if (hooked) return *hooked;
  }
  switch (e.kind) {
    case ExprKind::kLiteral:
      return MakeLiteral(e.literal);
    case ExprKind::kColumn:
      return ResolveColumn(e, scope);
    case ExprKind::kAlias:
      return Bind(*e.children[0], scope, hook);
    case ExprKind::kCall: {
      if (e.name == "count" && e.children.size() == 1 &&
          e.children[0]->kind == ExprKind::kStar) {
        return Status::Internal("count(*) outside an aggregate");
      }
      return BindCall(e, scope, hook);
    }
    case ExprKind::kCast: {
      if (e.name == "typed_literal") {
        // TIMESTAMP '...' is read in the session time zone when the query is analyzed.
        EvalContext ctx;
        ctx.ansi = true;
        ctx.time_zone_id = conf_.session_time_zone();
        ctx.time_zone = TimeZone::Lookup(ctx.time_zone_id);
        SPATE_ASSIGN_OR_RETURN(
            auto v, CastValue(e.children[0]->literal, e.cast_type, CastMode::kAnsi, ctx));
        return MakeLiteral(std::move(v));
      }
      SPATE_ASSIGN_OR_RETURN(auto c, Bind(*e.children[0], scope, hook));
      return MakeExplicitCast(c, e.cast_type, e.is_try, conf_.ansi());
    }
    case ExprKind::kCaseWhen: {
      std::vector<BoundExprPtr> branches;
      size_t n = e.children.size() - (e.has_else ? 1 : 0);
      for (size_t i = 0; i < n; ++i) {
        SPATE_ASSIGN_OR_RETURN(auto b, Bind(*e.children[i], scope, hook));
        branches.push_back(b);
      }
      BoundExprPtr else_value;
      if (e.has_else) {
        SPATE_ASSIGN_OR_RETURN(else_value, Bind(*e.children.back(), scope, hook));
      }
      return MakeCaseWhen(std::move(branches), else_value);
    }
    case ExprKind::kIn: {
      SPATE_ASSIGN_OR_RETURN(auto v, Bind(*e.children[0], scope, hook));
      std::vector<BoundExprPtr> list;
      for (size_t i = 1; i < e.children.size(); ++i) {
        SPATE_ASSIGN_OR_RETURN(auto b, Bind(*e.children[i], scope, hook));
        list.push_back(b);
      }
      SPATE_ASSIGN_OR_RETURN(auto in, MakeInList(v, std::move(list)));
      if (!e.negated) return in;
      ResolveContext rc;
      return (*FunctionRegistry::Global().FindScalar("not"))({in}, rc);
    }
    case ExprKind::kExtractValue: {
      SPATE_ASSIGN_OR_RETURN(auto base, Bind(*e.children[0], scope, hook));
      if (e.children.size() == 1) {
        const DataTypePtr& t = base->type();
        if (t->id() != TypeId::kStruct) {
          return Status::Error(
              "INVALID_EXTRACT_BASE_FIELD_TYPE",
              {{"base", "\"" + base->ToString() + "\""}, {"other", QuoteType(*t)}});
        }
        int idx = t->FieldIndex(e.name, case_sensitive_);
        if (idx < 0) {
          return Status::Error(
              "FIELD_NOT_FOUND",
              {{"fieldName", QuoteIdentifier({e.name})}, {"fields", QuoteType(*t)}});
        }
        return MakeGetStructField(base, idx);
      }
      SPATE_ASSIGN_OR_RETURN(auto key, Bind(*e.children[1], scope, hook));
      return MakeSubscript(base, key);
    }
    case ExprKind::kStar:
      return Status::Error("INVALID_USAGE_OF_STAR_OR_REGEX",
                           {{"elem", "'*'"}, {"prettyName", "expression"}});
    case ExprKind::kWindow:
      return Status::Error("UNSUPPORTED_EXPR_FOR_WINDOW",
                           {{"sqlExpr", "\"" + e.DisplayName() + "\""}});
    case ExprKind::kSortOrder:
      return Bind(*e.children[0], scope, hook);
    case ExprKind::kScalarSubquery:
    case ExprKind::kExists:
    case ExprKind::kInSubquery:
      return BindSubquery(e, scope, hook);
    case ExprKind::kLambda:
      return Status::Error("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION",
                           {{"class", e.DisplayName()}})
          .WithPosition(e.position);
  }
  return Status::Internal("unknown expression kind");
}

Result<BoundExprPtr> Analyzer::Impl::BindSubquery(const Expr& e,
                                                  const std::vector<Attribute>& scope,
                                                  const BindHook* hook) {
  const auto* handle = dynamic_cast<const PlanSubquery*>(e.subquery.get());
  if (handle == nullptr || !handle->plan)
    return Status::Internal("subquery without a plan");
  Result<BoundPlanPtr> planned = Plan(*handle->plan);
  if (!planned.ok()) {
    // A column of the outer query: a correlated subquery, which spate does not run yet.
    const Status& st = planned.status();
    if (st.error_class().rfind("UNRESOLVED_COLUMN", 0) == 0) {
      std::string object;
      for (const auto& p : st.params()) {
        if (p.name == "objectName") object = p.value;
      }
      std::string last = object;
      size_t dot = last.rfind("`.`");
      if (dot != std::string::npos) last = "`" + last.substr(dot + 3);
      for (const auto& a : scope) {
        if (NameEq("`" + a.name + "`", last)) {
          return Status::Error(
                     "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_"
                     "SCALAR_SUBQUERY",
                     {{"treeNode", e.DisplayName() + " (correlated reference to " +
                                       object +
                                       "; only uncorrelated subqueries are supported)"}})
              .WithPosition(e.position);
        }
      }
    }
    return st;
  }
  const BoundPlanPtr& sub = *planned;
  if (e.kind == ExprKind::kExists) {
    auto limited = std::make_shared<BoundPlan>(BoundKind::kLimit);
    limited->limit = 1;
    limited->output = sub->output;
    limited->children.push_back(sub);
    SPATE_ASSIGN_OR_RETURN(auto batches, catalog_.ExecuteSubquery(limited));
    int64_t rows = 0;
    for (const auto& b : batches) rows += b->num_rows();
    return MakeLiteral(Value::Boolean((rows > 0) != e.negated));
  }
  if (e.kind == ExprKind::kScalarSubquery) {
    if (sub->output.size() != 1) {
      return Status::Error(
                 "INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_"
                 "OUTPUT_COLUMN",
                 {{"number", std::to_string(sub->output.size())}})
          .WithPosition(e.position);
    }
    SPATE_ASSIGN_OR_RETURN(auto batches, catalog_.ExecuteSubquery(sub));
    std::optional<Value> value;
    for (const auto& b : batches) {
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        if (value) return Status::Error("SCALAR_SUBQUERY_TOO_MANY_ROWS");
        value = b->column(0)->GetValue(i);
      }
    }
    // The value is known now, but the expression stays nullable as Spark's
    // ScalarSubquery.
    return MakeScalarCall(
        "scalarsubquery", sub->output[0].type, true,
        {MakeLiteral(value ? *value : Value::Null(sub->output[0].type))},
        [](const std::vector<ColumnPtr>& c, int64_t,
           const EvalContext&) -> Result<ColumnPtr> { return c[0]; },
        [](const std::vector<std::string>& s) { return s[0]; });
  }
  // x IN (SELECT ...): one column (or a struct of the row for (a, b) IN (SELECT a, b)).
  SPATE_ASSIGN_OR_RETURN(BoundExprPtr lhs, Bind(*e.children[0], scope, hook));
  SPATE_ASSIGN_OR_RETURN(auto batches, catalog_.ExecuteSubquery(sub));
  std::vector<ColumnPtr> parts;
  for (const auto& b : batches) {
    if (b->num_rows() == 0) continue;
    if (sub->output.size() == 1) {
      parts.push_back(b->column(0));
    } else {
      // Fields named as the left side's so that (a, b) IN (SELECT x, y) compares by
      // position.
      std::vector<Field> fields;
      const DataTypePtr& lt = lhs->type();
      for (size_t k = 0; k < sub->output.size(); ++k) {
        const auto& a = sub->output[k];
        bool named =
            lt->id() == TypeId::kStruct && lt->fields().size() == sub->output.size();
        fields.push_back(
            Field{named ? lt->fields()[k].name : a.name, a.type, a.nullable, ""});
      }
      parts.push_back(std::make_shared<Column>(DataType::Struct(fields), b->num_rows(), 0,
                                               nullptr, nullptr, nullptr, b->columns()));
    }
  }
  ColumnPtr set;
  if (parts.empty()) {
    DataTypePtr t = sub->output.size() == 1 ? sub->output[0].type : lhs->type();
    set = Column::MakeNull(t, 0);
  } else {
    set = parts.size() == 1 ? parts[0] : Concat(parts);
  }
  if (sub->output.size() > 1 && lhs->type()->id() != TypeId::kStruct) {
    return Status::Error("DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH",
                         {{"sqlExpr", "\"" + e.DisplayName() + "\""},
                          {"leftLength", "1"},
                          {"rightLength", std::to_string(sub->output.size())},
                          {"leftColumns", lhs->ToString()},
                          {"rightColumns", ""}})
        .WithPosition(e.position);
  }
  SPATE_ASSIGN_OR_RETURN(BoundExprPtr in, MakeInSet(lhs, set, "listquery()"));
  if (!e.negated) return in;
  ResolveContext rc;
  return (*FunctionRegistry::Global().FindScalar("not"))({in}, rc);
}

Result<std::vector<ExprPtr>> Analyzer::Impl::ExpandStars(
    const std::vector<ExprPtr>& items, const std::vector<Attribute>& scope) {
  std::vector<ExprPtr> out;
  for (const auto& item : items) {
    if (item->kind != ExprKind::kStar) {
      out.push_back(item);
      continue;
    }
    const auto& q = item->name_parts;
    if (q.empty()) {
      for (const auto& a : scope) {
        std::vector<std::string> parts;
        if (!a.qualifier.empty()) parts.push_back(a.qualifier);
        parts.push_back(a.name);
        auto c = Expr::Col(parts);
        out.push_back(Expr::Alias(c, a.name));
      }
      continue;
    }
    bool found = false;
    for (const auto& a : scope) {
      if (q.size() == 1 && !a.qualifier.empty() && NameEq(a.qualifier, q[0])) {
        out.push_back(Expr::Alias(Expr::Col({a.qualifier, a.name}), a.name));
        found = true;
      }
    }
    if (found) continue;
    // struct expansion: s.* -> s.f1, s.f2, ...
    auto base = Expr::Col(q);
    auto bound = Bind(*base, scope, nullptr);
    if (bound.ok() && (*bound)->type()->id() == TypeId::kStruct) {
      for (const auto& f : (*bound)->type()->fields()) {
        out.push_back(Expr::Alias(Expr::Field(base, f.name), f.name));
      }
      continue;
    }
    return Status::Error(
        "CANNOT_RESOLVE_STAR_EXPAND",
        {{"targetString", QuoteIdentifier(q)}, {"columns", SuggestColumns("", scope)}});
  }
  return out;
}

Result<Value> Analyzer::Impl::EvalConstant(const Expr& e, const char* what,
                                           BoundExprPtr* bound_out) {
  std::vector<Attribute> empty;
  auto bound = Bind(e, empty, nullptr);
  if (!bound.ok()) {
    if (bound.status().error_class().rfind("UNRESOLVED_COLUMN", 0) == 0)
      return NotConstant(e, what);
    return bound.status();
  }
  BoundExprPtr b = *bound;
  if (bound_out) *bound_out = b;
  if (!b->IsConstant()) return NotConstant(e, what);
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  EvalContext ctx;
  ctx.ansi = conf_.ansi();
  SPATE_ASSIGN_OR_RETURN(auto col, b->Evaluate(*one, ctx));
  return col->GetValue(0);
}

// ---------------------------------------------------------------------------------------
// Plans

Result<BoundPlanPtr> Analyzer::Impl::Project(
    BoundPlanPtr child, std::vector<BoundExprPtr> exprs, std::vector<std::string> names,
    const std::vector<const Attribute*>& passthrough) {
  auto p = std::make_shared<BoundPlan>(BoundKind::kProject);
  for (size_t i = 0; i < exprs.size(); ++i) {
    int idx = exprs[i]->column_index();
    const Attribute* keep = i < passthrough.size() ? passthrough[i] : nullptr;
    if (keep) {
      Attribute a = *keep;
      a.name = names[i];
      p->output.push_back(a);
    } else if (idx >= 0 && idx < static_cast<int>(child->output.size()) &&
               child->output[idx].name == names[i]) {
      p->output.push_back(child->output[idx]);
    } else {
      p->output.push_back(MakeAttr(names[i], exprs[i]->type(), exprs[i]->nullable()));
    }
  }
  p->exprs = std::move(exprs);
  p->children.push_back(std::move(child));
  return Finish(p);
}

namespace {
// STREAM relations resolve once per node (LogicalPlan::resolved_stream).
std::mutex resolved_stream_mu;

Result<PlanPtr> ResolveRelationPlanOnce(
    const Catalog& catalog, const LogicalPlan& p,
    const std::vector<std::pair<std::string, Value>>& args) {
  if (!p.streaming) return catalog.ResolveRelationPlan(p, args);
  {
    std::lock_guard<std::mutex> lock(resolved_stream_mu);
    if (p.resolved_stream) return p.resolved_stream;
  }
  SPATE_ASSIGN_OR_RETURN(PlanPtr plan, catalog.ResolveRelationPlan(p, args));
  std::lock_guard<std::mutex> lock(resolved_stream_mu);
  if (!p.resolved_stream) p.resolved_stream = plan;
  return p.resolved_stream;
}
}  // namespace

Result<BoundPlanPtr> Analyzer::Impl::PlanRelation(const LogicalPlan& p) {
  const auto& name = p.table_name;
  if (p.streaming) {
    // STREAM name: the api reads the table (or a streaming view) as a stream.
    SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ResolveRelationPlanOnce(catalog_, p, {}));
    if (!plan) {
      return Status::Error("TABLE_OR_VIEW_NOT_FOUND",
                           {{"relationName", QuoteIdentifier(name)}})
          .WithPosition(p.position);
    }
    return Plan(*plan);
  }
  if (name.size() == 1) {
    std::string key = ToLower(name[0]);
    for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
      auto f = it->find(key);
      if (f != it->end()) {
        auto q = std::make_shared<BoundPlan>(*f->second);
        for (auto& a : q->output) a.qualifier = name[0];
        return Finish(q);
      }
    }
  }
  Catalog::TimeTravel travel{p.as_of_version, p.as_of_timestamp};
  if (name.size() == 2 && travel.empty()) {
    // `format`.`path`: files read directly (parquet.`/data/t`).
    SPATE_ASSIGN_OR_RETURN(DataSourcePtr source,
                           catalog_.ResolveFileSource(ToLower(name[0]), name[1]));
    if (source) {
      LogicalPlan files(PlanKind::kDataSource);
      files.source = source;
      return PlanDataSource(files);
    }
  }
  BoundPlanPtr view = travel.empty() ? catalog_.LookupView(name) : nullptr;
  if (!view) {
    // Tables (Delta, in the warehouse or by path with time travel).
    SPATE_ASSIGN_OR_RETURN(DataSourcePtr table, catalog_.ResolveTable(name, travel));
    if (table) {
      LogicalPlan files(PlanKind::kDataSource);
      files.source = table;
      SPATE_ASSIGN_OR_RETURN(BoundPlanPtr scan, PlanDataSource(files));
      auto q = std::make_shared<BoundPlan>(*scan);
      for (auto& a : q->output) a.qualifier = name.back();
      return Finish(q);
    }
    return Status::Error("TABLE_OR_VIEW_NOT_FOUND",
                         {{"relationName", QuoteIdentifier(name)}})
        .WithPosition(p.position);
  }
  auto q = std::make_shared<BoundPlan>(*view);
  for (auto& a : q->output) a.qualifier = name.back();
  return Finish(q);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanTableFunction(const LogicalPlan& p) {
  std::string fname = ToLower(p.table_name.empty() ? "" : p.table_name[0]);
  if (p.table_name.size() == 1 &&
      (p.streaming || !p.arg_names.empty() || fname != "range")) {
    // Functions the api defines as DataFrame plans (read_files), batch or STREAM.
    std::vector<std::pair<std::string, Value>> args;
    for (size_t i = 0; i < p.exprs.size(); ++i) {
      SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*p.exprs[i], fname.c_str()));
      args.emplace_back(i < p.arg_names.size() ? p.arg_names[i] : "", std::move(v));
    }
    SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ResolveRelationPlanOnce(catalog_, p, args));
    if (plan) return Plan(*plan);
    if (p.streaming || !p.arg_names.empty()) {
      return Status::Error("UNRESOLVABLE_TABLE_VALUED_FUNCTION",
                           {{"name", QuoteIdentifier(p.table_name)}});
    }
  }
  if (fname != "range") {
    if (p.table_name.size() == 1) {
      // Functions the api implements (Delta's table_changes).
      std::vector<Value> args;
      for (const auto& e : p.exprs) {
        SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*e, fname.c_str()));
        args.push_back(std::move(v));
      }
      SPATE_ASSIGN_OR_RETURN(DataSourcePtr source,
                             catalog_.ResolveTableFunction(fname, args));
      if (source) {
        LogicalPlan files(PlanKind::kDataSource);
        files.source = source;
        return PlanDataSource(files);
      }
    }
    if (p.table_name.size() == 1 && IsGeneratorName(fname)) {
      // A generator in FROM (SELECT * FROM stack(2, 1, 2)): it runs over one empty row.
      BoundPlanPtr child = std::make_shared<BoundPlan>(BoundKind::kOneRow);
      std::vector<ExprPtr> items{Expr::Call(fname, p.exprs)};
      SPATE_RETURN_IF_ERROR(PlanGenerator(&child, &items));
      auto q = std::make_shared<BoundPlan>(*child);
      for (auto& a : q->output) {
        a.qualifier = p.alias;
        a.plan_ids.clear();
      }
      return Finish(q);
    }
    return Status::Error("UNRESOLVABLE_TABLE_VALUED_FUNCTION",
                         {{"name", QuoteIdentifier(p.table_name)}});
  }
  std::vector<int64_t> args;
  for (const auto& e : p.exprs) {
    SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*e, "range"));
    if (v.is_null() || !v.type()->IsIntegral()) {
      return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                           {{"sqlExpr", "\"range(...)\""},
                            {"paramIndex", "first"},
                            {"requiredType", "\"BIGINT\""},
                            {"inputSql", "\"" + e->DisplayName() + "\""},
                            {"inputType", QuoteType(*v.type())}});
    }
    args.push_back(v.i64());
  }
  if (args.empty() || args.size() > 4) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`range`"},
                          {"expectedNum", "[1, 2, 3, 4]"},
                          {"actualNum", std::to_string(args.size())}});
  }
  auto r = std::make_shared<BoundPlan>(BoundKind::kRange);
  if (args.size() == 1) {
    r->range_end = args[0];
  } else {
    r->range_start = args[0];
    r->range_end = args[1];
  }
  if (args.size() >= 3) r->range_step = args[2];
  if (r->range_step == 0) {
    return Status::Error("FAILED_FUNCTION_CALL", {{"funcName", "`range`"}});
  }
  r->num_partitions =
      args.size() == 4 ? static_cast<int>(args[3])
                       : std::atoi(conf_.GetOr("spark.default.parallelism", "2").c_str());
  r->output.push_back(MakeAttr("id", DataType::Long(), false));
  return Finish(r);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanValues(const LogicalPlan& p) {
  std::vector<std::vector<Value>> rows;
  std::vector<std::vector<BoundExprPtr>> cells;  // the bound expressions, for nullability
  size_t width = p.rows.empty() ? 0 : p.rows[0].size();
  for (const auto& row : p.rows) {
    if (row.size() != width) {
      return Status::Error("INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH",
                           {{"expectedNumCols", std::to_string(width)},
                            {"actualNumCols", std::to_string(row.size())},
                            {"rowIndex", std::to_string(rows.size())}});
    }
    std::vector<Value> vals;
    std::vector<BoundExprPtr> bound;
    for (const auto& e : row) {
      BoundExprPtr b;
      SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*e, "VALUES", &b));
      vals.push_back(std::move(v));
      bound.push_back(std::move(b));
    }
    rows.push_back(std::move(vals));
    cells.push_back(std::move(bound));
  }
  std::vector<Field> fields;
  std::vector<ColumnPtr> cols;
  EvalContext ctx;
  ctx.ansi = conf_.ansi();
  for (size_t c = 0; c < width; ++c) {
    std::vector<DataTypePtr> types;
    bool nullable = false;
    for (const auto& r : rows) {
      types.push_back(r[c].type());
      nullable |= r[c].is_null();
    }
    DataTypePtr t = CommonType(types);
    if (!t) {
      return Status::Error(
          "INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE",
          {{"colName", QuoteIdentifier({"col" + std::to_string(c + 1)})}});
    }
    std::vector<Value> vals;
    for (size_t i = 0; i < rows.size(); ++i) {
      SPATE_ASSIGN_OR_RETURN(auto v, CastValue(rows[i][c], t, CastMode::kAnsi, ctx));
      vals.push_back(std::move(v));
      // As Spark's inline tables: a column is nullable when an expression of it is, or
      // its cast to the column's type (CAST(1 AS DECIMAL(4,2)), Cast.forceNullable).
      auto cast = MakeCast(cells[i][c], t);
      nullable |= cells[i][c]->nullable() || (cast.ok() && (*cast)->nullable());
    }
    std::string name =
        c < p.column_aliases.size() ? p.column_aliases[c] : "col" + std::to_string(c + 1);
    fields.push_back(Field{name, t, nullable});
    cols.push_back(ColumnFromValues(t, vals));
  }
  auto schema = std::make_shared<const Schema>(fields);
  auto r = std::make_shared<BoundPlan>(BoundKind::kLocal);
  r->batches.push_back(Batch::Make(schema, cols, static_cast<int64_t>(rows.size())));
  for (const auto& f : fields)
    r->output.push_back(MakeAttr(f.name, f.type, f.nullable, p.alias));
  return Finish(r);
}

Result<WindowCall> Analyzer::Impl::BindWindow(const Expr& e,
                                              const std::vector<Attribute>& scope,
                                              const BindHook* hook) {
  const Expr& fn = *e.children[0];
  const WindowDef& spec = *e.window;
  WindowCall w;
  w.text = e.DisplayName();
  for (const auto& pexpr : spec.partition_by) {
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*pexpr, scope, hook));
    w.partition_by.push_back(b);
  }
  SPATE_ASSIGN_OR_RETURN(w.order_by, BindSortKeys(spec.order_by, scope, hook));
  if (fn.kind != ExprKind::kCall) {
    return Status::Error("UNSUPPORTED_EXPR_FOR_WINDOW",
                         {{"sqlExpr", "\"" + fn.DisplayName() + "\""}});
  }
  for (const auto& a : fn.children) {
    if (a->kind == ExprKind::kStar) continue;  // count(*)
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*a, scope, hook));
    w.args.push_back(b);
  }
  const std::string& name = fn.name;
  // WITHIN GROUP aggregates (percentile_cont / _disc, listagg) take neither ORDER BY nor
  // a frame in OVER; their keys follow the arguments.
  std::vector<OrderDirection> within;
  if (!fn.within_group.empty() || name == "percentile_cont" ||
      name == "percentile_disc") {
    if (!spec.order_by.empty() || spec.frame) {
      std::string text = name + "(";
      std::vector<std::string> parts;
      if (name.starts_with("percentile") && !fn.within_group.empty() && !w.args.empty()) {
        parts = {fn.within_group[0].expr->DisplayName(), fn.children[0]->DisplayName()};
      } else {
        for (const auto& c : fn.children) parts.push_back(c->DisplayName());
        for (const auto& s : fn.within_group) {
          parts.push_back(s.expr->DisplayName() + (s.ascending ? " ASC" : " DESC") +
                          (s.nulls_first ? " NULLS FIRST" : " NULLS LAST"));
        }
      }
      for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
      return Status::Error("INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC",
                           {{"aggFunc", "\"" + text + ")\""}});
    }
    for (const auto& s : fn.within_group) {
      SPATE_ASSIGN_OR_RETURN(auto k, Bind(*s.expr, scope, hook));
      w.args.push_back(std::move(k));
      within.push_back(OrderDirection{s.ascending, s.nulls_first});
    }
  }
  w.nullable = false;  // the ranking functions; lag/lead and aggregates set their own
  if (name == "row_number") {
    w.kind = WindowFunctionKind::kRowNumber, w.type = DataType::Int();
  } else if (name == "rank") {
    w.kind = WindowFunctionKind::kRank, w.type = DataType::Int();
  } else if (name == "dense_rank") {
    w.kind = WindowFunctionKind::kDenseRank, w.type = DataType::Int();
  } else if (name == "percent_rank") {
    w.kind = WindowFunctionKind::kPercentRank, w.type = DataType::Double();
  } else if (name == "cume_dist") {
    w.kind = WindowFunctionKind::kCumeDist, w.type = DataType::Double();
  } else if (name == "ntile") {
    w.kind = WindowFunctionKind::kNtile, w.type = DataType::Int();
    const Value* buckets = w.args.size() == 1 ? w.args[0]->literal_value() : nullptr;
    if (!buckets || buckets->is_null() || !buckets->type()->IsIntegral()) {
      return Status::Error("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                           {{"sqlExpr", "\"" + fn.DisplayName() + "\""},
                            {"inputName", "`buckets`"},
                            {"inputType", "\"INT\""},
                            {"inputExpr", "\"" + fn.DisplayName() + "\""}});
    }
    if (buckets->i64() <= 0) {
      return Status::Error("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                           {{"sqlExpr", "\"" + fn.DisplayName() + "\""},
                            {"exprName", "`buckets`"},
                            {"valueRange", "(0, 2147483647]"},
                            {"currentValue", std::to_string(buckets->i64())}});
    }
  } else if (name == "lag" || name == "lead") {
    w.kind = name == "lag" ? WindowFunctionKind::kLag : WindowFunctionKind::kLead;
    if (w.args.empty()) {
      return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                           {{"functionName", "`" + name + "`"},
                            {"expectedNum", "[1, 2, 3]"},
                            {"actualNum", "0"}});
    }
    w.type = w.args[0]->type();
    if (w.args.size() < 2) w.args.push_back(MakeLiteral(Value::Int(1)));
    if (w.args.size() < 3) w.args.push_back(MakeLiteral(Value::Null(w.type)));
    SPATE_ASSIGN_OR_RETURN(w.args[2], ImplicitCast(w.args[2], w.type));
    w.nullable = true;  // past the partition's edge without a default
  } else if (name == "nth_value") {
    SPATE_RETURN_IF_ERROR(BindNthValue(fn, &w));
    if (w.order_by.empty()) {
      std::string call = fn.DisplayName();
      return Status::Error("WINDOW_FUNCTION_FRAME_NOT_ORDERED",
                           {{"wf_name", name}, {"wf_expr", call}});
    }
  } else if (FunctionRegistry::Global().KindOf(name) == FunctionKind::kAggregate) {
    w.kind = WindowFunctionKind::kAggregate;
    if (fn.is_distinct && !within.empty()) {
      return Status::Error("DISTINCT_WINDOW_FUNCTION_UNSUPPORTED",
                           {{"windowExpr", "\"" + e.DisplayName() + "\""}});
    }
    SPATE_ASSIGN_OR_RETURN(w.aggregate, MakeAggregate(name, w.args, fn.is_distinct,
                                                      fn.ignore_nulls, within));
    w.type = w.aggregate->result_type();
    w.nullable = w.aggregate->nullable();
  } else {
    return Status::Error("UNSUPPORTED_EXPR_FOR_WINDOW",
                         {{"sqlExpr", "\"" + fn.DisplayName() + "\""}});
  }
  // Frame.
  if (spec.frame) {
    const WindowFrame& f = *spec.frame;
    w.frame.kind = f.kind;
    auto bound = [&](const FrameBound& b, bool* unbounded, int64_t* offset,
                     bool* current) -> Status {
      *unbounded = b.type == FrameBound::Type::kUnboundedPreceding ||
                   b.type == FrameBound::Type::kUnboundedFollowing;
      *current = b.type == FrameBound::Type::kCurrentRow;
      *offset = 0;
      if (b.type == FrameBound::Type::kPreceding ||
          b.type == FrameBound::Type::kFollowing) {
        SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*b.offset, "frame boundary"));
        int64_t x = v.type()->IsFloating() ? static_cast<int64_t>(v.f64()) : v.i64();
        *offset = b.type == FrameBound::Type::kPreceding ? -x : x;
      }
      return Status::OK();
    };
    SPATE_RETURN_IF_ERROR(bound(f.lower, &w.frame.lower_unbounded, &w.frame.lower_offset,
                                &w.frame.lower_current));
    SPATE_RETURN_IF_ERROR(bound(f.upper, &w.frame.upper_unbounded, &w.frame.upper_offset,
                                &w.frame.upper_current));
    // The lower bound must not come after the upper bound (Spark's SpecifiedWindowFrame).
    auto position = [](const FrameBound& b, int64_t offset) -> long double {
      switch (b.type) {
        case FrameBound::Type::kUnboundedPreceding:
          return -1e300L;
        case FrameBound::Type::kUnboundedFollowing:
          return 1e300L;
        case FrameBound::Type::kCurrentRow:
          return 0;
        default:
          return static_cast<long double>(offset);
      }
    };
    std::string frame_sql =
        std::string(f.kind == WindowFrame::Kind::kRows ? "ROWS" : "RANGE");
    if (f.lower.type == FrameBound::Type::kUnboundedFollowing ||
        f.upper.type == FrameBound::Type::kUnboundedPreceding) {
      return Status::Error(
          "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_INVALID_BOUND",
          {{"sqlExpr", "\"" + e.DisplayName() + "\""},
           {"lower", f.lower.type == FrameBound::Type::kUnboundedFollowing
                         ? "\"UNBOUNDED FOLLOWING\""
                         : "\"lower\""},
           {"upper", f.upper.type == FrameBound::Type::kUnboundedPreceding
                         ? "\"UNBOUNDED PRECEDING\""
                         : "\"upper\""}});
    }
    if (position(f.lower, w.frame.lower_offset) >
        position(f.upper, w.frame.upper_offset)) {
      return Status::Error("DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON",
                           {{"sqlExpr", "\"" + e.DisplayName() + "\""},
                            {"comparison", "less than or equal"}});
    }
  } else if (!w.order_by.empty()) {
    w.frame.kind = WindowFrame::Kind::kRange;
    w.frame.lower_unbounded = true;
    w.frame.upper_unbounded = false;
    w.frame.upper_current = true;
  } else {
    w.frame.kind = WindowFrame::Kind::kRows;
    w.frame.lower_unbounded = true;
    w.frame.upper_unbounded = true;
    w.frame.upper_current = false;
  }
  return w;
}

Status Analyzer::Impl::BindNthValue(const Expr& fn, WindowCall* w) {
  if (w->args.size() < 2 || w->args.size() > 3) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`nth_value`"},
                          {"expectedNum", "[2, 3]"},
                          {"actualNum", std::to_string(w->args.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}});
  }
  const std::string text = "\"nth_value(" + fn.children[0]->DisplayName() + ", " +
                           fn.children[1]->DisplayName() + ")\"";
  const BoundExprPtr& off = w->args[1];
  if (!off->IsConstant()) {
    return Status::Error("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                         {{"sqlExpr", text},
                          {"inputName", "`offset`"},
                          {"inputType", "\"INT\""},
                          {"inputExpr", "\"" + fn.children[1]->DisplayName() + "\""}});
  }
  EvalContext ctx;
  ctx.ansi = true;  // the offset is cast to INT as an ANSI cast (CAST_OVERFLOW past INT)
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  SPATE_ASSIGN_OR_RETURN(ColumnPtr col, off->Evaluate(*one, ctx));
  Value v = col->GetValue(0);
  int64_t offset = 0;
  if (!v.is_null()) {
    SPATE_ASSIGN_OR_RETURN(Value i, CastValue(v, DataType::Int(), CastMode::kAnsi, ctx));
    offset = i.is_null() ? 0 : i.i64();
  }
  if (offset <= 0) {
    return Status::Error("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                         {{"sqlExpr", text},
                          {"exprName", "offset"},
                          {"valueRange", "(0, 9223372036854775807]"},
                          {"currentValue", std::to_string(offset) + "L"}});
  }
  bool ignore = fn.ignore_nulls;
  if (w->args.size() == 3) {
    const Value* b = w->args[2]->literal_value();
    if (!b || b->is_null() || b->type()->id() != TypeId::kBoolean) {
      return Status::Error(
          "INVALID_PARAMETER_VALUE.BOOLEAN",
          {{"parameter", "`ignoreNulls`"},
           {"functionName", "`nth_value`"},
           {"invalidValue", "\"" + fn.children[2]->DisplayName() + "\""}});
    }
    ignore |= b->i64() != 0;
  }
  w->kind = WindowFunctionKind::kNthValue;
  w->type = w->args[0]->type();
  w->nullable = true;
  w->args = {w->args[0], MakeLiteral(Value::Long(offset)),
             MakeLiteral(Value::Boolean(ignore))};
  return Status::OK();
}

Result<std::vector<SortKey>> Analyzer::Impl::BindSortKeys(
    const std::vector<SortSpec>& specs, const std::vector<Attribute>& scope,
    const BindHook* hook) {
  std::vector<SortKey> keys;
  for (const auto& s : specs) {
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*s.expr, scope, hook));
    if (!IsOrderable(*b->type())) {
      return Status::Error("DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                           {{"sqlExpr", "\"" + s.expr->DisplayName() + "\""},
                            {"functionName", "`sortorder`"},
                            {"dataType", QuoteType(*b->type())}});
    }
    keys.push_back(SortKey{b, s.ascending, s.nulls_first});
  }
  return keys;
}

// Collects the aggregate calls and group-key matches of one SELECT block.
class Analyzer::Impl::AggregateContext {
 public:
  AggregateContext(Impl* impl, const std::vector<Attribute>* child_scope)
      : impl_(impl), child_scope_(child_scope) {}

  std::vector<BoundExprPtr> groups;
  std::vector<std::string> group_texts;
  std::vector<std::string> group_names;
  std::vector<AggregateCall> aggs;
  std::vector<std::string> agg_names;
  /// Per group: whether its output column may be NULL (a key of grouping sets is NULL in
  /// the sets without it).
  std::vector<bool> group_nullable;
  /// Grouping sets (ROLLUP / CUBE / GROUPING SETS): the first `num_keys` groups are the
  /// keys, bound over the input; the next group is spark_grouping_id (then the set's
  /// position when sets repeat). grouping() / grouping_id() read the id.
  bool grouping_sets = false;
  size_t num_keys = 0;
  /// The id's column in the expanded input, which aggregate arguments read
  /// (sum(grouping(k)) counts the rows of the sets without k).
  BoundExprPtr input_grouping_id;
  /// Select-list aliases, which HAVING may reference (Spark resolves them there).
  std::vector<std::pair<std::string, ExprPtr>> aliases;
  bool has_group_by = true;
  const BindHook* self_hook = nullptr;

  int num_groups() const { return static_cast<int>(groups.size()); }

  // The hook binding expressions of the SELECT list / HAVING / ORDER BY against the
  // aggregate's output.
  Result<std::optional<BoundExprPtr>> Hook(const Expr& e) {
    if (grouping_sets && e.kind == ExprKind::kCall &&
        (e.name == "grouping" || e.name == "grouping_id")) {
      SPATE_ASSIGN_OR_RETURN(auto ref, BindGrouping(e, GroupRef(num_keys)));
      return std::optional<BoundExprPtr>(ref);
    }
    if (grouping_sets && e.kind == ExprKind::kColumn && e.name_parts.size() == 1 &&
        EqualsIgnoreCase(e.name_parts[0], "grouping__id") &&
        !impl_->Bind(e, *child_scope_, nullptr).ok()) {
      return std::optional<BoundExprPtr>(
          GroupRef(num_keys));  // Hive's name of grouping_id()
    }
    if (e.kind == ExprKind::kCall &&
        FunctionRegistry::Global().KindOf(e.name) == FunctionKind::kAggregate) {
      SPATE_ASSIGN_OR_RETURN(auto ref, AddAggregate(e));
      return std::optional<BoundExprPtr>(ref);
    }
    if (e.kind == ExprKind::kLiteral || e.kind == ExprKind::kWindow)
      return std::optional<BoundExprPtr>();
    // Does this subtree, bound on the input, equal a grouping expression?
    if (!ContainsAggregate(e)) {
      auto b = impl_->Bind(e, *child_scope_, nullptr);
      if (b.ok()) {
        std::string text = (*b)->ToString();
        for (size_t i = 0; i < group_texts.size(); ++i) {
          if (group_texts[i] == text) return std::optional<BoundExprPtr>(GroupRef(i));
        }
        if (e.kind == ExprKind::kColumn && e.name_parts.size() > 1) {
          // A struct field of a grouping key (`window.start` after GROUP BY window(...)).
          for (size_t k = e.name_parts.size() - 1; k >= 1; --k) {
            auto prefix = std::make_shared<Expr>(e);
            prefix->name_parts.assign(
                e.name_parts.begin(),
                e.name_parts.begin() + static_cast<std::ptrdiff_t>(k));
            auto pb = impl_->Bind(*prefix, *child_scope_, nullptr);
            if (!pb.ok()) continue;
            std::string ptext = (*pb)->ToString();
            for (size_t i = 0; i < group_texts.size(); ++i) {
              if (group_texts[i] != ptext) continue;
              BoundExprPtr out = GroupRef(i);
              size_t f = k;
              for (; f < e.name_parts.size(); ++f) {
                if (out->type()->id() != TypeId::kStruct) break;
                int idx =
                    out->type()->FieldIndex(e.name_parts[f], impl_->case_sensitive_);
                if (idx < 0) break;
                out = MakeGetStructField(out, idx);
              }
              if (f == e.name_parts.size()) return std::optional<BoundExprPtr>(out);
            }
          }
        }
        if (e.kind == ExprKind::kColumn) {
          if (!has_group_by) return Status::Error("MISSING_GROUP_BY", {});
          return Status::Error(
              "MISSING_AGGREGATION",
              {{"expression", "\"" + e.DisplayName() + "\""},
               {"expressionAnyValue", "\"any_value(" + e.DisplayName() + ")\""}});
        }
      } else if (e.kind == ExprKind::kColumn) {
        if (e.name_parts.size() == 1) {
          for (const auto& [name, aliased] : aliases) {
            if (EqualsIgnoreCase(name, e.name_parts[0])) {
              SPATE_ASSIGN_OR_RETURN(auto bound,
                                     impl_->Bind(*aliased, *child_scope_, self_hook));
              return std::optional<BoundExprPtr>(bound);
            }
          }
        }
        return b.status();
      }
    }
    return std::optional<BoundExprPtr>();
  }

 private:
  // A reference to group i in the aggregate's output.
  BoundExprPtr GroupRef(size_t i) const {
    return MakeColumnRef(static_cast<int>(i), groups[i]->type(), group_nullable[i],
                         group_texts[i]);
  }

  std::string KeyList(const std::vector<std::string>& texts) const {
    std::string out;
    for (size_t i = 0; i < texts.size(); ++i) out += (i ? "," : "") + texts[i];
    return out;
  }

  // grouping(k): bit (n - 1 - i) of the grouping id for key i, a TINYINT; grouping_id()
  // (or with the keys in order): the id (Spark's ResolveGroupingAnalytics).
  Result<BoundExprPtr> BindGrouping(const Expr& e, const BoundExprPtr& id) {
    std::vector<std::string> texts;
    for (const auto& c : e.children) {
      SPATE_ASSIGN_OR_RETURN(auto b, impl_->Bind(*c, *child_scope_, nullptr));
      texts.push_back(b->ToString());
    }
    std::vector<std::string> keys(group_texts.begin(), group_texts.begin() + num_keys);
    if (e.name == "grouping_id") {
      if (!texts.empty() && texts != keys) {
        return Status::Error(
            "GROUPING_ID_COLUMN_MISMATCH",
            {{"groupingIdColumn", KeyList(texts)}, {"groupByColumns", KeyList(keys)}});
      }
      return id;
    }
    if (texts.size() != 1) {
      return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                           {{"functionName", "`grouping`"},
                            {"expectedNum", "1"},
                            {"actualNum", std::to_string(texts.size())},
                            {"docroot", "https://spark.apache.org/docs/latest"}});
    }
    auto key = std::find(keys.begin(), keys.end(), texts[0]);
    if (key == keys.end()) {
      return Status::Error("GROUPING_COLUMN_MISMATCH",
                           {{"grouping", texts[0]}, {"groupingColumns", KeyList(keys)}});
    }
    const int shift = static_cast<int>(keys.end() - key) - 1;
    // CAST((shiftright(id, shift) & 1) AS TINYINT), bound with `id` for a placeholder.
    ExprPtr placeholder = Expr::Col(std::string(kGroupingIdName));
    ExprPtr bit = Expr::Cast(
        Expr::Call("&",
                   {Expr::Call("shiftright", {placeholder, Expr::Lit(Value::Int(shift))}),
                    Expr::Lit(Value::Long(1))}),
        DataType::Byte());
    BindHook to_id = [&](const Expr& x) -> Result<std::optional<BoundExprPtr>> {
      if (&x == placeholder.get()) return std::optional<BoundExprPtr>(id);
      return std::optional<BoundExprPtr>();
    };
    return impl_->Bind(*bit, *child_scope_, &to_id);
  }

  Result<BoundExprPtr> AddAggregate(const Expr& e) {
    for (const auto& c : e.children) {
      if (ContainsAggregate(*c)) return Status::Error("NESTED_AGGREGATE_FUNCTION", {});
    }
    // Over grouping sets the arguments may read grouping() / grouping_id() of their row.
    BindHook input_hook = [this](const Expr& x) -> Result<std::optional<BoundExprPtr>> {
      if (x.kind == ExprKind::kCall &&
          (x.name == "grouping" || x.name == "grouping_id")) {
        SPATE_ASSIGN_OR_RETURN(auto ref, BindGrouping(x, input_grouping_id));
        return std::optional<BoundExprPtr>(ref);
      }
      return std::optional<BoundExprPtr>();
    };
    const BindHook* arg_hook = grouping_sets ? &input_hook : nullptr;
    std::vector<BoundExprPtr> args;
    for (const auto& c : e.children) {
      if (c->kind == ExprKind::kStar) continue;  // count(*)
      SPATE_ASSIGN_OR_RETURN(auto b, impl_->Bind(*c, *child_scope_, arg_hook));
      args.push_back(b);
    }
    BoundExprPtr filter;
    if (e.filter) {
      SPATE_ASSIGN_OR_RETURN(filter, impl_->Bind(*e.filter, *child_scope_, arg_hook));
    }
    // WITHIN GROUP (ORDER BY ...): the keys follow the arguments.
    std::vector<OrderDirection> within;
    std::string within_text;
    for (const auto& s : e.within_group) {
      SPATE_ASSIGN_OR_RETURN(auto k, impl_->Bind(*s.expr, *child_scope_, arg_hook));
      within_text += std::string(within.empty() ? " WITHIN GROUP (ORDER BY " : ", ") +
                     k->ToString() + (s.ascending ? " ASC" : " DESC") +
                     (s.nulls_first ? " NULLS FIRST" : " NULLS LAST");
      args.push_back(std::move(k));
      within.push_back(OrderDirection{s.ascending, s.nulls_first});
    }
    if (!within.empty()) within_text += ")";
    SPATE_ASSIGN_OR_RETURN(
        auto fn, MakeAggregate(e.name, args, e.is_distinct, e.ignore_nulls, within));
    std::vector<std::string> arg_text;
    for (size_t i = 0; i < args.size() - within.size(); ++i)
      arg_text.push_back(args[i]->ToString());
    if (args.empty()) arg_text.push_back("1");
    std::string text = e.name + "(" + (e.is_distinct ? "DISTINCT " : "");
    for (size_t i = 0; i < arg_text.size(); ++i) text += (i ? ", " : "") + arg_text[i];
    text += ")" + within_text;
    if (filter) text += " FILTER (WHERE " + filter->ToString() + ")";
    int index = -1;
    for (size_t i = 0; i < aggs.size(); ++i) {
      if (aggs[i].text == text) index = static_cast<int>(i);
    }
    if (index < 0) {
      index = static_cast<int>(aggs.size());
      aggs.push_back(AggregateCall{fn, args, filter, text});
      agg_names.push_back(e.DisplayName());
    }
    int pos = num_groups() + index;
    return MakeColumnRef(pos, fn->result_type(), fn->nullable(), aggs[index].text);
  }

  Impl* impl_;
  const std::vector<Attribute>* child_scope_;
};

Result<BoundPlanPtr> Analyzer::Impl::PlanSelect(const LogicalPlan& select,
                                                const LogicalPlan* having,
                                                const LogicalPlan* sort) {
  // A generator over aggregates (SELECT k, explode(collect_list(v)) ... GROUP BY k): the
  // aggregation runs first with the generator's arguments as hidden columns, then a
  // projection generates over them (Spark's ExtractGenerator does the same).
  {
    auto strip = [](const ExprPtr& e) -> const Expr& {
      return e->kind == ExprKind::kAlias ? *e->children[0] : *e;
    };
    int gen = -1;
    bool star = false;
    for (size_t i = 0; i < select.exprs.size(); ++i) {
      const Expr& it = strip(select.exprs[i]);
      star |= it.kind == ExprKind::kStar;
      if (it.kind != ExprKind::kCall || !IsGeneratorName(it.name)) continue;
      for (const auto& c : it.children) {
        if (ContainsAggregate(*c)) gen = static_cast<int>(i);
      }
    }
    if (gen >= 0 && !star) {
      auto column = [](const std::string& name) {
        auto c = std::make_shared<Expr>(ExprKind::kColumn);
        c->name_parts = {name};
        return ExprPtr(c);
      };
      auto alias = [](ExprPtr e, const std::string& name) {
        auto a = std::make_shared<Expr>(ExprKind::kAlias);
        a->children.push_back(std::move(e));
        a->name = name;
        return ExprPtr(a);
      };
      auto inner = std::make_shared<LogicalPlan>(select);
      if (inner->kind == PlanKind::kProject) inner->kind = PlanKind::kAggregate;
      inner->exprs.clear();
      auto outer = std::make_shared<LogicalPlan>(PlanKind::kProject);
      for (size_t i = 0; i < select.exprs.size(); ++i) {
        const ExprPtr& item = select.exprs[i];
        if (static_cast<int>(i) != gen) {
          std::string hidden = "__spate_c" + std::to_string(i);
          inner->exprs.push_back(
              alias(item->kind == ExprKind::kAlias ? item->children[0] : item, hidden));
          outer->exprs.push_back(alias(column(hidden), ItemName(*item)));
          continue;
        }
        const Expr& call = strip(item);
        auto regen = std::make_shared<Expr>(call);
        regen->children.clear();
        for (size_t k = 0; k < call.children.size(); ++k) {
          std::string hidden = "__spate_g" + std::to_string(k);
          inner->exprs.push_back(alias(call.children[k], hidden));
          regen->children.push_back(column(hidden));
        }
        if (item->kind == ExprKind::kAlias) {
          auto a = std::make_shared<Expr>(*item);
          a->children = {regen};
          outer->exprs.push_back(a);
        } else {
          outer->exprs.push_back(regen);
        }
      }
      PlanPtr below = inner;
      if (having) {
        auto f = std::make_shared<LogicalPlan>(*having);
        f->children = {below};
        below = f;
      }
      outer->children = {below};
      PlanPtr top = outer;
      if (sort) {
        auto s = std::make_shared<LogicalPlan>(*sort);
        s->children = {top};
        top = s;
      }
      return Plan(*top);
    }
  }
  SPATE_ASSIGN_OR_RETURN(auto child, Plan(*select.child()));
  SPATE_ASSIGN_OR_RETURN(auto items, ExpandStars(select.exprs, child->output));
  SPATE_RETURN_IF_ERROR(PlanGenerator(&child, &items));
  std::vector<ExprPtr> group_by = select.group_by;
  {
    // window(...) / session_window(...): Spark's TimeWindowing/SessionWindowing rules.
    TimeWindowRewriter tw;
    tw.bind = [this](const Expr& e, const std::vector<Attribute>& s) {
      return Bind(e, s, nullptr);
    };
    tw.eval_constant = [this](const Expr& e) { return EvalConstant(e, "window"); };
    tw.make_attr = [this](std::string n, DataTypePtr t, bool nl) {
      return MakeAttr(std::move(n), std::move(t), nl);
    };
    tw.name_eq = [this](const std::string& a, const std::string& b) {
      return NameEq(a, b);
    };
    tw.ansi = conf_.ansi();
    SPATE_RETURN_IF_ERROR(tw.Rewrite(&child, &items, &group_by));
  }
  SPATE_ASSIGN_OR_RETURN(items, ResolveLateralAliases(std::move(items), child->output));
  SPATE_RETURN_IF_ERROR(PushDownLateralAliases(select, having, &items, &child));
  const std::vector<Attribute>& child_scope = child->output;
  bool has_agg = select.kind == PlanKind::kAggregate;
  bool has_window = false;
  for (const auto& it : items) {
    has_agg |= ContainsAggregate(*it);
    has_window |= ContainsWindow(*it);
  }
  if (having) has_agg |= ContainsAggregate(*having->condition);
  if (sort) {
    for (const auto& s : sort->sort) has_agg |= ContainsAggregate(*s.expr);
  }
  std::vector<std::string> names;
  for (const auto& it : items) names.push_back(ItemName(*it));

  BoundPlanPtr base = child;  // input of the window/projection
  // Grouping sets: the keys, the sets and the columns the aggregate reads (the
  // expansion).
  std::vector<BoundExprPtr> set_keys;
  GroupingSets grouping_sets;
  std::vector<Attribute> expansion;
  std::optional<AggregateContext> agg;
  BindHook agg_hook;
  const BindHook* hook = nullptr;
  if (has_agg) {
    agg.emplace(this, &child_scope);
    // Grouping expressions: ordinals, select aliases, or expressions over the input.
    auto resolve_group =
        [&](const ExprPtr& g) -> Result<std::pair<ExprPtr, BoundExprPtr>> {
      ExprPtr ge = g;
      if (g->kind == ExprKind::kLiteral && g->literal.type()->IsIntegral() &&
          conf_.GetOr("spark.sql.groupByOrdinal", "true") == "true") {
        int64_t pos = g->literal.i64();
        if (pos < 1 || pos > static_cast<int64_t>(items.size())) {
          return Status::Error(
              "GROUP_BY_POS_OUT_OF_RANGE",
              {{"index", std::to_string(pos)}, {"size", std::to_string(items.size())}});
        }
        ge = items[pos - 1]->kind == ExprKind::kAlias ? items[pos - 1]->children[0]
                                                      : items[pos - 1];
        if (ContainsAggregate(*ge)) {
          return Status::Error(
              "GROUP_BY_POS_AGGREGATE",
              {{"index", std::to_string(pos)}, {"aggExpr", ge->DisplayName()}});
        }
      }
      if (ContainsAggregate(*ge)) {
        return Status::Error("GROUP_BY_AGGREGATE", {{"sqlExpr", ge->DisplayName()}});
      }
      auto b = Bind(*ge, child_scope, nullptr);
      if (!b.ok() && ge->kind == ExprKind::kColumn && ge->name_parts.size() == 1) {
        // GROUP BY select alias.
        for (const auto& it : items) {
          if (it->kind == ExprKind::kAlias && NameEq(it->name, ge->name_parts[0])) {
            ge = it->children[0];
            if (ContainsAggregate(*ge)) {
              return Status::Error("GROUP_BY_AGGREGATE",
                                   {{"sqlExpr", ge->DisplayName()}});
            }
            b = Bind(*ge, child_scope, nullptr);
            break;
          }
        }
      }
      if (!b.ok()) return b.status();
      return std::make_pair(ge, *b);
    };
    auto add_group = [&](const ExprPtr& ge, const BoundExprPtr& b, bool nullable) {
      agg->groups.push_back(b);
      agg->group_texts.push_back(b->ToString());
      agg->group_names.push_back(ge->kind == ExprKind::kAlias ? ge->name
                                                              : ge->DisplayName());
      agg->group_nullable.push_back(nullable);
    };
    if (HasGroupingAnalytics(group_by)) {
      // ROLLUP / CUBE / GROUPING SETS: one aggregate over the input expanded per set.
      std::map<const Expr*, std::pair<ExprPtr, BoundExprPtr>> resolved;
      auto identity = [&](const ExprPtr& g) -> Result<std::string> {
        if (ContainsAggregate(*g)) {
          // Spark's Expand computes the aggregate below its own grouping and fails so.
          return Status::Error("MISSING_GROUP_BY", {});
        }
        SPATE_ASSIGN_OR_RETURN(auto r, resolve_group(g));
        resolved[g.get()] = r;
        return r.second->ToString();
      };
      SPATE_ASSIGN_OR_RETURN(grouping_sets, ExpandGroupingAnalytics(group_by, identity));
      std::vector<std::string> key_names;
      for (const auto& k : grouping_sets.keys) {
        const auto& [ge, b] = resolved.at(k.get());
        add_group(ge, b, true);
        set_keys.push_back(b);
        key_names.push_back(agg->group_names.back());
      }
      expansion = GroupingExpansion(child_scope, set_keys, key_names, grouping_sets,
                                    [this](std::string n, DataTypePtr t, bool nl) {
                                      return MakeAttr(std::move(n), std::move(t), nl);
                                    });
      agg->grouping_sets = true;
      agg->num_keys = set_keys.size();
      // The keys' nullability, then the id (and the position) as further groups.
      for (size_t i = child_scope.size(); i < expansion.size(); ++i) {
        const Attribute& a = expansion[i];
        if (i - child_scope.size() < set_keys.size()) {
          agg->group_nullable[i - child_scope.size()] = a.nullable;
          continue;
        }
        BoundExprPtr ref =
            MakeColumnRef(static_cast<int>(i), a.type, a.nullable, a.Label());
        if (!agg->input_grouping_id) agg->input_grouping_id = ref;
        // Not an expression of the input: no select item matches its text.
        agg->groups.push_back(ref);
        agg->group_texts.push_back("\x01" + a.name);
        agg->group_names.push_back(a.name);
        agg->group_nullable.push_back(false);
      }
    } else {
      for (const auto& g : group_by) {
        SPATE_ASSIGN_OR_RETURN(auto r, resolve_group(g));
        add_group(r.first, r.second, r.second->nullable());
      }
    }
    agg_hook = [&agg](const Expr& e) { return agg->Hook(e); };
    hook = &agg_hook;
    agg->self_hook = &agg_hook;
    agg->has_group_by = select.kind == PlanKind::kAggregate;
    for (const auto& it : items) {
      if (it->kind == ExprKind::kAlias)
        agg->aliases.emplace_back(it->name, it->children[0]);
    }
  }

  // Window extraction: window expressions become columns appended to the base.
  std::vector<WindowCall> windows;
  std::vector<Attribute> window_attrs;
  BindHook window_hook;
  const std::vector<Attribute>* bind_scope = &child_scope;
  // In aggregate context, expressions that are neither aggregates nor group keys must
  // fail; we bind against the child scope with the aggregate hook intercepting first.
  size_t base_width_for_windows = 0;
  auto make_window_hook = [&](const BindHook* inner) {
    return [this, inner, &windows, &window_attrs, &base_width_for_windows,
            &bind_scope](const Expr& e) -> Result<std::optional<BoundExprPtr>> {
      if (e.kind == ExprKind::kWindow) {
        SPATE_ASSIGN_OR_RETURN(auto w, BindWindow(e, *bind_scope, inner));
        // Dedupe identical window expressions.
        for (size_t i = 0; i < windows.size(); ++i) {
          if (windows[i].text == w.text) {
            return std::optional<BoundExprPtr>(
                MakeColumnRef(static_cast<int>(base_width_for_windows + i), w.type,
                              windows[i].nullable, window_attrs[i].Label()));
          }
        }
        Attribute a = MakeAttr(WindowDisplayName(e), w.type, w.nullable);
        windows.push_back(std::move(w));
        window_attrs.push_back(a);
        return std::optional<BoundExprPtr>(
            MakeColumnRef(static_cast<int>(base_width_for_windows + windows.size() - 1),
                          a.type, a.nullable, a.Label()));
      }
      if (inner) return (*inner)(e);
      return std::optional<BoundExprPtr>();
    };
  };
  if (has_window) {
    window_hook = make_window_hook(hook);
    hook = &window_hook;
  }

  // Bind select items.
  std::vector<BoundExprPtr> bound_items;
  // Base width: for aggregates = groups + aggs (unknown until all are bound); for windows
  // we bind in two passes when aggregating.
  if (has_agg)
    base_width_for_windows = 1 << 20;  // patched below
  else
    base_width_for_windows = child_scope.size();
  for (const auto& it : items) {
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*it, *bind_scope, hook));
    bound_items.push_back(b);
  }
  BoundExprPtr having_cond;
  if (having) {
    SPATE_ASSIGN_OR_RETURN(having_cond, Bind(*having->condition, *bind_scope, hook));
  }
  // ORDER BY: select-list names/ordinals first, then expressions over the input.
  struct PendingSort {
    int item = -1;        // refers to select item
    BoundExprPtr hidden;  // extra expression
    bool ascending, nulls_first;
  };
  std::vector<PendingSort> pending;
  if (sort) {
    for (const auto& s : sort->sort) {
      PendingSort ps{-1, nullptr, s.ascending, s.nulls_first};
      const Expr& se = *s.expr;
      if (se.kind == ExprKind::kLiteral && se.literal.type()->IsIntegral() &&
          conf_.GetOr("spark.sql.orderByOrdinal", "true") == "true") {
        int64_t pos = se.literal.i64();
        if (pos < 1 || pos > static_cast<int64_t>(items.size())) {
          return Status::Error(
              "ORDER_BY_POS_OUT_OF_RANGE",
              {{"index", std::to_string(pos)}, {"size", std::to_string(items.size())}});
        }
        ps.item = static_cast<int>(pos - 1);
      } else if (se.kind == ExprKind::kColumn && se.name_parts.size() == 1) {
        for (size_t i = 0; i < items.size(); ++i) {
          if (NameEq(names[i], se.name_parts[0])) {
            ps.item = static_cast<int>(i);
            break;
          }
        }
      }
      if (ps.item < 0) {
        std::string text = se.DisplayName();
        for (size_t i = 0; i < items.size() && ps.item < 0; ++i) {
          const Expr& ie =
              items[i]->kind == ExprKind::kAlias ? *items[i]->children[0] : *items[i];
          if (ie.DisplayName() == text && ie.kind != ExprKind::kLiteral)
            ps.item = static_cast<int>(i);
        }
      }
      if (ps.item < 0) {
        SPATE_ASSIGN_OR_RETURN(ps.hidden, Bind(se, *bind_scope, hook));
      }
      pending.push_back(ps);
    }
  }

  // Build the plan: [Aggregate] -> [Filter having] -> [Window] -> Project -> [Sort] ->
  // [Project]
  if (has_agg) {
    auto a = std::make_shared<BoundPlan>(BoundKind::kAggregate);
    a->children.push_back(child);
    a->group_exprs = agg->groups;
    a->aggregates = agg->aggs;
    const bool over_sets = agg->grouping_sets;
    for (size_t i = 0; i < agg->groups.size(); ++i) {
      int idx = agg->groups[i]->column_index();
      if (over_sets) {
        a->output.push_back(i < agg->num_keys
                                ? MakeAttr(agg->group_names[i], agg->groups[i]->type(),
                                           agg->group_nullable[i])
                                : expansion[child_scope.size() + i]);
      } else if (idx >= 0) {
        Attribute attr = child_scope[idx];
        a->output.push_back(attr);
      } else {
        a->output.push_back(MakeAttr(agg->group_names[i], agg->groups[i]->type(),
                                     agg->groups[i]->nullable()));
      }
    }
    for (size_t i = 0; i < agg->aggs.size(); ++i) {
      a->output.push_back(MakeAttr(agg->agg_names[i],
                                   agg->aggs[i].function->result_type(),
                                   agg->aggs[i].function->nullable()));
    }
    base = a;
    if (over_sets) {
      SPATE_ASSIGN_OR_RETURN(
          base, PlanGroupingAggregate(child, set_keys, grouping_sets, expansion,
                                      agg->aggs, a->output));
    }
    if (has_window) {
      // Window columns were given placeholder indices (1<<20 + i); rebase them now that
      // the aggregate's width is known, by re-binding the select items with the real
      // width.
      base_width_for_windows = a->output.size();
      windows.clear();
      window_attrs.clear();
      bound_items.clear();
      for (const auto& it : items) {
        SPATE_ASSIGN_OR_RETURN(auto b, Bind(*it, *bind_scope, hook));
        bound_items.push_back(b);
      }
      if (!pending.empty()) {
        size_t k = 0;
        for (const auto& s : sort->sort) {
          if (pending[k].hidden) {
            SPATE_ASSIGN_OR_RETURN(pending[k].hidden, Bind(*s.expr, *bind_scope, hook));
          }
          ++k;
        }
      }
      // Windows bound in aggregate context reference the aggregate output: their inputs
      // were bound through the aggregate hook, so they index into `a`'s output already.
    }
  }
  if (having_cond) {
    auto f = std::make_shared<BoundPlan>(BoundKind::kFilter);
    f->condition = having_cond;
    f->output = base->output;
    f->children.push_back(base);
    base = f;
  }
  if (has_window) {
    auto w = std::make_shared<BoundPlan>(BoundKind::kWindow);
    w->children.push_back(base);
    w->windows = windows;
    w->output = base->output;
    for (const auto& a : window_attrs) w->output.push_back(a);
    base = w;
  }
  // Projection with hidden sort columns.
  std::vector<BoundExprPtr> proj = bound_items;
  std::vector<std::string> proj_names = names;
  std::vector<const Attribute*> passthrough(items.size(), nullptr);
  for (size_t i = 0; i < items.size(); ++i) {
    int idx = bound_items[i]->column_index();
    if (idx >= 0 && idx < static_cast<int>(base->output.size()) &&
        items[i]->kind != ExprKind::kAlias) {
      passthrough[i] = &base->output[idx];
    }
  }
  size_t visible = proj.size();
  for (auto& ps : pending) {
    if (ps.hidden) {
      ps.item = static_cast<int>(proj.size());
      proj.push_back(ps.hidden);
      proj_names.push_back("__sort_" + std::to_string(ps.item));
    }
  }
  SPATE_ASSIGN_OR_RETURN(auto projected, Project(base, proj, proj_names, passthrough));
  BoundPlanPtr result = projected;
  if (sort) {
    auto s = std::make_shared<BoundPlan>(BoundKind::kSort);
    for (const auto& ps : pending) {
      const Attribute& a = projected->output[ps.item];
      s->sort_keys.push_back(
          SortKey{MakeColumnRef(ps.item, a.type, a.nullable, a.Label()), ps.ascending,
                  ps.nulls_first});
    }
    s->output = projected->output;
    s->children.push_back(projected);
    result = s;
    if (proj.size() > visible) {
      std::vector<BoundExprPtr> keep;
      std::vector<std::string> keep_names;
      std::vector<const Attribute*> pass;
      for (size_t i = 0; i < visible; ++i) {
        const Attribute& a = result->output[i];
        keep.push_back(MakeColumnRef(static_cast<int>(i), a.type, a.nullable, a.Label()));
        keep_names.push_back(a.name);
        pass.push_back(&result->output[i]);
      }
      SPATE_ASSIGN_OR_RETURN(result, Project(result, keep, keep_names, pass));
    }
  }
  return result;
}

Result<BoundPlanPtr> Analyzer::Impl::MakeDistinct(BoundPlanPtr child, DedupKind dedup) {
  auto a = std::make_shared<BoundPlan>(BoundKind::kAggregate);
  a->dedup = dedup;
  for (size_t i = 0; i < child->output.size(); ++i) {
    const Attribute& attr = child->output[i];
    a->group_exprs.push_back(
        MakeColumnRef(static_cast<int>(i), attr.type, attr.nullable, attr.Label()));
  }
  a->output = child->output;
  a->children.push_back(std::move(child));
  return Finish(a);
}

// Dataset.withWatermark: the event-time column must be a timestamp; the delay an interval
// string that is not negative (months count as 31 days, as
// EventTimeWatermark.getDelayMs).
Result<BoundPlanPtr> Analyzer::Impl::PlanWatermark(const LogicalPlan& p) {
  SPATE_ASSIGN_OR_RETURN(auto child, Plan(*p.child()));
  SPATE_ASSIGN_OR_RETURN(auto col, Bind(*p.exprs[0], child->output, nullptr));
  const int idx = col->column_index();
  if (idx < 0) return Status::Invalid("withWatermark takes the name of a column");
  const Attribute& attr = child->output[static_cast<size_t>(idx)];
  const TypeId t = attr.type->id();
  if (t != TypeId::kTimestamp && t != TypeId::kTimestampNtz) {
    return Status::Error("EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE",
                         {{"eventName", "`" + attr.name + "`"},
                          {"eventType", "\"" + attr.type->Sql() + "\""}});
  }
  // withWatermark gives the delay as text; the SQL WATERMARK clause as an interval
  // literal.
  Result<Value> iv = p.exprs.size() > 1 ? EvalConstant(*p.exprs[1], "WATERMARK")
                                        : MakeIntervalFromString(p.delay, p.delay);
  if (!iv.ok()) {
    if (p.exprs.size() > 1) return iv.status();
    return Status::Error("CANNOT_PARSE_INTERVAL",
                         {{"intervalString", "'" + p.delay + "'"}});
  }
  const TypeId it = iv->type()->id();
  if (it != TypeId::kDayTimeInterval && it != TypeId::kYearMonthInterval) {
    return Status::Invalid("The watermark delay must be an interval");
  }
  int64_t delay_ms = iv->type()->id() == TypeId::kYearMonthInterval
                         ? iv->i64() * 31 * 86'400'000LL
                         : iv->i64() / 1000;
  if (delay_ms < 0 || iv->i64() < 0) {
    return Status::Invalid("delay threshold (" + p.delay + ") should not be negative.");
  }
  auto w = std::make_shared<BoundPlan>(BoundKind::kWatermark);
  w->watermark_column = idx;
  w->watermark_delay_ms = delay_ms;
  w->watermark_delay_text = p.exprs.size() > 1 ? p.exprs[1]->DisplayName() : p.delay;
  w->output = child->output;
  w->children.push_back(child);
  return Finish(w);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanJoin(const LogicalPlan& p) {
  SPATE_ASSIGN_OR_RETURN(auto left, Plan(*p.children[0]));
  SPATE_ASSIGN_OR_RETURN(auto right, Plan(*p.children[1]));
  auto j = std::make_shared<BoundPlan>(BoundKind::kJoin);
  j->join_type = p.join_type == JoinType::kCross ? JoinType::kInner : p.join_type;
  j->children = {left, right};
  std::vector<Attribute> both = left->output;
  both.insert(both.end(), right->output.begin(), right->output.end());
  int nleft = static_cast<int>(left->output.size());
  auto& registry = FunctionRegistry::Global();
  ResolveContext rc;
  rc.ansi = conf_.ansi();
  std::vector<BoundExprPtr> residual;
  auto add_key = [&](BoundExprPtr l, BoundExprPtr r, bool null_safe) -> Status {
    DataTypePtr t = CommonType(l->type(), r->type());
    if (!t) {
      return Status::Error(
          "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES",
          {{"sqlExpr", "\"(" + l->ToString() + " = " + r->ToString() + ")\""},
           {"left", QuoteType(*l->type())},
           {"right", QuoteType(*r->type())}});
    }
    SPATE_ASSIGN_OR_RETURN(l, ImplicitCast(l, t));
    SPATE_ASSIGN_OR_RETURN(r, ImplicitCast(r, t));
    j->left_keys.push_back(l);
    j->right_keys.push_back(r);
    j->null_safe_keys.push_back(null_safe);
    return Status::OK();
  };
  std::vector<std::pair<int, int>> using_pairs;
  std::vector<std::string> using_columns = p.using_columns;
  if (p.natural) {
    for (const auto& la : left->output) {
      for (const auto& ra : right->output) {
        if (NameEq(la.name, ra.name)) using_columns.push_back(la.name);
      }
    }
  }
  if (!using_columns.empty()) {
    for (const auto& name : using_columns) {
      int li = -1, ri = -1;
      for (int i = 0; i < nleft; ++i) {
        if (NameEq(left->output[i].name, name)) li = i;
      }
      for (size_t i = 0; i < right->output.size(); ++i) {
        if (NameEq(right->output[i].name, name)) ri = static_cast<int>(i);
      }
      if (li < 0 || ri < 0) {
        const auto& side = li < 0 ? left->output : right->output;
        std::string cols;
        for (size_t k = 0; k < side.size(); ++k)
          cols += (k ? ", " : "") + QuoteIdentifier({side[k].name});
        return Status::Error("UNRESOLVED_USING_COLUMN_FOR_JOIN",
                             {{"colName", QuoteIdentifier({name})},
                              {"side", li < 0 ? "left" : "right"},
                              {"suggestion", cols}});
      }
      const Attribute& la = left->output[li];
      const Attribute& ra = right->output[ri];
      SPATE_RETURN_IF_ERROR(add_key(MakeColumnRef(li, la.type, la.nullable, la.Label()),
                                    MakeColumnRef(ri, ra.type, ra.nullable, ra.Label()),
                                    false));
      using_pairs.emplace_back(li, ri);
    }
  } else if (p.condition) {
    // Split conjunctions; equalities between one side and the other become keys.
    std::vector<ExprPtr> conjuncts = SplitConjuncts(p.condition);
    for (const auto& c : conjuncts) {
      // Full binding first: surfaces unresolved/ambiguous names.
      SPATE_ASSIGN_OR_RETURN(auto whole, Bind(*c, both, nullptr));
      bool is_eq = c->kind == ExprKind::kCall && (c->name == "=" || c->name == "<=>") &&
                   c->children.size() == 2;
      bool done = false;
      if (is_eq && j->join_type != JoinType::kCross) {
        for (int swap = 0; swap < 2 && !done; ++swap) {
          const Expr& x = *c->children[swap];
          const Expr& y = *c->children[1 - swap];
          auto bl = Bind(x, left->output, nullptr);
          auto br = Bind(y, right->output, nullptr);
          if (bl.ok() && br.ok() && !(*bl)->IsConstant() && !(*br)->IsConstant()) {
            // Make sure the same expression did not also resolve on the other side (a
            // name that binds there only as a niladic function, such as `user`, does not
            // count: the column shadows it).
            auto xr = Bind(x, right->output, nullptr);
            auto yl = Bind(y, left->output, nullptr);
            if ((xr.ok() && !(*xr)->IsConstant()) || (yl.ok() && !(*yl)->IsConstant()))
              continue;
            SPATE_RETURN_IF_ERROR(add_key(*bl, *br, c->name == "<=>"));
            done = true;
          }
        }
      }
      if (!done) {
        if (whole->type()->id() != TypeId::kBoolean &&
            whole->type()->id() != TypeId::kNull) {
          return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                               {{"sqlExpr", "\"" + c->DisplayName() + "\""},
                                {"paramIndex", "first"},
                                {"requiredType", "\"BOOLEAN\""},
                                {"inputSql", "\"" + c->DisplayName() + "\""},
                                {"inputType", QuoteType(*whole->type())}});
        }
        residual.push_back(whole);
      }
    }
  }
  if (!residual.empty()) {
    BoundExprPtr cond = residual[0];
    for (size_t i = 1; i < residual.size(); ++i) {
      SPATE_ASSIGN_OR_RETURN(cond,
                             (*registry.FindScalar("and"))({cond, residual[i]}, rc));
    }
    j->condition = cond;
  }
  // Output.
  bool left_only =
      j->join_type == JoinType::kLeftSemi || j->join_type == JoinType::kLeftAnti;
  bool left_nullable =
      j->join_type == JoinType::kRightOuter || j->join_type == JoinType::kFullOuter;
  bool right_nullable =
      j->join_type == JoinType::kLeftOuter || j->join_type == JoinType::kFullOuter;
  for (auto a : left->output) {
    a.nullable |= left_nullable;
    j->output.push_back(a);
  }
  if (!left_only) {
    for (auto a : right->output) {
      a.nullable |= right_nullable;
      j->output.push_back(a);
    }
  }
  if (using_pairs.empty() || left_only) return Finish(j);
  // USING: the join columns once, then the remaining left and right columns.
  std::vector<BoundExprPtr> exprs;
  std::vector<std::string> names;
  std::vector<const Attribute*> pass;
  std::set<int> used_left, used_right;
  for (auto [li, ri] : using_pairs) {
    used_left.insert(li);
    used_right.insert(ri);
    const Attribute& la = j->output[li];
    const Attribute& ra = j->output[nleft + ri];
    BoundExprPtr l = MakeColumnRef(li, la.type, la.nullable, la.Label());
    BoundExprPtr r = MakeColumnRef(nleft + ri, ra.type, ra.nullable, ra.Label());
    if (j->join_type == JoinType::kRightOuter) {
      exprs.push_back(r);
      pass.push_back(&j->output[nleft + ri]);
    } else if (j->join_type == JoinType::kFullOuter) {
      SPATE_ASSIGN_OR_RETURN(auto co, (*registry.FindScalar("coalesce"))({l, r}, rc));
      exprs.push_back(co);
      pass.push_back(nullptr);
    } else {
      exprs.push_back(l);
      pass.push_back(&j->output[li]);
    }
    names.push_back(la.name);
  }
  for (int i = 0; i < static_cast<int>(j->output.size()); ++i) {
    bool is_left = i < nleft;
    if (is_left ? used_left.count(i) : used_right.count(i - nleft)) continue;
    const Attribute& a = j->output[i];
    exprs.push_back(MakeColumnRef(i, a.type, a.nullable, a.Label()));
    names.push_back(a.name);
    pass.push_back(&j->output[i]);
  }
  return Project(j, exprs, names, pass);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanSetOp(const LogicalPlan& p) {
  SPATE_ASSIGN_OR_RETURN(auto left, Plan(*p.children[0]));
  SPATE_ASSIGN_OR_RETURN(auto right, Plan(*p.children[1]));
  const char* op_name = p.set_op == SetOpKind::kUnion       ? "UNION"
                        : p.set_op == SetOpKind::kIntersect ? "INTERSECT"
                                                            : "EXCEPT";
  if (p.by_name) {
    // Reorder (and pad) the right side by the left side's names.
    std::vector<BoundExprPtr> exprs;
    std::vector<std::string> names;
    for (const auto& la : left->output) {
      int found = -1;
      for (size_t i = 0; i < right->output.size(); ++i) {
        if (NameEq(right->output[i].name, la.name)) found = static_cast<int>(i);
      }
      if (found < 0) {
        if (!p.allow_missing_columns) {
          std::string cols;
          for (size_t i = 0; i < right->output.size(); ++i)
            cols += (i ? ", " : "") + QuoteIdentifier({right->output[i].name});
          return Status::Error(
              "NUM_COLUMNS_MISMATCH",
              {{"operator", op_name},
               {"firstNumColumns", std::to_string(left->output.size())},
               {"invalidOrdinalNum", "second"},
               {"invalidNumColumns", std::to_string(right->output.size())}});
        }
        exprs.push_back(MakeLiteral(Value::Null(la.type)));
      } else {
        const Attribute& ra = right->output[found];
        exprs.push_back(MakeColumnRef(found, ra.type, ra.nullable, ra.Label()));
      }
      names.push_back(la.name);
    }
    if (p.allow_missing_columns) {
      // Columns only on the right are appended, with NULLs on the left.
      std::vector<BoundExprPtr> lexprs;
      std::vector<std::string> lnames;
      for (size_t i = 0; i < left->output.size(); ++i) {
        const Attribute& la = left->output[i];
        lexprs.push_back(
            MakeColumnRef(static_cast<int>(i), la.type, la.nullable, la.Label()));
        lnames.push_back(la.name);
      }
      for (size_t i = 0; i < right->output.size(); ++i) {
        const Attribute& ra = right->output[i];
        bool in_left = false;
        for (const auto& la : left->output) in_left |= NameEq(la.name, ra.name);
        if (in_left) continue;
        lexprs.push_back(MakeLiteral(Value::Null(ra.type)));
        lnames.push_back(ra.name);
        exprs.push_back(
            MakeColumnRef(static_cast<int>(i), ra.type, ra.nullable, ra.Label()));
        names.push_back(ra.name);
      }
      SPATE_ASSIGN_OR_RETURN(left, Project(left, lexprs, lnames));
    } else if (right->output.size() != left->output.size()) {
      return Status::Error("NUM_COLUMNS_MISMATCH",
                           {{"operator", op_name},
                            {"firstNumColumns", std::to_string(left->output.size())},
                            {"invalidOrdinalNum", "second"},
                            {"invalidNumColumns", std::to_string(right->output.size())}});
    }
    SPATE_ASSIGN_OR_RETURN(right, Project(right, exprs, names));
  }
  if (left->output.size() != right->output.size()) {
    return Status::Error("NUM_COLUMNS_MISMATCH",
                         {{"operator", op_name},
                          {"firstNumColumns", std::to_string(left->output.size())},
                          {"invalidOrdinalNum", "second"},
                          {"invalidNumColumns", std::to_string(right->output.size())}});
  }
  // Widen column types.
  std::vector<DataTypePtr> types;
  for (size_t i = 0; i < left->output.size(); ++i) {
    DataTypePtr t = CommonType(left->output[i].type, right->output[i].type);
    if (!t) {
      static const char* kOrd[] = {"first", "second",  "third",  "fourth", "fifth",
                                   "sixth", "seventh", "eighth", "ninth",  "tenth"};
      return Status::Error(
          "INCOMPATIBLE_COLUMN_TYPE",
          {{"operator", op_name},
           {"columnOrdinalNumber", i < 10 ? kOrd[i] : std::to_string(i + 1) + "th"},
           {"tableOrdinalNumber", "second"},
           {"dataType1", QuoteType(*right->output[i].type)},
           {"dataType2", QuoteType(*left->output[i].type)},
           {"hint", ""}});
    }
    types.push_back(t);
  }
  auto widen = [&](BoundPlanPtr side) -> Result<BoundPlanPtr> {
    bool needed = false;
    for (size_t i = 0; i < types.size(); ++i)
      needed |= !side->output[i].type->Equals(*types[i]);
    if (!needed) return side;
    std::vector<BoundExprPtr> exprs;
    std::vector<std::string> names;
    for (size_t i = 0; i < types.size(); ++i) {
      const Attribute& a = side->output[i];
      SPATE_ASSIGN_OR_RETURN(
          auto e,
          ImplicitCast(MakeColumnRef(static_cast<int>(i), a.type, a.nullable, a.Label()),
                       types[i]));
      exprs.push_back(e);
      names.push_back(a.name);
    }
    return Project(side, exprs, names);
  };
  SPATE_ASSIGN_OR_RETURN(left, widen(left));
  SPATE_ASSIGN_OR_RETURN(right, widen(right));
  std::vector<Attribute> out;
  for (size_t i = 0; i < types.size(); ++i) {
    Attribute a = left->output[i];
    a.type = types[i];
    a.nullable = left->output[i].nullable || right->output[i].nullable;
    out.push_back(a);
  }
  if (p.set_op == SetOpKind::kUnion) {
    auto u = std::make_shared<BoundPlan>(BoundKind::kUnion);
    u->children = {left, right};
    u->output = out;
    if (p.set_all) return Finish(u);
    return MakeDistinct(u);
  }
  auto s = std::make_shared<BoundPlan>(BoundKind::kSetOp);
  s->set_op = p.set_op;
  s->set_all = p.set_all;
  s->children = {left, right};
  s->output = out;
  return Finish(s);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanSort(const LogicalPlan& p) {
  const LogicalPlan& c = *p.child();
  // ORDER BY directly over a SELECT block (optionally with HAVING) is planned with it.
  if (c.kind == PlanKind::kProject || c.kind == PlanKind::kAggregate)
    return PlanSelect(c, nullptr, &p);
  if (c.kind == PlanKind::kFilter && c.is_having &&
      (c.child()->kind == PlanKind::kProject ||
       c.child()->kind == PlanKind::kAggregate)) {
    return PlanSelect(*c.child(), &c, &p);
  }
  SPATE_ASSIGN_OR_RETURN(auto child, Plan(c));
  std::vector<SortKey> keys;
  for (const auto& s : p.sort) {
    const Expr& se = *s.expr;
    if (se.kind == ExprKind::kLiteral && se.literal.type()->IsIntegral()) {
      int64_t pos = se.literal.i64();
      if (pos < 1 || pos > static_cast<int64_t>(child->output.size())) {
        return Status::Error("ORDER_BY_POS_OUT_OF_RANGE",
                             {{"index", std::to_string(pos)},
                              {"size", std::to_string(child->output.size())}});
      }
      const Attribute& a = child->output[pos - 1];
      keys.push_back(
          SortKey{MakeColumnRef(static_cast<int>(pos - 1), a.type, a.nullable, a.Label()),
                  s.ascending, s.nulls_first});
      continue;
    }
    SPATE_ASSIGN_OR_RETURN(auto k, BindSortKeys({s}, child->output, nullptr));
    keys.push_back(k[0]);
  }
  auto out = std::make_shared<BoundPlan>(BoundKind::kSort);
  out->sort_keys = std::move(keys);
  out->output = child->output;
  out->children.push_back(child);
  return Finish(out);
}

Result<BoundPlanPtr> Analyzer::Impl::Plan(const LogicalPlan& p) {
  SPATE_ASSIGN_OR_RETURN(auto out, PlanNode(p));
  if (p.plan_id < 0) return out;
  auto tagged = std::make_shared<BoundPlan>(*out);
  for (auto& a : tagged->output) a.plan_ids.push_back(p.plan_id);
  return Finish(tagged);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanNode(const LogicalPlan& p) {
  switch (p.kind) {
    case PlanKind::kUnresolvedRelation:
      return PlanRelation(p);
    case PlanKind::kTableFunction:
      return PlanTableFunction(p);
    case PlanKind::kLocalRelation: {
      auto r = std::make_shared<BoundPlan>(BoundKind::kLocal);
      r->batches = p.batches;
      for (const auto& f : p.schema->fields())
        r->output.push_back(MakeAttr(f.name, f.type, f.nullable));
      return Finish(r);
    }
    case PlanKind::kValues: {
      if (p.rows.size() == 1 && p.rows[0].empty()) {
        auto r = std::make_shared<BoundPlan>(BoundKind::kOneRow);
        return Finish(r);
      }
      return PlanValues(p);
    }
    case PlanKind::kSubqueryAlias: {
      SPATE_ASSIGN_OR_RETURN(auto child, Plan(*p.child()));
      if (!p.column_aliases.empty() && p.column_aliases.size() != child->output.size()) {
        return Status::Error("ASSIGNMENT_ARITY_MISMATCH",
                             {{"numTarget", std::to_string(p.column_aliases.size())},
                              {"numExpr", std::to_string(child->output.size())}});
      }
      auto q = std::make_shared<BoundPlan>(*child);
      for (size_t i = 0; i < q->output.size(); ++i) {
        q->output[i].qualifier = p.alias;
        if (i < p.column_aliases.size()) q->output[i].name = p.column_aliases[i];
      }
      return Finish(q);
    }
    case PlanKind::kProject:
    case PlanKind::kAggregate:
      return PlanSelect(p, nullptr, nullptr);
    case PlanKind::kFilter: {
      if (p.is_having && (p.child()->kind == PlanKind::kProject ||
                          p.child()->kind == PlanKind::kAggregate)) {
        return PlanSelect(*p.child(), &p, nullptr);
      }
      if (!p.is_having) {
        SPATE_ASSIGN_OR_RETURN(std::optional<Decorrelated> rewritten,
                               DecorrelateFilter(p));
        if (rewritten) {
          SPATE_ASSIGN_OR_RETURN(BoundPlanPtr b, Plan(*rewritten->plan));
          if (rewritten->keep_tag < 0) return b;
          std::vector<BoundExprPtr> exprs;
          std::vector<std::string> names;
          std::vector<const Attribute*> pass;
          for (size_t i = 0; i < b->output.size(); ++i) {
            const Attribute& a = b->output[i];
            if (std::find(a.plan_ids.begin(), a.plan_ids.end(), rewritten->keep_tag) ==
                a.plan_ids.end()) {
              continue;
            }
            exprs.push_back(
                MakeColumnRef(static_cast<int>(i), a.type, a.nullable, a.Label()));
            names.push_back(a.name);
            pass.push_back(&b->output[i]);
          }
          return Project(b, exprs, names, pass);
        }
      }
      SPATE_ASSIGN_OR_RETURN(auto child, Plan(*p.child()));
      if (ContainsAggregate(*p.condition) || ContainsWindow(*p.condition)) {
        return Status::Error("INVALID_WHERE_CONDITION",
                             {{"condition", "\"" + p.condition->DisplayName() + "\""},
                              {"expressionList", p.condition->DisplayName()}});
      }
      SPATE_ASSIGN_OR_RETURN(auto cond, Bind(*p.condition, child->output, nullptr));
      if (cond->type()->id() != TypeId::kBoolean && cond->type()->id() != TypeId::kNull) {
        return Status::Error("DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN",
                             {{"sqlExpr", "\"" + p.condition->DisplayName() + "\""},
                              {"filter", "\"" + p.condition->DisplayName() + "\""},
                              {"type", QuoteType(*cond->type())}});
      }
      auto f = std::make_shared<BoundPlan>(BoundKind::kFilter);
      f->condition = cond;
      f->output = child->output;
      f->children.push_back(child);
      return Finish(f);
    }
    case PlanKind::kJoin:
      return PlanJoin(p);
    case PlanKind::kSort:
      return PlanSort(p);
    case PlanKind::kLimit:
    case PlanKind::kOffset: {
      SPATE_ASSIGN_OR_RETURN(auto child, Plan(*p.child()));
      const char* what = p.kind == PlanKind::kLimit ? "limit" : "offset";
      SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*p.count, what));
      if (v.is_null()) {
        return Status::Error(
            "INVALID_LIMIT_LIKE_EXPRESSION.IS_NULL",
            {{"name", what}, {"expr", "\"" + p.count->DisplayName() + "\""}});
      }
      if (!v.type()->IsIntegral()) {
        return Status::Error("INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE",
                             {{"name", what},
                              {"expr", "\"" + p.count->DisplayName() + "\""},
                              {"dataType", QuoteType(*v.type())}});
      }
      if (v.i64() < 0) {
        return Status::Error("INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE",
                             {{"name", what},
                              {"expr", "\"" + p.count->DisplayName() + "\""},
                              {"v", std::to_string(v.i64())}});
      }
      // LIMIT over OFFSET (SQL: ... LIMIT n OFFSET m) merges into one node.
      if (p.kind == PlanKind::kLimit && child->kind == BoundKind::kLimit &&
          child->limit < 0) {
        auto l = std::make_shared<BoundPlan>(*child);
        l->limit = v.i64();
        return Finish(l);
      }
      auto l = std::make_shared<BoundPlan>(BoundKind::kLimit);
      if (p.kind == PlanKind::kLimit) {
        l->limit = v.i64();
      } else {
        l->offset = v.i64();
      }
      l->output = child->output;
      l->children.push_back(child);
      return Finish(l);
    }
    case PlanKind::kDistinct: {
      SPATE_ASSIGN_OR_RETURN(auto child, Plan(*p.child()));
      return MakeDistinct(child, DedupKind::kDropDuplicates);
    }
    case PlanKind::kEventTimeWatermark:
      return PlanWatermark(p);
    case PlanKind::kGroupedExtension: {
      // A payload another module plans (transformWithState): the grouping keys are bound
      // over the child and handed to it; the output is the payload's schema.
      if (!p.extension || !p.schema || p.children.size() != 1)
        return Status::Internal(
            "grouped extension node without payload, schema or child");
      SPATE_ASSIGN_OR_RETURN(auto child, Plan(*p.child()));
      std::vector<BoundExprPtr> keys;
      std::vector<Attribute> key_attrs;
      for (const auto& g : p.group_by) {
        SPATE_ASSIGN_OR_RETURN(auto k, Bind(*g, child->output, nullptr));
        key_attrs.push_back(MakeAttr(g->DisplayName(), k->type(), k->nullable()));
        keys.push_back(std::move(k));
      }
      auto ext = p.extension->WithGroupKeys(keys, key_attrs);
      if (!ext) return Status::Internal("the node does not take grouping keys");
      auto n = std::make_shared<BoundPlan>(BoundKind::kExtension);
      n->extension = std::move(ext);
      n->group_exprs = std::move(keys);
      for (const auto& f : p.schema->fields())
        n->output.push_back(MakeAttr(f.name, f.type, f.nullable));
      n->children.push_back(child);
      return Finish(n);
    }
    case PlanKind::kAnalyzed:
      if (!p.bound) return Status::Internal("analyzed plan node without a plan");
      return p.bound;
    case PlanKind::kDeduplicate: {
      SPATE_ASSIGN_OR_RETURN(auto child, Plan(*p.child()));
      const DedupKind dedup =
          p.within_watermark ? DedupKind::kWithinWatermark : DedupKind::kDropDuplicates;
      if (p.exprs.empty()) return MakeDistinct(child, dedup);
      std::vector<int> key_idx;
      for (const auto& e : p.exprs) {
        SPATE_ASSIGN_OR_RETURN(auto b, Bind(*e, child->output, nullptr));
        if (b->column_index() < 0)
          return Status::Internal("dropDuplicates takes column names");
        key_idx.push_back(b->column_index());
      }
      auto a = std::make_shared<BoundPlan>(BoundKind::kAggregate);
      a->dedup = dedup;
      a->children.push_back(child);
      std::vector<int> out_pos(child->output.size(), -1);
      for (int k : key_idx) {
        const Attribute& attr = child->output[k];
        out_pos[k] = static_cast<int>(a->group_exprs.size());
        a->group_exprs.push_back(
            MakeColumnRef(k, attr.type, attr.nullable, attr.Label()));
        a->output.push_back(attr);
      }
      for (size_t i = 0; i < child->output.size(); ++i) {
        if (out_pos[i] >= 0) continue;
        const Attribute& attr = child->output[i];
        auto arg =
            MakeColumnRef(static_cast<int>(i), attr.type, attr.nullable, attr.Label());
        SPATE_ASSIGN_OR_RETURN(auto fn, MakeAggregate("first", {arg}, false, false));
        out_pos[i] = static_cast<int>(a->group_exprs.size() + a->aggregates.size());
        a->aggregates.push_back(
            AggregateCall{fn, {arg}, nullptr, "first(" + attr.Label() + ")"});
      }
      for (size_t i = 0; i < child->output.size(); ++i) {
        if (std::find(key_idx.begin(), key_idx.end(), static_cast<int>(i)) ==
            key_idx.end()) {
          a->output.push_back(child->output[i]);
        }
      }
      std::vector<BoundExprPtr> exprs;
      std::vector<std::string> names;
      std::vector<const Attribute*> pass;
      for (size_t i = 0; i < child->output.size(); ++i) {
        const Attribute& attr = child->output[i];
        exprs.push_back(
            MakeColumnRef(out_pos[i], attr.type, attr.nullable, attr.Label()));
        names.push_back(attr.name);
        pass.push_back(&child->output[i]);
      }
      BoundPlanPtr agg_plan = a;
      return Project(agg_plan, exprs, names, pass);
    }
    case PlanKind::kSetOperation:
      return PlanSetOp(p);
    case PlanKind::kWith: {
      // Each CTE sees only the CTEs defined before it (and itself is not recursive).
      ctes_.push_back({});
      for (const auto& [name, plan] : p.ctes) {
        auto bound = Plan(*plan);
        if (!bound.ok()) {
          ctes_.pop_back();
          return bound.status();
        }
        ctes_.back()[ToLower(name)] = *bound;
      }
      auto r = Plan(*p.child());
      ctes_.pop_back();
      return r;
    }
    case PlanKind::kRepartition: {
      SPATE_ASSIGN_OR_RETURN(auto child, Plan(*p.child()));
      auto r = std::make_shared<BoundPlan>(BoundKind::kRepartition);
      for (const auto& e : p.exprs) {
        SPATE_ASSIGN_OR_RETURN(auto b, Bind(*e, child->output, nullptr));
        r->exprs.push_back(b);
      }
      r->num_partitions =
          p.num_partitions > 0 ? p.num_partitions : conf_.shuffle_partitions();
      r->shuffle = p.shuffle;
      r->output = child->output;
      r->children.push_back(child);
      return Finish(r);
    }
    case PlanKind::kDataSource:
      return PlanDataSource(p);
    case PlanKind::kLateralView:
      return PlanLateralView(p);
  }
  return Status::Internal("unknown plan kind");
}

// A scan of files through a DataSource: its schema becomes the output attributes.
Result<BoundPlanPtr> Analyzer::Impl::PlanDataSource(const LogicalPlan& p) {
  if (!p.source) return Status::Internal("data source plan without a source");
  auto r = std::make_shared<BoundPlan>(BoundKind::kFileScan);
  r->source = p.source;
  for (const auto& f : p.source->schema()->fields())
    r->output.push_back(MakeAttr(f.name, f.type, f.nullable));
  return Finish(r);
}

// ---------------------------------------------------------------------------------------
// Generators (Spark's Generate): one per SELECT clause, at the top of a select item.

Status Analyzer::Impl::PlanGenerator(BoundPlanPtr* child, std::vector<ExprPtr>* items) {
  auto strip = [](const ExprPtr& e) -> const Expr& {
    return e->kind == ExprKind::kAlias ? *e->children[0] : *e;
  };
  std::vector<size_t> found;
  for (size_t i = 0; i < items->size(); ++i) {
    const Expr& e = strip((*items)[i]);
    if (e.kind == ExprKind::kCall && IsGeneratorName(e.name)) found.push_back(i);
  }
  if (found.empty()) return Status::OK();
  if (found.size() > 1) {
    std::string list;
    for (size_t k = 0; k < found.size(); ++k) {
      list += (k ? ", " : "") + ("\"" + strip((*items)[found[k]]).DisplayName() + "\"");
    }
    return Status::Error("UNSUPPORTED_GENERATOR.MULTI_GENERATOR",
                         {{"num", std::to_string(found.size())}, {"generators", list}});
  }
  const ExprPtr item = (*items)[found[0]];
  const Expr& call = strip(item);
  std::vector<BoundExprPtr> args;
  for (const auto& c : call.children) {
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*c, (*child)->output, nullptr));
    args.push_back(std::move(b));
  }
  SPATE_ASSIGN_OR_RETURN(GeneratorSpec spec,
                         ResolveGenerator(call.name, std::move(args)));
  std::vector<std::string> names;
  for (const auto& f : spec.output) names.push_back(f.name);
  if (item->kind == ExprKind::kAlias) {
    std::vector<std::string> aliases = item->name_parts.empty()
                                           ? std::vector<std::string>{item->name}
                                           : item->name_parts;
    if (aliases.size() != names.size()) {
      std::string got;
      for (size_t i = 0; i < aliases.size(); ++i) got += (i ? "," : "") + aliases[i];
      return Status::Error(
          "UDTF_ALIAS_NUMBER_MISMATCH",
          {{"aliasesSize", std::to_string(names.size())}, {"aliasesNames", got}});
    }
    names = aliases;
  }
  auto g = std::make_shared<BoundPlan>(BoundKind::kGenerate);
  g->children.push_back(*child);
  g->output = (*child)->output;
  std::vector<ExprPtr> refs;
  for (size_t i = 0; i < spec.output.size(); ++i) {
    Attribute a = MakeAttr(names[i], spec.output[i].type, spec.output[i].nullable);
    // A private tag so that the select item resolves to exactly this attribute even when
    // the child has a column of the same name.
    int64_t tag = (int64_t{1} << 52) + a.id;
    a.plan_ids.push_back(tag);
    auto ref = std::make_shared<Expr>(ExprKind::kColumn);
    ref->name_parts = {names[i]};
    ref->plan_id = tag;
    refs.push_back(ref);
    g->output.push_back(std::move(a));
  }
  g->generator = std::make_shared<const GeneratorSpec>(std::move(spec));
  items->erase(items->begin() + static_cast<std::ptrdiff_t>(found[0]));
  items->insert(items->begin() + static_cast<std::ptrdiff_t>(found[0]), refs.begin(),
                refs.end());
  *child = g;
  return Status::OK();
}

Result<std::optional<Analyzer::Impl::Decorrelated>> Analyzer::Impl::DecorrelateFilter(
    const LogicalPlan& p) {
  std::vector<ExprPtr> conjuncts = SplitConjuncts(p.condition);
  auto and_all = [](std::vector<ExprPtr> es) -> ExprPtr {
    if (es.empty()) return nullptr;
    ExprPtr out = es[0];
    for (size_t i = 1; i < es.size(); ++i) out = Expr::Call("and", {out, es[i]});
    return out;
  };
  PlanPtr left = p.child();
  std::vector<ExprPtr> rest;
  bool rewrote = false;
  int64_t keep_tag = -1;  // set by the first scalar-subquery rewrite
  // The first scalar subquery inside `e`, or nullptr.
  std::function<const Expr*(const Expr&)> find_scalar =
      [&](const Expr& e) -> const Expr* {
    if (e.kind == ExprKind::kScalarSubquery) return &e;
    for (const auto& ch : e.children) {
      if (!ch) continue;
      if (const Expr* f = find_scalar(*ch)) return f;
    }
    return nullptr;
  };
  std::function<ExprPtr(const ExprPtr&, const Expr*, const ExprPtr&)> replace =
      [&](const ExprPtr& e, const Expr* target, const ExprPtr& with) -> ExprPtr {
    if (e.get() == target) return with;
    auto copy = std::make_shared<Expr>(*e);
    for (auto& ch : copy->children) {
      if (ch) ch = replace(ch, target, with);
    }
    return copy;
  };
  for (const ExprPtr& c : conjuncts) {
    // A correlated scalar subquery over an aggregate with equality correlation:
    //   x > (SELECT avg(v) FROM t WHERE t.k = o.k AND local)
    // becomes a left outer join with (SELECT t.k, avg(v) FROM t WHERE local GROUP BY t.k)
    // on o.k = t.k, and the subquery a reference to its value (Spark's
    // RewriteCorrelatedScalarSubquery; count() is 0, not NULL, for no rows).
    if (const Expr* ss = find_scalar(*c)) {
      const auto* handle = dynamic_cast<const PlanSubquery*>(ss->subquery.get());
      Result<BoundPlanPtr> whole = handle && handle->plan
                                       ? Plan(*handle->plan)
                                       : Result<BoundPlanPtr>(Status::OK());
      if (handle && handle->plan && !whole.ok() &&
          whole.status().error_class().rfind("UNRESOLVED_COLUMN", 0) == 0) {
        const LogicalPlan* agg = handle->plan.get();
        const bool shape =
            (agg->kind == PlanKind::kProject || agg->kind == PlanKind::kAggregate) &&
            agg->group_by.empty() && agg->exprs.size() == 1 &&
            ContainsAggregate(*agg->exprs[0]) &&
            agg->children[0]->kind == PlanKind::kFilter && !agg->children[0]->is_having;
        if (shape) {
          const LogicalPlan& filter = *agg->children[0];
          SPATE_ASSIGN_OR_RETURN(BoundPlanPtr x, Plan(*filter.children[0]));
          std::vector<ExprPtr> local, inner_keys, outer_keys;
          bool ok = true;
          for (const auto& e : SplitConjuncts(filter.condition)) {
            if (Bind(*e, x->output, nullptr).ok()) {
              local.push_back(e);
              continue;
            }
            bool eq =
                e->kind == ExprKind::kCall && e->name == "=" && e->children.size() == 2;
            if (!eq) {
              ok = false;
              break;
            }
            bool l_inner = Bind(*e->children[0], x->output, nullptr).ok();
            bool r_inner = Bind(*e->children[1], x->output, nullptr).ok();
            if (l_inner == r_inner) {
              ok = false;
              break;
            }
            inner_keys.push_back(e->children[l_inner ? 0 : 1]);
            outer_keys.push_back(e->children[l_inner ? 1 : 0]);
          }
          const Expr& item =
              *(agg->exprs[0]->kind == ExprKind::kAlias ? agg->exprs[0]->children[0]
                                                        : agg->exprs[0]);
          const bool plain_count =
              item.kind == ExprKind::kCall && ToLower(item.name) == "count";
          std::function<bool(const Expr&)> has_count = [&](const Expr& e) {
            if (e.kind == ExprKind::kCall && ToLower(e.name) == "count") return true;
            for (const auto& ch : e.children) {
              if (ch && has_count(*ch)) return true;
            }
            return false;
          };
          if (ok && !inner_keys.empty() && (plain_count || !has_count(item))) {
            const int64_t outer_tag = (int64_t{1} << 53) + NewId();
            const int64_t inner_tag = (int64_t{1} << 53) + NewId();
            if (keep_tag < 0) keep_tag = outer_tag;
            auto column = [](const std::string& name, int64_t tag) {
              auto col = std::make_shared<Expr>(ExprKind::kColumn);
              col->name_parts = {name};
              col->plan_id = tag;
              return ExprPtr(col);
            };
            auto alias = [](ExprPtr e, const std::string& name) {
              auto a = std::make_shared<Expr>(ExprKind::kAlias);
              a->children.push_back(std::move(e));
              a->name = name;
              return ExprPtr(a);
            };
            PlanPtr source = filter.children[0];
            if (!local.empty()) {
              auto f = std::make_shared<LogicalPlan>(filter);
              f->condition = and_all(local);
              source = f;
            }
            auto grouped = std::make_shared<LogicalPlan>(PlanKind::kAggregate);
            grouped->children = {source};
            const std::string value = "__spate_sv" + std::to_string(inner_tag);
            std::vector<ExprPtr> on;
            for (size_t k = 0; k < inner_keys.size(); ++k) {
              const std::string key =
                  "__spate_sk" + std::to_string(inner_tag) + "_" + std::to_string(k);
              grouped->group_by.push_back(inner_keys[k]);
              grouped->exprs.push_back(alias(inner_keys[k], key));
              on.push_back(Expr::Call("=", {outer_keys[k], column(key, inner_tag)}));
            }
            grouped->exprs.push_back(alias(agg->exprs[0]->kind == ExprKind::kAlias
                                               ? agg->exprs[0]->children[0]
                                               : agg->exprs[0],
                                           value));
            auto tagged_left = std::make_shared<LogicalPlan>(PlanKind::kWith);
            tagged_left->children = {left};
            tagged_left->plan_id = outer_tag;
            auto tagged_right = std::make_shared<LogicalPlan>(PlanKind::kWith);
            tagged_right->children = {PlanPtr(grouped)};
            tagged_right->plan_id = inner_tag;
            // Outer keys resolve on the outer side only.
            for (auto& e : on) {
              std::function<ExprPtr(const ExprPtr&)> tag_outer =
                  [&](const ExprPtr& x0) -> ExprPtr {
                auto cp = std::make_shared<Expr>(*x0);
                if (cp->kind == ExprKind::kColumn && cp->plan_id < 0) {
                  cp->plan_id = outer_tag;
                  return cp;
                }
                for (auto& ch : cp->children) {
                  if (ch) ch = tag_outer(ch);
                }
                return cp;
              };
              auto eq = std::make_shared<Expr>(*e);
              eq->children[0] = tag_outer(eq->children[0]);
              e = eq;
            }
            auto join = std::make_shared<LogicalPlan>(PlanKind::kJoin);
            join->join_type = JoinType::kLeftOuter;
            join->children = {PlanPtr(tagged_left), PlanPtr(tagged_right)};
            join->condition = and_all(on);
            join->position = ss->position;
            left = join;
            ExprPtr v = column(value, inner_tag);
            if (plain_count) v = Expr::Call("coalesce", {v, Expr::Lit(Value::Long(0))});
            rest.push_back(replace(c, ss, v));
            rewrote = true;
            continue;
          }
        }
      }
    }
    const Expr* sq = c.get();
    bool negate = false;
    if (sq->kind == ExprKind::kCall && sq->name == "not" && sq->children.size() == 1 &&
        sq->children[0]->kind == ExprKind::kExists) {
      sq = sq->children[0].get();
      negate = true;
    }
    const bool exists = sq->kind == ExprKind::kExists;
    const bool in = sq->kind == ExprKind::kInSubquery && !sq->negated;
    const auto* handle =
        (exists || in) ? dynamic_cast<const PlanSubquery*>(sq->subquery.get()) : nullptr;
    if (handle == nullptr || !handle->plan) {
      rest.push_back(c);
      continue;
    }
    // Uncorrelated subqueries are evaluated up front (BindSubquery).
    Result<BoundPlanPtr> whole = Plan(*handle->plan);
    if (whole.ok() || whole.status().error_class().rfind("UNRESOLVED_COLUMN", 0) != 0) {
      rest.push_back(c);
      continue;
    }
    // The supported shape: [SELECT items] FROM x WHERE cond, the correlation in cond.
    const LogicalPlan* node = handle->plan.get();
    std::vector<ExprPtr> items;
    if (node->kind == PlanKind::kProject) {
      items = node->exprs;
      node = node->children[0].get();
    }
    if (node->kind != PlanKind::kFilter || node->is_having || (in && items.size() != 1)) {
      rest.push_back(c);
      continue;
    }
    SPATE_ASSIGN_OR_RETURN(BoundPlanPtr x, Plan(*node->children[0]));
    std::vector<ExprPtr> inner_conj;
    {
      std::vector<ExprPtr> all = SplitConjuncts(node->condition);
      std::vector<ExprPtr> correlated;
      for (const auto& e : all) {
        if (Bind(*e, x->output, nullptr).ok()) {
          inner_conj.push_back(e);
        } else {
          correlated.push_back(e);
        }
      }
      if (correlated.empty()) {
        rest.push_back(c);
        continue;
      }
      // Names in the join condition resolve as they did in their own query: the outer
      // value of IN to the outer side, the subquery's own columns to the inner side
      // (tagged like DataFrame columns, so that `id` does not become ambiguous).
      const int64_t outer_tag = (int64_t{1} << 53) + NewId();
      const int64_t inner_tag = (int64_t{1} << 53) + NewId();
      std::function<ExprPtr(const ExprPtr&, const std::vector<Attribute>*, int64_t)> tag =
          [&](const ExprPtr& e, const std::vector<Attribute>* scope,
              int64_t t) -> ExprPtr {
        if (!e) return e;
        auto copy = std::make_shared<Expr>(*e);
        if (copy->kind == ExprKind::kColumn && copy->plan_id < 0) {
          if (scope == nullptr || ResolveColumn(*copy, *scope).ok()) copy->plan_id = t;
          return copy;
        }
        for (auto& ch : copy->children) ch = tag(ch, scope, t);
        return copy;
      };
      for (auto& e : correlated) e = tag(e, &x->output, inner_tag);
      if (in) {
        const ExprPtr& item =
            items[0]->kind == ExprKind::kAlias ? items[0]->children[0] : items[0];
        correlated.push_back(Expr::Call("=", {tag(sq->children[0], nullptr, outer_tag),
                                              tag(item, nullptr, inner_tag)}));
      }
      PlanPtr right = node->children[0];
      if (!inner_conj.empty()) {
        auto f = std::make_shared<LogicalPlan>(*node);
        f->condition = and_all(inner_conj);
        right = f;
      }
      // Pass-through nodes that carry the tags.
      auto tagged_left = std::make_shared<LogicalPlan>(PlanKind::kWith);
      tagged_left->children = {left};
      tagged_left->plan_id = outer_tag;
      auto tagged_right = std::make_shared<LogicalPlan>(PlanKind::kWith);
      tagged_right->children = {right};
      tagged_right->plan_id = inner_tag;
      left = tagged_left;
      right = tagged_right;
      auto join = std::make_shared<LogicalPlan>(PlanKind::kJoin);
      join->join_type =
          (exists && (sq->negated != negate)) ? JoinType::kLeftAnti : JoinType::kLeftSemi;
      join->children = {left, right};
      join->condition = and_all(correlated);
      join->position = sq->position;
      left = join;
      rewrote = true;
    }
  }
  if (!rewrote) return std::optional<Decorrelated>();
  if (rest.empty()) return std::optional<Decorrelated>(Decorrelated{left, keep_tag});
  auto f = std::make_shared<LogicalPlan>(p);
  f->children = {left};
  f->condition = and_all(rest);
  return std::optional<Decorrelated>(Decorrelated{f, keep_tag});
}

// LATERAL VIEW: the child's rows joined with what the generator makes of each (Spark's
// Generate with the child's columns kept); the generated columns are qualified by the
// view's alias.
Result<BoundPlanPtr> Analyzer::Impl::PlanLateralView(const LogicalPlan& p) {
  SPATE_ASSIGN_OR_RETURN(BoundPlanPtr child, Plan(*p.children[0]));
  ExprPtr item = p.exprs[0];
  const Expr& call = *item;
  if (call.kind != ExprKind::kCall || !IsGeneratorName(call.name)) {
    return Status::Error("UNSUPPORTED_GENERATOR.NOT_GENERATOR",
                         {{"functionName", "`" + call.name + "`"},
                          {"classCanonicalName", "LATERAL VIEW"}})
        .WithPosition(call.position);
  }
  if (!p.column_aliases.empty()) {
    auto alias = std::make_shared<Expr>(ExprKind::kAlias);
    alias->children.push_back(item);
    alias->name_parts = p.column_aliases;
    if (p.column_aliases.size() == 1) alias->name = p.column_aliases[0];
    item = alias;
  }
  std::vector<ExprPtr> items{item};
  const size_t before = child->output.size();
  SPATE_RETURN_IF_ERROR(PlanGenerator(&child, &items));
  auto g = std::make_shared<BoundPlan>(*child);
  for (size_t i = before; i < g->output.size(); ++i) {
    g->output[i].qualifier = p.alias;
    g->output[i].plan_ids.clear();
  }
  return Finish(g);
}

Analyzer::Analyzer(const Catalog& catalog, const SqlConf& conf)
    : impl_(std::make_unique<Impl>(catalog, conf)) {}
Analyzer::~Analyzer() = default;

Result<BoundPlanPtr> Analyzer::Analyze(const PlanPtr& plan) { return impl_->Plan(*plan); }

Result<BoundExprPtr> Analyzer::BindExpression(const ExprPtr& expr,
                                              const std::vector<Attribute>& input) {
  return impl_->Bind(*expr, input, nullptr);
}

}  // namespace spate::sql
