// Copyright spate authors.
// TIMESTAMPADD / TIMESTAMPDIFF with Spark 4 semantics (catalyst TimestampAdd /
// TimestampDiff, DateTimeUtils.timestampAdd / timestampDiff), behind SQL's
// TIMESTAMPADD | DATEADD | DATE_ADD (unit, n, ts) and TIMESTAMPDIFF | DATEDIFF |
// DATE_DIFF | TIMEDIFF (unit, start, end) and the DataFrame API's timestamp_add /
// timestamp_diff.
//
// Adding: MICROSECOND ... HOUR add a duration to the instant; DAY (and DAYOFYEAR) and
// WEEK add days to the wall-clock date in the session time zone, MONTH / QUARTER / YEAR
// months with the day clamped to the month's end (java.time's ZonedDateTime.plusDays /
// plusMonths: the offset the timestamp had is kept when it is valid at the new local
// time; a time in a DST gap moves forward by the gap). TIMESTAMP_NTZ values add in UTC.
// Any overflow, of the quantity times the unit or of the result, is DATETIME_OVERFLOW,
// with ANSI on or off.
//
// Differences: both ends are TIMESTAMP (NTZ and DATE inputs are cast) taken as wall-clock
// date-times in the session time zone (java.time's ChronoUnit.between of LocalDateTimes):
// whole units, truncated toward zero; MONTH / QUARTER / YEAR count whole months, a month
// being complete when the end's day and time of day reach the start's. DAYOFYEAR adds as
// DAY but is no unit of a difference.
//
// The unit of the DataFrame API is any string; an unknown one fails when a row is
// evaluated, as in Spark (INVALID_PARAMETER_VALUE.DATETIME_UNIT).

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spate/compute/coercion.h"
#include "spate/compute/datetime_functions.h"
#include "spate/compute/function_args.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/kernel_columns.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate {

