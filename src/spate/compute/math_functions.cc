// Copyright spate authors.
// Math functions: pmod abs round bround ceil ceiling floor sqrt cbrt exp ln log log10
// log2 pow power sign signum greatest least isnan nanvl, with Spark 4's result types
// (ceil/floor of double -> bigint, round of decimal keeps a decimal with adjusted
// precision), rounding modes (round HALF_UP, bround HALF_EVEN on the shortest decimal
// form of a double, as Scala's BigDecimal(d)), NULL for logarithms of non-positive
// numbers and ANSI overflow errors. Also the bit functions (shiftleft shiftright
// shiftrightunsigned bit_count bit_get getbit bin), factorial, width_bucket, the bitmap
// positions (bitmap_bucket_number bitmap_bit_position bitmap_count) and conv.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include "spate/columnar/kernels.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/decimal_math.h"
#include "spate/compute/function_args.h"
#include "spate/compute/predicates.h"
#include "spate/compute/string_kernels.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using kernel::Out;
using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

// ---- unary double functions
// ------------------------------------------------------------

enum class NullRule : uint8_t { kNone, kNonPositive, kLeMinusOne };

// Spark prints these math calls in upper case (SIN(x)); the older names keep their case.
std::function<std::string(const std::vector<std::string>&)> UpperDisplay(
    const std::string& name) {
  static const std::set<std::string> kUpper = {
      "sin",  "cos",     "tan",     "asin",  "acos",  "atan",  "sinh",
      "cosh", "tanh",    "asinh",   "acosh", "atanh", "cot",   "csc",
      "sec",  "degrees", "radians", "expm1", "log1p", "atan2", "hypot"};
  if (!kUpper.count(name)) return nullptr;
  std::string upper;
  for (char ch : name)
    upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
  return [upper](const std::vector<std::string>& a) { return CallText(upper, a); };
}

Result<BoundExprPtr> ResolveDoubleUnary(const std::string& name,
                                        std::vector<BoundExprPtr> args,
                                        double (*f)(double), NullRule rule) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0],
                         fn::ToTypeArg(name, args, 0, DataType::Double(), "\"DOUBLE\""));
  // Nullable whatever the input, as Spark's UnaryMathExpression.
  return MakeScalarCall(
      name, DataType::Double(), true, args,
      [f, rule](const std::vector<ColumnPtr>& c, int64_t n,
                const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        Out<double> out(n);
        const double* x = c[0]->raw_values<double>();
        for (int64_t i = 0; i < n; ++i) out.data[i] = f(x[i]);
        if (rule != NullRule::kNone) {
          double limit = rule == NullRule::kNonPositive ? 0 : -1;
          for (int64_t i = 0; i < n; ++i) {
            if (x[i] <= limit && mask.Valid(i)) mask.SetNull(i);
          }
        }
        return kernel::MakeColumn(DataType::Double(), n, mask.null_count(),
                                  mask.validity(), out.buf);
      },
      UpperDisplay(name));
}

double Signum(double x) { return std::isnan(x) ? x : (x > 0 ? 1.0 : (x < 0 ? -1.0 : x)); }
double Ln(double x) { return std::log(x); }
double Log10(double x) { return std::log10(x); }
double Log2(double x) { return std::log2(x); }
double Sqrt(double x) { return std::sqrt(x); }
// Through long double: glibc's double cbrt is not correctly rounded (cbrt(27) != 3).
double Cbrt(double x) {
  return static_cast<double>(std::cbrt(static_cast<long double>(x)));
}
double Exp(double x) { return std::exp(x); }
double Sin(double x) { return std::sin(x); }
double Cos(double x) { return std::cos(x); }
double Tan(double x) { return std::tan(x); }
double Asin(double x) { return std::asin(x); }
double Acos(double x) { return std::acos(x); }
double Atan(double x) { return std::atan(x); }
double Sinh(double x) { return std::sinh(x); }
double Cosh(double x) { return std::cosh(x); }
double Tanh(double x) { return std::tanh(x); }
// acosh and atanh by Spark's formulas (the C library's last digits differ).
double Asinh(double x) { return std::asinh(x); }
double Acosh(double x) { return std::log(x + std::sqrt(x * x - 1.0)); }
double Atanh(double x) { return 0.5 * (std::log1p(x) - std::log1p(-x)); }
double Cot(double x) { return 1.0 / std::tan(x); }
double Csc(double x) { return 1.0 / std::sin(x); }
double Sec(double x) { return 1.0 / std::cos(x); }
// java.lang.Math.toDegrees / toRadians: one multiplication by the rounded constant.
double Degrees(double x) { return x * 57.29577951308232; }
double Radians(double x) { return x * 0.017453292519943295; }
double Expm1(double x) { return std::expm1(x); }
double Log1p(double x) { return std::log1p(x); }
double Rint(double x) { return std::nearbyint(x); }
// atan2 of y + 0.0 and x + 0.0 (Spark's: -0.0 becomes 0.0).
double Atan2(double y, double x) { return std::atan2(y + 0.0, x + 0.0); }
double Hypot(double x, double y) { return std::hypot(x, y); }

Result<BoundExprPtr> ResolveDoubleBinary(const std::string& name,
                                         std::vector<BoundExprPtr> args, bool is_log,
                                         double (*f)(double, double) = nullptr) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  for (size_t k = 0; k < 2; ++k) {
    SPATE_ASSIGN_OR_RETURN(
        args[k], fn::ToTypeArg(name, args, k, DataType::Double(), "\"DOUBLE\""));
  }
  bool nullable = is_log || fn::AnyNullable(args);
  return MakeScalarCall(
      name, DataType::Double(), nullable, args,
      [is_log, f](const std::vector<ColumnPtr>& c, int64_t n,
                  const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        Out<double> out(n);
        const double* x = c[0]->raw_values<double>();
        const double* y = c[1]->raw_values<double>();
        if (is_log) {
          // log(base, x): NULL when base <= 0 or x <= 0 (Spark's Logarithm).
          for (int64_t i = 0; i < n; ++i) {
            out.data[i] = std::log(y[i]) / std::log(x[i]);
            if ((x[i] <= 0 || y[i] <= 0) && mask.Valid(i)) mask.SetNull(i);
          }
        } else if (f != nullptr) {
          for (int64_t i = 0; i < n; ++i) out.data[i] = f(x[i], y[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) out.data[i] = std::pow(x[i], y[i]);
        }
        return kernel::MakeColumn(DataType::Double(), n, mask.null_count(),
                                  mask.validity(), out.buf);
      },
      UpperDisplay(name));
}

