// Copyright spate authors.
#include "spate/api/delta_dml.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <map>
#include <set>

#include "spate/api/delta_table.h"
#include "spate/api/exceptions.h"
#include "spate/api/session_state.h"
#include "spate/base/json.h"
#include "spate/base/text_parse.h"
#include "spate/base/thread_pool.h"
#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/exec/executor.h"
#include "spate/sql/analyzer.h"
#include "spate/sql/parser.h"
#include "spate/table/deletion_vector.h"
#include "spate/table/delta_compaction.h"
#include "spate/table/delta_source.h"
#include "spate/table/transaction.h"

namespace spate::api {

namespace {

using table::AddFile;

constexpr const char* kFileName = "__spate_dml_file";
constexpr const char* kFileIndex = "__spate_dml_file_index";

io::FileSystemPtr Fs() { return io::LocalFileSystem::Get(); }

// A one-row DataFrame of (name, value) columns.
DataFrame OneRow(const std::shared_ptr<SessionState>& state,
                 const std::vector<std::pair<std::string, Value>>& cols) {
  std::vector<Field> fields;
  std::vector<ColumnPtr> columns;
  for (const auto& [name, v] : cols) {
    fields.push_back(Field{name, v.type(), true, ""});
    columns.push_back(ColumnFromValues(v.type(), {v}));
  }
  auto schema = std::make_shared<const Schema>(fields);
  return DataFrame(state, LocalPlan(schema, {Batch::Make(schema, columns, 1)}));
}

DataFrame AffectedRows(const std::shared_ptr<SessionState>& state, int64_t n) {
  return OneRow(state, {{"num_affected_rows", Value::Long(n)}});
}

ExprPtr AndAll(const std::vector<ExprPtr>& parts) {
  if (parts.empty()) return nullptr;
  Column c(parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) c = c && Column(parts[i]);
  return c.expr();
}

// The column a reference names, when it is `c` or `<alias>.c`; "" otherwise.
std::string RefName(const ExprPtr& e, const std::string& alias) {
  const auto& np = e->name_parts;
  if (np.size() == 1) return np[0];
  if (np.size() == 2 && !alias.empty() && EqualsIgnoreCase(np[0], alias)) return np[1];
  return "";
}

// True when every column `e` references is one of `cols` (and it has no subquery).
bool RefsOnly(const ExprPtr& e, const std::vector<std::string>& cols,
              const std::string& alias, std::string* offending = nullptr) {
  if (!e) return true;
  if (e->kind == ExprKind::kScalarSubquery || e->kind == ExprKind::kExists ||
      e->kind == ExprKind::kInSubquery || e->kind == ExprKind::kLambda) {
    return false;
  }
  if (e->kind == ExprKind::kColumn) {
    std::string name = RefName(e, alias);
    for (const auto& c : cols)
      if (!name.empty() && EqualsIgnoreCase(c, name)) return true;
    if (offending) {
      *offending = name.empty() ? e->name_parts.back() : name;
    }
    return false;
  }
  for (const auto& c : e->children)
    if (!RefsOnly(c, cols, alias, offending)) return false;
  return true;
}

// One row per file with its typed partition values (under the alias) and its index.
DataFrame PartitionValuesFrame(const std::shared_ptr<SessionState>& state,
                               const table::Snapshot& snapshot,
                               const std::vector<AddFile>& files,
                               const std::string& alias) {
  const Schema& schema = *snapshot.schema();
  std::vector<Field> fields;
  std::vector<ColumnPtr> cols;
  std::vector<std::pair<std::string, DataTypePtr>> typed;
  for (const auto& p : snapshot.metadata().partition_columns) {
    int idx = schema.FieldIndex(p);
    if (idx < 0) continue;
    std::vector<Value> values;
    for (const auto& f : files) {
      Value v = Value::Null(DataType::String());
      for (const auto& [k, val] : f.partition_values) {
        if (EqualsIgnoreCase(k, p) && val && !val->empty()) v = Value::String(*val);
      }
      values.push_back(std::move(v));
    }
    fields.push_back(Field{schema.field(idx).name, DataType::String(), true, ""});
    cols.push_back(ColumnFromValues(DataType::String(), values));
    typed.emplace_back(schema.field(idx).name, schema.field(idx).type);
  }
  std::vector<Value> index;
  for (size_t i = 0; i < files.size(); ++i)
    index.push_back(Value::Long(static_cast<int64_t>(i)));
  fields.push_back(Field{kFileIndex, DataType::Long(), false, ""});
  cols.push_back(ColumnFromValues(DataType::Long(), index));
  auto raw_schema = std::make_shared<const Schema>(fields);
  DataFrame raw(state,
                LocalPlan(raw_schema, {Batch::Make(raw_schema, cols,
                                                   static_cast<int64_t>(files.size()))}));
  std::vector<Column> out;
  for (const auto& [name, type] : typed) out.push_back(raw[name].cast(type).alias(name));
  out.push_back(raw[kFileIndex]);
  DataFrame df = raw.select(out);
  return alias.empty() ? df : df.alias(alias);
}

}  // namespace

// The files whose partition values satisfy `pred` (which references partition columns
// only); nullptr: all of them.
std::vector<AddFile> FilterByPartitions(const std::shared_ptr<SessionState>& state,
                                        const table::Snapshot& snapshot,
                                        const std::vector<AddFile>& files,
                                        const ExprPtr& pred, const std::string& alias) {
  if (!pred || files.empty()) return files;
  DataFrame pv = PartitionValuesFrame(state, snapshot, files, alias);
  std::vector<AddFile> out;
  for (const auto& b :
       pv.filter(Column(pred)).select({functions::col(kFileIndex)}).collectBatches()) {
    const int64_t* idx = b->column(0)->raw_values<int64_t>();
    for (int64_t r = 0; r < b->num_rows(); ++r)
      out.push_back(files[static_cast<size_t>(idx[r])]);
  }
  return out;
}

// The conflict-check form of a partition predicate.
table::OptimisticTransaction::PartitionFilter PartitionReader(
    const std::shared_ptr<SessionState>& state, const table::SnapshotPtr& snapshot,
    const ExprPtr& pred, const std::string& alias) {
  return [=](const table::PartitionValues& pv) {
    AddFile probe;
    probe.partition_values = pv;
    try {
      return !FilterByPartitions(state, *snapshot, {probe}, pred, alias).empty();
    } catch (const std::exception&) {
      return true;  // when in doubt, the commit read it
    }
  };
}

namespace {

int64_t ConfBytes(const SessionState& s, const std::string& key, int64_t fallback) {
  std::string v = s.conf.GetOr(key, "");
  if (v.empty()) return fallback;
  size_t used = 0;
  const auto n = ParseDoublePrefix(v, &used);
  if (!n) return fallback;
  std::string unit = ToLower(v.substr(used));
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  int64_t mult = 1;
  if (unit == "k" || unit == "kb") mult = 1LL << 10;
  if (unit == "m" || unit == "mb") mult = 1LL << 20;
  if (unit == "g" || unit == "gb") mult = 1LL << 30;
  if (unit == "t" || unit == "tb") mult = 1LL << 40;
  return static_cast<int64_t>(*n * static_cast<double>(mult));
}

bool ConfTrue(const SessionState& s, const std::string& key, bool fallback) {
  std::string v = ToLower(s.conf.GetOr(key, fallback ? "true" : "false"));
  return v == "true";
}

}  // namespace

formats::FilePacking FilePackingOf(const SessionState& s) {
  formats::FilePacking p;
  p.open_cost_bytes = ConfBytes(s, "spark.sql.files.openCostInBytes", 4LL << 20);
  p.max_partition_bytes = ConfBytes(s, "spark.sql.files.maxPartitionBytes", 128LL << 20);
  for (const char* k : {"spark.sql.files.minPartitionNum", "spark.default.parallelism"}) {
    std::string v = s.conf.GetOr(k, "");
    if (p.min_partitions == 0) p.min_partitions = ParseInt64(v).value_or(0);
  }
  if (p.min_partitions <= 0)
    p.min_partitions = std::max(1, s.MakeExecOptions().parallelism);
  return p;
}

namespace {

// The tasks Spark's file scan makes of `files` (FilePartition packing: files sorted by
// size, descending, packed up to maxSplitBytes counting openCostInBytes per file; a file
// is not split here): each is one file of a copy-on-write rewrite in Delta.
std::vector<std::vector<AddFile>> SparkScanBins(const SessionState& s,
                                                std::vector<AddFile> files) {
  std::vector<std::vector<AddFile>> bins;
  if (files.empty()) return bins;
  const formats::FilePacking packing = FilePackingOf(s);
  std::vector<int64_t> sizes;
  for (const auto& f : files) sizes.push_back(f.size);
  for (const auto& bin : formats::PackLikeSpark(
           sizes, formats::SparkMaxSplitBytes(sizes, packing), packing.open_cost_bytes)) {
    bins.emplace_back();
    for (size_t i : bin) bins.back().push_back(std::move(files[i]));
  }
  return bins;
}

// Writes each bin of files, transformed by `transform`, as one task (one file per
// partition value it holds), all in one commit with `o`.
void WriteBins(const std::shared_ptr<SessionState>& state,
               const table::SnapshotPtr& snapshot, const DeltaDmlTarget& target,
               const std::vector<std::vector<AddFile>>& bins,
               const std::function<DataFrame(const DataFrame&)>& transform,
               const table::DeltaWriteOptions& o) {
  std::vector<std::shared_ptr<const exec::PhysicalPlan>> plans;
  auto exec_options = state->MakeExecOptions();
  SchemaPtr schema;
  for (const auto& b : bins) {
    DataFrame df = DeltaFilesFrame(state, snapshot, b);
    if (!target.alias.empty()) df = df.alias(target.alias);
    df = transform(df).coalesce(1);
    if (!schema) schema = df.analyzed()->OutputSchema();
    plans.push_back(ValueOrThrow(exec::CreatePhysicalPlan(df.analyzed(), exec_options)));
  }
  if (!schema) schema = snapshot->schema();
  ValueOrThrow(table::WriteDelta(
      Fs(), target.path, schema, std::max<int>(1, static_cast<int>(plans.size())),
      [&](const table::BatchSink& sink) -> Status {
        // The bins in parallel, each one task (one writer partition).
        return ThreadPool::Default().ParallelFor(
            static_cast<int64_t>(plans.size()), std::max(1, exec_options.parallelism),
            [&](int64_t i) {
              return exec::ExecuteToSink(*plans[static_cast<size_t>(i)], exec_options,
                                         [&, i](int, const BatchPtr& b) -> Status {
                                           if (b->num_rows() == 0) return Status::OK();
                                           return sink(static_cast<int>(i), b);
                                         });
            });
      },
      o));
}

std::optional<int64_t> NumRecords(const AddFile& f) {
  if (!f.stats) return std::nullopt;
  auto j = Json::Parse(*f.stats);
  if (!j.ok()) return std::nullopt;
  const Json* n = j->Find("numRecords");
  if (!n || n->is_null()) return std::nullopt;
  return n->int_value();
}

// `files` with input_file_name() as kFileName, under the alias.
DataFrame WithFileNames(const std::shared_ptr<SessionState>& state,
                        const table::SnapshotPtr& snapshot, std::vector<AddFile> files,
                        const std::string& alias) {
  DataFrame df = DeltaFilesFrame(state, snapshot, std::move(files))
                     .withColumn(kFileName, functions::expr("input_file_name()"));
  return alias.empty() ? df : df.alias(alias);
}

DataFrame Aliased(const DataFrame& df, const std::string& alias) {
  return alias.empty() ? df : df.alias(alias);
}

// Rows of `files` matching `cond`, per file (local path -> count).
std::map<std::string, int64_t> MatchCounts(const std::shared_ptr<SessionState>& state,
                                           const table::SnapshotPtr& snapshot,
                                           const std::vector<AddFile>& files,
                                           const ExprPtr& cond,
                                           const std::string& alias) {
  std::map<std::string, int64_t> out;
  if (files.empty()) return out;
  DataFrame df = WithFileNames(state, snapshot, files, alias);
  if (cond) df = df.filter(Column(cond));
  for (const auto& b : df.groupBy({functions::col(kFileName)}).count().collectBatches()) {
    const auto& names = b->column(0);
    const int64_t* n = b->column(1)->raw_values<int64_t>();
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      out[LocalFilePath(names->GetView(r))] += n[r];
    }
  }
  return out;
}

// The files among `candidates` holding rows that match `cond`; *rows: how many rows.
std::vector<AddFile> TouchedFiles(const std::shared_ptr<SessionState>& state,
                                  const table::SnapshotPtr& snapshot,
                                  const std::vector<AddFile>& candidates,
                                  const ExprPtr& cond, const std::string& alias,
                                  int64_t* rows) {
  std::map<std::string, int64_t> counts =
      MatchCounts(state, snapshot, candidates, cond, alias);
  std::vector<AddFile> touched;
  for (const auto& f : candidates) {
    auto it = counts.find(LocalFilePath(snapshot->DataFilePath(f)));
    if (it == counts.end()) continue;
    touched.push_back(f);
    *rows += it->second;
  }
  return touched;
}

// The positions of the rows of `files` where `cond` holds (nullptr: every row), per
// file; *rows: how many.
RowPositions MatchedPositions(const std::shared_ptr<SessionState>& state,
                              const table::SnapshotPtr& snapshot,
                              const std::vector<AddFile>& files, const ExprPtr& cond,
                              const std::string& alias, int64_t* rows) {
  RowPositions out;
  if (files.empty()) return out;
  DataFrame df = Aliased(DeltaFilesFrame(state, snapshot, files, /*with_row_index=*/true)
                             .withColumn(kFileName, functions::expr("input_file_name()")),
                         alias);
  if (cond) df = df.filter(Column(cond));
  for (const auto& b :
       df.select({functions::col(kFileName), functions::col(table::kRowIndexColumn)})
           .collectBatches()) {
    const auto& names = b->column(0);
    const int64_t* pos = b->column(1)->raw_values<int64_t>();
    std::string last_uri, last_path;
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      std::string_view uri = names->GetView(r);
      if (uri != last_uri) {
        last_uri = std::string(uri);
        last_path = LocalFilePath(uri);
      }
      out[last_path].push_back(static_cast<uint64_t>(pos[r]));
      ++*rows;
    }
  }
  for (auto& [unused, v] : out) std::sort(v.begin(), v.end());
  return out;
}

