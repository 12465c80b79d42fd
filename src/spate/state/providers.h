// Copyright spate authors.
#pragma once

// The two StateStoreProvider implementations behind CreateStateStoreProvider (internal to
// the state module; see state_store.h for the contract and docs/state.md for the files).

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "spate/state/hashed_lookup.h"
#include "spate/state/state_store.h"

namespace spate::state {

/// The StateStore of a provider P: keeps the open/committed bookkeeping and forwards the
/// operations to P (Get, Put, Remove, ForEach, CommitStore, AbortStore, Metrics), which
/// owns the data. One per provider, reused by every GetStore. The bookkeeping changes
/// only under P's lock (GetStore, CommitStore, AbortStore), so P's DoMaintenance may read
/// it from another thread. Lookups with the caller's hash (HashedLookup) go to P's
/// GetHashed / PrefetchHashed when it has them, else to Get / Prefetch.
template <typename P>
class ProviderStore final : public StateStore, public HashedLookup {
 public:
  explicit ProviderStore(P* provider) : p_(provider) {}
  int64_t version() const override { return version_; }
  std::optional<std::string_view> Get(std::string_view key) override {
    return p_->Get(key);
  }
  void Put(std::string_view key, std::string_view value) override { p_->Put(key, value); }
  void Remove(std::string_view key) override { p_->Remove(key); }
  void Prefetch(std::string_view key, bool near) override {
    if constexpr (requires { p_->Prefetch(key, near); }) p_->Prefetch(key, near);
  }
  std::optional<std::string_view> GetHashed(std::string_view key,
                                            uint64_t hash) override {
    if constexpr (requires { p_->GetHashed(key, hash); }) {
      return p_->GetHashed(key, hash);
    } else {
      return p_->Get(key);
    }
  }
  void PrefetchHashed(std::string_view key, uint64_t hash, bool near) override {
    if constexpr (requires { p_->PrefetchHashed(key, hash, near); }) {
      p_->PrefetchHashed(key, hash, near);
    } else {
      Prefetch(key, near);
    }
  }
  void ForEach(
      const std::function<void(std::string_view, std::string_view)>& fn) override {
    p_->ForEach(fn);
  }
  void RewriteEach(const RewriteFn& fn) override {
    if constexpr (requires { p_->RewriteEach(fn); }) {
      p_->RewriteEach(fn);
    } else {
      StateStore::RewriteEach(fn);
    }
  }
  Status Commit() override {
    if (!uncommitted()) {
      return Status::Error("STATE_STORE_OPERATION_OUT_OF_ORDER",
                           {{"errorMsg", "Commit of a store that is not open"}});
    }
    return p_->CommitStore();  // calls Committed() under the provider's lock
  }
  void Abort() override {
    if (uncommitted()) p_->AbortStore();
  }
  StateStoreMetrics metrics() const override { return p_->Metrics(); }

  // Bookkeeping, by the provider.
  void Open(int64_t version) {
    version_ = version;
    open_ = true;
    committed_ = false;
  }
  void Committed() { committed_ = true; }
  void Closed() { open_ = false; }
  /// Open and neither committed nor aborted.
  bool uncommitted() const { return open_ && !committed_; }

 private:
  P* p_;
  int64_t version_ = 0;
  bool open_ = false;
  bool committed_ = false;
};

/// Spark's HDFSBackedStateStoreProvider design: a CompactMap of the loaded version,
/// <version>.delta per commit, <version>.snapshot written by DoMaintenance.
Result<std::unique_ptr<StateStoreProvider>> MakeMemoryProvider(const StateStoreId& id,
                                                               const StateStoreConf& conf,
                                                               io::FileSystemPtr fs);

/// Spark's RocksDBStateStoreProvider with changelog checkpointing: a RocksDB instance in
/// a local working folder, <version>.changelog per commit, <version>.checkpoint (a
/// RocksDB checkpoint: its small files, its SST files shared in SSTs/) written by
/// DoMaintenance.
Result<std::unique_ptr<StateStoreProvider>> MakeRocksDbProvider(
    const StateStoreId& id, const StateStoreConf& conf, io::FileSystemPtr fs);

}  // namespace spate::state
