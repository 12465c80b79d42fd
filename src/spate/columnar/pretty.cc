// Copyright spate authors.
#include "spate/columnar/pretty.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "spate/base/utf8.h"
#include "spate/columnar/list_text.h"
#include "spate/types/format.h"

namespace spate {

namespace {

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

template <typename T>
void AppendInteger(T v, std::string* out) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, res.ptr);
}

int64_t TimestampOffset(const CellFormatOptions& opts, int64_t micros) {
  return opts.time_zone == nullptr ? 0 : opts.time_zone->OffsetSeconds(micros);
}

void AppendValue(const Column& c, int64_t i, const CellFormatOptions& opts,
                 std::string* out);

// An element of an array, struct or map value: NULL prints as "NULL".
void AppendElement(const Column& c, int64_t i, const CellFormatOptions& opts,
                   std::string* out) {
  if (c.IsNull(i)) {
    out->append("NULL");
  } else {
    AppendValue(c, i, opts, out);
  }
}

// REQUIRES: row i is valid.
void AppendValue(const Column& c, int64_t i, const CellFormatOptions& opts,
                 std::string* out) {
  const DataType& type = *c.type();
  switch (type.id()) {
    case TypeId::kNull:
      out->append("NULL");
      return;
    case TypeId::kBoolean:
      out->append(c.GetBool(i) ? "true" : "false");
      return;
    case TypeId::kByte:
      AppendInteger(c.raw_values<int8_t>()[i], out);
      return;
    case TypeId::kShort:
      AppendInteger(c.raw_values<int16_t>()[i], out);
      return;
    case TypeId::kInt:
      AppendInteger(c.raw_values<int32_t>()[i], out);
      return;
    case TypeId::kLong:
      AppendInteger(c.raw_values<int64_t>()[i], out);
      return;
    case TypeId::kFloat:
      out->append(FormatFloat(c.raw_values<float>()[i]));
      return;
    case TypeId::kDouble:
      out->append(FormatDouble(c.raw_values<double>()[i]));
      return;
    case TypeId::kDecimal:
      out->append(FormatDecimal(c.raw_values<int128_t>()[i], type.scale()));
      return;
    case TypeId::kString:
      out->append(c.GetView(i));
      return;
    case TypeId::kBinary:
      out->append(FormatBinaryHex(c.GetView(i)));
      return;
    case TypeId::kDate:
      out->append(FormatDate(c.raw_values<int32_t>()[i]));
      return;
    case TypeId::kTimestamp: {
      int64_t v = c.raw_values<int64_t>()[i];
      out->append(FormatTimestampMicros(v, TimestampOffset(opts, v)));
      return;
    }
    case TypeId::kTimestampNtz:
      out->append(FormatTimestampMicros(c.raw_values<int64_t>()[i]));
      return;
    case TypeId::kDayTimeInterval:
      out->append(FormatDayTimeInterval(c.raw_values<int64_t>()[i], type.start_field(),
                                        type.end_field()));
      return;
    case TypeId::kYearMonthInterval:
      out->append(FormatYearMonthInterval(c.raw_values<int32_t>()[i], type.start_field(),
                                          type.end_field()));
      return;
    case TypeId::kArray: {
      const Column& elements = *c.child(0);
      AppendListText(c, i, '[', ", ", ']', out,
                     [&](int32_t k) { AppendElement(elements, k, opts, out); });
      return;
    }
    case TypeId::kMap: {
      const Column& keys = *c.child(0)->child(0);
      const Column& values = *c.child(0)->child(1);
      AppendListText(c, i, '{', ", ", '}', out, [&](int32_t k) {
        AppendElement(keys, k, opts, out);
        out->append(" -> ");
        AppendElement(values, k, opts, out);
      });
      return;
    }
    case TypeId::kStruct: {
      out->push_back('{');
      for (size_t f = 0; f < c.children().size(); ++f) {
        if (f > 0) out->append(", ");
        AppendElement(*c.child(static_cast<int>(f)), i, opts, out);
      }
      out->push_back('}');
      return;
    }
  }
}

// Appends the text of each row of `c`; `format(i)` renders a valid row i.
template <typename F>
void FormatRows(const Column& c, int64_t n, std::vector<std::string>* out, F&& format) {
  out->reserve(out->size() + static_cast<size_t>(n));
  const uint8_t* validity = c.validity_bits();
  for (int64_t i = 0; i < n; ++i) {
    if (validity != nullptr && !bits::Get(validity, i)) {
      out->emplace_back("NULL");
    } else {
      out->push_back(format(i));
    }
  }
}

