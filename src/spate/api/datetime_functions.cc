// Copyright spate authors.
#include "spate/api/datetime_functions.h"

#include <utility>
#include <vector>

#include "spate/compute/datetime_functions.h"

namespace spate::api::functions {

namespace {
Column Call(const std::string& name, const std::vector<Column>& args) {
  std::vector<ExprPtr> exprs;
  exprs.reserve(args.size());
  for (const auto& a : args) exprs.push_back(a.expr());
  return Column(Expr::Call(name, std::move(exprs)));
}
Column Str(const std::string& s) { return lit(std::string_view(s)); }
}  // namespace

Column current_timestamp() { return Call("current_timestamp", {}); }
Column current_date() { return Call("current_date", {}); }
Column now() { return Call("now", {}); }
Column localtimestamp() { return Call("localtimestamp", {}); }
Column current_timezone() { return Call("current_timezone", {}); }

Column to_timestamp(const Column& c) { return Call("to_timestamp", {c}); }
Column to_timestamp(const Column& c, const std::string& format) {
  return Call("to_timestamp", {c, Str(format)});
}
Column try_to_timestamp(const Column& c) { return Call("try_to_timestamp", {c}); }
Column try_to_timestamp(const Column& c, const Column& format) {
  return Call("try_to_timestamp", {c, format});
}
Column to_timestamp_ntz(const Column& c) { return Call("to_timestamp_ntz", {c}); }
Column to_timestamp_ntz(const Column& c, const Column& format) {
  return Call("to_timestamp_ntz", {c, format});
}
Column to_date(const Column& c) { return Call("to_date", {c}); }
Column to_date(const Column& c, const std::string& format) {
  return Call("to_date", {c, Str(format)});
}
Column unix_timestamp() { return Call("unix_timestamp", {}); }
Column unix_timestamp(const Column& c, const std::string& format) {
  return Call("unix_timestamp", {c, Str(format)});
}
Column date_format(const Column& c, const std::string& format) {
  return Call("date_format", {c, Str(format)});
}
Column from_unixtime(const Column& c, const std::string& format) {
  return Call("from_unixtime", {c, Str(format)});
}

Column timestamp_seconds(const Column& c) { return Call("timestamp_seconds", {c}); }
Column timestamp_millis(const Column& c) { return Call("timestamp_millis", {c}); }
Column timestamp_micros(const Column& c) { return Call("timestamp_micros", {c}); }
Column unix_seconds(const Column& c) { return Call("unix_seconds", {c}); }
Column unix_millis(const Column& c) { return Call("unix_millis", {c}); }
Column unix_micros(const Column& c) { return Call("unix_micros", {c}); }
Column unix_date(const Column& c) { return Call("unix_date", {c}); }
Column date_from_unix_date(const Column& c) { return Call("date_from_unix_date", {c}); }

Column year(const Column& c) { return Call("year", {c}); }
Column quarter(const Column& c) { return Call("quarter", {c}); }
Column month(const Column& c) { return Call("month", {c}); }
Column dayofmonth(const Column& c) { return Call("dayofmonth", {c}); }
Column day(const Column& c) { return Call("day", {c}); }
Column dayofweek(const Column& c) { return Call("dayofweek", {c}); }
Column weekday(const Column& c) { return Call("weekday", {c}); }
Column dayofyear(const Column& c) { return Call("dayofyear", {c}); }
Column weekofyear(const Column& c) { return Call("weekofyear", {c}); }
Column hour(const Column& c) { return Call("hour", {c}); }
Column minute(const Column& c) { return Call("minute", {c}); }
Column second(const Column& c) { return Call("second", {c}); }
Column extract(const Column& field, const Column& source) {
  return Call("extract", {field, source});
}
Column date_part(const Column& field, const Column& source) {
  return Call("date_part", {field, source});
}

Column date_add(const Column& start, int days) {
  return Call("date_add", {start, lit(days)});
}
Column date_add(const Column& start, const Column& days) {
  return Call("date_add", {start, days});
}
Column date_sub(const Column& start, int days) {
  return Call("date_sub", {start, lit(days)});
}
Column date_sub(const Column& start, const Column& days) {
  return Call("date_sub", {start, days});
}
Column dateadd(const Column& start, const Column& days) {
  return Call("dateadd", {start, days});
}
Column datediff(const Column& end, const Column& start) {
  return Call("datediff", {end, start});
}
Column timestamp_add(const std::string& unit, const Column& quantity, const Column& ts) {
  return Call(kTimestampAddCall, {Str(unit), quantity, ts});
}
Column timestamp_diff(const std::string& unit, const Column& start, const Column& end) {
  return Call(kTimestampDiffCall, {Str(unit), start, end});
}
Column add_months(const Column& start, int months) {
  return Call("add_months", {start, lit(months)});
}
Column add_months(const Column& start, const Column& months) {
  return Call("add_months", {start, months});
}
Column months_between(const Column& date1, const Column& date2, bool round_off) {
  return Call("months_between", {date1, date2, lit(round_off)});
}
Column last_day(const Column& c) { return Call("last_day", {c}); }
Column next_day(const Column& c, const std::string& day_of_week) {
  return Call("next_day", {c, Str(day_of_week)});
}
Column date_trunc(const std::string& format, const Column& timestamp) {
  return Call("date_trunc", {Str(format), timestamp});
}
Column trunc(const Column& date, const std::string& format) {
  return Call("trunc", {date, Str(format)});
}

Column make_date(const Column& year, const Column& month, const Column& day) {
  return Call("make_date", {year, month, day});
}
Column make_timestamp(const Column& years, const Column& months, const Column& days,
                      const Column& hours, const Column& mins, const Column& secs) {
  return Call("make_timestamp", {years, months, days, hours, mins, secs});
}
Column make_timestamp(const Column& years, const Column& months, const Column& days,
                      const Column& hours, const Column& mins, const Column& secs,
                      const Column& timezone) {
  return Call("make_timestamp", {years, months, days, hours, mins, secs, timezone});
}
Column from_utc_timestamp(const Column& timestamp, const std::string& tz) {
  return Call("from_utc_timestamp", {timestamp, Str(tz)});
}
Column from_utc_timestamp(const Column& timestamp, const Column& tz) {
  return Call("from_utc_timestamp", {timestamp, tz});
}
Column convert_timezone(const Column& source_tz, const Column& target_tz,
                        const Column& source_ts) {
  return Call("convert_timezone", {source_tz, target_tz, source_ts});
}
Column convert_timezone(const Column& target_tz, const Column& source_ts) {
  return Call("convert_timezone", {target_tz, source_ts});
}
Column to_utc_timestamp(const Column& timestamp, const std::string& tz) {
  return Call("to_utc_timestamp", {timestamp, Str(tz)});
}
Column to_utc_timestamp(const Column& timestamp, const Column& tz) {
  return Call("to_utc_timestamp", {timestamp, tz});
}

Column window(const Column& time_column, const std::string& window_duration) {
  return Call("window", {time_column, Str(window_duration)});
}
Column window(const Column& time_column, const std::string& window_duration,
              const std::string& slide_duration) {
  return Call("window", {time_column, Str(window_duration), Str(slide_duration)});
}
Column window(const Column& time_column, const std::string& window_duration,
              const std::string& slide_duration, const std::string& start_time) {
  return Call("window",
              {time_column, Str(window_duration), Str(slide_duration), Str(start_time)});
}
Column session_window(const Column& time_column, const std::string& gap_duration) {
  return Call("session_window", {time_column, Str(gap_duration)});
}
Column session_window(const Column& time_column, const Column& gap_duration) {
  return Call("session_window", {time_column, gap_duration});
}
Column window_time(const Column& window_column) {
  return Call("window_time", {window_column});
}

}  // namespace spate::api::functions
