// Copyright spate authors.
#include "spate/compute/function_args.h"

#include <cstring>

#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"

namespace spate::fn {

Status CheckArgs(const std::string& name, size_t actual, size_t min, size_t max,
                 const std::string& expected) {
  if (actual >= min && actual <= max) return Status::OK();
  return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                       {{"functionName", "`" + name + "`"},
                        {"expectedNum", expected},
                        {"actualNum", std::to_string(actual)}});
}

Result<Value> FoldConstant(const BoundExprPtr& e) {
  if (const Value* v = e->literal_value()) return *v;
  auto batch = Batch::Make(std::make_shared<Schema>(), {}, 1);
  EvalContext ctx;
  SPATE_ASSIGN_OR_RETURN(ColumnPtr c, e->Evaluate(*batch, ctx));
  return c->GetValue(0);
}

Result<std::vector<std::pair<std::string, std::string>>> OptionsArg(
    const BoundExprPtr& e) {
  const DataTypePtr& t = e->type();
  if (t->id() != TypeId::kMap || !e->IsConstant()) {
    return Status::Error("INVALID_OPTIONS.NON_MAP_FUNCTION");
  }
  if (t->key_type()->id() != TypeId::kString ||
      t->value_type()->id() != TypeId::kString) {
    return Status::Error("INVALID_OPTIONS.NON_STRING_TYPE", {{"mapType", QuoteType(*t)}});
  }
  SPATE_ASSIGN_OR_RETURN(Value v, FoldConstant(e));
  std::vector<std::pair<std::string, std::string>> out;
  if (v.is_null()) return out;
  for (size_t i = 0; i < v.items().size(); ++i) {
    if (v.values()[i].is_null()) continue;
    out.emplace_back(v.items()[i].str(), v.values()[i].str());
  }
  return out;
}

Result<std::string> SchemaLiteralArg(const BoundExprPtr& e) {
  auto not_literal = [&] {
    return Status::Error("INVALID_SCHEMA.NON_STRING_LITERAL",
                         {{"inputSchema", "\"" + e->ToString() + "\""}});
  };
  if (e->type()->id() != TypeId::kString || !e->IsConstant()) return not_literal();
  SPATE_ASSIGN_OR_RETURN(Value v, FoldConstant(e));
  if (v.is_null()) return not_literal();
  return v.str();
}

Result<std::string> ConstantStringArg(const std::string& call_sql,
                                      const std::string& input_name,
                                      const BoundExprPtr& arg) {
  if (!arg->IsConstant()) return NonFoldableInput(call_sql, input_name, "STRING", *arg);
  SPATE_ASSIGN_OR_RETURN(Value v, FoldConstant(arg));
  if (v.is_null() || arg->type()->id() != TypeId::kString) {
    return Status::Error(
        "DATATYPE_MISMATCH.UNEXPECTED_NULL",
        {{"sqlExpr", "\"" + call_sql + "\""}, {"exprName", "`" + input_name + "`"}});
  }
  return v.str();
}

Result<BoundExprPtr> Delegate(const std::string& shown, const std::string& name,
                              std::vector<BoundExprPtr> args, const ResolveContext& rc,
                              const std::vector<BoundExprPtr>& shown_args) {
  const ScalarResolver* r = FunctionRegistry::Global().FindScalar(name);
  SPATE_ASSIGN_OR_RETURN(auto inner, (*r)(std::move(args), rc));
  std::vector<std::string> texts;
  for (const auto& a : shown_args) texts.push_back(a->ToString());
  return MakeScalarCall(
      shown, inner->type(), inner->nullable(), {inner},
      [](const std::vector<ColumnPtr>& c, int64_t,
         const EvalContext&) -> Result<ColumnPtr> { return c[0]; },
      [shown, texts](const std::vector<std::string>&) { return CallText(shown, texts); });
}

std::string Ordinal(size_t index) {
  static const char* kNames[] = {"first", "second",  "third",  "fourth", "fifth",
                                 "sixth", "seventh", "eighth", "ninth",  "tenth"};
  if (index < 10) return kNames[index];
  return std::to_string(index + 1) + "th";
}

std::string CallSql(const std::string& name, const std::vector<BoundExprPtr>& args) {
  std::vector<std::string> s;
  for (const auto& a : args) s.push_back(a->ToString());
  return CallText(name, s);
}

Status NonFoldableInput(const std::string& call_sql, const std::string& input_name,
                        const std::string& input_type, const BoundExpr& input) {
  return Status::Error("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                       {{"sqlExpr", "\"" + call_sql + "\""},
                        {"inputName", "`" + input_name + "`"},
                        {"inputType", "\"" + input_type + "\""},
                        {"inputExpr", "\"" + input.ToString() + "\""}});
}

Status UnexpectedType(const std::string& name, const std::vector<BoundExprPtr>& args,
                      size_t index, const std::string& required) {
  return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                       {{"sqlExpr", "\"" + CallSql(name, args) + "\""},
                        {"paramIndex", Ordinal(index)},
                        {"requiredType", required},
                        {"inputSql", "\"" + args[index]->ToString() + "\""},
                        {"inputType", QuoteType(*args[index]->type())}});
}

Result<BoundExprPtr> ToTypeArg(const std::string& name,
                               const std::vector<BoundExprPtr>& args, size_t index,
                               const DataTypePtr& to, const std::string& required) {
  const BoundExprPtr& a = args[index];
  if (a->type()->Equals(*to)) return a;
  if (a->type()->IsNested() || !CanCast(*a->type(), *to, CastMode::kAnsi)) {
    return UnexpectedType(name, args, index, required);
  }
  auto r = MakeCast(a, to);
  if (!r.ok()) return UnexpectedType(name, args, index, required);
  return r;
}

Result<BoundExprPtr> ToStringArg(const std::string& name,
                                 const std::vector<BoundExprPtr>& args, size_t index) {
  return ToTypeArg(name, args, index, DataType::String(), "\"STRING\"");
}

Result<BoundExprPtr> ToIntArg(const std::string& name,
                              const std::vector<BoundExprPtr>& args, size_t index) {
  const DataType& t = *args[index]->type();
  if (!(t.IsIntegral() || t.id() == TypeId::kNull || t.id() == TypeId::kString)) {
    return UnexpectedType(name, args, index, "\"INT\"");
  }
  return ToTypeArg(name, args, index, DataType::Int(), "\"INT\"");
}

Result<BoundExprPtr> ToNumericArg(const std::string& name,
                                  const std::vector<BoundExprPtr>& args, size_t index) {
  const DataType& t = *args[index]->type();
  if (t.IsNumeric()) return args[index];
  if (t.id() == TypeId::kNull || t.id() == TypeId::kString) {
    return ImplicitCast(args[index], DataType::Double());
  }
  return UnexpectedType(name, args, index, "\"NUMERIC\"");
}

bool AnyNullable(const std::vector<BoundExprPtr>& args) {
  for (const auto& a : args) {
    if (a->nullable()) return true;
  }
  return false;
}

void NullMask::SetNull(int64_t i) {
  if (!owned_) {
    auto v = Buffer::Allocate(bits::BytesFor(n_));
    if (validity_) {
      std::memcpy(v->mutable_data(), validity_->data(),
                  static_cast<size_t>(bits::BytesFor(n_)));
    } else {
      std::memset(v->mutable_data(), 0xff, static_cast<size_t>(bits::BytesFor(n_)));
    }
    validity_ = v;
    owned_ = true;
  }
  if (bits::Get(validity_->data(), i)) {
    bits::Clear(validity_->mutable_data(), i);
    ++nulls_;
  }
}

}  // namespace spate::fn
