// Copyright spate authors.
#include "spate/table/transaction.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "spate/base/text_parse.h"
#include "spate/formats/file_writer.h"
#include "spate/table/delta_writer.h"

namespace spate::table {

int CheckpointInterval(const Metadata& m) {
  auto it = m.configuration.find("delta.checkpointInterval");
  if (it == m.configuration.end()) return 10;
  const int v = ParseInt32(it->second).value_or(10);
  return v > 0 ? v : 10;
}

OptimisticTransaction::OptimisticTransaction(std::shared_ptr<const DeltaLog> log,
                                             SnapshotPtr snapshot)
    : log_(std::move(log)), snapshot_(std::move(snapshot)) {}

void OptimisticTransaction::ReadFiles(const std::vector<AddFile>& files) {
  for (const auto& f : files) read_files_.emplace(f.path, f.partition_values);
}

std::optional<int64_t> OptimisticTransaction::TxnVersion(const std::string& app_id) {
  read_app_ids_.insert(app_id);
  return snapshot_ ? snapshot_->TxnVersion(app_id) : std::nullopt;
}

void OptimisticTransaction::SetTransaction(const std::string& app_id, int64_t version) {
  read_app_ids_.insert(app_id);
  ::spate::table::SetTransaction t;
  t.app_id = app_id;
  t.version = version;
  t.last_updated = log_->NowMs();
  txns_.push_back(std::move(t));
}

namespace {

const char* kDocs = "https://docs.delta.io/latest/concurrency-control.html";

// The winner's commitInfo (nullptr when it has none).
const CommitInfo* WinnerInfo(const CommitEntry& w) {
  for (const auto& a : w.actions)
    if (a.kind == Action::Kind::kCommitInfo) return &a.commit_info;
  return nullptr;
}

// The winner's commitInfo as Delta prints it after "Conflicting commit:" (protocol,
// metadata and txn conflicts).
std::string ConflictingCommit(const CommitEntry& w) {
  const CommitInfo* info = WinnerInfo(w);
  return info ? "\nConflicting commit: " + info->ToJson().ToString() : "";
}

std::string WinnerOperation(const CommitEntry& w) {
  const CommitInfo* info = WinnerInfo(w);
  return info ? info->operation : "";
}

// Whether `now` drops a table feature or a version `before` had (Delta's
// isProtocolRemovingFeatures): every other interleaved transaction then aborts.
bool RemovesFeatures(const Protocol& now, const Protocol& before) {
  if (now.min_reader_version < before.min_reader_version ||
      now.min_writer_version < before.min_writer_version) {
    return true;
  }
  auto dropped = [](const std::optional<std::vector<std::string>>& a,
                    const std::optional<std::vector<std::string>>& b) {
    if (!b) return false;
    for (const auto& f : *b) {
      if (!a || std::find(a->begin(), a->end(), f) == a->end()) return true;
    }
    return false;
  };
  return dropped(now.reader_features, before.reader_features) ||
         dropped(now.writer_features, before.writer_features);
}

}  // namespace

std::string OptimisticTransaction::TableNameOrPath() const {
  if (snapshot_ && snapshot_->metadata().name && !snapshot_->metadata().name->empty())
    return *snapshot_->metadata().name;
  std::string path = log_->table_path();
  if (!path.empty() && path[0] == '/') path = "file:" + path;
  return "delta.`" + path + "`";
}

std::optional<std::string> OptimisticTransaction::PartitionHint(
    const PartitionValues& pv) const {
  // Delta's getPrettyPartitionMessage over the read snapshot's partition columns.
  if (!snapshot_ || snapshot_->metadata().partition_columns.empty() || pv.empty())
    return std::nullopt;
  std::string s = "[";
  for (const auto& col : snapshot_->metadata().partition_columns) {
    std::string value = "null";
    for (const auto& [name, v] : pv)
      if (name == col && v) value = *v;
    s += (s.size() > 1 ? ", " : "") + col + "=" + value;
  }
  return s + "]";
}

Status OptimisticTransaction::FileConflict(const char* error_class, const CommitEntry& w,
                                           const PartitionValues* pv) const {
  std::optional<std::string> hint = pv ? PartitionHint(*pv) : std::nullopt;
  std::vector<ErrorParam> params = {{"operation", WinnerOperation(w)},
                                    {"tableName", TableNameOrPath()},
                                    {"version", std::to_string(w.version)},
                                    {"docLink", kDocs}};
  if (hint) params.push_back({"partitionValues", *hint});
  return Status::Error(
      std::string(error_class) + (hint ? ".WITH_PARTITION_HINT" : ".WITHOUT_HINT"),
      params);
}

bool OptimisticTransaction::ReadsPartition(const PartitionValues& pv) const {
  if (read_whole_table_) return true;
  for (const auto& f : read_filters_)
    if (f(pv)) return true;
  return false;
}

Status OptimisticTransaction::CheckConflicts(const CommitEntry& w,
                                             const std::vector<Action>& ours,
                                             bool snapshot_isolation, bool blind) const {
  // Delta's ConflictChecker, in its order: protocol, metadata, txn app ids, then the
  // files: added files we should have read, removed files we read, removed files we
  // remove. OSS Delta's isolation level is Serializable: concurrent blind appends count
  // too; a transaction that changes no data (OPTIMIZE) runs as SnapshotIsolation and
  // skips the added-files check.
  const std::string conflict = ConflictingCommit(w);
  for (const auto& a : w.actions) {
    if (a.kind != Action::Kind::kProtocol) continue;
    SPATE_RETURN_IF_ERROR(CheckSupported(a.protocol, nullptr, true));
    const bool we_change_protocol = new_protocol_.has_value();
    if (we_change_protocol ||
        (snapshot_ && RemovesFeatures(a.protocol, snapshot_->protocol()))) {
      std::string info =
          w.version == 0 ? "This happens when multiple writers are writing to an empty "
                           "directory. Creating the table ahead of time will avoid this "
                           "conflict."
                         : "";
      return Status::Error("DELTA_PROTOCOL_CHANGED", {{"additionalInfo", info},
                                                      {"conflictingCommit", conflict},
                                                      {"docLink", kDocs}});
    }
    break;
  }
  for (const auto& a : w.actions) {
    if (a.kind == Action::Kind::kMetadata) {
      return Status::Error("DELTA_METADATA_CHANGED", {{"tableName", TableNameOrPath()},
                                                      {"conflictingCommit", conflict},
                                                      {"docLink", kDocs}});
    }
  }
  for (const auto& a : w.actions) {
    if (a.kind == Action::Kind::kTxn && read_app_ids_.count(a.txn.app_id)) {
      return Status::Error("DELTA_CONCURRENT_TRANSACTION",
                           {{"conflictingCommit", conflict}, {"docLink", kDocs}});
    }
  }
  if (!snapshot_isolation && !blind) {
    // Every file the winner added (blind or not, dataChange or not) that our read
    // predicates cover; an unpartitioned table's predicates cover every file.
    const bool unpartitioned =
        !snapshot_ || snapshot_->metadata().partition_columns.empty();
    for (const auto& a : w.actions) {
      if (a.kind == Action::Kind::kAdd && (read_whole_table_ || unpartitioned ||
                                           ReadsPartition(a.add.partition_values))) {
        return FileConflict("DELTA_CONCURRENT_APPEND", w, &a.add.partition_values);
      }
    }
  }
  bool winner_removes = false;
  for (const auto& a : w.actions) {
    if (a.kind != Action::Kind::kRemove) continue;
    winner_removes = true;
    auto it = read_files_.find(a.remove.path);
    if (it != read_files_.end())
      return FileConflict("DELTA_CONCURRENT_DELETE_READ", w, &it->second);
  }
  if (winner_removes && read_whole_table_)
    return FileConflict("DELTA_CONCURRENT_DELETE_READ", w, nullptr);
  std::map<std::string, const PartitionValues*> our_removes;
  for (const auto& a : ours)
    if (a.kind == Action::Kind::kRemove)
      our_removes.emplace(a.remove.path, a.remove.partition_values
                                             ? &*a.remove.partition_values
                                             : nullptr);
  for (const auto& a : w.actions) {
    if (a.kind != Action::Kind::kRemove) continue;
    auto it = our_removes.find(a.remove.path);
    if (it != our_removes.end())
      return FileConflict("DELTA_CONCURRENT_DELETE_DELETE", w, it->second);
  }
  return Status::OK();
}

namespace {

// A change-feed table's new metadata may not hold the feed's reserved column names.
Status CheckChangeDataColumns(const Metadata& new_metadata, const Snapshot* snapshot) {
  if (!ChangeDataFeedEnabled(new_metadata)) return Status::OK();
  SPATE_ASSIGN_OR_RETURN(SchemaPtr schema, new_metadata.ParseSchema());
  std::string reserved;
  for (const auto& f : schema->fields()) {
    for (const char* name :
         {"__is_cdc", kChangeTypeColumn, "_commit_version", "_commit_timestamp"}) {
      if (EqualsIgnoreCase(f.name, name))
        reserved += (reserved.empty() ? "" : ",") + f.name;
    }
  }
  if (reserved.empty()) return Status::OK();
  // Delta: a write that brings such a column into a change-feed table, or turning the
  // feed on for a table that has one.
  if (snapshot && ChangeDataFeedEnabled(snapshot->metadata())) {
    return Status::Error(
        "RESERVED_CDC_COLUMNS_ON_WRITE",
        {{"columnList", "[" + reserved + "]"}, {"config", "delta.enableChangeDataFeed"}});
  }
  return Status::Error("DELTA_TABLE_ALREADY_CONTAINS_CDC_COLUMNS",
                       {{"columnList", "[" + reserved + "]"}});
}

}  // namespace

Result<CommitResult> OptimisticTransaction::Commit(std::vector<Action> actions,
                                                   CommitInfo info) {
  if (committed_) return Status::Invalid("Delta transaction already committed");
  // Assemble: commitInfo first (as Delta writes it), then protocol, metaData, txn, files.
  if (read_version() < 0 && !new_metadata_) {
    return Status::Error("DELTA_METADATA_ABSENT");
  }
  if (read_version() < 0 && !new_protocol_) new_protocol_ = Protocol{};
  const Protocol& proto = new_protocol_ ? *new_protocol_
                          : snapshot_   ? snapshot_->protocol()
                                        : Protocol{};
  const Metadata* meta = new_metadata_ ? &*new_metadata_
                         : snapshot_   ? &snapshot_->metadata()
                                       : nullptr;
  SPATE_RETURN_IF_ERROR(CheckSupported(proto, meta, true));
  if (new_metadata_) {
    SPATE_RETURN_IF_ERROR(CheckChangeDataColumns(*new_metadata_, snapshot_.get()));
  }
  bool only_adds = true;
  bool data_change = false;
  for (const auto& a : actions) {
    if (a.kind != Action::Kind::kAdd) only_adds = false;
    if ((a.kind == Action::Kind::kAdd && a.add.data_change) ||
        (a.kind == Action::Kind::kRemove && a.remove.data_change) ||
        (a.kind != Action::Kind::kAdd && a.kind != Action::Kind::kRemove &&
         a.kind != Action::Kind::kCdc)) {
      data_change = true;  // (or an action that is not a file's: no downgrade)
    }
    if (a.kind == Action::Kind::kRemove && a.remove.data_change && meta) {
      auto it = meta->configuration.find("delta.appendOnly");
      if (it != meta->configuration.end() && ToLower(it->second) == "true") {
        return Status::Error(
            "DELTA_CANNOT_MODIFY_APPEND_ONLY",
            {{"table_name", log_->table_path()}, {"config", "delta.appendOnly"}});
      }
    }
  }
  info.timestamp = log_->NowMs();
  if (read_version() >= 0) info.read_version = read_version();
  // As Delta: a commit that read nothing and only adds files (or none: a metadata-only
  // commit such as SET TBLPROPERTIES) is a blind append. Delta's isolation level is
  // Serializable, downgraded to SnapshotIsolation for a commit of file actions that
  // change no data (OPTIMIZE, auto-compaction; getIsolationLevelToUse).
  const bool blind =
      only_adds && !read_whole_table_ && read_filters_.empty() && read_files_.empty();
  const bool snapshot_isolation =
      !data_change && !new_protocol_ && !new_metadata_ && txns_.empty();
  info.isolation_level = snapshot_isolation ? "SnapshotIsolation" : "Serializable";
  info.is_blind_append = blind;
  info.engine_info = kEngineInfo;
  info.txn_id = formats::NewUuid();
  std::vector<Action> body;
  body.reserve(actions.size() + txns_.size() + 3);
  body.push_back(Action::Of(std::move(info)));
  if (new_protocol_) body.push_back(Action::Of(*new_protocol_));
  if (new_metadata_) body.push_back(Action::Of(*new_metadata_));
  for (const auto& t : txns_) body.push_back(Action::Of(t));
  for (auto& a : actions) body.push_back(std::move(a));
  actions.clear();

  int64_t version = read_version() + 1;
  const auto started = std::chrono::steady_clock::now();
  for (int attempt = 1; attempt <= max_attempts_; ++attempt) {
    Status st = log_->WriteCommitFile(version, body);
    if (st.ok()) {
      committed_ = true;
      // The log's cached snapshot (if it is the previous version) takes our commit
      // without reading it back.
      log_->InstallCommit(version, body);
      // Post-commit: checkpoint every delta.checkpointInterval versions, paced once
      // checkpoints are large (DeltaLog::CheckpointDue; best effort), then the expired
      // log is cleaned up; in the background when asked.
      const CheckpointOptions cp =
          checkpoint_options_ ? *checkpoint_options_ : log_->checkpoint_options();
      if (meta && log_->CheckpointDue(version, CheckpointInterval(*meta), cp)) {
        SnapshotPtr snap = log_->Cached();
        if (!snap || snap->version() != version) {
          auto at = log_->At(version);
          snap = at.ok() ? *at : nullptr;
        }
        if (snap && async_checkpoint_) {
          log_->CheckpointInBackground(snap, cp);
        } else if (snap && log_->WriteCheckpoint(*snap, cp).ok()) {
          (void)log_->CleanUpExpiredLogs(*snap);
        }
      }
      return CommitResult{version, attempt};
    }
    if (st.code() != StatusCode::kAlreadyExists) return st;
    // Lost the race: check the winning commits (those from our version on; read by
    // opening consecutive commit files, no listing).
    SPATE_ASSIGN_OR_RETURN(auto winners, log_->ReadCommitsFrom(version));
    for (const auto& w : winners)
      SPATE_RETURN_IF_ERROR(CheckConflicts(w, body, snapshot_isolation, blind));
    version = winners.empty() ? version : winners.back().version + 1;
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  return Status::Error("DELTA_MAX_COMMIT_RETRIES_EXCEEDED",
                       {{"numAttempts", std::to_string(max_attempts_)},
                        {"startVersion", std::to_string(read_version() + 1)},
                        {"failVersion", std::to_string(version)},
                        {"numActions", std::to_string(body.size())},
                        {"timeSpent", std::to_string(ms)}});
}

}  // namespace spate::table
