// Copyright spate authors.
#pragma once

// FileStreamSink: each micro-batch's rows as part files under the output folder (parquet,
// json, csv: any formats::FileWriterFactory), with Spark's `_spark_metadata` log of
// committed files (FileStreamSinkLog: <out>/_spark_metadata/<batchId>, "v1" then one
// {"path":"file:///...","size":..,"isDir":false,"modificationTime":..,"blockReplication":1,
// "blockSize":33554432,"action":"add"} line per file, compacted every
// spark.sql.streaming.fileSink.log.compactInterval = 10 batches).
//
// Exactly-once: a batch id at or below the log's latest is skipped ("already committed");
// the latest id is listed on the sink's first batch and then known (its own entries; an
// entry for the batch already present is still found, by its file name, without a
// listing, so the per-batch cost does not grow with the log);
// otherwise the batch's files are written in place with fresh names, then the log entry
// is added with put-if-absent. A writer that loses that race (another process committed
// the batch: CONCURRENT_STREAM_LOG_UPDATE) deletes its files before failing. Files of a
// batch that crashed before its log entry stay on disk but are never read: readers of a
// folder that has _spark_metadata read exactly the files the log lists (SinkLogFiles).
//
// Ownership: owned by the query; shares the FileSystem. Thread safety: the query thread.
// Failure: write errors abort the batch's job (its files are deleted) and fail the query.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/formats/file_writer.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/source.h"

namespace spate::connectors {

class FileStreamSink final : public stream::Sink {
 public:
  FileStreamSink(io::FileSystemPtr fs, std::string path,
                 formats::FileWriterFactoryPtr factory,
                 std::vector<std::string> partition_by, int compact_interval = 10,
                 int64_t cleanup_delay_ms = -1);
  std::string Describe() const override {
    return "FileSink[" + stream::QualifyPath(path_) + "]";
  }
  /// The output folder (its _spark_metadata log lists each batch's files).
  const std::string& path() const { return path_; }
  Result<int64_t> AddBatch(const stream::MicroBatch& batch) override;

 private:
  io::FileSystemPtr fs_;
  std::string path_;
  formats::FileWriterFactoryPtr factory_;
  std::vector<std::string> partition_by_;
  stream::CompactibleLog log_;
  std::optional<int64_t> latest_;  // the log's latest batch id once listed
  bool listed_ = false;
};

/// The files a file sink committed under `dir` (paths without scheme), or nullopt when
/// `dir` has no _spark_metadata log.
Result<std::optional<std::vector<std::string>>> SinkLogFiles(io::FileSystem& fs,
                                                             const std::string& dir);

}  // namespace spate::connectors
