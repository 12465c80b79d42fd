// Copyright spate authors.
#include "spate/table/delta_compaction.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "spate/base/thread_pool.h"
#include "spate/table/delta_source.h"

namespace spate::table {

std::string CompactionPartitionKey(const PartitionValues& pv) {
  std::string k;
  for (const auto& [c, v] : pv) k += c + "=" + (v ? "v" + *v : std::string("null")) + "/";
  return k;
}

namespace {

const auto& PartitionKey = CompactionPartitionKey;

bool IsSmall(const AddFile& f, int64_t max_file_size) {
  return f.size < max_file_size || f.deletion_vector.has_value();
}

}  // namespace

bool AutoCompactTracker::AfterWrite(const DeltaWriteResult& w,
                                    const AutoCompactConfig& config) {
  // Another commit since the last known version: every bound is unknown. The planned
  // compaction's own commit (Planned) may have landed in between.
  if (own_pending_ && version_ >= 0 && own_version_ == version_ + 1 &&
      w.version == version_ + 2) {
    own_pending_ = false;
  } else if (version_ < 0 || w.version != version_ + 1) {
    counted_.clear();
    own_pending_ = false;
  }
  version_ = w.version;
  std::vector<int64_t> added(w.partitions_written.size(), 0);
  for (size_t i = 0; i < w.file_partitions.size() && i < w.file_sizes.size(); ++i) {
    if (w.file_sizes[i] <= config.count_up_to() && w.file_partitions[i] < added.size())
      ++added[w.file_partitions[i]];
  }
  const int64_t min_files = std::max<int64_t>(1, config.min_num_files);
  bool due = false;
  for (size_t p = 0; p < w.partitions_written.size(); ++p) {
    auto it = counted_.find(PartitionKey(w.partitions_written[p]));
    if (it == counted_.end()) {
      due = true;
      continue;
    }
    it->second += added[p];
    due |= it->second >= min_files;
  }
  if (due) ++checks_due_;
  return due;
}

void AutoCompactTracker::Checked(int64_t version,
                                 std::map<std::string, int64_t> counted_files) {
  version_ = version;
  counted_ = std::move(counted_files);
  own_pending_ = false;
  own_version_ = -1;
}

void AutoCompactTracker::OwnCommitted(int64_t version) {
  if (version < 0) {
    Checked(-1, {});
    return;
  }
  own_version_ = version;
  // It landed before this writer's latest commit: the bounds are those planned (the
  // writer's commits after it were counted), the version chain goes on past it.
  if (own_pending_ && version <= version_) own_pending_ = false;
}

CompactionBins PlanCompaction(const std::vector<AddFile>& files, int64_t min_file_size,
                              int64_t max_file_size, int64_t min_bin_files) {
  std::map<std::string, std::vector<AddFile>> by_partition;
  for (const auto& f : files) {
    if (IsSmall(f, min_file_size)) {
      by_partition[PartitionKey(f.partition_values)].push_back(f);
    }
  }
  CompactionBins bins;
  for (auto& [key, small] : by_partition) {
    if (min_bin_files > 0 && static_cast<int64_t>(small.size()) < min_bin_files) continue;
    std::stable_sort(small.begin(), small.end(),
                     [](const AddFile& a, const AddFile& b) { return a.size < b.size; });
    std::vector<AddFile> current;
    int64_t current_size = 0;
    auto close = [&] {
      if (current.size() > 1 || (current.size() == 1 && current[0].deletion_vector)) {
        bins.push_back(std::move(current));
      }
      current.clear();
      current_size = 0;
    };
    for (const auto& f : small) {
      if (!current.empty() && f.size + current_size > max_file_size) close();
      current.push_back(f);
      current_size += f.size;
    }
    close();
  }
  return bins;
}

Result<DeltaWriteResult> CompactFiles(io::FileSystemPtr fs, const std::string& table_path,
                                      const SnapshotPtr& snapshot,
                                      const CompactionBins& bins, DeltaWriteOptions o,
                                      int parallelism) {
  std::vector<std::shared_ptr<DeltaDataSource>> sources;
  for (const auto& b : bins) {
    o.remove_files.insert(o.remove_files.end(), b.begin(), b.end());
    // Read, as Delta's OPTIMIZE records them: a concurrent removal of one is
    // DELTA_CONCURRENT_DELETE_READ.
    o.read_files.insert(o.read_files.end(), b.begin(), b.end());
    SPATE_ASSIGN_OR_RETURN(
        auto src, DeltaDataSource::MakeForFiles(fs, snapshot, b, o.time_zone_id));
    sources.push_back(std::move(src));
  }
  o.mode = "append";
  o.read_snapshot = snapshot;
  o.data_change = false;
  SchemaPtr schema = sources.empty() ? snapshot->schema() : sources[0]->schema();
  ScanSpec spec;
  for (int i = 0; i < schema->num_fields(); ++i) spec.columns.push_back(i);
  return WriteDelta(
      std::move(fs), table_path, schema,
      std::max<int>(1, static_cast<int>(sources.size())),
      [&](const BatchSink& sink) -> Status {
        // The bins in parallel; each bin's files in order into its own writer partition.
        return ThreadPool::Default().ParallelFor(
            static_cast<int64_t>(sources.size()), parallelism, [&](int64_t i) -> Status {
              const auto& src = sources[static_cast<size_t>(i)];
              for (int split = 0; split < src->num_splits(); ++split) {
                SPATE_ASSIGN_OR_RETURN(auto reader, src->OpenSplit(split, spec));
                while (true) {
                  SPATE_ASSIGN_OR_RETURN(BatchPtr b, reader->Next());
                  if (!b) break;
                  if (b->num_rows() > 0)
                    SPATE_RETURN_IF_ERROR(sink(static_cast<int>(i), b));
                }
              }
              return Status::OK();
            });
      },
      o);
}

std::map<std::string, std::string> OptimizeMetrics(const DeltaWriteResult& w,
                                                   int64_t dvs_removed) {
  std::vector<int64_t> sizes = w.file_sizes;
  std::sort(sizes.begin(), sizes.end());
  auto pct = [&](double p) -> int64_t {
    if (sizes.empty()) return 0;
    size_t i = static_cast<size_t>(std::floor(static_cast<double>(sizes.size()) * p));
    return sizes[std::min(i, sizes.size() - 1)];
  };
  std::map<std::string, std::string> mt;
  auto set = [&](const char* k, int64_t v) { mt[k] = std::to_string(v); };
  set("numAddedFiles", w.num_files);
  set("numRemovedFiles", w.num_removed_files);
  set("numAddedBytes", w.num_output_bytes);
  set("numRemovedBytes", w.num_removed_bytes);
  set("minFileSize", pct(0));
  set("p25FileSize", pct(0.25));
  set("p50FileSize", pct(0.5));
  set("p75FileSize", pct(0.75));
  set("maxFileSize", sizes.empty() ? 0 : sizes.back());
  set("numDeletionVectorsRemoved", dvs_removed);
  return mt;
}

bool AutoCompactEnabled(const AutoCompactConfig& config, const Metadata& metadata) {
  if (config.enabled) return *config.enabled;
  for (const auto& [k, v] : metadata.configuration) {
    if (EqualsIgnoreCase(k, "delta.autoOptimize.autoCompact")) {
      std::string l = ToLower(v);
      return l == "true" || l == "auto" || l == "legacy";
    }
  }
  return false;
}

Result<std::optional<AutoCompactPlan>> PlanAutoCompact(
    io::FileSystemPtr fs, const std::string& table_path, const AutoCompactConfig& config,
    const std::vector<PartitionValues>& partitions, std::shared_ptr<const DeltaLog> log,
    AutoCompactTracker* tracker) {
  if (!log) log = std::make_shared<const DeltaLog>(std::move(fs), table_path);
  SPATE_ASSIGN_OR_RETURN(SnapshotPtr snapshot, log->Latest());
  if (!AutoCompactEnabled(config, snapshot->metadata()))
    return std::optional<AutoCompactPlan>();
  // Delta's AutoCompactPartitionStats count (files of at most minFileSize, every file
  // when it is unset) decides which partitions are due; their files smaller than
  // compact_below() are bin-packed (Delta's OPTIMIZE with minFileSize / maxFileSize).
  std::map<std::string, int64_t> counted;  // per checked partition
  for (const auto& p : partitions) counted[PartitionKey(p)] = 0;
  std::map<std::string, std::vector<AddFile>> candidates;
  for (const auto& f : snapshot->files()) {
    if (std::find(partitions.begin(), partitions.end(), f.partition_values) ==
        partitions.end())
      continue;
    const std::string key = PartitionKey(f.partition_values);
    if (f.size <= config.count_up_to()) ++counted[key];
    if (IsSmall(f, config.compact_below())) candidates[key].push_back(f);
  }
  std::vector<AddFile> files;
  const int64_t min_files = std::max<int64_t>(1, config.min_num_files);
  for (auto& [key, fs_of] : candidates) {
    if (counted[key] < min_files) continue;
    files.insert(files.end(), std::make_move_iterator(fs_of.begin()),
                 std::make_move_iterator(fs_of.end()));
  }
  CompactionBins bins =
      PlanCompaction(files, config.compact_below(), config.max_file_size);
  if (bins.empty()) {
    if (tracker) tracker->Checked(snapshot->version(), std::move(counted));
    return std::optional<AutoCompactPlan>();
  }
  return std::optional<AutoCompactPlan>(
      AutoCompactPlan{std::move(snapshot), std::move(bins), std::move(counted)});
}

Result<int64_t> RunAutoCompact(io::FileSystemPtr fs, const std::string& table_path,
                               const AutoCompactPlan& plan,
                               const std::string& time_zone_id,
                               const std::string& default_codec,
                               std::shared_ptr<const DeltaLog> log) {
  DeltaWriteOptions o;
  o.time_zone_id = time_zone_id;
  o.default_codec = default_codec;
  o.operation = "OPTIMIZE";
  o.operation_parameters = {
      {"predicate", "[]"}, {"auto", "true"}, {"zOrderBy", "[]"}, {"clusterBy", "[]"}};
  int64_t dvs = 0;
  for (const auto& b : plan.bins)
    for (const auto& f : b) dvs += f.deletion_vector ? 1 : 0;
  o.operation_metrics = [dvs](const DeltaWriteResult& w) {
    return OptimizeMetrics(w, dvs);
  };
  o.log = std::move(log);
  o.async_checkpoint = true;
  SPATE_ASSIGN_OR_RETURN(DeltaWriteResult r, CompactFiles(std::move(fs), table_path,
                                                          plan.snapshot, plan.bins, o));
  return r.version;
}

void AutoCompactTracker::Planned(const AutoCompactPlan& plan,
                                 const AutoCompactConfig& config) {
  std::map<std::string, int64_t> counted = plan.counted;
  for (const auto& b : plan.bins) {
    if (b.empty()) continue;
    int64_t& n = counted[PartitionKey(b.front().partition_values)];
    for (const auto& f : b)
      if (f.size <= config.count_up_to()) --n;
    ++n;  // the bin's output, if it counts (an upper bound)
  }
  Checked(plan.snapshot->version(), std::move(counted));
  own_pending_ = true;
}

Result<std::optional<int64_t>> MaybeAutoCompact(
    io::FileSystemPtr fs, const std::string& table_path, const AutoCompactConfig& config,
    const std::vector<PartitionValues>& partitions, const std::string& time_zone_id,
    const std::string& default_codec, std::shared_ptr<const DeltaLog> log,
    AutoCompactTracker* tracker) {
  if (!log) log = std::make_shared<const DeltaLog>(fs, table_path);
  SPATE_ASSIGN_OR_RETURN(
      auto plan, PlanAutoCompact(fs, table_path, config, partitions, log, tracker));
  if (!plan) return std::optional<int64_t>();
  // The tracker's bookkeeping is the asynchronous writer's, with the commit right away.
  if (tracker) tracker->Planned(*plan, config);
  Result<int64_t> version =
      RunAutoCompact(std::move(fs), table_path, *plan, time_zone_id, default_codec, log);
  if (tracker) tracker->OwnCommitted(version.ok() ? *version : -1);
  SPATE_RETURN_IF_ERROR(version.status());
  return std::optional<int64_t>(*version);
}

}  // namespace spate::table
