// Copyright spate authors.
#pragma once

// The container format of every state file (delta, snapshot, changelog, RocksDB
// checkpoint) and the helpers the two providers share: file naming, listing of a
// store folder, record encoding, and the CANNOT_LOAD_STATE_STORE errors. Internal to the
// state module; the format is described in docs/state.md.
//
// A file is a 40-byte header and a payload:
//   magic "SPST" | format version (1) u8 | kind u8 | codec u8 | 0 u8
//   | uncompressed payload size u64 | stored payload size u64 | aux u64
//   | crc32 (zlib) of the header's first 32 bytes and the stored payload u32 | 0 u32
// The payload (after decompression) is a sequence of records:
//   op u8 (1 put, 2 remove) | varint key length | key | [put: varint value length |
//   value]
//
// Thread safety: pure functions. Failure: DecodeStateFile returns
// CANNOT_LOAD_STATE_STORE.UNCATEGORIZED naming the file for a torn, truncated or corrupt
// file, never a partial payload.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "spate/base/status.h"
#include "spate/io/file_system.h"
#include "spate/state/state_store.h"

namespace spate::state {

enum class StateFileKind : uint8_t {
  kDelta = 1,
  kSnapshot = 2,
  kChangelog = 3,
  kCheckpoint = 4,
};

enum class FileCodec : uint8_t { kNone = 0, kZstd = 1, kLz4 = 2 };

/// "lz4" (Spark's default), "zstd" or "none"; an error naming the codec otherwise.
Result<FileCodec> ParseFileCodec(const std::string& name);

enum class RecordOp : uint8_t { kPut = 1, kRemove = 2 };

inline constexpr size_t kStateFileHeaderSize = 40;

void AppendPutRecord(std::string* records, std::string_view key, std::string_view value);
void AppendRemoveRecord(std::string* records, std::string_view key);

/// The bytes of a file holding `records` (compressed with `codec`); `aux` is a
/// kind-specific number (the key count after a changelog or checkpoint).
std::string EncodeStateFile(StateFileKind kind, FileCodec codec, std::string_view records,
                            uint64_t aux = 0);

struct DecodedStateFile {
  std::string records;
  uint64_t aux = 0;
};

/// Checks and decompresses file bytes read from `path`; `owner` names the provider in
/// errors (Spark's provider toString).
Result<DecodedStateFile> DecodeStateFile(std::string_view bytes, StateFileKind kind,
                                         const std::string& path,
                                         const std::string& owner);

/// Calls fn for each record; a malformed record fails with
/// CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_KEY_SIZE / ..._SNAPSHOT_FILE_... naming
/// the file.
Status ForEachRecord(std::string_view records, StateFileKind kind,
                     const std::string& path, const std::string& owner,
                     const std::function<void(RecordOp op, std::string_view key,
                                              std::string_view value)>& fn);

/// CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS (deltas, changelogs) or
/// CANNOT_READ_MISSING_SNAPSHOT_FILE (snapshots, checkpoints).
Status MissingStateFile(StateFileKind kind, const std::string& path,
                        const std::string& owner);

/// Reads and decodes one file; a missing file is MissingStateFile, an I/O error is kept.
Result<DecodedStateFile> ReadStateFile(io::FileSystem& fs, const std::string& path,
                                       StateFileKind kind, const std::string& owner);

/// "<dir>/<version>.<suffix>".
std::string VersionFile(const std::string& dir, int64_t version, std::string_view suffix);

/// The versions of the files "<version>.<suffix>" in `dir`, by suffix. A provider lists
/// its folder once and then keeps the listing up to date with its own writes (a store
/// folder has one writer at a time), so maintenance does not list every batch.
struct StoreFiles {
  using FileVersions = std::map<int64_t, std::string>;  // version -> path
  std::map<std::string, FileVersions, std::less<>> by_suffix;
  const FileVersions& Of(std::string_view suffix) const;
  void Add(std::string_view suffix, int64_t version, std::string path);
  void Erase(std::string_view suffix, int64_t version);
};
/// Lists `dir` (a missing folder has no files). Other names (temp files) are ignored.
Result<StoreFiles> ListStoreFiles(io::FileSystem& fs, const std::string& dir);

/// Deletes the files no longer needed to load any of the last `retain` versions up to
/// `latest`: with S the newest base (snapshot/checkpoint) at or before the earliest
/// retained version, every base older than S and every delta/changelog at or before S.
Status PurgeStoreFiles(io::FileSystem& fs, StoreFiles* files, std::string_view base,
                       std::string_view incremental, int64_t latest, int64_t retain);

/// Maintenance shared by the providers, over the listing *files (listed first when
/// empty): when `loaded` (the version held in memory, committed; -1 when there is none)
/// is the newest version and at least `min_deltas` versions after the newest base, calls
/// write_base() to write base file <loaded>.<base>; then PurgeStoreFiles.
Status MaintainStoreFiles(io::FileSystem& fs, const std::string& dir,
                          std::optional<StoreFiles>* files, std::string_view base,
                          std::string_view incremental, int64_t loaded,
                          int64_t min_deltas, int64_t retain,
                          const std::function<Status()>& write_base);

/// CANNOT_LOAD_STATE_STORE.UNEXPECTED_VERSION for a negative version.
Status CheckVersion(int64_t version);

}  // namespace spate::state
