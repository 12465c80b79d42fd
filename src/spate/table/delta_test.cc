// Copyright spate authors.
// Delta log, transactions, writer and source.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "spate/base/test_data.h"
#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/io/forwarding_file_system.h"
#include "spate/table/deletion_vector.h"
#include "spate/table/delta_changes.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_source.h"
#include "spate/table/delta_writer.h"
#include "spate/table/transaction.h"
#include "spate/testing/status_matchers.h"
#include "spate/types/schema_json.h"

namespace spate::table {
namespace {

SchemaPtr IdSchema() {
  return std::make_shared<const Schema>(std::vector<Field>{
      {"id", DataType::Long(), true, ""}, {"part", DataType::String(), true, ""}});
}

BatchPtr Rows(int64_t start, int64_t n, const std::string& part = "a") {
  std::vector<Value> ids, parts;
  for (int64_t i = start; i < start + n; ++i) {
    ids.push_back(Value::Long(i));
    parts.push_back(Value::String(part));
  }
  return Batch::Make(IdSchema(),
                     {ColumnFromValues(DataType::Long(), ids),
                      ColumnFromValues(DataType::String(), parts)},
                     n);
}

// Every row of a table version, as strings "id|part" sorted.
std::vector<std::string> ReadRows(io::FileSystemPtr fs, SnapshotPtr snap,
                                  std::vector<ScanPredicate> preds = {}) {
  auto src = DeltaDataSource::Make(std::move(fs), std::move(snap)).value();
  ScanSpec spec;
  for (int i = 0; i < src->schema()->num_fields(); ++i) spec.columns.push_back(i);
  spec.predicates = std::move(preds);
  std::vector<std::string> out;
  for (int s = 0; s < src->num_splits(); ++s) {
    auto r = src->OpenSplit(s, spec);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) continue;
    while (true) {
      auto b = (*r)->Next();
      EXPECT_TRUE(b.ok()) << b.status().ToString();
      if (!b.ok() || !*b) break;
      for (int64_t i = 0; i < (*b)->num_rows(); ++i) {
        std::string row;
        for (const auto& v : (*b)->GetRow(i))
          row += (row.empty() ? "" : "|") + v.ToString();
        out.push_back(row);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

DeltaWriteOptions Mode(const std::string& m) {
  DeltaWriteOptions o;
  o.mode = m;
  return o;
}

TEST(DeltaActionsTest, JsonRoundTrip) {
  Metadata m;
  m.id = "abc";
  m.schema_string = SchemaToSparkJson(*IdSchema());
  m.partition_columns = {"part"};
  m.configuration = {{"delta.checkpointInterval", "5"}};
  m.created_time = 123;
  AddFile a;
  a.path = EncodePathUri("part=a b/x.parquet");
  EXPECT_EQ(a.path, "part=a%20b/x.parquet");
  EXPECT_EQ(DecodePathUri(a.path), "part=a b/x.parquet");
  a.partition_values = {{"part", "a b"}, {"q", std::nullopt}};
  a.size = 10;
  a.modification_time = 20;
  a.stats = "{\"numRecords\":3}";
  RemoveFile r;
  r.path = "old";
  r.deletion_timestamp = 5;
  r.extended_file_metadata = true;
  r.size = 7;
  SetTransaction t{"app", 4, 99};
  CommitInfo c;
  c.timestamp = 1;
  c.operation = "WRITE";
  c.operation_parameters = {{"mode", "Append"}};
  std::vector<Action> actions = {Action::Of(c), Action::Of(Protocol{}), Action::Of(m),
                                 Action::Of(a), Action::Of(r),          Action::Of(t)};
  std::string text = SerializeActions(actions);
  EXPECT_NE(text.find("{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}"),
            std::string::npos);
  auto parsed = ParseActions(text + "{\"someFutureAction\":{\"x\":1}}\n", "f").value();
  ASSERT_EQ(parsed.size(), 6u);
  EXPECT_EQ(parsed[2].metadata.partition_columns, m.partition_columns);
  EXPECT_EQ(parsed[2].metadata.configuration, m.configuration);
  EXPECT_EQ(parsed[3].add.path, a.path);
  EXPECT_EQ(parsed[3].add.partition_values, a.partition_values);
  EXPECT_EQ(parsed[3].add.stats, a.stats);
  EXPECT_EQ(parsed[4].remove.size, 7);
  EXPECT_EQ(parsed[5].txn.version, 4);
  EXPECT_EQ(SerializeActions(parsed), text);
  auto schema = parsed[2].metadata.ParseSchema().value();
  EXPECT_TRUE(schema->Equals(*IdSchema()));
  auto bad = ParseActions("{\"add\":{}}\n{not json\n", "/t/_delta_log/00.json");
  ASSERT_ERROR_HAS(bad, "/t/_delta_log/00.json");
}

// The remove action of an active file: Delta's extended file metadata and the file's
// deletion vector (so it removes the same replay key), no stats.
TEST(DeltaActionsTest, RemoveOfAnActiveFile) {
  AddFile a;
  a.path = "part=x/f.parquet";
  a.partition_values = {{"part", "x"}};
  a.size = 42;
  a.modification_time = 7;
  a.stats = "{\"numRecords\":3}";
  // storage type, inline bitmap, offset, size in bytes, cardinality
  a.deletion_vector = DeletionVectorDescriptor{"u", "vBn[lx{q8@P<9BNH", 1, 36, 2};
  RemoveFile r = RemoveOf(a, 1700000000000, /*data_change=*/false);
  EXPECT_EQ(r.Key(), a.Key());
  EXPECT_EQ(r.path, a.path);
  EXPECT_EQ(r.deletion_timestamp, 1700000000000);
  EXPECT_FALSE(r.data_change);
  EXPECT_EQ(r.extended_file_metadata, true);
  EXPECT_EQ(r.partition_values, a.partition_values);
  EXPECT_EQ(r.size, 42);
  EXPECT_FALSE(r.stats.has_value());
  EXPECT_EQ(
      Action::Of(r).ToJson().ToString(),
      "{\"remove\":{\"path\":\"part=x/f.parquet\",\"deletionTimestamp\":1700000000000,"
      "\"dataChange\":false,\"extendedFileMetadata\":true,\"partitionValues\":{"
      "\"part\":\"x\"},\"size\":42,\"deletionVector\":{\"storageType\":\"u\","
      "\"pathOrInlineDv\":\"vBn[lx{q8@P<9BNH\",\"offset\":1,\"sizeInBytes\":36,"
      "\"cardinality\":2}}}");
  EXPECT_TRUE(RemoveOf(a, 5, /*data_change=*/true).data_change);
}

TEST(DeltaActionsTest, SupportedFeatures) {
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"timestampNtz", "vacuumProtocolCheck"};
  p.writer_features =
      std::vector<std::string>{"timestampNtz", "vacuumProtocolCheck", "appendOnly"};
  EXPECT_TRUE(CheckSupported(p, nullptr, true).ok());
  p.writer_features->push_back("rowTracking");
  EXPECT_TRUE(CheckSupported(p, nullptr, false).ok());  // readable
  auto w = CheckSupported(p, nullptr, true);
  EXPECT_NE(w.ToString().find("DELTA_UNSUPPORTED_FEATURES_FOR_WRITE"), std::string::npos);
  EXPECT_NE(w.ToString().find("rowTracking"), std::string::npos);
  p.reader_features->push_back("variantType");
  auto r = CheckSupported(p, nullptr, false);
  EXPECT_NE(r.ToString().find("DELTA_UNSUPPORTED_FEATURES_FOR_READ"), std::string::npos);
  EXPECT_NE(r.ToString().find("variantType"), std::string::npos);
  Protocol old;
  old.min_reader_version = 1;
  old.min_writer_version = 4;  // CHECK constraints, generated columns, CDF
  EXPECT_TRUE(CheckSupported(old, nullptr, false).ok());
  EXPECT_ERROR_CLASS(CheckSupported(old, nullptr, true),
                     "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  // Writer version 4 is writable when the table uses CDF only, not CHECK constraints or
  // generated columns.
  Metadata cdf;
  cdf.configuration["delta.enableChangeDataFeed"] = "true";
  EXPECT_TRUE(CheckSupported(old, &cdf, true).ok());
  Metadata checked = cdf;
  checked.configuration["delta.constraints.positive"] = "id > 0";
  EXPECT_ERROR_CLASS(CheckSupported(old, &checked, true),
                     "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  Metadata generated = cdf;
  generated.schema_string =
      R"({"type":"struct","fields":[{"name":"g","type":"long","nullable":true,)"
      R"("metadata":{"delta.generationExpression":"id + 1"}}]})";
  EXPECT_ERROR_CLASS(CheckSupported(old, &generated, true),
                     "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  Protocol features;
  features.min_writer_version = 7;
  features.writer_features =
      std::vector<std::string>{"changeDataFeed", "invariants", "appendOnly"};
  EXPECT_TRUE(CheckSupported(features, &cdf, true).ok());
  Metadata cm;
  cm.configuration["delta.columnMapping.mode"] = "name";
  EXPECT_TRUE(CheckSupported(Protocol{}, &cm, false).ok());  // read by physical names
  EXPECT_ERROR_CLASS(CheckSupported(Protocol{}, &cm, true),
                     "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");  // not written
}

TEST(DeltaDeletionVectorTest, PortableRoaringContainers) {
  auto le32 = [](std::string* o, uint32_t v) {
    for (int i = 0; i < 4; ++i) o->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  };
  auto le16 = [](std::string* o, uint16_t v) {
    o->push_back(static_cast<char>(v & 0xFF));
    o->push_back(static_cast<char>(v >> 8));
  };
  std::string b;
  le32(&b, 1681511377);
  le32(&b, 2);  // two 32-bit bitmaps (u64 count)
  le32(&b, 0);
  // bitmap key 0: no-run cookie, 1 array container {3, 7, 11}
  le32(&b, 0);
  le32(&b, 12346);
  le32(&b, 1);
  le16(&b, 0);
  le16(&b, 2);
  le32(&b, 0);  // offset
  for (uint16_t v : {3, 7, 11}) le16(&b, v);
  // bitmap key 1 (rows 2^32 + x): run cookie with 1 run container [5, 8]
  le32(&b, 1);
  le32(&b, 12347);  // (size - 1) << 16 | cookie, size 1
  b.push_back(1);   // run flags
  le16(&b, 0);
  le16(&b, 3);
  le16(&b, 1);  // one run
  le16(&b, 5);
  le16(&b, 3);
  auto rows = ParseDeletionVector(b, "test").value();
  const uint64_t hi = uint64_t{1} << 32;
  EXPECT_EQ(rows, (std::vector<uint64_t>{3, 7, 11, hi + 5, hi + 6, hi + 7, hi + 8}));
  EXPECT_ERROR_HAS(ParseDeletionVector(b.substr(0, b.size() - 3), "test"),
                   "Corrupt deletion vector (test): truncated runs");
  EXPECT_ERROR_HAS(ParseDeletionVector("xx", "test"),
                   "Corrupt deletion vector (test): too short");
  // Z85: the 4 bytes 0x86 0x4F 0xD2 0x6F are "Hello" (ZeroMQ RFC 32 test vector).
  EXPECT_EQ(Z85Decode("HelloWorld").value(),
            std::string("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8));
  EXPECT_ERROR_HAS(Z85Decode("abc"), "length is not a multiple of 5");
  DeletionVectorDescriptor dv;
  dv.storage_type = "u";
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  EXPECT_EQ(DeletionVectorPath(dv, "/t").value(),
            "/t/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
}

// The bytes delta-spark 4.4 wrote for a DELETE of rows 0 and 3 of a file (its DV file:
// version 1, size 36 big-endian, the bitmap, CRC-32 0xd088f0cc).
TEST(DeltaDeletionVectorTest, SerializesAsDeltaSpark) {
  auto unhex = [](const std::string& h) {
    std::string out;
    for (size_t i = 0; i < h.size(); i += 2)
      out.push_back(static_cast<char>(ParseInt32(h.substr(i, 2), 16).value()));
    return out;
  };
  const std::string spark_file = unhex(
      "0100000024d1d339640100000000000000000000003a3000000100000000000100100000000000"
      "0300d088f0cc");
  EXPECT_EQ(SerializeDeletionVector({0, 3}), spark_file.substr(5, 36));

  auto dir = std::filesystem::temp_directory_path() /
             ("spate_dv_write_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto fs = io::LocalFileSystem::Get();
  // Array and bitmap containers, several containers, a second 32-bit bitmap.
  std::vector<uint64_t> big;
  for (uint64_t r = 0; r < 70000; r += 3) big.push_back(r);
  const uint64_t hi = uint64_t{1} << 32;
  const std::vector<std::vector<uint64_t>> dvs = {
      {0, 3}, big, {5, 70000, hi + 2, 2 * hi + 9}};
  std::string written;
  auto descs = WriteDeletionVectors(*fs, dir.string(), dvs, &written).value();
  ASSERT_EQ(descs.size(), 3u);
  // The first DV's bytes in the file are delta-spark's, offset 1.
  std::string content;
  {
    auto f = fs->OpenForRead(written).value();
    ASSERT_TRUE(f->ReadAt(0, f->Size(), &content).ok());
  }
  EXPECT_EQ(content.substr(0, spark_file.size()), spark_file);
  EXPECT_EQ(descs[0].offset, 1);
  EXPECT_EQ(descs[0].size_in_bytes, 36);
  for (size_t i = 0; i < dvs.size(); ++i) {
    EXPECT_EQ(descs[i].storage_type, "u");
    EXPECT_EQ(descs[i].path_or_inline_dv.size(), 20u);
    EXPECT_EQ(descs[i].cardinality, static_cast<int64_t>(dvs[i].size()));
    EXPECT_EQ(DeletionVectorPath(descs[i], dir.string()).value(), written);
    EXPECT_EQ(LoadDeletionVector(*fs, descs[i], dir.string()).value(), dvs[i]) << i;
  }
  EXPECT_EQ(Z85Decode(Z85Encode("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B")).value(),
            std::string("\x86\x4F\xD2\x6F\xB5\x59\xF7\x5B", 8));
  EXPECT_EQ(Z85Encode(std::string("\x86\x4F\xD2\x6F", 4)), "Hello");

  // The add of a file with a DV: stats no longer tight, logical rows less the DV's.
  AddFile a;
  a.path = "x.parquet";
  a.stats = R"({"numRecords":5,"minValues":{"id":0},"tightBounds":true})";
  AddFile d = WithDeletionVector(a, descs[0]);
  EXPECT_EQ(*d.stats, R"({"numRecords":5,"minValues":{"id":0},"tightBounds":false})");
  EXPECT_EQ(LogicalRecords(a), 5);
  EXPECT_EQ(LogicalRecords(d), 3);
  std::filesystem::remove_all(dir);
}

TEST(DeltaSchemaTest, SparkJsonNested) {
  auto t = DataType::Struct(
      {{"a", DataType::Decimal(10, 2), false, "c1"},
       {"m",
        DataType::Map(DataType::String(), DataType::Array(DataType::Long(), false), true),
        true, ""},
       {"s", DataType::Struct({{"x", DataType::TimestampNtz(), true, ""}}), true, ""}});
  Schema s(t->fields());
  std::string j = SchemaToSparkJson(s);
  EXPECT_NE(j.find("\"type\":\"decimal(10,2)\",\"nullable\":false,\"metadata\":{"
                   "\"comment\":\"c1\"}"),
            std::string::npos);
  auto back = SchemaFromSparkJson(j).value();
  EXPECT_TRUE(back->Equals(s));
  EXPECT_ERROR_CLASS(
      SchemaFromSparkJson(
          "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"bogus\"}]}"),
      "INVALID_JSON_DATA_TYPE");
}

TEST(DeltaLogTest, AppendOverwriteReplayAndTimeTravel) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  int64_t clock = 1000;
  NowFn now = [&] { return clock; };
  ASSERT_EQ(WriteBatches(fs, "/t", {Rows(0, 5)}, Mode("errorifexists"), now)->version, 0);
  clock = 2000;
  ASSERT_EQ(WriteBatches(fs, "/t", {Rows(5, 5)}, Mode("append"), now)->version, 1);
  clock = 3000;
  ASSERT_EQ(WriteBatches(fs, "/t", {Rows(100, 2)}, Mode("overwrite"), now)->version, 2);
  auto err = WriteBatches(fs, "/t", {Rows(0, 1)}, Mode("errorifexists"), now);
  EXPECT_ERROR_CLASS(err, "DELTA_PATH_EXISTS");
  EXPECT_TRUE(WriteBatches(fs, "/t", {Rows(0, 1)}, Mode("ignore"), now)->skipped);

  DeltaLog log(fs, "/t", now);
  auto latest = log.Latest().value();
  EXPECT_EQ(latest->version(), 2);
  EXPECT_EQ(ReadRows(fs, latest), (std::vector<std::string>{"100|a", "101|a"}));
  EXPECT_EQ(latest->tombstones().size(), 2u);
  EXPECT_EQ(ReadRows(fs, log.At(0).value()).size(), 5u);
  EXPECT_EQ(ReadRows(fs, log.At(1).value()).size(), 10u);
  EXPECT_ERROR_CLASS(log.At(3), "DELTA_VERSION_NOT_FOUND");
  EXPECT_EQ(log.VersionAtTimestamp(1500).value(), 0);
  EXPECT_EQ(log.VersionAtTimestamp(2000).value(), 1);
  EXPECT_EQ(log.VersionAtTimestamp(3000).value(), 2);
  EXPECT_ERROR_CLASS(log.VersionAtTimestamp(999),
                     "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION");
  EXPECT_ERROR_CLASS(log.VersionAtTimestamp(3001), "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
  auto hist = log.History().value();
  ASSERT_EQ(hist.size(), 3u);
  EXPECT_EQ(hist[0].version, 2);
  const auto& ci = hist[0].actions[0].commit_info;
  EXPECT_EQ(ci.operation, "WRITE");
  EXPECT_EQ(ci.operation_parameters.at("mode"), "Overwrite");
  EXPECT_EQ(ci.operation_metrics.at("numOutputRows"), "2");
  EXPECT_EQ(ci.engine_info.value(), kEngineInfo);
  EXPECT_EQ(ci.read_version.value(), 1);
  // The first commit has protocol (1,2) and metaData with the Spark schema.
  auto v0 = log.ReadCommit(0).value();
  bool saw_protocol = false, saw_meta = false;
  for (const auto& a : v0) {
    if (a.kind == Action::Kind::kProtocol) {
      saw_protocol = true;
      EXPECT_EQ(a.protocol.min_reader_version, 1);
      EXPECT_EQ(a.protocol.min_writer_version, 2);
    }
    if (a.kind == Action::Kind::kMetadata) saw_meta = true;
    if (a.kind == Action::Kind::kAdd) {
      auto stats = Json::Parse(*a.add.stats).value();
      EXPECT_EQ(stats.GetInt("numRecords").value(), 5);
      EXPECT_EQ(stats.Find("minValues")->GetInt("id").value(), 0);
      EXPECT_EQ(stats.Find("maxValues")->GetInt("id").value(), 4);
      EXPECT_EQ(stats.Find("nullCount")->GetInt("id").value(), 0);
    }
  }
  EXPECT_TRUE(saw_protocol && saw_meta);
}

TEST(DeltaLogTest, CheckpointEveryTenCommits) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(
        WriteBatches(fs, "/c", {Rows(i * 10, 3, i % 2 ? "x" : "y")}, Mode("append"))
            .ok());
  }
  EXPECT_TRUE(
      fs->Exists("/c/_delta_log/00000000000000000010.checkpoint.parquet").value());
  auto last = Json::Parse(fs->ReadAll("/c/_delta_log/_last_checkpoint").value()).value();
  EXPECT_EQ(last.GetInt("version").value(), 10);
  EXPECT_EQ(last.GetInt("numOfAddFiles").value(), 11);
  auto cp =
      ReadCheckpointFile(fs, "/c/_delta_log/00000000000000000010.checkpoint.parquet")
          .value();
  int adds = 0;
  for (const auto& a : cp) adds += a.kind == Action::Kind::kAdd;
  EXPECT_EQ(adds, 11);
  // Delete the JSON commits the checkpoint covers: the table still reads.
  for (int v = 0; v <= 10; ++v)
    ASSERT_TRUE(fs->Delete(DeltaLog(fs, "/c").CommitPath(v), false).ok());
  DeltaLog log(fs, "/c");
  auto snap = log.Latest().value();
  EXPECT_EQ(snap->version(), 11);
  EXPECT_EQ(snap->checkpoint_version().value(), 10);
  EXPECT_EQ(ReadRows(fs, snap).size(), 36u);
  // A corrupt _last_checkpoint falls back to listing (a fresh DeltaLog: `log` would
  // answer from its cached snapshot, whose commit file is unchanged).
  ASSERT_TRUE(fs->WriteAtomic("/c/_delta_log/_last_checkpoint", "{garbage").ok());
  EXPECT_EQ(DeltaLog(fs, "/c").Latest().value()->files().size(), 12u);
  // A truncated checkpoint is an error naming the file.
  auto data =
      fs->ReadAll("/c/_delta_log/00000000000000000010.checkpoint.parquet").value();
  ASSERT_TRUE(fs->WriteAtomic("/c/_delta_log/00000000000000000010.checkpoint.parquet",
                              data.substr(0, data.size() / 2))
                  .ok());
  auto bad = DeltaLog(fs, "/c").Latest();
  ASSERT_ERROR_HAS(bad, "00000000000000000010.checkpoint.parquet");
}

TEST(DeltaLogTest, CheckpointDropsExpiredTombstones) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  int64_t clock = 1000000;
  NowFn now = [&] { return clock; };
  DeltaWriteOptions o = Mode("append");
  o.options["delta.checkpointInterval"] = "2";
  o.options["delta.deletedFileRetentionDuration"] = "interval 1 hour";
  ASSERT_TRUE(WriteBatches(fs, "/tomb", {Rows(0, 1)}, o, now).ok());
  ASSERT_TRUE(
      WriteBatches(fs, "/tomb", {Rows(1, 1)}, Mode("overwrite"), now).ok());  // v1
  clock += 2 * 3600 * 1000;
  ASSERT_TRUE(
      WriteBatches(fs, "/tomb", {Rows(2, 1)}, Mode("append"), now).ok());  // v2: cp
  auto cp =
      ReadCheckpointFile(fs, "/tomb/_delta_log/00000000000000000002.checkpoint.parquet")
          .value();
  int removes = 0;
  for (const auto& a : cp) removes += a.kind == Action::Kind::kRemove;
  EXPECT_EQ(removes, 0);
  // The snapshots drop them too (the tombstone was deleted more than the retention
  // before version 2's commit), whether replayed from the commits or advanced in memory.
  auto log = std::make_shared<const DeltaLog>(fs, "/tomb", now);
  EXPECT_EQ(log->At(1).value()->tombstones().size(), 1u);
  ASSERT_TRUE(
      fs->Delete("/tomb/_delta_log/00000000000000000002.checkpoint.parquet", false).ok());
  ASSERT_TRUE(fs->Delete("/tomb/_delta_log/_last_checkpoint", false).ok());
  EXPECT_EQ(DeltaLog(fs, "/tomb", now).At(2).value()->tombstones().size(), 0u);
  // A cached snapshot with the tombstone, advanced past the retention.
  o.options.erase("delta.checkpointInterval");
  ASSERT_TRUE(WriteBatches(fs, "/tomb2", {Rows(0, 1)}, o, now).ok());
  ASSERT_TRUE(WriteBatches(fs, "/tomb2", {Rows(1, 1)}, Mode("overwrite"), now).ok());
  auto cached = std::make_shared<const DeltaLog>(fs, "/tomb2", now);
  EXPECT_EQ(cached->Latest().value()->tombstones().size(), 1u);
  clock += 2 * 3600 * 1000;
  ASSERT_TRUE(WriteBatches(fs, "/tomb2", {Rows(3, 1)}, Mode("append"), now).ok());
  auto advanced = cached->Latest().value();
  EXPECT_EQ(advanced->version(), 2);
  EXPECT_EQ(advanced->tombstones().size(), 0u);
  Metadata m;
  m.configuration["x"] = "interval 2 days";
  EXPECT_EQ(RetentionMs(m, "x", 0), 2 * 86400000LL);
  EXPECT_EQ(RetentionMs(m, "y", 5), 5);
}

TEST(DeltaLogTest, DomainMetadataSurvivesCheckpoints) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  DeltaWriteOptions o = Mode("append");
  o.options["delta.checkpointInterval"] = "2";
  ASSERT_TRUE(WriteBatches(fs, "/dm", {Rows(0, 1)}, o).ok());
  ASSERT_TRUE(
      fs->PutIfAbsent("/dm/_delta_log/00000000000000000001.json",
                      "{\"domainMetadata\":{\"domain\":\"delta.clustering\","
                      "\"configuration\":\"{\\\"c\\\":1}\",\"removed\":false}}\n"
                      "{\"domainMetadata\":{\"domain\":\"gone\",\"configuration\":\"\","
                      "\"removed\":true}}\n")
          .ok());
  ASSERT_TRUE(
      WriteBatches(fs, "/dm", {Rows(1, 1)}, Mode("append")).ok());  // v2 + checkpoint
  ASSERT_TRUE(fs->Delete("/dm/_delta_log/00000000000000000001.json", false).ok());
  auto snap = DeltaLog(fs, "/dm").Latest().value();
  EXPECT_EQ(snap->checkpoint_version().value(), 2);
  ASSERT_EQ(snap->domain_metadata().size(), 1u);
  EXPECT_EQ(
      snap->domain_metadata().at("delta.clustering").GetString("configuration").value(),
      "{\"c\":1}");
}

TEST(DeltaLogTest, CorruptCommitNamesFile) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/k", {Rows(0, 2)}, Mode("append")).ok());
  ASSERT_TRUE(
      fs->PutIfAbsent("/k/_delta_log/00000000000000000001.json", "{\"add\":{\"pa").ok());
  auto r = DeltaLog(fs, "/k").Latest();
  ASSERT_ERROR_HAS(r, "00000000000000000001.json");
  // A missing version is a gap.
  ASSERT_TRUE(fs->Delete("/k/_delta_log/00000000000000000001.json", false).ok());
  ASSERT_TRUE(fs->PutIfAbsent("/k/_delta_log/00000000000000000002.json", "").ok());
  auto g = DeltaLog(fs, "/k").Latest();
  ASSERT_ERROR_CLASS(g, "DELTA_VERSIONS_NOT_CONTIGUOUS");
  EXPECT_ERROR_CLASS(DeltaLog(fs, "/nothing").Latest(), "DELTA_MISSING_DELTA_TABLE");
}

// A file system whose listings leave out the names containing a fragment (a listing
// that missed entries made while it ran).
class ListingMissesFileSystem final : public io::ForwardingFileSystem {
 public:
  ListingMissesFileSystem(io::FileSystemPtr inner, std::string hide)
      : io::ForwardingFileSystem(std::move(inner)), hide_(std::move(hide)) {}
  Result<std::vector<io::FileInfo>> List(const std::string& path,
                                         bool recursive) override {
    SPATE_ASSIGN_OR_RETURN(auto all, inner_->List(path, recursive));
    std::erase_if(all, [&](const io::FileInfo& f) {
      return f.path.find(hide_) != std::string::npos;
    });
    return all;
  }

 private:
  std::string hide_;
};

TEST(DeltaLogTest, ACommitMissingFromTheListingIsLookedUp) {
  auto mem = std::make_shared<io::MemoryFileSystem>();
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(WriteBatches(mem, "/lm", {Rows(2 * i, 2)}, Mode("append")).ok());
  auto fs = std::make_shared<ListingMissesFileSystem>(mem, "00000000000000000001.json");
  auto snap = DeltaLog(fs, "/lm").Latest();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)->version(), 2);
  EXPECT_EQ((*snap)->files().size(), 3u);
  auto commits = DeltaLog(fs, "/lm").ReadCommits(0, -1);
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  EXPECT_EQ(commits->size(), 3u);
  // A commit that is truly gone is still a gap.
  ASSERT_TRUE(mem->Delete("/lm/_delta_log/00000000000000000001.json", false).ok());
  EXPECT_ERROR_CLASS(DeltaLog(fs, "/lm").Latest(), "DELTA_VERSIONS_NOT_CONTIGUOUS");
}

TEST(DeltaLogTest, CorruptDataFileNamesFile) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/cd", {Rows(0, 3)}, Mode("append")).ok());
  auto snap = DeltaLog(fs, "/cd").Latest().value();
  const std::string file = snap->DataFilePath(snap->files()[0]);
  auto data = fs->ReadAll(file).value();
  ASSERT_TRUE(fs->WriteAtomic(file, data.substr(0, data.size() - 10)).ok());
  auto src = DeltaDataSource::Make(fs, snap).value();
  ScanSpec spec;
  spec.columns = {0};
  auto r = src->OpenSplit(0, spec);
  Status st = r.ok() ? (*r)->Next().status() : r.status();
  ASSERT_ERROR_HAS(st, file);
  // A data file the log names but the file system lost.
  ASSERT_TRUE(fs->Delete(file, false).ok());
  auto gone = src->OpenSplit(0, spec);
  ASSERT_ERROR_HAS(gone, file);
}

TEST(DeltaLogTest, OrphanFilesAreIgnored) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/o", {Rows(0, 3)}, Mode("append")).ok());
  // A writer that crashed after writing a data file and before committing.
  ASSERT_TRUE(
      fs->WriteAtomic("/o/part-00000-orphan-c000.snappy.parquet", "not even parquet")
          .ok());
  auto snap = DeltaLog(fs, "/o").Latest().value();
  EXPECT_EQ(ReadRows(fs, snap).size(), 3u);
}

TEST(DeltaTxnTest, IdempotentTxn) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  DeltaWriteOptions o = Mode("append");
  o.txn = TxnId{"query-1", 0};
  o.operation = "STREAMING UPDATE";
  o.operation_parameters = {
      {"outputMode", "Append"}, {"queryId", "query-1"}, {"epochId", "0"}};
  auto r0 = WriteBatches(fs, "/i", {Rows(0, 2)}, o).value();
  EXPECT_EQ(r0.version, 0);
  auto again = WriteBatches(fs, "/i", {Rows(0, 2)}, o).value();
  EXPECT_TRUE(again.already_committed);
  EXPECT_EQ(again.version, -1);
  o.txn->version = 1;
  EXPECT_EQ(WriteBatches(fs, "/i", {Rows(2, 2)}, o)->version, 1);
  EXPECT_EQ(LatestTxnVersion(fs, "/i", "query-1").value().value(), 1);
  EXPECT_FALSE(LatestTxnVersion(fs, "/i", "other").value().has_value());
  EXPECT_FALSE(LatestTxnVersion(fs, "/none", "q").value().has_value());
  auto snap = DeltaLog(fs, "/i").Latest().value();
  EXPECT_EQ(ReadRows(fs, snap).size(), 4u);
  auto hist = DeltaLog(fs, "/i").History(1).value();
  EXPECT_EQ(hist[0].actions[0].commit_info.operation, "STREAMING UPDATE");
  EXPECT_EQ(hist[0].actions[0].commit_info.operation_metrics.at("numAddedFiles"), "1");
}

TEST(DeltaLogTest, ChangesSinceForStreamingSources) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(WriteBatches(fs, "/cs", {Rows(i * 10, 2)}, Mode("append")).ok());
  ASSERT_TRUE(WriteBatches(fs, "/cs", {Rows(100, 1)}, Mode("overwrite")).ok());
  DeltaLog log(fs, "/cs");
  auto changes = log.ChangesSince(0).value();
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].version, 1);
  EXPECT_EQ(changes[0].adds.size(), 1u);
  EXPECT_TRUE(changes[0].removes.empty());
  EXPECT_EQ(changes[2].removes.size(), 3u);
  EXPECT_EQ(changes[2].operation, "WRITE");
  EXPECT_EQ(log.ChangesSince(1, 2).value().size(), 1u);
  // Read just the files added by version 1 and 2.
  auto snap = log.At(2).value();
  std::vector<AddFile> adds = changes[0].adds;
  adds.insert(adds.end(), changes[1].adds.begin(), changes[1].adds.end());
  auto src = DeltaDataSource::MakeForFiles(fs, snap, adds).value();
  EXPECT_EQ(src->num_splits(), 2);
  EXPECT_TRUE(log.ChangesSince(3).value().empty());
}

