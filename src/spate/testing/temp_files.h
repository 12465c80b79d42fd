// Copyright spate authors.
#pragma once

// Test helpers for tests that run queries on real folders: a fresh temporary folder, and
// every file under a folder with its bytes (to show that a read-only tool changed
// nothing).

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "spate/io/file_system.h"
#include "spate/stream/checkpoint.h"

namespace spate::testing {

/// $TMPDIR (or /tmp)/<prefix>-<what>-<uuid>, created.
inline std::string MakeTestDir(const std::string& prefix, const std::string& what) {
  const char* tmp = std::getenv("TMPDIR");
  std::string d = io::JoinPath(tmp && *tmp ? tmp : "/tmp",
                               prefix + "-" + what + "-" + stream::RandomUuid());
  std::filesystem::create_directories(d);
  return d;
}

/// Every file under `dir` with its bytes; folders as "<path>/" with no bytes.
inline std::map<std::string, std::string> FileTree(const std::string& dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string rel = fs::relative(e.path(), dir).string();
    if (e.is_directory()) {
      out[rel + "/"] = "";
    } else {
      std::ifstream f(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      out[rel] = ss.str();
    }
  }
  return out;
}

}  // namespace spate::testing
