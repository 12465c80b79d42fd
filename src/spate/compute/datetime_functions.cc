// Copyright spate authors.
// Date/time functions with Spark 4 semantics (catalyst datetimeExpressions.scala,
// DateTimeUtils): current_*, to_timestamp/to_date/unix_timestamp with patterns,
// date_format/from_unixtime, field extraction, date arithmetic, truncation, make_*,
// time-zone conversion, extract/date_part, monthname / dayname / date_diff, and interval
// arithmetic for the operators.
// Timestamps are µs since the epoch (UTC); their calendar fields are taken in the session
// time zone (EvalContext::time_zone). TIMESTAMP_NTZ values are local micros.

#include "spate/compute/datetime_functions.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/datetime_format.h"
#include "spate/compute/datetime_text.h"
#include "spate/compute/decimal_math.h"
#include "spate/compute/function_args.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/kernel_columns.h"
#include "spate/types/calendar.h"
#include "spate/types/format.h"
#include "spate/types/timezone.h"

namespace spate {

namespace {

using fn::AnyNullable;
using kernel::Out;

// ---------------------------------------------------------------------------------------
// Calendar helpers
// ---------------------------------------------------------------------------------------

struct Civil {
  int64_t y;
  unsigned m, d;
};

inline Civil CivilOf(int64_t days) {
  Civil c;
  CivilFromDays(days, &c.y, &c.m, &c.d);
  return c;
}

// ISO day of week, Monday = 1.
inline int IsoDow(int64_t days) { return static_cast<int>(FloorMod(days + 3, 7)) + 1; }

}  // namespace

int64_t AddMonthsToDays(int64_t days, int64_t months) {
  Civil c = CivilOf(days);
  int64_t total = c.y * 12 + (c.m - 1) + months;
  int64_t y = FloorDiv(total, 12);
  auto m = static_cast<unsigned>(FloorMod(total, 12) + 1);
  unsigned d = std::min<unsigned>(c.d, static_cast<unsigned>(DaysInMonth(y, m)));
  return DaysFromCivil(y, m, d);
}

namespace {

inline int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline int64_t QueryStart(const EvalContext& ctx) {
  return ctx.query_start_micros != 0 ? ctx.query_start_micros : NowMicros();
}

inline int64_t ToLocal(const TimeZone* tz, int64_t utc) {
  return tz ? utc + tz->OffsetSeconds(utc) * kMicrosPerSecond : utc;
}
inline int64_t FromLocal(const TimeZone* tz, int64_t local) {
  return tz ? tz->LocalToUtcMicros(local) : local;
}

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

Status WrongArgs(const std::string& name, const std::string& expected, size_t actual) {
  return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                       {{"functionName", "`" + name + "`"},
                        {"expectedNum", expected},
                        {"actualNum", std::to_string(actual)}});
}

const char* Ordinal(size_t i) {
  static const char* kNames[] = {"first", "second", "third",  "fourth",
                                 "fifth", "sixth",  "seventh"};
  return i < 7 ? kNames[i] : "eighth";
}

Status UnexpectedType(const std::string& name, const std::vector<BoundExprPtr>& args,
                      size_t i, const std::string& required) {
  std::vector<std::string> texts;
  for (const auto& a : args) texts.push_back(a->ToString());
  return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                       {{"sqlExpr", Quote(CallText(name, texts))},
                        {"paramIndex", Ordinal(i)},
                        {"requiredType", required},
                        {"inputSql", Quote(args[i]->ToString())},
                        {"inputType", QuoteType(*args[i]->type())}});
}

bool IsStringLike(TypeId t) { return t == TypeId::kString || t == TypeId::kNull; }
bool IsTs(TypeId t) { return t == TypeId::kTimestamp || t == TypeId::kTimestampNtz; }

// Casts argument i to DATE (from date, timestamp, timestamp_ntz, string, null).
Status ToDateArg(const std::string& name, std::vector<BoundExprPtr>* args, size_t i) {
  TypeId t = (*args)[i]->type()->id();
  if (t == TypeId::kDate) return Status::OK();
  if (!(IsTs(t) || IsStringLike(t))) return UnexpectedType(name, *args, i, "\"DATE\"");
  SPATE_ASSIGN_OR_RETURN((*args)[i], ImplicitCast((*args)[i], DataType::Date()));
  return Status::OK();
}

// Casts argument i to TIMESTAMP unless it is TIMESTAMP or TIMESTAMP_NTZ.
Status ToTimestampArg(const std::string& name, std::vector<BoundExprPtr>* args,
                      size_t i) {
  TypeId t = (*args)[i]->type()->id();
  if (IsTs(t)) return Status::OK();
  if (!(t == TypeId::kDate || IsStringLike(t)))
    return UnexpectedType(name, *args, i, "\"TIMESTAMP\"");
  SPATE_ASSIGN_OR_RETURN((*args)[i], ImplicitCast((*args)[i], DataType::Timestamp()));
  return Status::OK();
}

Status ToTypeArg(const std::string& name, std::vector<BoundExprPtr>* args, size_t i,
                 const DataTypePtr& to, bool (*accept)(const DataType&)) {
  const DataType& t = *(*args)[i]->type();
  if (t.SameType(*to)) return Status::OK();
  if (!(accept(t) || t.id() == TypeId::kNull))
    return UnexpectedType(name, *args, i, QuoteType(*to));
  SPATE_ASSIGN_OR_RETURN((*args)[i], ImplicitCast((*args)[i], to));
  return Status::OK();
}

bool AcceptIntegral(const DataType& t) {
  return t.IsIntegral() || t.id() == TypeId::kString;
}
bool AcceptNumeric(const DataType& t) {
  return t.IsNumeric() || t.id() == TypeId::kString;
}
bool AcceptString(const DataType& t) { return t.id() == TypeId::kString; }
bool AcceptBoolean(const DataType& t) { return t.id() == TypeId::kBoolean; }

// ---------------------------------------------------------------------------------------
// Kernel helpers
// ---------------------------------------------------------------------------------------

// out[i] = fn(x[i]) for every row; nulls carried over.
template <typename In, typename OutT, typename Fn>
ColumnPtr Map1(const ColumnPtr& a, const DataTypePtr& type, int64_t n, Fn&& fn) {
  Out<OutT> out(n);
  const In* x = a->raw_values<In>();
  for (int64_t i = 0; i < n; ++i) out.data[i] = fn(x[i]);
  return kernel::MakeColumn(type, n, a->null_count(), a->validity(), out.buf);
}

template <typename A, typename B, typename OutT, typename Fn>
ColumnPtr Map2(const ColumnPtr& a, const ColumnPtr& b, const DataTypePtr& type, int64_t n,
               Fn&& fn) {
  int64_t nulls = 0;
  BufferPtr validity = kernel::AndValidity({a.get(), b.get()}, n, &nulls);
  Out<OutT> out(n);
  const A* x = a->raw_values<A>();
  const B* y = b->raw_values<B>();
  for (int64_t i = 0; i < n; ++i) out.data[i] = fn(x[i], y[i]);
  return kernel::MakeColumn(type, n, nulls, validity, out.buf);
}

// Row-wise builder for results that may become NULL per row: fn(i, &out) returns false
// for NULL; *err set aborts.
template <typename OutT, typename Fn>
Result<ColumnPtr> BuildFixed(const DataTypePtr& type, const std::vector<ColumnPtr>& args,
                             int64_t n, Fn&& fn) {
  std::vector<const Column*> cols;
  for (const auto& c : args) cols.push_back(c.get());
  int64_t nulls = 0;
  BufferPtr in_valid = kernel::AndValidity(cols, n, &nulls);
  FixedWidthBuilder<OutT> b(type, n);
  Status err;
  for (int64_t i = 0; i < n; ++i) {
    if (!kernel::Valid(in_valid, i)) {
      b.AppendNull();
      continue;
    }
    OutT v{};
    if (fn(i, &v, &err)) {
      b.Append(v);
    } else {
      if (!err.ok()) return err;
      b.AppendNull();
    }
  }
  return b.Finish();
}

template <typename Fn>
Result<ColumnPtr> BuildString(const std::vector<ColumnPtr>& args, int64_t n, Fn&& fn) {
  std::vector<const Column*> cols;
  for (const auto& c : args) cols.push_back(c.get());
  int64_t nulls = 0;
  BufferPtr in_valid = kernel::AndValidity(cols, n, &nulls);
  StringBuilder b(DataType::String(), n);
  std::string buf;
  Status err;
  for (int64_t i = 0; i < n; ++i) {
    if (!kernel::Valid(in_valid, i)) {
      b.AppendNull();
      continue;
    }
    buf.clear();
    if (fn(i, &buf, &err)) {
      b.Append(buf);
    } else {
      if (!err.ok()) return err;
      b.AppendNull();
    }
  }
  return b.Finish();
}

// A pattern argument: compiled once when constant, else per distinct row value.
class PatternCache {
 public:
  explicit PatternCache(std::shared_ptr<const DateTimePattern> fixed)
      : fixed_(std::move(fixed)) {}
  Result<const DateTimePattern*> Get(std::string_view text) {
    if (fixed_) return fixed_.get();
    if (!last_ || last_->pattern() != text) {
      SPATE_ASSIGN_OR_RETURN(auto p, DateTimePattern::Compile(text));
      last_ = std::make_shared<DateTimePattern>(std::move(p));
    }
    return last_.get();
  }

 private:
  std::shared_ptr<const DateTimePattern> fixed_;
  std::shared_ptr<DateTimePattern> last_;
};

// Compiles a constant pattern argument at analysis time (errors surface early, as
// Spark's). Returns nullptr for non-literal or NULL patterns.
Result<std::shared_ptr<const DateTimePattern>> ConstantPattern(const BoundExprPtr& e) {
  const Value* v = e->literal_value();
  if (v == nullptr || v->is_null() || v->type()->id() != TypeId::kString) {
    return std::shared_ptr<const DateTimePattern>();
  }
  SPATE_ASSIGN_OR_RETURN(auto p, DateTimePattern::Compile(v->str()));
  return std::make_shared<const DateTimePattern>(std::move(p));
}

Status ParseError(const std::string& message, const char* func) {
  return Status::Error("CANNOT_PARSE_TIMESTAMP",
                       {{"message", message}, {"func", std::string("`") + func + "`"}});
}

