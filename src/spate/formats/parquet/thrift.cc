// Copyright spate authors.
#include "spate/formats/parquet/thrift.h"

#include <cstring>

namespace spate::formats::parquet {

namespace {
constexpr int kMaxDepth = 64;
}

Status ThriftReader::Corrupt(std::string_view what) const {
  return Status(StatusCode::kDataCorruption, "corrupt Thrift data at byte " +
                                                 std::to_string(p_ - begin_) + ": " +
                                                 std::string(what));
}

Status ThriftReader::ReadVarint(uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (p_ >= end_) return Corrupt("truncated varint");
    uint8_t b = *p_++;
    result |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      *v = result;
      return Status::OK();
    }
  }
  return Corrupt("varint too long");
}

Status ThriftReader::StructBegin() {
  if (++depth_ > kMaxDepth) return Corrupt("nesting too deep");
  stack_.push_back(last_id_);
  last_id_ = 0;
  return Status::OK();
}

Status ThriftReader::StructEnd() {
  if (stack_.empty()) return Corrupt("unbalanced struct end");
  last_id_ = stack_.back();
  stack_.pop_back();
  --depth_;
  return Status::OK();
}

Status ThriftReader::FieldBegin(TType* type, int16_t* id) {
  if (p_ >= end_) return Corrupt("truncated struct");
  uint8_t b = *p_++;
  uint8_t t = b & 0x0F;
  if (t == 0) {
    *type = TType::kStop;
    *id = 0;
    return Status::OK();
  }
  if (t > static_cast<uint8_t>(TType::kStruct))
    return Corrupt("unknown field type " + std::to_string(t));
  int delta = b >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(last_id_ + delta);
  } else {
    int64_t v;
    SPATE_RETURN_IF_ERROR(ReadI64(&v));
    *id = static_cast<int16_t>(v);
  }
  last_id_ = *id;
  *type = static_cast<TType>(t);
  pending_bool_ = t == 1 ? 1 : (t == 2 ? 0 : -1);
  return Status::OK();
}

Status ThriftReader::ReadBool(bool* v) {
  if (pending_bool_ >= 0) {
    *v = pending_bool_ == 1;
    pending_bool_ = -1;
    return Status::OK();
  }
  if (p_ >= end_) return Corrupt("truncated bool");
  *v = *p_++ == 1;
  return Status::OK();
}

Status ThriftReader::ReadI8(int8_t* v) {
  if (p_ >= end_) return Corrupt("truncated byte");
  *v = static_cast<int8_t>(*p_++);
  return Status::OK();
}

Status ThriftReader::ReadI16(int16_t* v) {
  int64_t x;
  SPATE_RETURN_IF_ERROR(ReadI64(&x));
  if (x < INT16_MIN || x > INT16_MAX) return Corrupt("i16 out of range");
  *v = static_cast<int16_t>(x);
  return Status::OK();
}

Status ThriftReader::ReadI32(int32_t* v) {
  int64_t x;
  SPATE_RETURN_IF_ERROR(ReadI64(&x));
  if (x < INT32_MIN || x > INT32_MAX) return Corrupt("i32 out of range");
  *v = static_cast<int32_t>(x);
  return Status::OK();
}

Status ThriftReader::ReadI64(int64_t* v) {
  uint64_t u;
  SPATE_RETURN_IF_ERROR(ReadVarint(&u));
  *v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  return Status::OK();
}

Status ThriftReader::ReadDouble(double* v) {
  if (end_ - p_ < 8) return Corrupt("truncated double");
  std::memcpy(v, p_, 8);
  p_ += 8;
  return Status::OK();
}

Status ThriftReader::ReadBinary(std::string* v) {
  uint64_t len;
  SPATE_RETURN_IF_ERROR(ReadVarint(&len));
  if (len > static_cast<uint64_t>(end_ - p_))
    return Corrupt("binary length " + std::to_string(len) + " past the end");
  v->assign(reinterpret_cast<const char*>(p_), len);
  p_ += len;
  return Status::OK();
}

