// Copyright spate authors.
#include "spate/exec/exchange.h"

#include <mutex>

#include "spate/columnar/kernels.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/row_hash.h"

namespace spate::exec {

namespace {

// Materialized output. Each partition is handed to its single consumer once (Open moves
// it out, so shuffled data is freed as the next stage consumes it); the broadcast batch
// stays for every reader.
struct ExchangeState {
  mutable std::mutex mu;
  mutable std::vector<std::vector<BatchPtr>> partitions;
  mutable std::vector<uint8_t> taken;
  BatchPtr broadcast;  // kBroadcast: all rows in one batch
};

// Splits the batches of one input partition into output partitions, gathering rows of
// the same output partition into batches of about `batch_size` rows.
class Scatter {
 public:
  Scatter(const SchemaPtr& schema, uint32_t num_partitions, int64_t batch_size)
      : schema_(schema),
        out_(num_partitions),
        refs_(num_partitions),
        batch_size_(batch_size) {}

  void Add(BatchPtr batch, const uint32_t* pids) {
    int64_t n = batch->num_rows();
    if (out_.size() == 1) {  // nothing to split: keep the batch as it is
      out_[0].push_back(std::move(batch));
      return;
    }
    uint64_t src = sources_.size();
    sources_.push_back(std::move(batch));
    for (int64_t i = 0; i < n; ++i)
      refs_[pids[i]].push_back((src << 32) | static_cast<uint64_t>(i));
    for (size_t p = 0; p < refs_.size(); ++p) {
      if (static_cast<int64_t>(refs_[p].size()) >= batch_size_) Flush(p);
    }
    if (sources_.size() >= 32) FlushAll();
  }

  std::vector<std::vector<BatchPtr>> Finish() {
    FlushAll();
    return std::move(out_);
  }

 private:
  void Flush(size_t p) {
    auto& refs = refs_[p];
    if (refs.empty()) return;
    std::vector<ColumnPtr> cols;
    int64_t n = static_cast<int64_t>(refs.size());
    for (int c = 0; c < schema_->num_fields(); ++c) {
      std::vector<ColumnPtr> srcs;
      srcs.reserve(sources_.size());
      for (const auto& b : sources_) srcs.push_back(b->column(c));
      cols.push_back(TakeMulti(srcs, refs.data(), n));
    }
    out_[p].push_back(Batch::Make(schema_, std::move(cols), n));
    refs.clear();
  }
  void FlushAll() {
    for (size_t p = 0; p < refs_.size(); ++p) Flush(p);
    sources_.clear();
  }

  SchemaPtr schema_;
  std::vector<std::vector<BatchPtr>> out_;
  std::vector<std::vector<uint64_t>> refs_;
  std::vector<BatchPtr> sources_;
  int64_t batch_size_;
};

std::string KeyText(const std::vector<BoundExprPtr>& keys) {
  std::string s;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) s += ", ";
    s += keys[i]->ToString();
  }
  return s;
}

}  // namespace

Exchange::Exchange(Partitioning partitioning, std::vector<BoundExprPtr> keys,
                   int num_partitions, PhysicalOpPtr child)
    : PhysicalOp(child->schema(), {child}),
      partitioning_(partitioning),
      keys_(std::move(keys)),
      num_partitions_(num_partitions < 1 ? 1 : num_partitions) {
  if (partitioning_ == Partitioning::kSingle ||
      partitioning_ == Partitioning::kBroadcast) {
    num_partitions_ = 1;
  }
}

