// Copyright spate authors.
#pragma once

// The file the current thread is reading rows from, for input_file_name(): set by the
// file scan for each batch it produces (as Spark's InputFileBlockHolder, a thread-local
// set per task), cleared when the scan ends. Rows that are not read from a file directly
// (after a shuffle, from memory) see "".

#include <string>
#include <string_view>

namespace spate {

/// Sets the current thread's input file (a path; stored as Spark's URI "file:///...").
void SetInputFileName(std::string_view path);
/// The current thread's input file URI, or "".
const std::string& InputFileName();

}  // namespace spate
