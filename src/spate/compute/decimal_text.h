// Copyright spate authors.
#pragma once

// Decimal text as java.math.BigDecimal reads it: the one parser of decimal number text
// behind CAST(string AS DECIMAL), the SQL numeric literals (1.5, 1e3BD) and JSON schema
// inference's decimal types. Thread safety: pure functions and a value type.

#include <cstdint>
#include <string>
#include <string_view>

#include "spate/compute/decimal_math.h"
#include "spate/types/format.h"

namespace spate {

/// An exact decimal number: (-1)^negative * digits * 10^exponent, digits without leading
/// zeros ("0" for zero). The form java.math.BigDecimal holds. A value type (no shared
/// state); ToUnscaled reports a value too wide for the precision by returning false.
struct DecimalText {
  bool negative = false;
  std::string digits = "0";
  int64_t exponent = 0;

  // precision - scale of the BigDecimal (digits left of the point).
  int64_t IntegralDigits() const {
    return static_cast<int64_t>(digits.size()) + exponent;
  }
  bool IsZero() const { return digits == "0"; }

  // BigDecimal.toPlainString after Spark's Decimal.set (negative scales become 0).
  std::string Plain() const {
    std::string out = negative && !IsZero() ? "-" : "";
    if (exponent >= 0) {
      out += digits;
      if (!IsZero()) out.append(static_cast<size_t>(exponent), '0');
      return out;
    }
    size_t scale = static_cast<size_t>(-exponent);
    std::string d = digits;
    if (d.size() <= scale) d.insert(0, scale - d.size() + 1, '0');
    out += d.substr(0, d.size() - scale);
    out += '.';
    out += d.substr(d.size() - scale);
    return out;
  }

  // Rounds half-up to `scale` fraction digits; false if the result needs more than
  // `precision` digits.
  bool ToUnscaled(int precision, int scale, int128_t* out) const {
    if (IsZero()) {
      *out = 0;
      return true;
    }
    int64_t shift = exponent + scale;  // digits * 10^shift is the unscaled value
    int64_t len = static_cast<int64_t>(digits.size());
    int128_t v = 0;
    if (shift >= 0) {
      if (len + shift > precision) return false;
      for (char c : digits) v = v * 10 + (c - '0');
      v *= kernel::Pow10(static_cast<int>(shift));
    } else {
      int64_t kept = len + shift;
      if (kept > precision) return false;
      for (int64_t k = 0; k < kept; ++k) v = v * 10 + (digits[k] - '0');
      if (kept >= 0 && digits[kept] >= '5') v += 1;
      if (!kernel::FitsPrecision(v, precision)) return false;
    }
    *out = negative ? -v : v;
    return true;
  }
};

/// new java.math.BigDecimal(s): [+-] digits [. digits] [eE [+-] digits], at least one
/// digit, nothing around (callers trim); false otherwise, or when the exponent does not
/// fit Java's int.
bool ParseBigDecimal(std::string_view s, DecimalText* out);

}  // namespace spate
