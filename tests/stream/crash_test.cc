// Copyright spate authors.
// Crash tests of the exactly-once protocol: a child process (crash_driver.cc) runs a
// file -> sink query (files, Delta, foreachBatch into Delta by an idempotent append or
// by MERGE) and is killed with SIGKILL
// at every named point of the micro-batch protocol and at random instants inside
// batches; after restarts the output must equal the input exactly (every id once: zero
// lost, zero duplicated). Two processes on one checkpoint must fence each other.
//
//   spate_stream_crash_test <path of spate_stream_crash_driver>
//
// Random kills are timed from the child's own progress: the child reports every protocol
// point it passes on a pipe (SPATE_FAULT_TRACE_FD), the parent kills it a random number
// of points into the run plus a random delay, and a kill counts as landed mid-batch when
// the checkpoint shows a batch begun and not committed (a source log entry beyond
// offsets/N, or offsets/N without commits/N). Each sink must reach a number of landed
// kills (SPATE_CRASH_LANDED_KILLS overrides it; scripts/crash-campaign.sh uses that, and
// SPATE_CRASH_SEED to vary the schedule), and the test prints the counts.
//
// Stateful queries (crash_driver.cc: a windowed aggregation with a watermark in append
// mode into Delta, a keyed aggregation without one in update mode through foreachBatch
// into Delta and in complete mode into the Delta sink, dropDuplicates with a watermark
// into files, a left outer stream-stream range join of the input read twice into Delta),
// each with the memory and the RocksDB state store, get the same treatment:
// killed at every named point (the state commit's own two included) and at random
// instants, restarted until done, and their output compared with an uninterrupted run's
// (itself checked against a model of the query): every key once, with the same
// aggregates. Their input is built so that no row's lateness depends on where the
// batches were cut by the kills (a row is either late under every schedule or under
// none), so the ground truth is one answer.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/connectors/file_sink.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

std::string g_driver;

struct Dir {
  std::string path;
  Dir() {
    const char* tmp = std::getenv("TMPDIR");
    path = spate::io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                               "spate-crash-" + spate::stream::RandomUuid());
    (void)spate::io::LocalFileSystem::Get()->MakeDirs(path);
  }
  ~Dir() { (void)spate::io::LocalFileSystem::Get()->Delete(path, true); }
  std::string operator/(const std::string& n) const {
    return spate::io::JoinPath(path, n);
  }
};

/// Lands file `k` with ids [k*rows, (k+1)*rows).
void Land(const std::string& dir, int k, int rows) {
  std::string text;
  for (int i = k * rows; i < (k + 1) * rows; ++i) {
    text +=
        "{\"id\":" + std::to_string(i) + ",\"payload\":\"p" + std::to_string(i) + "\"}\n";
  }
  auto fs = spate::io::LocalFileSystem::Get();
  (void)fs->MakeDirs(dir);
  char name[32];
  std::snprintf(name, sizeof(name), "f-%05d.json", k);
  ASSERT_TRUE(fs->WriteAtomic(spate::io::JoinPath(dir, name), text).ok());
}

std::string g_sink = "files";

/// How a driver is started.
struct Spawn {
  std::string fault;   // SPATE_FAULT, or none
  bool trace = false;  // report protocol points on a pipe
  int go_fd = -1;      // read end of a pipe to wait on (EOF) before starting, or -1
  int go_close = -1;   // the write end of that pipe, closed in the child
};

/// A started driver: pid, the read end of its trace pipe (-1 without), its stderr file.
struct Child {
  pid_t pid = -1;
  int trace = -1;
  std::string err_path;
};

