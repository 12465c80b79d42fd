// Copyright spate authors.
// State store put/get throughput: `build/release/bench/spate_state_store_bench [keys]
// [dir]`. For each provider (memory, rocksdb) on the local file system: one batch that
// puts `keys` new keys and commits (version 1), a batch that gets every key in random
// order, and a batch that updates 10% of the keys and commits. Beside them a bare
// rocksdb::DB (WAL off) doing the same puts and gets, measured in the same run; the
// ratios are printed. For the memory provider also the bytes of memory per key (the
// store's estimate and the malloc heap growth) against the raw key + value bytes. Keys
// are 16 bytes (like a RowCodec key of a bigint and a window start), values 24 bytes
// (count, sum, max).
#include <malloc.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/columnar/row_encoding.h"
#include "spate/state/row_codec.h"
#include "spate/state/state_store.h"

using namespace spate;  // NOLINT

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string Key(uint64_t i) {
  std::string k(16, '\0');
  uint64_t id = i * 0x9E3779B97F4A7C15ULL;  // spread like hashed ids
  uint64_t window = 1700000000000000ULL + (i % 64) * 300000000ULL;
  std::memcpy(k.data(), &id, 8);
  std::memcpy(k.data() + 8, &window, 8);
  return k;
}

std::string Value(uint64_t i, uint64_t round) {
  std::string v(24, '\0');
  uint64_t count = i + round;
  double sum = static_cast<double>(i) * 1.5 + static_cast<double>(round);
  std::memcpy(v.data(), &count, 8);
  std::memcpy(v.data() + 8, &sum, 8);
  std::memcpy(v.data() + 16, &i, 8);
  return v;
}

struct Rates {
  double put = 0, commit = 0, get = 0, update = 0;  // ops/s (commit: seconds)
};

int64_t HeapBytes() {
  struct mallinfo2 m = mallinfo2();
  return static_cast<int64_t>(m.uordblks + m.hblkhd);
}

bool Check(const Status& st) {
  if (!st.ok()) std::fprintf(stderr, "error: %s\n", st.ToString().c_str());
  return st.ok();
}

bool RunProvider(const std::string& provider, const std::string& dir, int64_t n,
                 const std::vector<std::string>& keys, const std::vector<uint64_t>& order,
                 Rates* r) {
  state::StateStoreId id;
  id.root = dir + "/" + provider + "/state";
  state::StateStoreConf conf;
  conf.provider = provider;
  int64_t heap0 = HeapBytes();
  auto p = state::CreateStateStoreProvider(id, conf, io::LocalFileSystem::Get());
  if (!Check(p.status())) return false;
  auto s = (*p)->GetStore(0);
  if (!Check(s.status())) return false;
  state::StateStore* st = *s;
  auto t = Clock::now();
  for (int64_t i = 0; i < n; ++i) st->Put(keys[i], Value(i, 0));
  r->put = static_cast<double>(n) / Seconds(t);
  t = Clock::now();
  if (!Check(st->Commit())) return false;
  r->commit = Seconds(t);
  if (provider == "rocksdb") {
    state::StateStoreMetrics m = st->metrics();
    std::printf(
        "rocksdb provider, commit of all puts: rocksdbCommitFileSyncLatencyMs %lld\n",
        static_cast<long long>(m.custom["rocksdbCommitFileSyncLatencyMs"]));
  }

  s = (*p)->GetStore(1);
  if (!Check(s.status())) return false;
  st = *s;
  if (provider == "memory") {
    int64_t raw = n * (16 + 24);
    state::StateStoreMetrics m = st->metrics();
    int64_t heap = HeapBytes() - heap0;
    std::printf(
        "memory provider: %lld keys, raw key+value %.1f B/key; store estimate "
        "%.1f B/key (%.2fx raw); malloc heap growth %.1f B/key (%.2fx raw)\n",
        static_cast<long long>(m.num_keys), static_cast<double>(raw) / n,
        static_cast<double>(m.memory_used_bytes) / n,
        static_cast<double>(m.memory_used_bytes) / raw, static_cast<double>(heap) / n,
        static_cast<double>(heap) / raw);
  }
  t = Clock::now();
  int64_t found = 0;
  for (uint64_t i : order) found += st->Get(keys[i]).has_value();
  r->get = static_cast<double>(n) / Seconds(t);
  if (found != n) {
    std::fprintf(stderr, "%s: found %lld of %lld keys\n", provider.c_str(),
                 static_cast<long long>(found), static_cast<long long>(n));
    return false;
  }
  t = Clock::now();
  int64_t updates = n / 10;
  for (int64_t k = 0; k < updates; ++k) st->Put(keys[order[k]], Value(order[k], 1));
  if (!Check(st->Commit())) return false;
  r->update = static_cast<double>(updates) / Seconds(t);
  if (provider == "memory") {
    // Steady state: four more batches, each updating 10% of the keys and removing and
    // re-adding 1% with a longer value.
    for (int64_t v = 2; v < 6; ++v) {
      st = *(*p)->GetStore(v);
      for (int64_t k = 0; k < updates; ++k) {
        uint64_t i = order[(k + v * updates) % n];
        st->Put(keys[i], Value(i, v));
      }
      for (int64_t k = 0; k < n / 100; ++k) {
        uint64_t i = order[(k * 7 + v) % n];
        st->Remove(keys[i]);
        st->Put(keys[i], Value(i, v) + "xyz");
      }
      if (!Check(st->Commit())) return false;
    }
    state::StateStoreMetrics m = (*(*p)->GetStore(6))->metrics();
    std::printf(
        "memory provider after 5 update batches: store estimate %.1f B/key (%.2fx "
        "raw), live entries %.1f B/key\n",
        static_cast<double>(m.memory_used_bytes) / n,
        static_cast<double>(m.memory_used_bytes) / (n * 40.0),
        static_cast<double>(m.custom["stateOnCurrentVersionSizeBytes"]) / n);
  }
  if (provider == "rocksdb") {
    state::StateStoreMetrics m = (*(*p)->GetStore(2))->metrics();
    std::printf(
        "rocksdb provider metrics: memoryUsedBytes %lld, rocksdbGetLatency %lld ms, "
        "rocksdbPutLatency %lld ms, rocksdbSstFileSize %lld\n",
        static_cast<long long>(m.memory_used_bytes),
        static_cast<long long>(m.custom["rocksdbGetLatency"]),
        static_cast<long long>(m.custom["rocksdbPutLatency"]),
        static_cast<long long>(m.custom["rocksdbSstFileSize"]));
  }
  (*p)->Close();
  return true;
}

