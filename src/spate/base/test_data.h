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

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>

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

/// The path of executable `name` found on $PATH, or "" (tests: tools such as promtool).
inline std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::filesystem::path p =
        std::filesystem::path(dirs.substr(start, end - start)) / name;
    std::error_code ec;
    if (end > start && std::filesystem::is_regular_file(p, ec) &&
        (std::filesystem::status(p, ec).permissions() &
         std::filesystem::perms::owner_exec) != std::filesystem::perms::none) {
      return p.string();
    }
    start = end + 1;
  }
  return "";
}

/// Runs `tool check metrics` (promtool) on a Prometheus text body: {exit code, output}.
inline std::pair<int, std::string> PromtoolCheckMetrics(const std::string& promtool,
                                                        const std::string& text) {
  std::filesystem::path file = std::filesystem::temp_directory_path() /
                               ("spate-promtool-" + std::to_string(::getpid()) + "-" +
                                std::to_string(std::hash<std::string>{}(text)) + ".txt");
  {
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (!f) return {-1, "cannot write " + file.string()};
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  std::string cmd = promtool + " check metrics < " + file.string() + " 2>&1";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  while (p && std::fgets(buf, sizeof(buf), p)) out += buf;
  int rc = p ? ::pclose(p) : -1;
  std::error_code ec;
  std::filesystem::remove(file, ec);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
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
