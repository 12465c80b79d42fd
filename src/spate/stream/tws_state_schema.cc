// Copyright spate authors.
#include "spate/stream/tws_state_schema.h"

#include <algorithm>
#include <charconv>

#include "spate/base/json.h"
#include "spate/stream/checkpoint.h"
#include "spate/types/schema_json.h"

namespace spate::stream {

namespace {

constexpr char kNoUserKey[] = "{    }";  // what Spark writes for "no user key schema"
constexpr size_t kChunk = 65535;         // the longest writeUTF

std::string SchemaDir(const std::string& root, int64_t op) {
  return io::JoinPath(
      io::JoinPath(io::JoinPath(root, std::to_string(op)), "_stateSchema"), "default");
}
std::string MetadataDir(const std::string& root, int64_t op) {
  return io::JoinPath(io::JoinPath(io::JoinPath(root, std::to_string(op)), "_metadata"),
                      "v2");
}

SchemaPtr Struct(std::vector<Field> f) {
  return std::make_shared<const Schema>(std::move(f));
}

void PutU16(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>((v >> 8) & 0xff));
  out->push_back(static_cast<char>(v & 0xff));
}
void PutI32(std::string* out, uint32_t v) {
  PutU16(out, v >> 16);
  PutU16(out, v & 0xffff);
}
void PutUtf(std::string* out, std::string_view s) {
  PutU16(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}
void PutChunked(std::string* out, std::string_view s) {
  const size_t n = std::max<size_t>(1, (s.size() + kChunk - 1) / kChunk);
  PutI32(out, static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) PutUtf(out, s.substr(i * kChunk, kChunk));
}

// Java's String.hashCode over the UTF-16 units of a UTF-8 name.
int32_t JavaHash(std::string_view s) {
  uint32_t h = 0;
  auto unit = [&](uint32_t u) { h = 31 * h + u; };
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0xf0 && i + 3 < s.size()) {
      cp = ((c & 0x07u) << 18) | ((static_cast<uint8_t>(s[i + 1]) & 0x3fu) << 12) |
           ((static_cast<uint8_t>(s[i + 2]) & 0x3fu) << 6) |
           (static_cast<uint8_t>(s[i + 3]) & 0x3fu);
      len = 4;
    } else if (c >= 0xe0 && i + 2 < s.size()) {
      cp = ((c & 0x0fu) << 12) | ((static_cast<uint8_t>(s[i + 1]) & 0x3fu) << 6) |
           (static_cast<uint8_t>(s[i + 2]) & 0x3fu);
      len = 3;
    } else if (c >= 0xc0 && i + 1 < s.size()) {
      cp = ((c & 0x1fu) << 6) | (static_cast<uint8_t>(s[i + 1]) & 0x3fu);
      len = 2;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      unit(0xd800 + (cp >> 10));
      unit(0xdc00 + (cp & 0x3ff));
    } else {
      unit(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

std::string TimerFamily(const std::string& time_mode) {
  if (time_mode == "ProcessingTime") return "$procTimers_keyToTimestamp";
  if (time_mode == "EventTime") return "$eventTimers_keyToTimestamp";
  return "";
}

Status Corrupt(const std::string& path, const std::string& why) {
  return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
      .WithContext("Error reading state schema file " + path + ": " + why);
}

// "<batch>_..." / "<batch>" file names: the batch id, else nullopt.
std::optional<int64_t> LeadingBatch(std::string_view name) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
  if (ec != std::errc() || end == name.data()) return std::nullopt;
  if (end != name.data() + name.size() && *end != '_') return std::nullopt;
  return v;
}

// The files of `dir` by their leading batch id (missing folder: none).
Result<std::vector<std::pair<int64_t, std::string>>> ByBatch(io::FileSystem& fs,
                                                             const std::string& dir) {
  std::vector<std::pair<int64_t, std::string>> out;
  auto exists = fs.Exists(dir);
  if (!exists.ok() || !*exists) return out;
  SPATE_ASSIGN_OR_RETURN(auto files, fs.List(dir, false));
  for (const auto& f : files) {
    const std::string name = io::BaseName(f.path);
    if (f.is_directory || name.empty() || name[0] == '.') continue;
    if (auto b = LeadingBatch(name)) out.emplace_back(*b, f.path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

const char* TwsVariableTypeName(TwsVariable::Type t) {
  switch (t) {
    case TwsVariable::Type::kValue:
      return "ValueState";
    case TwsVariable::Type::kList:
      return "ListState";
    case TwsVariable::Type::kMap:
      return "MapState";
    case TwsVariable::Type::kTimer:
      return "TimerState";
  }
  return "";
}

bool TwsColumnFamily::operator==(const TwsColumnFamily& o) const {
  auto same = [](const SchemaPtr& a, const SchemaPtr& b) {
    if (!a || !b) return !a && !b;
    return SchemaToSparkJson(*a) == SchemaToSparkJson(*b);
  };
  return name == o.name && same(key, o.key) && same(value, o.value) &&
         encoder_json == o.encoder_json && same(user_key, o.user_key);
}

std::vector<TwsColumnFamily> TwsColumnFamilies(const SchemaPtr& key,
                                               const std::vector<TwsVariable>& vars,
                                               const std::string& time_mode) {
  static const std::string kNoPrefix =
      R"({"keyStateEncoderType":"NoPrefixKeyStateEncoderSpec"})";
  static const std::string kPrefix1 =
      R"({"keyStateEncoderType":"PrefixKeyScanStateEncoderSpec","numColsPrefixKey":1})";
  std::vector<TwsColumnFamily> out;
  for (const auto& v : vars) {
    if (v.type == TwsVariable::Type::kTimer) continue;
    TwsColumnFamily cf;
    cf.name = v.name;
    cf.value = v.value;
    if (v.ttl) {
      cf.value = Struct({Field{"value", v.value->AsStruct(), true},
                         Field{"ttlExpirationMs", DataType::Long(), true}});
    }
    if (v.type == TwsVariable::Type::kMap) {
      cf.key = Struct({Field{"key", key->AsStruct(), true},
                       Field{"userKey", v.user_key->AsStruct(), true}});
      cf.encoder_json = kPrefix1;
      cf.user_key = v.user_key;
    } else {
      cf.key = key;
      cf.encoder_json = kNoPrefix;
    }
    out.push_back(std::move(cf));
  }
  const std::string timers = TimerFamily(time_mode);
  if (!timers.empty()) {
    TwsColumnFamily cf;
    cf.name = timers;
    cf.key = Struct({Field{"key", key->AsStruct(), true},
                     Field{"expiryTimestampMs", DataType::Long(), false}});
    cf.value = Struct({Field{"__dummy__", DataType::Null(), true}});
    cf.encoder_json = kPrefix1;
    out.push_back(std::move(cf));
  }
  std::sort(
      out.begin(), out.end(),
      [](const TwsColumnFamily& a, const TwsColumnFamily& b) { return a.name < b.name; });
  return out;
}

std::string EncodeStateSchemaV3(const std::vector<TwsColumnFamily>& families) {
  std::string out;
  PutUtf(&out, "v3");
  PutI32(&out, static_cast<uint32_t>(families.size()));
  for (const auto& cf : families) {
    PutUtf(&out, cf.name);
    PutU16(&out, 0);
    PutChunked(&out, SchemaToSparkJson(*cf.key));
    PutU16(&out, 0);
    PutChunked(&out, SchemaToSparkJson(*cf.value));
    PutChunked(&out, cf.encoder_json);
    PutChunked(&out, cf.user_key ? SchemaToSparkJson(*cf.user_key) : kNoUserKey);
  }
  return out;
}

bool JavaDataReader::U16(uint32_t* v) {
  if (at_ + 2 > b_.size()) return false;
  *v = (static_cast<uint32_t>(static_cast<uint8_t>(b_[at_])) << 8) |
       static_cast<uint8_t>(b_[at_ + 1]);
  at_ += 2;
  return true;
}

bool JavaDataReader::I32(uint32_t* v) {
  uint32_t hi = 0, lo = 0;
  if (!U16(&hi) || !U16(&lo)) return false;
  *v = (hi << 16) | lo;
  return true;
}

bool JavaDataReader::Utf(std::string* out) {
  uint32_t n = 0;
  if (!U16(&n) || at_ + n > b_.size()) return false;
  out->append(b_.data() + at_, n);
  at_ += n;
  return true;
}

bool JavaDataReader::Chunked(std::string* out) {
  uint32_t n = 0;
  if (!I32(&n) || n > 1024) return false;
  for (uint32_t i = 0; i < n; ++i) {
    if (!Utf(out)) return false;
  }
  return true;
}

Result<std::vector<TwsColumnFamily>> DecodeStateSchemaV3(std::string_view b,
                                                         const std::string& path) {
  JavaDataReader in(b);
  std::string version;
  uint32_t count = 0;
  if (!in.Utf(&version)) return Corrupt(path, "truncated version");
  if (version != "v3") return Corrupt(path, "version " + version + " is not v3");
  if (!in.I32(&count) || count > 1u << 20)
    return Corrupt(path, "truncated column family count");
  std::vector<TwsColumnFamily> out;
  for (uint32_t i = 0; i < count; ++i) {
    TwsColumnFamily cf;
    uint32_t id = 0;
    std::string key, value, user_key;
    if (!in.Utf(&cf.name) || !in.U16(&id) || !in.Chunked(&key) || !in.U16(&id) ||
        !in.Chunked(&value) || !in.Chunked(&cf.encoder_json) || !in.Chunked(&user_key)) {
      return Corrupt(path, "truncated column family " + std::to_string(i));
    }
    auto k = SchemaFromSparkJson(key);
    auto v = SchemaFromSparkJson(value);
    if (!k.ok() || !v.ok())
      return Corrupt(path, "bad schema of column family " + cf.name);
    cf.key = *k;
    cf.value = *v;
    if (user_key.find("\"fields\"") != std::string::npos) {
      auto u = SchemaFromSparkJson(user_key);
      if (!u.ok())
        return Corrupt(path, "bad user key schema of column family " + cf.name);
      cf.user_key = *u;
    }
    out.push_back(std::move(cf));
  }
  if (!in.AtEnd()) return Corrupt(path, "trailing bytes");
  return out;
}

std::string TwsOperatorProperties(const std::string& time_mode,
                                  const std::string& output_mode,
                                  const std::vector<TwsVariable>& vars) {
  std::vector<TwsVariable> all = vars;
  const std::string timers = TimerFamily(time_mode);
  if (!timers.empty()) {
    TwsVariable t;
    t.name = timers;
    t.type = TwsVariable::Type::kTimer;
    all.push_back(std::move(t));
  }
  // Scala 2.13's mutable.HashMap: 16 buckets doubled while size > 0.75 * buckets; bucket
  // of (h ^ h >>> 16) & (buckets - 1); a bucket's entries by that hash, then insertion.
  size_t buckets = 16;
  while (static_cast<double>(all.size()) > 0.75 * static_cast<double>(buckets))
    buckets *= 2;
  struct Slot {
    uint32_t bucket, hash;
    size_t order;
  };
  std::vector<Slot> slots;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto h = static_cast<uint32_t>(JavaHash(all[i].name));
    const uint32_t improved = h ^ (h >> 16);
    slots.push_back(Slot{improved & static_cast<uint32_t>(buckets - 1), improved, i});
  }
  std::stable_sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
    return a.bucket != b.bucket ? a.bucket < b.bucket : a.hash < b.hash;
  });
  Json list = Json::Array();
  for (const Slot& s : slots) {
    const TwsVariable& v = all[s.order];
    Json e = Json::Object();
    e.Set("stateName", Json::String(v.name));
    e.Set("stateVariableType", Json::String(TwsVariableTypeName(v.type)));
    e.Set("ttlEnabled", Json::Bool(v.ttl));
    list.Append(std::move(e));
  }
  Json j = Json::Object();
  j.Set("timeMode", Json::String(time_mode));
  j.Set("outputMode", Json::String(output_mode));
  j.Set("stateVariables", std::move(list));
  return j.ToString();
}

Status WriteTwsStateMetadata(io::FileSystem& fs, const std::string& state_root,
                             int64_t operator_id, const std::string& operator_name,
                             int num_partitions, int64_t batch_id,
                             const std::vector<TwsColumnFamily>& families,
                             const std::string& properties_json) {
  const std::string dir = SchemaDir(state_root, operator_id);
  SPATE_ASSIGN_OR_RETURN(auto existing, ByBatch(fs, dir));
  std::string schema_path;
  if (!existing.empty()) {
    SPATE_ASSIGN_OR_RETURN(std::string bytes, fs.ReadAll(existing.back().second));
    SPATE_ASSIGN_OR_RETURN(auto old, DecodeStateSchemaV3(bytes, existing.back().second));
    if (old == families) schema_path = existing.back().second;
  }
  if (schema_path.empty()) {
    SPATE_RETURN_IF_ERROR(fs.MakeDirs(dir));
    schema_path = io::JoinPath(dir, std::to_string(batch_id) + "_" + RandomUuid());
    SPATE_RETURN_IF_ERROR(fs.WriteAtomic(schema_path, EncodeStateSchemaV3(families)));
  }
  Json info = Json::Object();
  info.Set("operatorId", Json::Int(operator_id));
  info.Set("operatorName", Json::String(operator_name));
  Json store = Json::Object();
  store.Set("storeName", Json::String("default"));
  store.Set("numColsPrefixKey", Json::Int(0));
  store.Set("numPartitions", Json::Int(num_partitions));
  Json paths = Json::Array();
  // Spark names the file by its URI.
  paths.Append(
      Json::String(schema_path.rfind('/', 0) == 0 ? "file:" + schema_path : schema_path));
  store.Set("stateSchemaFilePaths", std::move(paths));
  Json stores = Json::Array();
  stores.Append(std::move(store));
  Json j = Json::Object();
  j.Set("operatorInfo", std::move(info));
  j.Set("stateStoreInfo", std::move(stores));
  j.Set("operatorPropertiesJson", Json::String(properties_json));
  const std::string mdir = MetadataDir(state_root, operator_id);
  SPATE_RETURN_IF_ERROR(fs.MakeDirs(mdir));
  return fs.WriteAtomic(io::JoinPath(mdir, std::to_string(batch_id)),
                        "v2\n" + j.ToString());
}

Result<std::optional<TwsStateMetadata>> ReadTwsStateMetadata(
    io::FileSystem& fs, const std::string& state_root, int64_t operator_id,
    std::optional<int64_t> batch_id) {
  SPATE_ASSIGN_OR_RETURN(auto files, ByBatch(fs, MetadataDir(state_root, operator_id)));
  const std::pair<int64_t, std::string>* pick = nullptr;
  for (const auto& f : files) {
    if (!batch_id || f.first <= *batch_id) pick = &f;
  }
  if (!pick) return std::optional<TwsStateMetadata>();
  const std::string& path = pick->second;
  SPATE_ASSIGN_OR_RETURN(std::string text, fs.ReadAll(path));
  const size_t nl = text.find('\n');
  if (nl == std::string::npos || text.compare(0, nl, "v2") != 0)
    return Corrupt(path, "not a v2 operator metadata file");
  auto doc = Json::Parse(std::string_view(text).substr(nl + 1));
  if (!doc.ok()) return Corrupt(path, doc.status().message());
  TwsStateMetadata m;
  m.batch_id = pick->first;
  const Json* info = doc->Find("operatorInfo");
  const Json* stores = doc->Find("stateStoreInfo");
  const Json* props = doc->Find("operatorPropertiesJson");
  if (!info || !stores || !stores->is_array() || stores->items().empty() || !props)
    return Corrupt(path, "missing fields");
  if (const Json* n = info->Find("operatorName")) m.operator_name = n->string_value();
  m.properties_json = props->string_value();
  const Json* schema_paths = stores->items()[0].Find("stateSchemaFilePaths");
  if (!schema_paths || !schema_paths->is_array() || schema_paths->items().empty())
    return Corrupt(path, "no state schema file");
  const std::string schema_file =
      io::JoinPath(SchemaDir(state_root, operator_id),
                   io::BaseName(schema_paths->items().back().string_value()));
  SPATE_ASSIGN_OR_RETURN(std::string bytes, fs.ReadAll(schema_file));
  SPATE_ASSIGN_OR_RETURN(m.families, DecodeStateSchemaV3(bytes, schema_file));
  auto p = Json::Parse(m.properties_json);
  if (!p.ok()) return Corrupt(path, "operatorPropertiesJson: " + p.status().message());
  if (const Json* vars = p->Find("stateVariables"); vars && vars->is_array()) {
    for (const auto& v : vars->items()) {
      TwsVariable tv;
      if (const Json* n = v.Find("stateName")) tv.name = n->string_value();
      const Json* t = v.Find("stateVariableType");
      const std::string type = t ? t->string_value() : "";
      tv.type = type == "ListState"    ? TwsVariable::Type::kList
                : type == "MapState"   ? TwsVariable::Type::kMap
                : type == "TimerState" ? TwsVariable::Type::kTimer
                                       : TwsVariable::Type::kValue;
      if (const Json* ttl = v.Find("ttlEnabled")) tv.ttl = ttl->bool_value();
      m.variables.push_back(std::move(tv));
    }
  }
  return std::optional<TwsStateMetadata>(std::move(m));
}

}  // namespace spate::stream
