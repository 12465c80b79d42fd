// Copyright spate authors.
#include "spate/exec/window.h"

#include "spate/columnar/kernels.h"
#include "spate/columnar/row_encoding.h"
#include "spate/compute/cast.h"
#include "spate/compute/kernel_columns.h"
#include "spate/exec/exec_context.h"
#include "spate/exec/sort.h"
#include "spate/exec/window_aggregate.h"

namespace spate::exec {

namespace {

using sql::WindowFunctionKind;

// Row i starts a new group when its encoded key differs from row i-1's.
std::vector<uint8_t> KeyBreaks(const std::vector<ColumnPtr>& keys, int64_t n) {
  std::vector<uint8_t> breaks(static_cast<size_t>(n), 0);
  if (n > 0) breaks[0] = 1;
  if (keys.empty()) return breaks;
  std::vector<const Column*> cols;
  for (const auto& k : keys) cols.push_back(k.get());
  RowEncoder enc;
  enc.Encode(cols, n);
  for (int64_t i = 1; i < n; ++i) breaks[i] = enc.key(i) != enc.key(i - 1);
  return breaks;
}

ColumnPtr IntegerColumn(const DataTypePtr& type, const std::vector<int64_t>& values) {
  int64_t n = static_cast<int64_t>(values.size());
  if (type->id() == TypeId::kLong) {
    kernel::Out<int64_t> out(n);
    for (int64_t i = 0; i < n; ++i) out.data[i] = values[i];
    return kernel::MakeColumn(type, n, 0, nullptr, out.buf);
  }
  kernel::Out<int32_t> out(n);
  for (int64_t i = 0; i < n; ++i) out.data[i] = static_cast<int32_t>(values[i]);
  return kernel::MakeColumn(type->id() == TypeId::kInt ? type : DataType::Int(), n, 0,
                            nullptr, out.buf);
}

ColumnPtr DoubleColumn(const std::vector<double>& values) {
  int64_t n = static_cast<int64_t>(values.size());
  kernel::Out<double> out(n);
  for (int64_t i = 0; i < n; ++i) out.data[i] = values[i];
  return kernel::MakeColumn(DataType::Double(), n, 0, nullptr, out.buf);
}

Result<int64_t> LiteralInt(const BoundExprPtr& e, const char* what) {
  const Value* v = e ? e->literal_value() : nullptr;
  if (!v || v->is_null() || !v->type()->IsIntegral()) {
    return Status::Invalid(std::string(what) + " must be an integer literal");
  }
  return v->i64();
}

Result<ColumnPtr> Ranking(const sql::WindowCall& call, const WindowLayout& lay) {
  const int64_t n = lay.num_rows;
  std::vector<int64_t> ints(static_cast<size_t>(n));
  std::vector<double> doubles;
  switch (call.kind) {
    case WindowFunctionKind::kRowNumber:
      for (int64_t i = 0; i < n; ++i) ints[i] = i - lay.part_begin[lay.part_id[i]] + 1;
      return IntegerColumn(call.type, ints);
    case WindowFunctionKind::kRank:
      for (int64_t i = 0; i < n; ++i)
        ints[i] = lay.peer_begin[i] - lay.part_begin[lay.part_id[i]] + 1;
      return IntegerColumn(call.type, ints);
    case WindowFunctionKind::kDenseRank: {
      int64_t rank = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (i == lay.part_begin[lay.part_id[i]]) rank = 0;
        if (i == lay.peer_begin[i]) ++rank;
        ints[i] = rank;
      }
      return IntegerColumn(call.type, ints);
    }
    case WindowFunctionKind::kPercentRank:
      doubles.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        int64_t p = lay.part_id[i];
        int64_t size = lay.part_end[p] - lay.part_begin[p];
        int64_t rank = lay.peer_begin[i] - lay.part_begin[p];
        doubles[i] =
            size <= 1 ? 0.0 : static_cast<double>(rank) / static_cast<double>(size - 1);
      }
      return DoubleColumn(doubles);
    case WindowFunctionKind::kCumeDist:
      doubles.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        int64_t p = lay.part_id[i];
        int64_t size = lay.part_end[p] - lay.part_begin[p];
        doubles[i] = static_cast<double>(lay.peer_end[i] - lay.part_begin[p]) /
                     static_cast<double>(size);
      }
      return DoubleColumn(doubles);
    case WindowFunctionKind::kNtile: {
      if (call.args.empty()) return Status::Invalid("ntile needs a bucket count");
      SPATE_ASSIGN_OR_RETURN(int64_t buckets,
                             LiteralInt(call.args[0], "ntile's bucket count"));
      if (buckets <= 0) {
        return Status::Invalid("ntile's bucket count must be positive, got " +
                               std::to_string(buckets));
      }
      for (int64_t i = 0; i < n; ++i) {
        int64_t p = lay.part_id[i];
        int64_t size = lay.part_end[p] - lay.part_begin[p];
        int64_t r = i - lay.part_begin[p];
        int64_t per = size / buckets, extra = size % buckets;
        int64_t big = extra * (per + 1);  // rows in the first `extra` (larger) buckets
        ints[i] = r < big ? r / (per + 1) + 1 : (r - big) / per + extra + 1;
      }
      return IntegerColumn(call.type, ints);
    }
    default:
      return Status::Internal("not a ranking function");
  }
}

