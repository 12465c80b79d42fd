// Copyright spate authors.
#include "spate/io/file_system.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <thread>

#include "spate/testing/status_matchers.h"

namespace spate::io {
namespace {

class FileSystemTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      char tmpl[] = "/tmp/spate_io_test_XXXXXX";
      ASSERT_NE(mkdtemp(tmpl), nullptr);
      root_ = tmpl;
      fs_ = std::make_shared<LocalFileSystem>();
    } else {
      root_ = "/mem";
      fs_ = std::make_shared<MemoryFileSystem>();
      ASSERT_TRUE(fs_->MakeDirs(root_).ok());
    }
  }
  void TearDown() override {
    if (GetParam()) (void)fs_->Delete(root_, true);
  }
  std::string P(const std::string& rel) { return JoinPath(root_, rel); }
  std::string root_;
  FileSystemPtr fs_;
};

TEST_P(FileSystemTest, WriteReadRandomAccess) {
  auto f = fs_->Create(P("a.bin"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_TRUE((*f)->Append("hello ").ok());
  ASSERT_TRUE((*f)->Append("world").ok());
  EXPECT_EQ((*f)->Position(), 11);
  ASSERT_TRUE((*f)->Close().ok());
  EXPECT_EQ((*f)->Position(), 11);  // the size written, also once closed
  auto r = fs_->OpenForRead(P("a.bin"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->Size(), 11);
  std::string out;
  ASSERT_TRUE((*r)->ReadAt(6, 5, &out).ok());
  EXPECT_EQ(out, "world");
  Status st = (*r)->ReadAt(8, 5, &out);
  EXPECT_ERROR_HAS(st, "is past the end of");
  EXPECT_ERROR_HAS(st, "a.bin");
}

TEST_P(FileSystemTest, MissingFileNamesPath) {
  auto r = fs_->OpenForRead(P("nope.parquet"));
  ASSERT_ERROR_HAS(r, "nope.parquet");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
}

TEST_P(FileSystemTest, ListMkdirsRenameDelete) {
  ASSERT_TRUE(fs_->MakeDirs(P("d/e/f")).ok());
  ASSERT_TRUE(fs_->WriteAtomic(P("d/x.txt"), "x").ok());
  ASSERT_TRUE(fs_->WriteAtomic(P("d/e/y.txt"), "yy").ok());
  auto flat = fs_->List(P("d"), false);
  ASSERT_TRUE(flat.ok());
  ASSERT_EQ(flat->size(), 2u);
  EXPECT_EQ((*flat)[0].path, P("d/e"));
  EXPECT_TRUE((*flat)[0].is_directory);
  EXPECT_EQ((*flat)[1].path, P("d/x.txt"));
  EXPECT_EQ((*flat)[1].size, 1);
  auto rec = fs_->List(P("d"), true);
  ASSERT_TRUE(rec.ok());
  ASSERT_EQ(rec->size(), 4u);  // d/e, d/e/f, d/e/y.txt, d/x.txt
  EXPECT_EQ((*rec)[2].path, P("d/e/y.txt"));
  ASSERT_TRUE(fs_->Rename(P("d/x.txt"), P("d/z.txt")).ok());
  EXPECT_FALSE(*fs_->Exists(P("d/x.txt")));
  EXPECT_EQ(*fs_->ReadAll(P("d/z.txt")), "x");
  EXPECT_ERROR_HAS(fs_->Delete(P("d"), false), P("d"));
  ASSERT_TRUE(fs_->Delete(P("d"), true).ok());
  EXPECT_FALSE(*fs_->Exists(P("d")));
  EXPECT_ERROR_HAS(fs_->List(P("d"), false), P("d"));
}

TEST_P(FileSystemTest, AtomicWriteReplaces) {
  ASSERT_TRUE(fs_->WriteAtomic(P("c.json"), "old").ok());
  ASSERT_TRUE(fs_->WriteAtomic(P("c.json"), "new contents").ok());
  EXPECT_EQ(*fs_->ReadAll(P("c.json")), "new contents");
  auto entries = fs_->List(root_, false);
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(entries->size(), 1u);  // no temp file left
}

TEST_P(FileSystemTest, PutIfAbsentOnlyOnce) {
  ASSERT_TRUE(fs_->PutIfAbsent(P("00001.json"), "first").ok());
  Status st = fs_->PutIfAbsent(P("00001.json"), "second");
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(st.ToString().find("00001.json"), std::string::npos);
  EXPECT_EQ(*fs_->ReadAll(P("00001.json")), "first");
}

TEST_P(FileSystemTest, PutIfAbsentConcurrentSingleWinner) {
  std::atomic<int> wins{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      if (fs_->PutIfAbsent(P("commit"), "writer" + std::to_string(t)).ok()) ++wins;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wins.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Both, FileSystemTest, ::testing::Values(true, false),
                         [](const auto& info) {
                           return info.param ? "Local" : "Memory";
                         });

TEST(PathTest, Helpers) {
  EXPECT_EQ(JoinPath("a/b", "c"), "a/b/c");
  EXPECT_EQ(JoinPath("a/b/", "c"), "a/b/c");
  EXPECT_EQ(ParentPath("a/b/c"), "a/b");
  EXPECT_EQ(ParentPath("c"), "");
  EXPECT_EQ(ParentPath("/c"), "/");
  EXPECT_EQ(BaseName("a/b/c"), "c");
}

}  // namespace
}  // namespace spate::io