Status FieldOutOfBounds(const std::string& message) {
  return Status::Error(
      "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION",
      {{"rangeMessage", message}, {"ansiConfig", "\"spark.sql.ansi.enabled\""}});
}

// ---------------------------------------------------------------------------------------
// current_* functions
// ---------------------------------------------------------------------------------------

void RegisterCurrent(FunctionRegistry& r) {
  auto no_args = [](const std::string& name, const DataTypePtr& type,
                    const ScalarKernel& k) {
    return [name, type, k](const std::vector<BoundExprPtr>& args,
                           const ResolveContext&) -> Result<BoundExprPtr> {
      if (!args.empty()) return WrongArgs(name, "0", args.size());
      return MakeScalarCall(name, type, false, {}, k);
    };
  };
  ScalarKernel now = [](const std::vector<ColumnPtr>&, int64_t n,
                        const EvalContext& ctx) -> Result<ColumnPtr> {
    return MakeConstantColumn(Value::Timestamp(QueryStart(ctx)), n);
  };
  r.RegisterScalar("current_timestamp",
                   no_args("current_timestamp", DataType::Timestamp(), now));
  r.RegisterScalar("now", no_args("now", DataType::Timestamp(), now));
  for (const char* name : {"current_date", "curdate"}) {
    r.RegisterScalar(
        name,
        no_args(name, DataType::Date(),
                [](const std::vector<ColumnPtr>&, int64_t n,
                   const EvalContext& ctx) -> Result<ColumnPtr> {
                  int64_t local = ToLocal(ctx.time_zone, QueryStart(ctx));
                  return MakeConstantColumn(
                      Value::Date(static_cast<int32_t>(FloorDiv(local, kMicrosPerDay))),
                      n);
                }));
  }
  r.RegisterScalar(
      "localtimestamp",
      no_args("localtimestamp", DataType::TimestampNtz(),
              [](const std::vector<ColumnPtr>&, int64_t n,
                 const EvalContext& ctx) -> Result<ColumnPtr> {
                return MakeConstantColumn(
                    Value::TimestampNtz(ToLocal(ctx.time_zone, QueryStart(ctx))), n);
              }));
  r.RegisterScalar("current_timezone",
                   no_args("current_timezone", DataType::String(),
                           [](const std::vector<ColumnPtr>&, int64_t n,
                              const EvalContext& ctx) -> Result<ColumnPtr> {
                             return MakeConstantColumn(Value::String(ctx.time_zone_id),
                                                       n);
                           }));
}

// ---------------------------------------------------------------------------------------
// Parsing: to_timestamp, to_date, to_timestamp_ntz, unix_timestamp
// ---------------------------------------------------------------------------------------

enum class ParseTarget : uint8_t { kTimestamp, kTimestampNtz, kDate, kUnixSeconds };

DataTypePtr TargetType(ParseTarget t) {
  switch (t) {
    case ParseTarget::kTimestamp:
      return DataType::Timestamp();
    case ParseTarget::kTimestampNtz:
      return DataType::TimestampNtz();
    case ParseTarget::kDate:
      return DataType::Date();
    case ParseTarget::kUnixSeconds:
      return DataType::Long();
  }
  return DataType::Timestamp();
}

// Converts a parsed instant (or local micros for NTZ) to the target's value.
inline int64_t FromInstant(ParseTarget t, int64_t micros, const TimeZone* tz) {
  switch (t) {
    case ParseTarget::kTimestamp:
    case ParseTarget::kTimestampNtz:
      return micros;
    case ParseTarget::kDate:
      return FloorDiv(ToLocal(tz, micros), kMicrosPerDay);
    case ParseTarget::kUnixSeconds:
      return FloorDiv(micros, kMicrosPerSecond);
  }
  return micros;
}

// f(string, pattern) for the pattern-based parsers. `try_mode`: never raise parse errors.
// Nullable as Spark's ToTimestamp: NULL on a parse failure unless ANSI raises instead.
Result<BoundExprPtr> MakeParseCall(const std::string& name, ParseTarget target,
                                   BoundExprPtr text, BoundExprPtr fmt, bool try_mode,
                                   bool ansi, std::vector<BoundExprPtr> shown) {
  const bool nullable = try_mode || !ansi || text->nullable() || fmt->nullable();
  SPATE_ASSIGN_OR_RETURN(auto fixed, ConstantPattern(fmt));
  DataTypePtr type = TargetType(target);
  const char* func = "try_to_timestamp";
  return MakeScalarCall(
      name, type, nullable, {std::move(text), std::move(fmt)},
      [target, type, fixed, try_mode, func](const std::vector<ColumnPtr>& args, int64_t n,
                                            const EvalContext& ctx) -> Result<ColumnPtr> {
        PatternCache cache(fixed);
        const Column& s = *args[0];
        const Column& f = *args[1];
        bool local = target == ParseTarget::kTimestampNtz;
        std::string err_msg;
        auto row = [&](int64_t i, int64_t* out, Status* err) -> bool {
          auto pat = cache.Get(f.GetView(i));
          if (!pat.ok()) {
            *err = pat.status();
            return false;
          }
          int64_t micros;
          if (!(*pat)->Parse(s.GetView(i), ctx.time_zone, local, &micros, &err_msg)) {
            if (ctx.ansi && !try_mode) *err = ParseError(err_msg, func);
            return false;
          }
          *out = FromInstant(target, micros, ctx.time_zone);
          return true;
        };
        if (target == ParseTarget::kDate) {
          return BuildFixed<int32_t>(type, args, n,
                                     [&](int64_t i, int32_t* out, Status* err) {
                                       int64_t v;
                                       if (!row(i, &v, err)) return false;
                                       *out = static_cast<int32_t>(v);
                                       return true;
                                     });
        }
        return BuildFixed<int64_t>(type, args, n, row);
      },
      [name, shown = std::move(shown)](const std::vector<std::string>& s) {
        return CallText(name, s);
      });
}

// Converts a date/timestamp input (the format is ignored) to the target.
Result<BoundExprPtr> ConvertTemporal(const std::string& name, ParseTarget target,
                                     const BoundExprPtr& a) {
  DataTypePtr type = TargetType(target);
  if (target != ParseTarget::kUnixSeconds) {
    return MakeScalarCall(name, type, a->nullable(), {a},
                          [type](const std::vector<ColumnPtr>& args, int64_t,
                                 const EvalContext& ctx) -> Result<ColumnPtr> {
                            return CastColumn(
                                args[0], type,
                                ctx.ansi ? CastMode::kAnsi : CastMode::kLegacy, ctx);
                          });
  }
  TypeId t = a->type()->id();
  return MakeScalarCall(
      name, type, a->nullable(), {a},
      [t](const std::vector<ColumnPtr>& args, int64_t n,
          const EvalContext& ctx) -> Result<ColumnPtr> {
        if (t == TypeId::kDate) {
          return Map1<int32_t, int64_t>(args[0], DataType::Long(), n, [&](int32_t d) {
            return FloorDiv(FromLocal(ctx.time_zone, int64_t{d} * kMicrosPerDay),
                            kMicrosPerSecond);
          });
        }
        return Map1<int64_t, int64_t>(args[0], DataType::Long(), n, [](int64_t v) {
          return FloorDiv(v, kMicrosPerSecond);
        });
      });
}

Result<BoundExprPtr> ResolveParse(const std::string& name, ParseTarget target,
                                  bool try_mode, bool ansi,
                                  std::vector<BoundExprPtr> args,
                                  const char* default_fmt) {
  size_t min_args = default_fmt != nullptr && target == ParseTarget::kUnixSeconds ? 0 : 1;
  if (args.size() < min_args || args.size() > 2) {
    return WrongArgs(name, min_args == 0 ? "[0, 1, 2]" : "[1, 2]", args.size());
  }
  if (args.empty()) {  // unix_timestamp()
    return MakeScalarCall(name, DataType::Long(), false, {},
                          [](const std::vector<ColumnPtr>&, int64_t n,
                             const EvalContext& ctx) -> Result<ColumnPtr> {
                            return MakeConstantColumn(
                                Value::Long(FloorDiv(QueryStart(ctx), kMicrosPerSecond)),
                                n);
                          });
  }
  std::vector<BoundExprPtr> shown = args;
  TypeId t = args[0]->type()->id();
  if (args.size() == 2) {
    SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 1, DataType::String(), AcceptString));
  }
  if (t == TypeId::kDate || IsTs(t)) {
    return ConvertTemporal(name, target, args[0]);
  }
  if (!IsStringLike(t)) {
    return UnexpectedType(
        name, args, 0, "(\"STRING\" or \"DATE\" or \"TIMESTAMP\" or \"TIMESTAMP_NTZ\")");
  }
  SPATE_ASSIGN_OR_RETURN(auto text, ImplicitCast(args[0], DataType::String()));
  if (args.size() == 1 && default_fmt == nullptr) {
    // No pattern: Spark's CAST(x AS type), which reads the special values ('today', ...)
    // of a constant string.
    DataTypePtr type = TargetType(target);
    bool is_try = try_mode;
    bool constant = text->IsConstant();
    return MakeScalarCall(
        name, type, true,
        {text},  // Spark: a string cast to a date or timestamp is nullable
        [type, is_try, constant](const std::vector<ColumnPtr>& a, int64_t,
                                 const EvalContext& ctx) -> Result<ColumnPtr> {
          if (constant) {
            if (ColumnPtr v = SpecialDatetimeColumn(*a[0], type->id(), ctx)) return v;
          }
          return CastColumn(a[0], type,
                            is_try     ? CastMode::kTry
                            : ctx.ansi ? CastMode::kAnsi
                                       : CastMode::kLegacy,
                            ctx);
        });
  }
  BoundExprPtr fmt = args.size() == 2 ? args[1] : MakeLiteral(Value::String(default_fmt));
  return MakeParseCall(name, target, text, fmt, try_mode, ansi, shown);
}

// ---------------------------------------------------------------------------------------
// Formatting: date_format, from_unixtime
// ---------------------------------------------------------------------------------------

