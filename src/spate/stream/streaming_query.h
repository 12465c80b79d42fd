// Copyright spate authors.
#pragma once

// StreamingQuery: one run of a streaming query — the micro-batch loop of DESIGN.md §4 on
// its own thread — and StreamingQueryManager, the session's registry of active queries
// and listeners (spark.streams).
//
// Batch N, as MicroBatchExecution:
//   1. plan: ask each source for its latest offset (rate limited); no source has new
//      data -> no batch (an idle event at most every noDataProgressEventInterval).
//   2. write-ahead: offsets/N put-if-absent (end offsets, batch watermark and timestamp,
//      pinned confs); another writer -> CONCURRENT_STREAM_LOG_UPDATE.
//   3. process: each source's rows in (start, end] replace its StreamingRelation; the
//      plan is analyzed and handed to the sink with N.
//   4. sink: AddBatch(N) (idempotent per N for exactly-once sinks).
//   5. commit: sources release data up to the end offsets, commits/N is written, old log
//      entries beyond spark.sql.streaming.minBatchesToRetain are purged.
// Restart: the latest offsets/N without commits/N is run again on exactly its offsets,
// timestamp and confs; with commits/N the query continues with N+1.
//
// Ownership: the manager owns active queries (shared_ptr); a query owns its sources,
// sink and thread, and keeps its runner (the session) alive. Thread safety: every public
// method may be called from any thread. Failure: start errors are returned by
// StartQuery; a failure while running stops the query, which then reports it as
// exception() (STREAM_FAILED: "Query [id = ..., runId = ...] terminated with exception:
// <cause>") and from AwaitTermination.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "spate/base/clock.h"
#include "spate/base/mutex.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/progress.h"
#include "spate/stream/source.h"
#include "spate/stream/stateful.h"
#include "spate/stream/trigger.h"

namespace spate::stream {

class CountingDataSource;

struct QueryConfig {
  std::optional<std::string> name;
  /// Resolved checkpoint folder.
  std::string checkpoint;
  /// A temporary checkpoint (memory/console/noop sinks without a location): deleted when
  /// the query stops without error.
  bool temp_checkpoint = false;
  Trigger trigger;
  OutputMode output_mode = OutputMode::kAppend;
  sql::PlanPtr plan;
  SinkPtr sink;
  io::FileSystemPtr fs;
  ClockPtr clock;
  std::shared_ptr<BatchRunner> runner;
};

class StreamingQueryManager;

class StreamingQuery {
 public:
  ~StreamingQuery();
  const std::string& id() const { return id_; }
  const std::string& run_id() const { return run_id_; }
  const std::optional<std::string>& name() const { return config_.name; }
  const std::string& checkpoint() const { return config_.checkpoint; }
  bool IsActive() const;
  StreamingQueryStatus status() const;
  std::optional<StreamingQueryProgress> LastProgress() const;
  std::vector<StreamingQueryProgress> RecentProgress() const;
  /// Waits for the query to end: OK when stopped, its exception when it failed.
  Status AwaitTermination();
  /// true when terminated within `timeout_ms` (and then its exception, if any, as error).
  Result<bool> AwaitTermination(int64_t timeout_ms);
  /// Blocks until every row available at the call has been processed and committed (or
  /// the query ended: its exception, if any).
  Status ProcessAllAvailable();
  /// Stops the loop after the current batch and waits for the thread. Idempotent.
  void Stop();
  std::optional<Status> exception() const;
  /// The physical plan of the last batch ("== Physical Plan ==\n..."), or Spark's "No
  /// physical plan. Waiting for data." before the first one.
  std::string ExplainString() const;
  /// The id of the last batch committed by this run (-1: none).
  int64_t last_committed_batch() const { return last_committed_.load(); }
  /// The committed end offset of `source` (one of sources()), nullopt before its first
  /// batch.
  std::optional<Json> CommittedOffset(const Source* source) const;
  /// Waits until `pred()` holds (re-checked after every trigger) or the query ended or
  /// `timeout_ms` passed; returns pred().
  bool WaitFor(const std::function<bool()>& pred, int64_t timeout_ms);
  /// Sources (tests: inspect offsets).
  const std::vector<SourcePtr>& sources() const { return sources_; }
  const SinkPtr& sink() const { return config_.sink; }

