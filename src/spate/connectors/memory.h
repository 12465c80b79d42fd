// Copyright spate authors.
#pragma once

// In-process sources and sinks:
//  - MemoryStream: a Source fed by AddData (tests, embedders). Offsets are the index of
//    the last batch added (JSON number; nullopt before the first AddData). Batches are
//    kept after commit so that any checkpoint can replay them.
//  - MemorySink ("memory"): keeps every row (complete mode: the last batch's rows); the
//    query's name becomes a temp view over them (through the `publish` callback). A batch
//    id at or below the last one added is skipped, so a replay adds nothing twice.
//  - ConsoleSink ("console"): Spark's "Batch: N" banner and show() grid per batch
//    (options numRows, default 20, and truncate, default true).
//  - ForeachBatchSink: calls a function with each micro-batch (at-least-once: the same id
//    again after a replay).
//  - NoopSink ("noop"): runs the batch and drops the rows.
//
// Ownership: shared_ptr; MemoryStream is shared by the user and the query.
// Thread safety: MemoryStream::AddData and MemorySink readers are safe from any thread;
// AddBatch is called by the query thread. Failure: Status values.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "spate/stream/source.h"

namespace spate::connectors {

class MemoryStream final : public stream::Source,
                           public std::enable_shared_from_this<MemoryStream> {
 public:
  explicit MemoryStream(SchemaPtr schema);
  /// Appends rows (a batch of this stream's schema); returns the new offset.
  int64_t AddData(BatchPtr batch);
  /// The current offset (-1 before any data).
  int64_t current_offset() const;
  /// A factory handing out this same stream (for StreamingRelation).
  stream::SourceFactory Factory();

  const SchemaPtr& schema() const override { return schema_; }
  std::string Describe() const override;
  Result<std::optional<Json>> LatestOffset(const std::optional<Json>& start) override;
  Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                 const Json& end) override;
  Status Commit(const Json& end) override;
  bool SupportsRealTime() const override { return true; }

 private:
  SchemaPtr schema_;
  mutable std::mutex mu_;
  std::vector<BatchPtr> batches_;  // batches_[i] has offset base_ + i
  int64_t base_ = 0;
  int64_t current_ = -1;
};

class MemorySink final : public stream::Sink {
 public:
  using Publish =
      std::function<Status(const SchemaPtr& schema, const std::vector<BatchPtr>& rows)>;
  explicit MemorySink(stream::OutputMode mode, Publish publish = nullptr)
      : mode_(mode), publish_(std::move(publish)) {}
  std::string Describe() const override { return "MemorySink"; }
  Result<int64_t> AddBatch(const stream::MicroBatch& batch) override;
  bool SupportsRealTime() const override { return true; }
  Status FinishRealTimeBatch(int64_t batch_id) override;
  /// Every row held (in batch order).
  std::vector<BatchPtr> AllData() const;
  SchemaPtr schema() const;
  int64_t latest_batch_id() const;
  /// Rows added by the last batch.
  std::vector<BatchPtr> LastBatch() const;
  void Clear();

 private:
  stream::OutputMode mode_;
  Publish publish_;
  mutable std::mutex mu_;
  SchemaPtr schema_;
  std::vector<std::pair<int64_t, std::vector<BatchPtr>>> batches_;
  int64_t latest_ = -1;
  int64_t open_real_time_ = -1;  // the real-time batch whose pieces are arriving
};

class ConsoleSink final : public stream::Sink {
 public:
  ConsoleSink(int num_rows, int truncate, std::ostream* out = nullptr)
      : num_rows_(num_rows), truncate_(truncate), out_(out) {}
  /// From the writer options (numRows, truncate).
  static Result<std::shared_ptr<ConsoleSink>> Make(
      const std::map<std::string, std::string>& options, std::ostream* out = nullptr);
  std::string Describe() const override { return "ConsoleSink"; }
  Result<int64_t> AddBatch(const stream::MicroBatch& batch) override;
  bool SupportsRealTime() const override { return true; }

 private:
  int num_rows_;
  int truncate_;
  std::ostream* out_;
};

class ForeachBatchSink final : public stream::Sink {
 public:
  using Fn = std::function<Status(const stream::MicroBatch& batch)>;
  explicit ForeachBatchSink(Fn fn) : fn_(std::move(fn)) {}
  std::string Describe() const override { return "ForeachBatchSink"; }
  Result<int64_t> AddBatch(const stream::MicroBatch& batch) override;

 private:
  Fn fn_;
};

class NoopSink final : public stream::Sink {
 public:
  std::string Describe() const override { return "NoopSink"; }
  Result<int64_t> AddBatch(const stream::MicroBatch& batch) override;
  bool SupportsRealTime() const override { return true; }
};

/// Case-insensitive option lookup.
std::string GetOption(const std::map<std::string, std::string>& options,
                      const std::string& key, const std::string& dflt = "");
bool HasOption(const std::map<std::string, std::string>& options, const std::string& key);

}  // namespace spate::connectors
