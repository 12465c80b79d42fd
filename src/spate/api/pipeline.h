// Copyright spate authors.
#pragma once

// Declarative pipelines, as Spark 4.1's `spark-pipelines` runs them (docs/pipelines.md):
// datasets declared in SQL (or registered from code, as pyspark.pipelines' decorators do)
//
//   CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM read_files('/in', format =>
//   'json'); CREATE TEMPORARY VIEW valid AS SELECT * FROM STREAM(bronze) WHERE amount >=
//   0; CREATE STREAMING TABLE silver AS SELECT * FROM STREAM(valid); CREATE MATERIALIZED
//   VIEW gold AS SELECT event_type, count(*) FROM silver GROUP BY 1; CREATE STREAMING
//   TABLE all_events; CREATE FLOW f AS INSERT INTO all_events BY NAME SELECT * FROM
//   STREAM(silver);
//
// become a graph of flows, run in dependency order (a dataset read by another is updated
// first): each streaming flow is a streaming query into its Delta table with its own
// checkpoint at `<storage>/_checkpoints/<catalog>/<database>/<table>/<flow>/0` (Spark's
// layout), a materialized view is recomputed and its table replaced, a temporary view is
// registered for the flows that read it. A run processes what is available (availableNow,
// the default) or runs continuously (processing-time triggers; materialized views
// refreshed each interval) until stop() or the should_stop callback says so.
//
// Ownership: a Pipeline holds its session (shared) and its definitions. Thread safety:
// one thread defines and runs a pipeline; stop() may be called from any thread (or a
// signal handler's flag through should_stop). Failure: definitions fail with Spark's
// classes (UNSUPPORTED_FEATURE..., PARSE_SYNTAX_ERROR, a duplicate dataset, a cycle); a
// flow that fails is retried (spark.sql.pipelines.maxFlowRetryAttempts, as
// spark-pipelines), then its dependents are skipped and the independent flows run on; the
// run then throws the first failure (flows that ran keep their output and checkpoints, so
// the next run continues from there).

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spate/api/checkpoint_replay.h"
#include "spate/api/dataframe.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/stream/checkpoint_check.h"
#include "spate/stream/trigger.h"

namespace spate::api {

struct PipelineOptions {
  /// Root of the pipeline's checkpoints (spark-pipeline.yml's `storage`; file://
  /// allowed).
  std::string storage;
  /// Database of unqualified dataset names (the spec's `database` / `schema`); the
  /// session's current database when unset.
  std::optional<std::string> database;
  /// Run continuously instead of once (availableNow).
  bool continuous = false;
  /// The processing-time trigger of a continuous run ("10 seconds").
  std::string trigger_interval = "10 seconds";
  /// Datasets (names as defined) whose tables and checkpoints are reset before the run;
  /// full_refresh_all resets every one.
  std::vector<std::string> full_refresh;
  bool full_refresh_all = false;
  /// Validate only (spark-pipelines dry-run): every flow's query is analyzed in order,
  /// later flows reading the datasets as the earlier flows' queries define them; nothing
  /// is written, no table created or refreshed, no checkpoint touched.
  bool dry_run = false;
  /// Polled by a continuous run (every 100 ms): true stops it.
  std::function<bool()> should_stop;
  /// Event lines ("Flow spark_catalog.default.bronze is RUNNING."), as spark-pipelines
  /// logs.
  std::function<void(const std::string&)> on_event;
};

class Pipeline {
 public:
  enum class DatasetKind { kStreamingTable, kMaterializedView, kTemporaryView };
  struct Dataset {
    std::string name;  // as written (`db.t` or `t`)
    DatasetKind kind = DatasetKind::kStreamingTable;
    std::optional<std::string> comment;
    std::vector<std::pair<std::string, std::string>> properties;  // TBLPROPERTIES
    std::vector<std::string> partition_columns;
    SchemaPtr schema;  // declared columns (nullptr: the query's)
  };
  struct Flow {
    std::string name;
    std::string target;  // the dataset it writes
    /// Builds the flow's DataFrame (called when the flow runs, after its inputs).
    std::function<DataFrame()> query;
    /// The datasets it reads when known (SQL); empty with reads_known = false for code
    /// flows, which are then retried until the datasets they read exist.
    std::vector<std::string> reads;
    bool reads_known = false;
    bool reads_stream =
        false;             // SQL: the query reads STREAM(...) / STREAM read_files(...)
    bool by_name = false;  // INSERT INTO ... BY NAME
  };
  /// What a run did per flow.
  struct FlowResult {
    std::string flow, target;
    DatasetKind kind = DatasetKind::kStreamingTable;
    int64_t batches = 0, rows = 0;  // streaming: batches run and their input rows
    /// COMPLETED, FAILED (its error in `error`) or SKIPPED (a dataset it reads failed).
    std::string status = "COMPLETED";
    std::string error;
  };

  Pipeline(SparkSession spark, PipelineOptions options);

  /// Adds the statements of a SQL file (`file` names it in errors): CREATE STREAMING
  /// TABLE, CREATE MATERIALIZED VIEW, CREATE TEMPORARY VIEW, CREATE FLOW ... AS INSERT
  /// INTO ... BY NAME, SET and USE.
  void addSql(const std::string& text, const std::string& file = "");
  void defineDataset(const Dataset& dataset);
  void defineFlow(Flow flow);

