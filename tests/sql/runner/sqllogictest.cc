// Copyright spate authors.
//
// spate_sqllogictest: runs DuckDB-style sqllogictest files against spate's public API.
//
//   spate_sqllogictest [--verbose] <file-or-dir>...
//
// File format (tests/sql/README.md has the folder's conventions):
//   # comment lines (also "# name:", "# description:", "# group:" headers)
//   statement ok              SQL until a blank line; must succeed (queries are
//   collected) statement error           SQL, then "----" and the expected error: its
//   error class
//                             first ("[CLASS] rest" or "CLASS rest": the exception's
//                             class must be CLASS and "rest", if any, a substring of its
//                             what()),
//                             "<REGEX>:pattern" (a class must be raised and the pattern
//                             found in "[CLASS] message"), or "<NO_CLASS> text" for an
//                             error that Spark raises without a class (none may be
//                             raised; text is a substring). A record that names no class
//                             fails.
//   query <types> [nosort|rowsort]
//                             SQL, "----", then the expected rows (values TAB-separated)
//                             until a blank line. One type letter (I R T B) per column.
//   mode skip / mode unskip   skip (and count as skipped) the records in between
//   loop <var> <from> <to> / endloop   repeat records with ${var} substituted (to
//   exclusive) require <feature>         no optional features exist yet: skips the rest
//   of the file restart                   continue in a fresh session (same warehouse
//   folder)
//
// Each file gets its own empty temporary folder: `__TEST_DIR__` in SQL and expected text
// is replaced by its path, and the session's warehouse (spark.sql.warehouse.dir) is
// __TEST_DIR__/warehouse. The folder is removed when the file ends. `__DATA_DIR__` is the
// checked-in fixtures folder tests/data (read-only); `__SHARED_DIR__` the shared test
// data folder beside the repository ($SPATE_SHARED_DIR, else <repo>/../shared), which a
// file declares with `require shared-data` (skips the rest of the file when the folder is
// missing, or fails it when CI=true).
//   halt                      stop reading the file
//
// Values are rendered as Spark's spark-sql CLI prints them (HiveResult.toHiveString):
// NULL, true/false, Java Double.toString, plain decimals, "2024-01-01",
// "2024-01-01 10:00:00.5" (session time zone UTC), intervals in Hive style
// ("1 02:03:04.000000000", "1-2"), and nested values as [1,2], {"k":1}, {"a":1,"b":"x"}
// with strings quoted and nulls as null inside nested values. An empty top-level string
// is written as "(empty)" so that it cannot be confused with the blank line ending a
// record.
//
// Output: one report per failure (file:line, SQL, expected and actual) and a closing line
// "N passed, M failed[, K skipped]". The exit code is 1 when anything failed.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "spate/base/test_data.h"
#include "spate/columnar/hive_format.h"
#include "spate/spate.h"

