// Copyright spate authors.
//
// The RocksDB provider (Spark's RocksDBStateStoreProvider with changelog checkpointing).
// A RocksDB instance lives in a private local working folder (a fresh temp folder per
// provider, deleted on Close; nothing in it is needed after a crash). A store writes its
// changes into the DB directly (WAL off) and into a changelog buffer, as Spark's
// provider; Commit writes the buffer durably as <version>.changelog in the store folder,
// and Abort drops the local DB so the next GetStore reloads the version. DoMaintenance
// flushes, takes a RocksDB checkpoint (hard links of the SST files), copies the SST files
// not copied before into SSTs/ (shared by the checkpoints) and writes
// <version>.checkpoint (the small files and the list of SSTs), so a restart loads the
// newest checkpoint at or before the version and replays the changelogs after it.

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_buffer_manager.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>

#include "spate/base/text_parse.h"
#include "spate/state/providers.h"
#include "spate/state/state_file.h"

namespace spate::state {

namespace {

namespace fsys = std::filesystem;

constexpr std::string_view kChangelog = "changelog";
constexpr std::string_view kCheckpoint = "checkpoint";

using Clock = std::chrono::steady_clock;
int64_t NanosSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
}

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  return Status::IOError("RocksDB " + std::string(what) + ": " + s.ToString());
}

// Numeric spark.sql.streaming.stateStore.rocksdb.* settings; CheckSettings validates
// them.
constexpr std::string_view kIntSettings[] = {
    "maxOpenFiles",  "writeBufferSizeMB", "maxWriteBufferNumber", "blockSizeKB",
    "formatVersion", "maxMemoryUsageMB",  "blockCacheSizeMB"};

Status CheckSettings(const StateStoreConf& conf) {
  auto bad = [](std::string_view name, const std::string& value, std::string_view want) {
    return Status::Invalid("invalid value '" + value +
                           "' for spark.sql.streaming.stateStore.rocksdb." +
                           std::string(name) + ": expected " + std::string(want));
  };
  for (std::string_view name : kIntSettings) {
    auto it = conf.extra.find(std::string(name));
    if (it == conf.extra.end()) continue;
    auto v = ParseInt64(it->second);
    // maxOpenFiles may be -1 (no limit); every other setting is a positive size.
    if (!v || *v < (name == "maxOpenFiles" ? -1 : 1)) {
      return bad(name, it->second, "an integer");
    }
  }
  if (auto it = conf.extra.find("writeBufferCacheRatio"); it != conf.extra.end()) {
    char* end = nullptr;
    double r = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str() || *end != '\0' || !(r > 0 && r <= 1)) {
      return bad("writeBufferCacheRatio", it->second, "a ratio in (0, 1]");
    }
  }
  return Status::OK();
}

/// A setting checked by CheckSettings, or its default.
int64_t ExtraInt(const StateStoreConf& conf, const std::string& name, int64_t dflt) {
  auto it = conf.extra.find(name);
  if (it == conf.extra.end()) return dflt;
  return ParseInt64(it->second).value_or(dflt);
}

bool ExtraBool(const StateStoreConf& conf, const std::string& name, bool dflt) {
  auto it = conf.extra.find(name);
  if (it == conf.extra.end()) return dflt;
  return ToLower(it->second) == "true";
}

/// The process-wide cache and write buffer manager of boundedMemoryUsage (Spark's
/// RocksDBMemoryManager): every bounded instance shares one limit.
struct SharedMemory {
  std::shared_ptr<rocksdb::Cache> cache;
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers;
};
const SharedMemory& BoundedMemory(int64_t total_mb, double write_buffer_ratio) {
  static std::once_flag once;
  static SharedMemory shared;
  std::call_once(once, [&] {
    auto bytes = static_cast<size_t>(total_mb) << 20;
    shared.cache = rocksdb::NewLRUCache(bytes, -1, /*strict_capacity_limit=*/false);
    shared.write_buffers = std::make_shared<rocksdb::WriteBufferManager>(
        static_cast<size_t>(static_cast<double>(bytes) * write_buffer_ratio),
        shared.cache);
  });
  return shared;
}

