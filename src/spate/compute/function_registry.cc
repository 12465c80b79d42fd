// Copyright spate authors.
#include "spate/compute/function_registry.h"

#include <algorithm>

namespace spate {

FunctionRegistry::FunctionRegistry() {
  RegisterArithmeticFunctions(*this);
  RegisterPredicateFunctions(*this);
  RegisterAggregateFunctionNames(*this);
  RegisterCollectionFunctions(*this);
  RegisterDatetimeFunctions(*this);
  RegisterMathFunctions(*this);
  RegisterStringFunctions(*this);
  RegisterRegexpFunctions(*this);
  RegisterHashFunctions(*this);
  RegisterMiscFunctions(*this);
  RegisterTimeWindowFunctions(*this);
  RegisterTryFunctions(*this);
  RegisterRandomFunctions(*this);
  RegisterCharsetFunctions(*this);
  RegisterArrayFunctions(*this);
  RegisterMapFunctions(*this);
  RegisterNumberFormatFunctions(*this);
  RegisterTextFunctions(*this);
  RegisterAesFunctions(*this);
  RegisterVectorFunctions(*this);
  RegisterXPathFunctions(*this);
}

FunctionRegistry& FunctionRegistry::Global() {
  static FunctionRegistry* registry = new FunctionRegistry();
  return *registry;
}

void FunctionRegistry::RegisterScalar(std::string name, ScalarResolver resolver) {
  kinds_[name] = FunctionKind::kScalar;
  scalars_[std::move(name)] = std::move(resolver);
}

void FunctionRegistry::RegisterKind(std::string name, FunctionKind kind) {
  kinds_[std::move(name)] = kind;
}

const ScalarResolver* FunctionRegistry::FindScalar(std::string_view name) const {
  auto it = scalars_.find(std::string(name));
  return it == scalars_.end() ? nullptr : &it->second;
}

FunctionKind FunctionRegistry::KindOf(std::string_view name) const {
  auto it = kinds_.find(std::string(name));
  return it == kinds_.end() ? FunctionKind::kScalar : it->second;
}

bool FunctionRegistry::Exists(std::string_view name) const {
  return kinds_.count(std::string(name)) > 0;
}

std::vector<std::string> FunctionRegistry::Names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : kinds_) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace spate
