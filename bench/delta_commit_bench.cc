// Copyright spate authors.
// Delta commit latency: `build/release/bench/spate_delta_commit_bench [commits] [dir]`.
// Each commit is one OptimisticTransaction adding one (fake) data file to a table on the
// local file system: put-if-absent of the next _delta_log/NNN.json (temp file, fsync,
// link), plus the Parquet checkpoint every 10 commits. Prints p50/p99/max in ms, and the
// same for a blind append through WriteBatches (a real 1000-row Parquet file + commit).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/table/delta_writer.h"
#include "spate/table/transaction.h"

using namespace spate;  // NOLINT

namespace {

double Pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

void Report(const char* what, const std::vector<double>& ms) {
  std::printf("%-28s n=%zu  p50 %.3f ms  p99 %.3f ms  max %.3f ms\n", what, ms.size(),
              Pct(ms, 0.5), Pct(ms, 0.99), *std::max_element(ms.begin(), ms.end()));
}

}  // namespace

int main(int argc, char** argv) {
  int commits = argc > 1 ? std::atoi(argv[1]) : 200;
  std::string dir =
      argc > 2 ? argv[2]
               : (std::filesystem::temp_directory_path() / "spate_delta_bench").string();
  std::filesystem::remove_all(dir);
  auto fs = io::LocalFileSystem::Get();
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""}});
  std::vector<Value> ids;
  for (int i = 0; i < 1000; ++i) ids.push_back(Value::Long(i));
  auto batch = Batch::Make(schema, {ColumnFromValues(DataType::Long(), ids)}, 1000);
  table::DeltaWriteOptions append;
  append.mode = "append";
  if (!table::WriteBatches(fs, dir + "/log_only", {batch}, append).ok()) return 1;

  auto log = std::make_shared<const table::DeltaLog>(fs, dir + "/log_only");
  std::vector<double> log_ms;
  for (int i = 0; i < commits; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto snap = log->Latest();
    if (!snap.ok()) return 1;
    table::OptimisticTransaction txn(log, *snap);
    table::AddFile f;
    f.path = "fake-" + std::to_string(i) + ".parquet";
    f.size = 1;
    table::CommitInfo ci;
    ci.operation = "WRITE";
    auto r = txn.Commit({table::Action::Of(f)}, ci);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      return 1;
    }
    log_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  Report("snapshot+commit (log only)", log_ms);

  std::vector<double> write_ms;
  for (int i = 0; i < commits; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = table::WriteBatches(fs, dir + "/with_data", {batch}, append);
    if (!r.ok()) return 1;
    write_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  Report("append 1000 rows + commit", write_ms);
  std::filesystem::remove_all(dir);
  return 0;
}
