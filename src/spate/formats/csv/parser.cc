// Copyright spate authors.
#include "spate/formats/csv/parser.h"

#include <algorithm>
#include <charconv>

#include "spate/base/json.h"
#include "spate/base/utf8.h"
#include "spate/formats/file_index.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cmath>
#include <cstring>
#include <map>

#include "spate/base/json.h"
#include "spate/base/utf8.h"
#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/compute/bound_expr.h"
#include "spate/compute/cast.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate::formats::json {
// Defined in json/column_parser.cc: a decimal text as java.math.BigDecimal reads it,
// rounded half-up to `scale`; false when not a number or more than `precision` digits.
bool ParseDecimalText(std::string_view s, int precision, int scale, __int128* out);
}  // namespace spate::formats::json

namespace spate::formats::csv {

namespace {

constexpr uint8_t kDelimBit = 1, kQuoteBit = 2, kLineBit = 4;

inline bool IsSpace(char c) { return static_cast<unsigned char>(c) <= ' '; }

// The first position >= p holding one of the N `stops`, looking 16 bytes at a time; stops
// early (returning a position < n that may not be a stop) when fewer than 16 bytes
// remain, so callers finish byte by byte.
template <int N>
inline size_t FindStop(const char* t, size_t p, size_t n, const char* stops) {
#if defined(__SSE2__)
  __m128i s[N];
  for (int i = 0; i < N; ++i) s[i] = _mm_set1_epi8(stops[i]);
  while (p + 16 <= n) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + p));
    __m128i m = _mm_cmpeq_epi8(x, s[0]);
    for (int i = 1; i < N; ++i) m = _mm_or_si128(m, _mm_cmpeq_epi8(x, s[i]));
    int mask = _mm_movemask_epi8(m);
    if (mask) return p + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    p += 16;
  }
#else
  (void)t;
  (void)n;
  (void)stops;
#endif
  return p;
}

}  // namespace

// ---- tokenizer -----------------------------------------------------------------------

CsvTokenizer::CsvTokenizer(const CsvOptions& options)
    : o_(options), delim_(options.delimiter) {
  if (delim_.empty()) delim_ = ",";
  if (!o_.char_to_escape_quote_escaping && o_.escape != o_.quote) {
    o_.char_to_escape_quote_escaping = o_.escape;  // univocity's default
  }
  special_[static_cast<uint8_t>(delim_[0])] |= kDelimBit;
  if (o_.line_sep.empty()) {
    special_[static_cast<uint8_t>('\n')] |= kLineBit;
    special_[static_cast<uint8_t>('\r')] |= kLineBit;
  } else {
    special_[static_cast<uint8_t>(o_.line_sep[0])] |= kLineBit;
  }
  const char line1 = o_.line_sep.empty() ? '\n' : o_.line_sep[0];
  const char line2 = o_.line_sep.empty() ? '\r' : o_.line_sep[0];
  plain_stops_[0] = delim_[0];
  plain_stops_[1] = line1;
  plain_stops_[2] = line2;
  const char q = o_.quote != '\0' ? o_.quote : delim_[0];
  quoted_stops_[0] = q;
  quoted_stops_[1] = o_.escape != '\0' ? o_.escape : q;
  quoted_stops_[2] = o_.char_to_escape_quote_escaping.value_or('\0') != '\0'
                         ? *o_.char_to_escape_quote_escaping
                         : q;
  // Line ends stop a quoted run only without multiLine.
  quoted_stops_[3] = o_.multi_line ? q : line1;
  quoted_stops_[4] = o_.multi_line ? q : line2;
  if (o_.quote != '\0') special_[static_cast<uint8_t>(o_.quote)] |= kQuoteBit;
  if (o_.escape != '\0') special_[static_cast<uint8_t>(o_.escape)] |= kQuoteBit;
  if (o_.char_to_escape_quote_escaping && *o_.char_to_escape_quote_escaping != '\0')
    special_[static_cast<uint8_t>(*o_.char_to_escape_quote_escaping)] |= kQuoteBit;
}

bool CsvTokenizer::AtLineEnd(std::string_view text, size_t p) const {
  if (!(special_[static_cast<uint8_t>(text[p])] & kLineBit)) return false;
  if (o_.line_sep.empty()) return true;
  return text.compare(p, o_.line_sep.size(), o_.line_sep) == 0;
}

size_t CsvTokenizer::SkipLineEnd(std::string_view text, size_t p) const {
  if (p >= text.size()) return text.size();
  if (!o_.line_sep.empty()) return std::min(text.size(), p + o_.line_sep.size());
  if (text[p] == '\r' && p + 1 < text.size() && text[p + 1] == '\n') return p + 2;
  return p + 1;
}

