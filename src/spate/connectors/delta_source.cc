// Copyright spate authors.
#include "spate/connectors/delta_source.h"

#include <algorithm>

#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/connectors/memory.h"
#include "spate/formats/parquet_source.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/checkpoint.h"
#include "spate/table/actions.h"
#include "spate/table/delta_changes.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_writer.h"
#include "spate/types/data_type.h"

namespace spate::connectors {

namespace {

struct Position {
  int64_t version = -1;
  int64_t index = -1;  // last file taken in `version` (-1: none yet)
  bool is_starting = false;
};

struct FileRef {
  int64_t version;
  int64_t index;
  bool is_starting;
  table::AddFile add;
  // readChangeFeed: what the file's rows are ("" = a change data file) and its commit.
  std::string change_type;
  int64_t timestamp_ms = 0;
  // readChangeFeed: the change of a deletion vector (ChangeFile::dv_difference).
  std::optional<table::ChangeFile> dv_change;
};

/// Reads a list of add files as a table: Parquet data columns matched by name, partition
/// columns filled from add.partitionValues.
class DeltaFilesDataSource final : public DataSource {
 public:
  static Result<std::shared_ptr<DeltaFilesDataSource>> Make(
      const io::FileSystemPtr& fs, const SchemaPtr& schema,
      std::vector<std::string> partition_cols, const std::string& table_path,
      const std::vector<table::AddFile>& files) {
    auto ds = std::shared_ptr<DeltaFilesDataSource>(new DeltaFilesDataSource());
    ds->schema_ = schema;
    std::vector<Field> data_fields;
    for (int i = 0; i < schema->num_fields(); ++i) {
      const auto& f = schema->field(i);
      bool is_part = std::find(partition_cols.begin(), partition_cols.end(), f.name) !=
                     partition_cols.end();
      ds->is_partition_.push_back(is_part);
      if (!is_part) {
        ds->data_index_.push_back(static_cast<int>(data_fields.size()));
        data_fields.push_back(f);
      } else {
        ds->data_index_.push_back(-1);
      }
    }
    auto data_schema = std::make_shared<const Schema>(data_fields);
    for (const auto& add : files) {
      std::string p = add.path;
      std::string abs = (!p.empty() && p[0] == '/') || p.rfind("file:", 0) == 0
                            ? stream::StripFileScheme(table::DecodePathUri(p))
                            : io::JoinPath(table_path, table::DecodePathUri(p));
      SPATE_ASSIGN_OR_RETURN(
          auto inner, formats::ParquetDataSource::Make(fs, {abs}, data_schema, false));
      std::vector<Value> part_values;
      for (int i = 0; i < schema->num_fields(); ++i) {
        if (!ds->is_partition_[i]) {
          part_values.emplace_back();
          continue;
        }
        Value v = Value::Null(schema->field(i).type);
        for (const auto& [k, raw] : add.partition_values) {
          if (ToLower(k) == ToLower(schema->field(i).name) && raw)
            v = formats::PartitionValue(*raw, schema->field(i).type);
        }
        part_values.push_back(v);
      }
      int file = static_cast<int>(ds->files_.size());
      ds->files_.push_back({inner, std::move(part_values)});
      for (int s = 0; s < inner->num_splits(); ++s) ds->splits_.emplace_back(file, s);
    }
    return ds;
  }

  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return static_cast<int>(splits_.size()); }
  std::string Describe() const override {
    return "DeltaFiles[" + std::to_string(files_.size()) + " files]";
  }

  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override {
    auto [file, inner_split] = splits_[split];
    const auto& f = files_[file];
    ScanSpec inner_spec;
    std::vector<int>
        out_map;  // per requested column: index in inner batch, or -1 (partition)
    for (int c : spec.columns) {
      if (is_partition_[c]) {
        out_map.push_back(-1);
      } else {
        out_map.push_back(static_cast<int>(inner_spec.columns.size()));
        inner_spec.columns.push_back(data_index_[c]);
      }
    }
    SPATE_ASSIGN_OR_RETURN(auto reader, f.source->OpenSplit(inner_split, inner_spec));
    return std::unique_ptr<BatchReader>(new Reader(std::move(reader), spec.columns,
                                                   out_map, f.partition_values, schema_));
  }

