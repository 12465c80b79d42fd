// Copyright spate authors.
// Functions of Spark's SHOW FUNCTIONS that the other families lacked: bit functions
// (shiftleft shiftright shiftrightunsigned bit_count bit_get getbit bin), factorial,
// width_bucket, strings (levenshtein soundex space elt find_in_set substring_index
// octet_length bit_length quote luhn_check url_encode url_decode try_url_decode encode
// and both forms of decode), null helpers (equal_null zeroifnull nullifzero), date names
// (monthname dayname date_diff), errors (raise_error assert_true), and session facts
// (current_user user session_user version).

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "spate/columnar/builder.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_util.h"
#include "spate/compute/predicates.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;
using kernel::Out;

using fn::Delegate;

// ---- bits
// ------------------------------------------------------------------------------

enum class Shift : uint8_t { kLeft, kRight, kRightUnsigned };

Result<BoundExprPtr> ResolveShift(const std::string& name, Shift kind, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  TypeId t = args[0]->type()->id();
  DataTypePtr type = t == TypeId::kLong ? DataType::Long() : DataType::Int();
  // Other numbers and strings are cast to INT, as Spark's implicit cast to the first
  // type.
  if (!(args[0]->type()->IsNumeric() || t == TypeId::kNull || t == TypeId::kString)) {
    return fn::UnexpectedType(name, args, 0, "(\"INT\" or \"BIGINT\")");
  }
  SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], type));
  if (!(args[1]->type()->IsIntegral() || args[1]->type()->id() == TypeId::kNull) ||
      args[1]->type()->id() == TypeId::kLong) {
    return fn::UnexpectedType(name, args, 1, "\"INT\"");
  }
  SPATE_ASSIGN_OR_RETURN(args[1], ImplicitCast(args[1], DataType::Int()));
  return MakeScalarCall(
      name, type, fn::AnyNullable(args), args,
      [type, kind](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        const int32_t* s = c[1]->raw_values<int32_t>();
        auto run = [&]<typename T, typename U>() {
          Out<T> out(n);
          const T* x = c[0]->raw_values<T>();
          constexpr int bits = sizeof(T) * 8;
          for (int64_t i = 0; i < n; ++i) {
            int k = s[i] & (bits - 1);  // Java masks the shift count
            switch (kind) {
              case Shift::kLeft:
                out.data[i] = static_cast<T>(static_cast<U>(x[i]) << k);
                break;
              case Shift::kRight:
                out.data[i] = static_cast<T>(x[i] >> k);
                break;
              default:
                out.data[i] = static_cast<T>(static_cast<U>(x[i]) >> k);
                break;
            }
          }
          return kernel::MakeColumn(type, n, mask.null_count(), mask.validity(), out.buf);
        };
        if (type->id() == TypeId::kLong)
          return run.template operator()<int64_t, uint64_t>();
        return run.template operator()<int32_t, uint32_t>();
      },
      [name](const std::vector<std::string>& a) { return CallText(name, a); });
}

// The value of an integral (or boolean) column as a sign-extended 64-bit word.
int64_t IntegralAt(const Column& c, int64_t i) {
  switch (c.type_id()) {
    case TypeId::kByte:
      return c.raw_values<int8_t>()[i];
    case TypeId::kShort:
      return c.raw_values<int16_t>()[i];
    case TypeId::kInt:
      return c.raw_values<int32_t>()[i];
    case TypeId::kLong:
      return c.raw_values<int64_t>()[i];
    default:
      return c.IsValid(i) && bits::Get(c.raw_values<uint8_t>(), i) ? 1 : 0;
  }
}

int BitWidth(TypeId t) {
  return t == TypeId::kByte ? 8 : t == TypeId::kShort ? 16 : t == TypeId::kInt ? 32 : 64;
}

Result<BoundExprPtr> ResolveBitCount(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("bit_count", args.size(), 1, 1, "1"));
  const DataType& t = *args[0]->type();
  if (!(t.IsIntegral() || t.id() == TypeId::kBoolean || t.id() == TypeId::kNull)) {
    return fn::UnexpectedType("bit_count", args, 0, "(\"INTEGRAL\" or \"BOOLEAN\")");
  }
  if (t.id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Int()));
  }
  return MakeScalarCall(
      "bit_count", DataType::Int(), args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        Out<int32_t> out(n);
        for (int64_t i = 0; i < n; ++i)
          out.data[i] = std::popcount(static_cast<uint64_t>(IntegralAt(*c[0], i)));
        return kernel::MakeColumn(DataType::Int(), n, c[0]->null_count(),
                                  c[0]->validity(), out.buf);
      });
}

