// Copyright spate authors.
#pragma once

// `spate run pipeline.sql [more.sql ...] [--storage DIR] [--continuous]`: a declarative
// pipeline (Spark 4.1's spark-pipelines; api/pipeline.h, docs/pipelines.md) run once
// (availableNow) or continuously until Ctrl-C. A spec file (spark-pipeline.yml) instead
// of SQL files runs through the Python package (`python3 -m spate.pipelines run --spec
// ...`), which also loads the spec's Python definitions.

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace spate::cli {

struct RunPipelineArgs {
  std::vector<std::string> files;
  std::string storage;  // "" = pipeline-storage beside the first file
  std::string database;
  bool continuous = false;
  std::string trigger_interval = "10 seconds";
  std::vector<std::string> confs;  // key=value
  std::vector<std::string> full_refresh;
  bool full_refresh_all = false;
  bool dry_run = false;  // resolve every flow, run nothing (spark-pipelines dry-run)
  bool ui = false;
  int ui_port = 4040;
};

/// Exit 0 when the run completed (or a continuous run was stopped), 1 on a failure (on
/// `err`), 2 for bad arguments.
int RunPipeline(const RunPipelineArgs& args, std::ostream& out, std::ostream& err);

/// `spate checkpoint check|replay DIR` on a pipeline's SQL files: the streaming table (or
/// flow) `table` of `files` (default: the one DIR is the checkpoint of, else the first),
/// in a session with `confs` (and `database` as the current one), handed to the
/// pre-flight check (api::CheckSqlFlowAgainstCheckpoint) or, with `batch`, replayed
/// (api::ReplaySqlFlowBatch). Exit codes as for a Python query (check: 0 safe, 1
/// warnings, 2 Spark would refuse; replay: 0 equal, 1 different), 3 it could not run.
struct SqlCheckpointCommand {
  std::string dir;
  std::vector<std::string> files;
  std::string table;
  std::vector<std::string> confs;  // key=value
  std::string database;
  std::optional<int64_t> batch;  // replay
  std::string out_dir;           // replay --out
  bool json = false;
};
int RunSqlCheckpointCommand(const SqlCheckpointCommand& c, std::ostream& out,
                            std::ostream& err);

}  // namespace spate::cli
