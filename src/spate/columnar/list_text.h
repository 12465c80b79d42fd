// Copyright spate authors.
#pragma once

// The text of a list (or map) row: the brackets and the separators around its elements,
// shared by CAST to STRING, show() and the JSON writer.

#include <cstdint>
#include <string>
#include <string_view>

#include "spate/columnar/column.h"

namespace spate {

/// Appends `open`, then `element(k)` for each element row k of row `i` of the list or
/// map column `list` with `separator` between them, then `close`. `element` appends the
/// text of element row k (of a map: its key and value) to `*out`.
template <typename AppendElement>
void AppendListText(const Column& list, int64_t i, char open, std::string_view separator,
                    char close, std::string* out, AppendElement&& element) {
  const int32_t* o = list.offsets();
  out->push_back(open);
  for (int32_t k = o[i]; k < o[i + 1]; ++k) {
    if (k > o[i]) out->append(separator);
    element(k);
  }
  out->push_back(close);
}

}  // namespace spate
