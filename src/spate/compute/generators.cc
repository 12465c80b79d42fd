// Copyright spate authors.
#include "spate/compute/generators.h"

#include <cstring>

#include "spate/columnar/kernels.h"
#include "spate/compute/aggregate_families.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/kernel_columns.h"
#include "spate/compute/time_window.h"

namespace spate {

namespace {

const char* const kGenerators[] = {"explode",          "explode_outer", "posexplode",
                                   "posexplode_outer", "inline",        "inline_outer",
                                   "json_tuple",       "stack"};

Result<BoundExprPtr> CallScalar(const std::string& name, std::vector<BoundExprPtr> args) {
  const ScalarResolver* r = FunctionRegistry::Global().FindScalar(name);
  if (!r) return Status::Internal(name + " is not registered");
  return (*r)(std::move(args), ResolveContext{});
}

// stack(n, v1, ..., vk) as Spark's Stack: n rows of ceil(k / n) columns col0, col1, ...,
// filled row by row and padded with NULLs. It runs as inline(array(named_struct(row 1),
// ..., named_struct(row n))).
Result<GeneratorSpec> ResolveStack(std::vector<BoundExprPtr> args) {
  GeneratorSpec spec;
  spec.name = "stack";
  if (args.size() < 2) return agg::WrongArgs("stack", "> 1", args.size());
  const std::string call = fn::CallSql("stack", args);
  const std::string text = "\"" + call + "\"";
  if (args[0]->type()->id() != TypeId::kInt) {
    return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                         {{"sqlExpr", text},
                          {"paramIndex", "first"},
                          {"requiredType", "\"INT\""},
                          {"inputSql", "\"" + args[0]->ToString() + "\""},
                          {"inputType", QuoteType(*args[0]->type())}});
  }
  const Value* nv = args[0]->literal_value();
  if (!nv) {
    return fn::NonFoldableInput(call, "n", "INT", *args[0]);
  }
  int64_t rows = nv->is_null() ? 0 : nv->i64();
  if (rows <= 0) {
    return Status::Error("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                         {{"sqlExpr", text},
                          {"exprName", "`n`"},
                          {"valueRange", "(0, 2147483647]"},
                          {"currentValue", std::to_string(rows)}});
  }
  const int64_t k = static_cast<int64_t>(args.size()) - 1;
  const int64_t cols = (k + rows - 1) / rows;
  // Each column's type: its values' common type, where NULLs take the others' type
  // (Spark's StackCoercion); any other difference is STACK_COLUMN_DIFF_TYPES.
  std::vector<DataTypePtr> types(static_cast<size_t>(cols), DataType::Null());
  std::vector<int64_t> first(static_cast<size_t>(cols), -1);
  for (int64_t i = 1; i <= k; ++i) {
    int64_t c = (i - 1) % cols;
    const DataTypePtr& t = args[i]->type();
    if (t->id() == TypeId::kNull) continue;
    if (first[c] < 0) {
      first[c] = i;
      types[c] = t;
    } else if (!t->Equals(*types[c])) {
      return Status::Error("DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES",
                           {{"sqlExpr", text},
                            {"columnIndex", std::to_string(c)},
                            {"leftType", QuoteType(*types[c])},
                            {"leftParamIndex", std::to_string(first[c])},
                            {"rightType", QuoteType(*t)},
                            {"rightParamIndex", std::to_string(i)}});
    }
  }
  std::vector<BoundExprPtr> structs;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<BoundExprPtr> fields;
    for (int64_t c = 0; c < cols; ++c) {
      int64_t i = 1 + r * cols + c;
      BoundExprPtr v = i <= k ? args[i] : MakeLiteral(Value::Null(types[c]));
      if (!v->type()->Equals(*types[c])) {
        SPATE_ASSIGN_OR_RETURN(v, MakeCast(v, types[c]));
      }
      fields.push_back(MakeLiteral(Value::String("col" + std::to_string(c))));
      fields.push_back(std::move(v));
    }
    SPATE_ASSIGN_OR_RETURN(auto s, CallScalar("named_struct", std::move(fields)));
    structs.push_back(std::move(s));
  }
  SPATE_ASSIGN_OR_RETURN(spec.arg, CallScalar("array", std::move(structs)));
  spec.is_inline = true;
  for (int64_t c = 0; c < cols; ++c)
    spec.output.push_back(Field{"col" + std::to_string(c), types[c], true});
  return spec;
}

}  // namespace

bool IsGeneratorName(std::string_view name) {
  for (const char* g : kGenerators) {
    if (name == g) return true;
  }
  return false;
}

std::string GeneratorSpec::ToString() const {
  if (time_window) {
    return name + "(" + arg->ToString() + ", " + std::to_string(window_micros) + ", " +
           std::to_string(slide_micros) + ", " + std::to_string(start_micros) + ")";
  }
  return name + "(" + arg->ToString() + ")";
}

