// Copyright spate authors.
#include "spate/sql/lexer.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "spate/base/utf8.h"
#include "spate/types/data_type.h"

namespace spate::sql {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Word characters: ASCII letters, digits, '_' and any non-ASCII byte (UTF-8 letters).
bool IsWordChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool IsWordStart(char c) {
  return IsLetter(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads 4 hex digits at s[i..i+4); -1 if they are not all hex.
int64_t Hex4(std::string_view s, size_t i) {
  if (i + 4 > s.size()) return -1;
  int64_t v = 0;
  for (size_t k = 0; k < 4; ++k) {
    int h = HexValue(s[i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// Spark's unescapeSQLString applied to the body of a literal quoted with `quote`; a
// doubled quote in the body (the lexer let it through) is one quote character.
std::string Unescape(std::string_view body, char quote) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == quote) {
      out.push_back(c);
      ++i;  // the second of the pair
      continue;
    }
    if (c != '\\' || i + 1 >= body.size()) {
      out.push_back(c);
      continue;
    }
    char n = body[++i];
    switch (n) {
      case '0':
        // Octal \ddd (3 digits, first 0-3) or \0 = NUL.
        if (i + 2 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7' &&
            body[i + 2] >= '0' && body[i + 2] <= '7') {
          out.push_back(static_cast<char>((body[i + 1] - '0') * 8 + (body[i + 2] - '0')));
          i += 2;
        } else {
          out.push_back('\0');
        }
        break;
      case '1':
      case '2':
      case '3':
        if (i + 2 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7' &&
            body[i + 2] >= '0' && body[i + 2] <= '7') {
          int v = (n - '0') * 64 + (body[i + 1] - '0') * 8 + (body[i + 2] - '0');
          AppendUtf8(static_cast<uint32_t>(v), &out);
          i += 2;
        } else {
          out.push_back(n);
        }
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'Z':
        out.push_back('\x1A');
        break;
      case '%':
        out += "\\%";
        break;  // kept escaped for LIKE patterns, as Spark
      case '_':
        out += "\\_";
        break;
      case 'u': {
        int64_t cp = Hex4(body, i + 1);
        if (cp < 0) {
          out.push_back('u');
          break;
        }
        i += 4;
        // Combine a UTF-16 surrogate pair.
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 2 < body.size() && body[i + 1] == '\\' &&
            body[i + 2] == 'u') {
          int64_t lo = Hex4(body, i + 3);
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          }
        }
        AppendUtf8(static_cast<uint32_t>(cp), &out);
        break;
      }
      default:
        out.push_back(n);
        break;  // \' \" \\ and any other char
    }
  }
  return out;
}

constexpr std::array<std::string_view, 12> kLongOperators = {
    "<=>", "<>", "<=", ">=", "==", "!=", "||", "::", "->", "=>", "|>", "<<"};
constexpr std::string_view kShortOperators = "=<>!+-*/%~&|^(),.;[]:{}?";

}  // namespace

Status Lexer::ErrorAt(int64_t pos, std::string_view near) const {
  return Status::Error("PARSE_SYNTAX_ERROR",
                       {{"error", "'" + std::string(near) + "'"}, {"hint", ""}})
      .WithPosition(pos);
}

Status Lexer::SkipBlanks() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (IsBlank(c)) {
      ++pos_;
    } else if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '-') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      // A hint (SqlBaseLexer's HENT_START '/*+') is a token, not a comment.
      if (pos_ + 2 < text_.size() && text_[pos_ + 2] == '+') break;
      size_t start = pos_;
      int depth = 0;
      while (pos_ < text_.size()) {
        if (text_[pos_] == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
          ++depth;
          pos_ += 2;
        } else if (text_[pos_] == '*' && pos_ + 1 < text_.size() &&
                   text_[pos_ + 1] == '/') {
          --depth;
          pos_ += 2;
          if (depth == 0) break;
        } else {
          ++pos_;
        }
      }
      if (depth != 0) {
        return Status::Error("UNCLOSED_BRACKETED_COMMENT").WithPosition(start);
      }
    } else {
      break;
    }
  }
  return Status::OK();
}

