// Copyright spate authors.
#pragma once

// `spate checkpoint check DIR --query FILE`: pre-flight of a changed streaming query
// against an existing checkpoint, before anything runs. Each difference between what the
// checkpoint recorded and what the new query would read, keep and write is named with
// Spark's verdict on it (docs/observability.md has the table, checked against Spark 4.2):
//
//   * refused: Spark fails when the query starts (or at its first batch) — with its error
//     class where it has one (STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE,
//     STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA, ...), else its message
//     (the source count is an assertion without a class);
//   * warning: Spark runs, but the answer may silently be wrong or incomplete (the
//     watermark moved to another column, the output mode or sink changed, ...);
//   * safe: Spark runs with well-defined results (a filter added, a projection changed
//     with the same output schema, the watermark delay changed).
//
// What the new query would keep as state comes from the streaming engine's own planner
// (StatefulRuntime::PlanStatefulOperators: operator ids, names, key and value schemas as
// the runtime writes them), and the checkpoint is read with the runtime's readers
// (DescribeCheckpoint, ReadStateSchema, ReadOperatorMetadata). What Spark's checkpoint
// does not hold — the sources' descriptions, the sink, the output mode, the watermark
// columns, the stateless operators — comes from the query record spate writes beside the
// logs (`<checkpoint>/spate-query.json`, QueryShape below) after a run's first committed
// batch; a checkpoint without it (written by Spark, or by an older spate) gets those
// checks reported as not possible.
//
// Thread safety: pure functions over the file system. Nothing under the checkpoint is
// written.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/json.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint_describe.h"
#include "spate/stream/stateful.h"
#include "spate/stream/streaming_query.h"

namespace spate::stream {

/// The program that started a query, recorded in its query record so that `spate
/// checkpoint replay DIR --batch N` and `check DIR` can run it again without --query:
///   * "python": a Python script (`python3 job.py`, `spate submit job.py`): `files` holds
///     its absolute path (empty: Python code not run from a script — an interactive
///     session, `python -c`, a test runner), `args` its sys.argv[1:], `confs` the
///     `spate submit --conf` defaults;
///   * "pipeline": `spate run` of SQL files (`files`, absolute), with its `--conf`s and
///     `--database`; the flow is the one whose checkpoint DIR is;
///   * "c++": a compiled program (`executable`, `args`): it cannot be re-run.
/// `cwd` is the working folder it ran in. Secrets in confs and arguments are redacted.
struct QueryProgram {
  std::string kind;
  std::string cwd;
  std::string executable;
  std::vector<std::string> files;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> confs;
  std::string database;

  Json ToJson() const;  // redacted
  static Result<QueryProgram> FromJson(const Json& v);
};

/// Sets the program this process runs (process-wide; thread-safe); nullopt clears it.
/// `spate run` and the Python package set it before they start queries.
void SetQueryProgram(std::optional<QueryProgram> program);
/// The program set, else this process as a C++ program (/proc/self/exe, its arguments and
/// working folder).
QueryProgram CurrentQueryProgram();

/// The program the query record of the checkpoint at `dir` names, when it can be run
/// again (a Python script, a pipeline's SQL files). Otherwise SPATE_STREAMING_INVALID
/// naming what is missing: no record, a record without the program (an older spate), a
/// C++ program, Python code that was not a script, or files that no longer exist.
Result<QueryProgram> RecordedProgram(io::FileSystem& fs, const std::string& dir);

/// What a streaming query reads, keeps as state and writes: the part of a query a
/// checkpoint depends on.
struct QueryShape {
  struct Source {
    std::string format;  // "json", "kafka", "delta", "rate", "memory", ...
    std::string
        description;  // the progress description (FileStreamSource[file:/in], ...)
  };
  struct Watermark {
    std::string column;
    int64_t delay_ms = 0;
    std::string delay;  // as given ("10 minutes")
  };
  struct Operator {
    int64_t operator_id = 0;
    std::string name;  // Spark's operator name (stateStoreSave, dedupe, ...)
    std::string key_schema, value_schema;  // struct<...>
    int num_partitions = 1;
  };
  std::vector<Source> sources;
  std::string sink;         // Sink::Describe()
  std::string output_mode;  // "Append", "Update", "Complete"
  std::vector<Watermark> watermarks;
  std::vector<Operator> operators;
  std::string output_schema;  // struct<...>
  /// The analyzed plan's node kinds in pre-order (Project, Filter, Aggregate, ...).
  std::vector<std::string> plan;
  /// The program that started the run (WriteQueryRecord fills it from
  /// CurrentQueryProgram() when unset).
  std::optional<QueryProgram> program;

