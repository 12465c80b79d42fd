// Copyright spate authors.
//
// Collection functions with Spark 4 semantics: array constructors and accessors, array
// set/sort operations, sequence, maps and structs. Arrays and maps use the Arrow list
// layout; most kernels compute output offsets plus an index vector into the input's child
// column and gather the elements with Take (one typed loop per layout).
//
// Thread safety: resolvers and kernels are pure. Failure: type errors at resolve time
// (DATATYPE_MISMATCH.*), runtime errors as Spark's classes
// (INVALID_ARRAY_INDEX_IN_ELEMENT_AT, NULL_MAP_KEY, DUPLICATED_MAP_KEY, ...).

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <unordered_set>

#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/columnar/row_encoding.h"
#include "spate/compute/coercion.h"
#include "spate/compute/datetime_functions.h"
#include "spate/compute/function_args.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/generators.h"
#include "spate/compute/higher_order.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested.h"
#include "spate/compute/nested_columns.h"
#include "spate/compute/predicates.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

Status WrongNumArgs(const std::string& name, const std::string& expected, size_t actual) {
  return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                       {{"functionName", "`" + name + "`"},
                        {"expectedNum", expected},
                        {"actualNum", std::to_string(actual)},
                        {"docroot", "https://spark.apache.org/docs/latest"}});
}

std::string SqlExpr(const std::string& name, const Args& args) {
  std::vector<std::string> s;
  for (const auto& a : args) s.push_back(a->ToString());
  return "\"" + CallText(name, s) + "\"";
}

const char* Ordinal(size_t i) {
  static const char* kNames[] = {"first", "second", "third", "fourth", "fifth"};
  return i < 5 ? kNames[i] : "next";
}

Status UnexpectedType(const std::string& name, const Args& args, size_t i,
                      const std::string& required) {
  return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                       {{"sqlExpr", SqlExpr(name, args)},
                        {"paramIndex", Ordinal(i)},
                        {"requiredType", required},
                        {"inputSql", "\"" + args[i]->ToString() + "\""},
                        {"inputType", QuoteType(*args[i]->type())}});
}

bool IsArray(const BoundExprPtr& e) { return e->type()->id() == TypeId::kArray; }
bool IsMap(const BoundExprPtr& e) { return e->type()->id() == TypeId::kMap; }
bool IsNullType(const BoundExprPtr& e) { return e->type()->id() == TypeId::kNull; }

/// Casts a NULL-typed argument to `t` (Spark's implicit cast of NullType to any type).
Result<BoundExprPtr> NullTo(BoundExprPtr e, const DataTypePtr& t) {
  if (IsNullType(e)) return ImplicitCast(std::move(e), t);
  return e;
}

/// Element equality with Spark's ordering semantics (NaN = NaN); both non-null.
inline bool ElemEq(const Column& a, int64_t i, const Column& b, int64_t j) {
  return CompareValuesAt(a, i, b, j) == 0;
}

/// Name Spark gives a struct field / zipped array built from expression `e` when it is a
/// plain column reference ("a#3" -> "a"); empty otherwise.
std::string ColumnName(const BoundExprPtr& e) {
  if (const std::string* lambda = LambdaVariableName(*e)) return *lambda;
  if (e->column_index() < 0) return "";
  std::string s = e->ToString();
  size_t hash = s.rfind('#');
  if (hash == std::string::npos || hash == 0) return "";
  return s.substr(0, hash);
}

Status CheckOrderable(const std::string& name, const Args& args, const DataTypePtr& t) {
  if (!IsOrderable(*t)) {
    return Status::Error("DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
                         {{"sqlExpr", SqlExpr(name, args)},
                          {"functionName", "`" + name + "`"},
                          {"dataType", QuoteType(*t)}});
  }
  return Status::OK();
}

// ---- array(...)
// ------------------------------------------------------------------------

Result<BoundExprPtr> ResolveArray(Args args, const ResolveContext&) {
  // array() is a constant (foldable, e.g. in VALUES): array<void> without NULLs, as
  // Spark.
  if (args.empty())
    return MakeLiteral(Value::ArrayOf(DataType::Array(DataType::Null(), false), {}));
  DataTypePtr elem = DataType::Null();
  bool contains_null = false;
  if (!args.empty()) {
    SPATE_ASSIGN_OR_RETURN(args, CoerceToCommon(std::move(args), "array"));
    elem = args[0]->type();
    for (const auto& a : args) contains_null |= a->nullable();
  }
  DataTypePtr type = DataType::Array(elem, contains_null);
  return MakeScalarCall(
      "array", type, false, args,
      [type, elem](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        int64_t k = static_cast<int64_t>(c.size());
        std::vector<int32_t> offsets(static_cast<size_t>(n + 1));
        for (int64_t i = 0; i <= n; ++i) offsets[i] = static_cast<int32_t>(i * k);
        std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
        if (k == 0)
          return MakeListColumn(type, offsets, valid, Column::MakeNull(elem, 0));
        ColumnPtr all = Concat(c);
        std::vector<int32_t> take(static_cast<size_t>(n * k));
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < k; ++j)
            take[i * k + j] = static_cast<int32_t>(j * n + i);
        }
        return MakeListColumn(type, offsets, valid, Take(*all, take.data(), n * k));
      });
}

// ---- size / cardinality --------------------------------------------------------------

