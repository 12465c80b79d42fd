// Copyright spate authors.
// Arithmetic operators: + - * / % div, unary minus/plus, with Spark's result types,
// decimal precision rules and ANSI overflow / division-by-zero errors.

#include <cmath>
#include <limits>
#include <utility>

#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/datetime_functions.h"
#include "spate/compute/decimal_math.h"
#include "spate/compute/function_args.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/kernel_columns.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using fn::NullMask;
using kernel::Out;

enum class ArithOp : uint8_t { kAdd, kSub, kMul, kDiv, kMod, kIntDiv };

const char* OpSymbol(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd:
      return "+";
    case ArithOp::kSub:
      return "-";
    case ArithOp::kMul:
      return "*";
    case ArithOp::kDiv:
      return "/";
    case ArithOp::kMod:
      return "%";
    case ArithOp::kIntDiv:
      return "div";
  }
  return "?";
}

const char* TryName(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd:
      return "try_add";
    case ArithOp::kSub:
      return "try_subtract";
    case ArithOp::kMul:
      return "try_multiply";
    case ArithOp::kDiv:
    case ArithOp::kIntDiv:
      return "try_divide";
    case ArithOp::kMod:
      return "try_mod";
  }
  return "try_add";
}

// TINYINT and SMALLINT overflow (Spark checks the widened result): the operands as SQL
// literals (127Y, 1S), the operator and the try_ function.
template <typename T>
Status NarrowOverflowError(const DataType& t, ArithOp op, T x, T y) {
  const char* suffix = t.id() == TypeId::kByte ? "Y" : "S";
  return Status::Error("BINARY_ARITHMETIC_OVERFLOW",
                       {{"value1", std::to_string(x) + suffix},
                        {"symbol", OpSymbol(op)},
                        {"value2", std::to_string(y) + suffix},
                        {"functionName", std::string("`") + TryName(op) + "`"}});
}

Status OverflowError(const DataType& t, ArithOp op) {
  if (op == ArithOp::kIntDiv) {
    return Status::Error(
        "ARITHMETIC_OVERFLOW",
        {{"message", "Overflow in integral divide"},
         {"alternative",
          " Use 'try_divide' to tolerate overflow and return NULL instead."},
         {"config", "\"spark.sql.ansi.enabled\""}});
  }
  std::string what = t.id() == TypeId::kLong    ? "long"
                     : t.id() == TypeId::kShort ? "short"
                     : t.id() == TypeId::kByte  ? "byte"
                                                : "integer";
  return Status::Error(
      "ARITHMETIC_OVERFLOW",
      {{"message", what + " overflow"},
       {"alternative", std::string(" Use '") + TryName(op) +
                           "' to tolerate overflow and return NULL instead."},
       {"config", "\"spark.sql.ansi.enabled\""}});
}

Status DivideByZeroError() {
  return Status::Error("DIVIDE_BY_ZERO", {{"config", "\"spark.sql.ansi.enabled\""}});
}

Status DecimalOverflowError(__int128 v, const DataType& t) {
  return Status::Error("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
                       {{"value", FormatDecimal(v, t.scale())},
                        {"precision", std::to_string(t.precision())},
                        {"scale", std::to_string(t.scale())},
                        {"config", "\"spark.sql.ansi.enabled\""}});
}

// Integral ops with overflow detection. Returns false on overflow.
template <typename T>
bool IntOp(ArithOp op, T a, T b, T* out) {
  switch (op) {
    case ArithOp::kAdd:
      return !__builtin_add_overflow(a, b, out);
    case ArithOp::kSub:
      return !__builtin_sub_overflow(a, b, out);
    case ArithOp::kMul:
      return !__builtin_mul_overflow(a, b, out);
    case ArithOp::kMod:
      if (b == -1) {
        *out = 0;
        return true;
      }
      *out = static_cast<T>(a % b);
      return true;
    case ArithOp::kIntDiv:
      if (a == std::numeric_limits<T>::min() && b == -1) {
        *out = a;
        return false;
      }
      *out = static_cast<T>(a / b);
      return true;
    default:
      return true;
  }
}

