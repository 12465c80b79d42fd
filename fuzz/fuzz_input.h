// Copyright spate authors.
#pragma once

// Helpers for fuzz targets that read several inputs from one byte string.
// Header only; pure functions.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace spate::fuzz {

/// `in` split at NUL bytes (always at least one part, possibly empty); at most
/// `max_parts` parts, the last one holding the rest.
inline std::vector<std::string> SplitAtNul(std::string_view in, size_t max_parts = 64) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (parts.size() + 1 < max_parts) {
    size_t nul = in.find('\0', start);
    if (nul == std::string_view::npos) break;
    parts.emplace_back(in.substr(start, nul - start));
    start = nul + 1;
  }
  parts.emplace_back(in.substr(start));
  return parts;
}

}  // namespace spate::fuzz
