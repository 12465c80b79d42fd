// Copyright spate authors.
#include "spate/sql/hints.h"

#include "spate/base/line_sink.h"
#include "spate/types/data_type.h"

namespace spate::sql {

namespace {

LineSink& Sink() {
  static LineSink sink;
  return sink;
}

}  // namespace

std::optional<JoinStrategyHint> JoinStrategyHintFromName(const std::string& name) {
  const std::string n = ToUpper(name);
  if (n == "BROADCAST" || n == "BROADCASTJOIN" || n == "MAPJOIN")
    return JoinStrategyHint::kBroadcast;
  if (n == "SHUFFLE_MERGE" || n == "MERGEJOIN" || n == "MERGE")
    return JoinStrategyHint::kShuffleMerge;
  if (n == "SHUFFLE_HASH") return JoinStrategyHint::kShuffleHash;
  if (n == "SHUFFLE_REPLICATE_NL") return JoinStrategyHint::kShuffleReplicateNL;
  return std::nullopt;
}

void LogHintWarning(const std::string& message) {
  Sink().Write("WARN HintErrorLogger: " + message);
}

void SetHintWarningSink(std::function<void(const std::string&)> sink) {
  if (!sink) {
    Sink().Set(nullptr);
    return;
  }
  // The sink gets the message without the logger prefix.
  const std::string prefix = "WARN HintErrorLogger: ";
  Sink().Set([sink = std::move(sink), prefix](const std::string& line) {
    sink(line.substr(prefix.size()));
  });
}

}  // namespace spate::sql
