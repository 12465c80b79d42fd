// Copyright spate authors.
#pragma once

// Reading Delta's change data feed from the API and SQL (the reader itself is
// table/delta_changes.h):
//
//   spark.read.format("delta").option("readChangeFeed", "true")
//        .option("startingVersion", 1).option("endingVersion", 3).load(path)
//   SELECT * FROM table_changes('t', 1, 3)          -- or timestamps: '2026-01-01'
//   SELECT * FROM table_changes_by_path('/data/t', 1)
//
// Ownership and thread safety: functions only. Failure: throws (API) or returns
// (resolver) Delta's error classes: DELTA_NO_START_FOR_CDC_READ, DELTA_INVALID_CDC_RANGE,
// DELTA_CDC_START_VERSION_AFTER_LATEST, DELTA_MISSING_CHANGE_DATA,
// DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_SCHEMA_CHANGE / _DATA_SCHEMA.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spate/api/dataframe.h"
#include "spate/table/delta_changes.h"

namespace spate::api {

struct SessionState;

/// The session's change feed settings in `spec`
/// (spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled,
/// ...unsafeBatchReadOnIncompatibleSchemaChanges.enabled).
void SetChangeFeedConf(const SessionState& state, table::ChangeRangeSpec* spec);
/// The range options of a change feed read (startingVersion, startingTimestamp,
/// endingVersion, endingTimestamp; timestamps in the session time zone) and the
/// session's change feed settings.
table::ChangeRangeSpec ChangeRangeOptions(
    const SessionState& state, const std::map<std::string, std::string>& options);
/// The change feed of the Delta table at `path` over `range`.
DataFrame LoadDeltaChanges(const std::shared_ptr<SessionState>& state,
                           const std::string& path, const table::ChangeRangeSpec& range);
/// The session catalog's table-valued functions table_changes(name, start[, end]) and
/// table_changes_by_path(path, start[, end]) (a version number or a timestamp each);
/// nullptr for other names.
Result<DataSourcePtr> ResolveTableChanges(const std::shared_ptr<SessionState>& state,
                                          const std::string& function,
                                          const std::vector<Value>& args);

}  // namespace spate::api
