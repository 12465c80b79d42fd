// Copyright spate authors.
#include "spate/stream/streaming_plan.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <tuple>

#include "spate/compute/function_registry.h"
#include "spate/compute/generators.h"
#include "spate/stream/stateful_processor.h"

namespace spate::stream {

using sql::BoundKind;
using sql::BoundPlan;
using sql::DedupKind;
using sql::JoinType;

const StreamingRelation* StreamingLeafOf(const BoundPlan& node) {
  if (node.kind != BoundKind::kFileScan || !node.source) return nullptr;
  return dynamic_cast<const StreamingRelation*>(node.source.get());
}

bool IsStreamingBound(const BoundPlan& plan) {
  if (StreamingLeafOf(plan)) return true;
  for (const auto& c : plan.children) {
    if (c && IsStreamingBound(*c)) return true;
  }
  return false;
}

namespace {

void FindRelations(const sql::BoundPlanPtr& p, std::set<const DataSource*>* seen,
                   std::vector<std::shared_ptr<const StreamingRelation>>* out) {
  if (!p) return;
  if (StreamingLeafOf(*p)) {
    if (seen->insert(p->source.get()).second) {
      out->push_back(std::static_pointer_cast<const StreamingRelation>(p->source));
    }
    return;
  }
  for (const auto& c : p->children) FindRelations(c, seen, out);
}

// A struct<start, end> of timestamps: the column window(...) / session_window(...) make.
bool IsWindowStruct(const DataType& t) {
  if (t.id() != TypeId::kStruct || t.fields().size() != 2) return false;
  for (const auto& f : t.fields()) {
    if (f.type->id() != TypeId::kTimestamp && f.type->id() != TypeId::kTimestampNtz)
      return false;
  }
  return t.fields()[0].name == "start" && t.fields()[1].name == "end";
}

// The delay of a marked column `e` refers to (-1: none).
int64_t MarkOfRefs(const BoundExpr& e, const std::vector<int64_t>& marks) {
  int ci = e.column_index();
  if (ci >= 0) return static_cast<size_t>(ci) < marks.size() ? marks[ci] : -1;
  for (const auto& c : e.children()) {
    if (!c) continue;
    int64_t m = MarkOfRefs(*c, marks);
    if (m >= 0) return m;
  }
  return -1;
}

// The mark an expression carries: a column reference passes its column's mark on; a
// window struct computed from a marked column is marked (Spark's TimeWindowing keeps the
// metadata on the window attribute).
int64_t MarkOfExpr(const BoundExpr& e, const std::vector<int64_t>& marks) {
  int ci = e.column_index();
  if (ci >= 0) return static_cast<size_t>(ci) < marks.size() ? marks[ci] : -1;
  // window_time(window) keeps the window's mark (Spark's ResolveWindowTime).
  if (e.call_name() == "window_time") return MarkOfRefs(e, marks);
  if (e.type() && IsWindowStruct(*e.type())) return MarkOfRefs(e, marks);
  return -1;
}

bool IsSessionMerge(const BoundPlan& node) {
  if (node.kind != BoundKind::kWindow || node.windows.empty()) return false;
  for (const auto& w : node.windows) {
    if (w.text.find("(session merge)") == std::string::npos) return false;
  }
  return true;
}

void CollectStateful(const BoundPlan& p, std::vector<const BoundPlan*>* out) {
  if (StatefulKindOf(p)) out->push_back(&p);
  for (const auto& c : p.children) {
    if (c) CollectStateful(*c, out);
  }
}

Status Legacy(const std::string& msg) {
  return Status::Error("_LEGACY_ERROR_TEMP_3102", {{"msg", msg}});
}

Status Unsupported(const std::string& msg) {
  return Status::Error("SPATE_STREAMING_UNSUPPORTED", {{"msg", msg}});
}

std::string Lower(std::string_view v) {
  std::string s(v);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool AnyStreamingAggregate(const BoundPlan& p) {
  auto k = StatefulKindOf(p);
  if (k && *k == StatefulKind::kAggregate) return true;
  for (const auto& c : p.children) {
    if (c && AnyStreamingAggregate(*c)) return true;
  }
  return false;
}

// Spark's containsCompleteData: no stream, or a streaming aggregation in Complete mode.
bool ContainsCompleteData(const BoundPlan& p, OutputMode mode) {
  return !IsStreamingBound(p) ||
         (AnyStreamingAggregate(p) && mode == OutputMode::kComplete);
}

// `names`: the columns the window expressions are exposed as (the aliases of the
// projection above the Window node), else the Window node's own column names.
Status NonTimeWindow(const BoundPlan& node, const BoundPlan* parent) {
  std::string funcs, cols, specs;
  const size_t width = node.child()->output.size();
  for (size_t i = 0; i < node.windows.size(); ++i) {
    const size_t col = width + i;
    const std::string text =
        col < node.output.size() ? node.output[col].name : node.windows[i].text;
    size_t over = text.find(" OVER ");
    std::string fn = over == std::string::npos ? text : text.substr(0, over);
    std::string spec = over == std::string::npos ? "" : text.substr(over + 6);
    std::string name = text;
    if (parent && parent->kind == BoundKind::kProject) {
      for (size_t j = 0; j < parent->exprs.size() && j < parent->output.size(); ++j) {
        if (parent->exprs[j]->column_index() == static_cast<int>(col)) {
          name = parent->output[j].name;
          break;
        }
      }
    }
    if (i) {
      funcs += ", ";
      cols += ", ";
      specs += ", ";
    }
    funcs += Upper(fn);
    specs += Upper(spec);
    cols += "`" + name + "`";
  }
  return Status::Error(
      "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING",
      {{"windowFunc", funcs}, {"columnName", cols}, {"windowSpec", specs}});
}

Status CheckStreamStreamJoin(const BoundPlan& p, OutputMode mode) {
  // Spark 4.2 runs a stream-stream join in Update mode too (its rows are final either
  // way); Complete needs an aggregation. A join without equality keys fails when the
  // first batch is planned (_LEGACY_ERROR_TEMP_1181 from PlanStreamJoin), as Spark's
  // planner fails.
  if (mode == OutputMode::kComplete) {
    return Legacy("Join between two streaming DataFrames/Datasets is not supported in " +
                  std::string(OutputModeName(mode)) +
                  " output mode, only in Append output mode");
  }
  if (p.left_keys.empty()) return Status::OK();
  std::string type;
  switch (p.join_type) {
    case sql::JoinType::kInner:
    case sql::JoinType::kCross:
      return Status::OK();
    case sql::JoinType::kLeftOuter:
      type = "LeftOuter";
      break;
    case sql::JoinType::kLeftSemi:
      type = "LeftSemi";
      break;
    case sql::JoinType::kRightOuter:
      type = "RightOuter";
      break;
    case sql::JoinType::kFullOuter:
      type = "FullOuter";
      break;
    case sql::JoinType::kLeftAnti:
      return Legacy(
          "LeftAnti joins with a streaming DataFrame/Dataset on the right are not "
          "supported");
  }
  // Spark's checkForStreamStreamJoinWatermark: a watermark in the join keys, or a range
  // condition giving the nullable side's state a value watermark (solved with any
  // watermark value: only whether one exists matters).
  const StreamJoinWatermarks w = AnalyzeStreamJoin(p);
  bool range = false;
  switch (p.join_type) {
    case sql::JoinType::kLeftOuter:
    case sql::JoinType::kLeftSemi:
      range = w.value[0].has_value();
      break;
    case sql::JoinType::kRightOuter:
      range = w.value[1].has_value();
      break;
    default:
      range = w.value[0].has_value() || w.value[1].has_value();
      break;
  }
  if (w.key_ordinal < 0 && !range) {
    return Legacy(
        "Stream-stream " + type +
        " join between two streaming DataFrame/Datasets is not supported without a "
        "watermark in the join keys, or a watermark on the nullable side and an "
        "appropriate range condition");
  }
  return Status::OK();
}

Status CheckJoin(const BoundPlan& p, OutputMode mode) {
  const bool ls = IsStreamingBound(*p.children[0]), rs = IsStreamingBound(*p.children[1]);
  if (ls && rs) return CheckStreamStreamJoin(p, mode);
  switch (p.join_type) {
    case sql::JoinType::kFullOuter:
      if (ls) {
        return Legacy(
            "FullOuter joins with streaming DataFrames/Datasets on the left and a static "
            "DataFrame/Dataset on the right is not supported");
      }
      if (rs) {
        return Legacy(
            "FullOuter joins with streaming DataFrames/Datasets on the right and a "
            "static "
            "DataFrame/Dataset on the left is not supported");
      }
      break;
    case sql::JoinType::kLeftAnti:
      if (rs) {
        return Legacy(
            "LeftAnti joins with a streaming DataFrame/Dataset on the right are not "
            "supported");
      }
      break;
    case sql::JoinType::kLeftOuter:
    case sql::JoinType::kLeftSemi:
      if (rs) {
        return Legacy(
            std::string(p.join_type == sql::JoinType::kLeftOuter ? "LeftOuter"
                                                                 : "LeftSemi") +
            " join with a streaming DataFrame/Dataset on the right and a static "
            "DataFrame/Dataset on the left is not supported");
      }
      break;
    case sql::JoinType::kRightOuter:
      if (ls) {
        return Legacy(
            "RightOuter join with a streaming DataFrame/Dataset on the left and a static "
            "DataFrame/DataSet on the right not supported");
      }
      break;
    default:
      break;
  }
  return Status::OK();
}

Status CheckNodes(const BoundPlan& p, OutputMode mode, const BoundPlan* parent,
                  const BoundPlan& root) {
  for (const auto& c : p.children) {
    if (c) SPATE_RETURN_IF_ERROR(CheckNodes(*c, mode, &p, root));
  }
  const bool child_streaming =
      !p.children.empty() && p.children[0] && IsStreamingBound(*p.children[0]);
  switch (p.kind) {
    case BoundKind::kAggregate: {
      if (!child_streaming) break;
      for (const auto& call : p.aggregates) {
        if (call.function->decomposable()) continue;
        if (call.text.find("DISTINCT") != std::string::npos) {
          return Legacy(
              "Distinct aggregations are not supported on streaming DataFrames/Datasets. "
              "Consider using approx_count_distinct() instead.");
        }
        return Unsupported("The aggregate " + call.text +
                           " cannot be computed incrementally on a stream (its partial "
                           "state does not merge)");
      }
      if (p.dedup == DedupKind::kWithinWatermark) {
        auto marks = EventTimeMarks(*p.child());
        if (std::none_of(marks.begin(), marks.end(), [](int64_t m) { return m >= 0; })) {
          return Legacy(
              "dropDuplicatesWithinWatermark is not supported on streaming "
              "DataFrames/DataSets without watermark");
        }
      }
      break;
    }
    case BoundKind::kJoin:
      if (p.children.size() == 2) SPATE_RETURN_IF_ERROR(CheckJoin(p, mode));
      break;
    case BoundKind::kExtension: {
      // flatMapGroupsWithState (applyInPandasWithState): Spark's checks.
      const TransformWithStateNode* tws = TransformWithStateOf(p);
      if (!tws || !child_streaming || tws->operator_name() != "flatMapGroupsWithState")
        break;
      if (tws->map_groups_with_state()) {
        // Allowed only in Update output mode and without aggregation in the query.
        if (AnyStreamingAggregate(root)) {
          return Legacy(
              "mapGroupsWithState is not supported with aggregation on a streaming "
              "DataFrame/Dataset");
        }
        if (mode != OutputMode::kUpdate) {
          return Legacy("mapGroupsWithState is not supported with " +
                        std::string(OutputModeName(mode)) +
                        " output mode on a streaming DataFrame/Dataset");
        }
      } else if (!AnyStreamingAggregate(*p.child()) && tws->mode() != mode) {
        return Legacy("flatMapGroupsWithState in " + Lower(OutputModeName(tws->mode())) +
                      " mode is not supported with " + std::string(OutputModeName(mode)) +
                      " output mode on a streaming DataFrame/Dataset");
      }
      if (tws->time_mode() == TimeMode::kEventTime &&
          !HasStreamingWatermark(*p.child())) {
        return Legacy(
            "Watermark must be specified in the query using "
            "'[Dataset/DataFrame].withWatermark()' "
            "for using event-time timeout in a [map|flatMap]GroupsWithState. Event-time "
            "timeout "
            "not supported without watermark.");
      }
      break;
    }
    case BoundKind::kUnion: {
      bool any = false, all = true;
      for (const auto& c : p.children) {
        bool s = IsStreamingBound(*c);
        any |= s;
        all &= s;
      }
      if (any && !all) {
        return Legacy(
            "Union between streaming and batch DataFrames/Datasets is not supported");
      }
      break;
    }
    case BoundKind::kSetOp: {
      const bool ls = IsStreamingBound(*p.children[0]),
                 rs = IsStreamingBound(*p.children[1]);
      if (p.set_op == sql::SetOpKind::kIntersect && (ls || rs)) {
        return Legacy("Intersect of streaming DataFrames/Datasets is not supported");
      }
      if (p.set_op == sql::SetOpKind::kExcept && rs) {
        return Legacy(
            "Except on a streaming DataFrame/Dataset on the right is not supported");
      }
      if (ls) {
        return Unsupported("EXCEPT of a streaming DataFrame is not supported yet");
      }
      break;
    }
    case BoundKind::kLimit:
      if (!child_streaming) break;
      if (p.offset > 0)
        return Legacy("Offset is not supported on streaming DataFrames/Datasets");
      if (mode == OutputMode::kUpdate) {
        return Legacy(
            "Limits are not supported on streaming DataFrames/Datasets in Update output "
            "mode");
      }
      if (!ContainsCompleteData(*p.child(), mode) && AnyStreamingAggregate(*p.child())) {
        return Unsupported(
            "A limit over an Append-mode streaming aggregation is not supported yet (two "
            "stateful operators); limit a Complete-mode aggregation instead");
      }
      break;
    case BoundKind::kSort:
      if (!ContainsCompleteData(p, mode)) {
        return Legacy(
            "Sorting is not supported on streaming DataFrames/Datasets, unless it is on "
            "aggregated DataFrame/Dataset in Complete output mode");
      }
      break;
    case BoundKind::kWindow:
      if (!child_streaming) break;
      // The merge of session_window(...) keys within a batch; sessions then merge across
      // batches in the session state (SessionWindowStateStoreSave).
      if (IsSessionMerge(p)) break;
      return NonTimeWindow(p, parent);
    default:
      break;
  }
  return Status::OK();
}

bool HasSessionKey(const BoundPlan& agg) {
  for (size_t i = 0; i < agg.group_exprs.size() && i < agg.output.size(); ++i) {
    if (agg.output[i].name == "session_window") return true;
  }
  return false;
}

}  // namespace

std::vector<std::shared_ptr<const StreamingRelation>> FindStreamingRelations(
    const sql::BoundPlanPtr& plan) {
  std::set<const DataSource*> seen;
  std::vector<std::shared_ptr<const StreamingRelation>> out;
  FindRelations(plan, &seen, &out);
  return out;
}

std::vector<int64_t> EventTimeMarks(const BoundPlan& p) {
  auto child_marks = [&](size_t i) {
    return i < p.children.size() && p.children[i] ? EventTimeMarks(*p.children[i])
                                                  : std::vector<int64_t>{};
  };
  std::vector<int64_t> out(p.output.size(), -1);
  switch (p.kind) {
    case BoundKind::kWatermark: {
      out = child_marks(0);
      out.resize(p.output.size(), -1);
      if (p.watermark_column >= 0 && static_cast<size_t>(p.watermark_column) < out.size())
        out[static_cast<size_t>(p.watermark_column)] = p.watermark_delay_ms;
      return out;
    }
    case BoundKind::kProject: {
      auto cm = child_marks(0);
      for (size_t i = 0; i < p.exprs.size() && i < out.size(); ++i)
        out[i] = MarkOfExpr(*p.exprs[i], cm);
      return out;
    }
    case BoundKind::kFilter:
    case BoundKind::kSort:
    case BoundKind::kLimit:
    case BoundKind::kRepartition:
    case BoundKind::kUnion:
    case BoundKind::kSetOp: {
      auto cm = child_marks(0);
      for (size_t i = 0; i < cm.size() && i < out.size(); ++i) out[i] = cm[i];
      return out;
    }
    case BoundKind::kWindow: {
      // The session merge's min(start) / max(end) carry the mark of their argument.
      auto cm = child_marks(0);
      for (size_t i = 0; i < cm.size() && i < out.size(); ++i) out[i] = cm[i];
      for (size_t w = 0; w < p.windows.size() && cm.size() + w < out.size(); ++w) {
        for (const auto& a : p.windows[w].args) {
          int64_t m = a ? MarkOfRefs(*a, cm) : -1;
          if (m >= 0) out[cm.size() + w] = m;
        }
      }
      return out;
    }
    case BoundKind::kGenerate: {
      auto cm = child_marks(0);
      for (size_t i = 0; i < cm.size() && i < out.size(); ++i) out[i] = cm[i];
      if (p.generator && p.generator->time_window && p.generator->arg) {
        int64_t m = MarkOfRefs(*p.generator->arg, cm);
        for (size_t i = cm.size(); i < out.size(); ++i) out[i] = m;
      }
      return out;
    }
    case BoundKind::kAggregate: {
      auto cm = child_marks(0);
      const size_t k = p.group_exprs.size();
      for (size_t i = 0; i < k && i < out.size(); ++i)
        out[i] = MarkOfExpr(*p.group_exprs[i], cm);
      if (p.dedup != DedupKind::kNone) {
        for (size_t a = 0; a < p.aggregates.size() && k + a < out.size(); ++a) {
          const auto& args = p.aggregates[a].args;
          if (!args.empty()) out[k + a] = MarkOfExpr(*args[0], cm);
        }
      }
      return out;
    }
    case BoundKind::kJoin: {
      auto l = child_marks(0);
      std::vector<int64_t> r;
      if (p.join_type != sql::JoinType::kLeftSemi &&
          p.join_type != sql::JoinType::kLeftAnti)
        r = child_marks(1);
      l.insert(l.end(), r.begin(), r.end());
      for (size_t i = 0; i < l.size() && i < out.size(); ++i) out[i] = l[i];
      return out;
    }
    default:
      return out;
  }
}

const char* StatefulKindName(StatefulKind k) {
  switch (k) {
    case StatefulKind::kAggregate:
      return "stateStoreSave";
    case StatefulKind::kDeduplicate:
      return "dedupe";
    case StatefulKind::kDedupWithinWatermark:
      return "dedupeWithinWatermark";
    case StatefulKind::kGlobalLimit:
      return "globalLimit";
    case StatefulKind::kStreamJoin:
      return "symmetricHashJoin";
    case StatefulKind::kTransformWithState:
      return "transformWithStateExec";
  }
  return "?";
}

std::optional<StatefulKind> StatefulKindOf(const BoundPlan& node) {
  if (node.kind == BoundKind::kExtension && TransformWithStateOf(node) &&
      !node.children.empty() && IsStreamingBound(*node.child()))
    return StatefulKind::kTransformWithState;
  if (node.kind == BoundKind::kJoin && node.children.size() == 2 &&
      IsStreamingBound(*node.children[0]) && IsStreamingBound(*node.children[1]))
    return StatefulKind::kStreamJoin;
  if (node.kind == BoundKind::kLimit && node.offset == 0 && node.limit >= 0 &&
      !node.children.empty() && IsStreamingBound(*node.child()) &&
      !AnyStreamingAggregate(*node.child()))
    return StatefulKind::kGlobalLimit;
  if (node.kind != BoundKind::kAggregate || node.children.empty() ||
      !IsStreamingBound(*node.child()))
    return std::nullopt;
  switch (node.dedup) {
    case DedupKind::kNone:
      return StatefulKind::kAggregate;
    case DedupKind::kDropDuplicates:
      return StatefulKind::kDeduplicate;
    case DedupKind::kWithinWatermark:
      return StatefulKind::kDedupWithinWatermark;
  }
  return std::nullopt;
}

std::vector<const BoundPlan*> StatefulNodes(const BoundPlan& plan) {
  std::vector<const BoundPlan*> out;
  CollectStateful(plan, &out);
  return out;
}

bool HasStreamingWatermark(const BoundPlan& plan) {
  if (plan.kind == BoundKind::kWatermark && !plan.children.empty() &&
      IsStreamingBound(*plan.child()))
    return true;
  for (const auto& c : plan.children) {
    if (c && HasStreamingWatermark(*c)) return true;
  }
  return false;
}

namespace {

// The output watermark of `p` (nullopt: none); records the input watermark of each
// stateful operator at its pre-order id.
std::optional<int64_t> Propagate(const BoundPlan& p, int64_t origin,
                                 std::vector<std::optional<int64_t>>* ops,
                                 int64_t* next_id) {
  if (StreamingLeafOf(p)) return std::nullopt;
  const std::optional<StatefulKind> kind = StatefulKindOf(p);
  const int64_t id = kind ? (*next_id)++ : -1;
  std::optional<int64_t> in;
  for (const auto& c : p.children) {
    if (!c) continue;
    std::optional<int64_t> w = Propagate(*c, origin, ops, next_id);
    if (w && (!in || *w < *in)) in = w;
  }
  if (p.kind == BoundKind::kWatermark && !p.children.empty() &&
      IsStreamingBound(*p.child()))
    return origin;
  if (!kind) return in;
  if (static_cast<size_t>(id) >= ops->size()) ops->resize(static_cast<size_t>(id) + 1);
  (*ops)[static_cast<size_t>(id)] = in;
  if (!in || *kind != StatefulKind::kStreamJoin) return in;
  // A join lets through the least of its sides' state watermarks and its input.
  const StreamJoinWatermarks w = AnalyzeStreamJoin(p);
  int64_t out = *in;
  for (int side = 0; side < 2; ++side) {
    if (w.key_ordinal >= 0) continue;  // the key's watermark is the input's
    if (w.event_column[side] >= 0 && w.value[side])
      out = std::min(out, w.value[side]->At(*in));
  }
  return out;
}

}  // namespace

std::vector<int64_t> PropagateWatermarks(const BoundPlan& plan, int64_t origin_ms) {
  std::vector<std::optional<int64_t>> ops;
  int64_t next_id = 0;
  Propagate(plan, origin_ms, &ops, &next_id);
  ops.resize(static_cast<size_t>(next_id));
  std::vector<int64_t> out(ops.size(), 0);
  if (origin_ms == 0) return out;  // Spark skips the propagation: every operator gets 0
  for (size_t i = 0; i < ops.size(); ++i)
    out[i] = std::max<int64_t>(0, ops[i].value_or(0));
  return out;
}

void SplitConjuncts(const BoundExprPtr& e, std::vector<BoundExprPtr>* out) {
  if (!e) return;
  if (e->call_name() == "and" && e->children().size() == 2) {
    SplitConjuncts(e->children()[0], out);
    SplitConjuncts(e->children()[1], out);
    return;
  }
  out->push_back(e);
}

void CollectColumnRefs(const BoundExpr& e, std::vector<int>* out) {
  if (e.column_index() >= 0) {
    out->push_back(e.column_index());
    return;
  }
  for (const auto& c : e.children()) {
    if (c) CollectColumnRefs(*c, out);
  }
}

int64_t StateValueWatermark::At(int64_t watermark_ms) const {
  int64_t out = std::numeric_limits<int64_t>::max();
  for (const Bound& b : bounds) {
    // As Spark: the watermark in µs as a double, the terms summed, back to ms truncated.
    const double v =
        b.wm_terms * (static_cast<double>(watermark_ms) * 1000.0) + b.const_us;
    out = std::min(out, static_cast<int64_t>(v / 1000.0) - b.minus);
  }
  return out;
}

namespace {

bool IsTimestampType(const DataType& t) {
  return t.id() == TypeId::kTimestamp || t.id() == TypeId::kTimestampNtz;
}

// One term of a linear time expression: a column (sign +-1) or a constant (µs).
struct TimeTerm {
  int column = -1;
  int sign = 1;
  double const_us = 0;
};

// Spark's collectTerms: `e` as a sum of signed columns and interval constants; false for
// anything else (the conjunct then gives no bound).
bool CollectTimeTerms(const BoundExpr& e, int sign, std::vector<TimeTerm>* out) {
  const std::string& name = e.call_name();
  if ((name == "+" || name == "-") && e.children().size() == 2) {
    return CollectTimeTerms(*e.children()[0], sign, out) &&
           CollectTimeTerms(*e.children()[1], name == "-" ? -sign : sign, out);
  }
  if (name == "negative" && e.children().size() == 1) {
    return CollectTimeTerms(*e.children()[0], -sign, out);
  }
  if (e.column_index() >= 0) {
    out->push_back(TimeTerm{e.column_index(), sign, 0});
    return true;
  }
  if (const Value* v = e.literal_value()) {
    if (v->is_null() || v->type()->id() != TypeId::kDayTimeInterval) return false;
    out->push_back(TimeTerm{-1, sign, static_cast<double>(v->i64())});
    return true;
  }
  return false;
}

// Spark's getStateWatermarkFromLessThenPredicate for `l < r`: solved for the one
// timestamp column of the state side (which must appear negated in l - r), with the
// other side's watermarked column standing for the watermark.
std::optional<StateValueWatermark::Bound> SolveLessThan(
    const BoundExpr& l, const BoundExpr& r, int state_side, int left_width,
    const std::vector<sql::Attribute>& attrs, const std::vector<int64_t>& marks) {
  std::vector<TimeTerm> terms;
  if (!CollectTimeTerms(l, 1, &terms) || !CollectTimeTerms(r, -1, &terms))
    return std::nullopt;
  auto side_of = [&](int c) { return c < left_width ? 0 : 1; };
  std::set<int> state_cols, other_cols;
  for (const auto& t : terms) {
    if (t.column < 0) continue;
    (side_of(t.column) == state_side ? state_cols : other_cols).insert(t.column);
  }
  if (state_cols.size() > 1 || other_cols.size() > 1) return std::nullopt;
  StateValueWatermark::Bound b;
  int constraint_terms = 0;
  for (const auto& t : terms) {
    if (t.column < 0) {
      b.const_us += t.sign * t.const_us;
      continue;
    }
    const auto& type = *attrs[static_cast<size_t>(t.column)].type;
    if (side_of(t.column) == state_side) {
      if (!IsTimestampType(type)) return std::nullopt;  // cannot be evaluated
      ++constraint_terms;
      if (t.sign != -1) return std::nullopt;  // no lower bound on the state side's time
      continue;
    }
    // The other side's column: only its watermarked timestamp has a value (the
    // watermark).
    if (!IsTimestampType(type) || marks[static_cast<size_t>(t.column)] < 0)
      return std::nullopt;
    b.wm_terms += t.sign;
  }
  if (constraint_terms != 1) return std::nullopt;
  return b;
}

}  // namespace

StreamJoinWatermarks AnalyzeStreamJoin(const BoundPlan& join) {
  StreamJoinWatermarks w;
  if (join.children.size() != 2) return w;
  const auto lm = EventTimeMarks(*join.children[0]);
  const auto rm = EventTimeMarks(*join.children[1]);
  const int lw = static_cast<int>(join.children[0]->output.size());
  auto marked = [](const BoundExprPtr& k, const std::vector<int64_t>& m) {
    const int c = k->column_index();
    return c >= 0 && static_cast<size_t>(c) < m.size() && m[static_cast<size_t>(c)] >= 0;
  };
  for (size_t i = 0; i < join.left_keys.size() && w.key_ordinal < 0; ++i) {
    if (marked(join.left_keys[i], lm)) w.key_ordinal = static_cast<int>(i);
  }
  for (size_t i = 0; i < join.right_keys.size() && w.key_ordinal < 0; ++i) {
    if (marked(join.right_keys[i], rm)) w.key_ordinal = static_cast<int>(i);
  }
  for (size_t i = 0; i < lm.size() && w.event_column[0] < 0; ++i) {
    if (lm[i] >= 0) w.event_column[0] = static_cast<int>(i);
  }
  for (size_t i = 0; i < rm.size() && w.event_column[1] < 0; ++i) {
    if (rm[i] >= 0) w.event_column[1] = static_cast<int>(i);
  }
  if (!join.condition) return w;
  // Columns of the condition: left ++ right.
  std::vector<sql::Attribute> attrs = join.children[0]->output;
  attrs.insert(attrs.end(), join.children[1]->output.begin(),
               join.children[1]->output.end());
  std::vector<int64_t> marks = lm;
  marks.resize(static_cast<size_t>(lw), -1);
  marks.insert(marks.end(), rm.begin(), rm.end());
  marks.resize(attrs.size(), -1);
  std::vector<BoundExprPtr> conjuncts;
  SplitConjuncts(join.condition, &conjuncts);
  for (int side = 0; side < 2; ++side) {
    // The other side needs a watermark at all.
    const int other = 1 - side;
    if (w.event_column[other] < 0) continue;
    StateValueWatermark v;
    for (const auto& c : conjuncts) {
      const std::string& op = c->call_name();
      if (c->children().size() != 2) continue;
      const BoundExpr& a = *c->children()[0];
      const BoundExpr& b = *c->children()[1];
      std::optional<StateValueWatermark::Bound> bound;
      if (op == "<" || op == "<=") bound = SolveLessThan(a, b, side, lw, attrs, marks);
      if (op == ">" || op == ">=") bound = SolveLessThan(b, a, side, lw, attrs, marks);
      if (!bound) continue;
      if (op == "<=" || op == ">=") bound->minus = 1;
      v.bounds.push_back(*bound);
    }
    if (!v.bounds.empty()) w.value[side] = std::move(v);
  }
  return w;
}

Status CheckStreamingQuery(const BoundPlan& plan, OutputMode mode) {
  std::vector<const BoundPlan*> aggregates;
  for (const BoundPlan* n : StatefulNodes(plan)) {
    if (*StatefulKindOf(*n) == StatefulKind::kAggregate) aggregates.push_back(n);
  }
  if (mode == OutputMode::kAppend && !aggregates.empty()) {
    const BoundPlan& a = *aggregates.front();
    auto marks = EventTimeMarks(a);
    bool keyed = false;
    for (size_t i = 0; i < a.group_exprs.size() && i < marks.size(); ++i)
      keyed |= marks[i] >= 0;
    if (!keyed) {
      return Status::Error("STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                           {{"outputMode", "append"},
                            {"operation", "streaming aggregations without watermark"}});
    }
  }
  if (mode == OutputMode::kUpdate && !aggregates.empty() &&
      HasSessionKey(*aggregates.front())) {
    return Legacy(
        "Update output mode not supported for session window on streaming "
        "DataFrames/DataSets");
  }
  if (mode == OutputMode::kComplete && aggregates.empty()) {
    return Status::Error(
        "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
        {{"outputMode", "complete"}, {"operation", "no streaming aggregations"}});
  }
  SPATE_RETURN_IF_ERROR(CheckNodes(plan, mode, nullptr, plan));
  // Several stateful operators chain with per-operator watermarks (Spark 3.5+,
  // spark.sql.streaming.statefulOperator.allowMultiple); several aggregations only in
  // Append mode.
  if (aggregates.size() > 1 && mode != OutputMode::kAppend) {
    return Legacy(
        "Multiple streaming aggregations are not supported with streaming "
        "DataFrames/Datasets");
  }
  return Status::OK();
}

// ---- Predicate pushdown (Spark's PushPredicateThroughJoin and
// PushPredicateThroughNonJoin for Project and EventTimeWatermark, with CombineFilters).

namespace {

// `inner`, an expression over an outer column space, evaluated over a batch of another
// space: outer column j is `slots[j]` evaluated over the input (nullptr: not read). Its
// children are the slots it reads, so plan analysis (column pruning) sees the input
// columns it uses; its text is the inner expression's.
class RemappedExpr final : public BoundExpr {
 public:
  RemappedExpr(BoundExprPtr inner, std::vector<BoundExprPtr> slots,
               std::vector<BoundExprPtr> used)
      : BoundExpr(inner->type(), inner->nullable(), std::move(used)),
        inner_(std::move(inner)),
        slots_(std::move(slots)) {
    std::vector<Field> fields;
    DataTypePtr any = children_.at(0)->type();
    for (const auto& s : slots_) fields.push_back(Field{"_", s ? s->type() : any, true});
    schema_ = std::make_shared<const Schema>(std::move(fields));
  }
  Result<ColumnPtr> Evaluate(const Batch& input, const EvalContext& ctx) const override {
    std::vector<ColumnPtr> cols(slots_.size());
    ColumnPtr any;
    for (size_t j = 0; j < slots_.size(); ++j) {
      if (!slots_[j]) continue;
      SPATE_ASSIGN_OR_RETURN(cols[j], slots_[j]->Evaluate(input, ctx));
      any = cols[j];
    }
    // The slots the expression does not read hold any column of the batch's length.
    for (auto& c : cols) {
      if (!c) c = any;
    }
    const Batch view(schema_, std::move(cols), input.num_rows());
    return inner_->Evaluate(view, ctx);
  }
  bool IsConstant() const override { return false; }
  bool IsNondeterministic() const override {
    if (inner_->IsNondeterministic()) return true;
    for (const auto& c : children_) {
      if (c->IsNondeterministic()) return true;
    }
    return false;
  }
  std::string ToString() const override { return inner_->ToString(); }

