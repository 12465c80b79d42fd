// Copyright spate authors.
#pragma once

// The `spate sql` shell: runs SQL from -e, -f or an interactive prompt (libedit, history
// in
// ~/.spate_history), prints results as a Spark show() grid, spark-sql TSV or JSON lines,
// and errors as "[ERROR_CLASS] message SQLSTATE: xxxxx" with a non-zero exit code.
// Thread safety: one shell per thread.

#include <iosfwd>
#include <string>
#include <vector>

#include "result_format.h"

#include "spate/spate.h"

namespace spate::cli {

struct ShellOptions {
  OutputFormat format = OutputFormat::kTable;
  bool silent = false;  // -S: no timing lines
  bool echo = false;    // -v: print each statement
  bool header = false;  // tsv header line
  bool timer = true;
};

class SqlShell {
 public:
  SqlShell(api::SparkSession spark, ShellOptions options, std::ostream& out,
           std::ostream& err);

  /// Runs every statement of a script; stops at the first error. Returns 0 or 1.
  int RunScript(const std::string& text);
  /// Interactive loop until EOF / quit. Returns 0.
  int RunInteractive();
  /// Runs one statement and prints its result; false on error (already printed).
  bool RunStatement(const std::string& statement);

 private:
  bool RunDotCommand(const std::string& line);
  void PrintError(const std::string& statement, const std::exception& e);

  api::SparkSession spark_;
  ShellOptions options_;
  std::ostream& out_;
  std::ostream& err_;
};

/// Error text for the shell: "[CLASS] message SQLSTATE: xxxxx" and, for parse errors with
/// a position, "(line L, pos P)" plus the statement with a caret under the position.
std::string FormatShellError(const std::string& statement, const std::exception& e);

}  // namespace spate::cli
