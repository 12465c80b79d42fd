// Copyright spate authors.
// libFuzzer target: Delta log replay over arbitrary bytes. The input is split into commit
// files at NUL bytes; each is parsed as newline-delimited JSON actions and replayed
// (add/remove reconciliation, protocol/metadata, txn), the latest metadata's
// schemaString is parsed as a Spark JSON schema and the protocol is checked for
// supported features; the bytes are also decoded as a deletion vector. Every outcome must
// be a Status, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_input.h"

#include "spate/base/json.h"
#include "spate/table/deletion_vector.h"
#include "spate/table/delta_log.h"
#include "spate/types/schema_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> commits = spate::fuzz::SplitAtNul(text, SIZE_MAX);
  (void)spate::table::ReplayForTest(commits);
  // The same bytes as a serialized deletion vector (Roaring containers) and as Z85 text.
  (void)spate::table::ParseDeletionVector(text, "fuzz");
  (void)spate::table::Z85Decode(text.substr(0, text.size() / 5 * 5));
  auto j = spate::Json::Parse(text);
  if (j.ok()) {
    std::string again = j->ToString();
    auto back = spate::Json::Parse(again);
    if (!back.ok() || back->ToString() != again)
      __builtin_trap();  // round trip must hold
    (void)spate::DataTypeFromSparkJson(*j);
  }
  return 0;
}
