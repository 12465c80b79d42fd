// Copyright spate authors.
// Parallel schema inference (JSON and CSV) against the sequential pass: many files, one
// big file cut into splits of many sizes, conflicting types across splits, every mode and
// the inference options. The schema must not depend on the splitting or the threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "spate/formats/csv/options.h"
#include "spate/formats/csv/parser.h"
#include "spate/formats/csv_source.h"
#include "spate/formats/json/infer_schema.h"
#include "spate/formats/json_source.h"

namespace spate::formats {
namespace {

constexpr int64_t kWholeFiles = int64_t{1}
                                << 60;  // one split per file: the sequential pass

std::string Describe(const std::vector<Field>& fields) {
  std::string s;
  for (const auto& f : fields) s += f.name + ":" + f.type->SimpleString() + ",";
  return s;
}

class SchemaInferenceTest : public ::testing::Test {
 protected:
  std::shared_ptr<io::MemoryFileSystem> fs_ = std::make_shared<io::MemoryFileSystem>();

  void Write(const std::string& path, const std::string& text) {
    ASSERT_TRUE(fs_->MakeDirs(io::ParentPath(path)).ok());
    ASSERT_TRUE(fs_->WriteAtomic(path, text).ok());
  }
  std::vector<InputFile> Files(const std::string& path) {
    auto index = ListInputFiles(*fs_, {path}, {}, nullptr, "UTC");
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    return index.ok() ? index->files : std::vector<InputFile>{};
  }

  // The JSON schema (or error) inferred with `parallelism` threads over `split_bytes`
  // splits.
  std::string Json(const std::string& path, const OptionMap& options, int parallelism,
                   int64_t split_bytes) {
    std::vector<std::pair<std::string, std::string>> pairs(options.begin(),
                                                           options.end());
    auto o = json::JsonOptions::FromPairs(pairs, "UTC");
    EXPECT_TRUE(o.ok());
    auto r = LineFileDataSource::InferJsonSchema(*fs_, Files(path), *o, false, "\n", true,
                                                 options, parallelism, split_bytes);
    return r.ok() ? (*r)->Sql() : r.status().ToString();
  }

  std::string Csv(const std::string& path, const OptionMap& options, int parallelism,
                  int64_t split_bytes) {
    auto o = csv::CsvOptions::FromMap(options, "UTC", "_corrupt_record");
    EXPECT_TRUE(o.ok()) << o.status().ToString();
    // Spark's partitions as local[2] makes them (the result depends on them, as Spark's).
    auto r = CsvDataSource::InferDataFields(*fs_, Files(path), *o,
                                            FilePacking{128ll << 20, 4ll << 20, 2},
                                            parallelism, split_bytes);
    return r.ok() ? Describe(*r) : r.status().ToString();
  }
};

// JSON records whose types drift with their position, so that splits disagree.
std::string JsonRecord(std::mt19937_64& rng, int region) {
  static const char* kValues[] = {"1",
                                  "-42",
                                  "12345678901234567890",
                                  "123456789012345678901234567890123456789012",
                                  "1.5",
                                  "2.5e3",
                                  "\"s\"",
                                  "true",
                                  "null",
                                  "[1,2]",
                                  "[1.5,null]",
                                  "[\"x\"]",
                                  "{\"x\":1}",
                                  "{\"y\":\"t\",\"x\":2.5}",
                                  "{}",
                                  "[]",
                                  "[{\"k\":1},{\"m\":true}]",
                                  "0.001",
                                  "9223372036854775808"};
  constexpr int kNum = sizeof(kValues) / sizeof(kValues[0]);
  switch (rng() % 29) {
    case 0:
      return "";
    case 1:
      return "[{\"a\":7},{\"z\":[]}]";
    case 2:
      return "5";
    case 3:
      return "{\"a\":";  // malformed
    case 4:
      return "{'a': 'single', b: 1}";
    case 5:
      return "null";
    default:
      break;
  }
  std::string s = "{";
  const char* keys[] = {"a",           "b", "c", "nested", "\xc3\xa9", "\xf0\x9f\x98\x80",
                        "\xef\xbd\x81"};
  int fields = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < fields; ++i) {
    if (i) s += ",";
    const int key = static_cast<int>(rng() % 7);
    // Within a region a key keeps to two kinds of value; regions differ.
    const int pick = (key * 7 + region * 3 + static_cast<int>(rng() % 2)) % kNum;
    s += std::string("\"") + keys[key] + "\":" + kValues[pick];
  }
  return s + "}";
}

TEST_F(SchemaInferenceTest, JsonParallelEqualsSequential) {
  std::mt19937_64 rng(11);
  // Many files, and one big file.
  std::string big;
  for (int f = 0; f < 40; ++f) {
    std::string text;
    const int lines = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < lines; ++i) text += JsonRecord(rng, f % 9) + "\n";
    Write("/many/part-" + std::to_string(100 + f) + ".json", text);
  }
  for (int i = 0; i < 3000; ++i)
    big += JsonRecord(rng, i / 250) + (i % 7 == 0 ? "\r\n" : "\n");
  Write("/big/one.json", big);
  const std::vector<OptionMap> options = {
      {},
      {{"primitivesAsString", "true"}},
      {{"prefersDecimal", "true"}},
      {{"mode", "DROPMALFORMED"}},
      {{"dropFieldIfAllNull", "true"}},
      {{"allowUnquotedFieldNames", "true"}},
      {{"samplingRatio", "0.3"}},
      {{"samplingRatio", "0.995"}},
      {{"mode", "FAILFAST"}},
  };
  for (const char* path : {"/many", "/big"}) {
    for (const auto& o : options) {
      const std::string sequential = Json(path, o, 1, kWholeFiles);
      for (int64_t split : {int64_t{23}, int64_t{700}, int64_t{5000}, int64_t{0}}) {
        EXPECT_EQ(Json(path, o, 4, split), sequential)
            << path << " split " << split << " " << (o.empty() ? "" : o.begin()->first);
      }
    }
  }
  // The sequential pass is one inferrer over every line in order.
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < big.size()) {
    size_t nl = big.find('\n', pos);
    std::string_view line(big.data() + pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = nl + 1;
  }
  auto one = json::InferSchema(lines, {});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Json("/big", {}, 4, 100), (*one)->Sql());
  // The data disagree enough to exercise the merge: several types, nested and wide.
  EXPECT_NE((*one)->Sql().find("_corrupt_record"), std::string::npos) << (*one)->Sql();
  // FAILFAST names the file of the first malformed record, however it is split.
  const std::string fail = Json("/many", {{"mode", "FAILFAST"}}, 4, 23);
  EXPECT_NE(fail.find("MALFORMED_RECORD_IN_PARSING"), std::string::npos) << fail;
  EXPECT_NE(fail.find("/many/part-"), std::string::npos) << fail;
}

