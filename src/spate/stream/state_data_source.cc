// Copyright spate authors.
#include "spate/stream/state_data_source.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <set>

#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/state/row_codec.h"
#include "spate/state/state_store.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/checkpoint_describe.h"
#include "spate/stream/stateful_internal.h"
#include "spate/stream/stream_join.h"
#include "spate/stream/tws_state_schema.h"

namespace spate::stream {

using stateful_internal::ForEachTwsEntry;
using stateful_internal::GetInt64;
using stateful_internal::PutInt64;

namespace {

std::string MetadataPath(const std::string& root, int64_t op) {
  return io::JoinPath(io::JoinPath(io::JoinPath(root, std::to_string(op)), "_metadata"),
                      "operator");
}

// ---- options

struct Options {
  std::string checkpoint;
  std::optional<int64_t> batch_id;
  int64_t operator_id = 0;
  std::optional<std::string> store_name;
  std::string join_side = "none";
  bool change_feed = false;
  std::optional<int64_t> change_start, change_end;
  // transformWithState: one state variable, or the registered timers.
  std::optional<std::string> state_var;
  bool read_timers = false;
  bool flatten = true;  // flattenCollectionTypes: a list / map entry per row
  // snapshotStartBatchId / snapshotPartitionId as given (checked against the batch read).
  std::optional<std::string> snapshot_start_text, snapshot_partition_text;
  std::optional<int64_t> snapshot_start;
  std::optional<int> snapshot_partition;

