// Copyright spate authors.
//
// libFuzzer target: DDL schema strings, data type strings and multi-part identifiers
// must parse or fail with a Status, never crash.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "spate/sql/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto schema = spate::sql::ParseDdlSchema(text); schema.ok()) {
    (void)(*schema)->ToString();
    (void)(*schema)->TreeString();
  }
  if (auto type = spate::sql::ParseDataType(text); type.ok()) {
    (void)(*type)->SimpleString();
    (void)(*type)->Sql();
  }
  (void)spate::sql::ParseMultipartIdentifier(text);
  return 0;
}
