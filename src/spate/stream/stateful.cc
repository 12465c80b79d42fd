// Copyright spate authors.
#include "spate/stream/stateful.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include "spate/base/thread_pool.h"
#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/exec/exchange.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/group_table.h"
#include "spate/exec/hash_aggregate.h"
#include "spate/exec/planner.h"
#include "spate/exec/scan_pushdown.h"
#include "spate/state/row_codec.h"
#include "spate/stream/spark_state_schema.h"
#include "spate/stream/state_data_source.h"
#include "spate/stream/stateful_internal.h"
#include "spate/stream/stateful_processor.h"
#include "spate/stream/stream_join.h"
#include "spate/stream/transform_with_state.h"

namespace spate::stream {

using sql::BoundKind;
using sql::BoundPlan;
using sql::BoundPlanPtr;
// NOLINTNEXTLINE(google-build-using-namespace): the stateful operators' shared internals
using namespace stateful_internal;

void EventTimeStats::Merge(const EventTimeStats& o) {
  if (o.count == 0) return;
  if (count == 0) {
    *this = o;
    return;
  }
  max = std::max(max, o.max);
  min = std::min(min, o.min);
  const double total = static_cast<double>(count + o.count);
  avg = avg * (static_cast<double>(count) / total) +
        o.avg * (static_cast<double>(o.count) / total);
  count += o.count;
}

namespace {

using Operator = StatefulRuntime::Operator;

// ---- EventTimeWatermarkExec

class WatermarkExec final : public exec::PhysicalOp {
 public:
  WatermarkExec(int column, std::function<void(const EventTimeStats&)> report,
                const exec::PhysicalOpPtr& child, std::string label)
      : PhysicalOp(child->schema(), {child}),
        column_(column),
        report_(std::move(report)),
        label_(std::move(label)) {}
  int num_partitions() const override { return child().num_partitions(); }
  Result<exec::BatchStreamPtr> Open(int partition,
                                    exec::ExecContext* ctx) const override {
    SPATE_ASSIGN_OR_RETURN(auto in, child().Open(partition, ctx));
    return exec::BatchStreamPtr(std::make_unique<Stream>(this, std::move(in)));
  }
  std::string Describe() const override { return label_; }

 private:
  class Stream final : public exec::BatchStream {
   public:
    Stream(const WatermarkExec* op, exec::BatchStreamPtr in)
        : op_(op), in_(std::move(in)) {}
    ~Stream() override {
      if (!reported_) op_->report_(stats_);
    }
    Result<BatchPtr> Next() override {
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, in_->Next());
      if (!b) {
        if (!reported_) op_->report_(stats_);
        reported_ = true;
        return b;
      }
      const Column& c = *b->column(op_->column_);
      const int64_t* v = c.raw_values<int64_t>();
      const int64_t n = b->num_rows();
      if (c.may_have_nulls()) {
        for (int64_t i = 0; i < n; ++i) {
          if (c.IsValid(i)) stats_.Add(v[i]);
        }
      } else {
        for (int64_t i = 0; i < n; ++i) stats_.Add(v[i]);
      }
      return b;
    }

   private:
    const WatermarkExec* op_;
    exec::BatchStreamPtr in_;
    EventTimeStats stats_;
    bool reported_ = false;
  };

  int column_;
  std::function<void(const EventTimeStats&)> report_;
  std::string label_;
};

// ---- StateStoreSave (streaming aggregation)

struct AggregateSpec {
  size_t num_keys = 0;
  std::vector<DataTypePtr> key_types;
  std::vector<sql::AggregateCall> calls;
  int event_key = -1;  // index of the event-time grouping key
  SchemaPtr out_schema;
  std::shared_ptr<state::RowCodec> key_codec, value_codec;
};

// Merges state columns (every call's state fields, in order) into accumulators.
Status MergeStates(const AggregateSpec& s,
                   std::vector<std::unique_ptr<GroupedAccumulator>>* accs,
                   const std::vector<ColumnPtr>& cols, size_t first, const uint32_t* gids,
                   int64_t n, const EvalContext& eval) {
  size_t col = first;
  for (size_t a = 0; a < accs->size(); ++a) {
    const size_t ns = s.calls[a].function->state_fields().size();
    std::vector<ColumnPtr> states(cols.begin() + static_cast<std::ptrdiff_t>(col),
                                  cols.begin() + static_cast<std::ptrdiff_t>(col + ns));
    col += ns;
    SPATE_RETURN_IF_ERROR((*accs)[a]->Merge(states, gids, n, eval));
  }
  return Status::OK();
}

std::vector<std::unique_ptr<GroupedAccumulator>> NewAccumulators(const AggregateSpec& s,
                                                                 int64_t groups) {
  std::vector<std::unique_ptr<GroupedAccumulator>> accs;
  for (const auto& call : s.calls) {
    accs.push_back(call.function->MakeAccumulator());
    accs.back()->Resize(groups);
  }
  return accs;
}

// The partial states of every call (exactly its declared state fields), one row per
// group.
std::vector<ColumnPtr> StateColumns(
    const AggregateSpec& s, std::vector<std::unique_ptr<GroupedAccumulator>>* accs) {
  std::vector<ColumnPtr> out;
  for (size_t i = 0; i < accs->size(); ++i) {
    auto st = (*accs)[i]->State();
    st.resize(s.calls[i].function->state_fields().size());
    for (auto& c : st) out.push_back(std::move(c));
  }
  return out;
}

// keys ++ final values of `n` rows of key columns and state columns.
Result<BatchPtr> Finalize(const AggregateSpec& s, std::vector<ColumnPtr> keys,
                          const std::vector<ColumnPtr>& states, int64_t n,
                          const EvalContext& eval) {
  auto accs = NewAccumulators(s, n);
  std::vector<uint32_t> ids(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 0u);
  SPATE_RETURN_IF_ERROR(MergeStates(s, &accs, states, 0, ids.data(), n, eval));
  for (auto& acc : accs) {
    SPATE_ASSIGN_OR_RETURN(ColumnPtr c, acc->Finalize(eval));
    keys.push_back(std::move(c));
  }
  return Batch::Make(s.out_schema, std::move(keys), n);
}

// A stateful exec over partitions of its child: Run(partition) consumes the partition and
// returns its one output batch (the first Next of the stream).
template <typename Spec>
class StatefulExec : public exec::PhysicalOp {
 public:
  StatefulExec(Spec spec, Operator* op, const StatefulBatch* batch,
               exec::PhysicalOpPtr child)
      : PhysicalOp(spec.out_schema, {std::move(child)}),
        s_(std::move(spec)),
        op_(op),
        batch_(batch) {}
  int num_partitions() const override { return child().num_partitions(); }
  Result<exec::BatchStreamPtr> Open(int partition,
                                    exec::ExecContext* ctx) const override {
    SPATE_ASSIGN_OR_RETURN(auto in, child().Open(partition, ctx));
    auto shared_in = std::shared_ptr<exec::BatchStream>(std::move(in));
    return exec::BatchStreamPtr(std::make_unique<OnceStream>(
        [this, partition, ctx, shared_in]() -> Result<BatchPtr> {
          // Every stateful exec: the partition's store at the batch's version, then the
          // whole input of the partition.
          SPATE_ASSIGN_OR_RETURN(state::StateStore * store, op_->Open(partition));
          std::vector<BatchPtr> batches;
          SPATE_RETURN_IF_ERROR(Drain(shared_in.get(), &batches));
          return Run(store, std::move(batches), ctx);
        }));
  }

 protected:
  virtual Result<BatchPtr> Run(state::StateStore* store, std::vector<BatchPtr> batches,
                               exec::ExecContext* ctx) const = 0;
  std::string StateInfo() const {
    return "state info [ opId = " + std::to_string(op_->id) +
           ", numPartitions = " + std::to_string(op_->num_partitions) + "]";
  }

  Spec s_;
  Operator* op_;
  const StatefulBatch* batch_;
};

class StateStoreSaveExec final : public StatefulExec<AggregateSpec> {
 public:
  using StatefulExec::StatefulExec;
  std::string Describe() const override {
    return "StateStoreSave [" + std::to_string(s_.num_keys) + " keys], " + StateInfo() +
           ", " + std::string(OutputModeName(batch_->mode));
  }