Result<BoundExprPtr> ResolveSize(const std::string& name, Args args,
                                 const ResolveContext& rc) {
  if (args.size() != 1) return WrongNumArgs(name, "1", args.size());
  if (!IsArray(args[0]) && !IsMap(args[0]) && !IsNullType(args[0])) {
    return UnexpectedType(name, args, 0, "(\"ARRAY\" or \"MAP\")");
  }
  return MakeScalarCall(
      name, DataType::Int(), rc.ansi && args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext& ctx) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        kernel::Out<int32_t> out(n);
        // spark.sql.legacy.sizeOfNull is only effective with ANSI off: size(NULL) = -1.
        bool legacy = !ctx.ansi;
        bool is_null_type = a.type_id() == TypeId::kNull;
        const int32_t* o = is_null_type ? nullptr : a.offsets();
        std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsNull(i)) {
            out.data[i] = -1;
            valid[i] = legacy ? 1 : 0;
          } else {
            out.data[i] = o[i + 1] - o[i];
          }
        }
        int64_t nulls = 0;
        BufferPtr v = ValidityFromFlags(valid, &nulls);
        return kernel::MakeColumn(DataType::Int(), n, nulls, v, out.buf);
      });
}

// ---- array_contains / array_position / array_remove ---------------------------------

/// Coerces (array, value) to a common element type; Spark's ARRAY_FUNCTION_DIFF_TYPES.
Status CoerceArrayAndValue(const std::string& name, Args* args) {
  Args& a = *args;
  if (IsNullType(a[0])) {
    SPATE_ASSIGN_OR_RETURN(a[0], ImplicitCast(a[0], DataType::Array(a[1]->type())));
  }
  auto diff_types = [&] {
    return Status::Error("DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES",
                         {{"sqlExpr", SqlExpr(name, a)},
                          {"functionName", "`" + name + "`"},
                          {"dataType", "\"ARRAY\""},
                          {"leftType", QuoteType(*a[0]->type())},
                          {"rightType", QuoteType(*a[1]->type())}});
  };
  if (!IsArray(a[0])) return diff_types();
  const DataTypePtr& elem = a[0]->type()->element_type();
  if (elem->Equals(*a[1]->type())) return Status::OK();
  DataTypePtr common = CommonType(elem, a[1]->type());
  if (!common || (common->id() == TypeId::kString && elem->id() != TypeId::kString &&
                  elem->id() != TypeId::kNull)) {
    return diff_types();
  }
  SPATE_ASSIGN_OR_RETURN(
      a[0], ImplicitCast(a[0], DataType::Array(common, a[0]->type()->contains_null())));
  SPATE_ASSIGN_OR_RETURN(a[1], ImplicitCast(a[1], common));
  return Status::OK();
}

/// The arguments of name(array, value): two, of a common element type that compares.
Status ResolveArrayAndValue(const std::string& name, Args* args) {
  if (args->size() != 2) return WrongNumArgs(name, "2", args->size());
  SPATE_RETURN_IF_ERROR(CoerceArrayAndValue(name, args));
  return CheckOrderable(name, *args, (*args)[1]->type());
}

/// The rows of an (array, value) call `c`: null_row() where the array or the value is
/// null, else row(i, begin, end) over the array's elements [begin, end) of its child.
template <typename NullRow, typename Row>
void ForArrayAndValueRows(const Cols& c, int64_t n, NullRow&& null_row, Row&& row) {
  const Column& a = *c[0];
  const Column& v = *c[1];
  const int32_t* o = a.offsets();
  for (int64_t i = 0; i < n; ++i) {
    if (a.IsNull(i) || v.IsNull(i)) {
      null_row();
    } else {
      row(i, o[i], o[i + 1]);
    }
  }
}

Result<BoundExprPtr> ResolveArrayContains(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(ResolveArrayAndValue("array_contains", &args));
  return MakeScalarCall(
      "array_contains", DataType::Boolean(),
      args[0]->nullable() || args[1]->nullable() || args[0]->type()->contains_null(),
      args, [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& e = *c[0]->child(0);
        const Column& v = *c[1];
        BooleanBuilder b;
        ForArrayAndValueRows(
            c, n, [&] { b.AppendNull(); },
            [&](int64_t i, int32_t begin, int32_t end) {
              bool found = false, saw_null = false;
              for (int32_t k = begin; k < end && !found; ++k) {
                if (e.IsNull(k)) {
                  saw_null = true;
                } else if (ElemEq(e, k, v, i)) {
                  found = true;
                }
              }
              if (found) {
                b.Append(true);
              } else if (saw_null) {
                b.AppendNull();
              } else {
                b.Append(false);
              }
            });
        return b.Finish();
      });
}

Result<BoundExprPtr> ResolveArrayPosition(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(ResolveArrayAndValue("array_position", &args));
  return MakeScalarCall(
      "array_position", DataType::Long(), fn::AnyNullable(args), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& e = *c[0]->child(0);
        const Column& v = *c[1];
        FixedWidthBuilder<int64_t> b(DataType::Long(), n);
        ForArrayAndValueRows(
            c, n, [&] { b.AppendNull(); },
            [&](int64_t i, int32_t begin, int32_t end) {
              int64_t pos = 0;
              for (int32_t k = begin; k < end; ++k) {
                if (!e.IsNull(k) && ElemEq(e, k, v, i)) {
                  pos = k - begin + 1;
                  break;
                }
              }
              b.Append(pos);
            });
        return b.Finish();
      });
}

Result<BoundExprPtr> ResolveArrayRemove(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(ResolveArrayAndValue("array_remove", &args));
  DataTypePtr type = args[0]->type();
  return MakeScalarCall(
      "array_remove", type, fn::AnyNullable(args), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& e = *c[0]->child(0);
        const Column& v = *c[1];
        ListTake lo;
        ForArrayAndValueRows(
            c, n, [&] { lo.EndRow(false); },
            [&](int64_t i, int32_t begin, int32_t end) {
              for (int32_t k = begin; k < end; ++k) {
                if (e.IsNull(k) || !ElemEq(e, k, v, i)) lo.refs.push_back(k);
              }
              lo.EndRow(true);
            });
        return lo.Finish(type, e);
      });
}

