// Copyright spate authors.
#include "spate/compute/nested.h"

#include <cstring>

#include "spate/columnar/kernels.h"
#include "spate/compute/coercion.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/predicates.h"

namespace spate {

BoundExprPtr MakeGetStructField(const BoundExprPtr& child, int field_index) {
  const Field& f = child->type()->fields()[field_index];
  std::string name = f.name;
  return MakeScalarCall(
      "getstructfield", f.type, child->nullable() || f.nullable, {child},
      [field_index](const std::vector<ColumnPtr>& c, int64_t n,
                    const EvalContext&) -> Result<ColumnPtr> {
        const ColumnPtr& s = c[0];
        ColumnPtr field = s->child(field_index);
        if (s->null_count() == 0) return field;
        // Rows where the struct is NULL become NULL.
        std::vector<int32_t> idx(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
          idx[i] = s->IsNull(i) ? -1 : static_cast<int32_t>(i);
        return Take(*field, idx.data(), n);
      },
      [name](const std::vector<std::string>& s) { return s[0] + "." + name; });
}

bool ElementNullable(const BoundExprPtr& array, const BoundExprPtr& index,
                     bool one_based) {
  const Value* k = index->literal_value();
  if (array->call_name() != "array" || !k || k->is_null() || !k->type()->IsIntegral())
    return true;
  const auto& elements = array->children();
  const int64_t n = static_cast<int64_t>(elements.size());
  int64_t i = k->i64();
  if (one_based) i = i > 0 ? i - 1 : i < 0 ? n + i : -1;
  return i < 0 || i >= n || elements[static_cast<size_t>(i)]->nullable();
}

Result<BoundExprPtr> MakeSubscript(const BoundExprPtr& child, BoundExprPtr key) {
  const DataTypePtr& t = child->type();
  if (t->id() == TypeId::kArray) {
    SPATE_ASSIGN_OR_RETURN(key, ImplicitCast(key, DataType::Int()));
    return MakeScalarCall(
        "[]", t->element_type(), ElementNullable(child, key), {child, key},
        [](const std::vector<ColumnPtr>& c, int64_t n,
           const EvalContext& ctx) -> Result<ColumnPtr> {
          const Column& arr = *c[0];
          const Column& idx = *c[1];
          std::vector<int32_t> take(static_cast<size_t>(n), -1);
          const int32_t* o = arr.offsets();
          for (int64_t i = 0; i < n; ++i) {
            if (arr.IsNull(i) || idx.IsNull(i)) continue;
            int32_t k = idx.raw_values<int32_t>()[i];
            int32_t len = o[i + 1] - o[i];
            if (k < 0 || k >= len) {
              if (ctx.ansi) {
                return Status::Error("INVALID_ARRAY_INDEX",
                                     {{"indexValue", std::to_string(k)},
                                      {"arraySize", std::to_string(len)},
                                      {"ansiConfig", "\"spark.sql.ansi.enabled\""}});
              }
              continue;
            }
            take[i] = o[i] + k;
          }
          return Take(*arr.child(0), take.data(), n);
        },
        [](const std::vector<std::string>& s) { return s[0] + "[" + s[1] + "]"; });
  }
  if (t->id() == TypeId::kMap) {
    SPATE_ASSIGN_OR_RETURN(key, ImplicitCast(key, t->key_type()));
    return MakeScalarCall(
        "[]", t->value_type(), true, {child, key},
        [](const std::vector<ColumnPtr>& c, int64_t n,
           const EvalContext&) -> Result<ColumnPtr> {
          const Column& m = *c[0];
          const Column& k = *c[1];
          const Column& keys = *m.child(0)->child(0);
          std::vector<int32_t> take(static_cast<size_t>(n), -1);
          const int32_t* o = m.offsets();
          for (int64_t i = 0; i < n; ++i) {
            if (m.IsNull(i) || k.IsNull(i)) continue;
            for (int32_t e = o[i]; e < o[i + 1]; ++e) {
              if (CompareValuesAt(keys, e, k, i) == 0) {
                take[i] = e;
                break;
              }
            }
          }
          return Take(*m.child(0)->child(1), take.data(), n);
        },
        [](const std::vector<std::string>& s) { return s[0] + "[" + s[1] + "]"; });
  }
  return Status::Error(
      "INVALID_EXTRACT_BASE_FIELD_TYPE",
      {{"base", "\"" + child->ToString() + "\""}, {"other", QuoteType(*t)}});
}

}  // namespace spate