TEST(DeltaTxnTest, ConflictRules) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/r", {Rows(0, 2)}, Mode("append")).ok());
  auto log = std::make_shared<const DeltaLog>(fs, "/r");
  auto snap = log->Latest().value();
  // Two blind appends race: the loser retries at the next version.
  OptimisticTransaction a(log, snap), b(log, snap);
  AddFile f1, f2;
  f1.path = "f1";
  f2.path = "f2";
  CommitInfo ci;
  ci.operation = "WRITE";
  EXPECT_EQ(a.Commit({Action::Of(f1)}, ci)->version, 1);
  auto rb = b.Commit({Action::Of(f2)}, ci).value();
  EXPECT_EQ(rb.version, 2);
  EXPECT_EQ(rb.attempts, 2);
  // Delete vs delete of the same file: a transaction that read it fails on the read
  // (Delta checks the files read before the files removed), one that did not on the
  // removal.
  snap = log->Latest().value();
  OptimisticTransaction d1(log, snap), d2(log, snap), d3(log, snap);
  RemoveFile rm;
  rm.path = "f1";
  d1.ReadFiles({f1});
  d2.ReadFiles({f1});
  ASSERT_TRUE(d1.Commit({Action::Of(rm)}, ci).ok());
  auto dd = d2.Commit({Action::Of(rm)}, ci);
  ASSERT_ERROR_CLASS(dd, "DELTA_CONCURRENT_DELETE_READ.WITHOUT_HINT");
  auto d3r = d3.Commit({Action::Of(rm)}, ci);
  ASSERT_ERROR_CLASS(d3r, "DELTA_CONCURRENT_DELETE_DELETE.WITHOUT_HINT");
  EXPECT_ERROR_HAS(
      d3r,
      "a concurrent WRITE deleted data from table delta.`file:/r` (committed "
      "at version 3) that this transaction attempted to delete.");
  // Read a file that a concurrent commit deleted.
  snap = log->Latest().value();
  OptimisticTransaction r1(log, snap), r2(log, snap);
  RemoveFile rm2;
  rm2.path = "f2";
  ASSERT_TRUE(r1.Commit({Action::Of(rm2)}, ci).ok());
  r2.ReadFiles({f2});
  AddFile f3;
  f3.path = "f3";
  auto dr = r2.Commit({Action::Of(f3)}, ci);
  ASSERT_ERROR_CLASS(dr, "DELTA_CONCURRENT_DELETE_READ.WITHOUT_HINT");
  // Metadata changed concurrently.
  snap = log->Latest().value();
  OptimisticTransaction m1(log, snap), m2(log, snap);
  Metadata nm = snap->metadata();
  nm.configuration["x"] = "1";
  m1.UpdateMetadata(nm);
  ASSERT_TRUE(m1.Commit({}, ci).ok());
  auto mc = m2.Commit({Action::Of(f3)}, ci);
  ASSERT_ERROR_CLASS(mc, "DELTA_METADATA_CHANGED");
  EXPECT_ERROR_HAS(
      mc,
      "The metadata of the Delta table delta.`file:/r` has been changed by a "
      "concurrent update. Please try the operation again.\nConflicting commit: "
      "{\"timestamp\":");
  // Non-blind append while we read the whole table.
  snap = log->Latest().value();
  OptimisticTransaction w1(log, snap), w2(log, snap);
  w1.ReadFiles({f3});  // not blind
  AddFile f4;
  f4.path = "f4";
  ASSERT_TRUE(w1.Commit({Action::Of(f4)}, ci).ok());
  w2.ReadWholeTable();
  auto ca = w2.Commit({Action::Of(f3)}, ci);
  ASSERT_ERROR_CLASS(ca, "DELTA_CONCURRENT_APPEND.WITHOUT_HINT");
  // A blind append conflicts too (OSS Delta's Serializable isolation), with a
  // transaction that read (here the whole table) and writes data.
  snap = log->Latest().value();
  OptimisticTransaction ba(log, snap), reader(log, snap), blind(log, snap);
  AddFile f5;
  f5.path = "f5";
  ASSERT_TRUE(ba.Commit({Action::Of(f5)}, ci).ok());
  reader.ReadWholeTable();
  ASSERT_ERROR_CLASS(reader.Commit({Action::Of(f3)}, ci),
                     "DELTA_CONCURRENT_APPEND.WITHOUT_HINT");
  EXPECT_TRUE(blind.Commit({Action::Of(f3)}, ci).ok());  // blind appends never conflict
  // Same appId from two writers.
  snap = log->Latest().value();
  OptimisticTransaction t1(log, snap), t2(log, snap);
  t1.SetTransaction("app", 1);
  t2.SetTransaction("app", 1);
  ASSERT_TRUE(t1.Commit({}, ci).ok());
  auto ct = t2.Commit({}, ci);
  ASSERT_ERROR_CLASS(ct, "DELTA_CONCURRENT_TRANSACTION");
  // Two creators of one table.
  auto fresh = std::make_shared<const DeltaLog>(fs, "/new");
  OptimisticTransaction c1(fresh, nullptr), c2(fresh, nullptr);
  c1.UpdateMetadata(snap->metadata());
  c2.UpdateMetadata(snap->metadata());
  ASSERT_TRUE(c1.Commit({}, ci).ok());
  auto pc = c2.Commit({}, ci);
  ASSERT_ERROR_CLASS(pc, "DELTA_PROTOCOL_CHANGED");
}