Result<BoundExprPtr> ResolveDateFormat(std::vector<BoundExprPtr> args) {
  const std::string name = "date_format";
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  SPATE_RETURN_IF_ERROR(ToTimestampArg(name, &args, 0));
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 1, DataType::String(), AcceptString));
  SPATE_ASSIGN_OR_RETURN(auto fixed, ConstantPattern(args[1]));
  bool ntz = args[0]->type()->id() == TypeId::kTimestampNtz;
  return MakeScalarCall(name, DataType::String(), AnyNullable(args), args,
                        [fixed, ntz](const std::vector<ColumnPtr>& a, int64_t n,
                                     const EvalContext& ctx) -> Result<ColumnPtr> {
                          PatternCache cache(fixed);
                          const int64_t* ts = a[0]->raw_values<int64_t>();
                          const Column& f = *a[1];
                          const TimeZone* tz = ntz ? nullptr : ctx.time_zone;
                          return BuildString(
                              a, n, [&](int64_t i, std::string* out, Status* err) {
                                auto pat = cache.Get(f.GetView(i));
                                if (!pat.ok()) {
                                  *err = pat.status();
                                  return false;
                                }
                                (*pat)->Format(ts[i], tz, out);
                                return true;
                              });
                        });
}

Result<BoundExprPtr> ResolveFromUnixtime(std::vector<BoundExprPtr> args) {
  const std::string name = "from_unixtime";
  if (args.empty() || args.size() > 2) return WrongArgs(name, "[1, 2]", args.size());
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 0, DataType::Long(), AcceptIntegral));
  if (args.size() == 1) args.push_back(MakeLiteral(Value::String("yyyy-MM-dd HH:mm:ss")));
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 1, DataType::String(), AcceptString));
  SPATE_ASSIGN_OR_RETURN(auto fixed, ConstantPattern(args[1]));
  return MakeScalarCall(
      name, DataType::String(), true, args,
      [fixed](const std::vector<ColumnPtr>& a, int64_t n,
              const EvalContext& ctx) -> Result<ColumnPtr> {
        PatternCache cache(fixed);
        const int64_t* secs = a[0]->raw_values<int64_t>();
        const Column& f = *a[1];
        return BuildString(a, n, [&](int64_t i, std::string* out, Status* err) {
          auto pat = cache.Get(f.GetView(i));
          if (!pat.ok()) {
            *err = pat.status();
            return false;
          }
          int64_t micros;
          if (__builtin_mul_overflow(secs[i], kMicrosPerSecond, &micros)) return false;
          (*pat)->Format(micros, ctx.time_zone, out);
          return true;
        });
      });
}

// ---------------------------------------------------------------------------------------
// Epoch conversions
// ---------------------------------------------------------------------------------------

}  // namespace

Status LongOverflow() {
  return Status::Error("ARITHMETIC_OVERFLOW", {{"message", "long overflow"},
                                               {"alternative", ""},
                                               {"config", "\"spark.sql.ansi.enabled\""}});
}

namespace {

// timestamp_seconds / timestamp_millis / timestamp_micros.
Result<BoundExprPtr> ResolveTimestampFrom(const std::string& name, int64_t unit,
                                          std::vector<BoundExprPtr> args) {
  if (args.size() != 1) return WrongArgs(name, "1", args.size());
  const DataType& t = *args[0]->type();
  bool fractional =
      unit == kMicrosPerSecond && (t.IsFloating() || t.id() == TypeId::kDecimal);
  if (!fractional) {
    if (!(t.IsIntegral() || t.id() == TypeId::kNull)) {
      return UnexpectedType(name, args, 0,
                            unit == kMicrosPerSecond ? "\"NUMERIC\"" : "\"INTEGRAL\"");
    }
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Long()));
    return MakeScalarCall(
        name, DataType::Timestamp(), AnyNullable(args), args,
        [unit](const std::vector<ColumnPtr>& a, int64_t n,
               const EvalContext&) -> Result<ColumnPtr> {
          const int64_t* x = a[0]->raw_values<int64_t>();
          Out<int64_t> out(n);
          for (int64_t i = 0; i < n; ++i) {
            if (__builtin_mul_overflow(x[i], unit, &out.data[i]) && a[0]->IsValid(i))
              return LongOverflow();
          }
          return kernel::MakeColumn(DataType::Timestamp(), n, a[0]->null_count(),
                                    a[0]->validity(), out.buf);
        });
  }
  if (t.id() == TypeId::kDecimal) {
    int scale = t.scale();
    return MakeScalarCall(name, DataType::Timestamp(), AnyNullable(args), args,
                          [scale](const std::vector<ColumnPtr>& a, int64_t n,
                                  const EvalContext&) -> Result<ColumnPtr> {
                            const __int128* x = a[0]->raw_values<__int128>();
                            return BuildFixed<int64_t>(
                                DataType::Timestamp(), a, n,
                                [&](int64_t i, int64_t* out, Status* err) {
                                  // v * 10^6 / 10^scale, exact (longValueExact after
                                  // setScale(0, DOWN)).
                                  __int128 v = x[i];
                                  if (scale <= 6) {
                                    v *= kernel::Pow10(6 - scale);
                                  } else {
                                    v /= kernel::Pow10(scale - 6);
                                  }
                                  if (v > std::numeric_limits<int64_t>::max() ||
                                      v < std::numeric_limits<int64_t>::min()) {
                                    *err = LongOverflow();
                                    return false;
                                  }
                                  *out = static_cast<int64_t>(v);
                                  return true;
                                });
                          });
  }
  SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Double()));
  return MakeScalarCall(name, DataType::Timestamp(), true, args,
                        [](const std::vector<ColumnPtr>& a, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          const double* x = a[0]->raw_values<double>();
                          return BuildFixed<int64_t>(
                              DataType::Timestamp(), a, n,
                              [&](int64_t i, int64_t* out, Status*) {
                                if (std::isnan(x[i]) || std::isinf(x[i])) return false;
                                double v = x[i] * static_cast<double>(kMicrosPerSecond);
                                // Java's double-to-long conversion saturates.
                                if (v >= 9.2233720368547758e18) {
                                  *out = std::numeric_limits<int64_t>::max();
                                } else if (v <= -9.2233720368547758e18) {
                                  *out = std::numeric_limits<int64_t>::min();
                                } else {
                                  *out = static_cast<int64_t>(v);
                                }
                                return true;
                              });
                        });
}

// unix_seconds / unix_millis / unix_micros: floor division of µs.
Result<BoundExprPtr> ResolveUnixFrom(const std::string& name, int64_t unit,
                                     std::vector<BoundExprPtr> args) {
  if (args.size() != 1) return WrongArgs(name, "1", args.size());
  TypeId t = args[0]->type()->id();
  if (t != TypeId::kTimestamp) {
    if (!(IsStringLike(t) || t == TypeId::kDate))
      return UnexpectedType(name, args, 0, "\"TIMESTAMP\"");
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Timestamp()));
  }
  return MakeScalarCall(name, DataType::Long(), AnyNullable(args), args,
                        [unit](const std::vector<ColumnPtr>& a, int64_t n,
                               const EvalContext&) -> Result<ColumnPtr> {
                          return Map1<int64_t, int64_t>(
                              a[0], DataType::Long(), n,
                              [unit](int64_t v) { return FloorDiv(v, unit); });
                        });
}

// ---------------------------------------------------------------------------------------
// Field extraction
// ---------------------------------------------------------------------------------------

enum class DateField : uint8_t {
  kYear,
  kQuarter,
  kMonth,
  kDay,
  kDayOfWeek,
  kDayOfWeekIso,
  kWeekday,
  kDayOfYear,
  kWeekOfYear,
  kYearOfWeek
};

inline int32_t DateFieldOf(DateField f, int64_t days) {
  switch (f) {
    case DateField::kYear:
      return static_cast<int32_t>(CivilOf(days).y);
    case DateField::kQuarter:
      return static_cast<int32_t>((CivilOf(days).m - 1) / 3 + 1);
    case DateField::kMonth:
      return static_cast<int32_t>(CivilOf(days).m);
    case DateField::kDay:
      return static_cast<int32_t>(CivilOf(days).d);
    case DateField::kDayOfWeek:
      return IsoDow(days) % 7 + 1;  // Sunday = 1
    case DateField::kDayOfWeekIso:
      return IsoDow(days);
    case DateField::kWeekday:
      return IsoDow(days) - 1;  // Monday = 0
    case DateField::kDayOfYear: {
      Civil c = CivilOf(days);
      return static_cast<int32_t>(days - DaysFromCivil(c.y, 1, 1) + 1);
    }
    case DateField::kWeekOfYear:
    case DateField::kYearOfWeek: {
      int64_t thursday = days - IsoDow(days) + 4;
      int64_t wy = CivilOf(thursday).y;
      if (f == DateField::kYearOfWeek) return static_cast<int32_t>(wy);
      return static_cast<int32_t>((thursday - DaysFromCivil(wy, 1, 1)) / 7 + 1);
    }
  }
  return 0;
}

Result<BoundExprPtr> MakeDateField(
    const std::string& name, DateField f, BoundExprPtr date,
    std::function<std::string(const std::vector<std::string>&)> display = nullptr) {
  const bool nullable = date->nullable();
  return MakeScalarCall(
      name, DataType::Int(), nullable, {std::move(date)},
      [f](const std::vector<ColumnPtr>& a, int64_t n,
          const EvalContext&) -> Result<ColumnPtr> {
        return Map1<int32_t, int32_t>(a[0], DataType::Int(), n,
                                      [f](int32_t d) { return DateFieldOf(f, d); });
      },
      std::move(display));
}

Result<BoundExprPtr> ResolveDateField(const std::string& name, DateField f,
                                      std::vector<BoundExprPtr> args) {
  if (args.size() != 1) return WrongArgs(name, "1", args.size());
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 0));
  return MakeDateField(name, f, args[0]);
}

enum class TimeField : uint8_t { kHour, kMinute, kSecond };

Result<BoundExprPtr> MakeTimeField(
    const std::string& name, TimeField f, BoundExprPtr ts,
    std::function<std::string(const std::vector<std::string>&)> display = nullptr) {
  bool ntz = ts->type()->id() == TypeId::kTimestampNtz;
  const bool nullable = ts->nullable();
  return MakeScalarCall(
      name, DataType::Int(), nullable, {std::move(ts)},
      [f, ntz](const std::vector<ColumnPtr>& a, int64_t n,
               const EvalContext& ctx) -> Result<ColumnPtr> {
        const TimeZone* tz = ntz ? nullptr : ctx.time_zone;
        return Map1<int64_t, int32_t>(a[0], DataType::Int(), n, [f, tz](int64_t v) {
          int64_t secs =
              FloorDiv(FloorMod(ToLocal(tz, v), kMicrosPerDay), kMicrosPerSecond);
          switch (f) {
            case TimeField::kHour:
              return static_cast<int32_t>(secs / 3600);
            case TimeField::kMinute:
              return static_cast<int32_t>(secs / 60 % 60);
            case TimeField::kSecond:
              return static_cast<int32_t>(secs % 60);
          }
          return 0;
        });
      },
      std::move(display));
}

