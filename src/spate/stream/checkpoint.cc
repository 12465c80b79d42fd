// Copyright spate authors.
#include "spate/stream/checkpoint.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <random>

#include "spate/base/clock.h"
#include "spate/base/text_parse.h"
#include "spate/formats/file_writer.h"
#include "spate/stream/trigger.h"

namespace spate::stream {

namespace {

bool ParseBatchId(const std::string& name, int64_t* id) {
  if (name.empty() || name.size() > 18) return false;
  int64_t v = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *id = v;
  return true;
}

Status Malformed(const std::string& path, std::string_view text) {
  std::string shown(text.substr(0, 80));
  return Status::Error("MALFORMED_LOG_FILE", {{"text", shown}})
      .WithContext("Failed to read log file " + path);
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace

int64_t LogCleanupDelayMs(const std::string& deletion, const std::string& delay,
                          int64_t fallback_ms) {
  std::string d = deletion;
  std::transform(d.begin(), d.end(), d.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (d != "true") return -1;
  if (!delay.empty() && std::all_of(delay.begin(), delay.end(), [](unsigned char c) {
        return std::isdigit(c) != 0;
      })) {
    return ParseInt64(delay).value_or(fallback_ms);
  }
  auto ms = Trigger::ParseIntervalMs(delay);
  return ms.ok() ? *ms : fallback_ms;
}

std::string RandomUuid() {
  thread_local std::mt19937_64 rng(
      std::random_device{}() ^ static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&rng)));
  uint64_t a = rng(), b = rng();
  return formats::UuidV4Text(a, b);
}

std::string QualifyPath(const std::string& path) {
  // Relative paths are made absolute, as Spark qualifies them: a log entry must name the
  // same file whatever the working directory of the process that reads it.
  std::string abs = io::AbsolutePath(path);
  if (!abs.empty() && abs[0] == '/') return "file://" + abs;
  return abs;
}

std::string StripFileScheme(const std::string& path) {
  if (path.rfind("file://", 0) == 0) return path.substr(7);
  if (path.rfind("file:", 0) == 0) return path.substr(5);
  return path;
}

// ---- MetadataLog

std::string MetadataLog::PathOf(int64_t batch_id) const {
  return io::JoinPath(dir_, std::to_string(batch_id));
}

Status MetadataLog::AddRaw(int64_t batch_id, const std::string& content) {
  SPATE_RETURN_IF_ERROR(fs_->MakeDirs(dir_));
  Status st = fs_->PutIfAbsent(PathOf(batch_id), content);
  if (st.code() == StatusCode::kAlreadyExists) {
    return Status::Error("CONCURRENT_STREAM_LOG_UPDATE",
                         {{"batchId", std::to_string(batch_id)}});
  }
  return st;
}

Result<std::optional<std::string>> MetadataLog::GetRaw(int64_t batch_id) const {
  auto r = fs_->ReadAll(PathOf(batch_id));
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kNotFound) return std::optional<std::string>();
    return r.status();
  }
  return std::optional<std::string>(std::move(r).value());
}

