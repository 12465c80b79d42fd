// Copyright spate authors.
#include "spate/exec/set_operation.h"

#include "spate/columnar/kernels.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/group_table.h"

namespace spate::exec {

namespace {

// Reads partition `partition` of `child` to the end: f(batch, rows) for each batch with
// rows.
template <typename F>
Status ForEachBatch(const PhysicalOp& child, int partition, ExecContext* ctx, F&& f) {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr in, child.Open(partition, ctx));
  for (;;) {
    SPATE_ASSIGN_OR_RETURN(BatchPtr b, in->Next());
    if (!b) return Status::OK();
    int64_t n = b->num_rows();
    if (n > 0) f(std::move(b), n);
  }
}

class SetOperationStream final : public BatchStream {
 public:
  SetOperationStream(const SetOperation* op, sql::SetOpKind kind, bool all, int partition,
                     ExecContext* ctx)
      : op_(op), kind_(kind), all_(all), partition_(partition), ctx_(ctx) {}

  Result<BatchPtr> Next() override {
    if (done_) return BatchPtr();
    done_ = true;
    std::vector<DataTypePtr> types;
    for (const auto& f : op_->schema()->fields()) types.push_back(f.type);
    GroupTable table(types);
    std::vector<int64_t> left_count, right_count;
    std::vector<uint64_t> first_ref;
    std::vector<BatchPtr> left_batches;
    std::vector<uint32_t> gids;
    SPATE_RETURN_IF_ERROR(
        ForEachBatch(op_->child(0), partition_, ctx_, [&](BatchPtr b, int64_t n) {
          gids.resize(static_cast<size_t>(n));
          table.FindOrInsert(b->columns(), n, gids.data());
          size_t groups = static_cast<size_t>(table.num_groups());
          left_count.resize(groups, 0);
          first_ref.resize(groups, ~uint64_t{0});
          uint64_t src = left_batches.size();
          for (int64_t i = 0; i < n; ++i) {
            uint32_t g = gids[i];
            if (left_count[g]++ == 0) {
              first_ref[g] = (src << 32) | static_cast<uint64_t>(i);
            }
          }
          left_batches.push_back(std::move(b));
        }));
    if (left_batches.empty()) return BatchPtr();
    right_count.assign(left_count.size(), 0);
    SPATE_RETURN_IF_ERROR(
        ForEachBatch(op_->child(1), partition_, ctx_, [&](const BatchPtr& b, int64_t n) {
          gids.resize(static_cast<size_t>(n));
          table.Find(b->columns(), n, gids.data());
          for (int64_t i = 0; i < n; ++i) {
            if (gids[i] != GroupTable::kAbsent) ++right_count[gids[i]];
          }
        }));
    std::vector<uint64_t> refs;
    for (size_t g = 0; g < left_count.size(); ++g) {
      int64_t l = left_count[g], r = right_count[g], copies;
      if (kind_ == sql::SetOpKind::kIntersect) {
        copies = all_ ? std::min(l, r) : (l > 0 && r > 0 ? 1 : 0);
      } else {
        copies = all_ ? std::max<int64_t>(l - r, 0) : (l > 0 && r == 0 ? 1 : 0);
      }
      for (int64_t c = 0; c < copies; ++c) refs.push_back(first_ref[g]);
    }
    if (refs.empty()) return BatchPtr();
    int64_t n = static_cast<int64_t>(refs.size());
    std::vector<ColumnPtr> cols;
    for (int c = 0; c < op_->schema()->num_fields(); ++c) {
      std::vector<ColumnPtr> srcs;
      for (const auto& b : left_batches) srcs.push_back(b->column(c));
      cols.push_back(TakeMulti(srcs, refs.data(), n));
    }
    return Batch::Make(op_->schema(), std::move(cols), n);
  }

 private:
  const SetOperation* op_;
  sql::SetOpKind kind_;
  bool all_;
  int partition_;
  ExecContext* ctx_;
  bool done_ = false;
};

}  // namespace

SetOperation::SetOperation(sql::SetOpKind kind, bool all, SchemaPtr schema,
                           PhysicalOpPtr left, PhysicalOpPtr right)
    : PhysicalOp(std::move(schema), {std::move(left), std::move(right)}),
      kind_(kind),
      all_(all) {}

Result<BatchStreamPtr> SetOperation::Open(int partition, ExecContext* ctx) const {
  return BatchStreamPtr(
      std::make_unique<SetOperationStream>(this, kind_, all_, partition, ctx));
}

std::string SetOperation::Describe() const {
  std::string s = kind_ == sql::SetOpKind::kIntersect ? "HashSetOperation Intersect"
                                                      : "HashSetOperation Except";
  return s + (all_ ? " All" : "");
}

}  // namespace spate::exec
