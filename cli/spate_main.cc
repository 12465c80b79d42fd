// Copyright spate authors.
// The `spate` command: `spate sql` (a spark-sql style shell), `spate demo`, `spate version`.

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "demo.h"
#include "sql_shell.h"

int main(int argc, char** argv) {
  using namespace spate;
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
  demo_cmd->add_option("--events", events, "Number of generated events for the batch queries");
  demo_cmd->add_option("--events-per-file", per_file, "Events in each landed JSON file");

  app.add_subcommand("version", "Print the version");

  CLI11_PARSE(app, argc, argv);

  if (app.got_subcommand("version")) {
    std::cout << "spate 0.1.0\n";
    return 0;
  }
  if (app.got_subcommand(demo_cmd)) return cli::RunDemo(std::cout, events, per_file);

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
    auto spark = builder.getOrCreate();
    cli::ShellOptions opts;
    opts.format = output == "tsv" ? cli::OutputFormat::kTsv
                  : output == "json" ? cli::OutputFormat::kJson : cli::OutputFormat::kTable;
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
