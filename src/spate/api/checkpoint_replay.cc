// Copyright spate authors.
#include "spate/api/checkpoint_replay.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "spate/api/column.h"
#include "spate/api/dataframe.h"
#include "spate/api/exceptions.h"
#include "spate/api/readwriter.h"
#include "spate/api/streaming.h"
#include "spate/connectors/delta_sink.h"
#include "spate/connectors/file_sink.h"
#include "spate/stream/checkpoint.h"
#include "spate/table/delta_log.h"

namespace spate::api {

namespace {

/// Keeps the rows of one batch id (the replayed one).
class CaptureSink final : public stream::Sink {
 public:
  explicit CaptureSink(int64_t batch_id) : batch_id_(batch_id) {}
  std::string Describe() const override { return "ReplaySink"; }
  Result<int64_t> AddBatch(const stream::MicroBatch& batch) override {
    if (batch.batch_id != batch_id_) return int64_t{0};
    SPATE_ASSIGN_OR_RETURN(auto rows, batch.Collect());
    std::lock_guard<std::mutex> lock(mu_);
    schema_ = batch.analyzed->OutputSchema();
    rows_ = std::move(rows);
    ran_ = true;
    int64_t n = 0;
    for (const auto& b : rows_) n += b->num_rows();
    return n;
  }
  bool ran() const { return ran_; }
  SchemaPtr schema() const { return schema_; }
  const std::vector<BatchPtr>& rows() const { return rows_; }

 private:
  int64_t batch_id_;
  std::mutex mu_;
  bool ran_ = false;
  SchemaPtr schema_;
  std::vector<BatchPtr> rows_;
};

std::string RowText(const std::vector<Value>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += " | ";
    out += values[i].ToString();
  }
  return out;
}

std::vector<std::vector<Value>> Values(const std::vector<BatchPtr>& batches) {
  std::vector<std::vector<Value>> out;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      std::vector<Value> row;
      for (int c = 0; c < b->num_columns(); ++c) row.push_back(b->column(c)->GetValue(r));
      out.push_back(std::move(row));
    }
  }
  return out;
}

/// Copies every file below `from` to the same place below `to` (missing `from`: nothing).
Status CopyTree(io::FileSystem& fs, const std::string& from, const std::string& to) {
  auto listed = fs.List(from, /*recursive=*/true);
  if (!listed.ok()) {
    return listed.status().code() == StatusCode::kNotFound ? Status::OK()
                                                           : listed.status();
  }
  SPATE_RETURN_IF_ERROR(fs.MakeDirs(to));
  for (const io::FileInfo& f : *listed) {
    std::string rel = f.path.substr(from.size());
    while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
    const std::string dest = io::JoinPath(to, rel);
    if (f.is_directory) {
      SPATE_RETURN_IF_ERROR(fs.MakeDirs(dest));
      continue;
    }
    SPATE_RETURN_IF_ERROR(fs.MakeDirs(io::ParentPath(dest)));
    SPATE_ASSIGN_OR_RETURN(std::string bytes, fs.ReadAll(f.path));
    SPATE_RETURN_IF_ERROR(fs.WriteAtomic(dest, bytes));
  }
  return Status::OK();
}

Status CopyFile(io::FileSystem& fs, const std::string& from, const std::string& to) {
  SPATE_ASSIGN_OR_RETURN(std::string bytes, fs.ReadAll(from));
  SPATE_RETURN_IF_ERROR(fs.MakeDirs(io::ParentPath(to)));
  return fs.WriteAtomic(to, bytes);
}

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const std::string hex = s.substr(i + 1, 2);
      char* end = nullptr;
      long v = std::strtol(hex.c_str(), &end, 16);
      if (end == hex.c_str() + 2) {
        out += static_cast<char>(v);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

/// The rows of `files`, read by format (the file sink's extension) with `schema`.
std::vector<std::vector<Value>> ReadFiles(const SparkSession& spark,
                                          const std::vector<std::string>& files,
                                          const SchemaPtr& schema) {
  if (files.empty()) return {};
  std::map<std::string, std::vector<std::string>> by_format;
  for (const auto& f : files) {
    std::string fmt = "parquet";
    if (f.find(".json") != std::string::npos) fmt = "json";
    if (f.find(".csv") != std::string::npos) fmt = "csv";
    if (f.find(".txt") != std::string::npos) fmt = "text";
    by_format[fmt].push_back(f);
  }
  std::vector<std::vector<Value>> out;
  for (const auto& [fmt, paths] : by_format) {
    DataFrameReader r = spark.read().format(fmt);
    if (fmt != "parquet" && fmt != "text") r.schema(StructType(schema->fields()));
    for (const Row& row : r.load(paths).collect()) out.push_back(row.values());
  }
  return out;
}

}  // namespace

