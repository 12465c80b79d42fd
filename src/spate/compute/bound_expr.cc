// Copyright spate authors.
#include "spate/compute/bound_expr.h"

#include "spate/columnar/builder.h"

namespace spate {

const std::string& BoundExpr::call_name() const {
  static const std::string kNone;
  return kNone;
}

bool BoundExpr::IsConstant() const {
  if (IsNondeterministic()) return false;
  if (children_.empty()) return literal_value() != nullptr;
  for (const auto& c : children_) {
    if (!c->IsConstant()) return false;
  }
  return true;
}

namespace {

class ColumnRef final : public BoundExpr {
 public:
  ColumnRef(int index, DataTypePtr type, bool nullable, std::string label)
      : BoundExpr(std::move(type), nullable), index_(index), label_(std::move(label)) {}
  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext&) const override {
    return input.column(index_);
  }
  bool IsConstant() const override { return false; }
  std::string ToString() const override { return label_; }
  int column_index() const override { return index_; }

 private:
  int index_;
  std::string label_;
};

class Literal final : public BoundExpr {
 public:
  explicit Literal(Value v) : BoundExpr(v.type(), v.is_null()), value_(std::move(v)) {}
  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext&) const override {
    return MakeConstantColumn(value_, input.num_rows());
  }
  std::string ToString() const override {
    if (value_.type()->id() == TypeId::kString && !value_.is_null()) return value_.str();
    return value_.ToString();
  }
  const Value* literal_value() const override { return &value_; }

 private:
  Value value_;
};

class ScalarCall final : public BoundExpr {
 public:
  ScalarCall(std::string name, DataTypePtr type, bool nullable,
             std::vector<BoundExprPtr> args, ScalarKernel kernel,
             std::function<std::string(const std::vector<std::string>&)> display,
             bool nondeterministic)
      : BoundExpr(std::move(type), nullable, std::move(args)),
        name_(std::move(name)),
        kernel_(std::move(kernel)),
        display_(std::move(display)),
        nondeterministic_(nondeterministic) {}

  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    SPATE_ASSIGN_OR_RETURN(auto args, EvaluateAll(children_, input, ctx));
    return kernel_(args, input.num_rows(), ctx);
  }
  bool IsNondeterministic() const override {
    if (nondeterministic_) return true;
    for (const auto& c : children_) {
      if (c->IsNondeterministic()) return true;
    }
    return false;
  }
  std::string ToString() const override {
    std::vector<std::string> args;
    for (const auto& c : children_) args.push_back(c->ToString());
    return display_ ? display_(args) : CallText(name_, args);
  }
  const std::string& call_name() const override { return name_; }

 private:
  std::string name_;
  ScalarKernel kernel_;
  std::function<std::string(const std::vector<std::string>&)> display_;
  bool nondeterministic_;
};

}  // namespace

BoundExprPtr MakeColumnRef(int index, DataTypePtr type, bool nullable,
                           std::string label) {
  return std::make_shared<ColumnRef>(index, std::move(type), nullable, std::move(label));
}

BoundExprPtr MakeLiteral(Value v) { return std::make_shared<Literal>(std::move(v)); }

BoundExprPtr MakeScalarCall(
    std::string name, DataTypePtr type, bool nullable, std::vector<BoundExprPtr> args,
    ScalarKernel kernel,
    std::function<std::string(const std::vector<std::string>&)> display,
    bool nondeterministic) {
  return std::make_shared<ScalarCall>(std::move(name), std::move(type), nullable,
                                      std::move(args), std::move(kernel),
                                      std::move(display), nondeterministic);
}

std::string CallText(const std::string& name, const std::vector<std::string>& args) {
  std::string out = name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    out += args[i];
  }
  return out + ")";
}

Result<std::vector<ColumnPtr>> EvaluateAll(const std::vector<BoundExprPtr>& exprs,
                                           const Batch& input, const EvalContext& ctx) {
  std::vector<ColumnPtr> out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) {
    SPATE_ASSIGN_OR_RETURN(auto c, e->Evaluate(input, ctx));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace spate
