// Copyright spate authors.
#include "spate/testing/stream_test.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "spate/connectors/memory.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/streaming_query.h"
#include "spate/testing/fault_file_system.h"

namespace spate::testing {

Rows SinkData::All() {
  std::lock_guard<std::mutex> lock(mu);
  Rows out;
  for (const auto& [id, rows] : batches) out.insert(out.end(), rows.begin(), rows.end());
  return out;
}

namespace {

constexpr int64_t kTimeoutMs = 30000;

std::string RowString(const std::vector<Value>& row) {
  std::string s = "[";
  for (size_t i = 0; i < row.size(); ++i)
    s += (i ? ", " : "") + (row[i].is_null() ? "null" : row[i].ToString());
  return s + "]";
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "  " + x + "\n";
  return s.empty() ? "  (none)\n" : s;
}

std::string Compare(const Rows& expected, const Rows& actual) {
  auto e = RowStrings(expected), a = RowStrings(actual);
  if (e == a) return "";
  return "rows differ\nexpected:\n" + Join(e) + "actual:\n" + Join(a);
}

// Fault mode: how many injected faults at most, one every how many checkpoint writes.
constexpr int kMaxFaults = 4;
constexpr int kFaultEveryNthWrite = 5;
// Restarts after injected faults within one action, at most (a bound against a loop).
constexpr int kMaxRestartsPerAction = 2 * kMaxFaults + 2;

bool IsInjected(const std::string& text) {
  return text.find(kInjectedFault) != std::string::npos;
}

/// Fault mode: when the query stopped on an injected fault, starts it again from its
/// checkpoint (the run that failed stays readable as `stopped`). "" when nothing was to
/// do or the restart worked.
std::string RecoverFromFault(StreamTest::Context& c, bool* restarted) {
  *restarted = false;
  if (!c.faults || !c.query || c.query->isActive()) return "";
  auto e = c.query->exception();
  if (!e || !IsInjected(e->what())) return "";
  c.stopped = c.query;
  c.query.reset();
  ++c.fault_restarts;
  *restarted = true;
  return StreamTest::StartStream(c.trigger, c.clock).run(c);
}

/// Waits until every AddData offset is committed by the running query.
std::string AwaitData(StreamTest::Context& c) {
  for (int attempt = 0;; ++attempt) {
    if (!c.query) return "no query is running";
    auto q = c.query->impl();
    bool ok = q->WaitFor(
        [&] {
          for (const auto& [src, off] : c.awaited) {
            auto committed = q->CommittedOffset(src.get());
            if (!committed || committed->int_value() < off) return false;
          }
          return true;
        },
        kTimeoutMs);
    std::string failure;
    if (!ok) {
      if (auto e = q->exception()) {
        failure = "query failed: " + e->ToString();
      } else {
        return "timed out waiting for the query to process the added data";
      }
    } else if (!c.clock) {
      // Also the batches that follow without new data (a moved watermark evicting
      // state), as Spark's processAllAvailable. A manual clock decides triggers itself.
      Status st = q->ProcessAllAvailable();
      if (!st.ok()) failure = "query failed: " + st.ToString();
    }
    if (failure.empty()) return "";
    bool restarted = false;
    std::string err = RecoverFromFault(c, &restarted);
    if (!err.empty()) return err;
    if (!restarted || attempt >= kMaxRestartsPerAction) return failure;
  }
}

}  // namespace

api::SparkSession TestSession(const std::string& app) {
  const char* tmp = std::getenv("TMPDIR");
  std::string wh = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                "spate-" + app + "-wh-" + stream::RandomUuid());
  return api::SparkSession::builder()
      .appName(app)
      .config("spark.sql.warehouse.dir", wh)
      .getOrCreate();
}

