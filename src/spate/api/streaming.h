// Copyright spate authors.
#pragma once

// The Structured Streaming API, named as PySpark's (pyspark.sql.streaming):
//
//   auto events = spark.readStream().schema("id LONG, kind STRING").json("/landing");
//   auto q = events.filter("kind = 'buy'").writeStream()
//                .format("parquet").option("checkpointLocation", "/chk/buys")
//                .trigger(Trigger::AvailableNow()).start("/out/buys");
//   q.awaitTermination();
//   std::cout << q.lastProgress()->prettyJson();
//
//  - DataStreamReader (spark.readStream()): format json | text | parquet | csv (files in
//  a
//    folder; schema required unless spark.sql.streaming.schemaInference=true), delta
//    (load(path) or table(name)), rate, rate-micro-batch; MemoryStream for tests and
//    embedders.
//  - DataStreamWriter (df.writeStream()): format memory | console | noop | parquet |
//  delta
//    (start(path) or toTable(name)), foreachBatch, foreach; outputMode, queryName,
//    partitionBy, trigger,
//    checkpointLocation (required except for memory/console/noop, which then use a
//    temporary one), start([path]).
//  - StreamingQuery / StreamingQueryManager (spark.streams()).
//
// Ownership: handles share the running query and the session. Thread safety: all methods
// may be called from any thread. Errors throw the exceptions of exceptions.h; a failed
// query's error is a StreamingQueryException ([STREAM_FAILED] ...).

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/api/dataframe.h"
#include "spate/base/clock.h"
#include "spate/io/file_system.h"
#include "spate/stream/progress.h"
#include "spate/stream/trigger.h"

namespace spate::stream {
class StreamingQuery;
class StreamingQueryManager;
}  // namespace spate::stream
namespace spate::connectors {
class MemoryStream;
class MemorySink;
}  // namespace spate::connectors

namespace spate::api {

class SparkSession;
class DataFrameReader;
using StreamingQueryProgress = stream::StreamingQueryProgress;
using StreamingQueryStatus = stream::StreamingQueryStatus;
using StreamingQueryListener = stream::StreamingQueryListener;

/// Trigger.ProcessingTime("30 seconds"), Trigger.Once(), Trigger.AvailableNow(),
/// Trigger.Continuous("1 second") (refused at start: not supported),
/// Trigger.RealTime(...).
class Trigger {
 public:
  static stream::Trigger ProcessingTime(const std::string& interval);
  static stream::Trigger ProcessingTime(int64_t interval_ms) {
    return stream::Trigger::ProcessingTime(interval_ms);
  }
  static stream::Trigger Once() { return stream::Trigger::Once(); }
  static stream::Trigger AvailableNow() { return stream::Trigger::AvailableNow(); }
  static stream::Trigger Continuous(const std::string& interval);
  /// Real-time mode (Spark 4.1): long-running batches of `duration` (default 5 minutes)
  /// whose records reach the sink as they arrive; Kafka sources, and Kafka, foreach and
  /// console sinks, output mode Update (docs/real-time-mode.md).
  static stream::Trigger RealTime(const std::string& duration);
  static stream::Trigger RealTime(
      int64_t duration_ms = stream::Trigger::kDefaultRealTimeMs) {
    return stream::Trigger::RealTime(duration_ms);
  }
};

class StreamingQuery {
 public:
  explicit StreamingQuery(std::shared_ptr<stream::StreamingQuery> q) : q_(std::move(q)) {}
  std::string id() const;
  std::string runId() const;
  std::optional<std::string> name() const;
  bool isActive() const;
  StreamingQueryStatus status() const;
  std::optional<StreamingQueryProgress> lastProgress() const;
  std::vector<StreamingQueryProgress> recentProgress() const;
  /// Blocks until the query ends; throws StreamingQueryException if it failed.
  void awaitTermination() const;
  /// true if it ended within `timeout_seconds`.
  bool awaitTermination(double timeout_seconds) const;
  void processAllAvailable() const;
  void stop() const;
  /// The failure, if the query ended with one.
  std::optional<StreamingQueryException> exception() const;
  /// Prints the physical plan of the last micro-batch (explainString: the text).
  void explain() const;
  std::string explainString() const;
  const std::shared_ptr<stream::StreamingQuery>& impl() const { return q_; }

 private:
  std::shared_ptr<stream::StreamingQuery> q_;
};

class StreamingQueryManager {
 public:
  explicit StreamingQueryManager(std::shared_ptr<stream::StreamingQueryManager> m)
      : m_(std::move(m)) {}
  std::vector<StreamingQuery> active() const;
  std::optional<StreamingQuery> get(const std::string& id) const;
  void awaitAnyTermination() const;
  bool awaitAnyTermination(double timeout_seconds) const;
  void resetTerminated() const;
  void addListener(std::shared_ptr<StreamingQueryListener> listener) const;
  void removeListener(const std::shared_ptr<StreamingQueryListener>& listener) const;
  const std::shared_ptr<stream::StreamingQueryManager>& impl() const { return m_; }

