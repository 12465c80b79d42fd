// Copyright spate authors.
#include "spate/stream/stream_join.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "spate/columnar/kernels.h"
#include "spate/columnar/row_encoding.h"
#include "spate/exec/exchange.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/filter.h"
#include "spate/exec/join_output.h"
#include "spate/exec/planner.h"
#include "spate/exec/row_hash.h"
#include "spate/state/bytes.h"
#include "spate/state/hashed_lookup.h"
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

// Reads a row's event time out of its RowCodec bytes when every field before the event
// column has a fixed width (the packed layout then stores no separate event time).
struct RowEventReader {
  int field = 0;                // the event column
  size_t bitmap_bytes = 0;      // the row's null bitmap
  std::vector<uint8_t> widths;  // bytes of each field before it (when not NULL)
  /// A reader for `schema`'s int64 column `field`, or nullopt.
  static std::optional<RowEventReader> For(const Schema& schema, int field) {
    RowEventReader r;
    r.field = field;
    r.bitmap_bytes = (static_cast<size_t>(schema.num_fields()) + 7) / 8;
    const TypeId event = schema.field(field).type->id();
    if (event != TypeId::kTimestamp && event != TypeId::kTimestampNtz &&
        event != TypeId::kLong)
      return std::nullopt;
    for (int f = 0; f < field; ++f) {
      const DataType& t = *schema.field(f).type;
      switch (t.id()) {
        case TypeId::kNull:
          r.widths.push_back(0);
          break;
        case TypeId::kBoolean:
        case TypeId::kByte:
          r.widths.push_back(1);
          break;
        case TypeId::kShort:
          r.widths.push_back(2);
          break;
        case TypeId::kInt:
        case TypeId::kDate:
        case TypeId::kFloat:
          r.widths.push_back(4);
          break;
        case TypeId::kLong:
        case TypeId::kTimestamp:
        case TypeId::kTimestampNtz:
        case TypeId::kDouble:
          r.widths.push_back(8);
          break;
        default:
          return std::nullopt;
      }
    }
    return r;
  }
  /// The event time of a row (kNoEventTime when NULL or the row is too short).
  int64_t Read(std::string_view row) const {
    auto null = [&](int f) {
      return (static_cast<uint8_t>(row[static_cast<size_t>(f / 8)]) >> (f % 8)) & 1;
    };
    if (row.size() < bitmap_bytes || null(field)) return kNoEventTime;
    size_t at = bitmap_bytes;
    for (int f = 0; f < field; ++f) {
      if (!null(f)) at += widths[static_cast<size_t>(f)];
    }
    return row.size() >= at + 8 ? GetInt64(row.substr(at)) : kNoEventTime;
  }
};

struct SideSpec {
  std::vector<BoundExprPtr> keys;
  std::vector<BoundExprPtr> pre_filters;  // conjuncts over this side only
  int event_column = -1;                  // late rows and value cleanup
  bool key_cleanup = false;               // state dropped by the watermarked join key
  std::optional<StateValueWatermark> value_wm;  // else by the row's event time
  bool emits_unmatched = false;                 // an outer side
  std::optional<RowEventReader> row_event;      // the event time from the row's bytes
  SchemaPtr schema;
  std::shared_ptr<const JoinRowLayout> layout;  // what the stored rows hold
  bool has_cleanup() const { return key_cleanup || (value_wm && event_column >= 0); }
};

struct JoinSpec {
  int format = kJoinStateFormatPacked;  // the state layout (stream_join.h)
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

// A stored row of a side, as the probe reads it: index among its key's rows, whether it
// matched, its RowCodec bytes (a view valid until the side's next change).
using StoredRow = PackedJoinRow;

// Calls fn(matched, body) for each row of the packed entry `value` (format 2), `body`
// being the row's bytes after its length: [event time] + RowCodec bytes. False when the
// entry is malformed.
template <typename Fn>
bool ForEachPackedRow(std::string_view value, Fn&& fn) {
  if (value.empty()) return false;
  const auto flags = static_cast<uint8_t>(value[0]);
  if (flags & ~3u) return false;
  const size_t start = (flags & 1) ? 9 : 1;
  if (value.size() < start) return false;
  state::ByteReader r(value.substr(start));
  while (!r.at_end()) {
    uint64_t head = 0;
    std::string_view body;
    if (!r.ReadVarint(&head) || !r.ReadBytes(static_cast<size_t>(head >> 1), &body))
      return false;
    fn((head & 1) != 0, body);
  }
  return true;
}

// A row to store: its event time, matched flag and RowCodec bytes.
struct NewRow {
  int64_t event;
  bool matched;
  std::string_view row;
};

// Stored rows to remove: (join key, index) pairs, in any order.
using RowRefs = std::vector<std::pair<std::string, int64_t>>;

// Sorts `refs`, drops repeats and calls fn(key, begin, end) per key, [begin, end) being
// the key's refs (indices ascending). Stops at the first error.
template <typename Fn>
Status ForEachKeyOf(RowRefs* refs, Fn&& fn) {
  std::sort(refs->begin(), refs->end());
  refs->erase(std::unique(refs->begin(), refs->end()), refs->end());
  for (size_t g = 0; g < refs->size();) {
    const std::string& key = (*refs)[g].first;
    size_t end = g;
    while (end < refs->size() && (*refs)[end].first == key) ++end;
    SPATE_RETURN_IF_ERROR(fn(key, g, end));
    g = end;
  }
  return Status::OK();
}

// One side's state in one partition, in one of the layouts of stream_join.h. The store
// keys and values it builds live in buffers it reuses (no allocation per row).
class SideState {
 public:
  virtual ~SideState() = default;
  // `hash` is HashBytes(key) (state/hashed_lookup.h): a key is hashed once.
  /// The stored rows of `key`, in index order.
  virtual Status Rows(std::string_view key, uint64_t hash,
                      std::vector<StoredRow>* out) = 0;
  /// Appends rows to `key` (all with the key's event time `key_event_us`).
  virtual Status Append(std::string_view key, uint64_t hash, int64_t key_event_us,
                        const NewRow* rows, size_t n) = 0;
  /// Marks the rows `indices` (ascending) of `key` as matched.
  virtual Status SetMatched(std::string_view key, const int64_t* indices, size_t n) = 0;
  /// Removes the rows `gone`; the other rows of each key are renumbered. Removed rows
  /// that never matched go to `unmatched` when given. Returns how many went.
  virtual Result<int64_t> RemoveRows(RowRefs gone, JoinRowsBuilder* unmatched) = 0;
  /// Removes the rows at or below `threshold`: by the key's event time (`by_key`) or
  /// the rows' own. Returns how many went.
  virtual Result<int64_t> Evict(bool by_key, int64_t threshold,
                                JoinRowsBuilder* unmatched) = 0;
  /// Ends the batch; the side's row count when the layout keeps one, else -1.
  virtual Result<int64_t> Finish() = 0;
  /// A hint that `key` is looked up soon (StateStore::Prefetch).
  virtual void Prefetch(std::string_view key, uint64_t hash, bool near) = 0;
};

// Lookups this many keys ahead fetch the hash slot, and this many the entry.
constexpr size_t kSlotAhead = 16, kEntryAhead = 8;

// Calls prefetch(i + kSlotAhead, false) and prefetch(i + kEntryAhead, true) of n keys
// (by their index j).
template <typename Prefetch>
void PrefetchAhead(size_t i, size_t n, Prefetch&& prefetch) {
  if (i + kSlotAhead < n) prefetch(i + kSlotAhead, false);
  if (i + kEntryAhead < n) prefetch(i + kEntryAhead, true);
}

// Spark's layout (kJoinStateFormatSpark): key -> (count, key event time) and
// key ++ index -> (row event time, matched, row).
class SparkSide final : public SideState {
 public:
  SparkSide(state::StateStore* counts, state::StateStore* rows)
      : counts_(counts), rows_(rows) {}

