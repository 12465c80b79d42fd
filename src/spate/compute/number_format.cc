// Copyright spate authors.
// Spark's number-format patterns and the binary formats: to_number / try_to_number (a
// string to a DECIMAL by a pattern such as '$99,999.99PR'), to_char / to_varchar (a
// number by the same pattern; a date or timestamp by a datetime pattern as date_format; a
// binary value as 'hex', 'base64' or 'utf-8'), to_binary / try_to_binary ('hex', 'utf-8',
// 'utf8', 'base64').
//
// A pattern is `[MI|S] [$] [0|9|G|,]* [.|D] [0|9]* [$] [PR|MI|S]` (case-insensitive; PR
// wraps a negative number in angle brackets). Its digits give the DECIMAL type: precision
// = every 0 and 9, scale = those after the decimal point. Behaviour observed in Spark 4.2
// and pinned in tests/differential/cases/functions_format.py.

#include <algorithm>
#include <cctype>

#include "spate/columnar/builder.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/string_kernels.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

// ---- the pattern
// -----------------------------------------------------------------------

enum class Tok : uint8_t {
  kDigits,
  kPoint,
  kDollar,
  kSign,
  kMinus,
  kOpen,
  kClose,
  kInvalid
};

struct Token {
  Tok kind;
  std::string digits;  // kDigits: '0', '9' and ',' (G is stored as ',')
  char invalid = 0;    // kInvalid: the character
  bool operator==(const Token& o) const { return kind == o.kind; }
};

// A parsed and validated pattern.
struct NumberFormat {
  std::string text;  // upper-cased, as Spark's messages show it
  std::vector<Token> tokens;
  int precision = 0, scale = 0;
  int before = -1;  // index of the digit group before the decimal point (-1: none)
  int after = -1;   // index of the digit group after it
  bool has_point = false;
  // Digits of the before group, right to left, split at separators: {3, 2} for "99,999".
  std::vector<int> groups;
  bool leading_zero = false;  // the before group starts with '0'
  int before_digits = 0, after_digits = 0;
};

std::string TokenName(const Token& t) {
  switch (t.kind) {
    case Tok::kDigits:
      return "digit sequence";
    case Tok::kPoint:
      return ". or D";
    case Tok::kDollar:
      return "$";
    case Tok::kSign:
      return "S";
    case Tok::kMinus:
      return "MI";
    case Tok::kOpen:
    case Tok::kClose:
      return "PR";
    case Tok::kInvalid:
      break;
  }
  return std::string("character '") + t.invalid + "''";
}

Status FormatError(const std::string& cls, const std::string& text,
                   const std::string& token = "") {
  std::vector<ErrorParam> params{{"format", "'" + text + "'"}};
  if (!token.empty()) params.push_back({"token", token});
  return Status::Error(cls, params);
}

