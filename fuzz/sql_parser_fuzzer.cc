// Copyright spate authors.
//
// libFuzzer target: the SQL statement/script/expression parser must return a Status for
// any input, never crash, hang or overflow the stack. Also renders every parsed plan so
// that TreeString/ToString see the trees the parser builds.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "spate/sql/parser.h"

namespace {

void Render(const spate::sql::Statement& st) {
  if (st.plan) (void)st.plan->TreeString();
  if (st.inner) Render(*st.inner);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto st = spate::sql::ParseStatement(text); st.ok()) {
    Render(*st);
  } else {
    (void)st.status().ToString();
  }
  if (auto script = spate::sql::ParseScript(text); script.ok()) {
    for (const auto& st : *script) Render(st);
  }
  if (auto e = spate::sql::ParseExpression(text); e.ok()) {
    (void)(*e)->ToString();
    (void)(*e)->DisplayName();
  }
  (void)spate::sql::SplitStatements(text);
  (void)spate::sql::NeedsMoreInput(text);
  return 0;
}
