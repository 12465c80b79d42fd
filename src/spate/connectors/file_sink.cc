// Copyright spate authors.
#include "spate/connectors/file_sink.h"

#include "spate/exec/physical_plan.h"
#include "spate/stream/batch_source.h"

namespace spate::connectors {

FileStreamSink::FileStreamSink(io::FileSystemPtr fs, std::string path,
                               formats::FileWriterFactoryPtr factory,
                               std::vector<std::string> partition_by,
                               int compact_interval, int64_t cleanup_delay_ms)
    : fs_(std::move(fs)),
      path_(std::move(path)),
      factory_(std::move(factory)),
      partition_by_(std::move(partition_by)),
      log_(fs_, io::JoinPath(path_, "_spark_metadata"), compact_interval,
           cleanup_delay_ms) {}

Result<int64_t> FileStreamSink::AddBatch(const stream::MicroBatch& batch) {
  if (!listed_) {
    SPATE_ASSIGN_OR_RETURN(latest_, log_.LatestId());
    listed_ = true;
  } else if (!latest_ || batch.batch_id > *latest_) {
    SPATE_ASSIGN_OR_RETURN(bool there, fs_->Exists(log_.EntryPath(batch.batch_id)));
    if (there) latest_ = batch.batch_id;
  }
  if (latest_ && batch.batch_id <= *latest_)
    return int64_t{0};  // Skipping already committed batch
  auto opts = batch.runner->MakeExecOptions();
  SPATE_ASSIGN_OR_RETURN(auto physical, exec::CreatePhysicalPlan(batch.analyzed, opts));
  int parts = physical->root()->num_partitions();
  formats::WriteJobOptions wo;
  wo.output_dir = path_;
  wo.partition_columns = partition_by_;
  wo.use_staging = false;
  wo.write_success_file = false;
  wo.write_file_when_empty = false;
  SPATE_ASSIGN_OR_RETURN(auto job,
                         formats::PartitionedWriteJob::Make(
                             fs_, factory_, batch.analyzed->OutputSchema(), wo, parts));
  Status st = exec::ExecuteToSink(
      *physical, opts, [&](int p, const BatchPtr& b) { return job->Write(p, b); });
  if (!st.ok()) {
    job->Abort();
    return st;
  }
  SPATE_ASSIGN_OR_RETURN(auto files, job->Commit());
  stream::FaultPoint("after_sink_files");
  std::vector<Json> entries;
  int64_t rows = 0;
  for (const auto& f : files) {
    Json e = Json::Object();
    e.Set("path",
          Json::String(stream::QualifyPath(io::JoinPath(path_, f.relative_path))));
    e.Set("size", Json::Int(f.size_bytes));
    e.Set("isDir", Json::Bool(false));
    e.Set("modificationTime", Json::Int(f.modification_time_ms));
    e.Set("blockReplication", Json::Int(1));
    e.Set("blockSize", Json::Int(33554432));
    e.Set("action", Json::String("add"));
    entries.push_back(std::move(e));
    rows += f.num_records;
  }
  Status logged = log_.AddEntries(batch.batch_id, entries);
  if (logged.error_class() == "CONCURRENT_STREAM_LOG_UPDATE") {
    // Another writer holds this batch: these files are in no entry, so no reader of the
    // log sees them; remove them so no reader of the folder does either (as Spark's
    // ManifestFileCommitProtocol.abortJob). Best effort: a crash here leaves them
    // unlisted. (Not on other errors: an entry whose folder fsync failed may be there.)
    for (const auto& f : files) (void)fs_->Delete(io::JoinPath(path_, f.relative_path));
  }
  SPATE_RETURN_IF_ERROR(logged);
  latest_ = batch.batch_id;
  stream::FaultPoint("after_sink_commit");
  return rows;
}

Result<std::optional<std::vector<std::string>>> SinkLogFiles(io::FileSystem& fs,
                                                             const std::string& dir) {
  std::string meta = io::JoinPath(dir, "_spark_metadata");
  auto st = fs.Stat(meta);
  if (!st.ok() || !st->is_directory) return std::optional<std::vector<std::string>>();
  // The reader only needs the entries; the interval only decides which ids are compact.
  std::shared_ptr<io::FileSystem> unowned(&fs, [](io::FileSystem*) {});
  stream::CompactibleLog log(unowned, meta, 10);
  SPATE_ASSIGN_OR_RETURN(auto entries, log.AllEntries());
  std::vector<std::string> files;
  std::map<std::string, bool> deleted;
  for (const auto& e : entries) {
    const Json* p = e.Find("path");
    const Json* a = e.Find("action");
    if (!p) continue;
    std::string path = stream::StripFileScheme(p->string_value());
    if (a && a->string_value() == "delete") {
      deleted[path] = true;
    } else {
      files.push_back(path);
    }
  }
  std::vector<std::string> out;
  for (auto& f : files) {
    if (!deleted.count(f)) out.push_back(std::move(f));
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

}  // namespace spate::connectors