// ---- abs
// -------------------------------------------------------------------------------

Result<BoundExprPtr> ResolveAbs(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("abs", args.size(), 1, 1, "1"));
  const DataType& t0 = *args[0]->type();
  if (!(t0.IsNumeric() || t0.id() == TypeId::kDayTimeInterval ||
        t0.id() == TypeId::kYearMonthInterval)) {
    if (t0.id() == TypeId::kNull || t0.id() == TypeId::kString) {
      SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Double()));
    } else {
      return fn::UnexpectedType(
          "abs", args, 0,
          "(\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\")");
    }
  }
  DataTypePtr type = args[0]->type();
  return MakeScalarCall(
      "abs", type, args[0]->nullable(), args,
      [type](const std::vector<ColumnPtr>& c, int64_t n,
             const EvalContext& ctx) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        return kernel::DispatchFixed(*type, [&]<typename T>() -> Result<ColumnPtr> {
          Out<T> out(n);
          const T* x = a.raw_values<T>();
          bool overflow = false;
          for (int64_t i = 0; i < n; ++i) {
            if constexpr (std::is_floating_point_v<T>) {
              out.data[i] = std::fabs(x[i]);
            } else {
              if (x[i] == std::numeric_limits<T>::min() && a.IsValid(i)) overflow = true;
              out.data[i] = x[i] < 0 ? static_cast<T>(-x[i]) : x[i];
            }
          }
          if (overflow && ctx.ansi && !std::is_same_v<T, __int128>) {
            std::string what = type->id() == TypeId::kLong    ? "long"
                               : type->id() == TypeId::kShort ? "short"
                               : type->id() == TypeId::kByte  ? "byte"
                                                              : "integer";
            return Status::Error("ARITHMETIC_OVERFLOW",
                                 {{"message", what + " overflow"},
                                  {"alternative", ""},
                                  {"config", "\"spark.sql.ansi.enabled\""}});
          }
          return kernel::MakeColumn(type, n, a.null_count(), a.validity(), out.buf);
        });
      });
}

// ---- rounding
// --------------------------------------------------------------------------

enum class RoundMode : uint8_t { kHalfUp, kHalfEven, kCeiling, kFloor };

// Rounds q = v / d (d > 0) to an integer with `mode`.
__int128 DivRound(__int128 v, __int128 d, RoundMode mode) {
  __int128 q = v / d, r = v % d;
  if (r == 0) return q;
  bool neg = v < 0;
  __int128 twice = (r < 0 ? -r : r) * 2;
  switch (mode) {
    case RoundMode::kHalfUp:
      if (twice >= d) q += neg ? -1 : 1;
      break;
    case RoundMode::kHalfEven:
      if (twice > d || (twice == d && (q % 2 != 0))) q += neg ? -1 : 1;
      break;
    case RoundMode::kCeiling:
      if (!neg) q += 1;
      break;
    case RoundMode::kFloor:
      if (neg) q -= 1;
      break;
  }
  return q;
}

// Scala BigDecimal(d).setScale(scale, mode).toDouble: rounds the shortest decimal form.
double RoundDouble(double x, int scale, RoundMode mode) {
  if (std::isnan(x) || std::isinf(x)) return x;
  if (x == 0) return 0.0;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
  bool neg = s[0] == '-';
  if (neg) s.remove_prefix(1);
  size_t e_pos = s.find('e');
  int exp10 = std::atoi(std::string(s.substr(e_pos + 1)).c_str());
  std::string digits;
  for (char ch : s.substr(0, e_pos)) {
    if (ch != '.') digits.push_back(ch);
  }
  // digit i has place value 10^(exp10 - i); keep places >= 10^-scale.
  int64_t keep = static_cast<int64_t>(exp10) + scale + 1;
  if (keep >= static_cast<int64_t>(digits.size())) return x;
  bool up;
  std::string prefix;
  if (keep < 0) {
    up = mode == RoundMode::kCeiling ? !neg : mode == RoundMode::kFloor ? neg : false;
  } else {
    prefix = digits.substr(0, static_cast<size_t>(keep));
    char next = digits[static_cast<size_t>(keep)];
    bool rest =
        digits.find_first_not_of('0', static_cast<size_t>(keep) + 1) != std::string::npos;
    switch (mode) {
      case RoundMode::kHalfUp:
        up = next >= '5';
        break;
      case RoundMode::kHalfEven: {
        bool odd = !prefix.empty() && ((prefix.back() - '0') % 2 == 1);
        up = next > '5' || (next == '5' && (rest || odd));
        break;
      }
      case RoundMode::kCeiling:
        up = !neg;
        break;
      default:
        up = neg;
        break;
    }
  }
  // The result is prefix (+1 if up) * 10^(-scale).
  if (prefix.empty()) prefix = "0";
  if (up) {
    int k = static_cast<int>(prefix.size()) - 1;
    while (k >= 0 && prefix[static_cast<size_t>(k)] == '9')
      prefix[static_cast<size_t>(k--)] = '0';
    if (k < 0) {
      prefix.insert(prefix.begin(), '1');
    } else {
      prefix[static_cast<size_t>(k)]++;
    }
  }
  std::string text = (neg ? "-" : "") + prefix + "e" + std::to_string(-scale);
  double r = std::strtod(text.c_str(), nullptr);
  return r == 0 ? 0.0 : r;
}

Status RoundOverflow() {
  return Status::Error("ARITHMETIC_OVERFLOW", {{"message", "Overflow"},
                                               {"alternative", ""},
                                               {"config", "\"spark.sql.ansi.enabled\""}});
}

// Result type of round/bround/ceil/floor with a scale (Spark's RoundBase.dataType).
DataTypePtr RoundedDecimalType(const DataType& t, int scale) {
  int p = t.precision(), s = t.scale();
  int integral = p - s + 1;
  if (scale < 0)
    return DataType::Decimal(std::min(std::max(integral, -scale + 1), 38), 0);
  int ns = std::min(s, scale);
  return DataType::Decimal(std::min(integral + ns, 38), ns);
}

