// Copyright spate authors.
// Text functions that follow Java's rules: parse_url / try_parse_url (java.net.URI's
// RFC 2396 parser, as Spark's ParseUrl uses it), mask (Java's Character.isUpperCase /
// isLowerCase / isDigit over UTF-16 units, here ICU's Unicode properties) and sentences
// (java.text.BreakIterator's sentence and word instances, here ICU's). Behaviour observed
// in Spark 4.2 and pinned in tests/differential/cases/functions_format.py. Also
// url_encode / url_decode / try_url_decode (java.net.URLEncoder / URLDecoder).

#include <re2/re2.h>
#include <unicode/brkiter.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <array>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "spate/columnar/builder.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/string_kernels.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

// ---- java.net.URI
// ------------------------------------------------------------------------

// Character classes of java.net.URI's parser, as 128-bit masks over ASCII.
struct CharMask {
  uint64_t lo = 0, hi = 0;
  bool escaped = false;  // "%hh" escapes and visible non-ASCII characters are allowed
  bool Has(unsigned char c) const {
    return c < 64 ? (lo >> c) & 1 : c < 128 ? (hi >> (c - 64)) & 1 : false;
  }
  CharMask operator|(const CharMask& o) const {
    return {lo | o.lo, hi | o.hi, escaped || o.escaped};
  }
};

constexpr CharMask Chars(const char* s) {
  CharMask m;
  for (; *s; ++s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c < 64) {
      m.lo |= uint64_t{1} << c;
    } else {
      m.hi |= uint64_t{1} << (c - 64);
    }
  }
  return m;
}

CharMask Range(char a, char b) {
  CharMask m;
  for (int c = a; c <= b; ++c) {
    if (c < 64) {
      m.lo |= uint64_t{1} << c;
    } else {
      m.hi |= uint64_t{1} << (c - 64);
    }
  }
  return m;
}

struct UriMasks {
  CharMask digit = Range('0', '9');
  CharMask alpha = Range('a', 'z') | Range('A', 'Z');
  CharMask alphanum = digit | alpha;
  CharMask hex = digit | Range('a', 'f') | Range('A', 'F');
  CharMask escaped = [] {
    CharMask m;
    m.escaped = true;
    return m;
  }();
  CharMask unreserved = alphanum | Chars("-_.!~*'()");
  CharMask reserved = Chars(";/?:@&=+$,[]");
  CharMask uric = reserved | unreserved | escaped;
  CharMask pchar = unreserved | escaped | Chars(":@&=+$,");
  CharMask path = pchar | Chars(";/");
  CharMask userinfo = unreserved | escaped | Chars(";:&=+$,");
  CharMask reg_name = unreserved | escaped | Chars("$,;:@&=+");
  CharMask server = userinfo | alphanum | Chars("-.:@[]");
  CharMask scheme = alpha | digit | Chars("+-.");
  CharMask dash = Chars("-");
  CharMask ipv4 = digit | Chars(".");
};

const UriMasks& M() {
  static const UriMasks m;
  return m;
}

