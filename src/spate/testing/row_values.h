// Copyright spate authors.
#pragma once

// Short names for the values of test rows: {I(1), L(2), S("a"), D(0.5)}.

#include <cstdint>
#include <string>

#include "spate/types/value.h"

namespace spate::testing {

inline Value I(int32_t v) { return Value::Int(v); }
inline Value L(int64_t v) { return Value::Long(v); }
inline Value S(const std::string& v) { return Value::String(v); }
inline Value D(double v) { return Value::Double(v); }

}  // namespace spate::testing