Result<ColumnPtr> RoundColumn(const Column& a, const DataTypePtr& type, int scale,
                              RoundMode mode, int64_t n, bool ansi) {
  const DataType& in = *a.type();
  if (in.id() == TypeId::kDecimal) {
    fn::NullMask mask({&a}, n);
    Out<__int128> out(n);
    const __int128* x = a.raw_values<__int128>();
    int s = in.scale();
    int rs = type->scale();
    for (int64_t i = 0; i < n; ++i) {
      if (!mask.Valid(i)) continue;
      __int128 v = x[i];
      if (scale < s) {
        int drop = s - scale;
        if (drop > 38) {
          v = DivRound(v, kernel::Pow10(38), mode);  // |v| < 10^38: rounds to 0 or +-1
          v = 0;
        } else {
          v = DivRound(v, kernel::Pow10(drop), mode);
        }
        // v now has scale `scale`; bring it to the result scale (0 when scale < 0).
        if (scale < 0) {
          int up = rs - scale;
          if (v != 0 && (up > 38 || __builtin_mul_overflow(v, kernel::Pow10(up), &v))) {
            if (ansi) return RoundOverflow();
            mask.SetNull(i);
            continue;
          }
        }
      }
      if (!kernel::FitsPrecision(v, type->precision())) {
        if (ansi) {
          return Status::Error("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
                               {{"value", FormatDecimal(v, rs)},
                                {"precision", std::to_string(type->precision())},
                                {"scale", std::to_string(rs)},
                                {"config", "\"spark.sql.ansi.enabled\""}});
        }
        mask.SetNull(i);
        continue;
      }
      out.data[i] = v;
    }
    return kernel::MakeColumn(type, n, mask.null_count(), mask.validity(), out.buf);
  }
  if (in.IsFloating()) {
    if (in.id() == TypeId::kFloat) {
      Out<float> out(n);
      const float* x = a.raw_values<float>();
      for (int64_t i = 0; i < n; ++i) {
        out.data[i] =
            static_cast<float>(RoundDouble(static_cast<double>(x[i]), scale, mode));
      }
      return kernel::MakeColumn(type, n, a.null_count(), a.validity(), out.buf);
    }
    Out<double> out(n);
    const double* x = a.raw_values<double>();
    for (int64_t i = 0; i < n; ++i) out.data[i] = RoundDouble(x[i], scale, mode);
    return kernel::MakeColumn(type, n, a.null_count(), a.validity(), out.buf);
  }
  // Integral: only negative scales change the value.
  return kernel::DispatchFixed(in, [&]<typename T>() -> Result<ColumnPtr> {
    Out<T> out(n);
    const T* x = a.raw_values<T>();
    if (scale >= 0) {
      std::memcpy(out.data, x, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        __int128 v = x[i];
        __int128 r = 0;
        if (-scale <= 38) {
          __int128 f = kernel::Pow10(-scale);
          r = DivRound(v, f, mode) * f;
        }
        if (r < std::numeric_limits<T>::min() || r > std::numeric_limits<T>::max()) {
          if (ansi && a.IsValid(i)) return RoundOverflow();
        }
        out.data[i] = static_cast<T>(r);
      }
    }
    return kernel::MakeColumn(type, n, a.null_count(), a.validity(), out.buf);
  });
}

Result<BoundExprPtr> ResolveRound(const std::string& name, RoundMode mode,
                                  std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 2, "[1, 2]"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToNumericArg(name, args, 0));
  int scale = 0;
  bool null_scale = false;
  if (args.size() == 2) {
    const DataType& st = *args[1]->type();
    if (!(st.IsIntegral() || st.id() == TypeId::kNull)) {
      return fn::UnexpectedType(name, args, 1, "\"INT\"");
    }
    const Value* v = args[1]->literal_value();
    if (!v) {
      return fn::NonFoldableInput(fn::CallSql(name, args), "scale", "INT", *args[1]);
    }
    if (v->is_null()) {
      null_scale = true;
    } else {
      scale = static_cast<int>(v->i64());
    }
  }
  const DataTypePtr& in = args[0]->type();
  DataTypePtr type = in->id() == TypeId::kDecimal ? RoundedDecimalType(*in, scale) : in;
  std::vector<BoundExprPtr> children{args[0]};
  if (args.size() == 2) children.push_back(args[1]);
  return MakeScalarCall(
      name, type, true, std::move(children),  // Spark's RoundBase: nullable
      [type, scale, mode, null_scale](const std::vector<ColumnPtr>& c, int64_t n,
                                      const EvalContext& ctx) -> Result<ColumnPtr> {
        if (null_scale) return Column::MakeNull(type, n);
        return RoundColumn(*c[0], type, scale, mode, n, ctx.ansi);
      });
}

