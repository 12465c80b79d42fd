// Copyright spate authors.
#include "spate/exec/planner.h"

#include <map>

#include "spate/exec/coalesce.h"
#include "spate/exec/exchange.h"
#include "spate/exec/file_scan.h"
#include "spate/exec/filter.h"
#include "spate/exec/generate.h"
#include "spate/exec/hash_aggregate.h"
#include "spate/exec/hash_join.h"
#include "spate/exec/limit.h"
#include "spate/exec/local_scan.h"
#include "spate/exec/nested_loop_join.h"
#include "spate/exec/project.h"
#include "spate/exec/range_scan.h"
#include "spate/exec/scan_pushdown.h"
#include "spate/exec/set_operation.h"
#include "spate/exec/sort.h"
#include "spate/exec/top_n.h"
#include "spate/exec/union.h"
#include "spate/exec/window.h"
#include "spate/sql/hints.h"

namespace spate::exec {

namespace {

using sql::BoundKind;
using sql::BoundPlan;

std::vector<std::string> Labels(const std::vector<sql::Attribute>& attrs, size_t from = 0,
                                size_t count = SIZE_MAX) {
  std::vector<std::string> out;
  for (size_t i = from; i < attrs.size() && out.size() < count; ++i)
    out.push_back(attrs[i].Label());
  return out;
}

std::string LabelList(const std::vector<sql::Attribute>& attrs) {
  std::string s;
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i) s += ", ";
    s += attrs[i].Label();
  }
  return s;
}

/// Column references to all columns of `schema`.
std::vector<BoundExprPtr> AllColumns(const Schema& schema) {
  std::vector<BoundExprPtr> out;
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& f = schema.field(i);
    out.push_back(MakeColumnRef(i, f.type, f.nullable, f.name));
  }
  return out;
}

std::string WindowSpecKey(const sql::WindowCall& call) {
  std::string s;
  for (const auto& e : call.partition_by) s += e->ToString() + ",";
  return s + "|" + sql::SortKeysText(call.order_by);
}

}  // namespace

Planner::Planner(const ExecOptions& options, PlannerOptions planner_options)
    : options_(options), planner_options_(planner_options) {}

