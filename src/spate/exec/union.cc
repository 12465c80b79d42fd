// Copyright spate authors.
#include "spate/exec/union.h"

namespace spate::exec {

namespace {

class RelabelStream final : public BatchStream {
 public:
  RelabelStream(BatchStreamPtr input, SchemaPtr schema)
      : input_(std::move(input)), schema_(std::move(schema)) {}
  Result<BatchPtr> Next() override {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, input_->Next());
    if (!b || b->schema() == schema_) return b;
    return b->WithSchema(schema_);
  }

 private:
  BatchStreamPtr input_;
  SchemaPtr schema_;
};

}  // namespace

Union::Union(SchemaPtr schema, std::vector<PhysicalOpPtr> children)
    : PhysicalOp(std::move(schema), std::move(children)) {
  for (const auto& c : this->children()) num_partitions_ += c->num_partitions();
}

Result<BatchStreamPtr> Union::Open(int partition, ExecContext* ctx) const {
  for (const auto& c : children()) {
    if (partition < c->num_partitions()) {
      SPATE_ASSIGN_OR_RETURN(BatchStreamPtr in, c->Open(partition, ctx));
      return BatchStreamPtr(std::make_unique<RelabelStream>(std::move(in), schema()));
    }
    partition -= c->num_partitions();
  }
  return Status::Internal("Union partition out of range");
}

}  // namespace spate::exec
