// Copyright spate authors.
#include "spate/table/actions.h"

#include <algorithm>
#include <cstdio>

#include "spate/types/schema_json.h"

namespace spate::table {

namespace {

Json StringMap(const std::map<std::string, std::string>& m) {
  Json o = Json::Object();
  for (const auto& [k, v] : m) o.Set(k, Json::String(v));
  return o;
}

std::map<std::string, std::string> StringMapFrom(const Json* j) {
  std::map<std::string, std::string> out;
  if (!j || !j->is_object()) return out;
  for (const auto& [k, v] : j->fields()) {
    if (v.is_string())
      out[k] = v.string_value();
    else if (!v.is_null())
      out[k] = v.ToString();
  }
  return out;
}

std::vector<std::string> StringList(const Json* j) {
  std::vector<std::string> out;
  if (!j || !j->is_array()) return out;
  for (const auto& v : j->items())
    if (v.is_string()) out.push_back(v.string_value());
  return out;
}

Json List(const std::vector<std::string>& v) {
  Json a = Json::Array();
  for (const auto& s : v) a.Append(Json::String(s));
  return a;
}

}  // namespace

Json PartitionValuesToJson(const PartitionValues& pv) {
  Json o = Json::Object();
  for (const auto& [k, v] : pv) o.Set(k, v ? Json::String(*v) : Json::Null());
  return o;
}

PartitionValues PartitionValuesFromJson(const Json& j) {
  PartitionValues out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.fields()) {
    if (v.is_null())
      out.emplace_back(k, std::nullopt);
    else if (v.is_string())
      out.emplace_back(k, v.string_value());
    else
      out.emplace_back(k, v.ToString());
  }
  return out;
}

// ---- Protocol
// ---------------------------------------------------------------------------

Json Protocol::ToJson() const {
  Json o = Json::Object();
  o.Set("minReaderVersion", Json::Int(min_reader_version));
  o.Set("minWriterVersion", Json::Int(min_writer_version));
  if (reader_features) o.Set("readerFeatures", List(*reader_features));
  if (writer_features) o.Set("writerFeatures", List(*writer_features));
  return o;
}
Protocol Protocol::FromJson(const Json& j) {
  Protocol p;
  p.min_reader_version = static_cast<int>(j.GetInt("minReaderVersion").value_or(1));
  p.min_writer_version = static_cast<int>(j.GetInt("minWriterVersion").value_or(2));
  if (const Json* f = j.Find("readerFeatures"); f && f->is_array())
    p.reader_features = StringList(f);
  if (const Json* f = j.Find("writerFeatures"); f && f->is_array())
    p.writer_features = StringList(f);
  return p;
}
bool Protocol::operator==(const Protocol& o) const {
  return min_reader_version == o.min_reader_version &&
         min_writer_version == o.min_writer_version &&
         reader_features == o.reader_features && writer_features == o.writer_features;
}

// ---- Metadata
// ---------------------------------------------------------------------------

Json Metadata::ToJson() const {
  Json o = Json::Object();
  o.Set("id", Json::String(id));
  if (name) o.Set("name", Json::String(*name));
  if (description) o.Set("description", Json::String(*description));
  Json fmt = Json::Object();
  fmt.Set("provider", Json::String(format_provider));
  fmt.Set("options", StringMap(format_options));
  o.Set("format", std::move(fmt));
  o.Set("schemaString", Json::String(schema_string));
  o.Set("partitionColumns", List(partition_columns));
  o.Set("configuration", StringMap(configuration));
  if (created_time) o.Set("createdTime", Json::Int(*created_time));
  return o;
}
Metadata Metadata::FromJson(const Json& j) {
  Metadata m;
  m.id = j.GetString("id").value_or("");
  m.name = j.GetString("name");
  m.description = j.GetString("description");
  if (const Json* f = j.Find("format"); f && f->is_object()) {
    m.format_provider = f->GetString("provider").value_or("parquet");
    m.format_options = StringMapFrom(f->Find("options"));
  }
  m.schema_string = j.GetString("schemaString").value_or("");
  m.partition_columns = StringList(j.Find("partitionColumns"));
  m.configuration = StringMapFrom(j.Find("configuration"));
  m.created_time = j.GetInt("createdTime");
  return m;
}
Result<SchemaPtr> Metadata::ParseSchema() const {
  return SchemaFromSparkJson(schema_string);
}

