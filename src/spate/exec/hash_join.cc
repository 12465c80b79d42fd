// Copyright spate authors.
#include "spate/exec/hash_join.h"

#include "spate/columnar/row_encoding.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/join_output.h"
#include "spate/exec/row_hash.h"

namespace spate::exec {

namespace {

constexpr int32_t kChainStart = -2;

std::string ExprList(const std::vector<BoundExprPtr>& es) {
  std::string s;
  for (size_t i = 0; i < es.size(); ++i) {
    if (i) s += ", ";
    s += es[i]->ToString();
  }
  return s;
}

// Keys of one side's rows, ready for hashing and comparison.
struct KeyRows {
  std::vector<int64_t> ints;  // integer mode
  RowEncoder encoder;         // encoded mode
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> usable;  // 0 = has a NULL in a non-null-safe key (never matches)

  Status Compute(const Batch& batch, const std::vector<BoundExprPtr>& exprs,
                 const std::vector<bool>& null_safe, bool integer_mode,
                 const EvalContext& eval) {
    int64_t n = batch.num_rows();
    SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> keys, EvaluateAll(exprs, batch, eval));
    usable.assign(static_cast<size_t>(n), 1);
    for (size_t k = 0; k < keys.size(); ++k) {
      if (null_safe[k] || keys[k]->null_count() == 0) continue;
      for (int64_t i = 0; i < n; ++i) {
        if (keys[k]->IsNull(i)) usable[i] = 0;
      }
    }
    hashes.resize(static_cast<size_t>(n));
    if (integer_mode) {
      ints.resize(static_cast<size_t>(n));
      IntegerKeys(*keys[0], ints.data());
      for (int64_t i = 0; i < n; ++i) hashes[i] = HashInt(static_cast<uint64_t>(ints[i]));
    } else {
      std::vector<const Column*> cols;
      for (const auto& k : keys) cols.push_back(k.get());
      encoder.Encode(cols, n);
      for (int64_t i = 0; i < n; ++i) hashes[i] = HashBytes(encoder.key(i));
    }
    return Status::OK();
  }
};

// The build side's rows in a chained hash table: one slot per distinct key holding the
// first build row; rows with equal keys are chained through `next` in ascending order.
struct BuildTable {
  struct Slot {
    uint64_t key;  // the int64 key (integer mode) or the key's hash
    int32_t row;   // first build row with this key; -1 = empty
  };
  BatchPtr build;
  KeyRows keys;
  uint64_t mask = 0;
  std::vector<Slot> slots;
  std::vector<int32_t> next;

