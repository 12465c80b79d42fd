// Copyright spate authors.
#pragma once

// `spate run pipeline.sql [more.sql ...] [--storage DIR] [--continuous]`: a declarative
// pipeline (Spark 4.1's spark-pipelines; api/pipeline.h, docs/pipelines.md) run once
// (availableNow) or continuously until Ctrl-C. A spec file (spark-pipeline.yml) instead of
// SQL files runs through the Python package (`python3 -m spate.pipelines run --spec ...`),
// which also loads the spec's Python definitions.

#include <map>
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
  bool ui = false;
  int ui_port = 4040;
};

/// Exit 0 when the run completed (or a continuous run was stopped), 1 on a failure (on
/// `err`), 2 for bad arguments.
int RunPipeline(const RunPipelineArgs& args, std::ostream& out, std::ostream& err);

/// `spate checkpoint check DIR --query FILE.sql [--table T] [--conf k=v]`: the pipeline
/// flow's pre-flight (api::CheckSqlFlowAgainstCheckpoint). Exit codes as for a Python
/// query: 0 safe, 1 warnings, 2 Spark would refuse, 3 the check could not run.
int CheckSqlCheckpoint(const std::string& dir, const std::string& sql_file,
                       const std::string& table, const std::vector<std::string>& confs,
                       bool json, std::ostream& out, std::ostream& err);

}  // namespace spate::cli
