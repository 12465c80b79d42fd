// Copyright spate authors.
// transformWithState: the StatefulProcessor operator (see stateful_processor.h).

#include "spate/stream/transform_with_state.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "spate/columnar/builder.h"
#include "spate/exec/exchange.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/local_scan.h"
#include "spate/state/row_codec.h"
#include "spate/stream/stateful_internal.h"
#include "spate/stream/stateful_processor.h"

namespace spate::stream {

using namespace stateful_internal;  // NOLINT(build/namespaces)

std::optional<TimeMode> ParseTimeMode(const std::string& s) {
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "none") return TimeMode::kNone;
  if (l == "processingtime") return TimeMode::kProcessingTime;
  if (l == "eventtime") return TimeMode::kEventTime;
  return std::nullopt;
}

const TransformWithStateNode* TransformWithStateOf(const sql::BoundPlan& node) {
  if (node.kind != sql::BoundKind::kExtension || !node.extension) return nullptr;
  return dynamic_cast<const TransformWithStateNode*>(node.extension.get());
}

// ---- ValueState / ListState / MapState: thin views over the handle.

bool ValueState::exists() const { return h_->VarExists(var_); }
std::optional<ProcessorRow> ValueState::get() const { return h_->ValueGet(var_); }
void ValueState::update(const ProcessorRow& value) { h_->ValuePut(var_, value); }
void ValueState::clear() { h_->VarClear(var_); }

bool ListState::exists() const { return h_->VarExists(var_); }
std::vector<ProcessorRow> ListState::get() const { return h_->ListGet(var_); }
void ListState::put(const std::vector<ProcessorRow>& values) {
  h_->ListPut(var_, values, false);
}
void ListState::appendValue(const ProcessorRow& value) {
  h_->ListPut(var_, {value}, true);
}
void ListState::appendList(const std::vector<ProcessorRow>& values) {
  h_->ListPut(var_, values, true);
}
void ListState::clear() { h_->VarClear(var_); }

bool MapState::exists() const { return h_->VarExists(var_); }
std::optional<ProcessorRow> MapState::getValue(const ProcessorRow& key) const {
  return h_->MapGetValue(var_, key);
}
bool MapState::containsKey(const ProcessorRow& key) const {
  return h_->MapGetValue(var_, key).has_value();
}
void MapState::updateValue(const ProcessorRow& key, const ProcessorRow& value) {
  h_->MapPut(var_, key, value);
}
std::vector<std::pair<ProcessorRow, ProcessorRow>> MapState::iterator() const {
  return h_->MapGet(var_);
}
std::vector<ProcessorRow> MapState::keys() const {
  std::vector<ProcessorRow> out;
  for (auto& kv : h_->MapGet(var_)) out.push_back(std::move(kv.first));
  return out;
}
std::vector<ProcessorRow> MapState::values() const {
  std::vector<ProcessorRow> out;
  for (auto& kv : h_->MapGet(var_)) out.push_back(std::move(kv.second));
  return out;
}
void MapState::removeKey(const ProcessorRow& key) { h_->MapRemove(var_, key); }
void MapState::clear() { h_->VarClear(var_); }

namespace {

constexpr int64_t kNoExpiry = std::numeric_limits<int64_t>::max();

void PutU32(std::string* out, uint32_t v) {
  out->append(reinterpret_cast<const char*>(&v), 4);
}
uint32_t GetU32(std::string_view v, size_t pos) {
  uint32_t x = 0;
  if (v.size() >= pos + 4) std::memcpy(&x, v.data() + pos, 4);
  return x;
}

// A row of values <-> RowCodec bytes.
class RowBytes {
 public:
  explicit RowBytes(SchemaPtr schema) : schema_(schema), codec_(std::move(schema)) {}
  Result<std::string> Encode(const ProcessorRow& row) const {
    if (static_cast<int>(row.size()) != schema_->num_fields()) {
      return Status::Error("TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR",
                           {{"function", "state update"},
                            {"reason", "a value has " + std::to_string(row.size()) +
                                           " fields, its state variable's schema " +
                                           std::to_string(schema_->num_fields())}});
    }
    std::vector<ColumnPtr> cols;
    for (int i = 0; i < schema_->num_fields(); ++i)
      cols.push_back(
          ColumnFromValues(schema_->field(i).type, {row[static_cast<size_t>(i)]}));
    std::string out;
    codec_.Encode(Raw(cols), 0, &out);
    return out;
  }
  Result<ProcessorRow> Decode(std::string_view bytes) const {
    state::RowBatchBuilder b(codec_);
    SPATE_RETURN_IF_ERROR(b.Append(bytes));
    SPATE_ASSIGN_OR_RETURN(BatchPtr batch, b.Finish());
    ProcessorRow row;
    for (int i = 0; i < batch->num_columns(); ++i)
      row.push_back(batch->column(i)->GetValue(0));
    return row;
  }