// Binary op over integral columns. Division/modulo by zero -> error (ANSI) or null.
// A division-like op (div, mod, /, %) over columns of T: a zero divisor makes the row
// NULL, or fails under ANSI; f(x, y, &r) computes the other rows and says false on
// overflow (which fails under ANSI and keeps r otherwise).
template <typename T, typename F>
Result<ColumnPtr> DivisionKernel(ArithOp op, const DataTypePtr& type, const Column& a,
                                 const Column& b, int64_t n, bool ansi, F&& f) {
  NullMask mask({&a, &b}, n);
  Out<T> out(n);
  const T* x = a.raw_values<T>();
  const T* y = b.raw_values<T>();
  for (int64_t i = 0; i < n; ++i) {
    if (!mask.Valid(i)) continue;
    if (y[i] == 0) {
      if (ansi) return DivideByZeroError();
      mask.SetNull(i);
      continue;
    }
    if (!f(x[i], y[i], &out.data[i]) && ansi) return OverflowError(*type, op);
  }
  return kernel::MakeColumn(type, n, mask.null_count(), mask.validity(), out.buf);
}

template <typename T>
Result<ColumnPtr> IntegralKernel(ArithOp op, const DataTypePtr& type, const Column& a,
                                 const Column& b, int64_t n, bool ansi) {
  if (op != ArithOp::kMod && op != ArithOp::kIntDiv) {
    int64_t nulls = 0;
    BufferPtr validity = kernel::AndValidity({&a, &b}, n, &nulls);
    Out<T> out(n);
    const T* x = a.raw_values<T>();
    const T* y = b.raw_values<T>();
    int64_t overflow = -1;
    for (int64_t i = 0; i < n; ++i) {
      T r;
      bool ok = IntOp<T>(op, x[i], y[i], &r);
      if (!ok && overflow < 0 && kernel::Valid(validity, i)) overflow = i;
      out.data[i] = r;
    }
    if (overflow >= 0) {
      if (ansi && sizeof(T) < 4)
        return NarrowOverflowError<T>(*type, op, x[overflow], y[overflow]);
      if (ansi) return OverflowError(*type, op);
      // Legacy: wrap-around, which is what the builtins stored.
    }
    return kernel::MakeColumn(type, n, nulls, validity, out.buf);
  }
  // div / mod: zero divisors (NULL unless ANSI).
  return DivisionKernel<T>(op, type, a, b, n, ansi,
                           [op](T u, T v, T* r) { return IntOp<T>(op, u, v, r); });
}

template <typename T>
Result<ColumnPtr> FloatKernel(ArithOp op, const DataTypePtr& type, const Column& a,
                              const Column& b, int64_t n, bool ansi) {
  if (op == ArithOp::kDiv || op == ArithOp::kMod) {
    return DivisionKernel<T>(op, type, a, b, n, ansi, [op](T u, T v, T* r) {
      *r = op == ArithOp::kDiv ? u / v : std::fmod(u, v);
      return true;
    });
  }
  int64_t nulls = 0;
  BufferPtr validity = kernel::AndValidity({&a, &b}, n, &nulls);
  Out<T> out(n);
  const T* x = a.raw_values<T>();
  const T* y = b.raw_values<T>();
  switch (op) {
    case ArithOp::kAdd:
      for (int64_t i = 0; i < n; ++i) out.data[i] = x[i] + y[i];
      break;
    case ArithOp::kSub:
      for (int64_t i = 0; i < n; ++i) out.data[i] = x[i] - y[i];
      break;
    case ArithOp::kMul:
      for (int64_t i = 0; i < n; ++i) out.data[i] = x[i] * y[i];
      break;
    default:
      break;
  }
  return kernel::MakeColumn(type, n, nulls, validity, out.buf);
}

