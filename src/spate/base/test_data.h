// Copyright spate authors.
#pragma once

// Test data that is not in the repository, and what a test does when it is missing.
//
// Large shared fixtures (apache/parquet-testing, the Delta golden tables, ...) live in
// the folder `shared/` beside the repository (`<repo>/../shared`, also in a CI clone).
// CTest passes its location as $SPATE_SHARED_DIR (the CMake cache variable
// SPATE_SHARED_DIR, default ${CMAKE_SOURCE_DIR}/../shared); a test binary run by hand
// looks for `shared/data` in the working directory's ancestors.
//
// No silent skips in CI: where data or a tool is missing a test skips on a developer's
// machine but fails when CI=true (SPATE_REQUIRE_TEST_DATA).
//
// Header only, for tests; no state. Thread safety: pure functions.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace spate {

/// The shared test data folder (holding data/...), or "" when none is found.
inline std::string SharedTestDir() {
  if (const char* env = std::getenv("SPATE_SHARED_DIR"); env && *env) return env;
  std::error_code ec;
  for (auto p = std::filesystem::current_path(ec); !ec && !p.empty();
       p = p.parent_path()) {
    if (std::filesystem::exists(p / "shared" / "data", ec))
      return (p / "shared").string();
    if (p == p.root_path()) break;
  }
  return "";
}

/// A folder or file under the shared data folder's data/ ("" when there is none).
inline std::string SharedTestData(const std::string& relative) {
  std::string dir = SharedTestDir();
  return dir.empty() ? "" : dir + "/data/" + relative;
}

/// Whether missing test data or tools fail the test: CI=true (or 1).
inline bool MissingTestDataFails() {
  const char* ci = std::getenv("CI");
  return ci && (std::string(ci) == "true" || std::string(ci) == "1");
}

}  // namespace spate

/// In a GoogleTest body or SetUp(): when `path` does not exist, fails the test if
/// CI=true, else skips it.
#define SPATE_REQUIRE_TEST_DATA(path)                                             \
  do {                                                                            \
    const std::string spate_required_path_ = (path);                              \
    if (spate_required_path_.empty() ||                                           \
        !std::filesystem::exists(spate_required_path_)) {                         \
      if (::spate::MissingTestDataFails())                                        \
        FAIL() << "test data missing (CI=true): '" << spate_required_path_        \
               << "'; set SPATE_SHARED_DIR or put shared/ beside the repository"; \
      GTEST_SKIP() << "test data missing: '" << spate_required_path_ << "'";      \
    }                                                                             \
  } while (0)
