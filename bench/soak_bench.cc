// Copyright spate authors.
// Long-stream cost (issue 18): does a micro-batch get slower as the table, the Delta log
// and the checkpoint grow? Printed, never pass/fail.
//
//  1. rate-micro-batch (10 rows a batch) -> Delta, default trigger, `rate_batches`
//     batches.
//  2. a file source over `files` small JSON files (maxFilesPerTrigger 5, or
//     SOAK_FILES_PER_TRIGGER) -> Delta,
//     `file_batches` batches.
//
// For each, per-batch triggerExecution / addBatch / latestOffset p50/p99 over the 200
// batches before each report point (1k, 10k, 100k and the end), the ratio of each
// point's p50 to the first window's (the reference: the same query, same run, when its
// table and logs were small), RSS at the same points, and the files and bytes of the
// table and the checkpoint at the end.
//
//   build/release/bench/spate_soak_bench [rate_batches=3000] [files=20000]
//                                        [file_batches=2000] [window=200]
//                                        [max_seconds_per_phase=0 (no limit)]
//
// scripts/soak.sh HOURS runs it in a loop with large counts.
//
// Environment: SOAK_CONF="k=v;k=v" (session conf, e.g. auto-compaction),
// SOAK_FRESH_BATCHES=N (at each report point of phase 1, the same query on a fresh table
// runs N batches beside the long one, in the same process and minutes; the table at the
// end sets the long run's trigger p50/p99 over those minutes against the fresh one's),
// SOAK_VACUUM_EVERY=N (VACUUM beside the stream every N batches; the bytes on disk are
// printed at each point), SOAK_RATE_SINK=noop, SOAK_FILES_PER_TRIGGER, SOAK_LOG_ONLY=N
// (the Delta log alone; with SOAK_LOG_COMPACT_EVERY=K and SOAK_LOG_MINUTES_PER_COMMIT=M,
// weeks of a stream's log on a clock that moves with the commits),
// SOAK_TOMBSTONES=N (memory per tombstone), SOAK_RESIDENT=1 (at each point, the trimmed
// RSS by kind: main arena, thread arenas, other anonymous mappings, file-backed) (see
// main()). Phase 1 ends with the slow batches of each window (at or above its trigger
// p99) by what ran with them — an auto-compaction, a VACUUM, a Delta checkpoint being
// built — read back from the table's `_delta_log` (SlowBatches).

#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "timing.h"

#include "spate/api/readwriter.h"
#include "spate/api/session.h"
#include "spate/api/streaming.h"
#include "spate/base/mapped_allocator.h"
#include "spate/columnar/builder.h"
#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"
#include "spate/table/delta_writer.h"
#include "spate/table/transaction.h"

using namespace spate;  // NOLINT

namespace {

// What is live, not what the allocators keep: the freed mapped blocks kept for reuse
// (base/mapped_allocator.h) and the main arena's free pages.
void TrimAll() {
  ReleaseMappedCache();
  malloc_trim(0);
}

double RssMb() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, rss = 0;
  f >> pages >> rss;
  return static_cast<double>(rss) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

// The anonymous part of the RSS (RssAnon: heaps, thread stacks, mapped blocks), without
// the file-backed pages (code and data of the binary and its libraries, which grow as
// more of their code runs, not with the stream's heap).
double AnonMb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("RssAnon:", 0) == 0)
      return std::atof(line.c_str() + 8) * 1024.0 / 1e6;  // kB
  }
  return 0;
}

// The resident MB of the process's mappings by kind, from /proc/self/smaps: "main heap"
// (glibc's main arena, [heap]), "thread arenas" (the other arenas: read-write anonymous
// mappings at 64 MiB-aligned addresses, glibc's HEAP_MAX_SIZE), "other anon" (mapped
// large blocks, stacks), "file" (the binary and libraries).
std::string ResidentByKind() {
  std::ifstream f("/proc/self/smaps");
  std::string line;
  double main_heap = 0, arenas = 0, anon = 0, file = 0;
  double* kind = nullptr;
  while (std::getline(f, line)) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = "";
    char name[512] = "";
    if (std::sscanf(line.c_str(), "%lx-%lx %7s %*s %*s %*s %511s", &lo, &hi, perms,
                    name) >= 3 &&
        line.find(' ') > line.find('-')) {
      const std::string n = name;
      if (n == "[heap]")
        kind = &main_heap;
      else if (!n.empty() && n[0] == '/')
        kind = &file;
      else if (n.empty() && perms[0] == 'r' && perms[1] == 'w' &&
               (lo & ((64UL << 20) - 1)) == 0)
        kind = &arenas;
      else
        kind = &anon;
      continue;
    }
    if (kind && line.rfind("Rss:", 0) == 0) *kind += std::atof(line.c_str() + 4) / 1024.0;
  }
  char out[160];
  std::snprintf(out, sizeof(out),
                "main heap %.1f, thread arenas %.1f, other anon %.1f, file %.1f MB",
                main_heap, arenas, anon, file);
  return out;
}

// The bytes malloc has handed out and not had back (arenas and mmapped blocks): the live
// heap, whatever the allocator keeps. Against the trimmed RSS it tells growth of live
// objects from fragmentation.
double HeapMb() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd) / 1e6;
}

// Phase names of durationMs, interned: a sample keeps (name index, ms) pairs, so 100,000
// samples cost a few MB of the RSS the bench reports, not a map per batch.
std::vector<std::string>& PhaseNames() {
  static std::vector<std::string> names;
  return names;
}
int32_t PhaseIndex(const std::string& name) {
  auto& names = PhaseNames();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int32_t>(i);
  names.push_back(name);
  return static_cast<int32_t>(names.size() - 1);
}

