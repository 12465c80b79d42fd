// Copyright spate authors.
#include "spate/table/delta_changes.h"

#include <algorithm>
#include <map>

#include "spate/columnar/builder.h"
#include "spate/table/delta_writer.h"
#include "spate/types/schema_json.h"

namespace spate::table {

namespace {

// The change data feed's key in DELTA_MISSING_CHANGE_DATA.
constexpr const char* kCdfKey = "delta.enableChangeDataFeed";

// A remove action's file as a readable file (the data it removed).
AddFile FileOf(const RemoveFile& r) {
  AddFile a;
  a.path = r.path;
  if (r.partition_values) a.partition_values = *r.partition_values;
  a.size = r.size.value_or(0);
  a.stats = r.stats;
  a.deletion_vector = r.deletion_vector;
  return a;
}

// A cdc action ({"path", "partitionValues", "size"}) as a readable file.
AddFile FileOf(const Json& cdc) {
  AddFile a;
  a.path = cdc.GetString("path").value_or("");
  if (const Json* pv = cdc.Find("partitionValues"))
    a.partition_values = PartitionValuesFromJson(*pv);
  a.size = cdc.GetInt("size").value_or(0);
  return a;
}

class ChangesReader final : public BatchReader {
 public:
  ChangesReader(std::unique_ptr<BatchReader> inner, std::vector<int> out_from_inner,
                std::vector<Value> constants, SchemaPtr schema)
      : inner_(std::move(inner)),
        out_from_inner_(std::move(out_from_inner)),
        constants_(std::move(constants)),
        schema_(std::move(schema)) {}

  Result<BatchPtr> Next() override {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, inner_->Next());
    if (!b) return b;
    std::vector<ColumnPtr> cols;
    for (size_t i = 0; i < out_from_inner_.size(); ++i) {
      const int src = out_from_inner_[i];
      cols.push_back(src >= 0 ? b->column(src)
                              : MakeConstantColumn(constants_[i], b->num_rows()));
    }
    return Batch::Make(schema_, std::move(cols), b->num_rows());
  }

 private:
  std::unique_ptr<BatchReader> inner_;
  std::vector<int> out_from_inner_;  // per output column: inner batch column, or -1
  std::vector<Value> constants_;
  SchemaPtr schema_;
};

}  // namespace

SchemaPtr ChangeFeedSchema(const Schema& table_schema) {
  std::vector<Field> fields = table_schema.fields();
  fields.push_back(Field{kChangeTypeColumn, DataType::String(), true, ""});
  fields.push_back(Field{"_commit_version", DataType::Long(), true, ""});
  fields.push_back(Field{"_commit_timestamp", DataType::Timestamp(), true, ""});
  return std::make_shared<const Schema>(std::move(fields));
}

Result<std::optional<int64_t>> FirstVersionAtOrAfter(const DeltaLog& log,
                                                     int64_t timestamp_ms) {
  SPATE_ASSIGN_OR_RETURN(auto history, log.History(0));
  std::optional<int64_t> first;
  for (const auto& c : history) {
    if (c.timestamp_ms >= timestamp_ms && (!first || c.version < *first)) {
      first = c.version;
    }
  }
  return first;
}

