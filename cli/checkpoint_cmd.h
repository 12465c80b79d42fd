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
int DescribeCheckpoint(const std::string& dir, bool json, std::ostream& out,
                       std::ostream& err);

/// The query `check` and `replay` work with.
struct CheckpointQueryArgs {
  std::string dir;
  /// A Python script (run with `script_args` as its sys.argv[1:]; its first started query
  /// is handed over, not started) or a pipeline's SQL file (its streaming table `table`,
  /// default the one DIR is the checkpoint of, in a session with `confs`). Empty: the
  /// program the checkpoint's query record names (stream::RecordedProgram), run again in
  /// its working folder with its arguments and confs; a C++ program, or a checkpoint
  /// without the record, is an error naming what is missing (exit 3).
  std::string query_file;
  std::string table;
  std::vector<std::string> confs;  // key=value
  std::vector<std::string> script_args;
  bool json = false;
};

/// `spate checkpoint check DIR [--query FILE] [--json] [-- ARGS]`
/// (stream/checkpoint_check.h). A Python query replaces this process with
/// `python3 -m spate.checkpoint check ...`. Exit codes: 0 safe, 1 warnings (Spark runs
/// it, results may be wrong), 2 Spark would refuse to run it on this checkpoint, 3 the
/// check could not run (a broken script or checkpoint, no query started, no program
/// recorded).
int CheckCheckpoint(const CheckpointQueryArgs& args, std::ostream& out,
                    std::ostream& err);

/// `spate checkpoint replay DIR --batch N [--query FILE] [--out DIR] [--json] [-- ARGS]`
/// (api/checkpoint_replay.h): the same hand-over, then batch N replayed and compared with
/// what the sink committed. Exit codes: 0 equal (or a sink that records no batches), 1
/// different (the rows are printed), 3 the replay could not run.
int ReplayCheckpointBatch(const CheckpointQueryArgs& args, int64_t batch,
                          const std::string& out_dir, std::ostream& out,
                          std::ostream& err);

}  // namespace spate::cli
