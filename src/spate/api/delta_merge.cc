// Copyright spate authors.
#include "spate/api/delta_merge.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "spate/api/delta_dml.h"
#include "spate/api/delta_table.h"
#include "spate/api/exceptions.h"
#include "spate/api/session_state.h"
#include "spate/base/json.h"
#include "spate/base/text_parse.h"
#include "spate/columnar/builder.h"
#include "spate/columnar/kernels.h"
#include "spate/sql/analyzer.h"
#include "spate/sql/parser.h"
#include "spate/table/deletion_vector.h"
#include "spate/table/delta_log.h"
#include "spate/table/delta_source.h"
#include "spate/table/delta_writer.h"

namespace spate::api {

namespace {

using Clause = sql::MergeClause;
using Match = sql::MergeClause::Match;
using Action = sql::MergeClause::Action;

// Marker columns added to the two sides of the joins.
constexpr const char* kTargetPresent = "__spate_merge_target_present";
constexpr const char* kSourcePresent = "__spate_merge_source_present";
constexpr const char* kRowId = "__spate_merge_row_id";
constexpr const char* kFileName = "__spate_merge_file";
constexpr const char* kAction = "__spate_merge_action";
constexpr const char* kPreImage = "__spate_merge_pre_";  // + column index
// The one-pass MERGE's flags: the row joined both sides; it may touch its file.
constexpr const char* kMatchedFlag = "__spate_merge_matched";
constexpr const char* kRecordFlag = "__spate_merge_record";

// Candidate files up to this many bytes (Parquet) are read once (the one-pass MERGE):
// the session conf spate.delta.merge.onePassMaxBytes, off (0) by default — measured
// slower than the two passes (bench/dml_bench merge onepass): every candidate row's id
// and file name carried through the join cost more than the first pass saves.
constexpr int64_t kOnePassMaxBytes = 0;
// ... when the source has at least one row per this many candidate rows.
constexpr int64_t kOnePassRowsPerSourceRow = 100;

// Action codes of a joined row: clause index + 1, or one of these.
constexpr int32_t kCopy = 0;   // a target row no clause applies to: written unchanged
constexpr int32_t kDrop = -1;  // a source row no NOT MATCHED clause applies to

Column Cond(const Clause& c) {
  return c.condition ? Column(c.condition) : functions::lit(true);
}

// CASE WHEN b[0].first THEN b[0].second ... ELSE otherwise END.
Column CaseOf(const std::vector<std::pair<Column, Column>>& branches,
              const Column& otherwise) {
  if (branches.empty()) return otherwise;
  std::vector<ExprPtr> parts;
  for (const auto& [when, then] : branches) {
    parts.push_back(when.expr());
    parts.push_back(then.expr());
  }
  return Column(Expr::CaseWhen(std::move(parts), otherwise.expr()));
}

const char* ActionType(Action a) {
  switch (a) {
    case Action::kUpdate:
      return "update";
    case Action::kDelete:
      return "delete";
    case Action::kInsert:
      return "insert";
  }
  return "";
}

// operationParameters as delta-spark writes them: JSON arrays of {predicate, actionType}.
std::string ClausePredicates(const std::vector<Clause>& clauses, Match match) {
  Json a = Json::Array();
  for (const auto& c : clauses) {
    if (c.match != match) continue;
    Json o = Json::Object();
    if (c.condition) o.Set("predicate", Json::String(DeltaPredicateText(c.condition)));
    o.Set("actionType", Json::String(ActionType(c.action)));
    a.Append(std::move(o));
  }
  return a.ToString();
}

// The table column a SET / INSERT target names: `v`, or `t.v` with the target alias.
int TargetColumn(const Schema& schema, const std::vector<std::string>& parts,
                 const std::string& alias, const std::string& clause_name) {
  std::vector<std::string> p = parts;
  if (p.size() == 2 && !alias.empty() && EqualsIgnoreCase(p[0], alias))
    p.erase(p.begin());
  if (p.size() == 1) {
    int idx = schema.FieldIndex(p[0]);
    if (idx >= 0) return idx;
  }
  std::string name;
  for (const auto& s : parts) name += (name.empty() ? "" : ".") + s;
  std::string cols;
  for (const auto& f : schema.fields()) cols += (cols.empty() ? "" : ", ") + f.name;
  ThrowStatus(
      Status::Error("DELTA_MERGE_UNRESOLVED_EXPRESSION",
                    {{"sqlExpr", name}, {"clause", clause_name}, {"cols", cols}}));
}

// True when an expression of the MERGE refers to a column through a DataFrame (df["c"]).
bool UsesDataFrameReferences(const MergeSpec& spec) {
  std::vector<ExprPtr> stack = {spec.condition};
  for (const auto& c : spec.clauses) {
    stack.push_back(c.condition);
    for (const auto& [unused, value] : c.assignments) stack.push_back(value);
  }
  while (!stack.empty()) {
    ExprPtr e = stack.back();
    stack.pop_back();
    if (!e) continue;
    if (e->kind == ExprKind::kColumn && e->plan_id >= 0) return true;
    for (const auto& c : e->children) stack.push_back(c);
  }
  return false;
}

// `e` with every node `fn` replaces (fn returns nullptr to keep a node and visit its
// children).
ExprPtr Rewrite(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& fn) {
  if (!e) return e;
  if (ExprPtr r = fn(e)) return r;
  std::vector<ExprPtr> kids;
  bool changed = false;
  for (const auto& c : e->children) {
    kids.push_back(Rewrite(c, fn));
    changed |= kids.back() != c;
  }
  if (!changed) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->children = std::move(kids);
  return copy;
}

// The columns `e` references (name_parts of its column nodes).
void ColumnRefs(const ExprPtr& e, std::vector<const Expr*>* out) {
  if (!e) return;
  if (e->kind == ExprKind::kColumn) out->push_back(e.get());
  for (const auto& c : e->children) ColumnRefs(c, out);
}

// Which side of the MERGE an expression reads, decided by binding it as the joins do.
class Sides {
 public:
  Sides(const SessionState& s, const DataFrame& source, const DataFrame& target)
      : analyzer_(s.catalog, s.conf),
        source_(source.analyzed()->output),
        target_(target.analyzed()->output) {}
  // The bound form of `e` over the target alone (deterministic, no subquery), or nullptr.
  BoundExprPtr Target(const ExprPtr& e) { return Bind(e, target_); }
  BoundExprPtr Source(const ExprPtr& e) { return Bind(e, source_); }
  // The target column a bare column reference names (-1: not one).
  int TargetColumn(const ExprPtr& e, const Schema& schema) {
    if (!e || e->kind != ExprKind::kColumn || !Target(e)) return -1;
    return schema.FieldIndex(e->name_parts.back());
  }

