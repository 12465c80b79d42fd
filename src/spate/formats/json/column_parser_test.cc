// Copyright spate authors.
#include "spate/formats/json/column_parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>

#include "spate/columnar/builder.h"

namespace spate::formats::json {
namespace {

DataTypePtr S(std::vector<Field> f) { return DataType::Struct(std::move(f)); }

// Parses each text as from_json does and returns Value::ToString of each row.
std::vector<std::string> Parse(const DataTypePtr& schema,
                               const std::vector<std::string>& texts,
                               JsonOptions options = {}) {
  auto p = JsonColumnParser::Make(schema, std::move(options));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  StringBuilder sb;
  for (const auto& t : texts) sb.Append(t);
  auto col = (*p)->ParseStrings(*sb.Finish());
  EXPECT_TRUE(col.ok()) << col.status().ToString();
  std::vector<std::string> out;
  if (!col.ok()) return out;
  for (int64_t i = 0; i < (*col)->length(); ++i)
    out.push_back((*col)->GetValue(i).ToString());
  return out;
}

TEST(JsonColumnParserTest, Primitives) {
  auto schema = S({{"a", DataType::Int()},
                   {"b", DataType::Double()},
                   {"c", DataType::String()},
                   {"d", DataType::Boolean()}});
  auto rows = Parse(schema, {R"({"a":1, "b":0.8, "c":"x", "d":true})", R"({"b":2})",
                             R"({"a":null,"c":{"k":[1, 2]},"zz":5})", R"({"c":1.50})"});
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], "{1, 0.8, x, true}");
  EXPECT_EQ(rows[1], "{NULL, 2.0, NULL, NULL}");
  EXPECT_EQ(rows[2], "{NULL, NULL, {\"k\":[1, 2]}, NULL}");
  EXPECT_EQ(rows[3], "{NULL, NULL, 1.50, NULL}");
}

TEST(JsonColumnParserTest, CaseSensitiveAndLastDuplicateWins) {
  auto schema = S({{"a", DataType::Long()}});
  auto rows = Parse(schema, {R"({"A":1})", R"({"a":1,"a":2})"});
  EXPECT_EQ(rows[0], "{NULL}");
  EXPECT_EQ(rows[1], "{2}");
}

TEST(JsonColumnParserTest, PartialResultsAndCorruptColumn) {
  auto schema = S({{"a", DataType::Int()},
                   {"b", DataType::Int()},
                   {"_corrupt_record", DataType::String()}});
  auto rows = Parse(schema, {R"({"a":"x","b":2})", R"({"a":1, "b":)",
                             R"({"a":3000000000})", "", R"([{"a":1}])"});
  EXPECT_EQ(rows[0], R"({NULL, 2, {"a":"x","b":2}})");
  EXPECT_EQ(rows[1], R"({NULL, NULL, {"a":1, "b":})");
  EXPECT_EQ(rows[2], R"({NULL, NULL, {"a":3000000000}})");
  EXPECT_EQ(rows[3], "NULL");
  EXPECT_EQ(rows[4], R"({NULL, NULL, [{"a":1}]})");
}

TEST(JsonColumnParserTest, UnmatchedAndBadValuesAreRescued) {
  auto schema = S({{"a", DataType::Int()},
                   {"s", S({{"p", DataType::Int()}})},
                   {"_corrupt_record", DataType::String()}});
  JsonOptions o;
  o.bad_values_are_rescued = true;
  auto p = JsonColumnParser::Make(schema, o);
  ASSERT_TRUE(p.ok());
  auto unmatched = [&](const std::string& text) {
    bool u = true;
    int64_t rows = -1;
    EXPECT_TRUE((*p)->Append(text, &rows, &u).ok());
    return std::to_string(rows) + (u ? " unmatched" : "");
  };
  EXPECT_EQ(unmatched(R"({"a":1,"s":{"p":2}})"), "1");
  EXPECT_EQ(unmatched(R"({"a":1,"b":2})"), "1 unmatched");  // unknown field
  EXPECT_EQ(unmatched(R"({"A":1})"), "1 unmatched");        // case differs
  EXPECT_EQ(unmatched(R"({"a":"x"})"), "1 unmatched");      // does not convert
  EXPECT_EQ(unmatched(R"({"s":{"p":1,"q":2}})"), "1");      // nested: not rescued
  EXPECT_EQ(unmatched(R"({"_corrupt_record":"t"})"), "1 unmatched");
  EXPECT_EQ(unmatched("  "), "0");
  // With bad_values_are_rescued a bad value leaves the record good: no corrupt text.
  auto col = (*p)->Finish();
  EXPECT_EQ(col->GetValue(3).ToString(), "{NULL, NULL, NULL}");
}