Result<std::vector<int64_t>> MetadataLog::ListBatchIds() const {
  std::vector<int64_t> ids;
  auto listed = fs_->List(dir_, false);
  if (!listed.ok()) {
    if (listed.status().code() == StatusCode::kNotFound) return ids;
    return listed.status();
  }
  for (const auto& f : *listed) {
    if (f.is_directory) continue;
    int64_t id;
    if (ParseBatchId(io::BaseName(f.path), &id)) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<std::optional<int64_t>> MetadataLog::LatestBatchId() const {
  SPATE_ASSIGN_OR_RETURN(auto ids, ListBatchIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.back());
}

Status MetadataLog::Purge(int64_t threshold) {
  SPATE_ASSIGN_OR_RETURN(auto ids, ListBatchIds());
  for (int64_t id : ids) {
    if (id >= threshold) break;
    Status st = fs_->Delete(PathOf(id), false);
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
  }
  return Status::OK();
}

Status MetadataLog::PurgeAfter(int64_t threshold) {
  SPATE_ASSIGN_OR_RETURN(auto ids, ListBatchIds());
  for (int64_t id : ids) {
    if (id <= threshold) continue;
    Status st = fs_->Delete(PathOf(id), false);
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
  }
  return Status::OK();
}

Result<int> ValidateLogVersion(std::string_view line, int max_supported,
                               const std::string& path) {
  if (line.size() >= 2 && line[0] == 'v') {
    int v = 0;
    bool ok = true;
    for (char c : line.substr(1)) {
      if (c < '0' || c > '9' || v > 100000000) {
        ok = false;
        break;
      }
      v = v * 10 + (c - '0');
    }
    if (ok && v > 0) {
      if (v > max_supported) {
        return Status::Error("INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION",
                             {{"maxSupportedVersion", std::to_string(max_supported)},
                              {"version", std::to_string(v)}})
            .WithContext("Failed to read log file " + path);
      }
      return v;
    }
  }
  return Malformed(path, line);
}

// ---- OffsetSeqLog

Json OffsetSeqMetadata::ToJson() const {
  Json v = Json::Object();
  v.Set("batchWatermarkMs", Json::Int(batch_watermark_ms));
  v.Set("batchTimestampMs", Json::Int(batch_timestamp_ms));
  Json c = Json::Object();
  for (const auto& [k, val] : conf) c.Set(k, Json::String(val));
  v.Set("conf", std::move(c));
  return v;
}

Result<OffsetSeqMetadata> OffsetSeqMetadata::FromJson(const Json& v) {
  if (!v.is_object())
    return Status(StatusCode::kDataCorruption, "batch metadata is not an object");
  OffsetSeqMetadata m;
  if (const auto* w = v.Find("batchWatermarkMs"); w && w->is_number())
    m.batch_watermark_ms = w->int_value();
  if (const auto* t = v.Find("batchTimestampMs"); t && t->is_number())
    m.batch_timestamp_ms = t->int_value();
  if (const auto* c = v.Find("conf"); c && c->is_object()) {
    for (const auto& [k, val] : c->fields())
      m.conf.emplace_back(k, val.is_string() ? val.string_value() : val.ToString());
  }
  return m;
}

std::string OffsetSeqLog::Serialize(const OffsetSeq& seq) {
  std::string out = "v1\n" + seq.metadata.ToJson().ToString();
  for (const auto& o : seq.offsets) {
    out.push_back('\n');
    out += o ? o->ToString() : "-";
  }
  return out;
}

Result<OffsetSeq> OffsetSeqLog::Deserialize(std::string_view text,
                                            const std::string& path) {
  auto lines = SplitLines(text);
  if (lines.empty() || lines[0].empty()) return Malformed(path, text);
  SPATE_RETURN_IF_ERROR(ValidateLogVersion(lines[0], 1, path));
  if (lines.size() < 2) return Malformed(path, text);
  OffsetSeq seq;
  auto meta = Json::Parse(lines[1]);
  if (!meta.ok()) return Malformed(path, lines[1]);
  auto m = OffsetSeqMetadata::FromJson(*meta);
  if (!m.ok()) return Malformed(path, lines[1]);
  seq.metadata = std::move(m).value();
  for (size_t i = 2; i < lines.size(); ++i) {
    if (lines[i] == "-") {
      seq.offsets.emplace_back(std::nullopt);
      continue;
    }
    auto o = Json::Parse(lines[i]);
    if (!o.ok()) return Malformed(path, lines[i]);
    seq.offsets.emplace_back(std::move(o).value());
  }
  return seq;
}

Result<std::optional<OffsetSeq>> OffsetSeqLog::Get(int64_t batch_id) const {
  SPATE_ASSIGN_OR_RETURN(auto raw, GetRaw(batch_id));
  if (!raw) return std::optional<OffsetSeq>();
  SPATE_ASSIGN_OR_RETURN(auto seq, Deserialize(*raw, PathOf(batch_id)));
  return std::optional<OffsetSeq>(std::move(seq));
}

// ---- CommitLog

std::string CommitLog::Serialize(int64_t next_batch_watermark_ms) {
  return "v1\n{\"nextBatchWatermarkMs\":" + std::to_string(next_batch_watermark_ms) + "}";
}

Result<int64_t> CommitLog::Deserialize(std::string_view text, const std::string& path) {
  auto lines = SplitLines(text);
  if (lines.empty() || lines[0].empty()) return Malformed(path, text);
  SPATE_RETURN_IF_ERROR(ValidateLogVersion(lines[0], 1, path));
  if (lines.size() < 2) return Malformed(path, text);
  auto v = Json::Parse(lines[1]);
  if (!v.ok() || !v->is_object()) return Malformed(path, lines[1]);
  const Json* w = v->Find("nextBatchWatermarkMs");
  return w && w->is_number() ? w->int_value() : 0;
}

Result<std::optional<int64_t>> CommitLog::Get(int64_t batch_id) const {
  SPATE_ASSIGN_OR_RETURN(auto raw, GetRaw(batch_id));
  if (!raw) return std::optional<int64_t>();
  SPATE_ASSIGN_OR_RETURN(int64_t w, Deserialize(*raw, PathOf(batch_id)));
  return std::optional<int64_t>(w);
}

Result<std::optional<std::string>> ReadStreamMetadata(io::FileSystem& fs,
                                                      const std::string& checkpoint) {
  std::string path = io::JoinPath(checkpoint, "metadata");
  auto raw = fs.ReadAll(path);
  if (!raw.ok()) {
    if (raw.status().code() == StatusCode::kNotFound) return std::optional<std::string>();
    return raw.status();
  }
  auto v = Json::Parse(*raw);
  const Json* id = v.ok() && v->is_object() ? v->Find("id") : nullptr;
  if (!id || !id->is_string() || id->string_value().empty()) return Malformed(path, *raw);
  return std::optional<std::string>(id->string_value());
}

Result<std::string> ReadOrCreateStreamMetadata(io::FileSystem& fs,
                                               const std::string& checkpoint,
                                               const std::string& new_id) {
  SPATE_ASSIGN_OR_RETURN(auto existing, ReadStreamMetadata(fs, checkpoint));
  if (existing) return *existing;
  std::string path = io::JoinPath(checkpoint, "metadata");
  SPATE_RETURN_IF_ERROR(fs.MakeDirs(checkpoint));
  Json v = Json::Object();
  v.Set("id", Json::String(new_id));
  Status st = fs.PutIfAbsent(path, v.ToString() + "\n");
  if (st.code() == StatusCode::kAlreadyExists)
    return ReadOrCreateStreamMetadata(fs, checkpoint, new_id);
  SPATE_RETURN_IF_ERROR(st);
  return new_id;
}

// ---- CompactibleLog

std::string CompactibleLog::EntryPath(int64_t batch_id) const {
  std::string p = PathOf(batch_id);
  return IsCompactionBatch(batch_id) ? p + ".compact" : p;
}

Result<std::vector<Json>> CompactibleLog::ReadFile(const std::string& path) const {
  SPATE_ASSIGN_OR_RETURN(std::string text, fs_->ReadAll(path));
  auto lines = SplitLines(text);
  if (lines.empty() || lines[0].empty()) return Malformed(path, text);
  SPATE_RETURN_IF_ERROR(ValidateLogVersion(lines[0], 1, path));
  std::vector<Json> out;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    auto v = Json::Parse(lines[i]);
    if (!v.ok() || !v->is_object()) return Malformed(path, lines[i]);
    out.push_back(std::move(v).value());
  }
  return out;
}

Status CompactibleLog::AddEntries(int64_t batch_id, const std::vector<Json>& entries) {
  std::string lines;  // this batch's entries, one per line, each after a '\n'
  for (const auto& e : entries) {
    lines.push_back('\n');
    lines += e.ToString();
  }
  std::string text;
  if (IsCompactionBatch(batch_id)) {
    // The previous compact file and the batches after it, when this object wrote them
    // all, are known as text: the compact file is their concatenation (no re-reading or
    // re-parsing of a file that holds every entry so far).
    const int64_t prev = batch_id - compact_interval_;
    bool known = prev < 0 ? batch_id == compact_interval_ - 1 : written_.count(prev) > 0;
    for (int64_t b = std::max<int64_t>(prev + 1, 0); known && b < batch_id; ++b)
      known = written_.count(b) > 0;
    if (known) {
      text = prev >= 0 ? written_[prev] : "v1";
      for (int64_t b = std::max<int64_t>(prev + 1, 0); b < batch_id; ++b)
        text += written_[b];
      text += lines;
    } else {
      std::vector<Json> all;
      if (batch_id > 0) {
        SPATE_ASSIGN_OR_RETURN(all, AllEntries(batch_id - 1));
      }
      text = "v1";
      for (const auto& e : all) {
        text.push_back('\n');
        text += e.ToString();
      }
      text += lines;
    }
  } else {
    text = "v1" + lines;
  }
  SPATE_RETURN_IF_ERROR(fs_->MakeDirs(dir_));
  Status st = fs_->PutIfAbsent(EntryPath(batch_id), text);
  if (st.code() == StatusCode::kAlreadyExists) {
    return Status::Error("CONCURRENT_STREAM_LOG_UPDATE",
                         {{"batchId", std::to_string(batch_id)}});
  }
  SPATE_RETURN_IF_ERROR(st);
  // Remember what the next compaction needs: this compact file's text, or this batch's
  // lines; nothing older.
  if (IsCompactionBatch(batch_id)) {
    written_.clear();
    written_[batch_id] = std::move(text);
  } else {
    written_[batch_id] = std::move(lines);
  }
  if (cleanup_delay_ms_ >= 0 && undeleted_listed_)
    undeleted_[batch_id] = {SystemClock::Get()->NowMs(), IsCompactionBatch(batch_id)};
  if (IsCompactionBatch(batch_id) && cleanup_delay_ms_ >= 0) DeleteExpired(batch_id);
  return Status::OK();
}

void CompactibleLog::DeleteExpired(int64_t compacted_batch) {
  // Best effort: a failed delete leaves a file that readers skip anyway (they start from
  // the latest compact file).
  const int64_t now = SystemClock::Get()->NowMs();
  if (!undeleted_listed_) {
    auto listed = fs_->List(dir_, false);
    if (!listed.ok()) return;
    for (const auto& f : *listed) {
      std::string name = io::BaseName(f.path);
      const bool compact =
          name.size() > 8 && name.compare(name.size() - 8, 8, ".compact") == 0;
      if (compact) name.resize(name.size() - 8);
      int64_t id;
      if (ParseBatchId(name, &id)) undeleted_[id] = {f.modification_time_ms, compact};
    }
    undeleted_listed_ = true;
  }
  // Oldest first; the files of later batches are not older (a file not yet expired
  // ends the pass).
  for (auto it = undeleted_.begin();
       it != undeleted_.end() && it->first < compacted_batch;) {
    if (now - it->second.first < cleanup_delay_ms_) break;
    std::string path = PathOf(it->first) + (it->second.second ? ".compact" : "");
    Status st = fs_->Delete(path, false);
    if (!st.ok() && st.code() != StatusCode::kNotFound) return;  // tried again next time
    it = undeleted_.erase(it);
  }
}

Result<std::optional<std::vector<Json>>> CompactibleLog::GetEntries(
    int64_t batch_id) const {
  std::string path = EntryPath(batch_id);
  SPATE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(path));
  if (!exists) return std::optional<std::vector<Json>>();
  SPATE_ASSIGN_OR_RETURN(auto v, ReadFile(path));
  return std::optional<std::vector<Json>>(std::move(v));
}

