// Copyright spate authors.
#include "spate/formats/csv/options.h"

#include <cstdlib>

#include "spate/formats/file_index.h"

namespace spate::formats::csv {

namespace {

// Spark's CSVExprUtils.toChar over one chunk ("x" or a backslash pair).
Result<char> DelimiterChar(std::string_view s) {
  if (s.empty())
    return Status::Invalid(
        "[INVALID_DELIMITER_VALUE.EMPTY_STRING] Invalid value for delimiter. Delimiter "
        "cannot be empty string.");
  if (s.size() == 1) {
    if (s[0] == '\\')
      return Status::Invalid(
          "[INVALID_DELIMITER_VALUE.SINGLE_BACKSLASH] Invalid value for delimiter. "
          "Single backslash is prohibited. It has special meaning as beginning of an "
          "escape sequence. To get the backslash character, pass a string with two "
          "backslashes as the delimiter.");
    return s[0];
  }
  if (s == "\\u0000") return '\0';
  if (s.size() == 2 && s[0] == '\\') {
    switch (s[1]) {
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case '"':
        return '"';
      case '\'':
        return '\'';
      case '\\':
        return '\\';
      default:
        return Status::Invalid(
            "[INVALID_DELIMITER_VALUE.UNSUPPORTED_SPECIAL_CHARACTER] Invalid value for "
            "delimiter. Unsupported special character for delimiter: " +
            std::string(s) + ".");
    }
  }
  return Status::Invalid(
      "[INVALID_DELIMITER_VALUE.DELIMITER_LONGER_THAN_EXPECTED] Invalid value for "
      "delimiter. Delimiter cannot be more than one character: " +
      std::string(s) + ".");
}

Result<std::string> DelimiterString(const std::string& s) {
  if (s.empty()) return DelimiterChar(s).status();
  if (s == "\\u0000") return std::string(1, '\0');
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t n = s[i] == '\\' ? 2 : 1;
    SPATE_ASSIGN_OR_RETURN(char c, DelimiterChar(std::string_view(s).substr(i, n)));
    out.push_back(c);
    i += n;
  }
  return out;
}

// Spark's CSVOptions.getChar error (quote, escape, comment, charToEscapeQuoteEscaping).
Status ExceedsOneChar(std::string_view key, const std::string& value) {
  return Status::Error("OPTION_VALUE_EXCEEDS_ONE_CHARACTER",
                       {{"paramName", std::string(key)}, {"actualValue", value}});
}

Result<char> CharOption(const OptionMap& m, std::string_view key, char def) {
  const std::string* v = FindOption(m, key);
  if (!v) return def;
  if (v->empty()) return '\0';
  if (v->size() == 1) return (*v)[0];
  return ExceedsOneChar(key, *v);
}

Result<int64_t> IntOption(const OptionMap& m, std::string_view key, int64_t def) {
  const std::string* v = FindOption(m, key);
  if (!v) return def;
  char* end = nullptr;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || x < INT32_MIN || x > INT32_MAX)
    return Status::Error("_LEGACY_ERROR_TEMP_2146",
                         {{"paramName", std::string(key)}, {"value", *v}});
  return x;
}

}  // namespace

