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
};
const char* StatefulKindName(StatefulKind k);

/// A streaming Aggregate node as a stateful operator, or nullopt for any other node.
std::optional<StatefulKind> StatefulKindOf(const sql::BoundPlan& node);

/// The streaming stateful nodes of a plan in operator-id order (pre-order: the topmost
/// gets id 0, as Spark numbers them).
std::vector<const sql::BoundPlan*> StatefulNodes(const sql::BoundPlan& plan);
/// Whether any withWatermark node reads a stream.
bool HasStreamingWatermark(const sql::BoundPlan& plan);

/// Spark's UnsupportedOperationChecker.checkForStreaming for the operators spate has:
/// output-mode rules (Complete without aggregation, Append aggregation without a
/// watermark on a grouping key, Update with session windows), distinct aggregates,
/// chained aggregations, non-time windows (NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING),
/// sorting, limits in Update mode, offsets, sampling, set operations and joins with a
/// stream on the wrong side, dropDuplicatesWithinWatermark without a watermark.
/// Errors: _LEGACY_ERROR_TEMP_3102 with Spark's text, or the error class Spark uses.
Status CheckStreamingQuery(const sql::BoundPlan& plan, OutputMode mode);

}  // namespace spate::stream
