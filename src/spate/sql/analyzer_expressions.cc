// Copyright spate authors.
// The analyzer: binding expressions (columns, struct fields, lambda variables, function
// calls, higher-order functions, stars, constants).

#include <optional>

#include "spate/base/text_parse.h"
#include "spate/compute/datetime_text.h"
#include "spate/compute/java_regex.h"
#include "spate/sql/analyzer_internal.h"

namespace spate::sql {

namespace {

// An update_fields call built by Column.withField / dropFields (not a SQL call of that
// name, which Spark does not have).
// Functions Spark registers only as table-valued functions: as a scalar expression they
// are NOT_A_SCALAR_FUNCTION, not UNRESOLVED_ROUTINE.
bool IsTableFunctionOnly(const std::string& name) {
  std::string n = ToLower(name);
  return n == "range" || n == "sql_keywords";
}

bool IsUpdateFields(const Expr& e) {
  return e.name == "update_fields" && e.children.size() > 1 &&
         std::all_of(e.children.begin() + 1, e.children.end(), [](const ExprPtr& op) {
           return op->kind == ExprKind::kCall && op->name_parts.size() == 1 &&
                  ((op->name == "withfield" && op->children.size() == 1) ||
                   (op->name == "dropfield" && op->children.empty()));
         });
}

// The index of struct type `t`'s field `name`; FIELD_NOT_FOUND or
// AMBIGUOUS_REFERENCE_TO_FIELDS (several fields of that name) as Spark.
Result<int> StructFieldIndex(const DataType& t, const std::string& name,
                             bool case_sensitive) {
  int idx = -1;
  int count = 0;
  for (size_t f = 0; f < t.fields().size(); ++f) {
    const std::string& n = t.fields()[f].name;
    if (case_sensitive ? n != name : !EqualsIgnoreCase(n, name)) continue;
    if (count++ == 0) idx = static_cast<int>(f);
  }
  if (count > 1) {
    return Status::Error(
        "AMBIGUOUS_REFERENCE_TO_FIELDS",
        {{"field", QuoteIdentifier({name})}, {"count", std::to_string(count)}});
  }
  if (idx < 0) {
    // Spark lists the fields without brackets: No such struct field `z` in `a`, `b`.
    std::string fields;
    for (size_t f = 0; f < t.fields().size(); ++f) {
      if (f) fields += ", ";
      fields += QuoteIdentifier({t.fields()[f].name});
    }
    return Status::Error("FIELD_NOT_FOUND",
                         {{"fieldName", QuoteIdentifier({name})}, {"fields", fields}});
  }
  return idx;
}

// A struct's star expansion (s.* -> s.f1, s.f2, ...) names each field and extracts it by
// its ordinal, as Spark's GetStructField: a struct may hold several fields of one name
// (the state reader's aggregation buffers do), which s.name would find ambiguous. The
// ordinal rides in the field expression's otherwise unused name_parts.
ExprPtr FieldAt(const ExprPtr& base, const std::string& name, size_t ordinal) {
  auto e = std::make_shared<Expr>(*Expr::Field(base, name));
  e->name_parts = {std::to_string(ordinal)};
  return e;
}

// The ordinal FieldAt put in `e`, when it still names that field of struct type `t`.
std::optional<int> FieldOrdinal(const Expr& e, const DataType& t) {
  if (e.name_parts.size() != 1) return std::nullopt;
  std::optional<int64_t> at = ParseInt64(e.name_parts[0]);
  if (!at || *at < 0 || *at >= static_cast<int64_t>(t.fields().size()) ||
      t.fields()[static_cast<size_t>(*at)].name != e.name) {
    return std::nullopt;
  }
  return static_cast<int>(*at);
}

Status NotConstant(const Expr& e, const char* what) {
  return Status::Error("INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE",
                       {{"name", what}, {"expr", "\"" + e.DisplayName() + "\""}});
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Expressions

Result<BoundExprPtr> Analyzer::Impl::ResolveColumn(const Expr& e,
                                                   const std::vector<Attribute>& scope) {
  const auto& parts = e.name_parts;
  // Candidates with a qualifier match consume 2 parts; name-only matches consume 1.
  std::vector<std::pair<int, int>> matches;  // (attr index, parts consumed)
  auto tagged = [&e](const Attribute& a) {
    return e.plan_id < 0 ||
           std::find(a.plan_ids.begin(), a.plan_ids.end(), e.plan_id) != a.plan_ids.end();
  };
  for (int consumed = std::min<int>(2, static_cast<int>(parts.size())); consumed >= 1;
       --consumed) {
    for (size_t i = 0; i < scope.size(); ++i) {
      const Attribute& a = scope[i];
      if (!tagged(a)) continue;
      if (consumed == 2) {
        if (!a.qualifier.empty() && NameEq(a.qualifier, parts[0]) &&
            NameEq(a.name, parts[1])) {
          matches.emplace_back(static_cast<int>(i), 2);
        }
      } else if (NameEq(a.name, parts[0])) {
        matches.emplace_back(static_cast<int>(i), 1);
      }
    }
    if (!matches.empty()) break;
  }
  if (matches.empty() && e.name == "current_user") {
    // USER / SESSION_USER / CURRENT_USER without a column of that name: the current user.
    const char* user = std::getenv("USER");
    return MakeLiteral(Value::String(user && *user ? user : "spate"));
  }
  if (matches.empty()) {
    // Like Spark, suggest names with as many parts as the reference has.
    std::string suggestion = SuggestColumns(parts.back(), scope, parts.size() > 1);
    if (suggestion.empty()) {
      return Status::Error("UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                           {{"objectName", QuoteIdentifier(parts)}})
          .WithPosition(e.position);
    }
    return Status::Error(
               "UNRESOLVED_COLUMN.WITH_SUGGESTION",
               {{"objectName", QuoteIdentifier(parts)}, {"proposal", suggestion}})
        .WithPosition(e.position);
  }
  if (matches.size() > 1) {
    std::string refs = "[";
    for (size_t k = 0; k < matches.size(); ++k) {
      const Attribute& a = scope[matches[k].first];
      if (k) refs += ", ";
      std::vector<std::string> qp;
      if (!a.qualifier.empty()) qp.push_back(a.qualifier);
      qp.push_back(a.name);
      refs += QuoteIdentifier(qp);
    }
    refs += "]";
    std::vector<std::string> used(parts.begin(), parts.begin() + matches[0].second);
    return Status::Error("AMBIGUOUS_REFERENCE",
                         {{"name", QuoteIdentifier(used)}, {"referenceNames", refs}})
        .WithPosition(e.position);
  }
  const Attribute& a = scope[matches[0].first];
  BoundExprPtr out = MakeColumnRef(matches[0].first, a.type, a.nullable, a.Label());
  // Remaining parts are struct fields.
  return ExtractFields(std::move(out), parts, static_cast<size_t>(matches[0].second));
}

Result<BoundExprPtr> Analyzer::Impl::ExtractFields(BoundExprPtr out,
                                                   const std::vector<std::string>& parts,
                                                   size_t from) {
  for (size_t k = from; k < parts.size(); ++k) {
    const DataTypePtr& t = out->type();
    if (t->id() != TypeId::kStruct) {
      return Status::Error(
          "INVALID_EXTRACT_BASE_FIELD_TYPE",
          {{"base", "\"" + out->ToString() + "\""}, {"other", QuoteType(*t)}});
    }
    SPATE_ASSIGN_OR_RETURN(int idx, StructFieldIndex(*t, parts[k], case_sensitive_));
    out = MakeGetStructField(out, idx);
  }
  return out;
}

Result<std::optional<BoundExprPtr>> Analyzer::Impl::ResolveLambdaVariable(const Expr& e) {
  if (e.name_parts.empty() || e.plan_id >= 0) return std::optional<BoundExprPtr>();
  int from_end = 0;
  for (size_t f = lambda_frames_.size(); f-- > 0;) {
    const LambdaFrame& frame = lambda_frames_[f];
    from_end += static_cast<int>(frame.params.size());
    for (size_t s = 0; s < frame.names.size(); ++s) {
      if (!NameEq(frame.names[s], e.name_parts[0])) continue;
      BoundExprPtr v =
          MakeLambdaVariable(from_end - static_cast<int>(s), frame.params[s].type,
                             frame.params[s].nullable, frame.names[s]);
      SPATE_ASSIGN_OR_RETURN(v, ExtractFields(std::move(v), e.name_parts, 1));
      return std::optional<BoundExprPtr>(std::move(v));
    }
  }
  return std::optional<BoundExprPtr>();
}

Result<BoundExprPtr> Analyzer::Impl::BindHigherOrder(const Expr& e,
                                                     const std::vector<Attribute>& scope,
                                                     const BindHook* hook) {
  const LambdaArity arity = HigherOrderArity(e.name);
  const size_t lo = arity.value_args + arity.min_lambdas;
  const size_t hi = arity.value_args + arity.max_lambdas;
  if (e.children.size() < lo || e.children.size() > hi) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", QuoteIdentifier({e.name})},
                          {"expectedNum", lo == hi ? std::to_string(lo)
                                                   : "[" + std::to_string(lo) + ", " +
                                                         std::to_string(hi) + "]"},
                          {"actualNum", std::to_string(e.children.size())},
                          {"docroot", "https://spark.apache.org/docs/latest"}})
        .WithPosition(e.position);
  }
  std::vector<BoundExprPtr> args;
  for (size_t i = 0; i < arity.value_args; ++i) {
    const Expr& c = *e.children[i];
    if (c.kind == ExprKind::kLambda) {
      return Status::Error("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION",
                           {{"class", c.DisplayName()}})
          .WithPosition(c.position);
    }
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(c, scope, hook));
    args.push_back(std::move(b));
  }
  // The function arguments: a lambda, or any expression (a lambda of hidden variables).
  std::vector<const Expr*> lambdas;
  for (size_t i = arity.value_args; i < e.children.size(); ++i)
    lambdas.push_back(e.children[i].get());
  const std::string text = e.DisplayName();
  SPATE_RETURN_IF_ERROR(CoerceHigherOrderArgs(e.name, &args, text));
  std::vector<BoundLambda> bound;
  for (size_t i = 0; i < lambdas.size(); ++i) {
    if (lambdas[i]->kind != ExprKind::kLambda) {
      auto params = HigherOrderLambdaParams(e.name, args, i, 0, text);
      if (!params.ok()) return params.status().WithPosition(lambdas[i]->position);
      lambda_frames_.push_back({std::vector<std::string>(params->size()), *params});
      Result<BoundExprPtr> body = Bind(*lambdas[i], scope, hook);
      lambda_frames_.pop_back();
      if (!body.ok()) return body.status();
      std::string display = "lambdafunction(" + lambdas[i]->DisplayName();
      for (size_t k = 0; k < params->size(); ++k) display += ", namedlambdavariable()";
      bound.push_back(
          {std::vector<std::string>(params->size(), "_"), *params, *body, display + ")"});
      continue;
    }
    const Expr& lam = *lambdas[i];
    for (size_t a = 0; a < lam.name_parts.size(); ++a) {
      for (size_t b = 0; b < a; ++b) {
        if (NameEq(lam.name_parts[a], lam.name_parts[b])) {
          std::string names;
          for (const auto& n : lam.name_parts)
            names += (names.empty() ? "" : ", ") + QuoteIdentifier({n});
          return Status::Error("INVALID_LAMBDA_FUNCTION_CALL.DUPLICATE_ARG_NAMES",
                               {{"args", names},
                                {"caseSensitiveConfig", "\"spark.sql.caseSensitive\""}})
              .WithPosition(lam.position);
        }
      }
    }
    auto params = HigherOrderLambdaParams(e.name, args, i, lam.name_parts.size(), text);
    if (!params.ok()) return params.status().WithPosition(lam.position);
    lambda_frames_.push_back({lam.name_parts, *params});
    Result<BoundExprPtr> body = Bind(*lam.children[0], scope, hook);
    lambda_frames_.pop_back();
    if (!body.ok()) return body.status();
    bound.push_back({lam.name_parts, *params, *body, lam.DisplayName()});
  }
  return MakeHigherOrderCall(e.name, std::move(args), std::move(bound), text);
}

