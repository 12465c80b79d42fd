// Copyright spate authors.
#pragma once

// FileSystem: the storage interface every reader, writer and log in spate goes through
// (leveldb's Env, RocksDB's FileSystem). LocalFileSystem maps it onto POSIX files;
// MemoryFileSystem keeps files in memory for tests.
//
// Ownership: a FileSystem is shared (FileSystemPtr); the files it opens are owned by the
// caller (unique_ptr) and may outlive nothing but the FileSystem object itself.
// Thread safety: FileSystem methods are safe to call concurrently from any thread.
// A RandomAccessFile is safe for concurrent ReadAt() calls (positional reads, no cursor).
// A WritableFile is used by one thread at a time.
// Failure: every method returns a Status (never throws); I/O errors are kIOError,
// missing paths kNotFound, put-if-absent on an existing path kAlreadyExists. Every error
// message names the path involved.
//
// Paths are plain strings with '/' separators. Directories are implicit in
// MemoryFileSystem (any prefix of a file path is a directory).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"

namespace spate::io {

/// A file open for positional reads.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  /// Size in bytes at open time.
  virtual int64_t Size() const = 0;
  /// Reads exactly `length` bytes at `offset` into `out` (resized). Reading past the end
  /// is an error (kIOError naming the path).
  virtual Status ReadAt(int64_t offset, int64_t length, std::string* out) const = 0;
  /// Reads exactly `length` bytes at `offset` into caller memory `out`.
  virtual Status ReadInto(int64_t offset, int64_t length, uint8_t* out) const = 0;
  virtual const std::string& path() const = 0;
};

/// A file open for sequential appends. Data is visible to readers only after Close()
/// (MemoryFileSystem) or as the OS decides (LocalFileSystem).
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  /// Bytes appended so far.
  virtual int64_t Position() const = 0;
  /// Flushes to the OS and fsyncs (LocalFileSystem).
  virtual Status Sync() = 0;
  /// Flushes and closes; further calls fail. The destructor closes without reporting.
  virtual Status Close() = 0;
  virtual const std::string& path() const = 0;
};

struct FileInfo {
  std::string path;  // full path (as passed in + relative part)
  int64_t size = 0;
  bool is_directory = false;
  int64_t modification_time_ms = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(
      const std::string& path) = 0;
  /// Creates (truncating) a file for writing; parent directories must exist.
  virtual Result<std::unique_ptr<WritableFile>> Create(const std::string& path) = 0;
  /// Entries of directory `path`, sorted by path; with `recursive`, every file and
  /// directory below it. kNotFound when `path` is not a directory.
  virtual Result<std::vector<FileInfo>> List(const std::string& path, bool recursive) = 0;
  virtual Result<FileInfo> Stat(const std::string& path) = 0;
  virtual Result<bool> Exists(const std::string& path) = 0;
  /// Creates the directory and its missing parents (no error when it exists).
  virtual Status MakeDirs(const std::string& path) = 0;
  /// Renames `from` to `to`, replacing `to` if it is a file.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  /// Deletes a file, or with `recursive` a directory tree. Missing path: kNotFound.
  virtual Status Delete(const std::string& path, bool recursive = false) = 0;
  /// Writes `data` to `path` atomically: readers see the old contents or all of the new
  /// ones, never a prefix (temp file, fsync, rename, fsync of the directory).
  virtual Status WriteAtomic(const std::string& path, std::string_view data) = 0;
  /// Creates `path` with `data` only if it does not exist; kAlreadyExists otherwise.
  /// Atomic with respect to concurrent callers (the basis of log commits).
  virtual Status PutIfAbsent(const std::string& path, std::string_view data) = 0;
  /// Makes the entries of directory `dir` durable (LocalFileSystem: fsync of the
  /// directory), so files created or renamed into it survive a power loss once their own
  /// data is synced. A no-op where the store has no such notion (memory).
  virtual Status SyncDir(const std::string& dir) {
    (void)dir;
    return Status::OK();
  }

  /// Reads a whole file.
  Result<std::string> ReadAll(const std::string& path);
};
using FileSystemPtr = std::shared_ptr<FileSystem>;

/// POSIX files.
class LocalFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> Create(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& path, bool recursive) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Status MakeDirs(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Delete(const std::string& path, bool recursive) override;
  Status WriteAtomic(const std::string& path, std::string_view data) override;
  Status PutIfAbsent(const std::string& path, std::string_view data) override;
  Status SyncDir(const std::string& dir) override;

  /// The process-wide instance.
  static const std::shared_ptr<LocalFileSystem>& Get();
};

/// Files in memory (tests). Thread safe through one mutex.
class MemoryFileSystem final : public FileSystem {
 public:
  MemoryFileSystem();
  ~MemoryFileSystem() override;
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> Create(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& path, bool recursive) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Status MakeDirs(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Delete(const std::string& path, bool recursive) override;
  Status WriteAtomic(const std::string& path, std::string_view data) override;
  Status PutIfAbsent(const std::string& path, std::string_view data) override;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Path helpers ('/' separated).
std::string JoinPath(std::string_view dir, std::string_view name);
/// "a/b/c" -> "a/b"; "c" -> "".
std::string ParentPath(std::string_view path);
/// "a/b/c" -> "c".
std::string BaseName(std::string_view path);
/// A relative local path made absolute against the working directory and lexically
/// normalized ("./in" -> "/cwd/in"); absolute paths and URIs ("s3://...") unchanged.
std::string AbsolutePath(std::string_view path);

}  // namespace spate::io