bool RunRawRocksDb(const std::string& dir, int64_t n,
                   const std::vector<std::string>& keys,
                   const std::vector<uint64_t>& order, Rates* r) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 16 << 20;
  rocksdb::BlockBasedTableOptions table;  // the provider's table settings
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table.block_cache = rocksdb::NewLRUCache(8 << 20);
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  if (!rocksdb::DB::Open(options, dir + "/raw-rocksdb", &raw).ok()) return false;
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  rocksdb::ReadOptions ro;
  auto t = Clock::now();
  for (int64_t i = 0; i < n; ++i) (void)db->Put(wo, keys[i], Value(i, 0));
  r->put = static_cast<double>(n) / Seconds(t);
  t = Clock::now();
  std::string v;
  int64_t found = 0;
  for (uint64_t i : order) found += db->Get(ro, keys[i], &v).ok();
  r->get = static_cast<double>(n) / Seconds(t);
  t = Clock::now();
  int64_t updates = n / 10;
  for (int64_t k = 0; k < updates; ++k)
    (void)db->Put(wo, keys[order[k]], Value(order[k], 1));
  r->update = static_cast<double>(updates) / Seconds(t);
  return found == n;
}

/// RowCodec encode and decode of a grouping key (bigint, string, window struct) beside
/// the hash aggregation's RowEncoder over the same columns.
void RunRowCodec(int64_t n) {
  auto window = DataType::Struct(
      {{"start", DataType::Timestamp()}, {"end", DataType::Timestamp()}});
  auto schema = std::make_shared<const Schema>(std::vector<Field>{
      {"user", DataType::Long()}, {"kind", DataType::String()}, {"window", window}});
  std::vector<spate::Value> users, kinds, windows;
  for (int64_t i = 0; i < n; ++i) {
    users.push_back(spate::Value::Long(i * 7919));
    kinds.push_back(i % 10 == 0 ? spate::Value::Null(DataType::String())
                                : spate::Value::String("kind-" + std::to_string(i % 13)));
    int64_t start = 1700000000000000 + (i % 100) * 300000000;
    windows.push_back(spate::Value::Struct(
        window,
        {spate::Value::Timestamp(start), spate::Value::Timestamp(start + 300000000)}));
  }
  std::vector<ColumnPtr> cols{ColumnFromValues(DataType::Long(), users),
                              ColumnFromValues(DataType::String(), kinds),
                              ColumnFromValues(window, windows)};
  std::vector<const Column*> raw{cols[0].get(), cols[1].get(), cols[2].get()};
  state::RowCodec codec(schema, /*normalize_floats=*/true);
  std::vector<std::string> encoded(static_cast<size_t>(n));
  auto t = Clock::now();
  int64_t bytes = 0;
  for (int64_t i = 0; i < n; ++i) {
    encoded[i].clear();
    codec.Encode(raw, i, &encoded[i]);
    bytes += static_cast<int64_t>(encoded[i].size());
  }
  double encode = static_cast<double>(n) / Seconds(t);
  t = Clock::now();
  RowEncoder reference;
  reference.Encode(raw, n);
  double reference_rate = static_cast<double>(n) / Seconds(t);
  t = Clock::now();
  state::RowBatchBuilder builder(codec);
  for (const auto& e : encoded) {
    if (!builder.Append(e).ok()) std::abort();
  }
  auto batch = builder.Finish();
  double decode = static_cast<double>(n) / Seconds(t);
  if (!batch.ok() || (*batch)->num_rows() != n) std::abort();
  std::printf(
      "RowCodec (bigint, string, struct<timestamp,timestamp>): %.1f B/row; encode "
      "%.2f M rows/s (%.2fx the hash RowEncoder), decode to columns %.2f M rows/s\n",
      static_cast<double>(bytes) / n, encode / 1e6, encode / reference_rate,
      decode / 1e6);
}

