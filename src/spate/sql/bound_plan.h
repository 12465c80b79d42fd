// Copyright spate authors.
#pragma once

// Resolved logical plans: the analyzer's output and the physical planner's input.
// Every node has an `output` list of attributes; expressions are BoundExprs whose column
// references index into the output of the node's child (for joins: left output followed
// by right output).
//
// Ownership: immutable trees shared through BoundPlanPtr. Thread safety: immutable.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spate/columnar/batch.h"
#include "spate/compute/aggregate.h"
#include "spate/compute/bound_expr.h"
#include "spate/sql/logical_plan.h"

namespace spate {
struct GeneratorSpec;  // compute/generators.h
}  // namespace spate

namespace spate::sql {

/// A named column of a plan's output. `id` is unique per analyzer run (Spark's exprId,
/// shown as name#id in EXPLAIN); `qualifier` is the table/alias name it can be referred
/// by.
struct Attribute {
  std::string name;
  DataTypePtr type;
  bool nullable = true;
  int64_t id = 0;
  std::string qualifier;
  /// DataFrame ids whose plans produced this attribute (see LogicalPlan::plan_id).
  std::vector<int64_t> plan_ids;

  std::string Label() const;  // "name#id" (+ "L" suffix for bigint as Spark prints)
  Field ToField() const { return Field{name, type, nullable}; }
};

/// One aggregate call of an Aggregate node: function bound to argument expressions over
/// the Aggregate's child, with an optional FILTER (WHERE ...) predicate over the same
/// input.
struct AggregateCall {
  AggregateFunctionPtr function;
  std::vector<BoundExprPtr> args;
  BoundExprPtr filter;
  std::string text;  // "sum(v#1L)" for EXPLAIN
};

/// One sort key.
struct SortKey {
  BoundExprPtr expr;
  bool ascending = true;
  bool nulls_first = true;
};
/// "k#2L ASC NULLS FIRST, v#3 DESC NULLS LAST", as EXPLAIN prints sort keys.
std::string SortKeysText(const std::vector<SortKey>& keys);

/// Window function kinds evaluated by the Window node.
enum class WindowFunctionKind : uint8_t {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,  // args[0] = literal bucket count
  kLag,    // args = [input, offset literal, default]
  kLead,
  kAggregate,  // aggregate over the frame
  kNthValue,   // args = [input, offset literal (> 0), ignore-nulls boolean literal]; over
               // the frame
};

/// A resolved window frame. Offsets are row counts (ROWS) or values added to the single
/// order key (RANGE); `unbounded` flags override offsets.
struct BoundFrame {
  WindowFrame::Kind kind = WindowFrame::Kind::kRange;
  bool lower_unbounded = true;
  bool upper_unbounded = false;
  /// Offsets relative to the current row: negative = preceding, 0 = current row.
  /// For RANGE frames the value is in the order key's units (ints, or micros for
  /// timestamps/intervals); `*_is_current` marks CURRENT ROW for RANGE peers.
  int64_t lower_offset = 0;
  int64_t upper_offset = 0;
  bool lower_current = false;
  bool upper_current = true;
};

/// One window expression: function + window spec (all expressions over the child).
struct WindowCall {
  WindowFunctionKind kind = WindowFunctionKind::kRowNumber;
  AggregateFunctionPtr aggregate;  // kAggregate
  std::vector<BoundExprPtr> args;  // function arguments
  std::vector<BoundExprPtr> partition_by;
  std::vector<SortKey> order_by;
  BoundFrame frame;
  DataTypePtr type;
  bool nullable = true;  // Spark's: ranking functions and count never NULL
  std::string text;      // for EXPLAIN
};

enum class BoundKind : uint8_t {
  kRange,      // range_start/end/step, num_partitions
  kLocal,      // batches (in-memory rows); output from schema
  kOneRow,     // a single row with no columns (SELECT without FROM)
  kProject,    // exprs over child; output[i] named by exprs[i]
  kFilter,     // condition over child; output = child's
  kAggregate,  // group_exprs + aggregates over child; output = groups then aggregates
  kJoin,       // join_type, left_keys/right_keys (equi-join keys over each side),
               // condition = residual over left++right (may be null); output:
               // left++right, or left only for semi/anti
  kSort,       // sort_keys over child; global
  kLimit,      // limit (>= 0, or -1 = none) after skipping offset rows
  kUnion,      // UNION ALL of children (same arity and types)
  kSetOp,      // INTERSECT/EXCEPT [ALL] of two children (set_op, set_all); rows compared
               // as wholes with NULLs equal
  kWindow,     // windows over child; output = child's ++ one column per window call
  kRepartition,  // num_partitions; partition exprs (hash) or none (round robin /
                 // coalesce)
  kGenerate,   // generator (explode, posexplode, inline ...) over child; output = child's
               // ++ the generated columns (Spark's Generate)
  kFileScan,   // source (a DataSource); output = the source's schema
  kWatermark,  // withWatermark: watermark_column (index into the child's output) and
               // watermark_delay_ms; output = child's. A no-op in batch plans; streaming
               // queries track the column's event times (stream/stateful_planner.h)
  kExtension,  // a node planned by the module that made it (extension), e.g. the
               // streaming engine's stateful operators; output as given
};

/// Kinds of deduplication an Aggregate node stands for (dropDuplicates / distinct): in a
/// batch plan an ordinary aggregation; in a streaming plan Spark's StreamingDeduplicate.
enum class DedupKind : uint8_t { kNone, kDropDuplicates, kWithinWatermark };

/// The payload of a kExtension node. The planner hands it to the physical planning hook
/// (exec::PhysicalExtension); EXPLAIN prints Describe(). Ownership: shared by the plan
/// nodes that hold it (shared_ptr); its creator keeps whatever it refers to alive for the
/// plan's life. Thread safety: immutable, planned from any thread. Failure: planning
/// errors are returned by the hook.
class BoundExtension {
 public:
  virtual ~BoundExtension() = default;
  virtual std::string Describe() const = 0;
  /// A payload made before analysis for a node that groups its child
  /// (PlanKind::kGroupedExtension): the same payload with the grouping keys bound over
  /// the child, or nullptr when the payload does not take keys.
  // By value: an override keeps them.
  virtual std::shared_ptr<const BoundExtension> WithGroupKeys(
      // NOLINTNEXTLINE(performance-unnecessary-value-param)
      std::vector<BoundExprPtr> keys, std::vector<Attribute> key_attributes) const {
    (void)keys;
    (void)key_attributes;
    return nullptr;
  }
};

class BoundPlan;
using BoundPlanPtr = std::shared_ptr<const BoundPlan>;

/// Spark's join strategy hints (JoinStrategyHint): BROADCAST / BROADCASTJOIN / MAPJOIN,
/// SHUFFLE_MERGE / MERGEJOIN / MERGE, SHUFFLE_HASH, SHUFFLE_REPLICATE_NL.
enum class JoinStrategyHint : uint8_t {
  kNone,
  kBroadcast,
  kShuffleMerge,
  kShuffleHash,
  kShuffleReplicateNL,
};
/// Spark's HintInfo text: "broadcast", "merge", "shuffle_hash", "shuffle_replicate_nl".
std::string_view JoinStrategyHintName(JoinStrategyHint h);

class BoundPlan {
 public:
  BoundKind kind;
  std::vector<Attribute> output;
  std::vector<BoundPlanPtr> children;

