// Copyright spate authors.
#include "spate/state/state_store.h"

#include <algorithm>
#include <set>

#include "spate/base/json.h"
#include "spate/base/text_parse.h"
#include "spate/state/providers.h"
#include "spate/state/state_file.h"
#include "spate/types/schema_json.h"

namespace spate::state {

std::string StateStoreId::Path() const {
  std::string p = io::JoinPath(io::JoinPath(root, std::to_string(operator_id)),
                               std::to_string(partition));
  if (store_name != "default" && !store_name.empty()) p = io::JoinPath(p, store_name);
  return p;
}

Result<std::string> ParseProviderClass(const std::string& cls) {
  static constexpr std::string_view kSparkPackage =
      "org.apache.spark.sql.execution.streaming.state.";
  std::string lower = ToLower(cls);
  if (cls == std::string(kSparkPackage) + "HDFSBackedStateStoreProvider" ||
      cls == "HDFSBackedStateStoreProvider" || lower == "memory" || lower == "hdfs") {
    return std::string("memory");
  }
  if (cls == std::string(kSparkPackage) + "RocksDBStateStoreProvider" ||
      cls == "com.databricks.sql.streaming.state.RocksDBStateStoreProvider" ||
      cls == "RocksDBStateStoreProvider" || lower == "rocksdb") {
    return std::string("rocksdb");
  }
  return Status::Error("STATE_STORE_INVALID_PROVIDER", {{"inputClass", cls}});
}

namespace {

Result<int64_t> ParseConfInt(const std::string& key, const std::string& text,
                             int64_t min) {
  std::optional<int64_t> v = ParseInt64(text);
  if (!v || *v < min) {
    return Status::Invalid("invalid value '" + text + "' for " + key +
                           ": expected an integer >= " + std::to_string(min));
  }
  return *v;
}

// spark.sql.streaming.stateStore.rocksdb.<name> settings copied into
// StateStoreConf::extra (localDir is spate's own: where the working folders go; default
// the temp folder).
constexpr std::string_view kRocksDbConfs[] = {
    "changelogCheckpointing.enabled",
    "boundedMemoryUsage",
    "maxMemoryUsageMB",
    "writeBufferCacheRatio",
    "highPriorityPoolRatio",
    "blockSizeKB",
    "blockCacheSizeMB",
    "writeBufferSizeMB",
    "maxWriteBufferNumber",
    "maxOpenFiles",
    "compactOnCommit",
    "trackTotalNumberOfRows",
    "formatVersion",
    "compression",
    "allowFAllocate",
    "resetStatsOnLoad",
    "lockAcquireTimeoutMs",
    "localDir",
};

}  // namespace

Result<StateStoreConf> StateStoreConf::FromConf(
    const std::function<std::string(const std::string&, const std::string&)>& conf) {
  StateStoreConf c;
  SPATE_ASSIGN_OR_RETURN(c.provider, ParseProviderClass(conf(
                                         "spark.sql.streaming.stateStore.providerClass",
                                         "org.apache.spark.sql.execution.streaming.state."
                                         "HDFSBackedStateStoreProvider")));
  const std::string deltas_key = "spark.sql.streaming.stateStore.minDeltasForSnapshot";
  SPATE_ASSIGN_OR_RETURN(c.min_deltas_for_snapshot,
                         ParseConfInt(deltas_key, conf(deltas_key, "10"), 1));
  const std::string retain_key = "spark.sql.streaming.minBatchesToRetain";
  SPATE_ASSIGN_OR_RETURN(c.min_versions_to_retain,
                         ParseConfInt(retain_key, conf(retain_key, "100"), 1));
  c.compression_codec = conf("spark.sql.streaming.stateStore.compression.codec", "lz4");
  SPATE_RETURN_IF_ERROR(ParseFileCodec(c.compression_codec));
  const std::string join_key = "spate.streaming.join.stateFormatVersion";
  SPATE_ASSIGN_OR_RETURN(int64_t join_format,
                         ParseConfInt(join_key, conf(join_key, "3"), 1));
  if (join_format > 3) {
    return Status::Invalid("invalid value '" + conf(join_key, "3") + "' for " + join_key +
                           ": expected 1 (Spark's four stores), 2 (one entry per key) or "
                           "3 (one entry per key, key columns not stored twice)");
  }
  c.join_state_format = static_cast<int>(join_format);
  for (std::string_view name : kRocksDbConfs) {
    std::string key = "spark.sql.streaming.stateStore.rocksdb." + std::string(name);
    std::string v = conf(key, "");
    if (!v.empty()) c.extra[std::string(name)] = v;
  }
  return c;
}

void StateStore::RewriteEach(const RewriteFn& fn) {
  std::vector<std::pair<std::string, std::optional<std::string>>> changes;
  std::string replacement;
  ForEach([&](std::string_view k, std::string_view v) {
    switch (fn(k, v, &replacement)) {
      case EntryRewrite::kKeep:
        break;
      case EntryRewrite::kRemove:
        changes.emplace_back(k, std::nullopt);
        break;
      case EntryRewrite::kReplace:
        changes.emplace_back(k, replacement);
        break;
    }
  });
  for (const auto& [k, v] : changes) {
    if (v) {
      Put(k, *v);
    } else {
      Remove(k);
    }
  }
}

Result<std::unique_ptr<StateStoreProvider>> CreateStateStoreProvider(
    const StateStoreId& id, const StateStoreConf& conf, io::FileSystemPtr fs) {
  SPATE_ASSIGN_OR_RETURN(std::string provider, ParseProviderClass(conf.provider));
  if (provider == "rocksdb") return MakeRocksDbProvider(id, conf, std::move(fs));
  return MakeMemoryProvider(id, conf, std::move(fs));
}

namespace {

bool CompatibleType(const DataType& now, const DataType& stored);

/// Spark's DataType.equalsIgnoreNameAndCompatibleNullability(from = new, to = stored):
/// equal ignoring field names, and the stored type is nullable wherever the new one is.
bool CompatibleNullability(bool now_nullable, bool stored_nullable) {
  return stored_nullable || !now_nullable;
}

bool CompatibleFields(const std::vector<Field>& now, const std::vector<Field>& stored) {
  if (now.size() != stored.size()) return false;
  for (size_t i = 0; i < now.size(); ++i) {
    if (!CompatibleNullability(now[i].nullable, stored[i].nullable) ||
        !CompatibleType(*now[i].type, *stored[i].type)) {
      return false;
    }
  }
  return true;
}

bool CompatibleType(const DataType& now, const DataType& stored) {
  if (now.id() != stored.id()) return false;
  switch (now.id()) {
    case TypeId::kStruct:
      return CompatibleFields(now.fields(), stored.fields());
    case TypeId::kArray:
      return CompatibleNullability(now.contains_null(), stored.contains_null()) &&
             CompatibleType(*now.element_type(), *stored.element_type());
    case TypeId::kMap:
      return CompatibleNullability(now.value_contains_null(),
                                   stored.value_contains_null()) &&
             CompatibleType(*now.key_type(), *stored.key_type()) &&
             CompatibleType(*now.value_type(), *stored.value_type());
    default:
      return now.Equals(stored);
  }
}

}  // namespace

Result<std::optional<StateSchemas>> ReadStateSchema(io::FileSystem& fs,
                                                    const std::string& root,
                                                    int64_t operator_id) {
  std::string path = io::JoinPath(
      io::JoinPath(io::JoinPath(root, std::to_string(operator_id)), "_metadata"),
      "schema");
  auto text = fs.ReadAll(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound)
      return std::optional<StateSchemas>();
    return text.status();
  }
  auto corrupt = [&](const Status& why) {
    return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
        .WithContext("Error reading state schema file " + path + ": " + why.message());
  };
  auto doc = Json::Parse(*text);
  if (!doc.ok()) return corrupt(doc.status());
  const Json* key_json = doc->Find("keySchema");
  const Json* value_json = doc->Find("valueSchema");
  if (!key_json || !value_json) {
    return corrupt(Status::Invalid("missing keySchema or valueSchema"));
  }
  auto stored_key = SchemaFromSparkJson(key_json->ToString());
  if (!stored_key.ok()) return corrupt(stored_key.status());
  auto stored_value = SchemaFromSparkJson(value_json->ToString());
  if (!stored_value.ok()) return corrupt(stored_value.status());
  return std::optional<StateSchemas>(StateSchemas{*stored_key, *stored_value});
}