namespace {

enum class Unit : uint8_t {
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kDayOfYear,
  kWeek,
  kMonth,
  kQuarter,
  kYear
};

std::optional<Unit> UnitOf(std::string_view text) {
  static const std::pair<const char*, Unit> kUnits[] = {
      {"MICROSECOND", Unit::kMicrosecond},
      {"MILLISECOND", Unit::kMillisecond},
      {"SECOND", Unit::kSecond},
      {"MINUTE", Unit::kMinute},
      {"HOUR", Unit::kHour},
      {"DAY", Unit::kDay},
      {"DAYOFYEAR", Unit::kDayOfYear},
      {"WEEK", Unit::kWeek},
      {"MONTH", Unit::kMonth},
      {"QUARTER", Unit::kQuarter},
      {"YEAR", Unit::kYear}};
  for (const auto& [name, unit] : kUnits) {
    if (EqualsIgnoreCase(text, name)) return unit;
  }
  return std::nullopt;
}

// Microseconds of a duration unit; 0 for the calendar units.
int64_t UnitMicros(Unit u) {
  switch (u) {
    case Unit::kMicrosecond:
      return 1;
    case Unit::kMillisecond:
      return 1'000;
    case Unit::kSecond:
      return kMicrosPerSecond;
    case Unit::kMinute:
      return 60 * kMicrosPerSecond;
    case Unit::kHour:
      return 3'600 * kMicrosPerSecond;
    case Unit::kDay:
    case Unit::kDayOfYear:
      return kMicrosPerDay;
    case Unit::kWeek:
      return 7 * kMicrosPerDay;
    default:
      return 0;
  }
}

// Months of a calendar unit; 0 for the others.
int64_t UnitMonths(Unit u) {
  switch (u) {
    case Unit::kMonth:
      return 1;
    case Unit::kQuarter:
      return 3;
    case Unit::kYear:
      return 12;
    default:
      return 0;
  }
}

// A month shift past this many months leaves the range of timestamps whatever the start
// (which spans less than 600,000 years); it keeps the calendar arithmetic from
// overflowing.
constexpr int64_t kMaxMonthShift = 12 * 600'000;

Status InvalidUnit(const char* function, const std::string& unit) {
  return Status::Error("INVALID_PARAMETER_VALUE.DATETIME_UNIT",
                       {{"parameter", "`unit`"},
                        {"functionName", std::string("`") + function + "`"},
                        {"invalidValue", "'" + unit + "'"}});
}

Status AddOverflow(int64_t quantity, const std::string& unit, int64_t micros,
                   const TimeZone* session) {
  int64_t offset = session ? session->OffsetSeconds(micros) : 0;
  return Status::Error(
      "DATETIME_OVERFLOW",
      {{"operation", "add " + std::to_string(quantity) + "L " + unit + " to TIMESTAMP '" +
                         FormatTimestampMicros(micros, offset) + "'"}});
}

// The instant of wall-clock time `local` in `tz`, keeping the offset `offset_micros` when
// it is valid there (ZonedDateTime.ofLocal with a preferred offset).
int64_t LocalToInstant(const TimeZone& tz, int64_t local, int64_t offset_micros) {
  int64_t same;
  if (!__builtin_sub_overflow(local, offset_micros, &same) &&
      tz.OffsetSeconds(same) * kMicrosPerSecond == offset_micros) {
    return same;
  }
  return tz.LocalToUtcMicros(local);
}

// `micros` plus `days` days and `months` months of its wall-clock calendar in `tz`
// (nullptr: UTC, for TIMESTAMP_NTZ). False on overflow.
bool ShiftCalendar(int64_t micros, const TimeZone* tz, int64_t days, int64_t months,
                   int64_t* out) {
  int64_t offset = tz ? tz->OffsetSeconds(micros) * kMicrosPerSecond : 0;
  int64_t local;
  if (__builtin_add_overflow(micros, offset, &local)) return false;
  int64_t day = FloorDiv(local, kMicrosPerDay);
  int64_t time_of_day = local - day * kMicrosPerDay;
  if (months != 0) {
    if (months > kMaxMonthShift || months < -kMaxMonthShift) return false;
    day = AddMonthsToDays(day, months);
  }
  int64_t shifted;
  if (__builtin_add_overflow(day, days, &day) ||
      __builtin_mul_overflow(day, kMicrosPerDay, &shifted) ||
      __builtin_add_overflow(shifted, time_of_day, &shifted)) {
    return false;
  }
  *out = tz ? LocalToInstant(*tz, shifted, offset) : shifted;
  return true;
}

// DateTimeUtils.timestampAdd. False on overflow.
bool AddUnits(Unit unit, int64_t quantity, int64_t micros, const TimeZone* tz,
              int64_t* out) {
  switch (unit) {
    case Unit::kDay:
    case Unit::kDayOfYear:
      return ShiftCalendar(micros, tz, quantity, 0, out);
    case Unit::kWeek: {
      int64_t days;
      if (__builtin_mul_overflow(quantity, 7, &days)) return false;
      return ShiftCalendar(micros, tz, days, 0, out);
    }
    case Unit::kMonth:
    case Unit::kQuarter:
    case Unit::kYear: {
      int64_t months;
      if (__builtin_mul_overflow(quantity, UnitMonths(unit), &months)) return false;
      return ShiftCalendar(micros, tz, 0, months, out);
    }
    default: {
      int64_t delta;
      return !__builtin_mul_overflow(quantity, UnitMicros(unit), &delta) &&
             !__builtin_add_overflow(micros, delta, out);
    }
  }
}

// Whole months from wall-clock time `start` to `end` (LocalDateTime.until(end, MONTHS)):
// the end's date steps one day toward the start when its time of day has not reached the
// start's, then months count as (month, day) pairs compare.
int64_t MonthsUntil(int64_t start, int64_t end) {
  int64_t start_day = FloorDiv(start, kMicrosPerDay);
  int64_t end_day = FloorDiv(end, kMicrosPerDay);
  int64_t start_time = start - start_day * kMicrosPerDay;
  int64_t end_time = end - end_day * kMicrosPerDay;
  if (end_day > start_day && end_time < start_time) {
    --end_day;
  } else if (end_day < start_day && end_time > start_time) {
    ++end_day;
  }
  auto packed = [](int64_t days) {
    int64_t y;
    unsigned m, d;
    CivilFromDays(days, &y, &m, &d);
    return (y * 12 + m - 1) * 32 + d;
  };
  return (packed(end_day) - packed(start_day)) / 32;
}

// DateTimeUtils.timestampDiff over instants seen in `tz`. False on overflow.
bool DiffUnits(Unit unit, int64_t start, int64_t end, const TimeZone* tz, int64_t* out) {
  int64_t s = start, e = end;
  if (tz != nullptr &&
      (__builtin_add_overflow(start, tz->OffsetSeconds(start) * kMicrosPerSecond, &s) ||
       __builtin_add_overflow(end, tz->OffsetSeconds(end) * kMicrosPerSecond, &e))) {
    return false;
  }
  if (int64_t months = UnitMonths(unit)) {
    *out = MonthsUntil(s, e) / months;
    return true;
  }
  __int128 units = (static_cast<__int128>(e) - s) / UnitMicros(unit);
  if (units > INT64_MAX || units < INT64_MIN) return false;
  *out = static_cast<int64_t>(units);
  return true;
}

// The unit argument: a string literal (the parser's keyword, as written, or the DataFrame
// API's string).
Result<std::string> UnitText(const BoundExprPtr& e) {
  const Value* v = e->literal_value();
  if (v == nullptr || v->is_null() || v->type()->id() != TypeId::kString) {
    return Status::Internal("the unit of timestampadd / timestampdiff must be a string");
  }
  return v->str();
}

Status UnexpectedType(const std::string& sql, const BoundExprPtr& arg, size_t index,
                      const std::string& required) {
  return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                       {{"sqlExpr", "\"" + sql + "\""},
                        {"paramIndex", fn::Ordinal(index)},
                        {"requiredType", required},
                        {"inputSql", "\"" + arg->ToString() + "\""},
                        {"inputType", QuoteType(*arg->type())}});
}

