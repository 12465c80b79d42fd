// Copyright spate authors.
#include "spate/stream/stream_join.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "spate/columnar/kernels.h"
#include "spate/exec/exchange.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/filter.h"
#include "spate/exec/join_output.h"
#include "spate/exec/planner.h"
#include "spate/state/row_codec.h"
#include "spate/stream/stateful_internal.h"
#include "spate/stream/streaming_plan.h"

namespace spate::stream {

// NOLINTNEXTLINE(google-build-using-namespace): the stateful operators' shared internals
using namespace stateful_internal;
using sql::BoundPlan;
using sql::BoundPlanPtr;
using sql::JoinType;

namespace {

using Operator = StatefulRuntime::Operator;

constexpr int64_t kNoEventTime = std::numeric_limits<int64_t>::max();
// A stored row: int64 event time (µs; kNoEventTime when NULL / none) | uint8 matched
// (kept up to date only where it is read: a side that emits NULL rows, a semi join's left
// side) | the RowCodec bytes of the side's columns.
constexpr size_t kRowHeader = 9;

struct SideSpec {
  std::vector<BoundExprPtr> keys;
  std::vector<BoundExprPtr> pre_filters;  // conjuncts over this side only
  int event_column = -1;                  // late rows and value cleanup
  bool key_cleanup = false;               // state dropped by the watermarked join key
  std::optional<StateValueWatermark> value_wm;  // else by the row's event time
  bool emits_unmatched = false;                 // an outer side
  SchemaPtr schema;
  std::shared_ptr<state::RowCodec> codec;
  bool has_cleanup() const { return key_cleanup || (value_wm && event_column >= 0); }
};

struct JoinSpec {
  JoinType type = JoinType::kInner;
  bool semi = false;
  SideSpec side[2];
  int key_ordinal = -1;
  std::vector<bool> null_safe;
  std::shared_ptr<state::RowCodec> key_codec;
  std::shared_ptr<exec::JoinOutput>
      pairs;  // inner pairs over left ++ right (full condition)
  std::shared_ptr<exec::JoinOutput> outer;  // the join's type: NULL padding (outer joins)
  SchemaPtr out_schema;
  SchemaPtr padded_right;  // NULL left ++ right: the right side's own conjuncts read it
  std::string text;
};

const char* JoinSideName(int side) { return side == 0 ? "left" : "right"; }

// One side's two stores: key -> (count, key event time); key ++ index -> stored row.
// The store keys and values it builds live in buffers it reuses (no allocation per row).
class SideState {
 public:
  SideState(state::StateStore* counts, state::StateStore* rows)
      : counts_(counts), rows_(rows) {}

  int64_t Count(std::string_view key) {
    auto v = counts_->Get(key);
    return v ? GetInt64(*v) : 0;
  }
  /// The row store's key of the key's row i, in buffer `slot` (valid until its next use).
  std::string_view RowKey(std::string_view key, int64_t i, int slot = 0) {
    std::string& k = scratch_[slot];
    k.assign(key.data(), key.size());
    PutInt64(&k, i);
    return k;
  }
  std::optional<std::string_view> Row(std::string_view key, int64_t i) {
    return rows_->Get(RowKey(key, i));
  }
  void PutCount(std::string_view key, int64_t count, int64_t key_event_us) {
    value_.clear();
    PutInt64(&value_, count);
    PutInt64(&value_, key_event_us);
    counts_->Put(key, value_);
  }
  void Append(std::string_view key, int64_t key_event_us, std::string_view row) {
    const int64_t n = Count(key);
    rows_->Put(RowKey(key, n), row);
    PutCount(key, n + 1, key_event_us);
  }
  void SetMatched(std::string_view key, int64_t i) {
    const std::string_view k = RowKey(key, i);
    auto v = rows_->Get(k);
    if (!v || v->size() < kRowHeader || (*v)[8]) return;
    value_.assign(v->data(), v->size());
    value_[8] = 1;
    rows_->Put(k, value_);
  }
  state::StateStore* counts() { return counts_; }
  state::StateStore* rows() { return rows_; }