Result<NumberFormat> ParseNumberFormat(std::string_view pattern) {
  NumberFormat f;
  for (char c : pattern)
    f.text.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  const std::string& s = f.text;
  if (s.empty()) return FormatError("INVALID_FORMAT.EMPTY", s);
  bool pr = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '0' || c == '9' || c == ',' || c == 'G') {
      if (f.tokens.empty() || f.tokens.back().kind != Tok::kDigits)
        f.tokens.push_back({Tok::kDigits, "", 0});
      f.tokens.back().digits.push_back(c == 'G' ? ',' : c);
    } else if (c == '.' || c == 'D') {
      f.tokens.push_back({Tok::kPoint, "", 0});
    } else if (c == '$') {
      f.tokens.push_back({Tok::kDollar, "", 0});
    } else if (c == 'S') {
      f.tokens.push_back({Tok::kSign, "", 0});
    } else if (c == 'M' && i + 1 < s.size() && s[i + 1] == 'I') {
      f.tokens.push_back({Tok::kMinus, "", 0});
      ++i;
    } else if (c == 'P' && i + 1 < s.size() && s[i + 1] == 'R') {
      f.tokens.push_back({Tok::kClose, "", 0});
      pr = true;
      ++i;
    } else {
      f.tokens.push_back({Tok::kInvalid, "", c});
    }
  }
  // PR's opening bracket belongs before everything (Spark prepends the token).
  if (pr) f.tokens.insert(f.tokens.begin(), Token{Tok::kOpen, "", 0});
  auto count = [&](Tok k) {
    return std::count_if(f.tokens.begin(), f.tokens.end(),
                         [k](const Token& t) { return t.kind == k; });
  };
  auto first = [&](Tok k) -> int {
    for (size_t i = 0; i < f.tokens.size(); ++i) {
      if (f.tokens[i].kind == k) return static_cast<int>(i);
    }
    return -1;
  };
  const int first_digit = first(Tok::kDigits), first_dollar = first(Tok::kDollar),
            point = first(Tok::kPoint);
  if (first_digit < 0) return FormatError("INVALID_FORMAT.WRONG_NUM_DIGIT", s);
  if (count(Tok::kPoint) > 1)
    return FormatError("INVALID_FORMAT.WRONG_NUM_TOKEN", s, ". or D");
  if (count(Tok::kSign) > 1) return FormatError("INVALID_FORMAT.WRONG_NUM_TOKEN", s, "S");
  if (count(Tok::kDollar) > 1)
    return FormatError("INVALID_FORMAT.WRONG_NUM_TOKEN", s, "$");
  if (count(Tok::kMinus) > 1)
    return FormatError("INVALID_FORMAT.WRONG_NUM_TOKEN", s, "MI");
  if (count(Tok::kClose) > 1 ||
      (count(Tok::kClose) == 1 && f.tokens.back().kind != Tok::kClose)) {
    if (count(Tok::kClose) > 1)
      return FormatError("INVALID_FORMAT.WRONG_NUM_TOKEN", s, "PR");
  }
  if (first_digit < first_dollar)
    return FormatError("INVALID_FORMAT.CUR_MUST_BEFORE_DIGIT", s);
  if (point >= 0 && point < first_dollar)
    return FormatError("INVALID_FORMAT.CUR_MUST_BEFORE_DEC", s);
  for (size_t i = 0; i < f.tokens.size(); ++i) {
    const Token& t = f.tokens[i];
    if (t.kind != Tok::kDigits) continue;
    const std::string& d = t.digits;
    if (point < 0 || static_cast<int>(i) < point) {
      if (d.front() == ',' || d.back() == ',' || d.find(",,") != std::string::npos) {
        return FormatError("INVALID_FORMAT.CONT_THOUSANDS_SEPS", s);
      }
    } else if (d.find(',') != std::string::npos) {
      return FormatError("INVALID_FORMAT.THOUSANDS_SEPS_MUST_BEFORE_DEC", s);
    }
  }
  // The order: [PR-open] [MI|S] [$] [digits] [.] [digits] [$] [PR-close|MI|S].
  static const std::vector<std::vector<Tok>> kSlots = {
      {Tok::kOpen},   {Tok::kMinus, Tok::kSign},
      {Tok::kDollar}, {Tok::kDigits},
      {Tok::kPoint},  {Tok::kDigits},
      {Tok::kDollar}, {Tok::kMinus, Tok::kSign, Tok::kClose}};
  size_t k = 0;
  for (const auto& slot : kSlots) {
    if (k < f.tokens.size() &&
        std::find(slot.begin(), slot.end(), f.tokens[k].kind) != slot.end())
      ++k;
  }
  if (k < f.tokens.size())
    return FormatError("INVALID_FORMAT.UNEXPECTED_TOKEN", s, TokenName(f.tokens[k]));
  // Digit groups relative to the decimal point.
  f.has_point = point >= 0;
  for (size_t i = 0; i < f.tokens.size(); ++i) {
    if (f.tokens[i].kind != Tok::kDigits) continue;
    if (point < 0 || static_cast<int>(i) < point) {
      f.before = static_cast<int>(i);
    } else {
      f.after = static_cast<int>(i);
    }
  }
  if (f.before >= 0) {
    const std::string& d = f.tokens[static_cast<size_t>(f.before)].digits;
    f.leading_zero = d.front() == '0';
    int run = 0;
    for (auto it = d.rbegin(); it != d.rend(); ++it) {
      if (*it == ',') {
        f.groups.push_back(run);
        run = 0;
      } else {
        ++run;
        ++f.before_digits;
      }
    }
    f.groups.push_back(run);
  }
  if (f.after >= 0)
    f.after_digits =
        static_cast<int>(f.tokens[static_cast<size_t>(f.after)].digits.size());
  f.scale = f.after_digits;
  f.precision = f.before_digits + f.after_digits;
  if (f.precision > 38) {
    return Status::Error(
        "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
        {{"precision", std::to_string(f.precision)}, {"maxPrecision", "38"}});
  }
  return f;
}