 private:
  BoundExprPtr Bind(const ExprPtr& e, const std::vector<sql::Attribute>& scope) {
    if (!e || HasSubquery(e)) return nullptr;
    Result<BoundExprPtr> b = analyzer_.BindExpression(e, scope);
    if (!b.ok() || (*b)->IsNondeterministic()) return nullptr;
    return *b;
  }
  sql::Analyzer analyzer_;
  std::vector<sql::Attribute> source_, target_;
};

// What the MERGE may skip without reading (Delta's filterFiles with the ON condition's
// target-only conjuncts, and for MATCHED-only MERGEs the disjunction of the clauses'
// target-only conjuncts), plus the source's key ranges (beyond Delta): for each
// `t.k = <source expression>` conjunct, the source's min / max of the key, and its
// values when the source is small (source: nullptr when its keys are not to be read).
struct Pruning {
  ExprPtr partition;      // partition-only conjuncts (nullptr: none)
  FileSkipping skipping;  // statistics (and partition values) of the rest
};

// Source key values up to this many source rows are collected (the IN-set pruning).
constexpr int64_t kKeyValuesMaxRows = 1024;

bool Widens(const DataType& from, const DataType& to) {
  if (from.SameType(to)) return true;
  auto width = [](const DataType& t) {
    switch (t.id()) {
      case TypeId::kByte:
        return 1;
      case TypeId::kShort:
        return 2;
      case TypeId::kInt:
        return 4;
      case TypeId::kLong:
        return 8;
      default:
        return 0;
    }
  };
  return width(from) > 0 && width(to) >= width(from);
}

Pruning PlanPruning(const MergeSpec& spec, const std::vector<const Clause*>& matched,
                    bool matched_only, Sides& sides, const table::Snapshot& snapshot,
                    const DataFrame* source, int64_t num_source_rows,
                    const EvalContext& ctx) {
  Pruning out;
  const Schema& schema = *snapshot.schema();
  const auto& part_cols = snapshot.metadata().partition_columns;
  auto is_partition_col = [&](const std::string& name) {
    for (const auto& p : part_cols)
      if (EqualsIgnoreCase(p, name)) return true;
    return false;
  };
  const SkippingBinder target = [&sides](const ExprPtr& e) { return sides.Target(e); };
  std::vector<FileSkipping> skipping;
  std::vector<ExprPtr> conj, partition;
  Conjuncts(spec.condition, &conj);
  for (const auto& e : conj) {
    if (sides.Target(e)) {
      std::vector<const Expr*> refs;
      ColumnRefs(e, &refs);
      bool only_partitions = !part_cols.empty();
      for (const Expr* r : refs) {
        only_partitions &= r->plan_id < 0 && is_partition_col(r->name_parts.back());
      }
      if (only_partitions) partition.push_back(e);
      skipping.push_back(ToFileSkipping(e, schema, target, ctx));
      continue;
    }
    // t.k = <source expression>: the source's key range.
    if (!source || e->kind != ExprKind::kCall || e->name != "=" ||
        e->children.size() != 2)
      continue;
    for (int side = 0; side < 2; ++side) {
      const int c = sides.TargetColumn(e->children[static_cast<size_t>(side)], schema);
      const ExprPtr& other = e->children[static_cast<size_t>(1 - side)];
      BoundExprPtr bound = c >= 0 ? sides.Source(other) : nullptr;
      if (!bound) continue;
      const DataTypePtr& type = schema.field(c).type;
      if (!Widens(*bound->type(), *type) || type->IsNested()) break;
      Column key = Column(other).cast(type);
      Row range = source->agg({functions::min(key), functions::max(key)}).collect()[0];
      if (range[0].is_null()) {
        // No source row has a key: nothing can match.
        skipping.push_back(FileSkipping::Or({}));
        break;
      }
      skipping.push_back(FileSkipping::Leaf({c, ScanPredicate::Op::kGe, range[0]}));
      skipping.push_back(FileSkipping::Leaf({c, ScanPredicate::Op::kLe, range[1]}));
      if (num_source_rows <= kKeyValuesMaxRows) {
        // Some key value within the file's range.
        std::vector<FileSkipping> any_key;
        for (const auto& r : source->select({key.alias("k")}).distinct().collect()) {
          if (!r[0].is_null())
            any_key.push_back(FileSkipping::Leaf({c, ScanPredicate::Op::kEq, r[0]}));
        }
        skipping.push_back(FileSkipping::Or(std::move(any_key)));
      }
      break;
    }
  }
  if (!partition.empty()) {
    Column all(partition[0]);
    for (size_t i = 1; i < partition.size(); ++i) all = all && Column(partition[i]);
    out.partition = all.expr();
  }
  if (matched_only) {
    // Some clause's condition may hold (its target-only parts; the others bind to
    // nothing here and decide nothing).
    std::vector<FileSkipping> clauses;
    for (const Clause* c : matched) {
      clauses.push_back(ToFileSkipping(c->condition, schema, target, ctx));
    }
    skipping.push_back(FileSkipping::Or(std::move(clauses)));
  }
  out.skipping = FileSkipping::And(std::move(skipping));
  return out;
}

// The files of `files` that `pruning` cannot rule out.
std::vector<table::AddFile> PruneFiles(const std::shared_ptr<SessionState>& state,
                                       const table::SnapshotPtr& snapshot,
                                       std::vector<table::AddFile> files,
                                       const Pruning& pruning, const std::string& alias) {
  files = FilterByPartitions(state, *snapshot, files, pruning.partition, alias);
  return SkipFiles(state, snapshot, std::move(files), pruning.skipping);
}

// Delta's multiple-match rule over the number of source rows each target row (by id)
// matched: DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE unless
// `duplicates_allowed` (only an unconditional DELETE); returns the matches beyond the
// first (what numTargetRowsDeleted overcounts).
int64_t CheckMatches(const std::unordered_map<int64_t, int64_t>& matches,
                     bool duplicates_allowed) {
  int64_t multi = 0, multi_sum = 0;
  for (const auto& [id, n] : matches) {
    if (n > 1) {
      multi++;
      multi_sum += n;
    }
  }
  if (multi > 0 && !duplicates_allowed) {
    ThrowStatus(Status::Error("DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"));
  }
  return multi_sum - multi;
}

// The one-pass MERGE's joined rows (every candidate file's): checks that no target row
// matched two source rows (unless `duplicates_allowed`: only an unconditional DELETE),
// sets the touched files (`all_touched`: every candidate, else those holding a row that
// joined a source row and may touch its file) and the overcount of duplicate deletes,
// and returns the rows to write from: those of touched files and the source rows
// without a target row.
std::vector<BatchPtr> OnePassTouched(std::vector<BatchPtr> batches, const Schema& schema,
                                     const table::Snapshot& snapshot,
                                     const std::vector<table::AddFile>& candidates,
                                     bool all_touched, bool duplicates_allowed,
                                     std::vector<table::AddFile>* touched,
                                     int64_t* delete_overcount) {
  const int id_col = schema.FieldIndex(kRowId);
  const int file_col = schema.FieldIndex(kFileName);
  const int matched_col = schema.FieldIndex(kMatchedFlag);
  const int record_col = schema.FieldIndex(kRecordFlag);
  std::unordered_map<int64_t, int64_t> matches;
  std::set<std::string> files;  // local paths of files a matched row touches
  std::string last_uri;         // (consecutive rows of one file decode its URI once)
  for (const auto& b : batches) {
    const auto& ids = b->column(id_col);
    const auto& names = b->column(file_col);
    const auto& m = b->column(matched_col);
    const auto& rec = b->column(record_col);
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      if (!m->IsValid(i) || !m->GetBool(i)) continue;
      matches[ids->raw_values<int64_t>()[i]]++;
      if (all_touched || !rec->IsValid(i) || !rec->GetBool(i)) continue;
      const std::string_view uri = names->GetView(i);
      if (uri != last_uri) {
        last_uri = std::string(uri);
        files.insert(LocalFilePath(uri));
      }
    }
  }
  *delete_overcount = CheckMatches(matches, duplicates_allowed);
  if (all_touched) {
    *touched = candidates;
    return batches;
  }
  touched->clear();
  for (const auto& f : candidates) {
    if (files.count(LocalFilePath(snapshot.DataFilePath(f)))) touched->push_back(f);
  }
  // Keep the rows of touched files and those without a target row.
  std::unordered_map<std::string, bool> keep_uri;
  std::vector<BatchPtr> out;
  std::vector<int32_t> keep;
  for (auto& b : batches) {
    const auto& names = b->column(file_col);
    keep.clear();
    std::string_view last;
    bool last_keep = false;
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      bool k = true;
      if (names->IsValid(i)) {
        const std::string_view uri = names->GetView(i);
        if (i == 0 || uri != last) {
          auto [it, added] = keep_uri.try_emplace(std::string(uri), false);
          if (added) it->second = files.count(LocalFilePath(uri)) > 0;
          last = it->first;
          last_keep = it->second;
        }
        k = last_keep;
      }
      if (k) keep.push_back(static_cast<int32_t>(i));
    }
    if (keep.empty()) continue;
    if (static_cast<int64_t>(keep.size()) == b->num_rows()) {
      out.push_back(std::move(b));
    } else {
      out.push_back(TakeBatch(*b, keep.data(), static_cast<int64_t>(keep.size())));
    }
  }
  return out;
}

}  // namespace