// Decimal op: inputs rescaled to a common scale as needed; result in `type`.
Result<ColumnPtr> DecimalKernel(ArithOp op, const DataTypePtr& type, const Column& a,
                                const Column& b, int64_t n, bool ansi) {
  NullMask mask({&a, &b}, n);
  Out<__int128> out(n);
  const __int128* x = a.raw_values<__int128>();
  const __int128* y = b.raw_values<__int128>();
  int sa = a.type()->scale(), sb = b.type()->scale(), rs = type->scale();
  int rp = type->precision();
  for (int64_t i = 0; i < n; ++i) {
    if (!mask.Valid(i)) continue;
    __int128 r = 0;
    bool ok = true;
    switch (op) {
      case ArithOp::kAdd:
      case ArithOp::kSub: {
        int s = std::max(sa, sb);
        __int128 xa, yb;
        ok = !__builtin_mul_overflow(x[i], kernel::Pow10(s - sa), &xa) &&
             !__builtin_mul_overflow(y[i], kernel::Pow10(s - sb), &yb);
        if (ok) {
          ok = op == ArithOp::kAdd ? !__builtin_add_overflow(xa, yb, &r)
                                   : !__builtin_sub_overflow(xa, yb, &r);
        }
        if (ok && s > rs) r = kernel::DivRoundHalfUp(r, kernel::Pow10(s - rs));
        break;
      }
      case ArithOp::kMul: {
        int s = sa + sb;
        if (s >= rs) {
          ok = kernel::MulRescale(x[i], y[i], s - rs, &r);
        } else {
          ok = !__builtin_mul_overflow(x[i], y[i], &r) &&
               !__builtin_mul_overflow(r, kernel::Pow10(rs - s), &r);
        }
        break;
      }
      case ArithOp::kDiv:
      case ArithOp::kMod:
      case ArithOp::kIntDiv: {
        if (y[i] == 0) {
          if (ansi) return DivideByZeroError();
          mask.SetNull(i);
          continue;
        }
        if (op == ArithOp::kDiv) {
          // x/10^sa / (y/10^sb) = x*10^(rs - sa + sb) / y  (scaled to rs)
          int shift = rs - sa + sb;
          __int128 num;
          if (shift >= 0) {
            ok = !__builtin_mul_overflow(x[i], kernel::Pow10(shift), &num);
            if (ok) r = kernel::DivRoundHalfUp(num, y[i]);
          } else {
            r = kernel::DivRoundHalfUp(x[i], y[i] * kernel::Pow10(-shift));
          }
        } else {
          int s = std::max(sa, sb);
          __int128 xa, yb;
          ok = !__builtin_mul_overflow(x[i], kernel::Pow10(s - sa), &xa) &&
               !__builtin_mul_overflow(y[i], kernel::Pow10(s - sb), &yb);
          if (ok) {
            if (op == ArithOp::kMod) {
              r = xa % yb;
              if (s > rs) r = kernel::DivRoundHalfUp(r, kernel::Pow10(s - rs));
            } else {
              r = xa / yb;  // truncated quotient; result type is bigint-valued decimal
            }
          }
        }
        break;
      }
    }
    if (!ok || !kernel::FitsPrecision(r, rp)) {
      if (ansi) return DecimalOverflowError(r, *type);
      mask.SetNull(i);
      continue;
    }
    out.data[i] = r;
  }
  return kernel::MakeColumn(type, n, mask.null_count(), mask.validity(), out.buf);
}

Result<ColumnPtr> RunArith(ArithOp op, const DataTypePtr& type, const ColumnPtr& a,
                           const ColumnPtr& b, int64_t n, bool ansi) {
  switch (kernel::PhysicalOf(*type)) {
    case kernel::Phys::kI8:
      return IntegralKernel<int8_t>(op, type, *a, *b, n, ansi);
    case kernel::Phys::kI16:
      return IntegralKernel<int16_t>(op, type, *a, *b, n, ansi);
    case kernel::Phys::kI32:
      return IntegralKernel<int32_t>(op, type, *a, *b, n, ansi);
    case kernel::Phys::kI64:
      return IntegralKernel<int64_t>(op, type, *a, *b, n, ansi);
    case kernel::Phys::kF32:
      return FloatKernel<float>(op, type, *a, *b, n, ansi);
    case kernel::Phys::kF64:
      return FloatKernel<double>(op, type, *a, *b, n, ansi);
    case kernel::Phys::kI128:
      return DecimalKernel(op, type, *a, *b, n, ansi);
    default:
      return Status::Internal("arithmetic on unsupported type " + type->SimpleString());
  }
}

Status TypeMismatch(ArithOp op, const BoundExprPtr& a, const BoundExprPtr& b) {
  std::string sql = "(" + a->ToString() + " " + OpSymbol(op) + " " + b->ToString() + ")";
  if (!a->type()->SameType(*b->type())) {
    return Status::Error("DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES",
                         {{"sqlExpr", "\"" + sql + "\""},
                          {"left", QuoteType(*a->type())},
                          {"right", QuoteType(*b->type())}});
  }
  return Status::Error("DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE",
                       {{"sqlExpr", "\"" + sql + "\""},
                        {"inputType",
                         "(\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR "
                         "TO MONTH\" or \"INTERVAL\")"},
                        {"actualDataType", QuoteType(*a->type())}});
}