  Status Rows(std::string_view key, uint64_t /*hash*/,
              std::vector<StoredRow>* out) override {
    out->clear();
    const int64_t count = Count(key);
    // A store's view lasts until its next Get (RocksDB): the rows are copied.
    rows_buf_.clear();
    std::vector<size_t> ends;
    for (int64_t i = 0; i < count; ++i) {
      auto v = rows_->Get(RowKey(key, i));
      if (!v || v->size() < kRowHeader)
        return Status::Internal("corrupt stream join state row");
      out->push_back({i, (*v)[8] != 0, GetInt64(*v), {}});
      rows_buf_.append(v->substr(kRowHeader));
      ends.push_back(rows_buf_.size());
    }
    size_t begin = 0;
    for (size_t i = 0; i < out->size(); ++i) {
      (*out)[i].row = std::string_view(rows_buf_).substr(begin, ends[i] - begin);
      begin = ends[i];
    }
    return Status::OK();
  }
  Status Append(std::string_view key, uint64_t /*hash*/, int64_t key_event_us,
                const NewRow* rows, size_t n) override {
    const int64_t count = Count(key);
    for (size_t j = 0; j < n; ++j) {
      value_.clear();
      PutInt64(&value_, rows[j].event);
      value_.push_back(rows[j].matched ? 1 : 0);
      value_.append(rows[j].row);
      rows_->Put(RowKey(key, count + static_cast<int64_t>(j)), value_);
    }
    PutCount(key, count + static_cast<int64_t>(n), key_event_us);
    return Status::OK();
  }
  Status SetMatched(std::string_view key, const int64_t* indices, size_t n) override {
    for (size_t j = 0; j < n; ++j) {
      const std::string_view k = RowKey(key, indices[j]);
      auto v = rows_->Get(k);
      if (!v || v->size() < kRowHeader || (*v)[8]) continue;
      value_.assign(v->data(), v->size());
      value_[8] = 1;
      rows_->Put(k, value_);
    }
    return Status::OK();
  }
  Result<int64_t> RemoveRows(RowRefs gone, JoinRowsBuilder* unmatched) override;
  Result<int64_t> Evict(bool by_key, int64_t threshold,
                        JoinRowsBuilder* unmatched) override;
  Result<int64_t> Finish() override { return -1; }  // the row store's key count
  void Prefetch(std::string_view key, uint64_t /*hash*/, bool near) override {
    counts_->Prefetch(key, near);
  }

 private:
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
  void PutCount(std::string_view key, int64_t count, int64_t key_event_us) {
    value_.clear();
    PutInt64(&value_, count);
    PutInt64(&value_, key_event_us);
    counts_->Put(key, value_);
  }

