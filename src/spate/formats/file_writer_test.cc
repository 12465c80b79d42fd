// Copyright spate authors.
#include "spate/formats/file_writer.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>

#include "spate/columnar/builder.h"
#include "spate/formats/parquet_source.h"
#include "spate/io/forwarding_file_system.h"
#include "spate/testing/status_matchers.h"

namespace spate::formats {
namespace {

SchemaPtr TestSchema() {
  return std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""},
                         {"name", DataType::String(), true, ""},
                         {"day", DataType::String(), true, ""}});
}

BatchPtr MakeBatch(int64_t start, int64_t n) {
  std::vector<std::vector<Value>> rows;
  auto schema = TestSchema();
  std::vector<ColumnPtr> cols;
  std::vector<Value> ids, names, days;
  for (int64_t i = start; i < start + n; ++i) {
    ids.push_back(i % 7 == 3 ? Value::Null(DataType::Long()) : Value::Long(i));
    names.push_back(Value::String("n" + std::to_string(i)));
    days.push_back(i % 3 == 0 ? Value::Null(DataType::String())
                              : Value::String(i % 3 == 1 ? "a/b" : "x"));
  }
  cols.push_back(ColumnFromValues(DataType::Long(), ids));
  cols.push_back(ColumnFromValues(DataType::String(), names));
  cols.push_back(ColumnFromValues(DataType::String(), days));
  return Batch::Make(schema, cols, n);
}

TEST(FileWriterTest, UnpartitionedStagingAndStats) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  auto factory = MakeParquetWriterFactory({{"compression", "zstd"}}).value();
  EXPECT_EQ(factory->extension(), ".zstd.parquet");
  WriteJobOptions o;
  o.output_dir = "/out";
  o.collect_stats = true;
  auto job = PartitionedWriteJob::Make(fs, factory, TestSchema(), o, 2).value();
  ASSERT_TRUE(job->Write(0, MakeBatch(0, 10)).ok());
  ASSERT_TRUE(job->Write(1, MakeBatch(10, 5)).ok());
  ASSERT_TRUE(job->Write(0, MakeBatch(100, 2)).ok());
  auto files = job->Commit().value();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].num_records, 12);
  EXPECT_EQ(files[1].num_records, 5);
  EXPECT_EQ(files[0].relative_path.rfind("part-00000-", 0), 0u);
  EXPECT_NE(files[0].relative_path.find("-c000.zstd.parquet"), std::string::npos);
  EXPECT_TRUE(fs->Exists("/out/_SUCCESS").value());
  EXPECT_FALSE(fs->Exists("/out/_temporary").value());
  EXPECT_EQ(fs->Stat("/out/" + files[0].relative_path)->size, files[0].size_bytes);
  ASSERT_EQ(files[0].stats.size(), 3u);
  const auto& id = files[0].stats[0];
  EXPECT_EQ(id.path, std::vector<std::string>{"id"});
  EXPECT_EQ(id.min->i64(), 0);
  EXPECT_EQ(id.max->i64(), 100);  // 101 is NULL
  EXPECT_EQ(id.null_count, 2);    // ids 3 and 101
  EXPECT_EQ(files[0].stats[1].min->str(), "n0");
  EXPECT_EQ(files[0].stats[1].max->str(), "n9");
  auto src = ParquetDataSource::Make(fs, {"/out"}).value();
  EXPECT_EQ(src->num_files(), 2);
}

TEST(FileWriterTest, PartitionedInPlaceWithRollover) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  auto factory = MakeParquetWriterFactory({}).value();
  WriteJobOptions o;
  o.output_dir = "/t";
  o.partition_columns = {"day"};
  o.use_staging = false;
  o.max_records_per_file = 3;
  auto job = PartitionedWriteJob::Make(fs, factory, TestSchema(), o, 1).value();
  EXPECT_EQ(job->data_schema()->num_fields(), 2);
  ASSERT_TRUE(job->Write(0, MakeBatch(0, 12)).ok());
  auto files = job->Commit().value();
  int64_t total = 0;
  int defaults = 0, slash = 0;
  for (const auto& f : files) {
    total += f.num_records;
    EXPECT_LE(f.num_records, 3);
    ASSERT_EQ(f.partition_values.size(), 1u);
    if (!f.partition_values[0]) {
      ++defaults;
      EXPECT_EQ(f.relative_path.rfind("day=__HIVE_DEFAULT_PARTITION__/", 0), 0u);
    } else if (*f.partition_values[0] == "a/b") {
      ++slash;
      EXPECT_EQ(f.relative_path.rfind("day=a%2Fb/", 0), 0u);
    }
  }
  EXPECT_EQ(total, 12);
  EXPECT_EQ(defaults, 2);  // 4 rows, 3 per file
  EXPECT_EQ(slash, 2);
  EXPECT_FALSE(fs->Exists("/t/_SUCCESS").value());
  bool has_c001 = false;
  for (const auto& f : files)
    has_c001 |= f.relative_path.find("-c001.") != std::string::npos;
  EXPECT_TRUE(has_c001);
}

