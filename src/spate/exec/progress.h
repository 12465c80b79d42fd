// Copyright spate authors.
#pragma once

// Progress of the parallel stages the executor runs (every ExecContext::ParallelFor is a
// stage: its tasks are a plan's partitions), for a console progress bar like Spark's
// (`[Stage 3:=====>      (12 + 2) / 40]`, cli/progress_bar.h). Nothing is reported
// unless a reporter is installed.
//
// Thread safety: the reporter is process-wide; it is called from the executor's worker
// threads, concurrently, and must be quick. Install and remove it while no query runs.
// Failure: none.

#include <cstdint>
#include <functional>

namespace spate::exec {

struct StageProgress {
  int64_t stage_id = 0;   // process-wide, increasing
  int64_t total = 0;      // tasks
  int64_t done = 0;       // finished tasks
  int64_t running = 0;    // tasks running now
  bool finished = false;  // the stage's last report
};

using ProgressReporter = std::function<void(const StageProgress&)>;
/// Installs (or, with nullptr, removes) the reporter.
void SetProgressReporter(ProgressReporter reporter);
/// The installed reporter (empty when none).
ProgressReporter GetProgressReporter();

}  // namespace spate::exec
