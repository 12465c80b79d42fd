// Copyright spate authors.
// The analyzer: window functions (binding, frames, Spark's display names).

#include "spate/sql/analyzer_internal.h"

namespace spate::sql {

namespace {

bool ContainsWindowNode(const Expr& e) {
  if (e.kind == ExprKind::kWindow) return true;
  for (const auto& c : e.children) {
    if (c && ContainsWindowNode(*c)) return true;
  }
  return false;
}

FrameBound Bound(FrameBound::Type type, int64_t offset = 0) {
  FrameBound b;
  b.type = type;
  if (type == FrameBound::Type::kPreceding || type == FrameBound::Type::kFollowing) {
    b.offset = Expr::Lit(Value::Int(static_cast<int32_t>(offset)));
  }
  return b;
}

}  // namespace

// Spark's name for a window expression: the spec with its resolved frame, e.g.
// "row_number() OVER (ORDER BY x ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND
// CURRENT ROW)", and lag/lead with all their arguments.
std::string WindowDisplayName(const Expr& e) {
  const Expr& fn = *e.children[0];
  WindowDef def = *e.window;
  ExprPtr call = e.children[0];
  using T = FrameBound::Type;
  static const std::set<std::string> kRanking = {
      "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile"};
  if (kRanking.count(fn.name)) {
    def.frame = WindowFrame{WindowFrame::Kind::kRows, Bound(T::kUnboundedPreceding),
                            Bound(T::kCurrentRow)};
  } else if (fn.name == "lag" || fn.name == "lead") {
    std::vector<ExprPtr> args = fn.children;
    if (args.size() < 2) args.push_back(Expr::Lit(Value::Int(1)));
    if (args.size() < 3) args.push_back(Expr::Lit(Value::Null(DataType::Null())));
    int64_t offset = args[1]->kind == ExprKind::kLiteral ? args[1]->literal.i64() : 1;
    if (fn.name == "lag") offset = -offset;
    def.frame = WindowFrame{WindowFrame::Kind::kRows, Bound(T::kFollowing, offset),
                            Bound(T::kFollowing, offset)};
    call = fn.WithChildren(std::move(args));
  } else if (!def.frame) {
    if (def.order_by.empty()) {
      def.frame = WindowFrame{WindowFrame::Kind::kRows, Bound(T::kUnboundedPreceding),
                              Bound(T::kUnboundedFollowing)};
    } else {
      def.frame = WindowFrame{WindowFrame::Kind::kRange, Bound(T::kUnboundedPreceding),
                              Bound(T::kCurrentRow)};
    }
  }
  return Expr::Window(call, def)->DisplayName();
}

namespace {

// Replaces window expressions by copies carrying their resolved frames, for naming.
ExprPtr WithResolvedWindowNames(const ExprPtr& e) {
  if (e->kind == ExprKind::kWindow) {
    // A column reference whose display text is the full window name.
    return Expr::Col(std::vector<std::string>{WindowDisplayName(*e)});
  }
  bool changed = false;
  std::vector<ExprPtr> kids;
  for (const auto& c : e->children) {
    kids.push_back(c ? WithResolvedWindowNames(c) : c);
    changed |= kids.back() != c;
  }
  return changed ? e->WithChildren(std::move(kids)) : e;
}

}  // namespace

std::string ItemName(const Expr& e) {
  if (e.kind == ExprKind::kAlias) return e.name;
  if (e.kind == ExprKind::kWindow) return WindowDisplayName(e);
  for (const auto& c : e.children) {
    if (c && ContainsWindowNode(*c))
      return WithResolvedWindowNames(std::make_shared<Expr>(e))->DisplayName();
  }
  return e.DisplayName();
}

Result<WindowCall> Analyzer::Impl::BindWindow(const Expr& e,
                                              const std::vector<Attribute>& scope,
                                              const BindHook* hook) {
  const Expr& fn = *e.children[0];
  const WindowDef& spec = *e.window;
  WindowCall w;
  w.text = e.DisplayName();
  for (const auto& pexpr : spec.partition_by) {
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*pexpr, scope, hook));
    w.partition_by.push_back(b);
  }
  SPATE_ASSIGN_OR_RETURN(w.order_by, BindSortKeys(spec.order_by, scope, hook));
  if (fn.kind != ExprKind::kCall) {
    return Status::Error("UNSUPPORTED_EXPR_FOR_WINDOW",
                         {{"sqlExpr", "\"" + fn.DisplayName() + "\""}});
  }
  for (const auto& a : fn.children) {
    if (a->kind == ExprKind::kStar) continue;  // count(*)
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*a, scope, hook));
    w.args.push_back(b);
  }
  const std::string& name = fn.name;
  // WITHIN GROUP aggregates (percentile_cont / _disc, listagg) take neither ORDER BY nor
  // a frame in OVER; their keys follow the arguments.
  std::vector<OrderDirection> within;
  if (!fn.within_group.empty() || name == "percentile_cont" ||
      name == "percentile_disc") {
    if (!spec.order_by.empty() || spec.frame) {
      std::string text = name + "(";
      std::vector<std::string> parts;
      if (name.starts_with("percentile") && !fn.within_group.empty() && !w.args.empty()) {
        parts = {fn.within_group[0].expr->DisplayName(), fn.children[0]->DisplayName()};
      } else {
        for (const auto& c : fn.children) parts.push_back(c->DisplayName());
        for (const auto& s : fn.within_group) {
          parts.push_back(s.expr->DisplayName() + (s.ascending ? " ASC" : " DESC") +
                          (s.nulls_first ? " NULLS FIRST" : " NULLS LAST"));
        }
      }
      for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
      return Status::Error("INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC",
                           {{"aggFunc", "\"" + text + ")\""}});
    }
    for (const auto& s : fn.within_group) {
      SPATE_ASSIGN_OR_RETURN(auto k, Bind(*s.expr, scope, hook));
      w.args.push_back(std::move(k));
      within.push_back(OrderDirection{s.ascending, s.nulls_first});
    }
  }
  w.nullable = false;  // the ranking functions; lag/lead and aggregates set their own
  if (name == "row_number") {
    w.kind = WindowFunctionKind::kRowNumber, w.type = DataType::Int();
  } else if (name == "rank") {
    w.kind = WindowFunctionKind::kRank, w.type = DataType::Int();
  } else if (name == "dense_rank") {
    w.kind = WindowFunctionKind::kDenseRank, w.type = DataType::Int();
  } else if (name == "percent_rank") {
    w.kind = WindowFunctionKind::kPercentRank, w.type = DataType::Double();
  } else if (name == "cume_dist") {
    w.kind = WindowFunctionKind::kCumeDist, w.type = DataType::Double();
  } else if (name == "ntile") {
    w.kind = WindowFunctionKind::kNtile, w.type = DataType::Int();
    const Value* buckets = w.args.size() == 1 ? w.args[0]->literal_value() : nullptr;
    if (!buckets || buckets->is_null() || !buckets->type()->IsIntegral()) {
      return Status::Error("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                           {{"sqlExpr", "\"" + fn.DisplayName() + "\""},
                            {"inputName", "`buckets`"},
                            {"inputType", "\"INT\""},
                            {"inputExpr", "\"" + fn.DisplayName() + "\""}});
    }
    if (buckets->i64() <= 0) {
      return Status::Error("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                           {{"sqlExpr", "\"" + fn.DisplayName() + "\""},
                            {"exprName", "`buckets`"},
                            {"valueRange", "(0, 2147483647]"},
                            {"currentValue", std::to_string(buckets->i64())}});
    }
  } else if (name == "lag" || name == "lead") {
    w.kind = name == "lag" ? WindowFunctionKind::kLag : WindowFunctionKind::kLead;
    if (w.args.empty()) {
      return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                           {{"functionName", "`" + name + "`"},
                            {"expectedNum", "[1, 2, 3]"},
                            {"actualNum", "0"}});
    }
    w.type = w.args[0]->type();
    if (w.args.size() < 2) w.args.push_back(MakeLiteral(Value::Int(1)));
    if (w.args.size() < 3) w.args.push_back(MakeLiteral(Value::Null(w.type)));
    SPATE_ASSIGN_OR_RETURN(w.args[2], ImplicitCast(w.args[2], w.type));
    w.nullable = true;  // past the partition's edge without a default
  } else if (name == "nth_value") {
    SPATE_RETURN_IF_ERROR(BindNthValue(fn, &w));
    if (w.order_by.empty()) {
      std::string call = fn.DisplayName();
      return Status::Error("WINDOW_FUNCTION_FRAME_NOT_ORDERED",
                           {{"wf_name", name}, {"wf_expr", call}});
    }
  } else if (FunctionRegistry::Global().KindOf(name) == FunctionKind::kAggregate) {
    w.kind = WindowFunctionKind::kAggregate;
    if (fn.is_distinct && !within.empty()) {
      return Status::Error("DISTINCT_WINDOW_FUNCTION_UNSUPPORTED",
                           {{"windowExpr", "\"" + e.DisplayName() + "\""}});
    }
    SPATE_ASSIGN_OR_RETURN(w.aggregate, MakeAggregate(name, w.args, fn.is_distinct,
                                                      fn.ignore_nulls, within));
    w.type = w.aggregate->result_type();
    w.nullable = w.aggregate->nullable();
  } else {
    return Status::Error("UNSUPPORTED_EXPR_FOR_WINDOW",
                         {{"sqlExpr", "\"" + fn.DisplayName() + "\""}});
  }
  // Frame.
  if (spec.frame) {
    const WindowFrame& f = *spec.frame;
    w.frame.kind = f.kind;
    auto bound = [&](const FrameBound& b, bool* unbounded, int64_t* offset,
                     bool* current) -> Status {
      *unbounded = b.type == FrameBound::Type::kUnboundedPreceding ||
                   b.type == FrameBound::Type::kUnboundedFollowing;
      *current = b.type == FrameBound::Type::kCurrentRow;
      *offset = 0;
      if (b.type == FrameBound::Type::kPreceding ||
          b.type == FrameBound::Type::kFollowing) {
        SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*b.offset, "frame boundary"));
        int64_t x = v.type()->IsFloating() ? static_cast<int64_t>(v.f64()) : v.i64();
        *offset = b.type == FrameBound::Type::kPreceding ? -x : x;
      }
      return Status::OK();
    };
    SPATE_RETURN_IF_ERROR(bound(f.lower, &w.frame.lower_unbounded, &w.frame.lower_offset,
                                &w.frame.lower_current));
    SPATE_RETURN_IF_ERROR(bound(f.upper, &w.frame.upper_unbounded, &w.frame.upper_offset,
                                &w.frame.upper_current));
    // The lower bound must not come after the upper bound (Spark's SpecifiedWindowFrame).
    auto position = [](const FrameBound& b, int64_t offset) -> long double {
      switch (b.type) {
        case FrameBound::Type::kUnboundedPreceding:
          return -1e300L;
        case FrameBound::Type::kUnboundedFollowing:
          return 1e300L;
        case FrameBound::Type::kCurrentRow:
          return 0;
        default:
          return static_cast<long double>(offset);
      }
    };
    std::string frame_sql =
        std::string(f.kind == WindowFrame::Kind::kRows ? "ROWS" : "RANGE");
    if (f.lower.type == FrameBound::Type::kUnboundedFollowing ||
        f.upper.type == FrameBound::Type::kUnboundedPreceding) {
      return Status::Error(
          "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_INVALID_BOUND",
          {{"sqlExpr", "\"" + e.DisplayName() + "\""},
           {"lower", f.lower.type == FrameBound::Type::kUnboundedFollowing
                         ? "\"UNBOUNDED FOLLOWING\""
                         : "\"lower\""},
           {"upper", f.upper.type == FrameBound::Type::kUnboundedPreceding
                         ? "\"UNBOUNDED PRECEDING\""
                         : "\"upper\""}});
    }
    if (position(f.lower, w.frame.lower_offset) >
        position(f.upper, w.frame.upper_offset)) {
      return Status::Error("DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON",
                           {{"sqlExpr", "\"" + e.DisplayName() + "\""},
                            {"comparison", "less than or equal"}});
    }
  } else if (!w.order_by.empty()) {
    w.frame.kind = WindowFrame::Kind::kRange;
    w.frame.lower_unbounded = true;
    w.frame.upper_unbounded = false;
    w.frame.upper_current = true;
  } else {
    w.frame.kind = WindowFrame::Kind::kRows;
    w.frame.lower_unbounded = true;
    w.frame.upper_unbounded = true;
    w.frame.upper_current = false;
  }
  return w;
}