Status ThriftReader::ListBegin(TType* elem, int64_t* size) {
  if (p_ >= end_) return Corrupt("truncated list header");
  uint8_t b = *p_++;
  uint8_t t = b & 0x0F;
  uint64_t n = b >> 4;
  if (n == 15) SPATE_RETURN_IF_ERROR(ReadVarint(&n));
  if (t == 0 || t > static_cast<uint8_t>(TType::kStruct))
    return Corrupt("bad list element type");
  // Every element takes at least one byte (bools in lists take one byte each too).
  if (n > static_cast<uint64_t>(end_ - p_))
    return Corrupt("list size " + std::to_string(n) + " past the end");
  *elem = static_cast<TType>(t);
  *size = static_cast<int64_t>(n);
  return Status::OK();
}

Status ThriftReader::ReadInt(TType type, int64_t* v) {
  switch (type) {
    case TType::kByte: {
      int8_t x;
      SPATE_RETURN_IF_ERROR(ReadI8(&x));
      *v = x;
      return Status::OK();
    }
    case TType::kI16:
    case TType::kI32:
    case TType::kI64:
      return ReadI64(v);
    default:
      return Corrupt("expected an integer field, got type " +
                     std::to_string(static_cast<int>(type)));
  }
}

Status ThriftReader::Skip(TType type) {
  if (depth_ > kMaxDepth) return Corrupt("nesting too deep");
  switch (type) {
    case TType::kBoolTrue:
    case TType::kBoolFalse: {
      bool b;
      return ReadBool(&b);
    }
    case TType::kByte: {
      int8_t b;
      return ReadI8(&b);
    }
    case TType::kI16:
    case TType::kI32:
    case TType::kI64: {
      uint64_t u;
      return ReadVarint(&u);
    }
    case TType::kDouble:
      if (end_ - p_ < 8) return Corrupt("truncated double");
      p_ += 8;
      return Status::OK();
    case TType::kBinary: {
      uint64_t len;
      SPATE_RETURN_IF_ERROR(ReadVarint(&len));
      if (len > static_cast<uint64_t>(end_ - p_))
        return Corrupt("binary length past the end");
      p_ += len;
      return Status::OK();
    }
    case TType::kList:
    case TType::kSet: {
      TType elem;
      int64_t n;
      SPATE_RETURN_IF_ERROR(ListBegin(&elem, &n));
      ++depth_;
      for (int64_t i = 0; i < n; ++i) {
        if (elem == TType::kBoolTrue || elem == TType::kBoolFalse) {
          if (p_ >= end_) return Corrupt("truncated bool");
          ++p_;
          continue;
        }
        SPATE_RETURN_IF_ERROR(Skip(elem));
      }
      --depth_;
      return Status::OK();
    }
    case TType::kMap: {
      uint64_t n;
      SPATE_RETURN_IF_ERROR(ReadVarint(&n));
      if (n == 0) return Status::OK();
      if (p_ >= end_) return Corrupt("truncated map");
      uint8_t kv = *p_++;
      if (n > static_cast<uint64_t>(end_ - p_)) return Corrupt("map size past the end");
      auto kt = static_cast<TType>(kv >> 4), vt = static_cast<TType>(kv & 0x0F);
      if (static_cast<int>(kt) == 0 || static_cast<int>(kt) > 12 ||
          static_cast<int>(vt) == 0 || static_cast<int>(vt) > 12) {
        return Corrupt("bad map types");
      }
      ++depth_;
      for (uint64_t i = 0; i < n; ++i) {
        SPATE_RETURN_IF_ERROR(Skip(kt));
        SPATE_RETURN_IF_ERROR(Skip(vt));
      }
      --depth_;
      return Status::OK();
    }
    case TType::kStruct: {
      SPATE_RETURN_IF_ERROR(StructBegin());
      while (true) {
        TType t;
        int16_t id;
        SPATE_RETURN_IF_ERROR(FieldBegin(&t, &id));
        if (t == TType::kStop) break;
        SPATE_RETURN_IF_ERROR(Skip(t));
      }
      return StructEnd();
    }
    default:
      return Corrupt("cannot skip type " + std::to_string(static_cast<int>(type)));
  }
}

}  // namespace spate::formats::parquet