size_t CsvTokenizer::Tokenize(std::string_view text, size_t pos, size_t max_records,
                              CsvRecords* out) {
  const size_t n = text.size();
  const char* t = text.data();
  const char quote = o_.quote;
  const char escape = o_.escape;
  const char esc_esc = o_.char_to_escape_quote_escaping.value_or('\0');
  const int64_t max_chars = o_.max_chars_per_column;
  size_t records = 0;
  // The end of an unquoted run starting at p: the next delimiter or line end.
  auto scan_plain = [&](size_t p) {
    while (p < n) {
      p = FindStop<3>(t, p, n, plain_stops_);
      if (p >= n) break;
      uint8_t c = static_cast<uint8_t>(t[p]);
      if (special_[c] & (kDelimBit | kLineBit)) {
        if ((special_[c] & kLineBit) && AtLineEnd(text, p)) break;
        if ((special_[c] & kDelimBit) && AtDelimiter(text, p)) break;
      }
      ++p;
    }
    return p;
  };
  while (pos < n && records < max_records) {
    // Comment lines and blank (whitespace-only) lines hold no record.
    if (o_.comment != '\0' && t[pos] == o_.comment) {
      size_t p = pos;
      while (p < n && !AtLineEnd(text, p)) ++p;
      pos = SkipLineEnd(text, p);
      continue;
    }
    if (IsSpace(t[pos])) {
      size_t q = pos;
      while (q < n && IsSpace(t[q]) && !AtLineEnd(text, q)) ++q;
      if (q >= n) {
        pos = n;
        break;
      }
      if (AtLineEnd(text, q)) {
        pos = SkipLineEnd(text, q);
        continue;
      }
    }
    const size_t rec_start = pos;
    uint8_t err = CsvRecords::kOk;
    int64_t nfields = 0;
    size_t p = pos;
    while (true) {
      if (o_.ignore_leading_white_space) {
        while (p < n && IsSpace(t[p]) &&
               !(special_[static_cast<uint8_t>(t[p])] & (kDelimBit | kLineBit)))
          ++p;
      }
      CsvField f{static_cast<int64_t>(p), 0, 0};
      if (p < n && quote != '\0' && t[p] == quote) {
        const size_t open = p;
        size_t q = p + 1;
        size_t seg = q;
        bool scratch = false;
        size_t sstart = 0;
        auto to_scratch = [&](size_t upto) {
          if (!scratch) {
            scratch = true;
            sstart = out->scratch.size();
          }
          out->scratch.append(t + seg, upto - seg);
        };
        size_t content_end = 0;
        bool plain = false;  // the field became an unquoted one (BACK_TO_DELIMITER)
        bool skip = false;
        while (true) {
          while (q < n) {
            q = FindStop<5>(t, q, n, quoted_stops_);
            if (q >= n) break;
            uint8_t c = static_cast<uint8_t>(t[q]);
            if (special_[c] & kQuoteBit) break;
            if (!o_.multi_line && (special_[c] & kLineBit) && AtLineEnd(text, q)) break;
            ++q;
          }
          if (q >= n || !(special_[static_cast<uint8_t>(t[q])] & kQuoteBit)) {
            content_end = q;  // a quote left open ends with the input / line
            break;
          }
          const char c = t[q];
          if (esc_esc != '\0' && c == esc_esc && q + 2 < n && t[q + 1] == escape &&
              t[q + 2] == quote && escape != quote) {
            to_scratch(q);
            out->scratch.push_back(escape);
            q += 2;
            seg = q;
            // The quote at q is not escaped: fall through to the quote handling.
          } else if (escape != '\0' && escape != quote && c == escape) {
            if (q + 1 < n && t[q + 1] == quote) {
              to_scratch(q);
              out->scratch.push_back(quote);
              q += 2;
              seg = q;
            } else {
              ++q;
            }
            continue;
          } else if (c != quote) {
            ++q;
            continue;
          }
          // t[q] is the quote.
          if (q + 1 < n && t[q + 1] == quote) {  // doubled quote
            to_scratch(q);
            out->scratch.push_back(quote);
            q += 2;
            seg = q;
            continue;
          }
          content_end = q;
          size_t after = q + 1;
          size_t r = after;
          while (r < n && (t[r] == ' ' || t[r] == '\t') &&
                 !(special_[static_cast<uint8_t>(t[r])] & kDelimBit))
            ++r;
          if (r >= n || AtDelimiter(text, r) || AtLineEnd(text, r)) {
            q = r;
            break;
          }
          // An unescaped quote inside a quoted value.
          switch (o_.unescaped_quote_handling) {
            case UnescapedQuoteHandling::kStopAtClosingQuote:
              q = after;
              continue;
            case UnescapedQuoteHandling::kStopAtDelimiter: {
              size_t e = scan_plain(after);
              content_end = e;
              q = e;
              break;
            }
            case UnescapedQuoteHandling::kBackToDelimiter: {
              size_t e = scan_plain(after);
              plain = true;
              f = CsvField{static_cast<int64_t>(open),
                           static_cast<int32_t>(std::min<size_t>(e - open, INT32_MAX)),
                           0};
              q = e;
              break;
            }
            case UnescapedQuoteHandling::kSkipValue:
              skip = true;
              q = scan_plain(after);
              break;
            case UnescapedQuoteHandling::kRaiseError:
              skip = true;
              err = CsvRecords::kUnescapedQuote;
              q = scan_plain(after);
              break;
          }
          break;
        }
        if (skip) {
          f = CsvField{static_cast<int64_t>(open), 0, CsvField::kSkip};
          if (scratch) out->scratch.resize(sstart);
        } else if (!plain) {
          size_t len;
          if (scratch) {
            to_scratch(content_end);
            len = out->scratch.size() - sstart;
            f = CsvField{static_cast<int64_t>(sstart), 0,
                         CsvField::kQuoted | CsvField::kScratch};
          } else {
            len = content_end - seg;
            f = CsvField{static_cast<int64_t>(seg), 0, CsvField::kQuoted};
          }
          if (len > static_cast<size_t>(INT32_MAX)) {
            len = INT32_MAX;
            err = CsvRecords::kTooManyChars;
          }
          f.length = static_cast<int32_t>(len);
        }
        p = q;
      } else {
        size_t s = p;
        p = scan_plain(p);
        size_t e = p;
        if (o_.ignore_trailing_white_space) {
          while (e > s && IsSpace(t[e - 1])) --e;
        }
        size_t len = e - s;
        if (len > static_cast<size_t>(INT32_MAX)) {
          len = INT32_MAX;
          err = CsvRecords::kTooManyChars;
        }
        f = CsvField{static_cast<int64_t>(s), static_cast<int32_t>(len), 0};
      }
      if (max_chars >= 0 && f.length > max_chars) err = CsvRecords::kTooManyChars;
      if (++nfields > o_.max_columns) {
        err = CsvRecords::kTooManyColumns;
      } else {
        out->fields.push_back(f);
      }
      if (p < n && AtDelimiter(text, p)) {
        p += delim_.size();
        continue;
      }
      if (p >= n || AtLineEnd(text, p)) break;
      ++p;  // not reached: fields end at a delimiter or a line end
    }
    out->raw_begin.push_back(static_cast<int64_t>(rec_start));
    out->raw_end.push_back(static_cast<int64_t>(std::min(p, n)));
    out->error.push_back(err);
    out->field_begin.push_back(static_cast<int64_t>(out->fields.size()));
    pos = SkipLineEnd(text, p);
    ++records;
  }
  return std::min(pos, n);
}

// ---- value parsing
// ---------------------------------------------------------------------

bool ParseJavaLong(std::string_view s, int64_t min, int64_t max, int64_t* out) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i >= s.size()) return false;
  // Accumulate negatively so that the minimum fits.
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(v, int64_t{10}, &v) ||
        __builtin_sub_overflow(v, int64_t{c - '0'}, &v))
      return false;
  }
  if (!neg) {
    if (v == INT64_MIN) return false;
    v = -v;
  }
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

