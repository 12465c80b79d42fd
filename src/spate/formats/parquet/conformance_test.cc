// Copyright spate authors.
// Conformance: the real files of apache/parquet-testing (data/ and bad_data/), copied to
// <repo>/../shared/data/parquet-testing (base/test_data.h; missing fails when CI=true).
// Every file is either read with the expected contents or refused with a Status naming
// the file; a file in neither list fails the test, so new upstream files get classified.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "spate/base/test_data.h"
#include "spate/formats/parquet/reader.h"
#include "spate/testing/status_matchers.h"

namespace spate::formats::parquet {
namespace {

std::string DataDir() {
  if (const char* env = std::getenv("SPATE_PARQUET_TESTING")) return env;
  return SharedTestData("parquet-testing");  // <repo>/../shared/data/parquet-testing
}

struct Loaded {
  std::shared_ptr<ParquetFileReader> reader;
  std::vector<BatchPtr> batches;
  int64_t rows = 0;
  std::string Cell(int64_t row, int col) const {
    for (const auto& b : batches) {
      if (row < b->num_rows()) return b->column(col)->GetValue(row).ToString();
      row -= b->num_rows();
    }
    return "<out of range>";
  }
  std::vector<std::string> Column(int col) const {
    std::vector<std::string> out;
    for (const auto& b : batches) {
      for (int64_t i = 0; i < b->num_rows(); ++i)
        out.push_back(b->column(col)->GetValue(i).ToString());
    }
    return out;
  }
};

Result<Loaded> Load(const std::string& rel) {
  Loaded l;
  SPATE_ASSIGN_OR_RETURN(l.reader, ParquetFileReader::Open(io::LocalFileSystem::Get(),
                                                           io::JoinPath(DataDir(), rel)));
  SPATE_ASSIGN_OR_RETURN(l.batches, l.reader->ReadAll());
  for (const auto& b : l.batches) l.rows += b->num_rows();
  return l;
}

class ConformanceTest : public ::testing::Test {
 protected:
  void SetUp() override { SPATE_REQUIRE_TEST_DATA(DataDir()); }
};

// file -> expected rows, and spot checks "row,col=value".
struct Expect {
  int64_t rows;
  std::vector<std::tuple<int64_t, int, std::string>> cells;
};

const std::map<std::string, Expect>& Supported() {
  static const auto* m = new std::map<std::string, Expect>{
      {"alltypes_plain.parquet",
       {8,
        {{0, 0, "4"},
         {1, 0, "5"},
         {7, 0, "1"},
         {0, 1, "true"},
         {1, 1, "false"},
         {0, 10, "2009-03-01 00:00:00"},
         {1, 9, "[31]"}}}},
      {"alltypes_dictionary.parquet", {2, {{0, 0, "0"}, {1, 0, "1"}, {1, 7, "10.1"}}}},
      {"alltypes_plain.snappy.parquet", {2, {{0, 0, "6"}, {1, 0, "7"}}}},
      {"alltypes_tiny_pages.parquet",
       {7300, {{0, 0, "122"}, {0, 10, "2009-01-13 01:02:05.41"}}}},
      {"alltypes_tiny_pages_plain.parquet", {7300, {{0, 0, "122"}, {0, 6, "2.2"}}}},
      // A Go-reader crash repro, not invalid data: RLE dictionary indices with bit width
      // 0 (legal: every index is 0), read as Arrow C++ reads it.
      {"bad_data/ARROW-GH-43605.parquet", {21186, {{0, 0, "0"}}}},
      {"binary.parquet", {12, {{0, 0, "[00]"}, {11, 0, "[0B]"}}}},
      {"binary_truncated_min_max.parquet", {12, {{0, 0, "Blart Versenwald III"}}}},
      {"byte_array_decimal.parquet", {24, {{0, 0, "1.00"}, {23, 0, "24.00"}}}},
      {"byte_stream_split.zstd.parquet",
       {300, {{0, 0, "1.7640524"}, {0, 1, "-1.3065268517353166"}}}},
      {"column_chunk_key_value_metadata.parquet", {0, {}}},
      {"concatenated_gzip_members.parquet", {513, {{0, 0, "1"}, {512, 0, "513"}}}},
      {"data_index_bloom_encoding_stats.parquet", {14, {{0, 0, "Hello"}}}},
      {"data_index_bloom_encoding_with_length.parquet", {14, {{0, 0, "Hello"}}}},
      {"datapage_v1-snappy-compressed-checksum.parquet", {5120, {}}},
      {"datapage_v1-uncompressed-checksum.parquet", {5120, {}}},
      {"datapage_v2.snappy.parquet",
       {5,
        {{0, 0, "abc"},
         {0, 1, "1"},
         {0, 2, "2.0"},
         {0, 3, "true"},
         {0, 4, "[1, 2, 3]"}}}},
      {"datapage_v2_empty_datapage.snappy.parquet", {1, {{0, 0, "NULL"}}}},
      {"delta_binary_packed.parquet", {200, {}}},
      {"delta_byte_array.parquet", {1000, {}}},
      {"delta_encoding_optional_column.parquet", {100, {}}},
      {"delta_encoding_required_column.parquet", {100, {}}},
      {"delta_length_byte_array.parquet", {1000, {{0, 0, "apple_banana_mango0"}}}},
      {"dict-page-offset-zero.parquet", {39, {{0, 0, "1552"}, {38, 0, "1552"}}}},
      {"fixed_length_byte_array.parquet", {1000, {{0, 0, "[00 00 03 E8]"}}}},
      {"fixed_length_decimal.parquet", {24, {{0, 0, "1.00"}, {23, 0, "24.00"}}}},
      {"fixed_length_decimal_legacy.parquet", {24, {{0, 0, "1.00"}, {23, 0, "24.00"}}}},
      {"hadoop_lz4_compressed.parquet",
       {4, {{0, 0, "1593604800"}, {0, 1, "[61 62 63]"}, {0, 2, "42.0"}}}},
      {"hadoop_lz4_compressed_larger.parquet",
       {10000, {{0, 0, "c7ce6bef-d5b0-4863-b199-8ea8c7fb117b"}}}},
      {"incorrect_map_schema.parquet",
       {1, {{0, 0, "{parent -> another, name -> report}"}}}},
      {"int32_decimal.parquet", {24, {{0, 0, "1.00"}, {23, 0, "24.00"}}}},
      {"int32_with_null_pages.parquet", {1000, {{0, 0, "-654807448"}}}},
      {"int64_decimal.parquet", {24, {{0, 0, "1.00"}, {23, 0, "24.00"}}}},
      // int96_from_spark.md: 1704141296123456, 1704070800000000, 253402225200000000,
      // 1735599600000000, null, 9089380393200000000 microseconds.
      {"int96_from_spark.parquet",
       {6,
        {{0, 0, "2024-01-01 20:34:56.123456"},
         {1, 0, "2024-01-01 01:00:00"},
         {2, 0, "9999-12-31 03:00:00"},
         {3, 0, "2024-12-30 23:00:00"},
         {4, 0, "NULL"}}}},
      {"list_columns.parquet", {3, {{0, 0, "[1, 2, 3]"}, {0, 1, "[abc, efg, hij]"}}}},
      {"lz4_raw_compressed.parquet", {4, {{0, 0, "1593604800"}, {3, 2, "7.7"}}}},
      {"lz4_raw_compressed_larger.parquet",
       {10000, {{0, 0, "c7ce6bef-d5b0-4863-b199-8ea8c7fb117b"}}}},
      {"nan_in_stats.parquet", {2, {{0, 0, "1.0"}, {1, 0, "NaN"}}}},
      {"nested_lists.snappy.parquet",
       {3, {{0, 0, "[[[a, b], [c]], [NULL, [d]]]"}, {0, 1, "1"}}}},
      {"nested_maps.snappy.parquet",
       {6, {{0, 0, "{a -> {1 -> true, 2 -> false}}"}, {0, 2, "1.0"}}}},
      {"nested_structs.rust.parquet", {1, {}}},
      {"non_hadoop_lz4_compressed.parquet", {4, {{0, 0, "1593604800"}, {0, 2, "42.0"}}}},
      {"nonnullable.impala.parquet",
       {1, {{0, 0, "8"}, {0, 1, "[-1]"}, {0, 2, "[[-1, -2], []]"}}}},
      {"null_list.parquet", {1, {{0, 0, "[]"}}}},
      {"nullable.impala.parquet",
       {7, {{0, 0, "1"}, {0, 1, "[1, 2, 3]"}, {0, 3, "{k1 -> 1, k2 -> 100}"}}}},
      {"nulls.snappy.parquet", {8, {{0, 0, "{NULL}"}}}},
      // old_list_structure.md: [[1, 2], [3, 4]]
      {"old_list_structure.parquet", {1, {{0, 0, "[[1, 2], [3, 4]]"}}}},
      {"overflow_i16_page_cnt.parquet", {40000, {{0, 0, "false"}}}},
      {"page_v2_empty_compressed.parquet", {10, {{0, 0, "NULL"}, {9, 0, "NULL"}}}},
      {"plain-dict-uncompressed-checksum.parquet", {1000, {{0, 0, "0"}}}},
      {"repeated_no_annotation.parquet", {6, {{0, 0, "1"}}}},
      {"repeated_primitive_no_list.parquet",
       {4, {{0, 0, "[0, 1, 2, 3]"}, {0, 1, "[foo, zero, one, two]"}}}},
      {"rle-dict-snappy-checksum.parquet", {1000, {{0, 0, "0"}}}},
      {"rle_boolean_encoding.parquet", {68, {{0, 0, "true"}}}},
      {"single_nan.parquet", {1, {{0, 0, "NULL"}}}},
      {"sort_columns.parquet", {6, {{0, 1, "a"}}}},
      {"unknown-logical-type.parquet", {3, {{0, 0, "known string 1"}}}},
  };
  return *m;
}

// Files spate refuses (unsupported features, or corrupt on purpose).
const std::set<std::string>& Refused() {
  static const auto* s = new std::set<std::string>{
      "bad_data/ARROW-GH-41317.parquet",
      "bad_data/ARROW-GH-41321.parquet",
      "bad_data/ARROW-GH-45185.parquet",
      "bad_data/ARROW-GH-47662.parquet",
      "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet",
      "bad_data/ARROW-RS-GH-6229-LEVELS.parquet",
      "bad_data/PARQUET-1481.parquet",
      "datapage_v1-corrupt-checksum.parquet",            // wrong page CRC
      "rle-dict-uncompressed-corrupt-checksum.parquet",  // wrong page CRC
      "nation.dict-malformed.parquet",
      "large_string_map.brotli.parquet",  // BROTLI codec (and 2 GB pages)
      "map_no_value.parquet",             // MAP without a value field
      "float16_nonzeros_and_nans.parquet",
      "float16_zeros_and_nans.parquet",
      "floating_orders_nan_count.parquet",
      "byte_stream_split_extended.gzip.parquet",  // FLOAT16 columns
  };
  return *s;
}

bool IsRefusedByPattern(const std::string& rel) {
  return rel.find(".encrypted") != std::string::npos || rel.rfind("geospatial/", 0) == 0;
}

TEST_F(ConformanceTest, EveryFileIsReadOrRefusedClearly) {
  auto files = io::LocalFileSystem::Get()->List(DataDir(), true);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  int read = 0, refused = 0;
  for (const auto& f : *files) {
    std::string rel = f.path.substr(DataDir().size() + 1);
    bool parquet =
        rel.size() > 8 && (rel.substr(rel.size() - 8) == ".parquet" ||
                           rel.find(".parquet.encrypted") != std::string::npos);
    if (f.is_directory || !parquet) continue;
    SCOPED_TRACE(rel);
    auto it = Supported().find(rel);
    if (it != Supported().end()) {
      auto l = Load(rel);
      ASSERT_TRUE(l.ok()) << l.status().ToString();
      EXPECT_EQ(l->rows, it->second.rows);
      for (const auto& [row, col, want] : it->second.cells) {
        EXPECT_EQ(l->Cell(row, col), want) << "row " << row << " col " << col;
      }
      ++read;
      continue;
    }
    ASSERT_TRUE(Refused().count(rel) || IsRefusedByPattern(rel))
        << "unclassified file " << rel;
    auto l = Load(rel);
    ASSERT_ERROR_HAS(l, f.path) << "expected an error naming the file";
    ++refused;
  }
  EXPECT_EQ(read, static_cast<int>(Supported().size()));
  EXPECT_GE(refused, 40);
}

// CSV with "quoted" fields; an empty unquoted field is NULL.
std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    std::string cur;
    bool quoted = false, was_quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
        was_quoted = true;
      } else if (c == ',' && !quoted) {
        row.push_back(cur.empty() && !was_quoted ? "NULL" : cur);
        cur.clear();
        was_quoted = false;
      } else {
        cur.push_back(c);
      }
    }
    row.push_back(cur.empty() && !was_quoted ? "NULL" : cur);
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST_F(ConformanceTest, DeltaEncodingsMatchExpectedCsv) {
  for (const std::string name :
       {"delta_binary_packed", "delta_byte_array", "delta_encoding_optional_column",
        "delta_encoding_required_column"}) {
    SCOPED_TRACE(name);
    auto l = Load(name + ".parquet");
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    auto csv = ReadCsv(io::JoinPath(DataDir(), name + "_expect.csv"));
    ASSERT_EQ(static_cast<int64_t>(csv.size()) - 1, l->rows);
    int ncols = l->reader->schema()->num_fields();
    ASSERT_EQ(static_cast<int>(csv[0].size()), ncols);
    for (int c = 0; c < ncols; ++c) {
      auto col = l->Column(c);
      for (int64_t r = 0; r < l->rows; ++r) {
        ASSERT_EQ(col[r], csv[r + 1][c]) << "row " << r << " column " << csv[0][c];
      }
    }
  }
}

TEST_F(ConformanceTest, ProjectionAndStatistics) {
  auto r = ParquetFileReader::Open(io::LocalFileSystem::Get(),
                                   io::JoinPath(DataDir(), "sort_columns.parquet"));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ((*r)->num_row_groups(), 2);
  auto b = (*r)->ReadRowGroup(1, {1});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->num_columns(), 1);
  EXPECT_EQ((*b)->num_rows(), 3);
  auto st = (*r)->Stats(0, 0);
  EXPECT_TRUE(st.has_null_count);
}

}  // namespace
}  // namespace spate::formats::parquet