TEST(DeltaTxnTest, ReplaceWhereOfOtherPartitionsDoNotConflict) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  DeltaWriteOptions o = Mode("append");
  o.partition_by = {"part"};
  ASSERT_TRUE(WriteBatches(fs, "/rw", {Rows(0, 2, "a"), Rows(10, 2, "b")}, o).ok());
  auto log = std::make_shared<const DeltaLog>(fs, "/rw");
  auto snap = log->Latest().value();
  AddFile fa = snap->files()[0], fb = snap->files()[1];
  auto in_part = [](const std::string& v) {
    return [v](const PartitionValues& pv) {
      return !pv.empty() && pv[0].second && *pv[0].second == v;
    };
  };
  auto rewrite = [&](const AddFile& f, const std::string& new_path) {
    RemoveFile r;
    r.path = f.path;
    r.partition_values = f.partition_values;
    AddFile n = f;
    n.path = new_path;
    return std::vector<Action>{Action::Of(r), Action::Of(n)};
  };
  CommitInfo ci;
  ci.operation = "WRITE";
  OptimisticTransaction ta(log, snap), tb(log, snap), tc(log, snap);
  ta.ReadPartitions(in_part("a"));
  ta.ReadFiles({fa});
  tb.ReadPartitions(in_part("b"));
  tb.ReadFiles({fb});
  tc.ReadPartitions(in_part("a"));
  ASSERT_TRUE(ta.Commit(rewrite(fa, "part=a/new-a.parquet"), ci).ok());
  auto rb =
      tb.Commit(rewrite(fb, "part=b/new-b.parquet"), ci);  // other partition: retried
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  EXPECT_EQ(rb->attempts, 2);
  // Read partition a, where ta added a file: Delta's concurrent append, checked before
  // its removal of fa, which conflicts only with a transaction that read fa.
  AddFile na = fa;
  na.path = "part=a/tc.parquet";
  auto rc = tc.Commit({Action::Of(na)}, ci);
  ASSERT_ERROR_CLASS(rc, "DELTA_CONCURRENT_APPEND.WITH_PARTITION_HINT");
  EXPECT_ERROR_HAS(
      rc,
      "Transaction conflict detected. a concurrent WRITE added data to table "
      "delta.`file:/rw` committed at version 1. The concurrent operation "
      "modified data in the partition [part=a] that should have been read by "
      "this operation. Please retry the operation. Refer to "
      "https://docs.delta.io/latest/concurrency-control.html for more "
      "information.");
  OptimisticTransaction td(log, snap);
  td.ReadFiles({fa});
  auto rd = td.Commit({}, ci);
  ASSERT_ERROR_CLASS(rd, "DELTA_CONCURRENT_DELETE_READ.WITH_PARTITION_HINT");
  EXPECT_ERROR_HAS(rd, "deleted data in the partition [part=a] that was read");
  // A commit that changes no data (a compaction: SnapshotIsolation) ignores concurrent
  // appends, also to the partition it read; a removal of a file it read still conflicts.
  OptimisticTransaction te(log, snap), tf(log, snap);
  te.ReadPartitions(in_part("b"));
  te.ReadFiles({fb});
  AddFile compacted = fb;
  compacted.path = "part=b/compacted.parquet";
  compacted.data_change = false;
  RemoveFile fb_gone = RemoveOf(fb, 1, /*data_change=*/false);
  auto re = te.Commit({Action::Of(fb_gone), Action::Of(compacted)}, ci);
  ASSERT_ERROR_CLASS(re, "DELTA_CONCURRENT_DELETE_READ.WITH_PARTITION_HINT");
  tf.ReadPartitions(in_part("a"));
  AddFile fa2 = fa;
  fa2.path = "part=a/other.parquet";
  fa2.data_change = false;
  auto rf = tf.Commit({Action::Of(fa2)}, ci);
  ASSERT_TRUE(rf.ok()) << rf.status().ToString();
  auto entry = log->ReadCommitsFrom(rf->version).value();
  ASSERT_EQ(entry.size(), 1u);
  EXPECT_EQ(entry[0].actions[0].commit_info.isolation_level, "SnapshotIsolation");
}

