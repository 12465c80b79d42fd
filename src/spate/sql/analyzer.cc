// Copyright spate authors.
#include "spate/sql/analyzer.h"

#include "spate/sql/analyzer_internal.h"

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

bool ContainsWindow(const Expr& e) {
  if (e.kind == ExprKind::kWindow) return true;
  for (const auto& c : e.children) {
    if (c && ContainsWindow(*c)) return true;
  }
  return false;
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
      ctes_.emplace_back();
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
    case PlanKind::kHint:
      return PlanHint(p);
  }
  return Status::Internal("unknown plan kind");
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
