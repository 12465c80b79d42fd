// Copyright spate authors.
#include "spate/compute/time_window.h"

#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>

#include "spate/compute/coercion.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/generators.h"
#include "spate/compute/kernel_columns.h"

namespace spate {

namespace {

// Java long arithmetic: wraps on overflow.
inline int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

inline int64_t LastStart(int64_t ts, const TimeWindowParams& p) {
  int64_t remainder = WrapSub(ts, p.start) % p.slide;
  return WrapSub(ts, remainder < 0 ? remainder + p.slide : remainder);
}

ColumnPtr StructOf(const DataTypePtr& type, int64_t n, ColumnPtr start, ColumnPtr end) {
  return std::make_shared<const Column>(
      type, n, 0, nullptr, nullptr, nullptr,
      std::vector<ColumnPtr>{std::move(start), std::move(end)});
}

bool IsTimestamp(const DataType& t) {
  return t.id() == TypeId::kTimestamp || t.id() == TypeId::kTimestampNtz;
}

}  // namespace

DataTypePtr WindowStructType(const DataTypePtr& ts_type) {
  return DataType::Struct({Field{"start", ts_type, true}, Field{"end", ts_type, true}});
}

BoundExprPtr MakeTimeWindowExpr(BoundExprPtr ts, TimeWindowParams params, int i,
                                const std::string& display) {
  DataTypePtr ts_type = ts->type();
  DataTypePtr type = WindowStructType(ts_type);
  return MakeScalarCall(
      "window", type, false, {std::move(ts)},
      [type, ts_type, params, i](const std::vector<ColumnPtr>& c, int64_t n,
                                 const EvalContext&) -> Result<ColumnPtr> {
        const Column& t = *c[0];
        const int64_t* v = t.raw_values<int64_t>();
        kernel::Out<int64_t> s(n), e(n);
        int64_t back = WrapMul(i, params.slide);
        for (int64_t r = 0; r < n; ++r) {
          int64_t start = WrapSub(LastStart(v[r], params), back);
          s.data[r] = start;
          e.data[r] = WrapAdd(start, params.window);
        }
        auto start_col =
            kernel::MakeColumn(ts_type, n, t.null_count(), t.validity(), s.buf);
        auto end_col =
            kernel::MakeColumn(ts_type, n, t.null_count(), t.validity(), e.buf);
        return StructOf(type, n, std::move(start_col), std::move(end_col));
      },
      [display](const std::vector<std::string>&) { return display; });
}

Result<GeneratedRows> RunTimeWindowGenerator(const BoundExpr& ts,
                                             const TimeWindowParams& params,
                                             const DataTypePtr& struct_type,
                                             const Batch& input, const EvalContext& ctx) {
  SPATE_ASSIGN_OR_RETURN(ColumnPtr col, ts.Evaluate(input, ctx));
  const Column& t = *col;
  const int64_t* v = t.raw_values<int64_t>();
  int64_t n = input.num_rows();
  int k = params.overlapping();
  bool exact = params.window % params.slide == 0;
  GeneratedRows out;
  std::vector<int64_t> starts;
  out.input_rows.reserve(static_cast<size_t>(n * k));
  starts.reserve(static_cast<size_t>(n * k));
  for (int64_t r = 0; r < n; ++r) {
    if (t.IsNull(r)) continue;
    int64_t last = LastStart(v[r], params);
    for (int i = 0; i < k; ++i) {
      int64_t start = WrapSub(last, WrapMul(i, params.slide));
      // Spark filters the over-estimated windows with start <= ts < end unless the count
      // is exact.
      if (!exact && !(start <= v[r] && v[r] < WrapAdd(start, params.window))) continue;
      out.input_rows.push_back(static_cast<int32_t>(r));
      starts.push_back(start);
    }
  }
  int64_t m = static_cast<int64_t>(starts.size());
  kernel::Out<int64_t> s(m), e(m);
  for (int64_t j = 0; j < m; ++j) {
    s.data[j] = starts[j];
    e.data[j] = WrapAdd(starts[j], params.window);
  }
  const DataTypePtr& ts_type = struct_type->fields()[0].type;
  out.columns.push_back(StructOf(struct_type, m,
                                 kernel::MakeColumn(ts_type, m, 0, nullptr, s.buf),
                                 kernel::MakeColumn(ts_type, m, 0, nullptr, e.buf)));
  return out;
}

Result<BoundExprPtr> MakeWindowTimeExpr(BoundExprPtr w) {
  const DataTypePtr& t = w->type();
  if (t->id() != TypeId::kStruct || t->fields().size() != 2 ||
      !IsTimestamp(*t->fields()[0].type) || !IsTimestamp(*t->fields()[1].type)) {
    return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                         {{"sqlExpr", "\"window_time(" + w->ToString() + ")\""},
                          {"paramIndex", "first"},
                          {"requiredType", "\"STRUCT\""},
                          {"inputSql", "\"" + w->ToString() + "\""},
                          {"inputType", QuoteType(*t)}});
  }
  DataTypePtr out_type = t->fields()[0].type;
  return MakeScalarCall(
      "window_time", out_type, true, {std::move(w)},
      [out_type](const std::vector<ColumnPtr>& c, int64_t n,
                 const EvalContext&) -> Result<ColumnPtr> {
        const Column& s = *c[0];
        const Column& end = *s.child(1);
        const int64_t* v = end.raw_values<int64_t>();
        kernel::Out<int64_t> o(n);
        for (int64_t r = 0; r < n; ++r) o.data[r] = WrapSub(v[r], 1);
        int64_t nulls = 0;
        BufferPtr validity = kernel::AndValidity({&s, &end}, n, &nulls);
        return kernel::MakeColumn(out_type, n, nulls, validity, o.buf);
      },
      [](const std::vector<std::string>& a) { return "window_time(" + a[0] + ")"; });
}