  uint64_t SlotKey(const KeyRows& rows, int64_t i, bool integer_mode) const {
    return integer_mode ? static_cast<uint64_t>(rows.ints[i]) : rows.hashes[i];
  }
};

bool IntegerMode(const HashJoin& op) {
  return op.left_keys().size() == 1 && !op.null_safe()[0] &&
         IsIntegerKeyType(*op.left_keys()[0]->type()) &&
         IsIntegerKeyType(*op.right_keys()[0]->type());
}

Result<std::shared_ptr<BuildTable>> MakeBuildTable(const HashJoin& op, BatchPtr build,
                                                   const EvalContext& eval) {
  const bool integer_mode = IntegerMode(op);
  auto t = std::make_shared<BuildTable>();
  t->build = std::move(build);
  SPATE_RETURN_IF_ERROR(
      t->keys.Compute(*t->build, op.build_keys(), op.null_safe(), integer_mode, eval));
  int64_t n = t->build->num_rows();
  uint64_t slots = 16;
  while (slots < static_cast<uint64_t>(n) * 2) slots <<= 1;
  t->mask = slots - 1;
  t->slots.assign(slots, BuildTable::Slot{0, -1});
  t->next.assign(static_cast<size_t>(n), -1);
  // Reverse insertion keeps each chain in ascending row order.
  for (int64_t i = n - 1; i >= 0; --i) {
    if (!t->keys.usable[i]) continue;
    uint64_t key = t->SlotKey(t->keys, i, integer_mode);
    uint64_t pos = t->keys.hashes[i] & t->mask;
    for (;;) {
      BuildTable::Slot& slot = t->slots[pos];
      if (slot.row < 0) {
        slot = BuildTable::Slot{key, static_cast<int32_t>(i)};
        break;
      }
      if (slot.key == key &&
          (integer_mode || t->keys.encoder.key(slot.row) == t->keys.encoder.key(i))) {
        t->next[i] = slot.row;
        slot.row = static_cast<int32_t>(i);
        break;
      }
      pos = (pos + 1) & t->mask;
    }
  }
  return t;
}

// Probes the build table with the rows of the other child's partition. Building right,
// the probe rows are the join's left rows (JoinOutput's left); building left, they are
// its right rows, and a right outer join emits a probe batch's unmatched rows as soon as
// the batch has been probed.
class HashJoinStream final : public ProbeLoopStream {
 public:
  HashJoinStream(const HashJoin* op, int partition, ExecContext* ctx)
      : op_(op),
        partition_(partition),
        ctx_(ctx),
        output_(op->type(), op->condition(), op->child(0).schema(), op->child(1).schema(),
                op->schema()),
        build_left_(op->build_side() == BuildSide::kLeft) {
    integer_mode_ = IntegerMode(*op);
  }

 private:
  Status StartProbe() override {
    chain_ = kChainStart;
    return probe_.Compute(*left_, op_->probe_keys(), op_->null_safe(), integer_mode_,
                          ctx_->eval());
  }
  BatchPtr Finish() override {
    if (build_left_ || !output_.tracks_right()) return nullptr;
    return output_.UnmatchedRight(*table_->build, right_matched_.data());
  }

  // The partition's own table, or (broadcast build) the one Prepare built for all.
  Status Open() override {
    if (op_->broadcast_build()) {
      table_ = ctx_->GetState<BuildTable>(op_);
      if (!table_)
        return Status::Internal("broadcast hash join opened before it was prepared");
    } else {
      SPATE_ASSIGN_OR_RETURN(BatchPtr build,
                             DrainPartitionToBatch(op_->child(1), partition_, ctx_));
      SPATE_ASSIGN_OR_RETURN(table_,
                             MakeBuildTable(*op_, std::move(build), ctx_->eval()));
    }
    if (!build_left_ && output_.tracks_right())
      right_matched_.assign(static_cast<size_t>(table_->build->num_rows()), 0);
    SPATE_ASSIGN_OR_RETURN(left_input_,
                           op_->child(op_->probe_child()).Open(partition_, ctx_));
    return Status::OK();
  }

  // First build row whose key equals probe row l's, or -1.
  int32_t FindChain(int64_t l) const {
    const BuildTable& t = *table_;
    uint64_t key = t.SlotKey(probe_, l, integer_mode_);
    uint64_t pos = probe_.hashes[l] & t.mask;
    for (;;) {
      const BuildTable::Slot& slot = t.slots[pos];
      if (slot.row < 0) return -1;
      if (slot.key == key &&
          (integer_mode_ || t.keys.encoder.key(slot.row) == probe_.encoder.key(l))) {
        return slot.row;
      }
      pos = (pos + 1) & t.mask;
    }
  }

