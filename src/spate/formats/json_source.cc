// Copyright spate authors.
#include "spate/formats/json_source.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "spate/base/json.h"
#include "spate/base/thread_pool.h"
#include "spate/columnar/builder.h"
#include "spate/formats/json/column_parser.h"
#include "spate/formats/json/infer_schema.h"
#include "spate/formats/parquet_source.h"

namespace spate::formats {

namespace {

constexpr int64_t kBatchRows = 16384;

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
             const InputFile* file, FileSplit split, bool whole_file,
             SchemaPtr data_schema, const json::JsonOptions* options, ScanSpec spec,
             SchemaPtr out_schema, int num_data_columns, std::string sep, bool strip_cr,
             int rescued_index)
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
        strip_cr_(strip_cr),
        rescued_index_(rescued_index) {}

  Result<BatchPtr> Next() override {
    if (!loaded_) {
      loaded_ = true;
      const std::string& path = file_->path;
      const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
      if (!whole_file_ && !gz) {
        // Line files stream through a bounded window.
        auto reader = SplitLineReader::Open(*fs_, path, split_.start, split_.end,
                                            file_->size, file_sep_, strip_cr_);
        if (!reader.ok()) return FileError(reader.status(), path);
        window_ = std::move(*reader);
      } else {
        auto text =
            ReadSplitText(*fs_, path, split_.start, split_.end, file_->size, file_sep_);
        if (!text.ok()) return FileError(text.status(), path);
        text_ = std::move(*text);
        if (whole_file_) {
          lines_.push_back(text_);
        } else {
          lines_ = SplitLines(text_, file_sep_, strip_cr_);
        }
      }
      if (format_ == LineFileDataSource::Format::kJson) {
        std::vector<Field> parsed = data_schema_->fields();
        if (rescued_index_ >= 0) {
          parsed.erase(parsed.begin() + rescued_index_);
          for (size_t i = 0; i < parsed.size(); ++i)
            parsed_index_[parsed[i].name] = static_cast<int>(i);
          file_path_ = file_->path[0] == '/' ? "file://" + file_->path : file_->path;
        }
        auto parser =
            json::JsonColumnParser::Make(DataType::Struct(std::move(parsed)), *options_,
                                         /*allow_array_as_structs=*/true);
        if (!parser.ok()) return parser.status();
        parser_ = std::move(*parser);
      }
    }
    if (window_ && next_ >= lines_.size()) {
      auto more = window_->NextLines(static_cast<size_t>(kBatchRows), &lines_);
      if (!more.ok()) return FileError(more.status(), file_->path);
      next_ = 0;
      if (!*more) window_.reset();
    }
    while (next_ < lines_.size()) {
      size_t stop = std::min(lines_.size(), next_ + static_cast<size_t>(kBatchRows));
      std::vector<ColumnPtr> data;
      int64_t rows = 0;
      if (format_ == LineFileDataSource::Format::kJson) {
        line_rows_.clear();
        // The lines lie in order in one buffer: the bytes up to the last line's end are
        // readable after each (the parser's in-place parse).
        const char* end = lines_.back().data() + lines_.back().size();
        for (size_t i = next_; i < stop; ++i) {
          int64_t appended = 0;
          bool unmatched = false;
          Status st = parser_->Append(
              lines_[i], &appended, &unmatched,
              static_cast<size_t>(end - (lines_[i].data() + lines_[i].size())));
          if (!st.ok()) return FileError(st, file_->path);
          // Only records with something to rescue are parsed again (a root array's rows
          // rescue nothing).
          if (rescued_index_ >= 0)
            line_rows_.push_back(appended == 1 && unmatched ? -1 : appended);
        }
        rows = parser_->num_rows();
        ColumnPtr root = parser_->Finish();
        data = root->children();
        if (rescued_index_ >= 0) {
          data.insert(data.begin() + rescued_index_, Rescue(next_, stop, data, rows));
        }
      } else {
        int64_t bytes = 0;  // the batch's bytes, so the builder never regrows
        for (size_t i = next_; i < stop; ++i)
          bytes += static_cast<int64_t>(lines_[i].size());
        StringBuilder b(DataType::String(), static_cast<int64_t>(stop - next_),
                        std::max<int64_t>(bytes, 1));
        for (size_t i = next_; i < stop; ++i) b.Append(lines_[i]);
        rows = static_cast<int64_t>(stop - next_);
        data.push_back(b.Finish());
      }
      next_ = stop;
      if (rows == 0) {
        if (window_ && next_ >= lines_.size()) {
          auto more = window_->NextLines(static_cast<size_t>(kBatchRows), &lines_);
          if (!more.ok()) return FileError(more.status(), file_->path);
          next_ = 0;
          if (!*more) window_.reset();
        }
        continue;
      }
      return AssembleOutput(out_schema_, spec_, data, *file_, num_data_columns_, rows);
    }
    return BatchPtr();
  }

