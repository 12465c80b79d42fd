// Copyright spate authors.
#include "spate/sql/bound_plan.h"

#include "spate/compute/generators.h"

namespace spate::sql {

std::string Attribute::Label() const {
  std::string s = name + "#" + std::to_string(id);
  if (type && type->id() == TypeId::kLong) s += "L";
  return s;
}

SchemaPtr BoundPlan::OutputSchema() const {
  std::vector<Field> fields;
  fields.reserve(output.size());
  for (const auto& a : output) fields.push_back(a.ToField());
  return std::make_shared<const Schema>(std::move(fields));
}

namespace {

std::string Exprs(const std::vector<BoundExprPtr>& es) {
  std::string s;
  for (size_t i = 0; i < es.size(); ++i) {
    if (i) s += ", ";
    s += es[i]->ToString();
  }
  return s;
}

std::string Attrs(const std::vector<Attribute>& as) {
  std::string s;
  for (size_t i = 0; i < as.size(); ++i) {
    if (i) s += ", ";
    s += as[i].Label();
  }
  return s;
}

std::string NodeLine(const BoundPlan& p) {
  switch (p.kind) {
    case BoundKind::kRange:
      return "Range (" + std::to_string(p.range_start) + ", " +
             std::to_string(p.range_end) + ", step=" + std::to_string(p.range_step) +
             ", splits=" + std::to_string(p.num_partitions) + ")";
    case BoundKind::kLocal:
      return "LocalRelation [" + Attrs(p.output) + "]";
    case BoundKind::kOneRow:
      return "OneRowRelation";
    case BoundKind::kProject: {
      std::string s = "Project [";
      for (size_t i = 0; i < p.exprs.size(); ++i) {
        if (i) s += ", ";
        std::string e = p.exprs[i]->ToString();
        s += e == p.output[i].Label() ? e : e + " AS " + p.output[i].Label();
      }
      return s + "]";
    }
    case BoundKind::kFilter:
      return "Filter " + p.condition->ToString();
    case BoundKind::kAggregate: {
      std::string s = "Aggregate [" + Exprs(p.group_exprs) + "], [";
      for (size_t i = 0; i < p.aggregates.size(); ++i) {
        if (i) s += ", ";
        s += p.aggregates[i].text;
      }
      return s + "]";
    }
    case BoundKind::kJoin: {
      std::string s = "Join " + std::string(JoinTypeName(p.join_type));
      if (!p.left_keys.empty())
        s += ", keys [" + Exprs(p.left_keys) + "] = [" + Exprs(p.right_keys) + "]";
      if (p.condition) s += ", " + p.condition->ToString();
      if (p.children.size() == 2) {
        const char* side[] = {"leftHint", "rightHint"};
        for (int i = 0; i < 2; ++i) {
          JoinStrategyHint h = JoinHintOf(*p.children[i]);
          if (h != JoinStrategyHint::kNone)
            s += ", " + std::string(side[i]) +
                 "=(strategy=" + std::string(JoinStrategyHintName(h)) + ")";
        }
      }
      return s;
    }
    case BoundKind::kSort:
      return "Sort [" + SortKeysText(p.sort_keys) + "], true";
    case BoundKind::kLimit:
      return "Limit " + std::to_string(p.limit) +
             (p.offset ? " Offset " + std::to_string(p.offset) : "");
    case BoundKind::kUnion:
      return "Union";
    case BoundKind::kSetOp:
      return std::string(p.set_op == SetOpKind::kIntersect ? "Intersect" : "Except") +
             (p.set_all ? " All" : "");
    case BoundKind::kWindow: {
      std::string s = "Window [";
      for (size_t i = 0; i < p.windows.size(); ++i) {
        if (i) s += ", ";
        s += p.windows[i].text;
      }
      return s + "]";
    }
    case BoundKind::kRepartition:
      return "Repartition " + std::to_string(p.num_partitions) +
             (p.shuffle ? ", true" : ", false");
    case BoundKind::kGenerate: {
      size_t width = p.children.empty() ? 0 : p.child()->output.size();
      std::vector<Attribute> kept(p.output.begin(),
                                  p.output.begin() + static_cast<std::ptrdiff_t>(width));
      std::vector<Attribute> gen(p.output.begin() + static_cast<std::ptrdiff_t>(width),
                                 p.output.end());
      return "Generate " + p.generator->ToString() + ", [" + Attrs(kept) + "], " +
             (p.generator->outer ? "true" : "false") + ", [" + Attrs(gen) + "]";
    }
    case BoundKind::kFileScan:
      return "Relation [" + Attrs(p.output) + "] parquet";
    case BoundKind::kWatermark:
      return "EventTimeWatermark " +
             p.output[static_cast<size_t>(p.watermark_column)].Label() + ", " +
             p.watermark_delay_text;
    case BoundKind::kExtension:
      return p.extension ? p.extension->Describe() : "Extension";
  }
  return "?";
}

void Render(const BoundPlan& p, const std::string& prefix, bool root, std::string* out) {
  *out += (root ? "" : prefix + "+- ") + NodeLine(p) + "\n";
  std::string child_prefix = root ? "" : prefix + (p.children.empty() ? "   " : "   ");
  for (size_t i = 0; i < p.children.size(); ++i) {
    std::string pre = root ? "" : prefix + "   ";
    if (i + 1 < p.children.size()) {
      *out += pre + ":- " + NodeLine(*p.children[i]) + "\n";
      for (const auto& gc : p.children[i]->children) Render(*gc, pre + ":  ", false, out);
    } else {
      Render(*p.children[i], pre, false, out);
    }
  }
}

}  // namespace

std::string SortKeysText(const std::vector<SortKey>& keys) {
  std::string s;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) s += ", ";
    s += keys[i].expr->ToString() + (keys[i].ascending ? " ASC" : " DESC") +
         (keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  return s;
}

std::string_view JoinStrategyHintName(JoinStrategyHint h) {
  switch (h) {
    case JoinStrategyHint::kNone:
      return "none";
    case JoinStrategyHint::kBroadcast:
      return "broadcast";
    case JoinStrategyHint::kShuffleMerge:
      return "merge";
    case JoinStrategyHint::kShuffleHash:
      return "shuffle_hash";
    case JoinStrategyHint::kShuffleReplicateNL:
      return "shuffle_replicate_nl";
  }
  return "none";
}

JoinStrategyHint JoinHintOf(const BoundPlan& p) {
  const BoundPlan* n = &p;
  for (;;) {
    if (n->join_hint != JoinStrategyHint::kNone) return n->join_hint;
    if (n->children.size() != 1 || !n->children[0]) return JoinStrategyHint::kNone;
    n = n->children[0].get();
  }
}

std::string BoundPlan::TreeString() const {
  std::string out;
  Render(*this, "", true, &out);
  return out;
}

}  // namespace spate::sql
