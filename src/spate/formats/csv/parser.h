// Copyright spate authors.
#pragma once

// CSV text -> columns, in two passes without per-field allocations:
//
//  1. CsvTokenizer scans a text buffer once (a 256-entry table of the bytes that matter:
//     delimiter, quote, escape, line ends) and records each field as (offset, length,
//     flags) into a flat vector reused across batches. Fields are views into the buffer;
//     only quoted fields with escapes are unescaped, into one shared scratch string.
//     Records follow univocity as Spark configures it: quoted fields (doubled quotes and
//     `escape`+quote inside), charToEscapeQuoteEscaping, comment lines, blank lines
//     skipped, ignoreLeading/TrailingWhiteSpace, unescapedQuoteHandling, maxColumns,
//     maxCharsPerColumn, and line ends "\n", "\r\n", "\r" (or lineSep). Without multiLine
//     a line end always ends the record (a quote left open ends with the line).
//  2. CsvConverter turns the tokens of a batch into typed columns, one typed loop per
//     column, as Spark's UnivocityParser converts: nullValue / empty unquoted fields ->
//     NULL, a quoted "" -> emptyValue, nanValue / positiveInf / negativeInf for floating
//     columns, Java-style (locale-free) integer / decimal / double parsing, dateFormat /
//     timestampFormat patterns (CAST-like parsing when unset). A record whose field count
//     differs from the schema, or with a field that does not convert, is malformed:
//     PERMISSIVE keeps the row (bad fields NULL, the raw record in the corrupt-record
//     column when the schema has it), DROPMALFORMED drops it, FAILFAST fails naming the
//     record.
//
//  InferCsvSchema: Spark's CSVInferSchema over tokenized records (int, bigint,
//  decimal(p,0) for larger integers, double, date (preferDate), timestamp, boolean,
//  string; a column with no values is STRING).
//
// Ownership: a tokenizer / converter keeps only options and reusable scratch buffers.
// Thread safety: one instance per thread. Failure: Status (FAILFAST, maxColumns, ...);
// never crashes on any input.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/columnar/column.h"
#include "spate/compute/datetime_format.h"
#include "spate/formats/csv/options.h"

namespace spate {
class TimeZone;
}

namespace spate::formats::csv {

struct CsvField {
  int64_t offset;  // into the text, or into CsvRecords::scratch with kScratch
  int32_t length;
  uint8_t flags;
  static constexpr uint8_t kQuoted = 1, kScratch = 2, kSkip = 4;
};

/// Tokenized records of one batch.
struct CsvRecords {
  std::vector<CsvField> fields;
  std::vector<int64_t> field_begin{
      0};  // record r's fields: [field_begin[r], field_begin[r+1])
  std::vector<int64_t> raw_begin, raw_end;  // record r's bytes in the text (no line end)
  std::vector<uint8_t> error;               // per record: 0 or an Error code
  std::string scratch;
  enum Error : uint8_t {
    kOk = 0,
    kUnescapedQuote = 1,
    kTooManyColumns = 2,
    kTooManyChars = 3
  };

  size_t size() const { return raw_begin.size(); }
  int64_t num_fields(size_t r) const { return field_begin[r + 1] - field_begin[r]; }
  std::string_view value(std::string_view text, const CsvField& f) const {
    const char* base = (f.flags & CsvField::kScratch) ? scratch.data() : text.data();
    return {base + f.offset, static_cast<size_t>(f.length)};
  }
  void Clear() {
    fields.clear();
    field_begin.assign(1, 0);
    raw_begin.clear();
    raw_end.clear();
    error.clear();
    scratch.clear();
  }
};

class CsvTokenizer {
 public:
  explicit CsvTokenizer(const CsvOptions& options);
  /// Tokenizes up to `max_records` records of `text` starting at byte `pos` (appending to
  /// `out`); returns the position after the last record read (text.size() at the end).
  size_t Tokenize(std::string_view text, size_t pos, size_t max_records, CsvRecords* out);

