// Copyright spate authors.
// The Delta streaming source over a long log (issue 18): a trigger touches the commits
// after its position only, counted through the file system (no timing).
#include "spate/connectors/delta_source.h"

#include <gtest/gtest.h>

#include "spate/columnar/builder.h"
#include "spate/io/forwarding_file_system.h"
#include "spate/table/delta_writer.h"
#include "spate/testing/status_matchers.h"

namespace spate::connectors {
namespace {

TEST(DeltaStreamSourceTest, TriggersReadOnlyTheNewCommitsOfALongLog) {
  auto mem = std::make_shared<io::MemoryFileSystem>();
  auto counting = std::make_shared<io::CountingFileSystem>(mem, "/_delta_log/");
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""}});
  auto one = [&](int64_t v) {
    return Batch::Make(schema, {ColumnFromValues(DataType::Long(), {Value::Long(v)})}, 1);
  };
  // 1,200 one-row commits through one long-lived log (as the streaming sink writes).
  table::DeltaWriteOptions w;
  w.mode = "append";
  w.options["delta.checkpointInterval"] = "500";
  w.log = std::make_shared<const table::DeltaLog>(mem, "/t");
  constexpr int kCommits = 1200;
  for (int i = 0; i < kCommits; ++i) {
    auto r = table::WriteBatches(mem, "/t", {one(i)}, w);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  DeltaSourceOptions o;
  o.path = "/t";
  o.options = {{"startingVersion", "1100"}, {"maxFilesPerTrigger", "5"}};
  auto made = MakeDeltaSourceFactory(counting, o);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  stream::SourceContext ctx;
  ctx.fs = counting;
  ctx.metadata_path = "/chk/sources/0";
  ctx.clock = SystemClock::Get();
  ctx.conf = [](const std::string&, const std::string& dflt) { return dflt; };
  auto src = made->second(ctx);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  std::optional<Json> start;
  // The first trigger loads the table once (listing + checkpoint); later ones do not.
  auto first = (*src)->LatestOffset(start);
  ASSERT_TRUE(first.ok() && first->has_value()) << first.status().ToString();
  ASSERT_TRUE((*src)->GetBatch(start, **first).ok());
  start = *first;
  counting->Take();
  int64_t rows = 5, max_ops = 0, max_opens = 0, lists = 0;
  for (int t = 0; t < 18; ++t) {
    // Another commit lands between triggers now and then.
    if (t % 3 == 0) ASSERT_TRUE(table::WriteBatches(mem, "/t", {one(10000 + t)}, w).ok());
    auto end = (*src)->LatestOffset(start);
    ASSERT_TRUE(end.ok() && end->has_value()) << end.status().ToString();
    auto batch = (*src)->GetBatch(start, **end);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    rows += (*batch)->num_splits();
    start = *end;
    auto c = counting->Take();
    max_ops = std::max(max_ops, c.total());
    max_opens = std::max(max_opens, c.opens);
    lists += c.lists;
  }
  EXPECT_EQ(lists, 0);
  // Per trigger: the cached tail's stat, the new commits (<= 2), the probe past them,
  // and each of the <= 6 commits the planning and the batch read: far from 1,200.
  EXPECT_LE(max_ops, 24);
  // Each commit is read once per trigger (the batch reuses what the planning read): the
  // new commit, the probe past it, the <= 6 commits of the range.
  EXPECT_LE(max_opens, 8);
  EXPECT_EQ(rows, 5 + 18 * 5);
}

// A query that fell behind the retained log (its next commits cleaned up) fails with
// Delta's DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE, not a file system error.
TEST(DeltaStreamSourceTest, FallingBehindTheRetainedLogFailsWithDeltasError) {
  auto mem = std::make_shared<io::MemoryFileSystem>();
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""}});
  table::DeltaWriteOptions w;
  w.mode = "append";
  w.options["delta.checkpointInterval"] = "10";
  w.log = std::make_shared<const table::DeltaLog>(mem, "/t");
  for (int i = 0; i < 12; ++i) {
    auto b =
        Batch::Make(schema, {ColumnFromValues(DataType::Long(), {Value::Long(i)})}, 1);
    ASSERT_TRUE(table::WriteBatches(mem, "/t", {b}, w).ok());
  }
  DeltaSourceOptions o;
  o.path = "/t";
  o.options = {{"startingVersion", "0"}, {"maxFilesPerTrigger", "1"}};
  auto made = MakeDeltaSourceFactory(mem, o);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  stream::SourceContext ctx;
  ctx.fs = mem;
  ctx.metadata_path = "/chk/sources/0";
  ctx.clock = SystemClock::Get();
  ctx.conf = [](const std::string&, const std::string& dflt) { return dflt; };
  auto src = made->second(ctx);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto first = (*src)->LatestOffset(std::nullopt);
  ASSERT_TRUE(first.ok() && first->has_value()) << first.status().ToString();
  ASSERT_TRUE((*src)->GetBatch(std::nullopt, **first).ok());
  // Log cleanup removed the commits before the checkpoint at 10.
  for (int v = 0; v < 10; ++v) ASSERT_TRUE(mem->Delete(w.log->CommitPath(v), false).ok());
  auto next = (*src)->LatestOffset(*first);
  ASSERT_ERROR_CLASS(next, "DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE");
}

}  // namespace
}  // namespace spate::connectors
