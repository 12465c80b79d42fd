// Copyright spate authors.
#pragma once

// Helpers shared by the scalar function families (math_functions.cc, string_functions.cc,
// regexp_functions.cc, hash_functions.cc, misc_functions.cc): argument-count and type
// checks with Spark's error classes, null-propagating output validity, UTF-8 code point
// utilities. Internal to compute. Thread safety: pure functions; builders are per-call.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/utf8.h"
#include "spate/columnar/builder.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/kernel_util.h"

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
                              std::vector<BoundExprPtr> shown_args);

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

// ---- UTF-8 ----------------------------------------------------------------------------

/// Bytes of the UTF-8 sequence starting with lead byte `c` (1 for invalid bytes).
inline int Utf8Len(unsigned char c) {
  return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}
/// Number of code points in `s`.
int64_t NumChars(std::string_view s);
/// Byte offset of code point `k` (clamped to s.size()).
size_t ByteOffsetOfChar(std::string_view s, int64_t k);
/// Decodes the code point at byte offset `pos`; advances pos.
uint32_t DecodeUtf8(std::string_view s, size_t* pos);
using ::spate::AppendUtf8;

/// Spark's UTF8String.substringSQL(pos, len) on code points (bytes when `bytes`).
std::string_view SubstringSql(std::string_view s, int64_t pos, int64_t len, bool bytes);

/// Value of a hex digit (either case), or -1.
int HexDigitValue(char ch);
/// Value of a base64 digit (A-Z a-z 0-9 + /), or -1.
int Base64DigitValue(char ch);
/// Spark's unhex: pairs of hex digits to bytes, an odd first digit alone; false for a
/// non-hex character.
bool UnhexInto(std::string_view s, std::string* out);

/// A string column from a per-row function `f(i, std::string* out) -> bool` (false =
/// NULL), called only for rows valid in `mask`.
template <typename F>
ColumnPtr MapToString(const DataTypePtr& type, const NullMask& mask, int64_t n, F&& f) {
  StringBuilder sb(type, n, n * 8);
  std::string buf;
  for (int64_t i = 0; i < n; ++i) {
    if (!mask.Valid(i)) {
      sb.AppendNull();
      continue;
    }
    buf.clear();
    if (f(i, &buf)) {
      sb.Append(buf);
    } else {
      sb.AppendNull();
    }
  }
  return sb.Finish();
}

/// Builds an ARRAY<STRING> column from per-row lists (offsets + child).
class StringArrayBuilder {
 public:
  explicit StringArrayBuilder(int64_t n);
  void BeginRow() {}
  void AddItem(std::string_view s) {
    child_.Append(s);
    ++count_;
  }
  void EndRow() {
    offsets_.push_back(static_cast<int32_t>(count_));
    validity_.AppendValid();
  }
  void AppendNull() {
    offsets_.push_back(static_cast<int32_t>(count_));
    validity_.AppendNull();
  }
  ColumnPtr Finish();

 private:
  StringBuilder child_;
  std::vector<int32_t> offsets_;
  int64_t count_ = 0;
  ValidityBuilder validity_;
};

}  // namespace spate::fn
