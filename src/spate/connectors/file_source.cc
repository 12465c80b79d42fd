// Copyright spate authors.
#include "spate/connectors/file_source.h"

#include <algorithm>
#include <functional>
#include <set>

#include "spate/base/mapped_allocator.h"
#include "spate/base/text_parse.h"
#include "spate/connectors/memory.h"
#include "spate/connectors/seen_files.h"
#include "spate/formats/parquet_source.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/trigger.h"
#include "spate/types/data_type.h"

namespace spate::connectors {

bool FileGlobMatch(std::string_view g, std::string_view n) {
  size_t gi = 0, ni = 0, star = std::string_view::npos, mark = 0;
  while (ni < n.size()) {
    if (gi < g.size() && g[gi] == '[') {
      size_t close = g.find(']', gi + 1);
      if (close != std::string_view::npos) {
        bool neg = gi + 1 < close && (g[gi + 1] == '^' || g[gi + 1] == '!');
        bool hit = false;
        for (size_t k = gi + 1 + (neg ? 1 : 0); k < close; ++k) {
          if (k + 2 < close && g[k + 1] == '-') {
            hit |= n[ni] >= g[k] && n[ni] <= g[k + 2];
            k += 2;
          } else {
            hit |= g[k] == n[ni];
          }
        }
        if (hit != neg) {
          gi = close + 1;
          ++ni;
          continue;
        }
      }
    } else if (gi < g.size() && (g[gi] == '?' || g[gi] == n[ni])) {
      ++gi;
      ++ni;
      continue;
    }
    if (gi < g.size() && g[gi] == '*') {
      star = gi++;
      mark = ni;
      continue;
    }
    if (star != std::string_view::npos) {
      gi = star + 1;
      ni = ++mark;
      continue;
    }
    return false;
  }
  while (gi < g.size() && g[gi] == '*') ++gi;
  return gi == g.size();
}

namespace {

struct Listed {
  std::string path;
  int64_t size;
  int64_t mtime;
};
// A listing: a folder of 100,000 files is a vector of several MB (MappedAllocator: its
// free does not raise glibc's mmap threshold, see base/mapped_allocator.h).
using ListedFiles = std::vector<Listed, MappedAllocator<Listed>>;

// The listed files a rate-limited trigger did not take (Spark's unreadFiles), kept for
// the next triggers with their paths in one buffer: the survivors of a listing are up
// to 10,000 of its strings, spread over its heap pages, and as std::strings they would
// keep those pages resident, among the batches' garbage, until the last one is taken
// (thousands of triggers later with maxFilesPerTrigger 1).
class UnreadFiles {
 public:
  struct Ref {
    std::string_view path;
    int64_t size;
    int64_t mtime;
  };
  /// Holds files [from, to) of `files` (what it held before is released).
  void Assign(const ListedFiles& files, size_t from, size_t to) {
    clear();
    size_t bytes = 0;
    for (size_t i = from; i < to; ++i) bytes += files[i].path.size();
    paths_.reserve(bytes);
    items_.reserve(to - from);
    for (size_t i = from; i < to; ++i) {
      items_.push_back(
          {paths_.size(), files[i].path.size(), files[i].size, files[i].mtime});
      paths_ += files[i].path;
    }
  }
  size_t size() const { return items_.size(); }
  Ref Get(size_t i) const {
    const Item& f = items_[i];
    return {std::string_view(paths_).substr(f.offset, f.length), f.size, f.mtime};
  }
  void clear() {
    decltype(paths_)().swap(paths_);
    decltype(items_)().swap(items_);
  }