// Java's Character.isSpaceChar (Zs, Zl, Zp) for the BMP.
bool IsJavaSpace(uint32_t c) {
  return c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

struct Uri {
  std::optional<std::string_view> scheme, authority, userinfo, host, path, query,
      fragment;
};

// java.net.URI.Parser over one string; Parse() is false for a URISyntaxException.
class UriParser {
 public:
  explicit UriParser(std::string_view s) : s_(s) {}

  bool Parse(Uri* u) {
    u_ = u;
    const size_t n = s_.size();
    size_t p = ScanUntil(0, n, "/?#", ':');
    if (p < n && s_[p] == ':') {
      if (p == 0 || !M().alpha.Has(Byte(0)) || Scan(1, p, M().scheme) < p) return false;
      u_->scheme = s_.substr(0, p);
      ++p;
      if (p < n && s_[p] == '/') {
        if (!Hierarchical(p, n, &p)) return false;
      } else {
        size_t q = Find(p, n, '#');
        if (q <= p || Scan(p, q, M().uric) < q) return false;  // opaque: no path
        p = q;
      }
    } else if (!Hierarchical(0, n, &p)) {
      return false;
    }
    if (p < n && s_[p] == '#') {
      if (failed_ || Scan(p + 1, n, M().uric) < n) return false;
      u_->fragment = s_.substr(p + 1);
      p = n;
    }
    return !failed_ && p == n;
  }

 private:
  unsigned char Byte(size_t i) const { return static_cast<unsigned char>(s_[i]); }

  // First index in [p, end) holding `stop`, unless one of `errs` comes first (then end).
  size_t ScanUntil(size_t p, size_t end, const char* errs, char stop) const {
    for (; p < end; ++p) {
      if (s_[p] == stop) return p;
      if (std::strchr(errs, s_[p]) != nullptr) return end;
    }
    return end;
  }
  size_t Find(size_t p, size_t end, char c) const {
    for (; p < end; ++p) {
      if (s_[p] == c) return p;
    }
    return end;
  }
  size_t FindAny(size_t p, size_t end, const char* cs) const {
    for (; p < end; ++p) {
      if (std::strchr(cs, s_[p]) != nullptr) return p;
    }
    return end;
  }

  // Advances over characters of `m` (and escapes / visible non-ASCII when allowed); a
  // malformed escape is a syntax error.
  size_t Scan(size_t p, size_t end, const CharMask& m) {
    while (p < end) {
      unsigned char c = Byte(p);
      if (c < 128 && m.Has(c)) {
        ++p;
        continue;
      }
      if (!m.escaped) break;
      if (c == '%') {
        if (p + 3 <= end && M().hex.Has(Byte(p + 1)) && M().hex.Has(Byte(p + 2))) {
          p += 3;
          continue;
        }
        failed_ = true;
        return p;
      }
      if (c >= 0x80) {
        size_t q = p;
        uint32_t cp = fn::DecodeUtf8(s_.substr(0, end), &q);
        if (cp > 0x9F && !IsJavaSpace(cp)) {
          p = q;
          continue;
        }
      }
      break;
    }
    return p;
  }

  bool Hierarchical(size_t p, size_t n, size_t* out) {
    if (p + 1 < n && s_[p] == '/' && s_[p + 1] == '/') {
      p += 2;
      size_t q = FindAny(p, n, "/?#");
      if (q > p) {
        if (!Authority(p, q)) return false;
      } else if (q >= n) {
        return false;  // expected authority
      }
      p = q;
    }
    size_t q = FindAny(p, n, "?#");
    if (Scan(p, q, M().path) < q || failed_) return false;
    u_->path = s_.substr(p, q - p);
    p = q;
    if (p < n && s_[p] == '?') {
      ++p;
      q = Find(p, n, '#');
      if (Scan(p, q, M().uric) < q || failed_) return false;
      u_->query = s_.substr(p, q - p);
      p = q;
    }
    *out = p;
    return true;
  }

  bool Authority(size_t p, size_t n) {
    const bool server_chars = Scan(p, n, M().server) == n;
    if (failed_) return false;
    const bool reg_chars = Scan(p, n, M().reg_name) == n;
    if (failed_) return false;
    if (reg_chars && !server_chars) {
      u_->authority = s_.substr(p, n - p);
      return true;
    }
    if (server_chars) {
      Uri saved = *u_;
      if (Server(p, n) && !failed_) {
        u_->authority = s_.substr(p, n - p);
        return true;
      }
      failed_ = false;
      *u_ = saved;
      if (reg_chars) {
        u_->authority = s_.substr(p, n - p);
        return true;
      }
      return false;
    }
    return false;
  }

  bool Server(size_t p, size_t n) {
    size_t q = ScanUntil(p, n, "/?#", '@');
    if (q < n && s_[q] == '@') {
      if (Scan(p, q, M().userinfo) < q || failed_) return false;
      u_->userinfo = s_.substr(p, q - p);
      p = q + 1;
    }
    if (p < n && s_[p] == '[') {
      ++p;
      q = ScanUntil(p, n, "/?#", ']');
      if (!(q > p && q < n && s_[q] == ']')) return false;
      size_t scope = Find(p, q, '%');
      if (!IPv6(p, scope)) return false;
      if (scope < q &&
          (scope + 1 == q || Scan(scope + 1, q, M().alphanum | Chars("_.")) < q))
        return false;
      u_->host = s_.substr(p - 1, q + 2 - p);
      p = q + 1;
    } else {
      q = IPv4(p, n);
      if (q <= p) {
        q = Hostname(p, n);
        if (q == std::string_view::npos) return false;
      }
      p = q;
    }
    if (p < n && s_[p] == ':') {
      ++p;
      q = Scan(p, n, M().digit);
      if (q > p) {
        int64_t port = 0;
        auto r = std::from_chars(s_.data() + p, s_.data() + q, port);
        if (r.ec != std::errc() || port > 2147483647LL) return false;  // Integer.parseInt
      }
      p = q;
    }
    return p >= n;
  }

  // A dotted IPv4 address followed by the end or ':'; its end, or npos-like 0 (none).
  size_t IPv4(size_t start, size_t n) {
    size_t m = Scan(start, n, M().ipv4);
    if (m <= start) return 0;
    size_t p = start;
    for (int part = 0; part < 4; ++part) {
      if (part > 0) {
        if (p >= m || s_[p] != '.') return 0;
        ++p;
      }
      size_t q = p;
      int v = 0;
      while (q < m && q - p < 3 && s_[q] >= '0' && s_[q] <= '9')
        v = v * 10 + (s_[q++] - '0');
      if (q == p || v > 255 || (q < m && s_[q] >= '0' && s_[q] <= '9')) return 0;
      p = q;
    }
    if (p < m) return 0;
    if (p < n && s_[p] != ':') return 0;
    u_->host = s_.substr(start, p - start);
    return p;
  }

  size_t Hostname(size_t start, size_t n) {
    size_t p = start, label = std::string_view::npos;
    while (p < n) {
      size_t q = Scan(p, n, M().alphanum);
      if (q <= p) break;
      label = p;
      p = q;
      q = Scan(p, n, M().alphanum | M().dash);
      if (q > p) {
        if (s_[q - 1] == '-') return std::string_view::npos;
        p = q;
      }
      if (p < n && s_[p] == '.') {
        ++p;
      } else {
        break;
      }
    }
    if (p < n && s_[p] != ':') return std::string_view::npos;
    if (label == std::string_view::npos) return std::string_view::npos;
    if (label > start && !M().alpha.Has(Byte(label))) return std::string_view::npos;
    u_->host = s_.substr(start, p - start);
    return p;
  }

  // RFC 2373 IPv6 reference: hex groups with at most one "::", optionally an IPv4 tail.
  bool IPv6(size_t p, size_t end) const {
    std::string_view v = s_.substr(p, end - p);
    if (v.empty()) return false;
    int groups = 0;
    bool compressed = false;
    size_t i = 0;
    if (v.substr(0, 2) == "::") {
      compressed = true;
      i = 2;
      if (i == v.size()) return true;
    } else if (v[0] == ':') {
      return false;
    }
    while (i < v.size()) {
      size_t j = i;
      while (j < v.size() && j - i < 5 && M().hex.Has(static_cast<unsigned char>(v[j])))
        ++j;
      if (j < v.size() && v[j] == '.') {  // IPv4 tail
        std::string_view tail = v.substr(i);
        int dots = 0, num = -1;
        for (char c : tail) {
          if (c == '.') {
            if (num < 0) return false;
            ++dots;
            num = -1;
          } else if (c >= '0' && c <= '9') {
            num = (num < 0 ? 0 : num) * 10 + (c - '0');
            if (num > 255) return false;
          } else {
            return false;
          }
        }
        if (dots != 3 || num < 0) return false;
        groups += 2;
        i = v.size();
        break;
      }
      if (j == i || j - i > 4) return false;
      ++groups;
      i = j;
      if (i == v.size()) break;
      if (v[i] != ':') return false;
      if (i + 1 < v.size() && v[i + 1] == ':') {
        if (compressed) return false;
        compressed = true;
        i += 2;
        if (i == v.size()) break;
      } else {
        ++i;
        if (i == v.size()) return false;
      }
    }
    return compressed ? groups <= 7 : groups == 8;
  }

  std::string_view s_;
  Uri* u_ = nullptr;
  bool failed_ = false;
};

std::optional<std::string_view> UrlPart(const Uri& u, std::string_view part,
                                        std::string* buf) {
  if (part == "HOST") return u.host;
  if (part == "PATH") return u.scheme && !u.path ? std::nullopt : u.path;
  if (part == "QUERY") return u.query;
  if (part == "REF") return u.fragment;
  if (part == "PROTOCOL") return u.scheme;
  if (part == "FILE") {
    if (!u.path) return std::nullopt;
    if (!u.query) return u.path;
    buf->assign(*u.path);
    buf->push_back('?');
    buf->append(*u.query);
    return std::string_view(*buf);
  }
  if (part == "AUTHORITY") return u.authority;
  if (part == "USERINFO") return u.userinfo;
  return std::nullopt;
}

Result<BoundExprPtr> StringOnlyArg(const std::string& name, const Args& args, size_t k) {
  TypeId t = args[k]->type()->id();
  if (t == TypeId::kString) return args[k];
  if (t == TypeId::kNull) return ImplicitCast(args[k], DataType::String());
  return fn::UnexpectedType(name, args, k, "\"STRING\"");
}

Result<BoundExprPtr> ResolveParseUrl(const std::string& name, bool try_mode, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 3, "[2, 3]"));
  for (size_t k = 0; k < args.size(); ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], StringOnlyArg(name, args, k));
  }
  return MakeScalarCall(
      name, DataType::String(), true, args,
      [try_mode](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        std::vector<const Column*> cols;
        for (const auto& col : c) cols.push_back(col.get());
        fn::NullMask mask(cols, n);
        const bool with_key = c.size() == 3;
        std::string cached_key;
        std::unique_ptr<RE2> key_re;
        std::string file;
        Status error;
        auto result = fn::MapToString(
            DataType::String(), mask, n, [&](int64_t i, std::string* out) {
              std::string_view url = c[0]->GetView(i);
              Uri u;
              if (!UriParser(url).Parse(&u)) {
                if (!try_mode)
                  error = Status::Error("INVALID_URL", {{"url", std::string(url)}});
                return false;
              }
              std::string_view part = c[1]->GetView(i);
              if (with_key) {
                if (part != "QUERY" || !u.query) return false;
                std::string_view key = c[2]->GetView(i);
                if (!key_re || key != cached_key) {
                  cached_key = std::string(key);
                  RE2::Options opts;
                  opts.set_log_errors(false);
                  key_re = std::make_unique<RE2>("(&|^)" + cached_key + "=([^&]*)", opts);
                }
                if (!key_re->ok() || key_re->NumberOfCapturingGroups() < 2) return false;
                std::vector<re2::StringPiece> groups(
                    static_cast<size_t>(key_re->NumberOfCapturingGroups()) + 1);
                re2::StringPiece text(u.query->data(), u.query->size());
                if (!key_re->Match(text, 0, text.size(), RE2::UNANCHORED, groups.data(),
                                   static_cast<int>(groups.size()))) {
                  return false;
                }
                if (groups[2].data() == nullptr) return false;
                out->assign(groups[2].data(), groups[2].size());
                return true;
              }
              auto v = UrlPart(u, part, &file);
              if (!v) return false;
              out->assign(*v);
              return true;
            });
        if (!error.ok()) return error;
        return result;
      });
}

