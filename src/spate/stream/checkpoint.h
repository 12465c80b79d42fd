// Copyright spate authors.
#pragma once

// The checkpoint of a streaming query, in Spark's layout and file formats so that a Spark
// user can read it (apache/spark sql/core/.../execution/streaming: HDFSMetadataLog,
// OffsetSeqLog, CommitLog, StreamMetadata, CompactibleFileStreamLog):
//
//   <checkpoint>/metadata        {"id":"<query uuid>"}
//   <checkpoint>/offsets/<N>     v1
//                                {"batchWatermarkMs":0,"batchTimestampMs":...,"conf":{...}}
//                                <offset JSON of source 0, or "-" when it has none>
//                                ...one line per source
//   <checkpoint>/commits/<N>     v1
//                                {"nextBatchWatermarkMs":0}
//   <checkpoint>/sources/<i>/    the file source's log of files seen (CompactibleLog)
//   <checkpoint>/state/          (room for the state store)
//
// MetadataLog writes every entry with FileSystem::PutIfAbsent (temp file, fsync, link or
// rename without replace, fsync of the folder): an entry is never overwritten, and a
// second writer of the same batch id loses with CONCURRENT_STREAM_LOG_UPDATE. Reading a
// corrupt, truncated or future-version entry fails with an error that names the file
// (MALFORMED_LOG_FILE / INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION), never silently.
//
// CompactibleLog is the log of files of the file source (sources/<i>/) and of the file
// sink (_spark_metadata/): every `compact_interval`-th batch (ids with
// (id + 1) % interval == 0) is written as "<id>.compact" holding every entry so far, so a
// reader needs the latest compact file and the batches after it only. The writer keeps
// the text of what it wrote since its latest compact file, so its next compaction is a
// concatenation (no re-read or re-parse of the growing compact file).
//
// Ownership: logs share the FileSystem. Thread safety: a log object is used by one query
// thread at a time (the query's own loop); concurrent processes are fenced only by
// put-if-absent. Failure: Status values naming the file.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spate/base/json.h"
#include "spate/base/status.h"
#include "spate/io/file_system.h"

namespace spate::stream {

/// Files named by batch id ("0", "1", ...) under one folder.
class MetadataLog {
 public:
  MetadataLog(io::FileSystemPtr fs, std::string dir)
      : fs_(std::move(fs)), dir_(std::move(dir)) {}
  virtual ~MetadataLog() = default;

  const std::string& dir() const { return dir_; }
  std::string PathOf(int64_t batch_id) const;
  /// Writes the entry only if absent; an existing entry gives
  /// CONCURRENT_STREAM_LOG_UPDATE.
  Status AddRaw(int64_t batch_id, const std::string& content);
  /// The text of an entry; nullopt when absent.
  Result<std::optional<std::string>> GetRaw(int64_t batch_id) const;
  /// Batch ids present, ascending (non-numeric names such as temp files are ignored).
  Result<std::vector<int64_t>> ListBatchIds() const;
  Result<std::optional<int64_t>> LatestBatchId() const;
  /// Deletes entries with id < threshold.
  Status Purge(int64_t threshold);
  /// Deletes entries with id > threshold.
  Status PurgeAfter(int64_t threshold);

