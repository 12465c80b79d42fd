// Copyright spate authors.
#include "spate/compute/string_kernels.h"

namespace spate::fn {

int HexDigitValue(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

int Base64DigitValue(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

bool UnhexInto(std::string_view s, std::string* out) {
  size_t k = 0;
  if (s.size() % 2 == 1) {
    int v = HexDigitValue(s[0]);
    if (v < 0) return false;
    out->push_back(static_cast<char>(v));
    k = 1;
  }
  for (; k < s.size(); k += 2) {
    int hi = HexDigitValue(s[k]), lo = HexDigitValue(s[k + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

int64_t NumChars(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

size_t ByteOffsetOfChar(std::string_view s, int64_t k) {
  size_t pos = 0;
  while (k > 0 && pos < s.size()) {
    pos += static_cast<size_t>(Utf8Len(static_cast<unsigned char>(s[pos])));
    --k;
  }
  return std::min(pos, s.size());
}

uint32_t DecodeUtf8(std::string_view s, size_t* pos) {
  unsigned char c = static_cast<unsigned char>(s[*pos]);
  int len = Utf8Len(c);
  if (*pos + static_cast<size_t>(len) > s.size()) len = 1;
  uint32_t cp;
  switch (len) {
    case 1:
      cp = c;
      break;
    case 2:
      cp = (c & 0x1Fu) << 6 | (static_cast<unsigned char>(s[*pos + 1]) & 0x3Fu);
      break;
    case 3:
      cp = (c & 0x0Fu) << 12 | (static_cast<unsigned char>(s[*pos + 1]) & 0x3Fu) << 6 |
           (static_cast<unsigned char>(s[*pos + 2]) & 0x3Fu);
      break;
    default:
      cp = (c & 0x07u) << 18 | (static_cast<unsigned char>(s[*pos + 1]) & 0x3Fu) << 12 |
           (static_cast<unsigned char>(s[*pos + 2]) & 0x3Fu) << 6 |
           (static_cast<unsigned char>(s[*pos + 3]) & 0x3Fu);
      break;
  }
  *pos += static_cast<size_t>(len);
  return cp;
}

std::string_view SubstringSql(std::string_view s, int64_t pos, int64_t len, bool bytes) {
  int64_t total = bytes ? static_cast<int64_t>(s.size()) : NumChars(s);
  int64_t start = pos > 0 ? pos - 1 : (pos < 0 ? total + pos : 0);
  int64_t end = start + len;  // both fit in int64 (inputs are int32)
  end = std::min<int64_t>(std::max<int64_t>(end, INT32_MIN), INT32_MAX);
  start = std::max<int64_t>(start, 0);
  if (start >= end || start >= total) return {};
  end = std::min(end, total);
  if (bytes)
    return s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start));
  size_t b = ByteOffsetOfChar(s, start);
  size_t e = b + ByteOffsetOfChar(s.substr(b), end - start);
  return s.substr(b, e - b);
}

StringArrayBuilder::StringArrayBuilder(int64_t n, bool contains_null)
    : contains_null_(contains_null), child_(DataType::String(), n * 2, n * 16) {
  offsets_.reserve(static_cast<size_t>(n + 1));
  offsets_.push_back(0);
}

ColumnPtr StringArrayBuilder::Finish() {
  int64_t n = static_cast<int64_t>(offsets_.size()) - 1;
  auto off = Buffer::Allocate((n + 1) * 4);
  std::memcpy(off->mutable_data(), offsets_.data(), offsets_.size() * 4);
  int64_t nulls = validity_.null_count();
  return std::make_shared<const Column>(
      DataType::Array(DataType::String(), contains_null_), n, nulls, validity_.Finish(),
      off, nullptr, std::vector<ColumnPtr>{child_.Finish()});
}

}  // namespace spate::fn