 private:
  struct Item {
    size_t offset, length;
    int64_t size, mtime;
  };
  std::basic_string<char, std::char_traits<char>, MappedAllocator<char>> paths_;
  std::vector<Item, MappedAllocator<Item>> items_;
};

Status ListRecursive(io::FileSystem& fs, const std::string& dir, ListedFiles* out) {
  auto r = fs.List(dir, false);
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kNotFound) return Status::OK();
    return r.status();
  }
  for (const auto& f : *r) {
    std::string name = io::BaseName(f.path);
    if (name.empty() || name[0] == '_' || name[0] == '.') continue;
    if (f.is_directory) {
      SPATE_RETURN_IF_ERROR(ListRecursive(fs, f.path, out));
    } else {
      out->push_back({f.path, f.size, f.modification_time_ms});
    }
  }
  return Status::OK();
}

class FileStreamSource final : public stream::Source {
 public:
  FileStreamSource(const FileSourceOptions& o, const stream::SourceContext& ctx)
      : o_(o),
        fs_(ctx.fs),
        metadata_path_(ctx.metadata_path),
        log_(ctx.fs, ctx.metadata_path, CompactInterval(ctx), CleanupDelay(ctx)) {
    // Listed files carry absolute paths (the log's, and Spark's, form), whatever the
    // working directory.
    o_.path = io::AbsolutePath(o_.path);
  }

  /// spark.sql.streaming.fileSource.log.deletion / .cleanupDelay (default 10 minutes).
  static int64_t CleanupDelay(const stream::SourceContext& ctx) {
    return stream::LogCleanupDelayMs(
        ctx.conf("spark.sql.streaming.fileSource.log.deletion", "true"),
        ctx.conf("spark.sql.streaming.fileSource.log.cleanupDelay", "10m"));
  }

  static int CompactInterval(const stream::SourceContext& ctx) {
    int v = std::atoi(
        ctx.conf("spark.sql.streaming.fileSource.log.compactInterval", "10").c_str());
    return v > 0 ? v : 10;
  }

  Status Init() {
    const auto& opt = o_.options;
    // Both checked by MakeFileSourceFactory.
    max_files_ =
        ParseInt64(GetOption(opt, "maxFilesPerTrigger", "")).value_or(max_files_);
    max_bytes_ =
        ParseInt64(GetOption(opt, "maxBytesPerTrigger", "")).value_or(max_bytes_);
    latest_first_ = ToLower(GetOption(opt, "latestFirst", "false")) == "true";
    file_name_only_ = ToLower(GetOption(opt, "fileNameOnly", "false")) == "true";
    glob_ = GetOption(opt, "pathGlobFilter", "");
    clean_ = ToLower(GetOption(opt, "cleanSource", "off"));
    archive_dir_ = GetOption(opt, "sourceArchiveDir", "");
    std::string age = GetOption(opt, "maxFileAge", "7d");
    bool digits =
        !age.empty() && age.find_first_not_of("0123456789") == std::string::npos;
    SPATE_ASSIGN_OR_RETURN(max_file_age_ms_,
                           stream::Trigger::ParseIntervalMs(digits ? age + " ms" : age));
    // Spark: maxFileAge is ignored when latestFirst and maxFilesPerTrigger are both set.
    if (latest_first_ && max_files_ > 0) max_file_age_ms_ = INT64_MAX / 4;
    SPATE_RETURN_IF_ERROR(LoadLog());
    if (!o_.include_existing_files) SPATE_RETURN_IF_ERROR(SkipExistingFiles());
    return Status::OK();
  }