BatchReplay ReplayBatch(const SparkSession& spark, const stream::QueryConfig& config,
                        const std::string& dir_in, int64_t batch_id,
                        const std::optional<std::string>& out) {
  const std::string dir = stream::StripFileScheme(dir_in);
  io::FileSystemPtr fs =
      config.fs ? config.fs : io::FileSystemPtr(io::LocalFileSystem::Get());
  auto invalid = [&](const std::string& why) {
    ThrowStatus(Status::Error("SPATE_STREAMING_INVALID", {{"msg", why}}));
  };
  const std::string offsets = io::JoinPath(dir, "offsets"),
                    commits = io::JoinPath(dir, "commits");
  auto exists = [&](const std::string& p) { return ValueOrThrow(fs->Exists(p)); };
  const std::string n = std::to_string(batch_id);
  if (batch_id < 0 || !exists(io::JoinPath(commits, n)) ||
      !exists(io::JoinPath(offsets, n))) {
    invalid("Batch " + n + " is not a committed batch of " + dir +
            " with its offsets (commits/" + n + " and offsets/" + n + " are needed)");
  }
  const std::string prev = std::to_string(batch_id - 1);
  if (batch_id > 0 &&
      (!exists(io::JoinPath(offsets, prev)) || !exists(io::JoinPath(commits, prev)))) {
    invalid("Batch " + n + " cannot be replayed: the offsets or commit of batch " + prev +
            " (where it starts) were purged");
  }
  BatchReplay r;
  r.checkpoint = dir;
  r.batch_id = batch_id;
  r.query_id = ValueOrThrow(stream::ReadStreamMetadata(*fs, dir)).value_or("");

  // The scratch checkpoint: batch N logged and not committed, N-1 committed.
  const char* tmp = std::getenv("TMPDIR");
  const std::string scratch =
      io::JoinPath(tmp && *tmp ? tmp : "/tmp", "spate-replay-" + stream::RandomUuid());
  struct Cleanup {
    std::string path;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } cleanup{scratch};
  auto copy = [&] {
    SPATE_RETURN_IF_ERROR(
        CopyFile(*fs, io::JoinPath(dir, "metadata"), io::JoinPath(scratch, "metadata")));
    SPATE_RETURN_IF_ERROR(CopyFile(*fs, io::JoinPath(offsets, n),
                                   io::JoinPath(io::JoinPath(scratch, "offsets"), n)));
    SPATE_RETURN_IF_ERROR(fs->MakeDirs(io::JoinPath(scratch, "commits")));
    if (batch_id > 0) {
      SPATE_RETURN_IF_ERROR(
          CopyFile(*fs, io::JoinPath(offsets, prev),
                   io::JoinPath(io::JoinPath(scratch, "offsets"), prev)));
      SPATE_RETURN_IF_ERROR(
          CopyFile(*fs, io::JoinPath(commits, prev),
                   io::JoinPath(io::JoinPath(scratch, "commits"), prev)));
    }
    SPATE_RETURN_IF_ERROR(
        CopyTree(*fs, io::JoinPath(dir, "sources"), io::JoinPath(scratch, "sources")));
    return CopyTree(*fs, io::JoinPath(dir, "state"), io::JoinPath(scratch, "state"));
  };
  CheckOrThrow(copy());

  // The runtime's restart path replays batch N; Once stops after it.
  auto sink = std::make_shared<CaptureSink>(batch_id);
  stream::QueryConfig c = config;
  c.checkpoint = scratch;
  c.temp_checkpoint = false;
  c.trigger = stream::Trigger::Once();
  c.sink = sink;
  c.name = std::nullopt;
  c.fs = fs;
  auto q = ValueOrThrow(StreamsOf(spark.state())->StartQuery(std::move(c)));
  CheckOrThrow(q->AwaitTermination());
  if (!sink->ran()) invalid("The replay of batch " + n + " produced no batch");

  SchemaPtr schema = sink->schema();
  for (const Field& f : schema->fields()) r.columns.push_back(f.name);
  const auto replayed = Values(sink->rows());
  for (const auto& row : replayed) r.replayed.push_back(RowText(row));

  // What the sink committed for batch N.
  std::vector<std::vector<Value>> committed;
  if (const auto* delta = dynamic_cast<const connectors::DeltaSink*>(config.sink.get())) {
    r.sink_kind = "delta";
    r.sink_location = delta->options().path;
    table::DeltaLog log(fs, delta->options().path);
    int64_t latest = ValueOrThrow(log.LatestVersion());
    std::vector<std::string> files;
    std::vector<table::AddFile> partitioned;  // files with partition values
    for (int64_t v = latest; v >= 0 && !r.sink_version; --v) {
      auto actions = log.ReadCommit(v);
      if (!actions.ok()) break;  // older commits cleaned up
      bool mine = false;
      for (const auto& a : *actions) {
        if (a.kind == table::Action::Kind::kTxn && a.txn.app_id == r.query_id &&
            a.txn.version == batch_id)
          mine = true;
      }
      if (!mine) continue;
      r.sink_version = v;
      for (const auto& a : *actions) {
        if (a.kind != table::Action::Kind::kAdd) continue;
        std::string p = PercentDecode(a.add.path);
        p = p.find("://") != std::string::npos || (!p.empty() && p[0] == '/')
                ? stream::StripFileScheme(p)
                : io::JoinPath(delta->options().path, p);
        if (a.add.partition_values.empty()) {
          files.push_back(std::move(p));
        } else {
          partitioned.push_back(a.add);
          partitioned.back().path = std::move(p);
        }
      }
    }
    if (!r.sink_version) {
      invalid("No version of the Delta table " + r.sink_location + " holds the txn (" +
              r.query_id + ", " + n + ") of batch " + n);
    }
    committed = ReadFiles(spark, files, schema);
    // A partitioned table's files lack the partition columns: their values come from the
    // add action, cast to the column's type, and the columns are put back in order.
    for (const auto& add : partitioned) {
      DataFrame df = spark.read().parquet(add.path);
      for (const auto& [name, value] : add.partition_values) {
        auto field = schema->FieldIndex(name);
        DataTypePtr type = field >= 0 ? schema->field(field).type : DataType::String();
        df = df.withColumn(
            name, (value ? functions::lit(*value) : functions::lit(Value())).cast(type));
      }
      std::vector<Column> ordered;
      for (const Field& f : schema->fields()) ordered.push_back(functions::col(f.name));
      for (const Row& row : df.select(ordered).collect())
        committed.push_back(row.values());
    }
  } else if (const auto* files_sink =
                 dynamic_cast<const connectors::FileStreamSink*>(config.sink.get())) {
    r.sink_kind = "files";
    r.sink_location = files_sink->path();
    stream::CompactibleLog log(fs, io::JoinPath(files_sink->path(), "_spark_metadata"),
                               10);
    auto paths_of = [&](std::optional<int64_t> up_to) {
      std::vector<std::string> out;
      if (up_to && *up_to < 0) return out;
      for (const auto& e : ValueOrThrow(log.AllEntries(up_to))) {
        if (const Json* p = e.Find("path"); p && p->is_string())
          out.push_back(stream::StripFileScheme(PercentDecode(p->string_value())));
      }
      return out;
    };
    auto upto_n = paths_of(batch_id), before = paths_of(batch_id - 1);
    std::vector<std::string> files;
    for (const auto& p : upto_n) {
      if (std::find(before.begin(), before.end(), p) == before.end()) files.push_back(p);
    }
    committed = ReadFiles(spark, files, schema);
  }
  for (const auto& row : committed) r.committed.push_back(RowText(row));
  std::sort(r.replayed.begin(), r.replayed.end());
  std::sort(r.committed.begin(), r.committed.end());
  if (r.compared()) {
    std::set_difference(r.replayed.begin(), r.replayed.end(), r.committed.begin(),
                        r.committed.end(), std::back_inserter(r.only_replayed));
    std::set_difference(r.committed.begin(), r.committed.end(), r.replayed.begin(),
                        r.replayed.end(), std::back_inserter(r.only_committed));
  }
  if (out) {
    spark.createDataFrame(replayed, StructType(schema->fields()))
        .write()
        .mode("overwrite")
        .parquet(*out);
  }
  return r;
}