// The files of `candidates` that `positions` names.
std::vector<AddFile> FilesWithPositions(const table::Snapshot& snapshot,
                                        const std::vector<AddFile>& candidates,
                                        const RowPositions& positions) {
  std::vector<AddFile> out;
  for (const auto& f : candidates) {
    if (positions.count(LocalFilePath(snapshot.DataFilePath(f)))) out.push_back(f);
  }
  return out;
}

// UPDATE's / DELETE's metrics when rows are marked in deletion vectors: the DV counts,
// no bytes removed, nothing copied; numRemovedFiles the files fully removed (DELETE) or
// every touched file (UPDATE, as delta-spark counts them).
using MetricsFn =
    std::function<std::map<std::string, std::string>(const table::DeltaWriteResult&)>;
MetricsFn WithDeletionVectorMetrics(const MetricsFn& base, const DeletionVectorUpdate& dv,
                                    bool count_touched) {
  const int64_t removed =
      count_touched ? static_cast<int64_t>(dv.removes.size()) : dv.fully_removed_files;
  const int64_t added = dv.dvs_added, dropped = dv.dvs_removed, updated = dv.dvs_updated;
  return [=](const table::DeltaWriteResult& w) {
    std::map<std::string, std::string> mt = base(w);
    mt["numRemovedFiles"] = std::to_string(removed);
    mt["numRemovedBytes"] = "0";
    mt["numCopiedRows"] = "0";
    mt["numDeletionVectorsAdded"] = std::to_string(added);
    mt["numDeletionVectorsRemoved"] = std::to_string(dropped);
    mt["numDeletionVectorsUpdated"] = std::to_string(updated);
    return mt;
  };
}

// Catalyst's optimizer rules that shape delta-spark's predicate text: NOT pushed down
// (BooleanSimplification: NOT NOT a = a, NOT (a < b) = (a >= b), NOT isnull = isnotnull,
// De Morgan), `x <=> NULL` as isnull(x), BETWEEN as two comparisons, IN lists without
// repeats and a one-value IN as `=` (OptimizeIn), LIKE without `_` or escapes as
// StartsWith / EndsWith / Contains / `=` (LikeSimplification).
ExprPtr SparkOptimized(const ExprPtr& e);

ExprPtr SparkNegated(const ExprPtr& e) {
  static const auto* kOpposite = new std::map<std::string, std::string>{
      {"<", ">="}, {"<=", ">"}, {">", "<="}, {">=", "<"}};
  if (e->kind == ExprKind::kCall) {
    const auto& k = e->children;
    if (e->name == "not" && k.size() == 1) return k[0];
    if (e->name == "isnull" && k.size() == 1) return Expr::Call("isnotnull", k);
    if (e->name == "isnotnull" && k.size() == 1) return Expr::Call("isnull", k);
    if (e->name == "!=" && k.size() == 2) return Expr::Call("=", k);
    auto op = kOpposite->find(e->name);
    if (op != kOpposite->end() && k.size() == 2) return Expr::Call(op->second, k);
    if ((e->name == "and" || e->name == "or") && k.size() == 2) {
      return Expr::Call(e->name == "and" ? "or" : "and",
                        {SparkNegated(k[0]), SparkNegated(k[1])});
    }
  }
  return Expr::Call("not", {e});
}

ExprPtr SparkOptimized(const ExprPtr& e) {
  auto is_null = [](const ExprPtr& x) {
    return x->kind == ExprKind::kLiteral && x->literal.is_null();
  };
  if (e->kind == ExprKind::kIn) {
    std::vector<ExprPtr> list;
    std::set<std::string> seen;
    for (size_t i = 1; i < e->children.size(); ++i) {
      const ExprPtr& v = e->children[i];
      if (v->kind != ExprKind::kLiteral || seen.insert(v->literal.ToSql()).second)
        list.push_back(v);
    }
    if (list.size() == 1) {
      ExprPtr eq = Expr::Call("=", {e->children[0], list[0]});
      return e->negated ? Expr::Call("not", {eq}) : eq;
    }
    return Expr::In(e->children[0], std::move(list), e->negated);
  }
  if (e->kind != ExprKind::kCall) return e;
  const auto& k = e->children;
  if (e->name == "not" && k.size() == 1) return SparkNegated(SparkOptimized(k[0]));
  if ((e->name == "and" || e->name == "or") && k.size() == 2)
    return Expr::Call(e->name, {SparkOptimized(k[0]), SparkOptimized(k[1])});
  if (e->name == "<=>" && k.size() == 2 && (is_null(k[0]) || is_null(k[1])))
    return Expr::Call("isnull", {is_null(k[0]) ? k[1] : k[0]});
  if (e->name == "between" && k.size() == 3) {
    return Expr::Call("and",
                      {Expr::Call(">=", {k[0], k[1]}), Expr::Call("<=", {k[0], k[2]})});
  }
  if (e->name == "like" && k.size() == 2 && k[1]->kind == ExprKind::kLiteral &&
      !k[1]->literal.is_null() && k[1]->literal.type()->id() == TypeId::kString) {
    const std::string p = k[1]->literal.str();
    if (p.find_first_of("_\\") != std::string::npos) return e;
    const size_t first = p.find('%');
    const bool lead = !p.empty() && p.front() == '%';
    const bool trail = p.size() > 1 && p.back() == '%';
    const std::string mid =
        p.substr(lead ? 1 : 0, p.size() - (lead ? 1 : 0) - (trail ? 1 : 0));
    if (mid.find('%') != std::string::npos) return e;
    const ExprPtr lit = Expr::Lit(Value::String(mid));
    if (first == std::string::npos) return Expr::Call("=", {k[0], lit});
    if (lead && trail) return Expr::Call("Contains", {k[0], lit});
    return Expr::Call(lead ? "EndsWith" : "StartsWith", {k[0], lit});
  }
  return e;
}

// Catalyst's text of an optimized condition (Expression.sql without attribute ids).
std::string SparkText(const ExprPtr& e) {
  if (e->kind == ExprKind::kIn) {
    std::string list;
    for (size_t i = 1; i < e->children.size(); ++i)
      list += (i > 1 ? "," : "") + SparkText(e->children[i]);
    return (e->negated ? "NOT " : "") + SparkText(e->children[0]) + " IN (" + list + ")";
  }
  if (e->kind != ExprKind::kCall) return e->DisplayName();
  const auto& k = e->children;
  if (e->name == "not" && k.size() == 1) return "NOT " + SparkText(k[0]);
  if ((e->name == "isnull" || e->name == "isnotnull") && k.size() == 1)
    return e->name + "(" + SparkText(k[0]) + ")";
  if ((e->name == "StartsWith" || e->name == "EndsWith" || e->name == "Contains") &&
      k.size() == 2)
    return e->name + "(" + SparkText(k[0]) + ", " + SparkText(k[1]) + ")";
  if (e->name == "!=" && k.size() == 2)
    return "NOT (" + SparkText(k[0]) + " = " + SparkText(k[1]) + ")";
  static const auto* kInfix = new std::map<std::string, std::string>{
      {"and", "AND"}, {"or", "OR"}, {"=", "="}, {"<=>", "<=>"},
      {"<", "<"},     {"<=", "<="}, {">", ">"}, {">=", ">="}};
  auto op = kInfix->find(e->name);
  if (op != kInfix->end() && k.size() == 2)
    return "(" + SparkText(k[0]) + " " + op->second + " " + SparkText(k[1]) + ")";
  return e->DisplayName();
}

}  // namespace

std::string DeltaPredicateText(const ExprPtr& cond) {
  return SparkText(SparkOptimized(cond));
}