 private:
  SchemaPtr schema_;
  state::RowCodec codec_;
};

enum class VarKind : uint8_t { kValue, kList, kMap };

struct Var {
  VarKind kind;
  std::string name;
  std::string prefix;                    // kind letter, 0, name, 0
  std::shared_ptr<RowBytes> value, key;  // key: MapState's user keys
  SchemaPtr value_schema, key_schema;
  int64_t ttl_ms = 0;
};

// The handle the processor of one partition of one batch uses. Errors of encoding are
// kept and fail the batch after the processor call returns (the state API has no status).
class Handle final : public StatefulProcessorHandle {
 public:
  Handle(state::StateStore* store, const StatefulBatch& batch, int partition,
         std::string query_id, TimeMode time_mode)
      : store_(store),
        batch_(batch),
        partition_(partition),
        query_id_(std::move(query_id)),
        time_mode_(time_mode) {}

  ValueState getValueState(const std::string& name, const Schema& schema,
                           TTLConfig ttl) override {
    return MakeValue(Declare(VarKind::kValue, name, schema, nullptr, ttl));
  }
  ListState getListState(const std::string& name, const Schema& schema,
                         TTLConfig ttl) override {
    return MakeList(Declare(VarKind::kList, name, schema, nullptr, ttl));
  }
  MapState getMapState(const std::string& name, const Schema& key_schema,
                       const Schema& value_schema, TTLConfig ttl) override {
    return MakeMap(Declare(VarKind::kMap, name, value_schema, &key_schema, ttl));
  }

  void registerTimer(int64_t ms) override {
    auto t = Timers(key_);
    if (std::find(t.begin(), t.end(), ms) != t.end()) return;
    t.push_back(ms);
    std::sort(t.begin(), t.end());
    PutTimers(key_, t);
  }
  void deleteTimer(int64_t ms) override {
    auto t = Timers(key_);
    t.erase(std::remove(t.begin(), t.end(), ms), t.end());
    PutTimers(key_, t);
  }
  std::vector<int64_t> listTimers() override { return Timers(key_); }
  void deleteIfExists(const std::string& name) override {
    for (char kind : {'v', 'l', 'm'}) {
      std::string prefix(1, kind);
      prefix += '\0';
      prefix += name;
      prefix += '\0';
      std::vector<std::string> gone;
      store_->ForEach([&](std::string_view k, std::string_view) {
        if (k.substr(0, prefix.size()) == prefix) gone.emplace_back(k);
      });
      for (const auto& k : gone) store_->Remove(k);
    }
  }
  std::string queryId() const override { return query_id_; }
  int64_t batchId() const override { return batch_.batch_id; }
  int partitionId() const override { return partition_; }

  void SetKey(std::string key) { key_ = std::move(key); }
  // The variables declared so far, for the operator's state schema files.
  std::vector<TwsVariable> Declared() const {
    std::vector<TwsVariable> out;
    for (const Var& v : vars_) {
      TwsVariable t;
      t.name = v.name;
      t.type = v.kind == VarKind::kValue  ? TwsVariable::Type::kValue
               : v.kind == VarKind::kList ? TwsVariable::Type::kList
                                          : TwsVariable::Type::kMap;
      t.value = v.value_schema;
      t.user_key = v.key_schema;
      t.ttl = v.ttl_ms > 0;
      out.push_back(std::move(t));
    }
    return out;
  }
  const Status& status() const { return status_; }
  int64_t now_ms() const { return batch_.batch_timestamp_ms; }