// Date/time arithmetic: returns nullptr if the operand types are not date/time ones.
Result<BoundExprPtr> ResolveDatetimeArith(ArithOp op, const BoundExprPtr& a,
                                          const BoundExprPtr& b) {
  TypeId ta = a->type()->id(), tb = b->type()->id();
  auto sym = std::string(OpSymbol(op));
  auto display = [sym](const std::vector<std::string>& s) {
    return "(" + s[0] + " " + sym + " " + s[1] + ")";
  };
  bool is_ts = ta == TypeId::kTimestamp || ta == TypeId::kTimestampNtz;
  // timestamp +/- day-time interval
  if ((op == ArithOp::kAdd || op == ArithOp::kSub) && is_ts &&
      tb == TypeId::kDayTimeInterval) {
    bool sub = op == ArithOp::kSub;
    return MakeScalarCall(
        sym, a->type(), a->nullable() || b->nullable(), {a, b},
        [sub](const std::vector<ColumnPtr>& args, int64_t n,
              const EvalContext& ctx) -> Result<ColumnPtr> {
          int64_t nulls = 0;
          BufferPtr validity =
              kernel::AndValidity({args[0].get(), args[1].get()}, n, &nulls);
          Out<int64_t> out(n);
          const int64_t* x = args[0]->raw_values<int64_t>();
          const int64_t* y = args[1]->raw_values<int64_t>();
          for (int64_t i = 0; i < n; ++i) {
            bool ovf = sub ? __builtin_sub_overflow(x[i], y[i], &out.data[i])
                           : __builtin_add_overflow(x[i], y[i], &out.data[i]);
            if (ovf && kernel::Valid(validity, i)) {
              return Status::Error("DATETIME_OVERFLOW", {{"operation", "add interval"}});
            }
          }
          return kernel::MakeColumn(args[0]->type(), n, nulls, validity, out.buf);
        },
        display);
  }
  // date +/- int -> date ; date - date -> interval day
  if (ta == TypeId::kDate && (b->type()->IsIntegral()) &&
      (op == ArithOp::kAdd || op == ArithOp::kSub)) {
    SPATE_ASSIGN_OR_RETURN(auto bi, ImplicitCast(b, DataType::Int()));
    bool sub = op == ArithOp::kSub;
    return MakeScalarCall(
        sub ? "date_sub" : "date_add", DataType::Date(), a->nullable() || bi->nullable(),
        {a, bi},
        [sub](const std::vector<ColumnPtr>& args, int64_t n,
              const EvalContext&) -> Result<ColumnPtr> {
          int64_t nulls = 0;
          BufferPtr validity =
              kernel::AndValidity({args[0].get(), args[1].get()}, n, &nulls);
          Out<int32_t> out(n);
          const int32_t* x = args[0]->raw_values<int32_t>();
          const int32_t* y = args[1]->raw_values<int32_t>();
          for (int64_t i = 0; i < n; ++i) out.data[i] = sub ? x[i] - y[i] : x[i] + y[i];
          return kernel::MakeColumn(DataType::Date(), n, nulls, validity, out.buf);
        });
  }
  if (op == ArithOp::kSub && (is_ts || ta == TypeId::kDate) &&
      (tb == TypeId::kTimestamp || tb == TypeId::kTimestampNtz || tb == TypeId::kDate)) {
    bool dates = ta == TypeId::kDate && tb == TypeId::kDate;
    BoundExprPtr x = a, y = b;
    if (!dates) {
      SPATE_ASSIGN_OR_RETURN(x,
                             ImplicitCast(a, is_ts ? a->type() : DataType::Timestamp()));
      SPATE_ASSIGN_OR_RETURN(y, ImplicitCast(b, x->type()));
    }
    DataTypePtr rt =
        dates ? DataType::DayTimeInterval(IntervalField::kDay, IntervalField::kDay)
              : DataType::DayTimeInterval();
    return MakeScalarCall(
        "-", rt, x->nullable() || y->nullable(), {x, y},
        [dates, rt](const std::vector<ColumnPtr>& args, int64_t n,
                    const EvalContext&) -> Result<ColumnPtr> {
          int64_t nulls = 0;
          BufferPtr validity =
              kernel::AndValidity({args[0].get(), args[1].get()}, n, &nulls);
          Out<int64_t> out(n);
          if (dates) {
            const int32_t* p = args[0]->raw_values<int32_t>();
            const int32_t* q = args[1]->raw_values<int32_t>();
            for (int64_t i = 0; i < n; ++i)
              out.data[i] = (int64_t{p[i]} - q[i]) * kMicrosPerDay;
          } else {
            const int64_t* p = args[0]->raw_values<int64_t>();
            const int64_t* q = args[1]->raw_values<int64_t>();
            for (int64_t i = 0; i < n; ++i) out.data[i] = p[i] - q[i];
          }
          return kernel::MakeColumn(rt, n, nulls, validity, out.buf);
        },
        display);
  }
  return BoundExprPtr();
}

