// Copyright spate authors.
#include "spate/stream/source.h"

#include "spate/types/data_type.h"

namespace spate::stream {

std::string_view OutputModeName(OutputMode m) {
  switch (m) {
    case OutputMode::kAppend:
      return "Append";
    case OutputMode::kUpdate:
      return "Update";
    case OutputMode::kComplete:
      return "Complete";
  }
  return "Append";
}

Result<OutputMode> ParseOutputMode(const std::string& s) {
  std::string l = ToLower(s);
  if (l == "append") return OutputMode::kAppend;
  if (l == "update") return OutputMode::kUpdate;
  if (l == "complete") return OutputMode::kComplete;
  return Status::Error("STREAMING_OUTPUT_MODE.INVALID", {{"outputMode", s}});
}

StreamingRelation::StreamingRelation(std::string format, SchemaPtr schema,
                                     SourceFactory factory, std::string description)
    : format_(std::move(format)),
      schema_(std::move(schema)),
      factory_(std::move(factory)),
      description_(std::move(description)) {}

Result<std::unique_ptr<BatchReader>> StreamingRelation::OpenSplit(int,
                                                                  const ScanSpec&) const {
  return Status::Error(
      "_LEGACY_ERROR_TEMP_3102",
      {{"msg",
        "Queries with streaming sources must be executed with writeStream.start()"}});
}

std::string StreamingRelation::Describe() const {
  return "StreamingRelation " + format_ + ", " + description_;
}

namespace {

void Find(const sql::PlanPtr& plan,
          std::vector<std::shared_ptr<const StreamingRelation>>* out) {
  if (!plan) return;
  if (plan->kind == sql::PlanKind::kDataSource) {
    if (auto rel = std::dynamic_pointer_cast<const StreamingRelation>(plan->source))
      out->push_back(rel);
  }
  for (const auto& [name, cte] : plan->ctes) Find(cte, out);
  for (const auto& c : plan->children) Find(c, out);
}

sql::PlanPtr Replace(const sql::PlanPtr& plan, const std::vector<DataSourcePtr>& with,
                     size_t* next) {
  if (!plan) return plan;
  if (plan->kind == sql::PlanKind::kDataSource &&
      std::dynamic_pointer_cast<const StreamingRelation>(plan->source)) {
    auto copy = std::make_shared<sql::LogicalPlan>(*plan);
    copy->source = *next < with.size() ? with[*next] : nullptr;
    ++*next;
    return copy;
  }
  bool changed = false;
  std::vector<std::pair<std::string, sql::PlanPtr>> ctes = plan->ctes;
  for (auto& [name, cte] : ctes) {
    auto n = Replace(cte, with, next);
    changed |= n != cte;
    cte = n;
  }
  std::vector<sql::PlanPtr> children = plan->children;
  for (auto& c : children) {
    auto n = Replace(c, with, next);
    changed |= n != c;
    c = n;
  }
  if (!changed) return plan;
  auto copy = std::make_shared<sql::LogicalPlan>(*plan);
  copy->ctes = std::move(ctes);
  copy->children = std::move(children);
  return copy;
}

}  // namespace

bool IsStreamingPlan(const sql::PlanPtr& plan) {
  return !FindStreamingRelations(plan).empty();
}

std::vector<std::shared_ptr<const StreamingRelation>> FindStreamingRelations(
    const sql::PlanPtr& plan) {
  std::vector<std::shared_ptr<const StreamingRelation>> out;
  Find(plan, &out);
  return out;
}

sql::PlanPtr ReplaceStreamingRelations(const sql::PlanPtr& plan,
                                       const std::vector<DataSourcePtr>& with) {
  size_t next = 0;
  return Replace(plan, with, &next);
}

Result<std::vector<BatchPtr>> MicroBatch::Collect() const {
  return exec::Collect(analyzed, runner->MakeExecOptions());
}

}  // namespace spate::stream
