// Copyright spate authors.
#pragma once

// A FileSystem over another one that makes chosen writes fail, for the streaming test
// DSL's fault mode (stream_test.h, RunMode::kInjectedFaults) and crash-free fault tests.
//
// Every `every_nth` mutating call (Create, Rename, WriteAtomic, PutIfAbsent) fails once
// with an IOError whose text starts with kInjectedFault, until `max_faults` have failed;
// everything else goes to the wrapped FileSystem unchanged. A failed call changes nothing
// in the wrapped store (it is refused before it reaches it), as a write that never
// reached the disk.
//
// Ownership: holds a reference to the wrapped FileSystem. Thread safety: any thread (the
// counters are atomic).

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "spate/io/file_system.h"

namespace spate::testing {

inline constexpr const char* kInjectedFault = "injected fault";

class FaultInjectingFileSystem final : public io::FileSystem {
 public:
  FaultInjectingFileSystem(io::FileSystemPtr base, int every_nth, int max_faults)
      : base_(std::move(base)),
        every_nth_(every_nth < 1 ? 1 : every_nth),
        max_faults_(max_faults) {}

  /// Faults injected so far.
  int faults() const { return faults_.load(); }
  /// Mutating calls seen so far (failed ones included).
  int64_t writes() const { return writes_.load(); }

  Result<std::unique_ptr<io::RandomAccessFile>> OpenForRead(
      const std::string& p) override {
    return base_->OpenForRead(p);
  }
  Result<std::unique_ptr<io::WritableFile>> Create(const std::string& p) override {
    SPATE_RETURN_IF_ERROR(MaybeFail("create", p));
    return base_->Create(p);
  }
  Result<std::vector<io::FileInfo>> List(const std::string& p, bool recursive) override {
    return base_->List(p, recursive);
  }
  Result<io::FileInfo> Stat(const std::string& p) override { return base_->Stat(p); }
  Result<bool> Exists(const std::string& p) override { return base_->Exists(p); }
  Status MakeDirs(const std::string& p) override { return base_->MakeDirs(p); }
  Status Rename(const std::string& from, const std::string& to) override {
    SPATE_RETURN_IF_ERROR(MaybeFail("rename", to));
    return base_->Rename(from, to);
  }
  Status Delete(const std::string& p, bool recursive) override {
    return base_->Delete(p, recursive);
  }
  Status WriteAtomic(const std::string& p, std::string_view data) override {
    SPATE_RETURN_IF_ERROR(MaybeFail("write", p));
    return base_->WriteAtomic(p, data);
  }
  Status PutIfAbsent(const std::string& p, std::string_view data) override {
    SPATE_RETURN_IF_ERROR(MaybeFail("put-if-absent", p));
    return base_->PutIfAbsent(p, data);
  }
  Status SyncDir(const std::string& dir) override { return base_->SyncDir(dir); }

 private:
  Status MaybeFail(const char* op, const std::string& path) {
    const int64_t n = ++writes_;
    if (n % every_nth_ != 0) return Status::OK();
    int f = faults_.load();
    while (f < max_faults_) {
      if (faults_.compare_exchange_weak(f, f + 1)) {
        return Status::IOError(std::string(kInjectedFault) + " #" +
                               std::to_string(f + 1) + ": " + op + " " + path);
      }
    }
    return Status::OK();
  }

  io::FileSystemPtr base_;
  const int every_nth_;
  const int max_faults_;
  std::atomic<int64_t> writes_{0};
  std::atomic<int> faults_{0};
};

}  // namespace spate::testing