// Fixed size, kept in one vector reserved for the whole run: the bench's own records are
// one block, not a small allocation per batch among the engine's (which would pin heap
// pages and show in the RSS the bench attributes to the engine).
struct Sample {
  int64_t trigger = 0, add_batch = 0, latest_offset = 0;
  double at = 0;  // seconds since the process started, when the progress came
  int64_t batch_id = 0;
  static constexpr size_t kMaxPhases = 16;
  std::array<std::pair<int32_t, int32_t>, kMaxPhases> all{};  // (PhaseIndex, ms)
  size_t phases = 0;
};

const bench::Steady::time_point kStart = bench::Steady::now();
// kStart on the wall clock (ms since the epoch): commit timestamps and file times are
// set against the samples' times with it.
const int64_t kStartWallMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();

// Records every progress event of the query named `name` (RSS at each of `points`);
// wakes the main thread as each batch comes (WaitFor).
class Recorder final : public api::StreamingQueryListener {
 public:
  Recorder(std::vector<int64_t> points, std::string name, bool quiet = false)
      : points_(std::move(points)), name_(std::move(name)), quiet_(quiet) {
    // Up to the last report point (phases that stop on time stop earlier), at most a
    // million (scripts/soak.sh asks for 1e9 batches and stops on time); reserved pages
    // are not resident until used.
    if (!points_.empty())
      samples_.reserve(static_cast<size_t>(std::min<int64_t>(points_.back(), 1000000)) +
                       64);
  }
  void onQueryProgress(const stream::QueryProgressEvent& e) override {
    if (e.progress.name.value_or("") != name_) return;
    const auto& d = e.progress.duration_ms;
    auto get = [&](const char* k) {
      auto it = d.find(k);
      return it == d.end() ? int64_t{0} : it->second;
    };
    if (e.progress.num_input_rows == 0) return;  // idle triggers are not batches
    std::lock_guard<std::mutex> l(mu_);
    Sample sample{get("triggerExecution"), get("addBatch"), get("latestOffset"),
                  bench::Seconds(kStart), e.progress.batch_id};
    for (const auto& [k, v] : d) {
      if (sample.phases == Sample::kMaxPhases) break;
      sample.all[sample.phases++] = {PhaseIndex(k), static_cast<int32_t>(v)};
    }
    samples_.push_back(sample);
    int64_t n = static_cast<int64_t>(samples_.size());
    if (!quiet_ && std::find(points_.begin(), points_.end(), n) != points_.end()) {
      rss_.push_back(RssMb());
      const double cached = static_cast<double>(MappedCacheBytes()) / 1e6;
      TrimAll();
      trimmed_.push_back(RssMb());
      heap_.push_back(HeapMb());
      anon_.push_back(AnonMb());
      records_.push_back(RecordsMbLocked());
      // A line as each point is reached (a long run stopped early still shows them).
      std::vector<double> t;
      for (int64_t b = std::max<int64_t>(0, n - 1000); b < n; ++b)
        t.push_back(static_cast<double>(samples_[b].trigger));
      std::sort(t.begin(), t.end());
      std::fprintf(stderr,
                   "  [%lld batches] trigger p50 of the last %zu: %.0f ms, RSS %.1f MB "
                   "(untrimmed %.1f, mapped cache %.1f)\n",
                   static_cast<long long>(n), t.size(), t[t.size() / 2], trimmed_.back(),
                   rss_.back(), cached);
      // SOAK_RESIDENT=1: where the trimmed RSS is (main arena, thread arenas, ...).
      if (const char* r = std::getenv("SOAK_RESIDENT"); r && *r == '1')
        std::fprintf(stderr, "  [resident] %s\n", ResidentByKind().c_str());
    }
    cv_.notify_all();
  }
  /// Until `n` batches ran; false when `deadline` (seconds since start, > 0) came first.
  bool WaitFor(int64_t n, double deadline) {
    std::unique_lock<std::mutex> l(mu_);
    auto done = [&] { return static_cast<int64_t>(samples_.size()) >= n; };
    if (deadline <= 0) {
      cv_.wait(l, done);
      return true;
    }
    return cv_.wait_for(
        l, std::chrono::duration<double>(deadline - bench::Seconds(kStart)), done);
  }
  std::vector<Sample> samples() {
    std::lock_guard<std::mutex> l(mu_);
    return samples_;
  }
  std::vector<double> rss() {
    std::lock_guard<std::mutex> l(mu_);
    return rss_;
  }
  std::vector<double> trimmed() {
    std::lock_guard<std::mutex> l(mu_);
    return trimmed_;
  }
  std::vector<double> heap() {
    std::lock_guard<std::mutex> l(mu_);
    return heap_;
  }
  std::vector<double> anon() {
    std::lock_guard<std::mutex> l(mu_);
    return anon_;
  }
  /// The bench's own bytes (its per-batch samples) at each point, in MB: the part of the
  /// RSS that is not the engine's.
  std::vector<double> records() {
    std::lock_guard<std::mutex> l(mu_);
    return records_;
  }
  double RecordsMb() {
    std::lock_guard<std::mutex> l(mu_);
    return RecordsMbLocked();
  }

 private:
  std::vector<int64_t> points_;
  std::string name_;
  bool quiet_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Sample> samples_;
  std::vector<double> rss_, trimmed_, heap_, anon_, records_;

  // The records' resident bytes: the reserved block's pages that samples have touched
  // (the rest is not resident, whether the block was mmapped or came from a heap whose
  // mmap threshold is above it, as with base/malloc_policy.h).
  double RecordsMbLocked() const {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = (samples_.size() * sizeof(Sample) + page - 1) / page * page;
    return static_cast<double>(bytes) / 1e6;
  }
};

