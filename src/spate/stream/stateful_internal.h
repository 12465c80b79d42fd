// Copyright spate authors.
#pragma once

// Internal to the stream module: what the stateful physical operators share (stateful.cc
// and stream_join.cc). StatefulRuntime::Operator holds one stateful operator's state
// stores (per shuffle partition, one or more named stores) and its batch metrics; the
// helpers below are the small pieces every stateful exec uses.
//
// Ownership: operators are owned by their StatefulRuntime. Thread safety: Open() and the
// metric adders may be called from partition threads (each partition opens only its own
// stores); the rest runs on the query thread.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "spate/exec/physical_op.h"
#include "spate/state/state_store.h"
#include "spate/stream/stateful.h"
#include "spate/stream/tws_state_schema.h"

namespace spate::stream {

namespace stateful_internal {

using SteadyClock = std::chrono::steady_clock;

inline int64_t NanosSince(SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now() - t)
      .count();
}

// Micros of a watermark in ms (Spark's millisToMicros).
inline int64_t WatermarkMicros(int64_t ms) { return ms * 1000; }

inline void PutInt64(std::string* out, int64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out->append(b, 8);
}

inline int64_t GetInt64(std::string_view v) {
  int64_t x = 0;
  if (v.size() >= 8) std::memcpy(&x, v.data(), 8);
  return x;
}

// transformWithState's ListState / MapState value (transform_with_state.cc): u32 count,
// then per entry i64 expiry (ms), u32 length, the element's RowCodec bytes (a map entry:
// its user key's, then u32 length + its value's). Calls fn(expiry, entry, map value) per
// entry; a truncated value ends the walk.
template <typename F>
void ForEachTwsEntry(bool map, std::string_view v, F&& fn) {
  auto u32 = [&](size_t pos) {
    uint32_t x = 0;
    if (v.size() >= pos + 4) std::memcpy(&x, v.data() + pos, 4);
    return x;
  };
  const uint32_t n = u32(0);
  size_t pos = 4;
  for (uint32_t i = 0; i < n; ++i) {
    if (v.size() < pos + 12) return;
    const int64_t exp = GetInt64(v.substr(pos));
    const uint32_t len = u32(pos + 8);
    pos += 12;
    if (v.size() < pos + len) return;
    std::string_view e = v.substr(pos, len);
    pos += len;
    std::string_view val;
    if (map) {
      if (v.size() < pos + 4) return;
      const uint32_t vlen = u32(pos);
      pos += 4;
      if (v.size() < pos + vlen) return;
      val = v.substr(pos, vlen);
      pos += vlen;
    }
    fn(exp, e, val);
  }
}

// The event time (µs) of a key column value: a window struct's end, or the timestamp.
// false when NULL.
inline bool EventTimeOf(const Column& c, int64_t row, int64_t* out) {
  if (c.IsNull(row)) return false;
  if (c.type_id() == TypeId::kStruct) {
    const Column& end = *c.child(1);
    if (end.IsNull(row)) return false;
    *out = end.raw_values<int64_t>()[row];
    return true;
  }
  *out = c.raw_values<int64_t>()[row];
  return true;
}

inline std::vector<const Column*> Raw(const std::vector<ColumnPtr>& cols) {
  std::vector<const Column*> out;
  out.reserve(cols.size());
  for (const auto& c : cols) out.push_back(c.get());
  return out;
}

inline Status Drain(exec::BatchStream* in, std::vector<BatchPtr>* out) {
  for (;;) {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, in->Next());
    if (!b) return Status::OK();
    if (b->num_rows() > 0) out->push_back(std::move(b));
  }
}

// A stream that computes its one output batch on the first Next().
class OnceStream final : public exec::BatchStream {
 public:
  explicit OnceStream(std::function<Result<BatchPtr>()> fn) : fn_(std::move(fn)) {}
  Result<BatchPtr> Next() override {
    if (done_) return BatchPtr();
    done_ = true;
    return fn_();
  }

 private:
  std::function<Result<BatchPtr>()> fn_;
  bool done_ = false;
};

/// One session of a session-window aggregation's state value (SessionWindowStateStoreSave
/// in stateful.cc): [start, end) and the RowCodec bytes of its partial aggregate states.
struct StoredSession {
  int64_t start = 0, end = 0;
  std::string states;
};
/// Decodes a session state value: int64 min end, int32 count, then per session int64
/// start, int64 end, uint32 length + the states' bytes. A value that does not match is an
/// error (never a partial list).
Status DecodeSessions(std::string_view v, std::vector<StoredSession>* out);

}  // namespace stateful_internal

// ---- Operator: one stateful operator's stores, across the batches of a run. Store slot
// p * stores_per_partition + s is partition p's store named store_names[s] (one store
// named "default" unless the operator has several, as a stream-stream join's four).