 private:
  Result<BatchPtr> Run(state::StateStore* store, std::vector<BatchPtr> batches,
                       exec::ExecContext* ctx) const override;
};

Result<BatchPtr> StateStoreSaveExec::Run(state::StateStore* store,
                                         std::vector<BatchPtr> batches,
                                         exec::ExecContext* ctx) const {
  const EvalContext& eval = ctx->eval();
  const OutputMode mode = batch_->mode;
  auto t_update = SteadyClock::now();
  const size_t k = s_.num_keys;

  // Group the partial rows of this batch by key.
  std::vector<std::vector<uint32_t>> gids(batches.size());
  std::vector<ColumnPtr> key_cols;
  int64_t groups = 0;
  if (k > 0) {
    exec::GroupTable table(s_.key_types);
    for (size_t i = 0; i < batches.size(); ++i) {
      const Batch& b = *batches[i];
      gids[i].resize(static_cast<size_t>(b.num_rows()));
      std::vector<ColumnPtr> keys(b.columns().begin(),
                                  b.columns().begin() + static_cast<std::ptrdiff_t>(k));
      table.FindOrInsert(keys, b.num_rows(), gids[i].data());
    }
    groups = table.num_groups();
    key_cols = table.FinishKeys();
  } else {
    for (size_t i = 0; i < batches.size(); ++i)
      gids[i].assign(static_cast<size_t>(batches[i]->num_rows()), 0u);
    groups = batches.empty() ? 0 : 1;
  }

  // Late keys (Append / Update with a watermark): dropped, counted.
  const bool watermarked = s_.event_key >= 0 && mode != OutputMode::kComplete;
  std::vector<int64_t> event_time(static_cast<size_t>(groups), 0);
  std::vector<uint8_t> late(static_cast<size_t>(groups), 0);
  int64_t dropped = 0;
  if (s_.event_key >= 0) {
    const Column& ek = *key_cols[static_cast<size_t>(s_.event_key)];
    const int64_t late_us = WatermarkMicros(op_->late_watermark_ms);
    for (int64_t g = 0; g < groups; ++g) {
      int64_t et = 0;
      bool valid = EventTimeOf(ek, g, &et);
      event_time[static_cast<size_t>(g)] =
          valid ? et : std::numeric_limits<int64_t>::max();
      if (watermarked && valid && et <= late_us) {
        late[static_cast<size_t>(g)] = 1;
        ++dropped;
      }
    }
  }

  // Keys of the groups, then the stored states of those keys merged first (so order-
  // sensitive aggregates such as first() see earlier batches first).
  const auto key_raw = Raw(key_cols);
  std::vector<std::string> keys(static_cast<size_t>(groups));
  for (int64_t g = 0; g < groups; ++g) {
    if (k > 0) s_.key_codec->Encode(key_raw, g, &keys[static_cast<size_t>(g)]);
  }
  const size_t prefix = s_.event_key >= 0 ? 8 : 0;
  auto accs = NewAccumulators(s_, groups);
  {
    state::RowBatchBuilder found(*s_.value_codec);
    std::vector<uint32_t> found_ids;
    for (int64_t g = 0; g < groups; ++g) {
      if (late[static_cast<size_t>(g)]) continue;
      auto v = store->Get(keys[static_cast<size_t>(g)]);
      if (!v) continue;
      if (v->size() < prefix) return Status::Internal("state value too short");
      SPATE_RETURN_IF_ERROR(found.Append(v->substr(prefix)));
      found_ids.push_back(static_cast<uint32_t>(g));
    }
    if (!found_ids.empty()) {
      SPATE_ASSIGN_OR_RETURN(BatchPtr fb, found.Finish());
      SPATE_RETURN_IF_ERROR(MergeStates(s_, &accs, fb->columns(), 0, found_ids.data(),
                                        static_cast<int64_t>(found_ids.size()), eval));
    }
  }
  for (size_t i = 0; i < batches.size(); ++i) {
    SPATE_RETURN_IF_ERROR(MergeStates(s_, &accs, batches[i]->columns(), k, gids[i].data(),
                                      batches[i]->num_rows(), eval));
  }
  std::vector<ColumnPtr> state_cols = StateColumns(s_, &accs);
  const auto state_raw = Raw(state_cols);
  std::string value;
  std::vector<int32_t> updated_rows;
  for (int64_t g = 0; g < groups; ++g) {
    if (late[static_cast<size_t>(g)]) continue;
    value.clear();
    if (prefix) PutInt64(&value, event_time[static_cast<size_t>(g)]);
    s_.value_codec->Encode(state_raw, g, &value);
    store->Put(keys[static_cast<size_t>(g)], value);
    updated_rows.push_back(static_cast<int32_t>(g));
  }
  const int64_t update_ns = NanosSince(t_update);

  BatchPtr out;
  if (mode == OutputMode::kUpdate && !updated_rows.empty()) {
    const auto m = static_cast<int64_t>(updated_rows.size());
    std::vector<ColumnPtr> ok, os;
    for (const auto& c : key_cols) ok.push_back(Take(*c, updated_rows.data(), m));
    for (const auto& c : state_cols) os.push_back(Take(*c, updated_rows.data(), m));
    SPATE_ASSIGN_OR_RETURN(out, Finalize(s_, std::move(ok), os, m, eval));
  }

  // Complete: every key. Append: the keys the watermark passed, evicted. Update with a
  // watermark: those keys evicted without output.
  auto t_remove = SteadyClock::now();
  int64_t removed = 0;
  const bool evict = watermarked;
  if (mode == OutputMode::kComplete || evict) {
    const int64_t evict_us = WatermarkMicros(op_->eviction_watermark_ms);
    const bool emit = mode != OutputMode::kUpdate;
    state::RowBatchBuilder kb(*s_.key_codec), vb(*s_.value_codec);
    std::vector<std::string> gone;
    Status st;
    store->ForEach([&](std::string_view key, std::string_view v) {
      if (!st.ok()) return;
      if (evict && (v.size() < 8 || GetInt64(v) > evict_us)) return;
      if (evict) gone.emplace_back(key);
      if (emit) {
        if (k > 0) st = kb.Append(key);
        if (st.ok()) st = vb.Append(v.substr(prefix));
      }
    });
    SPATE_RETURN_IF_ERROR(st);
    for (const auto& key : gone) store->Remove(key);
    removed = static_cast<int64_t>(gone.size());
    if (emit && vb.num_rows() > 0) {
      const int64_t n = vb.num_rows();
      std::vector<ColumnPtr> kc;
      if (k > 0) {
        SPATE_ASSIGN_OR_RETURN(BatchPtr kbatch, kb.Finish());
        kc = kbatch->columns();
      }
      SPATE_ASSIGN_OR_RETURN(BatchPtr vbatch, vb.Finish());
      SPATE_ASSIGN_OR_RETURN(out,
                             Finalize(s_, std::move(kc), vbatch->columns(), n, eval));
    }
  }
  op_->AddMetrics(static_cast<int64_t>(updated_rows.size()), removed, dropped, update_ns,
                  evict ? NanosSince(t_remove) : 0, 0);
  return out;
}

// ---- StreamingDeduplicate

struct DedupSpec {
  StatefulKind kind = StatefulKind::kDeduplicate;
  std::vector<int> key_columns;  // dedup keys: columns of the child
  std::vector<int> out_columns;  // the Aggregate's output order: child columns
  int event_column = -1;         // the child's event-time column (late rows)
  bool event_in_keys = false;    // dropDuplicates: keys include the event time
  int64_t delay_ms = 0;          // dropDuplicatesWithinWatermark: the column's delay
  SchemaPtr out_schema;
  std::shared_ptr<state::RowCodec> key_codec;
};

class StreamingDeduplicateExec final : public StatefulExec<DedupSpec> {
 public:
  using StatefulExec::StatefulExec;
  std::string Describe() const override {
    return std::string(s_.kind == StatefulKind::kDeduplicate
                           ? "StreamingDeduplicate "
                           : "StreamingDeduplicateWithinWatermark ") +
           StateInfo();
  }