/// Per-batch latency of a small stateful batch on the local file system: GetStore, 1000
/// puts, Commit (fsync'd delta/changelog) and DoMaintenance (snapshots every 10, purge).
void RunBatchLatency(const std::string& provider, const std::string& dir) {
  state::StateStoreId id;
  id.root = dir + "/latency-" + provider;
  state::StateStoreConf conf;
  conf.provider = provider;
  conf.min_versions_to_retain = 20;
  auto p = state::CreateStateStoreProvider(id, conf, io::LocalFileSystem::Get());
  if (!Check(p.status())) return;
  std::vector<double> ms;
  for (int64_t v = 0; v < 200; ++v) {
    auto t = Clock::now();
    auto s = (*p)->GetStore(v);
    if (!Check(s.status())) return;
    for (uint64_t i = 0; i < 1000; ++i) {
      uint64_t k = (static_cast<uint64_t>(v) * 1000 + i) % 20000;
      (*s)->Put(Key(k), Value(k, static_cast<uint64_t>(v)));
    }
    if (!Check((*s)->Commit()) || !Check((*p)->DoMaintenance())) return;
    ms.push_back(Seconds(t) * 1000);
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "%-8s provider, batch of 1000 puts + commit + maintenance: p50 %.2f ms  p99 "
      "%.2f ms\n",
      provider.c_str(), ms[ms.size() / 2], ms[ms.size() * 99 / 100]);
  (*p)->Close();
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 1000000;
  std::string dir =
      argc > 2 ? argv[2]
               : (std::filesystem::temp_directory_path() / "spate_state_bench").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) keys.push_back(Key(static_cast<uint64_t>(i)));
  std::vector<uint64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = static_cast<uint64_t>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(42));

  RunRowCodec(std::min<int64_t>(n, 1000000));
  Rates memory, rocks, raw;
  if (!RunProvider("memory", dir, n, keys, order, &memory)) return 1;
  if (!RunProvider("rocksdb", dir, n, keys, order, &rocks)) return 1;
  if (!RunRawRocksDb(dir, n, keys, order, &raw)) return 1;
  RunBatchLatency("memory", dir);
  RunBatchLatency("rocksdb", dir);

  auto line = [](const char* what, const Rates& r) {
    std::printf("%-22s put %6.2f M/s  get %6.2f M/s  update+commit %6.2f M/s", what,
                r.put / 1e6, r.get / 1e6, r.update / 1e6);
    if (r.commit > 0) std::printf("  commit of %s %.3f s", "all puts", r.commit);
    std::printf("\n");
  };
  std::printf("%lld keys (16 B keys, 24 B values), one thread\n",
              static_cast<long long>(n));
  line("memory provider", memory);
  line("rocksdb provider", rocks);
  line("raw rocksdb::DB", raw);
  std::printf(
      "ratios vs raw RocksDB (higher is faster): memory put %.2fx get %.2fx; "
      "rocksdb provider put %.2fx get %.2fx\n",
      memory.put / raw.put, memory.get / raw.get, rocks.put / raw.put,
      rocks.get / raw.get);
  std::filesystem::remove_all(dir);
  return 0;
}
