// Copyright spate authors.
#pragma once

// Resolving scalar function calls (shared by the scalar function families):
// argument-count and type checks with Spark's error classes, implicit argument casts,
// constant folding, delegation to another registered function, and the null-propagating
// output validity of a call (NullMask). Internal to compute. Thread safety: pure
// functions; NullMask is per-call.

#include <cstdint>
#include <string>
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