 private:
  Result<BatchPtr> Run(state::StateStore* store, std::vector<BatchPtr> batches,
                       exec::ExecContext* ctx) const override;
};

Result<BatchPtr> StreamingDeduplicateExec::Run(state::StateStore* store,
                                               std::vector<BatchPtr> batches,
                                               exec::ExecContext* ctx) const {
  auto t_update = SteadyClock::now();
  const int64_t late_us = WatermarkMicros(op_->late_watermark_ms);
  const bool within = s_.kind == StatefulKind::kDedupWithinWatermark;
  const int64_t delay_us = s_.delay_ms * 1000;
  int64_t dropped = 0, dups = 0, updated = 0;
  std::vector<BatchPtr> outs;
  std::string key, value;
  for (const auto& b : batches) {
    const int64_t n = b->num_rows();
    std::vector<const Column*> kc;
    for (int c : s_.key_columns) kc.push_back(b->column(c).get());
    const Column* ec = s_.event_column >= 0 ? b->column(s_.event_column).get() : nullptr;
    std::vector<int32_t> keep;
    for (int64_t r = 0; r < n; ++r) {
      int64_t et = 0;
      const bool has_et = ec && ec->IsValid(r);
      if (has_et) et = ec->raw_values<int64_t>()[r];
      if (has_et && et <= late_us) {
        ++dropped;
        continue;
      }
      key.clear();
      s_.key_codec->Encode(kc, r, &key);
      if (store->Get(key)) {
        ++dups;
        continue;
      }
      value.clear();
      if (within) {
        PutInt64(&value, has_et ? et + delay_us : std::numeric_limits<int64_t>::max());
      } else if (s_.event_in_keys) {
        PutInt64(&value, has_et ? et : std::numeric_limits<int64_t>::max());
      }
      store->Put(key, value);
      ++updated;
      keep.push_back(static_cast<int32_t>(r));
    }
    if (keep.empty()) continue;
    std::vector<ColumnPtr> cols;
    for (int c : s_.out_columns)
      cols.push_back(Take(*b->column(c), keep.data(), static_cast<int64_t>(keep.size())));
    outs.push_back(
        Batch::Make(s_.out_schema, std::move(cols), static_cast<int64_t>(keep.size())));
  }
  const int64_t update_ns = NanosSince(t_update);
  auto t_remove = SteadyClock::now();
  int64_t removed = 0;
  const bool evict = within || s_.event_in_keys;
  if (evict) {
    const int64_t evict_us = WatermarkMicros(op_->eviction_watermark_ms);
    std::vector<std::string> gone;
    store->ForEach([&](std::string_view k, std::string_view v) {
      if (v.size() < 8) return;
      const int64_t t = GetInt64(v);
      // dropDuplicates: the key's event time at or below the watermark; within the
      // watermark: expiry (event time + delay) at or below it.
      if (t <= evict_us) gone.emplace_back(k);
    });
    for (const auto& k : gone) store->Remove(k);
    removed = static_cast<int64_t>(gone.size());
  }
  op_->AddMetrics(updated, removed, dropped, update_ns, evict ? NanosSince(t_remove) : 0,
                  dups);
  if (outs.empty()) return BatchPtr();
  if (outs.size() == 1) return outs[0];
  return ConcatBatches(s_.out_schema, outs);
}

// ---- SessionWindowStateStoreSave (session_window keys)
//
// State per key of the other grouping keys: the key's open sessions, each [start, end)
// with the partial states of its aggregates. Value layout: int64 min end, int32 count,
// then per session int64 start, int64 end, uint32 length + the RowCodec bytes of its
// states.

struct SessionSpec {
  AggregateSpec agg;  // keys include the session struct at `session_key`
  int session_key = 0;
  std::vector<int> other_keys;
  std::shared_ptr<state::RowCodec> other_codec;
  SchemaPtr out_schema;  // = agg.out_schema
};

void EncodeSessions(const std::vector<StoredSession>& ss, std::string* out) {
  out->clear();
  int64_t min_end = std::numeric_limits<int64_t>::max();
  for (const auto& x : ss) min_end = std::min(min_end, x.end);
  PutInt64(out, min_end);
  const int32_t n = static_cast<int32_t>(ss.size());
  out->append(reinterpret_cast<const char*>(&n), 4);
  for (const auto& x : ss) {
    PutInt64(out, x.start);
    PutInt64(out, x.end);
    const uint32_t len = static_cast<uint32_t>(x.states.size());
    out->append(reinterpret_cast<const char*>(&len), 4);
    out->append(x.states);
  }
}

}  // namespace

Status stateful_internal::DecodeSessions(std::string_view v,
                                         std::vector<StoredSession>* out) {
  out->clear();
  auto bad = [] { return Status::Internal("corrupt session state value"); };
  if (v.size() < 12) return bad();
  int32_t n = 0;
  std::memcpy(&n, v.data() + 8, 4);
  size_t pos = 12;
  for (int32_t i = 0; i < n; ++i) {
    if (v.size() < pos + 20) return bad();
    StoredSession x;
    x.start = GetInt64(v.substr(pos));
    x.end = GetInt64(v.substr(pos + 8));
    uint32_t len = 0;
    std::memcpy(&len, v.data() + pos + 16, 4);
    pos += 20;
    if (v.size() < pos + len) return bad();
    x.states.assign(v.data() + pos, len);
    pos += len;
    out->push_back(std::move(x));
  }
  return Status::OK();
}

namespace {

// The number of sessions in an encoded value (after its int64 min end), without decoding.
int64_t SessionCount(std::string_view v) {
  int32_t c = 0;
  if (v.size() >= 12) std::memcpy(&c, v.data() + 8, 4);
  return c;
}

// Sessions stored in a store.
int64_t CountStoredSessions(state::StateStore* store) {
  int64_t n = 0;
  store->ForEach([&](std::string_view, std::string_view v) { n += SessionCount(v); });
  return n;
}

class SessionStateSaveExec final : public StatefulExec<SessionSpec> {
 public:
  using StatefulExec::StatefulExec;
  std::string Describe() const override {
    return "SessionWindowStateStoreSave " + StateInfo() + ", " +
           std::string(OutputModeName(batch_->mode));
  }

 private:
  struct Item {
    int64_t start, end;
    int batch;  // -1: stored
    int64_t row;
  };
  struct Emitted {
    std::string key;
    int64_t start, end;
    std::string states;
  };