namespace {

// Spark's sizeInBytes without statistics: files' sizes, in-memory rows times a row size,
// passed up through row-preserving or row-reducing nodes; unknown (no broadcast) for the
// rest.
std::optional<int64_t> EstimatedBytes(const BoundPlan& p) {
  switch (p.kind) {
    case BoundKind::kFileScan:
      return p.source ? p.source->EstimatedBytes() : std::nullopt;
    case BoundKind::kLocal: {
      int64_t row = 8;
      for (const auto& a : p.output) row += a.type->IsNumeric() ? 8 : 20;
      int64_t rows = 0;
      for (const auto& b : p.batches) rows += b ? b->num_rows() : 0;
      return rows * row;
    }
    case BoundKind::kOneRow:
      return 8;
    case BoundKind::kRange: {
      if (p.range_step == 0) return std::nullopt;
      const double n =
          (static_cast<double>(p.range_end) - static_cast<double>(p.range_start)) /
          static_cast<double>(p.range_step);
      return n <= 0 ? 0 : static_cast<int64_t>(std::min(n, 1e15)) * 8;
    }
    case BoundKind::kProject:
    case BoundKind::kFilter:
    case BoundKind::kSort:
    case BoundKind::kLimit:
    case BoundKind::kRepartition:
    case BoundKind::kWatermark:
    case BoundKind::kAggregate:
      return p.children.size() == 1 && p.children[0] ? EstimatedBytes(*p.children[0])
                                                     : std::nullopt;
    case BoundKind::kUnion: {
      int64_t sum = 0;
      for (const auto& c : p.children) {
        auto b = c ? EstimatedBytes(*c) : std::nullopt;
        if (!b) return std::nullopt;
        sum += *b;
      }
      return sum;
    }
    default:
      return std::nullopt;
  }
}

// Spark's JoinSelection.canBuildBroadcastLeft / canBuildBroadcastRight.
bool CanBroadcastLeft(sql::JoinType t) {
  return t == sql::JoinType::kInner || t == sql::JoinType::kCross ||
         t == sql::JoinType::kRightOuter;
}
bool CanBroadcastRight(sql::JoinType t) {
  return t == sql::JoinType::kInner || t == sql::JoinType::kCross ||
         t == sql::JoinType::kLeftOuter || t == sql::JoinType::kLeftSemi ||
         t == sql::JoinType::kLeftAnti;
}

// Spark's JoinType.sql, lower-cased, as HintErrorLogger's messages print it.
std::string JoinTypeSqlText(sql::JoinType t) {
  switch (t) {
    case sql::JoinType::kInner:
      return "inner";
    case sql::JoinType::kLeftOuter:
      return "left outer";
    case sql::JoinType::kRightOuter:
      return "right outer";
    case sql::JoinType::kFullOuter:
      return "full outer";
    case sql::JoinType::kLeftSemi:
      return "left semi";
    case sql::JoinType::kLeftAnti:
      return "left anti";
    case sql::JoinType::kCross:
      return "cross";
  }
  return "?";
}

// The side an equi-join broadcasts, or nullopt for a shuffled join (Spark's JoinSelection
// for equi-joins): a BROADCAST hint on a side the join type can build wins (both: the
// smaller side, the right one unless the left is known to be smaller); a hint that cannot
// apply is dropped with Spark's warning. A SHUFFLE_MERGE / SHUFFLE_HASH /
// SHUFFLE_REPLICATE_NL hint (spate has one shuffled strategy, its ShuffledHashJoin) keeps
// the join shuffled. Otherwise a side estimated at most `threshold` bytes is broadcast
// (-1: never), the smaller when both are.
std::optional<BuildSide> BroadcastBuildSide(const BoundPlan& join, int64_t threshold) {
  using sql::JoinStrategyHint;
  const sql::JoinType type = join.join_type;
  const JoinStrategyHint left_hint = sql::JoinHintOf(*join.children[0]);
  const JoinStrategyHint right_hint = sql::JoinHintOf(*join.children[1]);
  const std::optional<int64_t> left_bytes = EstimatedBytes(*join.children[0]);
  const std::optional<int64_t> right_bytes = EstimatedBytes(*join.children[1]);
  auto choose = [&](bool left, bool right) -> std::optional<BuildSide> {
    if (left && right) {
      const bool left_smaller =
          left_bytes && (!right_bytes || *left_bytes < *right_bytes);
      return left_smaller ? BuildSide::kLeft : BuildSide::kRight;
    }
    if (left) return BuildSide::kLeft;
    if (right) return BuildSide::kRight;
    return std::nullopt;
  };
  if (left_hint != JoinStrategyHint::kNone || right_hint != JoinStrategyHint::kNone) {
    const bool left_broadcast = left_hint == JoinStrategyHint::kBroadcast;
    const bool right_broadcast = right_hint == JoinStrategyHint::kBroadcast;
    if (auto side = choose(left_broadcast && CanBroadcastLeft(type),
                           right_broadcast && CanBroadcastRight(type)))
      return side;
    const std::string unsupported =
        "Hint (strategy=broadcast) is not supported in the query: ";
    if (left_broadcast && !CanBroadcastLeft(type))
      sql::LogHintWarning(unsupported + "build left for " + JoinTypeSqlText(type) +
                          " join.");
    if (right_broadcast && !CanBroadcastRight(type))
      sql::LogHintWarning(unsupported + "build right for " + JoinTypeSqlText(type) +
                          " join.");
    auto shuffled = [](JoinStrategyHint h) {
      return h != JoinStrategyHint::kNone && h != JoinStrategyHint::kBroadcast;
    };
    if (shuffled(left_hint) || shuffled(right_hint)) return std::nullopt;
  }
  if (threshold < 0) return std::nullopt;
  auto small = [&](const std::optional<int64_t>& bytes) {
    return bytes && *bytes <= threshold;
  };
  return choose(small(left_bytes) && CanBroadcastLeft(type),
                small(right_bytes) && CanBroadcastRight(type));
}

}  // namespace

int Planner::shuffle_partitions() const {
  return options_.shuffle_partitions > 0 ? options_.shuffle_partitions : 1;
}

