// Copyright spate authors.
#include "spate/exec/sort.h"

#include <mutex>
#include <queue>

#include "spate/columnar/kernels.h"
#include "spate/exec/exec_context.h"

namespace spate::exec {

namespace {

class MergeStream final : public BatchStream {
 public:
  MergeStream(std::vector<SortedRun> runs, SchemaPtr schema, int64_t batch_size)
      : schema_(std::move(schema)), batch_size_(batch_size) {
    for (auto& r : runs) {
      if (r.batch->num_rows() > 0) runs_.push_back(std::move(r));
    }
    pos_.assign(runs_.size(), 0);
    for (size_t r = 0; r < runs_.size(); ++r) heap_.push(static_cast<int>(r));
  }

  Result<BatchPtr> Next() override {
    if (runs_.size() == 1) {
      if (pos_[0] > 0) return BatchPtr();
      pos_[0] = 1;
      return runs_[0].batch->WithSchema(schema_);
    }
    if (heap_.empty()) return BatchPtr();
    std::vector<uint64_t> refs;
    refs.reserve(static_cast<size_t>(batch_size_));
    while (!heap_.empty() && static_cast<int64_t>(refs.size()) < batch_size_) {
      int r = heap_.top();
      heap_.pop();
      refs.push_back((static_cast<uint64_t>(r) << 32) | static_cast<uint64_t>(pos_[r]));
      if (++pos_[r] < runs_[r].batch->num_rows()) heap_.push(r);
    }
    int64_t n = static_cast<int64_t>(refs.size());
    std::vector<ColumnPtr> cols;
    for (int c = 0; c < schema_->num_fields(); ++c) {
      std::vector<ColumnPtr> srcs;
      for (const auto& run : runs_) srcs.push_back(run.batch->column(c));
      cols.push_back(TakeMulti(srcs, refs.data(), n));
    }
    return Batch::Make(schema_, std::move(cols), n);
  }

 private:
  struct After {
    const MergeStream* self;
    // True when run a's head orders after run b's head (min-heap on (key, run)).
    bool operator()(int a, int b) const {
      const auto& ra = self->runs_[a];
      const auto& rb = self->runs_[b];
      int c = ra.comparator.CompareWith(self->pos_[a], rb.comparator, self->pos_[b]);
      return c != 0 ? c > 0 : a > b;
    }
  };

  SchemaPtr schema_;
  int64_t batch_size_;
  std::vector<SortedRun> runs_;
  std::vector<int64_t> pos_;
  std::priority_queue<int, std::vector<int>, After> heap_{After{this}};
};

}  // namespace

Result<SortedRun> SortBatch(const BatchPtr& batch, const std::vector<sql::SortKey>& keys,
                            const EvalContext& eval, int64_t limit) {
  std::vector<RowComparator::Key> cmp_keys;
  for (const auto& k : keys) {
    SPATE_ASSIGN_OR_RETURN(ColumnPtr col, k.expr->Evaluate(*batch, eval));
    cmp_keys.push_back({std::move(col), k.ascending, k.nulls_first});
  }
  RowComparator cmp(cmp_keys);
  int64_t n = batch->num_rows();
  std::vector<int32_t> order = cmp.SortedOrder(n);
  if (limit >= 0 && limit < n) {
    order.resize(static_cast<size_t>(limit));
    n = limit;
  }
  bool identity = true;
  for (int64_t i = 0; i < n && identity; ++i) identity = order[i] == i;
  if (identity && n == batch->num_rows()) return SortedRun{batch, std::move(cmp)};
  for (auto& k : cmp_keys) k.column = Take(*k.column, order.data(), n);
  return SortedRun{TakeBatch(*batch, order.data(), n),
                   RowComparator(std::move(cmp_keys))};
}

BatchStreamPtr MakeMergeStream(std::vector<SortedRun> runs, SchemaPtr schema,
                               int64_t batch_size) {
  return std::make_unique<MergeStream>(std::move(runs), std::move(schema), batch_size);
}

Sort::Sort(std::vector<sql::SortKey> keys, const PhysicalOpPtr& child)
    : PhysicalOp(child->schema(), {child}), keys_(std::move(keys)) {}

Status Sort::Prepare(ExecContext* ctx) const {
  const PhysicalOp& in = child();
  int64_t m = in.num_partitions();
  auto state = std::make_shared<PreparedRuns>();
  state->runs.resize(static_cast<size_t>(m));
  SPATE_RETURN_IF_ERROR(ctx->ParallelFor(m, [&](int64_t p) -> Status {
    SPATE_ASSIGN_OR_RETURN(BatchPtr all,
                           DrainPartitionToBatch(in, static_cast<int>(p), ctx));
    SPATE_ASSIGN_OR_RETURN(state->runs[p], SortBatch(all, keys_, ctx->eval()));
    return Status::OK();
  }));
  ctx->SetState(this, std::move(state));
  return Status::OK();
}

Result<BatchStreamPtr> MergePreparedRuns(const PhysicalOp& op, const char* name,
                                         ExecContext* ctx) {
  auto state = ctx->GetState<PreparedRuns>(&op);
  if (!state)
    return Status::Internal(std::string(name) + " opened before it was prepared");
  std::vector<SortedRun> runs;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (state->taken) return Status::Internal("sorted runs read twice in one execution");
    state->taken = true;
    runs.swap(state->runs);
  }
  return MakeMergeStream(std::move(runs), op.schema(), ctx->batch_size());
}

Result<BatchStreamPtr> Sort::Open(int, ExecContext* ctx) const {
  return MergePreparedRuns(*this, "Sort", ctx);
}

std::string Sort::Describe() const {
  return "Sort [" + sql::SortKeysText(keys_) + "], true, 0";
}

}  // namespace spate::exec
