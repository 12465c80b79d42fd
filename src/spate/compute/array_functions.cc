// Copyright spate authors.
// The array functions that build, edit and combine arrays (collections.cc has the
// constructors, accessors, sorts and sequence): concat of arrays, array_append,
// array_prepend, array_insert, array_compact, array_size, array_repeat, arrays_overlap,
// array_union, array_intersect, array_except and get. Element equality is Spark's
// ordering equality (CompareValuesAt); set results keep first occurrences in order, one
// NULL at most.

#include <algorithm>

#include "spate/columnar/kernels.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/nested.h"
#include "spate/compute/nested_columns.h"
#include "spate/compute/predicates.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

Status NotArray(const std::string& name, const Args& args, size_t i) {
  return fn::UnexpectedType(name, args, i, "\"ARRAY\"");
}

// Spark's tightest common type of two element types: equal types, NULL, or numbers other
// than decimals (widened by precedence); nullptr otherwise.
DataTypePtr TightestType(const DataTypePtr& a, const DataTypePtr& b) {
  if (a->Equals(*b) || b->id() == TypeId::kNull) return a;
  if (a->id() == TypeId::kNull) return b;
  auto plain_number = [](const DataType& t) {
    return t.IsNumeric() && t.id() != TypeId::kDecimal;
  };
  if (plain_number(*a) && plain_number(*b)) return CommonType(a, b);
  if (a->IsNested() && a->id() == b->id()) return CommonType(a, b);
  return nullptr;
}

// The common element type of array arguments (the tightest one for the two-array
// functions, `binary`): BINARY_ARRAY_DIFF_TYPES or DATA_DIFF_TYPES when there is none or
// an argument is not an array.
Result<Args> CoerceArrays(const std::string& name, Args args, size_t count,
                          bool binary = false) {
  DataTypePtr elem = DataType::Null();
  for (size_t k = 0; k < count; ++k) {
    TypeId t = args[k]->type()->id();
    DataTypePtr c = t != TypeId::kArray ? nullptr
                    : binary ? TightestType(elem, args[k]->type()->element_type())
                             : CommonType(elem, args[k]->type()->element_type());
    if (!c) {
      std::string sql = "\"" + fn::CallSql(name, args) + "\"";
      if (binary) {
        return Status::Error("DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES",
                             {{"sqlExpr", sql},
                              {"functionName", "`" + name + "`"},
                              {"arrayType", "\"ARRAY\""},
                              {"leftType", QuoteType(*args[0]->type())},
                              {"rightType", QuoteType(*args[1]->type())}});
      }
      std::string types;
      for (size_t j = 0; j < count; ++j)
        types += (j ? " or " : "") + QuoteType(*args[j]->type());
      return Status::Error("DATATYPE_MISMATCH.DATA_DIFF_TYPES",
                           {{"functionName", "`" + name + "`"},
                            {"sqlExpr", sql},
                            {"dataType", "(" + types + ")"}});
    }
    elem = c;
  }
  for (size_t k = 0; k < count; ++k) {
    bool contains_null =
        args[k]->type()->id() == TypeId::kArray && args[k]->type()->contains_null();
    SPATE_ASSIGN_OR_RETURN(args[k],
                           ImplicitCast(args[k], DataType::Array(elem, contains_null)));
  }
  return args;
}

bool ContainsNull(const Args& arrays) {
  for (const auto& a : arrays) {
    if (a->type()->contains_null()) return true;
  }
  return false;
}

// ---- concat of arrays / array_append / array_prepend / array_insert
// ----------------------

Result<BoundExprPtr> ResolveArrayConcat(const std::string& name, Args args) {
  // The count is read before the call: the order in which the arguments are initialized
  // is unspecified, and clang moves `args` out first.
  const size_t count = args.size();
  SPATE_ASSIGN_OR_RETURN(args, CoerceArrays(name, std::move(args), count));
  DataTypePtr type = DataType::Array(args[0]->type()->element_type(), ContainsNull(args));
  return MakeScalarCall(
      name, type, fn::AnyNullable(args), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        Cols elems;
        for (const auto& col : c) elems.push_back(col->child(0));
        return ConcatListRows(c, n).Finish(type, elems);
      });
}

