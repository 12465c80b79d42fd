// Copyright spate authors.
// String functions over UTF-8 (positions and lengths in code points, as Spark): concat ||
// concat_ws length char_length character_length upper lower substring substr left right
// trim ltrim rtrim lpad rpad replace split_part instr locate position repeat reverse
// initcap startswith endswith contains format_number format_string printf ascii chr
// base64 unbase64 hex unhex md5 sha1 sha2 crc32 translate levenshtein soundex quote
// octet_length bit_length space find_in_set substring_index luhn_check elt overlay, and
// lpad / rpad of BINARY values (bytes).

#include <locale.h>
#include <openssl/evp.h>
#include <wctype.h>

#include <array>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/string_kernels.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using fn::NullMask;
using kernel::Out;
using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

using StringFn = std::function<bool(int64_t, std::string*)>;

// Resolves `name` with all arguments cast to STRING and a per-row body returning the
// string result (false = NULL). The body receives the argument columns.
// Nullable when an argument is, unless `always_nullable` (Spark's rule for the function).
template <typename Body>
Result<BoundExprPtr> StringCall(const std::string& name, std::vector<BoundExprPtr> args,
                                DataTypePtr out_type, Body body,
                                bool always_nullable = false) {
  const bool nullable = always_nullable || fn::AnyNullable(args);
  return MakeScalarCall(name, out_type, nullable, args,
                        [out_type, body](const std::vector<ColumnPtr>& c, int64_t n,
                                         const EvalContext&) -> Result<ColumnPtr> {
                          std::vector<const Column*> cols;
                          for (const auto& col : c) cols.push_back(col.get());
                          NullMask mask(cols, n);
                          return fn::MapToString(out_type, mask, n,
                                                 [&](int64_t i, std::string* out) {
                                                   return body(c, i, out);
                                                 });
                        });
}

Result<std::vector<BoundExprPtr>> AllStrings(const std::string& name,
                                             std::vector<BoundExprPtr> args) {
  for (size_t k = 0; k < args.size(); ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg(name, args, k));
  }
  return args;
}

bool IsBinary(const BoundExprPtr& e) { return e->type()->id() == TypeId::kBinary; }

// ---- case mapping
// ----------------------------------------------------------------------

locale_t Utf8Locale() {
  static locale_t loc =
      newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

uint32_t UpperCp(uint32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
  locale_t l = Utf8Locale();
  return l ? static_cast<uint32_t>(towupper_l(static_cast<wint_t>(c), l)) : c;
}
uint32_t LowerCp(uint32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  locale_t l = Utf8Locale();
  return l ? static_cast<uint32_t>(towlower_l(static_cast<wint_t>(c), l)) : c;
}

void MapCase(std::string_view s, bool upper, std::string* out) {
  out->reserve(s.size());
  size_t pos = 0;
  while (pos < s.size()) {
    unsigned char ch = static_cast<unsigned char>(s[pos]);
    if (ch < 0x80) {
      out->push_back(static_cast<char>(upper ? UpperCp(ch) : LowerCp(ch)));
      ++pos;
      continue;
    }
    uint32_t cp = fn::DecodeUtf8(s, &pos);
    if (upper && cp == 0xDF) {  // Java's full mapping: sharp s -> "SS"
      out->append("SS");
      continue;
    }
    fn::AppendUtf8(upper ? UpperCp(cp) : LowerCp(cp), out);
  }
}

// ---- concat
// ----------------------------------------------------------------------------

Result<BoundExprPtr> ResolveConcat(const std::string& name,
                                   std::vector<BoundExprPtr> args) {
  bool all_binary = !args.empty();
  for (const auto& a : args) all_binary = all_binary && IsBinary(a);
  DataTypePtr type = all_binary ? DataType::Binary() : DataType::String();
  if (!all_binary) {
    SPATE_ASSIGN_OR_RETURN(args, AllStrings(name, std::move(args)));
  }
  auto display = [name](const std::vector<std::string>& s) {
    if (name == "||") {
      std::string out = "concat(";
      for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i];
      return out + ")";
    }
    return CallText(name, s);
  };
  return MakeScalarCall(
      name, type, fn::AnyNullable(args), args,
      [type](const std::vector<ColumnPtr>& c, int64_t n,
             const EvalContext&) -> Result<ColumnPtr> {
        if (c.empty()) return MakeConstantColumn(Value::String(""), n);
        std::vector<const Column*> cols;
        for (const auto& col : c) cols.push_back(col.get());
        NullMask mask(cols, n);
        return fn::MapToString(type, mask, n, [&](int64_t i, std::string* out) {
          for (const auto& col : c) out->append(col->GetView(i));
          return true;
        });
      },
      display);
}

Result<BoundExprPtr> ResolveConcatWs(std::vector<BoundExprPtr> args,
                                     const ResolveContext&) {
  if (args.empty()) {
    return Status::Error(
        "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        {{"functionName", "`concat_ws`"}, {"expectedNum", "> 0"}, {"actualNum", "0"}});
  }
  for (size_t k = 0; k < args.size(); ++k) {
    const DataType& t = *args[k]->type();
    if (k > 0 && t.id() == TypeId::kArray && t.element_type()->id() == TypeId::kString)
      continue;
    if (t.IsNested()) {
      return fn::UnexpectedType("concat_ws", args, k,
                                "(\"ARRAY<STRING>\" or \"STRING\")");
    }
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg("concat_ws", args, k));
  }
  return MakeScalarCall("concat_ws", DataType::String(), args[0]->nullable(), args,
                        [](const std::vector<ColumnPtr>& c, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          NullMask mask({c[0].get()}, n);
                          return fn::MapToString(
                              DataType::String(), mask, n,
                              [&](int64_t i, std::string* out) {
                                std::string_view sep = c[0]->GetView(i);
                                bool first = true;
                                auto add = [&](std::string_view v) {
                                  if (!first) out->append(sep);
                                  out->append(v);
                                  first = false;
                                };
                                for (size_t k = 1; k < c.size(); ++k) {
                                  const Column& col = *c[k];
                                  if (col.IsNull(i)) continue;
                                  if (col.type_id() == TypeId::kArray) {
                                    const int32_t* o = col.offsets();
                                    const Column& e = *col.child(0);
                                    for (int32_t j = o[i]; j < o[i + 1]; ++j) {
                                      if (e.IsValid(j)) add(e.GetView(j));
                                    }
                                  } else {
                                    add(col.GetView(i));
                                  }
                                }
                                return true;
                              });
                        });
}

// ---- length / case
// ---------------------------------------------------------------------

Result<BoundExprPtr> ResolveLength(const std::string& name,
                                   std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  bool bytes = IsBinary(args[0]);
  if (!bytes) {
    SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  }
  return MakeScalarCall(
      name, DataType::Int(), args[0]->nullable(), args,
      [bytes](const std::vector<ColumnPtr>& c, int64_t n,
              const EvalContext&) -> Result<ColumnPtr> {
        Out<int32_t> out(n);
        const Column& a = *c[0];
        if (a.type_id() != TypeId::kNull) {
          for (int64_t i = 0; i < n; ++i) {
            std::string_view v = a.GetView(i);
            out.data[i] = static_cast<int32_t>(bytes ? static_cast<int64_t>(v.size())
                                                     : fn::NumChars(v));
          }
        }
        return kernel::MakeColumn(DataType::Int(), n, a.null_count(), a.validity(),
                                  out.buf);
      });
}

