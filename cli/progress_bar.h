// Copyright spate authors.
#pragma once

// Spark's console progress bar for the shell's long batch work (a CTAS over many files,
// OPTIMIZE, a big query): while a stage (exec/progress.h) runs longer than `delay_ms`,
// the terminal's last line shows `[Stage 3:=======>           (12 + 2) / 40]` (finished +
// running tasks of the total), redrawn at most every `update_ms`, and is cleared when the
// stages end. Only on a terminal: the constructor does nothing unless `fd` is a tty.
// Confs: spark.ui.showConsoleProgress (true), spark.ui.consoleProgress.update.interval
// (200 ms, Spark's), spate.ui.consoleProgress.delayMs (500, Spark's fixed first delay).
//
// Ownership: one at a time, installed as the process's progress reporter for its
// lifetime. Thread safety: reports arrive from worker threads; drawing is serialized by a
// mutex. Failure: write errors are ignored.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "spate/exec/progress.h"

namespace spate::cli {

class ConsoleProgressBar {
 public:
  ConsoleProgressBar(int fd, int64_t delay_ms, int64_t update_ms, int width = 80);
  ~ConsoleProgressBar();
  ConsoleProgressBar(const ConsoleProgressBar&) = delete;
  ConsoleProgressBar& operator=(const ConsoleProgressBar&) = delete;
  bool active() const { return active_; }

  /// The bar's text for stages (Spark's ConsoleProgressBar format), for tests.
  static std::string Render(const std::map<int64_t, exec::StageProgress>& stages,
                            int width);

 private:
  void OnProgress(const exec::StageProgress& p);
  void Write(const std::string& s);

  int fd_;
  int64_t delay_ms_, update_ms_;
  int width_;
  bool active_ = false;
  std::mutex mu_;
  std::map<int64_t, exec::StageProgress> stages_;
  std::map<int64_t, std::chrono::steady_clock::time_point> started_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace spate::cli