Result<PhysicalOpPtr> Planner::Plan(const sql::BoundPlanPtr& plan_ptr) const {
  if (auto pushed = PushDownIntoFileScan(plan_ptr)) return Plan(pushed);
  const BoundPlan& node = *plan_ptr;
  std::vector<PhysicalOpPtr> kids;
  if (node.kind != BoundKind::kLimit) {
    for (const auto& c : node.children) {
      SPATE_ASSIGN_OR_RETURN(PhysicalOpPtr k, Plan(c));
      kids.push_back(std::move(k));
    }
  }
  auto need_children = [&](size_t n) -> Status {
    if (kids.size() != n) {
      return Status::Internal("plan node has " + std::to_string(kids.size()) +
                              " children, expected " + std::to_string(n));
    }
    return Status::OK();
  };
  switch (node.kind) {
    case BoundKind::kRange: {
      if (node.range_step == 0) {
        return Status::Invalid("range: the step must not be 0");
      }
      int splits = node.num_partitions > 0 ? node.num_partitions
                                           : std::max(1, options_.parallelism);
      return PhysicalOpPtr(std::make_shared<RangeScan>(node.OutputSchema(),
                                                       node.range_start, node.range_end,
                                                       node.range_step, splits));
    }
    case BoundKind::kLocal: {
      std::string label = node.batches.empty()
                              ? "LocalTableScan <empty>, [" + LabelList(node.output) + "]"
                              : "LocalTableScan [" + LabelList(node.output) + "]";
      return PhysicalOpPtr(std::make_shared<LocalScan>(
          node.OutputSchema(), node.batches, std::max(1, options_.parallelism), label));
    }
    case BoundKind::kFileScan:
      return PlanFileScan(node);
    case BoundKind::kOneRow: {
      SchemaPtr schema = node.OutputSchema();
      std::vector<BatchPtr> one = {Batch::Make(schema, {}, 1)};
      return PhysicalOpPtr(std::make_shared<LocalScan>(schema, std::move(one), 1,
                                                       "Scan OneRowRelation[]"));
    }
    case BoundKind::kProject:
      SPATE_RETURN_IF_ERROR(need_children(1));
      return PhysicalOpPtr(std::make_shared<Project>(node.OutputSchema(), node.exprs,
                                                     Labels(node.output), kids[0]));
    case BoundKind::kFilter:
      SPATE_RETURN_IF_ERROR(need_children(1));
      return PhysicalOpPtr(std::make_shared<Filter>(node.condition, kids[0]));
    case BoundKind::kAggregate:
      SPATE_RETURN_IF_ERROR(need_children(1));
      return PlanAggregate(node, kids[0]);
    case BoundKind::kJoin:
      SPATE_RETURN_IF_ERROR(need_children(2));
      return PlanJoin(node, kids[0], kids[1]);
    case BoundKind::kSort:
      SPATE_RETURN_IF_ERROR(need_children(1));
      return PhysicalOpPtr(std::make_shared<Sort>(node.sort_keys, kids[0]));
    case BoundKind::kLimit:
      return PlanLimit(node);
    case BoundKind::kUnion:
      if (kids.empty()) return Status::Internal("Union without children");
      return PhysicalOpPtr(std::make_shared<Union>(node.OutputSchema(), kids));
    case BoundKind::kSetOp:
      SPATE_RETURN_IF_ERROR(need_children(2));
      return PlanSetOp(node, kids[0], kids[1]);
    case BoundKind::kWindow:
      SPATE_RETURN_IF_ERROR(need_children(1));
      return PlanWindow(node, kids[0]);
    case BoundKind::kGenerate: {
      SPATE_RETURN_IF_ERROR(need_children(1));
      size_t width = node.child()->output.size();
      return PhysicalOpPtr(std::make_shared<Generate>(
          node.OutputSchema(), node.generator, Labels(node.output, 0, width),
          Labels(node.output, width), kids[0]));
    }
    case BoundKind::kRepartition: {
      SPATE_RETURN_IF_ERROR(need_children(1));
      int n = node.num_partitions > 0 ? node.num_partitions : shuffle_partitions();
      if (!node.shuffle) return PhysicalOpPtr(std::make_shared<Coalesce>(n, kids[0]));
      Partitioning p =
          node.exprs.empty() ? Partitioning::kRoundRobin : Partitioning::kHash;
      return PhysicalOpPtr(std::make_shared<Exchange>(p, node.exprs, n, kids[0]));
    }
    case BoundKind::kWatermark:
      SPATE_RETURN_IF_ERROR(need_children(1));
      return kids[0];
    case BoundKind::kExtension: {
      auto* ext = dynamic_cast<const PhysicalExtension*>(node.extension.get());
      if (!ext) return Status::Internal("plan extension without a physical planner");
      return ext->PlanPhysical(std::move(kids), options_);
    }
  }
  return Status::Internal("unknown plan node kind");
}

