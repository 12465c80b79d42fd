// Copyright spate authors.
// Comparison, logic and null predicates; IN, BETWEEN, LIKE; conditional expressions
// (CASE WHEN, IF, COALESCE, NVL...) with lazy evaluation of branches, as Spark does, so
// that `CASE WHEN d = 0 THEN 0 ELSE n / d END` never divides by zero.

#include "spate/compute/predicates.h"

#include <cmath>
#include <cstring>
#include <unordered_set>
#include <utility>

#include "spate/base/text_parse.h"
#include "spate/columnar/kernels.h"
#include "spate/columnar/row_encoding.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/kernel_columns.h"

namespace spate {

namespace {

enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

template <typename T>
inline int Compare3(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    // Spark: NaN == NaN and NaN is larger than any other value; -0.0 == 0.0.
    bool an = std::isnan(a), bn = std::isnan(b);
    if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  }
  return a < b ? -1 : (a > b ? 1 : 0);
}

inline bool Apply(CmpOp op, int c) {
  switch (op) {
    case CmpOp::kEq:
      return c == 0;
    case CmpOp::kNe:
      return c != 0;
    case CmpOp::kLt:
      return c < 0;
    case CmpOp::kLe:
      return c <= 0;
    case CmpOp::kGt:
      return c > 0;
    case CmpOp::kGe:
      return c >= 0;
  }
  return false;
}

template <typename T>
void CompareFixed(CmpOp op, const T* x, const T* y, int64_t n, uint8_t* out) {
  switch (op) {
#define SPATE_CMP_LOOP(OP, EXPR)                                    \
  case CmpOp::OP:                                                   \
    for (int64_t i = 0; i < n; ++i) {                               \
      int c = Compare3<T>(x[i], y[i]);                              \
      if (EXPR) out[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); \
    }                                                               \
    break;
    SPATE_CMP_LOOP(kEq, c == 0)
    SPATE_CMP_LOOP(kNe, c != 0)
    SPATE_CMP_LOOP(kLt, c < 0)
    SPATE_CMP_LOOP(kLe, c <= 0)
    SPATE_CMP_LOOP(kGt, c > 0)
    SPATE_CMP_LOOP(kGe, c >= 0)
#undef SPATE_CMP_LOOP
  }
}

}  // namespace

