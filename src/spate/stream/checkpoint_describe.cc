// Copyright spate authors.
#include "spate/stream/checkpoint_describe.h"

#include <algorithm>
#include <map>
#include <set>

#include "spate/base/redact.h"
#include "spate/base/text_parse.h"
#include "spate/stream/progress.h"

namespace spate::stream {

namespace {

bool ParseId(const std::string& name, int64_t* out) {
  std::optional<int64_t> v = ParseInt64(name);
  if (!v || *v < 0) return false;
  *out = *v;
  return true;
}

/// Numeric sub-folders of `dir`, ascending (none when it is missing).
Result<std::vector<std::pair<int64_t, std::string>>> NumericDirs(io::FileSystem& fs,
                                                                 const std::string& dir) {
  std::vector<std::pair<int64_t, std::string>> out;
  auto listed = fs.List(dir, false);
  if (!listed.ok()) {
    if (listed.status().code() == StatusCode::kNotFound) return out;
    return listed.status();
  }
  for (const io::FileInfo& f : *listed) {
    int64_t id;
    if (f.is_directory && ParseId(io::BaseName(f.path), &id))
      out.emplace_back(id, f.path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Json OptJson(const std::optional<Json>& v) { return v ? *v : Json::Null(); }

Json IntArray(const std::vector<int64_t>& v) {
  Json a = Json::Array();
  for (int64_t x : v) a.Append(Json::Int(x));
  return a;
}

/// "1, 2, 3" or "1..40 (40)" for a long contiguous run.
std::string VersionsText(const std::vector<int64_t>& v) {
  if (v.empty()) return "-";
  bool contiguous = v.back() - v.front() + 1 == static_cast<int64_t>(v.size());
  if (v.size() > 4 && contiguous) {
    return std::to_string(v.front()) + ".." + std::to_string(v.back());
  }
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ",";
    if (i == 6 && v.size() > 8) {
      out += "...," + std::to_string(v.back());
      break;
    }
    out += std::to_string(v[i]);
  }
  return out;
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

/// Text table: columns padded to their widest cell, two spaces apart, indented.
std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& r : rows) {
    if (widths.size() < r.size()) widths.resize(r.size(), 0);
    for (size_t c = 0; c < r.size(); ++c) widths[c] = std::max(widths[c], r[c].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line = indent;
    for (size_t c = 0; c < r.size(); ++c) {
      line += c + 1 == r.size() ? r[c] : Pad(r[c], widths[c] + 2);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string OffsetText(const std::optional<Json>& v) { return v ? v->ToString() : "-"; }

}  // namespace

int64_t CheckpointDescription::Operator::num_rows() const {
  int64_t n = 0;
  for (const auto& s : stores) n += s.metrics.num_keys;
  return n;
}
int64_t CheckpointDescription::Operator::memory_used_bytes() const {
  int64_t n = 0;
  for (const auto& s : stores) n += s.metrics.memory_used_bytes;
  return n;
}
int64_t CheckpointDescription::Operator::bytes_on_disk() const {
  int64_t n = 0;
  for (const auto& s : stores) n += s.bytes_on_disk;
  return n;
}

Result<CheckpointDescription> DescribeCheckpoint(const io::FileSystemPtr& fs,
                                                 const std::string& dir,
                                                 bool load_stores) {
  CheckpointDescription d;
  d.dir = dir;
  SPATE_ASSIGN_OR_RETURN(d.query_id, ReadStreamMetadata(*fs, dir));
  OffsetSeqLog offsets(fs, io::JoinPath(dir, "offsets"));
  CommitLog commits(fs, io::JoinPath(dir, "commits"));
  auto offset_ids = offsets.ListBatchIds();
  auto commit_ids = commits.ListBatchIds();
  auto missing_ok = [](auto& r) -> Status {
    if (r.ok() || r.status().code() == StatusCode::kNotFound) return Status::OK();
    return r.status();
  };
  SPATE_RETURN_IF_ERROR(missing_ok(offset_ids));
  SPATE_RETURN_IF_ERROR(missing_ok(commit_ids));
  std::set<int64_t> ids;
  if (offset_ids.ok()) ids.insert(offset_ids->begin(), offset_ids->end());
  if (commit_ids.ok()) ids.insert(commit_ids->begin(), commit_ids->end());
  if (!d.query_id && ids.empty()) {
    return Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg", dir + " is not a streaming checkpoint: it has no metadata, "
                       "offsets or commits"}});
  }
  for (int64_t id : ids) {
    CheckpointDescription::Batch b;
    b.batch_id = id;
    SPATE_ASSIGN_OR_RETURN(b.offsets, offsets.Get(id));
    SPATE_ASSIGN_OR_RETURN(b.next_watermark_ms, commits.Get(id));
    if (b.committed()) d.last_committed_batch = id;
    d.batches.push_back(std::move(b));
  }

  // Sources: offsets of the last committed batch and of the latest planned one.
  const OffsetSeq* latest = nullptr;
  const OffsetSeq* committed = nullptr;
  for (const auto& b : d.batches) {
    if (!b.offsets) continue;
    latest = &*b.offsets;
    if (b.committed()) committed = &*b.offsets;
  }
  size_t num_sources = latest ? latest->offsets.size() : 0;
  SPATE_ASSIGN_OR_RETURN(auto source_dirs,
                         NumericDirs(*fs, io::JoinPath(dir, "sources")));
  for (const auto& [i, path] : source_dirs) {
    num_sources = std::max(num_sources, static_cast<size_t>(i + 1));
  }
  for (size_t i = 0; i < num_sources; ++i) {
    CheckpointDescription::Source s;
    s.index = static_cast<int>(i);
    if (committed && i < committed->offsets.size())
      s.committed_offset = committed->offsets[i];
    if (latest && i < latest->offsets.size()) s.latest_offset = latest->offsets[i];
    std::string log_dir = io::JoinPath(io::JoinPath(dir, "sources"), std::to_string(i));
    SPATE_ASSIGN_OR_RETURN(bool has_log, fs->Exists(log_dir));
    if (has_log) {
      s.has_log = true;
      CompactibleLog log(fs, log_dir, /*compact_interval=*/0);  // read only
      auto last = log.LatestId();
      auto entries = log.AllEntries();
      if (last.ok() && entries.ok()) {
        s.log_latest_batch = *last;
        s.log_entries = static_cast<int64_t>(entries->size());
      } else {
        s.log_error = (last.ok() ? entries.status() : last.status()).ToString();
      }
    }
    d.sources.push_back(std::move(s));
  }

  // State: the provider and codec pinned in the offsets log.
  std::vector<std::pair<std::string, std::string>> pinned;
  if (latest) pinned = latest->metadata.conf;
  auto conf = [&pinned](const std::string& k, const std::string& dflt) {
    for (const auto& [pk, pv] : pinned) {
      if (pk == k) return pv;
    }
    return dflt;
  };
  SPATE_ASSIGN_OR_RETURN(state::StateStoreConf store_conf,
                         state::StateStoreConf::FromConf(conf));
  d.state_provider = store_conf.provider;
  d.state_conf = store_conf;
  const std::string state_root = io::JoinPath(dir, "state");
  SPATE_ASSIGN_OR_RETURN(auto op_dirs, NumericDirs(*fs, state_root));
  // Batch N commits state version N+1.
  std::optional<int64_t> want = d.last_committed_batch
                                    ? std::optional<int64_t>(*d.last_committed_batch + 1)
                                    : std::nullopt;
  for (const auto& [op_id, op_path] : op_dirs) {
    CheckpointDescription::Operator op;
    op.operator_id = op_id;
    SPATE_ASSIGN_OR_RETURN(op.schemas, state::ReadStateSchema(*fs, state_root, op_id));
    SPATE_ASSIGN_OR_RETURN(auto parts, NumericDirs(*fs, op_path));
    op.num_partitions = static_cast<int>(parts.size());
    for (const auto& [part, part_path] : parts) {
      std::vector<std::string> names = {"default"};
      auto listed = fs->List(part_path, false);
      if (!listed.ok()) return listed.status();
      for (const io::FileInfo& f : *listed) {
        std::string name = io::BaseName(f.path);
        if (f.is_directory && name != "SSTs") names.push_back(name);
      }
      std::vector<state::StoreDescription> stores;
      for (const std::string& name : names) {
        state::StateStoreId id{state_root, op_id, static_cast<int>(part), name};
        SPATE_ASSIGN_OR_RETURN(
            auto desc, state::DescribeStateStore(id, store_conf, fs, want, load_stores));
        stores.push_back(std::move(desc));
      }
      // Stores without files are left out (an operator with named stores, such as a
      // stream-stream join's four, keeps nothing in "default"), unless the partition has
      // no other.
      bool any_files = std::any_of(stores.begin(), stores.end(), [](const auto& st) {
        return st.num_files > 0 || !st.versions.empty();
      });
      for (auto& st : stores) {
        if (!any_files || st.num_files > 0 || !st.versions.empty()) {
          op.stores.push_back(std::move(st));
        }
        if (!any_files) break;  // one (empty) row for the partition
      }
    }
    d.operators.push_back(std::move(op));
  }
  return d;
}

Json CheckpointDescription::ToJson() const {
  Json v = Json::Object();
  v.Set("checkpoint", Json::String(dir));
  v.Set("queryId", query_id ? Json::String(*query_id) : Json::Null());
  v.Set("lastCommittedBatch",
        last_committed_batch ? Json::Int(*last_committed_batch) : Json::Null());
  Json bs = Json::Array();
  for (const auto& b : batches) {
    Json j = Json::Object();
    j.Set("batchId", Json::Int(b.batch_id));
    j.Set("committed", Json::Bool(b.committed()));
    if (b.offsets) {
      const auto& m = b.offsets->metadata;
      j.Set("batchWatermarkMs", Json::Int(m.batch_watermark_ms));
      j.Set("batchTimestampMs", Json::Int(m.batch_timestamp_ms));
      j.Set("batchTimestamp", Json::String(FormatTimestampMs(m.batch_timestamp_ms)));
    }
    j.Set("nextBatchWatermarkMs",
          b.next_watermark_ms ? Json::Int(*b.next_watermark_ms) : Json::Null());
    if (b.offsets) {
      Json offs = Json::Array();
      for (const auto& o : b.offsets->offsets) offs.Append(OptJson(o));
      j.Set("offsets", std::move(offs));
      Json c = Json::Object();
      for (const auto& [k, val] : b.offsets->metadata.conf) {
        c.Set(k, Json::String(RedactValue(k, val)));
      }
      j.Set("conf", std::move(c));
    } else {
      j.Set("offsets", Json::Null());
    }
    bs.Append(std::move(j));
  }
  v.Set("batches", std::move(bs));
  Json ss = Json::Array();
  for (const auto& s : sources) {
    Json j = Json::Object();
    j.Set("index", Json::Int(s.index));
    j.Set("committedOffset", OptJson(s.committed_offset));
    j.Set("latestOffset", OptJson(s.latest_offset));
    if (s.has_log) {
      Json log = Json::Object();
      log.Set("path", Json::String("sources/" + std::to_string(s.index)));
      log.Set("latestBatchId",
              s.log_latest_batch ? Json::Int(*s.log_latest_batch) : Json::Null());
      log.Set("entries", Json::Int(s.log_entries));
      log.Set("error", s.log_error ? Json::String(*s.log_error) : Json::Null());
      j.Set("log", std::move(log));
    } else {
      j.Set("log", Json::Null());
    }
    ss.Append(std::move(j));
  }
  v.Set("sources", std::move(ss));
  Json state = Json::Object();
  state.Set("provider", Json::String(state_provider));
  Json ops = Json::Array();
  for (const auto& op : operators) {
    Json j = Json::Object();
    j.Set("operatorId", Json::Int(op.operator_id));
    j.Set("keySchema",
          op.schemas ? Json::String(op.schemas->key->ToString()) : Json::Null());
    j.Set("valueSchema",
          op.schemas ? Json::String(op.schemas->value->ToString()) : Json::Null());
    j.Set("numPartitions", Json::Int(op.num_partitions));
    j.Set("numRowsTotal", Json::Int(op.num_rows()));
    j.Set("memoryUsedBytes", Json::Int(op.memory_used_bytes()));
    j.Set("bytesOnDisk", Json::Int(op.bytes_on_disk()));
    Json stores = Json::Array();
    for (const auto& s : op.stores) {
      Json sj = Json::Object();
      sj.Set("partition", Json::Int(s.id.partition));
      sj.Set("storeName", Json::String(s.id.store_name));
      sj.Set("versions", IntArray(s.versions));
      sj.Set("baseVersions", IntArray(s.base_versions));
      sj.Set("loadedVersion",
             s.loaded_version ? Json::Int(*s.loaded_version) : Json::Null());
      sj.Set("numRows", Json::Int(s.metrics.num_keys));
      sj.Set("memoryUsedBytes", Json::Int(s.metrics.memory_used_bytes));
      sj.Set("files", Json::Int(s.num_files));
      sj.Set("bytesOnDisk", Json::Int(s.bytes_on_disk));
      sj.Set("error", s.load_error ? Json::String(*s.load_error) : Json::Null());
      stores.Append(std::move(sj));
    }
    j.Set("stores", std::move(stores));
    ops.Append(std::move(j));
  }
  state.Set("operators", std::move(ops));
  v.Set("state", std::move(state));
  return v;
}

std::string CheckpointDescription::ToText() const {
  std::string out = "Checkpoint " + dir + "\n";
  out += "  query id:              " + query_id.value_or("(no metadata file)") + "\n";
  out += "  batches:               " + std::to_string(batches.size());
  if (!batches.empty()) {
    out += " (" + std::to_string(batches.front().batch_id) + ".." +
           std::to_string(batches.back().batch_id) + ")";
  }
  out += "\n  last committed batch:  " +
         (last_committed_batch ? std::to_string(*last_committed_batch)
                               : std::string("none")) +
         "\n";
  out += "  state provider:        " + state_provider + "\n";

  out += "\nBatches\n";
  std::vector<std::vector<std::string>> rows = {
      {"batch", "committed", "timestamp", "watermark", "next watermark", "offsets"}};
  for (const auto& b : batches) {
    std::string offs = "-";
    if (b.offsets) {
      offs.clear();
      for (size_t i = 0; i < b.offsets->offsets.size(); ++i) {
        if (i) offs += ' ';
        offs += OffsetText(b.offsets->offsets[i]);
      }
    }
    rows.push_back(
        {std::to_string(b.batch_id), b.committed() ? "yes" : "no",
         b.offsets ? FormatTimestampMs(b.offsets->metadata.batch_timestamp_ms) : "-",
         b.offsets ? std::to_string(b.offsets->metadata.batch_watermark_ms) : "-",
         b.next_watermark_ms ? std::to_string(*b.next_watermark_ms) : "-", offs});
  }
  out += Table(rows, "  ");

  const OffsetSeq* latest = nullptr;
  int64_t latest_id = -1;
  for (const auto& b : batches) {
    if (b.offsets) {
      latest = &*b.offsets;
      latest_id = b.batch_id;
    }
  }
  if (latest && !latest->metadata.conf.empty()) {
    out += "\nConfs pinned in offsets/" + std::to_string(latest_id) + "\n";
    for (const auto& [k, val] : latest->metadata.conf) {
      out += "  " + k + " = " + RedactValue(k, val) + "\n";
    }
  }

  out += "\nSources\n";
  if (sources.empty()) out += "  (none)\n";
  for (const auto& s : sources) {
    out += "  " + std::to_string(s.index) + ": committed offset " +
           OffsetText(s.committed_offset) + ", latest offset " +
           OffsetText(s.latest_offset) + "\n";
    if (s.has_log) {
      out += "     log sources/" + std::to_string(s.index) + ": ";
      out += s.log_error
                 ? "error: " + *s.log_error
                 : std::to_string(s.log_entries) + " entries, latest batch " +
                       (s.log_latest_batch ? std::to_string(*s.log_latest_batch) : "-");
      out += "\n";
    }
  }

  out += "\nState operators\n";
  if (operators.empty()) out += "  (none: a stateless query)\n";
  for (const auto& op : operators) {
    out += "  operator " + std::to_string(op.operator_id) + ": " +
           std::to_string(op.num_partitions) + " partitions, " +
           std::to_string(op.num_rows()) + " rows, " +
           std::to_string(op.memory_used_bytes()) + " bytes in memory, " +
           std::to_string(op.bytes_on_disk()) + " bytes on disk\n";
    if (op.schemas) {
      out += "    key schema:   " + op.schemas->key->ToString() + "\n";
      out += "    value schema: " + op.schemas->value->ToString() + "\n";
    }
    std::vector<std::vector<std::string>> srows = {{"partition", "store", "versions",
                                                    "loaded", "rows", "memory bytes",
                                                    "files", "disk bytes"}};
    for (const auto& s : op.stores) {
      srows.push_back({std::to_string(s.id.partition), s.id.store_name,
                       VersionsText(s.versions),
                       s.loaded_version ? std::to_string(*s.loaded_version) : "-",
                       std::to_string(s.metrics.num_keys),
                       std::to_string(s.metrics.memory_used_bytes),
                       std::to_string(s.num_files), std::to_string(s.bytes_on_disk)});
    }
    out += Table(srows, "    ");
    for (const auto& s : op.stores) {
      if (s.load_error) {
        out += "    partition " + std::to_string(s.id.partition) + " (" +
               s.id.store_name + "): cannot load: " + *s.load_error + "\n";
      }
    }
  }
  return out;
}

}  // namespace spate::stream
