// Copyright spate authors.
#include "spate/formats/file_index.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "spate/base/thread_pool.h"
#include "spate/columnar/builder.h"
#include "spate/compute/bound_expr.h"
#include "spate/compute/datetime_text.h"
#include "spate/formats/parquet_source.h"
#include "spate/types/timezone.h"

namespace spate::formats {

namespace {

constexpr int64_t kReadAhead = 64 << 10;

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// modifiedBefore / modifiedAfter: a timestamp in `zone` -> milliseconds since the epoch.
Result<int64_t> ModifiedThreshold(const std::string& strategy, const std::string& text,
                                  const std::string& zone) {
  EvalContext ctx;
  ctx.time_zone_id = zone;
  ctx.time_zone = TimeZone::Lookup(zone);
  int64_t micros = 0;
  if (!CastStringToTimestamp(text, ctx, &micros)) {
    return Status::Error("_LEGACY_ERROR_TEMP_1294",
                         {{"strategy", ToLower(strategy)}, {"timeString", text}});
  }
  return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
}

}  // namespace

const std::string* FindOption(const OptionMap& options, std::string_view key) {
  for (const auto& [k, v] : options) {
    if (EqualsIgnoreCase(k, key)) return &v;
  }
  return nullptr;
}

std::string StringOption(const OptionMap& options, std::string_view key,
                         const std::string& def) {
  const std::string* v = FindOption(options, key);
  return v ? *v : def;
}

Result<bool> BoolOption(const OptionMap& options, std::string_view key, bool def) {
  const std::string* v = FindOption(options, key);
  if (!v) return def;
  std::string l = ToLower(*v);
  if (l == "true") return true;
  if (l == "false") return false;
  return Status::Error("_LEGACY_ERROR_TEMP_2147", {{"paramName", std::string(key)}});
}

Status FileError(const Status& st, const std::string& path) {
  return st.WithContext("Encountered error while reading file file:" + path);
}

Result<FileIndex> ListInputFiles(io::FileSystem& fs,
                                 const std::vector<std::string>& paths,
                                 const OptionMap& options, const SchemaPtr& user_schema,
                                 const std::string& session_time_zone) {
  SPATE_ASSIGN_OR_RETURN(bool recursive, BoolOption(options, "recursiveFileLookup"));
  const std::string glob = StringOption(options, "pathGlobFilter");
  const std::string zone = StringOption(options, "timeZone", session_time_zone);
  std::optional<int64_t> before, after;
  if (const std::string* v = FindOption(options, "modifiedBefore")) {
    SPATE_ASSIGN_OR_RETURN(before, ModifiedThreshold("modifiedBefore", *v, zone));
  }
  if (const std::string* v = FindOption(options, "modifiedAfter")) {
    SPATE_ASSIGN_OR_RETURN(after, ModifiedThreshold("modifiedAfter", *v, zone));
  }

  std::vector<Candidate> cands;
  for (const auto& p : paths) {
    auto info = fs.Stat(p);
    if (!info.ok()) {
      if (info.status().code() == StatusCode::kNotFound) {
        return Status::Error("PATH_NOT_FOUND", {{"path", "file:" + p}});
      }
      return info.status();
    }
    if (info->is_directory) {
      std::vector<Candidate> found;
      SPATE_RETURN_IF_ERROR(ListFiles(fs, p, &found));
      for (auto& c : found) {
        if (!glob.empty() && !GlobMatch(glob, BaseName(c.path))) continue;
        if (recursive) c.partitions.clear();
        cands.push_back(std::move(c));
      }
    } else {
      cands.push_back(Candidate{p, {}});
    }
  }
  std::sort(cands.begin(), cands.end(),
            [](const Candidate& a, const Candidate& b) { return a.path < b.path; });
  FileIndex index;
  for (const auto& c : cands) {
    InputFile f;
    f.path = c.path;
    auto info = fs.Stat(c.path);
    if (!info.ok()) return FileError(info.status(), c.path);
    f.size = info->size;
    f.modification_time_ms = info->modification_time_ms;
    if (before && !(f.modification_time_ms < *before)) continue;
    if (after && !(f.modification_time_ms > *after)) continue;
    index.files.push_back(std::move(f));
  }
  // Candidates that survived the filters, in the same order.
  std::vector<const Candidate*> kept;
  {
    size_t j = 0;
    for (const auto& c : cands) {
      if (j < index.files.size() && index.files[j].path == c.path) {
        kept.push_back(&c);
        ++j;
      }
    }
  }
  std::vector<std::string> keys;
  if (!kept.empty()) {
    for (const auto& [k, v] : kept[0]->partitions) keys.push_back(k);
  }
  for (const Candidate* c : kept) {
    bool same = c->partitions.size() == keys.size();
    for (size_t i = 0; same && i < keys.size(); ++i)
      same = c->partitions[i].first == keys[i];
    if (!same) {
      return Status::Invalid("Conflicting directory structures detected: " + c->path +
                             " does not have the partition columns of " + kept[0]->path);
    }
  }
  SPATE_ASSIGN_OR_RETURN(const bool infer_types,
                         BoolOption(options, kPartitionTypeInferenceOption, true));
  for (size_t i = 0; i < keys.size(); ++i) {
    std::vector<std::string> raw;
    for (const Candidate* c : kept)
      raw.push_back(UnescapePathName(c->partitions[i].second));
    DataTypePtr t = InferPartitionType(raw, infer_types);
    if (user_schema) {
      int idx = user_schema->FieldIndex(keys[i]);
      if (idx >= 0) t = user_schema->field(idx).type;
    }
    index.partition_fields.push_back(Field{keys[i], t, true});
  }
  for (size_t fi = 0; fi < index.files.size(); ++fi) {
    for (size_t i = 0; i < keys.size(); ++i) {
      index.files[fi].partition_values.push_back(
          PartitionValue(kept[fi]->partitions[i].second, index.partition_fields[i].type,
                         session_time_zone));
    }
  }
  return index;
}

std::vector<Field> DataFieldsOf(const Schema& user_schema, const FileIndex& index) {
  std::vector<Field> out;
  for (const auto& f : user_schema.fields()) {
    bool is_part =
        std::any_of(index.partition_fields.begin(), index.partition_fields.end(),
                    [&](const Field& k) { return EqualsIgnoreCase(k.name, f.name); });
    if (!is_part) out.push_back(f);
  }
  return out;
}

std::vector<FileSplit> MakeSplits(const std::vector<InputFile>& files,
                                  int64_t split_bytes, bool splittable) {
  std::vector<FileSplit> splits;
  for (size_t fi = 0; fi < files.size(); ++fi) {
    const int64_t size = files[fi].size;
    const std::string& path = files[fi].path;
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    if (!splittable || size <= split_bytes || split_bytes <= 0 || gz) {
      splits.push_back({static_cast<int>(fi), 0, size});
    } else {
      for (int64_t s = 0; s < size; s += split_bytes)
        splits.push_back({static_cast<int>(fi), s, std::min(size, s + split_bytes)});
    }
  }
  return splits;
}

int64_t SparkMaxSplitBytes(const std::vector<int64_t>& sizes,
                           const FilePacking& packing) {
  int64_t parallelism = packing.min_partitions;
  if (parallelism <= 0) parallelism = std::max(1, ThreadPool::Default().num_threads());
  int64_t total = 0;
  for (int64_t size : sizes) total += size + packing.open_cost_bytes;
  return std::min(packing.max_partition_bytes,
                  std::max(packing.open_cost_bytes, total / parallelism));
}

std::vector<std::vector<size_t>> PackLikeSpark(const std::vector<int64_t>& sizes,
                                               int64_t max_split, int64_t open_cost) {
  std::vector<size_t> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  std::vector<std::vector<size_t>> bins;
  std::vector<size_t> current;
  int64_t current_size = 0;
  for (size_t i : order) {
    if (!current.empty() && current_size + sizes[i] > max_split) {
      bins.push_back(std::move(current));
      current.clear();
      current_size = 0;
    }
    current_size += sizes[i] + open_cost;
    current.push_back(i);
  }
  if (!current.empty()) bins.push_back(std::move(current));
  return bins;
}

int64_t InferenceSplitBytes(int64_t total_bytes, int parallelism,
                            int64_t max_split_bytes) {
  return std::clamp<int64_t>(total_bytes / (8 * std::max(parallelism, 1)), 4ll << 20,
                             std::max<int64_t>(max_split_bytes, 4ll << 20));
}

std::vector<FileSplit> MakeInferenceSplits(const std::vector<InputFile>& files,
                                           bool splittable, int parallelism,
                                           int64_t split_bytes, int64_t max_split_bytes) {
  if (split_bytes <= 0) {
    int64_t total = 0;
    for (const auto& f : files) total += f.size;
    split_bytes = InferenceSplitBytes(total, parallelism, max_split_bytes);
  }
  return MakeSplits(files, split_bytes, splittable);
}

Result<std::string> ReadSplitText(io::FileSystem& fs, const std::string& path,
                                  int64_t start, int64_t end, int64_t size,
                                  const std::string& sep) {
  SPATE_ASSIGN_OR_RETURN(auto file, fs.OpenForRead(path));
  const auto len = static_cast<int64_t>(sep.size());
  end = std::min(end, size);
  if (start == 0 && end == size) {
    std::string all;
    SPATE_RETURN_IF_ERROR(file->ReadAt(0, size, &all));
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0)
      return GunzipText(all);
    return all;
  }
  std::string buf;
  const int64_t from = std::max<int64_t>(0, start - len);
  SPATE_RETURN_IF_ERROR(file->ReadAt(from, end - from, &buf));
  size_t begin = 0;
  if (start > 0) {
    // The first separator ending at or after `start - 1` ends the line that started in
    // the previous split (when it ends exactly at start - 1, the line at `start` is
    // ours).
    size_t p = buf.find(sep);
    if (p == std::string::npos) return std::string();  // no line starts here
    begin = p + sep.size();
    if (from + static_cast<int64_t>(begin) >= end) return std::string();
  }
  // The last line: up to the first separator that ends at or after `end`.
  size_t search = static_cast<size_t>(
      std::max<int64_t>(static_cast<int64_t>(begin), end - len - from));
  int64_t pos = end;
  while (true) {
    size_t p = buf.find(sep, search);
    if (p != std::string::npos && from + static_cast<int64_t>(p) + len >= end) {
      buf.resize(p + sep.size());
      break;
    }
    if (pos >= size) break;
    std::string more;
    SPATE_RETURN_IF_ERROR(file->ReadAt(pos, std::min(kReadAhead, size - pos), &more));
    if (more.empty()) break;
    search = buf.size() >= sep.size() ? buf.size() - sep.size() + 1 : 0;
    search = std::max(search, begin);
    buf += more;
    pos += static_cast<int64_t>(more.size());
  }
  if (begin >= buf.size()) return std::string();
  buf.erase(0, begin);
  return buf;
}

