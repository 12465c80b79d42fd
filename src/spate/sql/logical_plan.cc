// Copyright spate authors.
#include "spate/sql/logical_plan.h"

#include <cctype>
#include <string>

#include "spate/sql/bound_plan.h"

namespace spate::sql {

namespace {

std::string JoinExprs(const std::vector<ExprPtr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i) out += ", ";
    out += exprs[i] ? exprs[i]->ToString() : "null";
  }
  return out;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  return out;
}

std::string SortText(const SortSpec& s) {
  return (s.expr ? s.expr->ToString() : "null") + (s.ascending ? " ASC" : " DESC") +
         (s.nulls_first ? " NULLS FIRST" : " NULLS LAST");
}

// One line describing `p` (without children).
std::string NodeString(const LogicalPlan& p) {
  switch (p.kind) {
    case PlanKind::kUnresolvedRelation:
      return "'UnresolvedRelation [" + JoinNames(p.table_name) + "], [], false";
    case PlanKind::kTableFunction:
      return "'UnresolvedTableValuedFunction [" + JoinNames(p.table_name) + "], [" +
             JoinExprs(p.exprs) + "], false";
    case PlanKind::kLocalRelation:
      return "LocalRelation [" + (p.schema ? JoinNames(p.schema->names()) : "") + "]";
    case PlanKind::kValues: {
      if (p.rows.size() == 1 && p.rows[0].empty()) return "OneRowRelation";
      std::vector<std::string> names = p.column_aliases;
      size_t width = p.rows.empty() ? 0 : p.rows[0].size();
      for (size_t i = names.size(); i < width; ++i)
        names.push_back("col" + std::to_string(i + 1));
      std::string rows;
      for (size_t i = 0; i < p.rows.size(); ++i) {
        if (i) rows += ", ";
        rows += '[';
        rows += JoinExprs(p.rows[i]);
        rows += ']';
      }
      return "'UnresolvedInlineTable [" + JoinNames(names) + "], [" + rows + "]";
    }
    case PlanKind::kSubqueryAlias:
      if (p.column_aliases.empty()) return "'SubqueryAlias " + p.alias;
      return "'SubqueryAlias " + p.alias + ", [" + JoinNames(p.column_aliases) + "]";
    case PlanKind::kProject:
      return "'Project [" + JoinExprs(p.exprs) + "]";
    case PlanKind::kFilter:
      return std::string(p.is_having ? "'UnresolvedHaving " : "'Filter ") +
             (p.condition ? p.condition->ToString() : "null");
    case PlanKind::kAggregate:
      return "'Aggregate [" + JoinExprs(p.group_by) + "], [" + JoinExprs(p.exprs) + "]";
    case PlanKind::kJoin: {
      std::string type(JoinTypeDisplay(p.join_type));
      if (p.natural) return "'Join NaturalJoin(" + type + ")";
      if (!p.using_columns.empty()) {
        return "'Join UsingJoin(" + type + ", [" + JoinNames(p.using_columns) + "])";
      }
      if (p.condition) return "'Join " + type + ", " + p.condition->ToString();
      return "'Join " + type;
    }
    case PlanKind::kSort: {
      std::string out = "'Sort [";
      for (size_t i = 0; i < p.sort.size(); ++i) {
        if (i) out += ", ";
        out += SortText(p.sort[i]);
      }
      return out + "], " + (p.global_sort ? "true" : "false");
    }
    case PlanKind::kLimit:
      return "'Limit " + (p.count ? p.count->ToString() : "null");
    case PlanKind::kOffset:
      return "'Offset " + (p.count ? p.count->ToString() : "null");
    case PlanKind::kDistinct:
      return "'Distinct";
    case PlanKind::kDeduplicate:
      return std::string(p.within_watermark ? "'DeduplicateWithinWatermark ["
                                            : "'Deduplicate [") +
             JoinExprs(p.exprs) + "]";
    case PlanKind::kSetOperation: {
      std::string name = p.set_op == SetOpKind::kUnion       ? "'Union"
                         : p.set_op == SetOpKind::kIntersect ? "'Intersect"
                                                             : "'Except";
      name += p.set_all ? " All" : " Distinct";
      if (p.by_name)
        name += p.allow_missing_columns ? " ByName(allowMissingColumns)" : " ByName";
      return name;
    }
    case PlanKind::kWith: {
      std::string out = "CTE [";
      for (size_t i = 0; i < p.ctes.size(); ++i) {
        if (i) out += ", ";
        out += p.ctes[i].first;
      }
      return out + "]";
    }
    case PlanKind::kRepartition:
      if (!p.exprs.empty()) {
        return "'RepartitionByExpression [" + JoinExprs(p.exprs) + "], " +
               std::to_string(p.num_partitions);
      }
      return "'Repartition " + std::to_string(p.num_partitions) + ", " +
             (p.shuffle ? "true" : "false");
    case PlanKind::kDataSource:
      return "Relation [" + (p.source ? JoinNames(p.source->schema()->names()) : "") +
             "] parquet";
    case PlanKind::kLateralView:
      return "'Generate " + JoinExprs(p.exprs) + ", " + p.alias;
    case PlanKind::kAnalyzed:
      return "AnalyzedPlan";
    case PlanKind::kGroupedExtension:
      return "'" + (p.extension ? p.extension->Describe() : std::string("Extension")) +
             " [" + JoinExprs(p.group_by) + "]";
    case PlanKind::kEventTimeWatermark:
      return "'EventTimeWatermark " + JoinExprs(p.exprs) + ", " + p.delay;
    case PlanKind::kHint:
      return "'UnresolvedHint " + p.hint_name + ", [" + JoinExprs(p.exprs) + "]";
  }
  return "?";
}

