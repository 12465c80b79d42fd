// Copyright spate authors.
#include "spate/formats/json/writer.h"

#include <cmath>

#include "spate/columnar/builder.h"
#include "spate/columnar/list_text.h"
#include "spate/formats/json/json_text.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate::formats::json {

namespace {

void AppendBase64(std::string_view s, std::string* out) {
  static const char kTable[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(s[i]) << 16) |
                 (static_cast<uint8_t>(s[i + 1]) << 8) | static_cast<uint8_t>(s[i + 2]);
    out->push_back(kTable[v >> 18]);
    out->push_back(kTable[(v >> 12) & 63]);
    out->push_back(kTable[(v >> 6) & 63]);
    out->push_back(kTable[v & 63]);
  }
  if (i < s.size()) {
    uint32_t v = static_cast<uint8_t>(s[i]) << 16;
    if (i + 1 < s.size()) v |= static_cast<uint8_t>(s[i + 1]) << 8;
    out->push_back(kTable[v >> 18]);
    out->push_back(kTable[(v >> 12) & 63]);
    out->push_back(i + 1 < s.size() ? kTable[(v >> 6) & 63] : '=');
    out->push_back('=');
  }
}

// Plain decimal text: unscaled / 10^scale.
std::string PlainDecimal(__int128 v, int scale) {
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u);
  while (static_cast<int>(digits.size()) <= scale) digits.push_back('0');
  std::string out = neg ? "-" : "";
  for (int k = static_cast<int>(digits.size()) - 1; k >= 0; --k) {
    out.push_back(digits[k]);
    if (k == scale && scale > 0) out.push_back('.');
  }
  return out;
}

void AppendFloating(double d, bool is_float, std::string* out) {
  if (std::isnan(d)) {
    *out += "\"NaN\"";
  } else if (std::isinf(d)) {
    *out += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    *out += is_float ? FormatFloat(static_cast<float>(d)) : FormatDouble(d);
  }
}

}  // namespace

Result<JsonWriter> JsonWriter::Make(const JsonOptions& options) {
  JsonWriter w;
  w.options_ = options;
  w.zone_ = TimeZone::Lookup(options.time_zone_id);
  SPATE_ASSIGN_OR_RETURN(auto d, DateTimePattern::Compile(options.date_format.empty()
                                                              ? "yyyy-MM-dd"
                                                              : options.date_format));
  w.date_pattern_ = std::move(d);
  SPATE_ASSIGN_OR_RETURN(auto t,
                         DateTimePattern::Compile(options.timestamp_format.empty()
                                                      ? "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"
                                                      : options.timestamp_format));
  w.timestamp_pattern_ = std::move(t);
  SPATE_ASSIGN_OR_RETURN(auto n,
                         DateTimePattern::Compile(options.timestamp_ntz_format.empty()
                                                      ? "yyyy-MM-dd'T'HH:mm:ss[.SSS]"
                                                      : options.timestamp_ntz_format));
  w.timestamp_ntz_pattern_ = std::move(n);
  return w;
}

void JsonWriter::Write(const Column& c, int64_t i, std::string* out) const {
  switch (c.type_id()) {
    case TypeId::kNull:
      *out += "null";
      break;
    case TypeId::kBoolean:
      *out += c.GetBool(i) ? "true" : "false";
      break;
    case TypeId::kByte:
      *out += std::to_string(c.raw_values<int8_t>()[i]);
      break;
    case TypeId::kShort:
      *out += std::to_string(c.raw_values<int16_t>()[i]);
      break;
    case TypeId::kInt:
      *out += std::to_string(c.raw_values<int32_t>()[i]);
      break;
    case TypeId::kLong:
      *out += std::to_string(c.raw_values<int64_t>()[i]);
      break;
    case TypeId::kFloat:
      AppendFloating(c.raw_values<float>()[i], true, out);
      break;
    case TypeId::kDouble:
      AppendFloating(c.raw_values<double>()[i], false, out);
      break;
    case TypeId::kDecimal:
      *out += PlainDecimal(c.raw_values<__int128>()[i], c.type()->scale());
      break;
    case TypeId::kString:
      AppendJsonString(c.GetView(i), out);
      break;
    case TypeId::kBinary:
      out->push_back('"');
      AppendBase64(c.GetView(i), out);
      out->push_back('"');
      break;
    case TypeId::kDate: {
      std::string s;
      date_pattern_->Format(int64_t{c.raw_values<int32_t>()[i]} * 86400000000LL, nullptr,
                            &s);
      AppendJsonString(s, out);
      break;
    }
    case TypeId::kTimestamp: {
      std::string s;
      timestamp_pattern_->Format(c.raw_values<int64_t>()[i], zone_, &s);
      AppendJsonString(s, out);
      break;
    }
    case TypeId::kTimestampNtz: {
      std::string s;
      timestamp_ntz_pattern_->Format(c.raw_values<int64_t>()[i], nullptr, &s);
      AppendJsonString(s, out);
      break;
    }
    case TypeId::kStruct: {
      out->push_back('{');
      bool first = true;
      const auto& fields = c.type()->fields();
      for (size_t k = 0; k < fields.size(); ++k) {
        const Column& f = *c.child(static_cast<int>(k));
        bool null = f.IsNull(i);
        if (null && options_.ignore_null_fields) continue;
        if (!first) out->push_back(',');
        first = false;
        AppendJsonString(fields[k].name, out);
        out->push_back(':');
        if (null) {
          *out += "null";
        } else {
          Write(f, i, out);
        }
      }
      out->push_back('}');
      break;
    }
    case TypeId::kArray: {
      const Column& e = *c.child(0);
      AppendListText(c, i, '[', ",", ']', out, [&](int32_t k) {
        if (e.IsNull(k)) {
          *out += "null";
        } else {
          Write(e, k, out);
        }
      });
      break;
    }
    case TypeId::kMap: {
      const Column& keys = *c.child(0)->child(0);
      const Column& values = *c.child(0)->child(1);
      AppendListText(c, i, '{', ",", '}', out, [&](int32_t k) {
        if (keys.type_id() == TypeId::kString) {
          AppendJsonString(keys.GetView(k), out);
        } else {
          // Spark writes keyArray.get(i).toString: "[1,2]" for structs, "1" for ints.
          std::string text;
          if (keys.type_id() == TypeId::kStruct) {
            text = "[";
            for (int f = 0; f < static_cast<int>(keys.children().size()); ++f) {
              if (f) text += ",";
              const Column& kc = *keys.child(f);
              text += kc.IsNull(k) ? "null" : kc.GetValue(k).ToString();
            }
            text += "]";
          } else {
            text = keys.GetValue(k).ToString();
          }
          AppendJsonString(text, out);
        }
        out->push_back(':');
        if (values.IsNull(k)) {
          *out += "null";
        } else {
          Write(values, k, out);
        }
      });
      break;
    }
    default:
      AppendJsonString(c.GetValue(i).ToString(), out);
      break;
  }
}

ColumnPtr JsonWriter::WriteColumn(const Column& column) const {
  int64_t n = column.length();
  StringBuilder sb(DataType::String(), n, n * 32);
  std::string buf;
  for (int64_t i = 0; i < n; ++i) {
    if (column.IsNull(i)) {
      sb.AppendNull();
      continue;
    }
    buf.clear();
    Write(column, i, &buf);
    sb.Append(buf);
  }
  return sb.Finish();
}

}  // namespace spate::formats::json