TEST_F(SchemaInferenceTest, JsonMergeAcrossSplitsAsSpark) {
  // Conflicts that only meet in the merge of two splits.
  Write("/m/a.json",
        "{\"n\":1,\"s\":{\"x\":1},\"arr\":[1]}\n{\"d\":12345678901234567890}\n");
  Write("/m/b.json", "{\"n\":2.5,\"s\":{\"y\":true},\"arr\":[null,2.5]}\n{\"d\":0.5}\n");
  Write("/m/c.json", "{\"s\":\"text\",\"e\":null}\n\n[]\nnull\n");
  EXPECT_EQ(Json("/m", {}, 4, 0),
            "STRUCT<arr: ARRAY<DOUBLE>, d: DOUBLE, e: STRING, n: DOUBLE, s: STRING>");
  EXPECT_EQ(
      Json("/m", {{"prefersDecimal", "true"}}, 4, 0),
      "STRUCT<arr: ARRAY<DECIMAL(21,1)>, d: DECIMAL(21,1), e: STRING, n: DECIMAL(21,1), "
      "s: STRING>");
  // A NULL root is discarded, as Spark does: no corrupt-record column from it.
  Write("/n/a.json", "null\n{\"a\":1}\n");
  EXPECT_EQ(Json("/n", {}, 2, 0), "STRUCT<a: BIGINT>");
  // prefersDecimal: Jackson's BigDecimal of the text; a negative scale (1.5e3 is 15E+2)
  // fails in every mode, as in Spark 4.
  Write("/p/a.json", "{\"b\":0.001,\"c\":1E-50,\"d\":2.50}\n");
  EXPECT_EQ(Json("/p", {{"prefersDecimal", "true"}}, 1, 0),
            "STRUCT<b: DECIMAL(3,3), c: DOUBLE, d: DECIMAL(3,2)>");
  Write("/p/b.json", "{\"a\":1.5e3}\n");
  for (const char* mode : {"PERMISSIVE", "DROPMALFORMED"}) {
    EXPECT_NE(Json("/p", {{"prefersDecimal", "true"}, {"mode", mode}}, 2, 0)
                  .find("NEGATIVE_SCALE_DISALLOWED"),
              std::string::npos);
  }
  // Fields sort as Java strings: U+1F600 (a surrogate pair) before U+FF41.
  Write("/u/a.json", "{\"\xef\xbd\x81\":1,\"\xf0\x9f\x98\x80\":2,\"b\":3}\n");
  EXPECT_EQ(Json("/u", {}, 1, 0),
            "STRUCT<b: BIGINT, `\xf0\x9f\x98\x80`: BIGINT, `\xef\xbd\x81`: BIGINT>");
  EXPECT_TRUE(json::JavaStringLess("\xf0\x9f\x98\x80", "\xef\xbd\x81"));
  EXPECT_TRUE(json::JavaStringLess("a", "ab"));
  EXPECT_FALSE(json::JavaStringLess("b", "a"));
}

