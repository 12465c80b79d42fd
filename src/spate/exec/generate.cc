// Copyright spate authors.
#include "spate/exec/generate.h"

#include "spate/columnar/kernels.h"
#include "spate/exec/exec_context.h"

namespace spate::exec {

namespace {

class GenerateStream final : public BatchStream {
 public:
  GenerateStream(const Generate* op, BatchStreamPtr input, const EvalContext* eval)
      : op_(op), input_(std::move(input)), eval_(eval) {}
  Result<BatchPtr> Next() override {
    while (true) {
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, input_->Next());
      if (!b) return b;
      SPATE_ASSIGN_OR_RETURN(BatchPtr out, op_->Apply(*b, *eval_));
      if (out->num_rows() > 0) return out;
    }
  }

 private:
  const Generate* op_;
  BatchStreamPtr input_;
  const EvalContext* eval_;
};

std::string Join(const std::vector<std::string>& xs) {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
  return s;
}

}  // namespace

Generate::Generate(SchemaPtr schema, std::shared_ptr<const GeneratorSpec> generator,
                   std::vector<std::string> child_labels,
                   std::vector<std::string> output_labels, PhysicalOpPtr child)
    : PhysicalOp(std::move(schema), {std::move(child)}),
      generator_(std::move(generator)),
      child_labels_(std::move(child_labels)),
      output_labels_(std::move(output_labels)) {}

Result<BatchPtr> Generate::Apply(const Batch& input, const EvalContext& eval) const {
  SPATE_ASSIGN_OR_RETURN(GeneratedRows gen, RunGenerator(*generator_, input, eval));
  int64_t n = static_cast<int64_t>(gen.input_rows.size());
  std::vector<ColumnPtr> cols;
  cols.reserve(static_cast<size_t>(input.num_columns()) + gen.columns.size());
  for (int i = 0; i < input.num_columns(); ++i) {
    cols.push_back(Take(*input.column(i), gen.input_rows.data(), n));
  }
  for (auto& c : gen.columns) cols.push_back(std::move(c));
  return Batch::Make(schema(), std::move(cols), n);
}

Result<BatchStreamPtr> Generate::Open(int partition, ExecContext* ctx) const {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr in, child().Open(partition, ctx));
  return BatchStreamPtr(
      std::make_unique<GenerateStream>(this, std::move(in), &ctx->eval()));
}

std::string Generate::Describe() const {
  return "Generate " + generator_->ToString() + ", [" + Join(child_labels_) + "], " +
         (generator_->outer ? "true" : "false") + ", [" + Join(output_labels_) + "]";
}

}  // namespace spate::exec