std::string StartError(const api::DataFrame& df, const std::string& mode) {
  const char* tmp = std::getenv("TMPDIR");
  std::string chk =
      io::JoinPath(tmp && *tmp ? tmp : "/tmp", "spate-start-err-" + stream::RandomUuid());
  std::string err;
  try {
    auto q = df.writeStream()
                 .outputMode(mode)
                 .format("memory")
                 .queryName("err_" + stream::RandomUuid().substr(0, 8))
                 .option("checkpointLocation", chk)
                 .start();
    q.stop();
  } catch (const std::exception& e) {
    err = e.what();
  }
  (void)io::LocalFileSystem::Get()->Delete(chk, true);
  return err;
}

std::string StateStoreProviderClass(const std::string& name) {
  return name == "rocksdb"
             ? "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
             : "org.apache.spark.sql.execution.streaming.state."
               "HDFSBackedStateStoreProvider";
}

std::vector<std::string> RowStrings(const Rows& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(RowString(r));
  std::sort(out.begin(), out.end());
  return out;
}

StreamTest::StreamTest(api::SparkSession spark, api::DataFrame df,
                       std::string output_mode)
    : ctx_(std::make_shared<Context>(std::move(spark), std::move(df))) {
  ctx_->output_mode = std::move(output_mode);
  const char* tmp = std::getenv("TMPDIR");
  ctx_->checkpoint = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                  "spate-streamtest-" + stream::RandomUuid());
  ctx_->sink = std::make_shared<SinkData>();
}

std::vector<RunMode> AllRunModes() {
  return {RunMode::kPlain, RunMode::kRestartAfterChecks, RunMode::kMemoryFileSystem,
          RunMode::kInjectedFaults};
}

std::string RunModeName(RunMode mode) {
  switch (mode) {
    case RunMode::kPlain:
      return "Plain";
    case RunMode::kRestartAfterChecks:
      return "RestartAfterChecks";
    case RunMode::kMemoryFileSystem:
      return "MemoryFileSystem";
    case RunMode::kInjectedFaults:
      return "InjectedFaults";
  }
  return "?";
}

StreamTest::~StreamTest() {
  if (ctx_->query) ctx_->query->stop();
  (void)io::LocalFileSystem::Get()->Delete(ctx_->checkpoint, true);  // any mode's
}

const std::string& StreamTest::checkpoint() const { return ctx_->checkpoint; }

std::string StreamTest::Run(const std::vector<Action>& actions, RunMode mode) {
  if (mode == RunMode::kMemoryFileSystem && !ctx_->fs) {
    ctx_->fs = std::make_shared<io::MemoryFileSystem>();
  } else if (mode == RunMode::kInjectedFaults && !ctx_->faults) {
    ctx_->faults = std::make_shared<FaultInjectingFileSystem>(
        io::LocalFileSystem::Get(), kFaultEveryNthWrite, kMaxFaults);
    ctx_->fs = ctx_->faults;
  }
  const bool restart_after_checks = mode == RunMode::kRestartAfterChecks;
  std::vector<Action> plan;
  for (const auto& a : actions) {
    plan.push_back(a);
    if (restart_after_checks && a.is_check) {
      plan.push_back(StopStream());
      Action start = StartStream();
      start.name = "StartStream (restart after check)";
      start.run = [](Context& c) { return StartStream(c.trigger, c.clock).run(c); };
      plan.push_back(start);
    }
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    std::string err = plan[i].run(*ctx_);
    if (err.empty()) continue;
    std::ostringstream os;
    os << "stream test failed: " << err << "\n== actions ==\n";
    for (size_t j = 0; j < plan.size(); ++j)
      os << (j == i ? "=> " : "   ") << plan[j].name << "\n";
    os << "== sink ==\n" << Join(RowStrings(ctx_->sink->All()));
    if (ctx_->query) {
      if (auto p = ctx_->query->lastProgress())
        os << "== last progress ==\n" << p->prettyJson() << "\n";
      if (auto e = ctx_->query->exception())
        os << "== exception ==\n" << e->what() << "\n";
    }
    if (ctx_->faults) {
      os << "== injected faults ==\n"
         << ctx_->faults->faults() << " of " << ctx_->faults->writes() << " writes, "
         << ctx_->fault_restarts << " restarts\n";
    }
    if (ctx_->query) ctx_->query->stop();
    return os.str();
  }
  if (ctx_->query) ctx_->query->stop();
  if (ctx_->faults) {
    if (ctx_->faults->faults() == 0) {
      return "stream test failed: no fault was injected (" +
             std::to_string(ctx_->faults->writes()) + " checkpoint writes)";
    }
    std::printf("injected faults: %d of %lld checkpoint writes, %d restarts\n",
                ctx_->faults->faults(), static_cast<long long>(ctx_->faults->writes()),
                ctx_->fault_restarts);
  }
  return "";
}