Result<BoundExprPtr> ResolveBitGet(const std::string& name, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  const DataType& t = *args[0]->type();
  if (!(t.IsIntegral() || t.id() == TypeId::kNull)) {
    return fn::UnexpectedType(name, args, 0, "\"INTEGRAL\"");
  }
  if (t.id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Int()));
  }
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg(name, args, 1));
  int width = BitWidth(args[0]->type()->id());
  return MakeScalarCall(
      name, DataType::Byte(), fn::AnyNullable(args), args,
      [width](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        Out<int8_t> out(n);
        const int32_t* pos = c[1]->raw_values<int32_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          if (pos[i] < 0 || pos[i] >= width) {
            return Status::Error("INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE",
                                 {{"parameter", "`pos`"},
                                  {"functionName", "`bit_get`"},
                                  {"upper", std::to_string(width)},
                                  {"invalidValue", std::to_string(pos[i])}});
          }
          out.data[i] = static_cast<int8_t>(
              (static_cast<uint64_t>(IntegralAt(*c[0], i)) >> pos[i]) & 1);
        }
        return kernel::MakeColumn(DataType::Byte(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

Result<BoundExprPtr> ResolveBin(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("bin", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0],
                         fn::ToTypeArg("bin", args, 0, DataType::Long(), "\"BIGINT\""));
  return MakeScalarCall(
      "bin", DataType::String(), args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        const int64_t* x = c[0]->raw_values<int64_t>();
        return fn::MapToString(DataType::String(), mask, n,
                               [&](int64_t i, std::string* out) {
                                 auto u = static_cast<uint64_t>(x[i]);
                                 if (u == 0) out->push_back('0');
                                 for (int b = 63 - (u == 0 ? 63 : std::countl_zero(u));
                                      u != 0 && b >= 0; --b) {
                                   out->push_back(((u >> b) & 1) ? '1' : '0');
                                 }
                                 return true;
                               });
      });
}

Result<BoundExprPtr> ResolveFactorial(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("factorial", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToIntArg("factorial", args, 0));
  return MakeScalarCall(
      "factorial", DataType::Long(), true, args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        Out<int64_t> out(n);
        const int32_t* x = c[0]->raw_values<int32_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          if (x[i] < 0 || x[i] > 20) {
            mask.SetNull(i);
            continue;
          }
          int64_t f = 1;
          for (int k = 2; k <= x[i]; ++k) f *= k;
          out.data[i] = f;
        }
        return kernel::MakeColumn(DataType::Long(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

// width_bucket(value, min, max, n): the 1-based bucket of value among n equal buckets of
// [min, max) (descending when min > max); 0 below, n + 1 above; NULL for n <= 0, equal or
// non-finite bounds.
Result<BoundExprPtr> ResolveWidthBucket(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("width_bucket", args.size(), 4, 4, "4"));
  for (size_t k = 0; k < 3; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToTypeArg("width_bucket", args, k,
                                                  DataType::Double(), "\"DOUBLE\""));
  }
  SPATE_ASSIGN_OR_RETURN(
      args[3], fn::ToTypeArg("width_bucket", args, 3, DataType::Long(), "\"BIGINT\""));
  return MakeScalarCall(
      "width_bucket", DataType::Long(), true, args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get(), c[2].get(), c[3].get()}, n);
        Out<int64_t> out(n);
        const double* v = c[0]->raw_values<double>();
        const double* lo = c[1]->raw_values<double>();
        const double* hi = c[2]->raw_values<double>();
        const int64_t* nb = c[3]->raw_values<int64_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          double x = v[i], a = lo[i], b = hi[i];
          int64_t k = nb[i];
          if (k <= 0 || k == INT64_MAX || std::isnan(x) || a == b || !std::isfinite(a) ||
              !std::isfinite(b)) {
            mask.SetNull(i);
            continue;
          }
          double lower = std::min(a, b), upper = std::max(a, b);
          if (a < b) {
            out.data[i] = x < lower ? 0
                          : x >= upper
                              ? k + 1
                              : static_cast<int64_t>(static_cast<double>(k) *
                                                     (x - lower) / (upper - lower)) +
                                    1;
          } else {
            out.data[i] = x > upper ? 0
                          : x <= lower
                              ? k + 1
                              : static_cast<int64_t>(static_cast<double>(k) *
                                                     (upper - x) / (upper - lower)) +
                                    1;
          }
        }
        return kernel::MakeColumn(DataType::Long(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

// ---- strings
// ---------------------------------------------------------------------------

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  while (pos < s.size()) out.push_back(fn::DecodeUtf8(s, &pos));
  return out;
}

Result<BoundExprPtr> ResolveLevenshtein(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("levenshtein", args.size(), 2, 3, "[2, 3]"));
  for (size_t k = 0; k < 2; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg("levenshtein", args, k));
  }
  if (args.size() == 3) {
    SPATE_ASSIGN_OR_RETURN(args[2], fn::ToIntArg("levenshtein", args, 2));
  }
  return MakeScalarCall(
      "levenshtein", DataType::Int(), fn::AnyNullable(args), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        std::vector<const Column*> in;
        for (const auto& x : c) in.push_back(x.get());
        fn::NullMask mask(in, n);
        Out<int32_t> out(n);
        std::vector<int32_t> prev, cur;
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          auto a = CodePoints(c[0]->GetView(i)), b = CodePoints(c[1]->GetView(i));
          prev.resize(b.size() + 1);
          cur.resize(b.size() + 1);
          for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int32_t>(j);
          for (size_t p = 1; p <= a.size(); ++p) {
            cur[0] = static_cast<int32_t>(p);
            for (size_t j = 1; j <= b.size(); ++j) {
              cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                                 prev[j - 1] + (a[p - 1] == b[j - 1] ? 0 : 1)});
            }
            std::swap(prev, cur);
          }
          int32_t d = prev[b.size()];
          if (c.size() == 3) {
            int32_t limit = c[2]->raw_values<int32_t>()[i];
            if (d > limit) d = -1;
          }
          out.data[i] = d;
        }
        return kernel::MakeColumn(DataType::Int(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

// A string -> string function of one argument, row by row.
template <typename F>
Result<BoundExprPtr> StringUnary(const std::string& name, Args args, F f,
                                 bool always_nullable = false) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  return MakeScalarCall(
      name, DataType::String(), always_nullable || args[0]->nullable(), args,
      [f](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        return fn::MapToString(DataType::String(), mask, n,
                               [&](int64_t i, std::string* out) {
                                 f(c[0]->GetView(i), out);
                                 return true;
                               });
      });
}

void Soundex(std::string_view s, std::string* out) {
  // Codes of A..Z; '7' (H, W) neither codes nor separates.
  static const char kCodes[] = "01230127022455012623017202";
  auto upper = [](unsigned char b) {
    return static_cast<unsigned char>(b >= 'a' && b <= 'z' ? b - 32 : b);
  };
  if (s.empty() || upper(s[0]) < 'A' || upper(s[0]) > 'Z') {
    out->assign(s);
    return;
  }
  char sx[4] = {static_cast<char>(upper(s[0])), '0', '0', '0'};
  int n = 1;
  char last = kCodes[upper(s[0]) - 'A'];
  for (size_t i = 1; i < s.size(); ++i) {
    unsigned char b = upper(s[i]);
    if (b < 'A' || b > 'Z') continue;
    char code = kCodes[b - 'A'];
    if (code == '7') continue;
    if (code != '0' && code != last) {
      sx[n++] = code;
      if (n > 3) break;
    }
    last = code;
  }
  out->assign(sx, 4);
}

void Quote(std::string_view s, std::string* out) {
  out->push_back('\'');
  for (char ch : s) {
    if (ch == '\'') out->push_back('\\');
    out->push_back(ch);
  }
  out->push_back('\'');
}

void UrlEncode(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789ABCDEF";
  for (unsigned char ch : s) {
    if (std::isalnum(ch) || ch == '.' || ch == '-' || ch == '*' || ch == '_') {
      out->push_back(static_cast<char>(ch));
    } else if (ch == ' ') {
      out->push_back('+');
    } else {
      out->push_back('%');
      out->push_back(kHex[ch >> 4]);
      out->push_back(kHex[ch & 15]);
    }
  }
}

// java.net.URLDecoder: '+' is a space, %XX a byte; false on a malformed escape.
bool UrlDecode(std::string_view s, std::string* out) {
  auto hex = [](char ch) {
    return ch >= '0' && ch <= '9'   ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out->push_back(' ');
    } else if (s[i] == '%') {
      if (i + 2 >= s.size()) return false;
      int h = hex(s[i + 1]), l = hex(s[i + 2]);
      if (h < 0 || l < 0) return false;
      out->push_back(static_cast<char>(h * 16 + l));
      i += 2;
    } else {
      out->push_back(s[i]);
    }
  }
  return true;
}