namespace {

using spate::DataType;
using spate::TypeId;
using spate::Value;
namespace api = spate::api;
namespace fs = std::filesystem;

// ---- rendering
// ---------------------------------------------------------------------------

// HiveResult.toHiveString, with the runner's "(empty)" marker for empty top-level
// strings (a blank line would end the record).
std::string Render(const Value& v, bool nested) {
  if (!nested && !v.is_null() && v.type()->IsBinaryLike() && v.str().empty())
    return "(empty)";
  return spate::HiveString(v, nested);
}

std::string RenderRow(const api::Row& row) {
  std::string s;
  for (size_t i = 0; i < row.size(); ++i) {
    if (i) s += '\t';
    s += Render(row[i], false);
  }
  return s;
}

// ---- parsing
// -----------------------------------------------------------------------------

enum class RecordKind { kStatementOk, kStatementError, kQuery };

struct Record {
  RecordKind kind;
  int line = 0;  // 1-based line of the directive
  std::string sql;
  std::string types;
  bool rowsort = false;
  std::vector<std::string> expected;  // rows (query) or the error lines (statement error)
  bool has_expected = false;
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> Words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::string StripCr(std::string s) {
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

// ---- running
// -----------------------------------------------------------------------------

struct Counts {
  int64_t passed = 0;
  int64_t failed = 0;
  int64_t skipped = 0;
};

struct Options {
  bool verbose = false;
};

class FileRunner {
 public:
  FileRunner(std::string path, const Options& options, Counts* counts)
      : path_(std::move(path)), options_(options), counts_(counts) {
    std::string templ = (fs::temp_directory_path() / "spate-slt-XXXXXX").string();
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) test_dir_ = buf.data();
  }
  ~FileRunner() {
    std::error_code ec;
    if (!test_dir_.empty()) fs::remove_all(test_dir_, ec);
  }

  void Run() {
    std::ifstream in(path_);
    if (!in) {
      std::cout << path_ << ": cannot open file\n";
      counts_->failed++;
      return;
    }
    std::string line;
    while (std::getline(in, line)) lines_.push_back(StripCr(line));
    NewSession();
    RunRange(0, lines_.size(), {});
  }

 private:
  struct Binding {
    std::string var;
    std::string value;
  };

  void NewSession() {
    try {
      session_ = std::make_unique<api::SparkSession>(
          api::SparkSession::builder().getOrCreate().newSession());
      // The suite pins Spark 4 defaults explicitly: ANSI mode on, session time zone UTC.
      // (std::string, not a literal: a const char* would pick the bool overload of
      // set().)
      session_->conf().set("spark.sql.ansi.enabled", std::string("true"));
      session_->conf().set("spark.sql.session.timeZone", std::string("UTC"));
      session_->conf().set("spark.sql.warehouse.dir", test_dir_ + "/warehouse");
    } catch (const std::exception& e) {
      std::cout << path_ << ": cannot create a session: " << e.what() << "\n";
      session_.reset();
    }
  }

  std::string Substitute(std::string s, const std::vector<Binding>& bindings) const {
    for (const auto& b : bindings) s = ReplaceAll(s, "${" + b.var + "}", b.value);
    s = ReplaceAll(s, "__DATA_DIR__", DataDir());
    s = ReplaceAll(s, "__SHARED_DIR__", SharedDir());
    return ReplaceAll(s, "__TEST_DIR__", test_dir_);
  }

  // tests/data: the fixtures folder beside the tests/sql tree this file is in.
  std::string DataDir() const {
    fs::path p = fs::absolute(path_).parent_path();
    while (!p.empty() && p.filename() != "sql" && p != p.root_path()) p = p.parent_path();
    return (p.parent_path() / "data").string();
  }

  // The shared test data folder beside the repository (spate/base/test_data.h):
  // $SPATE_SHARED_DIR, else <repo>/../shared for the repository this file is in.
  std::string SharedDir() const {
    if (const char* env = std::getenv("SPATE_SHARED_DIR"); env && *env) return env;
    fs::path repo =
        fs::absolute(DataDir()).lexically_normal().parent_path().parent_path();
    return (repo.parent_path() / "shared").string();
  }

  // Reads lines [i, end) until a blank line; returns the index after the block.
  size_t ReadBlock(size_t i, size_t end, std::vector<std::string>* out) const {
    while (i < end && !Trim(lines_[i]).empty()) out->push_back(lines_[i++]);
    return i;
  }

  // Runs the records in lines [begin, end); returns false when the file must stop.
  bool RunRange(size_t begin, size_t end, std::vector<Binding> bindings) {
    size_t i = begin;
    while (i < end) {
      std::string raw = lines_[i];
      std::string line = Trim(raw);
      if (line.empty() || line[0] == '#') {
        ++i;
        continue;
      }
      std::vector<std::string> words = Words(line);
      const std::string& cmd = words[0];
      int line_no = static_cast<int>(i) + 1;
      if (cmd == "mode") {
        if (words.size() >= 2 && words[1] == "skip") skip_ = true;
        if (words.size() >= 2 && words[1] == "unskip") skip_ = false;
        ++i;
        continue;
      }
      if (cmd == "halt") return false;
      if (cmd == "restart") {
        NewSession();
        ++i;
        continue;
      }
      if (cmd == "require") {
        std::string feature = words.size() > 1 ? words[1] : "";
        if (feature == "shared-data" && !SharedDir().empty() &&
            fs::exists(fs::path(SharedDir()) / "data")) {
          ++i;
          continue;
        }
        if (feature == "shared-data" && spate::MissingTestDataFails()) {
          std::cout << path_ << ":" << line_no
                    << ": require shared-data: no shared test data (CI=true); set "
                       "SPATE_SHARED_DIR or put shared/ beside the repository\n";
          counts_->failed++;
          return false;
        }
        // Not available (no other optional features exist yet): the rest of the file is
        // skipped.
        std::cout << path_ << ":" << line_no << ": require " << feature
                  << " not available, skipping the rest of the file\n";
        for (size_t j = i + 1; j < lines_.size(); ++j) {
          std::string w = Trim(lines_[j]);
          if (w.rfind("statement", 0) == 0 || w.rfind("query", 0) == 0)
            counts_->skipped++;
        }
        return false;
      }
      if (cmd == "loop" || cmd == "foreach") {
        // Find the matching endloop.
        size_t depth = 1, j = i + 1;
        for (; j < end; ++j) {
          std::string w = Trim(lines_[j]);
          if (w.rfind("loop ", 0) == 0 || w.rfind("foreach ", 0) == 0) depth++;
          if (w == "endloop" && --depth == 0) break;
        }
        if (j >= end) {
          Fail(line_no, line, "loop without endloop", "", "");
          return false;
        }
        std::vector<std::string> values;
        std::string var = words.size() > 1 ? words[1] : "i";
        if (cmd == "loop") {
          if (words.size() < 4) {
            Fail(line_no, line, "loop needs: loop <var> <from> <to>", "", "");
            return false;
          }
          int64_t from = std::stoll(Substitute(words[2], bindings));
          int64_t to = std::stoll(Substitute(words[3], bindings));
          for (int64_t k = from; k < to; ++k) values.push_back(std::to_string(k));
        } else {
          values.assign(words.begin() + 2, words.end());
        }
        for (const auto& v : values) {
          auto inner = bindings;
          inner.push_back({var, v});
          if (!RunRange(i + 1, j, inner)) return false;
        }
        i = j + 1;
        continue;
      }
      if (cmd == "endloop") {
        ++i;
        continue;
      }
      if (cmd == "statement" || cmd == "query") {
        Record r;
        r.line = line_no;
        if (cmd == "statement") {
          if (words.size() < 2 || (words[1] != "ok" && words[1] != "error")) {
            Fail(line_no, line, "statement needs ok or error", "", "");
            std::vector<std::string> ignored;
            i = ReadBlock(i + 1, end, &ignored);
            continue;
          }
          r.kind =
              words[1] == "ok" ? RecordKind::kStatementOk : RecordKind::kStatementError;
        } else {
          r.kind = RecordKind::kQuery;
          r.types = words.size() > 1 ? words[1] : "";
          for (size_t k = 2; k < words.size(); ++k) {
            if (words[k] == "rowsort" || words[k] == "valuesort") r.rowsort = true;
          }
        }
        ++i;
        std::vector<std::string> sql_lines;
        while (i < end && !Trim(lines_[i]).empty() && Trim(lines_[i]) != "----") {
          sql_lines.push_back(lines_[i++]);
        }
        if (i < end && Trim(lines_[i]) == "----") {
          r.has_expected = true;
          ++i;
          while (i < end && !lines_[i].empty())
            r.expected.push_back(Substitute(lines_[i++], bindings));
        }
        std::string sql;
        for (size_t k = 0; k < sql_lines.size(); ++k) {
          if (k) sql += "\n";
          sql += sql_lines[k];
        }
        r.sql = Substitute(sql, bindings);
        if (skip_) {
          counts_->skipped++;
        } else {
          Execute(r);
        }
        continue;
      }
      // Unknown line: report it once, then skip to the next blank line.
      Fail(line_no, line, "unknown directive", "", "");
      while (i < end && !Trim(lines_[i]).empty()) ++i;
    }
    return true;
  }

  void Fail(int line, const std::string& sql, const std::string& what,
            const std::string& expected, const std::string& actual) {
    counts_->failed++;
    std::cout << "================================================================\n";
    std::cout << path_ << ":" << line << ": " << what << "\n";
    std::cout << "---- SQL\n" << sql << "\n";
    if (!expected.empty() || !actual.empty()) {
      std::cout << "---- expected\n"
                << expected << (expected.empty() || expected.back() == '\n' ? "" : "\n");
      std::cout << "---- actual\n"
                << actual << (actual.empty() || actual.back() == '\n' ? "" : "\n");
    }
    std::cout.flush();  // keep the report if a later query crashes the process
  }

  static std::string Join(const std::vector<std::string>& rows) {
    std::string s;
    for (const auto& r : rows) s += r + "\n";
    return s;
  }

  // Why an error does not match a statement error record's expectation ("" if it does).
  static std::string ErrorMismatch(const std::string& error_class,
                                   const std::string& message,
                                   const std::vector<std::string>& expected) {
    std::string want = Join(expected);
    if (!want.empty()) want.pop_back();
    if (want.empty()) return "the record names no expected error class";
    auto contains = [&](std::string_view text) {
      return message.find(text) != std::string::npos;
    };
    if (want.rfind("<NO_CLASS>", 0) == 0) {
      if (!error_class.empty()) return "an error without a class was expected";
      std::string text = want.substr(10);
      text.erase(0, text.find_first_not_of(' '));
      return contains(text) ? "" : "the message differs";
    }
    if (want.rfind("<REGEX>:", 0) == 0) {
      if (error_class.empty()) return "an error class was expected";
      std::string full = message.rfind("[" + error_class + "]", 0) == 0
                             ? message
                             : "[" + error_class + "] " + message;
      try {
        return std::regex_search(full, std::regex(want.substr(8)))
                   ? ""
                   : "the pattern differs";
      } catch (const std::regex_error&) {
        return "the record's pattern is not a regular expression";
      }
    }
    // "[CLASS] rest" or "CLASS rest".
    const bool bracketed = want[0] == '[';
    size_t end = bracketed ? 1 : 0;
    while (end < want.size() && (std::isupper(static_cast<unsigned char>(want[end])) ||
                                 std::isdigit(static_cast<unsigned char>(want[end])) ||
                                 want[end] == '_' || want[end] == '.')) {
      end++;
    }
    std::string want_class = want.substr(bracketed ? 1 : 0, end - (bracketed ? 1 : 0));
    if (bracketed && (end == want.size() || want[end] != ']')) want_class.clear();
    const size_t after = end + (bracketed ? 1 : 0);  // past the class (and its "]")
    if (want_class.find('_') == std::string::npos ||
        (after < want.size() && want[after] != ' ' && want[after] != '\n')) {
      return "the record names no expected error class (\"[CLASS] text\", or "
             "\"<NO_CLASS> text\")";
    }
    if (error_class != want_class) return "the error class differs";
    std::string rest = want.substr(std::min(want.size(), after));
    rest.erase(0, rest.find_first_not_of(" \n"));
    return rest.empty() || contains(rest) ? "" : "the message differs";
  }

  void Execute(const Record& r) {
    if (!session_) {
      Fail(r.line, r.sql, "no session", "", "");
      return;
    }
    if (options_.verbose) std::cout << path_ << ":" << r.line << std::endl;
    std::vector<std::string> actual_rows;
    size_t num_columns = 0;
    std::string error;
    std::string error_class;
    bool failed = false;
    try {
      api::DataFrame df = session_->sql(r.sql);
      num_columns = df.columns().size();
      for (const auto& row : df.collect()) actual_rows.push_back(RenderRow(row));
    } catch (const api::SparkException& e) {
      failed = true;
      error = e.what();
      error_class = e.getErrorClass();
    } catch (const std::exception& e) {
      failed = true;
      error = e.what();
    } catch (...) {
      failed = true;
      error = "unknown exception";
    }

    switch (r.kind) {
      case RecordKind::kStatementOk:
        if (failed) return Fail(r.line, r.sql, "statement failed", "(success)", error);
        counts_->passed++;
        return;
      case RecordKind::kStatementError: {
        std::string want = Join(r.expected);
        if (!failed) {
          return Fail(r.line, r.sql, "statement succeeded, an error was expected", want,
                      "(success)\n" + Join(actual_rows));
        }
        if (std::string why = ErrorMismatch(error_class, error, r.expected);
            !why.empty()) {
          return Fail(r.line, r.sql, "wrong error: " + why, want,
                      error_class.empty() ? "(no error class) " + error : error);
        }
        counts_->passed++;
        return;
      }
      case RecordKind::kQuery: {
        if (failed) return Fail(r.line, r.sql, "query failed", Join(r.expected), error);
        if (!r.types.empty() && r.types.size() != num_columns) {
          return Fail(r.line, r.sql,
                      "column count mismatch: types '" + r.types +
                          "' but the query returned " + std::to_string(num_columns) +
                          " columns",
                      Join(r.expected), Join(actual_rows));
        }
        std::vector<std::string> expected = r.expected;
        std::vector<std::string> actual = actual_rows;
        if (r.rowsort) {
          std::sort(expected.begin(), expected.end());
          std::sort(actual.begin(), actual.end());
        }
        if (expected != actual) {
          return Fail(r.line, r.sql, "wrong result", Join(expected), Join(actual));
        }
        counts_->passed++;
        return;
      }
    }
  }

  std::string path_;
  std::string test_dir_;  // this file's temporary folder (__TEST_DIR__)
  Options options_;
  Counts* counts_;
  std::vector<std::string> lines_;
  std::unique_ptr<api::SparkSession> session_;
  bool skip_ = false;
};

void CollectFiles(const fs::path& p, std::vector<std::string>* out) {
  if (fs::is_directory(p)) {
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(p)) {
      if (e.is_regular_file() && e.path().extension() == ".test")
        found.push_back(e.path().string());
    }
    std::sort(found.begin(), found.end());
    out->insert(out->end(), found.begin(), found.end());
  } else {
    out->push_back(p.string());
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--verbose" || a == "-v") {
      options.verbose = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: spate_sqllogictest [--verbose] <file-or-dir>...\n";
      return 0;
    } else {
      CollectFiles(a, &files);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: spate_sqllogictest [--verbose] <file-or-dir>...\n";
    return 2;
  }
  Counts counts;
  for (const auto& f : files) {
    FileRunner runner(f, options, &counts);
    runner.Run();
  }
  std::cout << counts.passed << " passed, " << counts.failed << " failed";
  if (counts.skipped) std::cout << ", " << counts.skipped << " skipped";
  std::cout << std::endl;
  return counts.failed ? 1 : 0;
}
