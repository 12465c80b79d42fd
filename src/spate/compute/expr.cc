// Copyright spate authors.
#include "spate/compute/expr.h"

#include <map>
#include <unordered_map>

#include "spate/compute/datetime_functions.h"
#include "spate/compute/higher_order.h"

namespace spate {

ExprPtr Expr::Lit(Value v) {
  auto e = std::make_shared<Expr>(ExprKind::kLiteral);
  e->literal = std::move(v);
  return e;
}

ExprPtr Expr::Col(std::vector<std::string> parts) {
  auto e = std::make_shared<Expr>(ExprKind::kColumn);
  e->name_parts = std::move(parts);
  return e;
}

ExprPtr Expr::Col(const std::string& name) { return Col(std::vector<std::string>{name}); }

ExprPtr Expr::Star(std::vector<std::string> qualifier) {
  auto e = std::make_shared<Expr>(ExprKind::kStar);
  e->name_parts = std::move(qualifier);
  return e;
}

ExprPtr Expr::RegexStar(std::string regex, std::vector<std::string> qualifier) {
  auto e = std::make_shared<Expr>(ExprKind::kStar);
  e->name_parts = std::move(qualifier);
  e->name = std::move(regex);
  return e;
}

ExprPtr Expr::Alias(ExprPtr child, std::string name) {
  auto e = std::make_shared<Expr>(ExprKind::kAlias);
  e->children.push_back(std::move(child));
  e->name = std::move(name);
  return e;
}

ExprPtr Expr::Call(std::string name, std::vector<ExprPtr> args, bool distinct) {
  auto e = std::make_shared<Expr>(ExprKind::kCall);
  e->name = std::move(name);
  e->children = std::move(args);
  e->is_distinct = distinct;
  return e;
}

ExprPtr Expr::Cast(ExprPtr child, DataTypePtr type, bool is_try) {
  auto e = std::make_shared<Expr>(ExprKind::kCast);
  e->children.push_back(std::move(child));
  e->cast_type = std::move(type);
  e->is_try = is_try;
  return e;
}

ExprPtr Expr::CaseWhen(std::vector<ExprPtr> branches, ExprPtr else_value) {
  auto e = std::make_shared<Expr>(ExprKind::kCaseWhen);
  e->children = std::move(branches);
  if (else_value) {
    e->children.push_back(std::move(else_value));
    e->has_else = true;
  }
  return e;
}

ExprPtr Expr::In(ExprPtr value, std::vector<ExprPtr> list, bool negated) {
  auto e = std::make_shared<Expr>(ExprKind::kIn);
  e->children.push_back(std::move(value));
  for (auto& x : list) e->children.push_back(std::move(x));
  e->negated = negated;
  return e;
}

ExprPtr Expr::Extract(ExprPtr child, ExprPtr key) {
  auto e = std::make_shared<Expr>(ExprKind::kExtractValue);
  e->children = {std::move(child), std::move(key)};
  return e;
}

ExprPtr Expr::Field(ExprPtr child, std::string field_name) {
  auto e = std::make_shared<Expr>(ExprKind::kExtractValue);
  e->children = {std::move(child)};
  e->name = std::move(field_name);
  return e;
}

ExprPtr Expr::UpdateFields(ExprPtr structure, std::vector<ExprPtr> ops) {
  auto e = std::make_shared<Expr>(ExprKind::kCall);
  e->name = "update_fields";
  e->children.reserve(ops.size() + 1);
  e->children.push_back(std::move(structure));
  for (auto& op : ops) e->children.push_back(std::move(op));
  return e;
}

ExprPtr Expr::WithFieldOp(std::string field, ExprPtr value) {
  auto e = std::make_shared<Expr>(ExprKind::kCall);
  e->name = "withfield";
  e->name_parts = {std::move(field)};
  e->children = {std::move(value)};
  return e;
}

ExprPtr Expr::DropFieldOp(std::string field) {
  auto e = std::make_shared<Expr>(ExprKind::kCall);
  e->name = "dropfield";
  e->name_parts = {std::move(field)};
  return e;
}

ExprPtr Expr::Window(ExprPtr function, WindowDef spec) {
  auto e = std::make_shared<Expr>(ExprKind::kWindow);
  e->children = {std::move(function)};
  e->window = std::make_shared<const WindowDef>(std::move(spec));
  return e;
}

ExprPtr Expr::Sort(ExprPtr child, bool ascending, bool nulls_first) {
  auto e = std::make_shared<Expr>(ExprKind::kSortOrder);
  e->sort = SortSpec{child, ascending, nulls_first};
  e->children = {std::move(child)};
  return e;
}

ExprPtr Expr::WithChildren(std::vector<ExprPtr> new_children) const {
  auto e = std::make_shared<Expr>(*this);
  e->children = std::move(new_children);
  if (kind == ExprKind::kSortOrder && !e->children.empty()) e->sort.expr = e->children[0];
  return e;
}

namespace {

const std::unordered_map<std::string, std::string>& BinaryOperators() {
  static const auto* ops = new std::unordered_map<std::string, std::string>{
      {"+", "+"},     {"-", "-"},   {"*", "*"},     {"/", "/"},   {"%", "%"},
      {"div", "div"}, {"=", "="},   {"<=>", "<=>"}, {"<", "<"},   {"<=", "<="},
      {">", ">"},     {">=", ">="}, {"and", "AND"}, {"or", "OR"}, {"&", "&"},
      {"|", "|"},     {"^", "^"}};
  return *ops;
}

std::string Join(const std::vector<ExprPtr>& xs, bool display, size_t from = 0,
                 size_t to = std::string::npos) {
  std::string out;
  if (to == std::string::npos) to = xs.size();
  for (size_t i = from; i < to; ++i) {
    if (i > from) out += ", ";
    out += display ? xs[i]->DisplayName() : xs[i]->ToString();
  }
  return out;
}

std::string BoundText(const FrameBound& b, bool display) {
  switch (b.type) {
    case FrameBound::Type::kUnboundedPreceding:
      return "UNBOUNDED PRECEDING";
    case FrameBound::Type::kUnboundedFollowing:
      return "UNBOUNDED FOLLOWING";
    case FrameBound::Type::kCurrentRow:
      return "CURRENT ROW";
    case FrameBound::Type::kPreceding:
      return (display ? b.offset->DisplayName() : b.offset->ToString()) + " PRECEDING";
    case FrameBound::Type::kFollowing:
      return (display ? b.offset->DisplayName() : b.offset->ToString()) + " FOLLOWING";
  }
  return "";
}

std::string SortText(const SortSpec& s, bool display) {
  return (display ? s.expr->DisplayName() : s.expr->ToString()) +
         (s.ascending ? " ASC" : " DESC") +
         (s.nulls_first ? " NULLS FIRST" : " NULLS LAST");
}

// The variables of the lambdas being rendered, so that their references display as Spark
// names them ("namedlambdavariable()").
thread_local std::vector<const std::vector<std::string>*> lambda_names;

bool IsLambdaVariable(const std::string& name) {
  for (const auto* names : lambda_names) {
    for (const auto& n : *names) {
      if (EqualsIgnoreCase(n, name)) return true;
    }
  }
  return false;
}

std::string HiddenLambda(const std::string& body, size_t params) {
  std::string out = "lambdafunction(" + body;
  for (size_t k = 0; k < params; ++k) out += ", namedlambdavariable()";
  return out + ")";
}

std::string Render(const Expr& e, bool display);

bool IsUpdateFieldsPart(const Expr& e) {
  return (e.name == "update_fields" && !e.children.empty()) ||
         (e.name == "withfield" && e.children.size() == 1 && e.name_parts.size() == 1) ||
         (e.name == "dropfield" && e.children.empty() && e.name_parts.size() == 1);
}

// As Spark names UpdateFields: update_fields(s, WithField(v), dropfield()); the plan text
// names the fields too.
std::string UpdateFieldsText(const Expr& e, bool display) {
  if (e.name == "dropfield")
    return display ? "dropfield()" : "dropfield(" + e.name_parts[0] + ")";
  if (e.name == "withfield") {
    return "WithField(" + (display ? "" : e.name_parts[0] + ", ") +
           Render(*e.children[0], display) + ")";
  }
  std::string out = "update_fields(" + Render(*e.children[0], display);
  for (size_t i = 1; i < e.children.size(); ++i)
    out += ", " + Render(*e.children[i], display);
  return out + ")";
}

std::string Render(const Expr& e, bool display) {
  auto sub = [&](const ExprPtr& c) { return display ? c->DisplayName() : c->ToString(); };
  switch (e.kind) {
    case ExprKind::kLiteral:
      if (display && e.literal.type()->id() == TypeId::kString && !e.literal.is_null()) {
        return e.literal.str();
      }
      if (display &&
          (e.literal.type()->IsNumeric() || e.literal.type()->id() == TypeId::kBoolean)) {
        return e.literal.ToString();
      }
      return e.literal.ToSql();
    case ExprKind::kColumn: {
      if (display && !e.name_parts.empty() && !lambda_names.empty() &&
          IsLambdaVariable(e.name_parts[0])) {
        std::string out = "namedlambdavariable()";
        for (size_t i = 1; i < e.name_parts.size(); ++i) out += "." + e.name_parts[i];
        return out;
      }
      if (display) return e.name_parts.empty() ? "" : e.name_parts.back();
      std::string out;
      for (size_t i = 0; i < e.name_parts.size(); ++i) {
        if (i) out += ".";
        out += e.name_parts[i];
      }
      return out;
    }
    case ExprKind::kStar: {
      if (display && !e.name.empty()) return "unresolvedregex()";  // as Spark names it
      std::string out;
      for (const auto& p : e.name_parts) out += p + ".";
      return out + (e.name.empty() ? "*" : "`" + e.name + "`");
    }
    case ExprKind::kAlias:
      return display ? e.name : sub(e.children[0]) + " AS " + e.name;
    case ExprKind::kCall: {
      if (IsUpdateFieldsPart(e)) return UpdateFieldsText(e, display);
      const auto& ops = BinaryOperators();
      auto it = ops.find(e.name);
      if (it != ops.end() && e.children.size() == 2) {
        return "(" + sub(e.children[0]) + " " + it->second + " " + sub(e.children[1]) +
               ")";
      }
      if (e.children.size() == 1) {
        if (e.name == "not") return "(NOT " + sub(e.children[0]) + ")";
        if (e.name == "negative") return "(- " + sub(e.children[0]) + ")";
        if (e.name == "positive") return "(+ " + sub(e.children[0]) + ")";
        if (e.name == "~") return "~" + sub(e.children[0]);
        if (e.name == "isnull") return "(" + sub(e.children[0]) + " IS NULL)";
        if (e.name == "isnotnull") return "(" + sub(e.children[0]) + " IS NOT NULL)";
      }
      if (e.name == "!=" && e.children.size() == 2) {
        return "(NOT (" + sub(e.children[0]) + " = " + sub(e.children[1]) + "))";
      }
      if ((e.name == "like" || e.name == "ilike" || e.name == "rlike") &&
          e.children.size() == 2) {
        return sub(e.children[0]) + " " + ToUpper(e.name) + " " + sub(e.children[1]);
      }
      if (e.name == "between" && e.children.size() == 3) {
        return "(" + sub(e.children[0]) + " BETWEEN " + sub(e.children[1]) + " AND " +
               sub(e.children[2]) + ")";
      }
      if (e.name == "||") return "concat(" + Join(e.children, display) + ")";
      std::string args;
      if (e.name == "count" && e.children.size() == 1 &&
          e.children[0]->kind == ExprKind::kStar) {
        args = "1";
      } else if (e.name == "struct") {
        // struct(a AS x): the aliases of its named expressions stay visible.
        for (size_t i = 0; i < e.children.size(); ++i) {
          const ExprPtr& c = e.children[i];
          if (i) args += ", ";
          args += c->kind == ExprKind::kAlias ? sub(c->children[0]) + " AS " + c->name
                                              : sub(c);
        }
      } else if (display && IsHigherOrderFunction(e.name) &&
                 e.children.size() > HigherOrderArity(e.name).value_args) {
        // Function arguments that are not lambdas are lambdas of hidden variables, and
        // aggregate's missing finish is the identity, as Spark names them.
        const LambdaArity arity = HigherOrderArity(e.name);
        for (size_t i = 0; i < e.children.size(); ++i) {
          const ExprPtr& c = e.children[i];
          if (i) args += ", ";
          bool function = i >= arity.value_args && c->kind != ExprKind::kLambda;
          args += function ? HiddenLambda(sub(c), HigherOrderDefaultParams(
                                                      e.name, i - arity.value_args))
                           : sub(c);
        }
        if (arity.max_lambdas > e.children.size() - arity.value_args) {
          args += ", " + HiddenLambda("namedlambdavariable()", 1);
        }
      } else {
        args = Join(e.children, display);
      }
      // Cast aliases (int(x), date(x) ...) are named as the CAST they are.
      static const auto* kCastAliases = new std::map<std::string, std::string>{
          {"boolean", "BOOLEAN"},   {"tinyint", "TINYINT"},
          {"smallint", "SMALLINT"}, {"int", "INT"},
          {"bigint", "BIGINT"},     {"float", "FLOAT"},
          {"double", "DOUBLE"},     {"decimal", "DECIMAL(10,0)"},
          {"date", "DATE"},         {"timestamp", "TIMESTAMP"},
          {"binary", "BINARY"},     {"string", "STRING"}};
      if (e.children.size() == 1 && !e.is_distinct && !e.filter) {
        auto alias = kCastAliases->find(ToLower(e.name));
        if (alias != kCastAliases->end())
          return "CAST(" + args + " AS " + alias->second + ")";
      }
      std::string name = e.name;
      if (display) {
        // Spark's names of these calls: upper case (its math expressions), an alias named
        // as its target, internal calls by the SQL that builds them, shuffle without its
        // seed, assert_true with its message.
        static const auto* kDisplay = new std::map<std::string, std::string>{
            {"ceil", "CEIL"},
            {"floor", "FLOOR"},
            {"sqrt", "SQRT"},
            {"cbrt", "CBRT"},
            {"exp", "EXP"},
            {"log10", "LOG10"},
            {"log2", "LOG2"},
            {"log", "LOG"},
            {"signum", "SIGNUM"},
            {"power", "POWER"},
            {"e", "E"},
            {"pi", "PI"},
            {"sin", "SIN"},
            {"cos", "COS"},
            {"tan", "TAN"},
            {"asin", "ASIN"},
            {"acos", "ACOS"},
            {"atan", "ATAN"},
            {"atan2", "ATAN2"},
            {"sinh", "SINH"},
            {"cosh", "COSH"},
            {"tanh", "TANH"},
            {"asinh", "ASINH"},
            {"acosh", "ACOSH"},
            {"atanh", "ATANH"},
            {"cot", "COT"},
            {"csc", "CSC"},
            {"sec", "SEC"},
            {"degrees", "DEGREES"},
            {"radians", "RADIANS"},
            {"expm1", "EXPM1"},
            {"log1p", "LOG1P"},
            {"hypot", "HYPOT"},
            {"random", "rand"},
            {"dateadd", "date_add"},
            {ToLower(kTimestampAddCall), "timestampadd"},
            {ToLower(kTimestampDiffCall), "timestampdiff"}};
        auto d = kDisplay->find(ToLower(e.name));
        if (d != kDisplay->end() && !(d->first == "log" && e.children.size() != 2))
          name = d->second;
        if (ToLower(e.name) == "shuffle" && e.children.size() == 2)
          args = sub(e.children[0]);
        if (ToLower(e.name) == "assert_true" && e.children.size() == 1) {
          args += ", '" + sub(e.children[0]) + "' is not true!";
        }
      }
      bool ignore_nulls = e.ignore_nulls;
      if (ToLower(e.name) == "nth_value" && e.children.size() == 3 &&
          e.children[2]->kind == ExprKind::kLiteral) {
        // nth_value(x, n, true) is named as nth_value(x, n) IGNORE NULLS.
        const Value& v = e.children[2]->literal;
        ignore_nulls |=
            !v.is_null() && v.type()->id() == TypeId::kBoolean && v.i64() != 0;
        args = Join(e.children, display, 0, 2);
      }
      bool listagg = !e.within_group.empty() &&
                     (ToLower(e.name) == "listagg" || ToLower(e.name) == "string_agg");
      if (listagg) name = "listagg";  // string_agg ... WITHIN GROUP is named as listagg
      std::string out = name + "(" + (e.is_distinct ? "DISTINCT " : "") + args + ")";
      if (ignore_nulls)
        out += ToLower(e.name) == "nth_value" ? " ignore nulls" : " IGNORE NULLS";
      if (!e.within_group.empty()) {
        // Spark names percentile_cont / percentile_disc's key with DESC only; listagg's
        // with its whole sort order.
        out += " WITHIN GROUP (ORDER BY ";
        for (size_t i = 0; i < e.within_group.size(); ++i) {
          const SortSpec& s = e.within_group[i];
          if (i) out += ", ";
          out +=
              listagg ? SortText(s, display) : sub(s.expr) + (s.ascending ? "" : " DESC");
        }
        out += ")";
      }
      if (e.filter) out += " FILTER (WHERE " + sub(e.filter) + ")";
      return out;
    }
    case ExprKind::kCast:
      if (e.name == "typed_literal") {
        return e.cast_type->Sql() + " '" + e.children[0]->literal.str() + "'";
      }
      return std::string(e.is_try ? "TRY_CAST(" : "CAST(") + sub(e.children[0]) + " AS " +
             e.cast_type->Sql() + ")";
    case ExprKind::kCaseWhen: {
      std::string out = "CASE";
      size_t n = e.children.size() - (e.has_else ? 1 : 0);
      for (size_t i = 0; i + 1 < n; i += 2) {
        out += " WHEN " + sub(e.children[i]) + " THEN " + sub(e.children[i + 1]);
      }
      if (e.has_else) out += " ELSE " + sub(e.children.back());
      return out + " END";
    }
    case ExprKind::kIn: {
      std::string out =
          "(" + sub(e.children[0]) + " IN (" + Join(e.children, display, 1) + "))";
      return e.negated ? "(NOT " + out + ")" : out;
    }
    case ExprKind::kExtractValue:
      // Spark names s.getField("c") s.c; a column path (col("s.c"), a lateral alias's
      // x.c) by its last name.
      if (e.children.size() == 1) {
        const Expr& c = *e.children[0];
        bool path = c.kind == ExprKind::kCall && c.name == "lateralAliasReference";
        return display && path ? e.name : sub(e.children[0]) + "." + e.name;
      }
      return sub(e.children[0]) + "[" + sub(e.children[1]) + "]";
    case ExprKind::kWindow: {
      std::string spec;
      const WindowDef& w = *e.window;
      if (!w.partition_by.empty())
        spec += "PARTITION BY " + Join(w.partition_by, display);
      if (!w.order_by.empty()) {
        if (!spec.empty()) spec += " ";
        spec += "ORDER BY ";
        for (size_t i = 0; i < w.order_by.size(); ++i) {
          if (i) spec += ", ";
          spec += SortText(w.order_by[i], display);
        }
      }
      if (w.frame) {
        if (!spec.empty()) spec += " ";
        spec +=
            std::string(w.frame->kind == WindowFrame::Kind::kRows ? "ROWS" : "RANGE") +
            " BETWEEN " + BoundText(w.frame->lower, display) + " AND " +
            BoundText(w.frame->upper, display);
      }
      return sub(e.children[0]) + " OVER (" + spec + ")";
    }
    case ExprKind::kSortOrder:
      return SortText(e.sort, display);
    case ExprKind::kScalarSubquery:
      return "scalarsubquery()";
    case ExprKind::kExists:
      return e.negated ? "(NOT exists())" : "exists()";
    case ExprKind::kInSubquery:
      return "(" + sub(e.children[0]) + (e.negated ? " NOT IN " : " IN ") +
             "(listquery()))";
    case ExprKind::kLambda: {
      if (display) {
        lambda_names.push_back(&e.name_parts);
        std::string body = sub(e.children[0]);
        lambda_names.pop_back();
        return HiddenLambda(body, e.name_parts.size());
      }
      std::string params;
      for (size_t i = 0; i < e.name_parts.size(); ++i) {
        if (i) params += ", ";
        params += e.name_parts[i];
      }
      return "lambdafunction(" + sub(e.children[0]) + ", " + params + ")";
    }
  }
  return "?";
}

}  // namespace

std::string Expr::DisplayName() const { return Render(*this, true); }
std::string Expr::ToString() const { return Render(*this, false); }

}  // namespace spate