  // Timers of every key at or before `threshold_ms`: (grouping key bytes, timer).
  std::vector<std::pair<std::string, int64_t>> ExpiredTimers(int64_t threshold_ms) {
    std::vector<std::pair<std::string, int64_t>> out;
    store_->ForEach([&](std::string_view k, std::string_view v) {
      if (k.size() < 2 || k[0] != 't' || k[1] != '\0') return;
      for (size_t p = 0; p + 8 <= v.size(); p += 8) {
        const int64_t t = GetInt64(v.substr(p));
        if (t <= threshold_ms) out.emplace_back(std::string(k.substr(2)), t);
      }
    });
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second < b.second : a.first < b.first;
    });
    return out;
  }
  // The end of the batch, in one pass over the store: drops the values whose TTL passed
  // (when a variable has a TTL) and returns the partition's earliest timer (when
  // `want_next_timer`; kNoExpiry: none). Without either it reads nothing.
  int64_t Sweep(bool want_next_timer) {
    const bool ttl = std::any_of(vars_.begin(), vars_.end(),
                                 [](const Var& v) { return v.ttl_ms > 0; });
    int64_t next = kNoExpiry;
    if (!ttl && !want_next_timer) return next;
    const int64_t now = now_ms();
    std::vector<std::string> gone;
    std::vector<std::pair<std::string, std::string>> rewrite;
    store_->ForEach([&](std::string_view k, std::string_view v) {
      if (k.size() < 2 || k[1] != '\0') return;
      if (k[0] == 't') {
        if (want_next_timer && v.size() >= 8) next = std::min(next, GetInt64(v));
        return;
      }
      if (!ttl) return;
      if (k[0] == 'v') {
        if (v.size() >= 8 && GetInt64(v) <= now) gone.emplace_back(k);
      } else if (k[0] == 'l' || k[0] == 'm') {
        std::string kept = FilterEntries(k[0] == 'm', v, now);
        if (kept.size() == v.size()) return;
        if (GetU32(kept, 0) == 0) {
          gone.emplace_back(k);
        } else {
          rewrite.emplace_back(std::string(k), std::move(kept));
        }
      }
    });
    for (const auto& k : gone) store_->Remove(k);
    for (const auto& [k, v] : rewrite) store_->Put(k, v);
    return next;
  }

 protected:
  bool VarExists(int var) override {
    const Var& v = vars_[static_cast<size_t>(var)];
    auto bytes = store_->Get(v.prefix + key_);
    if (!bytes) return false;
    if (v.kind == VarKind::kValue) return GetInt64(*bytes) > now_ms();
    return GetU32(FilterEntries(v.kind == VarKind::kMap, *bytes, now_ms()), 0) > 0;
  }
  void VarClear(int var) override {
    store_->Remove(vars_[static_cast<size_t>(var)].prefix + key_);
  }

  std::optional<ProcessorRow> ValueGet(int var) override {
    const Var& v = vars_[static_cast<size_t>(var)];
    auto bytes = store_->Get(v.prefix + key_);
    if (!bytes || bytes->size() < 8 || GetInt64(*bytes) <= now_ms()) return std::nullopt;
    return Keep(v.value->Decode(bytes->substr(8)));
  }
  void ValuePut(int var, const ProcessorRow& row) override {
    const Var& v = vars_[static_cast<size_t>(var)];
    auto enc = v.value->Encode(row);
    if (!Ok(enc.status())) return;
    std::string out;
    PutInt64(&out, Expiry(v));
    out += *enc;
    store_->Put(v.prefix + key_, out);
  }

  // List and map values: u32 count, then per entry i64 expiry, u32 len, bytes (map: key
  // entry then value entry).
  std::vector<ProcessorRow> ListGet(int var) override {
    const Var& v = vars_[static_cast<size_t>(var)];
    std::vector<ProcessorRow> out;
    auto bytes = store_->Get(v.prefix + key_);
    if (!bytes) return out;
    ForEntries(false, *bytes, [&](int64_t exp, std::string_view e, std::string_view) {
      if (exp <= now_ms()) return;
      auto r = Keep(v.value->Decode(e));
      if (r) out.push_back(std::move(*r));
    });
    return out;
  }
  void ListPut(int var, const std::vector<ProcessorRow>& rows, bool append) override {
    const Var& v = vars_[static_cast<size_t>(var)];
    std::string out;
    uint32_t n = 0;
    std::string body;
    if (append) {
      auto bytes = store_->Get(v.prefix + key_);
      if (bytes) {
        std::string kept = FilterEntries(false, *bytes, now_ms());
        n = GetU32(kept, 0);
        body = kept.substr(4);
      }
    }
    for (const auto& r : rows) {
      auto enc = v.value->Encode(r);
      if (!Ok(enc.status())) return;
      PutInt64(&body, Expiry(v));
      PutU32(&body, static_cast<uint32_t>(enc->size()));
      body += *enc;
      ++n;
    }
    if (n == 0) {
      store_->Remove(v.prefix + key_);
      return;
    }
    PutU32(&out, n);
    out += body;
    store_->Put(v.prefix + key_, out);
  }
  std::vector<std::pair<ProcessorRow, ProcessorRow>> MapGet(int var) override {
    std::vector<std::pair<ProcessorRow, ProcessorRow>> out;
    for (const auto& [k, e] : MapEntries(var)) {
      auto key = Keep(vars_[static_cast<size_t>(var)].key->Decode(k));
      auto val = Keep(vars_[static_cast<size_t>(var)].value->Decode(e.second));
      if (key && val) out.emplace_back(std::move(*key), std::move(*val));
    }
    return out;
  }
  std::optional<ProcessorRow> MapGetValue(int var, const ProcessorRow& key) override {
    auto k = vars_[static_cast<size_t>(var)].key->Encode(key);
    if (!Ok(k.status())) return std::nullopt;
    auto m = MapEntries(var);
    auto it = m.find(*k);
    if (it == m.end()) return std::nullopt;
    return Keep(vars_[static_cast<size_t>(var)].value->Decode(it->second.second));
  }
  void MapPut(int var, const ProcessorRow& key, const ProcessorRow& value) override {
    const Var& v = vars_[static_cast<size_t>(var)];
    auto k = v.key->Encode(key);
    auto e = v.value->Encode(value);
    if (!Ok(k.status()) || !Ok(e.status())) return;
    auto m = MapEntries(var);
    m[*k] = {Expiry(v), *e};
    WriteMap(var, m);
  }
  void MapRemove(int var, const ProcessorRow& key) override {
    auto k = vars_[static_cast<size_t>(var)].key->Encode(key);
    if (!Ok(k.status())) return;
    auto m = MapEntries(var);
    m.erase(*k);
    WriteMap(var, m);
  }

 private:
  int Declare(VarKind kind, const std::string& name, const Schema& schema,
              const Schema* key_schema, TTLConfig ttl) {
    // Spark's validateTTLConfig (0 is TTLConfig.NONE): the time mode first, then the
    // sign.
    if (ttl.ttl_ms != 0 && time_mode_ != TimeMode::kProcessingTime) {
      throw StateVariableError(Status::Error(
          "STATEFUL_PROCESSOR_INCORRECT_TIME_MODE_TO_ASSIGN_TTL",
          {{"stateName", name},
           {"timeMode", time_mode_ == TimeMode::kNone ? "NoTime" : "EventTime"}}));
    }
    if (ttl.ttl_ms < 0) {
      throw StateVariableError(
          Status::Error("STATEFUL_PROCESSOR_TTL_DURATION_MUST_BE_POSITIVE",
                        {{"operationType", "update"}, {"stateName", name}}));
    }
    for (size_t i = 0; i < vars_.size(); ++i) {
      if (vars_[i].name == name) return static_cast<int>(i);
    }
    Var v;
    v.kind = kind;
    v.name = name;
    v.prefix = std::string(1, kind == VarKind::kValue  ? 'v'
                              : kind == VarKind::kList ? 'l'
                                                       : 'm');
    v.prefix += '\0';
    v.prefix += name;
    v.prefix += '\0';
    v.value_schema = std::make_shared<const Schema>(schema);
    v.value = std::make_shared<RowBytes>(v.value_schema);
    if (key_schema) {
      v.key_schema = std::make_shared<const Schema>(*key_schema);
      v.key = std::make_shared<RowBytes>(v.key_schema);
    }
    v.ttl_ms = ttl.ttl_ms;
    vars_.push_back(std::move(v));
    return static_cast<int>(vars_.size()) - 1;
  }
  ValueState MakeValue(int var) { return MakeValueState(this, var); }
  ListState MakeList(int var) { return MakeListState(this, var); }
  MapState MakeMap(int var) { return MakeMapState(this, var); }

  int64_t Expiry(const Var& v) const {
    return v.ttl_ms > 0 ? now_ms() + v.ttl_ms : kNoExpiry;
  }
  bool Ok(const Status& st) {
    if (!st.ok() && status_.ok()) status_ = st;
    return st.ok();
  }
  template <typename T>
  std::optional<T> Keep(Result<T> r) {
    if (!Ok(r.status())) return std::nullopt;
    return std::move(*r);
  }

  // Calls fn(expiry, entry, map value entry) per entry of a list (map) value.
  template <typename F>
  static void ForEntries(bool map, std::string_view v, F&& fn) {
    ForEachTwsEntry(map, v, std::forward<F>(fn));
  }
  static std::string FilterEntries(bool map, std::string_view v, int64_t now) {
    std::string body;
    uint32_t n = 0;
    ForEntries(map, v, [&](int64_t exp, std::string_view e, std::string_view val) {
      if (exp <= now) return;
      PutInt64(&body, exp);
      PutU32(&body, static_cast<uint32_t>(e.size()));
      body.append(e);
      if (map) {
        PutU32(&body, static_cast<uint32_t>(val.size()));
        body.append(val);
      }
      ++n;
    });
    std::string out;
    PutU32(&out, n);
    return out + body;
  }
  // A map's live entries: user key bytes -> (expiry, value bytes).
  std::map<std::string, std::pair<int64_t, std::string>> MapEntries(int var) {
    std::map<std::string, std::pair<int64_t, std::string>> m;
    auto bytes = store_->Get(vars_[static_cast<size_t>(var)].prefix + key_);
    if (!bytes) return m;
    ForEntries(true, *bytes, [&](int64_t exp, std::string_view k, std::string_view val) {
      if (exp > now_ms()) m[std::string(k)] = {exp, std::string(val)};
    });
    return m;
  }
  void WriteMap(int var,
                const std::map<std::string, std::pair<int64_t, std::string>>& m) {
    const std::string key = vars_[static_cast<size_t>(var)].prefix + key_;
    if (m.empty()) {
      store_->Remove(key);
      return;
    }
    std::string out;
    PutU32(&out, static_cast<uint32_t>(m.size()));
    for (const auto& [k, e] : m) {
      PutInt64(&out, e.first);
      PutU32(&out, static_cast<uint32_t>(k.size()));
      out += k;
      PutU32(&out, static_cast<uint32_t>(e.second.size()));
      out += e.second;
    }
    store_->Put(key, out);
  }

  std::vector<int64_t> Timers(const std::string& key) {
    std::vector<int64_t> out;
    std::string k("t");
    k += '\0';
    k += key;
    auto v = store_->Get(k);
    if (!v) return out;
    for (size_t p = 0; p + 8 <= v->size(); p += 8) out.push_back(GetInt64(v->substr(p)));
    return out;
  }
  void PutTimers(const std::string& key, const std::vector<int64_t>& t) {
    std::string k("t");
    k += '\0';
    k += key;
    if (t.empty()) {
      store_->Remove(k);
      return;
    }
    std::string v;
    for (int64_t x : t) PutInt64(&v, x);
    store_->Put(k, v);
  }

  state::StateStore* store_;
  StatefulBatch batch_;
  int partition_;
  std::string query_id_;
  TimeMode time_mode_;
  std::string key_;
  std::vector<Var> vars_;
  Status status_;
};

