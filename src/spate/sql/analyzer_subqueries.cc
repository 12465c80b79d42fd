// Copyright spate authors.
// The analyzer: subqueries (scalar, EXISTS, IN) and the decorrelation of correlated ones
// into joins.

#include "spate/sql/analyzer_internal.h"

namespace spate::sql {

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

}  // namespace spate::sql