template <typename T>
void FormatIntegers(const Column& c, int64_t n, std::vector<std::string>* out) {
  const T* v = c.raw_values<T>();
  FormatRows(c, n, out, [v](int64_t i) {
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof(buf), v[i]);
    return std::string(buf, res.ptr);
  });
}

// ---------------------------------------------------------------------------------------
// Text measurement: UTF-8 decoded as Java decodes it into a String
// ---------------------------------------------------------------------------------------

constexpr char32_t kReplacement = 0xFFFD;

// Decodes one code point at s[*pos]; an ill-formed sequence (its maximal valid prefix)
// becomes U+FFFD, as java.nio's UTF-8 decoder does.
char32_t DecodeUtf8(std::string_view s, size_t* pos) {
  auto byte = [&s](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(*pos);
  if (b0 < 0x80) {
    ++*pos;
    return b0;
  }
  int need;
  char32_t cp;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    ++*pos;
    return kReplacement;
  }
  size_t k = *pos + 1;
  for (int n = 0; n < need; ++n, ++k) {
    if (k >= s.size() || byte(k) < lo || byte(k) > hi) {
      *pos = k;
      return kReplacement;
    }
    cp = (cp << 6) | (byte(k) & 0x3F);
    lo = 0x80;
    hi = 0xBF;
  }
  *pos = k;
  return cp;
}

void EncodeUtf8(char32_t cp, std::string* out) {
  AppendUtf8(static_cast<uint32_t>(cp), out);
}

// Utils.fullWidthRegex.
bool IsFullWidth(char32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE10 && cp <= 0xFE19) || (cp >= 0xFE30 && cp <= 0xFE6F) ||
         (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6);
}

// The escape letter of a meta character, or 0.
char MetaEscape(char32_t cp) {
  switch (cp) {
    case '\n':
      return 'n';
    case '\r':
      return 'r';
    case '\t':
      return 't';
    case '\f':
      return 'f';
    case '\b':
      return 'b';
    case '\v':
      return 'v';
    case '\a':
      return 'a';
    default:
      return 0;
  }
}

// A cell ready for layout: its text and its half width.
struct ShowCell {
  std::string text;
  int64_t width = 0;
};

// escapeMetaCharacters, then (truncate > 0) the show() cut, measured in UTF-16 units.
ShowCell PrepareCell(std::string_view raw, int truncate) {
  ShowCell cell;
  bool plain = true;
  for (char ch : raw) {
    auto b = static_cast<unsigned char>(ch);
    if (b >= 0x80 || MetaEscape(b) != 0) {
      plain = false;
      break;
    }
  }
  if (plain) {
    // ASCII without meta characters: bytes are UTF-16 units and half widths.
    if (truncate > 0 && static_cast<int64_t>(raw.size()) > truncate) {
      if (truncate < 4) {
        cell.text.assign(raw.substr(0, static_cast<size_t>(truncate)));
      } else {
        cell.text.assign(raw.substr(0, static_cast<size_t>(truncate - 3)));
        cell.text.append("...");
      }
    } else {
      cell.text.assign(raw);
    }
    cell.width = static_cast<int64_t>(cell.text.size());
    return cell;
  }
  // Decode and escape into code points; count UTF-16 units.
  std::vector<char32_t> cps;
  cps.reserve(raw.size());
  int64_t units = 0;
  for (size_t pos = 0; pos < raw.size();) {
    char32_t cp = DecodeUtf8(raw, &pos);
    if (char e = MetaEscape(cp); e != 0) {
      cps.push_back('\\');
      cps.push_back(static_cast<char32_t>(e));
      units += 2;
    } else {
      cps.push_back(cp);
      units += cp >= 0x10000 ? 2 : 1;
    }
  }
  int64_t keep = units;
  bool ellipsis = false;
  if (truncate > 0 && units > truncate) {
    keep = truncate < 4 ? truncate : truncate - 3;
    ellipsis = truncate >= 4;
  }
  int64_t taken = 0;
  for (char32_t cp : cps) {
    int64_t u = cp >= 0x10000 ? 2 : 1;
    if (taken + u > keep) {
      if (taken < keep) {
        // Java keeps the high surrogate alone; printed, it becomes '?'.
        cell.text.push_back('?');
        cell.width += 1;
        taken += 1;
      }
      break;
    }
    EncodeUtf8(cp, &cell.text);
    taken += u;
    cell.width += u + (IsFullWidth(cp) ? 1 : 0);
  }
  if (ellipsis) {
    cell.text.append("...");
    cell.width += 3;
  }
  return cell;
}