Result<Token> Lexer::LexQuoted(char quote, bool raw, int64_t begin) {
  // pos_ is at the opening quote.
  // A doubled quote inside a (non-raw) literal is one quote character, as Spark 4's lexer
  // reads it: 'don''t' is "don't", "a""b" is a"b; r'a''b' stays two raw literals.
  size_t body_start = ++pos_;
  while (pos_ < text_.size()) {
    if (text_[pos_] == quote) {
      if (raw || pos_ + 1 >= text_.size() || text_[pos_ + 1] != quote) break;
      pos_ += 2;
      continue;
    }
    if (!raw && text_[pos_] == '\\') ++pos_;
    ++pos_;
  }
  if (pos_ >= text_.size()) {
    return ErrorAt(begin, text_.substr(begin));
  }
  std::string_view body = text_.substr(body_start, pos_ - body_start);
  ++pos_;
  Token t;
  t.kind = TokenKind::kString;
  t.text = raw ? std::string(body) : Unescape(body, quote);
  t.begin = begin;
  t.end = static_cast<int64_t>(pos_);
  return t;
}

Result<Token> Lexer::LexBackquoted() {
  int64_t begin = static_cast<int64_t>(pos_);
  ++pos_;
  std::string out;
  while (true) {
    if (pos_ >= text_.size()) return ErrorAt(begin, text_.substr(begin));
    char c = text_[pos_++];
    if (c == '`') {
      if (pos_ < text_.size() && text_[pos_] == '`') {
        out.push_back('`');
        ++pos_;
        continue;
      }
      break;
    }
    out.push_back(c);
  }
  Token t;
  t.kind = TokenKind::kQuotedIdent;
  t.text = std::move(out);
  t.begin = begin;
  t.end = static_cast<int64_t>(pos_);
  return t;
}

Token Lexer::LexWord() {
  Token t;
  t.kind = TokenKind::kWord;
  t.begin = static_cast<int64_t>(pos_);
  while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
  t.end = static_cast<int64_t>(pos_);
  t.text = std::string(text_.substr(t.begin, t.end - t.begin));
  t.upper = ToUpper(t.text);
  return t;
}

Token Lexer::LexNumberOrWord() {
  // Longest numeric match (SqlBaseLexer: INTEGER_VALUE, DECIMAL_VALUE, EXPONENT_VALUE and
  // the suffixed literals); a longer run of word characters makes it an identifier
  // instead ("1a", "123abc"), as ANTLR's longest-match rule does.
  size_t start = pos_;
  size_t i = pos_;
  auto digits = [&]() {
    size_t n = 0;
    while (i < text_.size() && IsDigit(text_[i])) {
      ++i;
      ++n;
    }
    return n;
  };
  digits();
  bool has_dot = false;
  if (i < text_.size() && text_[i] == '.') {
    has_dot = true;
    ++i;
    digits();
  }
  bool has_exp = false;
  if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
    size_t j = i + 1;
    if (j < text_.size() && (text_[j] == '+' || text_[j] == '-')) ++j;
    if (j < text_.size() && IsDigit(text_[j])) {
      i = j;
      digits();
      has_exp = true;
    }
  }
  auto upper_at = [&](size_t k) -> char {
    return k < text_.size()
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(text_[k])))
               : '\0';
  };
  if (upper_at(i) == 'B' && upper_at(i + 1) == 'D') {
    i += 2;
  } else if (!has_dot && !has_exp &&
             (upper_at(i) == 'L' || upper_at(i) == 'S' || upper_at(i) == 'Y')) {
    ++i;
  } else if (upper_at(i) == 'D' || upper_at(i) == 'F') {
    ++i;
  }
  if (!has_dot) {
    size_t run = start;
    while (run < text_.size() && IsWordChar(text_[run])) ++run;
    if (run > i) return LexWord();
  }
  Token t;
  t.kind = TokenKind::kNumber;
  t.begin = static_cast<int64_t>(start);
  t.end = static_cast<int64_t>(i);
  t.text = std::string(text_.substr(start, i - start));
  pos_ = i;
  return t;
}

