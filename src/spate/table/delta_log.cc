// Copyright spate authors.
#include "spate/table/delta_log.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "spate/base/mapped_allocator.h"
#include "spate/columnar/builder.h"
#include "spate/formats/file_writer.h"
#include "spate/formats/parquet/reader.h"
#include "spate/formats/parquet/writer.h"

namespace spate::table {

NowFn SystemNow() {
  return [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
}

// ---- feature checks
// ------------------------------------------------------------------------

namespace {

// Reader features spate implements; every writer feature listed here is honoured when
// writing (appendOnly and invariants only constrain operations spate does not run, or
// are checked: appendOnly forbids removes).
const std::set<std::string>& SupportedReaderFeatures() {
  // typeWidening: files may hold narrower types than the table; they are cast on read.
  // v2Checkpoint: UUID-named checkpoints with sidecars are read and written.
  static const std::set<std::string> k = {"timestampNtz",         "vacuumProtocolCheck",
                                          "deletionVectors",      "typeWidening",
                                          "typeWidening-preview", "v2Checkpoint"};
  return k;
}
const std::set<std::string>& SupportedWriterFeatures() {
  // domainMetadata: spate writes none and keeps the table's; vacuumProtocolCheck only
  // constrains VACUUM, which spate does not run.
  // deletionVectors: DML writes DVs when delta.enableDeletionVectors is set (else
  // copy-on-write); removes of files with a DV carry it.
  static const std::set<std::string> k = {
      "appendOnly",          "invariants",      "timestampNtz",   "domainMetadata",
      "vacuumProtocolCheck", "deletionVectors", "changeDataFeed", "v2Checkpoint"};
  return k;
}

std::string JoinNames(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

Status CheckSupported(const Protocol& p, const Metadata* m, bool for_write) {
  const int max_reader = 3, max_writer = 7;
  if (p.min_reader_version > max_reader || p.min_reader_version < 1) {
    return Status::Error("DELTA_INVALID_PROTOCOL_VERSION",
                         {{"required", "(" + std::to_string(p.min_reader_version) + "," +
                                           std::to_string(p.min_writer_version) + ")"},
                          {"supported", "(" + std::to_string(max_reader) + "," +
                                            std::to_string(max_writer) + ")"}});
  }
  if (for_write && p.min_writer_version > max_writer) {
    return Status::Error("DELTA_INVALID_PROTOCOL_VERSION",
                         {{"required", "(" + std::to_string(p.min_reader_version) + "," +
                                           std::to_string(p.min_writer_version) + ")"},
                          {"supported", "(" + std::to_string(max_reader) + "," +
                                            std::to_string(max_writer) + ")"}});
  }
  // Column mapping (reader version 2, or the columnMapping feature) is read: columns are
  // matched by their physical names. spate does not write column-mapped tables.
  std::vector<std::string> unsupported;
  if (p.min_reader_version == 3 && p.reader_features) {
    for (const auto& f : *p.reader_features)
      if (!SupportedReaderFeatures().count(f) && f != "columnMapping")
        unsupported.push_back(f);
  }
  bool mapped = p.min_reader_version == 2;
  if (p.reader_features) {
    for (const auto& f : *p.reader_features) mapped |= f == "columnMapping";
  }
  if (m) {
    auto it = m->configuration.find("delta.columnMapping.mode");
    if (it != m->configuration.end() && ToLower(it->second) != "none") mapped = true;
  }
  if (mapped && for_write) {
    return Status::Error("DELTA_UNSUPPORTED_FEATURES_FOR_WRITE",
                         {{"unsupported", "columnMapping"}});
  }
  if (!unsupported.empty()) {
    return Status::Error("DELTA_UNSUPPORTED_FEATURES_FOR_READ",
                         {{"unsupported", JoinNames(unsupported)}});
  }
  if (for_write) {
    std::vector<std::string> w;
    if (p.min_writer_version >= 3 && p.min_writer_version < 7) {
      // Legacy writer versions 3..6 imply CHECK constraints, CDF, generated columns,
      // column mapping, identity columns. spate writes CDF (version 4, delta-spark's
      // protocol for delta.enableChangeDataFeed); versions 3 and 4 are writable when
      // the table uses none of the others (no delta.constraints.*, no generation
      // expressions), 5 and 6 are not.
      bool uses_unsupported = p.min_writer_version > 4 || !m;
      if (m) {
        for (const auto& [k, v] : m->configuration)
          uses_unsupported |= ToLower(k).rfind("delta.constraints.", 0) == 0;
        uses_unsupported |=
            m->schema_string.find("delta.generationExpression") != std::string::npos;
      }
      if (uses_unsupported)
        w.push_back("writerVersion" + std::to_string(p.min_writer_version));
    }
    if (p.min_writer_version == 7 && p.writer_features) {
      for (const auto& f : *p.writer_features)
        if (!SupportedWriterFeatures().count(f)) w.push_back(f);
    }
    if (!w.empty())
      return Status::Error("DELTA_UNSUPPORTED_FEATURES_FOR_WRITE",
                           {{"unsupported", JoinNames(w)}});
  }
  return Status::OK();
}

// ---- Snapshot
// ------------------------------------------------------------------------------

std::optional<int64_t> Snapshot::TxnVersion(const std::string& app_id) const {
  auto it = txns_.find(app_id);
  if (it == txns_.end()) return std::nullopt;
  return it->second.version;
}

std::string Snapshot::DataFilePath(const AddFile& add) const {
  std::string p = add.path;
  if (p.rfind("file://", 0) == 0) return DecodePathUri(p.substr(7));
  if (p.rfind("file:", 0) == 0) return DecodePathUri(p.substr(5));
  if (!p.empty() && p[0] == '/') return DecodePathUri(p);
  return io::JoinPath(table_path_, DecodePathUri(p));
}

int64_t Snapshot::total_size_bytes() const {
  int64_t n = 0;
  for (const auto& f : files()) n += f.size;
  return n;
}

// ---- listing
// ---------------------------------------------------------------------------------

struct DeltaLog::Listing {
  std::map<int64_t, io::FileInfo> commits;
  struct Checkpoint {
    std::vector<io::FileInfo> files;  // classic: 1; multi-part: the parts in order
    int64_t mtime = 0;
  };
  std::map<int64_t, Checkpoint> checkpoints;  // complete ones only
  bool has_last_checkpoint = false;
};

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

int64_t ParseVersion(std::string_view s) {
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

std::string Pad20(int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%020lld", static_cast<long long>(v));
  return buf;
}

Status NotDeltaTable(const std::string& path) {
  return Status::Error("DELTA_MISSING_DELTA_TABLE", {{"tableName", "`" + path + "`"}});
}

}  // namespace

// The snapshot cache and the background checkpoint thread of a DeltaLog (shared by its
// copies). The thread is started by the first CheckpointInBackground and joined by the
// destructor after it finished what was queued.
struct DeltaLog::Cache {
  std::mutex mu;
  SnapshotPtr latest;
  CheckpointOptions checkpoint_options;
  // Checkpoint pacing (CheckpointDue): the size of the last checkpoint written through
  // this log (-1: none yet) and the commit bytes written since the last due checkpoint.
  int64_t checkpoint_bytes = -1;
  int64_t commit_bytes_since = 0;

  void NoteCheckpoint(int64_t bytes) {
    std::lock_guard<std::mutex> l(mu);
    checkpoint_bytes = bytes;
  }

  std::mutex cp_mu;
  std::condition_variable cp_cv;
  std::thread worker;
  bool stop = false;
  bool running = false;
  SnapshotPtr queued;
  CheckpointOptions queued_options;
  Status last_status;

  // CleanUpExpiredLogs' last cutoff, when it found the oldest retained commit: until the
  // cutoff moves (once a UTC day) nothing more can expire, so no listing is needed.
  std::mutex cleanup_mu;
  int64_t settled_cutoff = INT64_MIN;

  ~Cache() {
    {
      std::lock_guard<std::mutex> l(cp_mu);
      stop = true;
    }
    cp_cv.notify_all();
    if (worker.joinable()) worker.join();
  }
};

DeltaLog::DeltaLog(io::FileSystemPtr fs, std::string table_path, NowFn now)
    : fs_(std::move(fs)),
      table_path_(std::move(table_path)),
      now_(std::move(now)),
      cache_(std::make_shared<Cache>()) {
  while (table_path_.size() > 1 && table_path_.back() == '/') table_path_.pop_back();
  log_path_ = io::JoinPath(table_path_, "_delta_log");
}

DeltaLog::~DeltaLog() = default;

namespace {

// The process-wide DeltaLog cache: most recently used first.
struct ProcessLogCache {
  std::mutex mu;
  std::list<std::shared_ptr<const DeltaLog>> logs;
};
ProcessLogCache& ProcessLogs() {
  static auto* c = new ProcessLogCache();  // never destroyed: used until exit
  return *c;
}

}  // namespace

std::shared_ptr<const DeltaLog> DeltaLog::ForTable(const io::FileSystemPtr& fs,
                                                   const std::string& table_path) {
  auto made = std::make_shared<const DeltaLog>(fs, table_path);
  ProcessLogCache& c = ProcessLogs();
  std::shared_ptr<const DeltaLog> dropped;  // destroyed outside the lock
  std::lock_guard<std::mutex> l(c.mu);
  for (auto it = c.logs.begin(); it != c.logs.end(); ++it) {
    if ((*it)->fs_ == fs && (*it)->table_path_ == made->table_path_) {
      auto found = *it;
      c.logs.splice(c.logs.begin(), c.logs, it);
      return found;
    }
  }
  c.logs.push_front(made);
  if (c.logs.size() > kProcessLogCacheSize) {
    dropped = std::move(c.logs.back());
    c.logs.pop_back();
  }
  return made;
}

void DeltaLog::ClearProcessCache() {
  std::list<std::shared_ptr<const DeltaLog>> gone;
  ProcessLogCache& c = ProcessLogs();
  std::lock_guard<std::mutex> l(c.mu);
  gone.swap(c.logs);
}

std::string DeltaLog::CommitPath(int64_t version) const {
  return io::JoinPath(log_path_, Pad20(version) + ".json");
}

Result<DeltaLog::Listing> DeltaLog::List() const {
  Listing out;
  auto entries = fs_->List(log_path_, false);
  if (!entries.ok()) {
    if (entries.status().code() == StatusCode::kNotFound) return out;
    return entries.status();
  }
  // version -> (num_parts -> part index -> file)
  std::map<int64_t, std::map<int, std::map<int, io::FileInfo>>> parts;
  for (const auto& e : *entries) {
    if (e.is_directory) continue;
    std::string name = io::BaseName(e.path);
    if (name == "_last_checkpoint") {
      out.has_last_checkpoint = true;
      continue;
    }
    if (name.size() < 21 || !AllDigits(std::string_view(name).substr(0, 20)) ||
        name[20] != '.')
      continue;
    int64_t v = ParseVersion(std::string_view(name).substr(0, 20));
    std::string_view rest = std::string_view(name).substr(21);
    if (rest == "json") {
      out.commits[v] = e;
    } else if (rest == "checkpoint.parquet") {
      parts[v][1][1] = e;
    } else if (rest.rfind("checkpoint.", 0) == 0 &&
               (rest.size() == 11 + 36 + 5 || rest.size() == 11 + 36 + 8) &&
               rest[11 + 8] == '-' && rest[11 + 13] == '-' &&
               (rest.substr(47) == ".json" || rest.substr(47) == ".parquet")) {
      // A V2 checkpoint: <version>.checkpoint.<uuid>.json|parquet (one file, may point to
      // sidecars). Used when no classic checkpoint of the version exists.
      if (!parts[v].count(1)) parts[v][1][1] = e;
    } else if (rest.rfind("checkpoint.", 0) == 0 && rest.size() == 11 + 10 + 1 + 10 + 8 &&
               AllDigits(rest.substr(11, 10)) && rest[21] == '.' &&
               AllDigits(rest.substr(22, 10)) && rest.substr(32) == ".parquet") {
      int part = static_cast<int>(ParseVersion(rest.substr(11, 10)));
      int n = static_cast<int>(ParseVersion(rest.substr(22, 10)));
      if (part >= 1 && part <= n) parts[v][n][part] = e;
    }
  }
  for (auto& [v, by_n] : parts) {
    for (auto it = by_n.rbegin(); it != by_n.rend(); ++it) {
      int n = it->first;
      if (static_cast<int>(it->second.size()) != n) continue;  // incomplete
      Listing::Checkpoint cp;
      for (auto& [i, f] : it->second) {
        cp.mtime = std::max(cp.mtime, f.modification_time_ms);
        cp.files.push_back(f);
      }
      out.checkpoints[v] = std::move(cp);
      break;
    }
  }
  // A listing taken while another process commits may miss entries made during it (POSIX
  // leaves readdir over a changing directory unspecified; seen with a VACUUM's fresh load
  // beside a streaming writer: ...112, 114, 116 listed). Commits are made in order and
  // cleaned up oldest first, so a version missing between two listed ones is looked up
  // directly before the log is called broken.
  constexpr int64_t kMaxProbes = 64;
  int64_t probes = 0;
  for (auto it = out.commits.begin(); it != out.commits.end() && probes < kMaxProbes;) {
    auto next = std::next(it);
    if (next == out.commits.end()) break;
    for (int64_t v = it->first + 1; v < next->first && probes < kMaxProbes;
         ++v, ++probes) {
      auto info = fs_->Stat(CommitPath(v));
      if (info.ok() && !info->is_directory) out.commits.emplace(v, std::move(*info));
    }
    it = next;
  }
  return out;
}

Result<bool> DeltaLog::TableExists() const {
  SPATE_ASSIGN_OR_RETURN(auto l, List());
  return !l.commits.empty() || !l.checkpoints.empty();
}

Result<int64_t> DeltaLog::LatestVersion() const {
  SPATE_ASSIGN_OR_RETURN(auto l, List());
  int64_t v = -1;
  if (!l.commits.empty()) v = l.commits.rbegin()->first;
  if (!l.checkpoints.empty()) v = std::max(v, l.checkpoints.rbegin()->first);
  return v;
}

Result<std::vector<Action>> DeltaLog::ReadCommit(int64_t version) const {
  std::string path = CommitPath(version);
  auto text = fs_->ReadAll(path);
  if (!text.ok()) return text.status();
  return ParseActions(*text, path);
}

// ---- checkpoints: Value <-> Json
// ---------------------------------------------------------

namespace {

Json ValueToJson(const Value& v) {
  if (v.is_null()) return Json::Null();
  const DataType& t = *v.type();
  switch (t.id()) {
    case TypeId::kStruct: {
      Json o = Json::Object();
      for (size_t i = 0; i < t.fields().size() && i < v.items().size(); ++i) {
        if (v.items()[i].is_null()) continue;
        o.Set(t.fields()[i].name, ValueToJson(v.items()[i]));
      }
      return o;
    }
    case TypeId::kMap: {
      Json o = Json::Object();
      for (size_t i = 0; i < v.items().size(); ++i) {
        std::string key = v.items()[i].is_null() ? "" : v.items()[i].ToString();
        o.Set(key, i < v.values().size() ? ValueToJson(v.values()[i]) : Json::Null());
      }
      return o;
    }
    case TypeId::kArray: {
      Json a = Json::Array();
      for (const auto& x : v.items()) a.Append(ValueToJson(x));
      return a;
    }
    case TypeId::kBoolean:
      return Json::Bool(v.i64() != 0);
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
      return Json::Int(v.i64());
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Json::Double(v.f64());
    case TypeId::kString:
    case TypeId::kBinary:
      return Json::String(v.str());
    default:
      return Json::String(v.ToString());
  }
}

Value JsonToValue(const Json* j, const DataTypePtr& t) {
  if (!j || j->is_null()) return Value::Null(t);
  switch (t->id()) {
    case TypeId::kStruct: {
      if (!j->is_object()) return Value::Null(t);
      std::vector<Value> fields;
      for (const auto& f : t->fields())
        fields.push_back(JsonToValue(j->Find(f.name), f.type));
      return Value::Struct(t, std::move(fields));
    }
    case TypeId::kMap: {
      if (!j->is_object()) return Value::Null(t);
      std::vector<Value> keys, values;
      for (const auto& [k, v] : j->fields()) {
        keys.push_back(Value::String(k));
        values.push_back(JsonToValue(&v, t->value_type()));
      }
      return Value::Map(t, std::move(keys), std::move(values));
    }
    case TypeId::kArray: {
      if (!j->is_array()) return Value::Null(t);
      std::vector<Value> items;
      for (const auto& x : j->items())
        items.push_back(JsonToValue(&x, t->element_type()));
      return Value::ArrayOf(t, std::move(items));
    }
    case TypeId::kBoolean:
      return Value::Boolean(j->bool_value());
    case TypeId::kInt:
      return Value::Int(static_cast<int32_t>(j->int_value()));
    case TypeId::kLong:
      return Value::Long(j->int_value());
    case TypeId::kString:
      return Value::String(j->is_string() ? j->string_value() : j->ToString());
    default:
      return Value::Null(t);
  }
}

DataTypePtr StrMap() {
  return DataType::Map(DataType::String(), DataType::String(), true);
}
Field F(std::string name, DataTypePtr t) {
  return Field{std::move(name), std::move(t), true, ""};
}

// The checkpoint schema spate writes (PROTOCOL.md "Checkpoint Schema", V1 spec).
SchemaPtr CheckpointSchema() {
  auto txn =
      DataType::Struct({F("appId", DataType::String()), F("version", DataType::Long()),
                        F("lastUpdated", DataType::Long())});
  auto dv = DataType::Struct(
      {F("storageType", DataType::String()), F("pathOrInlineDv", DataType::String()),
       F("offset", DataType::Int()), F("sizeInBytes", DataType::Int()),
       F("cardinality", DataType::Long())});
  auto add = DataType::Struct(
      {F("path", DataType::String()), F("partitionValues", StrMap()),
       F("size", DataType::Long()), F("modificationTime", DataType::Long()),
       F("dataChange", DataType::Boolean()), F("tags", StrMap()), F("deletionVector", dv),
       F("stats", DataType::String())});
  auto remove = DataType::Struct(
      {F("path", DataType::String()), F("deletionTimestamp", DataType::Long()),
       F("dataChange", DataType::Boolean()),
       F("extendedFileMetadata", DataType::Boolean()), F("partitionValues", StrMap()),
       F("size", DataType::Long()), F("deletionVector", dv)});
  auto format =
      DataType::Struct({F("provider", DataType::String()), F("options", StrMap())});
  auto meta = DataType::Struct(
      {F("id", DataType::String()), F("name", DataType::String()),
       F("description", DataType::String()), F("format", format),
       F("schemaString", DataType::String()),
       F("partitionColumns", DataType::Array(DataType::String(), true)),
       F("configuration", StrMap()), F("createdTime", DataType::Long())});
  auto protocol = DataType::Struct(
      {F("minReaderVersion", DataType::Int()), F("minWriterVersion", DataType::Int()),
       F("readerFeatures", DataType::Array(DataType::String(), true)),
       F("writerFeatures", DataType::Array(DataType::String(), true))});
  auto domain = DataType::Struct({F("domain", DataType::String()),
                                  F("configuration", DataType::String()),
                                  F("removed", DataType::Boolean())});
  return std::make_shared<const Schema>(std::vector<Field>{
      F("txn", txn), F("add", add), F("remove", remove), F("metaData", meta),
      F("protocol", protocol), F("domainMetadata", domain)});
}

}  // namespace

namespace {

// Decodes every action row of a checkpoint file and hands it to `apply`.
// Typed decoding of checkpoint `add` rows (the bulk of a checkpoint): straight from the
// struct's child columns, no Value/JSON round trip. Init() fails (and the generic path
// is used) when the file's add struct has unexpected types.
class AddDecoder {
 public:
  bool Init(const Column& add) {
    add_ = &add;
    const auto& fields = add.type()->fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string& n = fields[i].name;
      const DataType& t = *fields[i].type;
      const int idx = static_cast<int>(i);
      if (n == "path")
        path_ = t.id() == TypeId::kString ? idx : -2;
      else if (n == "size")
        size_ = t.id() == TypeId::kLong ? idx : -2;
      else if (n == "modificationTime")
        mtime_ = t.id() == TypeId::kLong ? idx : -2;
      else if (n == "dataChange")
        dc_ = t.id() == TypeId::kBoolean ? idx : -2;
      else if (n == "stats")
        stats_ = t.id() == TypeId::kString ? idx : -2;
      else if (n == "partitionValues")
        pv_ = StringMap(t) ? idx : -2;
      else if (n == "tags")
        tags_ = StringMap(t) ? idx : -2;
      else if (n == "deletionVector")
        dv_ = t.id() == TypeId::kStruct ? idx : -2;
      else if (n == "baseRowId")
        base_row_id_ = t.id() == TypeId::kLong ? idx : -2;
      else if (n == "defaultRowCommitVersion")
        drcv_ = t.id() == TypeId::kLong ? idx : -2;
    }
    return path_ >= 0 && size_ != -2 && mtime_ != -2 && dc_ != -2 && stats_ != -2 &&
           pv_ != -2 && tags_ != -2 && dv_ != -2 && base_row_id_ != -2 && drcv_ != -2;
  }
  /// Row `r` carries a deletion vector (decoded generically: rare and nested).
  bool HasDv(int64_t r) const { return dv_ >= 0 && add_->child(dv_)->IsValid(r); }

  // False when the row has no add (null struct or null path).
  bool Decode(int64_t r, AddFile* out) const {
    const Column& p = *add_->child(path_);
    if (p.IsNull(r)) return false;
    out->path.assign(p.GetView(r));
    if (size_ >= 0 && add_->child(size_)->IsValid(r))
      out->size = add_->child(size_)->raw_values<int64_t>()[r];
    if (mtime_ >= 0 && add_->child(mtime_)->IsValid(r))
      out->modification_time = add_->child(mtime_)->raw_values<int64_t>()[r];
    if (dc_ >= 0 && add_->child(dc_)->IsValid(r))
      out->data_change = add_->child(dc_)->GetBool(r);
    if (stats_ >= 0 && add_->child(stats_)->IsValid(r))
      out->stats = std::string(add_->child(stats_)->GetView(r));
    if (pv_ >= 0) out->partition_values = MapAt(*add_->child(pv_), r);
    if (base_row_id_ >= 0 && add_->child(base_row_id_)->IsValid(r))
      out->base_row_id = add_->child(base_row_id_)->raw_values<int64_t>()[r];
    if (drcv_ >= 0 && add_->child(drcv_)->IsValid(r))
      out->default_row_commit_version = add_->child(drcv_)->raw_values<int64_t>()[r];
    if (tags_ >= 0 && add_->child(tags_)->IsValid(r)) {
      std::map<std::string, std::string> tags;
      for (auto& [k, v] : MapAt(*add_->child(tags_), r)) tags[k] = v.value_or("");
      out->tags = std::move(tags);
    }
    return true;
  }

 private:
  static bool StringMap(const DataType& t) {
    return t.id() == TypeId::kMap && t.key_type()->id() == TypeId::kString &&
           t.value_type()->id() == TypeId::kString;
  }
  static PartitionValues MapAt(const Column& m, int64_t r) {
    PartitionValues out;
    if (m.IsNull(r)) return out;
    const int32_t* off = m.offsets();
    const Column& entries = *m.child(0);
    const Column& keys = *entries.child(0);
    const Column& vals = *entries.child(1);
    for (int32_t i = off[r]; i < off[r + 1]; ++i) {
      std::optional<std::string> v;
      if (vals.IsValid(i)) v = std::string(vals.GetView(i));
      out.emplace_back(std::string(keys.GetView(i)), std::move(v));
    }
    return out;
  }

  const Column* add_ = nullptr;
  int path_ = -1, size_ = -1, mtime_ = -1, dc_ = -1, stats_ = -1, pv_ = -1, tags_ = -1;
  int dv_ = -1, base_row_id_ = -1, drcv_ = -1;
};

Status ForEachCheckpointAction(const io::FileSystemPtr& fs, const std::string& path,
                               const std::function<void(Action&)>& apply) {
  auto wrap = [&](const Status& st) {
    return Status(StatusCode::kDataCorruption,
                  "Corrupt Delta checkpoint file " + path + ": " + st.message());
  };
  auto reader = formats::parquet::ParquetFileReader::Open(fs, path);
  if (!reader.ok()) return wrap(reader.status());
  const SchemaPtr& schema = (*reader)->schema();
  std::vector<int> cols;
  std::vector<std::string> names;
  for (int i = 0; i < schema->num_fields(); ++i) {
    const std::string& n = schema->field(i).name;
    if (n == "add" || n == "remove" || n == "metaData" || n == "protocol" || n == "txn" ||
        n == "domainMetadata" || n == "sidecar") {
      cols.push_back(i);
      names.push_back(n);
    }
  }
  for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
    auto batch = (*reader)->ReadRowGroup(rg, cols);
    if (!batch.ok()) return wrap(batch.status());
    for (size_t c = 0; c < cols.size(); ++c) {
      const Column& col = *(*batch)->column(static_cast<int>(c));
      AddDecoder add_decoder;
      const bool typed_adds = names[c] == "add" && add_decoder.Init(col);
      for (int64_t r = 0; r < col.length(); ++r) {
        if (col.IsNull(r)) continue;
        if (typed_adds) {
          Action a;
          a.kind = Action::Kind::kAdd;
          if (!add_decoder.Decode(r, &a.add)) continue;
          if (add_decoder.HasDv(r)) {
            AddFile g = AddFile::FromJson(ValueToJson(col.GetValue(r)));
            a.add.deletion_vector = std::move(g.deletion_vector);
          }
          apply(a);
          continue;
        }
        Json line = Json::Object();
        line.Set(names[c], ValueToJson(col.GetValue(r)));
        if (auto a = Action::FromJson(line)) {
          // Checkpoint rows are all of one action; a null struct field means "absent".
          if (a->kind == Action::Kind::kAdd && a->add.path.empty()) continue;
          if (a->kind == Action::Kind::kRemove && a->remove.path.empty()) continue;
          if (a->kind == Action::Kind::kTxn && a->txn.app_id.empty()) continue;
          if (a->kind == Action::Kind::kDomainMetadata && !a->raw.GetString("domain"))
            continue;
          apply(*a);
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace

int64_t RetentionMs(const Metadata& m, const std::string& key, int64_t fallback) {
  auto it = m.configuration.find(key);
  if (it == m.configuration.end()) return fallback;
  // Delta's CalendarInterval strings: "interval 7 days", "interval 1 hour", "2 weeks".
  std::string v = ToLower(it->second);
  if (v.rfind("interval", 0) == 0) v = v.substr(8);
  char unit[32] = {0};
  long long n = 0;
  if (std::sscanf(v.c_str(), " %lld %31s", &n, unit) != 2 || n < 0) return fallback;
  std::string u = unit;
  if (!u.empty() && u.back() == 's') u.pop_back();
  const int64_t ms = u == "week"          ? 7LL * 86400000
                     : u == "day"         ? 86400000
                     : u == "hour"        ? 3600000
                     : u == "minute"      ? 60000
                     : u == "second"      ? 1000
                     : u == "millisecond" ? 1
                                          : -1;
  return ms < 0 ? fallback : n * ms;
}

Result<std::vector<Action>> ReadCheckpointFile(const io::FileSystemPtr& fs,
                                               const std::string& path) {
  std::vector<Action> out;
  SPATE_RETURN_IF_ERROR(
      ForEachCheckpointAction(fs, path, [&](Action& a) { out.push_back(std::move(a)); }));
  return out;
}

namespace {

// One leaf of a checkpoint file-action struct: strings, longs and booleans are appended
// typed (no Value); other types (maps, the deletion-vector struct) through a generic
// builder.
class ActionLeaf {
 public:
  explicit ActionLeaf(const DataTypePtr& t) : id_(t->id()) {
    switch (id_) {
      case TypeId::kString:
        str_ = std::make_unique<StringBuilder>(t);
        break;
      case TypeId::kLong:
        i64_ = std::make_unique<FixedWidthBuilder<int64_t>>(t);
        break;
      case TypeId::kBoolean:
        bool_ = std::make_unique<BooleanBuilder>();
        break;
      default:
        generic_ = ColumnBuilder::Make(t);
        break;
    }
  }
  void Str(std::string_view v) {
    str_ ? str_->Append(v) : generic_->AppendValue(Value::String(std::string(v)));
  }
  void Long(int64_t v) { i64_ ? i64_->Append(v) : generic_->AppendValue(Value::Long(v)); }
  void Bool(bool v) {
    bool_ ? bool_->Append(v) : generic_->AppendValue(Value::Boolean(v));
  }
  void Null() {
    if (str_)
      str_->AppendNull();
    else if (i64_)
      i64_->AppendNull();
    else if (bool_)
      bool_->AppendNull();
    else
      generic_->AppendNull();
  }
  void Generic(const Value& v) {
    if (generic_) return generic_->AppendValue(v);
    if (v.is_null()) return Null();
    if (str_)
      str_->Append(v.str());
    else if (i64_)
      i64_->Append(v.i64());
    else
      bool_->Append(v.i64() != 0);
  }
  ColumnPtr Finish() {
    if (str_) return str_->Finish();
    if (i64_) return i64_->Finish();
    if (bool_) return bool_->Finish();
    return generic_->Finish();
  }

 private:
  TypeId id_;
  std::unique_ptr<StringBuilder> str_;
  std::unique_ptr<FixedWidthBuilder<int64_t>> i64_;
  std::unique_ptr<BooleanBuilder> bool_;
  std::unique_ptr<ColumnBuilder> generic_;
};

// The `add` / `remove` column of a checkpoint: rows straight from AddFile / RemoveFile
// into typed child builders (the bulk of a checkpoint: the active files and every
// unexpired tombstone), without a JSON or Value round trip per row. Other rows (null
// here) and generic values go through the same children.
class FileActionBuilder final : public ColumnBuilder {
 public:
  explicit FileActionBuilder(DataTypePtr type) : ColumnBuilder(std::move(type)) {
    for (const auto& f : type_->fields()) {
      kids_.emplace_back(f.type);
      names_.push_back(f.name);
    }
  }
  int64_t length() const override { return validity_.length(); }
  void AppendNull() override {
    validity_.AppendNull();
    for (auto& k : kids_) k.Null();
  }
  void AppendValue(const Value& v) override {
    if (v.is_null()) return AppendNull();
    validity_.AppendValid();
    for (size_t i = 0; i < kids_.size(); ++i) kids_[i].Generic(v.items()[i]);
  }
  void AppendFrom(const Column& c, int64_t i) override { AppendValue(c.GetValue(i)); }
  ColumnPtr Finish() override {
    std::vector<ColumnPtr> cols;
    for (auto& k : kids_) cols.push_back(k.Finish());
    const int64_t n = validity_.length(), nulls = validity_.null_count();
    return std::make_shared<const Column>(type_, n, nulls, validity_.Finish(), nullptr,
                                          nullptr, std::move(cols));
  }
  /// A checkpoint add row (dataChange false, as Delta writes them).
  void AppendAdd(const AddFile& f) {
    AppendFields([&](const std::string& n, ActionLeaf& k, size_t i) {
      if (n == "path")
        k.Str(f.path);
      else if (n == "partitionValues")
        k.Generic(PartitionMap(f.partition_values, i));
      else if (n == "size")
        k.Long(f.size);
      else if (n == "modificationTime")
        k.Long(f.modification_time);
      else if (n == "dataChange")
        k.Bool(false);
      else if (n == "tags" && f.tags)
        k.Generic(StringMap(*f.tags, i));
      else if (n == "deletionVector" && f.deletion_vector)
        k.Generic(Dv(*f.deletion_vector, i));
      else if (n == "stats" && f.stats)
        k.Str(*f.stats);
      else if (n == "baseRowId" && f.base_row_id)
        k.Long(*f.base_row_id);
      else if (n == "defaultRowCommitVersion" && f.default_row_commit_version)
        k.Long(*f.default_row_commit_version);
      else
        return false;
      return true;
    });
  }
  /// A checkpoint remove row (dataChange false).
  void AppendRemove(const RemoveFile& r) {
    AppendFields([&](const std::string& n, ActionLeaf& k, size_t i) {
      if (n == "path")
        k.Str(r.path);
      else if (n == "deletionTimestamp" && r.deletion_timestamp)
        k.Long(*r.deletion_timestamp);
      else if (n == "dataChange")
        k.Bool(false);
      else if (n == "extendedFileMetadata" && r.extended_file_metadata)
        k.Bool(*r.extended_file_metadata);
      else if (n == "partitionValues" && r.partition_values)
        k.Generic(PartitionMap(*r.partition_values, i));
      else if (n == "size" && r.size)
        k.Long(*r.size);
      else if (n == "deletionVector" && r.deletion_vector)
        k.Generic(Dv(*r.deletion_vector, i));
      else
        return false;
      return true;
    });
  }

 private:
  // A valid row: `field(name, child, index)` appends each child's value, or returns false
  // for a null.
  template <typename Field>
  void AppendFields(Field field) {
    validity_.AppendValid();
    for (size_t i = 0; i < kids_.size(); ++i)
      if (!field(names_[i], kids_[i], i)) kids_[i].Null();
  }
  const DataTypePtr& FieldType(size_t i) const { return type_->fields()[i].type; }
  Value PartitionMap(const PartitionValues& pv, size_t i) const {
    std::vector<Value> keys, values;
    keys.reserve(pv.size());
    values.reserve(pv.size());
    for (const auto& [k, v] : pv) {
      keys.push_back(Value::String(k));
      values.push_back(v ? Value::String(*v) : Value::Null(DataType::String()));
    }
    return Value::Map(FieldType(i), std::move(keys), std::move(values));
  }
  Value StringMap(const std::map<std::string, std::string>& m, size_t i) const {
    std::vector<Value> keys, values;
    for (const auto& [k, v] : m) {
      keys.push_back(Value::String(k));
      values.push_back(Value::String(v));
    }
    return Value::Map(FieldType(i), std::move(keys), std::move(values));
  }
  Value Dv(const DeletionVectorDescriptor& dv, size_t i) const {
    Json j = dv.ToJson();
    return JsonToValue(&j, FieldType(i));
  }

  std::vector<ActionLeaf> kids_;
  std::vector<std::string> names_;
  ValidityBuilder validity_;
};

// The V2 checkpoint's own actions (PROTOCOL.md "V2 Spec"): checkpointMetadata and
// sidecar.
SchemaPtr WithV2Columns(const SchemaPtr& base) {
  std::vector<Field> fields = base->fields();
  fields.push_back(
      F("checkpointMetadata",
        DataType::Struct({F("version", DataType::Long()), F("tags", StrMap())})));
  fields.push_back(F(
      "sidecar",
      DataType::Struct({F("path", DataType::String()), F("sizeInBytes", DataType::Long()),
                        F("modificationTime", DataType::Long()), F("tags", StrMap())})));
  return std::make_shared<const Schema>(std::move(fields));
}

// A sidecar holds only file actions.
SchemaPtr SidecarSchema() {
  SchemaPtr full = CheckpointSchema();
  return std::make_shared<const Schema>(
      std::vector<Field>{full->field(1), full->field(2)});  // add, remove
}

// One checkpoint Parquet file written through a temporary name: rows stream through
// column builders and are flushed in chunks, so a checkpoint of a large table never
// holds all its rows as values at once.
class CheckpointFileWriter {
 public:
  CheckpointFileWriter(io::FileSystemPtr fs, SchemaPtr schema, std::string final_path)
      : fs_(std::move(fs)),
        schema_(std::move(schema)),
        final_path_(std::move(final_path)) {}
  ~CheckpointFileWriter() {
    if (!tmp_.empty()) (void)fs_->Delete(tmp_);
  }

  Status Open() {
    tmp_ =
        io::JoinPath(io::ParentPath(final_path_),
                     "." + io::BaseName(final_path_) + "." + formats::NewUuid() + ".tmp");
    SPATE_ASSIGN_OR_RETURN(auto file, fs_->Create(tmp_));
    formats::parquet::WriterOptions wo;
    SPATE_ASSIGN_OR_RETURN(
        writer_, formats::parquet::ParquetWriter::Make(std::move(file), *schema_, wo));
    Reset();
    return Status::OK();
  }
  /// A row whose column `which` is `v` (every other column null).
  void AddRow(int which, const Value& v) {
    for (int c = 0; c < static_cast<int>(builders_.size()); ++c) {
      if (c == which)
        builders_[c]->AppendValue(v);
      else
        builders_[c]->AppendNull();
    }
    ++rows_;
    if (++chunk_rows_ >= kChunkRows && st_.ok()) st_ = Flush();
  }
  void AddJson(int which, const Json& body) {
    AddRow(which, JsonToValue(&body, schema_->field(which).type));
  }
  /// A row whose column `which` (an add or remove column) holds `f` / `r`.
  void AddFileRow(int which, const AddFile& f) {
    AddTyped(which, [&](FileActionBuilder& b) { b.AppendAdd(f); });
  }
  void AddRemoveRow(int which, const RemoveFile& r) {
    AddTyped(which, [&](FileActionBuilder& b) { b.AppendRemove(r); });
  }
  /// Closes the file and renames it to its final name.
  Status Finish() {
    if (st_.ok()) st_ = Flush();
    if (st_.ok()) st_ = writer_->Close();
    if (st_.ok()) bytes_ = writer_->bytes_written();
    if (st_.ok()) st_ = fs_->Rename(tmp_, final_path_);
    if (st_.ok()) tmp_.clear();
    return st_;
  }
  int64_t rows() const { return rows_; }
  int64_t bytes() const { return bytes_; }
  const SchemaPtr& schema() const { return schema_; }

 private:
  static constexpr int64_t kChunkRows = 16384;
  template <typename Fill>
  void AddTyped(int which, Fill fill) {
    for (int c = 0; c < static_cast<int>(builders_.size()); ++c) {
      if (c == which)
        fill(*typed_[c]);
      else
        builders_[c]->AppendNull();
    }
    ++rows_;
    if (++chunk_rows_ >= kChunkRows && st_.ok()) st_ = Flush();
  }
  void Reset() {
    builders_.clear();
    typed_.assign(schema_->num_fields(), nullptr);
    for (int c = 0; c < schema_->num_fields(); ++c) {
      const Field& f = schema_->field(c);
      if ((f.name == "add" || f.name == "remove") && f.type->id() == TypeId::kStruct) {
        auto b = std::make_unique<FileActionBuilder>(f.type);
        typed_[c] = b.get();
        builders_.push_back(std::move(b));
      } else {
        builders_.push_back(ColumnBuilder::Make(f.type));
      }
    }
  }
  Status Flush() {
    if (chunk_rows_ == 0) return Status::OK();
    std::vector<ColumnPtr> columns;
    for (auto& b : builders_) columns.push_back(b->Finish());
    Status w = writer_->Write(Batch::Make(schema_, columns, chunk_rows_));
    chunk_rows_ = 0;
    Reset();
    return w;
  }

  io::FileSystemPtr fs_;
  SchemaPtr schema_;
  std::string final_path_, tmp_;
  std::unique_ptr<formats::parquet::ParquetWriter> writer_;
  std::vector<std::unique_ptr<ColumnBuilder>> builders_;
  std::vector<FileActionBuilder*> typed_;  // the add / remove columns' builders
  int64_t rows_ = 0, chunk_rows_ = 0, bytes_ = 0;
  Status st_;
};

std::string Pad10(int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%010lld", static_cast<long long>(v));
  return buf;
}

}  // namespace

bool UsesV2Checkpoints(const Metadata& m) {
  for (const auto& [k, v] : m.configuration)
    if (EqualsIgnoreCase(k, "delta.checkpointPolicy")) return ToLower(v) == "v2";
  return false;
}

Status DeltaLog::WriteCheckpoint(const Snapshot& s) const {
  return WriteCheckpoint(s, checkpoint_options());
}

Status DeltaLog::WriteCheckpoint(const Snapshot& s, const CheckpointOptions& opt) const {
  SPATE_ASSIGN_OR_RETURN(const int64_t bytes, WriteCheckpointFiles(s, opt));
  cache_->NoteCheckpoint(bytes);
  return Status::OK();
}

bool DeltaLog::CheckpointDue(int64_t version, int interval,
                             const CheckpointOptions& opt) const {
  if (version <= 0 || interval <= 0 || version % interval != 0) return false;
  Cache* c = cache_.get();
  std::lock_guard<std::mutex> l(c->mu);
  const bool paced = opt.paced_above_bytes >= 0 && c->checkpoint_bytes >= 0 &&
                     c->checkpoint_bytes >= opt.paced_above_bytes;
  if (paced && c->commit_bytes_since < c->checkpoint_bytes) return false;
  c->commit_bytes_since = 0;
  return true;
}

Result<int64_t> DeltaLog::WriteCheckpointFiles(const Snapshot& s,
                                               const CheckpointOptions& opt) const {
  const bool v2 = UsesV2Checkpoints(s.metadata());
  // Tombstones older than delta.deletedFileRetentionDuration (default 1 week) expire.
  const int64_t retention = RetentionMs(
      s.metadata(), "delta.deletedFileRetentionDuration", 7LL * 24 * 3600 * 1000);
  const int64_t cutoff = now_() - retention;
  const TombstoneList& tombstones = s.tombstones();
  std::vector<size_t> removes;  // indexes into tombstones
  for (size_t i = 0; i < tombstones.size(); ++i) {
    const auto ts = tombstones.deletion_timestamp(i);
    if (!(ts && *ts < cutoff)) removes.push_back(i);
  }
  const auto& files = s.files();
  // Delta's part count: ceil((files + removes) / partSize), at least 1; the part size is
  // spark.databricks.delta.checkpoint.partSize, 50,000 for V2 checkpoints when unset.
  const int64_t file_actions = static_cast<int64_t>(files.size() + removes.size());
  const int64_t part_size = opt.part_size > 0 ? opt.part_size : v2 ? 50000 : 0;
  const int64_t parts =
      part_size > 0 ? std::max<int64_t>(1, (file_actions + part_size - 1) / part_size)
                    : 1;

  // The file actions [begin, end) (adds, then removes) into `w`'s add / remove columns.
  auto write_file_actions = [&](CheckpointFileWriter& w, int add_col, int remove_col,
                                int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (i < static_cast<int64_t>(files.size()))
        w.AddFileRow(add_col, files[i]);
      else
        w.AddRemoveRow(remove_col, tombstones.Get(removes[i - files.size()]));
    }
  };
  // protocol, metaData, txn, domainMetadata (column indexes of CheckpointSchema).
  auto write_table_actions = [&](CheckpointFileWriter& w) {
    w.AddJson(4, s.protocol().ToJson());
    w.AddJson(3, s.metadata().ToJson());
    for (const auto& [id, t] : s.transactions()) w.AddJson(0, t.ToJson());
    for (const auto& [d, body] : s.domain_metadata()) w.AddJson(5, body);
  };
  auto part_range = [&](int64_t p) {  // parts hold consecutive, nearly equal ranges
    return std::pair<int64_t, int64_t>{file_actions * p / parts,
                                       file_actions * (p + 1) / parts};
  };

  Json last = Json::Object();
  last.Set("version", Json::Int(s.version()));
  if (!v2) {
    // Classic: one file, or `parts` files <v>.checkpoint.<i>.<n>.parquet (the first also
    // holds the table actions); _last_checkpoint names the part count.
    int64_t rows = 0, bytes = 0;
    for (int64_t p = 0; p < parts; ++p) {
      std::string name = parts == 1 ? Pad20(s.version()) + ".checkpoint.parquet"
                                    : Pad20(s.version()) + ".checkpoint." + Pad10(p + 1) +
                                          "." + Pad10(parts) + ".parquet";
      CheckpointFileWriter w(fs_, CheckpointSchema(), io::JoinPath(log_path_, name));
      SPATE_RETURN_IF_ERROR(w.Open());
      if (p == 0) write_table_actions(w);
      auto [b, e] = part_range(p);
      write_file_actions(w, 1, 2, b, e);
      SPATE_RETURN_IF_ERROR(w.Finish());
      rows += w.rows();
      bytes += w.bytes();
    }
    last.Set("size", Json::Int(rows));
    if (parts > 1) last.Set("parts", Json::Int(parts));
    last.Set("sizeInBytes", Json::Int(bytes));
    last.Set("numOfAddFiles", Json::Int(static_cast<int64_t>(files.size())));
    SPATE_RETURN_IF_ERROR(
        fs_->WriteAtomic(io::JoinPath(log_path_, "_last_checkpoint"), last.ToString()));
    return bytes;
  }

  // V2: the file actions in `parts` sidecars
  // (_sidecars/<v>.checkpoint.<i>.<n>.<uuid>.parquet), then the UUID-named top-level file
  // (JSON or Parquet) with checkpointMetadata, one sidecar action per sidecar and the
  // table actions.
  const std::string sidecar_dir = io::JoinPath(log_path_, "_sidecars");
  SPATE_RETURN_IF_ERROR(fs_->MakeDirs(sidecar_dir));
  std::vector<Json> sidecars;
  int64_t sidecar_rows = 0, sidecar_bytes = 0;
  for (int64_t p = 0; p < parts; ++p) {
    std::string name = Pad20(s.version()) + ".checkpoint." + Pad10(p + 1) + "." +
                       Pad10(parts) + "." + formats::NewUuid() + ".parquet";
    std::string path = io::JoinPath(sidecar_dir, name);
    CheckpointFileWriter w(fs_, SidecarSchema(), path);
    SPATE_RETURN_IF_ERROR(w.Open());
    auto [b, e] = part_range(p);
    write_file_actions(w, 0, 1, b, e);
    SPATE_RETURN_IF_ERROR(w.Finish());
    SPATE_ASSIGN_OR_RETURN(auto info, fs_->Stat(path));
    Json sc = Json::Object();
    sc.Set("path", Json::String(name));
    sc.Set("sizeInBytes", Json::Int(info.size));
    sc.Set("modificationTime", Json::Int(info.modification_time_ms));
    sidecars.push_back(std::move(sc));
    sidecar_rows += w.rows();
    sidecar_bytes += info.size;
  }
  Json cm = Json::Object();
  cm.Set("version", Json::Int(s.version()));
  Json tags = Json::Object();
  tags.Set("sidecarNumActions", Json::String(std::to_string(sidecar_rows)));
  tags.Set("sidecarSizeInBytes", Json::String(std::to_string(sidecar_bytes)));
  tags.Set("numOfAddFiles", Json::String(std::to_string(files.size())));
  cm.Set("tags", std::move(tags));
  const bool parquet_top = ToLower(opt.v2_top_level_format) == "parquet";
  const std::string top_name = Pad20(s.version()) + ".checkpoint." + formats::NewUuid() +
                               (parquet_top ? ".parquet" : ".json");
  const std::string top_path = io::JoinPath(log_path_, top_name);
  int64_t top_rows = 0;
  if (parquet_top) {
    SchemaPtr schema = WithV2Columns(CheckpointSchema());
    CheckpointFileWriter w(fs_, schema, top_path);
    SPATE_RETURN_IF_ERROR(w.Open());
    w.AddJson(6, cm);
    for (const auto& sc : sidecars) w.AddJson(7, sc);
    write_table_actions(w);
    SPATE_RETURN_IF_ERROR(w.Finish());
    top_rows = w.rows();
  } else {
    std::string text;
    auto line = [&](const char* key, Json body) {
      Json o = Json::Object();
      o.Set(key, std::move(body));
      text += o.ToString();
      text += '\n';
      ++top_rows;
    };
    line("checkpointMetadata", cm);
    for (const auto& sc : sidecars) line("sidecar", sc);
    line("protocol", s.protocol().ToJson());
    line("metaData", s.metadata().ToJson());
    for (const auto& [id, t] : s.transactions()) line("txn", t.ToJson());
    for (const auto& [d, body] : s.domain_metadata()) line("domainMetadata", body);
    SPATE_RETURN_IF_ERROR(fs_->WriteAtomic(top_path, text));
  }
  SPATE_ASSIGN_OR_RETURN(auto top, fs_->Stat(top_path));
  // Every row written counts, the top-level file's too (as Delta's
  // _last_checkpoint.size).
  last.Set("size", Json::Int(sidecar_rows + top_rows));
  last.Set("sizeInBytes", Json::Int(sidecar_bytes + top.size));
  last.Set("numOfAddFiles", Json::Int(static_cast<int64_t>(files.size())));
  Json v2info = Json::Object();
  v2info.Set("path", Json::String(top_name));
  v2info.Set("sizeInBytes", Json::Int(top.size));
  v2info.Set("modificationTime", Json::Int(top.modification_time_ms));
  last.Set("v2Checkpoint", std::move(v2info));
  SPATE_RETURN_IF_ERROR(
      fs_->WriteAtomic(io::JoinPath(log_path_, "_last_checkpoint"), last.ToString()));
  return sidecar_bytes + top.size;
}

void DeltaLog::CheckpointInBackground(SnapshotPtr snapshot) const {
  CheckpointInBackground(std::move(snapshot), checkpoint_options());
}

void DeltaLog::CheckpointInBackground(SnapshotPtr snapshot,
                                      const CheckpointOptions& opt) const {
  Cache* c = cache_.get();
  std::lock_guard<std::mutex> l(c->cp_mu);
  if (c->stop) return;
  c->queued = std::move(snapshot);
  c->queued_options = opt;
  if (!c->worker.joinable()) {
    // The thread works on a DeltaLog of its own (no cache; no reference to `c`'s owner).
    auto bare = std::make_shared<const DeltaLog>(fs_, table_path_, now_);
    c->worker = std::thread([c, bare] {
      std::unique_lock<std::mutex> lk(c->cp_mu);
      while (true) {
        c->cp_cv.wait(lk, [&] { return c->stop || c->queued != nullptr; });
        if (!c->queued) return;  // stopping with nothing queued
        SnapshotPtr snap = std::move(c->queued);
        CheckpointOptions opt = c->queued_options;
        c->queued = nullptr;
        c->running = true;
        lk.unlock();
        auto written = bare->WriteCheckpointFiles(*snap, opt);
        Status st = written.status();
        if (st.ok()) {
          c->NoteCheckpoint(*written);
          auto cleaned = bare->CleanUpExpiredLogs(*snap);
          if (!cleaned.ok()) st = cleaned.status();
        }
        lk.lock();
        c->running = false;
        c->last_status = st;
        c->cp_cv.notify_all();
      }
    });
  }
  c->cp_cv.notify_all();
}

Status DeltaLog::WaitForBackgroundCheckpoints() const {
  Cache* c = cache_.get();
  std::unique_lock<std::mutex> l(c->cp_mu);
  c->cp_cv.wait(l, [&] { return !c->queued && !c->running; });
  return c->last_status;
}

Result<int64_t> DeltaLog::CleanUpExpiredLogs(const Snapshot& snapshot) const {
  const auto& conf = snapshot.metadata().configuration;
  if (auto it = conf.find("delta.enableExpiredLogCleanup");
      it != conf.end() && ToLower(it->second) == "false")
    return int64_t{0};
  const int64_t day = 86400000;
  const int64_t retention =
      RetentionMs(snapshot.metadata(), "delta.logRetentionDuration", 30 * day);
  int64_t cutoff = now_() - retention;
  cutoff =
      cutoff >= 0 ? cutoff / day * day : (cutoff - day + 1) / day * day;  // UTC midnight
  {
    // The same cutoff as a cleanup that found its oldest retained commit: that commit and
    // the checkpoint before it are the same now (new commits and checkpoints are newer),
    // so there is nothing more to delete (no listing of the log every checkpoint).
    std::lock_guard<std::mutex> l(cache_->cleanup_mu);
    if (cache_->settled_cutoff == cutoff) return int64_t{0};
  }
  SPATE_ASSIGN_OR_RETURN(Listing l, List());
  // The oldest retained version: the first commit made at or after the cutoff. Commits
  // are read oldest first until one is (O(newly expired commits): the ones before were
  // deleted by earlier cleanups); a commit's time is its commitInfo.timestamp, else its
  // file's modification time, made monotonic as Delta's history does.
  int64_t oldest_retained = snapshot.version();
  int64_t prev_time = INT64_MIN;
  for (const auto& [v, f] : l.commits) {
    if (v >= snapshot.version()) break;
    SPATE_ASSIGN_OR_RETURN(std::string text, fs_->ReadAll(f.path));
    SPATE_ASSIGN_OR_RETURN(auto actions, ParseActions(text, f.path));
    int64_t t = f.modification_time_ms;
    for (const auto& a : actions)
      if (a.kind == Action::Kind::kCommitInfo && a.commit_info.timestamp)
        t = *a.commit_info.timestamp;
    if (prev_time != INT64_MIN && t <= prev_time) t = prev_time + 1;
    prev_time = t;
    if (t >= cutoff) {
      oldest_retained = v;
      break;
    }
  }
  const bool settled = oldest_retained < snapshot.version();
  // The newest complete checkpoint at or before it: every version from there on stays
  // reconstructible.
  std::optional<int64_t> keep_from;
  for (const auto& [v, cp] : l.checkpoints)
    if (v <= oldest_retained && v <= snapshot.version()) keep_from = v;
  auto settle = [&] {
    if (!settled) return;
    std::lock_guard<std::mutex> l(cache_->cleanup_mu);
    cache_->settled_cutoff = cutoff;
  };
  if (!keep_from || *keep_from <= 0) {
    settle();
    return int64_t{0};
  }
  SPATE_ASSIGN_OR_RETURN(auto entries, fs_->List(log_path_, false));
  int64_t deleted = 0;
  for (const auto& e : entries) {
    if (e.is_directory) continue;
    std::string name = io::BaseName(e.path);
    if (name.size() < 21 || !AllDigits(std::string_view(name).substr(0, 20)) ||
        name[20] != '.')
      continue;
    std::string_view rest = std::string_view(name).substr(21);
    if (rest != "json" && rest != "crc" && rest.rfind("checkpoint.", 0) != 0) continue;
    if (ParseVersion(std::string_view(name).substr(0, 20)) >= *keep_from) continue;
    Status st = fs_->Delete(e.path, false);
    if (st.ok())
      ++deleted;
    else if (st.code() != StatusCode::kNotFound)
      return st;
  }
  // Sidecars of the deleted V2 checkpoints: a sidecar is named after the version of the
  // checkpoint that wrote it (<version>.checkpoint.<i>.<n>.<uuid>.parquet, delta-spark's
  // and spate's), so those below keep_from are referenced by no remaining checkpoint.
  // Files named otherwise are left alone.
  auto sidecars = fs_->List(io::JoinPath(log_path_, "_sidecars"), false);
  if (sidecars.ok()) {
    for (const auto& e : *sidecars) {
      if (e.is_directory) continue;
      std::string name = io::BaseName(e.path);
      if (name.size() < 21 || !AllDigits(std::string_view(name).substr(0, 20)) ||
          std::string_view(name).substr(20, 12) != ".checkpoint.")
        continue;
      if (ParseVersion(std::string_view(name).substr(0, 20)) >= *keep_from) continue;
      Status st = fs_->Delete(e.path, false);
      if (st.ok())
        ++deleted;
      else if (st.code() != StatusCode::kNotFound)
        return st;
    }
  }
  settle();
  return deleted;
}

Status DeltaLog::WriteCommitFile(int64_t version,
                                 const std::vector<Action>& actions) const {
  SPATE_RETURN_IF_ERROR(fs_->MakeDirs(log_path_));
  const std::string text = SerializeActions(actions);
  SPATE_RETURN_IF_ERROR(fs_->PutIfAbsent(CommitPath(version), text));
  std::lock_guard<std::mutex> l(cache_->mu);
  cache_->commit_bytes_since += static_cast<int64_t>(text.size());
  return Status::OK();
}

// ---- replay
// -------------------------------------------------------------------------------

namespace {

// A map of the replay's files: nodes from operator new, the bucket array (64 KiB from
// ~8,000 files) mapped apart (base/mapped_allocator.h).
template <typename V>
using ReplayMap =
    std::unordered_map<std::string, V, std::hash<std::string>, std::equal_to<std::string>,
                       MappedAllocator<std::pair<const std::string, V>>>;

struct ReplayState {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  ReplayMap<AddFile> active;
  ReplayMap<RemoveFile> tombstones;
  std::map<std::string, SetTransaction> txns;
  std::map<std::string, Json> domains;

  void Apply(Action& a) {
    switch (a.kind) {
      case Action::Kind::kAdd: {
        std::string key = a.add.Key();
        tombstones.erase(key);
        active[key] = std::move(a.add);
        break;
      }
      case Action::Kind::kRemove: {
        std::string key = a.remove.Key();
        active.erase(key);
        tombstones[key] = std::move(a.remove);
        break;
      }
      default:
        ApplyTableAction(a);
        break;
    }
  }
  // Everything but add/remove: protocol, metaData, txn, domainMetadata.
  void ApplyTableAction(Action& a) {
    switch (a.kind) {
      case Action::Kind::kProtocol:
        protocol = std::move(a.protocol);
        break;
      case Action::Kind::kMetadata:
        metadata = std::move(a.metadata);
        break;
      case Action::Kind::kTxn:
        txns[a.txn.app_id] = std::move(a.txn);
        break;
      case Action::Kind::kDomainMetadata: {
        auto domain = a.raw.GetString("domain");
        if (!domain) break;
        if (a.raw.GetBool("removed").value_or(false))
          domains.erase(*domain);
        else
          domains[*domain] = std::move(a.raw);
        break;
      }
      default:
        break;
    }
  }
  // Moves the reconciled files into `files` / `tombstones`, sorted by path.
  void TakeFiles(std::vector<AddFile>* files, MappedVector<RemoveFile>* tombs) {
    files->clear();
    files->reserve(active.size());
    for (auto& [k, f] : active) files->push_back(std::move(f));
    std::sort(files->begin(), files->end(),
              [](const AddFile& a, const AddFile& b) { return a.path < b.path; });
    tombs->clear();
    tombs->reserve(tombstones.size());
    for (auto& [k, r] : tombstones) tombs->push_back(std::move(r));
    std::sort(tombs->begin(), tombs->end(),
              [](const RemoveFile& a, const RemoveFile& b) { return a.path < b.path; });
    active.clear();
    tombstones.clear();
  }
};

}  // namespace

namespace {

std::atomic<int64_t> g_files_materialized{0};
std::atomic<int64_t> g_tombstones_materialized{0};
// The same counts for the calling thread only: what a batch's own work copied, without
// the background checkpoint thread's reads of the snapshot it writes.
thread_local Snapshot::MaterializeStats t_materialized;

// Guards every TombstoneNode's contents (a node is built in place by tombstones()).
std::mutex& TombstoneMu() {
  static std::mutex mu;
  return mu;
}

}  // namespace

Snapshot::MaterializeStats Snapshot::ProcessMaterializeStats() {
  return {g_files_materialized.load(), g_tombstones_materialized.load()};
}

Snapshot::MaterializeStats Snapshot::ThreadMaterializeStats() { return t_materialized; }

struct Snapshot::TombstoneNode {
  // full: `removes` is the snapshot's whole tombstone set, sorted (parent null). Else
  // `removes` are the removes of the snapshot's own commits, in commit order, over
  // `parent`'s set.
  bool full = false;
  TombstoneList removes;
  std::shared_ptr<TombstoneNode> parent;
  int depth = 0;  // nodes back to a full one when this one was made

  ~TombstoneNode() {
    // Releases a long chain iteratively (no recursion through the destructors).
    while (parent && parent.use_count() == 1) {
      std::shared_ptr<TombstoneNode> next = std::move(parent->parent);
      parent = std::move(next);
    }
  }
};

namespace {

bool TombstoneLess(const RemoveFile& a, const RemoveFile& b) {
  if (a.path != b.path) return a.path < b.path;
  return a.Key() < b.Key();
}

}  // namespace

const TombstoneList& Snapshot::tombstones() const {
  static const TombstoneList kNone;
  if (!tombs_) return kNone;
  TombstoneNode* n = tombs_.get();
  {
    std::lock_guard<std::mutex> l(TombstoneMu());
    if (n->full) return n->removes;
  }
  // The active files (their own lock): a re-added file is no tombstone.
  const std::vector<AddFile>& live = files();
  std::lock_guard<std::mutex> l(TombstoneMu());
  if (n->full) return n->removes;
  // Newest first, the latest remove of each file wins (a remove followed by an add is
  // dropped below: the file is active).
  std::vector<const TombstoneNode*> chain;
  const TombstoneNode* base = n;
  while (base && !base->full) {
    chain.push_back(base);
    base = base->parent.get();
  }
  using Ref = std::pair<const TombstoneList*, size_t>;
  std::unordered_map<std::string, Ref> newer;
  for (const TombstoneNode* c : chain)
    for (size_t i = c->removes.size(); i-- > 0;)
      newer.emplace(c->removes.Key(i), Ref{&c->removes, i});
  std::unordered_set<std::string> live_keys;
  if (!newer.empty() || (base && !base->removes.empty())) {
    live_keys.reserve(live.size());
    for (const auto& f : live) live_keys.insert(f.Key());
  }
  // Tombstones older than delta.deletedFileRetentionDuration (default 1 week) before this
  // version's commit time expire, as Delta's log replay drops them (its
  // minFileRetentionTimestamp): the set stays bounded by the retention.
  const int64_t cutoff = TombstoneCutoff();
  auto expired = [&](const TombstoneList& t, size_t i) {
    const auto ts = t.deletion_timestamp(i);
    return ts && *ts < cutoff;
  };
  // The base's survivors (in order) and the newer ones (sorted), merged.
  std::vector<size_t> kept;
  if (base) {
    kept.reserve(base->removes.size());
    for (size_t i = 0; i < base->removes.size(); ++i) {
      if (expired(base->removes, i)) continue;
      const std::string key = base->removes.Key(i);
      if (newer.find(key) == newer.end() && live_keys.find(key) == live_keys.end())
        kept.push_back(i);
    }
  }
  std::vector<Ref> added;
  for (const auto& [key, ref] : newer)
    if (live_keys.find(key) == live_keys.end() && !expired(*ref.first, ref.second))
      added.push_back(ref);
  auto less = [](const Ref& a, const Ref& b) {
    return TombstoneList::Less(*a.first, a.second, *b.first, b.second);
  };
  std::sort(added.begin(), added.end(), less);
  TombstoneList out;
  out.Reserve(kept.size() + added.size());
  size_t a = 0;
  for (size_t k = 0; k < kept.size() || a < added.size();) {
    if (a == added.size() ||
        (k < kept.size() && !less(added[a], Ref{&base->removes, kept[k]}))) {
      out.AddFrom(base->removes, kept[k++]);
    } else {
      out.AddFrom(*added[a].first, added[a].second);
      ++a;
    }
  }
  g_tombstones_materialized += static_cast<int64_t>(out.size());
  t_materialized.tombstones += static_cast<int64_t>(out.size());
  n->removes = std::move(out);
  n->full = true;
  n->depth = 0;
  n->parent.reset();
  return n->removes;
}

int64_t Snapshot::TombstoneCutoff() const {
  const int64_t retention = RetentionMs(metadata_, "delta.deletedFileRetentionDuration",
                                        7LL * 24 * 3600 * 1000);
  return timestamp_ms_ > INT64_MIN + retention ? timestamp_ms_ - retention : INT64_MIN;
}

void Snapshot::Materialize() const {
  if (materialized_.load(std::memory_order_acquire)) return;
  // One lock for every snapshot: the chain walked below may be shared with other
  // snapshots materializing at the same time (rare: every kMaxSnapshotChain commits,
  // and checkpoints).
  static std::mutex mu;
  std::lock_guard<std::mutex> l(mu);
  if (materialized_.load(std::memory_order_relaxed)) return;
  // The unmaterialized snapshots from this one back to a materialized ancestor; their
  // pending actions apply oldest first to a copy of the ancestor's files. The
  // intermediate snapshots stay as they are (they may still be read). Only the active
  // files: tombstones are built apart (tombstones()).
  std::vector<const Snapshot*> chain;
  const Snapshot* p = this;
  while (!p->materialized_.load(std::memory_order_relaxed)) {
    chain.push_back(p);
    p = p->base_.get();
  }
  ReplayMap<const AddFile*> active;  // its bucket array mapped once large
  active.reserve(p->files_.size() + chain.size());
  for (const auto& f : p->files_) active.emplace(f.Key(), &f);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    for (const auto& a : (*it)->pending_) {
      if (a.kind == Action::Kind::kAdd)
        active[a.add.Key()] = &a.add;
      else if (a.kind == Action::Kind::kRemove)
        active.erase(a.remove.Key());
    }
  }
  std::vector<AddFile> files;
  files.reserve(active.size());
  for (const auto& [k, f] : active) files.push_back(*f);
  std::sort(files.begin(), files.end(),
            [](const AddFile& a, const AddFile& b) { return a.path < b.path; });
  g_files_materialized += static_cast<int64_t>(files.size());
  t_materialized.files += static_cast<int64_t>(files.size());
  files_ = std::move(files);
  base_.reset();
  pending_.clear();
  pending_.shrink_to_fit();
  materialized_.store(true, std::memory_order_release);
}

namespace {

// Applies one checkpoint file: classic/multi-part Parquet, or a V2 checkpoint (JSON or
// Parquet top-level file whose `sidecar` actions name Parquet files in
// _delta_log/_sidecars).
Status ApplyCheckpointFile(const io::FileSystemPtr& fs, const std::string& log_path,
                           const std::string& path, ReplayState* state) {
  std::vector<std::string> sidecars;
  auto apply = [&](Action& a) {
    if (a.kind == Action::Kind::kOther) {
      if (const Json* sc = a.raw.Find("sidecar"); sc && sc->is_object()) {
        if (auto p = sc->GetString("path")) sidecars.push_back(*p);
      }
      return;
    }
    state->Apply(a);
  };
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    SPATE_ASSIGN_OR_RETURN(std::string text, fs->ReadAll(path));
    SPATE_ASSIGN_OR_RETURN(auto actions, ParseActions(text, path));
    for (auto& a : actions) apply(a);
  } else {
    SPATE_RETURN_IF_ERROR(ForEachCheckpointAction(fs, path, apply));
  }
  for (const auto& sc : sidecars) {
    std::string p = sc;
    if (p.rfind("file:", 0) == 0 || (!p.empty() && p[0] == '/')) {
      p = DecodePathUri(p.rfind("file://", 0) == 0 ? p.substr(7)
                        : p.rfind("file:", 0) == 0 ? p.substr(5)
                                                   : p);
    } else {
      p = io::JoinPath(io::JoinPath(log_path, "_sidecars"), DecodePathUri(p));
    }
    SPATE_RETURN_IF_ERROR(
        ForEachCheckpointAction(fs, p, [&](Action& a) { state->Apply(a); }));
  }
  return Status::OK();
}

}  // namespace

// Builds the snapshot after `commits` (consecutive, following `prev`) from `prev`
// without touching its file list: adds and removes are kept pending (materialized by
// files()), the rest is applied at once.
struct SnapshotApply {
  static Result<SnapshotPtr> Advance(const SnapshotPtr& prev,
                                     std::vector<CommitEntry> commits,
                                     const io::FileInfo& tail) {
    ReplayState state;
    state.protocol = prev->protocol_;
    state.metadata = prev->metadata_;
    state.txns = prev->txns_;
    state.domains = prev->domains_;
    auto snap = std::make_shared<Snapshot>();
    auto tombs = std::make_shared<Snapshot::TombstoneNode>();
    bool metadata_changed = false;
    for (auto& c : commits) {
      for (auto& a : c.actions) {
        if (a.kind == Action::Kind::kRemove) tombs->removes.Add(a.remove);
        if (a.kind == Action::Kind::kAdd || a.kind == Action::Kind::kRemove) {
          snap->pending_.push_back(std::move(a));
        } else {
          metadata_changed |=
              a.kind == Action::Kind::kMetadata || a.kind == Action::Kind::kProtocol;
          state.ApplyTableAction(a);
        }
      }
      snap->version_ = c.version;
      snap->timestamp_ms_ = c.timestamp_ms;
    }
    snap->schema_ = prev->schema_;
    if (metadata_changed) {
      SPATE_RETURN_IF_ERROR(CheckSupported(*state.protocol, &*state.metadata, false));
      auto schema = state.metadata->ParseSchema();
      if (!schema.ok()) {
        return Status(StatusCode::kDataCorruption,
                      "Delta table " + prev->table_path_ + " version " +
                          std::to_string(snap->version_) +
                          ": bad schemaString: " + schema.status().message());
      }
      snap->schema_ = *schema;
    }
    snap->protocol_ = std::move(*state.protocol);
    snap->metadata_ = std::move(*state.metadata);
    snap->txns_ = std::move(state.txns);
    snap->domains_ = std::move(state.domains);
    snap->table_path_ = prev->table_path_;
    snap->checkpoint_version_ = prev->checkpoint_version_;
    snap->tail_size_ = tail.size;
    snap->tail_mtime_ = tail.modification_time_ms;
    snap->base_ = prev;
    snap->chain_ =
        prev->materialized_.load(std::memory_order_acquire) ? 1 : prev->chain_ + 1;
    snap->materialized_.store(false, std::memory_order_release);
    {
      std::lock_guard<std::mutex> l(TombstoneMu());
      const Snapshot::TombstoneNode* parent = prev->tombs_.get();
      tombs->depth = !parent || parent->full ? 1 : parent->depth + 1;
      tombs->parent = prev->tombs_;
    }
    const bool long_tomb_chain = tombs->depth > kMaxTombstoneChain;
    snap->tombs_ = std::move(tombs);
    if (snap->chain_ > kMaxSnapshotChain) snap->Materialize();
    if (long_tomb_chain) (void)snap->tombstones();
    return SnapshotPtr(std::move(snap));
  }
};

CheckpointOptions DeltaLog::checkpoint_options() const {
  std::lock_guard<std::mutex> l(cache_->mu);
  return cache_->checkpoint_options;
}

void DeltaLog::SetCheckpointOptions(CheckpointOptions options) const {
  std::lock_guard<std::mutex> l(cache_->mu);
  cache_->checkpoint_options = std::move(options);
}

SnapshotPtr DeltaLog::Cached() const {
  std::lock_guard<std::mutex> l(cache_->mu);
  return cache_->latest;
}

Result<std::vector<CommitEntry>> DeltaLog::ReadCommitsFrom(int64_t start) const {
  std::vector<CommitEntry> out;
  for (int64_t v = start;; ++v) {
    std::string path = CommitPath(v);
    auto text = fs_->ReadAll(path);
    if (!text.ok()) {
      if (text.status().code() == StatusCode::kNotFound) break;
      return text.status();
    }
    CommitEntry e;
    e.version = v;
    e.timestamp_ms = -1;
    SPATE_ASSIGN_OR_RETURN(e.actions, ParseActions(*text, path));
    for (const auto& a : e.actions)
      if (a.kind == Action::Kind::kCommitInfo && a.commit_info.timestamp)
        e.timestamp_ms = *a.commit_info.timestamp;
    if (e.timestamp_ms < 0) {
      SPATE_ASSIGN_OR_RETURN(auto info, fs_->Stat(path));
      e.timestamp_ms = info.modification_time_ms;
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<SnapshotPtr> DeltaLog::UpdateCached(const SnapshotPtr& cached) const {
  if (!cached || cached->tail_mtime_ < 0) return SnapshotPtr();
  // The cached tail must still be the file it was read from (a table deleted and
  // written again has different commit files).
  auto tail = fs_->Stat(CommitPath(cached->version()));
  if (!tail.ok()) {
    if (tail.status().code() == StatusCode::kNotFound) return SnapshotPtr();
    return tail.status();
  }
  if (tail->size != cached->tail_size_ ||
      tail->modification_time_ms != cached->tail_mtime_)
    return SnapshotPtr();
  SPATE_ASSIGN_OR_RETURN(auto commits, ReadCommitsFrom(cached->version() + 1));
  if (commits.empty()) return cached;
  SPATE_ASSIGN_OR_RETURN(auto last, fs_->Stat(CommitPath(commits.back().version)));
  return SnapshotApply::Advance(cached, std::move(commits), last);
}

void DeltaLog::InstallCommit(int64_t version, const std::vector<Action>& actions) const {
  SnapshotPtr cached = Cached();
  if (!cached || cached->version() != version - 1 || cached->tail_mtime_ < 0) return;
  auto tail = fs_->Stat(CommitPath(version));
  if (!tail.ok()) return;
  CommitEntry e;
  e.version = version;
  e.timestamp_ms = tail->modification_time_ms;
  e.actions = actions;
  for (const auto& a : e.actions)
    if (a.kind == Action::Kind::kCommitInfo && a.commit_info.timestamp)
      e.timestamp_ms = *a.commit_info.timestamp;
  std::vector<CommitEntry> commits;
  commits.push_back(std::move(e));
  auto next = SnapshotApply::Advance(cached, std::move(commits), *tail);
  if (!next.ok()) return;
  std::lock_guard<std::mutex> l(cache_->mu);
  if (cache_->latest == cached) cache_->latest = *next;
}

Result<SnapshotPtr> DeltaLog::Latest() const {
  SnapshotPtr cached = Cached();
  if (cached) {
    SPATE_ASSIGN_OR_RETURN(SnapshotPtr updated, UpdateCached(cached));
    if (updated) {
      std::lock_guard<std::mutex> l(cache_->mu);
      if (!cache_->latest || cache_->latest->version() <= updated->version())
        cache_->latest = updated;
      return updated;
    }
  }
  SPATE_ASSIGN_OR_RETURN(SnapshotPtr loaded, Load(-1));
  std::lock_guard<std::mutex> l(cache_->mu);
  cache_->latest = loaded;
  return loaded;
}

Result<SnapshotPtr> DeltaLog::At(int64_t version) const {
  if (SnapshotPtr cached = Cached(); cached && cached->version() == version)
    return cached;
  if (version < 0) {
    return Status::Error(
        "DELTA_VERSION_NOT_FOUND",
        {{"userVersion", std::to_string(version)}, {"earliest", "0"}, {"latest", "?"}});
  }
  return Load(version);
}

Result<SnapshotPtr> DeltaLog::Load(int64_t version) const {
  SPATE_ASSIGN_OR_RETURN(Listing l, List());
  if (l.commits.empty() && l.checkpoints.empty()) return NotDeltaTable(table_path_);
  int64_t latest = -1;
  if (!l.commits.empty()) latest = l.commits.rbegin()->first;
  if (!l.checkpoints.empty()) latest = std::max(latest, l.checkpoints.rbegin()->first);
  const int64_t target = version < 0 ? latest : version;
  int64_t earliest = l.commits.empty() ? latest : l.commits.begin()->first;
  if (!l.checkpoints.empty()) earliest = std::min(earliest, l.checkpoints.begin()->first);
  if (target > latest || target < earliest) {
    return Status::Error("DELTA_VERSION_NOT_FOUND",
                         {{"userVersion", std::to_string(target)},
                          {"earliest", std::to_string(earliest)},
                          {"latest", std::to_string(latest)}});
  }
  // The checkpoint to start from: _last_checkpoint's when usable, else the newest one.
  std::optional<int64_t> cp;
  if (l.has_last_checkpoint) {
    auto text = fs_->ReadAll(io::JoinPath(log_path_, "_last_checkpoint"));
    if (text.ok()) {
      auto j = Json::Parse(*text);
      if (j.ok() && j->is_object()) {
        if (auto v = j->GetInt("version"); v && *v <= target && l.checkpoints.count(*v))
          cp = *v;
      }
    }
  }
  {
    auto it = l.checkpoints.upper_bound(target);
    if (it != l.checkpoints.begin()) {
      --it;
      if (!cp || it->first > *cp) cp = it->first;
    }
  }
  // Commits after the checkpoint must be contiguous up to the target.
  const int64_t first = cp ? *cp + 1 : 0;
  std::vector<int64_t> present;
  for (auto it = l.commits.lower_bound(first);
       it != l.commits.end() && it->first <= target; ++it)
    present.push_back(it->first);
  bool contiguous = static_cast<int64_t>(present.size()) == target - first + 1;
  if (!contiguous) {
    std::vector<int64_t> shown = present;
    if (!cp && (present.empty() || present.front() != 0)) {
      // Nothing to start from: the log was truncated (or never had version 0).
    }
    std::string list;
    for (size_t i = 0; i < shown.size(); ++i)
      list += (i ? ", " : "") + std::to_string(shown[i]);
    return Status::Error("DELTA_VERSIONS_NOT_CONTIGUOUS",
                         {{"versionList", "[" + list + "]"}});
  }
  ReplayState state;
  int64_t ts = 0;
  if (cp) {
    for (const auto& f : l.checkpoints[*cp].files) {
      SPATE_RETURN_IF_ERROR(ApplyCheckpointFile(fs_, log_path_, f.path, &state));
    }
    ts = l.checkpoints[*cp].mtime;
  }
  for (int64_t v : present) {
    const auto& info = l.commits[v];
    auto text = fs_->ReadAll(info.path);
    if (!text.ok()) return text.status();
    SPATE_ASSIGN_OR_RETURN(auto actions, ParseActions(*text, info.path));
    int64_t commit_ts = info.modification_time_ms;
    for (auto& a : actions) {
      if (a.kind == Action::Kind::kCommitInfo && a.commit_info.timestamp)
        commit_ts = *a.commit_info.timestamp;
      state.Apply(a);
    }
    ts = commit_ts;
  }
  if (!state.protocol) {
    return Status::Error(
        "DELTA_STATE_RECOVER_ERROR",
        {{"operation", "protocol"}, {"version", std::to_string(target)}});
  }
  if (!state.metadata) {
    return Status::Error(
        "DELTA_STATE_RECOVER_ERROR",
        {{"operation", "metadata"}, {"version", std::to_string(target)}});
  }
  SPATE_RETURN_IF_ERROR(CheckSupported(*state.protocol, &*state.metadata, false));
  auto snap = std::make_shared<Snapshot>();
  auto schema = state.metadata->ParseSchema();
  if (!schema.ok()) {
    return Status(StatusCode::kDataCorruption,
                  "Delta table " + table_path_ + " version " + std::to_string(target) +
                      ": bad schemaString: " + schema.status().message());
  }
  snap->schema_ = *schema;
  snap->version_ = target;
  snap->protocol_ = std::move(*state.protocol);
  snap->metadata_ = std::move(*state.metadata);
  auto tombs = std::make_shared<Snapshot::TombstoneNode>();
  tombs->full = true;
  // Mapped (base/mapped_allocator.h): a VACUUM's fresh load of a table with a week of
  // tombstones builds MBs of RemoveFile values here for a moment; from malloc, their
  // free would raise glibc's dynamic mmap threshold (docs/streaming.md, "Memory").
  MappedVector<RemoveFile> removes;
  state.TakeFiles(&snap->files_, &removes);
  snap->txns_ = std::move(state.txns);
  snap->domains_ = std::move(state.domains);
  snap->timestamp_ms_ = ts;
  const int64_t cutoff = snap->TombstoneCutoff();
  std::erase_if(removes, [&](const RemoveFile& r) {
    return r.deletion_timestamp && *r.deletion_timestamp < cutoff;
  });
  std::sort(removes.begin(), removes.end(), TombstoneLess);
  tombs->removes.Reserve(removes.size());
  for (const auto& r : removes) tombs->removes.Add(r);
  snap->tombs_ = std::move(tombs);
  if (auto it = l.commits.find(target); it != l.commits.end()) {
    snap->tail_size_ = it->second.size;
    snap->tail_mtime_ = it->second.modification_time_ms;
  }
  snap->table_path_ = table_path_;
  snap->checkpoint_version_ = cp;
  return SnapshotPtr(std::move(snap));
}

Result<std::vector<CommitEntry>> DeltaLog::ReadCommits(int64_t start, int64_t end) const {
  SPATE_ASSIGN_OR_RETURN(Listing l, List());
  std::vector<CommitEntry> out;
  int64_t expect = start;
  for (auto it = l.commits.lower_bound(start); it != l.commits.end(); ++it) {
    if (end >= 0 && it->first > end) break;
    if (it->first != expect) {
      return Status::Error("DELTA_VERSIONS_NOT_CONTIGUOUS",
                           {{"versionList", "[" + std::to_string(expect - 1) + ", " +
                                                std::to_string(it->first) + "]"}});
    }
    ++expect;
    auto text = fs_->ReadAll(it->second.path);
    if (!text.ok()) return text.status();
    CommitEntry e;
    e.version = it->first;
    e.timestamp_ms = it->second.modification_time_ms;
    SPATE_ASSIGN_OR_RETURN(e.actions, ParseActions(*text, it->second.path));
    for (const auto& a : e.actions)
      if (a.kind == Action::Kind::kCommitInfo && a.commit_info.timestamp)
        e.timestamp_ms = *a.commit_info.timestamp;
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<FileChanges>> DeltaLog::ChangesSince(int64_t after_version,
                                                        int64_t end) const {
  SPATE_ASSIGN_OR_RETURN(auto commits, ReadCommits(after_version + 1, end));
  std::vector<FileChanges> out;
  for (auto& c : commits) {
    FileChanges fc;
    fc.version = c.version;
    fc.timestamp_ms = c.timestamp_ms;
    for (auto& a : c.actions) {
      switch (a.kind) {
        case Action::Kind::kAdd:
          fc.adds.push_back(std::move(a.add));
          break;
        case Action::Kind::kRemove:
          fc.removes.push_back(std::move(a.remove));
          break;
        case Action::Kind::kMetadata:
          fc.metadata_changed = true;
          break;
        case Action::Kind::kProtocol:
          fc.protocol_changed = true;
          break;
        case Action::Kind::kCommitInfo:
          fc.operation = a.commit_info.operation;
          break;
        default:
          break;
      }
    }
    out.push_back(std::move(fc));
  }
  return out;
}

Result<std::vector<CommitEntry>> DeltaLog::History(int limit) const {
  SPATE_ASSIGN_OR_RETURN(Listing l, List());
  if (l.commits.empty() && l.checkpoints.empty()) return NotDeltaTable(table_path_);
  std::vector<CommitEntry> out;
  for (auto it = l.commits.rbegin(); it != l.commits.rend(); ++it) {
    if (limit > 0 && static_cast<int>(out.size()) >= limit) break;
    auto text = fs_->ReadAll(it->second.path);
    if (!text.ok()) return text.status();
    SPATE_ASSIGN_OR_RETURN(auto actions, ParseActions(*text, it->second.path));
    CommitEntry e;
    e.version = it->first;
    e.timestamp_ms = it->second.modification_time_ms;
    for (auto& a : actions) {
      if (a.kind == Action::Kind::kCommitInfo) {
        if (a.commit_info.timestamp) e.timestamp_ms = *a.commit_info.timestamp;
        e.actions.push_back(std::move(a));
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<int64_t> DeltaLog::VersionAtTimestamp(int64_t timestamp_ms) const {
  SPATE_ASSIGN_OR_RETURN(Listing l, List());
  if (l.commits.empty()) return NotDeltaTable(table_path_);
  // After log cleanup the first commit is the oldest retained one (a checkpoint at or
  // before it makes it readable).
  SPATE_ASSIGN_OR_RETURN(auto commits, ReadCommits(l.commits.begin()->first, -1));
  if (commits.empty()) return NotDeltaTable(table_path_);
  // Timestamps are made monotonic, as Delta's history manager does.
  int64_t prev = INT64_MIN;
  int64_t found = -1;
  for (auto& c : commits) {
    if (prev != INT64_MIN && c.timestamp_ms <= prev) c.timestamp_ms = prev + 1;
    prev = c.timestamp_ms;
    if (c.timestamp_ms <= timestamp_ms) found = c.version;
  }
  auto fmt = [](int64_t ms) { return std::to_string(ms); };
  if (found < 0) {
    return Status::Error("DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION",
                         {{"userTimestamp", fmt(timestamp_ms)},
                          {"commitTs", fmt(commits.front().timestamp_ms)}});
  }
  if (timestamp_ms > commits.back().timestamp_ms && found == commits.back().version) {
    // Spark refuses timestamps after the latest commit.
    return Status::Error("DELTA_TIMESTAMP_GREATER_THAN_COMMIT",
                         {{"providedTimestamp", fmt(timestamp_ms)},
                          {"tableName", table_path_},
                          {"maximumTimestamp", fmt(commits.back().timestamp_ms)}});
  }
  return found;
}

// ---- fuzz helper
// ----------------------------------------------------------------------------

Result<int64_t> ReplayForTest(const std::vector<std::string>& commits) {
  ReplayState state;
  for (size_t i = 0; i < commits.size(); ++i) {
    SPATE_ASSIGN_OR_RETURN(auto actions,
                           ParseActions(commits[i], "commit " + std::to_string(i)));
    for (auto& a : actions) state.Apply(a);
  }
  if (state.protocol)
    (void)CheckSupported(*state.protocol, state.metadata ? &*state.metadata : nullptr,
                         true);
  if (state.metadata) (void)state.metadata->ParseSchema();
  return static_cast<int64_t>(state.active.size());
}

}  // namespace spate::table
