// Copyright spate authors.
#pragma once

// Source and Sink: the two interfaces the micro-batch loop drives (Spark's Source /
// SupportsAdmissionControl and Sink). `connectors` implements them and the api registers
// them by format name; the loop (stream_execution.h) owns the protocol around them.
//
// Offsets are JSON values, stored verbatim as one line of offsets/<N> (the file source's
// {"logOffset":3}, the memory source's 7, the rate source's {...}); the engine only
// compares them for equality (a source with the same start and end offset has no data).
//
// A streaming DataFrame's plan holds a StreamingRelation (a DataSource that cannot be
// scanned); each micro-batch replaces it with the DataSource the Source returns for the
// batch's offset range. StreamingRelation::factory creates the Source when a query starts
// (with the per-source checkpoint folder sources/<i>), or hands out the same instance for
// a MemoryStream.
//
// Ownership: sources and sinks are shared_ptr, owned by the running query (and by the
// user for a MemoryStream). Thread safety: a query calls its source and sink from its own
// thread only; MemoryStream additionally accepts AddData from any thread.
// Failure: Status values; a failed call stops the query with STREAM_FAILED.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/clock.h"
#include "spate/base/json.h"
#include "spate/columnar/data_source.h"
#include "spate/exec/executor.h"
#include "spate/io/file_system.h"
#include "spate/sql/bound_plan.h"
#include "spate/sql/logical_plan.h"

namespace spate::stream {

enum class OutputMode : uint8_t { kAppend, kUpdate, kComplete };
std::string_view OutputModeName(OutputMode m);  // "Append", "Update", "Complete"
/// "append" / "update" / "complete" (case-insensitive); else
/// STREAMING_OUTPUT_MODE.INVALID.
Result<OutputMode> ParseOutputMode(const std::string& s);

/// What a Source gets when a query starts.
struct SourceContext {
  io::FileSystemPtr fs;
  /// <checkpoint>/sources/<index> (the source may keep its own log there).
  std::string metadata_path;
  ClockPtr clock;
  /// Session confs (spark.sql.streaming.*), read at start.
  std::function<std::string(const std::string& key, const std::string& dflt)> conf;
};

class Source {
 public:
  virtual ~Source() = default;
  virtual const SchemaPtr& schema() const = 0;
  /// Progress "description", e.g. "FileStreamSource[file:/data/in]",
  /// "MemoryStream[value#1]".
  virtual std::string Describe() const = 0;
  /// The end offset of the next batch starting after `start` (nullopt: from the
  /// beginning), capped by the source's rate limits (maxFilesPerTrigger ...). nullopt
  /// when the source has no data at all yet. Returning `start` means no new data.
  virtual Result<std::optional<Json>> LatestOffset(const std::optional<Json>& start) = 0;
  /// Trigger.AvailableNow: fix the target to what is available now; LatestOffset then
  /// never goes beyond it.
  virtual Status PrepareForAvailableNow() { return Status::OK(); }
  /// Trigger.Once: the next batch takes everything available, ignoring rate limits
  /// (Spark's ReadAllAvailable).
  virtual void SetReadAllAvailable() {}
  /// The rows in (start, end] as a scannable DataSource with schema().
  virtual Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                         const Json& end) = 0;
  /// Every batch up to `end` is committed: data before it may be released.
  virtual Status Commit(const Json& end) {
    (void)end;
    return Status::OK();
  }
  /// The newest offset the source knows of, uncapped (progress "latestOffset"); nullopt =
  /// not reported (JSON null).
  virtual std::optional<Json> ReportLatestOffset() const { return std::nullopt; }
  /// Progress "metrics" of the source (string values).
  virtual std::vector<std::pair<std::string, std::string>> Metrics() const { return {}; }
  virtual void Stop() {}
  /// Real-time mode (Trigger.RealTime) may read this source: it is asked for new data
  /// continuously within one long batch (Spark: Kafka; spate also its MemoryStream, as
  /// Spark's tests use LowLatencyMemoryStream).
  virtual bool SupportsRealTime() const { return false; }
};
using SourcePtr = std::shared_ptr<Source>;
using SourceFactory = std::function<Result<SourcePtr>(const SourceContext&)>;

