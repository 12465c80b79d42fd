// Copyright spate authors.
#include "spate/table/deletion_vector.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "spate/base/json.h"
#include "spate/base/text_parse.h"
#include "spate/formats/file_writer.h"

namespace spate::table {

namespace {

constexpr uint32_t kPortableMagic = 1681511377;
constexpr uint32_t kSerialCookieNoRun = 12346;
constexpr uint32_t kSerialCookie = 12347;

Status Bad(const std::string& what, const std::string& why) {
  return Status(StatusCode::kDataCorruption,
                "Corrupt deletion vector (" + what + "): " + why);
}

// Bounds-checked little-endian reader.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool Has(size_t n) const { return pos_ + n <= b_.size() && pos_ + n >= pos_; }
  uint16_t U16() {
    uint16_t v =
        static_cast<uint8_t>(b_[pos_]) | (static_cast<uint8_t>(b_[pos_ + 1]) << 8);
    pos_ += 2;
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b_[pos_ + i]);
    pos_ += 4;
    return v;
  }
  uint64_t U64() {
    uint64_t lo = U32();
    uint64_t hi = U32();
    return lo | (hi << 32);
  }
  void Skip(size_t n) { pos_ += n; }
  size_t pos() const { return pos_; }
  void Seek(size_t p) { pos_ = p; }
  const char* at() const { return b_.data() + pos_; }

 private:
  std::string_view b_;
  size_t pos_ = 0;
};

// One portable 32-bit Roaring bitmap; appends (high << 32 | value) to `out`.
Status ParseRoaring32(Reader& r, uint64_t high, std::vector<uint64_t>* out,
                      const std::string& what) {
  if (!r.Has(4)) return Bad(what, "truncated bitmap header");
  const size_t start = r.pos();
  uint32_t cookie = r.U32();
  uint32_t size = 0;
  std::vector<uint8_t> run_flags;
  bool has_runs = false;
  if ((cookie & 0xFFFF) == kSerialCookie) {
    has_runs = true;
    size = (cookie >> 16) + 1;
    size_t nbytes = (size + 7) / 8;
    if (!r.Has(nbytes)) return Bad(what, "truncated run flags");
    run_flags.assign(r.at(), r.at() + nbytes);
    r.Skip(nbytes);
  } else if (cookie == kSerialCookieNoRun) {
    if (!r.Has(4)) return Bad(what, "truncated container count");
    size = r.U32();
  } else {
    return Bad(what, "unknown Roaring cookie " + std::to_string(cookie));
  }
  if (size > 65536) return Bad(what, "too many containers");
  if (!r.Has(static_cast<size_t>(size) * 4))
    return Bad(what, "truncated container headers");
  std::vector<uint16_t> keys(size);
  std::vector<uint32_t> cards(size);
  for (uint32_t i = 0; i < size; ++i) {
    keys[i] = r.U16();
    cards[i] = static_cast<uint32_t>(r.U16()) + 1;
  }
  if (!has_runs || size >= 4) {
    if (!r.Has(static_cast<size_t>(size) * 4)) return Bad(what, "truncated offsets");
    r.Skip(static_cast<size_t>(size) * 4);  // offsets: containers follow in order anyway
  }
  (void)start;
  for (uint32_t i = 0; i < size; ++i) {
    const uint64_t base = (high << 32) | (static_cast<uint64_t>(keys[i]) << 16);
    const bool is_run = has_runs && (run_flags[i / 8] >> (i % 8)) & 1;
    if (is_run) {
      if (!r.Has(2)) return Bad(what, "truncated run container");
      uint16_t nruns = r.U16();
      if (!r.Has(static_cast<size_t>(nruns) * 4)) return Bad(what, "truncated runs");
      for (uint16_t k = 0; k < nruns; ++k) {
        uint32_t s = r.U16();
        uint32_t len = r.U16();
        if (s + len > 0xFFFF) return Bad(what, "run past the container");
        for (uint32_t v = s; v <= s + len; ++v) out->push_back(base | v);
      }
    } else if (cards[i] <= 4096) {
      if (!r.Has(static_cast<size_t>(cards[i]) * 2))
        return Bad(what, "truncated array container");
      for (uint32_t k = 0; k < cards[i]; ++k) out->push_back(base | r.U16());
    } else {
      if (!r.Has(8192)) return Bad(what, "truncated bitmap container");
      for (uint32_t w = 0; w < 1024; ++w) {
        uint64_t word = r.U64();
        while (word) {
          int bit = __builtin_ctzll(word);
          out->push_back(base | (w * 64 + static_cast<uint32_t>(bit)));
          word &= word - 1;
        }
      }
    }
  }
  return Status::OK();
}

std::string UuidString(const std::string& b) {
  char buf[40];
  const auto* u = reinterpret_cast<const uint8_t*>(b.data());
  std::snprintf(buf, sizeof(buf),
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
                u[12], u[13], u[14], u[15]);
  return buf;
}

constexpr char kZ85Alphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/"
    "*?&<>()[]{}@%$#";

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void PutBe32(std::string* out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((v >> s) & 0xFF));
}

