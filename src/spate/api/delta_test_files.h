// Copyright spate authors.
#pragma once

// Test helper (delta_dml_test, delta_merge_test): makes chosen data files of a Delta
// table unreadable, so a command that opens one fails, and puts them back. Tests of file
// skipping use it to show which files a command reads.
//
// Ownership: holds the paths it broke. Thread safety: none (one test). Failure: gtest
// assertions.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "spate/base/json.h"
#include "spate/io/file_system.h"
#include "spate/table/delta_log.h"

namespace spate::api {

class UnreadableFiles {
 public:
  ~UnreadableFiles() { Restore(); }
  /// Breaks each live file of the table at `path` whose stats `pick` selects (its bytes
  /// are kept for Restore).
  void Break(const std::string& path, const std::function<bool(const Json&)>& pick) {
    table::DeltaLog log(io::LocalFileSystem::Get(), path);
    auto snap = log.Latest();
    ASSERT_TRUE(snap.ok());
    for (const auto& f : (*snap)->files()) {
      auto stats = Json::Parse(*f.stats);
      ASSERT_TRUE(stats.ok());
      if (!pick(*stats)) continue;
      const std::string file = (*snap)->DataFilePath(f);
      std::filesystem::copy_file(file, file + ".kept");
      std::ofstream(file, std::ios::trunc) << "not parquet";
      broken_.push_back(file);
    }
  }
  void Restore() {
    for (const auto& f : broken_) {
      std::filesystem::remove(f);
      std::filesystem::rename(f + ".kept", f);
    }
    broken_.clear();
  }

 private:
  std::vector<std::string> broken_;
};

}  // namespace spate::api
