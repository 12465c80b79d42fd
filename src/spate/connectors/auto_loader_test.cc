// Copyright spate authors.
#include "spate/connectors/auto_loader.h"

#include <gtest/gtest.h>

#include "spate/sql/parser.h"
#include "spate/testing/status_matchers.h"

namespace spate::connectors {
namespace {

SchemaPtr Ddl(const std::string& ddl) { return *sql::ParseDdlSchema(ddl); }

std::map<std::string, std::string> JsonOpts(
    std::map<std::string, std::string> more = {}) {
  more["cloudFiles.format"] = "json";
  return more;
}

TEST(AutoLoaderOptions, DefaultsWithoutASchema) {
  auto o = ParseAutoLoaderOptions(
      JsonOpts({{"cloudFiles.schemaLocation", "/s"}, {"header", "x"}}), "/in", false);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->format, "json");
  EXPECT_EQ(o->mode, SchemaEvolutionMode::kAddNewColumns);
  EXPECT_EQ(o->rescued_column, "_rescued_data");
  EXPECT_FALSE(o->infer_column_types);
  EXPECT_TRUE(o->include_existing_files);
  // Databricks' default rate limit, and the reader's options without the prefix.
  EXPECT_EQ(o->reader_options.at("maxFilesPerTrigger"), "1000");
  EXPECT_EQ(o->reader_options.at("rescuedDataColumn"), "_rescued_data");
  EXPECT_EQ(o->reader_options.at("header"), "x");
  EXPECT_EQ(o->reader_options.at("maxFileAge"), "36500d");  // files are tracked for good
  EXPECT_EQ(o->reader_options.count("cloudFiles.format"), 0u);
}

TEST(AutoLoaderOptions, DefaultsWithASchema) {
  auto o = ParseAutoLoaderOptions(JsonOpts(), "/in", true);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->mode, SchemaEvolutionMode::kNone);
  EXPECT_EQ(o->rescued_column, "");
  EXPECT_EQ(o->reader_options.count("rescuedDataColumn"), 0u);
  auto r = ParseAutoLoaderOptions(
      JsonOpts({{"cloudFiles.schemaEvolutionMode", "RESCUE"}}), "/in", true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mode, SchemaEvolutionMode::kRescue);
  EXPECT_EQ(r->rescued_column, "_rescued_data");
  auto n = ParseAutoLoaderOptions(JsonOpts({{"cloudFiles.schemaLocation", "/s"},
                                            {"cloudFiles.schemaEvolutionMode", "none"},
                                            {"rescuedDataColumn", "_r"}}),
                                  "/in", false);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->rescued_column, "_r");
}

TEST(AutoLoaderOptions, Errors) {
  auto message = [](const std::map<std::string, std::string>& opts, bool schema) {
    auto o = ParseAutoLoaderOptions(opts, "/in", schema);
    return o.ok() ? std::string("ok") : o.status().ToString();
  };
  EXPECT_NE(message({}, true).find("cloudFiles.format is required"), std::string::npos);
  EXPECT_NE(message({{"cloudFiles.format", "orc"}}, true).find("not supported"),
            std::string::npos);
  EXPECT_NE(message(JsonOpts(), false).find("SPATE_CLOUD_FILES_INVALID"),
            std::string::npos);
  EXPECT_NE(message(JsonOpts(), false).find("cloudFiles.schemaLocation"),
            std::string::npos);
  EXPECT_NE(message(JsonOpts({{"cloudFiles.schemaEvolutionMode", "addNewColumns"}}), true)
                .find("addNewColumns is not supported when the schema is specified"),
            std::string::npos);
  EXPECT_NE(message(JsonOpts({{"cloudFiles.schemaEvolutionMode", "sometimes"}}), true)
                .find("cloudFiles.schemaEvolutionMode"),
            std::string::npos);
  EXPECT_NE(message(JsonOpts({{"cloudFiles.inferColumnTypes", "yes"}}), true)
                .find("true or false"),
            std::string::npos);
  EXPECT_NE(message(JsonOpts({{"cloudFiles.allowOverwrites", "true"}}), true)
                .find("cloudFiles.allowOverwrites' is not supported"),
            std::string::npos);
  EXPECT_NE(message(JsonOpts({{"cloudFiles.useNotifications", "true"}}), true)
                .find("notification"),
            std::string::npos);
  // The rescued column: JSON and CSV, not Parquet.
  EXPECT_NE(
      message({{"cloudFiles.format", "parquet"}, {"cloudFiles.rescuedDataColumn", "_r"}},
              true)
          .find("not parquet"),
      std::string::npos);
  auto pq = ParseAutoLoaderOptions(
      {{"cloudFiles.format", "parquet"}, {"cloudFiles.schemaLocation", "/s"}}, "/in",
      false);
  ASSERT_TRUE(pq.ok());
  EXPECT_EQ(pq->rescued_column, "");
  auto csv = ParseAutoLoaderOptions(
      {{"cloudFiles.format", "csv"}, {"cloudFiles.schemaLocation", "/s"}}, "/in", false);
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(csv->rescued_column, "_rescued_data");
}

