// Copyright spate authors.
#include "pipeline_cmd.h"

#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "submit_cmd.h"

#include "spate/api/exceptions.h"
#include "spate/api/pipeline.h"
#include "spate/api/session.h"
#include "spate/stream/checkpoint_check.h"

namespace spate::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void OnInterrupt(int) { g_interrupted = 1; }

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "2026-12-06 08:36:34: " as spark-pipelines prefixes its lines.
std::string Stamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return std::string(buf) + ": ";
}

bool ApplyConfs(const std::vector<std::string>& confs, api::SparkSession::Builder& b,
                std::ostream& err) {
  for (const auto& c : confs) {
    size_t eq = c.find('=');
    if (eq == std::string::npos) {
      err << "Error: --conf takes key=value, not " << c << "\n";
      return false;
    }
    b.config(c.substr(0, eq), c.substr(eq + 1));
  }
  return true;
}

std::optional<std::string> ReadFile(const std::string& path, std::ostream& err) {
  std::ifstream in(path);
  if (!in) {
    err << "Error: cannot read " << path << "\n";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int RunSqlCheckpointCommand(const SqlCheckpointCommand& c, std::ostream& out,
                            std::ostream& err) {
  // The files' statements in one script (each file ends its last statement).
  std::string text;
  for (const auto& f : c.files) {
    std::optional<std::string> t = ReadFile(f, err);
    if (!t) return 3;
    text += *t + "\n;\n";
  }
  try {
    auto b = api::SparkSession::builder();
    if (!ApplyConfs(c.confs, b, err)) return 3;
    api::SparkSession spark = b.getOrCreate();
    if (!c.database.empty()) spark.sql("USE " + c.database);
    if (c.batch) {
      std::optional<std::string> out_dir;
      if (!c.out_dir.empty()) out_dir = c.out_dir;
      api::BatchReplay r =
          api::ReplaySqlFlowBatch(spark, c.dir, text, c.table, *c.batch, out_dir);
      out << (c.json ? r.ToJson().ToPrettyString() + "\n" : r.ToText());
      return r.ExitCode();
    }
    stream::CheckpointCheck r =
        api::CheckSqlFlowAgainstCheckpoint(spark, c.dir, text, c.table);
    out << (c.json ? r.ToJson().ToPrettyString() + "\n" : r.ToText());
    return r.ExitCode();
  } catch (const std::exception& e) {
    err << "Error: " << e.what() << "\n";
    return 3;
  }
}

int RunPipeline(const RunPipelineArgs& args, std::ostream& out, std::ostream& err) {
  if (args.files.empty()) {
    err << "Error: spate run takes SQL files (or a spark-pipeline.yml spec)\n";
    return 2;
  }
  const std::string& first = args.files[0];
  if (EndsWith(first, ".yml") || EndsWith(first, ".yaml")) {
    std::vector<std::string> py = {args.dry_run ? "dry-run" : "run", "--spec", first};
    if (!args.storage.empty()) py.insert(py.end(), {"--storage", args.storage});
    for (const auto& c : args.confs) py.insert(py.end(), {"--conf", c});
    if (args.dry_run) return ExecPythonModule("spate.pipelines", py);
    if (args.continuous) py.push_back("--continuous");
    py.insert(py.end(), {"--trigger-interval", args.trigger_interval});
    for (const auto& f : args.full_refresh) py.insert(py.end(), {"--full-refresh", f});
    if (args.full_refresh_all) py.push_back("--full-refresh-all");
    return ExecPythonModule("spate.pipelines", py);
  }
  std::vector<std::pair<std::string, std::string>> sources;
  for (const auto& f : args.files) {
    if (!EndsWith(f, ".sql")) {
      err << "Error: " << f
          << ": spate run takes .sql files; Python definitions run from a "
          << "spark-pipeline.yml spec (spate run spark-pipeline.yml)\n";
      return 2;
    }
    std::optional<std::string> text = ReadFile(f, err);
    if (!text) return 2;
    sources.emplace_back(f, *text);
  }
  try {
    auto b = api::SparkSession::builder().appName("spate-pipeline");
    if (!ApplyConfs(args.confs, b, err)) return 2;
    if (args.ui)
      b.config("spark.ui.enabled", "true")
          .config("spark.ui.port", std::to_string(args.ui_port));
    api::SparkSession spark = b.getOrCreate();
    if (auto url = spark.uiWebUrl()) err << "Spark Web UI available at " << *url << "\n";
    // The checkpoints' query records name this run (`checkpoint replay DIR` without
    // --query).
    stream::QueryProgram program;
    program.kind = "pipeline";
    program.cwd = std::filesystem::current_path().string();
    for (const auto& f : args.files) {
      program.files.push_back(std::filesystem::absolute(f).lexically_normal().string());
    }
    for (const auto& kv : args.confs) {
      size_t eq = kv.find('=');
      program.confs.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    program.database = args.database;
    stream::SetQueryProgram(program);
    api::PipelineOptions o;
    o.storage =
        args.storage.empty()
            ? (std::filesystem::absolute(first).parent_path() / "pipeline-storage")
                  .string()
            : std::filesystem::absolute(args.storage).string();
    if (!args.database.empty()) o.database = args.database;
    o.continuous = args.continuous;
    o.trigger_interval = args.trigger_interval;
    o.full_refresh = args.full_refresh;
    o.full_refresh_all = args.full_refresh_all;
    o.dry_run = args.dry_run;
    o.on_event = [&err](const std::string& line) { err << Stamp() << line << "\n"; };
    o.should_stop = [] { return g_interrupted != 0; };
    std::signal(SIGINT, OnInterrupt);
    std::signal(SIGTERM, OnInterrupt);
    api::Pipeline pipeline(spark, o);
    for (const auto& [file, text] : sources) pipeline.addSql(text, file);
    for (const auto& r : pipeline.run()) {
      out << r.target;
      if (args.dry_run) {
        out << ": resolved";
      } else if (r.kind == api::Pipeline::DatasetKind::kStreamingTable) {
        out << ": " << r.rows << " rows in " << r.batches << " batches";
        if (r.flow != r.target) out << " (flow " << r.flow << ")";
      } else if (r.kind == api::Pipeline::DatasetKind::kMaterializedView) {
        out << ": recomputed";
      } else {
        out << ": view";
      }
      out << "\n";
    }
    spark.stop();
    return 0;
  } catch (const api::SparkException& e) {
    err << "Error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "Error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace spate::cli
