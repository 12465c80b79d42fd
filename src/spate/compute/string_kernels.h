// Copyright spate authors.
#pragma once

// String kernels of the scalar function families: UTF-8 code point operations (lengths,
// offsets, decoding, Spark's substring), hex and base64 digits, and builders of STRING
// and ARRAY<STRING> result columns. Internal to compute. Thread safety: pure functions;
// builders are per-call.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/utf8.h"
#include "spate/columnar/builder.h"
#include "spate/compute/function_args.h"

namespace spate::fn {

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

/// Resolves a STRING -> STRING function of one argument (cast to STRING): `f(in, &out)`
/// per valid row; NULL in, NULL out. Nullable when the argument is, or `always_nullable`.
template <typename F>
Result<BoundExprPtr> ResolveStringUnary(const std::string& name,
                                        std::vector<BoundExprPtr> args, F f,
                                        bool always_nullable = false) {
  SPATE_RETURN_IF_ERROR(CheckArgs(name, args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], ToStringArg(name, args, 0));
  return MakeScalarCall(
      name, DataType::String(), always_nullable || args[0]->nullable(), args,
      [f](const std::vector<ColumnPtr>& c, int64_t n,
          const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get()}, n);
        return MapToString(DataType::String(), mask, n, [&](int64_t i, std::string* out) {
          f(c[0]->GetView(i), out);
          return true;
        });
      });
}

/// Builds an ARRAY<STRING> column from per-row lists (offsets + child); its elements may
/// be NULL (AddNullItem) when `contains_null`.
class StringArrayBuilder {
 public:
  explicit StringArrayBuilder(int64_t n, bool contains_null = false);
  void BeginRow() {}
  void AddItem(std::string_view s) {
    child_.Append(s);
    ++count_;
  }
  void AddNullItem() {
    child_.AppendNull();
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
  bool contains_null_;
  StringBuilder child_;
  std::vector<int32_t> offsets_;
  int64_t count_ = 0;
  ValidityBuilder validity_;
};

}  // namespace spate::fn
