// Copyright spate authors.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace spate::cli {

/// `spate checkpoint describe DIR [--json]` (stream/checkpoint_describe.h): prints the
/// description to `out`; an error to `err`. Returns the exit code: 0, or 1 when DIR is
/// not a readable checkpoint.
int DescribeCheckpoint(const std::string& dir, bool json, std::ostream& out, std::ostream& err);

/// `spate checkpoint check DIR --query FILE [--json] [-- ARGS]` (stream/checkpoint_check.h):
/// replaces this process with `python3 -m spate.checkpoint check DIR FILE` for a Python
/// FILE (run with ARGS as its sys.argv[1:]; its first started query is checked, not
/// started). Exit codes: 0 safe, 1 warnings (Spark runs it, results may be wrong), 2 Spark
/// would refuse to run it on this checkpoint, 3 the check could not run (a SQL file, a
/// broken script or checkpoint, no query started).
int CheckCheckpoint(const std::string& dir, const std::string& query_file, bool json,
                    const std::vector<std::string>& script_args, std::ostream& err);

/// `spate checkpoint replay DIR --batch N --query FILE [--out DIR] [--json] [-- ARGS]`
/// (api/checkpoint_replay.h): the same hand-over, then batch N replayed and compared with
/// what the sink committed. Exit codes: 0 equal (or a sink that records no batches), 1
/// different (the rows are printed), 3 the replay could not run.
int ReplayCheckpointBatch(const std::string& dir, int64_t batch, const std::string& query_file,
                          const std::string& out_dir, bool json,
                          const std::vector<std::string>& script_args, std::ostream& err);
/// Both: `python3 -m spate.checkpoint <command> DIR FILE [options] [--json] [-- ARGS]`.
int RunPythonQueryFile(const std::string& command, const std::string& dir,
                       const std::string& query_file, bool json,
                       const std::vector<std::string>& options,
                       const std::vector<std::string>& script_args, std::ostream& err);

}  // namespace spate::cli
