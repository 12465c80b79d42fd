// Copyright spate authors.
#include "spate/api/pipeline.h"

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "spate/api/exceptions.h"
#include "spate/api/column.h"
#include "spate/api/session_state.h"
#include "spate/api/streaming.h"
#include "spate/sql/analyzer.h"
#include "spate/sql/parser.h"
#include "spate/stream/checkpoint.h"
#include "spate/stream/trigger.h"

namespace spate::api {

namespace {

std::string JoinName(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ".") + p;
  return out;
}

std::string QuoteName(const std::string& name) {
  return sql::QuoteIdentifier(ValueOrThrow(sql::ParseMultipartIdentifier(name)));
}

// Names of the relations a plan reads (FROM t, STREAM t; not CTE names).
void CollectReads(const sql::PlanPtr& p, const std::set<std::string>& ctes,
                  std::vector<std::string>* out) {
  if (!p) return;
  std::set<std::string> inner = ctes;
  for (const auto& [name, cte] : p->ctes) {
    CollectReads(cte, inner, out);
    inner.insert(ToLower(name));
  }
  if (p->kind == sql::PlanKind::kUnresolvedRelation) {
    if (!(p->table_name.size() == 1 && inner.count(ToLower(p->table_name[0])))) {
      out->push_back(JoinName(p->table_name));
    }
  }
  for (const auto& c : p->children) CollectReads(c, inner, out);
}

}  // namespace

Pipeline::Pipeline(SparkSession spark, PipelineOptions options)
    : spark_(std::move(spark)), options_(std::move(options)) {
  if (options_.storage.empty()) {
    ThrowStatus(Status::Error("PIPELINE_SPEC_MISSING_REQUIRED_FIELD", {{"field_name", "storage"}}));
  }
  if (options_.database) spark_.sql("USE " + QuoteName(*options_.database));
}

void Pipeline::Event(const std::string& line) const {
  if (options_.on_event) options_.on_event(line);
}

std::string Pipeline::Key(const std::string& name) const {
  std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(name));
  auto& wh = spark_.state()->warehouse();
  auto id = ValueOrThrow(wh.QualifyTable(parts, spark_.state()->catalog.current_database()));
  return ToLower(id.Unquoted());
}

const Pipeline::Dataset* Pipeline::FindDataset(const std::string& name) const {
  std::string key = Key(name);
  for (const auto& d : datasets_) {
    if (d.kind == DatasetKind::kTemporaryView) {
      if (ToLower(d.name) == ToLower(name)) return &d;
      continue;
    }
    if (Key(d.name) == key) return &d;
  }
  return nullptr;
}

void Pipeline::defineDataset(const Dataset& dataset) {
  if (FindDataset(dataset.name)) {
    ThrowStatus(Status::Invalid("Dataset " + dataset.name +
                                " has already been defined in the pipeline."));
  }
  datasets_.push_back(dataset);
}

void Pipeline::defineFlow(Flow flow) {
  for (const auto& f : flows_) {
    if (ToLower(f.name) == ToLower(flow.name)) {
      ThrowStatus(Status::Invalid("Flow " + flow.name + " was found in multiple datasets."));
    }
  }
  flows_.push_back(std::move(flow));
}

void Pipeline::addSql(const std::string& text, const std::string& file) {
  std::vector<sql::Statement> statements = ValueOrThrow(sql::ParseScript(text));
  using K = sql::Statement::Kind;
  auto state = spark_.state();
  auto define_sql_flow = [&](const std::string& name, const std::string& target,
                             const sql::PlanPtr& plan, bool by_name) {
    Flow f;
    f.name = name;
    f.target = target;
    f.query = [state, plan]() { return DataFrame(state, plan); };
    f.by_name = by_name;
    CollectReads(plan, {}, &f.reads);
    f.reads_known = true;
    defineFlow(std::move(f));
  };
  for (const sql::Statement& st : statements) {
    const std::string name = JoinName(st.name);
    switch (st.kind) {
      case K::kCreateStreamingTable:
      case K::kCreateMaterializedView: {
        Dataset d;
        d.name = name;
        d.kind = st.kind == K::kCreateStreamingTable ? DatasetKind::kStreamingTable
                                                     : DatasetKind::kMaterializedView;
        d.comment = st.comment;
        d.properties = st.properties;
        d.partition_columns = st.partition_columns;
        d.schema = st.table_schema;
        defineDataset(d);
        if (st.plan) define_sql_flow(name, name, st.plan, false);
        break;
      }
      case K::kCreateView: {
        Dataset d;
        d.name = name;
        d.kind = DatasetKind::kTemporaryView;
        d.comment = st.comment;
        defineDataset(d);
        define_sql_flow(name, name, st.plan, false);
        break;
      }
      case K::kCreateFlow:
        define_sql_flow(name, JoinName(st.inner->name), st.inner->plan, st.inner->by_name);
        break;
      case K::kSetConf:
      case K::kUseDatabase:
        spark_.sql(st.text);
        break;
      default:
        ThrowStatus(Status::Invalid(
            (file.empty() ? std::string() : file + ": ") +
            "a pipeline's SQL takes CREATE STREAMING TABLE, CREATE MATERIALIZED VIEW, CREATE "
            "TEMPORARY VIEW, CREATE FLOW, SET and USE; not: " + st.text));
    }
  }
}

