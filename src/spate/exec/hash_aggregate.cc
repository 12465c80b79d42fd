// Copyright spate authors.
#include "spate/exec/hash_aggregate.h"

#include "spate/columnar/kernels.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/filter.h"
#include "spate/exec/group_table.h"

namespace spate::exec {

namespace {

class AggregateStream final : public BatchStream {
 public:
  AggregateStream(const HashAggregate* op, BatchStreamPtr input, ExecContext* ctx)
      : op_(op), input_(std::move(input)), ctx_(ctx) {}

  Result<BatchPtr> Next() override {
    if (done_) return BatchPtr();
    done_ = true;
    SPATE_RETURN_IF_ERROR(Init());
    for (;;) {
      SPATE_ASSIGN_OR_RETURN(BatchPtr b, input_->Next());
      if (!b) break;
      if (b->num_rows() == 0) continue;
      SPATE_RETURN_IF_ERROR(Consume(*b));
    }
    return Emit();
  }

 private:
  int num_keys() const { return static_cast<int>(op_->group_exprs().size()); }

  Status Init() {
    std::vector<DataTypePtr> key_types;
    for (const auto& e : op_->group_exprs()) key_types.push_back(e->type());
    if (!key_types.empty()) {
      table_ = std::make_unique<GroupTable>(std::move(key_types));
      num_groups_ = 0;
    } else {
      num_groups_ = 1;
    }
    for (const auto& call : op_->calls()) {
      accs_.push_back(call.function->MakeAccumulator());
      accs_.back()->Resize(num_groups_);
    }
    return Status::OK();
  }

  Status Consume(const Batch& b) {
    const int64_t n = b.num_rows();
    const EvalContext& eval = ctx_->eval();
    if (static_cast<int64_t>(gids_.size()) < n) gids_.resize(static_cast<size_t>(n), 0);
    if (table_) {
      std::vector<ColumnPtr> keys;
      if (op_->mode() == AggregateMode::kFinal) {
        for (int k = 0; k < num_keys(); ++k) keys.push_back(b.column(k));
      } else {
        SPATE_ASSIGN_OR_RETURN(keys, EvaluateAll(op_->group_exprs(), b, eval));
      }
      table_->FindOrInsert(keys, n, gids_.data());
      if (table_->num_groups() != num_groups_) {
        num_groups_ = table_->num_groups();
        for (auto& acc : accs_) acc->Resize(num_groups_);
      }
    }
    if (op_->mode() == AggregateMode::kFinal) {
      int col = num_keys();
      for (size_t a = 0; a < accs_.size(); ++a) {
        size_t nstates = op_->calls()[a].function->state_fields().size();
        std::vector<ColumnPtr> states(
            b.columns().begin() + col,
            b.columns().begin() + col + static_cast<int>(nstates));
        col += static_cast<int>(nstates);
        SPATE_RETURN_IF_ERROR(accs_[a]->Merge(states, gids_.data(), n, eval));
      }
      return Status::OK();
    }
    for (size_t a = 0; a < accs_.size(); ++a) {
      const sql::AggregateCall& call = op_->calls()[a];
      SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> args,
                             EvaluateAll(call.args, b, eval));
      if (call.filter) {
        bool all = false;
        SPATE_ASSIGN_OR_RETURN(std::vector<int32_t> rows,
                               SelectRows(*call.filter, b, eval, &all));
        if (!all) {
          if (rows.empty()) continue;
          int64_t m = static_cast<int64_t>(rows.size());
          for (auto& arg : args) arg = Take(*arg, rows.data(), m);
          std::vector<uint32_t> sub(static_cast<size_t>(m));
          for (int64_t i = 0; i < m; ++i) sub[i] = gids_[rows[i]];
          SPATE_RETURN_IF_ERROR(accs_[a]->Update(args, sub.data(), m, eval));
          continue;
        }
      }
      SPATE_RETURN_IF_ERROR(accs_[a]->Update(args, gids_.data(), n, eval));
    }
    return Status::OK();
  }

  Result<BatchPtr> Emit() {
    if (num_groups_ == 0) return BatchPtr();
    std::vector<ColumnPtr> cols;
    if (table_) cols = table_->FinishKeys();
    for (size_t a = 0; a < accs_.size(); ++a) {
      auto& acc = accs_[a];
      if (op_->mode() == AggregateMode::kPartial) {
        // Exactly the declared state fields (an accumulator may return extra columns).
        std::vector<ColumnPtr> states = acc->State();
        states.resize(op_->calls()[a].function->state_fields().size());
        for (auto& c : states) cols.push_back(std::move(c));
      } else {
        SPATE_ASSIGN_OR_RETURN(ColumnPtr c, acc->Finalize(ctx_->eval()));
        cols.push_back(std::move(c));
      }
    }
    return Batch::Make(op_->schema(), std::move(cols), num_groups_);
  }

  const HashAggregate* op_;
  BatchStreamPtr input_;
  ExecContext* ctx_;
  bool done_ = false;
  std::unique_ptr<GroupTable> table_;
  int64_t num_groups_ = 0;
  std::vector<std::unique_ptr<GroupedAccumulator>> accs_;
  std::vector<uint32_t> gids_;
};

}  // namespace

HashAggregate::HashAggregate(AggregateMode mode, SchemaPtr schema,
                             std::vector<BoundExprPtr> group_exprs,
                             std::vector<std::string> key_labels,
                             std::vector<sql::AggregateCall> calls, PhysicalOpPtr child)
    : PhysicalOp(std::move(schema), {std::move(child)}),
      mode_(mode),
      group_exprs_(std::move(group_exprs)),
      key_labels_(std::move(key_labels)),
      calls_(std::move(calls)) {}

SchemaPtr HashAggregate::PartialSchema(const std::vector<Field>& key_fields,
                                       const std::vector<sql::AggregateCall>& calls) {
  std::vector<Field> fields = key_fields;
  for (size_t a = 0; a < calls.size(); ++a) {
    for (const Field& f : calls[a].function->state_fields()) {
      Field g = f;
      g.name = f.name + "#" + std::to_string(a);
      fields.push_back(std::move(g));
    }
  }
  return std::make_shared<const Schema>(std::move(fields));
}

Result<BatchStreamPtr> HashAggregate::Open(int partition, ExecContext* ctx) const {
  SPATE_ASSIGN_OR_RETURN(BatchStreamPtr in, child().Open(partition, ctx));
  return BatchStreamPtr(std::make_unique<AggregateStream>(this, std::move(in), ctx));
}

std::string HashAggregate::Describe() const {
  std::string s = "HashAggregate(keys=[";
  for (size_t i = 0; i < key_labels_.size(); ++i) {
    if (i) s += ", ";
    if (mode_ == AggregateMode::kFinal || i >= group_exprs_.size()) {
      s += key_labels_[i];
    } else {
      std::string e = group_exprs_[i]->ToString();
      s += e == key_labels_[i] ? e : e + " AS " + key_labels_[i];
    }
  }
  s += "], functions=[";
  for (size_t i = 0; i < calls_.size(); ++i) {
    if (i) s += ", ";
    s += (mode_ == AggregateMode::kPartial ? "partial_" : "") + calls_[i].text;
  }
  return s + "])";
}

}  // namespace spate::exec