// ---- to_number
// ---------------------------------------------------------------------------

// Parses `in` by `f` into the unscaled value of DECIMAL(f.precision, f.scale); false when
// the input does not match.
bool ParseNumber(const NumberFormat& f, std::string_view in, __int128* out) {
  size_t pos = 0;
  bool negate = false, opened = false;
  std::string before, after;
  auto peek = [&]() -> int {
    return pos < in.size() ? static_cast<unsigned char>(in[pos]) : -1;
  };
  for (size_t t = 0; t < f.tokens.size(); ++t) {
    const Token& tok = f.tokens[t];
    int c = peek();
    switch (tok.kind) {
      case Tok::kDigits: {
        const bool is_before = static_cast<int>(t) == f.before;
        std::string& digits = is_before ? before : after;
        std::vector<int> parsed;
        int run = 0;
        while (pos < in.size() && (std::isdigit(static_cast<unsigned char>(in[pos])) ||
                                   in[pos] == ',' || in[pos] == ' ')) {
          if (in[pos] == ',') {
            parsed.push_back(run);
            run = 0;
          } else if (in[pos] != ' ') {
            digits.push_back(in[pos]);
            ++run;
          }
          ++pos;
        }
        parsed.push_back(run);
        if (!is_before) {
          if (parsed.size() > 1 || run > f.after_digits) return false;
          break;
        }
        std::reverse(parsed.begin(), parsed.end());
        if (parsed.size() > f.groups.size()) return false;
        for (size_t g = 0; g < parsed.size(); ++g) {
          if (parsed[g] > f.groups[g]) return false;
        }
        if (f.leading_zero && parsed != f.groups) return false;
        break;
      }
      case Tok::kPoint:
        if (c == '.') ++pos;
        break;
      case Tok::kDollar:
        if (c >= 0) {
          if (c != '$') return false;
          ++pos;
        }
        break;
      case Tok::kSign:
        if (c == '+' || c == '-') {
          negate = negate != (c == '-');
          ++pos;
        }
        break;
      case Tok::kMinus:
        if (c == '-') {
          negate = !negate;
          ++pos;
        }
        break;
      case Tok::kOpen:
        if (c == '<') {
          opened = true;
          ++pos;
        }
        break;
      case Tok::kClose:
        if (c == '>') {
          if (!opened) return false;
          negate = !negate;
          opened = false;
          ++pos;
        }
        break;
      case Tok::kInvalid:
        return false;
    }
  }
  if (pos < in.size() || opened || (before.empty() && after.empty())) return false;
  __int128 v = 0;
  for (char c : before) v = v * 10 + (c - '0');
  for (char c : after) v = v * 10 + (c - '0');
  for (int k = static_cast<int>(after.size()); k < f.scale; ++k) v *= 10;
  *out = negate ? -v : v;
  return true;
}

// The pattern argument: a foldable string; nullopt-like `null` for a NULL pattern.
Result<std::optional<NumberFormat>> PatternArg(const std::string& name, Args& args) {
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToStringArg(name, args, 1));
  if (!args[1]->IsConstant())
    return fn::NonFoldableInput(fn::CallSql(name, args), "attributereference", "STRING",
                                *args[1]);
  SPATE_ASSIGN_OR_RETURN(Value v, fn::FoldConstant(args[1]));
  if (v.is_null()) return std::optional<NumberFormat>();
  SPATE_ASSIGN_OR_RETURN(NumberFormat f, ParseNumberFormat(v.str()));
  return std::optional<NumberFormat>(std::move(f));
}