 private:
  state::StateStore* counts_;
  state::StateStore* rows_;
  std::string scratch_[2];
  std::string value_;
};

// Stored rows to remove: (join key, index) pairs, in any order.
using RowRefs = std::vector<std::pair<std::string, int64_t>>;

// Removes the rows `gone` from a side's state; the other rows of each key are renumbered.
// Removed rows that never matched go to `unmatched` when given. Returns how many went.
Result<int64_t> RemoveRows(SideState* st, RowRefs gone,
                           state::RowBatchBuilder* unmatched) {
  std::sort(gone.begin(), gone.end());
  gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
  int64_t removed = 0;
  for (size_t g = 0; g < gone.size();) {
    const std::string& key = gone[g].first;
    size_t end = g;
    while (end < gone.size() && gone[end].first == key) ++end;
    auto cv = st->counts()->Get(key);
    if (!cv || cv->size() < 16)
      return Status::Internal("corrupt stream join state count");
    const int64_t count = GetInt64(*cv);
    const int64_t key_event = GetInt64(cv->substr(8));
    if (!unmatched && end - g == static_cast<size_t>(count)) {
      // Every row of the key goes and none is read: no copies, no renumbering.
      for (int64_t i = 0; i < count; ++i) st->rows()->Remove(st->RowKey(key, i));
      st->counts()->Remove(key);
      removed += count;
      g = end;
      continue;
    }
    int64_t kept = 0;
    size_t next_drop = g;  // the indices to drop, ascending
    for (int64_t i = 0; i < count; ++i) {
      while (next_drop < end && gone[next_drop].second < i) ++next_drop;
      const bool drop = next_drop < end && gone[next_drop].second == i;
      const std::string_view rk = st->RowKey(key, i);
      auto v = st->rows()->Get(rk);
      if (!v) continue;
      if (drop) {
        if (unmatched && v->size() >= kRowHeader && !(*v)[8])
          SPATE_RETURN_IF_ERROR(unmatched->Append(v->substr(kRowHeader)));
        ++removed;
        continue;
      }
      if (kept != i) {
        std::string value(*v);
        st->rows()->Put(st->RowKey(key, kept, 1), value);
      }
      ++kept;
    }
    for (int64_t i = kept; i < count; ++i) st->rows()->Remove(st->RowKey(key, i));
    if (kept == 0) {
      st->counts()->Remove(key);
    } else {
      st->PutCount(key, kept, key_event);
    }
    g = end;
  }
  return removed;
}

// Rows of `mask` (a boolean column) that are true, as a byte per row.
void AndMask(const Column& mask, std::vector<uint8_t>* pass) {
  bool all = false;
  std::vector<int32_t> rows = exec::TrueRows(mask, &all);
  if (all) return;
  std::vector<uint8_t> keep(pass->size(), 0);
  for (int32_t r : rows) keep[static_cast<size_t>(r)] = 1;
  for (size_t i = 0; i < pass->size(); ++i) (*pass)[i] &= keep[i];
}

BatchPtr TakeRows(const SchemaPtr& schema, const Batch& b,
                  const std::vector<int32_t>& rows) {
  if (rows.empty()) return nullptr;
  const auto m = static_cast<int64_t>(rows.size());
  std::vector<ColumnPtr> cols;
  for (const auto& c : b.columns()) cols.push_back(Take(*c, rows.data(), m));
  return Batch::Make(schema, std::move(cols), m);
}

// One input batch of one side, with what the join reads off every row.
struct SideBatch {
  BatchPtr batch;
  std::vector<std::string> keys;
  std::vector<uint8_t> key_valid;  // no NULL in a non-null-safe key
  std::vector<int64_t> key_event;  // the watermarked key's event time (µs)
  std::vector<int64_t> row_event;  // the side's event-time column (µs)
  std::vector<uint8_t> late;       // dropped: at or below the late-events watermark
  std::vector<uint8_t> pre;        // passes the side's own conjuncts
};

class StreamJoinExec final : public exec::PhysicalOp {
 public:
  StreamJoinExec(std::shared_ptr<const JoinSpec> spec, Operator* op,
                 const StatefulBatch* batch, exec::PhysicalOpPtr left,
                 exec::PhysicalOpPtr right)
      : PhysicalOp(spec->out_schema, {std::move(left), std::move(right)}),
        s_(std::move(spec)),
        op_(op),
        batch_(batch) {}
  int num_partitions() const override { return child(0).num_partitions(); }
  std::string Describe() const override {
    return s_->text + ", state info [ opId = " + std::to_string(op_->id) +
           ", numPartitions = " + std::to_string(op_->num_partitions) + "]";
  }
  Result<exec::BatchStreamPtr> Open(int partition,
                                    exec::ExecContext* ctx) const override {
    SPATE_ASSIGN_OR_RETURN(auto l, child(0).Open(partition, ctx));
    SPATE_ASSIGN_OR_RETURN(auto r, child(1).Open(partition, ctx));
    auto left = std::shared_ptr<exec::BatchStream>(std::move(l));
    auto right = std::shared_ptr<exec::BatchStream>(std::move(r));
    return exec::BatchStreamPtr(std::make_unique<OnceStream>(
        [this, partition, ctx, left, right]() -> Result<BatchPtr> {
          state::StateStore* stores[4];
          for (int i = 0; i < 4; ++i) {
            SPATE_ASSIGN_OR_RETURN(stores[i], op_->Open(partition, i));
          }
          std::vector<BatchPtr> in[2];
          SPATE_RETURN_IF_ERROR(Drain(left.get(), &in[0]));
          SPATE_RETURN_IF_ERROR(Drain(right.get(), &in[1]));
          SideState st[2] = {SideState(stores[0], stores[1]),
                             SideState(stores[2], stores[3])};
          return Run(in, st, ctx->eval());
        }));
  }