Result<BoundExprPtr> ResolveUrlDecode(const std::string& name, bool is_try, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  return MakeScalarCall(
      name, DataType::String(), true, args,
      [is_try](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        std::string bad;
        auto col = fn::MapToString(DataType::String(), mask, n,
                                   [&](int64_t i, std::string* out) {
                                     if (UrlDecode(c[0]->GetView(i), out)) return true;
                                     if (bad.empty()) bad = std::string(c[0]->GetView(i));
                                     return false;
                                   });
        if (!bad.empty() && !is_try) {
          return Status::Error("CANNOT_DECODE_URL", {{"url", bad}});
        }
        return col;
      });
}

Result<BoundExprPtr> ResolveLengthIn(const std::string& name, int64_t unit, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  if (args[0]->type()->id() != TypeId::kBinary) {
    SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  }
  return MakeScalarCall(
      name, DataType::Int(), args[0]->nullable(), args,
      [unit](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        Out<int32_t> out(n);
        for (int64_t i = 0; i < n; ++i)
          out.data[i] = static_cast<int32_t>(c[0]->GetView(i).size() * unit);
        return kernel::MakeColumn(DataType::Int(), n, c[0]->null_count(),
                                  c[0]->validity(), out.buf);
      });
}

Result<BoundExprPtr> ResolveSpace(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("space", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToIntArg("space", args, 0));
  return MakeScalarCall(
      "space", DataType::String(), args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        const int32_t* x = c[0]->raw_values<int32_t>();
        return fn::MapToString(DataType::String(), mask, n,
                               [&](int64_t i, std::string* out) {
                                 out->assign(static_cast<size_t>(std::max(0, x[i])), ' ');
                                 return true;
                               });
      });
}

Result<BoundExprPtr> ResolveFindInSet(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("find_in_set", args.size(), 2, 2, "2"));
  for (size_t k = 0; k < 2; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg("find_in_set", args, k));
  }
  return MakeScalarCall(
      "find_in_set", DataType::Int(), fn::AnyNullable(args), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        Out<int32_t> out(n);
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          std::string_view s = c[0]->GetView(i), list = c[1]->GetView(i);
          int32_t found = 0;
          if (s.find(',') == std::string_view::npos) {
            int32_t k = 1;
            size_t start = 0;
            while (true) {
              size_t end = list.find(',', start);
              if (list.substr(start, end == std::string_view::npos ? end : end - start) ==
                  s) {
                found = k;
                break;
              }
              if (end == std::string_view::npos) break;
              start = end + 1;
              ++k;
            }
          }
          out.data[i] = found;
        }
        return kernel::MakeColumn(DataType::Int(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

// UTF8String.subStringIndex: the part before the count-th delimiter (from the right when
// count < 0); the whole string when there are fewer delimiters.
std::string_view SubstringIndex(std::string_view s, std::string_view delim,
                                int32_t count) {
  if (delim.empty() || count == 0) return {};
  if (count > 0) {
    size_t pos = 0;
    for (int32_t k = 0; k < count; ++k) {
      size_t at = s.find(delim, k == 0 ? 0 : pos + delim.size());
      if (at == std::string_view::npos) return s;
      pos = at;
    }
    return s.substr(0, pos);
  }
  size_t pos = s.size();
  for (int32_t k = 0; k < -static_cast<int64_t>(count); ++k) {
    if (pos == 0) return s;
    size_t at = s.rfind(delim, pos - 1);
    if (at == std::string_view::npos) return s;
    pos = at;
  }
  return s.substr(pos + delim.size());
}

Result<BoundExprPtr> ResolveSubstringIndex(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("substring_index", args.size(), 3, 3, "3"));
  for (size_t k = 0; k < 2; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg("substring_index", args, k));
  }
  SPATE_ASSIGN_OR_RETURN(args[2], fn::ToIntArg("substring_index", args, 2));
  return MakeScalarCall(
      "substring_index", DataType::String(), fn::AnyNullable(args), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        const int32_t* cnt = c[2]->raw_values<int32_t>();
        return fn::MapToString(
            DataType::String(), mask, n, [&](int64_t i, std::string* out) {
              out->assign(SubstringIndex(c[0]->GetView(i), c[1]->GetView(i), cnt[i]));
              return true;
            });
      });
}

Result<BoundExprPtr> ResolveLuhnCheck(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("luhn_check", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg("luhn_check", args, 0));
  return MakeScalarCall(
      "luhn_check", DataType::Boolean(), true, args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        auto out = Buffer::Allocate(bits::BytesFor(n));
        uint8_t* o = out->mutable_data();
        for (int64_t i = 0; i < n; ++i) {
          if (c[0]->IsNull(i)) continue;
          std::string_view s = c[0]->GetView(i);
          bool ok = !s.empty();
          int sum = 0;
          bool dbl = false;
          for (size_t k = s.size(); ok && k-- > 0;) {
            if (s[k] < '0' || s[k] > '9') {
              ok = false;
              break;
            }
            int d = s[k] - '0';
            if (dbl) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
            sum += d;
            dbl = !dbl;
          }
          if (ok && sum % 10 == 0) bits::Set(o, i);
        }
        return kernel::MakeColumn(DataType::Boolean(), n, c[0]->null_count(),
                                  c[0]->validity(), out);
      });
}

