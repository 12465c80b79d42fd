// Copyright spate authors.
#pragma once

#include <iosfwd>
#include <string>

namespace spate::cli {

/// `spate checkpoint describe DIR [--json]` (stream/checkpoint_describe.h): prints the
/// description to `out`; an error to `err`. Returns the exit code: 0, or 1 when DIR is
/// not a readable checkpoint.
int DescribeCheckpoint(const std::string& dir, bool json, std::ostream& out, std::ostream& err);

}  // namespace spate::cli
