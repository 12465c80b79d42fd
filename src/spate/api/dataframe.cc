// Copyright spate authors.
#include "spate/api/dataframe.h"

#include <iostream>

#include "spate/api/readwriter.h"
#include "spate/api/session_state.h"
#include "spate/columnar/kernels.h"
#include "spate/columnar/pretty.h"
#include "spate/sql/parser.h"
#include "spate/stream/unsupported_checker.h"
#include "spate/types/timezone.h"

namespace spate::api {

using sql::LogicalPlan;
using sql::PlanKind;
using sql::PlanPtr;

// ---- StructType
// -------------------------------------------------------------------------

StructType& StructType::add(const std::string& name, const std::string& ddl_type,
                            bool nullable) {
  return add(Field{name, ValueOrThrow(sql::ParseDataType(ddl_type)), nullable});
}
StructType& StructType::add(const std::string& name, const DataTypePtr& type,
                            bool nullable) {
  return add(Field{name, type, nullable});
}
StructType& StructType::add(Field field) {
  fields_.push_back(std::move(field));
  return *this;
}
StructType StructType::fromDDL(const std::string& ddl) {
  return StructType(ValueOrThrow(sql::ParseDdlSchema(ddl))->fields());
}
std::vector<std::string> StructType::fieldNames() const {
  std::vector<std::string> out;
  for (const auto& f : fields_) out.push_back(f.name);
  return out;
}
std::string StructType::simpleString() const { return Schema(fields_).ToString(); }
std::string StructType::treeString() const { return Schema(fields_).TreeString(); }
bool StructType::operator==(const StructType& o) const {
  return Schema(fields_).Equals(Schema(o.fields_));
}

// ---- Row
// --------------------------------------------------------------------------------

const Value& Row::operator[](const std::string& name) const {
  if (schema_) {
    int i = schema_->FieldIndex(name, /*case_sensitive=*/true);
    if (i < 0) i = schema_->FieldIndex(name);
    if (i >= 0) return values_.at(static_cast<size_t>(i));
  }
  ThrowStatus(Status::Invalid("Row has no field " + name));
}

std::string Row::toString() const {
  std::string out = "Row(";
  for (size_t i = 0; i < values_.size(); ++i) {
    if (i) out += ", ";
    if (schema_ && i < static_cast<size_t>(schema_->num_fields()))
      out += schema_->field(static_cast<int>(i)).name + "=";
    const Value& v = values_[i];
    if (v.is_null()) {
      out += "None";
    } else if (v.type()->id() == TypeId::kString) {
      out += "'" + v.str() + "'";
    } else if (v.type()->id() == TypeId::kBoolean) {
      out += v.i64() ? "True" : "False";
    } else {
      out += v.ToString();
    }
  }
  return out + ")";
}

// ---- DataFrame
// ----------------------------------------------------------------------------

namespace {

std::shared_ptr<LogicalPlan> Node(PlanKind kind, std::vector<PlanPtr> children) {
  auto p = std::make_shared<LogicalPlan>(kind);
  p->children = std::move(children);
  return p;
}

std::vector<ExprPtr> Exprs(const std::vector<Column>& cols) {
  std::vector<ExprPtr> out;
  for (const auto& c : cols) out.push_back(c.expr());
  return out;
}

ExprPtr ColumnByName(const std::string& name) {
  return Expr::Col(std::vector<std::string>{name});
}

}  // namespace

DataFrame::DataFrame(std::shared_ptr<SessionState> session, const PlanPtr& plan)
    : session_(std::move(session)), id_(session_->next_dataframe_id++) {
  auto root = std::make_shared<LogicalPlan>(*plan);
  root->plan_id = id_;
  plan_ = root;
  bound_ = ValueOrThrow(session_->Analyze(plan_));
}

DataFrame DataFrame::select(const std::vector<Column>& cols) const {
  auto p = Node(PlanKind::kProject, {plan_});
  p->exprs = Exprs(cols);
  return With(p);
}

DataFrame DataFrame::select(const std::vector<std::string>& cols) const {
  std::vector<Column> c;
  for (const auto& n : cols) c.push_back(functions::col(n));
  return select(c);
}

DataFrame DataFrame::selectExpr(const std::vector<std::string>& exprs) const {
  std::vector<Column> c;
  for (const auto& e : exprs) c.push_back(functions::expr(e));
  return select(c);
}

DataFrame DataFrame::filter(const Column& condition) const {
  auto p = Node(PlanKind::kFilter, {plan_});
  p->condition = condition.expr();
  return With(p);
}

DataFrame DataFrame::filter(const std::string& condition) const {
  return filter(functions::expr(condition));
}

DataFrame DataFrame::withColumns(
    const std::vector<std::pair<std::string, Column>>& cols) const {
  std::vector<ExprPtr> exprs;
  std::vector<bool> used(cols.size(), false);
  for (const auto& a : bound_->output) {
    bool replaced = false;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (EqualsIgnoreCase(a.name, cols[i].first)) {
        exprs.push_back(Expr::Alias(cols[i].second.expr(), cols[i].first));
        used[i] = replaced = true;
        break;
      }
    }
    if (!replaced) {
      auto e = std::make_shared<Expr>(*ColumnByName(a.name));
      e->plan_id = id_;
      exprs.push_back(e);
    }
  }
  for (size_t i = 0; i < cols.size(); ++i) {
    if (!used[i]) exprs.push_back(Expr::Alias(cols[i].second.expr(), cols[i].first));
  }
  auto p = Node(PlanKind::kProject, {plan_});
  p->exprs = std::move(exprs);
  return With(p);
}

