// Copyright spate authors.
#include "spate/formats/json/json_text.h"

#include <cctype>
#include <cstring>

namespace spate::formats::json {

namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

bool RewriteLenient(std::string_view s, const JsonOptions& o, std::string* out) {
  out->clear();
  out->reserve(s.size() + 16);
  bool changed = false;
  size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '"' || (c == '\'' && o.allow_single_quotes)) {
      char q = c;
      if (q == '\'') changed = true;
      out->push_back('"');
      ++i;
      while (i < n && s[i] != q) {
        char d = s[i];
        if (d == '\\' && i + 1 < n) {
          char e = s[i + 1];
          bool standard = std::strchr("\"\\/bfnrtu", e) != nullptr;
          if (e == '\'' && q == '\'') {
            out->push_back('\'');
            changed = true;
          } else if (!standard && o.allow_backslash_escaping_any_character) {
            if (e == '\'') {
              out->push_back('\'');
            } else {
              out->push_back(e);
            }
            changed = true;
          } else {
            out->push_back(d);
            out->push_back(e);
          }
          i += 2;
          continue;
        }
        if (d == '"' && q == '\'') {
          *out += "\\\"";
          ++i;
          continue;
        }
        out->push_back(d);
        ++i;
      }
      if (i < n) ++i;
      out->push_back('"');
      continue;
    }
    if (o.allow_comments && c == '/' && i + 1 < n &&
        (s[i + 1] == '*' || s[i + 1] == '/')) {
      changed = true;
      if (s[i + 1] == '*') {
        size_t end = s.find("*/", i + 2);
        i = end == std::string_view::npos ? n : end + 2;
      } else {
        size_t end = s.find('\n', i + 2);
        i = end == std::string_view::npos ? n : end;
      }
      out->push_back(' ');
      continue;
    }
    if (IsIdentStart(c) ||
        ((c == '-' || c == '+') && i + 1 < n && IsIdentStart(s[i + 1]))) {
      size_t j = i + 1;
      while (j < n && IsIdentChar(s[j])) ++j;
      std::string_view word = s.substr(i, j - i);
      size_t k = j;
      while (k < n && IsSpace(s[k])) ++k;
      bool is_key = k < n && s[k] == ':';
      if (is_key && o.allow_unquoted_field_names && word[0] != '-' && word[0] != '+') {
        out->push_back('"');
        out->append(word);
        out->push_back('"');
        changed = true;
      } else if (!is_key && o.allow_non_numeric_numbers &&
                 (word == "NaN" || word == "Infinity" || word == "-Infinity" ||
                  word == "+Infinity" || word == "INF" || word == "+INF" ||
                  word == "-INF")) {
        out->push_back('"');
        out->append(word);
        out->push_back('"');
        changed = true;
      } else {
        out->append(word);
      }
      i = j;
      continue;
    }
    if (o.allow_numeric_leading_zeros && (c == '0' || c == '-')) {
      size_t j = i + (c == '-' ? 1 : 0);
      size_t z = j;
      while (z + 1 < n && s[z] == '0' && s[z + 1] >= '0' && s[z + 1] <= '9') ++z;
      if (z > j) {
        if (c == '-') out->push_back('-');
        changed = true;
        i = z;
        continue;
      }
    }
    if (c >= '0' && c <= '9') {
      // Copy the whole number so a later digit is not mistaken for a leading zero.
      size_t j = i;
      while (j < n && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                       s[j] == 'e' || s[j] == 'E' ||
                       ((s[j] == '+' || s[j] == '-') && j > i &&
                        (s[j - 1] == 'e' || s[j - 1] == 'E')))) {
        ++j;
      }
      out->append(s.substr(i, j - i));
      i = j;
      continue;
    }
    out->push_back(c);
    ++i;
  }
  return changed;
}

}  // namespace spate::formats::json