Result<BoundExprPtr> ResolveCase(const std::string& name, bool upper,
                                 std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings(name, std::move(args)));
  return StringCall(
      name, args, DataType::String(),
      [upper](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
        MapCase(c[0]->GetView(i), upper, out);
        return true;
      });
}

Result<BoundExprPtr> ResolveInitcap(std::vector<BoundExprPtr> args,
                                    const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("initcap", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings("initcap", std::move(args)));
  return StringCall("initcap", args, DataType::String(),
                    [](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
                      std::string_view s = c[0]->GetView(i);
                      size_t pos = 0;
                      bool start = true;
                      while (pos < s.size()) {
                        uint32_t cp = fn::DecodeUtf8(s, &pos);
                        fn::AppendUtf8(start ? UpperCp(cp) : LowerCp(cp), out);
                        start = cp == ' ';
                      }
                      return true;
                    });
}

// ---- substring / left / right
// ----------------------------------------------------------

Result<BoundExprPtr> ResolveSubstring(const std::string& name,
                                      std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 3, "[2, 3]"));
  bool bytes = IsBinary(args[0]);
  if (!bytes) {
    SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  }
  for (size_t k = 1; k < args.size(); ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToIntArg(name, args, k));
  }
  DataTypePtr type =
      args[0]->type()->id() == TypeId::kBinary ? DataType::Binary() : DataType::String();
  return StringCall(
      name, args, type,
      [bytes](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
        int64_t pos = c[1]->raw_values<int32_t>()[i];
        int64_t len = c.size() > 2 ? c[2]->raw_values<int32_t>()[i] : INT32_MAX;
        out->append(fn::SubstringSql(c[0]->GetView(i), pos, len, bytes));
        return true;
      });
}

Result<BoundExprPtr> ResolveLeftRight(const std::string& name, bool left,
                                      std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  bool bytes = IsBinary(args[0]);
  if (!bytes) {
    SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  }
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg(name, args, 1));
  DataTypePtr type = bytes ? DataType::Binary() : DataType::String();
  return StringCall(
      name, args, type,
      [bytes, left](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
        int64_t len = c[1]->raw_values<int32_t>()[i];
        if (len <= 0) return true;
        std::string_view s = c[0]->GetView(i);
        out->append(left ? fn::SubstringSql(s, 1, len, bytes)
                         : fn::SubstringSql(s, -len, INT32_MAX, bytes));
        return true;
      },
      /*always_nullable=*/!left);  // Spark's right(): If(IsNull(str), NULL, ...)
}

// ---- trim / pad
// ------------------------------------------------------------------------

enum class TrimSide : uint8_t { kBoth, kLeft, kRight };

void Trim(std::string_view s, std::string_view chars, TrimSide side, bool default_space,
          std::string* out) {
  size_t b = 0, e = s.size();
  if (default_space) {
    if (side != TrimSide::kRight) {
      while (b < e && s[b] == ' ') ++b;
    }
    if (side != TrimSide::kLeft) {
      while (e > b && s[e - 1] == ' ') --e;
    }
    out->append(s.substr(b, e - b));
    return;
  }
  // Trim characters are code points of `chars`.
  std::vector<uint32_t> set;
  for (size_t p = 0; p < chars.size();) set.push_back(fn::DecodeUtf8(chars, &p));
  auto in_set = [&set](uint32_t cp) {
    return std::find(set.begin(), set.end(), cp) != set.end();
  };
  if (side != TrimSide::kRight) {
    while (b < e) {
      size_t p = b;
      if (!in_set(fn::DecodeUtf8(s, &p))) break;
      b = p;
    }
  }
  if (side != TrimSide::kLeft) {
    while (e > b) {
      size_t p = e - 1;
      while (p > b && (static_cast<unsigned char>(s[p]) & 0xC0) == 0x80) --p;
      size_t q = p;
      if (!in_set(fn::DecodeUtf8(s, &q))) break;
      e = p;
    }
  }
  out->append(s.substr(b, e - b));
}

Result<BoundExprPtr> ResolveTrim(const std::string& name, TrimSide side,
                                 std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 2, "[1, 2]"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings(name, std::move(args)));
  return StringCall(name, args, DataType::String(),
                    [side](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
                      bool def = c.size() == 1;
                      Trim(c[0]->GetView(i), def ? std::string_view() : c[1]->GetView(i),
                           side, def, out);
                      return true;
                    });
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

Result<BoundExprPtr> ResolvePad(const std::string& name, bool left,
                                std::vector<BoundExprPtr> args) {
  if (!args.empty() && IsBinary(args[0]) && (args.size() < 3 || IsBinary(args[2]))) {
    return ResolveBinaryPad(name, left, std::move(args));
  }
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 3, "[2, 3]"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg(name, args, 1));
  if (args.size() == 3) {
    SPATE_ASSIGN_OR_RETURN(args[2], fn::ToStringArg(name, args, 2));
  }
  return StringCall(name, args, DataType::String(),
                    [left](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
                      std::string_view s = c[0]->GetView(i);
                      int64_t len = c[1]->raw_values<int32_t>()[i];
                      std::string_view pad =
                          c.size() > 2 ? c[2]->GetView(i) : std::string_view(" ");
                      if (len <= 0) return true;
                      int64_t chars = fn::NumChars(s);
                      int64_t spaces = len - chars;
                      if (spaces <= 0 || pad.empty()) {
                        out->append(s.substr(0, fn::ByteOffsetOfChar(s, len)));
                        return true;
                      }
                      std::string fill;
                      int64_t pad_chars = fn::NumChars(pad);
                      int64_t full = spaces / pad_chars, rest = spaces % pad_chars;
                      for (int64_t k = 0; k < full; ++k) fill.append(pad);
                      fill.append(pad.substr(0, fn::ByteOffsetOfChar(pad, rest)));
                      if (left) {
                        out->append(fill);
                        out->append(s);
                      } else {
                        out->append(s);
                        out->append(fill);
                      }
                      return true;
                    });
}

// ---- search
// ----------------------------------------------------------------------------

Result<BoundExprPtr> ResolveReplace(std::vector<BoundExprPtr> args,
                                    const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("replace", args.size(), 2, 3, "[2, 3]"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings("replace", std::move(args)));
  return StringCall("replace", args, DataType::String(),
                    [](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
                      std::string_view s = c[0]->GetView(i), search = c[1]->GetView(i);
                      std::string_view rep =
                          c.size() > 2 ? c[2]->GetView(i) : std::string_view();
                      if (search.empty()) {
                        out->append(s);
                        return true;
                      }
                      size_t pos = 0;
                      for (;;) {
                        size_t f = s.find(search, pos);
                        if (f == std::string_view::npos) break;
                        out->append(s.substr(pos, f - pos));
                        out->append(rep);
                        pos = f + search.size();
                      }
                      out->append(s.substr(pos));
                      return true;
                    });
}