Result<PhysicalOpPtr> Planner::PlanAggregate(const BoundPlan& node,
                                             const PhysicalOpPtr& child) const {
  const size_t k = node.group_exprs.size();
  if (node.output.size() != k + node.aggregates.size()) {
    return Status::Internal("Aggregate output does not match its keys and calls");
  }
  std::vector<std::string> labels = Labels(node.output, 0, k);
  std::vector<Field> key_fields;
  for (size_t i = 0; i < k; ++i) {
    Field f = node.output[i].ToField();
    f.type = node.group_exprs[i]->type();
    key_fields.push_back(std::move(f));
  }
  bool decomposable = true;
  for (const auto& call : node.aggregates) decomposable &= call.function->decomposable();
  SchemaPtr out_schema = node.OutputSchema();
  if (decomposable && !planner_options_.force_single_phase_aggregate) {
    SchemaPtr partial_schema = HashAggregate::PartialSchema(key_fields, node.aggregates);
    auto partial =
        std::make_shared<HashAggregate>(AggregateMode::kPartial, partial_schema,
                                        node.group_exprs, labels, node.aggregates, child);
    std::vector<BoundExprPtr> key_refs;
    for (size_t i = 0; i < k; ++i) {
      key_refs.push_back(MakeColumnRef(static_cast<int>(i), key_fields[i].type,
                                       key_fields[i].nullable, labels[i]));
    }
    PhysicalOpPtr exchange =
        k > 0 ? std::make_shared<Exchange>(Partitioning::kHash, key_refs,
                                           shuffle_partitions(), partial)
              : std::make_shared<Exchange>(Partitioning::kSingle,
                                           std::vector<BoundExprPtr>{}, 1, partial);
    return PhysicalOpPtr(std::make_shared<HashAggregate>(
        AggregateMode::kFinal, out_schema, key_refs, labels, node.aggregates, exchange));
  }
  PhysicalOpPtr exchange;
  if (k > 0) {
    exchange = std::make_shared<Exchange>(Partitioning::kHash, node.group_exprs,
                                          shuffle_partitions(), child);
  } else if (child->num_partitions() > 1) {
    exchange = std::make_shared<Exchange>(Partitioning::kSingle,
                                          std::vector<BoundExprPtr>{}, 1, child);
  } else {
    exchange = child;
  }
  return PhysicalOpPtr(std::make_shared<HashAggregate>(
      AggregateMode::kComplete, out_schema, node.group_exprs, labels, node.aggregates,
      exchange));
}

