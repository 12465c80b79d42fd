// Copyright spate authors.
#include "spate/state/state_file.h"

#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "spate/base/text_parse.h"
#include "spate/state/bytes.h"
#include "spate/types/data_type.h"

namespace spate::state {

namespace {

constexpr char kMagic[4] = {'S', 'P', 'S', 'T'};
constexpr uint8_t kFormatVersion = 1;
// Payloads above this are refused (a corrupt size field must not allocate wildly).
constexpr uint64_t kMaxPayload = uint64_t{1} << 40;

std::string_view KindName(StateFileKind kind) {
  switch (kind) {
    case StateFileKind::kDelta:
      return "delta";
    case StateFileKind::kSnapshot:
      return "snapshot";
    case StateFileKind::kChangelog:
      return "changelog";
    case StateFileKind::kCheckpoint:
      return "checkpoint";
  }
  return "state";
}

bool IsIncremental(StateFileKind kind) {
  return kind == StateFileKind::kDelta || kind == StateFileKind::kChangelog;
}

uint32_t Crc(std::string_view header32, std::string_view payload) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(header32.data()),
              static_cast<uInt>(header32.size()));
  // zlib takes uInt lengths: feed large payloads in pieces.
  const auto* p = reinterpret_cast<const Bytef*>(payload.data());
  size_t left = payload.size();
  while (left > 0) {
    auto n = static_cast<uInt>(std::min<size_t>(left, 1u << 30));
    crc = crc32(crc, p, n);
    p += n;
    left -= n;
  }
  return static_cast<uint32_t>(crc);
}

Status Corrupt(StateFileKind kind, const std::string& path, const std::string& owner,
               std::string_view what) {
  return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
      .WithContext("Error reading " + std::string(KindName(kind)) + " file " + path +
                   " of " + owner + ": " + std::string(what));
}

}  // namespace

Result<FileCodec> ParseFileCodec(const std::string& name) {
  std::string n = ToLower(name);
  if (n == "lz4") return FileCodec::kLz4;
  if (n == "zstd") return FileCodec::kZstd;
  if (n == "none" || n == "uncompressed") return FileCodec::kNone;
  return Status::Invalid("unsupported state store compression codec '" + name +
                         "' (lz4, zstd or none)");
}

void AppendPutRecord(std::string* records, std::string_view key, std::string_view value) {
  records->push_back(static_cast<char>(RecordOp::kPut));
  PutVarint(records, key.size());
  records->append(key);
  PutVarint(records, value.size());
  records->append(value);
}

void AppendRemoveRecord(std::string* records, std::string_view key) {
  records->push_back(static_cast<char>(RecordOp::kRemove));
  PutVarint(records, key.size());
  records->append(key);
}

std::string EncodeStateFile(StateFileKind kind, FileCodec codec, std::string_view records,
                            uint64_t aux) {
  std::string payload;
  if (codec == FileCodec::kZstd) {
    payload.resize(ZSTD_compressBound(records.size()));
    size_t n =
        ZSTD_compress(payload.data(), payload.size(), records.data(), records.size(), 1);
    if (ZSTD_isError(n)) {
      codec = FileCodec::kNone;
    } else {
      payload.resize(n);
    }
  } else if (codec == FileCodec::kLz4) {
    if (records.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
      codec = FileCodec::kZstd;
      return EncodeStateFile(kind, codec, records, aux);
    }
    payload.resize(
        static_cast<size_t>(LZ4_compressBound(static_cast<int>(records.size()))));
    int n = LZ4_compress_default(records.data(), payload.data(),
                                 static_cast<int>(records.size()),
                                 static_cast<int>(payload.size()));
    if (n <= 0) {
      codec = FileCodec::kNone;
    } else {
      payload.resize(static_cast<size_t>(n));
    }
  }
  if (codec == FileCodec::kNone) payload.assign(records);
  std::string out;
  out.reserve(kStateFileHeaderSize + payload.size());
  out.append(kMagic, 4);
  out.push_back(static_cast<char>(kFormatVersion));
  out.push_back(static_cast<char>(kind));
  out.push_back(static_cast<char>(codec));
  out.push_back('\0');
  PutFixed<uint64_t>(&out, records.size());
  PutFixed<uint64_t>(&out, payload.size());
  PutFixed<uint64_t>(&out, aux);
  PutFixed<uint32_t>(&out, Crc(out, payload));
  PutFixed<uint32_t>(&out, 0);
  out.append(payload);
  return out;
}

