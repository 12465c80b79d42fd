// Copyright spate authors.
#pragma once

// Spark's implicit type coercion (ANSI rules, Spark 4 default): the common type of the
// operands of an operator, and the implicit casts that get them there.
// Thread safety: pure functions.

#include <vector>

#include "spate/compute/bound_expr.h"

namespace spate {

/// Decimal type that holds every value of an integral type: byte -> decimal(3,0),
/// short -> (5,0), int -> (10,0), long -> (20,0); decimals are returned unchanged.
DataTypePtr DecimalForIntegral(const DataType& t);
/// A non-null integral literal beside a decimal is DECIMAL(its digits, 0) (Spark's
/// DecimalPrecision with spark.sql.legacy.literal.pickMinimumPrecision, the default);
/// nullptr for any other expression. Spark's cast to that type is nullable when it is
/// narrower than DecimalForIntegral of the literal's type (Cast.forceNullable).
DataTypePtr IntegralLiteralDecimal(const BoundExprPtr& e);
/// Spark's bounded decimal: precision capped at 38 losing scale down to 6
/// (DecimalType.adjustPrecisionScale with allowPrecisionLoss=true).
DataTypePtr AdjustedDecimal(int precision, int scale);
/// Wider of two decimals (max integral digits + max scale, capped at 38).
DataTypePtr WiderDecimal(const DataType& a, const DataType& b);

/// The tightest common type of two types for comparisons, arithmetic, IN, CASE, COALESCE,
/// UNION (Spark's findWiderTypeForTwo under ANSI, with string promotion for comparisons
/// and arithmetic). nullptr if there is none.
DataTypePtr CommonType(const DataTypePtr& a, const DataTypePtr& b);
DataTypePtr CommonType(const std::vector<DataTypePtr>& types);

/// Casts `e` to `to` if its type differs (no-op otherwise).
Result<BoundExprPtr> ImplicitCast(BoundExprPtr e, const DataTypePtr& to);

/// Casts every expression to their common type; DATATYPE_MISMATCH.DATA_DIFF_TYPES when
/// none.
Result<std::vector<BoundExprPtr>> CoerceToCommon(std::vector<BoundExprPtr> exprs,
                                                 const std::string& function_name);

/// Quotes a type as Spark does in error messages: "INT" with double quotes.
std::string QuoteType(const DataType& t);

}  // namespace spate