  state::StateStore* counts_;
  state::StateStore* rows_;
  std::string scratch_[2];
  std::string value_;
  std::string rows_buf_;  // the bytes of the rows Rows() returned
};

Result<int64_t> SparkSide::RemoveRows(RowRefs gone, JoinRowsBuilder* unmatched) {
  int64_t removed = 0;
  SPATE_RETURN_IF_ERROR(
      ForEachKeyOf(&gone, [&](const std::string& key, size_t g, size_t end) -> Status {
        auto cv = counts_->Get(key);
        if (!cv || cv->size() < 16)
          return Status::Internal("corrupt stream join state count");
        const int64_t count = GetInt64(*cv);
        const int64_t key_event = GetInt64(cv->substr(8));
        if (!unmatched && end - g == static_cast<size_t>(count)) {
          // Every row of the key goes and none is read: no copies, no renumbering.
          for (int64_t i = 0; i < count; ++i) rows_->Remove(RowKey(key, i));
          counts_->Remove(key);
          removed += count;
          return Status::OK();
        }
        int64_t kept = 0;
        size_t next_drop = g;  // the indices to drop, ascending
        for (int64_t i = 0; i < count; ++i) {
          while (next_drop < end && gone[next_drop].second < i) ++next_drop;
          const bool drop = next_drop < end && gone[next_drop].second == i;
          const std::string_view rk = RowKey(key, i);
          auto v = rows_->Get(rk);
          if (!v) continue;
          if (drop) {
            if (unmatched && v->size() >= kRowHeader && !(*v)[8])
              SPATE_RETURN_IF_ERROR(unmatched->Append(key, v->substr(kRowHeader)));
            ++removed;
            continue;
          }
          if (kept != i) {
            std::string value(*v);
            rows_->Put(RowKey(key, kept, 1), value);
          }
          ++kept;
        }
        for (int64_t i = kept; i < count; ++i) rows_->Remove(RowKey(key, i));
        if (kept == 0) {
          counts_->Remove(key);
        } else {
          PutCount(key, kept, key_event);
        }
        return Status::OK();
      }));
  return removed;
}

Result<int64_t> SparkSide::Evict(bool by_key, int64_t threshold,
                                 JoinRowsBuilder* unmatched) {
  if (!by_key) {
    // By the rows' event times: the keys that lose rows keep the others, renumbered.
    RowRefs gone;
    rows_->ForEach([&](std::string_view k, std::string_view v) {
      if (k.size() < 8 || v.size() < kRowHeader || GetInt64(v) > threshold) return;
      gone.emplace_back(std::string(k.substr(0, k.size() - 8)),
                        GetInt64(k.substr(k.size() - 8)));
    });
    return RemoveRows(std::move(gone), unmatched);
  }
  std::vector<std::pair<std::string, int64_t>> gone;
  counts_->ForEach([&](std::string_view key, std::string_view v) {
    if (v.size() >= 16 && GetInt64(v.substr(8)) <= threshold)
      gone.emplace_back(key, GetInt64(v));
  });
  int64_t removed = 0;
  for (const auto& [key, count] : gone) {
    for (int64_t i = 0; i < count; ++i) {
      const std::string_view rk = RowKey(key, i);
      if (unmatched) {
        auto v = rows_->Get(rk);
        if (v && v->size() >= kRowHeader && !(*v)[8])
          SPATE_RETURN_IF_ERROR(unmatched->Append(key, v->substr(kRowHeader)));
      }
      rows_->Remove(rk);
    }
    counts_->Remove(key);
    removed += count;
  }
  return removed;
}

// The packed layout (kJoinStateFormatPacked): one entry per key with all its rows, and
// the row count under the empty key.
class PackedSide final : public SideState {
 public:
  /// `low_of` for a side evicted by the key's event time.
  static constexpr int32_t kLowOfKey = -2;
  /// `key_event`: entries keep the key's event time; `row_events`: new entries keep
  /// each row's event time, unless `events` reads it from the row's bytes. `low_of`
  /// names the event time eviction compares (kLowOfKey: the key's, else the side's
  /// column).
  PackedSide(state::StateStore* store, bool key_event, bool row_events,
             const RowEventReader* events, int32_t low_of)
      : store_(store),
        hashed_(dynamic_cast<state::HashedLookup*>(store)),
        key_event_(key_event),
        row_events_(row_events && !events),
        events_(events),
        low_of_(low_of) {
    auto v = store_->Get(std::string_view());
    total_ = loaded_total_ = v ? GetInt64(*v) : 0;
    if (v && v->size() == kCountWithLow && GetInt32(v->substr(16)) == low_of_) {
      low_ = loaded_low_ = GetInt64(v->substr(8));
    } else if (!v && store_->version() == 0) {
      low_ = kNoEventTime;  // nothing is stored yet
    }
  }