TEST(JsonColumnParserTest, ArraysAndMaps) {
  auto schema = S({{"xs", DataType::Array(DataType::Int())},
                   {"m", DataType::Map(DataType::String(), DataType::Long())},
                   {"s", S({{"p", DataType::String()}})}});
  auto rows = Parse(schema, {R"({"xs":[1,2,null],"m":{"k":1,"j":null},"s":{"p":"q"}})",
                             R"({"xs":[1,"2"],"m":{"k":"v"}})"});
  EXPECT_EQ(rows[0], "{[1, 2, NULL], {k -> 1, j -> NULL}, {q}}");
  EXPECT_EQ(rows[1], "{NULL, {k -> NULL}, NULL}");
  auto arr = Parse(DataType::Array(DataType::Int()),
                   {"[1, 2, 3]", R"([1, "2", 3])", R"({"a":1})"});
  EXPECT_EQ(arr[0], "[1, 2, 3]");
  EXPECT_EQ(arr[1], "NULL");
  EXPECT_EQ(arr[2], "NULL");
  auto one = Parse(DataType::Array(S({{"a", DataType::Int()}})),
                   {R"({"a": 1})", R"([null, {"a":2}])"});
  EXPECT_EQ(one[0], "[{1}]");
  EXPECT_EQ(one[1], "[NULL, {2}]");
}

TEST(JsonColumnParserTest, NumbersDecimalsAndNonNumeric) {
  auto schema = S({{"d", DataType::Decimal(10, 2)},
                   {"f", DataType::Double()},
                   {"b", DataType::Byte()}});
  auto rows = Parse(schema, {R"({"d":12.345,"f":"NaN","b":127})",
                             R"({"d":123456789012,"f":"-Infinity","b":128})",
                             R"({"d":"1.5","f":NaN})", R"({"d":1e2,"f":1e400})"});
  EXPECT_EQ(rows[0], "{12.35, NaN, 127}");
  EXPECT_EQ(rows[1], "{NULL, -Infinity, NULL}");
  EXPECT_EQ(rows[2], "{1.50, NaN, NULL}");
  EXPECT_EQ(rows[3].substr(0, 8), "{100.00,");
}

TEST(JsonColumnParserTest, Datetimes) {
  auto schema = S({{"d", DataType::Date()}, {"t", DataType::Timestamp()}});
  auto rows = Parse(
      schema, {R"({"d": "2012-12-15", "t": "2012-12-15 15:15:15"})", R"({"t": 1})"});
  EXPECT_EQ(rows[0], "{2012-12-15, 2012-12-15 15:15:15}");
  EXPECT_EQ(rows[1], "{NULL, 1970-01-01 00:00:01}");
  JsonOptions o;
  o.date_format = "MM/dd yyyy";
  o.timestamp_format = "MM/dd yyyy HH:mm:ss";
  rows = Parse(schema, {R"({"d": "12/15 2012", "t": "12/15 2012 15:15:15"})"}, o);
  EXPECT_EQ(rows[0], "{2012-12-15, 2012-12-15 15:15:15}");
}

TEST(JsonColumnParserTest, Leniency) {
  auto schema = S({{"a", DataType::String()}, {"b", DataType::Int()}});
  auto rows = Parse(schema, {R"({'a': 'x', 'b': 1})"});
  EXPECT_EQ(rows[0], "{x, 1}");
  JsonOptions o;
  o.allow_comments = true;
  o.allow_unquoted_field_names = true;
  rows = Parse(schema, {"{a: 'y' /* c */, b: 2} // end"}, o);
  EXPECT_EQ(rows[0], "{y, 2}");
  rows = Parse(schema, {"{a: 'y'}"});
  EXPECT_EQ(rows[0], "{NULL, NULL}");
}