Result<std::optional<int64_t>> CompactibleLog::LatestId() const {
  auto listed = fs_->List(dir_, false);
  if (!listed.ok()) {
    if (listed.status().code() == StatusCode::kNotFound) return std::optional<int64_t>();
    return listed.status();
  }
  std::optional<int64_t> latest;
  for (const auto& f : *listed) {
    std::string name = io::BaseName(f.path);
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".compact") == 0)
      name.resize(name.size() - 8);
    int64_t id;
    if (ParseBatchId(name, &id) && (!latest || id > *latest)) latest = id;
  }
  return latest;
}

Result<std::vector<Json>> CompactibleLog::AllEntries(std::optional<int64_t> up_to) const {
  // Which ids exist, plain or compact (the writer's interval is not assumed: a reader
  // finds the latest compact file by name, as Spark derives the interval).
  std::map<int64_t, std::string> files;
  auto listed = fs_->List(dir_, false);
  if (!listed.ok()) {
    if (listed.status().code() == StatusCode::kNotFound) return std::vector<Json>();
    return listed.status();
  }
  std::optional<int64_t> last_compact;
  for (const auto& f : *listed) {
    std::string name = io::BaseName(f.path);
    bool compact = name.size() > 8 && name.compare(name.size() - 8, 8, ".compact") == 0;
    if (compact) name.resize(name.size() - 8);
    int64_t id;
    if (!ParseBatchId(name, &id) || (up_to && id > *up_to)) continue;
    files[id] = f.path;
    if (compact && (!last_compact || id > *last_compact)) last_compact = id;
  }
  std::vector<Json> out;
  if (files.empty()) return out;
  int64_t start = files.begin()->first;
  if (last_compact) {
    SPATE_ASSIGN_OR_RETURN(out, ReadFile(files[*last_compact]));
    start = *last_compact + 1;
  }
  int64_t latest = files.rbegin()->first;
  for (int64_t id = start; id <= latest; ++id) {
    auto it = files.find(id);
    if (it == files.end()) {
      return Status::Error("BATCH_METADATA_NOT_FOUND",
                           {{"batchMetadataFile", PathOf(id)}});
    }
    SPATE_ASSIGN_OR_RETURN(auto entries, ReadFile(it->second));
    for (auto& e : entries) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace spate::stream