 private:
  BoundExprPtr inner_;
  std::vector<BoundExprPtr> slots_;
  SchemaPtr schema_;
};

std::set<int> RefsOf(const BoundExprPtr& e) {
  std::vector<int> refs;
  CollectColumnRefs(*e, &refs);
  return {refs.begin(), refs.end()};
}

// `e` (over an outer space of `width` columns) over a child whose column k computes outer
// column k + `offset` as `exprs[k]` (nullptr: a plain reference to child column k).
BoundExprPtr Substitute(const BoundExprPtr& e, int width, int offset,
                        const std::vector<BoundExprPtr>* exprs,
                        const std::vector<sql::Attribute>& child_out) {
  const std::set<int> refs = RefsOf(e);
  if (refs.empty()) return e;
  std::vector<BoundExprPtr> slots(static_cast<size_t>(width));
  std::vector<BoundExprPtr> used;
  bool identity = true;
  for (int j : refs) {
    const int k = j - offset;
    BoundExprPtr s;
    if (exprs) {
      s = (*exprs)[static_cast<size_t>(k)];
    } else {
      const sql::Attribute& a = child_out[static_cast<size_t>(k)];
      s = MakeColumnRef(k, a.type, a.nullable, a.Label());
    }
    identity &= s->column_index() == j;
    slots[static_cast<size_t>(j)] = s;
    used.push_back(s);
  }
  if (identity) return e;
  if (e->column_index() >= 0) return used[0];
  return std::make_shared<RemappedExpr>(e, std::move(slots), std::move(used));
}

BoundExprPtr AndOf(const std::vector<BoundExprPtr>& conj) {
  if (conj.empty()) return nullptr;
  BoundExprPtr out = conj[0];
  const ScalarResolver* and_fn = FunctionRegistry::Global().FindScalar("and");
  for (size_t i = 1; i < conj.size(); ++i) {
    auto r = (*and_fn)({out, conj[i]}, ResolveContext{});
    if (!r.ok()) return nullptr;
    out = *r;
  }
  return out;
}

sql::BoundPlanPtr FilterOver(const std::vector<BoundExprPtr>& conj,
                             sql::BoundPlanPtr child) {
  if (conj.empty()) return child;
  auto f = std::make_shared<BoundPlan>(BoundKind::kFilter);
  f->condition = AndOf(conj);
  f->output = child->output;
  f->children = {std::move(child)};
  return f;
}

// The conjuncts that may move: the deterministic ones before the first nondeterministic
// one (Spark's `span(_.deterministic)`); the others stay where they are.
size_t MovablePrefix(const std::vector<BoundExprPtr>& conj) {
  size_t n = 0;
  while (n < conj.size() && !conj[n]->IsNondeterministic()) ++n;
  return n;
}

// Sides of conjuncts over a join's output (left columns [0, nleft)): 0 left only (or no
// columns), 1 right only, 2 both; nondeterministic conjuncts and those after them: 2.
std::vector<int> SidesOf(const std::vector<BoundExprPtr>& conj, int nleft) {
  std::vector<int> sides(conj.size(), 2);
  const size_t movable = MovablePrefix(conj);
  for (size_t i = 0; i < movable; ++i) {
    const std::set<int> refs = RefsOf(conj[i]);
    if (refs.empty() || *refs.rbegin() < nleft) {
      sides[i] = 0;
    } else if (*refs.begin() >= nleft) {
      sides[i] = 1;
    }
  }
  return sides;
}

// Spark's canFilterOutNull: whether a deterministic predicate is NULL or false when the
// columns it reads are all NULL (so it drops a join's NULL-padded rows).
bool FiltersOutNulls(const BoundExprPtr& e, const std::vector<sql::Attribute>& columns) {
  if (e->IsNondeterministic() || RefsOf(e).empty()) return false;
  std::vector<ColumnPtr> nulls;
  std::vector<Field> fields;
  for (const auto& a : columns) {
    nulls.push_back(Column::MakeNull(a.type, 1));
    fields.push_back(Field{a.name, a.type, true});
  }
  const Batch row(std::make_shared<const Schema>(std::move(fields)), std::move(nulls), 1);
  auto v = e->Evaluate(row, EvalContext{});
  if (!v.ok()) return false;
  const Value x = (*v)->GetValue(0);
  return x.is_null() || x.i64() == 0;
}

// Spark's EliminateOuterJoin: the join type once the conjuncts of a filter above it drop
// the NULL-padded rows of a side (a left outer join whose filter needs a right column
// not NULL is an inner join).
JoinType WithoutNullPadding(const BoundPlan& join,
                            const std::vector<BoundExprPtr>& conj) {
  const JoinType t = join.join_type;
  if (t != JoinType::kLeftOuter && t != JoinType::kRightOuter &&
      t != JoinType::kFullOuter)
    return t;
  const int nleft = static_cast<int>(join.child()->output.size());
  bool left_kept = false, right_kept = false;  // a side's NULL padding is dropped
  for (const auto& e : conj) {
    const std::set<int> refs = RefsOf(e);
    if (refs.empty() || !FiltersOutNulls(e, join.output)) continue;
    if (*refs.rbegin() < nleft) left_kept = true;
    if (*refs.begin() >= nleft) right_kept = true;
  }
  switch (t) {
    case JoinType::kLeftOuter:
      return right_kept ? JoinType::kInner : t;
    case JoinType::kRightOuter:
      return left_kept ? JoinType::kInner : t;
    default:
      return left_kept && right_kept ? JoinType::kInner
             : left_kept             ? JoinType::kLeftOuter
             : right_kept            ? JoinType::kRightOuter
                                     : t;
  }
}

// `e`, over a join's output, over its right child's columns.
BoundExprPtr ToRightSide(const BoundExprPtr& e, const BoundPlan& join) {
  const int nleft = static_cast<int>(join.child()->output.size());
  const std::vector<sql::Attribute>& right = join.children[1]->output;
  return Substitute(e, nleft + static_cast<int>(right.size()), nleft, nullptr, right);
}

// Moves the conjuncts over one side of `join`'s output that may go into it: to `left`
// those over the left side when `to_left`, to `right` (over the right child's columns)
// those over the right side when `to_right`. Returns the positions of the others.
std::vector<size_t> SplitBySide(const std::vector<BoundExprPtr>& conj,
                                const BoundPlan& join, bool to_left, bool to_right,
                                std::vector<BoundExprPtr>* left,
                                std::vector<BoundExprPtr>* right) {
  const std::vector<int> sides =
      SidesOf(conj, static_cast<int>(join.child()->output.size()));
  std::vector<size_t> rest;
  for (size_t i = 0; i < conj.size(); ++i) {
    if (sides[i] == 0 && to_left) {
      left->push_back(conj[i]);
    } else if (sides[i] == 1 && to_right) {
      right->push_back(ToRightSide(conj[i], join));
    } else {
      rest.push_back(i);
    }
  }
  return rest;
}

sql::BoundPlanPtr Push(const sql::BoundPlanPtr& p);

// Filter(conj) over `child` (not yet pushed into), with the conjuncts moved down as far
// as Spark moves them. `filter`: the plan's Filter node of exactly these conjuncts over
// `child`, kept where nothing moves (nullptr: a new one).
sql::BoundPlanPtr Place(std::vector<BoundExprPtr> conj, const sql::BoundPlanPtr& child,
                        const sql::BoundPlanPtr& filter = nullptr) {
  if (conj.empty()) return Push(child);
  const BoundPlan& c = *child;
  const int width = static_cast<int>(c.output.size());
  switch (c.kind) {
    case BoundKind::kFilter: {  // CombineFilters: the lower filter's conjuncts first
      if (c.children.size() != 1 || !c.condition || c.condition->IsNondeterministic())
        break;
      std::vector<BoundExprPtr> all;
      SplitConjuncts(c.condition, &all);
      all.insert(all.end(), conj.begin(), conj.end());
      return Place(std::move(all), c.child());
    }
    case BoundKind::kProject: {
      if (c.children.size() != 1) break;
      // The whole condition moves below a deterministic projection.
      bool deterministic = true;
      for (const auto& e : c.exprs) deterministic &= !e->IsNondeterministic();
      if (!deterministic) break;
      std::vector<BoundExprPtr> down;
      for (const auto& e : conj)
        down.push_back(Substitute(e, width, 0, &c.exprs, c.child()->output));
      auto copy = std::make_shared<BoundPlan>(c);
      copy->children = {Place(std::move(down), c.child())};
      return copy;
    }
    case BoundKind::kWatermark: {
      // A deterministic conjunct that does not read the event-time column goes below
      // withWatermark (wherever it stands in the condition, as Spark partitions them),
      // so the watermark comes from the rows that pass it.
      if (c.children.size() != 1) break;
      std::vector<BoundExprPtr> down, stay;
      for (const auto& e : conj) {
        const bool moves =
            !e->IsNondeterministic() && !RefsOf(e).count(c.watermark_column);
        (moves ? down : stay).push_back(e);
      }
      if (down.empty()) break;
      auto copy = std::make_shared<BoundPlan>(c);
      copy->children = {Place(std::move(down), c.child())};
      return FilterOver(stay, copy);
    }
    case BoundKind::kJoin: {
      if (c.children.size() != 2) break;
      const int nleft = static_cast<int>(c.child()->output.size());
      std::vector<BoundExprPtr> left, right, stay, into_join;
      std::vector<std::tuple<BoundExprPtr, BoundExprPtr, bool>> keys;
      const size_t movable = MovablePrefix(conj);
      const JoinType t = WithoutNullPadding(c, conj);
      const bool inner = t == JoinType::kInner || t == JoinType::kCross;
      const bool to_left = inner || t == JoinType::kLeftOuter ||
                           t == JoinType::kLeftSemi || t == JoinType::kLeftAnti;
      const bool to_right = inner || t == JoinType::kRightOuter;
      for (size_t i : SplitBySide(conj, c, to_left, to_right, &left, &right)) {
        if (!inner || i >= movable) {
          stay.push_back(conj[i]);
          continue;
        }
        // An inner join's condition over both sides; an equality between an expression
        // of each side becomes a join key (Spark's ExtractEquiJoinKeys).
        const std::string& op = conj[i]->call_name();
        const auto& ch = conj[i]->children();
        if ((op == "=" || op == "<=>") && ch.size() == 2 && !RefsOf(ch[0]).empty() &&
            !RefsOf(ch[1]).empty()) {
          const std::vector<int> s2 = SidesOf(ch, nleft);
          if (s2[0] != 2 && s2[1] != 2 && s2[0] != s2[1]) {
            const size_t l = s2[0] == 0 ? 0 : 1;
            keys.emplace_back(ch[l], ToRightSide(ch[1 - l], c), op == "<=>");
            continue;
          }
        }
        into_join.push_back(conj[i]);
      }
      if (left.empty() && right.empty() && into_join.empty() && keys.empty() &&
          t == c.join_type)
        break;
      auto copy = std::make_shared<BoundPlan>(c);
      copy->join_type = t;
      for (auto& [l, r, null_safe] : keys) {
        copy->left_keys.push_back(l);
        copy->right_keys.push_back(r);
        copy->null_safe_keys.push_back(null_safe);
      }
      copy->children = {FilterOver(left, c.children[0]),
                        FilterOver(right, c.children[1])};
      if (!into_join.empty()) {
        std::vector<BoundExprPtr> cond;
        SplitConjuncts(c.condition, &cond);
        into_join.insert(into_join.end(), cond.begin(), cond.end());
        copy->condition = AndOf(into_join);
      }
      return FilterOver(stay, Push(copy));
    }
    default:
      break;
  }
  sql::BoundPlanPtr kid = Push(child);
  if (!filter) return FilterOver(conj, kid);
  if (kid == child) return filter;
  auto copy = std::make_shared<BoundPlan>(*filter);
  copy->children = {std::move(kid)};
  return copy;
}

sql::BoundPlanPtr Push(const sql::BoundPlanPtr& p) {
  if (!p) return p;
  const BoundPlan& n = *p;
  if (n.kind == BoundKind::kFilter && n.children.size() == 1 && n.condition) {
    std::vector<BoundExprPtr> conj;
    SplitConjuncts(n.condition, &conj);
    return Place(std::move(conj), n.child(), p);
  }
  std::vector<sql::BoundPlanPtr> kids = n.children;
  BoundExprPtr condition = n.condition;
  if (n.kind == BoundKind::kJoin && n.children.size() == 2 && n.condition) {
    // A join condition's one-side conjuncts go into that side where no row of it is
    // kept for its own sake: both sides of an inner join, the left of a left semi join,
    // the right of a left outer or anti join, the left of a right outer one.
    std::vector<BoundExprPtr> conj;
    SplitConjuncts(n.condition, &conj);
    const JoinType t = n.join_type;
    const bool inner = t == JoinType::kInner || t == JoinType::kCross;
    std::vector<BoundExprPtr> left, right, stay;
    for (size_t i : SplitBySide(
             conj, n, inner || t == JoinType::kLeftSemi || t == JoinType::kRightOuter,
             inner || t == JoinType::kLeftSemi || t == JoinType::kLeftOuter ||
                 t == JoinType::kLeftAnti,
             &left, &right))
      stay.push_back(conj[i]);
    if (!left.empty() || !right.empty()) {
      kids = {FilterOver(left, kids[0]), FilterOver(right, kids[1])};
      condition = AndOf(stay);
    }
  }
  bool same = condition == n.condition;
  for (auto& k : kids) {
    auto pushed = Push(k);
    same &= pushed == k;
    k = std::move(pushed);
  }
  if (same) return p;
  auto copy = std::make_shared<BoundPlan>(n);
  copy->children = std::move(kids);
  copy->condition = condition;
  return copy;
}

}  // namespace

sql::BoundPlanPtr PushDownPredicates(const sql::BoundPlanPtr& plan) { return Push(plan); }

}  // namespace spate::stream