  Status Rows(std::string_view key, uint64_t hash, std::vector<StoredRow>* out) override {
    out->clear();
    auto v = Get(key, hash);
    if (!v) return Status::OK();
    return Parse(*v, out);
  }
  Status Append(std::string_view key, uint64_t hash, int64_t key_event_us,
                const NewRow* rows, size_t n) override {
    auto v = Get(key, hash);
    value_.clear();
    if (v) {
      value_.assign(v->data(), v->size());
    } else {
      value_.push_back(static_cast<char>((row_events_ ? kRowEvents : 0) |
                                         (key_event_ ? kKeyEvent : 0)));
      if (key_event_) PutInt64(&value_, key_event_us);
    }
    const bool row_events = (value_[0] & kRowEvents) != 0;
    for (size_t j = 0; j < n; ++j) {
      AppendRow(&value_, row_events, rows[j].event, rows[j].matched, rows[j].row);
      if (low_)
        *low_ = std::min(*low_, low_of_ == kLowOfKey ? key_event_us : rows[j].event);
    }
    store_->Put(key, value_);
    total_ += static_cast<int64_t>(n);
    return Status::OK();
  }
  Status SetMatched(std::string_view key, const int64_t* indices, size_t n) override {
    auto v = store_->Get(key);
    if (!v) return Status::OK();
    value_.assign(v->data(), v->size());
    SPATE_ASSIGN_OR_RETURN(size_t pos, RowsStart(value_));
    size_t j = 0;
    bool changed = false;
    for (int64_t i = 0; pos < value_.size() && j < n; ++i) {
      state::ByteReader r(std::string_view(value_).substr(pos));
      uint64_t head = 0;
      if (!r.ReadVarint(&head) || (head >> 1) > r.remaining())
        return Status::Internal("corrupt stream join state entry");
      if (indices[j] == i) {
        // The flag is the varint's lowest bit, in its first byte.
        if (!(head & 1)) {
          value_[pos] = static_cast<char>(value_[pos] | 1);
          changed = true;
        }
        ++j;
      }
      pos = value_.size() - r.remaining() + (head >> 1);
    }
    if (changed) store_->Put(key, value_);
    return Status::OK();
  }
  Result<int64_t> RemoveRows(RowRefs gone, JoinRowsBuilder* unmatched) override {
    int64_t removed = 0;
    SPATE_RETURN_IF_ERROR(
        ForEachKeyOf(&gone, [&](const std::string& key, size_t g, size_t end) -> Status {
          auto v = store_->Get(key);
          if (!v) return Status::OK();
          size_t next = g;
          SPATE_ASSIGN_OR_RETURN(
              int64_t n, Rewrite(key, *v, unmatched, &value_, [&](const StoredRow& row) {
                while (next < end && gone[next].second < row.index) ++next;
                return next < end && gone[next].second == row.index;
              }));
          removed += n;
          if (n > 0) Store(key);
          return Status::OK();
        }));
    total_ -= removed;
    return removed;
  }
  Result<int64_t> Evict(bool by_key, int64_t threshold,
                        JoinRowsBuilder* unmatched) override {
    using state::EntryRewrite;
    // Nothing stored is at or below the threshold: no entry need be read.
    if (low_ && *low_ > threshold) return 0;
    int64_t removed = 0;
    int64_t low = kNoEventTime;  // the lowest event time that stays
    Status st;
    // One pass: each entry is read once and, when it loses rows, rewritten or removed
    // where it is (no lookup per changed key in the memory store).
    store_->RewriteEach(
        [&](std::string_view key, std::string_view v, std::string* replacement) {
          if (key.empty() || !st.ok()) return EntryRewrite::kKeep;
          auto corrupt = [&] {
            st = Status::Internal("corrupt stream join state entry");
            return EntryRewrite::kKeep;
          };
          if (by_key) {
            if (v.size() < 9 || !(v[0] & kKeyEvent)) return EntryRewrite::kKeep;
            if (const int64_t t = GetInt64(v.substr(1)); t > threshold) {
              low = std::min(low, t);
              return EntryRewrite::kKeep;
            }
            if (!unmatched) {
              // Every row goes and none is read: count them.
              int64_t rows = 0;
              if (!ForEachPackedRow(v, [&](bool, std::string_view) { ++rows; }))
                return corrupt();
              removed += rows;
              return EntryRewrite::kRemove;
            }
          } else {
            // Most entries keep every row: look at the event times first.
            if (v.empty()) return corrupt();
            bool any = false;
            const bool row_events = (v[0] & kRowEvents) != 0;
            if (!ForEachPackedRow(v, [&](bool, std::string_view body) {
                  const int64_t t = EventOf(row_events, body);
                  if (t <= threshold) {
                    any = true;
                  } else {
                    low = std::min(low, t);
                  }
                }))
              return corrupt();
            if (!any) return EntryRewrite::kKeep;
          }
          auto n = Rewrite(key, v, unmatched, replacement, [&](const StoredRow& row) {
            return by_key || row.event <= threshold;
          });
          if (!n.ok()) {
            st = n.status();
            return EntryRewrite::kKeep;
          }
          if (*n == 0) return EntryRewrite::kKeep;
          removed += *n;
          return replacement->empty() ? EntryRewrite::kRemove : EntryRewrite::kReplace;
        });
    SPATE_RETURN_IF_ERROR(st);
    total_ -= removed;
    low_ = low;
    return removed;
  }
  void Prefetch(std::string_view key, uint64_t hash, bool near) override {
    if (hashed_) {
      hashed_->PrefetchHashed(key, hash, near);
    } else {
      store_->Prefetch(key, near);
    }
  }
  Result<int64_t> Finish() override {
    if (total_ != loaded_total_ || low_ != loaded_low_) {
      value_.clear();
      PutInt64(&value_, total_);
      if (low_) {
        PutInt64(&value_, *low_);
        PutInt32(&value_, low_of_);
      }
      store_->Put(std::string_view(), value_);
      loaded_total_ = total_;
      loaded_low_ = low_;
    }
    return total_;
  }

 private:
  static constexpr char kKeyEvent = 1;
  static constexpr char kRowEvents = 2;
  // The empty key's value: int64 row count, then int64 lowest event time and int32
  // low_of_ (absent in checkpoints written before the lowest event time was kept).
  static constexpr size_t kCountWithLow = 20;
  static int32_t GetInt32(std::string_view v) {
    int32_t x = 0;
    if (v.size() >= 4) std::memcpy(&x, v.data(), 4);
    return x;
  }
  static void PutInt32(std::string* out, int32_t v) {
    char b[4];
    std::memcpy(b, &v, 4);
    out->append(b, 4);
  }

  std::optional<std::string_view> Get(std::string_view key, uint64_t hash) {
    return hashed_ ? hashed_->GetHashed(key, hash) : store_->Get(key);
  }

  static void AppendRow(std::string* out, bool row_events, int64_t event, bool matched,
                        std::string_view row) {
    const size_t len = row.size() + (row_events ? 8 : 0);
    state::PutVarint(out, (static_cast<uint64_t>(len) << 1) | (matched ? 1 : 0));
    if (row_events) PutInt64(out, event);
    out->append(row);
  }
  // The rows of entry `v`, with their event times.
  Status Parse(std::string_view v, std::vector<StoredRow>* out) const {
    std::optional<int64_t> key_event;
    if (!ParsePackedJoinEntry(v, &key_event, out))
      return Status::Internal("corrupt stream join state entry");
    if (!(v[0] & kRowEvents) && events_) {
      for (StoredRow& row : *out) row.event = events_->Read(row.row);
    }
    return Status::OK();
  }
  static Result<size_t> RowsStart(std::string_view v) {
    if (v.empty() || (v[0] & kKeyEvent && v.size() < 9))
      return Status::Internal("corrupt stream join state entry");
    return (v[0] & kKeyEvent) ? size_t{9} : size_t{1};
  }
  // The event time of a row's bytes `body` (with its event time first when
  // `row_events`).
  int64_t EventOf(bool row_events, std::string_view body) const {
    if (row_events) return body.size() >= 8 ? GetInt64(body) : kNoEventTime;
    return events_ ? events_->Read(body) : kNoEventTime;
  }
  // *out = entry `v` of `key` without the rows `drop` selects (empty: none is left);
  // those that never matched go to `unmatched`. Returns how many were dropped (0: *out is
  // unspecified).
  template <typename Drop>
  Result<int64_t> Rewrite(std::string_view key, std::string_view v,
                          JoinRowsBuilder* unmatched, std::string* out, Drop&& drop) {
    SPATE_RETURN_IF_ERROR(Parse(v, &rows_));
    drop_.assign(rows_.size(), 0);
    int64_t dropped = 0;
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (!drop(rows_[i])) continue;
      drop_[i] = 1;
      ++dropped;
      if (unmatched && !rows_[i].matched)
        SPATE_RETURN_IF_ERROR(unmatched->Append(key, rows_[i].row));
    }
    if (dropped == 0) return dropped;
    out->clear();
    if (dropped == static_cast<int64_t>(rows_.size())) return dropped;
    // The header (flags, key event time) stays; the kept rows follow.
    SPATE_ASSIGN_OR_RETURN(size_t start, RowsStart(v));
    out->assign(v.data(), start);
    const bool row_events = (v[0] & kRowEvents) != 0;
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (!drop_[i])
        AppendRow(out, row_events, rows_[i].event, rows_[i].matched, rows_[i].row);
    }
    return dropped;
  }
  // Writes value_ as key's entry (an empty value_: removes the key).
  void Store(std::string_view key) {
    if (value_.empty()) {
      store_->Remove(key);
    } else {
      store_->Put(key, value_);
    }
  }

  state::StateStore* store_;
  state::HashedLookup* hashed_;  // store_'s lookups by hash, when it has them
  bool key_event_;
  bool row_events_;
  const RowEventReader* events_;
  int32_t low_of_;
  int64_t total_ = 0, loaded_total_ = 0;
  // A lower bound of the event times eviction compares (low_of_) over the stored rows
  // (kNoEventTime when none has one); nullopt when not known (an older checkpoint).
  std::optional<int64_t> low_, loaded_low_;
  std::string value_;
  std::vector<StoredRow> rows_;
  std::vector<uint8_t> drop_;
};

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
  std::vector<int32_t> group;      // rows of equal keys share a group (first seen: 0)
  int32_t num_groups = 0;
  std::vector<int32_t> group_first;  // per group: its first row
  std::vector<uint64_t> group_hash;  // per group: HashBytes of its key
};

