// Copyright spate authors.
#include "spate/formats/csv_source.h"

#include <algorithm>

#include "spate/base/thread_pool.h"
#include "spate/formats/csv/parser.h"

namespace spate::formats {

namespace {

constexpr size_t kBatchRows = 16384;

size_t SkipBom(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

std::string ReadSep(const csv::CsvOptions& o) {
  return o.line_sep.empty() ? "\n" : o.line_sep;
}

// The header record's values (as strings; NULL fields -> "").
std::vector<std::string> RecordStrings(std::string_view text, const csv::CsvRecords& recs,
                                       size_t r, const csv::CsvOptions& o) {
  std::vector<std::string> out;
  for (int64_t i = recs.field_begin[r]; i < recs.field_begin[r + 1]; ++i) {
    const csv::CsvField& f = recs.fields[static_cast<size_t>(i)];
    if (f.flags & csv::CsvField::kSkip) {
      out.emplace_back();
    } else if (f.length == 0 && (f.flags & csv::CsvField::kQuoted)) {
      out.push_back(o.empty_value_in_read());
    } else {
      out.emplace_back(recs.value(text, f));
    }
  }
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// CSVHeaderChecker's error (a SparkIllegalArgumentException of a legacy class).
Status HeaderError(std::string msg) {
  return Status::Error("_LEGACY_ERROR_TEMP_3241", {{"msg", std::move(msg)}});
}

// CSVHeaderChecker with enforceSchema=false: the header must name the schema's columns.
Status CheckHeader(const std::vector<std::string>& header, const Schema& data_schema,
                   const csv::CsvOptions& o, const std::string& path) {
  std::vector<std::string> names;
  for (const auto& f : data_schema.fields()) {
    if (f.name != o.column_name_of_corrupt_record &&
        (o.rescued_data_column.empty() || f.name != o.rescued_data_column))
      names.push_back(f.name);
  }
  if (header.size() != names.size()) {
    return HeaderError(
        "Number of column in CSV header is not equal to number of fields in the schema:\n"
        " Header length: " +
        std::to_string(header.size()) + ", schema size: " + std::to_string(names.size()) +
        "\nCSV file: file:" + path);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!EqualsIgnoreCase(header[i], names[i])) {
      return HeaderError(
          "CSV header does not conform to the schema.\n Header: " + Join(header) +
          "\n Schema: " + Join(names) + "\nExpected: " + names[i] +
          " but found: " + header[i] + "\nCSV file: file:" + path);
    }
  }
  return Status::OK();
}

// The text of a split (or a whole file) as a sequence of windows holding whole lines.
// Without multiLine, with a one-byte line separator and an uncompressed file, the bytes
// are read kWindowBytes at a time and each window is cut after its last line end, so
// memory stays bounded and the buffer is reused; otherwise the whole split is one window.
// A line belongs to the split its first byte is in.
class SplitWindows {
 public:
  static constexpr int64_t kWindowBytes = 4 << 20;

  static bool Streamable(const csv::CsvOptions& o, const std::string& path) {
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    return !o.multi_line && ReadSep(o).size() == 1 && !gz;
  }

  Status Open(io::FileSystem& fs, const InputFile& file, FileSplit split,
              const csv::CsvOptions& o) {
    sep_ = ReadSep(o);
    if (!Streamable(o, file.path)) {
      SPATE_ASSIGN_OR_RETURN(
          text_, ReadSplitText(fs, file.path, split.start, split.end, file.size, sep_));
      whole_ = true;
      return Status::OK();
    }
    SPATE_ASSIGN_OR_RETURN(in_, fs.OpenForRead(file.path));
    size_ = std::min(file.size, in_->Size());
    end_ = std::min(split.end, size_);
    // A split after the first starts after the line that crosses its start.
    read_pos_ = split.start > 0 ? split.start - 1 : 0;
    base_ = read_pos_;
    skip_first_line_ = split.start > 0;
    return Status::OK();
  }

  /// The file offset of the current window's first byte.
  int64_t base() const { return base_; }

  /// The next window of whole lines (valid until the next call); empty at the end.
  Result<std::string_view> Next() {
    if (whole_) {
      if (done_) return std::string_view();
      done_ = true;
      return std::string_view(text_);
    }
    text_.erase(0, limit_);
    base_ += static_cast<int64_t>(limit_);
    limit_ = 0;
    if (done_) return std::string_view();
    SPATE_RETURN_IF_ERROR(Refill());
    return std::string_view(text_.data(), limit_);
  }

 private:
  // Reads until the buffer holds at least one whole line of the split (or the split /
  // file ends); sets limit_ and done_.
  Status Refill() {
    const char sep = sep_[0];
    while (true) {
      if (skip_first_line_) {
        size_t p = text_.find(sep);
        if (p != std::string::npos) {
          text_.erase(0, p + 1);
          base_ += static_cast<int64_t>(p + 1);
          skip_first_line_ = false;
          if (base_ >= end_) {
            done_ = true;
            return Status::OK();
          }
        } else {
          base_ += static_cast<int64_t>(text_.size());
          text_.clear();
        }
      }
      if (!skip_first_line_) {
        // The lines that start before the split end: up to the first separator at or
        // after end - 1.
        const int64_t last_start = end_ - 1 - base_;
        if (last_start < static_cast<int64_t>(text_.size())) {
          size_t p =
              text_.find(sep, static_cast<size_t>(std::max<int64_t>(0, last_start)));
          if (p != std::string::npos) {
            limit_ = p + 1;
            done_ = true;
            return Status::OK();
          }
        }
        if (read_pos_ >= size_) {
          limit_ = text_.size();  // the last line, without a separator
          done_ = true;
          return Status::OK();
        }
        size_t last = text_.rfind(sep);
        if (last != std::string::npos &&
            last + 1 >= static_cast<size_t>(kWindowBytes / 2)) {
          limit_ = last + 1;
          return Status::OK();
        }
      } else if (read_pos_ >= size_) {
        done_ = true;
        return Status::OK();
      }
      const int64_t n = std::min(kWindowBytes, size_ - read_pos_);
      const size_t old = text_.size();
      text_.resize(old + static_cast<size_t>(n));
      SPATE_RETURN_IF_ERROR(
          in_->ReadInto(read_pos_, n, reinterpret_cast<uint8_t*>(text_.data() + old)));
      read_pos_ += n;
    }
  }

  std::string sep_;
  bool whole_ = false;
  bool done_ = false;
  std::string text_;
  size_t limit_ = 0;  // text_[0, limit_) is the current window
  std::unique_ptr<io::RandomAccessFile> in_;
  int64_t size_ = 0, end_ = 0, read_pos_ = 0, base_ = 0;
  bool skip_first_line_ = false;
};

// Reads one split window by window: tokenize, convert, batches of kBatchRows records.
class CsvReader final : public BatchReader {
 public:
  CsvReader(io::FileSystemPtr fs, const InputFile* file, FileSplit split,
            SchemaPtr data_schema, const csv::CsvOptions* options, ScanSpec spec,
            SchemaPtr out_schema, int num_data_columns)
      : fs_(std::move(fs)),
        file_(file),
        split_(split),
        data_schema_(std::move(data_schema)),
        o_(options),
        spec_(std::move(spec)),
        out_schema_(std::move(out_schema)),
        num_data_columns_(num_data_columns),
        tokenizer_(*options) {
    for (int c : spec_.columns) {
      if (c < num_data_columns_) needed_.push_back(c);
    }
  }

  Result<BatchPtr> Next() override {
    if (!loaded_) {
      loaded_ = true;
      Status st = Load();
      if (!st.ok()) return FileError(st, file_->path);
    }
    while (true) {
      if (pos_ < window_.size()) {
        recs_.Clear();
        pos_ = tokenizer_.Tokenize(window_, pos_, kBatchRows, &recs_);
        if (recs_.size() == 0) continue;
        int64_t rows = 0;
        auto data = converter_->Convert(window_, recs_, needed_, &rows);
        if (!data.ok()) return FileError(data.status(), file_->path);
        if (rows == 0) continue;
        return AssembleOutput(out_schema_, spec_, *data, *file_, num_data_columns_, rows);
      }
      auto w = windows_.Next();
      if (!w.ok()) return FileError(w.status(), file_->path);
      if (w->empty()) return BatchPtr();
      window_ = *w;
      pos_ = 0;
    }
  }

 private:
  Status Load() {
    SPATE_ASSIGN_OR_RETURN(converter_, csv::CsvConverter::Make(data_schema_, *o_));
    SPATE_RETURN_IF_ERROR(windows_.Open(*fs_, *file_, split_, *o_));
    SPATE_ASSIGN_OR_RETURN(window_, windows_.Next());
    pos_ = 0;
    if (split_.start == 0) {
      pos_ = SkipBom(window_);
      if (o_->header) {
        recs_.Clear();
        pos_ = tokenizer_.Tokenize(window_, pos_, 1, &recs_);
        if (recs_.size() == 1) header_ = RecordStrings(window_, recs_, 0, *o_);
        if (recs_.size() == 1 && !o_->enforce_schema) {
          SPATE_RETURN_IF_ERROR(CheckHeader(header_, *data_schema_, *o_, file_->path));
        }
      }
    }
    // The rescued column names tokens beyond the schema by the header (read at the file's
    // first split only: other splits name them _c<i>).
    if (!o_->rescued_data_column.empty()) {
      converter_->SetRescueContext(
          header_, file_->path[0] == '/' ? "file://" + file_->path : file_->path);
    }
    return Status::OK();
  }

  io::FileSystemPtr fs_;
  const InputFile* file_;
  FileSplit split_;
  SchemaPtr data_schema_;
  const csv::CsvOptions* o_;
  ScanSpec spec_;
  SchemaPtr out_schema_;
  int num_data_columns_;
  std::vector<int> needed_;
  csv::CsvTokenizer tokenizer_;
  std::unique_ptr<csv::CsvConverter> converter_;
  std::vector<std::string> header_;
  csv::CsvRecords recs_;
  bool loaded_ = false;
  SplitWindows windows_;
  std::string_view window_;  // the current window of whole lines
  size_t pos_ = 0;           // next byte of window_ to tokenize
};

// Schema inference over one split of a file: sets *first / *header_raw from its first
// record when asked (and not yet set), and adds its records to `inferrer` (without the
// lines equal to *skip_line, Spark's filterHeaderLine). maxColumns / maxCharsPerColumn
// fail naming the file.
Status ScanSplitForInference(io::FileSystem& fs, const InputFile& f, FileSplit split,
                             const csv::CsvOptions& o, csv::CsvSchemaInferrer* inferrer,
                             const std::string* skip_line,
                             std::optional<std::vector<std::string>>* first,
                             std::string* header_raw) {
  SplitWindows windows;
  Status st = windows.Open(fs, f, split, o);
  if (!st.ok()) return FileError(st, f.path);
  csv::CsvTokenizer tokenizer(o);
  csv::CsvRecords recs, rest;
  bool first_window = true;
  while (true) {
    auto w = windows.Next();
    if (!w.ok()) return FileError(w.status(), f.path);
    std::string_view text = *w;
    if (text.empty()) break;
    const int64_t base = windows.base();
    size_t pos = first_window && split.start == 0 ? SkipBom(text) : 0;
    first_window = false;
    while (pos < text.size()) {
      recs.Clear();
      pos = tokenizer.Tokenize(text, pos, first ? 1 : kBatchRows, &recs);
      if (recs.size() == 0) break;
      for (size_t r = 0; r < recs.size(); ++r) {
        if (recs.error[r] == csv::CsvRecords::kTooManyColumns ||
            recs.error[r] == csv::CsvRecords::kTooManyChars) {
          // The converter reports these with the record.
          SPATE_ASSIGN_OR_RETURN(
              auto conv, csv::CsvConverter::Make(
                             std::make_shared<const Schema>(std::vector<Field>{}), o));
          int64_t rows;
          auto cst = conv->Convert(text, recs, {}, &rows);
          if (!cst.ok()) return FileError(cst.status(), f.path);
        }
      }
      if (first) {
        *first = RecordStrings(text, recs, 0, o);
        *header_raw = std::string(
            text.substr(static_cast<size_t>(recs.raw_begin[0]),
                        static_cast<size_t>(recs.raw_end[0] - recs.raw_begin[0])));
        return Status::OK();
      }
      if (!inferrer) continue;
      if (!skip_line) {
        inferrer->Add(text, recs, base);
        continue;
      }
      rest.Clear();
      for (size_t r = 0; r < recs.size(); ++r) {
        std::string_view raw =
            text.substr(static_cast<size_t>(recs.raw_begin[r]),
                        static_cast<size_t>(recs.raw_end[r] - recs.raw_begin[r]));
        if (raw == *skip_line) continue;
        rest.raw_begin.push_back(recs.raw_begin[r]);
        rest.raw_end.push_back(recs.raw_end[r]);
        rest.error.push_back(recs.error[r]);
        for (int64_t i = recs.field_begin[r]; i < recs.field_begin[r + 1]; ++i)
          rest.fields.push_back(recs.fields[static_cast<size_t>(i)]);
        rest.field_begin.push_back(static_cast<int64_t>(rest.fields.size()));
      }
      rest.scratch = recs.scratch;
      inferrer->Add(text, rest, base);
    }
  }
  return Status::OK();
}

// A run of records inference folds in order: Spark's partitions of the input. Lines that
// Hadoop's reader gives a piece [start, end) (those starting in (start, end], or at 0)
// are the spate split [start + 1, end + 1) (a line belongs to the split its first byte is
// in).
using FoldRun = std::vector<FileSplit>;

// Spark's partitions of a CSV text scan: files cut into maxSplitBytes pieces, packed by
// FilePartition; files that cannot be cut (multiLine, a two-byte lineSep) are one run
// each.
std::vector<FoldRun> SparkRuns(const std::vector<InputFile>& files,
                               const csv::CsvOptions& o, const FilePacking& packing) {
  std::vector<FoldRun> runs;
  if (o.multi_line || ReadSep(o).size() != 1) {
    for (size_t f = 0; f < files.size(); ++f)
      runs.push_back({FileSplit{static_cast<int>(f), 0, files[f].size}});
    return runs;
  }
  std::vector<int64_t> file_sizes;
  for (const auto& f : files) file_sizes.push_back(f.size);
  const int64_t max_split = SparkMaxSplitBytes(file_sizes, packing);
  std::vector<FileSplit> pieces;
  std::vector<int64_t> lengths;
  for (size_t f = 0; f < files.size(); ++f) {
    const int64_t size = files[f].size;
    const bool gz = files[f].path.size() > 3 &&
                    files[f].path.compare(files[f].path.size() - 3, 3, ".gz") == 0;
    for (int64_t off = 0; off == 0 || off < size; off += max_split) {
      const int64_t len = gz ? size : std::min(max_split, size - off);
      pieces.push_back(FileSplit{static_cast<int>(f), off, off + len});
      lengths.push_back(len);
      if (gz) break;
    }
  }
  for (const auto& bin : PackLikeSpark(lengths, max_split, packing.open_cost_bytes)) {
    FoldRun run;
    for (size_t i : bin) {
      const FileSplit& p = pieces[i];
      const int64_t size = files[static_cast<size_t>(p.file)].size;
      run.push_back(FileSplit{p.file, p.start == 0 ? 0 : std::min(size, p.start + 1),
                              p.end >= size ? size : p.end + 1});
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

// The column types of `files`: Spark folds each partition's records in order and merges
// the partitions (mergeRowTypes). Every partition piece is cut into inference splits,
// inferred in parallel by `parallelism` threads, and the splits of a partition are
// composed in order into the fold over it (rescanning a split for the columns whose types
// alone do not decide it); partitions are merged in order.
Result<std::unique_ptr<csv::CsvSchemaInferrer>> InferCsvTypes(
    io::FileSystem& fs, const std::vector<InputFile>& files, const csv::CsvOptions& o,
    const std::vector<FoldRun>& runs, const std::string* skip_line, int parallelism,
    int64_t split_bytes) {
  int64_t total = 0;
  for (const auto& f : files) total += f.size;
  if (split_bytes <= 0) split_bytes = InferenceSplitBytes(total, parallelism);
  struct Part {
    size_t run;
    FileSplit split;
  };
  std::vector<Part> splits;
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const FileSplit& piece : runs[r]) {
      if (piece.end <= piece.start || files[static_cast<size_t>(piece.file)].size == 0 ||
          o.multi_line || ReadSep(o).size() != 1) {
        splits.push_back({r, piece});
        continue;
      }
      for (int64_t s = piece.start; s < piece.end; s += split_bytes)
        splits.push_back(
            {r, FileSplit{piece.file, s, std::min(piece.end, s + split_bytes)}});
    }
  }
  std::vector<std::unique_ptr<csv::CsvSchemaInferrer>> parts(splits.size());
  SPATE_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(splits.size()), parallelism, [&](int64_t i) -> Status {
        const FileSplit& s = splits[static_cast<size_t>(i)].split;
        SPATE_ASSIGN_OR_RETURN(parts[static_cast<size_t>(i)],
                               csv::CsvSchemaInferrer::Make(o, s.file));
        return ScanSplitForInference(fs, files[static_cast<size_t>(s.file)], s, o,
                                     parts[static_cast<size_t>(i)].get(), skip_line,
                                     nullptr, nullptr);
      }));
  SPATE_ASSIGN_OR_RETURN(auto merged, csv::CsvSchemaInferrer::Make(o));
  std::vector<int> rescan;
  for (size_t i = 0; i < splits.size();) {
    // parts[i] .. parts[j - 1]: the splits of one run, in order.
    size_t j = i + 1;
    csv::CsvSchemaInferrer& fold = *parts[i];
    for (; j < splits.size() && splits[j].run == splits[i].run; ++j) {
      fold.Continue(*parts[j], &rescan);
      if (rescan.empty()) continue;
      const FileSplit& s = splits[j].split;
      SPATE_ASSIGN_OR_RETURN(auto again, csv::CsvSchemaInferrer::Make(o, s.file));
      again->StartFrom(fold, rescan);
      SPATE_RETURN_IF_ERROR(ScanSplitForInference(fs, files[static_cast<size_t>(s.file)],
                                                  s, o, again.get(), skip_line, nullptr,
                                                  nullptr));
      fold.Adopt(*again, rescan);
    }
    merged->Merge(fold);
    i = j;
  }
  return merged;
}

}  // namespace

Result<std::vector<Field>> CsvDataSource::InferDataFields(
    io::FileSystem& fs, const std::vector<InputFile>& files, const csv::CsvOptions& o,
    const FilePacking& packing, int parallelism, int64_t split_bytes) {
  const std::vector<FoldRun> runs = SparkRuns(files, o, packing);
  // The first record of the scan (Spark's first()): the header (or the column count).
  std::optional<std::vector<std::string>> first;
  std::string header_raw;
  for (const auto& run : runs) {
    for (const FileSplit& piece : run) {
      SPATE_RETURN_IF_ERROR(
          ScanSplitForInference(fs, files[static_cast<size_t>(piece.file)], piece, o,
                                nullptr, nullptr, &first, &header_raw));
      if (first) break;
    }
    if (first) break;
  }
  if (!first) return std::vector<Field>{};
  std::unique_ptr<csv::CsvSchemaInferrer> inferrer;
  if (o.infer_schema) {
    SPATE_ASSIGN_OR_RETURN(
        inferrer, InferCsvTypes(fs, files, o, runs, o.header ? &header_raw : nullptr,
                                parallelism, split_bytes));
  } else {
    SPATE_ASSIGN_OR_RETURN(inferrer, csv::CsvSchemaInferrer::Make(o));
  }
  return inferrer->Finish(csv::MakeSafeHeader(*first, o.header, o));
}

Result<std::shared_ptr<CsvDataSource>> CsvDataSource::Make(
    const io::FileSystemPtr& fs, const std::vector<std::string>& paths,
    const SchemaPtr& user_schema, const std::map<std::string, std::string>& options,
    const std::string& session_time_zone, const std::string& corrupt_column_default,
    int64_t split_bytes, FilePacking packing) {
  std::shared_ptr<CsvDataSource> src(new CsvDataSource());
  src->fs_ = fs;
  src->paths_ = paths;
  SPATE_ASSIGN_OR_RETURN(
      src->options_,
      csv::CsvOptions::FromMap(options, session_time_zone, corrupt_column_default));
  const csv::CsvOptions& o = src->options_;
  SPATE_ASSIGN_OR_RETURN(FileIndex index, ListInputFiles(*fs, paths, options, user_schema,
                                                         session_time_zone));
  src->files_ = std::move(index.files);
  std::vector<Field> data_fields;
  if (user_schema) {
    data_fields = DataFieldsOf(*user_schema, index);
  } else {
    if (src->files_.empty()) {
      return Status::Error("UNABLE_TO_INFER_SCHEMA", {{"format", "CSV"}});
    }
    SPATE_ASSIGN_OR_RETURN(data_fields,
                           InferDataFields(*fs, src->files_, o, packing,
                                           ThreadPool::Default().num_threads(), 0));
  }
  if (!o.rescued_data_column.empty() &&
      std::none_of(data_fields.begin(), data_fields.end(),
                   [&](const Field& f) { return f.name == o.rescued_data_column; })) {
    data_fields.push_back(Field{o.rescued_data_column, DataType::String(), true});
  }
  for (const auto& f : data_fields) {
    if (f.name == o.column_name_of_corrupt_record &&
        (f.type->id() != TypeId::kString || !f.nullable)) {
      return Status::Error("INVALID_CORRUPT_RECORD_TYPE",
                           {{"columnName", "`" + f.name + "`"},
                            {"actualType", "\"" + f.type->Sql() + "\""}});
    }
  }
  src->num_data_columns_ = static_cast<int>(data_fields.size());
  src->data_schema_ = std::make_shared<const Schema>(data_fields);
  // Validate the types once (unsupported nested types fail here, not per split).
  SPATE_RETURN_IF_ERROR(ToStatus(csv::CsvConverter::Make(src->data_schema_, o)));
  std::vector<Field> all = data_fields;
  for (const auto& f : index.partition_fields) all.push_back(f);
  src->schema_ = std::make_shared<const Schema>(std::move(all));
  src->splits_ =
      MakeSplits(src->files_, split_bytes, !o.multi_line && o.line_sep.size() <= 1);
  return src;
}

Result<std::unique_ptr<BatchReader>> CsvDataSource::OpenSplit(
    int split, const ScanSpec& spec) const {
  const FileSplit* s = SplitToRead(split, spec);
  if (s == nullptr) return MakeEmptyReader();
  return std::unique_ptr<BatchReader>(
      std::make_unique<CsvReader>(fs_, &files_[s->file], *s, data_schema_, &options_,
                                  spec, OutputSchema(spec), num_data_columns_));
}

std::string CsvDataSource::Describe() const {
  std::string loc;
  for (size_t i = 0; i < paths_.size(); ++i) loc += (i ? ", " : "") + paths_[i];
  return "FileScan csv Location: [" + loc + "], " + std::to_string(files_.size()) +
         " files, " + std::to_string(splits_.size()) + " splits";
}

}  // namespace spate::formats
