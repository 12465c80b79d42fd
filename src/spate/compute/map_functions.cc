// Copyright spate authors.
// Map functions beyond the constructors and accessors of collections.cc:
// map_contains_key, map_entries, map_concat and map_from_entries, with Spark 4's
// semantics (NULL_MAP_KEY / DUPLICATED_MAP_KEY under the default
// spark.sql.mapKeyDedupPolicy=EXCEPTION).
//
// Thread safety: resolvers and kernels are pure.

#include "spate/columnar/kernels.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/nested.h"
#include "spate/compute/nested_columns.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

Result<BoundExprPtr> ResolveMapContainsKey(Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("map_contains_key", args.size(), 2, 2, "2"));
  if (args[0]->type()->id() != TypeId::kMap)
    return fn::UnexpectedType("map_contains_key", args, 0, "\"MAP\"");
  const auto& reg = FunctionRegistry::Global();
  SPATE_ASSIGN_OR_RETURN(auto keys, (*reg.FindScalar("map_keys"))({args[0]}, rc));
  SPATE_ASSIGN_OR_RETURN(auto has,
                         (*reg.FindScalar("array_contains"))({keys, args[1]}, rc));
  std::vector<std::string> texts{args[0]->ToString(), args[1]->ToString()};
  return MakeScalarCall(
      "map_contains_key", has->type(), has->nullable(), {has},
      [](const Cols& c, int64_t, const EvalContext&) -> Result<ColumnPtr> {
        return c[0];
      },
      [texts](const std::vector<std::string>&) {
        return CallText("map_contains_key", texts);
      });
}

// map_entries(map): the map's entries as an array of struct<key, value> (the map's
// layout).
Result<BoundExprPtr> ResolveMapEntries(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("map_entries", args.size(), 1, 1, "1"));
  if (args[0]->type()->id() != TypeId::kMap)
    return fn::UnexpectedType("map_entries", args, 0, "\"MAP\"");
  // The entries' values may be NULL only when the map's may (Spark's MapEntries).
  const DataTypePtr& mt = args[0]->type();
  DataTypePtr type = DataType::Array(
      DataType::Struct({Field{"key", mt->key_type(), false},
                        Field{"value", mt->value_type(), mt->value_contains_null()}}),
      false);
  return MakeScalarCall(
      "map_entries", type, args[0]->nullable(), args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& m = *c[0];
        const int32_t* off = m.offsets();
        std::vector<int32_t> offsets(off, off + n + 1);
        std::vector<uint8_t> valid(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
          valid[static_cast<size_t>(i)] = m.IsValid(i) ? 1 : 0;
        const ColumnPtr& entries = m.child(0);
        ColumnPtr child = MakeStructColumn(type->element_type(), entries->length(),
                                           entries->children());
        return MakeListColumn(type, offsets, valid, child);
      });
}

// map_concat(m1, m2, ...): all entries; a key twice is DUPLICATED_MAP_KEY (Spark's
// default spark.sql.mapKeyDedupPolicy=EXCEPTION).
Result<BoundExprPtr> ResolveMapConcat(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("map_concat", args.size(), 1, SIZE_MAX, "> 0"));
  DataTypePtr type;
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k]->type()->id() != TypeId::kMap) {
      std::string types;
      for (size_t j = 0; j < args.size(); ++j)
        types += (j ? ", " : "") + QuoteType(*args[j]->type());
      return Status::Error("DATATYPE_MISMATCH.MAP_CONCAT_DIFF_TYPES",
                           {{"sqlExpr", "\"" + fn::CallSql("map_concat", args) + "\""},
                            {"functionName", "`map_concat`"},
                            {"dataType", "[" + types + "]"}});
    }
    if (!type) {
      type = args[k]->type();
    } else {
      DataTypePtr c = CommonType(type, args[k]->type());
      if (!c) {
        return Status::Error("DATATYPE_MISMATCH.DATA_DIFF_TYPES",
                             {{"functionName", "`map_concat`"},
                              {"sqlExpr", "\"" + fn::CallSql("map_concat", args) + "\""},
                              {"dataType", "(" + QuoteType(*type) + " or " +
                                               QuoteType(*args[k]->type()) + ")"}});
      }
      type = c;
    }
  }
  if (!type) type = DataType::Map(DataType::Null(), DataType::Null());
  for (auto& a : args) {
    SPATE_ASSIGN_OR_RETURN(a, ImplicitCast(a, type));
  }
  DataTypePtr entry = MapEntryType(type);
  return MakeScalarCall(
      "map_concat", type, fn::AnyNullable(args), args,
      [type, entry](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        Cols entries;
        for (const auto& m : c) entries.push_back(m->child(0));
        const ListRefs out = ConcatListRows(c, n);
        ColumnPtr child =
            TakeMulti(entries, out.refs.data(), static_cast<int64_t>(out.refs.size()));
        SPATE_RETURN_IF_ERROR(ValidateMapKeys(*child->child(0), out.offsets));
        return MakeListColumn(type, out.offsets, out.valid, child);
      });
}

// map_from_entries(array<struct<k, v>>): the map of the entries; NULL when the array or
// an entry is NULL; NULL_MAP_KEY / DUPLICATED_MAP_KEY as Spark's defaults.
Result<BoundExprPtr> ResolveMapFromEntries(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("map_from_entries", args.size(), 1, 1, "1"));
  const DataTypePtr& t = args[0]->type();
  if (t->id() != TypeId::kArray || t->element_type()->id() != TypeId::kStruct ||
      t->element_type()->fields().size() != 2) {
    return fn::UnexpectedType("map_from_entries", args, 0,
                              "\"ARRAY\" of pair \"STRUCT\"");
  }
  const auto& fields = t->element_type()->fields();
  DataTypePtr type = DataType::Map(fields[0].type, fields[1].type, fields[1].nullable);
  DataTypePtr entry = MapEntryType(type);
  return MakeScalarCall(
      "map_from_entries", type, args[0]->nullable() || t->contains_null(), args,
      [type, entry](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const Column& a = *c[0];
        const Column& structs = *a.child(0);
        const int32_t* off = a.offsets();
        ListTake entries;
        for (int64_t i = 0; i < n; ++i) {
          bool ok = a.IsValid(i);
          for (int32_t j = off[i]; ok && j < off[i + 1]; ++j) ok = structs.IsValid(j);
          if (ok) {
            for (int32_t j = off[i]; j < off[i + 1]; ++j) entries.refs.push_back(j);
          }
          entries.EndRow(ok);
        }
        auto m = static_cast<int64_t>(entries.refs.size());
        ColumnPtr keys = Take(*structs.child(0), entries.refs.data(), m);
        ColumnPtr values = Take(*structs.child(1), entries.refs.data(), m);
        SPATE_RETURN_IF_ERROR(ValidateMapKeys(*keys, entries.offsets));
        return MakeListColumn(type, entries.offsets, entries.valid,
                              MakeStructColumn(entry, m, {keys, values}));
      });
}

}  // namespace

void RegisterMapFunctions(FunctionRegistry& r) {
  r.RegisterScalar("map_contains_key", ResolveMapContainsKey);
  r.RegisterScalar("map_entries", ResolveMapEntries);
  r.RegisterScalar("map_concat", ResolveMapConcat);
  r.RegisterScalar("map_from_entries", ResolveMapFromEntries);
}

}  // namespace spate
