// Copyright spate authors.
#include "sql_shell.h"

#include <editline/readline.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "progress_bar.h"

#include "spate/sql/parser.h"

namespace spate::cli {

std::string FormatShellError(const std::string& statement, const std::exception& e) {
  const auto* se = dynamic_cast<const api::SparkException*>(&e);
  if (!se) return std::string("Error: ") + e.what();
  const Status& st = se->status();
  std::string out = st.ToString();
  int64_t pos = st.position();
  if (pos >= 0 && pos <= static_cast<int64_t>(statement.size())) {
    int line = 1;
    int64_t line_start = 0;
    for (int64_t i = 0; i < pos; ++i) {
      if (statement[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    out += " (line " + std::to_string(line) + ", pos " +
           std::to_string(pos - line_start) + ")";
    if (se->getErrorClass().rfind("PARSE_", 0) == 0) {
      int64_t line_end = static_cast<int64_t>(statement.find('\n', line_start));
      if (line_end < 0) line_end = static_cast<int64_t>(statement.size());
      out += "\n\n== SQL ==\n" + statement.substr(line_start, line_end - line_start) +
             "\n" + std::string(static_cast<size_t>(pos - line_start), '-') + "^^^";
    }
  }
  return out;
}

SqlShell::SqlShell(api::SparkSession spark, ShellOptions options, std::ostream& out,
                   std::ostream& err)
    : spark_(std::move(spark)), options_(options), out_(out), err_(err) {}

void SqlShell::PrintError(const std::string& statement, const std::exception& e) {
  err_ << FormatShellError(statement, e) << "\n";
  err_.flush();
}

bool SqlShell::RunStatement(const std::string& statement) {
  if (options_.echo) out_ << statement << "\n";
  auto start = std::chrono::steady_clock::now();
  try {
    // Spark's console progress bar while the statement runs, on a terminal only.
    std::optional<ConsoleProgressBar> bar;
    if (spark_.conf().get("spark.ui.showConsoleProgress", "true") != "false") {
      auto ms = [&](const std::string& key, const char* dflt) {
        std::string v = spark_.conf().get(key, dflt);
        while (!v.empty() && std::isalpha(static_cast<unsigned char>(v.back())))
          v.pop_back();
        return std::atoll(v.c_str());
      };
      bar.emplace(STDERR_FILENO, ms("spate.ui.consoleProgress.delayMs", "500"),
                  ms("spark.ui.consoleProgress.update.interval", "200"));
    }
    api::DataFrame df = spark_.sql(statement);
    std::vector<BatchPtr> batches = df.collectBatches();
    bar.reset();
    int64_t rows = 0;
    for (const auto& b : batches) rows += b->num_rows();
    auto schema = df.analyzed()->OutputSchema();
    if (schema->num_fields() > 0) {
      std::string text =
          FormatResult(*schema, batches, options_.format, options_.header,
                       spark_.conf().get("spark.sql.session.timeZone", "UTC"));
      out_ << text;
      out_.flush();
    }
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!options_.silent && options_.timer) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.3f", secs);
      err_ << "Time taken: " << buf << " seconds";
      if (schema->num_fields() > 0) err_ << ", Fetched " << rows << " row(s)";
      err_ << "\n";
      err_.flush();
    }
    return true;
  } catch (const std::exception& e) {
    PrintError(statement, e);
    return false;
  }
}

int SqlShell::RunScript(const std::string& text) {
  for (const auto& stmt : sql::SplitStatements(text)) {
    if (!RunStatement(stmt)) return 1;
  }
  return 0;
}

bool SqlShell::RunDotCommand(const std::string& line) {
  std::istringstream in(line);
  std::string cmd, arg;
  in >> cmd >> arg;
  if (cmd == ".exit" || cmd == ".quit") return false;
  if (cmd == ".mode") {
    if (arg == "table") {
      options_.format = OutputFormat::kTable;
    } else if (arg == "tsv" || arg == "tabs") {
      options_.format = OutputFormat::kTsv;
    } else if (arg == "json" || arg == "jsonlines") {
      options_.format = OutputFormat::kJson;
    } else {
      err_ << "Error: mode should be one of: table tsv json\n";
    }
  } else if (cmd == ".timer") {
    options_.timer = arg != "off";
  } else if (cmd == ".headers") {
    options_.header = arg == "on";
  } else if (cmd == ".read") {
    std::ifstream f(arg);
    if (!f) {
      err_ << "Error: cannot open \"" << arg << "\"\n";
    } else {
      std::stringstream ss;
      ss << f.rdbuf();
      RunScript(ss.str());
    }
  } else if (cmd == ".tables") {
    RunStatement("SHOW TABLES");
  } else {
    out_ << ".exit              Exit the shell\n"
            ".headers on|off    Column names in tsv output\n"
            ".help              This help\n"
            ".mode MODE         Output mode: table (Spark show() grid), tsv, json\n"
            ".read FILE         Run the SQL statements in FILE\n"
            ".tables            List temporary views\n"
            ".timer on|off      Print the time each statement takes\n"
            "Statements end with ';'. quit; or exit; leaves the shell.\n";
  }
  return true;
}

int SqlShell::RunInteractive() {
  bool tty = isatty(STDIN_FILENO);
  std::string history;
  if (const char* home = std::getenv("HOME"))
    history = std::string(home) + "/.spate_history";
  if (tty) {
    using_history();
    if (!history.empty()) read_history(history.c_str());
  }
  std::string buffer;
  for (;;) {
    const char* prompt = buffer.empty() ? "spate-sql> " : "         > ";
    std::string line;
    if (tty) {
      char* raw = readline(prompt);
      if (!raw) break;
      line = raw;
      std::free(raw);
    } else {
      if (!std::getline(std::cin, line)) break;
    }
    if (buffer.empty()) {
      std::string trimmed = line;
      trimmed.erase(0, trimmed.find_first_not_of(" \t"));
      if (trimmed.empty()) continue;
      if (trimmed[0] == '.') {
        if (tty) add_history(line.c_str());
        if (!RunDotCommand(trimmed)) break;
        continue;
      }
      std::string lower = ToLower(trimmed);
      if (lower == "quit" || lower == "exit" || lower == "quit;" || lower == "exit;")
        break;
    }
    buffer += (buffer.empty() ? "" : "\n") + line;
    if (sql::NeedsMoreInput(buffer)) continue;
    if (tty) add_history(buffer.c_str());
    for (const auto& stmt : sql::SplitStatements(buffer)) {
      std::string lower = ToLower(stmt);
      if (lower == "quit" || lower == "exit") {
        buffer.clear();
        goto done;
      }
      RunStatement(stmt);
    }
    buffer.clear();
  }
done:
  if (tty && !history.empty()) write_history(history.c_str());
  return 0;
}

}  // namespace spate::cli