// Delta's checkProtocolCompatibility: a concurrent protocol change fails only a
// transaction that changes the protocol too, or when it drops a feature.
TEST(DeltaTxnTest, ConcurrentProtocolUpgrade) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/pu", {Rows(0, 2)}, Mode("append")).ok());
  auto log = std::make_shared<const DeltaLog>(fs, "/pu");
  auto snap = log->Latest().value();
  CommitInfo ci;
  ci.operation = "WRITE";
  Protocol up = snap->protocol();
  up.min_writer_version = 7;
  up.writer_features = std::vector<std::string>{"appendOnly", "invariants"};
  OptimisticTransaction w(log, snap), plain(log, snap), also(log, snap), down(log, snap);
  w.UpdateProtocol(up);
  ASSERT_TRUE(w.Commit({}, ci).ok());
  AddFile f;
  f.path = "f";
  plain.ReadWholeTable();
  auto ok = plain.Commit({Action::Of(f)}, ci);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  also.UpdateProtocol(up);
  ASSERT_ERROR_CLASS(also.Commit({}, ci), "DELTA_PROTOCOL_CHANGED");
  // Dropping back to the older writer version fails a transaction that read the newer.
  snap = log->Latest().value();
  OptimisticTransaction dropper(log, snap), other(log, snap);
  dropper.UpdateProtocol(Protocol{});
  ASSERT_TRUE(dropper.Commit({}, ci).ok());
  ASSERT_ERROR_CLASS(other.Commit({Action::Of(f)}, ci), "DELTA_PROTOCOL_CHANGED");
  // A concurrent upgrade to a protocol spate cannot write: that protocol's error.
  snap = log->Latest().value();
  OptimisticTransaction after(log, snap);
  Protocol v4 = snap->protocol();
  v4.min_writer_version = 4;
  std::vector<Action> body = {Action::Of(CommitInfo{}), Action::Of(v4)};
  ASSERT_TRUE(log->WriteCommitFile(snap->version() + 1, body).ok());
  ASSERT_ERROR_CLASS(after.Commit({Action::Of(f)}, ci),
                     "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
}