 private:
  std::shared_ptr<stream::StreamingQueryManager> m_;
};

class DataStreamReader {
 public:
  explicit DataStreamReader(std::shared_ptr<SessionState> session)
      : session_(std::move(session)) {}
  DataStreamReader& format(const std::string& source);
  DataStreamReader& schema(const StructType& schema);
  DataStreamReader& schema(const std::string& ddl);
  DataStreamReader& option(const std::string& key, const std::string& value);
  DataStreamReader& option(const std::string& key, const char* value) {
    return option(key, std::string(value));
  }
  DataStreamReader& option(const std::string& key, bool value) {
    return option(key, std::string(value ? "true" : "false"));
  }
  DataStreamReader& option(const std::string& key, int64_t value) {
    return option(key, std::to_string(value));
  }
  DataStreamReader& option(const std::string& key, int value) {
    return option(key, std::to_string(value));
  }
  DataStreamReader& options(const std::map<std::string, std::string>& opts);
  DataFrame load() const;
  /// Files (json, csv, parquet, text), delta, or cloudFiles: Databricks' Auto Loader
  /// (cloudFiles.format, cloudFiles.schemaLocation, schema evolution, the rescued data
  /// column; connectors/auto_loader.h, docs/auto-loader.md).
  DataFrame load(const std::string& path) const;
  DataFrame json(const std::string& path) const;
  DataFrame csv(const std::string& path) const;
  DataFrame parquet(const std::string& path) const;
  DataFrame text(const std::string& path) const;
  /// Streams a Delta table of the catalog (format("delta").load(path) for a path):
  /// options startingVersion, maxFilesPerTrigger, maxBytesPerTrigger, ignoreDeletes,
  /// ignoreChanges, skipChangeCommits (connectors/delta_source.h).
  DataFrame table(const std::string& name) const;

 private:
  std::shared_ptr<SessionState> session_;
  std::string format_;
  std::map<std::string, std::string> options_;
  SchemaPtr schema_;
};

/// ForeachWriter: open(partitionId, epochId) -> process rows if true -> close(error).
class ForeachWriter {
 public:
  virtual ~ForeachWriter() = default;
  virtual bool open(int64_t partition_id, int64_t epoch_id) {
    (void)partition_id;
    (void)epoch_id;
    return true;
  }
  virtual void process(const Row& row) = 0;
  virtual void close(const std::optional<std::string>& error) { (void)error; }
};

class DataStreamWriter {
 public:
  explicit DataStreamWriter(DataFrame df) : df_(std::move(df)) {}
  DataStreamWriter& format(const std::string& sink);
  /// "append" (default), "update", "complete".
  DataStreamWriter& outputMode(const std::string& mode);
  DataStreamWriter& option(const std::string& key, const std::string& value);
  DataStreamWriter& option(const std::string& key, const char* value) {
    return option(key, std::string(value));
  }
  DataStreamWriter& option(const std::string& key, bool value) {
    return option(key, std::string(value ? "true" : "false"));
  }
  DataStreamWriter& option(const std::string& key, int64_t value) {
    return option(key, std::to_string(value));
  }
  DataStreamWriter& option(const std::string& key, int value) {
    return option(key, std::to_string(value));
  }
  DataStreamWriter& options(const std::map<std::string, std::string>& opts);
  DataStreamWriter& queryName(const std::string& name);
  DataStreamWriter& partitionBy(const std::vector<std::string>& cols);
  DataStreamWriter& trigger(const stream::Trigger& trigger);
  /// fn(batch DataFrame, batch id) per micro-batch (at-least-once; ids stable on replay).
  DataStreamWriter& foreachBatch(std::function<void(DataFrame, int64_t)> fn);
  DataStreamWriter& foreach (std::shared_ptr<ForeachWriter> writer);
  /// spate extension for tests: the clock triggers and progress use.
  DataStreamWriter& clock(ClockPtr clock);
  /// spate extension for tests: the file system of the checkpoint and the sink.
  DataStreamWriter& fileSystem(io::FileSystemPtr fs);
  StreamingQuery start() const;
  StreamingQuery start(const std::string& path) const;
  /// Streams into a catalog table (Delta; created by the first batch when missing).
  StreamingQuery toTable(const std::string& name) const;

 private:
  DataFrame df_;
  std::string format_;
  std::string output_mode_ = "append";
  std::map<std::string, std::string> options_;
  std::optional<std::string> query_name_;
  std::vector<std::string> partition_by_;
  stream::Trigger trigger_;
  std::function<void(DataFrame, int64_t)> foreach_batch_;
  std::shared_ptr<ForeachWriter> foreach_;
  ClockPtr clock_;
  io::FileSystemPtr fs_;
  std::string table_name_;  // toTable(): the qualified name, for the sink's description
};

/// MemoryStream for tests and embedders: rows added by addData() become the next
/// micro-batch's input of every query reading toDF().
class MemoryStream {
 public:
  MemoryStream(const SparkSession& spark, const StructType& schema);
  MemoryStream(const SparkSession& spark, const std::string& ddl);
  /// Adds rows; returns the new offset.
  int64_t addData(const std::vector<std::vector<Value>>& rows) const;
  DataFrame toDF() const;
  const std::shared_ptr<connectors::MemoryStream>& impl() const { return impl_; }

 private:
  std::shared_ptr<SessionState> session_;
  std::shared_ptr<connectors::MemoryStream> impl_;
};

/// A folder written by a streaming file sink, as the batch reader sees it: only the files
/// its _spark_metadata log lists (partition folders become columns again); nullopt when
/// `path` has no such log. Used by DataFrameReader::load.
std::optional<DataFrame> LoadFileSinkOutput(const DataFrameReader& reader,
                                            const std::string& path);

/// The streaming query manager of a session (created on first use).
std::shared_ptr<stream::StreamingQueryManager> StreamsOf(
    const std::shared_ptr<SessionState>& session);
/// The streaming query managers of every live session (the monitoring server watches
/// them).
std::vector<std::shared_ptr<stream::StreamingQueryManager>> AllStreamsManagers();
/// The memory sink of a query started with format("memory") (tests), or nullptr.
std::shared_ptr<connectors::MemorySink> MemorySinkOf(const StreamingQuery& query);

}  // namespace spate::api