Result<BoundExprPtr> ResolveElt(Args args, const ResolveContext& rc) {
  if (args.size() < 2) {
    return fn::CheckArgs("elt", args.size(), 2, SIZE_MAX, "> 1");
  }
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToIntArg("elt", args, 0));
  bool all_binary = true;
  for (size_t k = 1; k < args.size(); ++k)
    all_binary &= args[k]->type()->id() == TypeId::kBinary;
  DataTypePtr type = all_binary ? DataType::Binary() : DataType::String();
  for (size_t k = 1; k < args.size(); ++k) {
    if (!all_binary) {
      SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg("elt", args, k));
    }
  }
  bool ansi = rc.ansi;
  return MakeScalarCall(
      "elt", type, true, args,
      [type, ansi](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        StringBuilder sb(type, n, n * 8);
        const int32_t* idx = c[0]->raw_values<int32_t>();
        int64_t size = static_cast<int64_t>(c.size()) - 1;
        for (int64_t i = 0; i < n; ++i) {
          if (c[0]->IsNull(i)) {
            sb.AppendNull();
            continue;
          }
          if (idx[i] < 1 || idx[i] > size) {
            if (ansi) {
              return Status::Error("INVALID_ARRAY_INDEX",
                                   {{"indexValue", std::to_string(idx[i])},
                                    {"arraySize", std::to_string(size)},
                                    {"ansiConfig", "\"spark.sql.ansi.enabled\""}});
            }
            sb.AppendNull();
            continue;
          }
          const Column& v = *c[static_cast<size_t>(idx[i])];
          if (v.IsNull(i)) {
            sb.AppendNull();
          } else {
            sb.Append(v.GetView(i));
          }
        }
        return sb.Finish();
      });
}

// ---- UTF-8 validity
// --------------------------------------------------------------------

// The length of the well-formed UTF-8 sequence at `pos` (> 0), or minus the length of
// the maximal ill-formed subpart there (which becomes one U+FFFD, as Java's decoder).
int Utf8SequenceAt(std::string_view s, size_t pos) {
  size_t bad = 0;
  size_t n = Utf8Sequence(reinterpret_cast<const unsigned char*>(s.data()) + pos,
                          s.size() - pos, &bad);
  return n > 0 ? static_cast<int>(n) : -static_cast<int>(bad);
}

bool IsValidUtf8(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    int n = Utf8SequenceAt(s, pos);
    if (n < 0) return false;
    pos += static_cast<size_t>(n);
  }
  return true;
}

void MakeValidUtf8(std::string_view s, std::string* out) {
  for (size_t pos = 0; pos < s.size();) {
    int n = Utf8SequenceAt(s, pos);
    if (n > 0) {
      out->append(s.substr(pos, static_cast<size_t>(n)));
      pos += static_cast<size_t>(n);
    } else {
      AppendUtf8(0xFFFD, out);
      pos += static_cast<size_t>(-n);
    }
  }
}

enum class Utf8Fn : uint8_t { kIsValid, kMakeValid, kValidate, kTryValidate };

Result<BoundExprPtr> ResolveUtf8(const std::string& name, Utf8Fn kind, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  if (kind == Utf8Fn::kIsValid) {
    return MakeScalarCall(
        name, DataType::Boolean(), true, args,
        [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
          auto out = Buffer::Allocate(bits::BytesFor(n));
          uint8_t* o = out->mutable_data();
          for (int64_t i = 0; i < n; ++i) {
            if (c[0]->IsValid(i) && IsValidUtf8(c[0]->GetView(i))) bits::Set(o, i);
          }
          return kernel::MakeColumn(DataType::Boolean(), n, c[0]->null_count(),
                                    c[0]->validity(), out);
        });
  }
  return MakeScalarCall(
      name, DataType::String(), kind != Utf8Fn::kValidate || args[0]->nullable(), args,
      [kind](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        std::string bad;
        bool failed = false;
        auto col = fn::MapToString(DataType::String(), mask, n,
                                   [&](int64_t i, std::string* out) {
                                     std::string_view v = c[0]->GetView(i);
                                     if (kind == Utf8Fn::kMakeValid) {
                                       MakeValidUtf8(v, out);
                                       return true;
                                     }
                                     if (IsValidUtf8(v)) {
                                       out->assign(v);
                                       return true;
                                     }
                                     if (!failed) bad.assign(v);
                                     failed = true;
                                     return false;
                                   });
        if (failed && kind == Utf8Fn::kValidate) {
          static const char kHex[] = "0123456789ABCDEF";
          std::string hex = "x'";
          for (unsigned char ch : bad) {
            hex.push_back(kHex[ch >> 4]);
            hex.push_back(kHex[ch & 15]);
          }
          return Status::Error("INVALID_UTF8_STRING", {{"str", hex + "'"}});
        }
        return col;
      });
}

// ---- encode / decode
// -------------------------------------------------------------------

enum class Charset : uint8_t {
  kUtf8,
  kAscii,
  kLatin1,
  kUtf16Be,
  kUtf16Le,
  kUtf16,
  kUtf32
};

bool ParseCharset(std::string_view name, Charset* out) {
  std::string s;
  for (char ch : name)
    s.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
  if (s == "UTF-8")
    *out = Charset::kUtf8;
  else if (s == "US-ASCII")
    *out = Charset::kAscii;
  else if (s == "ISO-8859-1")
    *out = Charset::kLatin1;
  else if (s == "UTF-16BE")
    *out = Charset::kUtf16Be;
  else if (s == "UTF-16LE")
    *out = Charset::kUtf16Le;
  else if (s == "UTF-16")
    *out = Charset::kUtf16;
  else if (s == "UTF-32")
    *out = Charset::kUtf32;
  else
    return false;
  return true;
}

Status InvalidCharset(const std::string& fn_name, std::string_view charset) {
  return Status::Error(
      "INVALID_PARAMETER_VALUE.CHARSET",
      {{"parameter", "`charset`"},
       {"functionName", "`" + fn_name + "`"},
       {"charsets", "iso-8859-1, us-ascii, utf-16, utf-16be, utf-16le, utf-32, utf-8"},
       {"charset", std::string(charset)}});
}

