// Copyright spate authors.
// libFuzzer target: what the monitoring server does with outside text (monitor/, base/
// redact.h): request paths and messages through RedactText, timestamps through
// ParseTimestampMs, offsets JSON through OffsetsBehindLatest and RedactJson. The input
// is split at NUL bytes: text, then two JSON values. Every outcome must be a value, never
// a crash; redaction must never grow a value it has no secret in.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_input.h"

#include "spate/base/json.h"
#include "spate/base/redact.h"
#include "spate/monitor/render.h"
#include "spate/stream/progress.h"

using namespace spate;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> parts =
      fuzz::SplitAtNul(std::string_view(reinterpret_cast<const char*>(data), size), 3);
  const std::string& text = parts[0];
  std::string redacted = RedactText(text);
  if (redacted.find(kRedactedText) == std::string::npos && redacted != text)
    __builtin_trap();
  (void)IsSecretKey(text);
  if (auto ms = stream::ParseTimestampMs(text)) (void)stream::FormatTimestampMs(*ms);
  auto a = Json::Parse(parts.size() > 1 ? parts[1] : text);
  auto b = Json::Parse(parts.size() > 2 ? parts[2] : text);
  if (a.ok() && b.ok()) (void)monitor::OffsetsBehindLatest(*a, *b);
  if (a.ok()) {
    Json v = *a;
    monitor::RedactJson(&v);
    (void)v.ToString();
  }
  return 0;
}
