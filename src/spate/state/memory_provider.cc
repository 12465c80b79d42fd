// Copyright spate authors.
//
// The memory provider (Spark's HDFSBackedStateStoreProvider design). One CompactMap holds
// the loaded version; a store writes into it directly and keeps an undo log (the entries
// it replaced, or the old bytes of a value overwritten in place), so Abort restores the
// loaded version and Commit writes only the changed keys. The map then is the committed
// version, so the next batch's GetStore(V+1) costs nothing. Any other version is loaded
// from files: the newest snapshot at or before it, then the deltas after the snapshot.

#include <mutex>

#include "spate/state/compact_map.h"
#include "spate/state/providers.h"
#include "spate/state/state_file.h"

namespace spate::state {

namespace {

constexpr std::string_view kDelta = "delta";
constexpr std::string_view kSnapshot = "snapshot";

class MemoryProvider final : public StateStoreProvider {
 public:
  MemoryProvider(const StateStoreId& id, const StateStoreConf& conf, io::FileSystemPtr fs,
                 FileCodec codec)
      : id_(id),
        conf_(conf),
        fs_(std::move(fs)),
        codec_(codec),
        dir_(id.Path()),
        store_(this) {
    owner_ = "HDFSStateStoreProvider[id = (op=" + std::to_string(id.operator_id) +
             ",part=" + std::to_string(id.partition) + "),dir = " + dir_ + "]";
  }

  Result<StateStore*> GetStore(int64_t version) override {
    std::lock_guard lock(mu_);
    SPATE_RETURN_IF_ERROR(CheckVersion(version));
    if (store_.uncommitted()) AbortLocked();
    if (loaded_version_ == version) {
      ++cache_hits_;
    } else if (prev_valid_ && version == loaded_version_ - 1) {
      // A replayed batch: undo the last commit in memory.
      ++cache_hits_;
      prev_undo_.UndoInto(map_);
      DropPrevious();
      loaded_version_ = version;
    } else {
      ++cache_misses_;
      SPATE_RETURN_IF_ERROR(Load(version));
    }
    store_.Open(version);
    return static_cast<StateStore*>(&store_);
  }

  Result<StateStore*> GetStoreFromSnapshot(int64_t snapshot_version,
                                           int64_t version) override {
    std::lock_guard lock(mu_);
    SPATE_RETURN_IF_ERROR(CheckVersion(version));
    if (store_.uncommitted()) AbortLocked();
    ++cache_misses_;
    loaded_version_ = -1;  // a full load from the named snapshot
    SPATE_RETURN_IF_ERROR(Load(version, snapshot_version));
    store_.Open(version);
    return static_cast<StateStore*>(&store_);
  }

  Status DoMaintenance() override {
    std::lock_guard lock(mu_);
    // A store open on another thread may be writing: then only purge.
    bool committed = !store_.uncommitted();
    return MaintainStoreFiles(
        *fs_, dir_, &files_, kSnapshot, kDelta, committed ? loaded_version_ : -1,
        conf_.min_deltas_for_snapshot, conf_.min_versions_to_retain, [&] {
          std::string records;
          records.reserve(static_cast<size_t>(map_.live_bytes() + map_.size()));
          map_.ForEach([&](std::string_view k, std::string_view v) {
            AppendPutRecord(&records, k, v);
          });
          return fs_->WriteAtomic(
              VersionFile(dir_, loaded_version_, kSnapshot),
              EncodeStateFile(StateFileKind::kSnapshot, codec_, records));
        });
  }

  void Close() override {
    std::lock_guard lock(mu_);
    map_.Clear();
    loaded_version_ = -1;
    store_.Closed();
    ClearUndo();
    DropPrevious();
  }

  // --- ProviderStore<MemoryProvider> (same thread as GetStore) ---

  std::optional<std::string_view> Get(std::string_view key) const {
    return map_.Get(key);
  }
  void Prefetch(std::string_view key, bool near) const { map_.Prefetch(key, near); }
  std::optional<std::string_view> GetHashed(std::string_view key, uint64_t hash) const {
    return map_.Get(key, hash);
  }
  void PrefetchHashed(std::string_view key, uint64_t hash, bool near) const {
    map_.Prefetch(key, hash, near);
  }
  void Put(std::string_view key, std::string_view value) {
    CompactMap::Entry now;
    auto at = static_cast<int64_t>(undo_.values.size());
    CompactMap::Entry old = map_.Put(key, value, &now, &undo_.values);
    if (old == nullptr) undo_.last_insert = static_cast<int64_t>(undo_.records.size());
    undo_.records.push_back({now, old, old == now ? at : -1});
  }
  void Remove(std::string_view key) {
    CompactMap::Entry old = map_.Remove(key);
    if (old) undo_.records.push_back({old, old, -1});
  }
  void ForEach(const std::function<void(std::string_view, std::string_view)>& fn) const {
    map_.ForEach(fn);
  }
  void RewriteEach(const RewriteFn& fn) {
    map_.RewriteEach(
        [&](std::string_view k, std::string_view v, std::string* replacement) {
          switch (fn(k, v, replacement)) {
            case EntryRewrite::kKeep:
              return CompactMap::Rewrite::kKeep;
            case EntryRewrite::kRemove:
              return CompactMap::Rewrite::kRemove;
            case EntryRewrite::kReplace:
              break;
          }
          return CompactMap::Rewrite::kReplace;
        },
        [&](CompactMap::Entry now, CompactMap::Entry old) {
          undo_.records.push_back({now, old, -1});
        });
  }