Result<BoundExprPtr> ResolveElementAt(const std::string& name, bool try_mode, Args args,
                                      const ResolveContext&) {
  if (args.size() != 2) return WrongNumArgs(name, "2", args.size());
  if (IsMap(args[0])) {
    DataTypePtr kt = args[0]->type()->key_type();
    if (!args[1]->type()->Equals(*kt)) {
      DataTypePtr common = CommonType(kt, args[1]->type());
      if (!common || !common->Equals(*kt)) {
        return Status::Error("DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES",
                             {{"sqlExpr", SqlExpr(name, args)},
                              {"functionName", "`" + name + "`"},
                              {"dataType", "\"MAP\""},
                              {"leftType", QuoteType(*args[0]->type())},
                              {"rightType", QuoteType(*args[1]->type())}});
      }
      SPATE_ASSIGN_OR_RETURN(args[1], ImplicitCast(args[1], kt));
    }
    DataTypePtr vt = args[0]->type()->value_type();
    return MakeScalarCall(
        name, vt, true, args,
        [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
          const Column& m = *c[0];
          const Column& key = *c[1];
          const Column& keys = *m.child(0)->child(0);
          const int32_t* o = m.offsets();
          std::vector<int32_t> take(static_cast<size_t>(n), -1);
          for (int64_t i = 0; i < n; ++i) {
            if (m.IsNull(i) || key.IsNull(i)) continue;
            for (int32_t k = o[i]; k < o[i + 1]; ++k) {
              if (ElemEq(keys, k, key, i)) {
                take[i] = k;
                break;
              }
            }
          }
          return Take(*m.child(0)->child(1), take.data(), n);
        });
  }
  SPATE_ASSIGN_OR_RETURN(args[0], NullTo(args[0], DataType::Array(DataType::Null())));
  if (!IsArray(args[0])) return UnexpectedType(name, args, 0, "(\"ARRAY\" or \"MAP\")");
  if (!args[1]->type()->IsIntegral() && !IsNullType(args[1])) {
    return UnexpectedType(name, args, 1, "\"INT\"");
  }
  if (args[1]->type()->id() == TypeId::kLong) {
    return UnexpectedType(name, args, 1, "\"INT\"");
  }
  SPATE_ASSIGN_OR_RETURN(args[1], ImplicitCast(args[1], DataType::Int()));
  DataTypePtr et = args[0]->type()->element_type();
  return MakeScalarCall(
      name, et, ElementNullable(args[0], args[1], true), args,
      [try_mode](const Cols& c, int64_t n, const EvalContext& ctx) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& idx = *c[1];
        const int32_t* o = a.offsets();
        const int32_t* iv = idx.raw_values<int32_t>();
        std::vector<int32_t> take(static_cast<size_t>(n), -1);
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsNull(i) || idx.IsNull(i)) continue;
          int32_t k = iv[i];
          int32_t len = o[i + 1] - o[i];
          if (k == 0) return Status::Error("INVALID_INDEX_OF_ZERO", {});
          if (k > len || k < -len) {
            if (ctx.ansi && !try_mode) {
              return Status::Error("INVALID_ARRAY_INDEX_IN_ELEMENT_AT",
                                   {{"indexValue", std::to_string(k)},
                                    {"arraySize", std::to_string(len)},
                                    {"ansiConfig", "\"spark.sql.ansi.enabled\""}});
            }
            continue;
          }
          take[i] = k > 0 ? o[i] + k - 1 : o[i + 1] + k;
        }
        return Take(*a.child(0), take.data(), n);
      });
}

// ---- array_distinct ------------------------------------------------------------------

Result<BoundExprPtr> ResolveArrayDistinct(Args args, const ResolveContext&) {
  if (args.size() != 1) return WrongNumArgs("array_distinct", "1", args.size());
  SPATE_ASSIGN_OR_RETURN(args[0], NullTo(args[0], DataType::Array(DataType::Null())));
  if (!IsArray(args[0])) return UnexpectedType("array_distinct", args, 0, "\"ARRAY\"");
  DataTypePtr type = args[0]->type();
  return MakeScalarCall(
      "array_distinct", type, fn::AnyNullable(args), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& e = *a.child(0);
        const int32_t* o = a.offsets();
        RowEncoder enc;
        enc.Encode({&e}, e.length());
        ListTake lo;
        std::unordered_set<std::string_view> seen;
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsNull(i)) {
            lo.EndRow(false);
            continue;
          }
          seen.clear();
          for (int32_t k = o[i]; k < o[i + 1]; ++k) {
            if (seen.insert(enc.key(k)).second) lo.refs.push_back(k);
          }
          lo.EndRow(true);
        }
        return lo.Finish(type, e);
      });
}

// ---- array_join ----------------------------------------------------------------------

Result<BoundExprPtr> ResolveArrayJoin(Args args, const ResolveContext&) {
  if (args.size() < 2 || args.size() > 3)
    return WrongNumArgs("array_join", "[2, 3]", args.size());
  SPATE_ASSIGN_OR_RETURN(args[0], NullTo(args[0], DataType::Array(DataType::String())));
  if (!IsArray(args[0]))
    return UnexpectedType("array_join", args, 0, "\"ARRAY<STRING>\"");
  if (args[0]->type()->element_type()->id() != TypeId::kString) {
    SPATE_ASSIGN_OR_RETURN(args[0],
                           ImplicitCast(args[0], DataType::Array(DataType::String())));
  }
  for (size_t i = 1; i < args.size(); ++i) {
    SPATE_ASSIGN_OR_RETURN(args[i], ImplicitCast(args[i], DataType::String()));
  }
  return MakeScalarCall(
      "array_join", DataType::String(), fn::AnyNullable(args), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& d = *c[1];
        const Column* rep = c.size() > 2 ? c[2].get() : nullptr;
        const Column& e = *a.child(0);
        const int32_t* o = a.offsets();
        StringBuilder b;
        std::string s;
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsNull(i) || d.IsNull(i) || (rep && rep->IsNull(i))) {
            b.AppendNull();
            continue;
          }
          s.clear();
          bool first = true;
          std::string_view delim = d.GetView(i);
          for (int32_t k = o[i]; k < o[i + 1]; ++k) {
            std::string_view v;
            if (e.IsNull(k)) {
              if (!rep) continue;
              v = rep->GetView(i);
            } else {
              v = e.GetView(k);
            }
            if (!first) s.append(delim);
            s.append(v);
            first = false;
          }
          b.Append(s);
        }
        return b.Finish();
      });
}