Result<std::unique_ptr<SplitLineReader>> SplitLineReader::Open(
    io::FileSystem& fs, const std::string& path, int64_t start, int64_t end, int64_t size,
    std::string sep, bool strip_cr, int64_t window_bytes) {
  std::unique_ptr<SplitLineReader> r(new SplitLineReader());
  SPATE_ASSIGN_OR_RETURN(r->file_, fs.OpenForRead(path));
  r->sep_ = std::move(sep);
  r->strip_cr_ = strip_cr;
  r->size_ = std::min(size, r->file_->Size());
  r->end_ = std::min(end, r->size_);
  r->window_ =
      std::max<int64_t>(window_bytes, 2 * static_cast<int64_t>(r->sep_.size()) + 2);
  // A split after the first begins after the first separator ending at or after start - 1
  // (the line crossing `start` belongs to the previous split).
  const int64_t len = static_cast<int64_t>(r->sep_.size());
  r->read_pos_ = start > 0 ? std::max<int64_t>(0, start - len) : 0;
  r->buf_offset_ = r->read_pos_;
  r->skipping_first_ = start > 0;
  r->done_ = start >= r->end_ && start > 0;
  return r;
}

Status SplitLineReader::Fill() {
  if (cursor_ > 0) {
    std::memmove(buf_.data(), buf_.data() + cursor_, filled_ - cursor_);
    filled_ -= cursor_;
    buf_offset_ += static_cast<int64_t>(cursor_);
    cursor_ = 0;
  }
  // Room for a window, but no more than the split's remaining bytes plus some slack for
  // the line crossing its end (grown below when that line is longer), and never past the
  // end of the file: a small split of a big file, or a small file, allocates (and
  // zero-fills) a few KiB instead of the whole window.
  const int64_t rest = size_ - read_pos_;
  if (rest <= 0) return Status::OK();
  constexpr int64_t kSlack = 64 << 10;
  const auto want = static_cast<size_t>(
      std::min({window_, rest, std::max<int64_t>(end_ - read_pos_, 0) + kSlack}));
  if (filled_ + std::max<size_t>(want / 2, 1) > buf_.size())
    buf_.resize(std::max(buf_.size() * 2, filled_ + want));
  const int64_t n =
      std::min<int64_t>(static_cast<int64_t>(buf_.size() - filled_), size_ - read_pos_);
  if (n <= 0) return Status::OK();
  SPATE_RETURN_IF_ERROR(
      file_->ReadInto(read_pos_, n, reinterpret_cast<uint8_t*>(buf_.data() + filled_)));
  filled_ += static_cast<size_t>(n);
  read_pos_ += n;
  return Status::OK();
}

