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
// keyWithIndexToValue store without the columns its key bytes hold
// (kJoinStateFormatKeyless: one lookup per key instead of one per row plus the count); a
// checkpoint written in Spark's layout (kJoinStateFormatSpark) or in format 2
// (kJoinStateFormatPacked) keeps it. Progress, the statestore reader and state-metadata
// show Spark's four stores either way. Per batch and partition:
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

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "spate/sql/bound_plan.h"
#include "spate/state/row_codec.h"
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
/// Format 2 whose stored rows leave out the side's columns that are plain lossless join
/// keys (a column compared as it is, of a type the key bytes hold exactly: no float or
/// double, nothing nested): they are rebuilt from the entry's key bytes. Which columns
/// is recorded as joinKeyColumns in the operator metadata (StreamJoinKeyColumns).
inline constexpr int kJoinStateFormatKeyless = 3;
/// Whether `format` keeps one entry per key (formats 2 and 3).
inline bool IsPackedJoinFormat(int format) {
  return format == kJoinStateFormatPacked || format == kJoinStateFormatKeyless;
}

/// Per join key field, the column of side `side` (0 left, 1 right) that format 3 leaves
/// out of its stored rows and rebuilds from the key bytes, or -1 (a column only once).
std::vector<int> StreamJoinKeyColumns(const sql::BoundPlan& join, int side);

/// How a side's stored rows relate to its columns: the stored columns' codec and, in
/// format 3, the columns rebuilt from the key bytes.
struct JoinRowLayout {
  SchemaPtr schema;                         // the side's columns
  std::vector<int> from_key;                // per side column: its key field, or -1
  std::vector<int> stored_columns;          // the side columns the stored rows hold
  std::shared_ptr<state::RowCodec> stored;  // codec of the stored rows
  std::shared_ptr<state::RowCodec> key;     // codec of the key bytes (format 3)
  bool rebuilds() const { return key != nullptr; }
  /// The layout of a side with columns `schema`, keys `key_schema`, and per key field
  /// the side column it rebuilds (`key_columns`, -1: none; empty: the full rows are
  /// stored).
  static std::shared_ptr<const JoinRowLayout> Make(SchemaPtr schema,
                                                   const SchemaPtr& key_schema,
                                                   const std::vector<int>& key_columns);
};

/// Decodes stored rows (with their key bytes) into a batch of the side's columns.
class JoinRowsBuilder {
 public:
  explicit JoinRowsBuilder(std::shared_ptr<const JoinRowLayout> layout);
  Status Append(std::string_view key, std::string_view stored);
  int64_t num_rows() const { return rows_.num_rows(); }
  /// The rows appended so far; the builder is empty afterwards.
  Result<BatchPtr> Finish();

 private:
  std::shared_ptr<const JoinRowLayout> layout_;
  state::RowBatchBuilder rows_;
  std::optional<state::RowBatchBuilder> keys_;
};

/// One stored row of a packed entry: its index among the key's rows, matched flag, event
/// time (µs; INT64_MAX when the entry has none), and RowCodec bytes (a view of the
/// entry).
struct PackedJoinRow {
  int64_t index = 0;
  bool matched = false;
  int64_t event = 0;
  std::string_view row;
};
/// Parses a packed entry (formats 2 and 3); false when it is malformed.
bool ParsePackedJoinEntry(std::string_view value, std::optional<int64_t>* key_event,
                          std::vector<PackedJoinRow>* rows);
/// The rows a packed join store holds (its empty key's count; 0 when absent).
int64_t PackedJoinStoreRows(state::StateStore* store);

}  // namespace spate::stream