Result<BoundExprPtr> ResolveTimeField(const std::string& name, TimeField f,
                                      std::vector<BoundExprPtr> args) {
  if (args.size() != 1) return WrongArgs(name, "1", args.size());
  SPATE_RETURN_IF_ERROR(ToTimestampArg(name, &args, 0));
  return MakeTimeField(name, f, args[0]);
}

// SECOND with fraction as decimal(8,6) (extract(SECOND FROM ts)).
Result<BoundExprPtr> MakeSecondWithFraction(
    const std::string& name, BoundExprPtr ts,
    std::function<std::string(const std::vector<std::string>&)> display) {
  bool ntz = ts->type()->id() == TypeId::kTimestampNtz;
  DataTypePtr type = DataType::Decimal(8, 6);
  const bool nullable = ts->nullable();
  return MakeScalarCall(
      name, type, nullable, {std::move(ts)},
      [ntz, type](const std::vector<ColumnPtr>& a, int64_t n,
                  const EvalContext& ctx) -> Result<ColumnPtr> {
        const TimeZone* tz = ntz ? nullptr : ctx.time_zone;
        return Map1<int64_t, __int128>(a[0], type, n, [tz](int64_t v) {
          return static_cast<__int128>(FloorMod(ToLocal(tz, v), 60 * kMicrosPerSecond));
        });
      },
      std::move(display));
}

// ---------------------------------------------------------------------------------------
// extract / date_part
// ---------------------------------------------------------------------------------------

std::string UpperAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

Result<BoundExprPtr> ResolveExtract(const std::string& name,
                                    std::vector<BoundExprPtr> args) {
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  const Value* fv = args[0]->literal_value();
  if (fv == nullptr || fv->is_null() || fv->type()->id() != TypeId::kString) {
    return Status::Error("NON_FOLDABLE_ARGUMENT", {{"funcName", "`" + name + "`"},
                                                   {"paramName", "`field`"},
                                                   {"paramType", "\"STRING\""}});
  }
  std::string field_text = fv->str();
  std::string f = UpperAscii(field_text);
  BoundExprPtr src = args[1];
  std::string src_text = src->ToString();
  bool is_extract = name == "extract";
  auto display = [is_extract, field_text](const std::vector<std::string>& s) {
    if (is_extract) return "extract(" + field_text + " FROM " + s[0] + ")";
    return "date_part(" + field_text + ", " + s[0] + ")";
  };
  auto invalid = [&]() {
    return Status::Error("INVALID_EXTRACT_FIELD",
                         {{"field", "`" + field_text + "`"}, {"expr", Quote(src_text)}});
  };
  TypeId t = src->type()->id();
  // Intervals.
  if (t == TypeId::kYearMonthInterval || t == TypeId::kDayTimeInterval) {
    bool ym = t == TypeId::kYearMonthInterval;
    int which = -1;  // 0 year 1 month 2 day 3 hour 4 minute 5 second
    if (ym && (f == "YEAR" || f == "Y" || f == "YEARS" || f == "YR" || f == "YRS"))
      which = 0;
    if (ym && (f == "MONTH" || f == "MON" || f == "MONS" || f == "MONTHS")) which = 1;
    if (!ym && (f == "DAY" || f == "D" || f == "DAYS")) which = 2;
    if (!ym && (f == "HOUR" || f == "H" || f == "HOURS" || f == "HR" || f == "HRS"))
      which = 3;
    if (!ym && (f == "MINUTE" || f == "M" || f == "MIN" || f == "MINS" || f == "MINUTES"))
      which = 4;
    if (!ym && (f == "SECOND" || f == "S" || f == "SEC" || f == "SECONDS" || f == "SECS"))
      which = 5;
    if (which < 0) return invalid();
    DataTypePtr type = which == 0   ? DataType::Int()
                       : which == 1 ? DataType::Byte()
                       : which == 2 ? DataType::Int()
                       : which == 5 ? DataType::Decimal(8, 6)
                                    : DataType::Byte();
    return MakeScalarCall(
        name, type, src->nullable(), {src},
        [which, type](const std::vector<ColumnPtr>& a, int64_t n,
                      const EvalContext&) -> Result<ColumnPtr> {
          switch (which) {
            case 0:
              return Map1<int32_t, int32_t>(a[0], type, n,
                                            [](int32_t m) { return m / 12; });
            case 1:
              return Map1<int32_t, int8_t>(
                  a[0], type, n, [](int32_t m) { return static_cast<int8_t>(m % 12); });
            case 2:
              return Map1<int64_t, int32_t>(a[0], type, n, [](int64_t v) {
                return static_cast<int32_t>(v / kMicrosPerDay);
              });
            case 3:
              return Map1<int64_t, int8_t>(a[0], type, n, [](int64_t v) {
                return static_cast<int8_t>(v / (3600 * kMicrosPerSecond) % 24);
              });
            case 4:
              return Map1<int64_t, int8_t>(a[0], type, n, [](int64_t v) {
                return static_cast<int8_t>(v / (60 * kMicrosPerSecond) % 60);
              });
            default:
              return Map1<int64_t, __int128>(a[0], type, n, [](int64_t v) {
                return static_cast<__int128>(v % (60 * kMicrosPerSecond));
              });
          }
        },
        display);
  }
  if (!(t == TypeId::kDate || IsTs(t) || IsStringLike(t))) return invalid();
  std::optional<DateField> df;
  if (f == "YEAR" || f == "Y" || f == "YEARS" || f == "YR" || f == "YRS")
    df = DateField::kYear;
  else if (f == "YEAROFWEEK")
    df = DateField::kYearOfWeek;
  else if (f == "QUARTER" || f == "QTR")
    df = DateField::kQuarter;
  else if (f == "MONTH" || f == "MON" || f == "MONS" || f == "MONTHS")
    df = DateField::kMonth;
  else if (f == "WEEK" || f == "W" || f == "WEEKS")
    df = DateField::kWeekOfYear;
  else if (f == "DAY" || f == "D" || f == "DAYS")
    df = DateField::kDay;
  else if (f == "DAYOFWEEK" || f == "DOW")
    df = DateField::kDayOfWeek;
  else if (f == "DAYOFWEEK_ISO" || f == "DOW_ISO")
    df = DateField::kDayOfWeekIso;
  else if (f == "DOY")
    df = DateField::kDayOfYear;
  if (df) {
    std::vector<BoundExprPtr> one = {src};
    SPATE_RETURN_IF_ERROR(ToDateArg(name, &one, 0));
    return MakeDateField(name, *df, one[0], display);
  }
  std::vector<BoundExprPtr> one = {src};
  if (f == "HOUR" || f == "H" || f == "HOURS" || f == "HR" || f == "HRS") {
    SPATE_RETURN_IF_ERROR(ToTimestampArg(name, &one, 0));
    return MakeTimeField(name, TimeField::kHour, one[0], display);
  }
  if (f == "MINUTE" || f == "M" || f == "MIN" || f == "MINS" || f == "MINUTES") {
    SPATE_RETURN_IF_ERROR(ToTimestampArg(name, &one, 0));
    return MakeTimeField(name, TimeField::kMinute, one[0], display);
  }
  if (f == "SECOND" || f == "S" || f == "SEC" || f == "SECONDS" || f == "SECS") {
    SPATE_RETURN_IF_ERROR(ToTimestampArg(name, &one, 0));
    return MakeSecondWithFraction(name, one[0], display);
  }
  return invalid();
}

// ---------------------------------------------------------------------------------------
// Date arithmetic
// ---------------------------------------------------------------------------------------

Result<BoundExprPtr> ResolveDateAdd(const std::string& name, bool sub,
                                    std::vector<BoundExprPtr> args) {
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 0));
  const DataType& t = *args[1]->type();
  if (!(t.id() == TypeId::kInt || t.id() == TypeId::kShort || t.id() == TypeId::kByte ||
        t.id() == TypeId::kNull || t.id() == TypeId::kString)) {
    return UnexpectedType(name, args, 1, "(\"INT\" or \"SMALLINT\" or \"TINYINT\")");
  }
  SPATE_ASSIGN_OR_RETURN(args[1], ImplicitCast(args[1], DataType::Int()));
  return MakeScalarCall(
      name, DataType::Date(), AnyNullable(args), args,
      [sub](const std::vector<ColumnPtr>& a, int64_t n,
            const EvalContext&) -> Result<ColumnPtr> {
        return Map2<int32_t, int32_t, int32_t>(
            a[0], a[1], DataType::Date(), n, [sub](int32_t d, int32_t k) {
              return static_cast<int32_t>(
                  sub ? static_cast<uint32_t>(d) - static_cast<uint32_t>(k)
                      : static_cast<uint32_t>(d) + static_cast<uint32_t>(k));
            });
      });
}

Result<BoundExprPtr> ResolveDateDiff(const std::string& name,
                                     std::vector<BoundExprPtr> args) {
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 0));
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 1));
  return MakeScalarCall(name, DataType::Int(), AnyNullable(args), args,
                        [](const std::vector<ColumnPtr>& a, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          return Map2<int32_t, int32_t, int32_t>(
                              a[0], a[1], DataType::Int(), n,
                              [](int32_t e, int32_t s) { return e - s; });
                        });
}

Result<BoundExprPtr> ResolveAddMonths(std::vector<BoundExprPtr> args) {
  const std::string name = "add_months";
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 0));
  const DataType& t = *args[1]->type();
  if (!(t.id() == TypeId::kInt || t.id() == TypeId::kShort || t.id() == TypeId::kByte ||
        t.id() == TypeId::kNull || t.id() == TypeId::kString)) {
    return UnexpectedType(name, args, 1, "\"INT\"");
  }
  SPATE_ASSIGN_OR_RETURN(args[1], ImplicitCast(args[1], DataType::Int()));
  return MakeScalarCall(name, DataType::Date(), AnyNullable(args), args,
                        [](const std::vector<ColumnPtr>& a, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          return Map2<int32_t, int32_t, int32_t>(
                              a[0], a[1], DataType::Date(), n, [](int32_t d, int32_t m) {
                                return static_cast<int32_t>(AddMonthsToDays(d, m));
                              });
                        });
}