Result<BoundExprPtr> Analyzer::Impl::BindCall(const Expr& e,
                                              const std::vector<Attribute>& scope,
                                              const BindHook* hook) {
  auto& registry = FunctionRegistry::Global();
  if (e.name == "lateralAliasReference") {
    auto target = lateral_targets_.find(&e);
    if (target != lateral_targets_.end()) return Bind(*target->second, scope, hook);
  }
  if (IsHigherOrderFunction(e.name)) {
    // array_sort(arr) is also a plain function; the others take lambdas only.
    bool has_lambda = false;
    for (const auto& c : e.children) has_lambda |= c->kind == ExprKind::kLambda;
    if (has_lambda || !registry.FindScalar(e.name))
      return BindHigherOrder(e, scope, hook);
  }
  FunctionKind kind = registry.KindOf(e.name);
  if (kind == FunctionKind::kAggregate) {
    return Status::Error("INVALID_WHERE_CONDITION",
                         {{"condition", "\"" + e.DisplayName() + "\""},
                          {"expressionList", e.DisplayName()}});
  }
  if (kind == FunctionKind::kWindow && registry.Exists(e.name)) {
    return Status::Error("WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE",
                         {{"funcName", "\"" + e.name + "\""}});
  }
  if (e.name == "struct") {
    bool aliased = false;
    for (const auto& c : e.children) aliased |= c->kind == ExprKind::kAlias;
    if (aliased) {
      // struct(a AS x, b) names its fields by the aliases (and column names): bind it as
      // named_struct('x', a, 'b', b).
      std::vector<ExprPtr> args;
      for (size_t i = 0; i < e.children.size(); ++i) {
        const ExprPtr& c = e.children[i];
        std::string name = c->kind == ExprKind::kAlias    ? c->name
                           : c->kind == ExprKind::kColumn ? c->name_parts.back()
                                                          : "col" + std::to_string(i + 1);
        args.push_back(Expr::Lit(Value::String(name)));
        args.push_back(c->kind == ExprKind::kAlias ? c->children[0] : c);
      }
      return BindCall(*Expr::Call("named_struct", std::move(args)), scope, hook);
    }
  }
  if (IsUpdateFields(e)) {
    // Column.withField / dropFields (Expr::UpdateFields): the struct, then each op's
    // value; a nested path's value is itself an update_fields of the struct's field.
    SPATE_ASSIGN_OR_RETURN(auto base, Bind(*e.children[0], scope, hook));
    std::vector<StructFieldOp> ops;
    for (size_t i = 1; i < e.children.size(); ++i) {
      const Expr& op = *e.children[i];
      BoundExprPtr value;
      if (!op.children.empty()) {
        SPATE_ASSIGN_OR_RETURN(value, Bind(*op.children[0], scope, hook));
      }
      ops.push_back({op.name_parts[0], std::move(value)});
    }
    return MakeUpdateFields(base, ops, case_sensitive_, e.DisplayName());
  }
  const ScalarResolver* resolver = registry.FindScalar(e.name);
  if (!resolver && IsTableFunctionOnly(e.name)) {
    return Status::Error("NOT_A_SCALAR_FUNCTION",
                         {{"functionName", QuoteIdentifier({e.name})}})
        .WithPosition(e.position);
  }
  if (!resolver) {
    return Status::Error(
               "UNRESOLVED_ROUTINE",
               {{"routineName", QuoteIdentifier({e.name})},
                {"searchPath",
                 "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]"}})
        .WithPosition(e.position);
  }
  std::vector<BoundExprPtr> args;
  for (const auto& c : e.children) {
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*c, scope, hook));
    args.push_back(std::move(b));
  }
  ResolveContext rc;
  rc.ansi = conf_.ansi();
  rc.call_text = e.DisplayName();
  rc.current_schema = catalog_.current_database();
  return (*resolver)(std::move(args), rc);
}

