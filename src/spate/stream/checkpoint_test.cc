// Copyright spate authors.
#include "spate/stream/checkpoint.h"

#include <gtest/gtest.h>

#include "spate/base/json.h"
#include "spate/io/forwarding_file_system.h"
#include "spate/stream/progress.h"
#include "spate/stream/trigger.h"
#include "spate/testing/status_matchers.h"

namespace spate::stream {
namespace {

io::FileSystemPtr Fs() { return std::make_shared<io::MemoryFileSystem>(); }

TEST(OffsetSeqLogTest, ExactFileContents) {
  auto fs = Fs();
  OffsetSeqLog log(fs, "/chk/offsets");
  OffsetSeq seq;
  seq.metadata.batch_timestamp_ms = 1700000000123;
  seq.metadata.conf = {{"spark.sql.shuffle.partitions", "200"}};
  Json off = Json::Object();
  off.Set("logOffset", Json::Int(0));
  seq.offsets = {off, std::nullopt, Json::Int(7)};
  ASSERT_TRUE(log.Add(0, seq).ok());
  EXPECT_EQ(*fs->ReadAll("/chk/offsets/0"),
            "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1700000000123,\"conf\":{"
            "\"spark.sql.shuffle."
            "partitions\":\"200\"}}\n{\"logOffset\":0}\n-\n7");
  auto back = log.Get(0);
  ASSERT_TRUE(back.ok());
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ((*back)->offsets.size(), 3u);
  EXPECT_FALSE((*back)->offsets[1].has_value());
  EXPECT_EQ((*back)->offsets[2]->int_value(), 7);
  EXPECT_EQ((*back)->metadata.batch_timestamp_ms, 1700000000123);
  // Put-if-absent: a second writer of batch 0 loses.
  Status st = log.Add(0, seq);
  EXPECT_EQ(st.error_class(), "CONCURRENT_STREAM_LOG_UPDATE");
  EXPECT_NE(st.ToString().find("Multiple streaming jobs detected for 0"),
            std::string::npos);
}

TEST(CommitLogTest, ExactFileContents) {
  auto fs = Fs();
  CommitLog log(fs, "/chk/commits");
  ASSERT_TRUE(log.Add(3).ok());
  EXPECT_EQ(*fs->ReadAll("/chk/commits/3"), "v1\n{\"nextBatchWatermarkMs\":0}");
  auto latest = log.LatestBatchId();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(**latest, 3);
}

TEST(CheckpointTest, CorruptAndFutureFilesNameTheFile) {
  auto fs = Fs();
  ASSERT_TRUE(fs->MakeDirs("/chk/offsets").ok());
  ASSERT_TRUE(
      fs->WriteAtomic("/chk/offsets/0", "v1\n{\"batchWatermarkMs\":0,\"batchTi").ok());
  OffsetSeqLog log(fs, "/chk/offsets");
  auto r = log.Get(0);
  ASSERT_ERROR_CLASS(r, "MALFORMED_LOG_FILE");
  EXPECT_ERROR_HAS(r, "/chk/offsets/0");
  ASSERT_TRUE(fs->WriteAtomic("/chk/offsets/1", "v99999\n{}").ok());
  r = log.Get(1);
  ASSERT_ERROR_CLASS(r, "INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION");
  EXPECT_ERROR_HAS(r, "/chk/offsets/1");
  ASSERT_TRUE(fs->WriteAtomic("/chk/offsets/2", "").ok());
  EXPECT_EQ(log.Get(2).status().error_class(), "MALFORMED_LOG_FILE");
  ASSERT_TRUE(fs->MakeDirs("/chk/commits").ok());
  ASSERT_TRUE(fs->WriteAtomic("/chk/commits/0", "v1\n{\"nextBatch").ok());
  CommitLog commits(fs, "/chk/commits");
  auto c = commits.Get(0);
  ASSERT_ERROR_CLASS(c, "MALFORMED_LOG_FILE");
  EXPECT_ERROR_HAS(c, "/chk/commits/0");
}

TEST(CheckpointTest, MetadataIdIsStable) {
  auto fs = Fs();
  auto a = ReadOrCreateStreamMetadata(*fs, "/chk", "id-1");
  auto b = ReadOrCreateStreamMetadata(*fs, "/chk", "id-2");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, "id-1");
  EXPECT_EQ(*b, "id-1");
  EXPECT_EQ(*fs->ReadAll("/chk/metadata"), "{\"id\":\"id-1\"}\n");
  ASSERT_TRUE(fs->WriteAtomic("/chk2/metadata", "{\"i").ok());
  auto c = ReadOrCreateStreamMetadata(*fs, "/chk2", "x");
  ASSERT_ERROR_HAS(c, "/chk2/metadata");
}

TEST(CheckpointTest, PurgeKeepsRecent) {
  auto fs = Fs();
  CommitLog log(fs, "/c");
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(log.Add(i).ok());
  ASSERT_TRUE(log.Purge(4).ok());
  EXPECT_EQ(*log.ListBatchIds(), (std::vector<int64_t>{4, 5}));
  ASSERT_TRUE(log.PurgeAfter(4).ok());
  EXPECT_EQ(*log.ListBatchIds(), (std::vector<int64_t>{4}));
}

TEST(CompactibleLogTest, CompactsEveryInterval) {
  auto fs = Fs();
  CompactibleLog log(fs, "/s/0", 3);
  for (int b = 0; b < 5; ++b) {
    Json e = Json::Object();
    e.Set("path", Json::String("file:///in/f" + std::to_string(b)));
    e.Set("timestamp", Json::Int(b));
    e.Set("batchId", Json::Int(b));
    ASSERT_TRUE(log.AddEntries(b, {e}).ok());
  }
  EXPECT_TRUE(*fs->Exists("/s/0/2.compact"));
  EXPECT_FALSE(*fs->Exists("/s/0/2"));
  EXPECT_EQ(*fs->ReadAll("/s/0/0"),
            "v1\n{\"path\":\"file:///in/f0\",\"timestamp\":0,\"batchId\":0}");
  auto compact = fs->ReadAll("/s/0/2.compact");
  EXPECT_EQ(std::count(compact->begin(), compact->end(), '\n'), 3);
  auto all = log.AllEntries();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[4].Find("batchId")->int_value(), 4);
  EXPECT_EQ(**log.LatestId(), 4);
}