void AppendSpaces(int64_t n, std::string* out) {
  if (n > 0) out->append(static_cast<size_t>(n), ' ');
}

}  // namespace

void AppendCell(const Column& c, int64_t row, const CellFormatOptions& opts,
                std::string* out) {
  AppendElement(c, row, opts, out);
}

std::string FormatCell(const Column& c, int64_t row, const CellFormatOptions& opts) {
  std::string out;
  AppendElement(c, row, opts, &out);
  return out;
}

void FormatColumn(const Column& c, int64_t n, const CellFormatOptions& opts,
                  std::vector<std::string>* out) {
  const DataType& type = *c.type();
  switch (type.id()) {
    case TypeId::kNull:
      out->insert(out->end(), static_cast<size_t>(n), "NULL");
      return;
    case TypeId::kBoolean:
      FormatRows(c, n, out, [&c](int64_t i) {
        return std::string(c.GetBool(i) ? "true" : "false");
      });
      return;
    case TypeId::kByte:
      FormatIntegers<int8_t>(c, n, out);
      return;
    case TypeId::kShort:
      FormatIntegers<int16_t>(c, n, out);
      return;
    case TypeId::kInt:
      FormatIntegers<int32_t>(c, n, out);
      return;
    case TypeId::kLong:
      FormatIntegers<int64_t>(c, n, out);
      return;
    case TypeId::kFloat: {
      const float* v = c.raw_values<float>();
      FormatRows(c, n, out, [v](int64_t i) { return FormatFloat(v[i]); });
      return;
    }
    case TypeId::kDouble: {
      const double* v = c.raw_values<double>();
      FormatRows(c, n, out, [v](int64_t i) { return FormatDouble(v[i]); });
      return;
    }
    case TypeId::kDecimal: {
      const int128_t* v = c.raw_values<int128_t>();
      int scale = type.scale();
      FormatRows(c, n, out, [v, scale](int64_t i) { return FormatDecimal(v[i], scale); });
      return;
    }
    case TypeId::kString:
      FormatRows(c, n, out, [&c](int64_t i) { return std::string(c.GetView(i)); });
      return;
    case TypeId::kBinary:
      FormatRows(c, n, out, [&c](int64_t i) { return FormatBinaryHex(c.GetView(i)); });
      return;
    case TypeId::kDate: {
      const int32_t* v = c.raw_values<int32_t>();
      FormatRows(c, n, out, [v](int64_t i) { return FormatDate(v[i]); });
      return;
    }
    case TypeId::kTimestamp: {
      const int64_t* v = c.raw_values<int64_t>();
      const TimeZone* tz = opts.time_zone;
      if (tz == nullptr || tz->is_fixed_offset()) {
        int64_t offset = tz == nullptr ? 0 : tz->OffsetSeconds(0);
        FormatRows(c, n, out, [v, offset](int64_t i) {
          return FormatTimestampMicros(v[i], offset);
        });
      } else {
        FormatRows(c, n, out, [v, tz](int64_t i) {
          return FormatTimestampMicros(v[i], tz->OffsetSeconds(v[i]));
        });
      }
      return;
    }
    case TypeId::kTimestampNtz: {
      const int64_t* v = c.raw_values<int64_t>();
      FormatRows(c, n, out, [v](int64_t i) { return FormatTimestampMicros(v[i]); });
      return;
    }
    default:
      // Intervals and nested types.
      FormatRows(c, n, out, [&](int64_t i) {
        std::string s;
        AppendValue(c, i, opts, &s);
        return s;
      });
      return;
  }
}

