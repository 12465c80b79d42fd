// Copyright spate authors.
#pragma once

// UTF-8 encoding helpers shared by the lexer, string functions and show() rendering.
// Pure functions.

#include <cstddef>
#include <cstdint>
#include <string>

namespace spate {

/// Appends the UTF-8 encoding of code point `cp` (REQUIRES: cp <= 0x10FFFF).
inline void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

/// The length of the well-formed UTF-8 sequence at `p` (`avail` bytes readable), or 0
/// when it is ill-formed, with *bad = the length of its maximal ill-formed subpart (the
/// bytes one U+FFFD replaces, as Java's decoder and Unicode's "best practice").
inline size_t Utf8Sequence(const unsigned char* p, size_t avail, size_t* bad) {
  const unsigned char c = p[0];
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *bad = 1;
    return 0;
  }
  for (size_t k = 1; k < len; ++k) {
    const unsigned char lo_k = k == 1 ? lo : 0x80, hi_k = k == 1 ? hi : 0xBF;
    if (k >= avail || p[k] < lo_k || p[k] > hi_k) {
      *bad = k;
      return 0;
    }
  }
  return len;
}

}  // namespace spate
