// Copyright spate authors.
#pragma once

// CAST between Spark types, with Spark 4 semantics:
//  - kAnsi (spark.sql.ansi.enabled=true, the default): invalid input or overflow raises
//    CAST_INVALID_INPUT / CAST_OVERFLOW (and friends);
//  - kTry (try_cast, and kLegacy where Spark returns NULL): invalid input -> NULL;
//  - kLegacy (ansi off): Spark's non-ANSI rules (overflow wraps for integral narrowing,
//    invalid strings become NULL, ...).
// Date and timestamp text as CAST reads it (CastStringToDate & co., which the SQL
// literals and the readers call too) and Spark's special values are in datetime_text.h.
// Thread safety: pure functions.

#include "spate/compute/bound_expr.h"
#include "spate/compute/datetime_text.h"

namespace spate {

enum class CastMode : uint8_t { kAnsi, kTry, kLegacy };

/// True if Spark allows CAST(from AS to) at all (Cast.canCast / canAnsiCast).
bool CanCast(const DataType& from, const DataType& to, CastMode mode);

/// OK if CanCast(from, to, mode); otherwise Spark's
/// DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION / CAST_WITH_CONF_SUGGESTION /
/// CAST_WITH_FUNC_SUGGESTION for the expression `sql_expr` (e.g. "CAST(a AS DATE)",
/// quoted in the message as Spark's toSQLExpr does).
Status CheckCast(const DataType& from, const DataType& to, CastMode mode,
                 std::string_view sql_expr);

/// Casts every value of `input` to `to`.
Result<ColumnPtr> CastColumn(const ColumnPtr& input, const DataTypePtr& to, CastMode mode,
                             const EvalContext& ctx);

/// Builds a CAST node; `explicit_cast` selects EXPLAIN text "cast(x as int)" vs implicit.
/// Fails with DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION (or Spark's class) when the cast
/// is not allowed. The mode kAnsi/kLegacy is chosen at evaluation time from
/// EvalContext::ansi unless `is_try`.
Result<BoundExprPtr> MakeCast(BoundExprPtr child, DataTypePtr to, bool is_try = false);
/// An explicit CAST checked at analysis time with the session's rules (`ansi` =
/// spark.sql.ansi.enabled), so forbidden casts fail with Spark's DATATYPE_MISMATCH.CAST_*
/// error (and its suggestion) before anything runs.
Result<BoundExprPtr> MakeExplicitCast(BoundExprPtr child, DataTypePtr to, bool is_try,
                                      bool ansi);

/// Casts a single value (constant folding, literals in DDL defaults, tests).
Result<Value> CastValue(const Value& v, const DataTypePtr& to, CastMode mode,
                        const EvalContext& ctx);

}  // namespace spate
