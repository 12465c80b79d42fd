// Copyright spate authors.
#pragma once

// Resolving scalar function calls (shared by the scalar function families):
// argument-count and type checks with Spark's error classes, implicit argument casts,
// constant folding, delegation to another registered function, and the null-propagating
// output validity of a call (NullMask). Internal to compute. Thread safety: pure
// functions; NullMask is per-call.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spate/compute/function_registry.h"
#include "spate/compute/kernel_columns.h"

namespace spate::fn {

/// WRONG_NUM_ARGS.WITHOUT_SUGGESTION unless min <= args.size() <= max.
/// `expected` is the text Spark prints ("2", "[1, 2]", "> 1").
Status CheckArgs(const std::string& name, size_t actual, size_t min, size_t max,
                 const std::string& expected);

/// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE for argument `index` (0-based) of `name`.
Status UnexpectedType(const std::string& name, const std::vector<BoundExprPtr>& args,
                      size_t index, const std::string& required);

/// DATATYPE_MISMATCH.NON_FOLDABLE_INPUT: the argument `input` (named `input_name`, of SQL
/// type `input_type`, e.g. "STRING") of the call whose SQL text is `call_sql` must be a
/// constant.
Status NonFoldableInput(const std::string& call_sql, const std::string& input_name,
                        const std::string& input_type, const BoundExpr& input);

/// "first", "second", ... as Spark's ordinalNumber.
std::string Ordinal(size_t index);

/// The SQL text of a call for messages: name(a, b).
std::string CallSql(const std::string& name, const std::vector<BoundExprPtr>& args);

/// Casts a string-compatible argument (string, binary for `allow_binary`, null, atomic
/// types that cast to string) to STRING; errors for nested types.
Result<BoundExprPtr> ToStringArg(const std::string& name,
                                 const std::vector<BoundExprPtr>& args, size_t index);
/// Casts an argument to INT (integral types, null, strings); errors otherwise.
Result<BoundExprPtr> ToIntArg(const std::string& name,
                              const std::vector<BoundExprPtr>& args, size_t index);
/// Casts an argument to a numeric type: integral/decimal/floating unchanged, string/null
/// -> double; errors otherwise.
Result<BoundExprPtr> ToNumericArg(const std::string& name,
                                  const std::vector<BoundExprPtr>& args, size_t index);
/// Casts an argument to `to` if an implicit cast exists, else UNEXPECTED_INPUT_TYPE.
Result<BoundExprPtr> ToTypeArg(const std::string& name,
                               const std::vector<BoundExprPtr>& args, size_t index,
                               const DataTypePtr& to, const std::string& required);

/// The value of a foldable argument (a literal, or IsConstant() evaluated once on one
/// row).
Result<Value> FoldConstant(const BoundExprPtr& e);

/// Spark's ExprUtils.convertToMapData: the options argument of from_json / from_csv /
/// schema_of_* ... must be a constant map<string, string> (INVALID_OPTIONS.*); its
/// entries in order, NULL values left out, NULL map: none.
Result<std::vector<std::pair<std::string, std::string>>> OptionsArg(
    const BoundExprPtr& e);

/// The text of the schema argument of from_json / from_csv: a constant, non-NULL STRING,
/// else INVALID_SCHEMA.NON_STRING_LITERAL.
Result<std::string> SchemaLiteralArg(const BoundExprPtr& e);

/// The text of the constant STRING argument `arg` (named `input_name`) of the call
/// `call_sql` (schema_of_json / schema_of_csv): NON_FOLDABLE_INPUT when it is not
/// constant, UNEXPECTED_NULL when it is NULL.
Result<std::string> ConstantStringArg(const std::string& call_sql,
                                      const std::string& input_name,
                                      const BoundExprPtr& arg);

/// Resolves the registered scalar `name` over `args` and shows the call as
/// `shown(shown_args)` (a function Spark rewrites to another, under its own name).
Result<BoundExprPtr> Delegate(const std::string& shown, const std::string& name,
                              std::vector<BoundExprPtr> args, const ResolveContext& rc,
                              const std::vector<BoundExprPtr>& shown_args);

/// Nullability of a call that is NULL when any argument is NULL.
bool AnyNullable(const std::vector<BoundExprPtr>& args);

/// Output validity that starts as the AND of the inputs and can drop more rows.
class NullMask {
 public:
  NullMask(const std::vector<const Column*>& cols, int64_t n) : n_(n) {
    validity_ = kernel::AndValidity(cols, n, &nulls_);
  }
  bool Valid(int64_t i) const { return kernel::Valid(validity_, i); }
  void SetNull(int64_t i);
  const BufferPtr& validity() const { return validity_; }
  int64_t null_count() const { return nulls_; }

 private:
  int64_t n_;
  int64_t nulls_ = 0;
  BufferPtr validity_;
  bool owned_ = false;
};

}  // namespace spate::fn