// A state store in memory for a batch query (empty at the start, dropped at the end).
class EphemeralStore final : public state::StateStore {
 public:
  int64_t version() const override { return 0; }
  std::optional<std::string_view> Get(std::string_view key) override {
    auto it = m_.find(std::string(key));
    if (it == m_.end()) return std::nullopt;
    return std::string_view(it->second);
  }
  void Put(std::string_view key, std::string_view value) override {
    m_[std::string(key)] = std::string(value);
  }
  void Remove(std::string_view key) override { m_.erase(std::string(key)); }
  void ForEach(
      const std::function<void(std::string_view, std::string_view)>& fn) override {
    for (const auto& [k, v] : m_) fn(k, v);
  }
  Status Commit() override { return Status::OK(); }
  void Abort() override {}
  state::StateStoreMetrics metrics() const override {
    state::StateStoreMetrics m;
    m.num_keys = static_cast<int64_t>(m_.size());
    return m;
  }

 private:
  std::map<std::string, std::string> m_;
};

Status UserError(const char* function, const std::string& reason) {
  return Status::Error("TRANSFORM_WITH_STATE_USER_FUNCTION_ERROR",
                       {{"function", function}, {"reason", reason}});
}

// What an exception out of a processor call fails the batch with: a refused state
// variable its own error (as Spark's task fails with it), anything else the user function
// error.
Status ProcessorFailure(const char* function, const std::exception& e) {
  if (const auto* sv = dynamic_cast<const StateVariableError*>(&e)) return sv->status();
  return UserError(function, e.what());
}

