// Copyright spate authors.
#pragma once

// The analyzer: resolves an unresolved LogicalPlan (from the parser or the DataFrame API)
// against the catalog and session conf into a BoundPlan: names to columns, functions to
// kernels, implicit casts inserted, aggregates and windows extracted, star expanded.
// Errors are AnalysisException-kind Statuses with Spark's error classes
// (UNRESOLVED_COLUMN.WITH_SUGGESTION, TABLE_OR_VIEW_NOT_FOUND, MISSING_AGGREGATION, ...).
//
// Thread safety: an Analyzer is used by one thread for one statement; the Catalog and
// SqlConf it reads are thread-safe.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spate/sql/bound_plan.h"
#include "spate/sql/catalog.h"
#include "spate/sql/conf.h"

namespace spate::sql {

class Analyzer {
 public:
  Analyzer(const Catalog& catalog, const SqlConf& conf);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  Result<BoundPlanPtr> Analyze(const PlanPtr& plan);
  /// Binds a standalone expression over the output of `input` (DataFrame.select of a
  /// Column, filter conditions built in the API).
  Result<BoundExprPtr> BindExpression(const ExprPtr& expr,
                                      const std::vector<Attribute>& input);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// Spark's Levenshtein-ordered suggestion list for UNRESOLVED_COLUMN: "`a`, `t`.`b`".
/// `qualified` keeps table qualifiers (used when the reference itself was qualified).
std::string SuggestColumns(const std::string& name,
                           const std::vector<Attribute>& candidates,
                           bool qualified = false);
/// Quotes an identifier with backticks as Spark's error messages do: `a`.`b`.
std::string QuoteIdentifier(const std::vector<std::string>& parts);

}  // namespace spate::sql