void PutUnit(std::string* out, uint32_t u, int bytes, bool big) {
  for (int k = 0; k < bytes; ++k) {
    int shift = big ? 8 * (bytes - 1 - k) : 8 * k;
    out->push_back(static_cast<char>((u >> shift) & 0xFF));
  }
}

// String -> bytes in `cs`; false when a character has no encoding in it (Spark's
// MALFORMED_CHARACTER_CODING).
bool EncodeText(std::string_view s, Charset cs, std::string* out) {
  if (cs == Charset::kUtf8) {
    out->assign(s);
    return true;
  }
  if (cs == Charset::kUtf16) PutUnit(out, 0xFEFF, 2, true);
  size_t pos = 0;
  while (pos < s.size()) {
    uint32_t cp = fn::DecodeUtf8(s, &pos);
    switch (cs) {
      case Charset::kAscii:
        if (cp >= 0x80) return false;
        out->push_back(static_cast<char>(cp));
        break;
      case Charset::kLatin1:
        if (cp >= 0x100) return false;
        out->push_back(static_cast<char>(cp));
        break;
      case Charset::kUtf32:
        PutUnit(out, cp, 4, true);
        break;
      default: {
        bool big = cs != Charset::kUtf16Le;
        if (cp >= 0x10000) {
          uint32_t v = cp - 0x10000;
          PutUnit(out, 0xD800 + (v >> 10), 2, big);
          PutUnit(out, 0xDC00 + (v & 0x3FF), 2, big);
        } else {
          PutUnit(out, cp, 2, big);
        }
      }
    }
  }
  return true;
}

// Bytes in `cs` -> UTF-8; false on malformed input (Spark's MALFORMED_CHARACTER_CODING).
bool DecodeText(std::string_view b, Charset cs, std::string* out) {
  auto u8 = [&](size_t i) { return static_cast<uint8_t>(b[i]); };
  switch (cs) {
    case Charset::kUtf8:
      if (!IsValidUtf8(b)) return false;
      out->assign(b);
      return true;
    case Charset::kAscii:
      for (size_t i = 0; i < b.size(); ++i) {
        if (u8(i) >= 0x80) return false;
        out->push_back(b[i]);
      }
      return true;
    case Charset::kLatin1:
      for (size_t i = 0; i < b.size(); ++i) AppendUtf8(u8(i), out);
      return true;
    case Charset::kUtf32:
      if (b.size() % 4 != 0) return false;
      for (size_t i = 0; i + 4 <= b.size(); i += 4) {
        uint32_t cp = static_cast<uint32_t>(u8(i)) << 24 | u8(i + 1) << 16 |
                      u8(i + 2) << 8 | u8(i + 3);
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) return false;
        AppendUtf8(cp, out);
      }
      return true;
    default: {
      bool big = cs != Charset::kUtf16Le;
      size_t i = 0;
      if (cs == Charset::kUtf16 && b.size() >= 2) {
        if (u8(0) == 0xFF && u8(1) == 0xFE) {
          big = false;
          i = 2;
        } else if (u8(0) == 0xFE && u8(1) == 0xFF) {
          i = 2;
        }
      }
      if ((b.size() - i) % 2 != 0) return false;
      auto unit = [&](size_t k) -> uint32_t {
        return big ? (static_cast<uint32_t>(u8(k)) << 8 | u8(k + 1))
                   : (static_cast<uint32_t>(u8(k + 1)) << 8 | u8(k));
      };
      for (; i + 1 < b.size(); i += 2) {
        uint32_t u = unit(i);
        if (u >= 0xD800 && u < 0xDC00 && i + 3 < b.size()) {
          uint32_t l = unit(i + 2);
          if (l >= 0xDC00 && l < 0xE000) {
            AppendUtf8(0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00), out);
            i += 2;
            continue;
          }
        }
        if (u >= 0xD800 && u < 0xE000) return false;
        AppendUtf8(u, out);
      }
      return true;
    }
  }
}

Result<BoundExprPtr> ResolveEncodeDecode(const std::string& name, bool encode,
                                         Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  if (encode) {
    SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  } else if (args[0]->type()->id() != TypeId::kBinary) {
    SPATE_ASSIGN_OR_RETURN(
        args[0], fn::ToTypeArg(name, args, 0, DataType::Binary(), "\"BINARY\""));
  }
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToStringArg(name, args, 1));
  DataTypePtr type = encode ? DataType::Binary() : DataType::String();
  // A constant charset is checked now, as Spark's.
  if (const Value* v = args[1]->literal_value(); v != nullptr && !v->is_null()) {
    Charset cs;
    if (!ParseCharset(v->str(), &cs)) return InvalidCharset(name, v->str());
  }
  return MakeScalarCall(
      name, type, true, args,
      [name, encode, type](const Cols& c, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get()}, n);
        Status bad = Status::OK();
        auto col = fn::MapToString(type, mask, n, [&](int64_t i, std::string* out) {
          Charset cs;
          if (!ParseCharset(c[1]->GetView(i), &cs)) {
            if (bad.ok()) bad = InvalidCharset(name, c[1]->GetView(i));
            return false;
          }
          if (encode ? EncodeText(c[0]->GetView(i), cs, out)
                     : DecodeText(c[0]->GetView(i), cs, out)) {
            return true;
          }
          if (bad.ok()) {
            bad = Status::Error("MALFORMED_CHARACTER_CODING",
                                {{"function", "`" + name + "`"},
                                 {"charset", std::string(c[1]->GetView(i))}});
          }
          return false;
        });
        SPATE_RETURN_IF_ERROR(bad);
        return col;
      });
}