TEST(JsonColumnParserTest, Modes) {
  auto schema = S({{"a", DataType::Int()}});
  JsonOptions o;
  o.mode = ParseMode::kFailFast;
  auto p = std::move(JsonColumnParser::Make(schema, o)).value();
  EXPECT_TRUE(p->Append(R"({"a":1})").ok());
  Status st = p->Append(R"({"a":)");
  EXPECT_EQ(st.error_class(), "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION");
  EXPECT_NE(st.message().find("[null]"), std::string::npos) << st.message();
  o.mode = ParseMode::kDropMalformed;
  auto d = std::move(JsonColumnParser::Make(schema, o, /*allow_array_as_structs=*/true))
               .value();
  EXPECT_TRUE(d->Append(R"({"a":1})").ok());
  EXPECT_TRUE(d->Append(R"({"a":"x"})").ok());
  EXPECT_TRUE(d->Append(R"([{"a":2},{"a":3}])").ok());
  EXPECT_TRUE(d->Append("   ").ok());
  auto col = d->Finish();
  ASSERT_EQ(col->length(), 3);
  EXPECT_EQ(col->GetValue(2).ToString(), "{3}");
}

// Strings with and without escapes: whitespace around tokens, empty strings, escaped
// quotes and backslashes (also as the last character), \u escapes, strings in arrays and
// as map values, non-strings kept as their JSON text.
TEST(JsonColumnParserTest, StringsWithAndWithoutEscapes) {
  auto schema = S({{"s", DataType::String()},
                   {"t", DataType::String()},
                   {"arr", DataType::Array(DataType::String())},
                   {"m", DataType::Map(DataType::String(), DataType::String())}});
  auto rows = Parse(
      schema, {R"({"s" : "ab" , "t":""  ,"arr":[ "x" ,"y\"z", "" ],"m":{"k": "v" }})",
               R"({"s":"a\"b","t":"x\\"})", R"({"s":"\u00e9t\u00e9","t":"tab\tx"})",
               R"({"s": "a,b}c" ,"t":"[1]"})",
               R"({"s":12 ,"t":{"a": "b"},"arr":["q",1]})", "{\"s\":\"\xc3\xa9\"\n}"});
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0], R"({ab, , [x, y"z, ], {k -> v}})");
  EXPECT_EQ(rows[1], R"({a"b, x\, NULL, NULL})");
  EXPECT_EQ(rows[2], "{\xc3\xa9t\xc3\xa9, tab\tx, NULL, NULL}");
  EXPECT_EQ(rows[3], "{a,b}c, [1], NULL, NULL}");
  EXPECT_EQ(rows[4], R"({12, {"a": "b"}, [q, 1], NULL})");
  EXPECT_EQ(rows[5], "{\xc3\xa9, NULL, NULL, NULL}");
}

// A field absent from records is NULL there: each record's fields (or the struct
// itself) lag behind, padded when the field's next value comes or at Finish. Every type's
// padding, gaps mid-batch and at the end, a nested struct missing a field, a repeated key
// after a gap, and the same rows parsed one record per batch.
TEST(JsonColumnParserTest, AbsentFieldsAreNullForEveryType) {
  auto inner = S({{"p", DataType::Long()}, {"q", DataType::String()}});
  auto schema = S({{"bo", DataType::Boolean()},
                   {"by", DataType::Byte()},
                   {"i", DataType::Int()},
                   {"l", DataType::Long()},
                   {"f", DataType::Float()},
                   {"d", DataType::Double()},
                   {"dec", DataType::Decimal(10, 2)},
                   {"s", DataType::String()},
                   {"bin", DataType::Binary()},
                   {"dt", DataType::Date()},
                   {"ts", DataType::Timestamp()},
                   {"arr", DataType::Array(DataType::Long())},
                   {"m", DataType::Map(DataType::String(), DataType::Long())},
                   {"st", inner},
                   {"n", DataType::Null()}});
  const std::string all =
      R"({"bo":true,"by":1,"i":2,"l":3,"f":1.5,"d":2.5,"dec":1.25,"s":"x","bin":"YWI=",)"
      R"("dt":"2020-01-02","ts":"2020-01-02 03:04:05","arr":[1,2],"m":{"k":7},)"
      R"("st":{"p":4,"q":"y"},"n":null})";
  const std::vector<std::string> texts = {all,
                                          "{}",
                                          "{}",
                                          R"({"l":5,"st":{"q":"z"}})",
                                          "{}",
                                          all,
                                          R"({"st":null,"s":null})",
                                          R"({"l":6,"l":7})",
                                          "{}",
                                          R"({"st":{"p":8}})",
                                          all,
                                          "{}",
                                          "{}"};
  auto rows = Parse(schema, texts);
  ASSERT_EQ(rows.size(), texts.size());
  const std::string nulls =
      "{NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL, NULL}";
  for (size_t i : {1, 2, 4, 6, 8, 11, 12}) EXPECT_EQ(rows[i], nulls) << i;
  EXPECT_EQ(rows[3],
            "{NULL, NULL, NULL, 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            "NULL, NULL, {NULL, z}, NULL}");
  EXPECT_EQ(rows[7],
            "{NULL, NULL, NULL, 7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            "NULL, NULL, NULL, NULL}");
  EXPECT_EQ(rows[9],
            "{NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            "NULL, NULL, {8, NULL}, NULL}");
  EXPECT_EQ(rows[0].substr(0, 14), "{true, 1, 2, 3");
  EXPECT_EQ(rows[5], rows[0]);
  EXPECT_EQ(rows[10], rows[0]);
  for (size_t i = 0; i < texts.size(); ++i) {
    auto one = Parse(schema, {texts[i]});
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0], rows[i]) << texts[i];
  }
  // The NULL counts agree with the values (validity padded with the values).
  auto p = std::move(JsonColumnParser::Make(schema, {})).value();
  for (const auto& t : texts) ASSERT_TRUE(p->Append(t).ok());
  auto col = p->Finish();
  ASSERT_EQ(col->length(), static_cast<int64_t>(texts.size()));
  EXPECT_EQ(col->children()[3]->null_count(), 8);   // l: values in rows 0, 3, 5, 7, 10
  EXPECT_EQ(col->children()[13]->null_count(), 8);  // st: values in rows 0, 3, 5, 9, 10
  EXPECT_EQ(col->children()[14]->null_count(), 13);
}

