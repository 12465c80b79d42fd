// Copyright spate authors.
#include "spate/exec/physical_op.h"

#include "spate/columnar/kernels.h"
#include "spate/exec/exec_context.h"

namespace spate::exec {

Result<BatchPtr> VectorStream::Next() {
  while (next_ < batches_.size()) {
    BatchPtr b = batches_[next_++];
    if (b->num_rows() == 0) continue;
    if (relabel_ && b->schema() != relabel_) return b->WithSchema(relabel_);
    return b;
  }
  return BatchPtr();
}

Status DrainPartition(const PhysicalOp& op, int partition, ExecContext* ctx,
                      std::vector<BatchPtr>* out) {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr stream, op.Open(partition, ctx));
  for (;;) {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, stream->Next());
    if (!b) break;
    if (b->num_rows() > 0) out->push_back(std::move(b));
  }
  return Status::OK();
}

Result<BatchPtr> DrainPartitionToBatch(const PhysicalOp& op, int partition,
                                       ExecContext* ctx) {
  std::vector<BatchPtr> batches;
  SPATE_RETURN_IF_ERROR(DrainPartition(op, partition, ctx, &batches));
  return ConcatBatches(op.schema(), batches);
}

namespace {

void Render(const PhysicalOp& op, const std::string& prefix, std::string* out) {
  const auto& kids = op.children();
  for (size_t i = 0; i < kids.size(); ++i) {
    bool last = i + 1 == kids.size();
    *out += prefix + (last ? "+- " : ":- ") + kids[i]->Describe() + "\n";
    Render(*kids[i], prefix + (last ? "   " : ":  "), out);
  }
}

}  // namespace

std::string RenderTree(const PhysicalOp& op) {
  std::string out = op.Describe() + "\n";
  Render(op, "", &out);
  return out;
}

}  // namespace spate::exec
