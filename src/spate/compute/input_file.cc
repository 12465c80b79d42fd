// Copyright spate authors.
#include "spate/compute/input_file.h"

namespace spate {

namespace {
thread_local std::string g_input_file;
}  // namespace

void SetInputFileName(std::string_view path) {
  if (path.empty()) {
    g_input_file.clear();
  } else if (path.front() == '/') {
    g_input_file.assign("file://").append(path);
  } else {
    g_input_file.assign(path);
  }
}

const std::string& InputFileName() { return g_input_file; }

}  // namespace spate
