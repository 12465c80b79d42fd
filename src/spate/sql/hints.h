// Copyright spate authors.
#pragma once

// Query hints (Spark's ResolveHints): the join strategy hint names and the warnings
// Spark's HintErrorLogger writes for hints it drops (an unknown hint, a relation a hint
// names that the query does not have, a broadcast side the join type cannot build).
//
// Warnings are lines "WARN HintErrorLogger: <message>" on stderr unless a sink is set
// (SetHintWarningSink, for tests). Thread safety: the sink is set and called under a
// process-wide mutex.

#include <functional>
#include <optional>
#include <string>

#include "spate/sql/bound_plan.h"

namespace spate::sql {

/// The join strategy of a hint name (case-insensitive): BROADCAST / BROADCASTJOIN /
/// MAPJOIN, SHUFFLE_MERGE / MERGEJOIN / MERGE, SHUFFLE_HASH, SHUFFLE_REPLICATE_NL;
/// nullopt for any other name.
std::optional<JoinStrategyHint> JoinStrategyHintFromName(const std::string& name);

/// Writes one of HintErrorLogger's warnings (the message without the logger prefix).
void LogHintWarning(const std::string& message);
/// Replaces where hint warnings go (an empty function restores stderr).
void SetHintWarningSink(std::function<void(const std::string&)> sink);

}  // namespace spate::sql