Result<ColumnPtr> LagLead(const sql::WindowCall& call, const Batch& sorted,
                          const WindowLayout& lay, const EvalContext& eval) {
  if (call.args.empty()) return Status::Invalid("lag/lead needs an input");
  int64_t offset = 1;
  if (call.args.size() > 1) {
    SPATE_ASSIGN_OR_RETURN(offset, LiteralInt(call.args[1], "lag/lead's offset"));
  }
  if (call.kind == WindowFunctionKind::kLag) offset = -offset;
  SPATE_ASSIGN_OR_RETURN(ColumnPtr input, call.args[0]->Evaluate(sorted, eval));
  ColumnPtr fallback;
  if (call.args.size() > 2) {
    SPATE_ASSIGN_OR_RETURN(fallback, call.args[2]->Evaluate(sorted, eval));
    if (fallback->type_id() == TypeId::kNull) {
      fallback.reset();
    } else if (!fallback->type()->Equals(*input->type())) {
      // The analyzer normally casts the default; cast here if it did not.
      SPATE_ASSIGN_OR_RETURN(
          fallback, CastColumn(fallback, input->type(),
                               eval.ansi ? CastMode::kAnsi : CastMode::kLegacy, eval));
    }
  }
  const int64_t n = lay.num_rows;
  std::vector<uint64_t> refs(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t p = lay.part_id[i];
    int64_t src = i + offset;
    if (src >= lay.part_begin[p] && src < lay.part_end[p]) {
      refs[i] = static_cast<uint64_t>(src);
    } else {
      refs[i] =
          fallback ? ((uint64_t{1} << 32) | static_cast<uint64_t>(i)) : ~uint64_t{0};
    }
  }
  std::vector<ColumnPtr> sources = {input};
  if (fallback) sources.push_back(fallback);
  return TakeMulti(sources, refs.data(), n);
}

// nth_value: the offset-th row of each row's frame (with IGNORE NULLS, the offset-th
// non-NULL row), or NULL when the frame is shorter.
Result<ColumnPtr> NthValue(const sql::WindowCall& call, const Batch& sorted,
                           const WindowLayout& lay, const EvalContext& eval) {
  SPATE_ASSIGN_OR_RETURN(ColumnPtr input, call.args[0]->Evaluate(sorted, eval));
  SPATE_ASSIGN_OR_RETURN(int64_t offset, LiteralInt(call.args[1], "nth_value's offset"));
  const Value* ignore = call.args[2]->literal_value();
  const bool ignore_nulls = ignore && !ignore->is_null() && ignore->i64() != 0;
  std::vector<int64_t> lo, hi;
  SPATE_RETURN_IF_ERROR(ComputeFrameBounds(call.frame, lay, &lo, &hi));
  const int64_t n = lay.num_rows;
  std::vector<uint64_t> refs(static_cast<size_t>(n), ~uint64_t{0});
  if (!ignore_nulls || input->null_count() == 0) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = lo[i] + offset - 1;
      if (lo[i] <= hi[i] && r <= hi[i]) refs[i] = static_cast<uint64_t>(r);
    }
  } else {
    // before[i]: the non-NULL rows before row i; valid: their positions.
    std::vector<int64_t> before(static_cast<size_t>(n) + 1, 0), valid;
    for (int64_t i = 0; i < n; ++i) {
      bool ok = input->IsValid(i);
      before[i + 1] = before[i] + (ok ? 1 : 0);
      if (ok) valid.push_back(i);
    }
    for (int64_t i = 0; i < n; ++i) {
      if (lo[i] > hi[i]) continue;
      int64_t k = before[lo[i]] + offset - 1;
      if (k < before[hi[i] + 1]) refs[i] = static_cast<uint64_t>(valid[k]);
    }
  }
  return TakeMulti({input}, refs.data(), n);
}

class WindowStream final : public BatchStream {
 public:
  WindowStream(const Window* op, int partition, ExecContext* ctx)
      : op_(op), partition_(partition), ctx_(ctx) {}
  Result<BatchPtr> Next() override {
    if (done_) return BatchPtr();
    done_ = true;
    SPATE_ASSIGN_OR_RETURN(BatchPtr all,
                           DrainPartitionToBatch(op_->child(), partition_, ctx_));
    if (all->num_rows() == 0) return BatchPtr();
    return op_->Apply(all, ctx_->eval());
  }

