// Copyright spate authors.
// Checkpoint formats spate writes (issue 18): classic multi-part checkpoints
// (spark.databricks.delta.checkpoint.partSize) and V2 checkpoints with sidecars
// (delta.checkpointPolicy = 'v2', JSON or Parquet top-level file); each is checked by
// its files and `_last_checkpoint`, and by a fresh load from it alone.
#include <gtest/gtest.h>

#include "spate/columnar/builder.h"
#include "spate/io/forwarding_file_system.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_writer.h"
#include "spate/table/transaction.h"

namespace spate::table {
namespace {

SchemaPtr IdSchema() {
  return std::make_shared<const Schema>(
      std::vector<Field>{{"id", DataType::Long(), true, ""}});
}

void CreateTable(const io::FileSystemPtr& fs, const std::string& path,
                 std::map<std::string, std::string> props, NowFn now = SystemNow()) {
  DeltaWriteOptions o;
  o.mode = "append";
  o.options = std::move(props);
  auto batch =
      Batch::Make(IdSchema(), {ColumnFromValues(DataType::Long(), {Value::Long(1)})}, 1);
  auto r = WriteBatches(fs, path, {batch}, o, std::move(now));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

// One commit of fake adds `first..first+n-1` (and a remove of fake-`remove` when >= 0).
void Commit(const std::shared_ptr<const DeltaLog>& log, int first, int n,
            int remove = -1) {
  auto snap = log->Latest();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  OptimisticTransaction txn(log, *snap);
  std::vector<Action> actions;
  for (int i = first; i < first + n; ++i) {
    AddFile f;
    f.path = "fake-" + std::to_string(i) + ".parquet";
    f.size = 100 + i;
    f.stats = "{\"numRecords\":1}";
    actions.push_back(Action::Of(f));
  }
  if (remove >= 0) {
    RemoveFile r;
    r.path = "fake-" + std::to_string(remove) + ".parquet";
    r.deletion_timestamp = log->NowMs();
    actions.push_back(Action::Of(r));
  }
  txn.SetTransaction("app", first);
  CommitInfo ci;
  ci.operation = "WRITE";
  auto c = txn.Commit(std::move(actions), ci);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
}

std::vector<std::string> Names(const io::FileSystemPtr& fs, const std::string& dir) {
  std::vector<std::string> out;
  auto l = fs->List(dir, false);
  if (!l.ok()) return out;
  for (const auto& e : *l)
    if (!e.is_directory) out.push_back(io::BaseName(e.path));
  std::sort(out.begin(), out.end());
  return out;
}

// The snapshot loaded from the checkpoint alone (the commits before and at it deleted)
// equals the one built from the log.
void ExpectCheckpointAlone(const io::FileSystemPtr& fs, const std::string& path,
                           const SnapshotPtr& expected) {
  for (int64_t v = 0; v <= expected->version(); ++v)
    ASSERT_TRUE(fs->Delete(DeltaLog(fs, path).CommitPath(v), false).ok()) << v;
  auto fresh = DeltaLog(fs, path).Latest();
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ((*fresh)->version(), expected->version());
  EXPECT_EQ((*fresh)->checkpoint_version(), expected->version());
  ASSERT_EQ((*fresh)->files().size(), expected->files().size());
  for (size_t i = 0; i < expected->files().size(); ++i) {
    EXPECT_EQ((*fresh)->files()[i].path, expected->files()[i].path);
    EXPECT_EQ((*fresh)->files()[i].size, expected->files()[i].size);
    EXPECT_EQ((*fresh)->files()[i].stats, expected->files()[i].stats);
  }
  EXPECT_EQ((*fresh)->tombstones().size(), expected->tombstones().size());
  EXPECT_EQ((*fresh)->protocol(), expected->protocol());
  EXPECT_EQ((*fresh)->metadata().configuration, expected->metadata().configuration);
  EXPECT_EQ((*fresh)->TxnVersion("app"), expected->TxnVersion("app"));
}

TEST(DeltaCheckpointTest, MultiPartWhenLargerThanThePartSize) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  CreateTable(fs, "/m", {});
  auto log = std::make_shared<const DeltaLog>(fs, "/m");
  CheckpointOptions opt;
  opt.part_size = 7;
  log->SetCheckpointOptions(opt);
  // 1 + 10 * 3 = 31 adds, 2 of them removed: 29 files + 2 tombstones = 31 file
  // actions -> ceil(31 / 7) = 5 parts.
  for (int i = 1; i <= 10; ++i) Commit(log, i * 10, 3, i == 5 ? 10 : i == 7 ? 20 : -1);
  auto snap = log->Latest().value();
  ASSERT_EQ(snap->version(), 10);
  ASSERT_EQ(snap->files().size() + snap->tombstones().size(), 31u);  // 29 + 2
  auto names = Names(fs, "/m/_delta_log");
  const std::vector<std::string> want = {
      "00000000000000000010.checkpoint.0000000001.0000000005.parquet",
      "00000000000000000010.checkpoint.0000000002.0000000005.parquet",
      "00000000000000000010.checkpoint.0000000003.0000000005.parquet",
      "00000000000000000010.checkpoint.0000000004.0000000005.parquet",
      "00000000000000000010.checkpoint.0000000005.0000000005.parquet"};
  for (const auto& w : want)
    EXPECT_NE(std::find(names.begin(), names.end(), w), names.end()) << w;
  EXPECT_EQ(std::count_if(
                names.begin(), names.end(),
                [](const std::string& n) { return n.find(".tmp") != std::string::npos; }),
            0);
  auto last = Json::Parse(fs->ReadAll("/m/_delta_log/_last_checkpoint").value()).value();
  EXPECT_EQ(last.GetInt("version").value(), 10);
  EXPECT_EQ(last.GetInt("parts").value(), 5);
  EXPECT_EQ(last.GetInt("numOfAddFiles").value(), 29);
  // protocol + metaData + txn + 29 adds + 2 removes.
  EXPECT_EQ(last.GetInt("size").value(), 34);
  ExpectCheckpointAlone(fs, "/m", snap);
  // Without a part size the next checkpoint is one classic file and names no parts.
  log->SetCheckpointOptions(CheckpointOptions{});
  for (int i = 11; i <= 20; ++i) Commit(log, i * 10, 1);
  EXPECT_TRUE(
      fs->Exists("/m/_delta_log/00000000000000000020.checkpoint.parquet").value());
  last = Json::Parse(fs->ReadAll("/m/_delta_log/_last_checkpoint").value()).value();
  EXPECT_FALSE(last.GetInt("parts").has_value());
  EXPECT_EQ(DeltaLog(fs, "/m").Latest().value()->files().size(), 39u);
}

void CheckV2(const std::string& top_format) {
  SCOPED_TRACE(top_format);
  auto fs = std::make_shared<io::MemoryFileSystem>();
  CreateTable(fs, "/v", {{"delta.checkpointPolicy", "v2"}});
  auto log = std::make_shared<const DeltaLog>(fs, "/v");
  auto v0 = log->Latest().value();
  // The policy is the v2Checkpoint reader-writer feature, as delta-spark writes it.
  EXPECT_EQ(v0->protocol().min_reader_version, 3);
  EXPECT_EQ(v0->protocol().min_writer_version, 7);
  EXPECT_EQ(*v0->protocol().reader_features, std::vector<std::string>{"v2Checkpoint"});
  EXPECT_EQ(*v0->protocol().writer_features,
            (std::vector<std::string>{"v2Checkpoint", "invariants", "appendOnly"}));
  CheckpointOptions opt;
  opt.part_size = 10;
  opt.v2_top_level_format = top_format;
  log->SetCheckpointOptions(opt);
  for (int i = 1; i <= 10; ++i) Commit(log, i * 10, 2, i == 3 ? 10 : -1);
  auto snap = log->Latest().value();
  // 1 + 20 adds, one removed: 20 files + 1 tombstone = 21 file actions -> 3 sidecars.
  ASSERT_EQ(snap->files().size() + snap->tombstones().size(), 21u);
  auto sidecars = Names(fs, "/v/_delta_log/_sidecars");
  ASSERT_EQ(sidecars.size(), 3u);
  for (size_t i = 0; i < sidecars.size(); ++i) {
    const std::string prefix = "00000000000000000010.checkpoint.000000000" +
                               std::to_string(i + 1) + ".0000000003.";
    EXPECT_EQ(sidecars[i].rfind(prefix, 0), 0u) << sidecars[i];
    EXPECT_EQ(sidecars[i].size(), prefix.size() + 36 + 8) << sidecars[i];
  }
  std::string top;
  for (const auto& n : Names(fs, "/v/_delta_log"))
    if (n.rfind("00000000000000000010.checkpoint.", 0) == 0) top = n;
  ASSERT_FALSE(top.empty());
  EXPECT_EQ(top.size(), 20 + 12 + 36 + 1 + top_format.size()) << top;
  EXPECT_EQ(top.substr(top.size() - top_format.size()), top_format);
  // No classic checkpoint beside it.
  EXPECT_FALSE(
      fs->Exists("/v/_delta_log/00000000000000000010.checkpoint.parquet").value());
  auto last = Json::Parse(fs->ReadAll("/v/_delta_log/_last_checkpoint").value()).value();
  EXPECT_EQ(last.GetInt("version").value(), 10);
  EXPECT_FALSE(last.GetInt("parts").has_value());
  EXPECT_EQ(last.GetInt("numOfAddFiles").value(), 20);
  // 21 file actions in sidecars + checkpointMetadata, 3 sidecar, protocol, metaData, txn.
  EXPECT_EQ(last.GetInt("size").value(), 21 + 7);
  const Json* v2 = last.Find("v2Checkpoint");
  ASSERT_TRUE(v2 && v2->is_object());
  EXPECT_EQ(v2->GetString("path").value(), top);
  EXPECT_EQ(v2->GetInt("sizeInBytes").value(),
            fs->Stat("/v/_delta_log/" + top).value().size);
  // The top-level file's actions: checkpointMetadata, the sidecars (relative names),
  // the table's protocol, metadata and txn; no file actions.
  std::vector<Action> actions;
  if (top_format == "json") {
    actions = ParseActions(fs->ReadAll("/v/_delta_log/" + top).value(), top).value();
  } else {
    actions = ReadCheckpointFile(fs, "/v/_delta_log/" + top).value();
  }
  int others = 0, protocols = 0, metas = 0, txns = 0, files = 0;
  for (const auto& a : actions) {
    others += a.kind == Action::Kind::kOther;
    protocols += a.kind == Action::Kind::kProtocol;
    metas += a.kind == Action::Kind::kMetadata;
    txns += a.kind == Action::Kind::kTxn;
    files += a.kind == Action::Kind::kAdd || a.kind == Action::Kind::kRemove;
  }
  EXPECT_EQ(protocols, 1);
  EXPECT_EQ(metas, 1);
  EXPECT_EQ(txns, 1);
  EXPECT_EQ(files, 0);
  if (top_format == "json") {
    EXPECT_EQ(others, 4);  // checkpointMetadata + 3 sidecars
    EXPECT_TRUE(actions[0].raw.Find("checkpointMetadata"));
    const Json* sc = actions[1].raw.Find("sidecar");
    ASSERT_TRUE(sc);
    EXPECT_EQ(sc->GetString("path").value(), sidecars[0]);
  }
  ExpectCheckpointAlone(fs, "/v", snap);
}

TEST(DeltaCheckpointTest, V2WithSidecarsAndAJsonTopLevelFile) { CheckV2("json"); }
TEST(DeltaCheckpointTest, V2WithSidecarsAndAParquetTopLevelFile) { CheckV2("parquet"); }

// V2 checkpoints without a part size: one sidecar up to 50,000 file actions.
TEST(DeltaCheckpointTest, V2DefaultsToOneSidecar) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  CreateTable(fs, "/d", {{"delta.checkpointPolicy", "v2"}});
  auto log = std::make_shared<const DeltaLog>(fs, "/d");
  for (int i = 1; i <= 10; ++i) Commit(log, i * 10, 1);
  EXPECT_EQ(Names(fs, "/d/_delta_log/_sidecars").size(), 1u);
}

// Log cleanup removes the sidecars of the checkpoints it deletes, and only those.
TEST(DeltaCheckpointTest, LogCleanupDeletesTheSidecarsOfDeletedCheckpoints) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  const int64_t day = 86400000;
  int64_t clock = 1000 * day + 12 * 3600 * 1000;
  NowFn now = [&] { return clock; };
  CreateTable(fs, "/c", {{"delta.checkpointPolicy", "v2"}}, now);
  auto log = std::make_shared<const DeltaLog>(fs, "/c", now);
  for (int i = 1; i <= 35; ++i) {
    if (i == 25) clock += 60 * day;
    Commit(log, i * 10, 1);
  }
  // Checkpoints at 10, 20, 30; the one at 30 cleaned up below 20.
  auto sidecars = Names(fs, "/c/_delta_log/_sidecars");
  ASSERT_EQ(sidecars.size(), 2u);
  EXPECT_EQ(sidecars[0].substr(0, 20), "00000000000000000020");
  EXPECT_EQ(sidecars[1].substr(0, 20), "00000000000000000030");
  DeltaLog reader(fs, "/c", now);
  auto at20 = reader.At(20);
  ASSERT_TRUE(at20.ok()) << at20.status().ToString();
  EXPECT_EQ((*at20)->files().size(), 21u);
}

}  // namespace
}  // namespace spate::table
