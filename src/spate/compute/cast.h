// Copyright spate authors.
#pragma once

// CAST between Spark types, with Spark 4 semantics:
//  - kAnsi (spark.sql.ansi.enabled=true, the default): invalid input or overflow raises
//    CAST_INVALID_INPUT / CAST_OVERFLOW (and friends);
//  - kTry (try_cast, and kLegacy where Spark returns NULL): invalid input -> NULL;
//  - kLegacy (ansi off): Spark's non-ANSI rules (overflow wraps for integral narrowing,
//    invalid strings become NULL, ...).
// Thread safety: pure functions.

#include "spate/compute/bound_expr.h"

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

/// One string value parsed as CAST(s AS DATE / TIMESTAMP / TIMESTAMP_NTZ) does (Spark's
/// stringToDate, stringToTimestamp in ctx's session zone,
/// stringToTimestampWithoutTimeZone); false when the text is not valid. For parsers of
/// outside text (JSON, CSV).
/// The one parser of date and timestamp text: CAST, the SQL literals DATE '...' /
/// TIMESTAMP '...' / TIMESTAMP_NTZ '...' (Spark's AstBuilder calls the same functions),
/// and the JSON and CSV readers without a dateFormat / timestampFormat. The readers read
/// TIMESTAMP_NTZ with `allow_zone` false (Spark's parseWithoutTimeZone(s, false)): a zone
/// in the text makes it invalid instead of being ignored.
bool CastStringToDate(std::string_view s, int32_t* days);
bool CastStringToTimestamp(std::string_view s, const EvalContext& ctx, int64_t* micros);
bool CastStringToTimestampNtz(std::string_view s, int64_t* micros,
                              bool allow_zone = true);

/// Exactly "yyyy-MM-dd" (four-digit year, two-digit month and day, nothing around):
/// days since the epoch, as CastStringToDate gives for this text (it is that parser's
/// fast path); false for any other shape or an invalid day. For the "yyyy-MM-dd"
/// pattern's common case (CSV date inference, partition values).
bool ParseIsoDate(std::string_view s, int32_t* days);

}  // namespace spate