  Result<BatchPtr> Run(state::StateStore* store, std::vector<BatchPtr> batches,
                       exec::ExecContext* ctx) const override;
};

Result<BatchPtr> SessionStateSaveExec::Run(state::StateStore* store,
                                           std::vector<BatchPtr> batches,
                                           exec::ExecContext* ctx) const {
  const AggregateSpec& a = s_.agg;
  const EvalContext& eval = ctx->eval();
  const OutputMode mode = batch_->mode;
  auto t_update = SteadyClock::now();
  const int64_t late_us = WatermarkMicros(op_->late_watermark_ms);
  const int64_t evict_us = WatermarkMicros(op_->eviction_watermark_ms);
  const bool watermarked = a.event_key >= 0 && mode != OutputMode::kComplete;

  // Sessions of this batch per key of the other grouping keys.
  std::unordered_map<std::string, size_t> group_of;
  std::vector<std::string> group_keys;
  std::vector<std::vector<Item>> items;
  std::vector<std::vector<uint32_t>> row_session(batches.size());
  int64_t dropped = 0;
  std::string key;
  for (size_t b = 0; b < batches.size(); ++b) {
    const Batch& batch = *batches[b];
    std::vector<const Column*> others;
    for (int k : s_.other_keys) others.push_back(batch.column(k).get());
    const Column& sess = *batch.column(s_.session_key);
    const int64_t* starts = sess.child(0)->raw_values<int64_t>();
    const int64_t* ends = sess.child(1)->raw_values<int64_t>();
    row_session[b].assign(static_cast<size_t>(batch.num_rows()), UINT32_MAX);
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      if (watermarked && ends[r] <= late_us) {
        ++dropped;
        continue;
      }
      key.clear();
      s_.other_codec->Encode(others, r, &key);
      auto [it, fresh] = group_of.emplace(key, group_keys.size());
      if (fresh) {
        group_keys.push_back(key);
        items.emplace_back();
      }
      items[it->second].push_back(Item{starts[r], ends[r], static_cast<int>(b), r});
    }
  }
  // The stored sessions of those keys.
  state::RowBatchBuilder stored(*a.value_codec);
  std::vector<StoredSession> ss;
  for (size_t g = 0; g < group_keys.size(); ++g) {
    auto v = store->Get(group_keys[g]);
    if (!v) continue;
    SPATE_RETURN_IF_ERROR(DecodeSessions(*v, &ss));
    for (auto& x : ss) {
      items[g].push_back(Item{x.start, x.end, -1, stored.num_rows()});
      SPATE_RETURN_IF_ERROR(stored.Append(x.states));
    }
  }
  // Merge overlapping sessions of each key (a session starting at or before the end of
  // the previous one joins it).
  struct Merged {
    size_t group;
    int64_t start, end;
  };
  std::vector<Merged> merged;
  std::vector<uint32_t> stored_session(static_cast<size_t>(stored.num_rows()), 0);
  for (size_t g = 0; g < items.size(); ++g) {
    auto& list = items[g];
    std::sort(list.begin(), list.end(),
              [](const Item& x, const Item& y) { return x.start < y.start; });
    for (const Item& it : list) {
      if (merged.empty() || merged.back().group != g || it.start > merged.back().end) {
        merged.push_back(Merged{g, it.start, it.end});
      } else {
        merged.back().end = std::max(merged.back().end, it.end);
      }
      const auto m = static_cast<uint32_t>(merged.size() - 1);
      if (it.batch < 0) {
        stored_session[static_cast<size_t>(it.row)] = m;
      } else {
        row_session[static_cast<size_t>(it.batch)][static_cast<size_t>(it.row)] = m;
      }
    }
  }
  const auto sessions = static_cast<int64_t>(merged.size());
  // Merged states: stored first, then this batch's (late rows go to a spare group).
  auto accs = NewAccumulators(a, sessions + 1);
  if (stored.num_rows() > 0) {
    const int64_t n = stored.num_rows();
    SPATE_ASSIGN_OR_RETURN(BatchPtr sb, stored.Finish());
    SPATE_RETURN_IF_ERROR(
        MergeStates(a, &accs, sb->columns(), 0, stored_session.data(), n, eval));
  }
  for (size_t b = 0; b < batches.size(); ++b) {
    for (auto& m : row_session[b]) {
      if (m == UINT32_MAX) m = static_cast<uint32_t>(sessions);
    }
    SPATE_RETURN_IF_ERROR(MergeStates(a, &accs, batches[b]->columns(), a.num_keys,
                                      row_session[b].data(), batches[b]->num_rows(),
                                      eval));
  }
  std::vector<ColumnPtr> state_cols = StateColumns(a, &accs);
  const auto state_raw = Raw(state_cols);
  // New session lists: emitted (Append: the watermark passed the end) or kept.
  // Metrics in Spark's unit, one state row per session: every session of a touched key is
  // updated, a stored session whose start no longer begins one is removed, and so is a
  // session the watermark closes.
  int64_t updated = sessions, removed = 0, total = 0;
  {
    std::vector<std::vector<int64_t>> new_starts(group_keys.size());
    for (const Merged& ms : merged) new_starts[ms.group].push_back(ms.start);
    for (size_t g = 0; g < items.size(); ++g) {
      for (const Item& it : items[g]) {
        if (it.batch < 0 &&
            !std::binary_search(new_starts[g].begin(), new_starts[g].end(), it.start))
          ++removed;
      }
    }
  }
  std::vector<Emitted> out;
  std::vector<std::vector<StoredSession>> kept(group_keys.size());
  for (int64_t m = 0; m < sessions; ++m) {
    const Merged& ms = merged[static_cast<size_t>(m)];
    StoredSession x{ms.start, ms.end, {}};
    a.value_codec->Encode(state_raw, m, &x.states);
    const bool final = mode == OutputMode::kAppend && ms.end <= evict_us;
    if (final || mode == OutputMode::kComplete)
      out.push_back(Emitted{group_keys[ms.group], ms.start, ms.end, x.states});
    if (final) {
      ++removed;
    } else {
      kept[ms.group].push_back(std::move(x));
      ++total;
    }
  }
  std::string value;
  for (size_t g = 0; g < group_keys.size(); ++g) {
    if (kept[g].empty()) {
      store->Remove(group_keys[g]);
      continue;
    }
    EncodeSessions(kept[g], &value);
    store->Put(group_keys[g], value);
  }
  const int64_t update_ns = NanosSince(t_update);
  // Keys the batch did not touch: Complete emits their sessions, Append those the
  // watermark passed.
  auto t_remove = SteadyClock::now();
  if (mode == OutputMode::kComplete || watermarked) {
    std::vector<std::pair<std::string, std::vector<StoredSession>>> rewrite;
    Status st;
    store->ForEach([&](std::string_view k, std::string_view v) {
      if (!st.ok() || group_of.count(std::string(k))) return;
      std::vector<StoredSession> list;
      if (mode != OutputMode::kComplete && (v.size() < 8 || GetInt64(v) > evict_us)) {
        total += SessionCount(v);
        return;
      }
      st = DecodeSessions(v, &list);
      std::vector<StoredSession> left;
      for (auto& x : list) {
        const bool final = mode == OutputMode::kAppend && x.end <= evict_us;
        if (final || mode == OutputMode::kComplete)
          out.push_back(Emitted{std::string(k), x.start, x.end, x.states});
        if (!final) left.push_back(std::move(x));
      }
      removed += static_cast<int64_t>(list.size() - left.size());
      total += static_cast<int64_t>(left.size());
      if (left.size() != list.size())
        rewrite.emplace_back(std::string(k), std::move(left));
    });
    SPATE_RETURN_IF_ERROR(st);
    for (auto& [k, left] : rewrite) {
      if (left.empty()) {
        store->Remove(k);
      } else {
        EncodeSessions(left, &value);
        store->Put(k, value);
      }
    }
  }
  if (mode != OutputMode::kComplete && !watermarked) total = CountStoredSessions(store);
  op_->SetRowsTotal(store, total);
  op_->AddMetrics(updated, removed, dropped, update_ns, NanosSince(t_remove), 0);
  if (out.empty()) return BatchPtr();
  // Rows of the emitted sessions: keys (the session struct among them) ++ final values.
  state::RowBatchBuilder kb(*s_.other_codec), vb(*a.value_codec);
  FixedWidthBuilder<int64_t> sb(DataType::Timestamp()), eb(DataType::Timestamp());
  for (const auto& e : out) {
    SPATE_RETURN_IF_ERROR(kb.Append(e.key));
    SPATE_RETURN_IF_ERROR(vb.Append(e.states));
    sb.Append(e.start);
    eb.Append(e.end);
  }
  const auto n = static_cast<int64_t>(out.size());
  SPATE_ASSIGN_OR_RETURN(BatchPtr kbatch, kb.Finish());
  SPATE_ASSIGN_OR_RETURN(BatchPtr vbatch, vb.Finish());
  const DataTypePtr& st_type = a.key_types[static_cast<size_t>(s_.session_key)];
  std::vector<ColumnPtr> fields = {sb.Finish(), eb.Finish()};
  for (size_t f = 0; f < fields.size(); ++f) {
    const DataTypePtr& ft = st_type->fields()[f].type;
    fields[f] = std::make_shared<const Column>(
        ft, n, fields[f]->null_count(), fields[f]->validity(), fields[f]->values());
  }
  auto sess =
      std::make_shared<const Column>(st_type, n, 0, nullptr, nullptr, nullptr, fields);
  std::vector<ColumnPtr> keys;
  size_t next_other = 0;
  for (size_t k = 0; k < a.num_keys; ++k) {
    if (static_cast<int>(k) == s_.session_key) {
      keys.push_back(sess);
    } else {
      keys.push_back(kbatch->column(static_cast<int>(next_other++)));
    }
  }
  return Finalize(a, std::move(keys), vbatch->columns(), n, eval);
}

// ---- StreamingGlobalLimit: the rows emitted so far, in one store under one key.

struct LimitSpec {
  int64_t limit = 0;
  SchemaPtr out_schema;
};

class StreamingGlobalLimitExec final : public StatefulExec<LimitSpec> {
 public:
  using StatefulExec::StatefulExec;
  std::string Describe() const override {
    return "StreamingGlobalLimit " + std::to_string(s_.limit) + ", " + StateInfo();
  }

 private:
  Result<BatchPtr> Run(state::StateStore* store, std::vector<BatchPtr> batches,
                       exec::ExecContext*) const override {
    auto t = SteadyClock::now();
    auto v = store->Get("");
    const int64_t before = v ? GetInt64(*v) : 0;
    int64_t left = std::max<int64_t>(0, s_.limit - before);
    std::vector<BatchPtr> outs;
    for (const auto& b : batches) {
      if (left == 0) break;
      const int64_t take = std::min(left, b->num_rows());
      outs.push_back(take == b->num_rows() ? b : SliceBatch(*b, 0, take));
      left -= take;
    }
    const int64_t emitted = std::max<int64_t>(0, s_.limit - before) - left;
    std::string value;
    PutInt64(&value, before + emitted);
    store->Put("", value);
    op_->AddMetrics(1, 0, 0, NanosSince(t), 0, 0);
    if (outs.empty()) return BatchPtr();
    return outs.size() == 1 ? outs[0] : ConcatBatches(s_.out_schema, outs);
  }
};