Result<BoundExprPtr> MakeSessionEndExpr(BoundExprPtr ts, BoundExprPtr gap,
                                        IntervalStringParser parser) {
  TypeId gid = gap->type()->id();
  if (gid != TypeId::kString && gid != TypeId::kDayTimeInterval && gid != TypeId::kNull) {
    return Status::Invalid(
        "Gap duration expression used in session window must be "
        "CalendarIntervalType, but got " +
        gap->type()->SimpleString() + ".");
  }
  DataTypePtr type = ts->type();
  return MakeScalarCall(
      "session_end", type, true, {std::move(ts), std::move(gap)},
      [type, gid, parser](const std::vector<ColumnPtr>& c, int64_t n,
                          const EvalContext&) -> Result<ColumnPtr> {
        const Column& t = *c[0];
        const Column& g = *c[1];
        const int64_t* tv = t.raw_values<int64_t>();
        kernel::Out<int64_t> o(n);
        int64_t nulls = 0;
        BufferPtr validity = kernel::AndValidity({&t, &g}, n, &nulls);
        if (gid == TypeId::kNull) return Column::MakeNull(type, n);
        if (gid == TypeId::kDayTimeInterval) {
          const int64_t* gv = g.raw_values<int64_t>();
          for (int64_t r = 0; r < n; ++r) o.data[r] = WrapAdd(tv[r], gv[r]);
          return kernel::MakeColumn(type, n, nulls, validity, o.buf);
        }
        // String gaps: few distinct values in practice (CASE branches); parse each once.
        std::unordered_map<std::string_view, std::optional<int64_t>> cache;
        for (int64_t r = 0; r < n; ++r) {
          if (!kernel::Valid(validity, r)) {
            o.data[r] = 0;
            continue;
          }
          std::string_view text = g.GetView(r);
          auto it = cache.find(text);
          if (it == cache.end()) {
            std::optional<int64_t> micros;
            Result<Value> parsed = parser(text, text);
            if (parsed.ok() && !parsed->is_null() &&
                parsed->type()->id() == TypeId::kDayTimeInterval) {
              micros = parsed->i64();
            }
            it = cache.emplace(text, micros).first;
          }
          if (!it->second) {
            if (!validity) {
              validity = Buffer::Allocate(bits::BytesFor(n));
              std::memset(validity->mutable_data(), 0xff,
                          static_cast<size_t>(bits::BytesFor(n)));
            }
            bits::Clear(validity->mutable_data(), r);
            ++nulls;
            o.data[r] = 0;
            continue;
          }
          o.data[r] = WrapAdd(tv[r], *it->second);
        }
        return kernel::MakeColumn(type, n, nulls, validity, o.buf);
      },
      [](const std::vector<std::string>& a) { return "(" + a[0] + " + " + a[1] + ")"; });
}

void RegisterTimeWindowFunctions(FunctionRegistry& r) {
  r.RegisterScalar(
      "window_time",
      [](std::vector<BoundExprPtr> args, const ResolveContext&) -> Result<BoundExprPtr> {
        if (args.size() != 1) {
          return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                               {{"functionName", "`window_time`"},
                                {"expectedNum", "1"},
                                {"actualNum", std::to_string(args.size())},
                                {"docroot", "https://spark.apache.org/docs/latest"}});
        }
        return MakeWindowTimeExpr(std::move(args[0]));
      });
  for (const char* name : {"window", "session_window"}) {
    std::string n = name;
    r.RegisterScalar(
        n,
        [n](const std::vector<BoundExprPtr>&,
            const ResolveContext& rc) -> Result<BoundExprPtr> {
          // The analyzer rewrites these in SELECT lists and GROUP BY; anywhere else they
          // are unresolvable, as Spark's TimeWindow is outside those operators.
          return Status::Invalid(
              "The " + n + " expression " + (rc.call_text.empty() ? n : rc.call_text) +
              " is only supported in the SELECT list and GROUP BY of a query.");
        });
  }
}

}  // namespace spate