Result<GeneratorSpec> ResolveGenerator(const std::string& name,
                                       std::vector<BoundExprPtr> args) {
  GeneratorSpec spec;
  spec.name = name;
  if (name == "stack") return ResolveStack(std::move(args));
  if (name == "json_tuple") {
    // The registry's json_tuple resolver builds the struct<c0, c1, ...> of one row.
    const ScalarResolver* r = FunctionRegistry::Global().FindScalar(name);
    if (!r) return Status::Internal("json_tuple is not registered");
    ResolveContext rc;
    SPATE_ASSIGN_OR_RETURN(spec.arg, (*r)(std::move(args), rc));
    if (spec.arg->type()->id() != TypeId::kStruct) {
      return Status::Error("UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS",
                           {{"expression", "\"json_tuple\""}});
    }
    spec.struct_row = true;
    for (const auto& f : spec.arg->type()->fields())
      spec.output.push_back(Field{f.name, f.type, true});
    return spec;
  }
  spec.outer = name.ends_with("_outer");
  spec.position = name.starts_with("posexplode");
  spec.is_inline = name.starts_with("inline");
  if (args.size() != 1) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`" + name + "`"},
                          {"expectedNum", "1"},
                          {"actualNum", std::to_string(args.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}});
  }
  const DataTypePtr& t = args[0]->type();
  auto mismatch = [&](const std::string& required) {
    return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                         {{"sqlExpr", "\"" + name + "(" + args[0]->ToString() + ")\""},
                          {"paramIndex", "first"},
                          {"requiredType", required},
                          {"inputSql", "\"" + args[0]->ToString() + "\""},
                          {"inputType", QuoteType(*t)}});
  };
  if (spec.position) spec.output.push_back(Field{"pos", DataType::Int(), spec.outer});
  if (spec.is_inline) {
    if (t->id() != TypeId::kArray || t->element_type()->id() != TypeId::kStruct) {
      return mismatch("\"ARRAY<STRUCT>\"");
    }
    // A field is NULL when it may be, or when the array may hold a NULL struct (Spark's
    // Inline: the element struct as it is, asNullable when containsNull), or in an outer
    // row.
    for (const auto& f : t->element_type()->fields()) {
      spec.output.push_back(
          Field{f.name, f.type, f.nullable || t->contains_null() || spec.outer});
    }
  } else if (t->id() == TypeId::kArray) {
    spec.output.push_back(
        Field{"col", t->element_type(), t->contains_null() || spec.outer});
  } else if (t->id() == TypeId::kMap) {
    spec.output.push_back(Field{"key", t->key_type(), spec.outer});
    spec.output.push_back(
        Field{"value", t->value_type(), t->value_contains_null() || spec.outer});
  } else {
    return mismatch("(\"ARRAY\" or \"MAP\")");
  }
  spec.arg = std::move(args[0]);
  return spec;
}

Result<GeneratedRows> RunGenerator(const GeneratorSpec& spec, const Batch& input,
                                   const EvalContext& ctx) {
  if (spec.time_window) {
    return RunTimeWindowGenerator(
        *spec.arg, {spec.window_micros, spec.slide_micros, spec.start_micros},
        spec.output[0].type, input, ctx);
  }
  SPATE_ASSIGN_OR_RETURN(ColumnPtr arg, spec.arg->Evaluate(input, ctx));
  const Column& a = *arg;
  int64_t n = input.num_rows();
  if (spec.struct_row) {
    GeneratedRows out;
    out.input_rows.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out.input_rows[i] = static_cast<int32_t>(i);
    out.columns = a.children();
    return out;
  }
  const int32_t* o = a.offsets();
  GeneratedRows out;
  std::vector<int32_t> elems;  // element index per output row (-1 = outer NULL row)
  std::vector<int32_t> pos;
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t len = a.IsNull(i) ? 0 : o[i + 1] - o[i];
    total += len > 0 ? len : (spec.outer ? 1 : 0);
  }
  out.input_rows.reserve(static_cast<size_t>(total));
  elems.reserve(static_cast<size_t>(total));
  if (spec.position) pos.reserve(static_cast<size_t>(total));
  for (int64_t i = 0; i < n; ++i) {
    int32_t len = a.IsNull(i) ? 0 : o[i + 1] - o[i];
    if (len == 0) {
      if (!spec.outer) continue;
      out.input_rows.push_back(static_cast<int32_t>(i));
      elems.push_back(-1);
      if (spec.position) pos.push_back(-1);
      continue;
    }
    for (int32_t k = 0; k < len; ++k) {
      out.input_rows.push_back(static_cast<int32_t>(i));
      elems.push_back(o[i] + k);
      if (spec.position) pos.push_back(k);
    }
  }
  if (spec.position) {
    kernel::Out<int32_t> p(total);
    BufferPtr validity;
    int64_t nulls = 0;
    for (int64_t r = 0; r < total; ++r) {
      if (pos[r] < 0) {
        if (!validity) {
          validity = Buffer::Allocate(bits::BytesFor(total));
          std::memset(validity->mutable_data(), 0xff,
                      static_cast<size_t>(bits::BytesFor(total)));
        }
        bits::Clear(validity->mutable_data(), r);
        ++nulls;
      } else {
        p.data[r] = pos[r];
      }
    }
    out.columns.push_back(
        kernel::MakeColumn(DataType::Int(), total, nulls, validity, p.buf));
  }
  const Column& child = *a.child(0);
  if (spec.is_inline) {
    std::vector<int32_t> idx(elems);
    if (child.null_count() > 0) {
      for (auto& e : idx) {
        if (e >= 0 && child.IsNull(e)) e = -1;
      }
    }
    for (const auto& f : child.children())
      out.columns.push_back(Take(*f, idx.data(), total));
  } else if (a.type_id() == TypeId::kMap) {
    out.columns.push_back(Take(*child.child(0), elems.data(), total));
    out.columns.push_back(Take(*child.child(1), elems.data(), total));
  } else {
    out.columns.push_back(Take(child, elems.data(), total));
  }
  return out;
}

void RegisterGeneratorNames(FunctionRegistry& r) {
  for (const char* g : kGenerators) {
    std::string name = g;
    r.RegisterScalar(name,
                     [name](const std::vector<BoundExprPtr>& args,
                            const ResolveContext& rc) -> Result<BoundExprPtr> {
                       std::string text = rc.call_text.empty() ? name : rc.call_text;
                       return Status::Error("UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS",
                                            {{"expression", "\"" + text + "\""}});
                     });
  }
}

}  // namespace spate
