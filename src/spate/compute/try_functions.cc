// Copyright spate authors.
// Error-tolerant and conversion functions:
//   - try_add, try_subtract, try_multiply, try_divide, try_mod (and try_make_timestamp,
//     try_make_timestamp_ltz, try_make_timestamp_ntz): the operator evaluated
//     with ANSI semantics, a row that raises an error (overflow, division by zero) giving
//     NULL instead (Spark's TryEval, whatever spark.sql.ansi.enabled says);
//   - the cast aliases boolean, tinyint, smallint, int, bigint, float, double, decimal,
//     date, timestamp, binary, string: `int(x)` is CAST(x AS INT) (the column is named
//     so too, see Expr::DisplayName);
//   - make_dt_interval and make_ym_interval.

#include <limits>

#include "spate/columnar/kernels.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/kernel_columns.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;

// Spark's TryEval: the whole batch is evaluated at once; only when that fails is it
// evaluated row by row, the failing rows becoming NULL (errors are the rare path).
class TryEvalExpr final : public BoundExpr {
 public:
  TryEvalExpr(std::string name, const BoundExprPtr& child)
      : BoundExpr(child->type(), true, {child}), name_(std::move(name)) {}

  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    EvalContext ansi = ctx;
    ansi.ansi = true;
    const BoundExprPtr& child = children_[0];
    Result<ColumnPtr> all = child->Evaluate(input, ansi);
    if (all.ok()) return all;
    std::vector<ColumnPtr> rows;
    rows.reserve(static_cast<size_t>(input.num_rows()));
    ColumnPtr null_row = MakeConstantColumn(Value::Null(type_), 1);
    for (int64_t i = 0; i < input.num_rows(); ++i) {
      int32_t index = static_cast<int32_t>(i);
      BatchPtr one = TakeBatch(input, &index, 1);
      ansi.row_offset = ctx.row_offset + i;
      Result<ColumnPtr> r = child->Evaluate(*one, ansi);
      rows.push_back(r.ok() ? *r : null_row);
    }
    if (rows.empty()) return MakeConstantColumn(Value::Null(type_), 0);
    return Concat(rows);
  }
  bool IsConstant() const override { return children_[0]->IsConstant(); }
  bool IsNondeterministic() const override { return children_[0]->IsNondeterministic(); }
  std::string ToString() const override {
    // "try_add(a, b)": the wrapped call's arguments under the try_ name.
    std::vector<std::string> args;
    for (const auto& c : children_[0]->children()) args.push_back(c->ToString());
    return CallText(name_, args);
  }

 private:
  std::string name_;
};

// try_<name>: the registered function `inner` resolved with ANSI on, wrapped in TryEval.
void RegisterTry(FunctionRegistry& r, const std::string& name, const std::string& inner,
                 size_t min_args, size_t max_args, const char* expected) {
  r.RegisterScalar(
      name,
      [&r, name, inner, min_args, max_args, expected](
          Args args, const ResolveContext& rc) -> Result<BoundExprPtr> {
        SPATE_RETURN_IF_ERROR(
            fn::CheckArgs(name, args.size(), min_args, max_args, expected));
        const ScalarResolver* resolver = r.FindScalar(inner);
        if (resolver == nullptr) return Status::Internal("no function " + inner);
        ResolveContext ansi = rc;
        ansi.ansi = true;
        SPATE_ASSIGN_OR_RETURN(BoundExprPtr call, (*resolver)(std::move(args), ansi));
        return BoundExprPtr(std::make_shared<TryEvalExpr>(name, std::move(call)));
      });
}

// boolean(x), int(x), ...: CAST(x AS type).
void RegisterCastAlias(FunctionRegistry& r, const std::string& name,
                       const DataTypePtr& type) {
  r.RegisterScalar(
      name, [name, type](Args args, const ResolveContext&) -> Result<BoundExprPtr> {
        SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
        return MakeCast(std::move(args[0]), type);
      });
}

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

Status IntervalOverflow(const std::string& what) {
  return Status::Error("ARITHMETIC_OVERFLOW", {{"message", what + " overflow"},
                                               {"alternative", ""},
                                               {"config", "\"spark.sql.ansi.enabled\""}});
}