Json BatchReplay::ToJson() const {
  auto strings = [](const std::vector<std::string>& v) {
    Json a = Json::Array();
    for (const auto& s : v) a.Append(Json::String(s));
    return a;
  };
  Json o = Json::Object();
  o.Set("checkpoint", Json::String(checkpoint));
  o.Set("queryId", Json::String(query_id));
  o.Set("batchId", Json::Int(batch_id));
  Json sink = Json::Object();
  sink.Set("kind", Json::String(sink_kind));
  sink.Set("location",
           sink_location.empty() ? Json::Null() : Json::String(sink_location));
  sink.Set("version", sink_version ? Json::Int(*sink_version) : Json::Null());
  o.Set("sink", std::move(sink));
  o.Set("compared", Json::Bool(compared()));
  o.Set("equal", compared() ? Json::Bool(equal()) : Json::Null());
  o.Set("exitCode", Json::Int(ExitCode()));
  o.Set("columns", strings(columns));
  o.Set("replayedRows", Json::Int(static_cast<int64_t>(replayed.size())));
  o.Set("committedRows", Json::Int(static_cast<int64_t>(committed.size())));
  o.Set("onlyReplayed", strings(only_replayed));
  o.Set("onlyCommitted", strings(only_committed));
  if (!compared()) o.Set("rows", strings(replayed));
  return o;
}