 private:
  io::FileSystemPtr fs_;
  LineFileDataSource::Format format_;
  const InputFile* file_;
  FileSplit split_;
  bool whole_file_;
  SchemaPtr data_schema_;
  const json::JsonOptions* options_;
  ScanSpec spec_;
  SchemaPtr out_schema_;
  int num_data_columns_;
  // The rescued-data column of lines [begin, stop) (see json_source.h): `data` holds the
  // parsed columns, one row per appended row of line_rows_.
  ColumnPtr Rescue(size_t begin, size_t stop, const std::vector<ColumnPtr>& data,
                   int64_t rows) const {
    StringBuilder b(DataType::String(), rows);
    int64_t row = 0;
    std::string text;
    for (size_t i = begin; i < stop; ++i) {
      int64_t n = line_rows_[i - begin];
      if (n == -1) {  // one row with something to rescue
        n = 1;
        if (RescueRecord(lines_[i], data, row, &text)) {
          b.Append(text);
        } else {
          b.AppendNull();
        }
      } else {
        for (int64_t k = 0; k < n; ++k) b.AppendNull();  // nothing to rescue
      }
      row += n;
    }
    return b.Finish();
  }

  bool RescueRecord(std::string_view line, const std::vector<ColumnPtr>& data,
                    int64_t row, std::string* out) const {
    auto doc = Json::Parse(line);
    if (!doc.ok() || !doc->is_object()) return false;
    Json rescued = Json::Object();
    bool any = false;
    for (const auto& [key, value] : doc->fields()) {
      auto it = parsed_index_.find(key);
      if (it == parsed_index_.end()) {
        if (key == options_->column_name_of_corrupt_record) continue;
        rescued.Set(key, value);
        any = true;
      } else if (!value.is_null() && data[static_cast<size_t>(it->second)]->IsNull(row)) {
        rescued.Set(key, value);
        any = true;
      }
    }
    if (!any) return false;
    rescued.Set("_file_path", Json::String(file_path_));
    out->clear();
    rescued.AppendTo(out);
    return true;
  }

  std::string file_sep_;
  bool strip_cr_;
  int rescued_index_;
  std::unordered_map<std::string, int> parsed_index_;
  std::string file_path_;
  std::vector<int64_t> line_rows_;  // rows per line of the batch; -1: one row to rescue
  bool loaded_ = false;
  std::string text_;
  std::unique_ptr<SplitLineReader>
      window_;  // streaming splits (not whole files, not .gz)
  std::vector<std::string_view> lines_;
  size_t next_ = 0;
  std::unique_ptr<json::JsonColumnParser> parser_;
};

// Infers the records of one split into `inferrer`; counts the lines sampled.
Status InferSplit(io::FileSystem& fs, const InputFile& file, int file_index,
                  FileSplit split, bool whole_file, const std::string& sep, bool strip_cr,
                  double ratio, json::JsonSchemaInferrer* inferrer, int64_t* sampled) {
  const bool gz =
      file.path.size() > 3 && file.path.compare(file.path.size() - 3, 3, ".gz") == 0;
  if (!whole_file && !gz) {
    // 1 MiB windows: each split's buffer is fresh memory (page faults), and lines are
    // short.
    SPATE_ASSIGN_OR_RETURN(auto reader,
                           SplitLineReader::Open(fs, file.path, split.start, split.end,
                                                 file.size, sep, strip_cr, 1 << 20));
    std::vector<std::string_view> lines;
    while (true) {
      SPATE_ASSIGN_OR_RETURN(bool more,
                             reader->NextLines(static_cast<size_t>(kBatchRows), &lines));
      for (std::string_view line : lines) {
        if (!KeepSampledRecord(ratio, file_index, reader->OffsetOf(line))) continue;
        ++*sampled;
        SPATE_RETURN_IF_ERROR(inferrer->Add(line));
      }
      if (!more) return Status::OK();
    }
  }
  SPATE_ASSIGN_OR_RETURN(std::string text, ReadSplitText(fs, file.path, split.start,
                                                         split.end, file.size, sep));
  std::vector<std::string_view> lines;
  if (whole_file) {
    lines.push_back(text);
  } else {
    lines = SplitLines(text, sep, strip_cr);
  }
  for (std::string_view line : lines) {
    if (!KeepSampledRecord(ratio, file_index, line.data() - text.data())) continue;
    ++*sampled;
    SPATE_RETURN_IF_ERROR(inferrer->Add(line));
  }
  return Status::OK();
}

}  // namespace