// decode(expr, search, result [, search, result]... [, default]): the result of the first
// search equal to expr (NULL equals NULL), else default. Without a default Spark's Decode
// ends in ELSE CAST(NULL AS STRING), and so the results take their common type with
// STRING (ints give BIGINT, decimals DOUBLE; an array fails with DATA_DIFF_TYPES): as
// Spark 4.2.
Result<BoundExprPtr> ResolveDecodeCase(Args args, const ResolveContext& rc) {
  const ScalarResolver* eq = FunctionRegistry::Global().FindScalar("<=>");
  std::vector<BoundExprPtr> branches;
  size_t k = 1;
  for (; k + 1 < args.size(); k += 2) {
    SPATE_ASSIGN_OR_RETURN(auto cond, (*eq)({args[0], args[k]}, rc));
    branches.push_back(cond);
    branches.push_back(args[k + 1]);
  }
  BoundExprPtr otherwise =
      k < args.size() ? args[k] : MakeLiteral(Value::Null(DataType::String()));
  SPATE_ASSIGN_OR_RETURN(auto cw, MakeCaseWhen(std::move(branches), otherwise));
  std::vector<std::string> texts;
  for (const auto& a : args) texts.push_back(a->ToString());
  return MakeScalarCall(
      "decode", cw->type(), cw->nullable(), {cw},
      [](const Cols& c, int64_t, const EvalContext&) -> Result<ColumnPtr> {
        return c[0];
      },
      [texts](const std::vector<std::string>&) { return CallText("decode", texts); });
}

// ---- errors
// ----------------------------------------------------------------------------

Status UserRaised(const std::string& message) {
  return Status::Error("USER_RAISED_EXCEPTION", {{"errorMessage", message}});
}

Result<BoundExprPtr> ResolveRaiseError(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("raise_error", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg("raise_error", args, 0));
  return MakeScalarCall(
      "raise_error", DataType::Null(), true, args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        for (int64_t i = 0; i < n; ++i) {
          return UserRaised(c[0]->IsNull(i) ? "null" : std::string(c[0]->GetView(i)));
        }
        return MakeConstantColumn(Value::Null(DataType::Null()), n);
      },
      nullptr, /*nondeterministic=*/true);
}

Result<BoundExprPtr> ResolveAssertTrue(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("assert_true", args.size(), 1, 2, "[1, 2]"));
  if (args[0]->type()->id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Boolean()));
  }
  if (args[0]->type()->id() != TypeId::kBoolean) {
    return fn::UnexpectedType("assert_true", args, 0, "\"BOOLEAN\"");
  }
  std::string message = "'" + args[0]->ToString() + "' is not true!";
  std::string shown = args.size() == 2 ? args[1]->ToString() : message;
  std::string cond = args[0]->ToString();
  if (args.size() == 2) {
    SPATE_ASSIGN_OR_RETURN(args[1], fn::ToStringArg("assert_true", args, 1));
  }
  return MakeScalarCall(
      "assert_true", DataType::Null(), true, args,
      [message](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const uint8_t* v = c[0]->raw_values<uint8_t>();
        for (int64_t i = 0; i < n; ++i) {
          if (c[0]->IsNull(i) || !bits::Get(v, i)) {
            if (c.size() == 2)
              return UserRaised(c[1]->IsNull(i) ? "null" : std::string(c[1]->GetView(i)));
            return UserRaised(message);
          }
        }
        return MakeConstantColumn(Value::Null(DataType::Null()), n);
      },
      [cond, shown](const std::vector<std::string>&) {
        return "assert_true(" + cond + ", " + shown + ")";
      },
      /*nondeterministic=*/true);
}

// ---- session facts
// ---------------------------------------------------------------------

std::string UserName() {
  if (const passwd* pw = getpwuid(geteuid()); pw != nullptr && pw->pw_name != nullptr)
    return pw->pw_name;
  const char* u = std::getenv("USER");
  return u ? u : "";
}

Result<BoundExprPtr> ConstantString(const std::string& name, const Args& args,
                                    const std::string& value) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 0, 0, "0"));
  return MakeScalarCall(
      name, DataType::String(), false, {},
      [value](const Cols&, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        return MakeConstantColumn(Value::String(value), n);
      },
      [name](const std::vector<std::string>&) { return name + "()"; });
}

Result<BoundExprPtr> ResolveZeroIfNull(Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("zeroifnull", args.size(), 1, 1, "1"));
  Args shown = args;
  return Delegate("zeroifnull", "coalesce", {args[0], MakeLiteral(Value::Int(0))}, rc,
                  shown);
}

Result<BoundExprPtr> ResolveNullIfZero(Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("nullifzero", args.size(), 1, 1, "1"));
  Args shown = args;
  return Delegate("nullifzero", "nullif", {args[0], MakeLiteral(Value::Int(0))}, rc,
                  shown);
}

// monthname / dayname: the three-letter English name of a date's month / weekday.
Result<BoundExprPtr> ResolveDateName(const std::string& name, const std::string& pattern,
                                     Args args, const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  Args shown = args;
  SPATE_ASSIGN_OR_RETURN(auto d,
                         fn::ToTypeArg(name, args, 0, DataType::Date(), "\"DATE\""));
  return Delegate(name, "date_format", {d, MakeLiteral(Value::String(pattern))}, rc,
                  shown);
}

// lpad / rpad of a BINARY with a BINARY pad (default x'00'): bytes, as Spark's
// BinaryPad; other arguments go to the string functions.
Result<BoundExprPtr> ResolveBinaryPad(const std::string& name, bool left, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 3, "[2, 3]"));
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg(name, args, 1));
  if (args.size() == 2) args.push_back(MakeLiteral(Value::Binary(std::string(1, '\0'))));
  return MakeScalarCall(
      name, DataType::Binary(), fn::AnyNullable(args), args,
      [left](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        const int32_t* len = c[1]->raw_values<int32_t>();
        return fn::MapToString(
            DataType::Binary(), mask, n, [&](int64_t i, std::string* out) {
              std::string_view s = c[0]->GetView(i), pad = c[2]->GetView(i);
              auto want = static_cast<size_t>(std::max(0, len[i]));
              if (want <= s.size() || pad.empty()) {
                out->assign(s.substr(0, want));
                return true;
              }
              std::string fill;
              while (fill.size() < want - s.size()) fill.append(pad);
              fill.resize(want - s.size());
              *out = left ? fill + std::string(s) : std::string(s) + fill;
              return true;
            });
      });
}

// bitmap_bucket_number / bitmap_bit_position: where a value lands among Spark's bitmaps
// of 32768 bits (4096 bytes); bitmap_count: the bits set in a bitmap.
constexpr int64_t kBitmapBits = 8 * 4096;

