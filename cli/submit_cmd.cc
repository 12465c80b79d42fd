// Copyright spate authors.
#include "submit_cmd.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#ifndef SPATE_PYTHON
#define SPATE_PYTHON "/usr/bin/python3"
#endif
#ifndef SPATE_PYTHON_DIR
#define SPATE_PYTHON_DIR ""
#endif

namespace spate::cli {
namespace {

namespace fs = std::filesystem;

bool HoldsPackage(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::exists(dir / "spate" / "submit.py", ec);
}

/// The folder holding the `spate` package: beside this binary in the build tree
/// (build/<preset>/cli/spate -> build/<preset>/python), else the build's, else none (an
/// installed package is found by the interpreter itself).
std::string PackageDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path beside = exe.parent_path().parent_path() / "python";
    if (HoldsPackage(beside)) return beside.string();
  }
  if (HoldsPackage(SPATE_PYTHON_DIR)) return SPATE_PYTHON_DIR;
  return "";
}

}  // namespace

int ExecSubmit(const std::vector<std::string>& args) {
  return ExecPythonModule("spate.submit", args);
}

int ExecPythonModule(const std::string& module, const std::vector<std::string>& args) {
  const char* from_env = std::getenv("SPATE_PYTHON");
  std::string python = from_env != nullptr && *from_env != '\0' ? from_env : SPATE_PYTHON;
  std::string dir = PackageDir();
  if (!dir.empty()) {
    const char* old = std::getenv("PYTHONPATH");
    std::string path = old != nullptr && *old != '\0' ? dir + ":" + old : dir;
    ::setenv("PYTHONPATH", path.c_str(), 1);
  }
  std::vector<std::string> all = {python, "-m", module};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execvp(python.c_str(), argv.data());
  std::cerr << "spate: cannot run " << python << ": " << std::strerror(errno) << "\n";
  return 127;
}

}  // namespace spate::cli