int CompareValuesAt(const Column& a, int64_t i, const Column& b, int64_t j) {
  switch (kernel::PhysicalOf(*a.type())) {
    case kernel::Phys::kBool:
      return Compare3<int>(a.GetBool(i), b.GetBool(j));
    case kernel::Phys::kI8:
      return Compare3(a.raw_values<int8_t>()[i], b.raw_values<int8_t>()[j]);
    case kernel::Phys::kI16:
      return Compare3(a.raw_values<int16_t>()[i], b.raw_values<int16_t>()[j]);
    case kernel::Phys::kI32:
      return Compare3(a.raw_values<int32_t>()[i], b.raw_values<int32_t>()[j]);
    case kernel::Phys::kI64:
      return Compare3(a.raw_values<int64_t>()[i], b.raw_values<int64_t>()[j]);
    case kernel::Phys::kF32:
      return Compare3(a.raw_values<float>()[i], b.raw_values<float>()[j]);
    case kernel::Phys::kF64:
      return Compare3(a.raw_values<double>()[i], b.raw_values<double>()[j]);
    case kernel::Phys::kI128:
      return Compare3(a.raw_values<__int128>()[i], b.raw_values<__int128>()[j]);
    case kernel::Phys::kBytes: {
      std::string_view x = a.GetView(i), y = b.GetView(j);
      int c = x.compare(y);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default:
      break;
  }
  // Nested: element-wise with nulls first.
  switch (a.type_id()) {
    case TypeId::kStruct:
      for (size_t f = 0; f < a.children().size(); ++f) {
        const Column& ca = *a.child(static_cast<int>(f));
        const Column& cb = *b.child(static_cast<int>(f));
        bool na = ca.IsNull(i), nb = cb.IsNull(j);
        if (na || nb) {
          if (na != nb) return na ? -1 : 1;
          continue;
        }
        int c = CompareValuesAt(ca, i, cb, j);
        if (c) return c;
      }
      return 0;
    case TypeId::kArray: {
      const int32_t* oa = a.offsets();
      const int32_t* ob = b.offsets();
      int64_t la = oa[i + 1] - oa[i], lb = ob[j + 1] - ob[j];
      const Column& ea = *a.child(0);
      const Column& eb = *b.child(0);
      for (int64_t k = 0; k < std::min(la, lb); ++k) {
        bool na = ea.IsNull(oa[i] + k), nb = eb.IsNull(ob[j] + k);
        if (na || nb) {
          if (na != nb) return na ? -1 : 1;
          continue;
        }
        int c = CompareValuesAt(ea, oa[i] + k, eb, ob[j] + k);
        if (c) return c;
      }
      return la < lb ? -1 : (la > lb ? 1 : 0);
    }
    default:
      return 0;
  }
}

bool IsOrderable(const DataType& t) {
  switch (t.id()) {
    case TypeId::kMap:
      return false;
    case TypeId::kArray:
      return IsOrderable(*t.element_type());
    case TypeId::kStruct:
      for (const auto& f : t.fields()) {
        if (!IsOrderable(*f.type)) return false;
      }
      return true;
    default:
      return true;
  }
}

namespace {

Result<ColumnPtr> CompareColumns(CmpOp op, const Column& a, const Column& b, int64_t n) {
  int64_t nulls = 0;
  BufferPtr validity = kernel::AndValidity({&a, &b}, n, &nulls);
  auto out = Buffer::Allocate(bits::BytesFor(n));
  uint8_t* o = out->mutable_data();
  switch (kernel::PhysicalOf(*a.type())) {
    case kernel::Phys::kI8:
      CompareFixed(op, a.raw_values<int8_t>(), b.raw_values<int8_t>(), n, o);
      break;
    case kernel::Phys::kI16:
      CompareFixed(op, a.raw_values<int16_t>(), b.raw_values<int16_t>(), n, o);
      break;
    case kernel::Phys::kI32:
      CompareFixed(op, a.raw_values<int32_t>(), b.raw_values<int32_t>(), n, o);
      break;
    case kernel::Phys::kI64:
      CompareFixed(op, a.raw_values<int64_t>(), b.raw_values<int64_t>(), n, o);
      break;
    case kernel::Phys::kF32:
      CompareFixed(op, a.raw_values<float>(), b.raw_values<float>(), n, o);
      break;
    case kernel::Phys::kF64:
      CompareFixed(op, a.raw_values<double>(), b.raw_values<double>(), n, o);
      break;
    case kernel::Phys::kI128:
      CompareFixed(op, a.raw_values<__int128>(), b.raw_values<__int128>(), n, o);
      break;
    default:
      if (a.type_id() == TypeId::kNull) break;
      for (int64_t i = 0; i < n; ++i) {
        if (!kernel::Valid(validity, i)) continue;
        if (Apply(op, CompareValuesAt(a, i, b, i))) bits::Set(o, i);
      }
      break;
  }
  return kernel::MakeColumn(DataType::Boolean(), n, nulls, validity, out);
}

const char* CmpSymbol(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return "=";
    case CmpOp::kNe:
      return "!=";
    case CmpOp::kLt:
      return "<";
    case CmpOp::kLe:
      return "<=";
    case CmpOp::kGt:
      return ">";
    case CmpOp::kGe:
      return ">=";
  }
  return "?";
}

Result<std::pair<BoundExprPtr, BoundExprPtr>> CoerceComparison(BoundExprPtr a,
                                                               BoundExprPtr b,
                                                               const char* sym) {
  DataTypePtr common = CommonType(a->type(), b->type());
  if (!common) {
    return Status::Error(
        "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES",
        {{"sqlExpr", "\"(" + a->ToString() + " " + sym + " " + b->ToString() + ")\""},
         {"left", QuoteType(*a->type())},
         {"right", QuoteType(*b->type())}});
  }
  if (!IsOrderable(*common)) {
    return Status::Error(
        "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
        {{"sqlExpr", "\"(" + a->ToString() + " " + sym + " " + b->ToString() + ")\""},
         {"functionName", std::string("`") + sym + "`"},
         {"dataType", QuoteType(*common)}});
  }
  SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, common));
  SPATE_ASSIGN_OR_RETURN(b, ImplicitCast(b, common));
  return std::make_pair(a, b);
}

// Whether Spark's coercion of `lit` beside `other` casts it to a narrower decimal first:
// an integral literal compared with a decimal becomes DECIMAL(its digits, 0), a cast
// Spark marks nullable when the type cannot hold every value of the literal's type (`1
// = 1.0`).
bool NarrowedLiteral(const BoundExprPtr& lit, const BoundExprPtr& other) {
  if (other->type()->id() != TypeId::kDecimal) return false;
  DataTypePtr d = IntegralLiteralDecimal(lit);
  return d && d->precision() < DecimalForIntegral(*lit->type())->precision();
}

