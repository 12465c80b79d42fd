// Copyright spate authors.
// The analyzer: SELECT blocks (lateral column aliases, aggregates and GROUP BY, HAVING,
// ORDER BY, DISTINCT).

#include "spate/sql/analyzer_internal.h"

namespace spate::sql {

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
    if (args.empty()) arg_text.emplace_back("1");
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

}  // namespace spate::sql
