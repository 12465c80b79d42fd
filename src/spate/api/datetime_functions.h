// Copyright spate authors.
#pragma once

// The date/time functions of pyspark.sql.functions (included by column.h; use through
// `namespace F = spate::api::functions;`). Each builds an unresolved call of the SQL
// function of the same name; arguments are checked when the plan is analyzed, with the
// same errors as in SQL. Python literal parameters (formats, day counts, zone ids) are
// plain C++ values.

#include <string>

#include "spate/api/column.h"

namespace spate::api::functions {

Column current_timestamp();
Column current_date();
Column now();
Column localtimestamp();
Column current_timezone();

Column to_timestamp(const Column& c);
Column to_timestamp(const Column& c, const std::string& format);
Column try_to_timestamp(const Column& c);
Column try_to_timestamp(const Column& c, const Column& format);
Column to_timestamp_ntz(const Column& c);
Column to_timestamp_ntz(const Column& c, const Column& format);
Column to_date(const Column& c);
Column to_date(const Column& c, const std::string& format);
Column unix_timestamp();
Column unix_timestamp(const Column& c, const std::string& format = "yyyy-MM-dd HH:mm:ss");
Column date_format(const Column& c, const std::string& format);
Column from_unixtime(const Column& c, const std::string& format = "yyyy-MM-dd HH:mm:ss");

Column timestamp_seconds(const Column& c);
Column timestamp_millis(const Column& c);
Column timestamp_micros(const Column& c);
Column unix_seconds(const Column& c);
Column unix_millis(const Column& c);
Column unix_micros(const Column& c);
Column unix_date(const Column& c);
Column date_from_unix_date(const Column& c);

Column year(const Column& c);
Column quarter(const Column& c);
Column month(const Column& c);
Column dayofmonth(const Column& c);
Column day(const Column& c);
Column dayofweek(const Column& c);
Column weekday(const Column& c);
Column dayofyear(const Column& c);
Column weekofyear(const Column& c);
Column hour(const Column& c);
Column minute(const Column& c);
Column second(const Column& c);
/// extract(field FROM source); `field` is a string literal column such as lit("YEAR").
Column extract(const Column& field, const Column& source);
Column date_part(const Column& field, const Column& source);

Column date_add(const Column& start, int days);
Column date_add(const Column& start, const Column& days);
Column date_sub(const Column& start, int days);
Column date_sub(const Column& start, const Column& days);
Column dateadd(const Column& start, const Column& days);
Column datediff(const Column& end, const Column& start);
/// `ts` plus `quantity` units, SQL's TIMESTAMPADD(unit, quantity, ts): `unit` is YEAR,
/// QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND or MICROSECOND, in any
/// case (an unknown unit fails when a row is evaluated:
/// INVALID_PARAMETER_VALUE.DATETIME_UNIT). Named timestampadd(unit, quantity, ts).
Column timestamp_add(const std::string& unit, const Column& quantity, const Column& ts);
/// Whole `unit`s from `start` to `end`, SQL's TIMESTAMPDIFF(unit, start, end) (BIGINT).
Column timestamp_diff(const std::string& unit, const Column& start, const Column& end);
Column add_months(const Column& start, int months);
Column add_months(const Column& start, const Column& months);
Column months_between(const Column& date1, const Column& date2, bool round_off = true);
Column last_day(const Column& c);
Column next_day(const Column& c, const std::string& day_of_week);
Column date_trunc(const std::string& format, const Column& timestamp);
Column trunc(const Column& date, const std::string& format);

Column make_date(const Column& year, const Column& month, const Column& day);
Column make_timestamp(const Column& years, const Column& months, const Column& days,
                      const Column& hours, const Column& mins, const Column& secs);
Column make_timestamp(const Column& years, const Column& months, const Column& days,
                      const Column& hours, const Column& mins, const Column& secs,
                      const Column& timezone);
Column from_utc_timestamp(const Column& timestamp, const std::string& tz);
Column from_utc_timestamp(const Column& timestamp, const Column& tz);
/// convert_timezone(sourceTz, targetTz, sourceTs): the TIMESTAMP_NTZ wall-clock time
/// `sourceTs` in sourceTz, shown in targetTz; the two-argument form's source is the
/// session time zone.
Column convert_timezone(const Column& source_tz, const Column& target_tz,
                        const Column& source_ts);
Column convert_timezone(const Column& target_tz, const Column& source_ts);
Column to_utc_timestamp(const Column& timestamp, const std::string& tz);
Column to_utc_timestamp(const Column& timestamp, const Column& tz);

/// Event-time windows: a struct<start, end> column named `window` / `session_window`,
/// valid in select lists and groupBy (durations as interval strings: "10 minutes").
Column window(const Column& time_column, const std::string& window_duration);
Column window(const Column& time_column, const std::string& window_duration,
              const std::string& slide_duration);
Column window(const Column& time_column, const std::string& window_duration,
              const std::string& slide_duration, const std::string& start_time);
Column session_window(const Column& time_column, const std::string& gap_duration);
Column session_window(const Column& time_column, const Column& gap_duration);
Column window_time(const Column& window_column);

}  // namespace spate::api::functions
