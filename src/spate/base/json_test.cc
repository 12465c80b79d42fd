// Copyright spate authors.
#include "spate/base/json.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "spate/testing/status_matchers.h"

namespace spate {
namespace {

TEST(JsonTest, RoundTripKeepsOrderAndNumberText) {
  std::string text =
      R"({"b":1,"a":[true,false,null,"x"],"d":123.4500,"big":12345678901234567890,"n":-0.5e3})";
  auto j = Json::Parse(text).value();
  EXPECT_EQ(j.ToString(), text);
  EXPECT_EQ(j.fields()[0].first, "b");
  EXPECT_EQ(j.Find("d")->text(), "123.4500");
  EXPECT_DOUBLE_EQ(j.Find("n")->double_value(), -500);
  EXPECT_EQ(j.GetInt("b").value(), 1);
  EXPECT_FALSE(j.GetInt("a").has_value());
  EXPECT_FALSE(j.GetString("zz").has_value());
}

TEST(JsonTest, StringsAndEscapes) {
  auto j = Json::Parse(R"(["a\"b\\c\/\n\t", "\u00e9\ud83d\ude00", "\ud800x"])").value();
  EXPECT_EQ(j.items()[0].string_value(), "a\"b\\c/\n\t");
  EXPECT_EQ(j.items()[1].string_value(), "\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(j.items()[2].string_value(), "\xEF\xBF\xBDx");  // lone surrogate -> U+FFFD
  std::string out;
  AppendJsonString(std::string("q\"\x01"), &out);
  EXPECT_EQ(out, "\"q\\\"\\u0001\"");
  // Jackson's escaping: upper-case hex, the short forms, DEL and UTF-8 unescaped.
  out.clear();
  AppendJsonString(std::string("\x1f\b\f\n\r\t\\/\x7f\xC3\xA9", 11), &out);
  EXPECT_EQ(out, "\"\\u001F\\b\\f\\n\\r\\t\\\\/\x7f\xC3\xA9\"");
  out.clear();
  AppendJsonString(std::string("a\0b", 3), &out);
  EXPECT_EQ(out, "\"a\\u0000b\"");
  EXPECT_EQ(Json::Double(1.5).ToString(), "1.5");
  EXPECT_EQ(Json::Double(std::numeric_limits<double>::quiet_NaN()).ToString(), "\"NaN\"");
}

// Jackson's default pretty printer (json4s' pretty(), Spark's prettyJson).
TEST(JsonTest, PrettyAsJackson) {
  auto v =
      Json::Parse(R"({"id":"x","sources":[{"a":1}],"ops":[],"m":{},"l":[1,"a",null]})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->ToPrettyString(),
            "{\n  \"id\" : \"x\",\n  \"sources\" : [ {\n    \"a\" : 1\n  } ],\n  \"ops\" "
            ": [ ],\n  \"m\" : { },\n  \"l\" : [ 1, \"a\", null ]\n}");
  EXPECT_EQ(Json::Object().ToPrettyString(), "{ }");
  EXPECT_EQ(Json::Int(7).ToPrettyString(), "7");
}

TEST(JsonTest, IntValueTruncatesAndSaturates) {
  auto j = Json::Parse(R"([7,-2.9,1e3,12345678901234567890,-1e300,"5",true])").value();
  std::vector<int64_t> got;
  for (const Json& v : j.items()) got.push_back(v.int_value());
  EXPECT_EQ(got, (std::vector<int64_t>{7, -2, 1000, std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min(), 0, 0}));
  EXPECT_EQ(Json::NumberText("NaN").int_value(), 0);
}

TEST(JsonTest, NumbersCompareByValue) {
  EXPECT_EQ(Json::Int(1000), Json::Parse("1e3").value());
  EXPECT_EQ(Json::Parse("1.0").value(), Json::Int(1));
  // Integers beyond 2^53 compare exactly, not as their (equal) doubles.
  EXPECT_NE(Json::Int(9007199254740993), Json::Int(9007199254740992));
  EXPECT_NE(Json::Int(1), Json::String("1"));
}

TEST(JsonTest, MalformedInputIsAnErrorWithOffset) {
  for (const char* bad :
       {"", "{", "[1,]", "{\"a\" 1}", "\"abc", "01x", "tru", "{} x", "\"\\x\""}) {
    auto r = Json::Parse(bad);
    EXPECT_ERROR_HAS(r, "malformed JSON at byte") << bad;
  }
  std::string deep(100000, '[');
  EXPECT_ERROR_HAS(Json::Parse(deep),
                   "nesting too deep");  // depth limit, no stack overflow
  EXPECT_TRUE(Json::Parse(" {\"a\" : [ 1 , 2 ] } ").ok());
}

}  // namespace
}  // namespace spate