// ---- array_max / array_min -----------------------------------------------------------

Result<BoundExprPtr> ResolveArrayMinMax(const std::string& name, bool is_max, Args args,
                                        const ResolveContext&) {
  if (args.size() != 1) return WrongNumArgs(name, "1", args.size());
  SPATE_ASSIGN_OR_RETURN(args[0], NullTo(args[0], DataType::Array(DataType::Null())));
  if (!IsArray(args[0])) return UnexpectedType(name, args, 0, "\"ARRAY\"");
  DataTypePtr et = args[0]->type()->element_type();
  SPATE_RETURN_IF_ERROR(CheckOrderable(name, args, et));
  return MakeScalarCall(
      name, et, true, args,
      [is_max](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& e = *a.child(0);
        const int32_t* o = a.offsets();
        std::vector<int32_t> take(static_cast<size_t>(n), -1);
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsNull(i)) continue;
          int32_t best = -1;
          for (int32_t k = o[i]; k < o[i + 1]; ++k) {
            if (e.IsNull(k)) continue;
            if (best < 0) {
              best = k;
              continue;
            }
            int cmp = CompareValuesAt(e, k, e, best);
            if (is_max ? cmp > 0 : cmp < 0) best = k;
          }
          take[i] = best;
        }
        return Take(e, take.data(), n);
      });
}

// ---- array_sort / sort_array ----------------------------------------------------------

ColumnPtr SortArrays(const DataTypePtr& type, const Column& a, int64_t n, bool ascending,
                     bool nulls_first) {
  const Column& e = *a.child(0);
  const int32_t* o = a.offsets();
  ListTake lo;
  for (int64_t i = 0; i < n; ++i) {
    if (a.IsNull(i)) {
      lo.EndRow(false);
      continue;
    }
    size_t begin = lo.refs.size();
    std::vector<int32_t> nulls;
    for (int32_t k = o[i]; k < o[i + 1]; ++k) {
      if (e.IsNull(k)) {
        nulls.push_back(k);
      } else {
        lo.refs.push_back(k);
      }
    }
    std::stable_sort(lo.refs.begin() + static_cast<std::ptrdiff_t>(begin), lo.refs.end(),
                     [&](int32_t x, int32_t y) {
                       int cmp = CompareValuesAt(e, x, e, y);
                       return ascending ? cmp < 0 : cmp > 0;
                     });
    if (nulls_first) {
      lo.refs.insert(lo.refs.begin() + static_cast<std::ptrdiff_t>(begin), nulls.begin(),
                     nulls.end());
    } else {
      lo.refs.insert(lo.refs.end(), nulls.begin(), nulls.end());
    }
    lo.EndRow(true);
  }
  return lo.Finish(type, e);
}

Result<BoundExprPtr> ResolveArraySort(Args args, const ResolveContext&) {
  if (args.size() != 1) {
    if (args.size() == 2) {
      return Status::Error("UNSUPPORTED_FEATURE.LAMBDA_FUNCTION_WITH_PYTHON_UDF",
                           {{"funcName", "array_sort"}});
    }
    return WrongNumArgs("array_sort", "1", args.size());
  }
  SPATE_ASSIGN_OR_RETURN(args[0], NullTo(args[0], DataType::Array(DataType::Null())));
  if (!IsArray(args[0])) return UnexpectedType("array_sort", args, 0, "\"ARRAY\"");
  SPATE_RETURN_IF_ERROR(
      CheckOrderable("array_sort", args, args[0]->type()->element_type()));
  DataTypePtr type = args[0]->type();
  return MakeScalarCall(
      "array_sort", type, args[0]->nullable(), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        return SortArrays(type, *c[0], n, true, false);
      });
}

Result<BoundExprPtr> ResolveSortArray(Args args, const ResolveContext&) {
  if (args.empty() || args.size() > 2)
    return WrongNumArgs("sort_array", "[1, 2]", args.size());
  SPATE_ASSIGN_OR_RETURN(args[0], NullTo(args[0], DataType::Array(DataType::Null())));
  if (!IsArray(args[0])) return UnexpectedType("sort_array", args, 0, "\"ARRAY\"");
  SPATE_RETURN_IF_ERROR(
      CheckOrderable("sort_array", args, args[0]->type()->element_type()));
  bool asc = true;
  if (args.size() == 2) {
    const Value* v = args[1]->literal_value();
    if (!v || v->is_null() || v->type()->id() != TypeId::kBoolean) {
      return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                           {{"sqlExpr", SqlExpr("sort_array", args)},
                            {"paramIndex", "second"},
                            {"requiredType", "\"BOOLEAN\""},
                            {"inputSql", "\"" + args[1]->ToString() + "\""},
                            {"inputType", QuoteType(*args[1]->type())}});
    }
    asc = v->i64() != 0;
  }
  DataTypePtr type = args[0]->type();
  Args call_args = {args[0]};
  return MakeScalarCall(
      "sort_array", type, args[0]->nullable(), call_args,
      [type, asc](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        return SortArrays(type, *c[0], n, asc, asc);
      });
}

// ---- slice ---------------------------------------------------------------------------