DataFrame ExecuteMerge(const std::shared_ptr<SessionState>& state,
                       const MergeSpec& spec_in) {
  const auto started = std::chrono::steady_clock::now();
  // (DataFrame references to the source are rewritten when it is materialized.)
  MergeSpec spec = spec_in;
  SessionState& s = *state;
  auto fs = io::LocalFileSystem::Get();

  // Clause kinds.
  std::vector<const Clause*> matched, not_matched, by_source;
  for (const auto& c : spec.clauses) {
    (c.match == Match::kMatched      ? matched
     : c.match == Match::kNotMatched ? not_matched
                                     : by_source)
        .push_back(&c);
  }
  if (spec.clauses.empty()) {
    ThrowStatus(Status::Error("DELTA_MERGE_MISSING_WHEN"));
  }
  const bool only_unconditional_delete = matched.size() == 1 &&
                                         matched[0]->action == Action::kDelete &&
                                         !matched[0]->condition;
  const bool matched_only = !matched.empty() && not_matched.empty() && by_source.empty();

  table::DeltaLog log(fs, spec.target_path);
  table::SnapshotPtr snapshot = ValueOrThrow(log.Latest());
  const Schema& target_schema = *snapshot->schema();

  // Idempotent DML (Delta's spark.databricks.delta.write.txnAppId / txnVersion).
  const std::optional<table::TxnId> txn_id = SessionDmlTxn(s);
  auto result_frame = [&](int64_t updated, int64_t deleted, int64_t inserted) {
    auto schema = std::make_shared<const Schema>(
        std::vector<Field>{{"num_affected_rows", DataType::Long(), true, ""},
                           {"num_updated_rows", DataType::Long(), true, ""},
                           {"num_deleted_rows", DataType::Long(), true, ""},
                           {"num_inserted_rows", DataType::Long(), true, ""}});
    std::vector<ColumnPtr> cols;
    for (int64_t v : {updated + deleted + inserted, updated, deleted, inserted}) {
      cols.push_back(MakeConstantColumn(Value::Long(v), 1));
    }
    return DataFrame(state, LocalPlan(schema, {Batch::Make(schema, cols, 1)}));
  };
  if (txn_id) {
    auto latest = snapshot->TxnVersion(txn_id->app_id);
    if (latest && *latest >= txn_id->version) return result_frame(0, 0, 0);
  }

  // (Under a SELECT * so that the source's own DataFrame id, which its df["c"]
  // references name, stays on its plan: a DataFrame's root takes a new id.)
  auto select_all = std::make_shared<sql::LogicalPlan>(sql::PlanKind::kProject);
  select_all->children = {spec.source};
  select_all->exprs = {Expr::Star()};
  DataFrame source_df(state, select_all);
  SchemaPtr source_schema = source_df.analyzed()->OutputSchema();

  // Tables with deletion vectors: matched rows are marked in DVs, only updated and
  // inserted rows are written (no copies).
  const bool dv_mode = WritesDeletionVectors(s, *snapshot, "merge");
  auto target_frame = [&](std::vector<table::AddFile> files, bool with_ids,
                          bool with_positions = false) {
    DataFrame df = DeltaFilesFrame(state, snapshot, std::move(files), with_positions)
                       .withColumn(kTargetPresent, functions::lit(true));
    if (with_positions && !with_ids)
      df = df.withColumn(kFileName, functions::expr("input_file_name()"));
    if (with_ids) {
      df = df.withColumns({{kRowId, functions::expr("monotonically_increasing_id()")},
                           {kFileName, functions::expr("input_file_name()")}});
    }
    return spec.target_alias.empty() ? df : df.alias(spec.target_alias);
  };
  // The source with its presence marker, under its alias.
  std::string source_alias;
  if (spec.source->kind == sql::PlanKind::kSubqueryAlias)
    source_alias = spec.source->alias;
  DataFrame source = source_df.withColumn(kSourcePresent, functions::lit(true));
  if (!source_alias.empty()) source = source.alias(source_alias);
  Column condition(spec.condition);

  // Each clause resolves where Delta resolves it: MATCHED against both sides, NOT
  // MATCHED against the source, NOT MATCHED BY SOURCE against the target. A name that
  // does not resolve there is DELTA_MERGE_UNRESOLVED_EXPRESSION.
  {
    DataFrame target_only = target_frame({}, false);
    DataFrame both = source.join(target_only, condition, "inner");
    sql::Analyzer analyzer(s.catalog, s.conf);
    auto check = [&](const ExprPtr& e, const DataFrame& scope,
                     const std::string& clause) {
      if (!e) return;
      Result<BoundExprPtr> bound = analyzer.BindExpression(e, scope.analyzed()->output);
      if (bound.ok() || bound.status().error_class().rfind("UNRESOLVED_COLUMN", 0) != 0) {
        CheckOrThrow(bound.status());
        return;
      }
      std::string cols;
      for (const auto& a : scope.analyzed()->output) {
        if (a.name.rfind("__spate_merge_", 0) == 0) continue;
        cols += (cols.empty() ? "" : ", ") +
                (a.qualifier.empty() ? "" : a.qualifier + ".") + a.name;
      }
      ThrowStatus(Status::Error(
          "DELTA_MERGE_UNRESOLVED_EXPRESSION",
          {{"sqlExpr", e->DisplayName()}, {"clause", clause}, {"cols", cols}}));
    };
    for (const auto& c : spec.clauses) {
      const DataFrame& scope = c.match == Match::kMatched      ? both
                               : c.match == Match::kNotMatched ? source
                                                               : target_only;
      const std::string clause = std::string(c.action == Action::kUpdate   ? "UPDATE"
                                             : c.action == Action::kDelete ? "DELETE"
                                                                           : "INSERT") +
                                 " clause";
      check(c.condition, scope, clause + " condition");
      for (const auto& [unused, value] : c.assignments) check(value, scope, clause);
    }
  }

  // Source materialization (Delta's spark.databricks.delta.merge.materializeSource,
  // `auto` by default; `none` turns it off): the source is evaluated once, and every pass
  // (the count, the key ranges, the matched files, the rewrite) reads the same rows, so a
  // non-deterministic or concurrently changing source cannot make them disagree. The
  // rows keep the source's alias, or without one the qualifier its columns share (a
  // table's name); the MERGE's DataFrame references to source columns (df["c"]) are
  // rewritten to name the materialized columns.
  int64_t num_source_rows = 0;
  int64_t materialize_ms = 0;
  std::string qualifier = source_alias;
  bool materialize =
      ToLower(s.conf.GetOr("spark.databricks.delta.merge.materializeSource", "auto")) !=
      "none";
  const auto& source_attrs = source_df.analyzed()->output;
  if (materialize && qualifier.empty()) {
    for (const auto& a : source_attrs) {
      if (a.qualifier != source_attrs[0].qualifier) materialize = false;
    }
    if (!source_attrs.empty()) qualifier = source_attrs[0].qualifier;
  }
  if (materialize && UsesDataFrameReferences(spec)) {
    // Each name once, so that a reference can be rewritten by name.
    std::set<std::string> names;
    for (const auto& f : source_schema->fields()) {
      materialize &= names.insert(ToLower(f.name)).second;
    }
  }
  if (materialize) {
    const auto materialize_started = std::chrono::steady_clock::now();
    std::vector<BatchPtr> rows = source_df.collectBatches();
    for (const auto& b : rows) num_source_rows += b->num_rows();
    DataFrame local(state, LocalPlan(source_schema, std::move(rows)));
    if (UsesDataFrameReferences(spec)) {
      sql::Analyzer analyzer(s.catalog, s.conf);
      auto to_local = [&](const ExprPtr& e) -> ExprPtr {
        if (e->kind != ExprKind::kColumn || e->plan_id < 0) return nullptr;
        Result<BoundExprPtr> b = analyzer.BindExpression(e, source_attrs);
        if (!b.ok() || (*b)->column_index() < 0) return nullptr;
        return local[source_schema->field((*b)->column_index()).name].expr();
      };
      spec.condition = Rewrite(spec.condition, to_local);
      for (auto& c : spec.clauses) {
        c.condition = Rewrite(c.condition, to_local);
        for (auto& [unused, value] : c.assignments) value = Rewrite(value, to_local);
      }
      condition = Column(spec.condition);
    }
    source_df = local;
    source = source_df.withColumn(kSourcePresent, functions::lit(true));
    if (!qualifier.empty()) source = source.alias(qualifier);
    materialize_ms = ElapsedMs(materialize_started);
  } else {
    num_source_rows = source_df.count();
  }

  // Files that can match (not with NOT MATCHED BY SOURCE clauses, which see every target
  // row): partition values and statistics against the ON condition's target-only
  // conjuncts (and, with MATCHED clauses only, theirs), and the source's key ranges.
  Pruning pruning;
  std::vector<table::AddFile> candidates = snapshot->files();
  if (by_source.empty()) {
    Sides sides(s, source, target_frame({}, false));
    // (Key ranges only of a materialized source: one evaluated again later could
    // disagree with them.)
    pruning = PlanPruning(spec, matched, matched_only, sides, *snapshot,
                          materialize ? &source : nullptr, num_source_rows,
                          s.MakeExecOptions().eval);
    candidates =
        PruneFiles(state, snapshot, std::move(candidates), pruning, spec.target_alias);
  }

  // Schema evolution (WITH SCHEMA EVOLUTION, withSchemaEvolution(),
  // spark.databricks.delta.schema.autoMerge.enabled), as Delta's: the source's columns
  // the target lacks are added, at the end in the source's order, nullable, when a
  // clause assigns them — UPDATE SET * / INSERT * all of them, an explicit UPDATE SET
  // or INSERT those it names unqualified (with the source column's type, whatever the
  // value; a name the source lacks stays unresolved); other rows get NULL there.
  const bool evolve =
      spec.schema_evolution ||
      ToLower(s.conf.GetOr("spark.databricks.delta.schema.autoMerge.enabled", "false")) ==
          "true";
  std::vector<Field> write_fields = target_schema.fields();
  if (evolve) {
    bool has_star = false;
    std::set<std::string> assigned;  // lower-case names the target lacks
    for (const auto& c : spec.clauses) {
      has_star |= c.star;
      if (c.match == Match::kNotMatchedBySource) continue;
      // Delta matches the names as written against the source's: `t.n` (qualified
      // by the target's alias) adds nothing.
      for (const auto& [parts, unused] : c.assignments) {
        if (parts.size() == 1 && target_schema.FieldIndex(parts[0]) < 0)
          assigned.insert(ToLower(parts[0]));
      }
    }
    for (const auto& sf : source_schema->fields()) {
      if (sf.name.rfind("__spate_merge_", 0) == 0 ||
          target_schema.FieldIndex(sf.name) >= 0 ||
          (!has_star && !assigned.count(ToLower(sf.name)))) {
        continue;
      }
      write_fields.push_back(Field{sf.name, sf.type, true, ""});
    }
  }
  const Schema write_schema(write_fields);
  // (The one pass builds its projection before it runs the join; the two passes check
  // multiple matches before they resolve the clauses' columns. So that errors come in the
  // same order, a MERGE whose clauses do not resolve takes two passes.)
  auto clauses_resolve = [&] {
    try {
      for (const auto& c : spec.clauses) {
        if (c.star) {
          for (const auto& f : write_fields) {
            if (source_schema->FieldIndex(f.name) < 0) return false;
          }
        } else if (c.action == Action::kInsert) {
          for (const auto& [parts, unused] : c.assignments) {
            TargetColumn(write_schema, parts, spec.target_alias, "INSERT clause");
          }
        } else if (c.action == Action::kUpdate) {
          ResolveSetAssignments(
              write_schema, spec.target_alias, c.assignments,
              [&](const std::string& name) {
                return functions::lit(
                    Value::Null(write_schema.field(write_schema.FieldIndex(name)).type));
              },
              "MERGE",
              [&](const std::vector<std::string>& parts) {
                TargetColumn(write_schema, parts, spec.target_alias, "UPDATE clause");
              });
        }
      }
    } catch (const std::exception&) {
      return false;
    }
    return true;
  };

  // One pass (beyond Delta, which reads the touched files twice): when every candidate
  // file is likely touched (NOT MATCHED BY SOURCE clauses, or at least as many source
  // rows as candidate files and one per 100 candidate rows — their numRecords) and the
  // candidates are small enough to hold in memory
  // (spate.delta.merge.onePassMaxBytes of Parquet; 0, off, by default), the rewrite's
  // join runs over all the candidate files at once and the touched files, the
  // multiple-match check and the counts come from its rows; the rows of files that turn
  // out untouched are dropped before anything is written. Otherwise two passes as Delta.
  const bool touching_clauses = !matched.empty() || !by_source.empty();
  bool one_pass = false;
  if (touching_clauses && !candidates.empty()) {
    int64_t bytes = 0, rows = 0;
    for (const auto& f : candidates) {
      bytes += f.size;
      rows += table::LogicalRecords(f).value_or(0);
    }
    const int64_t max_bytes = ValueOrThrow(ParseLong(s.conf.GetOr(
        "spate.delta.merge.onePassMaxBytes", std::to_string(kOnePassMaxBytes))));
    // (With fewer source rows, the first pass's join is cheap next to carrying every
    // candidate row's identity through the one pass's join.)
    one_pass = bytes <= max_bytes &&
               (!by_source.empty() ||
                (num_source_rows >= static_cast<int64_t>(candidates.size()) &&
                 num_source_rows * kOnePassRowsPerSourceRow >= rows)) &&
               clauses_resolve();
  }

  // (1) Touched files and the multiple-match check.
  const auto scan_started = std::chrono::steady_clock::now();
  std::vector<table::AddFile> touched;
  int64_t delete_overcount = 0;
  auto find_touched = [&] {
    if (!by_source.empty()) {
      touched = candidates;
    }
    DataFrame tgt = target_frame(candidates, true);
    Column record = functions::lit(true);
    if (matched_only) {
      std::vector<Column> conds;
      for (const Clause* c : matched) conds.push_back(Cond(*c));
      record = conds[0];
      for (size_t i = 1; i < conds.size(); ++i) record = record || conds[i];
    }
    DataFrame pairs = source.join(tgt, condition, "inner")
                          .select({tgt[kRowId], tgt[kFileName], record.alias("record")});
    std::unordered_map<int64_t, int64_t> matches;
    std::set<std::string> files;
    for (const auto& b : pairs.collectBatches()) {
      const auto& ids = b->column(0);
      const auto& names = b->column(1);
      const auto& rec = b->column(2);
      const int64_t* id = ids->raw_values<int64_t>();
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        matches[id[i]]++;
        if (rec->IsValid(i) && rec->GetBool(i))
          files.insert(LocalFilePath(names->GetView(i)));
      }
    }
    delete_overcount = CheckMatches(matches, only_unconditional_delete);
    if (by_source.empty()) {
      for (const auto& f : candidates) {
        if (files.count(LocalFilePath(snapshot->DataFilePath(f)))) touched.push_back(f);
      }
    }
  };
  if (touching_clauses && !one_pass) find_touched();
  int64_t scan_ms = ElapsedMs(scan_started);

  // (2) The rows of the touched files and the source rows, each taking its clause.
  auto rewrite_started = std::chrono::steady_clock::now();
  bool rewrite = !touched.empty();
  std::string join_type;
  std::vector<table::AddFile> join_files;
  if (one_pass) {
    join_type = not_matched.empty() ? "right_outer" : "full_outer";
    join_files = candidates;
  } else if (rewrite) {
    join_type = not_matched.empty() ? "right_outer" : "full_outer";
    join_files = touched;
  } else if (!not_matched.empty()) {
    // Inserts only: the source rows without a match among the candidate files.
    join_type = "left_outer";
    join_files = candidates;
  }
  std::vector<int64_t> clause_rows(spec.clauses.size(), 0);
  int64_t copied = 0;
  if (!join_type.empty()) {
    // (One pass: whether files are touched is known after the join; its rows carry
    // what either outcome needs.)
    bool mark = dv_mode && (rewrite || one_pass);
    const bool cdf_table = table::ChangeDataFeedEnabled(snapshot->metadata());
    // Several source rows deleting one target row (an unconditional DELETE allows it)
    // give one delete change row per target row, as Delta: the rows keep their
    // identity (a row id; with deletion vectors their file and position) to drop repeats.
    bool one_delete_per_row = delete_overcount > 0 && rewrite && cdf_table;
    DataFrame tgt =
        target_frame(join_files, one_pass || (one_delete_per_row && !mark), mark);
    DataFrame joined = source.join(tgt, condition, join_type);
    if (!rewrite && !one_pass) joined = joined.filter(tgt[kTargetPresent].isNull());
    Column t_present = tgt[kTargetPresent].isNotNull();
    Column s_present = source[kSourcePresent].isNotNull();
    std::vector<std::pair<Column, Column>> m, n, b;
    for (size_t i = 0; i < spec.clauses.size(); ++i) {
      const Clause& c = spec.clauses[i];
      auto code = functions::lit(static_cast<int32_t>(i + 1));
      (c.match == Match::kMatched      ? m
       : c.match == Match::kNotMatched ? n
                                       : b)
          .emplace_back(Cond(c), code);
    }
    Column action = CaseOf({{t_present && s_present, CaseOf(m, functions::lit(kCopy))},
                            {t_present, CaseOf(b, functions::lit(kCopy))}},
                           CaseOf(n, functions::lit(kDrop)));
    // UPDATE SET assignments per clause and column (nested struct fields rebuild their
    // struct, as UPDATE does).
    std::vector<std::vector<ExprPtr>> update_values(spec.clauses.size());
    for (size_t i = 0; i < spec.clauses.size(); ++i) {
      const Clause& c = spec.clauses[i];
      if (c.action != Action::kUpdate || c.star) continue;
      update_values[i] = ResolveSetAssignments(
          write_schema, spec.target_alias, c.assignments,
          [&](const std::string& name) {
            // A column the MERGE adds has no old value.
            return target_schema.FieldIndex(name) >= 0
                       ? tgt[name]
                       : functions::lit(Value::Null(
                             write_schema.field(write_schema.FieldIndex(name)).type));
          },
          "MERGE",
          [&](const std::vector<std::string>& parts) {
            TargetColumn(write_schema, parts, spec.target_alias, "UPDATE clause");
          });
    }
    const bool schema_changed =
        write_fields.size() != static_cast<size_t>(target_schema.num_fields());
    // Each target column: the value of the row's UPDATE/INSERT clause, else the target's.
    std::vector<Column> out = {action.alias(kAction)};
    for (int ci = 0; ci < static_cast<int>(write_fields.size()); ++ci) {
      const Field& f = write_fields[static_cast<size_t>(ci)];
      const bool new_column = ci >= target_schema.num_fields();
      std::vector<std::pair<Column, Column>> branches;
      for (size_t i = 0; i < spec.clauses.size(); ++i) {
        const Clause& c = spec.clauses[i];
        if (c.action == Action::kDelete) continue;
        const bool insert = c.action == Action::kInsert;
        std::optional<Column> value;
        if (c.star) {
          int si = source_schema->FieldIndex(f.name);
          if (si < 0) {
            std::string cols;
            for (const auto& sf : source_schema->fields()) {
              cols += (cols.empty() ? "" : ", ") + sf.name;
            }
            ThrowStatus(Status::Error(
                "DELTA_MERGE_UNRESOLVED_EXPRESSION",
                {{"sqlExpr", (source_alias.empty() ? "" : source_alias + ".") + f.name},
                 {"clause", insert ? "INSERT clause" : "UPDATE clause"},
                 {"cols", cols}}));
          }
          value = source[source_schema->field(si).name];
        } else if (!insert) {
          if (const ExprPtr& v = update_values[i][static_cast<size_t>(ci)])
            value = Column(v);
        } else {
          for (const auto& [parts, expr] : c.assignments) {
            if (TargetColumn(write_schema, parts, spec.target_alias, "INSERT clause") ==
                ci) {
              value = Column(expr);
            }
          }
        }
        if (!value) {
          if (!insert) continue;  // an UPDATE keeps the columns it does not set
          value = functions::lit(Value::Null(f.type));
        }
        // (The action expression is repeated per column: a projection cannot refer to
        // a column it defines.)
        branches.emplace_back(action == functions::lit(static_cast<int32_t>(i + 1)),
                              value->cast(f.type));
      }
      out.push_back(
          CaseOf(branches, new_column ? functions::lit(Value::Null(f.type)) : tgt[f.name])
              .alias(f.name));
    }
    // Change data feed (a rewrite of a delta.enableChangeDataFeed table): the target
    // row's old values too, for update pre-images and deletes. An insert-only MERGE
    // writes no change data files: its adds are the inserts, as in Delta.
    bool cdf = (rewrite || one_pass) && cdf_table;
    if (cdf) {
      for (int ci = 0; ci < static_cast<int>(write_fields.size()); ++ci) {
        const Field& f = write_fields[static_cast<size_t>(ci)];
        out.push_back((ci >= target_schema.num_fields()
                           ? functions::lit(Value::Null(f.type))
                           : tgt[f.name].cast(f.type))
                          .alias(std::string(kPreImage) + std::to_string(ci)));
      }
    }
    if (one_pass || (one_delete_per_row && !mark))
      out.push_back(tgt[kRowId].alias(kRowId));
    if (one_pass) {
      // The row's file, whether it joined a source row, and whether that touches its
      // file (with MATCHED clauses only, when one of their conditions holds).
      Column record = functions::lit(true);
      if (matched_only) {
        record = Cond(*matched[0]);
        for (size_t i = 1; i < matched.size(); ++i) record = record || Cond(*matched[i]);
      }
      out.push_back(tgt[kFileName].alias(kFileName));
      out.push_back((t_present && s_present).alias(kMatchedFlag));
      out.push_back(record.alias(kRecordFlag));
    } else if (mark) {
      out.push_back(tgt[kFileName].alias(kFileName));
    }
    if (mark) out.push_back(tgt[table::kRowIndexColumn].alias(table::kRowIndexColumn));
    DataFrame projected = joined.select(out);
    SchemaPtr out_schema = projected.analyzed()->OutputSchema();
    std::vector<BatchPtr> batches;
    try {
      batches = projected.collectBatches();
    } catch (const std::exception&) {
      // An error evaluating the clauses (a failing cast, say): the two passes would have
      // failed on multiple matches first.
      if (one_pass) find_touched();
      throw;
    }
    if (one_pass) {
      batches =
          OnePassTouched(batches, *out_schema, *snapshot, candidates, !by_source.empty(),
                         only_unconditional_delete, &touched, &delete_overcount);
      rewrite = !touched.empty();
      mark = dv_mode && rewrite;
      cdf = rewrite && cdf_table;
      one_delete_per_row = delete_overcount > 0 && rewrite && cdf_table;
      scan_ms = ElapsedMs(scan_started);
      rewrite_started = std::chrono::steady_clock::now();
      // Nothing touched and nothing to insert: no commit, as the two passes.
      if (!rewrite && not_matched.empty()) return result_frame(0, 0, 0);
    }
    const int file_col = out_schema->FieldIndex(kFileName);
    const int pos_col = out_schema->FieldIndex(table::kRowIndexColumn);
    RowPositions positions;  // target rows a clause updated or deleted (DV mode)
    for (const auto& bt : batches) {
      const auto& a = bt->column(0);
      const int32_t* code = a->raw_values<int32_t>();
      const ColumnPtr* names = mark ? &bt->column(file_col) : nullptr;
      const ColumnPtr* pos = mark ? &bt->column(pos_col) : nullptr;
      for (int64_t r = 0; r < bt->num_rows(); ++r) {
        if (code[r] == kCopy) {
          if (!mark) copied++;
        } else if (code[r] > 0) {
          clause_rows[static_cast<size_t>(code[r] - 1)]++;
          if (mark && (*pos)->IsValid(r)) {
            positions[LocalFilePath((*names)->GetView(r))].push_back(
                static_cast<uint64_t>((*pos)->raw_values<int64_t>()[r]));
          }
        }
      }
    }
    for (auto& [unused, v] : positions) std::sort(v.begin(), v.end());
    // Rows to write: copies, updates and inserts.
    std::vector<Column> codes;
    if (!mark) codes.push_back(functions::lit(kCopy));
    for (size_t i = 0; i < spec.clauses.size(); ++i) {
      if (spec.clauses[i].action != Action::kDelete) {
        codes.push_back(functions::lit(static_cast<int32_t>(i + 1)));
      }
    }
    DataFrame rows(state, LocalPlan(out_schema, batches));
    std::vector<Column> names;
    for (const auto& f : write_fields) names.push_back(rows[f.name]);
    // One file per million rows written (a small upsert writes one file, as Delta does
    // with one shuffle partition).
    int64_t kept_rows = copied;
    for (size_t i = 0; i < spec.clauses.size(); ++i) {
      if (spec.clauses[i].action != Action::kDelete) kept_rows += clause_rows[i];
    }
    const int writers = static_cast<int>(std::clamp<int64_t>(
        kept_rows / 1'000'000, 1, std::max(1, s.MakeExecOptions().parallelism)));
    DataFrame data = rows.filter(rows[kAction].isin(codes)).select(names);
    if (cdf) {
      // Delta's change rows: update_preimage / update_postimage per updated row, delete
      // per deleted row, insert per inserted row, beside the table's rows.
      std::vector<Column> old_values;
      for (size_t ci = 0; ci < write_fields.size(); ++ci) {
        old_values.push_back(rows[std::string(kPreImage) + std::to_string(ci)].alias(
            write_fields[ci].name));
      }
      std::vector<Column> updates, deletes, inserts;
      for (size_t i = 0; i < spec.clauses.size(); ++i) {
        auto code = functions::lit(static_cast<int32_t>(i + 1));
        const Action a = spec.clauses[i].action;
        (a == Action::kUpdate   ? updates
         : a == Action::kDelete ? deletes
                                : inserts)
            .push_back(code);
      }
      data = WithChangeType(data, nullptr);
      auto add = [&](const std::vector<Column>& codes_of,
                     const std::vector<Column>& values, const char* change_type,
                     bool once_per_row = false) {
        if (codes_of.empty()) return;
        DataFrame changed = rows.filter(rows[kAction].isin(codes_of));
        if (once_per_row) {
          changed = changed.dropDuplicates(
              mark ? std::vector<std::string>{kFileName, table::kRowIndexColumn}
                   : std::vector<std::string>{kRowId});
        }
        data = data.unionAll(WithChangeType(changed.select(values), change_type));
      };
      add(updates, old_values, "update_preimage");
      add(updates, names, "update_postimage");
      add(deletes, old_values, "delete", one_delete_per_row);
      add(inserts, names, "insert");
    }
    data = data.coalesce(writers);

    table::DeltaWriteOptions o = SessionDeltaWriteOptions(s, "append");
    o.read_snapshot = snapshot;
    o.remove_files = touched;
    DeletionVectorUpdate dv;
    if (mark) {
      dv = MarkDeletedRows(snapshot, touched, positions);
      o.remove_files = dv.removes;
      o.add_files = dv.adds;
    }
    o.operation = "MERGE";
    o.change_data = cdf;
    if (schema_changed) o.options["mergeSchema"] = "true";
    // As Delta: a concurrent append in the partitions read, or a concurrent removal of
    // a file the pruned scan read, conflicts.
    o.read_partitions =
        pruning.partition
            ? PartitionReader(state, snapshot, pruning.partition, spec.target_alias)
            : [](const table::PartitionValues&) { return true; };
    o.read_files = candidates;
    if (txn_id) o.txn = txn_id;
    o.operation_parameters["predicate"] =
        "[" + Json::String(DeltaPredicateText(spec.condition)).ToString() + "]";
    o.operation_parameters["matchedPredicates"] =
        ClausePredicates(spec.clauses, Match::kMatched);
    o.operation_parameters["notMatchedPredicates"] =
        ClausePredicates(spec.clauses, Match::kNotMatched);
    o.operation_parameters["notMatchedBySourcePredicates"] =
        ClausePredicates(spec.clauses, Match::kNotMatchedBySource);
    // Metrics.
    int64_t matched_updated = 0, by_source_updated = 0, matched_deleted = 0,
            by_source_deleted = 0, inserted = 0;
    for (size_t i = 0; i < spec.clauses.size(); ++i) {
      const Clause& c = spec.clauses[i];
      int64_t k = clause_rows[i];
      if (c.action == Action::kInsert) inserted += k;
      if (c.match == Match::kMatched && c.action == Action::kUpdate) matched_updated += k;
      if (c.match == Match::kMatched && c.action == Action::kDelete) matched_deleted += k;
      if (c.match == Match::kNotMatchedBySource && c.action == Action::kUpdate) {
        by_source_updated += k;
      }
      if (c.match == Match::kNotMatchedBySource && c.action == Action::kDelete) {
        by_source_deleted += k;
      }
    }
    matched_deleted -= delete_overcount;
    const int64_t rewrite_ms = ElapsedMs(rewrite_started);
    o.operation_metrics = [=](const table::DeltaWriteResult& w) {
      std::map<std::string, std::string> mt;
      auto set = [&](const char* k, int64_t v) { mt[k] = std::to_string(v); };
      set("numSourceRows", num_source_rows);
      set("numTargetRowsInserted", inserted);
      set("numTargetRowsUpdated", matched_updated + by_source_updated);
      set("numTargetRowsMatchedUpdated", matched_updated);
      set("numTargetRowsNotMatchedBySourceUpdated", by_source_updated);
      set("numTargetRowsDeleted", matched_deleted + by_source_deleted);
      set("numTargetRowsMatchedDeleted", matched_deleted);
      set("numTargetRowsNotMatchedBySourceDeleted", by_source_deleted);
      set("numTargetRowsCopied", copied);
      set("numOutputRows", w.num_output_rows);
      set("numTargetFilesAdded", w.num_files);
      set("numTargetFilesRemoved", mark ? dv.fully_removed_files : w.num_removed_files);
      set("numTargetBytesAdded", w.num_output_bytes);
      set("numTargetBytesRemoved", mark ? dv.fully_removed_bytes : w.num_removed_bytes);
      set("numTargetChangeFilesAdded", w.num_cdc_files);
      set("numTargetDeletionVectorsAdded", dv.dvs_added);
      set("numTargetDeletionVectorsRemoved", dv.dvs_removed);
      set("numTargetDeletionVectorsUpdated", dv.dvs_updated);
      set("executionTimeMs", ElapsedMs(started));
      set("materializeSourceTimeMs", materialize_ms);
      set("scanTimeMs", scan_ms);
      set("rewriteTimeMs", rewrite_ms);
      return mt;
    };
    CommitWithDeletionVectors(dv, [&] { WriteDeltaFrame(data, spec.target_path, o); });
    return result_frame(matched_updated + by_source_updated,
                        matched_deleted + by_source_deleted, inserted);
  }
  return result_frame(0, 0, 0);
}