bool ParseJavaDouble(std::string_view s, double* out) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  if (s.empty()) return false;
  bool neg = false;
  std::string_view body = s;
  if (body[0] == '+' || body[0] == '-') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "NaN") {
    *out = std::nan("");
    return true;
  }
  if (body == "Infinity") {
    *out = neg ? -INFINITY : INFINITY;
    return true;
  }
  if (!body.empty() && (body.back() == 'd' || body.back() == 'D' || body.back() == 'f' ||
                        body.back() == 'F'))
    body.remove_suffix(1);
  // Java's grammar: digits [. digits] [e [sign] digits], at least one digit in the
  // mantissa.
  size_t i = 0, digits = 0;
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++digits;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t ed = 0;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++ed;
    if (ed == 0) return false;
  }
  if (i != body.size()) return false;
  // from_chars takes no '+' and is locale-free; an out-of-range value saturates like
  // Java.
  std::string_view num = body;
  double v = 0;
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // Too large -> Infinity, too small -> 0 (Java's behaviour).
    bool big = false;
    size_t e = num.find_first_of("eE");
    if (e == std::string_view::npos || num[e + 1] != '-') big = true;
    v = big ? INFINITY : 0.0;
  } else if (ec != std::errc() || ptr != num.data() + num.size()) {
    return false;
  }
  *out = neg ? -v : v;
  return true;
}

Status MalformedRecord(std::string_view record) {
  return Status::Error(
      "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
      {{"badRecord", std::string(record)}, {"failFastMode", "FAILFAST"}});
}

Status CheckCsvColumnType(const Field& f) {
  switch (f.type->id()) {
    case TypeId::kStruct:
    case TypeId::kArray:
    case TypeId::kMap:
      return Status::Error("UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
                           {{"columnName", "`" + f.name + "`"},
                            {"columnType", "\"" + f.type->Sql() + "\""},
                            {"format", "CSV"}});
    default:
      return Status::OK();
  }
}

namespace {

bool ParseBool(std::string_view s, bool* out) {
  // Scala's String.toBoolean: "true" / "false" in any case.
  auto lower_is = [&](const char* w) {
    for (size_t i = 0; i < s.size(); ++i) {
      if ((s[i] | 0x20) != w[i]) return false;
    }
    return true;
  };
  if (s.size() == 4 && lower_is("true")) return *out = true, true;
  if (s.size() == 5 && lower_is("false")) return *out = false, true;
  return false;
}

// Date/time parsing shared by the converter and inference.
struct DateTimeParsers {
  std::optional<DateTimePattern> date, timestamp, timestamp_ntz;
  EvalContext eval;
  const TimeZone* zone = nullptr;

  Status Init(const CsvOptions& o) {
    eval.time_zone_id = o.time_zone_id;
    eval.time_zone = TimeZone::Lookup(o.time_zone_id);
    zone = eval.time_zone;
    if (!o.date_format.empty()) {
      SPATE_ASSIGN_OR_RETURN(auto p, DateTimePattern::Compile(o.date_format));
      date = std::move(p);
    }
    if (!o.timestamp_format.empty()) {
      SPATE_ASSIGN_OR_RETURN(auto p, DateTimePattern::Compile(o.timestamp_format));
      timestamp = std::move(p);
    }
    if (!o.timestamp_ntz_format.empty()) {
      SPATE_ASSIGN_OR_RETURN(auto p, DateTimePattern::Compile(o.timestamp_ntz_format));
      timestamp_ntz = std::move(p);
    }
    return Status::OK();
  }
  bool Date(std::string_view s, int32_t* days) const {
    if (date) {
      int64_t micros;
      std::string err;
      if (!date->Parse(s, nullptr, true, &micros, &err)) return false;
      *days = static_cast<int32_t>(
          micros >= 0 ? micros / 86400000000LL
                      : -((-micros + 86400000000LL - 1) / 86400000000LL));
      return true;
    }
    return CastStringToDate(s, days);
  }
  bool Timestamp(std::string_view s, int64_t* micros) const {
    if (timestamp) {
      std::string err;
      return timestamp->Parse(s, zone, false, micros, &err);
    }
    return CastStringToTimestamp(s, eval, micros);
  }
  bool TimestampNtz(std::string_view s, int64_t* micros) const {
    if (timestamp_ntz) {
      std::string err;
      return timestamp_ntz->Parse(s, nullptr, true, micros, &err);
    }
    // Spark parses TIMESTAMP_NTZ text without a zone (parseWithoutTimeZone): a zone
    // fails.
    return CastStringToTimestampNtz(s, micros, /*allow_zone=*/false);
  }
};

}  // namespace

// Java's UTF-8 decoding with REPLACE (how Spark turns file bytes into strings): valid
// text is returned as is; otherwise each maximal invalid subpart becomes U+FFFD in a copy
// written to *scratch.
namespace {

// The length of the valid sequence at p (0 if invalid; *bad = bytes to replace).
inline size_t Utf8Seq(const unsigned char* p, size_t avail, size_t* bad) {
  return Utf8Sequence(p, avail, bad);
}

}  // namespace

std::string_view SanitizeUtf8(std::string_view s, std::string* scratch) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i + 8 <= n) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w & 0x8080808080808080ULL) break;
    i += 8;
  }
  size_t bad = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    size_t len = Utf8Seq(p + i, n - i, &bad);
    if (len == 0) break;
    i += len;
  }
  if (i >= n) return s;
  scratch->assign(s.data(), i);
  while (i < n) {
    size_t len = p[i] < 0x80 ? 1 : Utf8Seq(p + i, n - i, &bad);
    if (len == 0) {
      *scratch += "\xEF\xBF\xBD";
      i += bad;
    } else {
      scratch->append(s.data() + i, len);
      i += len;
    }
  }
  return *scratch;
}

// ---- converter -----------------------------------------------------------------------

struct CsvConverter::Impl {
  SchemaPtr schema;
  CsvOptions o;
  int corrupt_index = -1;
  int rescued_index = -1;
  std::vector<std::string> header;  // rescue: names of the file's columns
  std::string file_path;            // rescue: "file:///..."
  std::vector<int>
      token_index;  // per data field; -1 for the corrupt-record / rescued column
  int64_t expected_tokens = 0;
  DateTimeParsers dt;
  std::vector<uint8_t> bad;
  std::string utf8_scratch;