// The array and the element coerced to a common element type.
Result<Args> CoerceArrayAndElement(const std::string& name, Args args, size_t array_index,
                                   size_t elem_index) {
  if (args[array_index]->type()->id() != TypeId::kArray)
    return NotArray(name, args, array_index);
  const DataTypePtr& at = args[array_index]->type();
  DataTypePtr elem = CommonType(at->element_type(), args[elem_index]->type());
  if (!elem) {
    return Status::Error("DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES",
                         {{"sqlExpr", "\"" + fn::CallSql(name, args) + "\""},
                          {"functionName", "`" + name + "`"},
                          {"dataType", "\"ARRAY\""},
                          {"leftType", QuoteType(*at)},
                          {"rightType", QuoteType(*args[elem_index]->type())}});
  }
  SPATE_ASSIGN_OR_RETURN(
      args[array_index],
      ImplicitCast(args[array_index], DataType::Array(elem, at->contains_null())));
  SPATE_ASSIGN_OR_RETURN(args[elem_index], ImplicitCast(args[elem_index], elem));
  return args;
}

// array_append (at the end), array_prepend (at the start) and array_insert (at a 1-based
// position; negative counts from the end, -1 after the last element; beyond the ends
// pads with NULLs).
enum class Place : uint8_t { kAppend, kPrepend, kInsert };

Result<BoundExprPtr> ResolveArrayPlace(const std::string& name, Place place, Args args) {
  size_t want = place == Place::kInsert ? 3 : 2;
  SPATE_RETURN_IF_ERROR(
      fn::CheckArgs(name, args.size(), want, want, std::to_string(want)));
  size_t elem_index = want - 1;
  SPATE_ASSIGN_OR_RETURN(args,
                         CoerceArrayAndElement(name, std::move(args), 0, elem_index));
  if (place == Place::kInsert) {
    SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg(name, args, 1));
  }
  // Spark's results may always hold NULL.
  DataTypePtr type = DataType::Array(args[0]->type()->element_type(), true);
  bool nullable = args[0]->nullable() || (place == Place::kInsert && args[1]->nullable());
  return MakeScalarCall(
      name, type, nullable, args,
      [type, place, elem_index](const Cols& c, int64_t n,
                                const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& e = *c[elem_index];
        const int32_t* off = a.offsets();
        ListRefs out;
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsNull(i) || (place == Place::kInsert && c[1]->IsNull(i))) {
            out.EndRow(false);
            continue;
          }
          uint64_t elem = e.IsNull(i) ? kNullTakeRef : TakeRef(1, i);
          int32_t len = off[i + 1] - off[i];
          if (place == Place::kPrepend) out.refs.push_back(elem);
          if (place != Place::kInsert) {
            for (int32_t j = off[i]; j < off[i + 1]; ++j)
              out.refs.push_back(TakeRef(0, j));
            if (place == Place::kAppend) out.refs.push_back(elem);
            out.EndRow(true);
            continue;
          }
          int64_t pos = c[1]->raw_values<int32_t>()[i];
          if (pos == 0) {
            return Status::Error("INVALID_INDEX_OF_ZERO", {});
          }
          // The 0-based index the element lands at, and the padding before/after.
          if (pos > 0) {
            int64_t at = pos - 1;
            for (int64_t j = 0; j < std::min<int64_t>(at, len); ++j)
              out.refs.push_back(TakeRef(0, off[i] + j));
            for (int64_t j = len; j < at; ++j) out.refs.push_back(kNullTakeRef);
            out.refs.push_back(elem);
            for (int64_t j = at; j < len; ++j) out.refs.push_back(TakeRef(0, off[i] + j));
          } else {
            int64_t from_end = -pos;  // 1: after the last element
            int64_t at = len - from_end + 1;
            if (at < 0) {
              out.refs.push_back(elem);
              for (int64_t j = 0; j < -at; ++j) out.refs.push_back(kNullTakeRef);
              for (int64_t j = 0; j < len; ++j)
                out.refs.push_back(TakeRef(0, off[i] + j));
            } else {
              for (int64_t j = 0; j < at; ++j) out.refs.push_back(TakeRef(0, off[i] + j));
              out.refs.push_back(elem);
              for (int64_t j = at; j < len; ++j)
                out.refs.push_back(TakeRef(0, off[i] + j));
            }
          }
          out.EndRow(true);
        }
        return out.Finish(type, {a.child(0), c[elem_index]});
      });
}

