// Copyright spate authors.
#include "spate/formats/text_writers.h"

#include <zlib.h>

#include <charconv>
#include <optional>

#include "spate/compute/datetime_format.h"
#include "spate/formats/csv/options.h"
#include "spate/formats/csv/parser.h"
#include "spate/formats/json/options.h"
#include "spate/formats/json/writer.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate::formats {

namespace {

constexpr size_t kFlushBytes = 1 << 20;

// Buffered output to a WritableFile, gzip-compressed when asked.
class TextSink {
 public:
  TextSink(std::unique_ptr<io::WritableFile> file, bool gzip)
      : file_(std::move(file)), gzip_(gzip) {}
  ~TextSink() {
    if (gzip_ && z_init_) deflateEnd(&z_);
  }
  std::string& buffer() { return buf_; }
  Status MaybeFlush() { return buf_.size() >= kFlushBytes ? Flush(false) : Status::OK(); }
  Status Close() {
    SPATE_RETURN_IF_ERROR(Flush(true));
    return file_->Close();
  }
  int64_t bytes() const {
    return file_->Position() + (gzip_ ? 0 : static_cast<int64_t>(buf_.size()));
  }

 private:
  Status Flush(bool finish) {
    if (!gzip_) {
      if (!buf_.empty()) SPATE_RETURN_IF_ERROR(file_->Append(buf_));
      buf_.clear();
      return Status::OK();
    }
    if (!z_init_) {
      z_ = {};
      if (deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                       Z_DEFAULT_STRATEGY) != Z_OK)
        return Status::Internal("gzip: deflateInit2 failed");
      z_init_ = true;
    }
    z_.next_in = reinterpret_cast<Bytef*>(buf_.data());
    z_.avail_in = static_cast<uInt>(buf_.size());
    std::string out;
    char chunk[64 << 10];
    int rc;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(chunk);
      z_.avail_out = sizeof(chunk);
      rc = deflate(&z_, finish ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) return Status::Internal("gzip: deflate failed");
      out.append(chunk, sizeof(chunk) - z_.avail_out);
    } while (z_.avail_out == 0 || (finish && rc != Z_STREAM_END));
    buf_.clear();
    if (!out.empty()) SPATE_RETURN_IF_ERROR(file_->Append(out));
    return Status::OK();
  }

  std::unique_ptr<io::WritableFile> file_;
  bool gzip_;
  bool z_init_ = false;
  z_stream z_{};
  std::string buf_;
};

// A file of one line per row: each row's text and the line separator, buffered.
class LineFileWriter : public FileWriter {
 public:
  Status Close() override { return sink_.Close(); }
  int64_t bytes_written() const override { return sink_.bytes(); }

 protected:
  LineFileWriter(std::unique_ptr<io::WritableFile> file, bool gzip, std::string sep)
      : sink_(std::move(file), gzip), sep_(std::move(sep)) {}
  // Writes line(r, &out) and the separator for each row r < n.
  template <typename F>
  Status WriteLines(int64_t n, F&& line) {
    for (int64_t r = 0; r < n; ++r) {
      line(r, &sink_.buffer());
      sink_.buffer() += sep_;
      SPATE_RETURN_IF_ERROR(sink_.MaybeFlush());
    }
    return Status::OK();
  }

  TextSink sink_;
  const std::string sep_;
};

Result<bool> ParseCompression(const std::map<std::string, std::string>& options) {
  std::string c;
  for (const auto& [k, v] : options) {
    std::string key = ToLower(k);
    if (key == "compression" || key == "codec") c = ToLower(v);
  }
  if (c.empty() || c == "none" || c == "uncompressed") return false;
  if (c == "gzip") return true;
  // Spark's class; the codecs named are the ones spate writes (Spark also has bzip2,
  // deflate, lz4 and snappy for text formats).
  return Status::Error(
      "CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION",
      {{"codecName", c}, {"availableCodecs", "none, uncompressed, gzip"}});
}

std::string OptionOr(const std::map<std::string, std::string>& options,
                     std::string_view key, const std::string& def) {
  for (const auto& [k, v] : options) {
    if (EqualsIgnoreCase(k, key)) return v;
  }
  return def;
}

// ---- json
// ------------------------------------------------------------------------------

