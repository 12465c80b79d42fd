// Copyright spate authors.
#include "checkpoint_cmd.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <ostream>

#include "pipeline_cmd.h"
#include "submit_cmd.h"

#include "spate/stream/checkpoint.h"
#include "spate/stream/checkpoint_check.h"
#include "spate/stream/checkpoint_describe.h"

namespace spate::cli {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A spark-pipeline.yml spec (run by spate.pipelines in Python).
bool IsSpec(const std::string& path) {
  return EndsWith(path, ".yml") || EndsWith(path, ".yaml");
}

std::string Absolute(const std::string& path) {
  return path.empty() ? path
                      : std::filesystem::absolute(path).lexically_normal().string();
}

// `python3 -m spate.checkpoint <command> DIR [FILE] [options] [--json] [-- ARGS]`;
// without FILE the package runs the recorded Python program (spate/checkpoint.py).
int RunPython(const std::string& command, const CheckpointQueryArgs& a,
              const std::vector<std::string>& options) {
  std::vector<std::string> args = {command, stream::StripFileScheme(a.dir)};
  if (!a.query_file.empty()) args.push_back(a.query_file);
  args.insert(args.end(), options.begin(), options.end());
  if (a.json) args.push_back("--json");
  if (!a.script_args.empty()) {
    args.push_back("--");
    args.insert(args.end(), a.script_args.begin(), a.script_args.end());
  }
  return ExecPythonModule("spate.checkpoint", args);
}

// Runs `command` on the query: a SQL file here, a Python script in Python, and without
// --query the checkpoint's recorded program.
int RunQuery(const std::string& command, CheckpointQueryArgs a,
             const SqlCheckpointCommand& sql, const std::vector<std::string>& py_options,
             std::ostream& out, std::ostream& err) {
  if (a.query_file.empty()) {
    auto program = stream::RecordedProgram(*io::LocalFileSystem::Get(),
                                           stream::StripFileScheme(a.dir));
    if (!program.ok()) {
      err << "Error: " << program.status().ToString() << "\n";
      return 3;
    }
    // A Python script, or a spark-pipeline.yml spec (its Python definitions): in Python.
    if (program->kind == "python" || IsSpec(program->files.front())) {
      return RunPython(command, a, py_options);
    }
    // A pipeline's SQL files, run again in the folder (and with the confs) they ran with.
    SqlCheckpointCommand recorded = sql;
    recorded.dir = Absolute(stream::StripFileScheme(a.dir));
    recorded.out_dir = Absolute(sql.out_dir);
    recorded.files = program->files;
    recorded.database = program->database;
    for (const auto& [k, v] : program->confs) {
      if (v.find("(redacted)") == std::string::npos)
        recorded.confs.push_back(k + "=" + v);
    }
    recorded.confs.insert(recorded.confs.end(), a.confs.begin(), a.confs.end());
    if (!program->cwd.empty() && ::chdir(program->cwd.c_str()) != 0) {
      err << "Error: cannot enter " << program->cwd
          << " (the folder the pipeline ran in): " << std::strerror(errno) << "\n";
      return 3;
    }
    return RunSqlCheckpointCommand(recorded, out, err);
  }
  if (EndsWith(a.query_file, ".sql")) {
    SqlCheckpointCommand s = sql;
    s.files = {a.query_file};
    return RunSqlCheckpointCommand(s, out, err);
  }
  if (!EndsWith(a.query_file, ".py") && !IsSpec(a.query_file)) {
    err << "Error: --query takes a Python script (.py), a pipeline's SQL file (.sql) or "
           "its "
           "spec (spark-pipeline.yml)\n";
    return 3;
  }
  return RunPython(command, a, py_options);
}

}  // namespace

int DescribeCheckpoint(const std::string& dir, bool json, std::ostream& out,
                       std::ostream& err) {
  // file:///abs/path as Spark's logs write it is the folder itself.
  auto d = stream::DescribeCheckpoint(io::LocalFileSystem::Get(),
                                      stream::StripFileScheme(dir));
  if (!d.ok()) {
    err << "Error: " << d.status().ToString() << "\n";
    return 1;
  }
  out << (json ? d->ToJson().ToPrettyString() + "\n" : d->ToText());
  return 0;
}

int CheckCheckpoint(const CheckpointQueryArgs& args, std::ostream& out,
                    std::ostream& err) {
  SqlCheckpointCommand sql;
  sql.dir = args.dir;
  sql.table = args.table;
  sql.confs = args.confs;
  sql.json = args.json;
  return RunQuery("check", args, sql, {}, out, err);
}

int ReplayCheckpointBatch(const CheckpointQueryArgs& args, int64_t batch,
                          const std::string& out_dir, std::ostream& out,
                          std::ostream& err) {
  SqlCheckpointCommand sql;
  sql.dir = args.dir;
  sql.table = args.table;
  sql.confs = args.confs;
  sql.json = args.json;
  sql.batch = batch;
  sql.out_dir = out_dir;
  // The recorded Python program runs in its own folder: the paths given here are made
  // absolute first.
  std::vector<std::string> options = {"--batch", std::to_string(batch)};
  if (!out_dir.empty()) options.insert(options.end(), {"--out", Absolute(out_dir)});
  return RunQuery("replay", args, sql, options, out, err);
}

}  // namespace spate::cli
