// Copyright spate authors.
#include "spate/exec/progress.h"

#include <mutex>

namespace spate::exec {

namespace {
std::mutex& Mu() {
  static std::mutex mu;
  return mu;
}
ProgressReporter& Reporter() {
  static ProgressReporter r;
  return r;
}
}  // namespace

void SetProgressReporter(ProgressReporter reporter) {
  std::lock_guard<std::mutex> lock(Mu());
  Reporter() = std::move(reporter);
}

ProgressReporter GetProgressReporter() {
  std::lock_guard<std::mutex> lock(Mu());
  return Reporter();
}

}  // namespace spate::exec