DataFrame DataFrame::withColumn(const std::string& name, const Column& col) const {
  return withColumns({{name, col}});
}

DataFrame DataFrame::withColumnRenamed(const std::string& existing,
                                       const std::string& name) const {
  std::vector<ExprPtr> exprs;
  for (const auto& a : bound_->output) {
    auto e = std::make_shared<Expr>(*ColumnByName(a.name));
    e->plan_id = id_;
    exprs.push_back(EqualsIgnoreCase(a.name, existing) ? Expr::Alias(e, name)
                                                       : ExprPtr(e));
  }
  auto p = Node(PlanKind::kProject, {plan_});
  p->exprs = std::move(exprs);
  return With(p);
}

DataFrame DataFrame::drop(const std::vector<std::string>& cols) const {
  std::vector<ExprPtr> exprs;
  for (const auto& a : bound_->output) {
    bool dropped = false;
    for (const auto& c : cols) dropped |= EqualsIgnoreCase(a.name, c);
    if (dropped) continue;
    auto e = std::make_shared<Expr>(*ColumnByName(a.name));
    e->plan_id = id_;
    exprs.push_back(e);
  }
  auto p = Node(PlanKind::kProject, {plan_});
  p->exprs = std::move(exprs);
  return With(p);
}

DataFrame DataFrame::alias(const std::string& a) const {
  auto p = Node(PlanKind::kSubqueryAlias, {plan_});
  p->alias = a;
  return With(p);
}

GroupedData DataFrame::groupBy(const std::vector<Column>& cols) const {
  return GroupedData(*this, cols);
}

GroupedData DataFrame::groupBy(const std::vector<std::string>& cols) const {
  std::vector<Column> c;
  for (const auto& n : cols) c.push_back(functions::col(n));
  return GroupedData(*this, c);
}

DataFrame DataFrame::agg(const std::vector<Column>& exprs) const {
  return groupBy(std::vector<Column>{}).agg(exprs);
}

DataFrame DataFrame::join(const DataFrame& other, const std::vector<std::string>& on,
                          const std::string& how) const {
  auto type = sql::ParseJoinType(how);
  if (!type) {
    ThrowStatus(Status::Invalid(
        "Unsupported join type '" + how +
        "'. Supported join types include: 'inner', 'outer', 'full', 'fullouter', "
        "'full_outer', "
        "'leftouter', 'left', 'left_outer', 'rightouter', 'right', 'right_outer', "
        "'leftsemi', "
        "'left_semi', 'semi', 'leftanti', 'left_anti', 'anti', 'cross'."));
  }
  auto p = Node(PlanKind::kJoin, {plan_, other.plan_});
  p->join_type = *type;
  p->using_columns = on;
  return With(p);
}