Result<bool> SplitLineReader::NextLines(size_t max_lines,
                                        std::vector<std::string_view>* lines) {
  lines->clear();
  if (done_) return false;
  if (cursor_ > 0 && filled_ - cursor_ < sep_.size() + 1024 && read_pos_ < size_) {
    SPATE_RETURN_IF_ERROR(Fill());
  }
  while (lines->size() < max_lines) {
    std::string_view data(buf_.data(), filled_);
    size_t p;
    if (sep_.size() ==
        1) {  // one separator byte: memchr alone (find() adds a memcmp per line)
      const void* hit = cursor_ < filled_ ? std::memchr(buf_.data() + cursor_, sep_[0],
                                                        filled_ - cursor_)
                                          : nullptr;
      p = hit ? static_cast<size_t>(static_cast<const char*>(hit) - buf_.data())
              : std::string_view::npos;
    } else {
      p = data.find(sep_, cursor_);
    }
    const bool eof = read_pos_ >= size_;
    if (p == std::string_view::npos && !eof) {
      // An incomplete line: with lines already handed out, stop here so their views stay
      // valid; otherwise make room and read on.
      if (!lines->empty()) return true;
      SPATE_RETURN_IF_ERROR(Fill());
      continue;
    }
    const int64_t line_start = buf_offset_ + static_cast<int64_t>(cursor_);
    if (skipping_first_) {
      skipping_first_ = false;
      if (p == std::string_view::npos) {  // no line starts in this split
        done_ = true;
        return !lines->empty();
      }
      cursor_ = p + sep_.size();
      if (buf_offset_ + static_cast<int64_t>(cursor_) >= end_) {
        done_ = true;
        return !lines->empty();
      }
      continue;
    }
    if (line_start >= end_ || (p == std::string_view::npos && cursor_ >= filled_)) {
      done_ = true;
      return !lines->empty();
    }
    size_t stop = p == std::string_view::npos ? filled_ : p;
    std::string_view line = data.substr(cursor_, stop - cursor_);
    if (strip_cr_ && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines->push_back(line);
    if (p == std::string_view::npos) {
      cursor_ = filled_;
      done_ = true;
      return true;
    }
    cursor_ = p + sep_.size();
  }
  return true;
}

Result<std::string> GunzipText(std::string_view data) {
  std::string out;
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK)
    return Status::Internal("gzip: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  char chunk[64 << 10];
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof(chunk);
    int rc = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - z.avail_out);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // a concatenated member
      continue;
    }
    if (rc != Z_OK) {
      inflateEnd(&z);
      return Status::IOError(std::string("Invalid gzip data: ") +
                             (z.msg ? z.msg : "corrupt stream"));
    }
    if (z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      return Status::IOError("Invalid gzip data: unexpected end of stream");
    }
  }
  inflateEnd(&z);
  return out;
}