// 1-based code point position of `needle` in `s` at or after code point `start`
// (0-based); 0 when absent. An empty needle is found at 1 (Spark's UTF8String.indexOf).
int32_t IndexOfChars(std::string_view s, std::string_view needle, int64_t start) {
  if (needle.empty()) return 1;
  size_t b = fn::ByteOffsetOfChar(s, start);
  if (start > 0 && b >= s.size()) return 0;
  size_t f = s.find(needle, b);
  if (f == std::string_view::npos) return 0;
  return static_cast<int32_t>(fn::NumChars(s.substr(0, f)) + 1);
}

Result<BoundExprPtr> IntResultCall(
    const std::string& name, std::vector<BoundExprPtr> args,
    const std::function<int32_t(const std::vector<ColumnPtr>&, int64_t)>& body,
    bool nullable) {
  return MakeScalarCall(name, DataType::Int(), nullable, std::move(args),
                        [body](const std::vector<ColumnPtr>& c, int64_t n,
                               const EvalContext&) -> Result<ColumnPtr> {
                          std::vector<const Column*> cols;
                          for (const auto& col : c) cols.push_back(col.get());
                          NullMask mask(cols, n);
                          Out<int32_t> out(n);
                          for (int64_t i = 0; i < n; ++i) {
                            if (mask.Valid(i)) out.data[i] = body(c, i);
                          }
                          return kernel::MakeColumn(DataType::Int(), n, mask.null_count(),
                                                    mask.validity(), out.buf);
                        });
}

Result<BoundExprPtr> ResolveInstr(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("instr", args.size(), 2, 2, "2"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings("instr", std::move(args)));
  bool nullable = fn::AnyNullable(args);
  return IntResultCall(
      "instr", args,
      [](const std::vector<ColumnPtr>& c, int64_t i) {
        return IndexOfChars(c[0]->GetView(i), c[1]->GetView(i), 0);
      },
      nullable);
}

// locate(substr, str[, pos]): 0 when pos is NULL or < 1.
Result<BoundExprPtr> ResolveLocate(const std::string& name,
                                   std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 3, "[2, 3]"));
  for (size_t k = 0; k < 2; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg(name, args, k));
  }
  if (args.size() == 3) {
    SPATE_ASSIGN_OR_RETURN(args[2], fn::ToIntArg(name, args, 2));
  }
  bool nullable = args[0]->nullable() || args[1]->nullable();
  return MakeScalarCall(
      name, DataType::Int(), nullable, args,
      [](const std::vector<ColumnPtr>& c, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get(), c[1].get()}, n);
        Out<int32_t> out(n);
        for (int64_t i = 0; i < n; ++i) {
          int64_t start = 1;
          if (c.size() == 3) {
            if (c[2]->IsNull(i)) {
              out.data[i] = 0;
              if (!mask.Valid(i)) {
                // Spark: a NULL start gives 0 even when the strings are NULL.
                continue;
              }
              continue;
            }
            start = c[2]->raw_values<int32_t>()[i];
          }
          if (!mask.Valid(i)) continue;
          out.data[i] =
              start < 1 ? 0 : IndexOfChars(c[1]->GetView(i), c[0]->GetView(i), start - 1);
        }
        if (c.size() == 3 && c[2]->null_count() > 0) {
          // Rows with a NULL start are 0, never NULL.
          auto v = Buffer::Allocate(bits::BytesFor(n));
          int64_t nulls = 0;
          for (int64_t i = 0; i < n; ++i) {
            if (c[2]->IsNull(i) || mask.Valid(i)) {
              bits::Set(v->mutable_data(), i);
            } else {
              ++nulls;
            }
          }
          return kernel::MakeColumn(DataType::Int(), n, nulls, nulls ? v : nullptr,
                                    out.buf);
        }
        return kernel::MakeColumn(DataType::Int(), n, mask.null_count(), mask.validity(),
                                  out.buf);
      });
}

Result<BoundExprPtr> ResolveSplitPart(std::vector<BoundExprPtr> args,
                                      const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("split_part", args.size(), 3, 3, "3"));
  for (size_t k = 0; k < 2; ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg("split_part", args, k));
  }
  SPATE_ASSIGN_OR_RETURN(args[2], fn::ToIntArg("split_part", args, 2));
  return MakeScalarCall(
      "split_part", DataType::String(), fn::AnyNullable(args), args,
      [](const std::vector<ColumnPtr>& c, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        for (int64_t i = 0; i < n; ++i) {
          if (mask.Valid(i) && c[2]->raw_values<int32_t>()[i] == 0) {
            return Status::Error("INVALID_INDEX_OF_ZERO", {});
          }
        }
        std::vector<std::string_view> parts;
        return fn::MapToString(
            DataType::String(), mask, n, [&](int64_t i, std::string* out) {
              std::string_view s = c[0]->GetView(i), d = c[1]->GetView(i);
              int64_t k = c[2]->raw_values<int32_t>()[i];
              parts.clear();
              if (d.empty()) {
                parts.push_back(s);
              } else {
                size_t pos = 0;
                for (;;) {
                  size_t f = s.find(d, pos);
                  if (f == std::string_view::npos) break;
                  parts.push_back(s.substr(pos, f - pos));
                  pos = f + d.size();
                }
                parts.push_back(s.substr(pos));
              }
              int64_t idx = k > 0 ? k - 1 : static_cast<int64_t>(parts.size()) + k;
              if (idx >= 0 && idx < static_cast<int64_t>(parts.size()))
                out->append(parts[static_cast<size_t>(idx)]);
              return true;
            });
      });
}

Result<BoundExprPtr> ResolveStartsEnds(const std::string& name, int which,
                                       std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  if (!(IsBinary(args[0]) && IsBinary(args[1]))) {
    SPATE_ASSIGN_OR_RETURN(args, AllStrings(name, std::move(args)));
  }
  return MakeScalarCall(
      name, DataType::Boolean(), fn::AnyNullable(args), args,
      [which](const std::vector<ColumnPtr>& c, int64_t n,
              const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get(), c[1].get()}, n);
        auto out = Buffer::Allocate(bits::BytesFor(n));
        uint8_t* o = out->mutable_data();
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) continue;
          std::string_view s = c[0]->GetView(i), p = c[1]->GetView(i);
          bool r = which == 0 ? s.substr(0, p.size()) == p
                   : which == 1
                       ? (s.size() >= p.size() && s.substr(s.size() - p.size()) == p)
                       : s.find(p) != std::string_view::npos;
          if (r) bits::Set(o, i);
        }
        return kernel::MakeColumn(DataType::Boolean(), n, mask.null_count(),
                                  mask.validity(), out);
      });
}

// ---- repeat / reverse / translate
// ------------------------------------------------------

Result<BoundExprPtr> ResolveRepeat(std::vector<BoundExprPtr> args,
                                   const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("repeat", args.size(), 2, 2, "2"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg("repeat", args, 0));
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg("repeat", args, 1));
  return StringCall("repeat", args, DataType::String(),
                    [](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
                      std::string_view s = c[0]->GetView(i);
                      int64_t k = c[1]->raw_values<int32_t>()[i];
                      for (int64_t j = 0; j < k; ++j) out->append(s);
                      return true;
                    });
}