DataFrame DataFrame::join(const DataFrame& other, const Column& on,
                          const std::string& how) const {
  auto type = sql::ParseJoinType(how);
  if (!type) return join(other, std::vector<std::string>{}, how);  // throws
  auto p = Node(PlanKind::kJoin, {plan_, other.plan_});
  p->join_type = *type;
  p->condition = on.expr();
  return With(p);
}

DataFrame DataFrame::join(const DataFrame& other) const { return crossJoin(other); }

DataFrame DataFrame::crossJoin(const DataFrame& other) const {
  auto p = Node(PlanKind::kJoin, {plan_, other.plan_});
  p->join_type = sql::JoinType::kCross;
  return With(p);
}

DataFrame DataFrame::orderBy(const std::vector<Column>& cols) const {
  auto p = Node(PlanKind::kSort, {plan_});
  for (const auto& c : cols) {
    const ExprPtr& e = c.expr();
    p->sort.push_back(e->kind == ExprKind::kSortOrder ? e->sort
                                                      : SortSpec{e, true, true});
  }
  return With(p);
}

DataFrame DataFrame::orderBy(const std::vector<std::string>& cols) const {
  std::vector<Column> c;
  for (const auto& n : cols) c.push_back(functions::col(n));
  return orderBy(c);
}

DataFrame DataFrame::limit(int64_t n) const {
  auto p = Node(PlanKind::kLimit, {plan_});
  p->count = Expr::Lit(Value::Int(static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX))));
  return With(p);
}

DataFrame DataFrame::offset(int64_t n) const {
  auto p = Node(PlanKind::kOffset, {plan_});
  p->count = Expr::Lit(Value::Int(static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX))));
  return With(p);
}

DataFrame DataFrame::SetOp(const DataFrame& other, sql::SetOpKind kind, bool all,
                           bool by_name, bool allow_missing) const {
  auto p = Node(PlanKind::kSetOperation, {plan_, other.plan_});
  p->set_op = kind;
  p->set_all = all;
  p->by_name = by_name;
  p->allow_missing_columns = allow_missing;
  return With(p);
}

DataFrame DataFrame::union_(const DataFrame& other) const {
  return SetOp(other, sql::SetOpKind::kUnion, true);
}
DataFrame DataFrame::unionByName(const DataFrame& other, bool allow_missing) const {
  return SetOp(other, sql::SetOpKind::kUnion, true, true, allow_missing);
}
DataFrame DataFrame::intersect(const DataFrame& other) const {
  return SetOp(other, sql::SetOpKind::kIntersect, false);
}
DataFrame DataFrame::intersectAll(const DataFrame& other) const {
  return SetOp(other, sql::SetOpKind::kIntersect, true);
}
DataFrame DataFrame::subtract(const DataFrame& other) const {
  return SetOp(other, sql::SetOpKind::kExcept, false);
}
DataFrame DataFrame::exceptAll(const DataFrame& other) const {
  return SetOp(other, sql::SetOpKind::kExcept, true);
}

DataFrame DataFrame::distinct() const { return With(Node(PlanKind::kDistinct, {plan_})); }

DataFrame DataFrame::dropDuplicates(const std::vector<std::string>& subset) const {
  auto p = Node(PlanKind::kDeduplicate, {plan_});
  for (const auto& n : subset) p->exprs.push_back(functions::col(n).expr());
  return With(p);
}

DataFrame DataFrame::dropDuplicatesWithinWatermark(
    const std::vector<std::string>& subset) const {
  auto p = Node(PlanKind::kDeduplicate, {plan_});
  for (const auto& n : subset) p->exprs.push_back(functions::col(n).expr());
  p->within_watermark = true;
  return With(p);
}

DataFrame DataFrame::withWatermark(const std::string& eventTime,
                                   const std::string& delayThreshold) const {
  auto p = Node(PlanKind::kEventTimeWatermark, {plan_});
  p->exprs.push_back(functions::col(eventTime).expr());
  p->delay = delayThreshold;
  return With(p);
}

DataFrame DataFrame::coalesce(int n) const {
  auto p = Node(PlanKind::kRepartition, {plan_});
  p->num_partitions = n;
  p->shuffle = false;
  return With(p);
}