double Pct(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1,
                    static_cast<size_t>(q * static_cast<double>(v.size())))];
}

struct DirStats {
  int64_t files = 0, bytes = 0;
};
DirStats Du(const std::string& dir) {
  DirStats s;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      s.files++;
      s.bytes += static_cast<int64_t>(it->file_size(ec));
    }
  }
  return s;
}

std::vector<int64_t> Points(int64_t total, int64_t window) {
  std::vector<int64_t> p;
  // The first window, 1k, 5k, every 10k up to 100k, then every 100k.
  std::vector<int64_t> at{window, 1000, 5000};
  for (int64_t x = 10000; x <= 100000; x += 10000) at.push_back(x);
  for (int64_t x = 200000; x <= 1000000; x += 100000) at.push_back(x);
  for (int64_t x : at)
    if (x <= total && (p.empty() || x > p.back())) p.push_back(x);
  if (p.empty() || p.back() != total) p.push_back(total);
  return p;
}

void Report(const char* title, Recorder& rec, int64_t window,
            std::vector<int64_t> points) {
  auto s = rec.samples();
  auto rss = rec.rss();
  auto trimmed = rec.trimmed();
  auto heap = rec.heap();
  auto anon = rec.anon();
  auto records = rec.records();
  // A run stopped by time: the points reached, then the last batch (RSS now).
  const int64_t n = static_cast<int64_t>(s.size());
  while (!points.empty() && points.back() > n) points.pop_back();
  if (points.empty() || points.back() != n) {
    points.push_back(n);
    rss.resize(points.size() - 1);
    rss.push_back(RssMb());
    trimmed.resize(points.size() - 1);
    TrimAll();
    trimmed.push_back(RssMb());
    heap.resize(points.size() - 1);
    heap.push_back(HeapMb());
    anon.resize(points.size() - 1);
    anon.push_back(AnonMb());
    records.resize(points.size() - 1);
    records.push_back(rec.RecordsMb());
  }
  std::printf("\n%s (%zu batches)\n", title, s.size());
  std::printf("%10s %18s %18s %18s %9s %9s %9s %8s %8s %8s %8s %8s\n", "batches",
              "trigger p50/p99", "addBatch p50/p99", "latestOff p50/p99", "p50/ref",
              "trig/ref", "add/ref", "RSS MB", "trimmed", "engine", "anon", "heap");
  double ref_t = 0, ref_a = 0, ref_p50 = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    int64_t end = std::min<int64_t>(points[i], static_cast<int64_t>(s.size()));
    int64_t begin = std::max<int64_t>(0, end - window);
    std::vector<double> t, a, l;
    for (int64_t b = begin; b < end; ++b) {
      t.push_back(static_cast<double>(s[b].trigger));
      a.push_back(static_cast<double>(s[b].add_batch));
      l.push_back(static_cast<double>(s[b].latest_offset));
    }
    // Means of the window guard against p50 = 0 at ms resolution.
    double mt = 0, ma = 0;
    for (double x : t) mt += x;
    for (double x : a) ma += x;
    mt /= std::max<size_t>(1, t.size());
    ma /= std::max<size_t>(1, a.size());
    const double p50 = Pct(t, 0.5);
    if (i == 0) ref_t = mt, ref_a = ma, ref_p50 = p50;
    char tb[32], ab[32], lb[32];
    std::snprintf(tb, sizeof(tb), "%.0f/%.0f ms", Pct(t, 0.5), Pct(t, 0.99));
    std::snprintf(ab, sizeof(ab), "%.0f/%.0f ms", Pct(a, 0.5), Pct(a, 0.99));
    std::snprintf(lb, sizeof(lb), "%.0f/%.0f ms", Pct(l, 0.5), Pct(l, 0.99));
    const double trim = i < trimmed.size() ? trimmed[i] : 0.0;
    const double rec_mb = i < records.size() ? records[i] : 0.0;
    std::printf(
        "%10lld %18s %18s %18s %8.2fx %8.2fx %8.2fx %8.1f %8.1f %8.1f %8.1f %8.1f\n",
        static_cast<long long>(end), tb, ab, lb, ref_p50 > 0 ? p50 / ref_p50 : 0.0,
        ref_t > 0 ? mt / ref_t : 0.0, ref_a > 0 ? ma / ref_a : 0.0,
        i < rss.size() ? rss[i] : 0.0, trim, trim - rec_mb,
        (i < anon.size() ? anon[i] : 0.0) - rec_mb,
        (i < heap.size() ? heap[i] : 0.0) - rec_mb);
  }
  // Where a trigger's time goes: mean ms per phase, first window vs last.
  auto phases = [&](int64_t begin, int64_t end) {
    std::map<std::string, double> m;
    for (int64_t b = begin; b < end; ++b)
      for (size_t i = 0; i < s[b].phases; ++i) {
        const auto& [k, v] = s[b].all[i];
        m[PhaseNames()[k]] += static_cast<double>(v) / static_cast<double>(end - begin);
      }
    return m;
  };
  if (!s.empty()) {
    int64_t n = static_cast<int64_t>(s.size());
    auto first = phases(0, std::min(window, n));
    auto last = phases(std::max<int64_t>(0, n - window), n);
    std::printf("  phase means (first %lld -> last %lld batches):",
                static_cast<long long>(window), static_cast<long long>(window));
    for (const auto& [k, v] : last) std::printf(" %s %.1f->%.1f", k.c_str(), first[k], v);
    std::printf("\n");
  }
  std::printf(
      "  (p50/ref: trigger median of the %lld batches before the point / median of the "
      "first %lld; trig/ref, add/ref: the same with means; trimmed: RSS after "
      "malloc_trim and ReleaseMappedCache; engine: trimmed less the bench's own "
      "per-batch records; anon: the "
      "anonymous part of engine (heaps, stacks; not the binary's file-backed pages); "
      "heap: the "
      "bytes malloc has handed out, less the same records)\n",
      static_cast<long long>(window), static_cast<long long>(window));
}