Result<BoundExprPtr> ResolveBitmapPlace(const std::string& name, bool bucket, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  if (!(args[0]->type()->IsIntegral() || args[0]->type()->id() == TypeId::kNull)) {
    return fn::UnexpectedType(name, args, 0, "\"BIGINT\"");
  }
  SPATE_ASSIGN_OR_RETURN(args[0], ImplicitCast(args[0], DataType::Long()));
  return MakeScalarCall(
      name, DataType::Long(), args[0]->nullable(), args,
      [bucket](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        const int64_t* x = c[0]->raw_values<int64_t>();
        Out<int64_t> out(n);
        for (int64_t i = 0; i < n; ++i) {
          int64_t v = x[i];
          out.data[i] = bucket ? (v > 0 ? 1 + (v - 1) / kBitmapBits : v / kBitmapBits)
                               : (v > 0 ? (v - 1) % kBitmapBits : (-v) % kBitmapBits);
        }
        return kernel::MakeColumn(DataType::Long(), n, c[0]->null_count(),
                                  c[0]->validity(), out.buf);
      });
}

Result<BoundExprPtr> ResolveBitmapCount(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("bitmap_count", args.size(), 1, 1, "1"));
  if (args[0]->type()->id() != TypeId::kBinary)
    return fn::UnexpectedType("bitmap_count", args, 0, "\"BINARY\"");
  return MakeScalarCall(
      "bitmap_count", DataType::Long(), args[0]->nullable(), args,
      [](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        Out<int64_t> out(n);
        for (int64_t i = 0; i < n; ++i) {
          int64_t bits_set = 0;
          for (unsigned char b : c[0]->GetView(i))
            bits_set += std::popcount(static_cast<unsigned>(b));
          out.data[i] = bits_set;
        }
        return kernel::MakeColumn(DataType::Long(), n, c[0]->null_count(),
                                  c[0]->validity(), out.buf);
      });
}

// overlay(input, replace, pos[, len]): input with `len` characters (bytes for BINARY)
// from 1-based `pos` replaced by `replace`; `len` defaults to the length of `replace`.
Result<BoundExprPtr> ResolveOverlay(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("overlay", args.size(), 3, 4, "[3, 4]"));
  bool binary = args[0]->type()->id() == TypeId::kBinary &&
                args[1]->type()->id() == TypeId::kBinary;
  if (!binary) {
    for (size_t k = 0; k < 2; ++k) {
      SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg("overlay", args, k));
    }
  }
  for (size_t k = 2; k < args.size(); ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToIntArg("overlay", args, k));
  }
  if (args.size() == 3) args.push_back(MakeLiteral(Value::Int(-1)));
  DataTypePtr type = binary ? DataType::Binary() : DataType::String();
  return MakeScalarCall(
      "overlay", type, fn::AnyNullable(args), args,
      [type, binary](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get(), c[2].get(), c[3].get()}, n);
        const int32_t* pos = c[2]->raw_values<int32_t>();
        const int32_t* len = c[3]->raw_values<int32_t>();
        return fn::MapToString(type, mask, n, [&](int64_t i, std::string* out) {
          std::string_view input = c[0]->GetView(i), replace = c[1]->GetView(i);
          int64_t p = pos[i];
          int64_t length = len[i] >= 0 ? len[i]
                                       : (binary ? static_cast<int64_t>(replace.size())
                                                 : fn::NumChars(replace));
          out->append(fn::SubstringSql(input, 1, p - 1, binary));
          out->append(replace);
          out->append(fn::SubstringSql(input, p + length, INT32_MAX, binary));
          return true;
        });
      });
}

// conv(num, from_base, to_base): Spark's NumberConverter. The digits (after an optional
// '-', up to the first one invalid in from_base) are read as an unsigned 64-bit number; a
// negative input is its two's complement unless to_base < 0 asks for a signed result.
// Overflow: ARITHMETIC_OVERFLOW with ANSI, else all ones.
Result<BoundExprPtr> ResolveConv(Args args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("conv", args.size(), 3, 3, "3"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg("conv", args, 0));
  for (size_t k = 1; k < 3; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToIntArg("conv", args, k));
  }
  return MakeScalarCall(
      "conv", DataType::String(), true, args,
      [](const Cols& c, int64_t n, const EvalContext& ctx) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        const int32_t* from = c[1]->raw_values<int32_t>();
        const int32_t* to = c[2]->raw_values<int32_t>();
        bool overflow = false;
        auto col = fn::MapToString(
            DataType::String(), mask, n, [&](int64_t i, std::string* out) {
              int32_t fb = from[i], tb = to[i];
              if (fb < 2 || fb > 36 || std::abs(tb) < 2 || std::abs(tb) > 36)
                return false;
              std::string_view s = c[0]->GetView(i);
              while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
              while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
              if (s.empty()) return false;
              bool negative = s[0] == '-';
              uint64_t v = 0;
              for (size_t k = negative ? 1 : 0; k < s.size(); ++k) {
                char ch = s[k];
                int d = ch >= '0' && ch <= '9'   ? ch - '0'
                        : ch >= 'a' && ch <= 'z' ? ch - 'a' + 10
                        : ch >= 'A' && ch <= 'Z' ? ch - 'A' + 10
                                                 : 99;
                if (d >= fb) break;
                auto base = static_cast<uint64_t>(fb);
                if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / base) {
                  if (ctx.ansi) {
                    overflow = true;
                    return false;
                  }
                  v = UINT64_MAX;
                  break;
                }
                v = v * base + static_cast<uint64_t>(d);
              }
              if (negative && tb > 0)
                v = static_cast<int64_t>(v) < 0 ? UINT64_MAX : ~v + 1;
              if (tb < 0 && static_cast<int64_t>(v) < 0) {
                v = ~v + 1;
                negative = true;
              }
              static const char kDigits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
              auto base = static_cast<uint64_t>(std::abs(tb));
              std::string digits;
              do {
                digits.push_back(kDigits[v % base]);
                v /= base;
              } while (v != 0);
              if (negative && tb < 0) digits.push_back('-');
              out->assign(digits.rbegin(), digits.rend());
              return true;
            });
        if (overflow) {
          return Status::Error("ARITHMETIC_OVERFLOW",
                               {{"message", "Overflow in function conv()"},
                                {"alternative", ""},
                                {"config", "\"spark.sql.ansi.enabled\""}});
        }
        return col;
      });
}

}  // namespace

