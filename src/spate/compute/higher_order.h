// Copyright spate authors.
#pragma once

// Higher-order functions with Spark 4 semantics: transform, filter, exists, forall,
// aggregate / reduce, zip_with, array_sort with a comparator, map_filter, transform_keys,
// transform_values, map_zip_with.
//
// How they evaluate (columnar, no per-row virtual calls): a lambda body is a bound
// expression evaluated once per batch over the *flattened elements* of the batch's arrays
// (or maps). The higher-order call builds that element batch from its own input batch:
// the input columns the body reads are gathered per element (Take by the element's row),
// the columns it does not read are buffer-free NULL-typed columns, and the lambda
// variables are appended at the end. A lambda variable is therefore bound as a reference
// counted from the end of the batch (MakeLambdaVariable), which stays right for nested
// lambdas and in any operator whose batch width is only known at run time (aggregates,
// windows). aggregate folds element k of every array in step k over the rows still
// active; array_sort merges runs of every row at once, one comparator batch per round.
//
// The analyzer binds the non-lambda arguments first, asks HigherOrderLambdaParams for the
// variables each lambda gets, binds the lambda bodies with them in scope, then calls
// MakeHigherOrderCall, which checks types (Spark's DATATYPE_MISMATCH.* classes) and
// returns the bound call.
//
// Thread safety: bound calls are immutable; Evaluate may run concurrently on different
// batches. Failure: errors of the lambda body (ANSI arithmetic, casts) fail the batch;
// NULL_MAP_KEY / DUPLICATED_MAP_KEY for transform_keys; a comparator returning NULL
// fails.

#include <string>
#include <string_view>
#include <vector>

#include "spate/compute/bound_expr.h"

namespace spate {

/// True for the names above (and reduce, the alias of aggregate).
bool IsHigherOrderFunction(std::string_view name);

/// One variable a higher-order function passes to its lambda.
struct LambdaParam {
  DataTypePtr type;
  bool nullable = true;
};

/// A lambda bound for a higher-order call: its body and its variables (names as written).
struct BoundLambda {
  std::vector<std::string> names;
  std::vector<LambdaParam> params;
  BoundExprPtr body;
  std::string display;  // Spark's text of the lambda, for error messages
};

/// The variables higher-order function `name` gives its `lambda_index`-th lambda, given
/// the bound non-lambda arguments and the number of variables the lambda declares
/// (transform and filter give (element, index) to a two-variable lambda, the element
/// otherwise). `declared_params` 0: the argument is not a lambda (hidden variables, any
/// count). Errors: the argument types Spark refuses
/// (DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE),
/// INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH.
Result<std::vector<LambdaParam>> HigherOrderLambdaParams(
    const std::string& name, const std::vector<BoundExprPtr>& args, size_t lambda_index,
    size_t declared_params, const std::string& sql_text);

/// Number of lambdas `name` takes given its number of non-lambda arguments (aggregate: 1
/// or 2 -- the finish lambda is optional -- others 1).
struct LambdaArity {
  size_t min_lambdas = 1;
  size_t max_lambdas = 1;
  size_t value_args = 1;  // non-lambda arguments before the lambdas
};
LambdaArity HigherOrderArity(std::string_view name);

/// Variables `name` gives its `lambda_index`-th function argument when that argument is
/// not a lambda (Spark wraps an expression into a lambda of hidden variables:
/// transform(a, 1) is transform(a, lambdafunction(1, namedlambdavariable()))).
size_t HigherOrderDefaultParams(std::string_view name, size_t lambda_index);

/// Coerces the value arguments as Spark does before the lambdas are bound (map_zip_with:
/// both maps to a common key type, or DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES).
Status CoerceHigherOrderArgs(const std::string& name, std::vector<BoundExprPtr>* args,
                             const std::string& sql_text);

/// A reference to lambda variable `slot` of a lambda whose variables end `from_end`
/// columns before the end of the evaluated batch (see the header comment).
BoundExprPtr MakeLambdaVariable(int from_end, DataTypePtr type, bool nullable,
                                std::string name);

/// The name of a lambda variable reference (struct fields built from it are named so, as
/// Spark names them); nullptr for other expressions.
const std::string* LambdaVariableName(const BoundExpr& e);

/// The bound call. `sql_text` is the call's display text for error messages.
Result<BoundExprPtr> MakeHigherOrderCall(const std::string& name,
                                         std::vector<BoundExprPtr> args,
                                         std::vector<BoundLambda> lambdas,
                                         const std::string& sql_text);

}  // namespace spate