class JsonFileWriter final : public LineFileWriter {
 public:
  JsonFileWriter(std::unique_ptr<io::WritableFile> file, bool gzip,
                 const json::JsonWriter* writer, SchemaPtr schema, std::string sep)
      : LineFileWriter(std::move(file), gzip, std::move(sep)),
        writer_(writer),
        schema_(std::move(schema)) {}
  Status Write(const BatchPtr& batch) override {
    Column row(DataType::Struct(schema_->fields()), batch->num_rows(), 0, nullptr,
               nullptr, nullptr, batch->columns());
    return WriteLines(batch->num_rows(),
                      [&](int64_t r, std::string* out) { writer_->Write(row, r, out); });
  }

 private:
  const json::JsonWriter* writer_;
  SchemaPtr schema_;
};

class JsonWriterFactory final : public FileWriterFactory {
 public:
  JsonWriterFactory(json::JsonWriter w, bool gzip, std::string sep)
      : writer_(std::move(w)), gzip_(gzip), sep_(std::move(sep)) {}
  std::string format_name() const override { return "json"; }
  std::string extension() const override { return gzip_ ? ".json.gz" : ".json"; }
  Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<io::WritableFile> file,
                                           const SchemaPtr& data_schema) const override {
    return std::unique_ptr<FileWriter>(
        new JsonFileWriter(std::move(file), gzip_, &writer_, data_schema, sep_));
  }

 private:
  json::JsonWriter writer_;
  bool gzip_;
  std::string sep_;
};

// ---- csv
// -------------------------------------------------------------------------------

class CsvFileWriter final : public LineFileWriter {
 public:
  CsvFileWriter(std::unique_ptr<io::WritableFile> file, const CsvRowFormatter* f,
                SchemaPtr schema)
      : LineFileWriter(std::move(file), f->options().compression == "gzip",
                       f->options().line_sep.empty() ? "\n" : f->options().line_sep),
        f_(f),
        schema_(std::move(schema)) {}

  Status Write(const BatchPtr& batch) override {
    MaybeWriteHeader();
    return WriteLines(batch->num_rows(), [&](int64_t r, std::string* out) {
      f_->AppendRow(batch->columns(), r, out, &scratch_);
    });
  }
  Status Close() override {
    // A header-only file for an empty result keeps the column names (Spark writes it).
    MaybeWriteHeader();
    return LineFileWriter::Close();
  }

 private:
  void MaybeWriteHeader() {
    if (!f_->options().header || wrote_header_) return;
    wrote_header_ = true;
    f_->AppendHeader(*schema_, &sink_.buffer());
    sink_.buffer() += sep_;
  }

  const CsvRowFormatter* f_;
  SchemaPtr schema_;
  bool wrote_header_ = false;
  std::string scratch_;
};

class CsvWriterFactory final : public FileWriterFactory {
 public:
  explicit CsvWriterFactory(std::unique_ptr<CsvRowFormatter> f) : f_(std::move(f)) {}
  std::string format_name() const override { return "csv"; }
  std::string extension() const override {
    return f_->options().compression == "gzip" ? ".csv.gz" : ".csv";
  }
  Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<io::WritableFile> file,
                                           const SchemaPtr& data_schema) const override {
    SPATE_RETURN_IF_ERROR(CheckWriteSchema("csv", *data_schema));
    return std::unique_ptr<FileWriter>(
        new CsvFileWriter(std::move(file), f_.get(), data_schema));
  }

 private:
  std::unique_ptr<CsvRowFormatter> f_;
};

// ---- text
// ------------------------------------------------------------------------------

class TextFileWriter final : public LineFileWriter {
 public:
  TextFileWriter(std::unique_ptr<io::WritableFile> file, bool gzip, std::string sep)
      : LineFileWriter(std::move(file), gzip, std::move(sep)) {}
  Status Write(const BatchPtr& batch) override {
    const Column& c = *batch->column(0);
    return WriteLines(batch->num_rows(), [&](int64_t r, std::string* out) {
      if (!c.IsNull(r)) *out += c.GetView(r);
    });
  }
};

