// Copyright spate authors.
#include "spate/formats/json_source.h"

#include <algorithm>
#include <string_view>

#include "spate/columnar/builder.h"
#include "spate/formats/json/column_parser.h"
#include "spate/formats/json/infer_schema.h"
#include "spate/formats/parquet_source.h"

namespace spate::formats {

namespace {

constexpr int64_t kBatchRows = 16384;
constexpr int64_t kReadAhead = 64 << 10;

bool BoolOption(const std::map<std::string, std::string>& options, std::string_view key) {
  for (const auto& [k, v] : options) {
    if (EqualsIgnoreCase(k, key)) return ToLower(v) == "true";
  }
  return false;
}

std::string StringOption(const std::map<std::string, std::string>& options,
                         std::string_view key) {
  for (const auto& [k, v] : options) {
    if (EqualsIgnoreCase(k, key)) return v;
  }
  return "";
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status FileError(const Status& st, const std::string& path) {
  return st.WithContext("Encountered error while reading file file:" + path);
}

// The text of the lines of a split: the bytes from the first line starting in
// [start, end) to the end of the last such line (its separator included). A line belongs
// to the split its first byte is in. start = 0 and end = size read the whole file.
Result<std::string> ReadSplitText(io::FileSystem& fs, const std::string& path,
                                  int64_t start, int64_t end, int64_t size,
                                  const std::string& sep) {
  SPATE_ASSIGN_OR_RETURN(auto file, fs.OpenForRead(path));
  const auto len = static_cast<int64_t>(sep.size());
  end = std::min(end, size);
  if (start == 0 && end == size) {
    std::string all;
    SPATE_RETURN_IF_ERROR(file->ReadAt(0, size, &all));
    return all;
  }
  std::string buf;
  const int64_t from = std::max<int64_t>(0, start - len);
  SPATE_RETURN_IF_ERROR(file->ReadAt(from, end - from, &buf));
  size_t begin = 0;
  if (start > 0) {
    // The first separator ending at or after `start - 1` ends the line that started in
    // the previous split (when it ends exactly at start - 1, the line at `start` is ours).
    size_t p = buf.find(sep);
    if (p == std::string::npos) return std::string();  // no line starts here
    begin = p + sep.size();
    if (from + static_cast<int64_t>(begin) >= end) return std::string();
  }
  // The last line: up to the first separator that ends at or after `end`.
  size_t search = static_cast<size_t>(std::max<int64_t>(
      static_cast<int64_t>(begin), end - len - from));
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

// Splits `text` into lines at `sep` (the default "\n" also strips a "\r" before it); a
// final empty line is dropped.
std::vector<std::string_view> SplitLines(std::string_view text, std::string_view sep,
                                         bool strip_cr) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find(sep, pos);
    size_t stop = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, stop - pos);
    if (strip_cr && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    pos = nl + sep.size();
  }
  return lines;
}

// Reads one split: the split's text is loaded on the first Next(), then parsed
// kBatchRows records at a time.
class LineReader final : public BatchReader {
 public:
  LineReader(io::FileSystemPtr fs, LineFileDataSource::Format format,
             const LineFileDataSource::File* file, LineFileDataSource::Split split,
             bool whole_file, SchemaPtr data_schema, const json::JsonOptions* options,
             ScanSpec spec, SchemaPtr out_schema, int num_data_columns, std::string sep,
             bool strip_cr)
      : fs_(std::move(fs)),
        format_(format),
        file_(file),
        split_(split),
        whole_file_(whole_file),
        data_schema_(std::move(data_schema)),
        options_(options),
        spec_(std::move(spec)),
        out_schema_(std::move(out_schema)),
        num_data_columns_(num_data_columns),
        file_sep_(std::move(sep)),
        strip_cr_(strip_cr) {}

  Result<BatchPtr> Next() override {
    if (!loaded_) {
      loaded_ = true;
      auto text = ReadSplitText(*fs_, file_->path, split_.start, split_.end, file_->size,
                                file_sep_);
      if (!text.ok()) return FileError(text.status(), file_->path);
      text_ = std::move(*text);
      if (whole_file_) {
        lines_.push_back(text_);
      } else {
        lines_ = SplitLines(text_, file_sep_, strip_cr_);
      }
      if (format_ == LineFileDataSource::Format::kJson) {
        auto parser = json::JsonColumnParser::Make(DataType::Struct(data_schema_->fields()),
                                                   *options_, /*allow_array_as_structs=*/true);
        if (!parser.ok()) return parser.status();
        parser_ = std::move(*parser);
      }
    }
    while (next_ < lines_.size()) {
      size_t stop = std::min(lines_.size(), next_ + static_cast<size_t>(kBatchRows));
      std::vector<ColumnPtr> data;
      int64_t rows = 0;
      if (format_ == LineFileDataSource::Format::kJson) {
        for (size_t i = next_; i < stop; ++i) {
          Status st = parser_->Append(lines_[i]);
          if (!st.ok()) return FileError(st, file_->path);
        }
        rows = parser_->num_rows();
        ColumnPtr root = parser_->Finish();
        data = root->children();
      } else {
        StringBuilder b(DataType::String(), static_cast<int64_t>(stop - next_));
        for (size_t i = next_; i < stop; ++i) b.Append(lines_[i]);
        rows = static_cast<int64_t>(stop - next_);
        data.push_back(b.Finish());
      }
      next_ = stop;
      if (rows == 0) continue;
      std::vector<ColumnPtr> cols;
      for (int c : spec_.columns) {
        if (c >= num_data_columns_) {
          cols.push_back(
              MakeConstantColumn(file_->partition_values[c - num_data_columns_], rows));
        } else {
          cols.push_back(data[static_cast<size_t>(c)]);
        }
      }
      return Batch::Make(out_schema_, std::move(cols), rows);
    }
    return BatchPtr();
  }