TEST(CompactibleLogTest, DeletesEntriesBeforeACompaction) {
  auto fs = Fs();
  CompactibleLog log(fs, "/s/0", 3, /*cleanup_delay_ms=*/0);
  for (int b = 0; b < 7; ++b) {
    Json e = Json::Object();
    e.Set("path", Json::String("file:///in/f" + std::to_string(b)));
    e.Set("batchId", Json::Int(b));
    ASSERT_TRUE(log.AddEntries(b, {e}).ok());
  }
  // Compactions at 2 and 5: everything before 5.compact is gone.
  EXPECT_EQ(*log.ListBatchIds(), (std::vector<int64_t>{6}));
  EXPECT_TRUE(*fs->Exists("/s/0/5.compact"));
  EXPECT_FALSE(*fs->Exists("/s/0/2.compact"));
  auto all = log.AllEntries();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 7u);
}

// The cleanup after each compaction lists the log once per log object (the files of an
// earlier run), then deletes from what it wrote: a long stream does not list thousands
// of files within the cleanup delay every compaction.
TEST(CompactibleLogTest, CleanupListsTheLogOncePerObject) {
  auto counting = std::make_shared<io::CountingFileSystem>(Fs(), "/s/0/");
  io::FileSystemPtr fs = counting;
  auto entry = [](int b) {
    Json e = Json::Object();
    e.Set("path", Json::String("file:///in/f" + std::to_string(b)));
    e.Set("batchId", Json::Int(b));
    return e;
  };
  {
    CompactibleLog keep_all(fs, "/s/0", 3);  // an earlier run that kept its files
    for (int b = 0; b < 7; ++b) ASSERT_TRUE(keep_all.AddEntries(b, {entry(b)}).ok());
  }
  CompactibleLog log(fs, "/s/0", 3, /*cleanup_delay_ms=*/0);
  counting->Take();
  for (int b = 7; b < 301; ++b) {
    ASSERT_TRUE(log.AddEntries(b, {entry(b)}).ok());
    if (b == 8) {  // the first compaction: the earlier run's files are gone
      // One listing to read the earlier run's entries back, one for the cleanup.
      EXPECT_EQ(counting->Take().lists, 2);
      EXPECT_TRUE(log.ListBatchIds()->empty());
      EXPECT_TRUE(*fs->Exists("/s/0/8.compact"));
      counting->Take();
    }
  }
  EXPECT_EQ(counting->Take().lists, 0);  // 97 more compactions, no listing
  EXPECT_EQ(*log.ListBatchIds(), (std::vector<int64_t>{300}));
  EXPECT_FALSE(*fs->Exists("/s/0/296.compact"));
  auto all = log.AllEntries();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 301u);
}

