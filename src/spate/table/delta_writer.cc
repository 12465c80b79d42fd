// Copyright spate authors.
#include "spate/table/delta_writer.h"

#include <algorithm>

#include "spate/base/text_parse.h"
#include "spate/columnar/kernels.h"
#include "spate/types/format.h"
#include "spate/types/schema_json.h"

namespace spate::table {

namespace {

std::string OptionOr(const std::map<std::string, std::string>& o, const std::string& key,
                     const std::string& def) {
  for (const auto& [k, v] : o)
    if (EqualsIgnoreCase(k, key)) return v;
  return def;
}
bool OptionTrue(const std::map<std::string, std::string>& o, const std::string& key) {
  return ToLower(OptionOr(o, key, "false")) == "true";
}

// ISO-8601 UTC with milliseconds: "2024-01-31T12:00:00.123Z".
std::string IsoMillis(int64_t micros, bool ceil, bool utc_suffix) {
  int64_t ms = micros / 1000;
  if (micros % 1000 != 0) {
    if (micros < 0) ms -= 1;  // floor
    if (ceil) ms += 1;
  }
  int64_t days = ms / 86400000;
  int64_t rem = ms % 86400000;
  if (rem < 0) {
    rem += 86400000;
    days -= 1;
  }
  char buf[64];
  std::string date = FormatDate(static_cast<int32_t>(days));
  std::snprintf(buf, sizeof(buf), "%sT%02d:%02d:%02d.%03d%s", date.c_str(),
                static_cast<int>(rem / 3600000), static_cast<int>(rem / 60000 % 60),
                static_cast<int>(rem / 1000 % 60), static_cast<int>(rem % 1000),
                utc_suffix ? "Z" : "");
  return buf;
}

// First `n` UTF-8 characters of s; sets *truncated.
std::string Utf8Prefix(const std::string& s, size_t n, bool* truncated) {
  size_t chars = 0, i = 0;
  while (i < s.size() && chars < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    i += len;
    ++chars;
  }
  *truncated = i < s.size();
  return s.substr(0, std::min(i, s.size()));
}

std::optional<Json> StatToJson(const Value& v, bool is_max) {
  switch (v.type()->id()) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
      return Json::Int(v.i64());
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Json::Double(v.f64());
    case TypeId::kDecimal:
      return Json::NumberText(v.ToString());
    case TypeId::kString: {
      bool truncated = false;
      std::string p = Utf8Prefix(v.str(), 32, &truncated);
      if (truncated && is_max) return std::nullopt;  // a prefix is no upper bound
      return Json::String(p);
    }
    case TypeId::kDate:
      return Json::String(FormatDate(static_cast<int32_t>(v.i64())));
    case TypeId::kTimestamp:
      return Json::String(IsoMillis(v.i64(), is_max, true));
    case TypeId::kTimestampNtz:
      return Json::String(IsoMillis(v.i64(), is_max, false));
    default:
      return std::nullopt;
  }
}

// Sets obj[path...] = value, creating nested objects.
void SetPath(Json* obj, const std::vector<std::string>& path, size_t i, Json value) {
  if (i + 1 == path.size()) {
    obj->Set(path[i], std::move(value));
    return;
  }
  const Json* existing = obj->Find(path[i]);
  Json child = existing && existing->is_object() ? *existing : Json::Object();
  SetPath(&child, path, i + 1, std::move(value));
  obj->Set(path[i], std::move(child));
}

std::string OpMode(const std::string& mode) {
  if (mode == "append") return "Append";
  if (mode == "overwrite") return "Overwrite";
  if (mode == "ignore") return "Ignore";
  return "ErrorIfExists";
}

Json NameList(const std::vector<std::string>& names) {
  Json a = Json::Array();
  for (const auto& n : names) a.Append(Json::String(n));
  return a;
}

// replaceWhere: `col = literal` conjunctions over partition columns.
struct EqTerm {
  std::string column;
  std::optional<std::string> value;  // nullopt: IS NULL
};

Result<std::vector<EqTerm>> ParseReplaceWhere(const std::string& text,
                                              const std::vector<std::string>& part_cols) {
  std::vector<EqTerm> out;
  size_t i = 0;
  auto ws = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  auto fail = [&]() -> Status {
    return Status::Error("DELTA_REPLACE_WHERE_MISMATCH",
                         {{"replaceWhere", text},
                          {"message",
                           "spate supports replaceWhere as `col = literal [AND ...]` "
                           "over partition columns."}});
  };
  while (true) {
    ws();
    size_t s = i;
    if (i < text.size() && text[i] == '`') {
      size_t e = text.find('`', i + 1);
      if (e == std::string::npos) return fail();
      s = i + 1;
      i = e + 1;
      out.push_back({text.substr(s, e - s), std::nullopt});
    } else {
      while (i < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        ++i;
      if (i == s) return fail();
      out.push_back({text.substr(s, i - s), std::nullopt});
    }
    ws();
    if (text.compare(i, 1, "=") == 0) {
      ++i;
      ws();
      if (i < text.size() && (text[i] == '\'' || text[i] == '"')) {
        char q = text[i++];
        std::string v;
        while (i < text.size() && text[i] != q) v += text[i++];
        if (i >= text.size()) return fail();
        ++i;
        out.back().value = v;
      } else {
        size_t b = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        if (i == b) return fail();
        out.back().value = text.substr(b, i - b);
      }
    } else if (ToLower(text.substr(i, 7)) == "is null") {
      i += 7;
    } else {
      return fail();
    }
    bool is_part = false;
    for (const auto& p : part_cols) is_part |= EqualsIgnoreCase(p, out.back().column);
    if (!is_part) return fail();
    ws();
    if (i >= text.size()) break;
    if (ToLower(text.substr(i, 3)) != "and") return fail();
    i += 3;
  }
  return out;
}

bool MatchesTerms(const AddFile& f, const std::vector<EqTerm>& terms) {
  for (const auto& t : terms) {
    std::optional<std::string> v;
    for (const auto& [k, val] : f.partition_values)
      if (EqualsIgnoreCase(k, t.column)) v = val;
    if (v != t.value) {
      // Numeric partition values compare as numbers ("1" = "1.0" is not handled).
      return false;
    }
  }
  return true;
}

bool HasNtz(const DataType& t) {
  if (t.id() == TypeId::kTimestampNtz) return true;
  for (const auto& f : t.fields())
    if (HasNtz(*f.type)) return true;
  if (t.id() == TypeId::kArray || t.id() == TypeId::kMap) {
    if (t.element_type() && HasNtz(*t.element_type())) return true;
    if (t.value_type() && HasNtz(*t.value_type())) return true;
  }
  return false;
}

bool SchemaHasNtz(const Schema& schema) {
  for (const auto& f : schema.fields())
    if (HasNtz(*f.type)) return true;
  return false;
}

// The table features a legacy writer (reader) version implies, in the order delta-spark
// lists them when the table moves to writer version 7 (reader version 3).
std::vector<std::string> ImpliedWriterFeatures(int version) {
  std::vector<std::string> out;
  if (version >= 2) out = {"invariants", "appendOnly"};
  if (version >= 3) out.emplace_back("checkConstraints");
  if (version >= 4) out.insert(out.end(), {"changeDataFeed", "generatedColumns"});
  if (version >= 5) out.emplace_back("columnMapping");
  if (version >= 6) out.emplace_back("identityColumns");
  return out;
}

// Features a table may declare with `delta.feature.<name>` = 'supported' (those spate
// honours when it writes): reader-writer features, then writer-only ones.
const std::vector<std::string> kReaderWriterFeatures = {
    "timestampNtz", "deletionVectors", "v2Checkpoint", "vacuumProtocolCheck"};
const std::vector<std::string> kWriterFeatures = {"appendOnly", "invariants",
                                                  "changeDataFeed", "domainMetadata"};

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Adds reader-writer features `rw` and writer features `w` to `p` as delta-spark does:
// writer version 7 (reader version 3 when a reader feature is added), the new features
// first, then those the former legacy versions implied.
void AddFeatures(Protocol* p, const std::vector<std::string>& rw,
                 const std::vector<std::string>& w) {
  if (rw.empty() && w.empty()) return;
  std::vector<std::string> legacy_w, legacy_r;
  if (p->min_writer_version < 7) {
    legacy_w = ImpliedWriterFeatures(p->min_writer_version);
    p->min_writer_version = 7;
    p->writer_features = std::vector<std::string>{};
  }
  if (!p->writer_features) p->writer_features = std::vector<std::string>{};
  if (!rw.empty() && p->min_reader_version < 3) {
    if (p->min_reader_version == 2) legacy_r = {"columnMapping"};
    p->min_reader_version = 3;
    p->reader_features = std::vector<std::string>{};
  }
  auto add = [](std::vector<std::string>& v, const std::string& f) {
    if (!Contains(v, f)) v.push_back(f);
  };
  for (const auto& f : rw) {
    add(*p->reader_features, f);
    add(*p->writer_features, f);
  }
  for (const auto& f : w) add(*p->writer_features, f);
  for (const auto& f : legacy_r) add(*p->reader_features, f);
  for (const auto& f : legacy_w) add(*p->writer_features, f);
}

// The features protocol `p` supports, sorted (its legacy versions' implied ones
// included), as delta-spark's DELTA_FEATURES_REQUIRE_MANUAL_ENABLEMENT lists them.
std::string SupportedFeatureList(const Protocol& p) {
  std::vector<std::string> all = p.writer_features
                                     ? *p.writer_features
                                     : ImpliedWriterFeatures(p.min_writer_version);
  if (p.reader_features)
    for (const auto& f : *p.reader_features)
      if (!Contains(all, f)) all.push_back(f);
  std::sort(all.begin(), all.end());
  std::string out;
  for (const auto& f : all) out += (out.empty() ? "" : ", ") + f;
  return out;
}

bool SupportsFeature(const Protocol& p, const std::string& f) {
  return p.writer_features && Contains(*p.writer_features, f);
}

Status RequireManualEnablement(const Protocol& p) {
  return Status::Error("DELTA_FEATURES_REQUIRE_MANUAL_ENABLEMENT",
                       {{"unsupportedFeatures", "timestampNtz"},
                        {"supportedFeatures", SupportedFeatureList(p)}});
}

// Splits a batch whose last column is _change_type into the table's rows (without the
// column; NULL change type) and the change rows (with it). Either may be nullptr (none).
std::pair<BatchPtr, BatchPtr> SplitChangeRows(const BatchPtr& b,
                                              const SchemaPtr& data_schema) {
  const int last = b->num_columns() - 1;
  const Column& ct = *b->column(last);
  std::vector<int32_t> data_rows, change_rows;
  for (int64_t r = 0; r < b->num_rows(); ++r)
    (ct.IsNull(r) ? data_rows : change_rows).push_back(static_cast<int32_t>(r));
  BatchPtr data, change;
  auto project = [&](const BatchPtr& x) {
    std::vector<ColumnPtr> cols(x->columns().begin(), x->columns().end() - 1);
    return Batch::Make(data_schema, std::move(cols), x->num_rows());
  };
  if (change_rows.empty()) return {project(b), nullptr};
  if (data_rows.empty()) return {nullptr, b};
  data = project(TakeBatch(*b, data_rows.data(), static_cast<int64_t>(data_rows.size())));
  change = TakeBatch(*b, change_rows.data(), static_cast<int64_t>(change_rows.size()));
  return {data, change};
}

}  // namespace

// The protocol features the properties of `meta` need, added to `p` as delta-spark 4
// writes them (AddFeatures): delta.enableChangeDataFeed is changeDataFeed,
// delta.checkpointPolicy = 'v2' the v2Checkpoint reader-writer feature, and
// `delta.feature.<name>` = 'supported' (or 'enabled') the feature itself; those keys
// live in the protocol only, so they leave the configuration.
Status AddPropertyFeatures(Metadata* meta, Protocol* p) {
  std::vector<std::string> rw, w;
  if (UsesV2Checkpoints(*meta)) rw.emplace_back("v2Checkpoint");
  for (const auto& [k, v] : meta->configuration) {
    if (EqualsIgnoreCase(k, "delta.enableDeletionVectors") && ToLower(v) == "true")
      rw.emplace_back("deletionVectors");
  }
  if (ChangeDataFeedEnabled(*meta)) w.emplace_back("changeDataFeed");
  static const std::string kPrefix = "delta.feature.";
  for (auto it = meta->configuration.begin(); it != meta->configuration.end();) {
    if (ToLower(it->first).rfind(kPrefix, 0) != 0) {
      ++it;
      continue;
    }
    const std::string name = it->first.substr(kPrefix.size());
    const std::string status = ToLower(it->second);
    if (status != "supported" && status != "enabled") {
      return Status::Error("DELTA_UNSUPPORTED_FEATURE_STATUS",
                           {{"feature", name}, {"status", it->second}});
    }
    if (Contains(kReaderWriterFeatures, name)) {
      rw.push_back(name);
    } else if (Contains(kWriterFeatures, name)) {
      w.push_back(name);
    } else {
      return Status::Error("DELTA_UNSUPPORTED_FEATURES_IN_CONFIG",
                           {{"configs", it->first}});
    }
    it = meta->configuration.erase(it);
  }
  AddFeatures(p, rw, w);
  return Status::OK();
}

bool ChangeDataFeedEnabled(const Metadata& metadata) {
  for (const auto& [k, v] : metadata.configuration) {
    if (EqualsIgnoreCase(k, "delta.enableChangeDataFeed") && ToLower(v) == "true")
      return true;
  }
  return false;
}

std::string StatsJson(const formats::WrittenFile& file, int num_indexed_cols,
                      bool tight_bounds) {
  Json o = Json::Object();
  o.Set("numRecords", Json::Int(file.num_records));
  Json mins = Json::Object(), maxs = Json::Object(), nulls = Json::Object();
  int leaf = 0;
  for (const auto& s : file.stats) {
    if (num_indexed_cols >= 0 && leaf++ >= num_indexed_cols) break;
    if (s.path.empty()) continue;
    if (s.min) {
      if (auto j = StatToJson(*s.min, false)) SetPath(&mins, s.path, 0, std::move(*j));
    }
    if (s.max) {
      if (auto j = StatToJson(*s.max, true)) SetPath(&maxs, s.path, 0, std::move(*j));
    }
    SetPath(&nulls, s.path, 0, Json::Int(s.null_count));
  }
  o.Set("minValues", std::move(mins));
  o.Set("maxValues", std::move(maxs));
  o.Set("nullCount", std::move(nulls));
  if (tight_bounds) o.Set("tightBounds", Json::Bool(true));
  return o.ToString();
}

Result<DeltaWriteResult> WriteDelta(io::FileSystemPtr fs, const std::string& table_path,
                                    SchemaPtr schema, int num_partitions,
                                    const BatchProducer& produce,
                                    const DeltaWriteOptions& opt, NowFn now) {
  DeltaWriteResult result;
  // With change data, `schema` is the table data's; `change_schema` has _change_type too.
  const SchemaPtr change_schema = opt.change_data ? schema : nullptr;
  if (opt.change_data) {
    if (schema->num_fields() < 2 ||
        !EqualsIgnoreCase(schema->field(schema->num_fields() - 1).name,
                          kChangeTypeColumn)) {
      return Status::Invalid("change data batches must end with _change_type");
    }
    std::vector<Field> fields(schema->fields().begin(), schema->fields().end() - 1);
    schema = std::make_shared<const Schema>(std::move(fields));
  }
  std::string mode = ToLower(opt.mode);
  if (mode == "error" || mode == "default" || mode.empty()) mode = "errorifexists";
  if (mode != "append" && mode != "overwrite" && mode != "errorifexists" &&
      mode != "ignore") {
    return Status::Error(
        "DELTA_MODE_NOT_SUPPORTED",
        {{"mode", opt.mode},
         {"supportedModes", "append, overwrite, errorifexists, ignore"}});
  }
  // Without a log of the caller's: the process's log of the table (its cached snapshot
  // makes the write O(new commits)), or one with the caller's clock.
  std::shared_ptr<const DeltaLog> log = opt.log;
  if (!log) {
    log = now ? std::make_shared<const DeltaLog>(fs, table_path, std::move(now))
              : DeltaLog::ForTable(fs, table_path);
  }
  // One listing: a missing table is DELTA_MISSING_DELTA_TABLE from Latest().
  SnapshotPtr snapshot = opt.read_snapshot;
  if (!snapshot) {
    auto latest = log->Latest();
    if (latest.ok()) {
      snapshot = std::move(*latest);
    } else if (latest.status().error_class() != "DELTA_MISSING_DELTA_TABLE") {
      return latest.status();
    }
  }
  const bool exists = snapshot != nullptr;
  if (exists && mode == "errorifexists") {
    return Status::Error("DELTA_PATH_EXISTS", {{"path", table_path}});
  }
  if (exists && mode == "ignore") {
    result.skipped = true;
    return result;
  }
  OptimisticTransaction txn(log, snapshot);
  txn.set_async_checkpoint(opt.async_checkpoint);
  if (opt.checkpoint) txn.set_checkpoint_options(*opt.checkpoint);

  std::optional<TxnId> txn_id = opt.txn;
  {
    std::string app = OptionOr(opt.options, "txnAppId", "");
    std::string ver = OptionOr(opt.options, "txnVersion", "");
    if (!app.empty() || !ver.empty()) {
      if (app.empty() || ver.empty()) {
        return Status::Error(
            "DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS",
            {{"reason", "Both txnAppId and txnVersion must be specified"}});
      }
      auto v = ParseInt64(ver);
      if (!v) {
        return Status::Error("DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS",
                             {{"reason", "txnVersion must be a number"}});
      }
      txn_id = TxnId{app, *v};
    }
  }
  if (txn_id) {
    auto latest = txn.TxnVersion(txn_id->app_id);
    if (latest && *latest >= txn_id->version) {
      result.already_committed = true;
      return result;
    }
  }

  const bool merge_schema = OptionTrue(opt.options, "mergeSchema");
  const bool overwrite_schema =
      mode == "overwrite" && OptionTrue(opt.options, "overwriteSchema");
  const std::string replace_where = OptionOr(opt.options, "replaceWhere", "");

  // Resolve the table's metadata after this write.
  std::vector<std::string> part_cols;
  bool new_metadata = false;
  Metadata meta;
  Protocol protocol;
  if (!snapshot || overwrite_schema) {
    for (const auto& p : opt.partition_by) {
      int idx = schema->FieldIndex(p);
      if (idx < 0) {
        return Status::Error("DELTA_MISSING_PARTITION_COLUMN",
                             {{"columnName", p}, {"columnList", schema->ToString()}});
      }
      part_cols.push_back(schema->field(idx).name);
    }
    meta.id = snapshot ? snapshot->metadata().id : formats::NewUuid();
    // Delta makes the schema of written data nullable (asNullable); only a declared
    // schema (CREATE TABLE with columns) keeps its NOT NULL columns.
    if (opt.keep_nullability) {
      meta.schema_string = SchemaToSparkJson(*schema);
    } else {
      std::vector<Field> fields = schema->fields();
      for (auto& f : fields) f.nullable = true;
      meta.schema_string = SchemaToSparkJson(Schema(fields));
    }
    meta.partition_columns = part_cols;
    if (snapshot) meta.configuration = snapshot->metadata().configuration;
    for (const auto& [k, v] : opt.options)
      if (ToLower(k).rfind("delta.", 0) == 0) meta.configuration[k] = v;
    for (const auto& [k, v] : opt.table_properties) meta.configuration[k] = v;
    meta.created_time = log->NowMs();
    new_metadata = true;
    // A new table gets the features its schema needs (timestampNtz); an existing one,
    // whose schema is replaced, keeps its protocol and must have them already, as in
    // delta-spark.
    if (snapshot) {
      protocol = snapshot->protocol();
      if (SchemaHasNtz(*schema) && !SupportsFeature(protocol, "timestampNtz"))
        return RequireManualEnablement(protocol);
    } else if (SchemaHasNtz(*schema)) {
      AddFeatures(&protocol, {"timestampNtz"}, {});
    }
    SPATE_RETURN_IF_ERROR(AddPropertyFeatures(&meta, &protocol));
  } else {
    meta = snapshot->metadata();
    protocol = snapshot->protocol();
    part_cols = meta.partition_columns;
    if (!opt.partition_by.empty()) {
      bool same = opt.partition_by.size() == part_cols.size();
      for (size_t i = 0; same && i < part_cols.size(); ++i)
        same = EqualsIgnoreCase(opt.partition_by[i], part_cols[i]);
      if (!same) {
        std::string given, table;
        for (const auto& c : opt.partition_by) given += (given.empty() ? "" : ", ") + c;
        for (const auto& c : part_cols) table += (table.empty() ? "" : ", ") + c;
        return Status::Invalid(
            "Partition columns do not match the partition columns of the "
            "table.\nGiven: [" +
            given + "]\nTable: [" + table + "]");
      }
    }
    const Schema& ts = *snapshot->schema();
    std::vector<Field> merged = ts.fields();
    bool extra = false;
    for (const auto& f : schema->fields()) {
      int idx = ts.FieldIndex(f.name);
      if (idx < 0) {
        extra = true;
        Field nf = f;
        nf.nullable = true;
        merged.push_back(nf);
        continue;
      }
      if (!ts.field(idx).type->SameType(*f.type) && !(f.type->id() == TypeId::kNull)) {
        return Status::Error("DELTA_FAILED_TO_MERGE_FIELDS",
                             {{"field", ts.field(idx).name},
                              {"fieldRoot", f.name},
                              {"fieldChild", "Failed to merge incompatible data types " +
                                                 ts.field(idx).type->SimpleString() +
                                                 " and " + f.type->SimpleString()}});
      }
    }
    for (const auto& p : part_cols) {
      if (schema->FieldIndex(p) < 0) {
        return Status::Error("DELTA_MISSING_PARTITION_COLUMN",
                             {{"columnName", p}, {"columnList", schema->ToString()}});
      }
    }
    if (extra) {
      if (!merge_schema) {
        return Status::Error("DELTA_METADATA_MISMATCH",
                             {{"tableId", meta.id},
                              {"tableSchema", ts.TreeString()},
                              {"dataSchema", schema->TreeString()}});
      }
      if (SchemaHasNtz(*schema) && !SupportsFeature(protocol, "timestampNtz"))
        return RequireManualEnablement(protocol);
      Schema ms(merged);
      meta.schema_string = SchemaToSparkJson(ms);
      new_metadata = true;
    }
  }
  if (part_cols.size() == static_cast<size_t>(schema->num_fields()) &&
      !part_cols.empty()) {
    return Status::Error("DELTA_CANNOT_USE_ALL_COLUMNS_FOR_PARTITION");
  }
  if (new_metadata) txn.UpdateMetadata(meta);
  if (!snapshot || !(protocol == snapshot->protocol())) txn.UpdateProtocol(protocol);
  SPATE_RETURN_IF_ERROR(CheckSupported(protocol, &meta, true));

  // Data files.
  SPATE_ASSIGN_OR_RETURN(
      auto factory, formats::MakeParquetWriterFactory(opt.options, opt.default_codec));
  formats::WriteJobOptions jopt;
  jopt.output_dir = table_path;
  jopt.partition_columns = part_cols;
  jopt.use_staging = false;
  jopt.write_success_file = false;
  jopt.write_file_when_empty = false;
  jopt.collect_stats = true;
  jopt.time_zone_id = opt.time_zone_id;
  {
    std::string m = OptionOr(opt.options, "maxRecordsPerFile", "");
    if (!m.empty()) {
      auto n = ParseInt64(m);
      if (!n) {
        return Status::Error("DELTA_ILLEGAL_OPTION", {{"input", m},
                                                      {"name", "maxRecordsPerFile"},
                                                      {"explain", "must be a number"}});
      }
      jopt.max_records_per_file = *n;
    }
  }
  SPATE_ASSIGN_OR_RETURN(auto job, formats::PartitionedWriteJob::Make(
                                       fs, factory, schema, jopt, num_partitions));
  std::unique_ptr<formats::PartitionedWriteJob> cdc_job;
  if (change_schema) {
    formats::WriteJobOptions copt = jopt;
    copt.output_dir = io::JoinPath(table_path, "_change_data");
    copt.file_prefix = "cdc";
    copt.collect_stats = false;
    copt.max_records_per_file = 0;
    SPATE_ASSIGN_OR_RETURN(
        cdc_job, formats::PartitionedWriteJob::Make(fs, factory, change_schema, copt,
                                                    num_partitions));
  }
  // NOT NULL columns of the table (Delta's invariants): a null in one fails the write.
  std::vector<std::pair<int, std::string>> not_null;  // data column index, name
  {
    // A new schema is the data's, nullable unless declared (keep_nullability).
    const bool new_schema = !snapshot || overwrite_schema;
    const Schema& target = new_schema ? *schema : *snapshot->schema();
    for (const auto& f : target.fields()) {
      if (f.nullable || (new_schema && !opt.keep_nullability)) continue;
      int idx = schema->FieldIndex(f.name);
      if (idx < 0) {
        return Status::Error("DELTA_NOT_NULL_CONSTRAINT_VIOLATED",
                             {{"columnName", f.name}});
      }
      not_null.emplace_back(idx, f.name);
    }
  }
  Status st = produce([&](int p, const BatchPtr& in) {
    BatchPtr b = in;
    if (cdc_job) {
      auto [data, change] = SplitChangeRows(in, schema);
      if (change) SPATE_RETURN_IF_ERROR(cdc_job->Write(p, change));
      if (!data) return Status::OK();
      b = data;
    }
    for (const auto& [idx, name] : not_null) {
      if (b->column(idx)->null_count() > 0) {
        return Status::Error("DELTA_NOT_NULL_CONSTRAINT_VIOLATED",
                             {{"columnName", name}});
      }
    }
    return job->Write(p, b);
  });
  if (!st.ok()) {
    job->Abort();
    if (cdc_job) cdc_job->Abort();
    return st;
  }
  std::vector<formats::WrittenFile> cdc_files;
  if (cdc_job) {
    auto c = cdc_job->Commit();
    if (!c.ok()) {
      job->Abort();
      return c.status();
    }
    cdc_files = std::move(*c);
  }
  auto data_files = job->Commit();
  if (!data_files.ok()) {
    for (const auto& f : cdc_files)
      (void)fs->Delete(
          io::JoinPath(io::JoinPath(table_path, "_change_data"), f.relative_path));
    return data_files.status();
  }
  auto files = std::move(*data_files);
  auto cleanup = [&] {
    for (const auto& f : files)
      (void)fs->Delete(io::JoinPath(table_path, f.relative_path));
    for (const auto& f : cdc_files)
      (void)fs->Delete(
          io::JoinPath(io::JoinPath(table_path, "_change_data"), f.relative_path));
  };

  int indexed_cols = 32;
  if (auto it = meta.configuration.find("delta.dataSkippingNumIndexedCols");
      it != meta.configuration.end()) {
    indexed_cols = ParseInt32(it->second).value_or(indexed_cols);
  }
  // Tables with deletion vectors: stats say whether their bounds are tight (Delta's
  // tightBounds; false once a DV removes rows).
  bool dv_feature = false;
  if (protocol.writer_features) {
    for (const auto& f : *protocol.writer_features) dv_feature |= f == "deletionVectors";
  }
  std::vector<Action> actions;
  for (const auto& f : files) {
    AddFile a;
    a.path = EncodePathUri(f.relative_path);
    for (size_t i = 0; i < part_cols.size() && i < f.partition_values.size(); ++i)
      a.partition_values.emplace_back(part_cols[i], f.partition_values[i]);
    a.size = f.size_bytes;
    a.modification_time = f.modification_time_ms;
    a.data_change = opt.data_change;
    a.stats = StatsJson(f, indexed_cols, dv_feature);
    result.num_files++;
    result.num_output_rows += f.num_records;
    result.num_output_bytes += f.size_bytes;
    result.file_sizes.push_back(f.size_bytes);
    auto part = std::find(result.partitions_written.begin(),
                          result.partitions_written.end(), a.partition_values);
    result.file_partitions.push_back(
        static_cast<size_t>(part - result.partitions_written.begin()));
    if (part == result.partitions_written.end())
      result.partitions_written.push_back(a.partition_values);
    actions.push_back(Action::Of(std::move(a)));
  }
  for (const auto& a : opt.add_files) actions.push_back(Action::Of(a));
  for (const auto& f : cdc_files) {
    // Delta's AddCDCFile: path relative to the table, partition values, size.
    Json c = Json::Object();
    c.Set("path", Json::String(EncodePathUri("_change_data/" + f.relative_path)));
    PartitionValues pv;
    for (size_t i = 0; i < part_cols.size() && i < f.partition_values.size(); ++i)
      pv.emplace_back(part_cols[i], f.partition_values[i]);
    c.Set("partitionValues", PartitionValuesToJson(pv));
    c.Set("size", Json::Int(f.size_bytes));
    c.Set("dataChange", Json::Bool(false));
    Action a;
    a.kind = Action::Kind::kCdc;
    a.raw = std::move(c);
    actions.push_back(std::move(a));
    result.num_cdc_files++;
  }
  // A remove action for an active file (dataChange, Delta's extended file metadata).
  auto remove = [&](const AddFile& f, int64_t ts, bool with_stats) {
    RemoveFile r = RemoveOf(f, ts, opt.data_change);
    if (with_stats) r.stats = f.stats;
    actions.push_back(Action::Of(std::move(r)));
    result.num_removed_files++;
    result.num_removed_bytes += f.size;
  };
  CommitInfo info;
  info.operation = opt.operation.empty() ? "WRITE" : opt.operation;
  if (snapshot && mode == "overwrite") {
    std::vector<EqTerm> terms;
    if (!replace_where.empty()) {
      auto parsed = ParseReplaceWhere(replace_where, part_cols);
      if (!parsed.ok()) {
        cleanup();
        return parsed.status();
      }
      terms = std::move(*parsed);
      txn.ReadPartitions([terms](const PartitionValues& pv) {
        AddFile probe;
        probe.partition_values = pv;
        return MatchesTerms(probe, terms);
      });
    } else {
      txn.ReadWholeTable();
    }
    const int64_t ts = log->NowMs();
    for (const auto& f : snapshot->files()) {
      if (!replace_where.empty() && !MatchesTerms(f, terms)) continue;
      txn.ReadFiles({f});
      remove(f, ts, /*with_stats=*/false);
    }
  }
  if (snapshot && !opt.remove_files.empty()) {
    const int64_t ts = log->NowMs();
    txn.ReadFiles(opt.remove_files);
    for (const auto& f : opt.remove_files) remove(f, ts, /*with_stats=*/true);
  }
  if (snapshot) txn.ReadFiles(opt.read_files);
  if (opt.read_whole_table) txn.ReadWholeTable();
  if (opt.read_partitions) txn.ReadPartitions(opt.read_partitions);
  if (opt.operation_parameters.empty()) {
    info.operation_parameters["mode"] = OpMode(mode);
    info.operation_parameters["partitionBy"] = NameList(part_cols).ToString();
    if (!replace_where.empty()) {
      Json preds = Json::Array();
      preds.Append(Json::String(replace_where));
      info.operation_parameters["predicate"] = preds.ToString();
    }
  } else {
    info.operation_parameters = opt.operation_parameters;
  }
  if (info.operation == "STREAMING UPDATE") {
    info.operation_metrics["numAddedFiles"] = std::to_string(result.num_files);
    info.operation_metrics["numRemovedFiles"] = std::to_string(result.num_removed_files);
  } else {
    info.operation_metrics["numFiles"] = std::to_string(result.num_files);
    if (result.num_removed_files > 0)
      info.operation_metrics["numRemovedFiles"] =
          std::to_string(result.num_removed_files);
  }
  info.operation_metrics["numOutputRows"] = std::to_string(result.num_output_rows);
  info.operation_metrics["numOutputBytes"] = std::to_string(result.num_output_bytes);
  if (opt.operation_metrics) info.operation_metrics = opt.operation_metrics(result);
  std::string um = OptionOr(opt.options, "userMetadata", "");
  if (!um.empty()) info.user_metadata = um;
  if (txn_id) txn.SetTransaction(txn_id->app_id, txn_id->version);
  auto committed = txn.Commit(std::move(actions), std::move(info));
  if (!committed.ok()) {
    cleanup();
    return committed.status();
  }
  result.version = committed->version;
  return result;
}

Result<DeltaWriteResult> WriteBatches(io::FileSystemPtr fs, const std::string& table_path,
                                      const std::vector<BatchPtr>& batches,
                                      const DeltaWriteOptions& options, NowFn now) {
  if (batches.empty()) return Status::Invalid("WriteBatches needs at least one batch");
  SchemaPtr schema = batches.front()->schema();
  return WriteDelta(
      std::move(fs), table_path, schema, 1,
      [&](const BatchSink& sink) -> Status {
        for (const auto& b : batches) {
          if (b->num_rows() == 0) continue;
          SPATE_RETURN_IF_ERROR(sink(0, b));
        }
        return Status::OK();
      },
      options, std::move(now));
}

Result<DeltaWriteResult> WritePlan(io::FileSystemPtr fs, const std::string& table_path,
                                   const exec::PhysicalPlan& plan,
                                   const exec::ExecOptions& exec_options,
                                   const DeltaWriteOptions& options, NowFn now) {
  return WriteDelta(
      std::move(fs), table_path, plan.schema(), plan.root()->num_partitions(),
      [&](const BatchSink& sink) -> Status {
        return exec::ExecuteToSink(plan, exec_options,
                                   [&](int p, const BatchPtr& b) -> Status {
                                     if (b->num_rows() == 0) return Status::OK();
                                     return sink(p, b);
                                   });
      },
      options, std::move(now));
}

Result<std::optional<int64_t>> LatestTxnVersion(io::FileSystemPtr fs,
                                                const std::string& table_path,
                                                const std::string& app_id) {
  DeltaLog log(std::move(fs), table_path);
  auto snap = log.Latest();
  if (!snap.ok()) {
    if (snap.status().error_class() == "DELTA_MISSING_DELTA_TABLE")
      return std::optional<int64_t>();
    return snap.status();
  }
  return (*snap)->TxnVersion(app_id);
}

}  // namespace spate::table