// --- DeltaMergeBuilder ---

sql::MergeClause MakeMergeClause(Match match, Action action, ExprPtr condition, bool star,
                                 const MergeAssignments& assignments) {
  Clause c;
  c.match = match;
  c.action = action;
  c.condition = std::move(condition);
  c.star = star;
  for (const auto& [name, value] : assignments) {
    std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(name));
    c.assignments.emplace_back(std::move(parts), value.expr());
  }
  return c;
}

namespace {

ExprPtr ParseCond(const std::string& text) {
  return ValueOrThrow(sql::ParseExpression(text));
}

MergeAssignments FromExprs(const MergeExprAssignments& set) {
  MergeAssignments out;
  for (const auto& [k, v] : set) out.emplace_back(k, Column(ParseCond(v)));
  return out;
}

}  // namespace

DeltaMergeBuilder DeltaMergeBuilder::With(sql::MergeClause clause) const {
  DeltaMergeBuilder b = *this;
  // Only the last clause of a kind may omit its condition.
  for (const auto& c : b.spec_.clauses) {
    if (c.match == clause.match && !c.condition) {
      ThrowStatus(Status::Error(
          c.match == Match::kMatched ? "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION"
          : c.match == Match::kNotMatched
              ? "NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION"
              : "NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION"));
    }
  }
  b.spec_.clauses.push_back(std::move(clause));
  return b;
}