// A compaction built from what the writer remembers is the file a writer reading the log
// back builds (the restarted one below), in Spark's format: "v1", then one entry a line.
TEST(CompactibleLogTest, CompactionFromMemoryEqualsOneFromTheLog) {
  auto entry = [](int b, int i) {
    Json e = Json::Object();
    e.Set("path",
          Json::String("file:///in/f" + std::to_string(b) + "-" + std::to_string(i)));
    e.Set("timestamp", Json::Int(b));
    e.Set("batchId", Json::Int(b));
    return e;
  };
  auto mem = Fs(), read_back = Fs();
  CompactibleLog kept(mem, "/s/0", 4);
  for (int b = 0; b < 14; ++b)
    ASSERT_TRUE(kept.AddEntries(b, {entry(b, 0), entry(b, 1)}).ok());
  // The same batches, written by a log object restarted before every batch.
  for (int b = 0; b < 14; ++b) {
    CompactibleLog fresh(read_back, "/s/0", 4);
    ASSERT_TRUE(fresh.AddEntries(b, {entry(b, 0), entry(b, 1)}).ok());
  }
  for (const char* f :
       {"/s/0/3.compact", "/s/0/7.compact", "/s/0/11.compact", "/s/0/13"}) {
    auto a = mem->ReadAll(f), b = read_back->ReadAll(f);
    ASSERT_TRUE(a.ok() && b.ok()) << f;
    EXPECT_EQ(*a, *b) << f;
  }
  auto text = *mem->ReadAll("/s/0/11.compact");
  EXPECT_EQ(text.rfind("v1\n{\"path\":\"file:///in/f0-0\"", 0), 0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 24);  // batches 0..11, 2 each
}

TEST(TriggerTest, ParsesIntervals) {
  EXPECT_EQ(*Trigger::ParseIntervalMs("30 seconds"), 30000);
  EXPECT_EQ(*Trigger::ParseIntervalMs("1 minute"), 60000);
  EXPECT_EQ(*Trigger::ParseIntervalMs("interval 2 hours"), 7200000);
  EXPECT_EQ(*Trigger::ParseIntervalMs("500 milliseconds"), 500);
  EXPECT_EQ(*Trigger::ParseIntervalMs("10s"), 10000);
  EXPECT_ERROR_CLASS(Trigger::ParseIntervalMs("1 month"), "_LEGACY_ERROR_TEMP_3262");
  EXPECT_ERROR_CLASS(Trigger::ParseIntervalMs("soon"),
                     "INVALID_INTERVAL_FORMAT.UNRECOGNIZED_NUMBER");
  // Spark 4.2's classes for the same trigger strings.
  EXPECT_ERROR_CLASS(Trigger::ParseIntervalMs("interval"),
                     "INVALID_INTERVAL_FORMAT.INPUT_IS_EMPTY");
  EXPECT_ERROR_CLASS(Trigger::ParseIntervalMs("5"),
                     "INVALID_INTERVAL_FORMAT.MISSING_UNIT");
  EXPECT_ERROR_CLASS(Trigger::ParseIntervalMs("5 fortnights"),
                     "INVALID_INTERVAL_FORMAT.INVALID_UNIT");
  EXPECT_ERROR_HAS(Trigger::ParseIntervalMs("-5 seconds"), "should not be negative");
}

