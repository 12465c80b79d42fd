// Copyright spate authors.
#pragma once

// What the streaming engine reads off an analyzed (bound) plan: which subtrees read a
// stream, which of their columns carry an event-time watermark, which operators are
// stateful, and whether the query is one Spark runs (its UnsupportedOperationChecker).
//
// Plans are looked at after analysis, so a stream reached through a temp view, a SQL
// query or a DataFrame expression (`selectExpr("count(*)")`) is seen exactly like one
// built with DataFrame methods. A streaming leaf is a kFileScan whose source is a
// StreamingRelation.
//
// Thread safety: pure functions over immutable plans.

#include <memory>
#include <optional>
#include <vector>

#include "spate/sql/bound_plan.h"
#include "spate/stream/source.h"

namespace spate::stream {

/// The StreamingRelation a kFileScan node reads, or nullptr.
const StreamingRelation* StreamingLeafOf(const sql::BoundPlan& node);
/// Whether the subtree reads a stream.
bool IsStreamingBound(const sql::BoundPlan& plan);
/// The StreamingRelations of the plan, each once, depth first (the order sources are
/// numbered in the checkpoint: sources/0, sources/1, ...).
std::vector<std::shared_ptr<const StreamingRelation>> FindStreamingRelations(
    const sql::BoundPlanPtr& plan);

/// Per output column of `plan`: the watermark delay (ms) of the event-time column it is
/// or derives from (the column itself through projections, filters, unions and joins;
/// the `window` / `session_window` struct over it; a grouping key over it), else -1.
/// As Spark's `spark.watermarkDelayMs` attribute metadata.
std::vector<int64_t> EventTimeMarks(const sql::BoundPlan& plan);

/// Kinds of stateful operators spate runs, with Spark's progress names.
enum class StatefulKind : uint8_t {
  kAggregate,             // "stateStoreSave"
  kDeduplicate,           // "dedupe"
  kDedupWithinWatermark,  // "dedupeWithinWatermark"
  kGlobalLimit,         // "globalLimit": a limit over a stream (not over an aggregation)
  kStreamJoin,          // "symmetricHashJoin": a join of two streams
  kTransformWithState,  // "transformWithStateExec": a StatefulProcessor per key
};
const char* StatefulKindName(StatefulKind k);

/// A streaming Aggregate node (or a Limit over a stream that has no aggregation below it,
/// or a join of two streams) as a stateful operator, or nullopt for any other node.
std::optional<StatefulKind> StatefulKindOf(const sql::BoundPlan& node);

/// The streaming stateful nodes of a plan in operator-id order (pre-order: the topmost
/// gets id 0, as Spark numbers them).
std::vector<const sql::BoundPlan*> StatefulNodes(const sql::BoundPlan& plan);
/// Whether any withWatermark node reads a stream.
bool HasStreamingWatermark(const sql::BoundPlan& plan);

/// A state value watermark (Spark's StreamingJoinHelper.getStateValueWatermark): what a
/// join condition's range conjuncts (`a.ts < b.ts + INTERVAL 1 HOUR`, BETWEEN, ...) say
/// about the oldest event time of one side's rows that a future row of the other side
/// can still match, given the watermark. Each usable conjunct is a bound
///   trunc((wm_terms * watermark_ms * 1000 + const_us) / 1000) - minus   (ms)
/// and the state watermark is the smallest; state rows with event time at or below it
/// can be dropped (and, on an outer side, emitted with NULLs if they never matched).
struct StateValueWatermark {
  struct Bound {
    int wm_terms = 0;     // signed count of the other side's watermarked column
    double const_us = 0;  // the conjunct's constant terms (intervals), µs
    int64_t minus = 0;    // 1 for <= / >= (the bound is inclusive)
  };
  std::vector<Bound> bounds;
  int64_t At(int64_t watermark_ms) const;
};

/// What a join of two streams gives each side's state cleanup (Spark's
/// getStateWatermarkPredicates). Sides: 0 left, 1 right.
struct StreamJoinWatermarks {
  /// The first join key (left keys, then right keys) that is a column carrying an
  /// event-time watermark; -1 if none. With one, both sides drop state by that key.
  int key_ordinal = -1;
  /// Per side: the side's first column carrying a watermark (-1: none): late rows are
  /// filtered by it and value cleanup applies to it.
  int event_column[2] = {-1, -1};
  /// Per side: the state value watermark solved for that side's timestamp columns
  /// against the other side's watermarked column, if the condition gives one.
  std::optional<StateValueWatermark> value[2];
};
StreamJoinWatermarks AnalyzeStreamJoin(const sql::BoundPlan& join);

/// Spark's PropagateWatermarkSimulator: per stateful operator of `plan` (by operator id,
/// the pre-order of StatefulNodes), its input watermark when the global watermark is
/// `origin_ms`. A withWatermark node outputs the global watermark, other nodes the least
/// of their inputs', a stateful operator what it lets through (a join: the least of its
/// sides' state watermarks and its input). An operator with no watermark below it, and
/// every operator while the global watermark is 0, gets 0; values are never negative.
std::vector<int64_t> PropagateWatermarks(const sql::BoundPlan& plan, int64_t origin_ms);

/// Spark's predicate pushdown for a streaming plan (PushPredicateThroughJoin, and
/// PushPredicateThroughNonJoin's Project and EventTimeWatermark cases, with
/// CombineFilters), applied before the stateful operators are planned: a Filter's
/// deterministic conjuncts move through Projects (the projected expressions substituted),
/// below withWatermark when they do not read its event-time column (the watermark then
/// comes from the rows that pass them), and below a join into the side they read (both
/// sides of an inner join, whose conjuncts over both sides join its condition; the left
/// of a left outer / semi / anti join, the right of a right outer one); a join
/// condition's one-side conjuncts go into the side whose unmatched rows it does not keep
/// (both of an inner join, the left of a left semi join, the right of a left outer or
/// anti join, the left of a right outer one). So a stream join keeps only the rows that
/// can match, as Spark's state does. Returns `plan` itself when nothing moves.
sql::BoundPlanPtr PushDownPredicates(const sql::BoundPlanPtr& plan);

/// The conjuncts of a predicate (its AND tree flattened).
void SplitConjuncts(const BoundExprPtr& e, std::vector<BoundExprPtr>* out);
/// The input columns an expression reads.
void CollectColumnRefs(const BoundExpr& e, std::vector<int>* out);

/// Spark's UnsupportedOperationChecker.checkForStreaming for the operators spate has:
/// output-mode rules (Complete without aggregation, Append aggregation without a
/// watermark on a grouping key, Update with session windows), distinct aggregates,
/// chained aggregations, non-time windows (NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING),
/// sorting, limits in Update mode, offsets, sampling, set operations and joins with a
/// stream on the wrong side, stream-stream joins in Complete mode, or outer/semi ones
/// without a watermark in the keys or a range condition,
/// dropDuplicatesWithinWatermark without a watermark.
/// Errors: _LEGACY_ERROR_TEMP_3102 with Spark's text, or the error class Spark uses.
Status CheckStreamingQuery(const sql::BoundPlan& plan, OutputMode mode);

}  // namespace spate::stream