// Runs the processor over one partition's rows against `store`.
// Rows grouped by their encoded grouping key, keys in order of first appearance.
struct KeyedRows {
  std::unordered_map<std::string, size_t> slot;  // encoded key -> index
  std::vector<std::string> keys;                 // encoded keys
  std::vector<ProcessorRow> key_rows;            // the keys' values
  std::vector<std::vector<ProcessorRow>> rows;   // each key's rows

  // Adds every row of `b` keyed by `kc` (columns over `b`); a row's values are `b`'s
  // columns from `first_value_column` on. `kb` is scratch.
  void Add(const std::vector<ColumnPtr>& kc, const Batch& b, int first_value_column,
           const state::RowCodec& codec, std::string* kb) {
    const auto raw = Raw(kc);
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      kb->clear();
      codec.Encode(raw, r, kb);
      auto [it, fresh] = slot.emplace(*kb, keys.size());
      if (fresh) {
        keys.push_back(*kb);
        ProcessorRow k;
        for (const auto& c : kc) k.push_back(c->GetValue(r));
        key_rows.push_back(std::move(k));
        rows.emplace_back();
      }
      ProcessorRow row;
      for (int c = first_value_column; c < b.num_columns(); ++c)
        row.push_back(b.column(c)->GetValue(r));
      rows[it->second].push_back(std::move(row));
    }
  }
};

// The grouping key as Spark prints it in errors (a tuple's "(a,b)" for several columns).
std::string KeyText(const ProcessorRow& key) {
  if (key.size() == 1) return key[0].ToString();
  std::string s = "(";
  for (size_t i = 0; i < key.size(); ++i) s += (i ? "," : "") + key[i].ToString();
  return s + ")";
}