Result<BoundExprPtr> Analyzer::Impl::Bind(const Expr& e,
                                          const std::vector<Attribute>& scope,
                                          const BindHook* hook) {
  if (!lambda_frames_.empty() && e.kind == ExprKind::kColumn) {
    SPATE_ASSIGN_OR_RETURN(auto variable, ResolveLambdaVariable(e));
    if (variable) return *variable;
  }
  if (hook) {
    SPATE_ASSIGN_OR_RETURN(auto hooked, (*hook)(e));
    if (hooked) return *hooked;
  }
  switch (e.kind) {
    case ExprKind::kLiteral:
      return MakeLiteral(e.literal);
    case ExprKind::kColumn:
      return ResolveColumn(e, scope);
    case ExprKind::kAlias:
      return Bind(*e.children[0], scope, hook);
    case ExprKind::kCall: {
      if (e.name == "count" && e.children.size() == 1 &&
          e.children[0]->kind == ExprKind::kStar) {
        return Status::Internal("count(*) outside an aggregate");
      }
      return BindCall(e, scope, hook);
    }
    case ExprKind::kCast: {
      if (e.name == "typed_literal") {
        // TIMESTAMP '...' is read in the session time zone when the query is analyzed,
        // and so are the special values ('today', ...), at the instant the parser read
        // them (the node's literal).
        EvalContext ctx;
        ctx.ansi = true;
        ctx.time_zone_id = conf_.session_time_zone();
        ctx.time_zone = TimeZone::Lookup(ctx.time_zone_id);
        if (!e.literal.is_null()) {
          ctx.query_start_micros = e.literal.i64();
          std::optional<Value> special =
              SpecialDatetimeValue(e.children[0]->literal.str(), e.cast_type->id(), ctx);
          if (special) return MakeLiteral(std::move(*special));
        }
        SPATE_ASSIGN_OR_RETURN(
            auto v, CastValue(e.children[0]->literal, e.cast_type, CastMode::kAnsi, ctx));
        return MakeLiteral(std::move(v));
      }
      SPATE_ASSIGN_OR_RETURN(auto c, Bind(*e.children[0], scope, hook));
      return MakeExplicitCast(c, e.cast_type, e.is_try, conf_.ansi());
    }
    case ExprKind::kCaseWhen: {
      std::vector<BoundExprPtr> branches;
      size_t n = e.children.size() - (e.has_else ? 1 : 0);
      for (size_t i = 0; i < n; ++i) {
        SPATE_ASSIGN_OR_RETURN(auto b, Bind(*e.children[i], scope, hook));
        branches.push_back(b);
      }
      BoundExprPtr else_value;
      if (e.has_else) {
        SPATE_ASSIGN_OR_RETURN(else_value, Bind(*e.children.back(), scope, hook));
      }
      return MakeCaseWhen(std::move(branches), else_value);
    }
    case ExprKind::kIn: {
      SPATE_ASSIGN_OR_RETURN(auto v, Bind(*e.children[0], scope, hook));
      std::vector<BoundExprPtr> list;
      for (size_t i = 1; i < e.children.size(); ++i) {
        SPATE_ASSIGN_OR_RETURN(auto b, Bind(*e.children[i], scope, hook));
        list.push_back(b);
      }
      SPATE_ASSIGN_OR_RETURN(auto in, MakeInList(v, std::move(list)));
      if (!e.negated) return in;
      ResolveContext rc;
      return (*FunctionRegistry::Global().FindScalar("not"))({in}, rc);
    }
    case ExprKind::kExtractValue: {
      SPATE_ASSIGN_OR_RETURN(auto base, Bind(*e.children[0], scope, hook));
      if (e.children.size() == 1) {
        const DataTypePtr& t = base->type();
        if (t->id() != TypeId::kStruct) {
          return Status::Error(
              "INVALID_EXTRACT_BASE_FIELD_TYPE",
              {{"base", "\"" + base->ToString() + "\""}, {"other", QuoteType(*t)}});
        }
        if (std::optional<int> at = FieldOrdinal(e, *t))
          return MakeGetStructField(base, *at);
        SPATE_ASSIGN_OR_RETURN(int idx, StructFieldIndex(*t, e.name, case_sensitive_));
        return MakeGetStructField(base, idx);
      }
      SPATE_ASSIGN_OR_RETURN(auto key, Bind(*e.children[1], scope, hook));
      return MakeSubscript(base, key);
    }
    case ExprKind::kStar:
      return Status::Error(
          "INVALID_USAGE_OF_STAR_OR_REGEX",
          {{"elem", e.name.empty() ? "'*'" : "regular expression '" + e.name + "'"},
           {"prettyName", "expression"}});
    case ExprKind::kWindow:
      return Status::Error("UNSUPPORTED_EXPR_FOR_WINDOW",
                           {{"sqlExpr", "\"" + e.DisplayName() + "\""}});
    case ExprKind::kSortOrder:
      return Bind(*e.children[0], scope, hook);
    case ExprKind::kScalarSubquery:
    case ExprKind::kExists:
    case ExprKind::kInSubquery:
      return BindSubquery(e, scope, hook);
    case ExprKind::kLambda:
      return Status::Error("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION",
                           {{"class", e.DisplayName()}})
          .WithPosition(e.position);
  }
  return Status::Internal("unknown expression kind");
}

