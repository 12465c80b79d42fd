// Copyright spate authors.
#pragma once

// A gtest fixture for tests that read and write real files: each test gets a fresh
// temporary folder, deleted after it.

#include <gtest/gtest.h>

#include <string>

#include "spate/io/file_system.h"
#include "spate/testing/temp_files.h"

namespace spate::testing {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTestDir("spate", "test"); }
  void TearDown() override { (void)io::LocalFileSystem::Get()->Delete(dir_, true); }
  /// The path of `rel` in the test's folder.
  std::string P(const std::string& rel) const { return dir_ + "/" + rel; }
  /// Writes `text` to `rel` in the test's folder, creating its parent folders.
  void Write(const std::string& rel, const std::string& text) const {
    auto fs = io::LocalFileSystem::Get();
    std::string path = P(rel);
    ASSERT_TRUE(fs->MakeDirs(path.substr(0, path.rfind('/'))).ok());
    ASSERT_TRUE(fs->WriteAtomic(path, text).ok());
  }

  std::string dir_;
};

}  // namespace spate::testing