// ---- Deletion vectors
// ---------------------------------------------------------------------

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id = storage_type + path_or_inline_dv;
  if (offset) id += "@" + std::to_string(*offset);
  return id;
}
Json DeletionVectorDescriptor::ToJson() const {
  Json o = Json::Object();
  o.Set("storageType", Json::String(storage_type));
  o.Set("pathOrInlineDv", Json::String(path_or_inline_dv));
  if (offset) o.Set("offset", Json::Int(*offset));
  o.Set("sizeInBytes", Json::Int(size_in_bytes));
  o.Set("cardinality", Json::Int(cardinality));
  return o;
}
DeletionVectorDescriptor DeletionVectorDescriptor::FromJson(const Json& j) {
  DeletionVectorDescriptor d;
  d.storage_type = j.GetString("storageType").value_or("");
  d.path_or_inline_dv = j.GetString("pathOrInlineDv").value_or("");
  if (auto o = j.GetInt("offset")) d.offset = static_cast<int32_t>(*o);
  d.size_in_bytes = static_cast<int32_t>(j.GetInt("sizeInBytes").value_or(0));
  d.cardinality = j.GetInt("cardinality").value_or(0);
  return d;
}

// ---- add / remove
// ---------------------------------------------------------------------------

std::string AddFile::Key() const {
  return deletion_vector ? path + "\n" + deletion_vector->UniqueId() : path;
}
std::string RemoveFile::Key() const {
  return deletion_vector ? path + "\n" + deletion_vector->UniqueId() : path;
}

Json AddFile::ToJson() const {
  Json o = Json::Object();
  o.Set("path", Json::String(path));
  o.Set("partitionValues", PartitionValuesToJson(partition_values));
  o.Set("size", Json::Int(size));
  o.Set("modificationTime", Json::Int(modification_time));
  o.Set("dataChange", Json::Bool(data_change));
  if (stats) o.Set("stats", Json::String(*stats));
  if (tags) o.Set("tags", StringMap(*tags));
  if (deletion_vector) o.Set("deletionVector", deletion_vector->ToJson());
  if (base_row_id) o.Set("baseRowId", Json::Int(*base_row_id));
  if (default_row_commit_version)
    o.Set("defaultRowCommitVersion", Json::Int(*default_row_commit_version));
  return o;
}
AddFile AddFile::FromJson(const Json& j) {
  AddFile a;
  a.path = j.GetString("path").value_or("");
  if (const Json* pv = j.Find("partitionValues"))
    a.partition_values = PartitionValuesFromJson(*pv);
  a.size = j.GetInt("size").value_or(0);
  a.modification_time = j.GetInt("modificationTime").value_or(0);
  a.data_change = j.GetBool("dataChange").value_or(true);
  a.stats = j.GetString("stats");
  if (const Json* t = j.Find("tags"); t && t->is_object()) a.tags = StringMapFrom(t);
  if (const Json* dv = j.Find("deletionVector"); dv && dv->is_object())
    a.deletion_vector = DeletionVectorDescriptor::FromJson(*dv);
  a.base_row_id = j.GetInt("baseRowId");
  a.default_row_commit_version = j.GetInt("defaultRowCommitVersion");
  return a;
}

Json RemoveFile::ToJson() const {
  Json o = Json::Object();
  o.Set("path", Json::String(path));
  if (deletion_timestamp) o.Set("deletionTimestamp", Json::Int(*deletion_timestamp));
  o.Set("dataChange", Json::Bool(data_change));
  if (extended_file_metadata)
    o.Set("extendedFileMetadata", Json::Bool(*extended_file_metadata));
  if (partition_values)
    o.Set("partitionValues", PartitionValuesToJson(*partition_values));
  if (size) o.Set("size", Json::Int(*size));
  if (stats) o.Set("stats", Json::String(*stats));
  if (deletion_vector) o.Set("deletionVector", deletion_vector->ToJson());
  return o;
}
RemoveFile RemoveFile::FromJson(const Json& j) {
  RemoveFile r;
  r.path = j.GetString("path").value_or("");
  r.deletion_timestamp = j.GetInt("deletionTimestamp");
  r.data_change = j.GetBool("dataChange").value_or(true);
  r.extended_file_metadata = j.GetBool("extendedFileMetadata");
  if (const Json* pv = j.Find("partitionValues"); pv && pv->is_object())
    r.partition_values = PartitionValuesFromJson(*pv);
  r.size = j.GetInt("size");
  r.stats = j.GetString("stats");
  if (const Json* dv = j.Find("deletionVector"); dv && dv->is_object())
    r.deletion_vector = DeletionVectorDescriptor::FromJson(*dv);
  return r;
}