Result<BoundExprPtr> ResolveToNumber(const std::string& name, bool try_mode, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  SPATE_ASSIGN_OR_RETURN(auto format, PatternArg(name, args));
  DataTypePtr type = format ? DataType::Decimal(format->precision, format->scale)
                            : DataType::Decimal(10, 0);
  const bool nullable = try_mode || !format || fn::AnyNullable(args);
  return MakeScalarCall(
      name, type, nullable, args,
      [format, type, try_mode](const Cols& c, int64_t n,
                               const EvalContext&) -> Result<ColumnPtr> {
        FixedWidthBuilder<__int128> b(type, n);
        const Column& s = *c[0];
        for (int64_t i = 0; i < n; ++i) {
          if (!format || s.IsNull(i)) {
            b.AppendNull();
            continue;
          }
          __int128 v = 0;
          if (ParseNumber(*format, s.GetView(i), &v)) {
            b.Append(v);
          } else if (try_mode) {
            b.AppendNull();
          } else {
            return Status::Error("INVALID_FORMAT.MISMATCH_INPUT",
                                 {{"format", format->text},
                                  {"inputType", "\"STRING\""},
                                  {"input", std::string(s.GetView(i))}});
          }
        }
        return b.Finish();
      });
}

// ---- to_char of numbers
// ------------------------------------------------------------------

// Inserts `c` before the trailing blanks of `out` that a lone decimal point left.
void InsertBeforeTrailing(std::string* out, char c, size_t trailing) {
  out->insert(out->size() - trailing, 1, c);
}

// Formats the decimal unscaled*10^-scale by `f` as Spark's to_char.
void FormatNumber(const NumberFormat& f, __int128 unscaled, int scale, std::string* out) {
  const bool neg = unscaled < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-unscaled)
                            : static_cast<unsigned __int128>(unscaled);
  std::string all;
  do {
    all.insert(all.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u);
  if (static_cast<int>(all.size()) <= scale)
    all.insert(0, static_cast<size_t>(scale + 1) - all.size(), '0');
  std::string before = all.substr(0, all.size() - static_cast<size_t>(scale));
  std::string after = all.substr(all.size() - static_cast<size_t>(scale));
  before.erase(0, before.find_first_not_of('0') == std::string::npos
                      ? before.size()
                      : before.find_first_not_of('0'));
  while (!after.empty() && after.back() == '0') after.pop_back();
  const bool overflow = static_cast<int>(before.size()) > f.before_digits ||
                        static_cast<int>(after.size()) > f.after_digits;
  // The sign token before the digits (S, MI or PR's bracket) goes right before the first
  // non-blank character once the digits before the point are written.
  char lead = 0;
  bool lead_pending = false;
  size_t trailing = 0;  // blanks at the end of `out` left by a lone decimal point
  auto place_lead = [&]() {
    if (!lead_pending) return;
    lead_pending = false;
    if (lead == 0) return;
    size_t k = out->find_first_not_of(' ');
    out->insert(k == std::string::npos ? out->size() : k, 1, lead);
  };
  for (size_t t = 0; t < f.tokens.size(); ++t) {
    const Token& tok = f.tokens[t];
    switch (tok.kind) {
      case Tok::kDigits: {
        if (static_cast<int>(t) == f.before) {
          const std::string& d = tok.digits;
          int remaining = f.before_digits;  // digit positions left, including this one
          bool zero_pad = false;            // from a '0' on, to the next separator
          for (char fc : d) {
            if (fc == ',') {
              char prev = out->empty() ? ' ' : out->back();
              out->push_back(prev >= '0' && prev <= '9' ? ',' : ' ');
              zero_pad = false;
              continue;
            }
            zero_pad = zero_pad || fc == '0';
            if (overflow) {
              out->push_back('#');
            } else if (remaining <= static_cast<int>(before.size())) {
              out->push_back(before[before.size() - static_cast<size_t>(remaining)]);
            } else {
              out->push_back(zero_pad ? '0' : ' ');
            }
            --remaining;
          }
          place_lead();
        } else {
          for (int k = 0; k < f.after_digits; ++k) {
            out->push_back(overflow ? '#'
                           : k < static_cast<int>(after.size())
                               ? after[static_cast<size_t>(k)]
                               : '0');
          }
        }
        break;
      }
      case Tok::kPoint:
        place_lead();
        if (!out->empty() && out->back() == ' ') out->back() = '0';
        if (f.after >= 0) {
          out->push_back('.');
        } else {
          out->push_back(' ');
          trailing = 1;
        }
        break;
      case Tok::kDollar:
        out->push_back('$');
        break;
      case Tok::kSign:
      case Tok::kMinus: {
        char c = tok.kind == Tok::kSign ? (neg ? '-' : '+') : (neg ? '-' : ' ');
        if (static_cast<int>(t) < f.before ||
            (f.before < 0 && static_cast<int>(t) < f.after)) {
          lead = c;
          lead_pending = true;
        } else if (c == ' ') {
          out->push_back(' ');
        } else {
          InsertBeforeTrailing(out, c, trailing);
        }
        break;
      }
      case Tok::kOpen:
        lead = neg ? '<' : 0;
        lead_pending = true;
        break;
      case Tok::kClose:
        if (neg) {
          InsertBeforeTrailing(out, '>', trailing);
        } else {
          out->append("  ");
        }
        break;
      case Tok::kInvalid:
        break;
    }
  }
  place_lead();
}