// The decimal type an operand of decimal arithmetic takes: an integral literal beside a
// decimal is DECIMAL(its digits, 0) (Spark's DecimalPrecision with
// spark.sql.legacy.literal.pickMinimumPrecision, the default: `x + 1` is x's precision +
// 1, not + 10); any other integral operand its type's full precision.
DataTypePtr OperandDecimal(const BoundExprPtr& e, const DataTypePtr& t,
                           const DataTypePtr& other) {
  if (t->IsIntegral() && other->id() == TypeId::kDecimal) {
    if (DataTypePtr lit = IntegralLiteralDecimal(e)) return lit;
  }
  return DecimalForIntegral(*t);
}

Result<BoundExprPtr> ResolveArith(ArithOp op, std::vector<BoundExprPtr> args,
                                  const ResolveContext& rc) {
  if (args.size() != 2) return Status::Internal("binary operator needs 2 arguments");
  BoundExprPtr a = args[0], b = args[1];
  SPATE_ASSIGN_OR_RETURN(auto iv, ResolveIntervalArithmetic(OpSymbol(op)[0], a, b));
  if (iv) return iv;
  SPATE_ASSIGN_OR_RETURN(auto dt, ResolveDatetimeArith(op, a, b));
  if (dt) return dt;
  DataTypePtr ta = a->type(), tb = b->type();
  // Null and string promotion.
  auto is_ok_type = [](const DataType& t) {
    return t.IsNumeric() || t.id() == TypeId::kNull || t.id() == TypeId::kString ||
           t.id() == TypeId::kDayTimeInterval || t.id() == TypeId::kYearMonthInterval;
  };
  if (!is_ok_type(*ta) || !is_ok_type(*tb)) return TypeMismatch(op, a, b);
  DataTypePtr common = CommonType(ta, tb);
  if (common && common->id() == TypeId::kString) common = DataType::Double();
  if (common && common->id() == TypeId::kNull) common = DataType::Double();
  if (!common || !(common->IsNumeric() || common->id() == TypeId::kDayTimeInterval ||
                   common->id() == TypeId::kYearMonthInterval)) {
    return TypeMismatch(op, a, b);
  }
  DataTypePtr result = common;
  DataTypePtr operand = common;
  if (op == ArithOp::kDiv && common->id() != TypeId::kDouble &&
      common->id() != TypeId::kDecimal) {
    result = operand = DataType::Double();
  }
  if (op == ArithOp::kIntDiv) {
    if (common->IsFloating()) return TypeMismatch(op, a, b);
    if (common->id() != TypeId::kDecimal) operand = result = DataType::Long();
  }
  if (common->id() == TypeId::kDecimal) {
    // Spark's decimal result types; operands keep their own precision/scale.
    const DataTypePtr da = OperandDecimal(a, ta->id() == TypeId::kNull ? common : ta, tb);
    const DataTypePtr db = OperandDecimal(b, tb->id() == TypeId::kNull ? common : tb, ta);
    int p1 = da ? da->precision() : common->precision(),
        s1 = da ? da->scale() : common->scale();
    int p2 = db ? db->precision() : common->precision(),
        s2 = db ? db->scale() : common->scale();
    switch (op) {
      case ArithOp::kAdd:
      case ArithOp::kSub: {
        int s = std::max(s1, s2);
        result = AdjustedDecimal(std::max(p1 - s1, p2 - s2) + s + 1, s);
        break;
      }
      case ArithOp::kMul:
        result = AdjustedDecimal(p1 + p2 + 1, s1 + s2);
        break;
      case ArithOp::kDiv: {
        int s = std::max(6, s1 + p2 + 1);
        result = AdjustedDecimal(p1 - s1 + s2 + s, s);
        break;
      }
      case ArithOp::kMod: {
        int s = std::max(s1, s2);
        result = AdjustedDecimal(std::min(p1 - s1, p2 - s2) + s, s);
        break;
      }
      case ArithOp::kIntDiv:
        result = DataType::Long();
        break;
    }
    if (da) {
      SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, da));
    }
    if (db) {
      SPATE_ASSIGN_OR_RETURN(b, ImplicitCast(b, db));
    }
    if (!da) {
      SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, common));
    }
    if (!db) {
      SPATE_ASSIGN_OR_RETURN(b, ImplicitCast(b, common));
    }
  } else {
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, operand));
    SPATE_ASSIGN_OR_RETURN(b, ImplicitCast(b, operand));
  }
  std::string sym = OpSymbol(op);
  bool int_div_decimal = op == ArithOp::kIntDiv && common->id() == TypeId::kDecimal;
  DataTypePtr kernel_type = int_div_decimal ? DataType::Decimal(38, 0) : result;
  // Spark's: division and remainder may be NULL (by zero outside ANSI; Spark says
  // nullable either way); +, - and * only from NULL inputs, or a decimal overflow outside
  // ANSI.
  const bool divides =
      op == ArithOp::kDiv || op == ArithOp::kIntDiv || op == ArithOp::kMod;
  const bool nullable = divides || a->nullable() || b->nullable() ||
                        (!rc.ansi && result->id() == TypeId::kDecimal);
  return MakeScalarCall(
      sym, result, nullable, {a, b},
      [op, kernel_type, result, int_div_decimal](
          const std::vector<ColumnPtr>& cols, int64_t n,
          const EvalContext& ctx) -> Result<ColumnPtr> {
        SPATE_ASSIGN_OR_RETURN(auto r,
                               RunArith(op, kernel_type, cols[0], cols[1], n, ctx.ansi));
        if (int_div_decimal)
          return CastColumn(r, result, ctx.ansi ? CastMode::kAnsi : CastMode::kLegacy,
                            ctx);
        return r;
      },
      [sym](const std::vector<std::string>& s) {
        return "(" + s[0] + " " + sym + " " + s[1] + ")";
      });
}

