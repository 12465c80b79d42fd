// Copyright spate authors.
#pragma once

// The stream-stream join (Spark's StreamingSymmetricHashJoinExec), planned by the
// StatefulRuntime for a join node whose two children read streams.
//
// Both inputs are hash-partitioned on their join keys into the operator's partitions;
// each partition keeps, per side, the rows seen so far in two state stores named as
// Spark's:
// `<side>-keyToNumValues` (join key -> how many rows the key has, and the key's event
// time) and `<side>-keyWithIndexToValue` ((key, index) -> the row, its event time and
// whether it ever matched: kept up to date on a side that emits NULL rows, where it is
// read). Per batch and partition:
//   1. late rows (event time at or below the previous batch's watermark) are dropped and
//      counted on each watermarked side;
//   2. a row failing the condition's conjuncts over its own side only is never stored: an
//      outer side emits it with NULLs at once;
//   3. new left rows are joined with the stored right rows, then stored; new right rows
//      are joined with the stored left rows, which now include this batch's, then stored
//      unless the state watermark would drop them in this very batch (and they need no
//      outer row); every stored row that matched is marked so. Left semi (as Spark 4.2)
//      takes the right rows first; a left row is emitted once: on arrival if it matches
//      (and is then never stored), else when a later right row matches it (and it then
//      leaves the state);
//   4. state below each side's state watermark (a watermarked join key, or the range
//      condition solved against the watermark, see AnalyzeStreamJoin) is removed; on an
//      outer side the removed rows that never matched are emitted with NULLs.
// Output: inner pairs (and left semi rows) first, then outer NULL rows.
//
// Ownership: the extension refers to its StatefulRuntime's operator, which outlives the
// batch plan. Thread safety: partitions run on the thread pool, each on its own stores.
// Failure: store errors come back from execution (the runtime then aborts the batch).

#include "spate/sql/bound_plan.h"
#include "spate/stream/stateful.h"

namespace spate::stream {

/// The batch plan node (kExtension with children `left`, `right`) for the streaming join
/// `join`, as stateful operator `op` of the batch `batch`.
Result<sql::BoundPlanPtr> PlanStreamJoin(const sql::BoundPlan& join,
                                         StatefulRuntime::Operator* op,
                                         const StatefulBatch* batch,
                                         sql::BoundPlanPtr left, sql::BoundPlanPtr right);

/// The key and value schemas a join operator records for its state (checked on restart).
void StreamJoinStateSchemas(const sql::BoundPlan& join, SchemaPtr* key_schema,
                            SchemaPtr* value_schema);

/// Spark's state store names of a join, in store-slot order.
const std::vector<std::string>& StreamJoinStoreNames();

}  // namespace spate::stream
