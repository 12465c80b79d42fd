// Copyright spate authors.
#pragma once

// State stores: the versioned key-value stores that stateful streaming operators keep
// their state in (Spark's StateStore / StateStoreProvider), one per (operator, partition,
// store name) under <checkpoint>/state/<operatorId>/<partition>/[<storeName>/].
//
// Versions: version V is the state after batch V-1 (batch N loads version N and commits
// version N+1; version 0 is empty). A replayed batch N loads version N again, so a
// committed version N+1 that no commits/N covers is simply overwritten.
//
// Keys and values are opaque bytes; operators encode rows with state::RowCodec
// (row_codec.h). Providers: "memory" (HDFSBackedStateStoreProvider's design: a map per
// loaded version, one delta file per commit, a snapshot every minDeltasForSnapshot
// versions) and "rocksdb" (librocksdb, changelog checkpointing). Chosen by
// spark.sql.streaming.stateStore.providerClass (Spark's and Databricks' class names are
// accepted).
//
// Ownership: a provider is owned by its operator for the life of a query run; the store
// returned by GetStore belongs to the provider and is valid until the next GetStore /
// Close. Thread safety: one provider and its store are used by one thread at a time;
// different providers are independent. Failure: a missing or corrupt file fails with
// CANNOT_LOAD_STATE_STORE naming the file (never empty state); I/O errors are returned.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spate/base/status.h"
#include "spate/io/file_system.h"
#include "spate/types/data_type.h"