// ceil / floor: decimal(p, s) -> decimal(p - s + 1, 0); everything else -> bigint. With a
// scale argument they round like round() in CEILING / FLOOR mode (Spark's RoundCeil /
// RoundFloor, over decimals).
Result<BoundExprPtr> ResolveCeilFloor(const std::string& name, bool ceil,
                                      std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 2, "[1, 2]"));
  RoundMode mode = ceil ? RoundMode::kCeiling : RoundMode::kFloor;
  if (args.size() == 2) {
    const DataType& t = *args[0]->type();
    if (!t.IsNumeric() && t.id() != TypeId::kNull && t.id() != TypeId::kString) {
      return fn::UnexpectedType(name, args, 0, "(\"DECIMAL\" or \"INTEGRAL\")");
    }
    if (t.IsFloating() || t.id() == TypeId::kNull || t.id() == TypeId::kString) {
      SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Decimal(30, 15)));
    } else if (t.IsIntegral()) {
      SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DecimalForIntegral(t)));
    }
    SPATE_ASSIGN_OR_RETURN(auto r, ResolveRound(name, mode, std::move(args)));
    return r;
  }
  const DataType& t = *args[0]->type();
  if (!(t.IsNumeric() || t.id() == TypeId::kNull || t.id() == TypeId::kString)) {
    return fn::UnexpectedType(name, args, 0, "(\"DOUBLE\" or \"DECIMAL\" or \"BIGINT\")");
  }
  if (t.id() == TypeId::kDecimal) {
    DataTypePtr type = DataType::Decimal(std::min(t.precision() - t.scale() + 1, 38), 0);
    return MakeScalarCall(
        name, type, true, args,  // Spark's Ceil/Floor are UnaryMathExpressions: nullable
        [type, mode](const std::vector<ColumnPtr>& c, int64_t n, const EvalContext& ctx) {
          return RoundColumn(*c[0], type, 0, mode, n, ctx.ansi);
        });
  }
  if (t.IsIntegral()) return ImplicitCast(args[0], DataType::Long());
  SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Double()));
  return MakeScalarCall(name, DataType::Long(), true, args,
                        [ceil](const std::vector<ColumnPtr>& c, int64_t n,
                               const EvalContext&) -> Result<ColumnPtr> {
                          Out<int64_t> out(n);
                          const double* x = c[0]->raw_values<double>();
                          // Java's (long) conversion: saturating, NaN -> 0.
                          auto to_long = [](double d) -> int64_t {
                            if (std::isnan(d)) return 0;
                            if (d >= 9223372036854775807.0)
                              return std::numeric_limits<int64_t>::max();
                            if (d <= -9223372036854775808.0)
                              return std::numeric_limits<int64_t>::min();
                            return static_cast<int64_t>(d);
                          };
                          if (ceil) {
                            for (int64_t i = 0; i < n; ++i)
                              out.data[i] = to_long(std::ceil(x[i]));
                          } else {
                            for (int64_t i = 0; i < n; ++i)
                              out.data[i] = to_long(std::floor(x[i]));
                          }
                          return kernel::MakeColumn(DataType::Long(), n,
                                                    c[0]->null_count(), c[0]->validity(),
                                                    out.buf);
                        });
}

// ---- pmod
// ------------------------------------------------------------------------------

Result<BoundExprPtr> ResolvePmod(std::vector<BoundExprPtr> args,
                                 const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("pmod", args.size(), 2, 2, "2"));
  const auto* mod = FunctionRegistry::Global().FindScalar("%");
  SPATE_ASSIGN_OR_RETURN(auto r, (*mod)(args, rc));
  DataTypePtr type = r->type();
  if (type->id() == TypeId::kDecimal) {
    // CASE WHEN r < 0 THEN (r + b) % b ELSE r END, cast back to r's type.
    auto& reg = FunctionRegistry::Global();
    SPATE_ASSIGN_OR_RETURN(auto zero, ImplicitCast(MakeLiteral(Value::Int(0)), type));
    SPATE_ASSIGN_OR_RETURN(auto neg, (*reg.FindScalar("<"))({r, zero}, rc));
    SPATE_ASSIGN_OR_RETURN(auto sum, (*reg.FindScalar("+"))({r, args[1]}, rc));
    SPATE_ASSIGN_OR_RETURN(auto wrapped, (*reg.FindScalar("%"))({sum, args[1]}, rc));
    SPATE_ASSIGN_OR_RETURN(wrapped, ImplicitCast(wrapped, type));
    SPATE_ASSIGN_OR_RETURN(auto cw, MakeCaseWhen({neg, wrapped}, r));
    SPATE_ASSIGN_OR_RETURN(cw, ImplicitCast(cw, type));
    return MakeScalarCall(
        "pmod", type, true, {cw},
        [](const std::vector<ColumnPtr>& c, int64_t,
           const EvalContext&) -> Result<ColumnPtr> { return c[0]; },
        [s = std::vector<std::string>{args[0]->ToString(), args[1]->ToString()}](
            const std::vector<std::string>&) { return CallText("pmod", s); });
  }
  // Integral / floating: r = a % b (errors and NULLs as %), then (r + b) % b when r < 0.
  SPATE_ASSIGN_OR_RETURN(auto b, ImplicitCast(args[1], type));
  return MakeScalarCall(
      "pmod", type, true, {r, b},
      [type](const std::vector<ColumnPtr>& c, int64_t n,
             const EvalContext&) -> Result<ColumnPtr> {
        const Column& rc = *c[0];
        return kernel::DispatchFixed(*type, [&]<typename T>() -> Result<ColumnPtr> {
          Out<T> out(n);
          const T* x = rc.raw_values<T>();
          const T* y = c[1]->raw_values<T>();
          for (int64_t i = 0; i < n; ++i) {
            T v = x[i];
            if (v < 0 && y[i] != 0) {
              if constexpr (std::is_floating_point_v<T>) {
                v = std::fmod(v + y[i], y[i]);
              } else if constexpr (sizeof(T) > 8) {
                v = static_cast<T>((v + y[i]) % y[i]);
              } else {
                using U = std::make_unsigned_t<T>;
                T s = static_cast<T>(static_cast<U>(v) + static_cast<U>(y[i]));
                v = y[i] == -1 ? 0 : static_cast<T>(s % y[i]);
              }
            }
            out.data[i] = v;
          }
          return kernel::MakeColumn(type, n, rc.null_count(), rc.validity(), out.buf);
        });
      },
      [a0 = args[0]->ToString()](const std::vector<std::string>& s) {
        return CallText("pmod", {a0, s[1]});
      });
}

// ---- greatest / least
// ------------------------------------------------------------------

template <typename T>
inline bool Better(T a, T b, bool greatest) {
  if constexpr (std::is_floating_point_v<T>) {
    bool an = std::isnan(a), bn = std::isnan(b);
    if (an || bn) return greatest ? (an && !bn) : (bn && !an);
  }
  return greatest ? a > b : a < b;
}