// Runs the processor over one partition's rows against `store`; `init`: this partition's
// initial state rows (keys first, see InitialState), handled before the input.
Result<BatchPtr> RunProcessor(const TransformWithStateNode& node,
                              state::StateStore* store,
                              const std::vector<BatchPtr>& batches,
                              const std::vector<BatchPtr>& init,
                              const StatefulBatch& batch, int64_t eviction_watermark_ms,
                              int partition, const EvalContext& eval, int64_t* updated,
                              int64_t* next_timer,
                              std::vector<TwsVariable>* declared = nullptr) {
  Handle h(store, batch, partition, batch.query_id, node.time_mode());
  std::unique_ptr<StatefulProcessor> proc;
  try {
    proc = node.factory()();
    if (!proc) return UserError("init", "the processor factory returned no processor");
    proc->init(h, node.mode(), node.time_mode());
  } catch (const std::exception& e) {
    return ProcessorFailure("init", e);
  }
  std::vector<Field> key_fields;
  for (const auto& a : node.key_attributes()) key_fields.push_back(a.ToField());
  auto key_schema = std::make_shared<const Schema>(key_fields);
  state::RowCodec key_codec(key_schema, /*normalize_floats=*/true);
  // Rows by grouping key, keys in order of first appearance.
  KeyedRows data;
  std::string kb;
  for (const auto& b : batches) {
    SPATE_ASSIGN_OR_RETURN(auto kc, EvaluateAll(node.keys(), *b, eval));
    data.Add(kc, *b, 0, key_codec, &kb);
  }
  auto& slot = data.slot;
  auto& keys = data.keys;
  auto& key_rows = data.key_rows;
  auto& rows = data.rows;
  TimerValues tv;
  tv.current_processing_time_ms = batch.batch_timestamp_ms;
  tv.current_watermark_ms =
      node.time_mode() == TimeMode::kEventTime ? eviction_watermark_ms : 0;
  std::vector<ProcessorRow> out;
  auto take = [&](std::vector<ProcessorRow> produced) {
    for (auto& r : produced) out.push_back(std::move(r));
  };
  // The initial state: one handleInitialState per row, a key at most once. Under
  // flatMapGroupsWithState's rules a key without input rows is then called with none.
  const InitialState* is = node.initial_state().get();
  size_t init_only = 0;
  if (is && !init.empty()) {
    // The initial rows by key (the batch's first num_keys columns), keys in order of
    // first appearance.
    KeyedRows initial;
    for (const auto& b : init) {
      std::vector<ColumnPtr> kc(b->columns().begin(),
                                b->columns().begin() + is->num_keys);
      initial.Add(kc, *b, is->num_keys, key_codec, &kb);
    }
    const auto& init_keys = initial.keys;
    const auto& init_key_rows = initial.key_rows;
    const auto& init_rows = initial.rows;
    for (size_t i = 0; i < init_keys.size(); ++i) {
      const ProcessorRow& k = init_key_rows[i];
      if (init_rows[i].size() > 1 && !proc->acceptsRepeatedInitialStateKeys()) {
        return Status::Error(is->group_state
                                 ? "SPATE_INITIAL_STATE_DUPLICATE_KEY"
                                 : "STATEFUL_PROCESSOR_CANNOT_REINITIALIZE_STATE_ON_KEY",
                             {{"groupingKey", KeyText(k)}});
      }
      h.SetKey(init_keys[i]);
      try {
        proc->handleInitialStateRows(k, init_rows[i], tv);
      } catch (const std::exception& e) {
        return ProcessorFailure("handleInitialState", e);
      }
      SPATE_RETURN_IF_ERROR(h.status());
      if (slot.count(init_keys[i])) continue;
      if (is->group_state && !is->skip_keys_without_rows) {
        keys.push_back(init_keys[i]);
        key_rows.push_back(k);
        rows.emplace_back();
      } else {
        ++init_only;
      }
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    h.SetKey(keys[i]);
    try {
      take(proc->handleInputRows(key_rows[i], rows[i], tv));
    } catch (const std::exception& e) {
      return ProcessorFailure("handleInputRows", e);
    }
    SPATE_RETURN_IF_ERROR(h.status());
  }
  // Expired timers: processing time by the batch's timestamp, event time by the
  // watermark.
  std::optional<int64_t> threshold;
  if (node.time_mode() == TimeMode::kProcessingTime) threshold = batch.batch_timestamp_ms;
  if (node.time_mode() == TimeMode::kEventTime) threshold = eviction_watermark_ms;
  if (threshold) {
    for (const auto& [key, t] : h.ExpiredTimers(*threshold)) {
      state::RowBatchBuilder kbuild(key_codec);
      SPATE_RETURN_IF_ERROR(kbuild.Append(key));
      SPATE_ASSIGN_OR_RETURN(BatchPtr kbatch, kbuild.Finish());
      ProcessorRow key_row;
      for (const auto& c : kbatch->columns()) key_row.push_back(c->GetValue(0));
      h.SetKey(key);
      h.deleteTimer(t);
      try {
        take(proc->handleExpiredTimer(key_row, tv, ExpiredTimerInfo{t}));
      } catch (const std::exception& e) {
        return ProcessorFailure("handleExpiredTimer", e);
      }
      SPATE_RETURN_IF_ERROR(h.status());
    }
  }
  // Only processing-time timers need the next one (a due timer triggers a batch).
  *next_timer = h.Sweep(node.time_mode() == TimeMode::kProcessingTime);
  try {
    proc->close();
  } catch (const std::exception& e) {
    return ProcessorFailure("close", e);
  }
  *updated = static_cast<int64_t>(keys.size() + init_only);
  if (declared) *declared = h.Declared();
  // The output rows, as columns of the output schema.
  const SchemaPtr& schema = node.output();
  const auto n = static_cast<int64_t>(out.size());
  if (n == 0) return BatchPtr();
  std::vector<ColumnPtr> cols;
  for (int f = 0; f < schema->num_fields(); ++f) {
    std::vector<Value> vals;
    vals.reserve(out.size());
    for (const auto& r : out) {
      if (static_cast<int>(r.size()) != schema->num_fields()) {
        return UserError("handleInputRows",
                         "an output row has " + std::to_string(r.size()) +
                             " values, the output schema " +
                             std::to_string(schema->num_fields()) + " fields");
      }
      vals.push_back(r[static_cast<size_t>(f)]);
    }
    cols.push_back(ColumnFromValues(schema->field(f).type, vals));
  }
  return Batch::Make(schema, std::move(cols), n);
}

// Both plans: exchange by the grouping keys, then the processor per partition; a
// streaming operator (op) uses its stores, a batch query an empty store per partition.
class TransformWithStateExec final : public exec::PhysicalOp {
 public:
  /// `init`: the initial state exchanged as the child (nullptr when none applies).
  TransformWithStateExec(std::shared_ptr<const TransformWithStateNode> node,
                         StatefulRuntime::Operator* op, const StatefulBatch* batch,
                         exec::PhysicalOpPtr child, exec::PhysicalOpPtr init)
      : PhysicalOp(node->output(), Children(std::move(child), init)),
        node_(std::move(node)),
        op_(op),
        batch_(batch),
        has_init_(init != nullptr) {}
  int num_partitions() const override { return child().num_partitions(); }
  std::string Describe() const override {
    std::string s = "TransformWithStateExec";
    if (op_) {
      s += ", state info [ opId = " + std::to_string(op_->id) +
           ", numPartitions = " + std::to_string(op_->num_partitions) + "]";
    }
    return s;
  }
  Result<exec::BatchStreamPtr> Open(int partition,
                                    exec::ExecContext* ctx) const override {
    SPATE_ASSIGN_OR_RETURN(auto in, child().Open(partition, ctx));
    auto shared_in = std::shared_ptr<exec::BatchStream>(std::move(in));
    std::shared_ptr<exec::BatchStream> shared_init;
    if (has_init_) {
      SPATE_ASSIGN_OR_RETURN(auto i, children()[1]->Open(partition, ctx));
      shared_init = std::move(i);
    }
    return exec::BatchStreamPtr(std::make_unique<OnceStream>(
        [this, partition, ctx, shared_in, shared_init]() -> Result<BatchPtr> {
          std::vector<BatchPtr> batches, init;
          SPATE_RETURN_IF_ERROR(Drain(shared_in.get(), &batches));
          if (shared_init) SPATE_RETURN_IF_ERROR(Drain(shared_init.get(), &init));
          int64_t updated = 0, next_timer = 0;
          auto t = SteadyClock::now();
          if (!op_) {
            EphemeralStore store;
            StatefulBatch b;
            b.batch_timestamp_ms =
                std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
            return RunProcessor(*node_, &store, batches, init, b, 0, partition,
                                ctx->eval(), &updated, &next_timer);
          }
          SPATE_ASSIGN_OR_RETURN(state::StateStore * store, op_->Open(partition));
          std::vector<TwsVariable> declared;
          SPATE_ASSIGN_OR_RETURN(
              BatchPtr out, RunProcessor(*node_, store, batches, init, *batch_,
                                         op_->eviction_watermark_ms, partition,
                                         ctx->eval(), &updated, &next_timer, &declared));
          op_->AddMetrics(updated, 0, 0, NanosSince(t), 0, 0);
          op_->NoteNextTimer(next_timer);
          op_->NoteTwsVariables(declared);
          return out;
        }));
  }

 private:
  static std::vector<exec::PhysicalOpPtr> Children(exec::PhysicalOpPtr child,
                                                   const exec::PhysicalOpPtr& init) {
    std::vector<exec::PhysicalOpPtr> c{std::move(child)};
    if (init) c.push_back(init);
    return c;
  }

  std::shared_ptr<const TransformWithStateNode> node_;
  StatefulRuntime::Operator* op_;
  const StatefulBatch* batch_;
  bool has_init_;
};

exec::PhysicalOpPtr HashOrSingle(std::vector<BoundExprPtr> keys, int partitions,
                                 exec::PhysicalOpPtr child) {
  if (keys.empty()) {
    return std::make_shared<exec::Exchange>(
        exec::Partitioning::kSingle, std::vector<BoundExprPtr>{}, 1, std::move(child));
  }
  return std::make_shared<exec::Exchange>(exec::Partitioning::kHash, std::move(keys),
                                          partitions, std::move(child));
}

// The input and, in the query's first batch (every batch query), the initial state, both
// exchanged by the grouping keys so that a key's state and rows meet in one partition.
Result<exec::PhysicalOpPtr> PlanWithExchange(
    std::shared_ptr<const TransformWithStateNode> node, StatefulRuntime::Operator* op,
    const StatefulBatch* batch, exec::PhysicalOpPtr child, int partitions) {
  exec::PhysicalOpPtr init;
  const InitialState* is = node->initial_state().get();
  if (is && (batch == nullptr || batch->batch_id == 0)) {
    SPATE_ASSIGN_OR_RETURN(std::vector<BatchPtr> rows, is->load());
    std::vector<BoundExprPtr> refs;
    for (int k = 0; k < is->num_keys; ++k) {
      const Field& f = is->schema->field(k);
      refs.push_back(MakeColumnRef(k, f.type, f.nullable, f.name));
    }
    init =
        HashOrSingle(std::move(refs), partitions,
                     std::make_shared<exec::LocalScan>(is->schema, std::move(rows), 1,
                                                       "LocalTableScan [initial state]"));
  }
  exec::PhysicalOpPtr exchange = HashOrSingle(node->keys(), partitions, std::move(child));
  return exec::PhysicalOpPtr(std::make_shared<TransformWithStateExec>(
      std::move(node), op, batch, exchange, init));
}

class StreamingTransformWithState final : public exec::PhysicalExtension {
 public:
  StreamingTransformWithState(std::shared_ptr<const TransformWithStateNode> node,
                              StatefulRuntime::Operator* op, const StatefulBatch* batch)
      : node_(std::move(node)), op_(op), batch_(batch) {}
  std::string Describe() const override {
    return "TransformWithState opId=" + std::to_string(op_->id);
  }
  Result<exec::PhysicalOpPtr> PlanPhysical(std::vector<exec::PhysicalOpPtr> children,
                                           const exec::ExecOptions&) const override {
    return PlanWithExchange(node_, op_, batch_, children.at(0), op_->num_partitions);
  }

 private:
  std::shared_ptr<const TransformWithStateNode> node_;
  StatefulRuntime::Operator* op_;
  const StatefulBatch* batch_;
};

}  // namespace