  // The datum of record r's token ti: false when it is NULL.
  inline bool Datum(std::string_view text, const CsvRecords& recs, size_t r, int ti,
                    std::string_view* out) const {
    if (ti >= recs.num_fields(r)) return false;
    const CsvField& f = recs.fields[static_cast<size_t>(recs.field_begin[r] + ti)];
    if (f.flags & CsvField::kSkip) return false;
    if (f.length == 0) {
      if (!(f.flags & CsvField::kQuoted)) return false;
      *out = o.empty_value_in_read();
    } else {
      *out = recs.value(text, f);
    }
    return *out != o.null_value;
  }

  // The rescued data column of `recs` (see parser.h); `full` has every token column.
  ColumnPtr Rescue(std::string_view text, const CsvRecords& recs,
                   const std::vector<ColumnPtr>& full) const {
    const size_t n = recs.size();
    StringBuilder b(DataType::String(), static_cast<int64_t>(n));
    std::string out;
    for (size_t r = 0; r < n; ++r) {
      if (recs.error[r] != CsvRecords::kOk) {
        b.AppendNull();
        continue;
      }
      Json rescued = Json::Object();
      bool any = false;
      std::string_view d;
      for (size_t c = 0; c < token_index.size(); ++c) {
        const int ti = token_index[c];
        if (ti < 0 || !Datum(text, recs, r, ti, &d) ||
            !full[c]->IsNull(static_cast<int64_t>(r)))
          continue;
        rescued.Set(schema->field(static_cast<int>(c)).name,
                    Json::String(std::string(d)));
        any = true;
      }
      for (int64_t ti = expected_tokens; ti < recs.num_fields(r); ++ti) {
        if (!Datum(text, recs, r, static_cast<int>(ti), &d)) continue;
        const size_t k = static_cast<size_t>(ti);
        rescued.Set(k < header.size() && !header[k].empty() ? header[k]
                                                            : "_c" + std::to_string(ti),
                    Json::String(std::string(d)));
        any = true;
      }
      if (!any) {
        b.AppendNull();
        continue;
      }
      rescued.Set("_file_path", Json::String(file_path));
      out.clear();
      rescued.AppendTo(&out);
      b.Append(out);
    }
    return b.Finish();
  }

  // A NULL at row r: the validity bitmap is made on the first one (all valid before).
  static void MarkNull(size_t r, size_t n, BufferPtr* validity, uint8_t** vb,
                       int64_t* nulls) {
    if (!*vb) {
      const int64_t bytes = bits::BytesFor(static_cast<int64_t>(n));
      *validity = Buffer::AllocateUninitialized(bytes);
      *vb = (*validity)->mutable_data();
      std::memset(*vb, 0xFF, static_cast<size_t>(bytes));
      for (size_t i = n; i < static_cast<size_t>(bytes) * 8; ++i)
        bits::Clear(*vb, static_cast<int64_t>(i));
    }
    bits::Clear(*vb, static_cast<int64_t>(r));
    ++*nulls;
  }

  // One typed loop per column, straight into the column's buffers.
  template <typename T, typename Parse>
  ColumnPtr Fixed(const DataTypePtr& type, std::string_view text, const CsvRecords& recs,
                  int ti, Parse parse) {
    const size_t n = recs.size();
    BufferPtr values = Buffer::AllocateUninitialized(static_cast<int64_t>(n * sizeof(T)));
    T* v = values->mutable_data_as<T>();
    BufferPtr validity;
    uint8_t* vb = nullptr;
    int64_t nulls = 0;
    std::string_view d;
    for (size_t r = 0; r < n; ++r) {
      if (Datum(text, recs, r, ti, &d)) {
        if (parse(d, &v[r])) continue;
        bad[r] = 1;
      }
      v[r] = T{};
      MarkNull(r, n, &validity, &vb, &nulls);
    }
    return std::make_shared<const Column>(type, static_cast<int64_t>(n), nulls, validity,
                                          values);
  }

