// Copyright spate authors.
#include "spate/sql/time_window.h"

#include <cstdlib>
#include <string>

#include "spate/compute/aggregate.h"
#include "spate/compute/cast.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/generators.h"
#include "spate/compute/predicates.h"
#include "spate/compute/time_window.h"
#include "spate/sql/parser_literals.h"

namespace spate::sql {

namespace {

bool IsWindowCall(const Expr& e) {
  return e.kind == ExprKind::kCall && (e.name == "window" || e.name == "session_window");
}

void Collect(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (!e) return;
  if (IsWindowCall(*e)) {
    out->push_back(e);
    return;
  }
  for (const auto& c : e->children) Collect(c, out);
}

ExprPtr Replace(const ExprPtr& e, const std::string& text, const ExprPtr& ref) {
  if (!e) return e;
  if (IsWindowCall(*e) && e->DisplayName() == text) return ref;
  bool changed = false;
  std::vector<ExprPtr> kids;
  kids.reserve(e->children.size());
  for (const auto& c : e->children) {
    kids.push_back(Replace(c, text, ref));
    changed |= kids.back() != c;
  }
  return changed ? e->WithChildren(std::move(kids)) : e;
}

bool Contains(const ExprPtr& e, const std::string& text) {
  if (!e) return false;
  if (IsWindowCall(*e) && e->DisplayName() == text) return true;
  for (const auto& c : e->children) {
    if (Contains(c, text)) return true;
  }
  return false;
}

Result<BoundExprPtr> CallScalar(const std::string& name, std::vector<BoundExprPtr> args) {
  const ScalarResolver* r = FunctionRegistry::Global().FindScalar(name);
  if (!r) return Status::Internal("missing builtin " + name);
  ResolveContext rc;
  return (*r)(std::move(args), rc);
}

BoundExprPtr Ref(const BoundPlan& plan, size_t i) {
  const Attribute& a = plan.output[i];
  return MakeColumnRef(static_cast<int>(i), a.type, a.nullable, a.Label());
}

// TimeWindow.parseExpression: string literals are interval strings (no months), integer
// and long literals are microseconds. Day-time interval literals are accepted as well.
Result<int64_t> Duration(const Value& v) {
  if (v.is_null()) return Status::Error("_LEGACY_ERROR_TEMP_1207");
  switch (v.type()->id()) {
    case TypeId::kString: {
      std::string s = v.str();
      SPATE_ASSIGN_OR_RETURN(Value iv, MakeIntervalFromString(s, s));
      if (iv.type()->id() == TypeId::kYearMonthInterval) {
        if (iv.i64() != 0)
          return Status::Error("_LEGACY_ERROR_TEMP_3231", {{"interval", s}});
        return int64_t{0};
      }
      return iv.i64();
    }
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDayTimeInterval:
      return v.i64();
    default:
      return Status::Error("_LEGACY_ERROR_TEMP_1207");
  }
}

Status Mismatch(const std::string& sql, const char* sub, std::vector<ErrorParam> params) {
  params.insert(params.begin(), {"sqlExpr", "\"" + sql + "\""});
  return Status::Error(std::string("DATATYPE_MISMATCH.") + sub, std::move(params));
}

}  // namespace

Status TimeWindowRewriter::Rewrite(BoundPlanPtr* child, std::vector<ExprPtr>* items,
                                   std::vector<ExprPtr>* group_by) const {
  std::vector<ExprPtr> calls;
  for (const auto& e : *items) Collect(e, &calls);
  for (const auto& e : *group_by) Collect(e, &calls);
  if (calls.empty()) return Status::OK();
  const std::string text = calls[0]->DisplayName();
  for (const auto& c : calls) {
    if (c->DisplayName() != text) {
      return Status::Error("_LEGACY_ERROR_TEMP_1039");
    }
  }
  const Expr& call = *calls[0];
  const bool session = call.name == "session_window";
  const std::string fname = session ? "session_window" : "window";
  const size_t nargs = call.children.size();
  if (session ? nargs != 2 : (nargs < 2 || nargs > 4)) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`" + fname + "`"},
                          {"expectedNum", session ? "2" : "[2, 3, 4]"},
                          {"actualNum", std::to_string(nargs)},
                          {"docroot", "https://spark.apache.org/docs/latest"}});
  }
  const BoundPlanPtr in = *child;
  const size_t width = in->output.size();

  // The time column: a timestamp (strings and dates cast implicitly), or a window struct
  // of an earlier aggregation (then its window_time).
  SPATE_ASSIGN_OR_RETURN(BoundExprPtr ts, bind(*call.children[0], in->output));
  if (ts->type()->id() == TypeId::kStruct) {
    SPATE_ASSIGN_OR_RETURN(ts, MakeWindowTimeExpr(ts));
  } else if (ts->type()->id() == TypeId::kString || ts->type()->id() == TypeId::kDate ||
             ts->type()->id() == TypeId::kNull) {
    SPATE_ASSIGN_OR_RETURN(ts, MakeExplicitCast(ts, DataType::Timestamp(), false, ansi));
  }
  if (ts->type()->id() != TypeId::kTimestamp &&
      ts->type()->id() != TypeId::kTimestampNtz) {
    return Mismatch(
        call.DisplayName(), "UNEXPECTED_INPUT_TYPE",
        {{"paramIndex", "first"},
         {"requiredType",
          "(\"TIMESTAMP\" or \"TIMESTAMP_NTZ\" or \"STRUCT<start: TIMESTAMP, end: "
          "TIMESTAMP>\" or \"STRUCT<start: TIMESTAMP_NTZ, end: TIMESTAMP_NTZ>\")"},
         {"inputSql", "\"" + call.children[0]->DisplayName() + "\""},
         {"inputType", QuoteType(*ts->type())}});
  }
  const DataTypePtr struct_type = WindowStructType(ts->type());
  std::vector<ExprPtr> keys_for_merge;  // session_window as a group key: the other keys
  bool merge = false;

  BoundPlanPtr out;
  if (!session) {
    TimeWindowParams p;
    std::vector<int64_t> d;
    for (size_t i = 1; i < nargs; ++i) {
      Result<Value> v = eval_constant(*call.children[i]);
      if (!v.ok()) return Status::Error("_LEGACY_ERROR_TEMP_1207");
      SPATE_ASSIGN_OR_RETURN(int64_t micros, Duration(*v));
      d.push_back(micros);
    }
    p.window = d[0];
    p.slide = d.size() > 1 ? d[1] : d[0];
    p.start = d.size() > 2 ? d[2] : 0;
    std::string sql = "window(" + call.children[0]->DisplayName() + ", " +
                      std::to_string(p.window) + ", " + std::to_string(p.slide) + ", " +
                      std::to_string(p.start) + ")";
    auto out_of_range = [&](const char* name, int64_t v) {
      return Mismatch(sql, "VALUE_OUT_OF_RANGE",
                      {{"exprName", std::string("`") + name + "`"},
                       {"valueRange", "(0, 9223372036854775807]"},
                       {"currentValue", std::to_string(v) + "L"}});
    };
    if (p.window <= 0) return out_of_range("window_duration", p.window);
    if (p.slide <= 0) return out_of_range("slide_duration", p.slide);
    if (p.slide > p.window) {
      return Mismatch(sql, "PARAMETER_CONSTRAINT_VIOLATION",
                      {{"leftExprName", "`slide_duration`"},
                       {"leftExprValue", std::to_string(p.slide) + "L"},
                       {"constraint", "<="},
                       {"rightExprName", "`window_duration`"},
                       {"rightExprValue", std::to_string(p.window) + "L"}});
    }
    int64_t abs_start = p.start < 0 ? -p.start : p.start;
    if (abs_start >= p.slide) {
      return Mismatch(sql, "PARAMETER_CONSTRAINT_VIOLATION",
                      {{"leftExprName", "`abs(start_time)`"},
                       {"leftExprValue", std::to_string(abs_start) + "L"},
                       {"constraint", "<"},
                       {"rightExprName", "`slide_duration`"},
                       {"rightExprValue", std::to_string(p.slide) + "L"}});
    }
    if (p.window == p.slide) {
      // Tumbling: Filter(ts IS NOT NULL) -> Project(child ++ window).
      SPATE_ASSIGN_OR_RETURN(BoundExprPtr not_null, CallScalar("isnotnull", {ts}));
      auto f = std::make_shared<BoundPlan>(BoundKind::kFilter);
      f->condition = not_null;
      f->output = in->output;
      f->children.push_back(in);
      auto proj = std::make_shared<BoundPlan>(BoundKind::kProject);
      for (size_t i = 0; i < width; ++i) {
        proj->exprs.push_back(Ref(*in, i));
        proj->output.push_back(in->output[i]);
      }
      proj->exprs.push_back(MakeTimeWindowExpr(ts, p, 0, sql));
      proj->output.push_back(make_attr("window", struct_type, false));
      proj->children.push_back(f);
      out = proj;
    } else {
      auto spec = std::make_shared<GeneratorSpec>();
      spec->name = "window";
      spec->time_window = true;
      spec->window_micros = p.window;
      spec->slide_micros = p.slide;
      spec->start_micros = p.start;
      spec->arg = ts;
      spec->output.push_back(Field{"window", struct_type, false});
      auto g = std::make_shared<BoundPlan>(BoundKind::kGenerate);
      g->output = in->output;
      g->output.push_back(make_attr("window", struct_type, false));
      g->children.push_back(in);
      g->generator = spec;
      out = g;
    }
  } else {
    // session_window(ts, gap): [ts, ts + gap).
    SPATE_ASSIGN_OR_RETURN(BoundExprPtr gap, bind(*call.children[1], in->output));
    bool filter_range = true;
    if (gap->IsConstant()) {
      SPATE_ASSIGN_OR_RETURN(Value gv, eval_constant(*call.children[1]));
      if (!gv.is_null()) {
        int64_t micros = 0;
        if (gv.type()->id() == TypeId::kString) {
          auto parsed = MakeIntervalFromString(gv.str(), gv.str());
          if (parsed.ok() && parsed->type()->id() == TypeId::kDayTimeInterval) {
            micros = parsed->i64();
            gap = MakeLiteral(*parsed);
            filter_range = micros <= 0;
          }
        } else if (gv.type()->id() == TypeId::kDayTimeInterval) {
          filter_range = gv.i64() <= 0;
        }
      }
    }
    SPATE_ASSIGN_OR_RETURN(BoundExprPtr end,
                           MakeSessionEndExpr(ts, gap, &MakeIntervalFromString));
    auto p1 = std::make_shared<BoundPlan>(BoundKind::kProject);
    for (size_t i = 0; i < width; ++i) {
      p1->exprs.push_back(Ref(*in, i));
      p1->output.push_back(in->output[i]);
    }
    p1->exprs.push_back(ts);
    p1->output.push_back(make_attr("__session_start", ts->type(), true));
    p1->exprs.push_back(end);
    p1->output.push_back(make_attr("__session_end", ts->type(), true));
    p1->children.push_back(in);
    BoundExprPtr s_ref = Ref(*p1, width), e_ref = Ref(*p1, width + 1);
    SPATE_ASSIGN_OR_RETURN(BoundExprPtr cond, CallScalar("isnotnull", {s_ref}));
    if (filter_range) {
      SPATE_ASSIGN_OR_RETURN(BoundExprPtr gt, CallScalar(">", {e_ref, s_ref}));
      SPATE_ASSIGN_OR_RETURN(cond, CallScalar("and", {cond, gt}));
    }
    auto f = std::make_shared<BoundPlan>(BoundKind::kFilter);
    f->condition = cond;
    f->output = p1->output;
    f->children.push_back(p1);
    BoundPlanPtr cur = f;

    // Is the session a grouping key? Then merge overlapping sessions of each group.
    for (const auto& g : *group_by) {
      ExprPtr ge = g;
      if (g->kind == ExprKind::kLiteral && g->literal.type()->IsIntegral()) {
        int64_t pos = g->literal.i64();
        if (pos >= 1 && pos <= static_cast<int64_t>(items->size())) {
          ge = (*items)[pos - 1];
          if (ge->kind == ExprKind::kAlias) ge = ge->children[0];
        }
      } else if (g->kind == ExprKind::kColumn && g->name_parts.size() == 1) {
        for (const auto& it : *items) {
          if (it->kind == ExprKind::kAlias && name_eq(it->name, g->name_parts[0]) &&
              Contains(it->children[0], text)) {
            ge = it->children[0];
          }
        }
      }
      if (Contains(ge, text)) {
        merge = true;
      } else {
        keys_for_merge.push_back(ge);
      }
    }
    BoundExprPtr s_col = s_ref, e_col = e_ref;
    if (merge) {
      std::vector<BoundExprPtr> keys;
      for (const auto& k : keys_for_merge) {
        auto b = bind(*k, in->output);
        if (!b.ok() && k->kind == ExprKind::kColumn && k->name_parts.size() == 1) {
          for (const auto& it : *items) {
            if (it->kind == ExprKind::kAlias && name_eq(it->name, k->name_parts[0])) {
              b = bind(*it->children[0], in->output);
            }
          }
        }
        if (!b.ok()) return b.status();
        keys.push_back(*b);
      }
      auto window_node = [&](BoundPlanPtr input, std::vector<WindowCall> calls,
                             const std::vector<std::string>& names) {
        auto w = std::make_shared<BoundPlan>(BoundKind::kWindow);
        w->output = input->output;
        for (size_t i = 0; i < calls.size(); ++i) {
          w->output.push_back(make_attr(names[i], calls[i].type, true));
        }
        w->windows = std::move(calls);
        w->children.push_back(std::move(input));
        return w;
      };
      auto agg_call = [&](const char* fn, BoundExprPtr arg,
                          std::vector<BoundExprPtr> part, std::vector<SortKey> order,
                          BoundFrame frame) -> Result<WindowCall> {
        WindowCall c;
        c.kind = WindowFunctionKind::kAggregate;
        SPATE_ASSIGN_OR_RETURN(c.aggregate, MakeAggregate(fn, {arg}, false, false));
        c.args = {arg};
        c.partition_by = std::move(part);
        c.order_by = std::move(order);
        c.frame = frame;
        c.type = c.aggregate->result_type();
        c.text = std::string(fn) + "(" + arg->ToString() + ") (session merge)";
        return c;
      };
      std::vector<SortKey> by_start = {SortKey{s_ref, true, true}};
      // 1. The largest end among the earlier sessions of the group.
      BoundFrame before;
      before.kind = WindowFrame::Kind::kRows;
      before.lower_unbounded = true;
      before.upper_unbounded = false;
      before.upper_current = false;
      before.upper_offset = -1;
      SPATE_ASSIGN_OR_RETURN(WindowCall prev_end,
                             agg_call("max", e_ref, keys, by_start, before));
      auto w1 = window_node(cur, {prev_end}, {"__prev_end"});
      // 2. A row starts a new session when it starts after that end.
      BoundExprPtr prev = Ref(*w1, width + 2);
      SPATE_ASSIGN_OR_RETURN(BoundExprPtr no_prev, CallScalar("isnull", {prev}));
      SPATE_ASSIGN_OR_RETURN(BoundExprPtr after, CallScalar(">", {s_ref, prev}));
      SPATE_ASSIGN_OR_RETURN(BoundExprPtr is_new_cond,
                             CallScalar("or", {no_prev, after}));
      SPATE_ASSIGN_OR_RETURN(BoundExprPtr is_new,
                             MakeCaseWhen({is_new_cond, MakeLiteral(Value::Long(1))},
                                          MakeLiteral(Value::Long(0))));
      auto p2 = std::make_shared<BoundPlan>(BoundKind::kProject);
      for (size_t i = 0; i < width + 2; ++i) {
        p2->exprs.push_back(Ref(*w1, i));
        p2->output.push_back(w1->output[i]);
      }
      p2->exprs.push_back(is_new);
      p2->output.push_back(make_attr("__new_session", DataType::Long(), false));
      p2->children.push_back(w1);
      // 3. Session number: running count of session starts; peers (same start) share it.
      BoundFrame running;  // RANGE UNBOUNDED PRECEDING .. CURRENT ROW
      SPATE_ASSIGN_OR_RETURN(
          WindowCall sid, agg_call("sum", Ref(*p2, width + 2), keys, by_start, running));
      auto w2 = window_node(p2, {sid}, {"__session_id"});
      // 4. The merged session: min start, max end per (group, session number).
      std::vector<BoundExprPtr> part = keys;
      part.push_back(Ref(*w2, width + 3));
      BoundFrame whole;
      whole.kind = WindowFrame::Kind::kRows;
      whole.lower_unbounded = true;
      whole.upper_unbounded = true;
      whole.upper_current = false;
      SPATE_ASSIGN_OR_RETURN(WindowCall ms, agg_call("min", s_ref, part, {}, whole));
      SPATE_ASSIGN_OR_RETURN(WindowCall me, agg_call("max", e_ref, part, {}, whole));
      auto w3 = window_node(w2, {ms, me}, {"__merged_start", "__merged_end"});
      s_col = Ref(*w3, width + 4);
      e_col = Ref(*w3, width + 5);
      cur = w3;
    }
    SPATE_ASSIGN_OR_RETURN(
        BoundExprPtr st,
        CallScalar("named_struct", {MakeLiteral(Value::String("start")), s_col,
                                    MakeLiteral(Value::String("end")), e_col}));
    auto p4 = std::make_shared<BoundPlan>(BoundKind::kProject);
    for (size_t i = 0; i < width; ++i) {
      p4->exprs.push_back(Ref(*cur, i));
      p4->output.push_back(cur->output[i]);
    }
    p4->exprs.push_back(st);
    p4->output.push_back(make_attr("session_window", st->type(), false));
    p4->children.push_back(cur);
    out = p4;
  }

  // Replace the call by a reference to exactly the new column.
  std::shared_ptr<BoundPlan> mut = std::const_pointer_cast<BoundPlan>(out);
  Attribute& attr = mut->output.back();
  int64_t tag = (int64_t{1} << 52) + attr.id;
  attr.plan_ids.push_back(tag);
  auto ref = std::make_shared<Expr>(ExprKind::kColumn);
  ref->name_parts = {attr.name};
  ref->plan_id = tag;
  for (auto& e : *items) e = Replace(e, text, ref);
  for (auto& e : *group_by) e = Replace(e, text, ref);
  *child = out;
  return Status::OK();
}

}  // namespace spate::sql