  Json ToJson() const;
  static Result<QueryShape> FromJson(const Json& v);
};

/// The shape of `analyzed` run with `mode` into `sink` (its description), stateful
/// operators planned with `num_partitions` shuffle partitions; also the planned operators
/// with their schemas.
Result<QueryShape> ShapeOfQuery(const sql::BoundPlanPtr& analyzed, OutputMode mode,
                                const std::string& sink, int num_partitions,
                                std::vector<PlannedStatefulOperator>* planned = nullptr);

/// `<checkpoint>/spate-query.json`.
std::string QueryRecordPath(const std::string& checkpoint);
/// Writes the record (atomically; unchanged content is not rewritten), with the program
/// (CurrentQueryProgram() unless `shape.program` is set).
Status WriteQueryRecord(io::FileSystem& fs, const std::string& checkpoint,
                        const QueryShape& shape);
/// The record, nullopt when there is none.
Result<std::optional<QueryShape>> ReadQueryRecord(io::FileSystem& fs,
                                                  const std::string& checkpoint);

/// One change and Spark's verdict on it.
struct CheckFinding {
  enum class Verdict : uint8_t { kSafe, kWarning, kRefused };
  Verdict verdict = Verdict::kSafe;
  /// What changed: source_added, source_removed, source_changed, sink_changed,
  /// stateful_operator_added, stateful_operator_removed, stateful_operator_changed,
  /// state_key_schema_changed, state_value_schema_changed, watermark_column_changed,
  /// watermark_delay_changed, output_mode_changed, filter_added, filter_removed,
  /// projection_changed, output_schema_changed, unsupported_query, not_recorded,
  /// new_checkpoint, unchanged.
  std::string change;
  /// Spark's error class when Spark refuses with one.
  std::optional<std::string> error_class;
  /// The explanation; for a refusal, the error Spark raises.
  std::string message;
};
const char* VerdictName(CheckFinding::Verdict v);  // "safe", "warning", "refused"

struct CheckpointCheck {
  std::string dir;
  std::optional<std::string> query_id;
  std::optional<int64_t> last_committed_batch;
  bool has_record = false;
  std::vector<CheckFinding> findings;
  /// 0 when every finding is safe, 1 with warnings, 2 when Spark would refuse.
  int ExitCode() const;
  Json ToJson() const;
  std::string ToText() const;
};

/// Spark 4.2's check of a restarted query's stateful operators against the operator
/// metadata of its checkpoint (`state/<id>/_metadata/operator` of the operators
/// `ids_on_disk` has folders for): a query with committed batches and no state that now
/// has stateful operators fails with STREAMING_STATEFUL_OPERATOR_MISSING_STATE_DIRECTORY;
/// recorded operators (ids and names) that differ from `planned` fail with
/// STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA (Spark's text). Folders
/// without an operator file (a run that never committed) are not compared. `recorded`
/// gets the recorded operators ("?" for an unknown name). The runtime runs it when a
/// query starts on a checkpoint; `checkpoint check` reports it.
Status CheckStatefulOperatorsAgainstState(
    io::FileSystem& fs, const std::string& state_root,
    const std::vector<int64_t>& ids_on_disk,
    const std::vector<PlannedStatefulOperator>& planned, bool has_committed_batch,
    std::map<int64_t, std::string>* recorded = nullptr);

/// Compares a checkpoint (described, with the runtime's readers) and its record with the
/// new query's shape. `planned` are the new query's stateful operators (their schemas are
/// checked against state/<id>/_metadata/schema as the runtime checks them).
/// `unsupported` is the start-time check's error for the new query, if any.
Result<CheckpointCheck> CompareWithCheckpoint(
    io::FileSystem& fs, const CheckpointDescription& d,
    const std::optional<QueryShape>& recorded, const QueryShape& next,
    const std::vector<PlannedStatefulOperator>& planned, const Status& unsupported);

/// The whole check of `config` (a query that was about to start; nothing started)
/// against the checkpoint at `dir`.
Result<CheckpointCheck> CheckQueryAgainstCheckpoint(const io::FileSystemPtr& fs,
                                                    const std::string& dir,
                                                    const QueryConfig& config);

/// The start hook: while set, StreamingQueryManager::StartQuery hands every query's
/// config to `hook` instead of starting it and returns the hook's status (an error, so
/// that the program does not go on as if a query ran). Process-wide; pass nullptr to
/// clear. `checkpoint check` on a Python file sets it while the script runs.
using QueryStartHook = std::function<Status(const QueryConfig&)>;
void SetQueryStartHook(QueryStartHook hook);
QueryStartHook GetQueryStartHook();
/// The error class StartQuery returns for a query taken by the hook:
/// SPATE_QUERY_NOT_STARTED.
inline constexpr const char* kQueryNotStarted = "SPATE_QUERY_NOT_STARTED";

}  // namespace spate::stream
