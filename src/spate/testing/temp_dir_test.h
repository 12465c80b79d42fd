// Copyright spate authors.
#pragma once

// gtest fixtures for tests that read and write real files: each test gets a fresh
// temporary folder, deleted after it (TempDirTest), and with WarehouseTest a session of
// its own whose warehouse is in that folder.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "spate/api/session.h"
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

class WarehouseTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    spark_ = std::make_unique<api::SparkSession>(
        api::SparkSession::builder().getOrCreate().newSession());
    spark_->conf().set("spark.sql.warehouse.dir", P("warehouse"));
  }

  std::unique_ptr<api::SparkSession> spark_;
};

}  // namespace spate::testing