Result<DecodedStateFile> DecodeStateFile(std::string_view bytes, StateFileKind kind,
                                         const std::string& path,
                                         const std::string& owner) {
  if (bytes.size() < kStateFileHeaderSize) {
    return Corrupt(kind, path, owner,
                   "truncated header (" + std::to_string(bytes.size()) + " bytes)");
  }
  ByteReader r(bytes);
  std::string_view magic;
  uint8_t version = 0, file_kind = 0, codec = 0, pad = 0;
  uint64_t raw_size = 0, stored_size = 0, aux = 0;
  uint32_t crc = 0, pad32 = 0;
  (void)r.ReadBytes(4, &magic);
  (void)r.ReadFixed(&version);
  (void)r.ReadFixed(&file_kind);
  (void)r.ReadFixed(&codec);
  (void)r.ReadFixed(&pad);
  (void)r.ReadFixed(&raw_size);
  (void)r.ReadFixed(&stored_size);
  (void)r.ReadFixed(&aux);
  (void)r.ReadFixed(&crc);
  (void)r.ReadFixed(&pad32);
  if (magic != std::string_view(kMagic, 4) || pad != 0 || pad32 != 0) {
    return Corrupt(kind, path, owner, "bad header");
  }
  if (version != kFormatVersion) {
    return Corrupt(kind, path, owner,
                   "unsupported format version " + std::to_string(version));
  }
  if (file_kind != static_cast<uint8_t>(kind)) {
    return Corrupt(kind, path, owner, "not a " + std::string(KindName(kind)) + " file");
  }
  if (stored_size != bytes.size() - kStateFileHeaderSize) {
    return Corrupt(kind, path, owner,
                   "expected " + std::to_string(stored_size) + " payload bytes, found " +
                       std::to_string(bytes.size() - kStateFileHeaderSize) +
                       " (torn or truncated file)");
  }
  std::string_view payload = bytes.substr(kStateFileHeaderSize);
  if (Crc(bytes.substr(0, 32), payload) != crc) {
    return Corrupt(kind, path, owner, "checksum mismatch");
  }
  if (raw_size > kMaxPayload) return Corrupt(kind, path, owner, "payload too large");
  DecodedStateFile out;
  out.aux = aux;
  switch (static_cast<FileCodec>(codec)) {
    case FileCodec::kNone:
      if (raw_size != payload.size()) return Corrupt(kind, path, owner, "size mismatch");
      out.records.assign(payload);
      break;
    case FileCodec::kZstd: {
      out.records.resize(raw_size);
      size_t n =
          ZSTD_decompress(out.records.data(), raw_size, payload.data(), payload.size());
      if (ZSTD_isError(n) || n != raw_size) {
        return Corrupt(kind, path, owner, "zstd payload does not decompress");
      }
      break;
    }
    case FileCodec::kLz4: {
      if (raw_size > static_cast<uint64_t>(LZ4_MAX_INPUT_SIZE) ||
          payload.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
        return Corrupt(kind, path, owner, "lz4 payload too large");
      }
      out.records.resize(raw_size);
      int n = LZ4_decompress_safe(payload.data(), out.records.data(),
                                  static_cast<int>(payload.size()),
                                  static_cast<int>(raw_size));
      if (n < 0 || static_cast<uint64_t>(n) != raw_size) {
        return Corrupt(kind, path, owner, "lz4 payload does not decompress");
      }
      break;
    }
    default:
      return Corrupt(kind, path, owner, "unknown codec " + std::to_string(codec));
  }
  return out;
}

Status ForEachRecord(std::string_view records, StateFileKind kind,
                     const std::string& path, const std::string& owner,
                     const std::function<void(RecordOp op, std::string_view key,
                                              std::string_view value)>& fn) {
  ByteReader r(records);
  bool delta = IsIncremental(kind);
  // Spark's classes for a size field that cannot be read (it reports the size as -1).
  auto bad_size = [&](bool key) {
    std::string_view cls =
        delta ? "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_KEY_SIZE"
        : key ? "CANNOT_LOAD_STATE_STORE.CANNOT_READ_SNAPSHOT_FILE_KEY_SIZE"
              : "CANNOT_LOAD_STATE_STORE.CANNOT_READ_SNAPSHOT_FILE_VALUE_SIZE";
    std::vector<ErrorParam> params{{"fileToRead", path}, {"clazz", owner}};
    params.push_back({delta || key ? "keySize" : "valueSize", "-1"});
    return Status::Error(cls, std::move(params));
  };
  while (!r.at_end()) {
    uint8_t op;
    std::string_view key, value;
    (void)r.ReadFixed(&op);
    if (op != static_cast<uint8_t>(RecordOp::kPut) &&
        !(delta && op == static_cast<uint8_t>(RecordOp::kRemove))) {
      return Corrupt(kind, path, owner, "unknown record type " + std::to_string(op));
    }
    if (!r.ReadLengthPrefixed(&key)) return bad_size(true);
    if (op == static_cast<uint8_t>(RecordOp::kPut) && !r.ReadLengthPrefixed(&value)) {
      return bad_size(false);
    }
    fn(static_cast<RecordOp>(op), key, value);
  }
  return Status::OK();
}