class TextWriterFactory final : public FileWriterFactory {
 public:
  TextWriterFactory(bool gzip, std::string sep) : gzip_(gzip), sep_(std::move(sep)) {}
  std::string format_name() const override { return "text"; }
  std::string extension() const override { return gzip_ ? ".txt.gz" : ".txt"; }
  Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<io::WritableFile> file,
                                           const SchemaPtr& data_schema) const override {
    SPATE_RETURN_IF_ERROR(CheckWriteSchema("text", *data_schema));
    return std::unique_ptr<FileWriter>(new TextFileWriter(std::move(file), gzip_, sep_));
  }

 private:
  bool gzip_;
  std::string sep_;
};

}  // namespace

// ---- CsvRowFormatter
// ---------------------------------------------------------------------

Result<std::unique_ptr<CsvRowFormatter>> CsvRowFormatter::Make(
    const std::map<std::string, std::string>& options,
    const std::string& session_time_zone) {
  std::unique_ptr<CsvRowFormatter> f(new CsvRowFormatter());
  SPATE_ASSIGN_OR_RETURN(f->o_, csv::CsvOptions::FromMap(options, session_time_zone));
  SPATE_ASSIGN_OR_RETURN(bool gzip, ParseCompression(options));
  f->o_.compression = gzip ? "gzip" : "";
  f->esc_esc_ = f->o_.char_to_escape_quote_escaping.value_or(
      f->o_.escape != f->o_.quote ? f->o_.escape : '\0');
  f->empty_value_ = f->o_.empty_value_in_write();
  f->zone_ = TimeZone::Lookup(f->o_.time_zone_id);
  SPATE_ASSIGN_OR_RETURN(
      f->date_, DateTimePattern::Compile(f->o_.date_format.empty() ? "yyyy-MM-dd"
                                                                   : f->o_.date_format));
  SPATE_ASSIGN_OR_RETURN(f->timestamp_,
                         DateTimePattern::Compile(f->o_.timestamp_format.empty()
                                                      ? "yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]"
                                                      : f->o_.timestamp_format));
  SPATE_ASSIGN_OR_RETURN(f->timestamp_ntz_,
                         DateTimePattern::Compile(f->o_.timestamp_ntz_format.empty()
                                                      ? "yyyy-MM-dd'T'HH:mm:ss[.SSS]"
                                                      : f->o_.timestamp_ntz_format));
  return f;
}

void CsvRowFormatter::AppendHeader(const Schema& schema, std::string* out) const {
  for (int c = 0; c < schema.num_fields(); ++c) {
    if (c) *out += o_.delimiter;
    AppendField(schema.field(c).name, out);
  }
}

void CsvRowFormatter::AppendRow(const std::vector<ColumnPtr>& columns, int64_t r,
                                std::string* out, std::string* scratch) const {
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) *out += o_.delimiter;
    const Column& col = *columns[c];
    if (col.IsNull(r)) {
      *out += o_.null_value;
      continue;
    }
    scratch->clear();
    ValueText(col, r, scratch);
    if (scratch->empty() && col.type_id() == TypeId::kString) {
      *out += empty_value_;
      continue;
    }
    AppendField(*scratch, out);
  }
}

void CsvRowFormatter::ValueText(const Column& c, int64_t r, std::string* out) const {
  char buf[64];
  auto ints = [&](int64_t v) {
    auto res = std::to_chars(buf, buf + sizeof(buf), v);
    out->append(buf, static_cast<size_t>(res.ptr - buf));
  };
  switch (c.type_id()) {
    case TypeId::kBoolean:
      *out += c.GetBool(r) ? "true" : "false";
      return;
    case TypeId::kByte:
      return ints(c.raw_values<int8_t>()[r]);
    case TypeId::kShort:
      return ints(c.raw_values<int16_t>()[r]);
    case TypeId::kInt:
      return ints(c.raw_values<int32_t>()[r]);
    case TypeId::kLong:
      return ints(c.raw_values<int64_t>()[r]);
    case TypeId::kFloat:
      *out += FormatFloat(c.raw_values<float>()[r]);
      return;
    case TypeId::kDouble:
      *out += FormatDouble(c.raw_values<double>()[r]);
      return;
    case TypeId::kDecimal:
      *out += FormatDecimal(c.raw_values<int128_t>()[r], c.type()->scale());
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      *out += c.GetView(r);
      return;
    case TypeId::kDate:
      date_.Format(static_cast<int64_t>(c.raw_values<int32_t>()[r]) * 86400000000LL,
                   nullptr, out);
      return;
    case TypeId::kTimestamp:
      timestamp_.Format(c.raw_values<int64_t>()[r], zone_, out);
      return;
    case TypeId::kTimestampNtz:
      timestamp_ntz_.Format(c.raw_values<int64_t>()[r], nullptr, out);
      return;
    default:
      *out += c.GetValue(r).ToString();
      return;
  }
}