Result<DataTypePtr> LineFileDataSource::InferJsonSchema(
    io::FileSystem& fs, const std::vector<InputFile>& files,
    const json::JsonOptions& options, bool whole_file, const std::string& sep,
    bool strip_cr, const OptionMap& reader_options, int parallelism,
    int64_t split_bytes) {
  double ratio = 1.0;
  if (const std::string* r = FindOption(reader_options, "samplingRatio")) {
    char* end = nullptr;
    ratio = std::strtod(r->c_str(), &end);
    if (r->empty() || *end != '\0' || !(ratio > 0)) {
      return Status::Invalid("samplingRatio (" + *r + ") should be greater than 0");
    }
  }
  // One inferrer per split, merged in split order (the merge is associative and
  // commutative: any splitting gives the schema of one pass over all records).
  const std::vector<FileSplit> splits = MakeInferenceSplits(
      files, !whole_file && sep.size() <= 1, parallelism, split_bytes);
  auto run = [&](double r) -> Result<DataTypePtr> {
    std::vector<std::unique_ptr<json::JsonSchemaInferrer>> parts(splits.size());
    std::vector<int64_t> sampled(splits.size(), 0);
    SPATE_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(
        static_cast<int64_t>(splits.size()), parallelism, [&](int64_t i) -> Status {
          const FileSplit& s = splits[static_cast<size_t>(i)];
          const InputFile& f = files[static_cast<size_t>(s.file)];
          parts[static_cast<size_t>(i)] =
              std::make_unique<json::JsonSchemaInferrer>(options);
          Status st = InferSplit(fs, f, s.file, s, whole_file, sep, strip_cr, r,
                                 parts[static_cast<size_t>(i)].get(),
                                 &sampled[static_cast<size_t>(i)]);
          return st.ok() ? st : FileError(st, f.path);
        }));
    int64_t total = 0;
    for (int64_t n : sampled) total += n;
    if (total == 0 && r <= 0.99)
      return nullptr;  // an empty sample: infer from everything
    json::JsonSchemaInferrer all(options);
    for (const auto& p : parts) all.Merge(*p);
    return all.Finish();
  };
  SPATE_ASSIGN_OR_RETURN(DataTypePtr schema, run(ratio));
  if (!schema) {
    SPATE_ASSIGN_OR_RETURN(schema, run(1.0));
  }
  return schema;
}