namespace {

std::string PredicateList(const ExprPtr& cond, const char* when_absent,
                          bool optimized = true) {
  Json a = Json::Array();
  if (cond) {
    a.Append(Json::String(optimized ? DeltaPredicateText(cond) : cond->DisplayName()));
  } else if (when_absent) {
    a.Append(Json::String(when_absent));
  }
  return a.ToString();
}

// Binds `cond` against the table's columns: unresolved names, subqueries,
// non-deterministic conditions fail as in Delta.
void CheckCondition(const std::shared_ptr<SessionState>& state,
                    const table::SnapshotPtr& snapshot, const DeltaDmlTarget& target,
                    const ExprPtr& cond, const char* operation) {
  if (!cond) return;
  if (HasSubquery(cond)) {
    ThrowStatus(Status::Error("DELTA_UNSUPPORTED_SUBQUERY",
                              {{"operation", operation}, {"cond", cond->DisplayName()}}));
  }
  DataFrame df = Aliased(DeltaFilesFrame(state, snapshot, {}), target.alias);
  sql::Analyzer analyzer(state->catalog, state->conf);
  BoundExprPtr bound = ValueOrThrow(analyzer.BindExpression(cond, df.analyzed()->output));
  if (bound->IsNondeterministic()) {
    ThrowStatus(Status::Error("INVALID_NON_DETERMINISTIC_EXPRESSIONS",
                              {{"sqlExprs", "\"" + cond->DisplayName() + "\""}}));
  }
}

struct SplitCondition {
  ExprPtr partition;  // conjuncts on partition columns only (nullptr: none)
  ExprPtr data;       // the other conjuncts (nullptr: none)
};

SplitCondition Split(const ExprPtr& cond, const table::Snapshot& snapshot,
                     const std::string& alias) {
  SplitCondition out;
  if (!cond) return out;
  std::vector<ExprPtr> parts, p, d;
  Conjuncts(cond, &parts);
  const auto& cols = snapshot.metadata().partition_columns;
  for (const auto& e : parts) {
    std::vector<std::string> none;
    // A conjunct without column references (`1 = 1`) is evaluated per file too.
    (!cols.empty() && RefsOnly(e, cols, alias) ? p
     : RefsOnly(e, none, alias)                ? p
                                               : d)
        .push_back(e);
  }
  out.partition = AndAll(p);
  out.data = AndAll(d);
  return out;
}

// The write options every DML rewrite shares.
table::DeltaWriteOptions DmlWriteOptions(const std::shared_ptr<SessionState>& state,
                                         const table::SnapshotPtr& snapshot,
                                         const DeltaDmlTarget& target,
                                         const SplitCondition& split,
                                         const std::vector<AddFile>& scanned,
                                         const char* operation,
                                         const std::optional<table::TxnId>& txn) {
  table::DeltaWriteOptions o = SessionDeltaWriteOptions(*state, "append");
  o.read_snapshot = snapshot;
  o.operation = operation;
  // As Delta: a concurrent append in the partitions read, or a concurrent removal of a
  // file the scan read, conflicts.
  o.read_partitions =
      split.partition ? PartitionReader(state, snapshot, split.partition, target.alias)
                      : [](const table::PartitionValues&) { return true; };
  o.read_files = scanned;
  if (txn) o.txn = txn;
  return o;
}

// UPDATE's / DELETE's operationMetrics: `rows_key` (numUpdatedRows / numDeletedRows) =
// `rows`; numCopiedRows = the rows written less `rows_written_back` of them (UPDATE
// writes its updated rows back); rewriteTimeMs 0 without a rewrite.
MetricsFn DmlMetrics(std::chrono::steady_clock::time_point started, int64_t scan_ms,
                     std::optional<std::chrono::steady_clock::time_point> rewrite_started,
                     const char* rows_key, int64_t rows, int64_t rows_written_back) {
  return [=](const table::DeltaWriteResult& w) {
    std::map<std::string, std::string> mt;
    auto set = [&](const char* k, int64_t v) { mt[k] = std::to_string(v); };
    set("numAddedFiles", w.num_files);
    set("numRemovedFiles", w.num_removed_files);
    set("numAddedBytes", w.num_output_bytes);
    set("numRemovedBytes", w.num_removed_bytes);
    set("numAddedChangeFiles", w.num_cdc_files);
    set("numDeletionVectorsAdded", 0);
    set("numDeletionVectorsRemoved", 0);
    set("numDeletionVectorsUpdated", 0);
    set(rows_key, rows);
    set("numCopiedRows", w.num_output_rows - rows_written_back);
    set("executionTimeMs", ElapsedMs(started));
    set("scanTimeMs", scan_ms);
    set("rewriteTimeMs", rewrite_started ? ElapsedMs(*rewrite_started) : 0);
    return mt;
  };
}

// The files UPDATE / DELETE read (Delta's filterFiles): those the condition's partition
// conjuncts accept and, when it reads data columns, whose statistics do not rule the
// whole condition out. A condition on partition columns only selects whole files.
std::vector<AddFile> CandidateFiles(const std::shared_ptr<SessionState>& state,
                                    const table::SnapshotPtr& snapshot,
                                    const DeltaDmlTarget& target,
                                    const SplitCondition& split,
                                    const ExprPtr& condition) {
  std::vector<AddFile> files = FilterByPartitions(state, *snapshot, snapshot->files(),
                                                  split.partition, target.alias);
  if (!split.data || files.empty()) return files;
  return SkipFiles(state, snapshot, std::move(files),
                   ToFileSkipping(condition, *snapshot->schema(),
                                  TableBinder(state, snapshot, target.alias),
                                  state->MakeExecOptions().eval));
}

// A commit of removes only (DELETE of whole files).
void CommitRemoves(const DeltaDmlTarget& target, const table::SnapshotPtr& snapshot,
                   const table::DeltaWriteOptions& o) {
  ValueOrThrow(table::WriteDelta(
      Fs(), target.path, snapshot->schema(), 1,
      [](const table::BatchSink&) { return Status::OK(); }, o));
}

table::SnapshotPtr LatestSnapshot(const DeltaDmlTarget& target) {
  table::DeltaLog log(Fs(), target.path);
  return ValueOrThrow(log.Latest());
}

bool AlreadyApplied(const table::Snapshot& snapshot,
                    const std::optional<table::TxnId>& txn) {
  if (!txn) return false;
  auto latest = snapshot.TxnVersion(txn->app_id);
  return latest && *latest >= txn->version;
}

}  // namespace

// --- Shared helpers ---

void Conjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e && e->kind == ExprKind::kCall && e->name == "and" && e->children.size() == 2) {
    Conjuncts(e->children[0], out);
    Conjuncts(e->children[1], out);
    return;
  }
  if (e) out->push_back(e);
}

bool HasSubquery(const ExprPtr& e) {
  if (!e) return false;
  if (e->kind == ExprKind::kScalarSubquery || e->kind == ExprKind::kExists ||
      e->kind == ExprKind::kInSubquery) {
    return true;
  }
  for (const auto& c : e->children)
    if (HasSubquery(c)) return true;
  return false;
}

std::optional<table::TxnId> SessionDmlTxn(const SessionState& s) {
  std::string app = s.conf.GetOr("spark.databricks.delta.write.txnAppId", "");
  std::string ver = s.conf.GetOr("spark.databricks.delta.write.txnVersion", "");
  if (app.empty() || ver.empty()) return std::nullopt;
  if (auto v = ParseInt64(ver)) return table::TxnId{app, *v};
  ThrowStatus(Status::Error("DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS",
                            {{"reason", "txnVersion must be a number"}}));
}

// --- Data skipping ---

FileSkipping FileSkipping::Leaf(ScanPredicate p) {
  FileSkipping f;
  f.kind = Kind::kLeaf;
  f.leaf = std::move(p);
  return f;
}

FileSkipping FileSkipping::And(std::vector<FileSkipping> parts) {
  FileSkipping f;
  f.kind = Kind::kAnd;
  for (auto& p : parts) {
    if (p.kind == Kind::kNone) return p;
    if (p.kind == Kind::kAny) continue;  // (decides nothing)
    f.children.push_back(std::move(p));
  }
  if (f.children.empty()) return FileSkipping();
  if (f.children.size() == 1) return std::move(f.children[0]);
  return f;
}

FileSkipping FileSkipping::Or(std::vector<FileSkipping> parts) {
  FileSkipping f;
  f.kind = Kind::kOr;
  for (auto& p : parts) {
    if (p.kind == Kind::kAny) return p;
    if (p.kind == Kind::kNone) continue;  // (holds nowhere)
    f.children.push_back(std::move(p));
  }
  if (f.children.empty()) {
    f.kind = Kind::kNone;
    return f;
  }
  if (f.children.size() == 1) return std::move(f.children[0]);
  return f;
}

namespace {

using SkipOp = ScanPredicate::Op;

// Lists longer than this are not turned into one test per value.
constexpr size_t kSkippingMaxListValues = 1000;

// True when `e` calls a function without arguments (current_timestamp(), now(), ...):
// its value when the files are chosen could differ from the scan's, so it is not folded.
bool HasNullaryCall(const ExprPtr& e) {
  if (!e) return false;
  if (e->kind == ExprKind::kCall && e->children.empty()) return true;
  return std::any_of(e->children.begin(), e->children.end(), HasNullaryCall);
}

class SkippingConverter {
 public:
  SkippingConverter(const Schema& schema, const SkippingBinder& bind,
                    const EvalContext& ctx)
      : schema_(schema), bind_(bind), ctx_(ctx) {}

  // The files where `e` (negated: NOT e) may be TRUE for some row.
  FileSkipping Convert(const ExprPtr& e, bool negated) {
    if (!e) return FileSkipping();
    if (e->kind == ExprKind::kCall) {
      const std::string& n = e->name;
      const size_t arity = e->children.size();
      if ((n == "and" || n == "or") && arity == 2) {
        std::vector<FileSkipping> parts = {Convert(e->children[0], negated),
                                           Convert(e->children[1], negated)};
        // NOT (a AND b) = NOT a OR NOT b; NOT (a OR b) = NOT a AND NOT b.
        return (n == "and") != negated ? FileSkipping::And(std::move(parts))
                                       : FileSkipping::Or(std::move(parts));
      }
      if ((n == "not" || n == "!") && arity == 1)
        return Convert(e->children[0], !negated);
      if ((n == "isnull" || n == "isnotnull") && arity == 1) {
        const int c = ColumnOf(e->children[0]);
        if (c < 0) return Constant(e, negated);
        const bool is_null = (n == "isnull") != negated;
        return FileSkipping::Leaf(
            {c, is_null ? SkipOp::kIsNull : SkipOp::kIsNotNull, {}});
      }
      if (n == "between" && arity == 3) {
        // v BETWEEN lo AND hi = v >= lo AND v <= hi (as Spark rewrites it).
        return Convert(
            Expr::Call("and", {Expr::Call(">=", {e->children[0], e->children[1]}),
                               Expr::Call("<=", {e->children[0], e->children[2]})}),
            negated);
      }
      if (arity == 2 && IsComparison(n)) return Comparison(e, negated);
      if ((n == "like" || n == "startswith") && arity == 2 && !negated) {
        return Prefix(e, n == "like");
      }
    }
    if (e->kind == ExprKind::kIn && e->children.size() >= 2) return InList(e, negated);
    return Constant(e, negated);
  }

 private:
  static bool IsComparison(const std::string& n) {
    for (const char* c : {"=", "==", "!=", "<>", "<", "<=", ">", ">=", "<=>"}) {
      if (n == c) return true;
    }
    return false;
  }

  // The table column a bare column reference names (-1: not one).
  int ColumnOf(const ExprPtr& e) {
    if (!e || e->kind != ExprKind::kColumn) return -1;
    BoundExprPtr b = bind_(e);
    if (!b || b->column_index() < 0 || b->column_index() >= schema_.num_fields())
      return -1;
    return b->column_index();
  }