Result<std::vector<StoreChange>> ReadStoreChanges(const StateStoreId& id,
                                                  const StateStoreConf& conf,
                                                  io::FileSystem& fs, int64_t version) {
  SPATE_RETURN_IF_ERROR(CheckVersion(version));
  SPATE_ASSIGN_OR_RETURN(std::string provider, ParseProviderClass(conf.provider));
  const bool rocks = provider == "rocksdb";
  const StateFileKind kind = rocks ? StateFileKind::kChangelog : StateFileKind::kDelta;
  const std::string path = VersionFile(id.Path(), version, rocks ? "changelog" : "delta");
  const std::string owner =
      std::string(rocks ? "RocksDBStateStoreProvider" : "HDFSStateStoreProvider") +
      "[id = (op=" + std::to_string(id.operator_id) +
      ",part=" + std::to_string(id.partition) + "),dir = " + id.Path() + "]";
  SPATE_ASSIGN_OR_RETURN(DecodedStateFile file, ReadStateFile(fs, path, kind, owner));
  std::vector<StoreChange> out;
  SPATE_RETURN_IF_ERROR(
      ForEachRecord(file.records, kind, path, owner,
                    [&](RecordOp op, std::string_view key, std::string_view value) {
                      StoreChange c;
                      c.removed = op == RecordOp::kRemove;
                      c.key.assign(key);
                      if (!c.removed) c.value.assign(value);
                      out.push_back(std::move(c));
                    }));
  return out;
}