  Status CommitStore() {
    std::lock_guard lock(mu_);
    // The changed keys without a set: a key present now is written by the undo records
    // of Puts into its current entry (entries never move while the undo log exists; a
    // live one is current), a key absent now by its Remove records (absent for sure when
    // no Put inserted a key after the Remove; else looked up). A key changed several
    // times may be written more than once, always with its final value, which replays
    // the same.
    std::string records;
    const auto& undo = undo_.records;
    constexpr size_t kEntryAhead = 16;  // fetched this many records ahead
    for (size_t i = 0; i < undo.size(); ++i) {
      if (i + kEntryAhead < undo.size()) __builtin_prefetch(undo[i + kEntryAhead].key);
      const Undo& u = undo[i];
      std::string_view key = CompactMap::KeyOf(u.key);
      const bool removal = u.key == u.old && u.saved < 0;
      if (!removal) {
        if (CompactMap::IsLive(u.key))
          AppendPutRecord(&records, key, CompactMap::ValueOf(u.key));
      } else if (static_cast<int64_t>(i) > undo_.last_insert ||
                 map_.Find(key) == nullptr) {
        AppendRemoveRecord(&records, key);
      }
    }
    int64_t next = store_.version() + 1;
    Status st = fs_->MakeDirs(dir_);
    std::string path = VersionFile(dir_, next, kDelta);
    if (st.ok()) {
      st =
          fs_->WriteAtomic(path, EncodeStateFile(StateFileKind::kDelta, codec_, records));
    }
    if (st.ok()) {
      // A snapshot of this version from an earlier, uncommitted run of the batch is
      // stale.
      Status del = fs_->Delete(VersionFile(dir_, next, kSnapshot));
      if (!del.ok() && del.code() != StatusCode::kNotFound) st = del;
    }
    if (!st.ok()) {
      AbortLocked();
      return Status::Error("CANNOT_WRITE_STATE_STORE.CANNOT_COMMIT",
                           {{"providerClass", "HDFSBackedStateStoreProvider"}})
          .WithContext(st.ToString());
    }
    last_commit_bytes_ = static_cast<int64_t>(records.size());
    // Keep the undo log: it turns the map back into the loaded version if the batch is
    // replayed (GetStore(version) after this commit), unless compaction moved entries or
    // the log is large (over 1/16 of the map's memory; a larger replay reloads from the
    // files).
    std::swap(prev_undo_, undo_);
    ClearUndo();
    prev_valid_ = true;
    loaded_version_ = next;
    store_.Committed();
    if (files_) {
      files_->Add(kDelta, next, VersionFile(dir_, next, kDelta));
      files_->Erase(kSnapshot, next);
    }
    if (map_.MaybeCompact() || prev_undo_.memory_bytes() * 16 > map_.memory_bytes()) {
      DropPrevious();
    }
    return Status::OK();
  }

  void AbortLocked() {
    undo_.UndoInto(map_);
    ClearUndo();
    store_.Closed();
  }
  void AbortStore() {
    std::lock_guard lock(mu_);
    AbortLocked();
  }

  void DropPrevious() {
    prev_undo_.Release();
    prev_valid_ = false;
  }

  /// Empties the undo log, releasing it when a large batch grew it.
  void ClearUndo() {
    if (undo_.records.capacity() > 65536 || undo_.values.capacity() > (size_t{1} << 20)) {
      undo_.Release();
    } else {
      undo_.records.clear();
      undo_.values.clear();
      undo_.last_insert = -1;
    }
  }

  StateStoreMetrics Metrics() const {
    StateStoreMetrics m;
    m.num_keys = map_.size();
    m.memory_used_bytes =
        map_.memory_bytes() + undo_.memory_bytes() + prev_undo_.memory_bytes();
    m.custom["loadedMapCacheHitCount"] = cache_hits_;
    m.custom["loadedMapCacheMissCount"] = cache_misses_;
    m.custom["stateOnCurrentVersionSizeBytes"] = map_.live_bytes();
    m.custom["stateDeltaSizeBytes"] = last_commit_bytes_;
    return m;
  }

