// Copyright spate authors.
#include "spate/stream/unsupported_checker.h"

namespace spate::stream {

namespace {

Status Legacy(const std::string& msg) {
  return Status::Error("_LEGACY_ERROR_TEMP_3102", {{"msg", msg}});
}

}  // namespace

Status BatchActionOnStreamError() {
  return Legacy(
      "Queries with streaming sources must be executed with writeStream.start()");
}

}  // namespace spate::stream