// ---- mask
// --------------------------------------------------------------------------------

const char* const kMaskParams[] = {"str", "upperChar", "lowerChar", "digitChar",
                                   "otherChar"};

Result<BoundExprPtr> ResolveMask(Args args) {
  const std::string name = "mask";
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 5, "[1, 2, 3, 4, 5]"));
  if (args.size() < 2) args.push_back(MakeLiteral(Value::String("X")));
  if (args.size() < 3) args.push_back(MakeLiteral(Value::String("x")));
  if (args.size() < 4) args.push_back(MakeLiteral(Value::String("n")));
  if (args.size() < 5) args.push_back(MakeLiteral(Value::Null(DataType::Null())));
  for (size_t k = 0; k < args.size(); ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], StringOnlyArg(name, args, k));
  }
  // Replacements: -1 keeps the character; else a code point (Java writes a character
  // outside the BMP as an unpaired surrogate, which becomes '?' in UTF-8).
  std::array<int64_t, 4> repl{};
  for (size_t k = 1; k < 5; ++k) {
    if (!args[k]->IsConstant()) {
      return fn::NonFoldableInput(fn::CallSql(name, args), kMaskParams[k], "STRING",
                                  *args[k]);
    }
    SPATE_ASSIGN_OR_RETURN(Value v, fn::FoldConstant(args[k]));
    if (v.is_null()) {
      repl[k - 1] = -1;
      continue;
    }
    const std::string& s = v.str();
    if (fn::NumChars(s) != 1) {
      return Status::Error("DATATYPE_MISMATCH.INPUT_SIZE_NOT_ONE",
                           {{"sqlExpr", "\"" + fn::CallSql(name, args) + "\""},
                            {"exprName", kMaskParams[k]}});
    }
    size_t pos = 0;
    uint32_t cp = fn::DecodeUtf8(s, &pos);
    repl[k - 1] = cp > 0xFFFF ? '?' : cp;
  }
  return MakeScalarCall(
      name, DataType::String(), true, args,
      [repl](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::NullMask mask({c[0].get()}, n);
        return fn::MapToString(
            DataType::String(), mask, n, [&](int64_t i, std::string* out) {
              std::string_view s = c[0]->GetView(i);
              size_t pos = 0;
              while (pos < s.size()) {
                unsigned char b = static_cast<unsigned char>(s[pos]);
                if (b < 0x80) {  // ASCII without ICU
                  int64_t r = b >= 'A' && b <= 'Z'   ? repl[0]
                              : b >= 'a' && b <= 'z' ? repl[1]
                              : b >= '0' && b <= '9' ? repl[2]
                                                     : repl[3];
                  if (r < 0) {
                    out->push_back(static_cast<char>(b));
                  } else {
                    fn::AppendUtf8(static_cast<uint32_t>(r), out);
                  }
                  ++pos;
                  continue;
                }
                size_t start = pos;
                uint32_t cp = fn::DecodeUtf8(s, &pos);
                int64_t r;
                if (cp > 0xFFFF) {  // two UTF-16 units, each "other"
                  if (repl[3] < 0) {
                    out->append(s.substr(start, pos - start));
                  } else {
                    fn::AppendUtf8(static_cast<uint32_t>(repl[3]), out);
                    fn::AppendUtf8(static_cast<uint32_t>(repl[3]), out);
                  }
                  continue;
                }
                UChar32 u = static_cast<UChar32>(cp);
                r = u_isUUppercase(u)   ? repl[0]
                    : u_isULowercase(u) ? repl[1]
                    : u_isdigit(u)      ? repl[2]
                                        : repl[3];
                if (r < 0) {
                  out->append(s.substr(start, pos - start));
                } else {
                  fn::AppendUtf8(static_cast<uint32_t>(r), out);
                }
              }
              return true;
            });
      });
}