  // kRange
  int64_t range_start = 0, range_end = 0, range_step = 1;
  int num_partitions = 0;  // kRange splits / kRepartition target (0 = default)
  // kLocal
  std::vector<BatchPtr> batches;
  // kProject / kRepartition (partition exprs)
  std::vector<BoundExprPtr> exprs;
  // kFilter / kJoin residual
  BoundExprPtr condition;
  // kAggregate
  std::vector<BoundExprPtr> group_exprs;
  std::vector<AggregateCall> aggregates;
  /// kAggregate made by dropDuplicates / distinct: the group keys are the dedup keys and
  /// each other column is first(col) (see DedupKind).
  DedupKind dedup = DedupKind::kNone;
  // kJoin
  JoinType join_type = JoinType::kInner;
  std::vector<BoundExprPtr> left_keys;
  std::vector<BoundExprPtr> right_keys;
  /// Per key: true when compared with <=> (NULL matches NULL).
  std::vector<bool> null_safe_keys;
  // kSort
  std::vector<SortKey> sort_keys;
  // kLimit
  int64_t limit = -1;
  int64_t offset = 0;
  // kSetOp
  SetOpKind set_op = SetOpKind::kIntersect;
  bool set_all = false;
  // kWindow
  std::vector<WindowCall> windows;
  // kRepartition
  bool shuffle = true;
  // kGenerate: the generator with its argument bound over the child's output
  std::shared_ptr<const GeneratorSpec> generator;
  // kFileScan: the columns to read (indices into the output; all when !scan_pruned; the
  // others read as NULL) and predicates for skipping data by statistics (hints)
  DataSourcePtr source;
  bool scan_pruned = false;
  std::vector<int> scan_columns;
  std::vector<ScanPredicate> scan_predicates;

  // kWatermark
  int watermark_column = -1;
  int64_t watermark_delay_ms = 0;
  std::string watermark_delay_text;  // as given ("10 minutes")
  // kExtension
  std::shared_ptr<const BoundExtension> extension;
  /// A join strategy hint on this subtree (Spark's ResolvedHint: df.hint("broadcast"),
  /// F.broadcast(df), SQL /*+ BROADCAST(t) */). The nearest join above reads it through
  /// single-child nodes (JoinHintOf); other nodes ignore it.
  JoinStrategyHint join_hint = JoinStrategyHint::kNone;

  explicit BoundPlan(BoundKind k) : kind(k) {}
  const BoundPlanPtr& child() const { return children[0]; }
  SchemaPtr OutputSchema() const;
  /// EXPLAIN's "Analyzed Logical Plan"-style tree.
  std::string TreeString() const;
};

/// The join strategy hint a join with child `p` sees on that side (Spark's
/// EliminateResolvedHint): p's own, else its only child's, and so on down; kNone at a
/// node with several children (a join below consumed its own hints).
JoinStrategyHint JoinHintOf(const BoundPlan& p);

}  // namespace spate::sql