  /// The flows in the order a run starts them.
  std::vector<std::string> flowOrder() const;
  /// Runs the pipeline (once, or continuously until stopped). A flow that fails (after
  /// its retries, see run()'s comment in pipeline.cc) has its dependents skipped while
  /// the other flows run on; the run then throws the first failure (on_event has each
  /// flow's fate, and lastRun() its results).
  std::vector<FlowResult> run();
  /// The per-flow results of the last run (also of one that threw).
  const std::vector<FlowResult>& lastRun() const { return last_run_; }
  /// Asks a continuous run to stop (thread-safe).
  void stop() { stop_.store(true); }

  /// `<storage>/_checkpoints/<catalog>/<database>/<table>/<flow>/0`.
  std::string checkpointOf(const Flow& flow) const;

  /// The query of the streaming flow whose checkpoint is `dir`, as a run would start it
  /// (temporary views registered, BY NAME applied), caught by the start hook: nothing
  /// starts. The datasets it reads must exist (a run made them). SPATE_STREAMING_INVALID
  /// when no flow has that checkpoint.
  stream::QueryConfig captureFlow(const std::string& dir);
  /// `spate checkpoint check DIR` of a pipeline (a spark-pipeline.yml spec's run): that
  /// flow's query pre-flighted against its checkpoint (stream/checkpoint_check.h).
  stream::CheckpointCheck checkCheckpoint(const std::string& dir);
  /// `spate checkpoint replay DIR --batch N` of a pipeline: that flow's batch re-run and
  /// compared with what its table committed (api/checkpoint_replay.h).
  BatchReplay replayCheckpoint(const std::string& dir, int64_t batch_id,
                               const std::optional<std::string>& out);

 private:
  std::string Key(const std::string& name) const;  // catalog.database.table, lowercased
  /// Per flow, the flows writing the datasets it reads (SQL flows; code flows: none).
  std::vector<std::vector<size_t>> Dependencies() const;
  /// catalog.database.table of a flow's dataset; a temporary view's flow name.
  std::string Label(const Flow& flow) const;
  /// The flow's query, checked against its dataset's kind (a stream into a streaming
  /// table, a batch query into a materialized view).
  DataFrame PlanFlow(const Flow& flow, const Dataset& dataset) const;
  std::vector<FlowResult> DryRun(const std::vector<std::string>& order);
  const Dataset* FindDataset(const std::string& name) const;
  void Event(const std::string& line) const;

  SparkSession spark_;
  PipelineOptions options_;
  std::vector<Dataset> datasets_;
  std::vector<Flow> flows_;
  std::atomic<bool> stop_{false};
  std::vector<FlowResult> last_run_;
};

/// Starts a streaming flow as a pipeline run does: `df` appended to the Delta table
/// `table` (quoted as written) by a query named `flow` with its checkpoint at
/// `checkpoint`.
StreamingQuery StartStreamingFlow(const DataFrame& df, const std::string& table,
                                  const std::string& flow, const std::string& checkpoint,
                                  const stream::Trigger& trigger);

/// The query of the streaming table (or flow) `name` of a pipeline's SQL text — when
/// empty, the one whose checkpoint DIR is in Spark's pipeline layout
/// (`.../<table>/<flow>/<n>`), else the text's first — as a pipeline run would start it
/// with its checkpoint at `dir`, caught by the start hook (nothing starts). The tables it
/// reads must exist (the session's warehouse). Throws on a SQL error.
stream::QueryConfig CaptureSqlFlow(const SparkSession& spark, const std::string& dir,
                                   const std::string& sql_text, const std::string& name);

/// `spate checkpoint check DIR --query pipeline.sql [--table t]`: CaptureSqlFlow's query
/// handed to the pre-flight check (stream/checkpoint_check.h).
stream::CheckpointCheck CheckSqlFlowAgainstCheckpoint(const SparkSession& spark,
                                                      const std::string& dir,
                                                      const std::string& sql_text,
                                                      const std::string& name);

/// `spate checkpoint replay DIR --batch N --query pipeline.sql`: CaptureSqlFlow's query
/// replaying batch `batch_id` (api/checkpoint_replay.h).
BatchReplay ReplaySqlFlowBatch(const SparkSession& spark, const std::string& dir,
                               const std::string& sql_text, const std::string& name,
                               int64_t batch_id, const std::optional<std::string>& out);

/// The pipeline's SQL statements as a plain spark.sql() refuses them
/// (UNSUPPORTED_FEATURE.CREATE_PIPELINE_DATASET_QUERY_EXECUTION), for callers that run a
/// single streaming table's query outside a pipeline (checkpoint check): the query of the
/// streaming table `name` in `text` (the first one when `name` is empty) as a DataFrame,
/// after running the file's temporary views, SET and USE statements.
DataFrame StreamingTableQuery(const SparkSession& spark, const std::string& text,
                              const std::string& name, std::string* table = nullptr);

}  // namespace spate::api
