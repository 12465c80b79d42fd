// Copyright spate authors.
// TombstoneList (issue 18): a snapshot's tombstones held compactly read back as the
// RemoveFiles they were added from (so checkpoints write the same remove rows), in
// Delta's order, at a bounded number of bytes each.
#include "spate/table/tombstone_list.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace spate::table {
namespace {

std::vector<RemoveFile> Variety() {
  std::vector<RemoveFile> out;
  RemoveFile bare;  // only a path; dataChange true
  bare.path = "a.parquet";
  out.push_back(bare);
  RemoveFile full;
  full.path = "day=2024-01-01/part-00000-x.snappy.parquet";
  full.deletion_timestamp = 1700000000123;
  full.data_change = false;
  full.extended_file_metadata = true;
  full.partition_values = PartitionValues{{"day", "2024-01-01"}, {"h", std::nullopt}};
  full.size = 1234;
  full.stats = "{\"numRecords\":3}";  // not kept
  out.push_back(full);
  RemoveFile extended_false = full;
  extended_false.path = "day=2024-01-02/b.parquet";
  extended_false.extended_file_metadata = false;
  extended_false.partition_values = PartitionValues{{"day", "2024-01-02"}, {"h", "7"}};
  extended_false.size.reset();
  out.push_back(extended_false);
  RemoveFile empty_partitions = bare;  // partitionValues {} (engaged, empty)
  empty_partitions.path = "c.parquet";
  empty_partitions.partition_values = PartitionValues{};
  empty_partitions.deletion_timestamp = 0;
  out.push_back(empty_partitions);
  RemoveFile with_dv = full;  // same path as `full`, a deletion vector
  DeletionVectorDescriptor dv;
  dv.storage_type = "u";
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  dv.offset = 4;
  dv.size_in_bytes = 40;
  dv.cardinality = 6;
  with_dv.deletion_vector = dv;
  out.push_back(with_dv);
  RemoveFile again = full;  // the interned partition values again
  again.path = "day=2024-01-01/part-00001-y.snappy.parquet";
  out.push_back(again);
  // Paths holding a UUID (kept as 16 bytes between an interned prefix and suffix), and
  // near misses kept as they are.
  for (const char* p : {
           "part-00000-0f8e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b-c000.snappy.parquet",
           "day=2024-01-01/"
           "part-00003-0f8e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b-c000.snappy.parquet",
           "0f8e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b",  // the UUID alone
           "a-0f8e1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b-b-ffffffff-ffff-ffff-ffff-"
           "ffffffffffff",
           "part-0F8E1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B.parquet",  // upper case: kept as is
           "part-0f8e1a2b3c4d-4e5f-8a9b-0c1d2e3f4a5b0.parquet",  // dashes elsewhere
           "s3://bucket/t/x%20y/part-00000-00000000-0000-0000-0000-000000000000.parquet",
       }) {
    RemoveFile r = bare;
    r.path = p;
    out.push_back(r);
  }
  return out;
}

std::string Text(RemoveFile r) {
  r.stats.reset();
  return r.ToJson().ToString();
}

TEST(TombstoneListTest, EntriesReadBackAsTheRemovesTheyWereAddedFrom) {
  const auto removes = Variety();
  TombstoneList list;
  for (const auto& r : removes) list.Add(r);
  ASSERT_EQ(list.size(), removes.size());
  for (size_t i = 0; i < removes.size(); ++i) {
    EXPECT_EQ(Text(list.Get(i)), Text(removes[i])) << i;
    EXPECT_FALSE(list.Get(i).stats.has_value());
    EXPECT_EQ(list.path(i), removes[i].path);
    EXPECT_EQ(list.deletion_timestamp(i), removes[i].deletion_timestamp);
    EXPECT_EQ(list.Key(i), removes[i].Key());
    EXPECT_EQ(list.has_deletion_vector(i), removes[i].deletion_vector.has_value());
  }
  // Copied entry by entry into another list (interned in another order): the same.
  TombstoneList copy;
  for (size_t i = removes.size(); i-- > 0;) copy.AddFrom(list, i);
  for (size_t i = 0; i < removes.size(); ++i)
    EXPECT_EQ(Text(copy.Get(removes.size() - 1 - i)), Text(removes[i])) << i;
  // Iteration yields the same values.
  size_t i = 0;
  for (const auto& r : list) EXPECT_EQ(Text(r), Text(removes[i++]));
  EXPECT_EQ(i, removes.size());
}

TEST(TombstoneListTest, OrderIsPathThenKey) {
  const auto removes = Variety();
  TombstoneList list;
  for (const auto& r : removes) list.Add(r);
  for (size_t i = 0; i < removes.size(); ++i) {
    for (size_t j = 0; j < removes.size(); ++j) {
      const auto& a = removes[i];
      const auto& b = removes[j];
      const bool expected = a.path != b.path ? a.path < b.path : a.Key() < b.Key();
      EXPECT_EQ(TombstoneList::Less(list, i, list, j), expected) << i << " " << j;
    }
  }
}

// The streaming sink's tombstones (a compacted file's remove: a 67-character Spark data
// file name, timestamp, size, extendedFileMetadata, empty partition values): a 56-byte
// record each (the name's UUID inside it, its prefix and suffix interned), where a
// RemoveFile value with its path is ~320 bytes.
TEST(TombstoneListTest, BytesPerTombstoneAreBounded) {
  constexpr size_t kN = 10000;
  std::vector<RemoveFile> removes;
  size_t path_bytes = 0;
  for (size_t i = 0; i < kN; ++i) {
    char uuid[40];  // a UUID's shape
    std::snprintf(uuid, sizeof(uuid), "%08zx-0000-4000-8000-%012zx", i, i * 7919);
    RemoveFile r;
    r.path = std::string("part-00000-") + uuid + "-c000.snappy.parquet";
    r.deletion_timestamp = 1700000000000 + static_cast<int64_t>(i);
    r.data_change = false;
    r.extended_file_metadata = true;
    r.partition_values = PartitionValues{};
    r.size = 500;
    path_bytes += r.path.size();
    removes.push_back(std::move(r));
  }
  TombstoneList list;
  list.Reserve(kN);  // as Snapshot::tombstones() builds a set
  for (const auto& r : removes) list.Add(r);
  EXPECT_EQ(path_bytes / kN, 67u);  // a Spark data file name
  const size_t per_entry = list.MemoryBytes() / kN;
  EXPECT_LE(per_entry, 56u + 1u);  // the interned {}, prefix and suffix are shared
  EXPECT_GE(per_entry, 56u);
  for (size_t i = 0; i < kN; i += 997) EXPECT_EQ(list.path(i), removes[i].path);
  EXPECT_GT(sizeof(RemoveFile), 4 * 56u);  // the value it replaces, before its path
}

}  // namespace
}  // namespace spate::table