// Wide records (the hash index of field names) and records rolled back half-way.
TEST_F(SchemaInferenceTest, JsonWideRecordsAndRollback) {
  std::string wide = "{";
  for (int i = 0; i < 40; ++i)
    wide += (i ? ",\"f" : "\"f") + std::to_string(i) + "\":" + std::to_string(i);
  wide += "}";
  std::vector<std::string> records = {
      wide,
      // Malformed after new fields, a type change and a new nested field: all undone.
      "{\"f1\":\"s\",\"f40\":1,\"f2\":{\"deep\":[1,2]},\"f3\":tru}",
      "{\"f39\":1.5,\"f0\":null}",
      "[{\"f5\":true},{\"f41\":1},3]",  // not an array of objects: corrupt, nothing added
  };
  std::vector<std::string_view> views(records.begin(), records.end());
  auto r = json::InferSchema(views, {});
  ASSERT_TRUE(r.ok());
  std::string expected = "STRUCT<_corrupt_record: STRING";
  std::vector<std::string> names;
  for (int i = 0; i < 40; ++i) names.push_back("f" + std::to_string(i));
  std::sort(names.begin(), names.end());
  for (const auto& n : names)
    expected += ", " + n + (n == "f39" ? ": DOUBLE" : ": BIGINT");
  EXPECT_EQ((*r)->Sql(), expected + ">");
}

TEST_F(SchemaInferenceTest, JsonSamplingDoesNotDependOnSplits) {
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    // Rare records carry other types: whether they are sampled decides the schema.
    text += i % 97 == 5 ? "{\"x\":\"str\",\"r" + std::to_string(i) + "\":1}\n"
                        : "{\"x\":" + std::to_string(i) + "}\n";
  }
  Write("/s/a.json", text);
  const std::string all = Json("/s", {}, 1, kWholeFiles);
  const std::string sampled = Json("/s", {{"samplingRatio", "0.1"}}, 1, kWholeFiles);
  EXPECT_NE(all, sampled);
  for (int64_t split : {int64_t{50}, int64_t{999}, int64_t{4096}}) {
    EXPECT_EQ(Json("/s", {{"samplingRatio", "0.1"}}, 4, split), sampled);
  }
  // Above 0.99 every record is read (Spark's JsonUtils.sample).
  EXPECT_EQ(Json("/s", {{"samplingRatio", "0.995"}}, 4, 100), all);
  EXPECT_EQ(Json("/s", {{"samplingRatio", "1.0"}}, 4, 100), all);
}

// CSV values whose types drift with their position in the file: each column keeps to a
// family of values (integers, numbers, booleans, dates and timestamps, ...); a region of
// lines draws from part of it.
std::string CsvLine(std::mt19937_64& rng, int region, int columns) {
  static const std::vector<std::vector<const char*>> kFamilies = {
      {"12", "-7", "", "5000000000", "9223372036854775808", "123456789012345678901234"},
      {"12", "1.5", "", "NaN", "1e5", "5000000000"},
      {"true", "false", "", "1"},
      {"2020-01-02", "", "2020-01-02 10:00:00", "2020-01-02T10:00:00Z"},
      {"2020/01/02 10:00", "2020-01-02 10:00:00", ""},
      {"x", "12", "", "\"quoted, comma\"", "true", "2020-01-02"},
  };
  std::string s;
  const int n = rng() % 23 == 0 ? columns - 1 : columns;  // some short rows
  for (int c = 0; c < n; ++c) {
    if (c) s += ",";
    const auto& family = kFamilies[static_cast<size_t>(c) % kFamilies.size()];
    const uint64_t h =
        (static_cast<uint64_t>(region) * 31 + static_cast<uint64_t>(c) * 17 + 3) *
        0x9E3779B97F4A7C15ull;
    // Mostly the region's value; now and then an empty one or the next value.
    const size_t a = (h >> 33) % family.size();
    const uint64_t roll = rng() % 16;
    s += family[roll == 0 ? (a + 1) % family.size() : roll == 1 ? 2 % family.size() : a];
  }
  return s;
}

