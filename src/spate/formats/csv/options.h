// Copyright spate authors.
#pragma once

// Options of Spark's CSV data source (CSVOptions), for reading and writing. Keys are
// matched case-insensitively. Characters are single bytes (quote/escape/comment must be
// ASCII-range single characters, as univocity takes one Java char); `sep` may be several
// characters ("\t" and "\u0001"-style escapes are decoded as Spark's toDelimiterStr
// does).
//
// Ownership: a plain value. Thread safety: immutable after FromMap.
// Failure: FromMap rejects bad values (a multi-character quote, a non-boolean flag, an
// unknown mode or unescapedQuoteHandling, a non-UTF-8 encoding) with Spark's messages.

#include <map>
#include <optional>
#include <string>

#include "spate/base/status.h"
#include "spate/formats/json/options.h"

namespace spate::formats::csv {

using json::ParseMode;

enum class UnescapedQuoteHandling : uint8_t {
  kStopAtDelimiter,     // default: the value runs to the next delimiter, quotes kept
  kBackToDelimiter,     // the value is read again as unquoted (opening quote kept)
  kStopAtClosingQuote,  // the quote is content; the value ends at a closing quote
  kSkipValue,           // the value becomes NULL
  kRaiseError,          // the record is malformed
};

struct CsvOptions {
  std::string delimiter = ",";
  char quote = '"';    // '\0': no quoting
  char escape = '\\';  // '\0': no escaping
  std::optional<char> char_to_escape_quote_escaping;
  char comment = '\0';  // '\0': comments off
  bool header = false;
  bool infer_schema = false;
  bool prefer_date = true;
  bool enforce_schema = true;
  double sampling_ratio = 1.0;
  bool ignore_leading_white_space = false;  // read default (write default: true)
  bool ignore_trailing_white_space = false;
  bool ignore_leading_white_space_in_write = true;
  bool ignore_trailing_white_space_in_write = true;
  bool multi_line = false;
  ParseMode mode = ParseMode::kPermissive;
  std::string column_name_of_corrupt_record = "_corrupt_record";
  /// rescuedDataColumn (Databricks): see CsvConverter.
  std::string rescued_data_column;
  std::string null_value;
  std::optional<std::string> empty_value;  // read: "" when unset; write: "\"\""
  std::string nan_value = "NaN";
  std::string positive_inf = "Inf";
  std::string negative_inf = "-Inf";
  std::string date_format;           // empty: Spark's default (yyyy-MM-dd, then CAST)
  std::string timestamp_format;      // empty: CAST-like parsing
  std::string timestamp_ntz_format;  // empty: CAST-like parsing
  std::string time_zone_id = "UTC";
  std::string line_sep;  // empty: "\n", "\r\n" or "\r"
  UnescapedQuoteHandling unescaped_quote_handling =
      UnescapedQuoteHandling::kStopAtDelimiter;
  int max_columns = 20480;
  int64_t max_chars_per_column = -1;  // -1: unlimited
  bool escape_quotes = true;
  bool quote_all = false;
  std::string compression;

  const std::string& empty_value_in_read() const {
    static const std::string kEmpty;
    return empty_value ? *empty_value : kEmpty;
  }
  std::string empty_value_in_write() const { return empty_value ? *empty_value : "\"\""; }

  /// Applies `options` over the defaults. `session_time_zone`: the timeZone default;
  /// `corrupt_column_default`: spark.sql.columnNameOfCorruptRecord.
  static Result<CsvOptions> FromMap(
      const std::map<std::string, std::string>& options,
      const std::string& session_time_zone = "UTC",
      const std::string& corrupt_column_default = "_corrupt_record");
};

}  // namespace spate::formats::csv