// DateTimeUtils.monthsBetween.
double MonthsBetween(int64_t t1, int64_t t2, bool round_off, const TimeZone* tz) {
  int64_t l1 = ToLocal(tz, t1), l2 = ToLocal(tz, t2);
  int64_t d1 = FloorDiv(l1, kMicrosPerDay), d2 = FloorDiv(l2, kMicrosPerDay);
  Civil c1 = CivilOf(d1), c2 = CivilOf(d2);
  int64_t month_diff = (c1.y * 12 + c1.m) - (c2.y * 12 + c2.m);
  if (c1.d == c2.d || (static_cast<int>(c1.d) == DaysInMonth(c1.y, c1.m) &&
                       static_cast<int>(c2.d) == DaysInMonth(c2.y, c2.m))) {
    return static_cast<double>(month_diff);
  }
  // Time of day measured from the zone's start of that day, in whole seconds as Spark
  // (and Hive) count it: fractions of a second do not move the result.
  constexpr int64_t kSecondsPerDay = kMicrosPerDay / 1'000'000;
  int64_t tod1 = (t1 - FromLocal(tz, d1 * kMicrosPerDay)) / 1'000'000;
  int64_t tod2 = (t2 - FromLocal(tz, d2 * kMicrosPerDay)) / 1'000'000;
  int64_t between =
      (static_cast<int64_t>(c1.d) - static_cast<int64_t>(c2.d)) * kSecondsPerDay + tod1 -
      tod2;
  double diff = static_cast<double>(month_diff) +
                static_cast<double>(between) / static_cast<double>(31 * kSecondsPerDay);
  if (round_off) return std::floor(diff * 1e8 + 0.5) / 1e8;
  return diff;
}

Result<BoundExprPtr> ResolveMonthsBetween(std::vector<BoundExprPtr> args) {
  const std::string name = "months_between";
  if (args.size() < 2 || args.size() > 3) return WrongArgs(name, "[2, 3]", args.size());
  SPATE_RETURN_IF_ERROR(ToTimestampArg(name, &args, 0));
  SPATE_RETURN_IF_ERROR(ToTimestampArg(name, &args, 1));
  for (size_t i = 0; i < 2; ++i) {
    if (args[i]->type()->id() == TypeId::kTimestampNtz) {
      SPATE_ASSIGN_OR_RETURN(args[i], ImplicitCast(args[i], DataType::Timestamp()));
    }
  }
  std::vector<BoundExprPtr> shown = args;
  if (args.size() == 3) {
    SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 2, DataType::Boolean(), AcceptBoolean));
  } else {
    args.push_back(MakeLiteral(Value::Boolean(true)));
  }
  size_t nshown = shown.size();
  return MakeScalarCall(
      name, DataType::Double(), AnyNullable(args), args,
      [](const std::vector<ColumnPtr>& a, int64_t n,
         const EvalContext& ctx) -> Result<ColumnPtr> {
        const int64_t* x = a[0]->raw_values<int64_t>();
        const int64_t* y = a[1]->raw_values<int64_t>();
        const Column& r = *a[2];
        return BuildFixed<double>(
            DataType::Double(), a, n, [&](int64_t i, double* out, Status*) {
              *out = MonthsBetween(x[i], y[i], bits::Get(r.values()->data(), i),
                                   ctx.time_zone);
              return true;
            });
      },
      [name, nshown](const std::vector<std::string>& s) {
        return CallText(name, std::vector<std::string>(
                                  s.begin(), s.begin() + static_cast<long>(nshown)));
      });
}

Result<BoundExprPtr> ResolveLastDay(std::vector<BoundExprPtr> args) {
  const std::string name = "last_day";
  if (args.size() != 1) return WrongArgs(name, "1", args.size());
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 0));
  return MakeScalarCall(
      name, DataType::Date(), AnyNullable(args), args,
      [](const std::vector<ColumnPtr>& a, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        return Map1<int32_t, int32_t>(a[0], DataType::Date(), n, [](int32_t d) {
          Civil c = CivilOf(d);
          return DaysFromCivil(c.y, c.m, static_cast<unsigned>(DaysInMonth(c.y, c.m)));
        });
      });
}

// SU/SUN/SUNDAY ... -> ISO day (Monday = 1); -1 if invalid.
int ParseDayOfWeek(std::string_view s) {
  std::string u = UpperAscii(s);
  static const char* kFull[7] = {"MONDAY", "TUESDAY",  "WEDNESDAY", "THURSDAY",
                                 "FRIDAY", "SATURDAY", "SUNDAY"};
  for (int k = 0; k < 7; ++k) {
    std::string full = kFull[k];
    if (u == full || u == full.substr(0, 2) || u == full.substr(0, 3)) return k + 1;
  }
  return -1;
}

Result<BoundExprPtr> ResolveNextDay(std::vector<BoundExprPtr> args) {
  const std::string name = "next_day";
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 0));
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 1, DataType::String(), AcceptString));
  return MakeScalarCall(
      name, DataType::Date(), true, args,
      [](const std::vector<ColumnPtr>& a, int64_t n,
         const EvalContext& ctx) -> Result<ColumnPtr> {
        const int32_t* d = a[0]->raw_values<int32_t>();
        const Column& s = *a[1];
        return BuildFixed<int32_t>(
            DataType::Date(), a, n, [&](int64_t i, int32_t* out, Status* err) {
              int target = ParseDayOfWeek(s.GetView(i));
              if (target < 0) {
                if (ctx.ansi)
                  *err = Status::Error("ILLEGAL_DAY_OF_WEEK",
                                       {{"string", std::string(s.GetView(i))}});
                return false;
              }
              int cur = IsoDow(d[i]);
              int delta = (target - cur + 7) % 7;
              *out = d[i] + (delta == 0 ? 7 : delta);
              return true;
            });
      });
}

// ---------------------------------------------------------------------------------------
// Truncation
// ---------------------------------------------------------------------------------------

enum class TruncLevel : int8_t {
  kInvalid = -1,
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kQuarter,
  kYear
};

TruncLevel ParseTruncLevel(std::string_view s, bool date_only) {
  std::string u = UpperAscii(s);
  if (u == "YEAR" || u == "YYYY" || u == "YY") return TruncLevel::kYear;
  if (u == "QUARTER") return TruncLevel::kQuarter;
  if (u == "MONTH" || u == "MM" || u == "MON") return TruncLevel::kMonth;
  if (u == "WEEK") return TruncLevel::kWeek;
  if (date_only) return TruncLevel::kInvalid;
  if (u == "DAY" || u == "DD") return TruncLevel::kDay;
  if (u == "HOUR") return TruncLevel::kHour;
  if (u == "MINUTE") return TruncLevel::kMinute;
  if (u == "SECOND") return TruncLevel::kSecond;
  if (u == "MILLISECOND") return TruncLevel::kMillisecond;
  if (u == "MICROSECOND") return TruncLevel::kMicrosecond;
  return TruncLevel::kInvalid;
}

int64_t TruncDays(int64_t days, TruncLevel level) {
  switch (level) {
    case TruncLevel::kWeek:
      return days - (IsoDow(days) - 1);
    case TruncLevel::kMonth: {
      Civil c = CivilOf(days);
      return DaysFromCivil(c.y, c.m, 1);
    }
    case TruncLevel::kQuarter: {
      Civil c = CivilOf(days);
      return DaysFromCivil(c.y, (c.m - 1) / 3 * 3 + 1, 1);
    }
    case TruncLevel::kYear:
      return DaysFromCivil(CivilOf(days).y, 1, 1);
    default:
      return days;
  }
}

int64_t TruncTimestamp(int64_t t, TruncLevel level, const TimeZone* tz) {
  switch (level) {
    case TruncLevel::kMicrosecond:
      return t;
    case TruncLevel::kMillisecond:
      return t - FloorMod(t, 1000);
    case TruncLevel::kSecond:
      return t - FloorMod(t, kMicrosPerSecond);
    case TruncLevel::kMinute:
      return t - FloorMod(ToLocal(tz, t), 60 * kMicrosPerSecond);
    case TruncLevel::kHour:
      return t - FloorMod(ToLocal(tz, t), 3600 * kMicrosPerSecond);
    default: {
      int64_t days = FloorDiv(ToLocal(tz, t), kMicrosPerDay);
      return FromLocal(tz, TruncDays(days, level) * kMicrosPerDay);
    }
  }
}

Result<BoundExprPtr> ResolveDateTrunc(std::vector<BoundExprPtr> args) {
  const std::string name = "date_trunc";
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 0, DataType::String(), AcceptString));
  SPATE_RETURN_IF_ERROR(ToTimestampArg(name, &args, 1));
  bool ntz = args[1]->type()->id() == TypeId::kTimestampNtz;
  DataTypePtr type = args[1]->type();
  return MakeScalarCall(name, type, true, args,
                        [ntz, type](const std::vector<ColumnPtr>& a, int64_t n,
                                    const EvalContext& ctx) -> Result<ColumnPtr> {
                          const Column& f = *a[0];
                          const int64_t* t = a[1]->raw_values<int64_t>();
                          const TimeZone* tz = ntz ? nullptr : ctx.time_zone;
                          return BuildFixed<int64_t>(
                              type, a, n, [&](int64_t i, int64_t* out, Status*) {
                                TruncLevel level = ParseTruncLevel(f.GetView(i), false);
                                if (level == TruncLevel::kInvalid) return false;
                                *out = TruncTimestamp(t[i], level, tz);
                                return true;
                              });
                        });
}

Result<BoundExprPtr> ResolveTrunc(std::vector<BoundExprPtr> args) {
  const std::string name = "trunc";
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 0));
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 1, DataType::String(), AcceptString));
  return MakeScalarCall(name, DataType::Date(), true, args,
                        [](const std::vector<ColumnPtr>& a, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          const int32_t* d = a[0]->raw_values<int32_t>();
                          const Column& f = *a[1];
                          return BuildFixed<int32_t>(
                              DataType::Date(), a, n,
                              [&](int64_t i, int32_t* out, Status*) {
                                TruncLevel level = ParseTruncLevel(f.GetView(i), true);
                                if (level == TruncLevel::kInvalid) return false;
                                *out = static_cast<int32_t>(TruncDays(d[i], level));
                                return true;
                              });
                        });
}