 private:
  Result<BatchPtr> Run(std::vector<BatchPtr> (&in)[2], SideState (&st)[2],
                       const EvalContext& eval) const;
  Result<SideBatch> Prepare(int side, BatchPtr b, const EvalContext& eval) const;
  Status Probe(int side, const SideBatch& sb, SideState* other,
               std::vector<uint8_t>* matched, std::vector<BatchPtr>* outs,
               int64_t* removed, const EvalContext& eval) const;
  // The state threshold (µs) of a side this batch: rows at or below it are dropped.
  std::optional<int64_t> Threshold(int side) const {
    const SideSpec& sd = s_->side[side];
    if (sd.key_cleanup) return WatermarkMicros(op_->eviction_watermark_ms);
    if (sd.value_wm && sd.event_column >= 0)
      return WatermarkMicros(sd.value_wm->At(op_->eviction_watermark_ms));
    return std::nullopt;
  }
  Status Evict(int side, SideState* st, int64_t threshold, std::vector<BatchPtr>* outs,
               int64_t* removed) const;
  BatchPtr PadUnmatched(int side, const Batch& rows,
                        const std::vector<uint8_t>& matched) const {
    return side == 0 ? s_->outer->FinishLeft(rows, matched.data())
                     : s_->outer->UnmatchedRight(rows, matched.data());
  }