// Delta's ConflictChecker: a concurrent removal conflicts when the transaction read the
// removed file (whatever the removal's dataChange: a compaction of it too) or the whole
// table, not when the file was only in a partition it read (a file its scan skipped).
TEST(DeltaTxnTest, RemovalsConflictOnlyWithFilesRead) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/fr", {Rows(0, 2)}, Mode("append")).ok());
  ASSERT_TRUE(WriteBatches(fs, "/fr", {Rows(10, 2)}, Mode("append")).ok());
  auto log = std::make_shared<const DeltaLog>(fs, "/fr");
  CommitInfo ci;
  ci.operation = "MERGE";
  auto remove = [&](const AddFile& f, bool data_change) {
    OptimisticTransaction t(log, log->Latest().value());
    t.ReadFiles({f});
    CommitInfo c;
    c.operation = data_change ? "DELETE" : "OPTIMIZE";
    ASSERT_TRUE(t.Commit({Action::Of(RemoveOf(f, 1, data_change))}, c).ok());
  };
  auto all = [](const PartitionValues&) { return true; };
  // Read the first file of the table (the scan skipped the second).
  auto snap = log->Latest().value();
  ASSERT_EQ(snap->files().size(), 2u);
  const AddFile read = snap->files()[0], skipped = snap->files()[1];
  OptimisticTransaction merge(log, snap);
  merge.ReadPartitions(all);
  merge.ReadFiles({read});
  remove(skipped, true);
  auto ok = merge.Commit({}, ci);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->attempts, 2);
  // A compaction (dataChange=false) of the file read.
  snap = log->Latest().value();
  OptimisticTransaction merge2(log, snap);
  merge2.ReadPartitions(all);
  merge2.ReadFiles({read});
  remove(read, false);
  ASSERT_ERROR_CLASS(merge2.Commit({}, ci), "DELTA_CONCURRENT_DELETE_READ.WITHOUT_HINT");
  // Having read the whole table, any removal.
  ASSERT_TRUE(WriteBatches(fs, "/fr", {Rows(20, 2)}, Mode("append")).ok());
  snap = log->Latest().value();
  OptimisticTransaction whole(log, snap);
  whole.ReadWholeTable();
  remove(snap->files()[0], false);
  ASSERT_ERROR_CLASS(whole.Commit({}, ci), "DELTA_CONCURRENT_DELETE_READ.WITHOUT_HINT");
}