  ColumnPtr ConvertColumn(const DataTypePtr& type, std::string_view text,
                          const CsvRecords& recs, int ti) {
    const size_t n = recs.size();
    std::string_view d;
    switch (type->id()) {
      case TypeId::kBoolean: {
        BufferPtr values = Buffer::Allocate(bits::BytesFor(static_cast<int64_t>(n)));
        uint8_t* vals = values->mutable_data();
        BufferPtr validity;
        uint8_t* vb = nullptr;
        int64_t nulls = 0;
        for (size_t r = 0; r < n; ++r) {
          bool v;
          if (Datum(text, recs, r, ti, &d)) {
            if (ParseBool(d, &v)) {
              if (v) bits::Set(vals, static_cast<int64_t>(r));
              continue;
            }
            bad[r] = 1;
          }
          MarkNull(r, n, &validity, &vb, &nulls);
        }
        return std::make_shared<const Column>(type, static_cast<int64_t>(n), nulls,
                                              validity, values);
      }
      case TypeId::kByte:
        return Fixed<int8_t>(type, text, recs, ti, [](std::string_view s, int8_t* v) {
          int64_t x;
          if (!ParseJavaLong(s, INT8_MIN, INT8_MAX, &x)) return false;
          *v = static_cast<int8_t>(x);
          return true;
        });
      case TypeId::kShort:
        return Fixed<int16_t>(type, text, recs, ti, [](std::string_view s, int16_t* v) {
          int64_t x;
          if (!ParseJavaLong(s, INT16_MIN, INT16_MAX, &x)) return false;
          *v = static_cast<int16_t>(x);
          return true;
        });
      case TypeId::kInt:
        return Fixed<int32_t>(type, text, recs, ti, [](std::string_view s, int32_t* v) {
          int64_t x;
          if (!ParseJavaLong(s, INT32_MIN, INT32_MAX, &x)) return false;
          *v = static_cast<int32_t>(x);
          return true;
        });
      case TypeId::kLong:
        return Fixed<int64_t>(type, text, recs, ti, [](std::string_view s, int64_t* v) {
          return ParseJavaLong(s, INT64_MIN, INT64_MAX, v);
        });
      case TypeId::kFloat:
        return Fixed<float>(type, text, recs, ti, [this](std::string_view s, float* v) {
          if (s == o.nan_value) return *v = NAN, true;
          if (s == o.negative_inf) return *v = -INFINITY, true;
          if (s == o.positive_inf) return *v = INFINITY, true;
          double x;
          if (!ParseJavaDouble(s, &x)) return false;
          *v = static_cast<float>(x);
          return true;
        });
      case TypeId::kDouble:
        return Fixed<double>(type, text, recs, ti, [this](std::string_view s, double* v) {
          if (s == o.nan_value) return *v = NAN, true;
          if (s == o.negative_inf) return *v = -INFINITY, true;
          if (s == o.positive_inf) return *v = INFINITY, true;
          return ParseJavaDouble(s, v);
        });
      case TypeId::kDecimal: {
        const int p = type->precision(), sc = type->scale();
        return Fixed<__int128>(type, text, recs, ti,
                               [p, sc](std::string_view s, __int128* v) {
                                 return json::ParseDecimalText(s, p, sc, v);
                               });
      }
      case TypeId::kDate:
        return Fixed<int32_t>(
            type, text, recs, ti,
            [this](std::string_view s, int32_t* v) { return dt.Date(s, v); });
      case TypeId::kTimestamp:
        return Fixed<int64_t>(
            type, text, recs, ti,
            [this](std::string_view s, int64_t* v) { return dt.Timestamp(s, v); });
      case TypeId::kTimestampNtz:
        return Fixed<int64_t>(
            type, text, recs, ti,
            [this](std::string_view s, int64_t* v) { return dt.TimestampNtz(s, v); });
      case TypeId::kString:
      case TypeId::kBinary: {
        int64_t bytes = 0;
        for (size_t r = 0; r < n; ++r) {
          if (ti < recs.num_fields(r))
            bytes += recs.fields[static_cast<size_t>(recs.field_begin[r] + ti)].length;
        }
        StringBuilder b(type, static_cast<int64_t>(n), bytes + 16);
        const bool utf8 = type->id() == TypeId::kString;
        for (size_t r = 0; r < n; ++r) {
          if (Datum(text, recs, r, ti, &d)) {
            b.Append(utf8 ? SanitizeUtf8(d, &utf8_scratch) : d);
          } else {
            b.AppendNull();
          }
        }
        return b.Finish();
      }
      case TypeId::kDayTimeInterval:
      case TypeId::kYearMonthInterval: {
        // As Spark: CAST(datum AS <interval type>) (ANSI literals or plain values); rare,
        // so through Values.
        auto b = ColumnBuilder::Make(type);
        for (size_t r = 0; r < n; ++r) {
          if (!Datum(text, recs, r, ti, &d)) {
            b->AppendNull();
            continue;
          }
          auto v =
              CastValue(Value::String(std::string(d)), type, CastMode::kTry, dt.eval);
          if (v.ok() && !v->is_null()) {
            b->AppendValue(*v);
          } else {
            b->AppendNull();
            bad[r] = 1;
          }
        }
        return b->Finish();
      }
      default:
        return Column::MakeNull(type, static_cast<int64_t>(n));
    }
  }
};

CsvConverter::CsvConverter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CsvConverter::~CsvConverter() = default;

Result<std::unique_ptr<CsvConverter>> CsvConverter::Make(SchemaPtr data_schema,
                                                         const CsvOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->schema = std::move(data_schema);
  impl->o = options;
  int next = 0;
  for (int i = 0; i < impl->schema->num_fields(); ++i) {
    const Field& f = impl->schema->field(i);
    if (f.name == options.column_name_of_corrupt_record) {
      if (f.type->id() != TypeId::kString || !f.nullable) {
        return Status::Error("INVALID_CORRUPT_RECORD_TYPE",
                             {{"columnName", "`" + f.name + "`"},
                              {"actualType", "\"" + f.type->Sql() + "\""}});
      }
      impl->corrupt_index = i;
      impl->token_index.push_back(-1);
      continue;
    }
    if (!options.rescued_data_column.empty() && f.name == options.rescued_data_column) {
      if (f.type->id() != TypeId::kString) {
        return Status::Invalid("The rescued data column `" + f.name +
                               "` must be of type STRING, not " + f.type->Sql());
      }
      impl->rescued_index = i;
      impl->token_index.push_back(-1);
      continue;
    }
    SPATE_RETURN_IF_ERROR(CheckCsvColumnType(f));
    impl->token_index.push_back(next++);
  }
  impl->expected_tokens = next;
  SPATE_RETURN_IF_ERROR(impl->dt.Init(options));
  return std::unique_ptr<CsvConverter>(new CsvConverter(std::move(impl)));
}

void CsvConverter::SetRescueContext(std::vector<std::string> header,
                                    std::string file_path) {
  impl_->header = std::move(header);
  impl_->file_path = std::move(file_path);
}