// make_dt_interval([days[, hours[, mins[, secs]]]]): INTERVAL DAY TO SECOND; days, hours
// and mins are INT, secs DECIMAL(18,6); missing arguments are 0.
Result<BoundExprPtr> ResolveMakeDtInterval(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("make_dt_interval", args.size(), 0, 4, "[0, 4]"));
  const DataTypePtr kSecs = DataType::Decimal(18, 6);
  for (size_t i = 0; i < args.size(); ++i) {
    SPATE_ASSIGN_OR_RETURN(args[i],
                           ImplicitCast(args[i], i == 3 ? kSecs : DataType::Int()));
  }
  while (args.size() < 3) args.push_back(MakeLiteral(Value::Int(0)));
  if (args.size() < 4) args.push_back(MakeLiteral(Value::Decimal(0, 18, 6)));
  DataTypePtr type =
      DataType::DayTimeInterval(IntervalField::kDay, IntervalField::kSecond);
  // Spark's MakeDTInterval: NULL only from an input (with ANSI on or off).
  bool nullable = false;
  for (const auto& a : args) nullable |= a->nullable();
  return MakeScalarCall(
      "make_dt_interval", type, nullable, std::move(args),
      [type](const std::vector<ColumnPtr>& c, int64_t n,
             const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get(), c[2].get(), c[3].get()}, n);
        kernel::Out<int64_t> out(n);
        const int32_t* d = c[0]->raw_values<int32_t>();
        const int32_t* h = c[1]->raw_values<int32_t>();
        const int32_t* m = c[2]->raw_values<int32_t>();
        const __int128* s = c[3]->raw_values<__int128>();
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) {
            out.data[i] = 0;
            continue;
          }
          // secs has scale 6: its unscaled value is in microseconds.
          __int128 total = static_cast<__int128>(d[i]) * kMicrosPerDay +
                           static_cast<__int128>(h[i]) * kMicrosPerHour +
                           static_cast<__int128>(m[i]) * kMicrosPerMinute + s[i];
          if (total > std::numeric_limits<int64_t>::max() ||
              total < std::numeric_limits<int64_t>::min()) {
            return IntervalOverflow("long");
          }
          out.data[i] = static_cast<int64_t>(total);
        }
        return kernel::MakeColumn(type, n, mask.null_count(), mask.validity(), out.buf);
      });
}

// make_ym_interval([years[, months]]): INTERVAL YEAR TO MONTH.
Result<BoundExprPtr> ResolveMakeYmInterval(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("make_ym_interval", args.size(), 0, 2, "[0, 2]"));
  for (auto& a : args) {
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, DataType::Int()));
  }
  while (args.size() < 2) args.push_back(MakeLiteral(Value::Int(0)));
  DataTypePtr type =
      DataType::YearMonthInterval(IntervalField::kYear, IntervalField::kMonth);
  return MakeScalarCall("make_ym_interval", type, true, std::move(args),
                        [type](const std::vector<ColumnPtr>& c, int64_t n,
                               const EvalContext&) -> Result<ColumnPtr> {
                          fn::NullMask mask({c[0].get(), c[1].get()}, n);
                          kernel::Out<int32_t> out(n);
                          const int32_t* y = c[0]->raw_values<int32_t>();
                          const int32_t* m = c[1]->raw_values<int32_t>();
                          for (int64_t i = 0; i < n; ++i) {
                            if (!mask.Valid(i)) {
                              out.data[i] = 0;
                              continue;
                            }
                            int32_t months;
                            if (__builtin_mul_overflow(y[i], 12, &months) ||
                                __builtin_add_overflow(months, m[i], &months)) {
                              return IntervalOverflow("integer");
                            }
                            out.data[i] = months;
                          }
                          return kernel::MakeColumn(type, n, mask.null_count(),
                                                    mask.validity(), out.buf);
                        });
}

}  // namespace

void RegisterTryFunctions(FunctionRegistry& r) {
  RegisterTry(r, "try_add", "+", 2, 2, "2");
  RegisterTry(r, "try_subtract", "-", 2, 2, "2");
  RegisterTry(r, "try_multiply", "*", 2, 2, "2");
  RegisterTry(r, "try_divide", "/", 2, 2, "2");
  RegisterTry(r, "try_mod", "%", 2, 2, "2");
  RegisterTry(r, "try_make_timestamp", "make_timestamp", 6, 7, "[6, 7]");
  RegisterTry(r, "try_make_timestamp_ltz", "make_timestamp_ltz", 6, 7, "[6, 7]");
  RegisterTry(r, "try_make_timestamp_ntz", "make_timestamp_ntz", 6, 6, "6");
  RegisterCastAlias(r, "boolean", DataType::Boolean());
  RegisterCastAlias(r, "tinyint", DataType::Byte());
  RegisterCastAlias(r, "smallint", DataType::Short());
  RegisterCastAlias(r, "int", DataType::Int());
  RegisterCastAlias(r, "bigint", DataType::Long());
  RegisterCastAlias(r, "float", DataType::Float());
  RegisterCastAlias(r, "double", DataType::Double());
  RegisterCastAlias(r, "decimal", DataType::Decimal(10, 0));
  RegisterCastAlias(r, "date", DataType::Date());
  RegisterCastAlias(r, "timestamp", DataType::Timestamp());
  RegisterCastAlias(r, "binary", DataType::Binary());
  RegisterCastAlias(r, "string", DataType::String());
  r.RegisterScalar("make_dt_interval", ResolveMakeDtInterval);
  r.RegisterScalar("make_ym_interval", ResolveMakeYmInterval);
}

}  // namespace spate