// Which batches are slow: at each point, the batches of the window at or above its
// trigger p99, by what ran with them — an auto-compaction after the batch's commit
// (an OPTIMIZE commit right after the batch's), a VACUUM beside the stream, a Delta
// checkpoint being built (from its version's commit to its file's mtime) — and the
// trigger p50/p99 of the compaction batches and of the others. Read from the table's
// `_delta_log` once the stream stopped.
struct Interval {
  double from = 0, to = 0;  // seconds since kStart
};
void SlowBatches(const std::string& table, const std::vector<Sample>& s,
                 const std::vector<int64_t>& points, int64_t window,
                 const std::vector<Interval>& vacuums) {
  const std::string log = io::JoinPath(table, "_delta_log");
  std::map<int64_t, std::string> commits;    // version -> text
  std::map<int64_t, double> checkpoint_end;  // version -> mtime, seconds since kStart
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(log, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const int64_t v = std::atoll(name.c_str());
    if (name.size() == 25 && name.ends_with(".json")) {
      std::ifstream f(it->path());
      commits[v].assign(std::istreambuf_iterator<char>(f), {});
    } else if (name.find(".checkpoint") != std::string::npos) {
      struct stat st {};
      if (::stat(it->path().c_str(), &st) == 0)
        checkpoint_end[v] = (static_cast<double>(st.st_mtim.tv_sec) * 1000.0 +
                             static_cast<double>(st.st_mtim.tv_nsec) / 1e6 -
                             static_cast<double>(kStartWallMs)) /
                            1000.0;
    }
  }
  auto number_after = [](const std::string& text, const char* key) -> int64_t {
    const size_t at = text.find(key);
    return at == std::string::npos ? -1 : std::atoll(text.c_str() + at + strlen(key));
  };
  std::map<int64_t, bool> compacted;  // batch id -> an OPTIMIZE commit followed
  std::vector<Interval> checkpoints;
  int64_t last_batch = -1;
  for (const auto& [v, text] : commits) {
    const bool optimize = text.find("\"operation\":\"OPTIMIZE\"") != std::string::npos;
    if (optimize && last_batch >= 0) compacted[last_batch] = true;
    const size_t txn = text.find("\"txn\":");
    if (txn != std::string::npos)
      last_batch = number_after(text.substr(txn), "\"version\":");
    if (auto c = checkpoint_end.find(v); c != checkpoint_end.end()) {
      const int64_t ts = number_after(text, "\"timestamp\":");
      checkpoints.push_back(
          {(static_cast<double>(ts - kStartWallMs)) / 1000.0, c->second});
    }
  }
  auto overlaps = [](const std::vector<Interval>& all, double from, double to) {
    for (const auto& i : all)
      if (i.from <= to && from <= i.to) return true;
    return false;
  };
  std::printf(
      "  slow batches (>= the window's trigger p99) by what ran with them, and the "
      "trigger p50/p99 of compaction batches and of the others (%zu commits, %zu "
      "checkpoints read):\n%10s %6s %11s %7s %10s %7s %18s %18s %18s\n",
      commits.size(), checkpoints.size(), "batches", "slow", "compaction", "VACUUM",
      "checkpoint", "other", "compaction p50/p99", "others p50/p99", "slow add/wal/co");
  for (int64_t point : points) {
    const int64_t end = std::min<int64_t>(point, static_cast<int64_t>(s.size()));
    const int64_t begin = std::max<int64_t>(0, end - window);
    std::vector<double> t, comp, other;
    for (int64_t b = begin; b < end; ++b) t.push_back(static_cast<double>(s[b].trigger));
    const double p99 = Pct(t, 0.99);
    int64_t slow = 0, n_comp = 0, n_vac = 0, n_chk = 0, n_other = 0;
    double add = 0, wal = 0, co = 0;
    for (int64_t b = begin; b < end; ++b) {
      const bool c = compacted.count(s[b].batch_id) > 0;
      (c ? comp : other).push_back(static_cast<double>(s[b].trigger));
      if (static_cast<double>(s[b].trigger) < p99) continue;
      ++slow;
      const double to = s[b].at, from = to - static_cast<double>(s[b].trigger) / 1000.0;
      const bool v = overlaps(vacuums, from, to), k = overlaps(checkpoints, from, to);
      n_comp += c;
      n_vac += v;
      n_chk += k;
      n_other += !c && !v && !k;
      for (size_t i = 0; i < s[b].phases; ++i) {
        const std::string& name = PhaseNames()[s[b].all[i].first];
        const double ms = s[b].all[i].second;
        if (name == "addBatch") add += ms;
        if (name == "walCommit") wal += ms;
        if (name == "commitOffsets") co += ms;
      }
    }
    char cb[32], ob[32], pb[48];
    std::snprintf(cb, sizeof(cb), "%.0f/%.0f ms", Pct(comp, 0.5), Pct(comp, 0.99));
    std::snprintf(ob, sizeof(ob), "%.0f/%.0f ms", Pct(other, 0.5), Pct(other, 0.99));
    const double k = static_cast<double>(std::max<int64_t>(1, slow));
    std::snprintf(pb, sizeof(pb), "%.0f/%.0f/%.0f", add / k, wal / k, co / k);
    std::printf("%10lld %6lld %11lld %7lld %10lld %7lld %18s %18s %18s\n",
                static_cast<long long>(end), static_cast<long long>(slow),
                static_cast<long long>(n_comp), static_cast<long long>(n_vac),
                static_cast<long long>(n_chk), static_cast<long long>(n_other), cb, ob,
                pb);
  }
}