// ---------------------------------------------------------------------------------------
// make_date, make_timestamp
// ---------------------------------------------------------------------------------------

// Validates civil fields as java.time's LocalDate.of; message on failure.
bool CheckDate(int64_t y, int64_t m, int64_t d, std::string* msg) {
  if (y < -999999999 || y > 999999999) {
    *msg = "Invalid value for Year (valid values -999999999 - 999999999): " +
           std::to_string(y);
    return false;
  }
  if (m < 1 || m > 12) {
    *msg = "Invalid value for MonthOfYear (valid values 1 - 12): " + std::to_string(m);
    return false;
  }
  if (d < 1 || d > 31) {
    *msg = "Invalid value for DayOfMonth (valid values 1 - 28/31): " + std::to_string(d);
    return false;
  }
  if (d > DaysInMonth(y, static_cast<unsigned>(m))) {
    static const char* kMonths[12] = {"JANUARY",   "FEBRUARY", "MARCH",    "APRIL",
                                      "MAY",       "JUNE",     "JULY",     "AUGUST",
                                      "SEPTEMBER", "OCTOBER",  "NOVEMBER", "DECEMBER"};
    if (m == 2 && d == 29) {
      *msg =
          "Invalid date 'February 29' as '" + std::to_string(y) + "' is not a leap year";
    } else {
      *msg =
          std::string("Invalid date '") + kMonths[m - 1] + " " + std::to_string(d) + "'";
    }
    return false;
  }
  return true;
}

Result<BoundExprPtr> ResolveMakeDate(std::vector<BoundExprPtr> args, bool ansi) {
  const std::string name = "make_date";
  if (args.size() != 3) return WrongArgs(name, "3", args.size());
  for (size_t i = 0; i < 3; ++i)
    SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, i, DataType::Int(), AcceptIntegral));
  return MakeScalarCall(name, DataType::Date(), !ansi || AnyNullable(args), args,
                        [](const std::vector<ColumnPtr>& a, int64_t n,
                           const EvalContext& ctx) -> Result<ColumnPtr> {
                          const int32_t* y = a[0]->raw_values<int32_t>();
                          const int32_t* m = a[1]->raw_values<int32_t>();
                          const int32_t* d = a[2]->raw_values<int32_t>();
                          std::string msg;
                          return BuildFixed<int32_t>(
                              DataType::Date(), a, n,
                              [&](int64_t i, int32_t* out, Status* err) {
                                if (!CheckDate(y[i], m[i], d[i], &msg) ||
                                    y[i] < -5877641 || y[i] > 5881580) {
                                  if (ctx.ansi) *err = FieldOutOfBounds(msg);
                                  return false;
                                }
                                *out = DaysFromCivil(y[i], static_cast<unsigned>(m[i]),
                                                     static_cast<unsigned>(d[i]));
                                return true;
                              });
                        });
}

Result<BoundExprPtr> ResolveMakeTimestamp(const std::string& name, bool ntz,
                                          std::vector<BoundExprPtr> args, bool ansi) {
  if (args.size() < 6 || args.size() > (ntz ? 6u : 7u))
    return WrongArgs(name, ntz ? "6" : "[6, 7]", args.size());
  for (size_t i = 0; i < 5; ++i)
    SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, i, DataType::Int(), AcceptIntegral));
  SPATE_RETURN_IF_ERROR(
      ToTypeArg(name, &args, 5, DataType::Decimal(16, 6), AcceptNumeric));
  if (args.size() == 7)
    SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 6, DataType::String(), AcceptString));
  DataTypePtr type = ntz ? DataType::TimestampNtz() : DataType::Timestamp();
  return MakeScalarCall(
      name, type, !ansi || AnyNullable(args), args,
      [ntz, type](const std::vector<ColumnPtr>& a, int64_t n,
                  const EvalContext& ctx) -> Result<ColumnPtr> {
        const int32_t* f[5];
        for (size_t k = 0; k < 5; ++k) f[k] = a[k]->raw_values<int32_t>();
        const __int128* sec = a[5]->raw_values<__int128>();
        const Column* zone = a.size() == 7 ? a[6].get() : nullptr;
        std::string msg;
        return BuildFixed<int64_t>(type, a, n, [&](int64_t i, int64_t* out, Status* err) {
          auto fail = [&](Status s) {
            if (ctx.ansi) *err = std::move(s);
            return false;
          };
          int64_t y = f[0][i], mo = f[1][i], d = f[2][i], h = f[3][i], mi = f[4][i];
          __int128 s = sec[i];
          if (!CheckDate(y, mo, d, &msg)) return fail(FieldOutOfBounds(msg));
          if (h < 0 || h > 23)
            return fail(
                FieldOutOfBounds("Invalid value for HourOfDay (valid values 0 - 23): " +
                                 std::to_string(h)));
          if (mi < 0 || mi > 59)
            return fail(FieldOutOfBounds(
                "Invalid value for MinuteOfHour (valid values 0 - 59): " +
                std::to_string(mi)));
          int64_t secs = static_cast<int64_t>(s / kMicrosPerSecond);
          int64_t frac = static_cast<int64_t>(s % kMicrosPerSecond);
          bool carry = false;
          if (secs == 60) {
            if (frac != 0) {
              return fail(Status::Error("INVALID_FRACTION_OF_SECOND",
                                        {{"secAndMicros", FormatDecimal(s, 6)},
                                         {"ansiConfig", "\"spark.sql.ansi.enabled\""}}));
            }
            carry = true;
            secs = 0;
          } else if (s < 0 || secs > 60) {
            return fail(FieldOutOfBounds(
                "Invalid value for SecondOfMinute (valid values 0 - 59): " +
                std::to_string(secs)));
          }
          int64_t local = int64_t{DaysFromCivil(y, static_cast<unsigned>(mo),
                                                static_cast<unsigned>(d))} *
                              kMicrosPerDay +
                          ((h * 60 + mi) * 60 + secs) * kMicrosPerSecond + frac;
          if (carry) local += 60 * kMicrosPerSecond;
          if (ntz) {
            *out = local;
            return true;
          }
          const TimeZone* tz = ctx.time_zone;
          if (zone != nullptr) {
            tz = TimeZone::Lookup(zone->GetView(i));
            if (tz == nullptr) {
              *err = Status::Error("INVALID_TIMEZONE",
                                   {{"timeZone", std::string(zone->GetView(i))}});
              return false;
            }
          }
          *out = FromLocal(tz, local);
          return true;
        });
      });
}

// ---------------------------------------------------------------------------------------
// from_utc_timestamp / to_utc_timestamp
// ---------------------------------------------------------------------------------------

Result<BoundExprPtr> ResolveUtcConvert(const std::string& name, bool from_utc,
                                       std::vector<BoundExprPtr> args) {
  if (args.size() != 2) return WrongArgs(name, "2", args.size());
  TypeId t = args[0]->type()->id();
  if (t != TypeId::kTimestamp) {
    if (!(IsStringLike(t) || t == TypeId::kDate || t == TypeId::kTimestampNtz)) {
      return UnexpectedType(name, args, 0, "\"TIMESTAMP\"");
    }
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Timestamp()));
  }
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 1, DataType::String(), AcceptString));
  return MakeScalarCall(
      name, DataType::Timestamp(), AnyNullable(args), args,
      [from_utc](const std::vector<ColumnPtr>& a, int64_t n,
                 const EvalContext&) -> Result<ColumnPtr> {
        const int64_t* x = a[0]->raw_values<int64_t>();
        const Column& z = *a[1];
        std::string_view last_name;
        const TimeZone* tz = nullptr;
        return BuildFixed<int64_t>(
            DataType::Timestamp(), a, n, [&](int64_t i, int64_t* out, Status* err) {
              std::string_view id = z.GetView(i);
              if (tz == nullptr || id != last_name) {
                tz = TimeZone::Lookup(id);
                last_name = id;
                if (tz == nullptr) {
                  *err =
                      Status::Error("INVALID_TIMEZONE", {{"timeZone", std::string(id)}});
                  return false;
                }
              }
              *out = from_utc ? ToLocal(tz, x[i]) : FromLocal(tz, x[i]);
              return true;
            });
      });
}

// ---------------------------------------------------------------------------------------
// convert_timezone([sourceTz, ]targetTz, sourceTs): the wall-clock time `sourceTs` (a
// TIMESTAMP_NTZ) in sourceTz, shown in targetTz. The two-argument form's source is the
// session time zone (current_timezone(), as Spark shows it).
// ---------------------------------------------------------------------------------------

Result<BoundExprPtr> ResolveConvertTimezone(std::vector<BoundExprPtr> args,
                                            const ResolveContext& rc) {
  const std::string name = "convert_timezone";
  if (args.size() != 2 && args.size() != 3) return WrongArgs(name, "[2, 3]", args.size());
  if (args.size() == 2) {
    const ScalarResolver* current =
        FunctionRegistry::Global().FindScalar("current_timezone");
    SPATE_ASSIGN_OR_RETURN(auto zone, (*current)({}, rc));
    args.insert(args.begin(), zone);
  }
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 0, DataType::String(), AcceptString));
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 1, DataType::String(), AcceptString));
  TypeId t = args[2]->type()->id();
  if (t != TypeId::kTimestampNtz) {
    if (!(IsStringLike(t) || t == TypeId::kDate || t == TypeId::kTimestamp)) {
      return UnexpectedType(name, args, 2, "\"TIMESTAMP_NTZ\"");
    }
    SPATE_ASSIGN_OR_RETURN(args[2], ImplicitCast(args[2], DataType::TimestampNtz()));
  }
  return MakeScalarCall(
      name, DataType::TimestampNtz(), AnyNullable(args), args,
      [](const std::vector<ColumnPtr>& a, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        const Column& from = *a[0];
        const Column& to = *a[1];
        const int64_t* x = a[2]->raw_values<int64_t>();
        std::string_view from_name, to_name;
        const TimeZone* from_tz = nullptr;
        const TimeZone* to_tz = nullptr;
        auto lookup = [](std::string_view id, std::string_view* last, const TimeZone** tz,
                         Status* err) {
          if (*tz != nullptr && id == *last) return true;
          *tz = TimeZone::Lookup(id);
          *last = id;
          if (*tz == nullptr) {
            *err = Status::Error("INVALID_TIMEZONE", {{"timeZone", std::string(id)}});
            return false;
          }
          return true;
        };
        return BuildFixed<int64_t>(
            DataType::TimestampNtz(), a, n, [&](int64_t i, int64_t* out, Status* err) {
              if (!lookup(from.GetView(i), &from_name, &from_tz, err) ||
                  !lookup(to.GetView(i), &to_name, &to_tz, err)) {
                return false;
              }
              *out = ToLocal(to_tz, FromLocal(from_tz, x[i]));
              return true;
            });
      });
}

