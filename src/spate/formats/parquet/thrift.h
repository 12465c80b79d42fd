// Copyright spate authors.
#pragma once

// The Thrift compact protocol, written by hand for Parquet's footer and page headers
// (no Thrift library): varints, zigzag integers, field headers with id deltas, lists,
// nested structs, binary, and skipping of unknown fields.
//
// ThriftWriter appends to a std::string. ThriftReader reads from a byte range and
// bounds-checks every length and nesting level: malformed input gives a kDataCorruption
// Status, never a crash or an unbounded allocation.
//
// Thread safety: one object per thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"

namespace spate::formats::parquet {

/// Compact-protocol element types.
enum class TType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

class ThriftWriter {
 public:
  explicit ThriftWriter(std::string* out) : out_(out) {}

  void StructBegin() {
    stack_.push_back(last_id_);
    last_id_ = 0;
  }
  void StructEnd() {
    out_->push_back(0);  // stop
    last_id_ = stack_.back();
    stack_.pop_back();
  }
  void FieldBool(int16_t id, bool v) {
    FieldHeader(id, v ? TType::kBoolTrue : TType::kBoolFalse);
  }
  void FieldI8(int16_t id, int8_t v) {
    FieldHeader(id, TType::kByte);
    out_->push_back(static_cast<char>(v));
  }
  void FieldI32(int16_t id, int32_t v) {
    FieldHeader(id, TType::kI32);
    WriteVarint(ZigZag(v));
  }
  void FieldI64(int16_t id, int64_t v) {
    FieldHeader(id, TType::kI64);
    WriteVarint(ZigZag(v));
  }
  void FieldBinary(int16_t id, std::string_view v) {
    FieldHeader(id, TType::kBinary);
    WriteBinary(v);
  }
  /// Begins a struct-valued field; close with StructEnd().
  void FieldStructBegin(int16_t id) {
    FieldHeader(id, TType::kStruct);
    StructBegin();
  }
  /// Begins a list-valued field of `size` elements of `elem`; then write the elements
  /// with the bare writers below (structs with StructBegin/StructEnd).
  void FieldListBegin(int16_t id, TType elem, int64_t size) {
    FieldHeader(id, TType::kList);
    ListHeader(elem, size);
  }
  void ListHeader(TType elem, int64_t size) {
    if (size < 15) {
      out_->push_back(static_cast<char>((size << 4) | static_cast<int>(elem)));
    } else {
      out_->push_back(static_cast<char>(0xF0 | static_cast<int>(elem)));
      WriteVarint(static_cast<uint64_t>(size));
    }
  }
  void WriteI32(int32_t v) { WriteVarint(ZigZag(v)); }
  void WriteI64(int64_t v) { WriteVarint(ZigZag(v)); }
  void WriteBool(bool v) { out_->push_back(v ? 1 : 2); }
  void WriteBinary(std::string_view v) {
    WriteVarint(v.size());
    out_->append(v);
  }
  void WriteVarint(uint64_t v) {
    while (v >= 0x80) {
      out_->push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out_->push_back(static_cast<char>(v));
  }
  static uint64_t ZigZag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }

 private:
  void FieldHeader(int16_t id, TType type) {
    int delta = id - last_id_;
    if (delta > 0 && delta <= 15) {
      out_->push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
    } else {
      out_->push_back(static_cast<char>(type));
      WriteVarint(ZigZag(id));
    }
    last_id_ = id;
  }
  std::string* out_;
  int16_t last_id_ = 0;
  std::vector<int16_t> stack_;
};

class ThriftReader {
 public:
  ThriftReader(const uint8_t* data, int64_t size)
      : p_(data), end_(data + size), begin_(data) {}

  int64_t position() const { return p_ - begin_; }

  /// Starts reading a struct's fields.
  Status StructBegin();
  Status StructEnd();
  /// Reads the next field header; `type` kStop ends the struct. For bool fields the value
  /// is in the header: call ReadBool() which returns it without consuming bytes.
  Status FieldBegin(TType* type, int16_t* id);
  /// Skips a value of `type` (recursively, depth-limited).
  Status Skip(TType type);

  Status ReadBool(bool* v);
  Status ReadI8(int8_t* v);
  Status ReadI16(int16_t* v);
  Status ReadI32(int32_t* v);
  Status ReadI64(int64_t* v);
  Status ReadDouble(double* v);
  Status ReadBinary(std::string* v);
  /// Reads a list header; `size` is bounded by the bytes left.
  Status ListBegin(TType* elem, int64_t* size);

  /// Reads `type` as an integer value (i8/i16/i32/i64), failing on other types.
  Status ReadInt(TType type, int64_t* v);

 private:
  Status ReadVarint(uint64_t* v);
  Status Corrupt(std::string_view what) const;

  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
  std::vector<int16_t> stack_;
  int16_t last_id_ = 0;
  // Bool field value carried in the header, or -1 (read it from the stream).
  int pending_bool_ = -1;
  int depth_ = 0;
};

}  // namespace spate::formats::parquet
