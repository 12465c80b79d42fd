// Copyright spate authors.
#pragma once

// Little-endian fixed-width and LEB128 varint helpers shared by the row codec and the
// state file formats (internal to the state module).
//
// ByteReader never reads past its end: every Read* returns false instead, and the caller
// turns that into an error. Thread safety: values; one reader per thread.

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace spate::state {

static_assert(std::endian::native == std::endian::little,
              "state formats assume LE hosts");

inline void PutVarint(std::string* out, uint64_t v) {
  char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, n);
}

template <typename T>
inline void PutFixed(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

inline int VarintLength(uint64_t v) {
  int n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

/// A bounds-checked cursor over bytes.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(p_ + bytes.size()) {}
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool at_end() const { return p_ == end_; }
  const uint8_t* position() const { return p_; }

  bool ReadVarint(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64 && p_ < end_; shift += 7) {
      uint8_t b = *p_++;
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) {
        *v = result;
        return true;
      }
    }
    return false;
  }
  template <typename T>
  bool ReadFixed(T* v) {
    if (remaining() < sizeof(T)) return false;
    std::memcpy(v, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }
  /// A view of the next n bytes.
  bool ReadBytes(size_t n, std::string_view* v) {
    if (remaining() < n) return false;
    *v = {reinterpret_cast<const char*>(p_), n};
    p_ += n;
    return true;
  }
  /// Varint length + bytes.
  bool ReadLengthPrefixed(std::string_view* v) {
    uint64_t n;
    return ReadVarint(&n) && n <= remaining() && ReadBytes(static_cast<size_t>(n), v);
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace spate::state