// ---------------------------------------------------------------------------------------
// unix_date / date_from_unix_date
// ---------------------------------------------------------------------------------------

Result<BoundExprPtr> ResolveUnixDate(std::vector<BoundExprPtr> args) {
  const std::string name = "unix_date";
  if (args.size() != 1) return WrongArgs(name, "1", args.size());
  SPATE_RETURN_IF_ERROR(ToDateArg(name, &args, 0));
  return MakeScalarCall(name, DataType::Int(), AnyNullable(args), args,
                        [](const std::vector<ColumnPtr>& a, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          return Map1<int32_t, int32_t>(a[0], DataType::Int(), n,
                                                        [](int32_t d) { return d; });
                        });
}

Result<BoundExprPtr> ResolveDateFromUnixDate(std::vector<BoundExprPtr> args) {
  const std::string name = "date_from_unix_date";
  if (args.size() != 1) return WrongArgs(name, "1", args.size());
  SPATE_RETURN_IF_ERROR(ToTypeArg(name, &args, 0, DataType::Int(), AcceptIntegral));
  return MakeScalarCall(name, DataType::Date(), AnyNullable(args), args,
                        [](const std::vector<ColumnPtr>& a, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          return Map1<int32_t, int32_t>(a[0], DataType::Date(), n,
                                                        [](int32_t d) { return d; });
                        });
}

// ---------------------------------------------------------------------------------------
// Interval arithmetic (operators)
// ---------------------------------------------------------------------------------------

Status IntervalOverflow(bool months) {
  return Status::Error("ARITHMETIC_OVERFLOW",
                       {{"message", months ? "integer overflow" : "long overflow"},
                        {"alternative", ""},
                        {"config", "\"spark.sql.ansi.enabled\""}});
}

// round(x) half-up on a double as Guava's DoubleMath.roundToLong(x, HALF_UP).
inline double RoundHalfUp(double x) {
  return x < 0 ? -std::floor(-x + 0.5) : std::floor(x + 0.5);
}

// Half-up integer division (LongMath.divide(a, b, HALF_UP)).
inline int64_t DivHalfUp(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  if (r != 0 && 2 * (r < 0 ? -r : r) >= (b < 0 ? -b : b))
    q += ((a < 0) != (b < 0)) ? -1 : 1;
  return q;
}

Result<BoundExprPtr> IntervalTimesNumber(char op, const BoundExprPtr& iv,
                                         BoundExprPtr num) {
  bool ym = iv->type()->id() == TypeId::kYearMonthInterval;
  DataTypePtr rt = ym ? DataType::YearMonthInterval() : DataType::DayTimeInterval();
  const DataType& nt = *num->type();
  bool fractional =
      nt.IsFloating() || nt.id() == TypeId::kDecimal || nt.id() == TypeId::kString;
  SPATE_ASSIGN_OR_RETURN(
      num, ImplicitCast(num, fractional ? DataType::Double() : DataType::Long()));
  bool div = op == '/';
  std::string sym(1, op);
  return MakeScalarCall(
      sym, rt, iv->nullable() || num->nullable(), {iv, num},
      [ym, rt, fractional, div](const std::vector<ColumnPtr>& a, int64_t n,
                                const EvalContext&) -> Result<ColumnPtr> {
        auto compute = [&](int64_t v, int64_t i, int64_t* out, Status* err) -> bool {
          if (fractional) {
            double k = a[1]->raw_values<double>()[i];
            if (div && k == 0) {
              *err = Status::Error("INTERVAL_DIVIDED_BY_ZERO");
              return false;
            }
            double r = RoundHalfUp(div ? static_cast<double>(v) / k
                                       : static_cast<double>(v) * k);
            double lim = ym ? 2147483647.0 : 9.2233720368547758e18;
            if (std::isnan(r) || r >= lim + (ym ? 1 : 0) || r < -lim - 1) {
              *err = IntervalOverflow(ym);
              return false;
            }
            *out = static_cast<int64_t>(r);
            return true;
          }
          int64_t k = a[1]->raw_values<int64_t>()[i];
          if (div) {
            if (k == 0) {
              *err = Status::Error("INTERVAL_DIVIDED_BY_ZERO");
              return false;
            }
            if (v == std::numeric_limits<int64_t>::min() && k == -1) {
              *err = IntervalOverflow(false);
              return false;
            }
            *out = DivHalfUp(v, k);
            return true;
          }
          if (__builtin_mul_overflow(v, k, out) ||
              (ym && (*out > std::numeric_limits<int32_t>::max() ||
                      *out < std::numeric_limits<int32_t>::min()))) {
            *err = IntervalOverflow(ym);
            return false;
          }
          return true;
        };
        if (ym) {
          const int32_t* x = a[0]->raw_values<int32_t>();
          return BuildFixed<int32_t>(rt, a, n, [&](int64_t i, int32_t* out, Status* err) {
            int64_t r;
            if (!compute(x[i], i, &r, err)) return false;
            *out = static_cast<int32_t>(r);
            return true;
          });
        }
        const int64_t* x = a[0]->raw_values<int64_t>();
        return BuildFixed<int64_t>(rt, a, n, [&](int64_t i, int64_t* out, Status* err) {
          return compute(x[i], i, out, err);
        });
      },
      [sym](const std::vector<std::string>& s) {
        return "(" + s[0] + " " + sym + " " + s[1] + ")";
      });
}

}  // namespace

Result<BoundExprPtr> ResolveIntervalArithmetic(char op, const BoundExprPtr& a0,
                                               const BoundExprPtr& b0) {
  BoundExprPtr a = a0, b = b0;
  TypeId ta = a->type()->id(), tb = b->type()->id();
  auto is_iv = [](TypeId t) {
    return t == TypeId::kYearMonthInterval || t == TypeId::kDayTimeInterval;
  };
  auto is_num = [](const DataType& t) { return t.IsNumeric(); };
  if (op == '*' || op == '/') {
    if (is_iv(ta) && is_num(*b->type())) return IntervalTimesNumber(op, a, b);
    if (op == '*' && is_iv(tb) && is_num(*a->type())) {
      // number * interval: evaluate as interval * number, displayed in the written order.
      SPATE_ASSIGN_OR_RETURN(auto e, IntervalTimesNumber(op, b, a));
      return e;
    }
    return BoundExprPtr();
  }
  if (op != '+' && op != '-') return BoundExprPtr();
  std::string sym(1, op);
  auto display = [sym](const std::vector<std::string>& s) {
    return "(" + s[0] + " " + sym + " " + s[1] + ")";
  };
  bool swapped = false;
  if (op == '+' && is_iv(ta) && (tb == TypeId::kDate || IsTs(tb))) {
    std::swap(a, b);
    std::swap(ta, tb);
    swapped = true;
  }
  bool sub = op == '-';
  auto shown = [display, swapped](const std::vector<std::string>& s) {
    return swapped ? display({s[1], s[0]}) : display(s);
  };
  // date/timestamp +/- year-month interval.
  if (tb == TypeId::kYearMonthInterval && (ta == TypeId::kDate || IsTs(ta))) {
    DataTypePtr rt = a->type();
    bool date = ta == TypeId::kDate;
    bool ntz = ta == TypeId::kTimestampNtz;
    return MakeScalarCall(
        sym, rt, a->nullable() || b->nullable(), {a, b},
        [rt, date, ntz, sub](const std::vector<ColumnPtr>& c, int64_t n,
                             const EvalContext& ctx) -> Result<ColumnPtr> {
          const int32_t* m = c[1]->raw_values<int32_t>();
          if (date) {
            const int32_t* d = c[0]->raw_values<int32_t>();
            return BuildFixed<int32_t>(rt, c, n, [&](int64_t i, int32_t* out, Status*) {
              *out = static_cast<int32_t>(
                  AddMonthsToDays(d[i], sub ? -int64_t{m[i]} : m[i]));
              return true;
            });
          }
          const int64_t* t = c[0]->raw_values<int64_t>();
          const TimeZone* tz = ntz ? nullptr : ctx.time_zone;
          return BuildFixed<int64_t>(rt, c, n, [&](int64_t i, int64_t* out, Status*) {
            int64_t local = ToLocal(tz, t[i]);
            int64_t days = FloorDiv(local, kMicrosPerDay);
            int64_t tod = local - days * kMicrosPerDay;
            int64_t nd = AddMonthsToDays(days, sub ? -int64_t{m[i]} : m[i]);
            *out = FromLocal(tz, nd * kMicrosPerDay + tod);
            return true;
          });
        },
        shown);
  }
  // date +/- day-time interval.
  if (ta == TypeId::kDate && tb == TypeId::kDayTimeInterval) {
    const DataType& it = *b->type();
    if (it.start_field() == IntervalField::kDay &&
        it.end_field() == IntervalField::kDay) {
      return MakeScalarCall(
          sym, DataType::Date(), a->nullable() || b->nullable(), {a, b},
          [sub](const std::vector<ColumnPtr>& c, int64_t n,
                const EvalContext&) -> Result<ColumnPtr> {
            return Map2<int32_t, int64_t, int32_t>(
                c[0], c[1], DataType::Date(), n, [sub](int32_t d, int64_t v) {
                  int64_t k = v / kMicrosPerDay;
                  return static_cast<int32_t>(sub ? d - k : d + k);
                });
          },
          shown);
    }
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, DataType::Timestamp()));
    return MakeScalarCall(
        sym, DataType::Timestamp(), a->nullable() || b->nullable(), {a, b},
        [sub](const std::vector<ColumnPtr>& c, int64_t n,
              const EvalContext&) -> Result<ColumnPtr> {
          const int64_t* x = c[0]->raw_values<int64_t>();
          const int64_t* y = c[1]->raw_values<int64_t>();
          return BuildFixed<int64_t>(
              DataType::Timestamp(), c, n, [&](int64_t i, int64_t* out, Status* err) {
                if (sub ? __builtin_sub_overflow(x[i], y[i], out)
                        : __builtin_add_overflow(x[i], y[i], out)) {
                  *err =
                      Status::Error("DATETIME_OVERFLOW", {{"operation", "add interval"}});
                  return false;
                }
                return true;
              });
        },
        shown);
  }
  // day-time interval + timestamp (commuted).
  if (swapped && IsTs(ta) && tb == TypeId::kDayTimeInterval) {
    bool ntz = ta == TypeId::kTimestampNtz;
    DataTypePtr rt = a->type();
    (void)ntz;
    return MakeScalarCall(
        sym, rt, a->nullable() || b->nullable(), {a, b},
        [rt](const std::vector<ColumnPtr>& c, int64_t n,
             const EvalContext&) -> Result<ColumnPtr> {
          const int64_t* x = c[0]->raw_values<int64_t>();
          const int64_t* y = c[1]->raw_values<int64_t>();
          return BuildFixed<int64_t>(rt, c, n, [&](int64_t i, int64_t* out, Status* err) {
            if (__builtin_add_overflow(x[i], y[i], out)) {
              *err = Status::Error("DATETIME_OVERFLOW", {{"operation", "add interval"}});
              return false;
            }
            return true;
          });
        },
        shown);
  }
  return BoundExprPtr();
}