Result<Token> Lexer::NextToken() {
  Token t;
  t.begin = t.end = static_cast<int64_t>(pos_);
  if (pos_ >= text_.size()) return t;  // kEnd
  char c = text_[pos_];
  char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
  int64_t begin = static_cast<int64_t>(pos_);
  if (c == '\'' || c == '"') return LexQuoted(c, /*raw=*/false, begin);
  if (c == '`') return LexBackquoted();
  if ((c == 'r' || c == 'R') && (next == '\'' || next == '"')) {
    ++pos_;
    return LexQuoted(next, /*raw=*/true, begin);
  }
  if ((c == 'x' || c == 'X') && (next == '\'' || next == '"')) {
    ++pos_;
    SPATE_ASSIGN_OR_RETURN(Token s, LexQuoted(next, /*raw=*/true, begin));
    s.kind = TokenKind::kHexString;
    return s;
  }
  if (IsDigit(c) || (c == '.' && IsDigit(next))) {
    Token n = LexNumberOrWord();
    if (n.kind == TokenKind::kNumber && n.text.find('.') != std::string::npos &&
        pos_ < text_.size() && IsWordChar(text_[pos_])) {
      // SqlBaseLexer's isValidDecimal(): a decimal must not run into a word character.
      return ErrorAt(n.begin, text_.substr(n.begin, pos_ + 1 - n.begin));
    }
    return n;
  }
  if (IsWordStart(c)) return LexWord();
  t.kind = TokenKind::kOperator;
  // Hints: '/*+' opens one (HENT_START) and, inside it, '*/' closes it (HENT_END).
  for (std::string_view op : {std::string_view("/*+"), std::string_view("*/")}) {
    if (text_.substr(pos_, op.size()) == op && (op[0] == '/') != in_hint_) {
      in_hint_ = op[0] == '/';
      t.text = std::string(op);
      pos_ += op.size();
      t.end = static_cast<int64_t>(pos_);
      return t;
    }
  }
  for (std::string_view op : kLongOperators) {
    if (text_.substr(pos_, op.size()) == op) {
      t.text = std::string(op);
      pos_ += op.size();
      t.end = static_cast<int64_t>(pos_);
      return t;
    }
  }
  if (kShortOperators.find(c) != std::string_view::npos) {
    t.text = std::string(1, c);
    ++pos_;
    t.end = static_cast<int64_t>(pos_);
    return t;
  }
  return ErrorAt(begin, text_.substr(pos_, 1));
}

Result<std::vector<Token>> Lexer::Tokenize() {
  std::vector<Token> tokens;
  while (true) {
    SPATE_RETURN_IF_ERROR(SkipBlanks());
    SPATE_ASSIGN_OR_RETURN(Token t, NextToken());
    bool end = t.kind == TokenKind::kEnd;
    tokens.push_back(std::move(t));
    if (end) break;
  }
  return tokens;
}

std::vector<StatementRange> SplitStatementRanges(std::string_view text,
                                                 bool* unterminated,
                                                 bool* ends_with_semicolon) {
  std::vector<StatementRange> out;
  bool open = false;         // ends inside a quote or comment
  bool has_content = false;  // current piece has non-comment, non-blank text
  size_t content_begin = 0;
  size_t content_end = 0;
  bool last_was_semicolon = false;
  auto mark = [&](size_t b, size_t e) {
    if (!has_content) content_begin = b;
    has_content = true;
    content_end = e;
    last_was_semicolon = false;
  };
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (IsBlank(c)) {
      ++i;
    } else if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      while (i < n && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      int depth = 0;
      while (i < n) {
        if (text[i] == '/' && i + 1 < n && text[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (text[i] == '*' && i + 1 < n && text[i + 1] == '/') {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
      if (depth != 0) open = true;
    } else if (c == '\'' || c == '"' || c == '`') {
      size_t b = i++;
      bool closed = false;
      while (i < n) {
        if (c != '`' && text[i] == '\\') {
          i += 2;
          continue;
        }
        if (text[i] == c) {
          if (c == '`' && i + 1 < n && text[i + 1] == '`') {
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        ++i;
      }
      if (!closed) {
        open = true;
        i = n;
      }
      mark(b, std::min(i, n));
    } else if (c == ';') {
      if (has_content) out.push_back({content_begin, content_end});
      has_content = false;
      last_was_semicolon = true;
      ++i;
    } else {
      mark(i, i + 1);
      ++i;
    }
  }
  if (has_content) out.push_back({content_begin, content_end});
  if (unterminated != nullptr) *unterminated = open;
  if (ends_with_semicolon != nullptr) *ends_with_semicolon = last_was_semicolon;
  return out;
}

}  // namespace spate::sql