 protected:
  io::FileSystemPtr fs_;
  std::string dir_;
};

/// Checks the "v<N>" first line; `path` names the file in errors.
Result<int> ValidateLogVersion(std::string_view line, int max_supported,
                               const std::string& path);

/// OffsetSeqMetadata.
struct OffsetSeqMetadata {
  int64_t batch_watermark_ms = 0;
  int64_t batch_timestamp_ms = 0;
  /// The session confs pinned for the life of the checkpoint, in Spark's order.
  std::vector<std::pair<std::string, std::string>> conf;
  Json ToJson() const;
  static Result<OffsetSeqMetadata> FromJson(const Json& v);
};

/// One offsets/<N> entry: the end offsets of batch N, one per source (nullopt: the source
/// had no data yet).
struct OffsetSeq {
  std::vector<std::optional<Json>> offsets;
  OffsetSeqMetadata metadata;
};

class OffsetSeqLog : public MetadataLog {
 public:
  using MetadataLog::MetadataLog;
  static std::string Serialize(const OffsetSeq& seq);
  static Result<OffsetSeq> Deserialize(std::string_view text, const std::string& path);
  Status Add(int64_t batch_id, const OffsetSeq& seq) {
    return AddRaw(batch_id, Serialize(seq));
  }
  Result<std::optional<OffsetSeq>> Get(int64_t batch_id) const;
};

/// commits/<N>: CommitMetadata.
class CommitLog : public MetadataLog {
 public:
  using MetadataLog::MetadataLog;
  static std::string Serialize(int64_t next_batch_watermark_ms);
  /// Returns nextBatchWatermarkMs.
  static Result<int64_t> Deserialize(std::string_view text, const std::string& path);
  Status Add(int64_t batch_id, int64_t next_batch_watermark_ms = 0) {
    return AddRaw(batch_id, Serialize(next_batch_watermark_ms));
  }
  /// nextBatchWatermarkMs of the entry, nullopt when absent.
  Result<std::optional<int64_t>> Get(int64_t batch_id) const;
};

/// <checkpoint>/metadata: the query id; nullopt when the file does not exist.
Result<std::optional<std::string>> ReadStreamMetadata(io::FileSystem& fs,
                                                      const std::string& checkpoint);
/// <checkpoint>/metadata: the query id. Read(), or create it with a new id.
Result<std::string> ReadOrCreateStreamMetadata(io::FileSystem& fs,
                                               const std::string& checkpoint,
                                               const std::string& new_id);

/// A compactible log's `*.log.cleanupDelay` conf (Spark's timeConf in milliseconds: a
/// bare number is milliseconds, else an interval such as "10m" or "1 minute"); -1 when
/// `deletion` (the `*.log.deletion` conf) is not "true"; `fallback_ms` when unparsable.
int64_t LogCleanupDelayMs(const std::string& deletion, const std::string& delay,
                          int64_t fallback_ms = 600000);

/// A log whose entries are JSON lines (one object per line), compacted every
/// `compact_interval` batches.
class CompactibleLog : public MetadataLog {
 public:
  /// `cleanup_delay_ms` >= 0: after a compaction, entries of earlier batches whose files
  /// are older than the delay are deleted (Spark's *.log.deletion / *.log.cleanupDelay);
  /// -1 keeps them.
  CompactibleLog(io::FileSystemPtr fs, std::string dir, int compact_interval,
                 int64_t cleanup_delay_ms = -1)
      : MetadataLog(std::move(fs), std::move(dir)),
        compact_interval_(compact_interval),
        cleanup_delay_ms_(cleanup_delay_ms) {}
  bool IsCompactionBatch(int64_t batch_id) const {
    return compact_interval_ > 0 && (batch_id + 1) % compact_interval_ == 0;
  }
  std::string EntryPath(int64_t batch_id) const;
  /// Adds batch `batch_id`'s entries; on a compaction batch writes "<id>.compact" with
  /// every entry so far (after dropping entries `keep` rejects).
  Status AddEntries(int64_t batch_id, const std::vector<Json>& entries);
  /// The entries of one batch (nullopt when absent); for a compact file: all it holds.
  Result<std::optional<std::vector<Json>>> GetEntries(int64_t batch_id) const;
  /// Every entry of batches <= `up_to` (all when nullopt), in batch order.
  Result<std::vector<Json>> AllEntries(std::optional<int64_t> up_to = std::nullopt) const;
  /// The highest batch id written (plain or compact).
  Result<std::optional<int64_t>> LatestId() const;

 private:
  Result<std::vector<Json>> ReadFile(const std::string& path) const;
  void DeleteExpired(int64_t compacted_batch);
  // What this object wrote since (and including) its latest compact file: the compact
  // file's text, then each later batch's lines ("\n{...}" each). A compaction built
  // from them reads nothing back.
  std::map<int64_t, std::string> written_;
  int compact_interval_;
  int64_t cleanup_delay_ms_;
  // The log's files not deleted yet (batch id -> {modification time, compact}), from one
  // listing by the first cleanup of this object, then kept up to date by its own writes
  // and deletions: a cleanup after each compaction lists nothing (O(expired files), not
  // O(files within the cleanup delay)).
  std::map<int64_t, std::pair<int64_t, bool>> undeleted_;
  bool undeleted_listed_ = false;
};

/// "file:///abs/path" for a local path, made absolute against the working directory when
/// relative (what Spark's logs hold); other URIs unchanged. StripFileScheme undoes the
/// scheme.
std::string QualifyPath(const std::string& path);
std::string StripFileScheme(const std::string& path);

/// A fresh random UUID (version 4).
std::string RandomUuid();

}  // namespace spate::stream