  std::shared_ptr<const JoinSpec> s_;
  Operator* op_;
  const StatefulBatch* batch_;
};

Result<SideBatch> StreamJoinExec::Prepare(int side, BatchPtr b,
                                          const EvalContext& eval) const {
  const SideSpec& sd = s_->side[side];
  SideBatch sb;
  const int64_t n = b->num_rows();
  const auto un = static_cast<size_t>(n);
  SPATE_ASSIGN_OR_RETURN(auto key_cols, EvaluateAll(sd.keys, *b, eval));
  const auto raw = Raw(key_cols);
  sb.keys.resize(un);
  sb.key_valid.assign(un, 1);
  sb.key_event.assign(un, kNoEventTime);
  sb.row_event.assign(un, kNoEventTime);
  sb.late.assign(un, 0);
  sb.pre.assign(un, 1);
  for (int64_t r = 0; r < n; ++r) {
    s_->key_codec->Encode(raw, r, &sb.keys[static_cast<size_t>(r)]);
    for (size_t k = 0; k < raw.size(); ++k) {
      if (!s_->null_safe[k] && raw[k]->IsNull(r))
        sb.key_valid[static_cast<size_t>(r)] = 0;
    }
  }
  if (s_->key_ordinal >= 0) {
    const Column& kc = *key_cols[static_cast<size_t>(s_->key_ordinal)];
    for (int64_t r = 0; r < n; ++r) {
      int64_t t = 0;
      if (EventTimeOf(kc, r, &t)) sb.key_event[static_cast<size_t>(r)] = t;
    }
  }
  if (sd.event_column >= 0) {
    const Column& ec = *b->column(sd.event_column);
    const int64_t late_us = WatermarkMicros(op_->late_watermark_ms);
    for (int64_t r = 0; r < n; ++r) {
      int64_t t = 0;
      if (!EventTimeOf(ec, r, &t)) continue;
      sb.row_event[static_cast<size_t>(r)] = t;
      if (t <= late_us) sb.late[static_cast<size_t>(r)] = 1;
    }
  }
  if (!sd.pre_filters.empty()) {
    BatchPtr input = b;
    if (side == 1) {
      std::vector<ColumnPtr> cols;
      for (const auto& f : s_->side[0].schema->fields())
        cols.push_back(Column::MakeNull(f.type, n));
      for (const auto& c : b->columns()) cols.push_back(c);
      input = Batch::Make(s_->padded_right, std::move(cols), n);
    }
    for (const auto& f : sd.pre_filters) {
      SPATE_ASSIGN_OR_RETURN(ColumnPtr mask, f->Evaluate(*input, eval));
      AndMask(*mask, &sb.pre);
    }
  }
  sb.batch = std::move(b);
  return sb;
}

// Joins the eligible rows of `sb` with the other side's stored rows: appends the pairs
// (or the left semi rows) to `outs`, sets matched[r] for the rows of `sb` that matched
// and marks the stored rows that matched.
Status StreamJoinExec::Probe(int side, const SideBatch& sb, SideState* other,
                             std::vector<uint8_t>* matched, std::vector<BatchPtr>* outs,
                             int64_t* removed, const EvalContext& eval) const {
  const int other_side = 1 - side;
  const Batch& in = *sb.batch;
  const int64_t n = in.num_rows();
  matched->assign(static_cast<size_t>(n), 0);
  // Left semi, right input: stored left rows that already matched were emitted already.
  const bool exclude_matched = s_->semi && side == 1;
  state::RowBatchBuilder cand(*s_->side[other_side].codec);
  std::vector<const std::string*> cand_key;
  std::vector<int64_t> cand_index;
  std::vector<uint8_t> cand_stored_matched;
  std::unordered_map<std::string_view, std::pair<int32_t, int32_t>> fetched;
  std::vector<int32_t> probe_rows, cand_rows;
  for (int64_t r = 0; r < n; ++r) {
    const auto ur = static_cast<size_t>(r);
    if (sb.late[ur] || !sb.pre[ur] || !sb.key_valid[ur]) continue;
    const std::string& key = sb.keys[ur];
    auto it = fetched.find(key);
    if (it == fetched.end()) {
      const auto first = static_cast<int32_t>(cand_key.size());
      const int64_t count = other->Count(key);
      for (int64_t i = 0; i < count; ++i) {
        auto v = other->Row(key, i);
        if (!v || v->size() < kRowHeader)
          return Status::Internal("corrupt stream join state row");
        const bool was_matched = (*v)[8] != 0;
        if (exclude_matched && was_matched) continue;
        SPATE_RETURN_IF_ERROR(cand.Append(v->substr(kRowHeader)));
        cand_key.push_back(&key);
        cand_index.push_back(i);
        cand_stored_matched.push_back(was_matched ? 1 : 0);
      }
      it = fetched
               .emplace(key, std::make_pair(
                                 first, static_cast<int32_t>(cand_key.size()) - first))
               .first;
    }
    for (int32_t c = it->second.first; c < it->second.first + it->second.second; ++c) {
      probe_rows.push_back(static_cast<int32_t>(r));
      cand_rows.push_back(c);
    }
  }
  if (probe_rows.empty()) return Status::OK();
  SPATE_ASSIGN_OR_RETURN(BatchPtr stored, cand.Finish());
  std::vector<uint8_t> cand_matched(cand_key.size(), 0);
  BatchPtr joined;
  if (side == 0) {
    SPATE_ASSIGN_OR_RETURN(
        joined, s_->pairs->Pairs(in, *stored, probe_rows, cand_rows, matched->data(),
                                 cand_matched.data(), eval));
  } else {
    SPATE_ASSIGN_OR_RETURN(
        joined, s_->pairs->Pairs(*stored, in, cand_rows, probe_rows, cand_matched.data(),
                                 matched->data(), eval));
  }
  std::vector<int32_t> newly;
  RowRefs emitted;
  // The matched flag is read only where unmatched rows get NULL rows (and by semi joins).
  const bool track_matched = s_->side[other_side].emits_unmatched;
  for (size_t c = 0; c < cand_matched.size(); ++c) {
    if (!cand_matched[c] || cand_stored_matched[c]) continue;
    newly.push_back(static_cast<int32_t>(c));
    if (exclude_matched) {
      emitted.emplace_back(*cand_key[c], cand_index[c]);
    } else if (track_matched) {
      other->SetMatched(*cand_key[c], cand_index[c]);
    }
  }
  if (!s_->semi) {
    if (joined && joined->num_rows() > 0) outs->push_back(std::move(joined));
  } else if (side == 1) {
    // Left semi: a stored left row is emitted the first time a right row matches it and
    // then leaves the state (as Spark 4.2, counted as removed).
    if (BatchPtr b = TakeRows(s_->out_schema, *stored, newly))
      outs->push_back(std::move(b));
    SPATE_ASSIGN_OR_RETURN(int64_t n, RemoveRows(other, std::move(emitted), nullptr));
    *removed += n;
  }
  return Status::OK();
}

Status StreamJoinExec::Evict(int side, SideState* st, int64_t threshold,
                             std::vector<BatchPtr>* outs, int64_t* removed) const {
  const SideSpec& sd = s_->side[side];
  const bool emit = sd.emits_unmatched;
  state::RowBatchBuilder unmatched(*sd.codec);
  *removed = 0;
  if (sd.key_cleanup) {
    std::vector<std::pair<std::string, int64_t>> gone;
    st->counts()->ForEach([&](std::string_view key, std::string_view v) {
      if (v.size() >= 16 && GetInt64(v.substr(8)) <= threshold)
        gone.emplace_back(key, GetInt64(v));
    });
    for (const auto& [key, count] : gone) {
      for (int64_t i = 0; i < count; ++i) {
        const std::string_view rk = st->RowKey(key, i);
        if (emit) {
          auto v = st->rows()->Get(rk);
          if (v && v->size() >= kRowHeader && !(*v)[8])
            SPATE_RETURN_IF_ERROR(unmatched.Append(v->substr(kRowHeader)));
        }
        st->rows()->Remove(rk);
      }
      st->counts()->Remove(key);
      *removed += count;
    }
  } else {
    // By the rows' event times: the keys that lose rows keep the others, renumbered.
    RowRefs gone;
    st->rows()->ForEach([&](std::string_view k, std::string_view v) {
      if (k.size() < 8 || v.size() < kRowHeader || GetInt64(v) > threshold) return;
      gone.emplace_back(std::string(k.substr(0, k.size() - 8)),
                        GetInt64(k.substr(k.size() - 8)));
    });
    SPATE_ASSIGN_OR_RETURN(*removed,
                           RemoveRows(st, std::move(gone), emit ? &unmatched : nullptr));
  }
  if (emit && unmatched.num_rows() > 0) {
    SPATE_ASSIGN_OR_RETURN(BatchPtr rows, unmatched.Finish());
    std::vector<uint8_t> none(static_cast<size_t>(rows->num_rows()), 0);
    if (BatchPtr b = PadUnmatched(side, *rows, none)) outs->push_back(std::move(b));
  }
  return Status::OK();
}

Result<BatchPtr> StreamJoinExec::Run(std::vector<BatchPtr> (&in)[2], SideState (&st)[2],
                                     const EvalContext& eval) const {
  auto t_update = SteadyClock::now();
  std::vector<BatchPtr> outs;
  int64_t updated = 0, dropped = 0, removed = 0;
  std::string row;
  // Left semi takes the right input first (as Spark 4.2): a new left row that matches a
  // right row of the same batch is then emitted on arrival and never stored.
  const int order[2] = {s_->semi ? 1 : 0, s_->semi ? 0 : 1};
  for (int side : order) {
    const SideSpec& sd = s_->side[side];
    const std::optional<int64_t> threshold = Threshold(side);
    for (auto& b : in[side]) {
      SPATE_ASSIGN_OR_RETURN(SideBatch sb, Prepare(side, std::move(b), eval));
      std::vector<uint8_t> matched;
      SPATE_RETURN_IF_ERROR(
          Probe(side, sb, &st[1 - side], &matched, &outs, &removed, eval));
      const Batch& batch = *sb.batch;
      const int64_t n = batch.num_rows();
      std::vector<int32_t> semi_rows;
      std::vector<uint8_t> no_outer(static_cast<size_t>(n), 1);
      bool any_outer = false;
      const auto cols = Raw(batch.columns());
      for (int64_t r = 0; r < n; ++r) {
        const auto ur = static_cast<size_t>(r);
        if (sb.late[ur]) {
          ++dropped;
          continue;
        }
        if (!sb.pre[ur]) {
          // Can never match: an outer side emits it with NULLs now; it is not stored.
          if (sd.emits_unmatched) {
            no_outer[ur] = 0;
            any_outer = true;
          }
          continue;
        }
        if (s_->semi && side == 0 && matched[ur]) {
          semi_rows.push_back(static_cast<int32_t>(r));
          continue;  // emitted once, never stored
        }
        // A NULL key never matches: only an outer side needs such a row (for its NULL
        // row).
        if (!sb.key_valid[ur] && !sd.emits_unmatched) continue;
        if (side == 1 && threshold) {
          // Dropped by this very batch's cleanup: stored only for its outer NULL row.
          const int64_t t = sd.key_cleanup ? sb.key_event[ur] : sb.row_event[ur];
          const bool evicting = t <= *threshold;
          if (evicting && !(sd.emits_unmatched && !matched[ur])) continue;
        }
        row.clear();
        PutInt64(&row, sb.row_event[ur]);
        row.push_back(matched[ur] ? 1 : 0);
        sd.codec->Encode(cols, r, &row);
        st[side].Append(sb.keys[ur], sb.key_event[ur], row);
        ++updated;
      }
      if (BatchPtr b = TakeRows(s_->out_schema, batch, semi_rows))
        outs.push_back(std::move(b));
      if (any_outer) {
        if (BatchPtr b = PadUnmatched(side, batch, no_outer))
          outs.push_back(std::move(b));
      }
    }
  }
  const int64_t update_ns = NanosSince(t_update);
  auto t_remove = SteadyClock::now();
  for (int side = 0; side < 2; ++side) {
    const std::optional<int64_t> threshold = Threshold(side);
    if (!threshold) continue;
    int64_t n = 0;
    SPATE_RETURN_IF_ERROR(Evict(side, &st[side], *threshold, &outs, &n));
    // As Spark: rows an outer side drops while emitting its NULL rows are not counted.
    if (!s_->side[side].emits_unmatched) removed += n;
  }
  op_->AddMetrics(updated, removed, dropped, update_ns, NanosSince(t_remove), 0);
  if (outs.empty()) return BatchPtr();
  if (outs.size() == 1) return outs[0];
  return ConcatBatches(s_->out_schema, outs);
}

class StreamJoinExtension final : public exec::PhysicalExtension {
 public:
  StreamJoinExtension(std::shared_ptr<const JoinSpec> spec, Operator* op,
                      const StatefulBatch* batch)
      : s_(std::move(spec)), op_(op), batch_(batch) {}
  std::string Describe() const override {
    return "StreamingSymmetricHashJoin opId=" + std::to_string(op_->id);
  }
  Result<exec::PhysicalOpPtr> PlanPhysical(std::vector<exec::PhysicalOpPtr> children,
                                           const exec::ExecOptions&) const override {
    auto l = std::make_shared<exec::Exchange>(exec::Partitioning::kHash, s_->side[0].keys,
                                              op_->num_partitions, children.at(0));
    auto r = std::make_shared<exec::Exchange>(exec::Partitioning::kHash, s_->side[1].keys,
                                              op_->num_partitions, children.at(1));
    return exec::PhysicalOpPtr(std::make_shared<StreamJoinExec>(s_, op_, batch_, l, r));
  }