Result<BoundExprPtr> ResolveGreatestLeast(const std::string& name, bool greatest,
                                          std::vector<BoundExprPtr> args) {
  if (args.size() < 2) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`" + name + "`"},
                          {"expectedNum", "> 1"},
                          {"actualNum", std::to_string(args.size())}});
  }
  SPATE_ASSIGN_OR_RETURN(args, CoerceToCommon(args, name));
  DataTypePtr type = args[0]->type();
  if (!IsOrderable(*type)) {
    return Status::Error("DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                         {{"sqlExpr", "\"" + fn::CallSql(name, args) + "\""},
                          {"functionName", "`" + name + "`"},
                          {"dataType", QuoteType(*type)}});
  }
  bool nullable = true;
  for (const auto& a : args) nullable = nullable && a->nullable();
  return MakeScalarCall(
      name, type, nullable, args,
      [type, greatest](const std::vector<ColumnPtr>& c, int64_t n,
                       const EvalContext&) -> Result<ColumnPtr> {
        // best[i] = index of the winning argument (or -1 when all are NULL).
        std::vector<int32_t> best(static_cast<size_t>(n), -1);
        kernel::Phys phys = kernel::PhysicalOf(*type);
        bool fixed = phys != kernel::Phys::kNone && phys != kernel::Phys::kBool &&
                     phys != kernel::Phys::kBytes;
        if (fixed) {
          return kernel::DispatchFixed(*type, [&]<typename T>() -> Result<ColumnPtr> {
            Out<T> out(n);
            auto valid = Buffer::Allocate(bits::BytesFor(n));
            uint8_t* vb = valid->mutable_data();
            for (size_t k = 0; k < c.size(); ++k) {
              const Column& col = *c[k];
              if (col.type_id() == TypeId::kNull) continue;
              const T* x = col.raw_values<T>();
              const uint8_t* cv = col.validity_bits();
              for (int64_t i = 0; i < n; ++i) {
                if (cv && !bits::Get(cv, i)) continue;
                if (!bits::Get(vb, i) || Better(x[i], out.data[i], greatest)) {
                  out.data[i] = x[i];
                  bits::Set(vb, i);
                }
              }
            }
            int64_t nulls = n - bits::CountSet(vb, n);
            return kernel::MakeColumn(type, n, nulls, nulls ? valid : nullptr, out.buf);
          });
        }
        for (size_t k = 0; k < c.size(); ++k) {
          for (int64_t i = 0; i < n; ++i) {
            if (c[k]->IsNull(i)) continue;
            int32_t b = best[static_cast<size_t>(i)];
            if (b < 0) {
              best[static_cast<size_t>(i)] = static_cast<int32_t>(k);
              continue;
            }
            int cmp = CompareValuesAt(*c[k], i, *c[static_cast<size_t>(b)], i);
            if (greatest ? cmp > 0 : cmp < 0)
              best[static_cast<size_t>(i)] = static_cast<int32_t>(k);
          }
        }
        std::vector<uint64_t> refs(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          int32_t b = best[static_cast<size_t>(i)];
          refs[static_cast<size_t>(i)] =
              b < 0 ? ~uint64_t{0}
                    : (static_cast<uint64_t>(b) << 32) | static_cast<uint64_t>(i);
        }
        return TakeMulti(c, refs.data(), n);
      });
}

// ---- isnan / nanvl
// ---------------------------------------------------------------------

Result<BoundExprPtr> ResolveIsNan(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("isnan", args.size(), 1, 1, "1"));
  if (!args[0]->type()->IsFloating()) {
    SPATE_ASSIGN_OR_RETURN(args[0], fn::ToTypeArg("isnan", args, 0, DataType::Double(),
                                                  "(\"DOUBLE\" or \"FLOAT\")"));
  }
  return MakeScalarCall("isnan", DataType::Boolean(), false, args,
                        [](const std::vector<ColumnPtr>& c, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          const Column& a = *c[0];
                          auto out = Buffer::Allocate(bits::BytesFor(n));
                          uint8_t* o = out->mutable_data();
                          if (a.type_id() == TypeId::kFloat) {
                            const float* x = a.raw_values<float>();
                            for (int64_t i = 0; i < n; ++i) {
                              if (std::isnan(x[i]) && a.IsValid(i)) bits::Set(o, i);
                            }
                          } else {
                            const double* x = a.raw_values<double>();
                            for (int64_t i = 0; i < n; ++i) {
                              if (std::isnan(x[i]) && a.IsValid(i)) bits::Set(o, i);
                            }
                          }
                          return kernel::MakeColumn(DataType::Boolean(), n, 0, nullptr,
                                                    out);
                        });
}

Result<BoundExprPtr> ResolveNanvl(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("nanvl", args.size(), 2, 2, "2"));
  DataTypePtr type =
      (args[0]->type()->id() == TypeId::kFloat && args[1]->type()->id() == TypeId::kFloat)
          ? DataType::Float()
          : DataType::Double();
  for (size_t k = 0; k < 2; ++k) {
    SPATE_ASSIGN_OR_RETURN(
        args[k], fn::ToTypeArg("nanvl", args, k, type, "(\"DOUBLE\" or \"FLOAT\")"));
  }
  bool nullable = fn::AnyNullable(args);
  return MakeScalarCall(
      "nanvl", type, nullable, args,
      [type](const std::vector<ColumnPtr>& c, int64_t n,
             const EvalContext&) -> Result<ColumnPtr> {
        return kernel::DispatchFixed(*type, [&]<typename T>() -> Result<ColumnPtr> {
          const Column& a = *c[0];
          const Column& b = *c[1];
          fn::NullMask mask({&a}, n);
          Out<T> out(n);
          const T* x = a.raw_values<T>();
          const T* y = b.raw_values<T>();
          for (int64_t i = 0; i < n; ++i) {
            if (std::isnan(static_cast<double>(x[i])) && mask.Valid(i)) {
              if (b.IsNull(i)) {
                mask.SetNull(i);
              } else {
                out.data[i] = y[i];
              }
            } else {
              out.data[i] = x[i];
            }
          }
          return kernel::MakeColumn(type, n, mask.null_count(), mask.validity(), out.buf);
        });
      });
}

// ---- bits
// ------------------------------------------------------------------------------

enum class Shift : uint8_t { kLeft, kRight, kRightUnsigned };

