// Copyright spate authors.
#pragma once

// StringBounds: the smallest and largest of a stream of byte strings in unsigned byte
// order (Parquet's and Delta's order for STRING / BINARY statistics), with the first 8
// bytes of each bound kept as a big-endian word so that most values are placed by two
// integer comparisons instead of two memcmp calls.
//
// Ownership: the views point into the caller's data, which must outlive the object.
// Thread safety: one object per thread.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace spate::formats {

class StringBounds {
 public:
  void Add(std::string_view x) {
    const uint64_t p = Prefix(x);
    if (!any_) {
      lo_ = hi_ = x;
      lo_p_ = hi_p_ = p;
      any_ = true;
      return;
    }
    if (p < lo_p_ || (p == lo_p_ && x < lo_)) {
      lo_ = x;
      lo_p_ = p;
    }
    if (p > hi_p_ || (p == hi_p_ && x > hi_)) {
      hi_ = x;
      hi_p_ = p;
    }
  }
  bool any() const { return any_; }
  std::string_view min() const { return lo_; }
  std::string_view max() const { return hi_; }

 private:
  // The first 8 bytes, zero-filled, as a big-endian number: a < b in byte order implies
  // Prefix(a) <= Prefix(b).
  static uint64_t Prefix(std::string_view s) {
    uint64_t w = 0;
    if (s.size() >= 8) {
      std::memcpy(&w, s.data(), 8);
    } else {
      for (size_t i = 0; i < s.size(); ++i) {
        w |= static_cast<uint64_t>(static_cast<uint8_t>(s[i])) << (8 * i);
      }
    }
    return __builtin_bswap64(w);
  }

  bool any_ = false;
  std::string_view lo_, hi_;
  uint64_t lo_p_ = 0, hi_p_ = 0;
};

}  // namespace spate::formats
