// Copyright spate authors.
#include "spate/exec/scan_pushdown.h"

#include <set>

#include "spate/compute/generators.h"
#include "spate/exec/planner.h"

namespace spate::exec {

namespace {

using sql::BoundKind;
using sql::BoundPlan;

void CollectRefs(const BoundExprPtr& e, std::set<int>* out) { CollectColumnRefs(e, out); }

void SplitConjuncts(const BoundExprPtr& e, std::vector<BoundExprPtr>* out) {
  if (e->children().size() == 2 &&
      e->ToString() == "(" + e->children()[0]->ToString() + " AND " +
                           e->children()[1]->ToString() + ")") {
    SplitConjuncts(e->children()[0], out);
    SplitConjuncts(e->children()[1], out);
    return;
  }
  out->push_back(e);
}

// `col op lit`, `lit op col`, `col IS [NOT] NULL` over the scan's output.
bool ToPredicate(const BoundExprPtr& e, const Schema& schema, ScanPredicate* p) {
  using Op = ScanPredicate::Op;
  const auto& ch = e->children();
  std::string text = e->ToString();
  if (ch.size() == 1 && ch[0]->column_index() >= 0) {
    std::string c = ch[0]->ToString();
    if (text == "(" + c + " IS NULL)") {
      *p = {ch[0]->column_index(), Op::kIsNull, Value()};
      return true;
    }
    if (text == "(" + c + " IS NOT NULL)") {
      *p = {ch[0]->column_index(), Op::kIsNotNull, Value()};
      return true;
    }
    return false;
  }
  if (ch.size() != 2) return false;
  bool col_left = ch[0]->column_index() >= 0 && ch[1]->literal_value();
  bool col_right = ch[1]->column_index() >= 0 && ch[0]->literal_value();
  if (!col_left && !col_right) return false;
  const BoundExprPtr& col = col_left ? ch[0] : ch[1];
  const Value& lit = *(col_left ? ch[1] : ch[0])->literal_value();
  int idx = col->column_index();
  if (idx >= schema.num_fields() || lit.is_null() ||
      !lit.type()->SameType(*schema.field(idx).type))
    return false;
  static const std::pair<const char*, Op> kOps[] = {
      {"=", Op::kEq}, {"<", Op::kLt}, {"<=", Op::kLe}, {">", Op::kGt}, {">=", Op::kGe}};
  for (const auto& [sym, op] : kOps) {
    if (text == "(" + ch[0]->ToString() + " " + sym + " " + ch[1]->ToString() + ")") {
      Op o = op;
      if (col_right) {  // lit < col  <=>  col > lit
        o = op == Op::kLt   ? Op::kGt
            : op == Op::kLe ? Op::kGe
            : op == Op::kGt ? Op::kLt
            : op == Op::kGe ? Op::kLe
                            : op;
      }
      *p = {idx, o, lit};
      return true;
    }
  }
  return false;
}

/// `p` rewritten for a consumer reading `needed` of its output (nullptr: all); `parent`
/// is the consumer's kind (a scan right under a Project, Aggregate or Filter is left to
/// PushDownIntoFileScan).
sql::BoundPlanPtr Prune(const sql::BoundPlanPtr& p, const std::set<int>* needed,
                        BoundKind parent) {
  const BoundPlan& n = *p;
  auto with_children = [&](std::vector<sql::BoundPlanPtr> kids) {
    bool same = true;
    for (size_t i = 0; i < kids.size(); ++i) same &= kids[i] == n.children[i];
    if (same) return p;
    auto copy = std::make_shared<BoundPlan>(n);
    copy->children = std::move(kids);
    return sql::BoundPlanPtr(copy);
  };
  auto one_child = [&](const std::set<int>* child_needed) {
    return with_children({Prune(n.children[0], child_needed, n.kind)});
  };
  auto plus = [&](std::set<int> extra) {
    if (needed) extra.insert(needed->begin(), needed->end());
    return extra;
  };
  switch (n.kind) {
    case BoundKind::kFileScan: {
      if (!needed || n.scan_pruned || parent == BoundKind::kProject ||
          parent == BoundKind::kAggregate || parent == BoundKind::kFilter ||
          needed->size() >= n.output.size())
        return p;
      auto copy = std::make_shared<BoundPlan>(n);
      copy->scan_pruned = true;
      copy->scan_columns.assign(needed->begin(), needed->end());
      return sql::BoundPlanPtr(copy);
    }
    case BoundKind::kProject: {
      if (n.children.size() != 1) break;
      std::set<int> child;
      std::vector<BoundExprPtr> exprs = n.exprs;
      bool changed = false;
      for (size_t i = 0; i < exprs.size(); ++i) {
        if (!needed || needed->count(static_cast<int>(i))) {
          CollectRefs(exprs[i], &child);
        } else if (!exprs[i]->literal_value()) {
          exprs[i] = MakeLiteral(Value::Null(exprs[i]->type()));
          changed = true;
        }
      }
      auto kid = Prune(n.children[0], &child, n.kind);
      if (!changed && kid == n.children[0]) return p;
      auto copy = std::make_shared<BoundPlan>(n);
      copy->exprs = std::move(exprs);
      copy->children = {kid};
      return sql::BoundPlanPtr(copy);
    }
    case BoundKind::kFilter: {
      if (n.children.size() != 1 || !needed) break;
      std::set<int> child = plus({});
      CollectRefs(n.condition, &child);
      return one_child(&child);
    }
    case BoundKind::kWatermark: {
      if (n.children.size() != 1 || !needed) break;
      std::set<int> child = plus({n.watermark_column});
      return one_child(&child);
    }
    case BoundKind::kGenerate: {
      if (n.children.size() != 1 || !needed || !n.generator) break;
      const int width = static_cast<int>(n.children[0]->output.size());
      std::set<int> child;
      for (int c : *needed) {
        if (c < width) child.insert(c);
      }
      CollectRefs(n.generator->arg, &child);
      return one_child(&child);
    }
    case BoundKind::kAggregate: {
      if (n.children.size() != 1) break;
      std::set<int> child;
      for (const auto& e : n.group_exprs) CollectRefs(e, &child);
      for (const auto& a : n.aggregates) {
        for (const auto& e : a.args) CollectRefs(e, &child);
        CollectRefs(a.filter, &child);
      }
      return one_child(&child);
    }
    case BoundKind::kExtension: {
      auto* ext = dynamic_cast<const PhysicalExtension*>(n.extension.get());
      if (n.children.size() != 1 || !ext) break;
      auto child = ext->ChildColumnsRead(needed);
      if (!child) break;
      return one_child(&*child);
    }
    default:
      break;
  }
  std::vector<sql::BoundPlanPtr> kids;
  for (const auto& c : n.children) kids.push_back(c ? Prune(c, nullptr, n.kind) : c);
  return with_children(std::move(kids));
}

}  // namespace

void CollectColumnRefs(const BoundExprPtr& e, std::set<int>* out) {
  if (!e) return;
  if (e->column_index() >= 0) out->insert(e->column_index());
  for (const auto& c : e->children()) CollectColumnRefs(c, out);
}

sql::BoundPlanPtr PruneColumns(const sql::BoundPlanPtr& plan) {
  return plan ? Prune(plan, nullptr, BoundKind::kExtension) : plan;
}

sql::BoundPlanPtr PushDownIntoFileScan(const sql::BoundPlanPtr& plan) {
  const BoundPlan& top = *plan;
  if (top.kind != BoundKind::kProject && top.kind != BoundKind::kAggregate &&
      top.kind != BoundKind::kFilter) {
    return nullptr;
  }
  if (top.children.size() != 1) return nullptr;
  const BoundPlan* filter = nullptr;
  sql::BoundPlanPtr scan_ptr;
  if (top.kind == BoundKind::kFilter) {
    filter = &top;
    scan_ptr = top.child();
  } else if (top.child()->kind == BoundKind::kFilter &&
             top.child()->children.size() == 1) {
    filter = top.child().get();
    scan_ptr = filter->child();
  } else {
    scan_ptr = top.child();
  }
  if (scan_ptr->kind != BoundKind::kFileScan || scan_ptr->scan_pruned) return nullptr;
  const SchemaPtr schema_ptr = scan_ptr->OutputSchema();
  const Schema& schema = *schema_ptr;

  auto scan = std::make_shared<BoundPlan>(*scan_ptr);
  scan->scan_pruned = true;
  std::set<int> refs;
  if (top.kind == BoundKind::kFilter) {
    for (int i = 0; i < schema.num_fields(); ++i)
      refs.insert(i);  // the Filter outputs every column
  } else if (top.kind == BoundKind::kProject) {
    for (const auto& e : top.exprs) CollectRefs(e, &refs);
  } else {
    for (const auto& e : top.group_exprs) CollectRefs(e, &refs);
    for (const auto& a : top.aggregates) {
      for (const auto& e : a.args) CollectRefs(e, &refs);
      CollectRefs(a.filter, &refs);
    }
  }
  if (filter) {
    CollectRefs(filter->condition, &refs);
    std::vector<BoundExprPtr> conj;
    SplitConjuncts(filter->condition, &conj);
    for (const auto& c : conj) {
      ScanPredicate p;
      if (ToPredicate(c, schema, &p)) scan->scan_predicates.push_back(std::move(p));
    }
  }
  scan->scan_columns.assign(refs.begin(), refs.end());

  sql::BoundPlanPtr below = scan;
  if (filter) {
    auto f = std::make_shared<BoundPlan>(*filter);
    f->children = {scan};
    below = f;
    if (filter == &top) return below;
  }
  auto t = std::make_shared<BoundPlan>(top);
  t->children = {below};
  return t;
}

}  // namespace spate::exec