// Appends `p` and its subtree. `prefix` is drawn before every line of the subtree; the
// node's own line additionally gets `connector` ("+- ", ":- " or "").
void AppendTree(const LogicalPlan& p, const std::string& prefix,
                const std::string& connector, const std::string& child_prefix,
                std::string* out) {
  *out += prefix + connector + NodeString(p) + "\n";
  // CTE definitions print as inner children, Spark style (":  +- ...").
  if (p.kind == PlanKind::kWith) {
    for (size_t i = 0; i < p.ctes.size(); ++i) {
      const PlanPtr& def = p.ctes[i].second;
      if (!def) continue;
      bool last = i + 1 == p.ctes.size();
      std::string inner_prefix = child_prefix + ":  ";
      if (def->kind == PlanKind::kSubqueryAlias) {
        AppendTree(*def, inner_prefix, last ? "+- " : ":- ",
                   inner_prefix + (last ? "   " : ":  "), out);
      } else {
        *out += inner_prefix + (last ? "+- " : ":- ") + "'SubqueryAlias " +
                p.ctes[i].first + "\n";
        std::string deeper = inner_prefix + (last ? "   " : ":  ");
        AppendTree(*def, deeper, "+- ", deeper + "   ", out);
      }
    }
  }
  for (size_t i = 0; i < p.children.size(); ++i) {
    if (!p.children[i]) continue;
    bool last = i + 1 == p.children.size();
    AppendTree(*p.children[i], child_prefix, last ? "+- " : ":- ",
               child_prefix + (last ? "   " : ":  "), out);
  }
}

}  // namespace

std::string_view JoinTypeDisplay(JoinType t) {
  switch (t) {
    case JoinType::kInner:
      return "Inner";
    case JoinType::kLeftOuter:
      return "LeftOuter";
    case JoinType::kRightOuter:
      return "RightOuter";
    case JoinType::kFullOuter:
      return "FullOuter";
    case JoinType::kLeftSemi:
      return "LeftSemi";
    case JoinType::kLeftAnti:
      return "LeftAnti";
    case JoinType::kCross:
      return "Cross";
  }
  return "Inner";
}

std::string_view JoinTypeName(JoinType t) {
  switch (t) {
    case JoinType::kInner:
      return "inner";
    case JoinType::kLeftOuter:
      return "left_outer";
    case JoinType::kRightOuter:
      return "right_outer";
    case JoinType::kFullOuter:
      return "full_outer";
    case JoinType::kLeftSemi:
      return "left_semi";
    case JoinType::kLeftAnti:
      return "left_anti";
    case JoinType::kCross:
      return "cross";
  }
  return "inner";
}

std::optional<JoinType> ParseJoinType(std::string_view how) {
  // Spark's JoinType.apply: case-insensitive, underscores ignored.
  std::string s;
  for (char c : how) {
    if (c != '_')
      s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (s == "inner") return JoinType::kInner;
  if (s == "outer" || s == "full" || s == "fullouter") return JoinType::kFullOuter;
  if (s == "leftouter" || s == "left") return JoinType::kLeftOuter;
  if (s == "rightouter" || s == "right") return JoinType::kRightOuter;
  if (s == "leftsemi" || s == "semi") return JoinType::kLeftSemi;
  if (s == "leftanti" || s == "anti") return JoinType::kLeftAnti;
  if (s == "cross") return JoinType::kCross;
  return std::nullopt;
}

std::string LogicalPlan::TreeString() const {
  std::string out;
  AppendTree(*this, "", "", "", &out);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace spate::sql