// ---- array_compact / array_size / array_repeat
// ------------------------------------------

Result<BoundExprPtr> ResolveArrayCompact(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("array_compact", args.size(), 1, 1, "1"));
  if (args[0]->type()->id() != TypeId::kArray) return NotArray("array_compact", args, 0);
  DataTypePtr type = DataType::Array(args[0]->type()->element_type(), false);
  return MakeScalarCall(
      "array_compact", type, args[0]->nullable(), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& el = *a.child(0);
        const int32_t* off = a.offsets();
        ListTake out;
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsValid(i)) {
            for (int32_t j = off[i]; j < off[i + 1]; ++j) {
              if (el.IsValid(j)) out.refs.push_back(j);
            }
          }
          out.EndRow(a.IsValid(i));
        }
        return out.Finish(type, el);
      });
}

Result<BoundExprPtr> ResolveArraySize(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("array_size", args.size(), 1, 1, "1"));
  if (args[0]->type()->id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(args[0],
                           ImplicitCast(args[0], DataType::Array(DataType::Null())));
  }
  if (args[0]->type()->id() != TypeId::kArray) return NotArray("array_size", args, 0);
  return MakeScalarCall(
      "array_size", DataType::Int(), args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const int32_t* off = c[0]->offsets();
        kernel::Out<int32_t> out(n);
        for (int64_t i = 0; i < n; ++i) out.data[i] = off[i + 1] - off[i];
        return kernel::MakeColumn(DataType::Int(), n, c[0]->null_count(),
                                  c[0]->validity(), out.buf);
      });
}

Result<BoundExprPtr> ResolveArrayRepeat(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("array_repeat", args.size(), 2, 2, "2"));
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg("array_repeat", args, 1));
  DataTypePtr type = DataType::Array(args[0]->type(), args[0]->nullable());
  return MakeScalarCall(
      "array_repeat", type, args[1]->nullable(), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const int32_t* count = c[1]->raw_values<int32_t>();
        ListTake out;
        for (int64_t i = 0; i < n; ++i) {
          if (c[1]->IsValid(i)) {
            int32_t r = c[0]->IsNull(i) ? -1 : static_cast<int32_t>(i);
            for (int32_t k = 0; k < count[i]; ++k) out.refs.push_back(r);
          }
          out.EndRow(c[1]->IsValid(i));
        }
        return out.Finish(type, *c[0]);
      });
}

// ---- set functions
// -----------------------------------------------------------------------

enum class SetOp : uint8_t { kUnion, kIntersect, kExcept, kOverlap };

// Whether element `j` of `col` equals one of `refs` (non-NULL elements only).
bool ContainsRef(const Cols& elems, const std::vector<uint64_t>& refs, size_t from,
                 const Column& col, int64_t j) {
  for (size_t k = from; k < refs.size(); ++k) {
    uint64_t r = refs[k];
    if (r == kNullTakeRef) continue;
    if (CompareValuesAt(*elems[r >> 32], static_cast<int64_t>(r & 0xFFFFFFFF), col, j) ==
        0)
      return true;
  }
  return false;
}