Status MissingStateFile(StateFileKind kind, const std::string& path,
                        const std::string& owner) {
  if (IsIncremental(kind)) {
    return Status::Error("CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS",
                         {{"fileToRead", path}, {"clazz", owner}});
  }
  return Status::Error("CANNOT_LOAD_STATE_STORE.CANNOT_READ_MISSING_SNAPSHOT_FILE",
                       {{"fileToRead", path}, {"clazz", owner}});
}

Result<DecodedStateFile> ReadStateFile(io::FileSystem& fs, const std::string& path,
                                       StateFileKind kind, const std::string& owner) {
  auto bytes = fs.ReadAll(path);
  if (!bytes.ok()) {
    if (bytes.status().code() == StatusCode::kNotFound) {
      return MissingStateFile(kind, path, owner);
    }
    return bytes.status();
  }
  return DecodeStateFile(*bytes, kind, path, owner);
}

std::string VersionFile(const std::string& dir, int64_t version,
                        std::string_view suffix) {
  return io::JoinPath(dir, std::to_string(version) + "." + std::string(suffix));
}

const StoreFiles::FileVersions& StoreFiles::Of(std::string_view suffix) const {
  static const FileVersions kNone;
  auto it = by_suffix.find(suffix);
  return it == by_suffix.end() ? kNone : it->second;
}

void StoreFiles::Add(std::string_view suffix, int64_t version, std::string path) {
  auto it = by_suffix.find(suffix);
  if (it == by_suffix.end())
    it = by_suffix.emplace(std::string(suffix), FileVersions()).first;
  it->second[version] = std::move(path);
}

void StoreFiles::Erase(std::string_view suffix, int64_t version) {
  auto it = by_suffix.find(suffix);
  if (it != by_suffix.end()) it->second.erase(version);
}

Result<StoreFiles> ListStoreFiles(io::FileSystem& fs, const std::string& dir) {
  StoreFiles out;
  auto entries = fs.List(dir, false);
  if (!entries.ok()) {
    if (entries.status().code() == StatusCode::kNotFound) return out;
    return entries.status();
  }
  for (const io::FileInfo& f : *entries) {
    if (f.is_directory) continue;
    std::string name = io::BaseName(f.path);
    size_t dot = name.find('.');
    if (dot == 0 || dot == std::string::npos) continue;
    std::optional<int64_t> v = ParseInt64(std::string_view(name).substr(0, dot));
    if (!v || *v < 0) continue;
    out.Add(name.substr(dot + 1), *v, f.path);
  }
  return out;
}

Status PurgeStoreFiles(io::FileSystem& fs, StoreFiles* files, std::string_view base,
                       std::string_view incremental, int64_t latest, int64_t retain) {
  int64_t earliest = latest - std::max<int64_t>(retain, 1) + 1;
  const auto& bases = files->Of(base);
  auto it = bases.upper_bound(earliest);
  if (it == bases.begin()) return Status::OK();  // no base at or before: keep everything
  int64_t keep_base = std::prev(it)->first;
  std::vector<std::pair<std::string_view, int64_t>> deleted;
  auto remove = [&](std::string_view suffix, int64_t v, const std::string& path) {
    Status st = fs.Delete(path);
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
    deleted.emplace_back(suffix, v);
    return Status::OK();
  };
  Status st;
  for (const auto& [v, path] : bases) {
    if (v >= keep_base || !st.ok()) break;
    st = remove(base, v, path);
  }
  for (const auto& [v, path] : files->Of(incremental)) {
    if (v > keep_base || !st.ok()) break;
    st = remove(incremental, v, path);
  }
  for (const auto& [suffix, v] : deleted) files->Erase(suffix, v);
  return st;
}

Status MaintainStoreFiles(io::FileSystem& fs, const std::string& dir,
                          std::optional<StoreFiles>* files, std::string_view base,
                          std::string_view incremental, int64_t loaded,
                          int64_t min_deltas, int64_t retain,
                          const std::function<Status()>& write_base) {
  if (!*files) {
    SPATE_ASSIGN_OR_RETURN(StoreFiles listed, ListStoreFiles(fs, dir));
    *files = std::move(listed);
  }
  StoreFiles& f = **files;
  const auto& incrementals = f.Of(incremental);
  const auto& bases = f.Of(base);
  int64_t latest = incrementals.empty() ? 0 : incrementals.rbegin()->first;
  int64_t last_base = bases.empty() ? 0 : bases.rbegin()->first;
  if (loaded > 0 && loaded == latest && loaded - last_base >= min_deltas) {
    SPATE_RETURN_IF_ERROR(write_base());
    f.Add(base, loaded, VersionFile(dir, loaded, base));
  }
  return PurgeStoreFiles(fs, &f, base, incremental, latest, retain);
}

Status CheckVersion(int64_t version) {
  if (version >= 0) return Status::OK();
  return Status::Error("CANNOT_LOAD_STATE_STORE.UNEXPECTED_VERSION",
                       {{"version", std::to_string(version)}});
}

}  // namespace spate::state