class LimitExtension final : public exec::PhysicalExtension {
 public:
  LimitExtension(LimitSpec spec, Operator* op, const StatefulBatch* batch)
      : s_(std::move(spec)), op_(op), batch_(batch) {}
  std::string Describe() const override {
    return "StreamingGlobalLimit opId=" + std::to_string(op_->id);
  }
  Result<exec::PhysicalOpPtr> PlanPhysical(std::vector<exec::PhysicalOpPtr> children,
                                           const exec::ExecOptions&) const override {
    auto single = std::make_shared<exec::Exchange>(
        exec::Partitioning::kSingle, std::vector<BoundExprPtr>{}, 1, children.at(0));
    return exec::PhysicalOpPtr(
        std::make_shared<StreamingGlobalLimitExec>(s_, op_, batch_, single));
  }

 private:
  LimitSpec s_;
  Operator* op_;
  const StatefulBatch* batch_;
};

// ---- Plan extensions (planned by exec's PhysicalExtension hook)

class WatermarkExtension final : public exec::PhysicalExtension {
 public:
  WatermarkExtension(int column, std::function<void(const EventTimeStats&)> report,
                     std::string label)
      : column_(column), report_(std::move(report)), label_(std::move(label)) {}
  std::string Describe() const override { return label_; }
  Result<exec::PhysicalOpPtr> PlanPhysical(std::vector<exec::PhysicalOpPtr> children,
                                           const exec::ExecOptions&) const override {
    return exec::PhysicalOpPtr(
        std::make_shared<WatermarkExec>(column_, report_, children.at(0), label_));
  }
  // Passes its child's rows through, reading the event-time column.
  std::optional<std::set<int>> ChildColumnsRead(
      const std::set<int>* needed) const override {
    if (!needed) return std::nullopt;
    std::set<int> child = *needed;
    child.insert(column_);
    return child;
  }

 private:
  int column_;
  std::function<void(const EventTimeStats&)> report_;
  std::string label_;
};

// A streaming aggregate: partial aggregation -> exchange -> StateStoreSave, or, with a
// session_window key (`session` set), the exchange on the other keys only (all sessions
// of a key in one partition) -> SessionWindowStateStoreSave.
class AggregateExtension final : public exec::PhysicalExtension {
 public:
  AggregateExtension(AggregateSpec spec, std::shared_ptr<const SessionSpec> session,
                     std::vector<BoundExprPtr> group_exprs,
                     std::vector<std::string> labels, std::vector<Field> key_fields,
                     Operator* op, const StatefulBatch* batch)
      : s_(std::move(spec)),
        session_(std::move(session)),
        group_exprs_(std::move(group_exprs)),
        labels_(std::move(labels)),
        key_fields_(std::move(key_fields)),
        op_(op),
        batch_(batch) {}
  std::string Describe() const override {
    return std::string(session_ ? "SessionWindowStateStoreSave" : "StateStoreSave") +
           " opId=" + std::to_string(op_->id);
  }
  Result<exec::PhysicalOpPtr> PlanPhysical(std::vector<exec::PhysicalOpPtr> children,
                                           const exec::ExecOptions&) const override {
    SchemaPtr partial_schema = exec::HashAggregate::PartialSchema(key_fields_, s_.calls);
    auto partial = std::make_shared<exec::HashAggregate>(
        exec::AggregateMode::kPartial, partial_schema, group_exprs_, labels_, s_.calls,
        children.at(0));
    std::vector<BoundExprPtr> key_refs;
    for (size_t i = 0; i < key_fields_.size(); ++i) {
      if (session_ && static_cast<int>(i) == session_->session_key) continue;
      key_refs.push_back(MakeColumnRef(static_cast<int>(i), key_fields_[i].type,
                                       key_fields_[i].nullable, labels_[i]));
    }
    exec::PhysicalOpPtr exchange =
        key_refs.empty()
            ? std::make_shared<exec::Exchange>(exec::Partitioning::kSingle,
                                               std::vector<BoundExprPtr>{}, 1, partial)
            : std::make_shared<exec::Exchange>(exec::Partitioning::kHash, key_refs,
                                               op_->num_partitions, partial);
    if (session_) {
      return exec::PhysicalOpPtr(
          std::make_shared<SessionStateSaveExec>(*session_, op_, batch_, exchange));
    }
    return exec::PhysicalOpPtr(
        std::make_shared<StateStoreSaveExec>(s_, op_, batch_, exchange));
  }
  // The partial aggregation reads the keys' and the calls' columns only.
  std::optional<std::set<int>> ChildColumnsRead(const std::set<int>*) const override {
    std::set<int> child;
    for (const auto& e : group_exprs_) exec::CollectColumnRefs(e, &child);
    for (const auto& a : s_.calls) {
      for (const auto& e : a.args) exec::CollectColumnRefs(e, &child);
      exec::CollectColumnRefs(a.filter, &child);
    }
    return child;
  }

 private:
  AggregateSpec s_;
  std::shared_ptr<const SessionSpec> session_;
  std::vector<BoundExprPtr> group_exprs_;
  std::vector<std::string> labels_;
  std::vector<Field> key_fields_;
  Operator* op_;
  const StatefulBatch* batch_;
};

class DedupExtension final : public exec::PhysicalExtension {
 public:
  DedupExtension(DedupSpec spec, std::vector<BoundExprPtr> key_exprs, Operator* op,
                 const StatefulBatch* batch)
      : s_(std::move(spec)), key_exprs_(std::move(key_exprs)), op_(op), batch_(batch) {}
  std::string Describe() const override {
    return "StreamingDeduplicate opId=" + std::to_string(op_->id);
  }
  Result<exec::PhysicalOpPtr> PlanPhysical(std::vector<exec::PhysicalOpPtr> children,
                                           const exec::ExecOptions&) const override {
    exec::PhysicalOpPtr exchange =
        key_exprs_.empty()
            ? std::make_shared<exec::Exchange>(exec::Partitioning::kSingle,
                                               std::vector<BoundExprPtr>{}, 1,
                                               children.at(0))
            : std::make_shared<exec::Exchange>(exec::Partitioning::kHash, key_exprs_,
                                               op_->num_partitions, children.at(0));
    return exec::PhysicalOpPtr(
        std::make_shared<StreamingDeduplicateExec>(s_, op_, batch_, exchange));
  }

 private:
  DedupSpec s_;
  std::vector<BoundExprPtr> key_exprs_;
  Operator* op_;
  const StatefulBatch* batch_;
};

std::shared_ptr<BoundPlan> Extension(std::shared_ptr<const sql::BoundExtension> ext,
                                     const BoundPlan& like, BoundPlanPtr child) {
  auto n = std::make_shared<BoundPlan>(BoundKind::kExtension);
  n->extension = std::move(ext);
  n->output = like.output;
  n->children.push_back(std::move(child));
  return n;
}

}  // namespace

// ---- Rewriter: the batch plan of one micro-batch.

struct StatefulRuntime::Rewriter {
  StatefulRuntime* rt;
  const std::vector<std::shared_ptr<const StreamingRelation>>* relations;
  const std::vector<DataSourcePtr>* inputs;
  int64_t next_op = 0;
  int next_watermark = 0;

