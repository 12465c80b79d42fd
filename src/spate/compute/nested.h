// Copyright spate authors.
#pragma once

// Access into nested values: struct fields (s.f), array elements (a[i], 0-based) and map
// values (m[k]); structs with fields set or dropped (update_fields). Thread safety: pure
// builders of immutable expressions.

#include <string>
#include <vector>

#include "spate/compute/bound_expr.h"

namespace spate {

/// s.field: NULL when the struct is NULL. `display` is the field name.
BoundExprPtr MakeGetStructField(const BoundExprPtr& child, int field_index);
/// One operation of Column.withField / dropFields on a struct's fields (Spark's
/// WithField / DropField): with a `value`, every field named `name` becomes that value
/// (named `name`), or it is appended when none is; without one, every field named
/// `name` is dropped (none is a no-op).
struct StructFieldOp {
  std::string name;
  BoundExprPtr value;  // nullptr: drop
};

/// update_fields(base, ops...): the struct `base` with `ops` applied in order, names
/// matched case-insensitively unless `case_sensitive`. NULL where `base` is NULL; kept
/// fields keep their nullability, set ones take their value's. Columnar: the result's
/// children are `base`'s own child columns and the values' columns (no copy, no per-row
/// work). Errors (named by `text`, the call's display name):
/// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE when `base` is not a struct,
/// DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS when no field is left.
Result<BoundExprPtr> MakeUpdateFields(const BoundExprPtr& base,
                                      const std::vector<StructFieldOp>& ops,
                                      bool case_sensitive, const std::string& text);
/// a[i] (0-based; ANSI out of range -> INVALID_ARRAY_INDEX, else NULL) or m[key].
Result<BoundExprPtr> MakeSubscript(const BoundExprPtr& child, BoundExprPtr key);

/// Whether an element read from `array` at `index` may be NULL, as Spark computes it
/// (computeNullabilityFromArray): when `array` is an array(...) call and `index` a
/// constant that names one of its arguments, that argument's nullability; otherwise true.
/// `one_based`: element_at's index (1 is the first, -1 the last), else 0-based.
bool ElementNullable(const BoundExprPtr& array, const BoundExprPtr& index,
                     bool one_based = false);

}  // namespace spate