// The corrupt-record column and FAILFAST's row text with fields lagging behind.
TEST(JsonColumnParserTest, CorruptColumnAndFailFastAfterAbsentFields) {
  auto schema = S({{"a", DataType::Int()},
                   {"b", DataType::String()},
                   {"c", S({{"p", DataType::Int()}})},
                   {"_corrupt_record", DataType::String()}});
  auto p = std::move(JsonColumnParser::Make(schema, {}, /*allow_array_as_structs=*/true))
               .value();
  for (const char* t : {R"({"b":"x"})", R"({"b":"y"})", R"([{"a":1},{"a":"bad"}])",
                        R"({"a":2})", R"({"a":)", "{}"}) {
    ASSERT_TRUE(p->Append(t).ok()) << t;
  }
  auto col = p->Finish();
  std::vector<std::string> got;
  for (int64_t i = 0; i < col->length(); ++i) got.push_back(col->GetValue(i).ToString());
  const std::vector<std::string> want = {"{NULL, x, NULL, NULL}",
                                         "{NULL, y, NULL, NULL}",
                                         R"({1, NULL, NULL, [{"a":1},{"a":"bad"}]})",
                                         R"({NULL, NULL, NULL, [{"a":1},{"a":"bad"}]})",
                                         "{2, NULL, NULL, NULL}",
                                         R"({NULL, NULL, NULL, {"a":})",
                                         "{NULL, NULL, NULL, NULL}"};
  EXPECT_EQ(got, want);
  JsonOptions o;
  o.mode = ParseMode::kFailFast;
  auto f = std::move(JsonColumnParser::Make(schema, o)).value();
  EXPECT_TRUE(f->Append(R"({"b":"x"})").ok());
  Status st = f->Append(R"({"a":1,"c":{"p":"z"}})");
  EXPECT_EQ(st.error_class(), "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION");
  EXPECT_NE(st.message().find("[1,null,[null],"), std::string::npos) << st.message();
  EXPECT_TRUE(f->Append(R"({"c":{"p":3}})").ok());
  auto fc = f->Finish();
  ASSERT_EQ(fc->length(), 2);
  EXPECT_EQ(fc->GetValue(1).ToString(), "{NULL, NULL, {3}, NULL}");
}