DataFrame DataFrame::hint(const std::string& name,
                          const std::vector<Column>& parameters) const {
  auto p = Node(PlanKind::kHint, {plan_});
  p->hint_name = name;
  p->exprs = Exprs(parameters);
  return With(p);
}

namespace functions {
DataFrame broadcast(const DataFrame& df) { return df.hint("broadcast"); }
}  // namespace functions

DataFrame DataFrame::repartition(int n) const {
  auto p = Node(PlanKind::kRepartition, {plan_});
  p->num_partitions = n;
  return With(p);
}

DataFrame DataFrame::repartition(int n, const std::vector<Column>& cols) const {
  auto p = Node(PlanKind::kRepartition, {plan_});
  p->num_partitions = n;
  p->exprs = Exprs(cols);
  return With(p);
}

// -- actions --

DataFrameWriter DataFrame::write() const {
  if (isStreaming()) {
    ThrowStatus(Status::Error("CALL_ON_STREAMING_DATASET_UNSUPPORTED",
                              {{"methodName", "`write`"}}));
  }
  return DataFrameWriter(*this);
}

std::vector<BatchPtr> DataFrame::collectBatches() const {
  if (isStreaming()) ThrowStatus(stream::BatchActionOnStreamError());
  return ValueOrThrow(session_->Execute(bound_));
}

std::vector<Row> DataFrame::collect() const {
  SchemaPtr schema = bound_->OutputSchema();
  std::vector<Row> rows;
  for (const auto& b : collectBatches()) {
    for (int64_t i = 0; i < b->num_rows(); ++i) rows.emplace_back(b->GetRow(i), schema);
  }
  return rows;
}

int64_t DataFrame::count() const {
  auto rows = agg({functions::count(functions::lit(1))}).collect();
  return rows.empty() ? 0 : rows[0][0].i64();
}

std::optional<Row> DataFrame::first() const {
  auto rows = take(1);
  if (rows.empty()) return std::nullopt;
  return rows[0];
}

std::vector<Row> DataFrame::take(int64_t n) const { return limit(n).collect(); }

std::vector<Row> DataFrame::tail(int64_t n) const {
  auto rows = collect();
  if (static_cast<int64_t>(rows.size()) > n) rows.erase(rows.begin(), rows.end() - n);
  return rows;
}

bool DataFrame::isEmpty() const { return take(1).empty(); }

std::string DataFrame::showString(int n, int truncate, bool vertical) const {
  if (n < 0) n = 0;
  std::vector<BatchPtr> batches = limit(static_cast<int64_t>(n) + 1).collectBatches();
  int64_t total = 0;
  for (const auto& b : batches) total += b->num_rows();
  bool has_more = total > n;
  if (has_more) {
    BatchPtr all = ConcatBatches(bound_->OutputSchema(), batches);
    batches = {SliceBatch(*all, 0, n)};
  }
  CellFormatOptions opts;
  opts.time_zone = TimeZone::Lookup(session_->conf.session_time_zone());
  return ShowString(batches, *bound_->OutputSchema(), n, truncate, vertical, has_more,
                    opts);
}

void DataFrame::show(int n, int truncate, bool vertical) const {
  std::cout << showString(n, truncate, vertical) << "\n";
  std::cout.flush();
}

void DataFrame::printSchema() const {
  std::cout << bound_->OutputSchema()->TreeString() << "\n";
  std::cout.flush();
}

StructType DataFrame::schema() const {
  return StructType(bound_->OutputSchema()->fields());
}

std::vector<std::string> DataFrame::columns() const {
  return bound_->OutputSchema()->names();
}

std::vector<std::pair<std::string, std::string>> DataFrame::dtypes() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& a : bound_->output) out.emplace_back(a.name, a.type->SimpleString());
  return out;
}

Column DataFrame::operator[](const std::string& name) const {
  auto parts = sql::ParseMultipartIdentifier(name);
  auto e = std::make_shared<Expr>(
      *Expr::Col(parts.ok() ? *parts : std::vector<std::string>{name}));
  e->plan_id = id_;
  // Resolve now so a bad name fails here, as in PySpark.
  sql::Analyzer analyzer(session_->catalog, session_->conf);
  CheckOrThrow(analyzer.BindExpression(e, bound_->output).status());
  return Column(e);
}