 private:
  std::shared_ptr<const JoinSpec> s_;
  Operator* op_;
  const StatefulBatch* batch_;
};

std::string KeysText(const std::vector<BoundExprPtr>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i]->ToString();
  return out + "]";
}

std::vector<Field> KeyFields(const BoundPlan& join) {
  std::vector<Field> fields;
  for (size_t i = 0; i < join.left_keys.size(); ++i)
    fields.push_back(Field{"field" + std::to_string(i), join.left_keys[i]->type(), true});
  return fields;
}

}  // namespace

const std::vector<std::string>& StreamJoinStoreNames() {
  static const std::vector<std::string> kNames = {
      "left-keyToNumValues", "left-keyWithIndexToValue", "right-keyToNumValues",
      "right-keyWithIndexToValue"};
  return kNames;
}

void StreamJoinStateSchemas(const BoundPlan& join, SchemaPtr* key_schema,
                            SchemaPtr* value_schema) {
  *key_schema = std::make_shared<const Schema>(KeyFields(join));
  std::vector<Field> values;
  for (int side = 0; side < 2; ++side) {
    for (const auto& a : join.children[static_cast<size_t>(side)]->output) {
      Field f = a.ToField();
      f.name = std::string(JoinSideName(side)) + "." + f.name;
      values.push_back(std::move(f));
    }
  }
  *value_schema = std::make_shared<const Schema>(std::move(values));
}