// Spark's nullability of a comparison (the values do not depend on it): < <= > >= of an
// integral expression and a decimal literal compare integers (DecimalPrecision's
// integralAndDecimalLiteral: `i > 1.5` is `i > 1`, a constant beyond BIGINT's range), any
// other comparison follows its coerced operands, an integral literal beside a decimal
// narrowed as above.
bool ComparisonNullable(CmpOp op, const BoundExprPtr& a, const BoundExprPtr& b,
                        const std::pair<BoundExprPtr, BoundExprPtr>& coerced) {
  if (op != CmpOp::kEq && op != CmpOp::kNe) {
    for (const auto& [lit, other] : {std::pair{a, b}, std::pair{b, a}}) {
      const Value* v = lit->literal_value();
      if (!v || v->is_null() || lit->type()->id() != TypeId::kDecimal ||
          !other->type()->IsIntegral()) {
        continue;
      }
      const auto x = ParseLongDouble(v->ToString());
      const bool in_range =
          x && *x >= -9223372036854775808.0L && *x <= 9223372036854775807.0L;
      return in_range && other->nullable();
    }
  }
  return NarrowedLiteral(a, b) || NarrowedLiteral(b, a) || coerced.first->nullable() ||
         coerced.second->nullable();
}

Result<BoundExprPtr> ResolveCompare(CmpOp op, std::vector<BoundExprPtr> args) {
  const char* sym = CmpSymbol(op);
  SPATE_ASSIGN_OR_RETURN(auto ab, CoerceComparison(args[0], args[1], sym));
  const bool nullable = ComparisonNullable(op, args[0], args[1], ab);
  bool ne = op == CmpOp::kNe;
  return MakeScalarCall(
      sym, DataType::Boolean(), nullable, {ab.first, ab.second},
      [op](const std::vector<ColumnPtr>& c, int64_t n, const EvalContext&) {
        return CompareColumns(op, *c[0], *c[1], n);
      },
      [sym, ne](const std::vector<std::string>& s) {
        if (ne) return "NOT (" + s[0] + " = " + s[1] + ")";
        return "(" + s[0] + " " + sym + " " + s[1] + ")";
      });
}

Result<BoundExprPtr> ResolveNullSafeEq(std::vector<BoundExprPtr> args) {
  SPATE_ASSIGN_OR_RETURN(auto ab, CoerceComparison(args[0], args[1], "<=>"));
  return MakeScalarCall(
      "<=>", DataType::Boolean(), false, {ab.first, ab.second},
      [](const std::vector<ColumnPtr>& c, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        auto out = Buffer::Allocate(bits::BytesFor(n));
        uint8_t* o = out->mutable_data();
        for (int64_t i = 0; i < n; ++i) {
          bool na = c[0]->IsNull(i), nb = c[1]->IsNull(i);
          bool eq = (na || nb) ? (na && nb) : CompareValuesAt(*c[0], i, *c[1], i) == 0;
          if (eq) bits::Set(o, i);
        }
        return kernel::MakeColumn(DataType::Boolean(), n, 0, nullptr, out);
      },
      [](const std::vector<std::string>& s) {
        return "(" + s[0] + " <=> " + s[1] + ")";
      });
}

Status RequireBoolean(const BoundExprPtr& e, const std::string& sql,
                      const char* param_index) {
  if (e->type()->id() == TypeId::kBoolean || e->type()->id() == TypeId::kNull)
    return Status::OK();
  return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                       {{"sqlExpr", "\"" + sql + "\""},
                        {"paramIndex", param_index},
                        {"requiredType", "\"BOOLEAN\""},
                        {"inputSql", "\"" + e->ToString() + "\""},
                        {"inputType", QuoteType(*e->type())}});
}