Column DataFrame::colRegex(const std::string& colName) const {
  // As Spark's patterns: `regex` (one or more characters between backticks), else
  // qualifier.`regex` (the longest qualifier, one character, then the backticked regex).
  const size_t n = colName.size();
  if (n >= 3 && colName.back() == '`') {
    if (colName[0] == '`') return Column(Expr::RegexStar(colName.substr(1, n - 2)));
    size_t open = colName.rfind('`', n - 3);
    if (open != std::string::npos && open >= 2) {
      return Column(Expr::RegexStar(colName.substr(open + 1, n - open - 2),
                                    {colName.substr(0, open - 1)}));
    }
  }
  return (*this)[colName];
}

void DataFrame::createOrReplaceTempView(const std::string& name) const {
  CheckOrThrow(session_->catalog.CreateTempView(name, bound_, true));
}
void DataFrame::createTempView(const std::string& name) const {
  CheckOrThrow(session_->catalog.CreateTempView(name, bound_, false));
}
void DataFrame::createGlobalTempView(const std::string& name) const {
  CheckOrThrow(session_->catalog.CreateTempView(name, bound_, false, true));
}
void DataFrame::createOrReplaceGlobalTempView(const std::string& name) const {
  CheckOrThrow(session_->catalog.CreateTempView(name, bound_, true, true));
}

std::string DataFrame::explainString(const std::string& mode) const {
  return ValueOrThrow(session_->Explain(plan_, mode));
}
void DataFrame::explain(bool extended) const {
  explain(std::string(extended ? "extended" : "simple"));
}
void DataFrame::explain(const std::string& mode) const {
  std::cout << explainString(mode) << "\n";
  std::cout.flush();
}

// ---- GroupedData
// ------------------------------------------------------------------------------

DataFrame GroupedData::agg(const std::vector<Column>& exprs) const {
  if (has_sets_) return AggGroupingSets(exprs);
  auto p = Node(PlanKind::kAggregate, {df_.plan()});
  p->group_by = Exprs(keys_);
  p->exprs = Exprs(keys_);
  for (const auto& e : exprs) p->exprs.push_back(e.expr());
  return DataFrame(df_.session(), p);
}

DataFrame GroupedData::transformWithState(stream::StatefulProcessorFactory factory,
                                          const StructType& output_schema,
                                          const std::string& output_mode,
                                          const std::string& time_mode,
                                          const std::string& operator_name) const {
  return TransformWithState(std::move(factory), output_schema, output_mode, time_mode,
                            operator_name, nullptr);
}