Result<BoundExprPtr> ResolveNegate(std::vector<BoundExprPtr> args,
                                   const ResolveContext&) {
  BoundExprPtr a = args[0];
  if (a->type()->id() == TypeId::kString || a->type()->id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, DataType::Double()));
  }
  const DataTypePtr& t = a->type();
  if (!t->IsNumeric() && t->id() != TypeId::kDayTimeInterval &&
      t->id() != TypeId::kYearMonthInterval) {
    return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                         {{"sqlExpr", "\"(- " + a->ToString() + ")\""},
                          {"paramIndex", "first"},
                          {"requiredType",
                           "(\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL "
                           "YEAR TO MONTH\" or \"INTERVAL\")"},
                          {"inputSql", "\"" + a->ToString() + "\""},
                          {"inputType", QuoteType(*t)}});
  }
  DataTypePtr type = t;
  return MakeScalarCall(
      "negative", type, a->nullable(), {a},
      [type](const std::vector<ColumnPtr>& cols, int64_t n,
             const EvalContext& ctx) -> Result<ColumnPtr> {
        ColumnPtr zero = MakeConstantColumn(
            type->id() == TypeId::kDecimal
                ? Value::Decimal(0, type->precision(), type->scale())
            : type->IsFloating()
                ? (type->id() == TypeId::kFloat ? Value::Float(0) : Value::Double(0))
                : Value::FromI64(type, 0),
            n);
        if (type->IsFloating()) {
          // -x, not 0 - x (keeps -0.0 and NaN sign semantics).
          int64_t nulls = cols[0]->null_count();
          if (type->id() == TypeId::kDouble) {
            Out<double> out(n);
            const double* x = cols[0]->raw_values<double>();
            for (int64_t i = 0; i < n; ++i) out.data[i] = -x[i];
            return kernel::MakeColumn(type, n, nulls, cols[0]->validity(), out.buf);
          }
          Out<float> out(n);
          const float* x = cols[0]->raw_values<float>();
          for (int64_t i = 0; i < n; ++i) out.data[i] = -x[i];
          return kernel::MakeColumn(type, n, nulls, cols[0]->validity(), out.buf);
        }
        return RunArith(ArithOp::kSub, type, zero, cols[0], n, ctx.ansi);
      },
      [](const std::vector<std::string>& s) { return "-" + s[0]; });
}

}  // namespace