  // Produces the next chunk of candidate pairs of the current left batch.
  Status Step() override {
    const int64_t n = left_->num_rows();
    const size_t cap = static_cast<size_t>(ctx_->batch_size());
    const bool first_decides = output_.first_match_decides();
    li_.clear();
    ri_.clear();
    while (li_.size() < cap && row_ < n) {
      if (chain_ == kChainStart) {
        if (!probe_.usable[row_]) {
          ++row_;
          continue;
        }
        chain_ = FindChain(row_);
      }
      while (chain_ >= 0 && li_.size() < cap) {
        int32_t r = chain_;
        chain_ = table_->next[r];
        li_.push_back(static_cast<int32_t>(row_));
        ri_.push_back(r);
        if (first_decides) {
          chain_ = -1;
          break;
        }
      }
      if (chain_ < 0) {
        ++row_;
        chain_ = kChainStart;
      }
    }
    BatchPtr out;
    if (build_left_) {
      // li_ holds the probe (right) rows and ri_ the build (left) rows.
      SPATE_ASSIGN_OR_RETURN(out, output_.Pairs(*table_->build, *left_, ri_, li_, nullptr,
                                                left_matched_.data(), ctx_->eval()));
    } else {
      SPATE_ASSIGN_OR_RETURN(
          out, output_.Pairs(*left_, *table_->build, li_, ri_, left_matched_.data(),
                             output_.tracks_right() ? right_matched_.data() : nullptr,
                             ctx_->eval()));
    }
    if (out) queue_.push_back(std::move(out));
    if (row_ >= n) {
      BatchPtr rest = build_left_ ? output_.UnmatchedRight(*left_, left_matched_.data())
                                  : output_.FinishLeft(*left_, left_matched_.data());
      if (rest) queue_.push_back(std::move(rest));
      left_.reset();
    }
    return Status::OK();
  }

  const HashJoin* op_;
  int partition_;
  ExecContext* ctx_;
  JoinOutput output_;
  bool build_left_;
  bool integer_mode_ = false;
  // Build side.
  std::shared_ptr<const BuildTable> table_;
  std::vector<uint8_t> right_matched_;
  // Probe side (ProbeLoopStream's left_input_ / left_ are the left child's rows when
  // building right, the right child's when building left; left_matched_ are the probe
  // rows' matched flags either way).
  KeyRows probe_;
  int32_t chain_ = kChainStart;
  std::vector<int32_t> li_, ri_;
};

}  // namespace

HashJoin::HashJoin(sql::JoinType type, std::vector<BoundExprPtr> left_keys,
                   std::vector<BoundExprPtr> right_keys, std::vector<bool> null_safe,
                   BoundExprPtr condition, SchemaPtr schema, PhysicalOpPtr left,
                   PhysicalOpPtr right, bool broadcast_build, BuildSide build)
    : PhysicalOp(std::move(schema), {std::move(left), std::move(right)}),
      type_(type),
      left_keys_(std::move(left_keys)),
      right_keys_(std::move(right_keys)),
      null_safe_(std::move(null_safe)),
      condition_(std::move(condition)),
      broadcast_build_(broadcast_build),
      build_(build) {
  null_safe_.resize(left_keys_.size(), false);
}

Status HashJoin::Prepare(ExecContext* ctx) const {
  if (!broadcast_build_) return Status::OK();
  SPATE_ASSIGN_OR_RETURN(BatchPtr build,
                         DrainPartitionToBatch(child(1 - probe_child()), 0, ctx));
  SPATE_ASSIGN_OR_RETURN(auto table,
                         MakeBuildTable(*this, std::move(build), ctx->eval()));
  ctx->SetState(this, std::shared_ptr<const void>(std::move(table)));
  return Status::OK();
}

Result<BatchStreamPtr> HashJoin::Open(int partition, ExecContext* ctx) const {
  return BatchStreamPtr(std::make_unique<HashJoinStream>(this, partition, ctx));
}

std::string HashJoin::Describe() const {
  std::string s =
      std::string(broadcast_build_ ? "BroadcastHashJoin [" : "ShuffledHashJoin [") +
      ExprList(left_keys_) + "], [" + ExprList(right_keys_) + "], " +
      std::string(sql::JoinTypeDisplay(type_)) +
      (build_ == BuildSide::kLeft ? ", BuildLeft" : ", BuildRight");
  if (condition_) s += ", " + condition_->ToString();
  return s;
}

}  // namespace spate::exec
