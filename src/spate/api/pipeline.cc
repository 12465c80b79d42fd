// Copyright spate authors.
#include "spate/api/pipeline.h"

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "spate/api/column.h"
#include "spate/api/exceptions.h"
#include "spate/api/session_state.h"
#include "spate/api/streaming.h"
#include "spate/base/text_parse.h"
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

// Whether a plan reads a stream (STREAM t, STREAM read_files(...)), CTEs included.
bool ReadsStream(const sql::PlanPtr& p) {
  if (!p) return false;
  if (p->streaming) return true;
  for (const auto& [name, cte] : p->ctes) {
    if (ReadsStream(cte)) return true;
  }
  for (const auto& c : p->children) {
    if (ReadsStream(c)) return true;
  }
  return false;
}

/// The config of the query `start` starts, caught by the start hook (nothing starts).
stream::QueryConfig CaptureStart(const std::function<void()>& start) {
  std::optional<stream::QueryConfig> captured;
  stream::SetQueryStartHook([&captured](const stream::QueryConfig& c) {
    if (!captured) captured = c;
    return Status::OK();
  });
  try {
    start();
  } catch (const SparkException& e) {
    if (e.status().error_class() != stream::kQueryNotStarted) {
      stream::SetQueryStartHook(nullptr);
      throw;
    }
  }
  stream::SetQueryStartHook(nullptr);
  if (!captured)
    ThrowStatus(Status::Internal("the streaming table's query was not handed over"));
  return *captured;
}

}  // namespace

Pipeline::Pipeline(SparkSession spark, PipelineOptions options)
    : spark_(std::move(spark)), options_(std::move(options)) {
  if (options_.storage.empty()) {
    ThrowStatus(Status::Error("PIPELINE_SPEC_MISSING_REQUIRED_FIELD",
                              {{"field_name", "storage"}}));
  }
  if (options_.database) spark_.sql("USE " + QuoteName(*options_.database));
}

void Pipeline::Event(const std::string& line) const {
  if (options_.on_event) options_.on_event(line);
}

std::string Pipeline::Key(const std::string& name) const {
  std::vector<std::string> parts = ValueOrThrow(sql::ParseMultipartIdentifier(name));
  auto& wh = spark_.state()->warehouse();
  auto id =
      ValueOrThrow(wh.QualifyTable(parts, spark_.state()->catalog.current_database()));
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
      ThrowStatus(
          Status::Invalid("Flow " + flow.name + " was found in multiple datasets."));
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
    f.reads_stream = ReadsStream(plan);
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
        define_sql_flow(name, JoinName(st.inner->name), st.inner->plan,
                        st.inner->by_name);
        break;
      case K::kSetConf:
      case K::kUseDatabase:
        spark_.sql(st.text);
        break;
      default:
        ThrowStatus(Status::Invalid((file.empty() ? std::string() : file + ": ") +
                                    "a pipeline's SQL takes CREATE STREAMING TABLE, "
                                    "CREATE MATERIALIZED VIEW, CREATE "
                                    "TEMPORARY VIEW, CREATE FLOW, SET and USE; not: " +
                                    st.text));
    }
  }
}

std::vector<std::vector<size_t>> Pipeline::Dependencies() const {
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
  return deps;
}