TEST_F(SchemaInferenceTest, CsvParallelEqualsSequential) {
  std::mt19937_64 rng(5);
  for (int f = 0; f < 30; ++f) {
    std::string text = "k,v,w,x,y,z\n";
    const int lines = 1 + static_cast<int>(rng() % 80);
    for (int i = 0; i < lines; ++i) text += CsvLine(rng, f % 11 + i / 40, 6) + "\n";
    Write("/many/part-" + std::to_string(100 + f) + ".csv", text);
  }
  std::string big = "k,v,w,x,y,z\n";
  for (int i = 0; i < 4000; ++i)
    big += CsvLine(rng, i / 150, 6) + (i % 5 == 0 ? "\r\n" : "\n");
  Write("/big/one.csv", big);
  const std::vector<OptionMap> options = {
      {{"inferSchema", "true"}},
      {{"inferSchema", "true"}, {"header", "true"}},
      {{"inferSchema", "true"}, {"header", "true"}, {"preferDate", "false"}},
      {{"inferSchema", "true"}, {"timestampNTZFormat", "yyyy/MM/dd HH:mm"}},
      {{"inferSchema", "true"},
       {"header", "true"},
       {"timestampFormat", "yyyy/MM/dd HH:mm"}},
      {{"inferSchema", "true"}, {"dateFormat", "yyyy/MM/dd HH:mm"}},
      {{"inferSchema", "true"}, {"samplingRatio", "0.3"}},
      {{"inferSchema", "true"}, {"nullValue", "x"}, {"header", "true"}},
  };
  int differing_types = 0;
  for (const char* path : {"/many", "/big"}) {
    for (const auto& o : options) {
      const std::string sequential = Csv(path, o, 1, kWholeFiles);
      for (int64_t split : {int64_t{31}, int64_t{400}, int64_t{3000}, int64_t{0}}) {
        EXPECT_EQ(Csv(path, o, 4, split), sequential) << path << " split " << split;
      }
      for (const char* t :
           {"int", "bigint", "decimal", "double", "boolean", "date", "timestamp"})
        differing_types +=
            sequential.find(std::string(":") + t + ",") != std::string::npos ||
            sequential.find(std::string(":") + t + "(") != std::string::npos;
    }
  }
  // The data exercise the fold with more than STRING.
  EXPECT_GE(differing_types, 16);
}

// Where a merge of independent splits would differ from the fold over the file.
TEST_F(SchemaInferenceTest, CsvSplitsComposeAsOneFold) {
  auto column = [&](const std::vector<std::string>& blocks, const OptionMap& o) {
    std::string text;
    for (const auto& b : blocks) {
      for (int i = 0; i < 50; ++i) text += b + "\n";
    }
    Write("/fold/a.csv", text);
    const std::string sequential = Csv("/fold", o, 1, kWholeFiles);
    for (int64_t split : {int64_t{64}, int64_t{1000}}) {
      EXPECT_EQ(Csv("/fold", o, 4, split), sequential) << text.substr(0, 40);
    }
    return sequential;
  };
  const OptionMap infer = {{"inferSchema", "true"}};
  // DECIMAL(19,0) then BIGINT values: the fold keeps DECIMAL(19,0); merging the splits
  // would give DECIMAL(20,0).
  EXPECT_EQ(column({"9223372036854775808", "5000000000"}, infer), "_c0:decimal(19,0),");
  EXPECT_EQ(column({"9223372036854775808", "12", "5000000000", "-3"}, infer),
            "_c0:decimal(19,0),");
  EXPECT_EQ(column({"5000000000", "9223372036854775808", "12"}, infer),
            "_c0:decimal(20,0),");
  // BOOLEAN then INT then INT: the fold ends at STRING (merging: NULL, then INT).
  EXPECT_EQ(column({"true", "1", "2"}, infer), "_c0:string,");
  // INT then BIGINT then DOUBLE, with empty values between.
  EXPECT_EQ(column({"1", "", "5000000000", "2.5"}, infer), "_c0:double,");
  // A value only the NTZ pattern reads makes TIMESTAMP from NULL but STRING after it.
  const OptionMap ntz = {{"inferSchema", "true"},
                         {"timestampNTZFormat", "yyyy/MM/dd HH:mm"}};
  EXPECT_EQ(column({"2020/01/02 10:00"}, ntz), "_c0:string,");
  EXPECT_EQ(column({"", "2020-01-02 10:00:00", "2020/01/02 10:00"}, ntz), "_c0:string,");
  EXPECT_EQ(column({"2020-01-02 10:00:00"}, ntz), "_c0:timestamp,");
  // Numbers then dates: STRING.
  EXPECT_EQ(column({"1", "2020-01-02"}, infer), "_c0:string,");
}

TEST_F(SchemaInferenceTest, CsvErrorsNameTheFileAnySplitting) {
  std::string text = "a,b\n";
  for (int i = 0; i < 500; ++i) text += "1,2\n";
  text += "1,2,3,4,5\n";
  Write("/err/a.csv", text);
  const OptionMap o = {{"inferSchema", "true"}, {"maxColumns", "3"}};
  const std::string sequential = Csv("/err", o, 1, kWholeFiles);
  EXPECT_NE(sequential.find("/err/a.csv"), std::string::npos) << sequential;
  EXPECT_EQ(Csv("/err", o, 4, 100), sequential);
}

}  // namespace
}  // namespace spate::formats