Result<std::vector<ColumnPtr>> CsvConverter::Convert(std::string_view text,
                                                     const CsvRecords& recs,
                                                     const std::vector<int>& needed,
                                                     int64_t* rows) {
  Impl& m = *impl_;
  const size_t n = recs.size();
  m.bad.assign(n, 0);
  for (size_t r = 0; r < n; ++r) {
    const uint8_t e = recs.error[r];
    if (e == CsvRecords::kTooManyColumns || e == CsvRecords::kTooManyChars) {
      // univocity fails the whole parse (TextParsingException), whatever the mode.
      std::string_view raw =
          text.substr(static_cast<size_t>(recs.raw_begin[r]),
                      static_cast<size_t>(recs.raw_end[r] - recs.raw_begin[r]));
      if (raw.size() > 1000) raw = raw.substr(0, 1000);
      return Status::Invalid(
          std::string(
              e == CsvRecords::kTooManyColumns
                  ? "Number of columns processed may have exceeded limit of " +
                        std::to_string(m.o.max_columns) +
                        " columns. Use settings.setMaxColumns(int) to define the "
                        "maximum number of columns your input can have"
                  : "Length of parsed input exceeds the maximum number of characters "
                    "defined in your parser settings (" +
                        std::to_string(m.o.max_chars_per_column) + ")") +
          ". Parsed content: " + std::string(raw));
    }
    if (e != CsvRecords::kOk ||
        (m.rescued_index < 0 && recs.num_fields(r) != m.expected_tokens))
      m.bad[r] = 1;
  }
  // With a rescued column only the tokenizer's errors make a record malformed.
  const std::vector<uint8_t> structural =
      m.rescued_index >= 0 ? m.bad : std::vector<uint8_t>{};
  std::vector<ColumnPtr> cols(static_cast<size_t>(m.schema->num_fields()));
  bool want_corrupt = false;
  for (int c : needed) {
    if (c == m.corrupt_index) {
      want_corrupt = true;
      continue;
    }
    if (c == m.rescued_index) continue;  // below
    cols[static_cast<size_t>(c)] = m.ConvertColumn(m.schema->field(c).type, text, recs,
                                                   m.token_index[static_cast<size_t>(c)]);
  }
  if (m.rescued_index >= 0) {
    bool want_rescued = false;
    for (int c : needed) want_rescued |= c == m.rescued_index;
    // Every token column is converted to see which values did not convert.
    std::vector<ColumnPtr> full(cols);
    if (want_rescued) {
      for (int c = 0; c < m.schema->num_fields(); ++c) {
        const int ti = m.token_index[static_cast<size_t>(c)];
        if (ti >= 0 && !full[static_cast<size_t>(c)])
          full[static_cast<size_t>(c)] =
              m.ConvertColumn(m.schema->field(c).type, text, recs, ti);
      }
    }
    m.bad = structural;
    if (want_rescued)
      cols[static_cast<size_t>(m.rescued_index)] = m.Rescue(text, recs, full);
  }
  size_t first_bad = n;
  for (size_t r = 0; r < n; ++r) {
    if (m.bad[r]) {
      first_bad = r;
      break;
    }
  }
  auto raw = [&](size_t r) {
    return text.substr(static_cast<size_t>(recs.raw_begin[r]),
                       static_cast<size_t>(recs.raw_end[r] - recs.raw_begin[r]));
  };
  if (first_bad < n && m.o.mode == ParseMode::kFailFast) {
    // Spark's badRecord is the partially converted row as InternalRow prints it:
    // [v1,v2,...] over the columns read, NULL and failed fields as null, dates and
    // timestamps as their day / microsecond counts, the raw record in the corrupt column.
    std::vector<int> order(needed);
    std::sort(order.begin(), order.end());
    std::string row = "[";
    for (size_t k = 0; k < order.size(); ++k) {
      if (k) row += ",";
      const int c = order[k];
      if (c == m.corrupt_index) {
        row += raw(first_bad);
        continue;
      }
      const Column& col = *cols[static_cast<size_t>(c)];
      const auto i = static_cast<int64_t>(first_bad);
      if (col.IsNull(i)) {
        row += "null";
        continue;
      }
      switch (col.type_id()) {
        case TypeId::kBoolean:
          row += col.GetBool(i) ? "true" : "false";
          break;
        case TypeId::kByte:
          row += std::to_string(col.raw_values<int8_t>()[i]);
          break;
        case TypeId::kShort:
          row += std::to_string(col.raw_values<int16_t>()[i]);
          break;
        case TypeId::kInt:
        case TypeId::kDate:
          row += std::to_string(col.raw_values<int32_t>()[i]);
          break;
        case TypeId::kLong:
        case TypeId::kTimestamp:
        case TypeId::kTimestampNtz:
          row += std::to_string(col.raw_values<int64_t>()[i]);
          break;
        case TypeId::kFloat:
          row += FormatFloat(col.raw_values<float>()[i]);
          break;
        case TypeId::kDouble:
          row += FormatDouble(col.raw_values<double>()[i]);
          break;
        case TypeId::kDecimal:
          row += FormatDecimal(col.raw_values<int128_t>()[i], col.type()->scale());
          break;
        default:
          row += col.GetView(i);
          break;
      }
    }
    row += "]";
    return MalformedRecord(row);
  }
  if (want_corrupt) {
    StringBuilder b(DataType::String(), static_cast<int64_t>(n));
    for (size_t r = 0; r < n; ++r) {
      if (m.bad[r] && m.o.mode == ParseMode::kPermissive) {
        b.Append(SanitizeUtf8(raw(r), &m.utf8_scratch));
      } else {
        b.AppendNull();
      }
    }
    cols[static_cast<size_t>(m.corrupt_index)] = b.Finish();
  }
  *rows = static_cast<int64_t>(n);
  if (first_bad < n && m.o.mode == ParseMode::kDropMalformed) {
    std::vector<int32_t> keep;
    keep.reserve(n);
    for (size_t r = 0; r < n; ++r) {
      if (!m.bad[r]) keep.push_back(static_cast<int32_t>(r));
    }
    for (auto& c : cols) {
      if (c) c = Take(*c, keep.data(), static_cast<int64_t>(keep.size()));
    }
    *rows = static_cast<int64_t>(keep.size());
  }
  return cols;
}

// ---- schema inference
// ------------------------------------------------------------------

struct CsvSchemaInferrer::Impl {
  CsvOptions o;
  DateTimeParsers dt;
  std::optional<DateTimePattern> infer_date;  // dateFormat, or yyyy-MM-dd with preferDate
  bool iso_date = false;  // infer_date is yyyy-MM-dd: ParseIsoDate's dates are its dates
  std::vector<DataTypePtr> types;
  // Per column: whether the value that made it TIMESTAMP (from NULL) parses with the
  // TIMESTAMP (not only the NTZ) pattern, so that a fold already at TIMESTAMP keeps it.
  std::vector<uint8_t> first_ts_zoned;
  int64_t file_index = 0;

  static bool IsIntegral(const DataTypePtr& t) {
    return t->id() == TypeId::kInt || t->id() == TypeId::kLong;
  }
  static DataTypePtr DecimalFor(const DataTypePtr& t) {
    return t->id() == TypeId::kInt ? DataType::Decimal(10, 0) : DataType::Decimal(20, 0);
  }
  static int Rank(TypeId id) {
    switch (id) {
      case TypeId::kInt:
        return 1;
      case TypeId::kLong:
        return 2;
      case TypeId::kDouble:
        return 3;
      default:
        return 0;
    }
  }

