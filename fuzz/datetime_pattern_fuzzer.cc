// Copyright spate authors.
// libFuzzer target: Spark datetime patterns (compute/datetime_format.h). The input is a
// pattern, a NUL byte, then a text: the pattern compiles or fails with a Status; a
// compiled pattern formats a few instants in UTC and in a zone with daylight saving, and
// parses the text (zoned and local, TIMESTAMP_NTZ). Every outcome must be a value, a
// Status or a parse error message, never a crash; a formatted instant must parse back
// without crashing (not necessarily to the same instant: a pattern may drop fields).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.h"

#include "spate/compute/datetime_format.h"
#include "spate/types/timezone.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = spate::fuzz::SplitAtNul(
      std::string_view(reinterpret_cast<const char*>(data), size), 2);
  const std::string& text = parts.size() > 1 ? parts[1] : parts[0];
  auto p = spate::DateTimePattern::Compile(parts[0]);
  if (!p.ok()) return 0;
  static const spate::TimeZone* kZone = spate::TimeZone::Lookup("America/Los_Angeles");
  for (const spate::TimeZone* zone :
       {static_cast<const spate::TimeZone*>(nullptr), kZone}) {
    for (int64_t micros : {int64_t{0}, int64_t{-1}, int64_t{1700000000123456},
                           int64_t{-62135596800000000}, int64_t{253402300799999999}}) {
      std::string out;
      p->Format(micros, zone, &out);
      int64_t back = 0;
      std::string error;
      (void)p->Parse(out, zone, false, &back, &error);
    }
    for (bool local : {false, true}) {
      int64_t micros = 0;
      std::string error;
      (void)p->Parse(text, zone, local, &micros, &error);
    }
  }
  return 0;
}
