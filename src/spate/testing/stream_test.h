// Copyright spate authors.
#pragma once

// The streaming test DSL, modelled on Spark's StreamTest: a test is a list of actions run
// in order against a streaming DataFrame (usually over a MemoryStream) whose output is
// collected by a sink the harness owns, so the rows survive query restarts.
//
//   StreamTest t(spark, input.toDF().selectExpr("a + 1"));
//   std::string err = t.Run({
//       StreamTest::StartStream(),
//       StreamTest::AddData(input, {{Value::Int(1)}}),
//       StreamTest::CheckAnswer({{Value::Int(2)}}),
//       StreamTest::StopStream(),
//       StreamTest::AddData(input, {{Value::Int(2)}}),
//       StreamTest::StartStream(),
//       StreamTest::CheckNewAnswer({{Value::Int(3)}})});
//   EXPECT_EQ(err, "");
//
// Checks never sleep: they wait (bounded by a timeout) until the query has committed the
// offsets every AddData produced — re-checked after each trigger — then compare rows as
// multisets. With a ManualClock and a ProcessingTime trigger, AdvanceClock moves time
// once the query is parked on the clock. Run(actions, /*restart_after_checks=*/true)
// inserts a StopStream + StartStream after every check: every suite must pass in that
// mode too. Run(actions, RunMode) also runs them with the checkpoint (logs and state) in
// a MemoryFileSystem, or with injected faults: every few checkpoint writes one fails, the
// query stops with that I/O error, and the harness starts it again from the checkpoint as
// a user would — the answers must be the same (nothing lost, nothing twice), and a run in
// which no fault was injected fails. A failure returns a report: the action list with
// "=>" at the failing action, the expected and actual rows, the query's last progress and
// exception.
//
// Ownership: the harness owns its checkpoint folder (a fresh temp folder, deleted at
// destruction) and the running query. Thread safety: one thread runs a test.

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "spate/api/session.h"
#include "spate/api/streaming.h"

namespace spate::testing {

using Rows = std::vector<std::vector<Value>>;

class FaultInjectingFileSystem;

/// How StreamTest::Run executes a test's actions.
enum class RunMode {
  kPlain,               // as written
  kRestartAfterChecks,  // StopStream + StartStream after every check
  kMemoryFileSystem,    // the checkpoint in an io::MemoryFileSystem
  kInjectedFaults,      // checkpoint writes fail now and then; the query is restarted
};
/// Every mode, for parameterized suites.
std::vector<RunMode> AllRunModes();
std::string RunModeName(RunMode mode);
/// gtest's parameter names for suites over (RunMode, state store provider):
/// INSTANTIATE_TEST_SUITE_P(Modes, Suite, Combine(ValuesIn(AllRunModes()), ...),
/// ModeAndProviderName()) names them "InjectedFaults_rocksdb".
struct ModeAndProviderName {
  template <class ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    return RunModeName(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
  }
};

/// The harness's sink: rows per batch id, shared by every run of the query; a batch id at
/// or below the latest is skipped (as MemorySink does on a replay).
struct SinkData {
  std::mutex mu;
  int64_t latest = -1;
  std::vector<std::pair<int64_t, Rows>> batches;
  Rows All();
};

class StreamTest {
 public:
  struct Context;
  struct Action {
    std::string name;
    bool is_check = false;
    /// Returns "" on success, else what went wrong.
    std::function<std::string(Context&)> run;
  };

  StreamTest(api::SparkSession spark, api::DataFrame df,
             std::string output_mode = "append");
  ~StreamTest();

  std::string Run(const std::vector<Action>& actions, RunMode mode);
  std::string Run(const std::vector<Action>& actions, bool restart_after_checks = false) {
    return Run(actions,
               restart_after_checks ? RunMode::kRestartAfterChecks : RunMode::kPlain);
  }

  static Action StartStream(stream::Trigger trigger = stream::Trigger::Default(),
                            std::shared_ptr<ManualClock> clock = nullptr);
  static Action StopStream();
  static Action AddData(const api::MemoryStream& source, Rows rows);
  /// Every row in the sink (any order).
  static Action CheckAnswer(Rows rows);
  /// The rows added since the previous check.
  static Action CheckNewAnswer(Rows rows);
  /// The rows of the last batch.
  static Action CheckLastBatch(Rows rows);
  static Action AdvanceClock(int64_t ms);
  /// The query fails; its error text contains `substring`.
  static Action ExpectFailure(std::string substring);
  static Action AssertOnQuery(std::function<bool(const api::StreamingQuery&)> fn,
                              std::string message);
  static Action Execute(std::function<void(Context&)> fn, std::string name = "Execute");

  const std::string& checkpoint() const;

 private:
  std::shared_ptr<Context> ctx_;
};

struct StreamTest::Context {
  api::SparkSession spark;
  api::DataFrame df;
  std::string output_mode;
  std::string checkpoint;
  std::optional<api::StreamingQuery> query;
  /// The last stopped run (its progress stays readable).
  std::optional<api::StreamingQuery> stopped;
  stream::Trigger trigger;
  std::shared_ptr<ManualClock> clock;
  // Output collected from every run: batch id -> rows.
  std::shared_ptr<SinkData> sink;
  size_t rows_at_last_check = 0;
  // Offsets to wait for: (source, offset).
  std::vector<std::pair<std::shared_ptr<connectors::MemoryStream>, int64_t>> awaited;
  // The checkpoint's FileSystem (null: the local one) and, in the fault mode, the
  // injector and how often a failed query was started again.
  std::shared_ptr<io::FileSystem> fs;
  std::shared_ptr<FaultInjectingFileSystem> faults;
  int fault_restarts = 0;
  Context(api::SparkSession s, api::DataFrame d)
      : spark(std::move(s)), df(std::move(d)) {}
};

/// A session for tests (app name `app`) with a warehouse in a fresh temp folder.
api::SparkSession TestSession(const std::string& app);

/// The error text of starting `df` into a memory sink in output mode `mode` (a fresh
/// checkpoint, deleted afterwards); "" when the query starts.
std::string StartError(const api::DataFrame& df, const std::string& mode);

/// Suites run against both state store providers: Spark's class name of "memory"
/// (HDFSBackedStateStoreProvider) or "rocksdb".
std::string StateStoreProviderClass(const std::string& name);

/// Rows as sorted strings ("[1, a]") for multiset comparison and reports.
std::vector<std::string> RowStrings(const Rows& rows);

}  // namespace spate::testing