Result<std::shared_ptr<LineFileDataSource>> LineFileDataSource::Make(
    const io::FileSystemPtr& fs, Format format, const std::vector<std::string>& paths,
    const SchemaPtr& user_schema, const std::map<std::string, std::string>& options,
    const std::string& session_time_zone, int64_t split_bytes) {
  std::shared_ptr<LineFileDataSource> src(new LineFileDataSource());
  src->fs_ = fs;
  src->format_ = format;
  src->paths_ = paths;
  const bool json_format = format == Format::kJson;
  SPATE_ASSIGN_OR_RETURN(src->whole_file_,
                         BoolOption(options, json_format ? "multiLine" : "wholetext"));
  if (json_format) {
    // Only UTF-8 input (Spark also reads UTF-16/32 and other charsets).
    for (const char* key : {"encoding", "charset"}) {
      if (const std::string* e = FindOption(options, key)) {
        const std::string u = ToUpper(*e);
        if (u != "UTF-8" && u != "UTF8" && u != "US-ASCII" && u != "ASCII") {
          return Status::Unimplemented("The JSON encoding '" + *e +
                                       "' is not supported by spate (only UTF-8)");
        }
      }
    }
    std::vector<std::pair<std::string, std::string>> pairs(options.begin(),
                                                           options.end());
    SPATE_ASSIGN_OR_RETURN(src->json_options_,
                           json::JsonOptions::FromPairs(pairs, session_time_zone));
  }
  src->line_sep_ = StringOption(options, "lineSep");
  SPATE_ASSIGN_OR_RETURN(FileIndex index, ListInputFiles(*fs, paths, options, user_schema,
                                                         session_time_zone));
  src->files_ = std::move(index.files);
  std::vector<Field> data_fields;
  if (user_schema) {
    data_fields = DataFieldsOf(*user_schema, index);
    if (!json_format &&
        (data_fields.size() != 1 || data_fields[0].type->id() != TypeId::kString)) {
      return Status::Invalid(
          "Text data source supports only a single column, and you have " +
          std::to_string(data_fields.size()) + " columns.");
    }
  } else if (!json_format) {
    data_fields.push_back(Field{"value", DataType::String(), true});
  } else {
    if (src->files_.empty()) {
      return Status::Error("UNABLE_TO_INFER_SCHEMA", {{"format", "JSON"}});
    }
    // Spark infers from all input: every record, in parallel over splits (see
    // InferJsonSchema).
    ThreadPool& pool = ThreadPool::Default();
    auto inferred = InferJsonSchema(
        *fs, src->files_, src->json_options_, src->whole_file_, src->read_sep(),
        src->line_sep_.empty(), options, pool.num_threads(), 0);
    if (!inferred.ok()) return inferred.status();
    data_fields = (*inferred)->fields();
    if (data_fields.empty()) {
      return Status::Error("UNABLE_TO_INFER_SCHEMA", {{"format", "JSON"}});
    }
  }
  if (json_format) {
    const std::string rescued = StringOption(options, "rescuedDataColumn");
    if (!rescued.empty()) {
      auto it = std::find_if(data_fields.begin(), data_fields.end(),
                             [&](const Field& f) { return f.name == rescued; });
      if (it == data_fields.end()) {
        data_fields.push_back(Field{rescued, DataType::String(), true});
        it = data_fields.end() - 1;
      } else if (it->type->id() != TypeId::kString) {
        return Status::Invalid("The rescued data column `" + rescued +
                               "` must be of type STRING, not " + it->type->Sql());
      }
      src->rescued_index_ = static_cast<int>(it - data_fields.begin());
      src->json_options_.bad_values_are_rescued = true;
    }
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
  for (const auto& f : index.partition_fields) all.push_back(f);
  src->schema_ = std::make_shared<const Schema>(std::move(all));
  // Files split at byte offsets, except with a multi-byte lineSep, whose occurrences may
  // overlap ("||||"): a split start could not tell where a separator begins.
  src->splits_ = MakeSplits(src->files_, split_bytes,
                            !src->whole_file_ && src->line_sep_.size() <= 1);
  return src;
}

Result<std::unique_ptr<BatchReader>> LineFileDataSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  const FileSplit* s = SplitToRead(split, spec);
  if (s == nullptr) return MakeEmptyReader();
  std::vector<Field> data(schema_->fields().begin(),
                          schema_->fields().begin() + num_data_columns_);
  return std::unique_ptr<BatchReader>(std::make_unique<LineReader>(
      fs_, format_, &files_[s->file], *s, whole_file_,
      std::make_shared<const Schema>(std::move(data)), &json_options_, spec,
      OutputSchema(spec), num_data_columns_, read_sep(), line_sep_.empty(),
      rescued_index_));
}

std::string LineFileDataSource::Describe() const {
  std::string loc;
  for (size_t i = 0; i < paths_.size(); ++i) loc += (i ? ", " : "") + paths_[i];
  return std::string(format_ == Format::kJson ? "FileScan json" : "FileScan text") +
         " Location: [" + loc + "], " + std::to_string(files_.size()) + " files, " +
         std::to_string(splits_.size()) + " splits";
}

}  // namespace spate::formats