bool PartitionsRuleOut(const ScanSpec& spec, const InputFile& file, int num_data_columns,
                       int num_fields) {
  for (const auto& p : spec.predicates) {
    // Partition values rule out whole files; other predicates are left to the plan.
    if (p.column < num_data_columns || p.column >= num_fields) continue;
    const Value& v = file.partition_values[p.column - num_data_columns];
    if (p.op == ScanPredicate::Op::kIsNull && !v.is_null()) return true;
    if (p.op == ScanPredicate::Op::kIsNotNull && v.is_null()) return true;
  }
  return false;
}

std::optional<int64_t> SplitFileDataSource::EstimatedBytes() const {
  int64_t n = 0;
  for (const auto& f : files_) n += f.size;
  return n;
}

const FileSplit* SplitFileDataSource::SplitToRead(int split, const ScanSpec& spec) const {
  if (split < 0 || split >= num_splits()) return nullptr;
  const FileSplit& s = splits_[split];
  if (PartitionsRuleOut(spec, files_[s.file], num_data_columns_, schema_->num_fields())) {
    return nullptr;
  }
  return &s;
}

SchemaPtr SplitFileDataSource::OutputSchema(const ScanSpec& spec) const {
  std::vector<Field> out;
  out.reserve(spec.columns.size());
  for (int c : spec.columns) out.push_back(schema_->field(c));
  return std::make_shared<const Schema>(std::move(out));
}

Result<BatchPtr> AssembleOutput(const SchemaPtr& out_schema, const ScanSpec& spec,
                                const std::vector<ColumnPtr>& data, const InputFile& file,
                                int num_data_columns, int64_t rows) {
  std::vector<ColumnPtr> cols;
  cols.reserve(spec.columns.size());
  for (int c : spec.columns) {
    if (c >= num_data_columns) {
      cols.push_back(
          MakeConstantColumn(file.partition_values[c - num_data_columns], rows));
    } else {
      cols.push_back(data[static_cast<size_t>(c)]);
    }
  }
  return Batch::Make(out_schema, std::move(cols), rows);
}

bool GlobMatch(std::string_view glob, std::string_view name) {
  // Iterative wildcard matching with backtracking to the last '*'.
  size_t g = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (g < glob.size() && (glob[g] == '?' || glob[g] == name[n])) {
      ++g;
      ++n;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++;
      mark = n;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

}  // namespace spate::formats