Result<BoundExprPtr> ResolveReverse(std::vector<BoundExprPtr> args,
                                    const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("reverse", args.size(), 1, 1, "1"));
  if (args[0]->type()->id() == TypeId::kArray) {
    return fn::UnexpectedType("reverse", args, 0,
                              "\"STRING\"");  // arrays: collection functions
  }
  SPATE_ASSIGN_OR_RETURN(args, AllStrings("reverse", std::move(args)));
  return StringCall("reverse", args, DataType::String(),
                    [](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
                      std::string_view s = c[0]->GetView(i);
                      size_t e = s.size();
                      while (e > 0) {
                        size_t b = e - 1;
                        while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80)
                          --b;
                        out->append(s.substr(b, e - b));
                        e = b;
                      }
                      return true;
                    });
}

Result<BoundExprPtr> ResolveTranslate(std::vector<BoundExprPtr> args,
                                      const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("translate", args.size(), 3, 3, "3"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings("translate", std::move(args)));
  return MakeScalarCall(
      "translate", DataType::String(), fn::AnyNullable(args), args,
      [](const std::vector<ColumnPtr>& c, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get(), c[1].get(), c[2].get()}, n);
        // Dictionary cached while the matching / replacement strings stay the same.
        std::string last_from, last_to;
        bool have = false;
        std::unordered_map<uint32_t, int64_t> dict;  // cp -> replacement cp, -1 = delete
        return fn::MapToString(
            DataType::String(), mask, n, [&](int64_t i, std::string* out) {
              std::string_view from = c[1]->GetView(i), to = c[2]->GetView(i);
              if (!have || from != last_from || to != last_to) {
                dict.clear();
                std::vector<uint32_t> tos;
                for (size_t p = 0; p < to.size();) tos.push_back(fn::DecodeUtf8(to, &p));
                size_t idx = 0;
                for (size_t p = 0; p < from.size(); ++idx) {
                  uint32_t cp = fn::DecodeUtf8(from, &p);
                  if (!dict.count(cp))
                    dict[cp] = idx < tos.size() ? static_cast<int64_t>(tos[idx]) : -1;
                }
                last_from.assign(from);
                last_to.assign(to);
                have = true;
              }
              std::string_view s = c[0]->GetView(i);
              for (size_t p = 0; p < s.size();) {
                size_t b = p;
                uint32_t cp = fn::DecodeUtf8(s, &p);
                auto it = dict.find(cp);
                if (it == dict.end()) {
                  out->append(s.substr(b, p - b));
                } else if (it->second >= 0) {
                  fn::AppendUtf8(static_cast<uint32_t>(it->second), out);
                }
              }
              return true;
            });
      });
}

// ---- ascii / chr
// -----------------------------------------------------------------------

Result<BoundExprPtr> ResolveAscii(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("ascii", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings("ascii", std::move(args)));
  bool nullable = args[0]->nullable();
  return IntResultCall(
      "ascii", args,
      [](const std::vector<ColumnPtr>& c, int64_t i) {
        std::string_view s = c[0]->GetView(i);
        if (s.empty()) return int32_t{0};
        size_t p = 0;
        return static_cast<int32_t>(fn::DecodeUtf8(s, &p));
      },
      nullable);
}

Result<BoundExprPtr> ResolveChr(const std::string& name, std::vector<BoundExprPtr> args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0],
                         fn::ToTypeArg(name, args, 0, DataType::Long(), "\"BIGINT\""));
  return StringCall(name, args, DataType::String(),
                    [](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
                      int64_t v = c[0]->raw_values<int64_t>()[i];
                      if (v < 0) return true;
                      uint32_t cp = static_cast<uint32_t>(v & 0xFF);
                      if (cp == 0) {
                        out->push_back('\0');
                      } else {
                        fn::AppendUtf8(cp, out);
                      }
                      return true;
                    });
}

// ---- binary encodings
// ------------------------------------------------------------------

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

Result<BoundExprPtr> BinaryArg(const std::string& name, std::vector<BoundExprPtr>& args,
                               size_t k) {
  if (IsBinary(args[k])) return args[k];
  const DataType& t = *args[k]->type();
  if (t.id() == TypeId::kString || t.id() == TypeId::kNull)
    return ImplicitCast(args[k], DataType::Binary());
  return fn::UnexpectedType(name, args, k, "\"BINARY\"");
}

Result<BoundExprPtr> ResolveBase64(std::vector<BoundExprPtr> args,
                                   const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("base64", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], BinaryArg("base64", args, 0));
  return StringCall(
      "base64", args, DataType::String(),
      [](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
        std::string_view s = c[0]->GetView(i);
        size_t k = 0;
        for (; k + 3 <= s.size(); k += 3) {
          uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(s[k])) << 16 |
                       static_cast<uint32_t>(static_cast<unsigned char>(s[k + 1])) << 8 |
                       static_cast<unsigned char>(s[k + 2]);
          out->push_back(kB64[v >> 18]);
          out->push_back(kB64[(v >> 12) & 63]);
          out->push_back(kB64[(v >> 6) & 63]);
          out->push_back(kB64[v & 63]);
        }
        size_t rest = s.size() - k;
        if (rest) {
          uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(s[k])) << 16;
          if (rest == 2)
            v |= static_cast<uint32_t>(static_cast<unsigned char>(s[k + 1])) << 8;
          out->push_back(kB64[v >> 18]);
          out->push_back(kB64[(v >> 12) & 63]);
          out->push_back(rest == 2 ? kB64[(v >> 6) & 63] : '=');
          out->push_back('=');
        }
        return true;
      });
}

Result<BoundExprPtr> ResolveUnbase64(std::vector<BoundExprPtr> args,
                                     const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("unbase64", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings("unbase64", std::move(args)));
  return StringCall("unbase64", args, DataType::Binary(),
                    [](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
                      // MIME decoding: characters outside the alphabet are ignored; '='
                      // ends the data.
                      std::string_view s = c[0]->GetView(i);
                      uint32_t acc = 0;
                      int bits_in = 0;
                      for (char ch : s) {
                        if (ch == '=') break;
                        int v = fn::Base64DigitValue(ch);
                        if (v < 0) continue;
                        acc = (acc << 6) | static_cast<uint32_t>(v);
                        bits_in += 6;
                        if (bits_in >= 8) {
                          bits_in -= 8;
                          out->push_back(static_cast<char>((acc >> bits_in) & 0xFF));
                        }
                      }
                      return true;
                    });
}