// The remove action of a file that compaction re-packed (as the writer commits it).
table::RemoveFile CompactedAway(const table::AddFile& f, int64_t now_ms) {
  return table::RemoveOf(f, now_ms, /*data_change=*/false);
}

void PrintDisk(const std::string& what, const std::string& dir) {
  auto d = Du(dir);
  std::printf("  %-34s %8lld files %10.1f MB\n", what.c_str(),
              static_cast<long long>(d.files), static_cast<double>(d.bytes) / 1e6);
}

// What the main thread does while a long stream runs: VACUUM every `vacuum_every` batches
// (0: never), the bytes on disk at each report point, and `at_point` (fresh-table runs).
struct Upkeep {
  std::vector<std::string> disk_rows;
  std::vector<double> vacuum_ms;
  std::vector<Interval> vacuums;
  int64_t vacuum_every = 0;

  void Run(api::SparkSession& spark, Recorder& rec, const std::vector<int64_t>& points,
           double deadline, const std::string& table, const std::string& checkpoint,
           const std::function<void(int64_t)>& at_point) {
    int64_t next_vacuum =
        vacuum_every > 0 ? vacuum_every : std::numeric_limits<int64_t>::max();
    for (size_t i = 0; i < points.size();) {
      const int64_t next = std::min(points[i], next_vacuum);
      if (!rec.WaitFor(next, deadline)) break;
      if (next == next_vacuum) {
        auto v0 = bench::Steady::now();
        spark.sql("VACUUM delta.`" + table + "`").collect();
        vacuum_ms.push_back(bench::Seconds(v0) * 1000);
        vacuums.push_back(
            {bench::Seconds(kStart) - vacuum_ms.back() / 1000.0, bench::Seconds(kStart)});
        next_vacuum += vacuum_every;
      }
      if (next != points[i]) continue;
      // Bytes on disk at the point: data files, the Delta log, the stream checkpoint.
      const DirStats all = Du(table), log = Du(io::JoinPath(table, "_delta_log")),
                     chk = Du(checkpoint);
      char line[256];
      std::snprintf(
          line, sizeof(line), "%10lld %10lld %10.1f %10lld %10.1f %9lld %8.1f",
          static_cast<long long>(points[i]),
          static_cast<long long>(all.files - log.files),
          static_cast<double>(all.bytes - log.bytes) / 1e6,
          static_cast<long long>(log.files), static_cast<double>(log.bytes) / 1e6,
          static_cast<long long>(chk.files), static_cast<double>(chk.bytes) / 1e6);
      std::fprintf(stderr, "  [on disk] %s\n", line);
      disk_rows.emplace_back(line);
      if (at_point) at_point(points[i]);
      ++i;
    }
  }

  void Print() const {
    if (!disk_rows.empty()) {
      std::printf(
          "  on disk at each point (data files, Delta log, stream checkpoint):\n"
          "%10s %10s %10s %10s %10s %9s %8s\n",
          "batches", "data files", "data MB", "log files", "log MB", "chk files",
          "chk MB");
      for (const auto& r : disk_rows) std::printf("%s\n", r.c_str());
    }
    if (!vacuum_ms.empty()) {
      std::printf("  VACUUM every %lld batches: %zu runs, mean %.0f ms, max %.0f ms\n",
                  static_cast<long long>(vacuum_every), vacuum_ms.size(),
                  std::accumulate(vacuum_ms.begin(), vacuum_ms.end(), 0.0) /
                      static_cast<double>(vacuum_ms.size()),
                  *std::max_element(vacuum_ms.begin(), vacuum_ms.end()));
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  int64_t rate_batches = argc > 1 ? std::atoll(argv[1]) : 3000;
  int64_t files = argc > 2 ? std::atoll(argv[2]) : 20000;
  int64_t file_batches = argc > 3 ? std::atoll(argv[3]) : 2000;
  int64_t window = argc > 4 ? std::atoll(argv[4]) : 200;
  double max_seconds = argc > 5 ? std::atof(argv[5]) : 0;
  auto fs = io::LocalFileSystem::Get();
  const char* tmp = std::getenv("TMPDIR");
  std::string root = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                                  "spate-soak-bench-" + stream::RandomUuid());
  auto spark = api::SparkSession::builder().appName("soak-bench").getOrCreate();
  spark.conf().set("spark.sql.shuffle.partitions", "1");
  // SOAK_CONF="key=value;key=value": session conf for the run (e.g. auto-compaction,
  // spark.databricks.delta.properties.defaults.logRetentionDuration).
  if (const char* c = std::getenv("SOAK_CONF"); c && *c) {
    std::string all = c;
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(';', start);
      if (end == std::string::npos) end = all.size();
      std::string kv = all.substr(start, end - start);
      if (size_t eq = kv.find('='); eq != std::string::npos) {
        spark.conf().set(kv.substr(0, eq), kv.substr(eq + 1));
        std::printf("conf %s\n", kv.c_str());
      }
      start = end + 1;
    }
  }
  // SOAK_FILES_PER_TRIGGER: the file source's maxFilesPerTrigger (default 5).
  const char* fpt_env = std::getenv("SOAK_FILES_PER_TRIGGER");
  const int64_t files_per_trigger = fpt_env && *fpt_env ? std::atoll(fpt_env) : 5;
  // SOAK_VACUUM_EVERY=N: every N batches the main thread runs VACUUM on the long stream's
  // table (a user's maintenance job beside the stream), with the table's
  // deletedFileRetentionDuration (e.g. SOAK_CONF=spark.databricks.delta.properties.
  // defaults.deletedFileRetentionDuration=interval 5 minutes).
  const char* vacuum_env = std::getenv("SOAK_VACUUM_EVERY");
  const int64_t vacuum_every = vacuum_env && *vacuum_env ? std::atoll(vacuum_env) : 0;