 private:
  Status ApplyFile(const std::string& path, StateFileKind kind) {
    SPATE_ASSIGN_OR_RETURN(DecodedStateFile file,
                           ReadStateFile(*fs_, path, kind, owner_));
    std::string scratch;  // in-place overwrites save the old value here; not needed
    return ForEachRecord(file.records, kind, path, owner_,
                         [&](RecordOp op, std::string_view k, std::string_view v) {
                           if (op == RecordOp::kPut) {
                             map_.Put(k, v, nullptr, &scratch);
                             scratch.clear();
                           } else {
                             map_.Remove(k);
                           }
                         });
  }

  /// Makes the map hold `version` (from the snapshot of version `base` when given).
  Status Load(int64_t version, std::optional<int64_t> base = std::nullopt) {
    ClearUndo();
    DropPrevious();
    if (version == 0) {
      map_.Clear();
      loaded_version_ = 0;
      return Status::OK();
    }
    // Forward from the loaded version when only deltas are needed.
    int64_t from = loaded_version_;
    if (from < 0 || from > version) {
      SPATE_ASSIGN_OR_RETURN(StoreFiles files, ListStoreFiles(*fs_, dir_));
      files_ = files;
      map_.Clear();
      loaded_version_ = -1;
      from = 0;
      const auto& snapshots = files.Of(kSnapshot);
      if (base) {
        auto it = snapshots.find(*base);
        if (it == snapshots.end()) {
          return MissingStateFile(StateFileKind::kSnapshot,
                                  VersionFile(dir_, *base, kSnapshot), owner_);
        }
        SPATE_RETURN_IF_ERROR(ApplyFile(it->second, StateFileKind::kSnapshot));
        from = *base;
      } else if (auto it = snapshots.upper_bound(version); it != snapshots.begin()) {
        --it;
        SPATE_RETURN_IF_ERROR(ApplyFile(it->second, StateFileKind::kSnapshot));
        from = it->first;
      }
    }
    for (int64_t v = from + 1; v <= version; ++v) {
      Status st = ApplyFile(VersionFile(dir_, v, kDelta), StateFileKind::kDelta);
      if (!st.ok()) {
        map_.Clear();
        loaded_version_ = -1;
        return st;
      }
    }
    map_.MaybeCompact();
    loaded_version_ = version;
    return Status::OK();
  }

  StateStoreId id_;
  StateStoreConf conf_;
  io::FileSystemPtr fs_;
  FileCodec codec_;
  std::string dir_;
  std::string owner_;
  std::mutex mu_;
  CompactMap map_;
  std::optional<StoreFiles> files_;  // the store folder's files, once listed
  int64_t loaded_version_ = -1;      // the version the map holds (committed); -1 = none
  ProviderStore<MemoryProvider> store_;
  struct Undo {
    CompactMap::Entry key;  // an entry of the key (stable until Compact)
    CompactMap::Entry old;  // the replaced entry, or nullptr when the key was absent;
                            // == key: a Remove (saved < 0) or an in-place Put
    int64_t saved;          // in-place Put: offset of the old value in UndoLog::values
  };
  struct UndoLog {
    std::vector<Undo> records;  // oldest first
    std::string values;         // old values of in-place Puts
    int64_t last_insert = -1;   // the last record of a Put of an absent key
    /// Restores the map to before these records.
    void UndoInto(CompactMap& map) const {
      for (auto it = records.rbegin(); it != records.rend(); ++it) {
        if (it->saved >= 0) {
          size_t n = CompactMap::ValueOf(it->key).size();
          CompactMap::OverwriteValue(it->key, std::string_view(values).substr(
                                                  static_cast<size_t>(it->saved), n));
        } else {
          map.Restore(CompactMap::KeyOf(it->key), it->old);
        }
      }
    }
    /// Empties the log and frees its memory.
    void Release() {
      std::vector<Undo>().swap(records);
      std::string().swap(values);
      last_insert = -1;
    }
    int64_t memory_bytes() const {
      return static_cast<int64_t>(records.capacity() * sizeof(Undo) + values.capacity());
    }
  };
  UndoLog undo_;  // the open store's changes
  // The undo log of the last commit (loaded_version_ - 1 -> loaded_version_), if valid.
  UndoLog prev_undo_;
  bool prev_valid_ = false;
  int64_t cache_hits_ = 0;
  int64_t cache_misses_ = 0;
  int64_t last_commit_bytes_ = 0;
};

}  // namespace

Result<std::unique_ptr<StateStoreProvider>> MakeMemoryProvider(const StateStoreId& id,
                                                               const StateStoreConf& conf,
                                                               io::FileSystemPtr fs) {
  SPATE_ASSIGN_OR_RETURN(FileCodec codec, ParseFileCodec(conf.compression_codec));
  return std::unique_ptr<StateStoreProvider>(
      std::make_unique<MemoryProvider>(id, conf, std::move(fs), codec));
}

}  // namespace spate::state
