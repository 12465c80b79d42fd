// Copyright spate authors.
#pragma once

// ForwardingFileSystem: every call goes to an inner FileSystem; subclasses override the
// calls they observe or change (tests: hooks, counters, injected failures).
//
// CountingFileSystem: forwards every call to another FileSystem and counts the reads
// (OpenForRead), listings (List) and metadata calls (Stat, Exists) on paths containing a
// given fragment (e.g. "/_delta_log/"). Used by tests and benchmarks that assert how
// much of a log an operation touches (issue 18: O(new commits), not O(log)).
//
// Ownership: shares the inner FileSystem. Thread safety: as the inner one; the counters
// are guarded by a mutex. Failure: the inner file system's results, unchanged.

#include <cstdint>
#include <mutex>
#include <string>

#include "spate/io/file_system.h"

namespace spate::io {

class ForwardingFileSystem : public FileSystem {
 public:
  explicit ForwardingFileSystem(FileSystemPtr inner) : inner_(std::move(inner)) {}
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(
      const std::string& path) override {
    return inner_->OpenForRead(path);
  }
  Result<std::unique_ptr<WritableFile>> Create(const std::string& path) override {
    return inner_->Create(path);
  }
  Result<std::vector<FileInfo>> List(const std::string& path, bool recursive) override {
    return inner_->List(path, recursive);
  }
  Result<FileInfo> Stat(const std::string& path) override { return inner_->Stat(path); }
  Result<bool> Exists(const std::string& path) override { return inner_->Exists(path); }
  Status MakeDirs(const std::string& path) override { return inner_->MakeDirs(path); }
  Status Rename(const std::string& from, const std::string& to) override {
    return inner_->Rename(from, to);
  }
  Status Delete(const std::string& path, bool recursive) override {
    return inner_->Delete(path, recursive);
  }
  Status WriteAtomic(const std::string& path, std::string_view data) override {
    return inner_->WriteAtomic(path, data);
  }
  Status PutIfAbsent(const std::string& path, std::string_view data) override {
    return inner_->PutIfAbsent(path, data);
  }
  Status SyncDir(const std::string& dir) override { return inner_->SyncDir(dir); }

 protected:
  FileSystemPtr inner_;
};

class CountingFileSystem final : public ForwardingFileSystem {
 public:
  struct Counts {
    int64_t opens = 0, lists = 0, stats = 0;
    int64_t total() const { return opens + lists + stats; }
  };
  /// Counts calls on paths containing `fragment` (a listed directory counts with a
  /// trailing '/').
  CountingFileSystem(FileSystemPtr inner, std::string fragment)
      : ForwardingFileSystem(std::move(inner)), fragment_(std::move(fragment)) {}

  /// The counts since the last Take(), and resets them.
  Counts Take() {
    std::lock_guard<std::mutex> l(mu_);
    Counts c = counts_;
    counts_ = {};
    return c;
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(
      const std::string& path) override {
    Count(path, &Counts::opens);
    return inner_->OpenForRead(path);
  }
  Result<std::vector<FileInfo>> List(const std::string& path, bool recursive) override {
    Count(path + "/", &Counts::lists);
    return inner_->List(path, recursive);
  }
  Result<FileInfo> Stat(const std::string& path) override {
    Count(path, &Counts::stats);
    return inner_->Stat(path);
  }
  Result<bool> Exists(const std::string& path) override {
    Count(path, &Counts::stats);
    return inner_->Exists(path);
  }

 private:
  void Count(const std::string& path, int64_t Counts::*field) {
    if (path.find(fragment_) == std::string::npos) return;
    std::lock_guard<std::mutex> l(mu_);
    counts_.*field += 1;
  }
  std::string fragment_;
  std::mutex mu_;
  Counts counts_;
};

}  // namespace spate::io