 private:
  io::FileSystemPtr fs_;
  LineFileDataSource::Format format_;
  const LineFileDataSource::File* file_;
  LineFileDataSource::Split split_;
  bool whole_file_;
  SchemaPtr data_schema_;
  const json::JsonOptions* options_;
  ScanSpec spec_;
  SchemaPtr out_schema_;
  int num_data_columns_;
  std::string file_sep_;
  bool strip_cr_;
  bool loaded_ = false;
  std::string text_;
  std::vector<std::string_view> lines_;
  size_t next_ = 0;
  std::unique_ptr<json::JsonColumnParser> parser_;
};

}  // namespace

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

Result<std::shared_ptr<LineFileDataSource>> LineFileDataSource::Make(
    io::FileSystemPtr fs, Format format, std::vector<std::string> paths,
    SchemaPtr user_schema, const std::map<std::string, std::string>& options,
    std::string session_time_zone, int64_t split_bytes) {
  std::shared_ptr<LineFileDataSource> src(new LineFileDataSource());
  src->fs_ = fs;
  src->format_ = format;
  src->paths_ = paths;
  const bool json_format = format == Format::kJson;
  src->whole_file_ = BoolOption(options, json_format ? "multiLine" : "wholetext");
  if (json_format) {
    std::vector<std::pair<std::string, std::string>> pairs(options.begin(), options.end());
    SPATE_ASSIGN_OR_RETURN(src->json_options_,
                           json::JsonOptions::FromPairs(pairs, session_time_zone));
  }
  src->line_sep_ = StringOption(options, "lineSep");
  const bool recursive = BoolOption(options, "recursiveFileLookup");
  const std::string glob = StringOption(options, "pathGlobFilter");

  std::vector<Candidate> cands;
  for (const auto& p : paths) {
    auto info = fs->Stat(p);
    if (!info.ok()) {
      if (info.status().code() == StatusCode::kNotFound) {
        return Status::Error("PATH_NOT_FOUND", {{"path", "file:" + p}});
      }
      return info.status();
    }
    if (info->is_directory) {
      std::vector<Candidate> found;
      SPATE_RETURN_IF_ERROR(ListFiles(*fs, p, &found));
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
  std::vector<std::string> keys;
  if (!cands.empty()) {
    for (const auto& [k, v] : cands[0].partitions) keys.push_back(k);
  }
  for (const auto& c : cands) {
    bool same = c.partitions.size() == keys.size();
    for (size_t i = 0; same && i < keys.size(); ++i) same = c.partitions[i].first == keys[i];
    if (!same) {
      return Status::Invalid("Conflicting directory structures detected: " + c.path +
                             " does not have the partition columns of " + cands[0].path);
    }
  }
  std::vector<DataTypePtr> part_types;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::vector<std::string> raw;
    for (const auto& c : cands) raw.push_back(UnescapePathName(c.partitions[i].second));
    part_types.push_back(InferPartitionType(raw));
  }
  for (const auto& c : cands) {
    File f;
    f.path = c.path;
    auto info = fs->Stat(c.path);
    if (!info.ok()) return FileError(info.status(), c.path);
    f.size = info->size;
    src->files_.push_back(std::move(f));
  }

  std::vector<Field> data_fields;
  if (user_schema) {
    for (const auto& f : user_schema->fields()) {
      bool is_part = std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
        return EqualsIgnoreCase(k, f.name);
      });
      if (!is_part) data_fields.push_back(f);
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      int idx = user_schema->FieldIndex(keys[i]);
      if (idx >= 0) part_types[i] = user_schema->field(idx).type;
    }
    if (!json_format && (data_fields.size() != 1 ||
                         data_fields[0].type->id() != TypeId::kString)) {
      return Status::Invalid("Text data source supports only a single column, and you have " +
                             std::to_string(data_fields.size()) + " columns.");
    }
  } else if (!json_format) {
    data_fields.push_back(Field{"value", DataType::String(), true});
  } else {
    if (src->files_.empty()) {
      return Status::Error("UNABLE_TO_INFER_SCHEMA", {{"format", "JSON"}});
    }
    // Spark infers from all input: read every file and infer over all records.
    std::vector<std::string> texts;
    texts.reserve(src->files_.size());
    for (const auto& f : src->files_) {
      auto text = ReadSplitText(*fs, f.path, 0, f.size, f.size, src->read_sep());
      if (!text.ok()) return FileError(text.status(), f.path);
      texts.push_back(std::move(*text));
    }
    std::vector<std::string_view> records;
    for (const auto& t : texts) {
      if (src->whole_file_) {
        records.push_back(t);
      } else {
        for (auto line : SplitLines(t, src->read_sep(), src->line_sep_.empty()))
          records.push_back(line);
      }
    }
    auto inferred = json::InferSchema(records, src->json_options_);
    if (!inferred.ok()) {
      // FAILFAST: name the first file with a malformed record.
      for (size_t fi = 0; fi < texts.size(); ++fi) {
        std::vector<std::string_view> own;
        if (src->whole_file_) {
          own.push_back(texts[fi]);
        } else {
          own = SplitLines(texts[fi], src->read_sep(), src->line_sep_.empty());
        }
        auto st = json::InferSchema(own, src->json_options_);
        if (!st.ok()) return FileError(st.status(), src->files_[fi].path);
      }
      return inferred.status();
    }
    data_fields = (*inferred)->fields();
    if (data_fields.empty()) {
      return Status::Error("UNABLE_TO_INFER_SCHEMA", {{"format", "JSON"}});
    }
  }
  if (json_format) {
    // The corrupt-record column, when present, must be a nullable STRING.
    for (const auto& f : data_fields) {
      if (f.name == src->json_options_.column_name_of_corrupt_record &&
          f.type->id() != TypeId::kString) {
        return Status::Error("INVALID_CORRUPT_RECORD_TYPE",
                             {{"columnName", "`" + f.name + "`"},
                              {"actualType", "\"" + f.type->Sql() + "\""}});
      }
    }
  }
  src->num_data_columns_ = static_cast<int>(data_fields.size());
  std::vector<Field> all = data_fields;
  for (size_t i = 0; i < keys.size(); ++i) all.push_back(Field{keys[i], part_types[i], true});
  src->schema_ = std::make_shared<const Schema>(std::move(all));
  for (size_t fi = 0; fi < src->files_.size(); ++fi) {
    File& f = src->files_[fi];
    for (size_t i = 0; i < keys.size(); ++i)
      f.partition_values.push_back(
          PartitionValue(cands[fi].partitions[i].second, part_types[i]));
    // Files split at byte offsets, except with a multi-byte lineSep, whose occurrences may
    // overlap ("||||"): a split start could not tell where a separator begins.
    if (src->whole_file_ || f.size <= split_bytes || split_bytes <= 0 ||
        src->line_sep_.size() > 1) {
      src->splits_.push_back({static_cast<int>(fi), 0, f.size});
    } else {
      for (int64_t s = 0; s < f.size; s += split_bytes)
        src->splits_.push_back({static_cast<int>(fi), s, std::min(f.size, s + split_bytes)});
    }
  }
  return src;
}