Result<ChangeRange> ResolveChangeRange(const DeltaLog& log, const ChangeRangeSpec& spec) {
  SPATE_ASSIGN_OR_RETURN(int64_t latest, log.LatestVersion());
  if (latest < 0) {
    return Status::Error("DELTA_MISSING_DELTA_TABLE",
                         {{"tableName", "`" + log.table_path() + "`"}});
  }
  ChangeRange r;
  if (spec.starting_version) {
    r.start = *spec.starting_version;
  } else if (spec.starting_timestamp_ms) {
    SPATE_ASSIGN_OR_RETURN(std::optional<int64_t> first,
                           FirstVersionAtOrAfter(log, *spec.starting_timestamp_ms));
    if (!first && !spec.allow_out_of_range) {
      // Past the last commit: the error VersionAtTimestamp gives.
      SPATE_ASSIGN_OR_RETURN(int64_t unused,
                             log.VersionAtTimestamp(*spec.starting_timestamp_ms));
      (void)unused;
    }
    r.start = first.value_or(latest + 1);
  } else {
    return Status::Error("DELTA_NO_START_FOR_CDC_READ");
  }
  if (r.start > latest) {
    if (spec.allow_out_of_range) {
      r.empty = true;
      r.end = latest;
      return r;
    }
    return Status::Error(
        "DELTA_CDC_START_VERSION_AFTER_LATEST",
        {{"start", std::to_string(r.start)}, {"latest", std::to_string(latest)}});
  }
  r.end = latest;
  if (spec.ending_version) {
    r.end = std::min(*spec.ending_version, latest);
  } else if (spec.ending_timestamp_ms) {
    // The last commit at or before it; past the last commit is an error unless out of
    // range timestamps are allowed, before the first one always.
    auto v = log.VersionAtTimestamp(*spec.ending_timestamp_ms);
    if (v.ok()) {
      r.end = *v;
    } else if (!spec.allow_out_of_range ||
               v.status().error_class() != "DELTA_TIMESTAMP_GREATER_THAN_COMMIT") {
      return v.status();
    }
  }
  if (r.end < r.start) {
    if (spec.starting_timestamp_ms && spec.ending_timestamp_ms) {
      r.empty = true;  // two timestamps between the same two commits
      return r;
    }
    return Status::Error("DELTA_INVALID_CDC_RANGE", {{"start", std::to_string(r.start)},
                                                     {"end", std::to_string(r.end)}});
  }
  return r;
}

namespace {

// Whether a column of `existing` read as `read` keeps its nullability contract.
bool NullabilityCompatible(bool existing_nullable, bool read_nullable, bool forbid) {
  return forbid ? read_nullable || !existing_nullable
                : existing_nullable || !read_nullable;
}

bool TypeReadCompatible(const DataType& existing, const DataType& read, bool forbid) {
  if (existing.id() == TypeId::kStruct && read.id() == TypeId::kStruct) {
    return IsReadCompatible(Schema(existing.fields()), Schema(read.fields()), forbid);
  }
  if (existing.id() == TypeId::kArray && read.id() == TypeId::kArray) {
    return NullabilityCompatible(existing.contains_null(), read.contains_null(),
                                 forbid) &&
           TypeReadCompatible(*existing.element_type(), *read.element_type(), forbid);
  }
  if (existing.id() == TypeId::kMap && read.id() == TypeId::kMap) {
    return NullabilityCompatible(existing.value_contains_null(),
                                 read.value_contains_null(), forbid) &&
           TypeReadCompatible(*existing.key_type(), *read.key_type(), forbid) &&
           TypeReadCompatible(*existing.value_type(), *read.value_type(), forbid);
  }
  return existing.Equals(read);
}

}  // namespace

bool IsReadCompatible(const Schema& existing, const Schema& read,
                      bool forbid_tighten_nullability) {
  for (const Field& e : existing.fields()) {
    const int i = read.FieldIndex(e.name);
    if (i < 0) return false;  // a column the read schema dropped
    const Field& r = read.field(i);
    if (r.name != e.name ||
        !NullabilityCompatible(e.nullable, r.nullable, forbid_tighten_nullability) ||
        !TypeReadCompatible(*e.type, *r.type, forbid_tighten_nullability)) {
      return false;
    }
  }
  return true;
}

