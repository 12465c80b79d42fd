// Copyright spate authors.
#pragma once

// `spate checkpoint replay DIR --batch N --query FILE [--out DIR]`: runs committed batch
// N of a streaming query again — on exactly the offsets, batch timestamp, watermark and
// pinned confs `offsets/N` logged, the end offsets of N-1 as its start, and the state
// version N — against the same sources, and compares its output with what the sink
// committed for batch N:
//
//   * Delta sink: the files added by the table version whose txn is (query id, N);
//   * file sink: the files `_spark_metadata` lists for batch N (those of the log up to N
//     but not up to N-1, so compacted logs work too);
//   * other sinks keep no record of a batch: the replayed rows are only shown (and
//   written
//     with --out).
//
// How: the runtime's own restart path does it. A scratch checkpoint gets the query id,
// offsets/N-1 + commits/N-1, offsets/N (uncommitted), the sources' logs and the state;
// the query (a QueryConfig caught by the start hook, as `checkpoint check` does) starts
// on it with Trigger.Once into a sink that keeps the rows, so the runtime replays batch N
// as it does after a crash and stops. Nothing under DIR is written; the scratch folder is
// removed.
//
// Thread safety: one replay at a time per query. Failure: a batch that is not committed
// (or whose offsets were purged) is SPATE_STREAMING_INVALID; source and state errors are
// the runtime's (e.g. input files deleted since: the file source's error naming the
// file).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spate/api/session.h"
#include "spate/base/json.h"
#include "spate/stream/streaming_query.h"

namespace spate::api {

struct BatchReplay {
  std::string checkpoint;
  std::string query_id;
  int64_t batch_id = 0;
  /// "delta" (table version `sink_version`), "files" or "none" (nothing to compare with).
  std::string sink_kind = "none";
  std::string sink_location;
  std::optional<int64_t> sink_version;
  std::vector<std::string> columns;
  /// Each row as text (Spark's show() cell text, "|"-separated), sorted.
  std::vector<std::string> replayed, committed;
  /// The multiset differences: rows only the replay produced / only the sink holds.
  std::vector<std::string> only_replayed, only_committed;

  bool compared() const { return sink_kind != "none"; }
  bool equal() const { return only_replayed.empty() && only_committed.empty(); }
  /// 0: equal (or nothing to compare with), 1: different.
  int ExitCode() const { return compared() && !equal() ? 1 : 0; }
  Json ToJson() const;
  std::string ToText() const;
};

/// Replays batch `batch_id` of the checkpoint at `dir` with the query `config` describes
/// (its sink tells where the committed output is); `spark` reads the sink's files. With
/// `out`, the replayed rows are also written there as Parquet.
BatchReplay ReplayBatch(const SparkSession& spark, const stream::QueryConfig& config,
                        const std::string& dir, int64_t batch_id,
                        const std::optional<std::string>& out = std::nullopt);

}  // namespace spate::api