  Result<BoundPlanPtr> Rewrite(const BoundPlanPtr& node) {
    if (const StreamingRelation* rel = StreamingLeafOf(*node)) {
      if (rt->dry_run_) return node;
      for (size_t i = 0; i < relations->size(); ++i) {
        if ((*relations)[i].get() != rel) continue;
        const DataSourcePtr& in = (*inputs)[i];
        if (in->schema()->num_fields() != rel->schema()->num_fields()) {
          return Status::Internal("the batch of " + rel->description() +
                                  " does not have the stream's columns");
        }
        auto copy = std::make_shared<BoundPlan>(*node);
        copy->source = in;
        return BoundPlanPtr(copy);
      }
      return Status::Internal("a streaming relation of the plan has no source");
    }
    // Pre-order ids: a stateful node takes its id before its children.
    std::optional<StatefulKind> kind = StatefulKindOf(*node);
    int64_t op_id = kind ? next_op++ : -1;
    const bool watermark = node->kind == BoundKind::kWatermark &&
                           !node->children.empty() && IsStreamingBound(*node->child());
    int watermark_index = watermark ? next_watermark++ : -1;
    std::vector<BoundPlanPtr> kids;
    bool changed = false;
    for (const auto& c : node->children) {
      SPATE_ASSIGN_OR_RETURN(auto k, Rewrite(c));
      changed |= k != c;
      kids.push_back(std::move(k));
    }
    if (watermark) return RewriteWatermark(*node, watermark_index, kids[0]);
    if (kind && *kind == StatefulKind::kStreamJoin)
      return RewriteJoin(*node, op_id, kids);
    if (kind && *kind == StatefulKind::kTransformWithState)
      return RewriteTransformWithState(*node, op_id, kids.at(0));
    if (kind) return RewriteStateful(*node, *kind, op_id, kids[0]);
    if (!changed) return node;
    auto copy = std::make_shared<BoundPlan>(*node);
    copy->children = std::move(kids);
    return BoundPlanPtr(copy);
  }

  Result<BoundPlanPtr> RewriteWatermark(const BoundPlan& node, int index,
                                        BoundPlanPtr child) {
    if (static_cast<size_t>(index) >= rt->watermark_delays_.size()) {
      rt->watermark_delays_.resize(static_cast<size_t>(index) + 1, 0);
      rt->stats_.resize(static_cast<size_t>(index) + 1);
    }
    rt->watermark_delays_[static_cast<size_t>(index)] = node.watermark_delay_ms;
    StatefulRuntime* runtime = rt;
    auto report = [runtime, index](const EventTimeStats& s) {
      std::lock_guard<std::mutex> lock(runtime->stats_mu_);
      runtime->stats_[static_cast<size_t>(index)].Merge(s);
    };
    const auto& attr = node.output[static_cast<size_t>(node.watermark_column)];
    auto ext = std::make_shared<WatermarkExtension>(node.watermark_column, report,
                                                    "EventTimeWatermark " + attr.Label() +
                                                        ": " + attr.type->SimpleString() +
                                                        ", " + node.watermark_delay_text);
    return BoundPlanPtr(Extension(ext, node, std::move(child)));
  }

  Result<Operator*> OperatorFor(int64_t id, StatefulKind kind, int partitions,
                                bool event_key, SchemaPtr key_schema,
                                SchemaPtr value_schema,
                                std::vector<std::string> store_names = {"default"},
                                std::vector<bool> store_counts_rows = {true}) {
    auto& ops = rt->ops_;
    if (static_cast<size_t>(id) >= ops.size()) ops.resize(static_cast<size_t>(id) + 1);
    auto& op = ops[static_cast<size_t>(id)];
    if (!op) {
      op = std::make_unique<Operator>();
      op->id = id;
      op->kind = kind;
      op->runtime = rt;
      op->num_partitions = partitions;
      op->store_names = std::move(store_names);
      op->store_counts_rows = std::move(store_counts_rows);
      op->providers.resize(static_cast<size_t>(op->num_slots()));
    }
    op->has_event_time_key = event_key;
    const auto uid = static_cast<size_t>(id);
    op->late_watermark_ms = uid < rt->op_late_ms_.size() ? rt->op_late_ms_[uid] : 0;
    op->eviction_watermark_ms =
        uid < rt->op_eviction_ms_.size() ? rt->op_eviction_ms_[uid] : 0;
    if (rt->dry_run_) {
      PlannedStatefulOperator p;
      p.operator_id = id;
      p.kind = kind;
      p.num_partitions = partitions;
      p.store_names = op->store_names;
      p.key_schema = key_schema;
      p.value_schema = value_schema;
      p.event_time_key = event_key;
      rt->planned_.push_back(std::move(p));
      op->schema_checked = true;
    }
    if (!op->schema_checked) {
      SPATE_RETURN_IF_ERROR(state::CheckOrWriteStateSchema(*rt->fs_, rt->root_, id,
                                                           *key_schema, *value_schema));
      op->key_schema = std::move(key_schema);
      op->value_schema = std::move(value_schema);
      op->schema_checked = true;
    }
    op->ResetBatch();
    return op.get();
  }

  Result<BoundPlanPtr> RewriteTransformWithState(const BoundPlan& node, int64_t id,
                                                 BoundPlanPtr child) {
    const TransformWithStateNode* tws = TransformWithStateOf(node);
    std::vector<Field> key_fields;
    for (const auto& a : tws->key_attributes()) key_fields.push_back(a.ToField());
    auto key_schema = std::make_shared<const Schema>(key_fields);
    // The state variables' schemas are the processor's (declared when it runs).
    auto value_schema = std::make_shared<const Schema>(std::vector<Field>{});
    SPATE_ASSIGN_OR_RETURN(
        Operator * op,
        OperatorFor(id, StatefulKind::kTransformWithState,
                    key_fields.empty() ? 1 : rt->num_partitions_,
                    tws->time_mode() == TimeMode::kEventTime, key_schema, value_schema));
    op->processing_time_timers = tws->time_mode() == TimeMode::kProcessingTime;
    op->tws_time_mode = tws->time_mode() == TimeMode::kProcessingTime ? "ProcessingTime"
                        : tws->time_mode() == TimeMode::kEventTime    ? "EventTime"
                                                                      : "NoTime";
    op->tws_output_mode = std::string(OutputModeName(tws->mode()));
    if (tws->operator_name() != StatefulKindName(StatefulKind::kTransformWithState))
      op->name = tws->operator_name();
    return PlanTransformWithState(node, op, &rt->batch_, std::move(child));
  }

  Result<BoundPlanPtr> RewriteJoin(const BoundPlan& node, int64_t id,
                                   const std::vector<BoundPlanPtr>& kids) {
    SchemaPtr key_schema, value_schema;
    StreamJoinStateSchemas(node, &key_schema, &value_schema);
    const StreamJoinWatermarks w = AnalyzeStreamJoin(node);
    const bool cleanup = w.key_ordinal >= 0 || (w.value[0] && w.event_column[0] >= 0) ||
                         (w.value[1] && w.event_column[1] >= 0);
    SPATE_ASSIGN_OR_RETURN(
        Operator * op, OperatorFor(id, StatefulKind::kStreamJoin, rt->num_partitions_,
                                   cleanup, key_schema, value_schema,
                                   StreamJoinStoreNames(), {false, true, false, true}));
    if (op->join_state_format == 0) {
      // The layout the checkpoint records; a checkpoint without one (written before the
      // format was recorded, or before _metadata/operator existed) that has state is in
      // Spark's layout; a new one takes the configured layout.
      int format = rt->conf_.join_state_format;
      if (!rt->dry_run_) {
        SPATE_ASSIGN_OR_RETURN(auto meta, ReadOperatorMetadata(*rt->fs_, rt->root_, id));
        if (meta) {
          format = meta->join_state_format != 0 ? meta->join_state_format
                                                : kJoinStateFormatSpark;
          // Format 3 rebuilds the columns it recorded from the key bytes: the keys must
          // still be those columns.
          for (int side = 0; format == kJoinStateFormatKeyless && side < 2; ++side) {
            if (meta->join_key_columns[side] != StreamJoinKeyColumns(node, side)) {
              return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
                  .WithContext("the join keys of stream-stream join operator " +
                               std::to_string(id) +
                               " are no longer the columns its state (joinStateFormat 3) "
                               "rebuilds from them");
            }
          }
        } else if (rt->batch_.batch_id > 0) {
          format = kJoinStateFormatSpark;
        }
      }
      if (format != kJoinStateFormatSpark && !IsPackedJoinFormat(format)) {
        return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
            .WithContext("unknown stream-stream join state format " +
                         std::to_string(format) + " of operator " + std::to_string(id));
      }
      op->join_state_format = format;
      if (IsPackedJoinFormat(format)) op->store_in_use = {false, true, false, true};
    }
    return PlanStreamJoin(node, op, &rt->batch_, kids.at(0), kids.at(1));
  }

  Result<BoundPlanPtr> RewriteStateful(const BoundPlan& node, StatefulKind kind,
                                       int64_t id, const BoundPlanPtr& child) {
    if (kind == StatefulKind::kGlobalLimit) return RewriteLimit(node, id, child);
    const auto marks = EventTimeMarks(node);
    if (kind == StatefulKind::kAggregate) return RewriteAggregate(node, id, marks, child);
    return RewriteDedup(node, kind, id, child);
  }