std::string EscapeMetaCharacters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    if (char e = MetaEscape(static_cast<unsigned char>(ch)); e != 0) {
      out.push_back('\\');
      out.push_back(e);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

int64_t StringHalfWidth(std::string_view utf8) {
  int64_t width = 0;
  for (size_t pos = 0; pos < utf8.size();) {
    char32_t cp = DecodeUtf8(utf8, &pos);
    width += (cp >= 0x10000 ? 2 : 1) + (IsFullWidth(cp) ? 1 : 0);
  }
  return width;
}

std::string ShowString(const std::vector<BatchPtr>& batches, const Schema& schema,
                       int num_rows, int truncate, bool vertical, bool has_more,
                       const CellFormatOptions& opts) {
  // Dataset.showString clamps to [0, ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH - 1].
  const int64_t limit = std::clamp<int64_t>(num_rows, 0, 2'147'483'631);
  const int num_cols = schema.num_fields();

  // Header: escaped, never truncated.
  std::vector<ShowCell> header;
  header.reserve(static_cast<size_t>(num_cols));
  for (const Field& f : schema.fields()) header.push_back(PrepareCell(f.name, 0));

  // Cells, column-major.
  std::vector<std::vector<ShowCell>> cells(static_cast<size_t>(num_cols));
  int64_t shown = 0;
  std::vector<std::string> raw;
  for (const BatchPtr& batch : batches) {
    if (batch == nullptr) continue;
    int64_t take = std::min(batch->num_rows(), limit - shown);
    if (take <= 0) {
      if (batch->num_rows() > 0) has_more = true;
      continue;
    }
    if (take < batch->num_rows()) has_more = true;
    for (int c = 0; c < num_cols; ++c) {
      std::vector<ShowCell>& column = cells[static_cast<size_t>(c)];
      if (c >= batch->num_columns()) {
        column.insert(column.end(), static_cast<size_t>(take),
                      PrepareCell("NULL", truncate));
        continue;
      }
      raw.clear();
      FormatColumn(*batch->column(c), take, opts, &raw);
      for (const std::string& s : raw) column.push_back(PrepareCell(s, truncate));
    }
    shown += take;
  }

  std::string sb;
  if (!vertical) {
    std::vector<int64_t> widths(static_cast<size_t>(num_cols), 3);
    for (int c = 0; c < num_cols; ++c) {
      int64_t& w = widths[static_cast<size_t>(c)];
      w = std::max(w, header[static_cast<size_t>(c)].width);
      for (const ShowCell& cell : cells[static_cast<size_t>(c)])
        w = std::max(w, cell.width);
    }
    std::string sep = "+";
    for (int64_t w : widths) {
      sep.append(static_cast<size_t>(w), '-');
      sep.push_back('+');
    }
    // No columns: Spark's mkString("+", "+", "+") of nothing is "++" (and "||" a row).
    if (num_cols == 0) sep.push_back('+');
    sep.push_back('\n');
    auto append_row = [&](auto&& cell_at) {
      sb.push_back('|');
      if (num_cols == 0) sb.push_back('|');
      for (int c = 0; c < num_cols; ++c) {
        const ShowCell& cell = cell_at(c);
        int64_t pad = widths[static_cast<size_t>(c)] - cell.width;
        if (truncate > 0) {
          AppendSpaces(pad, &sb);
          sb.append(cell.text);
        } else {
          sb.append(cell.text);
          AppendSpaces(pad, &sb);
        }
        sb.push_back('|');
      }
      sb.push_back('\n');
    };
    sb.append(sep);
    append_row([&](int c) -> const ShowCell& { return header[static_cast<size_t>(c)]; });
    sb.append(sep);
    for (int64_t r = 0; r < shown; ++r) {
      append_row([&](int c) -> const ShowCell& {
        return cells[static_cast<size_t>(c)][static_cast<size_t>(r)];
      });
    }
    sb.append(sep);
  } else {
    int64_t name_width = 3;
    for (const ShowCell& h : header) name_width = std::max(name_width, h.width);
    int64_t data_width = 3;
    for (const auto& column : cells) {
      for (const ShowCell& cell : column) data_width = std::max(data_width, cell.width);
    }
    for (int64_t r = 0; r < shown; ++r) {
      std::string record = "-RECORD " + std::to_string(r);
      int64_t record_width = name_width + data_width + 5;
      if (static_cast<int64_t>(record.size()) < record_width) {
        record.append(static_cast<size_t>(record_width) - record.size(), '-');
      }
      sb.append(record);
      sb.push_back('\n');
      for (int c = 0; c < num_cols; ++c) {
        const ShowCell& name = header[static_cast<size_t>(c)];
        const ShowCell& cell = cells[static_cast<size_t>(c)][static_cast<size_t>(r)];
        sb.push_back(' ');
        sb.append(name.text);
        AppendSpaces(name_width - name.width, &sb);
        sb.append(" | ");
        sb.append(cell.text);
        AppendSpaces(data_width - cell.width, &sb);
        sb.push_back(' ');
        if (c + 1 < num_cols) sb.push_back('\n');
      }
      sb.push_back('\n');
    }
  }

  if (vertical && shown == 0) {
    sb.append("(0 rows)\n");
  } else if (has_more) {
    sb.append("only showing top ");
    sb.append(std::to_string(limit));
    sb.append(limit == 1 ? " row\n" : " rows\n");
  }
  return sb;
}

}  // namespace spate