  // ---- 0a. (SOAK_TOMBSTONES=N) the memory a snapshot's tombstones hold: N files added
  // (1,000 a commit) and removed as auto-compaction removes them, in memory; a fresh
  // load of the log keeps them all (within the retention); bytes per tombstone =
  // allocated bytes while the loaded snapshot is held / N.
  if (const char* n_env = std::getenv("SOAK_TOMBSTONES"); n_env && *n_env) {
    const int64_t n = std::atoll(n_env);
    auto mem = std::make_shared<io::MemoryFileSystem>();
    std::string path = "/tombstones";
    auto schema = std::make_shared<const Schema>(
        std::vector<Field>{{"id", DataType::Long(), true, ""}});
    auto batch =
        Batch::Make(schema, {ColumnFromValues(DataType::Long(), {Value::Long(1)})}, 1);
    table::DeltaWriteOptions create;
    create.mode = "append";
    create.options = {{"delta.checkpointInterval", "1000000000"}};
    if (!table::WriteBatches(mem, path, {batch}, create).ok()) return 1;
    {
      auto log = std::make_shared<const table::DeltaLog>(mem, path);
      for (int64_t done = 0; done < n;) {
        const int64_t k = std::min<int64_t>(1000, n - done);
        std::vector<table::AddFile> adds;
        for (int64_t i = 0; i < k; ++i) {
          table::AddFile f;
          f.path = "part-00000-" + stream::RandomUuid() + "-c000.snappy.parquet";
          f.size = 500;
          adds.push_back(f);
        }
        for (int pass = 0; pass < 2; ++pass) {
          auto snap = log->Latest();
          if (!snap.ok()) return 1;
          table::OptimisticTransaction txn(log, *snap);
          std::vector<table::Action> actions;
          for (const auto& f : adds) {
            if (pass == 0) {
              actions.push_back(table::Action::Of(f));
              continue;
            }
            actions.push_back(table::Action::Of(CompactedAway(f, log->NowMs())));
          }
          table::CommitInfo ci;
          ci.operation = pass == 0 ? "STREAMING UPDATE" : "OPTIMIZE";
          if (!txn.Commit(std::move(actions), ci).ok()) return 1;
        }
        done += k;
      }
    }
    table::DeltaLog::ClearProcessCache();
    TrimAll();
    // Allocated bytes: small chunks in every arena plus mmapped large ones.
    auto allocated = [] {
      auto m = mallinfo2();
      return m.uordblks + m.hblkhd;
    };
    const auto before = allocated();
    size_t count = 0, held = 0, as_values = 0;
    {
      auto snap = table::DeltaLog(mem, path).Latest();
      if (!snap.ok()) return 1;
      const auto& tombstones = (*snap)->tombstones();
      count = tombstones.size();
      held = allocated() - before;
      // The same tombstones as RemoveFile values (how snapshots held them before
      // TombstoneList), measured beside it.
      const auto values_before = allocated();
      std::vector<table::RemoveFile> values;
      values.reserve(count);
      for (const auto& r : tombstones) values.push_back(r);
      as_values = allocated() - values_before;
    }
    auto per = [&](size_t bytes) {
      return count ? static_cast<double>(bytes) / static_cast<double>(count) : 0.0;
    };
    std::printf(
        "\ntombstones: %zu held by a loaded snapshot: %.1f MB allocated, %.0f bytes "
        "each; as RemoveFile values: %.1f MB, %.0f bytes each (%.1fx)\n",
        count, static_cast<double>(held) / 1e6, per(held),
        static_cast<double>(as_values) / 1e6, per(as_values),
        held ? static_cast<double>(as_values) / static_cast<double>(held) : 0.0);
  }