// Delta's SchemaUtils.isReadCompatible, which change feed reads and streams check.
TEST(DeltaSchemaTest, ReadCompatibility) {
  auto f = [](std::string name, DataTypePtr t, bool nullable = true) {
    return Field{std::move(name), std::move(t), nullable, ""};
  };
  const Schema read({f("id", DataType::Long()), f("v", DataType::String())});
  // Fewer columns (an older schema) read fine; a column the read schema lacks, another
  // type, another case of a name do not.
  EXPECT_TRUE(IsReadCompatible(Schema({f("id", DataType::Long())}), read, true));
  EXPECT_FALSE(
      IsReadCompatible(Schema({f("id", DataType::Long()), f("v", DataType::String()),
                               f("w", DataType::Int())}),
                       read, true));
  EXPECT_FALSE(IsReadCompatible(Schema({f("id", DataType::String())}), read, true));
  EXPECT_FALSE(IsReadCompatible(Schema({f("ID", DataType::Long())}), read, true));
  // Nullability: forbidding tightening, a nullable column must stay nullable; else a
  // non-nullable one must stay non-nullable.
  const Schema not_null({f("id", DataType::Long(), false)});
  const Schema nullable({f("id", DataType::Long())});
  EXPECT_TRUE(IsReadCompatible(not_null, nullable, true));
  EXPECT_FALSE(IsReadCompatible(nullable, not_null, true));
  EXPECT_TRUE(IsReadCompatible(nullable, not_null, false));
  EXPECT_FALSE(IsReadCompatible(not_null, nullable, false));
  // Nested: struct members by the same rules, array elements' nullability.
  auto st = [&](std::vector<Field> fs) { return DataType::Struct(std::move(fs)); };
  EXPECT_TRUE(IsReadCompatible(
      Schema({f("s", st({f("a", DataType::Int())}))}),
      Schema({f("s", st({f("a", DataType::Int()), f("b", DataType::Int())}))}), true));
  EXPECT_FALSE(IsReadCompatible(
      Schema({f("s", st({f("a", DataType::Int()), f("b", DataType::Int())}))}),
      Schema({f("s", st({f("a", DataType::Int())}))}), true));
  EXPECT_FALSE(IsReadCompatible(Schema({f("a", DataType::Array(DataType::Int(), true))}),
                                Schema({f("a", DataType::Array(DataType::Int(), false))}),
                                true));
}

// As Delta: a commit that read nothing and adds no data (SET TBLPROPERTIES) is a blind
// append; a change data feed table's metadata may not hold the feed's column names.
TEST(DeltaTxnTest, MetadataCommitsAndChangeDataColumns) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/md", {Rows(0, 2)}, Mode("append")).ok());
  auto log = std::make_shared<const DeltaLog>(fs, "/md");
  auto snap = log->Latest().value();
  Metadata m = snap->metadata();
  m.configuration["x"] = "y";
  OptimisticTransaction t(log, snap);
  t.UpdateMetadata(m);
  CommitInfo ci;
  ci.operation = "SET TBLPROPERTIES";
  ASSERT_TRUE(t.Commit({}, ci).ok());
  auto h = log->History(1).value();
  for (const auto& a : h[0].actions) {
    if (a.kind == Action::Kind::kCommitInfo) {
      EXPECT_EQ(a.commit_info.is_blind_append, true);
    }
  }
  // Turning the feed on for a table with a reserved column; a write that brings one into
  // a feed table.
  snap = log->Latest().value();
  Metadata with = snap->metadata();
  SchemaPtr schema = with.ParseSchema().value();
  std::vector<Field> fields = schema->fields();
  fields.push_back(Field{"_change_type", DataType::String(), true, ""});
  with.schema_string = SchemaToSparkJson(Schema(fields));
  Metadata on = with;
  on.configuration["delta.enableChangeDataFeed"] = "true";
  OptimisticTransaction enable(log, snap);
  enable.UpdateMetadata(on);
  Protocol p = snap->protocol();
  ASSERT_TRUE(AddPropertyFeatures(&on, &p).ok());
  enable.UpdateProtocol(p);
  ASSERT_ERROR_CLASS(enable.Commit({}, ci), "DELTA_TABLE_ALREADY_CONTAINS_CDC_COLUMNS");
  Metadata feed = snap->metadata();
  feed.configuration["delta.enableChangeDataFeed"] = "true";
  OptimisticTransaction t2(log, snap);
  t2.UpdateMetadata(feed);
  t2.UpdateProtocol(p);
  ASSERT_TRUE(t2.Commit({}, ci).ok());
  OptimisticTransaction write(log, log->Latest().value());
  on.configuration = feed.configuration;
  write.UpdateMetadata(on);
  ASSERT_ERROR_CLASS(write.Commit({}, ci), "RESERVED_CDC_COLUMNS_ON_WRITE");
}

TEST(DeltaTxnTest, ConcurrentThreadAppends) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/m", {Rows(0, 1)}, Mode("append")).ok());
  constexpr int kThreads = 4, kEach = 8;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = WriteBatches(fs, "/m", {Rows(1000 * (t + 1) + i, 1)}, Mode("append"));
        if (!r.ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto snap = DeltaLog(fs, "/m").Latest().value();
  EXPECT_EQ(snap->version(), kThreads * kEach);
  auto rows = ReadRows(fs, snap);
  EXPECT_EQ(rows.size(), static_cast<size_t>(kThreads * kEach + 1));
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()).size(), rows.size());
}

TEST(DeltaTxnTest, ConcurrentProcessAppends) {
  auto dir = std::filesystem::temp_directory_path() /
             ("spate_delta_fork_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string path = dir.string();
  auto fs = io::LocalFileSystem::Get();
  ASSERT_TRUE(WriteBatches(fs, path, {Rows(0, 1)}, Mode("append")).ok());
  constexpr int kProcs = 3, kEach = 5;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int bad = 0;
      for (int i = 0; i < kEach; ++i)
        bad += !WriteBatches(fs, path, {Rows(100 * (p + 1) + i, 1)}, Mode("append")).ok();
      ::_exit(bad);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    ::waitpid(k, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto snap = DeltaLog(fs, path).Latest().value();
  EXPECT_EQ(snap->version(), kProcs * kEach);
  EXPECT_EQ(ReadRows(fs, snap).size(), static_cast<size_t>(kProcs * kEach + 1));
  std::filesystem::remove_all(dir);
}

TEST(DeltaTxnTest, WriterKilledBeforeCommit) {
  auto dir = std::filesystem::temp_directory_path() /
             ("spate_delta_crash_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string path = dir.string();
  auto fs = io::LocalFileSystem::Get();
  ASSERT_TRUE(WriteBatches(fs, path, {Rows(0, 4)}, Mode("append")).ok());
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Writes data files, then dies before the log commit.
    DeltaWriteOptions o = Mode("append");
    (void)WriteDelta(
        fs, path, IdSchema(), 1,
        [&](const BatchSink& sink) -> Status {
          Status st = sink(0, Rows(100, 50));
          (void)st;
          ::_exit(0);
        },
        o);
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  size_t parquet_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    parquet_files += e.path().extension() == ".parquet";
  EXPECT_GE(parquet_files, 2u);  // the orphan exists on disk
  auto snap = DeltaLog(fs, path).Latest().value();
  EXPECT_EQ(snap->version(), 0);
  EXPECT_EQ(ReadRows(fs, snap).size(), 4u);
  ASSERT_TRUE(WriteBatches(fs, path, {Rows(4, 1)}, Mode("append")).ok());
  EXPECT_EQ(ReadRows(fs, DeltaLog(fs, path).Latest().value()).size(), 5u);
  std::filesystem::remove_all(dir);
}

TEST(DeltaWriterTest, TimestampPartitionsInSessionZone) {
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      {"id", DataType::Long(), true, ""}, {"ts", DataType::Timestamp(), true, ""}});
  // 2024-01-01 10:00:00 UTC = 02:00:00 in Los Angeles.
  auto b = Batch::Make(
      schema,
      {ColumnFromValues(DataType::Long(), {Value::Long(1)}),
       ColumnFromValues(DataType::Timestamp(), {Value::Timestamp(1704103200000000)})},
      1);
  auto fs = std::make_shared<io::MemoryFileSystem>();
  DeltaWriteOptions o = Mode("append");
  o.partition_by = {"ts"};
  o.time_zone_id = "America/Los_Angeles";
  ASSERT_TRUE(WriteBatches(fs, "/tz", {b}, o).ok());
  auto snap = DeltaLog(fs, "/tz").Latest().value();
  EXPECT_EQ(snap->files()[0].partition_values[0].second.value(), "2024-01-01 02:00:00");
  auto src = DeltaDataSource::Make(fs, snap, "America/Los_Angeles").value();
  ScanSpec spec;
  spec.columns = {0, 1};
  auto batch = src->OpenSplit(0, spec).value()->Next().value();
  EXPECT_EQ(batch->column(1)->GetValue(0).i64(), 1704103200000000);
}

TEST(DeltaWriterTest, StatsOfTypes) {
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      {"s", DataType::String(), true, ""},
      {"d", DataType::Date(), true, ""},
      {"t", DataType::Timestamp(), true, ""},
      {"n", DataType::Struct({{"x", DataType::Int(), true, ""}}), true, ""}});
  auto st = DataType::Struct({{"x", DataType::Int(), true, ""}});
  auto b = Batch::Make(
      schema,
      {ColumnFromValues(DataType::String(),
                        {Value::String(std::string(40, 'z')), Value::String("b")}),
       ColumnFromValues(DataType::Date(), {Value::Date(0), Value::Date(19000)}),
       ColumnFromValues(DataType::Timestamp(),
                        {Value::Timestamp(1500), Value::Null(DataType::Timestamp())}),
       ColumnFromValues(st, {Value::Struct(st, {Value::Int(3)}), Value::Null(st)})},
      2);
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/st", {b}, Mode("append")).ok());
  auto snap = DeltaLog(fs, "/st").Latest().value();
  auto stats = Json::Parse(*snap->files()[0].stats).value();
  const Json* mins = stats.Find("minValues");
  const Json* maxs = stats.Find("maxValues");
  EXPECT_EQ(mins->GetString("s").value(), "b");
  EXPECT_FALSE(maxs->GetString("s").has_value());  // 40 chars: a prefix is no max
  EXPECT_EQ(mins->GetString("d").value(), "1970-01-01");
  EXPECT_EQ(mins->GetString("t").value(), "1970-01-01T00:00:00.001Z");
  EXPECT_EQ(maxs->GetString("t").value(), "1970-01-01T00:00:00.002Z");
  EXPECT_EQ(mins->Find("n")->GetInt("x").value(), 3);
  EXPECT_EQ(stats.Find("nullCount")->Find("n")->GetInt("x").value(), 1);
  EXPECT_EQ(stats.Find("nullCount")->GetInt("t").value(), 1);
  // delta.dataSkippingNumIndexedCols limits the columns with statistics.
  DeltaWriteOptions two = Mode("append");
  two.options["delta.dataSkippingNumIndexedCols"] = "2";
  ASSERT_TRUE(WriteBatches(fs, "/st2", {b}, two).ok());
  auto s2 = Json::Parse(*DeltaLog(fs, "/st2").Latest().value()->files()[0].stats).value();
  EXPECT_EQ(s2.Find("nullCount")->fields().size(), 2u);
  EXPECT_EQ(s2.GetInt("numRecords").value(), 2);
}

