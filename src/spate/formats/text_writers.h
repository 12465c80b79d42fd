// Copyright spate authors.
#pragma once

// FileWriterFactory implementations (file_writer.h) of the line-oriented formats, as
// Spark's JsonFileFormat, CSVFileFormat and TextFileFormat write them:
//
//  - json: one JSON object per row (JacksonGenerator via json::JsonWriter: NULL fields
//    left out unless ignoreNullFields=false, dateFormat / timestampFormat /
//    timestampNTZFormat, timeZone), rows ended by lineSep (default "\n"); files .json.
//  - csv: UnivocityGenerator's output: optional header line, sep, quote, escape,
//    charToEscapeQuoteEscaping, quoteAll, escapeQuotes (values holding a quote are
//    quoted with inner quotes escaped), values holding the delimiter, a quote or a line
//    break quoted, nullValue for NULL (default ""), emptyValue for "" (default ""),
//    leading/trailing white space trimmed unless ignoreLeading/TrailingWhiteSpace=false,
//    dateFormat (yyyy-MM-dd), timestampFormat (yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]),
//    timestampNTZFormat, lineSep; files .csv. Nested types are rejected.
//  - text: the single STRING column, one line per row (NULL: an empty line); files .txt.
//
// compression / codec: none, uncompressed (default) or gzip (extension + ".gz"; the
// readers decompress .gz files, one split per file). Other codecs: an error.
//
// Ownership: factories are immutable; writers own their WritableFile.
// Thread safety: factories are thread safe; a writer is used by one thread.
// Failure: bad options -> Make* error; a schema the format cannot write ->
// CheckWriteSchema error (call before writing anything).

#include <map>
#include <string>

#include "spate/compute/datetime_format.h"
#include "spate/formats/csv/options.h"
#include "spate/formats/file_writer.h"

namespace spate {
class TimeZone;
}

namespace spate::formats {

/// One CSV record per row as UnivocityGenerator writes it (the CSV writer and to_csv).
/// Ownership: a value with compiled patterns. Thread safety: const methods are safe from
/// many threads (callers pass their own scratch string).
class CsvRowFormatter {
 public:
  /// The CSV writer options (see the file comment); `compression` is validated here.
  static Result<std::unique_ptr<CsvRowFormatter>> Make(
      const std::map<std::string, std::string>& options,
      const std::string& session_time_zone);
  /// Appends row `r` of `columns` (no line separator).
  void AppendRow(const std::vector<ColumnPtr>& columns, int64_t r, std::string* out,
                 std::string* scratch) const;
  /// Appends the field names of `schema` as a header record (no line separator).
  void AppendHeader(const Schema& schema, std::string* out) const;
  const csv::CsvOptions& options() const { return o_; }

 private:
  CsvRowFormatter() = default;
  void ValueText(const Column& c, int64_t r, std::string* out) const;
  void AppendField(std::string_view v, std::string* out) const;

  csv::CsvOptions o_;
  char esc_esc_ = '\0';
  std::string empty_value_;
  DateTimePattern date_, timestamp_, timestamp_ntz_;
  const TimeZone* zone_ = nullptr;
};

Result<FileWriterFactoryPtr> MakeJsonWriterFactory(
    const std::map<std::string, std::string>& options,
    const std::string& session_time_zone);
Result<FileWriterFactoryPtr> MakeCsvWriterFactory(
    const std::map<std::string, std::string>& options,
    const std::string& session_time_zone);
Result<FileWriterFactoryPtr> MakeTextWriterFactory(
    const std::map<std::string, std::string>& options);

/// Whether `format` ("json", "csv", "text") can write files of `data_schema` (the
/// columns left after partitionBy): text needs exactly one STRING column, CSV no nested
/// types. Spark's errors otherwise.
Status CheckWriteSchema(const std::string& format, const Schema& data_schema);

}  // namespace spate::formats
