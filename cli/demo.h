// Copyright spate authors.
#pragma once

#include <iosfwd>

namespace spate::cli {

/// `spate demo`, on local defaults under the working directory:
///  1. a streaming pipeline: lands JSON event files in ./spate-demo/landing, runs a
///     file -> Delta stream with Trigger.AvailableNow into the warehouse table
///     `bronze_events` (./spate-warehouse), lands more and runs again, runs once more
///     with nothing new, printing each micro-batch's progress, the table's row count and
///     DESCRIBE HISTORY (nothing is read twice);
///  2. batch SQL over `num_events` generated events.
/// The demo's folder and table are reset at start. Returns the exit code (1 when a step
/// failed or the row count does not match the events landed).
int RunDemo(std::ostream& out, long long num_events, int events_per_file = 100);

}  // namespace spate::cli
