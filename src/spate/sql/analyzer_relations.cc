// Copyright spate authors.
// The analyzer: relations (tables and views, table functions, VALUES, file scans) and
// generators (SELECT-list generators and LATERAL VIEW).

#include "spate/sql/analyzer_internal.h"
#include "spate/sql/sql_keywords.h"

namespace spate::sql {

namespace {
// STREAM relations resolve once per node (LogicalPlan::resolved_stream).
std::mutex resolved_stream_mu;

Result<PlanPtr> ResolveRelationPlanOnce(
    const Catalog& catalog, const LogicalPlan& p,
    const std::vector<std::pair<std::string, Value>>& args) {
  if (!p.streaming) return catalog.ResolveRelationPlan(p, args);
  {
    std::lock_guard<std::mutex> lock(resolved_stream_mu);
    if (p.resolved_stream) return p.resolved_stream;
  }
  SPATE_ASSIGN_OR_RETURN(PlanPtr plan, catalog.ResolveRelationPlan(p, args));
  std::lock_guard<std::mutex> lock(resolved_stream_mu);
  if (!p.resolved_stream) p.resolved_stream = plan;
  return p.resolved_stream;
}
}  // namespace

Result<BoundPlanPtr> Analyzer::Impl::PlanRelation(const LogicalPlan& p) {
  const auto& name = p.table_name;
  if (p.streaming) {
    // STREAM name: the api reads the table (or a streaming view) as a stream.
    SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ResolveRelationPlanOnce(catalog_, p, {}));
    if (!plan) {
      return Status::Error("TABLE_OR_VIEW_NOT_FOUND",
                           {{"relationName", QuoteIdentifier(name)}})
          .WithPosition(p.position);
    }
    return Plan(*plan);
  }
  if (name.size() == 1) {
    std::string key = ToLower(name[0]);
    for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
      auto f = it->find(key);
      if (f != it->end()) {
        auto q = std::make_shared<BoundPlan>(*f->second);
        for (auto& a : q->output) a.qualifier = name[0];
        return Finish(q);
      }
    }
  }
  Catalog::TimeTravel travel{p.as_of_version, p.as_of_timestamp};
  if (name.size() == 2 && travel.empty()) {
    // `format`.`path`: files read directly (parquet.`/data/t`).
    SPATE_ASSIGN_OR_RETURN(DataSourcePtr source,
                           catalog_.ResolveFileSource(ToLower(name[0]), name[1]));
    if (source) {
      LogicalPlan files(PlanKind::kDataSource);
      files.source = source;
      return PlanDataSource(files);
    }
  }
  BoundPlanPtr view = travel.empty() ? catalog_.LookupView(name) : nullptr;
  if (!view) {
    // Tables (Delta, in the warehouse or by path with time travel).
    SPATE_ASSIGN_OR_RETURN(DataSourcePtr table, catalog_.ResolveTable(name, travel));
    if (table) {
      LogicalPlan files(PlanKind::kDataSource);
      files.source = table;
      SPATE_ASSIGN_OR_RETURN(BoundPlanPtr scan, PlanDataSource(files));
      auto q = std::make_shared<BoundPlan>(*scan);
      for (auto& a : q->output) a.qualifier = name.back();
      return Finish(q);
    }
    return Status::Error("TABLE_OR_VIEW_NOT_FOUND",
                         {{"relationName", QuoteIdentifier(name)}})
        .WithPosition(p.position);
  }
  auto q = std::make_shared<BoundPlan>(*view);
  for (auto& a : q->output) a.qualifier = name.back();
  return Finish(q);
}