Result<PhysicalOpPtr> Planner::PlanJoin(const BoundPlan& node, PhysicalOpPtr left,
                                        PhysicalOpPtr right) const {
  if (node.left_keys.size() != node.right_keys.size()) {
    return Status::Internal("join key lists differ in length");
  }
  SchemaPtr out_schema = node.OutputSchema();
  if (!node.left_keys.empty()) {
    std::vector<bool> null_safe = node.null_safe_keys;
    null_safe.resize(node.left_keys.size(), false);
    std::optional<BuildSide> build;
    if (node.children.size() == 2 && node.children[0] && node.children[1])
      build = BroadcastBuildSide(node, options_.auto_broadcast_threshold);
    if (build) {
      // A small or hinted side is broadcast (Spark's BroadcastHashJoin); the other side
      // is not exchanged.
      PhysicalOpPtr& side = *build == BuildSide::kLeft ? left : right;
      side = std::make_shared<Exchange>(Partitioning::kBroadcast,
                                        std::vector<BoundExprPtr>{}, 1, side);
      sql::JoinType type = node.join_type == sql::JoinType::kCross ? sql::JoinType::kInner
                                                                   : node.join_type;
      return PhysicalOpPtr(std::make_shared<HashJoin>(
          type, node.left_keys, node.right_keys, std::move(null_safe), node.condition,
          out_schema, left, right, /*broadcast_build=*/true, *build));
    }
    int n = shuffle_partitions();
    auto l = std::make_shared<Exchange>(Partitioning::kHash, node.left_keys, n, left);
    auto r = std::make_shared<Exchange>(Partitioning::kHash, node.right_keys, n, right);
    sql::JoinType type =
        node.join_type == sql::JoinType::kCross ? sql::JoinType::kInner : node.join_type;
    return PhysicalOpPtr(std::make_shared<HashJoin>(type, node.left_keys, node.right_keys,
                                                    std::move(null_safe), node.condition,
                                                    out_schema, l, r));
  }
  auto broadcast = std::make_shared<Exchange>(Partitioning::kBroadcast,
                                              std::vector<BoundExprPtr>{}, 1, right);
  bool right_side_outer = node.join_type == sql::JoinType::kRightOuter ||
                          node.join_type == sql::JoinType::kFullOuter;
  if (right_side_outer && left->num_partitions() > 1) {
    left = std::make_shared<Exchange>(Partitioning::kSingle, std::vector<BoundExprPtr>{},
                                      1, left);
  }
  return PhysicalOpPtr(std::make_shared<NestedLoopJoin>(node.join_type, node.condition,
                                                        out_schema, left, broadcast));
}

Result<PhysicalOpPtr> Planner::PlanLimit(const BoundPlan& node) const {
  if (node.children.size() != 1) return Status::Internal("Limit needs one child");
  const sql::BoundPlanPtr& child_plan = node.child();
  if (node.limit >= 0 && child_plan->kind == BoundKind::kSort) {
    SPATE_ASSIGN_OR_RETURN(PhysicalOpPtr input, Plan(child_plan->child()));
    return PhysicalOpPtr(std::make_shared<TopN>(child_plan->sort_keys, node.limit,
                                                node.offset, Labels(node.output), input));
  }
  // ORDER BY with hidden sort columns: Limit -> Project -> Sort becomes Project -> TopN.
  if (node.limit >= 0 && child_plan->kind == BoundKind::kProject &&
      child_plan->children.size() == 1 && child_plan->child()->kind == BoundKind::kSort) {
    const BoundPlan& sort = *child_plan->child();
    SPATE_ASSIGN_OR_RETURN(PhysicalOpPtr input, Plan(sort.child()));
    auto top = std::make_shared<TopN>(sort.sort_keys, node.limit, node.offset,
                                      Labels(sort.output), input);
    return PhysicalOpPtr(std::make_shared<Project>(
        child_plan->OutputSchema(), child_plan->exprs, Labels(child_plan->output), top));
  }
  SPATE_ASSIGN_OR_RETURN(PhysicalOpPtr child, Plan(child_plan));
  if (child->num_partitions() > 1) {
    if (node.limit >= 0) {
      int64_t keep = 0;
      if (__builtin_add_overflow(node.limit, node.offset, &keep)) keep = INT64_MAX;
      child = std::make_shared<LocalLimit>(keep, child);
    }
    child = std::make_shared<Exchange>(Partitioning::kSingle, std::vector<BoundExprPtr>{},
                                       1, child);
  }
  return PhysicalOpPtr(std::make_shared<GlobalLimit>(node.limit, node.offset, child));
}

Result<PhysicalOpPtr> Planner::PlanSetOp(const BoundPlan& node, const PhysicalOpPtr& left,
                                         const PhysicalOpPtr& right) const {
  if (node.set_op == sql::SetOpKind::kUnion) {
    return PhysicalOpPtr(std::make_shared<Union>(
        node.OutputSchema(), std::vector<PhysicalOpPtr>{left, right}));
  }
  int n = shuffle_partitions();
  auto l = std::make_shared<Exchange>(Partitioning::kHash, AllColumns(*left->schema()), n,
                                      left);
  auto r = std::make_shared<Exchange>(Partitioning::kHash, AllColumns(*right->schema()),
                                      n, right);
  return PhysicalOpPtr(std::make_shared<SetOperation>(node.set_op, node.set_all,
                                                      node.OutputSchema(), l, r));
}