Result<BoundExprPtr> ResolveHex(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("hex", args.size(), 1, 1, "1"));
  const DataType& t = *args[0]->type();
  bool integral = t.IsIntegral() || t.IsFloating() || t.id() == TypeId::kDecimal;
  if (integral) {
    SPATE_ASSIGN_OR_RETURN(args[0],
                           fn::ToTypeArg("hex", args, 0, DataType::Long(),
                                         "(\"BIGINT\" or \"BINARY\" or \"STRING\")"));
  } else if (!IsBinary(args[0])) {
    SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg("hex", args, 0));
  }
  return StringCall(
      "hex", args, DataType::String(),
      [integral](const std::vector<ColumnPtr>& c, int64_t i, std::string* out) {
        static const char kHex[] = "0123456789ABCDEF";
        if (integral) {
          uint64_t v = static_cast<uint64_t>(c[0]->raw_values<int64_t>()[i]);
          char buf[17];
          int p = 16;
          do {
            buf[--p] = kHex[v & 15];
            v >>= 4;
          } while (v);
          out->append(buf + p, static_cast<size_t>(16 - p));
          return true;
        }
        for (unsigned char ch : c[0]->GetView(i)) {
          out->push_back(kHex[ch >> 4]);
          out->push_back(kHex[ch & 15]);
        }
        return true;
      });
}

Result<BoundExprPtr> ResolveUnhex(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("unhex", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args, AllStrings("unhex", std::move(args)));
  return MakeScalarCall("unhex", DataType::Binary(), true, args,
                        [](const std::vector<ColumnPtr>& c, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          NullMask mask({c[0].get()}, n);
                          return fn::MapToString(DataType::Binary(), mask, n,
                                                 [&](int64_t i, std::string* out) {
                                                   return fn::UnhexInto(c[0]->GetView(i),
                                                                        out);
                                                 });
                        });
}

// ---- digests
// ---------------------------------------------------------------------------

Result<BoundExprPtr> ResolveDigest(const std::string& name,
                                   std::vector<BoundExprPtr> args) {
  bool is_sha2 = name == "sha2";
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), is_sha2 ? 2 : 1, is_sha2 ? 2 : 1,
                                      is_sha2 ? "2" : "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], BinaryArg(name, args, 0));
  if (is_sha2) {
    SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg(name, args, 1));
  }
  // md5/sha1 are NULL only for a NULL input; sha2 also for an unsupported bit length.
  return MakeScalarCall(name, DataType::String(), is_sha2 || fn::AnyNullable(args), args,
                        [name](const std::vector<ColumnPtr>& c, int64_t n,
                               const EvalContext&) -> Result<ColumnPtr> {
                          std::vector<const Column*> cols;
                          for (const auto& col : c) cols.push_back(col.get());
                          NullMask mask(cols, n);
                          EVP_MD_CTX* md = EVP_MD_CTX_new();
                          auto r = fn::MapToString(
                              DataType::String(), mask, n,
                              [&](int64_t i, std::string* out) {
                                const EVP_MD* algo;
                                if (name == "md5") {
                                  algo = EVP_md5();
                                } else if (name == "sha1" || name == "sha") {
                                  algo = EVP_sha1();
                                } else {
                                  switch (c[1]->raw_values<int32_t>()[i]) {
                                    case 224:
                                      algo = EVP_sha224();
                                      break;
                                    case 0:
                                    case 256:
                                      algo = EVP_sha256();
                                      break;
                                    case 384:
                                      algo = EVP_sha384();
                                      break;
                                    case 512:
                                      algo = EVP_sha512();
                                      break;
                                    default:
                                      return false;
                                  }
                                }
                                std::string_view s = c[0]->GetView(i);
                                unsigned char digest[EVP_MAX_MD_SIZE];
                                unsigned int len = 0;
                                EVP_DigestInit_ex(md, algo, nullptr);
                                EVP_DigestUpdate(md, s.data(), s.size());
                                EVP_DigestFinal_ex(md, digest, &len);
                                static const char kHex[] = "0123456789abcdef";
                                for (unsigned int k = 0; k < len; ++k) {
                                  out->push_back(kHex[digest[k] >> 4]);
                                  out->push_back(kHex[digest[k] & 15]);
                                }
                                return true;
                              });
                          EVP_MD_CTX_free(md);
                          return r;
                        });
}

uint32_t Crc32(std::string_view s) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t k = 0; k < 256; ++k) {
      uint32_t c = k;
      for (int j = 0; j < 8; ++j) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[k] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char ch : s) crc = table[(crc ^ ch) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

Result<BoundExprPtr> ResolveCrc32(std::vector<BoundExprPtr> args, const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("crc32", args.size(), 1, 1, "1"));
  SPATE_ASSIGN_OR_RETURN(args[0], BinaryArg("crc32", args, 0));
  return MakeScalarCall("crc32", DataType::Long(), args[0]->nullable(), args,
                        [](const std::vector<ColumnPtr>& c, int64_t n,
                           const EvalContext&) -> Result<ColumnPtr> {
                          Out<int64_t> out(n);
                          const Column& a = *c[0];
                          if (a.type_id() != TypeId::kNull) {
                            for (int64_t i = 0; i < n; ++i)
                              out.data[i] = Crc32(a.GetView(i));
                          }
                          return kernel::MakeColumn(DataType::Long(), n, a.null_count(),
                                                    a.validity(), out.buf);
                        });
}

// ---- format_number
// ---------------------------------------------------------------------

// |value| = digits * 10^-scale, rounded HALF_EVEN to `d` fraction digits: the integer
// digits (no leading zeros, "" for zero) and exactly `d` fraction digits.
void RoundHalfEven(std::string digits, int64_t scale, int d, std::string* int_part,
                   std::string* frac) {
  if (scale < 0) {
    digits.append(static_cast<size_t>(-scale), '0');
    scale = 0;
  }
  if (scale > d) {
    size_t drop = static_cast<size_t>(scale - d);
    if (drop > digits.size()) digits.insert(0, drop - digits.size(), '0');
    std::string keep = digits.substr(0, digits.size() - drop);
    std::string_view gone(digits.data() + keep.size(), drop);
    bool up = false;
    if (gone[0] > '5') {
      up = true;
    } else if (gone[0] == '5') {
      bool rest = gone.find_first_not_of('0', 1) != std::string_view::npos;
      bool odd = !keep.empty() && ((keep.back() - '0') % 2 == 1);
      up = rest || odd;
    }
    if (up) {
      int k = static_cast<int>(keep.size()) - 1;
      while (k >= 0 && keep[static_cast<size_t>(k)] == '9')
        keep[static_cast<size_t>(k--)] = '0';
      if (k < 0) {
        keep.insert(keep.begin(), '1');
      } else {
        keep[static_cast<size_t>(k)]++;
      }
    }
    digits = keep;
    scale = d;
  }
  if (scale < d) {
    digits.append(static_cast<size_t>(d - scale), '0');
    scale = d;
  }
  if (static_cast<int64_t>(digits.size()) <= scale) {
    digits.insert(0, static_cast<size_t>(scale - static_cast<int64_t>(digits.size()) + 1),
                  '0');
  }
  *int_part = digits.substr(0, digits.size() - static_cast<size_t>(scale));
  *frac = digits.substr(digits.size() - static_cast<size_t>(scale));
  size_t nz = int_part->find_first_not_of('0');
  *int_part = nz == std::string::npos ? "" : int_part->substr(nz);
}

// The subset of java.text.DecimalFormat patterns format_number accepts: literal prefix
// and suffix, '#' / '0' integer digits with ',' grouping, '.' and '0' / '#' fraction
// digits, a trailing '%' (times 100). The default (d as a number) is "#,##0.00...".
struct NumberPattern {
  std::string prefix, suffix;
  int min_int = 1;
  int group = 3;  // 0 = no grouping
  int min_frac = 0, max_frac = 0;
  bool percent = false;
};