// sql_keywords(): Spark's keyword table; `reserved` is true only for the ANSI-reserved
// words, and only when the parser enforces them (ANSI mode and enforceReservedKeywords).
Result<BoundPlanPtr> Analyzer::Impl::PlanSqlKeywords(const LogicalPlan& p) {
  if (!p.exprs.empty()) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`sql_keywords`"},
                          {"expectedNum", "0"},
                          {"actualNum", std::to_string(p.exprs.size())}})
        .WithPosition(p.position);
  }
  bool enforce =
      conf_.ansi() &&
      ToLower(conf_.GetOr("spark.sql.ansi.enforceReservedKeywords", "false")) == "true";
  std::vector<Value> names, reserved;
  for (const SqlKeyword& k : SqlKeywords()) {
    names.push_back(Value::String(std::string(k.name)));
    reserved.push_back(Value::Boolean(enforce && k.reserved_in_ansi));
  }
  std::vector<Field> fields{{"keyword", DataType::String(), false},
                            {"reserved", DataType::Boolean(), false}};
  auto schema = std::make_shared<const Schema>(fields);
  auto r = std::make_shared<BoundPlan>(BoundKind::kLocal);
  r->batches.push_back(Batch::Make(schema,
                                   {ColumnFromValues(fields[0].type, names),
                                    ColumnFromValues(fields[1].type, reserved)},
                                   static_cast<int64_t>(names.size())));
  for (const auto& f : fields)
    r->output.push_back(MakeAttr(f.name, f.type, f.nullable, p.alias));
  return Finish(r);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanTableFunction(const LogicalPlan& p) {
  std::string fname = ToLower(p.table_name.empty() ? "" : p.table_name[0]);
  if (p.table_name.size() == 1 && fname == "sql_keywords" && !p.streaming &&
      p.arg_names.empty()) {
    return PlanSqlKeywords(p);
  }
  if (p.table_name.size() == 1 &&
      (p.streaming || !p.arg_names.empty() || fname != "range")) {
    // Functions the api defines as DataFrame plans (read_files), batch or STREAM.
    std::vector<std::pair<std::string, Value>> args;
    for (size_t i = 0; i < p.exprs.size(); ++i) {
      SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*p.exprs[i], fname.c_str()));
      args.emplace_back(i < p.arg_names.size() ? p.arg_names[i] : "", std::move(v));
    }
    SPATE_ASSIGN_OR_RETURN(PlanPtr plan, ResolveRelationPlanOnce(catalog_, p, args));
    if (plan) return Plan(*plan);
    if (p.streaming || !p.arg_names.empty()) {
      return Status::Error("UNRESOLVABLE_TABLE_VALUED_FUNCTION",
                           {{"name", QuoteIdentifier(p.table_name)}});
    }
  }
  if (fname != "range") {
    if (p.table_name.size() == 1) {
      // Functions the api implements (Delta's table_changes).
      std::vector<Value> args;
      for (const auto& e : p.exprs) {
        SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*e, fname.c_str()));
        args.push_back(std::move(v));
      }
      SPATE_ASSIGN_OR_RETURN(DataSourcePtr source,
                             catalog_.ResolveTableFunction(fname, args));
      if (source) {
        LogicalPlan files(PlanKind::kDataSource);
        files.source = source;
        return PlanDataSource(files);
      }
    }
    if (p.table_name.size() == 1 && IsGeneratorName(fname)) {
      // A generator in FROM (SELECT * FROM stack(2, 1, 2)): it runs over one empty row.
      BoundPlanPtr child = std::make_shared<BoundPlan>(BoundKind::kOneRow);
      std::vector<ExprPtr> items{Expr::Call(fname, p.exprs)};
      SPATE_RETURN_IF_ERROR(PlanGenerator(&child, &items));
      auto q = std::make_shared<BoundPlan>(*child);
      for (auto& a : q->output) {
        a.qualifier = p.alias;
        a.plan_ids.clear();
      }
      return Finish(q);
    }
    return Status::Error("UNRESOLVABLE_TABLE_VALUED_FUNCTION",
                         {{"name", QuoteIdentifier(p.table_name)}});
  }
  std::vector<int64_t> args;
  for (const auto& e : p.exprs) {
    SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*e, "range"));
    if (v.is_null() || !v.type()->IsIntegral()) {
      return Status::Error("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                           {{"sqlExpr", "\"range(...)\""},
                            {"paramIndex", "first"},
                            {"requiredType", "\"BIGINT\""},
                            {"inputSql", "\"" + e->DisplayName() + "\""},
                            {"inputType", QuoteType(*v.type())}});
    }
    args.push_back(v.i64());
  }
  if (args.empty() || args.size() > 4) {
    return Status::Error("WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                         {{"functionName", "`range`"},
                          {"expectedNum", "[1, 2, 3, 4]"},
                          {"actualNum", std::to_string(args.size())}});
  }
  auto r = std::make_shared<BoundPlan>(BoundKind::kRange);
  if (args.size() == 1) {
    r->range_end = args[0];
  } else {
    r->range_start = args[0];
    r->range_end = args[1];
  }
  if (args.size() >= 3) r->range_step = args[2];
  if (r->range_step == 0) {
    return Status::Error("FAILED_FUNCTION_CALL", {{"funcName", "`range`"}});
  }
  r->num_partitions =
      args.size() == 4 ? static_cast<int>(args[3])
                       : std::atoi(conf_.GetOr("spark.default.parallelism", "2").c_str());
  r->output.push_back(MakeAttr("id", DataType::Long(), false));
  return Finish(r);
}

