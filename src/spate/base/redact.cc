// Copyright spate authors.
#include "spate/base/redact.h"

#include <array>
#include <cctype>

namespace spate {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

bool IsJaasKey(std::string_view key) {
  return Lower(key).find("jaas") != std::string::npos;
}

}  // namespace

bool IsSecretKey(std::string_view key) {
  static constexpr std::array<std::string_view, 7> kWords = {
      "secret",    "password",   "token",      "access.key",
      "accesskey", "credential", "jaas.config"};
  const std::string l = Lower(key);
  for (std::string_view w : kWords) {
    if (l.find(w) != std::string::npos) return true;
  }
  return false;
}

std::string RedactValue(std::string_view key, std::string_view value) {
  return IsSecretKey(key) ? std::string(kRedactedText) : std::string(value);
}

std::string RedactText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!IsKeyChar(text[i]) || (i > 0 && IsKeyChar(text[i - 1]))) {
      out += text[i++];
      continue;
    }
    // A word starts at i.
    size_t end = i;
    while (end < text.size() && IsKeyChar(text[end])) ++end;
    std::string_view key = text.substr(i, end - i);
    out.append(key);
    i = end;
    if (!IsSecretKey(key)) continue;
    // Separator: optional closing quote of a JSON key, blanks, '=' or ':', blanks.
    size_t j = i;
    if (j < text.size() && (text[j] == '"' || text[j] == '\'')) ++j;
    while (j < text.size() && text[j] == ' ') ++j;
    if (j >= text.size() || (text[j] != '=' && text[j] != ':')) continue;
    ++j;
    while (j < text.size() && text[j] == ' ') ++j;
    out.append(text.substr(i, j - i));
    i = j;
    size_t v = i;
    if (v < text.size() && (text[v] == '"' || text[v] == '\'')) {
      char q = text[v];
      out += q;
      size_t close = v + 1;
      while (close < text.size() && text[close] != q) {
        close += (text[close] == '\\' && close + 1 < text.size()) ? 2 : 1;
      }
      out.append(kRedactedText);
      i = std::min(close, text.size());  // the closing quote is copied by the loop
      continue;
    }
    if (IsJaasKey(key)) {
      while (v < text.size() && text[v] != '\n') ++v;
    } else {
      while (v < text.size() && text[v] != ' ' && text[v] != '\t' && text[v] != '\n' &&
             text[v] != '"' && text[v] != '\'' && text[v] != ',' && text[v] != ';' &&
             text[v] != ')' && text[v] != ']' && text[v] != '}') {
        ++v;
      }
    }
    if (v > i) out.append(kRedactedText);
    i = v;
  }
  return out;
}

}  // namespace spate