 private:
  class Reader final : public BatchReader {
   public:
    Reader(std::unique_ptr<BatchReader> inner, std::vector<int> cols,
           std::vector<int> map, std::vector<Value> parts, SchemaPtr schema)
        : inner_(std::move(inner)),
          cols_(std::move(cols)),
          map_(std::move(map)),
          parts_(std::move(parts)),
          schema_(std::move(schema)) {}
    Result<BatchPtr> Next() override {
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, inner_->Next());
      if (!b) return b;
      std::vector<Field> fields;
      std::vector<ColumnPtr> columns;
      for (size_t i = 0; i < cols_.size(); ++i) {
        fields.push_back(schema_->field(cols_[i]));
        columns.push_back(map_[i] >= 0
                              ? b->column(map_[i])
                              : MakeConstantColumn(parts_[cols_[i]], b->num_rows()));
      }
      return Batch::Make(std::make_shared<const Schema>(fields), columns, b->num_rows());
    }

   private:
    std::unique_ptr<BatchReader> inner_;
    std::vector<int> cols_, map_;
    std::vector<Value> parts_;
    SchemaPtr schema_;
  };
  struct File {
    std::shared_ptr<formats::ParquetDataSource> source;
    std::vector<Value> partition_values;
  };
  DeltaFilesDataSource() = default;
  SchemaPtr schema_;
  std::vector<bool> is_partition_;
  std::vector<int> data_index_;
  std::vector<File> files_;
  std::vector<std::pair<int, int>> splits_;
};

class DeltaStreamSource final : public stream::Source {
 public:
  DeltaStreamSource(io::FileSystemPtr fs, DeltaSourceOptions o, SchemaPtr schema,
                    table::SnapshotPtr read_snapshot)
      : fs_(std::move(fs)),
        o_(std::move(o)),
        schema_(std::move(schema)),
        read_snapshot_(std::move(read_snapshot)),
        partition_cols_(read_snapshot_->metadata().partition_columns),
        table_id_(read_snapshot_->metadata().id),
        log_(fs_, o_.path) {
    max_files_ = 1000;
    // Checked by the factory.
    max_files_ =
        ParseInt64(GetOption(o_.options, "maxFilesPerTrigger", "")).value_or(max_files_);
    if (HasOption(o_.options, "maxBytesPerTrigger"))
      max_bytes_ = ParseBytes(GetOption(o_.options, "maxBytesPerTrigger"));
    ignore_deletes_ = ToLower(GetOption(o_.options, "ignoreDeletes", "false")) == "true";
    ignore_changes_ = ToLower(GetOption(o_.options, "ignoreChanges", "false")) == "true";
    skip_changes_ =
        ToLower(GetOption(o_.options, "skipChangeCommits", "false")) == "true";
    starting_version_ = GetOption(o_.options, "startingVersion", "");
    change_feed_ = ToLower(GetOption(o_.options, "readChangeFeed", "false")) == "true" ||
                   ToLower(GetOption(o_.options, "readChangeData", "false")) == "true";
    starting_options_ = !starting_version_.empty() || o_.starting_timestamp_ms;
  }

  const SchemaPtr& schema() const override { return schema_; }
  std::string Describe() const override {
    return "DeltaSource[" + stream::QualifyPath(o_.path) + "]";
  }

  Result<std::optional<Json>> LatestOffset(const std::optional<Json>& start) override {
    SPATE_ASSIGN_OR_RETURN(Position pos, StartPosition(start));
    SPATE_ASSIGN_OR_RETURN(int64_t latest, LatestVersion());
    if (available_now_) latest = std::min(latest, *available_now_);
    latest_seen_ = latest;
    std::vector<FileRef> files;
    SPATE_RETURN_IF_ERROR(Collect(pos, latest, /*limited=*/true, std::nullopt, &files));
    if (files.empty()) {
      if (!start) {
        // Nothing to read yet: remember where to begin without emitting a batch.
        return std::optional<Json>();
      }
      return std::optional<Json>(*start);
    }
    const auto& last = files.back();
    return std::optional<Json>(Offset(last.version, last.index, last.is_starting));
  }