std::vector<std::string> Pipeline::flowOrder() const {
  const std::vector<std::vector<size_t>> deps = Dependencies();
  std::vector<int> mark(flows_.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<std::string> order;
  std::function<void(size_t, std::vector<std::string>&)> visit =
      [&](size_t i, std::vector<std::string>& path) {
        if (mark[i] == 2) return;
        path.push_back(flows_[i].name);
        if (mark[i] == 1) {
          std::string cycle;
          for (const auto& p : path) cycle += (cycle.empty() ? "" : " -> ") + p;
          ThrowStatus(Status::Invalid(
              "The pipeline's flows read each other in a cycle: " + cycle));
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
  std::vector<std::string> parts =
      ValueOrThrow(sql::ParseMultipartIdentifier(flow.target));
  auto& wh = spark_.state()->warehouse();
  auto id =
      ValueOrThrow(wh.QualifyTable(parts, spark_.state()->catalog.current_database()));
  return root + "/_checkpoints/" + id.catalog + "/" + id.schema + "/" + id.table + "/" +
         flow.name + "/0";
}

stream::QueryConfig Pipeline::captureFlow(const std::string& dir) {
  auto normal = [](const std::string& path) {
    std::string p =
        std::filesystem::path(stream::StripFileScheme(path)).lexically_normal().string();
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
  };
  const std::string wanted =
      normal(std::filesystem::absolute(stream::StripFileScheme(dir)).string());
  const Flow* flow = nullptr;
  for (const auto& f : flows_) {
    const Dataset* d = FindDataset(f.target);
    if (d && d->kind == DatasetKind::kStreamingTable && normal(checkpointOf(f)) == wanted)
      flow = &f;
  }
  if (!flow) {
    ThrowStatus(Status::Error(
        "SPATE_STREAMING_INVALID",
        {{"msg",
          "No streaming flow of the pipeline has its checkpoint at " + wanted +
              " (a flow's checkpoint is <storage>/_checkpoints/<catalog>/<database>/"
              "<table>/<flow>/0)."}}));
  }
  // The temporary views it may read, as a run registers them.
  auto state = spark_.state();
  for (const std::string& name : flowOrder()) {
    for (const auto& f : flows_) {
      const Dataset* d = FindDataset(f.target);
      if (f.name != name || !d || d->kind != DatasetKind::kTemporaryView) continue;
      CheckOrThrow(
          state->catalog.CreateTempView(d->name, f.query().analyzed(), /*replace=*/true));
    }
  }
  const Dataset& d = *FindDataset(flow->target);
  DataFrame df = flow->query();
  if (flow->by_name) {
    std::vector<Column> cols;
    for (const auto& c : spark_.table(QuoteName(d.name)).columns()) {
      cols.push_back(functions::col("`" + c + "`"));
    }
    df = df.select(cols);
  }
  return CaptureStart([&] {
    StartStreamingFlow(df, d.name, flow->name, checkpointOf(*flow),
                       stream::Trigger::AvailableNow());
  });
}

stream::CheckpointCheck Pipeline::checkCheckpoint(const std::string& dir) {
  stream::QueryConfig config = captureFlow(dir);
  return ValueOrThrow(stream::CheckQueryAgainstCheckpoint(
      io::LocalFileSystem::Get(), stream::StripFileScheme(dir), config));
}

BatchReplay Pipeline::replayCheckpoint(const std::string& dir, int64_t batch_id,
                                       const std::optional<std::string>& out) {
  stream::QueryConfig config = captureFlow(dir);
  return ReplayBatch(spark_, config, stream::StripFileScheme(dir), batch_id, out);
}

std::string Pipeline::Label(const Flow& flow) const {
  const Dataset* d = FindDataset(flow.target);
  if (d && d->kind == DatasetKind::kTemporaryView) return flow.name;
  auto state = spark_.state();
  std::vector<std::string> parts =
      ValueOrThrow(sql::ParseMultipartIdentifier(flow.target));
  return ValueOrThrow(
             state->warehouse().QualifyTable(parts, state->catalog.current_database()))
      .Unquoted();
}

DataFrame Pipeline::PlanFlow(const Flow& f, const Dataset& d) const {
  DataFrame df = f.query();
  if (d.kind == DatasetKind::kMaterializedView && df.isStreaming()) {
    ThrowStatus(
        Status::Invalid("Materialized view " + d.name +
                        " reads a stream (STREAM ...): a materialized view is a batch "
                        "query; declare a streaming table instead."));
  }
  if (d.kind == DatasetKind::kStreamingTable && !df.isStreaming()) {
    ThrowStatus(Status::Invalid(
        "Streaming table " + d.name + " is written by flow " + f.name +
        ", whose query is a batch query: read its input with STREAM(...) or "
        "STREAM read_files(...)."));
  }
  return df;
}

std::vector<Pipeline::FlowResult> Pipeline::DryRun(
    const std::vector<std::string>& order) {
  // As spark-pipelines dry-run: each flow resolved in order against the graph — a dataset
  // defined earlier is read as its query defines it (a temporary view standing for it
  // while the dry run lasts), so nothing has to exist and nothing is written.
  auto state = spark_.state();
  const std::vector<std::vector<size_t>> deps = Dependencies();
  std::vector<bool> broken(flows_.size(), false);
  std::vector<std::string> with_errors, upstream, stand_ins;
  std::vector<FlowResult> results;
  auto index_of = [&](const std::string& name) {
    size_t i = 0;
    while (i < flows_.size() && flows_[i].name != name) ++i;
    return i;
  };
  std::vector<bool> waiting(flows_.size(), false);  // deferred code flows
  auto resolve = [&](size_t i, std::vector<size_t>* deferred) {
    const Flow& f = flows_[i];
    const Dataset& d = *FindDataset(f.target);
    const std::string label = Label(f);
    FlowResult r{f.name, f.target, d.kind, 0, 0};
    r.status = "RESOLVED";
    waiting[i] = false;
    for (size_t j : deps[i]) {
      if (waiting[j] && deferred) {  // it reads a code flow that waits: it waits too
        waiting[i] = true;
        deferred->push_back(i);
        return;
      }
    }
    for (size_t j : deps[i]) {
      if (!broken[j] || broken[i]) continue;
      broken[i] = true;
      r.status = "SKIPPED";
      Event("Failed to resolve flow due to upstream failure: '" + label + "'.");
      Event("Error: Failed to read dataset '" + Label(flows_[j]) +
            "'. Dataset is defined in the pipeline but could not be resolved.");
      upstream.push_back(label);
    }
    if (!broken[i]) {
      try {
        // A streaming table's stand-in is its (streaming) query: a SQL materialized view
        // that reads it without STREAM is still a batch query.
        const bool batch_view =
            d.kind == DatasetKind::kMaterializedView && f.reads_known && !f.reads_stream;
        DataFrame df = batch_view ? f.query() : PlanFlow(f, d);
        if (batch_view) df.schema();  // analyzed
        const bool qualified =
            ValueOrThrow(sql::ParseMultipartIdentifier(d.name)).size() > 1;
        if (d.kind == DatasetKind::kTemporaryView) {
          CheckOrThrow(
              state->catalog.CreateTempView(d.name, df.analyzed(), /*replace=*/true));
        } else if (!qualified && !state->catalog.LookupView({d.name})) {
          CheckOrThrow(
              state->catalog.CreateTempView(d.name, df.analyzed(), /*replace=*/false));
          stand_ins.push_back(d.name);
        }
      } catch (const SparkException& e) {
        if (deferred && !f.reads_known &&
            e.status().error_class() == "TABLE_OR_VIEW_NOT_FOUND") {
          waiting[i] = true;
          deferred->push_back(i);
          return;
        }
        broken[i] = true;
        r.status = "FAILED";
        r.error = e.what();
        Event("Failed to resolve flow: '" + label + "'.");
        Event(std::string("Error: ") + e.what());
        with_errors.push_back(label);
      }
    }
    results.push_back(r);
  };
  try {
    // Code flows whose reads are unknown wait for the others, as in a run; a round
    // without progress resolves them for good (their errors are theirs).
    std::vector<size_t> pending;
    for (const std::string& name : order) pending.push_back(index_of(name));
    while (!pending.empty()) {
      std::vector<size_t> deferred;
      for (size_t i : pending) resolve(i, &deferred);
      if (deferred.size() == pending.size()) {
        for (size_t i : deferred) resolve(i, nullptr);
        break;
      }
      pending = std::move(deferred);
    }
  } catch (...) {
    for (const auto& v : stand_ins) state->catalog.DropTempView({v});
    throw;
  }
  for (const auto& v : stand_ins) state->catalog.DropTempView({v});
  last_run_ = results;
  if (!with_errors.empty()) {
    auto joined = [](const std::vector<std::string>& names) {
      std::string out;
      for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
      return out;
    };
    ThrowStatus(Status::Invalid(
        "Failed to resolve flows in the pipeline.\n\nA flow can fail to resolve because "
        "the "
        "flow itself contains errors or because it reads\nfrom an upstream flow which "
        "failed "
        "to resolve.\n\nFlows with errors: " +
        joined(with_errors) +
        "\nFlows that failed due to upstream errors: " + joined(upstream) +
        "\n\nTo view the exceptions that were raised while resolving these flows, look "
        "for "
        "flow\nfailures that precede this log."));
  }
  Event("Run is COMPLETED.");
  return results;
}

std::vector<Pipeline::FlowResult> Pipeline::run() {
  stop_.store(false);
  last_run_.clear();
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
      std::filesystem::remove_all(std::filesystem::path(checkpointOf(f)).parent_path(),
                                  ec);
    }
  }
  if (options_.dry_run) return DryRun(order);
  int64_t interval_ms = 0;
  if (options_.continuous) {
    interval_ms =
        ValueOrThrow(stream::Trigger::ParseIntervalMs(options_.trigger_interval));
  }

  // Failures (as spark-pipelines): a flow that fails to run is retried
  // spark.sql.pipelines.maxFlowRetryAttempts times, waiting minRetryTime seconds, doubled
  // each time up to maxRetryTime; a flow that cannot be planned (its query does not
  // analyze, a batch query into a streaming table, ...) is not retried. A failed flow's
  // dependents are SKIPPED; the other flows run on, and the run then fails with the first
  // failure.
  auto conf_int = [&](const std::string& key, int64_t dflt) {
    std::string v = spark_.conf().get(key, std::to_string(dflt));
    auto n = ParseInt64(v);
    if (!n)
      ThrowStatus(Status::Invalid("The value of " + key + " must be an integer, not '" +
                                  v + "'."));
    return std::max<int64_t>(0, *n);
  };
  const int64_t max_retries = conf_int("spark.sql.pipelines.maxFlowRetryAttempts", 2);
  const int64_t min_retry_s = std::max<int64_t>(
      1, conf_int("spark.sql.pipelines.execution.watchdog.minRetryTime", 5));
  const int64_t max_retry_s = std::max<int64_t>(
      min_retry_s, conf_int("spark.sql.pipelines.execution.watchdog.maxRetryTime", 3600));
  auto stopped = [&] {
    return stop_.load() || (options_.should_stop && options_.should_stop());
  };
  auto retry_delay = [&](int64_t retry) {  // retry 1, 2, ...
    int64_t s = min_retry_s;
    for (int64_t k = 1; k < retry && s < max_retry_s; ++k) s *= 2;
    return std::chrono::seconds(std::min(s, max_retry_s));
  };
  auto wait_until = [&](std::chrono::steady_clock::time_point t) {  // false when stopped
    while (std::chrono::steady_clock::now() < t) {
      if (stopped()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return !stopped();
  };
  const std::vector<std::vector<size_t>> deps = Dependencies();
  std::vector<bool> broken(flows_.size(), false);  // failed or skipped
  std::optional<SparkException> failure;

  std::vector<FlowResult> results;
  struct Running {
    size_t flow;
    StreamingQuery query;
    int64_t retries = 0;
    std::optional<std::chrono::steady_clock::time_point> restart_at;
  };
  std::vector<Running> running;  // continuous
  std::vector<size_t> views;     // materialized views, by flow
  auto flow_index = [&](const std::string& name) {
    for (size_t i = 0; i < flows_.size(); ++i) {
      if (flows_[i].name == name) return i;
    }
    return flows_.size();
  };
  auto label_of = [&](size_t i) { return Label(flows_[i]); };
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
  // A flow's query, checked against its dataset's kind (planning: not retried).
  auto plan_flow = [&](const Flow& f, const Dataset& d) { return PlanFlow(f, d); };
  auto refresh_view = [&](const Dataset& d, const DataFrame& df) {
    ensure_table(d, df);
    SaveAsTable(df, QuoteName(d.name), "overwrite", "delta", d.partition_columns,
                {{"overwriteSchema", "true"}});
  };
  auto start_stream = [&](const Flow& f, const Dataset& d, DataFrame df) {
    ensure_table(d, df);
    if (f.by_name) {
      // BY NAME: the target's columns, picked from the query by name.
      std::vector<Column> cols;
      for (const auto& c : spark_.table(QuoteName(d.name)).columns()) {
        cols.push_back(functions::col("`" + c + "`"));
      }
      df = df.select(cols);
    }
    return StartStreamingFlow(df, d.name, f.name, checkpointOf(f),
                              options_.continuous
                                  ? stream::Trigger::ProcessingTime(interval_ms)
                                  : stream::Trigger::AvailableNow());
  };
  auto flow_failed = [&](size_t i, const SparkException& e) {
    Event("Flow '" + label_of(i) + "' has FAILED.");
    Event(std::string("Error: ") + e.what());
  };
  auto give_up = [&](size_t i, const SparkException& e, FlowResult* r) {
    broken[i] = true;
    if (!failure) failure = e;
    r->status = "FAILED";
    r->error = e.what();
  };
  // A code flow (reads unknown) that reads a dataset not yet written waits for the others
  // and is tried again; a round without progress fails those flows with their errors.
  std::vector<std::string> pending = order;
  while (!pending.empty()) {
    std::vector<std::string> deferred;
    std::vector<SparkException> deferred_errors;
    for (const std::string& name : pending) {
      size_t i = flow_index(name);
      const Flow& f = flows_[i];
      const Dataset& d = *FindDataset(f.target);
      const std::string label = label_of(i);
      FlowResult r{f.name, f.target, d.kind, 0, 0};
      bool upstream_failed = false;
      for (size_t j : deps[i]) upstream_failed = upstream_failed || broken[j];
      if (upstream_failed) {
        broken[i] = true;
        r.status = "SKIPPED";
        Event("Flow '" + label + "' SKIPPED due to upstream failure(s).");
        results.push_back(r);
        continue;
      }
      bool defer = false;
      for (int64_t retry = 0;; ++retry) {
        bool planned = false;
        try {
          Event("Flow " + label + " is STARTING.");
          DataFrame df = plan_flow(f, d);
          planned = true;
          if (d.kind == DatasetKind::kTemporaryView) {
            CheckOrThrow(
                state->catalog.CreateTempView(d.name, df.analyzed(), /*replace=*/true));
          } else if (d.kind == DatasetKind::kMaterializedView) {
            Event("Flow " + label + " is RUNNING.");
            refresh_view(d, df);
            views.push_back(i);
          } else {
            StreamingQuery q = start_stream(f, d, df);
            Event("Flow " + label + " is RUNNING.");
            if (options_.continuous) {
              running.push_back(Running{i, q});
              break;
            }
            q.awaitTermination();
            for (const auto& p : q.recentProgress()) {
              if (!p.duration_ms.count("addBatch"))
                continue;  // a trigger without a batch
              ++r.batches;
              r.rows += p.num_input_rows;
            }
          }
          Event("Flow " + label + " has COMPLETED.");
          break;
        } catch (const SparkException& e) {
          if (!planned && !f.reads_known && pending.size() > 1 &&
              e.status().error_class() == "TABLE_OR_VIEW_NOT_FOUND") {
            Event("Flow " + label + " waits for the datasets it reads.");
            deferred.push_back(name);
            deferred_errors.push_back(e);
            defer = true;
            break;
          }
          flow_failed(i, e);
          if (planned && retry < max_retries &&
              wait_until(std::chrono::steady_clock::now() + retry_delay(retry + 1))) {
            continue;
          }
          give_up(i, e, &r);
          break;
        }
      }
      if (!defer) results.push_back(r);
    }
    if (!deferred.empty() && deferred.size() == pending.size()) {
      // No progress: the datasets they read are not the pipeline's.
      for (size_t k = 0; k < deferred.size(); ++k) {
        size_t i = flow_index(deferred[k]);
        FlowResult r{flows_[i].name, flows_[i].target,
                     FindDataset(flows_[i].target)->kind, 0, 0};
        flow_failed(i, deferred_errors[k]);
        give_up(i, deferred_errors[k], &r);
        results.push_back(r);
      }
      break;
    }
    pending = std::move(deferred);
  }
  auto result_of = [&](size_t i) -> FlowResult& {
    for (auto& r : results) {
      if (r.flow == flows_[i].name) return r;
    }
    return results.front();  // every flow has a result
  };
  if (options_.continuous) {
    Event("Run is RUNNING (continuous; stop to end).");
    auto next_refresh =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(interval_ms);
    auto collect = [&](Running& run) {
      for (const auto& p : run.query.recentProgress()) {
        if (!p.duration_ms.count("addBatch")) continue;  // a trigger without a batch
        ++result_of(run.flow).batches;
        result_of(run.flow).rows += p.num_input_rows;
      }
    };
    while (!stopped() && (!running.empty() || !views.empty())) {
      const auto now = std::chrono::steady_clock::now();
      for (size_t k = 0; k < running.size();) {
        Running& run = running[k];
        const Flow& f = flows_[run.flow];
        if (run.restart_at && now >= *run.restart_at) {
          run.restart_at.reset();
          try {
            Event("Flow " + label_of(run.flow) + " is STARTING.");
            collect(run);
            run.query = start_stream(f, *FindDataset(f.target),
                                     plan_flow(f, *FindDataset(f.target)));
            Event("Flow " + label_of(run.flow) + " is RUNNING.");
          } catch (const SparkException& e) {
            flow_failed(run.flow, e);
            give_up(run.flow, e, &result_of(run.flow));
            running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
            continue;
          }
        }
        if (!run.restart_at && !run.query.isActive()) {
          auto error = run.query.exception();
          if (!error) {  // stopped from elsewhere
            ++k;
            continue;
          }
          SparkException e(error->status());
          flow_failed(run.flow, e);
          if (run.retries < max_retries) {
            ++run.retries;
            run.restart_at = now + retry_delay(run.retries);
          } else {
            collect(run);
            give_up(run.flow, e, &result_of(run.flow));
            running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
            continue;
          }
        }
        ++k;
      }
      if (now >= next_refresh) {
        for (size_t k = 0; k < views.size();) {
          const Flow& f = flows_[views[k]];
          const Dataset& d = *FindDataset(f.target);
          try {
            refresh_view(d, plan_flow(f, d));
            ++k;
          } catch (const SparkException& e) {
            flow_failed(views[k], e);
            give_up(views[k], e, &result_of(views[k]));
            views.erase(views.begin() + static_cast<std::ptrdiff_t>(k));
          }
        }
        next_refresh = now + std::chrono::milliseconds(interval_ms);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (auto& run : running) run.query.stop();
    for (auto& run : running) collect(run);
  }
  last_run_ = results;
  if (failure) {
    Event("Run has FAILED.");
    throw *failure;
  }
  Event(options_.continuous ? "Run is STOPPED." : "Run is COMPLETED.");
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
    std::filesystem::path up =
        p.parent_path().parent_path().parent_path().parent_path().parent_path();
    if (up.filename() == "_checkpoints") wanted = p.parent_path().filename().string();
  }
  std::string table;
  DataFrame df = StreamingTableQuery(spark, sql_text, wanted, &table);
  return CaptureStart([&] {
    StartStreamingFlow(df, table, wanted.empty() ? table : wanted, root,
                       stream::Trigger::AvailableNow());
  });
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
