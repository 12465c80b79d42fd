// Copyright spate authors.
// Character sets: encode / decode between strings and bytes in Java's charsets (US-ASCII,
// ISO-8859-1, UTF-8, UTF-16, UTF-16BE, UTF-16LE, UTF-32) with Spark's errors, UTF-8
// validation (is_valid_utf8 make_valid_utf8 validate_utf8 try_validate_utf8, ill-formed
// sequences replaced as Java's decoder does), and decode's other form,
// decode(expr, search, result, ..., default), which shares the name.

#include <cctype>
#include <string>
#include <utility>

#include "spate/columnar/builder.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/predicates.h"
#include "spate/compute/string_kernels.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

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

}  // namespace

void RegisterCharsetFunctions(FunctionRegistry& r) {
  r.RegisterScalar("encode", [](Args a, const ResolveContext&) {
    return ResolveEncodeDecode("encode", true, std::move(a));
  });
  r.RegisterScalar("decode",
                   [](const Args& a, const ResolveContext& rc) -> Result<BoundExprPtr> {
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
    r.RegisterScalar(d.name, [d](const Args& a, const ResolveContext&) {
      return ResolveUtf8(d.name, d.kind, a);
    });
  }
}

}  // namespace spate