  // The value of a constant bound expression (nullopt: not a constant, or it fails).
  std::optional<Value> Fold(const BoundExprPtr& b) {
    if (!b || !b->IsConstant() || b->IsNondeterministic()) return std::nullopt;
    if (const Value* v = b->literal_value()) return *v;
    auto batch = Batch::Make(std::make_shared<Schema>(), {}, 1);
    Result<ColumnPtr> c = b->Evaluate(*batch, ctx_);
    if (!c.ok()) return std::nullopt;
    return (*c)->GetValue(0);
  }

  // A condition without columns: FALSE and NULL hold nowhere; anything else: kAny.
  FileSkipping Constant(const ExprPtr& e, bool negated) {
    if (HasNullaryCall(e)) return FileSkipping();
    BoundExprPtr b = bind_(e);
    if (!b || (b->type()->id() != TypeId::kBoolean && b->type()->id() != TypeId::kNull))
      return FileSkipping();
    std::optional<Value> v = Fold(b);
    if (!v) return FileSkipping();
    if (v->is_null() || (v->i64() != 0) == negated) {
      FileSkipping none;
      none.kind = FileSkipping::Kind::kNone;
      return none;
    }
    return FileSkipping();
  }

  // `col <op> constant` bound as the comparison binds it (its coercion), or nullopt.
  struct Bound {
    int column;
    SkipOp op;  // with `col` on the left
    Value value;
  };
  std::optional<Bound> BindComparison(const ExprPtr& e, const std::string& op) {
    BoundExprPtr b = bind_(e);
    if (!b || b->children().size() != 2) return std::nullopt;
    const auto& ch = b->children();
    for (int side = 0; side < 2; ++side) {
      const int c = ch[side]->column_index();
      if (c < 0 || c >= schema_.num_fields()) continue;
      if (!ch[side]->type()->SameType(*schema_.field(c).type)) continue;
      if (e->children.size() != 2 || HasNullaryCall(e->children[1 - side]))
        return std::nullopt;
      std::optional<Value> v = Fold(ch[1 - side]);
      if (!v) return std::nullopt;
      if (!v->is_null() && !v->type()->SameType(*schema_.field(c).type))
        return std::nullopt;
      SkipOp o = op == "<"    ? SkipOp::kLt
                 : op == "<=" ? SkipOp::kLe
                 : op == ">"  ? SkipOp::kGt
                 : op == ">=" ? SkipOp::kGe
                              : SkipOp::kEq;
      if (side == 1) {  // const < col  <=>  col > const
        o = o == SkipOp::kLt   ? SkipOp::kGt
            : o == SkipOp::kLe ? SkipOp::kGe
            : o == SkipOp::kGt ? SkipOp::kLt
            : o == SkipOp::kGe ? SkipOp::kLe
                               : o;
      }
      return Bound{c, o, *v};
    }
    return std::nullopt;
  }

  static SkipOp Negate(SkipOp o) {
    switch (o) {
      case SkipOp::kLt:
        return SkipOp::kGe;
      case SkipOp::kLe:
        return SkipOp::kGt;
      case SkipOp::kGt:
        return SkipOp::kLe;
      case SkipOp::kGe:
        return SkipOp::kLt;
      default:
        return o;
    }
  }

  // `c <> v`: some value below or above v.
  static FileSkipping NotEqual(int c, const Value& v) {
    return FileSkipping::Or({FileSkipping::Leaf({c, SkipOp::kLt, v}),
                             FileSkipping::Leaf({c, SkipOp::kGt, v})});
  }

  static FileSkipping None() {
    FileSkipping f;
    f.kind = FileSkipping::Kind::kNone;
    return f;
  }

  FileSkipping Comparison(const ExprPtr& e, bool negated) {
    const std::string& n = e->name;
    std::optional<Bound> b = BindComparison(e, n);
    if (!b) return Constant(e, negated);
    if (n == "<=>") {
      // NULL-safe: c <=> NULL is c IS NULL; c <=> v is c = v (never NULL), and its
      // negation c IS NULL OR c <> v.
      if (b->value.is_null()) {
        return FileSkipping::Leaf(
            {b->column, negated ? SkipOp::kIsNotNull : SkipOp::kIsNull, {}});
      }
      if (!negated) return FileSkipping::Leaf({b->column, SkipOp::kEq, b->value});
      return FileSkipping::Or({FileSkipping::Leaf({b->column, SkipOp::kIsNull, {}}),
                               NotEqual(b->column, b->value)});
    }
    // A comparison with NULL is NULL, and so is its negation.
    if (b->value.is_null()) return None();
    const bool not_equal = n == "!=" || n == "<>";
    if (not_equal != negated) {
      if (b->op == SkipOp::kEq) return NotEqual(b->column, b->value);
      return FileSkipping::Leaf({b->column, Negate(b->op), b->value});
    }
    return FileSkipping::Leaf({b->column, b->op, b->value});
  }

  // `c LIKE 'abc%'` (no other wildcard) or startswith(c, 'abc'): c >= 'abc' AND
  // c < 'abd' (bytes: the values starting with the prefix lie between them).
  FileSkipping Prefix(const ExprPtr& e, bool like) {
    const int c = ColumnOf(e->children[0]);
    const ExprPtr& pattern = e->children[1];
    if (c < 0 || schema_.field(c).type->id() != TypeId::kString ||
        pattern->kind != ExprKind::kLiteral || pattern->literal.is_null() ||
        pattern->literal.type()->id() != TypeId::kString) {
      return Constant(e, false);
    }
    std::string prefix = pattern->literal.str();
    if (like) {
      if (prefix.empty() || prefix.back() != '%') return FileSkipping();
      prefix.pop_back();
      if (prefix.find_first_of("%_\\") != std::string::npos) return FileSkipping();
    }
    std::string above = prefix;
    while (!above.empty() && static_cast<unsigned char>(above.back()) == 0xFF)
      above.pop_back();
    if (above.empty()) return FileSkipping();
    above.back() = static_cast<char>(static_cast<unsigned char>(above.back()) + 1);
    return FileSkipping::And(
        {FileSkipping::Leaf({c, SkipOp::kGe, Value::String(prefix)}),
         FileSkipping::Leaf({c, SkipOp::kLt, Value::String(above)})});
  }

  // c IN (v1, ...): some vi within the file's range; NOT IN: every vi excluded (and no
  // NULL in the list, which makes NOT IN never TRUE).
  FileSkipping InList(const ExprPtr& e, bool negated) {
    negated = negated != e->negated;
    if (e->children.size() - 1 > kSkippingMaxListValues) return FileSkipping();
    std::vector<FileSkipping> parts;
    for (size_t i = 1; i < e->children.size(); ++i) {
      std::optional<Bound> b =
          BindComparison(Expr::Call("=", {e->children[0], e->children[i]}), "=");
      if (!b) return Constant(e, negated);
      if (b->value.is_null()) {
        if (negated) return None();
        continue;  // never equal
      }
      parts.push_back(negated ? NotEqual(b->column, b->value)
                              : FileSkipping::Leaf({b->column, SkipOp::kEq, b->value}));
    }
    return negated ? FileSkipping::And(std::move(parts))
                   : FileSkipping::Or(std::move(parts));
  }

  const Schema& schema_;
  const SkippingBinder& bind_;
  const EvalContext& ctx_;
};

// True when `f` may hold in file `i` of `stats`.
bool MayHold(const table::DeltaDataSource& stats, int i, const FileSkipping& f) {
  switch (f.kind) {
    case FileSkipping::Kind::kAny:
      return true;
    case FileSkipping::Kind::kNone:
      return false;
    case FileSkipping::Kind::kLeaf:
      return !stats.CanSkip(i, {f.leaf});
    case FileSkipping::Kind::kAnd:
      return std::all_of(f.children.begin(), f.children.end(),
                         [&](const FileSkipping& c) { return MayHold(stats, i, c); });
    case FileSkipping::Kind::kOr:
      return std::any_of(f.children.begin(), f.children.end(),
                         [&](const FileSkipping& c) { return MayHold(stats, i, c); });
  }
  return true;
}

}  // namespace

FileSkipping ToFileSkipping(const ExprPtr& cond, const Schema& schema,
                            const SkippingBinder& bind, const EvalContext& ctx) {
  return SkippingConverter(schema, bind, ctx).Convert(cond, false);
}

SkippingBinder TableBinder(const std::shared_ptr<SessionState>& state,
                           const table::SnapshotPtr& snapshot, const std::string& alias) {
  auto scope = std::make_shared<std::vector<sql::Attribute>>(
      Aliased(DeltaFilesFrame(state, snapshot, {}), alias).analyzed()->output);
  auto analyzer = std::make_shared<sql::Analyzer>(state->catalog, state->conf);
  return [scope, analyzer](const ExprPtr& e) -> BoundExprPtr {
    if (!e || HasSubquery(e)) return nullptr;
    Result<BoundExprPtr> b = analyzer->BindExpression(e, *scope);
    if (!b.ok() || (*b)->IsNondeterministic()) return nullptr;
    return *b;
  };
}

std::vector<AddFile> SkipFiles(const std::shared_ptr<SessionState>& state,
                               const table::SnapshotPtr& snapshot,
                               std::vector<AddFile> files, const FileSkipping& skipping) {
  // spark.databricks.delta.stats.skipping=false turns statistics off, as in Delta.
  if (skipping.kind == FileSkipping::Kind::kAny || files.empty() ||
      !ConfTrue(*state, "spark.databricks.delta.stats.skipping", true)) {
    return files;
  }
  if (skipping.kind == FileSkipping::Kind::kNone) return {};
  auto stats = ValueOrThrow(table::DeltaDataSource::MakeForFiles(
      Fs(), snapshot, files, state->conf.session_time_zone()));
  std::vector<AddFile> out;
  for (int i = 0; i < static_cast<int>(files.size()); ++i) {
    if (MayHold(*stats, i, skipping))
      out.push_back(std::move(files[static_cast<size_t>(i)]));
  }
  return out;
}

DataFrame DeltaFilesFrame(const std::shared_ptr<SessionState>& state,
                          const table::SnapshotPtr& snapshot, std::vector<AddFile> files,
                          bool with_row_index) {
  std::vector<Field> extra;
  if (with_row_index)
    extra.push_back(Field{table::kRowIndexColumn, DataType::Long(), false, ""});
  auto src = ValueOrThrow(table::DeltaDataSource::MakeForFiles(
      Fs(), snapshot, std::move(files), state->conf.session_time_zone(), extra));
  auto plan = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kDataSource);
  plan->source = src;
  return DataFrame(state, plan);
}

DataFrame WithChangeType(const DataFrame& rows, const char* change_type) {
  return rows.withColumn(table::kChangeTypeColumn,
                         change_type ? functions::lit(change_type)
                                     : functions::lit(Value::Null(DataType::String())));
}

std::string LocalFilePath(std::string_view uri) {
  if (uri.rfind("file://", 0) == 0) {
    uri.remove_prefix(7);
  } else if (uri.rfind("file:", 0) == 0) {
    uri.remove_prefix(5);
  }
  return table::DecodePathUri(uri);
}

