// Copyright spate authors.
// DescribeCheckpoint over logs and stores written by the runtime's own writers on an
// in-memory file system: named stores (a stream-stream join keeps four per partition and
// nothing in "default"), redaction of pinned confs, a store that cannot be loaded.
// End-to-end cases on checkpoints of real runs are in testing/observability_test.cc.

#include "spate/stream/checkpoint_describe.h"

#include <gtest/gtest.h>

namespace spate::stream {
namespace {

void WriteStore(io::FileSystemPtr fs, const state::StateStoreId& id, int versions,
                int keys) {
  auto p = state::CreateStateStoreProvider(id, state::StateStoreConf{}, std::move(fs));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  for (int v = 0; v < versions; ++v) {
    auto s = (*p)->GetStore(v);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    for (int k = 0; k < keys; ++k)
      (*s)->Put("k" + std::to_string(k), "v" + std::to_string(v));
    ASSERT_TRUE((*s)->Commit().ok());
  }
  (*p)->Close();
}

TEST(DescribeCheckpoint, NamedStoresAndRedactedConfs) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  const std::string chk = "/chk";
  ASSERT_TRUE(ReadOrCreateStreamMetadata(*fs, chk, "q-id").ok());
  OffsetSeqLog offsets(fs, chk + "/offsets");
  CommitLog commits(fs, chk + "/commits");
  for (int b = 0; b < 2; ++b) {
    OffsetSeq seq;
    seq.offsets = {Json::Int(b), std::nullopt};
    seq.metadata.batch_timestamp_ms = 1000 + b;
    seq.metadata.batch_watermark_ms = 10 * b;
    seq.metadata.conf = {{"spark.sql.shuffle.partitions", "2"},
                         {"spark.hadoop.fs.s3a.secret.key", "s3cr3t"}};
    ASSERT_TRUE(offsets.Add(b, seq).ok());
    ASSERT_TRUE(commits.Add(b, 10 * (b + 1)).ok());
  }
  for (int part = 0; part < 2; ++part) {
    for (const char* name : {"left-keyToNumValues", "right-keyToNumValues"}) {
      WriteStore(fs, state::StateStoreId{chk + "/state", 0, part, name}, 2, part + 1);
    }
  }

  auto d = DescribeCheckpoint(fs, chk);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->query_id, "q-id");
  EXPECT_EQ(d->last_committed_batch, 1);
  ASSERT_EQ(d->batches.size(), 2u);
  EXPECT_EQ(d->batches[1].next_watermark_ms, 20);
  ASSERT_EQ(d->sources.size(), 2u);
  EXPECT_EQ(d->sources[0].committed_offset, Json::Int(1));
  EXPECT_FALSE(d->sources[1].committed_offset.has_value());  // no data yet ("-")
  ASSERT_EQ(d->operators.size(), 1u);
  const auto& op = d->operators[0];
  EXPECT_EQ(op.num_partitions, 2);
  EXPECT_FALSE(op.schemas.has_value());
  ASSERT_EQ(op.stores.size(), 4u);  // the named stores only, no empty "default"
  for (const auto& s : op.stores) {
    EXPECT_NE(s.id.store_name, "default");
    EXPECT_EQ(s.loaded_version, 2);
    EXPECT_EQ(s.versions, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(s.metrics.num_keys, s.id.partition + 1);
  }
  EXPECT_EQ(op.num_rows(), 2 * 1 + 2 * 2);

  std::string text = d->ToText();
  EXPECT_NE(text.find("spark.hadoop.fs.s3a.secret.key = *********(redacted)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos);
  std::string json = d->ToJson().ToString();
  EXPECT_EQ(json.find("s3cr3t"), std::string::npos);
  EXPECT_NE(json.find("\"storeName\":\"left-keyToNumValues\""), std::string::npos);

  // A store whose delta file is corrupt is described with its error; the rest stays.
  std::string delta = chk + "/state/0/1/left-keyToNumValues/2.delta";
  ASSERT_TRUE(fs->WriteAtomic(delta, "torn").ok());
  auto broken = DescribeCheckpoint(fs, chk);
  ASSERT_TRUE(broken.ok()) << broken.status().ToString();
  int errors = 0;
  for (const auto& s : broken->operators[0].stores) {
    if (s.load_error) {
      ++errors;
      EXPECT_NE(s.load_error->find("CANNOT_LOAD_STATE_STORE"), std::string::npos)
          << *s.load_error;
      EXPECT_NE(s.load_error->find(delta), std::string::npos) << *s.load_error;
    }
  }
  EXPECT_EQ(errors, 1);
  EXPECT_NE(broken->ToText().find("cannot load: "), std::string::npos);
}

}  // namespace
}  // namespace spate::stream