Result<BoundPlanPtr> PlanStreamJoin(const BoundPlan& join, Operator* op,
                                    const StatefulBatch* batch, BoundPlanPtr left,
                                    BoundPlanPtr right) {
  // Spark's StreamingJoinStrategy: planned when the first batch runs, the query then
  // fails.
  if (join.left_keys.empty()) return Status::Error("_LEGACY_ERROR_TEMP_1181", {});
  if (join.left_keys.size() != join.right_keys.size())
    return Status::Internal("join key lists differ in length");
  for (size_t i = 0; i < join.left_keys.size(); ++i) {
    if (!join.left_keys[i]->type()->Equals(*join.right_keys[i]->type()))
      return Status::Internal("stream-stream join keys of different types");
  }
  auto s = std::make_shared<JoinSpec>();
  s->type = join.join_type == JoinType::kCross ? JoinType::kInner : join.join_type;
  s->semi = s->type == JoinType::kLeftSemi;
  s->out_schema = join.OutputSchema();
  s->null_safe = join.null_safe_keys;
  s->null_safe.resize(join.left_keys.size(), false);
  s->key_codec =
      std::make_shared<state::RowCodec>(std::make_shared<const Schema>(KeyFields(join)),
                                        /*normalize_floats=*/true);
  const StreamJoinWatermarks w = AnalyzeStreamJoin(join);
  s->key_ordinal = w.key_ordinal;
  for (int side = 0; side < 2; ++side) {
    SideSpec& sd = s->side[side];
    sd.keys = side == 0 ? join.left_keys : join.right_keys;
    sd.schema = join.children[static_cast<size_t>(side)]->OutputSchema();
    sd.codec = std::make_shared<state::RowCodec>(sd.schema);
    sd.event_column = w.event_column[side];
    sd.key_cleanup = w.key_ordinal >= 0;
    if (!sd.key_cleanup) sd.value_wm = w.value[side];
  }
  s->side[0].emits_unmatched =
      s->type == JoinType::kLeftOuter || s->type == JoinType::kFullOuter;
  s->side[1].emits_unmatched =
      s->type == JoinType::kRightOuter || s->type == JoinType::kFullOuter;
  // The condition's deterministic conjuncts over one side only filter that side's rows
  // before the join (Spark's JoinConditionSplitPredicates); pairs are checked against the
  // whole condition (the one-side parts hold for both rows of any pair).
  const int lw = s->side[0].schema->num_fields();
  std::vector<BoundExprPtr> conjuncts;
  SplitConjuncts(join.condition, &conjuncts);
  for (const auto& c : conjuncts) {
    if (c->IsNondeterministic()) continue;
    std::vector<int> refs;
    CollectColumnRefs(*c, &refs);
    const bool left_only =
        std::all_of(refs.begin(), refs.end(), [&](int r) { return r < lw; });
    const bool right_only =
        std::all_of(refs.begin(), refs.end(), [&](int r) { return r >= lw; });
    if (left_only) {
      s->side[0].pre_filters.push_back(c);
    } else if (right_only) {
      s->side[1].pre_filters.push_back(c);
    }
  }
  std::vector<Field> both = s->side[0].schema->fields();
  for (const auto& f : s->side[1].schema->fields()) both.push_back(f);
  s->padded_right = std::make_shared<const Schema>(both);
  SchemaPtr pair_schema = s->semi ? s->padded_right : s->out_schema;
  s->pairs = std::make_shared<exec::JoinOutput>(JoinType::kInner, join.condition,
                                                s->side[0].schema, s->side[1].schema,
                                                pair_schema);
  if (s->side[0].emits_unmatched || s->side[1].emits_unmatched) {
    s->outer = std::make_shared<exec::JoinOutput>(s->type, nullptr, s->side[0].schema,
                                                  s->side[1].schema, s->out_schema);
  }
  std::string cleanup = "state cleanup [";
  for (int side = 0; side < 2; ++side) {
    const SideSpec& sd = s->side[side];
    cleanup += std::string(side ? ", " : " ") + JoinSideName(side) + " ";
    cleanup += sd.key_cleanup     ? "key predicate"
               : sd.has_cleanup() ? "value predicate"
                                  : "= null";
  }
  s->text = "StreamingSymmetricHashJoin " + KeysText(join.left_keys) + ", " +
            KeysText(join.right_keys) + ", " +
            std::string(sql::JoinTypeDisplay(s->type)) + ", condition = [ " +
            (join.condition ? join.condition->ToString() : "none") + " ], " + cleanup +
            " ]";
  auto ext = std::make_shared<StreamJoinExtension>(s, op, batch);
  auto n = std::make_shared<BoundPlan>(sql::BoundKind::kExtension);
  n->extension = std::move(ext);
  n->output = join.output;
  n->children = {std::move(left), std::move(right)};
  return BoundPlanPtr(n);
}

}  // namespace spate::stream
