// Copyright spate authors.
// libFuzzer target: state store files and encoded state rows over arbitrary bytes. The
// input is loaded as a delta file and as a snapshot file of the memory provider, as the
// records of a well-formed (checksummed) delta so the record parser is reached, and as a
// RowCodec row of a nested schema. Every outcome must be a Status, never a crash; a row
// that decodes must re-encode to bytes that decode and re-encode to the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spate/state/row_codec.h"
#include "spate/state/state_file.h"
#include "spate/state/state_store.h"

namespace {

using namespace spate;  // NOLINT(google-build-using-namespace): fuzzer entry point only

void LoadAsStoreFile(const std::string& bytes, const std::string& name) {
  auto fs = std::make_shared<io::MemoryFileSystem>();
  state::StateStoreId id;
  id.root = "/chk/state";
  state::StateStoreConf conf;
  if (!fs->MakeDirs(id.Path()).ok()) return;
  if (!fs->WriteAtomic(id.Path() + "/" + name, bytes).ok()) return;
  auto provider = state::CreateStateStoreProvider(id, conf, fs);
  if (!provider.ok()) return;
  auto store = (*provider)->GetStore(1);
  if (store.ok()) {
    int64_t n = 0;
    (*store)->ForEach([&](std::string_view, std::string_view) { ++n; });
    if (n != (*store)->metrics().num_keys) __builtin_trap();
  }
}

const SchemaPtr& FuzzSchema() {
  static const SchemaPtr schema = [] {
    auto inner = DataType::Struct({{"x", DataType::Int()}, {"s", DataType::String()}});
    return std::make_shared<const Schema>(std::vector<Field>{
        {"b", DataType::Boolean()},
        {"l", DataType::Long()},
        {"d", DataType::Decimal(38, 4)},
        {"s", DataType::String()},
        {"a", DataType::Array(inner)},
        {"m", DataType::Map(DataType::String(), DataType::Array(DataType::Double()))},
        {"v", DataType::Null()}});
  }();
  return schema;
}

std::string Reencode(const state::RowCodec& codec, const Batch& batch) {
  std::vector<const Column*> cols;
  for (const auto& c : batch.columns()) cols.push_back(c.get());
  std::string out;
  codec.Encode(cols, 0, &out);
  return out;
}

void DecodeAsRow(const std::string& bytes) {
  state::RowCodec codec(FuzzSchema());
  state::RowBatchBuilder builder(codec);
  if (!builder.Append(bytes).ok()) return;
  auto batch = builder.Finish();
  if (!batch.ok() || (*batch)->num_rows() != 1) __builtin_trap();
  std::string once = Reencode(codec, **batch);
  if (!builder.Append(once).ok()) __builtin_trap();
  auto again = builder.Finish();
  if (!again.ok() || Reencode(codec, **again) != once) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  LoadAsStoreFile(bytes, "1.delta");
  LoadAsStoreFile(bytes, "1.snapshot");
  LoadAsStoreFile(state::EncodeStateFile(state::StateFileKind::kDelta,
                                         state::FileCodec::kNone, bytes),
                  "1.delta");
  DecodeAsRow(bytes);
  return 0;
}