Result<PhysicalOpPtr> Planner::PlanWindow(const BoundPlan& node,
                                          const PhysicalOpPtr& child) const {
  const size_t num_child = static_cast<size_t>(child->schema()->num_fields());
  if (node.output.size() != num_child + node.windows.size()) {
    return Status::Internal("Window output does not match its input and calls");
  }
  // Group the calls by window spec, in order of first appearance.
  std::vector<std::string> spec_order;
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < node.windows.size(); ++i) {
    std::string key = WindowSpecKey(node.windows[i]);
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) spec_order.push_back(key);
    it->second.push_back(i);
  }
  if (spec_order.size() <= 1) {
    PhysicalOpPtr input = child;
    const auto& part =
        node.windows.empty() ? std::vector<BoundExprPtr>{} : node.windows[0].partition_by;
    if (!part.empty()) {
      input = std::make_shared<Exchange>(Partitioning::kHash, part, shuffle_partitions(),
                                         child);
    } else if (child->num_partitions() > 1) {
      input = std::make_shared<Exchange>(Partitioning::kSingle,
                                         std::vector<BoundExprPtr>{}, 1, child);
    }
    return PhysicalOpPtr(std::make_shared<Window>(
        node.windows, Labels(node.output, num_child), node.OutputSchema(), input));
  }
  PhysicalOpPtr cur = child;
  std::vector<int> position(node.windows.size());
  for (const auto& key : spec_order) {
    const auto& members = groups[key];
    std::vector<sql::WindowCall> calls;
    std::vector<std::string> labels;
    std::vector<Field> fields = cur->schema()->fields();
    for (size_t i : members) {
      position[i] = static_cast<int>(fields.size());
      calls.push_back(node.windows[i]);
      labels.push_back(node.output[num_child + i].Label());
      fields.push_back(node.output[num_child + i].ToField());
    }
    const auto& part = calls[0].partition_by;
    PhysicalOpPtr input;
    if (!part.empty()) {
      input = std::make_shared<Exchange>(Partitioning::kHash, part, shuffle_partitions(),
                                         cur);
    } else if (cur->num_partitions() > 1) {
      input = std::make_shared<Exchange>(Partitioning::kSingle,
                                         std::vector<BoundExprPtr>{}, 1, cur);
    } else {
      input = cur;
    }
    cur = std::make_shared<Window>(std::move(calls), std::move(labels),
                                   std::make_shared<const Schema>(std::move(fields)),
                                   input);
  }
  std::vector<BoundExprPtr> exprs;
  const Schema& s = *cur->schema();
  for (size_t i = 0; i < num_child; ++i) {
    exprs.push_back(MakeColumnRef(static_cast<int>(i), s.field(static_cast<int>(i)).type,
                                  s.field(static_cast<int>(i)).nullable,
                                  node.output[i].Label()));
  }
  for (size_t i = 0; i < node.windows.size(); ++i) {
    const Field& f = s.field(position[i]);
    exprs.push_back(MakeColumnRef(position[i], f.type, f.nullable,
                                  node.output[num_child + i].Label()));
  }
  return PhysicalOpPtr(std::make_shared<Project>(node.OutputSchema(), std::move(exprs),
                                                 Labels(node.output), cur));
}

// A file scan: reads the pruned columns, with the pushed predicates as hints.
Result<PhysicalOpPtr> Planner::PlanFileScan(const sql::BoundPlan& node) const {
  // The format is the second word of the source's description ("FileScan json ...").
  const std::string desc = node.source->Describe();
  std::string format = "parquet";
  if (desc.rfind("FileScan ", 0) == 0) format = desc.substr(9, desc.find(' ', 9) - 9);
  std::string label = "FileScan " + format + " [" + LabelList(node.output) + "]";
  if (node.scan_pruned) {
    std::vector<sql::Attribute> read;
    for (int c : node.scan_columns) read.push_back(node.output[static_cast<size_t>(c)]);
    label += " ReadSchema: [" + LabelList(read) + "]";
  }
  if (!node.scan_predicates.empty())
    label += ", PushedFilters: " + std::to_string(node.scan_predicates.size());
  label += ", " + desc;
  return PhysicalOpPtr(std::make_shared<FileScan>(node.OutputSchema(), node.source,
                                                  !node.scan_pruned, node.scan_columns,
                                                  node.scan_predicates, label));
}

}  // namespace spate::exec