 private:
  friend class StreamingQueryManager;
  StreamingQuery(QueryConfig config, std::string id, StreamingQueryManager* manager);
  Status Initialize();
  void Run();
  Status RunActivated();
  Status PopulateStartOffsets();
  /// Spark's check of the stateful operators against the checkpoint's on a restart.
  Status CheckStatefulOperators(const sql::BoundPlanPtr& analyzed);
  /// Runs one trigger; *terminate set when the trigger type ends the query.
  Status RunTrigger(bool* has_data);
  Status RunBatch(int64_t trigger_start_ms, std::map<std::string, int64_t>* durations);
  // Each source's rows in (from, to] (an empty source where nothing is new), counted.
  Status BatchInputs(const std::vector<std::optional<Json>>& from,
                     const std::vector<std::optional<Json>>& to,
                     std::vector<DataSourcePtr>* inputs,
                     std::vector<std::shared_ptr<CountingDataSource>>* counters);
  // Trigger.RealTime: one long-running batch (docs/real-time-mode.md), and the checks
  // Spark makes when the first batch is planned (sources, operators).
  Status RunRealTimeBatch();
  Status CheckRealTimeQuery();
  // offsets/N (then the logs' purge) and commits/N (then the sources' commit) of the
  // current batch, timing walCommit / commitOffsets.
  Status WriteOffsetLog(std::map<std::string, int64_t>* durations);
  Status WriteCommitLog(std::map<std::string, int64_t>* durations);
  // The progress of the batch just committed (offsets committed_offsets_ ->
  // available_offsets_), then the next batch id.
  void FinishBatch(int64_t trigger_start, std::map<std::string, int64_t>* durations,
                   const std::vector<int64_t>& input_rows, int64_t output_rows,
                   sql::BoundPlanPtr executed);
  /// The progress of the trigger that started at `trigger_start`: the batch that ran
  /// (`executed`), or, as Spark's, a trigger that ran none (the next batch id, no input
  /// rows; see the idle reporting in RunTrigger).
  StreamingQueryProgress MakeProgress(int64_t trigger_start,
                                      std::map<std::string, int64_t>* durations,
                                      const std::vector<int64_t>& input_rows,
                                      int64_t output_rows, bool executed);
  /// Keeps `p` in the recent progress (and `executed`, when given, as the last plan).
  void KeepProgress(const StreamingQueryProgress& p, sql::BoundPlanPtr executed);
  std::vector<std::pair<std::string, std::string>> PinnedConf() const;
  /// Advances the watermark from the event times the batch saw (Spark's
  /// WatermarkTracker): per withWatermark node max event time minus delay, combined by
  /// spark.sql.streaming.multipleWatermarkPolicy once every node has seen data; never
  /// moves back.
  void UpdateWatermark();
  std::string PinnedValue(const std::string& key, const std::string& dflt) const;
  void SetStatus(const std::string& message, bool data_available, bool trigger_active);
  void Post(const std::function<void(StreamingQueryListener&)>& fn);
  bool StopRequested() const { return stop_requested_.load(); }

  QueryConfig config_;
  std::string id_, run_id_;
  StreamingQueryManager* manager_;
  std::vector<std::shared_ptr<const StreamingRelation>> relations_;
  std::unique_ptr<StatefulRuntime> stateful_;
  bool materialize_ =
      false;  // stateful: the engine runs the batch and the sink gets rows
  std::vector<SourcePtr> sources_;
  std::unique_ptr<OffsetSeqLog> offset_log_;
  std::unique_ptr<CommitLog> commit_log_;

