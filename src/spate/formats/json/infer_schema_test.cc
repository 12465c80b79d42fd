// Copyright spate authors.
#include "spate/formats/json/infer_schema.h"

#include <gtest/gtest.h>

#include <cmath>

#include "spate/columnar/builder.h"
#include "spate/formats/json/writer.h"
#include "spate/testing/status_matchers.h"

namespace spate::formats::json {
namespace {

std::string Infer(const std::vector<std::string_view>& texts, JsonOptions o = {}) {
  auto r = InferSchema(texts, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? (*r)->Sql() : "";
}

TEST(JsonInferSchemaTest, MergesRecords) {
  EXPECT_EQ(
      Infer({R"({"b":1,"a":"x"})", R"({"b":1.5,"c":[1,2]})", R"({"c":[null],"d":null})"}),
      "STRUCT<a: STRING, b: DOUBLE, c: ARRAY<BIGINT>, d: STRING>");
  EXPECT_EQ(Infer({R"({"s":{"x":1}})", R"({"s":{"y":true}})", R"({"s":"text"})"}),
            "STRUCT<s: STRING>");
  EXPECT_EQ(Infer({R"({"s":{"x":1}})", R"({"s":{"y":true}})"}),
            "STRUCT<s: STRUCT<x: BIGINT, y: BOOLEAN>>");
  EXPECT_EQ(Infer({R"({"n":12345678901234567890})", R"({"n":1})"}),
            "STRUCT<n: DECIMAL(20,0)>");
  EXPECT_EQ(Infer({R"([{"a":1},{"b":2}])"}), "STRUCT<a: BIGINT, b: BIGINT>");
}

TEST(JsonInferSchemaTest, CorruptRecordsByMode) {
  EXPECT_EQ(Infer({R"({"a":1})", R"({"a":)", "5"}),
            "STRUCT<_corrupt_record: STRING, a: BIGINT>");
  JsonOptions drop;
  drop.mode = ParseMode::kDropMalformed;
  EXPECT_EQ(Infer({R"({"a":1})", R"({"a":)"}, drop), "STRUCT<a: BIGINT>");
  JsonOptions fail;
  fail.mode = ParseMode::kFailFast;
  EXPECT_EQ(InferSchema({R"({"a":)"}, fail).status().error_class(),
            "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION");
}

TEST(JsonInferSchemaTest, InferTypeOfAnyRoot) {
  JsonOptions o;
  EXPECT_EQ((*InferType("[{\"col\":0}]", o))->Sql(), "ARRAY<STRUCT<col: BIGINT>>");
  EXPECT_EQ((*InferType("1.5", o))->Sql(), "DOUBLE");
  o.primitives_as_string = true;
  EXPECT_EQ((*InferType("{\"a\":true}", o))->Sql(), "STRUCT<a: STRING>");
  EXPECT_ERROR_CLASS(InferType(std::string(5000, '['), o),
                     "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION");
}

TEST(JsonWriterTest, WritesSparkText) {
  auto type = DataType::Struct(
      {{"a", DataType::Int()}, {"d", DataType::Double()}, {"s", DataType::String()}});
  auto col = ColumnFromValues(
      type,
      {Value::Struct(type, {Value::Int(1), Value::Double(NAN), Value::String("x\n")}),
       Value::Struct(type, {Value::Null(DataType::Int()), Value::Double(0.5),
                            Value::Null(DataType::String())})});
  auto w = JsonWriter::Make({});
  ASSERT_TRUE(w.ok());
  auto out = w->WriteColumn(*col);
  EXPECT_EQ(out->GetView(0), R"({"a":1,"d":"NaN","s":"x\n"})");
  EXPECT_EQ(out->GetView(1), R"({"d":0.5})");
}

}  // namespace
}  // namespace spate::formats::json
