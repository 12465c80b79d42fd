// Copyright spate authors.
#include "spate/compute/input_file.h"

namespace spate {

namespace {
thread_local std::string g_input_file;
thread_local int64_t g_input_length = -1;
}  // namespace

void SetInputFileName(std::string_view path, int64_t length) {
  g_input_length = path.empty() ? -1 : length;
  if (path.empty()) {
    g_input_file.clear();
  } else if (path.front() == '/') {
    g_input_file.assign("file://").append(path);
  } else {
    g_input_file.assign(path);
  }
}

const std::string& InputFileName() { return g_input_file; }

int64_t InputFileLength() { return g_input_length; }

}  // namespace spate