// One portable 32-bit Roaring bitmap of `values` (sorted, distinct), as Java's
// RoaringBitmap.serialize writes it without run containers: cookie, container count,
// (key, cardinality - 1) pairs, offsets from the bitmap's start, then the containers.
void SerializeRoaring32(const uint32_t* values, size_t n, std::string* out) {
  std::vector<std::pair<size_t, size_t>> containers;  // [begin, end) in values
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && (values[j] >> 16) == (values[i] >> 16)) ++j;
    containers.emplace_back(i, j);
    i = j;
  }
  const size_t start = out->size();
  PutLe(out, kSerialCookieNoRun, 4);
  PutLe(out, containers.size(), 4);
  for (const auto& [b, e] : containers) {
    PutLe(out, values[b] >> 16, 2);
    PutLe(out, e - b - 1, 2);
  }
  size_t offset = out->size() - start + 4 * containers.size();
  for (const auto& [b, e] : containers) {
    PutLe(out, offset, 4);
    offset += e - b <= 4096 ? 2 * (e - b) : 8192;
  }
  for (const auto& [b, e] : containers) {
    if (e - b <= 4096) {
      for (size_t k = b; k < e; ++k) PutLe(out, values[k] & 0xFFFF, 2);
    } else {
      std::vector<uint64_t> words(1024, 0);
      for (size_t k = b; k < e; ++k) {
        const uint32_t low = values[k] & 0xFFFF;
        words[low / 64] |= uint64_t{1} << (low % 64);
      }
      for (uint64_t w : words) PutLe(out, w, 8);
    }
  }
}

// "xxxxxxxx-xxxx-..." as its 16 bytes.
std::string UuidBytes(const std::string& text) {
  std::string hex;
  for (char c : text)
    if (c != '-') hex.push_back(c);
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(
        ParseInt32(std::string_view(hex).substr(i, 2), 16).value_or(0)));
  return out;
}

}  // namespace

std::string Z85Encode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() / 4 * 5);
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    uint64_t v = 0;
    for (size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<uint8_t>(bytes[i + k]);
    char digits[5];
    for (int k = 4; k >= 0; --k) {
      digits[k] = kZ85Alphabet[v % 85];
      v /= 85;
    }
    out.append(digits, 5);
  }
  return out;
}

std::string SerializeDeletionVector(const std::vector<uint64_t>& rows) {
  std::string out;
  PutLe(&out, kPortableMagic, 4);
  const uint64_t bitmaps = rows.empty() ? 0 : (rows.back() >> 32) + 1;
  PutLe(&out, bitmaps, 8);
  size_t i = 0;
  std::vector<uint32_t> low;
  for (uint64_t key = 0; key < bitmaps; ++key) {
    low.clear();
    while (i < rows.size() && (rows[i] >> 32) == key)
      low.push_back(static_cast<uint32_t>(rows[i++]));
    PutLe(&out, key, 4);
    SerializeRoaring32(low.data(), low.size(), &out);
  }
  return out;
}

Result<std::vector<DeletionVectorDescriptor>> WriteDeletionVectors(
    io::FileSystem& fs, const std::string& table_path,
    const std::vector<std::vector<uint64_t>>& dvs, std::string* file_path) {
  const std::string uuid = UuidBytes(formats::NewUuid());
  const std::string path =
      io::JoinPath(table_path, "deletion_vector_" + UuidString(uuid) + ".bin");
  const std::string encoded = Z85Encode(uuid);
  std::string data(1, '\x01');  // format version
  std::vector<DeletionVectorDescriptor> out;
  for (const auto& rows : dvs) {
    const std::string bitmap = SerializeDeletionVector(rows);
    DeletionVectorDescriptor d;
    d.storage_type = "u";
    d.path_or_inline_dv = encoded;
    d.offset = static_cast<int32_t>(data.size());
    d.size_in_bytes = static_cast<int32_t>(bitmap.size());
    d.cardinality = static_cast<int64_t>(rows.size());
    PutBe32(&data, static_cast<uint32_t>(bitmap.size()));
    data += bitmap;
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bitmap.data()),
                static_cast<uInt>(bitmap.size()));
    PutBe32(&data, static_cast<uint32_t>(crc));
    out.push_back(std::move(d));
  }
  SPATE_ASSIGN_OR_RETURN(auto file, fs.Create(path));
  if (file_path) *file_path = path;
  SPATE_RETURN_IF_ERROR(file->Append(data));
  SPATE_RETURN_IF_ERROR(file->Close());
  return out;
}

AddFile WithDeletionVector(const AddFile& add, DeletionVectorDescriptor dv) {
  AddFile a = add;
  a.deletion_vector = std::move(dv);
  a.data_change = true;
  if (a.stats) {
    auto j = Json::Parse(*a.stats);
    if (j.ok() && j->is_object()) {
      j->Set("tightBounds", Json::Bool(false));
      a.stats = j->ToString();
    }
  }
  return a;
}