Child Start(const Dir& d, const Spawn& how) {
  static int seq = 0;
  Child c;
  c.err_path = d / ("stderr-" + std::to_string(seq++));
  int fds[2] = {-1, -1};
  if (how.trace && pipe2(fds, O_CLOEXEC) != 0) ADD_FAILURE() << "pipe";
  const std::string trace_fd = std::to_string(fds[1]);  // no allocation after fork
  pid_t pid = fork();
  if (pid == 0) {
    if (how.go_close >= 0) close(how.go_close);
    if (how.go_fd >= 0) {
      char ch;
      while (read(how.go_fd, &ch, 1) > 0) {
      }
    }
    if (!how.fault.empty())
      setenv("SPATE_FAULT", how.fault.c_str(), 1);
    else
      unsetenv("SPATE_FAULT");
    if (how.trace) {
      fcntl(fds[1], F_SETFD, 0);  // the child keeps the write end across exec
      setenv("SPATE_FAULT_TRACE_FD", trace_fd.c_str(), 1);
    } else {
      unsetenv("SPATE_FAULT_TRACE_FD");
    }
    int err = open(c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) dup2(err, 2);
    execl(g_driver.c_str(), g_driver.c_str(), g_sink.c_str(), (d / "in").c_str(),
          (d / "out").c_str(), (d / "chk").c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  c.pid = pid;
  if (how.trace) {
    close(fds[1]);
    c.trace = fds[0];
  }
  return c;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Waits for the child; returns its wait status.
int Wait(Child& c) {
  int status = 0;
  waitpid(c.pid, &status, 0);
  if (c.trace >= 0) close(c.trace);
  c.trace = -1;
  return status;
}

/// Restarts the driver without faults until it exits cleanly.
void RunToCompletion(const Dir& d) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    Child c = Start(d, {});
    int st = Wait(c);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return;
    ADD_FAILURE() << "driver failed: status " << st << ": " << ReadText(c.err_path);
  }
}

/// Whether the checkpoint shows a batch begun and not committed: the source log has an
/// entry beyond the latest offsets/N, or offsets/N has no commits/N.
bool BatchInFlight(const Dir& d) {
  auto fs = spate::io::LocalFileSystem::Get();
  spate::stream::OffsetSeqLog offsets(fs, d / "chk/offsets");
  spate::stream::CommitLog commits(fs, d / "chk/commits");
  spate::stream::CompactibleLog source(fs, d / "chk/sources/0", 10);
  auto o = offsets.LatestBatchId();
  auto c = commits.LatestBatchId();
  auto s = source.LatestId();
  if (!o.ok() || !c.ok() || !s.ok()) return false;
  if (*o && (!*c || **c < **o)) return true;
  int64_t logged = -1;
  if (*o) {
    auto seq = offsets.Get(**o);
    if (seq.ok() && *seq && !(*seq)->offsets.empty() && (*seq)->offsets[0]) {
      const auto* lo = (*seq)->offsets[0]->Find("logOffset");
      if (lo) logged = lo->int_value();
    }
  }
  return *s && **s > logged;
}

/// Runs the driver with a trace pipe and kills it `points` protocol points into the run
/// plus `delay_us`. Returns whether the kill was delivered (the child had not exited).
bool RunAndKill(const Dir& d, int points, int64_t delay_us) {
  Child c = Start(d, {.trace = true});
  int seen = 0;
  std::string pending;
  bool eof = false;
  while (seen < points && !eof) {
    char buf[256];
    ssize_t n = read(c.trace, buf, sizeof(buf));
    if (n <= 0) {
      eof = true;
      break;
    }
    for (ssize_t i = 0; i < n; ++i) seen += buf[i] == '\n';
  }
  bool killed = false;
  if (!eof) {
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(delay_us);
    while (std::chrono::steady_clock::now() < until) {
    }
    killed = kill(c.pid, SIGKILL) == 0;
  }
  int st = Wait(c);
  return killed && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

/// RunAndKill 1..max_points protocol points in plus 0-400 µs, drawn from `rng`.
bool KillAtRandom(const Dir& d, std::mt19937& rng, int max_points) {
  int points = std::uniform_int_distribution<int>(1, max_points)(rng);
  int64_t delay_us = std::uniform_int_distribution<int64_t>(0, 400)(rng);
  return RunAndKill(d, points, delay_us);
}

/// id -> times seen in the committed output.
std::map<int64_t, int> Output(const Dir& d) {
  std::map<int64_t, int> seen;
  static auto spark =
      spate::api::SparkSession::builder().appName("crash-test").getOrCreate();
  if (g_sink != "files") {
    if (!*spate::io::LocalFileSystem::Get()->Exists(d / "out/_delta_log")) return seen;
    for (const auto& row :
         spark.read().format("delta").load(d / "out").select("id").collect())
      seen[row[0].i64()]++;
    return seen;
  }
  auto files =
      spate::connectors::SinkLogFiles(*spate::io::LocalFileSystem::Get(), d / "out");
  if (!files.ok() || !files->has_value() || (*files)->empty()) return seen;
  for (const auto& row : spark.read().parquet(**files).select("id").collect())
    seen[row[0].i64()]++;
  return seen;
}

struct Tally {
  int lost = 0;
  int duplicated = 0;
};

/// Checks every id of `files` x `rows` is in the output once; returns the counts.
Tally ExpectExactlyOnce(const Dir& d, int files, int rows) {
  auto seen = Output(d);
  Tally t;
  for (int64_t i = 0; i < static_cast<int64_t>(files) * rows; ++i) {
    auto it = seen.find(i);
    if (it == seen.end())
      ++t.lost;
    else if (it->second > 1)
      t.duplicated += it->second - 1;
  }
  EXPECT_EQ(t.lost, 0) << "rows lost";
  EXPECT_EQ(t.duplicated, 0) << "rows duplicated";
  EXPECT_EQ(seen.size(), static_cast<size_t>(files) * rows);
  return t;
}

class NamedPoint : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
};

TEST_P(NamedPoint, KillAndRecover) {
  g_sink = std::get<0>(GetParam());
  const std::string point = std::get<1>(GetParam());
  for (int hit : {1, 2}) {
    Dir d;
    for (int k = 0; k < 3; ++k) Land(d / "in", k, 4);
    Child c = Start(d, {.fault = point + ":" + std::to_string(hit)});
    int st = Wait(c);
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
        << "the fault point was not reached: " << st << ": " << ReadText(c.err_path);
    EXPECT_TRUE(point == "after_commit_log" || BatchInFlight(d))
        << "killed at " << point << " but no batch is in flight";
    Land(d / "in", 3, 4);  // more data arrives while the query is down
    RunToCompletion(d);
    ExpectExactlyOnce(d, 4, 4);
  }
}

// Every (sink, point) a run passes: `after_sink_files` exists only in the file sink and
// `after_sink_commit` not in foreachBatch (`foreachbatch`, `merge`), so those pairs are
// not generated (not skipped).
std::vector<std::tuple<std::string, std::string>> SinkPoints() {
  std::vector<std::tuple<std::string, std::string>> out;
  for (const char* sink : {"files", "delta", "foreachbatch", "merge"}) {
    for (const char* point :
         {"after_planning", "after_offsets_write", "during_processing",
          "after_sink_files", "after_sink_commit", "before_commit_log",
          "after_commit_log"}) {
      const std::string s = sink, p = point;
      if (p == "after_sink_files" && s != "files") continue;
      if (p == "after_sink_commit" && (s == "foreachbatch" || s == "merge")) continue;
      out.emplace_back(s, p);
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Protocol, NamedPoint, ::testing::ValuesIn(SinkPoints()));

/// The random kills' seed: `base`, mixed with SPATE_CRASH_SEED when set (the campaign
/// passes a new one each time, so campaigns do not repeat one schedule).
uint32_t Seed(uint32_t base) {
  const char* v = std::getenv("SPATE_CRASH_SEED");
  return v && *v
             ? base ^ static_cast<uint32_t>(std::strtoul(v, nullptr, 10) * 2654435761u)
             : base;
}

class RandomKill : public ::testing::TestWithParam<std::string> {};

/// Landed kills a sink must reach: SPATE_CRASH_LANDED_KILLS, else a default that keeps
/// the test short (fewer under sanitizers, where a run is ~10x slower).
int LandedKillsWanted(const std::string& sink) {
  if (const char* v = std::getenv("SPATE_CRASH_LANDED_KILLS"); v && *v)
    return std::max(1, std::atoi(v));
  int n = sink == "files" ? 60 : 30;
  return kSanitized ? n / 3 : n;
}

TEST_P(RandomKill, Runs) {
  g_sink = GetParam();
  std::mt19937 rng(Seed(20261130));
  const int wanted = LandedKillsWanted(g_sink);
  int runs = 0, kills = 0, landed = 0;
  Tally total;
  // A run lands 3 files, then up to four times: run the driver, kill it a random number
  // of protocol points in (a batch passes ~6), land one more file. Then it restarts the
  // query to completion and checks the output. Runs go on until enough kills landed
  // inside a batch (bounded, so a driver that never gets that far fails the test).
  while (landed < wanted && runs < 4 * wanted) {
    ++runs;
    Dir d;
    int files = 0;
    for (; files < 3; ++files) Land(d / "in", files, 3);
    for (int k = 0; k < 4; ++k) {
      if (KillAtRandom(d, rng, 18)) {
        ++kills;
        landed += BatchInFlight(d);
      }
      Land(d / "in", files++, 3);
    }
    RunToCompletion(d);
    Tally t = ExpectExactlyOnce(d, files, 3);
    total.lost += t.lost;
    total.duplicated += t.duplicated;
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "random run " << runs << " failed";
      break;
    }
  }
  std::printf(
      "random kills [%s]: %d landed mid-batch of %d kills in %d runs; rows lost %d, "
      "duplicated %d\n",
      g_sink.c_str(), landed, kills, runs, total.lost, total.duplicated);
  RecordProperty("landed_kills", landed);
  RecordProperty("kills", kills);
  EXPECT_GE(landed, wanted) << "too few kills landed inside a batch";
}

INSTANTIATE_TEST_SUITE_P(Sinks, RandomKill,
                         ::testing::Values("files", "delta", "foreachbatch", "merge"));

/// The error class a failed driver reports: the innermost "[CLASS]" of its message
/// (the query's STREAM_FAILED wraps the cause).
std::string ErrorClass(const std::string& message) {
  std::string last;
  for (size_t open = message.find('['); open != std::string::npos;
       open = message.find('[', open + 1)) {
    size_t close = message.find(']', open);
    if (close == std::string::npos) break;
    std::string name = message.substr(open + 1, close - open - 1);
    bool is_class = !name.empty() &&
                    name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_.0123456789") ==
                        std::string::npos;
    if (is_class && name != "STREAM_FAILED") last = name;
  }
  return last;
}

// Two processes on one checkpoint, started at the same instant: put-if-absent fences
// them. A loser stops with CONCURRENT_STREAM_LOG_UPDATE (a log entry the other wrote
// first; exit 3; both can lose: the first loser's source log entry, written before it
// lost offsets/N, fences the winner's next batch), or — Delta sinks, both running the
// same batch — with
// Delta's own conflict: DELTA_PROTOCOL_CHANGED (both created the table: version 0) or
// DELTA_CONCURRENT_TRANSACTION (both committed the same txn version), and for two
// MERGEs of one batch the conflict Delta finds between them. The output stays
// exactly-once, and no file the loser wrote is left in the file sink's folder.
TEST_P(RandomKill, TwoProcessesOneCheckpoint) {
  g_sink = GetParam();
  // At least 10 runs, and more (up to 40) until 4 of them had a loser: started together
  // the two overlap in most runs, but a loaded machine can serialize them.
  const int min_runs = 10, max_runs = 40, min_losers = 4;
  int runs = 0, losers = 0;
  std::map<std::string, int> outcomes;
  for (; runs < max_runs && (runs < min_runs || losers < min_losers); ++runs) {
    Dir d;
    for (int k = 0; k < 4; ++k) Land(d / "in", k, 3);
    int go[2];
    ASSERT_EQ(pipe2(go, O_CLOEXEC), 0);
    Child a = Start(d, {.go_fd = go[0], .go_close = go[1]});
    Child b = Start(d, {.go_fd = go[0], .go_close = go[1]});
    close(go[0]);
    close(go[1]);  // both start now
    int lost_here = 0;
    for (Child* c : {&a, &b}) {
      int st = Wait(*c);
      std::string err = ReadText(c->err_path);
      ASSERT_TRUE(WIFEXITED(st)) << st << ": " << err;
      if (WEXITSTATUS(st) == 0) continue;
      ASSERT_EQ(WEXITSTATUS(st), 3) << err;
      std::string cls = ErrorClass(err);
      std::set<std::string> allowed = {"CONCURRENT_STREAM_LOG_UPDATE"};
      if (g_sink != "files") {
        allowed.insert("DELTA_CONCURRENT_TRANSACTION");
        allowed.insert("DELTA_PROTOCOL_CHANGED");
      }
      if (g_sink == "merge") {  // two MERGEs of one batch: Delta's conflict checks
        for (const char* c : {"DELTA_CONCURRENT_APPEND", "DELTA_CONCURRENT_DELETE_READ",
                              "DELTA_CONCURRENT_DELETE_DELETE"}) {
          allowed.insert(std::string(c) + ".WITHOUT_HINT");
          allowed.insert(std::string(c) + ".WITH_PARTITION_HINT");
        }
        allowed.insert("DELTA_METADATA_CHANGED");
      }
      EXPECT_TRUE(allowed.count(cls)) << "the loser failed with: " << err;
      outcomes[cls]++;
      ++lost_here;
    }
    losers += lost_here > 0;
    if (g_sink == "files") {
      // The loser's part files were deleted: the folder holds exactly the logged files.
      auto logged =
          spate::connectors::SinkLogFiles(*spate::io::LocalFileSystem::Get(), d / "out");
      ASSERT_TRUE(logged.ok() && logged->has_value());
      std::set<std::string> listed((*logged)->begin(), (*logged)->end());
      auto all = spate::io::LocalFileSystem::Get()->List(d / "out", false);
      ASSERT_TRUE(all.ok());
      for (const auto& f : *all) {
        if (f.is_directory) continue;
        EXPECT_TRUE(listed.count(f.path)) << "unlisted file left: " << f.path;
      }
    }
    RunToCompletion(d);
    ExpectExactlyOnce(d, 4, 3);
    if (::testing::Test::HasFailure()) return;
  }
  std::string shown;
  for (const auto& [cls, n] : outcomes) shown += " " + cls + " x" + std::to_string(n);
  std::printf("two processes [%s]: %d of %d runs had a loser; failures:%s\n",
              g_sink.c_str(), losers, runs, shown.c_str());
  RecordProperty("losers", losers);
  EXPECT_GE(losers, min_losers) << "the processes seldom raced";
}

// ---- Stateful queries

// Events of input file k (crash_driver.cc's stateful schema: id, k, v, ts): kRows rows
// 1 s apart from second 10k; from file 1 on a copy of the previous file's first row (a
// duplicate for dropDuplicates, counted again by the aggregations); from file 10 on a
// row at second k % 10, late under every batch schedule. Seconds count from
// 2026-01-01 01:00:00 UTC; the watermark delay is 10 s, windows 20 s every 10 s.
//
// Why no row's lateness depends on the schedule: a batch reads one file, or several
// when a kill fell between the file source's log entry and offsets/N (the restarted
// source takes one more file into the same batch, as Spark's does), so with K such kills
// two consecutive batches read at most 2 + K files. A row of file k is late when its
// window ends at or before the watermark of the batch before its own, and
//   * the rows of file k (ts >= 10k - 10) open windows ending after 10k, while no
//     watermark before file k's batch exceeds (10k - 5) - 10: never late, nor is their
//     window emitted (append) or their dedup key evicted before they arrive;
//   * the late rows (ts <= 9, windows ending by 20 s) of file k >= 10: the batch before
//     theirs starts after file 3 was read (unless 2 batches read files 3..k, 8 or more
//     files: K >= 6, more such kills than any run here can have), so its watermark is
//     >= 35 - 10 = 25 s: always late.
// The join (views: even ids, buys: odd ids, the two sides read by two file sources whose
// batches a kill can cut differently) pairs rows of one file (or a view duplicated into
// the next file with the buy of its first file): when the second row of a pair arrives
// with file k, the watermark (the smaller side's, at most 10(k-1) + 5 - 10) is below both
// rows' event times less the range (>= 10(k-1) - 5 for the stored view, >= 10(k-1) for a
// stored buy), so the partner is neither late nor evicted under any schedule; views'
// NULL rows depend only on the final watermark.
// So the uninterrupted run is the one answer every killed run must reach (update mode,
// whose rows are per batch, is compared by mapping each batch to the file it ended at).
constexpr int kRows = 6;
struct Event {
  int64_t id;
  int64_t ts;  // seconds
  bool late;
};

std::vector<Event> EventsOfFile(int k) {
  std::vector<Event> ev;
  for (int j = 0; j < kRows; ++j)
    ev.push_back({int64_t{k} * kRows + j, int64_t{k} * 10 + j, false});
  if (k >= 1) ev.push_back({int64_t{k - 1} * kRows, int64_t{k - 1} * 10, false});
  if (k >= 10) ev.push_back({100000 + int64_t{k}, int64_t{k % 10}, true});
  return ev;
}

std::string Key(int64_t id) { return "k" + std::to_string(id % 5); }

std::string Clock(int64_t seconds) {  // "2026-01-01 HH:MM:SS", seconds after 01:00
  int64_t t = 3600 + seconds;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "2026-01-01 %02d:%02d:%02d", static_cast<int>(t / 3600),
                static_cast<int>(t / 60 % 60), static_cast<int>(t % 60));
  return buf;
}

void LandEvents(const std::string& dir, int k) {
  std::string text;
  for (const Event& e : EventsOfFile(k)) {
    text += "{\"id\":" + std::to_string(e.id) + ",\"k\":\"" + Key(e.id) +
            "\",\"v\":" + std::to_string(e.id) + ",\"ts\":\"" + Clock(e.ts) + "\"}\n";
  }
  auto fs = spate::io::LocalFileSystem::Get();
  (void)fs->MakeDirs(dir);
  char name[32];
  std::snprintf(name, sizeof(name), "f-%05d.json", k);
  ASSERT_TRUE(fs->WriteAtomic(spate::io::JoinPath(dir, name), text).ok());
}

/// A stateful query's output: key -> the values of every row with that key (a key is
/// one output row of the query: window start + k, batch + k, k, or id).
using Answer = std::map<std::string, std::vector<std::string>>;

std::string QueryOf(const std::string& sink) { return sink.substr(0, sink.find(':')); }

Answer StatefulOutput(const Dir& d, const std::string& query) {
  static auto spark =
      spate::api::SparkSession::builder().appName("crash-test").getOrCreate();
  Answer out;
  auto fs = spate::io::LocalFileSystem::Get();
  if (query == "dedup") {
    auto files = spate::connectors::SinkLogFiles(*fs, d / "out");
    if (!files.ok() || !files->has_value() || (*files)->empty()) return out;
    for (const auto& row : spark.read().parquet(**files).select("id", "k", "v").collect())
      out[std::to_string(row[0].i64())].push_back(row[1].str() + " " +
                                                  std::to_string(row[2].i64()));
    return out;
  }
  if (!*fs->Exists(d / "out/_delta_log")) return out;
  auto table = spark.read().format("delta").load(d / "out");
  if (query == "join") {
    // A view with its matched buy, or with NULLs (once the watermark passed it).
    for (const auto& row : table.select("vid", "vk", "vts", "bid", "bts").collect()) {
      const bool unmatched = row[3].is_null();
      out[std::to_string(row[0].i64()) + " " + row[1].str() + " " + row[2].str() + " " +
          (unmatched ? "NULL" : std::to_string(row[3].i64()))]
          .push_back(unmatched ? "NULL" : row[4].str());
    }
    return out;
  }
  if (query == "window") {
    for (const auto& row : table.select("start", "k", "n", "s").collect())
      out[row[0].str() + " " + row[1].str()].push_back(
          std::to_string(row[2].i64()) + " " + std::to_string(row[3].i64()));
  } else if (query == "update") {
    for (const auto& row : table.select("batch", "k", "n", "s").collect())
      out[std::to_string(row[0].i64()) + " " + row[1].str()].push_back(
          std::to_string(row[2].i64()) + " " + std::to_string(row[3].i64()));
  } else {
    for (const auto& row : table.select("k", "n", "s").collect())
      out[row[0].str()].push_back(std::to_string(row[1].i64()) + " " +
                                  std::to_string(row[2].i64()));
  }
  return out;
}

/// The join query's answer: every view (even v; v = id) that is not late, with each buy
/// (odd v) of its key 0-5 s after it (a row per pair, so a duplicated view pairs twice),
/// or with NULLs when it has none and the final watermark (the smaller of the two sides'
/// max event time, less 10 s: AvailableNow ends with a batch without data) passed its
/// state watermark (vts + 5 s: no buy can match it any more).
Answer JoinModel(int files) {
  std::vector<Event> views, buys;
  int64_t max_view = 0, max_buy = 0;
  for (int b = 0; b < files; ++b) {
    for (const Event& e : EventsOfFile(b)) {
      const bool view = e.id % 2 == 0;
      (view ? max_view : max_buy) = std::max(view ? max_view : max_buy, e.ts);
      if (!e.late) (view ? views : buys).push_back(e);
    }
  }
  const int64_t watermark = std::min(max_view, max_buy) - 10;
  Answer want;
  for (const Event& v : views) {
    const std::string head =
        std::to_string(v.id) + " " + Key(v.id) + " " + Clock(v.ts) + " ";
    bool matched = false;
    for (const Event& b : buys) {
      if (Key(b.id) != Key(v.id) || b.ts < v.ts || b.ts > v.ts + 5) continue;
      want[head + std::to_string(b.id)].push_back(Clock(b.ts));
      matched = true;
    }
    if (!matched && v.ts + 5 <= watermark) want[head + "NULL"].push_back("NULL");
  }
  return want;
}

/// The answer of `query` over files 0..files-1, from the query's semantics (batch b reads
/// file b; no row's lateness depends on the schedule).
Answer Model(const std::string& query, int files) {
  Answer want;
  auto nv = [](int64_t n, int64_t s) {
    return std::to_string(n) + " " + std::to_string(s);
  };
  std::map<std::string, std::pair<int64_t, int64_t>> per_key;
  if (query == "update" || query == "complete") {
    for (int b = 0; b < files; ++b) {
      std::set<std::string> changed;
      for (const Event& e : EventsOfFile(b)) {
        auto& [n, s] = per_key[Key(e.id)];
        ++n;
        s += e.id;
        changed.insert(Key(e.id));
      }
      if (query == "update") {
        for (const auto& k : changed)
          want[std::to_string(b) + " " + k].push_back(
              nv(per_key[k].first, per_key[k].second));
      }
    }
    if (query == "complete") {
      for (const auto& [k, ns] : per_key) want[k].push_back(nv(ns.first, ns.second));
    }
    return want;
  }
  if (query == "join") return JoinModel(files);
  int64_t max_ts = 0;
  std::map<std::string, std::pair<int64_t, int64_t>> windows;  // "start k" -> n, s
  std::map<std::string, int64_t> window_end;
  for (int b = 0; b < files; ++b) {
    for (const Event& e : EventsOfFile(b)) {
      max_ts = std::max(max_ts, e.ts);
      if (e.late) continue;
      if (query == "dedup") {
        want[std::to_string(e.id)] = {Key(e.id) + " " + std::to_string(e.id)};
        continue;
      }
      for (int64_t start : {e.ts / 10 * 10, e.ts / 10 * 10 - 10}) {  // 20 s every 10 s
        std::string key = Clock(start) + " " + Key(e.id);
        windows[key].first++;
        windows[key].second += e.id;
        window_end[key] = start + 20;
      }
    }
  }
  // Append: a window is written once the final watermark (max event time - 10 s) passed
  // its end (AvailableNow ends with a batch without data that evicts).
  for (const auto& [key, ns] : windows) {
    if (window_end[key] <= max_ts - 10) want[key].push_back(nv(ns.first, ns.second));
  }
  return want;
}

struct StatefulTally {
  int lost = 0, duplicated = 0, mismatched = 0;
};

/// Compares an output with the ground truth: a key missing is lost, a key more than once
/// duplicated, a key with other values (or not in the truth) mismatched.
StatefulTally Compare(const Answer& got, const Answer& truth, const std::string& what) {
  StatefulTally t;
  std::string shown;
  for (const auto& [key, want] : truth) {
    auto it = got.find(key);
    if (it == got.end()) {
      ++t.lost;
      shown += " lost(" + key + ")";
      continue;
    }
    if (it->second.size() > want.size()) {
      t.duplicated += static_cast<int>(it->second.size() - want.size());
      shown += " duplicated(" + key + ")";
    } else if (it->second.size() < want.size()) {
      t.lost += static_cast<int>(want.size() - it->second.size());
      shown +=
          " lost(" + key + " x" + std::to_string(want.size() - it->second.size()) + ")";
    }
    for (const auto& v : it->second) {
      if (v != want.front()) {
        ++t.mismatched;
        shown += " mismatched(" + key + ": " + v + " != " + want.front() + ")";
      }
    }
  }
  for (const auto& [key, vals] : got) {
    if (!truth.count(key)) {
      t.mismatched += static_cast<int>(vals.size());
      shown += " unexpected(" + key + ")";
    }
  }
  EXPECT_EQ(t.lost + t.duplicated + t.mismatched, 0)
      << what << ":" << shown.substr(0, 2000);
  return t;
}

/// Update mode writes per batch: a killed run's batch B reads files up to some file b
/// (the same for every key, as every file holds every key), so its rows must be the
/// uninterrupted run's rows of batch b (the running totals after file b). Re-keys `got`
/// by that b (rows matching no batch keep a key of their own, so they count as
/// mismatched) and keeps of `truth` the batches some killed batch ended at, and the last.
void AlignUpdateBatches(Answer* got, Answer* truth) {
  std::map<std::string, int64_t> batch_of;  // "k n s" -> the truth's batch
  int64_t last = -1;
  auto split = [](const std::string& key) {
    size_t sp = key.find(' ');
    return std::make_pair(static_cast<int64_t>(std::stoll(key.substr(0, sp))),
                          key.substr(sp + 1));
  };
  for (const auto& [key, vals] : *truth) {
    auto [b, k] = split(key);
    batch_of[k + " " + vals.front()] = b;
    last = std::max(last, b);
  }
  Answer rekeyed;
  std::set<int64_t> used = {last};
  for (const auto& [key, vals] : *got) {
    auto [batch, k] = split(key);
    for (const auto& v : vals) {
      auto it = batch_of.find(k + " " + v);
      if (it == batch_of.end()) {
        rekeyed["batch " + std::to_string(batch) + " " + k].push_back(v);
        continue;
      }
      used.insert(it->second);
      rekeyed[std::to_string(it->second) + " " + k].push_back(v);
    }
  }
  Answer kept;
  for (const auto& [key, vals] : *truth) {
    if (used.count(split(key).first)) kept[key] = vals;
  }
  *got = std::move(rekeyed);
  *truth = std::move(kept);
}

/// Compares a killed run's output with the ground truth.
StatefulTally CheckOutput(const Dir& d, const std::string& query, Answer truth,
                          const std::string& what) {
  Answer got = StatefulOutput(d, query);
  if (query == "update") AlignUpdateBatches(&got, &truth);
  return Compare(got, truth, what);
}

/// The uninterrupted run's answer over `files` input files, computed once per query
/// (with the first provider that asks; the other's runs are compared with it too) and
/// checked against the model.
const Answer& GroundTruth(const std::string& sink, int files) {
  static std::map<std::pair<std::string, int>, Answer> cache;
  const std::string query = QueryOf(sink);
  auto key = std::make_pair(query, files);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Dir d;
  for (int k = 0; k < files; ++k) LandEvents(d / "in", k);
  RunToCompletion(d);
  Answer truth = StatefulOutput(d, query);
  EXPECT_FALSE(truth.empty()) << sink << ": the uninterrupted run wrote nothing";
  Compare(truth, Model(query, files), sink + " uninterrupted run vs the model");
  return cache.emplace(key, std::move(truth)).first->second;
}

/// Whether batch N's state is committed (some partition of operator 0, or some named
/// store of one, has version N+1)
/// while commits/N is not written: a kill between the state commit and the commit log.
bool StateCommittedNotLogged(const Dir& d) {
  auto fs = spate::io::LocalFileSystem::Get();
  spate::stream::OffsetSeqLog offsets(fs, d / "chk/offsets");
  spate::stream::CommitLog commits(fs, d / "chk/commits");
  auto o = offsets.LatestBatchId();
  auto c = commits.LatestBatchId();
  if (!o.ok() || !c.ok() || !*o || (*c && **c >= **o)) return false;
  const std::string v = std::to_string(**o + 1);
  auto parts = fs->List(d / "chk/state/0", false);
  if (!parts.ok()) return false;
  auto has_version = [&](const std::string& dir) {
    return *fs->Exists(spate::io::JoinPath(dir, v + ".delta")) ||
           *fs->Exists(spate::io::JoinPath(dir, v + ".changelog"));
  };
  for (const auto& p : *parts) {
    if (!p.is_directory) continue;
    if (has_version(p.path)) return true;
    // A join's four named stores: <partition>/<store name>/.
    auto stores = fs->List(p.path, false);
    if (!stores.ok()) continue;
    for (const auto& store : *stores) {
      if (store.is_directory && has_version(store.path)) return true;
    }
  }
  return false;
}

const std::vector<std::string> kStatefulQueries = {
    "window:memory",   "window:rocksdb",   "update:memory", "update:rocksdb",
    "complete:memory", "complete:rocksdb", "dedup:memory",  "dedup:rocksdb",
    "join:memory",     "join:rocksdb"};

class StatefulNamedPoints : public ::testing::TestWithParam<std::string> {};

// One checkpoint per query, killed at every named point in turn (each restart the next
// point, at its first or second pass — alternating, the other way round for the other
// provider — so kills land in a replayed batch, in a process's first batch after a
// restart and in a later one), one more file landing while it is down; then it runs to
// completion and the output must equal the uninterrupted run's.
TEST_P(StatefulNamedPoints, KillAtEachPointAndRecover) {
  g_sink = GetParam();
  const std::string query = QueryOf(g_sink);
  std::vector<std::string> points = {"after_planning",     "after_offsets_write",
                                     "during_processing",  "before_state_commit",
                                     "after_state_commit", "before_commit_log",
                                     "after_commit_log"};
  if (query != "update") points.insert(points.begin() + 3, "after_sink_commit");
  if (query == "dedup") points.insert(points.begin() + 3, "after_sink_files");
  if (kSanitized) {
    // ~5x slower: the points around the state commit only (the others are the stateless
    // tests' and the release run's).
    points = {"during_processing", "before_state_commit", "after_state_commit",
              "after_commit_log"};
  }
  const int parity = g_sink.find("rocksdb") != std::string::npos;
  // 2 files, one per kill, the rest (up to 12: late rows from file 10 on) at the end.
  const int files = std::max(12, 2 + static_cast<int>(points.size()));
  const Answer& truth = GroundTruth(g_sink, files);
  Dir d;
  int landed = 0;
  for (; landed < 2; ++landed) LandEvents(d / "in", landed);
  std::string done;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string& point = points[i];
    const int hit = 1 + static_cast<int>((i + parity) % 2);
    done += " " + point + ":" + std::to_string(hit);
    Child c = Start(d, {.fault = point + ":" + std::to_string(hit)});
    int st = Wait(c);
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
        << point << ":" << hit << " was not reached: " << st << ": "
        << ReadText(c.err_path);
    EXPECT_TRUE(point == "after_commit_log" || BatchInFlight(d))
        << "killed at " << point << " but no batch is in flight";
    if (point == "after_state_commit") {
      EXPECT_TRUE(StateCommittedNotLogged(d)) << "no state version ahead of commits/N";
    }
    // (The points run in protocol order: no earlier kill left a version N+1 behind.)
    if (point == "before_state_commit" || point == "during_processing") {
      EXPECT_FALSE(StateCommittedNotLogged(d)) << "state committed before " << point;
    }
    // One more file while it is down: each process starts with >= 2 batches to run (the
    // backlog never shrinks: a process commits at most hit - 1 batches).
    LandEvents(d / "in", landed++);
  }
  while (landed < files) LandEvents(d / "in", landed++);
  RunToCompletion(d);
  CheckOutput(d, query, truth, g_sink + " killed at" + done);
}