class RocksDbProvider final : public StateStoreProvider {
 public:
  RocksDbProvider(const StateStoreId& id, const StateStoreConf& conf,
                  io::FileSystemPtr fs, FileCodec codec)
      : conf_(conf), fs_(std::move(fs)), codec_(codec), dir_(id.Path()), store_(this) {
    owner_ = "RocksDBStateStoreProvider[id = (op=" + std::to_string(id.operator_id) +
             ",part=" + std::to_string(id.partition) + "),dir = " + dir_ + "]";
    write_options_.disableWAL = true;
    options_.create_if_missing = true;
    options_.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
    options_.keep_log_file_num = 1;
    options_.max_open_files = static_cast<int>(ExtraInt(conf, "maxOpenFiles", -1));
    options_.write_buffer_size =
        static_cast<size_t>(ExtraInt(conf, "writeBufferSizeMB", 16)) << 20;
    // A bloom filter over the memtable's keys: the existence check before a put of a new
    // key skips the skiplist search.
    options_.memtable_whole_key_filtering = true;
    options_.memtable_prefix_bloom_size_ratio = 0.05;
    options_.max_write_buffer_number =
        static_cast<int>(ExtraInt(conf, "maxWriteBufferNumber", 3));
    rocksdb::BlockBasedTableOptions table;
    table.block_size = static_cast<size_t>(ExtraInt(conf, "blockSizeKB", 4)) << 10;
    table.format_version = static_cast<uint32_t>(ExtraInt(conf, "formatVersion", 5));
    // As Spark: a bloom filter, so the existence check of a new key rarely reads a block.
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    bounded_ = ExtraBool(conf, "boundedMemoryUsage", false);
    track_rows_ = ExtraBool(conf, "trackTotalNumberOfRows", true);
    changelog_checkpointing_ = ExtraBool(conf, "changelogCheckpointing.enabled", true);
    if (bounded_) {
      double ratio = 0.5;
      if (auto it = conf.extra.find("writeBufferCacheRatio"); it != conf.extra.end()) {
        ratio = std::strtod(it->second.c_str(), nullptr);
      }
      const SharedMemory& shared =
          BoundedMemory(ExtraInt(conf, "maxMemoryUsageMB", 500), ratio);
      table.block_cache = shared.cache;
      table.cache_index_and_filter_blocks = true;
      options_.write_buffer_manager = shared.write_buffers;
    } else {
      table.block_cache = rocksdb::NewLRUCache(
          static_cast<size_t>(ExtraInt(conf, "blockCacheSizeMB", 8)) << 20);
    }
    cache_ = table.block_cache;
    options_.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  }

  ~RocksDbProvider() override { CloseLocked(); }

  Status Init() {
    std::string base;
    if (auto it = conf_.extra.find("localDir"); it != conf_.extra.end()) {
      base = it->second;
    } else {
      std::error_code ec;
      base = fsys::temp_directory_path(ec).string();
      if (ec) base = "/tmp";
    }
    {
      std::error_code ec;  // a missing localDir is created (mkdtemp below reports errors)
      fsys::create_directories(base, ec);
    }
    RemoveFoldersOfDeadProcesses(base);
    std::string prefix = "spate-rocksdb-" + std::to_string(getpid()) + "-";
    std::string templ = (fsys::path(base) / (prefix + "XXXXXX")).string();
    if (mkdtemp(templ.data()) == nullptr) {
      return Status::IOError("cannot create the RocksDB working folder " + templ);
    }
    work_dir_ = templ;
    return Status::OK();
  }

  /// Working folders are named spate-rocksdb-<pid>-XXXXXX; a process killed with -9
  /// leaves its folders behind, and the next provider in the same base folder removes
  /// them.
  static void RemoveFoldersOfDeadProcesses(const std::string& base) {
    std::error_code ec;
    for (const auto& entry : fsys::directory_iterator(base, ec)) {
      std::string name = entry.path().filename().string();
      constexpr std::string_view kPrefix = "spate-rocksdb-";
      if (name.rfind(kPrefix, 0) != 0) continue;
      size_t dash = name.find('-', kPrefix.size());
      if (dash == std::string::npos) continue;
      std::optional<int32_t> pid = ParseInt32(
          std::string_view(name).substr(kPrefix.size(), dash - kPrefix.size()));
      if (!pid || *pid <= 0) continue;
      if (kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH) {
        std::error_code ignored;
        fsys::remove_all(entry.path(), ignored);
      }
    }
  }

