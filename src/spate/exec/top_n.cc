// Copyright spate authors.
#include "spate/exec/top_n.h"

#include "spate/columnar/kernels.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/limit.h"
#include "spate/exec/sort.h"

namespace spate::exec {

TopN::TopN(std::vector<sql::SortKey> keys, int64_t limit, int64_t offset,
           std::vector<std::string> labels, const PhysicalOpPtr& child)
    : PhysicalOp(child->schema(), {child}),
      keys_(std::move(keys)),
      limit_(limit),
      offset_(offset),
      labels_(std::move(labels)) {}

Status TopN::Prepare(ExecContext* ctx) const {
  const PhysicalOp& in = child();
  int64_t m = in.num_partitions();
  int64_t keep = 0;
  if (__builtin_add_overflow(limit_, offset_, &keep) || keep > (int64_t{1} << 40))
    keep = int64_t{1} << 40;
  auto state = std::make_shared<PreparedRuns>();
  state->runs.resize(static_cast<size_t>(m));
  SPATE_RETURN_IF_ERROR(ctx->ParallelFor(m, [&](int64_t p) -> Status {
    SPATE_ASSIGN_OR_RETURN(BatchStreamPtr stream, in.Open(static_cast<int>(p), ctx));
    std::vector<BatchPtr> pending;
    int64_t pending_rows = 0;
    const int64_t compact_at = std::max<int64_t>(2 * keep, ctx->batch_size());
    for (;;) {
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, stream->Next());
      if (!b) break;
      if (b->num_rows() == 0 || keep == 0) continue;
      pending_rows += b->num_rows();
      pending.push_back(std::move(b));
      if (pending_rows >= compact_at) {
        SPATE_ASSIGN_OR_RETURN(SortedRun run, SortBatch(ConcatBatches(schema(), pending),
                                                        keys_, ctx->eval(), keep));
        pending = {run.batch};
        pending_rows = run.batch->num_rows();
      }
    }
    SPATE_ASSIGN_OR_RETURN(state->runs[p], SortBatch(ConcatBatches(schema(), pending),
                                                     keys_, ctx->eval(), keep));
    return Status::OK();
  }));
  ctx->SetState(this, std::move(state));
  return Status::OK();
}

Result<BatchStreamPtr> TopN::Open(int, ExecContext* ctx) const {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr merged, MergePreparedRuns(*this, "TopN", ctx));
  return MakeLimitStream(std::move(merged), limit_, offset_);
}

std::string TopN::Describe() const {
  std::string s = "TakeOrderedAndProject(limit=" + std::to_string(limit_);
  if (offset_ > 0) s += ", offset=" + std::to_string(offset_);
  s += ", orderBy=[" + sql::SortKeysText(keys_) + "], output=[";
  for (size_t i = 0; i < labels_.size(); ++i) {
    if (i) s += ",";
    s += labels_[i];
  }
  return s + "])";
}

}  // namespace spate::exec