bool WritesDeletionVectors(const SessionState& s, const table::Snapshot& snapshot,
                           const char* command) {
  bool feature = false;
  if (const auto& w = snapshot.protocol().writer_features) {
    for (const auto& f : *w) feature |= f == "deletionVectors";
  }
  bool enabled = false;
  for (const auto& [k, v] : snapshot.metadata().configuration) {
    if (EqualsIgnoreCase(k, "delta.enableDeletionVectors"))
      enabled = ToLower(v) == "true";
  }
  return feature && enabled &&
         ConfTrue(s,
                  std::string("spark.databricks.delta.") + command +
                      ".deletionVectors.persistent",
                  true);
}

DeletionVectorUpdate MarkDeletedRows(const table::SnapshotPtr& snapshot,
                                     const std::vector<AddFile>& files,
                                     const RowPositions& rows) {
  DeletionVectorUpdate u;
  auto fs = Fs();
  std::vector<std::vector<uint64_t>> dvs;
  std::vector<const AddFile*> marked;
  for (const auto& f : files) {
    auto it = rows.find(LocalFilePath(snapshot->DataFilePath(f)));
    if (it == rows.end() || it->second.empty()) continue;
    std::vector<uint64_t> all = it->second;
    if (f.deletion_vector) {
      u.dvs_removed++;
      if (f.deletion_vector->cardinality > 0) {
        std::vector<uint64_t> old = ValueOrThrow(
            table::LoadDeletionVector(*fs, *f.deletion_vector, snapshot->table_path()));
        all.insert(all.end(), old.begin(), old.end());
      }
    }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    u.removes.push_back(f);
    const std::optional<int64_t> physical = NumRecords(f);
    if (physical && static_cast<int64_t>(all.size()) >= *physical) {
      // Every row is gone: the file is removed, without a DV.
      u.fully_removed_files++;
      u.fully_removed_bytes += f.size;
      continue;
    }
    if (f.deletion_vector) u.dvs_updated++;
    u.dvs_added++;
    dvs.push_back(std::move(all));
    marked.push_back(&f);
  }
  if (!dvs.empty()) {
    std::vector<table::DeletionVectorDescriptor> written = ValueOrThrow(
        table::WriteDeletionVectors(*fs, snapshot->table_path(), dvs, &u.dv_file));
    for (size_t i = 0; i < written.size(); ++i) {
      u.adds.push_back(table::WithDeletionVector(*marked[i], std::move(written[i])));
    }
  }
  return u;
}

void CommitWithDeletionVectors(const DeletionVectorUpdate& dv,
                               const std::function<void()>& write) {
  try {
    write();
  } catch (...) {
    if (!dv.dv_file.empty()) (void)Fs()->Delete(dv.dv_file);
    throw;
  }
}

std::vector<ExprPtr> ResolveSetAssignments(
    const Schema& schema, const std::string& alias, const UpdateAssignments& set,
    const std::function<Column(const std::string&)>& column_ref, const char* operation,
    const std::function<void(const std::vector<std::string>&)>& unresolved) {
  std::vector<ExprPtr> values(static_cast<size_t>(schema.num_fields()));
  {
    std::vector<std::vector<std::pair<std::vector<std::string>, ExprPtr>>> per_column(
        values.size());
    std::vector<std::string> seen;
    for (const auto& [parts, value] : set) {
      std::vector<std::string> p = parts;
      if (p.size() >= 2 && !alias.empty() && EqualsIgnoreCase(p[0], alias) &&
          schema.FieldIndex(p[0]) < 0)
        p.erase(p.begin());
      std::string shown;
      for (const auto& x : p) shown += (shown.empty() ? "`" : ".`") + x + "`";
      // Resolve the path: a column, then struct fields.
      std::vector<std::string> resolved;
      const std::vector<Field>* fields = &schema.fields();
      for (size_t k = 0; k < p.size(); ++k) {
        const Field* hit = nullptr;
        for (const auto& f : *fields)
          if (EqualsIgnoreCase(f.name, p[k])) hit = &f;
        if (!hit) {
          if (unresolved) unresolved(parts);
          std::string proposal;
          for (const auto& f : *fields)
            proposal += (proposal.empty() ? "`" : ", `") + f.name + "`";
          ThrowStatus(Status::Error("UNRESOLVED_COLUMN.WITH_SUGGESTION",
                                    {{"objectName", shown}, {"proposal", proposal}}));
        }
        resolved.push_back(hit->name);
        if (k + 1 < p.size()) {
          if (hit->type->id() != TypeId::kStruct) {
            ThrowStatus(Status::Error("DELTA_UNSUPPORTED_NESTED_FIELD_IN_OPERATION",
                                      {{"operation", operation}, {"fieldName", shown}}));
          }
          fields = &hit->type->fields();
        }
      }
      std::string full;
      for (const auto& x : resolved) full += (full.empty() ? "`" : ".`") + x + "`";
      seen.push_back(full);
      auto& mine = per_column[static_cast<size_t>(schema.FieldIndex(resolved[0]))];
      for (const auto& [other, unused] : mine) {
        // The same field twice, or a field and a struct holding it.
        const size_t n = std::min(other.size(), resolved.size());
        if (std::equal(other.begin(), other.begin() + static_cast<std::ptrdiff_t>(n),
                       resolved.begin())) {
          std::string list;
          for (const auto& x : seen) list += (list.empty() ? "" : ", ") + x;
          ThrowStatus(Status::Error("DELTA_CONFLICT_SET_COLUMN",
                                    {{"columnList", "[" + list + "]"}}));
        }
      }
      mine.emplace_back(resolved, value);
    }
    // A struct with assigned fields is rebuilt: named_struct(field, new value or old,
    // ...).
    std::function<ExprPtr(
        const DataType&, const Column&,
        const std::vector<std::pair<std::vector<std::string>, ExprPtr>>&, size_t)>
        build =
            [&](const DataType& type, const Column& base,
                const std::vector<std::pair<std::vector<std::string>, ExprPtr>>& assigned,
                size_t depth) -> ExprPtr {
      for (const auto& [path, value] : assigned) {
        if (path.size() == depth) return value;
      }
      std::vector<ExprPtr> args;
      for (const auto& f : type.fields()) {
        std::vector<std::pair<std::vector<std::string>, ExprPtr>> below;
        for (const auto& a : assigned) {
          if (a.first.size() > depth && a.first[depth] == f.name) below.push_back(a);
        }
        Column old = base.getField(f.name);
        args.push_back(functions::lit(f.name).expr());
        args.push_back(
            below.empty()
                ? old.expr()
                : Column(build(*f.type, old, below, depth + 1)).cast(f.type).expr());
      }
      return Expr::Call("named_struct", std::move(args));
    };
    for (size_t i = 0; i < values.size(); ++i) {
      if (per_column[i].empty()) continue;
      const Field& f = schema.field(static_cast<int>(i));
      values[i] = build(*f.type, column_ref(f.name), per_column[i], 1);
    }
  }
  return values;
}

// --- UPDATE ---

DataFrame ExecuteUpdate(const std::shared_ptr<SessionState>& state,
                        const DeltaDmlTarget& target, const UpdateAssignments& set,
                        const ExprPtr& condition) {
  const auto started = std::chrono::steady_clock::now();
  table::SnapshotPtr snapshot = LatestSnapshot(target);
  const Schema& schema = *snapshot->schema();
  const std::optional<table::TxnId> txn = SessionDmlTxn(*state);

  // The assigned columns: each column, or nested struct field (SET s.a.b = ...), once.
  std::vector<ExprPtr> values = ResolveSetAssignments(
      schema, target.alias, set, [](const std::string& c) { return functions::col(c); },
      "UPDATE", nullptr);
  CheckCondition(state, snapshot, target, condition, "UPDATE");
  {
    // The values resolve against the table too.
    DataFrame probe = Aliased(DeltaFilesFrame(state, snapshot, {}), target.alias);
    std::vector<Column> cols;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i])
        cols.push_back(Column(values[i]).cast(schema.field(static_cast<int>(i)).type));
    }
    (void)probe.select(cols);
  }
  if (AlreadyApplied(*snapshot, txn)) return AffectedRows(state, 0);

  const SplitCondition split = Split(condition, *snapshot, target.alias);
  const auto scan_started = std::chrono::steady_clock::now();
  const std::vector<AddFile> candidates =
      CandidateFiles(state, snapshot, target, split, condition);
  // (1) The files holding rows to update and how many rows each (with deletion vectors:
  // the rows' positions).
  int64_t updated = 0;
  const bool dv_mode = WritesDeletionVectors(*state, *snapshot, "update");
  RowPositions positions;
  const std::vector<AddFile> touched =
      dv_mode
          ? FilesWithPositions(
                *snapshot, candidates,
                positions = MatchedPositions(state, snapshot, candidates, split.data,
                                             target.alias, &updated))
          : TouchedFiles(state, snapshot, candidates, split.data, target.alias, &updated);
  const int64_t scan_ms = ElapsedMs(scan_started);
  if (touched.empty()) return AffectedRows(state, 0);

  // (2) Rewrite them: each assigned column takes its value where the condition holds.
  // With deletion vectors only the updated rows are written; a DV marks the old ones.
  const auto rewrite_started = std::chrono::steady_clock::now();
  const bool cdf = table::ChangeDataFeedEnabled(snapshot->metadata());
  auto rewrite = [&](const DataFrame& all) {
    Column hit = split.data ? Column(split.data).eqNullSafe(functions::lit(true))
                            : functions::lit(true);
    const DataFrame t = dv_mode ? all.filter(hit) : all;
    std::vector<Column> out;
    for (int i = 0; i < schema.num_fields(); ++i) {
      const Field& f = schema.field(i);
      const ExprPtr& v = values[static_cast<size_t>(i)];
      if (!v) {
        out.push_back(t[f.name]);
        continue;
      }
      Column nv = Column(v).cast(f.type);
      out.push_back(
          (split.data ? Column(Expr::CaseWhen({hit.expr(), nv.expr()}, t[f.name].expr()))
                      : nv)
              .alias(f.name));
    }
    if (!cdf) return t.select(out);
    // Change data: each updated row's pre- and post-image besides the rewritten rows.
    std::vector<Column> old;
    for (const auto& f : schema.fields()) old.push_back(t[f.name]);
    DataFrame updated_rows = t.filter(hit);
    return WithChangeType(t.select(out), nullptr)
        .unionAll(WithChangeType(updated_rows.select(old), "update_preimage"))
        .unionAll(WithChangeType(updated_rows.select(out), "update_postimage"));
  };
  table::DeltaWriteOptions o =
      DmlWriteOptions(state, snapshot, target, split, candidates, "UPDATE", txn);
  o.change_data = cdf;
  o.remove_files = touched;
  o.operation_parameters["predicate"] = PredicateList(condition, nullptr);
  o.operation_metrics =
      DmlMetrics(started, scan_ms, rewrite_started, "numUpdatedRows", updated, updated);
  if (!dv_mode) {
    WriteBins(state, snapshot, target, SparkScanBins(*state, touched), rewrite, o);
    return AffectedRows(state, updated);
  }
  const DeletionVectorUpdate dv = MarkDeletedRows(snapshot, touched, positions);
  o.remove_files = dv.removes;
  o.add_files = dv.adds;
  o.operation_metrics = WithDeletionVectorMetrics(o.operation_metrics, dv, true);
  CommitWithDeletionVectors(dv, [&] {
    WriteBins(state, snapshot, target, SparkScanBins(*state, touched), rewrite, o);
  });
  return AffectedRows(state, updated);
}

