// Copyright spate authors.
#pragma once

// LineSink: where a module's diagnostic lines go (the query log, the hint warnings):
// stderr, one line each, unless a function is set (tests capture the lines).
//
// Thread safety: Set and Write may be called from any thread; each line is written whole
// under the sink's mutex (the function is called with it held).

#include <functional>
#include <iostream>
#include <string>
#include <utility>

#include "spate/base/mutex.h"

namespace spate {

class LineSink {
 public:
  /// Replaces where lines go; an empty function restores stderr.
  void Set(std::function<void(const std::string&)> fn) {
    MutexLock lock(mu_);
    fn_ = std::move(fn);
  }
  void Write(const std::string& line) {
    MutexLock lock(mu_);
    if (fn_) {
      fn_(line);
    } else {
      std::cerr << line << '\n' << std::flush;
    }
  }

 private:
  Mutex mu_;
  std::function<void(const std::string&)> fn_ SPATE_GUARDED_BY(mu_);
};

}  // namespace spate
