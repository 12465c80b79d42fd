// Copyright spate authors.
#pragma once

// The Spark SQL lexer: turns statement text into tokens, following SqlBaseLexer.g4 in
// the default (non-ANSI-reserved) mode:
//   - words (keywords and identifiers alike; the parser decides which is which),
//     case-insensitive; `back quoted` identifiers with `` as an escaped backquote;
//   - string literals in '...' or "..." with Java-style backslash escapes, raw strings
//     R'...', hex binary literals X'...';
//   - numbers with Spark's suffixes (L, S, Y, D, F, BD) and exponents;
//   - operators, with the longest match ("<=>", "<>", "::", "->", "||" ...);
//   - comments (-- to end of line, nested /* ... */) and whitespace are skipped.
// Positions are 0-based byte offsets into the text.
//
// Thread safety: Lexer is a short-lived, single-threaded object; Tokenize is stateless.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"

namespace spate::sql {

enum class TokenKind : uint8_t {
  kWord,         // unquoted identifier or keyword: text as written, upper = uppercased
  kQuotedIdent,  // `...`: text is the unescaped identifier
  kString,       // '...' / "...": text is the unescaped value
  kNumber,       // numeric literal: text is the raw source (with suffix)
  kHexString,    // X'...': text is the hex digits between the quotes
  kOperator,     // punctuation / operator: text is the symbol ('/*+' and '*/' delimit
                 // a hint)
  kEnd,          // end of input
};

/// One lexical token.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  /// Uppercased text for kWord (for keyword comparisons); empty otherwise.
  std::string upper;
  int64_t begin = 0;  // offset of the first byte
  int64_t end = 0;    // offset one past the last byte

  bool IsWord() const { return kind == TokenKind::kWord; }
  /// True for an unquoted word equal to `keyword` (given in upper case).
  bool Is(std::string_view keyword) const {
    return kind == TokenKind::kWord && upper == keyword;
  }
  /// True for the operator `op`.
  bool IsOp(std::string_view op) const {
    return kind == TokenKind::kOperator && text == op;
  }
};

/// Splits SQL text into tokens.
///
/// Ownership: keeps a view of the text, which must outlive the Lexer.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}
  Lexer(const Lexer&) = delete;
  Lexer& operator=(const Lexer&) = delete;

  /// All tokens of the text, ending with one kEnd token. Fails with PARSE_SYNTAX_ERROR
  /// (unterminated quote, unexpected character) or UNCLOSED_BRACKETED_COMMENT.
  Result<std::vector<Token>> Tokenize();

  /// Convenience for Lexer(text).Tokenize().
  static Result<std::vector<Token>> Tokenize(std::string_view text) {
    return Lexer(text).Tokenize();
  }

 private:
  // Skips whitespace and comments; fails on an unclosed block comment.
  Status SkipBlanks();
  Result<Token> NextToken();
  Result<Token> LexQuoted(char quote, bool raw, int64_t begin);
  Result<Token> LexBackquoted();
  Token LexNumberOrWord();
  Token LexWord();
  Status ErrorAt(int64_t pos, std::string_view near) const;

  std::string_view text_;
  size_t pos_ = 0;
  bool in_hint_ = false;  // between '/*+' and its '*/'
};

/// Source ranges [begin, end) of the ';'-separated statements of a script, splitting only
/// at top-level ';' (outside quotes, backquotes and comments); ranges are trimmed of
/// whitespace and blank pieces are dropped. `unterminated` (if given) is set when the
/// text ends inside a quote or comment.
struct StatementRange {
  size_t begin = 0;
  size_t end = 0;
};
std::vector<StatementRange> SplitStatementRanges(std::string_view text,
                                                 bool* unterminated = nullptr,
                                                 bool* ends_with_semicolon = nullptr);

}  // namespace spate::sql