// --- DELETE ---

DataFrame ExecuteDelete(const std::shared_ptr<SessionState>& state,
                        const DeltaDmlTarget& target, const ExprPtr& condition) {
  const auto started = std::chrono::steady_clock::now();
  table::SnapshotPtr snapshot = LatestSnapshot(target);
  const std::optional<table::TxnId> txn = SessionDmlTxn(*state);
  CheckCondition(state, snapshot, target, condition, "DELETE");
  if (AlreadyApplied(*snapshot, txn)) return AffectedRows(state, 0);

  const SplitCondition split = Split(condition, *snapshot, target.alias);
  const auto scan_started = std::chrono::steady_clock::now();
  const std::vector<AddFile> candidates =
      CandidateFiles(state, snapshot, target, split, condition);
  table::DeltaWriteOptions o =
      DmlWriteOptions(state, snapshot, target, split, candidates, "DELETE", txn);
  o.operation_parameters["predicate"] = PredicateList(condition, "true");

  if (!split.data) {
    // The condition holds for whole files: remove them without reading them (row counts
    // from their statistics).
    if (candidates.empty()) return AffectedRows(state, 0);
    int64_t deleted = 0;
    std::vector<AddFile> unknown;
    for (const auto& f : candidates) {
      if (auto n = table::LogicalRecords(f)) {
        deleted += *n;
      } else {
        unknown.push_back(f);
      }
    }
    if (!unknown.empty()) deleted += DeltaFilesFrame(state, snapshot, unknown).count();
    const int64_t scan_ms = ElapsedMs(scan_started);
    o.remove_files = candidates;
    o.operation_metrics =
        DmlMetrics(started, scan_ms, std::nullopt, "numDeletedRows", deleted, 0);
    int64_t dvs = 0;  // the removed files' deletion vectors
    for (const auto& f : candidates) dvs += f.deletion_vector ? 1 : 0;
    if (dvs > 0) {
      o.operation_metrics =
          [dvs, base = o.operation_metrics](const table::DeltaWriteResult& w) {
            auto mt = base(w);
            mt["numDeletionVectorsRemoved"] = std::to_string(dvs);
            return mt;
          };
    }
    CommitRemoves(target, snapshot, o);
    return AffectedRows(state, deleted);
  }

  if (WritesDeletionVectors(*state, *snapshot, "delete")) {
    // The deleted rows are marked in deletion vectors; no data file is written (nor
    // change data: as in Delta, the change feed reads the deleted rows off the DVs).
    int64_t deleted = 0;
    const RowPositions positions =
        MatchedPositions(state, snapshot, candidates, split.data, target.alias, &deleted);
    const int64_t scan_ms = ElapsedMs(scan_started);
    if (positions.empty()) return AffectedRows(state, 0);
    const std::vector<AddFile> touched =
        FilesWithPositions(*snapshot, candidates, positions);
    const DeletionVectorUpdate dv = MarkDeletedRows(snapshot, touched, positions);
    o.remove_files = dv.removes;
    o.add_files = dv.adds;
    o.operation_metrics = WithDeletionVectorMetrics(
        DmlMetrics(started, scan_ms, std::nullopt, "numDeletedRows", deleted, 0), dv,
        false);
    CommitWithDeletionVectors(dv, [&] { CommitRemoves(target, snapshot, o); });
    return AffectedRows(state, deleted);
  }

  // (1) The files holding rows to delete.
  int64_t deleted = 0;
  const std::vector<AddFile> touched =
      TouchedFiles(state, snapshot, candidates, split.data, target.alias, &deleted);
  const int64_t scan_ms = ElapsedMs(scan_started);
  if (touched.empty()) return AffectedRows(state, 0);

  // (2) Rewrite them without the deleted rows (NULL conditions keep the row).
  const auto rewrite_started = std::chrono::steady_clock::now();
  const bool cdf = table::ChangeDataFeedEnabled(snapshot->metadata());
  auto keep = [&](const DataFrame& t) {
    Column hit = Column(split.data).eqNullSafe(functions::lit(true));
    if (!cdf) return t.filter(!hit);
    // Change data: the deleted rows.
    return WithChangeType(t.filter(!hit), nullptr)
        .unionAll(WithChangeType(t.filter(hit), "delete"));
  };
  o.change_data = cdf;
  o.remove_files = touched;
  o.operation_metrics =
      DmlMetrics(started, scan_ms, rewrite_started, "numDeletedRows", deleted, 0);
  WriteBins(state, snapshot, target, SparkScanBins(*state, touched), keep, o);
  return AffectedRows(state, deleted);
}

// --- RESTORE ---

namespace {

// java.sql.Timestamp.toString of an epoch millisecond, in UTC ("2026-01-01 10:00:00.0").
std::string JavaTimestamp(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  int64_t frac = ms - static_cast<int64_t>(secs) * 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  std::string f = std::to_string(frac);
  if (frac != 0) {
    f = std::string(3 - f.size(), '0') + f;
    while (f.size() > 1 && f.back() == '0') f.pop_back();
  }
  return std::string(buf) + "." + f;
}

}  // namespace

DataFrame ExecuteRestore(const std::shared_ptr<SessionState>& state,
                         const DeltaDmlTarget& target, std::optional<int64_t> version,
                         std::optional<std::string> timestamp) {
  auto log = std::make_shared<const table::DeltaLog>(Fs(), target.path);
  table::SnapshotPtr latest = ValueOrThrow(log->Latest());
  std::vector<table::CommitEntry> history = ValueOrThrow(log->History(0));
  int64_t earliest = latest->version();
  int64_t earliest_ts = latest->timestamp_ms();
  for (const auto& c : history) {
    if (c.version <= earliest) {
      earliest = c.version;
      earliest_ts = c.timestamp_ms;
    }
  }
  if (timestamp) {
    const int64_t ms = ValueOrThrow(ParseTimeTravelTimestamp(*state, *timestamp));
    if (ms < earliest_ts) {
      ThrowStatus(Status::Error("DELTA_CANNOT_RESTORE_TIMESTAMP_EARLIER",
                                {{"requestedTimestamp", JavaTimestamp(ms)},
                                 {"earliestTimestamp", JavaTimestamp(earliest_ts)}}));
    }
    if (ms > latest->timestamp_ms() && history.size() > 0) {
      int64_t last_ts = history.front().timestamp_ms;
      if (ms > last_ts) {
        ThrowStatus(Status::Error("DELTA_CANNOT_RESTORE_TIMESTAMP_GREATER",
                                  {{"requestedTimestamp", JavaTimestamp(ms)},
                                   {"latestTimestamp", JavaTimestamp(last_ts)}}));
      }
    }
    version = ValueOrThrow(log->VersionAtTimestamp(ms));
  }
  if (!version || *version < earliest || *version > latest->version()) {
    ThrowStatus(Status::Error("DELTA_CANNOT_RESTORE_TABLE_VERSION",
                              {{"version", version ? std::to_string(*version) : "?"},
                               {"startVersion", std::to_string(earliest)},
                               {"endVersion", std::to_string(latest->version())}}));
  }
  table::SnapshotPtr old = ValueOrThrow(log->At(*version));

  std::set<std::string> now_keys, old_keys;
  for (const auto& f : latest->files()) now_keys.insert(f.Key());
  for (const auto& f : old->files()) old_keys.insert(f.Key());
  std::vector<table::Action> actions;
  int64_t restored = 0, restored_bytes = 0, removed = 0, removed_bytes = 0;
  auto fs = Fs();
  const int64_t now = log->NowMs();
  for (const auto& f : old->files()) {
    if (now_keys.count(f.Key())) continue;
    // A file VACUUM already deleted cannot come back (Delta: the same check).
    const std::string p = old->DataFilePath(f);
    if (!ValueOrThrow(fs->Exists(p))) {
      ThrowStatus(Status::Error(
          "DELTA_FILE_NOT_FOUND_DETAILED",
          {{"filePath", p},
           {"metadataPath", "RESTORE to version " + std::to_string(*version)},
           {"pathPrefix", ""}}));
    }
    AddFile a = f;
    a.data_change = true;
    restored++;
    restored_bytes += f.size;
    actions.push_back(table::Action::Of(std::move(a)));
  }
  for (const auto& f : latest->files()) {
    if (old_keys.count(f.Key())) continue;
    table::RemoveFile r = table::RemoveOf(f, now, /*data_change=*/true);
    r.stats = f.stats;
    removed++;
    removed_bytes += f.size;
    actions.push_back(table::Action::Of(std::move(r)));
  }
  table::OptimisticTransaction txn(log, latest);
  txn.ReadWholeTable();
  const table::Metadata& om = old->metadata();
  const table::Metadata& nm = latest->metadata();
  if (om.schema_string != nm.schema_string ||
      om.partition_columns != nm.partition_columns ||
      om.configuration != nm.configuration) {
    table::Metadata m = om;
    txn.UpdateMetadata(m);
  }
  {
    // The protocol is never downgraded.
    table::Protocol p = latest->protocol();
    const table::Protocol& op = old->protocol();
    if (op.min_reader_version > p.min_reader_version ||
        op.min_writer_version > p.min_writer_version) {
      p.min_reader_version = std::max(p.min_reader_version, op.min_reader_version);
      p.min_writer_version = std::max(p.min_writer_version, op.min_writer_version);
      txn.UpdateProtocol(p);
    }
  }
  const int64_t after_files = static_cast<int64_t>(old->files().size());
  const int64_t after_size = old->total_size_bytes();
  table::CommitInfo info;
  info.operation = "RESTORE";
  info.operation_parameters["version"] = std::to_string(*version);
  if (timestamp) info.operation_parameters["timestamp"] = *timestamp;
  auto set = [&](const char* k, int64_t v) {
    info.operation_metrics[k] = std::to_string(v);
  };
  set("numRestoredFiles", restored);
  set("restoredFilesSize", restored_bytes);
  set("numRemovedFiles", removed);
  set("removedFilesSize", removed_bytes);
  set("numOfFilesAfterRestore", after_files);
  set("tableSizeAfterRestore", after_size);
  ValueOrThrow(txn.Commit(std::move(actions), std::move(info)));
  return OneRow(state, {{"table_size_after_restore", Value::Long(after_size)},
                        {"num_of_files_after_restore", Value::Long(after_files)},
                        {"num_removed_files", Value::Long(removed)},
                        {"num_restored_files", Value::Long(restored)},
                        {"removed_files_size", Value::Long(removed_bytes)},
                        {"restored_files_size", Value::Long(restored_bytes)}});
}

// --- OPTIMIZE ---