TEST(AutoLoaderOptions, ByteStrings) {
  EXPECT_EQ(*ParseByteString("1024"), 1024);
  EXPECT_EQ(*ParseByteString("10k"), 10 << 10);
  EXPECT_EQ(*ParseByteString("512m"), 512ll << 20);
  EXPECT_EQ(*ParseByteString("10g"), 10ll << 30);
  EXPECT_EQ(*ParseByteString("10GB"), 10ll << 30);
  EXPECT_EQ(*ParseByteString("7b"), 7);
  for (const char* bad : {"", "g", "-1", "0", "1.5g", "10x", "lots", "99999999999t"}) {
    EXPECT_ERROR_CLASS(ParseByteString(bad), "SPATE_CLOUD_FILES_INVALID") << bad;
  }
  auto o = ParseAutoLoaderOptions(JsonOpts({{"cloudFiles.maxBytesPerTrigger", "2m"},
                                            {"cloudFiles.maxFilesPerTrigger", "5"}}),
                                  "/in", true);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->reader_options.at("maxBytesPerTrigger"), std::to_string(2 << 20));
  EXPECT_EQ(o->reader_options.at("maxFilesPerTrigger"), "5");
}

TEST(AutoLoaderSchemaLog, WritesAndReadsVersions) {
  io::MemoryFileSystem fs;
  auto none = ReadLatestSchemaVersion(fs, "/loc");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(WriteSchemaVersion(fs, "/loc", 0, *Ddl("a STRING, s STRUCT<p: INT>")).ok());
  ASSERT_TRUE(WriteSchemaVersion(fs, "/loc", 1, *Ddl("a STRING, b BIGINT")).ok());
  // A version is never replaced.
  ASSERT_TRUE(WriteSchemaVersion(fs, "/loc", 1, *Ddl("z STRING")).ok());
  auto latest = ReadLatestSchemaVersion(fs, "/loc");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->first, 1);
  EXPECT_EQ((*latest)->second->ToString(), "struct<a:string,b:bigint>");
  auto text = fs.ReadAll("/loc/_schemas/0");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(
      *text,
      "v1\n{\"dataSchemaJson\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{"
      "\\\"name\\\":"
      "\\\"a\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
      "{\\\"name\\\":\\\"s\\\",\\\"type\\\":{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":"
      "[{\\\"name\\\":\\\"p\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,"
      "\\\"metadata\\\":{}}]},\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
      "\"partitionSchemaJson\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\"}");
}

TEST(AutoLoaderSchemaLog, CorruptFileNamesIt) {
  io::MemoryFileSystem fs;
  ASSERT_TRUE(fs.MakeDirs("/loc/_schemas").ok());
  ASSERT_TRUE(fs.WriteAtomic("/loc/_schemas/0", "v1\n{not json").ok());
  auto r = ReadLatestSchemaVersion(fs, "/loc");
  ASSERT_ERROR_HAS(r, "/loc/_schemas/0");
  EXPECT_EQ(r.status().code(), StatusCode::kDataCorruption);
}

TEST(AutoLoaderSchemaHints, OverrideAddAndNest) {
  auto s =
      ApplySchemaHints(*Ddl("a STRING, s STRUCT<p: STRING, q: STRING>, m STRING"),
                       "a INT, s.p DOUBLE,`new col` DECIMAL(10, 2), t.u DATE, M BIGINT");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->ToString(),
            "struct<a:int,s:struct<p:double,q:string>,m:bigint,new col:decimal(10,2),"
            "t:struct<u:date>>");
  EXPECT_EQ((*ApplySchemaHints(*Ddl("a STRING"), " "))->ToString(), "struct<a:string>");
  EXPECT_ERROR_CLASS(ApplySchemaHints(*Ddl("a STRING"), "a"),
                     "SPATE_CLOUD_FILES_INVALID");
  EXPECT_ERROR_HAS(ApplySchemaHints(*Ddl("a STRING"), "a NOPE"),
                   "not a valid schema hint: a NOPE");
}

TEST(AutoLoaderEvolution, AddsNewFieldsOnly) {
  std::vector<std::string> added;
  auto s =
      AddNewFields(*Ddl("a STRING, s STRUCT<p: STRING>"),
                   *Ddl("A BIGINT, c STRING, s STRUCT<p: BIGINT, q: STRING>"), &added);
  // Existing names (any case) keep their type; new fields are appended.
  EXPECT_EQ(s->ToString(), "struct<a:string,s:struct<p:string,q:string>,c:string>");
  EXPECT_EQ(added, (std::vector<std::string>{"c", "s.q"}));
  added.clear();
  AddNewFields(*Ddl("a STRING"), *Ddl("a STRING"), &added);
  EXPECT_TRUE(added.empty());
}

}  // namespace
}  // namespace spate::connectors