  // CSVInferSchema.compatibleType; nullptr = none.
  static DataTypePtr Compatible(const DataTypePtr& a, const DataTypePtr& b) {
    const TypeId x = a->id(), y = b->id();
    auto is_ts = [](TypeId id) {
      return id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
    };
    if ((x == TypeId::kDate && is_ts(y)) || (is_ts(x) && y == TypeId::kDate))
      return DataType::String();
    if (a->Equals(*b)) return a;
    if (x == TypeId::kNull) return b;
    if (y == TypeId::kNull) return a;
    if (Rank(x) && Rank(y)) return Rank(x) >= Rank(y) ? a : b;
    if (x == TypeId::kString || y == TypeId::kString) return DataType::String();
    if (IsIntegral(a) && y == TypeId::kDecimal) return Compatible(DecimalFor(a), b);
    if (x == TypeId::kDecimal && IsIntegral(b)) return Compatible(a, DecimalFor(b));
    if ((x == TypeId::kDouble && y == TypeId::kDecimal) ||
        (x == TypeId::kDecimal && y == TypeId::kDouble))
      return DataType::Double();
    if (x == TypeId::kDecimal && y == TypeId::kDecimal) {
      int scale = std::max(a->scale(), b->scale());
      int range = std::max(a->precision() - a->scale(), b->precision() - b->scale());
      if (range + scale > 38) return DataType::Double();
      return DataType::Decimal(range + scale, scale);
    }
    if (is_ts(x) && is_ts(y)) return DataType::Timestamp();
    return nullptr;
  }

  DataTypePtr TryBoolean(std::string_view s) {
    bool b;
    return ParseBool(s, &b) ? DataType::Boolean() : DataType::String();
  }
  DataTypePtr TryTimestamp(std::string_view s) {
    int64_t m;
    if (dt.Timestamp(s, &m)) return DataType::Timestamp();
    return TryBoolean(s);
  }
  DataTypePtr TryTimestampNtz(std::string_view s) {
    // An NTZ parse yields spark.sql.timestampType (TIMESTAMP by default).
    int64_t m;
    if (dt.TimestampNtz(s, &m)) return DataType::Timestamp();
    return TryTimestamp(s);
  }
  DataTypePtr TryDate(std::string_view s) {
    int64_t micros;
    std::string err;
    if (infer_date && infer_date->Parse(s, nullptr, true, &micros, &err))
      return DataType::Date();
    return TryTimestampNtz(s);
  }
  DataTypePtr TryDouble(std::string_view s) {
    double d;
    if (ParseJavaDouble(s, &d) || s == o.nan_value || s == o.negative_inf ||
        s == o.positive_inf)
      return DataType::Double();
    return o.prefer_date ? TryDate(s) : TryTimestampNtz(s);
  }
  DataTypePtr TryDecimal(std::string_view s) {
    // new java.math.BigDecimal(s) with scale <= 0 and precision <= 38; negative scales
    // (exponents) are not decimal types.
    size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start || i != s.size()) return TryDouble(s);
    while (start + 1 < i && s[start] == '0') ++start;
    int precision = static_cast<int>(i - start);
    if (precision > 38) return TryDouble(s);
    return DataType::Decimal(precision, 0);
  }
  DataTypePtr TryLong(std::string_view s) {
    int64_t x;
    if (ParseJavaLong(s, INT64_MIN, INT64_MAX, &x)) return DataType::Long();
    return TryDecimal(s);
  }
  DataTypePtr TryInteger(std::string_view s) {
    int64_t x;
    if (ParseJavaLong(s, INT32_MIN, INT32_MAX, &x)) return DataType::Int();
    return TryLong(s);
  }

  // Whether inferField(so_far, s) is so_far because the type's own parse accepts s (the
  // common case, decided without touching the DataTypePtr).
  bool Keeps(TypeId so_far, std::string_view s) {
    int64_t x;
    double d;
    bool b;
    switch (so_far) {
      case TypeId::kInt:
        return ParseJavaLong(s, INT32_MIN, INT32_MAX, &x);
      case TypeId::kLong:
        return ParseJavaLong(s, INT64_MIN, INT64_MAX, &x);
      case TypeId::kDouble:
        return ParseJavaDouble(s, &d) || s == o.nan_value || s == o.negative_inf ||
               s == o.positive_inf;
      case TypeId::kBoolean:
        return ParseBool(s, &b);
      case TypeId::kTimestamp:
        return dt.Timestamp(s, &x);
      case TypeId::kDate: {
        int32_t days;
        if (iso_date && ParseIsoDate(s, &days)) return true;
        std::string err;
        return infer_date && infer_date->Parse(s, nullptr, true, &x, &err);
      }
      default:
        return false;
    }
  }

  DataTypePtr InferField(const DataTypePtr& so_far, std::string_view s) {
    DataTypePtr t;
    switch (so_far->id()) {
      case TypeId::kNull:
      case TypeId::kInt:
        t = TryInteger(s);
        break;
      case TypeId::kLong:
        t = TryLong(s);
        break;
      case TypeId::kDecimal:
        t = TryDecimal(s);
        break;
      case TypeId::kDouble:
        t = TryDouble(s);
        break;
      case TypeId::kDate:
        t = TryDate(s);
        break;
      case TypeId::kTimestampNtz:
        t = TryTimestampNtz(s);
        break;
      case TypeId::kTimestamp:
        t = TryTimestamp(s);
        break;
      case TypeId::kBoolean:
        t = TryBoolean(s);
        break;
      default:
        return DataType::String();
    }
    DataTypePtr c = Compatible(so_far, t);
    return c ? c : DataType::String();
  }
};

CsvSchemaInferrer::CsvSchemaInferrer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
CsvSchemaInferrer::~CsvSchemaInferrer() = default;

Result<std::unique_ptr<CsvSchemaInferrer>> CsvSchemaInferrer::Make(
    const CsvOptions& options, int64_t file_index) {
  auto impl = std::make_unique<Impl>();
  impl->o = options;
  impl->file_index = file_index;
  SPATE_RETURN_IF_ERROR(impl->dt.Init(options));
  if (!options.date_format.empty() || options.prefer_date) {
    SPATE_ASSIGN_OR_RETURN(auto p, DateTimePattern::Compile(options.date_format.empty()
                                                                ? "yyyy-MM-dd"
                                                                : options.date_format));
    impl->infer_date = std::move(p);
    impl->iso_date = options.date_format.empty() || options.date_format == "yyyy-MM-dd";
  }
  return std::unique_ptr<CsvSchemaInferrer>(new CsvSchemaInferrer(std::move(impl)));
}