namespace {

// Delta's OptimizeMetrics as OPTIMIZE's result column (its schema, field for field).
constexpr const char* kOptimizeMetricsType =
    "struct<numFilesAdded:bigint,numFilesRemoved:bigint,"
    "filesAdded:struct<min:bigint,max:bigint,avg:double,totalFiles:bigint,totalSize:"
    "bigint>,"
    "filesRemoved:struct<min:bigint,max:bigint,avg:double,totalFiles:bigint,totalSize:"
    "bigint>,"
    "partitionsOptimized:bigint,"
    "zOrderStats:struct<strategyName:string,inputCubeFiles:struct<num:bigint,size:bigint>"
    ","
    "inputOtherFiles:struct<num:bigint,size:bigint>,inputNumCubes:bigint,"
    "mergedFiles:struct<num:bigint,size:bigint>,numOutputCubes:bigint,mergedNumCubes:"
    "bigint>,"
    "clusteringStats:struct<inputZCubeFiles:struct<numFiles:bigint,size:bigint>,"
    "inputOtherFiles:struct<numFiles:bigint,size:bigint>,inputNumZCubes:bigint,"
    "mergedFiles:struct<numFiles:bigint,size:bigint>,numOutputZCubes:bigint>,"
    "numBins:bigint,numBatches:bigint,totalConsideredFiles:bigint,totalFilesSkipped:"
    "bigint,"
    "preserveInsertionOrder:boolean,numFilesSkippedToReduceWriteAmplification:bigint,"
    "numBytesSkippedToReduceWriteAmplification:bigint,startTimeMs:bigint,endTimeMs:"
    "bigint,"
    "totalClusterParallelism:bigint,totalScheduledTasks:bigint,"
    "autoCompactParallelismStats:struct<maxClusterActiveParallelism:bigint,"
    "minClusterActiveParallelism:bigint,maxSessionActiveParallelism:bigint,"
    "minSessionActiveParallelism:bigint>,"
    "deletionVectorStats:struct<numDeletionVectorsRemoved:bigint,"
    "numDeletionVectorRowsRemoved:bigint>,"
    "numTableColumns:bigint,numTableColumnsWithStats:bigint>";

// Delta's ZOrderStats of a ZORDER BY: strategy "all" (every file is input), the input
// files as inputOtherFiles and mergedFiles, one output cube per bin.
Value ZOrderStats(const DataTypePtr& type, const std::vector<int64_t>& input_sizes,
                  int64_t bins) {
  auto pair_of = [&](const char* field, int64_t num, int64_t size) {
    return Value::Struct(type->fields()[type->FieldIndex(field)].type,
                         {Value::Long(num), Value::Long(size)});
  };
  int64_t total = 0;
  for (int64_t s : input_sizes) total += s;
  const auto files = static_cast<int64_t>(input_sizes.size());
  return Value::Struct(type, {Value::String("all"), pair_of("inputCubeFiles", 0, 0),
                              pair_of("inputOtherFiles", files, total), Value::Long(0),
                              pair_of("mergedFiles", files, total), Value::Long(bins),
                              Value::Null(DataType::Long())});
}

// filesAdded / filesRemoved: min, max, avg, totalFiles, totalSize.
Value FileStats(const DataTypePtr& type, const std::vector<int64_t>& sizes) {
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  const bool none = sizes.empty();
  return Value::Struct(
      type,
      {none ? Value::Null(DataType::Long())
            : Value::Long(*std::min_element(sizes.begin(), sizes.end())),
       none ? Value::Null(DataType::Long())
            : Value::Long(*std::max_element(sizes.begin(), sizes.end())),
       Value::Double(
           none ? 0.0 : static_cast<double>(total) / static_cast<double>(sizes.size())),
       Value::Long(static_cast<int64_t>(sizes.size())), Value::Long(total)});
}

// --- ZORDER BY ---

constexpr const char* kZOrderId = "__spate_zorder_id_";  // + column index

// delta.dataSkippingNumIndexedCols (default 32; -1: all).
int NumIndexedCols(const table::Snapshot& snapshot) {
  int indexed = 32;
  for (const auto& [k, v] : snapshot.metadata().configuration) {
    if (!EqualsIgnoreCase(k, "delta.dataSkippingNumIndexedCols")) continue;
    indexed = ParseInt32(v).value_or(indexed);
  }
  return indexed;
}

// Delta's checks of ZORDER BY columns: each a data column of the table with statistics
// (among the first delta.dataSkippingNumIndexedCols leaf columns, unless
// spark.databricks.delta.optimize.zorder.checkStatsCollection.enabled is false).
std::vector<std::string> ZOrderColumns(const SessionState& s,
                                       const table::Snapshot& snapshot,
                                       const std::vector<std::string>& zorder_by) {
  const Schema& schema = *snapshot.schema();
  const auto& part_cols = snapshot.metadata().partition_columns;
  auto is_partition = [&](const std::string& c) {
    for (const auto& p : part_cols)
      if (EqualsIgnoreCase(p, c)) return true;
    return false;
  };
  const int indexed = NumIndexedCols(snapshot);
  // The first leaf index of each data column (the order stats are collected in).
  std::function<int(const DataType&)> leaves = [&](const DataType& t) {
    if (t.id() != TypeId::kStruct) return 1;
    int n = 0;
    for (const auto& f : t.fields()) n += leaves(*f.type);
    return n;
  };
  std::map<std::string, int> first_leaf;
  int leaf = 0;
  for (const auto& f : schema.fields()) {
    if (is_partition(f.name)) continue;
    first_leaf[ToLower(f.name)] = leaf;
    leaf += leaves(*f.type);
  }
  std::vector<std::string> out, without_stats;
  for (const auto& z : zorder_by) {
    if (is_partition(z)) {
      ThrowStatus(Status::Error("DELTA_ZORDERING_ON_PARTITION_COLUMN", {{"colName", z}}));
    }
    const int idx = schema.FieldIndex(z);
    if (idx < 0) {
      ThrowStatus(
          Status::Error("DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST", {{"columnName", z}}));
    }
    out.push_back(schema.field(idx).name);
    if (indexed >= 0 && first_leaf[ToLower(z)] >= indexed) without_stats.push_back(z);
  }
  const char* check =
      "spark.databricks.delta.optimize.zorder.checkStatsCollection.enabled";
  if (!without_stats.empty() && ConfTrue(s, check, true)) {
    std::string cols;
    for (const auto& c : without_stats) cols += (cols.empty() ? "" : ", ") + c;
    ThrowStatus(Status::Error("DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS",
                              {{"cols", "[" + cols + "]"}, {"zorderColStatKey", check}}));
  }
  return out;
}

// Every file of each partition, packed by size into bins of at most `max_size` bytes; a
// bin of one file is Z-ordered too (Delta's OPTIMIZE ZORDER BY).
table::CompactionBins ZOrderBins(const std::vector<AddFile>& files, int64_t max_size) {
  std::map<table::PartitionValues, std::vector<AddFile>> by_partition;
  for (const auto& f : files) by_partition[f.partition_values].push_back(f);
  table::CompactionBins bins;
  for (auto& [unused, group] : by_partition) {
    std::stable_sort(group.begin(), group.end(),
                     [](const AddFile& a, const AddFile& b) { return a.size < b.size; });
    int64_t size = 0;
    for (auto& f : group) {
      if (bins.empty() || bins.back().front().partition_values != f.partition_values ||
          (size + f.size > max_size && !bins.back().empty())) {
        bins.emplace_back();
        size = 0;
      }
      size += f.size;
      bins.back().push_back(std::move(f));
    }
  }
  return bins;
}

// The rows of `bin` (deletion vectors applied) in Z-order over `columns`, as Delta's
// MultiDimClustering with the Z curve: each column's value becomes a range id in
// [0, num_ranges) (its percent rank, NULLs first, so equal values share an id), the ids'
// bits are interleaved (most significant first, columns in order: interleave_bits), and
// the rows are ordered by that key and cut into `parts` contiguous runs (one file each).
std::vector<BatchPtr> ZOrderBin(const std::shared_ptr<SessionState>& state,
                                const table::SnapshotPtr& snapshot,
                                const std::vector<AddFile>& bin,
                                const std::vector<std::string>& columns, int num_ranges,
                                int64_t parts) {
  const Schema& schema = *snapshot->schema();
  DataFrame df = DeltaFilesFrame(state, snapshot, bin);
  std::vector<Column> out;
  for (const auto& f : schema.fields()) out.push_back(df[f.name]);
  for (size_t k = 0; k < columns.size(); ++k) {
    Column rank = functions::percent_rank().over(
        Window::orderBy({df[columns[k]].asc_nulls_first()}));
    out.push_back((rank * functions::lit(static_cast<double>(num_ranges - 1)))
                      .cast("int")
                      .alias(kZOrderId + std::to_string(k)));
  }
  DataFrame ranked = df.select(out);
  SchemaPtr ranked_schema = ranked.analyzed()->OutputSchema();
  BatchPtr all = ConcatBatches(ranked_schema, ranked.collectBatches());
  const int64_t n = all->num_rows();
  int bits = 1;
  while ((int64_t{1} << bits) < num_ranges) ++bits;
  const int nf = schema.num_fields();
  const size_t key_bytes = (static_cast<size_t>(bits) * columns.size() + 7) / 8;
  std::vector<std::string> keys(static_cast<size_t>(n), std::string(key_bytes, '\0'));
  for (size_t k = 0; k < columns.size(); ++k) {
    const int32_t* ids = all->column(nf + static_cast<int>(k))->raw_values<int32_t>();
    for (int64_t r = 0; r < n; ++r) {
      std::string& key = keys[static_cast<size_t>(r)];
      for (int b = bits - 1; b >= 0; --b) {
        if (!((ids[r] >> b) & 1)) continue;
        const size_t pos = static_cast<size_t>(bits - 1 - b) * columns.size() + k;
        key[pos / 8] = static_cast<char>(key[pos / 8] | (0x80 >> (pos % 8)));
      }
    }
  }
  std::vector<int32_t> order(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) order[static_cast<size_t>(r)] = static_cast<int32_t>(r);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)];
  });
  std::vector<ColumnPtr> data_cols;
  std::vector<Field> data_fields;
  for (int c = 0; c < nf; ++c) {
    data_cols.push_back(all->column(c));
    data_fields.push_back(ranked_schema->field(c));
  }
  BatchPtr data = TakeBatch(
      *Batch::Make(std::make_shared<const Schema>(std::move(data_fields)), data_cols, n),
      order.data(), n);
  std::vector<BatchPtr> runs;
  parts = std::clamp<int64_t>(parts, 1, std::max<int64_t>(1, n));
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t begin = n * i / parts, end = n * (i + 1) / parts;
    runs.push_back(SliceBatch(*data, begin, end - begin));
  }
  return runs;
}

}  // namespace

