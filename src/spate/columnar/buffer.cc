// Copyright spate authors.
#include "spate/columnar/buffer.h"

#include <cstdlib>
#include <new>

namespace spate {

namespace {
int64_t RoundUp64(int64_t n) { return (n + 63) & ~int64_t{63}; }
}  // namespace

std::shared_ptr<Buffer> Buffer::Allocate(int64_t size) {
  auto buf = AllocateUninitialized(size);
  std::memset(buf->data_, 0, static_cast<size_t>(buf->capacity_));
  return buf;
}

std::shared_ptr<Buffer> Buffer::AllocateUninitialized(int64_t size) {
  auto buf = std::make_shared<Buffer>();
  int64_t cap = RoundUp64(size < 64 ? 64 : size);
  buf->data_ = static_cast<uint8_t*>(std::aligned_alloc(64, static_cast<size_t>(cap)));
  if (buf->data_ == nullptr) throw std::bad_alloc();
  buf->size_ = size;
  buf->capacity_ = cap;
  buf->tracker_ = MemoryTracker::Current();
  if (buf->tracker_) buf->tracker_->Consume(cap);
  return buf;
}

std::shared_ptr<Buffer> Buffer::Wrap(const void* data, int64_t size,
                                     std::function<void()> release) {
  auto buf = std::make_shared<Buffer>();
  buf->data_ = const_cast<uint8_t*>(static_cast<const uint8_t*>(data));
  buf->size_ = size;
  buf->capacity_ = size;
  buf->owned_ = false;
  buf->release_ = std::move(release);
  return buf;
}

Buffer::~Buffer() {
  if (owned_) {
    std::free(data_);
    if (tracker_) tracker_->Release(capacity_);
  } else if (release_) {
    release_();
  }
}

void Buffer::Resize(int64_t new_size) {
  if (new_size <= capacity_) {
    size_ = new_size;
    return;
  }
  int64_t cap = RoundUp64(std::max(new_size, capacity_ * 2));
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, static_cast<size_t>(cap)));
  if (p == nullptr) throw std::bad_alloc();
  // Keep the whole old allocation: builders write ahead of size() within capacity().
  if (data_) std::memcpy(p, data_, static_cast<size_t>(capacity_));
  std::memset(p + capacity_, 0, static_cast<size_t>(cap - capacity_));
  std::free(data_);
  if (tracker_) tracker_->Consume(cap - capacity_);
  data_ = p;
  capacity_ = cap;
  size_ = new_size;
}

namespace bits {
int64_t CountSet(const uint8_t* b, int64_t n) {
  int64_t count = 0;
  int64_t full = n / 64;
  const uint8_t* p = b;
  for (int64_t i = 0; i < full; ++i, p += 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    count += __builtin_popcountll(w);
  }
  for (int64_t i = full * 64; i < n; ++i) count += Get(b, i);
  return count;
}

void And(const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  int64_t nbytes = BytesFor(n);
  for (int64_t i = 0; i < nbytes; ++i) out[i] = a[i] & b[i];
}
}  // namespace bits

}  // namespace spate
