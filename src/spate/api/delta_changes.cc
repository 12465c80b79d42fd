// Copyright spate authors.
#include "spate/api/delta_changes.h"

#include "spate/api/delta_table.h"
#include "spate/api/exceptions.h"
#include "spate/api/session_state.h"
#include "spate/base/text_parse.h"

namespace spate::api {

namespace {

io::FileSystemPtr Fs() { return io::LocalFileSystem::Get(); }

// A version option (startingVersion, endingVersion) as a number.
int64_t VersionOption(const std::string& name, const std::string& v) {
  if (auto n = ParseInt64(v)) return *n;
  ThrowStatus(Status::Error(
      "DELTA_ILLEGAL_OPTION",
      {{"input", v}, {"name", name}, {"explain", "must be a version number"}}));
}

// A table_changes bound: a version (integral) or a timestamp (string or timestamp).
Status SetBound(const SessionState& state, const Value& v,
                std::optional<int64_t>* version, std::optional<int64_t>* timestamp_ms) {
  if (v.is_null()) return Status::OK();
  if (v.type()->IsIntegral()) {
    *version = v.i64();
    return Status::OK();
  }
  if (v.type()->id() == TypeId::kTimestamp || v.type()->id() == TypeId::kTimestampNtz) {
    *timestamp_ms = v.i64() >= 0 ? v.i64() / 1000 : -((-v.i64() + 999) / 1000);
    return Status::OK();
  }
  if (v.type()->id() == TypeId::kString) {
    SPATE_ASSIGN_OR_RETURN(int64_t ms, ParseTimeTravelTimestamp(state, v.str()));
    *timestamp_ms = ms;
    return Status::OK();
  }
  return Status::Error("DELTA_TIMESTAMP_INVALID", {{"expr", v.ToString()}});
}

}  // namespace

void SetChangeFeedConf(const SessionState& state, table::ChangeRangeSpec* spec) {
  auto on = [&](const char* key, bool fallback) {
    return ToLower(state.conf.GetOr(key, fallback ? "true" : "false")) == "true";
  };
  spec->allow_out_of_range =
      on("spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled", false);
  spec->check_schema = !on(
      "spark.databricks.delta.changeDataFeed.unsafeBatchReadOnIncompatibleSchemaChanges."
      "enabled",
      false);
}

table::ChangeRangeSpec ChangeRangeOptions(
    const SessionState& state, const std::map<std::string, std::string>& options) {
  table::ChangeRangeSpec spec;
  SetChangeFeedConf(state, &spec);
  for (const auto& [k, v] : options) {
    if (EqualsIgnoreCase(k, "startingVersion")) {
      spec.starting_version = VersionOption("startingVersion", v);
    } else if (EqualsIgnoreCase(k, "endingVersion")) {
      spec.ending_version = VersionOption("endingVersion", v);
    } else if (EqualsIgnoreCase(k, "startingTimestamp")) {
      spec.starting_timestamp_ms = ValueOrThrow(ParseTimeTravelTimestamp(state, v));
    } else if (EqualsIgnoreCase(k, "endingTimestamp")) {
      spec.ending_timestamp_ms = ValueOrThrow(ParseTimeTravelTimestamp(state, v));
    }
  }
  return spec;
}

DataFrame LoadDeltaChanges(const std::shared_ptr<SessionState>& state,
                           const std::string& path, const table::ChangeRangeSpec& range) {
  auto src = ValueOrThrow(table::DeltaChangesSource::Make(
      Fs(), path, range, state->conf.session_time_zone()));
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = src;
  return DataFrame(state, plan);
}

Result<DataSourcePtr> ResolveTableChanges(const std::shared_ptr<SessionState>& state,
                                          const std::string& function,
                                          const std::vector<Value>& args) {
  const bool by_path = function == "table_changes_by_path";
  if (function != "table_changes" && !by_path) return DataSourcePtr();
  if (args.size() < 2 || args.size() > 3) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`" + function + "`"},
                          {"expectedNum", "[2, 3]"},
                          {"actualNum", std::to_string(args.size())}});
  }
  if (args[0].is_null() || args[0].type()->id() != TypeId::kString) {
    return Status::Invalid(function + "'s first argument must be a " +
                           (by_path ? "path" : "table name") + " string");
  }
  std::string path;
  try {
    path = by_path ? args[0].str() : TablePath(state, args[0].str());
  } catch (const SparkException& e) {
    return e.status();
  }
  table::ChangeRangeSpec spec;
  SetChangeFeedConf(*state, &spec);
  SPATE_RETURN_IF_ERROR(
      SetBound(*state, args[1], &spec.starting_version, &spec.starting_timestamp_ms));
  if (args.size() == 3) {
    SPATE_RETURN_IF_ERROR(
        SetBound(*state, args[2], &spec.ending_version, &spec.ending_timestamp_ms));
  }
  SPATE_ASSIGN_OR_RETURN(
      auto src,
      table::DeltaChangesSource::Make(Fs(), path, spec, state->conf.session_time_zone()));
  return DataSourcePtr(std::move(src));
}

}  // namespace spate::api