TEST(ProgressTest, JsonAsSpark) {
  StreamingQueryProgress p;
  p.id = "8f2c";
  p.run_id = "3d9c";
  p.timestamp = FormatTimestampMs(1481741124873);
  p.batch_id = 2;
  p.batch_duration = 5;
  p.num_input_rows = 10;
  p.input_rows_per_second = 120.0;
  p.processed_rows_per_second = 200.0;
  p.duration_ms = {{"triggerExecution", 5}, {"addBatch", 3}, {"walCommit", 1}};
  SourceProgress s;
  s.description = "MemoryStream[value]";
  s.end_offset = Json::Int(1);
  s.num_input_rows = 10;
  s.input_rows_per_second = 120.0;
  s.processed_rows_per_second = NAN;
  p.sources.push_back(s);
  p.sink.description = "MemorySink";
  p.sink.num_output_rows = 10;
  EXPECT_EQ(
      p.json(),
      "{\"id\":\"8f2c\",\"runId\":\"3d9c\",\"name\":null,\"timestamp\":\"2016-12-14T18:"
      "45:24.873Z\","
      "\"batchId\":2,\"batchDuration\":5,\"numInputRows\":10,\"inputRowsPerSecond\":120."
      "0,"
      "\"processedRowsPerSecond\":200.0,\"durationMs\":{\"addBatch\":3,"
      "\"triggerExecution\":5,"
      "\"walCommit\":1},\"stateOperators\":[],\"sources\":[{\"description\":"
      "\"MemoryStream[value]\","
      "\"startOffset\":null,\"endOffset\":1,\"latestOffset\":null,\"numInputRows\":10,"
      "\"inputRowsPerSecond\":120.0}],\"sink\":{\"description\":\"MemorySink\","
      "\"numOutputRows\":10}}");
  std::string pretty = p.prettyJson();
  EXPECT_NE(pretty.find("  \"stateOperators\" : [ ],\n"), std::string::npos);
  EXPECT_NE(
      pretty.find("  \"sources\" : [ {\n    \"description\" : \"MemoryStream[value]\","),
      std::string::npos);
  StreamingQueryStatus st;
  EXPECT_EQ(st.json(),
            "{\"message\":\"Initializing "
            "sources\",\"isDataAvailable\":false,\"isTriggerActive\":false}");
}

// Spark's SourceProgress.jsonValue: avgOffsetsBehindLatest as BigDecimal(s).setScale(1,
// HALF_UP) in the JSON only.
TEST(ProgressTest, AvgOffsetsBehindLatestRoundedInJson) {
  const std::pair<const char*, const char*> cases[] = {
      {"1.25", "1.3"},   {"2.5", "2.5"},
      {"0.0", "0.0"},    {"1.3333333333333333", "1.3"},
      {"9.95", "10.0"},  {"0.05", "0.1"},
      {"0.04", "0.0"},   {"-1.25", "-1.3"},
      {"-0.04", "0.0"},  {"1.2345678E7", "12345678.0"},
      {"1.0E-4", "0.0"}, {"7", "7.0"}};
  for (const auto& [raw, json] : cases) {
    SourceProgress s;
    s.metrics = {{"avgOffsetsBehindLatest", raw}, {"maxOffsetsBehindLatest", "1.25"}};
    const Json v = s.ToJson();
    EXPECT_EQ(v.Find("metrics")->Find("avgOffsetsBehindLatest")->string_value(), json)
        << raw;
    EXPECT_EQ(v.Find("metrics")->Find("maxOffsetsBehindLatest")->string_value(), "1.25");
    EXPECT_EQ(s.metrics.at("avgOffsetsBehindLatest"), raw);
  }
}