Result<BoundExprPtr> ResolveSetOp(const std::string& name, SetOp op, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  SPATE_ASSIGN_OR_RETURN(args, CoerceArrays(name, std::move(args), 2, /*binary=*/true));
  bool contains_null = op == SetOp::kUnion       ? ContainsNull(args)
                       : op == SetOp::kIntersect ? args[0]->type()->contains_null() &&
                                                       args[1]->type()->contains_null()
                                                 : args[0]->type()->contains_null();
  DataTypePtr type =
      op == SetOp::kOverlap
          ? DataType::Boolean()
          : DataType::Array(args[0]->type()->element_type(), contains_null);
  bool nullable = fn::AnyNullable(args) || (op == SetOp::kOverlap && ContainsNull(args));
  return MakeScalarCall(
      name, type, nullable, args,
      [type, op](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column &a = *c[0], &b = *c[1];
        Cols elems{a.child(0), b.child(0)};
        const Column &ea = *elems[0], &eb = *elems[1];
        const int32_t *oa = a.offsets(), *ob = b.offsets();
        ListRefs out;
        std::vector<uint8_t> result(static_cast<size_t>(n), 0),
            valid(static_cast<size_t>(n), 1);
        for (int64_t i = 0; i < n; ++i) {
          if (a.IsNull(i) || b.IsNull(i)) {
            valid[static_cast<size_t>(i)] = 0;
            out.EndRow(false);
            continue;
          }
          size_t start = out.refs.size();
          bool has_null = false;
          auto add_distinct = [&](size_t src, const Column& e, int32_t j) {
            if (e.IsNull(j)) {
              if (!has_null) out.refs.push_back(kNullTakeRef);
              has_null = true;
            } else if (!ContainsRef(elems, out.refs, start, e, j)) {
              out.refs.push_back(TakeRef(src, j));
            }
          };
          auto in_b = [&](int32_t j, bool* null_in_b) {
            bool found = false;
            for (int32_t k = ob[i]; k < ob[i + 1] && !found; ++k) {
              if (eb.IsNull(k)) {
                *null_in_b = true;
              } else if (!ea.IsNull(j) && CompareValuesAt(ea, j, eb, k) == 0) {
                found = true;
              }
            }
            return found;
          };
          switch (op) {
            case SetOp::kUnion:
              for (int32_t j = oa[i]; j < oa[i + 1]; ++j) add_distinct(0, ea, j);
              for (int32_t j = ob[i]; j < ob[i + 1]; ++j) add_distinct(1, eb, j);
              break;
            case SetOp::kIntersect:
            case SetOp::kExcept: {
              for (int32_t j = oa[i]; j < oa[i + 1]; ++j) {
                bool null_in_b = false;
                bool found = ea.IsNull(j) ? false : in_b(j, &null_in_b);
                if (ea.IsNull(j)) {
                  for (int32_t k = ob[i]; k < ob[i + 1]; ++k) null_in_b |= eb.IsNull(k);
                  found = null_in_b;
                }
                if (found == (op == SetOp::kIntersect)) add_distinct(0, ea, j);
              }
              break;
            }
            case SetOp::kOverlap: {
              bool any_null = false, hit = false;
              for (int32_t j = oa[i]; j < oa[i + 1] && !hit; ++j) {
                if (ea.IsNull(j)) {
                  any_null = true;
                  continue;
                }
                hit = in_b(j, &any_null);
              }
              for (int32_t k = ob[i]; k < ob[i + 1]; ++k) any_null |= eb.IsNull(k);
              bool both_nonempty = oa[i + 1] > oa[i] && ob[i + 1] > ob[i];
              result[static_cast<size_t>(i)] = hit ? 1 : 0;
              if (!hit && any_null && both_nonempty) valid[static_cast<size_t>(i)] = 0;
              break;
            }
          }
          out.EndRow(true);
        }
        if (op != SetOp::kOverlap) return out.Finish(type, elems);
        auto bits = Buffer::Allocate(bits::BytesFor(n));
        for (int64_t i = 0; i < n; ++i) {
          if (result[static_cast<size_t>(i)]) bits::Set(bits->mutable_data(), i);
        }
        int64_t nulls = 0;
        BufferPtr v = ValidityFromFlags(valid, &nulls);
        return kernel::MakeColumn(DataType::Boolean(), n, nulls, v, bits);
      });
}