void RegisterExtraFunctions(FunctionRegistry& r) {
  r.RegisterScalar("shiftleft", [](Args a, const ResolveContext&) {
    return ResolveShift("shiftleft", Shift::kLeft, a);
  });
  r.RegisterScalar("shiftright", [](Args a, const ResolveContext&) {
    return ResolveShift("shiftright", Shift::kRight, a);
  });
  r.RegisterScalar("shiftrightunsigned", [](Args a, const ResolveContext&) {
    return ResolveShift("shiftrightunsigned", Shift::kRightUnsigned, a);
  });
  r.RegisterScalar("bit_count", ResolveBitCount);
  for (const char* name : {"bit_get", "getbit"}) {
    r.RegisterScalar(
        name, [name](Args a, const ResolveContext&) { return ResolveBitGet(name, a); });
  }
  r.RegisterScalar("bin", ResolveBin);
  r.RegisterScalar("factorial", ResolveFactorial);
  r.RegisterScalar("width_bucket", ResolveWidthBucket);
  r.RegisterScalar("levenshtein", ResolveLevenshtein);
  r.RegisterScalar("soundex", [](Args a, const ResolveContext&) {
    return StringUnary("soundex", a, Soundex);
  });
  r.RegisterScalar("quote", [](Args a, const ResolveContext&) {
    return StringUnary("quote", a, Quote, true);
  });
  r.RegisterScalar("url_encode", [](Args a, const ResolveContext&) {
    return StringUnary("url_encode", a, UrlEncode, true);
  });
  r.RegisterScalar("url_decode", [](Args a, const ResolveContext&) {
    return ResolveUrlDecode("url_decode", false, a);
  });
  r.RegisterScalar("try_url_decode", [](Args a, const ResolveContext&) {
    return ResolveUrlDecode("try_url_decode", true, a);
  });
  r.RegisterScalar("octet_length", [](Args a, const ResolveContext&) {
    return ResolveLengthIn("octet_length", 1, a);
  });
  r.RegisterScalar("bit_length", [](Args a, const ResolveContext&) {
    return ResolveLengthIn("bit_length", 8, a);
  });
  r.RegisterScalar("space", ResolveSpace);
  r.RegisterScalar("find_in_set", ResolveFindInSet);
  r.RegisterScalar("substring_index", ResolveSubstringIndex);
  r.RegisterScalar("luhn_check", ResolveLuhnCheck);
  r.RegisterScalar("elt", ResolveElt);
  r.RegisterScalar("encode", [](Args a, const ResolveContext&) {
    return ResolveEncodeDecode("encode", true, a);
  });
  r.RegisterScalar("decode",
                   [](Args a, const ResolveContext& rc) -> Result<BoundExprPtr> {
                     if (a.size() > 2) return ResolveDecodeCase(a, rc);
                     return ResolveEncodeDecode("decode", false, a);
                   });
  struct Utf8Def {
    const char* name;
    Utf8Fn kind;
  };
  for (Utf8Def d : {Utf8Def{"is_valid_utf8", Utf8Fn::kIsValid},
                    Utf8Def{"make_valid_utf8", Utf8Fn::kMakeValid},
                    Utf8Def{"validate_utf8", Utf8Fn::kValidate},
                    Utf8Def{"try_validate_utf8", Utf8Fn::kTryValidate}}) {
    r.RegisterScalar(d.name, [d](Args a, const ResolveContext&) {
      return ResolveUtf8(d.name, d.kind, a);
    });
  }
  r.RegisterScalar("bitmap_bucket_number", [](Args a, const ResolveContext&) {
    return ResolveBitmapPlace("bitmap_bucket_number", true, std::move(a));
  });
  r.RegisterScalar("bitmap_bit_position", [](Args a, const ResolveContext&) {
    return ResolveBitmapPlace("bitmap_bit_position", false, std::move(a));
  });
  r.RegisterScalar("bitmap_count", ResolveBitmapCount);
  r.RegisterScalar("overlay", ResolveOverlay);
  r.RegisterScalar("conv", ResolveConv);
  r.RegisterScalar("raise_error", ResolveRaiseError);
  r.RegisterScalar("assert_true", ResolveAssertTrue);
  for (const char* name : {"current_user", "user", "session_user"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ConstantString(name, a, UserName());
    });
  }
  r.RegisterScalar("version", [](Args a, const ResolveContext&) {
    return ConstantString("version", a, "4.2.0 spate");
  });
  for (const char* name : {"lpad", "rpad"}) {
    const ScalarResolver* previous = r.FindScalar(name);
    ScalarResolver strings = previous ? *previous : ScalarResolver();
    std::string n = name;
    r.RegisterScalar(
        n, [n, strings](Args a, const ResolveContext& rc) -> Result<BoundExprPtr> {
          bool binary = !a.empty() && a[0]->type()->id() == TypeId::kBinary &&
                        (a.size() < 3 || a[2]->type()->id() == TypeId::kBinary);
          if (binary) return ResolveBinaryPad(n, n == "lpad", std::move(a));
          return strings(std::move(a), rc);
        });
  }
  r.RegisterScalar(
      "equal_null", [](Args a, const ResolveContext& rc) -> Result<BoundExprPtr> {
        SPATE_RETURN_IF_ERROR(fn::CheckArgs("equal_null", a.size(), 2, 2, "2"));
        return Delegate("equal_null", "<=>", a, rc, a);
      });
  r.RegisterScalar("zeroifnull", ResolveZeroIfNull);
  r.RegisterScalar("nullifzero", ResolveNullIfZero);
  r.RegisterScalar("monthname", [](Args a, const ResolveContext& rc) {
    return ResolveDateName("monthname", "MMM", a, rc);
  });
  r.RegisterScalar("dayname", [](Args a, const ResolveContext& rc) {
    return ResolveDateName("dayname", "EEE", a, rc);
  });
  r.RegisterScalar("date_diff",
                   [](Args a, const ResolveContext& rc) -> Result<BoundExprPtr> {
                     return Delegate("date_diff", "datediff", a, rc, a);
                   });
}

}  // namespace spate