  Status PrepareForAvailableNow() override {
    SPATE_ASSIGN_OR_RETURN(int64_t latest, LatestVersion());
    available_now_ = latest;
    return Status::OK();
  }

  Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                 const Json& end) override {
    Position stop = FromOffset(end);
    Position pos;
    if (!start && stop.is_starting) {
      // The first batch read the snapshot of the version its end offset names (as Delta's
      // getBatch does): when it runs again after a crash (or a replay), the table may
      // have moved on since.
      pos = Position{stop.version, -1, true};
    } else {
      SPATE_ASSIGN_OR_RETURN(pos, StartPosition(start));
    }
    if (!start_checked_) {
      SPATE_RETURN_IF_ERROR(CheckStart(pos.version, stop.version));
      start_checked_ = true;
    }
    std::vector<FileRef> files;
    SPATE_RETURN_IF_ERROR(Collect(pos, stop.version, /*limited=*/false, stop, &files));
    if (change_feed_) {
      // The change rows of the files, with the query's schema.
      std::vector<table::ChangeFile> changes;
      for (auto& f : files) {
        if (f.dv_change) {
          changes.push_back(std::move(*f.dv_change));
        } else {
          changes.push_back({std::move(f.add), f.change_type, f.version, f.timestamp_ms});
        }
      }
      SPATE_ASSIGN_OR_RETURN(
          auto ds, table::DeltaChangesSource::MakeForFiles(
                       fs_, read_snapshot_, std::move(changes), o_.time_zone_id));
      return DataSourcePtr(ds);
    }
    std::vector<table::AddFile> adds;
    for (auto& f : files) adds.push_back(std::move(f.add));
    if (adds.empty()) {
      return DataSourcePtr(std::make_shared<stream::BatchesDataSource>(
          schema_, std::vector<BatchPtr>{}, Describe()));
    }
    SPATE_ASSIGN_OR_RETURN(auto ds, DeltaFilesDataSource::Make(
                                        fs_, schema_, partition_cols_, o_.path, adds));
    return DataSourcePtr(ds);
  }

  std::optional<Json> ReportLatestOffset() const override { return std::nullopt; }
  void SetReadAllAvailable() override {
    max_files_ = 0;
    max_bytes_ = 0;
  }

 private:
  static int64_t ParseBytes(const std::string& s) {
    std::string l = ToLower(s);
    int64_t mult = 1;
    if (l.size() > 1 && (l.back() == 'b')) l.pop_back();
    if (!l.empty() && l.back() == 'k')
      mult = 1024, l.pop_back();
    else if (!l.empty() && l.back() == 'm')
      mult = 1024 * 1024, l.pop_back();
    else if (!l.empty() && l.back() == 'g')
      mult = 1024 * 1024 * 1024, l.pop_back();
    return ParseInt64(l).value_or(0) * mult;
  }

  Json Offset(int64_t version, int64_t index, bool starting) const {
    Json v = Json::Object();
    v.Set("sourceVersion", Json::Int(1));
    v.Set("reservoirId", Json::String(table_id_));
    v.Set("reservoirVersion", Json::Int(version));
    v.Set("index", Json::Int(index));
    v.Set("isStartingVersion", Json::Bool(starting));
    return v;
  }
  static Position FromOffset(const Json& v) {
    Position p;
    if (const auto* x = v.Find("reservoirVersion")) p.version = x->int_value();
    if (const auto* x = v.Find("index")) p.index = x->int_value();
    if (const auto* x = v.Find("isStartingVersion")) p.is_starting = x->bool_value();
    return p;
  }

  /// The table's latest version, from the log's cached snapshot advanced by the new
  /// commits only (no listing of _delta_log after the first call).
  Result<int64_t> LatestVersion() {
    SPATE_ASSIGN_OR_RETURN(auto snap, log_.Latest());
    return snap->version();
  }

  /// Where reading resumes: after the start offset, or the query's first position.
  Result<Position> StartPosition(const std::optional<Json>& start) {
    if (start) return FromOffset(*start);
    if (!initial_) {
      Position p;
      if (starting_version_.empty() && o_.starting_timestamp_ms) {
        // The first commit at or after the timestamp; past the last one, an error (or,
        // with timestampOutOfRange.enabled, the next commit).
        SPATE_ASSIGN_OR_RETURN(
            std::optional<int64_t> first,
            table::FirstVersionAtOrAfter(log_, *o_.starting_timestamp_ms));
        if (!first) {
          SPATE_ASSIGN_OR_RETURN(int64_t latest, LatestVersion());
          if (!o_.allow_out_of_range) {
            SPATE_ASSIGN_OR_RETURN(int64_t unused,
                                   log_.VersionAtTimestamp(*o_.starting_timestamp_ms));
            (void)unused;
          }
          first = latest + 1;
        }
        p.version = *first;
      } else if (starting_version_.empty()) {
        SPATE_ASSIGN_OR_RETURN(int64_t latest, LatestVersion());
        p.version = available_now_ ? std::min(latest, *available_now_) : latest;
        p.is_starting = true;
      } else if (ToLower(starting_version_) == "latest") {
        SPATE_ASSIGN_OR_RETURN(int64_t latest, LatestVersion());
        p.version = latest + 1;
      } else {
        p.version = ParseInt64(starting_version_).value_or(0);  // checked by the factory
        SPATE_ASSIGN_OR_RETURN(int64_t latest, LatestVersion());
        if (p.version > latest && !o_.allow_out_of_range) {
          // Delta's DELTA_VERSION_NOT_FOUND for a version the table does not have yet.
          SPATE_ASSIGN_OR_RETURN(auto unused, log_.At(p.version));
          (void)unused;
        }
      }
      p.index = -1;
      initial_ = p;
    }
    return *initial_;
  }

  /// Files after `from`, through version `upto` (and not past `stop` when given), capped
  /// by the rate limits when `limited`.
  Status Collect(Position from, int64_t upto, bool limited, std::optional<Position> stop,
                 std::vector<FileRef>* out) {
    int64_t bytes = 0;
    auto full = [&]() {
      if (!limited) return false;
      if (max_files_ > 0 && static_cast<int64_t>(out->size()) >= max_files_) return true;
      if (max_bytes_ > 0 && bytes >= max_bytes_) return true;
      return false;
    };
    auto past_stop = [&](int64_t v, int64_t i, bool starting) {
      if (!stop) return false;
      if (starting != stop->is_starting)
        return !starting;  // snapshot files precede commits
      return v > stop->version || (v == stop->version && i > stop->index);
    };
    // Commits before the range are not read again.
    commits_.erase(commits_.begin(), commits_.lower_bound(from.version));
    std::optional<int64_t> feed_off;
    int64_t v = from.version;
    if (from.is_starting) {
      if (!starting_snapshot_ || starting_snapshot_->version() != from.version) {
        SPATE_ASSIGN_OR_RETURN(starting_snapshot_, log_.At(from.version));
      }
      const table::SnapshotPtr& snap = starting_snapshot_;
      const auto& files = snap->files();
      // readChangeFeed: the snapshot's rows are inserts of its version.
      const std::string type = change_feed_ ? "insert" : "";
      const int64_t ts = change_feed_ && !files.empty() ? snap->timestamp_ms() : 0;
      for (int64_t i = from.index + 1; i < static_cast<int64_t>(files.size()); ++i) {
        if (full() || past_stop(v, i, true)) return Status::OK();
        out->push_back({v, i, true, files[i], type, ts});
        bytes += files[i].size;
      }
      from = Position{v, -1, false};
      ++v;
      if (stop && stop->is_starting) return Status::OK();
    } else if (from.index >= 0) {
      // Resume inside version v (after file from.index).
    }
    for (; v <= upto; ++v) {
      if (full()) return Status::OK();
      if (change_feed_) {
        // Every commit's changes (removes are deletes, not errors), file by file.
        SPATE_ASSIGN_OR_RETURN(auto commits, log_.ReadCommits(v, v));
        // Every version up to the latest had a commit: a missing one was cleaned up.
        if (commits.empty()) return LogFileGone();
        for (const auto& a : commits[0].actions) {
          if (a.kind != table::Action::Kind::kMetadata) continue;
          if (Status st = CheckReadable(a.metadata, v); !st.ok()) {
            return out->empty() || stop.has_value() ? st : Status::OK();
          }
          // The feed turned off: an error once a batch reads past it.
          if (!table::ChangeDataFeedEnabled(a.metadata) && !feed_off) feed_off = v;
        }
        int64_t index = -1;
        for (auto& c : table::CommitChangeFiles(commits[0])) {
          ++index;
          if (v == from.version && index <= from.index) continue;
          if (past_stop(v, index, false) || full()) return Status::OK();
          if (feed_off) return MissingChangeData(from.version, upto, *feed_off);
          bytes += c.file.size;
          std::optional<table::ChangeFile> dv;
          if (c.dv_difference) dv = c;
          out->push_back({v, index, false, std::move(c.file), c.change_type,
                          c.timestamp_ms, std::move(dv)});
        }
        continue;
      }
      SPATE_ASSIGN_OR_RETURN(const std::vector<table::Action>* commit, CommitActions(v));
      const std::vector<table::Action>& actions = *commit;
      for (const auto& a : actions) {
        if (a.kind != table::Action::Kind::kMetadata) continue;
        if (Status st = CheckReadable(a.metadata, v); !st.ok()) {
          return out->empty() || stop.has_value() ? st : Status::OK();
        }
      }
      const table::RemoveFile* removed = nullptr;
      bool has_add = false;
      for (const auto& a : actions) {
        if (a.kind == table::Action::Kind::kRemove && a.remove.data_change && !removed)
          removed = &a.remove;
        if (a.kind == table::Action::Kind::kAdd && a.add.data_change) has_add = true;
      }
      if (removed) {
        // As Delta's DeltaSource: skipChangeCommits drops the whole commit; ignoreChanges
        // lets it through, so the files it added (rewritten by an UPDATE, MERGE, DELETE
        // or overwrite) are emitted again, unchanged rows included, and its removes
        // ignored (ignoreChanges implies ignoreDeletes).
        if (skip_changes_) continue;
        if (has_add && !ignore_changes_) {
          return Status::Error("DELTA_SOURCE_TABLE_IGNORE_CHANGES",
                               {{"file", removed->path},
                                {"version", std::to_string(v)},
                                {"dataPath", o_.path}});
        }
        if (!has_add && !ignore_deletes_ && !ignore_changes_) {
          return Status::Error("DELTA_SOURCE_IGNORE_DELETE",
                               {{"removedFile", removed->path},
                                {"version", std::to_string(v)},
                                {"dataPath", o_.path}});
        }
      }
      int64_t index = -1;
      for (const auto& a : actions) {
        if (a.kind != table::Action::Kind::kAdd) continue;
        ++index;
        if (v == from.version && index <= from.index) continue;
        if (!a.add.data_change) continue;
        if (past_stop(v, index, false)) return Status::OK();
        if (full()) return Status::OK();
        out->push_back({v, index, false, a.add});
        bytes += a.add.size;
      }
    }
    return Status::OK();
  }

  // Whether the query's schema reads data written with `m` (committed in `version`):
  // else Delta's schema change error, which a restart (with the new schema) clears.
  Status CheckReadable(const table::Metadata& m, int64_t version) const {
    if (m.schema_string == read_snapshot_->metadata().schema_string) return Status::OK();
    SPATE_ASSIGN_OR_RETURN(SchemaPtr data, m.ParseSchema());
    const SchemaPtr& read = read_snapshot_->schema();
    if (table::IsReadCompatible(*data, *read, /*forbid_tighten_nullability=*/true))
      return Status::OK();
    if (change_feed_) data = table::ChangeFeedSchema(*data);
    return Status::Error(starting_options_ ? "DELTA_SCHEMA_CHANGED_WITH_STARTING_OPTIONS"
                                           : "DELTA_SCHEMA_CHANGED_WITH_VERSION",
                         {{"version", std::to_string(version)},
                          {"readSchema", schema_->TreeString()},
                          {"dataSchema", data->TreeString()}});
  }

  // The first batch of a run (Delta's check at stream start): the table's schema at the
  // batch's start version must be readable, and, for a change feed, the feed on there.
  // A version no longer in the log is not checked.
  Status CheckStart(int64_t start, int64_t end) {
    auto snap = log_.At(start);
    if (!snap.ok()) return Status::OK();
    SPATE_RETURN_IF_ERROR(CheckReadable((*snap)->metadata(), start));
    if (change_feed_ && !table::ChangeDataFeedEnabled((*snap)->metadata())) {
      return MissingChangeData(start, end, start);
    }
    return Status::OK();
  }

  static Status MissingChangeData(int64_t start, int64_t end, int64_t version) {
    return Status::Error("DELTA_MISSING_CHANGE_DATA",
                         {{"startVersion", std::to_string(start)},
                          {"endVersion", std::to_string(end)},
                          {"version", std::to_string(version)},
                          {"key", "delta.enableChangeDataFeed"}});
  }

  // Delta's error when a commit the query still has to read was removed by log cleanup
  // (delta.logRetentionDuration): the query fell behind the retained log.
  static Status LogFileGone() {
    return Status::Error("DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE", {});
  }

  // The actions of commit `v`, read once: planning (LatestOffset) and GetBatch of the
  // same range share them (kept until a later range starts past them).
  Result<const std::vector<table::Action>*> CommitActions(int64_t v) {
    auto it = commits_.find(v);
    if (it == commits_.end()) {
      auto actions = log_.ReadCommit(v);
      if (!actions.ok()) {
        if (actions.status().code() == StatusCode::kNotFound) return LogFileGone();
        return actions.status();
      }
      // Bounded: a range of more commits than this is read again by GetBatch.
      if (commits_.size() >= kMaxCachedCommits) commits_.erase(std::prev(commits_.end()));
      it = commits_.emplace(v, std::move(*actions)).first;
    }
    return &it->second;
  }
  static constexpr size_t kMaxCachedCommits = 256;

  io::FileSystemPtr fs_;
  DeltaSourceOptions o_;
  SchemaPtr schema_;
  table::SnapshotPtr read_snapshot_;  // the table when the query was defined
  std::map<int64_t, std::vector<table::Action>> commits_;
  std::vector<std::string> partition_cols_;
  std::string table_id_;
  table::DeltaLog log_;
  int64_t max_files_ = 1000, max_bytes_ = 0;
  bool ignore_deletes_ = false, ignore_changes_ = false, skip_changes_ = false;
  std::string starting_version_;
  bool change_feed_ = false;
  bool starting_options_ = false;  // startingVersion or startingTimestamp given
  bool start_checked_ = false;     // CheckStart ran (first GetBatch of the run)
  std::optional<Position> initial_;
  std::optional<int64_t> available_now_;
  int64_t latest_seen_ = -1;
  table::SnapshotPtr
      starting_snapshot_;  // the snapshot an isStartingVersion offset reads
};

}  // namespace

