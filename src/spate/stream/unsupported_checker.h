// Copyright spate authors.
#pragma once

// The error of a batch action on a streaming DataFrame. The checks of streaming queries
// (Spark's UnsupportedOperationChecker) are in streaming_plan.h, over the analyzed plan.
// Thread safety: pure functions.

#include <string>
#include <vector>

#include "spate/base/status.h"
#include "spate/sql/logical_plan.h"
#include "spate/stream/source.h"

namespace spate::stream {

/// The error of a batch action on a streaming DataFrame (show(), collect(), ...).
Status BatchActionOnStreamError();

}  // namespace spate::stream