RemoveFile RemoveOf(const AddFile& file, int64_t deletion_timestamp, bool data_change) {
  RemoveFile r;
  r.path = file.path;
  r.deletion_timestamp = deletion_timestamp;
  r.data_change = data_change;
  r.extended_file_metadata = true;
  r.partition_values = file.partition_values;
  r.size = file.size;
  r.deletion_vector = file.deletion_vector;
  return r;
}

// ---- txn / commitInfo
// -------------------------------------------------------------------------

Json SetTransaction::ToJson() const {
  Json o = Json::Object();
  o.Set("appId", Json::String(app_id));
  o.Set("version", Json::Int(version));
  if (last_updated) o.Set("lastUpdated", Json::Int(*last_updated));
  return o;
}
SetTransaction SetTransaction::FromJson(const Json& j) {
  SetTransaction t;
  t.app_id = j.GetString("appId").value_or("");
  t.version = j.GetInt("version").value_or(0);
  t.last_updated = j.GetInt("lastUpdated");
  return t;
}

Json CommitInfo::ToJson() const {
  Json o = Json::Object();
  if (timestamp) o.Set("timestamp", Json::Int(*timestamp));
  o.Set("operation", Json::String(operation));
  Json params = StringMap(operation_parameters);
  for (const auto& k : boolean_parameters) {
    auto it = operation_parameters.find(k);
    if (it != operation_parameters.end() &&
        (it->second == "true" || it->second == "false"))
      params.Set(k, Json::Bool(it->second == "true"));
  }
  o.Set("operationParameters", std::move(params));
  if (read_version) o.Set("readVersion", Json::Int(*read_version));
  if (isolation_level) o.Set("isolationLevel", Json::String(*isolation_level));
  if (is_blind_append) o.Set("isBlindAppend", Json::Bool(*is_blind_append));
  if (!operation_metrics.empty()) o.Set("operationMetrics", StringMap(operation_metrics));
  if (user_metadata) o.Set("userMetadata", Json::String(*user_metadata));
  if (engine_info) o.Set("engineInfo", Json::String(*engine_info));
  if (txn_id) o.Set("txnId", Json::String(*txn_id));
  if (raw.is_object()) {
    for (const auto& [k, v] : raw.fields())
      if (!o.Find(k)) o.Set(k, v);
  }
  return o;
}
CommitInfo CommitInfo::FromJson(const Json& j) {
  CommitInfo c;
  c.timestamp = j.GetInt("timestamp");
  c.operation = j.GetString("operation").value_or("");
  c.operation_parameters = StringMapFrom(j.Find("operationParameters"));
  if (const Json* p = j.Find("operationParameters"); p && p->is_object()) {
    for (const auto& [k, v] : p->fields())
      if (v.is_bool()) c.boolean_parameters.insert(k);
  }
  c.read_version = j.GetInt("readVersion");
  c.isolation_level = j.GetString("isolationLevel");
  c.is_blind_append = j.GetBool("isBlindAppend");
  c.operation_metrics = StringMapFrom(j.Find("operationMetrics"));
  c.user_metadata = j.GetString("userMetadata");
  c.engine_info = j.GetString("engineInfo");
  c.txn_id = j.GetString("txnId");
  c.raw = j.is_object() ? j : Json::Object();
  return c;
}

// ---- Action
// ---------------------------------------------------------------------------------

namespace {

// An action of `kind` whose body `member` is `body`.
template <typename T>
Action ActionOf(Action::Kind kind, T Action::*member, T body) {
  Action a;
  a.kind = kind;
  a.*member = std::move(body);
  return a;
}

}  // namespace