  // Loop state (query thread only).
  int64_t current_batch_id_ = 0;
  bool batch_constructed_ = false;
  std::vector<std::optional<Json>> committed_offsets_;  // start of the next batch
  std::vector<std::optional<Json>> available_offsets_;  // end of the current batch
  OffsetSeqMetadata batch_metadata_;
  int64_t watermark_ms_ = 0;                          // the tracker's current watermark
  int64_t prev_batch_watermark_ms_ = 0;               // the previous batch's (late rows)
  std::vector<std::optional<int64_t>> max_event_ms_;  // per withWatermark node
  bool run_no_data_batch_ = false;  // the watermark moved and an operator would evict
  std::vector<EventTimeStats> last_event_stats_;  // of the last batch, per node
  std::vector<std::pair<std::string, std::string>> pinned_conf_;
  int64_t last_trigger_start_ms_ = -1;
  std::chrono::steady_clock::time_point trigger_begin_;
  // When the last batch finished or the last idle trigger was reported (Spark's
  // lastNoExecutionProgressEventTime; none before the run's first report).
  std::optional<int64_t> last_no_execution_report_ms_;
  std::optional<StreamingQueryProgress>
      last_executed_;  // the run's last batch's progress
  int64_t min_batches_to_retain_ = 100;
  int record_partitions_ = 1;    // shuffle partitions of the stateful operators
  bool record_written_ = false;  // spate-query.json written by this run

  std::thread thread_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<int64_t> last_committed_{-1};

  // Shared with callers (status, progress, awaitTermination, processAllAvailable).
  mutable Mutex mu_;
  std::condition_variable cv_;
  bool active_ SPATE_GUARDED_BY(mu_) = false;
  bool terminated_ SPATE_GUARDED_BY(mu_) = false;
  int64_t trigger_seq_ SPATE_GUARDED_BY(mu_) = 0;       // triggers started
  int64_t last_no_data_seq_ SPATE_GUARDED_BY(mu_) = 0;  // the latest trigger without data
  bool poll_wake_ SPATE_GUARDED_BY(mu_) = false;        // ProcessAllAvailable: look now
  std::optional<Status> exception_ SPATE_GUARDED_BY(mu_);
  StreamingQueryStatus status_ SPATE_GUARDED_BY(mu_);
  std::deque<StreamingQueryProgress> progress_ SPATE_GUARDED_BY(mu_);
  sql::BoundPlanPtr last_plan_ SPATE_GUARDED_BY(mu_);
  // The committed offsets, for readers.
  std::vector<std::optional<Json>> committed_snapshot_ SPATE_GUARDED_BY(mu_);
};
using StreamingQueryPtr = std::shared_ptr<StreamingQuery>;

class StreamingQueryManager {
 public:
  StreamingQueryManager() = default;
  ~StreamingQueryManager();
  /// Validates the plan, reads or creates the checkpoint's query id, refuses a second
  /// active query with the same id (CONCURRENT_QUERY) or name, creates the sources and
  /// starts the loop. Returns when the query thread is running.
  Result<StreamingQueryPtr> StartQuery(QueryConfig config);
  std::vector<StreamingQueryPtr> Active() const;
  StreamingQueryPtr Get(const std::string& id) const;
  /// Waits until any query (since the last ResetTerminated) terminated; its exception.
  Status AwaitAnyTermination();
  Result<bool> AwaitAnyTermination(int64_t timeout_ms);
  void ResetTerminated();
  void AddListener(StreamingQueryListenerPtr listener);
  void RemoveListener(const StreamingQueryListenerPtr& listener);
  std::vector<StreamingQueryListenerPtr> Listeners() const;
  /// Stops every active query (session shutdown).
  void StopAll();

 private:
  friend class StreamingQuery;
  void NotifyTerminated(StreamingQuery* q, const std::optional<Status>& error);

  mutable Mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, StreamingQueryPtr> active_ SPATE_GUARDED_BY(mu_);
  std::vector<StreamingQueryListenerPtr> listeners_ SPATE_GUARDED_BY(mu_);
  bool any_terminated_ SPATE_GUARDED_BY(mu_) = false;
  std::optional<Status> last_terminated_error_ SPATE_GUARDED_BY(mu_);
};

}  // namespace spate::stream