Result<std::unique_ptr<BatchReader>> LineFileDataSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  if (split < 0 || split >= num_splits())
    return MakeEmptyReader();
  const Split& s = splits_[split];
  const File& f = files_[s.file];
  for (const auto& p : spec.predicates) {
    // Partition values rule out whole files; other predicates are left to the plan.
    if (p.column < num_data_columns_ || p.column >= schema_->num_fields()) continue;
    const Value& v = f.partition_values[p.column - num_data_columns_];
    if (p.op == ScanPredicate::Op::kIsNull && !v.is_null())
      return MakeEmptyReader();
    if (p.op == ScanPredicate::Op::kIsNotNull && v.is_null())
      return MakeEmptyReader();
  }
  std::vector<Field> data(schema_->fields().begin(),
                          schema_->fields().begin() + num_data_columns_);
  std::vector<Field> out;
  for (int c : spec.columns) out.push_back(schema_->field(c));
  return std::unique_ptr<BatchReader>(std::make_unique<LineReader>(
      fs_, format_, &f, s, whole_file_, std::make_shared<const Schema>(std::move(data)),
      &json_options_, spec, std::make_shared<const Schema>(std::move(out)),
      num_data_columns_, read_sep(), line_sep_.empty()));
}

std::string LineFileDataSource::Describe() const {
  std::string loc;
  for (size_t i = 0; i < paths_.size(); ++i) loc += (i ? ", " : "") + paths_[i];
  return std::string(format_ == Format::kJson ? "FileScan json" : "FileScan text") +
         " Location: [" + loc + "], " + std::to_string(files_.size()) + " files, " +
         std::to_string(splits_.size()) + " splits";
}

}  // namespace spate::formats