namespace spate::state {

struct StateStoreId {
  /// <checkpoint>/state
  std::string root;
  int64_t operator_id = 0;
  int partition = 0;
  std::string store_name = "default";
  /// root/<operator_id>/<partition>[/<store_name> unless "default"]
  std::string Path() const;
};

struct StateStoreConf {
  /// "memory" or "rocksdb" (see ParseProviderClass).
  std::string provider = "memory";
  int64_t min_deltas_for_snapshot =
      10;  // spark.sql.streaming.stateStore.minDeltasForSnapshot
  int64_t min_versions_to_retain = 100;  // spark.sql.streaming.minBatchesToRetain
  /// Codec of state files: "lz4" (Spark's default), "zstd" or "none"
  /// (spark.sql.streaming.stateStore.compression.codec).
  std::string compression_codec = "lz4";
  /// RocksDB: spark.sql.streaming.stateStore.rocksdb.* settings by their short names
  /// (changelogCheckpointing.enabled, boundedMemoryUsage, maxMemoryUsageMB, ...).
  std::map<std::string, std::string> extra;
  /// The state layout of a new stream-stream join
  /// (spate.streaming.join.stateFormatVersion: 3, one entry per key without the columns
  /// the key already holds, the default; 2, one entry per key; 1, Spark's four stores). A
  /// checkpoint keeps the layout it recorded (stream/stream_join.h).
  int join_state_format = 3;
  /// Builds the conf from session confs.
  static Result<StateStoreConf> FromConf(
      const std::function<std::string(const std::string&, const std::string&)>& conf);
};

/// "memory" or "rocksdb" for a providerClass value: Spark's
/// org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider /
/// RocksDBStateStoreProvider, Databricks' com.databricks.sql.streaming.state.
/// RocksDBStateStoreProvider, or the short names; else an error naming the class.
Result<std::string> ParseProviderClass(const std::string& cls);

struct StateStoreMetrics {
  int64_t num_keys = 0;
  int64_t memory_used_bytes = 0;
  /// Provider-specific metrics by Spark's names (rocksdbGetLatency, ...).
  std::map<std::string, int64_t> custom;
};

/// What StateStore::RewriteEach's function decides for an entry.
enum class EntryRewrite { kKeep, kRemove, kReplace };
using RewriteFn = std::function<EntryRewrite(std::string_view key, std::string_view value,
                                             std::string* replacement)>;

/// One version of a store, open for reads and writes (Spark's StateStore).
class StateStore {
 public:
  virtual ~StateStore() = default;
  /// The version that was loaded (the state before this batch).
  virtual int64_t version() const = 0;
  /// The value of `key`, or nullopt. The view is valid until the next Put/Remove/Commit.
  virtual std::optional<std::string_view> Get(std::string_view key) = 0;
  virtual void Put(std::string_view key, std::string_view value) = 0;
  virtual void Remove(std::string_view key) = 0;
  /// Every key and value (unordered), including this version's uncommitted changes. `fn`
  /// must not modify the store; collect keys first to remove while iterating.
  virtual void ForEach(
      const std::function<void(std::string_view key, std::string_view value)>& fn) = 0;
  /// Durably writes version()+1 (temp file, fsync, rename). After Commit the store is
  /// read-only until the provider's next GetStore.
  virtual Status Commit() = 0;
  /// Discards this version's changes.
  virtual void Abort() = 0;
  /// A hint that `key` will be read or written soon, so a store may start fetching it
  /// (memory: `near` false, its hash slot; `near` true, the entry that slot points at —
  /// give the first some lookups ahead, the second a few). Changes nothing.
  virtual void Prefetch(std::string_view key, bool near) {
    (void)key;
    (void)near;
  }
  virtual StateStoreMetrics metrics() const = 0;
  /// Calls fn(key, value, &replacement) for every entry (unordered, as ForEach): kRemove
  /// removes the key, kReplace sets it to *replacement, kKeep leaves it. `fn` must not
  /// use the store. The memory provider does it in one pass over its table, with no
  /// lookup per changed key; by default the changes are collected, then applied.
  virtual void RewriteEach(const RewriteFn& fn);
};

/// The stores of one StateStoreId across versions (Spark's StateStoreProvider).
class StateStoreProvider {
 public:
  virtual ~StateStoreProvider() = default;
  /// Loads `version` (0 = empty; otherwise it must exist: CANNOT_LOAD_STATE_STORE).
  virtual Result<StateStore*> GetStore(int64_t version) = 0;
  /// Loads `version` from the base file of version `snapshot_version` (memory: its
  /// .snapshot, rocksdb: its .checkpoint) and the delta / changelog files after it, never
  /// from another base (the statestore reader's snapshotStartBatchId). REQUIRES: 1 <=
  /// snapshot_version <= version. A missing base file is
  /// CANNOT_LOAD_STATE_STORE.CANNOT_READ_MISSING_SNAPSHOT_FILE naming it.
  virtual Result<StateStore*> GetStoreFromSnapshot(int64_t snapshot_version,
                                                   int64_t version) = 0;
  /// Snapshots and purges files of versions older than min_versions_to_retain. Safe to
  /// call between batches; may be called from a background thread when no store is open.
  virtual Status DoMaintenance() = 0;
  virtual void Close() = 0;
};

Result<std::unique_ptr<StateStoreProvider>> CreateStateStoreProvider(
    const StateStoreId& id, const StateStoreConf& conf, io::FileSystemPtr fs);

/// The key and value schemas of an operator's stores, recorded at
/// <root>/<operator_id>/_metadata/schema on the first run and checked on every later one:
/// a changed key schema fails with STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE, a changed value
/// schema with STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE (field names may differ, as
/// Spark).
Status CheckOrWriteStateSchema(io::FileSystem& fs, const std::string& root,
                               int64_t operator_id, const Schema& key_schema,
                               const Schema& value_schema);

/// The key and value schemas recorded at <root>/<operator_id>/_metadata/schema (the file
/// CheckOrWriteStateSchema writes); nullopt when there is none. A corrupt file fails with
/// CANNOT_LOAD_STATE_STORE.UNCATEGORIZED naming it.
struct StateSchemas {
  SchemaPtr key, value;
};
Result<std::optional<StateSchemas>> ReadStateSchema(io::FileSystem& fs,
                                                    const std::string& root,
                                                    int64_t operator_id);
/// The check CheckOrWriteStateSchema makes against recorded schemas (Spark's
/// equalsIgnoreNameAndCompatibleNullability): STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE /
/// STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE with both schemas, or OK.
Status CheckStateSchemaCompatibility(const StateSchemas& stored, const Schema& key_schema,
                                     const Schema& value_schema);

/// What `spate checkpoint describe` shows of one store (read-only: nothing is written to
/// the checkpoint; a RocksDB store is restored into a temporary working folder).
struct StoreDescription {
  StateStoreId id;
  /// Versions that have a file (delta/changelog, or snapshot/checkpoint), ascending.
  std::vector<int64_t> versions;
  /// Versions that have a base file (snapshot for memory, checkpoint for rocksdb).
  std::vector<int64_t> base_versions;
  int64_t num_files = 0;
  /// Bytes of every file of the store folder (for rocksdb including its shared SSTs/).
  int64_t bytes_on_disk = 0;
  /// The version loaded for the numbers below (nullopt when none was loaded).
  std::optional<int64_t> loaded_version;
  StateStoreMetrics metrics;
  /// Why loading failed (the error's text), when it did.
  std::optional<std::string> load_error;
};
/// Describes the store `id`, loading with `conf`'s provider, to count its rows, version
/// `prefer` when the store has a file of that version, else its newest version (none when
/// it has no files). With `load` false only the files are described.
Result<StoreDescription> DescribeStateStore(const StateStoreId& id,
                                            const StateStoreConf& conf,
                                            io::FileSystemPtr fs,
                                            std::optional<int64_t> prefer,
                                            bool load = true);

/// One key a version changed: its final value, or its removal.
struct StoreChange {
  bool removed = false;
  std::string key, value;
};
/// The changes of version `version` of store `id` (the records of its <version>.delta or
/// <version>.changelog file, by `conf`'s provider), in file order: the change feed the
/// statestore reader's readChangeFeed shows. A missing file is
/// CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS naming it (purged, or the
/// version was never committed).
Result<std::vector<StoreChange>> ReadStoreChanges(const StateStoreId& id,
                                                  const StateStoreConf& conf,
                                                  io::FileSystem& fs, int64_t version);

}  // namespace spate::state
