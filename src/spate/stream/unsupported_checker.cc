// Copyright spate authors.
#include "spate/stream/unsupported_checker.h"

namespace spate::stream {

namespace {

Status Legacy(const std::string& msg) {
  return Status::Error("_LEGACY_ERROR_TEMP_3102", {{"msg", msg}});
}

void Collect(const sql::PlanPtr& p, std::vector<std::string>* out) {
  if (!p || !IsStreamingPlan(p)) return;
  switch (p->kind) {
    case sql::PlanKind::kAggregate:
      out->push_back("Aggregate");
      break;
    case sql::PlanKind::kDistinct:
    case sql::PlanKind::kDeduplicate:
      out->push_back("Deduplicate");
      break;
    case sql::PlanKind::kLimit:
      out->push_back("Limit");
      break;
    case sql::PlanKind::kJoin:
      if (p->children.size() == 2 && IsStreamingPlan(p->children[0]) &&
          IsStreamingPlan(p->children[1]))
        out->push_back("Join");
      break;
    default:
      break;
  }
  for (const auto& c : p->children) Collect(c, out);
}

Status Check(const sql::PlanPtr& p, OutputMode mode, bool has_aggregation) {
  if (!p || !IsStreamingPlan(p)) return Status::OK();
  switch (p->kind) {
    case sql::PlanKind::kSort:
      if (!(has_aggregation && mode == OutputMode::kComplete)) {
        return Legacy(
            "Sorting is not supported on streaming DataFrames/Datasets, unless it is on "
            "aggregated DataFrame/Dataset in Complete output mode");
      }
      break;
    case sql::PlanKind::kOffset:
      return Legacy("Offset is not supported on streaming DataFrames/Datasets");
    case sql::PlanKind::kSetOperation:
      if (p->set_op != sql::SetOpKind::kUnion) {
        return Legacy(std::string(p->set_op == sql::SetOpKind::kIntersect ? "Intersect"
                                                                          : "Except") +
                      " between two streaming DataFrames/Datasets is not supported");
      }
      if (!p->set_all && !p->by_name) {
        // UNION (distinct) is a Distinct over a union: stateful.
        return Status::Error("SPATE_STREAMING_UNSUPPORTED",
                             {{"msg",
                               "UNION DISTINCT on streaming DataFrames needs a stateful "
                               "deduplication, which is not supported yet"}});
      }
      break;
    case sql::PlanKind::kJoin: {
      if (p->children.size() != 2) break;
      bool ls = IsStreamingPlan(p->children[0]), rs = IsStreamingPlan(p->children[1]);
      if (ls && rs) break;  // stateful: reported by the caller
      switch (p->join_type) {
        case sql::JoinType::kLeftOuter:
          if (rs) {
            return Legacy(
                "Left outer join with a streaming DataFrame/Dataset on the right and a "
                "static "
                "DataFrame/DataSet on the left is not supported");
          }
          break;
        case sql::JoinType::kRightOuter:
          if (ls) {
            return Legacy(
                "Right outer join with a streaming DataFrame/Dataset on the left and a "
                "static "
                "DataFrame/DataSet on the right is not supported");
          }
          break;
        case sql::JoinType::kFullOuter:
          return Legacy(
              "Full outer joins with streaming DataFrames/Datasets are not supported");
        case sql::JoinType::kLeftSemi:
        case sql::JoinType::kLeftAnti:
          if (rs) {
            return Legacy(std::string("Left ") +
                          (p->join_type == sql::JoinType::kLeftSemi ? "semi" : "anti") +
                          " joins with a streaming DataFrame/Dataset on the right are "
                          "not supported");
          }
          break;
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  for (const auto& c : p->children)
    SPATE_RETURN_IF_ERROR(Check(c, mode, has_aggregation));
  return Status::OK();
}

}  // namespace

std::vector<std::string> StatefulOperators(const sql::PlanPtr& plan) {
  std::vector<std::string> out;
  Collect(plan, &out);
  return out;
}

Status CheckStreamingPlan(const sql::PlanPtr& plan, OutputMode mode) {
  auto stateful = StatefulOperators(plan);
  bool has_aggregation = false;
  for (const auto& s : stateful) has_aggregation |= s == "Aggregate";
  if (mode == OutputMode::kComplete && !has_aggregation) {
    return Legacy(
        "Complete output mode not supported when there are no streaming aggregations on "
        "streaming DataFrames/Datasets");
  }
  SPATE_RETURN_IF_ERROR(Check(plan, mode, has_aggregation));
  if (!stateful.empty()) {
    return Status::Error(
        "SPATE_STREAMING_UNSUPPORTED",
        {{"msg",
          "Stateful streaming operator " + stateful.front() +
              " is not supported yet (streaming aggregations, deduplication, limits and "
              "stream-stream joins need the state store); run it in foreachBatch on each "
              "micro-batch instead"}});
  }
  return Status::OK();
}

Status BatchActionOnStreamError() {
  return Legacy(
      "Queries with streaming sources must be executed with writeStream.start()");
}

}  // namespace spate::stream
