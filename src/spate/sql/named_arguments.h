// Copyright spate authors.
#pragma once

// Named arguments of built-in functions (`explode(collection => a)`, `mask(str => s,
// digitChar => 'D')`): Spark's function signatures for the built-ins that declare one,
// and their resolution into positional arguments with the declared defaults filled in, as
// Spark does before it names the call (`mask(AbC, X, x, D, NULL)`).
//
// Thread safety: pure functions over a static table. Failure: Spark's classes
// (NAMED_PARAMETERS_NOT_SUPPORTED, UNRECOGNIZED_PARAMETER_NAME,
// UNEXPECTED_POSITIONAL_ARGUMENT, DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.*,
// REQUIRED_PARAMETER_NOT_FOUND).

#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/compute/expr.h"

namespace spate::sql {

/// One argument as written: `name` empty for a positional one.
struct CallArgument {
  std::string name;
  ExprPtr value;
  int64_t position = -1;
};

/// True when `function` declares a signature (its calls may name arguments and get its
/// defaults).
bool HasFunctionSignature(const std::string& function);

/// The positional arguments of a call of `function`, named ones placed by the signature
/// and omitted optional ones filled with their defaults. Calls without a signature keep
/// their positional arguments and refuse named ones. (Spark 4.2 also takes a named
/// argument in a cast function, `bigint(x => 1)`, then fails at run time with
/// INTERNAL_ERROR: refused.)
Result<std::vector<ExprPtr>> ResolveCallArguments(const std::string& function,
                                                  std::vector<CallArgument> args);

}  // namespace spate::sql