// univocity's writer: trim, then quote when needed (or always with quoteAll).
void CsvRowFormatter::AppendField(std::string_view v, std::string* out) const {
  const csv::CsvOptions& o = o_;
  if (o.ignore_leading_white_space_in_write) {
    while (!v.empty() && static_cast<unsigned char>(v.front()) <= ' ') v.remove_prefix(1);
  }
  if (o.ignore_trailing_white_space_in_write) {
    while (!v.empty() && static_cast<unsigned char>(v.back()) <= ' ') v.remove_suffix(1);
  }
  const char q = o.quote;
  bool has_quote = q != '\0' && v.find(q) != std::string_view::npos;
  bool needs = o.quote_all || (o.escape_quotes && has_quote) ||
               v.find(o.delimiter) != std::string_view::npos ||
               v.find_first_of("\r\n") != std::string_view::npos ||
               (!o.line_sep.empty() && v.find(o.line_sep) != std::string_view::npos) ||
               (o.comment != '\0' && !v.empty() && v.front() == o.comment);
  if (!needs || q == '\0') {
    *out += v;
    return;
  }
  const char esc = o.escape == '\0' ? q : o.escape;
  out->push_back(q);
  for (size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (c == q) {
      out->push_back(esc);
    } else if (c == esc && esc != q && esc_esc_ != '\0' &&
               (i + 1 == v.size() || v[i + 1] == q)) {
      out->push_back(esc_esc_);  // so that the escape does not escape the quote
    }
    out->push_back(c);
  }
  out->push_back(q);
}

Result<FileWriterFactoryPtr> MakeJsonWriterFactory(
    const std::map<std::string, std::string>& options,
    const std::string& session_time_zone) {
  SPATE_ASSIGN_OR_RETURN(bool gzip, ParseCompression(options));
  std::vector<std::pair<std::string, std::string>> pairs(options.begin(), options.end());
  SPATE_ASSIGN_OR_RETURN(auto jo, json::JsonOptions::FromPairs(pairs, session_time_zone));
  SPATE_ASSIGN_OR_RETURN(auto w, json::JsonWriter::Make(jo));
  return FileWriterFactoryPtr(std::make_shared<JsonWriterFactory>(
      std::move(w), gzip, OptionOr(options, "lineSep", "\n")));
}

Result<FileWriterFactoryPtr> MakeCsvWriterFactory(
    const std::map<std::string, std::string>& options,
    const std::string& session_time_zone) {
  SPATE_ASSIGN_OR_RETURN(auto f, CsvRowFormatter::Make(options, session_time_zone));
  return FileWriterFactoryPtr(std::make_shared<CsvWriterFactory>(std::move(f)));
}

Result<FileWriterFactoryPtr> MakeTextWriterFactory(
    const std::map<std::string, std::string>& options) {
  SPATE_ASSIGN_OR_RETURN(bool gzip, ParseCompression(options));
  return FileWriterFactoryPtr(
      std::make_shared<TextWriterFactory>(gzip, OptionOr(options, "lineSep", "\n")));
}

Status CheckWriteSchema(const std::string& format, const Schema& data_schema) {
  if (format == "text") {
    if (data_schema.num_fields() != 1) {
      return Status::Error("_LEGACY_ERROR_TEMP_1290",
                           {{"numCols", std::to_string(data_schema.num_fields())}});
    }
    const Field& f = data_schema.field(0);
    if (f.type->id() != TypeId::kString) {
      return Status::Error("UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
                           {{"columnName", "`" + f.name + "`"},
                            {"columnType", "\"" + f.type->Sql() + "\""},
                            {"format", "Text"}});
    }
  } else if (format == "csv") {
    for (const auto& f : data_schema.fields()) {
      SPATE_RETURN_IF_ERROR(csv::CheckCsvColumnType(f));
    }
  }
  return Status::OK();
}

}  // namespace spate::formats