 private:
  const Window* op_;
  int partition_;
  ExecContext* ctx_;
  bool done_ = false;
};

}  // namespace

Window::Window(std::vector<sql::WindowCall> calls, std::vector<std::string> labels,
               SchemaPtr schema, PhysicalOpPtr child)
    : PhysicalOp(std::move(schema), {std::move(child)}),
      calls_(std::move(calls)),
      labels_(std::move(labels)) {}

Result<BatchPtr> Window::Apply(const BatchPtr& input, const EvalContext& eval) const {
  static const std::vector<BoundExprPtr> kNoKeys;
  static const std::vector<sql::SortKey> kNoOrder;
  const auto& partition_by = calls_.empty() ? kNoKeys : calls_[0].partition_by;
  const auto& order_by = calls_.empty() ? kNoOrder : calls_[0].order_by;
  std::vector<sql::SortKey> sort_keys;
  for (const auto& e : partition_by) sort_keys.push_back(sql::SortKey{e, true, true});
  for (const auto& k : order_by) sort_keys.push_back(k);
  SPATE_ASSIGN_OR_RETURN(SortedRun run, SortBatch(input, sort_keys, eval));
  const Batch& sorted = *run.batch;
  const int64_t n = sorted.num_rows();

  WindowLayout lay;
  lay.num_rows = n;
  std::vector<ColumnPtr> part_keys, order_keys;
  size_t nk = partition_by.size();
  for (size_t k = 0; k < run.comparator.keys().size(); ++k) {
    (k < nk ? part_keys : order_keys).push_back(run.comparator.keys()[k].column);
  }
  if (!order_keys.empty()) {
    lay.order_key = order_keys[0];
    lay.order_ascending = order_by[0].ascending;
  }
  std::vector<uint8_t> part_breaks = KeyBreaks(part_keys, n);
  std::vector<uint8_t> peer_breaks = KeyBreaks(order_keys, n);
  lay.part_id.resize(static_cast<size_t>(n));
  lay.peer_begin.resize(static_cast<size_t>(n));
  lay.peer_end.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (part_breaks[i]) {
      if (!lay.part_begin.empty()) lay.part_end.push_back(i);
      lay.part_begin.push_back(i);
    }
    lay.part_id[i] = static_cast<int64_t>(lay.part_begin.size()) - 1;
    bool new_peer = part_breaks[i] || peer_breaks[i];
    lay.peer_begin[i] = new_peer ? i : lay.peer_begin[i - 1];
  }
  lay.part_end.push_back(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    bool last = i == n - 1 || lay.peer_begin[i + 1] != lay.peer_begin[i];
    lay.peer_end[i] = last ? i + 1 : lay.peer_end[i + 1];
  }

  std::vector<ColumnPtr> cols = sorted.columns();
  for (const auto& call : calls_) {
    ColumnPtr out;
    switch (call.kind) {
      case WindowFunctionKind::kLag:
      case WindowFunctionKind::kLead: {
        SPATE_ASSIGN_OR_RETURN(out, LagLead(call, sorted, lay, eval));
        break;
      }
      case WindowFunctionKind::kNthValue: {
        SPATE_ASSIGN_OR_RETURN(out, NthValue(call, sorted, lay, eval));
        break;
      }
      case WindowFunctionKind::kAggregate: {
        if (!call.aggregate)
          return Status::Internal("window aggregate without a function");
        SPATE_ASSIGN_OR_RETURN(std::vector<ColumnPtr> args,
                               EvaluateAll(call.args, sorted, eval));
        SPATE_ASSIGN_OR_RETURN(
            out, EvaluateFrameAggregate(*call.aggregate, args, call.frame, lay, eval));
        break;
      }
      default: {
        SPATE_ASSIGN_OR_RETURN(out, Ranking(call, lay));
        break;
      }
    }
    cols.push_back(std::move(out));
  }
  return Batch::Make(schema(), std::move(cols), n);
}

Result<BatchStreamPtr> Window::Open(int partition, ExecContext* ctx) const {
  return BatchStreamPtr(std::make_unique<WindowStream>(this, partition, ctx));
}

std::string Window::Describe() const {
  std::string s = "Window [";
  for (size_t i = 0; i < calls_.size(); ++i) {
    if (i) s += ", ";
    s += calls_[i].text;
    if (i < labels_.size()) s += " AS " + labels_[i];
  }
  s += "], [";
  if (!calls_.empty()) {
    for (size_t i = 0; i < calls_[0].partition_by.size(); ++i) {
      if (i) s += ", ";
      s += calls_[0].partition_by[i]->ToString();
    }
    s += "], [" + sql::SortKeysText(calls_[0].order_by);
  } else {
    s += "], [";
  }
  return s + "]";
}

}  // namespace spate::exec
