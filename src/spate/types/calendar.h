// Copyright spate authors.
#pragma once

// The rules of the proleptic Gregorian calendar (java.time's IsoChronology, which Spark
// uses for every year): leap years, month lengths, valid dates. The one home of these
// rules for the types layer (time zones), compute (casts, date functions, patterns) and
// the readers (partition values). Day numbers of civil dates are DaysFromCivil /
// CivilFromDays (format.h). Pure constexpr functions.

#include <cstdint>

namespace spate {

/// The days of each month of a common (not leap) year.
inline constexpr int kCommonYearMonthDays[12] = {31, 28, 31, 30, 31, 30,
                                                 31, 31, 30, 31, 30, 31};

/// A year divisible by 4, except centuries not divisible by 400.
constexpr bool IsLeapYear(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

/// The number of days of `month` (1..12) in `year`: 28..31.
constexpr int DaysInMonth(int64_t year, int month) {
  return month == 2 && IsLeapYear(year) ? 29 : kCommonYearMonthDays[month - 1];
}

/// LocalDate.of's check of a year, month and day: month 1..12, day 1..its length.
constexpr bool ValidDate(int64_t year, int month, int day) {
  return month >= 1 && month <= 12 && day >= 1 && day <= DaysInMonth(year, month);
}

}  // namespace spate