struct StatefulRuntime::Operator {
  int64_t id = 0;
  StatefulKind kind = StatefulKind::kAggregate;
  int num_partitions = 1;
  std::vector<std::string> store_names = {"default"};
  /// Per store name: whether its keys are the operator's state rows in progress
  /// (numRowsTotal); a join counts only its keyWithIndexToValue stores.
  std::vector<bool> store_counts_rows = {true};
  bool has_event_time_key = false;  // eviction by the watermark is possible
  /// This batch's input watermarks of the operator (Spark's per-operator watermark
  /// propagation): rows at or below `late_watermark_ms` are late (the previous batch's);
  /// state at or below `eviction_watermark_ms` is evicted.
  int64_t late_watermark_ms = 0, eviction_watermark_ms = 0;
  bool session = false;  // a session_window aggregation
  /// A stream-stream join's state layout (stream_join.h kJoinStateFormat*; 0 until the
  /// first batch of a run reads the recorded one).
  int join_state_format = 0;
  /// Format 3: per side, per join key field, the side column its stored rows leave out
  /// (stream_join.h StreamJoinKeyColumns); recorded in the operator metadata.
  std::array<std::vector<int>, 2> join_key_columns;
  /// Per store name: whether the operator keeps anything in it (empty: every store).
  /// A store not in use is never opened or committed (the packed join layout leaves the
  /// keyToNumValues stores empty) but still counts as an instance in progress.
  std::vector<bool> store_in_use;
  bool StoreInUse(int slot) const {
    return store_in_use.empty() ||
           store_in_use[static_cast<size_t>(slot % stores_per_partition())];
  }
  std::string name;  // the progress name when not the kind's
  SchemaPtr key_schema, value_schema;
  bool schema_checked = false;
  bool metadata_written = false;  // _metadata/operator, once per run

  StatefulRuntime* runtime = nullptr;
  std::vector<std::unique_ptr<state::StateStoreProvider>> providers;  // per slot
  std::mutex mu;                         // guards `open` and the batch metrics below
  std::vector<state::StateStore*> open;  // per slot
  // Rows in each slot's state as the exec counts them (-1: not reported; then the
  // store's key count). Session windows report sessions, as Spark stores one row each.
  std::vector<int64_t> rows_total;
  int64_t updated = 0, removed = 0, dropped = 0, update_ns = 0, removal_ns = 0;
  int64_t dropped_duplicates = 0;
  /// Processing-time timers: the earliest one registered in any partition (ms).
  int64_t next_timer_ms = std::numeric_limits<int64_t>::max();
  bool processing_time_timers = false;
  /// transformWithState: the variables the processors declared (by name, first wins) and
  /// Spark's names of the modes, for the state schema files (tws_state_schema.h).
  std::vector<TwsVariable> tws_vars;
  std::string tws_time_mode, tws_output_mode;
  bool tws_written = false;  // this run wrote the files
  size_t tws_vars_written = 0;

  void NoteTwsVariables(const std::vector<TwsVariable>& vars) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& v : vars) {
      const bool known =
          std::any_of(tws_vars.begin(), tws_vars.end(),
                      [&](const TwsVariable& t) { return t.name == v.name; });
      if (!known) tws_vars.push_back(v);
    }
  }

  void NoteNextTimer(int64_t ms) {
    std::lock_guard<std::mutex> lock(mu);
    next_timer_ms = std::min(next_timer_ms, ms);
  }

  int stores_per_partition() const { return static_cast<int>(store_names.size()); }
  int num_slots() const { return num_partitions * stores_per_partition(); }

  state::StateStoreId StoreId(int slot) const {
    state::StateStoreId sid;
    sid.root = runtime->root_;
    sid.operator_id = id;
    sid.partition = slot / stores_per_partition();
    sid.store_name = store_names[static_cast<size_t>(slot % stores_per_partition())];
    return sid;
  }

  // Opens partition p's store number s at the batch's version (from a worker thread;
  // each slot has its own provider).
  Result<state::StateStore*> Open(int p, int s = 0) {
    if (p < 0 || p >= num_partitions || s < 0 || s >= stores_per_partition())
      return Status::Internal("state partition out of range");
    return OpenSlot(p * stores_per_partition() + s);
  }
  Result<state::StateStore*> OpenSlot(int slot) {
    auto& provider = providers[static_cast<size_t>(slot)];
    if (!provider) {
      SPATE_ASSIGN_OR_RETURN(provider, state::CreateStateStoreProvider(
                                           StoreId(slot), runtime->conf_, runtime->fs_));
    }
    SPATE_ASSIGN_OR_RETURN(state::StateStore * store,
                           provider->GetStore(runtime->batch_.batch_id));
    std::lock_guard<std::mutex> lock(mu);
    open[static_cast<size_t>(slot)] = store;
    return store;
  }

  void AddMetrics(int64_t up, int64_t rm, int64_t drop, int64_t up_ns, int64_t rm_ns,
                  int64_t dups) {
    std::lock_guard<std::mutex> lock(mu);
    updated += up;
    removed += rm;
    dropped += drop;
    update_ns += up_ns;
    removal_ns += rm_ns;
    dropped_duplicates += dups;
  }

  void SetRowsTotal(const state::StateStore* store, int64_t rows) {
    std::lock_guard<std::mutex> lock(mu);
    for (size_t p = 0; p < open.size(); ++p) {
      if (open[p] == store) rows_total[p] = rows;
    }
  }

  void ResetBatch() {
    open.assign(static_cast<size_t>(num_slots()), nullptr);
    rows_total.assign(static_cast<size_t>(num_slots()), -1);
    updated = removed = dropped = update_ns = removal_ns = dropped_duplicates = 0;
    next_timer_ms = std::numeric_limits<int64_t>::max();
  }
};

}  // namespace spate::stream