// "name(UNIT, a, b)", as Spark shows both calls.
std::function<std::string(const std::vector<std::string>&)> Shown(std::string name,
                                                                  std::string unit) {
  return [name = std::move(name),
          unit = std::move(unit)](const std::vector<std::string>& s) {
    return name + "(" + unit + ", " + s[0] + ", " + s[1] + ")";
  };
}

// Runs `row` over the rows where all `args` are valid; the output keeps their validity.
template <typename Row>
Result<ColumnPtr> MapValid(const DataTypePtr& type, const std::vector<ColumnPtr>& args,
                           int64_t n, Row&& row) {
  int64_t nulls = 0;
  BufferPtr validity = kernel::AndValidity({args[0].get(), args[1].get()}, n, &nulls);
  kernel::Out<int64_t> out(n);
  const int64_t* a = args[0]->raw_values<int64_t>();
  const int64_t* b = args[1]->raw_values<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    out.data[i] = 0;
    if (!kernel::Valid(validity, i)) continue;
    SPATE_RETURN_IF_ERROR(row(a[i], b[i], &out.data[i]));
  }
  return kernel::MakeColumn(type, n, nulls, validity, out.buf);
}

Result<BoundExprPtr> ResolveTimestampAdd(std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("timestampadd", args.size(), 3, 3, "3"));
  SPATE_ASSIGN_OR_RETURN(std::string unit_text, UnitText(args[0]));
  std::vector<BoundExprPtr> in{args[1], args[2]};
  auto shown = Shown("timestampadd", unit_text);
  const std::string sql = shown({in[0]->ToString(), in[1]->ToString()});
  const DataType& qt = *in[0]->type();
  if (!(qt.IsNumeric() || qt.id() == TypeId::kString || qt.id() == TypeId::kNull)) {
    return UnexpectedType(sql, in[0], 0, "\"BIGINT\"");
  }
  SPATE_ASSIGN_OR_RETURN(in[0], ImplicitCast(in[0], DataType::Long()));
  TypeId tt = in[1]->type()->id();
  if (tt == TypeId::kDate || tt == TypeId::kString || tt == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(in[1], ImplicitCast(in[1], DataType::Timestamp()));
  } else if (tt != TypeId::kTimestamp && tt != TypeId::kTimestampNtz) {
    return UnexpectedType(sql, in[1], 1,
                          "\"(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)\"");
  }
  DataTypePtr type = in[1]->type();
  const bool ntz = type->id() == TypeId::kTimestampNtz;
  const std::optional<Unit> unit = UnitOf(unit_text);
  return MakeScalarCall(
      "timestampadd", type, fn::AnyNullable(in), in,
      [type, ntz, unit, unit_text](const std::vector<ColumnPtr>& a, int64_t n,
                                   const EvalContext& ctx) -> Result<ColumnPtr> {
        const TimeZone* tz = ntz ? nullptr : ctx.time_zone;
        return MapValid(type, a, n, [&](int64_t quantity, int64_t micros, int64_t* out) {
          if (!unit) return InvalidUnit("TIMESTAMPADD", unit_text);
          if (!AddUnits(*unit, quantity, micros, tz, out))
            return AddOverflow(quantity, unit_text, micros, ctx.time_zone);
          return Status::OK();
        });
      },
      shown);
}

