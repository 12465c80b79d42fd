// Copyright spate authors.
#pragma once

// The `socket` source (Spark's TextSocketSourceProvider, for demos): connects to
// host:port when the query starts and turns each received line into a row (value STRING,
// plus timestamp TIMESTAMP with includeTimestamp=true: the arrival time). Offsets are the
// index of the last line received (JSON number). Like Spark's, it is not replayable:
// lines live only in memory (released on commit), so a restart does not see lines
// received by an earlier run.
//
// Ownership: owned by its query; a background thread reads the socket until Stop().
// Thread safety: the reader thread and the query thread share the buffer under a mutex.
// Failure: connection errors fail the query start; a closed connection ends the input.

#include <map>
#include <string>

#include "spate/stream/source.h"

namespace spate::connectors {

/// Validates host/port/includeTimestamp; returns the schema and the factory.
Result<std::pair<SchemaPtr, stream::SourceFactory>> MakeSocketSourceFactory(
    const std::map<std::string, std::string>& options);

}  // namespace spate::connectors