  Result<StateStore*> GetStore(int64_t version) override {
    return OpenStore(version, std::nullopt);
  }
  Result<StateStore*> GetStoreFromSnapshot(int64_t snapshot_version,
                                           int64_t version) override {
    return OpenStore(version, snapshot_version);
  }

  /// GetStore; with `base`, a full load from the checkpoint of that version.
  Result<StateStore*> OpenStore(int64_t version, std::optional<int64_t> base) {
    std::lock_guard lock(mu_);
    SPATE_RETURN_IF_ERROR(CheckVersion(version));
    if (store_.uncommitted()) AbortLocked();
    if (base) CloseDb();
    auto start = Clock::now();
    if (!(db_ && loaded_version_ == version)) {
      Status st = Load(version, base);
      if (!st.ok()) {
        CloseDb();
        return st;
      }
    }
    load_nanos_ = NanosSince(start);
    store_.Open(version);
    pending_keys_ = num_keys_;
    return static_cast<StateStore*>(&store_);
  }

  Status DoMaintenance() override {
    std::lock_guard lock(mu_);
    // A store open on another thread may be writing: then only purge.
    bool committed = db_ && !store_.uncommitted();
    size_t before = files_ ? files_->Of(kCheckpoint).size() : 0;
    bool first = !files_;
    bool wrote = false;
    SPATE_RETURN_IF_ERROR(MaintainStoreFiles(
        *fs_, dir_, &files_, kCheckpoint, kChangelog, committed ? loaded_version_ : -1,
        conf_.min_deltas_for_snapshot, conf_.min_versions_to_retain, [&] {
          wrote = true;
          return WriteCheckpoint();
        }));
    // Shared SST files lose references only when checkpoints go (and, after a crash or a
    // replay, files of dropped checkpoints are left): collect them then.
    if (first || files_->Of(kCheckpoint).size() < before + (wrote ? 1 : 0)) {
      return DeleteUnreferencedSsts();
    }
    return Status::OK();
  }

  void Close() override {
    std::lock_guard lock(mu_);
    CloseLocked();
  }

  // --- ProviderStore<RocksDbProvider> (same thread as GetStore) ---

  std::optional<std::string_view> Get(std::string_view key) {
    auto start = Clock::now();
    value_.Reset();
    rocksdb::Status s = db_->Get(read_options_, db_->DefaultColumnFamily(),
                                 rocksdb::Slice(key.data(), key.size()), &value_);
    get_nanos_ += NanosSince(start);
    ++get_count_;
    if (!s.ok()) return std::nullopt;
    return std::string_view(value_.data(), value_.size());
  }

  bool Exists(std::string_view key) {
    scratch_.Reset();
    return db_
        ->Get(read_options_, db_->DefaultColumnFamily(),
              rocksdb::Slice(key.data(), key.size()), &scratch_)
        .ok();
  }

  void Put(std::string_view key, std::string_view value) {
    auto start = Clock::now();
    if (track_rows_ && !Exists(key)) ++pending_keys_;
    Written(db_->Put(write_options_, rocksdb::Slice(key.data(), key.size()),
                     rocksdb::Slice(value.data(), value.size())));
    AppendPutRecord(&changes_, key, value);
    put_nanos_ += NanosSince(start);
    ++put_count_;
  }

  void Remove(std::string_view key) {
    if (track_rows_) {
      if (!Exists(key)) return;
      --pending_keys_;
    }
    Written(db_->Delete(write_options_, rocksdb::Slice(key.data(), key.size())));
    AppendRemoveRecord(&changes_, key);
  }