// Records parsed where they lie in the caller's buffer (readable_after) give what the
// padded copy gives: lines ending in numbers, literals and strings, cut short, followed
// by '\n', "\r\n" or a non-whitespace separator (copied), and lines too close to the
// buffer's end (copied).
TEST(JsonColumnParserTest, InPlaceParseMatchesTheCopy) {
  auto schema = S({{"a", DataType::Long()},
                   {"b", DataType::Boolean()},
                   {"zzzzzzzzz", DataType::String()},
                   {"d", DataType::Double()},
                   {"_corrupt_record", DataType::String()}});
  const std::vector<std::string> records = {R"({"a":1,"b":true,"zzzzzzzzz":"s","d":1.5})",
                                            R"({"a":12)",
                                            R"({"b":tru)",
                                            R"({"b":true)",
                                            R"({"d":1e)",
                                            R"({"zzzzzzzzz":"abc)",
                                            R"({"zz)",
                                            R"({"a":9007199254740993,"d":-0.0})",
                                            R"(  {"b":false}  )",
                                            "12",
                                            "true",
                                            R"("zzzzzzzzz")",
                                            R"([{"a":1},{"a":2)",
                                            R"({"a":[1,2]})",
                                            ""};
  for (const std::string sep : {"\n", "\r\n", "|", "1", "\"zzzzzzzzz\":"}) {
    for (ParseMode mode : {ParseMode::kPermissive, ParseMode::kDropMalformed}) {
      JsonOptions o;
      o.mode = mode;
      std::string buf;
      std::vector<std::pair<size_t, size_t>> spans;
      for (int rep = 0; rep < 3; ++rep) {
        for (const auto& r : records) {
          spans.emplace_back(buf.size(), r.size());
          buf += r + sep;
        }
      }
      auto copy = std::move(JsonColumnParser::Make(schema, o, true)).value();
      auto in_place = std::move(JsonColumnParser::Make(schema, o, true)).value();
      for (const auto& [off, len] : spans) {
        std::string_view text(buf.data() + off, len);
        int64_t rows_c = -1, rows_p = -2;
        bool un_c = false, un_p = true;
        ASSERT_TRUE(copy->Append(text, &rows_c, &un_c).ok());
        ASSERT_TRUE(in_place->Append(text, &rows_p, &un_p, buf.size() - off - len).ok());
        EXPECT_EQ(rows_c, rows_p) << text;
        EXPECT_EQ(un_c, un_p) << text;
      }
      auto a = copy->Finish(), b = in_place->Finish();
      ASSERT_EQ(a->length(), b->length());
      for (int64_t i = 0; i < a->length(); ++i)
        EXPECT_EQ(a->GetValue(i).ToString(), b->GetValue(i).ToString())
            << sep << " " << i;
    }
  }
}