Result<BoundExprPtr> ResolveSlice(Args args, const ResolveContext&) {
  if (args.size() != 3) return WrongNumArgs("slice", "3", args.size());
  SPATE_ASSIGN_OR_RETURN(args[0], NullTo(args[0], DataType::Array(DataType::Null())));
  if (!IsArray(args[0])) return UnexpectedType("slice", args, 0, "\"ARRAY\"");
  for (size_t i = 1; i < 3; ++i) {
    if (!args[i]->type()->IsIntegral() && !IsNullType(args[i])) {
      return UnexpectedType("slice", args, i, "\"INT\"");
    }
    SPATE_ASSIGN_OR_RETURN(args[i], ImplicitCast(args[i], DataType::Int()));
  }
  DataTypePtr type = args[0]->type();
  return MakeScalarCall(
      "slice", type, fn::AnyNullable(args), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& st = *c[1];
        const Column& ln = *c[2];
        const int32_t* o = a.offsets();
        ListTake lo;
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsNull(i) || st.IsNull(i) || ln.IsNull(i)) {
            lo.EndRow(false);
            continue;
          }
          int64_t start = st.raw_values<int32_t>()[i];
          int64_t length = ln.raw_values<int32_t>()[i];
          int64_t size = o[i + 1] - o[i];
          if (start == 0) {
            return Status::Error("INVALID_PARAMETER_VALUE.START",
                                 {{"parameter", "`start`"}, {"functionName", "`slice`"}});
          }
          if (length < 0) {
            return Status::Error("INVALID_PARAMETER_VALUE.LENGTH",
                                 {{"parameter", "`length`"},
                                  {"functionName", "`slice`"},
                                  {"length", std::to_string(length)}});
          }
          int64_t from = start > 0 ? start - 1 : start + size;
          if (from >= 0 && from < size) {
            int64_t to = std::min(size, from + length);
            for (int64_t k = from; k < to; ++k)
              lo.refs.push_back(static_cast<int32_t>(o[i] + k));
          }
          lo.EndRow(true);
        }
        return lo.Finish(type, *a.child(0));
      });
}

// ---- flatten -------------------------------------------------------------------------

Result<BoundExprPtr> ResolveFlatten(Args args, const ResolveContext&) {
  if (args.size() != 1) return WrongNumArgs("flatten", "1", args.size());
  if (!IsArray(args[0]) || args[0]->type()->element_type()->id() != TypeId::kArray) {
    return UnexpectedType("flatten", args, 0, "\"ARRAY\" of \"ARRAY\"");
  }
  DataTypePtr type = args[0]->type()->element_type();
  return MakeScalarCall(
      "flatten", type, args[0]->nullable() || args[0]->type()->contains_null(), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& inner = *a.child(0);
        const int32_t* o = a.offsets();
        const int32_t* io = inner.offsets();
        ListTake lo;
        for (int64_t i = 0; i < n; ++i) {
          bool null = a.IsNull(i);
          for (int32_t k = o[i]; k < o[i + 1] && !null; ++k) null = inner.IsNull(k);
          if (null) {
            lo.EndRow(false);
            continue;
          }
          for (int32_t k = o[i]; k < o[i + 1]; ++k) {
            for (int32_t j = io[k]; j < io[k + 1]; ++j) lo.refs.push_back(j);
          }
          lo.EndRow(true);
        }
        return lo.Finish(type, *inner.child(0));
      });
}

// ---- arrays_zip ----------------------------------------------------------------------

Result<BoundExprPtr> ResolveArraysZip(Args args, const ResolveContext&) {
  std::vector<Field> fields;
  for (size_t i = 0; i < args.size(); ++i) {
    SPATE_ASSIGN_OR_RETURN(args[i], NullTo(args[i], DataType::Array(DataType::Null())));
    if (!IsArray(args[i])) return UnexpectedType("arrays_zip", args, i, "\"ARRAY\"");
    std::string name = ColumnName(args[i]);
    if (name.empty()) name = std::to_string(i);
    fields.push_back(Field{name, args[i]->type()->element_type(), true});
  }
  DataTypePtr st = DataType::Struct(fields);
  DataTypePtr type = DataType::Array(st, false);
  return MakeScalarCall(
      "arrays_zip", type, fn::AnyNullable(args), args,
      [type, st](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        size_t k = c.size();
        std::vector<int32_t> offsets{0};
        std::vector<uint8_t> valid;
        std::vector<std::vector<int32_t>> takes(k);
        for (int64_t i = 0; i < n; ++i) {
          bool null = false;
          int32_t len = 0;
          for (size_t j = 0; j < k; ++j) {
            if (c[j]->IsNull(i)) {
              null = true;
              break;
            }
            const int32_t* o = c[j]->offsets();
            len = std::max(len, o[i + 1] - o[i]);
          }
          if (null) len = 0;
          for (size_t j = 0; j < k; ++j) {
            if (null) break;
            const int32_t* o = c[j]->offsets();
            for (int32_t e = 0; e < len; ++e)
              takes[j].push_back(e < o[i + 1] - o[i] ? o[i] + e : -1);
          }
          offsets.push_back(offsets.back() + len);
          valid.push_back(null ? 0 : 1);
        }
        int64_t total = offsets.back();
        std::vector<ColumnPtr> kids;
        for (size_t j = 0; j < k; ++j)
          kids.push_back(Take(*c[j]->child(0), takes[j].data(), total));
        return MakeListColumn(type, offsets, valid,
                              MakeStructColumn(st, total, std::move(kids)));
      });
}

// ---- sequence ------------------------------------------------------------------------

constexpr int64_t kMaxArrayLength = 2147483647LL - 15;

Status IllegalBoundaries(const std::string& start, const std::string& stop,
                         const std::string& step) {
  return Status::Invalid("requirement failed: Illegal sequence boundaries: " + start +
                         " to " + stop + " by " + step);
}

