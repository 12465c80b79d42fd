// Copyright spate authors.
#pragma once

// Aggregate functions (count, sum, avg, min, max, first, last, ... and their DISTINCT
// forms) as vectorized grouped accumulators. The hash aggregate operator owns one
// accumulator per aggregate call and partition; each Update/Merge call processes a whole
// batch with a group id per row (one virtual call per batch).
//
// Two-phase use: partial accumulators Update from input rows and emit State() columns;
// final accumulators Merge those state columns and Finalize(). Non-decomposable
// aggregates (DISTINCT) run single-phase after the rows are shuffled by group key.
//
// Thread safety: AggregateFunction is immutable and shared; an accumulator belongs to one
// thread.

#include <memory>
#include <string>
#include <vector>

#include "spate/compute/bound_expr.h"

namespace spate {

class GroupedAccumulator {
 public:
  virtual ~GroupedAccumulator() = default;
  /// Ensures groups [0, num_groups) exist (new groups start empty).
  virtual void Resize(int64_t num_groups) = 0;
  /// Adds rows: args are the evaluated argument columns, group_ids[i] the row's group.
  virtual Status Update(const std::vector<ColumnPtr>& args, const uint32_t* group_ids,
                        int64_t n, const EvalContext& ctx) = 0;
  /// Merges partial states (columns as State() produced) row by row into groups.
  virtual Status Merge(const std::vector<ColumnPtr>& states, const uint32_t* group_ids,
                       int64_t n, const EvalContext& ctx) = 0;
  /// Partial state columns, one row per group.
  virtual std::vector<ColumnPtr> State() = 0;
  /// Final values, one row per group.
  virtual Result<ColumnPtr> Finalize(const EvalContext& ctx) = 0;
};

class AggregateFunction {
 public:
  virtual ~AggregateFunction() = default;
  const std::string& name() const { return name_; }
  const DataTypePtr& result_type() const { return result_type_; }
  bool nullable() const { return nullable_; }
  /// Types of the partial state columns.
  const std::vector<Field>& state_fields() const { return state_fields_; }
  bool decomposable() const { return decomposable_; }
  virtual std::unique_ptr<GroupedAccumulator> MakeAccumulator() const = 0;

 protected:
  std::string name_;
  DataTypePtr result_type_;
  bool nullable_ = true;
  std::vector<Field> state_fields_;
  bool decomposable_ = true;
};
using AggregateFunctionPtr = std::shared_ptr<const AggregateFunction>;

/// Binds aggregate `name` to argument types. Errors follow Spark (DATATYPE_MISMATCH...,
/// WRONG_NUM_ARGS...). `distinct` wraps the function to see each distinct value once.
Result<AggregateFunctionPtr> MakeAggregate(const std::string& name,
                                           const std::vector<BoundExprPtr>& args,
                                           bool distinct, bool ignore_nulls);

/// The direction of one WITHIN GROUP (ORDER BY ...) key.
struct OrderDirection {
  bool ascending = true;
  bool nulls_first = true;
};
/// An aggregate with WITHIN GROUP (ORDER BY ...) (percentile_cont, percentile_disc,
/// listagg / string_agg): `args` end with one ordering key per `within_group` entry.
/// Errors follow Spark (INVALID_WITHIN_GROUP_EXPRESSION.*).
Result<AggregateFunctionPtr> MakeAggregate(
    const std::string& name, const std::vector<BoundExprPtr>& args, bool distinct,
    bool ignore_nulls, const std::vector<OrderDirection>& within_group);
bool IsAggregateName(const std::string& name);

}  // namespace spate