Result<std::vector<ExprPtr>> Analyzer::Impl::ExpandStars(
    const std::vector<ExprPtr>& items, const std::vector<Attribute>& scope) {
  std::vector<ExprPtr> out;
  for (const auto& item : items) {
    if (item->kind != ExprKind::kStar) {
      out.push_back(item);
      continue;
    }
    const auto& q = item->name_parts;
    if (!item->name.empty()) {
      // DataFrame.colRegex (Spark's UnresolvedRegex): the columns, of the relation named
      // by the qualifier if there is one, whose whole names match the regex.
      SPATE_ASSIGN_OR_RETURN(
          auto matches, JavaRegexFullMatcher("colRegex", item->name, case_sensitive_));
      for (const auto& a : scope) {
        if (!q.empty() && (a.qualifier.empty() || !NameEq(a.qualifier, q.back())))
          continue;
        if (!matches(a.name)) continue;
        std::vector<std::string> parts;
        if (!a.qualifier.empty()) parts.push_back(a.qualifier);
        parts.push_back(a.name);
        out.push_back(Expr::Alias(Expr::Col(parts), a.name));
      }
      continue;
    }
    if (q.empty()) {
      for (const auto& a : scope) {
        std::vector<std::string> parts;
        if (!a.qualifier.empty()) parts.push_back(a.qualifier);
        parts.push_back(a.name);
        auto c = Expr::Col(parts);
        out.push_back(Expr::Alias(c, a.name));
      }
      continue;
    }
    bool found = false;
    for (const auto& a : scope) {
      if (q.size() == 1 && !a.qualifier.empty() && NameEq(a.qualifier, q[0])) {
        out.push_back(Expr::Alias(Expr::Col({a.qualifier, a.name}), a.name));
        found = true;
      }
    }
    if (found) continue;
    // struct expansion: s.* -> s.f1, s.f2, ...
    auto base = Expr::Col(q);
    auto bound = Bind(*base, scope, nullptr);
    if (bound.ok() && (*bound)->type()->id() == TypeId::kStruct) {
      const auto& fields = (*bound)->type()->fields();
      for (size_t f = 0; f < fields.size(); ++f) {
        out.push_back(Expr::Alias(FieldAt(base, fields[f].name, f), fields[f].name));
      }
      continue;
    }
    return Status::Error(
        "CANNOT_RESOLVE_STAR_EXPAND",
        {{"targetString", QuoteIdentifier(q)}, {"columns", SuggestColumns("", scope)}});
  }
  return out;
}

Result<Value> Analyzer::Impl::EvalConstant(const Expr& e, const char* what,
                                           BoundExprPtr* bound_out) {
  std::vector<Attribute> empty;
  auto bound = Bind(e, empty, nullptr);
  if (!bound.ok()) {
    if (bound.status().error_class().rfind("UNRESOLVED_COLUMN", 0) == 0)
      return NotConstant(e, what);
    return bound.status();
  }
  BoundExprPtr b = *bound;
  if (bound_out) *bound_out = b;
  if (!b->IsConstant()) return NotConstant(e, what);
  auto one = Batch::Make(std::make_shared<const Schema>(), {}, 1);
  EvalContext ctx;
  ctx.ansi = conf_.ansi();
  SPATE_ASSIGN_OR_RETURN(auto col, b->Evaluate(*one, ctx));
  return col->GetValue(0);
}

}  // namespace spate::sql