Status TooLong(int64_t count) {
  return Status::Error("COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER",
                       {{"numberOfElements", std::to_string(count)},
                        {"maxRoundedArrayLength", std::to_string(kMaxArrayLength)},
                        {"parameter", "`count`"},
                        {"functionName", "`sequence`"}});
}

Result<BoundExprPtr> ResolveSequence(Args args, const ResolveContext&) {
  if (args.size() < 2 || args.size() > 3)
    return WrongNumArgs("sequence", "[2, 3]", args.size());
  DataTypePtr st = args[0]->type();
  DataTypePtr sp = args[1]->type();
  auto wrong_types = [&]() {
    return Status::Error(
        "DATATYPE_MISMATCH.SEQUENCE_WRONG_INPUT_TYPES",
        {{"sqlExpr", SqlExpr("sequence", args)},
         {"functionName", "`sequence`"},
         {"startType", QuoteType(*st)},
         {"stepType", args.size() > 2 ? QuoteType(*args[2]->type()) : "\"NULL\""},
         {"otherStartType", "\"TIMESTAMP\", \"TIMESTAMP_NTZ\" or \"DATE\""}});
  };
  DataTypePtr common = CommonType(st, sp);
  if (!common) return wrong_types();
  TypeId id = common->id();
  bool integral = common->IsIntegral();
  bool temporal =
      id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
  if (!integral && !temporal) return wrong_types();
  SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], common));
  SPATE_ASSIGN_OR_RETURN(args[1], ImplicitCast(args[1], common));
  // Step kind: 0 = integral, 1 = day-time micros, 2 = year-month months.
  int step_kind = integral ? 0 : 1;
  if (args.size() == 3) {
    TypeId sid = args[2]->type()->id();
    if (integral) {
      if (!args[2]->type()->IsIntegral()) return wrong_types();
      SPATE_ASSIGN_OR_RETURN(args[2], ImplicitCast(args[2], common));
    } else if (sid == TypeId::kDayTimeInterval) {
      step_kind = 1;
    } else if (sid == TypeId::kYearMonthInterval) {
      step_kind = 2;
    } else {
      return wrong_types();
    }
  }
  DataTypePtr type = DataType::Array(common, false);
  return MakeScalarCall(
      "sequence", type, fn::AnyNullable(args), args,
      [type, common, step_kind](const Cols& c, int64_t n,
                                const EvalContext&) -> Result<ColumnPtr> {
        auto builder = ColumnBuilder::Make(common);
        std::vector<int32_t> offsets{0};
        std::vector<uint8_t> valid;
        std::vector<int64_t> values;
        auto get = [](const Column& col, int64_t i) -> int64_t {
          return kernel::DispatchFixed(*col.type(), [&]<typename T>() -> int64_t {
            return static_cast<int64_t>(col.raw_values<T>()[i]);
          });
        };
        bool is_date = common->id() == TypeId::kDate;
        int64_t total = 0;
        for (int64_t i = 0; i < n; ++i) {
          bool null = false;
          for (const auto& col : c) null |= col->IsNull(i);
          if (null) {
            offsets.push_back(offsets.back());
            valid.push_back(0);
            continue;
          }
          int64_t start = get(*c[0], i), stop = get(*c[1], i);
          values.clear();
          if (step_kind == 0) {
            int64_t step = c.size() > 2 ? get(*c[2], i) : (start <= stop ? 1 : -1);
            if (!((step > 0 && start <= stop) || (step < 0 && start >= stop) ||
                  (step == 0 && start == stop))) {
              return IllegalBoundaries(std::to_string(start), std::to_string(stop),
                                       std::to_string(step));
            }
            __int128 count =
                step == 0 ? 1 : (static_cast<__int128>(stop) - start) / step + 1;
            if (count > kMaxArrayLength) return TooLong(static_cast<int64_t>(count));
            for (__int128 k = 0; k < count; ++k)
              values.push_back(static_cast<int64_t>(start + k * step));
          } else {
            // Temporal: work in micros (dates: days * micros per day) in UTC.
            int64_t scale = is_date ? kMicrosPerDay : 1;
            int64_t s = start * scale, e = stop * scale;
            int64_t micros_step = 0, months_step = 0;
            if (c.size() > 2) {
              if (step_kind == 1) {
                micros_step = c[2]->raw_values<int64_t>()[i];
              } else {
                months_step = c[2]->raw_values<int32_t>()[i];
              }
            } else {
              micros_step = s <= e ? kMicrosPerDay : -kMicrosPerDay;
            }
            int64_t dir = micros_step != 0 ? micros_step : months_step;
            if (!((dir > 0 && s <= e) || (dir < 0 && s >= e) || (dir == 0 && s == e))) {
              std::string step_text = step_kind == 2
                                          ? std::to_string(months_step) + " months"
                                          : std::to_string(micros_step);
              return IllegalBoundaries(std::to_string(s), std::to_string(e), step_text);
            }
            if (is_date && step_kind == 1 && micros_step % kMicrosPerDay != 0) {
              return Status::Invalid(
                  "sequence step must be an interval day to second of day granularity if "
                  "start and "
                  "end values are dates");
            }
            for (int64_t k = 0;; ++k) {
              int64_t t;
              if (months_step != 0) {
                int64_t day = FloorDiv(s, kMicrosPerDay);
                int64_t tod = s - day * kMicrosPerDay;
                t = AddMonthsToDays(day, k * months_step) * kMicrosPerDay + tod;
              } else {
                t = s + k * micros_step;
              }
              if (dir > 0 ? t > e : (dir < 0 ? t < e : k > 0)) break;
              values.push_back(is_date ? FloorDiv(t, kMicrosPerDay) : t);
              if (static_cast<int64_t>(values.size()) > kMaxArrayLength) {
                return TooLong(static_cast<int64_t>(values.size()));
              }
              if (dir == 0) break;
            }
          }
          total += static_cast<int64_t>(values.size());
          if (total > kMaxArrayLength) return TooLong(total);
          for (int64_t v : values) builder->AppendValue(Value::FromI64(common, v));
          offsets.push_back(static_cast<int32_t>(total));
          valid.push_back(1);
        }
        return MakeListColumn(type, offsets, valid, builder->Finish());
      });
}