// Numbers the distinct keys of `sb` (sb->group) in order of first appearance.
void GroupKeys(SideBatch* sb) {
  const size_t n = sb->keys.size();
  sb->group.assign(n, 0);
  size_t cap = 16;
  while (cap < 2 * n) cap <<= 1;
  std::vector<int32_t> table(cap, -1);  // group of the slot's key, -1: empty
  std::vector<int32_t> first;           // per group: its first row
  sb->group_hash.clear();
  for (size_t r = 0; r < n; ++r) {
    const std::string& key = sb->keys[r];
    const uint64_t hash = HashBytes(key);
    size_t i = static_cast<size_t>(hash) & (cap - 1);
    while (table[i] >= 0 &&
           sb->keys[static_cast<size_t>(first[static_cast<size_t>(table[i])])] != key)
      i = (i + 1) & (cap - 1);
    if (table[i] < 0) {
      table[i] = static_cast<int32_t>(first.size());
      first.push_back(static_cast<int32_t>(r));
      sb->group_hash.push_back(hash);
    }
    sb->group[r] = table[i];
  }
  sb->num_groups = static_cast<int32_t>(first.size());
  sb->group_first = std::move(first);
}

class StreamJoinExec final : public exec::PhysicalOp {
 public:
  StreamJoinExec(std::shared_ptr<const JoinSpec> spec, Operator* op,
                 exec::PhysicalOpPtr left, exec::PhysicalOpPtr right)
      : PhysicalOp(spec->out_schema, {std::move(left), std::move(right)}),
        s_(std::move(spec)),
        op_(op) {}
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
          // Store slots: left counts, left rows, right counts, right rows; the packed
          // layout keeps everything in the rows stores.
          state::StateStore* stores[4] = {nullptr, nullptr, nullptr, nullptr};
          const bool packed = IsPackedJoinFormat(s_->format);
          for (int i = 0; i < 4; ++i) {
            if (packed && i % 2 == 0) continue;
            SPATE_ASSIGN_OR_RETURN(stores[i], op_->Open(partition, i));
          }
          std::vector<BatchPtr> in[2];
          SPATE_RETURN_IF_ERROR(Drain(left.get(), &in[0]));
          SPATE_RETURN_IF_ERROR(Drain(right.get(), &in[1]));
          std::unique_ptr<SideState> sides[2];
          for (int side = 0; side < 2; ++side) {
            if (packed) {
              const SideSpec& sd = s_->side[side];
              sides[side] = std::make_unique<PackedSide>(
                  stores[2 * side + 1], sd.key_cleanup, sd.event_column >= 0,
                  sd.row_event ? &*sd.row_event : nullptr,
                  sd.key_cleanup ? PackedSide::kLowOfKey : sd.event_column);
            } else {
              sides[side] =
                  std::make_unique<SparkSide>(stores[2 * side], stores[2 * side + 1]);
            }
          }
          SideState* st[2] = {sides[0].get(), sides[1].get()};
          state::StateStore* row_stores[2] = {stores[1], stores[3]};
          return Run(in, st, row_stores, ctx->eval());
        }));
  }

 private:
  Result<BatchPtr> Run(std::vector<BatchPtr> (&in)[2], SideState* (&st)[2],
                       state::StateStore* (&row_stores)[2],
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
  Status StoreRows(const SideBatch& sb, const std::vector<int32_t>& append,
                   const std::vector<size_t>& row_start, const std::string& rows,
                   const std::vector<uint8_t>& matched, SideState* st) const;
  BatchPtr PadUnmatched(int side, const Batch& rows,
                        const std::vector<uint8_t>& matched) const {
    return side == 0 ? s_->outer->FinishLeft(rows, matched.data())
                     : s_->outer->UnmatchedRight(rows, matched.data());
  }

  std::shared_ptr<const JoinSpec> s_;
  Operator* op_;
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
  GroupKeys(&sb);
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
  JoinRowsBuilder cand(s_->side[other_side].layout);
  std::vector<const std::string*> cand_key;
  std::vector<int64_t> cand_index;
  std::vector<uint8_t> cand_stored_matched;
  // Per key group: its first candidate and how many (first -1: not fetched yet).
  std::vector<std::pair<int32_t, int32_t>> fetched(static_cast<size_t>(sb.num_groups),
                                                   {-1, 0});
  std::vector<int32_t> probe_rows, cand_rows;
  std::vector<StoredRow> stored_rows;
  for (int64_t r = 0; r < n; ++r) {
    const auto ur = static_cast<size_t>(r);
    if (sb.late[ur] || !sb.pre[ur] || !sb.key_valid[ur]) continue;
    const std::string& key = sb.keys[ur];
    const auto g = static_cast<size_t>(sb.group[ur]);
    auto& fetch = fetched[g];
    if (fetch.first < 0) {
      // Groups are fetched in order: start on the next ones.
      PrefetchAhead(g, sb.group_first.size(), [&](size_t j, bool near) {
        other->Prefetch(sb.keys[static_cast<size_t>(sb.group_first[j])], sb.group_hash[j],
                        near);
      });
      const auto first = static_cast<int32_t>(cand_key.size());
      SPATE_RETURN_IF_ERROR(other->Rows(key, sb.group_hash[g], &stored_rows));
      for (const StoredRow& row : stored_rows) {
        if (exclude_matched && row.matched) continue;
        SPATE_RETURN_IF_ERROR(cand.Append(key, row.row));
        cand_key.push_back(&key);
        cand_index.push_back(row.index);
        cand_stored_matched.push_back(row.matched ? 1 : 0);
      }
      fetch = {first, static_cast<int32_t>(cand_key.size()) - first};
    }
    for (int32_t c = fetch.first; c < fetch.first + fetch.second; ++c) {
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
  // A key's candidates are adjacent: their newly matched indices go in one call.
  std::vector<int64_t> indices;
  const std::string* indices_key = nullptr;
  for (size_t c = 0; c < cand_matched.size(); ++c) {
    if (!cand_matched[c] || cand_stored_matched[c]) continue;
    newly.push_back(static_cast<int32_t>(c));
    if (exclude_matched) {
      emitted.emplace_back(*cand_key[c], cand_index[c]);
    } else if (track_matched) {
      if (cand_key[c] != indices_key && !indices.empty()) {
        SPATE_RETURN_IF_ERROR(
            other->SetMatched(*indices_key, indices.data(), indices.size()));
        indices.clear();
      }
      indices_key = cand_key[c];
      indices.push_back(cand_index[c]);
    }
  }
  if (!indices.empty()) {
    SPATE_RETURN_IF_ERROR(
        other->SetMatched(*indices_key, indices.data(), indices.size()));
  }
  if (!s_->semi) {
    if (joined && joined->num_rows() > 0) outs->push_back(std::move(joined));
  } else if (side == 1) {
    // Left semi: a stored left row is emitted the first time a right row matches it and
    // then leaves the state (as Spark 4.2, counted as removed).
    if (BatchPtr b = TakeRows(s_->out_schema, *stored, newly))
      outs->push_back(std::move(b));
    SPATE_ASSIGN_OR_RETURN(int64_t n, other->RemoveRows(std::move(emitted), nullptr));
    *removed += n;
  }
  return Status::OK();
}

Status StreamJoinExec::Evict(int side, SideState* st, int64_t threshold,
                             std::vector<BatchPtr>* outs, int64_t* removed) const {
  const SideSpec& sd = s_->side[side];
  const bool emit = sd.emits_unmatched;
  JoinRowsBuilder unmatched(sd.layout);
  SPATE_ASSIGN_OR_RETURN(
      *removed, st->Evict(sd.key_cleanup, threshold, emit ? &unmatched : nullptr));
  if (emit && unmatched.num_rows() > 0) {
    SPATE_ASSIGN_OR_RETURN(BatchPtr rows, unmatched.Finish());
    std::vector<uint8_t> none(static_cast<size_t>(rows->num_rows()), 0);
    if (BatchPtr b = PadUnmatched(side, *rows, none)) outs->push_back(std::move(b));
  }
  return Status::OK();
}

// Stores the rows `append` of `sb` (their RowCodec bytes: rows[row_start[i],
// row_start[i + 1])), a key's rows in one call, in arrival order.
Status StreamJoinExec::StoreRows(const SideBatch& sb, const std::vector<int32_t>& append,
                                 const std::vector<size_t>& row_start,
                                 const std::string& rows,
                                 const std::vector<uint8_t>& matched,
                                 SideState* st) const {
  if (append.empty()) return Status::OK();
  // Rows of one key linked in arrival order: per group its first and last row (-1:
  // none yet), per row the next (-1 ends); groups in order of their first stored row.
  std::vector<std::pair<int32_t, int32_t>> ends(static_cast<size_t>(sb.num_groups),
                                                {-1, -1});
  std::vector<int32_t> next(append.size(), -1);
  std::vector<int32_t> heads;
  for (size_t i = 0; i < append.size(); ++i) {
    const auto id = static_cast<int32_t>(i);
    auto& [head, tail] =
        ends[static_cast<size_t>(sb.group[static_cast<size_t>(append[i])])];
    if (head < 0) {
      head = id;
      heads.push_back(id);
    } else {
      next[static_cast<size_t>(tail)] = id;
    }
    tail = id;
  }
  std::vector<NewRow> batch;
  for (size_t hi = 0; hi < heads.size(); ++hi) {
    PrefetchAhead(hi, heads.size(), [&](size_t j, bool near) {
      const auto r = static_cast<size_t>(append[static_cast<size_t>(heads[j])]);
      st->Prefetch(sb.keys[r], sb.group_hash[static_cast<size_t>(sb.group[r])], near);
    });
    const int32_t h = heads[hi];
    batch.clear();
    for (int32_t i = h; i >= 0; i = next[static_cast<size_t>(i)]) {
      const auto ui = static_cast<size_t>(i);
      const auto r = static_cast<size_t>(append[ui]);
      batch.push_back({sb.row_event[r], matched[r] != 0,
                       std::string_view(rows).substr(row_start[ui],
                                                     row_start[ui + 1] - row_start[ui])});
    }
    const auto r = static_cast<size_t>(append[static_cast<size_t>(h)]);
    SPATE_RETURN_IF_ERROR(st->Append(sb.keys[r],
                                     sb.group_hash[static_cast<size_t>(sb.group[r])],
                                     sb.key_event[r], batch.data(), batch.size()));
  }
  return Status::OK();
}

Result<BatchPtr> StreamJoinExec::Run(std::vector<BatchPtr> (&in)[2], SideState* (&st)[2],
                                     state::StateStore* (&row_stores)[2],
                                     const EvalContext& eval) const {
  auto t_update = SteadyClock::now();
  std::vector<BatchPtr> outs;
  int64_t updated = 0, dropped = 0, removed = 0;
  // The rows of an input batch to store: their input rows, RowCodec bytes in `rows`
  // from row_start[i] to row_start[i + 1].
  std::vector<int32_t> append;
  std::vector<size_t> row_start;
  std::string rows;
  // Left semi takes the right input first (as Spark 4.2): a new left row that matches a
  // right row of the same batch is then emitted on arrival and never stored.
  const int order[2] = {s_->semi ? 1 : 0, s_->semi ? 0 : 1};
  // The second side's stored rows are read only by the first side's probe: its state is
  // evicted once that is done, before its own rows are stored (so its store never holds
  // the rows it drops this batch beside the new ones). Its new rows that this batch's
  // cleanup would drop are then not stored: counted as stored and removed (an outer
  // side's unmatched ones emitted with NULLs), as if stored and evicted. Outer rows of
  // evictions go out after everything else, left side first, as when both sides are
  // evicted at the end.
  std::vector<BatchPtr> evicted_outs[2];
  bool evicted[2] = {false, false};
  int64_t removal_ns = 0;
  // Evicts a side's state once; as Spark, rows an outer side drops while emitting its
  // NULL rows are not counted as removed.
  auto evict = [&](int side, int64_t threshold) -> Status {
    int64_t n = 0;
    SPATE_RETURN_IF_ERROR(Evict(side, st[side], threshold, &evicted_outs[side], &n));
    if (!s_->side[side].emits_unmatched) removed += n;
    evicted[side] = true;
    return Status::OK();
  };
  for (int side : order) {
    const SideSpec& sd = s_->side[side];
    const std::optional<int64_t> threshold = Threshold(side);
    const bool early = side == order[1] && threshold.has_value();
    std::vector<int32_t> early_unmatched;  // new rows of an early side: NULL rows
    if (early) {
      auto t_evict = SteadyClock::now();
      SPATE_RETURN_IF_ERROR(evict(side, *threshold));
      removal_ns += NanosSince(t_evict);
    }
    for (auto& b : in[side]) {
      SPATE_ASSIGN_OR_RETURN(SideBatch sb, Prepare(side, std::move(b), eval));
      std::vector<uint8_t> matched;
      SPATE_RETURN_IF_ERROR(
          Probe(side, sb, st[1 - side], &matched, &outs, &removed, eval));
      const Batch& batch = *sb.batch;
      const int64_t n = batch.num_rows();
      std::vector<int32_t> semi_rows;
      std::vector<uint8_t> no_outer(static_cast<size_t>(n), 1);
      bool any_outer = false;
      std::vector<const Column*> cols;  // the stored columns
      for (int c : sd.layout->stored_columns) cols.push_back(batch.column(c).get());
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
        if (threshold && (side == 1 || early)) {
          const int64_t t = sd.key_cleanup ? sb.key_event[ur] : sb.row_event[ur];
          if (t <= *threshold) {
            // Dropped by this very batch's cleanup: a right row is stored only for its
            // outer NULL row.
            if (side == 1 && !(sd.emits_unmatched && !matched[ur])) continue;
            if (early) {
              // The side was evicted already: stored and evicted at once.
              ++updated;
              if (!sd.emits_unmatched) {
                ++removed;
              } else if (!matched[ur]) {
                early_unmatched.push_back(static_cast<int32_t>(r));
              }
              continue;
            }
          }
        }
        // Stored below, a key's rows together (in arrival order).
        row_start.push_back(rows.size());
        sd.layout->stored->Encode(cols, r, &rows);
        append.push_back(static_cast<int32_t>(r));
        ++updated;
      }
      row_start.push_back(rows.size());
      SPATE_RETURN_IF_ERROR(StoreRows(sb, append, row_start, rows, matched, st[side]));
      append.clear();
      row_start.clear();
      rows.clear();
      if (BatchPtr b = TakeRows(s_->out_schema, batch, semi_rows))
        outs.push_back(std::move(b));
      if (any_outer) {
        if (BatchPtr b = PadUnmatched(side, batch, no_outer))
          outs.push_back(std::move(b));
      }
      if (!early_unmatched.empty()) {
        std::vector<uint8_t> keep(static_cast<size_t>(n), 1);
        for (int32_t r : early_unmatched) keep[static_cast<size_t>(r)] = 0;
        if (BatchPtr b = PadUnmatched(side, batch, keep))
          evicted_outs[side].push_back(std::move(b));
        early_unmatched.clear();
      }
    }
  }
  const int64_t update_ns = NanosSince(t_update) - removal_ns;
  auto t_remove = SteadyClock::now();
  for (int side = 0; side < 2; ++side) {
    const std::optional<int64_t> threshold = Threshold(side);
    if (!threshold) continue;
    if (!evicted[side]) SPATE_RETURN_IF_ERROR(evict(side, *threshold));
    for (auto& b : evicted_outs[side]) outs.push_back(std::move(b));
  }
  for (int side = 0; side < 2; ++side) {
    SPATE_ASSIGN_OR_RETURN(int64_t total, st[side]->Finish());
    if (total >= 0) op_->SetRowsTotal(row_stores[side], total);
  }
  op_->AddMetrics(updated, removed, dropped, update_ns, removal_ns + NanosSince(t_remove),
                  0);
  if (outs.empty()) return BatchPtr();
  if (outs.size() == 1) return outs[0];
  return ConcatBatches(s_->out_schema, outs);
}

class StreamJoinExtension final : public exec::PhysicalExtension {
 public:
  StreamJoinExtension(std::shared_ptr<const JoinSpec> spec, Operator* op)
      : s_(std::move(spec)), op_(op) {}
  std::string Describe() const override {
    return "StreamingSymmetricHashJoin opId=" + std::to_string(op_->id);
  }
  Result<exec::PhysicalOpPtr> PlanPhysical(std::vector<exec::PhysicalOpPtr> children,
                                           const exec::ExecOptions&) const override {
    auto l = std::make_shared<exec::Exchange>(exec::Partitioning::kHash, s_->side[0].keys,
                                              op_->num_partitions, children.at(0));
    auto r = std::make_shared<exec::Exchange>(exec::Partitioning::kHash, s_->side[1].keys,
                                              op_->num_partitions, children.at(1));
    return exec::PhysicalOpPtr(std::make_shared<StreamJoinExec>(s_, op_, l, r));
  }

 private:
  std::shared_ptr<const JoinSpec> s_;
  Operator* op_;
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

std::vector<int> StreamJoinKeyColumns(const BoundPlan& join, int side) {
  const auto& keys = side == 0 ? join.left_keys : join.right_keys;
  const SchemaPtr schema = join.children[static_cast<size_t>(side)]->OutputSchema();
  std::vector<int> out(keys.size(), -1);
  for (size_t k = 0; k < keys.size(); ++k) {
    const int c = keys[k]->column_index();
    if (c < 0 || c >= schema->num_fields() ||
        std::find(out.begin(), out.end(), c) != out.end())
      continue;
    const DataType& t = *schema->field(c).type;
    // The key bytes hold these exactly (floats are normalized, so they are not).
    const TypeId id = t.id();
    if (t.Equals(*keys[k]->type()) &&
        (exec::IsIntegerKeyType(t) || id == TypeId::kBoolean || id == TypeId::kString ||
         id == TypeId::kBinary || id == TypeId::kDecimal))
      out[k] = c;
  }
  return out;
}

std::shared_ptr<const JoinRowLayout> JoinRowLayout::Make(
    SchemaPtr schema, const SchemaPtr& key_schema, const std::vector<int>& key_columns) {
  auto l = std::make_shared<JoinRowLayout>();
  l->from_key.assign(static_cast<size_t>(schema->num_fields()), -1);
  bool any = false;
  for (size_t k = 0; k < key_columns.size(); ++k) {
    const int c = key_columns[k];
    if (c < 0 || c >= schema->num_fields() ||
        static_cast<int>(k) >= key_schema->num_fields())
      continue;
    l->from_key[static_cast<size_t>(c)] = static_cast<int>(k);
    any = true;
  }
  std::vector<Field> stored;
  for (int c = 0; c < schema->num_fields(); ++c) {
    if (l->from_key[static_cast<size_t>(c)] >= 0) continue;
    l->stored_columns.push_back(c);
    stored.push_back(schema->field(c));
  }
  l->stored = any ? std::make_shared<state::RowCodec>(
                        std::make_shared<const Schema>(std::move(stored)))
                  : std::make_shared<state::RowCodec>(schema);
  if (any) l->key = std::make_shared<state::RowCodec>(key_schema);
  l->schema = std::move(schema);
  return l;
}

JoinRowsBuilder::JoinRowsBuilder(std::shared_ptr<const JoinRowLayout> layout)
    : layout_(std::move(layout)), rows_(*layout_->stored) {
  if (layout_->rebuilds()) keys_.emplace(*layout_->key);
}

Status JoinRowsBuilder::Append(std::string_view key, std::string_view stored) {
  if (keys_) SPATE_RETURN_IF_ERROR(keys_->Append(key));
  return rows_.Append(stored);
}

Result<BatchPtr> JoinRowsBuilder::Finish() {
  SPATE_ASSIGN_OR_RETURN(BatchPtr rows, rows_.Finish());
  if (!keys_) return rows;
  SPATE_ASSIGN_OR_RETURN(BatchPtr keys, keys_->Finish());
  std::vector<ColumnPtr> cols;
  size_t next = 0;  // the next stored column
  for (int c = 0; c < layout_->schema->num_fields(); ++c) {
    const int k = layout_->from_key[static_cast<size_t>(c)];
    cols.push_back(k >= 0 ? keys->column(k) : rows->column(static_cast<int>(next++)));
  }
  return Batch::Make(layout_->schema, std::move(cols), rows->num_rows());
}

bool ParsePackedJoinEntry(std::string_view value, std::optional<int64_t>* key_event,
                          std::vector<PackedJoinRow>* rows) {
  rows->clear();
  key_event->reset();
  bool ok = true;
  const bool row_events = !value.empty() && (value[0] & 2) != 0;
  if (!ForEachPackedRow(value,
                        [&](bool matched, std::string_view body) {
                          PackedJoinRow row;
                          row.index = static_cast<int64_t>(rows->size());
                          row.matched = matched;
                          row.event = kNoEventTime;
                          if (row_events) {
                            if (body.size() < 8) {
                              ok = false;
                              return;
                            }
                            row.event = GetInt64(body);
                            body.remove_prefix(8);
                          }
                          row.row = body;
                          rows->push_back(row);
                        }) ||
      !ok)
    return false;
  if (value[0] & 1) *key_event = GetInt64(value.substr(1));
  return true;
}

int64_t PackedJoinStoreRows(state::StateStore* store) {
  auto v = store->Get(std::string_view());
  return v ? GetInt64(*v) : 0;
}

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
  s->format = op->join_state_format;
  if (s->format != kJoinStateFormatSpark && !IsPackedJoinFormat(s->format))
    s->format = kJoinStateFormatPacked;
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
    std::vector<int> key_columns;
    if (s->format == kJoinStateFormatKeyless)
      key_columns = StreamJoinKeyColumns(join, side);
    op->join_key_columns[side] = key_columns;
    sd.layout = JoinRowLayout::Make(sd.schema, s->key_codec->schema(), key_columns);
    sd.event_column = w.event_column[side];
    if (sd.event_column >= 0) {
      // The event time read from the stored row's bytes (absent when the key holds it).
      const auto& stored = sd.layout->stored_columns;
      auto at = std::find(stored.begin(), stored.end(), sd.event_column);
      if (at != stored.end()) {
        sd.row_event = RowEventReader::For(*sd.layout->stored->schema(),
                                           static_cast<int>(at - stored.begin()));
      }
    }
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
  auto ext = std::make_shared<StreamJoinExtension>(s, op);
  auto n = std::make_shared<BoundPlan>(sql::BoundKind::kExtension);
  n->extension = std::move(ext);
  n->output = join.output;
  n->children = {std::move(left), std::move(right)};
  return BoundPlanPtr(n);
}

}  // namespace spate::stream