  Result<BoundPlanPtr> RewriteAggregate(const BoundPlan& node, int64_t id,
                                        const std::vector<int64_t>& marks,
                                        BoundPlanPtr child) {
    AggregateSpec s;
    s.num_keys = node.group_exprs.size();
    s.calls = node.aggregates;
    s.out_schema = node.OutputSchema();
    std::vector<Field> key_fields;
    std::vector<std::string> labels;
    for (size_t i = 0; i < s.num_keys; ++i) {
      Field f = node.output[i].ToField();
      f.type = node.group_exprs[i]->type();
      key_fields.push_back(f);
      labels.push_back(node.output[i].Label());
      s.key_types.push_back(f.type);
      if (s.event_key < 0 && i < marks.size() && marks[i] >= 0)
        s.event_key = static_cast<int>(i);
    }
    std::vector<Field> value_fields;
    for (size_t a = 0; a < s.calls.size(); ++a) {
      for (const Field& f : s.calls[a].function->state_fields()) {
        Field g = f;
        g.name = f.name + "#" + std::to_string(a);
        value_fields.push_back(std::move(g));
      }
    }
    auto value_schema = std::make_shared<const Schema>(value_fields);
    s.value_codec = std::make_shared<state::RowCodec>(value_schema);
    int session_key = -1;
    for (size_t i = 0; i < s.num_keys; ++i) {
      if (node.output[i].name == "session_window" &&
          s.key_types[i]->id() == TypeId::kStruct)
        session_key = static_cast<int>(i);
    }
    if (session_key >= 0) {
      SessionSpec ss;
      ss.session_key = session_key;
      std::vector<Field> other_fields;
      for (size_t i = 0; i < s.num_keys; ++i) {
        if (static_cast<int>(i) == session_key) continue;
        ss.other_keys.push_back(static_cast<int>(i));
        other_fields.push_back(key_fields[i]);
      }
      auto other_schema = std::make_shared<const Schema>(other_fields);
      ss.other_codec =
          std::make_shared<state::RowCodec>(other_schema, /*normalize_floats=*/true);
      std::vector<Field> session_values = {
          Field{"sessionStart", DataType::Timestamp(), false},
          Field{"sessionEnd", DataType::Timestamp(), false}};
      session_values.insert(session_values.end(), value_fields.begin(),
                            value_fields.end());
      SPATE_ASSIGN_OR_RETURN(
          Operator * op,
          OperatorFor(id, StatefulKind::kAggregate,
                      other_fields.empty() ? 1 : rt->num_partitions_, s.event_key >= 0,
                      other_schema, std::make_shared<const Schema>(session_values)));
      op->session = true;
      ss.out_schema = s.out_schema;
      ss.agg = s;
      auto ext = std::make_shared<AggregateExtension>(
          std::move(s), std::make_shared<const SessionSpec>(std::move(ss)),
          node.group_exprs, std::move(labels), std::move(key_fields), op, &rt->batch_);
      return BoundPlanPtr(Extension(ext, node, std::move(child)));
    }
    auto key_schema = std::make_shared<const Schema>(key_fields);
    s.key_codec =
        std::make_shared<state::RowCodec>(key_schema, /*normalize_floats=*/true);
    const int partitions = s.num_keys > 0 ? rt->num_partitions_ : 1;
    SPATE_ASSIGN_OR_RETURN(Operator * op,
                           OperatorFor(id, StatefulKind::kAggregate, partitions,
                                       s.event_key >= 0, key_schema, value_schema));
    if (rt->dry_run_)
      rt->planned_.back().spark_value_schema = SparkAggregationBufferSchema(s.calls);
    auto ext = std::make_shared<AggregateExtension>(
        std::move(s), nullptr, node.group_exprs, std::move(labels), std::move(key_fields),
        op, &rt->batch_);
    return BoundPlanPtr(Extension(ext, node, std::move(child)));
  }

  Result<BoundPlanPtr> RewriteLimit(const BoundPlan& node, int64_t id,
                                    BoundPlanPtr child) {
    LimitSpec s;
    s.limit = node.limit;
    s.out_schema = node.OutputSchema();
    auto key_schema = std::make_shared<const Schema>(std::vector<Field>{});
    auto value_schema = std::make_shared<const Schema>(
        std::vector<Field>{Field{"count", DataType::Long(), false}});
    SPATE_ASSIGN_OR_RETURN(Operator * op, OperatorFor(id, StatefulKind::kGlobalLimit, 1,
                                                      false, key_schema, value_schema));
    auto ext = std::make_shared<LimitExtension>(std::move(s), op, &rt->batch_);
    return BoundPlanPtr(Extension(ext, node, std::move(child)));
  }

  Result<BoundPlanPtr> RewriteDedup(const BoundPlan& node, StatefulKind kind, int64_t id,
                                    BoundPlanPtr child) {
    DedupSpec s;
    s.kind = kind;
    s.out_schema = node.OutputSchema();
    const auto child_marks = EventTimeMarks(*node.child());
    std::vector<Field> key_fields;
    for (const auto& e : node.group_exprs) {
      int c = e->column_index();
      if (c < 0) return Status::Internal("deduplication keys must be columns");
      s.key_columns.push_back(c);
      s.out_columns.push_back(c);
      key_fields.push_back(node.child()->output[static_cast<size_t>(c)].ToField());
      if (static_cast<size_t>(c) < child_marks.size() &&
          child_marks[static_cast<size_t>(c)] >= 0)
        s.event_in_keys = true;
    }
    for (const auto& call : node.aggregates) {
      int c = call.args.empty() ? -1 : call.args[0]->column_index();
      if (c < 0) return Status::Internal("deduplication columns must be columns");
      s.out_columns.push_back(c);
    }
    for (size_t i = 0; i < child_marks.size(); ++i) {
      if (child_marks[i] >= 0) {
        s.event_column = static_cast<int>(i);
        s.delay_ms = child_marks[i];
        break;
      }
    }
    if (kind == StatefulKind::kDedupWithinWatermark && s.event_column < 0) {
      return Status::Error(
          "_LEGACY_ERROR_TEMP_3102",
          {{"msg",
            "dropDuplicatesWithinWatermark is not supported on streaming "
            "DataFrames/DataSets without watermark"}});
    }
    auto key_schema = std::make_shared<const Schema>(key_fields);
    std::vector<Field> value_fields;
    if (kind == StatefulKind::kDedupWithinWatermark)
      value_fields.push_back(Field{"expiresAtMicros", DataType::Long(), false});
    auto value_schema = std::make_shared<const Schema>(value_fields);
    s.key_codec =
        std::make_shared<state::RowCodec>(key_schema, /*normalize_floats=*/true);
    const bool evicts = kind == StatefulKind::kDedupWithinWatermark || s.event_in_keys;
    SPATE_ASSIGN_OR_RETURN(
        Operator * op,
        OperatorFor(id, kind, node.group_exprs.empty() ? 1 : rt->num_partitions_, evicts,
                    key_schema, value_schema));
    auto ext =
        std::make_shared<DedupExtension>(std::move(s), node.group_exprs, op, &rt->batch_);
    return BoundPlanPtr(Extension(ext, node, std::move(child)));
  }
};

// ---- StatefulRuntime

StatefulRuntime::StatefulRuntime(io::FileSystemPtr fs, std::string state_root,
                                 state::StateStoreConf conf, int num_partitions)
    : fs_(std::move(fs)),
      root_(std::move(state_root)),
      conf_(std::move(conf)),
      num_partitions_(std::max(1, num_partitions)) {}

StatefulRuntime::~StatefulRuntime() { Close(); }

void StatefulRuntime::Close() {
  WaitForMaintenance();
  AbortBatch();
  for (auto& op : ops_) {
    if (!op) continue;
    for (auto& p : op->providers) {
      if (p) p->Close();
      p.reset();
    }
  }
}