// Spark's implicit cast of to_char's input to DECIMAL.
Result<BoundExprPtr> DecimalArg(const std::string& name, const Args& args) {
  const DataType& t = *args[0]->type();
  DataTypePtr to;
  if (t.id() == TypeId::kDecimal) return args[0];
  if (t.IsIntegral()) {
    to = DecimalForIntegral(t);
  } else if (t.id() == TypeId::kFloat) {
    to = DataType::Decimal(14, 7);
  } else if (t.id() == TypeId::kDouble) {
    to = DataType::Decimal(30, 15);
  } else if (t.id() == TypeId::kString) {
    to = DataType::Decimal(38, 18);
  } else if (t.id() == TypeId::kNull) {
    to = DataType::Decimal(10, 0);
  } else {
    return fn::UnexpectedType(name, args, 0, "\"DECIMAL\"");
  }
  return ImplicitCast(args[0], to);
}

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// to_char(binary, 'hex' | 'base64' | 'utf-8'): Spark's hex, base64 and decode.
Result<BoundExprPtr> BinaryToChar(const std::string& name, Args args,
                                  const ResolveContext& rc) {
  if (!args[1]->IsConstant() || args[1]->type()->id() == TypeId::kNull) {
    return Status::Error("NON_FOLDABLE_ARGUMENT",
                         {{"funcName", "`" + name + "`"},
                          {"paramName", "`format`"},
                          {"paramType", QuoteType(*args[1]->type())}});
  }
  SPATE_ASSIGN_OR_RETURN(args[1], fn::ToStringArg(name, args, 1));
  SPATE_ASSIGN_OR_RETURN(Value v, fn::FoldConstant(args[1]));
  std::string fmt = v.is_null() ? "" : Lower(v.str());
  if (fmt == "hex" || fmt == "base64")
    return fn::Delegate(name, fmt, {args[0]}, rc, args);
  if (fmt == "utf-8") {
    return fn::Delegate(name, "decode", {args[0], MakeLiteral(Value::String("utf-8"))},
                        rc, args);
  }
  return Status::Error("INVALID_PARAMETER_VALUE.BINARY_FORMAT",
                       {{"parameter", "`format`"},
                        {"functionName", "`" + name + "`"},
                        {"invalidFormat", v.is_null() ? "NULL" : "'" + v.str() + "'"}});
}

Result<BoundExprPtr> ResolveToChar(const std::string& name, Args args,
                                   const ResolveContext& rc) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  TypeId t = args[0]->type()->id();
  if (t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampNtz) {
    return fn::Delegate(name, "date_format", args, rc, args);
  }
  if (t == TypeId::kBinary) return BinaryToChar(name, std::move(args), rc);
  SPATE_ASSIGN_OR_RETURN(args[0], DecimalArg(name, args));
  SPATE_ASSIGN_OR_RETURN(auto format, PatternArg(name, args));
  const int scale = args[0]->type()->scale();
  return MakeScalarCall(
      name, DataType::String(), !format || fn::AnyNullable(args), args,
      [format, scale](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        StringBuilder b(DataType::String(), n);
        const Column& x = *c[0];
        const __int128* v = x.raw_values<__int128>();
        std::string buf;
        for (int64_t i = 0; i < n; ++i) {
          if (!format || x.IsNull(i)) {
            b.AppendNull();
            continue;
          }
          buf.clear();
          FormatNumber(*format, v[i], scale, &buf);
          b.Append(buf);
        }
        return b.Finish();
      });
}

// ---- to_binary
// ---------------------------------------------------------------------------