DataFrame ExecuteOptimize(const std::shared_ptr<SessionState>& state,
                          const DeltaDmlTarget& target,
                          const ExprPtr& partition_predicate,
                          const std::vector<std::string>& zorder_by) {
  const int64_t start_ms = table::SystemNow()();
  table::SnapshotPtr snapshot = LatestSnapshot(target);
  const auto& part_cols = snapshot->metadata().partition_columns;
  if (partition_predicate) {
    std::string offending;
    if (!RefsOnly(partition_predicate, part_cols, target.alias, &offending)) {
      std::string list;
      for (const auto& c : part_cols) list += (list.empty() ? "" : ", ") + c;
      ThrowStatus(Status::Error("DELTA_NON_PARTITION_COLUMN_REFERENCE",
                                {{"columnName", offending}, {"columnList", list}}));
    }
    CheckCondition(state, snapshot, target, partition_predicate, "OPTIMIZE");
  }
  const std::vector<std::string> zorder = ZOrderColumns(*state, *snapshot, zorder_by);
  const int64_t min_size =
      ConfBytes(*state, "spark.databricks.delta.optimize.minFileSize", 1LL << 30);
  const int64_t max_size =
      ConfBytes(*state, "spark.databricks.delta.optimize.maxFileSize", 1LL << 30);
  std::vector<AddFile> considered = FilterByPartitions(
      state, *snapshot, snapshot->files(), partition_predicate, target.alias);
  // Small files per partition, by size, packed into bins of at most maxFileSize (ZORDER
  // BY: every file).
  const table::CompactionBins bins =
      zorder.empty() ? table::PlanCompaction(considered, min_size, max_size)
                     : ZOrderBins(considered, max_size);
  std::set<table::PartitionValues> partitions;
  std::vector<AddFile> removed;
  for (const auto& b : bins) {
    partitions.insert(b[0].partition_values);
    removed.insert(removed.end(), b.begin(), b.end());
  }
  std::vector<int64_t> added_sizes, removed_sizes;
  int64_t dvs_removed = 0, dv_rows_removed = 0;  // purged deletion vectors
  for (const auto& f : removed) {
    removed_sizes.push_back(f.size);
    if (f.deletion_vector) {
      dvs_removed++;
      dv_rows_removed += f.deletion_vector->cardinality;
    }
  }
  if (!bins.empty()) {
    // One output file per bin, all in one commit with dataChange=false.
    table::DeltaWriteOptions o = SessionDeltaWriteOptions(*state, "append");
    o.operation = "OPTIMIZE";
    o.operation_parameters["predicate"] =
        PredicateList(partition_predicate, nullptr, false);
    o.operation_parameters["auto"] = "false";
    Json zjson = Json::Array();
    for (const auto& z : zorder) zjson.Append(Json::String(z));
    o.operation_parameters["zOrderBy"] = zjson.ToString();
    o.operation_parameters["clusterBy"] = "[]";
    o.operation_metrics = [dvs_removed](const table::DeltaWriteResult& w) {
      return table::OptimizeMetrics(w, dvs_removed);
    };
    table::DeltaWriteResult w;
    if (zorder.empty()) {
      w = ValueOrThrow(
          table::CompactFiles(Fs(), target.path, snapshot, bins, o,
                              std::max(1, state->MakeExecOptions().parallelism)));
    } else {
      // Each bin Z-ordered into max(1, its bytes / maxFileSize) files, one commit.
      const int num_ranges = static_cast<int>(std::clamp<int64_t>(
          ConfBytes(*state, "spark.databricks.io.skipping.mdc.rangeId.max", 1000), 2,
          1 << 30));
      std::vector<BatchPtr> runs;
      for (const auto& b : bins) {
        int64_t bytes = 0;
        for (const auto& f : b) bytes += f.size;
        for (auto& r :
             ZOrderBin(state, snapshot, b, zorder, num_ranges,
                       std::max<int64_t>(1, bytes / std::max<int64_t>(1, max_size))))
          runs.push_back(std::move(r));
        o.remove_files.insert(o.remove_files.end(), b.begin(), b.end());
      }
      o.mode = "append";
      o.read_snapshot = snapshot;
      o.data_change = false;
      w = ValueOrThrow(table::WriteDelta(
          Fs(), target.path, snapshot->schema(), static_cast<int>(runs.size()),
          [&](const table::BatchSink& sink) -> Status {
            for (size_t i = 0; i < runs.size(); ++i) {
              if (runs[i]->num_rows() > 0)
                SPATE_RETURN_IF_ERROR(sink(static_cast<int>(i), runs[i]));
            }
            return Status::OK();
          },
          o));
    }
    added_sizes = w.file_sizes;
  }
  DataTypePtr type = ValueOrThrow(sql::ParseDataType(kOptimizeMetricsType));
  auto ft = [&](const char* name) { return type->fields()[type->FieldIndex(name)].type; };
  const int64_t n_considered = static_cast<int64_t>(considered.size());
  const int64_t n_columns = snapshot->schema()->num_fields();
  std::vector<Value> m = {
      Value::Long(static_cast<int64_t>(added_sizes.size())),
      Value::Long(static_cast<int64_t>(removed.size())),
      FileStats(ft("filesAdded"), added_sizes),
      FileStats(ft("filesRemoved"), removed_sizes),
      Value::Long(static_cast<int64_t>(partitions.size())),
      zorder.empty() ? Value::Null(ft("zOrderStats"))
                     : ZOrderStats(ft("zOrderStats"), removed_sizes,
                                   static_cast<int64_t>(bins.size())),
      Value::Null(ft("clusteringStats")),
      Value::Long(static_cast<int64_t>(bins.size())),
      Value::Long(1),
      Value::Long(n_considered),
      Value::Long(n_considered - static_cast<int64_t>(removed.size())),
      Value::Boolean(false),
      Value::Long(0),
      Value::Long(0),
      Value::Long(start_ms),
      Value::Long(0),
      Value::Long(state->MakeExecOptions().parallelism),
      Value::Long(0),
      Value::Null(ft("autoCompactParallelismStats")),
      dvs_removed == 0
          ? Value::Null(ft("deletionVectorStats"))
          : Value::Struct(ft("deletionVectorStats"),
                          {Value::Long(dvs_removed), Value::Long(dv_rows_removed)}),
      Value::Long(n_columns),
      Value::Long(NumIndexedCols(*snapshot) < 0
                      ? n_columns
                      : std::min<int64_t>(n_columns, NumIndexedCols(*snapshot))),
  };
  return OneRow(state, {{"path", Value::String("file:" + target.path)},
                        {"metrics", Value::Struct(type, std::move(m))}});
}

// --- VACUUM ---

DataFrame ExecuteVacuum(const std::shared_ptr<SessionState>& state,
                        const DeltaDmlTarget& target, std::optional<double> retain_hours,
                        bool dry_run) {
  auto fs = Fs();
  auto log = std::make_shared<const table::DeltaLog>(fs, target.path);
  table::SnapshotPtr snapshot = ValueOrThrow(log->Latest());
  // Files of tables spate cannot write (column mapping, ...) are not vacuumed either.
  CheckOrThrow(table::CheckSupported(snapshot->protocol(), &snapshot->metadata(), true));
  constexpr int64_t kWeekMs = 7LL * 24 * 3600 * 1000;
  const int64_t default_ms = table::RetentionMs(
      snapshot->metadata(), "delta.deletedFileRetentionDuration", kWeekMs);
  const bool check =
      ConfTrue(*state, "spark.databricks.delta.retentionDurationCheck.enabled", true);
  const int64_t retention_ms =
      retain_hours ? static_cast<int64_t>(std::llround(*retain_hours * 3600.0 * 1000.0))
                   : default_ms;
  if (retain_hours && *retain_hours < 0) {
    ThrowStatus(Status::Error("DELTA_ILLEGAL_OPTION",
                              {{"input", std::to_string(*retain_hours)},
                               {"name", "RETAIN"},
                               {"explain", "the retention must not be negative"}}));
  }
  if (check && retention_ms < default_ms) {
    ThrowStatus(Status::Error(
        "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT",
        {{"configuredRetentionHours", std::to_string(default_ms / (3600 * 1000))}}));
  }
  const int64_t delete_before = log->NowMs() - retention_ms;
  // Files some version within the retention may read: the active ones and the
  // tombstones younger than the retention.
  // Their deletion vectors' files too.
  std::set<std::string> valid;
  auto keep_dv = [&](const std::optional<table::DeletionVectorDescriptor>& dv) {
    if (!dv) return;
    auto p = table::DeletionVectorPath(*dv, snapshot->table_path());
    if (p.ok() && !p->empty()) valid.insert(*p);
  };
  for (const auto& f : snapshot->files()) {
    valid.insert(snapshot->DataFilePath(f));
    keep_dv(f.deletion_vector);
  }
  for (const auto& r : snapshot->tombstones()) {
    if (r.deletion_timestamp.value_or(0) > delete_before) {
      AddFile probe;
      probe.path = r.path;
      valid.insert(snapshot->DataFilePath(probe));
      keep_dv(r.deletion_vector);
    }
  }
  const auto& part_cols = snapshot->metadata().partition_columns;
  auto hidden = [&](const std::string& name) {
    if (name.empty() || (name[0] != '_' && name[0] != '.')) return false;
    if (name.rfind("_change_data", 0) == 0) return false;
    for (const auto& p : part_cols)
      if (name.rfind(p + "=", 0) == 0) return false;
    return true;
  };
  // The table's folders one level at a time, not descending into hidden ones (the
  // `_delta_log` of a long stream holds tens of thousands of files), as Delta lists.
  std::vector<std::pair<std::string, int64_t>> to_delete;
  int64_t dirs = 1;
  std::vector<std::string> pending{target.path};
  while (!pending.empty()) {
    const std::string dir = std::move(pending.back());
    pending.pop_back();
    for (const auto& e : ValueOrThrow(fs->List(dir, false))) {
      const size_t slash = e.path.find_last_of('/');
      if (hidden(slash == std::string::npos ? e.path : e.path.substr(slash + 1)))
        continue;
      if (e.is_directory) {
        dirs++;
        pending.push_back(e.path);
        continue;
      }
      if (valid.count(e.path) || e.modification_time_ms >= delete_before) continue;
      to_delete.emplace_back(e.path, e.size);
    }
  }
  std::sort(to_delete.begin(), to_delete.end());
  if (dry_run) {
    std::vector<Value> paths;
    for (const auto& [p, size] : to_delete) paths.push_back(Value::String("file:" + p));
    auto schema = std::make_shared<const Schema>(
        std::vector<Field>{Field{"path", DataType::String(), true, ""}});
    return DataFrame(
        state,
        LocalPlan(schema,
                  {Batch::Make(schema, {ColumnFromValues(DataType::String(), paths)},
                               static_cast<int64_t>(paths.size()))}));
  }
  const bool logging =
      ConfTrue(*state, "spark.databricks.delta.vacuum.logging.enabled", true);
  int64_t bytes = 0;
  for (const auto& [p, size] : to_delete) bytes += size;
  if (logging) {
    table::OptimisticTransaction txn(log, snapshot);
    table::CommitInfo info;
    info.operation = "VACUUM START";
    info.operation_parameters["retentionCheckEnabled"] = check ? "true" : "false";
    info.operation_parameters["defaultRetentionMillis"] = std::to_string(default_ms);
    if (retain_hours) {
      info.operation_parameters["specifiedRetentionMillis"] =
          std::to_string(retention_ms);
    }
    info.operation_metrics["numFilesToDelete"] = std::to_string(to_delete.size());
    info.operation_metrics["sizeOfDataToDelete"] = std::to_string(bytes);
    ValueOrThrow(txn.Commit({}, std::move(info)));
  }
  int64_t deleted = 0;
  for (const auto& [p, size] : to_delete) {
    Status st = fs->Delete(p);
    if (st.ok()) {
      deleted++;
    } else if (st.code() != StatusCode::kNotFound) {
      CheckOrThrow(st);
    }
  }
  if (logging) {
    table::SnapshotPtr now = ValueOrThrow(log->Latest());
    table::OptimisticTransaction txn(log, now);
    table::CommitInfo info;
    info.operation = "VACUUM END";
    info.operation_parameters["status"] = "COMPLETED";
    info.operation_metrics["numDeletedFiles"] = std::to_string(deleted);
    info.operation_metrics["numVacuumedDirectories"] = std::to_string(dirs);
    ValueOrThrow(txn.Commit({}, std::move(info)));
  }
  return OneRow(state, {{"path", Value::String("file:" + target.path)}});
}

}  // namespace spate::api