  /// include_existing_files = false (see file_source.h): the files of the first start are
  /// seen. The list is put-if-absent, so two first starts agree on one list.
  Status SkipExistingFiles() {
    const std::string marker = io::JoinPath(metadata_path_, "existingFiles");
    SPATE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(marker));
    if (!exists) {
      if (current_log_offset_ >= 0) return Status::OK();
      ListedFiles files;
      SPATE_RETURN_IF_ERROR(ListFiles(&files));
      std::string text = "v1";
      for (const auto& f : files) {
        Json e = Json::Object();
        e.Set("path", Json::String(stream::QualifyPath(f.path)));
        e.Set("timestamp", Json::Int(f.mtime));
        text += '\n';
        text += e.ToString();
      }
      SPATE_RETURN_IF_ERROR(fs_->MakeDirs(metadata_path_));
      Status st = fs_->PutIfAbsent(marker, text);
      if (!st.ok() && st.code() != StatusCode::kAlreadyExists) return st;
    }
    SPATE_ASSIGN_OR_RETURN(std::string text, fs_->ReadAll(marker));
    size_t pos = text.find('\n');
    while (pos != std::string::npos) {
      size_t next = text.find('\n', pos + 1);
      std::string_view line(text.data() + pos + 1,
                            (next == std::string::npos ? text.size() : next) - pos - 1);
      pos = next;
      if (line.empty()) continue;
      auto e = Json::Parse(line);
      if (!e.ok()) {
        return Status(
            StatusCode::kDataCorruption,
            "Corrupt existing-files list " + marker + ": " + e.status().message());
      }
      Seen(StripPath(*e), e->Find("timestamp") ? e->Find("timestamp")->int_value() : 0);
    }
    PurgeSeen();
    return Status::OK();
  }

  /// Reads the source log as it is now: every file an entry names becomes seen, and the
  /// log offset is the highest batch id among those entries. Both come from one listing
  /// of the log, so every file recorded at an offset <= current_log_offset_ is in seen_
  /// and the next entry (put-if-absent at current_log_offset_ + 1) never names a file
  /// again. (The offset once came from a second listing: an entry another process
  /// added between the two was counted but its files not seen, and taken twice.)
  Status LoadLog() {
    SPATE_ASSIGN_OR_RETURN(auto entries, log_.AllEntries());
    for (const auto& e : entries) {
      std::string p = StripPath(e);
      int64_t ts = e.Find("timestamp") ? e.Find("timestamp")->int_value() : 0;
      int64_t b = e.Find("batchId") ? e.Find("batchId")->int_value() : 0;
      Seen(p, ts);
      current_log_offset_ = std::max(current_log_offset_, b);
    }
    PurgeSeen();
    // Files listed before another process extended the log may be taken by now.
    unread_.clear();
    unread_begin_ = 0;
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return o_.schema; }
  std::string Describe() const override {
    return o_.name + "[" + stream::QualifyPath(o_.path) + "]";
  }

  Result<std::optional<Json>> LatestOffset(const std::optional<Json>& start) override {
    // The query starts after an offset this source has not read: another process
    // extended the log after Init (the query read offsets/ later than this source read
    // its log). Catch up first, or the files of those entries would look new.
    if (start && LogOffset(*start) > current_log_offset_)
      SPATE_RETURN_IF_ERROR(LoadLog());
    // The files left over by the previous trigger's rate limit, or a new listing.
    std::vector<Listed> take;
    int64_t bytes = 0;
    if (unread_begin_ < unread_.size()) {
      const size_t first = unread_begin_;
      size_t next = first;
      auto at = [&](size_t i) { return unread_.Get(i); };
      Take(unread_.size(), at, &next, &take, &bytes);
      Backlog(unread_.size(), first, at, take.size(), bytes);
      if (UnreadToKeep(unread_.size(), next, at) > 0) {
        unread_begin_ = next;  // the cached files from here on (no copies per trigger)
      } else {
        unread_.clear();
        unread_begin_ = 0;
      }
    } else {
      ListedFiles files;
      SPATE_RETURN_IF_ERROR(ListFiles(&files));
      ++listings_;
      // Newest first when latestFirst; oldest first otherwise, then by path (a total
      // order: a listing names a path once; std::sort needs no buffer of the listing's
      // size, which std::stable_sort would take from malloc).
      std::sort(files.begin(), files.end(), [&](const Listed& a, const Listed& b) {
        if (a.mtime != b.mtime)
          return latest_first_ ? a.mtime > b.mtime : a.mtime < b.mtime;
        return a.path < b.path;
      });
      size_t next = 0;
      auto at = [&](size_t i) {
        return UnreadFiles::Ref{files[i].path, files[i].size, files[i].mtime};
      };
      Take(files.size(), at, &next, &take, &bytes);
      Backlog(files.size(), 0, at, take.size(), bytes);
      unread_.Assign(files, next, next + UnreadToKeep(files.size(), next, at));
      unread_begin_ = 0;
    }
    if (!take.empty()) {
      int64_t next_id = current_log_offset_ + 1;
      std::vector<Json> entries;
      for (const auto& f : take) {
        Json e = Json::Object();
        e.Set("path", Json::String(stream::QualifyPath(f.path)));
        e.Set("timestamp", Json::Int(f.mtime));
        e.Set("batchId", Json::Int(next_id));
        entries.push_back(std::move(e));
      }
      SPATE_RETURN_IF_ERROR(log_.AddEntries(next_id, entries));
      current_log_offset_ = next_id;
      std::vector<std::string>& logged = logged_batches_[next_id];
      for (const auto& f : take) {
        Seen(f.path, f.mtime);
        logged.push_back(f.path);
      }
      PurgeSeen();
    }
    if (current_log_offset_ < 0) return std::optional<Json>();
    return std::optional<Json>(Offset(current_log_offset_));
  }

  Status PrepareForAvailableNow() override {
    ListedFiles files;
    SPATE_RETURN_IF_ERROR(ListFiles(&files));
    available_now_.emplace();
    for (const auto& f : files) available_now_->insert(f.path);
    return Status::OK();
  }

  Result<DataSourcePtr> GetBatch(const std::optional<Json>& start,
                                 const Json& end) override {
    int64_t from = start ? LogOffset(*start) + 1 : 0, to = LogOffset(end);
    std::vector<std::string> files;
    // Batches this source logged itself are known without reading the log back (a
    // compaction batch's entry would be the whole compact file).
    bool known = true;
    for (int64_t b = from; b <= to && known; ++b) known = logged_batches_.count(b) > 0;
    if (known) {
      for (int64_t b = from; b <= to; ++b) {
        const auto& f = logged_batches_[b];
        files.insert(files.end(), f.begin(), f.end());
      }
    }
    // Batches before `from` are never asked for again.
    logged_batches_.erase(logged_batches_.begin(), logged_batches_.lower_bound(from));
    for (int64_t b = from; !known && b <= to; ++b) {
      SPATE_ASSIGN_OR_RETURN(auto entries, log_.GetEntries(b));
      if (!entries) {
        // A compact file holds earlier batches too: filter by batchId.
        SPATE_ASSIGN_OR_RETURN(auto all, log_.AllEntries(to));
        files.clear();
        for (const auto& e : all) {
          int64_t id = e.Find("batchId") ? e.Find("batchId")->int_value() : -1;
          if (id >= from && id <= to) files.push_back(StripPath(e));
        }
        break;
      }
      for (const auto& e : *entries) {
        int64_t id = e.Find("batchId") ? e.Find("batchId")->int_value() : -1;
        if (id == b) files.push_back(StripPath(e));
      }
    }
    // Kept for cleanSource only (Commit drops them; without cleaning nothing would, and
    // a long stream would keep every batch's file list).
    if (Cleaning()) last_batch_files_[to] = files;
    if (files.empty()) {
      return DataSourcePtr(std::make_shared<stream::BatchesDataSource>(
          o_.schema, std::vector<BatchPtr>{}, Describe()));
    }
    return ReadFiles(files);
  }

  /// The files as one DataSource; schema columns named by key=value folders come from
  /// them.
  Result<DataSourcePtr> ReadFiles(const std::vector<std::string>& files) {
    const auto& schema = *o_.schema;
    bool recursive =
        ToLower(GetOption(o_.options, "recursiveFileLookup", "false")) == "true";
    std::string root = o_.path;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    // Group files by the partition values of their folders.
    std::map<std::vector<std::optional<std::string>>, std::vector<std::string>> groups;
    std::vector<bool> is_part(static_cast<size_t>(schema.num_fields()), false);
    bool any = false;
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>
        parsed;
    for (const auto& f : files) {
      std::vector<std::pair<std::string, std::string>> kv;
      if (!recursive && f.rfind(root + "/", 0) == 0) {
        std::string rel = io::ParentPath(f.substr(root.size() + 1));
        size_t start = 0;
        while (!rel.empty() && start <= rel.size()) {
          size_t slash = rel.find('/', start);
          std::string part = rel.substr(
              start, slash == std::string::npos ? std::string::npos : slash - start);
          size_t eq = part.find('=');
          if (eq != std::string::npos && eq > 0) {
            std::string key = part.substr(0, eq);
            for (int i = 0; i < schema.num_fields(); ++i) {
              if (ToLower(schema.field(i).name) == ToLower(key)) {
                is_part[static_cast<size_t>(i)] = true;
                any = true;
              }
            }
            kv.emplace_back(key, formats::UnescapePathName(part.substr(eq + 1)));
          }
          if (slash == std::string::npos) break;
          start = slash + 1;
        }
      }
      parsed.emplace_back(f, std::move(kv));
    }
    if (!any) return o_.reader(files, o_.schema);
    std::vector<Field> data_fields;
    for (int i = 0; i < schema.num_fields(); ++i) {
      if (!is_part[static_cast<size_t>(i)]) data_fields.push_back(schema.field(i));
    }
    auto data_schema = std::make_shared<const Schema>(data_fields);
    for (const auto& [f, kv] : parsed) {
      std::vector<std::optional<std::string>> key(
          static_cast<size_t>(schema.num_fields()));
      for (int i = 0; i < schema.num_fields(); ++i) {
        if (!is_part[static_cast<size_t>(i)]) continue;
        for (const auto& [k, v] : kv) {
          if (ToLower(k) == ToLower(schema.field(i).name) &&
              v != "__HIVE_DEFAULT_PARTITION__")
            key[i] = v;
        }
      }
      groups[key].push_back(f);
    }
    std::vector<stream::ConstantColumnsUnion::Part> parts;
    for (const auto& [key, group] : groups) {
      stream::ConstantColumnsUnion::Part part;
      SPATE_ASSIGN_OR_RETURN(part.inner, o_.reader(group, data_schema));
      for (int i = 0; i < schema.num_fields(); ++i) {
        if (!is_part[static_cast<size_t>(i)]) {
          part.constants.emplace_back();
        } else {
          const auto& t = schema.field(i).type;
          part.constants.emplace_back(key[i] ? formats::PartitionValue(*key[i], t)
                                             : Value::Null(t));
        }
      }
      parts.push_back(std::move(part));
    }
    return DataSourcePtr(std::make_shared<stream::ConstantColumnsUnion>(
        o_.schema, std::move(parts), Describe()));
  }

  Status Commit(const Json& end) override {
    if (!Cleaning()) return Status::OK();
    int64_t to = LogOffset(end);
    std::vector<std::string> files;
    for (auto it = last_batch_files_.begin(); it != last_batch_files_.end();) {
      if (it->first <= to) {
        files.insert(files.end(), it->second.begin(), it->second.end());
        it = last_batch_files_.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& f : files) {
      if (clean_ == "delete") {
        Status st = fs_->Delete(f, false);
        if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
      } else if (clean_ == "archive") {
        // The archived file keeps its full path under the archive folder (as Spark).
        std::string dest = io::JoinPath(archive_dir_, f[0] == '/' ? f.substr(1) : f);
        SPATE_RETURN_IF_ERROR(fs_->MakeDirs(io::ParentPath(dest)));
        Status st = fs_->Rename(f, dest);
        if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
      }
    }
    return Status::OK();
  }

  std::vector<std::pair<std::string, std::string>> Metrics() const override {
    if (!o_.report_backlog) return {};
    return {{"numBytesOutstanding", std::to_string(backlog_bytes_)},
            {"numFilesOutstanding", std::to_string(backlog_files_)}};
  }
  void SetReadAllAvailable() override {
    max_files_ = 0;
    max_bytes_ = 0;
  }

 private:
  static Json Offset(int64_t n) {
    Json v = Json::Object();
    v.Set("logOffset", Json::Int(n));
    return v;
  }
  static int64_t LogOffset(const Json& v) {
    if (v.is_object() && v.Find("logOffset")) return v.Find("logOffset")->int_value();
    return v.int_value();
  }
  // Entries of older spate checkpoints may hold relative paths: made absolute as the
  // listing's are.
  static std::string StripPath(const Json& e) {
    const Json* p = e.Find("path");
    return p ? io::AbsolutePath(stream::StripFileScheme(p->string_value())) : "";
  }
  bool Cleaning() const { return clean_ != "off" && !clean_.empty(); }
  std::string_view Key(const std::string& path) const {
    if (!file_name_only_) return path;
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string_view(path)
                                      : std::string_view(path).substr(slash + 1);
  }
  void Seen(const std::string& path, int64_t ts) {
    seen_.Add(Key(path), ts);
    max_seen_ts_ = std::max(max_seen_ts_, ts);
  }
  // Spark's SeenFilesMap: a file is new when it is not older than the last purge's
  // threshold and not seen; a purge forgets the files more than maxFileAge older than
  // the newest seen, so the map stays bounded.
  bool IsNew(const Listed& f) const {
    if (f.mtime < last_purge_ts_) return false;
    return !seen_.Contains(Key(f.path));
  }
  // SeenFiles finds the oldest entries in timestamp order, so a purge costs O(entries
  // purged), not a pass over every file seen (Spark's purge is such a pass, and runs
  // every trigger as the newest timestamp moves).
  void PurgeSeen() {
    if (max_seen_ts_ == INT64_MIN || max_seen_ts_ - max_file_age_ms_ <= last_purge_ts_)
      return;
    last_purge_ts_ = max_seen_ts_ - max_file_age_ms_;
    seen_.PurgeOlderThan(last_purge_ts_);
  }
  // Takes files [*next, n) (`at(i)`: an UnreadFiles::Ref) up to the trigger's limits.
  template <typename At>
  void Take(size_t n, const At& at, size_t* next, std::vector<Listed>* take,
            int64_t* bytes) const {
    for (; *next < n; ++*next) {
      const UnreadFiles::Ref f = at(*next);
      if (available_now_ && !available_now_->count(std::string(f.path))) continue;
      if (max_files_ > 0 && static_cast<int64_t>(take->size()) >= max_files_) break;
      if (max_bytes_ > 0 && !take->empty() && *bytes + f.size > max_bytes_) break;
      take->push_back({std::string(f.path), f.size, f.mtime});
      *bytes += f.size;
    }
  }
  // Listed from `first` on and not taken (also those an AvailableNow run leaves to a
  // later one).
  template <typename At>
  void Backlog(size_t n, size_t first, const At& at, size_t taken, int64_t bytes) {
    if (!o_.report_backlog) return;
    backlog_files_ = static_cast<int64_t>(n - first) - static_cast<int64_t>(taken);
    backlog_bytes_ = -bytes;
    for (size_t i = first; i < n; ++i) backlog_bytes_ += at(i).size;
  }
  // Spark's unreadFiles: with maxFilesPerTrigger (or maxBytesPerTrigger) and without
  // latestFirst, the listed files the trigger did not take are kept for the next
  // triggers (at most 10,000), so the folder is listed again only when they run out;
  // a remainder under 20% of one trigger's limit is dropped (the next trigger lists).
  // How many of files [taken, n) to keep (0: none).
  template <typename At>
  size_t UnreadToKeep(size_t n, size_t taken, const At& at) const {
    if (latest_first_ || (max_files_ <= 0 && max_bytes_ <= 0)) return 0;
    const size_t left = n - taken;
    if (max_files_ > 0) {
      if (static_cast<double>(left) <
          static_cast<double>(max_files_) * kDiscardUnseenRatio)
        return 0;
    } else {
      int64_t bytes = 0;  // stops counting at the threshold
      const double need = static_cast<double>(max_bytes_) * kDiscardUnseenRatio;
      for (size_t i = taken; i < n && static_cast<double>(bytes) < need; ++i)
        bytes += at(i).size;
      if (static_cast<double>(bytes) <
          static_cast<double>(max_bytes_) * kDiscardUnseenRatio)
        return 0;
    }
    return std::min(left, kMaxCachedUnseenFiles);
  }
  static constexpr double kDiscardUnseenRatio = 0.2;
  static constexpr size_t kMaxCachedUnseenFiles = 10000;
  Status ListFiles(ListedFiles* out) {
    ListedFiles all;
    auto st = fs_->Stat(o_.path);
    if (st.ok() && !st->is_directory) {
      all.push_back({o_.path, st->size, st->modification_time_ms});
    } else {
      SPATE_RETURN_IF_ERROR(ListRecursive(*fs_, o_.path, &all));
    }
    for (auto& f : all) {
      if (!glob_.empty() && !FileGlobMatch(glob_, io::BaseName(f.path))) continue;
      if (!IsNew(f)) continue;
      out->push_back(std::move(f));
    }
    return Status::OK();
  }

  FileSourceOptions o_;
  io::FileSystemPtr fs_;
  std::string metadata_path_;
  stream::CompactibleLog log_;
  int64_t max_files_ = 0, max_bytes_ = 0;
  bool latest_first_ = false, file_name_only_ = false;
  std::string glob_, clean_, archive_dir_;
  int64_t max_file_age_ms_ = 0;
  SeenFiles seen_;  // Spark's SeenFilesMap, compact (seen_files.h)
  int64_t max_seen_ts_ = INT64_MIN;
  int64_t current_log_offset_ = -1;
  std::optional<std::set<std::string>> available_now_;
  std::map<int64_t, std::vector<std::string>> last_batch_files_;
  int64_t last_purge_ts_ = INT64_MIN;
  UnreadFiles unread_;  // listed; [unread_begin_, end) not yet taken (unreadFiles)
  size_t unread_begin_ = 0;
  std::map<int64_t, std::vector<std::string>> logged_batches_;  // batches logged here
  int64_t listings_ = 0;
  int64_t backlog_files_ = 0, backlog_bytes_ = 0;  // report_backlog
};

}  // namespace