Result<BoundPlanPtr> Analyzer::Impl::PlanValues(const LogicalPlan& p) {
  std::vector<std::vector<Value>> rows;
  std::vector<std::vector<BoundExprPtr>> cells;  // the bound expressions, for nullability
  size_t width = p.rows.empty() ? 0 : p.rows[0].size();
  for (const auto& row : p.rows) {
    if (row.size() != width) {
      return Status::Error("INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH",
                           {{"expectedNumCols", std::to_string(width)},
                            {"actualNumCols", std::to_string(row.size())},
                            {"rowIndex", std::to_string(rows.size())}});
    }
    std::vector<Value> vals;
    std::vector<BoundExprPtr> bound;
    for (const auto& e : row) {
      BoundExprPtr b;
      SPATE_ASSIGN_OR_RETURN(auto v, EvalConstant(*e, "VALUES", &b));
      vals.push_back(std::move(v));
      bound.push_back(std::move(b));
    }
    rows.push_back(std::move(vals));
    cells.push_back(std::move(bound));
  }
  std::vector<Field> fields;
  std::vector<ColumnPtr> cols;
  EvalContext ctx;
  ctx.ansi = conf_.ansi();
  for (size_t c = 0; c < width; ++c) {
    std::vector<DataTypePtr> types;
    bool nullable = false;
    for (const auto& r : rows) {
      types.push_back(r[c].type());
      nullable |= r[c].is_null();
    }
    DataTypePtr t = CommonType(types);
    if (!t) {
      return Status::Error(
          "INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE",
          {{"colName", QuoteIdentifier({"col" + std::to_string(c + 1)})}});
    }
    std::vector<Value> vals;
    for (size_t i = 0; i < rows.size(); ++i) {
      SPATE_ASSIGN_OR_RETURN(auto v, CastValue(rows[i][c], t, CastMode::kAnsi, ctx));
      vals.push_back(std::move(v));
      // As Spark's inline tables: a column is nullable when an expression of it is, or
      // its cast to the column's type (CAST(1 AS DECIMAL(4,2)), Cast.forceNullable).
      auto cast = MakeCast(cells[i][c], t);
      nullable |= cells[i][c]->nullable() || (cast.ok() && (*cast)->nullable());
    }
    std::string name =
        c < p.column_aliases.size() ? p.column_aliases[c] : "col" + std::to_string(c + 1);
    fields.push_back(Field{name, t, nullable});
    cols.push_back(ColumnFromValues(t, vals));
  }
  auto schema = std::make_shared<const Schema>(fields);
  auto r = std::make_shared<BoundPlan>(BoundKind::kLocal);
  r->batches.push_back(Batch::Make(schema, cols, static_cast<int64_t>(rows.size())));
  for (const auto& f : fields)
    r->output.push_back(MakeAttr(f.name, f.type, f.nullable, p.alias));
  return Finish(r);
}

// A scan of files through a DataSource: its schema becomes the output attributes.
Result<BoundPlanPtr> Analyzer::Impl::PlanDataSource(const LogicalPlan& p) {
  if (!p.source) return Status::Internal("data source plan without a source");
  auto r = std::make_shared<BoundPlan>(BoundKind::kFileScan);
  r->source = p.source;
  for (const auto& f : p.source->schema()->fields())
    r->output.push_back(MakeAttr(f.name, f.type, f.nullable));
  return Finish(r);
}

// ---------------------------------------------------------------------------------------
// Generators (Spark's Generate): one per SELECT clause, at the top of a select item.