Result<std::pair<SchemaPtr, stream::SourceFactory>> MakeDeltaSourceFactory(
    io::FileSystemPtr fs, DeltaSourceOptions options) {
  table::DeltaLog log(fs, options.path);
  SPATE_ASSIGN_OR_RETURN(bool exists, log.TableExists());
  if (!exists) {
    return Status::Error(
        "DELTA_MISSING_DELTA_TABLE",
        {{"tableName",
          options.display_name.empty() ? options.path : options.display_name}});
  }
  SPATE_ASSIGN_OR_RETURN(auto snap, log.Latest());
  SchemaPtr schema = snap->schema();
  if (ToLower(GetOption(options.options, "readChangeFeed", "false")) == "true" ||
      ToLower(GetOption(options.options, "readChangeData", "false")) == "true") {
    schema = table::ChangeFeedSchema(*schema);  // the change feed's columns
  }
  if (HasOption(options.options, "startingVersion")) {
    std::string v = ToLower(GetOption(options.options, "startingVersion"));
    if (v != "latest" &&
        (v.empty() || v.find_first_not_of("0123456789") != std::string::npos ||
         v.size() > 18)) {
      return Status::Error("DELTA_ILLEGAL_OPTION",
                           {{"input", v},
                            {"name", "startingVersion"},
                            {"explain", "must be greater than or equal to zero"}});
    }
  }
  for (const char* key : {"maxFilesPerTrigger"}) {
    if (HasOption(options.options, key)) {
      std::string v = GetOption(options.options, key);
      if (v.size() > 17 || v.find_first_not_of("0123456789") != std::string::npos ||
          ParseInt64(v).value_or(0) <= 0) {
        return Status::Error(
            "DELTA_ILLEGAL_OPTION",
            {{"input", v}, {"name", key}, {"explain", "must be a positive integer"}});
      }
    }
  }
  stream::SourceFactory factory =
      [fs = std::move(fs), options, schema,
       snap](const stream::SourceContext&) -> Result<stream::SourcePtr> {
    return stream::SourcePtr(
        std::make_shared<DeltaStreamSource>(fs, options, schema, snap));
  };
  return std::make_pair(schema, factory);
}

}  // namespace spate::connectors