// Strict base64 (Spark's to_binary): whitespace is skipped; '=' only as 1-2 characters of
// padding that complete a 4-character block; a dangling single character is malformed.
bool DecodeBase64(std::string_view s, std::string* out) {
  uint32_t acc = 0;
  int bits = 0;
  size_t chars = 0, pad = 0;
  for (char ch : s) {
    if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') continue;
    if (ch == '=') {
      ++pad;
      continue;
    }
    int v = fn::Base64DigitValue(ch);
    if (v < 0 || pad > 0) return false;
    ++chars;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (chars % 4 == 1) return false;
  if (pad > 0 && (pad > 2 || (chars + pad) % 4 != 0)) return false;
  return true;
}

Result<BoundExprPtr> ResolveToBinary(const std::string& name, bool try_mode, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 2, "[1, 2]"));
  SPATE_ASSIGN_OR_RETURN(args[0], fn::ToStringArg(name, args, 0));
  std::string fmt = "hex";
  bool null_format = false;
  if (args.size() == 2) {
    SPATE_ASSIGN_OR_RETURN(args[1], fn::ToStringArg(name, args, 1));
    if (!args[1]->IsConstant())
      return fn::NonFoldableInput(fn::CallSql(name, args), "fmt", "STRING", *args[1]);
    SPATE_ASSIGN_OR_RETURN(Value v, fn::FoldConstant(args[1]));
    null_format = v.is_null();
    if (!null_format) fmt = Lower(v.str());
  }
  const bool valid = fmt == "hex" || fmt == "utf-8" || fmt == "utf8" || fmt == "base64";
  if (!valid && !null_format && !try_mode) {
    return Status::Error("DATATYPE_MISMATCH.INVALID_ARG_VALUE",
                         {{"sqlExpr", "\"" + fn::CallSql(name, args) + "\""},
                          {"inputName", "fmt"},
                          {"requireType", "case-insensitive \"STRING\""},
                          {"validValues", "'hex', 'utf-8', 'utf8', or 'base64'"},
                          {"inputValue", "'" + fmt + "'"}});
  }
  const bool always_null = null_format || !valid;
  const bool nullable = try_mode || always_null || fmt != "base64" || args[0]->nullable();
  return MakeScalarCall(
      name, DataType::Binary(), nullable, args,
      [fmt, try_mode, always_null](const Cols& c, int64_t n,
                                   const EvalContext&) -> Result<ColumnPtr> {
        StringBuilder b(DataType::Binary(), n);
        const Column& s = *c[0];
        std::string buf;
        for (int64_t i = 0; i < n; ++i) {
          if (always_null || s.IsNull(i)) {
            b.AppendNull();
            continue;
          }
          std::string_view in = s.GetView(i);
          buf.clear();
          bool ok = true;
          if (fmt == "hex") {
            ok = fn::UnhexInto(in, &buf);
          } else if (fmt == "base64") {
            ok = DecodeBase64(in, &buf);
          } else {
            buf.assign(in);
          }
          if (ok) {
            b.Append(buf);
          } else if (try_mode) {
            b.AppendNull();
          } else {
            std::string upper = fmt == "hex" ? "HEX" : "BASE64";
            return Status::Error("CONVERSION_INVALID_INPUT",
                                 {{"str", "'" + std::string(in) + "'"},
                                  {"fmt", "'" + upper + "'"},
                                  {"targetType", "\"BINARY\""},
                                  {"suggestion", "`try_to_binary`"}});
          }
        }
        return b.Finish();
      });
}

}  // namespace

void RegisterNumberFormatFunctions(FunctionRegistry& r) {
  r.RegisterScalar("to_number", [](Args a, const ResolveContext&) {
    return ResolveToNumber("to_number", false, std::move(a));
  });
  r.RegisterScalar("try_to_number", [](Args a, const ResolveContext&) {
    return ResolveToNumber("try_to_number", true, std::move(a));
  });
  for (const char* name : {"to_char", "to_varchar"}) {
    r.RegisterScalar(name, [name](Args a, const ResolveContext& rc) {
      return ResolveToChar(name, std::move(a), rc);
    });
  }
  r.RegisterScalar("to_binary", [](Args a, const ResolveContext&) {
    return ResolveToBinary("to_binary", false, std::move(a));
  });
  r.RegisterScalar("try_to_binary", [](Args a, const ResolveContext&) {
    return ResolveToBinary("try_to_binary", true, std::move(a));
  });
}

}  // namespace spate