Result<BoundExprPtr> ResolveShift(const std::string& name, Shift kind, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  TypeId t = args[0]->type()->id();
  DataTypePtr type = t == TypeId::kLong ? DataType::Long() : DataType::Int();
  // Other numbers and strings are cast to INT, as Spark's implicit cast to the first
  // type.
  if (!(args[0]->type()->IsNumeric() || t == TypeId::kNull || t == TypeId::kString)) {
    return fn::UnexpectedType(name, args, 0, "(\"INT\" or \"BIGINT\")");
  }
  SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], type));
  if (!(args[1]->type()->IsIntegral() || args[1]->type()->id() == TypeId::kNull) ||
      args[1]->type()->id() == TypeId::kLong) {
    return fn::UnexpectedType(name, args, 1, "\"INT\"");
  }
  SPATE_ASSIGN_OR_RETURN(args[1], ImplicitCast(args[1], DataType::Int()));
  return MakeScalarCall(
      name, type, fn::AnyNullable(args), args,
      [type, kind](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        const int32_t* s = c[1]->raw_values<int32_t>();
        auto run = [&]<typename T, typename U>() {
          Out<T> out(n);
          const T* x = c[0]->raw_values<T>();
          constexpr int bits = sizeof(T) * 8;
          for (int64_t i = 0; i < n; ++i) {
            int k = s[i] & (bits - 1);  // Java masks the shift count
            switch (kind) {
              case Shift::kLeft:
                out.data[i] = static_cast<T>(static_cast<U>(x[i]) << k);
                break;
              case Shift::kRight:
                out.data[i] = static_cast<T>(x[i] >> k);
                break;
              default:
                out.data[i] = static_cast<T>(static_cast<U>(x[i]) >> k);
                break;
            }
          }
          return kernel::MakeColumn(type, n, mask.null_count(), mask.validity(), out.buf);
        };
        if (type->id() == TypeId::kLong)
          return run.template operator()<int64_t, uint64_t>();
        return run.template operator()<int32_t, uint32_t>();
      },
      [name](const std::vector<std::string>& a) { return CallText(name, a); });
}

// The value of an integral (or boolean) column as a sign-extended 64-bit word.
int64_t IntegralAt(const Column& c, int64_t i) {
  switch (c.type_id()) {
    case TypeId::kByte:
      return c.raw_values<int8_t>()[i];
    case TypeId::kShort:
      return c.raw_values<int16_t>()[i];
    case TypeId::kInt:
      return c.raw_values<int32_t>()[i];
    case TypeId::kLong:
      return c.raw_values<int64_t>()[i];
    default:
      return c.IsValid(i) && bits::Get(c.raw_values<uint8_t>(), i) ? 1 : 0;
  }
}

int BitWidth(TypeId t) {
  return t == TypeId::kByte ? 8 : t == TypeId::kShort ? 16 : t == TypeId::kInt ? 32 : 64;
}

Result<BoundExprPtr> ResolveBitCount(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("bit_count", args.size(), 1, 1, "1"));
  const DataType& t = *args[0]->type();
  if (!(t.IsIntegral() || t.id() == TypeId::kBoolean || t.id() == TypeId::kNull)) {
    return fn::UnexpectedType("bit_count", args, 0, "(\"INTEGRAL\" or \"BOOLEAN\")");
  }
  if (t.id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Int()));
  }
  return MakeScalarCall(
      "bit_count", DataType::Int(), args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        Out<int32_t> out(n);
        for (int64_t i = 0; i < n; ++i)
          out.data[i] = std::popcount(static_cast<uint64_t>(IntegralAt(*c[0], i)));
        return kernel::MakeColumn(DataType::Int(), n, c[0]->null_count(),
                                  c[0]->validity(), out.buf);
      });
}

Result<BoundExprPtr> ResolveBitGet(const std::string& name, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  const DataType& t = *args[0]->type();
  if (!(t.IsIntegral() || t.id() == TypeId::kNull)) {
    return fn::UnexpectedType(name, args, 0, "\"INTEGRAL\"");
  }
  if (t.id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Int()));
  }
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg(name, args, 1));
  int width = BitWidth(args[0]->type()->id());
  return MakeScalarCall(
      name, DataType::Byte(), fn::AnyNullable(args), args,
      [width](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        Out<int8_t> out(n);
        const int32_t* pos = c[1]->raw_values<int32_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          if (pos[i] < 0 || pos[i] >= width) {
            return Status::Error("INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE",
                                 {{"parameter", "`pos`"},
                                  {"functionName", "`bit_get`"},
                                  {"upper", std::to_string(width)},
                                  {"invalidValue", std::to_string(pos[i])}});
          }
          out.data[i] = static_cast<int8_t>(
              (static_cast<uint64_t>(IntegralAt(*c[0], i)) >> pos[i]) & 1);
        }
        return kernel::MakeColumn(DataType::Byte(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

Result<BoundExprPtr> ResolveBin(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("bin", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0],
                         fn::ToTypeArg("bin", args, 0, DataType::Long(), "\"BIGINT\""));
  return MakeScalarCall(
      "bin", DataType::String(), args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        const int64_t* x = c[0]->raw_values<int64_t>();
        return fn::MapToString(DataType::String(), mask, n,
                               [&](int64_t i, std::string* out) {
                                 auto u = static_cast<uint64_t>(x[i]);
                                 if (u == 0) out->push_back('0');
                                 for (int b = 63 - (u == 0 ? 63 : std::countl_zero(u));
                                      u != 0 && b >= 0; --b) {
                                   out->push_back(((u >> b) & 1) ? '1' : '0');
                                 }
                                 return true;
                               });
      });
}

Result<BoundExprPtr> ResolveFactorial(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("factorial", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToIntArg("factorial", args, 0));
  return MakeScalarCall(
      "factorial", DataType::Long(), true, args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        Out<int64_t> out(n);
        const int32_t* x = c[0]->raw_values<int32_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          if (x[i] < 0 || x[i] > 20) {
            mask.SetNull(i);
            continue;
          }
          int64_t f = 1;
          for (int k = 2; k <= x[i]; ++k) f *= k;
          out.data[i] = f;
        }
        return kernel::MakeColumn(DataType::Long(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

// width_bucket(value, min, max, n): the 1-based bucket of value among n equal buckets of
// [min, max) (descending when min > max); 0 below, n + 1 above; NULL for n <= 0, equal or
// non-finite bounds.
Result<BoundExprPtr> ResolveWidthBucket(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("width_bucket", args.size(), 4, 4, "4"));
  for (size_t k = 0; k < 3; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToTypeArg("width_bucket", args, k,
                                                  DataType::Double(), "\"DOUBLE\""));
  }
  SPATE_ASSIGN_OR_RETURN(
      args[3], fn::ToTypeArg("width_bucket", args, 3, DataType::Long(), "\"BIGINT\""));
  return MakeScalarCall(
      "width_bucket", DataType::Long(), true, args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get(), c[2].get(), c[3].get()}, n);
        Out<int64_t> out(n);
        const double* v = c[0]->raw_values<double>();
        const double* lo = c[1]->raw_values<double>();
        const double* hi = c[2]->raw_values<double>();
        const int64_t* nb = c[3]->raw_values<int64_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          double x = v[i], a = lo[i], b = hi[i];
          int64_t k = nb[i];
          if (k <= 0 || k == INT64_MAX || std::isnan(x) || a == b || !std::isfinite(a) ||
              !std::isfinite(b)) {
            mask.SetNull(i);
            continue;
          }
          double lower = std::min(a, b), upper = std::max(a, b);
          if (a < b) {
            out.data[i] = x < lower ? 0
                          : x >= upper
                              ? k + 1
                              : static_cast<int64_t>(static_cast<double>(k) *
                                                     (x - lower) / (upper - lower)) +
                                    1;
          } else {
            out.data[i] = x > upper ? 0
                          : x <= lower
                              ? k + 1
                              : static_cast<int64_t>(static_cast<double>(k) *
                                                     (upper - x) / (upper - lower)) +
                                    1;
          }
        }
        return kernel::MakeColumn(DataType::Long(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

// bitmap_bucket_number / bitmap_bit_position: where a value lands among Spark's bitmaps
// of 32768 bits (4096 bytes); bitmap_count: the bits set in a bitmap.
constexpr int64_t kBitmapBits = 8 * 4096;

Result<BoundExprPtr> ResolveBitmapPlace(const std::string& name, bool bucket, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  if (!(args[0]->type()->IsIntegral() || args[0]->type()->id() == TypeId::kNull)) {
    return fn::UnexpectedType(name, args, 0, "\"BIGINT\"");
  }
  SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Long()));
  return MakeScalarCall(
      name, DataType::Long(), args[0]->nullable(), args,
      [bucket](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const int64_t* x = c[0]->raw_values<int64_t>();
        Out<int64_t> out(n);
        for (int64_t i = 0; i < n; ++i) {
          int64_t v = x[i];
          out.data[i] = bucket ? (v > 0 ? 1 + (v - 1) / kBitmapBits : v / kBitmapBits)
                               : (v > 0 ? (v - 1) % kBitmapBits : (-v) % kBitmapBits);
        }
        return kernel::MakeColumn(DataType::Long(), n, c[0]->null_count(),
                                  c[0]->validity(), out.buf);
      });
}

Result<BoundExprPtr> ResolveBitmapCount(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("bitmap_count", args.size(), 1, 1, "1"));
  if (args[0]->type()->id() != TypeId::kBinary)
    return fn::UnexpectedType("bitmap_count", args, 0, "\"BINARY\"");
  return MakeScalarCall(
      "bitmap_count", DataType::Long(), args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        Out<int64_t> out(n);
        for (int64_t i = 0; i < n; ++i) {
          int64_t bits_set = 0;
          for (unsigned char b : c[0]->GetView(i))
            bits_set += std::popcount(static_cast<unsigned>(b));
          out.data[i] = bits_set;
        }
        return kernel::MakeColumn(DataType::Long(), n, c[0]->null_count(),
                                  c[0]->validity(), out.buf);
      });
}