/// The leaf of a streaming DataFrame's plan (see file comment). OpenSplit fails: the plan
/// must run through a streaming query.
class StreamingRelation final : public DataSource {
 public:
  StreamingRelation(std::string format, SchemaPtr schema, SourceFactory factory,
                    std::string description);
  const SchemaPtr& schema() const override { return schema_; }
  int num_splits() const override { return 0; }
  Result<std::unique_ptr<BatchReader>> OpenSplit(int split,
                                                 const ScanSpec& spec) const override;
  std::string Describe() const override;
  const std::string& format() const { return format_; }
  const SourceFactory& factory() const { return factory_; }
  const std::string& description() const { return description_; }

 private:
  std::string format_;
  SchemaPtr schema_;
  SourceFactory factory_;
  std::string description_;
};

/// Whether the plan reads a stream.
bool IsStreamingPlan(const sql::PlanPtr& plan);
/// The StreamingRelations of a plan, in the order sources are numbered (depth first).
std::vector<std::shared_ptr<const StreamingRelation>> FindStreamingRelations(
    const sql::PlanPtr& plan);
/// Replaces each StreamingRelation (in FindStreamingRelations order) by a plain
/// DataSource.
sql::PlanPtr ReplaceStreamingRelations(const sql::PlanPtr& plan,
                                       const std::vector<DataSourcePtr>& with);

/// What a query needs from the session to run a batch plan (implemented by the api).
class BatchRunner {
 public:
  virtual ~BatchRunner() = default;
  virtual Result<sql::BoundPlanPtr> Analyze(const sql::PlanPtr& plan) = 0;
  virtual exec::ExecOptions MakeExecOptions() = 0;
  virtual std::string GetConf(const std::string& key, const std::string& dflt) = 0;
  /// Spark's show() text of a result (console sink).
  virtual Result<std::string> ShowString(const sql::PlanPtr& plan, int num_rows,
                                         int truncate) = 0;
};

/// The data of one micro-batch as a sink sees it.
struct MicroBatch {
  int64_t batch_id = 0;
  /// The query's plan with the batch's data as leaves (an ordinary batch plan).
  sql::PlanPtr plan;
  sql::BoundPlanPtr analyzed;
  BatchRunner* runner = nullptr;
  OutputMode output_mode = OutputMode::kAppend;
  std::string query_id;
  /// Real-time mode: this is one piece of batch `batch_id` (more may follow with the same
  /// id; Sink::FinishRealTimeBatch ends the batch).
  bool real_time_piece = false;
  /// Runs the plan and returns every row.
  Result<std::vector<BatchPtr>> Collect() const;
};

class Sink {
 public:
  virtual ~Sink() = default;
  /// Progress "description", e.g. "MemorySink", "FileSink[/out]".
  virtual std::string Describe() const = 0;
  /// Writes batch `batch.batch_id`. Called again with the same id (and the same data)
  /// after a restart when commits/<id> was not written: an exactly-once sink must then
  /// not duplicate its output. Returns the rows written (-1 when unknown).
  virtual Result<int64_t> AddBatch(const MicroBatch& batch) = 0;
  /// The query started (before the first batch) / stopped.
  virtual Status Start(const std::string& query_id) {
    (void)query_id;
    return Status::OK();
  }
  virtual void Stop() {}
  /// Real-time mode may write to this sink (Spark: Kafka, foreach, console, memory). In
  /// real-time mode AddBatch is called once per piece of the batch, all with the batch's
  /// id, as records arrive, and FinishRealTimeBatch ends the batch (before its offsets
  /// are logged).
  virtual bool SupportsRealTime() const { return false; }
  virtual Status FinishRealTimeBatch(int64_t batch_id) {
    (void)batch_id;
    return Status::OK();
  }
};
using SinkPtr = std::shared_ptr<Sink>;

}  // namespace spate::stream