// ---- map constructors and accessors --------------------------------------------------

Status CheckMapKeyType(const std::string& name, const Args& args, const DataTypePtr& kt) {
  if (kt->id() == TypeId::kMap) {
    return Status::Error("DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE",
                         {{"sqlExpr", SqlExpr(name, args)}, {"keyType", QuoteType(*kt)}});
  }
  return Status::OK();
}

Result<BoundExprPtr> ResolveMap(Args args, const ResolveContext&) {
  if (args.size() % 2 != 0) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`map`"},
                          {"expectedNum", "2n (n > 0)"},
                          {"actualNum", std::to_string(args.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}});
  }
  if (args.empty()) {
    // map(): MAP<VOID, VOID> without NULL values, as Spark's CreateMap of no values.
    return MakeLiteral(
        Value::Map(DataType::Map(DataType::Null(), DataType::Null(), false), {}, {}));
  }
  Args keys, values;
  for (size_t i = 0; i < args.size(); i += 2) {
    keys.push_back(args[i]);
    values.push_back(args[i + 1]);
  }
  DataTypePtr kt = DataType::Null(), vt = DataType::Null();
  if (!keys.empty()) {
    SPATE_ASSIGN_OR_RETURN(keys, CoerceToCommon(std::move(keys), "map"));
    SPATE_ASSIGN_OR_RETURN(values, CoerceToCommon(std::move(values), "map"));
    kt = keys[0]->type();
    vt = values[0]->type();
  }
  SPATE_RETURN_IF_ERROR(CheckMapKeyType("map", args, kt));
  bool value_null = false;
  for (const auto& v : values) value_null |= v->nullable();
  DataTypePtr type = DataType::Map(kt, vt, value_null);
  Args all;
  for (size_t i = 0; i < keys.size(); ++i) {
    all.push_back(keys[i]);
    all.push_back(values[i]);
  }
  return MakeScalarCall(
      "map", type, false, all,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        int64_t k = static_cast<int64_t>(c.size() / 2);
        std::vector<int32_t> offsets(static_cast<size_t>(n + 1));
        for (int64_t i = 0; i <= n; ++i) offsets[i] = static_cast<int32_t>(i * k);
        std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
        DataTypePtr entry = MapEntryType(type);
        if (k == 0) {
          return MakeListColumn(
              type, offsets, valid,
              MakeStructColumn(entry, 0,
                               {Column::MakeNull(type->key_type(), 0),
                                Column::MakeNull(type->value_type(), 0)}));
        }
        Cols kc, vc;
        for (int64_t j = 0; j < k; ++j) {
          kc.push_back(c[2 * j]);
          vc.push_back(c[2 * j + 1]);
        }
        std::vector<int32_t> take(static_cast<size_t>(n * k));
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < k; ++j)
            take[i * k + j] = static_cast<int32_t>(j * n + i);
        }
        ColumnPtr keys = Take(*Concat(kc), take.data(), n * k);
        ColumnPtr vals = Take(*Concat(vc), take.data(), n * k);
        SPATE_RETURN_IF_ERROR(ValidateMapKeys(*keys, offsets));
        return MakeListColumn(type, offsets, valid,
                              MakeStructColumn(entry, n * k, {keys, vals}));
      });
}

Result<BoundExprPtr> ResolveMapFromArrays(Args args, const ResolveContext&) {
  if (args.size() != 2) return WrongNumArgs("map_from_arrays", "2", args.size());
  for (size_t i = 0; i < 2; ++i) {
    if (!IsArray(args[i])) return UnexpectedType("map_from_arrays", args, i, "\"ARRAY\"");
  }
  DataTypePtr kt = args[0]->type()->element_type();
  SPATE_RETURN_IF_ERROR(CheckMapKeyType("map_from_arrays", args, kt));
  DataTypePtr type = DataType::Map(kt, args[1]->type()->element_type(),
                                   args[1]->type()->contains_null());
  return MakeScalarCall(
      "map_from_arrays", type, fn::AnyNullable(args), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& ka = *c[0];
        const Column& va = *c[1];
        const int32_t* ko = ka.offsets();
        const int32_t* vo = va.offsets();
        ListTake keys_out;
        std::vector<int32_t> vtake;
        for (int64_t i = 0; i < n; ++i) {
          if (ka.IsNull(i) || va.IsNull(i)) {
            keys_out.EndRow(false);
            continue;
          }
          if (ko[i + 1] - ko[i] != vo[i + 1] - vo[i]) {
            return Status::Invalid(
                "The key array and value array of MapData must have the same length.");
          }
          for (int32_t k = 0; k < ko[i + 1] - ko[i]; ++k) {
            keys_out.refs.push_back(ko[i] + k);
            vtake.push_back(vo[i] + k);
          }
          keys_out.EndRow(true);
        }
        int64_t total = static_cast<int64_t>(vtake.size());
        ColumnPtr keys = Take(*ka.child(0), keys_out.refs.data(), total);
        ColumnPtr vals = Take(*va.child(0), vtake.data(), total);
        SPATE_RETURN_IF_ERROR(ValidateMapKeys(*keys, keys_out.offsets));
        return MakeListColumn(type, keys_out.offsets, keys_out.valid,
                              MakeStructColumn(MapEntryType(type), total, {keys, vals}));
      });
}