NumberPattern GroupedPattern(int d) {
  NumberPattern p;
  p.min_frac = p.max_frac = d;
  return p;
}

Result<NumberPattern> ParseNumberPattern(std::string_view pat) {
  NumberPattern p;
  if (pat.empty()) pat = "#,###,###,###,###,###,##0";
  size_t i = 0;
  auto is_num = [](char c) { return c == '#' || c == '0' || c == ',' || c == '.'; };
  while (i < pat.size() && !is_num(pat[i])) {
    if (pat[i] == '%') p.percent = true;
    if (pat[i] != '\'') p.prefix.push_back(pat[i]);
    ++i;
  }
  int ints = 0, zeros = 0;
  size_t last_comma = std::string_view::npos;
  bool seen_comma = false;
  while (i < pat.size() && (pat[i] == '#' || pat[i] == '0' || pat[i] == ',')) {
    if (pat[i] == ',') {
      last_comma = static_cast<size_t>(ints);
      seen_comma = true;
    } else {
      ++ints;
      if (pat[i] == '0') ++zeros;
    }
    ++i;
  }
  p.min_int = zeros;
  p.group = seen_comma ? ints - static_cast<int>(last_comma) : 0;
  if (i < pat.size() && pat[i] == '.') {
    ++i;
    while (i < pat.size() && (pat[i] == '0' || pat[i] == '#')) {
      if (pat[i] == '0') {
        if (p.max_frac != p.min_frac) {
          return Status::Error("INVALID_PARAMETER_VALUE.PATTERN",
                               {{"parameter", "`format`"},
                                {"functionName", "`format_number`"},
                                {"value", std::string(pat)}});
        }
        ++p.min_frac;
      }
      ++p.max_frac;
      ++i;
    }
  }
  while (i < pat.size()) {
    if (is_num(pat[i])) {
      return Status::Error("INVALID_PARAMETER_VALUE.PATTERN",
                           {{"parameter", "`format`"},
                            {"functionName", "`format_number`"},
                            {"value", std::string(pat)}});
    }
    if (pat[i] == '%') p.percent = true;
    if (pat[i] != '\'') p.suffix.push_back(pat[i]);
    ++i;
  }
  if (ints == 0 && p.max_frac == 0) p.min_int = 1;
  return p;
}

void FormatDigits(bool neg, std::string digits, int64_t scale, const NumberPattern& p,
                  std::string* out) {
  if (p.percent) scale -= 2;
  std::string int_part, frac;
  RoundHalfEven(std::move(digits), scale, p.max_frac, &int_part, &frac);
  while (static_cast<int>(frac.size()) > p.min_frac && frac.back() == '0')
    frac.pop_back();
  if (static_cast<int>(int_part.size()) < p.min_int) {
    int_part.insert(0, static_cast<size_t>(p.min_int - static_cast<int>(int_part.size())),
                    '0');
  }
  if (int_part.empty() && frac.empty()) int_part = "0";  // DecimalFormat shows one digit
  if (neg) out->push_back('-');  // as Java: -0.001 with "0.00" is "-0.00"
  out->append(p.prefix);
  for (size_t k = 0; k < int_part.size(); ++k) {
    if (p.group > 0 && k > 0 &&
        (int_part.size() - k) % static_cast<size_t>(p.group) == 0) {
      out->push_back(',');
    }
    out->push_back(int_part[k]);
  }
  if (!frac.empty()) {
    out->push_back('.');
    out->append(frac);
  }
  out->append(p.suffix);
}

// The digits of x[i] (no sign) and their scale; false for NaN / infinity, written to
// `out`.
bool NumberDigits(const Column& x, int64_t i, bool* neg, std::string* digits,
                  int64_t* scale, std::string* out) {
  TypeId id = x.type_id();
  if (id == TypeId::kDouble || id == TypeId::kFloat) {
    double v = id == TypeId::kDouble ? x.raw_values<double>()[i]
                                     : static_cast<double>(x.raw_values<float>()[i]);
    if (std::isnan(v)) {
      out->append("NaN");
      return false;
    }
    if (std::isinf(v)) {
      out->append(v < 0 ? "-\xE2\x88\x9E" : "\xE2\x88\x9E");
      return false;
    }
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
    std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
    *neg = s[0] == '-';
    if (*neg) s.remove_prefix(1);
    size_t e_pos = s.find('e');
    int exp10 = std::atoi(std::string(s.substr(e_pos + 1)).c_str());
    digits->clear();
    for (char ch : s.substr(0, e_pos)) {
      if (ch != '.') digits->push_back(ch);
    }
    *scale = static_cast<int64_t>(digits->size()) - 1 - exp10;
    return true;
  }
  __int128 v = id == TypeId::kDecimal ? x.raw_values<__int128>()[i]
               : id == TypeId::kLong  ? x.raw_values<int64_t>()[i]
               : id == TypeId::kInt   ? x.raw_values<int32_t>()[i]
               : id == TypeId::kShort ? x.raw_values<int16_t>()[i]
                                      : x.raw_values<int8_t>()[i];
  *neg = v < 0;
  unsigned __int128 u =
      *neg ? static_cast<unsigned __int128>(-v) : static_cast<unsigned __int128>(v);
  digits->clear();
  do {
    digits->insert(digits->begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u);
  *scale = id == TypeId::kDecimal ? x.type()->scale() : 0;
  return true;
}

// format_number(x, d): "#,##0" with d fraction digits (NULL for d < 0);
// format_number(x, 'pattern'): a DecimalFormat pattern ('' =
// "#,###,###,###,###,###,##0").
Result<BoundExprPtr> ResolveFormatNumber(std::vector<BoundExprPtr> args,
                                         const ResolveContext&) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs("format_number", args.size(), 2, 2, "2"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToNumericArg("format_number", args, 0));
  const bool pattern = args[1]->type()->id() == TypeId::kString;
  if (!pattern) {
    SPATE_ASSIGN_OR_RETURN(args[1], fn::ToIntArg("format_number", args, 1));
  }
  return MakeScalarCall("format_number", DataType::String(), true, args,
                        [pattern](const std::vector<ColumnPtr>& c, int64_t n,
                                  const EvalContext&) -> Result<ColumnPtr> {
                          NullMask mask({c[0].get(), c[1].get()}, n);
                          const Column& x = *c[0];
                          std::string cached_text;
                          NumberPattern cached;
                          bool have = false;
                          Status error;
                          std::string digits;
                          auto result = fn::MapToString(
                              DataType::String(), mask, n,
                              [&](int64_t i, std::string* out) {
                                NumberPattern p;
                                if (pattern) {
                                  std::string_view text = c[1]->GetView(i);
                                  if (!have || text != cached_text) {
                                    auto parsed = ParseNumberPattern(text);
                                    if (!parsed.ok()) {
                                      error = parsed.status();
                                      return false;
                                    }
                                    cached = *parsed;
                                    cached_text = std::string(text);
                                    have = true;
                                  }
                                  p = cached;
                                } else {
                                  int d = c[1]->raw_values<int32_t>()[i];
                                  if (d < 0) return false;
                                  p = GroupedPattern(d);
                                }
                                bool neg = false;
                                int64_t scale = 0;
                                if (NumberDigits(x, i, &neg, &digits, &scale, out))
                                  FormatDigits(neg, digits, scale, p, out);
                                return true;
                              });
                          if (!error.ok()) return error;
                          return result;
                        });
}