// conv(num, from_base, to_base): Spark's NumberConverter. The digits (after an optional
// '-', up to the first one invalid in from_base) are read as an unsigned 64-bit number; a
// negative input is its two's complement unless to_base < 0 asks for a signed result.
// Overflow: ARITHMETIC_OVERFLOW with ANSI, else all ones.
Result<BoundExprPtr> ResolveConv(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("conv", args.size(), 3, 3, "3"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg("conv", args, 0));
  for (size_t k = 1; k < 3; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToIntArg("conv", args, k));
  }
  return MakeScalarCall(
      "conv", DataType::String(), true, args,
      [](const Cols& c, int64_t n, const EvalContext& ctx) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        const int32_t* from = c[1]->raw_values<int32_t>();
        const int32_t* to = c[2]->raw_values<int32_t>();
        bool overflow = false;
        auto col = fn::MapToString(
            DataType::String(), mask, n, [&](int64_t i, std::string* out) {
              int32_t fb = from[i], tb = to[i];
              if (fb < 2 || fb > 36 || std::abs(tb) < 2 || std::abs(tb) > 36)
                return false;
              std::string_view s = c[0]->GetView(i);
              while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
              while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
              if (s.empty()) return false;
              bool negative = s[0] == '-';
              uint64_t v = 0;
              for (size_t k = negative ? 1 : 0; k < s.size(); ++k) {
                char ch = s[k];
                int d = ch >= '0' && ch <= '9'   ? ch - '0'
                        : ch >= 'a' && ch <= 'z' ? ch - 'a' + 10
                        : ch >= 'A' && ch <= 'Z' ? ch - 'A' + 10
                                                 : 99;
                if (d >= fb) break;
                auto base = static_cast<uint64_t>(fb);
                if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / base) {
                  if (ctx.ansi) {
                    overflow = true;
                    return false;
                  }
                  v = UINT64_MAX;
                  break;
                }
                v = v * base + static_cast<uint64_t>(d);
              }
              if (negative && tb > 0)
                v = static_cast<int64_t>(v) < 0 ? UINT64_MAX : ~v + 1;
              if (tb < 0 && static_cast<int64_t>(v) < 0) {
                v = ~v + 1;
                negative = true;
              }
              static const char kDigits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
              auto base = static_cast<uint64_t>(std::abs(tb));
              std::string digits;
              do {
                digits.push_back(kDigits[v % base]);
                v /= base;
              } while (v != 0);
              if (negative && tb < 0) digits.push_back('-');
              out->assign(digits.rbegin(), digits.rend());
              return true;
            });
        if (overflow) {
          return Status::Error("ARITHMETIC_OVERFLOW",
                               {{"message", "Overflow in function conv()"},
                                {"alternative", ""},
                                {"config", "\"spark.sql.ansi.enabled\""}});
        }
        return col;
      });
}

}  // namespace