Result<BoundExprPtr> ResolveMapPart(const std::string& name, int part, Args args,
                                    const ResolveContext&) {
  if (args.size() != 1) return WrongNumArgs(name, "1", args.size());
  if (!IsMap(args[0])) return UnexpectedType(name, args, 0, "\"MAP\"");
  const DataTypePtr& mt = args[0]->type();
  // map_keys: ArrayType(keyType) as Spark, whose containsNull defaults to true.
  DataTypePtr type = part == 0
                         ? DataType::Array(mt->key_type(), true)
                         : DataType::Array(mt->value_type(), mt->value_contains_null());
  return MakeScalarCall(
      name, type, args[0]->nullable(), args,
      [type, part](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& m = *c[0];
        return std::make_shared<const Column>(
            type, n, m.null_count(), m.validity(), m.values(), nullptr,
            std::vector<ColumnPtr>{m.child(0)->child(part)});
      });
}

// ---- struct / named_struct -----------------------------------------------------------

BoundExprPtr MakeStructCall(const std::string& name, std::vector<Field> fields,
                            const Args& values, const Args& call_args) {
  DataTypePtr type = DataType::Struct(std::move(fields));
  // named_struct: arguments alternate name, value.
  bool named = call_args.size() != values.size();
  return MakeScalarCall(
      name, type, false, call_args,
      [type, named](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        std::vector<ColumnPtr> kids;
        for (size_t i = named ? 1 : 0; i < c.size(); i += named ? 2 : 1)
          kids.push_back(c[i]);
        return MakeStructColumn(type, n, std::move(kids));
      });
}

Result<BoundExprPtr> ResolveStruct(Args args, const ResolveContext&) {
  std::vector<Field> fields;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = ColumnName(args[i]);
    if (name.empty()) name = "col" + std::to_string(i + 1);
    fields.push_back(Field{name, args[i]->type(), args[i]->nullable()});
  }
  return MakeStructCall("struct", std::move(fields), args, args);
}

Result<BoundExprPtr> ResolveNamedStruct(Args args, const ResolveContext&) {
  if (args.size() % 2 != 0) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`named_struct`"},
                          {"expectedNum", "2n (n > 0)"},
                          {"actualNum", std::to_string(args.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}});
  }
  std::vector<Field> fields;
  Args values;
  std::vector<std::string> bad;
  for (size_t i = 0; i < args.size(); i += 2) {
    const Value* v = args[i]->literal_value();
    if (!v || v->is_null() || v->type()->id() != TypeId::kString) {
      bad.push_back("\"" + args[i]->ToString() + "\"");
      continue;
    }
    fields.push_back(Field{v->str(), args[i + 1]->type(), args[i + 1]->nullable()});
    values.push_back(args[i + 1]);
  }
  if (!bad.empty()) {
    std::string list;
    for (size_t i = 0; i < bad.size(); ++i) list += (i ? ", " : "") + bad[i];
    return Status::Error(
        "DATATYPE_MISMATCH.CREATE_NAMED_STRUCT_WITHOUT_FOLDABLE_STRING",
        {{"sqlExpr", SqlExpr("named_struct", args)}, {"inputExprs", "[" + list + "]"}});
  }
  return MakeStructCall("named_struct", std::move(fields), values, args);
}

}  // namespace

void RegisterCollectionFunctions(FunctionRegistry& r) {
  r.RegisterScalar("array", ResolveArray);
  r.RegisterScalar("size", [](Args a, const ResolveContext& rc) {
    return ResolveSize("size", std::move(a), rc);
  });
  r.RegisterScalar("cardinality", [](Args a, const ResolveContext& rc) {
    return ResolveSize("cardinality", std::move(a), rc);
  });
  r.RegisterScalar("array_contains", ResolveArrayContains);
  r.RegisterScalar("array_position", ResolveArrayPosition);
  r.RegisterScalar("array_remove", ResolveArrayRemove);
  r.RegisterScalar("element_at", [](Args a, const ResolveContext& rc) {
    return ResolveElementAt("element_at", false, std::move(a), rc);
  });
  r.RegisterScalar("try_element_at", [](Args a, const ResolveContext& rc) {
    return ResolveElementAt("try_element_at", true, std::move(a), rc);
  });
  r.RegisterScalar("array_distinct", ResolveArrayDistinct);
  r.RegisterScalar("array_join", ResolveArrayJoin);
  r.RegisterScalar("array_max", [](Args a, const ResolveContext& rc) {
    return ResolveArrayMinMax("array_max", true, std::move(a), rc);
  });
  r.RegisterScalar("array_min", [](Args a, const ResolveContext& rc) {
    return ResolveArrayMinMax("array_min", false, std::move(a), rc);
  });
  r.RegisterScalar("array_sort", ResolveArraySort);
  r.RegisterScalar("sort_array", ResolveSortArray);
  r.RegisterScalar("slice", ResolveSlice);
  r.RegisterScalar("flatten", ResolveFlatten);
  r.RegisterScalar("arrays_zip", ResolveArraysZip);
  r.RegisterScalar("sequence", ResolveSequence);
  r.RegisterScalar("map", ResolveMap);
  r.RegisterScalar("map_from_arrays", ResolveMapFromArrays);
  r.RegisterScalar("map_keys", [](Args a, const ResolveContext& rc) {
    return ResolveMapPart("map_keys", 0, std::move(a), rc);
  });
  r.RegisterScalar("map_values", [](Args a, const ResolveContext& rc) {
    return ResolveMapPart("map_values", 1, std::move(a), rc);
  });
  r.RegisterScalar("struct", ResolveStruct);
  r.RegisterScalar("named_struct", ResolveNamedStruct);
  RegisterGeneratorNames(r);
}

}  // namespace spate