namespace {

using Args = std::vector<BoundExprPtr>;

// monthname / dayname: the three-letter English name of a date's month / weekday.
Result<BoundExprPtr> ResolveDateName(const std::string& name, const std::string& pattern,
                                     const Args& args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  const Args& shown = args;
  SPATE_ASSIGN_OR_RETURN(auto d,
                         fn::ToTypeArg(name, args, 0, DataType::Date(), "\"DATE\""));
  return fn::Delegate(name, "date_format", {d, MakeLiteral(Value::String(pattern))}, rc,
                      shown);
}

}  // namespace

void RegisterDatetimeFunctions(FunctionRegistry& r) {
  RegisterCurrent(r);
  RegisterTimestampAddDiff(r);
  auto reg = [&r](const std::string& name, auto fn) {
    r.RegisterScalar(name,
                     [name, fn](std::vector<BoundExprPtr> args, const ResolveContext&)
                         -> Result<BoundExprPtr> { return fn(name, std::move(args)); });
  };
  // Functions whose nullability depends on ANSI mode (NULL on bad input, or an error).
  auto reg_ansi = [&r](const std::string& name, auto fn) {
    r.RegisterScalar(name,
                     [name, fn](std::vector<BoundExprPtr> args,
                                const ResolveContext& ctx) -> Result<BoundExprPtr> {
                       return fn(name, std::move(args), ctx.ansi);
                     });
  };
  // Parsing.
  reg_ansi("to_timestamp", [](const std::string& n, auto args, bool ansi) {
    return ResolveParse(n, ParseTarget::kTimestamp, false, ansi, std::move(args),
                        nullptr);
  });
  reg_ansi("to_timestamp_ltz", [](const std::string& n, auto args, bool ansi) {
    return ResolveParse(n, ParseTarget::kTimestamp, false, ansi, std::move(args),
                        nullptr);
  });
  reg_ansi("try_to_timestamp", [](const std::string& n, auto args, bool ansi) {
    return ResolveParse(n, ParseTarget::kTimestamp, true, ansi, std::move(args), nullptr);
  });
  reg_ansi("to_timestamp_ntz", [](const std::string& n, auto args, bool ansi) {
    return ResolveParse(n, ParseTarget::kTimestampNtz, false, ansi, std::move(args),
                        nullptr);
  });
  reg_ansi("to_date", [](const std::string& n, auto args, bool ansi) {
    return ResolveParse(n, ParseTarget::kDate, false, ansi, std::move(args), nullptr);
  });
  reg_ansi("try_to_date", [](const std::string& n, auto args, bool ansi) {
    return ResolveParse(n, ParseTarget::kDate, true, ansi, std::move(args), nullptr);
  });
  reg_ansi("unix_timestamp", [](const std::string& n, auto args, bool ansi) {
    return ResolveParse(n, ParseTarget::kUnixSeconds, false, ansi, std::move(args),
                        "yyyy-MM-dd HH:mm:ss");
  });
  reg_ansi("to_unix_timestamp",
           [](const std::string& n, auto args, bool ansi) -> Result<BoundExprPtr> {
             if (args.empty()) return WrongArgs(n, "[1, 2]", 0);
             return ResolveParse(n, ParseTarget::kUnixSeconds, false, ansi,
                                 std::move(args), "yyyy-MM-dd HH:mm:ss");
           });
  // Formatting.
  reg("date_format",
      [](const std::string&, auto args) { return ResolveDateFormat(std::move(args)); });
  reg("from_unixtime",
      [](const std::string&, auto args) { return ResolveFromUnixtime(std::move(args)); });
  // Epoch conversions.
  reg("timestamp_seconds", [](const std::string& n, auto args) {
    return ResolveTimestampFrom(n, kMicrosPerSecond, std::move(args));
  });
  reg("timestamp_millis", [](const std::string& n, auto args) {
    return ResolveTimestampFrom(n, 1000, std::move(args));
  });
  reg("timestamp_micros", [](const std::string& n, auto args) {
    return ResolveTimestampFrom(n, 1, std::move(args));
  });
  reg("unix_seconds", [](const std::string& n, auto args) {
    return ResolveUnixFrom(n, kMicrosPerSecond, std::move(args));
  });
  reg("unix_millis", [](const std::string& n, auto args) {
    return ResolveUnixFrom(n, 1000, std::move(args));
  });
  reg("unix_micros", [](const std::string& n, auto args) {
    return ResolveUnixFrom(n, 1, std::move(args));
  });
  reg("unix_date",
      [](const std::string&, auto args) { return ResolveUnixDate(std::move(args)); });
  reg("date_from_unix_date", [](const std::string&, auto args) {
    return ResolveDateFromUnixDate(std::move(args));
  });
  // Fields.
  const std::pair<const char*, DateField> date_fields[] = {
      {"year", DateField::kYear},
      {"quarter", DateField::kQuarter},
      {"month", DateField::kMonth},
      {"dayofmonth", DateField::kDay},
      {"day", DateField::kDay},
      {"dayofweek", DateField::kDayOfWeek},
      {"weekday", DateField::kWeekday},
      {"dayofyear", DateField::kDayOfYear},
      {"weekofyear", DateField::kWeekOfYear}};
  for (const auto& [fname, f] : date_fields) {
    DateField field = f;
    reg(fname, [field](const std::string& n, auto args) {
      return ResolveDateField(n, field, std::move(args));
    });
  }
  reg("hour", [](const std::string& n, auto args) {
    return ResolveTimeField(n, TimeField::kHour, std::move(args));
  });
  reg("minute", [](const std::string& n, auto args) {
    return ResolveTimeField(n, TimeField::kMinute, std::move(args));
  });
  reg("second", [](const std::string& n, auto args) {
    return ResolveTimeField(n, TimeField::kSecond, std::move(args));
  });
  reg("extract",
      [](const std::string& n, auto args) { return ResolveExtract(n, std::move(args)); });
  reg("date_part",
      [](const std::string& n, auto args) { return ResolveExtract(n, std::move(args)); });
  reg("datepart",
      [](const std::string& n, auto args) { return ResolveExtract(n, std::move(args)); });
  // Arithmetic.
  reg("date_add", [](const std::string& n, auto args) {
    return ResolveDateAdd(n, false, std::move(args));
  });
  reg("dateadd", [](const std::string& n, auto args) {
    return ResolveDateAdd(n, false, std::move(args));
  });
  reg("date_sub", [](const std::string& n, auto args) {
    return ResolveDateAdd(n, true, std::move(args));
  });
  reg("datediff", [](const std::string& n, auto args) {
    return ResolveDateDiff(n, std::move(args));
  });
  reg("add_months",
      [](const std::string&, auto args) { return ResolveAddMonths(std::move(args)); });
  reg("months_between", [](const std::string&, auto args) {
    return ResolveMonthsBetween(std::move(args));
  });
  reg("last_day",
      [](const std::string&, auto args) { return ResolveLastDay(std::move(args)); });
  reg("next_day",
      [](const std::string&, auto args) { return ResolveNextDay(std::move(args)); });
  reg("date_trunc",
      [](const std::string&, auto args) { return ResolveDateTrunc(std::move(args)); });
  reg("trunc",
      [](const std::string&, auto args) { return ResolveTrunc(std::move(args)); });
  reg_ansi("make_date", [](const std::string&, auto args, bool ansi) {
    return ResolveMakeDate(std::move(args), ansi);
  });
  reg_ansi("make_timestamp", [](const std::string& n, auto args, bool ansi) {
    return ResolveMakeTimestamp(n, false, std::move(args), ansi);
  });
  reg_ansi("make_timestamp_ltz", [](const std::string& n, auto args, bool ansi) {
    return ResolveMakeTimestamp(n, false, std::move(args), ansi);
  });
  reg_ansi("make_timestamp_ntz", [](const std::string& n, auto args, bool ansi) {
    return ResolveMakeTimestamp(n, true, std::move(args), ansi);
  });
  reg("from_utc_timestamp", [](const std::string& n, auto args) {
    return ResolveUtcConvert(n, true, std::move(args));
  });
  reg("to_utc_timestamp", [](const std::string& n, auto args) {
    return ResolveUtcConvert(n, false, std::move(args));
  });
  r.RegisterScalar("convert_timezone", ResolveConvertTimezone);
  r.RegisterScalar("monthname", [](const Args& a, const ResolveContext& rc) {
    return ResolveDateName("monthname", "MMM", a, rc);
  });
  r.RegisterScalar("dayname", [](const Args& a, const ResolveContext& rc) {
    return ResolveDateName("dayname", "EEE", a, rc);
  });
  r.RegisterScalar("date_diff",
                   [](const Args& a, const ResolveContext& rc) -> Result<BoundExprPtr> {
                     return fn::Delegate("date_diff", "datediff", a, rc, a);
                   });
}

}  // namespace spate