DataFrame GroupedData::TransformWithState(stream::StatefulProcessorFactory factory,
                                          const StructType& output_schema,
                                          const std::string& output_mode,
                                          const std::string& time_mode,
                                          const std::string& operator_name,
                                          const GroupedData* initial_state) const {
  const stream::OutputMode mode = ValueOrThrow(stream::ParseOutputMode(output_mode));
  if (mode == stream::OutputMode::kComplete) {
    CheckOrThrow(
        Status::Error("STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                      {{"outputMode", "complete"}, {"operation", "transformWithState"}}));
  }
  auto tm = stream::ParseTimeMode(time_mode);
  if (!tm) {
    CheckOrThrow(
        Status::Error("STATEFUL_PROCESSOR_UNKNOWN_TIME_MODE", {{"timeMode", time_mode}}));
  }
  auto p = Node(PlanKind::kGroupedExtension, {df_.plan()});
  p->group_by = Exprs(keys_);
  p->schema = output_schema.ToSchema();
  auto node = std::make_shared<stream::TransformWithStateNode>(
      std::move(factory), p->schema, mode, *tm, operator_name);
  if (initial_state)
    node->set_initial_state(InitialStateOf(*initial_state, {}, {}, false));
  p->extension = std::move(node);
  return DataFrame(df_.session(), p);
}

DataFrame GroupedData::transformWithState(stream::StatefulProcessorFactory factory,
                                          const StructType& output_schema,
                                          const std::string& output_mode,
                                          const std::string& time_mode,
                                          const GroupedData& initial_state) const {
  return TransformWithState(std::move(factory), output_schema, output_mode, time_mode,
                            "transformWithStateExec", &initial_state);
}

DataFrame GroupedData::flatMapGroupsWithState(stream::GroupStateFunction fn,
                                              const StructType& output_schema,
                                              const StructType& state_schema,
                                              const std::string& output_mode,
                                              const std::string& timeout) const {
  return WithGroupState(std::move(fn), output_schema, state_schema, output_mode, timeout,
                        nullptr, false);
}

DataFrame GroupedData::flatMapGroupsWithState(stream::GroupStateFunction fn,
                                              const StructType& output_schema,
                                              const StructType& state_schema,
                                              const std::string& output_mode,
                                              const std::string& timeout,
                                              const GroupedData& initial_state) const {
  return WithGroupState(std::move(fn), output_schema, state_schema, output_mode, timeout,
                        &initial_state, false);
}

namespace {
stream::GroupStateFunction OneRowPerCall(GroupedData::MapGroupsFunction fn) {
  return [fn = std::move(fn)](const stream::ProcessorRow& key,
                              const std::vector<stream::ProcessorRow>& rows,
                              stream::GroupState& state) {
    return std::vector<stream::ProcessorRow>{fn(key, rows, state)};
  };
}
}  // namespace

DataFrame GroupedData::mapGroupsWithState(MapGroupsFunction fn,
                                          const StructType& output_schema,
                                          const StructType& state_schema,
                                          const std::string& timeout) const {
  return WithGroupState(OneRowPerCall(std::move(fn)), output_schema, state_schema,
                        "update", timeout, nullptr, true);
}

DataFrame GroupedData::mapGroupsWithState(MapGroupsFunction fn,
                                          const StructType& output_schema,
                                          const StructType& state_schema,
                                          const std::string& timeout,
                                          const GroupedData& initial_state) const {
  return WithGroupState(OneRowPerCall(std::move(fn)), output_schema, state_schema,
                        "update", timeout, &initial_state, true);
}

DataFrame GroupedData::WithGroupState(
    stream::GroupStateFunction fn, const StructType& output_schema,
    const StructType& state_schema, const std::string& output_mode,
    const std::string& timeout, const GroupedData* initial_state, bool map_groups) const {
  auto t = stream::ParseGroupStateTimeout(timeout);
  if (!t) {
    CheckOrThrow(
        Status::Error("_LEGACY_ERROR_TEMP_3102",
                      {{"msg", "Unknown timeout conf " + timeout +
                                   ": expected NoTimeout, ProcessingTimeTimeout or "
                                   "EventTimeTimeout"}}));
  }
  const stream::TimeMode time_mode =
      *t == stream::GroupStateTimeout::kProcessingTimeTimeout
          ? stream::TimeMode::kProcessingTime
      : *t == stream::GroupStateTimeout::kEventTimeTimeout ? stream::TimeMode::kEventTime
                                                           : stream::TimeMode::kNone;
  const stream::OutputMode mode = ValueOrThrow(stream::ParseOutputMode(output_mode));
  auto p = Node(PlanKind::kGroupedExtension, {df_.plan()});
  p->group_by = Exprs(keys_);
  p->schema = output_schema.ToSchema();
  auto node = std::make_shared<stream::TransformWithStateNode>(
      stream::GroupStateProcessorFactory(std::move(fn), state_schema.ToSchema(), *t),
      p->schema, mode, time_mode, "flatMapGroupsWithState");
  node->set_map_groups_with_state(map_groups);
  if (initial_state) {
    std::vector<std::string> names;
    std::vector<DataTypePtr> types;
    for (const auto& f : state_schema.fields()) {
      names.push_back(f.name);
      types.push_back(f.type);
    }
    node->set_initial_state(InitialStateOf(*initial_state, names, types, true));
  }
  p->extension = std::move(node);
  return DataFrame(df_.session(), p);
}

std::shared_ptr<const stream::InitialState> GroupedData::InitialStateOf(
    const GroupedData& initial, const std::vector<std::string>& columns,
    const std::vector<DataTypePtr>& types, bool group_state) const {
  if (initial.df_.isStreaming()) {
    CheckOrThrow(Status::Error(
        "_LEGACY_ERROR_TEMP_3102",
        {{"msg",
          "Non-streaming DataFrame/Dataset is not supported as the initial state in "
          "[flatMap|map]GroupsWithState operation on a streaming DataFrame/Dataset"}}));
  }
  // The keys must have the input's key types: both sides are exchanged by them.
  const DataFrame in_key_df = df_.select(keys_);
  const auto& in_keys = in_key_df.analyzed()->output;
  std::vector<Column> sel;
  for (size_t i = 0; i < initial.keys_.size(); ++i)
    sel.push_back(initial.keys_[i].alias("__initial_state_key" + std::to_string(i)));
  const DataFrame init_key_df = initial.df_.select(sel);
  const auto& init_keys = init_key_df.analyzed()->output;
  bool same = in_keys.size() == init_keys.size();
  std::string want, got;
  for (size_t i = 0; i < in_keys.size(); ++i)
    want += (i ? ", " : "") + in_keys[i].type->SimpleString();
  for (size_t i = 0; i < init_keys.size(); ++i) {
    got += (i ? ", " : "") + init_keys[i].type->SimpleString();
    same = same && i < in_keys.size() && init_keys[i].type->Equals(*in_keys[i].type);
  }
  if (!same) {
    CheckOrThrow(Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg", "The initial state's grouping keys (" + got +
                     ") must have the types of the input's grouping keys (" + want +
                     ")"}}));
  }
  if (columns.empty()) {
    for (const auto& a : initial.df_.analyzed()->output)
      sel.push_back(functions::col(a.name));
  } else {
    for (size_t i = 0; i < columns.size(); ++i) {
      Column c = functions::col(columns[i]);
      if (i < types.size() && types[i]) c = c.cast(types[i]);
      sel.push_back(c.alias(columns[i]));
    }
  }
  DataFrame rows = initial.df_.select(sel);
  auto is = std::make_shared<stream::InitialState>();
  is->schema = rows.analyzed()->OutputSchema();
  is->num_keys = static_cast<int>(initial.keys_.size());
  is->group_state = group_state;
  is->skip_keys_without_rows = EqualsIgnoreCase(
      df_.session()->conf.GetOr(
          "spark.sql.streaming.flatMapGroupsWithState.skipEmittingInitialStateKeys",
          "false"),
      "true");
  const std::shared_ptr<SessionState>& session = rows.session();
  const sql::BoundPlanPtr& plan = rows.analyzed();
  is->load = [session, plan]() { return session->Execute(plan); };
  return is;
}

