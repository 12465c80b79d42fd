// Copyright spate authors.
#pragma once

// Test-only helpers for exec tests: hand-built BoundPlans (range, local rows, project,
// filter, aggregate, join, sort, limit, union, set operations, window, repartition),
// bound expressions through the function registry, and result rows as text.
// Not part of the library (header only, included by *_test.cc).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/compute/aggregate.h"
#include "spate/compute/function_registry.h"
#include "spate/exec/executor.h"
#include "spate/sql/bound_plan.h"

namespace spate::exec::test_plans {

using sql::Attribute;
using sql::BoundKind;
using sql::BoundPlan;
using sql::BoundPlanPtr;

template <typename T>
T Must(Result<T> r) {
  if (!r.ok()) {
    ADD_FAILURE() << r.status().ToString();
    std::abort();
  }
  return std::move(r).value();
}

inline int64_t NextId() {
  static std::atomic<int64_t> next{100};
  return next++;
}

inline Attribute Attr(std::string name, DataTypePtr type, bool nullable = true) {
  Attribute a;
  a.name = std::move(name);
  a.type = std::move(type);
  a.nullable = nullable;
  a.id = NextId();
  return a;
}

inline std::shared_ptr<BoundPlan> Node(BoundKind kind,
                                       std::vector<BoundPlanPtr> children = {}) {
  auto p = std::make_shared<BoundPlan>(kind);
  p->children = std::move(children);
  return p;
}

inline BoundPlanPtr RangeOf(int64_t start, int64_t end, int64_t step = 1,
                            int splits = 0) {
  auto p = Node(BoundKind::kRange);
  p->range_start = start;
  p->range_end = end;
  p->range_step = step;
  p->num_partitions = splits;
  Attribute id = Attr("id", DataType::Long(), false);
  id.id = 0;
  p->output = {id};
  return p;
}

/// Local rows split into `num_batches` batches (round robin by row blocks).
inline BoundPlanPtr LocalOf(std::vector<Attribute> attrs,
                            const std::vector<std::vector<Value>>& rows,
                            int num_batches = 1) {
  auto p = Node(BoundKind::kLocal);
  p->output = std::move(attrs);
  SchemaPtr schema = p->OutputSchema();
  size_t n = rows.size();
  for (int b = 0; b < num_batches; ++b) {
    size_t lo = n * b / num_batches, hi = n * (b + 1) / num_batches;
    if (lo == hi) continue;
    std::vector<ColumnPtr> cols;
    for (int c = 0; c < schema->num_fields(); ++c) {
      std::vector<Value> vals;
      for (size_t r = lo; r < hi; ++r) vals.push_back(rows[r][c]);
      cols.push_back(ColumnFromValues(schema->field(c).type, vals));
    }
    p->batches.push_back(
        Batch::Make(schema, std::move(cols), static_cast<int64_t>(hi - lo)));
  }
  return p;
}

inline Value I(int64_t v) { return Value::Long(v); }
inline Value I32(int32_t v) { return Value::Int(v); }
inline Value S(std::string v) { return Value::String(std::move(v)); }
inline Value D(double v) { return Value::Double(v); }
inline Value NullOf(DataTypePtr t) { return Value::Null(std::move(t)); }
inline Value NullL() { return Value::Null(DataType::Long()); }

inline BoundExprPtr Col(const BoundPlanPtr& input, int i) {
  const Attribute& a = input->output[static_cast<size_t>(i)];
  return MakeColumnRef(i, a.type, a.nullable, a.Label());
}
/// Column i of the concatenation left ++ right (join conditions).
inline BoundExprPtr JoinCol(const BoundPlanPtr& left, const BoundPlanPtr& right, int i) {
  int nl = static_cast<int>(left->output.size());
  const Attribute& a = i < nl ? left->output[static_cast<size_t>(i)]
                              : right->output[static_cast<size_t>(i - nl)];
  return MakeColumnRef(i, a.type, a.nullable, a.Label());
}
inline BoundExprPtr Lit(Value v) { return MakeLiteral(std::move(v)); }
inline BoundExprPtr Call(const std::string& name, std::vector<BoundExprPtr> args) {
  const ScalarResolver* r = FunctionRegistry::Global().FindScalar(name);
  if (!r) {
    ADD_FAILURE() << "no function " << name;
    std::abort();
  }
  ResolveContext rc;
  rc.call_text = name;
  return Must((*r)(std::move(args), rc));
}

inline Attribute AttrOf(const std::string& name, const BoundExprPtr& e) {
  return Attr(name, e->type(), e->nullable());
}

inline BoundPlanPtr ProjectOf(
    const BoundPlanPtr& child,
    const std::vector<std::pair<std::string, BoundExprPtr>>& exprs) {
  auto p = Node(BoundKind::kProject, {child});
  for (auto& [name, e] : exprs) {
    if (e->column_index() >= 0 && name.empty()) {
      p->output.push_back(child->output[static_cast<size_t>(e->column_index())]);
    } else {
      p->output.push_back(AttrOf(name, e));
    }
    p->exprs.push_back(e);
  }
  return p;
}

inline BoundPlanPtr FilterOf(const BoundPlanPtr& child, BoundExprPtr cond) {
  auto p = Node(BoundKind::kFilter, {child});
  p->output = child->output;
  p->condition = std::move(cond);
  return p;
}

struct AggSpec {
  std::string out_name;
  std::string function;
  std::vector<BoundExprPtr> args;
  bool distinct = false;
  BoundExprPtr filter = nullptr;
};

inline sql::AggregateCall MakeCall(const AggSpec& s) {
  sql::AggregateCall call;
  call.function = Must(MakeAggregate(s.function, s.args, s.distinct, false));
  call.args = s.args;
  call.filter = s.filter;
  std::vector<std::string> texts;
  for (const auto& a : s.args) texts.push_back(a->ToString());
  call.text = CallText(s.function, texts.empty() ? std::vector<std::string>{"1"} : texts);
  return call;
}

inline BoundPlanPtr AggregateOf(
    const BoundPlanPtr& child,
    const std::vector<std::pair<std::string, BoundExprPtr>>& groups,
    const std::vector<AggSpec>& aggs) {
  auto p = Node(BoundKind::kAggregate, {child});
  for (auto& [name, e] : groups) {
    p->group_exprs.push_back(e);
    if (name.empty() && e->column_index() >= 0) {
      p->output.push_back(child->output[static_cast<size_t>(e->column_index())]);
    } else {
      p->output.push_back(AttrOf(name, e));
    }
  }
  for (auto& s : aggs) {
    sql::AggregateCall call = MakeCall(s);
    p->output.push_back(
        Attr(s.out_name, call.function->result_type(), call.function->nullable()));
    p->aggregates.push_back(std::move(call));
  }
  return p;
}

inline BoundPlanPtr JoinOf(const BoundPlanPtr& left, const BoundPlanPtr& right,
                           sql::JoinType type, std::vector<BoundExprPtr> left_keys,
                           std::vector<BoundExprPtr> right_keys,
                           BoundExprPtr condition = nullptr,
                           std::vector<bool> null_safe = {}) {
  auto p = Node(BoundKind::kJoin, {left, right});
  p->join_type = type;
  p->left_keys = std::move(left_keys);
  p->right_keys = std::move(right_keys);
  p->condition = std::move(condition);
  p->null_safe_keys = std::move(null_safe);
  p->null_safe_keys.resize(p->left_keys.size(), false);
  bool left_nullable =
      type == sql::JoinType::kRightOuter || type == sql::JoinType::kFullOuter;
  bool right_nullable =
      type == sql::JoinType::kLeftOuter || type == sql::JoinType::kFullOuter;
  for (Attribute a : left->output) {
    a.nullable |= left_nullable;
    p->output.push_back(a);
  }
  if (type != sql::JoinType::kLeftSemi && type != sql::JoinType::kLeftAnti) {
    for (Attribute a : right->output) {
      a.nullable |= right_nullable;
      p->output.push_back(a);
    }
  }
  return p;
}

inline sql::SortKey Key(BoundExprPtr e, bool asc = true, bool nulls_first = true) {
  return sql::SortKey{std::move(e), asc, nulls_first};
}

inline BoundPlanPtr SortOf(const BoundPlanPtr& child, std::vector<sql::SortKey> keys) {
  auto p = Node(BoundKind::kSort, {child});
  p->output = child->output;
  p->sort_keys = std::move(keys);
  return p;
}

inline BoundPlanPtr LimitOf(const BoundPlanPtr& child, int64_t limit,
                            int64_t offset = 0) {
  auto p = Node(BoundKind::kLimit, {child});
  p->output = child->output;
  p->limit = limit;
  p->offset = offset;
  return p;
}

inline BoundPlanPtr UnionOf(std::vector<BoundPlanPtr> children) {
  auto p = Node(BoundKind::kUnion, children);
  p->output = children[0]->output;
  return p;
}

inline BoundPlanPtr SetOpOf(const BoundPlanPtr& l, const BoundPlanPtr& r,
                            sql::SetOpKind kind, bool all) {
  auto p = Node(BoundKind::kSetOp, {l, r});
  p->output = l->output;
  p->set_op = kind;
  p->set_all = all;
  return p;
}

inline BoundPlanPtr RepartitionOf(const BoundPlanPtr& child, int n,
                                  std::vector<BoundExprPtr> exprs, bool shuffle = true) {
  auto p = Node(BoundKind::kRepartition, {child});
  p->output = child->output;
  p->num_partitions = n;
  p->exprs = std::move(exprs);
  p->shuffle = shuffle;
  return p;
}

// `calls` by value: the loop fills in each call's text (a write the check misses).
inline BoundPlanPtr WindowOf(const BoundPlanPtr& child,
                             // NOLINTNEXTLINE(performance-unnecessary-value-param)
                             std::vector<std::pair<std::string, sql::WindowCall>> calls) {
  auto p = Node(BoundKind::kWindow, {child});
  p->output = child->output;
  for (auto& [name, call] : calls) {
    p->output.push_back(Attr(name, call.type, true));
    if (call.text.empty()) call.text = name;
    p->windows.push_back(call);
  }
  return p;
}

inline ExecOptions Options(int parallelism = 2, int shuffle_partitions = 3,
                           int64_t batch_size = 8192) {
  ExecOptions o;
  o.parallelism = parallelism;
  o.shuffle_partitions = shuffle_partitions;
  o.batch_size = batch_size;
  return o;
}

/// Rows as "v1,v2,..." in result order (Value::ToString per cell).
inline std::vector<std::string> Rows(const std::vector<BatchPtr>& batches) {
  std::vector<std::string> out;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      std::string s;
      for (int c = 0; c < b->num_columns(); ++c) {
        if (c) s += ",";
        s += b->column(c)->GetValue(i).ToString();
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

inline std::vector<std::string> Sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// Runs `plan` and returns its rows in result order.
inline std::vector<std::string> Exec(const BoundPlanPtr& plan,
                                     const ExecOptions& options = Options()) {
  return Rows(Must(Collect(plan, options)));
}
/// Runs `plan` and returns its rows sorted (for unordered results).
inline std::vector<std::string> ExecSorted(const BoundPlanPtr& plan,
                                           const ExecOptions& options = Options()) {
  return Sorted(Exec(plan, options));
}

inline int64_t NumRows(const std::vector<BatchPtr>& batches) {
  int64_t n = 0;
  for (const auto& b : batches) n += b->num_rows();
  return n;
}

}  // namespace spate::exec::test_plans