Action Action::Of(Protocol p) {
  return ActionOf(Kind::kProtocol, &Action::protocol, std::move(p));
}
Action Action::Of(Metadata m) {
  return ActionOf(Kind::kMetadata, &Action::metadata, std::move(m));
}
Action Action::Of(AddFile f) { return ActionOf(Kind::kAdd, &Action::add, std::move(f)); }
Action Action::Of(RemoveFile r) {
  return ActionOf(Kind::kRemove, &Action::remove, std::move(r));
}
Action Action::Of(SetTransaction t) {
  return ActionOf(Kind::kTxn, &Action::txn, std::move(t));
}
Action Action::Of(CommitInfo c) {
  return ActionOf(Kind::kCommitInfo, &Action::commit_info, std::move(c));
}

Json Action::ToJson() const {
  Json o = Json::Object();
  switch (kind) {
    case Kind::kProtocol:
      o.Set("protocol", protocol.ToJson());
      break;
    case Kind::kMetadata:
      o.Set("metaData", metadata.ToJson());
      break;
    case Kind::kAdd:
      o.Set("add", add.ToJson());
      break;
    case Kind::kRemove:
      o.Set("remove", remove.ToJson());
      break;
    case Kind::kTxn:
      o.Set("txn", txn.ToJson());
      break;
    case Kind::kCommitInfo:
      o.Set("commitInfo", commit_info.ToJson());
      break;
    case Kind::kCdc:
      o.Set("cdc", raw);
      break;
    case Kind::kDomainMetadata:
      o.Set("domainMetadata", raw);
      break;
    case Kind::kOther:
      return raw;
  }
  return o;
}

std::optional<Action> Action::FromJson(const Json& line) {
  if (!line.is_object()) return std::nullopt;
  for (const auto& [key, body] : line.fields()) {
    if (!body.is_object()) continue;
    if (key == "add") return Of(AddFile::FromJson(body));
    if (key == "remove") return Of(RemoveFile::FromJson(body));
    if (key == "metaData") return Of(Metadata::FromJson(body));
    if (key == "protocol") return Of(Protocol::FromJson(body));
    if (key == "txn") return Of(SetTransaction::FromJson(body));
    if (key == "commitInfo") return Of(CommitInfo::FromJson(body));
    Action a;
    if (key == "cdc")
      a.kind = Kind::kCdc;
    else if (key == "domainMetadata")
      a.kind = Kind::kDomainMetadata;
    else if (key == "checkpointMetadata" || key == "sidecar")
      a.kind = Kind::kOther;
    else
      continue;  // unknown action: ignored
    a.raw = key == "checkpointMetadata" || key == "sidecar" ? line : body;
    return a;
  }
  return std::nullopt;
}

std::string SerializeActions(const std::vector<Action>& actions) {
  std::string out;
  for (const auto& a : actions) {
    a.ToJson().AppendTo(&out);
    out.push_back('\n');
  }
  return out;
}

Result<std::vector<Action>> ParseActions(std::string_view text, const std::string& file) {
  std::vector<Action> out;
  out.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.remove_suffix(1);
    if (line.empty()) continue;
    auto j = Json::Parse(line);
    if (!j.ok()) {
      return Status(StatusCode::kDataCorruption, "Corrupt Delta log file " + file +
                                                     " (line " + std::to_string(line_no) +
                                                     "): " + j.status().message());
    }
    if (!j->is_object()) {
      return Status(StatusCode::kDataCorruption,
                    "Corrupt Delta log file " + file + " (line " +
                        std::to_string(line_no) + "): an action must be a JSON object");
    }
    if (auto a = Action::FromJson(*j)) out.push_back(std::move(*a));
  }
  return out;
}

// ---- paths
// ---------------------------------------------------------------------------------

std::string EncodePathUri(std::string_view path) {
  // java.net.URI's path quoting: unreserved, punct, '/', '@' and non-ASCII stay.
  static const std::string_view kKeep = "_-!.~'()*,;:$&+=/@";
  std::string out;
  for (unsigned char c : path) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        c >= 0x80 || kKeep.find(static_cast<char>(c)) != std::string_view::npos) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", c);
      out.append(buf);
    }
  }
  return out;
}

std::string DecodePathUri(std::string_view uri) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) >= 0 &&
        hex(uri[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(uri[i + 1]) * 16 + hex(uri[i + 2])));
      i += 2;
    } else {
      out.push_back(uri[i]);
    }
  }
  return out;
}

}  // namespace spate::table
