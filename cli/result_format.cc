// Copyright spate authors.
#include "result_format.h"

#include <cstdio>

#include "spate/columnar/hive_format.h"
#include "spate/columnar/pretty.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate::cli {

std::string JsonEscape(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string JsonValue(const Value& v) {
  if (v.is_null()) return "null";
  const DataType& t = *v.type();
  switch (t.id()) {
    case TypeId::kBoolean:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDecimal:
      return v.ToString();
    case TypeId::kFloat:
    case TypeId::kDouble: {
      std::string s = v.ToString();
      if (s == "NaN" || s == "Infinity" || s == "-Infinity") return "\"" + s + "\"";
      return s;
    }
    case TypeId::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < v.items().size(); ++i)
        s += (i ? "," : "") + JsonValue(v.items()[i]);
      return s + "]";
    }
    case TypeId::kMap: {
      std::string s = "{";
      for (size_t i = 0; i < v.items().size(); ++i) {
        s += (i ? "," : "") + JsonEscape(v.items()[i].ToString()) + ":" +
             JsonValue(v.values()[i]);
      }
      return s + "}";
    }
    case TypeId::kStruct: {
      std::string s = "{";
      for (size_t i = 0; i < v.items().size(); ++i) {
        s += (i ? "," : "") + JsonEscape(t.fields()[i].name) + ":" +
             JsonValue(v.items()[i]);
      }
      return s + "}";
    }
    default:
      return JsonEscape(v.ToString());
  }
}

std::string FormatResult(const Schema& schema, const std::vector<BatchPtr>& batches,
                         OutputFormat format, bool header, const std::string& time_zone) {
  std::string out;
  if (format == OutputFormat::kTable) {
    int64_t rows = 0;
    for (const auto& b : batches) rows += b->num_rows();
    CellFormatOptions opts;
    opts.time_zone = TimeZone::Lookup(time_zone);
    return ShowString(batches, schema, static_cast<int>(rows), 0, false, false, opts);
  }
  if (format == OutputFormat::kTsv && header) {
    for (int c = 0; c < schema.num_fields(); ++c)
      out += (c ? "\t" : "") + schema.field(c).name;
    out += "\n";
  }
  const TimeZone* tz = TimeZone::Lookup(time_zone);
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      if (format == OutputFormat::kJson) out += "{";
      for (int c = 0; c < b->num_columns(); ++c) {
        Value v = b->column(c)->GetValue(r);
        if (format == OutputFormat::kTsv) {
          if (c) out += "\t";
          out += HiveString(v, false, tz);
        } else {
          if (c) out += ",";
          out += JsonEscape(schema.field(c).name) + ":";
          if (!v.is_null() && v.type()->id() == TypeId::kTimestamp && tz) {
            out +=
                "\"" + FormatTimestampMicros(v.i64(), tz->OffsetSeconds(v.i64())) + "\"";
          } else {
            out += JsonValue(v);
          }
        }
      }
      out += format == OutputFormat::kJson ? "}\n" : "\n";
    }
  }
  return out;
}

}  // namespace spate::cli