std::string BatchReplay::ToText() const {
  std::string out = "Checkpoint " + checkpoint + "\n";
  out += "  query id:   " + query_id + "\n";
  out += "  batch:      " + std::to_string(batch_id) + "\n";
  out += "  sink:       ";
  if (sink_kind == "delta") {
    out += "Delta table " + sink_location + ", version " + std::to_string(*sink_version) +
           " (txn " + query_id + ", " + std::to_string(batch_id) + ")\n";
  } else if (sink_kind == "files") {
    out += "files " + sink_location + " (_spark_metadata batch " +
           std::to_string(batch_id) + ")\n";
  } else {
    out += "none that records batches: the replayed rows are shown, not compared\n";
  }
  out += "  replayed:   " + std::to_string(replayed.size()) + " rows\n";
  if (compared()) out += "  committed:  " + std::to_string(committed.size()) + " rows\n";
  std::string header;
  for (size_t i = 0; i < columns.size(); ++i) header += (i ? " | " : "") + columns[i];
  if (!compared()) {
    out += "\n  " + header + "\n";
    for (const auto& r : replayed) out += "  " + r + "\n";
    return out;
  }
  if (equal()) {
    out += "\nThe replayed batch equals what the sink committed (exit code 0)\n";
    return out;
  }
  out += "\nRows differ (" + header + "):\n";
  for (const auto& r : only_committed) out += "- " + r + "   (committed, not replayed)\n";
  for (const auto& r : only_replayed) out += "+ " + r + "   (replayed, not committed)\n";
  out += "\nThe replayed batch differs from what the sink committed (exit code 1)\n";
  return out;
}

}  // namespace spate::api