// Records which files were synced before they closed and which folders were synced.
class SyncRecordingFileSystem final : public io::ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;
  struct File final : io::WritableFile {
    File(std::unique_ptr<io::WritableFile> in, SyncRecordingFileSystem* fs)
        : inner(std::move(in)), owner(fs) {}
    Status Append(std::string_view d) override { return inner->Append(d); }
    int64_t Position() const override { return inner->Position(); }
    Status Sync() override {
      synced = true;
      return inner->Sync();
    }
    Status Close() override {
      std::lock_guard<std::mutex> l(owner->mu);
      if (synced) owner->synced_files.push_back(inner->path());
      return inner->Close();
    }
    const std::string& path() const override { return inner->path(); }
    std::unique_ptr<io::WritableFile> inner;
    SyncRecordingFileSystem* owner;
    bool synced = false;
  };
  Result<std::unique_ptr<io::WritableFile>> Create(const std::string& path) override {
    SPATE_ASSIGN_OR_RETURN(auto f, inner_->Create(path));
    return std::unique_ptr<io::WritableFile>(std::make_unique<File>(std::move(f), this));
  }
  Status SyncDir(const std::string& dir) override {
    std::lock_guard<std::mutex> l(mu);
    synced_dirs.push_back(dir);
    return inner_->SyncDir(dir);
  }
  std::mutex mu;
  std::vector<std::string> synced_files, synced_dirs;
};

TEST(FileWriterTest, CommitIsDurable) {
  // Every data file is synced before it closes, and every folder that gained an entry
  // (the partition folders and the output folder holding them) is synced by Commit(),
  // so a log commit written after it never names data a power loss could take back.
  for (bool staging : {false, true}) {
    auto fs = std::make_shared<SyncRecordingFileSystem>(
        std::make_shared<io::MemoryFileSystem>());
    auto factory = MakeParquetWriterFactory({}).value();
    WriteJobOptions o;
    o.output_dir = "/t";
    o.partition_columns = {"day"};
    o.use_staging = staging;
    auto job = PartitionedWriteJob::Make(fs, factory, TestSchema(), o, 2).value();
    ASSERT_TRUE(job->Write(0, MakeBatch(0, 6)).ok());
    ASSERT_TRUE(job->Write(1, MakeBatch(6, 6)).ok());
    auto files = job->Commit().value();
    ASSERT_EQ(files.size(), 6u);  // 3 partitions x 2 writer partitions
    EXPECT_EQ(fs->synced_files.size(), files.size()) << "staging=" << staging;
    std::set<std::string> dirs(fs->synced_dirs.begin(), fs->synced_dirs.end());
    EXPECT_TRUE(dirs.count("/t")) << "staging=" << staging;
    for (const auto& f : files) {
      EXPECT_TRUE(dirs.count(io::ParentPath(io::JoinPath("/t", f.relative_path))))
          << f.relative_path;
    }
  }
}

TEST(FileWriterTest, AbortRemovesFiles) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  auto factory = MakeParquetWriterFactory({}).value();
  WriteJobOptions o;
  o.output_dir = "/t";
  o.use_staging = false;
  {
    auto job = PartitionedWriteJob::Make(fs, factory, TestSchema(), o, 4).value();
    std::vector<std::thread> threads;
    for (int p = 0; p < 4; ++p)
      threads.emplace_back(
          [&, p] { ASSERT_TRUE(job->Write(p, MakeBatch(p * 10, 10)).ok()); });
    for (auto& t : threads) t.join();
    job->Abort();
  }
  auto left = fs->List("/t", true).value();
  for (const auto& f : left) EXPECT_TRUE(f.is_directory) << f.path;
}

TEST(FileWriterTest, EmptyResultWritesSchemaFile) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  auto factory = MakeParquetWriterFactory({}).value();
  WriteJobOptions o;
  o.output_dir = "/e";
  auto job = PartitionedWriteJob::Make(fs, factory, TestSchema(), o, 3).value();
  auto files = job->Commit().value();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].num_records, 0);
  auto src = ParquetDataSource::Make(fs, {"/e"}).value();
  EXPECT_EQ(src->schema()->num_fields(), 3);
}

TEST(FileWriterTest, UnknownPartitionColumn) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  auto factory = MakeParquetWriterFactory({}).value();
  WriteJobOptions o;
  o.output_dir = "/e";
  o.partition_columns = {"nope"};
  auto job = PartitionedWriteJob::Make(fs, factory, TestSchema(), o, 1);
  EXPECT_ERROR_CLASS(job, "_LEGACY_ERROR_TEMP_1155");
  EXPECT_ERROR_CLASS(MakeParquetWriterFactory({{"compression", "bogus"}}),
                     "CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION");
}

}  // namespace
}  // namespace spate::formats