Status Analyzer::Impl::PlanGenerator(BoundPlanPtr* child, std::vector<ExprPtr>* items) {
  auto strip = [](const ExprPtr& e) -> const Expr& {
    return e->kind == ExprKind::kAlias ? *e->children[0] : *e;
  };
  std::vector<size_t> found;
  for (size_t i = 0; i < items->size(); ++i) {
    const Expr& e = strip((*items)[i]);
    if (e.kind == ExprKind::kCall && IsGeneratorName(e.name)) found.push_back(i);
  }
  if (found.empty()) return Status::OK();
  if (found.size() > 1) {
    std::string list;
    for (size_t k = 0; k < found.size(); ++k) {
      list += (k ? ", " : "") + ("\"" + strip((*items)[found[k]]).DisplayName() + "\"");
    }
    return Status::Error("UNSUPPORTED_GENERATOR.MULTI_GENERATOR",
                         {{"num", std::to_string(found.size())}, {"generators", list}});
  }
  const ExprPtr item = (*items)[found[0]];
  const Expr& call = strip(item);
  std::vector<BoundExprPtr> args;
  for (const auto& c : call.children) {
    SPATE_ASSIGN_OR_RETURN(auto b, Bind(*c, (*child)->output, nullptr));
    args.push_back(std::move(b));
  }
  SPATE_ASSIGN_OR_RETURN(GeneratorSpec spec,
                         ResolveGenerator(call.name, std::move(args)));
  std::vector<std::string> names;
  for (const auto& f : spec.output) names.push_back(f.name);
  if (item->kind == ExprKind::kAlias) {
    std::vector<std::string> aliases = item->name_parts.empty()
                                           ? std::vector<std::string>{item->name}
                                           : item->name_parts;
    if (aliases.size() != names.size()) {
      std::string got;
      for (size_t i = 0; i < aliases.size(); ++i) got += (i ? "," : "") + aliases[i];
      return Status::Error(
          "UDTF_ALIAS_NUMBER_MISMATCH",
          {{"aliasesSize", std::to_string(names.size())}, {"aliasesNames", got}});
    }
    names = aliases;
  }
  auto g = std::make_shared<BoundPlan>(BoundKind::kGenerate);
  g->children.push_back(*child);
  g->output = (*child)->output;
  std::vector<ExprPtr> refs;
  for (size_t i = 0; i < spec.output.size(); ++i) {
    Attribute a = MakeAttr(names[i], spec.output[i].type, spec.output[i].nullable);
    // A private tag so that the select item resolves to exactly this attribute even when
    // the child has a column of the same name.
    int64_t tag = (int64_t{1} << 52) + a.id;
    a.plan_ids.push_back(tag);
    auto ref = std::make_shared<Expr>(ExprKind::kColumn);
    ref->name_parts = {names[i]};
    ref->plan_id = tag;
    refs.push_back(ref);
    g->output.push_back(std::move(a));
  }
  g->generator = std::make_shared<const GeneratorSpec>(std::move(spec));
  items->erase(items->begin() + static_cast<std::ptrdiff_t>(found[0]));
  items->insert(items->begin() + static_cast<std::ptrdiff_t>(found[0]), refs.begin(),
                refs.end());
  *child = g;
  return Status::OK();
}

// LATERAL VIEW: the child's rows joined with what the generator makes of each (Spark's
// Generate with the child's columns kept); the generated columns are qualified by the
// view's alias.
Result<BoundPlanPtr> Analyzer::Impl::PlanLateralView(const LogicalPlan& p) {
  SPATE_ASSIGN_OR_RETURN(BoundPlanPtr child, Plan(*p.children[0]));
  ExprPtr item = p.exprs[0];
  const Expr& call = *item;
  if (call.kind != ExprKind::kCall || !IsGeneratorName(call.name)) {
    return Status::Error("UNSUPPORTED_GENERATOR.NOT_GENERATOR",
                         {{"functionName", "`" + call.name + "`"},
                          {"classCanonicalName", "LATERAL VIEW"}})
        .WithPosition(call.position);
  }
  if (!p.column_aliases.empty()) {
    auto alias = std::make_shared<Expr>(ExprKind::kAlias);
    alias->children.push_back(item);
    alias->name_parts = p.column_aliases;
    if (p.column_aliases.size() == 1) alias->name = p.column_aliases[0];
    item = alias;
  }
  std::vector<ExprPtr> items{item};
  const size_t before = child->output.size();
  SPATE_RETURN_IF_ERROR(PlanGenerator(&child, &items));
  auto g = std::make_shared<BoundPlan>(*child);
  for (size_t i = before; i < g->output.size(); ++i) {
    g->output[i].qualifier = p.alias;
    g->output[i].plan_ids.clear();
  }
  return Finish(g);
}

}  // namespace spate::sql