// ---- get

// get(array, index): the element at 0-based `index`, NULL outside the array.
Result<BoundExprPtr> ResolveGet(Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("get", args.size(), 2, 2, "2"));
  if (args[0]->type()->id() != TypeId::kArray) return NotArray("get", args, 0);
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg("get", args, 1));
  const auto& reg = FunctionRegistry::Global();
  SPATE_ASSIGN_OR_RETURN(
      auto plus1, (*reg.FindScalar("+"))({args[1], MakeLiteral(Value::Int(1))}, rc));
  SPATE_ASSIGN_OR_RETURN(auto at,
                         (*reg.FindScalar("try_element_at"))({args[0], plus1}, rc));
  SPATE_ASSIGN_OR_RETURN(
      auto negative, (*reg.FindScalar("<"))({args[1], MakeLiteral(Value::Int(0))}, rc));
  SPATE_ASSIGN_OR_RETURN(
      auto null_value,
      ImplicitCast(MakeLiteral(Value::Null(DataType::Null())), at->type()));
  SPATE_ASSIGN_OR_RETURN(auto cw, MakeCaseWhen({negative, null_value}, at));
  std::vector<std::string> texts{args[0]->ToString(), args[1]->ToString()};
  return MakeScalarCall(
      "get", cw->type(), ElementNullable(args[0], args[1]), {cw},
      [](const Cols& c, int64_t, const EvalContext&) -> Result<ColumnPtr> {
        return c[0];
      },
      [texts](const std::vector<std::string>&) { return CallText("get", texts); });
}

}  // namespace

void RegisterArrayFunctions(FunctionRegistry& r) {
  // concat: arrays here, strings and binaries as before.
  for (const char* name : {"concat", "||"}) {
    const ScalarResolver* previous = r.FindScalar(name);
    ScalarResolver strings = previous ? *previous : ScalarResolver();
    std::string n = name;
    r.RegisterScalar(
        n, [n, strings](Args a, const ResolveContext& rc) -> Result<BoundExprPtr> {
          bool any_array = false;
          for (const auto& x : a) any_array |= x->type()->id() == TypeId::kArray;
          if (any_array)
            return ResolveArrayConcat(n == "||" ? "concat" : n, std::move(a));
          return strings(std::move(a), rc);
        });
  }
  r.RegisterScalar("array_append", [](Args a, const ResolveContext&) {
    return ResolveArrayPlace("array_append", Place::kAppend, std::move(a));
  });
  r.RegisterScalar("array_prepend", [](Args a, const ResolveContext&) {
    return ResolveArrayPlace("array_prepend", Place::kPrepend, std::move(a));
  });
  r.RegisterScalar("array_insert", [](Args a, const ResolveContext&) {
    return ResolveArrayPlace("array_insert", Place::kInsert, std::move(a));
  });
  r.RegisterScalar("array_compact", ResolveArrayCompact);
  r.RegisterScalar("array_size", ResolveArraySize);
  r.RegisterScalar("array_repeat", ResolveArrayRepeat);
  struct SetDef {
    const char* name;
    SetOp op;
  };
  for (SetDef d : {SetDef{"array_union", SetOp::kUnion},
                   SetDef{"array_intersect", SetOp::kIntersect},
                   SetDef{"array_except", SetOp::kExcept},
                   SetDef{"arrays_overlap", SetOp::kOverlap}}) {
    r.RegisterScalar(d.name, [d](Args a, const ResolveContext&) {
      return ResolveSetOp(d.name, d.op, std::move(a));
    });
  }
  r.RegisterScalar("get", ResolveGet);
}

}  // namespace spate