Result<BoundExprPtr> ResolveLogic(bool is_and, std::vector<BoundExprPtr> args) {
  std::string sym = is_and ? "AND" : "OR";
  std::string sql =
      "(" + args[0]->ToString() + " " + sym + " " + args[1]->ToString() + ")";
  SPATE_RETURN_IF_ERROR(RequireBoolean(args[0], sql, "first"));
  SPATE_RETURN_IF_ERROR(RequireBoolean(args[1], sql, "second"));
  for (auto& a : args) {
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, DataType::Boolean()));
  }
  return MakeScalarCall(
      is_and ? "and" : "or", DataType::Boolean(),
      args[0]->nullable() || args[1]->nullable(), args,
      [is_and](const std::vector<ColumnPtr>& c, int64_t n,
               const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& b = *c[1];
        auto out = Buffer::Allocate(bits::BytesFor(n));
        uint8_t* o = out->mutable_data();
        int64_t nbytes = bits::BytesFor(n);
        const uint8_t* av = a.values()->data();
        const uint8_t* bv = b.values()->data();
        if (a.null_count() == 0 && b.null_count() == 0) {
          for (int64_t k = 0; k < nbytes; ++k)
            o[k] = is_and ? (av[k] & bv[k]) : (av[k] | bv[k]);
          return kernel::MakeColumn(DataType::Boolean(), n, 0, nullptr, out);
        }
        auto valid = Buffer::Allocate(nbytes);
        uint8_t* vo = valid->mutable_data();
        int64_t nulls = 0;
        for (int64_t i = 0; i < n; ++i) {
          bool an = a.IsNull(i), bn = b.IsNull(i);
          bool x = !an && a.GetBool(i), y = !bn && b.GetBool(i);
          bool value, is_null;
          if (is_and) {
            if ((!an && !x) || (!bn && !y)) {
              value = false, is_null = false;
            } else if (an || bn) {
              value = false, is_null = true;
            } else {
              value = true, is_null = false;
            }
          } else {
            if ((!an && x) || (!bn && y)) {
              value = true, is_null = false;
            } else if (an || bn) {
              value = false, is_null = true;
            } else {
              value = false, is_null = false;
            }
          }
          if (value) bits::Set(o, i);
          if (is_null) {
            ++nulls;
          } else {
            bits::Set(vo, i);
          }
        }
        return kernel::MakeColumn(DataType::Boolean(), n, nulls, nulls ? valid : nullptr,
                                  out);
      },
      [sym](const std::vector<std::string>& s) {
        return "(" + s[0] + " " + sym + " " + s[1] + ")";
      });
}

Result<BoundExprPtr> ResolveNot(std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(
      RequireBoolean(args[0], "(NOT " + args[0]->ToString() + ")", "first"));
  SPATE_ASSIGN_OR_RETURN(auto a, ImplicitCast(args[0], DataType::Boolean()));
  return MakeScalarCall(
      "not", DataType::Boolean(), a->nullable(), {a},
      [](const std::vector<ColumnPtr>& c, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        auto out = Buffer::Allocate(bits::BytesFor(n));
        const uint8_t* v = c[0]->values() ? c[0]->values()->data() : nullptr;
        uint8_t* o = out->mutable_data();
        if (v) {
          for (int64_t k = 0; k < bits::BytesFor(n); ++k)
            o[k] = static_cast<uint8_t>(~v[k]);
        }
        return kernel::MakeColumn(DataType::Boolean(), n, c[0]->null_count(),
                                  c[0]->validity(), out);
      },
      [](const std::vector<std::string>& s) { return "NOT " + s[0]; });
}

Result<BoundExprPtr> ResolveIsNull(bool want_null, std::vector<BoundExprPtr> args) {
  return MakeScalarCall(
      want_null ? "isnull" : "isnotnull", DataType::Boolean(), false, std::move(args),
      [want_null](const std::vector<ColumnPtr>& c, int64_t n,
                  const EvalContext&) -> Result<ColumnPtr> {
        auto out = Buffer::Allocate(bits::BytesFor(n));
        uint8_t* o = out->mutable_data();
        const Column& x = *c[0];
        if (x.type_id() == TypeId::kNull) {
          if (want_null) std::memset(o, 0xff, static_cast<size_t>(bits::BytesFor(n)));
        } else if (!x.validity()) {
          if (!want_null) std::memset(o, 0xff, static_cast<size_t>(bits::BytesFor(n)));
        } else {
          const uint8_t* v = x.validity()->data();
          for (int64_t k = 0; k < bits::BytesFor(n); ++k) o[k] = want_null ? ~v[k] : v[k];
        }
        return kernel::MakeColumn(DataType::Boolean(), n, 0, nullptr, out);
      },
      [want_null](const std::vector<std::string>& s) {
        return "(" + s[0] + (want_null ? " IS NULL)" : " IS NOT NULL)");
      });
}