Result<CsvOptions> CsvOptions::FromMap(const std::map<std::string, std::string>& m,
                                       const std::string& session_time_zone,
                                       const std::string& corrupt_column_default) {
  CsvOptions o;
  const std::string* sep = FindOption(m, "sep");
  if (!sep) sep = FindOption(m, "delimiter");
  if (sep) {
    SPATE_ASSIGN_OR_RETURN(o.delimiter, DelimiterString(*sep));
  }
  if (const std::string* mode = FindOption(m, "mode")) {
    std::string u = ToUpper(*mode);
    if (u == "PERMISSIVE")
      o.mode = ParseMode::kPermissive;
    else if (u == "DROPMALFORMED")
      o.mode = ParseMode::kDropMalformed;
    else if (u == "FAILFAST")
      o.mode = ParseMode::kFailFast;
    // Spark logs a warning and falls back to PERMISSIVE for an unknown mode.
  }
  std::string enc = StringOption(m, "encoding", StringOption(m, "charset", "UTF-8"));
  std::string le = ToUpper(enc);
  if (le != "UTF-8" && le != "UTF8" && le != "US-ASCII" && le != "ASCII") {
    return Status::Unimplemented("The CSV encoding '" + enc +
                                 "' is not supported by spate (only UTF-8)");
  }
  SPATE_ASSIGN_OR_RETURN(o.quote, CharOption(m, "quote", '"'));
  SPATE_ASSIGN_OR_RETURN(o.escape, CharOption(m, "escape", '\\'));
  if (const std::string* v = FindOption(m, "charToEscapeQuoteEscaping")) {
    if (v->size() == 1)
      o.char_to_escape_quote_escaping = (*v)[0];
    else if (v->size() > 1)
      return ExceedsOneChar("charToEscapeQuoteEscaping", *v);
  }
  if (const std::string* v = FindOption(m, "comment"); v && v->size() == 1)
    o.comment = (*v)[0];
  else if (v && v->size() > 1)
    return ExceedsOneChar("comment", *v);
  SPATE_ASSIGN_OR_RETURN(o.header, BoolOption(m, "header"));
  SPATE_ASSIGN_OR_RETURN(o.infer_schema, BoolOption(m, "inferSchema"));
  SPATE_ASSIGN_OR_RETURN(o.prefer_date, BoolOption(m, "preferDate", true));
  SPATE_ASSIGN_OR_RETURN(o.enforce_schema, BoolOption(m, "enforceSchema", true));
  SPATE_ASSIGN_OR_RETURN(o.ignore_leading_white_space,
                         BoolOption(m, "ignoreLeadingWhiteSpace", false));
  SPATE_ASSIGN_OR_RETURN(o.ignore_trailing_white_space,
                         BoolOption(m, "ignoreTrailingWhiteSpace", false));
  SPATE_ASSIGN_OR_RETURN(o.ignore_leading_white_space_in_write,
                         BoolOption(m, "ignoreLeadingWhiteSpace", true));
  SPATE_ASSIGN_OR_RETURN(o.ignore_trailing_white_space_in_write,
                         BoolOption(m, "ignoreTrailingWhiteSpace", true));
  SPATE_ASSIGN_OR_RETURN(o.multi_line, BoolOption(m, "multiLine"));
  SPATE_ASSIGN_OR_RETURN(o.escape_quotes, BoolOption(m, "escapeQuotes", true));
  SPATE_ASSIGN_OR_RETURN(o.quote_all, BoolOption(m, "quoteAll"));
  if (const std::string* v = FindOption(m, "samplingRatio")) {
    char* end = nullptr;
    o.sampling_ratio = std::strtod(v->c_str(), &end);
    if (v->empty() || *end != '\0' || !(o.sampling_ratio > 0))
      return Status::Invalid("samplingRatio (" + *v + ") should be greater than 0");
  }
  o.column_name_of_corrupt_record =
      StringOption(m, "columnNameOfCorruptRecord", corrupt_column_default);
  o.rescued_data_column = StringOption(m, "rescuedDataColumn");
  o.null_value = StringOption(m, "nullValue");
  if (const std::string* v = FindOption(m, "emptyValue")) o.empty_value = *v;
  o.nan_value = StringOption(m, "nanValue", "NaN");
  o.positive_inf = StringOption(m, "positiveInf", "Inf");
  o.negative_inf = StringOption(m, "negativeInf", "-Inf");
  o.date_format = StringOption(m, "dateFormat");
  o.timestamp_format = StringOption(m, "timestampFormat");
  o.timestamp_ntz_format = StringOption(m, "timestampNTZFormat");
  o.time_zone_id = StringOption(m, "timeZone", session_time_zone);
  if (const std::string* v = FindOption(m, "lineSep")) {
    if (v->empty())
      return Status::Invalid("requirement failed: 'lineSep' cannot be an empty string.");
    if (v->size() > 2)
      return Status::Invalid(
          "requirement failed: 'lineSep' can contain only 1 character.");
    o.line_sep = *v;
  }
  if (const std::string* v = FindOption(m, "unescapedQuoteHandling")) {
    std::string u = ToUpper(*v);
    if (u == "STOP_AT_DELIMITER")
      o.unescaped_quote_handling = UnescapedQuoteHandling::kStopAtDelimiter;
    else if (u == "BACK_TO_DELIMITER")
      o.unescaped_quote_handling = UnescapedQuoteHandling::kBackToDelimiter;
    else if (u == "STOP_AT_CLOSING_QUOTE")
      o.unescaped_quote_handling = UnescapedQuoteHandling::kStopAtClosingQuote;
    else if (u == "SKIP_VALUE")
      o.unescaped_quote_handling = UnescapedQuoteHandling::kSkipValue;
    else if (u == "RAISE_ERROR")
      o.unescaped_quote_handling = UnescapedQuoteHandling::kRaiseError;
    else
      return Status::Invalid(
          "No enum constant com.univocity.parsers.csv.UnescapedQuoteHandling." + u);
  }
  SPATE_ASSIGN_OR_RETURN(int64_t max_cols, IntOption(m, "maxColumns", 20480));
  o.max_columns = static_cast<int>(max_cols);
  SPATE_ASSIGN_OR_RETURN(o.max_chars_per_column, IntOption(m, "maxCharsPerColumn", -1));
  o.compression = StringOption(m, "compression", StringOption(m, "codec"));
  return o;
}

}  // namespace spate::formats::csv
