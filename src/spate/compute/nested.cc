// Copyright spate authors.
#include "spate/compute/nested.h"

#include <cstring>
#include <utility>

#include "spate/columnar/kernels.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/nested_columns.h"
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

Result<BoundExprPtr> MakeUpdateFields(const BoundExprPtr& base,
                                      const std::vector<StructFieldOp>& ops,
                                      bool case_sensitive, const std::string& text) {
  const DataTypePtr& t = base->type();
  if (t->id() != TypeId::kStruct) {
    return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                         {{"sqlExpr", "\"" + text + "\""},
                          {"paramIndex", fn::Ordinal(0)},
                          {"requiredType", "\"STRUCT\""},
                          {"inputSql", "\"" + base->ToString() + "\""},
                          {"inputType", QuoteType(*t)}});
  }
  // Each output field and where its column comes from: a field of `base` (field >= 0)
  // or the value of ops[op].
  struct Slot {
    Field field;
    int source_field = -1;
    size_t source_op = 0;
  };
  std::vector<Slot> slots;
  for (size_t i = 0; i < t->fields().size(); ++i)
    slots.push_back({t->fields()[i], static_cast<int>(i), 0});
  auto same = [case_sensitive](const std::string& a, const std::string& b) {
    return case_sensitive ? a == b : EqualsIgnoreCase(a, b);
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    const StructFieldOp& op = ops[k];
    if (!op.value) {
      std::erase_if(slots, [&](const Slot& s) { return same(s.field.name, op.name); });
      continue;
    }
    const Slot set{Field{op.name, op.value->type(), op.value->nullable()}, -1, k};
    bool found = false;
    for (Slot& s : slots) {
      if (!same(s.field.name, op.name)) continue;
      s = set;
      found = true;
    }
    if (!found) slots.push_back(set);
  }
  if (slots.empty()) {
    return Status::Error("DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS",
                         {{"sqlExpr", "\"" + text + "\""}});
  }
  // Arguments: the struct, then the values still used (a value set again later or
  // dropped is not evaluated). plan[i]: field index of `base` (>= 0) or -argument.
  std::vector<BoundExprPtr> args{base};
  std::vector<std::string> labels;
  std::vector<int> plan;
  std::vector<Field> fields;
  std::vector<int> arg_of_op(ops.size(), 0);
  for (const Slot& s : slots) {
    fields.push_back(s.field);
    if (s.source_field >= 0) {
      plan.push_back(s.source_field);
      continue;
    }
    int& arg = arg_of_op[s.source_op];
    if (arg == 0) {
      arg = static_cast<int>(args.size());
      args.push_back(ops[s.source_op].value);
      labels.push_back(s.field.name);
    }
    plan.push_back(-arg);
  }
  DataTypePtr type = DataType::Struct(std::move(fields));
  return MakeScalarCall(
      "update_fields", type, base->nullable(), std::move(args),
      [type, plan](const std::vector<ColumnPtr>& c, int64_t n,
                   const EvalContext&) -> Result<ColumnPtr> {
        const Column& s = *c[0];
        std::vector<ColumnPtr> kids;
        kids.reserve(plan.size());
        for (int p : plan)
          kids.push_back(p >= 0 ? s.child(p) : c[static_cast<size_t>(-p)]);
        return MakeStructColumn(type, n, std::move(kids), s.validity(), s.null_count());
      },
      [labels](const std::vector<std::string>& s) {
        std::string out = "update_fields(" + s[0];
        for (size_t i = 1; i < s.size(); ++i)
          out += ", WithField(" + labels[i - 1] + ", " + s[i] + ")";
        return out + ")";
      });
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