Result<std::vector<ChangeFile>> CollectChangeFiles(const DeltaLog& log,
                                                   const Metadata& start_metadata,
                                                   int64_t start, int64_t end,
                                                   const ChangeSchemaCheck* check) {
  auto missing = [&](int64_t version) {
    return Status::Error("DELTA_MISSING_CHANGE_DATA",
                         {{"startVersion", std::to_string(start)},
                          {"endVersion", std::to_string(end)},
                          {"version", std::to_string(version)},
                          {"key", kCdfKey}});
  };
  // Delta's CDCReader: a schema of the range at or before the read schema's version must
  // be readable with it; one after it (a commit that raced the read) must read it.
  auto readable = [&](const Metadata& m, int64_t version, bool schema_change) -> Status {
    if (!check) return Status::OK();
    SPATE_ASSIGN_OR_RETURN(SchemaPtr schema, m.ParseSchema());
    const Schema& read = *check->read_schema;
    const bool ok =
        version <= check->read_version
            ? IsReadCompatible(*schema, read, /*forbid_tighten_nullability=*/true)
            : IsReadCompatible(read, *schema, /*forbid_tighten_nullability=*/false);
    if (ok) return Status::OK();
    std::vector<ErrorParam> params = {
        {"start", std::to_string(start)},
        {"end", std::to_string(end)},
        {"readSchema", SchemaToSparkJson(read)},
        {"readVersion", std::to_string(check->read_version)},
        {"incompatibleVersion", std::to_string(version)}};
    if (schema_change) {
      return Status::Error("DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_SCHEMA_CHANGE",
                           std::move(params));
    }
    params.push_back({"config",
                      "spark.databricks.delta.changeDataFeed."
                      "defaultSchemaModeForColumnMappingTable"});
    return Status::Error("DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_DATA_SCHEMA",
                         std::move(params));
  };
  if (!ChangeDataFeedEnabled(start_metadata)) return missing(start);
  SPATE_ASSIGN_OR_RETURN(auto commits, log.ReadCommits(start, end));
  std::vector<ChangeFile> out;
  for (const auto& c : commits) {
    for (const auto& a : c.actions) {
      if (a.kind == Action::Kind::kMetadata && c.version > start &&
          !ChangeDataFeedEnabled(a.metadata)) {
        return missing(c.version);
      }
    }
    for (const auto& a : c.actions) {
      if (a.kind == Action::Kind::kMetadata && c.version > start) {
        SPATE_RETURN_IF_ERROR(readable(a.metadata, c.version, true));
      }
    }
    for (auto& f : CommitChangeFiles(c)) out.push_back(std::move(f));
  }
  SPATE_RETURN_IF_ERROR(readable(start_metadata, start, false));
  return out;
}

std::vector<ChangeFile> CommitChangeFiles(const CommitEntry& c) {
  bool has_cdc = false;
  for (const auto& a : c.actions) has_cdc |= a.kind == Action::Kind::kCdc;
  // Files both removed and added (with another deletion vector) by the commit.
  std::map<std::string, const RemoveFile*> removed;
  std::map<std::string, const AddFile*> added;
  if (!has_cdc) {
    for (const auto& a : c.actions) {
      if (a.kind == Action::Kind::kRemove && a.remove.data_change)
        removed[a.remove.path] = &a.remove;
      if (a.kind == Action::Kind::kAdd && a.add.data_change) added[a.add.path] = &a.add;
    }
  }
  std::vector<ChangeFile> out;
  for (const auto& a : c.actions) {
    ChangeFile f;
    f.version = c.version;
    f.timestamp_ms = c.timestamp_ms;
    if (!has_cdc && a.kind == Action::Kind::kAdd && a.add.data_change &&
        removed.count(a.add.path)) {
      // The rows the new DV deletes, and those it no longer deletes.
      const RemoveFile& r = *removed[a.add.path];
      f.file = a.add;
      f.dv_difference = true;
      ChangeFile back = f;
      f.change_type = "delete";
      f.selected = a.add.deletion_vector;
      f.unselected = r.deletion_vector;
      back.change_type = "insert";
      back.selected = r.deletion_vector;
      back.unselected = a.add.deletion_vector;
      if (f.selected) out.push_back(std::move(f));
      if (back.selected) out.push_back(std::move(back));
      continue;
    }
    if (has_cdc) {
      if (a.kind != Action::Kind::kCdc) continue;
      f.file = FileOf(a.raw);
    } else if (a.kind == Action::Kind::kRemove && added.count(a.remove.path)) {
      continue;  // with its add above
    } else if (a.kind == Action::Kind::kAdd && a.add.data_change) {
      f.file = a.add;
      f.change_type = "insert";
    } else if (a.kind == Action::Kind::kRemove && a.remove.data_change) {
      f.file = FileOf(a.remove);
      f.change_type = "delete";
    } else {
      continue;
    }
    out.push_back(std::move(f));
  }
  return out;
}