StreamTest::Action StreamTest::StartStream(stream::Trigger trigger,
                                           std::shared_ptr<ManualClock> clock) {
  std::string name =
      "StartStream(" + trigger.ToString() + (clock ? ", manual clock" : "") + ")";
  return {
      name, false, [trigger, clock](Context& c) -> std::string {
        if (c.query && c.query->isActive()) return "a query is already running";
        c.trigger = trigger;
        c.clock = clock;
        auto sink = c.sink;
        const bool complete = c.output_mode == "complete";
        try {
          api::DataStreamWriter w = c.df.writeStream();
          w.outputMode(c.output_mode)
              .option("checkpointLocation", c.checkpoint)
              .trigger(trigger)
              .foreachBatch([sink, complete](api::DataFrame batch, int64_t id) {
                {
                  std::lock_guard<std::mutex> lock(sink->mu);
                  if (id <= sink->latest) return;  // replayed batch (like MemorySink)
                }
                Rows rows;
                for (const auto& r : batch.collect()) rows.push_back(r.values());
                std::lock_guard<std::mutex> lock(sink->mu);
                // Complete mode: each batch is the whole result (as MemorySink).
                if (complete) sink->batches.clear();
                sink->batches.emplace_back(id, std::move(rows));
                sink->latest = id;
              });
          if (clock) w.clock(clock);
          if (c.fs) w.fileSystem(c.fs);
          for (int attempt = 0;; ++attempt) {
            try {
              c.query = w.start();
              break;
            } catch (const std::exception& e) {
              // Fault mode: a checkpoint write of the start itself failed; again.
              if (!c.faults || !IsInjected(e.what()) || attempt >= kMaxRestartsPerAction)
                throw;
              ++c.fault_restarts;
            }
          }
        } catch (const std::exception& e) {
          return std::string("start failed: ") + e.what();
        }
        return "";
      }};
}

StreamTest::Action StreamTest::StopStream() {
  return {"StopStream", false, [](Context& c) -> std::string {
            if (!c.query) return "no query to stop";
            c.query->stop();
            c.stopped = c.query;
            if (c.query->isActive()) return "query still active after stop()";
            if (auto e = c.query->exception()) {
              // Fault mode: a query stopped by an injected fault is stopped all the same.
              if (c.faults && IsInjected(e->what())) return "";
              return std::string("query failed: ") + e->what();
            }
            return "";
          }};
}

StreamTest::Action StreamTest::AddData(const api::MemoryStream& source, Rows rows) {
  std::string name = "AddData(" + source.impl()->Describe() + ", " +
                     std::to_string(rows.size()) + " rows)";
  return {name, false, [source, rows](Context& c) -> std::string {
            int64_t off = source.addData(rows);
            for (auto& [src, o] : c.awaited) {
              if (src == source.impl()) {
                o = off;
                return "";
              }
            }
            c.awaited.emplace_back(source.impl(), off);
            return "";
          }};
}

StreamTest::Action StreamTest::CheckAnswer(Rows rows) {
  return {"CheckAnswer(" + std::to_string(rows.size()) + " rows)", true,
          [rows](Context& c) -> std::string {
            std::string err = AwaitData(c);
            if (!err.empty()) return err;
            Rows all = c.sink->All();
            c.rows_at_last_check = all.size();
            return Compare(rows, all);
          }};
}