// LIKE matching on UTF-8 with % and _ and an escape character.
bool LikeMatch(std::string_view s, std::string_view p, char escape, bool ci) {
  size_t si = 0, pi = 0, star_p = std::string_view::npos, star_s = 0;
  auto cp_len = [](unsigned char c) {
    return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
  };
  auto eq = [ci](char a, char b) {
    return ci ? std::tolower(static_cast<unsigned char>(a)) ==
                    std::tolower(static_cast<unsigned char>(b))
              : a == b;
  };
  while (si < s.size()) {
    if (pi < p.size()) {
      char c = p[pi];
      if (c == escape && pi + 1 < p.size()) {
        if (eq(s[si], p[pi + 1])) {
          ++si;
          pi += 2;
          continue;
        }
      } else if (c == '%') {
        star_p = pi++;
        star_s = si;
        continue;
      } else if (c == '_') {
        si += static_cast<size_t>(cp_len(static_cast<unsigned char>(s[si])));
        ++pi;
        continue;
      } else if (eq(s[si], c)) {
        ++si;
        ++pi;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p + 1;
    star_s += static_cast<size_t>(cp_len(static_cast<unsigned char>(s[star_s])));
    si = star_s;
  }
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi == p.size();
}

// Spark's StringUtils.escapeLikeRegex checks: the escape character must precede '_', '%'
// or itself, and must not end the pattern.
Status ValidateLikePattern(std::string_view p, char escape) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != escape) continue;
    if (i + 1 == p.size()) {
      return Status::Error("INVALID_FORMAT.ESC_AT_THE_END",
                           {{"format", "'" + std::string(p) + "'"}});
    }
    char next = p[i + 1];
    if (next != '_' && next != '%' && next != escape) {
      return Status::Error("INVALID_FORMAT.ESC_IN_THE_MIDDLE",
                           {{"format", "'" + std::string(p) + "'"},
                            {"char", std::string("'") + next + "'"}});
    }
    ++i;
  }
  return Status::OK();
}

Result<BoundExprPtr> ResolveLike(bool ci, std::vector<BoundExprPtr> args) {
  for (auto& a : args) {
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, DataType::String()));
  }
  char escape = '\\';
  if (args.size() == 3) {
    const Value* v = args[2]->literal_value();
    if (v && !v->is_null() && v->str().size() == 1) escape = v->str()[0];
    args.pop_back();
  }
  std::string name = ci ? "ilike" : "like";
  return MakeScalarCall(
      name, DataType::Boolean(), args[0]->nullable() || args[1]->nullable(), args,
      [ci, escape](const std::vector<ColumnPtr>& c, int64_t n,
                   const EvalContext&) -> Result<ColumnPtr> {
        int64_t nulls = 0;
        BufferPtr validity = kernel::AndValidity({c[0].get(), c[1].get()}, n, &nulls);
        auto out = Buffer::Allocate(bits::BytesFor(n));
        uint8_t* o = out->mutable_data();
        std::string_view last_checked;
        bool checked = false;
        for (int64_t i = 0; i < n; ++i) {
          if (!kernel::Valid(validity, i)) continue;
          std::string_view pattern = c[1]->GetView(i);
          if (!checked || pattern != last_checked) {
            SPATE_RETURN_IF_ERROR(ValidateLikePattern(pattern, escape));
            last_checked = pattern;
            checked = true;
          }
          if (LikeMatch(c[0]->GetView(i), pattern, escape, ci)) bits::Set(o, i);
        }
        return kernel::MakeColumn(DataType::Boolean(), n, nulls, validity, out);
      },
      [name](const std::vector<std::string>& s) {
        return s[0] + " " + ToUpper(name) + " " + s[1];
      });
}

// --- Lazily evaluated conditionals -------------------------------------------------

// Evaluates `e` on the given rows of `input` only.
Result<ColumnPtr> EvaluateOnRows(const BoundExpr& e, const Batch& input,
                                 const std::vector<int32_t>& rows,
                                 const EvalContext& ctx) {
  if (static_cast<int64_t>(rows.size()) == input.num_rows())
    return e.Evaluate(input, ctx);
  BatchPtr sub = TakeBatch(input, rows.data(), static_cast<int64_t>(rows.size()));
  return e.Evaluate(*sub, ctx);
}

// CASE WHEN c1 THEN v1 ... ELSE e END; children = [c1, v1, ..., (else)].
class CaseWhenExpr final : public BoundExpr {
 public:
  CaseWhenExpr(DataTypePtr type, std::vector<BoundExprPtr> children, bool has_else)
      : BoundExpr(std::move(type), true, std::move(children)), has_else_(has_else) {
    nullable_ = ValuesNullable(children_, has_else_);
  }