Result<std::shared_ptr<DeltaChangesSource>> DeltaChangesSource::Make(
    io::FileSystemPtr fs, const std::string& table_path, const ChangeRangeSpec& spec,
    std::string time_zone_id) {
  DeltaLog log(fs, table_path);
  SPATE_ASSIGN_OR_RETURN(ChangeRange range, ResolveChangeRange(log, spec));
  // Rows take the latest schema (Delta's batch reads); every schema of the range must be
  // readable with it.
  SPATE_ASSIGN_OR_RETURN(SnapshotPtr latest, log.Latest());
  SPATE_RETURN_IF_ERROR(CheckSupported(latest->protocol(), &latest->metadata(), false));
  std::vector<ChangeFile> files;
  if (!range.empty) {
    SPATE_ASSIGN_OR_RETURN(SnapshotPtr at_start, log.At(range.start));
    const ChangeSchemaCheck check{latest->schema(), latest->version()};
    SPATE_ASSIGN_OR_RETURN(
        files, CollectChangeFiles(log, at_start->metadata(), range.start, range.end,
                                  spec.check_schema ? &check : nullptr));
  }
  return MakeForFiles(std::move(fs), std::move(latest), std::move(files),
                      std::move(time_zone_id));
}

Result<std::shared_ptr<DeltaChangesSource>> DeltaChangesSource::MakeForFiles(
    io::FileSystemPtr fs, SnapshotPtr snapshot, std::vector<ChangeFile> files,
    std::string time_zone_id) {
  std::shared_ptr<DeltaChangesSource> s(new DeltaChangesSource());
  std::vector<AddFile> adds;
  for (const auto& f : files) adds.push_back(f.file);
  s->num_table_columns_ = snapshot->schema()->num_fields();
  s->schema_ = ChangeFeedSchema(*snapshot->schema());
  SPATE_ASSIGN_OR_RETURN(
      s->inner_,
      DeltaDataSource::MakeForFiles(
          std::move(fs), std::move(snapshot), std::move(adds), std::move(time_zone_id),
          {Field{kChangeTypeColumn, DataType::String(), true, ""}}));
  s->files_ = std::move(files);
  return s;
}

Result<std::unique_ptr<BatchReader>> DeltaChangesSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  const ChangeFile& f = files_[static_cast<size_t>(split)];
  const int n = num_table_columns_;
  ScanSpec inner;
  std::vector<int> from_inner;
  std::vector<Value> constants;
  for (int c : spec.columns) {
    const bool from_file = c < n || (c == n && f.change_type.empty());
    if (from_file) {
      from_inner.push_back(static_cast<int>(inner.columns.size()));
      inner.columns.push_back(c);
      constants.emplace_back();
    } else {
      from_inner.push_back(-1);
      if (c == n) {
        constants.push_back(Value::String(f.change_type));
      } else if (c == n + 1) {
        constants.push_back(Value::Long(f.version));
      } else {
        constants.push_back(Value::Timestamp(f.timestamp_ms * 1000));
      }
    }
  }
  // Predicates on the table's columns only (the others are constants per split).
  for (const auto& p : spec.predicates) {
    if (p.column >= 0 && p.column < n) inner.predicates.push_back(p);
  }
  std::unique_ptr<BatchReader> reader;
  if (f.dv_difference) {
    SPATE_ASSIGN_OR_RETURN(
        reader, inner_->OpenSplitSelecting(split, inner, f.selected, f.unselected));
  } else {
    SPATE_ASSIGN_OR_RETURN(reader, inner_->OpenSplit(split, inner));
  }
  std::vector<Field> fields;
  for (int c : spec.columns) fields.push_back(schema_->field(c));
  return std::unique_ptr<BatchReader>(
      new ChangesReader(std::move(reader), std::move(from_inner), std::move(constants),
                        std::make_shared<const Schema>(std::move(fields))));
}

std::string DeltaChangesSource::Describe() const {
  std::string cols;
  for (const auto& f : schema_->fields()) cols += (cols.empty() ? "" : ", ") + f.name;
  return "FileScan delta changes [" + cols +
         "] Location: " + inner_->snapshot()->table_path();
}

}  // namespace spate::table
