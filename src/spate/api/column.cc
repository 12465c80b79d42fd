// Copyright spate authors.
#include "spate/api/column.h"

#include <algorithm>
#include <functional>

#include "spate/api/exceptions.h"
#include "spate/sql/parser.h"

namespace spate::api {

Value ToValue(bool v) { return Value::Boolean(v); }
Value ToValue(int v) { return Value::Int(v); }
Value ToValue(int64_t v) { return Value::Long(v); }
Value ToValue(long long v) { return Value::Long(static_cast<int64_t>(v)); }
Value ToValue(double v) { return Value::Double(v); }
Value ToValue(float v) { return Value::Float(v); }
Value ToValue(std::string_view v) { return Value::String(std::string(v)); }

namespace {
Column Call(const std::string& name, std::vector<ExprPtr> args) {
  return Column(Expr::Call(name, std::move(args)));
}
Column Unary(const std::string& name, const Column& c) { return Call(name, {c.expr()}); }
Column Binary(const std::string& name, const Column& a, const Column& b) {
  return Call(name, {a.expr(), b.expr()});
}
std::vector<ExprPtr> Exprs(const std::vector<Column>& cols) {
  std::vector<ExprPtr> out;
  for (const auto& c : cols) out.push_back(c.expr());
  return out;
}
}  // namespace

Column Column::alias(const std::string& n) const {
  const Expr* inner = expr_.get();
  if (inner->kind == ExprKind::kAlias) return Column(Expr::Alias(inner->children[0], n));
  return Column(Expr::Alias(expr_, n));
}

Column Column::cast(const DataTypePtr& type) const {
  return Column(Expr::Cast(expr_, type));
}
Column Column::cast(std::string_view type) const {
  return Column(Expr::Cast(expr_, ValueOrThrow(sql::ParseDataType(type))));
}
Column Column::try_cast(std::string_view type) const {
  return Column(Expr::Cast(expr_, ValueOrThrow(sql::ParseDataType(type)), true));
}
Column Column::isNull() const { return Unary("isnull", *this); }
Column Column::isNotNull() const { return Unary("isnotnull", *this); }
Column Column::isin(const std::vector<Column>& values) const {
  return Column(Expr::In(expr_, Exprs(values)));
}
Column Column::between(const Column& lower, const Column& upper) const {
  return Call("between", {expr_, lower.expr(), upper.expr()});
}
Column Column::like(std::string_view p) const {
  return Binary("like", *this, Lit(ToValue(p)));
}
Column Column::ilike(std::string_view p) const {
  return Binary("ilike", *this, Lit(ToValue(p)));
}
Column Column::rlike(std::string_view p) const {
  return Binary("rlike", *this, Lit(ToValue(p)));
}
Column Column::eqNullSafe(const Column& o) const { return Binary("<=>", *this, o); }
Column Column::getField(const std::string& n) const {
  return Column(Expr::Field(expr_, n));
}
namespace {

// Adds a field operation to `structure` as Spark builds UpdateFields: an operation on an
// update_fields joins its list, and a list of only WithFields keeps one per field name
// (the first's place, the last's value; names compared exactly, as any case sensitivity
// then gives the same struct), which is how Spark names the column.
ExprPtr AddFieldOp(const ExprPtr& structure, ExprPtr op) {
  ExprPtr base = structure;
  std::vector<ExprPtr> ops;
  if (structure->kind == ExprKind::kCall && structure->name == "update_fields") {
    base = structure->children[0];
    ops.assign(structure->children.begin() + 1, structure->children.end());
  }
  ops.push_back(std::move(op));
  if (std::all_of(ops.begin(), ops.end(),
                  [](const ExprPtr& o) { return o->name == "withfield"; })) {
    std::vector<ExprPtr> kept;
    for (const ExprPtr& o : ops) {
      auto same = std::find_if(kept.begin(), kept.end(), [&o](const ExprPtr& k) {
        return k->name_parts[0] == o->name_parts[0];
      });
      if (same != kept.end()) {
        *same = o;
      } else {
        kept.push_back(o);
      }
    }
    ops = std::move(kept);
  }
  return Expr::UpdateFields(std::move(base), std::move(ops));
}

// `structure` with `leaf(name)` applied at path[k..]: a nested field is set to an
// update_fields of itself.
ExprPtr UpdatePath(const ExprPtr& structure, const std::vector<std::string>& path,
                   size_t k, const std::function<ExprPtr(const std::string&)>& leaf) {
  if (k + 1 == path.size()) return AddFieldOp(structure, leaf(path[k]));
  ExprPtr inner = UpdatePath(Expr::Field(structure, path[k]), path, k + 1, leaf);
  return AddFieldOp(structure, Expr::WithFieldOp(path[k], std::move(inner)));
}

// A field path as Spark parses it (a multipart identifier; "" is one empty name).
std::vector<std::string> FieldPath(const std::string& name) {
  if (name.empty()) return {""};
  return ValueOrThrow(sql::ParseMultipartIdentifier(name));
}

}  // namespace

Column Column::withField(const std::string& fieldName, const Column& col) const {
  const ExprPtr& value = col.expr();
  return Column(
      UpdatePath(expr_, FieldPath(fieldName), 0,
                 [&value](const std::string& n) { return Expr::WithFieldOp(n, value); }));
}

Column Column::dropFields(const std::vector<std::string>& fieldNames) const {
  if (fieldNames.empty()) {
    ThrowStatus(Status::Invalid("dropFields needs at least one field name"));
  }
  ExprPtr out = expr_;
  for (const auto& name : fieldNames) {
    out = UpdatePath(out, FieldPath(name), 0,
                     [](const std::string& n) { return Expr::DropFieldOp(n); });
  }
  return Column(out);
}

Column Column::getItem(const Column& key) const {
  return Column(Expr::Extract(expr_, key.expr()));
}
Column Column::asc() const { return Column(Expr::Sort(expr_, true, true)); }
Column Column::asc_nulls_first() const { return Column(Expr::Sort(expr_, true, true)); }
Column Column::asc_nulls_last() const { return Column(Expr::Sort(expr_, true, false)); }
Column Column::desc() const { return Column(Expr::Sort(expr_, false, false)); }
Column Column::desc_nulls_first() const { return Column(Expr::Sort(expr_, false, true)); }
Column Column::desc_nulls_last() const { return Column(Expr::Sort(expr_, false, false)); }
Column Column::over(const WindowSpec& w) const {
  return Column(Expr::Window(expr_, w.definition()));
}

Column Column::when(const Column& condition, const Column& value) const {
  if (expr_->kind != ExprKind::kCaseWhen || expr_->has_else) {
    ThrowStatus(
        Status::Invalid("when() can only be applied on a Column previously generated by "
                        "when() function"));
  }
  std::vector<ExprPtr> branches = expr_->children;
  branches.push_back(condition.expr());
  branches.push_back(value.expr());
  return Column(Expr::CaseWhen(std::move(branches), nullptr));
}

Column Column::otherwise(const Column& value) const {
  if (expr_->kind != ExprKind::kCaseWhen || expr_->has_else) {
    ThrowStatus(Status::Invalid(
        "otherwise() can only be applied on a Column previously generated by when()"));
  }
  return Column(Expr::CaseWhen(expr_->children, value.expr()));
}

Column Column::bitwiseAND(const Column& o) const { return Binary("&", *this, o); }
Column Column::bitwiseOR(const Column& o) const { return Binary("|", *this, o); }
Column Column::bitwiseXOR(const Column& o) const { return Binary("^", *this, o); }

std::string Column::toString() const { return "Column<'" + expr_->DisplayName() + "'>"; }

Column operator+(const Column& a, const Column& b) { return Binary("+", a, b); }
Column operator-(const Column& a, const Column& b) { return Binary("-", a, b); }
Column operator*(const Column& a, const Column& b) { return Binary("*", a, b); }
Column operator/(const Column& a, const Column& b) { return Binary("/", a, b); }
Column operator%(const Column& a, const Column& b) { return Binary("%", a, b); }
Column operator==(const Column& a, const Column& b) { return Binary("=", a, b); }
Column operator!=(const Column& a, const Column& b) { return Binary("!=", a, b); }
Column operator<(const Column& a, const Column& b) { return Binary("<", a, b); }
Column operator<=(const Column& a, const Column& b) { return Binary("<=", a, b); }
Column operator>(const Column& a, const Column& b) { return Binary(">", a, b); }
Column operator>=(const Column& a, const Column& b) { return Binary(">=", a, b); }
Column operator&&(const Column& a, const Column& b) { return Binary("and", a, b); }
Column operator||(const Column& a, const Column& b) { return Binary("or", a, b); }
Column operator&(const Column& a, const Column& b) { return Binary("and", a, b); }
Column operator|(const Column& a, const Column& b) { return Binary("or", a, b); }
Column operator!(const Column& a) { return Unary("not", a); }
Column operator~(const Column& a) { return Unary("not", a); }
Column operator-(const Column& a) { return Unary("negative", a); }

// --- WindowSpec
// -------------------------------------------------------------------------

WindowSpec WindowSpec::partitionBy(const std::vector<Column>& cols) const {
  WindowSpec w = *this;
  w.def_.partition_by = Exprs(cols);
  return w;
}
WindowSpec WindowSpec::partitionBy(const std::vector<std::string>& cols) const {
  std::vector<Column> c;
  for (const auto& n : cols) c.push_back(functions::col(n));
  return partitionBy(c);
}
WindowSpec WindowSpec::orderBy(const std::vector<Column>& cols) const {
  WindowSpec w = *this;
  w.def_.order_by.clear();
  for (const auto& c : cols) {
    const ExprPtr& e = c.expr();
    if (e->kind == ExprKind::kSortOrder) {
      w.def_.order_by.push_back(e->sort);
    } else {
      w.def_.order_by.push_back(SortSpec{e, true, true});
    }
  }
  return w;
}
WindowSpec WindowSpec::orderBy(const std::vector<std::string>& cols) const {
  std::vector<Column> c;
  for (const auto& n : cols) c.push_back(functions::col(n));
  return orderBy(c);
}

namespace {
FrameBound MakeBound(int64_t v, bool lower) {
  FrameBound b;
  if (v == Window::unboundedPreceding) {
    b.type = FrameBound::Type::kUnboundedPreceding;
  } else if (v == Window::unboundedFollowing) {
    b.type = FrameBound::Type::kUnboundedFollowing;
  } else if (v == 0) {
    b.type = FrameBound::Type::kCurrentRow;
  } else if (v < 0) {
    b.type = FrameBound::Type::kPreceding;
    b.offset = Expr::Lit(Value::Long(-v));
  } else {
    b.type = FrameBound::Type::kFollowing;
    b.offset = Expr::Lit(Value::Long(v));
  }
  (void)lower;
  return b;
}
}  // namespace

WindowSpec WindowSpec::rowsBetween(int64_t start, int64_t end) const {
  WindowSpec w = *this;
  w.def_.frame = WindowFrame{WindowFrame::Kind::kRows, MakeBound(start, true),
                             MakeBound(end, false)};
  return w;
}
WindowSpec WindowSpec::rangeBetween(int64_t start, int64_t end) const {
  WindowSpec w = *this;
  w.def_.frame = WindowFrame{WindowFrame::Kind::kRange, MakeBound(start, true),
                             MakeBound(end, false)};
  return w;
}

// --- functions
// --------------------------------------------------------------------------

namespace functions {

Column col(const std::string& name) {
  if (name == "*") return Column(Expr::Star());
  // "t.*" / "s.*": a qualified star (all columns of a relation or all fields of a
  // struct).
  if (name.size() > 2 && name.compare(name.size() - 2, 2, ".*") == 0) {
    auto qualifier =
        sql::ParseMultipartIdentifier(std::string_view(name).substr(0, name.size() - 2));
    if (qualifier.ok() && !qualifier->empty()) return Column(Expr::Star(*qualifier));
  }
  auto parts = sql::ParseMultipartIdentifier(name);
  if (parts.ok() && !parts->empty()) {
    if (parts->back() == "*") {
      parts->pop_back();
      return Column(Expr::Star(*parts));
    }
    return Column(Expr::Col(*parts));
  }
  return Column(Expr::Col(name));
}
Column column(const std::string& name) { return col(name); }
Column lit(Value v) { return Column::Lit(std::move(v)); }
Column expr(const std::string& sql_text) {
  return Column(ValueOrThrow(sql::ParseExpression(sql_text)));
}
std::vector<Column> WithOptionsArgument(
    std::vector<Column> args, const std::map<std::string, std::string>& options) {
  if (options.empty()) return args;
  std::vector<Column> kv;
  for (const auto& [k, v] : options) {
    kv.push_back(lit(k));
    kv.push_back(lit(v));
  }
  args.push_back(call_function("map", kv));
  return args;
}

Column call_function(const std::string& name, const std::vector<Column>& args) {
  return Column(Expr::Call(ToLower(name), Exprs(args)));
}

Column call_udf(const std::string& name, const std::vector<Column>& args) {
  return call_function(name, args);
}

Column count(const Column& c) {
  if (c.expr()->kind == ExprKind::kStar) return Call("count", {Expr::Lit(Value::Int(1))});
  return Unary("count", c);
}
Column count(const std::string& name) { return count(col(name)); }
Column countDistinct(const std::vector<Column>& cols) {
  return Column(Expr::Call("count", Exprs(cols), /*distinct=*/true));
}
Column count_distinct(const std::vector<Column>& cols) { return countDistinct(cols); }
Column sum(const Column& c) { return Unary("sum", c); }
Column sum(const std::string& name) { return sum(col(name)); }
Column sum_distinct(const Column& c) {
  return Column(Expr::Call("sum", {c.expr()}, true));
}
Column avg(const Column& c) { return Unary("avg", c); }
Column avg(const std::string& name) { return avg(col(name)); }
Column mean(const Column& c) { return Unary("mean", c); }
Column mean(const std::string& name) { return mean(col(name)); }
Column min(const Column& c) { return Unary("min", c); }
Column min(const std::string& name) { return min(col(name)); }
Column max(const Column& c) { return Unary("max", c); }
Column max(const std::string& name) { return max(col(name)); }
Column first(const Column& c, bool ignorenulls) {
  auto e = std::make_shared<Expr>(*Expr::Call("first", {c.expr()}));
  e->ignore_nulls = ignorenulls;
  return Column(e);
}
Column last(const Column& c, bool ignorenulls) {
  auto e = std::make_shared<Expr>(*Expr::Call("last", {c.expr()}));
  e->ignore_nulls = ignorenulls;
  return Column(e);
}
Column any_value(const Column& c, bool ignorenulls) {
  auto e = std::make_shared<Expr>(*Expr::Call("any_value", {c.expr()}));
  e->ignore_nulls = ignorenulls;
  return Column(e);
}

Column when(const Column& condition, const Column& value) {
  return Column(Expr::CaseWhen({condition.expr(), value.expr()}, nullptr));
}
Column coalesce(const std::vector<Column>& cols) { return Call("coalesce", Exprs(cols)); }
Column isnull(const Column& c) { return Unary("isnull", c); }
Column isnotnull(const Column& c) { return Unary("isnotnull", c); }
Column negate(const Column& c) { return Unary("negative", c); }
Column asc(const std::string& name) { return col(name).asc(); }
Column desc(const std::string& name) { return col(name).desc(); }
Column asc_nulls_first(const std::string& name) { return col(name).asc_nulls_first(); }
Column asc_nulls_last(const std::string& name) { return col(name).asc_nulls_last(); }
Column desc_nulls_first(const std::string& name) { return col(name).desc_nulls_first(); }
Column desc_nulls_last(const std::string& name) { return col(name).desc_nulls_last(); }

Column row_number() { return Call("row_number", {}); }
Column rank() { return Call("rank", {}); }
Column dense_rank() { return Call("dense_rank", {}); }
Column percent_rank() { return Call("percent_rank", {}); }
Column cume_dist() { return Call("cume_dist", {}); }
Column ntile(int n) { return Call("ntile", {Expr::Lit(Value::Int(n))}); }
Column lag(const Column& c, int offset, const Column* d) {
  std::vector<ExprPtr> args{c.expr(), Expr::Lit(Value::Int(offset))};
  if (d) args.push_back(d->expr());
  return Call("lag", args);
}
Column nth_value(const Column& c, int64_t offset, bool ignore_nulls) {
  return Call("nth_value", {c.expr(), Expr::Lit(Value::Long(offset)),
                            Expr::Lit(Value::Boolean(ignore_nulls))});
}
Column lead(const Column& c, int offset, const Column* d) {
  std::vector<ExprPtr> args{c.expr(), Expr::Lit(Value::Int(offset))};
  if (d) args.push_back(d->expr());
  return Call("lead", args);
}

}  // namespace functions
}  // namespace spate::api
