// Copyright spate authors.
#pragma once

// Spark's datetime patterns (sql-ref-datetime-pattern.html, the CORRECTED parser policy
// that is Spark 4's default): a pattern such as "yyyy-MM-dd HH:mm:ss.SSS" is compiled
// once into a small program of field/literal ops, then applied to many values.
//
// Supported letters: G y D M L d Q q E F a h K k H m s S V z O X x Z, quoted literals
// ('text', '' for a quote) and optional sections [ ]. Pattern errors follow Spark 4:
//   - letters or counts the legacy SimpleDateFormat accepted but java.time rejects
//     (yyyyyyy, MMMMM, EEEEE, ddd, HHH, aa, Y, w, W, u, ...) ->
//     INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION;
//   - e, c -> INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN;
//   - other letters -> INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER;
//   - bad counts of Q q V O X x -> INVALID_DATETIME_PATTERN.LENGTH.
//
// Formatting prints the wall-clock fields of an instant in a zone (English, Locale.US).
// Parsing follows java.time's DateTimeFormatter as Spark configures it (case-insensitive,
// STRICT resolver, fraction 'S'*n parses 1..n digits, missing fields default to
// 1970-01-01 00:00:00, a zone in the text overrides the session zone). A failure yields a
// message in java.time's words ("Text 'x' could not be parsed at index 0"), which callers
// put into CANNOT_PARSE_TIMESTAMP.
//
// Ownership: DateTimePattern is an immutable value. Thread safety: const methods may run
// concurrently.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"

namespace spate {

class TimeZone;

class DateTimePattern {
 public:
  /// Compiles `pattern`; Spark's pattern errors as described above.
  static Result<DateTimePattern> Compile(std::string_view pattern);

  const std::string& pattern() const { return pattern_; }
  /// True if the pattern has a zone or offset field (V z O X x Z).
  bool has_zone_field() const { return has_zone_; }

  /// Appends the text of instant `micros` (µs since the epoch) as seen in `zone`
  /// (nullptr = UTC). For TIMESTAMP_NTZ values pass the local micros and zone nullptr.
  void Format(int64_t micros, const TimeZone* zone, std::string* out) const;

  /// Parses `text`. On success sets *micros to the instant (the zone written in the text,
  /// else `zone`, nullptr = UTC) and returns true. With `local` = true the text's zone is
  /// ignored and *micros is the local date-time (TIMESTAMP_NTZ). On failure returns false
  /// and sets *error to java.time's message (without Spark's suffixes).
  bool Parse(std::string_view text, const TimeZone* zone, bool local, int64_t* micros,
             std::string* error) const;

  enum class OpKind : uint8_t {
    kLiteral,
    kEra,
    kYear,
    kDayOfYear,
    kMonth,
    kDay,
    kQuarter,
    kDayOfWeek,
    kAlignedDow,
    kAmPm,
    kHour12,
    kHour24,
    kHour1To24,
    kHour0To11,
    kMinute,
    kSecond,
    kFraction,
    kZoneId,
    kZoneName,
    kOffsetO,
    kOffsetX,
    kOffsetLowerX,
    kOffsetZ,
    kOptStart,
    kOptEnd
  };
  struct Op {
    OpKind kind;
    int count = 0;            // letter count
    bool standalone = false;  // L / q
    int match = -1;           // kOptStart: index of its kOptEnd
    std::string literal;      // kLiteral
  };

 private:
  std::string pattern_;
  std::vector<Op> ops_;
  bool has_zone_ = false;
};

}  // namespace spate
