// Copyright spate authors.
#pragma once

// The one parser of date and timestamp text, as its callers see it: CAST (cast.cc), the
// SQL literals DATE '...' / TIMESTAMP '...' / TIMESTAMP_NTZ '...' (Spark's AstBuilder
// calls the same stringToDate / stringToTimestamp / stringToTimestampWithoutTimeZone),
// and the JSON and CSV readers without a dateFormat / timestampFormat. Each CastStringTo*
// reads the common shape yyyy-MM-dd[( |T)HH:mm:ss[.f{1,6}]] inline (the readers' hot
// path) and hands any other text to the general parser (cast_text.cc), which reads every
// form Spark reads. Also Spark's special values ('epoch', 'today', 'now', ...). Pure
// functions.

#include <cstdint>
#include <optional>
#include <string_view>

#include "spate/compute/bound_expr.h"
#include "spate/types/calendar.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"
#include "spate/types/value.h"

namespace spate {
namespace datetime_text {

// The two ASCII digits at s[at] and s[at + 1] (the caller checks the length).
inline bool TwoDigits(std::string_view s, size_t at, int* out) {
  unsigned hi = static_cast<unsigned char>(s[at]) - '0';
  unsigned lo = static_cast<unsigned char>(s[at + 1]) - '0';
  if (hi > 9 || lo > 9) return false;
  *out = static_cast<int>(hi * 10 + lo);
  return true;
}

// The days since the epoch of "yyyy-MM-dd" in s[0, 10) (a four-digit year, two-digit
// month and day, nothing around), false if s does not start so or names no valid day.
inline bool CommonDatePrefix(std::string_view s, int64_t* days) {
  int hi, lo, month, day;
  if (s.size() < 10 || s[4] != '-' || s[7] != '-' || !TwoDigits(s, 0, &hi) ||
      !TwoDigits(s, 2, &lo) || !TwoDigits(s, 5, &month) || !TwoDigits(s, 8, &day)) {
    return false;
  }
  const int year = hi * 100 + lo;
  if (!ValidDate(year, month, day)) return false;
  *days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return true;
}

// Exactly "yyyy-MM-dd": its days since the epoch; false for any other text or an invalid
// day. Where this is true, the general parser reads the same day.
inline bool CommonDate(std::string_view s, int32_t* days) {
  int64_t d;
  if (s.size() != 10 || !CommonDatePrefix(s, &d)) return false;
  *days = static_cast<int32_t>(d);
  return true;
}

// Exactly "yyyy-MM-dd" or "yyyy-MM-dd( |T)HH:mm:ss" followed by nothing or by '.' and 1-6
// fraction digits: its wall-clock microseconds since the epoch; false for any other text
// or an invalid day or time. Where this is true, the general parser reads the same fields
// (and, the text naming no zone, a TIMESTAMP is this instant in the session zone).
inline bool CommonLocalTimestamp(std::string_view s, int64_t* local_micros) {
  int64_t days;
  if (!CommonDatePrefix(s, &days)) return false;
  int64_t time = 0;
  if (s.size() > 10) {
    int hour, minute, second;
    if (s.size() < 19 || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' ||
        !TwoDigits(s, 11, &hour) || !TwoDigits(s, 14, &minute) ||
        !TwoDigits(s, 17, &second) || hour > 23 || minute > 59 || second > 59) {
      return false;
    }
    int64_t fraction = 0;
    if (s.size() > 19) {
      if (s[19] != '.' || s.size() == 20 || s.size() > 26) return false;
      for (size_t k = 20; k < 26; ++k) {
        unsigned digit = k < s.size() ? static_cast<unsigned char>(s[k]) - '0' : 0;
        if (digit > 9) return false;
        fraction = fraction * 10 + digit;
      }
    }
    time = ((hour * int64_t{60} + minute) * 60 + second) * kMicrosPerSecond + fraction;
  }
  *local_micros = days * kMicrosPerDay + time;
  return true;
}

// The general parsers (cast_text.cc): every form Spark reads, the common shape included.
// SparkDateTimeUtils.stringToDate.
bool ParseDate(std::string_view s, int32_t* days);
// stringToTimestamp(s, session zone of ctx).
bool ParseTimestamp(std::string_view s, const EvalContext& ctx, int64_t* micros);
// stringToTimestampWithoutTimeZone(s, allow_zone): a zone in the text is validated and
// ignored, or without allow_zone makes the text invalid.
bool ParseTimestampNtz(std::string_view s, bool allow_zone, int64_t* micros);

}  // namespace datetime_text

/// One string parsed as CAST(s AS DATE / TIMESTAMP / TIMESTAMP_NTZ) parses it (Spark's
/// stringToDate, stringToTimestamp in ctx's session zone,
/// stringToTimestampWithoutTimeZone); false when the text is not valid. The readers read
/// TIMESTAMP_NTZ with `allow_zone` false (Spark's parseWithoutTimeZone(s, false)): a zone
/// in the text makes it invalid instead of being ignored.
inline bool CastStringToDate(std::string_view s, int32_t* days) {
  return datetime_text::CommonDate(s, days) || datetime_text::ParseDate(s, days);
}
inline bool CastStringToTimestamp(std::string_view s, const EvalContext& ctx,
                                  int64_t* micros) {
  int64_t local;
  if (datetime_text::CommonLocalTimestamp(s, &local)) {
    *micros = ctx.time_zone != nullptr ? ctx.time_zone->LocalToUtcMicros(local) : local;
    return true;
  }
  return datetime_text::ParseTimestamp(s, ctx, micros);
}
inline bool CastStringToTimestampNtz(std::string_view s, int64_t* micros,
                                     bool allow_zone = true) {
  return datetime_text::CommonLocalTimestamp(s, micros) ||
         datetime_text::ParseTimestampNtz(s, allow_zone, micros);
}

/// Exactly "yyyy-MM-dd" (four-digit year, two-digit month and day, nothing around):
/// days since the epoch, as CastStringToDate gives for this text; false for any other
/// shape or an invalid day. For the "yyyy-MM-dd" pattern's common case (CSV date
/// inference, partition values).
inline bool ParseIsoDate(std::string_view s, int32_t* days) {
  return datetime_text::CommonDate(s, days);
}

/// Spark's special values of `to` (DATE, TIMESTAMP or TIMESTAMP_NTZ; convertSpecialDate /
/// convertSpecialTimestamp / convertSpecialTimestampNTZ): 'epoch', 'now', 'today',
/// 'tomorrow' or 'yesterday' in any case, around it characters up to ' ', optionally
/// followed (after spaces or tabs) by a zone id that must be valid and is then ignored
/// (not after 'now'). 'now' is ctx.query_start_micros (the clock when 0); 'today' and its
/// neighbours are days of ctx's session zone. Spark reads them in typed literals and in a
/// CAST of a constant string, not in a CAST of a column. The value for such text, else
/// nullopt.
std::optional<Value> SpecialDatetimeValue(std::string_view s, TypeId to,
                                          const EvalContext& ctx);
/// A CAST of `text`, the column of a constant string expression (its rows all alike), to
/// `to`: the column of its special value when it names one (the optimizer's
/// SpecialDatetimeValues rule over a foldable CAST), else nullptr.
ColumnPtr SpecialDatetimeColumn(const Column& text, TypeId to, const EvalContext& ctx);

}  // namespace spate