  // ---- 0. (SOAK_LOG_ONLY=N) the Delta log layer alone: N one-file commits through one
  // long-lived DeltaLog (as the sink), background checkpoints; commit p50/p99, RSS and
  // the log's files and bytes at each tenth. SOAK_LOG_COMPACT_EVERY=K: after every K
  // appends, a commit removes the K files and the previous compaction's output and adds
  // one file (as auto-compaction re-packs the files below its minFileSize), so the live
  // files stay at most K + 1 and the tombstones are those of the retention.
  // SOAK_LOG_MINUTES_PER_COMMIT=M: the log's clock (commit timestamps, tombstone deletion
  // times, log cleanup's cutoff) starts now and moves M minutes a commit, so N commits
  // span N * M minutes of a stream's life with Delta's default retentions (30 days of
  // log, a week of tombstones) and its day-truncated log cleanup.
  if (const char* n_env = std::getenv("SOAK_LOG_ONLY"); n_env && *n_env) {
    const int64_t n = std::atoll(n_env);
    const char* k_env = std::getenv("SOAK_LOG_COMPACT_EVERY");
    const int64_t compact_every = k_env && *k_env ? std::atoll(k_env) : 0;
    const char* m_env = std::getenv("SOAK_LOG_MINUTES_PER_COMMIT");
    const double minutes_per_commit = m_env && *m_env ? std::atof(m_env) : 0;
    std::string path = io::JoinPath(root, "log-only");
    auto schema = std::make_shared<const Schema>(
        std::vector<Field>{{"id", DataType::Long(), true, ""}});
    auto batch =
        Batch::Make(schema, {ColumnFromValues(DataType::Long(), {Value::Long(1)})}, 1);
    table::DeltaWriteOptions append;
    append.mode = "append";
    if (!table::WriteBatches(fs, path, {batch}, append).ok()) return 1;
    auto commits = std::make_shared<std::atomic<int64_t>>(0);
    table::NowFn now = table::SystemNow();
    if (minutes_per_commit > 0) {
      const int64_t base = now();
      now = [base, commits, minutes_per_commit] {
        return base + static_cast<int64_t>(static_cast<double>(commits->load()) *
                                           minutes_per_commit * 60000.0);
      };
    }
    auto log = std::make_shared<const table::DeltaLog>(fs, path, now);
    std::vector<double> us;
    std::printf(
        "\nDelta log only: %lld commits of one fake file (background checkpoints)%s\n",
        static_cast<long long>(n),
        minutes_per_commit > 0 ? ", the log's clock moving with the commits" : "");
    std::printf("%10s %10s %14s %14s %8s %8s %10s %10s\n", "commits", "log days",
                "commit p50 ms", "commit p99 ms", "RSS MB", "trimmed", "log files",
                "log MB");
    auto fake_file = [] {
      table::AddFile f;
      f.path = "part-00000-" + stream::RandomUuid() + "-c000.snappy.parquet";
      f.size = 500;
      f.stats =
          "{\"numRecords\":10,\"minValues\":{\"timestamp\":\"2026-01-01T00:00:00.000Z\","
          "\"value\":0},\"maxValues\":{\"timestamp\":\"2026-01-01T00:00:09.000Z\","
          "\"value\":9},\"nullCount\":{\"timestamp\":0,\"value\":0}}";
      return f;
    };
    std::vector<table::AddFile> uncompacted;
    std::optional<table::AddFile> packed;  // the previous compaction's output
    const int64_t start_ms = now();
    for (int64_t i = 1; i <= n; ++i) {
      auto t0 = bench::Steady::now();
      auto snap = log->Latest();
      if (!snap.ok()) return 1;
      table::OptimisticTransaction txn(log, *snap);
      txn.set_async_checkpoint(true);
      std::vector<table::Action> actions;
      table::CommitInfo ci;
      if (compact_every > 0 &&
          static_cast<int64_t>(uncompacted.size()) == compact_every) {
        if (packed) uncompacted.push_back(*packed);
        for (const auto& f : uncompacted)
          actions.push_back(table::Action::Of(CompactedAway(f, log->NowMs())));
        packed = fake_file();
        packed->data_change = false;
        actions.push_back(table::Action::Of(*packed));
        uncompacted.clear();
        ci.operation = "OPTIMIZE";
      } else {
        uncompacted.push_back(fake_file());
        actions.push_back(table::Action::Of(uncompacted.back()));
        ci.operation = "STREAMING UPDATE";
      }
      if (!txn.Commit(std::move(actions), ci).ok()) return 1;
      commits->fetch_add(1);
      us.push_back(bench::Seconds(t0) * 1e6);
      if (i % (n / 10 > 0 ? n / 10 : 1) == 0) {
        (void)log->WaitForBackgroundCheckpoints();
        double rss = RssMb();
        TrimAll();
        std::vector<double> last(
            us.end() - std::min<int64_t>(static_cast<int64_t>(us.size()), 500), us.end());
        const DirStats d = Du(io::JoinPath(path, "_delta_log"));
        std::printf("%10lld %10.1f %14.2f %14.2f %8.1f %8.1f %10lld %10.1f\n",
                    static_cast<long long>(i),
                    static_cast<double>(now() - start_ms) / 86400000.0,
                    Pct(last, 0.5) / 1000, Pct(last, 0.99) / 1000, rss, RssMb(),
                    static_cast<long long>(d.files), static_cast<double>(d.bytes) / 1e6);
        std::fflush(stdout);
      }
    }
  }