// Bitwise operators of integral values (Spark's BitwiseAnd / BitwiseOr / BitwiseXor /
// BitwiseNot): operands at their common integral type, which is the result type; NULL in,
// NULL out.
template <typename T>
ColumnPtr BitwiseKernel(char op, const DataTypePtr& type, const std::vector<ColumnPtr>& c,
                        int64_t n) {
  std::vector<const Column*> cols;
  for (const auto& col : c) cols.push_back(col.get());
  int64_t nulls = 0;
  BufferPtr validity = kernel::AndValidity(cols, n, &nulls);
  Out<T> out(n);
  const T* x = c[0]->raw_values<T>();
  const T* y = c.size() > 1 ? c[1]->raw_values<T>() : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    out.data[i] = op == '&'   ? T(x[i] & y[i])
                  : op == '|' ? T(x[i] | y[i])
                  : op == '^' ? T(x[i] ^ y[i])
                              : T(~x[i]);
  }
  return kernel::MakeColumn(type, n, nulls, validity, out.buf);
}

Result<BoundExprPtr> ResolveBitwise(char op, std::vector<BoundExprPtr> args,
                                    const ResolveContext&) {
  size_t arity = op == '~' ? 1 : 2;
  if (args.size() != arity) return Status::Internal("bitwise operator arity");
  DataTypePtr common = args[0]->type();
  if (arity == 2) common = CommonType(args[0]->type(), args[1]->type());
  if (common && common->id() == TypeId::kNull) common = DataType::Int();
  for (const auto& a : args) {
    if (!common || !common->IsIntegral() ||
        !(a->type()->IsIntegral() || a->type()->id() == TypeId::kNull)) {
      std::string sql = arity == 1 ? "~" + a->ToString()
                                   : "(" + args[0]->ToString() + " " + op + " " +
                                         args[1]->ToString() + ")";
      return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                           {{"sqlExpr", "\"" + sql + "\""},
                            {"paramIndex", a == args[0] ? "first" : "second"},
                            {"requiredType", "\"INTEGRAL\""},
                            {"inputSql", "\"" + a->ToString() + "\""},
                            {"inputType", QuoteType(*a->type())}});
    }
  }
  bool nullable = false;
  for (auto& a : args) {
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, common));
    nullable = nullable || a->nullable();
  }
  DataTypePtr type = common;
  return MakeScalarCall(
      std::string(1, op), type, nullable, args,
      [op, type](const std::vector<ColumnPtr>& c, int64_t n,
                 const EvalContext&) -> Result<ColumnPtr> {
        switch (type->id()) {
          case TypeId::kByte:
            return BitwiseKernel<int8_t>(op, type, c, n);
          case TypeId::kShort:
            return BitwiseKernel<int16_t>(op, type, c, n);
          case TypeId::kInt:
            return BitwiseKernel<int32_t>(op, type, c, n);
          default:
            return BitwiseKernel<int64_t>(op, type, c, n);
        }
      },
      [op](const std::vector<std::string>& s) {
        return s.size() == 1 ? "~" + s[0] : "(" + s[0] + " " + op + " " + s[1] + ")";
      });
}

void RegisterArithmeticFunctions(FunctionRegistry& r) {
  static constexpr std::pair<const char*, ArithOp> kOperators[] = {
      {"+", ArithOp::kAdd},     {"-", ArithOp::kSub}, {"*", ArithOp::kMul},
      {"/", ArithOp::kDiv},     {"%", ArithOp::kMod}, {"mod", ArithOp::kMod},
      {"div", ArithOp::kIntDiv}};
  for (const auto& entry : kOperators) {
    const ArithOp op = entry.second;
    r.RegisterScalar(entry.first, [op](auto args, const ResolveContext& rc) {
      return ResolveArith(op, std::move(args), rc);
    });
  }
  r.RegisterScalar("negative", ResolveNegate);
  for (char op : {'&', '|', '^', '~'}) {
    r.RegisterScalar(std::string(1, op), [op](auto args, const ResolveContext& rc) {
      return ResolveBitwise(op, std::move(args), rc);
    });
  }
  r.RegisterScalar("positive",
                   [](std::vector<BoundExprPtr> args,
                      const ResolveContext&) -> Result<BoundExprPtr> { return args[0]; });
}

}  // namespace spate