  std::string ToString() const {
    std::string s = "{checkpointLocation=" + checkpoint;
    if (batch_id) s += ", batchId=" + std::to_string(*batch_id);
    s += ", operatorId=" + std::to_string(operator_id);
    s += ", storeName=" + store_name.value_or("default");
    s += ", joinSide=" + join_side;
    if (state_var) s += ", stateVarName=" + *state_var;
    if (read_timers) s += ", readRegisteredTimers=true";
    if (snapshot_start) {
      s += ", snapshotStartBatchId=" + std::to_string(*snapshot_start) +
           ", snapshotPartitionId=" + std::to_string(snapshot_partition.value_or(0));
    }
    if (change_feed) {
      s += ", readChangeFeed=true";
      if (change_start) s += ", changeStartBatchId=" + std::to_string(*change_start);
      if (change_end) s += ", changeEndBatchId=" + std::to_string(*change_end);
    }
    return s + "}";
  }
};

Status InvalidOption(const std::string& name, const std::string& sub,
                     const std::string& msg = "") {
  std::vector<ErrorParam> params = {{"optionName", name}};
  if (!msg.empty()) params.push_back({"message", msg});
  return Status::Error("STDS_INVALID_OPTION_VALUE." + sub, std::move(params));
}

Result<int64_t> NonNegative(const std::string& name, const std::string& v) {
  if (v.empty()) return InvalidOption(name, "IS_EMPTY");
  std::optional<int64_t> out = ParseInt64(v);
  if (!out) return InvalidOption(name, "WITH_MESSAGE", "'" + v + "' is not an integer");
  if (*out < 0) return InvalidOption(name, "IS_NEGATIVE");
  return *out;
}

Result<Options> ParseOptions(const std::string& checkpoint,
                             const std::map<std::string, std::string>& raw) {
  Options o;
  o.checkpoint = checkpoint;
  std::map<std::string, std::string> opts;
  for (const auto& [k, v] : raw) opts[ToLower(k)] = v;
  auto get = [&](const char* k) -> const std::string* {
    auto it = opts.find(k);
    return it == opts.end() ? nullptr : &it->second;
  };
  if (checkpoint.empty())
    return Status::Error("STDS_REQUIRED_OPTION_UNSPECIFIED", {{"optionName", "path"}});
  if (auto v = get("batchid")) {
    SPATE_ASSIGN_OR_RETURN(o.batch_id, NonNegative("batchId", *v));
  }
  if (auto v = get("operatorid")) {
    SPATE_ASSIGN_OR_RETURN(o.operator_id, NonNegative("operatorId", *v));
  }
  if (auto v = get("storename")) {
    if (v->empty()) return InvalidOption("storeName", "IS_EMPTY");
    o.store_name = *v;
  }
  if (auto v = get("joinside")) {
    o.join_side = ToLower(*v);
    if (o.join_side != "left" && o.join_side != "right" && o.join_side != "none") {
      return InvalidOption(
          "joinSide", "WITH_MESSAGE",
          "Allowed values are 'left', 'right', 'none' (got '" + *v + "')");
    }
  }
  if (o.join_side != "none" && o.store_name) {
    return Status::Error("STDS_CONFLICT_OPTIONS",
                         {{"options", "['joinSide', 'storeName']"}});
  }
  auto boolean = [&](const char* key, const char* name, bool* out) -> Status {
    if (auto v = get(key)) {
      const std::string b = ToLower(*v);
      if (b != "true" && b != "false")
        return InvalidOption(name, "WITH_MESSAGE", "'" + *v + "' is not a boolean");
      *out = b == "true";
    }
    return Status::OK();
  };
  SPATE_RETURN_IF_ERROR(boolean("readchangefeed", "readChangeFeed", &o.change_feed));
  SPATE_RETURN_IF_ERROR(
      boolean("readregisteredtimers", "readRegisteredTimers", &o.read_timers));
  SPATE_RETURN_IF_ERROR(
      boolean("flattencollectiontypes", "flattenCollectionTypes", &o.flatten));
  if (auto v = get("statevarname")) {
    if (v->empty()) return InvalidOption("stateVarName", "IS_EMPTY");
    o.state_var = *v;
  }
  if (o.read_timers && o.change_feed) {
    return Status::Error("STDS_CONFLICT_OPTIONS",
                         {{"options", "['readChangeFeed', 'readRegisteredTimers']"}});
  }
  if (o.state_var && o.read_timers) {
    return Status::Error("STDS_CONFLICT_OPTIONS",
                         {{"options", "['readRegisteredTimers', 'stateVarName']"}});
  }
  if (auto v = get("changestartbatchid")) {
    SPATE_ASSIGN_OR_RETURN(o.change_start, NonNegative("changeStartBatchId", *v));
  }
  if (auto v = get("changeendbatchid")) {
    SPATE_ASSIGN_OR_RETURN(o.change_end, NonNegative("changeEndBatchId", *v));
  }
  if (auto v = get("snapshotstartbatchid")) o.snapshot_start_text = *v;
  if (auto v = get("snapshotpartitionid")) o.snapshot_partition_text = *v;
  if (o.change_feed) {
    if (o.batch_id)
      return Status::Error("STDS_CONFLICT_OPTIONS",
                           {{"options", "['batchId', 'readChangeFeed']"}});
    if (o.snapshot_start_text) {
      return Status::Error("STDS_CONFLICT_OPTIONS",
                           {{"options", "['snapshotStartBatchId', 'readChangeFeed']"}});
    }
    if (o.snapshot_partition_text) {
      return Status::Error("STDS_CONFLICT_OPTIONS",
                           {{"options", "['snapshotPartitionId', 'readChangeFeed']"}});
    }
    if (!o.change_start)
      return Status::Error("STDS_REQUIRED_OPTION_UNSPECIFIED",
                           {{"optionName", "changeStartBatchId"}});
    if (o.change_end && *o.change_start > *o.change_end) {
      return InvalidOption("changeEndBatchId", "WITH_MESSAGE",
                           "changeStartBatchId cannot be larger than changeEndBatchId");
    }
  } else {
    for (const char* name : {"changeStartBatchId", "changeEndBatchId"}) {
      if (get(ToLower(name).c_str()))
        return InvalidOption(
            name, "WITH_MESSAGE",
            "Only specify this option when readChangeFeed is set to true.");
    }
  }
  return o;
}

// snapshotStartBatchId / snapshotPartitionId against the batch read, in Spark's order:
// the start's sign and bound, the partition's sign, then both or neither.
Status CheckSnapshotOptions(int64_t batch, Options* o) {
  if (o->snapshot_start_text) {
    SPATE_ASSIGN_OR_RETURN(o->snapshot_start,
                           NonNegative("snapshotStartBatchId", *o->snapshot_start_text));
    if (*o->snapshot_start > batch) {
      return InvalidOption(
          "snapshotStartBatchId", "WITH_MESSAGE",
          "value should be less than or equal to " + std::to_string(batch));
    }
  }
  if (o->snapshot_partition_text) {
    SPATE_ASSIGN_OR_RETURN(
        int64_t p, NonNegative("snapshotPartitionId", *o->snapshot_partition_text));
    if (p > std::numeric_limits<int>::max()) {
      return InvalidOption("snapshotPartitionId", "WITH_MESSAGE",
                           "'" + *o->snapshot_partition_text + "' is not an int");
    }
    o->snapshot_partition = static_cast<int>(p);
  }
  if (o->snapshot_partition && !o->snapshot_start) {
    return Status::Error("STDS_REQUIRED_OPTION_UNSPECIFIED",
                         {{"optionName", "snapshotStartBatchId"}});
  }
  if (o->snapshot_start && !o->snapshot_partition) {
    return Status::Error("STDS_REQUIRED_OPTION_UNSPECIFIED",
                         {{"optionName", "snapshotPartitionId"}});
  }
  return Status::OK();
}

// ---- layouts

enum class Layout {
  kAggregate,    // key RowCodec; value [int64 event time] + RowCodec
  kSession,      // key RowCodec (other keys); value: the key's sessions, one row each
  kDedup,        // key RowCodec; value nothing of the user's (Spark: __dummy__ NULL)
  kDedupWithin,  // key RowCodec; value int64 expiry
  kLimit,        // key empty; value int64 count
  kJoinSide,     // keyWithIndexToValue of one side: key, the side's row
  kJoinCounts,   // <side>-keyToNumValues as a store
  kJoinRows,     // <side>-keyWithIndexToValue as a store (index and matched shown)
  kTwsVariable,  // one transformWithState state variable (Decoder::tws)
  kTimers,  // transformWithState's timers: key "t" 0 + key RowCodec; value int64s (ms)
};

struct Decoder {
  Layout layout = Layout::kAggregate;
  int value_prefix = 0;       // kAggregate
  bool guess_prefix = false;  // no _metadata/operator: try 0, then 8
  SchemaPtr key_schema;       // the stored key's RowCodec schema
  SchemaPtr value_schema;     // the stored value's RowCodec schema (where there is one)
  SchemaPtr out_key, out_value;  // the key and value columns' struct fields
  // kTwsVariable: the variable (its type, TTL) and its column family (schemas).
  // value_schema is the variable's own (a TTL's wrapper is out_value), user_key a map's.
  TwsVariable tws;
  SchemaPtr user_key;
  bool flatten = true;
};

std::string GuessOperatorName(const CheckpointDescription::Operator& op) {
  for (const auto& s : op.stores) {
    if (s.id.store_name.find("keyToNumValues") != std::string::npos)
      return "symmetricHashJoin";
  }
  if (!op.schemas) return "";
  const Schema& k = *op.schemas->key;
  const Schema& v = *op.schemas->value;
  if (v.num_fields() >= 2 && v.field(0).name == "sessionStart" &&
      v.field(1).name == "sessionEnd")
    return "sessionWindowStateStoreSaveExec";
  if (v.num_fields() == 0) return "dedupe";
  if (v.num_fields() == 1 && v.field(0).name == "expiresAtMicros")
    return "dedupeWithinWatermark";
  if (k.num_fields() == 0 && v.num_fields() == 1 && v.field(0).name == "count")
    return "globalLimit";
  return "stateStoreSave";
}

SchemaPtr MakeSchema(std::vector<Field> f) {
  return std::make_shared<const Schema>(std::move(f));
}

// The fields of a join's value schema for one side ("left.a" -> "a").
SchemaPtr JoinSideSchema(const Schema& value, const std::string& side) {
  std::vector<Field> out;
  const std::string prefix = side + ".";
  for (const Field& f : value.fields()) {
    if (f.name.rfind(prefix, 0) == 0) {
      Field g = f;
      g.name = f.name.substr(prefix.size());
      out.push_back(std::move(g));
    }
  }
  return MakeSchema(std::move(out));
}

// ---- decoding rows of one store into columns

/// Rows of the output before decoding: the stored key and value of each (value absent:
/// a removed key of the change feed).
struct RawRow {
  std::string key;
  std::optional<std::string> value;
  int64_t batch_id = 0;
  bool removed = false;
};

ColumnPtr StructOf(const SchemaPtr& s, const std::vector<ColumnPtr>& cols, int64_t n) {
  return std::make_shared<Column>(s->AsStruct(), n, 0, nullptr, nullptr, nullptr, cols);
}

/// Decodes bytes with `codec` into a struct column of `n` rows (entries nullopt: NULL).
Result<ColumnPtr> DecodeStruct(const SchemaPtr& schema,
                               const std::vector<std::optional<std::string_view>>& bytes,
                               const std::string& what) {
  state::RowCodec codec(schema);
  state::RowBatchBuilder b(codec);
  std::vector<int32_t> take;
  int32_t next = 0;
  for (const auto& v : bytes) {
    if (!v) {
      take.push_back(-1);
      continue;
    }
    Status st = b.Append(*v);
    if (!st.ok()) {
      return Status::Error(
          "STDS_INTERNAL_ERROR",
          {{"message", "cannot decode the " + what + " of a state row with schema " +
                           schema->ToString() + ": " + st.message()}});
    }
    take.push_back(next++);
  }
  const auto n = static_cast<int64_t>(bytes.size());
  std::vector<ColumnPtr> cols;
  if (next > 0 || schema->num_fields() > 0) {
    SPATE_ASSIGN_OR_RETURN(BatchPtr batch, b.Finish());
    cols = batch->columns();
  }
  ColumnPtr full = StructOf(schema, cols, next);
  if (next == n) return full;
  return Take(*full, take.data(), n);
}

/// The change feed's batch_id and change_type columns ("update" / "delete" per row).
void ChangeFeedColumns(const std::vector<int64_t>& batch_ids,
                       const std::vector<bool>& removed, std::vector<ColumnPtr>* cols) {
  std::vector<Value> ids, types;
  for (size_t i = 0; i < batch_ids.size(); ++i) {
    ids.push_back(Value::Long(batch_ids[i]));
    types.push_back(Value::String(removed[i] ? "delete" : "update"));
  }
  cols->push_back(ColumnFromValues(DataType::Long(), ids));
  cols->push_back(ColumnFromValues(DataType::String(), types));
}

Result<BatchPtr> DecodeRows(const Decoder& d, const std::vector<RawRow>& rows,
                            int partition, bool change_feed,
                            const SchemaPtr& out_schema) {
  std::vector<std::optional<std::string_view>> keys, values;
  std::vector<int64_t> batch_ids;
  std::vector<bool> removed;
  std::deque<std::string> scratch;  // bytes built here (stable until decoded)
  std::vector<std::optional<std::string_view>> states;  // kSession: each session's states
  std::vector<std::pair<int64_t, bool>> extra_long;     // kJoinRows: index, matched
  auto push = [&](const RawRow& r, std::string_view k,
                  std::optional<std::string_view> v) {
    keys.emplace_back(k);
    values.push_back(v);
    batch_ids.push_back(r.batch_id);
    removed.push_back(r.removed);
  };
  for (const RawRow& r : rows) {
    std::optional<std::string_view> v;
    if (r.value) v = *r.value;
    switch (d.layout) {
      case Layout::kAggregate: {
        if (v) {
          if (v->size() < static_cast<size_t>(d.value_prefix))
            return Status::Error("STDS_INTERNAL_ERROR",
                                 {{"message", "aggregation state value too short"}});
          v = v->substr(static_cast<size_t>(d.value_prefix));
        }
        push(r, r.key, v);
        break;
      }
      case Layout::kSession: {
        if (!v) {
          push(r, r.key, std::nullopt);
          states.emplace_back(std::nullopt);
          break;
        }
        std::vector<stateful_internal::StoredSession> ss;
        Status st = stateful_internal::DecodeSessions(*v, &ss);
        if (!st.ok())
          return Status::Error("STDS_INTERNAL_ERROR", {{"message", st.message()}});
        for (auto& x : ss) {
          // sessionStart, sessionEnd as a RowCodec row of two NOT NULL timestamps.
          std::string bytes(1, '\0');
          bytes.append(reinterpret_cast<const char*>(&x.start), 8);
          bytes.append(reinterpret_cast<const char*>(&x.end), 8);
          scratch.push_back(std::move(bytes));
          push(r, r.key, std::string_view(scratch.back()));
          scratch.push_back(std::move(x.states));
          states.emplace_back(std::string_view(scratch.back()));
        }
        break;
      }
      case Layout::kJoinSide:
      case Layout::kJoinRows: {
        if (r.key.size() < 8)
          return Status::Error("STDS_INTERNAL_ERROR",
                               {{"message", "join state key too short"}});
        std::string_view k(r.key.data(), r.key.size() - 8);
        if (v && v->size() < 9)
          return Status::Error("STDS_INTERNAL_ERROR",
                               {{"message", "join state row too short"}});
        if (d.layout == Layout::kJoinRows) {
          extra_long.emplace_back(
              GetInt64(std::string_view(r.key).substr(r.key.size() - 8)),
              v && (*v)[8] != 0);
        }
        push(r, k, v ? std::optional<std::string_view>(v->substr(9)) : std::nullopt);
        break;
      }
      default:
        push(r, r.key, v);
    }
  }
  const auto n = static_cast<int64_t>(keys.size());
  ColumnPtr key_col, value_col;
  SPATE_ASSIGN_OR_RETURN(key_col, DecodeStruct(d.key_schema, keys, "key"));
  if (d.layout == Layout::kJoinRows) {
    std::vector<Value> idx;
    for (const auto& e : extra_long) idx.push_back(Value::Long(e.first));
    std::vector<ColumnPtr> kc = key_col->children();
    kc.push_back(ColumnFromValues(DataType::Long(), idx));
    key_col = StructOf(d.out_key, kc, n);
  }
  switch (d.layout) {
    case Layout::kAggregate:
    case Layout::kJoinSide: {
      SPATE_ASSIGN_OR_RETURN(ColumnPtr decoded,
                             DecodeStruct(d.value_schema, values, "value"));
      // Named as the value column (the change feed's NULLs are applied below).
      value_col = StructOf(d.out_value, decoded->children(), n);
      break;
    }
    case Layout::kJoinRows: {
      SPATE_ASSIGN_OR_RETURN(ColumnPtr side,
                             DecodeStruct(d.value_schema, values, "value"));
      std::vector<Value> matched;
      for (const auto& e : extra_long) matched.push_back(Value::Boolean(e.second));
      std::vector<ColumnPtr> vc = side->children();
      vc.push_back(ColumnFromValues(DataType::Boolean(), matched));
      value_col = StructOf(d.out_value, vc, n);
      break;
    }
    case Layout::kSession: {
      std::vector<Field> bf(d.out_value->fields().begin(),
                            d.out_value->fields().begin() + 2);
      std::vector<Field> sf(d.out_value->fields().begin() + 2,
                            d.out_value->fields().end());
      SPATE_ASSIGN_OR_RETURN(ColumnPtr b,
                             DecodeStruct(MakeSchema(bf), values, "session"));
      SPATE_ASSIGN_OR_RETURN(ColumnPtr s, DecodeStruct(MakeSchema(sf), states, "value"));
      std::vector<ColumnPtr> vc = b->children();
      for (const auto& c : s->children()) vc.push_back(c);
      value_col = StructOf(d.out_value, vc, n);
      break;
    }
    case Layout::kDedup:
      value_col = StructOf(d.out_value, {Column::MakeNull(DataType::Null(), n)}, n);
      break;
    case Layout::kDedupWithin:
    case Layout::kLimit:
    case Layout::kJoinCounts: {
      std::vector<Value> vals;
      for (const auto& v : values) {
        if (!v || v->size() < 8) {
          vals.push_back(Value::Null(DataType::Long()));
        } else {
          vals.push_back(Value::Long(GetInt64(*v)));
        }
      }
      value_col = StructOf(d.out_value, {ColumnFromValues(DataType::Long(), vals)}, n);
      break;
    }
    case Layout::kTwsVariable:
      return Status::Internal("state variables are decoded by DecodeTwsVariable");
    case Layout::kTimers:
      return Status::Internal("timers are decoded by DecodeTimers");
  }
  // A removed key of the change feed has a NULL value.
  if (change_feed) {
    std::vector<int32_t> idx(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      idx[static_cast<size_t>(i)] =
          removed[static_cast<size_t>(i)] ? -1 : static_cast<int32_t>(i);
    value_col = Take(*value_col, idx.data(), n);
  }
  std::vector<ColumnPtr> cols;
  if (change_feed) ChangeFeedColumns(batch_ids, removed, &cols);
  cols.push_back(key_col);
  cols.push_back(value_col);
  cols.push_back(MakeConstantColumn(Value::Int(partition), n));
  return Batch::Make(out_schema, std::move(cols), n);
}

// transformWithState's timers: one row per (key, expiry), as Spark's
// readRegisteredTimers.
Result<BatchPtr> DecodeTimers(const Decoder& d, const std::vector<RawRow>& rows,
                              int partition, const SchemaPtr& out_schema) {
  std::vector<std::optional<std::string_view>> keys;
  std::vector<Value> expiries;
  for (const RawRow& r : rows) {
    if (r.key.size() < 2 || r.key[0] != 't' || r.key[1] != '\0' || !r.value) continue;
    const std::string_view v = *r.value;
    for (size_t pos = 0; pos + 8 <= v.size(); pos += 8) {
      keys.emplace_back(std::string_view(r.key).substr(2));
      expiries.push_back(Value::Long(GetInt64(v.substr(pos))));
    }
  }
  const auto n = static_cast<int64_t>(keys.size());
  SPATE_ASSIGN_OR_RETURN(ColumnPtr key_col, DecodeStruct(d.key_schema, keys, "key"));
  std::vector<ColumnPtr> cols{key_col, ColumnFromValues(DataType::Long(), expiries),
                              MakeConstantColumn(Value::Int(partition), n)};
  return Batch::Make(out_schema, std::move(cols), n);
}

// One transformWithState state variable: spate's store entries `<kind> 0 <name> 0 <key>`
// (stateful_processor.h) as Spark 4.2's rows — ValueState: key, value; ListState: key,
// list_element per element (list_value, one row per key, unflattened); MapState: key,
// user_map_key, user_map_value per entry (map_value unflattened). A variable with a TTL
// shows its values as struct<value, ttlExpirationMs>, as Spark stores them.
Result<BatchPtr> DecodeTwsVariable(const Decoder& d, const std::vector<RawRow>& rows,
                                   int partition, bool change_feed,
                                   const SchemaPtr& out_schema) {
  using Type = TwsVariable::Type;
  const TwsVariable& var = d.tws;
  std::string prefix(1, var.type == Type::kList  ? 'l'
                        : var.type == Type::kMap ? 'm'
                                                 : 'v');
  prefix += '\0';
  prefix += var.name;
  prefix += '\0';
  const bool map = var.type == Type::kMap;
  // Elements (a value, a list element, a map entry) and the output rows that hold them.
  std::vector<std::optional<std::string_view>> elems, map_keys, keys;
  std::vector<Value> expiries;
  std::vector<std::vector<int32_t>> row_elems;
  std::vector<int64_t> batch_ids;
  std::vector<bool> removed;
  auto new_row = [&](const RawRow& r, std::string_view k) {
    keys.emplace_back(k);
    batch_ids.push_back(r.batch_id);
    removed.push_back(r.removed);
    row_elems.emplace_back();
  };
  auto add = [&](int64_t exp, std::string_view e, std::string_view mv) {
    row_elems.back().push_back(static_cast<int32_t>(elems.size()));
    expiries.push_back(Value::Long(exp));
    if (map) {
      map_keys.emplace_back(e);
      elems.emplace_back(mv);
    } else {
      elems.emplace_back(e);
    }
  };
  for (const RawRow& r : rows) {
    if (r.key.size() < prefix.size() || r.key.compare(0, prefix.size(), prefix) != 0)
      continue;
    const std::string_view k = std::string_view(r.key).substr(prefix.size());
    if (!r.value) {
      new_row(r, k);  // a removal of the change feed: NULL value
      continue;
    }
    const std::string_view v = *r.value;
    if (var.type == Type::kValue) {
      if (v.size() < 8)
        return Status::Error("STDS_INTERNAL_ERROR",
                             {{"message", "ValueState entry too short"}});
      new_row(r, k);
      add(GetInt64(v), v.substr(8), {});
      continue;
    }
    if (!d.flatten) new_row(r, k);
    ForEachTwsEntry(map, v, [&](int64_t exp, std::string_view e, std::string_view mv) {
      if (d.flatten) new_row(r, k);
      add(exp, e, mv);
    });
  }
  const auto n = static_cast<int64_t>(keys.size());
  SPATE_ASSIGN_OR_RETURN(ColumnPtr key_col, DecodeStruct(d.key_schema, keys, "key"));
  SPATE_ASSIGN_OR_RETURN(ColumnPtr elem_col,
                         DecodeStruct(d.value_schema, elems, "value"));
  if (var.ttl) {
    elem_col =
        StructOf(d.out_value, {elem_col, ColumnFromValues(DataType::Long(), expiries)},
                 static_cast<int64_t>(elems.size()));
  }
  ColumnPtr user_key_col;
  if (map) {
    SPATE_ASSIGN_OR_RETURN(user_key_col,
                           DecodeStruct(d.user_key, map_keys, "user map key"));
  }
  std::vector<ColumnPtr> cols;
  if (change_feed) ChangeFeedColumns(batch_ids, removed, &cols);
  cols.push_back(key_col);
  if (d.flatten || var.type == Type::kValue) {
    // One element per row (none: NULL).
    std::vector<int32_t> take;
    for (const auto& e : row_elems) take.push_back(e.empty() ? -1 : e[0]);
    if (map) cols.push_back(Take(*user_key_col, take.data(), n));
    cols.push_back(Take(*elem_col, take.data(), n));
  } else {
    const DataTypePtr& type = out_schema->field(out_schema->num_fields() - 2).type;
    std::vector<Value> out;
    for (const auto& e : row_elems) {
      std::vector<Value> ks, vs;
      for (int32_t i : e) {
        if (map) ks.push_back(user_key_col->GetValue(i));
        vs.push_back(elem_col->GetValue(i));
      }
      out.push_back(map ? Value::Map(type, std::move(ks), std::move(vs))
                        : Value::ArrayOf(type, std::move(vs)));
    }
    cols.push_back(ColumnFromValues(type, out));
  }
  cols.push_back(MakeConstantColumn(Value::Int(partition), n));
  return Batch::Make(out_schema, std::move(cols), n);
}

// Whether every value decodes with `prefix` bytes skipped (the best guess of an
// aggregation's layout when no _metadata/operator exists).
bool ValuesDecode(const SchemaPtr& schema, const std::vector<RawRow>& rows,
                  size_t prefix) {
  state::RowCodec codec(schema);
  state::RowBatchBuilder b(codec);
  for (const auto& r : rows) {
    if (!r.value) continue;
    if (r.value->size() < prefix ||
        !b.Append(std::string_view(*r.value).substr(prefix)).ok())
      return false;
  }
  return true;
}

// Version `version` of store `id` (with `snapshot`: rebuilt from that version's base
// file).
// ---- the packed join layout (stream_join.h kJoinStateFormatPacked) shown as Spark's
// stores: its entries become the rows of <side>-keyToNumValues (`counts`: key -> int64
// count, int64 key event time) or <side>-keyWithIndexToValue (key ++ int64 index ->
// int64 event time, uint8 matched, the row), which DecodeRows reads.

Status CorruptJoinEntry() {
  return Status::Error("STDS_INTERNAL_ERROR",
                       {{"message", "corrupt stream-stream join state entry"}});
}

void SparkJoinCount(const std::string& key, size_t count,
                    const std::optional<int64_t>& key_event, RawRow* out) {
  out->key = key;
  std::string v;
  PutInt64(&v, static_cast<int64_t>(count));
  PutInt64(&v, key_event.value_or(std::numeric_limits<int64_t>::max()));
  out->value = std::move(v);
}

void SparkJoinRow(const std::string& key, const PackedJoinRow& row, RawRow* out) {
  out->key = key;
  PutInt64(&out->key, row.index);
  std::string v;
  PutInt64(&v, row.event);
  v.push_back(row.matched ? 1 : 0);
  v.append(row.row);
  out->value = std::move(v);
}

/// The rows of one Spark store from the packed entries `entries` (sorted by key).
Result<std::vector<RawRow>> PackedJoinAsSpark(const std::vector<RawRow>& entries,
                                              bool counts) {
  std::vector<RawRow> out;
  std::optional<int64_t> key_event;
  std::vector<PackedJoinRow> rows;
  for (const RawRow& e : entries) {
    if (e.key.empty() || !e.value) continue;  // the store's row count
    if (!ParsePackedJoinEntry(*e.value, &key_event, &rows)) return CorruptJoinEntry();
    if (counts) {
      out.emplace_back();
      SparkJoinCount(e.key, rows.size(), key_event, &out.back());
      continue;
    }
    for (const auto& row : rows) {
      out.emplace_back();
      SparkJoinRow(e.key, row, &out.back());
    }
  }
  return out;
}

/// Format 3: puts the key columns back into Spark-shaped keyWithIndexToValue rows
/// (`rows`: key ++ int64 index -> int64 event time, uint8 matched, the stored row), so
/// their values hold the side's full rows as DecodeRows reads them.
Status RebuildJoinKeyColumns(const std::shared_ptr<const JoinRowLayout>& layout,
                             std::vector<RawRow>* rows) {
  JoinRowsBuilder b(layout);
  std::vector<size_t> at;  // the rows appended to b
  for (size_t i = 0; i < rows->size(); ++i) {
    const RawRow& r = (*rows)[i];
    if (!r.value || r.key.size() < 8 || r.value->size() < 9) continue;
    SPATE_RETURN_IF_ERROR(b.Append(std::string_view(r.key).substr(0, r.key.size() - 8),
                                   std::string_view(*r.value).substr(9)));
    at.push_back(i);
  }
  if (at.empty()) return Status::OK();
  auto full = b.Finish();
  if (!full.ok()) return CorruptJoinEntry();
  std::vector<const Column*> cols;
  for (const auto& c : (*full)->columns()) cols.push_back(c.get());
  state::RowCodec codec(layout->schema);
  for (size_t j = 0; j < at.size(); ++j) {
    std::string& v = *(*rows)[at[j]].value;
    v.resize(9);
    codec.Encode(cols, static_cast<int64_t>(j), &v);
  }
  return Status::OK();
}

/// The change feed of one Spark store over batches [start, end] of a packed store:
/// each batch's changed entries compared with their previous state (loaded at version
/// `start`): a changed count or row is an update, a row index or key that went a delete.
Result<std::vector<RawRow>> PackedJoinChangeFeed(const state::StateStoreId& id,
                                                 const state::StateStoreConf& conf,
                                                 const io::FileSystemPtr& fs,
                                                 int64_t start, int64_t end, bool counts);

Result<std::vector<RawRow>> ReadStoreVersion(
    const state::StateStoreId& id, const state::StateStoreConf& conf,
    io::FileSystemPtr fs, int64_t version,
    std::optional<int64_t> snapshot = std::nullopt) {
  SPATE_ASSIGN_OR_RETURN(auto provider,
                         state::CreateStateStoreProvider(id, conf, std::move(fs)));
  auto store = snapshot ? provider->GetStoreFromSnapshot(*snapshot, version)
                        : provider->GetStore(version);
  if (!store.ok()) {
    provider->Close();
    // Spark's reader fails a load from a snapshot with UNCATEGORIZED caused by the error.
    if (snapshot) {
      return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
          .WithContext(store.status().ToString());
    }
    return store.status();
  }
  std::vector<RawRow> rows;
  (*store)->ForEach([&](std::string_view k, std::string_view v) {
    RawRow r;
    r.key.assign(k);
    r.value = std::string(v);
    rows.push_back(std::move(r));
  });
  (*store)->Abort();
  provider->Close();
  std::sort(rows.begin(), rows.end(),
            [](const RawRow& a, const RawRow& b) { return a.key < b.key; });
  return rows;
}

Result<std::vector<RawRow>> PackedJoinChangeFeed(const state::StateStoreId& id,
                                                 const state::StateStoreConf& conf,
                                                 const io::FileSystemPtr& fs,
                                                 int64_t start, int64_t end,
                                                 bool counts) {
  std::map<std::string, std::string> state;  // the entries before the next batch
  SPATE_ASSIGN_OR_RETURN(auto base, ReadStoreVersion(id, conf, fs, start));
  for (auto& r : base) {
    if (r.value) state[r.key] = std::move(*r.value);
  }
  std::vector<RawRow> out;
  std::optional<int64_t> old_event, new_event;
  std::vector<PackedJoinRow> old_rows, new_rows;
  auto emit = [&](int64_t batch, bool removed) -> RawRow& {
    out.emplace_back();
    out.back().batch_id = batch;
    out.back().removed = removed;
    return out.back();
  };
  for (int64_t b = start; b <= end; ++b) {
    SPATE_ASSIGN_OR_RETURN(auto changes, state::ReadStoreChanges(id, conf, *fs, b + 1));
    for (auto& c : changes) {
      if (c.key.empty()) continue;  // the store's row count
      auto it = state.find(c.key);
      old_rows.clear();
      old_event.reset();
      if (it != state.end() && !ParsePackedJoinEntry(it->second, &old_event, &old_rows))
        return CorruptJoinEntry();
      new_rows.clear();
      new_event.reset();
      if (!c.removed && !ParsePackedJoinEntry(c.value, &new_event, &new_rows))
        return CorruptJoinEntry();
      if (counts) {
        if (c.removed) {
          if (it != state.end()) emit(b, true).key = c.key;
        } else if (it == state.end() || old_rows.size() != new_rows.size()) {
          SparkJoinCount(c.key, new_rows.size(), new_event, &emit(b, false));
        }
      } else {
        for (const auto& row : new_rows) {
          const auto i = static_cast<size_t>(row.index);
          if (i < old_rows.size() && old_rows[i].matched == row.matched &&
              old_rows[i].row == row.row)
            continue;
          SparkJoinRow(c.key, row, &emit(b, false));
        }
        for (size_t i = new_rows.size(); i < old_rows.size(); ++i) {
          RawRow& r = emit(b, true);
          r.key = c.key;
          PutInt64(&r.key, static_cast<int64_t>(i));
        }
      }
      if (c.removed) {
        if (it != state.end()) state.erase(it);
      } else {
        state[c.key] = std::move(c.value);
      }
    }
  }
  return out;
}

// stateVarName on a transformWithState operator: the variable's type and TTL from the
// operator's properties, its schemas from the state schema file (tws_state_schema.h).
Status TwsVariableDecoder(io::FileSystem& fs, const std::string& root, const Options& o,
                          Decoder* d) {
  const std::optional<int64_t> at = o.change_feed ? o.change_end : o.batch_id;
  SPATE_ASSIGN_OR_RETURN(auto meta, ReadTwsStateMetadata(fs, root, o.operator_id, at));
  if (!meta) {
    return InvalidOption(
        "stateVarName", "WITH_MESSAGE",
        "the checkpoint records no state schema of operator " +
            std::to_string(o.operator_id) +
            " (written by a spate older than its state schema files), so '" +
            *o.state_var +
            "' cannot be read as a table (readRegisteredTimers=true reads its "
            "timers)");
  }
  const TwsVariable* var = nullptr;
  for (const auto& v : meta->variables) {
    if (v.name == *o.state_var && v.type != TwsVariable::Type::kTimer) var = &v;
  }
  const TwsColumnFamily* cf = nullptr;
  for (const auto& f : meta->families) {
    if (f.name == *o.state_var) cf = &f;
  }
  if (!var || !cf) {
    return InvalidOption("stateVarName", "WITH_MESSAGE",
                         "State variable " + *o.state_var +
                             " is not defined for the transformWithState operator.");
  }
  if (o.change_feed && var->type != TwsVariable::Type::kValue) {
    return InvalidOption("readChangeFeed", "WITH_MESSAGE",
                         "spate reads the change feed of a ValueState only ('" +
                             *o.state_var + "' is a " + TwsVariableTypeName(var->type) +
                             ")");
  }
  auto struct_field = [](const Schema& s, const char* name) -> SchemaPtr {
    const int i = s.FieldIndex(name, /*case_sensitive=*/true);
    if (i < 0 || s.field(i).type->id() != TypeId::kStruct) return nullptr;
    return MakeSchema(s.field(i).type->fields());
  };
  d->layout = Layout::kTwsVariable;
  d->tws = *var;
  d->flatten = o.flatten;
  d->out_value = cf->value;
  d->value_schema = var->ttl ? struct_field(*cf->value, "value") : cf->value;
  if (var->type == TwsVariable::Type::kMap) {
    d->key_schema = struct_field(*cf->key, "key");
    d->user_key = cf->user_key ? cf->user_key : struct_field(*cf->key, "userKey");
  } else {
    d->key_schema = cf->key;
  }
  if (!d->value_schema || !d->key_schema ||
      (var->type == TwsVariable::Type::kMap && !d->user_key)) {
    return Status::Error("STDS_FAILED_TO_READ_STATE_SCHEMA",
                         {{"sourceOptions", o.ToString()}});
  }
  d->out_key = d->key_schema;
  return Status::OK();
}

}  // namespace

Status WriteOperatorMetadata(io::FileSystem& fs, const std::string& state_root,
                             int64_t operator_id, const StateOperatorMetadata& m) {
  Json j = Json::Object();
  j.Set("version", Json::Int(1));
  j.Set("operatorId", Json::Int(operator_id));
  j.Set("operatorName", Json::String(m.operator_name));
  Json names = Json::Array();
  for (const auto& n : m.store_names) names.Append(Json::String(n));
  j.Set("stateStoreNames", std::move(names));
  j.Set("numPartitions", Json::Int(m.num_partitions));
  j.Set("valuePrefixBytes", Json::Int(m.value_prefix_bytes));
  if (m.join_state_format != 0) j.Set("joinStateFormat", Json::Int(m.join_state_format));
  if (m.join_state_format == kJoinStateFormatKeyless) {
    Json sides = Json::Array();
    for (const auto& cols : m.join_key_columns) {
      Json a = Json::Array();
      for (int c : cols) a.Append(Json::Int(c));
      sides.Append(std::move(a));
    }
    j.Set("joinKeyColumns", std::move(sides));
  }
  const std::string path = MetadataPath(state_root, operator_id);
  SPATE_RETURN_IF_ERROR(fs.MakeDirs(io::ParentPath(path)));
  return fs.WriteAtomic(path, j.ToString() + "\n");
}

Result<std::optional<StateOperatorMetadata>> ReadOperatorMetadata(
    io::FileSystem& fs, const std::string& state_root, int64_t operator_id) {
  const std::string path = MetadataPath(state_root, operator_id);
  auto text = fs.ReadAll(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound)
      return std::optional<StateOperatorMetadata>();
    return text.status();
  }
  auto corrupt = [&](const std::string& why) {
    return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
        .WithContext("Error reading operator metadata file " + path + ": " + why);
  };
  auto doc = Json::Parse(*text);
  if (!doc.ok()) return corrupt(doc.status().message());
  const Json* name = doc->Find("operatorName");
  const Json* names = doc->Find("stateStoreNames");
  const Json* parts = doc->Find("numPartitions");
  const Json* prefix = doc->Find("valuePrefixBytes");
  if (!name || !names || !parts || !prefix) return corrupt("missing fields");
  StateOperatorMetadata m;
  m.operator_name = name->string_value();
  m.store_names.clear();
  for (const auto& n : names->items()) m.store_names.push_back(n.string_value());
  m.num_partitions = static_cast<int>(parts->int_value());
  m.value_prefix_bytes = static_cast<int>(prefix->int_value());
  if (const Json* f = doc->Find("joinStateFormat"))
    m.join_state_format = static_cast<int>(f->int_value());
  if (const Json* k = doc->Find("joinKeyColumns")) {
    if (k->items().size() != 2) return corrupt("joinKeyColumns is not two lists");
    for (size_t side = 0; side < 2; ++side) {
      for (const auto& c : k->items()[side].items())
        m.join_key_columns[side].push_back(static_cast<int>(c.int_value()));
    }
  } else if (m.join_state_format == kJoinStateFormatKeyless) {
    return corrupt("joinStateFormat 3 without joinKeyColumns");
  }
  return std::optional<StateOperatorMetadata>(std::move(m));
}

Result<DataSourcePtr> MakeStateStoreSource(
    const io::FileSystemPtr& fs, const std::string& checkpoint,
    const std::map<std::string, std::string>& options) {
  SPATE_ASSIGN_OR_RETURN(Options o, ParseOptions(checkpoint, options));
  SPATE_ASSIGN_OR_RETURN(CheckpointDescription desc,
                         DescribeCheckpoint(fs, checkpoint, /*load_stores=*/false));
  if (!desc.last_committed_batch) {
    return Status::Error("STDS_COMMITTED_BATCH_UNAVAILABLE",
                         {{"checkpointLocation", checkpoint}});
  }
  const int64_t last = *desc.last_committed_batch;
  auto check_committed = [&](const char* name, int64_t b) -> Status {
    if (b <= last) return Status::OK();
    return InvalidOption(name, "WITH_MESSAGE",
                         "batch " + std::to_string(b) +
                             " is not committed: the last committed "
                             "batch of " +
                             checkpoint + " is " + std::to_string(last));
  };
  if (o.batch_id) SPATE_RETURN_IF_ERROR(check_committed("batchId", *o.batch_id));
  if (o.change_end)
    SPATE_RETURN_IF_ERROR(check_committed("changeEndBatchId", *o.change_end));
  if (o.change_start)
    SPATE_RETURN_IF_ERROR(check_committed("changeStartBatchId", *o.change_start));
  if (!o.change_feed)
    SPATE_RETURN_IF_ERROR(CheckSnapshotOptions(o.batch_id.value_or(last), &o));

  const CheckpointDescription::Operator* op = nullptr;
  for (const auto& x : desc.operators) {
    if (x.operator_id == o.operator_id) op = &x;
  }
  if (!op || op->num_partitions == 0) {
    return Status::Error("STDS_NO_PARTITION_DISCOVERED_IN_STATE_STORE",
                         {{"sourceOptions", o.ToString()}});
  }
  if (!op->schemas) {
    return Status::Error("STDS_FAILED_TO_READ_STATE_SCHEMA",
                         {{"sourceOptions", o.ToString()}});
  }
  const std::string root = io::JoinPath(checkpoint, "state");
  SPATE_ASSIGN_OR_RETURN(auto meta, ReadOperatorMetadata(*fs, root, o.operator_id));
  const std::string name = meta ? meta->operator_name : GuessOperatorName(*op);
  std::set<std::string> stores;
  if (meta) stores.insert(meta->store_names.begin(), meta->store_names.end());
  for (const auto& s : op->stores) stores.insert(s.id.store_name);

  Decoder d;
  d.key_schema = op->schemas->key;
  d.value_schema = op->schemas->value;
  d.out_key = d.key_schema;
  d.out_value = d.value_schema;
  std::string store = o.store_name.value_or("default");
  const bool join = name == "symmetricHashJoin";
  if (o.join_side != "none" && !join) {
    return InvalidOption("joinSide", "WITH_MESSAGE",
                         "operator " + std::to_string(o.operator_id) + " is " + name +
                             ", not a stream-stream join (symmetricHashJoin)");
  }
  if (join) {
    if (o.join_side != "none") {
      d.layout = Layout::kJoinSide;
      store = o.join_side + "-keyWithIndexToValue";
      d.value_schema = JoinSideSchema(*op->schemas->value, o.join_side);
      d.out_value = d.value_schema;
    } else if (!o.store_name) {
      return InvalidOption(
          "joinSide", "WITH_MESSAGE",
          "operator " + std::to_string(o.operator_id) +
              " is a stream-stream join: set joinSide ('left' or 'right') or "
              "storeName (one of its four stores)");
    } else {
      const std::string side = store.rfind("left-", 0) == 0 ? "left" : "right";
      if (store.find("keyToNumValues") != std::string::npos) {
        d.layout = Layout::kJoinCounts;
        d.out_value = MakeSchema({Field{"value", DataType::Long(), true}});
      } else {
        d.layout = Layout::kJoinRows;
        d.value_schema = JoinSideSchema(*op->schemas->value, side);
        std::vector<Field> kf = d.key_schema->fields();
        kf.push_back(Field{"index", DataType::Long(), false});
        d.out_key = MakeSchema(std::move(kf));
        std::vector<Field> vf = d.value_schema->fields();
        vf.push_back(Field{"matched", DataType::Boolean(), false});
        d.out_value = MakeSchema(std::move(vf));
      }
    }
  } else if (name == "sessionWindowStateStoreSaveExec") {
    d.layout = Layout::kSession;
  } else if (name == "dedupe") {
    d.layout = Layout::kDedup;
    d.out_value = MakeSchema({Field{"__dummy__", DataType::Null(), true}});
  } else if (name == "dedupeWithinWatermark") {
    d.layout = Layout::kDedupWithin;
  } else if (name == "globalLimit") {
    d.layout = Layout::kLimit;
  } else if (name.rfind("transformWithState", 0) == 0) {
    if (o.read_timers) {
      d.layout = Layout::kTimers;
    } else if (o.state_var) {
      SPATE_RETURN_IF_ERROR(TwsVariableDecoder(*fs, root, o, &d));
    } else {
      return Status::Error("STDS_REQUIRED_OPTION_UNSPECIFIED",
                           {{"optionName", "stateVarName"}});
    }
  } else {
    d.layout = Layout::kAggregate;
    d.value_prefix = meta ? meta->value_prefix_bytes : 0;
    d.guess_prefix = !meta;
  }
  if ((o.state_var || o.read_timers) && d.layout != Layout::kTimers &&
      d.layout != Layout::kTwsVariable) {
    return InvalidOption(o.state_var ? "stateVarName" : "readRegisteredTimers",
                         "WITH_MESSAGE",
                         "operator " + std::to_string(o.operator_id) + " is " + name +
                             ", not transformWithState");
  }
  if (d.layout == Layout::kAggregate || d.layout == Layout::kSession) {
    // The recorded value fields are the aggregates' buffers made unique ("count#0",
    // "sum#1"); the value column names them as Spark does (its buffer attributes:
    // "count").
    std::vector<Field> vf = d.out_value->fields();
    for (Field& f : vf) {
      const size_t hash = f.name.rfind('#');
      if (hash != std::string::npos && hash > 0) f.name.resize(hash);
    }
    d.out_value = MakeSchema(std::move(vf));
  }
  if (!stores.count(store)) {
    std::string known;
    for (const auto& s : stores) known += (known.empty() ? "" : ", ") + s;
    return InvalidOption("storeName", "WITH_MESSAGE",
                         "operator " + std::to_string(o.operator_id) + " has no store '" +
                             store + "' (its stores: " + known + ")");
  }

  // Every column nullable, as Spark's schemas.
  std::vector<Field> out_fields;
  if (o.change_feed) {
    out_fields.push_back(Field{"batch_id", DataType::Long(), true});
    out_fields.push_back(Field{"change_type", DataType::String(), true});
  }
  out_fields.push_back(Field{"key", d.out_key->AsStruct(), true});
  if (d.layout == Layout::kTimers) {
    out_fields.push_back(Field{"expiration_timestamp_ms", DataType::Long(), true});
  } else if (d.layout == Layout::kTwsVariable) {
    const DataTypePtr value = d.out_value->AsStruct();
    switch (d.tws.type) {
      case TwsVariable::Type::kList:
        if (d.flatten) {
          out_fields.push_back(Field{"list_element", value, true});
        } else {
          out_fields.push_back(Field{"list_value", DataType::Array(value), true});
        }
        break;
      case TwsVariable::Type::kMap:
        if (d.flatten) {
          out_fields.push_back(Field{"user_map_key", d.user_key->AsStruct(), true});
          out_fields.push_back(Field{"user_map_value", value, true});
        } else {
          out_fields.push_back(
              Field{"map_value", DataType::Map(d.user_key->AsStruct(), value), true});
        }
        break;
      default:
        out_fields.push_back(Field{"value", value, true});
    }
  } else {
    out_fields.push_back(Field{"value", d.out_value->AsStruct(), true});
  }
  out_fields.push_back(Field{"partition_id", DataType::Int(), true});
  SchemaPtr out_schema = MakeSchema(std::move(out_fields));

  // snapshotPartitionId: that partition only, rebuilt from its snapshot.
  if (o.snapshot_partition && *o.snapshot_partition >= op->num_partitions) {
    return Status::Error("CANNOT_LOAD_STATE_STORE.SNAPSHOT_PARTITION_ID_NOT_FOUND",
                         {{"snapshotPartitionId", std::to_string(*o.snapshot_partition)},
                          {"operatorId", std::to_string(o.operator_id)},
                          {"checkpointLocation", root}});
  }
  std::vector<int> partitions;
  for (int p = 0; p < op->num_partitions; ++p) {
    if (!o.snapshot_partition || p == *o.snapshot_partition) partitions.push_back(p);
  }
  // The packed join layout keeps a side's rows and counts in its keyWithIndexToValue
  // store, one entry per key; they are shown as Spark's stores.
  const bool packed = join && meta && IsPackedJoinFormat(meta->join_state_format);
  const bool packed_counts = packed && d.layout == Layout::kJoinCounts;
  std::string physical = store;
  if (packed_counts) physical = store.substr(0, store.find('-')) + "-keyWithIndexToValue";
  std::vector<std::vector<RawRow>> per_partition(static_cast<size_t>(op->num_partitions));
  // Format 3: the stored rows leave out the key columns, rebuilt from the keys.
  std::shared_ptr<const JoinRowLayout> keyless;
  if (packed && !packed_counts && meta->join_state_format == kJoinStateFormatKeyless) {
    const size_t side = physical.rfind("left-", 0) == 0 ? 0 : 1;
    keyless =
        JoinRowLayout::Make(d.value_schema, d.key_schema, meta->join_key_columns[side]);
  }
  for (int p : partitions) {
    state::StateStoreId id{root, o.operator_id, p, physical};
    auto& rows = per_partition[static_cast<size_t>(p)];
    if (packed && o.change_feed) {
      SPATE_ASSIGN_OR_RETURN(
          rows, PackedJoinChangeFeed(id, desc.state_conf, fs, *o.change_start,
                                     o.change_end.value_or(last), packed_counts));
    } else if (o.change_feed) {
      const int64_t end = o.change_end.value_or(last);
      for (int64_t b = *o.change_start; b <= end; ++b) {
        // Batch b committed version b+1: the changes of its delta / changelog file.
        SPATE_ASSIGN_OR_RETURN(auto changes,
                               state::ReadStoreChanges(id, desc.state_conf, *fs, b + 1));
        for (auto& c : changes) {
          RawRow r;
          r.key = std::move(c.key);
          if (!c.removed) r.value = std::move(c.value);
          r.removed = c.removed;
          r.batch_id = b;
          rows.push_back(std::move(r));
        }
      }
    } else {
      // Batch b's state is version b+1; snapshotStartBatchId s names version s+1's base
      // file.
      std::optional<int64_t> base;
      if (o.snapshot_start) base = *o.snapshot_start + 1;
      SPATE_ASSIGN_OR_RETURN(rows, ReadStoreVersion(id, desc.state_conf, fs,
                                                    o.batch_id.value_or(last) + 1, base));
      if (packed) {
        SPATE_ASSIGN_OR_RETURN(rows, PackedJoinAsSpark(rows, packed_counts));
      }
    }
    if (keyless && keyless->rebuilds())
      SPATE_RETURN_IF_ERROR(RebuildJoinKeyColumns(keyless, &rows));
  }
  if (d.guess_prefix) {
    // No operator metadata (a checkpoint of an older spate): the layout whose values all
    // decode; an event-time grouping key puts 8 bytes first.
    bool plain = true;
    for (const auto& rows : per_partition)
      plain = plain && ValuesDecode(d.value_schema, rows, 0);
    d.value_prefix = plain ? 0 : 8;
  }
  std::vector<BatchPtr> batches;
  for (int p : partitions) {
    const auto& rows = per_partition[static_cast<size_t>(p)];
    SPATE_ASSIGN_OR_RETURN(
        BatchPtr b, d.layout == Layout::kTimers ? DecodeTimers(d, rows, p, out_schema)
                    : d.layout == Layout::kTwsVariable
                        ? DecodeTwsVariable(d, rows, p, o.change_feed, out_schema)
                        : DecodeRows(d, rows, p, o.change_feed, out_schema));
    batches.push_back(std::move(b));
  }
  return DataSourcePtr(std::make_shared<BatchesDataSource>(
      out_schema, std::move(batches), "StateStore " + checkpoint + " " + o.ToString()));
}

Result<DataSourcePtr> MakeStateMetadataSource(const io::FileSystemPtr& fs,
                                              const std::string& checkpoint) {
  if (checkpoint.empty())
    return Status::Error("STDS_REQUIRED_OPTION_UNSPECIFIED", {{"optionName", "path"}});
  SPATE_ASSIGN_OR_RETURN(CheckpointDescription desc,
                         DescribeCheckpoint(fs, checkpoint, /*load_stores=*/false));
  const std::string root = io::JoinPath(checkpoint, "state");
  std::vector<Value> ids, names, stores, parts, mins, maxs, props;
  for (const auto& op : desc.operators) {
    SPATE_ASSIGN_OR_RETURN(auto meta, ReadOperatorMetadata(*fs, root, op.operator_id));
    const std::string name = meta ? meta->operator_name : GuessOperatorName(op);
    // transformWithState: Spark's operator properties (its variables), when recorded.
    Value properties = Value::Null(DataType::String());
    if (name.rfind("transformWithState", 0) == 0) {
      SPATE_ASSIGN_OR_RETURN(
          auto tws, ReadTwsStateMetadata(*fs, root, op.operator_id, std::nullopt));
      if (tws) properties = Value::String(tws->properties_json);
    }
    // Per store name: the oldest batch whose state every partition can still load (its
    // first delta is version 1, else its oldest base file) and the newest committed one.
    std::map<std::string, int64_t> min_version;
    for (const auto& s : op.stores) {
      if (s.versions.empty()) continue;
      int64_t v = s.versions.front() == 1 || s.base_versions.empty()
                      ? s.versions.front()
                      : s.base_versions.front();
      auto [it, fresh] = min_version.emplace(s.id.store_name, v);
      if (!fresh) it->second = std::max(it->second, v);
    }
    if (name == "symmetricHashJoin" && meta &&
        IsPackedJoinFormat(meta->join_state_format)) {
      // The packed layout keeps each side's counts in its keyWithIndexToValue store.
      for (const char* side : {"left", "right"}) {
        auto it = min_version.find(std::string(side) + "-keyWithIndexToValue");
        if (it != min_version.end())
          min_version.emplace(std::string(side) + "-keyToNumValues", it->second);
      }
    }
    for (const auto& [store, minv] : min_version) {
      ids.push_back(Value::Long(op.operator_id));
      names.push_back(Value::String(name));
      stores.push_back(Value::String(store));
      parts.push_back(Value::Int(op.num_partitions));
      mins.push_back(Value::Long(std::max<int64_t>(0, minv - 1)));
      maxs.push_back(desc.last_committed_batch ? Value::Long(*desc.last_committed_batch)
                                               : Value::Long(-1));
      props.push_back(properties);
    }
  }
  SchemaPtr schema = MakeSchema({Field{"operatorId", DataType::Long(), true},
                                 Field{"operatorName", DataType::String(), true},
                                 Field{"stateStoreName", DataType::String(), true},
                                 Field{"numPartitions", DataType::Int(), true},
                                 Field{"minBatchId", DataType::Long(), true},
                                 Field{"maxBatchId", DataType::Long(), true},
                                 Field{"operatorProperties", DataType::String(), true}});
  const auto n = static_cast<int64_t>(ids.size());
  std::vector<ColumnPtr> cols = {ColumnFromValues(DataType::Long(), ids),
                                 ColumnFromValues(DataType::String(), names),
                                 ColumnFromValues(DataType::String(), stores),
                                 ColumnFromValues(DataType::Int(), parts),
                                 ColumnFromValues(DataType::Long(), mins),
                                 ColumnFromValues(DataType::Long(), maxs),
                                 ColumnFromValues(DataType::String(), props)};
  std::vector<BatchPtr> batches = {Batch::Make(schema, std::move(cols), n)};
  return DataSourcePtr(std::make_shared<BatchesDataSource>(
      schema, std::move(batches), "StateMetadata " + checkpoint));
}

}  // namespace spate::stream