Result<stream::SourceFactory> MakeFileSourceFactory(FileSourceOptions options) {
  const auto& opt = options.options;
  for (const char* key : {"maxFilesPerTrigger", "maxBytesPerTrigger"}) {
    if (!HasOption(opt, key)) continue;
    std::string v = GetOption(opt, key);
    bool ok = v.size() < 18 && v.find_first_not_of("0123456789") == std::string::npos &&
              ParseInt64(v).value_or(0) > 0;
    if (!ok) {
      return Status::Invalid("Invalid value '" + v + "' for option '" + key +
                             "', must be a positive integer");
    }
  }
  std::string clean = ToLower(GetOption(opt, "cleanSource", "off"));
  if (clean != "off" && clean != "delete" && clean != "archive") {
    return Status::Invalid("Invalid mode for clean source option " +
                           GetOption(opt, "cleanSource") +
                           ". Must be one of ARCHIVE, DELETE, OFF");
  }
  if (clean == "archive" && GetOption(opt, "sourceArchiveDir").empty()) {
    return Status::Invalid("Archive mode must be used with 'sourceArchiveDir' option.");
  }
  return stream::SourceFactory(
      [options = std::move(options)](
          const stream::SourceContext& ctx) -> Result<stream::SourcePtr> {
        auto src = std::make_shared<FileStreamSource>(options, ctx);
        SPATE_RETURN_IF_ERROR(src->Init());
        return stream::SourcePtr(src);
      });
}

}  // namespace spate::connectors