#define SPATE_MERGE_CLAUSE(match, action, cond, star, set) \
  With(MakeMergeClause(Match::match, Action::action, cond, star, set))

DeltaMergeBuilder DeltaMergeBuilder::whenMatchedUpdate(
    const MergeAssignments& set) const {
  return SPATE_MERGE_CLAUSE(kMatched, kUpdate, nullptr, false, set);
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedUpdate(
    const Column& condition, const MergeAssignments& set) const {
  return SPATE_MERGE_CLAUSE(kMatched, kUpdate, condition.expr(), false, set);
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedUpdate(
    const std::string& condition, const MergeAssignments& set) const {
  return SPATE_MERGE_CLAUSE(kMatched, kUpdate, ParseCond(condition), false, set);
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedUpdateExpr(
    const MergeExprAssignments& set) const {
  return whenMatchedUpdate(FromExprs(set));
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedUpdateExpr(
    const std::string& condition, const MergeExprAssignments& set) const {
  return whenMatchedUpdate(condition, FromExprs(set));
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedUpdateAll() const {
  return SPATE_MERGE_CLAUSE(kMatched, kUpdate, nullptr, true, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedUpdateAll(const Column& condition) const {
  return SPATE_MERGE_CLAUSE(kMatched, kUpdate, condition.expr(), true, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedUpdateAll(
    const std::string& condition) const {
  return SPATE_MERGE_CLAUSE(kMatched, kUpdate, ParseCond(condition), true, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedDelete() const {
  return SPATE_MERGE_CLAUSE(kMatched, kDelete, nullptr, false, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedDelete(const Column& condition) const {
  return SPATE_MERGE_CLAUSE(kMatched, kDelete, condition.expr(), false, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenMatchedDelete(
    const std::string& condition) const {
  return SPATE_MERGE_CLAUSE(kMatched, kDelete, ParseCond(condition), false, {});
}

DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedInsert(
    const MergeAssignments& values) const {
  return SPATE_MERGE_CLAUSE(kNotMatched, kInsert, nullptr, false, values);
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedInsert(
    const Column& condition, const MergeAssignments& values) const {
  return SPATE_MERGE_CLAUSE(kNotMatched, kInsert, condition.expr(), false, values);
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedInsert(
    const std::string& condition, const MergeAssignments& values) const {
  return SPATE_MERGE_CLAUSE(kNotMatched, kInsert, ParseCond(condition), false, values);
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedInsertExpr(
    const MergeExprAssignments& values) const {
  return whenNotMatchedInsert(FromExprs(values));
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedInsertExpr(
    const std::string& condition, const MergeExprAssignments& values) const {
  return whenNotMatchedInsert(condition, FromExprs(values));
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedInsertAll() const {
  return SPATE_MERGE_CLAUSE(kNotMatched, kInsert, nullptr, true, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedInsertAll(
    const Column& condition) const {
  return SPATE_MERGE_CLAUSE(kNotMatched, kInsert, condition.expr(), true, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedInsertAll(
    const std::string& condition) const {
  return SPATE_MERGE_CLAUSE(kNotMatched, kInsert, ParseCond(condition), true, {});
}

DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedBySourceUpdate(
    const MergeAssignments& set) const {
  return SPATE_MERGE_CLAUSE(kNotMatchedBySource, kUpdate, nullptr, false, set);
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedBySourceUpdate(
    const Column& condition, const MergeAssignments& set) const {
  return SPATE_MERGE_CLAUSE(kNotMatchedBySource, kUpdate, condition.expr(), false, set);
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedBySourceUpdate(
    const std::string& condition, const MergeAssignments& set) const {
  return SPATE_MERGE_CLAUSE(kNotMatchedBySource, kUpdate, ParseCond(condition), false,
                            set);
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedBySourceUpdateExpr(
    const MergeExprAssignments& set) const {
  return whenNotMatchedBySourceUpdate(FromExprs(set));
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedBySourceUpdateExpr(
    const std::string& condition, const MergeExprAssignments& set) const {
  return whenNotMatchedBySourceUpdate(condition, FromExprs(set));
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedBySourceDelete() const {
  return SPATE_MERGE_CLAUSE(kNotMatchedBySource, kDelete, nullptr, false, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedBySourceDelete(
    const Column& condition) const {
  return SPATE_MERGE_CLAUSE(kNotMatchedBySource, kDelete, condition.expr(), false, {});
}
DeltaMergeBuilder DeltaMergeBuilder::whenNotMatchedBySourceDelete(
    const std::string& condition) const {
  return SPATE_MERGE_CLAUSE(kNotMatchedBySource, kDelete, ParseCond(condition), false,
                            {});
}

#undef SPATE_MERGE_CLAUSE

DeltaMergeBuilder DeltaMergeBuilder::withSchemaEvolution() const {
  DeltaMergeBuilder b = *this;
  b.spec_.schema_evolution = true;
  return b;
}

DataFrame DeltaMergeBuilder::execute() const { return ExecuteMerge(state_, spec_); }

}  // namespace spate::api
