// Copyright spate authors.
#pragma once

#include <iosfwd>

namespace spate::cli {

/// `spate demo`: generates an events table in memory and runs SQL and DataFrame queries
/// over it, printing each query, its result and its timing. Returns the exit code.
int RunDemo(std::ostream& out, long long num_events);

}  // namespace spate::cli
