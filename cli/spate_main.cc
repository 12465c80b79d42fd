// Copyright spate authors.
// The `spate` command: `spate sql` (a spark-sql style shell), `spate demo`,
// `spate checkpoint describe|check|replay`, `spate submit` (a PySpark script on spate,
// like spark-submit), `spate version`. `--ui` (sql, demo) starts the monitoring server
// (docs/observability.md).

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint_cmd.h"
#include "demo.h"
#include "pipeline_cmd.h"
#include "sql_shell.h"
#include "submit_cmd.h"

int main(int argc, char** argv) {
  using namespace spate;
  // `spate submit ...` hands every later argument, verbatim, to `python3 -m
  // spate.submit`. It is dispatched before CLI11 parses: CLI11 would take an option's
  // value such as
  // `--name sql` for one of the other subcommands.
  if (argc >= 2 && std::string(argv[1]) == "submit") {
    return cli::ExecSubmit(std::vector<std::string>(argv + 2, argv + argc));
  }
  CLI::App app{"spate: Spark Structured Streaming's model in one C++ process"};
  app.require_subcommand(1);

  auto* sql_cmd = app.add_subcommand("sql", "Spark SQL shell (like spark-sql)");
  std::string execute, file, init_file, output = "table";
  std::vector<std::string> confs;
  bool silent = false, verbose = false, header = false;
  sql_cmd->add_option("-e", execute, "SQL statements to run (';'-separated)");
  sql_cmd->add_option("-f", file, "File of SQL statements to run");
  sql_cmd->add_option("-i", init_file, "Initialization SQL file run before the shell");
  sql_cmd->add_option("--output", output, "Result format: table | tsv | json")
      ->check(CLI::IsMember({"table", "tsv", "json"}));
  sql_cmd->add_option("--conf,--hiveconf", confs, "Session conf key=value");
  sql_cmd->add_flag("-S,--silent", silent, "No timing lines");
  sql_cmd->add_flag("-v,--verbose", verbose, "Echo each statement");
  sql_cmd->add_flag("--header", header, "Print column names in tsv output");

  auto* demo_cmd = app.add_subcommand(
      "demo", "Run the demo: a JSON files -> Delta streaming pipeline, then batch SQL");
  long long events = 5'000'000;
  int per_file = 100;
  demo_cmd->add_option("--events", events,
                       "Number of generated events for the batch queries");
  demo_cmd->add_option("--events-per-file", per_file, "Events in each landed JSON file");

  // --ui: the monitoring server (spark.ui.enabled=true), on --ui-port (spark.ui.port).
  bool ui = false;
  int ui_port = 4040;
  for (CLI::App* cmd : {sql_cmd, demo_cmd}) {
    cmd->add_flag(
        "--ui", ui,
        "Serve the live page, /metrics and /api/v1 (the monitoring server) on loopback");
    cmd->add_option("--ui-port", ui_port,
                    "Port of the monitoring server (0: any free port)")
        ->check(CLI::Range(0, 65535));
  }

  auto* checkpoint_cmd =
      app.add_subcommand("checkpoint", "Inspect a streaming query's checkpoint folder");
  checkpoint_cmd->require_subcommand(1);
  auto* describe_cmd = checkpoint_cmd->add_subcommand(
      "describe", "The query id, batches, sources and state operators of a checkpoint");
  std::string checkpoint_dir;
  bool as_json = false;
  describe_cmd->add_option("DIR", checkpoint_dir, "The checkpoint folder")->required();
  describe_cmd->add_flag("--json", as_json, "Print the description as JSON");
  auto* check_cmd = checkpoint_cmd->add_subcommand(
      "check",
      "Pre-flight a changed query against a checkpoint: each change with Spark's verdict "
      "(exit 0 safe, 1 warnings, 2 Spark would refuse, 3 the check could not run)");
  cli::CheckpointQueryArgs query_args;
  auto* replay_cmd = checkpoint_cmd->add_subcommand(
      "replay",
      "Re-run a committed batch from its logged offsets and state, and diff its output "
      "with "
      "what the sink committed (exit 0 equal, 1 different, 3 the replay could not run)");
  long long replay_batch = -1;
  std::string replay_out;
  replay_cmd->add_option("--batch", replay_batch, "The committed batch to replay")
      ->required()
      ->check(CLI::NonNegativeNumber);
  replay_cmd->add_option("--out", replay_out,
                         "Also write the replayed rows there (Parquet)");
  for (CLI::App* cmd : {check_cmd, replay_cmd}) {
    const bool check = cmd == check_cmd;
    cmd->add_option("DIR", query_args.dir, "The checkpoint folder")->required();
    cmd->add_option(
        "--query", query_args.query_file,
        std::string("The query: a Python script whose first writeStream...start() / "
                    "toTable() is ") +
            (check ? "checked" : "replayed") +
            " instead of started, or a pipeline's SQL file (its streaming table). "
            "Default: the program the checkpoint's query record names");
    cmd->add_flag("--json", query_args.json,
                  check ? "Print the findings as JSON" : "Print the result as JSON");
    cmd->add_option("--table", query_args.table,
                    "With a SQL (pipeline) file: the streaming table or flow "
                    "(default: the one DIR is the checkpoint of, else the first)");
    cmd->add_option("--conf", query_args.confs,
                    "With a SQL file: session conf key=value (e.g. the warehouse)");
    cmd->add_option("ARGS", query_args.script_args,
                    "Arguments for the script (after --)");
  }

  auto* run_cmd = app.add_subcommand(
      "run",
      "Run a declarative pipeline (Spark 4.1's CREATE STREAMING TABLE / MATERIALIZED "
      "VIEW / "
      "FLOW in SQL files, or a spark-pipeline.yml spec) once, or continuously");
  cli::RunPipelineArgs run_args;
  run_cmd->add_option("FILES", run_args.files, "SQL files (or one spark-pipeline.yml)")
      ->required();
  run_cmd->add_option(
      "--storage", run_args.storage,
      "Root of the pipeline's checkpoints (default: pipeline-storage beside "
      "the first file)");
  run_cmd->add_option("--database", run_args.database,
                      "Database of unqualified dataset names");
  run_cmd->add_flag("--continuous", run_args.continuous,
                    "Run until Ctrl-C (processing-time triggers) instead of once");
  run_cmd->add_option("--trigger-interval", run_args.trigger_interval,
                      "The processing-time trigger of --continuous (default 10 seconds)");
  run_cmd->add_option("--conf", run_args.confs, "Session conf key=value");
  run_cmd
      ->add_option("--full-refresh", run_args.full_refresh,
                   "Datasets to reset and recompute (comma-separated)")
      ->delimiter(',');
  run_cmd->add_flag("--full-refresh-all", run_args.full_refresh_all,
                    "Reset and recompute every dataset");
  run_cmd->add_flag("--dry-run", run_args.dry_run,
                    "Resolve every flow and report errors without running anything "
                    "(spark-pipelines dry-run)");
  run_cmd->add_flag("--ui", run_args.ui,
                    "Serve the monitoring server while the pipeline runs");
  run_cmd->add_option("--ui-port", run_args.ui_port, "Port of the monitoring server");

  app.add_subcommand("version", "Print the version");
  // Listed for --help; handled above.
  app.add_subcommand(
         "submit",
         "Run a PySpark script on spate, like spark-submit (spate submit --help)")
      ->prefix_command();

  CLI11_PARSE(app, argc, argv);

  if (app.got_subcommand("version")) {
    std::cout << "spate 0.1.0\n";
    return 0;
  }
  if (app.got_subcommand(run_cmd))
    return cli::RunPipeline(run_args, std::cout, std::cerr);
  if (checkpoint_cmd->got_subcommand(replay_cmd)) {
    return cli::ReplayCheckpointBatch(query_args, replay_batch, replay_out, std::cout,
                                      std::cerr);
  }
  if (checkpoint_cmd->got_subcommand(check_cmd)) {
    return cli::CheckCheckpoint(query_args, std::cout, std::cerr);
  }
  if (checkpoint_cmd->got_subcommand(describe_cmd)) {
    return cli::DescribeCheckpoint(checkpoint_dir, as_json, std::cout, std::cerr);
  }
  auto ui_builder = [&](api::SparkSession::Builder& b) {
    if (!ui) return;
    b.config("spark.ui.enabled", "true").config("spark.ui.port", std::to_string(ui_port));
  };
  auto announce_ui = [&](const api::SparkSession& spark) {
    if (auto url = spark.uiWebUrl())
      std::cerr << "Spark Web UI available at " << *url << "\n";
  };
  if (app.got_subcommand(demo_cmd)) {
    try {
      // The demo's getOrCreate() finds this session, monitoring server included.
      auto b = api::SparkSession::builder();
      ui_builder(b);
      announce_ui(b.getOrCreate());
    } catch (const std::exception& e) {
      std::cerr << "Error: " << e.what() << "\n";
      return 1;
    }
    int rc = cli::RunDemo(std::cout, events, per_file);
    // With --ui on a terminal, keep serving until the user is done looking.
    if (ui && ::isatty(0)) {
      std::cerr << "The monitoring server keeps serving; press Enter to exit.\n";
      std::string line;
      std::getline(std::cin, line);
    }
    return rc;
  }

  try {
    auto builder = api::SparkSession::builder().appName("spate-sql");
    for (const auto& kv : confs) {
      auto eq = kv.find('=');
      if (eq == std::string::npos) {
        std::cerr << "Error: --conf expects key=value, got " << kv << "\n";
        return 2;
      }
      builder.config(kv.substr(0, eq), kv.substr(eq + 1));
    }
    ui_builder(builder);
    auto spark = builder.getOrCreate();
    if (!silent) announce_ui(spark);
    cli::ShellOptions opts;
    opts.format = output == "tsv"    ? cli::OutputFormat::kTsv
                  : output == "json" ? cli::OutputFormat::kJson
                                     : cli::OutputFormat::kTable;
    opts.silent = silent;
    opts.echo = verbose;
    opts.header = header;
    cli::SqlShell shell(spark, opts, std::cout, std::cerr);
    auto read_file = [](const std::string& path, std::string* out) {
      std::ifstream f(path);
      if (!f) return false;
      std::stringstream ss;
      ss << f.rdbuf();
      *out = ss.str();
      return true;
    };
    if (!init_file.empty()) {
      std::string text;
      if (!read_file(init_file, &text)) {
        std::cerr << "Error: cannot read " << init_file << "\n";
        return 1;
      }
      if (shell.RunScript(text) != 0) return 1;
    }
    if (!execute.empty()) return shell.RunScript(execute);
    if (!file.empty()) {
      std::string text;
      if (!read_file(file, &text)) {
        std::cerr << "Error: cannot read " << file << "\n";
        return 1;
      }
      return shell.RunScript(text);
    }
    return shell.RunInteractive();
  } catch (const std::exception& e) {
    std::cerr << cli::FormatShellError("", e) << "\n";
    return 1;
  }
}
