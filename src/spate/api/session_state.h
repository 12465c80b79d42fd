// Copyright spate authors.
#pragma once

// Internal: the state one SparkSession shares with its DataFrames.

#include <atomic>
#include <memory>
#include <vector>

#include "spate/base/memory.h"
#include "spate/exec/executor.h"
#include "spate/sql/analyzer.h"
#include "spate/sql/catalog.h"
#include "spate/sql/conf.h"

namespace spate::api {

struct SessionState {
  sql::SqlConf conf;
  sql::Catalog catalog;
  std::atomic<int64_t> next_dataframe_id{1};
  std::shared_ptr<MemoryTracker> memory = std::make_shared<MemoryTracker>("session");
  std::string app_name = "spate";

  /// Execution settings from the current conf.
  exec::ExecOptions MakeExecOptions() const;
  Result<sql::BoundPlanPtr> Analyze(const sql::PlanPtr& plan) const;
  Result<std::vector<BatchPtr>> Execute(const sql::BoundPlanPtr& plan) const;
  /// Physical plan text ("== Physical Plan ==\n...") or, for mode "extended", all stages.
  Result<std::string> Explain(const sql::PlanPtr& plan, const std::string& mode) const;
};

}  // namespace spate::api