  void ForEach(const std::function<void(std::string_view, std::string_view)>& fn) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options_));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      fn({it->key().data(), it->key().size()}, {it->value().data(), it->value().size()});
    }
  }

  Status CommitStore() {
    std::lock_guard lock(mu_);
    auto start = Clock::now();
    Status st = write_error_;
    int64_t next = store_.version() + 1;
    if (st.ok()) st = fs_->MakeDirs(dir_);
    if (st.ok()) {
      st = fs_->WriteAtomic(VersionFile(dir_, next, kChangelog),
                            EncodeStateFile(StateFileKind::kChangelog, codec_, changes_,
                                            static_cast<uint64_t>(pending_keys_)));
    }
    if (st.ok()) {
      // A checkpoint of this version from an earlier, uncommitted run of the batch is
      // stale.
      Status del = fs_->Delete(VersionFile(dir_, next, kCheckpoint));
      if (!del.ok() && del.code() != StatusCode::kNotFound) st = del;
    }
    commit_file_sync_nanos_ = NanosSince(start);
    if (!st.ok()) {
      AbortLocked();
      return Status::Error("CANNOT_WRITE_STATE_STORE.CANNOT_COMMIT",
                           {{"providerClass", "RocksDBStateStoreProvider"}})
          .WithContext(st.ToString());
    }
    ClearChanges();
    num_keys_ = pending_keys_;
    loaded_version_ = next;
    store_.Committed();
    if (files_) {
      files_->Add(kChangelog, next, VersionFile(dir_, next, kChangelog));
      files_->Erase(kCheckpoint, next);
    }
    // Without changelog checkpointing (Spark's default), every version is a checkpoint.
    // The changelog already holds the version; a failed checkpoint only costs replay
    // time.
    if (!changelog_checkpointing_) (void)WriteCheckpoint();
    return Status::OK();
  }

  /// Writes go to the DB directly (as Spark's provider): undoing them means reloading the
  /// loaded version, which the next GetStore does.
  void AbortLocked() {
    if (!changes_.empty() || !write_error_.ok()) CloseDb();
    ClearChanges();
    pending_keys_ = num_keys_;
    store_.Closed();
  }
  void AbortStore() {
    std::lock_guard lock(mu_);
    AbortLocked();
  }

  void Written(const rocksdb::Status& s) {
    if (!s.ok() && write_error_.ok()) write_error_ = FromRocks(s, "write");
  }
  void ClearChanges() {
    if (changes_.capacity() > (size_t{1} << 20)) {
      std::string().swap(changes_);
    } else {
      changes_.clear();
    }
    write_error_ = Status::OK();
  }

  int64_t Property(const char* name) const {
    uint64_t v = 0;
    if (db_ && db_->GetIntProperty(name, &v)) return static_cast<int64_t>(v);
    return 0;
  }

  StateStoreMetrics Metrics() const {
    StateStoreMetrics m;
    m.num_keys = store_.uncommitted() ? pending_keys_ : num_keys_;
    int64_t mem = Property("rocksdb.cur-size-all-mem-tables") +
                  Property("rocksdb.estimate-table-readers-mem") +
                  static_cast<int64_t>(changes_.capacity());
    if (!bounded_ && cache_) mem += static_cast<int64_t>(cache_->GetUsage());
    m.memory_used_bytes = mem;
    auto ms = [](int64_t nanos) { return nanos / 1000000; };
    m.custom["rocksdbCommitWriteBatchLatency"] = 0;  // writes are not batched
    m.custom["rocksdbCommitFileSyncLatencyMs"] = ms(commit_file_sync_nanos_);
    m.custom["rocksdbCommitFlushLatency"] = ms(flush_nanos_);
    m.custom["rocksdbCommitCheckpointLatency"] = ms(checkpoint_nanos_);
    m.custom["rocksdbCommitCompactLatency"] = 0;
    m.custom["rocksdbCommitPauseLatency"] = 0;
    m.custom["rocksdbGetLatency"] = ms(get_nanos_);
    m.custom["rocksdbPutLatency"] = ms(put_nanos_);
    m.custom["rocksdbGetCount"] = get_count_;
    m.custom["rocksdbPutCount"] = put_count_;
    m.custom["rocksdbLoadLatency"] = ms(load_nanos_);
    m.custom["rocksdbSstFileSize"] = Property("rocksdb.total-sst-files-size");
    m.custom["rocksdbPinnedBlocksMemoryUsage"] =
        cache_ ? static_cast<int64_t>(cache_->GetPinnedUsage()) : 0;
    m.custom["rocksdbFilesCopied"] = files_copied_;
    m.custom["rocksdbBytesCopied"] = bytes_copied_;
    m.custom["rocksdbFilesReused"] = files_reused_;
    m.custom["rocksdbZipFileBytesUncompressed"] = archive_bytes_;
    m.custom["rocksdbNumInternalColFamiliesKeys"] = 0;
    return m;
  }

 private:
  void CloseDb() {
    db_.reset();
    loaded_version_ = -1;
  }

  void CloseLocked() {
    ClearChanges();
    store_.Closed();
    CloseDb();
    if (!work_dir_.empty()) {
      std::error_code ec;
      fsys::remove_all(work_dir_, ec);
      work_dir_.clear();
    }
  }

  std::string DbDir() const { return (fsys::path(work_dir_) / "db").string(); }

  Status OpenDb() {
    rocksdb::DB* db = nullptr;
    SPATE_RETURN_IF_ERROR(FromRocks(rocksdb::DB::Open(options_, DbDir(), &db), "open"));
    db_.reset(db);
    return Status::OK();
  }

  /// Replays changelog `v` into the local DB.
  Status ApplyChangelog(int64_t v) {
    std::string path = VersionFile(dir_, v, kChangelog);
    SPATE_ASSIGN_OR_RETURN(DecodedStateFile file,
                           ReadStateFile(*fs_, path, StateFileKind::kChangelog, owner_));
    rocksdb::WriteBatch wb;
    SPATE_RETURN_IF_ERROR(
        ForEachRecord(file.records, StateFileKind::kChangelog, path, owner_,
                      [&](RecordOp op, std::string_view k, std::string_view val) {
                        if (op == RecordOp::kPut) {
                          wb.Put(rocksdb::Slice(k.data(), k.size()),
                                 rocksdb::Slice(val.data(), val.size()));
                        } else {
                          wb.Delete(rocksdb::Slice(k.data(), k.size()));
                        }
                      }));
    SPATE_RETURN_IF_ERROR(FromRocks(db_->Write(write_options_, &wb), "write"));
    num_keys_ = static_cast<int64_t>(file.aux);
    return Status::OK();
  }

  /// Restores checkpoint `path` into a fresh DbDir(): the small files are in the
  /// checkpoint file itself, the SST files are copied from SSTs/ and checked (size, CRC).
  Status RestoreCheckpoint(const std::string& path) {
    SPATE_ASSIGN_OR_RETURN(DecodedStateFile file,
                           ReadStateFile(*fs_, path, StateFileKind::kCheckpoint, owner_));
    auto bad = [&](std::string_view what) {
      return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
          .WithContext("Error reading checkpoint file " + path + " of " + owner_ + ": " +
                       std::string(what));
    };
    Status error;
    SPATE_RETURN_IF_ERROR(ForEachRecord(
        file.records, StateFileKind::kCheckpoint, path, owner_,
        [&](RecordOp, std::string_view member, std::string_view value) {
          if (!error.ok()) return;
          std::optional<CheckpointMember> m = ParseMember(member, value);
          if (!m) {
            error = bad("bad member " + std::string(member.substr(0, 64)));
            return;
          }
          std::string local = (fsys::path(DbDir()) / m->name).string();
          if (m->shared.empty()) {
            std::ofstream out(local, std::ios::binary);
            out.write(value.data(), static_cast<std::streamsize>(value.size()));
            if (!out) error = Status::IOError("cannot write " + local);
          } else {
            error = CopyIn(SstPath(m->shared), local, m->size, m->crc);
          }
        }));
    SPATE_RETURN_IF_ERROR(error);
    num_keys_ = static_cast<int64_t>(file.aux);
    return Status::OK();
  }

  /// Makes the DB hold `version` (from the checkpoint of version `base` when given).
  Status Load(int64_t version, std::optional<int64_t> base = std::nullopt) {
    ClearChanges();
    int64_t from = db_ ? loaded_version_ : -1;
    if (from < 0 || from > version) {
      CloseDb();
      std::error_code ec;
      fsys::remove_all(DbDir(), ec);
      fsys::create_directories(DbDir(), ec);
      if (ec) return Status::IOError("cannot create " + DbDir() + ": " + ec.message());
      num_keys_ = 0;
      from = 0;
      if (version > 0) {
        SPATE_ASSIGN_OR_RETURN(StoreFiles files, ListStoreFiles(*fs_, dir_));
        files_ = files;
        const auto& checkpoints = files.Of(kCheckpoint);
        if (base) {
          auto it = checkpoints.find(*base);
          if (it == checkpoints.end()) {
            return MissingStateFile(StateFileKind::kCheckpoint,
                                    VersionFile(dir_, *base, kCheckpoint), owner_);
          }
          SPATE_RETURN_IF_ERROR(RestoreCheckpoint(it->second));
          from = *base;
        } else if (auto it = checkpoints.upper_bound(version);
                   it != checkpoints.begin()) {
          --it;
          SPATE_RETURN_IF_ERROR(RestoreCheckpoint(it->second));
          from = it->first;
        }
      }
      SPATE_RETURN_IF_ERROR(OpenDb());
    }
    for (int64_t v = from + 1; v <= version; ++v)
      SPATE_RETURN_IF_ERROR(ApplyChangelog(v));
    loaded_version_ = version;
    return Status::OK();
  }

  /// Flushes, takes a RocksDB checkpoint and writes <version>.checkpoint: SST files are
  /// immutable, so each is copied once into SSTs/ under a name with its size and CRC and
  /// shared by later checkpoints; the other (small) files go into the checkpoint file.
  Status WriteCheckpoint() {
    auto start = Clock::now();
    rocksdb::FlushOptions flush;
    flush.wait = true;
    SPATE_RETURN_IF_ERROR(FromRocks(db_->Flush(flush), "flush"));
    flush_nanos_ = NanosSince(start);
    auto cp_start = Clock::now();
    rocksdb::Checkpoint* raw = nullptr;
    SPATE_RETURN_IF_ERROR(
        FromRocks(rocksdb::Checkpoint::Create(db_.get(), &raw), "checkpoint"));
    std::unique_ptr<rocksdb::Checkpoint> cp(raw);
    std::string cp_dir = (fsys::path(work_dir_) / "checkpoint").string();
    std::error_code ec;
    fsys::remove_all(cp_dir, ec);
    SPATE_RETURN_IF_ERROR(FromRocks(cp->CreateCheckpoint(cp_dir, 0), "checkpoint"));
    SPATE_RETURN_IF_ERROR(ListSsts());
    std::string records;
    int64_t copied = 0, copied_bytes = 0, reused = 0;
    for (const auto& entry : fsys::directory_iterator(cp_dir, ec)) {
      if (!entry.is_regular_file()) continue;
      std::string name = entry.path().filename().string();
      if (entry.path().extension() != ".sst") {
        std::ifstream in(entry.path(), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
        if (in.bad()) return Status::IOError("cannot read " + entry.path().string());
        AppendPutRecord(&records, "file:" + name, bytes);
        continue;
      }
      uint32_t crc = 0;
      int64_t size = 0;
      SPATE_RETURN_IF_ERROR(LocalCrc(entry.path().string(), &crc, &size));
      std::string shared = entry.path().stem().string() + "-" + std::to_string(size) +
                           "-" + std::to_string(crc) + ".sst";
      if (ssts_->count(shared)) {
        ++reused;
      } else {
        SPATE_RETURN_IF_ERROR(CopyOut(entry.path().string(), SstPath(shared)));
        ssts_->insert(shared);
        ++copied;
        copied_bytes += size;
      }
      AppendPutRecord(&records, "sst:" + name,
                      std::to_string(size) + " " + std::to_string(crc) + " " + shared);
    }
    fsys::remove_all(cp_dir, ec);
    if (copied > 0) {
      // The FileSystem fsyncs a folder in WriteAtomic only: a marker makes the new SST
      // names durable before a checkpoint refers to them.
      SPATE_RETURN_IF_ERROR(fs_->WriteAtomic(io::JoinPath(SstDir(), "_synced"),
                                             std::to_string(loaded_version_)));
    }
    SPATE_RETURN_IF_ERROR(
        fs_->WriteAtomic(VersionFile(dir_, loaded_version_, kCheckpoint),
                         EncodeStateFile(StateFileKind::kCheckpoint, FileCodec::kNone,
                                         records, static_cast<uint64_t>(num_keys_))));
    if (files_) {
      files_->Add(kCheckpoint, loaded_version_,
                  VersionFile(dir_, loaded_version_, kCheckpoint));
    }
    checkpoint_nanos_ = NanosSince(cp_start);
    files_copied_ = copied;
    bytes_copied_ = copied_bytes;
    files_reused_ = reused;
    archive_bytes_ = static_cast<int64_t>(records.size());
    return Status::OK();
  }

  // --- shared SST files ---

  struct CheckpointMember {
    std::string name;    // file name in the RocksDB folder
    std::string shared;  // SST: its name in SSTs/ (empty: the bytes are inline)
    int64_t size = 0;
    uint32_t crc = 0;
  };
  /// A record of a checkpoint file: "file:<name>" -> bytes, or "sst:<name>" ->
  /// "<size> <crc> <shared name>".
  static std::optional<CheckpointMember> ParseMember(std::string_view key,
                                                     std::string_view value) {
    CheckpointMember m;
    bool sst = key.rfind("sst:", 0) == 0;
    if (!sst && key.rfind("file:", 0) != 0) return std::nullopt;
    m.name = std::string(key.substr(sst ? 4 : 5));
    if (!SafeName(m.name)) return std::nullopt;
    if (!sst) return m;
    size_t a = value.find(' ');
    size_t b = a == std::string_view::npos ? a : value.find(' ', a + 1);
    if (b == std::string_view::npos) return std::nullopt;
    auto size = ParseInt64(value.substr(0, a));
    auto crc = ParseInt64(value.substr(a + 1, b - a - 1));
    m.shared = std::string(value.substr(b + 1));
    if (!size || !crc || *size < 0 || *crc < 0 || *crc > UINT32_MAX ||
        !SafeName(m.shared)) {
      return std::nullopt;
    }
    m.size = *size;
    m.crc = static_cast<uint32_t>(*crc);
    return m;
  }
  static bool SafeName(std::string_view n) {
    return !n.empty() && n != "." && n != ".." && n.find('/') == std::string_view::npos;
  }

  std::string SstDir() const { return io::JoinPath(dir_, "SSTs"); }
  std::string SstPath(const std::string& shared) const {
    return io::JoinPath(SstDir(), shared);
  }

  /// The names in SSTs/, listed once.
  Status ListSsts() {
    if (ssts_) return Status::OK();
    ssts_.emplace();
    auto entries = fs_->List(SstDir(), false);
    if (!entries.ok()) {
      if (entries.status().code() == StatusCode::kNotFound) return Status::OK();
      ssts_.reset();
      return entries.status();
    }
    for (const io::FileInfo& f : *entries) {
      std::string name = io::BaseName(f.path);
      if (f.is_directory) continue;
      std::string ext = fsys::path(name).extension().string();
      if (ext == ".sst") ssts_->insert(name);
      if (ext == ".tmp") stale_tmps_.push_back(f.path);  // a copy a crash interrupted
    }
    return Status::OK();
  }

  /// Deletes the SST files no retained checkpoint refers to.
  Status DeleteUnreferencedSsts() {
    SPATE_RETURN_IF_ERROR(ListSsts());
    std::set<std::string> referenced;
    for (const auto& [v, path] : files_->Of(kCheckpoint)) {
      auto file = ReadStateFile(*fs_, path, StateFileKind::kCheckpoint, owner_);
      if (!file.ok()) return Status::OK();  // keep everything rather than guess
      Status st = ForEachRecord(file->records, StateFileKind::kCheckpoint, path, owner_,
                                [&](RecordOp, std::string_view k, std::string_view val) {
                                  auto m = ParseMember(k, val);
                                  if (m && !m->shared.empty())
                                    referenced.insert(m->shared);
                                });
      if (!st.ok()) return Status::OK();
    }
    for (const std::string& tmp : stale_tmps_) (void)fs_->Delete(tmp);
    stale_tmps_.clear();
    for (auto it = ssts_->begin(); it != ssts_->end();) {
      if (referenced.count(*it)) {
        ++it;
        continue;
      }
      Status st = fs_->Delete(SstPath(*it));
      if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
      it = ssts_->erase(it);
    }
    return Status::OK();
  }

  static constexpr size_t kCopyChunk = size_t{1} << 20;

  static Status LocalCrc(const std::string& path, uint32_t* crc, int64_t* size) {
    std::ifstream in(path, std::ios::binary);
    std::string buf(kCopyChunk, '\0');
    uLong c = crc32(0L, Z_NULL, 0);
    *size = 0;
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      std::streamsize got = in.gcount();
      if (got <= 0) break;
      c = crc32(c, reinterpret_cast<const Bytef*>(buf.data()), static_cast<uInt>(got));
      *size += got;
    }
    if (in.bad()) return Status::IOError("cannot read " + path);
    *crc = static_cast<uint32_t>(c);
    return Status::OK();
  }

  /// Copies a local file to `dest` on the FileSystem (temp file, fsync, rename).
  Status CopyOut(const std::string& local, const std::string& dest) {
    SPATE_RETURN_IF_ERROR(fs_->MakeDirs(SstDir()));
    std::string tmp = dest + ".tmp";
    SPATE_ASSIGN_OR_RETURN(auto out, fs_->Create(tmp));
    std::ifstream in(local, std::ios::binary);
    std::string buf(kCopyChunk, '\0');
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      std::streamsize got = in.gcount();
      if (got <= 0) break;
      SPATE_RETURN_IF_ERROR(out->Append(std::string_view(buf.data(), got)));
    }
    if (in.bad()) return Status::IOError("cannot read " + local);
    SPATE_RETURN_IF_ERROR(out->Sync());
    SPATE_RETURN_IF_ERROR(out->Close());
    return fs_->Rename(tmp, dest);
  }

  /// Copies shared SST `src` to a local file, checking its size and CRC.
  Status CopyIn(const std::string& src, const std::string& local, int64_t size,
                uint32_t crc) {
    auto in = fs_->OpenForRead(src);
    if (!in.ok()) {
      if (in.status().code() == StatusCode::kNotFound) {
        return MissingStateFile(StateFileKind::kCheckpoint, src, owner_);
      }
      return in.status();
    }
    if ((*in)->Size() != size) {
      return Status::Error("CANNOT_LOAD_STATE_STORE.UNEXPECTED_FILE_SIZE",
                           {{"dfsFile", src},
                            {"localFile", local},
                            {"expectedSize", std::to_string(size)},
                            {"localFileSize", std::to_string((*in)->Size())}});
    }
    std::ofstream out(local, std::ios::binary);
    std::string buf;
    uLong c = crc32(0L, Z_NULL, 0);
    for (int64_t at = 0; at < size;) {
      int64_t n = std::min<int64_t>(static_cast<int64_t>(kCopyChunk), size - at);
      SPATE_RETURN_IF_ERROR((*in)->ReadAt(at, n, &buf));
      c = crc32(c, reinterpret_cast<const Bytef*>(buf.data()), static_cast<uInt>(n));
      out.write(buf.data(), static_cast<std::streamsize>(n));
      at += n;
    }
    if (!out) return Status::IOError("cannot write " + local);
    if (static_cast<uint32_t>(c) != crc) {
      return Status::Error("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED")
          .WithContext("Error reading SST file " + src + " of " + owner_ +
                       ": checksum mismatch");
    }
    return Status::OK();
  }

  StateStoreConf conf_;
  io::FileSystemPtr fs_;
  FileCodec codec_;
  std::string dir_;
  std::string owner_;
  std::string work_dir_;
  std::mutex mu_;
  rocksdb::Options options_;
  rocksdb::ReadOptions read_options_;
  rocksdb::WriteOptions write_options_;
  std::shared_ptr<rocksdb::Cache> cache_;
  bool bounded_ = false;
  bool track_rows_ = true;
  bool changelog_checkpointing_ = true;
  std::unique_ptr<rocksdb::DB> db_;
  std::optional<StoreFiles> files_;  // the store folder's files, once listed
  int64_t loaded_version_ = -1;
  int64_t num_keys_ = 0;
  int64_t pending_keys_ = 0;
  ProviderStore<RocksDbProvider> store_;
  std::string changes_;             // the open store's changes as changelog records
  Status write_error_;              // the first failed write of the open store
  rocksdb::PinnableSlice value_;    // the last Get's value
  rocksdb::PinnableSlice scratch_;  // existence checks
  int64_t get_nanos_ = 0, put_nanos_ = 0, get_count_ = 0, put_count_ = 0;
  int64_t load_nanos_ = 0, flush_nanos_ = 0, checkpoint_nanos_ = 0;
  int64_t commit_file_sync_nanos_ = 0;
  int64_t files_copied_ = 0, bytes_copied_ = 0, files_reused_ = 0, archive_bytes_ = 0;
  std::optional<std::set<std::string>> ssts_;  // names in SSTs/, once listed
  std::vector<std::string> stale_tmps_;        // temp files found in SSTs/
};

}  // namespace

Result<std::unique_ptr<StateStoreProvider>> MakeRocksDbProvider(
    const StateStoreId& id, const StateStoreConf& conf, io::FileSystemPtr fs) {
  SPATE_ASSIGN_OR_RETURN(FileCodec codec, ParseFileCodec(conf.compression_codec));
  SPATE_RETURN_IF_ERROR(CheckSettings(conf));
  auto p = std::make_unique<RocksDbProvider>(id, conf, std::move(fs), codec);
  SPATE_RETURN_IF_ERROR(p->Init());
  return std::unique_ptr<StateStoreProvider>(std::move(p));
}

}  // namespace spate::state