std::vector<std::string> Pipeline::flowOrder() const {
  // Flows writing each dataset; a flow waits for every flow of the datasets it reads.
  std::vector<std::vector<size_t>> deps(flows_.size());
  for (size_t i = 0; i < flows_.size(); ++i) {
    for (const auto& r : flows_[i].reads) {
      const Dataset* d = FindDataset(r);
      if (!d) continue;  // a table outside the pipeline
      for (size_t j = 0; j < flows_.size(); ++j) {
        if (FindDataset(flows_[j].target) == d && j != i) deps[i].push_back(j);
      }
    }
  }
  std::vector<int> mark(flows_.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<std::string> order;
  std::function<void(size_t, std::vector<std::string>&)> visit =
      [&](size_t i, std::vector<std::string>& path) {
        if (mark[i] == 2) return;
        path.push_back(flows_[i].name);
        if (mark[i] == 1) {
          std::string cycle;
          for (const auto& p : path) cycle += (cycle.empty() ? "" : " -> ") + p;
          ThrowStatus(Status::Invalid("The pipeline's flows read each other in a cycle: " + cycle));
        }
        mark[i] = 1;
        for (size_t j : deps[i]) visit(j, path);
        mark[i] = 2;
        path.pop_back();
        order.push_back(flows_[i].name);
      };
  for (size_t i = 0; i < flows_.size(); ++i) {
    std::vector<std::string> path;
    visit(i, path);
  }
  return order;
}

std::string Pipeline::checkpointOf(const Flow& flow) const {
  std::string root = stream::StripFileScheme(options_.storage);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(flow.target));
  auto& wh = spark_.state()->warehouse();
  auto id = ValueOrThrow(wh.QualifyTable(parts, spark_.state()->catalog.current_database()));
  return root + "/_checkpoints/" + id.catalog + "/" + id.schema + "/" + id.table + "/" +
         flow.name + "/0";
}