TEST(DeltaWriterTest, SchemaEnforcementAndMerge) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/s", {Rows(0, 2)}, Mode("append")).ok());
  auto wide_schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""},
                         {"part", DataType::String(), true, ""},
                         {"extra", DataType::Int(), true, ""}});
  auto wide = Batch::Make(wide_schema,
                          {ColumnFromValues(DataType::Long(), {Value::Long(7)}),
                           ColumnFromValues(DataType::String(), {Value::String("z")}),
                           ColumnFromValues(DataType::Int(), {Value::Int(9)})},
                          1);
  auto r = WriteBatches(fs, "/s", {wide}, Mode("append"));
  ASSERT_ERROR_CLASS(r, "DELTA_METADATA_MISMATCH");
  auto bad_type = std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::String(), true, ""}});
  auto bt = Batch::Make(bad_type,
                        {ColumnFromValues(DataType::String(), {Value::String("x")})}, 1);
  auto r2 = WriteBatches(fs, "/s", {bt}, Mode("append"));
  ASSERT_ERROR_CLASS(r2, "DELTA_FAILED_TO_MERGE_FIELDS");
  DeltaWriteOptions merge = Mode("append");
  merge.options["mergeSchema"] = "true";
  ASSERT_TRUE(WriteBatches(fs, "/s", {wide}, merge).ok());
  auto snap = DeltaLog(fs, "/s").Latest().value();
  EXPECT_EQ(snap->schema()->num_fields(), 3);
  EXPECT_EQ(ReadRows(fs, snap),
            (std::vector<std::string>{"0|a|NULL", "1|a|NULL", "7|z|9"}));
}

TEST(DeltaWriterTest, OverwriteSchema) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  ASSERT_TRUE(WriteBatches(fs, "/ow", {Rows(0, 3)}, Mode("append")).ok());
  auto other_schema = std::make_shared<const Schema>(std::vector<Field>{
      {"name", DataType::String(), true, ""}, {"part", DataType::String(), true, ""}});
  auto other = Batch::Make(other_schema,
                           {ColumnFromValues(DataType::String(), {Value::String("n")}),
                            ColumnFromValues(DataType::String(), {Value::String("p")})},
                           1);
  auto refused = WriteBatches(fs, "/ow", {other}, Mode("overwrite"));
  ASSERT_ERROR_CLASS(refused, "DELTA_METADATA_MISMATCH");
  DeltaWriteOptions o = Mode("overwrite");
  o.options["overwriteSchema"] = "true";
  o.partition_by = {"part"};
  ASSERT_TRUE(WriteBatches(fs, "/ow", {other}, o).ok());
  auto snap = DeltaLog(fs, "/ow").Latest().value();
  EXPECT_EQ(snap->schema()->ToString(), "struct<name:string,part:string>");
  EXPECT_EQ(snap->metadata().partition_columns, std::vector<std::string>{"part"});
  EXPECT_EQ(ReadRows(fs, snap), std::vector<std::string>{"n|p"});
  // The table id survives the schema change.
  EXPECT_EQ(snap->metadata().id, DeltaLog(fs, "/ow").At(0).value()->metadata().id);
}

TEST(DeltaWriterTest, PartitionsReplaceWhereAndSkipping) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  DeltaWriteOptions o = Mode("append");
  o.partition_by = {"part"};
  ASSERT_TRUE(WriteBatches(fs, "/p", {Rows(0, 3, "a"), Rows(10, 3, "b c")}, o).ok());
  auto snap = DeltaLog(fs, "/p").Latest().value();
  ASSERT_EQ(snap->files().size(), 2u);
  EXPECT_EQ(snap->metadata().partition_columns, std::vector<std::string>{"part"});
  bool encoded = false;
  for (const auto& f : snap->files()) encoded |= f.path.rfind("part=b%20c/", 0) == 0;
  EXPECT_TRUE(encoded);
  // Skipping by partition value and by stats.
  ScanPredicate eq;
  eq.column = 1;
  eq.op = ScanPredicate::Op::kEq;
  eq.literal = Value::String("a");
  EXPECT_EQ(ReadRows(fs, snap, {eq}).size(), 3u);
  ScanPredicate gt;
  gt.column = 0;
  gt.op = ScanPredicate::Op::kGt;
  gt.literal = Value::Long(5);
  auto src = DeltaDataSource::Make(fs, snap).value();
  int skipped = 0;
  for (int i = 0; i < src->num_splits(); ++i) skipped += src->CanSkip(i, {gt});
  EXPECT_EQ(skipped, 1);
  // replaceWhere replaces one partition.
  DeltaWriteOptions rw = Mode("overwrite");
  rw.options["replaceWhere"] = "part = 'a'";
  ASSERT_TRUE(WriteBatches(fs, "/p", {Rows(50, 1, "a")}, rw).ok());
  snap = DeltaLog(fs, "/p").Latest().value();
  EXPECT_EQ(ReadRows(fs, snap),
            (std::vector<std::string>{"10|b c", "11|b c", "12|b c", "50|a"}));
}

// ---- golden tables written by Spark / Delta
// ------------------------------------------------

// <repo>/../shared/data/delta-golden (base/test_data.h; missing fails when CI=true).
const std::string kGolden = SharedTestData("delta-golden");

struct Golden {
  const char* name;
  int64_t rows;     // -1: log-only (no data read)
  int64_t version;  // expected latest version
  int64_t files;    // expected active files (-1: not checked)
};