// ---- format_string / printf (java.util.Formatter subset) ------------------------------

std::string JavaString(const Value& v) {
  if (v.is_null()) return "null";
  switch (v.type()->id()) {
    case TypeId::kString:
      return v.str();
    case TypeId::kDouble:
      return FormatDouble(v.f64());
    case TypeId::kFloat:
      return FormatFloat(static_cast<float>(v.f64()));
    default:
      return v.ToString();
  }
}

Status FormatError(const std::string& msg) {
  return Status::Error(
      "INVALID_PARAMETER_VALUE.PATTERN",
      {{"parameter", "`strfmt`"}, {"functionName", "`format_string`"}, {"value", msg}});
}

Result<bool> JavaFormat(std::string_view fmt, const std::vector<ColumnPtr>& c,
                        int64_t row, std::string* out) {
  size_t next_arg = 1;
  size_t p = 0;
  while (p < fmt.size()) {
    char ch = fmt[p];
    if (ch != '%') {
      out->push_back(ch);
      ++p;
      continue;
    }
    ++p;
    // %[index$][flags][width][.precision]conv
    size_t start = p;
    int index = -1;
    size_t q = p;
    while (q < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[q]))) ++q;
    if (q < fmt.size() && fmt[q] == '$' && q > p) {
      index = std::atoi(std::string(fmt.substr(p, q - p)).c_str());
      p = q + 1;
    } else if (p < fmt.size() && fmt[p] == '<') {
      index = static_cast<int>(next_arg) - 1;
      ++p;
    }
    std::string flags;
    while (p < fmt.size() && std::strchr("-#+ 0,(", fmt[p])) flags.push_back(fmt[p++]);
    int width = -1, precision = -1;
    q = p;
    while (p < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[p]))) ++p;
    if (p > q) width = std::atoi(std::string(fmt.substr(q, p - q)).c_str());
    if (p < fmt.size() && fmt[p] == '.') {
      q = ++p;
      while (p < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[p]))) ++p;
      precision = std::atoi(std::string(fmt.substr(q, p - q)).c_str());
    }
    if (p >= fmt.size())
      return FormatError("Format specifier '%" + std::string(fmt.substr(start)) + "'");
    char conv = fmt[p++];
    if (conv == '%') {
      out->push_back('%');
      continue;
    }
    if (conv == 'n') {
      out->push_back('\n');
      continue;
    }
    size_t arg;
    if (index > 0) {
      arg = static_cast<size_t>(index);
    } else if (index == 0) {
      return FormatError("Illegal format argument index = 0");
    } else {
      arg = next_arg++;
    }
    if (arg >= c.size())
      return FormatError("Format specifier '%" +
                         std::string(fmt.substr(start, p - start)) + "'");
    Value v = c[arg]->GetValue(row);
    std::string body;
    bool upper = std::isupper(static_cast<unsigned char>(conv)) && conv != 'X' &&
                 conv != 'E' && conv != 'G';
    char lc = static_cast<char>(std::tolower(static_cast<unsigned char>(conv)));
    bool numeric_conv =
        lc == 'd' || lc == 'x' || lc == 'o' || lc == 'f' || lc == 'e' || lc == 'g';
    if (v.is_null() && numeric_conv) {
      body = "null";
    } else {
      switch (lc) {
        case 's':
          body = JavaString(v);
          break;
        case 'b':
          body = v.is_null()
                     ? "false"
                     : (v.type()->id() == TypeId::kBoolean ? (v.i64() ? "true" : "false")
                                                           : "true");
          break;
        case 'c': {
          if (v.type()->IsIntegral()) {
            fn::AppendUtf8(static_cast<uint32_t>(v.i64()), &body);
          } else {
            body = JavaString(v).substr(0, 1);
          }
          break;
        }
        case 'd': {
          if (!v.type()->IsIntegral())
            return FormatError("d != " + v.type()->SimpleString());
          __int128 iv = v.i64();
          std::string digits =
              std::to_string(static_cast<unsigned long long>(iv < 0 ? -iv : iv));
          if (flags.find(',') != std::string::npos) {
            std::string g;
            for (size_t k = 0; k < digits.size(); ++k) {
              if (k > 0 && (digits.size() - k) % 3 == 0) g.push_back(',');
              g.push_back(digits[k]);
            }
            digits = g;
          }
          bool neg = v.i64() < 0;
          std::string sign = neg ? (flags.find('(') != std::string::npos ? "(" : "-")
                             : flags.find('+') != std::string::npos ? "+"
                             : flags.find(' ') != std::string::npos ? " "
                                                                    : "";
          std::string tail = neg && flags.find('(') != std::string::npos ? ")" : "";
          if (flags.find('0') != std::string::npos && width > 0) {
            while (static_cast<int>(sign.size() + digits.size() + tail.size()) < width)
              digits.insert(digits.begin(), '0');
          }
          body = sign + digits + tail;
          break;
        }
        case 'x':
        case 'o': {
          if (!v.type()->IsIntegral())
            return FormatError(std::string(1, conv) + " != " + v.type()->SimpleString());
          uint64_t u = static_cast<uint64_t>(v.i64());
          switch (v.type()->id()) {
            case TypeId::kByte:
              u &= 0xFF;
              break;
            case TypeId::kShort:
              u &= 0xFFFF;
              break;
            case TypeId::kInt:
              u &= 0xFFFFFFFFu;
              break;
            default:
              break;
          }
          char buf[32];
          std::snprintf(buf, sizeof(buf),
                        lc == 'x' ? (conv == 'X' ? "%llX" : "%llx") : "%llo",
                        static_cast<unsigned long long>(u));
          body = buf;
          if (flags.find('#') != std::string::npos)
            body = (lc == 'x' ? (conv == 'X' ? "0X" : "0x") : "0") + body;
          if (flags.find('0') != std::string::npos && width > 0) {
            while (static_cast<int>(body.size()) < width) body.insert(body.begin(), '0');
          }
          break;
        }
        case 'f':
        case 'e':
        case 'g': {
          double d;
          TypeId id = v.type()->id();
          if (id == TypeId::kDouble || id == TypeId::kFloat) {
            d = v.f64();
          } else if (id == TypeId::kDecimal) {
            d = std::strtod(FormatDecimal(v.i128(), v.type()->scale()).c_str(), nullptr);
          } else {
            return FormatError(std::string(1, conv) + " != " + v.type()->SimpleString());
          }
          if (std::isnan(d) || std::isinf(d)) {
            body = std::isnan(d)
                       ? "NaN"
                       : (d < 0 ? "-Infinity"
                                : (flags.find('+') != std::string::npos ? "+Infinity"
                                                                        : "Infinity"));
            break;
          }
          std::string spec = "%";
          for (char f : flags) {
            if (f != ',' && f != '(') spec.push_back(f);
          }
          if (width > 0) spec += std::to_string(width);
          spec += "." + std::to_string(precision < 0 ? 6 : precision);
          spec.push_back(conv);
          char buf[512];
          std::snprintf(buf, sizeof(buf), spec.c_str(), d);
          body = buf;
          if (flags.find(',') != std::string::npos && lc == 'f') {
            size_t b = body.find_first_of("0123456789");
            size_t e = body.find_first_not_of("0123456789", b);
            if (e == std::string::npos) e = body.size();
            std::string ip = body.substr(b, e - b), g;
            for (size_t k = 0; k < ip.size(); ++k) {
              if (k > 0 && (ip.size() - k) % 3 == 0) g.push_back(',');
              g.push_back(ip[k]);
            }
            body = body.substr(0, b) + g + body.substr(e);
          }
          break;
        }
        default:
          return FormatError("Conversion = '" + std::string(1, conv) + "'");
      }
    }
    if (precision >= 0 && (lc == 's' || lc == 'b')) {
      body = body.substr(0, fn::ByteOffsetOfChar(body, precision));
    }
    if (upper) {
      std::string u;
      MapCase(body, true, &u);
      body = u;
    }
    int64_t chars = fn::NumChars(body);
    if (width > chars) {
      std::string pad(static_cast<size_t>(width - chars), ' ');
      body = flags.find('-') != std::string::npos ? body + pad : pad + body;
    }
    out->append(body);
  }
  return true;
}

