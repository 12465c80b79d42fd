// Copyright spate authors.
#include "spate/columnar/hive_format.h"

#include <algorithm>
#include <vector>

#include "spate/types/format.h"

namespace spate {

namespace {
std::string Pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  while (static_cast<int>(s.size()) < width) s.insert(s.begin(), '0');
  return s;
}
}  // namespace

// IntervalUtils.toDayTimeIntervalString(..., HIVE_STYLE, ...).
std::string HiveDayTimeString(int64_t micros) {
  std::string sign;
  unsigned __int128 rest;
  if (micros < 0) {
    sign = "-";
    rest = static_cast<unsigned __int128>(-static_cast<__int128>(micros));
  } else {
    rest = static_cast<unsigned __int128>(micros);
  }
  const uint64_t kMinute = 60ULL * 1000000ULL;
  uint64_t seconds_with_fraction = static_cast<uint64_t>(rest % kMinute);
  rest /= kMinute;
  uint64_t minutes = static_cast<uint64_t>(rest % 60);
  rest /= 60;
  uint64_t hours = static_cast<uint64_t>(rest % 24);
  uint64_t days = static_cast<uint64_t>(rest / 24);
  uint64_t seconds = seconds_with_fraction / 1000000ULL;
  uint64_t nanos = (seconds_with_fraction % 1000000ULL) * 1000ULL;
  return sign + std::to_string(days) + " " + Pad(static_cast<int64_t>(hours), 2) + ":" +
         Pad(static_cast<int64_t>(minutes), 2) + ":" +
         Pad(static_cast<int64_t>(seconds), 2) + "." +
         Pad(static_cast<int64_t>(nanos), 9);
}

// IntervalUtils.toYearMonthIntervalString(..., HIVE_STYLE, ...).
std::string HiveYearMonthString(int64_t months) {
  std::string sign;
  int64_t a = months;
  if (months < 0) {
    sign = "-";
    a = -a;
  }
  return sign + std::to_string(a / 12) + "-" + std::to_string(a % 12);
}

std::string HiveString(const Value& v, bool nested, const TimeZone* tz) {
  if (v.is_null()) return nested ? "null" : "NULL";
  const DataType& t = *v.type();
  switch (t.id()) {
    case TypeId::kNull:
      return nested ? "null" : "NULL";
    case TypeId::kBoolean:
      return v.i64() ? "true" : "false";
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
      return std::to_string(v.i64());
    case TypeId::kFloat:
      return FormatFloat(static_cast<float>(v.f64()));
    case TypeId::kDouble:
      return FormatDouble(v.f64());
    case TypeId::kDecimal:
      return FormatDecimal(v.i128(), t.scale());
    case TypeId::kString:
      return nested ? "\"" + v.str() + "\"" : v.str();
    case TypeId::kBinary:  // spark.sql.binaryOutputStyle defaults to UTF8 in HiveResult
      return v.str();
    case TypeId::kDate:
      return FormatDate(static_cast<int32_t>(v.i64()));
    case TypeId::kTimestamp:
      return FormatTimestampMicros(v.i64(), tz ? tz->OffsetSeconds(v.i64()) : 0);
    case TypeId::kTimestampNtz:
      return FormatTimestampMicros(v.i64());
    case TypeId::kDayTimeInterval:
      return HiveDayTimeString(v.i64());
    case TypeId::kYearMonthInterval:
      return HiveYearMonthString(v.i64());
    case TypeId::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) s += ",";
        s += HiveString(v.items()[i], true, tz);
      }
      return s + "]";
    }
    case TypeId::kMap: {
      std::vector<std::string> entries;
      for (size_t i = 0; i < v.items().size(); ++i) {
        entries.push_back(HiveString(v.items()[i], true, tz) + ":" +
                          HiveString(v.values()[i], true, tz));
      }
      std::sort(entries.begin(), entries.end());
      std::string s = "{";
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i) s += ",";
        s += entries[i];
      }
      return s + "}";
    }
    case TypeId::kStruct: {
      std::string s = "{";
      const auto& fields = t.fields();
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) s += ",";
        std::string name =
            i < fields.size() ? fields[i].name : "col" + std::to_string(i + 1);
        s += "\"" + name + "\":" + HiveString(v.items()[i], true, tz);
      }
      return s + "}";
    }
  }
  return v.ToString();
}

}  // namespace spate
