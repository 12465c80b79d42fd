// Copyright spate authors.
#include "spate/sql/named_arguments.h"

#include <optional>

#include "spate/types/data_type.h"

namespace spate::sql {

namespace {

struct Parameter {
  const char* name;
  std::optional<Value> default_value;  // nullopt: required
};

struct Signature {
  const char* function;
  std::vector<Parameter> params;
};

// The built-ins whose Spark 4.2 builders declare a FunctionSignature (found by calling
// each of SHOW FUNCTIONS with a named argument), with their parameter names and defaults.
const std::vector<Signature>& Signatures() {
  static const auto* table = new std::vector<Signature>{
      {"explode", {{"collection", std::nullopt}}},
      {"explode_outer", {{"collection", std::nullopt}}},
      {"posexplode", {{"collection", std::nullopt}}},
      {"posexplode_outer", {{"collection", std::nullopt}}},
      {"inline", {{"input", std::nullopt}}},
      {"inline_outer", {{"input", std::nullopt}}},
      {"mask",
       {{"str", std::nullopt},
        {"upperChar", Value::String("X")},
        {"lowerChar", Value::String("x")},
        {"digitChar", Value::String("n")},
        {"otherChar", Value::Null(DataType::String())}}},
      {"count_min_sketch",
       {{"column", std::nullopt},
        {"epsilon", std::nullopt},
        {"confidence", std::nullopt},
        {"seed", std::nullopt}}},
  };
  return *table;
}

const Signature* Find(const std::string& function) {
  for (const auto& s : Signatures()) {
    if (EqualsIgnoreCase(s.function, function)) return &s;
  }
  return nullptr;
}

std::string Quote(const std::string& name) { return "`" + name + "`"; }

}  // namespace

bool HasFunctionSignature(const std::string& function) {
  return Find(function) != nullptr;
}

Result<std::vector<ExprPtr>> ResolveCallArguments(const std::string& function,
                                                  std::vector<CallArgument> args) {
  const Signature* sig = Find(function);
  bool named = false;
  for (const auto& a : args) named |= !a.name.empty();
  std::vector<ExprPtr> out;
  if (sig == nullptr) {
    for (auto& a : args) {
      if (!a.name.empty()) {
        return Status::Error("NAMED_PARAMETERS_NOT_SUPPORTED",
                             {{"functionName", Quote(function)}})
            .WithPosition(a.position);
      }
      out.push_back(std::move(a.value));
    }
    return out;
  }
  const std::string routine = Quote(sig->function);
  const size_t n = sig->params.size();
  std::vector<ExprPtr> slots(n);
  size_t positional = 0;
  std::string first_named;
  for (auto& a : args) {
    if (a.name.empty()) {
      if (!first_named.empty()) {
        return Status::Error(
                   "UNEXPECTED_POSITIONAL_ARGUMENT",
                   {{"routineName", routine}, {"parameterName", Quote(first_named)}})
            .WithPosition(a.position);
      }
      if (positional >= n) {
        // More arguments than the signature has: the function's own arity check speaks.
        // The first n were all positional and already moved into the slots.
        out.clear();
        for (auto& slot : slots) out.push_back(std::move(slot));
        for (size_t k = n; k < args.size(); ++k) out.push_back(std::move(args[k].value));
        return out;
      }
      slots[positional++] = std::move(a.value);
      continue;
    }
    size_t index = n;
    for (size_t i = 0; i < n; ++i) {
      if (EqualsIgnoreCase(sig->params[i].name, a.name)) index = i;
    }
    if (index == n) {
      std::string proposal;
      for (size_t i = 0; i < n && i < 3; ++i) {
        proposal += (i ? " " : "") + Quote(sig->params[i].name);
      }
      return Status::Error("UNRECOGNIZED_PARAMETER_NAME",
                           {{"routineName", routine},
                            {"argumentName", Quote(a.name)},
                            {"proposal", proposal}})
          .WithPosition(a.position);
    }
    if (slots[index]) {
      return Status::Error(
                 index < positional
                     ? "DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.BOTH_POSITIONAL_AND_NAMED"
                     : "DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_"
                       "REFERENCE",
                 {{"routineName", routine},
                  {"parameterName", Quote(sig->params[index].name)}})
          .WithPosition(a.position);
    }
    if (first_named.empty()) first_named = sig->params[index].name;
    slots[index] = std::move(a.value);
  }
  // Omitted parameters: required ones fail (only when a name was used: a positional call
  // with too few arguments gets the function's own arity error), optional ones take their
  // defaults.
  size_t last = 0;
  for (size_t i = 0; i < n; ++i) {
    if (slots[i]) last = i + 1;
  }
  for (size_t i = 0; i < n; ++i) {
    if (slots[i]) continue;
    const Parameter& p = sig->params[i];
    if (p.default_value) {
      slots[i] = Expr::Lit(*p.default_value);
    } else if (named) {
      return Status::Error("REQUIRED_PARAMETER_NOT_FOUND",
                           {{"routineName", routine},
                            {"parameterName", Quote(p.name)},
                            {"index", std::to_string(i)}});
    } else if (i >= last) {
      break;
    }
  }
  for (auto& s : slots) {
    if (!s) break;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace spate::sql
