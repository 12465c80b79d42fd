// Copyright spate authors.
#pragma once

// Access into nested values: struct fields (s.f), array elements (a[i], 0-based) and map
// values (m[k]). Thread safety: pure builders of immutable expressions.

#include "spate/compute/bound_expr.h"

namespace spate {

/// s.field: NULL when the struct is NULL. `display` is the field name.
BoundExprPtr MakeGetStructField(const BoundExprPtr& child, int field_index);
/// a[i] (0-based; ANSI out of range -> INVALID_ARRAY_INDEX, else NULL) or m[key].
Result<BoundExprPtr> MakeSubscript(const BoundExprPtr& child, BoundExprPtr key);

/// Whether an element read from `array` at `index` may be NULL, as Spark computes it
/// (computeNullabilityFromArray): when `array` is an array(...) call and `index` a
/// constant that names one of its arguments, that argument's nullability; otherwise true.
/// `one_based`: element_at's index (1 is the first, -1 the last), else 0-based.
bool ElementNullable(const BoundExprPtr& array, const BoundExprPtr& index,
                     bool one_based = false);

}  // namespace spate