Result<BoundExprPtr> ResolveTimestampDiff(std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("timestampdiff", args.size(), 3, 3, "3"));
  SPATE_ASSIGN_OR_RETURN(std::string unit_text, UnitText(args[0]));
  std::vector<BoundExprPtr> in{args[1], args[2]};
  auto shown = Shown("timestampdiff", unit_text);
  const std::string sql = shown({in[0]->ToString(), in[1]->ToString()});
  for (size_t i = 0; i < 2; ++i) {
    TypeId t = in[i]->type()->id();
    if (t == TypeId::kTimestamp) continue;
    if (t != TypeId::kTimestampNtz && t != TypeId::kDate && t != TypeId::kString &&
        t != TypeId::kNull) {
      return UnexpectedType(sql, in[i], i, "\"TIMESTAMP\"");
    }
    SPATE_ASSIGN_OR_RETURN(in[i], ImplicitCast(in[i], DataType::Timestamp()));
  }
  std::optional<Unit> unit = UnitOf(unit_text);
  if (unit == Unit::kDayOfYear) unit.reset();
  return MakeScalarCall(
      "timestampdiff", DataType::Long(), fn::AnyNullable(in), in,
      [unit, unit_text](const std::vector<ColumnPtr>& a, int64_t n,
                        const EvalContext& ctx) -> Result<ColumnPtr> {
        return MapValid(DataType::Long(), a, n,
                        [&](int64_t start, int64_t end, int64_t* out) {
                          if (!unit) return InvalidUnit("TIMESTAMPDIFF", unit_text);
                          if (!DiffUnits(*unit, start, end, ctx.time_zone, out))
                            return LongOverflow();
                          return Status::OK();
                        });
      },
      shown);
}

}  // namespace

bool IsTimestampUnit(std::string_view word) { return UnitOf(word).has_value(); }

void RegisterTimestampAddDiff(FunctionRegistry& r) {
  r.RegisterScalar(kTimestampAddCall,
                   [](std::vector<BoundExprPtr> args, const ResolveContext&) {
                     return ResolveTimestampAdd(std::move(args));
                   });
  r.RegisterScalar(kTimestampDiffCall,
                   [](std::vector<BoundExprPtr> args, const ResolveContext&) {
                     return ResolveTimestampDiff(std::move(args));
                   });
}

}  // namespace spate