Result<BoundExprPtr> ResolveFormatString(const std::string& name,
                                         std::vector<BoundExprPtr> args) {
  if (args.empty()) {
    return Status::Error(
        "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        {{"functionName", "`" + name + "`"}, {"expectedNum", "> 0"}, {"actualNum", "0"}});
  }
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  return MakeScalarCall(
      name, DataType::String(), args[0]->nullable(), args,
      [](const std::vector<ColumnPtr>& c, int64_t n,
         const EvalContext&) -> Result<ColumnPtr> {
        NullMask mask({c[0].get()}, n);
        StringBuilder sb(DataType::String(), n);
        std::string buf;
        for (int64_t i = 0; i < n; ++i) {
          if (!mask.Valid(i)) {
            sb.AppendNull();
            continue;
          }
          buf.clear();
          SPATE_RETURN_IF_ERROR(JavaFormat(c[0]->GetView(i), c, i, &buf).status());
          sb.Append(buf);
        }
        return sb.Finish();
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

}  // namespace

void RegisterStringFunctions(FunctionRegistry& r) {
  for (const char* name : {"concat", "||"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveConcat(name, std::move(a));
    });
  }
  r.RegisterScalar("concat_ws", ResolveConcatWs);
  for (const char* name : {"length", "char_length", "character_length", "len"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveLength(name, std::move(a));
    });
  }
  for (const char* name : {"upper", "ucase"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveCase(name, true, std::move(a));
    });
  }
  for (const char* name : {"lower", "lcase"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveCase(name, false, std::move(a));
    });
  }
  r.RegisterScalar("initcap", ResolveInitcap);
  for (const char* name : {"substring", "substr"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveSubstring(name, std::move(a));
    });
  }
  r.RegisterScalar("left", [](Args a, const ResolveContext&) {
    return ResolveLeftRight("left", true, std::move(a));
  });
  r.RegisterScalar("right", [](Args a, const ResolveContext&) {
    return ResolveLeftRight("right", false, std::move(a));
  });
  r.RegisterScalar("trim", [](Args a, const ResolveContext&) {
    return ResolveTrim("trim", TrimSide::kBoth, std::move(a));
  });
  r.RegisterScalar("btrim", [](Args a, const ResolveContext&) {
    return ResolveTrim("btrim", TrimSide::kBoth, std::move(a));
  });
  r.RegisterScalar("ltrim", [](Args a, const ResolveContext&) {
    return ResolveTrim("ltrim", TrimSide::kLeft, std::move(a));
  });
  r.RegisterScalar("rtrim", [](Args a, const ResolveContext&) {
    return ResolveTrim("rtrim", TrimSide::kRight, std::move(a));
  });
  r.RegisterScalar("lpad", [](Args a, const ResolveContext&) {
    return ResolvePad("lpad", true, std::move(a));
  });
  r.RegisterScalar("rpad", [](Args a, const ResolveContext&) {
    return ResolvePad("rpad", false, std::move(a));
  });
  r.RegisterScalar("replace", ResolveReplace);
  r.RegisterScalar("instr", ResolveInstr);
  for (const char* name : {"locate", "position"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveLocate(name, std::move(a));
    });
  }
  r.RegisterScalar("split_part", ResolveSplitPart);
  r.RegisterScalar("startswith", [](Args a, const ResolveContext&) {
    return ResolveStartsEnds("startswith", 0, std::move(a));
  });
  r.RegisterScalar("endswith", [](Args a, const ResolveContext&) {
    return ResolveStartsEnds("endswith", 1, std::move(a));
  });
  r.RegisterScalar("contains", [](Args a, const ResolveContext&) {
    return ResolveStartsEnds("contains", 2, std::move(a));
  });
  r.RegisterScalar("repeat", ResolveRepeat);
  r.RegisterScalar("reverse", ResolveReverse);
  r.RegisterScalar("translate", ResolveTranslate);
  r.RegisterScalar("ascii", ResolveAscii);
  for (const char* name : {"chr", "char"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveChr(name, std::move(a));
    });
  }
  r.RegisterScalar("base64", ResolveBase64);
  r.RegisterScalar("unbase64", ResolveUnbase64);
  r.RegisterScalar("hex", ResolveHex);
  r.RegisterScalar("unhex", ResolveUnhex);
  for (const char* name : {"md5", "sha1", "sha", "sha2"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveDigest(name, std::move(a));
    });
  }
  r.RegisterScalar("crc32", ResolveCrc32);
  r.RegisterScalar("format_number", ResolveFormatNumber);
  for (const char* name : {"format_string", "printf"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext&) {
      return ResolveFormatString(name, std::move(a));
    });
  }
  r.RegisterScalar("levenshtein", ResolveLevenshtein);
  r.RegisterScalar("soundex", [](Args a, const ResolveContext&) {
    return fn::ResolveStringUnary("soundex", std::move(a), Soundex);
  });
  r.RegisterScalar("quote", [](Args a, const ResolveContext&) {
    return fn::ResolveStringUnary("quote", std::move(a), Quote, true);
  });
  r.RegisterScalar("octet_length", [](Args a, const ResolveContext&) {
    return ResolveLengthIn("octet_length", 1, std::move(a));
  });
  r.RegisterScalar("bit_length", [](Args a, const ResolveContext&) {
    return ResolveLengthIn("bit_length", 8, std::move(a));
  });
  r.RegisterScalar("space", ResolveSpace);
  r.RegisterScalar("find_in_set", ResolveFindInSet);
  r.RegisterScalar("substring_index", ResolveSubstringIndex);
  r.RegisterScalar("luhn_check", ResolveLuhnCheck);
  r.RegisterScalar("elt", ResolveElt);
  r.RegisterScalar("overlay", ResolveOverlay);
}

}  // namespace spate