TEST(DeltaGoldenTest, SupportedTablesRead) {
  SPATE_REQUIRE_TEST_DATA(kGolden);
  auto fs = io::LocalFileSystem::Get();
  const Golden tables[] = {
      {"snapshot-data0", 10, 0, -1},
      {"snapshot-data3", 30, 3, 4},
      {"snapshot-data2-deleted", 20, 4, -1},
      {"snapshot-vacuumed", 20, 5, 2},
      {"checkpoint", -1, 14, 1},
      {"multi-part-checkpoint", 31, 1, -1},
      {"basic-with-inserts-deletes-checkpoint", 41, 13, -1},
      {"only-checkpoint-files", 25, 2, -1},
      {"corrupted-last-checkpoint-kernel", 100, 11, -1},
      {"basic-with-inserts-overwrite-restore", 200, 3, -1},
      {"basic-with-inserts-updates", 100, 1, -1},
      {"delete-re-add-same-file-different-transactions", -1, 3, 2},
      {"deltalog-getChanges", -1, 2, 0},
      {"delta-0.1.0", 3, 3, 3},
      {"transaction_log_schema_evolvability", 18, 5, -1},
      {"data-reader-primitives", 11, 0, -1},
      {"parquet-all-types", 200, 0, -1},
      {"parquet-all-types-legacy-format", 200, 0, -1},
      {"basic-decimal-table", 4, 0, -1},
      {"decimal-various-scale-precision", 3, 0, -1},
      {"kernel-timestamp-INT96", 5, 0, -1},
      {"kernel-timestamp-TIMESTAMP_MICROS", 5, 0, -1},
      {"kernel-timestamp-TIMESTAMP_MILLIS", 5, 0, -1},
      {"kernel-timestamp-partition-col-ISO8601", 2, 0, -1},
      {"data-reader-timestamp_ntz", 9, 1, -1},
      {"data-reader-partition-values", 3, 0, -1},
      {"125-iterator-bug", 5, 11, -1},
      {"log-replay-latest-metadata-protocol", 40, 2, -1},
      {"basic-dv-no-checkpoint", 8, 1, 2},
      {"dv-partitioned-with-checkpoint", 35, 15, 15},
      {"log-replay-dv-key-cases", 47, 3, 1},
      {"table-with-columnmapping-mode-name", 6, 0, 2},
      {"table-with-columnmapping-mode-id", 6, 0, 2},
      {"type-widening", 2, 2, -1},
      {"v2-checkpoint-json", 10, 2, -1},
      {"v2-checkpoint-parquet", 10, 2, -1},
  };
  for (const auto& g : tables) {
    SCOPED_TRACE(g.name);
    std::string path = kGolden + "/" + g.name;
    auto snap = DeltaLog(fs, path).Latest();
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    EXPECT_EQ((*snap)->version(), g.version);
    if (g.files >= 0) EXPECT_EQ(static_cast<int64_t>((*snap)->files().size()), g.files);
    if (g.rows >= 0) EXPECT_EQ(static_cast<int64_t>(ReadRows(fs, *snap).size()), g.rows);
  }
}

TEST(DeltaGoldenTest, KnownValues) {
  SPATE_REQUIRE_TEST_DATA(kGolden);
  auto fs = io::LocalFileSystem::Get();
  auto rows = [&](const std::string& name) {
    return ReadRows(fs, DeltaLog(fs, kGolden + "/" + name).Latest().value());
  };
  auto d3 = rows("snapshot-data2-deleted");
  EXPECT_EQ(d3.front(), "0|data-3-0");
  auto old = rows("delta-0.1.0");
  EXPECT_EQ(old, (std::vector<std::string>{"4|d", "5|e", "6|f"}));
  auto upd = rows("basic-with-inserts-updates");
  EXPECT_NE(std::find(upd.begin(), upd.end(), "0|N/A"), upd.end());
  EXPECT_NE(std::find(upd.begin(), upd.end(), "99|val=99"), upd.end());
  auto evo = rows("log-replay-latest-metadata-protocol");
  int nulls = 0;
  for (const auto& r : evo) nulls += r.find("NULL") != std::string::npos;
  EXPECT_EQ(nulls, 20);
  auto getchanges = DeltaLog(fs, kGolden + "/deltalog-getChanges").Latest().value();
  EXPECT_EQ(getchanges->TxnVersion("fakeAppId").value(), 3);
  EXPECT_FALSE(getchanges->TxnVersion("other").has_value());
  auto readd = DeltaLog(fs, kGolden + "/delete-re-add-same-file-different-transactions")
                   .Latest()
                   .value();
  for (const auto& f : readd->files())
    if (f.path == "foo") EXPECT_EQ(f.modification_time, 1700000000000);
  auto has = [](const std::vector<std::string>& v, const std::string& row) {
    return std::find(v.begin(), v.end(), row) != v.end();
  };
  auto ts = rows("kernel-timestamp-INT96");
  EXPECT_TRUE(has(ts, "0|2020-01-01 08:09:10.001|2020-02-01 08:09:10"));
  EXPECT_TRUE(has(ts, "4|NULL|NULL"));
  EXPECT_TRUE(has(rows("kernel-timestamp-partition-col-ISO8601"),
                  "2024-01-02 12:30:00|2024-01-02 12:30:00"));
  EXPECT_TRUE(has(rows("basic-decimal-table"),
                  "-2342342.23423|-999.99|-99999.99999|-9999999999.9999999999"));
  EXPECT_TRUE(has(rows("data-reader-timestamp_ntz"),
                  "3|2021-11-18 02:30:00.123456|2013-07-05 17:01:00.123456"));
  EXPECT_TRUE(has(rows("data-reader-primitives"), "7|7|7|7|false|7.0|7.0|7|[07 07]|7"));
  auto pv = rows("data-reader-partition-values");
  EXPECT_TRUE(has(pv,
                  "1|1|1|1|false|1.0|1.0|1|null|2021-09-08|2021-09-08 11:11:11|1|"
                  "[{1}, {1}, {1}]|{1, 1, {1, 1}}|1"));
  EXPECT_TRUE(has(pv,
                  "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|"
                  "[{2}, {2}, {2}]|{2, 2, {2, 2}}|2"));
  // Deletion vectors: ids 0 and 1 deleted; even col1 < 30 deleted.
  EXPECT_EQ(rows("basic-dv-no-checkpoint").front(), "2");
  auto dvp = rows("dv-partitioned-with-checkpoint");
  for (const auto& r : dvp) {
    // part|col1|col2
    size_t a = r.find('|');
    int64_t col1 = ParseInt64(r.substr(a + 1, r.find('|', a + 1) - a - 1)).value();
    EXPECT_FALSE(col1 < 30 && col1 % 2 == 0) << r;
  }
  // Column mapping: physical column names in the files, logical names in the schema.
  for (const char* mode :
       {"table-with-columnmapping-mode-name", "table-with-columnmapping-mode-id"}) {
    auto cmr = rows(mode);
    ASSERT_EQ(cmr.size(), 6u);
    EXPECT_EQ(cmr.front().substr(0, 2), "0|") << cmr.front();
    EXPECT_NE(cmr.front().find("2021-11-18"), std::string::npos) << cmr.front();
  }
  // Type widening: the v0 file's narrow types are read as the widened table types.
  auto tw = rows("type-widening");
  ASSERT_EQ(tw.size(), 2u);
  EXPECT_EQ(tw[0].substr(0, 5), "1|2|3") << tw[0];
  // V2 checkpoints: the adds live in sidecar files.
  for (const char* v2 : {"v2-checkpoint-json", "v2-checkpoint-parquet"}) {
    auto snap = DeltaLog(fs, kGolden + "/" + v2).Latest().value();
    EXPECT_EQ(snap->checkpoint_version().value(), 2) << v2;
    EXPECT_EQ(rows(v2).front(), "0");
  }
  // Time travel on a Spark table.
  auto v1 = DeltaLog(fs, kGolden + "/snapshot-data3").At(1).value();
  EXPECT_EQ(ReadRows(fs, v1).size(), 20u);
}

TEST(DeltaGoldenTest, AppendToSparkDvTableAndCheckpoint) {
  SPATE_REQUIRE_TEST_DATA(kGolden);
  auto dir = std::filesystem::temp_directory_path() /
             ("spate_delta_dv_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kGolden + "/basic-dv-no-checkpoint", dir,
                        std::filesystem::copy_options::recursive);
  auto fs = io::LocalFileSystem::Get();
  const std::string path = dir.string();
  auto id_schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""}});
  for (int v = 2; v <= 10; ++v) {
    auto b = Batch::Make(id_schema,
                         {ColumnFromValues(DataType::Long(), {Value::Long(100 + v)})}, 1);
    ASSERT_TRUE(WriteBatches(fs, path, {b}, Mode("append")).ok());
  }
  ASSERT_TRUE(std::filesystem::exists(
      dir / "_delta_log/00000000000000000010.checkpoint.parquet"));
  for (int v = 0; v <= 10; ++v) std::filesystem::remove(DeltaLog(fs, path).CommitPath(v));
  auto snap = DeltaLog(fs, path).Latest().value();
  EXPECT_EQ(snap->checkpoint_version().value(), 10);
  EXPECT_EQ(ReadRows(fs, snap).size(), 8u + 9u);  // the DV still hides ids 0 and 1
  std::filesystem::remove_all(dir);
}

TEST(DeltaGoldenTest, UnsupportedTablesRefused) {
  SPATE_REQUIRE_TEST_DATA(kGolden);
  auto fs = io::LocalFileSystem::Get();
  const std::pair<const char*, const char*> refused[] = {
      {"deltalog-state-reconstruction-from-checkpoint-missing-metadata",
       "DELTA_STATE_RECOVER_ERROR"},
      {"versions-not-contiguous", "DELTA_VERSIONS_NOT_CONTIGUOUS"},
      {"deltalog-invalid-protocol-version", "DELTA_INVALID_PROTOCOL_VERSION"},
      {"no-delta-log-folder", "DELTA_MISSING_DELTA_TABLE"},
  };
  for (const auto& [name, expect] : refused) {
    SCOPED_TRACE(name);
    auto snap = DeltaLog(fs, kGolden + "/" + name).Latest();
    ASSERT_ERROR_HAS(snap, expect);
  }
}

}  // namespace
}  // namespace spate::table