// Random records against a model of what they hold: fields in varying orders (so the
// field-order prediction both hits and misses), missing, repeated (the last one wins),
// escaped keys (\u0061 for "a"), keys the schema does not name (the corrupt-record
// column's name among them), names a raw byte comparison cannot match (quotes,
// backslashes), NULLs before and after values (the validity kept from the first NULL
// on). One parser over all records (predictions carried from record to record) and a
// new parser per record both give the model's rows.
TEST(JsonColumnParserTest, RandomRecordsMatchTheirModel) {
  std::mt19937_64 rng(17);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  const std::vector<std::string> kNames = {"a",
                                           "b2",
                                           "event_id",
                                           "user_identifier_long_name",
                                           "\xc3\xa9t\xc3\xa9",
                                           "x y",
                                           "q\"uote",
                                           "back\\slash",
                                           "ts",
                                           "ok",
                                           "zzzzzzzz",
                                           "zzzzzzzzz"};
  auto escape = [](const std::string& t, bool escape_first) {
    std::string out;
    for (size_t i = 0; i < t.size(); ++i) {
      char c = t[i];
      if (i == 0 && escape_first && static_cast<unsigned char>(c) < 0x80) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
        out += buf;
      } else if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else {
        out += c;
      }
    }
    return out;
  };
  const auto inner = S({{"p", DataType::Long()}, {"q", DataType::String()}});
  const std::vector<DataTypePtr> kTypes = {DataType::Long(),
                                           DataType::String(),
                                           DataType::Double(),
                                           DataType::Boolean(),
                                           inner,
                                           DataType::Array(DataType::Long())};
  // A random value of type t: its JSON text and its Value.
  std::function<std::pair<std::string, Value>(const DataTypePtr&)> value =
      [&](const DataTypePtr& t) -> std::pair<std::string, Value> {
    if (pick(7) == 0) return {"null", Value::Null(t)};
    switch (t->id()) {
      case TypeId::kLong: {
        int64_t v = static_cast<int64_t>(rng() >> pick(64)) * (pick(2) ? 1 : -1);
        return {std::to_string(v), Value::Long(v)};
      }
      case TypeId::kString: {
        std::string v;
        for (int i = pick(12); i > 0; --i) v += "ab\n\"cd\\e"[pick(8)];
        return {"\"" + escape(v, false) + "\"", Value::String(v)};
      }
      case TypeId::kDouble: {
        double v = static_cast<double>(pick(100000)) / 64.0;
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.17g", v);
        return {buf, Value::Double(v)};
      }
      case TypeId::kBoolean: {
        bool v = pick(2) != 0;
        return {v ? "true" : "false", Value::Boolean(v)};
      }
      case TypeId::kArray: {
        std::string text = "[";
        std::vector<Value> items;
        for (int i = pick(4); i > 0; --i) {
          auto [et, ev] = value(t->element_type());
          text += (items.empty() ? "" : ",") + et;
          items.push_back(ev);
        }
        return {text + "]", Value::Array(t->element_type(), items)};
      }
      default: {  // the inner struct, fields in either order, sometimes one missing
        auto [pt, pv] = value(DataType::Long());
        auto [qt, qv] = value(DataType::String());
        const int shape = pick(4);
        std::string text = shape == 0   ? "{\"p\":" + pt + ",\"q\":" + qt + "}"
                           : shape == 1 ? "{\"q\":" + qt + ",\"p\":" + pt + "}"
                           : shape == 2 ? "{\"q\":" + qt + ",\"zz\":[1,{\"p\":2}]}"
                                        : "{\"p\":" + pt + "}";
        if (shape == 2) pv = Value::Null(DataType::Long());
        if (shape == 3) qv = Value::Null(DataType::String());
        return {text, Value::Struct(t, {pv, qv})};
      }
    }
  };
  for (int round = 0; round < 60; ++round) {
    std::vector<std::string> names = kNames;
    std::shuffle(names.begin(), names.end(), rng);
    names.resize(1 + pick(static_cast<int>(names.size())));
    std::vector<Field> fields;
    for (const auto& n : names) fields.push_back({n, kTypes[pick(6)], true});
    const bool corrupt = pick(2) == 0;
    if (corrupt) fields.push_back({"_corrupt_record", DataType::String(), true});
    const auto schema = S(fields);
    const int nf = static_cast<int>(names.size());
    std::vector<int> order(nf);
    for (int k = 0; k < nf; ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);  // the usual order of the records
    std::vector<std::string> texts, expected;
    for (int r = 0; r < 300; ++r) {
      std::vector<int> o = order;
      if (pick(3) == 0) std::shuffle(o.begin(), o.end(), rng);
      std::vector<Value> row;
      for (const auto& f : fields) row.push_back(Value::Null(f.type));
      std::string text = "{";
      auto emit = [&](const std::string& key, const std::string& v) {
        text += (text.size() > 1 ? "," : "") + ("\"" + key + "\":" + v);
      };
      for (int k : o) {
        if (pick(8) == 0) continue;  // missing
        if (pick(10) == 0) emit("unknown", "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}");
        if (pick(12) == 0) emit(escape(names[k], false) + "x", "1");
        if (pick(15) == 0) emit("_corrupt_record", "\"t\"");
        for (int rep = pick(6) == 0 ? 2 : 1; rep > 0; --rep) {
          auto [vt, vv] = value(fields[k].type);
          emit(escape(names[k], pick(10) == 0), vt);
          row[k] = vv;
        }
      }
      texts.push_back(text + "}");
      expected.push_back(Value::Struct(schema, row).ToString());
    }
    EXPECT_EQ(Parse(schema, texts), expected) << "round " << round;
    for (size_t r = 0; r < texts.size(); r += 37) {
      auto one = Parse(schema, {texts[r]});
      ASSERT_EQ(one.size(), 1u);
      EXPECT_EQ(one[0], expected[r]) << texts[r];
    }
  }
}

TEST(JsonColumnParserTest, DeepNestingAndBadUtf8DoNotCrash) {
  std::string deep(10000, '[');
  deep += std::string(10000, ']');
  std::string deep_obj;
  for (int i = 0; i < 10000; ++i) deep_obj += "{\"a\":";
  deep_obj += "1" + std::string(10000, '}');
  auto schema =
      S({{"a", S({{"a", DataType::Int()}})}, {"_corrupt_record", DataType::String()}});
  auto rows = Parse(schema, {deep, deep_obj, "{\"a\":\"\xff\xfe\"}"});
  EXPECT_EQ(rows.size(), 3u);
  // a.a is an object, not an INT: a bad field (Jackson would stop at depth 1000 and make
  // the whole record bad; simdjson skips the deep value).
  EXPECT_EQ(rows[1].substr(0, 9), "{{NULL}, ");
  EXPECT_EQ(rows[2].substr(0, 7), "{NULL, ");
}

}  // namespace
}  // namespace spate::formats::json
