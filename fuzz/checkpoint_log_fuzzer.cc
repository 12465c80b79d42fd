// Copyright spate authors.
// libFuzzer target: the checkpoint logs of a streaming query (stream/checkpoint.h). The
// input is split at NUL bytes into files. The first is read as offsets/N (OffsetSeqLog),
// commits/N (CommitLog) and the checkpoint's `metadata`; all of them become the entries
// of a compactible log (every third one a "<id>.compact" file, by the first byte), read
// as the file sink's _spark_metadata (SinkLogFiles) and as a file source's log
// (sources/0: the source starts on it, plans a batch and lists the files of every
// logged offset); the same files as offsets/0, commits/0 and commits/1 are then described
// (`spate checkpoint describe`: DescribeCheckpoint, its JSON and text). Auto Loader's
// files too: the first file as a schema version (`_schemas/0`) and as the file source's
// `existingFiles` list (includeExistingFiles=false). Every outcome must be a value or a
// Status naming the file, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_input.h"

#include "spate/base/clock.h"
#include "spate/connectors/auto_loader.h"
#include "spate/connectors/file_sink.h"
#include "spate/connectors/file_source.h"
#include "spate/io/file_system.h"
#include "spate/stream/batch_source.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/checkpoint_describe.h"

using namespace spate;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> files =
      fuzz::SplitAtNul(std::string_view(reinterpret_cast<const char*>(data), size), 16);
  (void)stream::OffsetSeqLog::Deserialize(files[0], "offsets/0");
  (void)stream::CommitLog::Deserialize(files[0], "commits/0");

  auto fs = std::make_shared<io::MemoryFileSystem>();
  (void)fs->MakeDirs("/chk");
  (void)fs->WriteAtomic("/chk/metadata", files[0]);
  (void)stream::ReadOrCreateStreamMetadata(*fs, "/chk",
                                           "00000000-0000-4000-8000-000000000000");
  (void)fs->MakeDirs("/in");
  (void)fs->WriteAtomic("/in/a.json", "{}\n");

  const uint8_t sel = size > 0 ? data[0] : 0;
  for (const char* dir : {"/out/_spark_metadata", "/chk/sources/0"}) {
    (void)fs->MakeDirs(dir);
    for (size_t i = 0; i < files.size(); ++i) {
      std::string name = std::to_string(i);
      if ((sel + i) % 3 == 2) name += ".compact";
      (void)fs->WriteAtomic(io::JoinPath(dir, name), files[i]);
    }
  }
  stream::CompactibleLog log(fs, "/out/_spark_metadata", 3);
  (void)log.LatestId();
  (void)log.AllEntries();
  (void)log.GetEntries(static_cast<int64_t>(files.size()) - 1);
  (void)connectors::SinkLogFiles(*fs, "/out");

  connectors::FileSourceOptions o;
  o.format = "json";
  o.path = "/in";
  o.schema = std::make_shared<const Schema>(std::vector<Field>{{"id", DataType::Long()}});
  o.reader = [](const std::vector<std::string>&,
                const SchemaPtr& schema) -> Result<DataSourcePtr> {
    return DataSourcePtr(std::make_shared<stream::BatchesDataSource>(
        schema, std::vector<BatchPtr>{}, "fuzz"));
  };
  auto factory = connectors::MakeFileSourceFactory(o);
  if (!factory.ok()) __builtin_trap();
  stream::SourceContext ctx;
  ctx.fs = fs;
  ctx.metadata_path = "/chk/sources/0";
  ctx.clock = SystemClock::Get();
  ctx.conf = [](const std::string&, const std::string& dflt) { return dflt; };
  auto source = (*factory)(ctx);
  if (source.ok()) {
    auto end = (*source)->LatestOffset(std::nullopt);
    if (end.ok() && *end) (void)(*source)->GetBatch(std::nullopt, **end);
  }

  (void)fs->MakeDirs("/schema/_schemas");
  (void)fs->WriteAtomic("/schema/_schemas/0", files[0]);
  (void)connectors::ReadLatestSchemaVersion(*fs, "/schema");
  (void)fs->MakeDirs("/chk/sources/1");
  (void)fs->WriteAtomic("/chk/sources/1/existingFiles", files[0]);
  o.include_existing_files = false;
  auto skipping = connectors::MakeFileSourceFactory(o);
  if (!skipping.ok()) __builtin_trap();
  ctx.metadata_path = "/chk/sources/1";
  auto skipper = (*skipping)(ctx);
  if (skipper.ok()) (void)(*skipper)->LatestOffset(std::nullopt);

  (void)fs->MakeDirs("/chk/offsets");
  (void)fs->MakeDirs("/chk/commits");
  (void)fs->WriteAtomic("/chk/offsets/0", files[0]);
  (void)fs->WriteAtomic("/chk/commits/0", files.size() > 1 ? files[1] : files[0]);
  (void)fs->WriteAtomic("/chk/commits/1", files.back());
  auto described = stream::DescribeCheckpoint(fs, "/chk");
  if (described.ok()) {
    (void)described->ToJson().ToString();
    (void)described->ToText();
  }
  return 0;
}