Result<BoundPlanPtr> StatefulRuntime::PrepareBatch(
    const BoundPlanPtr& analyzed,
    const std::vector<std::shared_ptr<const StreamingRelation>>& relations,
    const std::vector<DataSourcePtr>& inputs, const StatefulBatch& batch) {
  WaitForMaintenance();
  batch_ = batch;
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    for (auto& s : stats_) s = EventTimeStats{};
  }
  // Spark's optimizer moves filters below joins and withWatermark (streaming_plan.h).
  const BoundPlanPtr plan = PushDownPredicates(analyzed);
  last_plan_ = plan;
  op_late_ms_ = PropagateWatermarks(*plan, batch.late_watermark_ms);
  op_eviction_ms_ = PropagateWatermarks(*plan, batch.eviction_watermark_ms);
  Rewriter rw{this, &relations, &inputs};
  return rw.Rewrite(plan);
}

Result<std::vector<PlannedStatefulOperator>> StatefulRuntime::PlanStatefulOperators(
    const BoundPlanPtr& analyzed, int num_partitions) {
  // Never touches its file system: the dry run opens no store and writes no schema.
  StatefulRuntime rt(std::make_shared<io::MemoryFileSystem>(), "",
                     state::StateStoreConf{}, num_partitions);
  rt.dry_run_ = true;
  StatefulBatch batch;
  batch.batch_id = 1;  // no initial state is loaded
  rt.batch_ = batch;
  rt.op_late_ms_ = PropagateWatermarks(*analyzed, 0);
  rt.op_eviction_ms_ = rt.op_late_ms_;
  std::vector<std::shared_ptr<const StreamingRelation>> relations;
  std::vector<DataSourcePtr> inputs;
  Rewriter rw{&rt, &relations, &inputs};
  SPATE_RETURN_IF_ERROR(rw.Rewrite(analyzed).status());
  std::vector<PlannedStatefulOperator> out = std::move(rt.planned_);
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.operator_id < b.operator_id; });
  // The names the runtime gives each operator's progress and _metadata/operator.
  for (auto& p : out) {
    const auto& op = rt.ops_[static_cast<size_t>(p.operator_id)];
    p.name = !op->name.empty() ? op->name
             : op->session     ? "sessionWindowStateStoreSaveExec"
                               : StatefulKindName(op->kind);
  }
  return out;
}

Status StatefulRuntime::CommitBatch() {
  progress_.clear();
  for (auto& op : ops_) {
    if (!op) continue;
    StateOperatorProgress p;
    p.operator_name = !op->name.empty() ? op->name
                      : op->session     ? "sessionWindowStateStoreSaveExec"
                                        : StatefulKindName(op->kind);
    auto t = SteadyClock::now();
    // Partitions commit in parallel: each writes (and fsyncs) its own files.
    std::vector<state::StateStoreMetrics> metrics(op->open.size());
    SPATE_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(
        static_cast<int64_t>(op->open.size()), static_cast<int>(op->open.size()),
        [&](int64_t i) -> Status {
          if (!op->StoreInUse(static_cast<int>(i))) return Status::OK();
          state::StateStore* store = op->open[static_cast<size_t>(i)];
          if (!store) {
            // A partition the batch did not run: its version must still move on.
            SPATE_ASSIGN_OR_RETURN(store, op->OpenSlot(static_cast<int>(i)));
          }
          if (op->session && op->rows_total[static_cast<size_t>(i)] < 0)
            op->rows_total[static_cast<size_t>(i)] = CountStoredSessions(store);
          if (IsPackedJoinFormat(op->join_state_format) &&
              op->rows_total[static_cast<size_t>(i)] < 0)
            op->rows_total[static_cast<size_t>(i)] = PackedJoinStoreRows(store);
          SPATE_RETURN_IF_ERROR(store->Commit());
          metrics[static_cast<size_t>(i)] = store->metrics();
          return Status::OK();
        }));
    for (size_t i = 0; i < op->open.size(); ++i) {
      const auto& m = metrics[i];
      const bool counts = op->store_counts_rows[i % op->store_counts_rows.size()];
      if (counts)
        p.num_rows_total += op->rows_total[i] >= 0 ? op->rows_total[i] : m.num_keys;
      p.memory_used_bytes += m.memory_used_bytes;
      for (const auto& [k, v] : m.custom) p.custom_metrics[k] += v;
      op->open[i] = nullptr;
    }
    p.commit_time_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - t)
            .count();
    p.num_rows_updated = op->updated;
    p.num_rows_removed = op->removed;
    p.num_rows_dropped_by_watermark = op->dropped;
    p.all_updates_time_ms = op->update_ns / 1'000'000;
    p.all_removals_time_ms = op->removal_ns / 1'000'000;
    p.num_shuffle_partitions = op->num_partitions;
    p.num_state_store_instances = op->num_slots();
    if (!op->metadata_written) {
      // What the statestore / state-metadata readers need to decode the state
      // (state_data_source.h); written after the first commit of each run.
      StateOperatorMetadata m;
      m.operator_name = p.operator_name;
      m.store_names = op->store_names;
      m.num_partitions = op->num_partitions;
      m.value_prefix_bytes =
          op->kind == StatefulKind::kAggregate && !op->session && op->has_event_time_key
              ? 8
              : 0;
      if (op->kind == StatefulKind::kStreamJoin) {
        m.join_state_format = op->join_state_format;
        if (m.join_state_format == kJoinStateFormatKeyless)
          m.join_key_columns = op->join_key_columns;
      }
      SPATE_RETURN_IF_ERROR(WriteOperatorMetadata(*fs_, root_, op->id, m));
      op->metadata_written = true;
    }
    if (op->kind == StatefulKind::kTransformWithState &&
        p.operator_name.rfind("transformWithState", 0) == 0) {
      // Spark's state schema v3 and operator metadata v2 files (the state variables'
      // schemas, read by the statestore reader's stateVarName): after the first commit of
      // each run, and again when a variable is declared for the first time.
      std::vector<TwsVariable> vars;
      {
        std::lock_guard<std::mutex> lock(op->mu);
        vars = op->tws_vars;
      }
      if (!op->tws_written || vars.size() != op->tws_vars_written) {
        SPATE_RETURN_IF_ERROR(WriteTwsStateMetadata(
            *fs_, root_, op->id, p.operator_name, op->num_partitions, batch_.batch_id,
            TwsColumnFamilies(op->key_schema, vars, op->tws_time_mode),
            TwsOperatorProperties(op->tws_time_mode, op->tws_output_mode, vars)));
        op->tws_written = true;
        op->tws_vars_written = vars.size();
      }
    }
    if (op->kind == StatefulKind::kDeduplicate ||
        op->kind == StatefulKind::kDedupWithinWatermark)
      p.custom_metrics["numDroppedDuplicateRows"] = op->dropped_duplicates;
    progress_.push_back(std::move(p));
  }
  // Snapshots and purges run in the background while the query writes commits/N and plans
  // the next batch; PrepareBatch waits for them before any store is opened again. A
  // failed maintenance only leaves more files to load (Spark logs it and goes on).
  maintenance_ = std::async(std::launch::async, [this] {
    for (auto& op : ops_) {
      if (!op) continue;
      for (auto& provider : op->providers) {
        if (provider) (void)provider->DoMaintenance();
      }
    }
  });
  return Status::OK();
}

void StatefulRuntime::WaitForMaintenance() {
  if (maintenance_.valid()) maintenance_.get();
}

void StatefulRuntime::AbortBatch() {
  for (auto& op : ops_) {
    if (!op) continue;
    for (auto& store : op->open) {
      if (store) store->Abort();
      store = nullptr;
    }
  }
}

std::vector<EventTimeStats> StatefulRuntime::TakeEventTimeStats() {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

std::vector<StateOperatorProgress> StatefulRuntime::Progress() const { return progress_; }

bool StatefulRuntime::HasDueTimers(int64_t now_ms) const {
  for (const auto& op : ops_) {
    if (op && op->processing_time_timers && op->next_timer_ms <= now_ms) return true;
  }
  return false;
}

bool StatefulRuntime::ShouldRunAnotherBatch(int64_t new_watermark_ms) const {
  if (new_watermark_ms <= batch_.eviction_watermark_ms || !last_plan_) return false;
  const std::vector<int64_t> next = PropagateWatermarks(*last_plan_, new_watermark_ms);
  for (const auto& op : ops_) {
    if (!op || !op->has_event_time_key) continue;
    if (op->kind == StatefulKind::kAggregate && batch_.mode == OutputMode::kComplete)
      continue;
    const auto id = static_cast<size_t>(op->id);
    if (id < next.size() && next[id] > op->eviction_watermark_ms) return true;
  }
  return false;
}

}  // namespace spate::stream