DataFrame GroupedData::count() const {
  return agg({functions::count(functions::lit(1)).alias("count")});
}

DataFrame GroupedData::Numeric(const std::string& fn,
                               const std::vector<std::string>& cols) const {
  std::vector<Column> exprs;
  if (cols.empty()) {
    for (const auto& a : df_.analyzed()->output) {
      if (!a.type->IsNumeric()) continue;
      bool is_key = false;
      for (const auto& k : keys_) {
        is_key |= k.expr()->kind == ExprKind::kColumn &&
                  EqualsIgnoreCase(k.expr()->name_parts.back(), a.name);
      }
      if (!is_key)
        exprs.push_back(functions::call_function(fn, {functions::col(a.name)}));
    }
  } else {
    for (const auto& c : cols) {
      // Spark's RelationalGroupedDataset: named columns must be numeric.
      for (const auto& a : df_.analyzed()->output) {
        if (EqualsIgnoreCase(a.name, c) && !a.type->IsNumeric()) {
          ThrowStatus(Status::Error("_LEGACY_ERROR_TEMP_1323", {{"colName", c}}));
        }
      }
      exprs.push_back(functions::call_function(fn, {functions::col(c)}));
    }
  }
  return agg(exprs);
}

DataFrame GroupedData::sum(const std::vector<std::string>& cols) const {
  return Numeric("sum", cols);
}
DataFrame GroupedData::avg(const std::vector<std::string>& cols) const {
  return Numeric("avg", cols);
}
DataFrame GroupedData::min(const std::vector<std::string>& cols) const {
  return Numeric("min", cols);
}
DataFrame GroupedData::max(const std::vector<std::string>& cols) const {
  return Numeric("max", cols);
}

}  // namespace spate::api