std::vector<Pipeline::FlowResult> Pipeline::run() {
  stop_.store(false);
  auto state = spark_.state();
  std::vector<std::string> order = flowOrder();
  // Definitions first: every flow writes a dataset of the pipeline.
  for (const auto& f : flows_) {
    if (!FindDataset(f.target)) {
      ThrowStatus(Status::Invalid("Flow " + f.name + " writes to " + f.target +
                                  ", which the pipeline does not define."));
    }
  }
  for (const auto& d : datasets_) {
    bool has_flow = false;
    for (const auto& f : flows_) has_flow = has_flow || FindDataset(f.target) == &d;
    if (!has_flow) {
      ThrowStatus(Status::Invalid("Dataset " + d.name + " has no flow writing to it."));
    }
  }
  // Full refresh: the tables and checkpoints start over.
  for (const auto& d : datasets_) {
    if (d.kind == DatasetKind::kTemporaryView) continue;
    bool reset = options_.full_refresh_all;
    for (const auto& n : options_.full_refresh) reset = reset || Key(n) == Key(d.name);
    if (!reset) continue;
    spark_.sql("DROP TABLE IF EXISTS " + QuoteName(d.name));
    for (const auto& f : flows_) {
      if (FindDataset(f.target) != &d) continue;
      std::error_code ec;
      std::filesystem::remove_all(std::filesystem::path(checkpointOf(f)).parent_path(), ec);
    }
  }
  int64_t interval_ms = 0;
  if (options_.continuous) {
    interval_ms = ValueOrThrow(stream::Trigger::ParseIntervalMs(options_.trigger_interval));
  }

  std::vector<FlowResult> results;
  std::vector<std::pair<size_t, StreamingQuery>> running;  // continuous
  std::vector<size_t> views;                               // materialized views, by flow
  auto flow_index = [&](const std::string& name) {
    for (size_t i = 0; i < flows_.size(); ++i) {
      if (flows_[i].name == name) return i;
    }
    return flows_.size();
  };
  auto qualified = [&](const Flow& f) {
    std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(f.target));
    auto id = ValueOrThrow(state->warehouse().QualifyTable(parts, state->catalog.current_database()));
    return id.Unquoted();
  };
  auto ensure_table = [&](const Dataset& d, const DataFrame& df) {
    sql::Statement create;
    create.kind = sql::Statement::Kind::kCreateTable;
    create.name = ValueOrThrow(sql::ParseMultipartIdentifier(d.name));
    create.if_not_exists = true;
    create.provider = "delta";
    create.comment = d.comment;
    create.properties = d.properties;
    create.partition_columns = d.partition_columns;
    create.table_schema = d.schema ? d.schema : df.schema().ToSchema();
    RunCatalogStatement(state, create);
  };
  auto refresh_view = [&](const Flow& f, const Dataset& d) {
    DataFrame df = f.query();
    if (df.isStreaming()) {
      ThrowStatus(Status::Invalid("Materialized view " + d.name +
                                  " reads a stream (STREAM ...): a materialized view is a batch "
                                  "query; declare a streaming table instead."));
    }
    ensure_table(d, df);
    SaveAsTable(df, QuoteName(d.name), "overwrite", "delta", d.partition_columns,
                {{"overwriteSchema", "true"}});
  };
  // A code flow (reads unknown) that reads a dataset not yet written waits for the others
  // and is tried again; a round without progress fails with its error.
  std::vector<std::string> pending = order;
  while (!pending.empty()) {
    std::vector<std::string> deferred;
    std::optional<SparkException> deferred_error;
    for (const std::string& name : pending) {
      size_t i = flow_index(name);
      const Flow& f = flows_[i];
      const Dataset& d = *FindDataset(f.target);
      const std::string label = d.kind == DatasetKind::kTemporaryView ? f.name : qualified(f);
      FlowResult r{f.name, f.target, d.kind, 0, 0};
      try {
        Event("Flow " + label + " is STARTING.");
        if (d.kind == DatasetKind::kTemporaryView) {
          DataFrame df = f.query();
          CheckOrThrow(state->catalog.CreateTempView(d.name, df.analyzed(), /*replace=*/true));
        } else if (d.kind == DatasetKind::kMaterializedView) {
          Event("Flow " + label + " is RUNNING.");
          refresh_view(f, d);
          views.push_back(i);
        } else {
          DataFrame df = f.query();
          if (!df.isStreaming()) {
            ThrowStatus(Status::Invalid(
                "Streaming table " + d.name + " is written by flow " + f.name +
                ", whose query is a batch query: read its input with STREAM(...) or "
                "STREAM read_files(...)."));
          }
          ensure_table(d, df);
          if (f.by_name) {
            // BY NAME: the target's columns, picked from the query by name.
            std::vector<Column> cols;
            for (const auto& c : spark_.table(QuoteName(d.name)).columns()) {
              cols.push_back(functions::col("`" + c + "`"));
            }
            df = df.select(cols);
          }
          StreamingQuery q = StartStreamingFlow(
              df, d.name, f.name, checkpointOf(f),
              options_.continuous ? stream::Trigger::ProcessingTime(interval_ms)
                                  : stream::Trigger::AvailableNow());
          Event("Flow " + label + " is RUNNING.");
          if (options_.continuous) {
            running.emplace_back(i, q);
            results.push_back(r);
            continue;
          }
          q.awaitTermination();
          for (const auto& p : q.recentProgress()) {
            ++r.batches;
            r.rows += p.num_input_rows;
          }
        }
        Event("Flow " + label + " has COMPLETED.");
        results.push_back(r);
      } catch (const SparkException& e) {
        if (!f.reads_known && pending.size() > 1 &&
            e.status().error_class() == "TABLE_OR_VIEW_NOT_FOUND") {
          Event("Flow " + label + " waits for the datasets it reads.");
          deferred.push_back(name);
          deferred_error = e;
          continue;
        }
        Event("Flow " + label + " has FAILED.");
        for (auto& [j, q] : running) q.stop();
        throw;
      }
    }
    if (!deferred.empty() && deferred.size() == pending.size()) {
      for (auto& [j, q] : running) q.stop();
      throw *deferred_error;
    }
    pending = std::move(deferred);
  }
  if (options_.continuous) {
    Event("Run is RUNNING (continuous; stop to end).");
    auto next_refresh = std::chrono::steady_clock::now() + std::chrono::milliseconds(interval_ms);
    std::optional<SparkException> failure;
    while (!stop_.load() && !(options_.should_stop && options_.should_stop())) {
      for (auto& [j, q] : running) {
        if (!q.isActive()) {
          if (auto e = q.exception()) failure = SparkException(e->status());
        }
      }
      if (failure) break;
      if (std::chrono::steady_clock::now() >= next_refresh) {
        for (size_t j : views) refresh_view(flows_[j], *FindDataset(flows_[j].target));
        next_refresh = std::chrono::steady_clock::now() + std::chrono::milliseconds(interval_ms);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (auto& [j, q] : running) q.stop();
    for (auto& [j, q] : running) {
      for (auto& r : results) {
        if (r.flow != flows_[j].name) continue;
        for (const auto& p : q.recentProgress()) {
          ++r.batches;
          r.rows += p.num_input_rows;
        }
      }
    }
    if (failure) {
      Event("Run has FAILED.");
      ThrowStatus(failure->status());
    }
    Event("Run is STOPPED.");
    return results;
  }
  Event("Run is COMPLETED.");
  return results;
}

StreamingQuery StartStreamingFlow(const DataFrame& df, const std::string& table,
                                  const std::string& flow, const std::string& checkpoint,
                                  const stream::Trigger& trigger) {
  DataStreamWriter w = df.writeStream();
  w.outputMode("append").option("checkpointLocation", checkpoint).queryName(flow);
  w.trigger(trigger);
  return w.toTable(QuoteName(table));
}

stream::QueryConfig CaptureSqlFlow(const SparkSession& spark, const std::string& dir,
                                   const std::string& sql_text, const std::string& name) {
  const std::string root = stream::StripFileScheme(dir);
  std::string wanted = name;
  if (wanted.empty()) {
    // <storage>/_checkpoints/<catalog>/<database>/<table>/<flow>/<n>: the flow.
    std::filesystem::path p = std::filesystem::path(root).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    std::filesystem::path up = p.parent_path().parent_path().parent_path().parent_path()
                                   .parent_path();
    if (up.filename() == "_checkpoints") wanted = p.parent_path().filename().string();
  }
  std::string table;
  DataFrame df = StreamingTableQuery(spark, sql_text, wanted, &table);
  std::optional<stream::QueryConfig> captured;
  stream::SetQueryStartHook([&captured](const stream::QueryConfig& c) {
    if (!captured) captured = c;
    return Status::OK();
  });
  try {
    StartStreamingFlow(df, table, wanted.empty() ? table : wanted, root,
                       stream::Trigger::AvailableNow());
  } catch (const SparkException& e) {
    if (e.status().error_class() != stream::kQueryNotStarted) {
      stream::SetQueryStartHook(nullptr);
      throw;
    }
  }
  stream::SetQueryStartHook(nullptr);
  if (!captured) ThrowStatus(Status::Internal("the streaming table's query was not handed over"));
  return *captured;
}

stream::CheckpointCheck CheckSqlFlowAgainstCheckpoint(const SparkSession& spark,
                                                      const std::string& dir,
                                                      const std::string& sql_text,
                                                      const std::string& name) {
  stream::QueryConfig config = CaptureSqlFlow(spark, dir, sql_text, name);
  return ValueOrThrow(stream::CheckQueryAgainstCheckpoint(
      io::LocalFileSystem::Get(), stream::StripFileScheme(dir), config));
}

BatchReplay ReplaySqlFlowBatch(const SparkSession& spark, const std::string& dir,
                               const std::string& sql_text, const std::string& name,
                               int64_t batch_id, const std::optional<std::string>& out) {
  stream::QueryConfig config = CaptureSqlFlow(spark, dir, sql_text, name);
  return ReplayBatch(spark, config, stream::StripFileScheme(dir), batch_id, out);
}

DataFrame StreamingTableQuery(const SparkSession& spark, const std::string& text,
                              const std::string& name, std::string* table) {
  std::vector<sql::Statement> statements = ValueOrThrow(sql::ParseScript(text));
  using K = sql::Statement::Kind;
  for (const sql::Statement& st : statements) {
    switch (st.kind) {
      case K::kCreateView:
      case K::kSetConf:
      case K::kUseDatabase:
        spark.sql(st.text);
        break;
      case K::kCreateStreamingTable:
      case K::kCreateFlow: {
        const sql::Statement& q = st.kind == K::kCreateFlow ? *st.inner : st;
        const std::string target = JoinName(q.name);
        if (!q.plan || (!name.empty() && ToLower(JoinName(st.name)) != ToLower(name) &&
                        ToLower(target) != ToLower(name))) {
          break;
        }
        if (table) *table = target;
        return DataFrame(spark.state(), q.plan);
      }
      default:
        break;
    }
  }
  ThrowStatus(Status::Invalid(
      name.empty() ? std::string("the SQL defines no streaming table with a query")
                   : "the SQL defines no streaming table or flow named " + name));
}

}  // namespace spate::api