// ---- sentences
// ---------------------------------------------------------------------------

bool StartsWithLetterOrDigit(const icu::UnicodeString& w) {
  if (w.isEmpty()) return false;
  UChar c = w.charAt(0);  // Java's Character.isLetterOrDigit(char)
  return u_isalpha(c) || u_isdigit(c);
}

// Java's sentence instance does not end a sentence at '.' followed by a number (ICU does
// when the number holds a '.' itself, "Washington. 3.14 is pi").
bool EndsWithPeriod(const icu::UnicodeString& u, int32_t start, int32_t end) {
  int32_t k = end - 1;
  while (k > start && u_isWhitespace(u.charAt(k))) --k;
  return k >= start && u.charAt(k) == '.';
}

Result<BoundExprPtr> ResolveSentences(Args args) {
  const std::string name = "sentences";
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 1, 3, "[1, 2, 3]"));
  for (size_t k = 0; k < args.size(); ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], fn::ToStringArg(name, args, k));
  }
  DataTypePtr words = DataType::Array(DataType::String(), false);
  DataTypePtr type = DataType::Array(words, false);
  return MakeScalarCall(
      name, type, true, args,
      [type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        fn::StringArrayBuilder sentences(n);  // one row per sentence: its words
        std::vector<int32_t> offsets{0};
        ValidityBuilder validity;
        int32_t count = 0;
        std::string cached_locale = "\x01";
        std::unique_ptr<icu::BreakIterator> sentence_it, word_it;
        std::string utf8;
        for (int64_t i = 0; i < n; ++i) {
          if (c[0]->IsNull(i)) {
            offsets.push_back(count);
            validity.AppendNull();
            continue;
          }
          // A NULL or missing language / country is Java's default locale (en_US here).
          std::string lang =
              c.size() > 1 && !c[1]->IsNull(i) ? std::string(c[1]->GetView(i)) : "en";
          std::string country =
              c.size() > 2 && !c[2]->IsNull(i) ? std::string(c[2]->GetView(i)) : "US";
          std::string key = lang + "_" + country;
          if (key != cached_locale) {
            UErrorCode status = U_ZERO_ERROR;
            icu::Locale loc(lang.c_str(), country.c_str());
            sentence_it.reset(icu::BreakIterator::createSentenceInstance(loc, status));
            word_it.reset(icu::BreakIterator::createWordInstance(loc, status));
            if (U_FAILURE(status))
              return Status::Error("INTERNAL_ERROR", {{"message", "ICU break iterator"}});
            cached_locale = key;
          }
          std::string_view text = c[0]->GetView(i);
          icu::UnicodeString u = icu::UnicodeString::fromUTF8(
              icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
          // Java's sentence instance does not end a sentence at a line break; ICU's does.
          icu::UnicodeString flat(u);
          for (int32_t k = 0; k < flat.length(); ++k) {
            UChar ch = flat.charAt(k);
            if (ch == '\n' || ch == '\r' || ch == 0x85 || ch == 0x2028 || ch == 0x2029)
              flat.setCharAt(k, ' ');
          }
          sentence_it->setText(flat);
          int32_t start = sentence_it->first();
          for (int32_t end = sentence_it->next(); end != icu::BreakIterator::DONE;
               end = sentence_it->next()) {
            if (end < u.length() && u_isdigit(u.charAt(end)) &&
                EndsWithPeriod(u, start, end))
              continue;
            icu::UnicodeString sentence(u, start, end - start);
            start = end;
            word_it->setText(sentence);
            int32_t ws = word_it->first();
            for (int32_t we = word_it->next(); we != icu::BreakIterator::DONE;
                 we = word_it->next()) {
              // Java's word instance keeps a currency sign with the number after it
              // ("$5").
              if (we - ws == 1 && u_charType(sentence.charAt(ws)) == U_CURRENCY_SYMBOL &&
                  we < sentence.length() && u_isdigit(sentence.charAt(we))) {
                continue;
              }
              icu::UnicodeString w(sentence, ws, we - ws);
              ws = we;
              if (!StartsWithLetterOrDigit(w)) continue;
              utf8.clear();
              w.toUTF8String(utf8);
              sentences.AddItem(utf8);
            }
            sentences.EndRow();
            ++count;
          }
          offsets.push_back(count);
          validity.AppendValid();
        }
        auto off = Buffer::Allocate((n + 1) * 4);
        std::memcpy(off->mutable_data(), offsets.data(), offsets.size() * 4);
        int64_t nulls = validity.null_count();
        return std::make_shared<const Column>(type, n, nulls, validity.Finish(), off,
                                              nullptr,
                                              std::vector<ColumnPtr>{sentences.Finish()});
      });
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
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out->push_back(' ');
    } else if (s[i] == '%') {
      if (i + 2 >= s.size()) return false;
      int h = fn::HexDigitValue(s[i + 1]), l = fn::HexDigitValue(s[i + 2]);
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

}  // namespace

void RegisterTextFunctions(FunctionRegistry& r) {
  r.RegisterScalar("parse_url", [](Args a, const ResolveContext&) {
    return ResolveParseUrl("parse_url", false, std::move(a));
  });
  r.RegisterScalar("try_parse_url", [](Args a, const ResolveContext&) {
    return ResolveParseUrl("try_parse_url", true, std::move(a));
  });
  r.RegisterScalar(
      "mask", [](Args a, const ResolveContext&) { return ResolveMask(std::move(a)); });
  r.RegisterScalar("sentences", [](Args a, const ResolveContext&) {
    return ResolveSentences(std::move(a));
  });
  r.RegisterScalar("url_encode", [](Args a, const ResolveContext&) {
    return fn::ResolveStringUnary("url_encode", std::move(a), UrlEncode, true);
  });
  r.RegisterScalar("url_decode", [](Args a, const ResolveContext&) {
    return ResolveUrlDecode("url_decode", false, std::move(a));
  });
  r.RegisterScalar("try_url_decode", [](Args a, const ResolveContext&) {
    return ResolveUrlDecode("try_url_decode", true, std::move(a));
  });
}

}  // namespace spate