std::string TransformWithStateNode::Describe() const {
  std::string keys;
  for (size_t i = 0; i < key_attributes_.size(); ++i)
    keys += (i ? ", " : "") + key_attributes_[i].Label();
  return "TransformWithState [" + keys + "], " + std::string(OutputModeName(mode_));
}

std::shared_ptr<const sql::BoundExtension> TransformWithStateNode::WithGroupKeys(
    std::vector<BoundExprPtr> keys, std::vector<sql::Attribute> key_attributes) const {
  auto copy = std::make_shared<TransformWithStateNode>(*this);
  copy->keys_ = std::move(keys);
  copy->key_attributes_ = std::move(key_attributes);
  return copy;
}

Result<exec::PhysicalOpPtr> TransformWithStateNode::PlanPhysical(
    std::vector<exec::PhysicalOpPtr> children, const exec::ExecOptions& options) const {
  std::shared_ptr<const TransformWithStateNode> self = shared_from_this();
  return PlanWithExchange(self, nullptr, nullptr, children.at(0),
                          std::max(1, options.shuffle_partitions));
}

Result<sql::BoundPlanPtr> PlanTransformWithState(const sql::BoundPlan& node,
                                                 StatefulRuntime::Operator* op,
                                                 const StatefulBatch* batch,
                                                 sql::BoundPlanPtr child) {
  auto payload = std::static_pointer_cast<const TransformWithStateNode>(node.extension);
  auto ext = std::make_shared<StreamingTransformWithState>(payload, op, batch);
  auto n = std::make_shared<sql::BoundPlan>(sql::BoundKind::kExtension);
  n->extension = std::move(ext);
  n->output = node.output;
  n->children.push_back(std::move(child));
  return sql::BoundPlanPtr(n);
}

}  // namespace spate::stream
