// Copyright spate authors.
#pragma once

// The registry of built-in functions, by lowercase name. Scalar functions are resolvers:
// given bound, typed arguments they check and coerce types and return the bound call.
// Aggregate and window functions are described separately (aggregate.h, window.h);
// the registry only records which names they are.
//
// Thread safety: registration happens once at static-init time (RegisterBuiltins);
// lookups are read-only afterwards and safe from any thread.

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "spate/compute/bound_expr.h"

namespace spate {

/// Context a resolver needs beyond its arguments.
struct ResolveContext {
  bool ansi = true;
  /// The function name as the user wrote it (for messages).
  std::string call_text;
  /// The session's current schema (USE), for current_database()/current_schema().
  std::string current_schema = "default";
};

using ScalarResolver = std::function<Result<BoundExprPtr>(std::vector<BoundExprPtr> args,
                                                          const ResolveContext&)>;

enum class FunctionKind : uint8_t { kScalar, kAggregate, kWindow };

class FunctionRegistry {
 public:
  static FunctionRegistry& Global();

  void RegisterScalar(std::string name, ScalarResolver resolver);
  void RegisterKind(std::string name, FunctionKind kind);

  const ScalarResolver* FindScalar(std::string_view name) const;
  /// kScalar for unknown names too; use Exists() to tell.
  FunctionKind KindOf(std::string_view name) const;
  bool Exists(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  FunctionRegistry();
  std::unordered_map<std::string, ScalarResolver> scalars_;
  std::unordered_map<std::string, FunctionKind> kinds_;
};

// Registration hooks, one per function family (each in its own .cc file).
void RegisterArithmeticFunctions(FunctionRegistry& r);
void RegisterPredicateFunctions(FunctionRegistry& r);
void RegisterAggregateFunctionNames(FunctionRegistry& r);
void RegisterCollectionFunctions(FunctionRegistry& r);  // collections.cc, generators.cc
void RegisterDatetimeFunctions(FunctionRegistry& r);    // datetime_functions.cc
void RegisterMathFunctions(FunctionRegistry& r);        // math_functions.cc
void RegisterStringFunctions(FunctionRegistry& r);      // string_functions.cc
void RegisterRegexpFunctions(FunctionRegistry& r);      // regexp_functions.cc
void RegisterHashFunctions(FunctionRegistry& r);        // hash_functions.cc
void RegisterMiscFunctions(FunctionRegistry& r);        // misc_functions.cc
void RegisterTimeWindowFunctions(FunctionRegistry& r);  // time_window.cc
void RegisterTryFunctions(FunctionRegistry& r);  // try_functions.cc: try_*, cast aliases
void RegisterRandomFunctions(
    FunctionRegistry& r);  // random_functions.cc: rand, shuffle, ...
void RegisterCharsetFunctions(
    FunctionRegistry& r);  // charset_functions.cc: encode, decode, *_utf8
void RegisterArrayFunctions(FunctionRegistry& r);  // array_functions.cc
void RegisterMapFunctions(FunctionRegistry& r);    // map_functions.cc
void RegisterNumberFormatFunctions(
    FunctionRegistry& r);  // number_format.cc: to_number, to_char, to_binary
void RegisterTextFunctions(
    FunctionRegistry& r);  // text_functions.cc: parse_url, mask, sentences
void RegisterAesFunctions(
    FunctionRegistry& r);  // aes_functions.cc: aes_encrypt, aes_decrypt
void RegisterVectorFunctions(
    FunctionRegistry& r);  // vector_functions.cc: vector_norm, vector_inner_product, ...
void RegisterXPathFunctions(
    FunctionRegistry& r);  // xpath_functions.cc: xpath, xpath_string, xpath_int, ...

}  // namespace spate