  // Spark's CaseWhen: NULL only from a NULL value or a missing ELSE.
  static bool ValuesNullable(const std::vector<BoundExprPtr>& children, bool has_else) {
    if (!has_else) return true;
    for (size_t i = 1; i < children.size(); i += 2) {
      if (children[i]->nullable()) return true;
    }
    return children.back()->nullable();
  }

  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    int64_t n = input.num_rows();
    std::vector<int32_t> remaining(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) remaining[i] = static_cast<int32_t>(i);
    std::vector<ColumnPtr> parts;
    std::vector<uint64_t> refs(static_cast<size_t>(n), ~uint64_t{0});
    size_t branches = (children_.size() - (has_else_ ? 1 : 0)) / 2;
    for (size_t b = 0; b < branches && !remaining.empty(); ++b) {
      SPATE_ASSIGN_OR_RETURN(auto cond,
                             EvaluateOnRows(*children_[2 * b], input, remaining, ctx));
      std::vector<int32_t> hit, miss;
      for (size_t k = 0; k < remaining.size(); ++k) {
        bool t = cond->IsValid(static_cast<int64_t>(k)) &&
                 cond->GetBool(static_cast<int64_t>(k));
        (t ? hit : miss).push_back(remaining[k]);
      }
      if (!hit.empty()) {
        SPATE_ASSIGN_OR_RETURN(auto val,
                               EvaluateOnRows(*children_[2 * b + 1], input, hit, ctx));
        uint64_t part = parts.size();
        parts.push_back(val);
        for (size_t k = 0; k < hit.size(); ++k) refs[hit[k]] = (part << 32) | k;
      }
      remaining = std::move(miss);
    }
    if (has_else_ && !remaining.empty()) {
      SPATE_ASSIGN_OR_RETURN(auto val,
                             EvaluateOnRows(*children_.back(), input, remaining, ctx));
      uint64_t part = parts.size();
      parts.push_back(val);
      for (size_t k = 0; k < remaining.size(); ++k) refs[remaining[k]] = (part << 32) | k;
    }
    if (parts.empty()) return Column::MakeNull(type_, n);
    return TakeMulti(parts, refs.data(), n);
  }
  std::string ToString() const override {
    std::string out = "CASE";
    size_t branches = (children_.size() - (has_else_ ? 1 : 0)) / 2;
    for (size_t b = 0; b < branches; ++b) {
      out += " WHEN " + children_[2 * b]->ToString() + " THEN " +
             children_[2 * b + 1]->ToString();
    }
    if (has_else_) out += " ELSE " + children_.back()->ToString();
    return out + " END";
  }

 private:
  bool has_else_;
};

// COALESCE(a, b, ...): evaluates each next argument only on rows still NULL.
class CoalesceExpr final : public BoundExpr {
 public:
  CoalesceExpr(DataTypePtr type, bool nullable, std::vector<BoundExprPtr> children,
               std::string name)
      : BoundExpr(std::move(type), nullable, std::move(children)),
        name_(std::move(name)) {}
  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    int64_t n = input.num_rows();
    SPATE_ASSIGN_OR_RETURN(auto first, children_[0]->Evaluate(input, ctx));
    if (first->null_count() == 0 || children_.size() == 1) return first;
    std::vector<ColumnPtr> parts{first};
    std::vector<uint64_t> refs(static_cast<size_t>(n), ~uint64_t{0});
    std::vector<int32_t> remaining;
    for (int64_t i = 0; i < n; ++i) {
      if (first->IsValid(i)) {
        refs[i] = static_cast<uint64_t>(i);
      } else {
        remaining.push_back(static_cast<int32_t>(i));
      }
    }
    for (size_t c = 1; c < children_.size() && !remaining.empty(); ++c) {
      SPATE_ASSIGN_OR_RETURN(auto val,
                             EvaluateOnRows(*children_[c], input, remaining, ctx));
      uint64_t part = parts.size();
      parts.push_back(val);
      std::vector<int32_t> still;
      for (size_t k = 0; k < remaining.size(); ++k) {
        if (val->IsValid(static_cast<int64_t>(k))) {
          refs[remaining[k]] = (part << 32) | k;
        } else {
          still.push_back(remaining[k]);
        }
      }
      remaining = std::move(still);
    }
    return TakeMulti(parts, refs.data(), n);
  }
  std::string ToString() const override {
    std::vector<std::string> args;
    for (const auto& c : children_) args.push_back(c->ToString());
    return CallText(name_, args);
  }

 private:
  std::string name_;
};

