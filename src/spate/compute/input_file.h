// Copyright spate authors.
#pragma once

// The file the current thread is reading rows from, for input_file_name() and
// input_file_block_start() / input_file_block_length(): set by the file scan for each
// batch it produces (as Spark's InputFileBlockHolder, a thread-local set per task),
// cleared when the scan ends. Rows that are not read from a file directly (after a
// shuffle, from memory) see "" and -1. spate reads a file as one block: it starts at 0
// and is as long as the file.

#include <cstdint>
#include <string>
#include <string_view>

namespace spate {

/// Sets the current thread's input file (a path; stored as Spark's URI "file:///...") and
/// its length in bytes (-1: unknown or no file).
void SetInputFileName(std::string_view path, int64_t length = -1);
/// The current thread's input file URI, or "".
const std::string& InputFileName();
/// The current thread's input file length in bytes, or -1.
int64_t InputFileLength();

}  // namespace spate
