// Copyright spate authors.
#include "checkpoint_cmd.h"

#include <ostream>

#include "spate/stream/checkpoint.h"
#include "spate/stream/checkpoint_describe.h"
#include "submit_cmd.h"

namespace spate::cli {

int DescribeCheckpoint(const std::string& dir, bool json, std::ostream& out, std::ostream& err) {
  // file:///abs/path as Spark's logs write it is the folder itself.
  auto d = stream::DescribeCheckpoint(io::LocalFileSystem::Get(), stream::StripFileScheme(dir));
  if (!d.ok()) {
    err << "Error: " << d.status().ToString() << "\n";
    return 1;
  }
  out << (json ? d->ToJson().ToPrettyString() + "\n" : d->ToText());
  return 0;
}

int CheckCheckpoint(const std::string& dir, const std::string& query_file, bool json,
                    const std::vector<std::string>& script_args, std::ostream& err) {
  return RunPythonQueryFile("check", dir, query_file, json, {}, script_args, err);
}

int ReplayCheckpointBatch(const std::string& dir, int64_t batch, const std::string& query_file,
                          const std::string& out_dir, bool json,
                          const std::vector<std::string>& script_args, std::ostream& err) {
  std::vector<std::string> options = {"--batch", std::to_string(batch)};
  if (!out_dir.empty()) {
    options.push_back("--out");
    options.push_back(out_dir);
  }
  return RunPythonQueryFile("replay", dir, query_file, json, options, script_args, err);
}

int RunPythonQueryFile(const std::string& command, const std::string& dir,
                       const std::string& query_file, bool json,
                       const std::vector<std::string>& options,
                       const std::vector<std::string>& script_args, std::ostream& err) {
  auto ends_with = [&](const char* suffix) {
    const std::string s = suffix;
    return query_file.size() >= s.size() &&
           query_file.compare(query_file.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".sql")) {
    err << "Error: " << query_file << ": `checkpoint " << command
        << "` takes a Python script (a pipeline's SQL file: `checkpoint check` only)\n";
    return 3;
  }
  if (!ends_with(".py")) {
    err << "Error: --query takes a Python script (.py)\n";
    return 3;
  }
  // The script runs in Python (python/spate/checkpoint.py) with the start hook set: its
  // first writeStream...start() hands the query to stream::CheckQueryAgainstCheckpoint
  // (check) or api::ReplayBatch (replay).
  std::vector<std::string> args = {command, stream::StripFileScheme(dir), query_file};
  args.insert(args.end(), options.begin(), options.end());
  if (json) args.push_back("--json");
  if (!script_args.empty()) {
    args.push_back("--");
    args.insert(args.end(), script_args.begin(), script_args.end());
  }
  return ExecPythonModule("spate.checkpoint", args);
}

}  // namespace spate::cli