std::string ParamName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name) ch = ch == ':' ? '_' : ch;
  return name;
}

INSTANTIATE_TEST_SUITE_P(Protocol, StatefulNamedPoints,
                         ::testing::ValuesIn(kStatefulQueries), ParamName);

class StatefulRandomKill : public ::testing::TestWithParam<std::string> {};

/// Landed kills a stateful query must reach (SPATE_CRASH_LANDED_KILLS overrides).
int StatefulLandedKillsWanted() {
  if (const char* v = std::getenv("SPATE_CRASH_LANDED_KILLS"); v && *v)
    return std::max(1, std::atoi(v));
  return kSanitized ? 2 : 6;
}

TEST_P(StatefulRandomKill, Runs) {
  g_sink = GetParam();
  const std::string query = QueryOf(g_sink);
  std::mt19937 rng(
      Seed(20261201 ^ static_cast<uint32_t>(std::hash<std::string>{}(g_sink))));
  const int wanted = StatefulLandedKillsWanted();
  const int kFiles = 3 + 5 + 4;
  const Answer& truth = GroundTruth(g_sink, kFiles);
  int runs = 0, kills = 0, landed = 0, in_state_window = 0;
  StatefulTally total;
  // As RandomKill.Runs: 3 files, then five times run, kill a random number of protocol
  // points in (a stateful batch passes ~8) plus 0-400 µs, land one more file; then land
  // the rest (late rows from file 10 on), run to completion and compare with the
  // uninterrupted run.
  while (landed < wanted && runs < 4 * wanted) {
    ++runs;
    Dir d;
    int files = 0;
    for (; files < 3; ++files) LandEvents(d / "in", files);
    for (int k = 0; k < 5; ++k) {
      if (KillAtRandom(d, rng, 24)) {
        ++kills;
        landed += BatchInFlight(d);
        in_state_window += StateCommittedNotLogged(d);
      }
      LandEvents(d / "in", files++);
    }
    while (files < kFiles) LandEvents(d / "in", files++);
    RunToCompletion(d);
    StatefulTally t =
        CheckOutput(d, query, truth, g_sink + " random run " + std::to_string(runs));
    total.lost += t.lost;
    total.duplicated += t.duplicated;
    total.mismatched += t.mismatched;
    if (::testing::Test::HasFailure()) break;
  }
  std::printf(
      "stateful random kills [%s]: %d landed mid-batch of %d kills in %d runs (%d "
      "between "
      "state commit and commit log); rows lost %d, duplicated %d, mismatched %d\n",
      g_sink.c_str(), landed, kills, runs, in_state_window, total.lost, total.duplicated,
      total.mismatched);
  RecordProperty("landed_kills", landed);
  RecordProperty("kills", kills);
  EXPECT_GE(landed, wanted) << "too few kills landed inside a batch";
}

INSTANTIATE_TEST_SUITE_P(Queries, StatefulRandomKill,
                         ::testing::ValuesIn(kStatefulQueries), ParamName);

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <spate_stream_crash_driver>\n", argv[0]);
    return 2;
  }
  g_driver = argv[1];
  return RUN_ALL_TESTS();
}