Status Exchange::Prepare(ExecContext* ctx) const {
  const PhysicalOp& in = child();
  const int64_t inputs = in.num_partitions();
  auto state = std::make_shared<ExchangeState>();
  if (partitioning_ == Partitioning::kSingle ||
      partitioning_ == Partitioning::kBroadcast) {
    std::vector<std::vector<BatchPtr>> parts(static_cast<size_t>(inputs));
    SPATE_RETURN_IF_ERROR(ctx->ParallelFor(inputs, [&](int64_t p) {
      return DrainPartition(in, static_cast<int>(p), ctx, &parts[p]);
    }));
    state->partitions.resize(1);
    for (auto& part : parts) {
      for (auto& b : part) state->partitions[0].push_back(std::move(b));
    }
    if (partitioning_ == Partitioning::kBroadcast) {
      state->broadcast = ConcatBatches(schema(), state->partitions[0]);
      state->partitions[0].clear();
    }
    state->taken.assign(1, 0);
    ctx->SetState(this, std::move(state));
    return Status::OK();
  }
  const uint32_t n = static_cast<uint32_t>(num_partitions_);
  std::vector<std::vector<std::vector<BatchPtr>>> per_input(static_cast<size_t>(inputs));
  SPATE_RETURN_IF_ERROR(ctx->ParallelFor(inputs, [&](int64_t p) -> Status {
    SPATE_ASSIGN_OR_RETURN(BatchStreamPtr stream, in.Open(static_cast<int>(p), ctx));
    Scatter scatter(schema(), n, ctx->batch_size());
    RowEncoder encoder;
    std::vector<uint64_t> hashes;
    std::vector<uint32_t> pids;
    uint64_t counter = static_cast<uint64_t>(p);
    for (;;) {
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, stream->Next());
      if (!b) break;
      int64_t rows = b->num_rows();
      if (rows == 0) continue;
      pids.resize(static_cast<size_t>(rows));
      if (partitioning_ == Partitioning::kHash) {
        SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> keys,
                               EvaluateAll(keys_, *b, ctx->eval()));
        std::vector<const Column*> cols;
        for (const auto& k : keys) cols.push_back(k.get());
        hashes.resize(static_cast<size_t>(rows));
        HashRows(cols, rows, &encoder, hashes.data());
        for (int64_t i = 0; i < rows; ++i) pids[i] = PartitionOf(hashes[i], n);
      } else {
        for (int64_t i = 0; i < rows; ++i) pids[i] = static_cast<uint32_t>(counter++ % n);
      }
      scatter.Add(std::move(b), pids.data());
    }
    per_input[p] = scatter.Finish();
    return Status::OK();
  }));
  state->partitions.resize(n);
  state->taken.assign(n, 0);
  for (auto& input : per_input) {
    for (uint32_t q = 0; q < n; ++q) {
      for (auto& b : input[q]) state->partitions[q].push_back(std::move(b));
    }
  }
  per_input.clear();
  ctx->SetState(this, std::move(state));
  return Status::OK();
}

Result<BatchStreamPtr> Exchange::Open(int partition, ExecContext* ctx) const {
  auto state = ctx->GetState<ExchangeState>(this);
  if (!state) return Status::Internal("Exchange opened before it was prepared");
  if (state->broadcast)
    return BatchStreamPtr(
        std::make_unique<VectorStream>(std::vector<BatchPtr>{state->broadcast}));
  std::vector<BatchPtr> batches;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    size_t p = static_cast<size_t>(partition);
    if (state->taken[p])
      return Status::Internal("Exchange partition read twice in one execution");
    state->taken[p] = 1;
    batches.swap(state->partitions[p]);
  }
  return BatchStreamPtr(std::make_unique<VectorStream>(std::move(batches)));
}

Result<BatchPtr> Exchange::BroadcastBatch(ExecContext* ctx) const {
  auto state = ctx->GetState<ExchangeState>(this);
  if (!state || !state->broadcast)
    return Status::Internal("broadcast read before it was prepared");
  return state->broadcast;
}

std::string Exchange::Describe() const {
  switch (partitioning_) {
    case Partitioning::kHash:
      return "Exchange hashpartitioning(" + KeyText(keys_) + ", " +
             std::to_string(num_partitions_) + ")";
    case Partitioning::kRoundRobin:
      return "Exchange RoundRobinPartitioning(" + std::to_string(num_partitions_) + ")";
    case Partitioning::kSingle:
      return "Exchange SinglePartition";
    case Partitioning::kBroadcast:
      return "BroadcastExchange IdentityBroadcastMode";
  }
  return "Exchange";
}

}  // namespace spate::exec