 private:
  bool AtLineEnd(std::string_view text, size_t p) const;
  size_t SkipLineEnd(std::string_view text, size_t p) const;
  bool AtDelimiter(std::string_view text, size_t p) const {
    return delim_.size() == 1 ? text[p] == delim_[0]
                              : text.compare(p, delim_.size(), delim_) == 0;
  }
  CsvOptions o_;
  std::string delim_;
  uint8_t special_[256] = {};  // 1: delimiter start / line end; 2: quote / escape bytes
  // The bytes that stop an unquoted / a quoted run (repeated to fill), for the 16-byte
  // SSE2 scan.
  char plain_stops_[3] = {};
  char quoted_stops_[5] = {};
};

/// One conversion error (FAILFAST and tests).
Status MalformedRecord(std::string_view record);

/// CSV holds no struct, array or map column: UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE for
/// such a field, when reading and when writing.
Status CheckCsvColumnType(const Field& f);

class CsvConverter {
 public:
  /// `data_schema`: the file's columns in order plus, anywhere, the corrupt-record column
  /// (a STRING named options.column_name_of_corrupt_record) and the rescued data column
  /// (a STRING named options.rescued_data_column). Unsupported column types (nested) are
  /// an error.
  ///
  /// The rescued data column (Databricks'): per record NULL, or a JSON object of the
  /// tokens that did not fit — a non-null token its column could not convert (the column
  /// is NULL), tokens beyond the schema's columns (named by the header, else _c<i>) —
  /// plus
  /// "_file_path". Then only a token the tokenizer rejects makes a record malformed (not
  /// a value that does not convert, nor a token count that differs from the schema's).
  static Result<std::unique_ptr<CsvConverter>> Make(SchemaPtr data_schema,
                                                    const CsvOptions& options);
  ~CsvConverter();

  /// Converts `records` (tokens of `text`) into the data columns listed in `needed`
  /// (indices into data_schema; others are left nullptr in the output). Returns the
  /// columns and sets *rows (DROPMALFORMED may drop records).
  Result<std::vector<ColumnPtr>> Convert(std::string_view text, const CsvRecords& records,
                                         const std::vector<int>& needed, int64_t* rows);
  /// The file's header names (empty when not known) and its path, for the rescued column.
  void SetRescueContext(std::vector<std::string> header, std::string file_path);

  struct Impl;

 private:
  explicit CsvConverter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Spark's CSVInferSchema: Add() the tokenized records (in order), then Finish() with the
/// column names (from the header or _c0, _c1, ...). samplingRatio keeps the records
/// KeepSampledRecord (file_index.h) keeps.
///
/// Each field's type is a fold over the column's values in order (inferField starts from
/// the type so far), which is not a merge of independent parts: Continue() composes the
/// results of two consecutive splits of a file into the fold over both where the two
/// types decide it (equal types, widening of INT/BIGINT, DOUBLE absorbing numbers, STRING
/// absorbing everything, a conflict of a number with a boolean/date/timestamp), and
/// names the columns where they do not; those are rescanned, from the type so far
/// (StartFrom / Adopt). Files are merged as Spark merges partitions (Merge).
class CsvSchemaInferrer {
 public:
  /// `file_index`: the file's key in the samplingRatio sample.
  static Result<std::unique_ptr<CsvSchemaInferrer>> Make(const CsvOptions& options,
                                                         int64_t file_index = 0);
  ~CsvSchemaInferrer();
  /// Adds `records` (tokens of `text`, whose first byte is at `text_offset` in the file).
  void Add(std::string_view text, const CsvRecords& records, int64_t text_offset = 0);
  /// Merges the types `other` inferred (Spark's mergeRowTypes: the compatible type, or
  /// none -> NULL, which ends as STRING).
  void Merge(const CsvSchemaInferrer& other);
  /// Continues this fold with `next`, the inference of the following split of the same
  /// file from scratch: afterwards this holds the fold over both, except for the columns
  /// listed in *rescan (left unchanged), whose fold needs `next`'s records again.
  void Continue(const CsvSchemaInferrer& next, std::vector<int>* rescan);
  /// Prepares a rescan: `columns` start from `from`'s types, the others are skipped.
  void StartFrom(const CsvSchemaInferrer& from, const std::vector<int>& columns);
  /// Takes the types of `columns` from `rescanned`.
  void Adopt(const CsvSchemaInferrer& rescanned, const std::vector<int>& columns);
  std::vector<Field> Finish(const std::vector<std::string>& names) const;

  struct Impl;

 private:
  explicit CsvSchemaInferrer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Column names from a header record (Spark's makeSafeHeader: empty / nullValue names
/// become _c<i>, case-insensitive duplicates get their index appended).
std::vector<std::string> MakeSafeHeader(const std::vector<std::string>& row,
                                        bool has_header, const CsvOptions& options,
                                        bool case_sensitive = false);

/// `s` if it is valid UTF-8, else a copy in *scratch with each maximal invalid subpart
/// replaced by U+FFFD (Java's decoder with REPLACE, as Spark reads text files).
std::string_view SanitizeUtf8(std::string_view s, std::string* scratch);

/// Java's Integer/Long.parseLong (ASCII digits, optional sign, range checked).
bool ParseJavaLong(std::string_view s, int64_t min, int64_t max, int64_t* out);
/// Java's Double.parseDouble (leading/trailing whitespace, optional f/d suffix, NaN,
/// Infinity); no hexadecimal form.
bool ParseJavaDouble(std::string_view s, double* out);

}  // namespace spate::formats::csv
