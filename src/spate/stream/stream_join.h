// Copyright spate authors.
#pragma once

// The stream-stream join (Spark's StreamingSymmetricHashJoinExec), planned by the
// StatefulRuntime for a join node whose two children read streams.
//
// Both inputs are hash-partitioned on their join keys into the operator's partitions;
// each partition keeps, per side, the rows seen so far. Spark names four stores per
// partition (`<side>-keyToNumValues`: join key -> how many rows the key has, and the
// key's event time; `<side>-keyWithIndexToValue`: (key, index) -> the row, its event
// time and whether it ever matched: kept up to date on a side that emits NULL rows, where
// it is read). A new checkpoint keeps each key's rows in one entry of the side's
// keyWithIndexToValue store (kJoinStateFormatPacked: one lookup per key instead of one
// per row plus the count); a checkpoint written in Spark's layout keeps it
// (kJoinStateFormatSpark). Progress, the statestore reader and state-metadata show
// Spark's four stores either way. Per batch and partition:
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

#include <optional>
#include <string_view>
#include <vector>

#include "spate/sql/bound_plan.h"
#include "spate/state/state_store.h"
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

// ---- Join state layouts (docs/state.md "Stream-stream join state"), recorded per
// operator as `joinStateFormat` in state/<op>/_metadata/operator.

/// Spark's logical layout: per side `<side>-keyToNumValues` (key -> int64 count, int64
/// key event time) and `<side>-keyWithIndexToValue` (key ++ int64 index -> int64 row
/// event time, uint8 matched, the row's RowCodec bytes). Checkpoints written before the
/// format was recorded have it.
inline constexpr int kJoinStateFormatSpark = 1;
/// One entry per join key and side, in the side's `<side>-keyWithIndexToValue` store
/// (the keyToNumValues stores stay empty): uint8 flags (bit 0: an int64 key event time
/// follows; bit 1: each row starts with its int64 event time), [the key event time], then
/// per row, in index order, varint (length << 1 | matched) and `length` bytes: [the row's
/// event time] and its RowCodec bytes. The empty key holds the store's row count (int64).
inline constexpr int kJoinStateFormatPacked = 2;

/// One stored row of a packed entry: its index among the key's rows, matched flag, event
/// time (µs; INT64_MAX when the entry has none), and RowCodec bytes (a view of the
/// entry).
struct PackedJoinRow {
  int64_t index = 0;
  bool matched = false;
  int64_t event = 0;
  std::string_view row;
};
/// Parses a packed entry (format 2); false when it is malformed.
bool ParsePackedJoinEntry(std::string_view value, std::optional<int64_t>* key_event,
                          std::vector<PackedJoinRow>* rows);
/// The rows a packed join store holds (its empty key's count; 0 when absent).
int64_t PackedJoinStoreRows(state::StateStore* store);

}  // namespace spate::stream
