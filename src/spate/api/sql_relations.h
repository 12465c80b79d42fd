// Copyright spate authors.
#pragma once

// Relations of SQL that the api builds as DataFrame plans (the catalog's
// RelationPlanResolver, installed on every session):
//
//   * `STREAM name` / `STREAM(name)`: a catalog table read as a stream
//     (spark.readStream.table) or a temporary view whose plan is streaming; a batch view
//     is refused with Spark 4.2's message;
//   * `read_files(path, format => 'json', schema => 'a INT, ...', <reader options>)`:
//     Databricks' table-valued function (Apache Spark has none): files read in batch
//     (spark.read.format(f).schema(s).options(o).load(path)), or, as `STREAM
//     read_files(...)`, as a file stream: with a schema, the file source
//     (readStream.format(f).schema(s)); without, Auto Loader (format("cloudFiles"),
//     docs/auto-loader.md), whose schema location is the `schemaLocation` argument.
//
// Thread safety: as the session (called by the analyzer on the calling thread). Failure:
// Status with Spark's classes (TABLE_OR_VIEW_NOT_FOUND, REQUIRED_PARAMETER_NOT_FOUND,
// ...).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spate/base/status.h"
#include "spate/sql/logical_plan.h"
#include "spate/types/value.h"

namespace spate::api {

struct SessionState;

/// The plan for `node` (a streaming kUnresolvedRelation or a kTableFunction), nullptr
/// when it is none of the relations above.
Result<sql::PlanPtr> ResolveSqlRelation(
    const std::shared_ptr<SessionState>& state, const sql::LogicalPlan& node,
    const std::vector<std::pair<std::string, Value>>& args);

}  // namespace spate::api