Result<BoundExprPtr> ResolveCoalesce(const std::string& name,
                                     std::vector<BoundExprPtr> args) {
  if (args.empty()) {
    return Status::Error(
        "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        {{"functionName", "`" + name + "`"}, {"expectedNum", "> 0"}, {"actualNum", "0"}});
  }
  SPATE_ASSIGN_OR_RETURN(args, CoerceToCommon(std::move(args), name));
  bool nullable = true;
  for (const auto& a : args) nullable = nullable && a->nullable();
  DataTypePtr t = args[0]->type();
  return std::make_shared<CoalesceExpr>(t, nullable, std::move(args), name);
}

// value IN (list): true if any equal; NULL if no match and value or any item NULL.
Result<BoundExprPtr> ResolveInList(std::vector<BoundExprPtr> args) {
  SPATE_ASSIGN_OR_RETURN(args, CoerceToCommon(std::move(args), "in"));
  bool nullable = false;  // Spark's In: NULL only from a NULL value or list item
  for (const auto& a : args) nullable |= a->nullable();
  return MakeScalarCall(
      "in", DataType::Boolean(), nullable, args,
      [](const std::vector<ColumnPtr>& c, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        auto out = Buffer::Allocate(bits::BytesFor(n));
        auto valid = Buffer::Allocate(bits::BytesFor(n));
        uint8_t* o = out->mutable_data();
        uint8_t* v = valid->mutable_data();
        int64_t nulls = 0;
        for (int64_t i = 0; i < n; ++i) {
          bool found = false, saw_null = c[0]->IsNull(i);
          if (!saw_null) {
            for (size_t k = 1; k < c.size(); ++k) {
              if (c[k]->IsNull(i)) {
                saw_null = true;
                continue;
              }
              if (CompareValuesAt(*c[0], i, *c[k], i) == 0) {
                found = true;
                break;
              }
            }
          }
          if (found) {
            bits::Set(o, i);
            bits::Set(v, i);
          } else if (saw_null) {
            ++nulls;
          } else {
            bits::Set(v, i);
          }
        }
        return kernel::MakeColumn(DataType::Boolean(), n, nulls, nulls ? valid : nullptr,
                                  out);
      },
      [](const std::vector<std::string>& s) {
        std::string out = s[0] + " IN (";
        for (size_t i = 1; i < s.size(); ++i) out += (i > 1 ? "," : "") + s[i];
        return out + ")";
      });
}

}  // namespace

Result<BoundExprPtr> MakeCaseWhen(std::vector<BoundExprPtr> branches,
                                  const BoundExprPtr& else_value) {
  std::vector<BoundExprPtr> values;
  for (size_t i = 0; i + 1 < branches.size(); i += 2) {
    SPATE_RETURN_IF_ERROR(RequireBoolean(branches[i], "CASE WHEN", "first"));
    SPATE_ASSIGN_OR_RETURN(branches[i], ImplicitCast(branches[i], DataType::Boolean()));
    values.push_back(branches[i + 1]);
  }
  if (else_value) values.push_back(else_value);
  SPATE_ASSIGN_OR_RETURN(values, CoerceToCommon(std::move(values), "casewhen"));
  std::vector<BoundExprPtr> children;
  size_t vi = 0;
  for (size_t i = 0; i + 1 < branches.size(); i += 2) {
    children.push_back(branches[i]);
    children.push_back(values[vi++]);
  }
  if (else_value) children.push_back(values[vi]);
  return std::make_shared<CaseWhenExpr>(values[0]->type(), std::move(children),
                                        else_value != nullptr);
}

namespace {

// IN over a precomputed set of values, as an encoded-key hash set.
class InSetExpr final : public BoundExpr {
 public:
  InSetExpr(BoundExprPtr value, std::unordered_set<std::string> keys, bool set_has_null,
            std::string display)
      : BoundExpr(DataType::Boolean(), true, {std::move(value)}),
        keys_(std::move(keys)),
        set_has_null_(set_has_null),
        display_(std::move(display)) {}

  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    SPATE_ASSIGN_OR_RETURN(ColumnPtr v, children_[0]->Evaluate(input, ctx));
    const int64_t n = input.num_rows();
    auto out = Buffer::Allocate(bits::BytesFor(n));
    auto valid = Buffer::Allocate(bits::BytesFor(n));
    uint8_t* o = out->mutable_data();
    uint8_t* ok = valid->mutable_data();
    int64_t nulls = 0;
    RowEncoder enc;
    enc.Encode({v.get()}, n);
    for (int64_t i = 0; i < n; ++i) {
      if (v->IsNull(i)) {
        ++nulls;
        continue;
      }
      if (keys_.count(std::string(enc.key(i))) > 0) {
        bits::Set(o, i);
        bits::Set(ok, i);
      } else if (set_has_null_) {
        ++nulls;
      } else {
        bits::Set(ok, i);
      }
    }
    return kernel::MakeColumn(DataType::Boolean(), n, nulls, nulls ? valid : nullptr,
                              out);
  }
  std::string ToString() const override {
    return "(" + children_[0]->ToString() + " IN (" + display_ + "))";
  }

 private:
  std::unordered_set<std::string> keys_;
  bool set_has_null_;
  std::string display_;
};

}  // namespace

