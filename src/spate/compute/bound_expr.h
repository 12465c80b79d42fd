// Copyright spate authors.
#pragma once

// Bound (resolved) expressions: typed trees that evaluate over a whole batch at once.
// The analyzer builds them from unresolved Exprs; column references are already indices
// into the input batch. Evaluate() is called once per batch (one virtual call per node
// per batch); the kernels inside are typed loops.
//
// Ownership: immutable trees shared through BoundExprPtr. Thread safety: Evaluate() is
// const and may run concurrently on different batches.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/columnar/batch.h"

namespace spate {

class TimeZone;

/// Per-query evaluation settings.
struct EvalContext {
  bool ansi = true;                     // spark.sql.ansi.enabled
  const TimeZone* time_zone = nullptr;  // session zone; nullptr = UTC
  std::string time_zone_id = "UTC";
  /// The query's start instant (µs since the epoch) that current_timestamp() & co. return
  /// for every row; 0 = unset (those functions then read the clock).
  int64_t query_start_micros = 0;
  /// Index of the partition being evaluated (spark_partition_id).
  int partition_id = 0;
  /// Row index, within the partition, of the first row of the batch being evaluated
  /// (monotonically_increasing_id); kept by the operators that evaluate per batch.
  int64_t row_offset = 0;
};

class BoundExpr;
using BoundExprPtr = std::shared_ptr<const BoundExpr>;

class BoundExpr {
 public:
  BoundExpr(DataTypePtr type, bool nullable, std::vector<BoundExprPtr> children = {})
      : type_(std::move(type)), nullable_(nullable), children_(std::move(children)) {}
  virtual ~BoundExpr() = default;

  const DataTypePtr& type() const { return type_; }
  bool nullable() const { return nullable_; }
  const std::vector<BoundExprPtr>& children() const { return children_; }

  /// Evaluates over all rows of `input`; the result has input.num_rows() rows.
  virtual Result<ColumnPtr> Evaluate(const Batch& input,
                                     const EvalContext& ctx) const = 0;
  /// True when the value does not depend on the input rows (literals and deterministic
  /// functions of literals).
  virtual bool IsConstant() const;
  /// True if the value may differ between evaluations on the same input (rand, uuid).
  virtual bool IsNondeterministic() const { return false; }
  /// Text for EXPLAIN: "(id#0L % 10)".
  virtual std::string ToString() const = 0;

  /// If this is a column reference, its input index; else -1.
  virtual int column_index() const { return -1; }
  /// If this is a literal, its value; else nullptr.
  virtual const Value* literal_value() const { return nullptr; }
  /// If this is a scalar function call (MakeScalarCall), the function's name ("+", ">=",
  /// "and", "negative", ...); else "". For plan analysis (the stream join's range
  /// conditions), never for evaluation.
  virtual const std::string& call_name() const;

 protected:
  DataTypePtr type_;
  bool nullable_;
  std::vector<BoundExprPtr> children_;
};

/// Reference to column `index` of the input batch; `label` is "name#id" for EXPLAIN.
BoundExprPtr MakeColumnRef(int index, DataTypePtr type, bool nullable, std::string label);
BoundExprPtr MakeLiteral(Value v);

/// A scalar function over evaluated argument columns (all of input length).
using ScalarKernel = std::function<Result<ColumnPtr>(
    const std::vector<ColumnPtr>& args, int64_t num_rows, const EvalContext& ctx)>;

/// A call of a scalar kernel. `display` formats EXPLAIN text from the children's texts.
/// `null_intolerant`: result is NULL whenever an input is NULL (lets the kernel skip
/// nulls; documentation only).
BoundExprPtr MakeScalarCall(
    std::string name, DataTypePtr type, bool nullable, std::vector<BoundExprPtr> args,
    ScalarKernel kernel,
    std::function<std::string(const std::vector<std::string>&)> display = nullptr,
    bool nondeterministic = false);

/// Text form of a call: "name(a, b)".
std::string CallText(const std::string& name, const std::vector<std::string>& args);

/// Evaluates all children of `e` over `input`.
Result<std::vector<ColumnPtr>> EvaluateAll(const std::vector<BoundExprPtr>& exprs,
                                           const Batch& input, const EvalContext& ctx);

}  // namespace spate