void CsvSchemaInferrer::Add(std::string_view text, const CsvRecords& recs,
                            int64_t text_offset) {
  Impl& m = *impl_;
  for (size_t r = 0; r < recs.size(); ++r) {
    if (!KeepSampledRecord(m.o.sampling_ratio, m.file_index,
                           text_offset + recs.raw_begin[r]))
      continue;
    const int64_t nf = recs.num_fields(r);
    if (static_cast<int64_t>(m.types.size()) < nf) {
      m.types.resize(static_cast<size_t>(nf), DataType::Null());
      m.first_ts_zoned.resize(static_cast<size_t>(nf), 0);
    }
    for (int64_t i = 0; i < nf; ++i) {
      const CsvField& f = recs.fields[static_cast<size_t>(recs.field_begin[r] + i)];
      if (f.flags & CsvField::kSkip) continue;
      std::string_view s = f.length == 0 && (f.flags & CsvField::kQuoted)
                               ? std::string_view(m.o.empty_value_in_read())
                               : recs.value(text, f);
      if (s.empty() || s == m.o.null_value) continue;
      DataTypePtr& t = m.types[static_cast<size_t>(i)];
      if (t->id() == TypeId::kString) continue;
      if (m.Keeps(t->id(), s)) continue;
      const bool was_null = t->id() == TypeId::kNull;
      t = m.InferField(t, s);
      if (was_null && t->id() == TypeId::kTimestamp) {
        int64_t micros;
        m.first_ts_zoned[static_cast<size_t>(i)] = m.dt.Timestamp(s, &micros);
      }
    }
  }
}

void CsvSchemaInferrer::Merge(const CsvSchemaInferrer& other) {
  auto& a = impl_->types;
  const auto& b = other.impl_->types;
  if (a.size() < b.size()) {
    a.resize(b.size(), DataType::Null());
    impl_->first_ts_zoned.resize(b.size(), 0);
  }
  for (size_t i = 0; i < b.size(); ++i) {
    DataTypePtr c = Impl::Compatible(a[i], b[i]);
    a[i] = c ? c : DataType::Null();
  }
}

void CsvSchemaInferrer::Continue(const CsvSchemaInferrer& next,
                                 std::vector<int>* rescan) {
  rescan->clear();
  auto& t = impl_->types;
  auto& zoned = impl_->first_ts_zoned;
  const auto& r = next.impl_->types;
  if (t.size() < r.size()) {
    t.resize(r.size(), DataType::Null());
    zoned.resize(r.size(), 0);
  }
  auto numeric = [](TypeId id) {
    return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDecimal ||
           id == TypeId::kDouble;
  };
  for (size_t i = 0; i < r.size(); ++i) {
    const TypeId x = t[i]->id(), y = r[i]->id();
    if (y == TypeId::kNull || x == TypeId::kString) continue;  // nothing new / absorbed
    if (x == TypeId::kNull) {  // the fold over both is the next split's
      t[i] = r[i];
      zoned[i] = next.impl_->first_ts_zoned[i];
      continue;
    }
    const bool same = t[i]->Equals(*r[i]);
    if (numeric(x) && numeric(y)) {
      // Every value of the next split parses as a number; DOUBLE accepts them all and one
      // value that only DOUBLE accepts takes any number to DOUBLE; INT and BIGINT follow
      // the same path from NULL and from INT.
      if (same || x == TypeId::kDouble || y == TypeId::kDouble) {
        if (!same) t[i] = DataType::Double();
        continue;
      }
      if ((x == TypeId::kInt && y == TypeId::kLong) ||
          (x == TypeId::kLong && y == TypeId::kInt)) {
        t[i] = DataType::Long();
        continue;
      }
      // A DECIMAL so far has at least 19 digits (it comes from a value no long holds):
      // the next split's INT/BIGINT values (19 digits at most) leave it as it is.
      if (x == TypeId::kDecimal && t[i]->scale() == 0 && t[i]->precision() >= 19 &&
          (y == TypeId::kInt || y == TypeId::kLong))
        continue;
    } else if (numeric(x) &&
               (y == TypeId::kBoolean || y == TypeId::kDate || y == TypeId::kTimestamp)) {
      // The next split's first value is no number: from a number it ends the fold at
      // STRING.
      t[i] = DataType::String();
      continue;
    } else if (same && (x == TypeId::kBoolean || x == TypeId::kDate ||
                        (x == TypeId::kTimestamp && next.impl_->first_ts_zoned[i]))) {
      continue;
    }
    rescan->push_back(static_cast<int>(i));
  }
}

void CsvSchemaInferrer::StartFrom(const CsvSchemaInferrer& from,
                                  const std::vector<int>& columns) {
  impl_->types.assign(from.impl_->types.size(), DataType::String());
  impl_->first_ts_zoned.assign(from.impl_->types.size(), 0);
  for (int c : columns)
    impl_->types[static_cast<size_t>(c)] = from.impl_->types[static_cast<size_t>(c)];
}

void CsvSchemaInferrer::Adopt(const CsvSchemaInferrer& rescanned,
                              const std::vector<int>& columns) {
  for (int c : columns)
    impl_->types[static_cast<size_t>(c)] = rescanned.impl_->types[static_cast<size_t>(c)];
}

std::vector<Field> CsvSchemaInferrer::Finish(
    const std::vector<std::string>& names) const {
  std::vector<Field> out;
  for (size_t i = 0; i < names.size(); ++i) {
    DataTypePtr t = i < impl_->types.size() ? impl_->types[i] : DataType::Null();
    if (!impl_->o.infer_schema || t->id() == TypeId::kNull) t = DataType::String();
    out.push_back(Field{names[i], t, true});
  }
  return out;
}

std::vector<std::string> MakeSafeHeader(const std::vector<std::string>& row,
                                        bool has_header, const CsvOptions& options,
                                        bool case_sensitive) {
  std::vector<std::string> out;
  if (!has_header) {
    for (size_t i = 0; i < row.size(); ++i) out.push_back("_c" + std::to_string(i));
    return out;
  }
  auto key = [&](const std::string& s) { return case_sensitive ? s : ToLower(s); };
  std::map<std::string, int> counts;
  for (const auto& name : row) {
    if (!name.empty()) counts[key(name)]++;
  }
  for (size_t i = 0; i < row.size(); ++i) {
    const std::string& v = row[i];
    if (v.empty() || v == options.null_value) {
      out.push_back("_c" + std::to_string(i));
    } else if (counts[key(v)] > 1) {
      out.push_back(v + std::to_string(i));
    } else {
      out.push_back(v);
    }
  }
  return out;
}

}  // namespace spate::formats::csv