Result<BoundExprPtr> MakeInSet(BoundExprPtr value, ColumnPtr set, std::string display) {
  DataTypePtr common = CommonType(value->type(), set->type());
  if (!common) {
    return Status::Error(
        "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
        {{"sqlExpr", "\"(" + value->ToString() + " IN (" + display + "))\""},
         {"functionName", "`in`"},
         {"dataType",
          "[" + QuoteType(*value->type()) + ", " + QuoteType(*set->type()) + "]"}});
  }
  SPATE_ASSIGN_OR_RETURN(value, ImplicitCast(value, common));
  if (!set->type()->SameType(*common)) {
    EvalContext ctx;
    SPATE_ASSIGN_OR_RETURN(set, CastColumn(set, common, CastMode::kAnsi, ctx));
  }
  std::unordered_set<std::string> keys;
  bool has_null = false;
  RowEncoder enc;
  enc.Encode({set.get()}, set->length());
  for (int64_t i = 0; i < set->length(); ++i) {
    if (set->IsNull(i)) {
      has_null = true;
    } else {
      keys.emplace(enc.key(i));
    }
  }
  return BoundExprPtr(std::make_shared<InSetExpr>(std::move(value), std::move(keys),
                                                  has_null, std::move(display)));
}

Result<BoundExprPtr> MakeInList(BoundExprPtr value, std::vector<BoundExprPtr> list) {
  list.insert(list.begin(), std::move(value));
  return ResolveInList(std::move(list));
}

void RegisterPredicateFunctions(FunctionRegistry& r) {
  auto cmp = [&r](const char* name, CmpOp op) {
    r.RegisterScalar(name, [op](std::vector<BoundExprPtr> args, const ResolveContext&) {
      return ResolveCompare(op, std::move(args));
    });
  };
  cmp("=", CmpOp::kEq);
  cmp("==", CmpOp::kEq);
  cmp("!=", CmpOp::kNe);
  cmp("<>", CmpOp::kNe);
  cmp("<", CmpOp::kLt);
  cmp("<=", CmpOp::kLe);
  cmp(">", CmpOp::kGt);
  cmp(">=", CmpOp::kGe);
  r.RegisterScalar("<=>", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveNullSafeEq(std::move(args));
  });
  r.RegisterScalar("and", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveLogic(true, std::move(args));
  });
  r.RegisterScalar("or", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveLogic(false, std::move(args));
  });
  r.RegisterScalar("not", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveNot(std::move(args));
  });
  r.RegisterScalar("isnull", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveIsNull(true, std::move(args));
  });
  r.RegisterScalar("isnotnull",
                   [](std::vector<BoundExprPtr> args, const ResolveContext&) {
                     return ResolveIsNull(false, std::move(args));
                   });
  r.RegisterScalar("like", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveLike(false, std::move(args));
  });
  r.RegisterScalar("ilike", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveLike(true, std::move(args));
  });
  r.RegisterScalar("coalesce", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveCoalesce("coalesce", std::move(args));
  });
  for (const char* name : {"nvl", "ifnull"}) {
    r.RegisterScalar(name,
                     [name](std::vector<BoundExprPtr> args,
                            const ResolveContext&) -> Result<BoundExprPtr> {
                       if (args.size() != 2) {
                         return Status::Error(
                             "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                             {{"functionName", std::string("`") + name + "`"},
                              {"expectedNum", "2"},
                              {"actualNum", std::to_string(args.size())}});
                       }
                       return ResolveCoalesce(name, std::move(args));
                     });
  }
  r.RegisterScalar(
      "if",
      [](std::vector<BoundExprPtr> args, const ResolveContext&) -> Result<BoundExprPtr> {
        if (args.size() != 3) {
          return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                               {{"functionName", "`if`"},
                                {"expectedNum", "3"},
                                {"actualNum", std::to_string(args.size())}});
        }
        return MakeCaseWhen({args[0], args[1]}, args[2]);
      });
  r.RegisterScalar("in", [](std::vector<BoundExprPtr> args, const ResolveContext&) {
    return ResolveInList(std::move(args));
  });
  r.RegisterScalar(
      "between",
      [](std::vector<BoundExprPtr> args, const ResolveContext&) -> Result<BoundExprPtr> {
        SPATE_ASSIGN_OR_RETURN(auto ge, ResolveCompare(CmpOp::kGe, {args[0], args[1]}));
        SPATE_ASSIGN_OR_RETURN(auto le, ResolveCompare(CmpOp::kLe, {args[0], args[2]}));
        return ResolveLogic(true, {ge, le});
      });
}

}  // namespace spate