StreamTest::Action StreamTest::CheckNewAnswer(Rows rows) {
  return {"CheckNewAnswer(" + std::to_string(rows.size()) + " rows)", true,
          [rows](Context& c) -> std::string {
            std::string err = AwaitData(c);
            if (!err.empty()) return err;
            Rows all = c.sink->All();
            Rows fresh(all.begin() + static_cast<std::ptrdiff_t>(
                                         std::min(c.rows_at_last_check, all.size())),
                       all.end());
            c.rows_at_last_check = all.size();
            return Compare(rows, fresh);
          }};
}

StreamTest::Action StreamTest::CheckLastBatch(Rows rows) {
  return {"CheckLastBatch(" + std::to_string(rows.size()) + " rows)", true,
          [rows](Context& c) -> std::string {
            std::string err = AwaitData(c);
            if (!err.empty()) return err;
            Rows last;
            {
              std::lock_guard<std::mutex> lock(c.sink->mu);
              if (!c.sink->batches.empty()) last = c.sink->batches.back().second;
            }
            c.rows_at_last_check = c.sink->All().size();
            return Compare(rows, last);
          }};
}

StreamTest::Action StreamTest::AdvanceClock(int64_t ms) {
  return {"AdvanceClock(" + std::to_string(ms) + ")", false,
          [ms](Context& c) -> std::string {
            if (!c.clock) return "AdvanceClock needs StartStream with a manual clock";
            bool restarted = false;
            std::string recovered = RecoverFromFault(c, &restarted);
            if (!recovered.empty()) return recovered;
            if (c.query && c.query->isActive()) {
              // Wait until the stream thread is parked on the clock (or ended).
              auto q = c.query->impl();
              auto clock = c.clock;
              if (!q->WaitFor([&] { return clock->IsWaiting() || !q->IsActive(); },
                              kTimeoutMs)) {
                return "the query never waited on the clock";
              }
            }
            c.clock->Advance(ms);
            return "";
          }};
}

StreamTest::Action StreamTest::ExpectFailure(std::string substring) {
  return {"ExpectFailure(" + substring + ")", false,
          [substring](Context& c) -> std::string {
            for (int attempt = 0;; ++attempt) {
              if (!c.query) return "no query";
              try {
                if (!c.query->awaitTermination(kTimeoutMs / 1000.0))
                  return "query did not terminate";
              } catch (const api::StreamingQueryException& e) {
                std::string what = e.what();
                if (what.find(substring) != std::string::npos) return "";
                bool restarted = false;
                std::string err = RecoverFromFault(c, &restarted);
                if (!err.empty()) return err;
                if (restarted && attempt < kMaxRestartsPerAction) continue;
                return "unexpected failure: " + what;
              }
              return "query terminated without failure";
            }
          }};
}

StreamTest::Action StreamTest::AssertOnQuery(
    std::function<bool(const api::StreamingQuery&)> fn, std::string message) {
  return {"AssertOnQuery(" + message + ")", false,
          [fn, message](Context& c) -> std::string {
            if (!c.query) return "no query";
            // Right after a restart the new run has run no batch yet (at most Spark's
            // progress of a trigger without data): the assertion is about the run that
            // processed the data (kept by StopStream).
            bool ran = false;
            for (const auto& p : c.query->recentProgress())
              ran |= p.duration_ms.count("addBatch") > 0;
            const api::StreamingQuery& q = !ran && c.stopped ? *c.stopped : *c.query;
            return fn(q) ? "" : "assertion failed: " + message;
          }};
}

StreamTest::Action StreamTest::Execute(std::function<void(Context&)> fn,
                                       std::string name) {
  return {std::move(name), false, [fn](Context& c) -> std::string {
            try {
              fn(c);
            } catch (const std::exception& e) {
              return std::string("exception: ") + e.what();
            }
            return "";
          }};
}

}  // namespace spate::testing
