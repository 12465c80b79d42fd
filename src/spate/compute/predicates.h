// Copyright spate authors.
#pragma once

// Comparison helpers and conditional-expression builders shared by the analyzer and
// operators (sort, join, aggregate). Thread safety: pure functions.

#include <vector>

#include "spate/compute/bound_expr.h"

namespace spate {

/// Three-way comparison of a[i] and b[j] (same type, both non-null), with Spark's
/// ordering: NaN largest and equal to itself, strings by UTF-8 bytes, structs and arrays
/// element-wise (nulls first).
int CompareValuesAt(const Column& a, int64_t i, const Column& b, int64_t j);
/// False for maps and types containing maps (Spark cannot order or compare them).
bool IsOrderable(const DataType& t);

/// CASE WHEN: branches = [cond1, val1, cond2, val2, ...]; else_value may be null.
Result<BoundExprPtr> MakeCaseWhen(std::vector<BoundExprPtr> branches,
                                  const BoundExprPtr& else_value);
/// value IN (list) with SQL three-valued logic.
Result<BoundExprPtr> MakeInList(BoundExprPtr value, std::vector<BoundExprPtr> list);
/// value IN (the rows of `set`, e.g. an IN subquery's result): a hash lookup per row with
/// the IN list's three-valued logic (NULL when not found and the set holds a NULL).
/// `display` is the text of the right side for EXPLAIN ("listquery()").
Result<BoundExprPtr> MakeInSet(BoundExprPtr value, ColumnPtr set, std::string display);

}  // namespace spate