  // ---- 1. rate-micro-batch -> Delta
  if (rate_batches > 0) {
    auto points = Points(rate_batches, window);
    auto rec = std::make_shared<Recorder>(points, "soak-rate");
    spark.streams().addListener(rec);
    // SOAK_RATE_SINK=noop: the same stream into the noop sink (what the engine itself
    // costs per batch, without Delta).
    const char* sink_env = std::getenv("SOAK_RATE_SINK");
    std::string sink = sink_env && *sink_env ? sink_env : "delta";
    auto rate_stream = [&](const std::string& name, const std::string& dir) {
      auto w = spark.readStream()
                   .format("rate-micro-batch")
                   .option("rowsPerBatch", 10)
                   .load()
                   .writeStream()
                   .format(sink)
                   .queryName(name)
                   .option("checkpointLocation", io::JoinPath(dir, "rate-chk"));
      return sink == "delta" ? w.start(io::JoinPath(dir, "rate-table")) : w.start();
    };
    auto q = rate_stream("soak-rate", root);
    auto t0 = bench::Steady::now();
    const double deadline = max_seconds > 0 ? bench::Seconds(kStart) + max_seconds : 0;
    // SOAK_FRESH_BATCHES=N: at each report point, the same query on a fresh table and
    // checkpoint runs N batches beside the long one (same process, same minutes); its
    // trigger p50/p99 is set against the long run's batches of those minutes.
    const char* fresh_env = std::getenv("SOAK_FRESH_BATCHES");
    const int64_t fresh_batches = fresh_env && *fresh_env ? std::atoll(fresh_env) : 0;
    Upkeep upkeep;
    upkeep.vacuum_every = sink == "delta" ? vacuum_every : 0;
    std::vector<std::string> fresh_rows;
    auto fresh_run = [&](int64_t point) {
      if (fresh_batches <= 0) return;
      // The same query on a fresh table and checkpoint runs N batches beside the long one
      // (same process, same minutes); its trigger p50/p99 is set against the long run's
      // batches of those minutes.
      const std::string name = "soak-fresh-" + std::to_string(point);
      const std::string dir = io::JoinPath(root, name);
      auto fresh = std::make_shared<Recorder>(std::vector<int64_t>{}, name, true);
      spark.streams().addListener(fresh);
      const double from = bench::Seconds(kStart);
      const int64_t long_from = static_cast<int64_t>(rec->samples().size());
      auto fq = rate_stream(name, dir);
      fresh->WaitFor(fresh_batches, deadline);
      const double to = bench::Seconds(kStart);
      fq.stop();
      spark.streams().removeListener(fresh);
      std::vector<double> f, l;
      for (const auto& x : fresh->samples()) f.push_back(static_cast<double>(x.trigger));
      for (const auto& x : rec->samples())
        if (x.at >= from && x.at <= to) l.push_back(static_cast<double>(x.trigger));
      char line[256];
      std::snprintf(line, sizeof(line),
                    "%10lld %8zu %14.0f/%-5.0f %8zu %14.0f/%-5.0f %7.2fx %7.2fx",
                    static_cast<long long>(long_from), l.size(), Pct(l, 0.5),
                    Pct(l, 0.99), f.size(), Pct(f, 0.5), Pct(f, 0.99),
                    Pct(f, 0.5) > 0 ? Pct(l, 0.5) / Pct(f, 0.5) : 0.0,
                    Pct(f, 0.99) > 0 ? Pct(l, 0.99) / Pct(f, 0.99) : 0.0);
      std::fprintf(stderr, "  [side by side] %s\n", line);
      fresh_rows.emplace_back(line);
      std::filesystem::remove_all(dir);
    };
    if (sink == "delta") {
      upkeep.Run(spark, *rec, points, deadline, io::JoinPath(root, "rate-table"),
                 io::JoinPath(root, "rate-chk"), fresh_run);
    } else {
      for (int64_t point : points) {
        if (!rec->WaitFor(point, deadline)) break;
        fresh_run(point);
      }
    }
    rec->WaitFor(rate_batches, deadline);
    double secs = bench::Seconds(t0);
    q.stop();
    spark.streams().removeListener(rec);
    Report(("rate-micro-batch 10 rows/batch -> " + sink).c_str(), *rec, window, points);
    std::printf("  %.1f s, %.0f batches/s\n", secs,
                static_cast<double>(rec->samples().size()) / secs);
    if (!fresh_rows.empty()) {
      std::printf(
          "  side by side with a fresh table (%lld batches each, same minutes), "
          "trigger ms:\n%10s %8s %20s %8s %20s %8s %8s\n",
          static_cast<long long>(fresh_batches), "at batch", "long n", "long p50/p99",
          "fresh n", "fresh p50/p99", "p50 x", "p99 x");
      for (const auto& r : fresh_rows) std::printf("%s\n", r.c_str());
    }
    upkeep.Print();
    if (sink == "delta") {
      std::vector<int64_t> at = points;
      while (!at.empty() && at.back() > static_cast<int64_t>(rec->samples().size()))
        at.pop_back();
      at.push_back(static_cast<int64_t>(rec->samples().size()));
      SlowBatches(io::JoinPath(root, "rate-table"), rec->samples(), at, window,
                  upkeep.vacuums);
    }
    PrintDisk("table (data + _delta_log)", io::JoinPath(root, "rate-table"));
    PrintDisk("table _delta_log", io::JoinPath(root, "rate-table/_delta_log"));
    PrintDisk("checkpoint", io::JoinPath(root, "rate-chk"));
  }

  // ---- 2. many small files -> Delta
  if (files > 0 && file_batches > 0) {
    std::string in = io::JoinPath(root, "in");
    (void)fs->MakeDirs(in);
    auto t0 = bench::Steady::now();
    for (int64_t f = 0; f < files; ++f) {
      char name[64];
      std::snprintf(name, sizeof(name), "f-%08lld.json", static_cast<long long>(f));
      std::ofstream(io::JoinPath(in, name)) << "{\"id\":" << f << ",\"v\":\"x\"}\n";
    }
    std::printf("\nwrote %lld files in %.1f s\n", static_cast<long long>(files),
                bench::Seconds(t0));
    auto points = Points(file_batches, window);
    auto rec = std::make_shared<Recorder>(points, "soak-files");
    spark.streams().addListener(rec);
    auto q = spark.readStream()
                 .schema("id BIGINT, v STRING")
                 .option("maxFilesPerTrigger", files_per_trigger)
                 .json(in)
                 .writeStream()
                 .format("delta")
                 .queryName("soak-files")
                 .option("checkpointLocation", io::JoinPath(root, "file-chk"))
                 .start(io::JoinPath(root, "file-table"));
    t0 = bench::Steady::now();
    Upkeep upkeep;
    upkeep.vacuum_every = vacuum_every;
    upkeep.Run(spark, *rec, points,
               max_seconds > 0 ? bench::Seconds(kStart) + max_seconds : 0,
               io::JoinPath(root, "file-table"), io::JoinPath(root, "file-chk"), {});
    double secs = bench::Seconds(t0);
    q.stop();
    spark.streams().removeListener(rec);
    Report(("json files (" + std::to_string(files) + ", maxFilesPerTrigger " +
            std::to_string(files_per_trigger) + ") -> Delta")
               .c_str(),
           *rec, window, points);
    std::printf("  %.1f s, %.0f batches/s\n", secs,
                static_cast<double>(rec->samples().size()) / secs);
    upkeep.Print();
    PrintDisk("table _delta_log", io::JoinPath(root, "file-table/_delta_log"));
    PrintDisk("checkpoint sources/0", io::JoinPath(root, "file-chk/sources/0"));
    PrintDisk("checkpoint", io::JoinPath(root, "file-chk"));
  }
  std::filesystem::remove_all(root);
  return 0;
}