Status Analyzer::Impl::BindNthValue(const Expr& fn, WindowCall* w) {
  if (w->args.size() < 2 || w->args.size() > 3) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`nth_value`"},
                          {"expectedNum", "[2, 3]"},
                          {"actualNum", std::to_string(w->args.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}});
  }
  const std::string text = "\"nth_value(" + fn.children[0]->DisplayName() + ", " +
                           fn.children[1]->DisplayName() + ")\"";
  const BoundExprPtr& off = w->args[1];
  if (!off->IsConstant()) {
    return Status::Error("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                         {{"sqlExpr", text},
                          {"inputName", "`offset`"},
                          {"inputType", "\"INT\""},
                          {"inputExpr", "\"" + fn.children[1]->DisplayName() + "\""}});
  }
  EvalContext ctx;
  ctx.ansi = true;  // the offset is cast to INT as an ANSI cast (CAST_OVERFLOW past INT)
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  SPATE_ASSIGN_OR_RETURN(ColumnPtr col, off->Evaluate(*one, ctx));
  Value v = col->GetValue(0);
  int64_t offset = 0;
  if (!v.is_null()) {
    SPATE_ASSIGN_OR_RETURN(Value i, CastValue(v, DataType::Int(), CastMode::kAnsi, ctx));
    offset = i.is_null() ? 0 : i.i64();
  }
  if (offset <= 0) {
    return Status::Error("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                         {{"sqlExpr", text},
                          {"exprName", "offset"},
                          {"valueRange", "(0, 9223372036854775807]"},
                          {"currentValue", std::to_string(offset) + "L"}});
  }
  bool ignore = fn.ignore_nulls;
  if (w->args.size() == 3) {
    const Value* b = w->args[2]->literal_value();
    if (!b || b->is_null() || b->type()->id() != TypeId::kBoolean) {
      return Status::Error(
          "INVALID_PARAMETER_VALUE.BOOLEAN",
          {{"parameter", "`ignoreNulls`"},
           {"functionName", "`nth_value`"},
           {"invalidValue", "\"" + fn.children[2]->DisplayName() + "\""}});
    }
    ignore |= b->i64() != 0;
  }
  w->kind = WindowFunctionKind::kNthValue;
  w->type = w->args[0]->type();
  w->nullable = true;
  w->args = {w->args[0], MakeLiteral(Value::Long(offset)),
             MakeLiteral(Value::Boolean(ignore))};
  return Status::OK();
}

}  // namespace spate::sql