void RegisterMathFunctions(FunctionRegistry& r) {
  struct UnaryDef {
    const char* name;
    double (*f)(double);
    NullRule rule;
  };
  for (const UnaryDef& d : {UnaryDef{"sqrt", Sqrt, NullRule::kNone},
                            UnaryDef{"cbrt", Cbrt, NullRule::kNone},
                            UnaryDef{"exp", Exp, NullRule::kNone},
                            UnaryDef{"ln", Ln, NullRule::kNonPositive},
                            UnaryDef{"log10", Log10, NullRule::kNonPositive},
                            UnaryDef{"log2", Log2, NullRule::kNonPositive},
                            UnaryDef{"sign", Signum, NullRule::kNone},
                            UnaryDef{"signum", Signum, NullRule::kNone},
                            UnaryDef{"sin", Sin, NullRule::kNone},
                            UnaryDef{"cos", Cos, NullRule::kNone},
                            UnaryDef{"tan", Tan, NullRule::kNone},
                            UnaryDef{"asin", Asin, NullRule::kNone},
                            UnaryDef{"acos", Acos, NullRule::kNone},
                            UnaryDef{"atan", Atan, NullRule::kNone},
                            UnaryDef{"sinh", Sinh, NullRule::kNone},
                            UnaryDef{"cosh", Cosh, NullRule::kNone},
                            UnaryDef{"tanh", Tanh, NullRule::kNone},
                            UnaryDef{"asinh", Asinh, NullRule::kNone},
                            UnaryDef{"acosh", Acosh, NullRule::kNone},
                            UnaryDef{"atanh", Atanh, NullRule::kNone},
                            UnaryDef{"cot", Cot, NullRule::kNone},
                            UnaryDef{"csc", Csc, NullRule::kNone},
                            UnaryDef{"sec", Sec, NullRule::kNone},
                            UnaryDef{"degrees", Degrees, NullRule::kNone},
                            UnaryDef{"radians", Radians, NullRule::kNone},
                            UnaryDef{"expm1", Expm1, NullRule::kNone},
                            UnaryDef{"log1p", Log1p, NullRule::kLeMinusOne},
                            UnaryDef{"rint", Rint, NullRule::kNone}}) {
    std::string name = d.name;
    auto f = d.f;
    auto rule = d.rule;
    r.RegisterScalar(name, [name, f, rule](const std::vector<BoundExprPtr>& args,
                                           const ResolveContext&) {
      return ResolveDoubleUnary(name, args, f, rule);
    });
  }
  r.RegisterScalar(
      "log",
      [](const std::vector<BoundExprPtr>& args,
         const ResolveContext&) -> Result<BoundExprPtr> {
        SPATE_RETURN_IF_ERROR(fn::CheckArgs("log", args.size(), 1, 2, "[1, 2]"));
        if (args.size() == 1)
          return ResolveDoubleUnary("ln", args, Ln, NullRule::kNonPositive);
        return ResolveDoubleBinary("log", args, true);
      });
  for (const char* name : {"pow", "power"}) {
    r.RegisterScalar(
        name, [name](const std::vector<BoundExprPtr>& args, const ResolveContext&) {
          return ResolveDoubleBinary(name, args, false);
        });
  }
  r.RegisterScalar("atan2", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveDoubleBinary("atan2", std::move(args), false, Atan2);
  });
  r.RegisterScalar("hypot", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveDoubleBinary("hypot", std::move(args), false, Hypot);
  });
  for (auto [name, value] : {std::pair<const char*, double>{"pi", M_PI}, {"e", M_E}}) {
    std::string n = name;
    double v = value;
    r.RegisterScalar(n,
                     [n, v](const std::vector<BoundExprPtr>& args,
                            const ResolveContext&) -> Result<BoundExprPtr> {
                       SPATE_RETURN_IF_ERROR(fn::CheckArgs(n, args.size(), 0, 0, "0"));
                       return MakeScalarCall(
                           n, DataType::Double(), false, {},
                           [v](const std::vector<ColumnPtr>&, int64_t rows,
                               const EvalContext&) -> Result<ColumnPtr> {
                             return MakeConstantColumn(Value::Double(v), rows);
                           },
                           [n](const std::vector<std::string>&) {
                             return std::string(n == "pi" ? "PI()" : "E()");
                           });
                     });
  }
  r.RegisterScalar("abs", ResolveAbs);
  r.RegisterScalar("round", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveRound("round", RoundMode::kHalfUp, std::move(args));
  });
  r.RegisterScalar("bround", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveRound("bround", RoundMode::kHalfEven, std::move(args));
  });
  for (const char* name : {"ceil", "ceiling"}) {
    r.RegisterScalar(name, [name](std::vector<BoundExprPtr> args, const ResolveContext&) {
      return ResolveCeilFloor(name, true, std::move(args));
    });
  }
  r.RegisterScalar("floor", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveCeilFloor("floor", false, std::move(args));
  });
  r.RegisterScalar("pmod", ResolvePmod);
  r.RegisterScalar("greatest", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveGreatestLeast("greatest", true, std::move(args));
  });
  r.RegisterScalar("least", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveGreatestLeast("least", false, std::move(args));
  });
  r.RegisterScalar("isnan", ResolveIsNan);
  r.RegisterScalar("nanvl", ResolveNanvl);
  r.RegisterScalar("shiftleft", [](Args a, const ResolveContext&) {
    return ResolveShift("shiftleft", Shift::kLeft, std::move(a));
  });
  r.RegisterScalar("shiftright", [](Args a, const ResolveContext&) {
    return ResolveShift("shiftright", Shift::kRight, std::move(a));
  });
  r.RegisterScalar("shiftrightunsigned", [](Args a, const ResolveContext&) {
    return ResolveShift("shiftrightunsigned", Shift::kRightUnsigned, std::move(a));
  });
  r.RegisterScalar("bit_count", ResolveBitCount);
  for (const char* name : {"bit_get", "getbit"}) {
    r.RegisterScalar(name, [name](const Args& a, const ResolveContext&) {
      return ResolveBitGet(name, a);
    });
  }
  r.RegisterScalar("bin", ResolveBin);
  r.RegisterScalar("factorial", ResolveFactorial);
  r.RegisterScalar("width_bucket", ResolveWidthBucket);
  r.RegisterScalar("bitmap_bucket_number", [](Args a, const ResolveContext&) {
    return ResolveBitmapPlace("bitmap_bucket_number", true, std::move(a));
  });
  r.RegisterScalar("bitmap_bit_position", [](Args a, const ResolveContext&) {
    return ResolveBitmapPlace("bitmap_bit_position", false, std::move(a));
  });
  r.RegisterScalar("bitmap_count", ResolveBitmapCount);
  r.RegisterScalar("conv", ResolveConv);
}

}  // namespace spate