Result<StoreDescription> DescribeStateStore(const StateStoreId& id,
                                            const StateStoreConf& conf,
                                            io::FileSystemPtr fs,
                                            std::optional<int64_t> prefer,
                                            bool load_store) {
  StoreDescription d;
  d.id = id;
  SPATE_ASSIGN_OR_RETURN(std::string provider, ParseProviderClass(conf.provider));
  const std::string dir = id.Path();
  SPATE_ASSIGN_OR_RETURN(StoreFiles files, ListStoreFiles(*fs, dir));
  const bool rocks = provider == "rocksdb";
  std::set<int64_t> versions;
  for (std::string_view suffix :
       {rocks ? "changelog" : "delta", rocks ? "checkpoint" : "snapshot"}) {
    for (const auto& [v, path] : files.Of(suffix)) versions.insert(v);
  }
  for (const auto& [v, path] : files.Of(rocks ? "checkpoint" : "snapshot")) {
    d.base_versions.push_back(v);
  }
  d.versions.assign(versions.begin(), versions.end());
  // Bytes: the store folder's files, and a rocksdb store's shared SSTs/ (other folders
  // are named stores, described on their own).
  auto listed = fs->List(dir, false);
  if (listed.ok()) {
    for (const io::FileInfo& f : *listed) {
      if (!f.is_directory) {
        d.num_files += 1;
        d.bytes_on_disk += f.size;
      } else if (rocks && io::BaseName(f.path) == "SSTs") {
        auto ssts = fs->List(f.path, true);
        if (!ssts.ok()) return ssts.status();
        for (const io::FileInfo& s : *ssts) {
          if (s.is_directory) continue;
          d.num_files += 1;
          d.bytes_on_disk += s.size;
        }
      }
    }
  } else if (listed.status().code() != StatusCode::kNotFound) {
    return listed.status();
  }
  if (d.versions.empty() || !load_store) return d;
  int64_t version = d.versions.back();
  if (prefer && std::binary_search(d.versions.begin(), d.versions.end(), *prefer)) {
    version = *prefer;
  }
  auto load = [&]() -> Status {
    SPATE_ASSIGN_OR_RETURN(auto p, CreateStateStoreProvider(id, conf, fs));
    auto store = p->GetStore(version);
    if (!store.ok()) {
      p->Close();
      return store.status();
    }
    d.loaded_version = version;
    d.metrics = (*store)->metrics();
    (*store)->Abort();
    p->Close();
    return Status::OK();
  };
  Status st = load();
  if (!st.ok()) d.load_error = st.ToString();
  return d;
}

Status CheckOrWriteStateSchema(io::FileSystem& fs, const std::string& root,
                               int64_t operator_id, const Schema& key_schema,
                               const Schema& value_schema) {
  std::string dir =
      io::JoinPath(io::JoinPath(root, std::to_string(operator_id)), "_metadata");
  std::string path = io::JoinPath(dir, "schema");
  SPATE_ASSIGN_OR_RETURN(auto stored, ReadStateSchema(fs, root, operator_id));
  if (!stored) {
    Json doc = Json::Object();
    doc.Set("version", Json::Int(1));
    SPATE_ASSIGN_OR_RETURN(Json key_json, Json::Parse(SchemaToSparkJson(key_schema)));
    SPATE_ASSIGN_OR_RETURN(Json value_json, Json::Parse(SchemaToSparkJson(value_schema)));
    doc.Set("keySchema", std::move(key_json));
    doc.Set("valueSchema", std::move(value_json));
    SPATE_RETURN_IF_ERROR(fs.MakeDirs(dir));
    Status st = fs.PutIfAbsent(path, doc.ToString() + "\n");
    if (st.code() != StatusCode::kAlreadyExists) return st;
    // Another writer won the race: check against its schemas.
    SPATE_ASSIGN_OR_RETURN(stored, ReadStateSchema(fs, root, operator_id));
    if (!stored) {
      return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
          .WithContext("State schema file " + path + " disappeared");
    }
  }
  return CheckStateSchemaCompatibility(*stored, key_schema, value_schema);
}

Status CheckStateSchemaCompatibility(const StateSchemas& stored, const Schema& key_schema,
                                     const Schema& value_schema) {
  if (!CompatibleFields(key_schema.fields(), stored.key->fields())) {
    return Status::Error("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE",
                         {{"storedKeySchema", stored.key->ToString()},
                          {"newKeySchema", key_schema.ToString()}});
  }
  if (!CompatibleFields(value_schema.fields(), stored.value->fields())) {
    return Status::Error("STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE",
                         {{"storedValueSchema", stored.value->ToString()},
                          {"newValueSchema", value_schema.ToString()}});
  }
  return Status::OK();
}

}  // namespace spate::state
