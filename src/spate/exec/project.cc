// Copyright spate authors.
#include "spate/exec/project.h"

#include "spate/exec/exec_context.h"

namespace spate::exec {

namespace {

class ProjectStream final : public BatchStream {
 public:
  ProjectStream(const Project* op, BatchStreamPtr input, EvalContext eval)
      : op_(op), input_(std::move(input)), eval_(std::move(eval)) {}
  Result<BatchPtr> Next() override {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, input_->Next());
    if (!b) return b;
    SPATE_ASSIGN_OR_RETURN(BatchPtr out, op_->Apply(*b, eval_));
    eval_.row_offset += b->num_rows();
    return out;
  }

 private:
  const Project* op_;
  BatchStreamPtr input_;
  EvalContext eval_;  // with this partition's index and row position
};

}  // namespace

Project::Project(SchemaPtr schema, std::vector<BoundExprPtr> exprs,
                 std::vector<std::string> labels, PhysicalOpPtr child)
    : PhysicalOp(std::move(schema), {std::move(child)}),
      exprs_(std::move(exprs)),
      labels_(std::move(labels)) {}

Result<BatchPtr> Project::Apply(const Batch& input, const EvalContext& eval) const {
  SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> cols, EvaluateAll(exprs_, input, eval));
  return Batch::Make(schema(), std::move(cols), input.num_rows());
}

Result<BatchStreamPtr> Project::Open(int partition, ExecContext* ctx) const {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr in, child().Open(partition, ctx));
  return BatchStreamPtr(
      std::make_unique<ProjectStream>(this, std::move(in), ctx->eval(partition)));
}

std::string Project::Describe() const {
  std::string s = "Project [";
  for (size_t i = 0; i < exprs_.size(); ++i) {
    if (i) s += ", ";
    std::string e = exprs_[i]->ToString();
    s += (i < labels_.size() && e != labels_[i]) ? e + " AS " + labels_[i] : e;
  }
  return s + "]";
}

}  // namespace spate::exec