// The bytes spate writes for a representative progress report (compact and pretty) and
// offsets / commit / metadata entries, pinned: the JSON value type under them must not
// change a byte (Spark's layout, Java's Double.toString for rates).
TEST(CheckpointBytesTest, ProgressAndLogEntriesAsWritten) {
  StreamingQueryProgress p;
  p.id = "8f2c";
  p.run_id = "3d9c";
  p.name = "q\"1";
  p.timestamp = FormatTimestampMs(1481741124873);
  p.batch_id = 7;
  p.batch_duration = 1234;
  p.num_input_rows = 3;
  p.input_rows_per_second = 1.0 / 3.0;
  p.processed_rows_per_second = 1.0E-4;
  p.duration_ms = {{"triggerExecution", 1234}, {"addBatch", 1000}};
  p.event_time = {{"watermark", "2016-12-14T18:45:24.873Z"}};
  StateOperatorProgress op;
  op.operator_name = "stateStoreSave";
  op.num_rows_total = 12345678901;
  op.num_rows_updated = 2;
  op.memory_used_bytes = 4096;
  op.num_shuffle_partitions = 200;
  op.num_state_store_instances = 200;
  op.custom_metrics = {{"loadedMapCacheHitCount", 1},
                       {"stateOnCurrentVersionSizeBytes", 3}};
  p.state_operators.push_back(op);
  SourceProgress kafka;
  kafka.description = "KafkaV2[Subscribe[t]]";
  auto kafka_off = Json::Parse(R"({"t":{"0":12345678901,"1":-1}})");
  ASSERT_TRUE(kafka_off.ok());
  kafka.start_offset = *kafka_off;
  kafka.end_offset = *kafka_off;
  kafka.latest_offset = Json::Null();
  kafka.num_input_rows = 3;
  kafka.input_rows_per_second = 12345678.0;
  kafka.processed_rows_per_second = 0.5;
  kafka.metrics = {{"avgOffsetsBehindLatest", "1.25"}, {"maxOffsetsBehindLatest", "3"}};
  p.sources.push_back(kafka);
  SourceProgress file;
  file.description = "FileStreamSource[file:/in]";
  Json log_offset = Json::Object();
  log_offset.Set("logOffset", Json::Int(0));
  file.end_offset = log_offset;
  p.sources.push_back(file);
  p.sink.description = "ForeachBatchSink";
  p.sink.num_output_rows = -1;
  p.sink.metrics = {{"numFiles", "2"}};
  EXPECT_EQ(p.json(),
            "{\"id\":\"8f2c\",\"runId\":\"3d9c\",\"name\":\"q\\\"1\",\"timestamp\":"
            "\"2016-12-14T18:45:24.873Z\",\"batchId\":7,\"batchDuration\":1234,"
            "\"numInputRows\":3,\"inputRowsPerSecond\":0.3333333333333333,"
            "\"processedRowsPerSecond\":1.0E-4,\"durationMs\":{\"addBatch\":1000,"
            "\"triggerExecution\":1234},\"eventTime\":{\"watermark\":\"2016-12-14T18:"
            "45:24.873Z\"},\"stateOperators\":[{\"operatorName\":\"stateStoreSave\","
            "\"numRowsTotal\":12345678901,\"numRowsUpdated\":2,\"allUpdatesTimeMs\":"
            "0,\"numRowsRemoved\":0,\"allRemovalsTimeMs\":0,\"commitTimeMs\":0,"
            "\"memoryUsedBytes\":4096,\"numRowsDroppedByWatermark\":0,"
            "\"numShufflePartitions\":200,\"numStateStoreInstances\":200,"
            "\"customMetrics\":{\"loadedMapCacheHitCount\":1,"
            "\"stateOnCurrentVersionSizeBytes\":3}}],\"sources\":[{\"description\":"
            "\"KafkaV2[Subscribe[t]]\",\"startOffset\":{\"t\":{\"0\":12345678901,"
            "\"1\":-1}},\"endOffset\":{\"t\":{\"0\":12345678901,\"1\":-1}},"
            "\"latestOffset\":null,\"numInputRows\":3,\"inputRowsPerSecond\":1."
            "2345678E7,\"processedRowsPerSecond\":0.5,\"metrics\":{"
            "\"avgOffsetsBehindLatest\":\"1.3\",\"maxOffsetsBehindLatest\":\"3\"}},{"
            "\"description\":\"FileStreamSource[file:/"
            "in]\",\"startOffset\":null,\"endOffset\":{\"logOffset\":0},"
            "\"latestOffset\":null,\"numInputRows\":0}],\"sink\":{\"description\":"
            "\"ForeachBatchSink\",\"numOutputRows\":-1,\"metrics\":{\"numFiles\":"
            "\"2\"}}}");
  EXPECT_EQ(p.prettyJson(),
            "{\n"
            "  \"id\" : \"8f2c\",\n"
            "  \"runId\" : \"3d9c\",\n"
            "  \"name\" : \"q\\\"1\",\n"
            "  \"timestamp\" : \"2016-12-14T18:45:24.873Z\",\n"
            "  \"batchId\" : 7,\n"
            "  \"batchDuration\" : 1234,\n"
            "  \"numInputRows\" : 3,\n"
            "  \"inputRowsPerSecond\" : 0.3333333333333333,\n"
            "  \"processedRowsPerSecond\" : 1.0E-4,\n"
            "  \"durationMs\" : {\n"
            "    \"addBatch\" : 1000,\n"
            "    \"triggerExecution\" : 1234\n"
            "  },\n"
            "  \"eventTime\" : {\n"
            "    \"watermark\" : \"2016-12-14T18:45:24.873Z\"\n"
            "  },\n"
            "  \"stateOperators\" : [ {\n"
            "    \"operatorName\" : \"stateStoreSave\",\n"
            "    \"numRowsTotal\" : 12345678901,\n"
            "    \"numRowsUpdated\" : 2,\n"
            "    \"allUpdatesTimeMs\" : 0,\n"
            "    \"numRowsRemoved\" : 0,\n"
            "    \"allRemovalsTimeMs\" : 0,\n"
            "    \"commitTimeMs\" : 0,\n"
            "    \"memoryUsedBytes\" : 4096,\n"
            "    \"numRowsDroppedByWatermark\" : 0,\n"
            "    \"numShufflePartitions\" : 200,\n"
            "    \"numStateStoreInstances\" : 200,\n"
            "    \"customMetrics\" : {\n"
            "      \"loadedMapCacheHitCount\" : 1,\n"
            "      \"stateOnCurrentVersionSizeBytes\" : 3\n"
            "    }\n"
            "  } ],\n"
            "  \"sources\" : [ {\n"
            "    \"description\" : \"KafkaV2[Subscribe[t]]\",\n"
            "    \"startOffset\" : {\n"
            "      \"t\" : {\n"
            "        \"0\" : 12345678901,\n"
            "        \"1\" : -1\n"
            "      }\n"
            "    },\n"
            "    \"endOffset\" : {\n"
            "      \"t\" : {\n"
            "        \"0\" : 12345678901,\n"
            "        \"1\" : -1\n"
            "      }\n"
            "    },\n"
            "    \"latestOffset\" : null,\n"
            "    \"numInputRows\" : 3,\n"
            "    \"inputRowsPerSecond\" : 1.2345678E7,\n"
            "    \"processedRowsPerSecond\" : 0.5,\n"
            "    \"metrics\" : {\n"
            "      \"avgOffsetsBehindLatest\" : \"1.3\",\n"
            "      \"maxOffsetsBehindLatest\" : \"3\"\n"
            "    }\n"
            "  }, {\n"
            "    \"description\" : \"FileStreamSource[file:/in]\",\n"
            "    \"startOffset\" : null,\n"
            "    \"endOffset\" : {\n"
            "      \"logOffset\" : 0\n"
            "    },\n"
            "    \"latestOffset\" : null,\n"
            "    \"numInputRows\" : 0\n"
            "  } ],\n"
            "  \"sink\" : {\n"
            "    \"description\" : \"ForeachBatchSink\",\n"
            "    \"numOutputRows\" : -1,\n"
            "    \"metrics\" : {\n"
            "      \"numFiles\" : \"2\"\n"
            "    }\n"
            "  }\n"
            "}");
  StreamingQueryStatus st;
  st.message = "Waiting for data to arrive";
  st.is_trigger_active = true;
  EXPECT_EQ(st.prettyJson(),
            "{\n"
            "  \"message\" : \"Waiting for data to arrive\",\n"
            "  \"isDataAvailable\" : false,\n"
            "  \"isTriggerActive\" : true\n"
            "}");

  auto fs = Fs();
  OffsetSeqLog offsets(fs, "/chk/offsets");
  OffsetSeq seq;
  seq.metadata.batch_watermark_ms = 1481741124873;
  seq.metadata.batch_timestamp_ms = 1481741125000;
  seq.metadata.conf = {{"spark.sql.shuffle.partitions", "200"},
                       {"spark.sql.streaming.stateStore.providerClass",
                        "org.apache.spark.sql.execution.streaming.state."
                        "HDFSBackedStateStoreProvider"}};
  seq.offsets = {*kafka_off, std::nullopt, log_offset};
  ASSERT_TRUE(offsets.Add(7, seq).ok());
  EXPECT_EQ(*fs->ReadAll("/chk/offsets/7"),
            "v1\n"
            "{\"batchWatermarkMs\":1481741124873,\"batchTimestampMs\":1481741125000,"
            "\"conf\":{\"spark.sql.shuffle.partitions\":\"200\",\"spark.sql."
            "streaming.stateStore.providerClass\":\"org.apache.spark.sql.execution."
            "streaming.state.HDFSBackedStateStoreProvider\"}}\n"
            "{\"t\":{\"0\":12345678901,\"1\":-1}}\n"
            "-\n"
            "{\"logOffset\":0}");
  auto back = offsets.Get(7);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(OffsetSeqLog::Serialize(**back), *fs->ReadAll("/chk/offsets/7"));
  CommitLog commits(fs, "/chk/commits");
  ASSERT_TRUE(commits.Add(7, 1481741124873).ok());
  EXPECT_EQ(*fs->ReadAll("/chk/commits/7"),
            "v1\n"
            "{\"nextBatchWatermarkMs\":1481741124873}");
  ASSERT_TRUE(ReadOrCreateStreamMetadata(*fs, "/chk", "0b6f-4c").ok());
  EXPECT_EQ(*fs->ReadAll("/chk/metadata"), "{\"id\":\"0b6f-4c\"}\n");
}

TEST(ProgressTest, TimestampRoundTrip) {
  EXPECT_EQ(ParseTimestampMs("2016-12-14T18:45:24.873Z"), 1481741124873);
  EXPECT_EQ(ParseTimestampMs(FormatTimestampMs(-1)), -1);
  EXPECT_EQ(ParseTimestampMs("1970-01-01T00:00:01Z"), 1000);
  EXPECT_EQ(ParseTimestampMs("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_FALSE(ParseTimestampMs("1970-01-01 00:00:01"));
  EXPECT_FALSE(ParseTimestampMs("1970-01-01T00:00:01.Z"));
  EXPECT_FALSE(ParseTimestampMs("soon"));
}

}  // namespace
}  // namespace spate::stream