std::optional<int64_t> LogicalRecords(const AddFile& add) {
  if (!add.stats) return std::nullopt;
  auto j = Json::Parse(*add.stats);
  if (!j.ok() || !j->is_object()) return std::nullopt;
  auto n = j->GetInt("numRecords");
  if (!n) return std::nullopt;
  return *n - (add.deletion_vector ? add.deletion_vector->cardinality : 0);
}

Result<std::string> Z85Decode(std::string_view text) {
  const char* kAlphabet = kZ85Alphabet;
  int8_t map[256];
  std::memset(map, -1, sizeof(map));
  for (int i = 0; i < 85; ++i)
    map[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  if (text.size() % 5 != 0) return Bad("Z85", "length is not a multiple of 5");
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t v = 0;
    for (size_t k = 0; k < 5; ++k) {
      int d = map[static_cast<uint8_t>(text[i + k])];
      if (d < 0) return Bad("Z85", "invalid character");
      v = v * 85 + static_cast<uint64_t>(d);
    }
    if (v > 0xFFFFFFFFull) return Bad("Z85", "value out of range");
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
  }
  return out;
}

Result<std::vector<uint64_t>> ParseDeletionVector(std::string_view bytes,
                                                  const std::string& what) {
  Reader r(bytes);
  if (!r.Has(12)) return Bad(what, "too short");
  uint32_t magic = r.U32();
  if (magic != kPortableMagic)
    return Bad(what, "unexpected magic number " + std::to_string(magic));
  uint64_t n = r.U64();
  if (n > bytes.size()) return Bad(what, "bitmap count out of range");
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < n; ++i) {
    if (!r.Has(4)) return Bad(what, "truncated bitmap key");
    uint64_t key = r.U32();
    SPATE_RETURN_IF_ERROR(ParseRoaring32(r, key, &out, what));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::string> DeletionVectorPath(const DeletionVectorDescriptor& dv,
                                       const std::string& table_path) {
  if (dv.storage_type == "i") return std::string();
  if (dv.storage_type == "p") {
    std::string p = dv.path_or_inline_dv;
    if (p.rfind("file://", 0) == 0)
      p = p.substr(7);
    else if (p.rfind("file:", 0) == 0)
      p = p.substr(5);
    return DecodePathUri(p);
  }
  if (dv.storage_type != "u") {
    return Bad(dv.path_or_inline_dv, "unknown storage type '" + dv.storage_type + "'");
  }
  const std::string& s = dv.path_or_inline_dv;
  if (s.size() < 20) return Bad(s, "path shorter than a Z85 UUID");
  std::string prefix = s.substr(0, s.size() - 20);
  SPATE_ASSIGN_OR_RETURN(std::string uuid,
                         Z85Decode(std::string_view(s).substr(s.size() - 20)));
  std::string name = "deletion_vector_" + UuidString(uuid) + ".bin";
  return prefix.empty() ? io::JoinPath(table_path, name)
                        : io::JoinPath(io::JoinPath(table_path, prefix), name);
}

Result<std::vector<uint64_t>> LoadDeletionVector(io::FileSystem& fs,
                                                 const DeletionVectorDescriptor& dv,
                                                 const std::string& table_path) {
  std::vector<uint64_t> rows;
  if (dv.storage_type == "i") {
    SPATE_ASSIGN_OR_RETURN(std::string bytes, Z85Decode(dv.path_or_inline_dv));
    SPATE_ASSIGN_OR_RETURN(rows, ParseDeletionVector(bytes, "inline deletion vector"));
  } else {
    SPATE_ASSIGN_OR_RETURN(std::string path, DeletionVectorPath(dv, table_path));
    SPATE_ASSIGN_OR_RETURN(auto file, fs.OpenForRead(path));
    const int64_t offset = dv.offset.value_or(1);
    if (offset < 1 || dv.size_in_bytes < 0 ||
        offset + 4 + dv.size_in_bytes > file->Size()) {
      return Bad(path, "offset/size outside the file");
    }
    std::string head;
    SPATE_RETURN_IF_ERROR(file->ReadAt(0, 1, &head));
    if (head[0] != 1) return Bad(path, "unsupported format version");
    std::string size_be;
    SPATE_RETURN_IF_ERROR(file->ReadAt(offset, 4, &size_be));
    uint32_t size = 0;
    for (char c : size_be) size = (size << 8) | static_cast<uint8_t>(c);
    if (size != static_cast<uint32_t>(dv.size_in_bytes)) {
      return Bad(path, "size " + std::to_string(size) + " differs from the log's " +
                           std::to_string(dv.size_in_bytes));
    }
    std::string bytes;
    SPATE_RETURN_IF_ERROR(file->ReadAt(offset + 4, size, &bytes));
    SPATE_ASSIGN_OR_RETURN(rows, ParseDeletionVector(bytes, path));
  }
  if (static_cast<int64_t>(rows.size()) != dv.cardinality) {
    return Bad(dv.storage_type == "i" ? "inline deletion vector" : dv.path_or_inline_dv,
               "cardinality " + std::to_string(rows.size()) + " differs from the log's " +
                   std::to_string(dv.cardinality));
  }
  return rows;
}

}  // namespace spate::table
