// Copyright spate authors.
// The analyzer: hints (Spark's ResolveHints.ResolveJoinStrategyHints and RemoveAllHints).

#include "spate/sql/analyzer_internal.h"

namespace spate::sql {

namespace {

// "BROADCAST(a, b)" as HintErrorLogger prints a hint.
std::string HintText(const std::string& name,
                     const std::vector<std::vector<std::string>>& relations,
                     const std::vector<ExprPtr>& params) {
  std::string s = name + "(";
  if (!relations.empty()) {
    for (size_t i = 0; i < relations.size(); ++i) {
      if (i) s += ", ";
      for (size_t j = 0; j < relations[i].size(); ++j)
        s += (j ? "." : "") + relations[i][j];
    }
  } else {
    for (size_t i = 0; i < params.size(); ++i)
      s += (i ? ", " : "") + params[i]->DisplayName();
  }
  return s + ")";
}

// Spark's matchedIdentifier: the hint's name parts are the last parts of the name the
// query writes (`t` matches `db.t`; `db.t` does not match `t`).
bool NameMatches(const std::vector<std::string>& in_hint,
                 const std::vector<std::string>& in_query, bool case_sensitive) {
  if (in_hint.empty() || in_hint.size() > in_query.size()) return false;
  const size_t off = in_query.size() - in_hint.size();
  for (size_t i = 0; i < in_hint.size(); ++i) {
    const std::string& q = in_query[off + i];
    if (case_sensitive ? q != in_hint[i] : !EqualsIgnoreCase(q, in_hint[i])) return false;
  }
  return true;
}

// The relation names of a plan node a relation hint can match: a table or view as written
// (`db.t`), or a subquery alias.
std::optional<std::vector<std::string>> HintableName(const LogicalPlan& p) {
  if (p.kind == PlanKind::kUnresolvedRelation) return p.table_name;
  if (p.kind == PlanKind::kSubqueryAlias) return std::vector<std::string>{p.alias};
  return std::nullopt;
}

PlanPtr HintOver(PlanPtr child, const std::string& name) {
  auto h = std::make_shared<LogicalPlan>(PlanKind::kHint);
  h->hint_name = name;
  h->position = child->position;
  h->children.push_back(std::move(child));
  return h;
}

// Wraps the relations of `p` that `relations` name in a parameterless hint `name`
// (Spark's applyJoinStrategyHint): the traversal stops at subquery aliases and at
// subtrees already hinted; `matched` records which names matched. A relation another
// (enclosing, so earlier written) hint already claimed keeps that hint.
PlanPtr ApplyRelationHint(const PlanPtr& p, const std::string& name,
                          JoinStrategyHint strategy,
                          const std::vector<std::vector<std::string>>& relations,
                          bool case_sensitive, std::vector<bool>* matched) {
  auto match = [&](const LogicalPlan& node) {
    bool any = false;
    if (auto ident = HintableName(node)) {
      for (size_t i = 0; i < relations.size(); ++i) {
        if (NameMatches(relations[i], *ident, case_sensitive)) {
          (*matched)[i] = true;
          any = true;
        }
      }
    }
    return any;
  };
  if (p->kind == PlanKind::kHint && p->exprs.empty()) {
    // A subtree hinted already: a relation it claims keeps the earlier hint.
    if (p->children.size() == 1 && match(*p->child())) {
      auto earlier = JoinStrategyHintFromName(p->hint_name);
      if (earlier && *earlier != strategy) {
        LogHintWarning("Hint (strategy=" + std::string(JoinStrategyHintName(strategy)) +
                       ") is overridden by another hint and will not take effect.");
      }
    }
    return p;
  }
  if (match(*p)) return HintOver(p, name);
  if (p->kind == PlanKind::kSubqueryAlias || p->kind == PlanKind::kWith) return p;
  bool changed = false;
  std::vector<PlanPtr> kids;
  for (const auto& c : p->children) {
    kids.push_back(
        c ? ApplyRelationHint(c, name, strategy, relations, case_sensitive, matched) : c);
    changed |= kids.back() != c;
  }
  if (!changed) return p;
  auto copy = std::make_shared<LogicalPlan>(*p);
  copy->children = std::move(kids);
  return copy;
}

}  // namespace

Result<BoundPlanPtr> Analyzer::Impl::PlanHint(const LogicalPlan& p) {
  std::optional<JoinStrategyHint> strategy = JoinStrategyHintFromName(p.hint_name);
  if (!strategy) {
    LogHintWarning("Unrecognized hint: " + HintText(p.hint_name, {}, p.exprs));
    return Plan(*p.child());
  }
  if (p.exprs.empty()) {
    SPATE_ASSIGN_OR_RETURN(BoundPlanPtr child, Plan(*p.child()));
    // Nested hints on one subtree: the outer one wins (EliminateResolvedHint's merge).
    if (child->join_hint != JoinStrategyHint::kNone && child->join_hint != *strategy) {
      LogHintWarning(
          "Hint (strategy=" + std::string(JoinStrategyHintName(child->join_hint)) +
          ") is overridden by another hint and will not take effect.");
    }
    auto hinted = std::make_shared<BoundPlan>(*child);
    hinted->join_hint = *strategy;
    return Finish(hinted);
  }
  // Parameters name relations: identifiers (`t`, `db.t`) or strings ('t').
  std::vector<std::vector<std::string>> relations;
  for (const auto& e : p.exprs) {
    if (e->kind == ExprKind::kColumn) {
      relations.push_back(e->name_parts);
    } else if (e->kind == ExprKind::kLiteral &&
               e->literal.type()->id() == TypeId::kString && !e->literal.is_null()) {
      std::vector<std::string> parts;
      const std::string text = e->literal.str();
      size_t start = 0;
      for (size_t dot; (dot = text.find('.', start)) != std::string::npos;
           start = dot + 1)
        parts.push_back(text.substr(start, dot - start));
      parts.push_back(text.substr(start));
      relations.push_back(std::move(parts));
    } else {
      return Status::Error(
          "_LEGACY_ERROR_TEMP_1046",
          {{"unsupported", "\"" + e->DisplayName() + "\""},
           {"class",
            e->kind == ExprKind::kLiteral
                ? "class org.apache.spark.sql.catalyst.expressions.Literal"
                : "class org.apache.spark.sql.catalyst.expressions.Expression"}});
    }
  }
  std::vector<bool> matched(relations.size(), false);
  PlanPtr rewritten = ApplyRelationHint(p.child(), p.hint_name, *strategy, relations,
                                        case_sensitive_, &matched);
  for (size_t i = 0; i < relations.size(); ++i) {
    if (matched[i]) continue;
    std::string name;
    for (size_t j = 0; j < relations[i].size(); ++j)
      name += (j ? "." : "") + relations[i][j];
    LogHintWarning("Count not find relation '" + name + "' specified in hint '" +
                   HintText(p.hint_name, relations, p.exprs) + "'.");
  }
  return Plan(*rewritten);
}

}  // namespace spate::sql
